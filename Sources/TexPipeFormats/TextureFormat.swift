/// Texture formats as one table (docs/reference/textures.md): a format's block size and bytes, its
/// Vulkan and DXGI codes, its sRGB sibling, its data format descriptor, the containers that may
/// hold it, whether it is HDR, the channels it stores and the codec that writes it are one row.
/// Writers, readers, manifest validation and `inspect` look a format up here; none of them
/// switches over formats. Adding a format: its case, its row below, its codec and its tests.
public struct TextureFormatInfo: Sendable {
    /// Which channels a format stores. An `rgb` format cannot hold alpha below max (a job error
    /// that counts the texels); `r` and `rg` formats are data (UNORM only).
    public enum Channels: Sendable, Hashable { case r, rg, rgb, rgba }

    /// One sample of the Khronos Data Format basic descriptor block.
    public struct Sample: Sendable, Equatable {
        public var bitOffset: Int
        public var bitLength: Int
        /// Channel id (KHR_DF_CHANNEL_…: 0 red or colour, 1 green, 2 blue, 15 alpha).
        public var channel: UInt8
        /// sampleUpper: 255 for 8-bit channels, all ones for block formats, 1.0's bits for floats.
        public var upper: UInt32
        /// sampleLower: 0, or −1.0's bits for a signed float.
        public var lower: UInt32 = 0
        /// The channel type's qualifier bits (KHR_DF_SAMPLE_DATATYPE_FLOAT 0x80, _SIGNED 0x40).
        public var qualifiers: UInt8 = 0

        public init(
            bitOffset: Int, bitLength: Int, channel: UInt8, upper: UInt32, lower: UInt32 = 0, qualifiers: UInt8 = 0
        ) {
            self.bitOffset = bitOffset
            self.bitLength = bitLength
            self.channel = channel
            self.upper = upper
            self.lower = lower
            self.qualifiers = qualifiers
        }
    }

    /// Texel block size (1×1 for uncompressed formats).
    public let block: (width: Int, height: Int)
    /// Bytes per texel block.
    public let blockBytes: Int
    /// `VkFormat` codes: the UNORM one, and the sRGB sibling (nil: a data format, UNORM only).
    public let vulkan: (unorm: UInt32, srgb: UInt32?)
    /// `DXGI_FORMAT` codes (nil: DDS cannot hold the format), UNORM and sRGB.
    public let dxgi: (unorm: UInt32, srgb: UInt32?)?
    /// The Khronos Data Format colour model (KHR_DF_MODEL_…).
    public let colorModel: UInt8
    public let samples: [Sample]
    /// The containers that may hold it.
    public let containers: Set<TextureContainer>
    /// An HDR (floating-point) format, which needs an HDR image.
    public let hdr: Bool
    public let channels: Channels
    /// The encoder and decoder family.
    public let codec: TextureCodec
    /// The family's name in messages ("ASTC").
    public let familyName: String
    /// Whether `rdo` applies (its family's declaration).
    public var takesRDO: Bool { codec.family.takesRDO }

    /// Whether a volume (3D texture) may be written in it (its family's declaration).
    public var takesVolume: Bool { codec.family.takesVolume }

    /// Blocks of texels (BC, ASTC, ETC, UASTC), not one texel at a time.
    public var isBlockCompressed: Bool { block.width > 1 }

    /// A data format: no sRGB variant (`colorSpace: "srgb"` with it is a manifest error).
    public var isData: Bool { vulkan.srgb == nil }

    /// Bytes of one level of `width` × `height`: whole blocks, a partial block padded.
    public func levelBytes(_ width: Int, _ height: Int) -> Int {
        ((width + block.width - 1) / block.width) * ((height + block.height - 1) / block.height) * blockBytes
    }

    /// The Vulkan code for the colour space (a data format's is always UNORM).
    public func vkFormat(srgb: Bool) -> UInt32 { srgb ? vulkan.srgb ?? vulkan.unorm : vulkan.unorm }

    /// The DXGI code for the colour space; nil when DDS cannot hold the format.
    public func dxgiFormat(srgb: Bool) -> UInt32? {
        guard let dxgi else { return nil }
        return srgb ? dxgi.srgb ?? dxgi.unorm : dxgi.unorm
    }
}

