public import TexPipeParameters
public import TexPipePixels

/// `extrude`: repeats the edge pixels outward by `pixels` on every side (sprite-atlas bleeding,
/// so a bilinear sampler at the sprite's edge reads the sprite, not its neighbour). The canvas grows
/// by 2 · pixels each way; corners repeat the corner pixel. docs/stages.md.
public struct Extrude: Stage {
    public static let name = "extrude"
    public static let summary = "repeats the edge pixels outward (atlas bleeding); the canvas grows"
    public static let identity = #"{"pixels": 0}"#
    public static let parameters: [Parameter] = [
        .integer("pixels", in: 0...4096, default: 1, doc: "px added on every side")
    ]

    public var pixels: Int

    public init(_ a: Arguments) { pixels = a.integer("pixels") }
    /// The table's default when not given.
    public init(pixels: Int? = nil) {
        self.init(.defaults(of: Self.parameters, ["pixels": pixels.map { .integer($0) }]))
    }

    public func planned(_ input: Signature) throws -> [Signature] {
        var out = input
        out.width = input.width.map { $0 + 2 * pixels }
        out.height = input.height.map { $0 + 2 * pixels }
        return [out]
    }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        guard pixels > 0 else { return [image] }
        return [image.produced(width: image.width + 2 * pixels, height: image.height + 2 * pixels, Kernel(n: pixels))]
    }

    struct Kernel: CopyKernel {
        var n: Int
        func run<C: PixelChannel>(
            _ src: UnsafeBufferPointer<C>, srcWidth w: Int, srcHeight h: Int,
            _ dst: UnsafeMutableBufferPointer<C>, width: Int, height: Int
        ) {
            for y in 0..<height {
                let sy = min(max(y - n, 0), h - 1)
                for x in 0..<width {
                    let sx = min(max(x - n, 0), w - 1)
                    let s = (sy * w + sx) * 4
                    let d = (y * width + x) * 4
                    copyPixel(src, s, to: dst, d)
                }
            }
        }
    }
}
