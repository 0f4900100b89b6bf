internal import Foundation
public import TexPipeParameters
public import TexPipePixels

/// `prefilter`: a cube map in, the specular environment map out (docs/hdr.md "Prefiltering"): a
/// mip chain where level n is the radiance convolved with the GGX distribution at roughness
/// r = n / (levels − 1) (α = r², level 0 the cube as it is), as a split-sum renderer reads it.
///
/// Each texel of level n (its direction N, taken as the view and normal direction, V = N) is
///   Σ L(l_i) (N·l_i) / Σ (N·l_i)   over the i < `samples` with N·l_i > 0,
/// where h_i is GGX importance-sampled from the Hammersley point (i / samples, radical inverse of
/// i) and l_i = 2(N·h_i)h_i − N. Filtered importance sampling (Colbert and Křivánek, GPU Gems 3,
/// ch. 20; Karis 2013): sample i reads the source's box mip chain at
///   lod = max(0, ½ log2(Ω_s / Ω_p) + 1),  Ω_s = 1 / (samples · pdf_i),  pdf_i = D(h_i) / 4,
///   Ω_p = 4π / (6 · size²),
/// trilinearly, each face bilinear on its own (clamped at its edges). The same samples for every
/// texel, summed in order: the result does not depend on how many cores ran it.
public struct Prefilter: Stage {
    public static let name = "prefilter"
    public static let summary = "a cube map's specular mip chain: GGX at roughness level / (levels − 1)"
    public static let takesHDR = true
    public static let takesCube = true
    public static let makesLevels = true
    public static let identity = #"{"levels": 1}"#
    public static let parameters: [Parameter] = [
        .integer("samples", in: 1...65536, default: 1024, doc: "importance samples per texel"),
        Parameter(
            "levels", .integer(1...16), .optional(absentDoc: "down to 1×1"),
            doc: "levels, level 0 included; the last is roughness 1"),
        .choice(
            "layout", Layout.self, default: .files,
            doc:
                "one file per level (_mip{level}), or one GPU texture with every level (the default for .ktx2/.dds outputs)"
        ),
    ]

    public enum Layout: String, Sendable, CaseIterable { case files, texture }

    public var samples: Int
    public var levels: Int?
    public var layout: Layout

    public init(_ a: Arguments) {
        samples = a.integer("samples")
        levels = a.optionalInteger("levels")
        layout = a.choice("layout", as: Layout.self)
    }

    public init(samples: Int = 1024, levels: Int? = nil, layout: Layout = .texture) {
        self.samples = samples
        self.levels = levels
        self.layout = layout
    }

    /// How many levels a cube of face `size` gets.
    func levelCount(_ size: Int) -> Int {
        let full = Int.bitWidth - size.leadingZeroBitCount
        return min(levels ?? full, full)
    }

    public func planned(_ input: Signature) throws -> [Signature] {
        guard input.cube else { throw StageError(.needsCube(stage: Self.name)) }
        guard let size = input.width else { return [input] }
        return (0..<levelCount(size)).map { n in
            var s = input
            s.width = max(1, size >> n)
            s.height = 6 * max(1, size >> n)
            return s.asLevel(n, inTexture: layout == .texture)
        }
    }

    /// One importance sample: its direction in the frame where N = +Z, its weight N·l, its lod.
    struct Sample {
        var l: SIMD3<Float>
        var weight: Float
        var lod: Float
    }

    /// The Hammersley point's radical inverse (base 2) of i.
    static func radicalInverse(_ i: Int) -> Double {
        var b = UInt32(truncatingIfNeeded: i)
        b = (b << 16) | (b >> 16)
        b = ((b & 0x5555_5555) << 1) | ((b & 0xAAAA_AAAA) >> 1)
        b = ((b & 0x3333_3333) << 2) | ((b & 0xCCCC_CCCC) >> 2)
        b = ((b & 0x0F0F_0F0F) << 4) | ((b & 0xF0F0_F0F0) >> 4)
        b = ((b & 0x00FF_00FF) << 8) | ((b & 0xFF00_FF00) >> 8)
        return Double(b) / 4_294_967_296
    }

