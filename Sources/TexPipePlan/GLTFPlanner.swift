internal import Foundation
internal import TexPipeCodecs
internal import TexPipeFormats
internal import TexPipeManifest
internal import TexPipeModels
internal import TexPipeParameters
internal import TexPipePixels
internal import TexPipeStages

extension PlanBuilder {
    /// A gltf pipeline (docs/gltf.md): per model and variant, a job per (image, kind) its materials
    /// use, then the model's rewrite, which waits for them. A model that cannot be read is its
    /// rewrite's failure (one line naming the model and the JSON path); the other models run.
    mutating func addGLTF(_ p: PipelineSpec, _ matches: [Glob.Match], variant: Variant?) {
        guard let spec = p.gltf, p.valid else { return }
        for m in matches { addModel(p, spec, m, variant: variant) }
    }

    mutating func addModel(_ p: PipelineSpec, _ spec: GLTFSpec, _ m: Glob.Match, variant: Variant?) {
        let absolute = manifest.directory + "/" + m.relativePath
        inputsRealPaths.insert(PathKey(realFile(absolute)))
        let values = Self.values(Self.values(p, variant), of: m)
        let context = Self.context(variant)
        var decoder = self.decoder(values, context: context)
        let settings = Self.decodeSettings(p, &decoder)
        let (pipelineStages, stageLines) = Self.decodeStages(p.stages, p, &decoder)
        let pipelineLines = stageLines + settings.canonical
        diagnostics += decoder.diagnostics
        guard decoder.diagnostics.isEmpty, let png = settings.png, let jpeg = settings.jpeg else { return }
        if outputTemplates[p.index] == nil { outputTemplates[p.index] = Template.Compiled(p.output) }
        let rendered: String
        switch outputTemplates[p.index]!.render(values) {
        case .success(let r): rendered = r
        case .failure(let u):
            if p.templateValid {
                error(p.path.key("output"), Say.unresolved(u.name, in: p.output, known: values.keys.sorted()) + context)
            }
            return
        }
        guard let out = modelOutput(rendered, at: p.path.key("output"), context: context) else { return }
        let binary = PathText.pathExtension(out.relative).lowercased() == "glb"
        let stem = PathText.deletingExtension(PathText.lastComponent(out.relative))
        let folder = PathText.parent(absolute)
        let relativeModel = String(absolute.dropFirst(manifest.directory.count + 1))
        let display = Planner.display(absolute)
        let modelID = [p.name, relativeModel, variant?.name ?? ""].joined(separator: "\u{0}")
        var modelJob = Job(
            index: jobs.count, pipeline: p.name, input: absolute, inputDisplay: display, variant: variant?.name,
            stages: [], outputs: [out], template: p.output, placeholders: values, inputAlpha: p.inputAlpha, png: png,
            jpeg: jpeg, failure: nil, failureStage: nil, reads: [absolute], fonts: [:], id: modelID, parameters: "")
        modelJob.budget = Self.budgetName(p, variant)
        func failModel(_ message: String) {
            modelJob.failure = message
            modelJob.failureStage = "gltf"
            modelJob.parameters = "gltf"
            jobs.append(modelJob)
        }
        // The model, its buffers and its layout.
        let model: GLTFModel
        let buffers: [[UInt8]]
        let layout: GLTFLayout
        let read = GLTFModel.files(in: folder)
        do throws(GLTFError) {
            guard case .success(let bytes) = FileReader.read(absolute) else {
                return failModel(PlanMessage.unreadableModel)
            }
            model = try GLTFModel.parse(bytes)
            buffers = try model.buffers(read: read)
            layout = try GLTFLayout(model, binary: binary, stem: stem)
        } catch {
            return failModel(error.description)
        }
        for (image, roles) in layout.mixed {
            diagnostics.append(
                Diagnostic(
                    file: manifest.file, path: p.path.key("gltf"),
                    PlanMessage.mixedRoles(display, image: image, roles.map(\.rawValue)) + context,
                    severity: .warning))
        }
        var reads = [absolute]
        for k in model.items("buffers").indices {
            if case .file(let uri)? = try? model.bufferSource(k) { reads.append(folder + "/" + uri) }
        }
        for (_, uri) in layout.unusedFiles { reads.append(folder + "/" + uri) }
        // The model's job first, its textures' under it (reports list them in plan order).
        let modelIndex = jobs.count
        jobs.append(modelJob)
        // Textures beside the model, or under .texpipe/gltf/ when it embeds them.
        let outDir = PathText.parent(out.path)
        let stash =
            manifest.directory + "/.texpipe/gltf/" + p.name + "/" + PathText.deletingExtension(out.relative)
            + (variant.map { "@" + $0.name } ?? "")
        var textures: [ModelPlan.Texture] = []
        var canonical = ["gltf fallback \(spec.fallback) " + (binary ? "glb" : "gltf")] + pipelineLines
        for t in layout.textures {
            let role = spec.roles[t.role]!
            let what = "images[\(t.image)] (\(t.roles.map(\.rawValue).joined(separator: ", ")))"
            var imageBytes: [UInt8]?
            var imagePath: String?
            switch try? model.imageSource(t.image) {
            case .file(let uri)?: imagePath = folder + "/" + uri
            default: imageBytes = try? model.imageBytes(t.image, buffers: buffers, read: read)
            }
            guard
                let index = addTexture(
                    p, role, t, what: what, values: values, context: context, png: png, jpeg: jpeg,
                    pipelineStages: (pipelineStages, pipelineLines), spec: spec,
                    model: (absolute, relativeModel, display),
                    image: (imagePath, imageBytes), directory: t.inView ? stash : outDir, variant: variant)
            else {
                jobs.removeLast(jobs.count - modelIndex)
                return
            }
            let job = jobs[index]
            let ktx = job.outputs.first { $0.format == .texture(.ktx2) }
            let plain = job.outputs.first { $0.format == .png || $0.format == .jpeg }
            textures.append(ModelPlan.Texture(basisu: ktx?.path, plain: plain?.path, job: index, display: what))
            modelJob.after.append(index)
            for o in job.outputs where !reads.contains(o.path) { reads.append(o.path) }
            canonical.append("texture \(what) " + job.outputs.map(\.relative).joined(separator: " "))
        }
        var outputs = [out]
        for b in layout.beside {
            var o = PlannedOutput.named(
                PathText.parent(out.relative).isEmpty ? b.name : PathText.parent(out.relative) + "/" + b.name,
                root: manifest.outputRoot)
            o.isData = true
            o.levels = 0
            outputs.append(o)
        }
        canonical += outputs.map { "output " + $0.relative }
        modelJob.index = modelIndex
        modelJob.outputs = outputs
        modelJob.reads = reads
        modelJob.parameters = canonical.joined(separator: "\n")
        modelJob.model = ModelPlan(binary: binary, fallback: spec.fallback, stem: stem, textures: textures)
        jobs[modelIndex] = modelJob
    }

