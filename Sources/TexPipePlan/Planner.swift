internal import Foundation
internal import TexPipeCodecs
internal import TexPipeFormats
public import TexPipeManifest
internal import TexPipeParameters
internal import TexPipePixels
internal import TexPipeStages

/// Manifest → jobs: globs, variants, templates, alpha-state chain, output containment and
/// collisions. Everything it finds is a manifest error (exit 2) reported at once, before
/// anything runs — except problems of one input's pixels, which fail only that job.
public enum Planner {
    public static func plan(_ manifest: Manifest, _ options: PlanOptions = PlanOptions()) throws -> Plan {
        var planner = PlanBuilder(manifest: manifest)
        planner.shapes = options.shapes
        planner.inputsPerSlice = options.inputsPerSlice
        planner.diagnostics = manifest.diagnostics
        for name in options.pipelines where !manifest.pipelines.contains(where: { $0.name == name }) {
            planner.error(nil, Say.unknownPipeline(name, valid: manifest.pipelines.map(\.name)))
        }
        var selected = manifest.pipelines.filter { options.pipelines.isEmpty || options.pipelines.contains($0.name) }
        if !options.variants.isEmpty {
            // A platform per CI machine: only the jobs of these variants; a pipeline without them
            // (or without variants at all) has nothing to do here.
            let names = selected.flatMap { $0.variants?.map(\.name) ?? [] }
            for name in options.variants where !names.contains(name) {
                planner.error(nil, Say.unknownVariant(name, valid: Array(Set(names)).sorted()))
            }
            selected = selected.filter { p in p.variants?.contains { options.variants.contains($0.name) } ?? false }
            planner.onlyVariants = options.variants
        }
        for p in selected { planner.add(p) }
        planner.checkOutputs()
        let all = planner.unique
        guard !all.contains(where: { $0.severity == .error }) else { throw ManifestError(all) }
        return Plan(manifest: manifest, jobs: planner.jobs, warnings: all.sorted())
    }

    /// Shows a path relative to the current folder when it lies below it.
    public static func display(_ absolute: String) -> String { PathText.display(absolute) }
}

struct PlanBuilder {
    let manifest: Manifest
    var diagnostics: [Diagnostic] = []
    var jobs: [Job] = []
    // Paths are keyed by their bytes (`PathKey`): two files whose names are equal as Strings must
    // not share a real folder, a header or a place among the inputs.
    var inputsRealPaths: Set<PathKey> = []
    var realDirectories: [PathKey: String] = [:]
    /// Headers of the files the plan reads (inputs and stage resources), each read once.
    var headers: [PathKey: Result<ImageShape, HeaderProblem>] = [:]
    var shapes: (any ShapeMemory)?
    /// `--variant`: only these variants' jobs (all when empty).
    var onlyVariants: [String] = []
    /// Fonts found, by spec and folder: fontconfig's match is the slow part.
    var fonts: [String: Result<FontFace, CodecError>] = [:]

    /// A pipeline's decoded stages and settings, when no parameter holds a placeholder (decoding
    /// them per job was a quarter of planning 20,000 sprites).
    var decoded: [Int: DecodedPipeline] = [:]
    /// glTF texture jobs by their first output: a texture two models share is one job.
    var gltfTextures: [PathKey: Int] = [:]
    /// Each pipeline's output template, split once.
    var outputTemplates: [Int: Template.Compiled] = [:]

    struct DecodedPipeline {
        var stages: [any Stage]
        /// The resolved parameters in canonical form, one per line (part of each job's key).
        var canonical: String
        var png: PNGSettings
        var jpeg: JPEGSettings
        var texture: TextureSettings
    }

    init(manifest: Manifest) { self.manifest = manifest }

    /// Whether the template writes a GPU texture (its extension, case-insensitive).
    static func isTextureTemplate(_ template: String) -> Bool {
        ImageFormat(path: template)?.container != nil
    }

