internal import Foundation
internal import TexPipePixels

/// One manifest or plan problem: where (file and JSON path) and what. Collected, sorted
/// by path, printed one per line as `error: pipeline.json: pipelines[0].stages[1].radius: …`.
public struct Diagnostic: Sendable, Hashable, Comparable, CustomStringConvertible {
    public enum Severity: String, Sendable { case error, warning }

    public var file: String
    public var path: JSONPath?
    public var message: String
    public var severity: Severity

    public init(file: String, path: JSONPath?, _ message: String, severity: Severity = .error) {
        self.file = file
        self.path = path
        self.message = message
        self.severity = severity
    }

    /// One line, whatever the file name, keys or quoted values hold (`ValueText.oneLine`).
    public var description: String {
        ValueText.oneLine("\(severity.rawValue): \(file): " + (path.map { "\($0): " } ?? "") + message)
    }

    public static func < (l: Diagnostic, r: Diagnostic) -> Bool {
        if l.file != r.file { return l.file < r.file }
        switch (l.path, r.path) {
        case (nil, nil): return l.message < r.message
        case (nil, _): return true
        case (_, nil): return false
        case (let a?, let b?): return a == b ? l.message < r.message : a < b
        }
    }
}

/// Thrown when a manifest cannot be planned: every problem found, sorted. Exit status 2.
public struct ManifestError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]
    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics.sorted() }
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

