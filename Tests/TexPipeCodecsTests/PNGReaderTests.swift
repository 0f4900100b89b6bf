import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeCodecs
@testable import TexPipeFormats
@testable import TexPipeParameters
@testable import TexPipePixels

/// texpipe's own PNG reader against two independent references: the test's own PNG writer (every
/// filter on every row, stored zlib, expected pixels computed from the spec) and libpng (the
/// `.libpng` reader). Irregular files must go to libpng, so both readers give the same answer.
@Suite("PNG reader")
struct PNGReaderTests {
    static let fastLayouts = [0, 2, 4, 6]  // gray, RGB, gray+alpha, RGBA at 8 bits

    @Test("8-bit gray, gray+alpha, RGB and RGBA decode to the spec's pixels, every filter", arguments: fastLayouts)
    func readsTheReferenceWriter(type: Int) throws {
        for (w, h) in [(1, 1), (3, 1), (1, 6), (9, 2), (13, 11), (64, 7)] {
            let spec = pngFixture(type: type, depth: 8, interlaced: false, trns: false, width: w, height: h)
            let file = ReferencePNG.encode(spec)
            let image = try #require(PNGReader.decode(file), "type \(type) \(w)x\(h) left the fast path")
            #expect(image.width == w && image.height == h && image.depth == 8)
            #expect(quads(image).flatMap { $0 } == ReferencePNG.expectedRGBA(spec), "type \(type) \(w)x\(h)")
        }
    }

    @Test(
        "texpipe's writer, every filter and color type: the same pixels as libpng",
        arguments: PNGSettings.Filter.allCases)
    func agreesWithLibpngOnCompressedFiles(filter: PNGSettings.Filter) throws {
        for (seed, (gray, opaque)) in [(false, false), (false, true), (true, false), (true, true)].enumerated() {
            let image = randomImage(37, 23, depth: 8, seed: UInt64(seed + 7), opaque: opaque, gray: gray)
            var settings = PNGSettings.standard
            settings.filter = filter
            settings.color = .auto  // writes gray / gray+alpha / RGB / RGBA as the pixels allow
            let file = try ImageEncoder.png(image, settings)
            let fast = try #require(PNGReader.decode(file))
            #expect(fast == (try ImageDecoder.decode(file, pngReader: .libpng)))
            #expect(fast.pixels == image.pixels)
        }
    }

    @Test func idatSplitAcrossChunksIsJoined() throws {
        let spec = pngFixture(type: 6, depth: 8, interlaced: false, trns: false, width: 20, height: 9)
        let file = Self.splitIDAT(ReferencePNG.encode(spec), pieces: 4)
        let image = try #require(PNGReader.decode(file))
        #expect(quads(image).flatMap { $0 } == ReferencePNG.expectedRGBA(spec))
    }

