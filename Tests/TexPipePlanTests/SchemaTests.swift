import Foundation
import Testing
import TexPipePlanTestSupport
import TexPipeTestSupport

@testable import TexPipeCodecs
@testable import TexPipeFormats
@testable import TexPipeManifest
@testable import TexPipeParameters
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeStages

/// The manifest's JSON Schema against `texpipe validate`, judged by an independent validator
/// (Python's `jsonschema`, draft 2020-12; `Scripts/setup --test` installs it): what validate
/// accepts, the schema accepts; the type, enum, range, unknown-key and missing-key errors
/// validate reports, the schema reports too.
@Suite("JSON Schema")
struct SchemaTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test func committedCopyIsWhatTexpipeSchemaPrints() throws {
        let committed = try String(contentsOfFile: Self.root + "/docs/pipeline.schema.json", encoding: .utf8)
        #expect(committed == ManifestSchema.text, "run `texpipe schema > docs/pipeline.schema.json`")
    }

    @Test func everyStageAndParameterIsInTheSchema() throws {
        let schema = try #require(
            try JSONSerialization.jsonObject(with: Data(ManifestSchema.text.utf8)) as? [String: Any])
        let defs = try #require(schema["$defs"] as? [String: Any])
        let oneOf = try #require((defs["stage"] as? [String: Any])?["oneOf"] as? [[String: String]])
        #expect(oneOf.map { $0["$ref"] } == StageRegistry.names.map { "#/$defs/stage-" + $0 })
        for type in StageRegistry.all {
            let stage = try #require(defs["stage-" + type.name] as? [String: Any])
            let properties = try #require(stage["properties"] as? [String: [String: Any]])
            #expect(Set(properties.keys) == Set(["stage"] + type.parameters.map(\.name)), "\(type.name)")
            for p in type.parameters {
                let description = properties[p.name]?["description"] as? String
                #expect(description?.hasPrefix(p.doc) == true, "\(type.name).\(p.name) has its doc as description")
            }
        }
    }

    /// A workspace where these manifests' globs match: two 4×3 PNGs, a mask and the files stages'
    /// identity arguments name (normal-blend's `flat.png`).
    static func workspace() throws -> TempDir {
        let t = TempDir()
        t.png("in/a.png")
        t.png("in/b.png")
        t.png("mask.png")
        t.png("opaque.png")
        t.png("flat.png")
        t.write("hdr/sky.exr", exrBytes)
        t.write("teams.json", text: ##"[{"name": "reds", "shirt": "#c8102e"}, {"name": "blues", "shirt": "#0033a0"}]"##)
        return t
    }

    static func manifest(
        _ stages: String, extra: String = "", output: String = "{file}{suffix}.png", inputs: String = "in/*.png"
    ) -> String {
        #"{"$schema": "./schema.json", "version": 1, "output": "out", "pipelines": [{"name": "p", "inputs": [""#
            + inputs
            + #""], "output": ""#
            + output + #"", "stages": ["# + stages + "]" + extra + "}]}"
    }

    /// Manifests validate accepts: every stage with its identity arguments and with its optional
    /// parameters, the settings blocks, every form of variants, distinct, placeholders.
    static var accepted: [String] {
        var out = StageRegistry.all.map { type in
            let args = type.identity.dropFirst().dropLast()
            // A stage that needs premultiplied input gets it declared.
            let alpha = type.name == "unpremultiply" ? #", "inputAlpha": "premultiplied""# : ""
            // A stage that takes only HDR images (tonemap) gets an EXR input; one that takes only cube
            // maps (prefilter, irradiance) gets a cubemap before it.
            let cubeOnly = [Prefilter.name, Irradiance.name].contains(type.name)
            let hdrOnly = type.name == Tonemap.name || cubeOnly
            return manifest(
                (cubeOnly ? #"{"stage": "cubemap"}, "# : "") + #"{"stage": "\#(type.name)""#
                    + (args.isEmpty ? "" : ", " + args) + "}", extra: alpha,
                output: cubeOnly ? "{file}{suffix}.exr" : "{file}{suffix}.png",
                inputs: hdrOnly ? "hdr/*.exr" : "in/*.png")
        }
        out += [
            manifest(
                ##"{"stage": "color-key", "color": "rgb(0, 128, 0)", "tolerance": 0.1, "region": "edges", "feather": 0.05, "unmix": true}"##
            ),
            manifest(
                #"{"stage": "round-corners", "radius": [7.5, 0, 3, 12.25], "border": {"width": 1.5, "color": "Navy"}}"#),
            manifest(
                #"{"stage": "rotate", "degrees": 17, "filter": "lanczos3", "shadow": {"offset": [2, 3], "blur": 1.5}}"#),
            manifest(#"{"stage": "mipmaps", "filter": "kaiser", "coverage": 0.5, "layout": "strip", "minSize": 4}"#),
            manifest(
                ##"{"stage": "composite", "layers": [{"color": "#ff000080", "mask": "mask.png", "blend": "multiply", "opacity": 0.5}, {"gradient": {"from": "hsl(120, 50%, 50%)", "to": "transparent", "angle": 90}}, {"text": "7", "size": 20, "at": [2, 2], "anchor": "top-left", "outline": {"width": 1}}]}"##
            ),
            manifest(
                #"{"stage": "adjust", "brightness": "{boost}", "hue": 10}"#,
                extra: #", "variants": [{"name": "a", "boost": 1.2}, {"name": "b", "boost": "0.8"}]"#,
                output: "{variant}/{file}.png"
            ),
            manifest(
                #"{"stage": "premultiply"}"#,
                extra:
                    #", "inputAlpha": "straight", "png": {"level": 9, "filter": "paeth", "color": "rgba", "depth": 16}, "exclude": ["in/b.png"]"#
            ),
            manifest(
                #"{"stage": "flatten"}"#, extra: #", "jpeg": {"quality": 80, "progressive": true}"#,
                output: "{file}.jpg"),
            manifest(
                #"{"stage": "composite", "layers": [{"color": "{shirt}"}]}"#,
                extra:
                    #", "variants": {"product": ["teams.json", [{"name": "1"}, {"name": "7"}]]}, "distinct": {"keys": ["shirt"], "minDeltaE": 10, "severity": "warning"}"#,
                output: "{variant}/{file}.png"
            ),
        ]
        return out
    }

    /// Errors of the kinds both should report, with the message validate gives.
    static let rejected: [(manifest: String, validate: String)] = [
        (
            manifest(#"{"stage": "round-corners", "radius": "six"}"#),
            "expected a number in 0…65536 or an array of 4 of them"
        ),
        (manifest(#"{"stage": "round-corners", "radius": -1}"#), "expected a number in 0…65536"),
        (manifest(#"{"stage": "rotate", "degrees": 90, "filter": "cubic"}"#), #"expected one of "bilinear""#),
        (manifest(#"{"stage": "color-key", "color": "red", "tolerance": 1.5}"#), "expected a number in 0…1"),
        (manifest(#"{"stage": "color-key", "colour": "red"}"#), #"unknown key "colour"; did you mean "color"?"#),
        (manifest(#"{"stage": "color-key"}"#), #"missing required key "color""#),
        (manifest(#"{"stage": "sharpen"}"#), #"unknown stage "sharpen""#),
        (manifest(#"{"stage": "mipmaps", "levels": 2.5}"#), "expected an integer in 1…32"),
        (manifest(#"{"stage": "flip", "axis": true}"#), #"expected one of "horizontal""#),
        (manifest(#"{"stage": "pad", "all": 2}"#, extra: #", "png": {"level": 13}"#), "expected an integer in 0…12"),
        (manifest(#"{"stage": "pad", "all": 2}"#, extra: #", "png": {"depth": 12}"#), "expected 8 or 16"),
        (manifest(#"{"stage": "pad", "all": 2}"#, extra: #", "jpeg": {"qualty": 80}"#), #"unknown key "qualty""#),
        (
            manifest(#"{"stage": "pad", "all": 2}"#, extra: #", "inputAlpha": "premultipled""#),
            #"expected one of "straight""#
        ),
        (manifest(#"{"stage": "pad", "all": 2}"#, extra: #", "outputs": "x.png""#), #"unknown key "outputs""#),
        (#"{"version": 2, "pipelines": []}"#, "expected 1"),
        (#"{"version": 1, "pipelines": [], "outptu": "x"}"#, #"unknown key "outptu""#),
        (
            manifest(#"{"stage": "composite", "layers": [{"color": "red", "blend": "overlayy"}]}"#),
            #"expected one of "normal""#
        ),
        (manifest(#"{"stage": "composite", "layers": [{"color": "notacolor"}]}"#), #"malformed color "notacolor""#),
    ]

    /// Which manifests the schema accepts, by Python's jsonschema.
    static func schemaAccepts(_ manifests: [String], in t: TempDir) throws -> [Bool] {
        t.write("schema.json", text: ManifestSchema.text)
        var paths: [String] = []
        for (i, m) in manifests.enumerated() {
            t.write("m\(i).json", text: m)
            paths.append(t.path + "/m\(i).json")
        }
        let data = try Python.run(
            [
                "-c",
                """
                import json, sys, jsonschema
                schema = json.load(open(sys.argv[1]))
                jsonschema.Draft202012Validator.check_schema(schema)
                v = jsonschema.Draft202012Validator(schema)
                for path in sys.argv[2:]:
                    print("ok" if v.is_valid(json.load(open(path))) else "invalid")
                """,
                t.path + "/schema.json",
            ] + paths)
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { $0 == "ok" }
    }

    @Test func whatValidateAcceptsTheSchemaAccepts() throws {
        let t = try Self.workspace()
        // The repository's own manifests: the samples, the docs' pictures, the plugin demo.
        let repo = ["pipeline.json", "docs/stages.json", "Examples/PluginDemo/pipeline.json"].map {
            Self.root + "/" + $0
        }
        for path in repo {
            do { _ = try Planner.plan(try Manifest.load(path: path)) } catch {
                Issue.record("validate rejects \(path): \(error)")
            }
        }
        let manifests = try Self.accepted + repo.map { try String(contentsOfFile: $0, encoding: .utf8) }
        for m in Self.accepted {
            if case .failure(let e) = t.plan(m) { Issue.record("validate rejects \(m): \(e)") }
        }
        let verdicts = try Self.schemaAccepts(manifests, in: t)
        #expect(verdicts.count == manifests.count)
        for (m, ok) in zip(manifests, verdicts) where !ok { Issue.record("the schema rejects \(m.prefix(300))") }
    }

    @Test func whatValidateRejectsTheSchemaRejects() throws {
        let t = try Self.workspace()
        for (m, message) in Self.rejected {
            guard case .failure(let e) = t.plan(m) else {
                Issue.record("validate accepts \(m)")
                continue
            }
            #expect(e.description.contains(message), "validate: \(e.description)")
        }
        let verdicts = try Self.schemaAccepts(Self.rejected.map(\.manifest), in: t)
        #expect(verdicts.count == Self.rejected.count)
        for (r, ok) in zip(Self.rejected, verdicts) where ok { Issue.record("the schema accepts \(r.manifest)") }
    }
}
