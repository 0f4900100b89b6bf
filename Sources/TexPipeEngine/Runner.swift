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
        let jobs = plan.jobs
        // Every folder the plan's outputs live in is swept of killed runs' temporary files, up
        // to date or not (docs/guarantees.md "Clean after a crash"), on a thread of its own while
        // the jobs run: a readdir per folder.
        let sweeper = DispatchGroup()
        let folders = Set(jobs.lazy.flatMap { $0.outputs.lazy.map { PathText.parent($0.path) } })
        DispatchQueue.global().async(group: sweeper) { for folder in folders { AtomicWriter.sweepOnce(folder) } }
        defer { sweeper.wait() }
        struct State {
            var next = 0
            var done = 0
            var reported = 0
            var results: [JobResult?]
            /// Jobs whose remote lookup missed, ready to run here.
            var ready: [(Int, Prepared)] = []
            /// Jobs whose outputs came from the remote cache, for a worker to write.
            var fetched: [(Int, Prepared, [(RemoteCache.Blob, [UInt8])])] = []
            /// Remote lookups in flight.
            var parked = 0
            /// Per job, how many of the jobs it waits for (`Job.after`) have not finished; jobs
            /// met in order while still waiting, and those whose wait is over.
            var waiting: [Int]
            var blocked: Set<Int> = []
            var unblocked: [Int] = []
        }
        // A model's rewrite waits for its textures (`Job.after`, plan indices).
        let position = Dictionary(jobs.indices.map { (jobs[$0].index, $0) }, uniquingKeysWith: { a, _ in a })
        var dependents = [[Int]](repeating: [], count: jobs.count)
        var waiting = [Int](repeating: 0, count: jobs.count)
        for i in jobs.indices {
            for d in jobs[i].work.after {
                guard let k = position[d] else { continue }
                dependents[k].append(i)
                waiting[i] += 1
            }
        }
        let waitedOnBy = dependents
        let state = Mutex(State(results: Array(repeating: nil, count: jobs.count), waiting: waiting))
        let wake = NSCondition()
        let workers = min(options.jobs, max(1, jobs.count))
        // Cores without a job (fewer jobs than --jobs, or a worker whose queue ran dry) are lent
        // to the jobs still running, for the row bands of a large image.
        let lender = CoreLender(idle: options.jobs - workers)
        let loader = loader ?? ResourceLoader(budget: options.resourceBudget)
        // Biggest inputs first (pixels stand in for work): the long jobs start early and the
        // run does not end on one large image while the other cores wait. Results are still
        // delivered in plan order.
        let order = Self.largestFirst(jobs)
        let remote = options.remote
        // Lookups in flight at most: a parked job holds the input bytes it read.
        let window = 4 * RemoteCache.lanes
        @Sendable func deliver(_ i: Int, _ result: JobResult) {
            var result = result
            Gates.apply(jobs[i], to: &result)
            let freed = state.withLock { s -> Bool in
                var freed = false
                for j in waitedOnBy[i] {
                    s.waiting[j] -= 1
                    if s.waiting[j] == 0 && s.blocked.remove(j) != nil {
                        s.unblocked.append(j)
                        freed = true
                    }
                }
                s.results[i] = result
                s.done += 1
                progress(s.done, jobs.count)
                while s.reported < jobs.count, let r = s.results[s.reported] {
                    finished(jobs[s.reported], r)
                    s.reported += 1
                }
                return freed
            }
            if freed {
                wake.lock()
                wake.broadcast()
                wake.unlock()
            }
        }
        let costs = Mutex(RemoteCosts(workers: workers, lanes: RemoteCache.lanes))
        /// `upload`: give the outputs to the remote cache (read-write mode).
        @Sendable func runHere(_ i: Int, _ p: Prepared, upload: Bool = true) {
            let started = DispatchTime.now().uptimeNanoseconds
            let (result, bytes) = AtomicWriter.job {
                runLocally(jobs[i], in: plan, options, p, rows: lender, loader: loader)
            }
            if result.status == .ok {
                let ns = DispatchTime.now().uptimeNanoseconds - started
                costs.withLock { $0.ranHere(nanoseconds: ns, pixels: jobs[i].input.pixels) }
            }
            if let remote, upload, result.status == .ok, remote.settings.mode == .readWrite, let inputs = p.inputs {
                let blobs = zip(result.written, zip(result.recorded, bytes)).map { out, rb in
                    (
                        RemoteCache.Blob(
                            path: out.relative, size: rb.0.bytes, sha256: rb.0.sha256, measure: rb.0.measureToken), rb.1
                    )
                }
                let key = remoteKey(jobs[i], inputs)
                remote.submit { remote.store(key: key, outputs: blobs) }
            }
            deliver(i, result)
        }
        enum Step {
            case prepare(Int)
            case run(Int, Prepared)
            case materialize(Int, Prepared, [(RemoteCache.Blob, [UInt8])])
        }
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                // Next: a job whose remote lookup missed, else a new job, else wait for a lookup
                // in flight; done when none is left.
                wake.lock()
                var step: Step?
                while true {
                    step = state.withLock { s -> Step? in
                        if let (i, p, blobs) = s.fetched.popLast() { return .materialize(i, p, blobs) }
                        if !s.ready.isEmpty {
                            let (i, p) = s.ready.removeFirst()
                            return .run(i, p)
                        }
                        if !s.unblocked.isEmpty { return .prepare(s.unblocked.removeFirst()) }
                        while s.next < jobs.count && s.parked < window {
                            let i = order[s.next]
                            s.next += 1
                            if s.waiting[i] > 0 {
                                s.blocked.insert(i)
                                continue
                            }
                            return .prepare(i)
                        }
                        return nil
                    }
                    let more = state.withLock { $0.parked > 0 || !$0.fetched.isEmpty || !$0.blocked.isEmpty }
                    if step != nil || !more { break }
                    wake.wait()
                }
                wake.unlock()
                guard let step else {
                    lender.workerFinished()
                    return
                }
                switch step {
                case .run(let i, let p):
                    runHere(i, p)
                case .materialize(let i, let p, let blobs):
                    // Written by the run's workers, not the cache's lanes: sixteen threads creating
                    // files and recording them side by side on two cores queued on the index's
                    // lock (a third of a run served by the cache).
                    let started = DispatchTime.now().uptimeNanoseconds
                    if let hit = AtomicWriter.job({ materialize(jobs[i], in: plan, options, p, blobs: blobs) }) {
                        let ns = DispatchTime.now().uptimeNanoseconds - started
                        costs.withLock { $0.wrote(nanoseconds: ns) }
                        deliver(i, hit)
                    } else {
                        runHere(i, p)
                    }
                case .prepare(let i):
                    // A job whose prerequisite failed fails with it, naming it.
                    let failedFirst = jobs[i].work.after.compactMap { d -> String? in
                        guard let k = position[d] else { return nil }
                        return state.withLock { $0.results[k]?.status == .failed } ? jobs[k].input.display : nil
                    }
                    if let first = failedFirst.first {
                        var r = JobResult(index: jobs[i].index, status: .ok)
                        r = failed(
                            jobs[i], r, EngineMessage.prerequisiteFailed(first), stage: "gltf",
                            start: DispatchTime.now().uptimeNanoseconds)
                        deliver(i, r)
                        continue
                    }
                    let p = prepare(jobs[i], in: plan, options, loader: loader)
                    if p.done {
                        deliver(i, p.result)
                        continue
                    }
                    guard let remote, !remote.isOff, !options.force, let inputs = p.inputs, inputs.inputError == nil
                    else {
                        runHere(i, p)
                        continue
                    }
                    // Cheaper here than a hit: run here, and do not upload it. A reader's model
                    // weighs the same costs and runs it here too, so the entry would only cost
                    // this run a request, and the server a file, that no run would read.
                    if options.remoteCostModel, costs.withLock({ $0.runsHere(pixels: jobs[i].input.pixels) }) {
                        runHere(i, p, upload: false)
                        continue
                    }
                    // Ask the remote cache on its own threads; this worker goes on with other jobs.
                    state.withLock { $0.parked += 1 }
                    let key = remoteKey(jobs[i], inputs)
                    let paths = jobs[i].outputs.map(\.relative)
                    let work = jobs[i].work
                    let asked = DispatchTime.now().uptimeNanoseconds
                    remote.submit {
                        let hit = remote.fetch(key: key) { listed in
                            guard !work.outputsPlanned else {
                                return Set(listed) == Set(paths) && listed.count == paths.count
                            }
                            return Set(paths).isSubset(of: listed) && Set(listed).count == listed.count
                                && listed.allSatisfy(work.owns)
                        }
                        costs.withLock { $0.asked(nanoseconds: DispatchTime.now().uptimeNanoseconds - asked) }
                        wake.lock()
                        state.withLock { s in
                            s.parked -= 1
                            if let hit { s.fetched.append((i, p, hit)) } else { s.ready.append((i, p)) }
                        }
                        wake.broadcast()
                        wake.unlock()
                    }
                }
            }
        }
        remote?.finish()
        return state.withLock { $0.results.map { $0! } }
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
