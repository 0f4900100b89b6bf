internal import TexPipeManifest
public import TexPipeStages

extension PlanBuilder {
    /// A `.cube` LUT input's job: the LUT is a volume by itself (x red, y green, z blue), written as
    /// `rgba8` or `rgba16f` into a `.ktx2` or `.dds`; its only stage may be a last `mipmaps`. A LUT
    /// is data: without a `colorSpace` its texture is linear (UNORM), so a shader reads back its
    /// entries. The file is parsed when the job runs (a malformed one fails that job alone).
    mutating func addLUT(_ p: PipelineSpec, match m: Glob.Match, absolute: String, variant: Variant?) {
        let values = Self.values(Self.values(p, variant), of: m)
        let context = Self.context(variant)
        let input = " (" + m.relativePath + ")"
        var decoder = self.decoder(values, context: context)
        let (stages, lines) = p.valid ? Self.decodeStages(p.stages, p, &decoder) : ([], [])
        let settings = Self.decodeSettings(p, &decoder)
        diagnostics += decoder.diagnostics
        guard p.valid, decoder.diagnostics.isEmpty, let files = settings.files,
            var texture = settings.texture
        else { return }
        // Its only stage may be a last one that makes a volume's chain, with a volume's parameters.
        for (k, stage) in stages.enumerated() where type(of: stage).volumeParameters == nil || k != stages.count - 1 {
            error(p.stages[k].path, PlanMessage.lutStage(type(of: stage).name) + input + context)
            return
        }
        if let last = stages.last, last.volumeChain == nil {
            let name = type(of: last).name
            error(p.stages[stages.count - 1].path, PlanMessage.lutStage("\(name) other than a box") + input + context)
            return
        }
        let chain = stages.last?.volumeChain
        if p.texture["colorSpace"] == nil { texture.colorSpace = .linear }
        let signature = Signature(width: nil, height: nil, depth: 16, alpha: .straight)
        let outputs = renderOutputs(p, [signature], values, context, input: m.relativePath)
        guard outputs.count == 1 else { return }
        guard let container = outputs[0].format.container else {
            error(p.path.key("output"), PlanMessage.lutNeedsTexture(outputs[0].relative) + input + context)
            return
        }
        guard texture.target == nil else {
            error(
                p.path.key("texture").key("target"),
                "a quality target chooses the settings of 2D textures, cube maps and arrays, not of a LUT's volume (remove target)"
                    + input + context)
            return
        }
        guard texture.format == .rgba8 || texture.format == .rgba16f else {
            error(p.path.key("texture").key("format"), PlanMessage.lutFormat(texture.format.rawValue) + input + context)
            return
        }
        if let problem = texture.problems(in: container).first {
            error(p.path.key("texture").key(problem.key), problem.message + input + context)
            return
        }
        guard let check = decodeCheck(p, values, context) else { return }
        var parameters = (["lut colorSpace " + texture.colorSpace.rawValue] + lines + settings.canonical).joined(
            separator: "\n")
        for output in outputs { parameters += "\noutput " + output.relative }
        let relativeInput = String(absolute.dropFirst(manifest.directory.count + 1))
        jobs.append(
            Job(
                index: jobs.count, id: [p.name, relativeInput, variant?.name ?? ""].joined(separator: "\u{0}"),
                pipeline: p.name, variant: variant?.name,
                input: JobInput(path: absolute, display: Planner.display(absolute), alpha: p.inputAlpha, pixels: 0),
                outputs: outputs, encoding: Encoding(files: files, texture: texture),
                quality: JobQuality(check: check, budget: Self.budgetName(p, variant)), reads: JobReads([absolute]),
                failure: nil, parameters: parameters, work: .lut(LUTPlan(chain: chain))))
    }
}

/// A `.cube` LUT's job: the chain of its volume (nil: level 0 only). Its slices come from the file,
/// not from images.
public struct LUTPlan: Sendable {
    public var chain: VolumeChain?
}
