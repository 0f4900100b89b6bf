internal import Foundation
internal import TexPipeCache
internal import TexPipeCodecs
internal import TexPipeModels
public import TexPipePixels
public import TexPipePlan
internal import TexPipeStages

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
        let own = job.work.parts?.count ?? 1
        read = ReadBytes(count: own)
        errors = Array(repeating: nil, count: own)
        // An image a model embeds: its bytes came with the job, its digest stands in for a file's.
        var ownReads = own
        if let embedded = job.work.embedded {
            read.files[0] = embedded.bytes
            digests.append((embedded.name, Cache.sha256(embedded.bytes)))
            ownReads = 0
        }
        for (k, path) in job.reads.files.enumerated() {
            if k < ownReads {
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
            } else if let cache, let model = GLTFModel.referencedImage(path)?.model {
                // An image a model embeds (`crate.glb#images[1]`, a glTF material's normal map)
                // stands on its model's stat and digest: an untouched model is not read again.
                var unused: [UInt8]?
                let digest = cache.digest(of: model, bytes: &unused).map { $0 + path.dropFirst(model.count) }
                digests.append((path, digest ?? loader.digest(path)))
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

extension Runner {
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
        result.error = EngineMessage.jobLine(input: job.input.display, variant: job.variant, stage: stage, message)
        result.seconds = elapsed(since: start)
        return result
    }

    /// Why a job that writes several outputs (an atlas, an array) failed, and at which stage.
    struct GroupFailure: Error {
        var message: String
        var stage: String?
        init(_ message: String, _ stage: String?) { (self.message, self.stage) = (message, stage) }
    }

    /// The frame atlas and array runs share: `body` does the work with the job's result so far, the
    /// bytes it writes and the manifest's folder, and says why it failed (nil: it did not); then the
    /// cache entry and the job's time, or the failure with nothing kept.
    static func groupRun(
        _ job: Job, _ plan: Plan, _ options: RunOptions, _ prepared: Prepared, _ inputs: JobInputs,
        _ body: (inout JobResult, inout [[UInt8]], String) -> GroupFailure?
    ) -> (result: JobResult, bytes: [[UInt8]]) {
        var result = prepared.result
        var encoded: [[UInt8]] = []
        let base = plan.manifest.directory
        if let f = body(&result, &encoded, base) {
            return (failed(job, result, f.message, stage: f.stage, start: prepared.start), [])
        }
        options.cache?.store(job, inputs: inputs.hash, outputs: result.recorded, base: base)
        result.seconds = elapsed(since: prepared.start)
        return (result, encoded)
    }

    /// The local cache check: which files changed, whether the job is up to date.
    static func prepare(_ job: Job, in plan: Plan, _ options: RunOptions, loader: ResourceLoader) -> Prepared {
        let start = DispatchTime.now().uptimeNanoseconds
        var result = JobResult(index: job.index, status: .ok)
        if let failure = job.failure {
            return Prepared(
                result: failed(job, result, failure.message, stage: failure.stage, start: start), inputs: nil,
                start: start, done: true)
        }
        let base = plan.manifest.directory
        let inputs = JobInputs(job, cache: options.cache, loader: loader, base: base)
        if let cache = options.cache {
            let (decision, entry) =
                options.force ? (.forced, nil) : cache.decide(job, inputs: inputs.hash, base: base)
            result.decision = decision
            if decision.isHit, let entry, Gates.unmeasured(job, entry.outputs, reportMetrics: options.reportMetrics) {
                result.decision = .unmeasured
            } else if decision.isHit, let entry {
                result.cacheHit = true
                result.written =
                    job.work.outputsPlanned
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
        if job.quality.check != nil || options.reportMetrics {
            let listed = blobs.map { b, _ in
                var o = Cache.Entry.Output(path: b.path, sha256: b.sha256, bytes: b.size)
                if let m = b.measure { _ = o.readMeasure(Substring(m)) }
                return o
            }
            if Gates.unmeasured(job, listed, reportMetrics: options.reportMetrics) { return nil }
        }
        // An atlas's outputs are what the entry lists (checked against its pattern when fetched).
        let outputs =
            job.work.outputsPlanned
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
        context.fonts = job.reads.fonts
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

    /// Whether the job's image fits in the memory the process may still take (docs/guarantees.md
    /// "Bounded"): nil, or the one-line reason it does not. Under a data or address-space limit,
    /// the job's notes say what it needs and what is free.
    static func admitted(_ job: Job, _ result: inout JobResult) -> String? {
        let need = Allocator.need(pixels: job.input.pixels)
        guard need >= Allocator.checkedFrom else { return nil }
        let limit = Allocator.limit()
        if let limit {
            result.notes.append(EngineMessage.memoryNote(need: need, limit: limit.limit, free: limit.free))
        }
        if Allocator.canReserve(need) { return nil }
        return EngineMessage.cannotAllocate(need, pixels: job.input.pixels, free: limit.map { max(0, $0.free) })
    }

    /// The job's kind's body (its runner, in `Kinds/`), after its inputs are read: the outputs written
    /// atomically, then the cache entry. Also hands back the bytes written, for a remote cache to
    /// upload.
    static func runLocally(
        _ job: Job, in plan: Plan, _ options: RunOptions, _ prepared: Prepared, rows: any RowScheduler,
        loader: ResourceLoader
    ) -> (result: JobResult, bytes: [[UInt8]]) {
        var inputs = prepared.inputs!
        inputs.load(base: plan.manifest.directory)
        switch job.work {
        case .image(let image):
            return runImage(
                job, image.stages, in: plan, options, prepared, inputs, rows: rows, loader: loader)
        case .modelTexture(let texture):
            return runImage(
                job, texture.stages, levelZeroCopies: texture.levelZeroCopies, in: plan, options, prepared, inputs,
                rows: rows,
                loader: loader)
        case .atlas(let atlas):
            return runAtlas(job, atlas, in: plan, options, prepared, inputs, rows: rows, loader: loader)
        case .array(let array):
            return runArray(job, array, in: plan, options, prepared, inputs, rows: rows, loader: loader)
        case .volume(let volume):
            return runVolume(job, volume, in: plan, options, prepared, inputs, rows: rows, loader: loader)
        case .lut(let lut):
            return runLUT(job, lut, in: plan, options, prepared, inputs, rows: rows)
        case .model(let model):
            return runModel(job, model, in: plan, options, prepared, inputs)
        }
    }
}
