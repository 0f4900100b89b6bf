import Testing

@testable import TexPipe
@testable import TexPipeCodecs
@testable import TexPipeEngine
@testable import TexPipeFormats
@testable import TexPipeManifest
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeReport
@testable import TexPipeStages

@Suite("flatten, flip, crop, pad, trim")
struct GeometryStageTests {
    static func numbered(_ w: Int, _ h: Int) -> Image {
        image8(w, h, (0..<(w * h)).map { [$0, 100 + $0 % 50, 7, 255 - $0] })
    }

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

    @Test func flipMovesPixelsAndTwiceIsIdentity() throws {
        let img = Self.numbered(4, 3)
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

    @Test func cropKeepsTheRectangleAndRejectsOutside() throws {
        let img = Self.numbered(5, 4)
        let c = try Crop(x: 1, y: 2, width: 3, height: 2).applied(to: img)[0]
        #expect(c.width == 3 && c.height == 2)
        for y in 0..<2 { for x in 0..<3 { #expect(c.pixel(x, y) == img.pixel(x + 1, y + 2)) } }
        #expect(throws: StageError("the rectangle 3×3 at (3, 2) does not fit inside the 5×4 image")) {
            try Crop(x: 3, y: 2, width: 3, height: 3).applied(to: img)
        }
        #expect(throws: StageError.self) { try Crop(x: 0, y: 0, width: 6, height: 1).planned(Signature(of: img)) }
        #expect(try Crop(x: 0, y: 0, width: 5, height: 4).applied(to: img)[0] == img)
    }

    @Test func padAddsFilledBorders() throws {
        let img = Self.numbered(2, 2)
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
