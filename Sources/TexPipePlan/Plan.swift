internal import Foundation
public import TexPipeFormats
public import TexPipeManifest
public import TexPipeParameters
public import TexPipePixels

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

/// One unit of work: what every job has — its identity, what it reads, writes and is keyed by —
/// and what its kind alone has (`work`). docs/ARCHITECTURE.md "Kinds of job".
public struct Job: Sendable {
    /// Its place in the plan; reports list jobs in this order.
    public var index: Int
    /// Stable identity across runs: pipeline, input relative to the manifest, variant.
    public var id: String
    public var pipeline: String
    public var variant: String?
    /// The file it is named after: its input (an atlas's or array's first, a model).
    public var input: JobInput
    public var outputs: [PlannedOutput]
    /// How its images are written: the pipeline's png, jpeg and texture settings.
    public var encoding: Encoding
    /// The gates its outputs answer to and how they are measured.
    public var quality: JobQuality
    /// Every file the job reads — its own inputs, then what its stages read (alpha maps, layer
    /// images, masks, font files), each once, in stage order — and the fonts found for its stages.
    /// The files' bytes are the job's cache key.
    public var reads: JobReads
    /// A failure already known at plan time (e.g. a crop outside this input's size): the job
    /// fails with it when run, without stopping the others.
    public var failure: PlannedFailure?
    /// Every resolved parameter in canonical form (stages, settings, outputs).
    public var parameters: String
    /// What its kind alone has; every decision by kind switches over it.
    public var work: Work
}

/// The file a job is named after, how messages show it, what its pixels hold and how much work it is.
public struct JobInput: Sendable {
    /// Absolute path.
    public var path: String
    /// As the user sees it (relative to the current folder when below it), or a group's name
    /// (`atlas "deck" (13 sprites)`).
    public var display: String
    /// What the input files hold (`inputAlpha`).
    public var alpha: AlphaState
    /// Input pixels (width × height from the headers; 0 when unreadable): the work a shard is
    /// balanced by and the order jobs start in.
    public var pixels: Int
}

/// How a job's images are written: the pipeline's encoder settings.
public struct Encoding: Sendable {
    /// How image files are written: `png`, `jpeg`, `webp`, `avif`.
    public var files: ImageFileSettings
    /// What `.ktx2` / `.dds` outputs hold.
    public var texture: TextureSettings

    public init(files: ImageFileSettings = ImageFileSettings(), texture: TextureSettings = .standard) {
        self.files = files
        self.texture = texture
    }
}

/// The gates a job's outputs answer to (docs/gpu-textures.md "Checks and budgets").
public struct JobQuality: Sendable {
    /// The pipeline's gates; nil when it has none.
    public var check: CheckSettings?
    /// The total this job's outputs count toward (`maxTotalBytes`, `maxGPUBytes`): the pipeline's
    /// name, or `pipeline [variant]` when the budget comes from a variant key.
    public var budget: String
    /// Its texture outputs are normal maps (a `mipmaps` with `normals: true`, a glTF normal role, or
    /// a `maxNormalError` gate): their levels are measured by the angle between normals.
    public var normalMap: Bool
    /// What a failed gate or an unmet quality target is: the check's `severity`, given even in a
    /// check with no gate (a pipeline whose only measure is its target).
    public var severity: CheckSettings.Severity

    public init(check: CheckSettings? = nil, budget: String, normalMap: Bool = false) {
        self.check = check.flatMap { $0.isEmpty ? nil : $0 }
        self.severity = check?.severity ?? .error
        self.budget = budget
        self.normalMap = normalMap
    }
}

/// What a job reads: files (their bytes are its key) and the fonts its stages use.
public struct JobReads: Sendable {
    /// Every file, its own inputs first (one, or a group's in order), each once.
    public var files: [String]
    /// The fonts the stages named, found when planning (`Resource.font` spec → face).
    public var fonts: [String: FontFace]

    public init(_ files: [String], fonts: [String: FontFace] = [:]) {
        self.files = files
        self.fonts = fonts
    }
}

/// A failure known when planning, and the stage it belongs to.
public struct PlannedFailure: Sendable, Equatable {
    public var message: String
    public var stage: String?

    public init(_ message: String, stage: String?) {
        self.message = message
        self.stage = stage
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
