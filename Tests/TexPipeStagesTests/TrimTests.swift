import Testing
import TexPipeTestSupport

@testable import TexPipePixels
@testable import TexPipeStages

/// Trim removes transparent borders, keeping the margin.
@Suite("trim")
struct TrimTests {
    @Test func trimRemovesTransparentBordersKeepingMargin() throws {
        // 6×5, opaque 2×2 block at (2, 1)…(3, 2); one faint pixel at (5, 4) with alpha 10.
        var px = Array(repeating: [9, 9, 9, 0], count: 30)
        for (x, y) in [(2, 1), (3, 1), (2, 2), (3, 2)] { px[y * 6 + x] = [x, y, 0, 255] }
        px[4 * 6 + 5] = [1, 1, 1, 10]
        let img = image8(6, 5, px)
        let all = try Trim().applied(to: img)[0]
        #expect(all.width == 4 && all.height == 4)  // (2,1) … (5,4)
        let strict = try Trim(threshold: 10.0 / 255).applied(to: img)[0]
        #expect(strict.width == 2 && strict.height == 2)
        #expect(strict.pixel(0, 0) == [2, 1, 0, 255])
        let margin = try Trim(threshold: 0.1, margin: 1).applied(to: img)[0]
        #expect(margin.width == 4 && margin.height == 4)
        #expect(margin.pixel(1, 1) == [2, 1, 0, 255])
        let big = try Trim(threshold: 0.1, margin: 9).applied(to: img)[0]
        #expect(big == img, "the margin never goes beyond the image")
        let empty = try Trim().applied(to: image8(3, 2, Array(repeating: [5, 5, 5, 0], count: 6)))[0]
        #expect(empty.width == 1 && empty.height == 1 && empty.pixel(0, 0) == [0, 0, 0, 0])
    }
}
