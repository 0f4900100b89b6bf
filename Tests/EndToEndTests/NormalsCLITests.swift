import Foundation
import Testing
import TexPipe

/// The normal stages through the built binary (docs/stages.md "Normal maps"): the same bytes at any
/// `--jobs`; and in glTF models, roughness from normals on by default and `flipY` for DirectX maps
/// (docs/gltf.md), every KTX2 through the Basis Universal transcoder.
@Suite("normal maps end to end", .serialized)
struct NormalsCLITests {
    static let manifest = #"""
        {"version": 1, "output": "out", "pipelines": [
          {"name": "h", "inputs": ["heights/*.png"], "output": "{file}_normal.png",
           "stages": [{"stage": "normal-from-height", "strength": 6, "edge": "wrap"}]},
          {"name": "d", "inputs": ["normals/*.png"], "output": "{file}_dx.png",
           "stages": [{"stage": "normal-adjust", "flipY": true}]},
          {"name": "b", "inputs": ["heights/*.png"], "output": "{file}_blend.png",
           "stages": [{"stage": "normal-from-height"}, {"stage": "normal-blend", "detail": "normals/cobble_normal.png"}]},
          {"name": "r", "inputs": ["rough/*.png"], "output": "{file}{suffix}.png",
           "stages": [{"stage": "mipmaps", "colorSpace": "linear",
                       "roughnessFrom": {"normals": "normals/cobble_normal.png", "channel": "r"}}]}
        ]}
        """#

    @Test func theSameBytesAtAnyJobs() throws {
        let w = try Workspace()
        for (dir, file) in [
            ("heights", "Samples/heights/rivets.png"), ("normals", "Samples/normals/cobble_normal.png"),
            ("rough", "Samples/materials/metal-plate_rough.png"),
        ] {
            try FileManager.default.createDirectory(atPath: w.path + "/" + dir, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: CLI.packageRoot + "/" + file,
                toPath: w.path + "/" + dir + "/" + (file as NSString).lastPathComponent)
        }
        w.manifest(Self.manifest)
        let one = try CLI.run(["run", "--no-progress", "--jobs", "1"], in: w.path)
        #expect(one.status == 0, "\(one.stderr)")
        let first = w.files(under: "out")
        #expect(first.count == 3 + 8)
        let two = try CLI.run(["run", "--no-progress", "--jobs", "2", "--force"], in: w.path)
        #expect(two.status == 0)
        #expect(w.files(under: "out") == first)
    }

    /// The mean of one channel over a level's texels.
    static func mean(_ level: AtlasCLITests.RGBA, channel: Int) -> Double {
        stride(from: channel, to: level.bytes.count, by: 4).reduce(0.0) { $0 + Double(level.bytes[$1]) }
            / Double(level.width * level.height)
    }

    @Test(EndToEndReference.needs(GLTFTests.available, "python3 pygltflib and opengl_basisu"))
    func modelsRaiseRoughnessFromTheirNormalsAndFlipDirectXMaps() throws {
        let (w, images) = try GLTFTests.workspace()
        w.manifest(
            #"""
            {"version": 1, "output": "out", "pipelines": [
              {"name": "on", "inputs": ["models/quad.gltf"], "output": "on/{file}.gltf", "gltf": {}},
              {"name": "off", "inputs": ["models/quad.gltf"], "output": "off/{file}.gltf",
               "gltf": {"roughnessFromNormals": false}},
              {"name": "dx", "inputs": ["models/quad.gltf"], "output": "dx/{file}.gltf",
               "gltf": {"roughnessFromNormals": false, "roles": {"normal": {"flipY": true}}}}
            ]}
            """#)
        let r = try CLI.run(["run", "--no-progress"], in: w.path)
        #expect(r.status == 0, "\(r.stderr)")
        // The ORM (32×32): level 0 the same; below it rougher (G) with the dome's normals — a
        // little where a texel covers a few nearly parallel normals, clearly once it covers the
        // dome's curve — R and B as they were (within the UASTC round trip).
        let on = try GLTFTests.transcode(w.path + "/out/on/textures/orm.ktx2", sizes: (32, 32)).levels
        let off = try GLTFTests.transcode(w.path + "/out/off/textures/orm.ktx2", sizes: (32, 32)).levels
        #expect(on.count == off.count && on.count == 6)
        #expect(abs(Self.mean(on[0], channel: 1) - Self.mean(off[0], channel: 1)) < 0.5)
        for n in 1..<on.count {
            #expect(Self.mean(on[n], channel: 1) >= Self.mean(off[n], channel: 1) - 0.5, "level \(n)")
            #expect(abs(Self.mean(on[n], channel: 0) - Self.mean(off[n], channel: 0)) < 1.5, "level \(n)")
        }
        #expect(Self.mean(on[5], channel: 1) > Self.mean(off[5], channel: 1) + 2)
        // flipY: the normal map's green mirrored (UASTC's error aside), red and blue kept.
        let bump = images["bump"]!
        let flipped = try GLTFTests.transcode(w.path + "/out/dx/textures/bump map.ktx2", sizes: (32, 32)).levels[0]
        var worst = 0
        for i in stride(from: 0, to: bump.bytes.count, by: 4) {
            worst = max(worst, abs(Int(flipped.bytes[i + 1]) - (255 - Int(bump.bytes[i + 1]))))
            worst = max(worst, abs(Int(flipped.bytes[i]) - Int(bump.bytes[i])))
        }
        #expect(worst <= 12, "\(worst)")
        // Turning it off is a change of the ORM job's parameters alone.
        w.manifest(
            #"{"version": 1, "output": "out", "pipelines": [{"name": "on", "inputs": ["models/quad.gltf"], "output": "on/{file}.gltf", "gltf": {"roughnessFromNormals": false}}]}"#
        )
        let dry = try CLI.run(["run", "--dry-run"], in: w.path)
        #expect(dry.stdout.contains("out/on/textures/orm.ktx2 from models/quad.gltf images[2]"), "\(dry.stdout)")
        #expect(dry.stdout.contains("— parameters changed"))
        #expect(dry.stdout.contains("up to date out/on/textures/paint.ktx2"), "\(dry.stdout)")
        // flipY belongs to normal roles.
        w.manifest(
            #"{"version": 1, "output": "out", "pipelines": [{"name": "x", "inputs": ["models/quad.gltf"], "output": "{file}.glb", "gltf": {"roles": {"color": {"flipY": true}}}}]}"#
        )
        let bad = try CLI.run(["validate", "pipeline.json"], in: w.path)
        #expect(
            bad.status == 2 && bad.stderr.contains("pipelines[0].gltf.roles.color.flipY: flipY turns"), "\(bad.stderr)")
    }

    /// An embedded normal map (`crate.glb#images[N]`) keys its metallicRoughness job by its model:
    /// an untouched model (a new mtime, the same bytes) leaves the job up to date, any change to
    /// the model reruns it, and the jobs of the model's other images (the metal plate's ORM has
    /// no normal map beside it) stay up to date.
    @Test func anEmbeddedNormalMapKeysItsJobByItsModel() throws {
        let t = try Workspace()
        let glb = try Data(contentsOf: URL(fileURLWithPath: CLI.packageRoot + "/Samples/models/crate.glb"))
        let path = t.path + "/models/crate.glb"
        try FileManager.default.createDirectory(atPath: t.path + "/models", withIntermediateDirectories: true)
        try glb.write(to: URL(fileURLWithPath: path))
        t.manifest(
            #"{"version": 1, "output": "out", "pipelines": [{"name": "m", "inputs": ["models/*.glb"], "output": "{file}.glb", "gltf": {"roles": {"metallicRoughness": {"stages": [{"stage": "mipmaps"}], "texture": {"format": "uastc", "quality": "fast"}}}}}]}"#
        )
        let first = try CLI.run(["run", "--no-progress"], in: t.path)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("(metallicRoughness, occlusion)"))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1e9)], ofItemAtPath: path)
        let touched = try CLI.run(["run", "--no-progress"], in: t.path)
        #expect(touched.stdout.contains("6 ok (6 up to date)"), "\(touched.stdout)")
        // The same length, another generator: the model changed, its images did not.
        var edited = [UInt8](glb)
        let needle = Array("make-model".utf8)
        let at = (0...(edited.count - needle.count)).first { Array(edited[$0..<($0 + needle.count)]) == needle }!
        edited.replaceSubrange(at..<(at + needle.count), with: Array("make-modem".utf8))
        try Data(edited).write(to: URL(fileURLWithPath: path))
        let rerun = try CLI.run(["run", "--no-progress"], in: t.path)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        // The stone material has a normal map (cobble) beside its ORM; the metal plate has none.
        let lines = rerun.stdout.split(separator: "\n").map(String.init).filter { $0.contains(" images[") }
        #expect(lines.count == 5, "\(rerun.stdout)")
        for line in lines {
            #expect(line.contains("up to date") == !line.contains("stone_orm"), "\(line)")
        }
    }
}
