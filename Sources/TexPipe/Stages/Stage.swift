/// What a stage knows about an image before any pixel moves: its size (nil when an
/// earlier stage such as `trim` makes it data-dependent), depth, alpha state, layout
/// and the suffix / labels that will name its output. STYLE 3.
public struct Signature: Sendable, Hashable {
    public var width: Int?
    public var height: Int?
    public var depth: Int
    public var alpha: AlphaState
    public var layout: ChannelLayout = .rgba
    public var suffix: String = ""
    public var labels: [String: String] = [:]
    public var lossless = false
    /// True after a stage (trim) whose output size depends on the pixels: stages whose outputs
    /// depend on the size (mipmaps) cannot follow it.
    public var dataDependentSize = false

    public init(width: Int?, height: Int?, depth: Int, alpha: AlphaState) {
        self.width = width
        self.height = height
        self.depth = depth
        self.alpha = alpha
    }

    public init(of image: Image) {
        self.init(width: image.width, height: image.height, depth: image.depth, alpha: image.alpha)
        layout = image.layout
        suffix = image.suffix
        labels = image.labels
        lossless = image.lossless
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
public protocol Stage: Sendable {
    /// The manifest name, e.g. `color-key`.
    static var name: String { get }
    /// One line for `texpipe stages`.
    static var summary: String { get }
    /// Every parameter, declared once.
    static var parameters: [Parameter] { get }

    /// Builds the stage from decoded arguments; throws for cross-parameter problems.
    init(_ arguments: Arguments) throws

    /// Maps the input signature to the output signatures, before any pixel is touched.
    /// Throws for anything knowable at plan time (wrong alpha state, rectangle outside).
    func planned(_ input: Signature) throws -> [Signature]

    /// Runs the kernel(s): one image in, one or more out.
    func applied(to image: Image) throws -> [Image]

    /// The same, with the job's limits and a place for notes that go into the job's
    /// result (pixels a bleed could not reach, the coverage a mip level achieved).
    /// Stages that need neither implement only `applied(to:)`.
    func applied(to image: Image, context: inout StageContext) throws -> [Image]

    /// Files the stage reads besides the input (absolute paths): part of the job's cache key.
    var reads: [String] { get }
}

/// What a running stage may know of its job, and what it may tell it.
public struct StageContext: Sendable {
    public var maxPixels: Int
    public var notes: [String] = []
    public init(maxPixels: Int = Decoder.defaultMaxPixels) { self.maxPixels = maxPixels }
}

extension Stage {
    public var name: String { Self.name }
    public func planned(_ input: Signature) throws -> [Signature] { [input] }
    public var reads: [String] { [] }
    public func applied(to image: Image, context: inout StageContext) throws -> [Image] {
        try applied(to: image)
    }
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
        Resize.self,
        Rotate.self,
        Shadow.self,
        RoundCorners.self,
        Extrude.self,
        Composite.self,
        Adjust.self,
    ]

    public static let names: [String] = all.map { $0.name }

    public static func named(_ name: String) -> (any Stage.Type)? {
        all.first { $0.name == name }
    }
}

extension Signature {
    /// The signature in `state`; an error when the image is already in it (SPEC §2:
    /// `premultiply` on premultiplied data is caught when planning).
    public func converted(to state: AlphaState) throws -> Signature {
        guard alpha != state else {
            throw StageError(
                state == .premultiplied
                    ? "the image is already premultiplied here"
                    : "the image is already straight (not premultiplied) here")
        }
        var out = self
        out.alpha = state
        return out
    }

    /// The alpha-state check shared by stages that need one state (SPEC §2).
    public func requireAlpha(_ state: AlphaState, for stage: String) throws {
        guard alpha == state else {
            let fix = state == .straight ? "unpremultiply" : "premultiply"
            throw StageError(
                "\(stage) needs \(state.rawValue) alpha but the image is \(alpha.rawValue) here; add \"\(fix)\" before it"
            )
        }
    }
}
