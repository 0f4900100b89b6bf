import Foundation
import Testing
import TexPipe

/// Quality targets through the built binary (docs/gpu-textures.md "Quality targets"): the ETC1S
/// qlevel found is the boundary as the Basis Universal transcoder decodes it, with PSNR evaluated
/// here by its formula; a target nothing meets writes the best and fails the job with one line (a
/// warning with `severity: "warning"`); the bytes do not depend on `--jobs`; an untouched texture
/// reruns from the cache with its choice; the reports, `inspect` and `diff` show the choice; a JPEG
/// target's quality meets it.
@Suite("quality targets end to end", .serialized)
struct TargetCLITests {
    static let hasTranscoder = EndToEndReference.pythonHas("opengl_basisu")

    static func manifest(_ floor: Double, extra: String = "", check: String = "") -> String {
        """
        { "version": 1, "output": "out", "pipelines": [
          { "name": "e", "inputs": ["cards/2-hearts.png", "cards/k-spades.png"], "stages": [],
            "output": "e/{file}.ktx2", "texture": { "format": "etc1s", "target": { "minPSNR": \(floor) } }\(check) }\(extra)
        ] }
        """
    }

    /// RGB PSNR, 10 · log10(255² / MSE) over R, G and B, as docs/gpu-textures.md defines it.
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        var sum = 0.0
        for i in 0..<min(a.count, b.count) where i % 4 != 3 {
            let d = Double(a[i]) - Double(b[i])
            sum += d * d
        }
        let mse = sum / Double(a.count / 4 * 3)
        return mse == 0 ? 99 : min(99, 10 * log10(255 * 255 / mse))
    }

    /// Level 0 of an ETC1S KTX2 as the Basis Universal transcoder decodes it (rgba8), and its PSNR
    /// against the source PNG.
    static func transcodedPSNR(_ ktx2: String, source: String, in w: Workspace) throws -> Double {
        let out = w.path + "/transcoded.rgba"
        let r = try CLI.run(
            [CLI.packageRoot + "/Tests/TexPipeTestSupport/basisu_reference.py", "transcode", ktx2, "rgba8", out],
            in: w.path, wrapper: EndToEndReference.python, bareCommand: true)
        try #require(r.status == 0, "\(r.stderr)")
        let decoded = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        let image = try ImageDecoder.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: source))))
        guard case .rgba8(let texels) = image.pixels else { throw CancellationError() }
        return psnr(texels, decoded)
    }

    /// The `texpipe.target` record of a KTX2, read by the key/value layout of KTX 2.0 §3.10.
    static func record(_ path: String) throws -> [String: Any] {
        let b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func u32(_ o: Int) -> Int { (0..<4).reduce(0) { $0 | Int(b[o + $1]) << (8 * $1) } }
        var o = u32(56)
        let end = o + u32(60)
        while o + 4 <= end {
            let n = u32(o)
            let pair = Array(b[(o + 4)..<(o + 4 + n)])
            let nul = pair.firstIndex(of: 0)!
            if String(decoding: pair[..<nul], as: UTF8.self) == "texpipe.target" {
                let value = pair[(nul + 1)...].filter { $0 != 0 }
                return try JSONSerialization.jsonObject(with: Data(value)) as? [String: Any] ?? [:]
            }
            o += (4 + n + 3) / 4 * 4
        }
        return [:]
    }

    @Test(EndToEndReference.needs(hasTranscoder, "opengl-basisu (Scripts/setup --test)"))
    func theQlevelFoundIsTheBoundaryAsTheTranscoderSeesIt() throws {
        let w = try Workspace()
        let floor = 26.0
        w.manifest(Self.manifest(floor))
        let r = try CLI.run(["run", "--no-progress", "--jobs", "1"], in: w.path)
        #expect(r.status == 0, "\(r.stderr)")
        for card in ["2-hearts", "k-spades"] {
            let file = w.path + "/out/e/\(card).ktx2"
            let record = try Self.record(file)
            let q = try #require(record["qlevel"] as? Int, "\(record)")
            #expect(record["format"] as? String == "etc1s")
            #expect((record["target"] as? [String: Any])?["minPSNR"] as? Double == floor)
            // The file written meets the floor as the transcoder decodes it (the record does not
            // stop the transcoder reading it).
            let here = try Self.transcodedPSNR(file, source: w.path + "/cards/\(card).png", in: w)
            #expect(here >= floor - 0.01, "\(card) qlevel \(q): \(here) dB")
            // One qlevel less does not.
            guard q > 1 else { continue }
            w.manifest(
                """
                { "version": 1, "output": "below", "pipelines": [
                  { "name": "b", "inputs": ["cards/\(card).png"], "stages": [], "output": "{file}.ktx2",
                    "texture": { "format": "etc1s", "qlevel": \(q - 1) } } ] }
                """)
            #expect(try CLI.run(["run", "--no-progress"], in: w.path).status == 0)
            let below = try Self.transcodedPSNR(
                w.path + "/below/\(card).ktx2", source: w.path + "/cards/\(card).png", in: w)
            #expect(below < floor + 0.01, "\(card) qlevel \(q - 1) meets \(floor) dB (\(below)) but \(q) was chosen")
        }
    }

    @Test func nothingMeetsTheTargetFailsTheJobWithOneLineAndWritesTheBest() throws {
        let w = try Workspace()
        w.manifest(Self.manifest(80))
        let r = try CLI.run(["run", "--no-progress"], in: w.path)
        #expect(r.status == 1)
        let lines = r.stderr.split(separator: "\n").filter { $0.contains("no setting meets") }
        #expect(lines.count == 2, "\(r.stderr)")
        #expect(
            lines.first?.contains(
                "out/e/2-hearts.ktx2: no setting meets the target (minPSNR 80 dB); the best, etc1s qlevel 255, reached PSNR "
            ) == true, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: w.path + "/out/e/2-hearts.ktx2"))
        // A warning with the check's severity; the run passes.
        w.manifest(Self.manifest(80, check: #", "check": { "severity": "warning" }"#))
        let warned = try CLI.run(["run", "--no-progress"], in: w.path)
        #expect(warned.status == 0, "\(warned.stderr)")
        #expect(warned.stderr.contains("warning: ") && warned.stderr.contains("no setting meets the target"))
    }

    @Test func theChoiceIsTheSameAtAnyJobsCachedAndReported() throws {
        let w = try Workspace()
        let jpeg =
            #", { "name": "j", "inputs": ["cards/2-hearts.png"], "stages": [], "output": "j/{file}.jpg", "jpeg": { "target": { "minPSNR": 30 } } }"#
        w.manifest(Self.manifest(25, extra: jpeg))
        let first = try CLI.run(
            ["run", "--no-progress", "--jobs", "1", "--report", "r.json", "--junit", "r.xml", "--html", "html"],
            in: w.path)
        #expect(first.status == 0, "\(first.stderr)")
        let files = w.files(under: "out")
        // The console names the choice and what it measured.
        #expect(first.stdout.contains("(etc1s qlevel "), "\(first.stdout)")
        #expect(first.stdout.contains("(jpeg quality "), "\(first.stdout)")
        let again = try CLI.run(["run", "--no-progress", "--jobs", "2", "--force"], in: w.path)
        #expect(again.status == 0)
        #expect(w.files(under: "out") == files)
        // Untouched: up to date, the choice from the cache entry.
        let rerun = try CLI.run(["run", "--no-progress", "--report", "r2.json"], in: w.path)
        #expect(rerun.stdout.contains("(up to date)") && rerun.stdout.contains("(etc1s qlevel "), "\(rerun.stdout)")
        for report in ["r.json", "r2.json"] {
            let json = try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: w.path + "/" + report)))
            let jobs = (json as? [String: Any])?["jobs"] as? [[String: Any]] ?? []
            let outputs = jobs.flatMap { $0["outputs"] as? [[String: Any]] ?? [] }
            let e = try #require(outputs.first { ($0["path"] as? String)?.hasSuffix("2-hearts.ktx2") == true })
            let choice = e["choice"] as? [String: Any]
            #expect(choice?["knob"] as? String == "qlevel" && Int(choice?["value"] as? String ?? "") != nil, "\(e)")
            let j = try #require(outputs.first { ($0["path"] as? String)?.hasSuffix(".jpg") == true })
            let q = try #require(Int((j["choice"] as? [String: Any])?["value"] as? String ?? ""))
            // The JPEG meets its floor; its PSNR in the report is what the file decodes to.
            let decoded = try ImageDecoder.decode([UInt8](files["j/2-hearts.jpg"]!))
            let source = try ImageDecoder.decode(
                [UInt8](try Data(contentsOf: URL(fileURLWithPath: w.path + "/cards/2-hearts.png"))))
            guard case .rgba8(let a) = decoded.pixels, case .rgba8(let b) = source.pixels else {
                throw CancellationError()
            }
            #expect(Self.psnr(b, a) >= 30, "quality \(q)")
            // The boundary: the lowest quality that meets is at most four below the one chosen
            // (a smaller file above it may be taken), so one of the five below it misses.
            var files = ImageFileSettings()
            let below = try (max(1, q - 5)..<q).map { quality -> Double in
                files.jpeg.quality = quality
                let jpeg = try ImageEncoder.encode(source, as: .jpeg, files).bytes
                guard case .rgba8(let d) = try ImageDecoder.decode(jpeg).pixels else { return 99 }
                return Self.psnr(b, d)
            }
            #expect(q == 1 || below.contains { $0 < 30 }, "qualities under \(q): \(below)")
        }
        let junit = try String(contentsOfFile: w.path + "/r.xml", encoding: .utf8)
        #expect(junit.contains("<system-out>etc1s qlevel "))
        let html = try String(contentsOfFile: w.path + "/html/index.html", encoding: .utf8)
        #expect(html.contains("etc1s · qlevel "))
        // inspect reads the record back.
        let inspect = try CLI.run(["inspect", "out/e/2-hearts.ktx2"], in: w.path)
        #expect(inspect.stdout.contains(#"  target: {"format":"etc1s","qlevel":"#), "\(inspect.stdout)")
    }

    @Test func diffReportsAChangedChoice() throws {
        let w = try Workspace()
        w.manifest(Self.manifest(25).replacingOccurrences(of: #""output": "out""#, with: #""output": "base""#))
        #expect(try CLI.run(["run", "--no-progress"], in: w.path).status == 0)
        w.manifest(Self.manifest(26).replacingOccurrences(of: #""output": "out""#, with: #""output": "head""#))
        #expect(try CLI.run(["run", "--no-progress"], in: w.path).status == 0)
        let before = try #require(try Self.record(w.path + "/base/e/k-spades.ktx2")["qlevel"] as? Int)
        let after = try #require(try Self.record(w.path + "/head/e/k-spades.ktx2")["qlevel"] as? Int)
        try #require(before != after)
        let d = try CLI.run(["diff", "base", "head", "--markdown", "d.md"], in: w.path)
        #expect(d.status == 0, "\(d.stderr)")
        let md = try String(contentsOfFile: w.path + "/d.md", encoding: .utf8)
        #expect(md.contains("target's choice qlevel \(before) → \(after)"), "\(md)")
    }
}

/// A glTF role's texture takes a target like a pipeline's (docs/gltf.md).
@Suite("quality targets in glTF roles", .serialized)
struct TargetGLTFTests {
    @Test func aRolesTargetChoosesPerTextureAndEveryCandidateMustBeBasisUniversal() throws {
        let (w, _) = try GLTFTests.workspace()
        w.manifest(
            #"""
            {"version": 1, "output": "out", "pipelines": [
              {"name": "site", "inputs": ["models/*.gltf"], "output": "site/{file}/{file}.gltf",
               "gltf": {"roles": {"color": {"texture": {"format": ["etc1s", "uastc"], "supercompression": "zstd",
                 "target": {"minPSNR": 22}}}}}}
            ]}
            """#)
        let r = try CLI.run(["run", "--no-progress"], in: w.path)
        #expect(r.status == 0, "\(r.stderr)")
        let textures = w.files(under: "out").keys.filter { $0.hasSuffix(".ktx2") }
        #expect(!textures.isEmpty)
        var chosen = 0
        for t in textures {
            let record = try TargetCLITests.record(w.path + "/out/" + t)
            guard let format = record["format"] as? String else { continue }
            chosen += 1
            #expect(["etc1s", "uastc"].contains(format), "\(t): \(record)")
            #expect(((record["measured"] as? [String: Any])?["psnr"] as? Double ?? 0) >= 22, "\(t): \(record)")
        }
        #expect(chosen > 0, "no color texture carries a texpipe.target record: \(textures)")
        // A candidate glTF cannot carry in KTX2 is refused at its path.
        w.manifest(
            #"""
            {"version": 1, "output": "out", "pipelines": [
              {"name": "site", "inputs": ["models/*.gltf"], "output": "site/{file}/{file}.gltf",
               "gltf": {"roles": {"color": {"texture": {"format": ["etc1s", "bc7"], "target": {"minPSNR": 22}}}}}}
            ]}
            """#)
        let bad = try CLI.run(["validate", "pipeline.json"], in: w.path)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("pipelines[0].gltf.roles.color.texture.format"), "\(bad.stderr)")
    }
}

/// What a target cannot choose for: a LUT's or a volume's texture (one search over a volume's slices
/// is not built) is refused at the manifest's path, not written without a choice.
@Suite("quality targets refused")
struct TargetRefusedTests {
    @Test func aLUTsTextureTakesNoTarget() throws {
        let w = try Workspace()
        try FileManager.default.createDirectory(atPath: w.path + "/luts", withIntermediateDirectories: true)
        let lut = try #require(
            try FileManager.default.contentsOfDirectory(atPath: CLI.packageRoot + "/Samples/luts").first {
                $0.hasSuffix(".cube")
            })
        try FileManager.default.copyItem(
            atPath: CLI.packageRoot + "/Samples/luts/" + lut, toPath: w.path + "/luts/" + lut)
        w.manifest(
            #"""
            {"version": 1, "output": "out", "pipelines": [
              {"name": "l", "inputs": ["luts/*.cube"], "stages": [], "output": "{file}.ktx2",
               "texture": {"format": ["rgba8", "rgba16f"], "target": {"minPSNR": 40}}}
            ]}
            """#)
        let r = try CLI.run(["validate", "pipeline.json"], in: w.path)
        #expect(r.status == 2)
        #expect(
            r.stderr.contains(
                "pipelines[0].texture.target: a quality target chooses the settings of 2D textures, cube maps and arrays, not of a LUT's volume (remove target)"
            ), "\(r.stderr)")
    }
}
