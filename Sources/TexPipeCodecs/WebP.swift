internal import CTexPipeShims
public import TexPipeFormats
public import TexPipePixels

/// WebP files through libwebp (docs/manifest.md "WebP and AVIF"): the header, the decoder (an
/// animation's first frame, composed on its canvas) and the encoder, one thread, so the bytes are the
/// same at any `--jobs`.
public enum WebP {
    static func header(_ bytes: [UInt8]) throws -> ImageHeader {
        var info = tp_web_info()
        var err = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBufferPointer { tp_webp_info($0.baseAddress, $0.count, &info, &err, err.count) }
        guard status == 0 else { throw CodecError(ImageDecoder.message(err)) }
        var h = ImageHeader(web: .webp, info)
        h.encoding = ["lossy or mixed", "lossy", "lossless"][Int(max(0, min(2, info.webp_format)))]
        if info.has_animation != 0 { h.encoding = "animation" }
        return h
    }

    /// `h`: the file's header, read once by `ImageDecoder`.
    static func decode(_ bytes: [UInt8], _ h: ImageHeader, maxPixels: Int) throws -> Image {
        try ImageDecoder.admit(h, maxPixels: maxPixels)
        let count = h.width * h.height * 4
        var info = tp_web_info()
        var err = [CChar](repeating: 0, count: 256)
        var status: Int32 = 0
        let p = [UInt8](unsafeUninitializedCapacity: count) { buf, n in
            status = bytes.withUnsafeBufferPointer { b in
                tp_webp_decode(
                    b.baseAddress, b.count, UInt64(maxPixels), buf.baseAddress, count, &info, &err, err.count)
            }
            if status != 0 { buf.initialize(repeating: 0) }
            n = count
        }
        guard status == 0 else { throw CodecError(ImageDecoder.message(err)) }
        return Image(width: h.width, height: h.height, pixels: .rgba8(p))
    }

    /// The image as WebP: 8-bit (a 16-bit image is rounded), straight alpha (the caller
    /// unpremultiplies: `FileKind.Row.straightAlpha`).
    public static func encode(_ image: Image, _ settings: WebPSettings) throws -> [UInt8] {
        guard !image.isHDR else { throw CodecError(.ldrFormatGotHDR("WebP")) }
        let img = image.to8Bit()
        guard case .rgba8(let p) = img.pixels else { preconditionFailure("8-bit after to8Bit") }
        var params = tp_webp_params(
            quality: Float(settings.quality), lossless: settings.lossless ? 1 : 0, method: Int32(settings.method),
            alpha_quality: Int32(settings.alphaQuality))
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var err = [CChar](repeating: 0, count: 256)
        let status = p.withUnsafeBufferPointer { b in
            tp_webp_encode(
                b.baseAddress, UInt32(img.width), UInt32(img.height), img.width * 4, &params, &out, &size, &err,
                err.count)
        }
        guard status == 0, let out else {
            throw CodecError(.encoderFailed(format: "WebP", why: ImageDecoder.message(err)))
        }
        defer { tp_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }
}
