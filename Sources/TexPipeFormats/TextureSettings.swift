/// The pipeline's `texture` settings (docs/reference/textures.md): what a `.ktx2` or `.dds`
/// output holds. Declared once here; the manifest's table (`TexPipeManifest/OutputSettings.swift`)
/// reads its defaults from `standard`, and each format's facts are its row (`TextureFormat.swift`).
public struct TextureSettings: Sendable, Equatable {
    public enum Format: String, Sendable, CaseIterable {
        case rgba8
        case bc1, bc3, bc4, bc5, bc7
        case astc4x4 = "astc-4x4"
        case astc5x5 = "astc-5x5"
        case astc6x6 = "astc-6x6"
        case astc8x8 = "astc-8x8"
        case etc2RGB = "etc2-rgb"
        case etc2RGBA = "etc2-rgba"
        case eacR11 = "eac-r11"
        case eacRG11 = "eac-rg11"
        case uastc
        case bc6h
        case rgba16f
    }

    public enum ColorSpace: String, Sendable, CaseIterable { case srgb, linear }
    public enum Quality: String, Sendable, CaseIterable { case fast, medium, thorough }
    public enum Supercompression: String, Sendable, CaseIterable { case none, zstd }
    /// Rate-distortion optimisation (docs/gpu-textures.md "Smaller downloads"): a λ, or the
    /// largest λ whose PSNR loss stays within `maxLoss` dB. Only formats whose row says
    /// `takesRDO` take it.
    public enum RDO: Sendable, Equatable {
        case lambda(Double)
        case maxLoss(Double)

        /// The formats it applies to, by name.
        public static var formats: [String] { Format.allCases.filter(\.info.takesRDO).map(\.rawValue) }

        /// Why `format` does not take it (the manifest's and the encoder's words alike).
        public static func notApplicable(to format: String) -> String {
            "rdo applies to \(formats.joined(separator: ", ")), not \(format) (remove rdo or change the format)"
        }
    }

    public var format: Format
    public var colorSpace: ColorSpace
    public var quality: Quality
    public var supercompression: Supercompression
    public var zstdLevel: Int
    /// nil: off.
    public var rdo: RDO?

    public static let standard = TextureSettings(
        format: .rgba8, colorSpace: .srgb, quality: .medium, supercompression: .none, zstdLevel: 9)

    public init(
        format: Format, colorSpace: ColorSpace, quality: Quality, supercompression: Supercompression, zstdLevel: Int,
        rdo: RDO? = nil
    ) {
        self.format = format
        self.colorSpace = colorSpace
        self.quality = quality
        self.supercompression = supercompression
        self.zstdLevel = zstdLevel
        self.rdo = rdo
    }

    /// Whether the sRGB variant is written: asked for, and the format has one.
    public var srgb: Bool { colorSpace == .srgb && !format.info.isData }
}