/// The codec families: each declared once (`CodecFamily.swift`), its encoder and decoder behind
/// the one door (`TexPipeBlocks/TextureCodecs.swift`).
public enum TextureCodec: Sendable, Equatable {
    /// Stored as is (rgba8).
    case uncompressed
    /// HDR texels stored as half floats (rgba16f).
    case half
    /// texpipe's own BC encoders and decoders (TexPipeBlocks `BC/`).
    case bc(BCVariant)
    /// Arm's astcenc (`ASTC/`).
    case astc
    /// Arm's astcenc's HDR profile (`ASTC/`): HDR colour, LDR alpha.
    case astcHDR
    /// texpipe's own ETC2 and EAC encoders and decoder (`ETC/`).
    case etc(ETCVariant)
    /// texpipe's own Basis Universal UASTC encoder and decoder (`UASTC/`).
    case uastc
    /// texpipe's own BC6H encoder and decoder (`BC6H/`), unsigned: HDR.
    case bc6h
    /// texpipe's own Basis Universal ETC1S encoder with BasisLZ and decoder (`ETC1S/`): one pair of
    /// codebooks for every image of a file, so its blocks are made for the whole file at once.
    case etc1s
}

/// The ETC formats texpipe encodes: ETC2 RGB, ETC2 RGBA (EAC alpha block, then the colour
/// block), EAC R11 and RG11 (unsigned).
public enum ETCVariant: Sendable, Hashable { case rgb, rgba, r11, rg11 }

/// The BC formats texpipe encodes.
public enum BCVariant: Sendable, Hashable { case bc1, bc3, bc4, bc5, bc7 }

extension BCVariant {
    /// The format this variant writes: the one whose row names it as its codec.
    public var format: TextureSettings.Format { Self.formats[self]! }
    static let formats = Dictionary(
        uniqueKeysWithValues: TextureSettings.Format.allCases.compactMap { f -> (BCVariant, TextureSettings.Format)? in
            if case .bc(let v) = f.info.codec { (v, f) } else { nil }
        })
}

extension ETCVariant {
    /// The format this variant writes: the one whose row names it as its codec.
    public var format: TextureSettings.Format { Self.formats[self]! }
    static let formats = Dictionary(
        uniqueKeysWithValues: TextureSettings.Format.allCases.compactMap { f -> (ETCVariant, TextureSettings.Format)? in
            if case .etc(let v) = f.info.codec { (v, f) } else { nil }
        })
}

extension TextureSettings.Format {
    /// The format's row.
    public var info: TextureFormatInfo {
        switch self {
        case .rgba8: Rows.rgba8
        case .bc1: Rows.bc1
        case .bc3: Rows.bc3
        case .bc4: Rows.bc4
        case .bc5: Rows.bc5
        case .bc7: Rows.bc7
        case .astc4x4: Rows.astc4x4
        case .astc5x5: Rows.astc5x5
        case .astc6x6: Rows.astc6x6
        case .astc8x8: Rows.astc8x8
        case .etc2RGB: Rows.etc2RGB
        case .etc2RGBA: Rows.etc2RGBA
        case .eacR11: Rows.eacR11
        case .eacRG11: Rows.eacRG11
        case .uastc: Rows.uastc
        case .etc1s: Rows.etc1s
        case .bc6h: Rows.bc6h
        case .rgba16f: Rows.rgba16f
        case .astc4x4HDR: Rows.astc4x4HDR
        case .astc6x6HDR: Rows.astc6x6HDR
        }
    }

    /// The format and colour space a KTX2 `vkFormat` stands for (nil: none texpipe knows).
    /// `VK_FORMAT_UNDEFINED` (0) is a Basis Universal payload, which the data format descriptor's
    /// colour model names (`model`: UASTC's 166 is texpipe's; ETC1S is not).
    public static func forVulkan(_ code: UInt32, model: UInt8? = nil) -> (format: Self, srgb: Bool)? {
        if code == 0 {
            return allCases.first { $0.info.vulkan.unorm == 0 && $0.info.colorModel == model }.map { ($0, false) }
        }
        for f in allCases {
            let v = f.info.vulkan
            if v.unorm == code || v.srgb == code { return (f, v.srgb == code) }
        }
        return nil
    }

    /// The format and colour space a DDS `DXGI_FORMAT` stands for (nil: none texpipe knows).
    public static func forDXGI(_ code: UInt32) -> (format: Self, srgb: Bool)? {
        for f in allCases {
            guard let d = f.info.dxgi else { continue }
            if d.unorm == code || d.srgb == code { return (f, d.srgb == code) }
        }
        return nil
    }
}

/// The rows. Codes: Vulkan's `VkFormat`, Microsoft's `DXGI_FORMAT`, the Khronos Data Format
/// Specification 1.3's colour models.
private enum Rows {
    static let blockSample = [TextureFormatInfo.Sample(bitOffset: 0, bitLength: 128, channel: 0, upper: .max)]
    static let both: Set<TextureContainer> = [.ktx2, .dds]

