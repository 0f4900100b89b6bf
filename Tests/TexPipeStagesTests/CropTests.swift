import Testing
import TexPipeTestSupport

@testable import TexPipePixels
@testable import TexPipeStages

/// Crop keeps the rectangle; one outside the image is an error naming both sizes.
@Suite("crop")
struct CropTests {
    @Test func cropKeepsTheRectangleAndRejectsOutside() throws {
        let img = indexed(5, 4)
        let c = try Crop(x: 1, y: 2, width: 3, height: 2).applied(to: img)[0]
        #expect(c.width == 3 && c.height == 2)
        for y in 0..<2 { for x in 0..<3 { #expect(c.pixel(x, y) == img.pixel(x + 1, y + 2)) } }
        #expect(throws: StageError("the rectangle 3×3 at (3, 2) does not fit inside the 5×4 image")) {
            try Crop(x: 3, y: 2, width: 3, height: 3).applied(to: img)
        }
        #expect(throws: StageError.self) { try Crop(x: 0, y: 0, width: 6, height: 1).planned(Signature(of: img)) }
        #expect(try Crop(x: 0, y: 0, width: 5, height: 4).applied(to: img)[0] == img)
    }
}
