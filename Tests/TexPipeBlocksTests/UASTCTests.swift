import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeBlocks
@testable import TexPipeCodecs
@testable import TexPipeFormats
@testable import TexPipePixels
@testable import TexPipeTextures

/// UASTC: texpipe's decoder against the Basis Universal transcoder itself (PyPI's opengl-basisu)
/// on blocks of basisu's own encoder (alktx2), which uses every mode; texpipe's encoder's files
/// opened and transcoded by that transcoder — RGBA8 equal to texpipe's decode, BC7 and ETC2 within
/// a floor of it —, the descriptor read back with the spec-written KTX2 reader, and hand-built
/// blocks decoded as the spec says.
@Suite("UASTC")
struct UASTCTests {
    static var available: Bool { Python.has("alktx2") && Python.has("opengl_basisu") && ASTCTool.available }
    static let script = Python.script("basisu_reference.py")

    /// Test images: noise with alpha, gradients, flat areas and edges (as `BCTests.picture`).
    static func image(_ w: Int, _ h: Int, seed: UInt64, alpha: Bool) -> [UInt8] {
        BlockReference.picture(w, h, seed: seed, alpha: alpha)
    }

    static func run(_ args: [String]) throws {
        _ = try Python.run([script] + args)
    }

    @Test(Reference.needs(UASTCTests.available, "python3 alktx2 and opengl_basisu"), arguments: [false, true])
    func decoderMatchesTheTranscoderOnBasisusBlocks(alpha: Bool) throws {
        let t = TempDir()
        var modes = Set<Int>()
        for (w, h, seed) in [(32, 32, 1), (24, 20, 2), (64, 16, 3)] {
            let pixels = Self.image(w, h, seed: UInt64(seed), alpha: alpha)
            t.write("in.rgba", pixels)
            for effort in [0, 2] {
                try Self.run(["encode", t.path + "/in.rgba", "\(w)", "\(h)", "\(effort)", t.path + "/b", t.path + "/r"])
                let blocks = Array(try Data(contentsOf: URL(fileURLWithPath: t.path + "/b")))
                let expected = Array(try Data(contentsOf: URL(fileURLWithPath: t.path + "/r")))
                let ours = try UASTCDecoder.decode(blocks, width: w, height: h)
                #expect(ours == expected, "\(w)×\(h) effort \(effort) alpha \(alpha)")
                for k in stride(from: 0, to: blocks.count, by: 16) {
                    modes.insert(UASTCDecoder.modeOf[Int(blocks[k] & 127)])
                }
            }
        }
        // The comparison covers the modes basisu (alktx2 0.1.7) chooses for these images: at least
        // the ones its effort-2 encode of the first image used when this was written.
        let seen: Set<Int> = alpha ? [0, 4, 6, 9, 11, 12] : [0, 4, 6]
        #expect(modes.isSuperset(of: seen), "basisu's modes: \(modes.sorted())")
    }

