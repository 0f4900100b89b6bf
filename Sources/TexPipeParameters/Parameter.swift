public import TexPipePixels

/// A parameter declared once, as data: name, kind, range, default, one-line doc.
/// The same table decodes and range-checks manifests, fills defaults and prints
/// `texpipe stages` (STYLE 2).
public struct Parameter: Sendable {
    public enum Kind: Sendable {
        case integer(ClosedRange<Int>)
        case number(ClosedRange<Double>)
        case boolean
        case choice([String])
        /// A non-empty array of distinct values, each one of these (`"data": ["json", "libgdx"]`).
        case choices([String])
        /// One of these, or a non-empty array of distinct ones (`"format": ["bc1", "bc7"]`).
        case choiceOrChoices([String])
        /// One of a few integers, e.g. a bit depth of 8 or 16.
        case integerChoice([Int])
        case color
        case text
        /// A fixed-length list of integers such as an offset [x, y].
        case integers(count: Int, ClosedRange<Int>)
        /// One number for all, or exactly `count` of them (a fractional radius per corner).
        case numberOrList(count: Int, ClosedRange<Double>)
        /// A nested object with its own parameter table (`border`, `shadow`).
        indirect case object([Parameter])
        /// A non-empty array of such objects (`layers`), each decoded against the table.
        indirect case objects([Parameter])
        /// A constant, or an object decoded against the table (`pack-channels`' `r`: `0.5` or
        /// `{"image": …, "channel": "g"}`).
        indirect case numberOrObject(ClosedRange<Double>, [Parameter])
    }

    public enum Requirement: Sendable {
        case required
        case defaulted(ParameterValue)
        /// May be omitted; `absentDoc` says what happens then (e.g. "as decoded").
        case optional(absentDoc: String)
    }

    public var name: String
    public var kind: Kind
    public var requirement: Requirement
    public var doc: String

    public init(_ name: String, _ kind: Kind, _ requirement: Requirement, doc: String) {
        self.name = name
        self.kind = kind
        self.requirement = requirement
        self.doc = doc
    }

    public static func integer(
        _ name: String, in range: ClosedRange<Int>, default value: Int? = nil, doc: String
    ) -> Parameter {
        Parameter(name, .integer(range), value.map { .defaulted(.integer($0)) } ?? .required, doc: doc)
    }

    public static func number(
        _ name: String, in range: ClosedRange<Double>, default value: Double? = nil, doc: String
    ) -> Parameter {
        Parameter(name, .number(range), value.map { .defaulted(.number($0)) } ?? .required, doc: doc)
    }

    public static func boolean(_ name: String, default value: Bool, doc: String) -> Parameter {
        Parameter(name, .boolean, .defaulted(.boolean(value)), doc: doc)
    }

    /// A choice whose values are an enum's cases, declared once there:
    /// `.choice("filter", Rotate.Filter.self, default: .bicubic, doc: …)`.
    public static func choice<T: RawRepresentable & CaseIterable>(
        _ name: String, _ type: T.Type, default value: T? = nil, doc: String
    ) -> Parameter where T.RawValue == String {
        Parameter(
            name, .choice(T.allCases.map(\.rawValue)), value.map { .defaulted(.text($0.rawValue)) } ?? .required,
            doc: doc)
    }

    public static func color(_ name: String, default value: Color? = nil, doc: String) -> Parameter {
        Parameter(name, .color, value.map { .defaulted(.color($0)) } ?? .required, doc: doc)
    }

    /// The kind as `texpipe stages` prints it and diagnostics expect it.
    public var expected: String {
        switch kind {
        case .integer(let r): "an integer in \(Parameter.show(r))"
        case .number(let r): "a number in \(Parameter.show(r))"
        case .boolean: "true or false"
        case .choice(let o): "one of " + o.map { "\"\($0)\"" }.joined(separator: ", ")
        case .choices(let o):
            "a non-empty array of distinct values from " + o.map { "\"\($0)\"" }.joined(separator: ", ")
        case .choiceOrChoices(let o):
            "one of " + o.map { "\"\($0)\"" }.joined(separator: ", ") + ", or a non-empty array of them"
        case .integerChoice(let o): o.map(String.init).joined(separator: " or ")
        case .color: "a color"
        case .text: "a string"
        case .integers(let n, let r): "an array of \(n) integers in \(Parameter.show(r))"
        case .numberOrList(let n, let r): "a number in \(Parameter.show(r)) or an array of \(n) of them"
        case .object(let table): "an object with " + table.map { "\"\($0.name)\"" }.joined(separator: ", ")
        case .objects: "a non-empty array of objects"
        case .numberOrObject(let r, let table):
            "a number in \(Parameter.show(r)) or an object with "
                + table.map { "\"\($0.name)\"" }.joined(separator: ", ")
        }
    }

