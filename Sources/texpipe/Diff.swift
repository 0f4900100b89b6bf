import ArgumentParser
import Foundation
import TexPipe

struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "What a change did to the outputs: compare two output folders (BASE, then HEAD).",
        discussion:
            "Exit 0; 1 when the total GPU bytes grew by more than --fail-on-growth percent or a changed output's SSIM against BASE is under --min-ssim; 2 on bad arguments."
    )

    @Argument(help: "The outputs before the change (e.g. main's build).") var base: String
    @Argument(help: "The outputs after it (e.g. the pull request's build).") var head: String
    @Option(help: "Write the summary as markdown (a pull-request comment; $GITHUB_STEP_SUMMARY takes it).")
    var markdown: String?
    @Option(help: "Write DIR/index.html: before, after and the FLIP map of each changed output.") var html: String?
    @Option(help: "Write every output with its status and measures as JSON.") var json: String?
    @Option(help: "Exit 1 when the total GPU bytes grew by more than this percentage.") var failOnGrowth: Double?
    @Option(
        name: .customLong("min-ssim"),
        help: "Exit 1 when a changed output's SSIM against BASE (its worst level or layer) is under this.")
    var minSSIM: Double?
    @Option(help: "Pairs compared in parallel (default: number of cores).") var jobs: Int?
    @Option(help: "Refuse images with more pixels than this, before allocating.") var maxPixels: Int = Image
        .defaultMaxPixels

    func validate() throws {
        if let p = failOnGrowth, !(p.isFinite && p >= 0) {
            throw ValidationError("--fail-on-growth takes a percentage ≥ 0 (got \(p))")
        }
        if let s = minSSIM, !(s >= -1 && s <= 1) {
            throw ValidationError("--min-ssim takes a value in [-1, 1] (got \(s))")
        }
        if let j = jobs, j < 1 { throw ValidationError("--jobs takes a count ≥ 1 (got \(j))") }
        for folder in [base, head] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw ValidationError("\(folder): no such folder (diff compares two output folders)")
            }
        }
    }

    func run() throws {
        // A pair's images and measures are freed before the next pair: large buffers go back to the
        // system when freed (unlike a run, which keeps them for its next job), so the process holds
        // what the pairs in hand hold, not the most it ever held. Measured: 1.9 pairs of decoded
        // images per core instead of 2.4, within the timing noise (Benchmarks/gates/diff.py).
        Allocator.giveBackLargeBuffers()
        let pictures = html.map { $0 + "/img" }
        if let pictures { try? FileManager.default.removeItem(atPath: pictures) }
        let report = try Differ.diff(
            base: base, head: head, workers: jobs ?? ProcessInfo.processInfo.activeProcessorCount,
            maxPixels: maxPixels, pictures: pictures)
        let summary = DiffReport.markdown(report)
        if let markdown { try AtomicWriter.write(Array(summary.utf8), to: markdown) }
        if let json { try AtomicWriter.write(try DiffReport.json(report), to: json) }
        if let html {
            try AtomicWriter.write(Array(DiffReport.html(report).utf8), to: html + "/index.html")
        }
        Console.out("texpipe diff: " + DiffReport.headline(report))
        for o in report.outputs where o.error != nil {
            Console.err(CLIMessage.warning("\(o.path): \(o.error!)"))
        }
        var failed = false
        if let limit = failOnGrowth {
            let t = report.total
            let grew = t.gpuBytesBefore > 0 ? (t.gpuGrowthPercent ?? 0) > limit : t.gpuBytesAfter > 0
            if grew {
                Console.err(
                    CLIMessage.error(
                        "GPU bytes grew from \(t.gpuBytesBefore) to \(t.gpuBytesAfter)"
                            + (t.gpuGrowthPercent.map { String(format: " (+%.2f %%)", $0) } ?? "")
                            + String(format: ", over --fail-on-growth %g %%", limit)))
                failed = true
            }
        }
        if let s = minSSIM {
            for o in report.outputs where o.status == .changed {
                if let v = o.worst?.ssim, v < s {
                    Console.err(
                        CLIMessage.error(
                            "\(o.path): SSIM \(String(format: "%.4f", v)) against BASE is under --min-ssim \(s)"
                                + (o.parts.count > 1 ? " (its worst level or layer)" : "")))
                    failed = true
                } else if o.error != nil, o.after == nil {
                    Console.err(CLIMessage.error("\(o.path): HEAD cannot be decoded, so --min-ssim \(s) cannot be met"))
                    failed = true
                }
            }
        }
        if failed { throw ExitCode(1) }
    }
}
