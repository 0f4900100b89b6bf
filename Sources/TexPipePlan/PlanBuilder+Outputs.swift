internal import Foundation
internal import TexPipeFormats
internal import TexPipeManifest
internal import TexPipeParameters
internal import TexPipePixels
internal import TexPipeStages

/// The outputs a job's images go to: the template rendered with each image's suffix and labels,
/// checked against the root, the output's container and the image's range.
extension PlanBuilder {
    /// The outputs the images of these signatures go to: the template rendered with each one's
    /// suffix and labels, checked; a GPU texture's levels after the first go into level 0's file.
    mutating func renderOutputs(
        _ p: PipelineSpec, _ sized: [Signature], _ values: [String: String], _ context: String,
        texture: TextureSettings? = nil, input: String? = nil
    ) -> [PlannedOutput] {
        var outputs: [PlannedOutput] = []
        for sig in sized {
            if let level = sig.textureLevel, level > 0, let k = outputs.lastIndex(where: { $0.sidecar == nil }) {
                outputs[k].levels += 1
                continue
            }
            var v = values
            v["suffix"] = sig.suffix
            for (k, l) in sig.labels { v[k] = l }
            if outputTemplates[p.index] == nil { outputTemplates[p.index] = Template.Compiled(p.output) }
            // A cube map into image files: six of them, `_face{face}` (a texture holds all six).
            if sig.cube,
                case .success(let first) = outputTemplates[p.index]!.render(v.merging(["face": "px"]) { a, _ in a }),
                ImageFormat(path: first)?.container == nil
            {
                for (f, name) in CubeMap.faceNames.enumerated() {
                    var face = v
                    face["suffix"] = sig.suffix + "_face" + name
                    face["face"] = name
                    guard case .success(let rendered) = outputTemplates[p.index]!.render(face),
                        var out = resolveOutput(rendered, at: p.path.key("output"), context: context)
                    else { continue }
                    if let (problem, at) = Self.rangeProblem(sig, out, texture, p) {
                        error(at, problem + (input.map { " (\($0))" } ?? "") + context)
                        break
                    }
                    out.face = f
                    outputs.append(out)
                    // A sidecar (`_sh.json`) goes beside the first face's file.
                    if f == 0 { outputs += Self.sidecars(of: sig, beside: out, root: manifest.outputRoot) }
                }
                continue
            }
            switch outputTemplates[p.index]!.render(v) {
            case .failure(let u):
                // An unknown name was reported once by the static pass; here only names a
                // particular variant lacks.
                if p.templateValid {
                    error(p.path.key("output"), Say.unresolved(u.name, in: p.output, known: v.keys.sorted()) + context)
                }
            case .success(let rendered):
                if var out = resolveOutput(rendered, at: p.path.key("output"), context: context) {
                    if sig.lossless && out.format.kind.row.lossy { out = out.asPNG() }
                    if sig.textureLevel != nil && out.format.container == nil {
                        let specs = p.stages + p.pageStages
                        let at = specs.first { $0.type.makesLevels }?.path ?? p.path.key("output")
                        error(at, PlanMessage.textureLayoutNeedsTexture(out.format.name) + context)
                        continue
                    }
                    if let (problem, at) = Self.rangeProblem(sig, out, texture, p) {
                        error(at, problem + (input.map { " (\($0))" } ?? "") + context)
                        continue
                    }
                    outputs.append(out)
                    outputs += Self.sidecars(of: sig, beside: out, root: manifest.outputRoot)
                }
            }
        }
        return outputs
    }

    /// The files a stage writes beside an image's output (`irradiance`: `NAME_sh.json` beside
    /// `NAME.ktx2`): data outputs that take no image.
    static func sidecars(of sig: Signature, beside out: PlannedOutput, root: String) -> [PlannedOutput] {
        sig.sidecars.map { suffix in
            var data = PlannedOutput.named(PathText.deletingExtension(out.relative) + suffix, root: root)
            data.levels = 0
            data.sidecar = suffix
            return data
        }
    }

    /// An HDR image into an 8/16-bit output, or an LDR one into an HDR output (docs/hdr.md), or
    /// texture settings the job's container or image cannot take (`TextureSettings.problems`): the
    /// message and the JSON path it belongs at; nil when the output can hold the image.
    static func rangeProblem(
        _ sig: Signature, _ out: PlannedOutput, _ texture: TextureSettings?, _ p: PipelineSpec
    ) -> (String, JSONPath)? {
        switch out.format.kind.row.holds {
        case .image:
            return sig.isHDR ? (RangeRule.hdrImage(into: out.format.name), p.path.key("output")) : nil
        case .hdrImage:
            return sig.isHDR ? nil : (RangeRule.ldrImage(into: out.format.name), p.path.key("output"))
        case .texture(let container):
            guard let texture, let problem = texture.problems(in: container, hdrImage: sig.isHDR).first else {
                return nil
            }
            return (problem.message, p.path.key("texture").key(problem.key))
        case .lut, .model:
            return nil
        }
    }
}
