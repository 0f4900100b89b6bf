import Foundation
import Testing
import TexPipe

/// `texpipe diff BASE HEAD` (docs/command-line.md): pairing, statuses, byte and GPU totals, the
/// measures of a change worked out by hand (PSNR and SSIM of flat images, the angle between two
/// normals, log-RGB PSNR of an HDR image twice as bright), the order of the summary, the exit
/// statuses, and the HTML page's pictures.
@Suite("texpipe diff")
struct DiffTests {
    /// Two output folders, BASE and HEAD, and what was put in them.
    final class Builds {
        let root = NSTemporaryDirectory() + "texpipe-diff-" + UUID().uuidString
        var base: String { root + "/base" }
        var head: String { root + "/head" }

        init() throws {
            for dir in [base, head, base + "/sub", head + "/sub"] {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            }
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }

        func write(_ side: String, _ name: String, _ bytes: [UInt8]) throws {
            try Data(bytes).write(to: URL(fileURLWithPath: (side == "base" ? base : head) + "/" + name))
        }
    }

    static func flat(_ w: Int, _ h: Int, _ rgba: [UInt8]) throws -> [UInt8] {
        try ImageEncoder.png(
            Image(width: w, height: h, pixels: .rgba8((0..<(w * h)).flatMap { _ in rgba })))
    }

    /// SSIM of two flat channels x and y (σ = 0): the luminance term alone, (2xy + C₁)/(x² + y² + C₁).
    static func flatSSIM(_ x: Double, _ y: Double) -> Double {
        let c1 = (0.01 * 255) * (0.01 * 255)
        return (2 * x * y + c1) / (x * x + y * y + c1)
    }

