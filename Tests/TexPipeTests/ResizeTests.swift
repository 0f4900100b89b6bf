import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipe
@testable import TexPipeManifest
@testable import TexPipePixels
@testable import TexPipeStages

/// Resize: the mip chain's formula at any size, the aspect kept when one side is given, and
/// `scale` or `width`/`height`, never both.
@Suite("resize")
struct ResizeTests {
    @Test func resizeMatchesTheMipFormulaAndKeepsAspect() throws {
        let img = image8(4, 2, Array(MipmapsTests.semi[0..<8]))
        let half = try Resize(width: 2).applied(to: img)[0]
        #expect(half.width == 2 && half.height == 1)
        #expect(half.pixels == (try Mipmaps().applied(to: img)[1]).pixels)
        #expect(Resize(scale: 0.5).size(101, 50) == (51, 25))
        #expect(Resize(height: 10).size(40, 20) == (20, 10))
        let up = try Resize(scale: 3, filter: .lanczos3).applied(
            to: image8(5, 4, Array(repeating: [9, 99, 199, 99], count: 20)))[0]
        #expect(up.width == 15 && quads(up).allSatisfy { $0 == [9, 99, 199, 99] })
        var object = JSONObject()
        object.insert("scale", .number(2))
        object.insert("width", .number(3))
        var decoder = ParameterDecoder(file: "", placeholders: [:], knownNames: [])
        let decoded = decoder.decode(object, at: .root, table: Resize.parameters)
        let args = try #require(decoded)
        #expect(throws: StageError("give one of \"width\"/\"height\", \"scale\" or \"fit\", not more")) {
            try Resize(args)
        }
    }

    /// `fit`, decoded from manifest JSON as a user writes it, against sizes worked out by hand from
    /// docs/stages.md's rules (maxSize, then pot, then multipleOf; downscaleOnly by default).
    @Test(arguments: [
        // 1000 lies nearer 1024 than 512, 300 nearer 256 than 512; enlarging allowed.
        (#"{"pot": "nearest", "downscaleOnly": false}"#, 1000, 300, 1024, 256),
        // By default no side grows: the nearest power of two above gives way to the one below.
        (#"{"pot": "nearest"}"#, 1000, 300, 512, 256),
        (#"{"pot": "up", "downscaleOnly": false}"#, 1000, 300, 1024, 512),
        (#"{"pot": "up"}"#, 1000, 300, 512, 256),
        (#"{"pot": "down"}"#, 1000, 300, 512, 256),
        (#"{"pot": "nearest", "downscaleOnly": false}"#, 768, 384, 1024, 512),  // a tie goes up
        (#"{"maxSize": 512}"#, 300, 200, 300, 200),  // never enlarged
        (#"{"maxSize": 512, "downscaleOnly": false}"#, 300, 200, 300, 200),  // maxSize only shrinks
        (#"{"maxSize": 2048}"#, 4000, 3000, 2048, 1536),  // aspect kept
        (#"{"maxSize": 100}"#, 1000, 333, 100, 33),  // 33.3 rounds to 33
        (#"{"maxSize": 100}"#, 1000, 335, 100, 34),  // 33.5 rounds half up
        (#"{"maxSize": 1000, "pot": "down"}"#, 4000, 3000, 512, 512),  // 1000 × 750, then down
        (#"{"multipleOf": 4}"#, 1023, 517, 1020, 516),
        (#"{"multipleOf": 4}"#, 1, 1, 1, 1),  // a side below the multiple stays
        (#"{"multipleOf": 4}"#, 6, 3, 4, 3),
        (#"{"pot": "nearest", "multipleOf": 4}"#, 1, 1, 1, 1),
        (#"{"maxSize": 64, "multipleOf": 4}"#, 1000, 150, 64, 8),  // 64 × 9.6 → 64 × 10 → 64 × 8
    ])
    func fitSizes(fit: String, w: Int, h: Int, expectedWidth: Int, expectedHeight: Int) throws {
        let stage = try decodeStage(Resize.self, #"{"fit": "# + fit + "}")
        #expect(stage.size(w, h) == (expectedWidth, expectedHeight), "\(fit) on \(w)×\(h)")
        let planned = try stage.planned(Signature(width: w, height: h, depth: 8, alpha: .straight))
        #expect(planned[0].width == expectedWidth && planned[0].height == expectedHeight)
    }

    @Test func fitResizesThePixelsAsWidthAndHeightWould() throws {
        let img = image8(8, 6, (0..<48).map { [($0 * 5) % 256, ($0 * 11) % 256, 7, 255] })
        let fitted = try decodeStage(Resize.self, #"{"fit": {"pot": "down"}}"#).applied(to: img)[0]
        let sized = try Resize(width: 8, height: 4).applied(to: img)[0]
        #expect(fitted.width == 8 && fitted.height == 4 && fitted.pixels == sized.pixels)
        let same = try decodeStage(Resize.self, #"{"fit": {"maxSize": 64}}"#).applied(to: img)[0]
        #expect(same.pixels == img.pixels)
        #expect(throws: StageError("give one of \"width\"/\"height\", \"scale\" or \"fit\", not more")) {
            _ = try decodeStage(Resize.self, #"{"fit": {"maxSize": 64}, "scale": 2}"#)
        }
    }
}