    /// Whether this job's output is a GPU texture: the template as rendered with the job's values
    /// when its extension comes from a variant key (`"{variant}/{file}.{container}"`).
    static func writesTexture(_ p: PipelineSpec, _ values: [String: String]?) -> Bool {
        if isTextureTemplate(p.output) { return true }
        guard let values, case .success(let rendered) = Template.render(p.output, values) else { return false }
        return isTextureTemplate(rendered)
    }

    /// A stage making levels (`Stage.makesLevels`: mipmaps, prefilter) without `layout` in a pipeline
    /// writing `.ktx2`/`.dds`: the chain stays one texture (docs/stages.md: `layout`'s default
    /// depends on the output).
    static func withTextureLayout(_ s: StageSpec, _ p: PipelineSpec, _ values: [String: String]?) -> JSONObject {
        guard s.type.makesLevels, s.object["layout"] == nil,
            writesTexture(p, values)
        else { return s.object }
        var o = s.object
        o.insert("layout", .string("texture"))
        return o
    }

    /// Whether any string in the pipeline's stage parameters or settings could hold a `{name}`.
    static func hasPlaceholder(_ p: PipelineSpec) -> Bool {
        func scan(_ json: JSON) -> Bool {
            switch json {
            case .string(let s): return s.utf8.contains(UInt8(ascii: "{"))
            case .array(let a): return a.contains(where: scan)
            case .object(let o): return o.keys.contains { scan(o[$0]!) }
            case .null, .bool, .number: return false
            }
        }
        // An extension from a variant key decides per job whether mipmaps make one texture.
        let extensionVaries = PathText.pathExtension(p.output).contains("{") || p.output.hasSuffix("}")
        return extensionVaries || (p.stages.map(\.object) + [p.png, p.jpeg, p.texture]).contains { scan(.object($0)) }
    }

    /// An image resource whose stage names images through placeholders (`"{path}/{file%_ao}_rough.png"`).
    static func isTemplated(_ resource: Resource, _ spec: StageSpec) -> Bool {
        guard case .image = resource else { return false }
        func scan(_ json: JSON) -> Bool {
            switch json {
            case .string(let s): return Template.hasPlaceholders(s)
            case .array(let a): return a.contains(where: scan)
            case .object(let o): return o.keys.contains { scan(o[$0]!) }
            case .null, .bool, .number: return false
            }
        }
        return scan(.object(spec.object))
    }

    mutating func error(_ path: JSONPath?, _ message: String) {
        diagnostics.append(Diagnostic(file: manifest.file, path: path, message))
    }

    var unique: [Diagnostic] {
        var seen = Set<Diagnostic>()
        return diagnostics.filter { seen.insert($0).inserted }
    }