    public var defaultDescription: String {
        switch requirement {
        case .required: "required"
        case .defaulted(let v): "default \(v)"
        case .optional(let absent): "optional (\(absent))"
        }
    }

    package static func show(_ r: ClosedRange<Int>) -> String {
        r.upperBound == Int.max ? "\(r.lowerBound)…" : "\(r.lowerBound)…\(r.upperBound)"
    }

    package static func show(_ r: ClosedRange<Double>) -> String {
        let hi = r.upperBound == .greatestFiniteMagnitude ? "" : ValueText.number(r.upperBound)
        return "\(ValueText.number(r.lowerBound))…\(hi)"
    }
}

/// A decoded, type-checked parameter value.
public enum ParameterValue: Sendable, Hashable, CustomStringConvertible {
    case integer(Int)
    case number(Double)
    case boolean(Bool)
    case text(String)
    case color(Color)
    case integers([Int])
    case numbers([Double])
    case object([String: ParameterValue])
    case list([ParameterValue])

    public var description: String {
        switch self {
        case .integer(let i): String(i)
        case .number(let d): ValueText.number(d)
        case .boolean(let b): String(b)
        case .text(let s): "\"\(s)\""
        case .color(let c): c.a == 0 && c == .transparent ? "transparent" : c.description
        case .integers(let v): "[" + v.map(String.init).joined(separator: ", ") + "]"
        case .numbers(let v): "[" + v.map(ValueText.number).joined(separator: ", ") + "]"
        case .object(let o): "{" + o.keys.sorted().map { "\($0): \(o[$0]!)" }.joined(separator: ", ") + "}"
        case .list(let v): "[" + v.map(\.description).joined(separator: ", ") + "]"
        }
    }

    /// Canonical JSON for cache keys and reports.
    public var canonical: String {
        switch self {
        case .color(let c): "\"rgba(\(c.r),\(c.g),\(c.b),\(c.a))\""
        case .text(let s): ValueText.quoted(s)
        case .object(let o):
            "{" + o.keys.sorted().map { ValueText.quoted($0) + ":" + o[$0]!.canonical }.joined(separator: ",") + "}"
        case .list(let v): "[" + v.map(\.canonical).joined(separator: ",") + "]"
        default: description.replacingOccurrences(of: " ", with: "")
        }
    }
}

/// A rule of a settings block broken: which of its parameters it belongs at (`format`, `rdo`; empty:
/// the block itself) and what is wrong. A settings type states its rules once, beside its table
/// (`TextureSettings.problems`); the manifest, the planner and the encoder all ask the same rules,
/// so one mistake is one error in one wording.
public struct SettingsProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var key: String
    public var message: String

    public init(_ key: String, _ message: String) {
        self.key = key
        self.message = message
    }

    public var description: String { message }
}

/// Every rule a settings block breaks, in the order its type checks them.
public struct SettingsProblems: Error, Sendable, Hashable, CustomStringConvertible {
    public var all: [SettingsProblem]
    public init(_ all: [SettingsProblem]) { self.all = all }
    public var description: String { all.map(\.message).joined(separator: "; ") }
}

/// A stage's (or settings block's) parameters, decoded, defaults filled.
public struct Arguments: Sendable {
    public var values: [String: ParameterValue]
    /// The manifest's folder: file parameters are relative to it.
    public var baseDirectory: String
    /// The names the manifest gave (the rest are defaults): a rule such as "sRGB does not apply to
    /// bc4" is about what was asked for. Not part of `canonical`.
    public var given: Set<String>

    public init(_ values: [String: ParameterValue], baseDirectory: String = ".", given: Set<String>? = nil) {
        self.values = values
        self.baseDirectory = baseDirectory
        self.given = given ?? Set(values.keys)
    }

    /// A file parameter as an absolute path (relative ones are under `baseDirectory`).
    public func file(_ name: String) -> String {
        let t = text(name)
        return t.hasPrefix("/") ? t : baseDirectory + "/" + t
    }

