/// `{name}` placeholders in templates and string values. SPEC §1 "Placeholders".
/// A name is a letter or `_` followed by letters, digits, `_` or `-`; any other brace is literal.
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
            if let close = after.firstIndex(of: "}"), isName(after[..<close]) {
                let name = String(after[..<close])
                if let v = values[name] {
                    out += v
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

    static func scan(_ text: String, _ found: (String) -> Void) {
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "}"), isName(after[..<close]) {
                found(String(after[..<close]))
                rest = after[after.index(after: close)...]
            } else {
                rest = after
            }
        }
    }

    static func isName(_ s: Substring) -> Bool {
        guard let f = s.first, f.isASCII, f.isLetter || f == "_" else { return false }
        return s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
    }
}