    static let rgba8 = TextureFormatInfo(
        block: (1, 1), blockBytes: 4, vulkan: (37, 43), dxgi: (28, 29), colorModel: 1,  // KHR_DF_MODEL_RGBSDA
        samples: [0, 1, 2, 15].enumerated().map { k, c in .init(bitOffset: 8 * k, bitLength: 8, channel: c, upper: 255)
        },
        containers: both, hdr: false, channels: .rgba, codec: .uncompressed, familyName: "RGBA8")
    static let bc1 = TextureFormatInfo(
        block: (4, 4), blockBytes: 8, vulkan: (131, 132), dxgi: (71, 72), colorModel: 128,  // BC1A
        samples: [.init(bitOffset: 0, bitLength: 64, channel: 0, upper: .max)],
        containers: both, hdr: false, channels: .rgb, codec: .bc(.bc1), familyName: "BC1")
    static let bc3 = TextureFormatInfo(
        block: (4, 4), blockBytes: 16, vulkan: (137, 138), dxgi: (77, 78), colorModel: 130,
        // The alpha block first, then the colour block.
        samples: [
            .init(bitOffset: 0, bitLength: 64, channel: 15, upper: .max),
            .init(bitOffset: 64, bitLength: 64, channel: 0, upper: .max),
        ],
        containers: both, hdr: false, channels: .rgba, codec: .bc(.bc3), familyName: "BC3")
    static let bc4 = TextureFormatInfo(
        block: (4, 4), blockBytes: 8, vulkan: (139, nil), dxgi: (80, nil), colorModel: 131,
        samples: [.init(bitOffset: 0, bitLength: 64, channel: 0, upper: .max)],
        containers: both, hdr: false, channels: .r, codec: .bc(.bc4), familyName: "BC4")
    static let bc5 = TextureFormatInfo(
        block: (4, 4), blockBytes: 16, vulkan: (141, nil), dxgi: (83, nil), colorModel: 132,
        samples: [
            .init(bitOffset: 0, bitLength: 64, channel: 0, upper: .max),
            .init(bitOffset: 64, bitLength: 64, channel: 1, upper: .max),
        ],
        containers: both, hdr: false, channels: .rg, codec: .bc(.bc5), familyName: "BC5")
    static let bc7 = TextureFormatInfo(
        block: (4, 4), blockBytes: 16, vulkan: (145, 146), dxgi: (98, 99), colorModel: 134, samples: blockSample,
        containers: both, hdr: false, channels: .rgba, codec: .bc(.bc7), familyName: "BC7")

    /// ASTC LDR: KTX2 only (DDS has no DXGI code for it), colour model KHR_DF_MODEL_ASTC.
    static func astc(_ side: Int, _ unorm: UInt32) -> TextureFormatInfo {
        TextureFormatInfo(
            block: (side, side), blockBytes: 16, vulkan: (unorm, unorm + 1), dxgi: nil, colorModel: 162,
            samples: blockSample, containers: [.ktx2], hdr: false, channels: .rgba, codec: .astc, familyName: "ASTC")
    }
    static let astc4x4 = astc(4, 157)
    static let astc5x5 = astc(5, 161)
    static let astc6x6 = astc(6, 165)
    static let astc8x8 = astc(8, 171)

    /// ASTC HDR: `VK_FORMAT_ASTC_{4x4,6x6}_SFLOAT_BLOCK` (1000066000, 1000066004, from
    /// VK_EXT_texture_compression_astc_hdr), KTX2 only, linear only. Colour model
    /// KHR_DF_MODEL_ASTC, one 128-bit signed-float sample: lower −1.0, upper 1.0 (as 32-bit floats),
    /// as the KTX 2.0 specification's descriptor for an SFLOAT block format has it.
    static func astcHDR(_ side: Int, _ code: UInt32) -> TextureFormatInfo {
        TextureFormatInfo(
            block: (side, side), blockBytes: 16, vulkan: (code, nil), dxgi: nil, colorModel: 162,
            samples: [
                .init(
                    bitOffset: 0, bitLength: 128, channel: 0, upper: Float(1).bitPattern, lower: Float(-1).bitPattern,
                    qualifiers: 0xC0)
            ],
            containers: [.ktx2], hdr: true, channels: .rgba, codec: .astcHDR, familyName: "ASTC HDR")
    }
    static let astc4x4HDR = astcHDR(4, 1_000_066_000)
    static let astc6x6HDR = astcHDR(6, 1_000_066_004)

