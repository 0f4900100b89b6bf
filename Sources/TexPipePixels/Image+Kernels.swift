/// Depth dispatch, written once: a kernel is generic over the channel type and the
/// switch on 8/16 bits happens once per image, never per pixel (STYLE 4).
public protocol InPlaceKernel {
    func run<C: PixelChannel>(_ pixels: UnsafeMutableBufferPointer<C>, width: Int, height: Int)
    /// True for a kernel that only moves whole pixels (flip): it runs on an HDR image's Float bit
    /// patterns as 32-bit channels. Any other kernel on an HDR image is a bug the planner prevents.
    static var movesPixelsOnly: Bool { get }
}

/// A kernel that writes a new buffer (of `width` × `height` of the output) from the input.
public protocol CopyKernel {
    func run<C: PixelChannel>(
        _ src: UnsafeBufferPointer<C>, srcWidth: Int, srcHeight: Int,
        _ dst: UnsafeMutableBufferPointer<C>, width: Int, height: Int)
    /// As `InPlaceKernel.movesPixelsOnly` (crop, pad, quarter turns, extrude).
    static var movesPixelsOnly: Bool { get }
}

extension InPlaceKernel {
    public static var movesPixelsOnly: Bool { false }
}

extension CopyKernel {
    public static var movesPixelsOnly: Bool { false }
}

extension Image {
    /// Runs an in-place kernel over the whole image.
    @inlinable
    public mutating func run<K: InPlaceKernel>(_ kernel: K) {
        let (w, h) = (width, height)
        if isHDR {
            precondition(K.movesPixelsOnly, "an 8/16-bit kernel on an HDR image: the planner admits only HDR stages")
            pixels.modifyFloatBits { kernel.run($0, width: w, height: h) }
            return
        }
        pixels.modify(
            { p in p.withUnsafeMutableBufferPointer { kernel.run($0, width: w, height: h) } },
            { p in p.withUnsafeMutableBufferPointer { kernel.run($0, width: w, height: h) } })
    }

    /// Runs a per-pixel kernel — every output pixel depends on that pixel alone, never on its
    /// position or neighbours — in row bands on `rows` (the cores the engine lends); the
    /// bytes are the same as one `run`.
    @inlinable
    public mutating func runInBands<K: InPlaceKernel>(_ kernel: K, on rows: any RowScheduler) {
        let (w, h) = (width, height)
        func banded<C: PixelChannel>(_ p: UnsafeMutableBufferPointer<C>) {
            rows.forEachBand(rows: h, pixelsPerRow: w) { rows in
                let band = UnsafeMutableBufferPointer(
                    rebasing: p[(rows.lowerBound * w * 4)..<(rows.upperBound * w * 4)])
                kernel.run(band, width: w, height: rows.count)
            }
        }
        if isHDR {
            precondition(K.movesPixelsOnly, "an 8/16-bit kernel on an HDR image: the planner admits only HDR stages")
            pixels.modifyFloatBits { banded($0) }
            return
        }
        pixels.modify(
            { p in p.withUnsafeMutableBufferPointer { banded($0) } },
            { p in p.withUnsafeMutableBufferPointer { banded($0) } })
    }

    /// Runs a per-pixel kernel over an HDR image's Floats in row bands on `rows` (as `runInBands`).
    @inlinable
    public mutating func runFloatsInBands(
        on rows: any RowScheduler, _ kernel: (UnsafeMutableBufferPointer<Float>) -> Void
    ) {
        guard case .rgbaF32(var p) = pixels else { preconditionFailure("not an HDR image") }
        pixels = .rgba8([])
        let (w, h) = (width, height)
        p.withUnsafeMutableBufferPointer { p in
            rows.forEachBand(rows: h, pixelsPerRow: w) { rows in
                kernel(UnsafeMutableBufferPointer(rebasing: p[(rows.lowerBound * w * 4)..<(rows.upperBound * w * 4)]))
            }
        }
        pixels = .rgbaF32(p)
    }

