import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeBlocks
@testable import TexPipeCodecs
@testable import TexPipeFormats
@testable import TexPipeMeasures
@testable import TexPipePixels
@testable import TexPipeTextures

/// BC6H (unsigned): texpipe's decoder against an independent one (PyPI's texture2ddecoder, which
/// rounds each half float clamped to 0…1 to 8 bits), blocks of every mode with their texels worked
/// out here from the BPTC specification's formulas, and the encoder's blocks checked by both
/// decoders, exact on constant blocks, and measured in log-RGB PSNR against ISPC's encoder.
@Suite("BC6H")
struct BC6HTests {
    static let hasDecoder = Python.has("texture2ddecoder")
    static let hasISPC = Python.has("ispc_texcomp")
    static let hasPillow = Python.has("PIL")

    /// Pillow's BC6H decoder (its own C code, `bcn` with n = 6) for `blocks` of a w × h level (w, h
    /// multiples of 4), as RGB bytes: each half float clamped to 0…1, × 255, rounded down. Its
    /// interpolation rounds down where the spec adds 32 before the shift, so a byte may be one less.
    static func pillow(_ blocks: [UInt8], _ w: Int, _ h: Int) throws -> [UInt8] {
        let t = TempDir()
        t.write("blocks.bin", blocks)
        return try Python.run(
            "import sys; from PIL import Image; d = open(sys.argv[1], 'rb').read(); "
                + "sys.stdout.buffer.write(Image.frombytes('RGB', (int(sys.argv[2]), int(sys.argv[3])), d, 'bcn', 6, 'BC6HU').tobytes())",
            t.path + "/blocks.bin", String(w), String(h))
    }

    /// Floats as Pillow turns them into bytes (RGB).
    static func floorBytes(_ floats: [Float]) -> [UInt8] {
        floats.enumerated().compactMap { $0.offset % 4 == 3 ? nil : UInt8(min(max($0.element, 0), 1) * 255) }
    }

    /// texture2ddecoder's RGB bytes for `blocks` of a w × h level (w, h multiples of 4).
    static func reference(_ blocks: [UInt8], _ w: Int, _ h: Int) throws -> [UInt8] {
        try BlockReference.reference(blocks, decoder: "bc6", w, h)
    }

    /// Floats as texture2ddecoder turns them into bytes: clamped to 0…1, × 255, rounded.
    static func bytes(_ floats: [Float]) -> [UInt8] {
        floats.map { UInt8((min(max($0, 0), 1) * 255).rounded()) }
    }

    /// The spec's unquantization, written here again from ARB_texture_compression_bptc.
    static func unquantize(_ x: Int, _ epb: Int) -> Int {
        if epb >= 15 { return x }
        if x == 0 { return 0 }
        if x == (1 << epb) - 1 { return 0xFFFF }
        return ((x << 15) + 0x4000) >> (epb - 1)
    }

    /// A texel's half-float bits from its two unquantized endpoints and its index's weight.
    static func texel(_ a: Int, _ b: Int, weight w: Int) -> UInt16 {
        UInt16((((a * (64 - w) + b * w + 32) >> 6) * 31) >> 6)
    }

    /// Random blocks whose low bits name each mode in turn (14 modes, then the reserved numbers).
    static func randomBlocks(_ count: Int, seed: UInt64) -> [UInt8] {
        var r = SeededRandom(seed: seed)
        var out = (0..<(count * 16)).map { _ in UInt8(r.int(0...255)) }
        let numbers = BC6HLayout.modes.map(\.number)
        for b in 0..<count {
            let n = numbers[b % numbers.count]
            let mask: UInt8 = n < 2 ? 0b11 : 0b11111
            out[b * 16] = out[b * 16] & ~mask | UInt8(n)
        }
        return out
    }

