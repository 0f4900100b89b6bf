import Testing
import TexPipeTestSupport

@testable import TexPipePixels
@testable import TexPipeStages

/// Flatten over a solid color, from straight and premultiplied input.
@Suite("flatten")
struct FlattenTests {
    @Test func flattenStraightAndPremultiplied() throws {
        let bg = Color(r: 10.0 / 255, g: 200.0 / 255, b: 1)
        let px = [[200, 100, 0, 0], [200, 100, 0, 128], [200, 100, 0, 255]]
        let out = try Flatten(color: bg).applied(to: image8(3, 1, px))[0]
        for (i, p) in px.enumerated() {
            let a = Double(p[3]) / 255
            let expected = zip(p[0..<3], [10, 200, 255]).map { roundHalfUp(Double($0) * a + Double($1) * (1 - a)) }
            #expect(out.pixel(i, 0) == expected + [255])
        }
        // Premultiplied: c' + bg · (1 − a).
        let pma = try Premultiply().applied(to: image8(3, 1, px))[0]
        let outP = try Flatten(color: bg).applied(to: pma)[0]
        for i in 0..<3 {
            let c = pma.pixel(i, 0)
            let a = Double(c[3]) / 255
            let expected = zip(c[0..<3], [10, 200, 255]).map { min(255, $0 + roundHalfUp(Double($1) * (1 - a))) }
            #expect(outP.pixel(i, 0) == expected + [255])
        }
    }
}
