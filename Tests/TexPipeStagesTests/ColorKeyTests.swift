import Testing
import TexPipeTestSupport

@testable import TexPipePixels
@testable import TexPipeStages

@Suite("color-key")
struct ColorKeyTests {
    static let key = [0, 128, 0, 255]
    static let white = [255, 255, 255, 255]

    /// 5×5: key border ring, white inside, one key pixel in the middle (enclosed by white).
    static func framed() -> Image {
        var px: [[Int]] = []
        for y in 0..<5 {
            for x in 0..<5 {
                let border = x == 0 || y == 0 || x == 4 || y == 4
                px.append(border || (x == 2 && y == 2) ? key : white)
            }
        }
        return image8(5, 5, px)
    }

    @Test func allKeysEveryMatchEdgesOnlyConnectedOnes() throws {
        let green = Color(parsing: "rgb(0,128,0)")!
        let all = try ColorKey(color: green, region: .all).applied(to: Self.framed())[0]
        let edges = try ColorKey(color: green, region: .edges).applied(to: Self.framed())[0]
        #expect(all.pixel(2, 2)[3] == 0)
        #expect(edges.pixel(2, 2) == Self.key, "the enclosed key pixel is artwork")
        for (x, y) in [(0, 0), (4, 0), (2, 4), (0, 3)] {
            #expect(all.pixel(x, y) == [0, 128, 0, 0], "keyed pixels keep their RGB")
            #expect(edges.pixel(x, y) == [0, 128, 0, 0])
        }
        #expect(edges.pixel(1, 1) == Self.white)
    }

    @Test func edgesUsesFourConnectivity() throws {
        // A key pixel touching the border region only diagonally stays.
        let px: [[Int]] = [
            Self.key, Self.white, Self.white,
            Self.white, Self.key, Self.white,
            Self.white, Self.white, Self.white,
        ]
        // (1,1) is diagonal to (0,0); it is not on the border and not 4-connected to it.
        let out = try ColorKey(color: Color(r: 0, g: 128.0 / 255, b: 0), region: .edges).applied(to: image8(3, 3, px))[
            0]
        #expect(out.pixel(0, 0)[3] == 0)
        #expect(out.pixel(1, 1)[3] == 255)
    }

    @Test func toleranceBoundaryIsInclusive() throws {
        // RMS of (15, 15, 15) is 15 → d = 15/255. Exactly at the tolerance: keyed; just under: kept.
        let px = [[15, 143, 15, 255]]
        let key = Color(r: 0, g: 128.0 / 255, b: 0)
        let at = try ColorKey(color: key, tolerance: 15.0 / 255).applied(to: image8(1, 1, px))[0]
        #expect(at.pixel(0, 0)[3] == 0)
        let under = try ColorKey(color: key, tolerance: 14.99 / 255).applied(to: image8(1, 1, px))[0]
        #expect(under.pixel(0, 0)[3] == 255)
        // Uneven differences: (30, 0, 0) → RMS = 30/√3 ≈ 17.32.
        let uneven = [[30, 128, 0, 255]]
        #expect(
            try ColorKey(color: key, tolerance: 17.33 / 255).applied(to: image8(1, 1, uneven))[0].pixel(0, 0)[3] == 0)
        #expect(
            try ColorKey(color: key, tolerance: 17.31 / 255).applied(to: image8(1, 1, uneven))[0].pixel(0, 0)[3] == 255)
    }

    @Test func featherRampsAlphaByDistance() throws {
        // Key black; gray pixels (v, v, v) have d = v/255. tolerance 0.1, feather 0.2.
        let values = [0, 20, 25, 26, 40, 51, 76, 77, 90, 200]
        let px = values.map { [$0, $0, $0, 200] }
        let out = try ColorKey(color: Color(r: 0, g: 0, b: 0), tolerance: 0.1, feather: 0.2)
            .applied(to: image8(values.count, 1, px))[0]
        for (i, v) in values.enumerated() {
            let d = Double(v) / 255
            let expected: Int
            if d <= 0.1 + 1e-9 {
                expected = 0
            } else if d <= 0.3 {
                expected = roundHalfUp(200 * (d - 0.1) / 0.2)
            } else {
                expected = 200
            }
            #expect(out.pixel(i, 0)[3] == expected, "v = \(v)")
            #expect(Array(out.pixel(i, 0)[0..<3]) == [v, v, v], "RGB kept without unmix")
        }
    }

    @Test func unmixRecoversAKnownForeground() throws {
        // Foreground (200, 40, 60) blended over key (0, 128, 0) with coverage f, observed.
        // With feather chosen so the ramp gives back f exactly, unmix recovers the foreground.
        let fg = [200.0, 40, 60]
        let key = [0.0, 128, 0]
        let f = 0.5
        let obs = (0..<3).map { roundHalfUp(f * fg[$0] + (1 - f) * key[$0]) }
        let dd = (0..<3).map { Double(obs[$0]) - key[$0] }
        let d = ((dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]) / 3).squareRoot() / 255
        // tolerance 0 and feather = 2d put this pixel at f = d / (2d) = 0.5.
        let out = try ColorKey(color: Color(r: 0, g: 128.0 / 255, b: 0), feather: 2 * d, unmix: true)
            .applied(to: image8(1, 1, [obs + [255]]))[0]
        let p = out.pixel(0, 0)
        #expect(p[3] == 128)
        for k in 0..<3 {
            let expected = roundHalfUp(min(255, max(0, (Double(obs[k]) - (1 - f) * key[k]) / f)))
            #expect(p[k] == expected)
            #expect(abs(p[k] - Int(fg[k])) <= 2, "close to the true foreground")
        }
    }

    @Test func sixteenBitKeysOnTheSameFractions() throws {
        let px = [[0, 128 * 257, 0, 65535], [65535, 65535, 65535, 65535]]
        let out = try ColorKey(color: Color(parsing: "#008000")!).applied(to: image16(2, 1, px))[0]
        #expect(out.pixel(0, 0)[3] == 0)
        #expect(out.pixel(1, 0)[3] == 65535)
    }

    @Test func premultipliedInputIsAPlanError() {
        #expect(throws: StageError.self) {
            try ColorKey(color: .white).planned(Signature(width: 1, height: 1, depth: 8, alpha: .premultiplied))
        }
    }
}
