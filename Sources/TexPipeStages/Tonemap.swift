internal import Foundation
public import TexPipeParameters
public import TexPipePixels

/// `tonemap`: an HDR image to an 8-bit sRGB one (docs/hdr.md). Per pixel, on straight colour
/// (a premultiplied image is divided by its alpha first and multiplied back in 8 bits):
///   c = c · 2^exposure
///   clamp:    t = min(c, 1)
///   reinhard: t = c / (1 + c)
///   aces:     t = clamp(c(2.51c + 0.03) / (c(2.43c + 0.59) + 0.14), 0, 1)   (Narkowicz's fit of ACES)
///   8-bit = round(255 · sRGB(t)), half up (within 1 unit: the encoding goes through a table of
///   1/65535 steps); alpha = round(255 · clamp(a, 0, 1)).
/// Negative colour (a filter's undershoot) counts as 0.
public struct Tonemap: Stage {
    public static let name = "tonemap"
    public static let summary = "HDR to 8-bit sRGB: exposure (stops), then a clamp, reinhard or aces curve"
    public static let takesHDR = true
    public static let takesCube = true
    public static let identity = #"{"curve": "clamp"}"#
    public static let parameters: [Parameter] = [
        .number("exposure", in: -32...32, default: 0, doc: "stops: colour is multiplied by 2^exposure first"),
        .choice("curve", Curve.self, default: .aces, doc: "how values above 1 come down into 0…1"),
    ]

    public enum Curve: String, Sendable, CaseIterable { case aces, reinhard, clamp }

    public var exposure: Double
    public var curve: Curve

    public init(_ a: Arguments) {
        exposure = a.number("exposure")
        curve = a.choice("curve", as: Curve.self)
    }

    public init(exposure: Double = 0, curve: Curve = .aces) {
        self.exposure = exposure
        self.curve = curve
    }

    public func planned(_ input: Signature) throws -> [Signature] {
        guard input.isHDR else { throw StageError(.tonemapNeedsHDR) }
        var out = input
        out.depth = 8
        return [out]
    }

    /// The curve at `c` (≥ 0, after exposure). Past 10⁶ (infinity included, where the curves'
    /// quotients would be ∞/∞) every curve is 1 to 16 bits.
    @inline(__always)
    func mapped(_ c: Float) -> Float {
        guard c <= 1e6 else { return 1 }
        switch curve {
        case .clamp: return min(c, 1)
        case .reinhard: return c / (1 + c)
        case .aces: return min(max(c * (2.51 * c + 0.03) / (c * (2.43 * c + 0.59) + 0.14), 0), 1)
        }
    }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        guard case .rgbaF32(let p) = image.pixels else { throw StageError(.tonemapNeedsHDR) }
        let scale = Float(exp2(exposure))
        let premultiplied = image.alpha == .premultiplied
        var out = [UInt8](repeating: 0, count: p.count)
        let (w, h) = (image.width, image.height)
        p.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                context.rows.forEachBand(rows: h, pixelsPerRow: w) { rows in
                    for i in (rows.lowerBound * w)..<(rows.upperBound * w) {
                        let a = min(max(src[4 * i + 3].isNaN ? 0 : src[4 * i + 3], 0), 1)
                        let a8 = Int(a * 255 + 0.5)
                        for k in 0..<3 {
                            var c = src[4 * i + k]
                            if premultiplied { c = a > 0 ? c / a : 0 }
                            c = c.isNaN ? 0 : max(c, 0) * scale
                            let t = mapped(c)
                            var v = Int(SRGB.encode8[Int(t * 65535 + 0.5)])
                            if premultiplied { v = Rounding.mulDiv(v, a8, max: 255) }
                            dst[4 * i + k] = UInt8(v)
                        }
                        dst[4 * i + 3] = UInt8(a8)
                    }
                }
            }
        }
        return [image.with(width: w, height: h, pixels: .rgba8(out))]
    }
}

extension Tonemap {
    /// An image as texpipe's pages show it (the HTML report, `texpipe diff`'s page): HDR through
    /// the default tonemap (docs/hdr.md), then scaled down to fit `side` texels on its longer side
    /// (never up). Should either step fail, the image as it was.
    public static func shown(_ image: Image, fitting side: Int = .max) -> Image {
        var context = StageContext()
        let mapped = image.isHDR ? (try? Tonemap().applied(to: image, context: &context)[0]) ?? image : image
        let scale = min(1, Double(side) / Double(max(mapped.width, mapped.height)))
        guard scale < 1 else { return mapped }
        return (try? Resize(scale: scale).applied(to: mapped, context: &context)[0]) ?? mapped
    }
}
