public import TexPipeParameters
public import TexPipePixels

/// `premultiply`: c' = round(c · a / max), ties up (never a tie: max is odd). docs/stages.md.
/// Inverse: `Unpremultiply`. An error at plan time if the image is already premultiplied.
public struct Premultiply: Stage {
    public static let name = "premultiply"
    public static let summary = "multiplies color by alpha: c' = round(c · a / max)"
    public static let takesHDR = true
    public static let takesCube = true
    public static let identity = #"{}"#
    public static let parameters: [Parameter] = []

    public init(_ arguments: Arguments) {}
    public init() {}

    public func planned(_ input: Signature) throws -> [Signature] { [try input.converted(to: .premultiplied)] }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        var out = consume image
        if out.isHDR {
            // c' = c · a, in Float: nothing to round.
            out.runFloatsInBands(on: context.rows) { p in
                for i in stride(from: 0, to: p.count, by: 4) {
                    let a = p[i + 3]
                    p[i] *= a; p[i + 1] *= a; p[i + 2] *= a
                }
            }
        } else {
            out.runInBands(Kernel(), on: context.rows)
        }
        out.alpha = .premultiplied
        return [out]
    }

    struct Kernel: InPlaceKernel {
        func run<C: PixelChannel>(_ p: UnsafeMutableBufferPointer<C>, width: Int, height: Int) {
            let max = C.maxValue
            var i = 0
            while i < p.count {
                let a = Int(p[i + 3])
                if a != max {
                    p[i] = C(truncatingIfNeeded: Rounding.mulDiv(Int(p[i]), a, max: max))
                    p[i + 1] = C(truncatingIfNeeded: Rounding.mulDiv(Int(p[i + 1]), a, max: max))
                    p[i + 2] = C(truncatingIfNeeded: Rounding.mulDiv(Int(p[i + 2]), a, max: max))
                }
                i += 4
            }
        }
    }
}
