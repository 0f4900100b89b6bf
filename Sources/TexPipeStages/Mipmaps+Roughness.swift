internal import Foundation
public import TexPipeParameters
internal import TexPipePixels

/// `mipmaps`' `roughnessFrom` (docs/stages.md "Roughness from normals"): a bumpy normal map's
/// mips average to short normals, the renderer renormalizes them and distant surfaces sparkle; so
/// each level below 0 of the roughness map gets the normal variance under its texels added, as
/// Godot's importer does (after Neubelt and Pettineo's vMF fit, "Crafting a Next-Gen Material
/// Pipeline for The Order: 1886"). For a texel of level n: r = |mean of the normal map's unit
/// normals over the texel's footprint in the normal map's level 0| (each normal's Z rebuilt from X
/// and Y; the footprint is the texel's area in level 0 scaled to the normal map's size, texels
/// weighted by the part of them it covers); where r < 1,
///   κ = (3r − r³) / (1 − r²),  σ² = 0.25 / κ (r = 0: the cap),
///   roughness' = √(roughness² + min(3σ², 0.16))
/// on 0…1 values of `channel`, rounded half up. Level 0 and the other channels are unchanged; a
/// flat normal map changes nothing.
public struct RoughnessFrom: Sendable, Hashable {
    public enum Channel: String, Sendable, CaseIterable { case r, g, b, a }

    /// Absolute path of the normal map.
    public var normals: String
    public var channel: Channel

    public init(normals: String, channel: Channel = .g) { (self.normals, self.channel) = (normals, channel) }

    init(_ a: Arguments) { self.init(normals: a.file("normals"), channel: a.choice("channel", as: Channel.self)) }

    public static let parameter = Parameter(
        "roughnessFrom",
        .object([
            Parameter(
                "normals", .text, .required,
                doc: "path of the tangent-space normal map, relative to the manifest, placeholders allowed"),
            .choice(
                "channel", Channel.self, default: .g, doc: "the incoming image's channel holding roughness (ORM: g)"),
        ]), .optional(absentDoc: "off"),
        doc: "raise roughness below level 0 by the normal map's variance under each texel (Godot's formula)")

    /// The added variance for a mean normal's length r: min(3σ², 0.16), σ² = 0.25 / κ.
    public static func added(_ r: Double) -> Double {
        guard r < 1 else { return 0 }
        let kappa = (3 * r - r * r * r) / (1 - r * r)
        guard kappa > 0 else { return 0.16 }
        return min(3 * 0.25 / kappa, 0.16)
    }

    /// Level `level` (n ≥ 1) with its roughness raised in place, from `normalMap`'s level 0: a row
    /// of mean lengths at a time, so the level is neither copied nor shadowed by a whole-level array.
    func adjust(_ level: inout Image, normalMap: Image) {
        let c = [Channel.r, .g, .b, .a].firstIndex(of: channel)!
        let (w, h) = (level.width, level.height)
        func raise<C: PixelChannel>(_ p: inout [C]) {
            let max = Double(C.maxValue)
            Self.meanLengths(normalMap, width: w, height: h) { y, means in
                for x in 0..<w {
                    let add = Self.added(means[x])
                    guard add > 0 else { continue }
                    let i = 4 * (y * w + x) + c
                    let rough = Double(p[i]) / max
                    let v = (rough * rough + add).squareRoot() * max + 0.5
                    p[i] = C(truncatingIfNeeded: Int(Swift.min(max, v)))
                }
            }
        }
        // The pixels are taken out of the image first, so they are mutated where they lie.
        switch level.pixels {
        case .rgba8(var p):
            level.pixels = .rgba8([])
            raise(&p)
            level.pixels = .rgba8(p)
        case .rgba16(var p):
            level.pixels = .rgba16([])
            raise(&p)
            level.pixels = .rgba16(p)
        case .rgbaF32: preconditionFailure("the planner refuses roughnessFrom on an HDR image")
        }
    }

    /// Per texel of a w × h level, the length of the mean unit normal over its footprint in the
    /// normal map: rows of the map pass once per level, weighted by how much of each row and
    /// column the footprint covers (so any two sizes work; a power-of-two pair is exact blocks).
    /// Handed to `row` one row of the level at a time.
    static func meanLengths(_ map: Image, width w: Int, height h: Int, row: (Int, [Double]) -> Void) {
        let (mw, mh) = (map.width, map.height)
        let sx = Double(mw) / Double(w)
        let sy = Double(mh) / Double(h)
        var out = [Double](repeating: 1, count: w)
        // An 8-bit map's unit normal depends on its R and G alone: a table of all 65,536, made once
        // per level pass (a 16-bit map decodes per texel).
        let table8: [SIMD3<Double>] =
            if case .rgba8 = map.pixels {
                (0..<65536).map { rg in
                    let n = Normal(Float(rg >> 8) * (2 / 255) - 1, Float(rg & 255) * (2 / 255) - 1, 0).rebuiltZ()
                        .normalized()
                    return SIMD3(Double(n.x), Double(n.y), Double(n.z))
                }
            } else { [] }
        func run<C: PixelChannel>(_ p: [C]) {
            let component = C.bitWidth == 8 ? [] : Normal.components(C.self)
            let eight = C.bitWidth == 8
            var rowSum = [SIMD3<Double>](repeating: .zero, count: mw)
            p.withUnsafeBufferPointer { px in
                table8.withUnsafeBufferPointer { table in
                    component.withUnsafeBufferPointer { unpack in
                        for y in 0..<h {
                            let (v0, v1) = (Double(y) * sy, Double(y + 1) * sy)
                            for i in rowSum.indices { rowSum[i] = .zero }
                            var rowWeight = 0.0
                            for my in Int(v0)..<Swift.min(mh, Int(v1.rounded(.up))) {
                                let wy = Swift.min(v1, Double(my + 1)) - Swift.max(v0, Double(my))
                                guard wy > 0 else { continue }
                                rowWeight += wy
                                var k = my * mw * 4
                                for mx in 0..<mw {
                                    let n: SIMD3<Double>
                                    if eight {
                                        n = table[Int(px[k]) << 8 | Int(px[k + 1])]
                                    } else {
                                        let f = Normal(px, k, unpack).rebuiltZ().normalized()
                                        n = SIMD3(Double(f.x), Double(f.y), Double(f.z))
                                    }
                                    rowSum[mx] += n * wy
                                    k += 4
                                }
                            }
                            for x in 0..<w {
                                let (u0, u1) = (Double(x) * sx, Double(x + 1) * sx)
                                var sum = SIMD3<Double>.zero
                                var weight = 0.0
                                for mx in Int(u0)..<Swift.min(mw, Int(u1.rounded(.up))) {
                                    let wx = Swift.min(u1, Double(mx + 1)) - Swift.max(u0, Double(mx))
                                    guard wx > 0 else { continue }
                                    sum += rowSum[mx] * wx
                                    weight += wx
                                }
                                let mean = sum / (weight * rowWeight)
                                out[x] = (mean * mean).sum().squareRoot()
                            }
                            row(y, out)
                        }
                    }
                }
            }
        }
        switch map.pixels {
        case .rgba8(let p): run(p)
        case .rgba16(let p): run(p)
        case .rgbaF32: break
        }
    }
}
