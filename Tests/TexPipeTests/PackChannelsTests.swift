import Foundation
import Testing
import TexPipePlanTestSupport
import TexPipeTestSupport

@testable import TexPipe
@testable import TexPipeCodecs
@testable import TexPipeEngine
@testable import TexPipeManifest
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeStages

/// pack-channels: every output channel from its named source, the formulas evaluated here.
@Suite("pack-channels")
struct PackChannelsTests {
    /// Random RGBA pixels, 8-bit.
    static func noise(_ w: Int, _ h: Int, seed: UInt64) -> Image {
        var r = SeededRandom(seed: seed)
        return image8(w, h, (0..<(w * h)).map { _ in (0..<4).map { _ in r.int(0...255) } })
    }

    @Test func eachChannelIsItsSourceLumaInvertAndConstants() throws {
        let (w, h) = (7, 5)
        let base = Self.noise(w, h, seed: 1)
        let ao = Self.noise(w, h, seed: 2)
        let rough = Self.noise(w, h, seed: 3)
        let stage = try decodeStage(
            PackChannels.self,
            #"{"r": {"image": "ao.png", "channel": "luma"}, "g": {"image": "rough.png", "channel": "b", "invert": true}, "b": {"image": "@input", "channel": "a"}, "a": 0.5}"#,
            base: "/mem")
        #expect(stage.reads.count == 2)
        let out = try stage.applied(to: base, images: ["/mem/ao.png": ao, "/mem/rough.png": rough])[0]
        #expect(out.layout == .rgba)
        for y in 0..<h {
            for x in 0..<w {
                let a = ao.pixel(x, y)
                let luma = roundHalfUp(0.2126 * Double(a[0]) + 0.7152 * Double(a[1]) + 0.0722 * Double(a[2]))
                let want = [luma, 255 - rough.pixel(x, y)[2], base.pixel(x, y)[3], 128]  // 0.5 · 255 = 127.5 → 128
                #expect(out.pixel(x, y) == want, "(\(x), \(y))")
            }
        }
    }

