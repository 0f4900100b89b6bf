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

/// Texture arrays: read back by the test's own KTX2 and DDS readers (written from the
/// specifications), each layer's levels compared with the box chain docs/stages.md defines,
/// computed here — rgba8 within one unit, BC7 as texture2ddecoder decodes it.
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

    /// The sRGB transfer (IEC 61966-2-1), both ways.
    static func linear(_ c: Double) -> Double { c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
    static func encoded(_ l: Double) -> Double { l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055 }

    /// Per target texel along one axis (source → ⌊source / 2⌋, at least 1), the source texels its
    /// interval covers and the share of each: exact area weights.
    static func weights(_ source: Int, _ target: Int) -> [[(Int, Double)]] {
        let scale = Double(source) / Double(target)
        return (0..<target).map { i in
            (0..<source).compactMap { j -> (Int, Double)? in
                let overlap = min(Double(i + 1) * scale, Double(j + 1)) - max(Double(i) * scale, Double(j))
                return overlap > 0 ? (j, overlap / scale) : nil
            }
        }
    }

    /// The `box` chain of an opaque sRGB image (docs/stages.md "mipmaps"): each level from the
    /// unrounded level above, by exact area weights, in linear light; each level's texels the
    /// rounded re-encoding. Down to 1 × 1.
    static func boxChain(_ rgba: [UInt8], _ w: Int, _ h: Int) -> [(w: Int, h: Int, texels: [UInt8])] {
        var level = rgba.enumerated().map { i, v in i % 4 == 3 ? Double(v) / 255 : linear(Double(v) / 255) }
        var (lw, lh) = (w, h)
        var out = [(w, h, rgba)]
        while lw > 1 || lh > 1 {
            let (nw, nh) = (max(1, lw / 2), max(1, lh / 2))
            let (wx, wy) = (weights(lw, nw), weights(lh, nh))
            var next = [Double](repeating: 0, count: nw * nh * 4)
            for y in 0..<nh {
                for x in 0..<nw {
                    for (sy, ky) in wy[y] {
                        for (sx, kx) in wx[x] {
                            for c in 0..<4 { next[(y * nw + x) * 4 + c] += ky * kx * level[(sy * lw + sx) * 4 + c] }
                        }
                    }
                }
            }
            (level, lw, lh) = (next, nw, nh)
            let texels = level.enumerated().map { i, v in
                UInt8(max(0, min(255, ((i % 4 == 3 ? v : encoded(v)) * 255).rounded())))
            }
            out.append((nw, nh, texels))
        }
        return out
    }

    @Test(arguments: ["bc7", "rgba8"])
    func ktx2LayersAreTheirBoxChainsLevelByLevel(format: String) throws {
        if format == "bc7" && !Reference.use(BlockReference.hasDecoder) { return }
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
        let chains = try order.map { name -> [(w: Int, h: Int, texels: [UInt8])] in
            let png = try ImageDecoder.decode(Self.contents(t, "layers/\(name).png"), path: name)
            guard case .rgba8(let p) = png.pixels else { throw CodecError("not 8-bit") }
            return Self.boxChain(p, 20, 12)
        }
        #expect(array.levelCount == 5)  // 20×12, 10×6, 5×3, 2×1, 1×1
        for n in 0..<min(Int(array.levelCount), 5) {
            let data = array.levelData(n)
            let size = data.count / 3
            for k in 0..<3 {
                let (w, h, expected) = chains[k][n]
                let blocks = Array(data[(k * size)..<((k + 1) * size)])
                if format == "rgba8" {
                    let off = zip(blocks, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
                    #expect(blocks.count == expected.count && off <= 1, "level \(n) layer \(k): off by \(off)")
                } else {
                    // BC7: its own layer's chain, and no other's.
                    let decoded = try BlockReference.reference(blocks, .bc7, w, h)
                    let own = psnr(expected, decoded)
                    #expect(own >= 20, "level \(n) layer \(k): \(own) dB")  // a random channel: BC7 loses much
                    for other in 0..<3 where other != k && n < 2 {
                        #expect(psnr(chains[other][n].texels, decoded) < own - 3, "level \(n) layer \(k) ≠ \(other)")
                    }
                }
            }
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
