internal import Foundation
import Synchronization
public import TexPipeCache
internal import TexPipeCodecs
public import TexPipePixels
public import TexPipePlan

/// What happened to one job.
public struct JobResult: Sendable {
    public enum Status: String, Sendable { case ok, failed }
    public var index: Int
    public var status: Status
    /// One line: `Samples/cards/7h.png: not a PNG file (bad signature)`.
    public var error: String?
    /// The stage that failed (`decode`, `encode` or a stage name) and its own message.
    public var errorStage: String?
    public var errorMessage: String?
    public var written: [PlannedOutput] = []
    /// SHA-256 and size of each output, as written or as recorded by the cache.
    public var recorded: [Cache.Entry.Output] = []
    /// True when the cache showed the job up to date and nothing ran.
    public var cacheHit = false
    /// True when the outputs came from the remote cache (written here, nothing ran).
    public var remoteHit = false
    /// Why the job ran (or `up to date`), when a cache was in use.
    public var decision: Cache.Decision?
    /// Problems that did not fail the job (a corrupt cache entry discarded).
    public var warnings: [String] = []
    /// Seconds per stage, in order; decode and encode included.
    public var timings: [(name: String, seconds: Double)] = []
    /// What the stages reported (`bleed: 12 pixels not reached within radius 4`).
    public var notes: [String] = []
    /// With `RunOptions.flipMaps`: per output (its path relative to the output folder) the FLIP
    /// map of its worst level, face or layer as a small heat-map PNG, and that level's mean FLIP.
    public var flipMaps: [String: (mean: Double, png: [UInt8])] = [:]
    public var seconds: Double = 0
}

public struct RunOptions: Sendable {
    public var jobs: Int
    public var maxPixels: Int
    /// The incremental cache; nil runs everything and records nothing.
    public var cache: Cache?
    /// Run every job even when the cache says it is up to date (entries are still written).
    public var force = false
    /// A shared cache asked for jobs that miss locally, and given what runs (docs/caching-and-ci.md).
    public var remote: RemoteCache?
    /// Run a job here rather than ask the remote cache when, by what this run has measured, the
    /// round trip costs more than the job (`RemoteCosts`). Off: always ask (the outputs are the
    /// same either way; only the time differs).
    public var remoteCostModel = true
    /// Measure every lossy or block-compressed output's PSNR per level (a report asks for it);
    /// jobs with a `minPSNR` gate always do.
    public var measureQuality = false
    /// Measure SSIM and FLIP of every lossy LDR output's levels too, and the normal angle of normal
    /// maps (`--report-metrics`): into the reports and cache entries, without a gate.
    public var reportMetrics = false
    /// Keep each measured output's worst FLIP map as a small picture (the HTML report's).
    public var flipMaps = false
    /// Memory policy: the largest image (pixels) a stage may hold whole as Float where it could
    /// stream instead (16 B a pixel: 256 MiB at 16 MP). Mipmaps' filters that read level 0 for
    /// every level convert it once up to this size (converting per level cost them 2–3×).
    public var wholeFloatPixels = 1 << 24
    /// Decoded layer images, masks and maps kept for the whole run (bytes of pixels and files).
    public var resourceBudget = 256 << 20
    public static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }
    public init(jobs: Int? = nil, maxPixels: Int = Image.defaultMaxPixels, cache: Cache? = nil, force: Bool = false) {
        self.jobs = max(1, jobs ?? RunOptions.cores)
        self.maxPixels = maxPixels
        self.cache = cache
        self.force = force
    }
}

/// Runs a plan's jobs on `jobs` workers. Results are delivered in plan order, never in
/// completion order, so console output and reports are identical at any `--jobs` (STYLE 11).
public enum Runner {
    /// `finished` is called once per job, in plan order, serialised.
    /// `progress` is called after every completion with (done, total), in any order.
    public static func run(
        _ plan: Plan, _ options: RunOptions,
        loader: ResourceLoader? = nil,
        progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in },
        finished: @escaping @Sendable (Job, JobResult) -> Void = { _, _ in }
    ) -> [JobResult] {
        // Every folder the plan's outputs live in is swept of killed runs' temporary files, up
        // to date or not (docs/guarantees.md "Clean after a crash"), on a thread of its own while
        // the jobs run: a readdir per folder.
        let sweeper = DispatchGroup()
        let folders = Set(plan.jobs.lazy.flatMap { $0.outputs.lazy.map { PathText.parent($0.path) } })
        DispatchQueue.global().async(group: sweeper) { for folder in folders { AtomicWriter.sweepOnce(folder) } }
        defer { sweeper.wait() }
        let schedule = Schedule(
            plan, options, loader: loader ?? ResourceLoader(budget: options.resourceBudget), progress: progress,
            finished: finished)
        DispatchQueue.concurrentPerform(iterations: schedule.workers) { _ in schedule.work() }
        options.remote?.finish()
        return schedule.results
    }

    /// Job indices by input pixels (from the plan's headers: no system call), largest first; ties
    /// in plan order.
    package static func largestFirst(_ jobs: [Job]) -> [Int] {
        // By index: a closure over each `Job` copied it (a retain per field), a sixth of this.
        let pixels = jobs.indices.map { jobs[$0].input.pixels }
        // Among jobs of one size, the k-th job of each output folder before any folder's
        // (k+1)-th: workers running side by side write into different folders, so they do not
        // queue on one directory's lock for every file they create and rename.
        var seen: [PathKey: Int] = [:]
        let rank = jobs.indices.map { i -> Int in
            let folder = PathKey(jobs[i].outputs.first.map { PathText.parent($0.path) } ?? "")
            defer { seen[folder, default: 0] += 1 }
            return seen[folder, default: 0]
        }
        return jobs.indices.sorted { a, b in
            pixels[a] != pixels[b] ? pixels[a] > pixels[b] : rank[a] != rank[b] ? rank[a] < rank[b] : a < b
        }
    }

    /// Whether a job would run, and why (for `--dry-run`).
    public static func decision(
        _ job: Job, in plan: Plan, cache: Cache, loader: ResourceLoader = ResourceLoader()
    ) -> (Cache.Decision, [String]) {
        let base = plan.manifest.directory
        let d = cache.decide(job, inputs: JobInputs(job, cache: cache, loader: loader, base: base).hash, base: base)
        if d.decision.isHit, let entry = d.entry, Gates.unmeasured(job, entry.outputs) { return (.unmeasured, []) }
        return (d.decision, [])
    }
}
