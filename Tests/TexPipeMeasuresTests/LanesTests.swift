import Foundation
import Testing

@testable import TexPipeMeasures

/// FLIP's powers in eight lanes (no libm call, so every CPU computes the same bits) against the C
/// library's in Double, over the ranges FLIP raises: the HyAB distance (up to a few hundred) to 0.7,
/// and a redistributed error in (0, 1] to 1 − a feature difference in [0, 1]: within 2·10⁻⁶ of
/// the value (Float's rounding of y · log₂ x is most of it).
@Suite("eight-lane powers")
struct LanesTests {
    @Test func powersAgreeWithTheCLibrarysToSixDigits() {
        var worst = 0.0
        var bases = [Float]()
        var x: Float = 1e-6
        while x < 400 {
            bases.append(x)
            x *= 1.013
        }
        bases += [1, 2, 0.5, 255, 1e-6, 399.9]
        for exponent: Float in [0.7, 0, 0.05, 0.3, 0.5, 0.93, 1] {
            for start in stride(from: 0, to: bases.count, by: 8) {
                var lanes = Lanes(repeating: 1)
                for l in 0..<min(8, bases.count - start) { lanes[l] = bases[start + l] }
                let got = lanes.power(Lanes(repeating: exponent))
                for l in 0..<min(8, bases.count - start) {
                    let want = pow(Double(lanes[l]), Double(exponent))
                    worst = max(worst, abs(Double(got[l]) - want) / want)
                }
            }
        }
        #expect(worst < 2e-6, "largest relative error \(worst)")
    }

    @Test func log2AndExp2AreExactWherePowersOfTwoAre() {
        var v = Lanes(repeating: 0)
        for l in 0..<8 { v[l] = Float(l) - 3 }
        let p = Lanes.exp2(v)
        for l in 0..<8 { #expect(p[l] == Float(pow(2.0, Double(l) - 3)), "2^\(l - 3)") }
        let back = p.log2
        for l in 0..<8 { #expect(abs(back[l] - (Float(l) - 3)) < 1e-6, "log₂ 2^\(l - 3): \(back[l])") }
    }

    /// The channel check before SSIM: one channel equal in both though the others differ.
    @Test func aChannelIsTheSameOnlyWhereEveryTexelAgrees() {
        let n = 300
        let a = (0..<(4 * n)).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        var b = a
        for i in 0..<n { b[4 * i + 1] &+= 1 }
        #expect(Quality.same(a, b, channel: 0) && Quality.same(a, b, channel: 2) && Quality.same(a, b, channel: 3))
        #expect(!Quality.same(a, b, channel: 1))
        b = a
        b[4 * (n - 1) + 3] &+= 1
        #expect(!Quality.same(a, b, channel: 3) && Quality.same(a, b, channel: 0))
    }
}

/// The separable filter behind SSIM and FLIP against the convolution written out here: each output
/// the taps' products added in order from 0 in Float (along x, then along y over those sums), the
/// edge texel repeated outside — bit for bit, at widths that leave texels after the filter's groups
/// of 32 and of 8, and at heights shorter than the window's reach.
@Suite("separable filter")
struct SeparableFilterTests {
    @Test(arguments: [(61, 45), (7, 3), (32, 9), (40, 13), (1, 1)])
    func theFilterIsItsSumsInOrder(size: (Int, Int)) {
        let (w, h) = size
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        let plane = (0..<(w * h)).map { _ -> Float in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(seed >> 40) / Float(1 << 24) * 255
        }
        let kx: [Float] = (0..<11).map { Float(11 - abs($0 - 5)) / 66 }
        let ky: [Float] = [0.25, -0.5, 1.5, -0.5, 0.25, 0.125, -0.125]
        let got = plane.withUnsafeBufferPointer { SeparableFilter.apply($0, w, h, kx, ky) }
        var across = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var acc: Float = 0
                for k in 0..<kx.count { acc += kx[k] * plane[y * w + min(max(x + k - 5, 0), w - 1)] }
                across[y * w + x] = acc
            }
        }
        var mismatches = 0
        for y in 0..<h {
            for x in 0..<w {
                var acc: Float = 0
                for k in 0..<ky.count { acc += ky[k] * across[min(max(y + k - 3, 0), h - 1) * w + x] }
                if acc.bitPattern != got[y * w + x].bitPattern { mismatches += 1 }
            }
        }
        #expect(mismatches == 0, "\(w)×\(h): \(mismatches) outputs differ")
    }
}
