internal import Foundation
internal import TexPipeCache
public import TexPipeFormats
internal import TexPipeMeasures
internal import TexPipePixels
public import TexPipePlan

/// A pipeline's `check` (docs/gpu-textures.md "Checks and budgets"): each job's gates over what it
/// recorded of its outputs — run, fetched or up to date alike — and each pipeline's totals after
/// the run.
public enum Gates {
    /// A failed gate: its one line, and whether it fails the job or pipeline.
    public struct Finding: Sendable, Equatable {
        public var pipeline: String
        public var message: String
        public var severity: CheckSettings.Severity
    }

    /// Whether an output's format stores pixels inexactly: JPEG and every block format.
    static func isLossy(_ format: String) -> Bool {
        format == "jpeg"
            || TextureSettings.Format(rawValue: format).map { !$0.info.codec.family.exact } ?? false
    }

    /// The quality target an output of `format` answers to (a texture's, or its file kind's).
    public static func target(_ job: Job, format: String) -> QualityTarget? {
        if TextureSettings.Format(rawValue: format) != nil { return job.encoding.texture.target }
        return FileKind(rawValue: format).flatMap { Runner.fileTarget($0, job.encoding.files) }
    }

    static func isImage(_ path: String) -> Bool {
        let ext = PathText.pathExtension(path).lowercased()
        return ext != "json" && ext != "atlas"
    }

    /// A recorded output that cannot answer the job's gates (recorded before measures were, or
    /// fetched from a cache that measured no PSNR): the job then runs again.
    static func unmeasured(_ job: Job, _ outputs: [Cache.Entry.Output], reportMetrics: Bool = false) -> Bool {
        // A targeted output recorded without its choice (an entry from before targets) runs again.
        if outputs.contains(where: { o in
            o.choice == nil && o.format.map { target(job, format: $0) != nil } ?? false
        }) {
            return true
        }
        let check = job.quality.check ?? CheckSettings()
        guard job.quality.check != nil || reportMetrics else { return false }
        return outputs.contains { o in
            guard isImage(o.path) else { return false }
            guard let format = o.format else { return job.quality.check != nil }
            guard isLossy(format) else { return false }
            if check.measures && o.psnr == nil { return true }
            guard let levels = o.psnr else { return reportMetrics }
            // SSIM and FLIP are measured of LDR levels; the normal angle of normal maps.
            let ldr = !(TextureSettings.Format(rawValue: format)?.info.hdr ?? false)
            let perceptual = check.minSSIM != nil || check.maxFLIP != nil || reportMetrics
            if perceptual && ldr && levels.contains(where: { $0.ssim == nil }) { return true }
            if job.quality.normalMap && (check.maxNormalError != nil || reportMetrics) && ldr
                && levels.contains(where: { $0.normalMean == nil })
            {
                return true
            }
            return false
        }
    }

    /// The job's own gates (`minPSNR`, `maxBytes`): a failure of severity `error` fails the job with
    /// one line per gate; `warning` adds warnings.
    static func apply(_ job: Job, to result: inout JobResult) {
        guard result.status == .ok else { return }
        var failures: [String] = []
        for o in result.recorded where isImage(o.path) {
            // `o.path` is relative to the manifest's folder.
            if let check = job.quality.check { failures += check.failures(of: o.path, bytes: o.bytes, levels: o.psnr) }
            // A target no setting met: one line with the target and the best reached.
            if let choice = o.choice, let format = o.format, let target = target(job, format: format),
                !target.meets(o.psnr ?? [])
            {
                failures.append(target.unmet(o.path, format: format, choice, o.psnr ?? []))
            }
        }
        guard !failures.isEmpty else { return }
        switch job.quality.severity {
        case .warning:
            result.warnings += failures.map {
                EngineMessage.jobLine(input: job.input.display, variant: job.variant, stage: "check", $0)
            }
        case .error:
            result.status = .failed
            result.errorStage = "check"
            result.errorMessage = failures.joined(separator: "; ")
            result.error = EngineMessage.jobLine(
                input: job.input.display, variant: job.variant, stage: "check", result.errorMessage!)
        }
    }

    /// One pipeline's outputs in this run, against its budget.
    public struct PipelineTotal: Sendable {
        public var pipeline: String
        public var bytes: Int
        public var gpuBytes: Int
        public var check: CheckSettings
        public var findings: [Finding]
    }

    /// Per pipeline with a check (per pipeline and variant where the budget comes from a variant
    /// key: each platform its own), the file and GPU bytes of every image output its jobs recorded in
    /// this run (run, fetched or up to date), against `maxTotalBytes` and `maxGPUBytes`.
    public static func pipelineTotals(_ plan: Plan, _ results: [JobResult]) -> [PipelineTotal] {
        var order: [String] = []
        var sums: [String: PipelineTotal] = [:]
        for (job, r) in zip(plan.jobs, results) {
            guard let check = job.quality.check else { continue }
            let name = job.quality.budget.isEmpty ? job.pipeline : job.quality.budget
            if sums[name] == nil {
                order.append(name)
                sums[name] = PipelineTotal(pipeline: name, bytes: 0, gpuBytes: 0, check: check, findings: [])
            }
            for o in r.recorded where isImage(o.path) {
                sums[name]!.bytes += o.bytes
                sums[name]!.gpuBytes += o.gpuBytes ?? 0
            }
        }
        return order.map { p in
            var t = sums[p]!
            if let max = t.check.maxTotalBytes, t.bytes > max {
                t.findings.append(
                    Finding(pipeline: p, message: GateMessage.overTotal(p, t.bytes, max), severity: t.check.severity))
            }
            if let max = t.check.maxGPUBytes, t.gpuBytes > max {
                t.findings.append(
                    Finding(pipeline: p, message: GateMessage.overGPU(p, t.gpuBytes, max), severity: t.check.severity))
            }
            return t
        }
    }

    /// The failed totals, in pipeline order.
    public static func totals(_ plan: Plan, _ results: [JobResult]) -> [Finding] {
        pipelineTotals(plan, results).flatMap(\.findings)
    }
}