    /// Each case leaves the fast path; the public decoder's answer (pixels or message) is libpng's.
    @Test func irregularFilesGoToLibpng() throws {
        let spec = pngFixture(type: 2, depth: 8, interlaced: false, trns: false, width: 10, height: 6)
        let good = ReferencePNG.encode(spec)
        let chunks = Self.chunks(good)
        let ihdr = chunks[0]
        let idat = chunks.filter { $0.type == "IDAT" }.map(\.bytes).reduce([], +)
        let iend = ReferencePNG.chunk("IEND", [])
        let sig = Array(good[0..<8])
        var scanlines = ReferencePNG.scanlines(spec)
        scanlines[(1 + 30) * 2] = 5  // row 2's filter byte
        var badCRC = ReferencePNG.chunk("tEXt", Array("k\u{0}v".utf8))
        badCRC[badCRC.count - 1] ^= 1
        var trailing = ReferencePNG.zlibStored(ReferencePNG.scanlines(spec))
        trailing += [0, 0, 0]
        let cases: [(String, [UInt8])] = [
            ("tRNS", sig + ihdr.bytes + ReferencePNG.chunk("tRNS", [0, 1, 0, 2, 0, 3]) + idat + iend),
            ("PLTE in RGB", sig + ihdr.bytes + ReferencePNG.chunk("PLTE", [1, 2, 3]) + idat + iend),
            ("ancillary CRC error", sig + ihdr.bytes + badCRC + idat + iend),
            ("unknown critical chunk", sig + ihdr.bytes + ReferencePNG.chunk("ABCD", [1]) + idat + iend),
            (
                "IDAT run broken",
                Self.splitIDAT(good, pieces: 2, between: ReferencePNG.chunk("tEXt", Array("a\u{0}b".utf8)))
            ),
            ("no IEND", sig + ihdr.bytes + idat),
            ("filter byte 5", sig + ihdr.bytes + ReferencePNG.chunk("IDAT", ReferencePNG.zlibStored(scanlines)) + iend),
            ("data after the zlib stream", sig + ihdr.bytes + ReferencePNG.chunk("IDAT", trailing) + iend),
            (
                "short stream",
                sig + ihdr.bytes
                    + ReferencePNG.chunk(
                        "IDAT", ReferencePNG.zlibStored(Array(ReferencePNG.scanlines(spec).dropLast(7)))) + iend
            ),
            ("interlaced", ReferencePNG.encode(pngFixture(type: 6, depth: 8, interlaced: true, trns: false))),
            ("16-bit", ReferencePNG.encode(pngFixture(type: 6, depth: 16, interlaced: false, trns: false))),
            ("palette", ReferencePNG.encode(pngFixture(type: 3, depth: 8, interlaced: false, trns: false))),
        ]
        for (name, file) in cases {
            #expect(PNGReader.decode(file) == nil, "\(name) stayed on the fast path")
            #expect(Self.outcome(file, .texpipe) == Self.outcome(file, .libpng), "\(name)")
        }
        // The libpng answers are the ones users see: an ancillary CRC error is only a warning.
        #expect(Self.outcome(cases[2].1, .libpng) == .pixels(try ImageDecoder.decode(good, pngReader: .libpng)))
    }

    /// Several IDAT chunks are joined in the file's own buffer (no copy of the compressed data):
    /// when the reader then steps aside, the bytes are put back exactly, for libpng to judge; when
    /// it answers, the caller's bytes are let go.
    @Test func idatChunksJoinedInPlaceAreRestoredForLibpng() throws {
        let spec = pngFixture(type: 6, depth: 8, interlaced: false, trns: false, width: 9, height: 6)
        let good = Self.splitIDAT(ReferencePNG.encode(spec), pieces: 5)
        var taken = good
        #expect(PNGReader.decode(taking: &taken, maxPixels: 1 << 20) != nil)
        #expect(taken.isEmpty, "the bytes are released once decoded")
        // Damage the zlib stream inside the third chunk (its CRC fixed up, so only inflate fails).
        var damagedStream = ReferencePNG.zlibStored(ReferencePNG.scanlines(spec))
        damagedStream[damagedStream.count - 1] ^= 0x55  // the Adler-32 no longer matches
        let chunks = Self.chunks(good)
        let damaged = Self.splitIDAT(
            Array(good[0..<8]) + chunks[0].bytes + ReferencePNG.chunk("IDAT", damagedStream)
                + ReferencePNG.chunk("IEND", []),
            pieces: 5)
        var file = damaged
        #expect(PNGReader.decode(taking: &file, maxPixels: 1 << 20) == nil)
        #expect(file == damaged, "every moved byte and the framing between the chunks are back")
        #expect(Self.outcome(damaged, .texpipe) == Self.outcome(damaged, .libpng))
    }

