import Foundation
import Testing
import TexPipeFormats
import TexPipePixels
import TexPipeTestSupport

@testable import TexPipeBlocks
@testable import TexPipeCodecs
@testable import TexPipeTextures

/// texpipe's ETC1S files against the Basis Universal transcoder (opengl-basisu: basisu's own
/// C++ transcoder, what web engines run): every image of every file it writes transcodes, and to
/// exactly the texels texpipe's own BasisLZ reader finds, so the bitstream is the one the
/// specification defines; and the texels are near the image encoded.
@Suite("ETC1S")
struct ETC1STests {
    static var available: Bool { Python.has("opengl_basisu") }
    static let script = Python.script("basisu_reference.py")

    static func image(_ w: Int, _ h: Int, seed: UInt64, alpha: Bool) -> Image {
        Image(width: w, height: h, pixels: .rgba8(BlockReference.picture(w, h, seed: seed, alpha: alpha)))
    }

    /// A mip chain of unrelated pictures of the right sizes (the encoder does not care).
    static func chain(_ w: Int, _ h: Int, alpha: Bool) -> [Image] {
        var out: [Image] = []
        var (lw, lh) = (w, h)
        var seed: UInt64 = 1
        while true {
            out.append(image(lw, lh, seed: seed, alpha: alpha))
            if lw == 1 && lh == 1 { break }
            (lw, lh, seed) = (max(1, lw / 2), max(1, lh / 2), seed + 1)
        }
        return out
    }

    static func settings(_ quality: TextureSettings.Quality = .medium, qlevel: Int? = nil) -> TextureSettings {
        var s = TextureSettings.standard
        s.format = .etc1s
        s.quality = quality
        s.qlevel = qlevel
        return s
    }

    /// How far texel `texel` of two RGBA8 images is apart: its largest colour channel difference.
    static func off(_ a: [UInt8], _ b: [UInt8], texel: Int) -> Int {
        (0..<3).map { abs(Int(a[4 * texel + $0]) - Int(b[4 * texel + $0])) }.max()!
    }

    /// Every image the transcoder gives for `file` to `target`, and its header line.
    static func transcoded(_ file: [UInt8], _ target: String, in t: TempDir) throws -> (String, [UInt8]) {
        t.write("f.ktx2", file)
        _ = try Python.run([script, "transcode-all", t.path + "/f.ktx2", target, t.path + "/out"])
        let all = Array(try Data(contentsOf: URL(fileURLWithPath: t.path + "/out")))
        let line = try #require(all.firstIndex(of: 10))
        return (String(decoding: all[..<line], as: UTF8.self), Array(all[(line + 1)...]))
    }

