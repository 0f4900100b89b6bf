/// Composites over an opaque solid color; the result is opaque. docs/stages.md `flatten`, and the JPEG
/// writer's `flatten` setting.
/// Straight: c = round((c·a + bg·(max − a)) / max). Premultiplied: c = c' + round(bg·(max − a) / max),
/// clamped. The background's own alpha is ignored (the result is opaque by definition).
public struct FlattenKernel: InPlaceKernel {
    public var color: Color
    public var premultiplied: Bool
    @inlinable
    public init(color: Color, premultiplied: Bool) {
        self.color = color
        self.premultiplied = premultiplied
    }

    @inlinable
    public func run<C: PixelChannel>(_ p: UnsafeMutableBufferPointer<C>, width: Int, height: Int) {
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
