internal import TexPipeAtlas
internal import TexPipeFormats
public import TexPipeParameters
internal import TexPipePixels
internal import TexPipeStages

/// The manifest's JSON Schema (draft 2020-12), made from the same tables that validate
/// manifests: every stage's parameter table (a `oneOf` keyed on `"stage"`), the `png`/`jpeg`/`webp`/`avif`
/// settings tables, and the manifest's own keys. `texpipe schema` prints it;
/// `docs/pipeline.schema.json` is the committed copy (a test keeps them equal). Editors use it
/// for completion and hover docs (`"$schema": "./docs/pipeline.schema.json"`). docs/manifest.md.
///
/// Where a value may come from a placeholder (`"radius": "{r}"`, `"color": "{shirt}"`), the
/// schema accepts any string holding one; its type is checked per job by `texpipe validate`.
public enum ManifestSchema {
    public static let id = "https://texpipe.invalid/pipeline.schema.json"

    /// The schema as a JSON value, keys in a fixed order.
    public static var json: JSON {
        var defs = JSONObject()
        defs.insert("color", colorSchema)
        defs.insert("placeholder", placeholderSchema)
        defs.insert("pipeline", pipelineSchema)
        defs.insert("stage", .object(object(["oneOf": .array(StageRegistry.all.map { ref("stage-" + $0.name) })])))
        for type in StageRegistry.all { defs.insert("stage-" + type.name, stageSchema(type)) }
        for t in ImageFileSettings.tables {
            defs.insert(t.key, tableSchema(t.parameters, doc: t.doc + " (docs/manifest.md)"))
        }
        defs.insert(
            "texture",
            tableSchema(TextureSettings.parameters, doc: "KTX2 / DDS texture settings (docs/gpu-textures.md)"))
        defs.insert(
            "check",
            tableSchema(
                CheckSettings.parameters, doc: "quality and size gates for CI (docs/gpu-textures.md#checks-and-budgets)"
            ))
        defs.insert(
            "atlas",
            tableSchema(
                AtlasSettings.parameters,
                doc: "packs the pipeline's inputs into pages with metadata: one job (docs/atlases.md)"))
        defs.insert("gltf", gltfSchema)
        defs.insert("variantList", variantListSchema)
        defs.insert("variants", variantsSchema)
        defs.insert("distinct", distinctSchema)
        return .object(
            object([
                "$schema": .string("https://json-schema.org/draft/2020-12/schema"),
                "$id": .string(id),
                "title": .string("texpipe manifest (pipeline.json)"),
                "description": .string(
                    "Folders of images and the stages to apply to them. `texpipe stages` documents every stage."),
                "type": .string("object"),
                "required": .array([.string("version"), .string("pipelines")]),
                "additionalProperties": .bool(false),
                "properties": .object(
                    object([
                        "$schema": .object(
                            object(["type": .string("string"), "description": .string("the schema editors use")])),
                        "version": .object(object(["const": .number(1), "description": .string("always 1")])),
                        "output": .object(
                            object([
                                "type": .string("string"), "minLength": .number(1), "default": .string("build"),
                                "description": .string("the output root, relative to the manifest's folder"),
                            ])),
                        "pipelines": .object(
                            object([
                                "type": .string("array"), "minItems": .number(1), "items": ref("pipeline"),
                                "description": .string("the pipelines; each names inputs, stages and outputs"),
                            ])),
                    ])),
                "$defs": .object(defs),
            ]))
    }

    /// The schema as text: two-space indents, one key per line, a final newline.
    public static var text: String { pretty(json) + "\n" }

    // MARK: - The parts

