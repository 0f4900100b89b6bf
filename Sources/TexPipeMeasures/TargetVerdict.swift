internal import Foundation
public import TexPipeFormats

/// A quality target's verdict over what was measured of an output's levels: the same gates'
/// verdict (`CheckSettings.failures`), and how far from the target a candidate is.
extension QualityTarget {
    /// What a search measures of each candidate: what `metrics` (the job's gates and reports) asks,
    /// and the target's measures — FLIP only when one of them needs it (it is most of the cost).
    public func measures(_ metrics: QualityMetrics) -> QualityMetrics {
        var m = metrics
        m.flip = metrics.perceptual ? metrics.flip : gates.maxFLIP != nil
        m.perceptual = metrics.perceptual || perceptual
        m.flipMaps = nil
        return m
    }

    /// The lowest k in (`start`, n) whose probe meets, `start` known to miss (−1: none probed) and every
    /// rung from the one found up assumed to meet; n when none does. A safeguarded regula falsi on
    /// the probes' scores (`QualityTarget.score`, in dB: smooth along a ladder): the next rung is
    /// where the line through the bracket's two scores crosses zero, rounded, kept strictly inside
    /// the bracket; a step that does not halve the bracket is followed by a bisection, so it never
    /// takes more probes than bisection's twice, and most ladders close in four to six.
    ///
    /// With `startScore` (`start`'s score) and `slope` (score per rung, from another probe of the
    /// same ladder: level 0's when the whole chain is searched on), the first steps, while no rung
    /// above is known to meet, go where that slope — then the secant through the misses — says the
    /// score reaches zero, a quarter further; three such steps at most, then the search as above.
    public static func lowestMeeting(
        _ n: Int, above start: Int, startScore: Double? = nil, slope: Double? = nil,
        _ probe: (Int) throws -> (meets: Bool, score: Double)
    ) rethrows -> Int {
        var (lo, hi) = (start, n)
        var (sLo, sHi): (Double?, Double?) = (startScore, nil)
        var misses: [(k: Int, score: Double)] = startScore.map { [(start, $0)] } ?? []
        var bisect = false
        var reaches = 0
        while hi - lo > 1 {
            var k = (lo + hi) / 2
            var reached = false
            if !bisect, let a = sLo, let b = sHi, b > a, a.isFinite, b.isFinite {
                let x = Double(lo) + Double(hi - lo) * (-a) / (b - a)
                k = min(hi - 1, max(lo + 1, Int(x.rounded())))
            } else if sHi == nil, reaches < 3, let a = sLo, a.isFinite, a < 0 {
                var m = slope
                if misses.count >= 2 {
                    let (p, q) = (misses[misses.count - 2], misses[misses.count - 1])
                    if q.score > p.score { m = (q.score - p.score) / Double(q.k - p.k) }
                }
                if let m, m > 0, m.isFinite {
                    let x = Double(lo) + 1.25 * (-a) / m
                    k = Int(min(Double(hi - 1), max(Double(lo + 1), x.rounded(.up))))
                    reached = true
                    reaches += 1
                }
            }
            let width = hi - lo
            let p = try probe(k)
            if p.meets {
                (hi, sHi) = (k, p.score)
            } else {
                (lo, sLo) = (k, p.score)
                misses.append((k, p.score))
            }
            bisect = !reached && !bisect && (hi - lo) * 2 > width
        }
        return hi
    }

    /// Whether every level meets every measure (a measure not taken fails nothing, as a gate).
    public func meets(_ levels: [LevelQuality]) -> Bool {
        gates.failures(of: "", bytes: 0, levels: levels).isEmpty
    }

    /// The lines of the measures `levels` fail, as the gates word them.
    public func failures(of output: String, _ levels: [LevelQuality]) -> [String] {
        gates.failures(of: output, bytes: 0, levels: levels)
    }

    /// How far the worst level is from the target, in decibel-like units common to the measures
    /// (≥ 0: met): PSNR by its dB over the floor; SSIM by 10·log10((1 − min) / (1 − SSIM)); FLIP and
    /// the normal angle by 10·log10(limit / measured). The candidate written when none meets is the
    /// one with the highest score.
    public func score(_ levels: [LevelQuality]) -> Double {
        var s = Double.infinity
        func ratio(_ limit: Double, _ v: Double) -> Double {
            10 * log10(max(limit, 1e-9) / max(v, 1e-9))
        }
        for q in levels {
            if let min = gates.minPSNR { s = Swift.min(s, q.worst - min) }
            if let min = gates.minSSIM, let v = q.worstSSIM { s = Swift.min(s, ratio(1 - min, 1 - v)) }
            if let max = gates.maxFLIP, let v = q.flip { s = Swift.min(s, ratio(max, v)) }
            if let n = gates.maxNormalError {
                if let m = n.mean, let v = q.normalMean { s = Swift.min(s, ratio(m, v)) }
                if let p = n.p99, let v = q.normalP99 { s = Swift.min(s, ratio(p, v)) }
            }
        }
        return s
    }

    /// What was measured, worst over the levels, as the `texpipe.target` record's `measured`:
    /// `{"psnr":41.23,"ssim":0.9812,"flip":0.0321,"normalMean":1.25,"normalP99":4.5}` (those
    /// measured only).
    public static func measured(_ levels: [LevelQuality]) -> String {
        guard let w = LevelQuality.worst(of: levels) else { return "{}" }
        var fields = ["\"psnr\":" + String(format: "%.2f", w.worst)]
        if let v = w.worstSSIM { fields.append("\"ssim\":" + String(format: "%.4f", v)) }
        if let v = w.flip { fields.append("\"flip\":" + String(format: "%.4f", v)) }
        if let v = w.normalMean { fields.append("\"normalMean\":" + String(format: "%.2f", v)) }
        if let v = w.normalP99 { fields.append("\"normalP99\":" + String(format: "%.2f", v)) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// The `texpipe.target` record: `{"format":"etc1s","qlevel":96,"target":{…},"measured":{…}}`,
    /// the knob absent when none was searched.
    public func record(format: String, _ choice: TargetChoice, _ levels: [LevelQuality]) -> String {
        var s = "{\"format\":\"\(format)\""
        if let knob = choice.knob, let value = choice.value {
            s += ",\"\(knob)\":" + (knob == "block" ? "\"\(value)\"" : value)
        }
        return s + ",\"target\":\(given),\"measured\":\(Self.measured(levels))}"
    }

    /// The one line of an output no setting met: the target and the best reached.
    public func unmet(_ output: String, format: String, _ choice: TargetChoice, _ levels: [LevelQuality]) -> String {
        let what = choice.knob == nil ? format : "\(format) \(choice.words)"
        var reached: [String] = []
        let w = LevelQuality.worst(of: levels)
        if gates.minPSNR != nil, let v = w?.worst { reached.append(String(format: "PSNR %.2f dB", v)) }
        if gates.minSSIM != nil, let v = w?.worstSSIM { reached.append(String(format: "SSIM %.4f", v)) }
        if gates.maxFLIP != nil, let v = w?.flip { reached.append(String(format: "FLIP %.4f", v)) }
        if let n = gates.maxNormalError {
            if n.mean != nil, let v = w?.normalMean { reached.append(String(format: "normal error mean %.2f°", v)) }
            if n.p99 != nil, let v = w?.normalP99 { reached.append(String(format: "normal error p99 %.2f°", v)) }
        }
        return "\(output): no setting meets the target (\(words)); the best, \(what), reached "
            + (reached.isEmpty ? "no measure" : reached.joined(separator: ", "))
    }
}
