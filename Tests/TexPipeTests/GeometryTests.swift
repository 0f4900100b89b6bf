import Foundation
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

@Suite("rotate, shadow, round-corners, extrude")
struct GeometryTests {
    static func numbered(_ w: Int, _ h: Int) -> Image {
        image8(w, h, (0..<(w * h)).map { [$0 % 256, ($0 * 7) % 256, 200, 255 - $0 % 200] })
    }

    @Test func quarterTurnsAreExactPixelMoves() throws {
        let img = Self.numbered(5, 3)
        let cw = try Rotate(degrees: 90).applied(to: img)[0]
        #expect(cw.width == 3 && cw.height == 5)
        // Clockwise: the top-left pixel goes to the top-right.
        for y in 0..<3 { for x in 0..<5 { #expect(cw.pixel(2 - y, x) == img.pixel(x, y)) } }
        let half = try Rotate(degrees: 180).applied(to: img)[0]
        for y in 0..<3 { for x in 0..<5 { #expect(half.pixel(4 - x, 2 - y) == img.pixel(x, y)) } }
        #expect(try Rotate(degrees: 270).applied(to: img)[0] == (try Rotate(degrees: -90).applied(to: img)[0]))
        #expect(try Rotate(degrees: 450).applied(to: img)[0] == cw)
        #expect(try Rotate(degrees: -720).applied(to: img)[0] == img)
        var four = img
        for _ in 0..<4 { four = try Rotate(degrees: 90).applied(to: four)[0] }
        #expect(four == img)
    }

    @Test func quarterTurnWithoutExpandKeepsTheSizeCentred() throws {
        let img = Self.numbered(6, 2)
        let out = try Rotate(degrees: 90, expand: false).applied(to: img)[0]
        #expect(out.width == 6 && out.height == 2)
    }

    @Test func expandedCanvasMatchesTheFormula() {
        for (w, h) in [(10, 10), (64, 32), (7, 100), (1, 1)] {
            for deg in [7.0, 30, 45, 89.5, 135, -30, 200] {
                for pad in [0, 2, 5] {
                    let t = deg * Double.pi / 180
                    let (pw, ph) = (Double(w + 2 * pad), Double(h + 2 * pad))
                    let ew = Int((pw * abs(cos(t)) + ph * abs(sin(t)) - 1e-9).rounded(.up))
                    let eh = Int((pw * abs(sin(t)) + ph * abs(cos(t)) - 1e-9).rounded(.up))
                    let size = Rotate(degrees: deg, padding: pad).size(w, h)
                    #expect(size == (ew, eh), "\(w)×\(h) at \(deg)° pad \(pad)")
                }
            }
        }
        #expect(Rotate(degrees: 30, expand: false).size(40, 20) == (40, 20))
    }

    static func square(_ n: Int, _ color: [Int]) -> Image { image8(n, n, Array(repeating: color, count: n * n)) }

    @Test(
        "a 30° turn has anti-aliased edges and no dark fringe",
        arguments: [Rotate.Filter.bilinear, .bicubic, .lanczos3])
    func antiAliasedEdges(filter: Rotate.Filter) throws {
        let color = [200, 60, 30, 255]
        let out = try Rotate(degrees: 30, filter: filter).applied(to: Self.square(40, color))[0]
        var partial = 0
        for p in quads(out) where p[3] > 0 {
            for k in 0..<3 { #expect(abs(p[k] - color[k]) <= 1, "\(p)") }
            if p[3] < 255 { partial += 1 }
        }
        // Walk each rotated edge of the square: every step along it crosses partial-alpha pixels.
        let t = 30 * Double.pi / 180
        let (cx, cy) = (Double(out.width) / 2, Double(out.height) / 2)
        let corners = [(-20.0, -20.0), (20.0, -20.0), (20.0, 20.0), (-20.0, 20.0)].map { (x, y) in
            (cx + x * cos(t) - y * sin(t), cy + x * sin(t) + y * cos(t))
        }
        for e in 0..<4 {
            let (a, b) = (corners[e], corners[(e + 1) % 4])
            for step in 2..<38 {
                let f = Double(step) / 40
                let (x, y) = (a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f)
                // Somewhere within 1 px of the edge there is a pixel strictly between 0 and 255.
                var found = false
                for dy in -1...1 {
                    for dx in -1...1 {
                        let px = out.pixel(Int(x) + dx, Int(y) + dy)[3]
                        if px > 0 && px < 255 { found = true }
                    }
                }
                #expect(found, "edge \(e) at \(f)")
            }
        }
        #expect(partial >= 4 * 36)
    }

    static func psnr(_ a: Image, _ b: Image, inset: Int) -> Double {
        var se = 0.0
        var n = 0
        for y in inset..<(a.height - inset) {
            for x in inset..<(a.width - inset) {
                for k in 0..<4 {
                    let d = Double(a.pixel(x, y)[k] - b.pixel(x, y)[k])
                    se += d * d
                    n += 1
                }
            }
        }
        return se == 0 ? .infinity : 10 * log10(255 * 255 / (se / Double(n)))
    }

    @Test(
        "θ then −θ restores the interior",
        arguments: [(Rotate.Filter.bilinear, 38.0), (.bicubic, 38.0), (.lanczos3, 38.0)])
    func rotateBack(filter: Rotate.Filter, threshold: Double) throws {
        // A smooth opaque image: gradients and a soft blob.
        let n = 48
        let img = image8(
            n, n,
            (0..<(n * n)).map { i in
                let (x, y) = (Double(i % n), Double(i / n))
                let blob = exp(-((x - 20) * (x - 20) + (y - 28) * (y - 28)) / 60)
                return [Int(x * 5), Int(y * 5), Int(120 + 120 * blob), 255]
            })
        let there = try Rotate(degrees: 23, padding: 2, filter: filter).applied(to: img)[0]
        let back = try Rotate(degrees: -23, expand: false, padding: 2, filter: filter).applied(to: there)[0]
        // Crop the centre back out to the input size.
        let crop = try Crop(x: (back.width - n) / 2, y: (back.height - n) / 2, width: n, height: n).applied(to: back)[0]
        let p = Self.psnr(img, crop, inset: 8)
        #expect(p > threshold, "\(filter): \(p) dB")
    }

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
            let out = try RoundCorners(radius: [radius]).applied(to: Self.square(n, [10, 20, 30, 255]))[0]
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
        let img = Self.numbered(9, 7)
        #expect(try RoundCorners(radius: [0]).applied(to: img)[0] == img)
    }

    @Test func perCornerRadiiAndBorder() throws {
        let out = try RoundCorners(radius: [0, 6, 0, 6]).applied(to: Self.square(20, [1, 2, 3, 255]))[0]
        #expect(
            out.pixel(0, 0)[3] == 255 && out.pixel(19, 0)[3] == 0 && out.pixel(19, 19)[3] == 255
                && out.pixel(0, 19)[3] == 0)
        let red = Color(r: 1, g: 0, b: 0)
        let bordered = try RoundCorners(radius: [6], border: (2, red)).applied(to: Self.square(20, [0, 0, 255, 255]))[0]
        // A fractional radius moves the arc, and the border follows it: 6.5 leaves more of the
        // corner pixel out than 6, the straight border rows are the same.
        let half = try RoundCorners(radius: [6.5], border: (2, red)).applied(to: Self.square(20, [0, 0, 255, 255]))[0]
        #expect(half.pixel(1, 2)[3] < bordered.pixel(1, 2)[3] && half.pixel(1, 2)[0] >= 250)
        #expect(half.pixel(10, 0) == [255, 0, 0, 255] && half.pixel(10, 2) == [0, 0, 255, 255])
        #expect(bordered.pixel(10, 0) == [255, 0, 0, 255] && bordered.pixel(10, 1) == [255, 0, 0, 255])
        #expect(bordered.pixel(10, 2) == [0, 0, 255, 255] && bordered.pixel(10, 10) == [0, 0, 255, 255])
        #expect(bordered.pixel(0, 0)[3] == 0)
        // On the arc, the border is anti-aliased too: partial alpha, red.
        let arc = bordered.pixel(1, 2)
        #expect(arc[3] > 0 && arc[3] < 255 && arc[0] >= 250 && arc[2] <= 5)
    }

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

    @Test func extrudeRepeatsEdges() throws {
        let img = Self.numbered(3, 2)
        let out = try Extrude(pixels: 2).applied(to: img)[0]
        #expect(out.width == 7 && out.height == 6)
        #expect(out.pixel(0, 0) == img.pixel(0, 0) && out.pixel(6, 5) == img.pixel(2, 1))
        #expect(out.pixel(3, 0) == img.pixel(1, 0) && out.pixel(6, 2) == img.pixel(2, 0))
        for y in 0..<2 { for x in 0..<3 { #expect(out.pixel(x + 2, y + 2) == img.pixel(x, y)) } }
    }

    @Test func rotateWithShadowAndBackgroundPlansItsSize() throws {
        var r = Rotate(degrees: 7)
        r.shadow = Shadow(offset: (2, 2), blur: 1)
        let img = Self.square(20, [50, 100, 150, 255])
        let out = try r.applied(to: img)
        let planned = try r.planned(Signature(of: img))
        #expect(out[0].width == planned[0].width && out[0].height == planned[0].height)
    }
}
