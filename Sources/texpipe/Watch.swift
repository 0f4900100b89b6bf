import ArgumentParser
import Foundation
import TexPipe

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run, then rerun the affected jobs whenever a file they read changes (Ctrl-C stops).")

    @OptionGroup var options: ManifestOptions
    @Flag(help: "Also print one line per finished job.") var verbose = false

    func run() throws {
        try checkMemoryLimit()
        onInterrupt { _ in
            Console.out(CLIMessage.watchStopped)
            return 0
        }
        let watcher: FolderWatcher
        do { watcher = try FolderWatcher() } catch { throw fail("\(error)") }
        let manifestPath = absolute(options.manifest)
        let manifestFolder = (manifestPath as NSString).deletingLastPathComponent
        var plan: Plan? = nil
        var changed: Set<String> = []
        while true {
            // Plan anew on every change: new inputs, deleted ones and an edited manifest all show.
            let next: Plan
            do {
                next = try Planner.plan(
                    try Manifest.load(path: options.manifest),
                    PlanOptions(pipelines: options.pipelines, variants: options.variants))
            } catch let e as ManifestError {
                for d in e.diagnostics { Console.err(d.description) }
                Console.out(CLIMessage.manifestHasErrors(options.manifest))
                watcher.watch(plan.map(WatchPlan.folders).map { $0.union([manifestFolder]) } ?? [manifestFolder])
                changed = watcher.changes()
                continue
            }
            for gone in WatchPlan.deleted(old: plan, changed: changed) {
                Console.out(
                    "watch: \(gone.input) was deleted; its outputs are left alone: "
                        + gone.outputs.joined(separator: ", "))
            }
            let affected = WatchPlan.affected(old: plan, new: next, changed: changed)
            // Watched before the jobs run, so a file saved while they run (or just after the line
            // below is printed) is caught and rerun, never missed.
            watcher.watch(WatchPlan.folders(next).union([manifestFolder]))
            var run = next
            run.jobs = affected
            if !affected.isEmpty || plan == nil {
                let console = Console(
                    verbosity: verbose ? .verbose : .quiet, progressBar: false, total: affected.count)
                let start = Date()
                let cache = Cache(manifestDirectory: next.manifest.directory)
                let results = Runner.run(
                    run, RunOptions(jobs: options.jobs, maxPixels: options.maxPixels, cache: cache),
                    finished: { console.finished($0, $1) })
                if let problem = cache.save() { Console.err(CLIMessage.warning(problem)) }
                let failed = results.filter { $0.status == .failed }.count
                let cause =
                    plan == nil
                    ? "started"
                    : changed.sorted().prefix(3).map(Planner.display).joined(separator: ", ")
                        + (changed.count > 3 ? " and \(changed.count - 3) more" : "") + " changed"
                Console.out(
                    "watch: \(cause) → \(results.count) job\(results.count == 1 ? "" : "s"): \(results.count - failed) ok ("
                        + "\(results.filter(\.cacheHit).count) up to date), \(failed) failed in "
                        + String(format: "%.2f s", Date().timeIntervalSince(start)))
            }
            plan = next
            repeat {
                changed = watcher.changes().filter { !WatchPlan.isOwnWrite($0, plan) }
            } while changed.isEmpty
        }
    }
}
