internal import Foundation
internal import TexPipeFormats
public import TexPipeParameters

/// Thrown when a manifest cannot be planned: every problem found, sorted. Exit status 2.
public struct ManifestError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]
    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics.sorted() }
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

/// The manifest's wording (STYLE 10).
extension Say {
    public static func unknownPipeline(_ name: String, valid: [String]) -> String {
        "no pipeline named \"\(name)\"" + suggestion(name, in: valid)
    }
    public static func unknownVariant(_ name: String, valid: [String]) -> String {
        guard !valid.isEmpty else { return "no variant named \"\(name)\": no pipeline here has variants" }
        let near = suggestion(name, in: valid)
        let list = valid.prefix(8).map { "\"\($0)\"" }.joined(separator: ", ") + (valid.count > 8 ? ", …" : "")
        return "no variant named \"\(name)\"" + (near.isEmpty ? "; the variants are " + list : near)
    }
    static func arrayPlaceholder(_ name: String, _ template: String, kind: String = "array") -> String {
        "\(kind == "array" ? "an array" : "a volume")'s output \"\(template)\" names {\(name)}, which no single "
            + "\(kind == "array" ? "layer" : "slice") has; use {pipeline}, {variant} or variant keys"
    }
    static func arrayAndAtlas(_ kind: String) -> String {
        "a pipeline is \(kind == "array" ? "an array" : "a volume") or an atlas, not both"
    }
    static let arrayAndVolume = "a pipeline is an array or a volume, not both"
    static func afterVolumeMipmaps(_ stage: String) -> String {
        "\(stage) after mipmaps in a volume: the stages before mipmaps run on each slice and mipmaps on the whole "
            + "volume, so it must be the last stage (move \(stage) before it)"
    }
    static func volumeMipmapsParameter(_ key: String) -> String {
        "a volume's mipmaps are a 2×2×2 box with levels, minSize and colorSpace: \"\(key)\" does not apply to it "
            + "(remove it)"
    }
    static func gltfNeedsModel(_ template: String) -> String {
        "a gltf pipeline writes models: its output must end in .glb or .gltf, not \"\(template)\""
    }
    static let gltfTopTexture =
        "a gltf pipeline's texture settings are per role: put them in gltf.roles (e.g. \"color\": {\"texture\": {…}})"
    static let gltfWithAtlasOrArray = "a gltf pipeline cannot also be an atlas, an array or a volume"
    static func gltfTextureWithPlainOutput(_ output: String) -> String {
        "\"output\": \"\(output)\" re-encodes the image in place; texture settings are for KTX2 (remove one of them)"
    }
    static func gltfFallbackWithImage(_ output: String) -> String {
        "a fallback goes beside a KTX2; \"output\": \"\(output)\" already writes an image (remove one of them)"
    }
    static let gltfFlipYOnlyNormals =
        "flipY turns a DirectX-style normal map into glTF's OpenGL convention: it belongs to a normal role (normal, clearcoatNormal)"
    static let gltfKeepSourceWithoutFallback =
        "keepSource says whether the PNG/JPEG source stays beside a \"fallback\"; this role has none"
    static func gltfFormat(_ format: String) -> String {
        let basis = TextureSettings.Format.allCases.filter(\.info.codec.family.basisUniversal).map(\.rawValue).sorted()
        return "glTF's KHR_texture_basisu takes \(basis.joined(separator: " or ")), not \(format) "
            + "(or say \"output\": \"png\", \"jpeg\", \"webp\" or \"avif\")"
    }
    static func arrayNeedsTexture(_ template: String, kind: String = "array") -> String {
        "\(kind == "array" ? "an array" : "a volume") is one texture: its output must end in .ktx2 or .dds, not \"\(template)\""
    }
    public static func unknownStage(_ name: String, valid: [String]) -> String {
        "unknown stage \"\(name)\"" + suggestion(name, in: valid)
    }
    public static let unreadableManifest = "cannot read the manifest (no such file or not readable)"
    public static func invalidJSON(_ error: any Error) -> String { "invalid JSON at \(error)" }
    public static func duplicatePipeline(_ name: String, first: Int) -> String {
        "duplicate pipeline name \"\(name)\" (also pipelines[\(first)])"
    }
    public static func unsafeName(_ what: String, _ name: String) -> String {
        "\(what) name \"\(name)\" must be a safe file-name component (letters, digits, '.', '_', '-'; not starting with '.')"
    }
    public static func keyInTwoLists(_ key: String) -> String {
        "variant key \"\(key)\" appears in two lists of the product"
    }
    public static func productNameTwice(_ name: String) -> String {
        "the product makes the variant name \"\(name)\" twice"
    }
    public static func unreadableVariants(_ file: String) -> String { "cannot read variants file \"\(file)\"" }
    public static let variantsNotArray = "expected an array of variant objects"
    public static func duplicateVariant(_ name: String, first: Int) -> String {
        "duplicate variant name \"\(name)\" (also [\(first)])"
    }
    public static func hidesBuiltin(_ key: String) -> String {
        "variant key \"\(key)\" would hide the built-in placeholder {\(key)}"
    }
    public static let noVariants = "expected at least one variant"
    public static let distinctWithoutVariants = "\"distinct\" compares variants, but the pipeline has no \"variants\""
    public static func variantLacksKey(_ key: String) -> String { "not every variant has the key \"\(key)\"" }
    public static let keysFromSeveralLists = "the keys must all come from one list of the product"
    /// Two variants closer than `minDeltaE` under every key: both names, both colors, each ΔE00.
    public static func tooAlike(
        _ a: String, _ b: String, _ detail: [(key: String, a: String, b: String, deltaE: Double)], minimum: Double
    ) -> String {
        "variants \"\(a)\" and \"\(b)\" are too alike: "
            + detail.map { "\($0.key) \($0.a) vs \($0.b) ΔE00 \(String(format: "%.1f", $0.deltaE))" }
            .joined(separator: ", ") + " (minDeltaE \(JSON.format(minimum)))"
    }

    public static func emptyGlob(_ pattern: String) -> String {
        "glob \"\(pattern)\" matches no file"
    }
    static func textureSettingsWithoutTexture(_ template: String) -> String {
        "texture settings apply to .ktx2 and .dds outputs; \"\(template)\" writes neither"
    }
    static func atlasPlaceholder(_ name: String, _ template: String) -> String {
        "{\(name)} names one input, but an atlas job writes pages of all its sprites (in \"\(template)\"; "
            + "use {pipeline}, {page}, {suffix}, {variant} or a variant key)"
    }
    static let pageStagesWithoutAtlas = "\"pageStages\" run on an atlas's pages, but the pipeline has no \"atlas\""
}
