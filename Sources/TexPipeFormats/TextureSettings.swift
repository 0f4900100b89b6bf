public import TexPipeParameters

/// The pipeline's `texture` settings (docs/reference/textures.md): what a `.ktx2` or `.dds`
/// output holds. Declared once here with its parameter table and its rules (below), defaults
/// from `standard`; each format's facts are its row (`TextureFormat.swift`).
public struct TextureSettings: Sendable, Equatable {
    public enum Format: String, Sendable, CaseIterable {
        case rgba8
        case bc1, bc3, bc4, bc5, bc7
        case astc4x4 = "astc-4x4"
        case astc5x5 = "astc-5x5"
        case astc6x6 = "astc-6x6"
        case astc8x8 = "astc-8x8"
        case etc2RGB = "etc2-rgb"
        case etc2RGBA = "etc2-rgba"
        case eacR11 = "eac-r11"
        case eacRG11 = "eac-rg11"
        case uastc
        case etc1s
        case bc6h
        case rgba16f
        case astc4x4HDR = "astc-4x4-hdr"
        case astc6x6HDR = "astc-6x6-hdr"
    }

    public enum ColorSpace: String, Sendable, CaseIterable { case srgb, linear }
    public enum Quality: String, Sendable, CaseIterable { case fast, medium, thorough }
    public enum Supercompression: String, Sendable, CaseIterable { case none, zstd }
    /// Rate-distortion optimisation (docs/gpu-textures.md "Smaller downloads"): a λ, or the
    /// largest λ whose PSNR loss stays within `maxLoss` dB. Only formats whose row says
    /// `takesRDO` take it.
    public enum RDO: Sendable, Equatable {
        case lambda(Double)
        case maxLoss(Double)

        /// The formats it applies to, by name.
        public static var formats: [String] { Format.allCases.filter(\.info.takesRDO).map(\.rawValue) }

        /// Why `format` does not take it (the manifest's and the encoder's words alike).
        public static func notApplicable(to format: String) -> String {
            "rdo applies to \(formats.joined(separator: ", ")), not \(format) (remove rdo or change the format)"
        }
    }

    public var format: Format
    public var colorSpace: ColorSpace
    public var quality: Quality
    public var supercompression: Supercompression
    public var zstdLevel: Int
    /// nil: off.
    public var rdo: RDO?
    /// `etc1s`'s codebook sizes, 1…255 (nil: `defaultQLevel`).
    public var qlevel: Int?
    /// The quality target that chooses the knob (and, from `candidates`, the format); nil: none.
    public var target: QualityTarget?
    /// With a target, the formats it chooses among, in the manifest's order (`"astc"` as its
    /// block sizes, largest first); empty: `format` alone. `format` is the first of them.
    public var candidates: [Format] = []
    /// `"astc"` was given: the block size is the knob the target chooses (reported as `block`).
    public var astcBlocks = false

    /// The ASTC LDR block sizes `"astc"` chooses among, largest (smallest output) first.
    public static let astcSizes: [Format] = [.astc8x8, .astc6x6, .astc5x5, .astc4x4]

    /// The formats a target chooses among: `candidates`, or `format` alone.
    public var searched: [Format] { candidates.isEmpty ? [format] : candidates }

    /// `qlevel` when none is given: 128, as toktx's and basisu's default.
    public static let defaultQLevel = 128

    public static let standard = TextureSettings(
        format: .rgba8, colorSpace: .srgb, quality: .medium, supercompression: .none, zstdLevel: 9)

    public init(
        format: Format, colorSpace: ColorSpace, quality: Quality, supercompression: Supercompression, zstdLevel: Int,
        rdo: RDO? = nil, qlevel: Int? = nil
    ) {
        self.format = format
        self.colorSpace = colorSpace
        self.quality = quality
        self.supercompression = supercompression
        self.zstdLevel = zstdLevel
        self.rdo = rdo
        self.qlevel = qlevel
    }

    /// Whether the sRGB variant is written: asked for, and the format has one.
    public var srgb: Bool { colorSpace == .srgb && !format.info.isData }
}

extension TextureSettings.Format {
    /// The HDR formats, for messages: "bc6h, rgba16f, astc-4x4-hdr or astc-6x6-hdr".
    public static var hdrNames: String {
        let names = allCases.filter(\.info.hdr).map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }
}

