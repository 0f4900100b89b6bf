import Testing
import TexPipeTestSupport

@testable import TexPipePixels
@testable import TexPipeStages

/// Unpremultiply: c = min(max, round(c' · max / a)), exhaustively for 8 bits; the round trip.
@Suite("unpremultiply")
struct UnpremultiplyTests {
    /// All 65,536 (c', a) pairs at 8 bits against c = min(255, round(c' · 255 / a)); a = 0 → 0.
    @Test func unpremultiplyIsExactForEvery8BitPair() throws {
        let pixels = (0..<256).flatMap { a in (0..<256).map { c in [c, c, c, a] } }
        let out = try Unpremultiply().applied(to: image8(256, 256, pixels, alpha: .premultiplied))[0]
        #expect(out.alpha == .straight)
        var mismatches = 0
        for (i, p) in quads(out).enumerated() {
            let (c, a) = (i % 256, i / 256)
            let expected =
                a == 0
                ? [0, 0, 0, 0] : Array(repeating: min(255, roundHalfUp(Double(c) * 255 / Double(a))), count: 3) + [a]
            if p != expected { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test func roundTripKeepsColorWhereAlphaAllows() throws {
        // Premultiply then unpremultiply is exact for a = 255 and within 255/(2a) otherwise.
        let pixels = (1..<256).flatMap { a in stride(from: 0, to: 256, by: 5).map { c in [c, 255 - c, c / 2, a] } }
        let img = image8(pixels.count, 1, pixels)
        let back = try Unpremultiply().applied(to: Premultiply().applied(to: img)[0])[0]
        for (p, q) in zip(quads(img), quads(back)) {
            let bound = Int((255.0 / (2 * Double(p[3]))).rounded(.up))
            for k in 0..<3 { #expect(abs(p[k] - q[k]) <= bound) }
            #expect(p[3] == q[3])
        }
    }
}
