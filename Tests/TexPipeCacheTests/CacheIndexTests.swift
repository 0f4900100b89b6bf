import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeCache
@testable import TexPipeFormats
@testable import TexPipeMeasures
@testable import TexPipePixels
@testable import TexPipePlan

/// `.texpipe/index` and its journal: what one run records, the next reads back — through the
/// journal or after a rewrite, with escapes, drops, damaged lines and concurrent writers.
@Suite("cache index")
struct CacheIndexTests {
    static func stamp(_ n: Int64) -> FileStamp {
        FileStamp(size: n, mtime: n * 1000, ctime: n * 1000 + 1, inode: UInt64(n))
    }
    static let sha = String(repeating: "ab", count: 32)

    static func entry(_ k: Int) -> Cache.Entry {
        Cache.Entry(
            job: "p | in/\(k).png | ", version: String(repeating: "1", count: 64),
            parameters: String(repeating: "2", count: 64), inputs: String(repeating: "3", count: 64),
            outputs: [.init(path: "out/\(k).png", sha256: sha, bytes: k)])
    }

    @Test func recordsSurviveTheJournalAndTheRewrite() throws {
        let t = TempDir()
        let dir = t.path + "/.texpipe"
        // Awkward paths: spaces, a percent sign, a newline.
        let names = ["in/a b.png", "in/100%.png", "in/line\nbreak.png", "/abs/elsewhere.png"]
        do {
            let index = CacheIndex(directory: dir, base: t.path)
            for (k, name) in names.enumerated() {
                let path = name.hasPrefix("/") ? name : t.path + "/" + name
                index.record(path, stamp: Self.stamp(Int64(k + 1)), sha256: Self.sha, at: 10_000_000_000)
                index.remember(
                    ImageShape(width: k + 1, height: 2, depth: 8), of: path, stamp: Self.stamp(Int64(k + 1)),
                    at: 10_000_000_000)
            }
            for k in 0..<3 { index.store(String(repeating: "\(k)", count: 64), Self.entry(k), outputs: []) }
            for k in 10..<60 { index.store(String(repeating: "e", count: 62) + "\(k)", Self.entry(k), outputs: []) }
            #expect(index.save() == nil)  // no index yet: written whole
        }
        #expect(FileManager.default.fileExists(atPath: dir + "/index"))
        do {
            let index = CacheIndex(directory: dir, base: t.path)
            #expect(index.damage == nil)
            for (k, name) in names.enumerated() {
                let path = name.hasPrefix("/") ? name : t.path + "/" + name
                #expect(index.digest(of: path, stamp: Self.stamp(Int64(k + 1))) == Self.sha)
                #expect(
                    index.shape(of: path, stamp: Self.stamp(Int64(k + 1)))
                        == ImageShape(width: k + 1, height: 2, depth: 8))
                #expect(index.digest(of: path, stamp: Self.stamp(99)) == nil)  // another stamp: not trusted
            }
            #expect(index.entry(String(repeating: "1", count: 64)) == Self.entry(1))
            // A small change: appended to the journal, the index left as it is.
            let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/index"))
            index.drop(job: String(repeating: "0", count: 64))
            index.forget(t.path + "/in/a b.png")
            index.store(String(repeating: "7", count: 64), Self.entry(7), outputs: [])
            #expect(index.save() == nil)
            #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/index")) == before)
            #expect((try Data(contentsOf: URL(fileURLWithPath: dir + "/journal"))).count > 0)
        }
        let index = CacheIndex(directory: dir, base: t.path)
        #expect(index.entry(String(repeating: "0", count: 64)) == nil)
        #expect(index.entry(String(repeating: "7", count: 64)) == Self.entry(7))
        #expect(index.digest(of: t.path + "/in/a b.png", stamp: Self.stamp(1)) == nil)
        #expect(
            Set(index.entries.keys)
                == Set(
                    ["1", "2", "7"].map { String(repeating: $0, count: 64) }
                        + (10..<60).map { String(repeating: "e", count: 62) + "\($0)" }))
    }

    /// The index as written, byte for byte, against lines composed by hand from its documented
    /// format: extreme numbers (a negative mtime, Int64.max, an inode above Int64.max), a record
    /// without a shape, an escaped path, and an output with and without its measure.
    @Test func theIndexIsWrittenInItsDocumentedFormat() throws {
        let t = TempDir()
        let dir = t.path + "/.texpipe"
        let other = String(repeating: "0f", count: 32)
        do {
            let index = CacheIndex(directory: dir, base: t.path)
            let odd = FileStamp(size: 0, mtime: -5, ctime: Int64.max, inode: UInt64.max)
            index.record(t.path + "/in/odd%.png", stamp: odd, sha256: Self.sha, at: 12_345)
            let plain = FileStamp(size: 1_234_567, mtime: 1_700_000_000_123_456_789, ctime: 7, inode: 42)
            index.record(t.path + "/in/a b.png", stamp: plain, sha256: other, at: 1_700_000_001_000_000_000)
            index.remember(
                ImageShape(width: 4096, height: 1, depth: 16), of: t.path + "/in/a b.png", stamp: plain,
                at: 1_700_000_001_000_000_000)
            var measured = Cache.Entry.Output(path: "out/t.ktx2", sha256: other, bytes: 0)
            (measured.format, measured.gpuBytes) = ("bc7", 1_398_128)
            measured.psnr = [LevelQuality(rgb: 41.25, alpha: nil), LevelQuality(rgb: 38, alpha: 50.125)]
            let job = Cache.Entry(
                job: "p | in/a b.png | v", version: String(repeating: "1", count: 64),
                parameters: String(repeating: "2", count: 64), inputs: String(repeating: "3", count: 64),
                outputs: [.init(path: "out/a b.png", sha256: Self.sha, bytes: 987_654_321), measured])
            index.store(String(repeating: "c", count: 64), job, outputs: [])
            #expect(index.save() == nil)
        }
        let expected = [
            "texpipe-index 1",
            "f 1234567 1700000000123456789 7 42 1700000001000000000 \(other) 4096x1x16 in/a b.png",
            "f 0 -5 9223372036854775807 18446744073709551615 12345 \(Self.sha) - in/odd%25.png",
            "j \(String(repeating: "c", count: 64)) \(String(repeating: "1", count: 64)) "
                + "\(String(repeating: "2", count: 64)) \(String(repeating: "3", count: 64)) 2 p | in/a b.png | v",
            "o \(Self.sha) 987654321 out/a b.png",
            "p \(other) 0 bc7;1398128;41.2500:-,38.0000:50.1250 out/t.ktx2",
        ]
        let written = try String(contentsOfFile: dir + "/index", encoding: .utf8)
        #expect(written == expected.joined(separator: "\n") + "\n")
        // And read back as what was stored: an inode above Int64.max included (it was a damaged line).
        let index = CacheIndex(directory: dir, base: t.path)
        #expect(index.damage == nil)
        let odd = FileStamp(size: 0, mtime: -5, ctime: Int64.max, inode: UInt64.max)
        #expect(index.digest(of: t.path + "/in/odd%.png", stamp: odd) == nil)  // -5 is not 10 ms before 12,345
        index.record(t.path + "/in/odd%.png", stamp: odd, sha256: Self.sha, at: 20_000_000)
        #expect(index.digest(of: t.path + "/in/odd%.png", stamp: odd) == Self.sha)
        #expect(index.entry(String(repeating: "c", count: 64))?.outputs.last?.psnr?.last?.alpha == 50.125)
    }

    @Test func racyRecordsAreNotTrusted() {
        let t = TempDir()
        let index = CacheIndex(directory: t.path + "/.texpipe", base: t.path)
        let s = FileStamp(size: 1, mtime: 5_000_000_000, ctime: 5_000_000_000, inode: 1)
        // Checked within 10 ms of the file's mtime: a write in the same tick could hide.
        index.record(t.path + "/a", stamp: s, sha256: Self.sha, at: 5_000_000_000 + 9_000_000)
        #expect(index.digest(of: t.path + "/a", stamp: s) == nil)
        index.record(t.path + "/a", stamp: s, sha256: Self.sha, at: 5_000_000_000 + 11_000_000)
        #expect(index.digest(of: t.path + "/a", stamp: s) == Self.sha)
    }

    @Test func damagedLinesAreCountedAndSkipped() throws {
        let t = TempDir()
        let good = "f 1 1000 1001 1 10000000000 \(Self.sha) 4x3x8 in/ok.png"
        t.write(
            ".texpipe/index",
            text: "texpipe-index 1\n\(good)\nf 1 x 1001 1 1 - - in/bad.png\nj short\no \(Self.sha) 3 out/orphan.png\n")
        // A torn last line in the journal, as a killed run leaves it.
        t.write(".texpipe/journal", text: "j \(String(repeating: "9", count: 64)) 1 2 3 1 job\no \(Self.sha) 3")
        let index = CacheIndex(directory: t.path + "/.texpipe", base: t.path)
        // The bad number, the short entry, the orphan output; the torn output line and the entry it
        // leaves incomplete.
        #expect(index.damage == 5)
        #expect(index.digest(of: t.path + "/in/ok.png", stamp: Self.stamp(1)) == Self.sha)
        #expect(index.entry(String(repeating: "9", count: 64)) == nil)
    }

    /// Keys are escaped and unescaped byte by byte: `%`, newline, carriage return and NUL become
    /// `%25`, `%0A`, `%0D`, `%00` whatever surrounds them — inside a "\r\n" (one Swift
    /// character) or before a combining accent (one character with the escape's last letter) too.
    @Test func keysAreEscapedByteByByte() {
        let cases: [(String, String)] = [
            ("in/a.png", "in/a.png"),
            ("odd%.png", "odd%25.png"),
            ("a\r\nb", "a%0D%0Ab"),
            ("x\n\u{301}y", "x%0A\u{301}y"),
            ("nul\u{0}%0A", "nul%00%250A"),
        ]
        for (raw, escaped) in cases {
            #expect(CacheIndex.escape(raw) == escaped, "\(raw.debugDescription)")
            #expect(CacheIndex.unescape(Substring(escaped)) == raw, "\(escaped.debugDescription)")
        }
        // A `%` that starts no escape stays itself, and so does an escape's letter before an accent.
        #expect(CacheIndex.unescape("100%") == "100%")
        #expect(CacheIndex.unescape("%0a%2") == "%0a%2")
        #expect(CacheIndex.unescape("%0A\u{301}") == "\n\u{301}")
        // Any string: escaped, one field of one line (no newline, return or NUL byte), and back.
        var rng = SystemRandomNumberGenerator()
        let alphabet: [String] = ["%", "\n", "\r", "\u{0}", "0", "A", "D", "2", "5", "\u{301}", "é", "a", " "]
        for _ in 0..<2_000 {
            let s = (0..<Int.random(in: 0...12, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }.joined()
            let e = CacheIndex.escape(s)
            let oneField = !e.utf8.contains { (b: UInt8) -> Bool in b == 0x0A || b == 0x0D || b == 0 }
            #expect(oneField, "\(s.debugDescription)")
            #expect(CacheIndex.unescape(Substring(e)) == s, "\(s.debugDescription)")
        }
    }

    /// A key that is not UTF-8 is damage (texpipe writes keys from strings): two such keys would
    /// read as one string and not survive the rewrite as two records. Found by the `index` fuzz
    /// target (Fixtures/fuzz/index/crash-key-not-utf8).
    @Test func aKeyThatIsNotUTF8IsDamaged() throws {
        let t = TempDir()
        var text = Array("texpipe-index 1\nf 1 1000 1001 1 10000000000 \(Self.sha) - in/ok.png\n".utf8)
        for bad: [UInt8] in [[0xFF], [0xEF, 0xBF], [0xC3]] {
            text += Array("f 1 1000 1001 1 10000000000 \(Self.sha) - in/".utf8) + bad + Array(".png\n".utf8)
        }
        text += Array("-f in/".utf8) + [0x80] + Array("\n".utf8)
        // U+FFFD itself is a character like any other.
        text += Array("f 1 1000 1001 1 10000000000 \(Self.sha) - in/\u{FFFD}.png\n".utf8)
        try Data(text).write(to: URL(fileURLWithPath: t.path + "/index"))
        let (rewritten, damaged) = CacheIndex.rewritten(index: t.path + "/index", journal: t.path + "/journal")
        #expect(damaged == 4)
        let kept = "f 1 1000 1001 1 10000000000 \(Self.sha) - in/"
        let expected: String = "texpipe-index 1\n" + kept + "ok.png\n" + kept + "\u{FFFD}.png\n"
        #expect(rewritten == expected)
    }

    @Test func aWrongHeaderDiscardsTheIndex() {
        let t = TempDir()
        t.write(".texpipe/index", text: "texpipe-index 0\nf 1 1000 1001 1 10000000000 \(Self.sha) - in/ok.png\n")
        let index = CacheIndex(directory: t.path + "/.texpipe", base: t.path)
        #expect(index.damage == 1)
        #expect(index.digest(of: t.path + "/in/ok.png", stamp: Self.stamp(1)) == nil)
    }

    /// Two processes' worth of writers on one folder: each saves its own records; the rewrite
    /// merges what the other wrote meanwhile instead of losing it.
    @Test func concurrentWritersKeepEachOthersRecords() {
        let t = TempDir()
        let dir = t.path + "/.texpipe"
        let a = CacheIndex(directory: dir, base: t.path)
        let b = CacheIndex(directory: dir, base: t.path)
        for k in 0..<50 { a.store(String(repeating: "a", count: 63) + "\(k % 10)", Self.entry(k), outputs: []) }
        for k in 0..<50 { b.store(String(repeating: "b", count: 63) + "\(k % 10)", Self.entry(k), outputs: []) }
        #expect(a.save() == nil)
        #expect(b.save() == nil)
        let c = CacheIndex(directory: dir, base: t.path)
        #expect(c.entries.count == 20)
    }
}
