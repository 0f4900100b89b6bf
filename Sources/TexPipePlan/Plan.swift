internal import Foundation
public import TexPipeFormats
public import TexPipeManifest
public import TexPipeParameters
public import TexPipePixels
public import TexPipeStages

/// One output file a job will write.
public struct PlannedOutput: Sendable, Hashable {
    /// Absolute path.
    public var path: String
    /// Path relative to the output root (`cards/ace.png`).
    public var relative: String
    public var format: ImageFormat
    /// Images this output takes: a GPU texture's mip levels (`layout: "texture"`); 1 otherwise.
    public var levels = 1
    /// An atlas's metadata (JSON hash, libGDX), not an image.
    public var isData = false
    /// One face (0…5, +X … −Z) of a cube map written as six image files (`_face{face}`).
    public var face: Int?
    /// A file a stage made beside the image before it (`irradiance`'s `_sh.json`): its suffix.
    public var sidecar: String?
    /// A texture a GLB model embeds: written under `.texpipe/gltf/` for the model's rewrite to read,
    /// not under the output root.
    public var intermediate = false

    public init(path: String, relative: String, format: ImageFormat, levels: Int = 1) {
        self.path = path
        self.relative = relative
        self.format = format
        self.levels = levels
    }

    /// A recorded output (relative to the root) as the plan would name it: an image by its
    /// extension, or an atlas's data (`.json`, `.atlas`).
    public static func named(_ relative: String, root: String) -> PlannedOutput {
        let ext = PathText.pathExtension(relative).lowercased()
        var out = PlannedOutput(
            path: root + "/" + relative, relative: relative, format: ImageFormat(path: relative) ?? .png)
        out.isData = ext == "json" || ext == "atlas"
        return out
    }

    /// The same output as PNG: a data map (an alpha map) is never written lossy.
    func asPNG() -> PlannedOutput {
        func swap(_ p: String) -> String { PathText.deletingExtension(p) + ".png" }
        return PlannedOutput(path: swap(path), relative: swap(relative), format: .png, levels: levels)
    }
}

/// One unit of work: an input file × a variant through a pipeline's stages.
public struct Job: Sendable {
    public var index: Int
    public var pipeline: String
    /// Absolute path of the input, and the form shown to the user.
    public var input: String
    public var inputDisplay: String
    public var variant: String?
    public var stages: [any Stage]
    public var outputs: [PlannedOutput]
    public var template: String
    public var placeholders: [String: String]
    public var inputAlpha: AlphaState
    public var png: PNGSettings
    public var jpeg: JPEGSettings
    /// What `.ktx2` / `.dds` outputs hold.
    public var texture: TextureSettings = .standard
    /// The pipeline's gates; nil when it has none.
    public var check: CheckSettings?
    /// The total this job's outputs count toward (`maxTotalBytes`, `maxGPUBytes`): the pipeline's
    /// name, or `pipeline [variant]` when the budget comes from a variant key.
    public var budget = ""
    /// A failure already known at plan time (e.g. a crop outside this input's size):
    /// the job fails with it when run, without stopping the others.
    public var failure: String?
    public var failureStage: String?
    /// Every file the job reads: the input, then what its stages read (alpha maps, layer images,
    /// masks, font files), each once, in stage order. Its bytes are the job's cache key.
    public var reads: [String]
    /// The fonts the stages named, found when planning (`Resource.font` spec → face).
    public var fonts: [String: FontFace]
    /// Set for an atlas pipeline's one job: its sprites (`input` is the first), and how pages are
    /// named. Its page outputs are known once it has packed; `outputs` lists page 0's.
    public var atlas: AtlasPlan?
    /// Set for an array pipeline's one job: its layers in order (`input` is the first's), each
    /// with its stages; `outputs` are the texture and its layer index (JSON).
    public var layers: [AtlasInput]?
    /// Its texture outputs are normal maps (a `mipmaps` with `normals: true`, a glTF normal role, or
    /// a `maxNormalError` gate): their levels are measured by the angle between normals.
    public var normalMap = false
    /// Set for a volume: a volume pipeline's one job (its `layers` are the depth slices, with the
    /// stages before `mipmaps`), or a `.cube` LUT's job. docs/gpu-textures.md "Volume textures".
    public var volume: VolumePlan?
    /// The input's pixels (width × height from its header; 0 when unreadable): the work a shard
    /// is balanced by.
    public var pixels: Int = 0
    /// A glTF texture job's image when the model embeds it (a GLB's buffer view, a `data:` URI):
    /// its bytes, read when planning, and the name its digest goes by in the key.
    public var embedded: (name: String, bytes: [UInt8])?
    /// The jobs (plan indices) that must finish first: a model's rewrite waits for its textures.
    public var after: [Int] = []
    /// Set for a gltf pipeline's model job: what its rewrite needs.
    public var model: ModelPlan?
    /// A glTF texture job with a fallback: level 0 is also written as the plain image.
    public var plainCopy = false
    /// A glTF texture job: its model (absolute) and which image in which roles (`images[2] (normal)`),
    /// how reports name it under its model.
    public var modelTexture: (model: String, image: String)?
    /// Stable identity across runs: pipeline, input relative to the manifest, variant.
    public var id: String
    /// Every resolved parameter in canonical form (stages, settings, outputs).
    public var parameters: String

}