    @Test func absentChannelsKeepTheIncomingOnesAndOpaqueConstantAlphaIsRGB() throws {
        let base = Self.noise(4, 3, seed: 4)
        let map = Self.noise(4, 3, seed: 5)
        let stage = try decodeStage(
            PackChannels.self, #"{"g": {"image": "m.png", "channel": "r"}, "a": 1}"#, base: "/m")
        let out = try stage.applied(to: base, images: ["/m/m.png": map])[0]
        #expect(out.layout == .rgb)
        for (i, (o, b)) in zip(quads(out), quads(base)).enumerated() {
            #expect(o == [b[0], map.pixel(i % 4, i / 4)[0], b[2], 255])
        }
    }

    @Test func sixteenBitSourcesScaleToTheImagesDepthRoundedHalfUp() throws {
        let base = image8(3, 1, [[0, 0, 0, 255], [0, 0, 0, 255], [0, 0, 0, 255]])
        // 128 · 255 / 65535 = 0.498 → 0; 129 → 0.502 → 1; 65535 → 255; luma of (65535, 0, 0) = 13932.7 → 54.2 → 54.
        let map = image16(3, 1, [[128, 0, 0, 65535], [129, 0, 0, 65535], [65535, 0, 0, 65535]])
        let stage = try decodeStage(
            PackChannels.self, #"{"r": {"image": "m.png"}, "g": {"image": "m.png", "channel": "luma"}}"#, base: "/m")
        let out = try stage.applied(to: base, images: ["/m/m.png": map])[0]
        #expect(out.depth == 8)
        #expect(quads(out).map { Array($0[0...1]) } == [[0, 0], [1, 0], [255, roundHalfUp(0.2126 * 255)]])
        // And 8 → 16 bits is exact: v · 257.
        let deep = try stage.applied(
            to: image16(3, 1, Array(repeating: [0, 0, 0, 65535], count: 3)),
            images: [
                "/m/m.png": image8(3, 1, [[0, 0, 0, 255], [1, 0, 0, 255], [200, 10, 20, 255]])
            ])[0]
        #expect(quads(deep).map { $0[0] } == [0, 257, 200 * 257])
        let l = 0.2126 * 200 + 0.7152 * 10 + 0.0722 * 20
        #expect(deep.pixel(2, 0)[1] == roundHalfUp(l * 257))
    }

    @Test func fitTileCenterAndStretch() throws {
        let base = image8(4, 2, Array(repeating: [9, 9, 9, 255], count: 8))
        let small = image8(2, 1, [[10, 0, 0, 255], [20, 0, 0, 255]])
        let stage = try decodeStage(
            PackChannels.self,
            #"{"r": {"image": "s.png", "fit": "tile"}, "g": {"image": "s.png", "fit": "center"}, "b": {"image": "s.png", "fit": "center", "invert": true}}"#,
            base: "/f")
        let out = try stage.applied(to: base, images: ["/f/s.png": small])[0]
        #expect(quads(out).map { $0[0] } == [10, 20, 10, 20, 10, 20, 10, 20])
        // Centered: left = (4 − 2) / 2 = 1, top = (2 − 1) / 2 = 0; outside is 0 (255 inverted).
        #expect(quads(out).map { $0[1] } == [0, 10, 20, 0, 0, 0, 0, 0])
        #expect(quads(out).map { $0[2] } == [255, 245, 235, 255, 255, 255, 255, 255])
        // Stretch: a uniform source stays uniform at any size.
        let flat = image8(3, 3, Array(repeating: [77, 0, 0, 255], count: 9))
        let stretched = try decodeStage(PackChannels.self, #"{"r": {"image": "s.png", "fit": "stretch"}}"#, base: "/f")
            .applied(to: base, images: ["/f/s.png": flat])[0]
        #expect(quads(stretched).allSatisfy { $0[0] == 77 })
    }

    @Test func bandsGiveTheSameBytes() throws {
        let base = Self.noise(33, 40, seed: 6)
        let map = Self.noise(33, 40, seed: 7)
        let stage = try decodeStage(
            PackChannels.self,
            #"{"r": {"image": "@input", "channel": "g"}, "g": {"image": "@input", "channel": "r"}, "b": {"image": "m.png", "channel": "luma"}}"#,
            base: "/b")
        let one = try stage.applied(to: base, images: ["/b/m.png": map])[0]
        let banded = try stage.applied(to: base, images: ["/b/m.png": map], rows: ThreadedRows())[0]
        #expect(one == banded)
        // Swapping r and g through @input reads the row as it arrived, not as it is being rewritten.
        #expect(quads(one).map { [$0[0], $0[1]] } == quads(base).map { [$0[1], $0[0]] })
    }

    @Test func constantsAndBadValuesInTheManifest() throws {
        #expect(throws: StageError.self) { try decodeStage(PackChannels.self, #"{"r": 1.5}"#) }
        #expect(throws: StageError.self) { try decodeStage(PackChannels.self, #"{"r": {"channel": "g"}}"#) }
        #expect(throws: StageError.self) {
            try decodeStage(PackChannels.self, #"{"r": {"image": "x.png", "channel": "h"}}"#)
        }
        let s = try decodeStage(PackChannels.self, #"{"r": 0, "g": 0.2, "b": 1}"#)
        let out = try s.applied(to: Self.noise(2, 1, seed: 8))[0]
        #expect(quads(out).map { Array($0[0...2]) } == [[0, 51, 255], [0, 51, 255]])
    }

    /// A set's roughness map named from the albedo's name: a missing one fails that job only,
    /// naming the channel and the path; another size names the fix.
    @Test func missingAndMisSizedSourcesAreThatJobsErrors() throws {
        let t = TempDir()
        t.png("set/rock_albedo.png")
        t.png("set/rock_rough.png")
        t.png("set/wood_albedo.png")
        t.png("set/sand_albedo.png")
        t.png("set/sand_rough.png", width: 2, height: 2)
        let plan = try t.plan(
            #"{"version": 1, "pipelines": [{"name": "orm", "inputs": ["set/*_albedo.png"], "output": "out/{file%_albedo}_orm.png", "stages": [{"stage": "pack-channels", "g": {"image": "{dir}/{file%_albedo}_rough.png"}}]}]}"#
        ).get()
        let byInput = Dictionary(uniqueKeysWithValues: plan.jobs.map { (PathText.lastComponent($0.input.path), $0) })
        #expect(byInput["rock_albedo.png"]?.failure == nil)
        #expect(byInput["rock_albedo.png"]?.reads.files.contains(t.path + "/set/rock_rough.png") == true)
        #expect(
            byInput["wood_albedo.png"]?.failure?.message
                == "pack-channels: g.image: cannot read \(t.path)/set/wood_rough.png")
        #expect(byInput["wood_albedo.png"]?.failure?.stage == "pack-channels")
        #expect(
            byInput["sand_albedo.png"]?.failure?.message
                == "g.image \(t.path)/set/sand_rough.png is 2×2 but the image is 4×3; add \"fit\": \"stretch\", \"center\" or \"tile\" to g"
        )
        // A path without placeholders names one file for every job: missing, it is the manifest's error.
        #expect(
            t.errors(
                #"{"version": 1, "pipelines": [{"name": "orm", "inputs": ["set/*_albedo.png"], "output": "out/{file}.png", "stages": [{"stage": "pack-channels", "g": {"image": "nope.png"}}]}]}"#
            ) == ["error: $T/pipeline.json: pipelines[0].stages[0]: pack-channels: g.image: cannot read $T/nope.png"])
    }
}
