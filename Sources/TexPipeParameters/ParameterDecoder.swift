internal import TexPipePixels

/// Decodes a JSON object against a parameter table: unknown keys (with "did you mean"),
/// types, ranges, defaults, and `{placeholder}` strings resolved per job. docs/manifest.md.
public struct ParameterDecoder {
    public var file: String
    /// nil in the static pass: placeholder strings are checked for known names only,
    /// their type is checked per job once the values are known.
    public var placeholders: [String: String]?
    /// Names that may appear in placeholders at all (static pass).
    public var knownNames: [String]
    /// Appended to per-job messages, e.g. ` (variant "reds")`.
    public var context: String = ""
    /// The manifest's folder, handed to the stages for their file parameters.
    public var baseDirectory = "."
    public var diagnostics: [Diagnostic] = []

    public init(
        file: String, placeholders: [String: String]?, knownNames: [String], context: String = "",
        baseDirectory: String = "."
    ) {
        self.baseDirectory = baseDirectory
        self.file = file
        self.placeholders = placeholders
        self.knownNames = knownNames
        self.context = context
    }

    package mutating func error(_ path: JSONPath, _ message: String) {
        diagnostics.append(Diagnostic(file: file, path: path, message + context))
    }

    /// A settings type's broken rules, each at its parameter's path under `path`.
    package mutating func report(_ problems: SettingsProblems, at path: JSONPath) {
        for p in problems.all { error(p.key.isEmpty ? path : path.key(p.key), p.message) }
    }

    /// Decodes `object`; nil when anything is wrong (diagnostics say what) or when a
    /// placeholder value is still pending (static pass).
    public mutating func decode(
        _ object: JSONObject, at path: JSONPath, table: [Parameter], ignoring: Set<String> = []
    ) -> Arguments? {
        var ok = true
        var pending = false
        let names = table.map(\.name)
        for key in object.keys where !ignoring.contains(key) && !names.contains(key) {
            error(path.key(key), Say.unknownKey(key, valid: names))
            ok = false
        }
        var values: [String: ParameterValue] = [:]
        for p in table {
            guard let raw = object[p.name] else {
                switch p.requirement {
                case .required:
                    error(path, Say.missing(p.name, expected: p.expected))
                    ok = false
                case .defaulted(let v): values[p.name] = v
                case .optional: break
                }
                continue
            }
            switch resolve(raw, at: path.key(p.name), kind: p.kind) {
            case .value(let v): values[p.name] = v
            case .pending: pending = true
            case .invalid: ok = false
            }
        }
        let given = Set(object.keys.filter { values[$0] != nil })
        return ok && !pending ? Arguments(values, baseDirectory: baseDirectory, given: given) : nil
    }

    enum Outcome {
        case value(ParameterValue)
        case pending
        case invalid
    }

    mutating func resolve(_ raw: JSON, at path: JSONPath, kind: Parameter.Kind) -> Outcome {
        if case .numberOrObject(_, let table) = kind, case .object = raw {
            return resolve(raw, at: path, kind: .object(table))
        }
        if case .object(let table) = kind, case .object(let object) = raw {
            let before = diagnostics.count
            if let nested = decode(object, at: path, table: table) { return .value(.object(nested.values)) }
            return diagnostics.count == before ? .pending : .invalid
        }
        if case .objects(let table) = kind {
            guard case .array(let items) = raw, !items.isEmpty else {
                error(path, Say.expected("a non-empty array of objects", found: raw))
                return .invalid
            }
            var out: [ParameterValue] = []
            var outcome = Outcome.value(.list([]))
            for (i, item) in items.enumerated() {
                switch resolve(item, at: path.index(i), kind: .object(table)) {
                case .value(let v): out.append(v)
                case .pending: if case .value = outcome { outcome = .pending }
                case .invalid: outcome = .invalid
                }
            }
            if case .value = outcome { return .value(.list(out)) }
            return outcome
        }
        var value = raw
        var fromPlaceholder: String?
        if case .string(let s) = raw, Template.hasPlaceholders(s) {
            guard let placeholders else {
                for name in Template.names(in: s) where !knownNames.contains(name) {
                    error(path, Say.unresolved(name, in: s, known: knownNames))
                    return .invalid
                }
                return .pending
            }
            switch Template.render(s, placeholders) {
            case .failure(let u):
                error(path, Say.unresolved(u.name, in: s, known: Array(placeholders.keys).sorted()))
                return .invalid
            case .success(let text):
                fromPlaceholder = s
                value = ParameterDecoder.reinterpret(text, as: kind)
            }
        }
        if let v = check(value, kind) { return .value(v) }
        var message = expectation(kind, found: value)
        if let fromPlaceholder { message += " (from \"\(fromPlaceholder)\")" }
        error(path, message)
        return .invalid
    }

