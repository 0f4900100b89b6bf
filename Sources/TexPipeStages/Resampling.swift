internal import Foundation
internal import TexPipeParameters
public import TexPipePixels

/// The reconstruction filters of `mipmaps` and `resize` (docs/stages.md), and the separable resampler
/// they share. Always applied to `FloatImage` (premultiplied Float).
public enum ResampleFilter: String, Sendable, CaseIterable {
    /// Area-weighted box: each output texel averages exactly the source area it covers, so an odd
    /// dimension's texel weighs 3 source texels (1, 1, ½ for 5 → 2) instead of dropping one.
    case box
    /// Tent, radius 1 (scaled by the reduction factor).
    case triangle
    /// Kaiser-windowed sinc, radius 3, α = 4 (NVTT's defaults).
    case kaiser
    /// Lanczos, a = 3.
    case lanczos3

    var radius: Double {
        switch self {
        case .box: 0.5
        case .triangle: 1
        case .kaiser, .lanczos3: 3
        }
    }

    func weight(_ x: Double) -> Double {
        let ax = abs(x)
        switch self {
        case .box: return ax <= 0.5 ? 1 : 0
        case .triangle: return FilterKernels.tent(ax)
        case .lanczos3: return FilterKernels.lanczos(ax, a: 3)
        case .kaiser: return FilterKernels.kaiser(ax, radius: 3, alpha: 4)
        }
    }
}

/// The parameters `mipmaps` and `resize` share, declared once.
enum ResamplingParameters {
    static let filter = Parameter.choice(
        "filter", ResampleFilter.self, default: .box, doc: "reconstruction filter")
    static let colorSpace = Parameter.choice(
        "colorSpace", ColorSpace.self, default: .srgb, doc: "srgb filters in linear light; linear for data maps")
    static let edge = Parameter.choice(
        "edge", EdgeMode.self, default: .clamp, doc: "clamp for sprites, wrap for tiling textures")
}

/// What lies beyond the border: the edge texel repeated (`clamp`, for sprites) or the other
/// side (`wrap`, for tiling textures).
public enum EdgeMode: String, Sendable, CaseIterable { case clamp, wrap }

/// Per-output-index taps: source indices and normalised weights, edges already resolved.
struct Taps {
    var start: [Int] = [0]
    var index: [Int] = []
    var weight: [Float] = []

    init(from src: Int, to dst: Int, filter: ResampleFilter, edge: EdgeMode) {
        let scale = Double(src) / Double(dst)
        for i in 0..<dst {
            var taps: [(Int, Double)] = []
            if filter == .box {
                // Exact area overlap of source texel j with [i·scale, (i + 1)·scale).
                let lo = Double(i) * scale
                let hi = Double(i + 1) * scale
                for j in Int(lo.rounded(.down))..<Int(hi.rounded(.up)) {
                    let overlap = min(Double(j + 1), hi) - max(Double(j), lo)
                    if overlap > 1e-12 { taps.append((j, overlap)) }
                }
            } else {
                let stretch = max(1, scale)
                let center = (Double(i) + 0.5) * scale - 0.5
                let support = filter.radius * stretch
                for j in Int((center - support).rounded(.up))...Int((center + support).rounded(.down)) {
                    let w = filter.weight((Double(j) - center) / stretch)
                    if w != 0 { taps.append((j, w)) }
                }
                if taps.isEmpty { taps.append((Int(center.rounded()), 1)) }
            }
            let total = taps.reduce(0) { $0 + $1.1 }
            // Merge taps that fold onto the same texel at the edges.
            var merged: [Int: Double] = [:]
            for (j, w) in taps {
                let k = edge == .wrap ? ((j % src) + src) % src : min(max(j, 0), src - 1)
                merged[k, default: 0] += w / total
            }
            for k in merged.keys.sorted() {
                index.append(k)
                weight.append(Float(merged[k]!))
            }
            start.append(index.count)
        }
    }
}

/// Rows of premultiplied Float on demand, for the streaming resampler: a `FloatImage`'s own rows,
/// or an 8/16-bit image's rows converted one at a time (so level 0 of a mipmap chain never exists
/// as a whole Float image, 16 bytes per pixel).
protocol FloatRowSource {
    var width: Int { get }
    var height: Int { get }
    /// Row `y`: a pointer into the source, or `scratch` (width pixels) filled with it.
    func row(_ y: Int, scratch: UnsafeMutablePointer<SIMD4<Float>>) -> UnsafePointer<SIMD4<Float>>
}

