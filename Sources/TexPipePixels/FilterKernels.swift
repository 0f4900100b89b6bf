internal import Foundation

/// The reconstruction filters' weight functions, written once: `mipmaps` and `resize` sample them
/// per tap, `rotate` tabulates Lanczos. Arguments are distances |x| ≥ 0 in source texels.
public enum FilterKernels {
    /// Tent: max(0, 1 − |x|).
    public static func tent(_ ax: Double) -> Double { max(0, 1 - ax) }

    /// Normalised sinc: sin(πx) / (πx), 1 at 0.
    public static func sinc(_ x: Double) -> Double {
        x < 1e-9 ? 1 : sin(Double.pi * x) / (Double.pi * x)
    }

    /// Lanczos: sinc(x) · sinc(x / a) inside |x| < a, else 0.
    public static func lanczos(_ ax: Double, a: Double) -> Double {
        ax < a ? sinc(ax) * sinc(ax / a) : 0
    }

    /// Kaiser-windowed sinc: sinc(x) · I0(α √(1 − (x/r)²)) / I0(α) inside |x| < r (NVTT's r = 3, α = 4).
    public static func kaiser(_ ax: Double, radius: Double, alpha: Double) -> Double {
        guard ax < radius else { return 0 }
        let t = ax / radius
        return sinc(ax) * besselI0(alpha * (1 - t * t).squareRoot()) / besselI0(alpha)
    }

    /// Modified Bessel function of the first kind, order 0 (power series).
    public static func besselI0(_ x: Double) -> Double {
        var sum = 1.0
        var term = 1.0
        var k = 1.0
        while term > 1e-12 * sum {
            term *= (x / (2 * k)) * (x / (2 * k))
            sum += term
            k += 1
        }
        return sum
    }
}
