import Foundation
import Testing
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

/// Texture arrays: read back by the test's own KTX2 and DDS readers (written from the
/// specifications), each layer's levels compared with the same input encoded as a texture of its own.
@Suite("texture arrays")
struct ArrayTests {
    static func layer(_ t: TempDir, _ name: String, _ w: Int, _ h: Int, seed: UInt64) {
        var r = SeededRandom(seed: seed)
        var samples: [Int] = []
        for i in 0..<(w * h) { samples += [(i * 7) % 256, r.int(0...255), (i / w) * 255 / h, 255] }
        t.write(name, ReferencePNG.encode(.init(width: w, height: h, colorType: 6, bitDepth: 8, samples: samples)))
    }

    static func contents(_ t: TempDir, _ path: String) -> [UInt8] {
        Array(FileManager.default.contents(atPath: t.path + "/" + path) ?? Data())
    }

    /// The pipelines: the array, and each input as a texture of its own with the same settings.
    static func manifest(_ ext: String, format: String, array: String = "{}") -> String {
        """
        { "version": 1, "output": "out", "pipelines": [
          { "name": "arr", "inputs": ["layers/*.png"], "array": \(array), "output": "terrain.\(ext)",
            "texture": { "format": "\(format)" }, "stages": [ { "stage": "mipmaps" } ] },
          { "name": "one", "inputs": ["layers/*.png"], "output": "single/{file}.\(ext)",
            "texture": { "format": "\(format)" }, "stages": [ { "stage": "mipmaps" } ] } ] }
        """
    }