    static var pipelineSchema: JSON {
        .object(
            object([
                "type": .string("object"),
                "required": .array([.string("name"), .string("inputs")]),
                // Stages are required, except in an atlas (its sprites may be packed as they are).
                "anyOf": .array([
                    .object(object(["required": .array([.string("stages")])])),
                    .object(object(["required": .array([.string("atlas")])])),
                    .object(object(["required": .array([.string("gltf")])])),
                ]),
                "additionalProperties": .bool(false),
                "properties": .object(
                    object([
                        "name": .object(
                            object([
                                "type": .string("string"), "pattern": .string("^[A-Za-z0-9_-][A-Za-z0-9._-]*$"),
                                "description": .string("unique; letters, digits, '.', '_', '-', not starting with '.'"),
                            ])),
                        "inputs": globs("globs of input files, relative to the manifest", minItems: 1),
                        "exclude": globs("globs removed from the inputs", minItems: 0),
                        "variants": ref("variants"),
                        "distinct": ref("distinct"),
                        "stages": .object(
                            object([
                                "type": .string("array"), "items": ref("stage"),
                                "description": .string("applied in order"),
                            ])),
                        "output": .object(
                            object([
                                "type": .string("string"), "minLength": .number(1),
                                "default": .string(Manifest.defaultTemplate),
                                "description": .string(
                                    "file-name template under the output root; " + ImageFormat.extensionList),
                            ])),
                        "inputAlpha": .object(
                            object([
                                "enum": .array(AlphaState.allCases.map { .string($0.rawValue) }),
                                "default": .string(AlphaState.straight.rawValue),
                                "description": .string("what the input files hold"),
                            ])),
                        "png": ref("png"),
                        "jpeg": ref("jpeg"),
                        "webp": ref("webp"),
                        "avif": ref("avif"),
                        "texture": ref("texture"),
                        "check": ref("check"),
                        "array": layersSchema(
                            "the inputs as the layers of one texture (docs/gpu-textures.md#texture-arrays)", "layer"),
                        "volume": layersSchema(
                            "the inputs as the depth slices of one 3D texture (docs/gpu-textures.md#volume-textures)",
                            "slice"),
                        "atlas": ref("atlas"),
                        "gltf": ref("gltf"),
                        "pageStages": .object(
                            object([
                                "type": .string("array"), "items": ref("stage"),
                                "description": .string("applied in order to each atlas page (docs/atlases.md)"),
                            ])),
                    ])),
            ]))
    }

    /// The `gltf` object: `fallback`, and `roles` by role or kind (docs/gltf.md).
    static var gltfSchema: JSON {
        let role = JSON.object(
            object([
                "type": .string("object"), "additionalProperties": .bool(false),
                "description": .string("replaces the default's stages and texture settings as a whole"),
                "properties": .object(
                    object([
                        "stages": .object(
                            object([
                                "type": .string("array"), "items": ref("stage"),
                                "description": .string("applied in order to each texture of the role"),
                            ])),
                        "texture": ref("texture"),
                        "output": .object(
                            object([
                                "enum": .array(GLTFSpec.RoleSpec.Output.allCases.map { .string($0.rawValue) }),
                                "default": .string("ktx2"),
                                "description": .string(
                                    "ktx2 (etc1s or uastc under KHR_texture_basisu), or the image re-encoded as png or jpeg (the core source), webp or avif (under EXT_texture_webp / EXT_texture_avif)"
                                ),
                            ])),
                        "fallback": .object(
                            object([
                                "enum": .array(GLTFSpec.RoleSpec.Fallback.allCases.map { .string($0.rawValue) }),
                                "description": .string(
                                    "with a KTX2: level 0 also as a WebP or AVIF under its extension, so clients without KTX2 have one"
                                ),
                            ])),
                        "flipY": .object(
                            object([
                                "type": .string("boolean"), "default": .bool(false),
                                "description": .string(
                                    "a normal role's maps are DirectX-style: flipped to glTF's OpenGL convention first"),
                            ])),
                        "keepSource": .object(
                            object([
                                "type": .string("boolean"), "default": .bool(true),
                                "description": .string(
                                    "with a fallback: keep the PNG/JPEG core source too (no extension required); false drops it and requires both"
                                ),
                            ])),
                    ])),
            ]))
        var roles = JSONObject()
        for kind in GLTFRole.Kind.allCases { roles.insert(kind.rawValue, role) }
        for r in GLTFRole.allCases { roles.insert(r.rawValue, role) }
        return .object(
            object([
                "type": .string("object"), "additionalProperties": .bool(false),
                "description": .string(
                    "the inputs are glTF models; each texture processed by its role (docs/gltf.md); output .glb or .gltf"
                ),
                "properties": .object(
                    object([
                        "fallback": .object(
                            object([
                                "type": .string("boolean"), "default": .bool(false),
                                "description": .string(
                                    "keep the original image (after the role's stages) as the texture's source"),
                            ])),
                        "roughnessFromNormals": .object(
                            object([
                                "type": .string("boolean"), "default": .bool(true),
                                "description": .string(
                                    "a material's metallicRoughness texture gets mipmaps' roughnessFrom from its normal texture"
                                ),
                            ])),
                        "roles": .object(
                            object([
                                "type": .string("object"), "additionalProperties": .bool(false),
                                "description": .string(
                                    "per role, or per kind (color, normal, data); a role's key wins"),
                                "properties": .object(roles),
                            ])),
                    ])),
            ]))
    }

