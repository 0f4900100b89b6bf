internal import Foundation
internal import TexPipeAtlas
internal import TexPipeManifest
internal import TexPipeParameters
internal import TexPipePixels
internal import TexPipeStages

extension PlanBuilder {
    /// An atlas pipeline's one job per variant (docs/atlases.md): every sprite (after `exclude`) in name
    /// order with its stages, the settings, the page stages, page 0's outputs. Its reads — every
    /// sprite, then what the stages read — are its cache key.
    mutating func addAtlas(_ p: PipelineSpec, _ spec: AtlasSpec, _ matches: [Glob.Match], variant: Variant?) {
        guard p.valid else { return }
        let object = spec.object
        let values = Self.values(p, variant)
        let context = Self.context(variant)
        var decoder = self.decoder(values, context: context)
        var table = object
        table.remove("name")
        var nameTemplate = AtlasSettings.standard.name
        if case .string(let s)? = object["name"] { nameTemplate = s }
        let atlasArgs = decoder.decode(
            table, at: p.path.key("atlas"), table: AtlasSettings.parameters.filter { $0.name != "name" })
        var settings: AtlasSettings?
        // The manifest checked the rules for values it could read; here, values from placeholders.
        do throws(SettingsProblems) {
            if let atlasArgs { settings = try AtlasSettings(atlasArgs, name: nameTemplate) }
        } catch {
            decoder.report(error, at: p.path.key("atlas"))
        }
        let (pageStages, pageCanonical) = Self.decodeStages(spec.pageStages, p, &decoder)
        let output = Self.decodeSettings(p, &decoder)
        // Sprite stages without placeholders decode once for all sprites.
        let shared = PlanBuilder.hasPlaceholder(p) ? nil : Self.decodeStages(p.stages, p, &decoder)
        diagnostics += decoder.diagnostics
        guard decoder.diagnostics.isEmpty, var settings, let atlasArgs, let files = output.files,
            let texture = output.texture
        else { return }
        settings.name = nameTemplate

        var reads = JobReads([])
        var sprites: [PartInput] = []
        var canonical: [String] = ["atlas" + atlasArgs.canonical + " name " + nameTemplate]
        var alpha = p.inputAlpha
        var depth = 8
        for m in matches {
            guard
                let (sprite, signature) = atlasSprite(
                    p, m, values: values, name: nameTemplate, shared: shared?.0, context: context, &reads, &canonical)
            else { return }
            alpha = signature.alpha
            depth = max(depth, signature.depth)
            sprites.append(sprite)
        }
        if let shared { canonical.append(shared.1.joined(separator: "\n")) }
        sprites.sort { $0.name != $1.name ? $0.name < $1.name : $0.path < $1.path }
        for (a, b) in zip(sprites, sprites.dropFirst()) where a.name == b.name {
            error(p.path.key("inputs"), PlanMessage.spriteNameTwice(a.name, a.display, b.display) + context)
            return
        }
        guard !sprites.isEmpty else { return }
        // The sprites' files first (in name order), then what the stages read.
        reads.files = sprites.map(\.path) + reads.files.filter { r in !sprites.contains { $0.path == r } }
        var pageMissing: PlannedFailure?
        guard resolveReads(pageStages, spec.pageStages, context, &reads, missing: &pageMissing) else { return }
        if let pageMissing {  // one job for every page: nothing else to fail alone
            error(p.path.key("pageStages"), pageMissing.message)
            return
        }
        // Pages: planned at the largest page's size, for the names of the outputs they may make.
        let limit = settings.pageLimit
        let pageStart = Signature(width: limit.width, height: limit.height, depth: depth, alpha: alpha)
        guard let pageChain = chains(pageStages, spec.pageStages, from: pageStart, context, check: true) else { return }
        var pageValues = values
        pageValues["page"] = "0"
        let outputs = renderOutputs(p, pageChain.sized, pageValues, context)
        guard !outputs.isEmpty else { return }
        canonical += pageCanonical.map { "page " + $0 } + output.canonical
        canonical.append("template " + p.output)
        guard let check = decodeCheck(p, values, context) else { return }
        let plan = AtlasPlan(
            settings: settings, sprites: sprites, pageStages: pageStages, template: p.output, values: values,
            outputRoot: manifest.outputRoot)
        jobs.append(
            Job(
                index: jobs.count, id: [p.name, "\u{1}atlas", variant?.name ?? ""].joined(separator: "\u{0}"),
                pipeline: p.name, variant: variant?.name,
                input: JobInput(
                    path: sprites[0].path, display: PlanMessage.atlasDisplay(p.name, sprites: sprites.count),
                    alpha: p.inputAlpha, pixels: sprites.reduce(0) { $0 + $1.pixels }),
                outputs: outputs, encoding: Encoding(files: files, texture: texture),
                quality: JobQuality(check: check, budget: Self.budgetName(p, variant)), reads: reads, failure: nil,
                parameters: canonical.joined(separator: "\n"), work: .atlas(plan)))
    }

