import Foundation
import Testing
import TexPipePlanTestSupport
import TexPipeTestSupport

@testable import TexPipe
@testable import TexPipeCodecs
@testable import TexPipeEngine
@testable import TexPipeFormats
@testable import TexPipeManifest
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeReport
@testable import TexPipeStages

@Suite("adjust")
struct AdjustTests {
    /// docs/stages.md evaluated in Double: HSV (hue added, saturation and value scaled, clamped), then
    /// contrast around ½, then gamma; rounded half up.
    static func expected(
        _ px: [Int], hue: Double = 0, sat: Double = 1, bright: Double = 1, contrast: Double = 1,
        gamma: Double = 1, max: Double = 255
    ) -> [Int] {
        var (r, g, b) = (Double(px[0]) / max, Double(px[1]) / max, Double(px[2]) / max)
        let v = Swift.max(r, g, b)
        let d = v - Swift.min(r, g, b)
        var h = 0.0
        if d > 0 {
            h = v == r ? 60 * ((g - b) / d) : v == g ? 60 * ((b - r) / d + 2) : 60 * ((r - g) / d + 4)
        }
        let s = v > 0 ? d / v : 0
        (r, g, b) = hsvToRGB(h + hue, Swift.min(1, s * sat), Swift.min(1, v * bright))
        func finish(_ c: Double) -> Int {
            let k = Swift.min(1, Swift.max(0, (c - 0.5) * contrast + 0.5))
            return roundHalfUp(pow(k, gamma) * max)
        }
        return [finish(r), finish(g), finish(b), px[3]]
    }

    /// HSV → RGB as the textbook writes it (an independent reference for `HSV.toRGB`).
    static func hsvToRGB(_ h: Double, _ s: Double, _ v: Double) -> (Double, Double, Double) {
        let hh = (h.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) / 60
        let c = v * s
        let x = c * (1 - abs(hh.truncatingRemainder(dividingBy: 2) - 1))
        let m = v - c
        let (r, g, b): (Double, Double, Double)
        switch hh {
        case ..<1: (r, g, b) = (c, x, 0)
        case ..<2: (r, g, b) = (x, c, 0)
        case ..<3: (r, g, b) = (0, c, x)
        case ..<4: (r, g, b) = (0, x, c)
        case ..<5: (r, g, b) = (x, 0, c)
        default: (r, g, b) = (c, 0, x)
        }
        return (r + m, g + m, b + m)
    }

    static let samples: [[Int]] = [
        [255, 0, 0, 255], [0, 0, 0, 10], [255, 255, 255, 128], [12, 200, 90, 255], [64, 64, 200, 0],
        [250, 240, 5, 255], [128, 128, 128, 255], [91, 33, 160, 77],
    ]

    @Test(
        "each control against the formula",
        arguments: [
            Adjust(hue: 120), Adjust(hue: -45), Adjust(saturation: 0), Adjust(saturation: 1.7),
            Adjust(brightness: 0.5), Adjust(brightness: 1.3), Adjust(contrast: 2), Adjust(contrast: 0.5),
            Adjust(gamma: 2.2), Adjust(gamma: 0.45),
            Adjust(hue: 200, saturation: 0.8, brightness: 1.2, contrast: 1.1, gamma: 0.9),
        ])
    func matchesFormula(adjust: Adjust) throws {
        let img = image8(Self.samples.count, 1, Self.samples)
        let out = try adjust.applied(to: img)[0]
        for (x, px) in Self.samples.enumerated() {
            let want = Self.expected(
                px, hue: adjust.hue, sat: adjust.saturation, bright: adjust.brightness, contrast: adjust.contrast,
                gamma: adjust.gamma)
            let got = out.pixel(x, 0)
            #expect(got[3] == px[3], "alpha unchanged")
            #expect(zip(got, want).allSatisfy { abs($0 - $1) <= 1 }, "\(px): \(got) vs \(want)")
        }
    }

