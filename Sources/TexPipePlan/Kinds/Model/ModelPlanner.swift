internal import Foundation
internal import TexPipeCodecs
internal import TexPipeFormats
internal import TexPipeManifest
internal import TexPipeModels
internal import TexPipeParameters
internal import TexPipePixels
public import TexPipeStages

extension PlanBuilder {
    /// A gltf pipeline (docs/gltf.md): per model and variant, a job per (image, kind) its materials
    /// use, then the model's rewrite, which waits for them. A model that cannot be read is its
    /// rewrite's failure (one line naming the model and the JSON path); the other models run.
    mutating func addGLTF(_ p: PipelineSpec, _ spec: GLTFSpec, _ matches: [Glob.Match], variant: Variant?) {
        guard p.valid else { return }
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
        guard decoder.diagnostics.isEmpty, let files = settings.files else { return }
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
            index: jobs.count, id: modelID, pipeline: p.name, variant: variant?.name,
            input: JobInput(path: absolute, display: display, alpha: p.inputAlpha, pixels: 0), outputs: [out],
            encoding: Encoding(files: files), quality: JobQuality(budget: Self.budgetName(p, variant)),
            reads: JobReads([absolute]), failure: nil, parameters: "",
            work: .model(ModelPlan(binary: binary, fallback: spec.fallback, stem: stem, textures: [])))
        func failModel(_ message: String) {
            modelJob.failure = PlannedFailure(message, stage: "gltf")
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
        let normalFor =
            spec.roughnessFromNormals
            ? normalMaps(model, absolute: absolute, folder: folder, buffers: buffers, read: read) : [:]
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
                    p, role, t, what: what, values: values, context: context, files: files,
                    pipelineStages: (pipelineStages, pipelineLines), spec: spec,
                    model: (absolute, relativeModel, display),
                    image: (imagePath, imageBytes), directory: t.inView ? stash : outDir, variant: variant,
                    normals: t.roles.contains(.metallicRoughness) ? normalFor[t.image] : nil)
            else {
                jobs.removeLast(jobs.count - modelIndex)
                return
            }
            let job = jobs[index]
            textures.append(ModelPlan.Texture(job.outputs, job: index, display: what))
            for o in job.outputs where !reads.contains(o.path) { reads.append(o.path) }
            canonical.append("texture \(what) " + job.outputs.map(\.relative).joined(separator: " "))
        }
        let outputs = [out] + layout.beside.map { besideOutput($0.name, next: out) }
        canonical += outputs.map { "output " + $0.relative }
        modelJob.index = modelIndex
        modelJob.outputs = outputs
        modelJob.reads = JobReads(reads)
        modelJob.parameters = canonical.joined(separator: "\n")
        modelJob.work = .model(ModelPlan(binary: binary, fallback: spec.fallback, stem: stem, textures: textures))
        jobs[modelIndex] = modelJob
    }

    /// One texture's job: the pipeline's stages, then the role's; a KTX2 (and its plain copy with a
    /// fallback) or the role's PNG/JPEG. An identical job another model already planned (a texture
    /// two models share) is reused. nil: a manifest error (reported).
    mutating func addTexture(
        _ p: PipelineSpec, _ role: GLTFSpec.RoleSpec, _ t: GLTFLayout.Texture, what: String,
        values: [String: String], context: String, files: ImageFileSettings,
        pipelineStages: ([any Stage], [String]), spec: GLTFSpec,
        model: (path: String, relative: String, display: String),
        image: (path: String?, bytes: [UInt8]?), directory: String, variant: Variant?, normals: String? = nil
    ) -> Int? {
        var decoder = self.decoder(values, context: context)
        let specs = Self.stageSpecs(role, normals: normals)
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
        var reads = JobReads([])
        var missing: PlannedFailure?
        if let path = image.path {
            reads.files.append(path)
            // A texture written over its own source is refused as any output over an input is.
            inputsRealPaths.insert(PathKey(realFile(path)))
        }
        guard resolveReads(stages, p.stages + specs, context, &reads, missing: &missing) else { return nil }
        // The image's header: its file's, or the embedded bytes'.
        var shape: ImageShape?
        var failure: PlannedFailure?
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
                failure = PlannedFailure("\(error)", stage: "decode")
            }
        } else {
            failure = PlannedFailure(PlanMessage.unreadableImage, stage: "decode")
        }
        let start = Signature(width: shape?.width, height: shape?.height, depth: shape?.depth ?? 8, alpha: p.inputAlpha)
        guard let chain = chains(stages, p.stages + specs, from: start, context, check: true) else { return nil }
        // The image's own problem, else a stage's file missing, else its chain's.
        failure =
            failure.map { f in PlannedFailure(f.message, stage: missing?.stage ?? chain.failure?.stage ?? f.stage) }
            ?? missing ?? chain.failure
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
        // A KTX2, then level 0 again as each image beside it: the web fallback, the core source.
        var outputs: [PlannedOutput] = []
        if let kind = role.output.imageKind {
            outputs.append(output(kind.row.extensions[0], kind.imageFormat!, levels: 1))
        } else {
            outputs.append(output("ktx2", .texture(.ktx2), levels: levels))
            if let web = role.fallback {
                outputs.append(output(web.kind.row.extensions[0], web.kind.imageFormat!, levels: 1))
            }
            if role.fallback.map({ _ in role.keepSource }) ?? spec.fallback {
                outputs.append(output(plainFormat == .jpeg ? "jpg" : "png", plainFormat, levels: 1))
            }
        }
        let lines = pipelineStages.1 + roleLines + [textureLine, "role " + t.role.rawValue]
        let embedded = image.path == nil ? image.bytes.map { (model.relative + "#images[\(t.image)]", $0) } : nil
        var job = Job(
            index: jobs.count,
            id: [p.name, model.relative + "#images[\(t.image)]." + t.kind.rawValue, variant?.name ?? ""].joined(
                separator: "\u{0}"),
            pipeline: p.name, variant: variant?.name,
            input: JobInput(
                path: image.path ?? model.path, display: model.display + " " + what, alpha: p.inputAlpha,
                pixels: (shape?.width ?? 0) * (shape?.height ?? 0)),
            outputs: outputs, encoding: Encoding(files: files, texture: texture),
            quality: JobQuality(budget: Self.budgetName(p, variant)), reads: reads, failure: failure,
            parameters: (lines + outputs.map { "output " + $0.relative }).joined(separator: "\n"),
            work: .modelTexture(
                ModelTexturePlan(
                    stages: stages, model: model.path, image: what, embedded: embedded,
                    levelZeroCopies: outputs.count - 1)))
        // Two models sharing one texture file, in the same role, share its job.
        if let known = gltfTextures[PathKey(outputs[0].path)], embedded == nil,
            case .modelTexture(let other) = jobs[known].work,
            other.embedded == nil, jobs[known].input.path == job.input.path, jobs[known].parameters == job.parameters
        {
            return known
        }
        if let check = decodeCheck(p, values, context) {
            job.quality.check = check.isEmpty ? nil : check
            job.quality.severity = check.severity
        }
        job.quality.normalMap = t.kind == .normal || Self.isNormalMap(stages, job.quality.check, job.encoding.texture)
        gltfTextures[PathKey(outputs[0].path)] = jobs.count
        jobs.append(job)
        return jobs.count - 1
    }

    /// A file the model's rewrite writes beside it (a buffer, a copied image).
    func besideOutput(_ name: String, next out: PlannedOutput) -> PlannedOutput {
        let folder = PathText.parent(out.relative)
        var o = PlannedOutput.named(folder.isEmpty ? name : folder + "/" + name, root: manifest.outputRoot)
        o.isData = true
        o.levels = 0
        return o
    }

    /// A role's stages as its texture runs them: a KTX2's levels kept in it, and a metallicRoughness
    /// texture's chain raised by its material's normal map's variance (`roughnessFrom`, docs/gltf.md)
    /// unless the role gives one itself.
    static func stageSpecs(_ role: GLTFSpec.RoleSpec, normals: String?) -> [StageSpec] {
        var roughnessGiven = normals == nil
        return role.stages.map { s -> StageSpec in
            var s = s
            if role.output == .ktx2, s.type.makesLevels, s.object["layout"] == nil {
                s.object.insert("layout", .string("texture"))
            }
            if let normals, !roughnessGiven, s.type.parameters.contains(where: { $0.name == "roughnessFrom" }) {
                roughnessGiven = true
                if s.object["roughnessFrom"] == nil {
                    var from = JSONObject()
                    from.insert("normals", .string(normals))
                    s.object.insert("roughnessFrom", .object(from))
                }
            }
            return s
        }
    }

    /// Per metallicRoughness image, the normal map of the first material (in order) that uses both:
    /// the file beside the model, or a reference into the model for an image it embeds (its header
    /// read here from the bytes, as the planner reads a file's).
    mutating func normalMaps(
        _ model: GLTFModel, absolute: String, folder: String, buffers: [[UInt8]],
        read: (String) -> Result<[UInt8], GLTFError>
    ) -> [Int: String] {
        guard let uses = try? model.uses() else { return [:] }
        var out: [Int: String] = [:]
        for use in uses where use.role == .metallicRoughness {
            guard let mr = use.image, out[mr] == nil,
                let n = uses.first(where: { $0.material == use.material && $0.role == .normal })?.image
            else { continue }
            // Written as a manifest's own path is (relative to its folder): the text is part of the
            // job's cache key, which another checkout must compute the same.
            if case .file(let uri)? = try? model.imageSource(n) {
                out[mr] = PathText.relative(folder + "/" + uri, to: manifest.directory)
                continue
            }
            let reference = GLTFModel.imageReference(PathText.relative(absolute, to: manifest.directory), image: n)
            guard let bytes = try? model.imageBytes(n, buffers: buffers, read: read),
                let h = try? ImageDecoder.header(bytes)
            else { continue }
            let resolved = reference.hasPrefix("/") ? reference : manifest.directory + "/" + reference
            headers[PathKey(resolved)] = .success(ImageShape(width: h.width, height: h.height, depth: h.depth))
            out[mr] = reference
        }
        return out
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

/// A gltf pipeline's model job (docs/gltf.md): its rewrite reads the model again and the files its
/// texture jobs wrote.
public struct ModelPlan: Sendable {
    public var binary: Bool
    public var fallback: Bool
    /// The output's file name without its extension.
    public var stem: String
    /// Per texture of the model's layout, in its order.
    public var textures: [Texture]

    public struct Texture: Sendable {
        /// The KTX2, the plain image (PNG or JPEG) and the web image (WebP or AVIF) its job
        /// writes: absolute paths.
        public var basisu: String?
        public var plain: String?
        public var web: String?
        /// The job (plan index) and how messages name it: `images[2] (normal)`.
        public var job: Int
        public var display: String

        /// The files of a texture job's `outputs`, by their kinds.
        init(_ outputs: [PlannedOutput], job: Int, display: String) {
            func path(_ kinds: [ImageFormat]) -> String? { outputs.first { kinds.contains($0.format) }?.path }
            (basisu, plain, web) = (path([.ktx2]), path([.png, .jpeg]), path([.webp, .avif]))
            (self.job, self.display) = (job, display)
        }
    }
}

/// One texture of a glTF model: its image through the pipeline's and its role's stages.
public struct ModelTexturePlan: Sendable {
    public var stages: [any Stage]
    /// The model (absolute path), and which image in which roles (`images[2] (normal)`): how
    /// reports name the job under its model.
    public var model: String
    public var image: String
    /// The image's bytes when the model embeds it (a GLB's buffer view, a `data:` URI), read when
    /// planning, and the name its digest goes by in the key.
    public var embedded: (name: String, bytes: [UInt8])?
    /// Level 0 written again after the KTX2, once per image beside it (a web fallback, the core
    /// PNG/JPEG source).
    public var levelZeroCopies: Int
}