    static func globs(_ doc: String, minItems: Int) -> JSON {
        .object(
            object([
                "type": .string("array"), "minItems": .number(Double(minItems)),
                "items": .object(object(["type": .string("string"), "minLength": .number(1)])),
                "description": .string(doc),
            ]))
    }

    static func stageSchema(_ type: any Stage.Type) -> JSON {
        var properties = JSONObject()
        properties.insert(
            "stage", .object(object(["const": .string(type.name), "description": .string(type.summary)])))
        for p in type.parameters { properties.insert(p.name, parameterSchema(p)) }
        let required =
            ["stage"]
            + type.parameters.filter { if case .required = $0.requirement { true } else { false } }
            .map(\.name)
        return .object(
            object([
                "type": .string("object"),
                "description": .string(type.summary),
                "required": .array(required.map(JSON.string)),
                "additionalProperties": .bool(false),
                "properties": .object(properties),
            ]))
    }

    /// A settings block or nested object: its table's parameters, nothing else.
    static func tableSchema(_ table: [Parameter], doc: String? = nil) -> JSON {
        var properties = JSONObject()
        for p in table { properties.insert(p.name, parameterSchema(p)) }
        var o = object([
            "type": .string("object"),
            "additionalProperties": .bool(false),
            "properties": .object(properties),
        ])
        let required = table.filter { if case .required = $0.requirement { true } else { false } }.map(\.name)
        if !required.isEmpty { o.insert("required", .array(required.map(JSON.string))) }
        if let doc { o.insert("description", .string(doc)) }
        return .object(o)
    }

    /// One parameter: its kind's schema (or a placeholder string), its doc and its default.
    static func parameterSchema(_ p: Parameter) -> JSON {
        var o = JSONObject()
        switch p.kind {
        case .text, .object, .objects:
            if case .object(let kind) = kindSchema(p.kind) { o = kind }
        default:
            o.insert("anyOf", .array([kindSchema(p.kind), ref("placeholder")]))
        }
        o.insert("description", .string(p.doc + " (" + p.defaultDescription + ")"))
        if case .defaulted(let v) = p.requirement { o.insert("default", v.json) }
        return .object(o)
    }
    /// An `array` or `volume` object: `order` and `size`.
    static func layersSchema(_ description: String, _ item: String) -> JSON {
        .object(
            object([
                "type": .string("object"), "additionalProperties": .bool(false),
                "description": .string(
                    description),
                "properties": .object(
                    object([
                        "order": .object(
                            object([
                                "type": .string("array"),
                                "items": .object(object(["type": .string("string")])),
                                "description": .string(
                                    "globs: their inputs first, in turn; the rest in name order"),
                            ])),
                        "size": .object(
                            object([
                                "anyOf": .array([
                                    .object(object(["const": .string("first")])),
                                    .object(
                                        object([
                                            "type": .string("array"), "minItems": .number(2),
                                            "maxItems": .number(2),
                                            "items": kindSchema(.integer(1...16384)),
                                        ])),
                                ]),
                                "default": .string("first"),
                                "description": .string(
                                    "\"first\": every \(item) the first's size; [w, h]: each resized to it"
                                ),
                            ])),
                    ])),
            ]))
    }

