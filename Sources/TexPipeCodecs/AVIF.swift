internal import CTexPipeShims
internal import Foundation
public import TexPipeFormats
public import TexPipePixels

/// AVIF files through libavif (docs/manifest.md "WebP and AVIF"): the header (boxes only), the
/// decoder (8, 10 and 12 bits; colour other than sRGB/BT.709 converted, or refused in one line)
/// and the encoder (libaom, one thread; the same bytes at any `--jobs`).
public enum AVIF {
    static func header(_ bytes: [UInt8]) throws -> ImageHeader {
        var info = tp_web_info()
        var err = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBufferPointer { tp_avif_info($0.baseAddress, $0.count, &info, &err, err.count) }
        guard status == 0 else { throw CodecError(ImageDecoder.message(err)) }
        var h = ImageHeader(web: .avif, info)
        let chroma = [1: "4:4:4", 2: "4:2:2", 3: "4:2:0", 4: "4:0:0"][Int(info.yuv_format)] ?? "unknown chroma"
        h.encoding =
            "\(chroma), CICP \(info.primaries)/\(info.transfer)/\(info.matrix)"
            + (info.full_range != 0 ? ", full range" : ", limited range")
            + (info.alpha_premultiplied != 0 ? ", premultiplied alpha" : "")
        return h
    }

    /// `h`: the file's header, read once by `ImageDecoder`.
    static func decode(_ bytes: [UInt8], _ h: ImageHeader, maxPixels: Int) throws -> Image {
        try ImageDecoder.admit(h, maxPixels: maxPixels)
        let conversion = try Conversion(primaries: h.cicp.primaries, transfer: h.cicp.transfer)
        // A conversion works on 16-bit values, then rounds to the file's depth.
        let wide = h.depth == 16 || conversion != nil
        let count = h.width * h.height * 4
        var info = tp_web_info()
        var err = [CChar](repeating: 0, count: 256)
        var status: Int32 = 0
        func run(_ buffer: UnsafeMutableRawPointer, _ capacity: Int) -> Int32 {
            bytes.withUnsafeBufferPointer { b in
                tp_avif_decode(
                    b.baseAddress, b.count, UInt64(maxPixels), wide ? 1 : 0, buffer, capacity, &info, &err, err.count)
            }
        }
        var image: Image
        if wide {
            var p = [UInt16](unsafeUninitializedCapacity: count) { buf, n in
                status = run(UnsafeMutableRawPointer(buf.baseAddress!), count * 2)
                if status != 0 { buf.initialize(repeating: 0) }
                n = count
            }
            guard status == 0 else { throw CodecError(ImageDecoder.message(err)) }
            conversion?.apply(&p)
            image = Image(width: h.width, height: h.height, pixels: .rgba16(p))
            if h.depth == 8 { image = image.to8Bit() }
        } else {
            let p = [UInt8](unsafeUninitializedCapacity: count) { buf, n in
                status = run(UnsafeMutableRawPointer(buf.baseAddress!), count)
                if status != 0 { buf.initialize(repeating: 0) }
                n = count
            }
            guard status == 0 else { throw CodecError(ImageDecoder.message(err)) }
            image = Image(width: h.width, height: h.height, pixels: .rgba8(p))
        }
        return image
    }