    /// The samples of one roughness, for a source of face `size` with `mips` levels.
    func samples(roughness: Double, size: Int, mips: Int) -> [Sample] {
        let a = roughness * roughness
        let a2 = a * a
        let texel = 4 * Double.pi / (6 * Double(size * size))
        var out: [Sample] = []
        for i in 0..<samples {
            let u1 = Double(i) / Double(samples)
            let u2 = Self.radicalInverse(i)
            let phi = 2 * Double.pi * u1
            let cosTheta = ((1 - u2) / (1 + (a2 - 1) * u2)).squareRoot()
            let sinTheta = (1 - cosTheta * cosTheta).squareRoot()
            let h = SIMD3(sinTheta * cos(phi), sinTheta * sin(phi), cosTheta)
            let l = 2 * h.z * h - SIMD3(0, 0, 1)
            guard l.z > 0 else { continue }
            let d = a2 / (Double.pi * pow(cosTheta * cosTheta * (a2 - 1) + 1, 2))
            let pdf = d / 4
            let solid = 1 / (Double(samples) * pdf)
            let lod = min(Double(mips - 1), max(0, 0.5 * log2(solid / texel) + 1))
            out.append(Sample(l: SIMD3(Float(l.x), Float(l.y), Float(l.z)), weight: Float(l.z), lod: Float(lod)))
        }
        return out
    }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        guard image.cube else { throw StageError(.needsCube(stage: Self.name)) }
        let size = image.width
        let chain = CubeChain(image)
        var out: [Image] = []
        for n in 0..<levelCount(size) {
            let s = max(1, size >> n)
            let level: Image
            if n == 0 {
                level = image
            } else {
                let roughness = Double(n) / Double(levelCount(size) - 1)
                let set = samples(roughness: roughness, size: size, mips: chain.levels.count)
                var pixels = [SIMD4<Float>](repeating: .zero, count: 6 * s * s)
                pixels.withUnsafeMutableBufferPointer { dst in
                    set.withUnsafeBufferPointer { set in
                        context.rows.forEachBand(rows: 6 * s, pixelsPerRow: s * set.count) { rows in
                            for row in rows {
                                let (f, y) = (row / s, row % s)
                                for x in 0..<s {
                                    dst[row * s + x] = chain.convolved(face: f, x, y, size: s, set)
                                }
                            }
                        }
                    }
                }
                let stored = FloatImage(width: s, height: 6 * s, pixels: pixels)
                    .image(depth: image.depth, alpha: image.alpha, colorSpace: .srgb)
                level = image.with(width: s, height: 6 * s, pixels: stored.pixels)
            }
            out.append(level.asLevel(n, inTexture: layout == .texture))
        }
        return out
    }
}

/// A cube map's faces as premultiplied linear Floats with their box mip chains, sampled by
/// direction (docs/hdr.md "Prefiltering"). Each face of each mip is kept with a border of one
/// texel taken from the faces around it, so bilinear filtering crosses the cube's edges instead of
/// clamping at them (which left visible seams in the blurred levels).
struct CubeChain {
    /// levels[m][f]: face f of mip m, `sizes[m]` square.
    var levels: [[[SIMD4<Float>]]]
    var sizes: [Int]
    /// bordered[m][f]: the same, (sizes[m] + 2)² with the neighbours' texels around it.
    var bordered: [[[SIMD4<Float>]]] = []

    init(_ cube: Image) {
        let faces = cube.cubeFaces().map { FloatImage($0, colorSpace: .srgb).pixels }
        levels = [faces]
        sizes = [cube.width]
        while sizes.last! > 1 {
            let s = sizes.last!
            let h = max(1, s / 2)
            let above = levels.last!
            levels.append(
                above.map { face in
                    var out = [SIMD4<Float>](repeating: .zero, count: h * h)
                    for y in 0..<h {
                        for x in 0..<h {
                            let (x0, y0) = (min(2 * x, s - 1), min(2 * y, s - 1))
                            let (x1, y1) = (min(2 * x + 1, s - 1), min(2 * y + 1, s - 1))
                            out[y * h + x] =
                                (face[y0 * s + x0] + face[y0 * s + x1] + face[y1 * s + x0] + face[y1 * s + x1]) * 0.25
                        }
                    }
                    return out
                })
            sizes.append(h)
        }
        bordered = levels.indices.map { m in (0..<6).map { f in Self.withBorder(levels[m], face: f, size: sizes[m]) } }
    }

