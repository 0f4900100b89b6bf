public import TexPipeParameters
public import TexPipePixels

/// `unpremultiply`: a = 0 → (0, 0, 0, 0); else c = min(max, round(c' · max / a)), ties up.
/// docs/stages.md. Inverse of `Premultiply` wherever that kept enough precision.
public struct Unpremultiply: Stage {
    public static let name = "unpremultiply"
    public static let summary = "divides color by alpha: c = min(max, round(c' · max / a)); a = 0 gives 0"
    public static let takesHDR = true
    public static let takesCube = true
    public static let identity = #"{}"#
    public static let parameters: [Parameter] = []

    public init(_ arguments: Arguments) {}
    public init() {}

    public func planned(_ input: Signature) throws -> [Signature] { [try input.converted(to: .straight)] }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        var out = consume image
        if out.isHDR {
            // c = c' / a, in Float (no upper clamp: HDR colour has none); a = 0 → (0, 0, 0, 0).
            out.runFloatsInBands(on: context.rows) { p in
                for i in stride(from: 0, to: p.count, by: 4) {
                    let a = p[i + 3]
                    if a <= 0 {
                        p[i] = 0; p[i + 1] = 0; p[i + 2] = 0
                    } else {
                        p[i] /= a; p[i + 1] /= a; p[i + 2] /= a
                    }
                }
            }
        } else {
            out.runInBands(Kernel(), on: context.rows)
        }
        out.alpha = .straight
        return [out]
    }

    /// The image with straight alpha (as it is when already straight): what a writer of a file
    /// whose readers take straight alpha (WebP, AVIF) is given.
    public static func straightened(_ image: __owned Image, rows: any RowScheduler) -> Image {
        var out = consume image
        guard out.alpha == .premultiplied, !out.isHDR else { return out }
        out.runInBands(Kernel(), on: rows)
        out.alpha = .straight
        return out
    }

    struct Kernel: InPlaceKernel {
        func run<C: PixelChannel>(_ p: UnsafeMutableBufferPointer<C>, width: Int, height: Int) {
            let max = C.maxValue
            var i = 0
            while i < p.count {
                let a = Int(p[i + 3])
                if a == 0 {
                    p[i] = 0; p[i + 1] = 0; p[i + 2] = 0
                } else if a != max {
                    for k in i..<i + 3 {
                        p[k] = C(truncatingIfNeeded: Swift.min(max, Rounding.divRound(Int(p[k]) * max, a)))
                    }
                }
                i += 4
            }
        }
    }
}
