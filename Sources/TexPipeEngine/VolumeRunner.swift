internal import Dispatch
internal import TexPipeCodecs
internal import TexPipeFormats
internal import TexPipeMeasures
internal import TexPipePixels
internal import TexPipePlan
internal import TexPipeStages
internal import TexPipeTextures

extension Runner {
    /// A volume's depth slices (level 0, in order) through its chain — `mipmaps` as a 2×2×2 box,
    /// on the cores `rows` lends — into its one KTX2 or DDS output (docs/gpu-textures.md "Volume
    /// textures"). The slices are released as they are encoded. nil, or why it failed.
    static func writeVolume(
        _ slices: consuming [Image], _ job: Job, _ options: RunOptions, rows: any RowScheduler, base: String,
        _ result: inout JobResult, _ encoded: inout [[UInt8]]
    ) -> GroupFailure? {
        let output = job.outputs[0]
        guard case .texture(let container) = output.format else {
            return GroupFailure("a volume is written as .ktx2 or .dds", nil)
        }
        let plan = job.volume ?? VolumePlan(mipmaps: nil)
        var t = DispatchTime.now().uptimeNanoseconds
        var levels = [consume slices]
        if let mipmaps = plan.mipmaps {
            // A LUT is data: its entries are averaged as they are stored.
            let space: ColorSpace = plan.lut ? .linear : mipmaps.colorSpace
            levels = VolumeMipmaps.chain(
                levels.removeFirst(), levels: mipmaps.levels, minSize: mipmaps.minSize, colorSpace: space, rows: rows)
            result.timings.append(("mipmaps", elapsed(since: t)))
            t = DispatchTime.now().uptimeNanoseconds
        }
        let info = job.texture.format.info
        let gpu = levels.reduce(0) { $0 + info.levelBytes($1[0].width, $1[0].height) * $1.count }
        let measure = measuresQuality(job, options) && info.codec != .uncompressed && info.codec != .half
        let bytes: [UInt8]
        let quality: [LevelQuality]
        do {
            (bytes, quality) = try TextureEncoder.encode(
                volume: consume levels, job.texture, container: container, rows: rows, measure: measure,
                metrics: metrics(job, options), giveBack: Allocator.giveBackFreed)
        } catch {
            return GroupFailure(EngineMessage.output(output.relative, error), "encode")
        }
        let encode = DispatchTime.now().uptimeNanoseconds - t
        do {
            try record(
                bytes, output, options, base: base, &result, &encoded,
                measure: Measure(format: job.texture.format.rawValue, gpuBytes: gpu, psnr: measure ? quality : nil))
        } catch {
            return GroupFailure(EngineMessage.output(output.relative, error), nil)
        }
        result.timings.append(("encode", Double(encode) / 1e9))
        result.timings.append(("write", elapsed(since: t) - Double(encode) / 1e9))
        return nil
    }

    /// A `.cube` LUT's job (docs/gpu-textures.md "Colour-grading LUTs"): parsed (a malformed file
    /// is this job's one-line error with its line), its slices Float for `rgba16f` or rounded to 8
    /// bits for `rgba8`, then written as a volume.
    static func runLUT(
        _ job: Job, _ data: [UInt8], in plan: Plan, _ options: RunOptions, _ prepared: Prepared,
        _ inputs: JobInputs, rows: any RowScheduler
    ) -> (result: JobResult, bytes: [[UInt8]]) {
        groupRun(job, plan, options, prepared, inputs) { result, encoded, base in
            let t = DispatchTime.now().uptimeNanoseconds
            let lut: CubeLUT
            do {
                lut = try CubeLUT(data, maxTexels: options.maxPixels)
            } catch {
                return GroupFailure("\(error)", "decode")
            }
            let slices = job.texture.format == .rgba16f ? lut.slices() : lut.slices8()
            result.timings.append(("decode", elapsed(since: t)))
            return writeVolume(consume slices, job, options, rows: rows, base: base, &result, &encoded)
        }
    }
}
