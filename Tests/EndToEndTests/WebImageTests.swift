import Foundation
import Testing
import TexPipe

/// WebP and AVIF outputs through the built binary (docs/manifest.md "WebP and AVIF"): gates measure
/// them, a premultiplied image is straightened and the log says so, the bytes do not depend on
/// `--jobs`, the cache keys their settings, a real browser decodes them to the pixels an
/// independent decoder gives, and glTF models carry them under their extensions.
@Suite("WebP and AVIF end to end", .serialized)
struct WebImageTests {
    static let webScript = CLI.packageRoot + "/Tests/TexPipeTestSupport/web_reference.py"
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].contains {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    static let manifest = #"""
        { "version": 1, "output": "out", "pipelines": [
          { "name": "webp", "inputs": ["cards/*.png"], "stages": [], "output": "webp/{file}.webp",
            "webp": { "quality": 80 }, "check": { "minPSNR": 25 } },
          { "name": "avif", "inputs": ["cards/*.png"], "stages": [], "output": "avif/{file}.avif",
            "check": { "minSSIM": 0.9, "maxFLIP": 0.2 } },
          { "name": "jpeg", "inputs": ["cards/*.png"], "stages": [], "output": "jpeg/{file}.jpg",
            "check": { "minPSNR": 20 } },
          { "name": "soft", "inputs": ["soft/*.png"], "stages": [{ "stage": "premultiply" }],
            "output": "soft/{file}.webp", "webp": { "lossless": true } },
          { "name": "soft-avif", "inputs": ["soft/*.png"], "stages": [], "output": "soft/{file}.avif" }
        ] }
        """#

    static func workspace() throws -> Workspace {
        let w = try Workspace()
        try FileManager.default.createDirectory(atPath: w.path + "/soft", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: CLI.packageRoot + "/Tests/Fixtures/web/source-rgba.png", toPath: w.path + "/soft/disc.png")
        w.manifest(manifest)
        return w
    }

    static func report(_ path: String) throws -> [[String: Any]] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        return (json as? [String: Any])?["jobs"] as? [[String: Any]] ?? []
    }

    @Test func outputsAreMeasuredGatedStraightenedAndTheSameAtAnyJobs() throws {
        let w = try Self.workspace()
        let r = try CLI.run(["run", "--no-progress", "--verbose", "--jobs", "1", "--report", "r.json"], in: w.path)
        #expect(r.status == 0, "\(r.stderr)")
        // A premultiplied image into WebP: unpremultiplied first, and said.
        #expect(r.stdout.contains("soft/disc.webp: unpremultiplied first (WebP readers take straight alpha)"))
        let first = w.files(under: "out")
        #expect(first.count == 13 * 3 + 2)
        // Every lossy output measured as its gate asks: WebP and JPEG by PSNR, AVIF by SSIM and FLIP too.
        for job in try Self.report(w.path + "/r.json") {
            for o in job["outputs"] as? [[String: Any]] ?? [] {
                let path = o["path"] as? String ?? ""
                guard !path.contains("soft/") else { continue }
                let level = (o["psnr"] as? [[String: Any]])?.first ?? [:]
                #expect((level["rgb"] as? Double ?? 0) > 20, "\(path) \(o)")
                if path.hasSuffix(".avif") {
                    #expect((level["ssim"] as? Double ?? 0) > 0.9 && level["flip"] != nil, "\(path) \(o)")
                }
                #expect(o["format"] as? String == (path.hasSuffix(".jpg") ? "jpeg" : String(path.suffix(4))))
            }
        }
        // The lossless WebP of the straightened disc is the source again, within what premultiplying
        // to 8 bits keeps of a colour under alpha a (c' = round(c · a / 255): 255 / 2a).
        let disc = try ImageDecoder.decode([UInt8](first["soft/disc.webp"]!))
        let source = try ImageDecoder.decode(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: w.path + "/soft/disc.png"))))
        guard case .rgba8(let a) = disc.pixels, case .rgba8(let b) = source.pixels else { throw CancellationError() }
        for i in stride(from: 0, to: a.count, by: 4) where b[i + 3] > 0 {
            let slack = 255 / (2 * Int(b[i + 3])) + 1
            #expect(abs(Int(a[i]) - Int(b[i])) <= slack && a[i + 3] == b[i + 3], "texel \(i / 4)")
        }
        // Two workers write the same bytes.
        let again = try CLI.run(["run", "--no-progress", "--jobs", "2", "--force"], in: w.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(w.files(under: "out") == first)
        // A setting changed reruns its pipeline's jobs alone.
        let edited = Self.manifest.replacingOccurrences(of: #""quality": 80"#, with: #""quality": 60"#)
        w.manifest(edited)
        let third = try CLI.run(["run", "--no-progress"], in: w.path)
        #expect(third.stdout.contains("41 jobs: 41 ok (28 up to date), 0 failed"), "\(third.stdout)")
        // A gate the encoder cannot meet fails the job with its line; the file is still written.
        w.manifest(
            edited.replacingOccurrences(
                of: #""quality": 60 }, "check": { "minPSNR": 25 }"#,
                with: #""quality": 1 }, "check": { "minPSNR": 45 }"#))
        let failed = try CLI.run(["run", "--no-progress"], in: w.path)
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("webp/a-spades.webp: PSNR"), "\(failed.stderr)")
    }

    @Test func badSettingsAreManifestErrorsWithTheirPaths() throws {
        let w = try Workspace()
        w.manifest(
            #"""
            { "version": 1, "output": "out", "pipelines": [
              { "name": "a", "inputs": ["cards/*.png"], "stages": [], "output": "{file}.webp", "webp": { "quality": 101 } },
              { "name": "b", "inputs": ["cards/*.png"], "stages": [], "output": "{file}.avif",
                "avif": { "depth": 9, "subsampling": "422" } }
            ] }
            """#)
        let r = try CLI.run(["validate", "pipeline.json"], in: w.path)
        #expect(r.status == 2)
        #expect(r.stderr.contains("pipelines[0].webp.quality"), "\(r.stderr)")
        #expect(r.stderr.contains("pipelines[1].avif.depth") && r.stderr.contains("pipelines[1].avif.subsampling"))
    }

    /// Chromium's <img> decode, drawn to a 2D canvas, against Pillow's libwebp and libavif. Where
    /// alpha is below 255 the canvas stores premultiplied colour, so colour is compared where the
    /// file is opaque; alpha everywhere.
    @Test(EndToEndReference.needs(WebImageTests.chromium, "chromium"))
    func chromiumDecodesEveryFileAsTheLibrariesDo() throws {
        let w = try Self.workspace()
        _ = try CLI.run(["run", "--no-progress"], in: w.path)
        let files = [
            "webp/a-spades.webp", "avif/a-spades.avif", "soft/disc.webp", "soft/disc.avif", "webp/q-clubs.webp",
        ]
        .map { w.path + "/out/" + $0 }
        let out = w.path + "/chromium.txt"
        let r = try CLI.run(
            [Self.webScript, "chromium", out] + files, in: "/", wrapper: EndToEndReference.python, bareCommand: true)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        for (k, file) in files.enumerated() {
            let browser = [UInt8](Data(base64Encoded: String(lines[2 * k + 1])) ?? Data())
            let raw = file + ".rgba"
            let p = try CLI.run(
                [Self.webScript, "decode", file, raw], in: "/", wrapper: EndToEndReference.python, bareCommand: true)
            #expect(p.status == 0, "\(p.stderr)")
            let library = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
            #expect(browser.count == library.count, "\(file)")
            let lossless = file.hasSuffix("disc.webp")
            var colour = 0
            var alphaExact = true
            var alphaLimited = true
            for i in stride(from: 0, to: min(browser.count, library.count), by: 4) {
                if library[i + 3] == 255 {
                    for c in 0..<3 { colour = max(colour, abs(Int(browser[i + c]) - Int(library[i + c]))) }
                }
                let a = Int(library[i + 3])
                alphaExact = alphaExact && Int(browser[i + 3]) == a
                // (a − 16) · 255 / 219, rounded and clamped: alpha read as limited range.
                alphaLimited = alphaLimited && Int(browser[i + 3]) == min(255, max(0, ((a - 16) * 510 + 219) / 438))
            }
            #expect(colour <= (lossless ? 0 : 1), "\(file): colour off by \(colour)")
            if file.hasSuffix(".webp") {
                #expect(alphaExact, "\(file)")
            } else {
                // Chromium 156 (Debian's, the browser here) reads an AVIF's alpha plane as if it were
                // limited range although its sequence header says full range (AVIF §4: auxiliary
                // images are full range): docs/manifest.md says so. Either it is exact, or it is
                // exactly that mapping of libavif's alpha — nothing else.
                #expect(alphaExact || alphaLimited, "\(file)")
            }
        }
    }
}
