import Foundation
import Testing
import TexPipe

/// Atlases through the built binary (docs/atlases.md), checked from the files alone: each sprite is cut
/// back out of its page using only the JSON hash, un-rotated and placed at `spriteSourceSize`
/// inside `sourceSize`, and compared with the sprite after its stages (computed here with the
/// stage's own formula); extrusion texels equal their edge texel, every other texel is
/// (0, 0, 0, 0); a libGDX reader written here from the format's description reads the same
/// rectangles back.
@Suite("atlas end to end", .serialized)
struct AtlasCLITests {
    /// An 8-bit RGBA image as (w, h, bytes).
    struct RGBA {
        var width: Int
        var height: Int
        var bytes: [UInt8]
        func texel(_ x: Int, _ y: Int) -> [UInt8] { Array(bytes[((y * width + x) * 4)..<((y * width + x) * 4 + 4)]) }
    }

    static func decode(_ path: String) throws -> RGBA {
        let data = try #require(FileManager.default.contents(atPath: path), "\(path) missing")
        let image = try ImageDecoder.decode(Array(data), path: path)
        guard case .rgba8(let p) = image.pixels else { throw CancellationError() }
        return RGBA(width: image.width, height: image.height, bytes: p)
    }

    static func write(_ image: RGBA, to path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let bytes = try ImageEncoder.png(Image(width: image.width, height: image.height, pixels: .rgba8(image.bytes)))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    struct Frame: Equatable {
        var x, y, w, h: Int
        var rotated: Bool
        var trimmed: Bool
        var source: (x: Int, y: Int, w: Int, h: Int)
        var sourceSize: (w: Int, h: Int)
        static func == (a: Frame, b: Frame) -> Bool {
            a.x == b.x && a.y == b.y && a.w == b.w && a.h == b.h && a.rotated == b.rotated
        }
    }

    /// The JSON hash: frames by name, and meta.size / meta.image.
    static func frames(_ path: String) throws -> (frames: [String: Frame], size: (Int, Int), image: String) {
        let data = try #require(FileManager.default.contents(atPath: path))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let meta = try #require(root["meta"] as? [String: Any])
        let size = try #require(meta["size"] as? [String: Int])
        #expect(meta["format"] as? String == "RGBA8888" && meta["scale"] as? String == "1")
        var out: [String: Frame] = [:]
        for (name, value) in try #require(root["frames"] as? [String: Any]) {
            let f = try #require(value as? [String: Any])
            let r = try #require(f["frame"] as? [String: Int])
            let s = try #require(f["spriteSourceSize"] as? [String: Int])
            let o = try #require(f["sourceSize"] as? [String: Int])
            out[name] = Frame(
                x: r["x"]!, y: r["y"]!, w: r["w"]!, h: r["h"]!, rotated: f["rotated"] as! Bool,
                trimmed: f["trimmed"] as! Bool, source: (s["x"]!, s["y"]!, s["w"]!, s["h"]!),
                sourceSize: (o["w"]!, o["h"]!))
        }
        return (out, (size["w"]!, size["h"]!), try #require(meta["image"] as? String))
    }

    /// Re-cuts every sprite from the page with the JSON alone and compares it with `expected`
    /// (name → the sprite after its stages, untrimmed); checks extrusion and emptiness elsewhere.
    static func checkPage(
        _ pagePath: String, _ jsonPath: String, expected: [String: RGBA], extrude: Int
    ) throws {
        let page = try decode(pagePath)
        let (frames, size, image) = try Self.frames(jsonPath)
        #expect(size.0 == page.width && size.1 == page.height)
        #expect(image == (pagePath as NSString).lastPathComponent)
        var covered = [Bool](repeating: false, count: page.width * page.height)
        for (name, f) in frames {
            let sprite = try #require(expected[name], "unexpected frame \(name)")
            #expect(f.sourceSize == (sprite.width, sprite.height), "\(name) sourceSize")
            #expect(f.source.w == f.w && f.source.h == f.h)
            // Stored w × h, or h × w turned 90° clockwise: stored (u, v) shows sprite (v, h − 1 − u).
            let (sw, sh) = f.rotated ? (f.h, f.w) : (f.w, f.h)
            func spriteTexel(_ u: Int, _ v: Int) -> [UInt8] {
                let (tx, ty) = f.rotated ? (v, f.h - 1 - u) : (u, v)
                return sprite.texel(f.source.x + tx, f.source.y + ty)
            }
            for v in -extrude..<(sh + extrude) {
                for u in -extrude..<(sw + extrude) {
                    let cu = min(max(u, 0), sw - 1)
                    let cv = min(max(v, 0), sh - 1)
                    let px = f.x + u
                    let py = f.y + v
                    #expect(page.texel(px, py) == spriteTexel(cu, cv), "\(name) at stored (\(u), \(v))")
                    covered[py * page.width + px] = true
                }
            }
            // Trim removed only alpha-0 texels.
            for y in 0..<sprite.height {
                for x in 0..<sprite.width
                where x < f.source.x || y < f.source.y || x >= f.source.x + f.w || y >= f.source.y + f.h {
                    #expect(sprite.texel(x, y)[3] == 0, "\(name) trimmed a visible texel at (\(x), \(y))")
                }
            }
        }
        for i in covered.indices where !covered[i] {
            #expect(
                page.bytes[(i * 4)..<(i * 4 + 4)].allSatisfy { $0 == 0 },
                "texel \(i % page.width), \(i / page.width) not empty")
        }
    }

