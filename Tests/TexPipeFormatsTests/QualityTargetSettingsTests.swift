import Testing

@testable import TexPipeFormats
@testable import TexPipeParameters

/// The rules of `texture.target` and of a file kind's `target` (docs/gpu-textures.md "Quality
/// targets"), in the words users see.
@Suite("quality target settings")
struct QualityTargetSettingsTests {
    static func texture(_ json: String) -> (TextureSettings?, [String]) {
        guard case .object(let o)? = try? JSONParser.parse(Array(json.utf8)) else { return (nil, ["bad test JSON"]) }
        var d = ParameterDecoder(file: "m.json", placeholders: nil, knownNames: [])
        guard let args = d.decode(o, at: JSONPath(), table: TextureSettings.parameters) else {
            return (nil, d.diagnostics.map(\.message))
        }
        do throws(SettingsProblems) {
            return (try TextureSettings(args), [])
        } catch {
            return (nil, error.all.map { ($0.key.isEmpty ? "" : $0.key + ": ") + $0.message })
        }
    }

    @Test func aTargetChoosesTheKnobOfEachFamily() throws {
        let etc1s = try #require(Self.texture(#"{"format": "etc1s", "target": {"minSSIM": 0.95}}"#).0)
        #expect(etc1s.target?.gates.minSSIM == 0.95 && etc1s.target?.minimize == .bytes)
        #expect(etc1s.knob(for: .etc1s) == .qlevel && etc1s.searched == [.etc1s])
        #expect(etc1s.target?.given == #"{"minSSIM":0.95}"#)
        let uastc = try #require(
            Self.texture(#"{"format": "uastc", "supercompression": "zstd", "target": {"maxFLIP": 0.05}}"#).0)
        #expect(uastc.knob(for: .uastc) == .lambda)
        let astc = try #require(
            Self.texture(#"{"format": "astc", "target": {"minPSNR": 40, "minimize": "gpuBytes"}}"#).0)
        #expect(astc.searched == [.astc8x8, .astc6x6, .astc5x5, .astc4x4] && astc.knob(for: .astc6x6) == .block)
        #expect(astc.target?.given == #"{"minPSNR":40,"minimize":"gpuBytes"}"#)
        // A list: each its own knob; λ only with zstd, so here the list chooses the format alone.
        let list = try #require(Self.texture(#"{"format": ["etc1s", "uastc"], "target": {"minSSIM": 0.9}}"#).0)
        #expect(list.searched == [.etc1s, .uastc] && list.format == .etc1s)
        #expect(list.knob(for: .etc1s) == .qlevel && list.knob(for: .uastc) == nil)
        // The normal angle, as the gate takes it.
        let n = try #require(
            Self.texture(#"{"format": "bc7", "supercompression": "zstd", "target": {"maxNormalError": {"mean": 2}}}"#).0
        )
        #expect(n.target?.gates.maxNormalError?.mean == 2 && n.target?.given == #"{"maxNormalError":{"mean":2}}"#)
    }

    @Test func aKnobBesideTheTargetIsAnErrorNamingBoth() {
        #expect(
            Self.texture(#"{"format": "etc1s", "qlevel": 96, "target": {"minSSIM": 0.95}}"#).1 == [
                "qlevel: qlevel and target: the target chooses etc1s's qlevel (remove qlevel or target)"
            ])
        #expect(
            Self.texture(
                #"{"format": "bc7", "supercompression": "zstd", "rdo": {"lambda": 4}, "target": {"minSSIM": 0.95}}"#
            ).1 == ["rdo: rdo and target: the target chooses the rdo λ (with zstd) (remove rdo or target)"])
    }

