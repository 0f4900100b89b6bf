internal import Foundation
import Synchronization
internal import TexPipeBlocks
internal import TexPipeCodecs
internal import TexPipeFormats
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

/// The hash of every file the job reads (its cache key) and, when it had to be read for that, the
/// input's bytes. With a cache, a file whose stat matches the index is not read at all; the others
/// are read once (the input here, the rest through the run's loader, once per run).
struct JobInputs {
    /// The bytes read, shared by every copy of the job's inputs, so that the job gives them up in
    /// all of them at once when it has decoded them. A job is on one worker at a time, so the
    /// bytes are never read and dropped concurrently.
    final class ReadBytes: @unchecked Sendable {
        var files: [[UInt8]?]
        init(count: Int) { files = Array(repeating: nil, count: count) }
    }
    let read: ReadBytes
    /// The bytes of the job's own inputs — its input, or an atlas's sprites (the first `count`
    /// reads) — where they were read, and why one could not be.
    var files: [[UInt8]?] {
        get { read.files }
        nonmutating set { read.files = newValue }
    }
    var errors: [String?]
    var digests: [(path: String, digest: String?)] = []
    var hash: String

    var inputError: String? { errors[0] }

    init(_ job: Job, cache: Cache?, loader: ResourceLoader, base: String) {
        let own = job.atlas?.sprites.count ?? job.layers?.count ?? 1
        read = ReadBytes(count: own)
        errors = Array(repeating: nil, count: own)
        for (k, path) in job.reads.enumerated() {
            if k < own {
                if let cache {
                    let digest = cache.digest(of: path, bytes: &read.files[k])
                    if digest == nil, case .failure(let message) = FileReader.read(path) {
                        errors[k] = message.description
                    }
                    digests.append((path, digest))
                    continue
                }
                switch FileReader.read(path) {
                case .success(let bytes):
                    read.files[k] = bytes
                    digests.append((path, Cache.sha256(bytes)))
                case .failure(let message):
                    errors[k] = message.description
                    digests.append((path, nil))
                }
            } else if let cache {
                // Through the loader, which keeps the bytes for the stage that decodes them; a
                // file without a stat (missing, not regular) is the loader's to judge.
                let digest = cache.digest(of: path) { _ in loader.digest(path).map { ($0, record: true) } }
                digests.append((path, digest ?? loader.digest(path)))
            } else {
                digests.append((path, loader.digest(path)))
            }
        }
        hash = Cache.inputsHash(digests, base: base)
    }

