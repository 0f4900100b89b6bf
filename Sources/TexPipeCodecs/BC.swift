public import TexPipePixels

/// Block compression: BC1, BC3, BC4 and BC5 blocks decoded, BC4 and BC5 encoded (Microsoft's
/// "Block Compression (Direct3D 10)" and the Khronos Data Format Specification's S3TC and RGTC
/// chapters). A block is 4 × 4 texels, rows top to bottom; an edge block past the image repeats the
/// image's last row and column when encoding and is cut when decoding.
///
/// Interpolated values are rounded down, as the reference decoder the tests use (PyPI's
/// texture2ddecoder) does: BC1's 4-color entries ⌊(2c0 + c1) / 3⌋, its 3-color entry
/// ⌊(c0 + c1) / 2⌋; BC4's 8-value entries ⌊((7 − i)·r0 + i·r1) / 7⌋, its 6-value entries
/// ⌊((5 − i)·r0 + i·r1) / 5⌋ with 0 and 255 last.
public enum BC {
    // MARK: Decoding

    /// A level's blocks as tightly packed RGBA8 (w × h). BC4 decodes to (r, 0, 0, 255), BC5 to
    /// (r, g, 0, 255), as the Direct3D samplers return them.
    public static func decode(
        _ blocks: [UInt8], format: TextureSettings.Format, width: Int, height: Int
    ) throws -> [UInt8] {
        let bw = (width + 3) / 4
        let bh = (height + 3) / 4
        guard blocks.count >= bw * bh * format.blockBytes else {
            throw CodecError(.textureTruncated(format.rawValue))
        }
        var out = [UInt8](repeating: 0, count: width * height * 4)
        var texels = [UInt8](repeating: 0, count: 64)
        for by in 0..<bh {
            for bx in 0..<bw {
                let at = (by * bw + bx) * format.blockBytes
                switch format {
                case .bc1: color(blocks, at, into: &texels, alwaysFour: false)
                case .bc3:
                    color(blocks, at + 8, into: &texels, alwaysFour: true)
                    single(blocks, at, into: &texels, channel: 3)
                case .bc4:
                    single(blocks, at, into: &texels, channel: 0)
                    for t in 0..<16 { (texels[t * 4 + 1], texels[t * 4 + 2], texels[t * 4 + 3]) = (0, 0, 255) }
                case .bc5:
                    single(blocks, at, into: &texels, channel: 0)
                    single(blocks, at + 8, into: &texels, channel: 1)
                    for t in 0..<16 { (texels[t * 4 + 2], texels[t * 4 + 3]) = (0, 255) }
                default:
                    throw CodecError(.textureFormatNotBuilt(format.rawValue))
                }
                for y in 0..<4 where by * 4 + y < height {
                    for x in 0..<4 where bx * 4 + x < width {
                        let d = ((by * 4 + y) * width + bx * 4 + x) * 4
                        let s = (y * 4 + x) * 4
                        for c in 0..<4 { out[d + c] = texels[s + c] }
                    }
                }
            }
        }
        return out
    }

    /// 5:6:5 expanded to 8 bits by repeating the top bits.
    @inline(__always) static func expand565(_ c: Int) -> (Int, Int, Int) {
        let r = (c >> 11) & 31
        let g = (c >> 5) & 63
        let b = c & 31
        return ((r << 3) | (r >> 2), (g << 2) | (g >> 4), (b << 3) | (b >> 2))
    }

