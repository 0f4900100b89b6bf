import Foundation
import Testing
import TexPipe

/// glTF models with WebP and AVIF (docs/gltf.md "WebP and AVIF"): a role's image output under its
/// extension, a fallback beside a KTX2 with or without the core source, the extensions declared
/// used and required by glTF's rule, models whose images are WebP read again, and every model read
/// back by pygltflib and the structural validator of GLTFTests.
@Suite("glTF with WebP and AVIF", .serialized)
struct GLTFWebTests {
    static let manifest = #"""
        {"version": 1, "output": "out", "pipelines": [
          {"name": "web", "inputs": ["models/quad.gltf"], "output": "web/{file}.gltf",
           "gltf": {"roles": {"color": {"output": "webp"}, "normal": {"output": "avif"},
                              "data": {"output": "webp", "webp": {}}}}},
          {"name": "both", "inputs": ["models/*.gltf", "models/*.glb"], "output": "both/{file}.glb",
           "webp": {"quality": 70},
           "gltf": {"roles": {"color": {"fallback": "webp"}, "normal": {"fallback": "avif", "keepSource": false}}}}
        ]}
        """#

    static func json(_ path: String) throws -> [String: Any] { try GLTFTests.read(path).json }

    @Test(EndToEndReference.needs(GLTFTests.available, "python3 pygltflib and opengl_basisu"))
    func rolesWriteWebImagesUnderTheirExtensions() throws {
        let (w, _) = try GLTFTests.workspace()
        // A role object takes only its own keys: `webp` belongs to the pipeline.
        w.manifest(Self.manifest)
        let bad = try CLI.run(["validate", "pipeline.json"], in: w.path)
        #expect(bad.status == 2 && bad.stderr.contains("pipelines[0].gltf.roles.data"), "\(bad.stderr)")
        w.manifest(Self.manifest.replacingOccurrences(of: #", "webp": {}"#, with: ""))
        let r = try CLI.run(["run", "--no-progress"], in: w.path)
        #expect(r.status == 0, "\(r.stderr)")
        let scratch = w.path + "/scratch"

        // Image outputs only: no core source, each texture's extension required.
        let web = w.path + "/out/web/quad.gltf"
        #expect(try GLTFTests.problems(web) == [])
        let s = try GLTFTests.summary(web, images: scratch + "/web")
        #expect(Set(s.extensionsRequired).isSuperset(of: ["EXT_texture_webp", "EXT_texture_avif"]))
        #expect(!s.extensionsUsed.contains("KHR_texture_basisu"))
        for t in s.textures where t.webp != nil || t.avif != nil {
            #expect(t.source == nil && t.basisu == nil)
            let image = s.images[(t.webp ?? t.avif)!]
            #expect(image.mimeType == (t.webp != nil ? "image/webp" : "image/avif"))
        }
        #expect(s.textures.contains { $0.avif != nil } && s.textures.contains { $0.webp != nil })

        // KTX2 with fallbacks: colour keeps its PNG source (nothing required of it); the normal map
        // drops it (KTX2 and AVIF both required).
        for model in ["quad", "embedded"] {
            let both = w.path + "/out/both/\(model).glb"
            #expect(try GLTFTests.problems(both) == [], "\(model)")
            let b = try GLTFTests.summary(both, images: scratch + "/both-\(model)")
            #expect(
                Set(b.extensionsUsed).isSuperset(of: ["KHR_texture_basisu", "EXT_texture_webp", "EXT_texture_avif"]))
            #expect(Set(b.extensionsRequired) == ["KHR_texture_basisu", "EXT_texture_avif"], "\(b.extensionsRequired)")
            let colour = b.textures.filter { $0.webp != nil }
            #expect(!colour.isEmpty && colour.allSatisfy { $0.source != nil && $0.basisu != nil })
            let normal = b.textures.filter { $0.avif != nil }
            #expect(!normal.isEmpty && normal.allSatisfy { $0.source == nil && $0.basisu != nil })
            // The fallback is level 0 of the same image the KTX2 holds: its size is the KTX2's.
            for t in colour {
                let webp = try ImageDecoder.decode(
                    [UInt8](try Data(contentsOf: URL(fileURLWithPath: scratch + "/both-\(model)/image\(t.webp!)"))))
                let png = try ImageDecoder.decode(
                    [UInt8](try Data(contentsOf: URL(fileURLWithPath: scratch + "/both-\(model)/image\(t.source!)"))))
                #expect(webp.width == png.width && webp.height == png.height)
            }
        }

        // A model whose images are WebP/AVIF only is read like any other: its textures re-encoded.
        w.manifest(
            #"{"version": 1, "output": "again", "pipelines": [{"name": "k", "inputs": ["out/web/quad.gltf"], "output": "{file}.glb", "gltf": {}}]}"#
        )
        let again = try CLI.run(["run", "--no-progress"], in: w.path)
        #expect(again.status == 0, "\(again.stderr)")
        let k = try GLTFTests.summary(w.path + "/again/quad.glb", images: scratch + "/again")
        #expect(k.extensionsUsed.contains("KHR_texture_basisu"))
        #expect(!k.extensionsUsed.contains("EXT_texture_webp") && !k.extensionsUsed.contains("EXT_texture_avif"))
        #expect(try GLTFTests.problems(w.path + "/again/quad.glb") == [])
        // inspect names each image's kind and role.
        let inspect = try CLI.run(["inspect", "out/web/quad.gltf"], in: w.path)
        #expect(inspect.stdout.contains("(baseColor, sheenColor, specularColor): WebP 48×40"), "\(inspect.stdout)")
        #expect(inspect.stdout.contains("(normal): AVIF 32×32"), "\(inspect.stdout)")
    }

    @Test func fallbackAndKeepSourceAreCheckedWhereTheyAreGiven() throws {
        let w = try Workspace()
        w.manifest(
            #"""
            {"version": 1, "output": "out", "pipelines": [
              {"name": "m", "inputs": ["cards/*.png"], "output": "{file}.glb",
               "gltf": {"roles": {"color": {"output": "png", "fallback": "webp"},
                                  "normal": {"keepSource": false}, "data": {"fallback": "gif"}}}}]}
            """#)
        let r = try CLI.run(["validate", "pipeline.json"], in: w.path)
        #expect(r.status == 2)
        #expect(
            r.stderr.contains("pipelines[0].gltf.roles.color.fallback: a fallback goes beside a KTX2"), "\(r.stderr)")
        #expect(r.stderr.contains("pipelines[0].gltf.roles.normal.keepSource: keepSource says whether"))
        #expect(r.stderr.contains("pipelines[0].gltf.roles.data.fallback"))
    }
}
