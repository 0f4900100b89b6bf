import Testing
import TexPipeTestSupport

@testable import TexPipeBlocks
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
}
