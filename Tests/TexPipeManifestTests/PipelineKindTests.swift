import Testing
import TexPipeTestSupport

@testable import TexPipeFormats
@testable import TexPipeManifest
@testable import TexPipeParameters
@testable import TexPipePixels
@testable import TexPipeStages

/// A pipeline's kind is one case (docs/manifest.md): one job per input, or an atlas, an array or a
/// volume of all of them, or models; its objects are checked where they are read.
@Suite("pipeline kinds")
struct PipelineKindTests {
    static func read(_ pipeline: String) throws -> Manifest {
        let text = #"{"version": 1, "pipelines": ["# + pipeline + "]}"
        return try Manifest.parse(Array(text.utf8), file: "m.json", directory: "/nowhere")
    }

    static func kind(_ pipeline: String) throws -> String {
        switch try read(pipeline).pipelines[0].kind {
        case .images: "images"
        case .atlas(let a): "atlas \(a.object.keys.sorted()) page stages \(a.pageStages.map { $0.type.name })"
        case .array(let a): "array order \(a.order)"
        case .volume(let v): "volume size \(v.size.map { "\($0.width)x\($0.height)" } ?? "first")"
        case .gltf(let g): "gltf fallback \(g.fallback) roles \(g.roles.count)"
        }
    }

    @Test func eachObjectMakesItsKind() throws {
        #expect(try Self.kind(#"{"name": "p", "inputs": ["*.png"], "stages": []}"#) == "images")
        #expect(
            try Self.kind(
                #"{"name": "p", "inputs": ["*.png"], "atlas": {"maxSize": 256}, "pageStages": [{"stage": "flip", "axis": "both"}]}"#
            ) == #"atlas ["maxSize"] page stages ["flip"]"#)
        #expect(
            try Self.kind(
                #"{"name": "p", "inputs": ["*.png"], "output": "t.ktx2", "array": {"order": ["a*"]}, "stages": []}"#)
                == #"array order ["a*"]"#)
        #expect(
            try Self.kind(
                #"{"name": "p", "inputs": ["*.png"], "output": "v.ktx2", "volume": {"size": [8, 4]}, "stages": []}"#)
                == "volume size 8x4")
        // Every role filled in from its kind's defaults.
        #expect(
            try Self.kind(#"{"name": "p", "inputs": ["*.glb"], "gltf": {"fallback": true}}"#)
                == "gltf fallback true roles \(GLTFRole.allCases.count)")
    }

    static func errors(_ pipeline: String) -> [String] {
        do {
            return try read(pipeline).diagnostics.map { "\($0.path.map { "\($0)" } ?? ""): \($0.message)" }
        } catch {
            return ["\(error)"]
        }
    }

    /// At most one kind: a second is an error at its key, and the first read stands.
    @Test func twoKindsAreAnErrorAtTheSecond() throws {
        #expect(
            Self.errors(
                #"{"name": "p", "inputs": ["*.png"], "output": "t.ktx2", "array": {}, "volume": {}, "stages": []}"#
            )
            .contains { $0.hasPrefix("pipelines[0].volume:") })
        let both = #"{"name": "p", "inputs": ["*.png"], "output": "t.glb", "atlas": {}, "gltf": {}}"#
        #expect(Self.errors(both).contains { $0.hasPrefix("pipelines[0].gltf:") })
        if case .atlas = try Self.read(both).pipelines[0].kind {} else { Issue.record("the atlas should stand") }
        #expect(
            Self.errors(#"{"name": "p", "inputs": ["*.png"], "pageStages": [], "stages": []}"#)
                .contains { $0.hasPrefix("pipelines[0].pageStages:") })
    }

    /// A volume's chain is made by the stage that declares a volume's parameters (`mipmaps`): nothing
    /// after it, and none of its 2D-only parameters.
    @Test func aVolumesChainStageTakesOnlyAVolumesParameters() throws {
        let errors = Self.errors(
            #"{"name": "p", "inputs": ["*.png"], "output": "v.ktx2", "volume": {}, "stages": [{"stage": "mipmaps", "normals": true}, {"stage": "flip", "axis": "both"}]}"#
        )
        #expect(errors.contains { $0.hasPrefix("pipelines[0].stages[1]:") })
        #expect(errors.contains { $0.hasPrefix("pipelines[0].stages[0].normals:") })
        #expect(Mipmaps.volumeParameters?["filter"] == .some(.string("box")))
        #expect(Flip.volumeParameters == nil)
    }
}
