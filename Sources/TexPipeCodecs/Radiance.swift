internal import Foundation
internal import TexPipeFormats
public import TexPipePixels

/// Radiance RGBE (`.hdr`) files, read: texpipe's own small reader, written from Greg Ward's format
/// description (docs/hdr.md). Flat, old run-length and new (per-channel) run-length scanlines.
/// Every length and offset is checked before it is used: the file is hostile until proven otherwise.
///
/// A texel is R, G, B mantissas and a shared exponent E: c = (m + 0.5) · 2^(E − 136) for E > 0,
/// 0 for E = 0 (Radiance's own `colr_color`). `EXPOSURE` lines are not applied (as most readers).
public enum Radiance {
    /// The header's facts: size and whether rows are stored bottom first (`+Y`).
    public struct Header: Sendable {
        public var width: Int
        public var height: Int
        public var bottomUp: Bool
        /// Where the pixel data starts.
        var dataOffset: Int
    }

    public static func header(_ bytes: [UInt8]) throws -> Header {
        var at = 0
        /// The next line without its newline; nil at the end of the file or past 4 KiB.
        func line() -> String? {
            guard let end = bytes[at...].prefix(4096).firstIndex(of: 0x0A) else { return nil }
            defer { at = end + 1 }
            return String(decoding: bytes[at..<end], as: UTF8.self)
        }
        guard let first = line(), first.hasPrefix("#?") else {
            throw CodecError(.radiance("not a Radiance file (no #? line)"))
        }
        var format: String?
        while true {
            guard let l = line() else { throw CodecError(.radiance("the header has no end (an empty line)")) }
            if l.isEmpty { break }
            if l.hasPrefix("FORMAT=") { format = String(l.dropFirst(7)) }
        }
        if let format, format != "32-bit_rle_rgbe" {
            throw CodecError(.radiance("FORMAT=\(format) is not supported (only 32-bit_rle_rgbe)"))
        }
        guard let resolution = line() else { throw CodecError(.radiance("no resolution line")) }
        let parts = resolution.split(separator: " ")
        guard parts.count == 4, parts[0] == "-Y" || parts[0] == "+Y", parts[2] == "+X",
            let h = Int(parts[1]), let w = Int(parts[3]), w > 0, h > 0, w < 1 << 24, h < 1 << 24
        else {
            throw CodecError(.radiance("resolution line \"\(resolution.prefix(40))\" is not -Y H +X W or +Y H +X W"))
        }
        return Header(width: w, height: h, bottomUp: parts[0] == "+Y", dataOffset: at)
    }

    /// Decodes to linear Float RGBA (alpha 1); refuses more than `maxPixels` before allocating.
    public static func decode(_ bytes: [UInt8], maxPixels: Int = Image.defaultMaxPixels) throws -> Image {
        let h = try header(bytes)
        guard UInt64(h.width) * UInt64(h.height) <= UInt64(maxPixels) else {
            throw CodecError(.overPixelLimit(width: UInt64(h.width), height: UInt64(h.height), limit: maxPixels))
        }
        var rgbe = [UInt8](repeating: 0, count: h.width * 4)
        var out = [Float](repeating: 0, count: h.width * h.height * 4)
        // 2^(E − 136) for every exponent, once.
        let scale = (0..<256).map { $0 == 0 ? Float(0) : Float(sign: .plus, exponent: $0 - 136, significand: 1) }
        var at = h.dataOffset
        for row in 0..<h.height {
            try readScanline(bytes, &at, into: &rgbe, width: h.width, row: row)
            let y = h.bottomUp ? h.height - 1 - row : row
            out.withUnsafeMutableBufferPointer { o in
                for x in 0..<h.width {
                    let e = Int(rgbe[4 * x + 3])
                    let f = scale[e]
                    let i = (y * h.width + x) * 4
                    if e == 0 {
                        o[i] = 0; o[i + 1] = 0; o[i + 2] = 0
                    } else {
                        o[i] = (Float(rgbe[4 * x]) + 0.5) * f
                        o[i + 1] = (Float(rgbe[4 * x + 1]) + 0.5) * f
                        o[i + 2] = (Float(rgbe[4 * x + 2]) + 0.5) * f
                    }
                    o[i + 3] = 1
                }
            }
        }
        return Image(width: h.width, height: h.height, pixels: .rgbaF32(out))
    }

    /// One scanline of RGBE texels: new run-length (2, 2, width), or flat with old-style repeats.
    static func readScanline(_ b: [UInt8], _ at: inout Int, into rgbe: inout [UInt8], width: Int, row: Int) throws {
        func truncated() -> CodecError { CodecError(.radiance("truncated at scanline \(row)")) }
        guard at + 4 <= b.count else { throw truncated() }
        if width >= 8, width < 32768, b[at] == 2, b[at + 1] == 2, b[at + 2] & 0x80 == 0 {
            guard Int(b[at + 2]) << 8 | Int(b[at + 3]) == width else {
                throw CodecError(.radiance("scanline \(row) says a width other than the header's"))
            }
            at += 4
            for c in 0..<4 {
                var x = 0
                while x < width {
                    guard at < b.count else { throw truncated() }
                    var n = Int(b[at])
                    at += 1
                    if n > 128 {
                        n -= 128
                        guard n <= width - x, at < b.count else {
                            throw CodecError(.radiance("bad run at scanline \(row)"))
                        }
                        let v = b[at]
                        at += 1
                        for k in 0..<n { rgbe[4 * (x + k) + c] = v }
                    } else {
                        guard n > 0, n <= width - x, at + n <= b.count else {
                            throw CodecError(.radiance("bad run at scanline \(row)"))
                        }
                        for k in 0..<n { rgbe[4 * (x + k) + c] = b[at + k] }
                        at += n
                    }
                    x += n
                }
            }
            return
        }
        // Flat texels; (1, 1, 1, n) repeats the texel before it n times, shifted by 8 for each
        // repeat record in a row (the old run-length scheme).
        var x = 0
        var shift = 0
        while x < width {
            guard at + 4 <= b.count else { throw truncated() }
            let t = (b[at], b[at + 1], b[at + 2], b[at + 3])
            at += 4
            if t.0 == 1 && t.1 == 1 && t.2 == 1 {
                guard x > 0, shift < 24 else { throw CodecError(.radiance("bad repeat at scanline \(row)")) }
                let n = Int(t.3) << shift
                guard n <= width - x else { throw CodecError(.radiance("bad repeat at scanline \(row)")) }
                for k in 0..<n { for c in 0..<4 { rgbe[4 * (x + k) + c] = rgbe[4 * (x - 1) + c] } }
                x += n
                shift += 8
            } else {
                rgbe[4 * x] = t.0; rgbe[4 * x + 1] = t.1; rgbe[4 * x + 2] = t.2; rgbe[4 * x + 3] = t.3
                x += 1
                shift = 0
            }
        }
    }
}