    /// Pillow rather than texture2ddecoder: texture2ddecoder 1.0.6 differs from both texpipe and
    /// Pillow on a few texels of random blocks (modes 1, 22 and 30; see docs/hdr.md).
    @Test(Reference.needs(hasPillow, "python3 PIL (pillow)"))
    func randomBlocksOfEveryModeDecodeAsPillowDoes() throws {
        let (w, h) = (56, 40)  // 14 × 10 blocks: every mode ten times
        let blocks = Self.randomBlocks(14 * 10, seed: 11)
        let theirs = try Self.pillow(blocks, w, h)
        let mine = Self.floorBytes(try BC6HDecoder.decode(blocks, width: w, height: h))
        var mismatches: [String] = []
        for i in 0..<(w * h) where (0..<3).contains(where: { abs(Int(mine[i * 3 + $0]) - Int(theirs[i * 3 + $0])) > 1 })
        {
            let block = (i / w / 4) * (w / 4) + (i % w) / 4
            mismatches.append("texel \(i) (block \(block), mode \(BC6HLayout.modes[block % 14].number))")
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        // Some texels of every mode fall inside 0…1, where the comparison is exact.
        #expect(mine.filter { $0 > 0 && $0 < 255 }.count > 1000)
    }

    @Test func reservedModesDecodeToBlack() throws {
        for number in [19, 23, 27, 31] {
            var block = [UInt8](repeating: 0xA5, count: 16)
            block[0] = block[0] & ~0b11111 | UInt8(number)
            let t = try BC6HDecoder.decode(block, width: 4, height: 4)
            #expect(t.enumerated().allSatisfy { $0.offset % 4 == 3 ? $0.element == 1 : $0.element == 0 })
        }
    }

    /// Mode 3 (one region, 10-bit endpoints stored as they are) built bit by bit from Table.F:
    /// m[4:0], r0, g0, b0, r1, g1, b1 (10 bits each), then 16 indices of 4 bits (the first 3).
    @Test func aHandBuiltRawBlockDecodesAsTheSpecSays() throws {
        let e0 = [100, 512, 1000]
        let e1 = [900, 3, 511]
        let indices = (0..<16).map { $0 == 0 ? 5 : ($0 * 7) % 16 }
        var bits: [Bool] = []
        func put(_ v: Int, _ n: Int) { for k in 0..<n { bits.append((v >> k) & 1 == 1) } }
        put(3, 5)
        for v in e0 + e1 { put(v, 10) }
        for (i, x) in indices.enumerated() { put(x, i == 0 ? 3 : 4) }
        #expect(bits.count == 128)
        var block = [UInt8](repeating: 0, count: 16)
        for k in 0..<128 where bits[k] { block[k / 8] |= UInt8(1 << (k % 8)) }
        let decoded = try BC6HDecoder.decode(block, width: 4, height: 4)
        let weights = [0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64]
        for i in 0..<16 {
            for c in 0..<3 {
                let expected = Self.texel(
                    Self.unquantize(e0[c], 10), Self.unquantize(e1[c], 10), weight: weights[indices[i]])
                #expect(Float16(decoded[i * 4 + c]).bitPattern == expected, "texel \(i) channel \(c)")
            }
        }
    }

    /// Every mode: endpoints and indices chosen at random within what the mode stores, packed by
    /// the encoder's writer, decode to the texels the spec's formulas give (endpoint 0 plus
    /// sign-extended deltas, wrapped; unquantized; interpolated), by texpipe's decoder and, in
    /// 0…1, by texture2ddecoder.
    @Test(arguments: 0..<14)
    func everyModeTheEncoderPacksDecodesAsTheSpecSays(_ m: Int) throws {
        let mode = BC6HLayout.modes[m]
        var r = SeededRandom(seed: UInt64(100 + m))
        let regions = mode.twoRegions ? 2 : 1
        var blocks: [UInt8] = []
        var expected: [UInt16] = []
        for _ in 0..<8 {
            var c = BC6H.Encoding()
            c.mode = m
            c.partition = mode.twoRegions ? r.int(0...31) : 0
            var q = [[Int]](repeating: [0, 0, 0, 0], count: 3)
            for ch in 0..<3 {
                q[ch][0] = r.int(0...(1 << mode.endpointBits) - 1)
                for k in 1..<(2 * regions) {
                    if mode.transformed {
                        let half = 1 << (Int(mode.deltaBits[ch]) - 1)
                        q[ch][k] = max(0, min((1 << mode.endpointBits) - 1, q[ch][0] + r.int(-half...(half - 1))))
                    } else {
                        q[ch][k] = r.int(0...(1 << mode.endpointBits) - 1)
                    }
                }
            }
            c.q = BC6H.Quantized(
                r: SIMD4(q[0].map { Int32($0) }), g: SIMD4(q[1].map { Int32($0) }), b: SIMD4(q[2].map { Int32($0) }))
            let anchor = mode.twoRegions ? Int(BC7.anchors2[c.partition]) : 0
            let levels = mode.twoRegions ? 8 : 16
            for i in 0..<16 { c.indices[i] = Int32(r.int(0...(i == 0 || i == anchor ? levels / 2 : levels) - 1)) }
            let bits = BC6H.pack(c)
            blocks += (0..<16).map { UInt8(truncatingIfNeeded: bits >> (8 * $0)) }
            let weights =
                mode.twoRegions
                ? [0, 9, 18, 27, 37, 46, 55, 64] : [0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64]
            for i in 0..<16 {
                let s = mode.twoRegions ? Int((BC7.partitions2[c.partition] >> i) & 1) : 0
                for ch in 0..<3 {
                    let a = Self.unquantize(q[ch][2 * s], mode.endpointBits)
                    let b = Self.unquantize(q[ch][2 * s + 1], mode.endpointBits)
                    expected.append(Self.texel(a, b, weight: weights[Int(c.indices[i])]))
                }
            }
        }
        // Eight blocks side by side: a 32 × 4 level.
        let decoded = try BC6HDecoder.decode(blocks, width: 32, height: 4)
        var mine: [UInt16] = []
        for b in 0..<8 {
            for i in 0..<16 {
                let o = ((i / 4) * 32 + b * 4 + i % 4) * 4
                for ch in 0..<3 { mine.append(Float16(decoded[o + ch]).bitPattern) }
            }
        }
        #expect(mine == expected, "mode \(mode.number)")
        if Reference.use(Self.hasPillow) {
            let theirs: [UInt8] = try Self.pillow(blocks, 32, 4)
            let ours: [UInt8] = Self.floorBytes(decoded)
            var differing: [Int] = []
            for k in 0..<(32 * 4 * 3) where abs(Int(ours[k]) - Int(theirs[k])) > 1 { differing.append(k) }
            #expect(differing.isEmpty, "mode \(mode.number): \(differing.count) channels differ")
        }
    }

    /// An HDR test image: smooth sky-like gradients over six decades, hard edges, a bright disc and
    /// noise (deterministic).
    static func hdrImage(_ w: Int, _ h: Int, seed: UInt64 = 3) -> [Float] {
        var r = SeededRandom(seed: seed)
        var out = [Float](repeating: 1, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let u = Float(x) / Float(w)
                let v = Float(y) / Float(h)
                let base = powf(10, 3 * v - 2)  // 0.01 … 10
                var rgb = SIMD3<Float>(base * (0.6 + 0.4 * u), base * 0.8, base * (1.2 - 0.5 * u))
                if (x / 8 + y / 8) % 5 == 0 { rgb *= 0.05 }  // hard-edged dark squares
                let dx = Float(x - w * 3 / 4)
                let dy = Float(y - h / 4)
                if dx * dx + dy * dy < Float(w * w) / 100 { rgb = SIMD3(2000, 1800, 1500) }  // the sun
                let noise = 1 + Float(r.int(-50...50)) / 1000
                let o = (y * w + x) * 4
                (out[o], out[o + 1], out[o + 2]) = (rgb.x * noise, rgb.y, rgb.z * noise)
            }
        }
        return out
    }

