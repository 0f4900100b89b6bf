/// The separable filters behind SSIM and FLIP: a plane of Floats convolved with a row of taps along
/// x and another along y. Each row is padded with its edge texels (or zeros, for a window that is
/// cut and renormalized), so the inner loops run over contiguous memory without a branch and the
/// compiler vectorizes them.
enum SeparableFilter {
    /// `plane` (w × h) filtered by `kx` along x and `ky` along y (odd lengths, centred). Outside
    /// the image the edge texel repeats.
    static func apply(_ plane: UnsafeBufferPointer<Float>, _ w: Int, _ h: Int, _ kx: [Float], _ ky: [Float]) -> [Float]
    {
        var scratch = Scratch(w, rows: h, kx.count / 2)
        return [Float](unsafeUninitializedCapacity: w * h) { out, n in
            strip(plane.baseAddress!, first: 0, w: w, h: h, rows: 0..<h, kx, ky, &scratch, into: out.baseAddress!)
            n = w * h
        }
    }

    /// Working memory of `strip`: one row padded at both ends and the rows filtered across.
    struct Scratch {
        var padded: [Float]
        var across: [Float]
        init(_ w: Int, rows: Int, _ radius: Int) {
            padded = [Float](repeating: 0, count: w + 2 * radius + 8)
            across = [Float](repeating: 0, count: w * rows)
        }
    }

    /// Rows `rows` of an image h rows tall, filtered by `kx` along x and `ky` along y (edge texels
    /// repeat), written to `out` ((rows.count) × w). `plane` holds the image's rows from `first` on,
    /// as many as `rows` needs: from max(0, rows.lowerBound − ry) to min(h, rows.upperBound + ry).
    /// Each output texel sums its taps in registers, eight texels at a time.
    static func strip(
        _ plane: UnsafePointer<Float>, first: Int, w: Int, h: Int, rows: Range<Int>, _ kx: [Float], _ ky: [Float],
        _ scratch: inout Scratch, into out: UnsafeMutablePointer<Float>
    ) {
        let ry = ky.count / 2
        let a = max(0, rows.lowerBound - ry)
        let b = min(h, rows.upperBound + ry)
        if scratch.across.count < (b - a) * w { scratch.across = [Float](repeating: 0, count: (b - a) * w) }
        scratch.across.withUnsafeMutableBufferPointer { across in
            horizontal(plane, first: first, w: w, rows: a..<b, kx, &scratch.padded, into: across.baseAddress!)
            vertical(across.baseAddress!, first: a, w: w, h: h, rows: rows, ky, into: out)
        }
    }

    /// Rows `rows` of `plane` (which holds rows from `first` on) filtered by `kx` along x, the edge
    /// texels repeated: row r into `out` at r − rows.lowerBound.
    static func horizontal(
        _ plane: UnsafePointer<Float>, first: Int, w: Int, rows: Range<Int>, _ kx: [Float], _ padded: inout [Float],
        into out: UnsafeMutablePointer<Float>
    ) {
        let rx = kx.count / 2
        if padded.count < w + 2 * rx + 8 { padded = [Float](repeating: 0, count: w + 2 * rx + 8) }
        kx.withUnsafeBufferPointer { kx in
            padded.withUnsafeMutableBufferPointer { pad in
                let pad = pad.baseAddress!
                for row in rows {
                    let src = plane + (row - first) * w
                    for i in 0..<rx {
                        pad[i] = src[0]
                        pad[rx + w + i] = src[w - 1]
                    }
                    (pad + rx).update(from: src, count: w)
                    convolve(pad, taps: kx, step: 1, count: w, into: out + (row - rows.lowerBound) * w)
                }
            }
        }
    }

