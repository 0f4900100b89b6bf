public import TexPipeFormats

/// The data format descriptor of a KTX2 file (Khronos Data Format Specification 1.3, basic
/// descriptor block): colour model, BT.709 primaries, sRGB or linear transfer, the
/// alpha-premultiplied flag, block dimensions, bytes per plane and one sample per channel, all
/// from the format's row (`TextureFormatInfo`).
public enum DataFormatDescriptor {
    /// `alphaSample`: a whole-file (BasisLZ) format's second slice, KHR_DF_CHANNEL_ETC1S_AAA (15)
    /// after the first sample. Such a format is always BasisLZ-supercompressed: its `bytesPlane0` is 0,
    /// as the specification asks of a format whose blocks are not stored as such.
    public static func bytes(
        _ format: TextureSettings.Format, srgb: Bool, premultiplied: Bool, alphaSample: Bool = false
    ) -> [UInt8] {
        let info = format.info
        let supercompressed = info.codec.family.wholeFile
        var samples = info.samples
        if alphaSample, let s = samples.first {
            samples.append(
                .init(bitOffset: s.bitOffset + s.bitLength, bitLength: s.bitLength, channel: 15, upper: s.upper))
        }
        // An sRGB format's alpha is linear: KHR_DF_SAMPLE_DATATYPE_LINEAR on channel 15 (not on a
        // BasisLZ AAA slice, which is a channel id of its own).
        let linearAlpha: UInt8 = srgb && !supercompressed ? 0x10 : 0
        var out = ByteWriter()
        let blockSize = 24 + 16 * samples.count
        out.u32(UInt32(4 + blockSize))  // dfdTotalSize
        out.u32(0)  // vendorId KHRONOS (17 bits), descriptorType BASICFORMAT (15 bits)
        out.u32(2 | UInt32(blockSize) << 16)  // versionNumber 1.3, descriptorBlockSize
        let transfer: UInt32 = srgb ? 2 : 1  // KHR_DF_TRANSFER_SRGB / _LINEAR
        out.u32(UInt32(info.colorModel) | 1 << 8 | transfer << 16 | (premultiplied ? 1 : 0) << 24)
        out.u32(UInt32(info.block.width - 1) | UInt32(info.block.height - 1) << 8)  // texelBlockDimension0…3
        out.u32(supercompressed ? 0 : UInt32(info.blockBytes))  // bytesPlane0 (planes 1…7 zero)
        out.u32(0)
        for s in samples {
            let channel = s.channel | s.qualifiers | (s.channel == 15 ? linearAlpha : 0)
            out.u32(UInt32(s.bitOffset) | UInt32(s.bitLength - 1) << 16 | UInt32(channel) << 24)
            out.u32(0)  // samplePosition0…3
            out.u32(s.lower)
            out.u32(s.upper)
        }
        return out.bytes
    }
}

/// Little-endian byte writing.
struct ByteWriter {
    var bytes: [UInt8] = []
    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func pad(to alignment: Int) { while bytes.count % alignment != 0 { bytes.append(0) } }
}
