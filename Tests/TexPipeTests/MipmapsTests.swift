import Foundation
import Testing
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

@Suite("mipmaps")
struct MipmapsTests {
    /// The formula of docs/stages.md evaluated independently in Double: weights over straight source pixels,
    /// premultiplied average, optionally in linear light, then unpremultiplied and rounded.
    static func expected(_ px: [[Int]], _ weights: [Double], max: Int, srgb: Bool) -> [Int] {
        func lin(_ c: Double) -> Double { c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
        func enc(_ c: Double) -> Double { c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1 / 2.4) - 0.055 }
        let m = Double(max)
        var p = [0.0, 0.0, 0.0]
        var a = 0.0
        for (q, w) in zip(px, weights) where w > 0 {
            let alpha = Double(q[3]) / m
            a += w * alpha
            for k in 0..<3 {
                let c = Double(q[k]) / m
                p[k] += w * alpha * (srgb ? lin(c) : c)
            }
        }
        guard roundHalfUp(a * m) > 0 else { return [0, 0, 0, 0] }
        return p.map { roundHalfUp((srgb ? enc($0 / a) : $0 / a) * m) } + [roundHalfUp(a * m)]
    }

    static func near(_ a: [Int], _ b: [Int], _ tolerance: Int = 1) -> Bool {
        zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
    }

    static func level(_ img: Image, _ n: Int, space: ColorSpace) throws -> Image {
        var m = Mipmaps()
        m.colorSpace = space
        return try m.applied(to: img)[n]
    }

    static let semi: [[Int]] = [
        [200, 10, 0, 255], [0, 0, 0, 0], [100, 250, 30, 128], [0, 50, 255, 255],
        [255, 255, 255, 3], [90, 90, 90, 200], [30, 60, 120, 64], [7, 0, 77, 255],
        [128, 128, 128, 128], [250, 1, 100, 17],
    ]

    @Test("box 2×2 and 3×3 to 1×1, both color spaces", arguments: [ColorSpace.srgb, .linear])
    func boxSquares(space: ColorSpace) throws {
        let two = Array(Self.semi[0..<4])
        let out2 = try Self.level(image8(2, 2, two), 1, space: space)
        #expect(out2.width == 1 && out2.height == 1)
        let e2 = Self.expected(two, Array(repeating: 0.25, count: 4), max: 255, srgb: space == .srgb)
        #expect(Self.near(out2.pixel(0, 0), e2), "\(out2.pixel(0, 0)) vs \(e2)")

        let nine = Array(Self.semi[0..<9])
        let out3 = try Self.level(image8(3, 3, nine), 1, space: space)
        let e3 = Self.expected(nine, Array(repeating: 1.0 / 9, count: 9), max: 255, srgb: space == .srgb)
        #expect(out3.width == 1 && Self.near(out3.pixel(0, 0), e3), "\(out3.pixel(0, 0)) vs \(e3)")
    }

    @Test("box 5×2 → 2×1 weighs 0.4, 0.4, 0.2 (odd width: no dropped column)", arguments: [ColorSpace.srgb, .linear])
    func boxOddWidth(space: ColorSpace) throws {
        let px = Array(Self.semi[0..<10])  // rows of 5
        let out = try Self.level(image8(5, 2, px), 1, space: space)
        #expect(out.width == 2 && out.height == 1)
        let wx: [[Double]] = [[0.4, 0.4, 0.2, 0, 0], [0, 0, 0.2, 0.4, 0.4]]
        for x in 0..<2 {
            let weights = (0..<10).map { wx[x][$0 % 5] * 0.5 }
            let e = Self.expected(px, weights, max: 255, srgb: space == .srgb)
            #expect(Self.near(out.pixel(x, 0), e), "x \(x): \(out.pixel(x, 0)) vs \(e)")
        }
    }

    @Test("box 1×7 → 1×3 covers 7/3 texels each", arguments: [ColorSpace.srgb, .linear])
    func boxColumn(space: ColorSpace) throws {
        let px = Array(Self.semi[0..<7])
        let out = try Self.level(image8(1, 7, px), 1, space: space)
        #expect(out.width == 1 && out.height == 3)
        let w: [[Double]] = [[3, 3, 1, 0, 0, 0, 0], [0, 0, 2, 3, 2, 0, 0], [0, 0, 0, 0, 1, 3, 3]].map {
            $0.map { $0 / 7 }
        }
        for y in 0..<3 {
            let e = Self.expected(px, w[y], max: 255, srgb: space == .srgb)
            #expect(Self.near(out.pixel(0, y), e), "y \(y): \(out.pixel(0, y)) vs \(e)")
        }
    }

