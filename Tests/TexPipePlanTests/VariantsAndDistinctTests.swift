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

@Suite("variants, product and distinct")
struct VariantsAndDistinctTests {
    /// Sharma, Wu and Dalal (2005), Table 1: L1 a1 b1, L2 a2 b2, ΔE00 — all 34 pairs.
    static let sharma: [[Double]] = [
        [50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425],
        [50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615],
        [50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412],
        [50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000],
        [50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000],
        [50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000],
        [50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669],
        [50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669],
        [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792],
        [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792],
        [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195],
        [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195],
        [50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045],
        [50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045],
        [50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461],
        [50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065],
        [50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492],
        [50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977],
        [50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030],
        [50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535],
        [50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000],
        [50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000],
        [50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000],
        [50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000],
        [60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644],
        [63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630],
        [61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731],
        [35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645],
        [22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373],
        [36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146],
        [90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441],
        [90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381],
        [6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377],
        [2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082],
    ]

    @Test func ciede2000MatchesSharmaWuDalalToFourDecimals() {
        #expect(Self.sharma.count == 34)
        for (i, row) in Self.sharma.enumerated() {
            let p = Lab(l: row[0], a: row[1], b: row[2])
            let q = Lab(l: row[3], a: row[4], b: row[5])
            let forward = Lab.deltaE2000(p, q)
            let backward = Lab.deltaE2000(q, p)
            #expect((forward * 10000).rounded() / 10000 == row[6], "pair \(i + 1): \(forward)")
            #expect(abs(forward - backward) < 1e-12, "pair \(i + 1) is symmetric")
        }
    }

    @Test func srgbToLabUsesD65() {
        let white = Lab(Color.white)
        #expect(abs(white.l - 100) < 1e-3 && abs(white.a) < 1e-3 && abs(white.b) < 1e-3)
        let red = Lab(Color(r: 1, g: 0, b: 0))  // the published sRGB red: L 53.24, a 80.09, b 67.20
        #expect(abs(red.l - 53.24) < 0.01 && abs(red.a - 80.09) < 0.02 && abs(red.b - 67.20) < 0.02)
    }

    static let teams =
        ##"[ { "name": "reds", "shirt": "#c8102e" }, { "name": "crimson", "shirt": "#b8141f" }, { "name": "navy", "shirt": "navy" } ]"##

    static func manifest(severity: String, variants: String = teams, min: Int = 10) -> String {
        """
        { "version": 1, "pipelines": [ { "name": "kits", "inputs": ["in.png"], "output": "{variant}.png",
          "variants": \(variants),
          "distinct": { "keys": ["shirt"], "minDeltaE": \(min), "severity": "\(severity)" },
          "stages": [] } ] }
        """
    }

