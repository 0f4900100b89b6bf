internal import Foundation
public import TexPipeFormats

extension CheckSettings {
    /// The gates one output fails (docs/gpu-textures.md "Checks and budgets"), one line each:
    /// `maxBytes` against its file's bytes; `minPSNR` against each level's worse PSNR (RGB or alpha);
    /// then per level `minSSIM` (the worse of RGB and alpha), `maxFLIP` and `maxNormalError` (mean,
    /// p99) against what was measured — a measure not taken fails nothing. The one verdict: a job's
    /// gates, the reports' tables and their marks all ask it. `levels` nil: none were measured.
    public func failures(of output: String, bytes: Int, levels: [LevelQuality]?) -> [String] {
        var failures: [String] = []
        if let max = maxBytes, bytes > max { failures.append(GateMessage.overBytes(output, bytes, max)) }
        let levels = levels ?? []
        if let min = minPSNR {
            for (level, q) in levels.enumerated() where q.worst < min {
                failures.append(GateMessage.underPSNR(output, level: level, levels.count, q, min))
            }
        }
        for (level, q) in levels.enumerated() {
            if let min = minSSIM, let ssim = q.worstSSIM, ssim < min {
                failures.append(GateMessage.underSSIM(output, level: level, levels.count, q, min))
            }
            if let max = maxFLIP, let flip = q.flip, flip > max {
                failures.append(GateMessage.overFLIP(output, level: level, levels.count, flip, max))
            }
            if let max = maxNormalError {
                if let limit = max.mean, let mean = q.normalMean, mean > limit {
                    failures.append(GateMessage.overNormal(output, level: level, levels.count, "mean", mean, limit))
                }
                if let limit = max.p99, let p99 = q.normalP99, p99 > limit {
                    failures.append(GateMessage.overNormal(output, level: level, levels.count, "p99", p99, limit))
                }
            }
        }
        return failures
    }
}

/// The gates' wording, in one place (STYLE 10).
package enum GateMessage {
    package static func bytes(_ n: Int) -> String {
        let f = NumberFormatter()
        f.numberStyle = .decimal
        f.locale = Locale(identifier: "en_US_POSIX")
        f.groupingSeparator = ","
        f.usesGroupingSeparator = true
        return f.string(from: NSNumber(value: n)) ?? String(n)
    }

    package static func db(_ v: Double) -> String { String(format: "%.2f dB", v) }

    package static func overBytes(_ output: String, _ bytes: Int, _ max: Int) -> String {
        "\(output) is \(Self.bytes(bytes)) bytes, over maxBytes \(Self.bytes(max))"
    }

    package static func underPSNR(_ output: String, level: Int, _ levels: Int, _ q: LevelQuality, _ min: Double)
        -> String
    {
        let which = levels > 1 ? " level \(level)" : ""
        let measured =
            q.alpha.map {
                q.rgb <= $0 ? "PSNR \(db(q.rgb)) (alpha \(db($0)))" : "alpha PSNR \(db($0)) (RGB \(db(q.rgb)))"
            }
            ?? "PSNR \(db(q.rgb))"
        return "\(output)\(which): \(measured) is under minPSNR \(db(min))"
    }

    package static func underSSIM(_ output: String, level: Int, _ levels: Int, _ q: LevelQuality, _ min: Double)
        -> String
    {
        let which = levels > 1 ? " level \(level)" : ""
        let f = { (v: Double) in String(format: "%.4f", v) }
        let measured =
            q.ssimAlpha.map { a in
                (q.ssim ?? 1) <= a
                    ? "SSIM \(f(q.ssim ?? 1)) (alpha \(f(a)))" : "alpha SSIM \(f(a)) (RGB \(f(q.ssim ?? 1)))"
            } ?? "SSIM \(f(q.ssim ?? 1))"
        return "\(output)\(which): \(measured) is under minSSIM \(f(min))"
    }

    package static func overFLIP(_ output: String, level: Int, _ levels: Int, _ flip: Double, _ max: Double) -> String {
        let which = levels > 1 ? " level \(level)" : ""
        return "\(output)\(which): FLIP \(String(format: "%.4f", flip)) is over maxFLIP \(String(format: "%.4f", max))"
    }

    package static func overNormal(
        _ output: String, level: Int, _ levels: Int, _ what: String, _ v: Double, _ max: Double
    )
        -> String
    {
        let which = levels > 1 ? " level \(level)" : ""
        return "\(output)\(which): normal error \(what) \(String(format: "%.2f°", v)) is over maxNormalError.\(what) "
            + String(format: "%.2f°", max)
    }

    package static func overTotal(_ pipeline: String, _ bytes: Int, _ max: Int) -> String {
        "pipeline \"\(pipeline)\": its outputs are \(Self.bytes(bytes)) bytes, over maxTotalBytes \(Self.bytes(max))"
    }

    package static func overGPU(_ pipeline: String, _ bytes: Int, _ max: Int) -> String {
        "pipeline \"\(pipeline)\": its textures take \(Self.bytes(bytes)) bytes of GPU memory, over maxGPUBytes \(Self.bytes(max))"
    }
}
