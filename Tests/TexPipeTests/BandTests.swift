import Testing
import TexPipeTestSupport
import TexPipeTextures

@testable import TexPipeBlocks
@testable import TexPipeCodecs
@testable import TexPipeEngine
@testable import TexPipeFormats
@testable import TexPipePixels

/// Block encoders on the engine's threads (`ThreadedRows`, bands on several cores) write the
/// blocks they write on one band.
@Suite("blocks on the engine's threads")
struct BandTests {
    @Test(arguments: TextureSettings.Quality.allCases)
    func bc6hBlocksDoNotDependOnTheCores(_ quality: TextureSettings.Quality) throws {
        let (w, h) = (64, 64)
        // Six decades of noise: every mode and partition search has work.
        var r = SeededRandom(seed: 9)
        let image = (0..<(w * h * 4)).map { k in
            k % 4 == 3 ? Float(1) : Float(r.int(1...1000)) * Float(r.int(0...3) == 0 ? 100 : 0.01)
        }
        let blocks = BC6H.encode(image, width: w, height: h, quality: quality, rows: SerialRows())
        #expect(BC6H.encode(image, width: w, height: h, quality: quality, rows: ThreadedRows()) == blocks)
    }

    /// ETC1S: every per-block and per-cluster pass in bands, and the trees' splits several at
    /// a time.
    @Test(arguments: TextureSettings.Quality.allCases)
    func etc1sFilesDoNotDependOnTheCores(_ quality: TextureSettings.Quality) throws {
        let (w, h) = (96, 72)
        var r = SeededRandom(seed: 5)
        let rgba = (0..<(w * h * 4)).map { k in k % 4 == 3 ? UInt8(255) : UInt8(r.int(0...255) / (k % 3 + 1)) }
        var settings = TextureSettings.standard
        settings.format = .etc1s
        settings.quality = quality
        settings.qlevel = 200
        let image = Image(width: w, height: h, pixels: .rgba8(rgba))
        let one = try TextureEncoder.encode([image], settings, container: .ktx2, rows: SerialRows())
        #expect(try TextureEncoder.encode([image], settings, container: .ktx2, rows: ThreadedRows()) == one)
    }

    /// The tree quantiser splits a cluster of more than `lone` members alone, its chunks summed on
    /// several cores; the clusters (and their neighbour table) are the same as on one.
    @Test func treeQuantizerDoesNotDependOnTheCores() {
        var r = SeededRandom(seed: 11)
        let n = TreeQuantizer.lone + 5000
        let vectors = (0..<n).map { _ in SIMD8<Float>((0..<8).map { _ in Float(r.int(0...255)) }) }
        let one = TreeQuantizer.clusters(vectors, count: 40, iterations: 2, rows: SerialRows())
        let many = TreeQuantizer.clusters(vectors, count: 40, iterations: 2, rows: ThreadedRows())
        #expect(one.count == 40)
        #expect(many.assignment == one.assignment)
        #expect(many.centroids == one.centroids)
        // And the refinement's neighbour table, computed in bands of clusters.
        #expect(one.neighbourTable(8, window: 12, rows: ThreadedRows()) == one.neighbourTable(8, window: 12))
        // Weighted alike.
        let weights = (0..<n).map { _ in Float(r.int(1...650)) }
        let oneWeighted = TreeQuantizer.clusters(
            vectors, weights: weights, count: 40, iterations: 2, rows: SerialRows())
        let manyWeighted = TreeQuantizer.clusters(
            vectors, weights: weights, count: 40, iterations: 2, rows: ThreadedRows())
        #expect(manyWeighted.assignment == oneWeighted.assignment)
        #expect(manyWeighted.centroids == oneWeighted.centroids)
    }

    /// Weights move the centroids and choose which cluster splits: two groups, A = {0, 2} of
    /// weight 100 each and B = {1000, 1010} of weight 1. The first split parts A from B (centroids
    /// 1 and 1005); then A's weighted error is 100 + 100 = 200 against B's 25 + 25 = 50, so A
    /// splits (unweighted, 2 against 50: B splits). One cluster of {0, 4} weighted 1 and 3 has its
    /// centroid at 3.
    @Test func treeQuantizerWeighsItsVectors() {
        let v = [0, 2, 1000, 1010].map { SIMD8<Float>(Float($0), 0, 0, 0, 0, 0, 0, 0) }
        let weighted = TreeQuantizer.clusters(
            v, weights: [100, 100, 1, 1], count: 3, iterations: 2, rows: SerialRows())
        let a = weighted.assignment
        #expect(a[0] != a[1] && a[2] == a[3] && a[0] != a[2] && a[1] != a[2])
        #expect(weighted.centroids[Int(a[2])][0] == 1005)
        #expect(Set([weighted.centroids[Int(a[0])][0], weighted.centroids[Int(a[1])][0]]) == [0, 2])
        let plain = TreeQuantizer.clusters(v, count: 3, iterations: 2, rows: SerialRows()).assignment
        #expect(plain[0] == plain[1] && plain[2] != plain[3])
        let one = TreeQuantizer.clusters(
            [SIMD8<Float>(), SIMD8<Float>(4, 0, 0, 0, 0, 0, 0, 0)], weights: [1, 3], count: 1, iterations: 2,
            rows: SerialRows())
        #expect(one.centroids == [SIMD8<Float>(3, 0, 0, 0, 0, 0, 0, 0)])
    }
}
