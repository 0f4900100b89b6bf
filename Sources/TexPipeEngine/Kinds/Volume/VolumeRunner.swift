internal import Dispatch
internal import TexPipeMeasures
internal import TexPipePixels
internal import TexPipePlan
internal import TexPipeStages
internal import TexPipeTextures

extension Runner {
    /// A volume job (docs/gpu-textures.md "Volume textures"): every slice decoded and through the
    /// stages before `mipmaps`, in order, each the first's size; then the volume written.
    static func runVolume(
        _ job: Job, _ volume: VolumePlan, in plan: Plan, _ options: RunOptions, _ prepared: Prepared,
        _ inputs: JobInputs, rows: any RowScheduler, loader: ResourceLoader
    ) -> (result: JobResult, bytes: [[UInt8]]) {
        groupRun(job, plan, options, prepared, inputs) { result, encoded, base in
            let t = DispatchTime.now().uptimeNanoseconds
            var chains: [[Image]]
            switch decodeLayers(volume.slices, job, inputs, options, rows: rows, loader: loader, &result) {
            case .success(let decoded): chains = decoded
            case .failure(let f): return f
            }
            result.timings.append(("layers", elapsed(since: t)))
            let slices = chains.map { $0[0] }
            chains = []
            Allocator.giveBackFreed()
            // Handed over, not copied: the slices go as they are encoded.
            return writeVolume(
                consume slices, job, chain: volume.chain, space: volume.chain?.colorSpace ?? .linear, options,
                rows: rows, base: base, &result, &encoded)
        }
    }

    /// A volume's depth slices (level 0, in order) through its chain — `mipmaps` as a 2×2×2 box,
    /// on the cores `rows` lends — into its one KTX2 or DDS output (docs/gpu-textures.md "Volume
    /// textures"). The slices are released as they are encoded. nil, or why it failed.
    /// `space`: the colour space its chain is averaged in.
    static func writeVolume(
        _ slices: consuming [Image], _ job: Job, chain: VolumeChain?, space: ColorSpace, _ options: RunOptions,
        rows: any RowScheduler, base: String, _ result: inout JobResult, _ encoded: inout [[UInt8]]
    ) -> GroupFailure? {
        let output = job.outputs[0]
        guard case .texture(let container) = output.format else {
            return GroupFailure("a volume is written as .ktx2 or .dds", nil)
        }
        var t = DispatchTime.now().uptimeNanoseconds
        var levels = [consume slices]
        if let chain {
            levels = VolumeMipmaps.chain(
                levels.removeFirst(), levels: chain.levels, minSize: chain.minSize, colorSpace: space, rows: rows)
            result.timings.append(("mipmaps", elapsed(since: t)))
            t = DispatchTime.now().uptimeNanoseconds
        }
        let info = job.encoding.texture.format.info
        let gpu = levels.reduce(0) { $0 + info.levelBytes($1[0].width, $1[0].height) * $1.count }
        let measure = measuresQuality(job, options) && !info.codec.family.exact
        let bytes: [UInt8]
        let quality: [LevelQuality]
        do {
            (bytes, quality) = try TextureEncoder.encode(
                volume: consume levels, job.encoding.texture, container: container, rows: rows, measure: measure,
                metrics: metrics(job, options), giveBack: Allocator.giveBackFreed)
        } catch {
            return GroupFailure(EngineMessage.output(output.relative, error), "encode")
        }
        let encode = DispatchTime.now().uptimeNanoseconds - t
        do {
            try record(
                bytes, output, options, base: base, &result, &encoded,
                measure: Measure(
                    format: job.encoding.texture.format.rawValue, gpuBytes: gpu, psnr: measure ? quality : nil))
        } catch {
            return GroupFailure(EngineMessage.output(output.relative, error), nil)
        }
        result.timings.append(("encode", Double(encode) / 1e9))
        result.timings.append(("write", elapsed(since: t) - Double(encode) / 1e9))
        return nil
    }
}
