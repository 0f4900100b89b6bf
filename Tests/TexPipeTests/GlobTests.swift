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
        #expect(Glob.expandBraces("a{b,c{d,e}}f", limit: 256) == ["abf", "acdf", "acef"])
        #expect(Glob.expandBraces("x/{a,b}.png", limit: 256) == ["x/a.png", "x/b.png"])
        #expect(Glob.expandBraces("no braces", limit: 256) == ["no braces"])
        // Groups multiply: eight of two make 256 (the most), nine 512.
        let eight = String(repeating: "{a,b}", count: 8)
        #expect(Glob.expandBraces(eight, limit: 256)?.count == 256)
        #expect(Set(Glob.expandBraces(eight, limit: 256) ?? []).count == 256)
        #expect(Glob.expandBraces(eight + "{a,b}", limit: 256) == nil)
        #expect(!Glob(eight).tooManyAlternatives && Glob(eight + "{a,b}").tooManyAlternatives)
        // Forty groups would be 2⁴⁰ patterns: refused without being written out.
        #expect(Glob(String(repeating: "{a,b}", count: 40) + "*.png").tooManyAlternatives)
    }

    /// The expansion by its definition, as texpipe first wrote it: the first `{` with its `}` (the
    /// nearest with as many of each between; none: the string as it is), split at the commas
    /// outside inner groups, and `head + part + tail` expanded again for every part.
    static func definition(_ s: String, limit: Int) -> [String]? {
        let c = Array(s)
        guard let open = c.firstIndex(of: "{") else { return [s] }
        var depth = 0
        var parts: [String] = []
        var current = ""
        var close: Int?
        for k in (open + 1)..<c.count {
            if c[k] == "{" { depth += 1 }
            if c[k] == "}" {
                if depth == 0 {
                    close = k
                    break
                }
                depth -= 1
            }
            if c[k] == "," && depth == 0 {
                parts.append(current)
                current = ""
            } else {
                current.append(c[k])
            }
        }
        guard let close else { return [s] }
        parts.append(current)
        var out: [String] = []
        for part in parts {
            guard let more = definition(String(c[..<open]) + part + String(c[(close + 1)...]), limit: limit - out.count)
            else { return nil }
            out += more
            if out.count > limit { return nil }
        }
        return out
    }

    /// Random patterns of braces, commas and letters (unmatched ones, empty groups, nesting)
    /// expand as the definition expands them, in the same order, refused at the same limit.
    @Test func bracesExpandAsTheirDefinition() {
        var r = SeededRandom(seed: 7)
        let alphabet: [Character] = ["{", "}", ",", "a", "b", "{", "}", ","]
        for n in 0..<4000 {
            let length = 1 + n % 14
            let pattern = String((0..<length).map { _ in alphabet[Int(r.next() % UInt64(alphabet.count))] })
            for limit in [3, 256] {
                #expect(
                    Glob.expandBraces(pattern, limit: limit) == Self.definition(pattern, limit: limit),
                    "\(pattern) at \(limit)")
            }
        }
    }

    /// Many groups and deep nesting cost the pattern's length, not its square or a call per level
    /// (20,000 `{a}` groups took minutes; 100,000 nested ones would have overflowed the stack).
    @Test func longAndDeepBracesExpandInOnePass() {
        let groups = "x" + String(repeating: "{a}", count: 20_000) + "*.png"
        #expect(Glob.expandBraces(groups, limit: 256) == ["x" + String(repeating: "a", count: 20_000) + "*.png"])
        let deep = String(repeating: "{", count: 100_000) + "a,b" + String(repeating: "}", count: 100_000)
        #expect(Glob.expandBraces(deep, limit: 256) == ["a", "b"])
        // Unmatched, the first `{` makes the rest literal: the groups after it are not expanded.
        #expect(Glob.expandBraces("{a,b}{x{c,d}", limit: 256) == ["a{x{c,d}", "b{x{c,d}"])
    }

    /// `*` against a name: every split of the name over the stars was tried, 2⁴⁰-odd ways here;
    /// now only the last star takes one more character on a mismatch.
    @Test func manyStarsStayLinear() {
        let name = String(repeating: "a", count: 60) + ".png"
        #expect(!Glob.matchSegment(String(repeating: "*a", count: 40) + "*b", name))
        #expect(Glob.matchSegment(String(repeating: "*a", count: 40) + "*.png", name))
        #expect(Glob.matchSegment("*a*[p-q]?g", name))
        #expect(!Glob.matchSegment("*a*[!p]ng", name))
        // A `[` without its `]` is itself.
        #expect(Glob.matchSegment("a[*", "a[bc") && Glob.matchSegment("a[*", "a[") && !Glob.matchSegment("a[*", "ab"))
    }

    @Test func tooManyAlternativesIsAnErrorNamingTheGlob() {
        let t = TempDir()
        t.png("S/a.png")
        let many = String(repeating: "{a,b}", count: 9)
        #expect(
            t.errors(
                """
                { "version": 1, "output": "out", "pipelines": [
                  { "name": "p", "inputs": ["S/*.png", "S/\(many).png"], "exclude": ["\(many)"], "output": "{file}.png", "stages": [] } ] }
                """)
                == [
                    "error: $T/pipeline.json: pipelines[0].exclude[0]: its {…} alternatives expand into more than 256 patterns (each group multiplies the others)",
                    "error: $T/pipeline.json: pipelines[0].inputs[1]: its {…} alternatives expand into more than 256 patterns (each group multiplies the others)",
                ])
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
