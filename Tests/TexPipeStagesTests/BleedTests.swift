import Testing
import TexPipeTestSupport

@testable import TexPipePixels
@testable import TexPipeStages

@Suite("bleed")
struct BleedTests {
    static let t = [9, 9, 9, 0]  // garbage under alpha 0

    @Test func ringsFillFromTheNearestAndMeanTheirNeighbours() throws {
        // Row: opaque red, three transparent, opaque blue. Ring 1 takes one neighbour each,
        // ring 2 (the middle) the mean of both ring-1 pixels.
        let row = image8(5, 1, [[100, 0, 0, 255], Self.t, Self.t, Self.t, [0, 0, 200, 255]])
        let out = try Bleed().applied(to: row)[0]
        #expect(
            quads(out) == [[100, 0, 0, 255], [100, 0, 0, 0], [50, 0, 100, 0], [0, 0, 200, 0], [0, 0, 200, 255]])
    }

    @Test func eightNeighboursAndRoundingHalfUp() throws {
        // 3×3: (0,0) and (2,0) opaque; everything else transparent.
        var px = Array(repeating: Self.t, count: 9)
        px[0] = [90, 0, 0, 255]
        px[2] = [0, 90, 0, 255]
        let out = try Bleed().applied(to: image8(3, 3, px))[0]
        // Ring 1: (1,0), (0,1), (1,1), (2,1). Ring 2: the bottom row, from ring 1 only.
        #expect(out.pixel(1, 0) == [45, 45, 0, 0])
        #expect(out.pixel(0, 1) == [90, 0, 0, 0])
        #expect(out.pixel(1, 1) == [45, 45, 0, 0])
        #expect(out.pixel(2, 1) == [0, 90, 0, 0])
        #expect(out.pixel(0, 2) == [roundHalfUp(135.0 / 2), roundHalfUp(45.0 / 2), 0, 0])  // 68, 23
        #expect(out.pixel(1, 2) == [45, 45, 0, 0])
        #expect(out.pixel(2, 2) == [23, 68, 0, 0])
        #expect(out.pixel(0, 0) == [90, 0, 0, 255], "filled pixels are untouched")
    }

    @Test func radiusLimitsRingsAndReportsTheUnreached() throws {
        var px = Array(repeating: Self.t, count: 9)
        px[0] = [90, 0, 0, 255]
        px[2] = [0, 90, 0, 255]
        var context = StageContext()
        let out = try Bleed(radius: 1).applied(to: image8(3, 3, px), context: &context)[0]
        #expect(context.notes == ["3 pixels not reached within radius 1; their RGB is 0"])
        #expect(out.pixel(0, 2) == [0, 0, 0, 0])
        #expect(out.pixel(1, 1) == [45, 45, 0, 0])
    }

    @Test func thresholdAndEmptyImages() throws {
        let faint = image8(2, 1, [[200, 200, 200, 10], [0, 100, 0, 255]])
        #expect(try Bleed(threshold: 10.0 / 255).applied(to: faint)[0].pixel(0, 0) == [0, 100, 0, 10])
        #expect(try Bleed().applied(to: faint)[0].pixel(0, 0) == [200, 200, 200, 10])
        let empty = image8(2, 2, Array(repeating: [7, 8, 9, 0], count: 4))
        #expect(quads(try Bleed().applied(to: empty)[0]) == Array(repeating: [0, 0, 0, 0], count: 4))
    }

    @Test func largeImagesFinishAndStayDeterministic() throws {
        // One opaque pixel in a 300×200 image: 299 rings; every pixel gets its color.
        var px = Array(repeating: [1, 2, 3, 0], count: 300 * 200)
        px[150 * 300 + 7] = [10, 20, 30, 255]
        let out = try Bleed().applied(to: image16(300, 200, px.map { $0.map { $0 * 257 } }))[0]
        #expect(quads(out).allSatisfy { Array($0[0..<3]) == [2570, 5140, 7710] })
    }
}