    /// Face `f` of `faces` (each `n` square) with a one-texel border: each border texel is the
    /// nearest texel of the face its direction falls on.
    static func withBorder(_ faces: [[SIMD4<Float>]], face f: Int, size n: Int) -> [SIMD4<Float>] {
        let b = n + 2
        var out = [SIMD4<Float>](repeating: .zero, count: b * b)
        for y in -1...n {
            for x in -1...n {
                if x >= 0 && x < n && y >= 0 && y < n {
                    out[(y + 1) * b + x + 1] = faces[f][y * n + x]
                    continue
                }
                let s = 2 * (Float(x) + 0.5) / Float(n) - 1
                let t = 2 * (Float(y) + 0.5) / Float(n) - 1
                let (g, gs, gt) = CubeMap.face(of: CubeMap.direction(face: f, s: s, t: t))
                let gx = min(max(Int(((gs + 1) * 0.5 * Float(n)).rounded(.down)), 0), n - 1)
                let gy = min(max(Int(((gt + 1) * 0.5 * Float(n)).rounded(.down)), 0), n - 1)
                out[(y + 1) * b + x + 1] = faces[g][gy * n + gx]
            }
        }
        return out
    }

    /// Bilinear on face `f` of mip `m` at s, t ∈ [−1, 1], reaching into the border.
    @inline(__always)
    func bilinear(_ m: Int, _ f: Int, _ s: Float, _ t: Float) -> SIMD4<Float> {
        let n = sizes[m]
        let b = n + 2
        // Coordinates in the bordered face: texel centres at 0.5 … n + 1.5 − 1.
        let xc = min(max((s + 1) * 0.5 * Float(n) + 0.5, 0), Float(n + 1))
        let yc = min(max((t + 1) * 0.5 * Float(n) + 0.5, 0), Float(n + 1))
        let x0 = min(Int(xc), n)
        let y0 = min(Int(yc), n)
        let fx = xc - Float(x0)
        let fy = yc - Float(y0)
        return bordered[m][f].withUnsafeBufferPointer { p in
            let top = p[y0 * b + x0] * (1 - fx) + p[y0 * b + x0 + 1] * fx
            let bottom = p[(y0 + 1) * b + x0] * (1 - fx) + p[(y0 + 1) * b + x0 + 1] * fx
            return top * (1 - fy) + bottom * fy
        }
    }

    /// The chain at direction `d`, level `lod` (trilinear).
    @inline(__always)
    func sample(_ d: SIMD3<Float>, lod: Float) -> SIMD4<Float> {
        let (f, s, t) = CubeMap.face(of: d)
        let m0 = Int(lod)
        let m1 = min(m0 + 1, levels.count - 1)
        let k = lod - Float(m0)
        let a = bilinear(m0, f, s, t)
        if k == 0 || m1 == m0 { return a }
        return a * (1 - k) + bilinear(m1, f, s, t) * k
    }

    /// Texel (x, y) of face `f` of an output level of face `size`, convolved with the samples.
    func convolved(face f: Int, _ x: Int, _ y: Int, size: Int, _ set: UnsafeBufferPointer<Prefilter.Sample>)
        -> SIMD4<Float>
    {
        let s = 2 * (Float(x) + 0.5) / Float(size) - 1
        let t = 2 * (Float(y) + 0.5) / Float(size) - 1
        var n = CubeMap.direction(face: f, s: s, t: t)
        n /= (n * n).sum().squareRoot()
        // A frame around N: T and B perpendicular to it.
        let up: SIMD3<Float> = abs(n.z) < 0.999 ? SIMD3(0, 0, 1) : SIMD3(1, 0, 0)
        var tangent = SIMD3(up.y * n.z - up.z * n.y, up.z * n.x - up.x * n.z, up.x * n.y - up.y * n.x)
        tangent /= (tangent * tangent).sum().squareRoot()
        let bitangent = SIMD3(
            n.y * tangent.z - n.z * tangent.y, n.z * tangent.x - n.x * tangent.z, n.x * tangent.y - n.y * tangent.x)
        var acc = SIMD4<Float>()
        var total: Float = 0
        for i in set {
            let l = tangent * i.l.x + bitangent * i.l.y + n * i.l.z
            acc += sample(l, lod: i.lod) * i.weight
            total += i.weight
        }
        return total > 0 ? acc / total : acc
    }
}
