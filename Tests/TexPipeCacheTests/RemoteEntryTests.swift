import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeCache
@testable import TexPipeFormats
@testable import TexPipeMeasures
@testable import TexPipePixels
@testable import TexPipePlan

/// The remote cache's `/ac/` entry: the scan of the layout texpipe writes against Foundation's JSON
/// parser, which reads any other layout. Both must give the same fields for the same entry.
@Suite("remote entry")
struct RemoteEntryTests {
    /// Paths with the characters JSON escapes (quotes, backslashes, newlines, control characters),
    /// non-ASCII text and spaces; outputs with and without contents and measures.
    static func entries(_ count: Int) -> [[(RemoteCache.Blob, [UInt8]?)]] {
        var rng = SeededRandom(seed: 27)
        let pieces = ["a", "b c", "\"q\"", "back\\slash", "new\nline", "tab\t", "\u{1}\u{1F}", "é", "日本", "🎨", "x.png"]
        return (0..<count).map { _ in
            (0..<rng.int(1...3)).map { k in
                let path =
                    "out/\(k)/" + (0..<rng.int(1...4)).map { _ in pieces[rng.int(0...(pieces.count - 1))] }.joined()
                let size = rng.int(0...40)
                let bytes = (0..<size).map { _ in UInt8(rng.int(0...255)) }
                let sha = (0..<64).map { _ in "0123456789abcdef".randomElement(using: &rng)! }
                let measure = rng.int(0...1) == 0 ? nil : "bc7;\(rng.int(0...9999));41.2500:-,38.0000:50.1250"
                let blob = RemoteCache.Blob(path: path, size: size, sha256: String(sha), measure: measure)
                return (blob, rng.int(0...1) == 0 ? bytes : nil)
            }
        }
    }

    @Test func theScanReadsWhatFoundationReads() throws {
        for outputs in Self.entries(300) {
            let text = RemoteCache.entryText(outputs)
            let scanned = try #require(RemoteCache.canonicalFields(text), "\(String(decoding: text, as: UTF8.self))")
            let parsed = try #require(RemoteCache.jsonFields(text))
            #expect(scanned.map(\.path) == parsed.map(\.path))
            #expect(scanned.map(\.sha256) == parsed.map(\.sha256))
            #expect(scanned.map(\.size) == parsed.map(\.size))
            #expect(scanned.map(\.contents) == parsed.map(\.contents))
            #expect(scanned.map(\.measure) == parsed.map(\.measure))
            // And the entry reads back as written (in path order).
            let back = try #require(RemoteCache.parseEntry(text))
            let sorted = outputs.sorted { $0.0.path < $1.0.path }
            #expect(back.map(\.blob) == sorted.map(\.0))
            #expect(back.map(\.contents) == sorted.map(\.1))
        }
    }

    /// Valid JSON in another layout is not the scan's, and Foundation reads it the same; text that
    /// is no entry is read by neither.
    @Test func otherLayoutsFallBackAndBrokenOnesFail() throws {
        let sha = String(repeating: "ab", count: 32)
        let canonical = #"{"outputs":[{"path":"out/a.png","sha256":"\#(sha)","size":12}]}"#
        let reference = try #require(RemoteCache.parseEntry(Array(canonical.utf8)))
        let others = [
            #"{ "outputs": [ { "path": "out/a.png", "sha256": "\#(sha)", "size": 12 } ] }"#,
            #"{"outputs":[{"size":12,"sha256":"\#(sha)","path":"out/a.png"}]}"#,
            #"{"outputs":[{"path":"out\/a.png","sha256":"\#(sha)","size":12.0}]}"#,
            #"{"outputs":[{"path":"out/\u0061.png","sha256":"\#(sha)","size":12}]}"#,
        ]
        for text in others {
            #expect(RemoteCache.canonicalFields(Array(text.utf8)) == nil, "\(text)")
            let read = try #require(RemoteCache.parseEntry(Array(text.utf8)), "\(text)")
            #expect(read.map(\.blob) == reference.map(\.blob), "\(text)")
        }
        // A size past 2⁵³ (which Foundation reads as the nearest Double) is not the scan's.
        let huge = #"{"outputs":[{"path":"out/a.png","sha256":"\#(sha)","size":9007199254740993}]}"#
        #expect(RemoteCache.canonicalFields(Array(huge.utf8)) == nil)
        #expect(
            RemoteCache.parseEntry(Array(huge.utf8))?.first?.blob.size
                == RemoteCache.jsonFields(Array(huge.utf8))?.first?.size)
        let exact = #"{"outputs":[{"path":"out/a.png","sha256":"\#(sha)","size":9007199254740992}]}"#
        #expect(RemoteCache.canonicalFields(Array(exact.utf8))?.first?.size == 9_007_199_254_740_992)
        let broken = [
            #"{"outputs":[{"path":"out/a.png","sha256":"\#(sha)","size":012}]}"#,
            #"{"outputs":[{"path":"out/a.png","sha256":"\#(sha)","size":12}]}x"#,
            #"{"outputs":[{"path":"out/a.png","sha256":"\#(sha)","size":12}"#,
            #"{"outputs":[{"path":"out/a\x.png","sha256":"\#(sha)","size":12}]}"#,
            #"{"outputs":[{"path":"../a.png","sha256":"\#(sha)","size":12}]}"#,
            #"{"outputs":[{"path":"out/a.png","sha256":"\#(sha.uppercased())","size":12}]}"#,
            #"{"outputs":[{"contents":"!!","path":"out/a.png","sha256":"\#(sha)","size":12}]}"#,
        ]
        for text in broken { #expect(RemoteCache.parseEntry(Array(text.utf8)) == nil, "\(text)") }
        // Bytes that are not UTF-8 inside a string: neither reader takes them.
        var invalid = Array(canonical.utf8)
        let at = try #require(canonical.utf8.firstRange(of: "a.png".utf8))
        invalid[canonical.utf8.distance(from: canonical.utf8.startIndex, to: at.lowerBound)] = 0xFF
        #expect(RemoteCache.canonicalFields(invalid) == nil)
        #expect(RemoteCache.parseEntry(invalid) == nil)
    }
}

extension SeededRandom: RandomNumberGenerator {}
