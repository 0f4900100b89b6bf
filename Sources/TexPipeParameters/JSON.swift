internal import TexPipePixels

/// A JSON value with object keys in document order, so diagnostics and canonical
/// forms are deterministic. Parsed by a small strict RFC 8259 parser that reports
/// line and column (Foundation's decoder loses key order and positions).
public indirect enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object(JSONObject)

    /// What a diagnostic calls this value: `"abc"`, `12`, `an array`.
    public var quoted: String {
        switch self {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let n): JSON.format(n)
        case .string(let s): "\"\(s)\""
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Integers without a fraction, others in Swift's shortest round-trip form.
    public static func format(_ n: Double) -> String { ValueText.number(n) }

    /// Canonical text: keys sorted, no spaces; the same value always gives the same bytes.
    public var canonical: String {
        switch self {
        case .null, .bool, .number: return quoted
        case .string(let s): return JSON.escape(s)
        case .array(let a): return "[" + a.map(\.canonical).joined(separator: ",") + "]"
        case .object(let o):
            return "{"
                + o.keys.sorted().map { JSON.escape($0) + ":" + o[$0]!.canonical }.joined(separator: ",")
                + "}"
        }
    }

    package static func escape(_ s: String) -> String { ValueText.quoted(s) }

    /// The value as JSON text with object keys in document order: compact, or with `indent` spaces
    /// per level (what a model's `.gltf` is written as). Numbers in their shortest round-trip form.
    public func written(indent: Int? = nil) -> String {
        var out = ""
        write(into: &out, indent: indent, level: 0)
        return out
    }

    private func write(into out: inout String, indent: Int?, level: Int) {
        func newline(_ level: Int) {
            guard let indent else { return }
            out += "\n" + String(repeating: " ", count: indent * level)
        }
        switch self {
        case .null, .bool, .number: out += quoted
        case .string(let s): out += JSON.escape(s)
        case .array(let a):
            guard !a.isEmpty else { return out += "[]" }
            // Arrays of numbers (matrices, factors) stay on one line.
            let flat = a.allSatisfy { if case .number = $0 { true } else { false } }
            out += "["
            for (k, v) in a.enumerated() {
                if k > 0 { out += indent != nil && flat ? ", " : "," }
                if !flat { newline(level + 1) }
                v.write(into: &out, indent: indent, level: level + 1)
            }
            if !flat { newline(level) }
            out += "]"
        case .object(let o):
            guard !o.keys.isEmpty else { return out += "{}" }
            out += "{"
            for (k, key) in o.keys.enumerated() {
                if k > 0 { out += "," }
                newline(level + 1)
                out += JSON.escape(key) + (indent == nil ? ":" : ": ")
                o[key]!.write(into: &out, indent: indent, level: level + 1)
            }
            newline(level)
            out += "}"
        }
    }
}

/// An object's members in document order.
public struct JSONObject: Sendable, Equatable {
    public private(set) var keys: [String] = []
    private var values: [String: JSON] = [:]

    public init() {}

    public subscript(key: String) -> JSON? { values[key] }

    /// Adds a member; false when the key was already there.
    @discardableResult
    public mutating func insert(_ key: String, _ value: JSON) -> Bool {
        if values[key] != nil { return false }
        keys.append(key)
        values[key] = value
        return true
    }

    /// Sets a member: in its place when the key is there, else at the end.
    public mutating func set(_ key: String, _ value: JSON) {
        if values.updateValue(value, forKey: key) == nil { keys.append(key) }
    }

    /// Removes a member, if there.
    public mutating func remove(_ key: String) {
        guard values.removeValue(forKey: key) != nil else { return }
        keys.removeAll { $0 == key }
    }
}

public struct JSONSyntaxError: Error, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String
    public var description: String { "line \(line), column \(column): \(message)" }
}

/// Strict JSON parser over UTF-8 bytes.
public struct JSONParser {
    private let bytes: [UInt8]
    private var i = 0
    private var depth = 0

    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSON {
        var p = JSONParser(bytes: bytes)
        p.skipSpace()
        let v = try p.value()
        p.skipSpace()
        if p.i < p.bytes.count { throw p.fail(JSONMessage.trailingText) }
        return v
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func fail(_ message: String) -> JSONSyntaxError {
        var line = 1
        var col = 1
        for b in bytes[0..<min(i, bytes.count)] {
            if b == 0x0A {
                line += 1
                col = 1
            } else if b & 0xC0 != 0x80 {
                col += 1
            }
        }
        return JSONSyntaxError(line: line, column: col, message: message)
    }

    private mutating func skipSpace() {
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
    }

    private var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

    private mutating func value() throws(JSONSyntaxError) -> JSON {
        guard let c = peek else { throw fail(JSONMessage.endOfFile) }
        switch c {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw fail(JSONMessage.unexpected(c))
        }
    }

    private mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, Array(bytes[i..<i + w.count]) == w else {
            throw fail(JSONMessage.badLiteral(word))
        }
        i += w.count
    }

