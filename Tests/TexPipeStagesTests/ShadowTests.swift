import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipePixels
@testable import TexPipeStages

/// Shadow: the blurred mass under the image, and clipping.
@Suite("shadow")
struct ShadowTests {
    @Test func shadowMassAndClip() throws {
        // A transparent canvas with an opaque 10×10 square in the middle.
        var px = Array(repeating: [0, 0, 0, 0], count: 30 * 30)
        for y in 10..<20 { for x in 10..<20 { px[y * 30 + x] = [255, 255, 255, 255] } }
        let img = image8(30, 30, px)
        let s = Shadow(offset: (3, 2), blur: 2.5, color: Color(r: 0, g: 0, b: 0, a: 0.6))
        let out = try s.applied(to: img)[0]
        let c = s.canvas(30, 30)
        #expect(out.width == c.width && out.height == c.height)
        // Shadow mass: sum of alpha outside the square (the square itself is opaque on top).
        var mass = 0.0
        for y in 0..<out.height {
            for x in 0..<out.width {
                let (ix, iy) = (x - c.x, y - c.y)
                if ix >= 10 && ix < 20 && iy >= 10 && iy < 20 { continue }
                mass += Double(out.pixel(x, y)[3]) / 255
            }
        }
        // The shadow layer on its own: its total alpha is the shape's (100 px) × the color's alpha.
        let shadowOnly = Shadow(offset: (3, 2), blur: 2.5, color: Color(r: 0, g: 0, b: 0, a: 0.6))
            .shadowField(of: img)
        let total = shadowOnly.reduce(0.0) { $0 + Double($1) }
        #expect(abs(total - 100 * 0.6) < 0.01, "total shadow alpha \(total)")
        #expect(mass <= total + 0.5)
        #expect(out.pixel(c.x + 15, c.y + 15) == [255, 255, 255, 255])
        let clipped = try Shadow(offset: (3, 2), blur: 2.5, clip: true).applied(to: img)[0]
        #expect(clipped.width == 30 && clipped.height == 30)
    }
}
