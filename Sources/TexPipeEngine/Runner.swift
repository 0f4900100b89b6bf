internal import Foundation
import Synchronization
internal import TexPipeCodecs
internal import TexPipeManifest
public import TexPipePixels
public import TexPipePlan
internal import TexPipeStages

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
    /// Why the job ran (or `up to date`), when a cache was in use.
    public var decision: Cache.Decision?
    /// Problems that did not fail the job (a corrupt cache entry discarded).
    public var warnings: [String] = []
    /// Seconds per stage, in order; decode and encode included.
    public var timings: [(name: String, seconds: Double)] = []
    /// What the stages reported (`bleed: 12 pixels not reached within radius 4`).
    public var notes: [String] = []
    public var seconds: Double = 0
}

public struct RunOptions: Sendable {
    public var jobs: Int
    public var maxPixels: Int
    /// The incremental cache; nil runs everything and records nothing.
    public var cache: Cache?
    /// Run every job even when the cache says it is up to date (entries are still written).
    public var force = false
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

/// The bytes of the job's input, read once, and the hash of every file the job reads (its cache
/// key): the input's own bytes, the rest (layers, masks, maps, fonts) through the run's loader,
/// which reads each of them once per run.
struct JobInputs {
    var input: [UInt8]?
    var inputError: String?
    var hash: String

