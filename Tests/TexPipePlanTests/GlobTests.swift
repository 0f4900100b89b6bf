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

    /// Outside printable ASCII a segment matches by characters (grapheme clusters, compared as
    /// Swift compares them: canonically equivalent is equal).
    @Test func segmentsMatchByCharacters() {
        #expect(Glob.matchSegment("café-*.png", "cafe\u{301}-1.png"))  // precomposed é, decomposed é
        #expect(Glob.matchSegment("caf?.png", "cafe\u{301}.png"))  // `?` takes the whole é
        #expect(!Glob.matchSegment("caf??.png", "cafe\u{301}.png"))
        #expect(Glob.matchSegment("[äöü]*", "über.png") && !Glob.matchSegment("[!äöü]*", "über.png"))
        #expect(Glob.matchSegment("?.png", "🇫🇷.png") && !Glob.matchSegment("??.png", "🇫🇷.png"))
        #expect(Glob.matchSegment("*.png", "カード.png") && !Glob.matchSegment("*.png", ".カード.png"))
        #expect(Glob.matchSegment("\t*", "\tx") && !Glob.matchSegment("\t*", "x"))
    }

    /// The matcher (bytes for printable ASCII, characters read lazily otherwise, one star
    /// backtracking) against the definition written out as it reads: `*` any split of the name,
    /// tried one by one, on patterns and names drawn from an alphabet of the awkward characters.
    @Test func segmentsMatchAsTheirDefinition() {
        func reference(_ pattern: String, _ name: String) -> Bool {
            let (p, n) = (Array(pattern), Array(name))
            if n.first == "." && p.first != "." { return false }
            func m(_ i: Int, _ j: Int) -> Bool {
                if i == p.count { return j == n.count }
                if p[i] == "*" { return (j...n.count).contains { m(i + 1, $0) } }
                guard j < n.count else { return false }
                if p[i] == "?" { return m(i + 1, j + 1) }
                if p[i] == "[", let close = p[(i + 1)...].firstIndex(of: "]") {
                    var body = Array(p[(i + 1)..<close])
                    let negate = body.first == "!" || body.first == "^"
                    if negate { body.removeFirst() }
                    var member = false
                    var k = 0
                    while k < body.count {
                        if k + 2 < body.count && body[k + 1] == "-" {
                            member = member || (body[k] <= n[j] && n[j] <= body[k + 2])
                            k += 3
                        } else {
                            member = member || body[k] == n[j]
                            k += 1
                        }
                    }
                    return member != negate && m(close + 1, j + 1)
                }
                return p[i] == n[j] && m(i + 1, j + 1)
            }
            return m(0, 0)
        }
        let ascii = ["a", "b", "c", ".", "*", "?", "[", "]", "!", "^", "-"]
        let wide = ascii + ["é", "e", "\u{301}", "🇫", "🇷", "ß", "\r", "\n"]
        var rng = SystemRandomNumberGenerator()
        var (hits, checked) = (0, 0)
        for round in 0..<10_000 {
            let alphabet = round % 2 == 0 ? ascii : wide
            func word(_ most: Int) -> String {
                (0..<Int.random(in: 0...most, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }.joined()
            }
            /// A piece of a pattern: a character, or (one in four) a class of one to three
            /// characters or ranges, negated or not.
            func piece() -> String {
                guard Int.random(in: 0..<4, using: &rng) == 0 else { return alphabet.randomElement(using: &rng)! }
                let members = (0..<Int.random(in: 1...3, using: &rng)).map { _ in
                    let first = alphabet.randomElement(using: &rng)!
                    return Bool.random(using: &rng) ? first : first + "-" + alphabet.randomElement(using: &rng)!
                }
                return "[" + ["", "!", "^"].randomElement(using: &rng)! + members.joined() + "]"
            }
            let pattern = (0..<Int.random(in: 0...6, using: &rng)).map { _ in piece() }.joined()
            let name = word(6)
            let expected = reference(pattern, name)
            #expect(
                Glob.matchSegment(pattern, name) == expected,
                "\(pattern.debugDescription) against \(name.debugDescription)")
            if expected { hits += 1 }
            checked += 1
        }
        // Both answers were exercised.
        #expect(hits > 100 && hits < checked - 100)
    }

    /// A long pattern that is not ASCII is read only as far as a short name needs.
    @Test func aLongPatternAgainstAShortName() {
        let long = "é" + String(repeating: "*", count: 10) + String(repeating: "ü[", count: 30_000)
        #expect(!Glob.matchSegment(long, "é.png"))
        #expect(
            Glob.matchSegment("é*" + String(repeating: "ü", count: 30_000), "é" + String(repeating: "ü", count: 30_000))
        )
        #expect(!Glob.matchSegment(String(repeating: "[", count: 50_000) + "a", String(repeating: "[", count: 300)))
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

    /// `café` with one code point and with `e` and an accent: equal Strings, two files. Both
    /// are found (by bytes), in a fixed order, and `{a,b}` naming both finds each once.
    @Test func namesEqualAsStringsAreTwoFiles() {
        let t = TempDir()
        let (nfc, nfd) = ("caf\u{E9}.png", "cafe\u{301}.png")
        #expect(nfc == nfd && Array(nfc.utf8) != Array(nfd.utf8))
        for f in ["S/" + nfc, "S/" + nfd, "S/b.png"] { t.write(f, text: "") }
        for pattern in ["S/*.png", "S/caf?.png", "S/{\(nfc),\(nfd),b.png}"] {
            let found = Glob(pattern).matches(in: t.path).map { Array($0.relativePath.utf8) }
            let expected = ["S/b.png", "S/" + nfd, "S/" + nfc].map { Array($0.utf8) }
            #expect(found == (pattern.contains("?") ? Array(expected.dropFirst()) : expected), "\(pattern)")
        }
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
            plan.jobs.map(\.input.display).map { $0.replacingOccurrences(of: t.path + "/", with: "") } == ["S/a.png"])
        #expect(
            t.errors(
                """
                { "version": 1, "output": "out", "pipelines": [
                  { "name": "p", "inputs": ["S/*.png"], "exclude": ["S/*"], "output": "{file}.png", "stages": [] } ] }
                """) == ["error: $T/pipeline.json: pipelines[0].exclude: excludes every input"])
    }
}
