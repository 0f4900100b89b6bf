import Testing
import TexPipeTestSupport

@testable import TexPipePixels
@testable import TexPipeStages

/// Pad adds filled borders.
@Suite("pad")
struct PadTests {
    @Test func padAddsFilledBorders() throws {
        let img = indexed(2, 2)
        let red = Color(r: 1, g: 0, b: 0, a: 0.5)
        let p = try Pad(left: 1, top: 2, right: 3, bottom: 0, color: red).applied(to: img)[0]
        #expect(p.width == 6 && p.height == 4)
        #expect(p.pixel(0, 0) == [255, 0, 0, 128])
        #expect(p.pixel(5, 3) == [255, 0, 0, 128])
        #expect(p.pixel(1, 2) == img.pixel(0, 0))
        #expect(p.pixel(2, 3) == img.pixel(1, 1))
        // Premultiplied images get a premultiplied fill.
        var pma = img
        pma.alpha = .premultiplied
        #expect(
            try Pad(left: 1, top: 0, right: 0, bottom: 0, color: red).applied(to: pma)[0].pixel(0, 0) == [
                128, 0, 0, 128,
            ])
        #expect(try Pad(left: 0, top: 0, right: 0, bottom: 0).applied(to: img)[0] == img)
    }
}
