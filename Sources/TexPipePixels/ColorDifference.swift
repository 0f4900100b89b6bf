internal import Foundation

/// CIELAB and the CIEDE2000 color difference, for `distinct` (docs/manifest.md).
///
/// sRGB values → linear (IEC 61966-2-1) → XYZ (D65, the sRGB matrix) → CIELAB with the D65
/// white (0.95047, 1, 1.08883). ΔE00 follows CIE 142-2001 as written out by Sharma, Wu and
/// Dalal, "The CIEDE2000 Color-Difference Formula: Implementation Notes…" (Color Res. Appl.
/// 30(1), 2005), with kL = kC = kH = 1; the tests check all 34 pairs of their Table 1.
public struct Lab: Sendable, Equatable {
    public var l: Double
    public var a: Double
    public var b: Double

    public init(l: Double, a: Double, b: Double) {
        self.l = l
        self.a = a
        self.b = b
    }

    /// The CIELAB value of an sRGB color (alpha ignored).
    public init(_ c: Color) {
        func linear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
        let r = linear(c.r)
        let g = linear(c.g)
        let b = linear(c.b)
        let x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
        let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
        let z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        self.init(l: 116 * f(y) - 16, a: 500 * (f(x) - f(y)), b: 200 * (f(y) - f(z)))
    }

    /// ΔE00 between two CIELAB colors; symmetric.
    public static func deltaE2000(_ p: Lab, _ q: Lab) -> Double {
        let twentyFive7 = 6_103_515_625.0  // 25⁷
        let cMean = (hypot(p.a, p.b) + hypot(q.a, q.b)) / 2
        let g = 0.5 * (1 - (pow(cMean, 7) / (pow(cMean, 7) + twentyFive7)).squareRoot())
        // a' stretched by (1 + G); C' and h' (degrees, 0…360; 0 for a neutral color).
        func prime(_ c: Lab) -> (c: Double, h: Double) {
            let a = (1 + g) * c.a
            let chroma = hypot(a, c.b)
            guard chroma > 0 else { return (0, 0) }
            let h = atan2(c.b, a) * 180 / .pi
            return (chroma, h < 0 ? h + 360 : h)
        }
        let (c1, h1) = prime(p)
        let (c2, h2) = prime(q)
        let neutral = c1 * c2 == 0
        var dh = h2 - h1
        if neutral {
            dh = 0
        } else if dh > 180 {
            dh -= 360
        } else if dh < -180 {
            dh += 360
        }
        let dL = q.l - p.l
        let dC = c2 - c1
        let dH = 2 * (c1 * c2).squareRoot() * sin(dh * .pi / 360)
        let lMean = (p.l + q.l) / 2
        let cPrimeMean = (c1 + c2) / 2
        var hMean = h1 + h2
        if !neutral {
            if abs(h1 - h2) > 180 { hMean += hMean < 360 ? 360 : -360 }
            hMean /= 2
        }
        func cosd(_ d: Double) -> Double { cos(d * .pi / 180) }
        let t =
            1 - 0.17 * cosd(hMean - 30) + 0.24 * cosd(2 * hMean) + 0.32 * cosd(3 * hMean + 6)
            - 0.20 * cosd(4 * hMean - 63)
        let dTheta = 30 * exp(-pow((hMean - 275) / 25, 2))
        let rC = 2 * (pow(cPrimeMean, 7) / (pow(cPrimeMean, 7) + twentyFive7)).squareRoot()
        let l50 = pow(lMean - 50, 2)
        let sL = 1 + 0.015 * l50 / (20 + l50).squareRoot()
        let sC = 1 + 0.045 * cPrimeMean
        let sH = 1 + 0.015 * cPrimeMean * t
        let rT = -sin(2 * dTheta * .pi / 180) * rC
        let l = dL / sL
        let c = dC / sC
        let h = dH / sH
        return (l * l + c * c + h * h + rT * c * h).squareRoot()
    }

    /// ΔE00 between two sRGB colors.
    public static func deltaE2000(_ x: Color, _ y: Color) -> Double { deltaE2000(Lab(x), Lab(y)) }
}
