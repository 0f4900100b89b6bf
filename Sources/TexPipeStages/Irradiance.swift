internal import Foundation
public import TexPipeParameters
public import TexPipePixels

/// `irradiance`: a cube map in, its diffuse lighting out (docs/hdr.md "Irradiance").
///
/// The radiance is projected onto the 9 real spherical harmonics of bands 0–2, each texel weighted
/// by its exact solid angle (`CubeMap.texelSolidAngle`):
///   L_lm = Σ L(d) Y_lm(d) Ω(d)
/// with Y00 = 0.282095, Y1−1 = 0.488603 y, Y10 = 0.488603 z, Y11 = 0.488603 x,
/// Y2−2 = 1.092548 xy, Y2−1 = 1.092548 yz, Y20 = 0.315392 (3z² − 1), Y21 = 1.092548 xz,
/// Y22 = 0.546274 (x² − y²); then convolved with the clamped cosine (Ramamoorthi and Hanrahan
/// 2001): E_lm = Â_l L_lm, Â_0 = π, Â_1 = 2π/3, Â_2 = π/4, so that the irradiance is
/// E(n) = Σ E_lm Y_lm(n). The nine E_lm (RGB) go to `_sh.json` beside the output. The cube passes
/// through unchanged, or with `size` becomes the irradiance cube E(n) / π (the light a white
/// Lambertian surface facing n reflects) of that face size.
public struct Irradiance: Stage {
    public static let name = "irradiance"
    public static let summary = "a cube map's diffuse lighting: 9 SH coefficients (_sh.json), optionally a small cube"
    public static let takesHDR = true
    public static let takesCube = true
    public static let identity = "{}"
    public static let parameters: [Parameter] = [
        Parameter(
            "size", .integer(1...1024), .optional(absentDoc: "the cube passes through"),
            doc: "face edge of an irradiance cube (E / π) to write instead of the input")
    ]

    /// The sidecar's suffix.
    public static let sidecar = "_sh.json"

    public var size: Int?

    public init(_ a: Arguments) { size = a.optionalInteger("size") }
    public init(size: Int? = nil) { self.size = size }

    public func planned(_ input: Signature) throws -> [Signature] {
        guard input.cube else { throw StageError(.needsCube(stage: Self.name)) }
        var out = input
        if let size {
            out.width = size
            out.height = 6 * size
        }
        out.sidecars = Array(Set(out.sidecars + [Self.sidecar])).sorted()
        return [out]
    }

    /// The nine basis functions at a unit direction.
    @inline(__always)
    static func basis(_ d: SIMD3<Double>) -> [Double] {
        let (x, y, z) = (d.x, d.y, d.z)
        return [
            0.282_095, 0.488_603 * y, 0.488_603 * z, 0.488_603 * x, 1.092_548 * x * y, 1.092_548 * y * z,
            0.315_392 * (3 * z * z - 1), 1.092_548 * x * z, 0.546_274 * (x * x - y * y),
        ]
    }

    /// Â_l for each of the nine coefficients.
    static let cosine: [Double] = [.pi] + Array(repeating: 2 * .pi / 3, count: 3) + Array(repeating: .pi / 4, count: 5)

    /// The unit direction through the centre of texel (x, y) of face `f` of an n × n face.
    static func direction(_ f: Int, _ x: Int, _ y: Int, _ n: Int) -> SIMD3<Double> {
        let t = 2 * (Float(y) + 0.5) / Float(n) - 1
        let s = 2 * (Float(x) + 0.5) / Float(n) - 1
        let v = CubeMap.direction(face: f, s: s, t: t)
        let d = SIMD3(Double(v.x), Double(v.y), Double(v.z))
        return d / (d * d).sum().squareRoot()
    }

    /// The irradiance coefficients E_lm (RGB) of a cube (straight, linear light).
    public static func coefficients(_ cube: Image) -> [SIMD3<Double>] {
        let n = cube.width
        var sums = [SIMD3<Double>](repeating: .zero, count: 9)
        for (f, face) in cube.cubeFaces().enumerated() {
            let pixels = FloatImage(face, colorSpace: .srgb).pixels
            for y in 0..<n {
                for x in 0..<n {
                    let d = direction(f, x, y, n)
                    let omega = CubeMap.texelSolidAngle(x: x, y: y, size: n)
                    let p = pixels[y * n + x]
                    // Premultiplied colour: the light a texel gives is its colour times its coverage.
                    let c = SIMD3(Double(p.x), Double(p.y), Double(p.z)) * omega
                    let b = basis(d)
                    for k in 0..<9 { sums[k] += c * b[k] }
                }
            }
        }
        return (0..<9).map { sums[$0] * cosine[$0] }
    }

    /// `_sh.json`: the coefficients with the conventions that read them.
    static func json(_ e: [SIMD3<Double>]) -> [UInt8] {
        let names = ["0,0", "1,-1", "1,0", "1,1", "2,-2", "2,-1", "2,0", "2,1", "2,2"]
        func number(_ v: Double) -> String { String(format: "%.9g", v) }
        var s = "{\n  \"bands\": 3,\n"
        s += "  \"basis\": \"real spherical harmonics Y_lm as in docs/hdr.md; +Y up, faces in KTX2 order\",\n"
        s +=
            "  \"irradiance\": \"E(n) = sum of coefficients[k] * Y_k(n); a Lambertian surface's radiance is albedo * E / pi\",\n"
        s += "  \"order\": [" + names.map { "\"\($0)\"" }.joined(separator: ", ") + "],\n"
        s += "  \"coefficients\": [\n"
        s += e.map { "    [" + number($0.x) + ", " + number($0.y) + ", " + number($0.z) + "]" }.joined(separator: ",\n")
        s += "\n  ]\n}\n"
        return Array(s.utf8)
    }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        guard image.cube else { throw StageError(.needsCube(stage: Self.name)) }
        let e = Self.coefficients(image)
        var out = image
        if let size {
            var floats = [SIMD4<Float>](repeating: .zero, count: 6 * size * size)
            for f in 0..<6 {
                for y in 0..<size {
                    for x in 0..<size {
                        let b = Self.basis(Self.direction(f, x, y, size))
                        var c = SIMD3<Double>()
                        for k in 0..<9 { c += e[k] * b[k] }
                        c = SIMD3(max(c.x, 0), max(c.y, 0), max(c.z, 0)) / .pi
                        floats[(f * size + y) * size + x] = SIMD4(Float(c.x), Float(c.y), Float(c.z), 1)
                    }
                }
            }
            let stored = FloatImage(width: size, height: 6 * size, pixels: floats)
                .image(depth: image.depth, alpha: image.alpha, colorSpace: .srgb)
            out = image.with(width: size, height: 6 * size, pixels: stored.pixels)
        }
        out.sidecars[Self.sidecar] = Self.json(e)
        return [out]
    }
}
