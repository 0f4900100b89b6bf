/// What a glTF material uses a texture for (docs/gltf.md "Roles"): its name, where a material
/// names it, and its kind, which decides the colour space and the defaults.
public enum GLTFRole: String, Sendable, CaseIterable, Hashable {
    case baseColor, emissive, sheenColor, specularColor
    case normal, clearcoatNormal
    case metallicRoughness, occlusion, clearcoat, clearcoatRoughness, sheenRoughness, specular, transmission
    case thickness, iridescence, iridescenceThickness, anisotropy

    /// Colour textures are sRGB; normal maps and data are linear.
    public enum Kind: String, Sendable, CaseIterable, Hashable {
        case color, normal, data
    }

    public var kind: Kind {
        switch self {
        case .baseColor, .emissive, .sheenColor, .specularColor: .color
        case .normal, .clearcoatNormal: .normal
        case .metallicRoughness, .occlusion, .clearcoat, .clearcoatRoughness, .sheenRoughness, .specular,
            .transmission, .thickness, .iridescence, .iridescenceThickness, .anisotropy:
            .data
        }
    }

    /// The keys from a material to this role's textureInfo (glTF 2.0 and the KHR_materials extensions).
    public var materialPath: [String] {
        switch self {
        case .baseColor: ["pbrMetallicRoughness", "baseColorTexture"]
        case .metallicRoughness: ["pbrMetallicRoughness", "metallicRoughnessTexture"]
        case .normal: ["normalTexture"]
        case .occlusion: ["occlusionTexture"]
        case .emissive: ["emissiveTexture"]
        case .clearcoat: ["extensions", "KHR_materials_clearcoat", "clearcoatTexture"]
        case .clearcoatRoughness: ["extensions", "KHR_materials_clearcoat", "clearcoatRoughnessTexture"]
        case .clearcoatNormal: ["extensions", "KHR_materials_clearcoat", "clearcoatNormalTexture"]
        case .sheenColor: ["extensions", "KHR_materials_sheen", "sheenColorTexture"]
        case .sheenRoughness: ["extensions", "KHR_materials_sheen", "sheenRoughnessTexture"]
        case .specular: ["extensions", "KHR_materials_specular", "specularTexture"]
        case .specularColor: ["extensions", "KHR_materials_specular", "specularColorTexture"]
        case .transmission: ["extensions", "KHR_materials_transmission", "transmissionTexture"]
        case .thickness: ["extensions", "KHR_materials_volume", "thicknessTexture"]
        case .iridescence: ["extensions", "KHR_materials_iridescence", "iridescenceTexture"]
        case .iridescenceThickness: ["extensions", "KHR_materials_iridescence", "iridescenceThicknessTexture"]
        case .anisotropy: ["extensions", "KHR_materials_anisotropy", "anisotropyTexture"]
        }
    }

    /// Of an image's roles of one kind, the one whose settings it takes: `metallicRoughness` for an
    /// ORM image (occlusion and metallicRoughness in one), else the first in declaration order.
    public static func governing(_ roles: some Collection<GLTFRole>) -> GLTFRole? {
        roles.contains(.metallicRoughness) ? .metallicRoughness : allCases.first { roles.contains($0) }
    }
}
