/// The separable filters behind SSIM and FLIP: a plane of Floats convolved with a row of taps along
/// x and another along y. Each row is padded with its edge texels (or zeros, for a window that is
/// cut and renormalized), so the inner loops run over contiguous memory without a branch and the
/// compiler vectorizes them.
enum SeparableFilter {
    /// `plane` (w × h) filtered by `kx` along x and `ky` along y (odd lengths, centred). Outside
    /// the image the edge texel repeats.
    static func apply(_ plane: UnsafeBufferPointer<Float>, _ w: Int, _ h: Int, _ kx: [Float], _ ky: [Float]) -> [Float]
    {
        let rx = kx.count / 2
        let ry = ky.count / 2
        var across = [Float](repeating: 0, count: w * h)
        var padded = [Float](repeating: 0, count: w + 2 * rx)
        across.withUnsafeMutableBufferPointer { out in
            padded.withUnsafeMutableBufferPointer { pad in
                for row in 0..<h {
                    let src = plane.baseAddress! + row * w
                    for i in 0..<rx {
                        pad[i] = src[0]
                        pad[rx + w + i] = src[w - 1]
                    }
                    for x in 0..<w { pad[rx + x] = src[x] }
                    let dst = out.baseAddress! + row * w
                    for (k, c) in kx.enumerated() {
                        let p = pad.baseAddress! + k
                        for x in 0..<w { dst[x] += c * p[x] }
                    }
                }
            }
        }
        var result = [Float](repeating: 0, count: w * h)
        across.withUnsafeBufferPointer { src in
            result.withUnsafeMutableBufferPointer { out in
                for row in 0..<h {
                    let dst = out.baseAddress! + row * w
                    for (k, c) in ky.enumerated() {
                        let r = min(max(row + k - ry, 0), h - 1)
                        let line = src.baseAddress! + r * w
                        for x in 0..<w { dst[x] += c * line[x] }
                    }
                }
            }
        }
        return result
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