/// A Float image's rows, in place (valid inside the `withUnsafeBufferPointer` that made it).
struct FloatRows: FloatRowSource {
    var base: UnsafePointer<SIMD4<Float>>
    var width: Int
    var height: Int
    func row(_ y: Int, scratch: UnsafeMutablePointer<SIMD4<Float>>) -> UnsafePointer<SIMD4<Float>> {
        base + y * width
    }
}

/// An 8/16-bit image read as premultiplied Float rows, exactly as `FloatImage.init(_:colorSpace:)` converts it.
struct ConvertedRows: FloatRowSource {
    var image: Image
    var colorSpace: ColorSpace
    var width: Int { image.width }
    var height: Int { image.height }

    func row(_ y: Int, scratch: UnsafeMutablePointer<SIMD4<Float>>) -> UnsafePointer<SIMD4<Float>> {
        let premultiplied = image.alpha == .premultiplied
        let out = UnsafeMutableBufferPointer(start: scratch, count: width)
        switch image.pixels {
        case .rgba8(let p):
            p.withUnsafeBufferPointer {
                FloatImage.load(
                    UnsafeBufferPointer(rebasing: $0[(4 * width * y)..<(4 * width * (y + 1))]), into: out,
                    premultiplied: premultiplied, space: colorSpace, table: SRGB.decode8)
            }
        case .rgba16(let p):
            p.withUnsafeBufferPointer {
                FloatImage.load(
                    UnsafeBufferPointer(rebasing: $0[(4 * width * y)..<(4 * width * (y + 1))]), into: out,
                    premultiplied: premultiplied, space: colorSpace, table: SRGB.decode16)
            }
        case .rgbaF32(let p):
            p.withUnsafeBufferPointer {
                FloatImage.loadHDR(
                    UnsafeBufferPointer(rebasing: $0[(4 * width * y)..<(4 * width * (y + 1))]), into: out,
                    premultiplied: premultiplied)
            }
        }
        return UnsafePointer(scratch)
    }
}

/// Separable resampling, streamed: each source row is filtered horizontally once, into a small
/// ring of rows (one more than the most vertical taps of any output row), and each output row sums
/// its taps from the ring. No intermediate image; the same arithmetic, in the same order, as a
/// horizontal pass over the whole image followed by a vertical one (tested against exactly that).
/// Rows may be asked for in any order: a row the ring no longer holds is filtered again.
final class RowResampler {
    let source: any FloatRowSource
    let width: Int
    let height: Int
    private let tx: Taps
    private let ty: Taps
    private let slots: Int
    private let ring: UnsafeMutablePointer<SIMD4<Float>>
    private var rowInSlot: [Int]
    private var lastUse: [Int]
    private var clock = 0

    init(_ source: any FloatRowSource, width w: Int, height h: Int, filter: ResampleFilter, edge: EdgeMode) {
        self.source = source
        (width, height) = (w, h)
        tx = Taps(from: source.width, to: w, filter: filter, edge: edge)
        ty = Taps(from: source.height, to: h, filter: filter, edge: edge)
        slots = 1 + (0..<h).reduce(1) { [ty] in max($0, ty.start[$1 + 1] - ty.start[$1]) }
        // The ring, then one source row of scratch for sources that convert rows.
        ring = .allocate(capacity: slots * w + source.width)
        rowInSlot = [Int](repeating: -1, count: slots)
        lastUse = [Int](repeating: -1, count: slots)
    }

    deinit { ring.deallocate() }

    /// Output row `y` into `dst` (width pixels).
    func computeRow(_ y: Int, into dst: UnsafeMutablePointer<SIMD4<Float>>) {
        clock += 1
        dst.initialize(repeating: .zero, count: width)
        for t in ty.start[y]..<ty.start[y + 1] {
            let wt = ty.weight[t]
            let src = ring + slot(for: ty.index[t]) * width
            for x in 0..<width { dst[x] += wt * src[x] }
        }
    }

