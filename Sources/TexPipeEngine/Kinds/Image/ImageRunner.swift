internal import Dispatch
internal import TexPipeCodecs
internal import TexPipePixels
internal import TexPipePlan
internal import TexPipeStages

extension Runner {
    /// An image job, or one texture of a model: decode → stages → encode → atomic write → cache
    /// entry. `levelZeroCopies`: level 0 written again that many times after the texture (a model
    /// texture's web fallback and core source).
    static func runImage(
        _ job: Job, _ stages: [any Stage], levelZeroCopies: Int = 0, in plan: Plan, _ options: RunOptions,
        _ prepared: Prepared, _ inputs: JobInputs, rows: any RowScheduler, loader: ResourceLoader
    ) -> (result: JobResult, bytes: [[UInt8]]) {
        let start = prepared.start
        var result = prepared.result
        var encoded: [[UInt8]] = []
        func fail(_ message: String, stage: String? = nil) -> (JobResult, [[UInt8]]) {
            (failed(job, result, message, stage: stage, start: start), [])
        }
        let t = DispatchTime.now().uptimeNanoseconds
        let base = plan.manifest.directory
        guard let data = inputs.read.files[0] else {
            return fail(inputs.inputError ?? EngineMessage.unreadableInput)
        }
        // The file's bytes go as soon as they are decoded: only the image stays in flight.
        inputs.read.files[0] = nil
        if let message = admitted(job, &result) { return fail(message, stage: "decode") }
        var images: [Image]
        do {
            var image = try ImageDecoder.decode(
                consume data, path: job.input.path, maxPixels: options.maxPixels, warn: { result.warnings.append($0) })
            image.alpha = job.input.alpha
            images = [image]
        } catch {
            return fail("\(error)")
        }
        result.timings.append(("decode", elapsed(since: t)))
        var context = stageContext(job, options, rows: rows)
        switch applyStages(stages, to: consume images, &context, options, loader: loader, result: &result) {
        case .success(let out): images = out
        case .failure(let f): return fail(f.message, stage: f.stage)
        }
        // A glTF texture with images beside its KTX2: level 0 again for each, after the chain.
        if levelZeroCopies > 0, var first = images.first {
            first.textureLevel = nil
            images += Array(repeating: first, count: levelZeroCopies)
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
