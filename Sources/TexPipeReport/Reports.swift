internal import Foundation
public import TexPipeCache
public import TexPipeEngine
internal import TexPipePixels
public import TexPipePlan

/// `--report FILE.json`, `--junit FILE.xml` and `--html DIR` (docs/command-line.md): per job, in plan order.
/// The JSON's shape is `docs/report.schema.json`.
public enum Reports {
    struct JSONReport: Codable {
        var texpipe: String
        var manifest: String
        var summary: Summary
        /// Plan warnings (a `distinct` pair with severity "warning"), as printed.
        var warnings: [String]
        var jobs: [JobEntry]
        /// Present when a remote cache was in use; its URL redacted.
        var remote: Remote?
        /// Each pipeline with a `check`: its outputs' totals against its budget.
        var checks: [Check]?

        struct Check: Codable {
            var pipeline: String
            var bytes: Int
            var gpuBytes: Int
            var maxTotalBytes: Int?
            var maxGPUBytes: Int?
            var minPSNR: Double?
            var maxBytes: Int?
            var severity: String
            /// The totals' failed gates, as printed (a job's own are its error).
            var failures: [String]
        }

        struct Remote: Codable {
            var url: String
            var mode: String
            var hits: Int
            var misses: Int
            var uploads: Int
            var bytesUp: Int
            var bytesDown: Int
            var errors: Int
            var warnings: [String]
        }

        struct Summary: Codable {
            var jobs: Int
            var ok: Int
            var failed: Int
            var upToDate: Int
            var seconds: Double
        }

        struct JobEntry: Codable {
            var index: Int
            var pipeline: String
            var input: String
            var variant: String?
            var status: String
            var cacheHit: Bool
            var remoteHit: Bool
            var reason: String?
            var error: ErrorEntry?
            var outputs: [Cache.Entry.Output]
            var stages: [StageTime]
            var notes: [String]
            var seconds: Double
            /// An atlas job's sprites, in name order.
            var sprites: [Sprite]?
            /// A glTF texture job: its model, and which image in which roles.
            var model: String?
            var image: String?
        }

        struct Sprite: Codable {
            var name: String
            var input: String
        }

        struct ErrorEntry: Codable {
            var stage: String?
            var message: String
        }

        struct StageTime: Codable {
            var name: String
            var seconds: Double
        }
    }

    static func relative(_ path: String, _ plan: Plan) -> String {
        PathText.relative(path, to: plan.manifest.directory)
    }

    /// How a report names a job: its input, or for a glTF texture its model and image
    /// (`models/crate.glb images[1] (normal)`), listed under the model's own job.
    static func name(_ job: Job, _ plan: Plan) -> String {
        switch job.work {
        case .modelTexture(let t): relative(t.model, plan) + " " + t.image
        case .image, .atlas, .array, .volume, .lut, .model: relative(job.input.path, plan)
        }
    }

    /// An atlas job's sprites, in name order (nil for other kinds).
    static func sprites(_ job: Job, _ plan: Plan) -> [JSONReport.Sprite]? {
        switch job.work {
        case .atlas(let a): a.sprites.map { .init(name: $0.name, input: relative($0.path, plan)) }
        case .image, .array, .volume, .lut, .model, .modelTexture: nil
        }
    }

    /// A glTF texture job's model and which image in which roles (nil for other kinds).
    static func modelImage(_ job: Job, _ plan: Plan) -> (model: String, image: String)? {
        switch job.work {
        case .modelTexture(let t): (relative(t.model, plan), t.image)
        case .image, .atlas, .array, .volume, .lut, .model: nil
        }
    }

