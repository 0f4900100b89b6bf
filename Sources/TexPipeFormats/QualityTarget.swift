public import TexPipeParameters
internal import TexPipePixels

/// A quality target (`texture.target`, `jpeg.target`, `webp.target`, `avif.target`;
/// docs/gpu-textures.md "Quality targets"): the `check` gates turned into the goal. texpipe
/// chooses, per output, the setting that gives the smallest output meeting every measure given,
/// each measured exactly as its gate measures it (every level, face and layer).
public struct QualityTarget: Sendable, Hashable {
    /// What "smallest" counts: the file after supercompression, or what the texture occupies in
    /// GPU memory (every level, face and layer).
    public enum Minimize: String, Sendable, CaseIterable {
        case bytes
        case gpuBytes
    }

    /// The measures, as gates: only `minPSNR`, `minSSIM`, `maxFLIP` and `maxNormalError` are set.
    public var gates: CheckSettings
    public var minimize: Minimize
    /// The target as given, compact JSON with its keys sorted (`{"minSSIM":0.95}`): the
    /// `texpipe.target` record's `target`.
    public var given: String

    public init(gates: CheckSettings, minimize: Minimize = .bytes, given: String? = nil) {
        var g = CheckSettings(minPSNR: gates.minPSNR)
        g.minSSIM = gates.minSSIM
        g.maxFLIP = gates.maxFLIP
        g.maxNormalError = gates.maxNormalError
        self.gates = g
        self.minimize = minimize
        self.given = given ?? Self.json(g, minimize)
    }

    /// The measures a target may name: the quality gates of `check`, declared there once.
    public static let measureNames = ["minSSIM", "maxFLIP", "minPSNR", "maxNormalError"]

    public static let parameters: [Parameter] =
        CheckSettings.parameters.filter { measureNames.contains($0.name) }.map {
            Parameter($0.name, $0.kind, .optional(absentDoc: "not a measure of the target"), doc: $0.doc)
        } + [
            .choice(
                "minimize", Minimize.self, default: .bytes,
                doc: "bytes: the file after supercompression; gpuBytes: what the texture occupies in GPU memory")
        ]

    /// The target a `target` object asks for; at least one measure, and `maxNormalError` with a
    /// limit, or the rule it breaks.
    public init(_ a: Arguments) throws(SettingsProblems) {
        var check = CheckSettings(minPSNR: a.optionalNumber("minPSNR"))
        check.minSSIM = a.optionalNumber("minSSIM")
        check.maxFLIP = a.optionalNumber("maxFLIP")
        check.maxNormalError = a.object("maxNormalError").map { ($0.optionalNumber("mean"), $0.optionalNumber("p99")) }
        self.init(gates: check, minimize: a.choice("minimize", as: Minimize.self))
        if !check.measures {
            throw SettingsProblems([
                SettingsProblem(
                    "",
                    "a target needs at least one of \(Self.measureNames.map { "\"\($0)\"" }.joined(separator: ", "))")
            ])
        }
        if let n = check.maxNormalError, n.mean == nil && n.p99 == nil {
            throw SettingsProblems([
                SettingsProblem("maxNormalError", "maxNormalError needs \"mean\" or \"p99\"")
            ])
        }
    }

    /// Compact JSON, keys sorted, numbers as the manifest would write them.
    static func json(_ g: CheckSettings, _ minimize: Minimize) -> String {
        var fields: [(String, String)] = []
        if let v = g.maxFLIP { fields.append(("maxFLIP", ValueText.number(v))) }
        if let n = g.maxNormalError {
            var inner: [String] = []
            if let m = n.mean { inner.append("\"mean\":" + ValueText.number(m)) }
            if let p = n.p99 { inner.append("\"p99\":" + ValueText.number(p)) }
            fields.append(("maxNormalError", "{" + inner.joined(separator: ",") + "}"))
        }
        if let v = g.minPSNR { fields.append(("minPSNR", ValueText.number(v))) }
        if let v = g.minSSIM { fields.append(("minSSIM", ValueText.number(v))) }
        if minimize != .bytes { fields.append(("minimize", "\"" + minimize.rawValue + "\"")) }
        return "{" + fields.sorted { $0.0 < $1.0 }.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// The target in words, for messages: "minSSIM 0.95, maxFLIP 0.05".
    public var words: String {
        var parts: [String] = []
        if let v = gates.minSSIM { parts.append("minSSIM " + ValueText.number(v)) }
        if let v = gates.maxFLIP { parts.append("maxFLIP " + ValueText.number(v)) }
        if let v = gates.minPSNR { parts.append("minPSNR " + ValueText.number(v) + " dB") }
        if let n = gates.maxNormalError {
            if let m = n.mean { parts.append("maxNormalError.mean " + ValueText.number(m) + "°") }
            if let p = n.p99 { parts.append("maxNormalError.p99 " + ValueText.number(p) + "°") }
        }
        return parts.joined(separator: ", ")
    }

    /// Whether the measures need SSIM or FLIP.
    public var perceptual: Bool { gates.minSSIM != nil || gates.maxFLIP != nil }

    /// A target beside the knob it would choose (`qlevel`, `rdo`, a JPEG `quality`): the manifest
    /// error naming both.
    public static func knobGiven(_ knob: String, chooses what: String) -> SettingsProblem {
        SettingsProblem(knob, "\(knob) and target: the target chooses \(what) (remove \(knob) or target)")
    }

    /// A target with nothing to choose: the manifest error saying why.
    public static func nothingToChoose(_ why: String) -> SettingsProblem {
        SettingsProblem("target", "target has nothing to choose: \(why)")
    }
}

/// What a target chose for one output, beside its format: the knob under its manifest name
/// (`qlevel`, `lambda`, `block`, `quality`) and its value; nil knob: only the format was chosen.
/// Recorded in the job's cache entry and in the reports; `met` is false when no setting met the
/// target and the best-measuring candidate was written.
public struct TargetChoice: Sendable, Hashable, Codable {
    public var knob: String?
    public var value: String?

    public init(knob: String?, value: String?) {
        (self.knob, self.value) = knob == nil ? (nil, nil) : (knob, value)
    }

    /// `qlevel=96`, or `-` when only the format was chosen: one field without spaces, for the
    /// index and the remote entry.
    public var token: String { knob.map { "\($0)=\(value ?? "")" } ?? "-" }

    /// A token read back; nil when it is malformed.
    public init?(token: Substring) {
        if token == "-" {
            self.init(knob: nil, value: nil)
            return
        }
        let parts = token.split(separator: "=", omittingEmptySubsequences: false)
        guard parts.count == 2, ["qlevel", "lambda", "block", "quality"].contains(String(parts[0])),
            !parts[1].isEmpty, parts[1].count <= 16,
            parts[1].allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "x") })
        else { return nil }
        self.init(knob: String(parts[0]), value: String(parts[1]))
    }

    /// "qlevel 96", or "" when only the format was chosen.
    public var words: String { knob.map { "\($0) \(value ?? "")" } ?? "" }
}
