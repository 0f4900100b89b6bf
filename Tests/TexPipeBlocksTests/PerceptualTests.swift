import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeBlocks
@testable import TexPipeCodecs
@testable import TexPipeFormats
@testable import TexPipeMeasures
@testable import TexPipePixels
@testable import TexPipeTextures

/// SSIM, FLIP and the normal angle (docs/gpu-textures.md "Checks and budgets") against their
/// references: scikit-image's `structural_similarity` (Gaussian window σ 1.5, population
/// variances) per channel, NVIDIA's FLIP (`flip-evaluator`, LDR, 67 pixels per degree) mean, and
/// angles worked out by hand.
@Suite("perceptual measures")
struct PerceptualTests {
    static let available = Python.has("skimage") && Python.has("flip_evaluator")

    /// Sample textures (cards, terrain, materials, a normal map), a crop of each up to 96 × 96.
    static func sources() throws -> [(name: String, rgba: [UInt8], w: Int, h: Int)] {
        let root = Python.packageRoot + "/Samples/"
        let names = [
            "cards/k-spades.png", "cards/3-diamonds.png", "terrain/00-grass.png", "terrain/02-moss.png",
            "materials/stone_rough.png", "normals/cobble_normal.png",
        ]
        return try names.map { name in
            let image = try ImageDecoder.decode(Array(try Data(contentsOf: URL(fileURLWithPath: root + name))))
            let rgba = TextureEncoder.rgba8(image)
            let (w, h) = (min(96, image.width), min(96, image.height))
            var crop = [UInt8](repeating: 0, count: w * h * 4)
            for y in 0..<h {
                for x in 0..<w {
                    for c in 0..<4 { crop[(y * w + x) * 4 + c] = rgba[(y * image.width + x) * 4 + c] }
                }
                // Opaque: the FLIP reference sees RGB only.
                for x in 0..<w { crop[(y * w + x) * 4 + 3] = 255 }
            }
            return (name, crop, w, h)
        }
    }

    /// 24 pairs — six textures, each against its BC1, BC7, ASTC 6×6 and ETC2 decode — and six
    /// more against itself and a shifted copy, and two 61 × 45 corners: texpipe's SSIM within 0.002
    /// of scikit-image's per channel, its FLIP mean within 2 % of NVIDIA's.
    @Test(Reference.needs(available, "python3 scikit-image and flip-evaluator"))
    func ssimAndFLIPAgreeWithTheReferences() throws {
        let t = TempDir()
        var pairs: [(String, [UInt8], [UInt8], Int, Int)] = []
        for s in try Self.sources() {
            for format in [TextureSettings.Format.bc1, .bc7, .astc6x6, .etc2RGB] {
                var settings = TextureSettings.standard
                settings.format = format
                settings.colorSpace = .linear
                let blocks = try TextureCodecs.encode(s.rgba, s.w, s.h, settings, rows: SerialRows())
                let decoded = try TextureCodecs.decode(blocks, s.w, s.h, format: format, srgb: false)
                pairs.append(("\(s.name) \(format.rawValue)", s.rgba, decoded, s.w, s.h))
            }
            // A copy shifted by one texel (large, structured differences).
            var shifted = s.rgba
            for i in 4..<shifted.count { shifted[i] = s.rgba[i - 4] }
            pairs.append(("\(s.name) shifted", s.rgba, shifted, s.w, s.h))
        }
        // Sizes that are not multiples of 8 or 32 (the filters' and FLIP's texels left after their
        // groups of 32 and 8): a 61 × 45 corner of each pair of the first texture, its BC1 decode
        // and its shifted copy.
        for (name, a, b, w, _) in pairs.prefix(5) where name.hasSuffix("bc1") || name.hasSuffix("shifted") {
            let (cw, ch) = (61, 45)
            var (ca, cb) = ([UInt8](repeating: 0, count: cw * ch * 4), [UInt8](repeating: 0, count: cw * ch * 4))
            for y in 0..<ch {
                for i in 0..<(cw * 4) {
                    ca[y * cw * 4 + i] = a[y * w * 4 + i]
                    cb[y * cw * 4 + i] = b[y * w * 4 + i]
                }
            }
            pairs.append(("\(name) 61×45", ca, cb, cw, ch))
        }
        var list = ""
        for (k, p) in pairs.enumerated() {
            t.write("a\(k).rgba", p.1)
            t.write("b\(k).rgba", p.2)
            list += "\(p.3) \(p.4) \(t.path)/a\(k).rgba \(t.path)/b\(k).rgba\n"
        }
        let rows = try Self.reference(t, list)
        #expect(rows.count == pairs.count)
        for (p, reference) in zip(pairs, rows) {
            for c in 0..<4 {
                let ours = Quality.ssim(p.1, p.2, width: p.3, height: p.4, channel: c)
                #expect(abs(ours - reference[c]) <= 0.002, "\(p.0) channel \(c): \(ours) against \(reference[c])")
            }
            let flip = Quality.flip(p.1, p.2, width: p.3, height: p.4).mean
            #expect(abs(flip - reference[4]) <= 0.02 * reference[4], "\(p.0) FLIP: \(flip) against \(reference[4])")
        }
    }