    /// A 60 × 44 chain (odd block counts, levels down to 1 × 1), with and without alpha: the
    /// transcoder's RGBA of every level equals texpipe's reader's, and level 0 is near the image.
    @Test(Reference.needs(ETC1STests.available, "python3 opengl_basisu"), arguments: [false, true])
    func everyLevelTranscodesToWhatTexpipeReads(alpha: Bool) throws {
        let t = TempDir()
        let levels = Self.chain(60, 44, alpha: alpha)
        let file = try TextureEncoder.encode(levels, Self.settings(), container: .ktx2)
        let (header, texels) = try Self.transcoded(file, "rgba8", in: t)
        // basisu's codec 0 is ETC1S; its alpha flag follows the file's alpha slices.
        #expect(header == "0 \(levels.count) 1 1 \(alpha ? 1 : 0)")
        let read = try TextureFile(file)
        #expect(read.format == .etc1s && read.levels.count == levels.count && read.basisLZ?.hasAlpha == alpha)
        var at = 0
        for (n, level) in levels.enumerated() {
            let ours = try read.level(n)
            guard case .rgba8(let mine) = ours.pixels else { throw CodecError("not 8-bit") }
            let theirs = Array(texels[at..<at + mine.count])
            at += mine.count
            #expect(mine == theirs, "level \(n) (\(level.width)×\(level.height))")
            if n == 0, case .rgba8(let source) = level.pixels {
                let rgb = psnr(source, mine, channels: [0, 1, 2])
                // The picture is a third noise, which ETC1S's one colour per block cannot follow.
                #expect(rgb > 26, "level 0 RGB \(rgb) dB")
                if alpha { #expect(psnr(source, mine, channels: [3]) > 26) }
            }
        }
        #expect(at == texels.count)
    }

    /// Arrays and cube maps share one pair of codebooks: each layer and face transcodes to what
    /// texpipe reads.
    @Test(Reference.needs(ETC1STests.available, "python3 opengl_basisu"))
    func layersAndFacesShareTheCodebooks() throws {
        let t = TempDir()
        let layers = (0..<3).map { k in [Self.image(20, 12, seed: UInt64(k + 7), alpha: false)] }
        let array = try TextureEncoder.encode(layers: layers, Self.settings(), container: .ktx2).bytes
        let (header, texels) = try Self.transcoded(array, "rgba8", in: t)
        #expect(header == "0 1 3 1 0")
        #expect(try Self.levelZero(array, layers: 3) == texels)
        let faces = (0..<6).map { k in [Self.image(16, 16, seed: UInt64(k + 20), alpha: false)] }
        let cube = try TextureEncoder.encode(layers: faces, array: false, cube: true, Self.settings(), container: .ktx2)
            .bytes
        let (cubeHeader, cubeTexels) = try Self.transcoded(cube, "rgba8", in: t)
        #expect(cubeHeader == "0 1 1 6 0")
        #expect(try Self.levelZero(cube, layers: 6) == cubeTexels)
    }

    /// Level 0 of every layer (or face) of `file` as texpipe's reader decodes it, one after another.
    static func levelZero(_ file: [UInt8], layers: Int) throws -> [UInt8] {
        let read = try TextureFile(file)
        var out: [UInt8] = []
        for k in 0..<layers {
            guard case .rgba8(let p) = try read.level(0, layer: k).pixels else { throw CodecError("not 8-bit") }
            out += p
        }
        return out
    }

    /// `qlevel` sizes the codebooks: at most 32 entries at 1, more and a higher PSNR at 128 and
    /// more again at 255; every quality level writes a file the transcoder reads.
    @Test(Reference.needs(ETC1STests.available, "python3 opengl_basisu"))
    func qlevelSizesTheCodebooks() throws {
        let t = TempDir()
        let source = BlockReference.picture(256, 192, seed: 3)
        let img = Image(width: 256, height: 192, pixels: .rgba8(source))
        var results: [(endpoints: Int, selectors: Int, psnr: Double)] = []
        for (q, quality) in [(1, TextureSettings.Quality.fast), (128, .medium), (255, .thorough)] {
            let file = try TextureEncoder.encode([img], Self.settings(quality, qlevel: q), container: .ktx2)
            let read = try TextureFile(file)
            let b = try #require(read.basisLZ)
            let (_, texels) = try Self.transcoded(file, "rgba8", in: t)
            results.append((b.endpointCount, b.selectorCount, psnr(source, texels, channels: [0, 1, 2])))
        }
        // qlevel 1 asks for 32 of each; equal and unused entries are dropped.
        #expect((24...32).contains(results[0].endpoints) && (24...32).contains(results[0].selectors), "\(results)")
        #expect(results[1].endpoints > results[0].endpoints && results[2].endpoints > results[1].endpoints)
        #expect(results[0].psnr < results[1].psnr && results[1].psnr < results[2].psnr, "\(results)")
    }

    /// The selector codebook is ordered so that its XOR deltas code small: read from the file's
    /// BasisLZ global data as the KTX 2.0 specification lays it out (selectorsByteLength against
    /// four bytes an entry, raw); the transcoder reads the file.
    @Test(Reference.needs(ETC1STests.available, "python3 opengl_basisu"))
    func theSelectorCodebookCodesSmallerThanRaw() throws {
        let t = TempDir()
        let source = BlockReference.picture(256, 192, seed: 3)
        let img = Image(width: 256, height: 192, pixels: .rgba8(source))
        for q in [64, 255] {
            let file = try TextureEncoder.encode([img], Self.settings(.medium, qlevel: q), container: .ktx2)
            func u32(_ o: Int) -> Int { (0..<4).reduce(0) { $0 | Int(file[o + $1]) << (8 * $1) } }
            let sgd = u32(64)  // sgdByteOffset (its high half is 0 here)
            let selectorCount = Int(file[sgd + 2]) | Int(file[sgd + 3]) << 8
            let selectorBytes = u32(sgd + 8)
            #expect(selectorCount > 32)
            #expect(
                Double(selectorBytes) < 3.0 * Double(selectorCount),
                "qlevel \(q): \(selectorCount) selectors in \(selectorBytes) bytes (raw: \(4 * selectorCount + 1))")
            let (_, texels) = try Self.transcoded(file, "rgba8", in: t)
            #expect(psnr(source, texels, channels: [0, 1, 2]) > 25)
        }
    }