    /// A BC1 color block (8 bytes at `at`) into 16 RGBA texels. c0 > c1: four colors; else three
    /// and transparent black (BC3's color block is always four colors).
    static func color(_ b: [UInt8], _ at: Int, into t: inout [UInt8], alwaysFour: Bool) {
        let c0 = Int(b[at]) | Int(b[at + 1]) << 8
        let c1 = Int(b[at + 2]) | Int(b[at + 3]) << 8
        let e0 = expand565(c0)
        let e1 = expand565(c1)
        var palette: [(Int, Int, Int, Int)] = [(e0.0, e0.1, e0.2, 255), (e1.0, e1.1, e1.2, 255)]
        if alwaysFour || c0 > c1 {
            palette.append(((2 * e0.0 + e1.0) / 3, (2 * e0.1 + e1.1) / 3, (2 * e0.2 + e1.2) / 3, 255))
            palette.append(((e0.0 + 2 * e1.0) / 3, (e0.1 + 2 * e1.1) / 3, (e0.2 + 2 * e1.2) / 3, 255))
        } else {
            palette.append(((e0.0 + e1.0) / 2, (e0.1 + e1.1) / 2, (e0.2 + e1.2) / 2, 255))
            palette.append((0, 0, 0, 0))
        }
        let bits = Int(b[at + 4]) | Int(b[at + 5]) << 8 | Int(b[at + 6]) << 16 | Int(b[at + 7]) << 24
        for i in 0..<16 {
            let p = palette[(bits >> (2 * i)) & 3]
            (t[i * 4], t[i * 4 + 1], t[i * 4 + 2], t[i * 4 + 3]) = (UInt8(p.0), UInt8(p.1), UInt8(p.2), UInt8(p.3))
        }
    }

    /// The eight values a BC4 block's endpoints give (index order).
    @inline(__always) static func palette4(_ r0: Int, _ r1: Int) -> [Int] {
        if r0 > r1 { return [r0, r1] + (1...6).map { ((7 - $0) * r0 + $0 * r1) / 7 } }
        return [r0, r1] + (1...4).map { ((5 - $0) * r0 + $0 * r1) / 5 } + [0, 255]
    }

    /// A BC4 block (8 bytes at `at`) into one channel of 16 RGBA texels.
    static func single(_ b: [UInt8], _ at: Int, into t: inout [UInt8], channel: Int) {
        let values = palette4(Int(b[at]), Int(b[at + 1]))
        var bits = 0
        for k in 0..<6 { bits |= Int(b[at + 2 + k]) << (8 * k) }
        for i in 0..<16 { t[i * 4 + channel] = UInt8(values[(bits >> (3 * i)) & 7]) }
    }

    // MARK: Encoding

