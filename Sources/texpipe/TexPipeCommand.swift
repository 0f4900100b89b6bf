import ArgumentParser
import Dispatch
import Foundation
import TexPipe

/// The CLI: the only place that calls exit. Exit status (SPEC §4): 0 every job succeeded,
/// 1 at least one job failed, 2 the manifest or the command line is wrong.
@main
struct TexPipeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "texpipe",
        abstract: "Batch image asset pipeline: runs pipeline.json over folders of PNGs.",
        version: TexPipeVersion.string,
        subcommands: [
            Run.self, Watch.self, Validate.self, Stages.self, Schema.self, Inspect.self, Clean.self, PackRects.self,
            EncodeBlocks.self,
        ],
        defaultSubcommand: Run.self)

    static func main() {
        Allocator.keepLargeBuffersForReuse()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            let message = fullMessage(for: error)
            if exitCode(for: error) == .success {
                print(message)
                Foundation.exit(0)
            }
            FileHandle.standardError.write(Data((message + "\n").utf8))
            Foundation.exit(2)
        }
    }
}

/// Printed diagnostics, then exit 2.
func fail(_ error: ManifestError) -> ExitCode {
    for d in error.diagnostics { Console.err(d.description) }
    return ExitCode(2)
}

nonisolated(unsafe) var signalSources: [any DispatchSourceSignal] = []

/// Kept until the process exits, never freed: tearing down a 20,000-job plan and its cache
/// index is work nobody waits for (it was 7 % of a `validate`).
nonisolated(unsafe) var keptUntilExit: [Any] = []

