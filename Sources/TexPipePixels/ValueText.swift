/// How parameter values are written as text — in `texpipe stages`, messages and the canonical
/// form that goes into cache keys — the same way the manifest's JSON writes them.
public enum ValueText {
    /// Integers without a fraction, others in Swift's shortest round-trip form.
    public static func number(_ n: Double) -> String {
        if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
        return String(n)
    }

    /// A message as one line of at most about `most` characters, whatever the user's text in it
    /// holds: control characters written as JSON writes them (a file or glob with a newline in
    /// its name stays on its line), and a line longer than `most` cut in its middle, which says
    /// how much it left out (a 60 KB glob is quoted by its ends). Errors and warnings are printed
    /// through it.
    public static func oneLine(_ s: String, most: Int = 1_000) -> String {
        // Nearly every line (one per job on stdout): printable ASCII and short, returned as it is.
        if s.utf8.count <= most && s.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            if let e = controlEscape(u) {
                out.append(contentsOf: e.unicodeScalars)
            } else if (0x7F...0x9F).contains(u.value) || u.value == 0x2028 || u.value == 0x2029 {
                // DEL, the C1 controls (NEL among them) and the Unicode line and paragraph
                // separators: what some terminals and editors take as a line break.
                out.append(contentsOf: escaped(u).unicodeScalars)
            } else {
                out.append(u)
            }
        }
        let count = out.count
        guard count > most else { return String(out) }
        let (head, tail) = (most * 2 / 3, most / 3)
        return String(out.prefix(head)) + "…[\(count - head - tail) characters]…" + String(out.suffix(tail))
    }

    /// A control character (below U+0020) as a JSON string writes it, or nil.
    static func controlEscape(_ u: Unicode.Scalar) -> String? {
        switch u {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        case _ where u.value < 0x20: return escaped(u)
        default: return nil
        }
    }

    /// `\u` and four hex digits (for a scalar below U+10000).
    static func escaped(_ u: Unicode.Scalar) -> String {
        let hex = String(u.value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    public static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where u.value < 0x20: out += controlEscape(u)!
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}