    /// libGDX's TextureAtlas text format as its documentation describes it: pages separated by a
    /// blank line, a page's file name then `key: value` lines, then regions — a name line followed
    /// by indented `key: value` lines.
    static func parseLibGDX(_ text: String) -> [String: [String: (
        page: String, x: Int, y: Int, w: Int, h: Int, rotate: Bool
    )]] {
        var out: [String: [String: (page: String, x: Int, y: Int, w: Int, h: Int, rotate: Bool)]] = [:]
        var page: String?
        var region: String?
        var fields: [String: String] = [:]
        func flush() {
            guard let page, let region else { return }
            let xy = fields["xy"]!.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces))! }
            let size = fields["size"]!.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces))! }
            out[page, default: [:]][region] = (page, xy[0], xy[1], size[0], size[1], fields["rotate"] == "true")
        }
        var expectPage = true
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.trimmingCharacters(in: .whitespaces).isEmpty {
                flush()
                region = nil
                fields = [:]
                expectPage = true
                continue
            }
            if expectPage {
                page = line
                expectPage = false
                continue
            }
            if line.hasPrefix(" ") || line.hasPrefix("\t") {
                let parts = line.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1)
                fields[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces)
            } else if line.contains(":") && region == nil {
                continue  // a page field (size, format, filter, repeat)
            } else {
                flush()
                region = line
                fields = [:]
            }
        }
        flush()
        return out
    }

    /// The color-key stage's `edges` formula with tolerance 0, written here: texels equal to the
    /// key and 4-connected to the border through such texels get alpha 0.
    static func keyedEdges(_ image: RGBA, key: [UInt8]) -> RGBA {
        var out = image
        var seen = [Bool](repeating: false, count: image.width * image.height)
        var stack: [(Int, Int)] = []
        func matches(_ x: Int, _ y: Int) -> Bool { Array(image.texel(x, y)[0..<3]) == key }
        for x in 0..<image.width {
            stack.append((x, 0))
            stack.append((x, image.height - 1))
        }
        for y in 0..<image.height {
            stack.append((0, y))
            stack.append((image.width - 1, y))
        }
        while let (x, y) = stack.popLast() {
            guard x >= 0, y >= 0, x < image.width, y < image.height, !seen[y * image.width + x], matches(x, y) else {
                continue
            }
            seen[y * image.width + x] = true
            out.bytes[(y * image.width + x) * 4 + 3] = 0
            stack += [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]
        }
        return out
    }

    static let deck = """
        { "version": 1, "output": "out", "pipelines": [
          { "name": "deck", "inputs": ["cards/*.png"],
            "stages": [{ "stage": "color-key", "color": "rgb(0,128,0)", "region": "edges" }],
            "atlas": { "maxSize": 1024, "padding": 2, "extrude": 1, "data": ["json", "libgdx"] },
            "output": "atlas/deck{page}.png" },
          { "name": "thumbs", "inputs": ["cards/a-*.png"], "output": "thumbs/{file}.png", "stages": [{ "stage": "flip", "axis": "both" }] }
        ] }
        """

    @Test func theDeckAtlasRecutsExactlyAndLibGDXAgreesWithTheJSON() throws {
        let w = try Workspace()
        w.manifest(Self.deck)
        let r = try CLI.run(["pipeline.json", "--jobs", "2"], in: w.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout.contains(
                "atlas \"deck\" (13 sprites) -> out/atlas/deck0.png, out/atlas/deck0.json, out/atlas/deck.atlas"))
        var expected: [String: RGBA] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: w.path + "/cards") {
            let card = try Self.decode(w.path + "/cards/" + name)
            expected[(name as NSString).deletingPathExtension] = Self.keyedEdges(card, key: [0, 128, 0])
        }
        try Self.checkPage(
            w.path + "/out/atlas/deck0.png", w.path + "/out/atlas/deck0.json", expected: expected, extrude: 1)
        let (frames, _, _) = try Self.frames(w.path + "/out/atlas/deck0.json")
        #expect(frames.count == 13)
        let text = try String(contentsOfFile: w.path + "/out/atlas/deck.atlas", encoding: .utf8)
        let gdx = Self.parseLibGDX(text)
        #expect(Array(gdx.keys) == ["deck0.png"])
        for (name, f) in frames {
            let g = try #require(gdx["deck0.png"]?[name], "\(name) missing from the .atlas")
            #expect((g.x, g.y, g.w, g.h, g.rotate) == (f.x, f.y, f.w, f.h, f.rotated), "\(name)")
        }
    }

    /// Sprites of many shapes with transparent borders, turned where that packs tighter.
    static func sprites(in dir: String, count: Int, seed: UInt64, order: [Int]? = nil) throws -> [String: RGBA] {
        var state = seed
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        var made: [(String, RGBA)] = []
        for k in 0..<count {
            let w = 1 + next(40)
            let h = 1 + next(40)
            var img = RGBA(width: w, height: h, bytes: [UInt8](repeating: 0, count: w * h * 4))
            let (mx, my) = (next(max(1, w / 3)), next(max(1, h / 3)))
            let blank = k % 17 == 5  // now and then a fully transparent sprite
            for y in 0..<h {
                for x in 0..<w where !blank && x >= mx && y >= my && x < w - mx / 2 && y < h - my / 2 {
                    let i = (y * w + x) * 4
                    img.bytes[i] = UInt8((x * 37 + k) & 255)
                    img.bytes[i + 1] = UInt8((y * 53 + k * 3) & 255)
                    img.bytes[i + 2] = UInt8(k & 255)
                    img.bytes[i + 3] = UInt8(128 + (x + y) % 128)
                }
            }
            made.append((String(format: "s%03d", k), img))
        }
        for i in order ?? Array(made.indices) {
            try write(made[i].1, to: dir + "/sprites/" + made[i].0 + ".png")
        }
        return Dictionary(uniqueKeysWithValues: made)
    }

    static let mixed = """
        { "version": 1, "output": "out", "pipelines": [
          { "name": "mixed", "inputs": ["sprites/*.png"],
            "atlas": { "maxSize": [160, 128], "size": "any", "padding": 1, "border": 2, "extrude": 2, "rotate": true },
            "output": "mixed{page}.png" } ] }
        """

    @Test func rotatedTrimmedAndBlankSpritesOnSeveralPagesRecutExactly() throws {
        let w = try Workspace()
        let expected = try Self.sprites(in: w.path, count: 120, seed: 7)
        w.manifest(Self.mixed)
        let r = try CLI.run(["pipeline.json"], in: w.path)
        #expect(r.status == 0, "\(r.stderr)")
        var pages = 0
        var total = 0
        var rotated = 0
        while FileManager.default.fileExists(atPath: w.path + "/out/mixed\(pages).png") {
            let json = w.path + "/out/mixed\(pages).json"
            let onPage = try Self.frames(json).frames
            total += onPage.count
            rotated += onPage.values.filter(\.rotated).count
            try Self.checkPage(
                w.path + "/out/mixed\(pages).png", json, expected: expected.filter { onPage[$0.key] != nil },
                extrude: 2)
            // A fully transparent sprite is packed as 1×1.
            for (name, f) in onPage where Int(name.dropFirst())! % 17 == 5 {
                #expect(f.w == 1 && f.h == 1 && f.trimmed)
            }
            pages += 1
        }
        #expect(pages > 1 && total == 120 && rotated > 0)
    }

    @Test func theSameBytesAtAnyJobCountAndFileCreationOrder() throws {
        var outputs: [[String: Data]] = []
        for (jobs, reversed) in [("1", false), ("2", false), ("2", true)] {
            let w = try Workspace()
            _ = try Self.sprites(in: w.path, count: 60, seed: 11, order: reversed ? Array((0..<60).reversed()) : nil)
            w.manifest(Self.mixed)
            let r = try CLI.run(["pipeline.json", "--jobs", jobs], in: w.path)
            #expect(r.status == 0, "\(r.stderr)")
            outputs.append(w.files(under: "out"))
        }
        #expect(!outputs[0].isEmpty && outputs[0] == outputs[1] && outputs[1] == outputs[2])
    }

    @Test func rerunsWhenASpriteChangesOrArrivesAndOnlyThen() throws {
        let w = try Workspace()
        w.manifest(Self.deck)
        #expect(try CLI.run(["pipeline.json"], in: w.path).status == 0)
        var r = try CLI.run(["pipeline.json"], in: w.path)
        #expect(r.stdout.contains("2 jobs: 2 ok (2 up to date)"), "\(r.stdout)")
        // New bytes in one sprite: the atlas reruns, the other pipeline does not.
        var card = try Self.decode(w.path + "/cards/5-spades.png")
        card.bytes[(10 * card.width + 10) * 4] ^= 0xFF
        try Self.write(card, to: w.path + "/cards/5-spades.png")
        r = try CLI.run(["pipeline.json", "--verbose"], in: w.path)
        #expect(r.stdout.contains("2 jobs: 2 ok (1 up to date)"), "\(r.stdout)")
        // A new sprite: it reruns and the sprite is in.
        try FileManager.default.copyItem(atPath: w.path + "/cards/5-spades.png", toPath: w.path + "/cards/joker.png")
        r = try CLI.run(["pipeline.json"], in: w.path)
        #expect(r.stdout.contains("atlas \"deck\" (14 sprites)") && r.stdout.contains("(1 up to date)"), "\(r.stdout)")
        #expect(try Self.frames(w.path + "/out/atlas/deck0.json").frames["joker"] != nil)
        // clean keeps every page and data file the atlas wrote.
        let c = try CLI.run(["clean", "--dry-run", "pipeline.json"], in: w.path)
        #expect(!c.stdout.contains("deck"), "\(c.stdout)")
    }

    @Test func reportsListTheSpritesAndOutlineTheFrames() throws {
        let w = try Workspace()
        w.manifest(Self.deck)
        for _ in 0..<2 {  // a run, then an up-to-date run: both report the pages
            let r = try CLI.run(["pipeline.json", "--report", "report.json", "--html", "html"], in: w.path)
            #expect(r.status == 0, "\(r.stderr)")
            let check = try CLI.run(
                [
                    "-c",
                    "import json, sys, jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))",
                    "report.json", CLI.packageRoot + "/docs/report.schema.json",
                ], in: w.path, wrapper: EndToEndReference.python, bareCommand: true)
            #expect(check.status == 0, "\(check.stderr)")
            let report = try #require(
                try JSONSerialization.jsonObject(with: FileManager.default.contents(atPath: w.path + "/report.json")!)
                    as? [String: Any])
            let job = try #require((report["jobs"] as? [[String: Any]])?.first)
            let sprites = try #require(job["sprites"] as? [[String: String]])
            #expect(sprites.count == 13 && sprites.first == ["name": "10-hearts", "input": "cards/10-hearts.png"])
            #expect((job["outputs"] as? [[String: Any]])?.count == 3)
            let html = try String(contentsOfFile: w.path + "/html/index.html", encoding: .utf8)
            #expect(html.components(separatedBy: "<rect ").count - 1 == 13)
            #expect(html.contains("<title>q-clubs</title>"))
            #expect(FileManager.default.fileExists(atPath: w.path + "/html/thumbs/0-page0.png"))
        }
    }

    @Test func aCorruptSpriteFailsTheAtlasByNameAndTheOthersGoOn() throws {
        let w = try Workspace()
        try Data("not a png".utf8).write(to: URL(fileURLWithPath: w.path + "/cards/7-diamonds.png"))
        w.manifest(Self.deck)
        let r = try CLI.run(["pipeline.json"], in: w.path)
        #expect(r.status == 1)
        #expect(r.stderr.contains("cards/7-diamonds.png"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: w.path + "/out/atlas/deck0.png"))
        #expect(FileManager.default.fileExists(atPath: w.path + "/out/thumbs/a-spades.png"))
    }

    @Test func pageCountsAndSizesThatCannotWorkAreNamed() throws {
        let w = try Workspace()
        // 13 cards of 72×100 on 128² pages: one each, but no {page} in the template.
        w.manifest(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "deck", "inputs": ["cards/*.png"], "atlas": { "maxSize": 128 }, "output": "deck.png" } ] }
            """)
        var r = try CLI.run(["pipeline.json"], in: w.path)
        #expect(r.status == 1)
        #expect(
            r.stderr.contains("the sprites need 13 pages, but the output template \"deck.png\" has no {page}"),
            "\(r.stderr)")
        // A card larger than the page.
        w.manifest(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "deck", "inputs": ["cards/*.png"], "atlas": { "maxSize": 64, "extrude": 1 } } ] }
            """)
        r = try CLI.run(["pipeline.json"], in: w.path)
        #expect(r.status == 1)
        #expect(
            r.stderr.contains(
                "sprite \"10-hearts\" (cards/10-hearts.png) is 72×100, 74×102 with its extrusion and the border: larger than the largest page, 64×64"
            ), "\(r.stderr)")
    }

    @Test func pagesGoThroughPageStagesIntoAGPUTexture() throws {
        let w = try Workspace()
        w.manifest(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "deck", "inputs": ["cards/*.png"], "atlas": { "maxSize": 512, "size": "multiple-of-4" },
                "pageStages": [{ "stage": "premultiply" }, { "stage": "mipmaps" }],
                "output": "deck{page}.ktx2" } ] }
            """)
        let r = try CLI.run(["pipeline.json"], in: w.path)
        #expect(r.status == 0, "\(r.stderr)")
        let files = w.files(under: "out").keys.sorted()
        #expect(files.contains("deck0.ktx2") && files.contains("deck0.json") && files.count % 2 == 0, "\(files)")
        let ktx = try #require(w.files(under: "out")["deck0.ktx2"])
        #expect(Array(ktx.prefix(12)) == [0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A])
        // Levels: the page's larger side halved down to 1.
        let (_, size, image) = try Self.frames(w.path + "/out/deck0.json")
        #expect(image == "deck0.ktx2" && size.0 % 4 == 0 && size.1 % 4 == 0)
        let levels = ktx.withUnsafeBytes { $0.load(fromByteOffset: 40, as: UInt32.self) }
        #expect(Int(levels) == Int(log2(Double(max(size.0, size.1)))) + 1)
    }
}
