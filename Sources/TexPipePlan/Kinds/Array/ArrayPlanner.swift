internal import Foundation
internal import TexPipeFormats
internal import TexPipeManifest
internal import TexPipePixels
public import TexPipeStages

extension PlanBuilder {
    /// An array pipeline's one job per variant (docs/gpu-textures.md "Texture arrays"): every input
    /// in layer order with its stages (a `resize` first when `size` is given), one texture output
    /// and the layer index beside it. Its reads — every layer, then what the stages read — are its key.
    /// A volume pipeline's likewise ("Volume textures"): its inputs are the depth slices, each with
    /// the stages before `mipmaps`; `mipmaps` makes the volume's chain; no index is written.
    mutating func addLayers(
        _ p: PipelineSpec, _ spec: ArraySpec, _ matches: [Glob.Match], volume isVolume: Bool, variant: Variant?
    ) {
        guard p.valid else { return }
        let kind = isVolume ? "volume" : "array"
        let values = Self.values(p, variant)
        let context = Self.context(variant)
        var decoder = self.decoder(values, context: context)
        let output = Self.decodeSettings(p, &decoder)
        diagnostics += decoder.diagnostics
        guard decoder.diagnostics.isEmpty, let files = output.files, let texture = output.texture
        else { return }
        if isVolume, let problem = TextureSettings.volumeProblem(texture.format) {
            error(p.path.key("texture").key(problem.key), problem.message + context)
            return
        }
        if isVolume && texture.target != nil {
            error(
                p.path.key("texture").key("target"),
                "a quality target chooses the settings of 2D textures, cube maps and arrays, not of a volume (remove target)"
                    + context)
            return
        }
        // A volume's slices take the stages before the one that makes its chain (`mipmaps`: the
        // last, the manifest checked), which takes the volume.
        let mipmapsAt = isVolume ? p.stages.firstIndex { $0.type.volumeParameters != nil } : nil
        let sliceSpecs = mipmapsAt.map { Array(p.stages[..<$0]) } ?? p.stages
        // Layer order: the inputs each `order` glob matches, in turn, each group in name order; the rest last.
        let globs = spec.order.map(Glob.init)
        let ordered = matches.sorted { a, b in
            let ka = globs.firstIndex { $0.matches(path: a.relativePath) } ?? globs.count
            let kb = globs.firstIndex { $0.matches(path: b.relativePath) } ?? globs.count
            return ka != kb ? ka < kb : a.relativePath < b.relativePath
        }
        var reads = JobReads([])
        var layers: [PartInput] = []
        var canonical: [String] = [
            kind + " order " + spec.order.joined(separator: ",") + " size "
                + (spec.size.map { "\($0.width)x\($0.height)" } ?? "first")
        ]
        var first: (width: Int, height: Int)?
        var chain: [Signature] = []
        var volumeChain: VolumeChain?
        for m in ordered {
            let absolute = manifest.directory + "/" + m.relativePath
            inputsRealPaths.insert(PathKey(realFile(absolute, known: shapes)))
            let header = try? self.header(absolute).get()
            let v = Self.values(values, of: m)
            var name = m.folder.isEmpty ? v["file"]! : m.folder + "/" + v["file"]!
            while name.hasPrefix("./") || name.hasPrefix("/") { name.removeFirst(name.hasPrefix("/") ? 1 : 2) }
            var d = self.decoder(v, context: context)
            let decoded = Self.decodeStages(p.stages, p, &d)
            diagnostics += d.diagnostics
            guard d.diagnostics.isEmpty else { return }
            let stages = Array(decoded.0.prefix(sliceSpecs.count))
            if isVolume, let k = mipmapsAt, volumeChain == nil { volumeChain = decoded.0[k].volumeChain }
            canonical.append(name + ": " + decoded.1.joined(separator: "\n"))
            var layerReads = JobReads([], fonts: reads.fonts)
            var missing: PlannedFailure?
            guard resolveReads(stages, sliceSpecs, context, &layerReads, missing: &missing) else { return }
            reads.files += layerReads.files.filter { !reads.files.containsPath($0) }
            reads.fonts = layerReads.fonts
            // With `size`, the layer is resized first (as `resize` does) and planned at that size.
            let start = Signature(
                width: spec.size?.width ?? header?.width, height: spec.size?.height ?? header?.height,
                depth: header?.depth ?? 8, alpha: p.inputAlpha)
            guard let c = chains(stages, sliceSpecs, from: start, context, check: true) else { return }
            var failure = missing ?? c.failure
            // Every layer the first's size (after `size`, when given): else the odd one fails the job.
            if let w = header?.width, let h = header?.height, spec.size == nil {
                if let f = first, f != (w, h), failure == nil {
                    failure = PlannedFailure(PlanMessage.oddLayer(name, (w, h), first: f, kind: kind), stage: kind)
                }
                if first == nil { first = (w, h) }
            }
            if chain.isEmpty { chain = c.failure == nil && header != nil ? c.sized : c.unsized }
            layers.append(
                PartInput(
                    path: absolute, display: Planner.display(absolute), name: name,
                    stages: (spec.size.map { [Resize(width: $0.width, height: $0.height)] } ?? []) + stages,
                    pixels: (header?.width ?? 0) * (header?.height ?? 0), failure: failure))
        }
        guard !layers.isEmpty else { return }
        reads.files = layers.map(\.path) + reads.files.filter { r in !layers.contains { $0.path == r } }
        // One texture: the first layer's chain names it (the levels are every layer's).
        var outputs = renderOutputs(p, chain, values, context, texture: texture)
        guard outputs.count == 1, outputs[0].format.container != nil else {
            error(p.path.key("stages"), PlanMessage.arrayImages(outputs.count, kind: kind) + context)
            return
        }
        if !isVolume {
            let json = PathText.deletingExtension(outputs[0].relative) + ".json"
            var index = PlannedOutput.named(json, root: manifest.outputRoot)
            index.isData = true
            outputs.append(index)
        }
        canonical += output.canonical + outputs.map { "output " + $0.relative }
        guard let check = decodeCheck(p, values, context) else { return }
        let work: Work =
            isVolume ? .volume(VolumePlan(slices: layers, chain: volumeChain)) : .array(ArrayPlan(layers: layers))
        jobs.append(
            Job(
                index: jobs.count, id: [p.name, "\u{1}" + kind, variant?.name ?? ""].joined(separator: "\u{0}"),
                pipeline: p.name, variant: variant?.name,
                input: JobInput(
                    path: layers[0].path, display: PlanMessage.arrayDisplay(p.name, layers: layers.count, kind: kind),
                    alpha: p.inputAlpha, pixels: layers.reduce(0) { $0 + $1.pixels }),
                outputs: outputs, encoding: Encoding(files: files, texture: texture),
                quality: JobQuality(
                    check: check, budget: Self.budgetName(p, variant),
                    normalMap: Self.isNormalMap(layers.first?.stages ?? [], check, texture)),
                reads: reads, failure: nil, parameters: canonical.joined(separator: "\n"), work: work))
    }
}

/// An array job's layers in order, each with its stages (docs/gpu-textures.md "Texture arrays").
public struct ArrayPlan: Sendable {
    public var layers: [PartInput]
}

/// A volume job's depth slices in order, each with the stages before `mipmaps`, and the chain of
/// the assembled volume (nil: level 0 only). docs/gpu-textures.md "Volume textures".
public struct VolumePlan: Sendable {
    public var slices: [PartInput]
    public var chain: VolumeChain?
}