    init(_ job: Job, loader: ResourceLoader) {
        var files: [(String, String?)] = []
        input = nil
        inputError = nil
        for (k, path) in job.reads.enumerated() {
            if k == 0 {
                switch FileReader.read(path) {
                case .success(let bytes):
                    input = bytes
                    files.append((path, Cache.sha256(bytes)))
                case .failure(let message):
                    inputError = message.description
                    files.append((path, nil))
                }
            } else {
                files.append((path, loader.digest(path)))
            }
        }
        hash = Cache.inputsHash(files)
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
        progress: @Sendable (Int, Int) -> Void = { _, _ in },
        finished: @Sendable (Job, JobResult) -> Void = { _, _ in }
    ) -> [JobResult] {
        let jobs = plan.jobs
        struct State {
            var next = 0
            var done = 0
            var reported = 0
            var results: [JobResult?]
        }
        let state = Mutex(State(results: Array(repeating: nil, count: jobs.count)))
        let workers = min(options.jobs, max(1, jobs.count))
        // Cores without a job (fewer jobs than --jobs, or a worker whose queue ran dry) are lent
        // to the jobs still running, for the row bands of a large image.
        let lender = CoreLender(idle: options.jobs - workers)
        let loader = loader ?? ResourceLoader(budget: options.resourceBudget)
        // Biggest inputs first (file size stands in for work): the long jobs start early and the
        // run does not end on one large image while the other cores wait. Results are still
        // delivered in plan order.
        let order = Self.largestFirst(jobs)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let i: Int? = state.withLock { s in
                    guard s.next < jobs.count else { return nil }
                    defer { s.next += 1 }
                    return order[s.next]
                }
                guard let i else {
                    lender.workerFinished()
                    return
                }
                let result = execute(jobs[i], in: plan, options, rows: lender, loader: loader)
                state.withLock { s in
                    s.results[i] = result
                    s.done += 1
                    progress(s.done, jobs.count)
                    while s.reported < jobs.count, let r = s.results[s.reported] {
                        finished(jobs[s.reported], r)
                        s.reported += 1
                    }
                }
            }
        }
        return state.withLock { $0.results.map { $0! } }
    }

    /// Job indices by input file size, largest first; ties in plan order.
    package static func largestFirst(_ jobs: [Job]) -> [Int] {
        var sizes: [String: Int] = [:]
        for job in jobs where sizes[job.input] == nil {
            // stat, not FileManager's attributes (which look up the owner's and group's names in
            // /etc/passwd and /etc/group for every file).
            var st = stat()
            sizes[job.input] = stat(job.input, &st) == 0 ? Int(st.st_size) : 0
        }
        return jobs.indices.sorted { a, b in
            let (sa, sb) = (sizes[jobs[a].input]!, sizes[jobs[b].input]!)
            return sa != sb ? sa > sb : a < b
        }
    }

    /// Whether a job would run, and why (for `--dry-run`).
    public static func decision(
        _ job: Job, in plan: Plan, cache: Cache, loader: ResourceLoader = ResourceLoader()
    ) -> (Cache.Decision, [String]) {
        var warnings: [String] = []
        let d = cache.decide(
            job, inputs: JobInputs(job, loader: loader).hash, base: plan.manifest.directory, warnings: &warnings)
        return (d.decision, warnings)
    }

    /// Cache check → decode → stages → encode → atomic write → cache entry, for one job.
    /// Never throws: a failure is a result.
    /// `rows`: the cores the run lends to this job's row bands; `loader`: the run's reader and
    /// decoder of the files the stages read.
    public static func execute(
        _ job: Job, in plan: Plan, _ options: RunOptions, rows: any RowScheduler = SerialRows(),
        loader: ResourceLoader = ResourceLoader()
    ) -> JobResult {
        let start = DispatchTime.now().uptimeNanoseconds
        var result = JobResult(index: job.index, status: .ok)
        func elapsed(since t: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9 }
        func fail(_ message: String, stage: String? = nil) -> JobResult {
            result.status = .failed
            result.errorStage = stage
            result.errorMessage = message
            result.error = EngineMessage.jobLine(input: job.inputDisplay, variant: job.variant, stage: stage, message)
            result.seconds = elapsed(since: start)
            return result
        }
        if let failure = job.failure { return fail(failure, stage: job.failureStage) }
        var t = DispatchTime.now().uptimeNanoseconds
        let inputs = JobInputs(job, loader: loader)
        let base = plan.manifest.directory
        if let cache = options.cache {
            let (decision, entry) =
                options.force
                ? (.forced, nil) : cache.decide(job, inputs: inputs.hash, base: base, warnings: &result.warnings)
            result.decision = decision
            if decision.isHit, let entry {
                result.cacheHit = true
                result.written = job.outputs
                result.recorded = entry.outputs
                result.seconds = elapsed(since: start)
                return result
            }
        }
        guard let data = inputs.input else { return fail(inputs.inputError ?? EngineMessage.unreadableInput) }
        var images: [Image]
        do {
            var image = try ImageDecoder.decode(data, path: job.input, maxPixels: options.maxPixels)
            image.alpha = job.inputAlpha
            images = [image]
        } catch {
            return fail("\(error)")
        }
        result.timings.append(("decode", elapsed(since: t)))
        var context = StageContext(maxPixels: options.maxPixels)
        context.rows = rows
        context.wholeFloatPixels = options.wholeFloatPixels
        context.fonts = job.fonts
        context.text = FreeTypeText()
        for stage in job.stages {
            t = DispatchTime.now().uptimeNanoseconds
            let name = type(of: stage).name
            context.notes = []
            for case .image(let path, let label, _, _) in stage.reads where context.images[path] == nil {
                do {
                    context.images[path] = try loader.image(path, maxPixels: options.maxPixels)
                } catch {
                    return fail(EngineMessage.resource(label, path, error), stage: name)
                }
            }
            do {
                images = try images.flatMap { try stage.applied(to: $0, context: &context) }
            } catch {
                return fail("\(error)", stage: name)
            }
            result.notes += context.notes.map { "\(name): \($0)" }
            result.timings.append((name, elapsed(since: t)))
        }
        guard images.count == job.outputs.count else {
            return fail(EngineMessage.imageCount(made: images.count, planned: job.outputs.count))
        }
        t = DispatchTime.now().uptimeNanoseconds
        for (image, output) in zip(images, job.outputs) {
            do {
                let bytes =
                    output.format == .png
                    ? try ImageEncoder.png(image, job.png, rows: rows)
                    : try ImageEncoder.jpeg(image, job.jpeg, rows: rows)
                try AtomicWriter.write(bytes, to: output.path)
                result.written.append(output)
                result.recorded.append(
                    .init(
                        path: String(output.path.dropFirst(base.count + 1)), sha256: Cache.sha256(bytes),
                        bytes: bytes.count))
            } catch {
                return fail(EngineMessage.output(output.relative, error))
            }
        }
        result.timings.append(("encode", elapsed(since: t)))
        // Only now, with every output in place, may the cache claim them.
        do {
            try options.cache?.store(job, inputs: inputs.hash, outputs: result.recorded)
        } catch {
            result.warnings.append(EngineMessage.cacheEntryNotWritten(error))
        }
        result.seconds = elapsed(since: start)
        return result
    }
}