    /// Rows `rows` of an image h rows tall filtered by `ky` along y, from `across` (which holds its
    /// rows from `first` on, as far as `ky` reaches, filtered along x): the edge rows repeat.
    static func vertical(
        _ across: UnsafePointer<Float>, first: Int, w: Int, h: Int, rows: Range<Int>, _ ky: [Float],
        into out: UnsafeMutablePointer<Float>
    ) {
        let ry = ky.count / 2
        ky.withUnsafeBufferPointer { taps in
            for row in rows {
                let dst = out + (row - rows.lowerBound) * w
                if row - ry >= 0 && row + ry < h {
                    convolve(across + (row - ry - first) * w, taps: taps, step: w, count: w, into: dst)
                } else {
                    dst.update(repeating: 0, count: w)
                    for (k, c) in taps.enumerated() {
                        let line = across + (min(max(row + k - ry, 0), h - 1) - first) * w
                        for x in 0..<w { dst[x] += c * line[x] }
                    }
                }
            }
        }
    }

    /// out[x] = Σₖ taps[k] · src[x + k·step] for x in 0..<count, each output's taps added in their
    /// order: 32 outputs at a time in four registers of eight (four sums in flight, not one chain
    /// waiting on each addition), then eight at a time, the rest one by one.
    @inline(__always)
    static func convolve(
        _ src: UnsafePointer<Float>, taps: UnsafeBufferPointer<Float>, step: Int, count: Int,
        into out: UnsafeMutablePointer<Float>
    ) {
        typealias V = SIMD8<Float>
        var x = 0
        while x &+ 32 <= count {
            var (a0, a1, a2, a3) = (V(repeating: 0), V(repeating: 0), V(repeating: 0), V(repeating: 0))
            var p = UnsafeRawPointer(src + x)
            for c in taps {
                a0 += c * p.loadUnaligned(as: V.self)
                a1 += c * p.loadUnaligned(fromByteOffset: 32, as: V.self)
                a2 += c * p.loadUnaligned(fromByteOffset: 64, as: V.self)
                a3 += c * p.loadUnaligned(fromByteOffset: 96, as: V.self)
                p += 4 &* step
            }
            let o = UnsafeMutableRawPointer(out + x)
            o.storeBytes(of: a0, as: V.self)
            o.storeBytes(of: a1, toByteOffset: 32, as: V.self)
            o.storeBytes(of: a2, toByteOffset: 64, as: V.self)
            o.storeBytes(of: a3, toByteOffset: 96, as: V.self)
            x &+= 32
        }
        while x &+ 8 <= count {
            var acc = V(repeating: 0)
            var p = UnsafeRawPointer(src + x)
            for c in taps {
                acc += c * p.loadUnaligned(as: V.self)
                p += 4 &* step
            }
            UnsafeMutableRawPointer(out + x).storeBytes(of: acc, as: V.self)
            x &+= 8
        }
        while x < count {
            var acc: Float = 0
            var p = src + x
            for c in taps {
                acc += c * p.pointee
                p += step
            }
            out[x] = acc
            x += 1
        }
    }

    /// The same with the window cut at the image's edges and renormalized: each output divided by
    /// the sum of the taps that fell inside (for levels smaller than SSIM's window).
    static func applyCut(_ plane: UnsafeBufferPointer<Float>, _ w: Int, _ h: Int, _ k: [Float]) -> [Float] {
        let r = k.count / 2
        var out = [Float](repeating: 0, count: w * h)
        var across = [Float](repeating: 0, count: w * h)
        for row in 0..<h {
            for x in 0..<w {
                var (s, weight): (Float, Float) = (0, 0)
                for t in -r...r where x + t >= 0 && x + t < w {
                    s += k[t + r] * plane[row * w + x + t]
                    weight += k[t + r]
                }
                across[row * w + x] = s / weight
            }
        }
        for row in 0..<h {
            for x in 0..<w {
                var (s, weight): (Float, Float) = (0, 0)
                for t in -r...r where row + t >= 0 && row + t < h {
                    s += k[t + r] * across[(row + t) * w + x]
                    weight += k[t + r]
                }
                out[row * w + x] = s / weight
            }
        }
        return out
    }
}