    /// A new image of another size, its buffer first filled with `fill` (4 channel values; for an
    /// HDR image, `floatFill`) and then written by the kernel. Labels and alpha state carry over.
    @inlinable
    public func produced<K: CopyKernel>(
        width: Int, height: Int, fill: [Int] = [0, 0, 0, 0], floatFill: SIMD4<Float> = .zero, _ kernel: K
    )
        -> Image
    {
        func make<C: PixelChannel>(_ src: [C]) -> [C] {
            let f = fill.map { C(clamping: $0) }
            var dst = [C](repeating: 0, count: width * height * 4)
            if f != [0, 0, 0, 0] {
                dst.withUnsafeMutableBufferPointer { d in
                    var i = 0
                    while i < d.count {
                        d[i] = f[0]; d[i + 1] = f[1]; d[i + 2] = f[2]; d[i + 3] = f[3]
                        i += 4
                    }
                }
            }
            src.withUnsafeBufferPointer { s in
                dst.withUnsafeMutableBufferPointer { d in
                    kernel.run(s, srcWidth: self.width, srcHeight: self.height, d, width: width, height: height)
                }
            }
            return dst
        }
        switch pixels {
        case .rgba8(let p): return with(width: width, height: height, pixels: .rgba8(make(p)))
        case .rgba16(let p): return with(width: width, height: height, pixels: .rgba16(make(p)))
        case .rgbaF32(let p):
            precondition(K.movesPixelsOnly, "an 8/16-bit kernel on an HDR image: the planner admits only HDR stages")
            var dst = [Float](repeating: 0, count: width * height * 4)
            if floatFill != .zero {
                for i in stride(from: 0, to: dst.count, by: 4) {
                    dst[i] = floatFill.x; dst[i + 1] = floatFill.y; dst[i + 2] = floatFill.z; dst[i + 3] = floatFill.w
                }
            }
            p.withUnsafeBufferPointer { s in
                s.withMemoryRebound(to: UInt32.self) { s in
                    dst.withUnsafeMutableBufferPointer { d in
                        d.withMemoryRebound(to: UInt32.self) { d in
                            kernel.run(s, srcWidth: self.width, srcHeight: self.height, d, width: width, height: height)
                        }
                    }
                }
            }
            return with(width: width, height: height, pixels: .rgbaF32(dst))
        }
    }

    /// Alpha channel statistics: min, max (in channel units; an HDR image's in 1/65535, alpha
    /// clamped to 0…1) and how many pixels are 0.
    public func alphaStatistics() -> (min: Int, max: Int, transparent: Int) {
        func stats<C: PixelChannel>(_ p: [C]) -> (Int, Int, Int) {
            var lo = C.max
            var hi = C.min
            var zero = 0
            var i = 3
            while i < p.count {
                let a = p[i]
                lo = Swift.min(lo, a)
                hi = Swift.max(hi, a)
                if a == 0 { zero += 1 }
                i += 4
            }
            return (Int(lo), Int(hi), zero)
        }
        switch pixels {
        case .rgba8(let p): return stats(p)
        case .rgba16(let p): return stats(p)
        case .rgbaF32(let p):
            var (lo, hi, zero): (Float, Float, Int) = (1, 0, 0)
            for i in stride(from: 3, to: p.count, by: 4) {
                let a = min(max(p[i], 0), 1)
                lo = min(lo, a)
                hi = max(hi, a)
                if a == 0 { zero += 1 }
            }
            return (Int(lo * 65535 + 0.5), Int(hi * 65535 + 0.5), zero)
        }
    }

    /// The same pixels at 8 bits per channel (round(v / 257), half up).
    public func to8Bit() -> Image {
        guard case .rgba16(let p) = pixels else { return self }
        return with(width: width, height: height, pixels: .rgba8(p.map(Rounding.to8)))
    }

    /// The same pixels at 16 bits per channel (v · 257, exact).
    public func to16Bit() -> Image {
        guard case .rgba8(let p) = pixels else { return self }
        return with(width: width, height: height, pixels: .rgba16(p.map { UInt16($0) * 257 }))
    }
}

/// Copies the RGBA pixel starting at source index `s` to destination index `d`: the move of every
/// pixel-shuffling kernel (flip, quarter turns, extrude).
@inlinable @inline(__always)
package func copyPixel<C>(_ src: UnsafeBufferPointer<C>, _ s: Int, to dst: UnsafeMutableBufferPointer<C>, _ d: Int) {
    dst[d] = src[s]
    dst[d + 1] = src[s + 1]
    dst[d + 2] = src[s + 2]
    dst[d + 3] = src[s + 3]
}

/// Copies the rectangle (x, y, width, height) of the source to (dx, dy) of the
/// destination, row by row. The shared move of crop, pad, extrude and trim.
public struct RectCopy: CopyKernel {
    public static var movesPixelsOnly: Bool { true }
    public var x: Int, y: Int, dx: Int, dy: Int, width: Int, height: Int

    @inlinable
    public init(x: Int, y: Int, width: Int, height: Int, to dx: Int, _ dy: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.dx = dx
        self.dy = dy
    }

    @inlinable
    public func run<C: PixelChannel>(
        _ src: UnsafeBufferPointer<C>, srcWidth: Int, srcHeight: Int,
        _ dst: UnsafeMutableBufferPointer<C>, width dstWidth: Int, height dstHeight: Int
    ) {
        let n = width * 4
        for row in 0..<height {
            let s = ((y + row) * srcWidth + x) * 4
            let d = ((dy + row) * dstWidth + dx) * 4
            _ = UnsafeMutableBufferPointer(rebasing: dst[d..<d + n])
                .update(fromContentsOf: UnsafeBufferPointer(rebasing: src[s..<s + n]))
        }
    }
}