/// How a volume job finishes: the chain of its assembled slices (nil: level 0 only), and
/// whether its input is a `.cube` LUT (whose slices come from the file, not from images).
public struct VolumePlan: Sendable {
    public var mipmaps: Mipmaps?
    public var lut = false

    public init(mipmaps: Mipmaps?, lut: Bool = false) {
        self.mipmaps = mipmaps
        self.lut = lut
    }
}

/// A gltf pipeline's model job (docs/gltf.md): its rewrite reads the model again and the files its
/// texture jobs wrote.
public struct ModelPlan: Sendable {
    public var binary: Bool
    public var fallback: Bool
    /// The output's file name without its extension.
    public var stem: String
    /// Per texture of the model's layout, in its order.
    public var textures: [Texture]

    public struct Texture: Sendable {
        /// The KTX2 and the plain image (PNG or JPEG) its job writes: absolute paths.
        public var basisu: String?
        public var plain: String?
        /// The job (plan index) and how messages name it: `images[2] (normal)`.
        public var job: Int
        public var display: String
    }
}

public struct Plan: Sendable {
    public var manifest: Manifest
    public var jobs: [Job]
    /// Problems that do not stop the run (a `distinct` pair with severity "warning").
    public var warnings: [Diagnostic] = []
}

public struct PlanOptions: Sendable {
    /// Only these pipelines (all when empty).
    public var pipelines: [String] = []
    /// Only these variants' jobs (all when empty): `--variant`, a platform per CI machine.
    public var variants: [String] = []
    /// Sizes of inputs whose file has not changed since a run recorded them (the engine's index):
    /// the plan then needs no open and read per input.
    public var shapes: (any ShapeMemory)?
    /// Inputs per slice planned on a core of its own (tests lower it to exercise the slicing).
    package var inputsPerSlice = 2000
    public init(pipelines: [String] = [], variants: [String] = [], shapes: (any ShapeMemory)? = nil) {
        self.pipelines = pipelines
        self.variants = variants
        self.shapes = shapes
    }
}

/// What the planner needs of an image's header.
public struct ImageShape: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// 8 or 16: the depth the decoder produces.
    public var depth: Int
    public init(width: Int, height: Int, depth: Int) {
        self.width = width
        self.height = height
        self.depth = depth
    }
}

/// Remembers input shapes by the file's stat (size, mtime, ctime, inode): a file whose stat is
/// unchanged is not read again.
public protocol ShapeMemory: Sendable {
    /// The shape recorded for `path` while its stat is `status`; nil when unknown or changed.
    func shape(of path: String, stamp: FileStamp) -> ImageShape?
    /// Records a shape read from `path` while its stat was `status`, at `time` (ns, realtime).
    func remember(_ shape: ImageShape, of path: String, stamp: FileStamp, at time: Int64)
}
