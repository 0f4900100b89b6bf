internal import Dispatch
internal import Foundation
internal import TexPipeCodecs
internal import TexPipeFormats
internal import TexPipeMeasures
internal import TexPipePixels
internal import TexPipePlan
internal import TexPipeTextures

extension Runner {
    /// An array job (docs/gpu-textures.md "Texture arrays"): every layer decoded and through its
    /// stages, in layer order; every layer's chain the first's sizes; the layers encoded into one
    /// KTX2 (`layerCount`) or DDS (`arraySize`) and the layer index written beside it; then the
    /// cache entry. One layer that fails fails the job before anything is written.
    static func runArray(
        _ job: Job, _ array: ArrayPlan, in plan: Plan, _ options: RunOptions, _ prepared: Prepared,
        _ inputs: JobInputs, rows: any RowScheduler, loader: ResourceLoader
    ) -> (result: JobResult, bytes: [[UInt8]]) {
        let layers = array.layers
        return groupRun(job, plan, options, prepared, inputs) { result, encoded, base in
            func fail(_ message: String, stage: String? = nil) -> GroupFailure? { GroupFailure(message, stage) }
            var t = DispatchTime.now().uptimeNanoseconds
            var chains: [[Image]]
            switch decodeLayers(layers, job, inputs, options, rows: rows, loader: loader, &result) {
            case .success(let decoded): chains = decoded
            case .failure(let f): return f
            }
            result.timings.append(("layers", elapsed(since: t)))
            t = DispatchTime.now().uptimeNanoseconds
            let output = job.outputs[0]
            guard case .texture(let container) = output.format else {
                return fail("an array is written as .ktx2 or .dds")
            }
            var info = job.encoding.texture.format.info
            var measure = measuresQuality(job, options) && !info.codec.family.exact
            let bytes: [UInt8]
            var quality: [LevelQuality]
            var chosen: (format: String, choice: TargetChoice)?
            do {
                if job.encoding.texture.target != nil {
                    let t = try TextureEncoder.encode(
                        targeted: chains, array: true, job.encoding.texture, container: container, rows: rows,
                        metrics: metrics(job, options))
                    (bytes, quality, info, measure) = (t.bytes, t.quality, t.format.info, true)
                    chosen = (t.format.rawValue, t.choice)
                } else {
                    (bytes, quality) = try TextureEncoder.encode(
                        layers: chains, job.encoding.texture, container: container, rows: rows, measure: measure,
                        metrics: metrics(job, options))
                }
            } catch {
                return fail(EngineMessage.output(output.relative, error))
            }
            let gpu = chains[0].reduce(0) { $0 + info.levelBytes($1.width, $1.height) } * chains.count
            chains = []
            let encode = DispatchTime.now().uptimeNanoseconds - t
            do {
                try record(
                    bytes, output, options, base: base, &result, &encoded,
                    measure: Measure(
                        format: chosen?.format ?? job.encoding.texture.format.rawValue, gpuBytes: gpu,
                        psnr: measure ? quality : nil, choice: chosen?.choice))
                let index = Self.layerIndex(layers.map(\.name), texture: PathText.lastComponent(output.relative))
                try record(index, job.outputs[1], options, base: base, &result, &encoded)
            } catch {
                return fail(EngineMessage.output(output.relative, error))
            }
            result.timings.append(("encode", Double(encode) / 1e9))
            result.timings.append(("write", elapsed(since: t) - Double(encode) / 1e9))
            return nil
        }
    }

    /// `{"texture": "terrain.ktx2", "layerCount": 16, "layers": {"00-grass": 0, …}}`, names in
    /// layer order, one per line: what an engine reads to look a layer up by name.
    static func layerIndex(_ names: [String], texture: String) -> [UInt8] {
        var s = "{\n  \"texture\": \(ValueText.quoted(texture)),\n  \"layerCount\": \(names.count),\n  \"layers\": {\n"
        s += names.enumerated().map { "    \(ValueText.quoted($1)): \($0)" }.joined(separator: ",\n")
        s += "\n  }\n}\n"
        return Array(s.utf8)
    }

    /// A group's parts (an array's layers, a volume's slices), each decoded and through its stages,
    /// in order; each file's bytes go once decoded. Every part's chain must have the first's sizes.
    static func decodeLayers(
        _ layers: [PartInput], _ job: Job, _ inputs: JobInputs, _ options: RunOptions, rows: any RowScheduler,
        loader: ResourceLoader, _ result: inout JobResult
    ) -> Result<[[Image]], GroupFailure> {
        func fail(_ message: String, stage: String? = nil) -> Result<[[Image]], GroupFailure> {
            .failure(GroupFailure(message, stage))
        }
        var chains: [[Image]] = []
        var context = stageContext(job, options, rows: rows)
        for (k, spec) in layers.enumerated() {
            if let failure = spec.failure {
                return fail(EngineMessage.layer(spec.display, failure.message), stage: failure.stage)
            }
            guard let data = inputs.files[k] else {
                return fail(EngineMessage.layer(spec.display, inputs.errors[k] ?? EngineMessage.unreadableInput))
            }
            var image: Image
            do {
                image = try ImageDecoder.decode(
                    data, path: spec.path, maxPixels: options.maxPixels,
                    warn: { result.warnings.append(spec.display + ": " + $0) })
            } catch {
                return fail(EngineMessage.layer(spec.display, "\(error)"), stage: "decode")
            }
            // Its bytes go once decoded (the key was made from them): 256 slices of a volume
            // would otherwise hold their files beside their pixels.
            inputs.files[k] = nil
            image.alpha = job.input.alpha
            switch applyStages(
                spec.stages, to: [image], &context, options, loader: loader, result: &result, timed: false,
                prefix: spec.name + ": ")
            {
            case .success(let out):
                if let first = chains.first {
                    let same =
                        out.count == first.count
                        && zip(out, first).allSatisfy { $0.width == $1.width && $0.height == $1.height }
                    guard same else {
                        return fail(
                            EngineMessage.layerSize(
                                spec.display, (out[0].width, out[0].height), levels: out.count,
                                first: (first[0].width, first[0].height), firstLevels: first.count), stage: "array")
                    }
                }
                chains.append(out)
            case .failure(let f): return fail(EngineMessage.layer(spec.display, f.message), stage: f.stage)
            }
        }
        return .success(chains)
    }
}
