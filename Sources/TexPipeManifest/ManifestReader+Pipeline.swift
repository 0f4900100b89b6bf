internal import Foundation
internal import TexPipeAtlas
internal import TexPipeFormats
internal import TexPipeParameters
internal import TexPipePixels
internal import TexPipeStages

/// One pipeline's JSON, read in its steps, and the checks of what its kind and settings hold.
extension ManifestReader {
    mutating func pipeline(_ json: JSON, index: Int, at path: JSONPath) -> PipelineSpec? {
        guard let o = object(json, at: path, keys: Manifest.pipelineKeys) else { return nil }
        let given = string(o, "name", at: path)
        let name = given ?? "pipelines[\(index)]"
        if let given, !Self.isSafeName(given) {
            error(path.key("name"), Say.unsafeName("pipeline", name))
        }
        let inputs = strings(o, "inputs", at: path, required: true) ?? []
        let exclude = strings(o, "exclude", at: path, required: false) ?? []
        let template =
            o["output"] == nil ? Self.defaultTemplate(o) : (string(o, "output", at: path) ?? "")
        let inputAlpha = self.inputAlpha(o, at: path)
        let variants = self.variants(of: o, at: path)
        var known = Manifest.builtinPlaceholders
        for v in variants ?? [] { known += v.values.keys }
        let before = diagnostics.count  // from here on, problems make the stages unusable
        let settings = self.settings(o, template: template, known: known, at: path)
        // An atlas or a model pipeline may have no stages of its own (its sprites as they are, its
        // roles' stages).
        let stages =
            (o["atlas"] != nil || o["gltf"] != nil) && o["stages"] == nil
            ? [] : self.stages(o["stages"], at: path, known: known)
        let (kind, templateKnown) = self.kind(o, stages: stages, template: template, known: known, at: path)
        let valid = diagnostics.count == before
        let unknownNames = Template.names(in: template).filter {
            !templateKnown.contains($0) && !(kind.isGroup && Manifest.perInputPlaceholders.contains($0))
        }
        for name in unknownNames {
            error(path.key("output"), Say.unresolved(name, in: template, known: known))
        }
        var spec = PipelineSpec(
            index: index, name: name, path: path, inputs: inputs, exclude: exclude, variants: variants,
            stages: stages, output: template, inputAlpha: inputAlpha, files: settings.files,
            texture: settings.texture, valid: valid, templateValid: unknownNames.isEmpty, kind: kind)
        spec.check = settings.check
        return spec
    }

    /// The output template a pipeline without `output` gets: an atlas's pages, a model, or an image.
    static func defaultTemplate(_ o: JSONObject) -> String {
        if o["atlas"] != nil { return Manifest.defaultAtlasTemplate }
        if o["gltf"] != nil { return Manifest.defaultModelTemplate }
        return Manifest.defaultTemplate
    }

    /// `inputAlpha`: what the input files hold (straight by default).
    mutating func inputAlpha(_ o: JSONObject, at path: JSONPath) -> AlphaState {
        guard let v = o["inputAlpha"] else { return .straight }
        if case .string(let s) = v, let a = AlphaState(rawValue: s) { return a }
        error(path.key("inputAlpha"), Say.choice(AlphaState.allCases.map(\.rawValue), found: v))
        return .straight
    }

    /// The pipeline's variants (nil: it has none), and its `distinct` checked against them.
    mutating func variants(of o: JSONObject, at path: JSONPath) -> [Variant]? {
        let factors = o["variants"].flatMap { self.variantFactors($0, at: path.key("variants")) }
        // A broken variants list plans no jobs (its errors are reported) rather than jobs without variants.
        let variants =
            o["variants"] == nil ? nil : (factors.flatMap { self.product($0, at: path.key("variants")) } ?? [])
        // A "variants" that failed to load was reported already: "distinct" then says nothing of it.
        if let d = o["distinct"], factors != nil || o["variants"] == nil {
            distinct(d, factors: factors, at: path.key("distinct"))
        }
        return variants
    }

    /// The pipeline's image file settings (png, jpeg, webp, avif), texture and check objects, each
    /// checked against its settings type's table (values holding a placeholder are checked per job
    /// by the planner).
    mutating func settings(_ o: JSONObject, template: String, known: [String], at path: JSONPath) -> (
        files: [String: JSONObject], texture: JSONObject, check: JSONObject
    ) {
        var out = (files: [String: JSONObject](), texture: JSONObject(), check: JSONObject())
        let files = ImageFileSettings.tables.map { ($0.key, $0.parameters) }
        for (key, table) in files + [("texture", TextureSettings.parameters), ("check", CheckSettings.parameters)] {
            guard let v = o[key] else { continue }
            guard case .object(let obj) = v else {
                error(path.key(key), Say.expected("an object", found: v))
                continue
            }
            var decoder = ParameterDecoder(file: file, placeholders: nil, knownNames: known)
            // nil: wrong (the decoder said why) or holding a placeholder (the planner checks each job's).
            let args = decoder.decode(obj, at: path.key(key), table: table)
            diagnostics += decoder.diagnostics
            switch key {
            case "check": out.check = obj
            case "texture":
                out.texture = obj
                if o["gltf"] != nil {
                    error(path.key(key), Say.gltfTopTexture)
                } else {
                    textureChecks(obj, args, template: template, at: path.key(key))
                }
            default:
                out.files[key] = obj
                var probe = ImageFileSettings()
                if let args {
                    do throws(SettingsProblems) { try probe.set(key, args) } catch {
                        report(error, at: path.key(key))
                    }
                }
            }
        }
        return out
    }

