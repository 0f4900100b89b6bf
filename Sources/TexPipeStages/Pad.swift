public import TexPipeParameters
public import TexPipePixels

/// `pad`: adds `left`, `top`, `right`, `bottom` px (each defaults to `all`) filled with
/// `color`. On a premultiplied image the fill is premultiplied too. docs/stages.md.
public struct Pad: Stage {
    public static let name = "pad"
    public static let summary = "adds a border of left/top/right/bottom px (or all) in a color"
    public static let takesHDR = true
    public static let identity = #"{}"#
    static let sideRange = 0...65536
    public static let parameters: [Parameter] = [
        .integer("all", in: sideRange, default: 0, doc: "px on every side not given on its own"),
        Parameter("left", .integer(sideRange), .optional(absentDoc: "all"), doc: "px added on the left"),
        Parameter("top", .integer(sideRange), .optional(absentDoc: "all"), doc: "px added on top"),
        Parameter("right", .integer(sideRange), .optional(absentDoc: "all"), doc: "px added on the right"),
        Parameter("bottom", .integer(sideRange), .optional(absentDoc: "all"), doc: "px added at the bottom"),
        .color("color", default: .transparent, doc: "fill color"),
    ]

    public var left: Int, top: Int, right: Int, bottom: Int
    public var color: Color

    public init(_ a: Arguments) {
        let all = a.integer("all")
        left = a.optionalInteger("left") ?? all
        top = a.optionalInteger("top") ?? all
        right = a.optionalInteger("right") ?? all
        bottom = a.optionalInteger("bottom") ?? all
        color = a.color("color")
    }

    /// The table's default color when none is given.
    public init(left: Int, top: Int, right: Int, bottom: Int, color: Color? = nil) {
        self.init(
            .defaults(
                of: Self.parameters,
                [
                    "left": .integer(left), "top": .integer(top), "right": .integer(right),
                    "bottom": .integer(bottom), "color": color.map { .color($0) },
                ]))
    }

    public func planned(_ input: Signature) throws -> [Signature] {
        var out = input
        out.width = input.width.map { $0 + left + right }
        out.height = input.height.map { $0 + top + bottom }
        return [out]
    }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        let premultiplied = image.alpha == .premultiplied
        let fill = image.isHDR ? [] : color.channels(max: image.depth == 16 ? 65535 : 255, premultiplied: premultiplied)
        return [
            image.produced(
                width: image.width + left + right, height: image.height + top + bottom, fill: fill,
                floatFill: color.linear(premultiplied: premultiplied),
                RectCopy(x: 0, y: 0, width: image.width, height: image.height, to: left, top))
        ]
    }
}