    @Test func handComputedPixels() throws {
        // Red turned by 120° is green; saturation 0 leaves V as gray; brightness ½ halves V.
        #expect(try Adjust(hue: 120).applied(to: image8(1, 1, [[255, 0, 0, 255]]))[0].pixel(0, 0) == [0, 255, 0, 255])
        #expect(
            try Adjust(saturation: 0).applied(to: image8(1, 1, [[200, 50, 100, 9]]))[0].pixel(0, 0) == [
                200, 200, 200, 9,
            ])
        #expect(
            try Adjust(brightness: 0.5).applied(to: image8(1, 1, [[200, 50, 100, 255]]))[0].pixel(0, 0) == [
                100, 25, 50, 255,
            ])
        // Contrast 1.5 around mid-gray: 255·((c/255 − ½)·1.5 + ½) = 1.5c − 63.75.
        #expect(
            try Adjust(contrast: 1.5).applied(to: image8(1, 1, [[64, 191, 128, 255]]))[0].pixel(0, 0) == [
                32, 223, 128, 255,
            ])
        // Gamma 2 on 128: (128/255)² · 255 = 64.25 → 64.
        #expect(
            try Adjust(gamma: 2).applied(to: image8(1, 1, [[128, 0, 255, 255]]))[0].pixel(0, 0) == [64, 0, 255, 255])
    }

    @Test func sixteenBitKeepsItsPrecision() throws {
        let px = [[40000, 1000, 22222, 65535], [65535, 65535, 0, 3]]
        let out = try Adjust(hue: 30, gamma: 1.5).applied(to: image16(2, 1, px))[0]
        #expect(out.depth == 16)
        for (x, p) in px.enumerated() {
            let want = Self.expected(p, hue: 30, gamma: 1.5, max: 65535)
            #expect(zip(out.pixel(x, 0), want).allSatisfy { abs($0 - $1) <= 2 }, "\(out.pixel(x, 0)) vs \(want)")
        }
    }

    @Test func premultipliedInputIsAdjustedOnItsStraightColors() throws {
        let straight = image8(2, 1, [[200, 100, 50, 128], [90, 180, 30, 255]])
        let premultiplied = try Premultiply().applied(to: straight)[0]
        let adjust = Adjust(hue: 90, brightness: 0.8)
        let viaPremultiplied = try Unpremultiply().applied(to: try adjust.applied(to: premultiplied)[0])[0]
        let direct = try adjust.applied(to: straight)[0]
        #expect(try adjust.applied(to: premultiplied)[0].alpha == .premultiplied)
        for (a, b) in zip(quads(viaPremultiplied), quads(direct)) {
            #expect(a[3] == b[3] && zip(a, b).allSatisfy { abs($0 - $1) <= 2 }, "\(a) vs \(b)")
        }
        // Fully transparent premultiplied pixels stay (0, 0, 0, 0).
        let empty = image8(1, 1, [[0, 0, 0, 0]], alpha: .premultiplied)
        #expect(try Adjust(brightness: 2).applied(to: empty)[0].pixel(0, 0) == [0, 0, 0, 0])
    }

    @Test func numericParametersComeFromVariantPlaceholders() throws {
        let t = TempDir()
        t.png("in.png")
        let plan = try t.plan(
            #"""
            { "version": 1, "pipelines": [ { "name": "p", "inputs": ["in.png"], "output": "{variant}.png",
              "variants": [ { "name": "keeper", "boost": 1.25 }, { "name": "outfield", "boost": "1" } ],
              "stages": [ { "stage": "adjust", "brightness": "{boost}" } ] } ] }
            """#
        ).get()
        #expect(plan.jobs.map { ($0.work.stages[0] as! Adjust).brightness } == [1.25, 1])
        let errors = t.errors(
            #"""
            { "version": 1, "pipelines": [ { "name": "p", "inputs": ["in.png"], "output": "{variant}.png",
              "variants": [ { "name": "keeper", "boost": "bright" } ],
              "stages": [ { "stage": "adjust", "brightness": "{boost}" } ] } ] }
            """#)
        #expect(
            errors == [
                "error: $T/pipeline.json: pipelines[0].stages[0].brightness: expected a number in 0…16, found \"bright\" (from \"{boost}\") (variant \"keeper\")"
            ])
    }
}
