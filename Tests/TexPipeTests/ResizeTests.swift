import Foundation
import Testing

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
        #expect(throws: StageError("give either \"scale\" or \"width\"/\"height\", not both")) { try Resize(args) }
    }
}
