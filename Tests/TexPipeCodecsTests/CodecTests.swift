import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeCodecs
@testable import TexPipeFormats
@testable import TexPipeParameters
@testable import TexPipePixels

@Suite("PNG and JPEG codecs")
struct CodecTests {
    static let layouts: [(type: Int, depth: Int)] = [
        (0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (2, 8), (2, 16), (3, 1), (3, 2), (3, 4), (3, 8),
        (4, 8), (4, 16), (6, 8), (6, 16),
    ]

    @Test(
        "every color type, bit depth, tRNS and interlace decodes to the exact RGBA",
        arguments: layouts, [false, true])
    func decodesEveryLayout(layout: (type: Int, depth: Int), interlaced: Bool) throws {
        let trnsOptions = [0, 2, 3].contains(layout.type) ? [false, true] : [false]
        for trns in trnsOptions {
            for (w, h) in [(13, 11), (1, 1), (3, 1), (9, 2)] {
                let spec = pngFixture(
                    type: layout.type, depth: layout.depth, interlaced: interlaced, trns: trns, width: w, height: h)
                let image = try ImageDecoder.decode(ReferencePNG.encode(spec))
                #expect(image.width == w && image.height == h)
                #expect(image.depth == (layout.depth == 16 ? 16 : 8))
                #expect(
                    quads(image).flatMap { $0 } == ReferencePNG.expectedRGBA(spec),
                    "type \(layout.type) depth \(layout.depth) interlaced \(interlaced) tRNS \(trns) \(w)x\(h)")
            }
        }
    }

    @Test func headerReportsFileFacts() throws {
        let spec = pngFixture(type: 3, depth: 4, interlaced: true, trns: true)
        let h = try ImageDecoder.header(ReferencePNG.encode(spec))
        #expect(h.format == .png)
        #expect(h.colorType == "palette")
        #expect(h.fileBitDepth == 4)
        #expect(h.interlaced)
        #expect(h.hasTransparency)
    }

    static func goodFile() -> [UInt8] {
        ReferencePNG.encode(pngFixture(type: 6, depth: 8, interlaced: false, trns: false, width: 40, height: 30))
    }

    @Test func corruptFilesGiveErrorsNotCrashes() {
        var badSignature = Self.goodFile()
        badSignature[1] = 0x51
        #expect(throws: CodecError("not a PNG file (bad signature)")) {
            try ImageDecoder.decode(badSignature, path: "x.png")
        }

        var badCRC = Self.goodFile()
        badCRC[29] ^= 0xFF  // last byte of IHDR's CRC
        #expect(throws: CodecError("IHDR: CRC error")) { try ImageDecoder.decode(badCRC) }

        let good = Self.goodFile()
        let truncated = Array(good[0..<(good.count - 200)])
        #expect(throws: CodecError("truncated data")) { try ImageDecoder.decode(truncated) }

        var zeroWidth = ReferencePNG.Spec(width: 0, height: 4, colorType: 6, bitDepth: 8, samples: [])
        zeroWidth.samples = []
        #expect(throws: CodecError.self) { try ImageDecoder.decode(ReferencePNG.encode(zeroWidth)) }