    @Test func closeColorsAreReportedWithBothNamesBothColorsAndTheDistance() throws {
        let t = TempDir()
        t.png("in.png")
        let d = Lab.deltaE2000(Color(parsing: "#c8102e")!, Color(parsing: "#b8141f")!)
        let text = String(format: "%.1f", d)
        let message =
            "pipelines[0].distinct: variants \"reds\" and \"crimson\" are too alike: shirt #c8102e vs #b8141f ΔE00 \(text) (minDeltaE 10)"
        #expect(t.errors(Self.manifest(severity: "error")) == ["error: $T/pipeline.json: " + message])
        let plan = try t.plan(Self.manifest(severity: "warning")).get()
        #expect(plan.jobs.count == 3)
        #expect(
            plan.warnings.map { $0.description.replacingOccurrences(of: t.path, with: "$T") } == [
                "warning: $T/pipeline.json: " + message
            ])
        // Far enough apart: nothing.
        #expect(try t.plan(Self.manifest(severity: "error", min: 3)).get().warnings.isEmpty)
    }

    @Test func distinctMistakes() throws {
        let t = TempDir()
        t.png("in.png")
        let bad = Self.manifest(
            severity: "error", variants: ##"[ { "name": "a", "shirt": "#12345" }, { "name": "b" } ]"##)
        #expect(
            t.errors(bad) == [
                "error: $T/pipeline.json: pipelines[0].distinct.keys: not every variant has the key \"shirt\""
            ])
        let malformed = Self.manifest(severity: "loud", variants: ##"[ { "name": "a", "shirt": "#12345" } ]"##)
        let errors = t.errors(malformed)
        #expect(errors.contains { $0.contains("pipelines[0].distinct.severity") })
        #expect(errors.contains { $0.contains("variant \"a\" key \"shirt\": malformed color \"#12345\"") })
    }

    /// A variants file that cannot be used is one error; "distinct" does not add that the
    /// pipeline has no variants.
    @Test func aBrokenVariantsFileIsOneError() {
        let t = TempDir()
        t.png("in.png")
        t.write("teams.json", text: #"{ "name": "reds" }"#)
        #expect(
            t.errors(Self.manifest(severity: "error", variants: #""teams.json""#)) == [
                "error: teams.json: expected an array of variant objects"
            ])
    }

    @Test func productCombinesListsAndDistinctComparesOnlyTheListWithTheKeys() throws {
        let t = TempDir()
        t.png("in.png")
        t.write(
            "teams.json",
            text: ##"[ { "name": "reds", "shirt": "#c8102e" }, { "name": "blues", "shirt": "#1030c0" } ]"##)
        let plan = try t.plan(
            #"""
            { "version": 1, "pipelines": [ { "name": "kits", "inputs": ["in.png"], "output": "{variant}_{number}.png",
              "variants": { "product": [ "teams.json", [ { "name": "7", "number": 7 }, { "name": "10", "number": 10 } ] ] },
              "distinct": { "keys": ["shirt"], "minDeltaE": 20 },
              "stages": [] } ] }
            """#
        ).get()
        #expect(plan.jobs.map(\.variant!) == ["reds-7", "reds-10", "blues-7", "blues-10"])
        #expect(
            plan.jobs.map(\.outputs[0].relative) == [
                "reds-7_7.png", "reds-10_10.png", "blues-7_7.png", "blues-10_10.png",
            ])
        #expect(plan.warnings.isEmpty, "two numbers of one team are one kit, not a clash")
        let clash = t.errors(
            #"""
            { "version": 1, "pipelines": [ { "name": "kits", "inputs": ["in.png"], "output": "{variant}.png",
              "variants": { "product": [ "teams.json", [ { "name": "7", "shirt": "red" } ] ] }, "stages": [] } ] }
            """#)
        #expect(
            clash == [
                "error: $T/pipeline.json: pipelines[0].variants.product[1]: variant key \"shirt\" appears in two lists of the product"
            ])
    }

    @Test("unsafe variant names are manifest errors", arguments: ["../x", "a/b", "", ".hidden", "a b"])
    func unsafeNames(name: String) throws {
        let t = TempDir()
        t.png("in.png")
        let errors = t.errors(
            """
            { "version": 1, "pipelines": [ { "name": "p", "inputs": ["in.png"], "output": "{variant}.png",
              "variants": [ { "name": "\(name)" } ], "stages": [] } ] }
            """)
        #expect(
            errors.first
                == "error: $T/pipeline.json: pipelines[0].variants[0].name: variant name \"\(name)\" must be a safe file-name component (letters, digits, '.', '_', '-'; not starting with '.')"
        )
    }

    @Test func unresolvedPlaceholderInAStringValueIsAnError() throws {
        let t = TempDir()
        t.png("in.png")
        let errors = t.errors(
            #"""
            { "version": 1, "pipelines": [ { "name": "p", "inputs": ["in.png"], "output": "{variant}.png",
              "variants": [ { "name": "a", "shirt": "red" } ],
              "stages": [ { "stage": "composite", "layers": [ { "color": "{shrit}" } ] } ] } ] }
            """#)
        #expect(errors.count == 1)
        #expect(
            errors.first?.contains("pipelines[0].stages[0].layers[0].color: unresolved placeholder {shrit}") == true)
    }

    /// The sample manifest's jerseys: one file per team and number, the close pair warned about.
    @Test func jerseysPipelineMakesTeamsTimesNumbers() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let teams =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: root.appendingPathComponent("Samples/jerseys/teams.json"))) as! [[String: Any]]
        let plan = try Planner.plan(
            try Manifest.load(path: root.appendingPathComponent("pipeline.json").path),
            PlanOptions(pipelines: ["jerseys"]))
        #expect(teams.count >= 8)
        #expect(plan.jobs.count == teams.count * 3)
        let outputs = Set(plan.jobs.flatMap { $0.outputs.map(\.relative) })
        #expect(outputs.count == teams.count * 3)
        for team in teams {
            for number in ["1", "7", "10"] { #expect(outputs.contains("jerseys/\(team["name"]!)-\(number).png")) }
        }
        #expect(plan.warnings.count == 1)
        #expect(plan.warnings.first?.message.hasPrefix("variants \"reds\" and \"crimson\" are too alike") == true)
    }
}
