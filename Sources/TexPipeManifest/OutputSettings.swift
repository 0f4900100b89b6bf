public import TexPipeAtlas
public import TexPipeFormats
internal import TexPipePixels
public import TexPipeStages

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

    public init(_ a: Arguments) throws {
        self.init(
            level: a.integer("level"), encoder: a.choice("encoder", as: Writer.self),
            filter: a.choice("filter", as: Filter.self), color: a.choice("color", as: ColorType.self),
            depth: a.optionalInteger("depth"))
        if encoder == .libpng && level > 9 { throw ManifestMessage.libpngLevel }
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
    ]

    public init(_ a: Arguments) {
        self.init(
            quality: a.integer("quality"), progressive: a.boolean("progressive"), flatten: a.optionalColor("flatten"))
    }
}

/// The pipeline's `texture` settings (docs/gpu-textures.md), for `.ktx2` and `.dds` templates.
extension TextureSettings {
    public static let parameters: [Parameter] = [
        .choice("format", Format.self, default: standard.format, doc: "block format (rgba8 uncompressed)"),
        .choice(
            "colorSpace", ColorSpace.self, default: standard.colorSpace,
            doc: "the sRGB or UNORM variant of the format (bc4/bc5 are UNORM only)"),
        .choice("quality", Quality.self, default: standard.quality, doc: "encoder effort"),
        .choice(
            "supercompression", Supercompression.self, default: standard.supercompression,
            doc: "KTX2 only: zstd on every level"),
        .integer("zstdLevel", in: 1...22, default: standard.zstdLevel, doc: "zstd level when supercompressed"),
        Parameter(
            "rdo",
            .object([
                Parameter(
                    "lambda", .number(0...100_000), .optional(absentDoc: "maxLoss instead"),
                    doc: "bits valued in squared 8-bit error: higher trades quality for size; 0 is off"),
                Parameter(
                    "maxLoss", .number(0.01...20), .optional(absentDoc: "lambda instead"),
                    doc: "dB: the largest λ whose PSNR loss against no RDO stays within this, per level"),
            ]), .optional(absentDoc: "off"),
            doc: "rate-distortion optimisation (bc1, bc3, bc7, uastc): blocks that repeat, smaller after zstd"),
    ]

    public init(_ a: Arguments) {
        let rdo = a.object("rdo").flatMap { o -> RDO? in
            if let lambda = o.optionalNumber("lambda") { return lambda > 0 ? .lambda(lambda) : nil }
            return o.optionalNumber("maxLoss").map { .maxLoss($0) }
        }
        self.init(
            format: a.choice("format", as: Format.self), colorSpace: a.choice("colorSpace", as: ColorSpace.self),
            quality: a.choice("quality", as: Quality.self),
            supercompression: a.choice("supercompression", as: Supercompression.self),
            zstdLevel: a.integer("zstdLevel"), rdo: rdo)
    }
}

/// The pipeline's `atlas` object (docs/atlases.md). `name` is a template over each sprite's placeholders,
/// read apart from the table's decoding (which resolves placeholders per job, not per sprite).
extension AtlasSettings {
    public static let parameters: [Parameter] = [
        Parameter(
            "maxSize", .numberOrList(count: 2, 1...16384),
            .defaulted(.numbers([Double(standard.maxWidth), Double(standard.maxHeight)])),
            doc: "the largest page: one size for both sides or [width, height]"),
        .choice(
            "size", SizeRule.self, default: standard.size, doc: "page sizes: powers of two, any, or multiples of 4"),
        .integer("padding", in: 0...1024, default: standard.padding, doc: "transparent texels between sprites"),
        .integer("border", in: 0...1024, default: standard.border, doc: "texels kept clear along the page edges"),
        .integer(
            "extrude", in: 0...1024, default: standard.extrude, doc: "edge texels repeated around each sprite"),
        .boolean("trim", default: standard.trim, doc: "remove each sprite's alpha-0 border, recorded in the data"),
        .boolean("rotate", default: standard.rotate, doc: "a sprite may be stored turned 90° clockwise"),
        Parameter(
            "name", .text, .defaulted(.text(standard.name)),
            doc: "each sprite's name: a template over {path}, {file}, {ext} and the variant's keys"),
        Parameter(
            "data", .choices(DataFormat.allCases.map(\.rawValue)),
            .defaulted(.list(standard.data.map { .text($0.rawValue) })),
            doc: "metadata: json (TexturePacker JSON hash per page), libgdx (one .atlas file)"),
    ]

    /// From decoded arguments (`name` given apart).
    public init(_ a: Arguments, name: String) throws {
        let size = a.numbers("maxSize")
        guard size.allSatisfy({ $0 == $0.rounded() }) else { throw ManifestMessage.wholePixels("maxSize") }
        self.init(
            maxWidth: Int(size[0]), maxHeight: Int(size[1]), size: a.choice("size", as: SizeRule.self),
            padding: a.integer("padding"), border: a.integer("border"), extrude: a.integer("extrude"),
            trim: a.boolean("trim"), rotate: a.boolean("rotate"), name: name,
            data: a.choices("data", as: DataFormat.self))
    }
}

/// The pipeline's `check` gates (docs/gpu-textures.md "Checks and budgets").
extension CheckSettings {
    public static let parameters: [Parameter] = [
        Parameter(
            "minPSNR", .number(0...99), .optional(absentDoc: "no quality gate"),
            doc:
                "dB: every level of a block-compressed or JPEG output against the image encoded (RGB; alpha on its own)"
        ),
        Parameter(
            "maxBytes", .integer(0...Int.max), .optional(absentDoc: "no per-file limit"),
            doc: "bytes of each output file"),
        Parameter(
            "maxTotalBytes", .integer(0...Int.max), .optional(absentDoc: "no total"),
            doc: "bytes of all the pipeline's output files (this run's jobs)"),
        Parameter(
            "maxGPUBytes", .integer(0...Int.max), .optional(absentDoc: "no GPU budget"),
            doc: "GPU memory of all the pipeline's outputs: every level, face and layer"),
        .choice("severity", Severity.self, default: .error, doc: "error: a failed gate fails the job or the pipeline"),
    ]

    public init(_ a: Arguments) {
        self.init(
            minPSNR: a.optionalNumber("minPSNR"), maxBytes: a.optionalInteger("maxBytes"),
            maxTotalBytes: a.optionalInteger("maxTotalBytes"), maxGPUBytes: a.optionalInteger("maxGPUBytes"),
            severity: a.choice("severity", as: Severity.self))
    }
}
