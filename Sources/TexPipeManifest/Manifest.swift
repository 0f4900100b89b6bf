internal import Foundation
internal import TexPipeAtlas
internal import TexPipeFormats
public import TexPipeParameters
public import TexPipePixels
public import TexPipeStages

/// `pipeline.json`, checked: every structural problem is collected with its JSON path.
/// Stage parameters that hold placeholders are type-checked per job by the planner. docs/manifest.md.
public struct Manifest: Sendable {
    /// The manifest path as the user gave it (used in messages).
    public var file: String
    /// Absolute folder of the manifest; every manifest path is relative to it.
    public var directory: String
    /// The output root as written (`build`) and resolved to an absolute path.
    public var output: String
    public var outputRoot: String
    public var pipelines: [PipelineSpec]
    /// Problems found while reading; the planner adds its own and reports them all at once.
    public var diagnostics: [Diagnostic] = []

    public static let builtinPlaceholders = [
        "path", "dir", "file", "ext", "pipeline", "variant", "suffix", "level", "face",
    ]
    /// What an atlas template may not name (no single input) and what only it may (docs/atlases.md).
    public static let perInputPlaceholders = ["path", "dir", "file", "ext"]
    static let topKeys = ["$schema", "version", "output", "pipelines"]
    static let pipelineKeys = [
        "name", "inputs", "exclude", "variants", "distinct", "stages", "output", "inputAlpha", "png", "jpeg",
        "texture", "atlas", "pageStages", "check", "array", "volume", "gltf",
    ]
    public static let defaultTemplate = "{pipeline}/{path}/{file}{suffix}.png"
    /// A gltf pipeline's: the model as a GLB.
    public static let defaultModelTemplate = "{pipeline}/{path}/{file}.glb"
    public static let defaultAtlasTemplate = "{pipeline}{page}{suffix}.png"
}

public struct PipelineSpec: Sendable {
    public var index: Int
    public var name: String
    public var path: JSONPath
    public var inputs: [String]
    public var exclude: [String]
    public var variants: [Variant]?
    public var stages: [StageSpec]
    public var output: String
    public var inputAlpha: AlphaState
    public var png: JSONObject
    public var jpeg: JSONObject
    public var texture: JSONObject
    /// The `check` gates, decoded per job (a budget may come from a variant: `"{budget}"`).
    public var check = JSONObject()
    /// False when a stage or setting failed its static check: the planner then still
    /// expands inputs and checks outputs, but builds no stages.
    public var valid: Bool
    /// False when the output template names an unknown placeholder (reported once).
    public var templateValid: Bool
    /// What the pipeline makes of its inputs; the planner switches over it.
    public var kind: PipelineKind

    /// The stages run on each atlas page (none for other kinds).
    public var pageStages: [StageSpec] {
        switch kind {
        case .atlas(let a): a.pageStages
        case .images, .array, .volume, .gltf: []
        }
    }
}

/// What a pipeline makes of its inputs (docs/manifest.md): one job per input, or one job of all of
/// them (an atlas, an array, a volume), or models with their textures.
public enum PipelineKind: Sendable {
    /// One job per input and variant: an image through the stages (a `.cube` LUT input is a
    /// volume by itself).
    case images
    /// The `atlas` object (docs/atlases.md): one job packing all its inputs into pages.
    case atlas(AtlasSpec)
    /// The `array` object (docs/gpu-textures.md "Texture arrays"): one job writing its inputs as
    /// the layers of one texture.
    case array(ArraySpec)
    /// The `volume` object (docs/gpu-textures.md "Volume textures"): one job writing its inputs as
    /// the depth slices of one 3D texture (`order` and `size` as `array`'s).
    case volume(ArraySpec)
    /// The `gltf` object (docs/gltf.md): the inputs are models, each texture processed by its role.
    case gltf(GLTFSpec)

    /// Whether the pipeline's one job takes all its inputs (an atlas, an array, a volume): its
    /// template names no single input.
    public var isGroup: Bool {
        switch self {
        case .atlas, .array, .volume: true
        case .images, .gltf: false
        }
    }
}

/// A pipeline's `atlas` object, as written (its values may hold placeholders, resolved per job), and
/// the stages run on each page.
public struct AtlasSpec: Sendable {
    public var object: JSONObject
    public var pageStages: [StageSpec]
}

public struct StageSpec: Sendable {
    public var type: any Stage.Type
    public var object: JSONObject
    public var path: JSONPath
}

/// One row of a pipeline's variants matrix: a safe `name` and placeholder values.
public struct Variant: Sendable {
    public var name: String
    public var values: [String: String]
}