    /// HDR-FLIP against NVIDIA's (`flip-evaluator`, HDR, ACES, its own exposure range): the sky's
    /// corners, each against its BC6H decode, a copy 1.2× as bright and a copy with every third
    /// texel's red halved; and a ramp to 40 against its half-float rounding. Means within 2 %.
    @Test(Reference.needs(available, "python3 flip-evaluator"))
    func hdrFLIPAgreesWithTheReference() throws {
        let t = TempDir()
        let sky = try EXR.decode(
            Array(try Data(contentsOf: URL(fileURLWithPath: Python.packageRoot + "/Samples/hdr/sky.exr"))))
        guard case .rgbaF32(let all) = sky.pixels else { throw CodecError("sky.exr is not HDR") }
        let (w, h) = (64, 48)
        var pairs: [(String, [Float], [Float])] = []
        for (name, x0, y0) in [("top left", 0, 0), ("bottom right", sky.width - w, sky.height - h)] {
            var crop = [Float](repeating: 1, count: w * h * 4)
            for y in 0..<h {
                for x in 0..<w {
                    for c in 0..<3 { crop[(y * w + x) * 4 + c] = all[((y0 + y) * sky.width + x0 + x) * 4 + c] }
                }
            }
            var settings = TextureSettings.standard
            settings.format = .bc6h
            settings.colorSpace = .linear
            let blocks = try TextureCodecs.encodeHDR(crop, w, h, settings, rows: SerialRows())
            pairs.append(("\(name) bc6h", crop, try TextureCodecs.decodeHDR(blocks, w, h, format: .bc6h)))
            pairs.append(("\(name) brighter", crop, crop.map { $0 * 1.2 }))
            var marked = crop
            for i in stride(from: 0, to: w * h, by: 3) { marked[4 * i] *= 0.5 }
            pairs.append(("\(name) marked", crop, marked))
        }
        let ramp = (0..<(w * h)).flatMap { i -> [Float] in
            let v = Float(i % w) / Float(w - 1) * 40 + 0.01
            return [v, v * 0.5, v * 0.25, 1]
        }
        pairs.append(("ramp half", ramp, Half.bits(ramp).withUnsafeBufferPointer { Half.floats($0) }))
        var list = ""
        for (k, p) in pairs.enumerated() {
            t.write("a\(k).f32", p.1.withUnsafeBytes { Array($0) })
            t.write("b\(k).f32", p.2.withUnsafeBytes { Array($0) })
            list += "hdr \(w) \(h) \(t.path)/a\(k).f32 \(t.path)/b\(k).f32\n"
        }
        let rows = try Self.reference(t, list)
        #expect(rows.count == pairs.count)
        for (p, reference) in zip(pairs, rows) {
            let ours = Quality.hdrFLIP(p.1, p.2, width: w, height: h).mean
            #expect(ours > 0)
            #expect(abs(ours - reference[0]) <= 0.02 * reference[0], "\(p.0) HDR-FLIP: \(ours) against \(reference[0])")
        }
        // Identical: 0.
        #expect(Quality.hdrFLIP(ramp, ramp, width: w, height: h).mean == 0)
    }

    /// metrics_reference.py's answer for `list` (its lines), a row of numbers per line.
    static func reference(_ t: TempDir, _ list: String) throws -> [[Double]] {
        t.write("list.txt", text: list)
        let out = String(
            decoding: try Python.run([Python.script("metrics_reference.py"), t.path + "/list.txt"]), as: UTF8.self)
        return out.split(separator: "\n").map { $0.split(separator: " ").map { Double($0)! } }
    }