    /// A placeholder's text read as the JSON the parameter expects ("12" → 12).
    static func reinterpret(_ text: String, as kind: Parameter.Kind) -> JSON {
        switch kind {
        case .integer, .number, .integerChoice, .numberOrList, .numberOrObject:
            if let d = Double(text), d.isFinite { return .number(d) }
        case .boolean:
            if text == "true" { return .bool(true) }
            if text == "false" { return .bool(false) }
        case .choiceOrChoices:
            // "etc1s,uastc": a list (a variant's value is text).
            if text.contains(",") {
                return .array(text.split(separator: ",", omittingEmptySubsequences: false).map { .string(String($0)) })
            }
        default: break
        }
        return .string(text)
    }

    func expectation(_ kind: Parameter.Kind, found: JSON) -> String {
        switch kind {
        case .choice(let options): return Say.choice(options, found: found)
        case .choiceOrChoices(let options):
            if case .string = found { return Say.choice(options, found: found) }
            return Say.expected(Parameter("", kind, .required, doc: "").expected, found: found)
        case .color:
            if case .string(let s) = found { return Say.badColor(s) }
            return Say.expected("a color string", found: found)
        default:
            return Say.expected(Parameter("", kind, .required, doc: "").expected, found: found)
        }
    }

    package func check(_ v: JSON, _ kind: Parameter.Kind) -> ParameterValue? {
        switch (kind, v) {
        case (.integer(let r), .number(let d)):
            guard d == d.rounded(), abs(d) < 1e15, r.contains(Int(d)) else { return nil }
            return .integer(Int(d))
        case (.number(let r), .number(let d)):
            return r.contains(d) ? .number(d) : nil
        case (.integerChoice(let options), .number(let d)):
            guard d == d.rounded(), abs(d) < 1e15, options.contains(Int(d)) else { return nil }
            return .integer(Int(d))
        case (.boolean, .bool(let b)):
            return .boolean(b)
        case (.choice(let options), .string(let s)), (.choiceOrChoices(let options), .string(let s)):
            return options.contains(s) ? .text(s) : nil
        case (.choiceOrChoices(let options), .array):
            return check(v, .choices(options))
        case (.color, .string(let s)):
            return Color(parsing: s).map { .color($0) }
        case (.text, .string(let s)):
            return .text(s)
        case (.choices(let options), .array(let items)):
            var out: [String] = []
            for item in items {
                guard case .string(let s) = item, options.contains(s), !out.contains(s) else { return nil }
                out.append(s)
            }
            return out.isEmpty ? nil : .list(out.map(ParameterValue.text))
        case (.numberOrObject(let r, _), .number(let d)):
            return r.contains(d) ? .number(d) : nil
        case (.numberOrList(let n, let r), .number(let d)):
            return r.contains(d) ? .numbers(Array(repeating: d, count: n)) : nil
        case (.numberOrList(let n, let r), .array(let items)):
            guard items.count == n else { return nil }
            var out: [Double] = []
            for item in items {
                guard case .number(let d) = item, r.contains(d) else { return nil }
                out.append(d)
            }
            return .numbers(out)
        case (.integers(let n, let r), .array(let items)):
            guard items.count == n else { return nil }
            var out: [Int] = []
            for item in items {
                guard case .integer(let i)? = check(item, .integer(r)) else { return nil }
                out.append(i)
            }
            return .integers(out)
        default:
            return nil
        }
    }
}
