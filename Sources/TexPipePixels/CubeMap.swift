internal import Foundation

/// Cube-map geometry, written once (docs/hdr.md "Cube maps"): the faces in KTX2's order +X, −X, +Y,
/// −Y, +Z, −Z with OpenGL's (and KTX's) orientation, rows top first; and the equirectangular
/// mapping texpipe uses (+Y up, longitude growing to the right, the centre column facing −Z).
public enum CubeMap {
    /// The faces' names, in order: the `{face}` placeholder and the `_face{face}` suffix.
    public static let faceNames = ["px", "nx", "py", "ny", "pz", "nz"]

    /// The (unnormalised) direction through face `f` at s, t ∈ [−1, 1] (s to the right, t down the
    /// face's rows): OpenGL's cube-map selection table read backwards — for +X, sc = −z, tc = −y,
    /// ma = x, so the direction is (1, −t, −s).
    @inlinable
    public static func direction(face f: Int, s: Float, t: Float) -> SIMD3<Float> {
        switch f {
        case 0: SIMD3(1, -t, -s)
        case 1: SIMD3(-1, -t, s)
        case 2: SIMD3(s, 1, t)
        case 3: SIMD3(s, -1, -t)
        case 4: SIMD3(s, -t, 1)
        default: SIMD3(-s, -t, -1)
        }
    }

    /// The face and its s, t ∈ [−1, 1] a direction falls on (the inverse of `direction`): the
    /// largest component picks the face, ties to X, then Y.
    @inlinable
    public static func face(of d: SIMD3<Float>) -> (face: Int, s: Float, t: Float) {
        let a = SIMD3(abs(d.x), abs(d.y), abs(d.z))
        if a.x >= a.y && a.x >= a.z {
            return d.x > 0 ? (0, -d.z / a.x, -d.y / a.x) : (1, d.z / a.x, -d.y / a.x)
        }
        if a.y >= a.z {
            return d.y > 0 ? (2, d.x / a.y, d.z / a.y) : (3, d.x / a.y, -d.z / a.y)
        }
        return d.z > 0 ? (4, d.x / a.z, -d.y / a.z) : (5, -d.x / a.z, -d.y / a.z)
    }

    /// Where a direction falls on an equirectangular image, as fractions: u ∈ [0, 1) across (the
    /// longitude atan2(x, −z) / 2π + ½: −Z at the centre, +X at ¾), v ∈ [0, 1] down (½ − latitude / π).
    public static func equirect(_ d: SIMD3<Float>) -> (u: Float, v: Float) {
        let length = (d * d).sum().squareRoot()
        let u = atan2f(d.x, -d.z) / (2 * .pi) + 0.5
        let v = 0.5 - asinf(max(-1, min(1, d.y / length))) / .pi
        return (u, v)
    }

    /// The solid angle of texel (x, y) of an n × n face (the exact integral over the texel's
    /// square on the unit cube's face, Manne Öhrström's closed form).
    public static func texelSolidAngle(x: Int, y: Int, size n: Int) -> Double {
        func area(_ a: Double, _ b: Double) -> Double { atan2(a * b, (a * a + b * b + 1).squareRoot()) }
        let inv = 1 / Double(n)
        let s0 = 2 * Double(x) * inv - 1
        let t0 = 2 * Double(y) * inv - 1
        let s1 = s0 + 2 * inv
        let t1 = t0 + 2 * inv
        return area(s0, t0) - area(s0, t1) - area(s1, t0) + area(s1, t1)
    }
}