/// SIGINT / SIGTERM: stop renaming, delete every temporary file in flight, exit non-zero.
func installSignalHandlers() {
    for (sig, code) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
        signal(sig, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
        source.setEventHandler {
            AtomicWriter.stopAndCleanUp()
            Console.err("\ninterrupted: no partial output was left behind")
            exit(code)
        }
        source.resume()
        signalSources.append(source)
    }
}

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run a manifest (the default command).")

    @Argument(help: "The manifest.") var manifest: String = "pipeline.json"
    @Option(help: "Jobs in parallel (default: number of cores).") var jobs: Int?
    @Option(name: .customLong("pipeline"), help: "Only this pipeline (repeatable).") var pipelines: [String] = []
    @Flag(help: "Plan and print what would be written and why; write nothing.") var dryRun = false
    @Flag(help: "Run every job, ignoring the cache.") var force = false
    @Flag(help: "Hash every input and output instead of trusting unchanged stat data (size, times, inode).")
    var verify = false
    @Option(help: "Write a JSON report of every job.") var report: String?
    @Option(help: "Write a JUnit XML report for CI dashboards.") var junit: String?
    @Option(help: "Write a static HTML report with thumbnails into this folder.") var html: String?
    @Option(
        help:
            "Run only shard K of N (1-based, balanced by input pixels), e.g. 2/4; or auto: K and N from the CI's variables."
    ) var shard: String?
    @Option(
        help: ArgumentHelp(
            "Share results through a Bazel-protocol HTTP cache (env TEXPIPE_REMOTE_CACHE); credentials as user:password@.",
            valueName: "url")) var remoteCache: String?
    @Option(help: "read-write (default) or read: never upload (pull requests).") var remoteCacheMode: String =
        "read-write"
    @Option(
        help: ArgumentHelp(
            "A header sent with every request, e.g. Authorization=Bearer … (env TEXPIPE_REMOTE_HEADER).",
            valueName: "name=value"))
    var remoteHeader: [String] = []
    @Option(help: "Seconds to wait for each remote request.") var remoteTimeout: Double = 10
    @Option(help: "Refuse images with more pixels than this, before allocating.") var maxPixels: Int = Image
        .defaultMaxPixels
    @Flag(help: "Print only errors.") var quiet = false
    @Flag(help: "Print stage timings per job.") var verbose = false
    @Flag(help: "No progress bar; one line per finished job.") var noProgress = false

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if maxPixels < 1 { throw ValidationError("--max-pixels must be at least 1") }
        if quiet && verbose { throw ValidationError("--quiet and --verbose exclude each other") }
        if RemoteSettings.Mode(rawValue: remoteCacheMode) == nil {
            throw ValidationError("--remote-cache-mode expects read-write or read; found \"\(remoteCacheMode)\"")
        }
        if let shard, shard != "auto", Shards.parse(shard) == nil {
            throw ValidationError("--shard expects K/N with 1 ≤ K ≤ N, e.g. 2/4, or auto; found \"\(shard)\"")
        }
    }

    func run() throws {
        var plan: Plan
        let cache: Cache
        do {
            let loaded = try Manifest.load(path: manifest)
            cache = Cache(manifestDirectory: loaded.directory, verify: verify)
            plan = try Planner.plan(loaded, PlanOptions(pipelines: pipelines, shapes: verify ? nil : cache.index))
        } catch let e as ManifestError {
            throw fail(e)
        }
        for w in plan.warnings { Console.err(w.description) }
        for w in cache.warnings() { Console.err("warning: " + w) }
        if let shard {
            let (k, n): (Int, Int)
            if shard == "auto" {
                do { (k, n) = try Shards.fromEnvironment(ProcessInfo.processInfo.environment) } catch {
                    Console.err("error: \(error)")
                    throw ExitCode(2)
                }
            } else {
                (k, n) = Shards.parse(shard)!
            }
            plan.jobs = Shards.jobs(plan.jobs, shard: k, of: n)
        }
        if dryRun {
            var runs = 0
            let loader = ResourceLoader()
            for job in plan.jobs {
                let (decision, warnings) =
                    force ? (.forced, []) : Runner.decision(job, in: plan, cache: cache, loader: loader)
                for w in warnings { Console.err("warning: " + w) }
                if !decision.isHit { runs += 1 }
                let what = decision.isHit ? "up to date" : "would write"
                for out in job.outputs {
                    Console.out(
                        "\(what) \(Planner.display(out.path)) from \(job.inputDisplay)"
                            + (job.variant.map { " (\($0))" } ?? "") + (decision.isHit ? "" : " — \(decision)"))
                }
                if let failure = job.failure { Console.err("error: \(job.inputDisplay): \(failure)") }
            }
            Console.out(
                "\(plan.jobs.count) jobs, \(runs) would run, \(plan.jobs.reduce(0) { $0 + $1.outputs.count }) outputs; nothing written (--dry-run)"
            )
            return
        }
        // The remote cache: a bad URL is a usage error (exit 2), an unreachable one only a warning.
        var remote: RemoteCache?
        let env = ProcessInfo.processInfo.environment
        if let url = remoteCache ?? env["TEXPIPE_REMOTE_CACHE"].flatMap({ $0.isEmpty ? nil : $0 }) {
            let headers = remoteHeader.isEmpty ? (env["TEXPIPE_REMOTE_HEADER"].map { [$0] } ?? []) : remoteHeader
            do {
                let settings = try RemoteSettings(
                    url: url, mode: RemoteSettings.Mode(rawValue: remoteCacheMode)!, headers: headers,
                    timeout: remoteTimeout)
                remote = RemoteCache(settings, warn: { Console.err("warning: " + $0) })
            } catch {
                Console.err("error: \(error)")
                throw ExitCode(2)
            }
        }
        installSignalHandlers()
        let console = Console(
            verbosity: quiet ? .quiet : (verbose ? .verbose : .normal),
            progressBar: !noProgress && Console.wantsProgressBar(), total: plan.jobs.count)
        let start = Date()
        let results = Runner.run(
            plan,
            {
                var o = RunOptions(jobs: jobs, maxPixels: maxPixels, cache: cache, force: force)
                o.remote = remote
                return o
            }(),
            progress: { console.progress(done: $0, total: $1) },
            finished: { console.finished($0, $1) })
        if let problem = cache.save() { Console.err("warning: " + problem) }
        console.summary(results, remote: remote)
        keptUntilExit += [cache, plan, results]
        let seconds = Date().timeIntervalSince(start)
        do {
            if let report {
                try AtomicWriter.write(
                    try Reports.json(plan, results, seconds: seconds, remote: remote), to: absolute(report))
            }
            if let junit { try AtomicWriter.write(Reports.junit(plan, results, seconds: seconds), to: absolute(junit)) }
            if let html { try Reports.html(plan, results, to: absolute(html)) }
        } catch {
            Console.err("error: cannot write the report: \(error)")
            throw ExitCode(1)
        }
        if results.contains(where: { $0.status == .failed }) { throw ExitCode(1) }
    }
}

/// A path given on the command line, made absolute against the current folder.
func absolute(_ path: String) -> String {
    path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
}

