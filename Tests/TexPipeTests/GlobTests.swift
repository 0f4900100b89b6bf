import Testing

@testable import TexPipe
@testable import TexPipeCodecs
@testable import TexPipeEngine
@testable import TexPipeFormats
@testable import TexPipeManifest
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeReport
@testable import TexPipeStages

@Suite("globs")
struct GlobTests {
    @Test func segmentMatching() {
        #expect(Glob.matchSegment("*.png", "a.png"))
        #expect(!Glob.matchSegment("*.png", "a.jpg"))
        #expect(!Glob.matchSegment("*.png", ".hidden.png"))
        #expect(Glob.matchSegment("?-*.png", "a-spades.png"))
        #expect(!Glob.matchSegment("?-*.png", "10-hearts.png"))
        #expect(Glob.matchSegment("[a-c]*.png", "b.png"))
        #expect(!Glob.matchSegment("[!a-c]*.png", "b.png"))
    }

    @Test func braces() {
        #expect(Glob.expandBraces("a{b,c{d,e}}f") == ["abf", "acdf", "acef"])
        #expect(Glob.expandBraces("x/{a,b}.png") == ["x/a.png", "x/b.png"])
        #expect(Glob.expandBraces("no braces") == ["no braces"])
    }

    @Test func walkWithDoubleStarAndFolders() {
        let t = TempDir()
        for f in ["S/a.png", "S/b.jpg", "S/x/c.png", "S/x/y/d.png", "S/.git/e.png", "T/f.png"] { t.write(f, text: "") }
        func rel(_ pattern: String) -> [String] { Glob(pattern).matches(in: t.path).map(\.relativePath) }
        #expect(rel("S/*.png") == ["S/a.png"])
        #expect(rel("S/**/*.png") == ["S/a.png", "S/x/c.png", "S/x/y/d.png"])
        #expect(rel("S/*/*.png") == ["S/x/c.png"])
        #expect(rel("{S,T}/*.{png,jpg}") == ["S/a.png", "S/b.jpg", "T/f.png"])
        #expect(rel("S/a.png") == ["S/a.png"])
        #expect(rel("S/nope.png") == [])
        #expect(Glob("S/**/*.png").matches(in: t.path).map(\.folder) == ["", "x", "x/y"])
        #expect(Glob("S/**/y/*.png").matches(path: "S/x/y/d.png"))
        #expect(!Glob("S/**/y/*.png").matches(path: "S/x/d.png"))
    }

    @Test func excludeRemovesInputsAndExcludingEverythingIsAnError() throws {
        let t = TempDir()
        t.png("S/a.png")
        t.png("S/b_alpha.png")
        t.png("S/x/c_alpha.png")
        let plan = try t.plan(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "p", "inputs": ["S/**/*.png"], "exclude": ["**/*_alpha.png"], "output": "{file}.png", "stages": [] } ] }
            """
        ).get()
        #expect(
            plan.jobs.map(\.inputDisplay).map { $0.replacingOccurrences(of: t.path + "/", with: "") } == ["S/a.png"])
        #expect(
            t.errors(
                """
                { "version": 1, "output": "out", "pipelines": [
                  { "name": "p", "inputs": ["S/*.png"], "exclude": ["S/*"], "output": "{file}.png", "stages": [] } ] }
                """) == ["error: $T/pipeline.json: pipelines[0].exclude: excludes every input"])
    }
}