    @Test(Reference.needs(hasDecoder, "python3 texture2ddecoder"), arguments: TextureSettings.Quality.allCases)
    func everyBlockTheEncoderWritesDecodesTheSameWithTheReference(_ quality: TextureSettings.Quality) throws {
        let (w, h) = (64, 32)
        let image = Self.hdrImage(w, h)
        let blocks = BC6H.encode(image, width: w, height: h, quality: quality, rows: SerialRows())
        let decoded = try BC6HDecoder.decode(blocks, width: w, height: h)
        #expect(
            Self.bytes(decoded)
                == (try Self.reference(blocks, w, h)).enumerated().map { $0.offset % 4 == 3 ? 255 : $0.element })
        let psnr = Quality.logPSNR(image, decoded)
        #expect(psnr > 40, "\(quality): \(psnr) dB")
    }

    /// (That the blocks do not depend on the cores is checked with the engine's threads, in
    /// TexPipeTests' `BandTests`.)
    @Test func effortsImprove() throws {
        let (w, h) = (64, 64)
        let image = Self.hdrImage(w, h, seed: 9)
        var last = 0.0
        for quality in TextureSettings.Quality.allCases {
            let blocks = BC6H.encode(image, width: w, height: h, quality: quality, rows: SerialRows())
            let psnr = Quality.logPSNR(image, try BC6HDecoder.decode(blocks, width: w, height: h))
            #expect(psnr >= last, "\(quality): \(psnr) dB after \(last)")
            last = psnr
        }
    }

    @Test(arguments: TextureSettings.Quality.allCases)
    func constantBlocksAreExactToHalfPrecision(_ quality: TextureSettings.Quality) throws {
        var r = SeededRandom(seed: 5)
        for _ in 0..<200 {
            // A random positive half (normal or subnormal) per channel.
            let rgb: [Float] = (0..<3).map { _ in Float(Float16(bitPattern: UInt16(r.int(1...0x7BFF)))) }
            let image: [Float] = (0..<16).flatMap { _ in rgb + [Float(1)] }
            let blocks = BC6H.encode(image, width: 4, height: 4, quality: quality, rows: SerialRows())
            let decoded = try BC6HDecoder.decode(blocks, width: 4, height: 4)
            #expect(decoded == image, "\(rgb)")
        }
    }

    @Test func negativeNaNAndHugeValuesAreClampedToWhatBC6HHolds() throws {
        // NaNs of both signs (an EXR file may hold either), negative zero, and below the half range.
        let negativeNaN = Float(bitPattern: 0xFFC0_0001)
        let image: [Float] = (0..<16).flatMap { i -> [Float] in
            [[-5, .nan, negativeNaN, -0.0, -.infinity, 1e-9][i % 6], i % 3 == 0 ? 1e9 : .infinity, 0.5, 1]
        }
        let decoded = try BC6HDecoder.decode(
            BC6H.encode(image, width: 4, height: 4, quality: .medium, rows: SerialRows()), width: 4, height: 4)
        for i in 0..<16 {
            #expect(decoded[i * 4] == 0)
            #expect(decoded[i * 4 + 1] == 65504)
            #expect(abs(decoded[i * 4 + 2] - 0.5) < 0.01)
        }
    }

    /// Blocks of two colours (left and right halves, or a gradient between them) whose ratio
    /// per channel ranges from 1.001 to 4096: deltas of every size, so the encoder's choice of
    /// the most precise mode that fits lands on many modes.
    @Test func blocksOfEverySpreadUseManyModes() throws {
        let (w, h) = (128, 128)
        var r = SeededRandom(seed: 21)
        var image = [Float](repeating: 1, count: w * h * 4)
        for by in 0..<(h / 4) {
            for bx in 0..<(w / 4) {
                let base = (0..<3).map { _ in powf(2, Float(r.int(-100...100)) / 10) }
                let spread = Float(r.int(0...12))
                let ratio = (0..<3).map { _ in powf(2, spread * Float(r.int(1...100)) / 100) }
                let gradient = r.int(0...1) == 1
                for i in 0..<16 {
                    let (x, y) = (bx * 4 + i % 4, by * 4 + i / 4)
                    let f: Float = gradient ? Float(i % 4 + i / 4) / 6 : (i % 4 < 2 ? 0 : 1)
                    for c in 0..<3 { image[(y * w + x) * 4 + c] = base[c] * powf(ratio[c], f) }
                }
            }
        }
        let blocks = BC6H.encode(image, width: w, height: h, quality: .medium, rows: SerialRows())
        var seen = Set<Int>()
        for b in 0..<(blocks.count / 16) {
            let low = Int(blocks[b * 16] & 3)
            seen.insert(low < 2 ? low : Int(blocks[b * 16] & 31))
        }
        #expect(seen.count >= 10, "\(seen.sorted())")
        let decoded = try BC6HDecoder.decode(blocks, width: w, height: h)
        #expect(Quality.logPSNR(image, decoded) > 45)
    }

    /// The texture writer's DDS (DX10 header, `DXGI_FORMAT_BC6H_UF16`) and KTX2 (Vk 143) files: Pillow
    /// opens the DDS on its own and decodes it as texpipe's decoder does (within its one-step
    /// rounding); texpipe's reader names the format of both, and with a `minPSNR` measurement
    /// each level's log-RGB PSNR is the one computed here from the decoded level.
    @Test func texturesHoldBC6HForOtherReaders() throws {
        let (w, h) = (32, 16)
        let floats = Self.hdrImage(w, h, seed: 41)
        let image = Image(width: w, height: h, pixels: .rgbaF32(floats))
        let settings = TextureSettings(
            format: .bc6h, colorSpace: .linear, quality: .medium, supercompression: .none, zstdLevel: 9)
        let (dds, quality) = try TextureEncoder.encode([image], settings, container: .dds, measure: true)
        let blocks = Array(dds.suffix(w * h))  // 16 bytes per 4 × 4 block: one byte per texel
        let decoded = try BC6HDecoder.decode(blocks, width: w, height: h)
        #expect(quality.count == 1 && abs(quality[0].rgb - Quality.logPSNR(floats, decoded)) < 1e-9)
        #expect(try TextureFile(dds).format == .bc6h)
        let ktx2 = try TextureEncoder.encode([image], settings, container: .ktx2)
        #expect(try TextureFile(ktx2).format == .bc6h)
        if Reference.use(Self.hasPillow) {
            let t = TempDir()
            t.write("t.dds", dds)
            let theirs = try Python.run(
                "import sys; from PIL import Image; im = Image.open(sys.argv[1]); "
                    + "sys.stdout.buffer.write(im.convert('RGB').tobytes())", t.path + "/t.dds")
            let ours = Self.floorBytes(decoded)
            #expect(theirs.count == ours.count)
            #expect(zip(theirs, ours).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        }
    }

    /// ISPC Texture Compressor's BC6H (`basic`) on the same image, decoded by texpipe's decoder.
    static func ispc(_ image: [Float], _ w: Int, _ h: Int, profile: String) throws -> [UInt8] {
        let t = TempDir()
        t.write("in.bin", Half.bits(image).withUnsafeBytes { Array($0) })
        return try Python.run(
            "import sys, ispc_texcomp as t; d = open(sys.argv[1], 'rb').read(); "
                + "s = t.RGBASurface(d, int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[2]) * 8); "
                + "sys.stdout.buffer.write(t.compress_blocks_bc6h(s, t.BC6HEncSettings.from_profile(sys.argv[4])))",
            t.path + "/in.bin", String(w), String(h), profile)
    }

    @Test(Reference.needs(hasISPC && hasPillow, "python3 ispc_texcomp and PIL (pillow)"))
    func mediumIsWithinHalfADecibelOfISPCBasic() throws {
        let (w, h) = (128, 128)
        let image = Self.hdrImage(w, h, seed: 33)
        let ispcBlocks = try Self.ispc(image, w, h, profile: "basic")
        let ispcDecoded = try BC6HDecoder.decode(ispcBlocks, width: w, height: h)
        // Both encoders' blocks are measured through texpipe's float decoder (no independent BC6H
        // decoder gives floats); on ISPC's blocks it must agree with Pillow's, byte for byte within 1.
        let pillow = try Self.pillow(ispcBlocks, w, h)
        #expect(zip(pillow, Self.floorBytes(ispcDecoded)).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        let theirs = Quality.logPSNR(image, ispcDecoded)
        let mine = Quality.logPSNR(
            image,
            try BC6HDecoder.decode(
                BC6H.encode(image, width: w, height: h, quality: .medium, rows: SerialRows()), width: w, height: h))
        #expect(mine >= theirs - 0.5, "texpipe \(mine) dB, ISPC basic \(theirs) dB")
    }
}
