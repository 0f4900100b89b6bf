public import TexPipeParameters
public import TexPipePixels

/// The pipeline's `png` settings (docs/manifest.md). Their parameter table and rules are below.
public struct PNGSettings: Sendable, Hashable {
    public enum Filter: String, Sendable, CaseIterable { case adaptive, none, sub, up, average, paeth }
    /// `rgba` keeps RGBA (or RGB/gray where a stage makes those); `auto` writes the smallest
    /// lossless color type.
    public enum ColorType: String, Sendable, CaseIterable { case rgba, auto }
    public enum Writer: String, Sendable, CaseIterable { case texpipe, libpng }

    public var level: Int
    public var encoder: Writer
    public var filter: Filter
    public var color: ColorType
    /// Bits per channel written; nil: as decoded.
    public var depth: Int?

    public init(level: Int, encoder: Writer, filter: Filter, color: ColorType, depth: Int?) {
        self.level = level
        self.encoder = encoder
        self.filter = filter
        self.color = color
        self.depth = depth
    }

    /// The defaults, declared once: the manifest's table takes its defaults from here.
    public static let standard = PNGSettings(level: 6, encoder: .texpipe, filter: .adaptive, color: .auto, depth: nil)
}

/// The pipeline's `jpeg` settings (docs/manifest.md); their table is in `TexPipeManifest`.
public struct JPEGSettings: Sendable, Hashable {
    public var quality: Int
    public var progressive: Bool
    /// Background composited under non-opaque pixels; nil: such an image is an error.
    public var flatten: Color?
    /// The target that chooses `quality` (docs/manifest.md "Quality targets"); nil: none.
    public var target: QualityTarget?

    public init(quality: Int, progressive: Bool, flatten: Color?) {
        self.quality = quality
        self.progressive = progressive
        self.flatten = flatten
    }

    /// The defaults, declared once: the manifest's table takes its defaults from here.
    public static let standard = JPEGSettings(quality: 90, progressive: false, flatten: nil)
}

/// The pipeline's `png` settings as the manifest declares them: a parameter table like a
/// stage's, defaults taken from `PNGSettings.standard`. docs/manifest.md.
extension PNGSettings {
    public static let parameters: [Parameter] = [
        .integer(
            "level", in: 0...12, default: standard.level,
            doc: "compression level: 0…12 (libdeflate), 0…9 with the libpng encoder"),
        .choice("filter", Filter.self, default: standard.filter, doc: "row filter; adaptive picks per row"),
        .choice(
            "encoder", Writer.self, default: standard.encoder,
            doc: "texpipe's writer over libdeflate, or libpng's (the reference)"),
        .choice(
            "color", ColorType.self, default: standard.color,
            doc: "rgba (RGB or gray where a stage makes those), or auto: the smallest lossless color type"),
        Parameter(
            "depth", .integerChoice([8, 16]), .optional(absentDoc: "as decoded"),
            doc: "bits per channel written"),
    ]

    public init(_ a: Arguments) throws(SettingsProblems) {
        self.init(
            level: a.integer("level"), encoder: a.choice("encoder", as: Writer.self),
            filter: a.choice("filter", as: Filter.self), color: a.choice("color", as: ColorType.self),
            depth: a.optionalInteger("depth"))
        if encoder == .libpng && level > 9 {
            throw SettingsProblems([
                SettingsProblem("level", "the libpng encoder takes levels 0…9; 10…12 need \"encoder\": \"texpipe\"")
            ])
        }
    }
}

/// The pipeline's `jpeg` settings as the manifest declares them. docs/manifest.md.
extension JPEGSettings {
    public static let parameters: [Parameter] = [
        .integer("quality", in: 1...100, default: standard.quality, doc: "libjpeg quality"),
        .boolean("progressive", default: standard.progressive, doc: "write a progressive JPEG"),
        Parameter(
            "flatten", .color, .optional(absentDoc: "an image with any non-opaque pixel is a job error"),
            doc: "background composited under non-opaque pixels before writing"),
        QualityTarget.fileParameter,
    ]

    public init(_ a: Arguments) {
        self.init(
            quality: a.integer("quality"), progressive: a.boolean("progressive"), flatten: a.optionalColor("flatten"))
    }
}