    /// ETC2 and EAC: KTX2 only, colour model KHR_DF_MODEL_ETC2 (161); channels
    /// KHR_DF_CHANNEL_ETC2_RED 0, _GREEN 1, _COLOR 2, _ALPHA 15. 64-bit blocks, 128 with two.
    static func etc(
        _ unorm: UInt32, srgb: UInt32?, bytes: Int, _ channels: [UInt8], _ kind: TextureFormatInfo.Channels,
        _ variant: ETCVariant, _ name: String
    ) -> TextureFormatInfo {
        TextureFormatInfo(
            block: (4, 4), blockBytes: bytes, vulkan: (unorm, srgb), dxgi: nil, colorModel: 161,
            samples: channels.enumerated().map { k, c in
                .init(bitOffset: 64 * k, bitLength: 64, channel: c, upper: .max)
            },
            containers: [.ktx2], hdr: false, channels: kind, codec: .etc(variant), familyName: name)
    }
    static let etc2RGB = etc(147, srgb: 148, bytes: 8, [2], .rgb, .rgb, "ETC2")
    // The EAC alpha block first, then the colour block.
    static let etc2RGBA = etc(151, srgb: 152, bytes: 16, [15, 2], .rgba, .rgba, "ETC2")
    static let eacR11 = etc(153, srgb: nil, bytes: 8, [0], .r, .r11, "EAC")
    static let eacRG11 = etc(155, srgb: nil, bytes: 16, [0, 1], .rg, .rg11, "EAC")

    /// Basis Universal UASTC LDR 4×4: KTX2 only, `VK_FORMAT_UNDEFINED` in either colour space (the
    /// descriptor's transfer function says which), colour model KHR_DF_MODEL_UASTC (166), one
    /// 128-bit sample of channel KHR_DF_CHANNEL_UASTC_RGBA (3).
    static let uastc = TextureFormatInfo(
        block: (4, 4), blockBytes: 16, vulkan: (0, 0), dxgi: nil, colorModel: 166,
        samples: [.init(bitOffset: 0, bitLength: 128, channel: 3, upper: .max)], containers: [.ktx2], hdr: false,
        channels: .rgba, codec: .uastc, familyName: "UASTC")

    /// Basis Universal ETC1S with BasisLZ: KTX2 only, `VK_FORMAT_UNDEFINED` (the descriptor's
    /// transfer function says sRGB or linear), colour model KHR_DF_MODEL_ETC1S (163), one 64-bit
    /// sample of KHR_DF_CHANNEL_ETC1S_RGB (0) and, when the image has alpha below max, a second of
    /// KHR_DF_CHANNEL_ETC1S_AAA (15) at bit 64 (the writer adds it); `bytesPlane0` 0 (supercompressed).
    static let etc1s = TextureFormatInfo(
        block: (4, 4), blockBytes: 8, vulkan: (0, 0), dxgi: nil, colorModel: 163,
        samples: [.init(bitOffset: 0, bitLength: 64, channel: 0, upper: .max)], containers: [.ktx2], hdr: false,
        channels: .rgba, codec: .etc1s, familyName: "ETC1S")

    /// BC6H unsigned (HDR RGB): `VK_FORMAT_BC6H_UFLOAT_BLOCK` (143), `DXGI_FORMAT_BC6H_UF16` (95);
    /// linear only. Colour model KHR_DF_MODEL_BC6H (133), one 128-bit unsigned-float sample of
    /// KHR_DF_CHANNEL_BC6H_COLOR (0): lower 0.0, upper 1.0 (as 32-bit floats).
    static let bc6h = TextureFormatInfo(
        block: (4, 4), blockBytes: 16, vulkan: (143, nil), dxgi: (95, nil), colorModel: 133,
        samples: [
            .init(bitOffset: 0, bitLength: 128, channel: 0, upper: Float(1).bitPattern, lower: 0, qualifiers: 0x80)
        ],
        containers: both, hdr: true, channels: .rgb, codec: .bc6h, familyName: "BC6H")

    /// Half-float RGBA (HDR): `VK_FORMAT_R16G16B16A16_SFLOAT` (97), `DXGI_FORMAT_R16G16B16A16_FLOAT`
    /// (10); linear only. Each sample is a signed float: lower −1.0, upper 1.0 (as 32-bit floats).
    static let rgba16f = TextureFormatInfo(
        block: (1, 1), blockBytes: 8, vulkan: (97, nil), dxgi: (10, nil), colorModel: 1,
        samples: [0, 1, 2, 15].enumerated().map { k, c in
            .init(
                bitOffset: 16 * k, bitLength: 16, channel: c, upper: Float(1).bitPattern,
                lower: Float(-1).bitPattern, qualifiers: 0xC0)
        },
        containers: both, hdr: true, channels: .rgba, codec: .half, familyName: "RGBA16F")
}
