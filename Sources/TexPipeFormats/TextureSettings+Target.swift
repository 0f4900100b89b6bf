internal import TexPipeParameters

/// The rules of `texture.target` (docs/gpu-textures.md "Quality targets"), beside the table.
extension TextureSettings {
    /// What a target chooses for one format: `qlevel` (ETC1S), the `rdo` λ (with zstd), the ASTC
    /// block size (`"astc"`), or nothing (the format alone, as a list's candidate).
    public enum Knob: String, Sendable, Equatable {
        case qlevel
        case lambda
        case block
    }

    /// The knob a target searches for `format`: qlevel for ETC1S, λ for a format that takes RDO
    /// under zstd, the block size for an ASTC size `"astc"` stands for; nil: none.
    public func knob(for f: Format) -> Knob? {
        if f.info.codec.family.knobs.contains(where: { $0.name == "qlevel" }) { return .qlevel }
        if f.info.takesRDO && supercompression == .zstd { return .lambda }
        if astcBlocks && Self.astcSizes.contains(f) { return .block }
        return nil
    }

    /// The rules between a target and the rest of the block: a list or `"astc"` needs one; a knob
    /// given beside it is an error naming both; a target with nothing to choose says why.
    func targetProblems(_ a: Arguments, given: Bool, listed: Bool) -> [SettingsProblem] {
        guard given else {
            guard listed else { return [] }
            return [
                SettingsProblem(
                    "format",
                    astcBlocks && a.names("format").count == 1
                        ? "format \"astc\" chooses its block size against a target: add \"target\" (e.g. {\"minSSIM\": 0.95}) or name a size such as \"astc-6x6\""
                        : "a format list is chosen from against a target: add \"target\" (e.g. {\"minSSIM\": 0.95}) or name one format"
                )
            ]
        }
        var problems: [SettingsProblem] = []
        if a.has("qlevel") {
            problems.append(QualityTarget.knobGiven("qlevel", chooses: "etc1s's qlevel"))
        }
        if a.has("rdo") {
            problems.append(QualityTarget.knobGiven("rdo", chooses: "the rdo λ (with zstd)"))
        }
        guard let target, searched.count == 1 else { return problems }
        let f = format
        if target.minimize == .gpuBytes {
            problems.append(
                QualityTarget.nothingToChoose(
                    "minimize \"gpuBytes\" with one format: \(f.rawValue)'s GPU size is fixed by the image (give a format list such as [\"bc1\", \"bc7\"], or \"astc\")"
                ))
        } else if knob(for: f) == nil {
            problems.append(
                QualityTarget.nothingToChoose(
                    f.info.takesRDO
                        ? "\(f.rawValue)'s only knob is the rdo λ, which makes a file smaller only under zstd (add \"supercompression\": \"zstd\", or give a format list)"
                        : "\(f.rawValue) has no setting to search (give a format list such as [\"\(f.rawValue)\", …], or use etc1s, uastc, bc1, bc3, bc7 or \"astc\")"
                ))
        }
        return problems
    }

    /// The settings one candidate is encoded with: `f`, and `value` for its knob (qlevel; λ, 0 off).
    public func candidate(_ f: Format, knob: Knob?, value: Double?) -> TextureSettings {
        var s = self
        (s.format, s.candidates, s.astcBlocks, s.target) = (f, [], false, nil)
        switch knob {
        case .qlevel?: s.qlevel = value.map { Int($0) }
        case .lambda?: s.rdo = value.flatMap { $0 > 0 ? .lambda($0) : nil }
        case .block?, nil: break
        }
        if f.info.codec.family.wholeFile { s.supercompression = .none }
        if !f.info.takesRDO { s.rdo = nil }
        return s
    }
}