    static func kindSchema(_ kind: Parameter.Kind) -> JSON {
        switch kind {
        case .integer(let r):
            return .object(
                range(
                    object(["type": .string("integer")]), Double(r.lowerBound),
                    upper: r.upperBound == .max ? nil : Double(r.upperBound)))
        case .number(let r):
            return .object(
                range(
                    object(["type": .string("number")]), r.lowerBound,
                    upper: r.upperBound == .greatestFiniteMagnitude ? nil : r.upperBound))
        case .boolean: return .object(object(["type": .string("boolean")]))
        case .choice(let options): return .object(object(["enum": .array(options.map(JSON.string))]))
        case .choices(let options):
            return .object(
                object([
                    "type": .string("array"), "minItems": .number(1), "uniqueItems": .bool(true),
                    "items": .object(object(["enum": .array(options.map(JSON.string))])),
                ]))
        case .choiceOrChoices(let options):
            return .object(object(["oneOf": .array([kindSchema(.choice(options)), kindSchema(.choices(options))])]))
        case .integerChoice(let options): return .object(object(["enum": .array(options.map { .number(Double($0)) })]))
        case .color: return ref("color")
        case .text: return .object(object(["type": .string("string")]))
        case .integers(let n, let r):
            return .object(
                object([
                    "type": .string("array"), "minItems": .number(Double(n)), "maxItems": .number(Double(n)),
                    "items": kindSchema(.integer(r)),
                ]))
        case .numberOrList(let n, let r):
            return .object(
                object([
                    "anyOf": .array([
                        kindSchema(.number(r)),
                        .object(
                            object([
                                "type": .string("array"), "minItems": .number(Double(n)),
                                "maxItems": .number(Double(n)),
                                "items": kindSchema(.number(r)),
                            ])),
                    ])
                ]))
        case .object(let table): return tableSchema(table)
        case .numberOrObject(let r, let table):
            return .object(object(["anyOf": .array([kindSchema(.number(r)), tableSchema(table)])]))
        case .objects(let table):
            return .object(object(["type": .string("array"), "minItems": .number(1), "items": tableSchema(table)]))
        }
    }

    static func range(_ base: JSONObject, _ lower: Double, upper: Double?) -> JSONObject {
        var o = base
        o.insert("minimum", .number(lower))
        if let upper { o.insert("maximum", .number(upper)) }
        return o
    }