    /// The pipeline's kind, from its `atlas`, `array`, `volume` or `gltf` object (at most one of
    /// them), checked; and the placeholders its output template may name.
    mutating func kind(
        _ o: JSONObject, stages: [StageSpec], template: String, known: [String], at path: JSONPath
    ) -> (PipelineKind, [String]) {
        // A group's template names no single input; an atlas's pages know their number.
        let groupKnown = known.filter { !Manifest.perInputPlaceholders.contains($0) }
        var kind = PipelineKind.images
        var templateKnown = known
        if let a = o["atlas"] {
            let object = atlasChecks(a, known: known, at: path.key("atlas"))
            let pageKnown = groupKnown + ["page"]
            let pageStages =
                o["pageStages"] == nil
                ? [] : self.stages(o["pageStages"], at: path, key: "pageStages", known: pageKnown)
            templateKnown = pageKnown
            for name in Template.names(in: template) where Manifest.perInputPlaceholders.contains(name) {
                error(path.key("output"), Say.atlasPlaceholder(name, template))
            }
            if let object { kind = .atlas(AtlasSpec(object: object, pageStages: pageStages)) }
        } else if o["pageStages"] != nil {
            error(path.key("pageStages"), Say.pageStagesWithoutAtlas)
        }
        var volume: ArraySpec?
        for key in ["array", "volume"] {
            guard let a = o[key] else { continue }
            if key == "volume" && o["array"] != nil {
                error(path.key("volume"), Say.arrayAndVolume)
                continue
            }
            let spec = arrayChecks(a, template: template, atlas: o["atlas"] != nil, kind: key, at: path.key(key))
            if key == "volume" { volume = spec }
            if let spec, case .images = kind { kind = key == "array" ? .array(spec) : .volume(spec) }
            templateKnown = groupKnown
            for name in Template.names(in: template) where Manifest.perInputPlaceholders.contains(name) {
                error(path.key("output"), Say.arrayPlaceholder(name, template, kind: key))
            }
        }
        if volume != nil { volumeStageChecks(stages, at: path) }
        if let g = o["gltf"] {
            let spec = gltfChecks(g, template: template, known: known, at: path.key("gltf"))
            if o["atlas"] != nil || o["array"] != nil || o["volume"] != nil {
                error(path.key("gltf"), Say.gltfWithAtlasOrArray)
            }
            if let spec, case .images = kind { kind = .gltf(spec) }
        }
        return (kind, templateKnown)
    }

    /// The `atlas` object: its table, the sprite-name template, a page that holds a padded 1×1,
    /// and libGDX without rotation. Values holding a placeholder are checked per job.

    mutating func atlasChecks(_ json: JSON, known: [String], at path: JSONPath) -> JSONObject? {
        guard case .object(var o) = json else {
            error(path, Say.expected("an object", found: json))
            return nil
        }
        var name = AtlasSettings.standard.name
        if o["name"] != nil {
            guard let n = string(o, "name", at: path) else { return nil }
            name = n
            for p in Template.names(in: n) where !known.contains(p) {
                error(path.key("name"), Say.unresolved(p, in: n, known: known))
            }
        }
        let full = o
        o.remove("name")
        var decoder = ParameterDecoder(file: file, placeholders: nil, knownNames: known)
        let args = decoder.decode(o, at: path, table: AtlasSettings.parameters.filter { $0.name != "name" })
        diagnostics += decoder.diagnostics
        guard let args else { return full }
        do throws(SettingsProblems) { _ = try AtlasSettings(args, name: name) } catch { report(error, at: path) }
        return full
    }