/// The pipeline's `texture` settings (docs/gpu-textures.md), for `.ktx2` and `.dds` templates.
extension TextureSettings {
    public static let parameters: [Parameter] = [
        Parameter(
            "format", .choiceOrChoices(Format.allCases.map(\.rawValue) + ["astc"]),
            .defaulted(.text(standard.format.rawValue)),
            doc:
                "block format (rgba8 uncompressed); with a target, a list to choose among, or \"astc\" (its block size chosen)"
        ),
        .choice(
            "colorSpace", ColorSpace.self, default: standard.colorSpace,
            doc: "the sRGB or UNORM variant of the format (bc4/bc5 are UNORM only)"),
        .choice("quality", Quality.self, default: standard.quality, doc: "encoder effort"),
        .choice(
            "supercompression", Supercompression.self, default: standard.supercompression,
            doc: "KTX2 only: zstd on every level"),
        .integer("zstdLevel", in: 1...22, default: standard.zstdLevel, doc: "zstd level when supercompressed"),
        Parameter(
            "rdo",
            .object([
                Parameter(
                    "lambda", .number(0...100_000), .optional(absentDoc: "maxLoss instead"),
                    doc: "bits valued in squared 8-bit error: higher trades quality for size; 0 is off"),
                Parameter(
                    "maxLoss", .number(0.01...20), .optional(absentDoc: "lambda instead"),
                    doc: "dB: the largest λ whose PSNR loss against no RDO stays within this, per level"),
            ]), .optional(absentDoc: "off"),
            doc: "rate-distortion optimisation (bc1, bc3, bc7, uastc): blocks that repeat, smaller after zstd"),
        Parameter(
            "qlevel", .integer(1...255), .optional(absentDoc: "\(defaultQLevel)"),
            doc: "etc1s only: the endpoint and selector codebooks' size; higher is larger and better"),
        Parameter(
            "target", .object(QualityTarget.parameters), .optional(absentDoc: "the settings as given"),
            doc:
                "the smallest output meeting these measures: qlevel, the rdo λ (with zstd), the ASTC block size or the format chosen per output"
        ),
    ]

    /// The settings a `texture` block asks for, or every rule among its values it breaks: one
    /// of `lambda` / `maxLoss` in `rdo`, `rdo` only on a format that takes it, sRGB only on a format
    /// with an sRGB variant. The manifest, the planner (for values from placeholders) and code all
    /// decode through here; `problems(in:image:)` adds the rules that need the output and the image.
    public init(_ a: Arguments) throws(SettingsProblems) {
        let rdoArgs = a.object("rdo")
        let rdo = rdoArgs.flatMap { o -> RDO? in
            if let lambda = o.optionalNumber("lambda") { return lambda > 0 ? .lambda(lambda) : nil }
            return o.optionalNumber("maxLoss").map { .maxLoss($0) }
        }
        let names = a.names("format")
        var formats: [Format] = []
        for name in names {
            for f in name == "astc" ? Self.astcSizes : [Format(rawValue: name)!] where !formats.contains(f) {
                formats.append(f)
            }
        }
        self.init(
            format: formats[0], colorSpace: a.choice("colorSpace", as: ColorSpace.self),
            quality: a.choice("quality", as: Quality.self),
            supercompression: a.choice("supercompression", as: Supercompression.self),
            zstdLevel: a.integer("zstdLevel"), rdo: rdo, qlevel: a.optionalInteger("qlevel"))
        astcBlocks = names.contains("astc")
        if names.count > 1 || astcBlocks { candidates = formats }
        var problems: [SettingsProblem] = []
        if let t = a.object("target") {
            do throws(SettingsProblems) {
                target = try QualityTarget(t)
            } catch {
                problems += error.all.map {
                    SettingsProblem("target" + ($0.key.isEmpty ? "" : "." + $0.key), $0.message)
                }
            }
        }
        problems += targetProblems(a, given: a.has("target"), listed: names.count > 1 || astcBlocks)
        if qlevel != nil && target == nil { problems += Self.knobProblems("qlevel", format) }
        // "none" is harmless (a variant table may name it for every format); zstd is not BasisLZ.
        if candidates.isEmpty && format.info.codec.family.wholeFile && supercompression != .none {
            problems.append(
                SettingsProblem(
                    "supercompression",
                    "\(format.rawValue) is always BasisLZ-supercompressed: remove supercompression (zstd does not apply)"
                ))
        }
        if let o = rdoArgs {
            let given = ["lambda", "maxLoss"].filter(o.has)
            if given.count != 1 {
                problems.append(
                    SettingsProblem(
                        "rdo",
                        given.isEmpty
                            ? "expected \"lambda\" or \"maxLoss\" in rdo, found neither"
                            : "expected one of \"lambda\" or \"maxLoss\" in rdo, found both"))
            }
            if !format.info.takesRDO && target == nil { problems.append(Self.rdoNotApplicable(format)) }
        }
        if a.gave("colorSpace") && colorSpace == .srgb && format.info.isData {
            let why = format.info.hdr ? "holds linear light (HDR)" : "is a data format, UNORM only"
            problems.append(
                SettingsProblem(
                    "colorSpace",
                    "\(format.rawValue) \(why): \"srgb\" does not apply (remove colorSpace or use \"linear\")"))
        }
        if !problems.isEmpty { throw SettingsProblems(problems) }
    }