    /// Every defaulted parameter of `table` at its default, then `given` (nil entries skipped):
    /// how code and tests build a stage without restating a default (STYLE 2: declared once).
    public static func defaults(of table: [Parameter], _ given: [String: ParameterValue?] = [:]) -> Arguments {
        var values: [String: ParameterValue] = [:]
        for p in table { if case .defaulted(let v) = p.requirement { values[p.name] = v } }
        for (k, v) in given { if let v { values[k] = v } }
        return Arguments(values, given: Set(given.keys.filter { given[$0]! != nil }))
    }

    public func has(_ name: String) -> Bool { values[name] != nil }
    /// Whether the manifest gave `name` (not its default).
    public func gave(_ name: String) -> Bool { given.contains(name) }

    public func integer(_ name: String) -> Int {
        if case .integer(let v)? = values[name] { return v }
        preconditionFailure("parameter \(name) is not a decoded integer")
    }
    public func number(_ name: String) -> Double {
        switch values[name] {
        case .number(let v)?: return v
        case .integer(let v)?: return Double(v)
        default: preconditionFailure("parameter \(name) is not a decoded number")
        }
    }
    public func boolean(_ name: String) -> Bool {
        if case .boolean(let v)? = values[name] { return v }
        preconditionFailure("parameter \(name) is not a decoded boolean")
    }
    public func text(_ name: String) -> String {
        if case .text(let v)? = values[name] { return v }
        preconditionFailure("parameter \(name) is not decoded text")
    }
    public func color(_ name: String) -> Color {
        if case .color(let v)? = values[name] { return v }
        preconditionFailure("parameter \(name) is not a decoded color")
    }
    public func optionalColor(_ name: String) -> Color? {
        if case .color(let v)? = values[name] { return v }
        return nil
    }
    /// A `choiceOrChoices` parameter's names, in the order given (one name: a list of one).
    public func names(_ name: String) -> [String] {
        switch values[name] {
        case .text(let s)?: return [s]
        case .list(let items)?:
            return items.map { item in
                guard case .text(let s) = item else { preconditionFailure("parameter \(name) is not a list of names") }
                return s
            }
        default: preconditionFailure("parameter \(name) is not a name or a list of names")
        }
    }
    /// A `choices` parameter as enum values, in the order given.
    public func choices<T: RawRepresentable>(_ name: String, as: T.Type) -> [T] where T.RawValue == String {
        guard case .list(let items)? = values[name] else { preconditionFailure("parameter \(name) is not a list") }
        return items.map { item in
            guard case .text(let s) = item, let v = T(rawValue: s) else {
                preconditionFailure("choice \(name) out of table")
            }
            return v
        }
    }
    public func integers(_ name: String) -> [Int] {
        if case .integers(let v)? = values[name] { return v }
        preconditionFailure("parameter \(name) is not a decoded integer list")
    }
    public func numbers(_ name: String) -> [Double] {
        if case .numbers(let v)? = values[name] { return v }
        preconditionFailure("parameter \(name) is not a decoded number list")
    }
    /// A nested object's arguments, or nil when it was not given.
    public func object(_ name: String) -> Arguments? {
        if case .object(let v)? = values[name] {
            return Arguments(v, baseDirectory: baseDirectory)
        }
        return nil
    }
    /// An array of nested objects' arguments (`layers`), each with its own JSON path.
    public func objects(_ name: String) -> [Arguments] {
        guard case .list(let items)? = values[name] else { return [] }
        return items.enumerated().map { i, item in
            guard case .object(let v) = item else { preconditionFailure("\(name)[\(i)] is not a decoded object") }
            return Arguments(v, baseDirectory: baseDirectory)
        }
    }
    public func optionalText(_ name: String) -> String? {
        if case .text(let v)? = values[name] { return v }
        return nil
    }
    public func optionalNumber(_ name: String) -> Double? {
        switch values[name] {
        case .number(let v)?: return v
        case .integer(let v)?: return Double(v)
        default: return nil
        }
    }
    public func optionalInteger(_ name: String) -> Int? {
        if case .integer(let v)? = values[name] { return v }
        return nil
    }
    /// Enum-typed choice: `args.choice("region", as: Region.self)`.
    public func choice<T: RawRepresentable>(_ name: String, as: T.Type) -> T where T.RawValue == String {
        guard let v = T(rawValue: text(name)) else { preconditionFailure("choice \(name) out of table") }
        return v
    }

    /// Canonical text of every value, keys sorted: part of a job's identity.
    public var canonical: String {
        "{" + values.keys.sorted().map { ValueText.quoted($0) + ":" + values[$0]!.canonical }.joined(separator: ",")
            + "}"
    }
}