    /// Identical images: SSIM 1 and FLIP 0.
    @Test func ssimWithTheSourceSideMadeOnceIsTheSameValue() {
        // Sizes across SSIM's strips of 48 rows and at the window's edge; the source's side made
        // once and measured against several decodes gives each the value measured whole.
        for (w, h) in [(11, 11), (40, 30), (130, 70), (64, 101)] {
            let a = BlockReference.picture(w, h, seed: UInt64(5))
            for seed in [6, 8] {
                let b = BlockReference.picture(w, h, seed: UInt64(seed)).enumerated().map { i, v in
                    i % 5 == 0 ? a[i] : UInt8((Int(v) + Int(a[i])) / 2)
                }
                for c in 0..<4 {
                    let side = Quality.ssimSource(a, width: w, height: h, channel: c)
                    #expect(side != nil)
                    let whole = Quality.ssim(a, b, width: w, height: h, channel: c)
                    #expect(Quality.ssim(a, b, width: w, height: h, channel: c, source: side) == whole, "\(w)×\(h)")
                }
            }
        }
        #expect(Quality.ssimSource(BlockReference.picture(10, 40, seed: 1), width: 10, height: 40, channel: 0) == nil)
    }

    @Test func flipWithTheReferenceSideMadeOnceIsTheSameMap() {
        // Across FLIP's strips of 48 rows and its filters' reach at the edges.
        for (w, h) in [(9, 7), (40, 30), (70, 130)] {
            let a = BlockReference.picture(w, h, seed: UInt64(11))
            let side = Quality.flipReference(a, width: w, height: h)
            for seed in [12, 13] {
                let b = BlockReference.picture(w, h, seed: UInt64(seed)).enumerated().map { i, v in
                    i % 3 == 0 ? a[i] : UInt8((Int(v) + 3 * Int(a[i])) / 4)
                }
                let whole = Quality.flip(a, b, width: w, height: h)
                let reused = Quality.flip(a, b, width: w, height: h, side: side)
                #expect(reused.mean == whole.mean && reused.map == whole.map, "\(w)×\(h)")
                #expect(whole.mean > 0)
            }
        }
    }

    @Test func identicalImagesAreExact() {
        let p = BlockReference.picture(40, 30, seed: 3)
        #expect(abs(Quality.ssim(p, p, width: 40, height: 30).rgb - 1) < 1e-12)
        #expect(Quality.flip(p, p, width: 40, height: 30).mean == 0)
        // Smaller than the window: every texel averaged, the window cut at the edges.
        let small = BlockReference.picture(6, 5, seed: 4)
        #expect(abs(Quality.ssim(small, small, width: 6, height: 5).rgb - 1) < 1e-12)
    }

    /// Angles worked out by hand: (0, 0, 1) against (1, 0, 1)/√2 is 45°; a two-channel decode
    /// rebuilds z; the 99th percentile is the nearest rank.
    @Test func normalAnglesAreTheAnglesBetweenUnitNormals() {
        func texel(_ x: Double, _ y: Double, _ z: Double) -> [UInt8] {
            [x, y, z].map { UInt8(((($0 + 1) * 127.5)).rounded()) } + [255]
        }
        let up = texel(0, 0, 1)
        // 100 texels: 99 identical, one tilted 45° about y.
        let source = (0..<100).flatMap { _ in up }
        var decoded = source
        decoded.replaceSubrange(0..<4, with: texel(0.7071, 0, 0.7071))
        let e = Quality.normalError(source, decoded, width: 10, height: 10, twoChannel: false)
        #expect(abs(e.mean - 45.0 / 100) < 0.02 && abs(e.p99 - 0) < 1e-9)
        decoded.replaceSubrange(4..<8, with: texel(0.7071, 0, 0.7071))
        #expect(abs(Quality.normalError(source, decoded, width: 10, height: 10, twoChannel: false).p99 - 45) < 0.3)
        // Two channels: the decode's blue is ignored and z rebuilt from x and y.
        var twoChannel = source
        for i in 0..<100 { twoChannel[4 * i + 2] = 0 }
        #expect(Quality.normalError(source, twoChannel, width: 10, height: 10, twoChannel: true).mean < 0.3)
        #expect(Quality.normalError(source, twoChannel, width: 10, height: 10, twoChannel: false).mean > 90)
    }
}