    private mutating func nest() throws(JSONSyntaxError) {
        depth += 1
        if depth > 512 { throw fail(JSONMessage.tooDeep) }
    }

    private mutating func object() throws(JSONSyntaxError) -> JSON {
        try nest()
        i += 1
        var obj = JSONObject()
        skipSpace()
        if peek == UInt8(ascii: "}") {
            i += 1
            depth -= 1
            return .object(obj)
        }
        while true {
            skipSpace()
            guard peek == UInt8(ascii: "\"") else { throw fail(JSONMessage.keyNotQuoted) }
            let keyStart = i
            let key = try string()
            skipSpace()
            guard peek == UInt8(ascii: ":") else { throw fail(JSONMessage.colonExpected) }
            i += 1
            skipSpace()
            let v = try value()
            if !obj.insert(key, v) {
                i = keyStart
                throw fail(JSONMessage.duplicateKey(key))
            }
            skipSpace()
            if peek == UInt8(ascii: ",") {
                i += 1
                continue
            }
            if peek == UInt8(ascii: "}") {
                i += 1
                depth -= 1
                return .object(obj)
            }
            throw fail(JSONMessage.objectSeparator)
        }
    }

    private mutating func array() throws(JSONSyntaxError) -> JSON {
        try nest()
        i += 1
        var items: [JSON] = []
        skipSpace()
        if peek == UInt8(ascii: "]") {
            i += 1
            depth -= 1
            return .array(items)
        }
        while true {
            skipSpace()
            items.append(try value())
            skipSpace()
            if peek == UInt8(ascii: ",") {
                i += 1
                continue
            }
            if peek == UInt8(ascii: "]") {
                i += 1
                depth -= 1
                return .array(items)
            }
            throw fail(JSONMessage.arraySeparator)
        }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard i + 4 <= bytes.count,
            let v = UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16)
        else { throw fail(JSONMessage.badUnicodeEscape) }
        i += 4
        return v
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        i += 1
        var out: [UInt8] = []
        while true {
            guard let c = peek else { throw fail(JSONMessage.unterminatedString) }
            i += 1
            switch c {
            case UInt8(ascii: "\""):
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let e = peek else { throw fail(JSONMessage.unterminatedString) }
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar), peek == UInt8(ascii: "\\"),
                        i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "u")
                    {
                        i += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail(JSONMessage.badSurrogate) }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw fail(JSONMessage.badUnicodeEscape) }
                    out.append(contentsOf: Array(String(u).utf8))
                default: throw fail(JSONMessage.badEscape)
                }
            case 0..<0x20:
                throw fail(JSONMessage.controlCharacter)
            default:
                out.append(c)
            }
        }
    }

    private mutating func number() throws(JSONSyntaxError) -> JSON {
        let start = i
        func digits() -> Int {
            let s = i
            while let c = peek, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") { i += 1 }
            return i - s
        }
        if peek == UInt8(ascii: "-") { i += 1 }
        if peek == UInt8(ascii: "0") {
            i += 1
        } else if digits() == 0 {
            throw fail(JSONMessage.badNumber)
        }
        if peek == UInt8(ascii: ".") {
            i += 1
            if digits() == 0 { throw fail(JSONMessage.badNumber) }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            i += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { i += 1 }
            if digits() == 0 { throw fail(JSONMessage.badNumber) }
        }
        guard let v = Double(String(decoding: bytes[start..<i], as: UTF8.self)), v.isFinite else {
            throw fail(JSONMessage.badNumber)
        }
        return .number(v)
    }
}

extension ParameterValue {
    /// The value written as manifest JSON (what a user would type to get it).
    public var json: JSON {
        switch self {
        case .integer(let i): return .number(Double(i))
        case .number(let d): return .number(d)
        case .boolean(let b): return .bool(b)
        case .text(let s): return .string(s)
        case .color(let c): return .string("rgba(\(c.r * 255), \(c.g * 255), \(c.b * 255), \(c.a))")
        case .integers(let v): return .array(v.map { .number(Double($0)) })
        case .numbers(let v): return .array(v.map { .number($0) })
        case .object(let o):
            var obj = JSONObject()
            for k in o.keys.sorted() { obj.insert(k, o[k]!.json) }
            return .object(obj)
        case .list(let v): return .array(v.map(\.json))
        }
    }
}