    /// A block's error under a palette and a selector word, folded per palette (`Costs`) and per
    /// selection (`Moments`) as the refinement and the rate pass use them, and direct (`error`):
    /// each the squared error written out here from the ETC1S decoding (5-bit base expanded, plus
    /// the table's modifier, clamped), exactly, over random blocks, endpoints (every table, bases
    /// at both ends) and words.
    @Test func foldedErrorsAreTheDecodedError() {
        var r = SeededRandom(seed: 9)
        for _ in 0..<400 {
            let bytes = (0..<48).map { _ in UInt8(r.int(0...255)) }
            let e = ETC1S.Endpoint(
                r: UInt8(r.int(0...31)), g: UInt8([0, 31, r.int(0...31)][r.int(0...2)]), b: UInt8(r.int(0...31)),
                inten: UInt8(r.int(0...7)))
            let words = (0..<8).map { _ in UInt32(truncatingIfNeeded: r.int(0...Int(UInt32.max))) }
            bytes.withUnsafeBufferPointer { raw in
                let x = ETC1S.Texels(raw.baseAddress!)
                let palette = ETC1S.Palette(e)
                let costs = ETC1S.Costs(x, palette)
                for word in words {
                    var expected = 0
                    for t in 0..<16 {
                        let s = Int(word >> (2 * UInt32(t)) & 3)
                        let m = Int(
                            [
                                [-8, -2, 2, 8], [-17, -5, 5, 17], [-29, -9, 9, 29], [-42, -13, 13, 42],
                                [-60, -18, 18, 60], [-80, -24, 24, 80], [-106, -33, 33, 106], [-183, -47, 47, 183],
                            ][
                                Int(e.inten)][s])
                        for (c, base) in [e.r, e.g, e.b].enumerated() {
                            let v = min(255, max(0, (Int(base) << 3 | Int(base) >> 2) + m))
                            let d = Int(bytes[16 * c + t]) - v
                            expected += d * d
                        }
                    }
                    let selection = ETC1S.Selection(word)
                    #expect(costs.error(selection) == Float(expected))
                    #expect(ETC1S.error(x, palette, selection) == Float(expected))
                    #expect(ETC1S.Moments(x, selection).error(palette) == Float(expected))
                }
            }
        }
    }

    /// Dropping unused entries keeps every block's entry: [A, B, C, D] named by [3, 1, 3] is
    /// [B, D] named by [1, 0, 1]; a codebook every block uses is left as it is.
    @Test func unusedEntriesAreDroppedAndEveryBlockKeepsItsEntry() {
        var codebook: [UInt32] = [0xA, 0xB, 0xC, 0xD]
        var index: [UInt16] = [3, 1, 3]
        ETC1S.dropUnused(&codebook, &index)
        #expect(codebook == [0xB, 0xD] && index == [1, 0, 1])
        ETC1S.dropUnused(&codebook, &index)
        #expect(codebook == [0xB, 0xD] && index == [1, 0, 1])
    }

    /// The lane conversions the ETC1S passes use, for every value they meet: each byte 0…255 and
    /// each small integer up to 2²³ − 1 (sampled) gives the float the standard library's
    /// conversion gives, in every lane.
    @Test func laneConversionsAreExact() {
        for start in stride(from: 0, to: 256, by: 16) {
            let bytes = SIMD16<UInt8>((0..<16).map { UInt8(start + $0) })
            let expected = SIMD16<Float>((0..<16).map { Float(start + $0) })
            #expect(SIMD16<Float>(bytes: bytes) == expected)
        }
        let ints: [Int32] = [
            0, 1, 2, 3, 255, 256, 4095, 65_535, 1 << 20, 3_000_000, 8_388_606, 8_388_607, 7, 9, 11, 13,
        ]
        #expect(SIMD16<Float>(small: SIMD16<Int32>(ints)) == SIMD16<Float>(ints.map { Float($0) }))
    }

