public import TexPipeParameters

/// A pipeline's `atlas` object (docs/atlases.md): how its sprites are packed into pages and what
/// metadata is written beside them.
public struct AtlasSettings: Sendable, Equatable {
    /// The page-size rule: each side a power of two, any size, or a multiple of 4 (whole blocks
    /// for block-compressed pages).
    public enum SizeRule: String, Sendable, CaseIterable {
        case pot
        case any
        case multipleOf4 = "multiple-of-4"

        /// The smallest size ≥ n the rule allows.
        public func roundUp(_ n: Int) -> Int {
            switch self {
            case .any: return max(1, n)
            case .multipleOf4: return max(4, (n + 3) / 4 * 4)
            case .pot:
                var p = 1
                while p < n { p <<= 1 }
                return p
            }
        }

        /// The largest size ≤ n the rule allows (0 when none).
        public func roundDown(_ n: Int) -> Int {
            switch self {
            case .any: return max(0, n)
            case .multipleOf4: return n / 4 * 4
            case .pot:
                guard n >= 1 else { return 0 }
                var p = 1
                while p * 2 <= n { p <<= 1 }
                return p
            }
        }

        /// The next smaller size the rule allows below n (n − 1, n − 4, n / 2).
        public func step(below n: Int) -> Int {
            switch self {
            case .any: return n - 1
            case .multipleOf4: return n - 4
            case .pot: return n / 2
            }
        }
    }

    /// The metadata files: TexturePacker's JSON hash per page, libGDX's `.atlas` for all pages.
    public enum DataFormat: String, Sendable, CaseIterable {
        case json
        case libgdx
    }

    public var maxWidth: Int
    public var maxHeight: Int
    public var size: SizeRule
    public var padding: Int
    public var border: Int
    public var extrude: Int
    public var trim: Bool
    public var rotate: Bool
    /// The sprite-name template (`{path}/{file}`).
    public var name: String
    public var data: [DataFormat]

    public init(
        maxWidth: Int = 2048, maxHeight: Int = 2048, size: SizeRule = .pot, padding: Int = 2, border: Int = 0,
        extrude: Int = 0, trim: Bool = true, rotate: Bool = false, name: String = "{path}/{file}",
        data: [DataFormat] = [.json]
    ) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.size = size
        self.padding = padding
        self.border = border
        self.extrude = extrude
        self.trim = trim
        self.rotate = rotate
        self.name = name
        self.data = data
    }

    public static let standard = AtlasSettings()

    /// The largest page under the rule (`maxSize` rounded down to it).
    public var pageLimit: (width: Int, height: Int) { (size.roundDown(maxWidth), size.roundDown(maxHeight)) }

    /// Whether a page can hold even one 1×1 sprite with its extrusion and border.
    public var holdsOnePixel: Bool {
        let need = 1 + 2 * extrude + 2 * border
        let (w, h) = pageLimit
        return w >= need && h >= need && size.roundUp(need) <= w && size.roundUp(need) <= h
    }
}

/// The pipeline's `atlas` object (docs/atlases.md). `name` is a template over each sprite's placeholders,
/// read apart from the table's decoding (which resolves placeholders per job, not per sprite).
extension AtlasSettings {
    public static let parameters: [Parameter] = [
        Parameter(
            "maxSize", .numberOrList(count: 2, 1...16384),
            .defaulted(.numbers([Double(standard.maxWidth), Double(standard.maxHeight)])),
            doc: "the largest page: one size for both sides or [width, height]"),
        .choice(
            "size", SizeRule.self, default: standard.size, doc: "page sizes: powers of two, any, or multiples of 4"),
        .integer("padding", in: 0...1024, default: standard.padding, doc: "transparent texels between sprites"),
        .integer("border", in: 0...1024, default: standard.border, doc: "texels kept clear along the page edges"),
        .integer(
            "extrude", in: 0...1024, default: standard.extrude, doc: "edge texels repeated around each sprite"),
        .boolean("trim", default: standard.trim, doc: "remove each sprite's alpha-0 border, recorded in the data"),
        .boolean("rotate", default: standard.rotate, doc: "a sprite may be stored turned 90° clockwise"),
        Parameter(
            "name", .text, .defaulted(.text(standard.name)),
            doc: "each sprite's name: a template over {path}, {file}, {ext} and the variant's keys"),
        Parameter(
            "data", .choices(DataFormat.allCases.map(\.rawValue)),
            .defaulted(.list(standard.data.map { .text($0.rawValue) })),
            doc: "metadata: json (TexturePacker JSON hash per page), libgdx (one .atlas file)"),
    ]

    /// From decoded arguments (`name` given apart), or every rule among the values they break:
    /// whole-pixel sizes, a page that holds a sprite with its extrusion and border, no rotation
    /// when libGDX data is written. The manifest and the planner both decode through here.
    public init(_ a: Arguments, name: String) throws(SettingsProblems) {
        let size = a.numbers("maxSize")
        guard size.allSatisfy({ $0 == $0.rounded() }) else {
            throw SettingsProblems([SettingsProblem("maxSize", "maxSize is in whole pixels")])
        }
        self.init(
            maxWidth: Int(size[0]), maxHeight: Int(size[1]), size: a.choice("size", as: SizeRule.self),
            padding: a.integer("padding"), border: a.integer("border"), extrude: a.integer("extrude"),
            trim: a.boolean("trim"), rotate: a.boolean("rotate"), name: name,
            data: a.choices("data", as: DataFormat.self))
        var problems: [SettingsProblem] = []
        if !holdsOnePixel {
            let (w, h) = pageLimit
            let needs = 1 + 2 * extrude + 2 * border
            problems.append(
                SettingsProblem(
                    "maxSize",
                    "a \(w)×\(h) page cannot hold even a 1×1 sprite with its extrusion and border "
                        + "(\(needs)×\(needs) needed)"))
        }
        if rotate && data.contains(.libgdx) {
            problems.append(
                SettingsProblem(
                    "rotate",
                    "libGDX stores rotated regions turned counter-clockwise, the JSON hash clockwise: one page "
                        + "cannot serve both; with \"libgdx\" in \"data\", \"rotate\" must be false"))
        }
        if !problems.isEmpty { throw SettingsProblems(problems) }
    }
}