    /// The `array` (or `volume`) object: `order` (globs), `size` (`"first"` or `[w, h]`), a texture
    /// template.
    mutating func arrayChecks(_ json: JSON, template: String, atlas: Bool, kind: String, at path: JSONPath)
        -> ArraySpec?
    {
        guard case .object(let o) = json else {
            error(path, Say.expected("an object", found: json))
            return nil
        }
        var spec = ArraySpec()
        for key in o.keys where key != "order" && key != "size" {
            error(path.key(key), Say.unknownKey(key, valid: ["order", "size"]))
        }
        if atlas { error(path, Say.arrayAndAtlas(kind)) }
        if let order = o["order"] {
            guard case .array(let items) = order,
                let globs = Optional(items.compactMap { if case .string(let s) = $0 { s } else { nil } }),
                globs.count == items.count
            else {
                error(path.key("order"), Say.expected("an array of globs", found: order))
                return nil
            }
            spec.order = globs
        }
        switch o["size"] {
        case nil, .string("first")?: break
        case .array(let items)? where items.count == 2:
            let sides = items.compactMap { item -> Int? in
                if case .number(let d) = item, d == d.rounded(), d >= 1, d <= 16384 { return Int(d) }
                return nil
            }
            guard sides.count == 2 else {
                error(path.key("size"), Say.expected("\"first\" or [width, height] in 1…16384", found: o["size"]!))
                return nil
            }
            spec.size = (sides[0], sides[1])
        case let other?:
            error(path.key("size"), Say.expected("\"first\" or [width, height] in 1…16384", found: other))
            return nil
        }
        let name = template.split(separator: "/").last.map(String.init) ?? template
        let ext = name.contains(".") ? String(name[name.index(after: name.lastIndex(of: ".")!)...]).lowercased() : ""
        if !ext.contains("{"), ext != "ktx2", ext != "dds" {
            error(path, Say.arrayNeedsTexture(template, kind: kind))
        }
        return spec
    }

    /// A volume's stages: those before the stage that makes its chain (`mipmaps`) run on each
    /// slice and that stage on the assembled volume, so nothing may follow it; its chain is a 2×2×2
    /// box, so it may have only the parameters its type lets a volume have (`volumeParameters`).
    mutating func volumeStageChecks(_ stages: [StageSpec], at path: JSONPath) {
        guard let k = stages.firstIndex(where: { $0.type.volumeParameters != nil }),
            let allowed = stages[k].type.volumeParameters
        else { return }
        if k + 1 < stages.count { error(stages[k + 1].path, Say.afterVolumeMipmaps(stages[k + 1].type.name)) }
        for key in stages[k].object.keys.sorted() {
            guard let want = allowed[key] else {
                error(stages[k].path.key(key), Say.volumeMipmapsParameter(key))
                continue
            }
            if let want, stages[k].object[key] != want {
                error(stages[k].path.key(key), Say.volumeMipmapsParameter(key))
            }
        }
    }

    /// The `texture` settings' own rules (`TextureSettings.init`) and, when the template names
    /// its container, the container's (`problems(in:)`). Settings holding a placeholder, or a
    /// template whose extension comes from one, are checked per job by the planner.
    mutating func textureChecks(_ texture: JSONObject, _ args: Arguments?, template: String, at path: JSONPath) {
        guard !texture.keys.isEmpty else { return }
        let name = template.split(separator: "/").last.map(String.init) ?? template
        var container: TextureContainer?
        // An extension from a variant key (`{file}.{container}`): the planner checks each job's.
        let fromPlaceholder =
            name.lastIndex(of: ".").map { name[$0...].contains("{") || name.hasSuffix("}") }
            ?? name.hasSuffix("}")
        if !fromPlaceholder {
            guard let c = ImageFormat(path: template)?.container else {
                error(path, Say.textureSettingsWithoutTexture(template))
                return
            }
            container = c
        }
        guard let args else { return }
        do throws(SettingsProblems) {
            let settings = try TextureSettings(args)
            report(SettingsProblems(settings.problems(in: container)), at: path)
        } catch {
            report(error, at: path)
        }
    }

    /// A settings type's broken rules, each at its parameter's path.
    mutating func report(_ problems: SettingsProblems, at path: JSONPath) {
        for p in problems.all { error(p.key.isEmpty ? path : path.key(p.key), p.message) }
    }

    mutating func stages(_ json: JSON?, at path: JSONPath, key: String = "stages", known: [String]) -> [StageSpec] {
        guard let json else {
            error(path, Say.missing(key, expected: "an array of stages"))
            return []
        }
        guard case .array(let items) = json else {
            error(path.key(key), Say.expected("an array of stages", found: json))
            return []
        }
        var out: [StageSpec] = []
        for (i, item) in items.enumerated() {
            let sp = path.key(key).index(i)
            guard case .object(let o) = item else {
                error(sp, Say.expected("an object with a \"stage\" key", found: item))
                continue
            }
            guard case .string(let name)? = o["stage"] else {
                error(
                    sp,
                    o["stage"] == nil
                        ? Say.missing("stage", expected: "a stage name")
                        : Say.expected("a stage name", found: o["stage"]!))
                continue
            }
            guard let type = StageRegistry.named(name) else {
                error(sp.key("stage"), Say.unknownStage(name, valid: StageRegistry.names))
                continue
            }
            var decoder = ParameterDecoder(file: file, placeholders: nil, knownNames: known, baseDirectory: directory)
            if let args = decoder.decode(o, at: sp, table: type.parameters, ignoring: ["stage"]) {
                do { _ = try type.init(args) } catch { decoder.error(sp, "\(error)") }
            }
            diagnostics += decoder.diagnostics
            out.append(StageSpec(type: type, object: o, path: sp))
        }
        return out
    }

    /// `variants`: a list (below), or `{"product": [list, list, …]}` — every combination, one row
    /// of each list, named by the rows' names joined with "-" (`lions-10`), keys merged. A team
    /// table times a list of shirt numbers is the jersey case.
}
