import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeFormats
@testable import TexPipeMeasures
@testable import TexPipePixels

/// One verdict per output (docs/gpu-textures.md "Checks and budgets"), against levels whose
/// measures are given here by hand: which gates fail, in which order, in what words.
@Suite("gate verdict")
struct VerdictTests {
    static func check(_ build: (inout CheckSettings) -> Void) -> CheckSettings {
        var c = CheckSettings()
        build(&c)
        return c
    }

    @Test func eachGateFailsOnlyPastItsLimit() {
        let levels = [
            LevelQuality(rgb: 45, alpha: 38, ssim: 0.99, ssimAlpha: 0.97, flip: 0.02),
            LevelQuality(rgb: 35, alpha: nil, ssim: 0.93, flip: 0.09),
        ]
        let all = Self.check {
            $0.maxBytes = 1000
            $0.minPSNR = 40
            $0.minSSIM = 0.95
            $0.maxFLIP = 0.05
        }
        #expect(
            all.failures(of: "a.ktx2", bytes: 1001, levels: levels) == [
                "a.ktx2 is 1,001 bytes, over maxBytes 1,000",
                "a.ktx2 level 0: alpha PSNR 38.00 dB (RGB 45.00 dB) is under minPSNR 40.00 dB",
                "a.ktx2 level 1: PSNR 35.00 dB is under minPSNR 40.00 dB",
                "a.ktx2 level 1: SSIM 0.9300 is under minSSIM 0.9500",
                "a.ktx2 level 1: FLIP 0.0900 is over maxFLIP 0.0500",
            ])
        // At the limits exactly, nothing fails; a measure not taken fails nothing.
        #expect(all.failures(of: "a.ktx2", bytes: 1000, levels: [LevelQuality(rgb: 40, alpha: 40)]).isEmpty)
        #expect(all.failures(of: "a.ktx2", bytes: 10, levels: nil).isEmpty)
    }

    @Test func normalErrorGatesMeanAndP99Apart() {
        let c = Self.check { $0.maxNormalError = (mean: 2, p99: 10) }
        let q = LevelQuality(rgb: 50, alpha: nil, normalMean: 2.5, normalP99: 9)
        #expect(
            c.failures(of: "n.ktx2", bytes: 1, levels: [q]) == [
                "n.ktx2: normal error mean 2.50° is over maxNormalError.mean 2.00°"
            ])
    }

    /// Two layers' measures of one level are the worse of each: the lower PSNR and SSIM, the higher
    /// FLIP and normal error.
    @Test func theWorseOfTwoLayersIsEachMeasuresWorse() {
        let a = LevelQuality(rgb: 40, alpha: 50, ssim: 0.9, flip: 0.1, normalMean: 1)
        let b = LevelQuality(rgb: 45, alpha: nil, ssim: 0.95, ssimAlpha: 0.8, flip: 0.2, normalP99: 3)
        let w = a.worse(b)
        #expect(
            w == LevelQuality(rgb: 40, alpha: 50, ssim: 0.9, ssimAlpha: 0.8, flip: 0.2, normalMean: 1, normalP99: 3))
        #expect(w.worst == 40 && w.worstSSIM == 0.8)
    }

    /// PSNR over 8-bit texels: 10 · log10(255² / MSE), capped at 99 dB for identical texels.
    @Test func psnrIsTheFormulaOnHandMadeTexels() {
        let a: [UInt8] = [10, 20, 30, 255, 40, 50, 60, 255]
        var b = a
        b[0] = 14  // one channel of one texel 4 off: MSE over 6 RGB samples is 16 / 6
        let expected = 10 * log10(255.0 * 255.0 / (16.0 / 6.0))
        #expect(abs(Quality.psnr(a, b, channels: 0...2) - expected) < 1e-9)
        #expect(Quality.psnr(a, a, channels: 0...2) == 99)
    }
}