    /// The image as AVIF: straight alpha (the caller unpremultiplies: `FileKind.Row.straightAlpha`),
    /// an alpha plane only when some pixel is not opaque.
    public static func encode(_ image: Image, _ settings: AVIFSettings) throws -> [UInt8] {
        guard !image.isHDR else { throw CodecError(.ldrFormatGotHDR("AVIF")) }
        let stats = image.layout == .rgba ? image.alphaStatistics() : (min: Int.max, max: Int.max, transparent: 0)
        var params = tp_avif_params(
            quantizer: Int32(AVIFSettings.quantizer(settings.quality)),
            alpha_quantizer: Int32(AVIFSettings.quantizer(settings.alphaQuality)), speed: Int32(settings.speed),
            depth: Int32(settings.depth(for: image.depth)), yuv420: settings.subsampling == .yuv420 ? 1 : 0,
            has_alpha: stats.min < (image.depth == 16 ? 65535 : 255) ? 1 : 0)
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var err = [CChar](repeating: 0, count: 256)
        func run(_ b: UnsafeRawBufferPointer, depth: Int) -> Int32 {
            tp_avif_encode(
                b.baseAddress, UInt32(image.width), UInt32(image.height), Int32(depth), image.width * 4 * depth / 8,
                &params, &out, &size, &err, err.count)
        }
        let status: Int32
        switch image.pixels {
        case .rgba8(let p): status = p.withUnsafeBytes { run($0, depth: 8) }
        case .rgba16(let p): status = p.withUnsafeBytes { run($0, depth: 16) }
        case .rgbaF32: throw CodecError(.ldrFormatGotHDR("AVIF"))
        }
        guard status == 0, let out else {
            throw CodecError(.encoderFailed(format: "AVIF", why: ImageDecoder.message(err)))
        }
        defer { tp_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    /// From a file's CICP colour (primaries and transfer; the matrix is libavif's YUV → RGB) to
    /// sRGB: the transfer undone, the primaries mapped through XYZ (every accepted set has D65's
    /// white), clipped to 0…1 and sRGB-encoded. nil: already sRGB (or unspecified, read as sRGB).
    struct Conversion {
        /// The decoding of a transfer characteristic: encoded 0…1 → linear 0…1.
        let linear: @Sendable (Double) -> Double
        /// Row-major 3×3, source linear RGB → linear sRGB; nil: the same primaries.
        let matrix: [Double]?

        init?(primaries: Int, transfer: Int) throws {
            let bt709: @Sendable (Double) -> Double = { v in
                v < 4.5 * 0.018053968510807 ? v / 4.5 : pow((v + 0.099296826809442) / 1.099296826809442, 1 / 0.45)
            }
            switch transfer {
            case 2, 13: linear = { $0 <= 0.04045 ? $0 / 12.92 : pow(($0 + 0.055) / 1.055, 2.4) }
            case 1, 6, 14, 15: linear = bt709
            case 4: linear = { pow($0, 2.2) }
            case 5: linear = { pow($0, 2.8) }
            case 8: linear = { $0 }
            case 16, 18:
                throw CodecError(
                    .unsupportedColor(
                        "the HDR transfer \(transfer == 16 ? "PQ" : "HLG") (CICP \(transfer); HDR comes in as EXR or Radiance)"
                    ))
            default: throw CodecError(.unsupportedColor("transfer characteristics \(transfer)"))
            }
            // Red, green, blue chromaticities (x, y).
            let chromaticities: [Int: [Double]] = [
                5: [0.64, 0.33, 0.29, 0.60, 0.15, 0.06],
                6: [0.630, 0.340, 0.310, 0.595, 0.155, 0.070],
                7: [0.630, 0.340, 0.310, 0.595, 0.155, 0.070],
                9: [0.708, 0.292, 0.170, 0.797, 0.131, 0.046],
                12: [0.680, 0.320, 0.265, 0.690, 0.150, 0.060],
                22: [0.630, 0.340, 0.295, 0.605, 0.155, 0.077],
            ]
            switch primaries {
            case 1, 2: matrix = nil
            default:
                guard let c = chromaticities[primaries] else {
                    throw CodecError(.unsupportedColor("colour primaries \(primaries)"))
                }
                let srgb = Self.toXYZ([0.64, 0.33, 0.30, 0.60, 0.15, 0.06])
                matrix = Self.multiply(Self.inverse(srgb), Self.toXYZ(c))
            }
            if matrix == nil && (transfer == 2 || transfer == 13) { return nil }
        }

        /// RGB → XYZ for primaries with D65's white (x 0.3127, y 0.3290).
        static func toXYZ(_ c: [Double]) -> [Double] {
            let (wx, wy) = (0.3127, 0.3290)
            let white = [wx / wy, 1, (1 - wx - wy) / wy]
            var p = [Double](repeating: 0, count: 9)
            for k in 0..<3 {
                let (x, y) = (c[2 * k], c[2 * k + 1])
                p[k] = x / y
                p[3 + k] = 1
                p[6 + k] = (1 - x - y) / y
            }
            let s = multiply(inverse(p), white, columns: 1)
            for r in 0..<3 { for k in 0..<3 { p[3 * r + k] *= s[k] } }
            return p
        }

        static func multiply(_ a: [Double], _ b: [Double], columns: Int = 3) -> [Double] {
            var out = [Double](repeating: 0, count: 3 * columns)
            for r in 0..<3 {
                for c in 0..<columns {
                    for k in 0..<3 { out[r * columns + c] += a[3 * r + k] * b[k * columns + c] }
                }
            }
            return out
        }

        static func inverse(_ m: [Double]) -> [Double] {
            let det =
                m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6])
                + m[2] * (m[3] * m[7] - m[4] * m[6])
            let c: [Double] = [
                m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
                m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
                m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
            ]
            return c.map { $0 / det }
        }

        /// Converts 16-bit RGBA in place (alpha untouched): a table per channel value for the
        /// transfer, the matrix per pixel.
        func apply(_ p: inout [UInt16]) {
            let table = (0...65535).map { linear(Double($0) / 65535) }
            func encode(_ l: Double) -> UInt16 {
                let v = max(0, min(1, l))
                let e = v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
                return UInt16((e * 65535).rounded())
            }
            p.withUnsafeMutableBufferPointer { px in
                for i in stride(from: 0, to: px.count, by: 4) {
                    let (r, g, b) = (table[Int(px[i])], table[Int(px[i + 1])], table[Int(px[i + 2])])
                    if let m = matrix {
                        px[i] = encode(m[0] * r + m[1] * g + m[2] * b)
                        px[i + 1] = encode(m[3] * r + m[4] * g + m[5] * b)
                        px[i + 2] = encode(m[6] * r + m[7] * g + m[8] * b)
                    } else {
                        (px[i], px[i + 1], px[i + 2]) = (encode(r), encode(g), encode(b))
                    }
                }
            }
        }
    }
}
