import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeFormats
@testable import TexPipeMeasures
@testable import TexPipeParameters
@testable import TexPipePixels
@testable import TexPipeTextures

/// Quality targets' search (docs/gpu-textures.md "Quality targets"): the boundary it finds, checked
/// with texture2ddecoder's decode and PSNR as docs/gpu-textures.md defines it (10 · log10(255² / MSE)
/// over R, G, B), evaluated here; the record it writes, read by the test's own KTX2 reader.
@Suite("quality target search")
struct TargetSearchTests {
    static let w = 64
    static let h = 64
    static let texels = BlockReference.picture(w, h, seed: 7)
    static let image = Image(width: w, height: h, pixels: .rgba8(texels))

    /// PSNR over R, G and B, computed here from two RGBA buffers.
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        var sum = 0.0
        for i in 0..<a.count where i % 4 != 3 {
            let d = Double(a[i]) - Double(b[i])
            sum += d * d
        }
        let mse = sum / Double(a.count / 4 * 3)
        return mse == 0 ? 99 : min(99, 10 * log10(255 * 255 / mse))
    }

    /// The PSNR texture2ddecoder sees of `format` blocks encoded with `settings` (a DDS: the blocks
    /// are the same in any container).
    static func decodedPSNR(_ settings: TextureSettings) throws -> Double {
        let file = try TextureEncoder.encode([image], settings, container: .dds)
        let blocks = Array(file.suffix(settings.format.info.levelBytes(w, h)))
        return psnr(texels, try BlockReference.reference(blocks, settings.format, w, h))
    }

    static func settings(_ json: String) throws -> TextureSettings {
        var decoder = ParameterDecoder(file: "t.json", placeholders: nil, knownNames: [])
        guard case .object(let object)? = try? JSONParser.parse(Array(json.utf8)) else { throw CancellationError() }
        let decoded = decoder.decode(object, at: JSONPath(), table: TextureSettings.parameters)
        let args = try #require(decoded, "\(decoder.diagnostics)")
        return try TextureSettings(args)
    }

    @Test(Reference.needs(BlockReference.hasDecoder, "texture2ddecoder"))
    func lambdaSearchStopsAtTheBoundary() throws {
        // A floor between what λ 8 and λ 2 give: the search must land where λ meets it and the
        // next larger λ on its ladder does not.
        let off = try Self.decodedPSNR(Self.settings(#"{"format": "bc1"}"#))
        let floor = off - 1.5
        let s = try Self.settings(
            #"{"format": "bc1", "supercompression": "zstd", "target": {"minPSNR": \#(floor)}}"#)
        let t = try TextureEncoder.encode(targeted: [[Self.image]], s, container: .ktx2)
        #expect(t.met && t.format == .bc1 && t.choice.knob == "lambda")
        let lambda = try #require(Double(t.choice.value ?? ""))
        let ladder = TextureEncoder.lambdas
        let at = try #require(ladder.firstIndex(of: lambda))
        let here = try Self.decodedPSNR(Self.settings(#"{"format": "bc1", "rdo": {"lambda": \#(lambda)}}"#))
        #expect(here >= floor, "λ \(lambda): \(here) dB under \(floor)")
        if at > 0 {
            let larger = ladder[at - 1]
            let there = try Self.decodedPSNR(Self.settings(#"{"format": "bc1", "rdo": {"lambda": \#(larger)}}"#))
            #expect(there < floor, "λ \(larger) meets \(floor) dB (\(there)) but \(lambda) was chosen")
        }
        // The file carries the choice as docs/gpu-textures.md gives it, read by the test's KTX2 reader.
        let file = try #require(KTX2File(t.bytes))
        let record = try #require(file.keyValues.first { $0.key == "texpipe.target" }).value
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(record)) as? [String: Any])
        #expect(json["format"] as? String == "bc1")
        #expect((json["lambda"] as? Double) == lambda)
        #expect(abs(((json["target"] as? [String: Any])?["minPSNR"] as? Double ?? 0) - floor) < 1e-9)
        #expect(((json["measured"] as? [String: Any])?["psnr"] as? Double ?? 0) >= floor - 0.005)
    }

    @Test(Reference.needs(BlockReference.hasDecoder, "texture2ddecoder"))
    func astcBlockSizeIsTheLargestThatMeets() throws {
        // Between what 6×6 and 5×5 give: 5×5 must be chosen (8×8 and 6×6 fall short).
        let p6 = try Self.decodedASTC(.astc6x6)
        let p5 = try Self.decodedASTC(.astc5x5)
        try #require(p5 > p6 + 0.2)
        let floor = (p5 + p6) / 2
        let s = try Self.settings(#"{"format": "astc", "target": {"minPSNR": \#(floor)}}"#)
        #expect(s.candidates == [.astc8x8, .astc6x6, .astc5x5, .astc4x4] && s.astcBlocks)
        let t = try TextureEncoder.encode(targeted: [[Self.image]], s, container: .ktx2)
        #expect(t.met && t.format == .astc5x5 && t.choice == TargetChoice(knob: "block", value: "5x5"))
        #expect(t.gpuBytes == 13 * 13 * 16)
    }

    static func decodedASTC(_ f: TextureSettings.Format) throws -> Double {
        var s = TextureSettings.standard
        s.format = f
        let file = try TextureEncoder.encode([image], s, container: .ktx2)
        let bytes = f.info.levelBytes(w, h)
        let (bw, bh) = f.info.block
        let decoded = try BlockReference.reference(
            Array(file.suffix(bytes)), decoder: "astc", w, h, block: (bw, bh))
        return psnr(texels, decoded)
    }

    @Test(Reference.needs(BlockReference.hasDecoder, "texture2ddecoder"))
    func aFormatListTakesTheSmallestThatMeetsAndSkipsWhatCannotHoldAlpha() throws {
        let p1 = try Self.decodedPSNR(Self.settings(#"{"format": "bc1"}"#))
        // BC1 meets a floor under its PSNR, and is half BC7's size: chosen.
        let s = try Self.settings(#"{"format": ["bc7", "bc1"], "target": {"minPSNR": \#(p1 - 1)}}"#)
        let t = try TextureEncoder.encode(targeted: [[Self.image]], s, container: .ktx2)
        #expect(t.met && t.format == .bc1 && t.choice.knob == nil)
        // Above BC1's reach: BC7.
        let high = try Self.settings(#"{"format": ["bc1", "bc7"], "target": {"minPSNR": \#(p1 + 3)}}"#)
        #expect(try TextureEncoder.encode(targeted: [[Self.image]], high, container: .ktx2).format == .bc7)
        // An image with alpha below max: BC1 (no alpha) is no candidate.
        let soft = Image(
            width: Self.w, height: Self.h, pixels: .rgba8(BlockReference.picture(Self.w, Self.h, seed: 7, alpha: true)))
        #expect(try TextureEncoder.encode(targeted: [[soft]], s, container: .ktx2).format == .bc7)
    }

    /// Every row its own band, all at once: the most a lender could split.
    struct EveryRowApart: RowScheduler {
        func forEachBand(rows: Int, pixelsPerRow: Int, _ body: (Range<Int>) -> Void) {
            nonisolated(unsafe) let body = body
            DispatchQueue.concurrentPerform(iterations: rows) { body($0..<$0 + 1) }
        }
    }

    @Test func aListsCandidatesOnLentCoresChooseWhatOneCoreChooses() throws {
        // Each candidate searched on its own core (no pruning between them), merged by the same rule:
        // the same file, format and knob as the one-core search, which skips what cannot win.
        let levels = [
            Image(width: 32, height: 32, pixels: .rgba8(Array(Self.texels.prefix(32 * 32 * 4)))),
            Image(width: 16, height: 16, pixels: .rgba8(Array(Self.texels.prefix(16 * 16 * 4)))),
        ]
        for json in [
            #"{"format": ["bc1", "bc7"], "supercompression": "zstd", "target": {"minSSIM": 0.95}}"#,
            #"{"format": ["bc7", "bc1"], "target": {"minSSIM": 0.8}}"#,
            #"{"format": ["bc7", "bc1"], "target": {"minPSNR": 60}}"#,
            #"{"format": ["etc1s", "uastc"], "supercompression": "zstd", "target": {"minSSIM": 0.85}}"#,
        ] {
            let s = try Self.settings(json)
            let one = try TextureEncoder.encode(targeted: [levels], s, container: .ktx2)
            let many = try TextureEncoder.encode(targeted: [levels], s, container: .ktx2, rows: EveryRowApart())
            #expect(one.bytes == many.bytes && one.format == many.format && one.choice == many.choice, "\(json)")
            #expect(one.met == many.met, "\(json)")
        }
    }

    @Test func nothingMeetsWritesTheBestAndSaysSo() throws {
        let s = try Self.settings(#"{"format": "astc", "target": {"minPSNR": 98}}"#)
        let t = try TextureEncoder.encode(targeted: [[Self.image]], s, container: .ktx2)
        // The best-measuring candidate: 4×4, ASTC's finest.
        #expect(!t.met && t.format == .astc4x4)
        let target = try #require(s.target)
        let line = target.unmet("x.ktx2", format: "astc-4x4", t.choice, t.quality)
        #expect(
            line.hasPrefix(
                "x.ktx2: no setting meets the target (minPSNR 98 dB); the best, astc-4x4 block 4x4, reached PSNR "))
    }

    @Test func theRecordIsAddedWithTheLevelsAlignedAndUnchanged() throws {
        // A KTX2 with three levels and one more key/value entry: each level's bytes where the
        // index says, aligned to lcm(block bytes, 4), equal to the file's without it.
        var s = TextureSettings.standard
        s.format = .bc7
        let levels = [
            Self.image, Image(width: 32, height: 32, pixels: .rgba8(Array(Self.texels.prefix(32 * 32 * 4)))),
            Image(width: 16, height: 16, pixels: .rgba8(Array(Self.texels.prefix(16 * 16 * 4)))),
        ]
        let plain = try TextureEncoder.encode(levels, s, container: .ktx2)
        let value = #"{"format":"bc7","target":{"minSSIM":0.95},"measured":{"psnr":40.00}}"#
        let added = try KTX2.adding(key: "texpipe.target", value: value, to: plain, s)
        let a = try #require(KTX2File(plain))
        let b = try #require(KTX2File(added))
        #expect(b.keyValues.map(\.key) == ["KTXorientation", "KTXwriter", "texpipe.target"])
        #expect(b.keyValues.last.map(\.value) == Array(value.utf8))
        for n in 0..<3 {
            #expect(b.levelData(n) == a.levelData(n))
            #expect(b.levels[n].byteOffset % 16 == 0)
        }
        // texpipe's own reader gives the record back.
        #expect(try TextureFile(added).target == value)
    }

    @Test func aLambdaSearchWritesWhatAPlainEncodeAtTheChosenLambdaWrites() throws {
        // The search keeps each level's blocks without rdo and runs only the rdo pass per λ: the
        // file must be the one encoding at the chosen λ writes, plus its record.
        let levels = [
            Self.image, Image(width: 32, height: 32, pixels: .rgba8(Array(Self.texels.prefix(32 * 32 * 4)))),
            Image(width: 16, height: 16, pixels: .rgba8(Array(Self.texels.prefix(16 * 16 * 4)))),
        ]
        for format in ["bc7", "uastc"] {
            let s = try Self.settings(
                #"{"format": "\#(format)", "supercompression": "zstd", "target": {"minPSNR": 36}}"#)
            let t = try TextureEncoder.encode(targeted: [levels], s, container: .ktx2)
            let lambda = try #require(Double(t.choice.value ?? ""))
            var fixed = s.candidate(t.format, knob: .lambda, value: lambda)
            fixed.rdo = lambda > 0 ? .lambda(lambda) : nil
            let plain = try TextureEncoder.encode(levels, fixed, container: .ktx2)
            let record = try #require(s.target).record(format: format, t.choice, t.quality)
            #expect(try KTX2.adding(key: "texpipe.target", value: record, to: plain, fixed) == t.bytes, "\(format)")
        }
    }

    @Test func aQlevelSearchWritesWhatAPlainEncodeAtTheChosenQlevelWrites() throws {
        // The search makes each image's ETC1S block fits once and each level's side of SSIM (and
        // FLIP, when the target asks it) once:
        // the file must be the one encoding at the chosen qlevel writes, plus its record; and its
        // measures the ones a plain encode measures.
        var rgba = Array(Self.texels.prefix(32 * 32 * 4))
        for i in stride(from: 3, to: rgba.count, by: 16) { rgba[i] = 90 }
        let chains = [
            [
                Self.image, Image(width: 32, height: 32, pixels: .rgba8(Array(Self.texels.prefix(32 * 32 * 4)))),
                Image(width: 16, height: 16, pixels: .rgba8(Array(Self.texels.prefix(16 * 16 * 4)))),
            ],
            [Image(width: 32, height: 32, pixels: .rgba8(rgba))],
        ]
        for (levels, target) in [
            (chains[0], #"{"minSSIM": 0.9}"#), (chains[1], #"{"minSSIM": 0.9}"#),
            (chains[1], #"{"maxFLIP": 0.08}"#),
        ] {
            let s = try Self.settings(#"{"format": "etc1s", "target": \#(target)}"#)
            let metrics = try #require(s.target).measures(.none)
            let t = try TextureEncoder.encode(targeted: [levels], s, container: .ktx2, metrics: metrics)
            let qlevel = try #require(Double(t.choice.value ?? ""))
            let fixed = s.candidate(.etc1s, knob: .qlevel, value: qlevel)
            let plain = try TextureEncoder.encode(levels, fixed, container: .ktx2, measure: true, metrics: metrics)
            let record = try #require(s.target).record(format: "etc1s", t.choice, t.quality)
            #expect(try KTX2.adding(key: "texpipe.target", value: record, to: plain.bytes, fixed) == t.bytes)
            #expect(plain.quality.map(\.worstSSIM) == t.quality.map(\.worstSSIM))
            #expect(plain.quality.map(\.flip) == t.quality.map(\.flip))
            #expect(t.probes.levelZero == 0, "ETC1S's levels share a codebook: searched whole")
        }
    }

    @Test func theLambdaLadderReadsBackExactly() {
        #expect(TextureEncoder.lambdas.first == 1024 && TextureEncoder.lambdas.last == 0)
        #expect(
            TextureEncoder.lambdas.contains(90.5) && TextureEncoder.lambdas.contains(0.015625)
                && TextureEncoder.lambdas.contains(0.0221))
        for v in TextureEncoder.lambdas { #expect(Double(ValueText.number(v)) == v) }
        #expect(zip(TextureEncoder.lambdas, TextureEncoder.lambdas.dropFirst()).allSatisfy { $0 > $1 })
    }
}
