internal import Foundation
public import TexPipeParameters
public import TexPipePixels

/// `cubemap`: an equirectangular (2:1 latitude–longitude) image in, a cube map out (docs/hdr.md
/// "Cube maps"): six `size` × `size` faces in KTX2's order and OpenGL's orientation
/// (`CubeMap.direction`), each texel the equirect sampled at its centre's direction
/// (`CubeMap.equirect`: +Y up, longitude to the right, −Z at the centre column) with `bilinear` or
/// `bicubic` (Keys, a = −½) interpolation on premultiplied values in linear light, wrapping across
/// the left and right edges (the seam at ±180°) and clamping at the poles. Bicubic results are
/// clamped to the range of the four nearest texels: an HDR sun thousands of times its sky would
/// otherwise ring into a black halo. Takes LDR and HDR.
public struct Cubemap: Stage {
    public static let name = "cubemap"
    public static let summary = "equirectangular (2:1) image to a cube map of six size × size faces"
    public static let takesHDR = true
    // A 4×2 image seen as a cube of 1×1 faces cannot be an identity: it is checked by its own tests.
    public static let identity = #"{"size": 1, "filter": "bilinear"}"#
    public static let parameters: [Parameter] = [
        Parameter("size", .integer(1...16384), .optional(absentDoc: "width / 4"), doc: "face edge, px"),
        .choice("filter", Filter.self, default: .bicubic, doc: "how the equirect is sampled"),
    ]

    public enum Filter: String, Sendable, CaseIterable { case bicubic, bilinear }

    public var size: Int?
    public var filter: Filter

    public init(_ a: Arguments) {
        size = a.optionalInteger("size")
        filter = a.choice("filter", as: Filter.self)
    }

    public init(size: Int? = nil, filter: Filter = .bicubic) {
        self.size = size
        self.filter = filter
    }

    public func planned(_ input: Signature) throws -> [Signature] {
        if let w = input.width, let h = input.height, w != 2 * h {
            throw StageError(.cubemapNeedsEquirect(width: w, height: h))
        }
        var out = input
        let n = size ?? input.width.map { max(1, $0 / 4) }
        out.width = n
        out.height = n.map { 6 * $0 }
        out.cube = true
        return [out]
    }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        guard image.width == 2 * image.height else {
            throw StageError(.cubemapNeedsEquirect(width: image.width, height: image.height))
        }
        let n = size ?? max(1, image.width / 4)
        let source = FloatImage(image, colorSpace: .srgb)
        var faces = [SIMD4<Float>](repeating: .zero, count: 6 * n * n)
        let (w, h) = (source.width, source.height)
        source.pixels.withUnsafeBufferPointer { src in
            faces.withUnsafeMutableBufferPointer { dst in
                context.rows.forEachBand(rows: 6 * n, pixelsPerRow: n * 16) { rows in
                    for row in rows {
                        let (f, y) = (row / n, row % n)
                        let t = 2 * (Float(y) + 0.5) / Float(n) - 1
                        for x in 0..<n {
                            let s = 2 * (Float(x) + 0.5) / Float(n) - 1
                            let (u, v) = CubeMap.equirect(CubeMap.direction(face: f, s: s, t: t))
                            let (px, py) = (u * Float(w) - 0.5, v * Float(h) - 0.5)
                            dst[row * n + x] =
                                filter == .bilinear
                                ? Self.sample(src, w, h, px, py, radius: 1, Self.tent)
                                : Self.sample(src, w, h, px, py, radius: 2, Self.keys)
                        }
                    }
                }
            }
        }
        var out = FloatImage(width: n, height: 6 * n, pixels: faces)
            .image(depth: image.depth, alpha: image.alpha, colorSpace: .srgb)
        out = image.with(width: n, height: 6 * n, pixels: out.pixels)
        out.cube = true
        return [out]
    }

    @inline(__always) static func tent(_ x: Float) -> Float { max(0, 1 - abs(x)) }

    @inline(__always) static func keys(_ x: Float) -> Float {
        let ax = abs(x)
        if ax < 1 { return (1.5 * ax - 2.5) * ax * ax + 1 }
        if ax < 2 { return ((-0.5 * ax + 2.5) * ax - 4) * ax + 2 }
        return 0
    }

    /// The separable interpolation at (x, y) in pixel-centre coordinates: columns wrap, rows clamp.
    @inline(__always)
    static func sample(
        _ src: UnsafeBufferPointer<SIMD4<Float>>, _ w: Int, _ h: Int, _ x: Float, _ y: Float, radius: Int,
        _ weight: (Float) -> Float
    ) -> SIMD4<Float> {
        let x0 = Int(x.rounded(.down))
        let y0 = Int(y.rounded(.down))
        var acc = SIMD4<Float>()
        var total: Float = 0
        // The four nearest texels' range, for the bicubic's clamp.
        var lo = SIMD4<Float>(repeating: .greatestFiniteMagnitude)
        var hi = SIMD4<Float>(repeating: -.greatestFiniteMagnitude)
        if radius > 1 {
            for j in y0...(y0 + 1) {
                let row = min(max(j, 0), h - 1) * w
                for i in x0...(x0 + 1) {
                    let v = src[row + ((i % w) + w) % w]
                    lo = pointwiseMin(lo, v)
                    hi = pointwiseMax(hi, v)
                }
            }
        }
        for j in (y0 - radius + 1)...(y0 + radius) {
            let wy = weight(y - Float(j))
            if wy == 0 { continue }
            let row = min(max(j, 0), h - 1) * w
            for i in (x0 - radius + 1)...(x0 + radius) {
                let wx = weight(x - Float(i)) * wy
                if wx == 0 { continue }
                let col = ((i % w) + w) % w
                acc += wx * src[row + col]
                total += wx
            }
        }
        let value = total > 0 ? acc / total : acc
        return radius > 1 ? value.clamped(lowerBound: lo, upperBound: hi) : value
    }
}
