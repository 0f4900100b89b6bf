/// What a codec family is, declared once (docs/ARCHITECTURE.md "Adding a block format family"):
/// the name of what encodes it, whether it stores texels exactly, which settings and shapes it
/// takes, and whether its blocks are made for a whole file at once. The settings rules, the
/// messages, `texpipe formats`, `inspect` and the writers read these; the family's encoder and
/// decoder are behind `TextureCodecs` in TexPipeBlocks, reached through the same `TextureCodec`.
public struct CodecFamily: Sendable {
    /// What encodes its blocks, as `texpipe formats` and docs/reference/textures.md name it.
    public let encoder: String
    /// It stores texels exactly as they are (rgba8, rgba16f): nothing to measure, never lossy.
    public let exact: Bool
    /// `rdo` applies (texpipe's own BC1, BC3, BC7 and UASTC encoders).
    public let takesRDO: Bool
    /// A volume (3D texture) may be written in it: texels, or 2D blocks that both containers and
    /// the graphics APIs take as the slices of a 3D texture (BC1–BC7, BC6H). ASTC's 3D textures
    /// are its own 3D block formats; ETC and the Basis formats have none.
    public let takesVolume: Bool
    /// Its blocks are made for the whole file at once, against global data every image shares,
    /// which KTX2 stores as its BasisLZ supercompression (ETC1S): no other `supercompression`.
    public let wholeFile: Bool
    /// Settings only this family takes, each with what it sets (`qlevel`: "codebooks").
    public let knobs: [Knob]
    /// A Basis Universal payload, which glTF's `KHR_texture_basisu` carries (ETC1S, UASTC).
    public let basisUniversal: Bool

    /// A setting of one family's own.
    public struct Knob: Sendable, Equatable {
        public let name: String
        /// What it sets, for messages: "codebooks".
        public let sets: String
    }

    init(
        encoder: String, exact: Bool = false, takesRDO: Bool = false, takesVolume: Bool = false,
        wholeFile: Bool = false, knobs: [Knob] = [], basisUniversal: Bool = false
    ) {
        self.encoder = encoder
        self.exact = exact
        self.takesRDO = takesRDO
        self.takesVolume = takesVolume
        self.wholeFile = wholeFile
        self.knobs = knobs
        self.basisUniversal = basisUniversal
    }
}

extension TextureCodec {
    /// The family's declaration: the one switch over the families in this layer.
    public var family: CodecFamily {
        switch self {
        case .uncompressed: CodecFamily(encoder: "stored as is", exact: true, takesVolume: true)
        case .half: CodecFamily(encoder: "half floats, stored as is", exact: true, takesVolume: true)
        case .bc(let v):
            CodecFamily(
                encoder: "texpipe's BC encoder", takesRDO: v == .bc1 || v == .bc3 || v == .bc7, takesVolume: true)
        case .astc: CodecFamily(encoder: "Arm's astcenc")
        case .astcHDR: CodecFamily(encoder: "Arm's astcenc (HDR profile)")
        case .etc: CodecFamily(encoder: "texpipe's ETC2/EAC encoder")
        case .uastc: CodecFamily(encoder: "texpipe's UASTC encoder", takesRDO: true, basisUniversal: true)
        case .bc6h: CodecFamily(encoder: "texpipe's BC6H encoder", takesVolume: true)
        case .etc1s:
            CodecFamily(
                encoder: "texpipe's ETC1S encoder and BasisLZ", wholeFile: true,
                knobs: [CodecFamily.Knob(name: "qlevel", sets: "codebooks")], basisUniversal: true)
        }
    }
}