    @Test(Reference.needs(UASTCTests.available, "python3 alktx2 and opengl_basisu"), arguments: [false, true])
    func encodedFilesTranscodeToOurDecode(alpha: Bool) throws {
        let t = TempDir()
        for (w, h, seed) in [(37, 29, 4), (64, 64, 5), (1, 1, 6), (5, 3, 7)] {
            let pixels = Self.image(w, h, seed: UInt64(seed), alpha: alpha)
            for quality in TextureSettings.Quality.allCases {
                var settings = TextureSettings.standard
                settings.format = .uastc
                settings.quality = quality
                // sRGB or linear: the same blocks (the descriptor's transfer function differs), the
                // same RGBA8 from the transcoder.
                settings.colorSpace = quality == .medium ? .srgb : .linear
                let bytes = try TextureEncoder.encode(
                    [Image(width: w, height: h, pixels: .rgba8(pixels))], settings, container: .ktx2)
                let f = try #require(KTX2File(bytes))
                #expect(f.vkFormat == 0 && f.colorModel == 166 && f.texelBlockDimension == [3, 3, 0, 0])
                #expect(f.transferFunction == (quality == .medium ? 2 : 1))
                let blocks = f.levelData(0)
                #expect(blocks.count == ((w + 3) / 4) * ((h + 3) / 4) * 16)
                let ours = try UASTCDecoder.decode(blocks, width: w, height: h)
                t.write("out.ktx2", bytes)
                try Self.run(["transcode", t.path + "/out.ktx2", "rgba8", t.path + "/rgba"])
                let rgba = Array(try Data(contentsOf: URL(fileURLWithPath: t.path + "/rgba")))
                #expect(rgba == ours, "\(w)×\(h) \(quality) alpha \(alpha)")
                // The lossless ASTC 4×4 transcode, decoded by texture2ddecoder, is the same.
                // The lossless ASTC 4×4 transcode, decoded by Arm's astcenc (LDR, linear), is the same
                // but for the last step: astcenc rounds its 16-bit value to 8 bits where UASTC's
                // decode (and the transcoder's RGBA32) keeps the top byte, so one unit at most.
                try Self.run(["transcode", t.path + "/out.ktx2", "astc_4x4", t.path + "/astc.bin"])
                var astc: [UInt8] = [0x13, 0xAB, 0xA1, 0x5C, 4, 4, 1]
                for v in [w, h, 1] { astc += [UInt8(v & 255), UInt8((v >> 8) & 255), UInt8(v >> 16)] }
                astc += Array(try Data(contentsOf: URL(fileURLWithPath: t.path + "/astc.bin")))
                t.write("transcoded.astc", astc)
                let decodedASTC = try ASTCTool.decode(t.path + "/transcoded.astc", in: t)
                let most = zip(decodedASTC, ours).map { abs(Int($0) - Int($1)) }.max() ?? 0
                #expect(most <= 1, "\(w)×\(h) \(quality) alpha \(alpha): ASTC 4×4 transcode off by \(most)")
                // (The 5×3 image is one block of three crossing gradients: no single line holds it.)
                let own = psnr(ours, pixels)
                #expect(w < 37 || own > 33, "\(w)×\(h): \(own) dB")
                if w == 64 {
                    // The transcoder's BC7 and ETC2 (decoded by texture2ddecoder) of this file, and
                    // of basisu's own UASTC of the image (effort 2), measured here.
                    t.write("in.rgba", pixels)
                    try Self.run(["encode-ktx2", t.path + "/in.rgba", "\(w)", "\(h)", "2", t.path + "/basisu.ktx2"])
                    for target in ["bc7", "etc2"] {
                        func transcoded(_ file: String) throws -> Double {
                            try Self.run(["transcode", t.path + "/" + file, target, t.path + "/" + target])
                            let data = Array(try Data(contentsOf: URL(fileURLWithPath: t.path + "/" + target)))
                            // ETC2 with an EAC alpha block when the file says RGBA (16 bytes a block).
                            let decoder = target == "bc7" ? "bc7" : data.count == w * h ? "etc2a8" : "etc2"
                            return psnr(try BlockReference.reference(data, decoder: decoder, w, h), pixels)
                        }
                        let ours = try transcoded("out.ktx2")
                        let theirs = try transcoded("basisu.ktx2")
                        print(
                            "uastc \(quality) alpha \(alpha): own \(own) dB; \(target): \(ours) dB, basisu's \(theirs)")
                        #expect(ours > theirs - 6, "\(target): \(ours) dB, basisu's \(theirs)")
                    }
                }
            }
        }
    }

    /// Mode 8 by hand (the spec's bit layout: code 10111 in the low five bits, then R, G, B, A
    /// bytes): every texel that color, whatever the hint bits above.
    @Test func aSolidBlockIsItsColor() throws {
        var bits: UInt128 = 23
        bits |= UInt128(200) << 5 | UInt128(100) << 13 | UInt128(7) << 21 | UInt128(255) << 29
        bits |= UInt128(0x1F_FFFF) << 37  // hints, all ones
        let block = (0..<16).map { UInt8(truncatingIfNeeded: bits >> UInt128(8 * $0)) }
        let d = try UASTCDecoder.decode(block, width: 4, height: 4)
        #expect(d == [UInt8]((0..<16).flatMap { _ in [200, 100, 7, 255] }))
        // texpipe's encoder writes a one-color block as mode 8.
        let ours = try UASTCDecoder.decode(
            UASTC.blocks([UInt8]((0..<16).flatMap { _ in [9, 250, 33, 77] }), width: 4, height: 4, quality: .medium),
            width: 4, height: 4)
        #expect(ours == [UInt8]((0..<16).flatMap { _ in [9, 250, 33, 77] }))
    }

