internal import Foundation

/// sRGB transfer functions (IEC 61966-2-1), and lookup tables for the hot paths.
public enum SRGB {
    public static func toLinear(_ c: Float) -> Float {
        c <= 0.04045 ? c / 12.92 : powf((c + 0.055) / 1.055, 2.4)
    }

    public static func fromLinear(_ c: Float) -> Float {
        c <= 0.003_130_8 ? c * 12.92 : 1.055 * powf(c, 1 / 2.4) - 0.055
    }

    /// Linear value of every 8-bit code.
    package static let decode8: [Float] = (0..<256).map { toLinear(Float($0) / 255) }
    /// Linear value of every 16-bit code.
    package static let decode16: [Float] = (0..<65536).map { toLinear(Float($0) / 65535) }
    /// 8-bit code of a linear value quantised to 1/65535: off from the exact result by at most
    /// 0.03 of a unit (the steepest slope of the curve is 12.92).
    @usableFromInline package static let encode8: [UInt8] = (0..<65536).map {
        UInt8(fromLinear(Float($0) / 65535) * 255 + 0.5)
    }
}

/// Which values filtering averages: `srgb` decodes to linear light first (correct for color
/// textures), `linear` uses the stored values (normal maps, masks, data). docs/stages.md.
public enum ColorSpace: String, Sendable, CaseIterable { case srgb, linear }

/// RGBA as Float, premultiplied, in linear light or stored values: the form every filtering
/// stage works in (docs/manifest.md), so low-alpha colors survive and transparent texels weigh nothing.
public struct FloatImage: Sendable {
    public var width: Int
    public var height: Int
    public var pixels: [SIMD4<Float>]

    public init(width: Int, height: Int, pixels: [SIMD4<Float>]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// From an 8/16-bit image in either alpha state.
    public init(_ image: Image, colorSpace: ColorSpace) {
        width = image.width
        height = image.height
        let premultiplied = image.alpha == .premultiplied
        switch image.pixels {
        case .rgba8(let p):
            pixels = FloatImage.load(p, premultiplied: premultiplied, space: colorSpace, table: SRGB.decode8)
        case .rgba16(let p):
            pixels = FloatImage.load(p, premultiplied: premultiplied, space: colorSpace, table: SRGB.decode16)
        case .rgbaF32(let p):
            // HDR is linear light already: the colour space does not apply.
            pixels = [SIMD4<Float>](unsafeUninitializedCapacity: p.count / 4) { out, count in
                p.withUnsafeBufferPointer { FloatImage.loadHDR($0, into: out, premultiplied: premultiplied) }
                count = p.count / 4
            }
        }
    }

    /// An HDR image's `p.count / 4` pixels into `out`, premultiplied (whole images, or one row).
    @inlinable
    package static func loadHDR(
        _ p: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<SIMD4<Float>>, premultiplied: Bool
    ) {
        for i in 0..<(p.count / 4) {
            let v = SIMD4(p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3])
            out[i] = premultiplied ? v : SIMD4(v.x * v.w, v.y * v.w, v.z * v.w, v.w)
        }
    }

    /// `px.count` premultiplied pixels into an HDR image's Floats in `alpha` state: alpha clamped
    /// to 0…1, colour to 0 and above (negative filter lobes undershoot; HDR has no upper bound),
    /// colour under alpha 0 is 0.
    @inlinable
    package static func storeHDR(
        _ pixels: UnsafeBufferPointer<SIMD4<Float>>, into out: UnsafeMutablePointer<Float>, alpha: AlphaState
    ) {
        for (i, px) in pixels.enumerated() {
            let a = min(max(px.w, 0), 1)
            guard a > 0 else {
                out[4 * i] = 0; out[4 * i + 1] = 0; out[4 * i + 2] = 0; out[4 * i + 3] = 0
                continue
            }
            var c = SIMD3(max(px.x, 0), max(px.y, 0), max(px.z, 0)) / px.w
            if alpha == .premultiplied { c *= a }
            out[4 * i] = c.x
            out[4 * i + 1] = c.y
            out[4 * i + 2] = c.z
            out[4 * i + 3] = a
        }
    }

    static func load<C: PixelChannel>(_ p: [C], premultiplied: Bool, space: ColorSpace, table: [Float]) -> [SIMD4<
        Float
    >] {
        [SIMD4<Float>](unsafeUninitializedCapacity: p.count / 4) { out, count in
            p.withUnsafeBufferPointer { load($0, into: out, premultiplied: premultiplied, space: space, table: table) }
            count = p.count / 4
        }
    }

    /// Converts `p.count / 4` pixels into `out` (whole images, or one row for the streaming resampler).
    @inlinable
    package static func load<C: PixelChannel>(
        _ p: UnsafeBufferPointer<C>, into out: UnsafeMutableBufferPointer<SIMD4<Float>>, premultiplied: Bool,
        space: ColorSpace, table: [Float]
    ) {
        let inv = 1 / Float(C.maxValue)
        for i in 0..<(p.count / 4) {
            let a = Float(p[4 * i + 3]) * inv
            var c = SIMD3<Float>(Float(p[4 * i]), Float(p[4 * i + 1]), Float(p[4 * i + 2]))
            if premultiplied {
                // Unpremultiply before decoding: the transfer curve is not linear.
                c = a > 0 ? elementMin(c * inv / a, SIMD3(repeating: 1)) : .zero
                if space == .srgb { c = SIMD3(SRGB.toLinear(c.x), SRGB.toLinear(c.y), SRGB.toLinear(c.z)) }
            } else if space == .srgb {
                c = SIMD3(table[Int(p[4 * i])], table[Int(p[4 * i + 1])], table[Int(p[4 * i + 2])])
            } else {
                c *= inv
            }
            out[i] = SIMD4(c * a, a)
        }
    }