    /// Any string holding a `{placeholder}`: resolved per job, then type-checked.
    static var placeholderSchema: JSON {
        .object(
            object([
                "type": .string("string"), "pattern": .string(#"\{[^{}]+\}"#),
                "description": .string("a placeholder such as \"{boost}\", resolved per job and variant"),
            ]))
    }

    /// #RGB, #RGBA, #RRGGBB, #RRGGBBAA, rgb()/rgba()/hsv()/hsb()/hsl(), `transparent`, a CSS
    /// name (any case, as the parser takes them), or a string holding a placeholder.
    static var colorSchema: JSON {
        func anyCase(_ word: String) -> String {
            word.map { c in c.isLetter ? "[\(c.uppercased())\(c.lowercased())]" : String(c) }.joined()
        }
        let names = (["transparent"] + CSSColorNames.all).map(anyCase).joined(separator: "|")
        let functions = ["rgba", "rgb", "hsv", "hsb", "hsl"].map(anyCase).joined(separator: "|")
        let pattern =
            #"^\s*(#([0-9A-Fa-f]{3,4}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})|("# + functions + #")\s*\([^()]*\)|"# + names
            + #")\s*$|\{[^{}]+\}"#
        return .object(
            object([
                "type": .string("string"), "pattern": .string(pattern),
                "description": .string(
                    "#RGB, #RRGGBB, #RRGGBBAA, rgb(r, g, b), rgba(r, g, b, a), hsv(h, s%, v%), hsl(h, s%, l%) or a CSS color name"
                ),
            ]))
    }

    static var variantListSchema: JSON {
        .object(
            object([
                "anyOf": .array([
                    .object(
                        object([
                            "type": .string("array"), "minItems": .number(1),
                            "items": .object(
                                object([
                                    "type": .string("object"), "required": .array([.string("name")]),
                                    "properties": .object(
                                        object([
                                            "name": .object(
                                                object([
                                                    "type": .string("string"),
                                                    "pattern": .string("^[A-Za-z0-9_-][A-Za-z0-9._-]*$"),
                                                ]))
                                        ])),
                                    "additionalProperties": .object(
                                        object([
                                            "type": .array([.string("string"), .string("number"), .string("boolean")])
                                        ]
                                        )),
                                ])),
                        ])),
                    .object(
                        object([
                            "type": .string("string"), "minLength": .number(1),
                            "description": .string("the path of a JSON file holding the list"),
                        ])),
                ])
            ]))
    }

    static var variantsSchema: JSON {
        .object(
            object([
                "description": .string(
                    "one job per input × variant: a list of {\"name\", keys…}, a JSON file holding one, or {\"product\": [lists]}"
                ),
                "anyOf": .array([
                    ref("variantList"),
                    .object(
                        object([
                            "type": .string("object"), "required": .array([.string("product")]),
                            "additionalProperties": .bool(false),
                            "properties": .object(
                                object([
                                    "product": .object(
                                        object([
                                            "type": .string("array"), "minItems": .number(1),
                                            "items": ref("variantList"),
                                        ]))
                                ])),
                        ])),
                ]),
            ]))
    }

    static var distinctSchema: JSON {
        .object(
            object([
                "type": .string("object"),
                "description": .string("variants whose colors under keys are closer than minDeltaE (CIEDE2000)"),
                "required": .array([.string("keys"), .string("minDeltaE")]),
                "additionalProperties": .bool(false),
                "properties": .object(
                    object([
                        "keys": .object(
                            object([
                                "type": .string("array"), "minItems": .number(1),
                                "items": .object(object(["type": .string("string")])),
                            ])),
                        "minDeltaE": .object(
                            object([
                                "type": .string("number"), "exclusiveMinimum": .number(0), "maximum": .number(200),
                            ])),
                        "severity": .object(
                            object([
                                "enum": .array([.string("error"), .string("warning")]), "default": .string("error"),
                            ])),
                    ])),
            ]))
    }

    // MARK: - Writing

    static func ref(_ name: String) -> JSON { .object(object(["$ref": .string("#/$defs/" + name)])) }

    static func object(_ pairs: KeyValuePairs<String, JSON>) -> JSONObject {
        var o = JSONObject()
        for (k, v) in pairs { o.insert(k, v) }
        return o
    }

    static func pretty(_ value: JSON, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case .object(let o):
            guard !o.keys.isEmpty else { return "{}" }
            return "{\n"
                + o.keys.map { inner + JSON.escape($0) + ": " + pretty(o[$0]!, indent: inner) }
                .joined(separator: ",\n") + "\n" + indent + "}"
        case .array(let items):
            guard !items.isEmpty else { return "[]" }
            if items.allSatisfy({ if case .object = $0 { false } else if case .array = $0 { false } else { true } }) {
                return "[" + items.map { pretty($0) }.joined(separator: ", ") + "]"
            }
            return "[\n" + items.map { inner + pretty($0, indent: inner) }.joined(separator: ",\n") + "\n" + indent
                + "]"
        case .string(let s): return JSON.escape(s)
        default: return value.quoted
        }
    }
}