    /// ASTC's color unquantization (Table C.2.13) evaluated here for a few stored values: trit
    /// range 19 (192 levels: 6 bits and a trit), value (D 2, bits 0b101101): A = 0x1FF, B from
    /// "fedcb000f" with f..b = 1,0,1,1,0 → 0b1_0110_0001, C = 5: T = 2·5 + 353 = 363, XOR 0x1FF =
    /// 148, result (0x80 & 0x1FF) | 148 >> 2 = 128 | 37 = 165.
    @Test func unquantizationFollowsTheSpec() {
        #expect(UASTCDecoder.unquantize((2, 0b101101), range: 19) == 165)
        #expect(UASTC.Quantizer.unquantize(2, 0b101101, radix: 3, bits: 6) == 165)
        // Pure bits replicate: 5 bits 0b10110 → 10110101 = 181.
        #expect(UASTCDecoder.unquantize((0, 0b10110), range: 11) == 181)
        // Every range's values in both: the decoder's and the encoder's tables agree, and each
        // range spans 0…255.
        for range in [11, 13, 19, 20] {
            let q = UASTC.Quantizer(range: range)
            var seen = Set<Int32>()
            for v in 0..<256 {
                let n = q.nearest[v]
                #expect(UASTCDecoder.unquantize((Int(n >> 16), Int((n >> 8) & 255)), range: range) == Int(n & 255))
                seen.insert(n & 255)
            }
            #expect(seen.contains(0) && seen.contains(255))
        }
    }

    /// ASTC's weight unquantization by hand: 3 bits 0b101 → 101101 = 45, above 32 so 46; 4 bits
    /// 0b0010 → 001000 = 8; 5 bits 0b11111 → 63 → 64. The encoder's lane-wise weights equal the
    /// decoder's, every index of every width.
    @Test func weightsUnquantizeAsTheSpecSays() {
        #expect(UASTCDecoder.unquantizeWeight(0b101, bits: 3) == 46)
        #expect(UASTCDecoder.unquantizeWeight(0b0010, bits: 4) == 8)
        #expect(UASTCDecoder.unquantizeWeight(0b11111, bits: 5) == 64)
        for bits in 1...5 {
            var k = SIMD16<Int32>()
            for i in 0..<16 { k[i] = Int32(i % (1 << bits)) }
            let lanes = UASTC.weightValue(k, bits: bits)
            for i in 0..<16 {
                #expect(Int(lanes[i]) == UASTCDecoder.unquantizeWeight(Int(k[i]), bits: bits))
            }
            if bits == 5 {
                for i in 0..<16 { k[i] = Int32(16 + i) }
                let high = UASTC.weightValue(k, bits: 5)
                for i in 0..<16 { #expect(Int(high[i]) == UASTCDecoder.unquantizeWeight(16 + i, bits: 5)) }
            }
        }
    }

    /// The encoder's model of the transcoder's BC7 for modes 0 and 5 (BC7 mode 6: each end's
    /// shared bit and rounding, the weight mapping), by which `medium` picks weights, is what the
    /// Basis Universal transcoder writes: texel for texel, decoded by texture2ddecoder.
    @Test(Reference.needs(UASTCTests.available, "python3 alktx2 and opengl_basisu"))
    func theBC7ModelIsTheTranscoders() throws {
        let t = TempDir()
        let (w, h) = (64, 64)
        // Noise, edges and flat areas; then smooth gradients (modes 0 and 5's blocks).
        var gradient = [UInt8](repeating: 255, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 4
                (gradient[i], gradient[i + 1], gradient[i + 2]) = (
                    UInt8(x * 3 + y), UInt8(200 - y * 2 + x / 3), UInt8((x * y) % 251)
                )
            }
        }
        // Each block eight steps of a line between two colors (3-bit weights' home: mode 5).
        var steps = [UInt8](repeating: 255, count: w * h * 4)
        var rng = SeededRandom(seed: 12)
        for by in 0..<(h / 4) {
            for bx in 0..<(w / 4) {
                let (c0, c1) = ((0..<3).map { _ in rng.int(0...255) }, (0..<3).map { _ in rng.int(0...255) })
                for i in 0..<16 {
                    let at = ((by * 4 + i / 4) * w + bx * 4 + i % 4) * 4
                    for c in 0..<3 { steps[at + c] = UInt8(c0[c] + ((c1[c] - c0[c]) * (i % 8) + 3) / 7) }
                }
            }
        }
        var checked = [0: 0, 5: 0]
        for pixels in [Self.image(w, h, seed: 11, alpha: false), gradient, steps] {
            var settings = TextureSettings.standard
            settings.format = .uastc
            settings.quality = .medium
            settings.colorSpace = .linear
            t.write(
                "out.ktx2",
                try TextureEncoder.encode(
                    [Image(width: w, height: h, pixels: .rgba8(pixels))], settings, container: .ktx2))
            try Self.run(["transcode", t.path + "/out.ktx2", "bc7", t.path + "/bc7"])
            let bc7 = try BlockReference.reference(
                Array(try Data(contentsOf: URL(fileURLWithPath: t.path + "/bc7"))), decoder: "bc7", w, h)
            pixels.withUnsafeBufferPointer { src in
                for by in 0..<(h / 4) {
                    for bx in 0..<(w / 4) {
                        let packed = BlockTexels.load(src, bx, by, width: w, height: h)
                        if packed == SIMD16(repeating: packed[0]) { continue }
                        let x = (packed & 255, (packed &>> 8) & 255, (packed &>> 16) & 255, (packed &>> 24) & 255)
                        let fit = UASTC.fit(x, .medium, opaque: true)
                        guard fit.mode.number == 0 || fit.mode.number == 5 else { continue }
                        let model = UASTC.bc7Texels(fit.mode, fit.part0)
                        for i in 0..<16 {
                            let at = ((by * 4 + i / 4) * w + bx * 4 + i % 4) * 4
                            let got = [bc7[at], bc7[at + 1], bc7[at + 2]].map(Int32.init)
                            #expect(got == [model.0[i], model.1[i], model.2[i]], "block \(bx),\(by) texel \(i)")
                        }
                        checked[fit.mode.number, default: 0] += 1
                    }
                }
            }
        }
        #expect(checked[0]! > 10 && checked[5]! > 10, "\(checked)")
    }