    /// One sprite of an atlas: its name, its stages (decoded with its own placeholders unless they
    /// hold none: `shared`), what they read (added to `reads`) and the one image they make, as its
    /// signature. nil: a manifest error (reported).
    mutating func atlasSprite(
        _ p: PipelineSpec, _ m: Glob.Match, values: [String: String], name nameTemplate: String,
        shared: [any Stage]?, context: String, _ reads: inout JobReads, _ canonical: inout [String]
    ) -> (PartInput, Signature)? {
        let absolute = manifest.directory + "/" + m.relativePath
        inputsRealPaths.insert(PathKey(realFile(absolute, known: shapes)))
        let header = try? self.header(absolute).get()
        let v = Self.values(values, of: m)
        var name: String
        switch Template.render(nameTemplate, v) {
        case .success(let n): name = n
        case .failure(let u):
            error(p.path.key("atlas").key("name"), Say.unresolved(u.name, in: nameTemplate, known: v.keys.sorted()))
            return nil
        }
        while name.hasPrefix("./") || name.hasPrefix("/") { name.removeFirst(name.hasPrefix("/") ? 1 : 2) }
        var stages: [any Stage]
        if let shared {
            stages = shared
        } else {
            var d = self.decoder(v, context: context)
            let decoded = Self.decodeStages(p.stages, p, &d)
            diagnostics += d.diagnostics
            guard d.diagnostics.isEmpty else { return nil }
            stages = decoded.0
            canonical.append(name + ": " + decoded.1.joined(separator: "\n"))
        }
        var spriteReads = JobReads([], fonts: reads.fonts)
        var missing: PlannedFailure?
        guard resolveReads(stages, p.stages, context, &spriteReads, missing: &missing) else { return nil }
        reads.files += spriteReads.files.filter { !reads.files.containsPath($0) }
        reads.fonts = spriteReads.fonts
        let start = Signature(
            width: header?.width, height: header?.height, depth: header?.depth ?? 8, alpha: p.inputAlpha)
        guard let chain = chains(stages, p.stages, from: start, context, check: true) else { return nil }
        // Sized where the header is known (mipmaps' chain length depends on it).
        let made = chain.failure == nil && header != nil ? chain.sized.count : chain.unsized.count
        guard made == 1 else {
            error(p.path.key("stages"), PlanMessage.spriteImages(made) + context)
            return nil
        }
        if chain.unsized[0].isHDR {
            error(p.path.key("stages"), PlanMessage.hdrSprite(name) + context)
            return nil
        }
        let sprite = PartInput(
            path: absolute, display: Planner.display(absolute), name: name, stages: stages,
            pixels: (header?.width ?? 0) * (header?.height ?? 0), failure: missing ?? chain.failure)
        return (sprite, chain.unsized[0])
    }
}