        // A header claiming 100000×100000 with a tiny IDAT: refused before allocating.
        let huge = ReferencePNG.encode(
            ReferencePNG.Spec(width: 1, height: 1, colorType: 6, bitDepth: 8, samples: [1, 2, 3, 4]))
        var claimed = Array(huge)
        let ihdr = ReferencePNG.chunk(
            "IHDR", ReferencePNG.be32(100_000) + ReferencePNG.be32(100_000) + [8, 6, 0, 0, 0])
        claimed.replaceSubrange(8..<33, with: ihdr)
        #expect(
            throws: CodecError(
                "image is 100000x100000 (10000000000 pixels), over the limit of 268435456 (--max-pixels)")
        ) {
            try ImageDecoder.decode(claimed)
        }
        #expect(throws: CodecError("empty file")) { try ImageDecoder.decode([]) }
        #expect(throws: CodecError("not a JPEG file (bad signature)")) {
            try ImageDecoder.decode(Array("hello".utf8), path: "photo.jpg")
        }
    }

    @Test func maxPixelsIsEnforced() throws {
        let good = Self.goodFile()  // 40×30 = 1200 pixels
        _ = try ImageDecoder.decode(good, maxPixels: 1200)
        #expect(throws: CodecError("image is 40x30 (1200 pixels), over the limit of 1199 (--max-pixels)")) {
            try ImageDecoder.decode(good, maxPixels: 1199)
        }
    }

    @Test(
        "PNG round trip: both writers, every filter and level, give back the exact pixels",
        arguments: ["adaptive", "none", "sub", "up", "average", "paeth"], [8, 16])
    func pngRoundTrip(filter: String, depth: Int) throws {
        let img = randomImage(37, 23, depth: depth, seed: 7)
        for encoder in [PNGSettings.Writer.texpipe, .libpng] {
            for level in encoder == .texpipe ? [0, 1, 6, 12] : [0, 6, 9] {
                var s = PNGSettings.standard
                s.filter = PNGSettings.Filter(rawValue: filter)!
                s.level = level
                s.encoder = encoder
                let back = try ImageDecoder.decode(ImageEncoder.png(img, s))
                #expect(back.pixels == img.pixels, "\(encoder) level \(level)")
            }
        }
    }

    /// pngcheck (an independent validator) accepts every color type and depth texpipe's writer
    /// makes, and libpng decodes each to the exact pixels.
    @Test func texpipeWriterPassesPngcheck() throws {
        let t = TempDir()
        var images: [(String, Image, PNGSettings)] = []
        var auto = PNGSettings.standard
        auto.color = .auto
        for depth in [8, 16] {
            images.append(("rgba\(depth)", randomImage(19, 7, depth: depth, seed: 21), PNGSettings.standard))
            images.append(("rgb\(depth)", randomImage(19, 7, depth: depth, seed: 22, opaque: true), auto))
            images.append(
                ("gray\(depth)", randomImage(19, 7, depth: depth, seed: 23, opaque: true, gray: true), auto))
            images.append(("graya\(depth)", randomImage(19, 7, depth: depth, seed: 24, gray: true), auto))
        }
        let pal = image8(
            3, 2, [[1, 2, 3, 255], [9, 9, 9, 0], [1, 2, 3, 255], [200, 0, 0, 128], [1, 2, 3, 255], [9, 9, 9, 0]])
        images.append(("palette", pal, auto))
        let pngcheck = try #require(
            ["/usr/bin/pngcheck", "/usr/local/bin/pngcheck"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "pngcheck is needed (Scripts/test installs it)")
        for (name, img, settings) in images {
            let bytes = try ImageEncoder.png(img, settings)
            #expect(try ImageDecoder.decode(bytes, pngReader: .libpng).pixels == img.pixels, "\(name)")
            t.write(name + ".png", bytes)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: pngcheck)
            p.arguments = ["-q", t.path + "/" + name + ".png"]
            p.standardOutput = Pipe()
            try p.run()
            p.waitUntilExit()
            #expect(p.terminationStatus == 0, "pngcheck rejects \(name)")
        }
    }

    @Test("SIMD row filters give the scalar reference's bytes and scores", arguments: [1, 2, 3, 4, 6, 8])
    func simdFiltersMatchScalar(bpp: Int) {
        var rng = SeededRandom(seed: UInt64(bpp))
        for n in [bpp, 15, 16, 17, 47, 64, 1000] where n >= bpp {
            let x = UnsafeMutablePointer<UInt8>.allocate(capacity: n)
            let b = UnsafeMutablePointer<UInt8>.allocate(capacity: n)
            let fast = UnsafeMutablePointer<UInt8>.allocate(capacity: n)
            let slow = UnsafeMutablePointer<UInt8>.allocate(capacity: n)
            defer { [x, b, fast, slow].forEach { $0.deallocate() } }
            for i in 0..<n {
                // Mostly smooth data with some extremes, so every Paeth branch is taken.
                x[i] = UInt8(i % 7 == 0 ? rng.int(0...255) : (i * 3) % 256)
                b[i] = UInt8(i % 5 == 0 ? 255 - rng.int(0...255) : (i * 3 + 1) % 256)
            }
            for f in 0...4 {
                let s1 = PNGWriter.apply(f, x, b, n, bpp, fast)
                let s2 = PNGWriter.applyScalar(f, x, b, 0, n, bpp, slow)
                #expect(s1 == s2 && (0..<n).allSatisfy { fast[$0] == slow[$0] }, "filter \(f), \(n) bytes")
            }
        }
    }

    @Test func libpngEncoderRefusesLibdeflateLevels() throws {
        var object = JSONObject()
        object.insert("encoder", .string("libpng"))
        object.insert("level", .number(11))
        var d = ParameterDecoder(file: "", placeholders: [:], knownNames: [])
        let decoded = d.decode(object, at: .root, table: PNGSettings.parameters)
        let args = try #require(decoded)
        let expected = SettingsProblems([
            SettingsProblem("level", "the libpng encoder takes levels 0…9; 10…12 need \"encoder\": \"texpipe\"")
        ])
        #expect(throws: expected) { try PNGSettings(args) }
    }

    @Test func autoColorPicksTheSmallestLosslessType() throws {
        var s = PNGSettings.standard
        s.color = .auto
        let cases: [(Image, String)] = [
            (randomImage(20, 20, depth: 8, seed: 1, opaque: true, gray: true), "gray"),
            (randomImage(20, 20, depth: 8, seed: 2, opaque: true), "RGB"),
            (randomImage(20, 20, depth: 8, seed: 3), "RGBA"),
            (randomImage(20, 20, depth: 16, seed: 4, gray: true), "gray+alpha"),
            (image8(3, 1, [[255, 0, 0, 255], [0, 0, 255, 128], [255, 0, 0, 255]]), "palette"),
        ]
        for (img, type) in cases {
            let bytes = try ImageEncoder.png(img, s)
            #expect(try ImageDecoder.header(bytes).colorType == type)
            #expect(try ImageDecoder.decode(bytes).pixels == img.pixels, "\(type) is lossless")
        }
    }

    /// `auto` writes gray at 1, 2 or 4 bits when every value is exact there, and palettes with as
    /// few index bits as they need; libpng decodes each to exactly the pixels, and the bytes pass
    /// pngcheck. Widths that do not fill the last byte of a row included.
    @Test(arguments: [1, 7, 13, 32])
    func lowBitDepthsAreExact(width: Int) throws {
        var rng = SeededRandom(seed: UInt64(width))
        func gray(_ levels: [Int]) -> Image {
            image8(
                width, 3,
                (0..<(width * 3)).map { _ in
                    let v = levels[rng.int(0...(levels.count - 1))]; return [v, v, v, 255]
                })
        }
        let grays: [([Int], Int)] = [
            ([0, 255], 1), ([0, 85, 170, 255], 2), ((0...15).map { $0 * 17 }, 4), ([0, 1, 255], 8),
        ]
        for (levels, depth) in grays {
            let img = gray(levels)
            let bytes = try ImageEncoder.png(img)
            let h = try ImageDecoder.header(bytes)
            // A single level of a 1-pixel image may still be all one value: the depth is at most this.
            #expect(h.colorType == "gray" && h.fileBitDepth <= depth, "levels \(levels.count): \(h.fileBitDepth)-bit")
            #expect(try ImageDecoder.decode(bytes, pngReader: .libpng).pixels == img.pixels)
            #expect(try ImageDecoder.decode(bytes).pixels == img.pixels)
            try Self.pngcheck(bytes)
        }
        for (colors, depth) in [(2, 1), (3, 2), (4, 2), (16, 4), (17, 8)] {
            let palette = (0..<colors).map { [($0 * 37) % 256, ($0 * 91) % 256, 200, $0 % 3 == 0 ? 128 : 255] }
            let img = image8(width, 3, (0..<(width * 3)).map { palette[$0 % colors] })
            let bytes = try ImageEncoder.png(img)
            let h = try ImageDecoder.header(bytes)
            #expect(h.colorType == "palette")
            if width * 3 >= colors { #expect(h.fileBitDepth == depth, "\(colors) colors") }
            #expect(try ImageDecoder.decode(bytes, pngReader: .libpng).pixels == img.pixels)
            try Self.pngcheck(bytes)
        }
    }

    /// The palette `auto` writes, read from the file's PLTE and tRNS chunks: its colors in order
    /// of first appearance, those with alpha below 255 first (so tRNS stays short); 256 distinct
    /// colors are a palette, 257 are not.
    @Test func paletteOrderAndLimit() throws {
        func chunks(_ b: [UInt8]) -> [String: [UInt8]] {
            var out: [String: [UInt8]] = [:]
            var at = 8
            while at + 8 <= b.count {
                let n = b[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
                let type = String(decoding: b[(at + 4)..<(at + 8)], as: UTF8.self)
                out[type] = Array(b[(at + 8)..<(at + 8 + n)])
                at += 12 + n
            }
            return out
        }
        // Opaque red, half-transparent blue, opaque green, red again, transparent black.
        let img = image8(
            5, 1, [[255, 0, 0, 255], [0, 0, 255, 128], [0, 255, 0, 255], [255, 0, 0, 255], [0, 0, 0, 0]])
        let c = chunks(try ImageEncoder.png(img))
        #expect(c["PLTE"] == [0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0])
        #expect(c["tRNS"] == [128, 0])
        #expect(try ImageDecoder.decode(try ImageEncoder.png(img)).pixels == img.pixels)
        for count in [256, 257] {
            let colors = (0..<count).map { k in [k & 0xFF, (k >> 8) * 64, 7, 255] }
            let wide = image8(count, 2, colors + colors.reversed())
            let bytes = try ImageEncoder.png(wide)
            #expect(try ImageDecoder.header(bytes).colorType == (count == 256 ? "palette" : "RGB"), "\(count)")
            #expect(try ImageDecoder.decode(bytes).pixels == wide.pixels)
            if count == 256 { #expect(chunks(bytes)["PLTE"] == colors.flatMap { $0[0..<3].map(UInt8.init) }) }
        }
    }

    static func pngcheck(_ bytes: [UInt8]) throws {
        let path = NSTemporaryDirectory() + "texpipe-lowbit-\(UUID().uuidString).png"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["pngcheck", "-q", path]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "pngcheck")
    }

    @Test func depthSettingConverts() throws {
        let img = randomImage(9, 9, depth: 8, seed: 5)
        var s = PNGSettings.standard
        s.depth = 16
        let wide = try ImageDecoder.decode(ImageEncoder.png(img, s))
        #expect(wide.depth == 16)
        #expect(wide.to8Bit().pixels == img.pixels)
    }

    @Test func rgbAndGrayLayoutsWriteWithoutAlpha() throws {
        // `color: rgba` keeps the layout a stage made; `auto` (the default) may go smaller still.
        var rgba = PNGSettings.standard
        rgba.color = .rgba
        var img = randomImage(5, 4, depth: 8, seed: 6, opaque: true, gray: true)
        img.layout = .gray
        let gray = try ImageEncoder.png(img, rgba)
        #expect(try ImageDecoder.header(gray).colorType == "gray")
        #expect(try ImageDecoder.decode(gray).pixels == img.pixels)
        img.layout = .rgb
        #expect(try ImageDecoder.header(ImageEncoder.png(img, rgba)).colorType == "RGB")
        #expect(try ImageDecoder.header(ImageEncoder.png(img)).colorType == "gray", "auto: R = G = B, opaque")
        #expect(try ImageDecoder.decode(ImageEncoder.png(img)).pixels == img.pixels)
    }

    @Test func pngHasNoRunDependentBytes() throws {
        let img = randomImage(16, 16, depth: 8, seed: 8)
        let a = try ImageEncoder.png(img)
        let b = try ImageEncoder.png(img)
        #expect(a == b)
        let text = String(decoding: a, as: UTF8.self)
        #expect(!text.contains("tIME") && !text.contains("tEXt"))
    }

    @Test("JPEG round trip, baseline and progressive, RGB and gray", arguments: [false, true])
    func jpegRoundTrip(progressive: Bool) throws {
        // A smooth gradient survives JPEG at quality 95 within a few levels.
        let w = 32, h = 16
        let px: [[Int]] = (0..<(w * h)).map { i in [(i % w) * 8, (i / w) * 16, 128, 255] }
        var s = JPEGSettings.standard
        s.quality = 95
        s.progressive = progressive
        let bytes = try ImageEncoder.jpeg(image8(w, h, px), s)
        let header = try ImageDecoder.header(bytes)
        #expect(header.format == .jpeg && header.progressive == progressive)
        let back = try ImageDecoder.decode(bytes)
        let maxError = zip(quads(back).joined(), px.joined()).map { abs($0 - $1) }.max()!
        #expect(maxError <= 8)

        var gray = image8(w, h, px.map { [$0[0], $0[0], $0[0], 255] })
        gray.layout = .gray
        let gbytes = try ImageEncoder.jpeg(gray, s)
        #expect(try ImageDecoder.header(gbytes).colorType == "gray")
        let gback = try ImageDecoder.decode(gbytes)
        #expect(quads(gback).allSatisfy { $0[0] == $0[1] && $0[1] == $0[2] && $0[3] == 255 })
    }

    @Test func jpegRefusesAlphaWithoutFlatten() throws {
        let img = image8(2, 1, [[10, 20, 30, 255], [10, 20, 30, 100]])
        #expect(throws: CodecError.self) { try ImageEncoder.jpeg(img) }
        var s = JPEGSettings.standard
        s.flatten = .white
        s.quality = 100
        let back = try ImageDecoder.decode(ImageEncoder.jpeg(img, s))
        #expect(back.alphaStatistics().min == 255)
    }

    @Test func corruptJPEGIsAnError() throws {
        let px: [[Int]] = (0..<64).map { [$0 * 4, 0, 0, 255] }
        let good = try ImageEncoder.jpeg(image8(8, 8, px))
        #expect(throws: CodecError.self) { try ImageDecoder.decode(Array(good[0..<(good.count / 2)])) }
        var badHuffman = good
        // Corrupt the DHT segment's code counts.
        if let dht = (0..<(good.count - 1)).first(where: { good[$0] == 0xFF && good[$0 + 1] == 0xC4 }) {
            for k in (dht + 5)..<(dht + 21) { badHuffman[k] = 0xFF }
        }
        #expect(throws: CodecError.self) { try ImageDecoder.decode(badHuffman) }
    }

    @Test func cmykJPEGIsRefusedClearly() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/cmyk.jpg").path
        let bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(try ImageDecoder.header(Array(bytes)).colorType == "CMYK")
        #expect(throws: CodecError("CMYK JPEG is not supported (convert it to RGB first)")) {
            try ImageDecoder.decode(Array(bytes))
        }
    }

    @Test func signatureNotExtensionDecides() throws {
        let px: [[Int]] = (0..<16).map { [$0 * 16, 255 - $0 * 16, 0, 255] }
        let jpeg = try ImageEncoder.jpeg(image8(4, 4, px))
        let h = try ImageDecoder.header(jpeg, path: "named.png")
        #expect(h.format == .jpeg)
        #expect(try ImageDecoder.decode(jpeg, path: "named.png").width == 4)
    }
}
