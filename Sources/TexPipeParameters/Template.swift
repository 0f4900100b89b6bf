/// `{name}` placeholders in templates and string values. docs/manifest.md "Placeholders".
/// A name is a letter or `_` followed by letters, digits, `_` or `-`; any other brace is literal.
/// `{name%text}` is the value with a trailing `text` removed, as in the shell's `${name%text}`:
/// `{file%_diffuse}` names `rock` for the input `rock_diffuse.png`.
public enum Template {
    /// The placeholder names in `text`, in order.
    public static func names(in text: String) -> [String] {
        var out: [String] = []
        scan(text) { out.append($0) }
        return out
    }

    public static func hasPlaceholders(_ text: String) -> Bool { !names(in: text).isEmpty }

    /// `text` with every placeholder replaced, or the first name that has no value.
    public static func render(_ text: String, _ values: [String: String]) -> Result<String, Unresolved> {
        var out = ""
        var missing: String?
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "}"), let (name, strip) = parse(after[..<close]) {
                if let v = values[name] {
                    out += strip.isEmpty || !v.hasSuffix(strip) ? v : String(v.dropLast(strip.count))
                } else if missing == nil {
                    missing = name
                }
                rest = after[after.index(after: close)...]
            } else {
                out += "{"
                rest = after
            }
        }
        out += rest
        if let missing { return .failure(Unresolved(name: missing)) }
        return .success(out)
    }

    public struct Unresolved: Error, Sendable { public var name: String }

    /// A template split once into literal text and placeholders, for rendering it many times
    /// (an output template per job): the same result as `render(text, values)`.
    public struct Compiled: Sendable {
        enum Part: Sendable {
            case text(String)
            case name(String, strip: String)
        }
        let parts: [Part]

        public init(_ text: String) {
            var parts: [Part] = []
            var literal = ""
            var rest = Substring(text)
            while let open = rest.firstIndex(of: "{") {
                literal += rest[..<open]
                let after = rest[rest.index(after: open)...]
                if let close = after.firstIndex(of: "}"), let (name, strip) = Template.parse(after[..<close]) {
                    if !literal.isEmpty { parts.append(.text(literal)) }
                    literal = ""
                    parts.append(.name(name, strip: strip))
                    rest = after[after.index(after: close)...]
                } else {
                    literal += "{"
                    rest = after
                }
            }
            literal += rest
            if !literal.isEmpty { parts.append(.text(literal)) }
            self.parts = parts
        }

        public func render(_ values: [String: String]) -> Result<String, Unresolved> {
            var out = ""
            for part in parts {
                switch part {
                case .text(let t): out += t
                case .name(let name, let strip):
                    guard let v = values[name] else { return .failure(Unresolved(name: name)) }
                    out += strip.isEmpty || !v.hasSuffix(strip) ? v : String(v.dropLast(strip.count))
                }
            }
            return .success(out)
        }
    }

    static func scan(_ text: String, _ found: (String) -> Void) {
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "}"), let (name, _) = parse(after[..<close]) {
                found(name)
                rest = after[after.index(after: close)...]
            } else {
                rest = after
            }
        }
    }

    /// `name` or `name%suffix` → (name, suffix); nil when it is not a placeholder.
    static func parse(_ s: Substring) -> (String, String)? {
        let parts = s.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)
        guard isName(parts[0]) else { return nil }
        let strip = parts.count > 1 ? String(parts[1]) : ""
        if parts.count > 1 && (strip.isEmpty || strip.contains("{")) { return nil }
        return (String(parts[0]), strip)
    }

    static func isName(_ s: Substring) -> Bool {
        guard let f = s.first, f.isASCII, f.isLetter || f == "_" else { return false }
        return s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
    }
}