struct Clean: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove outputs that no job of the manifest writes any more.")

    @Argument(help: "The manifest.") var manifest: String = "pipeline.json"
    @Flag(help: "List what would be removed; remove nothing.") var dryRun = false

    func run() throws {
        let plan: Plan
        do {
            plan = try Planner.plan(try Manifest.load(path: manifest))
        } catch let e as ManifestError {
            throw fail(e)
        }
        let cleaner = Cleaner(plan: plan)
        let (stale, entries, warnings) = cleaner.scan()
        for w in warnings { Console.err("warning: " + w) }
        for item in stale {
            Console.out(
                (item.modified ? "kept " : dryRun ? "would remove " : "removed ") + Planner.display(item.path)
                    + (item.modified ? " (modified since texpipe wrote it)" : ""))
        }
        if !dryRun {
            if let problem = cleaner.remove(stale, entries: entries) { Console.err("warning: " + problem) }
            for path in cleaner.sweepTemporaries() {
                Console.out("removed \(Planner.display(path)) (left by a killed run)")
            }
        }
        let n = stale.filter { !$0.modified }.count
        Console.out("\(n) stale outputs" + (dryRun ? "; nothing removed (--dry-run)" : " removed"))
    }
}

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a manifest: exit 0, or 2 with every error listed.")

    @Argument(help: "The manifest.") var manifest: String = "pipeline.json"

    func run() throws {
        do {
            let loaded = try Manifest.load(path: manifest)
            let cache = Cache(manifestDirectory: loaded.directory)
            let plan = try Planner.plan(loaded, PlanOptions(shapes: cache.index))
            keptUntilExit += [cache, plan]
            for w in plan.warnings { Console.err(w.description) }
            let failing = plan.jobs.filter { $0.failure != nil }
            for job in failing { Console.err("warning: \(job.inputDisplay): \(job.failure!) (this job will fail)") }
            Console.out(
                "\(manifest): ok — \(plan.manifest.pipelines.count) pipelines, \(plan.jobs.count) jobs, "
                    + "\(plan.jobs.reduce(0) { $0 + $1.outputs.count }) outputs")
        } catch let e as ManifestError {
            throw fail(e)
        }
    }
}

struct Stages: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the stage reference.")

    @Argument(help: "One stage's name.") var name: String?

    func run() throws {
        if let name {
            guard let type = StageRegistry.named(name) else {
                Console.err("error: " + Say.unknownStage(name, valid: StageRegistry.names))
                throw ExitCode(2)
            }
            print(StageReference.text(for: [type]))
        } else {
            print(StageReference.text(for: StageRegistry.all) + "\n\n" + StageReference.settingsText())
        }
    }
}

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run, then rerun the affected jobs whenever a file they read changes (Ctrl-C stops).")

    @Argument(help: "The manifest.") var manifest: String = "pipeline.json"
    @Option(help: "Jobs in parallel (default: number of cores).") var jobs: Int?
    @Option(name: .customLong("pipeline"), help: "Only this pipeline (repeatable).") var pipelines: [String] = []
    @Option(help: "Refuse images with more pixels than this, before allocating.") var maxPixels: Int = Image
        .defaultMaxPixels
    @Flag(help: "Also print one line per finished job.") var verbose = false

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
    }

    func run() throws {
        // Ctrl-C / SIGTERM: no rename after this, every temporary file in flight removed, exit 0.
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                AtomicWriter.stopAndCleanUp()
                Console.out("watch: stopped")
                Foundation.exit(0)
            }
            source.resume()
            signalSources.append(source)
        }
        let watcher: FolderWatcher
        do { watcher = try FolderWatcher() } catch {
            Console.err("error: \(error)")
            throw ExitCode(2)
        }
        let manifestPath = absolute(manifest)
        let manifestFolder = (manifestPath as NSString).deletingLastPathComponent
        var plan: Plan? = nil
        var changed: Set<String> = []
        while true {
            // Plan anew on every change: new inputs, deleted ones and an edited manifest all show.
            let next: Plan
            do {
                next = try Planner.plan(try Manifest.load(path: manifest), PlanOptions(pipelines: pipelines))
            } catch let e as ManifestError {
                for d in e.diagnostics { Console.err(d.description) }
                Console.out("watch: \(manifest) has errors; waiting for a fix")
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
            var run = next
            run.jobs = affected
            if !affected.isEmpty || plan == nil {
                let console = Console(
                    verbosity: verbose ? .verbose : .quiet, progressBar: false, total: affected.count)
                let start = Date()
                let cache = Cache(manifestDirectory: next.manifest.directory)
                let results = Runner.run(
                    run, RunOptions(jobs: jobs, maxPixels: maxPixels, cache: cache),
                    finished: { console.finished($0, $1) })
                if let problem = cache.save() { Console.err("warning: " + problem) }
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
            watcher.watch(WatchPlan.folders(next).union([manifestFolder]))
            repeat {
                changed = watcher.changes().filter { !WatchPlan.isOwnWrite($0, plan) }
            } while changed.isEmpty
        }
    }
}

struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the manifest's JSON Schema (draft 2020-12), made from the tables that validate it.")

    func run() throws { print(ManifestSchema.text, terminator: "") }
}

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe image files: size, color type, depth, alpha stats, likely key color.")

    @Argument(help: "Image files.") var files: [String]
    @Option(help: "Refuse images with more pixels than this.") var maxPixels: Int = Image.defaultMaxPixels
    @Flag(help: "Print one JSON object per file (in an array) instead of text, for scripts.") var json = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one file") }
    }

    func run() throws {
        if json {
            let results = files.map { f in
                (
                    file: f,
                    result: Result<InspectFacts, any Error> { try Inspector.facts(path: f, maxPixels: maxPixels) }
                )
            }
            FileHandle.standardOutput.write(Data(try Inspector.json(results)))
            if results.contains(where: { if case .failure = $0.result { true } else { false } }) { throw ExitCode(1) }
            return
        }
        var failed = false
        for f in files {
            do {
                print(try Inspector.describe(path: f, maxPixels: maxPixels))
            } catch {
                Console.err("error: \(f): \(error)")
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }
}

/// `texpipe pack-rects FILE.json`: the atlas packer alone on rectangles (no pixels), for the
/// benchmark and the tightness comparison with rectpack. Hidden from help: a measuring tool.
struct PackRects: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack-rects",
        abstract: "Pack rectangles ({\"sizes\": [[w, h], …], \"atlas\": {…}}) and print the pages as JSON.",
        shouldDisplay: false)

    @Argument(help: "A JSON file: sizes and the atlas settings.") var file: String

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file),
            let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let sizes = root["sizes"] as? [[Int]]
        else { throw ValidationError("\(file): expected {\"sizes\": [[w, h], …]}") }
        let a = root["atlas"] as? [String: Any] ?? [:]
        let max = (a["maxSize"] as? Int) ?? 2048
        let settings = AtlasSettings(
            maxWidth: max, maxHeight: max,
            size: AtlasSettings.SizeRule(rawValue: (a["size"] as? String) ?? "pot") ?? .pot,
            padding: (a["padding"] as? Int) ?? 0, border: (a["border"] as? Int) ?? 0,
            extrude: (a["extrude"] as? Int) ?? 0, rotate: (a["rotate"] as? Bool) ?? false)
        let rects = sizes.map { Packer.Size(width: $0[0], height: $0[1]) }
        let t = DispatchTime.now().uptimeNanoseconds
        let result = Packer(settings).pack(rects)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9
        guard case .success(let pages) = result else { throw ValidationError("a rectangle is larger than a page") }
        let out: [String: Any] = [
            "seconds": seconds,
            "pages": pages.map { p in
                [
                    "w": p.width, "h": p.height,
                    "placements": p.placements.map { [$0.sprite, $0.x, $0.y, $0.rotated ? 1 : 0] },
                ] as [String: Any]
            },
        ]
        FileHandle.standardOutput.write(try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys]))
    }
}

/// `texpipe encode-blocks`: one block encoder alone on raw RGBA8, single-threaded, for
/// `Benchmarks/compare-encoders.sh` (which compares it with the reference encoders). Hidden.
struct EncodeBlocks: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode-blocks",
        abstract: "Encode raw RGBA8 (width × height) into one format's blocks; print the seconds taken.",
        shouldDisplay: false)

    @Option(help: "bc4, bc5, … (the formats texpipe encodes).") var format: String
    @Option(help: "fast, medium or thorough.") var quality: String = "medium"
    @Argument(help: "Raw RGBA8 input.") var input: String
    @Argument var width: Int
    @Argument var height: Int
    @Argument(help: "Where the blocks go.") var output: String

    func run() throws {
        guard let format = TextureSettings.Format(rawValue: format), format.isBC else {
            throw ValidationError("--format: a BC format texpipe encodes")
        }
        guard let quality = TextureSettings.Quality(rawValue: quality) else { throw ValidationError("--quality") }
        guard let data = FileManager.default.contents(atPath: input), data.count == width * height * 4 else {
            throw ValidationError("\(input): expected \(width * height * 4) bytes of RGBA8")
        }
        let rgba = Array(data)
        let t = DispatchTime.now().uptimeNanoseconds
        let blocks = try BC.blocks(rgba, width: width, height: height, format: format, quality: quality)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9
        try Data(blocks).write(to: URL(fileURLWithPath: output))
        print(seconds)
    }
}
