import Foundation
import Testing

@testable import TexPipeFormats
@testable import TexPipeMeasures

/// The search's boundary (docs/gpu-textures.md "Quality targets"): on a monotone ladder it finds the
/// lowest rung that meets wherever it lies, with no more probes than twice bisection's, and the
/// margin a candidate is ranked by is the decibel-like score the docs give.
@Suite("quality target boundary")
struct TargetBoundaryTests {
    @Test func theLowestMeetingRungIsFoundOnEveryLadder() {
        for n in [2, 4, 34, 101, 255] {
            let bisection = Int(ceil(log2(Double(n + 1))))
            for boundary in 0...n {
                // A smooth score crossing zero at the boundary, as PSNR against a floor would.
                for slope in [0.05, 1.0, 7.0] {
                    var probes = 0
                    let found = QualityTarget.lowestMeeting(n, above: -1) { k in
                        probes += 1
                        let score = (Double(k) - Double(boundary) + 0.5) * slope
                        return (k >= boundary, score)
                    }
                    #expect(found == boundary, "n \(n), boundary \(boundary), slope \(slope)")
                    #expect(probes <= 2 * bisection, "n \(n), boundary \(boundary): \(probes) probes")
                }
            }
        }
        // Above a rung known to miss.
        #expect(QualityTarget.lowestMeeting(10, above: 6) { k in (k >= 8, Double(k - 8)) } == 8)
        #expect(QualityTarget.lowestMeeting(10, above: 9) { _ in (true, 1) } == 10)
    }

    @Test func aSearchOnUpFromAKnownMissStepsByTheSlopeGivenAndStillFindsTheBoundary() {
        let n = 255
        for start in [0, 40, 200] {
            for boundary in (start + 1)...n {
                for (slope, guess) in [(0.3, 0.3), (0.3, 0.05), (0.3, 3.0), (2.0, 0.5), (0.01, nil)] {
                    var probes = 0
                    func score(_ k: Int) -> Double { (Double(k) - Double(boundary) + 0.5) * slope }
                    let found = QualityTarget.lowestMeeting(n, above: start, startScore: score(start), slope: guess) {
                        k in
                        probes += 1
                        return (k >= boundary, score(k))
                    }
                    #expect(found == boundary, "start \(start), boundary \(boundary), slope \(slope)")
                    // Three reaching steps at most, then the safeguarded search over what is left.
                    #expect(probes <= 3 + 2 * 8, "start \(start), boundary \(boundary): \(probes) probes")
                }
            }
        }
        // A slope that is right closes in a few probes: the first step brackets, regula falsi ends it.
        var probes = 0
        let found = QualityTarget.lowestMeeting(255, above: 50, startScore: -30, slope: 0.3) { k in
            probes += 1
            return (k >= 150, (Double(k) - 149.5) * 0.3)
        }
        #expect(found == 150 && probes <= 4, "\(probes) probes")
    }

    @Test func theScoreIsEachMeasuresMarginInDecibels() {
        var gates = CheckSettings(minPSNR: 40)
        gates.minSSIM = 0.9
        gates.maxFLIP = 0.1
        let t = QualityTarget(gates: gates)
        // PSNR 2 dB over; SSIM: 1 − 0.99 against 1 − 0.9: 10 dB; FLIP 0.05 against 0.1: 3.01 dB.
        let q = LevelQuality(rgb: 42, alpha: nil, ssim: 0.99, flip: 0.05)
        #expect(abs(t.score([q]) - 2) < 1e-9)
        let ssimWorst = LevelQuality(rgb: 60, alpha: nil, ssim: 0.8, flip: 0.01)
        #expect(abs(t.score([ssimWorst]) - 10 * log10(0.1 / 0.2)) < 1e-9)
        #expect(t.meets([q]) && !t.meets([ssimWorst]))
    }
}
