public import TexPipeStages

/// What a job's kind alone has (docs/ARCHITECTURE.md "Kinds of job"). Each kind's planner and
/// runner are in a folder named after it (`Kinds/Atlas/` here and in the engine), and every
/// decision by kind is a `switch` over this enum: a new kind is a compile error at each place that
/// must handle it.
public enum Work: Sendable {
    /// One input through the stages into its outputs (docs/manifest.md).
    case image(ImagePlan)
    /// An atlas pipeline's one job: its sprites packed into pages (docs/atlases.md).
    case atlas(AtlasPlan)
    /// An array pipeline's one job: its inputs as the layers of one texture (docs/gpu-textures.md
    /// "Texture arrays").
    case array(ArrayPlan)
    /// A volume pipeline's one job: its inputs as the depth slices of one 3D texture
    /// (docs/gpu-textures.md "Volume textures").
    case volume(VolumePlan)
    /// A `.cube` LUT input: a volume by itself (docs/gpu-textures.md "Colour-grading LUTs").
    case lut(LUTPlan)
    /// A glTF model's rewrite, once its textures are written (docs/gltf.md).
    case model(ModelPlan)
    /// One texture of a glTF model: an image in the roles its materials give it (docs/gltf.md).
    case modelTexture(ModelTexturePlan)
}

/// An image job: its stages.
public struct ImagePlan: Sendable {
    public var stages: [any Stage]

    public init(stages: [any Stage]) { self.stages = stages }
}

/// One of the inputs of a job that takes several — an atlas's sprite, an array's layer, a volume's
/// slice: its file, its name (in the metadata, the layer index or messages), and its stages
/// (resolved with its own placeholders).
public struct PartInput: Sendable {
    public var path: String
    public var display: String
    public var name: String
    public var stages: [any Stage]
    public var pixels: Int
    /// A failure known at plan time (a crop outside this part): fails the whole job.
    public var failure: PlannedFailure?
}

extension Work {
    /// The inputs of a job that takes several, in order; nil for one that takes one file.
    public var parts: [PartInput]? {
        switch self {
        case .atlas(let a): a.sprites
        case .array(let a): a.layers
        case .volume(let v): v.slices
        case .image, .lut, .model, .modelTexture: nil
        }
    }

    /// The input's bytes when they came with the plan rather than from a file (an image a model
    /// embeds), and the name their digest goes by in the key.
    public var embedded: (name: String, bytes: [UInt8])? {
        switch self {
        case .modelTexture(let t): t.embedded
        case .image, .atlas, .array, .volume, .lut, .model: nil
        }
    }

    /// Files whose change can change what the job reads without being among its reads: the model
    /// of a texture it embeds (`texpipe watch` reruns the job when one changes).
    public var changesWith: [String] {
        switch self {
        case .modelTexture(let t): [t.model]
        case .image, .atlas, .array, .volume, .lut, .model: []
        }
    }

    /// Whether a path under the output root (`relative`) is one this job could write, for outputs
    /// the plan cannot list (an atlas's pages); a job whose outputs are planned owns only those.
    public func owns(_ relative: String) -> Bool {
        switch self {
        case .atlas(let a): a.owns(relative)
        case .image, .array, .volume, .lut, .model, .modelTexture: false
        }
    }

    /// Whether every output is known when planning; an atlas's pages are known only once it has
    /// packed (its entry lists them).
    public var outputsPlanned: Bool {
        switch self {
        case .atlas: false
        case .image, .array, .volume, .lut, .model, .modelTexture: true
        }
    }

    /// The jobs (plan indices) that must finish first: a model's rewrite waits for its textures.
    public var after: [Int] {
        switch self {
        case .model(let m): m.textures.map(\.job)
        case .image, .atlas, .array, .volume, .lut, .modelTexture: []
        }
    }

    /// The stages a job runs on its one input (none for groups, which run each part's, and for
    /// LUTs and models).
    public var stages: [any Stage] {
        switch self {
        case .image(let i): i.stages
        case .modelTexture(let t): t.stages
        case .atlas, .array, .volume, .lut, .model: []
        }
    }
}
