internal import CTexPipeShims
public import TexPipeFormats
public import TexPipePixels

/// Header facts of an encoded image, read without decoding pixels.
public struct ImageHeader: Sendable {
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    /// 8 or 16: the depth the decoder produces; 32 for HDR (EXR, Radiance).
    public var depth: Int
    public var colorType: String
    public var fileBitDepth: Int
    public var interlaced: Bool
    public var hasTransparency: Bool
    public var gamma: Double?
    public var sRGB: Bool
    public var iccProfile: Bool
    public var progressive: Bool
    /// Frames in the file (an animated WebP or an AVIF sequence); texpipe reads the first.
    public var frames = 1
    /// How a WebP or AVIF is coded ("lossless"; "4:2:0, CICP 1/13/6, full range"), for `inspect`.
    public var encoding: String?
    /// An AVIF's CICP colour primaries, transfer characteristics and matrix coefficients.
    public var cicp = (primaries: 2, transfer: 2, matrix: 2)

    /// An HDR file's header: `colorType` names its channels, `fileBitDepth` 16 (half) or 32.
    init(hdr format: ImageFormat, width: Int, height: Int, colorType: String, bits: Int, tiled: Bool = false) {
        self.format = format
        self.width = width
        self.height = height
        depth = 32
        self.colorType = colorType
        fileBitDepth = bits
        interlaced = tiled
        hasTransparency = colorType.hasSuffix("A")
        gamma = nil
        sRGB = false
        iccProfile = false
        progressive = false
    }

    /// A WebP's or AVIF's header.
    init(web format: ImageFormat, _ i: tp_web_info) {
        self.format = format
        width = Int(i.width)
        height = Int(i.height)
        depth = Int(i.out_depth)
        colorType = i.has_alpha != 0 ? "RGBA" : "RGB"
        fileBitDepth = Int(i.bit_depth)
        interlaced = false
        hasTransparency = i.has_alpha != 0
        gamma = nil
        sRGB = false
        iccProfile = i.icc_size > 0
        progressive = false
        frames = Int(i.frames)
        cicp = (Int(i.primaries), Int(i.transfer), Int(i.matrix))
    }

    init(_ i: tp_info) {
        width = Int(i.width)
        height = Int(i.height)
        depth = Int(i.out_depth)
        interlaced = i.interlaced != 0
        hasTransparency = i.has_trns != 0
        gamma = i.has_gamma != 0 ? i.gamma : nil
        sRGB = i.has_srgb != 0
        iccProfile = i.has_iccp != 0
        progressive = i.jpeg_progressive != 0
        if i.format == TP_FORMAT_JPEG {
            format = .jpeg
            fileBitDepth = 8
            switch i.jpeg_color_space {
            case 1: colorType = "gray"
            case 2: colorType = "RGB"
            case 3: colorType = "YCbCr"
            case 4: colorType = "CMYK"
            case 5: colorType = "YCCK"
            default: colorType = "unknown (\(i.jpeg_color_space))"
            }
        } else {
            format = .png
            fileBitDepth = Int(i.png_bit_depth)
            switch i.png_color_type {
            case 0: colorType = "gray"
            case 2: colorType = "RGB"
            case 3: colorType = "palette"
            case 4: colorType = "gray+alpha"
            case 6: colorType = "RGBA"
            default: colorType = "unknown (\(i.png_color_type))"
            }
        }
    }
}

/// Which reader decodes a PNG: texpipe's own for the common 8-bit layouts (libpng for the rest
/// and for every irregular file), or libpng always — the reference the tests compare against.
public enum PNGReaderChoice: Sendable {
    case texpipe
    case libpng
}

/// Decoding: bytes → RGBA8 / RGBA16 Image, through the C shims (and `PNGReader`).
public enum ImageDecoder {
    static func describe(_ bytes: [UInt8], path: String) throws -> ImageFormat {
        if let f = ImageFormat.sniff(bytes) {
            if f.container != nil { throw CodecError(.textureInput(f.name)) }
            return f
        }
        if bytes.isEmpty { throw CodecError(.emptyFile) }
        let promised = ImageFormat(path: path) ?? .png
        throw CodecError(.badSignature(expected: promised.name))
    }

