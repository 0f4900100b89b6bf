public import TexPipeParameters
public import TexPipePixels

/// What a stage knows about an image before any pixel moves: its size (nil when an
/// earlier stage such as `trim` makes it data-dependent), depth, alpha state, layout
/// and the suffix / labels that will name its output. STYLE 3.
public struct Signature: Sendable, Hashable {
    public var width: Int?
    public var height: Int?
    /// 8 or 16 bits per channel; 32 for an HDR image.
    public var depth: Int
    public var alpha: AlphaState
    public var layout: ChannelLayout = .rgba
    public var suffix: String = ""
    public var labels: [String: String] = [:]
    public var lossless = false
    /// Level n of a GPU texture (see `Image.textureLevel`).
    public var textureLevel: Int?
    /// A cube map (see `Image.cube`): `height` is 6 · `width`.
    public var cube = false
    /// The suffixes of the files a stage writes beside this image (`_sh.json`).
    public var sidecars: [String] = []
    /// True after a stage (trim) whose output size depends on the pixels: stages whose outputs
    /// depend on the size (mipmaps) cannot follow it.
    public var dataDependentSize = false

    public init(width: Int?, height: Int?, depth: Int, alpha: AlphaState) {
        self.width = width
        self.height = height
        self.depth = depth
        self.alpha = alpha
    }

    /// An HDR image's signature (depth 32).
    public var isHDR: Bool { depth == 32 }

    public init(of image: Image) {
        self.init(width: image.width, height: image.height, depth: image.depth, alpha: image.alpha)
        layout = image.layout
        suffix = image.suffix
        labels = image.labels
        lossless = image.lossless
        textureLevel = image.textureLevel
        cube = image.cube
        sidecars = image.sidecars.keys.sorted()
    }
}

/// A stage's own error: the engine prefixes the input file and stage name.
public struct StageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One operation of a pipeline. A newcomer adds a stage by writing one file that
/// conforms to this, one line in `StageRegistry`, and one test file (STYLE).
///
/// Stages are pure: images in, images out. A stage that needs another image or a font
/// declares it in `reads`; the planner checks it before anything runs and the engine hands it
/// over decoded, through the context (docs/ARCHITECTURE.md).
public protocol Stage: Sendable {
    /// The manifest name, e.g. `color-key`.
    static var name: String { get }
    /// One line for `texpipe stages`.
    static var summary: String { get }
    /// Every parameter, declared once.
    static var parameters: [Parameter] { get }
    /// Arguments, as manifest JSON, under which the stage gives back an opaque 3×2 image
    /// unchanged (applied `identityApplications` times; declared images are opaque white): the
    /// conformance test every stage passes is derived from the registry and this alone.
    static var identity: String { get }
    static var identityApplications: Int { get }
    /// The 3×2 image (RGBA rows) the identity holds on, when not the conformance test's opaque
    /// picture: a stage that reads or makes normal maps is unchanged only on a normal map.
    static var identityInput: [[Int]]? { get }
    /// Whether the stage is defined on HDR (linear Float) images (docs/hdr.md). The planner refuses
    /// any other stage on an HDR image, naming it, before anything runs.
    static var takesHDR: Bool { get }
    /// Whether the stage is defined on cube maps (`cubemap`'s output); the planner refuses any
    /// other stage on one, naming it.
    static var takesCube: Bool { get }
    /// Whether the stage makes a chain of levels, laid out by its `layout` parameter (one GPU
    /// texture's levels, or images of their own). Writing a `.ktx2`/`.dds`, the planner gives
    /// `layout` the value `texture` when the manifest leaves it out, and reports a texture's levels
    /// sent to an image file at this stage.
    static var makesLevels: Bool { get }
    /// For a stage that can make a volume's chain (`mipmaps`): the parameters a volume pipeline
    /// lets it have, each with the only value it may take (nil: any value). nil: the stage makes no
    /// volume's chain. The manifest checks a volume pipeline's stages against it.
    static var volumeParameters: [String: JSON?]? { get }

    /// Its output is a normal map (`mipmaps` with `normals: true`): a job's outputs are then
    /// measured by the angle between normals, as glTF normal roles and `maxNormalError` mark them.
    var makesNormalMap: Bool { get }
    /// The chain it makes of a volume (a 2×2×2 box over all three sides), when its parameters are a
    /// volume's; nil otherwise. docs/gpu-textures.md "Volume textures".
    var volumeChain: VolumeChain? { get }

    /// Builds the stage from decoded arguments; throws for cross-parameter problems.
    init(_ arguments: Arguments) throws

    /// Maps the input signature to the output signatures, before any pixel is touched.
    /// Throws for anything knowable at plan time (wrong alpha state, rectangle outside).
    func planned(_ input: Signature) throws -> [Signature]

    /// Runs the kernel(s): one image in, one or more out. The context carries the job's limits,
    /// the images and fonts the stage declared in `reads`, the rows scheduler the engine lends
    /// cores through, and a place for notes that go into the job's result.
    func applied(to image: __owned Image, context: inout StageContext) throws -> [Image]

    /// Images and fonts the stage needs besides its input: part of the job's cache key, read and
    /// decoded once per run by the engine.
    var reads: [Resource] { get }
}

/// A file a stage needs besides its input. docs/guarantees.md: part of the job's identity.
public enum Resource: Sendable, Hashable {
    /// An image (absolute path). `label` names it in messages (`layers[2].mask`, `the alpha map`);
    /// with `sameSize`, the planner fails the job when its size differs from the image's there,
    /// adding `hint` to the message.
    case image(path: String, label: String, sameSize: Bool, hint: String = "")
    /// A font: a fontconfig pattern (`DejaVu Sans:bold`) or a font file, relative to `base`.
    case font(spec: String, base: String, label: String)