    /// Equal entries are merged by hand: [A, B, A, C, B] named by [0, 1, 2, 3, 4, 2] becomes
    /// [A, B, C] named by [0, 1, 0, 2, 1, 0] once the emptied duplicates are dropped; a codebook
    /// with no equal entries is left as it was.
    @Test func equalEntriesAreMergedAndEveryBlockKeepsItsValue() {
        var codebook: [UInt32] = [0xA, 0xB, 0xA, 0xC, 0xB]
        var index: [UInt16] = [0, 1, 2, 3, 4, 2]
        ETC1S.mergeDuplicates(codebook, &index)
        #expect(index == [0, 1, 0, 3, 1, 0])
        ETC1S.dropUnused(&codebook, &index)
        #expect(codebook == [0xA, 0xB, 0xC] && index == [0, 1, 0, 2, 1, 0])
        ETC1S.mergeDuplicates(codebook, &index)
        #expect(index == [0, 1, 0, 2, 1, 0])
        let e = ETC1S.Endpoint(r: 3, g: 4, b: 5, inten: 2)
        var endpointIndex: [UInt16] = [1, 0, 2]
        ETC1S.mergeDuplicates([e, ETC1S.Endpoint(r: 3, g: 4, b: 5, inten: 3), e], &endpointIndex)
        #expect(endpointIndex == [1, 0, 0])
    }

