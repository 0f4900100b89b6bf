internal import Foundation
internal import TexPipeFormats
internal import TexPipeManifest
internal import TexPipePixels
internal import TexPipeStages

extension PlanBuilder {
    /// An images pipeline's jobs: one per input and variant (a `.cube` LUT input's is a volume by
    /// itself).
    mutating func addImages(_ p: PipelineSpec, _ matches: [Glob.Match], _ variants: [Variant?]) {
        var matches = matches
        // Thousands of inputs: contiguous slices planned on the cores at once, each by its own
        // copy of the builder (its caches included), merged back in input order — the same jobs,
        // indices and diagnostics as one pass.
        let slices = min(max(PlanBuilder.cores, 2), matches.count / max(1, inputsPerSlice))
        guard slices > 1 else {
            for m in matches { addInput(p, m, variants) }
            return
        }
        if p.valid && decoded[p.index] == nil, let first = matches.first {
            addInput(p, first, variants)  // decodes the pipeline once, for every slice to reuse
            matches.removeFirst()
        }
        final class Slice: @unchecked Sendable {
            var builder: PlanBuilder
            init(_ b: PlanBuilder) { builder = b }
        }
        var template = self
        template.jobs = []
        template.diagnostics = []
        let parts = (0..<slices).map { _ in Slice(template) }
        let bounds = (0...slices).map { $0 * matches.count / slices }
        let all = matches
        DispatchQueue.concurrentPerform(iterations: slices) { k in
            for m in all[bounds[k]..<bounds[k + 1]] { parts[k].builder.addInput(p, m, variants) }
        }
        for part in parts {
            let b = part.builder
            let first = jobs.count
            jobs.append(contentsOf: b.jobs)
            for i in first..<jobs.count { jobs[i].index = i }
            diagnostics += b.diagnostics
            inputsRealPaths.formUnion(b.inputsRealPaths)
            realDirectories.merge(b.realDirectories) { a, _ in a }
            headers.merge(b.headers) { a, _ in a }
            fonts.merge(b.fonts) { a, _ in a }
            decoded.merge(b.decoded) { a, _ in a }
        }
    }

    /// One input's jobs, by what its file holds: a LUT is a volume by itself; anything else is
    /// decoded as an image when its job runs (a file that is none fails that job alone).
    mutating func addInput(_ p: PipelineSpec, _ m: Glob.Match, _ variants: [Variant?]) {
        let absolute = manifest.directory + "/" + m.relativePath
        inputsRealPaths.insert(PathKey(realFile(absolute, known: shapes)))
        switch FileKind(path: absolute)?.row.holds {
        case .lut?:
            for v in variants { addLUT(p, match: m, absolute: absolute, variant: v) }
        case .image?, .hdrImage?, .texture?, .model?, nil:
            let header = try? self.header(absolute).get()
            for v in variants { addJob(p, match: m, absolute: absolute, header: header, variant: v) }
        }
    }

    mutating func addJob(
        _ p: PipelineSpec, match m: Glob.Match, absolute: String, header: ImageShape?, variant: Variant?
    ) {
        let values = Self.values(Self.values(p, variant), of: m)
        let context = Self.context(variant)
        var decoder = self.decoder(values, context: context)
        var stages: [any Stage] = []
        // The resolved parameters in canonical form, one per line: part of the job's cache key.
        var canonical: String
        var files: ImageFileSettings? = ImageFileSettings()
        var texture: TextureSettings? = .standard
        if let known = decoded[p.index] {
            // No placeholder anywhere in the pipeline's parameters: every job decodes the same.
            (stages, canonical, files, texture) = (known.stages, known.canonical, known.files, known.texture)
        } else {
            var lines: [String] = []
            if p.valid { (stages, lines) = Self.decodeStages(p.stages, p, &decoder) }
            let settings = Self.decodeSettings(p, &decoder)
            (files, texture) = (settings.files, settings.texture)
            canonical = (lines + settings.canonical).joined(separator: "\n")
            if p.valid, decoder.diagnostics.isEmpty, let files, let texture, !PlanBuilder.hasPlaceholder(p) {
                decoded[p.index] = DecodedPipeline(
                    stages: stages, canonical: canonical, files: files, texture: texture)
            }
        }
        diagnostics += decoder.diagnostics
        guard decoder.diagnostics.isEmpty, let files, let texture else { return }

        // What the stages read besides the input: missing or broken files and fonts are manifest
        // errors, except an image named by a placeholder (this input's roughness map): that job's.
        var reads = JobReads([absolute])
        var missing: PlannedFailure?
        guard resolveReads(stages, p.stages, context, &reads, missing: &missing) else { return }
        let start = Signature(
            width: header?.width, height: header?.height, depth: header?.depth ?? 8, alpha: p.inputAlpha)
        guard let chain = chains(stages, p.stages, from: start, context, check: p.valid) else { return }
        let sized = missing == nil ? chain.sized : chain.unsized
        guard let check = decodeCheck(p, values, context) else { return }
        // SSIM is measured of 8/16-bit outputs (FLIP of HDR ones is HDR-FLIP).
        if check.minSSIM != nil, chain.unsized.contains(where: \.isHDR) {
            error(
                p.path.key("check").key("minSSIM"), PlanMessage.ssimOnHDR + " (\(m.relativePath))" + context)
            return
        }
        // An invalid pipeline's texture settings are the default standing in for what was
        // refused (already reported): the format is not checked against the image again.
        let outputs = renderOutputs(
            p, sized, values, context, texture: p.valid ? texture : nil, input: m.relativePath)
        // The parameters' text (part of the cache key): the pipeline's canonical lines, then one
        // per output.
        var parameters = canonical
        for output in outputs { parameters += "\noutput " + output.relative }
        let relativeInput = String(absolute.dropFirst(manifest.directory.count + 1))
        jobs.append(
            Job(
                index: jobs.count, id: [p.name, relativeInput, variant?.name ?? ""].joined(separator: "\u{0}"),
                pipeline: p.name, variant: variant?.name,
                input: JobInput(
                    path: absolute, display: Planner.display(absolute), alpha: p.inputAlpha,
                    pixels: (header?.width ?? 0) * (header?.height ?? 0)),
                outputs: outputs, encoding: Encoding(files: files, texture: texture),
                quality: JobQuality(
                    check: check, budget: Self.budgetName(p, variant),
                    normalMap: Self.isNormalMap(stages, check, texture)),
                reads: reads, failure: missing ?? chain.failure, parameters: parameters,
                work: .image(ImagePlan(stages: stages))))
    }
}
