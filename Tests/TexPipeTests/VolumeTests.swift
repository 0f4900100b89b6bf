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

/// Volume (3D) textures and `.cube` LUTs (docs/gpu-textures.md "Volume textures", "Colour-grading
/// LUTs"): files read back by the test's own KTX2 and DDS readers (written from the
/// specifications), LUT texels against the entries as the test parses them, each mip level against
/// the box of the level above as the test computes it, BC slices through texture2ddecoder.
@Suite("volume textures and LUTs")
struct VolumeTests {
    static func contents(_ t: TempDir, _ path: String) -> [UInt8] {
        Array(FileManager.default.contents(atPath: t.path + "/" + path) ?? Data())
    }

    static func run(_ t: TempDir, _ pipelines: String) throws -> [JobResult] {
        let plan = try t.plan(#"{ "version": 1, "output": "out", "pipelines": [ "# + pipelines + " ] }").get()
        return Runner.run(plan, RunOptions(jobs: 2))
    }

    // MARK: .cube LUTs

    /// A 3³ LUT in every number form the format allows, with a title, comments, blank lines, a
    /// domain and CRLF line ends.
    static let entries: [String] = [
        "0 0 0", "0.5 0 0", "1 0 0", "0 .25 0", "0.5 0.25 0", "1.0 0.25 0.0", "0 1 0", "+0.5 1 0", "1 1 0",
        "0 0 0.5", "0.125 0.0625 0.5", "1 0 0.5", "0 0.5 0.5", "0.5 0.5 0.5", "1 0.5 0.5", "0 1 0.5",
        "0.5 1 0.5", "1 1 0.5", "0 0 1", "5e-1 0 1", "1 0 1", "2.5E-1 0.75 1", "0.3 0.6 0.9", "1 0.5 1",
        "-0.25 1 1", "0.5 1 1.5", "6.103515625e-05 0.999 1",
    ]

    static var lutText: String {
        (["# a hand-made LUT", "TITLE \"Hand made\"", "", "LUT_3D_SIZE 3", "DOMAIN_MIN 0 0 0", "DOMAIN_MAX 1 1 1", ""]
            + entries).joined(separator: "\r\n") + "\r\n"
    }

    /// The entry at (x red, y green, z blue): line x + 3·y + 9·z of the table, parsed here.
    static func entry(_ x: Int, _ y: Int, _ z: Int) -> [Double] {
        entries[x + 3 * y + 9 * z].split(separator: " ").map { Double(String($0))! }
    }

    @Test func aLUTsTexelsAreItsEntries() throws {
        let t = TempDir()
        t.write("luts/hand.cube", text: Self.lutText)
        let results = try Self.run(
            t,
            """
            { "name": "half", "inputs": ["luts/*.cube"], "stages": [], "output": "{file}.ktx2",
              "texture": { "format": "rgba16f" } },
            { "name": "bytes", "inputs": ["luts/*.cube"], "stages": [], "output": "{file}.dds",
              "texture": { "format": "rgba8" } }
            """)
        #expect(results.allSatisfy { $0.status == .ok }, "\(results.compactMap(\.error))")
        // rgba16f: each value as a half float (via Float, as texels are held), alpha 1.
        let k = try #require(KTX2File(Self.contents(t, "out/hand.ktx2")))
        #expect(k.vkFormat == 97 && k.typeSize == 2 && k.levelCount == 1)
        #expect(k.pixelWidth == 3 && k.pixelHeight == 3 && k.pixelDepth == 3 && k.layerCount == 0 && k.faceCount == 1)
        #expect(k.transferFunction == 1)
        var halves: [UInt8] = []
        var bytes: [UInt8] = []
        for z in 0..<3 {
            for y in 0..<3 {
                for x in 0..<3 {
                    let e = Self.entry(x, y, z)
                    for v in e + [1] {
                        let h = Float16(Float(v)).bitPattern
                        halves += [UInt8(h & 0xFF), UInt8(h >> 8)]
                    }
                    bytes += e.map { UInt8((min(max($0, 0), 1) * 255).rounded()) } + [255]
                }
            }
        }
        #expect(k.levelData(0) == halves)
        // rgba8 in DDS: rounded and clamped; a LUT is data, so UNORM (28) without a colorSpace.
        let d = try #require(DDSFile(Self.contents(t, "out/hand.dds")))
        #expect(d.dxgiFormat == 28 && d.width == 3 && d.height == 3 && d.depth == 3 && d.mipMapCount == 1)
        #expect(d.flags & 0x80_0000 != 0)  // DDSD_DEPTH
        #expect(d.caps2 == 0x20_0000)  // DDSCAPS2_VOLUME
        #expect(d.caps & 0x8 != 0)  // DDSCAPS_COMPLEX
        #expect(d.resourceDimension == 4 && d.arraySize == 1 && d.miscFlag == 0)  // TEXTURE3D
        #expect(d.miscFlags2 == 3)  // opaque
        #expect(d.data == bytes)
        // inspect describes the LUT and the volume it became.
        #expect(
            try Inspector.describe(path: t.path + "/luts/hand.cube") == """
                \(t.path)/luts/hand.cube: Cube LUT 3×3×3 "Hand made"
                  domain: min 0 0 0, max 1 1 1
                  entries: min -0.25, max 1.5
                  as a texture: a 3×3×3 volume, x red, y green, z blue (rgba8 or rgba16f)
                """)
        let lines = try Inspector.describe(path: t.path + "/out/hand.ktx2").split(separator: "\n")
        #expect(lines.first == "\(t.path)/out/hand.ktx2: KTX2 3×3×3 volume, rgba16f linear, 1 level")
        #expect(lines.contains("  level 0: 3×3×3, 216 bytes"))
    }