    /// The refinement's neighbour table, against a search written here: with a window as wide as
    /// the codebook, each cluster's list is the `size` others of least squared distance between
    /// centroids (the lower index on ties), by sorting every pair; with a narrower window, each
    /// listed cluster lies within the window in the tree's order, and the list is the nearest of
    /// those. The tree's order holds every cluster once, and a split's halves side by side (two
    /// far-apart groups of clusters each stay contiguous).
    @Test func neighbourTableIsTheNearestInItsWindow() {
        var r = SeededRandom(seed: 5)
        // Four far-apart groups of points, shuffled.
        let points = (0..<2000).map { i in
            let g = Float((i * 7) % 4) * 1000
            return SIMD16<Float>((0..<16).map { _ in g + Float(r.int(0...200)) })
        }
        let tree = TreeQuantizer.clusters(points, count: 64, iterations: 2, rows: SerialRows())
        #expect(tree.count == 64)
        #expect(tree.treeOrder.sorted() == Array(0..<64))
        // Clusters of one group are contiguous in the tree's order.
        let group = tree.treeOrder.map { Int((tree.centroids[$0][0] / 1000).rounded()) }
        #expect(zip(group, group.dropFirst()).filter { $0 != $1 }.count == 3)
        func squared(_ a: SIMD16<Float>, _ b: SIMD16<Float>) -> Float {
            var s: Float = 0
            for i in 0..<16 { s += (a[i] - b[i]) * (a[i] - b[i]) }
            return s
        }
        func nearest(_ c: Int, among candidates: [Int], _ size: Int) -> [Int] {
            let sorted = candidates.filter { $0 != c }.sorted {
                let (da, db) = (
                    squared(tree.centroids[c], tree.centroids[$0]), squared(tree.centroids[c], tree.centroids[$1])
                )
                return da < db || (da == db && $0 < $1)
            }
            return Array(sorted.prefix(size))
        }
        let wide = tree.neighbourTable(8, window: 64, rows: SerialRows())
        for c in 0..<64 { #expect(wide[c] == nearest(c, among: Array(0..<64), 8)) }
        let narrow = tree.neighbourTable(5, window: 6, rows: SerialRows())
        for (p, c) in tree.treeOrder.enumerated() {
            let window = Array(tree.treeOrder[max(0, p - 6)..<min(64, p + 7)])
            #expect(narrow[c] == nearest(c, among: window, 5))
        }
        // Fewer clusters than asked for: every other one.
        let two = TreeQuantizer.clusters(Array(points.prefix(2)), count: 2, iterations: 2, rows: SerialRows())
        #expect(two.neighbourTable(8, window: 64) == [[1], [0]])
    }

    /// Every entry of both codebooks an encode writes is some block's, and no two are equal, for one
    /// slice and for two sharing codebooks: the refinement and the rate pass move blocks away from
    /// entries, which then cost bytes for nothing (without the dropping this fails at qlevel 128),
    /// and clusters often fit the same entry (without the merging it fails at qlevels 128 and 255).
    @Test(arguments: [32, 128, 255])
    func everyCodebookEntryIsUsed(_ qlevel: Int) {
        var r = SeededRandom(seed: UInt64(qlevel))
        var rgba = [UInt8](repeating: 255, count: 128 * 128 * 4)
        for i in 0..<(128 * 128) {
            let (x, y) = (i % 128, i / 128)
            let noise = r.int(0...40)
            rgba[4 * i] = UInt8((x * 2 + noise) % 256)
            rgba[4 * i + 1] = UInt8((y * 2 + noise / 2) % 256)
            rgba[4 * i + 2] = UInt8(((x ^ y) * 2) % 256)
            rgba[4 * i + 3] = UInt8((x * y / 64 + r.int(0...20)) % 256)
        }
        for count in [1, 2] {
            let slices = (0..<count).map { k in ETC1S.slice(rgba, width: 128, height: 128, alpha: k == 1) }
            let e = ETC1S.encode(slices, qlevel: qlevel, quality: .medium)
            // Every index names an entry, and as many distinct ones as there are entries.
            let endpoints = Set(e.endpointIndices.joined())
            let selectors = Set(e.selectorIndices.joined())
            #expect(endpoints.allSatisfy { Int($0) < e.endpoints.count } && endpoints.count == e.endpoints.count)
            #expect(selectors.allSatisfy { Int($0) < e.selectors.count } && selectors.count == e.selectors.count)
            // And no two entries are equal (clusters often fit the same endpoint or selectors).
            #expect(Set(e.endpoints).count == e.endpoints.count && Set(e.selectors).count == e.selectors.count)
        }
    }

    /// The selector order is a renumbering: every block keeps its selector word, the codebook keeps
    /// its entries, and neighbours in the new order differ in fewer bytes than in the old.
    @Test func selectorReorderKeepsEveryBlocksSelector() {
        var state: UInt64 = 11
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        // Entries near a few prototypes (one texel changed), shuffled: raw order has large deltas.
        let prototypes = (0..<8).map { _ in
            UInt32(truncatingIfNeeded: next()) ^ UInt32(truncatingIfNeeded: next() << 16)
        }
        var codebook = (0..<600).map { k in prototypes[k % 8] ^ (1 << UInt32(next() % 32)) }
        codebook = Array(Set(codebook)).sorted { ($0 &* 2_654_435_761) < ($1 &* 2_654_435_761) }
        var index = (0..<5000).map { _ in UInt16(next() % UInt64(codebook.count)) }
        let (before, words) = (codebook, index.map { codebook[Int($0)] })
        func nonZeroBytes(_ c: [UInt32]) -> Int {
            zip(c, c.dropFirst()).reduce(0) { sum, pair in
                let x = pair.0 ^ pair.1
                return sum + (0..<4).filter { (x >> (8 * UInt32($0))) & 0xFF != 0 }.count
            }
        }
        ETC1S.reorderSelectors(&codebook, &index)
        #expect(codebook.sorted() == before.sorted())
        #expect(index.map { codebook[Int($0)] } == words)
        #expect(
            nonZeroBytes(codebook) * 2 < nonZeroBytes(before), "\(nonZeroBytes(codebook)) vs \(nonZeroBytes(before))")
    }

