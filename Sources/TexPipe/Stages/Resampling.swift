internal import Foundation

/// The reconstruction filters of `mipmaps` and `resize` (SPEC §3), and the separable resampler
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
        case .triangle: return max(0, 1 - ax)
        case .lanczos3: return ax < 3 ? sinc(ax) * sinc(ax / 3) : 0
        case .kaiser:
            guard ax < 3 else { return 0 }
            let t = ax / 3
            return sinc(ax) * besselI0(4 * (1 - t * t).squareRoot()) / besselI0(4)
        }
    }

    private func sinc(_ x: Double) -> Double {
        x < 1e-9 ? 1 : sin(Double.pi * x) / (Double.pi * x)
    }

    /// Modified Bessel function of the first kind, order 0 (power series).
    private func besselI0(_ x: Double) -> Double {
        var sum = 1.0
        var term = 1.0
        var k = 1.0
        while term > 1e-12 * sum {
            term *= (x / (2 * k)) * (x / (2 * k))
            sum += term
            k += 1
        }
        return sum
    }
}

/// The parameters `mipmaps` and `resize` share, declared once.
enum ResamplingParameters {
    static let filter = Parameter.choice(
        "filter", ResampleFilter.allCases.map(\.rawValue), default: "box", doc: "reconstruction filter")
    static let colorSpace = Parameter.choice(
        "colorSpace", ["srgb", "linear"], default: "srgb", doc: "srgb filters in linear light; linear for data maps")
    static let edge = Parameter.choice(
        "edge", ["clamp", "wrap"], default: "clamp", doc: "clamp for sprites, wrap for tiling textures")
}

/// What lies beyond the border: the edge texel repeated (`clamp`, for sprites) or the other
/// side (`wrap`, for tiling textures).
public enum EdgeMode: String, Sendable { case clamp, wrap }

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

extension FloatImage {
    /// Separable resampling to `width` × `height`: a horizontal pass, then a vertical one.
    public func resampled(width w: Int, height h: Int, filter: ResampleFilter, edge: EdgeMode) -> FloatImage {
        if w == width && h == height { return self }
        let tx = Taps(from: width, to: w, filter: filter, edge: edge)
        let ty = Taps(from: height, to: h, filter: filter, edge: edge)
        let srcW = width
        let srcH = height
        // Horizontal: srcH rows of w.
        let mid = [SIMD4<Float>](unsafeUninitializedCapacity: w * srcH) { out, count in
            pixels.withUnsafeBufferPointer { src in
                for y in 0..<srcH {
                    let row = y * srcW
                    for x in 0..<w {
                        var acc = SIMD4<Float>()
                        for t in tx.start[x]..<tx.start[x + 1] {
                            acc += tx.weight[t] * src[row + tx.index[t]]
                        }
                        out[y * w + x] = acc
                    }
                }
            }
            count = w * srcH
        }
        // Vertical: whole rows at a time, so the inner loop runs over contiguous memory.
        let out = [SIMD4<Float>](unsafeUninitializedCapacity: w * h) { out, count in
            mid.withUnsafeBufferPointer { mid in
                for y in 0..<h {
                    let dst = y * w
                    for x in 0..<w { out[dst + x] = .zero }
                    for t in ty.start[y]..<ty.start[y + 1] {
                        let wt = ty.weight[t]
                        let src = ty.index[t] * w
                        for x in 0..<w { out[dst + x] += wt * mid[src + x] }
                    }
                }
            }
            count = w * h
        }
        return FloatImage(width: w, height: h, pixels: out)
    }
}