    @Test func everyFixtureAndSampleDecodesAsLibpngDoes() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        var files: [String] = []
        for dir in ["Samples", "Tests/Fixtures"] {
            let base = root.appendingPathComponent(dir).path
            for case let rel as String in FileManager.default.enumerator(atPath: base)!
            where rel.hasSuffix(".png") {
                files.append(base + "/" + rel)
            }
        }
        #expect(files.count > 20)
        var fast = 0
        for path in files {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            if PNGReader.decode(bytes) != nil { fast += 1 }
            #expect(Self.outcome(bytes, .texpipe) == Self.outcome(bytes, .libpng), "\(path)")
        }
        #expect(fast > files.count / 2, "most samples are 8-bit RGB(A) and should take the fast path")
    }

    /// A property over 3,000 seeded mutants of small files (bytes flipped with the chunk CRCs fixed
    /// up, so the damage reaches IHDR, zlib and the filters; flips without the fix; truncations):
    /// whenever the fast reader answers, libpng gives the same pixels, and the public decoder's
    /// answer is always libpng's.
    @Test func mutantsNeverDisagreeWithLibpng() throws {
        var bases: [[UInt8]] = []
        for (i, type) in Self.fastLayouts.enumerated() {
            let spec = pngFixture(type: type, depth: 8, interlaced: false, trns: false, width: 7, height: 5)
            bases.append(ReferencePNG.encode(spec))
            var settings = PNGSettings.standard
            settings.level = 1
            bases.append(try ImageEncoder.png(randomImage(9, 4, depth: 8, seed: UInt64(40 + i)), settings))
        }
        var rng = SeededRandom(seed: 2026)
        var answered = 0
        for n in 0..<3000 {
            var file = bases[n % bases.count]
            switch rng.int(0...3) {
            case 0, 1:
                for _ in 0..<rng.int(1...3) { file[rng.int(8...(file.count - 1))] ^= UInt8(rng.int(1...255)) }
                file = Self.fixingCRCs(file)
            case 2:
                file[rng.int(8...(file.count - 1))] ^= UInt8(rng.int(1...255))
            default:
                file = Array(file.prefix(rng.int(8...(file.count - 1))))
            }
            let reference = Self.outcome(file, .libpng)
            if let fast = PNGReader.decode(file) {
                answered += 1
                #expect(reference == .pixels(fast), "mutant \(n)")
            }
            #expect(Self.outcome(file, .texpipe) == reference, "mutant \(n)")
        }
        #expect(answered > 20, "some mutants (harmless flips, fixed CRCs) must reach the fast reader's answer")
    }

    // MARK: helpers

    enum Outcome: Equatable {
        case pixels(Image)
        case error(String)
    }

    static func outcome(_ file: [UInt8], _ reader: PNGReaderChoice) -> Outcome {
        do { return .pixels(try ImageDecoder.decode(file, path: "m.png", pngReader: reader)) } catch {
            return .error("\(error)")
        }
    }

    static func chunks(_ file: [UInt8]) -> [(type: String, bytes: [UInt8])] {
        var out: [(String, [UInt8])] = []
        var pos = 8
        while pos + 12 <= file.count {
            let length = file[pos..<(pos + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard pos + 12 + length <= file.count else { break }
            out.append(
                (String(decoding: file[(pos + 4)..<(pos + 8)], as: UTF8.self), Array(file[pos..<(pos + 12 + length)])))
            pos += 12 + length
        }
        return out
    }

    /// The file with its IDAT data cut into `pieces` chunks (optionally with `between` after the first).
    static func splitIDAT(_ file: [UInt8], pieces: Int, between: [UInt8] = []) -> [UInt8] {
        let all = chunks(file)
        let data = all.filter { $0.type == "IDAT" }.flatMap { $0.bytes[8..<($0.bytes.count - 4)] }
        let size = (data.count + pieces - 1) / pieces
        var idat: [UInt8] = []
        for (k, start) in stride(from: 0, to: data.count, by: size).enumerated() {
            idat += ReferencePNG.chunk("IDAT", Array(data[start..<min(data.count, start + size)]))
            if k == 0 { idat += between }
        }
        return Array(file[0..<8]) + all[0].bytes + idat + ReferencePNG.chunk("IEND", [])
    }

    /// Recomputes the CRC of every chunk that still parses.
    static func fixingCRCs(_ file: [UInt8]) -> [UInt8] {
        var out = file
        var pos = 8
        while pos + 12 <= out.count {
            let length = out[pos..<(pos + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard length <= out.count - pos - 12 else { break }
            let crc = ReferencePNG.crc(Array(out[(pos + 4)..<(pos + 8 + length)]))
            out.replaceSubrange((pos + 8 + length)..<(pos + 12 + length), with: ReferencePNG.be32(Int(crc)))
            pos += 12 + length
        }
        return out
    }
}