    /// Every GPU target the transcoder has, for every level of a texpipe UASTC file (a 60 × 44 chain
    /// down to 1 × 1): the right number of bytes; ASTC 4×4 — UASTC's lossless transcode — within 1
    /// of the UASTC decode (the RGBA transcode) and BC7, the transcode texpipe's weights are chosen
    /// for, at 35 dB or more of it, each decoded by texture2ddecoder. ETC1/ETC2 and BC1/BC3 follow
    /// the transcoder's own re-encoding from hints; on this noisy picture they reach 13–30 dB, so
    /// their floor (10 dB) only says the file decodes as its format — their quality is measured
    /// on the corpus (`Benchmarks/encoders/uastc.sh`).
    @Test(Reference.needs(UASTCTests.available, "python3 alktx2 and opengl_basisu"), arguments: [false, true])
    func everyGPUTargetTranscodes(alpha: Bool) throws {
        var levels: [Image] = []
        var (w, h, seed) = (60, 44, UInt64(5))
        while true {
            levels.append(Image(width: w, height: h, pixels: .rgba8(Self.image(w, h, seed: seed, alpha: alpha))))
            if w == 1 && h == 1 { break }
            (w, h, seed) = (max(1, w / 2), max(1, h / 2), seed + 1)
        }
        var settings = TextureSettings.standard
        settings.format = .uastc
        settings.quality = .fast
        let t = TempDir()
        t.write("f.ktx2", try TextureEncoder.encode(levels, settings, container: .ktx2))
        let rows = try BlockReference.transcodedTargets(t.path + "/f.ktx2", etc1: t.path + "/etc1.ktx2")
        #expect(rows.count == 6 * levels.count)
        for row in rows {
            let n = row.level
            #expect(row.bytes == row.expectedBytes(levels[n].width, levels[n].height), "\(row)")
            if row.target == "astc_4x4" {
                #expect(row.rgbMaxDiff <= 1 && row.alphaMaxDiff <= 1, "ASTC level \(n) is the UASTC decode: \(row)")
            } else {
                #expect(row.rgbPSNR >= (row.target == "bc7" ? 35 : 10), "\(row.target) level \(n): \(row)")
            }
        }
    }
}
