public import TexPipeParameters
public import TexPipePixels

/// `trim`: removes border rows and columns whose alpha is ≤ `threshold` (a fraction of
/// max), then keeps `margin` px of them back where the image has them. An image that is
/// transparent everywhere becomes 1×1 transparent. docs/stages.md.
public struct Trim: Stage {
    public static let name = "trim"
    public static let summary = "removes transparent border rows and columns, keeping a margin"
    public static let identity = #"{}"#
    public static let parameters: [Parameter] = [
        .number("threshold", in: 0...1, default: 0, doc: "alpha at or below this fraction counts as empty"),
        .integer("margin", in: 0...65536, default: 0, doc: "px of the trimmed border to keep"),
    ]

    public var threshold: Double
    public var margin: Int

    public init(_ a: Arguments) { self.init(threshold: a.number("threshold"), margin: a.integer("margin")) }
    public init(threshold: Double = 0, margin: Int = 0) {
        self.threshold = threshold
        self.margin = margin
    }

    public func planned(_ input: Signature) throws -> [Signature] {
        var out = input
        out.width = nil  // depends on the pixels
        out.height = nil
        out.dataDependentSize = true
        return [out]
    }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        guard let b = image.bounds(alphaAbove: threshold) else {
            return [image.with(width: 1, height: 1, pixels: Image(width: 1, height: 1, depth: image.depth).pixels)]
        }
        let x0 = max(0, b.x0 - margin)
        let y0 = max(0, b.y0 - margin)
        let x1 = min(image.width - 1, b.x1 + margin)
        let y1 = min(image.height - 1, b.y1 + margin)
        let (w, h) = (x1 - x0 + 1, y1 - y0 + 1)
        return [image.produced(width: w, height: h, RectCopy(x: x0, y: y0, width: w, height: h, to: 0, 0))]
    }
}
