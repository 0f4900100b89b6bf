import Foundation
import Testing
import TexPipePlanTestSupport
import TexPipeTestSupport

@testable import TexPipe
@testable import TexPipeCodecs
@testable import TexPipeEngine
@testable import TexPipeFormats
@testable import TexPipeManifest
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeReport
@testable import TexPipeStages

@Suite("alpha-split")
struct AlphaSplitTests {
    static func random(_ depth: Int, seed: UInt64) -> Image {
        var rng = SeededRandom(seed: seed)
        let max = depth == 16 ? 65535 : 255
        let px: [[Int]] = (0..<(23 * 17)).map { i in
            let a = i % 5 == 0 ? 0 : (i % 7 == 0 ? max : rng.int(0...max))
            return [rng.int(0...max), rng.int(0...max), rng.int(0...max), a]
        }
        return depth == 16 ? image16(23, 17, px) : image8(23, 17, px)
    }

    @Test("split then merge gives back alpha exactly and RGB wherever alpha > 0", arguments: [8, 16])
    func roundTrip(depth: Int) throws {
        let img = Self.random(depth, seed: UInt64(depth))
        let parts = try AlphaSplit().applied(to: img)
        #expect(parts.map(\.suffix) == ["_diffuse", "_alpha"])
        #expect(parts.map(\.layout) == [.rgb, .gray])
        #expect(parts[1].lossless && !parts[0].lossless)
        // Through the codec: the diffuse map as RGB PNG, the alpha map as gray PNG.
        #expect(try ImageDecoder.header(ImageEncoder.png(parts[1])).colorType == "gray")
        #expect(try ImageDecoder.header(ImageEncoder.png(parts[0])).colorType == "RGB")
        let diffuse = try ImageDecoder.decode(ImageEncoder.png(parts[0]))
        let map = try ImageDecoder.decode(ImageEncoder.png(parts[1]))
        let merged = try AlphaMerge(path: "/mem/x_alpha.png").applied(to: diffuse, images: ["/mem/x_alpha.png": map])[0]
        #expect(merged.depth == depth)
        for (a, b) in zip(quads(img), quads(merged)) {
            #expect(a[3] == b[3])
            if a[3] > 0 { #expect(Array(a[0..<3]) == Array(b[0..<3])) }
        }
    }

    @Test func diffuseIsBledUnlessAskedNot() throws {
        let img = image8(3, 1, [[0, 128, 0, 0], [200, 100, 50, 255], [0, 128, 0, 0]])
        let bled = try AlphaSplit().applied(to: img)[0]
        #expect(quads(bled) == Array(repeating: [200, 100, 50, 255], count: 3))
        let raw = try AlphaSplit(bleed: false).applied(to: img)[0]
        #expect(raw.pixel(0, 0) == [0, 128, 0, 255])
    }

    @Test func pipelineSplitsToJPEGAndKeepsTheAlphaMapPNGThenMergesBack() throws {
        let t = TempDir()
        var px: [Int] = []
        for i in 0..<(8 * 6) {
            let a = i % 3 == 0 ? 0 : 255
            px += [i * 5, 255 - i * 5, 90, a]
        }
        t.write("in/rock.png", ReferencePNG.encode(.init(width: 8, height: 6, colorType: 6, bitDepth: 8, samples: px)))
        let plan = try t.plan(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "split", "inputs": ["in/*.png"], "output": "{file}{suffix}.jpg", "jpeg": { "quality": 95 },
                "stages": [ { "stage": "alpha-split" } ] } ] }
            """
        ).get()
        #expect(plan.jobs[0].outputs.map(\.relative) == ["rock_diffuse.jpg", "rock_alpha.png"])
        #expect(Runner.run(plan, RunOptions(jobs: 1)).allSatisfy { $0.status == .ok })
        #expect(
            try ImageDecoder.header(Array(FileManager.default.contents(atPath: t.path + "/out/rock_diffuse.jpg")!))
                .format
                == .jpeg)

        // Merge: inputs are the diffuse maps, the alpha map found with {file%_diffuse}.
        let merge = try t.plan(
            """
            { "version": 1, "output": "merged", "pipelines": [
              { "name": "merge", "inputs": ["out/*_diffuse.jpg"], "output": "{file%_diffuse}.png",
                "stages": [ { "stage": "alpha-merge", "alpha": "out/{file%_diffuse}_alpha.png" } ] } ] }
            """
        ).get()
        #expect(merge.jobs[0].outputs.map(\.relative) == ["rock.png"])
        #expect(Runner.run(merge, RunOptions(jobs: 1)).allSatisfy { $0.status == .ok })
        let back = try ImageDecoder.decode(Array(FileManager.default.contents(atPath: t.path + "/merged/rock.png")!))
        let alphas: [Int] = stride(from: 0, to: px.count, by: 4).map { (i: Int) -> Int in Int(px[i + 3]) }
        let merged: [Int] = quads(back).map { (q: [Int]) -> Int in q[3] }
        #expect(merged == alphas)
    }
}