    /// Reads the header only (cheap; used at plan time and by `inspect`).
    public static func header(_ bytes: [UInt8], path: String = "") throws -> ImageHeader {
        let format = try describe(bytes, path: path)
        switch format {
        case .exr:
            let i = try EXR.info(bytes)
            return ImageHeader(
                hdr: .exr, width: Int(i.width), height: Int(i.height), colorType: i.has_alpha != 0 ? "RGBA" : "RGB",
                bits: i.half != 0 ? 16 : 32, tiled: i.tiled != 0)
        case .radiance:
            let h = try Radiance.header(bytes)
            return ImageHeader(hdr: .radiance, width: h.width, height: h.height, colorType: "RGBE", bits: 32)
        case .webp: return try WebP.header(bytes)
        case .avif: return try AVIF.header(bytes)
        case .png, .jpeg, .texture: break
        }
        var info = tp_info()
        var err = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBufferPointer { b in
            format == .png
                ? tp_png_info(b.baseAddress, b.count, &info, &err, err.count)
                : tp_jpeg_info(b.baseAddress, b.count, &info, &err, err.count)
        }
        guard status == 0 else { throw CodecError(message(err)) }
        return ImageHeader(info)
    }

    /// Decodes a PNG or JPEG (sniffed) into straight RGBA; refuses more than `maxPixels`
    /// before allocating.
    ///
    /// A caller that hands its only reference over (`decode(consume bytes)`) lets the file's bytes
    /// go as soon as the image is made. `warn` hears what the file holds that is not read (an
    /// animation's later frames).
    public static func decode(
        _ file: __owned [UInt8], path: String = "", maxPixels: Int = Image.defaultMaxPixels,
        pngReader: PNGReaderChoice = .texpipe, warn: (String) -> Void = { _ in }
    ) throws -> Image {
        var bytes = consume file
        let h = try header(bytes, path: path)
        if h.frames > 1 { warn(CodecMessage.firstFrame(h.format.name, frames: h.frames).description) }
        switch h.format {
        case .exr: return try EXR.decode(bytes, maxPixels: maxPixels)
        case .radiance: return try Radiance.decode(bytes, maxPixels: maxPixels)
        case .webp: return try WebP.decode(bytes, h, maxPixels: maxPixels)
        case .avif: return try AVIF.decode(bytes, h, maxPixels: maxPixels)
        case .png, .jpeg, .texture: break
        }
        try admit(h, maxPixels: maxPixels)
        // The reader checks the layout itself and steps aside (nil) for anything but its own.
        if pngReader == .texpipe, h.format == .png, let image = PNGReader.decode(taking: &bytes, maxPixels: maxPixels) {
            return image
        }
        let count = h.width * h.height * 4
        var info = tp_info()
        var err = [CChar](repeating: 0, count: 256)
        func run(_ buffer: UnsafeMutableRawPointer, _ bytesCount: Int) -> Int32 {
            bytes.withUnsafeBufferPointer { b in
                h.format == .png
                    ? tp_png_decode(
                        b.baseAddress, b.count, UInt64(maxPixels), buffer, bytesCount, &info, &err, err.count)
                    : tp_jpeg_decode(
                        b.baseAddress, b.count, UInt64(maxPixels), buffer, bytesCount, &info, &err, err.count)
            }
        }
        var status: Int32 = 0
        let pixels: PixelStorage
        if h.depth == 16 {
            let p = [UInt16](unsafeUninitializedCapacity: count) { buf, n in
                status = run(UnsafeMutableRawPointer(buf.baseAddress!), count * 2)
                if status != 0 { buf.initialize(repeating: 0) }
                n = count
            }
            pixels = .rgba16(p)
        } else {
            let p = [UInt8](unsafeUninitializedCapacity: count) { buf, n in
                status = run(UnsafeMutableRawPointer(buf.baseAddress!), count)
                if status != 0 { buf.initialize(repeating: 0) }
                n = count
            }
            pixels = .rgba8(p)
        }
        guard status == 0 else { throw CodecError(message(err)) }
        return Image(width: h.width, height: h.height, pixels: pixels)
    }

    /// A header's size checked before any pixel is allocated: not zero, not over the pixel limit.
    static func admit(_ h: ImageHeader, maxPixels: Int) throws {
        guard h.width > 0, h.height > 0 else { throw CodecError(.zeroSize) }
        let (w, ht) = (UInt64(h.width), UInt64(h.height))
        guard w * ht <= UInt64(maxPixels) else {
            throw CodecError(.overPixelLimit(width: w, height: ht, limit: maxPixels))
        }
    }

    static func message(_ err: [CChar]) -> String { CodecMessage.library(String(nullTerminated: err)).description }
}
