internal import CZstd
internal import TexPipeFormats

/// zstd through libzstd: one frame per level, the same bytes for the same input and level.
public enum Zstd {
    public static func compress(_ bytes: [UInt8], level: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: ZSTD_compressBound(bytes.count))
        let n = bytes.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                ZSTD_compress(dst.baseAddress, dst.count, src.baseAddress, src.count, Int32(level))
            }
        }
        if ZSTD_isError(n) != 0 { throw CodecError(.zstd(String(cString: ZSTD_getErrorName(n)))) }
        out.removeSubrange(n...)
        return out
    }

    /// nil when the frame is corrupt or does not hold exactly `size` bytes.
    public static func decompress(_ bytes: [UInt8], size: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: size)
        let n = bytes.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in ZSTD_decompress(dst.baseAddress, dst.count, src.baseAddress, src.count)
            }
        }
        return ZSTD_isError(n) == 0 && n == size ? out : nil
    }
}