/// The wording of every manifest diagnostic, in one place (STYLE 10).
public enum Say {
    /// "; did you mean \"x\"?" when a valid name is near, else nothing: the one place it is worded.
    static func suggestion(_ name: String, in valid: [String], quote: (String) -> String = { "\"\($0)\"" }) -> String {
        Suggest.nearest(name, in: valid).map { "; did you mean \(quote($0))?" } ?? ""
    }
    public static func unknownKey(_ key: String, valid: [String]) -> String {
        "unknown key \"\(key)\"" + suggestion(key, in: valid)
    }
    public static func unknownPipeline(_ name: String, valid: [String]) -> String {
        "no pipeline named \"\(name)\"" + suggestion(name, in: valid)
    }
    public static func unknownVariant(_ name: String, valid: [String]) -> String {
        guard !valid.isEmpty else { return "no variant named \"\(name)\": no pipeline here has variants" }
        let near = suggestion(name, in: valid)
        let list = valid.prefix(8).map { "\"\($0)\"" }.joined(separator: ", ") + (valid.count > 8 ? ", …" : "")
        return "no variant named \"\(name)\"" + (near.isEmpty ? "; the variants are " + list : near)
    }
    static func arrayPlaceholder(_ name: String, _ template: String) -> String {
        "an array's output \"\(template)\" names {\(name)}, which no single layer has; use {pipeline}, {variant} or variant keys"
    }
    static let arrayAndAtlas = "a pipeline is an array or an atlas, not both"
    static func arrayNeedsTexture(_ template: String) -> String {
        "an array is one texture: its output must end in .ktx2 or .dds, not \"\(template)\""
    }
    public static func missing(_ key: String, expected: String) -> String {
        "missing required key \"\(key)\" (\(expected))"
    }
    public static func expected(_ what: String, found: JSON) -> String {
        "expected \(what), found \(found.quoted)"
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

    public static func badColor(_ text: String) -> String {
        "malformed color \"\(text)\" (expected #RGB, #RRGGBB, #RRGGBBAA, rgb(r, g, b), rgba(r, g, b, a), hsv(h, s%, v%), hsl(h, s%, l%) or a CSS color name)"
    }
    public static func choice(_ options: [String], found: JSON) -> String {
        "expected one of " + options.map { "\"\($0)\"" }.joined(separator: ", ") + ", found \(found.quoted)"
    }
    public static func emptyGlob(_ pattern: String) -> String {
        "glob \"\(pattern)\" matches no file"
    }
    static func textureSettingsWithoutTexture(_ template: String) -> String {
        "texture settings apply to .ktx2 and .dds outputs; \"\(template)\" writes neither"
    }
    /// `allowed`: the containers' extensions, sorted.
    static func notInContainer(_ format: String, family: String, container: String, allowed: [String]) -> String {
        "\(format) is \(allowed.map { $0.uppercased() }.joined(separator: " or ")) only: \(container) cannot hold "
            + "\(family) (use a \(allowed.map { "." + $0 }.joined(separator: " or ")) template)"
    }
    static func supercompressionInDDS() -> String { "supercompression is KTX2 only: DDS files are not supercompressed" }
    static func rdoOneOf(_ given: [String]) -> String {
        given.isEmpty
            ? "expected \"lambda\" or \"maxLoss\" in rdo, found neither"
            : "expected one of \"lambda\" or \"maxLoss\" in rdo, found both"
    }

    static func srgbHDRFormat(_ format: String) -> String {
        "\(format) holds linear light (HDR): \"srgb\" does not apply (remove colorSpace or use \"linear\")"
    }
    static func srgbDataFormat(_ format: String) -> String {
        "\(format) is a data format, UNORM only: \"srgb\" does not apply (remove colorSpace or use \"linear\")"
    }
    static func atlasPlaceholder(_ name: String, _ template: String) -> String {
        "{\(name)} names one input, but an atlas job writes pages of all its sprites (in \"\(template)\"; "
            + "use {pipeline}, {page}, {suffix}, {variant} or a variant key)"
    }
    static let pageStagesWithoutAtlas = "\"pageStages\" run on an atlas's pages, but the pipeline has no \"atlas\""
    public static func pageTooSmall(_ w: Int, _ h: Int, needs: Int) -> String {
        "a \(w)×\(h) page cannot hold even a 1×1 sprite with its extrusion and border (\(needs)×\(needs) needed)"
    }
    public static let libGDXRotation =
        "libGDX stores rotated regions turned counter-clockwise, the JSON hash clockwise: one page cannot serve "
        + "both; with \"libgdx\" in \"data\", \"rotate\" must be false"
    public static func unresolved(_ name: String, in text: String, known: [String]) -> String {
        "unresolved placeholder {\(name)} in \"\(text)\"" + suggestion(name, in: known) { "{\($0)}" }
    }
}

/// Errors of the settings blocks' own cross-parameter checks.
public enum ManifestMessage: Error, Sendable, Equatable, CustomStringConvertible {
    case libpngLevel
    case wholePixels(String)

    public var description: String {
        switch self {
        case .libpngLevel: "the libpng encoder takes levels 0…9; 10…12 need \"encoder\": \"texpipe\""
        case .wholePixels(let key): "\(key) is in whole pixels"
        }
    }
}

/// The JSON parser's wording (manifests, variant tables): the words after "line L, column C:".
enum JSONMessage {
    static let trailingText = "unexpected text after the JSON value"
    static let endOfFile = "unexpected end of file"
    static let tooDeep = "nested too deeply"
    static let keyNotQuoted = "expected a key in double quotes"
    static let colonExpected = "expected ':' after the key"
    static let objectSeparator = "expected ',' or '}' in an object"
    static let arraySeparator = "expected ',' or ']' in an array"
    static let badUnicodeEscape = "invalid \\u escape"
    static let unterminatedString = "unterminated string"
    static let badSurrogate = "invalid surrogate pair"
    static let badEscape = "invalid escape in a string"
    static let controlCharacter = "control character in a string"
    static let badNumber = "invalid number"
    static func duplicateKey(_ key: String) -> String { "duplicate key \"\(key)\"" }
    static func badLiteral(_ word: String) -> String { "invalid literal (expected \(word))" }
    static func unexpected(_ byte: UInt8) -> String { "unexpected character '\(Character(Unicode.Scalar(byte)))'" }
}
