import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipePixels

/// Linear float pixels back to 8-bit sRGB, against the sRGB transfer function (IEC 61966-2-1)
/// written out here.
@Suite("8-bit sRGB store")
struct StoreTests {
    /// The encoded 8-bit value of a linear one, from the standard's formula.
    static func srgb8(_ v: Double) -> Int {
        let s = v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
        return Int((s * 255).rounded())
    }

    /// Straight alpha: each color by the formula whatever the alpha (pixels are held
    /// premultiplied), alpha rounded, color under alpha 0 written as 0. Each value lies at least
    /// 0.05 of a step from a rounding boundary (0.9 → 243.45), more than the table's 16-bit input
    /// can move it (under 0.03 of a step at these values).
    @Test func straightAlphaColorsAreTheFormulasBytes() {
        let linear: [Float] = [0.05, 0.9, 0.35, 0.002, 0]
        let alphas: [Float] = [1, 0.5, 0.2]
        var pixels: [SIMD4<Float>] = []
        var expected: [UInt8] = []
        for a in alphas {
            for v in linear {
                pixels.append(SIMD4(v * a, 0.35 * a, 0.9 * a, a))
                expected += [UInt8(Self.srgb8(Double(v))), UInt8(Self.srgb8(0.35)), UInt8(Self.srgb8(0.9))]
                expected.append(UInt8(Int(a * 255 + 0.5)))
            }
        }
        pixels.append(SIMD4(0.3, 0.3, 0.3, 0))
        expected += [0, 0, 0, 0]
        let image = FloatImage(width: pixels.count, height: 1, pixels: pixels)
            .image(depth: 8, alpha: .straight, colorSpace: .srgb)
        guard case .rgba8(let bytes) = image.pixels else {
            Issue.record("an 8-bit image expected")
            return
        }
        #expect(bytes == expected)
        #expect(expected[0...3] == [63, 160, 243, 255])
    }

    /// Every 8-bit sRGB value survives the trip to linear floats and back, at any alpha.
    @Test func everyByteRoundTrips() {
        var bytes: [UInt8] = []
        for a in [255, 128, 1] {
            for v in 0..<256 { bytes += [UInt8(v), UInt8(255 - v), UInt8(v / 2), UInt8(a)] }
        }
        let image = Image(width: bytes.count / 4, height: 1, pixels: .rgba8(bytes), alpha: .straight)
        let back = FloatImage(image, colorSpace: .srgb).image(depth: 8, alpha: .straight, colorSpace: .srgb)
        guard case .rgba8(let out) = back.pixels else {
            Issue.record("an 8-bit image expected")
            return
        }
        #expect(out == bytes)
    }
}