    public var label: String {
        switch self {
        case .image(_, let label, _, _), .font(_, _, let label): label
        }
    }
}

/// Renders one line of text into coverage; the engine provides FreeType's.
public protocol TextRenderer: Sendable {
    func rendered(_ text: String, font: FontFace, size: Double, outline: Double) throws -> TextBitmap
}

/// What a running stage may know of its job, and what it may tell it.
public struct StageContext: Sendable {
    public var maxPixels: Int
    public var notes: [String] = []
    /// Where row bands run: the engine lends idle cores through it (STYLE 4: kernels compute,
    /// the engine schedules). Serial unless the engine says otherwise.
    public var rows: any RowScheduler = SerialRows()
    /// The engine's memory policy: the largest image (pixels) a stage may hold whole as Float
    /// where it could stream instead (mipmaps' level 0 for the filters that read it per level).
    public var wholeFloatPixels = Int.max
    /// The decoded images of the stages' `Resource.image`s, by absolute path (its bytes: two
    /// files whose names are equal as Strings are two images).
    public var images: [PathKey: Image] = [:]
    /// The fonts of the stages' `Resource.font`s, by spec.
    public var fonts: [String: FontFace] = [:]
    public var text: (any TextRenderer)?

    public init(maxPixels: Int = Image.defaultMaxPixels) { self.maxPixels = maxPixels }

    /// A declared image; the engine loaded it before the stage ran.
    public func image(_ path: String, label: String) throws -> Image {
        guard let image = images[PathKey(path)] else { throw StageError(.notLoaded(label: label, path: path)) }
        return image
    }

    public func font(_ spec: String, label: String) throws -> FontFace {
        guard let face = fonts[spec] else { throw StageError(.fontNotResolved(label: label, spec: spec)) }
        return face
    }
}

extension Stage {
    public var name: String { Self.name }
    public static var identityApplications: Int { 1 }
    public static var identityInput: [[Int]]? { nil }
    public static var takesHDR: Bool { false }
    public static var takesCube: Bool { false }
    public static var makesLevels: Bool { false }
    public static var volumeParameters: [String: JSON?]? { nil }
    public var makesNormalMap: Bool { false }
    public var volumeChain: VolumeChain? { nil }
    public func planned(_ input: Signature) throws -> [Signature] { [input] }
    public var reads: [Resource] { [] }
}

/// Every stage, by manifest name. The manifest decoder never lists stage names itself.
public enum StageRegistry {
    public static let all: [any Stage.Type] = [
        ColorKey.self,
        Premultiply.self,
        Unpremultiply.self,
        Flatten.self,
        Flip.self,
        Crop.self,
        Pad.self,
        Trim.self,
        Bleed.self,
        AlphaSplit.self,
        AlphaMerge.self,
        Mipmaps.self,
        NormalFromHeight.self,
        NormalAdjust.self,
        NormalBlend.self,
        Resize.self,
        Rotate.self,
        Shadow.self,
        RoundCorners.self,
        Extrude.self,
        Composite.self,
        PackChannels.self,
        Adjust.self,
        Tonemap.self,
        Cubemap.self,
        Prefilter.self,
        Irradiance.self,
    ]

    public static let names: [String] = all.map { $0.name }

    public static func named(_ name: String) -> (any Stage.Type)? {
        all.first { $0.name == name }
    }
}

extension Stage {
    /// `planned`, after the check every stage shares: an HDR image only reaches a stage that takes it.
    public func plannedChecked(_ input: Signature) throws -> [Signature] {
        if input.isHDR && !Self.takesHDR { throw StageError(.notOnHDR(stage: Self.name)) }
        if input.cube && !Self.takesCube { throw StageError(.notOnCube(stage: Self.name)) }
        return try planned(input)
    }
}

extension Signature {
    /// Level n of a mip chain, as `mipmaps` and `prefilter` name it: a level of one GPU texture
    /// (`textureLevel`), or an image of its own (suffix `_mip{n}`, placeholder `{level}`).
    public func asLevel(_ n: Int, inTexture: Bool) -> Signature {
        var s = self
        if inTexture {
            s.textureLevel = n
        } else {
            s.suffix += "_mip\(n)"
            s.labels["level"] = String(n)
        }
        return s
    }
}

extension Image {
    /// Level n of a mip chain, named as `Signature.asLevel` names it.
    public func asLevel(_ n: Int, inTexture: Bool) -> Image {
        var image = self
        if inTexture {
            image.textureLevel = n
        } else {
            image.suffix += "_mip\(n)"
            image.labels["level"] = String(n)
        }
        return image
    }
}

extension Signature {
    /// The signature in `state`; an error when the image is already in it (docs/manifest.md:
    /// `premultiply` on premultiplied data is caught when planning).
    public func converted(to state: AlphaState) throws -> Signature {
        guard alpha != state else {
            throw StageError(.alreadyIn(state))
        }
        var out = self
        out.alpha = state
        return out
    }

    /// The output of a stage that draws onto the image in straight alpha and so writes all four
    /// channels (alpha-merge, composite): an RGBA, lossy-allowed image of the same size.
    public func drawnOn(by stage: String) throws -> Signature {
        try requireAlpha(.straight, for: stage)
        var out = self
        out.layout = .rgba
        out.lossless = false
        return out
    }

    /// The alpha-state check shared by stages that need one state (docs/manifest.md).
    public func requireAlpha(_ state: AlphaState, for stage: String) throws {
        guard alpha == state else { throw StageError(.needsAlpha(stage: stage, needs: state, has: alpha)) }
    }
}