extension Manifest {
    /// Reads and checks a manifest. Throws `ManifestError` only when there is nothing to
    /// plan (unreadable, not JSON); other problems are in `diagnostics`, so the planner can
    /// add its own and every error is reported in one run.
    public static func load(path: String) throws -> Manifest {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        guard let data = FileManager.default.contents(atPath: absolute) else {
            throw ManifestError([
                Diagnostic(file: path, path: nil, Say.unreadableManifest)
            ])
        }
        return try parse(Array(data), file: path, directory: (absolute as NSString).deletingLastPathComponent)
    }

    /// Checks a manifest given as bytes; `directory` resolves its relative paths.
    public static func parse(_ bytes: [UInt8], file: String, directory: String) throws -> Manifest {
        let json: JSON
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw ManifestError([Diagnostic(file: file, path: nil, Say.invalidJSON(error))])
        }
        var reader = ManifestReader(file: file, directory: directory)
        guard var manifest = reader.read(json) else { throw ManifestError(reader.diagnostics) }
        manifest.diagnostics = reader.diagnostics
        return manifest
    }
}

/// The structural pass over the manifest's JSON.
struct ManifestReader {
    var file: String
    var directory: String
    var diagnostics: [Diagnostic] = []

    mutating func error(_ path: JSONPath?, _ message: String, file: String? = nil) {
        diagnostics.append(Diagnostic(file: file ?? self.file, path: path, message))
    }

    mutating func object(_ v: JSON, at path: JSONPath, keys: [String]) -> JSONObject? {
        guard case .object(let o) = v else {
            error(path, Say.expected("an object", found: v))
            return nil
        }
        for k in o.keys where !keys.contains(k) { error(path.key(k), Say.unknownKey(k, valid: keys)) }
        return o
    }

    mutating func string(_ o: JSONObject, _ key: String, at path: JSONPath, required: Bool = true) -> String? {
        guard let v = o[key] else {
            if required { error(path, Say.missing(key, expected: "a string")) }
            return nil
        }
        guard case .string(let s) = v, !s.isEmpty else {
            error(path.key(key), Say.expected("a non-empty string", found: v))
            return nil
        }
        return s
    }

    mutating func strings(_ o: JSONObject, _ key: String, at path: JSONPath, required: Bool) -> [String]? {
        guard let v = o[key] else {
            if required { error(path, Say.missing(key, expected: "an array of glob strings")) }
            return required ? nil : []
        }
        guard case .array(let items) = v, !items.isEmpty || !required else {
            error(path.key(key), Say.expected("a non-empty array of glob strings", found: v))
            return nil
        }
        var out: [String] = []
        for (i, item) in items.enumerated() {
            guard case .string(let s) = item, !s.isEmpty else {
                error(path.key(key).index(i), Say.expected("a non-empty string", found: item))
                continue
            }
            out.append(s)
        }
        return out
    }

    mutating func read(_ json: JSON) -> Manifest? {
        let root = JSONPath.root
        guard let top = object(json, at: root, keys: Manifest.topKeys) else { return nil }
        switch top["version"] {
        case nil: error(root, Say.missing("version", expected: "1"))
        case .number(1)?: break
        case let v?: error(root.key("version"), Say.expected("1", found: v))
        }
        if let v = top["$schema"], case .string = v {
        } else if let v = top["$schema"] {
            error(root.key("$schema"), Say.expected("a string (the schema editors use)", found: v))
        }
        var output = "build"
        if top["output"] != nil, let o = string(top, "output", at: root) { output = o }
        let outputRoot = URL(fileURLWithPath: output, relativeTo: URL(fileURLWithPath: directory + "/"))
            .standardizedFileURL.path
        var pipelines: [PipelineSpec] = []
        switch top["pipelines"] {
        case nil:
            error(root, Say.missing("pipelines", expected: "a non-empty array of pipelines"))
        case .array(let items)? where !items.isEmpty:
            var names: [String: Int] = [:]
            for (i, item) in items.enumerated() {
                let path = root.key("pipelines").index(i)
                guard let p = pipeline(item, index: i, at: path) else { continue }
                if let first = names[p.name] {
                    error(path.key("name"), Say.duplicatePipeline(p.name, first: first))
                } else {
                    names[p.name] = i
                }
                pipelines.append(p)
            }
        case let v?:
            error(root.key("pipelines"), Say.expected("a non-empty array of pipelines", found: v))
        }
        return Manifest(
            file: file, directory: directory, output: output, outputRoot: outputRoot, pipelines: pipelines)
    }

    /// One pipeline, read in its steps: its name and inputs, its settings, its stages, its kind (an
    /// atlas, an array, a volume or models), then its output template's placeholders.
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
            stages: stages, output: template, inputAlpha: inputAlpha, png: settings.png, jpeg: settings.jpeg,
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

