import ArgumentParser
import Foundation
import TexPipe

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run a manifest (the default command).")

    @OptionGroup var options: ManifestOptions
    @Flag(help: "Plan and print what would be written and why; write nothing.") var dryRun = false
    @Flag(help: "Run every job, ignoring the cache.") var force = false
    @Flag(help: "Hash every input and output instead of trusting unchanged stat data (size, times, inode).")
    var verify = false
    @Option(help: "Write a JSON report of every job.") var report: String?
    @Option(help: "Write a JUnit XML report for CI dashboards.") var junit: String?
    @Option(help: "Write a static HTML report with thumbnails into this folder.") var html: String?
    @Flag(
        help:
            "Measure SSIM and FLIP of every lossy output's levels, and the normal angle of normal maps, into the reports and the cache, without a gate."
    )
    var reportMetrics = false
    @Option(
        help:
            "Run only shard K of N (1-based, balanced by input pixels), e.g. 2/4; or auto: K and N from the CI's variables."
    ) var shard: String?
    @Option(
        help: ArgumentHelp(
            "Share results through a Bazel-protocol HTTP cache (env TEXPIPE_REMOTE_CACHE); credentials as user:password@.",
            valueName: "url")) var remoteCache: String?
    @Option(help: "read-write (default) or read: never upload (pull requests).")
    var remoteCacheMode: RemoteSettings.Mode = .readWrite
    @Option(
        help: ArgumentHelp(
            "A header sent with every request, e.g. Authorization=Bearer … (env TEXPIPE_REMOTE_HEADER).",
            valueName: "name=value"))
    var remoteHeader: [String] = []
    @Option(help: "Seconds to wait for each remote request.") var remoteTimeout: Double = 10
    @Flag(help: "Print only errors.") var quiet = false
    @Flag(help: "Print stage timings per job.") var verbose = false
    @Flag(help: "No progress bar; one line per finished job.") var noProgress = false

    func validate() throws {
        if quiet && verbose { throw ValidationError(CLIMessage.quietAndVerbose) }
        if let shard, shard != "auto", Shards.parse(shard) == nil { throw ValidationError(CLIMessage.badShard(shard)) }
    }

    func run() throws {
        try checkMemoryLimit()
        var plan: Plan
        let cache: Cache
        do {
            let loaded = try Manifest.load(path: options.manifest)
            cache = Cache(manifestDirectory: loaded.directory, verify: verify)
            plan = try Planner.plan(
                loaded,
                PlanOptions(
                    pipelines: options.pipelines, variants: options.variants, shapes: verify ? nil : cache.index))
        } catch let e as ManifestError {
            throw fail(e)
        }
        for w in plan.warnings { Console.err(w.description) }
        for w in cache.warnings() { Console.err(CLIMessage.warning(w)) }
        if let shard {
            let (k, n): (Int, Int)
            if shard == "auto" {
                do { (k, n) = try Shards.fromEnvironment(ProcessInfo.processInfo.environment) } catch {
                    throw fail("\(error)")
                }
            } else {
                (k, n) = Shards.parse(shard)!
            }
            plan.jobs = Shards.jobs(plan.jobs, shard: k, of: n)
        }
        if dryRun {
            printDryRun(plan, cache)
            return
        }
        // The remote cache: a bad URL is a usage error (exit 2), an unreachable one only a warning.
        var remote: RemoteCache?
        let env = ProcessInfo.processInfo.environment
        if let url = remoteCache ?? env["TEXPIPE_REMOTE_CACHE"].flatMap({ $0.isEmpty ? nil : $0 }) {
            let headers = remoteHeader.isEmpty ? (env["TEXPIPE_REMOTE_HEADER"].map { [$0] } ?? []) : remoteHeader
            do {
                let settings = try RemoteSettings(
                    url: url, mode: remoteCacheMode, headers: headers,
                    timeout: remoteTimeout)
                remote = RemoteCache(settings, warn: { Console.err(CLIMessage.warning($0)) })
            } catch {
                throw fail("\(error)")
            }
        }
        onInterrupt { sig in
            Console.err(CLIMessage.interrupted)
            return sig == SIGINT ? 130 : 143
        }
        let console = Console(
            verbosity: quiet ? .quiet : (verbose ? .verbose : .normal),
            progressBar: !noProgress && Console.wantsProgressBar(), total: plan.jobs.count)
        let start = Date()
        let results = Runner.run(
            plan,
            {
                var o = RunOptions(jobs: options.jobs, maxPixels: options.maxPixels, cache: cache, force: force)
                o.remote = remote
                // TEXPIPE_REMOTE_COST_MODEL=off asks the cache for every job (docs/caching-and-ci.md).
                o.remoteCostModel = ProcessInfo.processInfo.environment["TEXPIPE_REMOTE_COST_MODEL"] != "off"
                o.measureQuality = report != nil || html != nil
                o.reportMetrics = reportMetrics
                o.flipMaps = html != nil
                return o
            }(),
            progress: { console.progress(done: $0, total: $1) },
            finished: { console.finished($0, $1) })
        if let problem = cache.save() { Console.err(CLIMessage.warning(problem)) }
        console.summary(results, remote: remote)
        // The pipelines' budgets, over what this run's jobs recorded.
        let budgets = Gates.pipelineTotals(plan, results)
        let totals = budgets.flatMap(\.findings)
        for f in totals { Console.err(ValueText.oneLine((f.severity == .error ? "error: " : "warning: ") + f.message)) }
        keptUntilExit += [cache, plan, results]
        let seconds = Date().timeIntervalSince(start)
        do {
            if let report {
                try AtomicWriter.write(
                    try Reports.json(plan, results, seconds: seconds, remote: remote, budgets: budgets),
                    to: absolute(report))
            }
            if let junit {
                try AtomicWriter.write(
                    Reports.junit(plan, results, seconds: seconds, budgets: budgets), to: absolute(junit))
            }
            if let html { try Reports.html(plan, results, to: absolute(html), budgets: budgets) }
        } catch {
            throw fail(CLIMessage.cannotWriteReport(error), code: 1)
        }
        if results.contains(where: { $0.status == .failed }) || totals.contains(where: { $0.severity == .error }) {
            throw ExitCode(1)
        }
    }

    /// `--dry-run`: what each job would write, whether it would run and why; nothing written.
    func printDryRun(_ plan: Plan, _ cache: Cache) {
        var runs = 0
        let loader = ResourceLoader()
        // A job that waits for others (a model's rewrite, for its textures) runs when one of them
        // does (they are its inputs).
        var decisions: [Int: Cache.Decision] = [:]
        for job in plan.jobs where job.work.after.isEmpty {
            let (decision, warnings) =
                force ? (.forced, []) : Runner.decision(job, in: plan, cache: cache, loader: loader)
            for w in warnings { Console.err(CLIMessage.warning(w)) }
            decisions[job.index] = decision
        }
        for job in plan.jobs {
            var decision = decisions[job.index] ?? .hit
            if !job.work.after.isEmpty {
                if let k = job.work.after.first(where: { decisions[$0].map { !$0.isHit } ?? false }),
                    let texture = plan.jobs.first(where: { $0.index == k })
                {
                    decision = .prerequisiteRuns(texture.input.display)
                } else {
                    decision = force ? .forced : Runner.decision(job, in: plan, cache: cache, loader: loader).0
                }
            }
            if !decision.isHit { runs += 1 }
            let what = decision.isHit ? "up to date" : "would write"
            for out in job.outputs {
                Console.out(
                    "\(what) \(Planner.display(out.path)) from \(job.input.display)"
                        + (job.variant.map { " (\($0))" } ?? "") + (decision.isHit ? "" : " — \(decision)"))
            }
            if let failure = job.failure {
                Console.err(CLIMessage.error("\(job.input.display): \(failure.message)"))
            }
        }
        Console.out(
            "\(plan.jobs.count) jobs, \(runs) would run, \(plan.jobs.reduce(0) { $0 + $1.outputs.count }) outputs; nothing written (--dry-run)"
        )
    }
}