    /// flip-evaluator's mean FLIP of two flat w × h images (Tests/TexPipeTestSupport/metrics_reference.py);
    /// nil where it is not installed (never under CI).
    static func referenceFLIP(_ a: [UInt8], _ b: [UInt8], _ w: Int, _ h: Int, in dir: String) throws -> Double? {
        guard EndToEndReference.pythonHas("flip_evaluator") || EndToEndReference.underCI else { return nil }
        let (pa, pb, list) = (dir + "/ref-a.rgba", dir + "/ref-b.rgba", dir + "/ref.list")
        try Data((0..<(w * h)).flatMap { _ in a }).write(to: URL(fileURLWithPath: pa))
        try Data((0..<(w * h)).flatMap { _ in b }).write(to: URL(fileURLWithPath: pb))
        try Data("\(w) \(h) \(pa) \(pb)\n".utf8).write(to: URL(fileURLWithPath: list))
        let script = CLI.packageRoot + "/Tests/TexPipeTestSupport/metrics_reference.py"
        let r = try CLI.run([script, list], in: dir, wrapper: EndToEndReference.python, bareCommand: true)
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: " ").last.flatMap {
            Double($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// Textures made by texpipe itself from one 64 × 64 picture: a BC7 chain (BASE) and an rgba8
    /// chain (HEAD), the same seven levels.
    static func textures(_ b: Builds) throws {
        let w = b.root + "/make"
        try FileManager.default.createDirectory(atPath: w, withIntermediateDirectories: true)
        var rgba = [UInt8](repeating: 255, count: 64 * 64 * 4)
        for y in 0..<64 {
            for x in 0..<64 {
                rgba[(y * 64 + x) * 4] = UInt8(x * 4)
                rgba[(y * 64 + x) * 4 + 1] = UInt8(y * 4)
                rgba[(y * 64 + x) * 4 + 2] = UInt8((x * y) & 255)
            }
        }
        try Data(try ImageEncoder.png(Image(width: 64, height: 64, pixels: .rgba8(rgba)))).write(
            to: URL(fileURLWithPath: w + "/pic.png"))
        for (side, format) in [("base", "bc7"), ("head", "rgba8")] {
            let manifest = """
                { "version": 1, "output": "\(side)-out", "pipelines": [
                  { "name": "t", "inputs": ["pic.png"], "output": "{file}.ktx2",
                    "texture": { "format": "\(format)", "colorSpace": "linear" }, "stages": [ { "stage": "mipmaps" } ] } ] }
                """
            try Data(manifest.utf8).write(to: URL(fileURLWithPath: w + "/pipeline.json"))
            let r = try CLI.run(["--quiet"], in: w)
            #expect(r.status == 0, "\(r.stderr)")
            try FileManager.default.copyItem(
                atPath: w + "/\(side)-out/pic.ktx2", toPath: (side == "base" ? b.base : b.head) + "/tex.ktx2")
        }
    }

    /// The folders every test here compares.
    static func builds() throws -> Builds {
        let b = try Builds()
        for side in ["base", "head"] {
            try b.write(side, "same.png", try flat(8, 8, [10, 20, 30, 255]))
        }
        try b.write("base", "gone.png", try flat(8, 8, [1, 2, 3, 255]))
        try b.write("head", "new.png", try flat(16, 8, [1, 2, 3, 255]))
        // A small change of red, and (in sub/) a larger one.
        try b.write("base", "flat.png", try flat(32, 32, [100, 150, 200, 255]))
        try b.write("head", "flat.png", try flat(32, 32, [104, 150, 200, 255]))
        try b.write("base", "sub/big.png", try flat(40, 24, [100, 150, 200, 255]))
        try b.write("head", "sub/big.png", try flat(40, 24, [160, 150, 200, 255]))
        try b.write("base", "size.png", try flat(16, 16, [0, 0, 0, 255]))
        try b.write("head", "size.png", try flat(32, 32, [0, 0, 0, 255]))
        // A normal map facing out, then tilted about y.
        try b.write("base", "sub/n.png", try flat(16, 16, [128, 128, 255, 255]))
        try b.write("head", "sub/n.png", try flat(16, 16, [218, 128, 218, 255]))
        // HDR: twice as bright.
        let hdr: [Float] = (0..<(16 * 16)).flatMap { i -> [Float] in [Float(i + 1) / 64, 0.5, 2, 1] }
        try b.write("base", "h.exr", try EXR.encode(Image(width: 16, height: 16, pixels: .rgbaF32(hdr))))
        try b.write("head", "h.exr", try EXR.encode(Image(width: 16, height: 16, pixels: .rgbaF32(hdr.map { $0 * 2 }))))
        try textures(b)
        // A texture HEAD cannot read: cut short.
        let whole = try Data(contentsOf: URL(fileURLWithPath: b.base + "/tex.ktx2"))
        try b.write("base", "broken.ktx2", Array(whole))
        try b.write("head", "broken.ktx2", Array(whole.prefix(100)))
        // Not an image: compared by bytes.
        try b.write("base", "notes.txt", Array("one".utf8))
        try b.write("head", "notes.txt", Array("two".utf8))
        return b
    }

    @Test func pairsFilesAndMeasuresEachChangeAsWorkedOutByHand() throws {
        let b = try Self.builds()
        let r = try CLI.run(["diff", b.base, b.head, "--json", b.root + "/d.json"], in: b.root)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("texpipe diff: 8 changed, 1 added, 1 removed, 1 unchanged"))
        #expect(r.stderr.contains("broken.ktx2: HEAD:"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: b.root + "/d.json")))
                as? [String: Any])
        let outputs = try #require(json["outputs"] as? [[String: Any]])
        let byPath = Dictionary(uniqueKeysWithValues: outputs.map { ($0["path"] as! String, $0) })
        #expect(byPath.count == 11)
        #expect(byPath["same.png"]?["status"] as? String == "unchanged")
        #expect(byPath["gone.png"]?["status"] as? String == "removed")
        #expect(byPath["new.png"]?["status"] as? String == "added")
        for p in ["flat.png", "sub/big.png", "size.png", "sub/n.png", "h.exr", "tex.ktx2", "broken.ktx2", "notes.txt"] {
            #expect(byPath[p]?["status"] as? String == "changed", "\(p)")
        }
        // Flat images: PSNR over R, G and B from the mean squared error 4²/3; SSIM the mean of
        // three channels, red's the luminance term alone; GPU bytes 4 per texel.
        let flat = try #require(byPath["flat.png"])
        let worst = try #require(flat["worst"] as? [String: Any])
        let psnr = 10 * log10(255.0 * 255 / (16.0 / 3))
        #expect(abs((worst["psnr"] as! Double) - psnr) < 1e-9)
        let ssim = (Self.flatSSIM(100, 104) + 2) / 3
        #expect(abs((worst["ssim"] as! Double) - ssim) < 1e-4)
        #expect(worst["psnrAlpha"] == nil && worst["ssimAlpha"] == nil)
        // FLIP against NVIDIA's flip-evaluator on the same two images (the perceptual tests hold
        // texpipe's FLIP within 0.05 % of it; flat images, within 0.5 % here).
        let flip = try #require(worst["flip"] as? Double)
        if let reference = try Self.referenceFLIP([100, 150, 200, 255], [104, 150, 200, 255], 32, 32, in: b.root) {
            #expect(abs(flip - reference) <= 0.005 * reference, "FLIP \(flip), flip-evaluator \(reference)")
        }
        #expect(flat["gpuBytesBefore"] as? Int == 32 * 32 * 4 && flat["gpuBytesAfter"] as? Int == 32 * 32 * 4)
        #expect(flat["normalMap"] as? Bool == false)
        // Sizes that differ: bytes only, and said.
        let size = try #require(byPath["size.png"])
        #expect((size["note"] as? String)?.contains("sizes differ (16×16 → 32×32): compared by bytes only") == true)
        #expect((size["parts"] as? [Any])?.isEmpty == true)
        #expect(size["gpuBytesBefore"] as? Int == 1024 && size["gpuBytesAfter"] as? Int == 4096)
        // The normal map: the angle between (0, 0, 1)-ish and the tilted normal, each decoded as
        // 2c/255 − 1 and normalized, on every texel.
        func unit(_ c: [Double]) -> [Double] {
            let v = c.map { $0 / 127.5 - 1 }
            let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).squareRoot()
            return v.map { $0 / l }
        }
        let (u, v) = (unit([128, 128, 255]), unit([218, 128, 218]))
        let angle = acos(u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) * 180 / .pi
        let n = try #require(byPath["sub/n.png"])
        #expect(n["normalMap"] as? Bool == true)
        let nw = try #require(n["worst"] as? [String: Any])
        #expect(abs((nw["normalMean"] as! Double) - angle) < 1e-6 && abs((nw["normalP99"] as! Double) - angle) < 1e-6)
        #expect(angle > 40 && angle < 50)
        // HDR twice as bright: every log2 difference is 1, so log-RGB PSNR is 10·log10(30²/1).
        let h = try #require(byPath["h.exr"])
        #expect(h["hdr"] as? Bool == true)
        let hw = try #require(h["worst"] as? [String: Any])
        #expect(abs((hw["psnr"] as! Double) - 10 * log10(900.0)) < 1e-3)
        #expect(hw["ssim"] == nil && (hw["flip"] as! Double) > 0)
        #expect(h["gpuBytesBefore"] as? Int == 16 * 16 * 8)
        // The textures: seven levels each measured; GPU bytes in whole blocks — BC7 16 bytes a
        // 4×4 block (16² + 8² + 4² + 2² + 1 + 1 + 1 blocks), rgba8 4 bytes a texel.
        let tex = try #require(byPath["tex.ktx2"])
        let parts = try #require(tex["parts"] as? [[String: Any]])
        #expect(parts.map { $0["level"] as! Int } == Array(0..<7))
        #expect(parts.map { $0["width"] as! Int } == [64, 32, 16, 8, 4, 2, 1])
        #expect(tex["gpuBytesBefore"] as? Int == (256 + 64 + 16 + 4 + 1 + 1 + 1) * 16)
        #expect(tex["gpuBytesAfter"] as? Int == (4096 + 1024 + 256 + 64 + 16 + 4 + 1) * 4)
        #expect((parts[0]["psnr"] as! Double) > 35 && (parts[0]["psnr"] as! Double) < 99)
        #expect((tex["before"] as? String)?.hasPrefix("bc7 KTX2, 64×64, 7 levels") == true)
        // Undecodable: listed with its reason; not a picture: bytes only.
        let broken = try #require(byPath["broken.ktx2"])
        #expect((broken["error"] as? String)?.hasPrefix("HEAD: ") == true)
        #expect(broken["bytesAfter"] as? Int == 100)
        #expect(byPath["notes.txt"]?["parts"] as? [Any] != nil && byPath["notes.txt"]?["gpuBytesAfter"] == nil)
        // Totals: GPU bytes of every picture, from the sizes written above — images 4 bytes a texel,
        // the EXR 8, BC7 16 a block, rgba8 4 a texel; the cut texture is not read on HEAD.
        let total = try #require(json["total"] as? [String: Any])
        let bc7Chain = (256 + 64 + 16 + 4 + 1 + 1 + 1) * 16
        let before = (8 * 8 + 8 * 8 + 32 * 32 + 40 * 24 + 16 * 16 + 16 * 16) * 4 + 16 * 16 * 8 + 2 * bc7Chain
        let after =
            (8 * 8 + 16 * 8 + 32 * 32 + 40 * 24 + 32 * 32 + 16 * 16) * 4 + 16 * 16 * 8
            + (4096 + 1024 + 256 + 64 + 16 + 4 + 1) * 4
        #expect(total["gpuBytesBefore"] as? Int == before)
        #expect(total["gpuBytesAfter"] as? Int == after)
        let folders = try #require(json["folders"] as? [[String: Any]])
        #expect(folders.map { $0["folder"] as! String } == [".", "sub"])
        #expect(folders[1]["changed"] as? Int == 2)
    }

    @Test func theSummaryListsTheLargestChangeFirstAndTheExitStatusFollowsTheGates() throws {
        let b = try Self.builds()
        let r = try CLI.run(["diff", b.base, b.head, "--markdown", b.root + "/s.md"], in: b.root)
        #expect(r.status == 0)
        let md = try String(contentsOfFile: b.root + "/s.md", encoding: .utf8)
        // Red +60 is a larger visible change than red +4.
        let big = try #require(md.range(of: "`sub/big.png`"))
        let small = try #require(md.range(of: "`flat.png`"))
        #expect(big.lowerBound < small.lowerBound)
        #expect(md.contains("### Added (1)") && md.contains("- `new.png`: PNG 16×8"))
        #expect(md.contains("### Removed (1)") && md.contains("- `gone.png`"))
        #expect(!md.contains("`same.png`"))
        #expect(md.contains("8 changed, 1 added, 1 removed, 1 unchanged"))
        // GPU growth: worked out from the JSON's totals.
        _ = try CLI.run(["diff", b.base, b.head, "--json", b.root + "/d.json"], in: b.root)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: b.root + "/d.json")))
                as? [String: Any])
        let total = try #require(json["total"] as? [String: Any])
        let (before, after) = (total["gpuBytesBefore"] as! Int, total["gpuBytesAfter"] as! Int)
        let growth = Double(after - before) / Double(before) * 100
        #expect(growth > 5)
        let over = try CLI.run(["diff", b.base, b.head, "--fail-on-growth", String(growth - 0.5)], in: b.root)
        #expect(over.status == 1)
        #expect(over.stderr.contains("GPU bytes grew from \(before) to \(after)"))
        #expect(
            try CLI.run(["diff", b.base, b.head, "--fail-on-growth", String(growth + 0.5)], in: b.root).status == 0)
        // SSIM: flat.png's is known; a limit above it fails naming it, one below passes it (and
        // broken.ktx2, which HEAD cannot decode, fails any limit).
        let ssim = (Self.flatSSIM(100, 104) + 2) / 3
        let strict = try CLI.run(["diff", b.base, b.head, "--min-ssim", String(ssim + 0.0001)], in: b.root)
        #expect(strict.status == 1)
        #expect(strict.stderr.contains("flat.png: SSIM"))
        #expect(strict.stderr.contains("broken.ktx2: HEAD cannot be decoded"))
        let loose = try CLI.run(["diff", b.base, b.head, "--min-ssim", String(ssim - 0.0001)], in: b.root)
        #expect(!loose.stderr.contains("flat.png: SSIM"))
        try FileManager.default.removeItem(atPath: b.head + "/broken.ktx2")
        try FileManager.default.removeItem(atPath: b.base + "/broken.ktx2")
        // Under every changed output's worst SSIM (as the JSON lists them): exit 0.
        let lowest = try #require(
            (json["outputs"] as? [[String: Any]])?.compactMap { ($0["worst"] as? [String: Any])?["ssim"] as? Double }
                .min())
        #expect(lowest <= (Self.flatSSIM(100, 160) + 2) / 3 + 1e-4)
        #expect(try CLI.run(["diff", b.base, b.head, "--min-ssim", String(lowest - 0.0001)], in: b.root).status == 0)
        // Bad arguments: 2.
        #expect(try CLI.run(["diff", b.base, b.root + "/nothing"], in: b.root).status == 2)
        #expect(try CLI.run(["diff", b.base, b.head, "--fail-on-growth", "-1"], in: b.root).status == 2)
        #expect(try CLI.run(["diff", b.base, b.head, "--min-ssim", "2"], in: b.root).status == 2)
        #expect(try CLI.run(["diff", b.base], in: b.root).status == 2)
    }

    @Test func theHTMLPageShowsBeforeAfterAndTheFLIPMapOfEveryLevel() throws {
        let b = try Self.builds()
        let r = try CLI.run(["diff", b.base, b.head, "--html", b.root + "/html"], in: b.root)
        #expect(r.status == 0)
        let html = try String(contentsOfFile: b.root + "/html/index.html", encoding: .utf8)
        for p in ["flat.png", "sub/big.png", "tex.ktx2", "h.exr", "broken.ktx2"] { #expect(html.contains(p), "\(p)") }
        // The texture: a level picker with its seven levels; each level's three pictures, the
        // before picture a decode of BASE's level (BC7 is lossy, so it is not HEAD's).
        let section = try #require(html.components(separatedBy: "<section").first { $0.contains("<h3>tex.ktx2</h3>") })
        #expect(section.components(separatedBy: "<option").count - 1 == 7)
        let picture = try #require(
            section.firstMatch(of: /data-picture="(\d+)"/).map { String($0.1) })
        for level in 0..<7 {
            for kind in ["before", "after", "flip"] {
                let path = b.root + "/html/img/\(picture)/L\(level)-0-\(kind).png"
                #expect(FileManager.default.fileExists(atPath: path), "\(path)")
            }
        }
        let level3 = try ImageDecoder.decode(
            Array(try Data(contentsOf: URL(fileURLWithPath: b.root + "/html/img/\(picture)/L3-0-after.png"))))
        #expect(level3.width == 8 && level3.height == 8)
        // The FLIP map of a slightly changed flat image: dark red (under ⅓ of the scale).
        let flat = try #require(html.components(separatedBy: "<section").first { $0.contains("<h3>flat.png</h3>") })
        let n = try #require(flat.firstMatch(of: /data-picture="(\d+)"/).map { String($0.1) })
        let map = try ImageDecoder.decode(
            Array(try Data(contentsOf: URL(fileURLWithPath: b.root + "/html/img/\(n)/L0-0-flip.png"))))
        guard case .rgba8(let px) = map.pixels else { throw CodecError("8-bit map") }
        #expect(px[0] > 0 && px[1] == 0 && px[2] == 0)
    }

    /// A volume's pictures are its eight picked slices and the page's picker offers those; a
    /// chain of another length compares the levels both have and says so; a picture replaced by
    /// other bytes is named with HEAD's fault.
    @Test func volumesLevelCountsAndPicturesThatStopBeingPictures() throws {
        let b = try Builds()
        let make = b.root + "/make"
        try FileManager.default.createDirectory(atPath: make + "/slices", withIntermediateDirectories: true)
        for z in 0..<12 {
            let rgba: [UInt8] = (0..<(8 * 8)).flatMap { i -> [UInt8] in [UInt8(i * 4), UInt8(z * 20), 128, 255] }
            try Data(try ImageEncoder.png(Image(width: 8, height: 8, pixels: .rgba8(rgba)))).write(
                to: URL(fileURLWithPath: make + "/slices/s\(String(format: "%02d", z)).png"))
        }
        for (side, format, mipmaps) in [("base", "rgba8", true), ("head", "bc1", false)] {
            let stages = mipmaps ? #"[ { "stage": "mipmaps", "colorSpace": "linear" } ]"# : "[]"
            let manifest = """
                { "version": 1, "output": "\(side)-out", "pipelines": [
                  { "name": "v", "inputs": ["slices/*.png"], "volume": {}, "output": "v.ktx2",
                    "texture": { "format": "\(format)", "colorSpace": "linear" }, "stages": \(stages) },
                  { "name": "t", "inputs": ["slices/s00.png"], "output": "t.ktx2",
                    "texture": { "format": "rgba8", "colorSpace": "linear" }, "stages": \(stages) } ] }
                """
            try Data(manifest.utf8).write(to: URL(fileURLWithPath: make + "/pipeline.json"))
            let r = try CLI.run(["--quiet"], in: make)
            #expect(r.status == 0, "\(r.stderr)")
            for name in ["v.ktx2", "t.ktx2"] {
                try FileManager.default.copyItem(
                    atPath: make + "/\(side)-out/" + name, toPath: (side == "base" ? b.base : b.head) + "/" + name)
            }
        }
        try b.write("base", "was.png", try Self.flat(8, 8, [1, 2, 3, 255]))
        try b.write("head", "was.png", Array("not a picture".utf8))
        let r = try CLI.run(
            ["diff", b.base, b.head, "--json", b.root + "/d.json", "--html", b.root + "/html"], in: b.root)
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: b.root + "/d.json")))
                as? [String: Any])
        let byPath = Dictionary(
            uniqueKeysWithValues: try #require(json["outputs"] as? [[String: Any]]).map { ($0["path"] as! String, $0) })
        // The volume: 4 levels (8×8×12 → 1×1×1) against 1, so level 0 alone, all 12 slices
        // measured, 8 of them (TextureFile.picks) pictured.
        let v = try #require(byPath["v.ktx2"])
        #expect((v["note"] as? String) == "levels 4 → 1: compared the first 1")
        let parts = try #require(v["parts"] as? [[String: Any]])
        #expect(parts.map { $0["layer"] as! Int } == Array(0..<12) && parts.allSatisfy { $0["level"] as? Int == 0 })
        let picked = [0, 2, 3, 5, 6, 8, 9, 11]
        #expect(v["picturedLayers"] as? [Int] == picked)
        let n = try #require(v["picture"] as? Int)
        for z in 0..<12 {
            let exists = FileManager.default.fileExists(atPath: b.root + "/html/img/\(n)/L0-\(z)-after.png")
            #expect(exists == picked.contains(z), "slice \(z)")
        }
        let html = try String(contentsOfFile: b.root + "/html/index.html", encoding: .utf8)
        let section = try #require(html.components(separatedBy: "<section").first { $0.contains("<h3>v.ktx2</h3>") })
        #expect(section.components(separatedBy: "<option").count - 1 == picked.count)
        // A 2D chain of 4 levels against 1: the same note, one part.
        #expect((byPath["t.ktx2"]?["note"] as? String) == "levels 4 → 1: compared the first 1")
        #expect((byPath["t.ktx2"]?["parts"] as? [Any])?.count == 1)
        // A picture that became other bytes.
        let was = try #require(byPath["was.png"])
        #expect(was["status"] as? String == "changed")
        #expect(was["error"] as? String == "HEAD: not a PNG, JPEG, EXR, Radiance, KTX2 or DDS file any more")
        #expect(r.stderr.contains("was.png: HEAD: not a PNG"))
    }
}