    /// The pipeline's png, jpeg, texture and check objects, each checked against its settings
    /// type's table (values holding a placeholder are checked per job by the planner).
    mutating func settings(_ o: JSONObject, template: String, known: [String], at path: JSONPath) -> (
        png: JSONObject, jpeg: JSONObject, texture: JSONObject, check: JSONObject
    ) {
        var out = (png: JSONObject(), jpeg: JSONObject(), texture: JSONObject(), check: JSONObject())
        for (key, table) in [
            ("png", PNGSettings.parameters), ("jpeg", JPEGSettings.parameters), ("texture", TextureSettings.parameters),
            ("check", CheckSettings.parameters),
        ] {
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
            case "png":
                out.png = obj
                do throws(SettingsProblems) { _ = try args.map(PNGSettings.init) } catch {
                    report(error, at: path.key(key))
                }
            case "jpeg": out.jpeg = obj
            case "check": out.check = obj
            default:
                out.texture = obj
                if o["gltf"] != nil {
                    error(path.key(key), Say.gltfTopTexture)
                } else {
                    textureChecks(obj, args, template: template, at: path.key(key))
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
    mutating func variantFactors(_ json: JSON, at path: JSONPath) -> [[Variant]]? {
        guard case .object(let o) = json else { return variants(json, at: path).map { [$0] } }
        for k in o.keys where k != "product" { error(path.key(k), Say.unknownKey(k, valid: ["product"])) }
        guard case .array(let lists)? = o["product"], !lists.isEmpty else {
            error(path, Say.expected("\"product\": a non-empty array of variant lists", found: o["product"] ?? json))
            return nil
        }
        var factors: [[Variant]] = []
        for (i, list) in lists.enumerated() {
            guard let f = variants(list, at: path.key("product").index(i)) else { return nil }
            factors.append(f)
        }
        return factors
    }

    /// Every combination of the factors' rows, first factor outermost.
    mutating func product(_ factors: [[Variant]], at path: JSONPath) -> [Variant]? {
        var rows: [Variant] = [Variant(name: "", values: [:])]
        for (i, factor) in factors.enumerated() {
            var next: [Variant] = []
            for row in rows {
                for v in factor {
                    var merged = row
                    merged.name = row.name.isEmpty ? v.name : row.name + "-" + v.name
                    for (k, value) in v.values where k != "variant" {
                        if row.values[k] != nil {
                            error(path.key("product").index(i), Say.keyInTwoLists(k))
                            return nil
                        }
                        merged.values[k] = value
                    }
                    merged.values["variant"] = merged.name
                    next.append(merged)
                }
            }
            rows = next
        }
        var seen = Set<String>()
        for v in rows where !seen.insert(v.name).inserted {
            error(path, Say.productNameTwice(v.name))
            return nil
        }
        return rows
    }

    /// A list of variants: an inline array of objects, or the path of a JSON file holding one.
    mutating func variants(_ json: JSON, at path: JSONPath) -> [Variant]? {
        var items: [JSON]
        var itemFile = file
        var itemPath = path
        switch json {
        case .array(let a):
            items = a
        case .string(let rel):
            let full = URL(fileURLWithPath: rel, relativeTo: URL(fileURLWithPath: directory + "/")).standardizedFileURL
                .path
            guard let data = FileManager.default.contents(atPath: full) else {
                error(path, Say.unreadableVariants(rel))
                return nil
            }
            do {
                guard case .array(let a) = try JSONParser.parse(Array(data)) else {
                    error(nil, Say.variantsNotArray, file: rel)
                    return nil
                }
                items = a
                itemFile = rel
                itemPath = .root
            } catch {
                self.error(nil, Say.invalidJSON(error), file: rel)
                return nil
            }
        default:
            error(path, Say.expected("an array of variants or the path of a JSON file", found: json))
            return nil
        }
        var out: [Variant] = []
        var seen: [String: Int] = [:]
        for (i, item) in items.enumerated() {
            let vp = itemPath.index(i)
            guard case .object(let o) = item else {
                error(vp, Say.expected("an object with a \"name\"", found: item), file: itemFile)
                continue
            }
            guard case .string(let name)? = o["name"] else {
                error(
                    vp,
                    o["name"] == nil
                        ? Say.missing("name", expected: "a string") : Say.expected("a string", found: o["name"]!),
                    file: itemFile)
                continue
            }
            if !Self.isSafeName(name) {
                error(
                    vp.key("name"),
                    Say.unsafeName("variant", name),
                    file: itemFile)
                continue
            }
            if let first = seen[name] {
                error(vp.key("name"), Say.duplicateVariant(name, first: first), file: itemFile)
                continue
            }
            seen[name] = i
            var values: [String: String] = ["variant": name]
            for key in o.keys where key != "name" {
                switch o[key]! {
                case .string(let s): values[key] = s
                case .number(let n): values[key] = JSON.format(n)
                case .bool(let b): values[key] = b ? "true" : "false"
                case let v: error(vp.key(key), Say.expected("a string, number or boolean", found: v), file: itemFile)
                }
                if Manifest.builtinPlaceholders.contains(key) {
                    error(
                        vp.key(key), Say.hidesBuiltin(key),
                        file: itemFile)
                }
            }
            out.append(Variant(name: name, values: values))
        }
        if items.isEmpty { error(path, Say.noVariants) }
        return out
    }

    static let distinctKeys = ["keys", "minDeltaE", "severity"]

    /// `distinct`: every pair of variants whose colors under `keys` are all closer than
    /// `minDeltaE` (CIEDE2000) is reported, as an error or a warning. A pair is told apart when
    /// any one key differs enough (a jersey with the same shirt but other shorts is distinct),
    /// so the pair's distance is its largest ΔE over the keys. With a `product`, the rows of the
    /// list that holds the keys are compared (two shirt numbers of one team are the same kit). docs/manifest.md.
    mutating func distinct(_ json: JSON, factors: [[Variant]]?, at path: JSONPath) {
        guard let o = object(json, at: path, keys: Self.distinctKeys) else { return }
        var keys: [String] = []
        switch o["keys"] {
        case .array(let items)?
        where !items.isEmpty && items.allSatisfy({ if case .string = $0 { true } else { false } }):
            keys = items.compactMap { if case .string(let s) = $0 { s } else { nil } }
        case nil: error(path, Say.missing("keys", expected: "an array of variant keys holding colors"))
        case let v?: error(path.key("keys"), Say.expected("a non-empty array of variant keys", found: v))
        }
        var minimum = 0.0
        switch o["minDeltaE"] {
        case .number(let d)? where d > 0 && d <= 200: minimum = d
        case nil: error(path, Say.missing("minDeltaE", expected: "a number in 0…200"))
        case let v?: error(path.key("minDeltaE"), Say.expected("a number in 0…200 (exclusive of 0)", found: v))
        }
        var severity = Diagnostic.Severity.error
        switch o["severity"] {
        case nil: break
        case .string("error")?: break
        case .string("warning")?: severity = .warning
        case let v?: error(path.key("severity"), Say.choice(["error", "warning"], found: v))
        }
        guard let factors else {
            error(path, Say.distinctWithoutVariants)
            return
        }
        guard !keys.isEmpty, minimum > 0 else { return }
        guard
            let variants = factors.first(where: { f in keys.allSatisfy { k in f.allSatisfy { $0.values[k] != nil } } })
        else {
            let missing = keys.first { k in !factors.contains { f in f.allSatisfy { $0.values[k] != nil } } }
            error(
                path.key("keys"),
                missing.map(Say.variantLacksKey) ?? Say.keysFromSeveralLists)
            return
        }
        var colors: [[Color]] = []
        for v in variants {
            var row: [Color] = []
            for k in keys {
                let text = v.values[k]!
                guard let c = Color(parsing: text) else {
                    error(path.key("keys"), "variant \"\(v.name)\" key \"\(k)\": " + Say.badColor(text))
                    return
                }
                row.append(c)
            }
            colors.append(row)
        }
        for i in variants.indices {
            for j in variants.indices where j > i {
                let distances = keys.indices.map { Lab.deltaE2000(colors[i][$0], colors[j][$0]) }
                guard let largest = distances.max(), largest < minimum else { continue }
                let detail = keys.indices.map {
                    (
                        key: keys[$0], a: variants[i].values[keys[$0]]!, b: variants[j].values[keys[$0]]!,
                        deltaE: distances[$0]
                    )
                }
                diagnostics.append(
                    Diagnostic(
                        file: file, path: path,
                        Say.tooAlike(variants[i].name, variants[j].name, detail, minimum: minimum),
                        severity: severity))
            }
        }
    }

    static func isSafeName(_ s: String) -> Bool {
        guard let f = s.first, f != "." else { return false }
        return s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
    }
}

/// A pipeline's `array` object: the layers' order and size (docs/gpu-textures.md "Texture arrays").
public struct ArraySpec: Sendable {
    /// Globs: inputs the first matches come first (in name order), then the second's…; inputs
    /// none matches last, in name order.
    public var order: [String] = []
    /// nil: every layer must have the first's size; else each layer is resized to it.
    public var size: (width: Int, height: Int)?
}
