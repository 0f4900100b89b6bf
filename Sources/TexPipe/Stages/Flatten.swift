/// `flatten`: composites over an opaque solid color; the result is opaque. SPEC §3.
/// Straight: c = round((c·a + bg·(max − a)) / max). Premultiplied: c = c' + round(bg·(max − a) / max),
/// clamped. The background's own alpha is ignored (the result is opaque by definition).
public struct Flatten: Stage {
    public static let name = "flatten"
    public static let summary = "composites over a solid color; the result is opaque"
    public static let parameters: [Parameter] = [
        .color("color", default: .white, doc: "background color (its alpha is ignored)")
    ]

    public var color: Color

    public init(_ arguments: Arguments) { color = arguments.color("color") }
    public init(color: Color) { self.color = color }

    public func applied(to image: Image) throws -> [Image] {
        var out = image
        out.runInBands(Kernel(color: color, premultiplied: image.alpha == .premultiplied))
        return [out]
    }

    struct Kernel: InPlaceKernel {
        var color: Color
        var premultiplied: Bool

        func run<C: PixelChannel>(_ p: UnsafeMutableBufferPointer<C>, width: Int, height: Int) {
            let max = C.maxValue
            let bg = color.channels(max: max)
            var i = 0
            while i < p.count {
                let a = Int(p[i + 3])
                if a != max {
                    for k in 0..<3 {
                        let c = Int(p[i + k])
                        let v =
                            premultiplied
                            ? Swift.min(max, c + Rounding.mulDiv(bg[k], max - a, max: max))
                            : (c * a + bg[k] * (max - a) + (max >> 1)) / max
                        p[i + k] = C(truncatingIfNeeded: v)
                    }
                    p[i + 3] = C(truncatingIfNeeded: max)
                }
                i += 4
            }
        }
    }

    /// The image composited over a solid color of any alpha (source-over), in the image's own
    /// alpha state: A = a + b_a·(1 − a), C = (c·a + b·b_a·(1 − a)) / A (straight), or
    /// C′ = c′ + b·b_a·(1 − a) (premultiplied). Used for `rotate`'s background.
    static func under(_ image: Image, _ bg: Color) throws -> Image {
        var out = image
        let premultiplied = image.alpha == .premultiplied
        out.runInBands(Under(bg: bg, premultiplied: premultiplied))
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
