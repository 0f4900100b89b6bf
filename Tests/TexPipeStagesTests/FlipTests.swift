import Testing
import TexPipeTestSupport

@testable import TexPipePixels
@testable import TexPipeStages

/// Flip moves pixels; twice is the identity.
@Suite("flip")
struct FlipTests {
    @Test func flipMovesPixelsAndTwiceIsIdentity() throws {
        let img = indexed(4, 3)
        let h = try Flip(axis: .horizontal).applied(to: img)[0]
        let v = try Flip(axis: .vertical).applied(to: img)[0]
        let b = try Flip(axis: .both).applied(to: img)[0]
        for y in 0..<3 {
            for x in 0..<4 {
                #expect(h.pixel(x, y) == img.pixel(3 - x, y))
                #expect(v.pixel(x, y) == img.pixel(x, 2 - y))
                #expect(b.pixel(x, y) == img.pixel(3 - x, 2 - y))
            }
        }
        for axis in [Flip.Axis.horizontal, .vertical, .both] {
            let twice = try Flip(axis: axis).applied(to: Flip(axis: axis).applied(to: img)[0])[0]
            #expect(twice == img)
        }
    }
}