    /// BC4 (red) or BC5 (red, green) blocks of an RGBA8 image, rows of blocks split across the cores
    /// `rows` lends; the bytes do not depend on how many.
    static func encode(
        _ rgba: [UInt8], width: Int, height: Int, format: TextureSettings.Format, quality: TextureSettings.Quality,
        rows: any RowScheduler
    ) -> [UInt8] {
        let bw = (width + 3) / 4
        let bh = (height + 3) / 4
        let size = format.blockBytes
        var out = [UInt8](repeating: 0, count: bw * bh * size)
        let channels = format == .bc5 ? [0, 1] : [0]
        out.withUnsafeMutableBufferPointer { dst in
            rgba.withUnsafeBufferPointer { src in
                rows.forEachBand(rows: bh, pixelsPerRow: width * 4) { band in
                    var values = [UInt8](repeating: 0, count: 16)
                    for by in band {
                        for bx in 0..<bw {
                            for (k, channel) in channels.enumerated() {
                                for y in 0..<4 {
                                    let sy = min(by * 4 + y, height - 1)
                                    for x in 0..<4 {
                                        let sx = min(bx * 4 + x, width - 1)
                                        values[y * 4 + x] = src[(sy * width + sx) * 4 + channel]
                                    }
                                }
                                let block = encodeSingle(values, quality)
                                let at = (by * bw + bx) * size + k * 8
                                for i in 0..<8 { dst[at + i] = UInt8(truncatingIfNeeded: block >> (8 * i)) }
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// One BC4 block for 16 values, as a little-endian u64: r0, r1, then 16 3-bit indices.
    ///
    /// Both modes are tried: eight values between the extremes (r0 > r1), and six between the
    /// extremes of the values other than 0 and 255 with 0 and 255 exact (r0 ≤ r1). `medium` then
    /// refines each mode's endpoints by least squares on its indices (twice); `thorough` also tries
    /// every endpoint pair within ±2 of the best. The pair with the smallest squared error wins
    /// (ties: the 8-value mode, then the smaller endpoints).
    static func encodeSingle(_ v: [UInt8], _ quality: TextureSettings.Quality) -> UInt64 {
        var lo = 255
        var hi = 0
        var innerLo = 255
        var innerHi = 0
        for x in v {
            let x = Int(x)
            lo = min(lo, x)
            hi = max(hi, x)
            if x != 0 && x != 255 {
                innerLo = min(innerLo, x)
                innerHi = max(innerHi, x)
            }
        }
        if lo == hi { return pack(hi, hi, [Int](repeating: 0, count: 16)) }
        var best = (error: Int.max, r0: 0, r1: 0, indices: [Int]())
        func consider(_ r0: Int, _ r1: Int) {
            let (e, idx) = fit(v, r0, r1)
            if e < best.error { best = (e, r0, r1, idx) }
        }
        // Eight values: r0 > r1.
        consider(hi, lo)
        // Six values: r0 ≤ r1, between the inner extremes (0 and 255 come free).
        if innerLo <= innerHi { consider(innerLo, innerHi) } else { consider(0, 255) }
        if quality == .fast { return pack(best.r0, best.r1, best.indices) }
        for _ in 0..<2 {
            for eight in [true, false] {
                let start = eight ? (best.r0 > best.r1 ? (best.r0, best.r1) : (hi, lo)) : (best.r0 <= best.r1 ? (best.r0, best.r1) : (innerLo <= innerHi ? (innerLo, innerHi) : (0, 255)))
                let (_, idx) = fit(v, start.0, start.1)
                if let (a, b) = leastSquares(v, idx, eight: eight) { consider(a, b) }
            }
        }
        if quality == .thorough {
            let (c0, c1) = (best.r0, best.r1)
            for d0 in -2...2 {
                for d1 in -2...2 {
                    let a = min(255, max(0, c0 + d0))
                    let b = min(255, max(0, c1 + d1))
                    consider(a, b)
                    consider(b, a)
                }
            }
        }
        return pack(best.r0, best.r1, best.indices)
    }

    /// The nearest palette entry for each value and the summed squared error.
    static func fit(_ v: [UInt8], _ r0: Int, _ r1: Int) -> (Int, [Int]) {
        let p = palette4(r0, r1)
        var error = 0
        var idx = [Int](repeating: 0, count: 16)
        for (i, x) in v.enumerated() {
            var bestK = 0
            var bestD = Int.max
            for k in 0..<8 {
                let d = (p[k] - Int(x)) * (p[k] - Int(x))
                if d < bestD {
                    bestD = d
                    bestK = k
                }
            }
            idx[i] = bestK
            error += bestD
        }
        return (error, idx)
    }

    /// Endpoints minimising Σ (x − ((1 − w)·r0 + w·r1))² over the texels on interpolated entries
    /// (w = the index's weight), rounded and clamped, ordered for the mode; nil when degenerate.
    static func leastSquares(_ v: [UInt8], _ idx: [Int], eight: Bool) -> (Int, Int)? {
        var aa = 0.0
        var ab = 0.0
        var bb = 0.0
        var ax = 0.0
        var bx = 0.0
        for (i, x) in v.enumerated() {
            let k = idx[i]
            let w: Double
            if eight {
                w = k == 0 ? 0 : k == 1 ? 1 : Double(k - 1) / 7
            } else {
                if k >= 6 { continue }  // 0 and 255 are fixed
                w = k == 0 ? 0 : k == 1 ? 1 : Double(k - 1) / 5
            }
            let a = 1 - w
            aa += a * a
            ab += a * w
            bb += w * w
            ax += a * Double(x)
            bx += w * Double(x)
        }
        let det = aa * bb - ab * ab
        guard abs(det) > 1e-9 else { return nil }
        let r0 = Int(((ax * bb - bx * ab) / det).rounded())
        let r1 = Int(((bx * aa - ax * ab) / det).rounded())
        var a = min(255, max(0, r0))
        var b = min(255, max(0, r1))
        if eight && a <= b { (a, b) = (max(a, b), min(a, b)) }
        if eight && a == b { return nil }
        if !eight && a > b { (a, b) = (b, a) }
        return (a, b)
    }

    static func pack(_ r0: Int, _ r1: Int, _ idx: [Int]) -> UInt64 {
        var bits = UInt64(r0) | UInt64(r1) << 8
        for (i, k) in idx.enumerated() { bits |= UInt64(k) << UInt64(16 + 3 * i) }
        return bits
    }
}