    /// The input's bytes for a job that runs: read now if the index spared reading them. The key
    /// is taken again from the bytes read, so an entry always describes what was processed.
    mutating func load(base: String) {
        var changed = false
        for k in read.files.indices where read.files[k] == nil && errors[k] == nil && k < digests.count {
            switch FileReader.read(digests[k].path) {
            case .success(let bytes):
                read.files[k] = bytes
                let sha = Cache.sha256(bytes)
                if sha != digests[k].digest {
                    digests[k].digest = sha
                    changed = true
                }
            case .failure(let message):
                errors[k] = message.description
            }
        }
        if changed { hash = Cache.inputsHash(digests, base: base) }
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
        }
        let state = Mutex(State(results: Array(repeating: nil, count: jobs.count)))
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
        let costs = Mutex(RemoteCosts(workers: workers, lanes: RemoteCache.lanes))
        /// `upload`: give the outputs to the remote cache (read-write mode).
        @Sendable func runHere(_ i: Int, _ p: Prepared, upload: Bool = true) {
            let started = DispatchTime.now().uptimeNanoseconds
            let (result, bytes) = AtomicWriter.job {
                runLocally(jobs[i], in: plan, options, p, rows: lender, loader: loader)
            }
            if result.status == .ok {
                let ns = DispatchTime.now().uptimeNanoseconds - started
                costs.withLock { $0.ranHere(nanoseconds: ns, pixels: jobs[i].pixels) }
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
                        if s.next < jobs.count && s.parked < window {
                            defer { s.next += 1 }
                            return .prepare(order[s.next])
                        }
                        return nil
                    }
                    if step != nil || !state.withLock({ $0.parked > 0 || !$0.fetched.isEmpty }) { break }
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
                    if options.remoteCostModel, costs.withLock({ $0.runsHere(pixels: jobs[i].pixels) }) {
                        runHere(i, p, upload: false)
                        continue
                    }
                    // Ask the remote cache on its own threads; this worker goes on with other jobs.
                    state.withLock { $0.parked += 1 }
                    let key = remoteKey(jobs[i], inputs)
                    let paths = jobs[i].outputs.map(\.relative)
                    let atlas = jobs[i].atlas
                    let asked = DispatchTime.now().uptimeNanoseconds
                    remote.submit {
                        let hit = remote.fetch(key: key) { listed in
                            guard let atlas else { return Set(listed) == Set(paths) && listed.count == paths.count }
                            return Set(paths).isSubset(of: listed) && Set(listed).count == listed.count
                                && listed.allSatisfy(atlas.owns)
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
        let pixels = jobs.map(\.pixels)
        // Among jobs of one size, the k-th job of each output folder before any folder's
        // (k+1)-th: workers running side by side write into different folders, so they do not
        // queue on one directory's lock for every file they create and rename.
        var seen: [String: Int] = [:]
        let rank = jobs.map { job -> Int in
            let folder = job.outputs.first.map { PathText.parent($0.path) } ?? ""
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

    /// A job after its cache check: finished (a failure known at plan time, an up-to-date job),
    /// or to be run, with what the check read.
    struct Prepared {
        var result: JobResult
        var inputs: JobInputs?
        var start: UInt64
        var done: Bool
    }

    /// Cache check → decode → stages → encode → atomic write → cache entry, for one job.
    /// Never throws: a failure is a result.
    /// `rows`: the cores the run lends to this job's row bands; `loader`: the run's reader and
    /// decoder of the files the stages read.
    public static func execute(
        _ job: Job, in plan: Plan, _ options: RunOptions, rows: any RowScheduler = SerialRows(),
        loader: ResourceLoader = ResourceLoader()
    ) -> JobResult {
        let p = prepare(job, in: plan, options, loader: loader)
        return p.done ? p.result : runLocally(job, in: plan, options, p, rows: rows, loader: loader).result
    }

    static func elapsed(since t: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9 }

    static func failed(_ job: Job, _ result: JobResult, _ message: String, stage: String?, start: UInt64) -> JobResult {
        var result = result
        result.status = .failed
        result.errorStage = stage
        result.errorMessage = message
        result.error = EngineMessage.jobLine(input: job.inputDisplay, variant: job.variant, stage: stage, message)
        result.seconds = elapsed(since: start)
        return result
    }

    /// The local cache check: which files changed, whether the job is up to date.
    static func prepare(_ job: Job, in plan: Plan, _ options: RunOptions, loader: ResourceLoader) -> Prepared {
        let start = DispatchTime.now().uptimeNanoseconds
        var result = JobResult(index: job.index, status: .ok)
        if let failure = job.failure {
            return Prepared(
                result: failed(job, result, failure, stage: job.failureStage, start: start), inputs: nil, start: start,
                done: true)
        }
        let base = plan.manifest.directory
        let inputs = JobInputs(job, cache: options.cache, loader: loader, base: base)
        if let cache = options.cache {
            let (decision, entry) =
                options.force ? (.forced, nil) : cache.decide(job, inputs: inputs.hash, base: base)
            result.decision = decision
            if decision.isHit, let entry, Gates.unmeasured(job, entry.outputs) {
                result.decision = .unmeasured
            } else if decision.isHit, let entry {
                result.cacheHit = true
                result.written =
                    job.atlas == nil
                    ? job.outputs : Cache.recordedOutputs(entry, root: plan.manifest.outputRoot, base: base)
                result.recorded = entry.outputs
                result.seconds = elapsed(since: start)
                return Prepared(result: result, inputs: nil, start: start, done: true)
            }
        }
        return Prepared(result: result, inputs: inputs, start: start, done: false)
    }

    /// The key of a job's results in a remote cache: its version, parameters and inputs (paths
    /// relative to the manifest), so the same job in another checkout has the same key.
    static func remoteKey(_ job: Job, _ inputs: JobInputs) -> String {
        Cache.sha256(
            "texpipe-remote 1\n" + Cache.versionHash + "\n" + Cache.sha256(job.parameters) + "\n" + inputs.hash)
    }

    /// A remote hit: the outputs written atomically as if the job had run, recorded locally.
    /// nil when an output cannot be written (the job then runs locally and says why).
    static func materialize(
        _ job: Job, in plan: Plan, _ options: RunOptions, _ p: Prepared, blobs: [(RemoteCache.Blob, [UInt8])]
    ) -> JobResult? {
        let base = plan.manifest.directory
        var result = p.result
        // An entry measured without what this job's gates ask for: the job runs here and measures.
        if job.check != nil {
            let listed = blobs.map { b, _ in
                var o = Cache.Entry.Output(path: b.path, sha256: b.sha256, bytes: b.size)
                if let m = b.measure { _ = o.readMeasure(Substring(m)) }
                return o
            }
            if Gates.unmeasured(job, listed) { return nil }
        }
        // An atlas's outputs are what the entry lists (checked against its pattern when fetched).
        let outputs =
            job.atlas == nil
            ? job.outputs
            : blobs.map { PlannedOutput.named($0.0.path, root: plan.manifest.outputRoot) }
        for output in outputs {
            guard let (blob, bytes) = blobs.first(where: { $0.0.path == output.relative }) else { return nil }
            do { try AtomicWriter.write(bytes, to: output.path) } catch { return nil }
            result.written.append(output)
            // The blob's SHA-256 was checked against its bytes when it was fetched.
            var recorded = Cache.Entry.Output(
                path: PathText.relative(output.path, to: base), sha256: blob.sha256, bytes: bytes.count)
            if let m = blob.measure { _ = recorded.readMeasure(Substring(m)) }
            result.recorded.append(recorded)
        }
        options.cache?.store(job, inputs: p.inputs!.hash, outputs: result.recorded, base: base)
        result.remoteHit = true
        result.seconds = elapsed(since: p.start)
        return result
    }

    struct StageFailure: Error {
        var message: String
        var stage: String?
    }

    /// The context a job's stages run in: its pixel limit, fonts, rows and the memory policy.
    static func stageContext(_ job: Job, _ options: RunOptions, rows: any RowScheduler) -> StageContext {
        var context = StageContext(maxPixels: options.maxPixels)
        context.rows = rows
        context.wholeFloatPixels = options.wholeFloatPixels
        context.fonts = job.fonts
        context.text = FreeTypeText()
        return context
    }

    /// Runs `stages` over `images`, loading the images they read through the run's loader; notes
    /// and, when `timed`, seconds per stage go into `result`.
    static func applyStages(
        _ stages: [any Stage], to images: consuming [Image], _ context: inout StageContext, _ options: RunOptions,
        loader: ResourceLoader, result: inout JobResult, timed: Bool = true, prefix: String = ""
    ) -> Result<[Image], StageFailure> {
        for stage in stages {
            let t = DispatchTime.now().uptimeNanoseconds
            let name = type(of: stage).name
            context.notes = []
            for case .image(let path, let label, _, _) in stage.reads where context.images[PathKey(path)] == nil {
                do {
                    context.images[PathKey(path)] = try loader.image(path, maxPixels: options.maxPixels)
                } catch {
                    return .failure(StageFailure(message: EngineMessage.resource(label, path, error), stage: name))
                }
            }
            do {
                // Each image is handed over, not shared, so a per-pixel stage changes its pixels in
                // place instead of copying them (docs/performance.md "Memory").
                var inputs = consume images
                inputs.reverse()
                images = []
                while let image = inputs.popLast() { images += try stage.applied(to: consume image, context: &context) }
            } catch {
                return .failure(StageFailure(message: "\(error)", stage: name))
            }
            result.notes += context.notes.map { prefix + "\(name): \($0)" }
            if timed { result.timings.append((name, elapsed(since: t))) }
        }
        return .success(images)
    }

    /// Encoding (the codec) and writing (the file system, the output's hash) apart: a large
    /// uncompressed texture spends more in the second.
    struct WriteClock {
        var encoding: UInt64 = 0
        var total: UInt64 = 0
        func report(into result: inout JobResult) {
            result.timings.append(("encode", Double(encoding) / 1e9))
            result.timings.append(("write", Double(total - encoding) / 1e9))
        }
    }

    /// Encodes `images` into `outputs` (an output takes one image, or a GPU texture's `levels`),
    /// each written atomically and recorded in `result`; the bytes kept in `encoded` for a remote
    /// cache. nil, or the failure's message.
    static func write(
        _ images: consuming [Image], to outputs: [PlannedOutput], _ job: Job, _ options: RunOptions,
        rows: any RowScheduler, base: String, _ result: inout JobResult, _ encoded: inout [[UInt8]],
        _ clock: inout WriteClock
    ) -> String? {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { clock.total += DispatchTime.now().uptimeNanoseconds - start }
        // PSNR per level only when a gate or a report asks: decoding the blocks back costs time.
        let measureQuality = job.check?.minPSNR != nil || options.measureQuality
        // Each output takes its images out of the list, so the encoder holds the only reference
        // and frees the pixels as soon as it no longer needs them (docs/performance.md "Memory").
        var slots: [Image?] = (consume images).map { $0 }
        var next = 0
        var faces: [Image] = []
        // The files the last image's stages made beside it (`_sh.json`), for its sidecar outputs.
        var sidecars: [String: [UInt8]] = [:]
        for output in outputs {
            let t = DispatchTime.now().uptimeNanoseconds
            if let suffix = output.sidecar {
                do {
                    try record(sidecars[suffix] ?? [], output, options, base: base, &result, &encoded)
                } catch {
                    return EngineMessage.output(output.relative, error)
                }
                continue
            }
            var group: [Image] = []
            if let f = output.face {
                // A cube map into six image files: face 0's output takes the cube, each its face.
                if f == 0 || faces.isEmpty {
                    faces = slots[next]!.cubeFaces()
                    slots[next] = nil
                    next += 1
                }
                group = [faces[f]]
            } else {
                for k in next..<(next + output.levels) {
                    group.append(slots[k]!)
                    slots[k] = nil
                }
                next += output.levels
            }
            sidecars = group.first?.sidecars ?? [:]
            do {
                let bytes: [UInt8]
                var measure = Measure(format: "png", gpuBytes: 0, psnr: nil)
                if group.contains(where: \.isHDR), !output.format.isHDR, output.format.container == nil {
                    // The planner refuses this; a variant's extension could still name it.
                    throw CodecError(.ldrFormatGotHDR(output.format.name))
                }
                switch output.format {
                case .exr:
                    let image = group.removeLast()
                    measure.format = "exr"
                    measure.gpuBytes = image.pixelCount * 8
                    bytes = try EXR.encode(image)
                case .radiance:
                    throw CodecError(.notWritable(output.format.name))
                case .png:
                    let image = group.removeLast()
                    measure.gpuBytes = image.pixelCount * image.depth / 2
                    bytes = try ImageEncoder.png(image, job.png, rows: rows)
                case .jpeg:
                    bytes = try ImageEncoder.jpeg(group[0], job.jpeg, rows: rows)
                    measure.format = "jpeg"
                    measure.gpuBytes = group[0].pixelCount * 4
                    if measureQuality {
                        let back = TextureEncoder.rgba8(try ImageDecoder.decode(bytes, path: output.path))
                        measure.psnr = [
                            LevelQuality(
                                rgb: Quality.psnr(TextureEncoder.rgba8(group[0]), back, channels: 0...2), alpha: nil)
                        ]
                    }
                case .texture(let container):
                    let info = job.texture.format.info
                    measure.format = job.texture.format.rawValue
                    measure.gpuBytes = group.reduce(0) { $0 + info.levelBytes($1.width, $1.height) }
                    let encoded = try TextureEncoder.encode(
                        group, job.texture, container: container, rows: rows,
                        measure: measureQuality && info.isBlockCompressed)
                    bytes = encoded.bytes
                    if measureQuality && info.isBlockCompressed { measure.psnr = encoded.quality }
                }
                clock.encoding += DispatchTime.now().uptimeNanoseconds - t
                try record(bytes, output, options, base: base, &result, &encoded, measure: measure)
            } catch {
                return EngineMessage.output(output.relative, error)
            }
        }
        return nil
    }

    /// Writes `bytes` atomically to `output` and records it in `result`.
    static func record(
        _ bytes: [UInt8], _ output: PlannedOutput, _ options: RunOptions, base: String, _ result: inout JobResult,
        _ encoded: inout [[UInt8]], measure: Measure? = nil
    ) throws {
        try AtomicWriter.write(bytes, to: output.path)
        if options.remote != nil { encoded.append(bytes) }
        result.written.append(output)
        result.recorded.append(
            .init(
                path: PathText.relative(output.path, to: base), sha256: Cache.sha256(bytes), bytes: bytes.count,
                format: measure?.format, gpuBytes: measure?.gpuBytes, psnr: measure?.psnr))
    }

    /// What an output holds and costs, recorded beside its hash (docs/gpu-textures.md "Checks and budgets").
    struct Measure {
        var format: String
        var gpuBytes: Int
        var psnr: [LevelQuality]?
    }

    /// Whether the job's image fits in the memory the process may still take (docs/guarantees.md
    /// "Bounded"): nil, or the one-line reason it does not. Under a data or address-space limit,
    /// the job's notes say what it needs and what is free.
    static func admitted(_ job: Job, _ result: inout JobResult) -> String? {
        let need = Allocator.need(pixels: job.pixels)
        guard need >= Allocator.checkedFrom else { return nil }
        let limit = Allocator.limit()
        if let limit {
            result.notes.append(EngineMessage.memoryNote(need: need, limit: limit.limit, free: limit.free))
        }
        if Allocator.canReserve(need) { return nil }
        return EngineMessage.cannotAllocate(need, pixels: job.pixels, free: limit.map { max(0, $0.free) })
    }

    /// Decode → stages → encode → atomic write → cache entry. Also hands back the bytes written,
    /// for a remote cache to upload.
    static func runLocally(
        _ job: Job, in plan: Plan, _ options: RunOptions, _ prepared: Prepared, rows: any RowScheduler,
        loader: ResourceLoader
    ) -> (result: JobResult, bytes: [[UInt8]]) {
        let start = prepared.start
        var result = prepared.result
        var inputs = prepared.inputs!
        var encoded: [[UInt8]] = []
        func elapsed(since t: UInt64) -> Double { Runner.elapsed(since: t) }
        func fail(_ message: String, stage: String? = nil) -> (JobResult, [[UInt8]]) {
            (failed(job, result, message, stage: stage, start: start), [])
        }
        let t = DispatchTime.now().uptimeNanoseconds
        let base = plan.manifest.directory
        inputs.load(base: base)
        if job.atlas != nil {
            return runAtlas(job, in: plan, options, prepared, inputs, rows: rows, loader: loader)
        }
        if job.layers != nil {
            return runArray(job, in: plan, options, prepared, inputs, rows: rows, loader: loader)
        }
        guard let data = inputs.read.files[0] else {
            return fail(inputs.inputError ?? EngineMessage.unreadableInput)
        }
        // The file's bytes go as soon as they are decoded: only the image stays in flight.
        inputs.read.files[0] = nil
        if let message = admitted(job, &result) { return fail(message, stage: "decode") }
        var images: [Image]
        do {
            var image = try ImageDecoder.decode(consume data, path: job.input, maxPixels: options.maxPixels)
            image.alpha = job.inputAlpha
            images = [image]
        } catch {
            return fail("\(error)")
        }
        result.timings.append(("decode", elapsed(since: t)))
        var context = stageContext(job, options, rows: rows)
        switch applyStages(job.stages, to: consume images, &context, options, loader: loader, result: &result) {
        case .success(let out): images = out
        case .failure(let f): return fail(f.message, stage: f.stage)
        }
        // An output takes one image, or a GPU texture's whole chain (`levels` images); a cube map's
        // six face files take one image between them.
        let planned = job.outputs.reduce(0) { $0 + ($1.face.map { $0 == 0 ? 1 : 0 } ?? $1.levels) }
        guard images.count == planned else {
            return fail(EngineMessage.imageCount(made: images.count, planned: planned))
        }
        var clock = WriteClock()
        if let message = write(
            consume images, to: job.outputs, job, options, rows: rows, base: base, &result, &encoded, &clock)
        {
            return fail(message)
        }
        clock.report(into: &result)
        // Only now, with every output in place, may the cache claim them.
        options.cache?.store(job, inputs: inputs.hash, outputs: result.recorded, base: base)
        result.seconds = elapsed(since: start)
        return (result, encoded)
    }
}

/// The remote cache's cost model (docs/caching-and-ci.md): from what this run has measured, is a
/// job cheaper to run here than to ask the cache for? Here, a job costs its pixels times the
/// measured time per pixel of the jobs run here, shared by the workers; a hit costs a lookup's
/// measured mean time (queue and round trips), shared by the cache's lanes, plus writing its
/// outputs, shared by the workers. Until `minimumSamples` lookups are measured, the cache is
/// asked; until as many jobs ran here, small jobs are sent here to be measured (`prefersHere`).
struct RemoteCosts {
    let workers: Int
    let lanes: Int
    var hereNanoseconds = 0.0
    var herePixels = 0.0
    var hereJobs = 0
    var askedNanoseconds = 0.0
    var askedJobs = 0
    var writtenNanoseconds = 0.0
    var writtenJobs = 0
    /// Jobs run here to measure what running here costs, in a run whose jobs were all asked.
    var probes = 0
    static let minimumSamples = 8
    /// What a job's pixels are assumed to cost here before any job has run here (a cheap chain
    /// on a small image): a job cheaper than a hit at that rate may run here to be measured.
    static let probeNanosecondsPerPixel = 50.0

    mutating func ranHere(nanoseconds: UInt64, pixels: Int) {
        hereNanoseconds += Double(nanoseconds)
        herePixels += Double(max(1, pixels))
        hereJobs += 1
    }

    mutating func asked(nanoseconds: UInt64) {
        askedNanoseconds += Double(nanoseconds)
        askedJobs += 1
    }

    /// A hit's outputs written and recorded by a worker.
    mutating func wrote(nanoseconds: UInt64) {
        writtenNanoseconds += Double(nanoseconds)
        writtenJobs += 1
    }

    /// What a hit costs a worker's time: the lookup's mean time shared by the lanes, plus writing
    /// and recording its outputs, which a worker does (a job run here writes its own).
    var hit: Double {
        askedNanoseconds / Double(askedJobs) / Double(lanes)
            + (writtenJobs > 0 ? writtenNanoseconds / Double(writtenJobs) / Double(workers) : 0)
    }

    /// Whether a job of `pixels` should run here rather than ask. Until 8 lookups are measured,
    /// ask. Until 8 jobs have run here, a job cheap at `probeNanosecondsPerPixel` runs here to be
    /// measured (at most 8 such probes); a larger one asks. Then: here when its pixels at the
    /// measured time per pixel, shared by the workers, cost less than a hit.
    func prefersHere(pixels: Int) -> Bool {
        guard askedJobs >= Self.minimumSamples else { return false }
        guard hereJobs >= Self.minimumSamples else {
            return probes < Self.minimumSamples
                && Double(max(1, pixels)) * Self.probeNanosecondsPerPixel / Double(workers) < hit
        }
        return hereNanoseconds / herePixels * Double(max(1, pixels)) / Double(workers) < hit
    }

    /// `prefersHere`, counting the probes it sends here.
    mutating func runsHere(pixels: Int) -> Bool {
        let here = prefersHere(pixels: pixels)
        if here && hereJobs < Self.minimumSamples { probes += 1 }
        return here
    }
}
