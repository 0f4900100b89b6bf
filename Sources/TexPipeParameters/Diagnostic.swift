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

/// The wording of every diagnostic, in one place (STYLE 10): what decoding a parameter table says here,
/// what the manifest and the planner say in their own `extension Say`.
public enum Say {
    /// "; did you mean \"x\"?" when a valid name is near, else nothing: the one place it is worded.
    package static func suggestion(_ name: String, in valid: [String], quote: (String) -> String = { "\"\($0)\"" })
        -> String
    {
        Suggest.nearest(name, in: valid).map { "; did you mean \(quote($0))?" } ?? ""
    }
    public static func unknownKey(_ key: String, valid: [String]) -> String {
        "unknown key \"\(key)\"" + suggestion(key, in: valid)
    }
    public static func missing(_ key: String, expected: String) -> String {
        "missing required key \"\(key)\" (\(expected))"
    }
    public static func expected(_ what: String, found: JSON) -> String {
        "expected \(what), found \(found.quoted)"
    }
    public static func badColor(_ text: String) -> String {
        "malformed color \"\(text)\" (expected #RGB, #RRGGBB, #RRGGBBAA, rgb(r, g, b), rgba(r, g, b, a), hsv(h, s%, v%), hsl(h, s%, l%) or a CSS color name)"
    }
    public static func choice(_ options: [String], found: JSON) -> String {
        "expected one of " + options.map { "\"\($0)\"" }.joined(separator: ", ") + ", found \(found.quoted)"
    }
    public static func unresolved(_ name: String, in text: String, known: [String]) -> String {
        "unresolved placeholder {\(name)} in \"\(text)\"" + suggestion(name, in: known) { "{\($0)}" }
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
