public import TexPipeFormats
public import TexPipeParameters
internal import TexPipeStages

/// A pipeline's `gltf` object (docs/gltf.md): models in, each texture processed by its role.
public struct GLTFSpec: Sendable {
    /// Keep the original image (after the role's stages) as `source` beside the KTX2.
    public var fallback = false
    /// A material's metallicRoughness texture gets `mipmaps`' `roughnessFrom` from its normal
    /// texture (docs/gltf.md "Roughness from normals").
    public var roughnessFromNormals = true
    /// Every role's settings: its own key's, else its kind's, else the default.
    public var roles: [GLTFRole: RoleSpec] = [:]

    public struct RoleSpec: Sendable {
        /// What the role writes: a KTX2 (`etc1s`/`uastc` under `KHR_texture_basisu`) or the image
        /// re-encoded (PNG or JPEG as the core `source`, WebP or AVIF under its extension).
        public enum Output: String, Sendable, CaseIterable {
            case ktx2, png, jpeg, webp, avif

            /// The file kind of an image output (nil: the KTX2).
            public var imageKind: FileKind? {
                switch self {
                case .ktx2: nil
                case .png: .png
                case .jpeg: .jpeg
                case .webp: .webp
                case .avif: .avif
                }
            }
        }
        /// A web image beside a KTX2 (`fallback`), under `EXT_texture_webp` / `EXT_texture_avif`.
        public enum Fallback: String, Sendable, CaseIterable {
            case webp, avif

            public var kind: FileKind { self == .webp ? .webp : .avif }
        }
        public var stages: [StageSpec]
        /// The `texture` settings of a KTX2 output, with the kind's `colorSpace` when not given.
        public var texture: JSONObject
        public var output: Output
        public var fallback: Fallback?
        /// With a `fallback`: the core PNG/JPEG `source` kept too (neither extension required).
        public var keepSource = true
        /// A normal role's maps are DirectX-style: flipped to glTF's OpenGL convention first.
        public var flipY = false
        /// Where it was configured (`…gltf.roles.normal`), or the `gltf` object for a default.
        public var path: JSONPath

        /// Whether the role writes a file of `kind` (its output, or its fallback).
        public func writes(_ kind: FileKind) -> Bool { output.imageKind == kind || fallback?.kind == kind }
    }

    public static let keys = ["fallback", "roles", "roughnessFromNormals"]
    public static let roleKeys = ["stages", "texture", "output", "fallback", "keepSource", "flipY"]

    /// The defaults a web team would choose (docs/gltf.md "Defaults").
    static func defaultStages(_ kind: GLTFRole.Kind) -> String {
        switch kind {
        case .color: #"[{"stage": "mipmaps"}]"#
        case .normal: #"[{"stage": "mipmaps", "normals": true}]"#
        case .data: #"[{"stage": "mipmaps"}]"#
        }
    }

    static func defaultTexture(_ kind: GLTFRole.Kind) -> String {
        switch kind {
        case .color: #"{"format": "etc1s", "qlevel": \#(TextureSettings.defaultQLevel)}"#
        case .normal: #"{"format": "uastc", "rdo": {"maxLoss": 1}, "supercompression": "zstd"}"#
        case .data: #"{"format": "uastc", "supercompression": "zstd"}"#
        }
    }

    /// The colour space a kind's images are in: colour is sRGB, normal maps and data are linear.
    public static func colorSpace(_ kind: GLTFRole.Kind) -> String { kind == .color ? "srgb" : "linear" }
}

extension ManifestReader {
    /// The `gltf` object: `fallback`, and `roles` keyed by role or kind, each with `stages`,
    /// `texture` (etc1s or uastc) or `output` (`png`, `jpeg`); the template a `.glb` or `.gltf`.
    mutating func gltfChecks(_ json: JSON, template: String, known: [String], at path: JSONPath) -> GLTFSpec? {
        guard let o = object(json, at: path, keys: GLTFSpec.keys) else { return nil }
        var spec = GLTFSpec()
        switch o["fallback"] {
        case nil: break
        case .bool(let b)?: spec.fallback = b
        case let v?: error(path.key("fallback"), Say.expected("true or false", found: v))
        }
        switch o["roughnessFromNormals"] {
        case nil: break
        case .bool(let b)?: spec.roughnessFromNormals = b
        case let v?: error(path.key("roughnessFromNormals"), Say.expected("true or false", found: v))
        }
        let ext = template.split(separator: ".").last.map { $0.lowercased() } ?? ""
        if ext != "glb" && ext != "gltf" { error(path, Say.gltfNeedsModel(template)) }
        var given: [String: (JSONObject, JSONPath)] = [:]
        if let r = o["roles"] {
            let names = GLTFRole.allCases.map(\.rawValue) + GLTFRole.Kind.allCases.map(\.rawValue)
            if let roles = object(r, at: path.key("roles"), keys: names) {
                for key in roles.keys where names.contains(key) {
                    if let entry = object(roles[key]!, at: path.key("roles").key(key), keys: GLTFSpec.roleKeys) {
                        given[key] = (entry, path.key("roles").key(key))
                    }
                }
            }
        }
        // Each configured entry is checked once, then shared by the roles it covers.
        var checked: [String: GLTFSpec.RoleSpec] = [:]
        for (key, (entry, at)) in given.sorted(by: { $0.key < $1.key }) {
            let kind = GLTFRole(rawValue: key)?.kind ?? GLTFRole.Kind(rawValue: key)!
            checked[key] = roleSpec(entry, kind: kind, known: known, at: at)
        }
        for role in GLTFRole.allCases {
            if let s = checked[role.rawValue] ?? checked[role.kind.rawValue] {
                spec.roles[role] = s
            } else {
                spec.roles[role] = roleSpec(JSONObject(), kind: role.kind, known: known, at: path)
            }
        }
        return spec
    }

