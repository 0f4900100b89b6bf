public import TexPipeParameters
public import TexPipePixels

/// `flatten`: composites over an opaque solid color; the result is opaque (`FlattenKernel`). docs/stages.md.
public struct Flatten: Stage {
    public static let name = "flatten"
    public static let summary = "composites over a solid color; the result is opaque"
    public static let identity = #"{}"#
    public static let parameters: [Parameter] = [
        .color("color", default: .white, doc: "background color (its alpha is ignored)")
    ]

    public var color: Color

    public init(_ arguments: Arguments) { color = arguments.color("color") }
    public init(color: Color) { self.color = color }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        var out = consume image
        out.runInBands(FlattenKernel(color: color, premultiplied: out.alpha == .premultiplied), on: context.rows)
        return [out]
    }

    /// The image composited over a solid color of any alpha (source-over), in the image's own
    /// alpha state: A = a + b_a·(1 − a), C = (c·a + b·b_a·(1 − a)) / A (straight), or
    /// C′ = c′ + b·b_a·(1 − a) (premultiplied). Used for `rotate`'s background.
    static func under(_ image: Image, _ bg: Color, rows: any RowScheduler) -> Image {
        var out = image
        let premultiplied = image.alpha == .premultiplied
        out.runInBands(Under(bg: bg, premultiplied: premultiplied), on: rows)
        return out
    }

    struct Under: InPlaceKernel {
        var bg: Color
        var premultiplied: Bool
        func run<C: PixelChannel>(_ p: UnsafeMutableBufferPointer<C>, width: Int, height: Int) {
            let m = Double(C.maxValue)
            let b = [bg.r, bg.g, bg.b]
            var i = 0
            while i < p.count {
                let a = Double(p[i + 3]) / m
                let outA = a + bg.a * (1 - a)
                for k in 0..<3 {
                    let c = Double(p[i + k]) / m
                    let v: Double
                    if premultiplied {
                        v = c + b[k] * bg.a * (1 - a)
                    } else {
                        v = outA > 0 ? (c * a + b[k] * bg.a * (1 - a)) / outA : 0
                    }
                    p[i + k] = C(truncatingIfNeeded: Int(min(1, v) * m + 0.5))
                }
                p[i + 3] = C(truncatingIfNeeded: Int(outA * m + 0.5))
                i += 4
            }
        }
    }
}
