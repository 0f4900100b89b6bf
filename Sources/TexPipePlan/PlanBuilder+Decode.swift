internal import Foundation
internal import TexPipeFormats
internal import TexPipeManifest
internal import TexPipeParameters
internal import TexPipePixels
internal import TexPipeStages

/// What every kind's planner does with a pipeline's parameters: decode its stages, settings and
/// gates with a job's placeholder values, resolve what the stages read, and follow the images'
/// signatures through the stages (docs/ARCHITECTURE.md "TexPipePlan").
extension PlanBuilder {
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
        return extensionVaries
            || (p.stages.map(\.object) + Array(p.files.values) + [p.texture]).contains { scan(.object($0)) }
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

    /// Whether a job's outputs are normal maps: a stage that makes one (`mipmaps` with
    /// `normals: true`), or a `maxNormalError` gate, says so.
    static func isNormalMap(_ stages: [any Stage], _ check: CheckSettings?, _ texture: TextureSettings?) -> Bool {
        check?.maxNormalError != nil || texture?.target?.gates.maxNormalError != nil
            || stages.contains(where: \.makesNormalMap)
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
    /// The pipeline's image file settings (png, jpeg, webp, avif) and texture settings with the
    /// decoder's placeholders (nil: invalid, the decoder says why) and their canonical text.
    static func decodeSettings(_ p: PipelineSpec, _ decoder: inout ParameterDecoder) -> (
        files: ImageFileSettings?, texture: TextureSettings?, canonical: [String]
    ) {
        var files: ImageFileSettings? = ImageFileSettings()
        var lines: [String: String] = [:]
        for table in ImageFileSettings.tables {
            guard p.valid else { break }
            let at = p.path.key(table.key)
            guard let args = decoder.decode(p.files[table.key] ?? JSONObject(), at: at, table: table.parameters) else {
                files = nil
                lines[table.key] = table.key
                continue
            }
            do throws(SettingsProblems) { try files?.set(table.key, args) } catch {
                files = nil
                decoder.report(error, at: at)
            }
            lines[table.key] = table.key + args.canonical
        }
        if !p.valid { lines = ["png": "png", "jpeg": "jpeg"] }
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
        // PNG's and JPEG's lines are in every job's key; another image kind's only where the
        // pipeline may write it, so other pipelines' keys are what they were.
        var canonical = [lines["png"] ?? "png", lines["jpeg"] ?? "jpeg", "inputAlpha " + p.inputAlpha.rawValue]
        for table in ImageFileSettings.tables where table.key != "png" && table.key != "jpeg" {
            if p.files[table.key] != nil || mayWrite(table.kind, p, decoder.placeholders) {
                canonical.append(lines[table.key] ?? table.key)
            }
        }
        // Only texture pipelines carry it, so other pipelines' keys are what they were.
        if PlanBuilder.writesTexture(p, decoder.placeholders) {
            canonical.append("texture" + (textureArgs?.canonical ?? ""))
        }
        return (files, texture, canonical)
    }

    /// Whether the pipeline may write a file of `kind`: its output template's extension (rendered
    /// with `values` when it has placeholders), or a model role's output or fallback.
    static func mayWrite(_ kind: FileKind, _ p: PipelineSpec, _ values: [String: String]?) -> Bool {
        if case .gltf(let spec) = p.kind { return spec.roles.values.contains { $0.writes(kind) } }
        if FileKind(path: p.output) == kind { return true }
        guard let values, case .success(let rendered) = Template.render(p.output, values) else { return false }
        return FileKind(path: rendered) == kind
    }
    /// What the stages read besides the input, added to `reads` (each once) and `fonts`: a missing
    /// or broken file or font is a manifest error (false) — but an image whose path a placeholder
    /// made differs per job, and its absence is this job's failure (`missing`).
    mutating func resolveReads(
        _ stages: [any Stage], _ specs: [StageSpec], _ context: String, _ reads: inout JobReads,
        missing: inout PlannedFailure?
    ) -> Bool {
        for (k, stage) in stages.enumerated() {
            for resource in stage.reads {
                switch resolve(resource) {
                case .failure(let problem) where missing == nil && Self.isTemplated(resource, specs[k]):
                    missing = PlannedFailure(
                        problem.message(stage: type(of: stage).name) + context, stage: type(of: stage).name)
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
                    if !reads.files.containsPath(file.path) { reads.files.append(file.path) }
                    if case .font(let spec, _, _) = resource, let face = file.font { reads.fonts[spec] = face }
                }
            }
        }
        return true
    }

    /// The signature chain through the stages: without sizes (the alpha-state chain, the same for
    /// every input: a manifest error, nil) and with the input's size (a failure of this job only).
    mutating func chains(
        _ stages: [any Stage], _ specs: [StageSpec], from start: Signature, _ context: String, check: Bool
    ) -> (unsized: [Signature], sized: [Signature], failure: PlannedFailure?)? {
        var unsized = [Signature(width: nil, height: nil, depth: start.depth, alpha: start.alpha)]
        for (k, stage) in stages.enumerated() where check {
            do {
                unsized = try unsized.flatMap { try stage.plannedChecked($0) }
            } catch {
                self.error(specs[k].path, "\(type(of: stage).name): \(error)\(context)")
                return nil
            }
        }
        var failure: PlannedFailure?
        var sized = [start]
        for stage in stages {
            do {
                for sig in sized { try checkSizes(stage.reads, against: sig) }
                sized = try sized.flatMap { try stage.plannedChecked($0) }
            } catch {
                failure = PlannedFailure("\(error)", stage: type(of: stage).name)
                sized = unsized
                break
            }
        }
        return (unsized, sized, failure)
    }
}
