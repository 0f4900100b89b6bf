import Foundation
import Testing
import TexPipePlanTestSupport
import TexPipeTestSupport

@testable import TexPipe
@testable import TexPipeBlocks
@testable import TexPipeCodecs
@testable import TexPipeEngine
@testable import TexPipeFormats
@testable import TexPipeManifest
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeReport
@testable import TexPipeStages

/// `check`: gates judged from what the test measures itself — the written file read by the test's
/// own KTX2 reader and decoded by an independent decoder, GPU bytes summed from the format's blocks.
@Suite("check gates")
struct CheckTests {
    /// Noise with smooth parts, opaque: BC1 neither exact nor hopeless.
    static func input(_ t: TempDir, _ name: String, _ w: Int, _ h: Int, seed: UInt64) -> [UInt8] {
        var r = SeededRandom(seed: seed)
        var samples: [Int] = []
        for y in 0..<h {
            for x in 0..<w {
                samples += [(x * 255) / w, (y * 255) / h, r.int(0...255), 255]
            }
        }
        t.write(name, ReferencePNG.encode(.init(width: w, height: h, colorType: 6, bitDepth: 8, samples: samples)))
        return samples.map { UInt8($0) }
    }

    static func manifest(_ check: String, mipmaps: Bool = false) -> String {
        """
        { "version": 1, "output": "out", "pipelines": [
          { "name": "tex", "inputs": ["in/*.png"], "output": "{file}.ktx2", "texture": { "format": "bc1" },
            "check": \(check),
            "stages": [ \(mipmaps ? #"{ "stage": "mipmaps" }"# : #"{ "stage": "flip", "axis": "both" }, { "stage": "flip", "axis": "both" }"#) ] } ] }
        """
    }

