import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipePixels
@testable import TexPipeStages

/// Round corners: coverage against a numeric integration of the disc, per-corner radii and the border.
@Suite("round-corners")
struct RoundCornersTests {
    /// Pixel coverage of a quarter disc of radius r centred at (r, r), integrated numerically
    /// in x with the exact chord height — independent of the stage's closed form.
    static func numericCoverage(_ x: Int, _ y: Int, _ r: Double) -> Double {
        let steps = 4000
        var area = 0.0
        for k in 0..<steps {
            let px = Double(x) + (Double(k) + 0.5) / Double(steps)
            let dx = r - px
            guard dx > 0 else { area += 1.0 / Double(steps); continue }
            guard dx < r else { continue }
            let top = r - (r * r - dx * dx).squareRoot()  // the arc's y at px
            let inside = max(0, min(Double(y + 1), Double.infinity) - max(Double(y), top))
            area += min(1, inside) / Double(steps)
        }
        return area
    }

    @Test func roundCornersMatchTheAnalyticCoverage() throws {
        // Fractional radii (docs/stages.md: any non-negative number) by the same exact coverage.
        for radius in [3, 7.5, 8, 12.25, 13] {
            let n = 40
            let r = Int(radius.rounded(.up))
            let out = try RoundCorners(radius: [radius]).applied(to: square(n, [10, 20, 30, 255]))[0]
            for y in 0..<r {
                for x in 0..<r {
                    let expected = Self.numericCoverage(x, y, radius)
                    #expect(
                        abs(Double(out.pixel(x, y)[3]) / 255 - expected) <= 1.0 / 255 + 1e-9,
                        "r \(radius) at (\(x), \(y))")
                    // The same by symmetry at the other corners.
                    #expect(out.pixel(n - 1 - x, y)[3] == out.pixel(x, y)[3])
                    #expect(out.pixel(n - 1 - x, n - 1 - y)[3] == out.pixel(x, y)[3])
                    #expect(out.pixel(x, n - 1 - y)[3] == out.pixel(x, y)[3])
                }
            }
            #expect(out.pixel(r, 0) == [10, 20, 30, 255] && out.pixel(n / 2, n / 2) == [10, 20, 30, 255])
        }
        let img = numbered(9, 7)
        #expect(try RoundCorners(radius: [0]).applied(to: img)[0] == img)
    }

    @Test func perCornerRadiiAndBorder() throws {
        let out = try RoundCorners(radius: [0, 6, 0, 6]).applied(to: square(20, [1, 2, 3, 255]))[0]
        #expect(
            out.pixel(0, 0)[3] == 255 && out.pixel(19, 0)[3] == 0 && out.pixel(19, 19)[3] == 255
                && out.pixel(0, 19)[3] == 0)
        let red = Color(r: 1, g: 0, b: 0)
        let bordered = try RoundCorners(radius: [6], border: (2, red)).applied(to: square(20, [0, 0, 255, 255]))[0]
        // A fractional radius moves the arc, and the border follows it: 6.5 leaves more of the
        // corner pixel out than 6, the straight border rows are the same.
        let half = try RoundCorners(radius: [6.5], border: (2, red)).applied(to: square(20, [0, 0, 255, 255]))[0]
        #expect(half.pixel(1, 2)[3] < bordered.pixel(1, 2)[3] && half.pixel(1, 2)[0] >= 250)
        #expect(half.pixel(10, 0) == [255, 0, 0, 255] && half.pixel(10, 2) == [0, 0, 255, 255])
        #expect(bordered.pixel(10, 0) == [255, 0, 0, 255] && bordered.pixel(10, 1) == [255, 0, 0, 255])
        #expect(bordered.pixel(10, 2) == [0, 0, 255, 255] && bordered.pixel(10, 10) == [0, 0, 255, 255])
        #expect(bordered.pixel(0, 0)[3] == 0)
        // On the arc, the border is anti-aliased too: partial alpha, red.
        let arc = bordered.pixel(1, 2)
        #expect(arc[3] > 0 && arc[3] < 255 && arc[0] >= 250 && arc[2] <= 5)
    }
}
