import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeCodecs
@testable import TexPipeFormats
@testable import TexPipePixels

/// WebP and AVIF (docs/manifest.md "WebP and AVIF") against the reference tools and an
/// independent decoder: texpipe's files are byte for byte what `cwebp` and `avifenc` write at the
/// same settings (the same libraries, driven as scripts drive them), and texpipe reads files those
/// tools wrote (Tests/Fixtures/web, Scripts/fixtures/make-web) to the pixels Pillow's own libwebp
/// and libavif give.
@Suite("WebP and AVIF")
struct WebAVIFTests {
    static let fixtures = Python.packageRoot + "/Tests/Fixtures/web/"
    static let tools = Reference.needs(WebTools.available && Python.has("PIL"), "cwebp, avifenc and Pillow")

    static func file(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixtures + name)))
    }

    static func rgba8(_ image: Image) -> [UInt8] {
        guard case .rgba8(let p) = image.to8Bit().pixels else { return [] }
        return p
    }

    /// The largest difference of any channel, and of the colour channels of opaque pixels only.
    static func largestDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    /// PSNR of the colour of the pixels the source holds opaque.
    static func opaquePSNR(_ source: [UInt8], _ decoded: [UInt8]) -> Double {
        var (sum, n) = (0.0, 0)
        for i in stride(from: 0, to: source.count, by: 4) where source[i + 3] == 255 {
            for c in 0..<3 { sum += pow(Double(source[i + c]) - Double(decoded[i + c]), 2) }
            n += 3
        }
        return sum == 0 ? 99 : 10 * log10(255 * 255 / (sum / Double(n)))
    }

    // MARK: - Writing: the reference tools' bytes

    @Test(tools) func webpIsCwebpsFileAtTheSameSettings() throws {
        let t = TempDir()
        for name in ["source-rgba.png", "../../../Samples/cards/a-spades.png"] {
            let source = Self.fixtures + name
            let image = try ImageDecoder.decode(try Self.file(name))
            for (settings, flags) in [
                (WebPSettings.standard, ["-q", "90", "-m", "4", "-alpha_q", "100"]),
                (
                    WebPSettings(quality: 40, lossless: false, method: 6, alphaQuality: 50),
                    ["-q", "40", "-m", "6", "-alpha_q", "50"]
                ),
                (
                    WebPSettings(quality: 75, lossless: true, method: 4, alphaQuality: 100),
                    ["-lossless", "-exact", "-q", "75", "-m", "4"]
                ),
            ] {
                try WebTools.run("cwebp", ["-quiet"] + flags + [source, "-o", t.path + "/ref.webp"])
                let mine = try WebP.encode(image, settings)
                #expect(mine == t.read("ref.webp"), "\(name) \(flags)")
            }
        }
    }

    /// 4:4:4 files are byte for byte avifenc's. At 4:2:0 avifenc converts RGB → YUV through libyuv,
    /// whose SIMD paths are not promised to match across CPUs; texpipe uses libavif's own averaging,
    /// so its 4:2:0 files differ in the odd chroma sample: the same size within 2 %, and as close to
    /// the source (PSNR of the opaque pixels' colour, within 0.3 dB).
    @Test(tools) func avifIsAvifencsFileAtTheSameQuantizersAndSpeed() throws {
        let t = TempDir()
        for name in ["source-rgba.png", "source-rgb16.png"] {
            let image = try ImageDecoder.decode(try Self.file(name))
            for (settings, flags) in [
                (
                    AVIFSettings.standard,
                    ["-s", "6", "--min", "13", "--max", "13", "--minalpha", "0", "--maxalpha", "0"]
                ),
                (
                    AVIFSettings(quality: 50, speed: 8, alphaQuality: 60, depth: nil, subsampling: .yuv444),
                    ["-s", "8", "--min", "32", "--max", "32", "--minalpha", "25", "--maxalpha", "25"]
                ),
                (
                    AVIFSettings(quality: 90, speed: 9, alphaQuality: 100, depth: 12, subsampling: .yuv444),
                    ["-s", "9", "-d", "12", "--min", "6", "--max", "6", "--minalpha", "0", "--maxalpha", "0"]
                ),
                (
                    AVIFSettings(quality: 70, speed: 7, alphaQuality: 100, depth: nil, subsampling: .yuv420),
                    ["-s", "7", "-y", "420", "--min", "19", "--max", "19", "--minalpha", "0", "--maxalpha", "0"]
                ),
            ] {
                // texpipe writes a 16-bit image at 10 bits unless told: avifenc is told the same.
                let depth = settings.depth == nil ? ["-d", "\(settings.depth(for: image.depth))"] : []
                try WebTools.run(
                    "avifenc", ["-j", "1"] + depth + flags + [Self.fixtures + name, t.path + "/ref.avif"])
                let mine = try AVIF.encode(image, settings)
                let ref = t.read("ref.avif")
                if settings.subsampling == .yuv444 {
                    #expect(mine == ref, "\(name) \(flags)")
                } else {
                    #expect(
                        abs(mine.count - ref.count) * 50 <= ref.count, "\(name): \(mine.count) against \(ref.count)")
                    let source = Self.rgba8(image)
                    let a = Self.opaquePSNR(source, Self.rgba8(try ImageDecoder.decode(mine)))
                    let b = Self.opaquePSNR(source, Self.rgba8(try ImageDecoder.decode(ref)))
                    #expect(a >= b - 0.3, "\(name): \(a) dB against avifenc's \(b) dB")
                }
            }
        }
    }

    /// libavif 1.x's mapping, evaluated here: quantizer = round((100 − quality) · 63 / 100).
    @Test func qualityMapsToTheQuantizerAsLibavifOneDoes() {
        for q in 0...100 {
            #expect(AVIFSettings.quantizer(q) == Int((Double(100 - q) * 63 / 100).rounded()), "\(q)")
        }
        #expect(AVIFSettings.standard.depth(for: 16) == 10 && AVIFSettings.standard.depth(for: 8) == 8)
    }

    @Test func alphaIsWrittenOnlyWhenSomePixelIsNotOpaque() throws {
        let opaque = image8(8, 8, Array(repeating: [10, 200, 30, 255], count: 64))
        let soft = image8(8, 8, (0..<64).map { [10, 200, 30, $0 * 4] })
        for (image, alpha) in [(opaque, false), (soft, true)] {
            let file = try AVIF.encode(image, .standard)
            #expect(try ImageDecoder.header(file).hasTransparency == alpha)
        }
    }

    // MARK: - Reading: the pixels an independent decoder gives

    @Test(tools) func filesTheToolsWroteReadAsPillowReadsThem() throws {
        for name in ["lossy-alpha.webp", "lossless-alpha.webp", "alpha8.avif", "yuv420.avif", "animated.webp"] {
            let image = try ImageDecoder.decode(try Self.file(name), path: name)
            let ref = try WebTools.pillow(Self.fixtures + name)
            #expect(image.width == ref.width && image.height == ref.height, "\(name)")
            #expect(image.depth == 8)
            // WebP's decoding is exact by its specification; AVIF's YUV → RGB may round apart (by 1
            // at 4:4:4; at 4:2:0 Pillow's libavif upsamples chroma through libyuv, texpipe's libavif
            // by its own bilinear filter: 2).
            let limit = name.hasSuffix(".webp") ? 0 : name == "yuv420.avif" ? 2 : 1
            #expect(Self.largestDifference(Self.rgba8(image), ref.rgba) <= limit, "\(name)")
        }
        // The lossless file holds the source exactly, RGB under transparent pixels included.
        let source = try ImageDecoder.decode(try Self.file("source-rgba.png"))
        #expect(Self.rgba8(try ImageDecoder.decode(try Self.file("lossless-alpha.webp"))) == Self.rgba8(source))
    }

    @Test(tools) func tenAndTwelveBitAVIFReadAtSixteenBits() throws {
        let source = try ImageDecoder.decode(try Self.file("source-rgb16.png"))
        guard case .rgba16(let want) = source.pixels else { throw MissingReference(name: "a 16-bit source") }
        for (name, bits) in [("deep10.avif", 10), ("deep12.avif", 12)] {
            let h = try ImageDecoder.header(try Self.file(name))
            #expect(h.fileBitDepth == bits && h.depth == 16)
            let image = try ImageDecoder.decode(try Self.file(name))
            guard case .rgba16(let got) = image.pixels else {
                Issue.record("\(name) did not decode to 16 bits")
                continue
            }
            // What libavif's own decoder gives at 16 bits, exactly.
            #expect(got == (try WebTools.avifdec16(Self.fixtures + name)), "\(name)")
            // And it is the source, through AV1 at quantizer 4: over 45 dB.
            var sum = 0.0
            for i in got.indices where i % 4 != 3 { sum += pow(Double(got[i]) - Double(want[i]), 2) }
            let psnr = 10 * log10(65535.0 * 65535 / (sum / Double(got.count * 3 / 4)))
            #expect(psnr > 45, "\(name): \(psnr) dB")
        }
    }

    @Test(tools) func displayP3IsConvertedToSRGB() throws {
        let image = try ImageDecoder.decode(try Self.file("p3.avif"))
        let ref = try WebTools.pillow(Self.fixtures + "p3.avif", "p3-to-srgb")
        let got = Self.rgba8(image)
        #expect(Self.largestDifference(got, ref.rgba) <= 1)
        // And it did change: P3's saturated colours are outside sRGB.
        let raw = try WebTools.pillow(Self.fixtures + "p3.avif")
        #expect(Self.largestDifference(got, raw.rgba) > 10)
    }

    @Test func hdrAVIFIsRefusedInOneLine() throws {
        #expect {
            try ImageDecoder.decode(try Self.file("pq.avif"))
        } throws: { error in
            let text = "\(error)"
            return text.contains("PQ") && text.contains("EXR") && !text.contains("\n")
        }
    }

    @Test(tools) func animationsGiveTheirFirstFrameAndSayTheRestIsNotRead() throws {
        for name in ["animated.webp", "sequence.avif"] {
            var warnings: [String] = []
            let image = try ImageDecoder.decode(try Self.file(name), path: name, warn: { warnings.append($0) })
            #expect(
                warnings == [
                    "an animated \(name.hasSuffix("webp") ? "WebP" : "AVIF") of 3 frames: texpipe reads its first frame"
                ])
            let ref = try WebTools.pillow(Self.fixtures + name)
            #expect(Self.largestDifference(Self.rgba8(image), ref.rgba) <= (name.hasSuffix("webp") ? 0 : 1))
        }
        var stills = 0
        _ = try ImageDecoder.decode(try Self.file("alpha8.avif"), warn: { _ in stills += 1 })
        #expect(stills == 0)
    }

    @Test func brokenFilesGiveOneLineErrors() throws {
        for name in ["lossy-alpha.webp", "alpha8.avif", "animated.webp"] {
            let bytes = try Self.file(name)
            for broken in [Array(bytes.prefix(bytes.count / 2)), Array(bytes.prefix(20))] {
                #expect {
                    try ImageDecoder.decode(broken, path: name)
                } throws: { error in
                    let text = "\(error)"
                    return !text.isEmpty && !text.contains("\n")
                }
            }
        }
        // Over the pixel limit: refused from the header, before any pixel is allocated.
        #expect(throws: CodecError.self) { try ImageDecoder.decode(try Self.file("alpha8.avif"), maxPixels: 100) }
        #expect(throws: CodecError.self) { try ImageDecoder.decode(try Self.file("lossy-alpha.webp"), maxPixels: 100) }
    }

    @Test func encodingIsDeterministic() throws {
        let image = try ImageDecoder.decode(try Self.file("source-rgba.png"))
        #expect(try WebP.encode(image, .standard) == (try WebP.encode(image, .standard)))
        #expect(try AVIF.encode(image, .standard) == (try AVIF.encode(image, .standard)))
    }
}
