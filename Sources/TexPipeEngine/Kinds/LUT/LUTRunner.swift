internal import Dispatch
internal import TexPipeCodecs
internal import TexPipePixels
internal import TexPipePlan

extension Runner {
    /// A `.cube` LUT's job (docs/gpu-textures.md "Colour-grading LUTs"): parsed (a malformed file
    /// is this job's one-line error with its line), its slices Float for `rgba16f` or rounded to 8
    /// bits for `rgba8`, then written as a volume.
    static func runLUT(
        _ job: Job, _ plan: LUTPlan, in manifestPlan: Plan, _ options: RunOptions, _ prepared: Prepared,
        _ inputs: JobInputs, rows: any RowScheduler
    ) -> (result: JobResult, bytes: [[UInt8]]) {
        groupRun(job, manifestPlan, options, prepared, inputs) { result, encoded, base in
            let t = DispatchTime.now().uptimeNanoseconds
            guard let data = inputs.read.files[0] else {
                return GroupFailure(inputs.inputError ?? EngineMessage.unreadableInput, nil)
            }
            // The file's bytes go as soon as they are parsed.
            inputs.read.files[0] = nil
            let lut: CubeLUT
            do {
                lut = try CubeLUT(data, maxTexels: options.maxPixels)
            } catch {
                return GroupFailure("\(error)", "decode")
            }
            let slices = job.encoding.texture.format == .rgba16f ? lut.slices() : lut.slices8()
            result.timings.append(("decode", elapsed(since: t)))
            // A LUT is data: its entries are averaged as they are stored.
            return writeVolume(
                consume slices, job, chain: plan.chain, space: .linear, options, rows: rows, base: base, &result,
                &encoded)
        }
    }
}