    /// Resolve's `LUT_3D_INPUT_RANGE` is a domain; `colorSpace: "srgb"` given for an rgba8 LUT is kept.
    @Test func inputRangeAndAnExplicitColorSpace() throws {
        let lut = try CubeLUT(
            Array("LUT_3D_SIZE 2\nLUT_3D_INPUT_RANGE -0.5 2\n".utf8)
                + Array(repeating: Array("0 0 0\n".utf8), count: 8).flatMap { $0 })
        #expect(lut.domainMin == SIMD3(repeating: -0.5) && lut.domainMax == SIMD3(repeating: 2) && lut.title == nil)
        let t = TempDir()
        t.write("a.cube", text: "LUT_3D_SIZE 2\n" + String(repeating: "0.5 0.5 0.5\n", count: 8))
        let results = try Self.run(
            t,
            #"{ "name": "p", "inputs": ["*.cube"], "stages": [], "output": "{file}.ktx2", "texture": { "format": "rgba8", "colorSpace": "srgb" } }"#
        )
        #expect(results.allSatisfy { $0.status == .ok })
        #expect(KTX2File(Self.contents(t, "out/a.ktx2"))?.vkFormat == 43)  // R8G8B8A8_SRGB
    }

    /// Malformed LUTs: one line each, naming the line where there is one.
    @Test(arguments: [
        (
            "LUT_1D_SIZE 4\n",
            "Cube LUT line 1: a 1D LUT (LUT_1D_SIZE) is not a volume: texpipe reads 3D LUTs (LUT_3D_SIZE)"
        ),
        ("# x\nLUT_3D_SIZE 1\n", "Cube LUT line 2: LUT_3D_SIZE must be one whole number from 2 to 256, found \"1\""),
        ("LUT_3D_SIZE 257\n", "Cube LUT line 1: LUT_3D_SIZE must be one whole number from 2 to 256, found \"257\""),
        ("LUT_3D_SIZE 2.5\n", "Cube LUT line 1: LUT_3D_SIZE must be one whole number from 2 to 256, found \"2.5\""),
        (
            "LUT_3D_SIZE 2\n" + String(repeating: "0 0 0\n", count: 7),
            "Cube LUT: LUT_3D_SIZE 2 needs 8 entries, found 7"
        ),
        (
            "LUT_3D_SIZE 2\n" + String(repeating: "0 0 0\n", count: 9),
            "Cube LUT line 10: more than LUT_3D_SIZE³ = 8 entries"
        ),
        (
            "LUT_3D_SIZE 2\n0 0 0\n0.1 abc 0.3\n",
            "Cube LUT line 3: expected three numbers (r g b), found \"0.1 abc 0.3\""
        ),
        ("LUT_3D_SIZE 2\n0.1 0.2\n", "Cube LUT line 2: expected three numbers (r g b), found \"0.1 0.2\""),
        (
            "LUT_3D_SIZE 2\n0.1 0.2 0.3 0.4\n",
            "Cube LUT line 2: expected three numbers (r g b), found \"0.1 0.2 0.3 0.4\""
        ),
        ("LUT_3D_SIZE 2\nnan 0 0\n", "Cube LUT line 2: expected three numbers (r g b), found \"nan 0 0\""),
        ("LUT_3D_SIZE 2\n1e999 0 0\n", "Cube LUT line 2: expected three numbers (r g b), found \"1e999 0 0\""),
        ("0 0 0\n", "Cube LUT line 1: a table entry before LUT_3D_SIZE"),
        (
            "LUT_3D_SIZE 2\nLUT_SIZE 3\n",
            "Cube LUT line 2: unknown keyword LUT_SIZE (a .cube LUT has TITLE, LUT_3D_SIZE, DOMAIN_MIN, DOMAIN_MAX and LUT_3D_INPUT_RANGE)"
        ),
        (
            "LUT_3D_SIZE 2\n0 0 0\nTITLE \"late\"\n",
            "Cube LUT line 3: TITLE after the table's first entry (keywords come first)"
        ),
        ("TITLE unquoted\n", "Cube LUT line 1: TITLE needs a quoted text (TITLE \"Warm\")"),
        ("LUT_3D_SIZE 2\nDOMAIN_MIN 0 0\n", "Cube LUT line 2: DOMAIN_MIN needs three numbers (r g b)"),
        (
            "LUT_3D_SIZE 2\nDOMAIN_MIN 1 0 0\nDOMAIN_MAX 0.5 1 1\n" + String(repeating: "0 0 0\n", count: 8),
            "Cube LUT: DOMAIN_MIN must be below DOMAIN_MAX in every channel (red)"
        ),
        ("", "Cube LUT: the file is empty"),
        ("# only a comment\n", "Cube LUT: no LUT_3D_SIZE (not a 3D .cube LUT)"),
    ])
    func malformedLUTsAreOneLineErrors(_ text: String, _ message: String) {
        #expect(throws: CodecError(message)) { try CubeLUT(Array(text.utf8)) }
    }