    @Test(Reference.needs(BlockReference.hasDecoder, "python3 texture2ddecoder"))
    func aPSNRGateJustAboveTheMeasuredValueFailsAndJustBelowPasses() throws {
        let t = TempDir()
        let pixels = Self.input(t, "in/noise.png", 36, 28, seed: 5)
        let cache = Cache(manifestDirectory: t.path)
        func run(_ check: String) throws -> JobResult {
            let plan = try t.plan(Self.manifest(check)).get()
            var options = RunOptions(jobs: 1)
            options.cache = cache
            return Runner.run(plan, options)[0]
        }
        #expect(try run(#"{"minPSNR": 1}"#).status == .ok)
        // The PSNR of the written file, measured here: the test's KTX2 reader, texture2ddecoder's BC1.
        let file = try #require(KTX2File(Array(FileManager.default.contents(atPath: t.path + "/out/noise.ktx2")!)))
        let decoded = try BlockReference.reference(file.levelData(0), .bc1, 36, 28)
        let measured = psnr(pixels, decoded)
        #expect(measured > 20 && measured < 60)
        // The gate is judged from what the run recorded: changing it reruns nothing.
        let above = try run(#"{"minPSNR": \#(measured + 0.1)}"#)
        #expect(above.cacheHit)
        #expect(above.status == .failed)
        #expect(
            above.errorMessage
                == "out/noise.ktx2: PSNR \(String(format: "%.2f", measured)) dB is under minPSNR \(String(format: "%.2f", measured + 0.1)) dB"
        )
        #expect(FileManager.default.fileExists(atPath: t.path + "/out/noise.ktx2"))
        let below = try run(#"{"minPSNR": \#(measured - 0.1)}"#)
        #expect(below.status == .ok && below.cacheHit)
        // As a warning, the same failure fails nothing.
        let warned = try run(#"{"minPSNR": \#(measured + 0.1), "severity": "warning"}"#)
        #expect(warned.status == .ok)
        #expect(warned.warnings.count == 1 && warned.warnings[0].contains("is under minPSNR"))
    }

    /// Σ over inputs and levels of ⌈w/4⌉·⌈h/4⌉·8 bytes (BC1), levels halving down to 1×1.
    @Test func maxGPUBytesSumsEveryLevelsBlocks() throws {
        let t = TempDir()
        _ = Self.input(t, "in/a.png", 37, 21, seed: 1)
        _ = Self.input(t, "in/b.png", 16, 64, seed: 2)
        func gpu(_ w: Int, _ h: Int) -> Int {
            var (w, h, sum) = (w, h, 0)
            while true {
                sum += ((w + 3) / 4) * ((h + 3) / 4) * 8
                if w == 1 && h == 1 { return sum }
                (w, h) = (max(1, w / 2), max(1, h / 2))
            }
        }
        let expected = gpu(37, 21) + gpu(16, 64)
        for (limit, fails) in [(expected - 1, true), (expected, false)] {
            let plan = try t.plan(Self.manifest(#"{"maxGPUBytes": \#(limit)}"#, mipmaps: true)).get()
            let results = Runner.run(plan, RunOptions(jobs: 2))
            #expect(results.allSatisfy { $0.status == .ok })
            let totals = Gates.pipelineTotals(plan, results)
            #expect(totals.count == 1 && totals[0].gpuBytes == expected)
            #expect(totals[0].bytes == results.flatMap(\.recorded).reduce(0) { $0 + $1.bytes })
            if fails {
                #expect(
                    totals[0].findings.map(\.message) == [
                        "pipeline \"tex\": its textures take \(GateMessage.bytes(expected)) bytes of GPU memory, over maxGPUBytes \(GateMessage.bytes(limit))"
                    ])
                // JUnit: the budget is a failed test case of the pipeline's suite.
                let junit = String(decoding: Reports.junit(plan, results, seconds: 0), as: UTF8.self)
                #expect(junit.contains(#"<testcase classname="tex" name="budget" time="0.000">"#))
                #expect(junit.contains(#"failures="1""#))
                #expect(junit.contains("over maxGPUBytes"))
            } else {
                #expect(totals[0].findings.isEmpty)
            }
        }
    }

    /// An output recorded without a PSNR (no gate asked then) cannot answer a new `minPSNR`: the
    /// job runs again once, says why, and is up to date after that.
    @Test func aNewPSNRGateRerunsJobsRecordedWithoutOne() throws {
        let t = TempDir()
        _ = Self.input(t, "in/n.png", 12, 8, seed: 4)
        let cache = Cache(manifestDirectory: t.path)
        func run(_ check: String) throws -> (Plan, JobResult) {
            let plan = try t.plan(Self.manifest(check)).get()
            var options = RunOptions(jobs: 1)
            options.cache = cache
            return (plan, Runner.run(plan, options)[0])
        }
        let first = try run(#"{"maxBytes": 100000}"#)
        #expect(first.1.recorded[0].psnr == nil && first.1.recorded[0].format == "bc1")
        let plan = try t.plan(Self.manifest(#"{"minPSNR": 10}"#)).get()
        #expect(Runner.decision(plan.jobs[0], in: plan, cache: cache).0 == .unmeasured)
        let second = try run(#"{"minPSNR": 10}"#)
        #expect(!second.1.cacheHit && second.1.decision == .unmeasured)
        #expect(second.1.recorded[0].psnr?.count == 1)
        #expect(try run(#"{"minPSNR": 10}"#).1.cacheHit)
    }

    @Test func maxBytesNamesTheOutputTheSizeAndTheLimit() throws {
        let t = TempDir()
        _ = Self.input(t, "in/n.png", 8, 8, seed: 3)
        let plan = try t.plan(Self.manifest(#"{"maxBytes": 10}"#)).get()
        let r = Runner.run(plan, RunOptions(jobs: 1))[0]
        let size = try #require(
            try? FileManager.default.attributesOfItem(atPath: t.path + "/out/n.ktx2")[.size] as? Int)
        #expect(r.status == .failed)
        #expect(r.errorStage == "check")
        #expect(r.errorMessage == "out/n.ktx2 is \(GateMessage.bytes(size)) bytes, over maxBytes 10")
    }

    /// The BC7 measure compares block by block without a decoded level: the same sums as the
    /// decoded level's, at sizes that cut blocks; and Quality's SIMD sums as a plain loop's.
    @Test func blockwiseErrorsAreTheDecodedLevelsErrors() throws {
        for (w, h) in [(37, 21), (4, 4), (1, 1), (64, 3)] {
            var r = SeededRandom(seed: UInt64(w * 100 + h))
            let texels = (0..<(w * h * 4)).map { _ in UInt8(r.int(0...255)) }
            let blocks = try BC.blocks(texels, width: w, height: h, format: .bc7, quality: .fast)
            let decoded = try BC.decode(blocks, format: .bc7, width: w, height: h)
            var plain = [Int64](repeating: 0, count: 4)
            for i in 0..<texels.count {
                let d = Int64(texels[i]) - Int64(decoded[i])
                plain[i % 4] += d * d
            }
            let blockwise = try BC.bc7SquaredErrors(blocks, texels, width: w, height: h)
            #expect([blockwise[0], blockwise[1], blockwise[2], blockwise[3]] == plain, "\(w)×\(h)")
            let simd = Quality.squaredErrors(texels, decoded)
            #expect([simd[0], simd[1], simd[2], simd[3]] == plain, "\(w)×\(h)")
            let rgb = Double(plain[0] + plain[1] + plain[2]) / Double(3 * w * h)
            #expect(
                abs(Quality.level(texels, decoded, channels: .rgba).rgb - min(99, 10 * log10(255 * 255 / rgb))) < 1e-9)
        }
    }

    /// SSIM, FLIP and the normal angle recorded per level, judged against their gates from what was
    /// recorded (changing a gate reruns nothing), each failure one line; the values are what the
    /// measures give for the written file read back by the test's KTX2 reader and decoded by
    /// texture2ddecoder. A new perceptual gate reruns a job recorded without those measures.
    /// The HTML report shows, beside an output that failed its FLIP gate, the FLIP map of its
    /// worst level: the map of the level whose recorded FLIP is highest, drawn as a heat map
    /// (black 0 → red ⅓ → yellow ⅔ → white 1) at the level's size. A job that passed shows none.
    @Test func theHTMLReportShowsTheFLIPMapOfAnOutputThatFailedItsGate() throws {
        let t = TempDir()
        let pixels = Self.input(t, "in/noise.png", 36, 28, seed: 5)
        var options = RunOptions(jobs: 1)
        options.flipMaps = true
        let plan = try t.plan(Self.manifest(#"{"maxFLIP": 0.0001}"#)).get()
        let results = Runner.run(plan, options)
        #expect(results[0].status == .failed)
        let recorded = results[0].recorded[0]
        let map = try #require(results[0].flipMaps[recorded.path])
        #expect(map.mean == recorded.psnr?[0].flip)
        // The map is the decode's FLIP against the texels encoded, worked out here: level 0 is
        // the only level; the heat of texel i is 3e in red, 3e − 1 in green, 3e − 2 in blue.
        let file = try #require(KTX2File(Array(FileManager.default.contents(atPath: t.path + "/out/noise.ktx2")!)))
        let decoded = try BlockReference.reference(file.levelData(0), .bc1, 36, 28)
        let flip = Quality.flip(pixels, decoded, width: 36, height: 28)
        let picture = try ImageDecoder.decode(map.png)
        #expect(picture.width == 36 && picture.height == 28)
        guard case .rgba8(let heat) = picture.pixels else { throw CodecError("8-bit") }
        for i in stride(from: 0, to: 36 * 28, by: 7) {
            let e = Double(flip.map[i]) * 3
            let expected = [min(1, e), min(1, max(0, e - 1)), min(1, max(0, e - 2))].map { UInt8(($0 * 255).rounded()) }
            #expect(Array(heat[(4 * i)..<(4 * i + 3)]) == expected, "texel \(i)")
        }
        try Reports.html(plan, results, to: t.path + "/html")
        let html = try String(contentsOfFile: t.path + "/html/index.html", encoding: .utf8)
        #expect(
            html.contains("FLIP error of \(recorded.path): its worst level, mean \(String(format: "%.4f", map.mean))"))
        #expect(FileManager.default.fileExists(atPath: t.path + "/html/thumbs/0-flip-0.png"))
        // Passed: no map on the page.
        let passing = try t.plan(Self.manifest(#"{"maxFLIP": 1}"#)).get()
        var force = options
        force.force = true
        let ok = Runner.run(passing, force)
        #expect(ok[0].status == .ok)
        try Reports.html(passing, ok, to: t.path + "/html2")
        #expect(!(try String(contentsOfFile: t.path + "/html2/index.html", encoding: .utf8)).contains("FLIP error of"))
    }

    @Test(Reference.needs(BlockReference.hasDecoder, "python3 texture2ddecoder"))
    func perceptualGatesJudgeWhatWasRecorded() throws {
        let t = TempDir()
        let pixels = Self.input(t, "in/noise.png", 36, 28, seed: 5)
        let cache = Cache(manifestDirectory: t.path)
        func run(_ check: String, metrics: Bool = false) throws -> JobResult {
            let plan = try t.plan(Self.manifest(check)).get()
            var options = RunOptions(jobs: 1)
            options.cache = cache
            options.reportMetrics = metrics
            return Runner.run(plan, options)[0]
        }
        let first = try run(#"{"minPSNR": 1}"#)
        #expect(first.status == .ok && first.recorded[0].psnr?[0].ssim == nil)
        let file = try #require(KTX2File(Array(FileManager.default.contents(atPath: t.path + "/out/noise.ktx2")!)))
        let decoded = try BlockReference.reference(file.levelData(0), .bc1, 36, 28)
        let ssim = Quality.ssim(pixels, decoded, width: 36, height: 28).rgb
        let flip = Quality.flip(pixels, decoded, width: 36, height: 28).mean
        // A new SSIM gate: the job ran again to measure it.
        let gated = try run(#"{"minSSIM": \#(ssim + 0.001), "maxFLIP": \#(flip - 0.001)}"#)
        #expect(!gated.cacheHit && gated.decision == .unmeasured && gated.status == .failed)
        let q = try #require(gated.recorded[0].psnr?[0])
        #expect(abs((q.ssim ?? 0) - ssim) < 1e-9 && abs((q.flip ?? 0) - flip) < 1e-9 && q.normalMean == nil)
        #expect(
            gated.errorMessage
                == "out/noise.ktx2: SSIM \(String(format: "%.4f", ssim)) is under minSSIM \(String(format: "%.4f", ssim + 0.001)); "
                + "out/noise.ktx2: FLIP \(String(format: "%.4f", flip)) is over maxFLIP \(String(format: "%.4f", flip - 0.001))"
        )
        let passed = try run(#"{"minSSIM": \#(ssim - 0.001), "maxFLIP": \#(flip + 0.001)}"#)
        #expect(passed.cacheHit && passed.status == .ok)
        // A normal gate marks the output a normal map: measured, and judged on mean and p99.
        let normal = try run(#"{"maxNormalError": {"mean": 0.01}}"#)
        #expect(!normal.cacheHit && normal.status == .failed)
        let e = Quality.normalError(pixels, decoded, width: 36, height: 28, twoChannel: false)
        #expect(abs((normal.recorded[0].psnr?[0].normalMean ?? 0) - e.mean) < 1e-9)
        #expect(
            normal.errorMessage?.contains(
                "normal error mean \(String(format: "%.2f°", e.mean)) is over maxNormalError.mean 0.01°") == true)
        // --report-metrics measures without a gate, into the record.
        let t2 = TempDir()
        _ = Self.input(t2, "in/noise.png", 20, 20, seed: 6)
        let plan = try t2.plan(Self.manifest(#"{"maxBytes": 100000}"#)).get()
        var options = RunOptions(jobs: 1)
        options.reportMetrics = true
        let r = Runner.run(plan, options)[0]
        #expect(r.recorded[0].psnr?[0].ssim != nil && r.recorded[0].psnr?[0].flip != nil)
    }

    @Test func measuresSurviveTheIndexAndTheRemoteEntry() throws {
        var o = Cache.Entry.Output(
            path: "out/a b.ktx2", sha256: String(repeating: "a", count: 64), bytes: 12, format: "bc7", gpuBytes: 4096,
            psnr: [LevelQuality(rgb: 41.25, alpha: 99), LevelQuality(rgb: 38.5, alpha: nil)])
        let token = try #require(o.measureToken)
        #expect(token == "bc7;4096;41.2500:99.0000,38.5000:-")
        var back = Cache.Entry.Output(path: o.path, sha256: o.sha256, bytes: 12)
        let read = back.readMeasure(Substring(token))
        #expect(read)
        #expect(back == o)
        for bad in ["bc7;x;-", "bc7;1", "b c;1;-", "bc7;1;41:nan", "bc7;1;41", ";1;-"] {
            var probe = back
            let ok = probe.readMeasure(Substring(bad))
            #expect(!ok, "\(bad)")
        }
        // Perceptual measures: five more fields per level, "-" where one was not measured.
        o.psnr = [LevelQuality(rgb: 40, alpha: nil, ssim: 0.987654, flip: 0.0421, normalMean: 1.5, normalP99: 7.25)]
        let perceptual = try #require(o.measureToken)
        #expect(perceptual == "bc7;4096;40.0000:-:0.987654:-:0.042100:1.5000:7.2500")
        var again = Cache.Entry.Output(path: o.path, sha256: o.sha256, bytes: 12)
        #expect(again.readMeasure(Substring(perceptual)) && again == o)
        var probe = again
        #expect(!probe.readMeasure("bc7;1;40:-:0.9:-:x:-:-") && !probe.readMeasure("bc7;1;40:-:0.9"))
        // A quality target's choice: a fourth field, read back; a malformed one damages the entry.
        o.choice = TargetChoice(knob: "lambda", value: "90.5")
        let chosen = try #require(o.measureToken)
        #expect(chosen == "bc7;4096;40.0000:-:0.987654:-:0.042100:1.5000:7.2500;lambda=90.5")
        var third = Cache.Entry.Output(path: o.path, sha256: o.sha256, bytes: 12)
        #expect(third.readMeasure(Substring(chosen)) && third == o)
        #expect(!probe.readMeasure("bc7;1;-;speed=3") && !probe.readMeasure("bc7;1;-;qlevel=9;x"))
        o.choice = TargetChoice(knob: nil, value: nil)
        #expect(o.measureToken?.hasSuffix(";-") == true)
        o.choice = nil
        o.psnr = nil
        #expect(o.measureToken == "bc7;4096;-")
        let entry = RemoteCache.entryText([
            (
                RemoteCache.Blob(
                    path: "out/x.ktx2", size: 3, sha256: String(repeating: "b", count: 64), measure: token), nil
            )
        ])
        let parsed = try #require(RemoteCache.parseEntry(entry))
        #expect(parsed[0].blob.measure == token)
        let damaged = Array(
            String(decoding: entry, as: UTF8.self).replacingOccurrences(of: token, with: "bc7;-1;-").utf8)
        #expect(RemoteCache.parseEntry(damaged) == nil)
    }
}
