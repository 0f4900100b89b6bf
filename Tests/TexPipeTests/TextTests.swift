import Foundation
import Testing
import TexPipePlanTestSupport
import TexPipeTestSupport

@testable import TexPipe
@testable import TexPipeCodecs
@testable import TexPipeStages

@Suite("text layers")
struct TextTests {
    static let clear = image8(120, 90, Array(repeating: [0, 0, 0, 0], count: 120 * 90))

    /// The box of pixels with alpha > 0, and the sum of alpha.
    static func ink(_ image: Image) -> (x0: Int, y0: Int, x1: Int, y1: Int, sum: Int)? {
        var box: (Int, Int, Int, Int)?
        var sum = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let a = image.pixel(x, y)[3]
                guard a > 0 else { continue }
                sum += a
                box = box.map { (min($0.0, x), min($0.1, y), max($0.2, x), max($0.3, y)) } ?? (x, y, x, y)
            }
        }
        return box.map { ($0.0, $0.1, $0.2, $0.3, sum) }
    }

    func render(_ layer: String) throws -> Image {
        try decodeStage(Composite.self, #"{"layers": [\#(layer)]}"#).applied(to: Self.clear)[0]
    }

    /// FreeType driven from Python (freetype-py), not through texpipe: the same face at 40 px
    /// (72 dpi), unhinted, rendered in the normal (8-bit coverage) mode. Its ink box and coverage.
    static func freeTypeReference(_ text: String, font: String, size: Int) throws -> (width: Int, height: Int, sum: Int)
    {
        let out = try Python.run(
            "import sys, freetype; f = freetype.Face(sys.argv[1]); f.set_char_size(0, int(sys.argv[2]) * 64, 72, 72); "
                + "f.load_char(sys.argv[3], freetype.FT_LOAD_NO_HINTING | freetype.FT_LOAD_NO_BITMAP | freetype.FT_LOAD_RENDER); "
                + "b = f.glyph.bitmap; print(b.width, b.rows, sum(b.buffer))",
            font, String(size), text)
        let n = String(decoding: out, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard n.count == 3 else { throw MissingReference(name: "freetype-py's answer") }
        return (n[0], n[1], n[2])
    }

    @Test(Reference.needs(Python.has("freetype"), "python3 freetype-py"))
    func glyphCoverageIsStableAndMatchesFreeType() throws {
        let a = try render(#"{"text": "8", "font": "DejaVu Sans:bold", "size": 40, "color": "white"}"#)
        let b = try render(#"{"text": "8", "font": "DejaVu Sans:bold", "size": 40, "color": "white"}"#)
        #expect(a == b, "byte-identical across runs")
        let font = try FontFinder.resolve("DejaVu Sans:bold", baseDirectory: "/").get()
        #expect(font.path.hasSuffix("DejaVuSans-Bold.ttf"))
        let ink = try #require(Self.ink(a))
        // White at full opacity: the layer's alpha is FreeType's coverage, every pixel of it.
        let reference = try Self.freeTypeReference("8", font: font.path, size: 40)
        #expect(ink.sum == reference.sum)
        #expect(ink.x1 - ink.x0 + 1 == reference.width && ink.y1 - ink.y0 + 1 == reference.height)
        // A 40 px bold "8" is about 29 px tall and 23 px wide (DejaVu's cap height is 0.73 em).
        #expect((27...31).contains(reference.height) && (20...26).contains(reference.width))
    }

    @Test("the anchor point of the ink box lies at `at`")
    func anchors() throws {
        let font = #""font": "DejaVu Sans", "size": 30"#
        let topLeft = try #require(
            Self.ink(try render(#"{"text": "Ag", \#(font), "at": [10, 20], "anchor": "top-left"}"#)))
        #expect((topLeft.x0, topLeft.y0) == (10, 20))
        let bottomRight = try #require(
            Self.ink(try render(#"{"text": "Ag", \#(font), "at": [100, 80], "anchor": "bottom-right"}"#)))
        #expect((bottomRight.x1 + 1, bottomRight.y1 + 1) == (100, 80))
        // Centered by default on the canvas center (60, 45), within half a pixel each way.
        let centered = try #require(Self.ink(try render(#"{"text": "Ag", \#(font)}"#)))
        let cx = Double(centered.x0 + centered.x1 + 1) / 2
        let cy = Double(centered.y0 + centered.y1 + 1) / 2
        #expect(abs(cx - 60) <= 0.5 && abs(cy - 45) <= 0.5)
    }

    @Test func kerningAndAdvancesLayOutOneLine() throws {
        let font = try FontFinder.resolve("DejaVu Sans", baseDirectory: "/").get()
        let one = try TextBitmap.rendered("1", font: font, size: 32)
        let eleven = try TextBitmap.rendered("11", font: font, size: 32)
        #expect(eleven.height == one.height)
        // Two glyphs one advance apart (0.636 em for DejaVu's digits ≈ 20.4 px).
        #expect(abs(eleven.width - one.width - 20) <= 1)
        // Kerning: DejaVu's 'kern' table pulls "o" under "T" by 348/64 px at 32 px, so 10.9 px at 64.
        let t = try TextBitmap.rendered("T", font: font, size: 64)
        let tt = try TextBitmap.rendered("TT", font: font, size: 64)
        let o = try TextBitmap.rendered("o", font: font, size: 64)
        let to = try TextBitmap.rendered("To", font: font, size: 64)
        let advanceT = tt.width - t.width
        let unkerned = advanceT + o.left + o.width - t.left
        #expect((9...13).contains(unkerned - to.width), "kerned by \(unkerned - to.width) px")
    }

    @Test func outlineGrowsTheInkAndSitsUnderTheFill() throws {
        let plain = try #require(Self.ink(try render(#"{"text": "7", "size": 40, "color": "white"}"#)))
        let image = try render(
            #"{"text": "7", "size": 40, "color": "white", "outline": {"width": 3, "color": "black"}}"#)
        let outlined = try #require(Self.ink(image))
        #expect(outlined.x1 - outlined.x0 >= plain.x1 - plain.x0 + 5)
        #expect(outlined.y1 - outlined.y0 >= plain.y1 - plain.y0 + 5)
        // Some pixel is pure white fill and some pure black outline, both opaque.
        let pixels = quads(image)
        #expect(pixels.contains([255, 255, 255, 255]) && pixels.contains([0, 0, 0, 255]))
    }

    @Test func aMissingFontFailsAtPlanTimeNamingThePattern() throws {
        let t = TempDir()
        t.png("in.png")
        let errors = t.errors(
            #"""
            { "version": 1, "pipelines": [ { "name": "p", "inputs": ["in.png"], "stages": [
              { "stage": "composite", "layers": [ { "text": "9", "font": "No Such Sans:bold" } ] } ] } ] }
            """#)
        #expect(errors.count == 1)
        #expect(
            errors.first?.hasPrefix(
                "error: $T/pipeline.json: pipelines[0].stages[0]: layers[0].font: font \"No Such Sans:bold\" not found")
                == true)
        #expect(errors.first?.contains("run `fc-list`") == true)
        let file = t.errors(
            #"""
            { "version": 1, "pipelines": [ { "name": "p", "inputs": ["in.png"], "stages": [
              { "stage": "composite", "layers": [ { "text": "9", "font": "fonts/missing.ttf" } ] } ] } ] }
            """#)
        #expect(file.first?.contains("font file \"fonts/missing.ttf\" not found") == true)
    }

    @Test func aFontFileRelativeToTheManifestWorks() throws {
        let t = TempDir()
        let dejavu = try FontFinder.resolve("DejaVu Sans", baseDirectory: "/").get()
        t.write("fonts/mine.ttf", Array(try Data(contentsOf: URL(fileURLWithPath: dejavu.path))))
        let stage = try decodeStage(
            Composite.self, #"{"layers": [{"text": "5", "font": "fonts/mine.ttf", "size": 30}]}"#, base: t.path)
        #expect(stage.reads == [.font(spec: "fonts/mine.ttf", base: t.path, label: "layers[0].font")])
        let ink = try #require(Self.ink(try stage.applied(to: Self.clear)[0]))
        #expect(ink.sum > 0)
    }
}