    /// The rules that need to know where the texture goes and what it holds: the format in a
    /// container its row names, zstd in KTX2 only, an HDR format for an HDR image and an LDR one
    /// for an LDR image, and (for settings built in code) `rdo` on a format that takes it.
    /// `container` or `hdrImage` nil: not known yet, not checked.
    public func problems(in container: TextureContainer?, hdrImage: Bool? = nil) -> [SettingsProblem] {
        if container == .dds, let target, candidates.isEmpty, format.info.takesRDO, target.minimize == .bytes {
            return [
                QualityTarget.nothingToChoose(
                    "\(format.rawValue)'s only knob is the rdo λ, which makes a file smaller only under zstd, and DDS files are not supercompressed (use a .ktx2 template, or a format list)"
                )
            ]
        }
        if !candidates.isEmpty {
            var problems: [SettingsProblem] = []
            for f in candidates {
                var one = self
                (one.candidates, one.format, one.target) = ([], f, nil)
                for p in one.problems(in: container, hdrImage: hdrImage) where !problems.contains(p) {
                    problems.append(p)
                }
            }
            return problems
        }
        var problems: [SettingsProblem] = []
        let info = format.info
        if let container, !info.containers.contains(container) {
            let allowed = info.containers.map(\.rawValue).sorted()
            problems.append(
                SettingsProblem(
                    "format",
                    "\(format.rawValue) is \(allowed.map { $0.uppercased() }.joined(separator: " or ")) only: "
                        + "\(container.name) cannot hold \(info.familyName) "
                        + "(use a \(allowed.map { "." + $0 }.joined(separator: " or ")) template)"))
        }
        if container == .dds && supercompression != .none {
            problems.append(
                SettingsProblem("supercompression", "supercompression is KTX2 only: DDS files are not supercompressed"))
        }
        if let hdrImage, hdrImage != info.hdr {
            let what = format.rawValue
            problems.append(
                SettingsProblem("format", hdrImage ? RangeRule.hdrImage(into: what) : RangeRule.ldrImage(into: what)))
        }
        if let problem = Self.rdoProblem(rdo, format) { problems.append(problem) }
        return problems
    }

    /// A family's own setting (`CodecFamily.knobs`) given with a format of another family.
    static func knobProblems(_ name: String, _ format: Format) -> [SettingsProblem] {
        guard !format.info.codec.family.knobs.contains(where: { $0.name == name }) else { return [] }
        let owners = Format.allCases.filter { $0.info.codec.family.knobs.contains { $0.name == name } }
        guard let owner = owners.first, let knob = owner.info.codec.family.knobs.first(where: { $0.name == name })
        else { return [] }
        let names = owners.map(\.rawValue).joined(separator: " or ")
        return [
            SettingsProblem(
                name,
                "\(name) sets \(names)'s \(knob.sets), not \(format.rawValue)'s (remove \(name) or use \(names))")
        ]
    }

    /// A volume in a format that cannot hold one (the planner's and the encoder's words alike).
    public static func volumeProblem(_ format: Format) -> SettingsProblem? {
        guard !format.info.takesVolume else { return nil }
        let names = Format.allCases.filter(\.info.takesVolume).map(\.rawValue)
        return SettingsProblem(
            "format",
            "\(format.rawValue) cannot hold a volume: its slices must be texels or 2D blocks a 3D texture "
                + "takes (use \(names.dropLast().joined(separator: ", ")) or \(names.last!))")
    }

    /// `rdo` on a format whose row does not take it (the block encoders' entries ask this too).
    public static func rdoProblem(_ rdo: RDO?, _ format: Format) -> SettingsProblem? {
        rdo != nil && !format.info.takesRDO ? rdoNotApplicable(format) : nil
    }

    static func rdoNotApplicable(_ format: Format) -> SettingsProblem {
        SettingsProblem("rdo", RDO.notApplicable(to: format.rawValue))
    }
}