    @Test func sixteenBitBoxIsExactToTheFormula() throws {
        let px = Self.semi[0..<4].map { $0.map { $0 * 257 + 100 } }.map { $0.map { min($0, 65535) } }
        let out = try Self.level(image16(2, 2, px), 1, space: .srgb)
        #expect(out.depth == 16)
        let e = Self.expected(px, Array(repeating: 0.25, count: 4), max: 65535, srgb: true)
        #expect(Self.near(out.pixel(0, 0), e, 2), "\(out.pixel(0, 0)) vs \(e)")
    }

    @Test func chainSizes() {
        var m = Mipmaps()
        #expect(m.sizes(5, 3).map { [$0.width, $0.height] } == [[5, 3], [2, 1], [1, 1]])
        #expect(m.sizes(1, 7).map { [$0.width, $0.height] } == [[1, 7], [1, 3], [1, 1]])
        #expect(m.sizes(1, 1).count == 1)
        m.minSize = 4
        #expect(m.sizes(16, 8).map(\.width) == [16, 8, 4])
        m.minSize = 1
        m.levels = 2
        #expect(m.sizes(64, 64).map(\.width) == [64, 32])
    }

    /// An opaque white disk on a transparent background of `bg`.
    static func disk(_ w: Int, _ h: Int, bg: [Int]) -> Image {
        image8(
            w, h,
            (0..<(w * h)).map { i in
                let (x, y) = (Double(i % w) + 0.5, Double(i / w) + 0.5)
                let inside =
                    (x - Double(w) / 2) * (x - Double(w) / 2) + (y - Double(h) / 2) * (y - Double(h) / 2) < Double(
                        w * w) / 9
                return inside ? [255, 255, 255, 255] : bg + [0]
            })
    }

    @Test(
        "no dark fringe: every level stays white wherever alpha > 0",
        arguments: ResampleFilter.allCases, [[0, 0, 0], [0, 128, 0]])
    func fringe(filter: ResampleFilter, bg: [Int]) throws {
        for (w, h) in [(32, 32), (37, 23)] {
            var m = Mipmaps()
            m.filter = filter
            let levels = try m.applied(to: Self.disk(w, h, bg: bg))
            #expect(levels.count == m.sizes(w, h).count)
            for level in levels {
                for p in quads(level) where p[3] > 0 {
                    #expect(p[0] >= 254 && p[1] >= 254 && p[2] >= 254, "\(filter) \(level.width)×\(level.height): \(p)")
                }
            }
            // And returned to straight alpha, as it came in.
            #expect(levels.allSatisfy { $0.alpha == .straight })
        }
    }

    @Test("a constant image stays constant at every level", arguments: ResampleFilter.allCases)
    func constant(filter: ResampleFilter) throws {
        var m = Mipmaps()
        m.filter = filter
        for level in try m.applied(to: image8(19, 12, Array(repeating: [37, 150, 220, 180], count: 19 * 12))) {
            #expect(quads(level).allSatisfy { $0 == [37, 150, 220, 180] }, "\(filter) \(level.width)×\(level.height)")
        }
    }

    @Test("a checkerboard's level 1 is uniform gray in the filter's space", arguments: ResampleFilter.allCases)
    func checkerboard(filter: ResampleFilter) throws {
        let board = image8(
            16, 16, (0..<256).map { i in ((i % 16) + (i / 16)) % 2 == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255] })
        for (space, gray) in [(ColorSpace.srgb, 188), (.linear, 128)] {
            var m = Mipmaps()
            m.filter = filter
            m.colorSpace = space
            m.edge = .wrap
            let level1 = try m.applied(to: board)[1]
            #expect(
                quads(level1).allSatisfy { Self.near($0, [gray, gray, gray, 255]) },
                "\(filter) \(space): \(Set(quads(level1)))")
            // With clamped edges, the interior is still uniform.
            m.edge = .clamp
            let clamped = try m.applied(to: board)[1]
            for y in 2..<6 { for x in 2..<6 { #expect(Self.near(clamped.pixel(x, y), [gray, gray, gray, 255])) } }
        }
    }

    /// Grass-like blades: 2-px opaque strokes with soft sides on transparent, about 20% coverage.
    static func foliage() -> Image {
        let n = 128
        var rng = SeededRandom(seed: 42)
        var alpha = [Double](repeating: 0, count: n * n)
        for _ in 0..<14 {
            let x0 = Double(rng.int(0...n - 1))
            let lean = Double(rng.int(-30...30)) / 100
            for y in 0..<n {
                let cx = x0 + lean * Double(y)
                for x in 0..<n {
                    let d = abs(Double(x) + 0.5 - cx)
                    alpha[y * n + x] = max(alpha[y * n + x], min(1, max(0, 1.5 - d / 1.2)))
                }
            }
        }
        return image8(n, n, alpha.map { [40, 140, 30, roundHalfUp($0 * 255)] })
    }

