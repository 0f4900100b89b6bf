import Testing
import TexPipeTestSupport

@testable import TexPipePixels
@testable import TexPipeStages

@Suite("premultiply")
struct PremultiplyTests {
    /// All 65,536 (c, a) pairs at 8 bits against c' = round(c · a / 255), halves up.
    @Test func premultiplyIsExactForEvery8BitPair() throws {
        let pixels = (0..<256).flatMap { a in (0..<256).map { c in [c, c, c, a] } }
        let out = try Premultiply().applied(to: image8(256, 256, pixels))[0]
        #expect(out.alpha == .premultiplied)
        var mismatches = 0
        for (i, p) in quads(out).enumerated() {
            let (c, a) = (i % 256, i / 256)
            let expected = roundHalfUp(Double(c * a) / 255)
            if p != [expected, expected, expected, a] { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test func sixteenBitFollowsTheSameFormula() throws {
        var rng = SeededRandom(seed: 16)
        let pixels = (0..<5000).map { _ in
            [rng.int(0...65535), rng.int(0...65535), rng.int(0...65535), rng.int(0...65535)]
        }
        let pre = try Premultiply().applied(to: image16(5000, 1, pixels))[0]
        for (p, q) in zip(pixels, quads(pre)) {
            for k in 0..<3 { #expect(q[k] == roundHalfUp(Double(p[k] * p[3]) / 65535)) }
        }
        let un = try Unpremultiply().applied(to: image16(5000, 1, pixels, alpha: .premultiplied))[0]
        for (p, q) in zip(pixels, quads(un)) {
            let a = p[3]
            for k in 0..<3 {
                #expect(q[k] == (a == 0 ? 0 : min(65535, roundHalfUp(Double(p[k]) * 65535 / Double(a)))))
            }
        }
    }

    @Test func planRejectsTheWrongAlphaState() throws {
        let straight = Signature(width: 4, height: 4, depth: 8, alpha: .straight)
        let pma = Signature(width: 4, height: 4, depth: 8, alpha: .premultiplied)
        #expect(throws: StageError("the image is already premultiplied here")) { try Premultiply().planned(pma) }
        #expect(throws: StageError("the image is already straight (not premultiplied) here")) {
            try Unpremultiply().planned(straight)
        }
        #expect(try Premultiply().planned(straight)[0].alpha == .premultiplied)
    }

    @Test func mulDivRoundingHelperIsExactForEveryPair() {
        for v in 0...255 {
            for a in 0...255 {
                #expect(Rounding.mulDiv(v, a, max: 255) == roundHalfUp(Double(v * a) / 255))
            }
        }
        for v in stride(from: 0, through: 65535, by: 257) {
            #expect(Int(Rounding.to8(UInt16(v))) == v / 257)
        }
        for v in 0...65535 where v % 97 == 0 {
            #expect(Int(Rounding.to8(UInt16(v))) == roundHalfUp(Double(v) * 255 / 65535))
        }
    }
}
