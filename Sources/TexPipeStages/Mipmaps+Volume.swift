public import TexPipePixels

/// How a volume's chain is made: how many levels, down to what size, averaged in which colour
/// space (what a `mipmaps` stage with a volume's parameters says; `Stage.volumeChain`).
public struct VolumeChain: Sendable, Equatable {
    public var levels: Int?
    public var minSize: Int
    public var colorSpace: ColorSpace

    public init(levels: Int?, minSize: Int, colorSpace: ColorSpace) {
        self.levels = levels
        self.minSize = minSize
        self.colorSpace = colorSpace
    }
}

/// A volume's (3D texture's) mip chain (docs/gpu-textures.md "Volume textures"): level n is
/// max(1, ⌊w/2ⁿ⌋) × max(1, ⌊h/2ⁿ⌋) × max(1, ⌊d/2ⁿ⌋), each texel the box over the texels of the
/// level above that it covers — a 2×2×2 box, with exact area weights where a side is odd (5 → 2:
/// 1, 1 and ½ of a texel, over 2.5) and a side of 1 kept. Filtering is on premultiplied Float
/// values, in linear light with `colorSpace: srgb` or on stored values with `linear` (and always
/// for HDR), as `mipmaps` does in 2D; each level returns to the slices' depth and alpha state.
public enum VolumeMipmaps {
    public typealias Size = (width: Int, height: Int, depth: Int)

    /// The chain's sizes from level 0 while the largest side of a level is ≥ `minSize`, at most
    /// `levels` (nil: down to 1 × 1 × 1).
    public static func sizes(_ w: Int, _ h: Int, _ d: Int, levels: Int?, minSize: Int) -> [Size] {
        var out: [Size] = [(w, h, d)]
        var n = 1
        while max(out[n - 1].width, out[n - 1].height, out[n - 1].depth) > 1, levels.map({ n < $0 }) ?? true {
            let size = (max(1, w >> n), max(1, h >> n), max(1, d >> n))
            if max(size.0, size.1, size.2) < minSize { break }
            out.append(size)
            n += 1
        }
        return out
    }

    /// Along one axis from `source` texels to `target`: per target texel, the source texels its
    /// interval [i·s, (i + 1)·s) covers (s = source / target) and the share of each, summing to 1.
    public static func weights(_ source: Int, _ target: Int) -> [[(index: Int, weight: Float)]] {
        let scale = Double(source) / Double(target)
        return (0..<target).map { i in
            let (lo, hi) = (Double(i) * scale, Double(i + 1) * scale)
            var taps: [(Int, Float)] = []
            var j = Int(lo.rounded(.down))
            while Double(j) < hi && j < source {
                let overlap = min(hi, Double(j + 1)) - max(lo, Double(j))
                if overlap > 0 { taps.append((j, Float(overlap / scale))) }
                j += 1
            }
            return taps
        }
    }

    /// The chain of a volume given as its depth slices (level 0, every slice the same size, depth
    /// and alpha state): `levels[n]` holds level n's slices. Each level's slices are made on the
    /// cores `rows` lends, a band of slices each, from the level above.
    public static func chain(
        _ slices: [Image], levels: Int?, minSize: Int, colorSpace: ColorSpace, rows: any RowScheduler
    ) -> [[Image]] {
        guard let first = slices.first else { return [] }
        let sizes = sizes(first.width, first.height, slices.count, levels: levels, minSize: minSize)
        var chain = [slices]
        for size in sizes.dropFirst() {
            chain.append(level(chain[chain.count - 1], size, colorSpace: colorSpace, rows: rows))
        }
        return chain
    }

    /// One level from the one above.
    static func level(_ above: [Image], _ size: Size, colorSpace: ColorSpace, rows: any RowScheduler) -> [Image] {
        let (ws, hs) = (above[0].width, above[0].height)
        let zTaps = weights(above.count, size.depth)
        let yTaps = weights(hs, size.height)
        let xTaps = weights(ws, size.width)
        let space: ColorSpace = above[0].isHDR ? .linear : colorSpace
        var out = [Image?](repeating: nil, count: size.depth)
        out.withUnsafeMutableBufferPointer { slots in
            let slots = slots
            rows.forEachBand(rows: size.depth, pixelsPerRow: ws * hs * 2) { band in
                var texels = [SIMD4<Float>](repeating: .zero, count: ws * hs)
                var sum = [SIMD4<Float>](repeating: .zero, count: ws * hs)
                var across = [SIMD4<Float>](repeating: .zero, count: size.width * hs)
                for z in band {
                    // The slices' weighted sum along z…
                    for k in sum.indices { sum[k] = .zero }
                    for (sz, wz) in zTaps[z] {
                        load(above[sz], into: &texels, colorSpace: space)
                        for k in sum.indices { sum[k] += texels[k] * wz }
                    }
                    // …then along x, row by row, then along y.
                    for y in 0..<hs {
                        for (x, taps) in xTaps.enumerated() {
                            var v = SIMD4<Float>.zero
                            for (sx, wx) in taps { v += sum[y * ws + sx] * wx }
                            across[y * size.width + x] = v
                        }
                    }
                    var level = [SIMD4<Float>](repeating: .zero, count: size.width * size.height)
                    for (y, taps) in yTaps.enumerated() {
                        for (sy, wy) in taps {
                            for x in 0..<size.width { level[y * size.width + x] += across[sy * size.width + x] * wy }
                        }
                    }
                    let image = FloatImage(width: size.width, height: size.height, pixels: level)
                        .image(depth: above[0].depth, alpha: above[0].alpha, colorSpace: space)
                    slots[z] = above[0].with(width: size.width, height: size.height, pixels: image.pixels)
                }
            }
        }
        return out.map { $0! }
    }

    /// A slice's texels as premultiplied Float (in linear light for sRGB 8/16-bit) into `out`.
    static func load(_ image: Image, into out: inout [SIMD4<Float>], colorSpace: ColorSpace) {
        let premultiplied = image.alpha == .premultiplied
        out.withUnsafeMutableBufferPointer { dst in
            switch image.pixels {
            case .rgba8(let p):
                p.withUnsafeBufferPointer {
                    FloatImage.load(
                        $0, into: dst, premultiplied: premultiplied, space: colorSpace, table: SRGB.decode8)
                }
            case .rgba16(let p):
                p.withUnsafeBufferPointer {
                    FloatImage.load(
                        $0, into: dst, premultiplied: premultiplied, space: colorSpace, table: SRGB.decode16)
                }
            case .rgbaF32(let p):
                p.withUnsafeBufferPointer { FloatImage.loadHDR($0, into: dst, premultiplied: premultiplied) }
            }
        }
    }
}
