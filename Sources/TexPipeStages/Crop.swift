public import TexPipeParameters
public import TexPipePixels

/// `crop`: keeps the rectangle x, y, width, height. A rectangle that is not inside the
/// image is an error naming both sizes (at plan time when the size is known). docs/stages.md.
public struct Crop: Stage {
    public static let name = "crop"
    public static let summary = "keeps the rectangle x, y, width, height"
    public static let takesHDR = true
    public static let identity = #"{"x": 0, "y": 0, "width": 3, "height": 2}"#
    public static let parameters: [Parameter] = [
        .integer("x", in: 0...Int(Int32.max), doc: "left edge of the rectangle, px"),
        .integer("y", in: 0...Int(Int32.max), doc: "top edge of the rectangle, px"),
        .integer("width", in: 1...Int(Int32.max), doc: "rectangle width, px"),
        .integer("height", in: 1...Int(Int32.max), doc: "rectangle height, px"),
    ]

    public var x: Int, y: Int, width: Int, height: Int

    public init(_ a: Arguments) {
        self.init(x: a.integer("x"), y: a.integer("y"), width: a.integer("width"), height: a.integer("height"))
    }

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    func check(_ w: Int, _ h: Int) throws {
        guard x + width <= w, y + height <= h else {
            throw StageError(.cropOutside(x: x, y: y, width: width, height: height, imageWidth: w, imageHeight: h))
        }
    }

    public func planned(_ input: Signature) throws -> [Signature] {
        if let w = input.width, let h = input.height { try check(w, h) }
        var out = input
        out.width = width
        out.height = height
        out.dataDependentSize = false
        return [out]
    }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        try check(image.width, image.height)
        return [
            image.produced(
                width: width, height: height,
                RectCopy(x: x, y: y, width: width, height: height, to: 0, 0))
        ]
    }
}