    @Test(arguments: ["bc7", "rgba8"])
    func ktx2LayersAreTheSingleTexturesLevelByLevel(format: String) throws {
        let t = TempDir()
        for (k, name) in ["c-rock", "a-grass", "b-sand"].enumerated() {
            Self.layer(t, "layers/\(name).png", 20, 12, seed: UInt64(k))
        }
        let plan = try t.plan(Self.manifest("ktx2", format: format, array: #"{"order": ["layers/c-*.png"]}"#)).get()
        let results = Runner.run(plan, RunOptions(jobs: 2))
        #expect(results.allSatisfy { $0.status == .ok }, "\(results.compactMap(\.error))")
        let array = try #require(KTX2File(Self.contents(t, "out/terrain.ktx2")))
        #expect(array.layerCount == 3)
        #expect(array.faceCount == 1 && array.pixelWidth == 20 && array.pixelHeight == 12)
        // Layer order: the `order` glob's inputs first, then the rest in name order.
        let order = ["c-rock", "a-grass", "b-sand"]
        let singles = try order.map { try #require(KTX2File(Self.contents(t, "out/single/\($0).ktx2"))) }
        #expect(array.levelCount == singles[0].levelCount && array.levelCount == 5)  // 20×12 … 1×1
        for n in 0..<Int(array.levelCount) {
            #expect(array.levelData(n) == singles.flatMap { $0.levelData(n) }, "level \(n)")
        }
        // The layer index beside it: each name's index.
        let index = try #require(
            try JSONSerialization.jsonObject(with: Data(Self.contents(t, "out/terrain.json"))) as? [String: Any])
        #expect(index["texture"] as? String == "terrain.ktx2")
        #expect(index["layerCount"] as? Int == 3)
        #expect(index["layers"] as? [String: Int] == ["c-rock": 0, "a-grass": 1, "b-sand": 2])
        // inspect names the layers from it.
        let facts = try Inspector.facts(path: t.path + "/out/terrain.ktx2")
        #expect(facts.texture?.layers?.map(\.name) == order)
        #expect(try Inspector.describe(path: t.path + "/out/terrain.ktx2").contains("16 layers") == false)
        #expect(try Inspector.describe(path: t.path + "/out/terrain.ktx2").contains(", 3 layers"))
    }

    @Test func ddsStoresEachLayersChainInTurn() throws {
        let t = TempDir()
        for (k, name) in ["a", "b"].enumerated() { Self.layer(t, "layers/\(name).png", 16, 8, seed: UInt64(10 + k)) }
        let plan = try t.plan(Self.manifest("dds", format: "bc1")).get()
        #expect(Runner.run(plan, RunOptions(jobs: 1)).allSatisfy { $0.status == .ok })
        let array = try #require(DDSFile(Self.contents(t, "out/terrain.dds")))
        #expect(array.arraySize == 2)
        #expect(array.caps & 0x8 != 0)  // DDSCAPS_COMPLEX
        let singles = try ["a", "b"].map { try #require(DDSFile(Self.contents(t, "out/single/\($0).dds"))) }
        #expect(singles.allSatisfy { $0.arraySize == 1 })
        // Layer 0's whole chain, then layer 1's (Microsoft's DDS layout for arrays).
        #expect(array.data == singles[0].data + singles[1].data)
        // texpipe's own reader gives back each layer.
        let file = try TextureFile(Self.contents(t, "out/terrain.dds"))
        #expect(file.layers == 2 && file.isArray)
        let single = try TextureFile(Self.contents(t, "out/single/b.dds"))
        #expect(try file.level(2, layer: 1) == single.level(2))
    }

    @Test func anOddSizedLayerFailsTheJobNamingItAndSizeResizesEveryLayer() throws {
        let t = TempDir()
        Self.layer(t, "layers/a.png", 16, 16, seed: 1)
        Self.layer(t, "layers/b.png", 8, 16, seed: 2)
        let plan = try t.plan(Self.manifest("ktx2", format: "rgba8")).get()
        let job = try #require(plan.jobs.first { $0.pipeline == "arr" })
        let r = Runner.run(plan, RunOptions(jobs: 1))[job.index]
        #expect(r.status == .failed)
        #expect(
            r.errorMessage
                == "layer \"b\" is 8×16 but the first layer is 16×16; every layer needs the first's size (or give \"size\": [w, h])"
        )
        #expect(!FileManager.default.fileExists(atPath: t.path + "/out/terrain.ktx2"))
        let sized = try t.plan(Self.manifest("ktx2", format: "rgba8", array: #"{"size": [8, 4]}"#)).get()
        #expect(Runner.run(sized, RunOptions(jobs: 1)).allSatisfy { $0.status == .ok })
        let file = try #require(KTX2File(Self.contents(t, "out/terrain.ktx2")))
        #expect(file.layerCount == 2 && file.pixelWidth == 8 && file.pixelHeight == 4 && file.levelCount == 4)
    }

    @Test func manifestErrors() {
        let t = TempDir()
        Self.layer(t, "layers/a.png", 4, 4, seed: 1)
        func errors(_ pipeline: String) -> [String] {
            t.errors(#"{"version": 1, "output": "out", "pipelines": [\#(pipeline)]}"#)
        }
        #expect(
            errors(#"{"name": "a", "inputs": ["layers/*.png"], "array": {}, "output": "x.png", "stages": []}"#)
                == [
                    "error: $T/pipeline.json: pipelines[0].array: an array is one texture: its output must end in .ktx2 or .dds, not \"x.png\""
                ])
        #expect(
            errors(
                #"{"name": "a", "inputs": ["layers/*.png"], "array": {"sise": 4}, "output": "{file}.ktx2", "stages": []}"#
            )
                == [
                    "error: $T/pipeline.json: pipelines[0].array.sise: unknown key \"sise\"; did you mean \"size\"?",
                    "error: $T/pipeline.json: pipelines[0].output: an array's output \"{file}.ktx2\" names {file}, which no single layer has; use {pipeline}, {variant} or variant keys",
                ])
        #expect(
            errors(
                #"{"name": "a", "inputs": ["layers/*.png"], "array": {"size": [0, 4]}, "output": "a.dds", "stages": []}"#
            )
            .first?.contains("pipelines[0].array.size: expected \"first\" or [width, height]") == true)
    }
}
