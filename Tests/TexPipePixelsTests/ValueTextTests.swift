import Testing
import TexPipeTestSupport

@testable import TexPipePixels

@Suite("value text")
struct ValueTextTests {
    /// Hand-written: what JSON writes for each control character, and nothing else touched.
    @Test func oneLineEscapesControlCharactersOnly() {
        #expect(ValueText.oneLine("a\nb\rc\td") == #"a\nb\rc\td"#)
        #expect(ValueText.oneLine("\u{1}\u{1B}[K\u{1F}\u{7F}") == #"\u0001\u001b[K\u001f\u007f"#)
        #expect(
            ValueText.oneLine("a\u{85}b\u{9F}\u{A0}\u{2028}\u{2029}\u{202A}")
                == #"a\u0085b\u009f\#u{A0}\u2028\u2029\#u{202A}"#)
        // Every line break Swift knows is escaped.
        let breaks = "\n\r\u{0B}\u{0C}\u{85}\u{2028}\u{2029}\r\n"
        let escaped = ValueText.oneLine(breaks)
        #expect(!escaped.contains { $0.isNewline }, "\(escaped)")
        #expect(ValueText.oneLine(#"é "quoted" \ 🇫🇷 e\#u{301}"#) == #"é "quoted" \ 🇫🇷 e\#u{301}"#)
        #expect(ValueText.oneLine("") == "")
    }

    /// Longer than `most`: two thirds from the start, a third from the end, counted in scalars
    /// after escaping.
    @Test func oneLineCutsItsMiddle() {
        let s = String(repeating: "a", count: 600) + String(repeating: "b", count: 600)
        #expect(ValueText.oneLine(s, most: 1_200) == s)
        #expect(
            ValueText.oneLine(s, most: 1_000)
                == String(repeating: "a", count: 600) + String(repeating: "b", count: 66) + "…[201 characters]…"
                + String(repeating: "b", count: 333))
        // Escapes count as what they print: 500 newlines are 1,000 characters.
        let newlines = String(repeating: "\n", count: 500)
        #expect(ValueText.oneLine(newlines, most: 1_000) == String(repeating: #"\n"#, count: 500))
        #expect(
            ValueText.oneLine(newlines + "x", most: 1_000).hasSuffix(
                "…[2 characters]…" + String(repeating: #"\n"#, count: 166) + "x"))
    }

    @Test func quotedIsAJSONStringLiteral() {
        #expect(ValueText.quoted("a\"b\\c\n\u{1}é") == #""a\"b\\c\n\u0001é""#)
    }
}
