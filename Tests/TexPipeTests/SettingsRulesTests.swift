import Testing
import TexPipePlanTestSupport
import TexPipeTestSupport

@testable import TexPipe

/// A settings type states its rules once (`TextureSettings.init`, `problems(in:hdrImage:)`,
/// `PNGSettings.init`, `AtlasSettings.init`): the manifest asks them for the values it can read,
/// the planner for values from placeholders and for each job's container and image, the encoder
/// for settings built in code. Each mistake is one error, worded once, found before anything runs.
@Suite("settings rules")
struct SettingsRulesTests {
    static let astcInDDS = "astc-4x4 is KTX2 only: DDS cannot hold ASTC (use a .ktx2 template)"

    static func errors(_ pipeline: String) -> [String] {
        let t = TempDir()
        t.png("in/a.png", width: 8, height: 8)
        return t.errors(#"{ "version": 1, "output": "out", "pipelines": [ "# + pipeline + " ] }")
    }

    /// A format from a variant's placeholder into a container that cannot hold it: the plan says so
    /// for that variant only (it used to pass validation and fail the job when it ran).
    @Test func aFormatFromAPlaceholderIsCheckedAgainstItsJobsContainer() {
        let errors = Self.errors(
            #"{ "name": "p", "inputs": ["in/*.png"], "variants": [{ "name": "a", "fmt": "astc-4x4" }, { "name": "b", "fmt": "bc7" }], "texture": { "format": "{fmt}" }, "output": "{variant}/{file}.dds", "stages": [] }"#
        )
        #expect(
            errors == [
                "error: $T/pipeline.json: pipelines[0].texture.format: \(Self.astcInDDS) (in/a.png) (variant \"a\")"
            ])
    }

    /// A container from a variant's placeholder: the settings' own rules are still checked before
    /// the run (they used to be skipped with the container), and the container's per job.
    @Test func aContainerFromAPlaceholderStillChecksTheSettings() {
        let both = Self.errors(
            #"{ "name": "p", "inputs": ["in/*.png"], "variants": [{ "name": "a", "box": "ktx2" }], "texture": { "format": "bc7", "rdo": { "lambda": 1, "maxLoss": 1 } }, "output": "{file}.{box}", "stages": [] }"#
        )
        #expect(
            both == [
                "error: $T/pipeline.json: pipelines[0].texture.rdo: expected one of \"lambda\" or \"maxLoss\" in rdo, found both"
            ])
        let dds = Self.errors(
            #"{ "name": "p", "inputs": ["in/*.png"], "variants": [{ "name": "a", "box": "ktx2" }, { "name": "b", "box": "dds" }], "texture": { "format": "astc-4x4" }, "output": "{variant}/{file}.{box}", "stages": [] }"#
        )
        #expect(
            dds == [
                "error: $T/pipeline.json: pipelines[0].texture.format: \(Self.astcInDDS) (in/a.png) (variant \"b\")"
            ])
    }

    /// Settings built in code meet the same rule in the same words as a manifest's.
    @Test func theEncoderAsksTheSameRules() throws {
        var settings = TextureSettings.standard
        settings.format = .astc4x4
        let image = image8(4, 4, Array(repeating: [255, 255, 255, 255], count: 16))
        #expect(throws: CodecError(.settings(SettingsProblem("format", Self.astcInDDS)))) {
            _ = try TextureEncoder.encode([image], settings, container: .dds)
        }
        settings.format = .bc4
        settings.rdo = .lambda(1)
        #expect(
            throws: CodecError(
                .settings(
                    SettingsProblem(
                        "rdo", "rdo applies to bc1, bc3, bc7, uastc, not bc4 (remove rdo or change the format)")))
        ) {
            _ = try TextureEncoder.encode([image], settings, container: .ktx2)
        }
    }

    /// The rules are the settings type's: decoding a block reports every rule it breaks, each at
    /// its key, and the defaults break none (an sRGB default is no mistake for bc4).
    @Test func decodingReportsEveryBrokenRuleAtItsKey() throws {
        func decode(_ json: String) throws -> Arguments {
            var d = ParameterDecoder(file: "", placeholders: [:], knownNames: [])
            guard case .object(let o) = try JSONParser.parse(Array(json.utf8)) else {
                throw CodecError("not an object")
            }
            let args = d.decode(o, at: .root, table: TextureSettings.parameters)
            return try #require(args)
        }
        #expect(throws: Never.self) { try TextureSettings(try decode(#"{ "format": "bc4" }"#)) }
        #expect(
            throws: SettingsProblems([
                SettingsProblem("rdo", "expected \"lambda\" or \"maxLoss\" in rdo, found neither"),
                SettingsProblem(
                    "rdo", "rdo applies to bc1, bc3, bc7, uastc, not bc4 (remove rdo or change the format)"),
                SettingsProblem(
                    "colorSpace",
                    "bc4 is a data format, UNORM only: \"srgb\" does not apply (remove colorSpace or use \"linear\")"),
            ])
        ) { try TextureSettings(try decode(#"{ "format": "bc4", "colorSpace": "srgb", "rdo": {} }"#)) }
    }

    /// `etc1s`'s rules: KTX2 only, always BasisLZ (no `supercompression`, no `rdo`); `qlevel` is
    /// its alone.
    @Test func etc1sRules() {
        func errors(_ texture: String, output: String = "{file}.ktx2") -> [String] {
            Self.errors(
                #"{ "name": "p", "inputs": ["in/*.png"], "output": ""# + output + #"", "texture": "# + texture
                    + #", "stages": [] }"#)
        }
        let at = "error: $T/pipeline.json: pipelines[0].texture."
        #expect(errors(#"{ "format": "etc1s", "qlevel": 200 }"#).isEmpty)
        #expect(
            errors(#"{ "format": "bc7", "qlevel": 200 }"#) == [
                at + "qlevel: qlevel sets etc1s's codebooks, not bc7's (remove qlevel or use etc1s)"
            ])
        #expect(
            errors(#"{ "format": "etc1s", "supercompression": "zstd" }"#) == [
                at
                    + "supercompression: etc1s is always BasisLZ-supercompressed: remove supercompression (zstd does not apply)"
            ])
        #expect(
            errors(#"{ "format": "etc1s" }"#, output: "{file}.dds") == [
                at + "format: etc1s is KTX2 only: DDS cannot hold ETC1S (use a .ktx2 template)"
            ])
        #expect(
            errors(#"{ "format": "etc1s", "rdo": { "lambda": 1 } }"#) == [
                at + "rdo: rdo applies to bc1, bc3, bc7, uastc, not etc1s (remove rdo or change the format)"
            ])
        #expect(
            errors(#"{ "format": "etc1s", "qlevel": 0 }"#) == [
                at + "qlevel: expected an integer in 1…255, found 0"
            ])
    }
}