    /// Back to an 8/16-bit image (or, at depth 32, an HDR one: see `storeHDR`) in `alpha` state;
    /// colors under alpha 0 become 0.
    /// Alpha is clamped to 0…1 and color to 0…alpha (negative filter lobes overshoot).
    public func image(depth: Int, alpha: AlphaState, colorSpace: ColorSpace) -> Image {
        if depth == 32 {
            let p = [Float](unsafeUninitializedCapacity: pixels.count * 4) { out, count in
                pixels.withUnsafeBufferPointer { FloatImage.storeHDR($0, into: out.baseAddress!, alpha: alpha) }
                count = pixels.count * 4
            }
            return Image(width: width, height: height, pixels: .rgbaF32(p), alpha: alpha)
        }
        let storage: PixelStorage =
            depth == 16
            ? .rgba16(store(UInt16.self, alpha: alpha, space: colorSpace))
            : .rgba8(store(UInt8.self, alpha: alpha, space: colorSpace))
        return Image(width: width, height: height, pixels: storage, alpha: alpha)
    }

    func store<C: PixelChannel>(_: C.Type, alpha: AlphaState, space: ColorSpace) -> [C] {
        [C](unsafeUninitializedCapacity: pixels.count * 4) { out, count in
            pixels.withUnsafeBufferPointer {
                FloatImage.store($0, into: out.baseAddress!, alpha: alpha, space: space)
            }
            count = pixels.count * 4
        }
    }

    /// Quantises `px.count` pixels into `out` (whole images, or one row of a streamed level).
    @inlinable
    package static func store<C: PixelChannel>(
        _ pixels: UnsafeBufferPointer<SIMD4<Float>>, into out: UnsafeMutablePointer<C>, alpha: AlphaState,
        space: ColorSpace
    ) {
        let m = Float(C.maxValue)
        let eightBitSRGB = C.self == UInt8.self && space == .srgb
        for (i, px) in pixels.enumerated() {
            let a = min(max(px.w, 0), 1)
            let qa = Int(a * m + 0.5)
            guard qa > 0 else {
                out[4 * i] = 0; out[4 * i + 1] = 0; out[4 * i + 2] = 0; out[4 * i + 3] = 0
                continue
            }
            // The ratio to the unclamped alpha: an overshooting lobe scales color and alpha
            // together, so the color itself is unchanged.
            var c = elementClamp(SIMD3(px.x, px.y, px.z) / px.w, .zero, SIMD3(repeating: 1))
            if eightBitSRGB {
                let q = (c * 65535 + 0.5)
                let e = (SRGB.encode8[Int(q.x)], SRGB.encode8[Int(q.y)], SRGB.encode8[Int(q.z)])
                if alpha != .premultiplied {
                    // The table's byte as it is: Int(Float(e) / 255 · 255 + 0.5) is e for every
                    // byte e, so the round trip through a float (three integer-to-float
                    // conversions a pixel) wrote the same bytes.
                    out[4 * i] = C(truncatingIfNeeded: e.0)
                    out[4 * i + 1] = C(truncatingIfNeeded: e.1)
                    out[4 * i + 2] = C(truncatingIfNeeded: e.2)
                    out[4 * i + 3] = C(truncatingIfNeeded: qa)
                    continue
                }
                c = SIMD3(Float(e.0), Float(e.1), Float(e.2)) / 255
            } else if space == .srgb {
                c = SIMD3(SRGB.fromLinear(c.x), SRGB.fromLinear(c.y), SRGB.fromLinear(c.z))
            }
            if alpha == .premultiplied { c *= Float(qa) / m }
            let q = c * m + 0.5
            out[4 * i] = C(truncatingIfNeeded: Int(q.x))
            out[4 * i + 1] = C(truncatingIfNeeded: Int(q.y))
            out[4 * i + 2] = C(truncatingIfNeeded: Int(q.z))
            out[4 * i + 3] = C(truncatingIfNeeded: qa)
        }
    }
}

// Lane by lane with the scalar min/max: the standard library's generic `pointwiseMin/Max` on
// SIMD3<Float> stayed an out-of-line call per pixel in release builds (seen in profiles).
@inlinable @inline(__always) func elementMin(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
    SIMD3(min(a.x, b.x), min(a.y, b.y), min(a.z, b.z))
}
@inlinable @inline(__always) func elementClamp(_ v: SIMD3<Float>, _ lo: SIMD3<Float>, _ hi: SIMD3<Float>) -> SIMD3<
    Float
> {
    SIMD3(min(max(v.x, lo.x), hi.x), min(max(v.y, lo.y), hi.y), min(max(v.z, lo.z), hi.z))
}
