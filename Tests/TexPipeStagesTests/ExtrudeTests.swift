import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipePixels
@testable import TexPipeStages

/// Extrude: edge pixels repeated outward.
@Suite("extrude")
struct ExtrudeTests {
    @Test func extrudeRepeatsEdges() throws {
        let img = numbered(3, 2)
        let out = try Extrude(pixels: 2).applied(to: img)[0]
        #expect(out.width == 7 && out.height == 6)
        #expect(out.pixel(0, 0) == img.pixel(0, 0) && out.pixel(6, 5) == img.pixel(2, 1))
        #expect(out.pixel(3, 0) == img.pixel(1, 0) && out.pixel(6, 2) == img.pixel(2, 0))
        for y in 0..<2 { for x in 0..<3 { #expect(out.pixel(x + 2, y + 2) == img.pixel(x, y)) } }
    }
}