    /// An image of many equal blocks (a colorization mask: black colour, alpha in bands) keeps its
    /// colour exact at every qlevel and effort: the rate pass once traded its one dominant selector
    /// for a history entry in every block once the codebooks passed 128 entries (`medium`, qlevel
    /// 58 and up: 16 dB lost on such a corpus texture). Decoded by the transcoder.
    @Test(Reference.needs(ETC1STests.available, "python3 opengl_basisu"))
    func aMaskOfEqualBlocksStaysExactAtEveryRate() throws {
        let t = TempDir()
        let (w, h) = (256, 256)
        var px = [UInt8](repeating: 0, count: w * h * 4)
        var state: UInt64 = 7
        for y in 0..<h {
            for x in 0..<w {
                // Alpha in soft bands with noise: many distinct alpha blocks, so the codebooks fill.
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let band = (x / 8 + y / 16) % 5 == 0 ? 255 : 0
                px[4 * (y * w + x) + 3] = UInt8(clamping: band == 255 ? 200 + Int(state >> 58) : Int(state >> 60))
            }
        }
        let img = Image(width: w, height: h, pixels: .rgba8(px))
        for (quality, levels) in [
            (TextureSettings.Quality.medium, [32, 64, 128, 255]), (.fast, [128]), (.thorough, [128]),
        ] {
            for q in levels {
                let file = try TextureEncoder.encode([img], Self.settings(quality, qlevel: q), container: .ktx2)
                let (_, texels) = try Self.transcoded(file, "rgba8", in: t)
                var worst = 0
                for i in stride(from: 0, to: px.count, by: 4) {
                    for c in 0..<3 { worst = max(worst, Int(texels[i + c])) }
                }
                #expect(worst <= 1, "\(quality) qlevel \(q): black decodes to \(worst)")
            }
        }
    }