    public static func json(
        _ plan: Plan, _ results: [JobResult], seconds: Double, remote: RemoteCache? = nil,
        budgets: [Gates.PipelineTotal]? = nil
    ) throws -> [UInt8] {
        let budgets = budgets ?? Gates.pipelineTotals(plan, results)
        let entries = zip(plan.jobs, results).map { job, r in
            JSONReport.JobEntry(
                index: job.index, pipeline: job.pipeline, input: relative(job.input.path, plan), variant: job.variant,
                status: r.status.rawValue, cacheHit: r.cacheHit, remoteHit: r.remoteHit,
                reason: r.decision?.description,
                error: r.errorMessage.map { JSONReport.ErrorEntry(stage: r.errorStage, message: $0) },
                outputs: r.recorded, stages: r.timings.map { .init(name: $0.name, seconds: $0.seconds) },
                notes: r.notes, seconds: r.seconds,
                sprites: sprites(job, plan), model: modelImage(job, plan)?.model, image: modelImage(job, plan)?.image)
        }
        let failed = results.filter { $0.status == .failed }.count
        let report = JSONReport(
            texpipe: TexPipeVersion.string, manifest: plan.manifest.file,
            summary: .init(
                jobs: results.count, ok: results.count - failed, failed: failed,
                upToDate: results.filter(\.cacheHit).count, seconds: seconds),
            warnings: plan.warnings.map { ($0.path.map { "\($0): " } ?? "") + $0.message }, jobs: entries,
            remote: remote.map { r in
                let st = r.stats
                return .init(
                    url: r.settings.redacted, mode: r.settings.mode.rawValue, hits: st.hits, misses: st.misses,
                    uploads: st.uploads, bytesUp: st.bytesUp, bytesDown: st.bytesDown, errors: st.errors,
                    warnings: r.warnings)
            },
            checks: budgets.isEmpty
                ? nil
                : budgets.map { b in
                    .init(
                        pipeline: b.pipeline, bytes: b.bytes, gpuBytes: b.gpuBytes,
                        maxTotalBytes: b.check.maxTotalBytes,
                        maxGPUBytes: b.check.maxGPUBytes, minPSNR: b.check.minPSNR, maxBytes: b.check.maxBytes,
                        severity: b.check.severity.rawValue, failures: b.findings.map(\.message))
                })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(report))
    }

    static func xml(_ s: String) -> String {
        var out = ""
        for ch in s.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case _ where ch.value < 0x20 && ch != "\n" && ch != "\t": out += " "
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// JUnit XML as CI servers read it: one testsuite per pipeline, one testcase per job.
    /// A pipeline's budget is one more test case (`budget`), failed when a total is over it.
    public static func junit(
        _ plan: Plan, _ results: [JobResult], seconds: Double, budgets: [Gates.PipelineTotal]? = nil
    ) -> [UInt8] {
        let budgets = (budgets ?? Gates.pipelineTotals(plan, results)).filter {
            $0.check.maxTotalBytes != nil || $0.check.maxGPUBytes != nil
        }
        var byPipeline: [(String, [(Job, JobResult)])] = []
        for (job, r) in zip(plan.jobs, results) {
            if let i = byPipeline.firstIndex(where: { $0.0 == job.pipeline }) {
                byPipeline[i].1.append((job, r))
            } else {
                byPipeline.append((job.pipeline, [(job, r)]))
            }
        }
        func failsBudget(_ b: Gates.PipelineTotal) -> Bool { b.findings.contains { $0.severity == .error } }
        let failures = results.filter { $0.status == .failed }.count + budgets.filter(failsBudget).count
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s +=
            "<testsuites name=\"texpipe\" tests=\"\(results.count + budgets.count)\" failures=\"\(failures)\" errors=\"0\" time=\"\(String(format: "%.3f", seconds))\">\n"
        for (pipeline, cases) in byPipeline {
            let mine = budgets.filter { $0.pipeline == pipeline || $0.pipeline.hasPrefix(pipeline + " [") }
            let f = cases.filter { $0.1.status == .failed }.count + mine.filter(failsBudget).count
            let t = cases.reduce(0) { $0 + $1.1.seconds }
            s +=
                "  <testsuite name=\"\(xml(pipeline))\" tests=\"\(cases.count + mine.count)\" failures=\"\(f)\" errors=\"0\" skipped=\"0\" time=\"\(String(format: "%.3f", t))\">\n"
            for budget in mine {
                let totals = "\(budget.bytes) bytes, \(budget.gpuBytes) GPU bytes"
                let name = "budget" + budget.pipeline.dropFirst(pipeline.count)
                s += "    <testcase classname=\"\(xml(pipeline))\" name=\"\(xml(name))\" time=\"0.000\""
                if failsBudget(budget) {
                    let message = budget.findings.map(\.message).joined(separator: "; ")
                    s +=
                        ">\n      <failure message=\"\(xml(message))\" type=\"check\">\(xml(message))</failure>\n    </testcase>\n"
                } else {
                    s += ">\n      <system-out>\(xml(totals))</system-out>\n    </testcase>\n"
                }
            }
            for (job, r) in cases {
                let name = Self.name(job, plan) + (job.variant.map { " [\($0)]" } ?? "")
                s +=
                    "    <testcase classname=\"\(xml(pipeline))\" name=\"\(xml(name))\" time=\"\(String(format: "%.3f", r.seconds))\""
                if let message = r.error {
                    s +=
                        ">\n      <failure message=\"\(xml(message))\" type=\"\(xml(r.errorStage ?? "job"))\">\(xml(message))</failure>\n    </testcase>\n"
                } else {
                    // What a quality target chose, beside "up to date".
                    let lines = (r.cacheHit ? ["up to date"] : []) + r.recorded.compactMap(Console.chosen)
                    s +=
                        lines.isEmpty
                        ? "/>\n"
                        : ">\n      <system-out>\(xml(lines.joined(separator: "\n")))</system-out>\n    </testcase>\n"
                }
            }
            s += "  </testsuite>\n"
        }
        s += "</testsuites>\n"
        return Array(s.utf8)
    }
}
