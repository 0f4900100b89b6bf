import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipePixels
@testable import TexPipeStages

/// Rotate: quarter turns are exact pixel moves; other angles anti-aliased, reversible in the interior, the canvas as docs/stages.md gives it.
@Suite("rotate")
struct RotateTests {
    @Test func quarterTurnsAreExactPixelMoves() throws {
        let img = numbered(5, 3)
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
        let img = numbered(6, 2)
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

    @Test(
        "a 30° turn has anti-aliased edges and no dark fringe",
        arguments: [Rotate.Filter.bilinear, .bicubic, .lanczos3])
    func antiAliasedEdges(filter: Rotate.Filter) throws {
        let color = [200, 60, 30, 255]
        let out = try Rotate(degrees: 30, filter: filter).applied(to: square(40, color))[0]
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
        let p = psnr(img.rgba8(inset: 8), crop.rgba8(inset: 8), channels: [0, 1, 2, 3])
        #expect(p > threshold, "\(filter): \(p) dB")
    }

    @Test func rotateWithShadowAndBackgroundPlansItsSize() throws {
        var r = Rotate(degrees: 7)
        r.shadow = Shadow(offset: (2, 2), blur: 1)
        let img = square(20, [50, 100, 150, 255])
        let out = try r.applied(to: img)
        let planned = try r.planned(Signature(of: img))
        #expect(out[0].width == planned[0].width && out[0].height == planned[0].height)
    }

    @Test func rotateBackgroundIsCompositedUnder() throws {
        var r = Rotate(degrees: 30)
        r.background = Color(r: 1, g: 1, b: 1)
        let out = try r.applied(to: image8(10, 10, Array(repeating: [0, 0, 255, 255], count: 100)))[0]
        #expect(out.pixel(0, 0) == [255, 255, 255, 255])
        let center = out.pixel(out.width / 2, out.height / 2)
        #expect(center == [0, 0, 255, 255])
        #expect(quads(out).allSatisfy { $0[3] == 255 }, "an opaque background makes every pixel opaque")
    }
}