    /// One texture's job: the pipeline's stages, then the role's; a KTX2 (and its plain copy with a
    /// fallback) or the role's PNG/JPEG. An identical job another model already planned (a texture
    /// two models share) is reused. nil: a manifest error (reported).
    mutating func addTexture(
        _ p: PipelineSpec, _ role: GLTFSpec.RoleSpec, _ t: GLTFLayout.Texture, what: String,
        values: [String: String], context: String, png: PNGSettings, jpeg: JPEGSettings,
        pipelineStages: ([any Stage], [String]), spec: GLTFSpec,
        model: (path: String, relative: String, display: String),
        image: (path: String?, bytes: [UInt8]?), directory: String, variant: Variant?
    ) -> Int? {
        var decoder = self.decoder(values, context: context)
        // A role writing a KTX2 keeps its levels in it.
        let specs = role.stages.map { s -> StageSpec in
            var s = s
            if role.output == .ktx2, s.type.makesLevels, s.object["layout"] == nil {
                s.object.insert("layout", .string("texture"))
            }
            return s
        }
        let (roleStages, roleLines) = Self.decodeStages(specs, p, &decoder)
        var texture = TextureSettings.standard
        var textureLine = ""
        if role.output == .ktx2,
            let args = decoder.decode(role.texture, at: role.path.key("texture"), table: TextureSettings.parameters)
        {
            do throws(SettingsProblems) { texture = try TextureSettings(args) } catch {
                decoder.report(error, at: role.path.key("texture"))
            }
            textureLine = "texture" + args.canonical
        }
        diagnostics += decoder.diagnostics
        guard decoder.diagnostics.isEmpty else { return nil }
        let stages = pipelineStages.0 + roleStages
        var reads: [String] = []
        var fonts: [String: FontFace] = [:]
        var missing: (message: String, stage: String)?
        if let path = image.path {
            reads.append(path)
            // A texture written over its own source is refused as any output over an input is.
            inputsRealPaths.insert(PathKey(realFile(path)))
        }
        guard resolveReads(stages, p.stages + specs, context, &reads, &fonts, missing: &missing) else { return nil }
        // The image's header: its file's, or the embedded bytes'.
        var shape: ImageShape?
        var failure: String?
        var plainFormat = ImageFormat.png
        if let path = image.path {
            shape = try? header(path).get()
            if let f = ImageFormat(path: path), f == .jpeg { plainFormat = .jpeg }
        } else if let bytes = image.bytes {
            do {
                let h = try ImageDecoder.header(bytes)
                shape = ImageShape(width: h.width, height: h.height, depth: h.depth)
                plainFormat = h.format == .jpeg ? .jpeg : .png
            } catch {
                failure = "\(error)"
            }
        } else {
            failure = PlanMessage.unreadableImage
        }
        let start = Signature(width: shape?.width, height: shape?.height, depth: shape?.depth ?? 8, alpha: p.inputAlpha)
        guard let chain = chains(stages, p.stages + specs, from: start, context, check: true) else { return nil }
        failure = failure ?? missing?.message ?? chain.failure
        let failureStage = missing?.stage ?? chain.failureStage ?? (failure != nil ? "decode" : nil)
        let levels = chain.failure == nil && shape != nil ? chain.sized.count : 1
        if role.output != .ktx2 && levels > 1 {
            error(role.path.key("stages"), PlanMessage.textureLayoutNeedsTexture(role.output.rawValue) + context)
            return nil
        }
        func output(_ ext: String, _ format: ImageFormat, levels: Int) -> PlannedOutput {
            let path = directory + "/" + t.name + "." + ext
            // A GLB's textures live under .texpipe/gltf/: named from the manifest's folder, so the
            // name (a remote cache's blob path too) never climbs out of the output root with `..`.
            let relative = PathText.relative(path, to: t.inView ? manifest.directory : manifest.outputRoot)
            var o = PlannedOutput(path: path, relative: relative, format: format, levels: levels)
            o.intermediate = t.inView
            return o
        }
        var outputs: [PlannedOutput] = []
        switch role.output {
        case .ktx2:
            outputs.append(output("ktx2", .texture(.ktx2), levels: levels))
            if spec.fallback { outputs.append(output(plainFormat == .jpeg ? "jpg" : "png", plainFormat, levels: 1)) }
        case .png: outputs.append(output("png", .png, levels: 1))
        case .jpeg: outputs.append(output("jpg", .jpeg, levels: 1))
        }
        let lines = pipelineStages.1 + roleLines + [textureLine, "role " + t.role.rawValue]
        var job = Job(
            index: jobs.count, pipeline: p.name, input: image.path ?? model.path,
            inputDisplay: model.display + " " + what, variant: variant?.name, stages: stages, outputs: outputs,
            template: p.output, placeholders: values, inputAlpha: p.inputAlpha, png: png, jpeg: jpeg,
            texture: texture, failure: failure, failureStage: failure == nil ? nil : failureStage, reads: reads,
            fonts: fonts, pixels: (shape?.width ?? 0) * (shape?.height ?? 0),
            id: [p.name, model.relative + "#images[\(t.image)]." + t.kind.rawValue, variant?.name ?? ""].joined(
                separator: "\u{0}"),
            parameters: (lines + outputs.map { "output " + $0.relative }).joined(separator: "\n"))
        if image.path == nil, let bytes = image.bytes {
            job.embedded = (model.relative + "#images[\(t.image)]", bytes)
        }
        job.plainCopy = role.output == .ktx2 && spec.fallback
        job.modelTexture = (model.path, what)
        // Two models sharing one texture file, in the same role, share its job.
        if let known = gltfTextures[PathKey(outputs[0].path)], job.embedded == nil, jobs[known].embedded == nil,
            jobs[known].input == job.input, jobs[known].parameters == job.parameters
        {
            return known
        }
        job.budget = Self.budgetName(p, variant)
        if let check = decodeCheck(p, values, context), !check.isEmpty { job.check = check }
        job.normalMap = t.kind == .normal || Self.isNormalMap(stages, job.check)
        gltfTextures[PathKey(outputs[0].path)] = jobs.count
        jobs.append(job)
        return jobs.count - 1
    }

    /// The model's output: the rendered template under the root, a `.glb` or `.gltf`.
    mutating func modelOutput(_ rendered: String, at path: JSONPath, context: String) -> PlannedOutput? {
        if rendered.hasPrefix("/") {
            error(path, PlanMessage.absoluteOutput(rendered, root: manifest.output) + context)
            return nil
        }
        guard let relative = Self.underRoot(rendered) else {
            error(path, PlanMessage.outsideRoot(rendered, root: manifest.output) + context)
            return nil
        }
        var out = PlannedOutput(path: manifest.outputRoot + "/" + relative, relative: relative, format: .png, levels: 0)
        out.isData = true
        return out
    }
}