    /// Fraction of 4×4 sub-texel samples whose bilinearly interpolated alpha is ≥ 0.5 (edges clamped).
    static func bilinearCoverage(_ img: Image) -> Double {
        let (w, h) = (img.width, img.height)
        func a(_ x: Int, _ y: Int) -> Double {
            Double(img.pixel(min(max(x, 0), w - 1), min(max(y, 0), h - 1))[3]) / 255
        }
        var hits = 0
        for y in 0..<h {
            for x in 0..<w {
                for sy in 0..<4 {
                    for sx in 0..<4 {
                        let fx = Double(x) + (Double(sx) + 0.5) / 4 - 0.5
                        let fy = Double(y) + (Double(sy) + 0.5) / 4 - 0.5
                        let (x0, y0) = (Int(fx.rounded(.down)), Int(fy.rounded(.down)))
                        let (tx, ty) = (fx - Double(x0), fy - Double(y0))
                        let v =
                            (a(x0, y0) * (1 - tx) + a(x0 + 1, y0) * tx) * (1 - ty)
                            + (a(x0, y0 + 1) * (1 - tx) + a(x0 + 1, y0 + 1) * tx) * ty
                        if v >= 0.5 { hits += 1 }
                    }
                }
            }
        }
        return Double(hits) / Double(16 * w * h)
    }

    @Test func coverageIsPreservedAndWouldOtherwiseFall() throws {
        let img = Self.foliage()
        var plain = Mipmaps()
        plain.levels = 6
        var kept = plain
        kept.coverage = 0.5
        var context = StageContext()
        let withCoverage = try kept.applied(to: img, context: &context)
        let without = try plain.applied(to: img)
        let sampler = Coverage(reference: 0.5, edge: .clamp)
        let target = sampler.measure(FloatImage(img, colorSpace: .srgb))
        #expect(target > 0.1 && target < 0.5)
        for n in 1..<withCoverage.count {
            // As the sampler sees each written level (alpha straight, so no colour space applies).
            let achieved = sampler.measure(FloatImage(withCoverage[n], colorSpace: .linear))
            #expect(abs(achieved - target) <= 0.02, "level \(n): \(achieved) vs \(target)")
            // Measured again, independently, on the 8-bit level as written.
            #expect(abs(Self.bilinearCoverage(withCoverage[n]) - Self.bilinearCoverage(img)) <= 0.02, "level \(n)")
        }
        // Without it, coverage falls at the small levels.
        let fallen = sampler.measure(FloatImage(without[5], colorSpace: .linear))
        #expect(fallen < target - 0.05, "\(fallen) vs \(target)")
        #expect(context.notes.count == 1 && context.notes[0].hasPrefix("coverage ≥ 0.5: level 0 "))
    }

    @Test func stripLayoutPacksLevelsLeftToRight() throws {
        var m = Mipmaps()
        m.layout = .strip
        let img = image8(8, 4, Array(repeating: [10, 20, 30, 255], count: 32))
        let out = try m.applied(to: img)
        #expect(out.count == 1 && out[0].suffix == "_mips")
        #expect(out[0].width == 8 + 4 + 2 + 1 && out[0].height == 4)
        #expect(out[0].pixel(8, 0) == [10, 20, 30, 255] && out[0].pixel(8, 2) == [0, 0, 0, 0])
        #expect(out[0].pixel(14, 0) == [10, 20, 30, 255])
        let planned = try m.planned(Signature(of: img))
        #expect(planned.count == 1 && planned[0].width == 15)
    }

    @Test func filesLayoutNamesLevelsAndPlansTheSameSizes() throws {
        let img = Self.disk(13, 6, bg: [0, 0, 0])
        let m = Mipmaps()
        let planned = try m.planned(Signature(of: img))
        let out = try m.applied(to: img)
        #expect(planned.map(\.suffix) == ["_mip0", "_mip1", "_mip2", "_mip3"])
        #expect(out.map(\.suffix) == planned.map(\.suffix))
        #expect(out.map(\.width) == planned.map { $0.width! } && out.map(\.height) == planned.map { $0.height! })
        #expect(out[0].pixels == img.pixels, "level 0 is the input, unchanged")
        #expect(out.map { $0.labels["level"]! } == ["0", "1", "2", "3"])
    }

