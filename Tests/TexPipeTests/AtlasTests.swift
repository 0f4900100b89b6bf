import Foundation
import Testing
import TexPipePlanTestSupport
import TexPipeTestSupport

@testable import TexPipeAtlas
@testable import TexPipeManifest
@testable import TexPipePixels
@testable import TexPipePlan

/// Page drawing with hand-computed texels, the metadata's exact bytes, the planner's atlas job
/// and the manifest's atlas errors (docs/atlases.md).
@Suite("atlas pages, data and plans")
struct AtlasTests {
    /// A 3×2 sprite whose texel (x, y) is (10·x + y + 1, 100 + x, 200 + y, 255).
    static func sprite3x2() -> Image {
        var p: [UInt8] = []
        for y in 0..<2 { for x in 0..<3 { p += [UInt8(10 * x + y + 1), UInt8(100 + x), UInt8(200 + y), 255] } }
        return Image(width: 3, height: 2, pixels: .rgba8(p))
    }

    @Test func aRotatedSpriteIsTurnedClockwiseAndExtruded() {
        let s = AtlasSprite(name: "s", image: Self.sprite3x2(), trim: true)
        // Stored 2 wide × 3 tall at (2, 1) with 1 texel of extrusion on a 6×6 page.
        let page = Packer.Page(width: 6, height: 6, placements: [.init(sprite: 0, x: 2, y: 1, rotated: true)])
        let out = Sheet.draw(page, sprites: [s], extrude: 1, alpha: .straight)
        // Clockwise: the sprite's top row (y = 0) becomes the right column, its left column the top row.
        // Stored (u, v) shows sprite (v, h − 1 − u) with h = 2.
        func expected(_ u: Int, _ v: Int) -> [Int] {
            let (sx, sy) = (v, 1 - u)
            return [10 * sx + sy + 1, 100 + sx, 200 + sy, 255]
        }
        for y in 0..<6 {
            for x in 0..<6 {
                let (u, v) = (x - 2, y - 1)
                if u >= -1 && u <= 2 && v >= -1 && v <= 3 {
                    #expect(out.pixel(x, y) == expected(min(max(u, 0), 1), min(max(v, 0), 2)), "(\(x), \(y))")
                } else {
                    #expect(out.pixel(x, y) == [0, 0, 0, 0], "(\(x), \(y))")
                }
            }
        }
        // The top-left stored texel is the sprite's bottom-left: (0, 1) → (2, 100, 201).
        #expect(out.pixel(2, 1) == [2, 100, 201, 255])
    }

    @Test func trimRecordsTheFrameAndABlankSpriteBecomesOnePixel() {
        var p = [UInt8](repeating: 0, count: 6 * 5 * 4)
        for (x, y) in [(2, 1), (4, 3)] { p[(y * 6 + x) * 4 + 3] = 9 }
        // RGB under alpha 0 does not count as content.
        p[(0 * 6 + 0) * 4] = 255
        let s = AtlasSprite(name: "s", image: Image(width: 6, height: 5, pixels: .rgba8(p)), trim: true)
        #expect((s.offsetX, s.offsetY, s.image.width, s.image.height) == (2, 1, 3, 3))
        #expect((s.sourceWidth, s.sourceHeight) == (6, 5) && s.trimmed)
        let blank = AtlasSprite(name: "b", image: Image(width: 7, height: 3, depth: 8), trim: true)
        #expect((blank.image.width, blank.image.height, blank.offsetX, blank.offsetY) == (1, 1, 0, 0) && blank.trimmed)
        let kept = AtlasSprite(name: "k", image: Image(width: 7, height: 3, depth: 8), trim: false)
        #expect((kept.image.width, kept.image.height) == (7, 3) && !kept.trimmed)
    }

    @Test func aSixteenBitSpriteMakesTheWholePageSixteenBit() {
        let wide = AtlasSprite(name: "a", image: Self.sprite3x2(), trim: false)
        let deep = AtlasSprite(
            name: "b", image: Image(width: 1, height: 1, pixels: .rgba16([1000, 2000, 3000, 65535])), trim: false)
        let page = Packer.Page(
            width: 4, height: 4,
            placements: [.init(sprite: 0, x: 0, y: 0, rotated: false), .init(sprite: 1, x: 3, y: 3, rotated: false)])
        let out = Sheet.draw(page, sprites: [wide, deep], extrude: 0, alpha: .straight)
        #expect(out.depth == 16)
        #expect(out.pixel(1, 1) == [(10 + 1 + 1) * 257, 101 * 257, 201 * 257, 65535])
        #expect(out.pixel(3, 3) == [1000, 2000, 3000, 65535])
    }