    mutating func add(_ p: PipelineSpec) {
        let base = manifest.directory
        var matches: [Glob.Match] = []
        var seen = Set<PathKey>()  // by bytes, as the glob keeps them
        // Whether every input glob matched something (before `exclude`), from the one walk.
        var everyInputMatched = true
        for (i, pattern) in p.inputs.enumerated() {
            let glob = Glob(pattern)
            if glob.tooManyAlternatives {
                error(p.path.key("inputs").index(i), PlanMessage.tooManyAlternatives)
                everyInputMatched = false
                continue
            }
            let found = glob.matches(in: base)
            if found.isEmpty {
                error(p.path.key("inputs").index(i), Say.emptyGlob(pattern))
                everyInputMatched = false
            }
            for m in found where seen.insert(PathKey(m.relativePath)).inserted { matches.append(m) }
        }
        let excludes = p.exclude.map(Glob.init)
        for (i, glob) in excludes.enumerated() where glob.tooManyAlternatives {
            error(p.path.key("exclude").index(i), PlanMessage.tooManyAlternatives)
        }
        matches.removeAll { m in excludes.contains { $0.matches(path: m.relativePath) } }
        if matches.isEmpty && !p.exclude.isEmpty && everyInputMatched {
            error(p.path.key("exclude"), PlanMessage.excludesEverything)
        }
        let only = onlyVariants
        let variants: [Variant?] = (p.variants.map { $0.map { Optional($0) } } ?? [nil]).filter { v in
            only.isEmpty || v.map { only.contains($0.name) } ?? false
        }
        if p.atlas != nil {
            for v in variants { addAtlas(p, matches, variant: v) }
            return
        }
        if p.array != nil || p.volume != nil {
            for v in variants { addArray(p, matches, variant: v) }
            return
        }
        if p.gltf != nil {
            for v in variants { addGLTF(p, matches, variant: v) }
            return
        }
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

    static let cores = ProcessInfo.processInfo.activeProcessorCount
    /// Below this many inputs a slice is not worth a thread.
    var inputsPerSlice = 2000

    mutating func addInput(_ p: PipelineSpec, _ m: Glob.Match, _ variants: [Variant?]) {
        let absolute = manifest.directory + "/" + m.relativePath
        inputsRealPaths.insert(PathKey(realFile(absolute, known: shapes)))
        if CubeLUT.isLUT(path: absolute) {
            for v in variants { addLUT(p, match: m, absolute: absolute, variant: v) }
            return
        }
        let header = try? self.header(absolute).get()
        for v in variants { addJob(p, match: m, absolute: absolute, header: header, variant: v) }
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
        var png: PNGSettings? = .standard
        var jpeg: JPEGSettings? = .standard
        var texture: TextureSettings? = .standard
        if let known = decoded[p.index] {
            // No placeholder anywhere in the pipeline's parameters: every job decodes the same.
            (stages, canonical, png, jpeg, texture) = (
                known.stages, known.canonical, known.png, known.jpeg, known.texture
            )
        } else {
            var lines: [String] = []
            if p.valid { (stages, lines) = Self.decodeStages(p.stages, p, &decoder) }
            let settings = Self.decodeSettings(p, &decoder)
            (png, jpeg, texture) = (settings.png, settings.jpeg, settings.texture)
            canonical = (lines + settings.canonical).joined(separator: "\n")
            if p.valid, decoder.diagnostics.isEmpty, let png, let jpeg, let texture, !PlanBuilder.hasPlaceholder(p) {
                decoded[p.index] = DecodedPipeline(
                    stages: stages, canonical: canonical, png: png, jpeg: jpeg, texture: texture)
            }
        }
        diagnostics += decoder.diagnostics
        guard decoder.diagnostics.isEmpty, let png, let jpeg, let texture else { return }

        // What the stages read besides the input: missing or broken files and fonts are manifest
        // errors, except an image named by a placeholder (this input's roughness map): that job's.
        var reads = [absolute]
        var jobFonts: [String: FontFace] = [:]
        var missing: (message: String, stage: String)?
        guard resolveReads(stages, p.stages, context, &reads, &jobFonts, missing: &missing) else { return }
        let start = Signature(
            width: header?.width, height: header?.height, depth: header?.depth ?? 8, alpha: p.inputAlpha)
        guard let chain = chains(stages, p.stages, from: start, context, check: p.valid) else { return }
        var (sized, failure, failureStage) = (chain.sized, chain.failure, chain.failureStage)
        if let missing {
            (failure, failureStage) = (missing.message, missing.stage)
            sized = chain.unsized
        }
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
                index: jobs.count, pipeline: p.name, input: absolute, inputDisplay: Planner.display(absolute),
                variant: variant?.name, stages: stages, outputs: outputs, template: p.output, placeholders: values,
                inputAlpha: p.inputAlpha, png: png, jpeg: jpeg, texture: texture, failure: failure,
                failureStage: failureStage,
                reads: reads, fonts: jobFonts, pixels: (header?.width ?? 0) * (header?.height ?? 0),
                id: [p.name, relativeInput, variant?.name ?? ""].joined(separator: "\u{0}"),
                parameters: parameters))
        jobs[jobs.count - 1].check = check.isEmpty ? nil : check
        jobs[jobs.count - 1].normalMap = Self.isNormalMap(stages, check)
        jobs[jobs.count - 1].budget = Self.budgetName(p, variant)
    }

    /// Whether a job's outputs are normal maps: a `mipmaps` stage with `normals: true`, or a
    /// `maxNormalError` gate, says so.
    static func isNormalMap(_ stages: [any Stage], _ check: CheckSettings?) -> Bool {
        check?.maxNormalError != nil || stages.contains { ($0 as? Mipmaps)?.normals == true }
    }

    /// Which total a job's outputs count toward: the pipeline's, or the pipeline's for this variant
    /// when the budget comes from a variant key (`"maxGPUBytes": "{gpuBudget}"`: a platform's own).
    static func budgetName(_ p: PipelineSpec, _ variant: Variant?) -> String {
        let perVariant = ["maxTotalBytes", "maxGPUBytes"].contains { key in
            if case .string(let s)? = p.check[key] { return Template.hasPlaceholders(s) }
            return false
        }
        guard perVariant, let variant else { return p.name }
        return "\(p.name) [\(variant.name)]"
    }

    /// The pipeline's `check` with this job's placeholder values; nil when it is wrong (reported).
    /// Gates are not part of the job's key: a changed budget reruns nothing.
    mutating func decodeCheck(_ p: PipelineSpec, _ values: [String: String], _ context: String) -> CheckSettings? {
        guard !p.check.keys.isEmpty else { return CheckSettings() }
        var decoder = self.decoder(values, context: context)
        let args = decoder.decode(p.check, at: p.path.key("check"), table: CheckSettings.parameters)
        diagnostics += decoder.diagnostics
        return args.map(CheckSettings.init)
    }

    /// A pipeline's stage specs decoded with the decoder's placeholders: the stages and their
    /// canonical text (part of the cache key). Problems go to the decoder.
    static func decodeStages(_ specs: [StageSpec], _ p: PipelineSpec, _ decoder: inout ParameterDecoder) -> (
        [any Stage], [String]
    ) {
        var stages: [any Stage] = []
        var canonical: [String] = []
        for s in specs {
            guard
                let args = decoder.decode(
                    PlanBuilder.withTextureLayout(s, p, decoder.placeholders), at: s.path, table: s.type.parameters,
                    ignoring: ["stage"])
            else {
                continue
            }
            canonical.append(s.type.name + args.canonical)
            do { stages.append(try s.type.init(args)) } catch { decoder.error(s.path, "\(error)") }
        }
        return (stages, canonical)
    }

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
                    if sig.lossless && out.format == .jpeg { out = out.asPNG() }
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
        switch out.format {
        case .png, .jpeg:
            return sig.isHDR ? (PlanMessage.hdrIntoLDR(out.format.name), p.path.key("output")) : nil
        case .exr, .radiance:
            return sig.isHDR ? nil : (PlanMessage.ldrIntoEXR(), p.path.key("output"))
        case .texture(let container):
            guard let texture, let problem = texture.problems(in: container, hdrImage: sig.isHDR).first else {
                return nil
            }
            return (problem.message, p.path.key("texture").key(problem.key))
        }
    }

    /// The pipeline's png / jpeg / texture settings with the decoder's placeholders (nil: invalid,
    /// the decoder says why) and their canonical text.
    static func decodeSettings(_ p: PipelineSpec, _ decoder: inout ParameterDecoder) -> (
        png: PNGSettings?, jpeg: JPEGSettings?, texture: TextureSettings?, canonical: [String]
    ) {
        var png: PNGSettings? = .standard
        let pngArgs = p.valid ? decoder.decode(p.png, at: p.path.key("png"), table: PNGSettings.parameters) : nil
        let jpegArgs = p.valid ? decoder.decode(p.jpeg, at: p.path.key("jpeg"), table: JPEGSettings.parameters) : nil
        if p.valid {
            do throws(SettingsProblems) { png = try pngArgs.map(PNGSettings.init) } catch {
                png = nil
                decoder.report(error, at: p.path.key("png"))
            }
        }
        let jpeg = p.valid ? jpegArgs.map(JPEGSettings.init) : .standard
        let textureArgs =
            p.valid ? decoder.decode(p.texture, at: p.path.key("texture"), table: TextureSettings.parameters) : nil
        var texture: TextureSettings? = .standard
        if p.valid {
            // The manifest checked these rules for values it could read; here, values from placeholders.
            do throws(SettingsProblems) { texture = try textureArgs.map(TextureSettings.init) } catch {
                texture = nil
                decoder.report(error, at: p.path.key("texture"))
            }
        }
        var canonical = [
            "png" + (pngArgs?.canonical ?? ""), "jpeg" + (jpegArgs?.canonical ?? ""),
            "inputAlpha " + p.inputAlpha.rawValue,
        ]
        // Only texture pipelines carry it, so other pipelines' keys are what they were.
        if PlanBuilder.writesTexture(p, decoder.placeholders) {
            canonical.append("texture" + (textureArgs?.canonical ?? ""))
        }
        return (png, jpeg, texture, canonical)
    }

    /// What the stages read besides the input, added to `reads` (each once) and `fonts`: a missing
    /// or broken file or font is a manifest error (false) — but an image whose path a placeholder
    /// made differs per job, and its absence is this job's failure (`missing`).
    mutating func resolveReads(
        _ stages: [any Stage], _ specs: [StageSpec], _ context: String, _ reads: inout [String],
        _ fonts: inout [String: FontFace], missing: inout (message: String, stage: String)?
    ) -> Bool {
        for (k, stage) in stages.enumerated() {
            for resource in stage.reads {
                switch resolve(resource) {
                case .failure(let problem) where missing == nil && Self.isTemplated(resource, specs[k]):
                    missing = (problem.message(stage: type(of: stage).name) + context, type(of: stage).name)
                case .failure where missing != nil && Self.isTemplated(resource, specs[k]):
                    continue
                case .failure(let problem):
                    self.error(specs[k].path, problem.message(stage: type(of: stage).name) + context)
                    return false
                case .success(let file):
                    if case .image(let path, let label, _, _) = resource,
                        case .success(let shape)? = headers[PathKey(path)], shape.depth == 32, !type(of: stage).takesHDR
                    {
                        let name = type(of: stage).name
                        self.error(specs[k].path, PlanMessage.hdrResource(name, label, Planner.display(path)) + context)
                        return false
                    }
                    if !reads.containsPath(file.path) { reads.append(file.path) }
                    if case .font(let spec, _, _) = resource, let face = file.font { fonts[spec] = face }
                }
            }
        }
        return true
    }

    /// The signature chain through the stages: without sizes (the alpha-state chain, the same for
    /// every input: a manifest error, nil) and with the input's size (a failure of this job only).
    mutating func chains(
        _ stages: [any Stage], _ specs: [StageSpec], from start: Signature, _ context: String, check: Bool
    ) -> (unsized: [Signature], sized: [Signature], failure: String?, failureStage: String?)? {
        var unsized = [Signature(width: nil, height: nil, depth: start.depth, alpha: start.alpha)]
        for (k, stage) in stages.enumerated() where check {
            do {
                unsized = try unsized.flatMap { try stage.plannedChecked($0) }
            } catch {
                self.error(specs[k].path, "\(type(of: stage).name): \(error)\(context)")
                return nil
            }
        }
        var failure: String?
        var failureStage: String?
        var sized = [start]
        for stage in stages {
            do {
                for sig in sized { try checkSizes(stage.reads, against: sig) }
                sized = try sized.flatMap { try stage.plannedChecked($0) }
            } catch {
                failure = "\(error)"
                failureStage = type(of: stage).name
                sized = unsized
                break
            }
        }
        return (unsized, sized, failure, failureStage)
    }
}