    @Test func premultipliedInStaysPremultipliedOut() throws {
        let img = try Premultiply().applied(to: Self.disk(16, 16, bg: [0, 0, 0]))[0]
        let out = try Mipmaps().applied(to: img)
        #expect(out.allSatisfy { $0.alpha == .premultiplied })
        for level in out { for p in quads(level) { #expect(p[0] <= p[3]) } }
    }

    @Test func mipmapsAfterTrimIsAPlanError() {
        var sig = Signature(width: 10, height: 10, depth: 8, alpha: .straight)
        sig = (try? Trim().planned(sig))![0]
        #expect(throws: StageError.self) { try Mipmaps().planned(sig) }
    }

    @Test func bleedOptionCleansEveryLevel() throws {
        var m = Mipmaps()
        m.bleed = true
        for level in try m.applied(to: Self.disk(16, 16, bg: [0, 128, 0])) {
            #expect(quads(level).allSatisfy { $0[0] >= 254 && $0[1] >= 254 && $0[2] >= 254 })
        }
    }
}

/// The streaming resampler (a ring of horizontally filtered rows) against the plain two passes it
/// replaced — a horizontal pass over the whole image, then a vertical one — written here from the
/// same taps: the Floats must be identical, not just close. And level 0 read a row at a time
/// must give the Floats of the whole-image conversion.
@Suite("Streaming resampler")
struct StreamingResamplerTests {
    static func twoPass(_ src: FloatImage, _ w: Int, _ h: Int, _ filter: ResampleFilter, _ edge: EdgeMode)
        -> [SIMD4<Float>]
    {
        let tx = Taps(from: src.width, to: w, filter: filter, edge: edge)
        let ty = Taps(from: src.height, to: h, filter: filter, edge: edge)
        var mid = [SIMD4<Float>](repeating: .zero, count: w * src.height)
        for y in 0..<src.height {
            for x in 0..<w {
                var acc = SIMD4<Float>()
                for t in tx.start[x]..<tx.start[x + 1] { acc += tx.weight[t] * src.pixels[y * src.width + tx.index[t]] }
                mid[y * w + x] = acc
            }
        }
        var out = [SIMD4<Float>](repeating: .zero, count: w * h)
        for y in 0..<h {
            for t in ty.start[y]..<ty.start[y + 1] {
                for x in 0..<w { out[y * w + x] += ty.weight[t] * mid[ty.index[t] * w + x] }
            }
        }
        return out
    }

    @Test(
        "identical to two whole passes, every filter and edge, down and up",
        arguments: ResampleFilter.allCases, [EdgeMode.clamp, .wrap])
    func matchesTwoPasses(filter: ResampleFilter, edge: EdgeMode) {
        var seed: UInt64 = 11
        for (sw, sh, w, h) in [(37, 29, 18, 14), (37, 29, 9, 7), (5, 40, 2, 20), (16, 16, 1, 1), (7, 9, 20, 23)] {
            seed += 1
            for (alpha, space) in [(AlphaState.straight, ColorSpace.srgb), (.premultiplied, .linear)] {
                var image = randomImage(sw, sh, depth: 8, seed: seed)
                image.alpha = alpha
                let whole = FloatImage(image, colorSpace: space)
                let rows = ConvertedRows(image: image, colorSpace: space)
                let expected = Self.twoPass(whole, w, h, filter, edge)
                #expect(whole.resampled(width: w, height: h, filter: filter, edge: edge).pixels == expected)
                #expect(rows.streamResampled(width: w, height: h, filter: filter, edge: edge).pixels == expected)
            }
        }
    }

    /// The streamed chain (no Float level ever whole) against the chain made of whole Float
    /// images: level n from level n − 1 (box) or from level 0 (the others), then quantised.
    @Test("streamed mip chain = whole-image chain, byte for byte", arguments: ResampleFilter.allCases)
    func streamedChainMatchesWholeImages(filter: ResampleFilter) throws {
        for (n, (w, h, edge, space)) in [
            (45, 31, EdgeMode.clamp, ColorSpace.srgb), (64, 8, .wrap, .linear), (7, 50, .clamp, .linear),
        ].enumerated() {
            for depth in [8, 16] {
                let image = randomImage(w, h, depth: depth, seed: UInt64(90 + n))
                var stage = Mipmaps()
                (stage.filter, stage.edge, stage.colorSpace) = (filter, edge, space)
                var context = StageContext()
                let levels = try stage.applied(to: image)
                // Level 0 converted per level (as for textures over the engine's whole-image limit).
                context.wholeFloatPixels = 0
                let perLevel = try stage.applied(to: image, context: &context)
                #expect(perLevel.map(\.pixels) == levels.map(\.pixels))
                let base = FloatImage(image, colorSpace: space)
                var previous = base
                for (k, size) in stage.sizes(w, h).enumerated().dropFirst() {
                    let source = filter == .box ? previous : base
                    previous = source.resampled(width: size.width, height: size.height, filter: filter, edge: edge)
                    let expected = previous.image(depth: depth, alpha: .straight, colorSpace: space)
                    #expect(levels[k].pixels == expected.pixels, "\(w)x\(h) depth \(depth) level \(k)")
                }
            }
        }
    }
}