    /// A sprite: one colour on black, both in every block. One endpoint holds both exactly — base
    /// (4, 2, 1) in 5 bits (33, 16, 8) with table 4 (−60, −18, +18, +60): +18 gives (51, 34, 26) and
    /// −60 goes below 0 in every channel, which decodes to black. A least-squares base over every
    /// texel misses it (the black texels pull the base down: the colour came out 11 off); leaving
    /// out the texels whose entry clamps finds it. Decoded by the transcoder, at codebooks of one
    /// entry a block or more (the texels are random, so smaller selector codebooks cannot hold
    /// them): black exact, the colour within 3 (the rate pass may give a block a neighbour's
    /// endpoint that decodes it as (53, 37, 29)).
    @Test(Reference.needs(ETC1STests.available, "python3 opengl_basisu"))
    func aSpriteOnBlackKeepsBlackAndItsColour() throws {
        let t = TempDir()
        let (w, h) = (64, 64)
        var px = [UInt8](repeating: 0, count: w * h * 4)
        var state: UInt64 = 11
        for i in 0..<(w * h) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            if state >> 62 != 0 { (px[4 * i], px[4 * i + 1], px[4 * i + 2]) = (51, 34, 26) }
            px[4 * i + 3] = 255
        }
        let img = Image(width: w, height: h, pixels: .rgba8(px))
        for q in [128, 255] {
            let file = try TextureEncoder.encode([img], Self.settings(.medium, qlevel: q), container: .ktx2)
            let (_, texels) = try Self.transcoded(file, "rgba8", in: t)
            var (worst, exact, black) = (0, 0, 0)
            for i in stride(from: 0, to: px.count, by: 4) {
                let off = Self.off(texels, px, texel: i / 4)
                worst = max(worst, off)
                if off == 0 { exact += 1 }
                if px[i] == 0 && off != 0 { black += 1 }
            }
            #expect(worst <= 3 && black == 0, "qlevel \(q): a texel off by \(worst), \(black) black texels not black")
            #expect(exact * 10 >= w * h * 9, "qlevel \(q): \(exact) of \(w * h) texels exact")
        }
    }

    /// The selector clustering weighs each block by its palette's contrast: 64 blocks of black
    /// against white in eight patterns among 960 of grey noise (whose selectors are random, and
    /// which unweighted outnumber them in the clustering's squared error), at qlevel 1 (32
    /// selector entries). Each edge pattern keeps an entry: decoded by the transcoder, every edge
    /// texel is exact (base 16 in 5 bits with table 7, 132 ± 183, holds both) — with the
    /// clustering unweighted, some edge blocks took a noise pattern and were up to 195 off.
    @Test(Reference.needs(ETC1STests.available, "python3 opengl_basisu"))
    func edgesKeepTheirSelectorsAmongNoise() throws {
        let t = TempDir()
        let (w, h) = (128, 128)
        var px = [UInt8](repeating: 255, count: w * h * 4)
        var edge = [Bool](repeating: false, count: w * h)
        var r = SeededRandom(seed: 3)
        for y in 0..<h {
            for x in 0..<w {
                let block = y / 4 * (w / 4) + x / 4
                let (u, v) = (x % 4, y % 4)
                let value: Int
                if block % 16 == 0 {
                    // Eight patterns: vertical and horizontal splits, two diagonals.
                    let white =
                        switch block / 16 % 8 {
                        case 0: u >= 1
                        case 1: u >= 2
                        case 2: u >= 3
                        case 3: v >= 1
                        case 4: v >= 2
                        case 5: v >= 3
                        case 6: u > v
                        default: u + v >= 3
                        }
                    value = white ? 255 : 0
                    edge[y * w + x] = true
                } else {
                    value = r.int(122...137)
                }
                for c in 0..<3 { px[4 * (y * w + x) + c] = UInt8(value) }
            }
        }
        let img = Image(width: w, height: h, pixels: .rgba8(px))
        let file = try TextureEncoder.encode([img], Self.settings(.medium, qlevel: 1), container: .ktx2)
        let (_, texels) = try Self.transcoded(file, "rgba8", in: t)
        var (worst, wrong) = (0, 0)
        for i in 0..<(w * h) where edge[i] {
            let off = Self.off(texels, px, texel: i)
            worst = max(worst, off)
            if off != 0 { wrong += 1 }
        }
        #expect(worst == 0, "\(wrong) edge texels wrong, one by \(worst)")
    }

    /// The same image and settings write the same bytes.
    @Test func bytesAreDeterministic() throws {
        let levels = Self.chain(40, 28, alpha: true)
        let a = try TextureEncoder.encode(levels, Self.settings(), container: .ktx2)
        let b = try TextureEncoder.encode(levels, Self.settings(), container: .ktx2)
        #expect(a == b)
    }

    /// A file's BasisLZ sections damaged anywhere are a one-line error, never a crash.
    @Test func damagedGlobalDataIsAnError() throws {
        let file = try TextureEncoder.encode(Self.chain(24, 24, alpha: false), Self.settings(), container: .ktx2)
        let sgd = Int(file[64]) | Int(file[65]) << 8
        let sgdLength = Int(file[72]) | Int(file[73]) << 8
        var failures = 0
        for k in stride(from: sgd, to: sgd + sgdLength, by: 3) {
            var bad = file
            bad[k] ^= 0x5A
            do {
                let read = try TextureFile(bad)
                for n in 0..<read.levels.count { _ = try read.level(n) }
            } catch let e as CodecError {
                #expect(!e.message.contains("\n"))
                failures += 1
            }
        }
        #expect(failures > 0)
    }

    /// The file's layout read here from the KTX 2.0 specification, sharing nothing with texpipe's
    /// reader: `supercompressionScheme` 1, `vkFormat` 0, levels' `uncompressedByteLength` 0; the
    /// descriptor's colour model 163, `bytesPlane0` 0, samples RGB (0) then AAA (15) at bit 64;
    /// the global data's length exactly its header, 20 bytes per image and its three sections, no
    /// extended data; every slice inside its level, the levels' slices back to back; the selector
    /// section's two reserved bits zero; each section's first Huffman table header in range.
    @Test(arguments: [false, true])
    func theFileFollowsTheSpecificationsLayout(alpha: Bool) throws {
        let levels = Self.chain(36, 20, alpha: alpha)
        let f = try TextureEncoder.encode(levels, Self.settings(), container: .ktx2)
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(f[at + $1]) << (8 * $1) } }
        func u64(_ at: Int) -> Int { u32(at) | u32(at + 4) << 32 }
        #expect(u32(12) == 0 && u32(44) == 1 && u32(40) == levels.count)
        let dfd = u32(48)
        let samples = (u32(dfd + 8) >> 16 - 24) / 16
        #expect(f[dfd + 12] == 163 && u32(dfd + 20) == 0 && samples == (alpha ? 2 : 1))
        #expect(f[dfd + 31] == 0 && u32(dfd + 28) & 0xFFFF == 0 && (u32(dfd + 28) >> 16) & 0xFF == 63)
        if alpha { #expect(f[dfd + 47] == 15 && u32(dfd + 44) & 0xFFFF == 64) }
        let (sgd, sgdLength) = (u64(64), u64(72))
        #expect(sgd % 8 == 0)
        let images = levels.count
        let (endpointBytes, selectorBytes, tableBytes) = (u32(sgd + 4), u32(sgd + 8), u32(sgd + 12))
        #expect(u32(sgd + 16) == 0)
        #expect(sgdLength == 20 + 20 * images + endpointBytes + selectorBytes + tableBytes)
        #expect(u32(sgd) & 0xFFFF > 0 && u32(sgd) >> 16 > 0)
        for n in 0..<images {
            let (offset, length, raw) = (u64(80 + 24 * n), u64(88 + 24 * n), u64(96 + 24 * n))
            #expect(raw == 0 && offset >= sgd + sgdLength && offset + length <= f.count)
            let d = sgd + 20 + 20 * n
            let (flags, ro, rl, ao, al) = (u32(d), u32(d + 4), u32(d + 8), u32(d + 12), u32(d + 16))
            #expect(flags == 0 && ro == 0 && rl > 0)
            if alpha {
                #expect(ao == rl && al > 0 && ao + al == length, "level \(n)")
            } else {
                #expect(ao == 0 && al == 0 && rl == length, "level \(n)")
            }
        }
        // Bits least significant first: a Huffman table begins with 14 bits of used symbols (1…16383)
        // and 5 of code-length codes (1…21).
        func tableHeader(_ at: Int, skip: Int = 0) -> (Int, Int) {
            let bits = (0..<8).reduce(0) { $0 | Int(f[at + $1]) << (8 * $1) } >> skip
            return (bits & 0x3FFF, (bits >> 14) & 31)
        }
        let endpoints = sgd + 20 + 20 * images
        for (at, skip) in [(endpoints, 0), (endpoints + endpointBytes + selectorBytes, 0)] {
            let (used, codes) = tableHeader(at, skip: skip)
            #expect((1...16383).contains(used) && (1...21).contains(codes))
        }
        let selectors = endpoints + endpointBytes
        #expect(f[selectors] & 3 == 0, "the selector section's reserved bits")
        if f[selectors] & 4 == 0 {
            let (used, codes) = tableHeader(selectors, skip: 3)
            #expect((1...256).contains(used) && (1...21).contains(codes))
        }
    }

    /// Every GPU target the transcoder has, for every level: the right number of bytes, ETC1 and
    /// ETC2's colour exactly the RGBA transcode (ETC1S is a subset of ETC1), the lossy targets
    /// (BC1, BC3, BC7, ASTC 4×4) near it, each decoded by texture2ddecoder; and the ETC1 transcode
    /// drawn by WebGL 2 in Chromium (`WEBGL_compressed_texture_etc1`) is that RGBA too.
    @Test(
        Reference.needs(ETC1STests.available && WebGLTests.available, "opengl_basisu, texture2ddecoder, chromium"),
        arguments: [false, true])
    func everyGPUTargetTranscodesAndETC1Draws(alpha: Bool) throws {
        let t = TempDir()
        let levels = Self.chain(60, 44, alpha: alpha)
        let file = try TextureEncoder.encode(levels, Self.settings(), container: .ktx2)
        t.write("f.ktx2", file)
        let rows = try BlockReference.transcodedTargets(t.path + "/f.ktx2", etc1: t.path + "/etc1.ktx2")
        #expect(rows.count == 6 * levels.count)
        for row in rows {
            let n = row.level
            #expect(row.bytes == row.expectedBytes(levels[n].width, levels[n].height), "\(row)")
            if row.target == "etc1" || row.target == "etc2" {
                #expect(row.rgbMaxDiff == 0, "\(row.target) level \(n) is lossless: \(row)")
            } else {
                #expect(row.rgbPSNR >= 25, "\(row.target) level \(n): \(row)")
            }
        }
        let (_, rgba) = try Self.transcoded(file, "rgba8", in: t)
        _ = try Python.run([WebGLTests.script, t.path + "/etc1.ktx2", t.path + "/drawn", "--etc1"])
        let drawn = Array(try Data(contentsOf: URL(fileURLWithPath: t.path + "/drawn")))
        #expect(drawn.count == rgba.count)
        var worst = 0
        for i in 0..<min(drawn.count, rgba.count) where i % 4 != 3 {
            worst = max(worst, abs(Int(drawn[i]) - Int(rgba[i])))
        }
        #expect(worst <= 1, "WebGL's ETC1 against the RGBA transcode: \(worst)")
    }
}