    /// One role's entry with the kind's defaults for what it does not give (`stages` and `texture`
    /// each replace the default whole) and the kind's colour space where a stage or the texture
    /// does not name one.
    mutating func roleSpec(_ entry: JSONObject, kind: GLTFRole.Kind, known: [String], at path: JSONPath)
        -> GLTFSpec.RoleSpec
    {
        var output = GLTFSpec.RoleSpec.Output.ktx2
        switch entry["output"] {
        case nil: break
        case .string(let s)? where GLTFSpec.RoleSpec.Output(rawValue: s) != nil: output = .init(rawValue: s)!
        case let v?: error(path.key("output"), Say.choice(GLTFSpec.RoleSpec.Output.allCases.map(\.rawValue), found: v))
        }
        var fallback: GLTFSpec.RoleSpec.Fallback?
        switch entry["fallback"] {
        case nil: break
        case .string(let s)? where GLTFSpec.RoleSpec.Fallback(rawValue: s) != nil:
            fallback = .init(rawValue: s)
            if output != .ktx2 { error(path.key("fallback"), Say.gltfFallbackWithImage(output.rawValue)) }
        case let v?:
            error(path.key("fallback"), Say.choice(GLTFSpec.RoleSpec.Fallback.allCases.map(\.rawValue), found: v))
        }
        var keepSource = true
        switch entry["keepSource"] {
        case nil: break
        case .bool(let b)?:
            keepSource = b
            if fallback == nil { error(path.key("keepSource"), Say.gltfKeepSourceWithoutFallback) }
        case let v?: error(path.key("keepSource"), Say.expected("true or false", found: v))
        }
        var flipY = false
        switch entry["flipY"] {
        case nil: break
        case .bool(let b)?:
            flipY = b
            if kind != .normal { error(path.key("flipY"), Say.gltfFlipYOnlyNormals) }
        case let v?: error(path.key("flipY"), Say.expected("true or false", found: v))
        }
        // An image output holds one image: no default mip chain for it.
        let stagesJSON =
            entry["stages"]
            ?? (output == .ktx2 ? try? JSONParser.parse(Array(GLTFSpec.defaultStages(kind).utf8)) : .array([]))
        var stages = self.stages(stagesJSON, at: path, known: known)
        let space = JSON.string(GLTFSpec.colorSpace(kind))
        for k in stages.indices where stages[k].object["colorSpace"] == nil {
            if stages[k].type.parameters.contains(where: { $0.name == "colorSpace" }) {
                stages[k].object.insert("colorSpace", space)
            }
        }
        var texture = JSONObject()
        if case .object(let t)? = entry["texture"] {
            texture = t
        } else if let t = entry["texture"] {
            error(path.key("texture"), Say.expected("an object", found: t))
        } else if case .object(let t)? = try? JSONParser.parse(Array(GLTFSpec.defaultTexture(kind).utf8)) {
            texture = t
        }
        if output != .ktx2 && entry["texture"] != nil {
            error(path.key("texture"), Say.gltfTextureWithPlainOutput(output.rawValue))
        }
        if texture["colorSpace"] == nil { texture.insert("colorSpace", space) }
        var decoder = ParameterDecoder(file: file, placeholders: nil, knownNames: known)
        if output == .ktx2,
            let args = decoder.decode(texture, at: path.key("texture"), table: TextureSettings.parameters)
        {
            do throws(SettingsProblems) {
                let settings = try TextureSettings(args)
                if let f = settings.searched.first(where: { !$0.info.codec.family.basisUniversal }) {
                    error(path.key("texture").key("format"), Say.gltfFormat(f.rawValue))
                } else {
                    report(SettingsProblems(settings.problems(in: .ktx2)), at: path.key("texture"))
                }
            } catch {
                report(error, at: path.key("texture"))
            }
        }
        diagnostics += decoder.diagnostics
        // A DirectX-style normal map is flipped to glTF's convention before anything else.
        if flipY {
            var adjust = JSONObject()
            adjust.insert("stage", .string(NormalAdjust.name))
            adjust.insert("flipY", .bool(true))
            stages = self.stages(.array([.object(adjust)]), at: path, known: known) + stages
        }
        return GLTFSpec.RoleSpec(
            stages: stages, texture: texture, output: output, fallback: fallback, keepSource: keepSource, flipY: flipY,
            path: path)
    }
}
