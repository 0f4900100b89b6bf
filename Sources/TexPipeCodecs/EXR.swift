internal import CTexPipeShims
internal import TexPipeFormats
public import TexPipePixels

/// OpenEXR files through OpenEXRCore (docs/hdr.md): read to linear Float RGBA (half and float,
/// scanline and tiled, every compression the library has), written as half-float RGBA (or RGB
/// when opaque) with ZIP compression.
public enum EXR {
    static func info(_ bytes: [UInt8]) throws -> tp_exr_info {
        var info = tp_exr_info()
        var err = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBufferPointer {
            tp_exr_info_read($0.baseAddress, $0.count, &info, &err, err.count)
        }
        guard status == 0 else { throw CodecError(ImageDecoder.message(err)) }
        return info
    }

    /// Decodes part 0 (level 0 of a tiled file); refuses more than `maxPixels` before allocating.
    public static func decode(_ bytes: [UInt8], maxPixels: Int = Image.defaultMaxPixels) throws -> Image {
        let head = try info(bytes)
        let (w, h) = (Int(head.width), Int(head.height))
        guard UInt64(w) * UInt64(h) <= UInt64(maxPixels) else {
            throw CodecError(.overPixelLimit(width: UInt64(w), height: UInt64(h), limit: maxPixels))
        }
        var info = tp_exr_info()
        var err = [CChar](repeating: 0, count: 256)
        var status: Int32 = 0
        let count = w * h * 4
        let pixels = [Float](unsafeUninitializedCapacity: count) { buf, n in
            status = bytes.withUnsafeBufferPointer {
                tp_exr_decode(
                    $0.baseAddress, $0.count, UInt64(maxPixels), buf.baseAddress, count, &info, &err, err.count)
            }
            if status != 0 { buf.initialize(repeating: 0) }
            n = count
        }
        guard status == 0 else { throw CodecError(ImageDecoder.message(err)) }
        return Image(width: w, height: h, pixels: .rgbaF32(pixels))
    }

    /// An HDR image as EXR bytes: half floats (rounded to nearest, finite: beyond ±65504 clamps),
    /// channels A, B, G, R (A only when some alpha is below 1), ZIP. A premultiplied image is
    /// stored as it is (EXR's convention is premultiplied colour).
    ///
    /// The file is decoded again before it is returned: OpenEXRCore 3.1 can store a chunk that ZIP
    /// does not shrink in a form no reader decodes back (seen on a 4×4 face of noisy values), so a
    /// file that does not read back to its halves is written uncompressed instead.
    public static func encode(_ image: Image) throws -> [UInt8] {
        guard case .rgbaF32(let p) = image.pixels else { throw CodecError(.hdrFormatNeedsHDR("EXR")) }
        let halves = Half.bits(p)
        let withAlpha = stride(from: 3, to: p.count, by: 4).contains { p[$0] != 1 }
        let zipped = try encode(halves, image.width, image.height, withAlpha: withAlpha, zip: true)
        let expected = halves.withUnsafeBufferPointer { Half.floats($0) }.enumerated().map { i, v in
            withAlpha || i % 4 != 3 ? v : 1
        }
        if let back = try? decode(zipped, maxPixels: image.pixelCount), back.pixels == .rgbaF32(expected) {
            return zipped
        }
        return try encode(halves, image.width, image.height, withAlpha: withAlpha, zip: false)
    }

    static func encode(_ halves: [UInt16], _ width: Int, _ height: Int, withAlpha: Bool, zip: Bool) throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var err = [CChar](repeating: 0, count: 256)
        let status = halves.withUnsafeBufferPointer {
            tp_exr_encode(
                $0.baseAddress, Int32(width), Int32(height), withAlpha ? 1 : 0, zip ? 1 : 0, &out, &size, &err,
                err.count)
        }
        guard status == 0, let out else {
            throw CodecError(.encoderFailed(format: "EXR", why: ImageDecoder.message(err)))
        }
        defer { tp_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }
}