    @Test func theJSONHashAndLibGDXBytesAreExactly() {
        var image = Image(width: 5, height: 4, depth: 8)
        image = image.with(width: 5, height: 4, pixels: .rgba8([UInt8](repeating: 255, count: 80)))
        var a = AtlasSprite(name: "ui/\"ok\"", image: Image(width: 2, height: 3, depth: 8), trim: false)
        a.sourceWidth = 6
        a.sourceHeight = 7
        a.offsetX = 1
        a.offsetY = 2
        let b = AtlasSprite(name: "b", image: image, trim: false)
        let page = Packer.Page(
            width: 16, height: 8,
            placements: [.init(sprite: 1, x: 0, y: 0, rotated: false), .init(sprite: 0, x: 8, y: 1, rotated: true)])
        let json = String(
            decoding: AtlasData.jsonHash(page, sprites: [a, b], image: "p0.png", version: "9"), as: UTF8.self)
        #expect(
            json == """
                {"frames": {
                \t"b": {
                \t\t"frame": {"x": 0, "y": 0, "w": 5, "h": 4},
                \t\t"rotated": false,
                \t\t"trimmed": false,
                \t\t"spriteSourceSize": {"x": 0, "y": 0, "w": 5, "h": 4},
                \t\t"sourceSize": {"w": 5, "h": 4}
                \t},
                \t"ui/\\"ok\\"": {
                \t\t"frame": {"x": 8, "y": 1, "w": 2, "h": 3},
                \t\t"rotated": true,
                \t\t"trimmed": true,
                \t\t"spriteSourceSize": {"x": 1, "y": 2, "w": 2, "h": 3},
                \t\t"sourceSize": {"w": 6, "h": 7}
                \t}
                },
                "meta": {
                \t"app": "texpipe",
                \t"version": "9",
                \t"image": "p0.png",
                \t"format": "RGBA8888",
                \t"size": {"w": 16, "h": 8},
                \t"scale": "1"
                }
                }

                """)
        let gdx = String(decoding: AtlasData.libGDX([(page, "atlas/p0.png")], sprites: [a, b]), as: UTF8.self)
        // libGDX's offset is from the original's bottom-left: y = 7 − 2 − 3 = 2.
        #expect(
            gdx == """

                atlas/p0.png
                size: 16, 8
                format: RGBA8888
                filter: Linear, Linear
                repeat: none
                b
                  rotate: false
                  xy: 0, 0
                  size: 5, 4
                  orig: 5, 4
                  offset: 0, 0
                  index: -1
                ui/"ok"
                  rotate: true
                  xy: 8, 1
                  size: 2, 3
                  orig: 6, 7
                  offset: 1, 2
                  index: -1

                """)
    }

    static func plan(_ pipeline: String, files: [String] = ["in/a.png", "in/b.png", "in/sub/c.png"]) -> (
        TempDir, Result<Plan, ManifestError>
    ) {
        let t = TempDir()
        for f in files { t.png(f, width: 8, height: 6) }
        return (t, t.plan(#"{ "version": 1, "output": "out", "pipelines": [ "# + pipeline + " ] }"))
    }

    @Test func oneJobPerVariantWithEverySpriteInNameOrder() throws {
        let (t, result) = Self.plan(
            #"{ "name": "deck", "inputs": ["in/**/*.png"], "exclude": ["in/b.png"], "atlas": { "name": "{file}" }, "variants": [{ "name": "x" }, { "name": "y" }], "output": "{variant}/deck{page}.png", "pageStages": [{ "stage": "premultiply" }] }"#
        )
        let plan = try result.get()
        #expect(plan.jobs.count == 2)
        let job = plan.jobs[0]
        guard case .atlas(let atlas) = job.work else { Issue.record("not an atlas job"); return }
        #expect(atlas.sprites.map(\.name) == ["a", "c"])
        #expect(job.reads.files == [t.path + "/in/a.png", t.path + "/in/sub/c.png"])
        #expect(job.outputs.map(\.relative) == ["x/deck0.png"])
        #expect(plan.jobs[1].outputs.map(\.relative) == ["y/deck0.png"])
        #expect(atlas.owns("x/deck12.png") && atlas.owns("x/deck3.json") && atlas.owns("x/deck.atlas"))
        #expect(!atlas.owns("y/deck0.png") && !atlas.owns("x/deck0.jpg") && !atlas.owns("x/deck1/../a.png"))
    }

    @Test func atlasManifestErrorsNameTheirPaths() {
        func errors(_ p: String, files: [String] = ["in/a.png", "in/b.png", "in/sub/c.png"]) -> [String] {
            let (t, result) = Self.plan(p, files: files)
            guard case .failure(let e) = result else { return [] }
            return e.diagnostics.map { $0.description.replacingOccurrences(of: t.path, with: "$T") }
        }
        #expect(
            errors(#"{ "name": "d", "inputs": ["in/**/*.png"], "atlas": {}, "output": "{file}{page}.png" }"#) == [
                "error: $T/pipeline.json: pipelines[0].output: {file} names one input, but an atlas job writes pages of all its sprites (in \"{file}{page}.png\"; use {pipeline}, {page}, {suffix}, {variant} or a variant key)"
            ])
        #expect(
            errors(#"{ "name": "d", "inputs": ["in/**/*.png"], "atlas": { "maxSize": 4, "border": 1, "extrude": 1 } }"#)
                == [
                    "error: $T/pipeline.json: pipelines[0].atlas.maxSize: a 4×4 page cannot hold even a 1×1 sprite with its extrusion and border (5×5 needed)"
                ])
        // From a variant's placeholder: found per job and named by its variant, as every setting from a
        // placeholder is; a variant whose value is fine says nothing.
        #expect(
            errors(
                #"{ "name": "d", "inputs": ["in/**/*.png"], "variants": [{ "name": "a", "m": 4 }, { "name": "b", "m": 4 }, { "name": "c", "m": 64 }], "atlas": { "maxSize": "{m}", "border": 1, "extrude": 1 }, "output": "{variant}{page}.png" }"#
            ) == [
                "error: $T/pipeline.json: pipelines[0].atlas.maxSize: a 4×4 page cannot hold even a 1×1 sprite with its extrusion and border (5×5 needed) (variant \"a\")",
                "error: $T/pipeline.json: pipelines[0].atlas.maxSize: a 4×4 page cannot hold even a 1×1 sprite with its extrusion and border (5×5 needed) (variant \"b\")",
            ])
        #expect(
            errors(#"{ "name": "d", "inputs": ["in/**/*.png"], "atlas": { "rotate": true, "data": ["libgdx"] } }"#) == [
                "error: $T/pipeline.json: pipelines[0].atlas.rotate: libGDX stores rotated regions turned counter-clockwise, the JSON hash clockwise: one page cannot serve both; with \"libgdx\" in \"data\", \"rotate\" must be false"
            ])
        #expect(
            errors(#"{ "name": "d", "inputs": ["in/*.png"], "stages": [], "pageStages": [] }"#) == [
                "error: $T/pipeline.json: pipelines[0].pageStages: \"pageStages\" run on an atlas's pages, but the pipeline has no \"atlas\""
            ])
        #expect(
            errors(
                #"{ "name": "d", "inputs": ["in/**/*.png"], "atlas": { "name": "{file}" } }"#,
                files: ["in/a.png", "in/x/a.png"]) == [
                    "error: $T/pipeline.json: pipelines[0].inputs: two sprites are named \"a\": $T/in/a.png and $T/in/x/a.png (set atlas.name, e.g. \"{path}/{file}.{ext}\")"
                ])
        #expect(
            errors(
                #"{ "name": "d", "inputs": ["in/*.png"], "atlas": { "data": ["json", "json"], "maxSize": 100.5, "sise": "pot" } }"#
            ) == [
                "error: $T/pipeline.json: pipelines[0].atlas.data: expected a non-empty array of distinct values from \"json\", \"libgdx\", found an array",
                "error: $T/pipeline.json: pipelines[0].atlas.sise: unknown key \"sise\"; did you mean \"size\"?",
            ])
        #expect(
            errors(#"{ "name": "d", "inputs": ["in/*.png"], "atlas": {}, "stages": [{ "stage": "mipmaps" }] }"#) == [
                "error: $T/pipeline.json: pipelines[0].stages: an atlas's sprite stages must make one image per sprite; these make 4 (move mipmaps or alpha-split to \"pageStages\" or another pipeline)"
            ])
    }
}
