internal import Foundation
public import TexPipeParameters
public import TexPipePixels
public import TexPipeStages

/// `pipeline.json`, checked: every structural problem is collected with its JSON path.
/// Stage parameters that hold placeholders are type-checked per job by the planner. docs/manifest.md.
public struct Manifest: Sendable {
    /// The manifest path as the user gave it (used in messages).
    public var file: String
    /// Absolute folder of the manifest; every manifest path is relative to it.
    public var directory: String
    /// The output root as written (`build`) and resolved to an absolute path.
    public var output: String
    public var outputRoot: String
    public var pipelines: [PipelineSpec]
    /// Problems found while reading; the planner adds its own and reports them all at once.
    public var diagnostics: [Diagnostic] = []

    public static let builtinPlaceholders = [
        "path", "dir", "file", "ext", "pipeline", "variant", "suffix", "level", "face",
    ]
    /// What an atlas template may not name (no single input) and what only it may (docs/atlases.md).
    public static let perInputPlaceholders = ["path", "dir", "file", "ext"]
    static let topKeys = ["$schema", "version", "output", "pipelines"]
    static let pipelineKeys = [
        "name", "inputs", "exclude", "variants", "distinct", "stages", "output", "inputAlpha", "png", "jpeg",
        "webp", "avif", "texture", "atlas", "pageStages", "check", "array", "volume", "gltf",
    ]
    public static let defaultTemplate = "{pipeline}/{path}/{file}{suffix}.png"
    /// A gltf pipeline's: the model as a GLB.
    public static let defaultModelTemplate = "{pipeline}/{path}/{file}.glb"
    public static let defaultAtlasTemplate = "{pipeline}{page}{suffix}.png"
}

public struct PipelineSpec: Sendable {
    public var index: Int
    public var name: String
    public var path: JSONPath
    public var inputs: [String]
    public var exclude: [String]
    public var variants: [Variant]?
    public var stages: [StageSpec]
    public var output: String
    public var inputAlpha: AlphaState
    /// Each image file kind's settings object as given (`png`, `jpeg`, `webp`, `avif`), by
    /// `ImageFileSettings.tables`' key; absent: not given.
    public var files: [String: JSONObject]
    public var texture: JSONObject
    /// The `check` gates, decoded per job (a budget may come from a variant: `"{budget}"`).
    public var check = JSONObject()
    /// False when a stage or setting failed its static check: the planner then still
    /// expands inputs and checks outputs, but builds no stages.
    public var valid: Bool
    /// False when the output template names an unknown placeholder (reported once).
    public var templateValid: Bool
    /// What the pipeline makes of its inputs; the planner switches over it.
    public var kind: PipelineKind

    /// The stages run on each atlas page (none for other kinds).
    public var pageStages: [StageSpec] {
        switch kind {
        case .atlas(let a): a.pageStages
        case .images, .array, .volume, .gltf: []
        }
    }
}

/// What a pipeline makes of its inputs (docs/manifest.md): one job per input, or one job of all of
/// them (an atlas, an array, a volume), or models with their textures.
public enum PipelineKind: Sendable {
    /// One job per input and variant: an image through the stages (a `.cube` LUT input is a
    /// volume by itself).
    case images
    /// The `atlas` object (docs/atlases.md): one job packing all its inputs into pages.
    case atlas(AtlasSpec)
    /// The `array` object (docs/gpu-textures.md "Texture arrays"): one job writing its inputs as
    /// the layers of one texture.
    case array(ArraySpec)
    /// The `volume` object (docs/gpu-textures.md "Volume textures"): one job writing its inputs as
    /// the depth slices of one 3D texture (`order` and `size` as `array`'s).
    case volume(ArraySpec)
    /// The `gltf` object (docs/gltf.md): the inputs are models, each texture processed by its role.
    case gltf(GLTFSpec)

    /// Whether the pipeline's one job takes all its inputs (an atlas, an array, a volume): its
    /// template names no single input.
    public var isGroup: Bool {
        switch self {
        case .atlas, .array, .volume: true
        case .images, .gltf: false
        }
    }
}

/// A pipeline's `atlas` object, as written (its values may hold placeholders, resolved per job), and
/// the stages run on each page.
public struct AtlasSpec: Sendable {
    public var object: JSONObject
    public var pageStages: [StageSpec]
}

public struct StageSpec: Sendable {
    public var type: any Stage.Type
    public var object: JSONObject
    public var path: JSONPath
}

/// One row of a pipeline's variants matrix: a safe `name` and placeholder values.
public struct Variant: Sendable {
    public var name: String
    public var values: [String: String]
}

extension Manifest {
    /// Reads and checks a manifest. Throws `ManifestError` only when there is nothing to
    /// plan (unreadable, not JSON); other problems are in `diagnostics`, so the planner can
    /// add its own and every error is reported in one run.
    public static func load(path: String) throws -> Manifest {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        guard let data = FileManager.default.contents(atPath: absolute) else {
            throw ManifestError([
                Diagnostic(file: path, path: nil, Say.unreadableManifest)
            ])
        }
        return try parse(Array(data), file: path, directory: (absolute as NSString).deletingLastPathComponent)
    }

    /// Checks a manifest given as bytes; `directory` resolves its relative paths.
    public static func parse(_ bytes: [UInt8], file: String, directory: String) throws -> Manifest {
        let json: JSON
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw ManifestError([Diagnostic(file: file, path: nil, Say.invalidJSON(error))])
        }
        var reader = ManifestReader(file: file, directory: directory)
        guard var manifest = reader.read(json) else { throw ManifestError(reader.diagnostics) }
        manifest.diagnostics = reader.diagnostics
        return manifest
    }
}

/// A pipeline's `array` object: the layers' order and size (docs/gpu-textures.md "Texture arrays").
public struct ArraySpec: Sendable {
    /// Globs: inputs the first matches come first (in name order), then the second's…; inputs
    /// none matches last, in name order.
    public var order: [String] = []
    /// nil: every layer must have the first's size; else each layer is resized to it.
    public var size: (width: Int, height: Int)?
}