    @Test func aTargetWithNothingToChooseSaysWhy() {
        #expect(
            Self.texture(#"{"format": "bc7", "target": {"minSSIM": 0.95}}"#).1 == [
                "target: target has nothing to choose: bc7's only knob is the rdo λ, which makes a file smaller only under zstd (add \"supercompression\": \"zstd\", or give a format list)"
            ])
        #expect(
            Self.texture(#"{"format": "etc1s", "target": {"minSSIM": 0.95, "minimize": "gpuBytes"}}"#).1 == [
                "target: target has nothing to choose: minimize \"gpuBytes\" with one format: etc1s's GPU size is fixed by the image (give a format list such as [\"bc1\", \"bc7\"], or \"astc\")"
            ])
        #expect(
            Self.texture(#"{"format": "bc4", "target": {"minPSNR": 40}}"#).1 == [
                "target: target has nothing to choose: bc4 has no setting to search (give a format list such as [\"bc4\", …], or use etc1s, uastc, bc1, bc3, bc7 or \"astc\")"
            ])
        #expect(
            Self.texture(#"{"format": "etc1s", "target": {}}"#).1 == [
                "target: a target needs at least one of \"minSSIM\", \"maxFLIP\", \"minPSNR\", \"maxNormalError\""
            ])
        // λ in a DDS: the container's reason, where the container is known.
        let (dds, _) = Self.texture(#"{"format": "bc7", "supercompression": "zstd", "target": {"minSSIM": 0.95}}"#)
        #expect(
            dds?.problems(in: .dds).first?.message
                == "target has nothing to choose: bc7's only knob is the rdo λ, which makes a file smaller only under zstd, and DDS files are not supercompressed (use a .ktx2 template, or a format list)"
        )
        // A list's candidates each answer the container's rules.
        let (list, _) = Self.texture(#"{"format": ["bc1", "uastc"], "target": {"minSSIM": 0.95}}"#)
        #expect(
            list?.problems(in: .dds).map(\.message) == [
                "uastc is KTX2 only: DDS cannot hold UASTC (use a .ktx2 template)"
            ])
    }

    @Test func aListOrAstcWithoutATargetIsAnError() {
        #expect(
            Self.texture(#"{"format": ["bc1", "bc7"]}"#).1 == [
                "format: a format list is chosen from against a target: add \"target\" (e.g. {\"minSSIM\": 0.95}) or name one format"
            ])
        #expect(
            Self.texture(#"{"format": "astc"}"#).1 == [
                "format: format \"astc\" chooses its block size against a target: add \"target\" (e.g. {\"minSSIM\": 0.95}) or name a size such as \"astc-6x6\""
            ])
        #expect(
            Self.texture(#"{"format": ["bc1", "bc1"], "target": {"minSSIM": 0.9}}"#).1.first?.contains(
                "a non-empty array of them") == true)
    }

    @Test func aFileKindsTargetChoosesItsQuality() throws {
        func file(_ key: String, _ json: String) -> [String] {
            guard case .object(let o)? = try? JSONParser.parse(Array(json.utf8)),
                let table = ImageFileSettings.tables.first(where: { $0.key == key })
            else { return ["bad test JSON"] }
            var d = ParameterDecoder(file: "m.json", placeholders: nil, knownNames: [])
            guard let args = d.decode(o, at: JSONPath(), table: table.parameters) else {
                return d.diagnostics.map(\.message)
            }
            var s = ImageFileSettings()
            do throws(SettingsProblems) {
                try s.set(key, args)
                return []
            } catch {
                return error.all.map(\.message)
            }
        }
        #expect(file("jpeg", #"{"target": {"minSSIM": 0.95}}"#) == [])
        #expect(
            file("jpeg", #"{"quality": 80, "target": {"minSSIM": 0.95}}"#) == [
                "quality and target: the target chooses jpeg's quality (remove quality or target)"
            ])
        #expect(
            file("webp", #"{"lossless": true, "target": {"minSSIM": 0.95}}"#) == [
                "target has nothing to choose: a lossless WebP is exact, its quality only effort (remove lossless or target)"
            ])
        #expect(
            file("avif", #"{"target": {"minSSIM": 0.95, "minimize": "gpuBytes"}}"#) == [
                "target has nothing to choose: minimize \"gpuBytes\": an image file's GPU size is its pixels', whatever its quality (remove minimize)"
            ])
    }

    @Test func aChoiceTokenReadsBack() throws {
        for c in [
            TargetChoice(knob: "qlevel", value: "96"), TargetChoice(knob: "lambda", value: "0.015625"),
            TargetChoice(knob: "block", value: "6x6"), TargetChoice(knob: nil, value: nil),
        ] {
            #expect(TargetChoice(token: Substring(c.token)) == c)
        }
        for bad in ["", "qlevel", "qlevel=", "speed=3", "qlevel=9;6", "block=6x6=1"] {
            #expect(TargetChoice(token: Substring(bad)) == nil, "\(bad)")
        }
    }
}
