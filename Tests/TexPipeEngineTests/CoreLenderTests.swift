import Testing
import TexPipeTestSupport

@testable import TexPipeCache
@testable import TexPipeCodecs
@testable import TexPipeEngine
@testable import TexPipeFormats
@testable import TexPipeManifest
@testable import TexPipeMeasures
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeStages
@testable import TexPipeTextures

/// Row bands on lent cores must not change a byte: every banded kernel, run with a lender that
/// has idle cores (and a threshold low enough to split these small images), against the same
/// kernel with no lender. The split count proves the bands really happened.
@Suite("Row bands on lent cores")
struct CoreLenderTests {
    static func banded<T>(_ body: (CoreLender) throws -> T) rethrows -> (T, splits: Int) {
        let lender = CoreLender(idle: 3, minimumPixels: 64)
        let value = try body(lender)
        #expect(lender.idleCores == 3, "every lent core is given back")
        return (value, lender.splitCount)
    }

    static let stages: [(String, any Stage)] = [
        ("color-key", ColorKey(color: Color(r: 0.2, g: 0.5, b: 0.1), tolerance: 0.4, feather: 0.2, unmix: true)),
        ("premultiply", Premultiply()),
        ("unpremultiply", Unpremultiply()),
        ("flatten", Flatten(color: Color(r: 1, g: 0.5, b: 0))),
        ("alpha-split", AlphaSplit(bleed: false)),
        ("adjust", Adjust(hue: 40, saturation: 1.3, contrast: 1.2, gamma: 0.8)),
        ("rotate", Rotate(degrees: 17, filter: .bicubic)),
    ]

    @Test("banded stages give the bytes of one band", arguments: [8, 16])
    func stagesAreBandInvariant(depth: Int) throws {
        for (name, stage) in Self.stages {
            var image = randomImage(37, 29, depth: depth, seed: 5)
            if name == "unpremultiply" { image = try Premultiply().applied(to: image)[0] }
            let single = try stage.applied(to: image)
            let (split, splits) = try Self.banded { try stage.applied(to: image, rows: $0) }
            #expect(splits > 0, "\(name) never split its rows")
            #expect(split == single, "\(name) depth \(depth)")
        }
    }

    @Test("the PNG writer's banded filtering writes the same file", arguments: PNGSettings.Filter.allCases)
    func writerIsBandInvariant(filter: PNGSettings.Filter) throws {
        for depth in [8, 16] {
            let image = randomImage(41, 23, depth: depth, seed: 8)
            var settings = PNGSettings.standard
            settings.filter = filter
            let single = try ImageEncoder.png(image, settings)
            let (split, splits) = try Self.banded { try ImageEncoder.png(image, settings, rows: $0) }
            #expect(splits > 0)
            #expect(split == single, "depth \(depth)")
        }
    }

    @Test func serialRowsOrNoIdleCoreMeansOneBand() {
        var calls: [Range<Int>] = []
        SerialRows().forEachBand(rows: 2000, pixelsPerRow: 2000) { calls.append($0) }
        #expect(calls == [0..<2000])
        let busy = CoreLender(idle: 0, minimumPixels: 1)
        busy.forEachBand(rows: 10, pixelsPerRow: 10) { calls.append($0) }
        #expect(calls == [0..<2000, 0..<10])
        #expect(busy.splitCount == 0)
    }
}