    /// The slot holding source row `sy` filtered horizontally; when absent it is computed into
    /// the least recently used slot (each tap is consumed as soon as it is found, so the ring's
    /// size only decides how often a row is filtered again, never the result).
    private func slot(for sy: Int) -> Int {
        if let s = rowInSlot.firstIndex(of: sy) {
            lastUse[s] = clock
            return s
        }
        var s = 0
        for k in 1..<slots where lastUse[k] < lastUse[s] { s = k }
        rowInSlot[s] = sy
        lastUse[s] = clock
        let src = source.row(sy, scratch: ring + slots * width)
        let dst = ring + s * width
        tx.index.withUnsafeBufferPointer { index in
            tx.weight.withUnsafeBufferPointer { weight in
                for x in 0..<width {
                    var acc = SIMD4<Float>()
                    for t in tx.start[x]..<tx.start[x + 1] { acc += weight[t] * src[index[t]] }
                    dst[x] = acc
                }
            }
        }
        return s
    }
}

extension FloatRowSource {
    /// The whole resampled image (see `RowResampler`).
    func streamResampled(width w: Int, height h: Int, filter: ResampleFilter, edge: EdgeMode) -> FloatImage {
        let resampler = RowResampler(self, width: w, height: h, filter: filter, edge: edge)
        let out = [SIMD4<Float>](unsafeUninitializedCapacity: w * h) { out, count in
            for y in 0..<h { resampler.computeRow(y, into: out.baseAddress! + y * w) }
            count = w * h
        }
        return FloatImage(width: w, height: h, pixels: out)
    }
}

/// One level of a streamed mipmap chain: a row source whose rows are resampled from the level
/// above on demand, and quantised into this level's 8/16-bit image the first time each is made.
/// Pulling the last level's rows pulls every level's, in order, so a box chain never holds a
/// whole Float level: only the rings and the quantised outputs.
final class StreamedLevel: FloatRowSource {
    let resampler: RowResampler
    let alpha: AlphaState
    let colorSpace: ColorSpace
    var width: Int { resampler.width }
    var height: Int { resampler.height }
    private var image: Image
    private var stored: [Bool]

    init(
        from source: any FloatRowSource, width: Int, height: Int, depth: Int, alpha: AlphaState,
        colorSpace: ColorSpace, filter: ResampleFilter, edge: EdgeMode
    ) {
        resampler = RowResampler(source, width: width, height: height, filter: filter, edge: edge)
        (self.alpha, self.colorSpace) = (alpha, colorSpace)
        image = Image(width: width, height: height, depth: depth, alpha: alpha)
        stored = [Bool](repeating: false, count: height)
    }

    func row(_ y: Int, scratch: UnsafeMutablePointer<SIMD4<Float>>) -> UnsafePointer<SIMD4<Float>> {
        resampler.computeRow(y, into: scratch)
        if !stored[y] {
            stored[y] = true
            let row = UnsafeBufferPointer(start: UnsafePointer(scratch), count: width)
            let offset = 4 * width * y
            func store<C: PixelChannel>(_ p: inout [C]) {
                p.withUnsafeMutableBufferPointer {
                    FloatImage.store(row, into: $0.baseAddress! + offset, alpha: alpha, space: colorSpace)
                }
            }
            if case .rgbaF32(var p) = image.pixels {
                image.pixels = .rgba8([])
                p.withUnsafeMutableBufferPointer {
                    FloatImage.storeHDR(row, into: $0.baseAddress! + offset, alpha: alpha)
                }
                image.pixels = .rgbaF32(p)
            } else {
                image.pixels.modify({ store(&$0) }, { store(&$0) })
            }
        }
        return UnsafePointer(scratch)
    }

    /// The level, making any row nobody pulled.
    func finished() -> Image {
        let scratch = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: width)
        defer { scratch.deallocate() }
        for y in 0..<height where !stored[y] { _ = row(y, scratch: scratch) }
        return image
    }
}

extension FloatImage {
    /// Separable resampling to `width` × `height` (see `FloatRowSource.resampled`).
    public func resampled(width w: Int, height h: Int, filter: ResampleFilter, edge: EdgeMode) -> FloatImage {
        if w == width && h == height { return self }
        return pixels.withUnsafeBufferPointer {
            FloatRows(base: $0.baseAddress!, width: width, height: height)
                .streamResampled(width: w, height: h, filter: filter, edge: edge)
        }
    }
}