    /// A bad LUT fails its job with the line, and the others run.
    @Test func aBadLUTFailsOnlyItsJob() throws {
        let t = TempDir()
        t.write("luts/bad.cube", text: "LUT_3D_SIZE 2\n0 0 x\n")
        t.write("luts/good.cube", text: "LUT_3D_SIZE 2\n" + String(repeating: "0.25 0.5 1\n", count: 8))
        let results = try Self.run(
            t,
            #"{ "name": "p", "inputs": ["luts/*.cube"], "stages": [], "output": "{file}.ktx2", "texture": { "format": "rgba16f" } }"#
        )
        let bad = try #require(results.first { $0.status == .failed })
        #expect(bad.error?.contains("luts/bad.cube") == true)
        #expect(
            bad.error?.contains("Cube LUT line 2: expected three numbers (r g b), found \"0 0 x\"") == true,
            "\(bad.error ?? "")")
        #expect(results.filter { $0.status == .ok }.count == 1)
        #expect(KTX2File(Self.contents(t, "out/good.ktx2"))?.pixelDepth == 2)
        #expect(!FileManager.default.fileExists(atPath: t.path + "/out/bad.ktx2"))
    }

    // MARK: Volume pipelines and their chains

    /// sRGB as its standard defines it.
    static func toLinear(_ c: Double) -> Double { c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
    static func toSRGB(_ l: Double) -> Double { l <= 0.003_130_8 ? l * 12.92 : 1.055 * pow(l, 1 / 2.4) - 0.055 }

    /// A box from `s` texels to `d` along one axis: target i covers [i·s/d, (i + 1)·s/d), each source
    /// texel weighted by how much of it that interval holds, over s/d.
    static func box(_ s: Int, _ d: Int) -> [[(Int, Double)]] {
        let r = Double(s) / Double(d)
        return (0..<d).map { i in
            (0..<s).compactMap { j in
                let overlap = min(Double(i + 1) * r, Double(j + 1)) - max(Double(i) * r, Double(j))
                return overlap > 1e-12 ? (j, overlap / r) : nil
            }
        }
    }

    /// Level n of an sRGB rgba8 volume is the box of level n − 1 over 2×2×2 (odd sides by area), in
    /// linear light with each texel weighted by its alpha — computed here from level n − 1 as the
    /// file stores it, to within one step of rounding.
    @Test func eachLevelIsTheBoxOfTheLevelAbove() throws {
        let t = TempDir()
        let (w, h, depth) = (7, 5, 6)
        var r = SeededRandom(seed: 5)
        for z in 0..<depth {
            var samples: [Int] = []
            for _ in 0..<(w * h) {
                let a = [0, 255, 255, r.int(1...254)][r.int(0...3)]
                samples += [r.int(0...255), r.int(0...255), r.int(0...255), a]
            }
            t.write(
                "slices/s\(z).png",
                ReferencePNG.encode(.init(width: w, height: h, colorType: 6, bitDepth: 8, samples: samples)))
        }
        let results = try Self.run(
            t,
            #"{ "name": "v", "inputs": ["slices/*.png"], "volume": {}, "stages": [{ "stage": "mipmaps" }], "output": "v.ktx2" }"#
        )
        #expect(results.allSatisfy { $0.status == .ok }, "\(results.compactMap(\.error))")
        let k = try #require(KTX2File(Self.contents(t, "out/v.ktx2")))
        // 7×5×6 → 3×2×3 → 1×1×1.
        #expect(k.vkFormat == 43 && k.pixelDepth == 6 && k.levelCount == 3)
        #expect(k.levels.map { Int($0.byteLength) } == [7 * 5 * 6 * 4, 3 * 2 * 3 * 4, 4])
        // Slice order: name order, slice z at z·w·h·4 of level 0.
        #expect(
            Array(k.levelData(0)[(2 * w * h * 4)..<(3 * w * h * 4)]) == Array(Self.decodedSlice(t, "slices/s2.png")))
        var sizes = [(w, h, depth)]
        while sizes.count < 3 { let s = sizes.last!; sizes.append((max(1, s.0 / 2), max(1, s.1 / 2), max(1, s.2 / 2))) }
        for n in 1..<3 {
            let (sw, sh, sd) = sizes[n - 1]
            let (dw, dh, dd) = sizes[n]
            let above = k.levelData(n - 1)
            let level = k.levelData(n)
            let (bx, by, bz) = (Self.box(sw, dw), Self.box(sh, dh), Self.box(sd, dd))
            var worst = 0
            for z in 0..<dd {
                for y in 0..<dh {
                    for x in 0..<dw {
                        var sum = [0.0, 0, 0, 0]
                        for (sz, wz) in bz[z] {
                            for (sy, wy) in by[y] {
                                for (sx, wx) in bx[x] {
                                    let i = ((sz * sh + sy) * sw + sx) * 4
                                    let weight = wx * wy * wz
                                    let a = Double(above[i + 3]) / 255
                                    for c in 0..<3 { sum[c] += weight * a * Self.toLinear(Double(above[i + c]) / 255) }
                                    sum[3] += weight * a
                                }
                            }
                        }
                        let o = ((z * dh + y) * dw + x) * 4
                        let alpha = Int((sum[3] * 255).rounded())
                        worst = max(worst, abs(Int(level[o + 3]) - alpha))
                        guard sum[3] > 0 else {
                            #expect(level[o..<(o + 3)].allSatisfy { $0 == 0 }, "transparent texel's colour is 0")
                            continue
                        }
                        for c in 0..<3 {
                            let expected = Int((Self.toSRGB(sum[c] / sum[3]) * 255).rounded())
                            worst = max(worst, abs(Int(level[o + c]) - expected))
                        }
                    }
                }
            }
            #expect(worst <= 1, "level \(n): off by \(worst)")
        }
    }

    static func decodedSlice(_ t: TempDir, _ path: String) -> [UInt8] {
        (try? TextureEncoder.rgba8(ImageDecoder.decode(t.read(path), pngReader: .libpng))) ?? []
    }

    /// BC slices of a volume in DDS: each level's slices follow one another, each one 2D blocks that
    /// texture2ddecoder decodes to its own input; the header is a TEXTURE3D's.
    @Test(Reference.needs(BlockReference.hasDecoder, "python3 texture2ddecoder"))
    func bcSlicesDecodeToTheirInputs() throws {
        let t = TempDir()
        let (w, h) = (6, 5)
        let colors = [[200, 30, 40], [20, 180, 60], [30, 40, 220]]
        for (z, c) in colors.enumerated() {
            var samples: [Int] = []
            for i in 0..<(w * h) { samples += [c[0] + i % 3, c[1], c[2] - i % 5, 255] }
            t.write(
                "s/\(z).png",
                ReferencePNG.encode(.init(width: w, height: h, colorType: 6, bitDepth: 8, samples: samples)))
        }
        let results = try Self.run(
            t,
            #"{ "name": "v", "inputs": ["s/*.png"], "volume": {}, "stages": [{ "stage": "mipmaps", "colorSpace": "linear" }], "output": "v.dds", "texture": { "format": "bc1" } }"#
        )
        #expect(results.allSatisfy { $0.status == .ok }, "\(results.compactMap(\.error))")
        let d = try #require(DDSFile(Self.contents(t, "out/v.dds")))
        #expect(d.dxgiFormat == 72 && d.depth == 3 && d.mipMapCount == 3 && d.resourceDimension == 4)
        #expect(d.flags & 0x80_0000 != 0 && d.caps2 == 0x20_0000 && d.pitchOrLinearSize == 2 * 2 * 8)
        // 6×5×3: 2×2 blocks per slice; 3×2×1: one; 1×1×1: one.
        #expect(d.data.count == 2 * 2 * 8 * 3 + 8 + 8)
        for z in 0..<3 {
            let blocks = Array(d.data[(z * 32)..<((z + 1) * 32)])
            let decoded = try BlockReference.reference(blocks, .bc1, w, h)
            #expect(psnr(Self.decodedSlice(t, "s/\(z).png"), decoded) > 35, "slice \(z)")
        }
        // The KTX2 reader of texpipe (inspect) agrees.
        let facts = try Inspector.facts(path: t.path + "/out/v.dds")
        #expect(facts.texture?.depth == 3 && facts.texture?.levels.map(\.depth) == [3, 1, 1])
    }

    /// `volume.size` resizes each slice; without it an odd slice fails the job, naming it.
    @Test func slicesMustShareASize() throws {
        let t = TempDir()
        t.write(
            "s/a.png",
            ReferencePNG.encode(
                .init(width: 4, height: 4, colorType: 6, bitDepth: 8, samples: Array(repeating: 9, count: 64))))
        t.write(
            "s/b.png",
            ReferencePNG.encode(
                .init(width: 4, height: 2, colorType: 6, bitDepth: 8, samples: Array(repeating: 9, count: 32))))
        let odd = try Self.run(
            t, #"{ "name": "v", "inputs": ["s/*.png"], "volume": {}, "stages": [], "output": "v.ktx2" }"#)
        #expect(
            odd.first?.error?.contains(
                "slice \"b\" is 4×2 but the first slice is 4×4; every slice needs the first's size (or give \"size\": [w, h])"
            )
                == true, "\(odd.first?.error ?? "")")
        let sized = try Self.run(
            t,
            #"{ "name": "v", "inputs": ["s/*.png"], "volume": { "size": [8, 8] }, "stages": [], "output": "v.ktx2" }"#)
        #expect(sized.first?.status == .ok)
        let k = try #require(KTX2File(Self.contents(t, "out/v.ktx2")))
        #expect(k.pixelWidth == 8 && k.pixelHeight == 8 && k.pixelDepth == 2)
    }

    // MARK: The manifest's and the planner's rules

    @Test func whatAVolumeCannotDoIsAManifestError() throws {
        let t = TempDir()
        t.write(
            "s/a.png",
            ReferencePNG.encode(
                .init(width: 4, height: 4, colorType: 6, bitDepth: 8, samples: Array(repeating: 9, count: 64))))
        t.write("l/a.cube", text: "LUT_3D_SIZE 2\n" + String(repeating: "0 0 0\n", count: 8))
        let at = "error: $T/pipeline.json: "
        func errors(_ pipeline: String) -> [String] {
            t.errors(#"{ "version": 1, "output": "out", "pipelines": [ "# + pipeline + " ] }")
        }
        #expect(
            errors(
                #"{ "name": "v", "inputs": ["s/*.png"], "volume": {}, "stages": [], "output": "v.ktx2", "texture": { "format": "astc-4x4" } }"#
            )
                == [
                    at
                        + "pipelines[0].texture.format: astc-4x4 cannot hold a volume: its slices must be texels or 2D blocks a 3D texture takes (use rgba8, bc1, bc3, bc4, bc5, bc7, bc6h or rgba16f)"
                ])
        #expect(
            errors(
                #"{ "name": "v", "inputs": ["s/*.png"], "volume": {}, "stages": [{ "stage": "mipmaps" }, { "stage": "flip", "axis": "both" }], "output": "v.ktx2" }"#
            )
                == [
                    at
                        + "pipelines[0].stages[1]: flip after mipmaps in a volume: the stages before mipmaps run on each slice and mipmaps on the whole volume, so it must be the last stage (move flip before it)"
                ])
        #expect(
            errors(
                #"{ "name": "v", "inputs": ["s/*.png"], "volume": {}, "stages": [{ "stage": "mipmaps", "filter": "kaiser" }], "output": "v.ktx2" }"#
            )
                == [
                    at
                        + "pipelines[0].stages[0].filter: a volume's mipmaps are a 2×2×2 box with levels, minSize and colorSpace: \"filter\" does not apply to it (remove it)"
                ])
        #expect(
            errors(
                #"{ "name": "v", "inputs": ["s/*.png"], "volume": {}, "array": {}, "stages": [], "output": "v.ktx2" }"#)
                == [at + "pipelines[0].volume: a pipeline is an array or a volume, not both"])
        #expect(
            errors(#"{ "name": "v", "inputs": ["s/*.png"], "volume": {}, "stages": [], "output": "v.png" }"#)
                == [
                    at
                        + "pipelines[0].volume: a volume is one texture: its output must end in .ktx2 or .dds, not \"v.png\""
                ])
        #expect(
            errors(
                #"{ "name": "l", "inputs": ["l/*.cube"], "stages": [{ "stage": "flip", "axis": "both" }], "output": "{file}.ktx2" }"#
            )
                == [
                    at
                        + "pipelines[0].stages[0]: flip does not apply to a .cube LUT: a LUT is a volume of colour data, and only a last \"mipmaps\" (a box) may follow it (give LUTs their own pipeline) (l/a.cube)"
                ])
        #expect(
            errors(#"{ "name": "l", "inputs": ["l/*.cube"], "stages": [], "output": "{file}.png" }"#)
                == [
                    at
                        + "pipelines[0].output: a .cube LUT is a volume texture: its output must end in .ktx2 or .dds, not \"a.png\" (l/a.cube)"
                ])
        #expect(
            errors(
                #"{ "name": "l", "inputs": ["l/*.cube"], "stages": [], "output": "{file}.ktx2", "texture": { "format": "bc7" } }"#
            )
                == [
                    at
                        + "pipelines[0].texture.format: a .cube LUT is written as rgba8 (rounded) or rgba16f (its values kept), not bc7 (l/a.cube)"
                ])
        // What a volume and a LUT can do plans cleanly.
        #expect(
            errors(
                #"{ "name": "v", "inputs": ["s/*.png"], "volume": {}, "stages": [{ "stage": "flip", "axis": "both" }, { "stage": "mipmaps", "levels": 2, "colorSpace": "linear" }], "output": "v.dds", "texture": { "format": "bc7" } }, { "name": "l", "inputs": ["l/*.cube"], "stages": [{ "stage": "mipmaps" }], "output": "{file}.dds", "texture": { "format": "rgba16f" } }"#
            ) == [])
    }

    // MARK: inspect and the pictures

    /// A volume's picture is a strip of up to eight of its slices, evenly spaced, first and last
    /// included, a texel apart.
    @Test func aVolumesPreviewIsAStripOfSlices() throws {
        #expect(Preview.picks(32) == [0, 4, 9, 13, 18, 22, 27, 31])
        #expect(Preview.picks(5) == [0, 1, 2, 3, 4])
        let t = TempDir()
        t.write("l/a.cube", text: "LUT_3D_SIZE 12\n" + String(repeating: "0.5 0.25 1\n", count: 12 * 12 * 12))
        let results = try Self.run(
            t, #"{ "name": "l", "inputs": ["l/*.cube"], "stages": [{ "stage": "mipmaps" }], "output": "{file}.ktx2" }"#)
        #expect(results.allSatisfy { $0.status == .ok })
        let picture = try Preview.picture(path: t.path + "/out/a.ktx2")
        #expect(picture.width == 8 * 12 + 7 && picture.height == 12)
        #expect(picture.pixel(0, 0) == [128, 64, 255, 255] && picture.pixel(12, 0) == [0, 0, 0, 0])
        let k = try #require(KTX2File(Self.contents(t, "out/a.ktx2")))
        // 12³ → 6³ → 3³ → 1³: a constant LUT stays constant down the chain.
        #expect(k.levelCount == 4 && k.levelData(3) == [128, 64, 255, 255])
        let text = try Inspector.describe(path: t.path + "/out/a.ktx2")
        #expect(
            text.contains("KTX2 12×12×12 volume, rgba8 linear, 4 levels")
                && text.contains("  level 2: 3×3×3, 108 bytes"))
    }
}
