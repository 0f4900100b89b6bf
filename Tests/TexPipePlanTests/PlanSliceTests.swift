import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeCodecs
@testable import TexPipeFormats
@testable import TexPipeManifest
@testable import TexPipeParameters
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeStages

/// Thousands of inputs are planned in slices on several cores; the plan must be exactly the one
/// a single pass makes: jobs, their order and indices, keys, failures and diagnostics.
@Suite("planning in slices")
struct PlanSliceTests {
    static func plan(_ t: TempDir, _ manifest: String, slice: Int) -> Result<Plan, ManifestError> {
        t.write("pipeline.json", text: manifest)
        var options = PlanOptions()
        options.inputsPerSlice = slice
        do {
            return .success(try Planner.plan(try Manifest.load(path: t.path + "/pipeline.json"), options))
        } catch let e as ManifestError {
            return .failure(e)
        } catch {
            fatalError("\(error)")
        }
    }

    static func facts(_ p: Plan) -> [String] {
        p.jobs.map { j in
            [
                "\(j.index)", j.id, j.parameters, j.outputs.map(\.path).joined(separator: ","),
                j.failure?.message ?? "-", j.failure?.stage ?? "-", "\(j.input.pixels)", j.input.display,
                j.reads.files.joined(separator: ","), j.variant ?? "-",
                j.work.stages.map { type(of: $0).name }.joined(separator: ","),
            ].joined(separator: "|")
        }
    }

    @Test func slicedPlansEqualOnePass() throws {
        let t = TempDir()
        for k in 0..<60 {
            // Sizes vary so a crop fails some inputs; a few files are not images at all.
            if k % 17 == 5 {
                t.write("in/f\(k / 20)/s\(k).png", [1, 2, 3])
            } else {
                t.png("in/f\(k / 20)/s\(k).png", width: 4 + k % 9, height: 3 + k % 5)
            }
        }
        let manifest = """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "crop", "inputs": ["in/**/*.png"], "output": "{path}/{file}.png",
                "stages": [ { "stage": "crop", "x": 0, "y": 0, "width": 8, "height": 4 }, { "stage": "premultiply" } ] },
              { "name": "teams", "inputs": ["in/f1/*.png"], "output": "teams/{variant}/{file}.png",
                "variants": [ { "name": "red", "pad": "2" }, { "name": "blue", "pad": "3" } ],
                "stages": [ { "stage": "pad", "all": "{pad}" } ] },
              { "name": "mips", "inputs": ["in/f2/*.png"], "output": "mips/{file}{suffix}.png",
                "stages": [ { "stage": "mipmaps" } ] }
            ] }
            """
        let one = try Self.plan(t, manifest, slice: 100_000).get()
        let sliced = try Self.plan(t, manifest, slice: 3).get()
        #expect(one.jobs.count == 60 + 40 + 20)
        #expect(one.jobs.contains { $0.failure != nil })
        let (a, b) = (Self.facts(sliced), Self.facts(one))
        #expect(a.count == b.count)
        let first = a.indices.first { $0 < b.count && a[$0] != b[$0] }
        #expect(first == nil, "job \(first ?? -1): \(first.map { a[$0] } ?? "") ≠ \(first.map { b[$0] } ?? "")")
    }

    @Test func slicedDiagnosticsEqualOnePass() throws {
        let t = TempDir()
        for k in 0..<30 { t.png("in/s\(k).png") }
        // An unknown placeholder per job and a pad value that is not a number for one variant.
        let manifest = """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "bad", "inputs": ["in/*.png"], "output": "{file}-{nope}.png", "stages": [] },
              { "name": "teams", "inputs": ["in/*.png"], "output": "{variant}/{file}.png",
                "variants": [ { "name": "red", "pad": "2" }, { "name": "blue", "pad": "x" } ],
                "stages": [ { "stage": "pad", "all": "{pad}" } ] }
            ] }
            """
        guard case .failure(let one) = Self.plan(t, manifest, slice: 100_000),
            case .failure(let sliced) = Self.plan(t, manifest, slice: 2)
        else {
            Issue.record("both plans should fail")
            return
        }
        #expect(!one.diagnostics.isEmpty)
        #expect(sliced.diagnostics.map(\.description) == one.diagnostics.map(\.description))
    }
}

/// A template compiled once renders exactly what `Template.render` does, for every shape of
/// text: literal braces, unknown and missing names, `%` suffixes, unicode.
@Suite("compiled templates")
struct CompiledTemplateTests {
    @Test func compiledEqualsRender() {
        let pieces = [
            "{file}", "{path}", "{file%_diffuse}", "{missing}", "{", "}", "{{file}}", "{a b}", "{1x}", "{file%}",
            "{file%{x}}", "_", "é", "🇫🇷", "/", ".png", "{suffix}", "%", "{ext}",
        ]
        let values = ["file": "rock_diffuse", "path": "a/b", "suffix": "_mip0", "ext": "png"]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let text = (0..<Int.random(in: 0...6, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
            let a = Template.render(text, values)
            let b = Template.Compiled(text).render(values)
            switch (a, b) {
            case (.success(let x), .success(let y)): #expect(x == y, "\(text)")
            case (.failure(let x), .failure(let y)): #expect(x.name == y.name, "\(text)")
            default: Issue.record("\(text): \(a) vs \(b)")
            }
        }
    }
}
