import Foundation
import Testing
import TexPipeFormats
import TexPipePixels
import TexPipeTestSupport

@testable import TexPipeCodecs
@testable import TexPipeTextures

/// texpipe's KTX2 files in a real client: WebGL 2 in headless Chromium (ANGLE on SwiftShader,
/// whose block decoders are its own). Every level of a 60 × 44 chain, down to 1 × 1, is uploaded
/// with `compressedTexImage2D` and read back with `texelFetch` (`webgl_reference.py`), and must
/// equal an independent decoder's texels within 2 units: texture2ddecoder for BC and ETC2/EAC,
/// for ASTC too. An sRGB format is compared in linear light, as the GPU returns it.
@Suite("WebGL 2 in Chromium")
struct WebGLTests {
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") && BlockReference.hasDecoder
    }
    static let script = Python.script("webgl_reference.py")

    /// Format, colour space and texture2ddecoder's decoder for it.
    static let cases: [(TextureSettings.Format, TextureSettings.ColorSpace, String)] = [
        (.bc1, .srgb, "bc1"), (.bc1, .linear, "bc1"), (.bc3, .srgb, "bc3"), (.bc3, .linear, "bc3"),
        (.etc2RGB, .srgb, "etc2"), (.etc2RGB, .linear, "etc2"), (.etc2RGBA, .srgb, "etc2a8"),
        (.etc2RGBA, .linear, "etc2a8"), (.eacR11, .linear, "eacr"), (.eacRG11, .linear, "eacrg"),
        (.astc4x4, .srgb, "astc"), (.astc4x4, .linear, "astc"), (.astc6x6, .srgb, "astc"), (.astc8x8, .linear, "astc"),
    ]

    /// The 8-bit value an sRGB-encoded 8-bit value becomes in linear light (IEC 61966-2-1).
    static func linear(_ v: UInt8) -> Int {
        let c = Double(v) / 255
        let l = c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        return Int((l * 255).rounded())
    }

    @Test(Reference.needs(WebGLTests.available, "chromium and texture2ddecoder"), arguments: 0..<14)
    func everyLevelDrawsAsTheDecoderSays(_ k: Int) throws {
        let (format, colorSpace, decoder) = Self.cases[k]
        let alpha = format.info.channels == .rgba
        var levels: [Image] = []
        var (w, h, seed) = (60, 44, UInt64(k + 1))
        while true {
            levels.append(
                Image(width: w, height: h, pixels: .rgba8(BlockReference.picture(w, h, seed: seed, alpha: alpha))))
            if w == 1 && h == 1 { break }
            (w, h, seed) = (max(1, w / 2), max(1, h / 2), seed + 1)
        }
        var settings = TextureSettings.standard
        settings.format = format
        settings.colorSpace = colorSpace
        settings.quality = .fast
        let file = try TextureEncoder.encode(levels, settings, container: .ktx2)
        let t = TempDir()
        t.write("t.ktx2", file)
        _ = try Python.run([Self.script, t.path + "/t.ktx2", t.path + "/out"])
        let drawn = Array(try Data(contentsOf: URL(fileURLWithPath: t.path + "/out")))
        let ktx = try #require(KTX2File(file))
        let srgb = colorSpace == .srgb && !format.info.isData
        var at = 0
        for (n, level) in levels.enumerated() {
            let expected = try BlockReference.reference(
                ktx.levelData(n), decoder: decoder, level.width, level.height, block: format.info.block)
            let count = level.width * level.height * 4
            try #require(at + count <= drawn.count)
            var worst = 0
            for i in 0..<count {
                let e = srgb && i % 4 != 3 ? Self.linear(expected[i]) : Int(expected[i])
                // One- and two-channel EAC formats: the GPU returns 0 for the absent channels and 1 for alpha.
                let want =
                    format == .eacR11 && i % 4 == 1 || (format == .eacR11 || format == .eacRG11) && i % 4 == 2
                    ? 0 : (format == .eacR11 || format == .eacRG11) && i % 4 == 3 ? 255 : e
                worst = max(worst, abs(Int(drawn[at + i]) - want))
            }
            #expect(
                worst <= 2, "\(format.rawValue) \(colorSpace) level \(n) (\(level.width)×\(level.height)): \(worst)")
            at += count
        }
        #expect(at == drawn.count)
    }
}
