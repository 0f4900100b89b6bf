import Foundation

@testable import TexPipe
@testable import TexPipeCodecs
@testable import TexPipeEngine
@testable import TexPipeFormats
@testable import TexPipeManifest
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeReport
@testable import TexPipeStages

/// Builds an 8-bit image from RGBA quadruples, row-major.
func image8(_ width: Int, _ height: Int, _ pixels: [[Int]], alpha: AlphaState = .straight) -> Image {
    precondition(pixels.count == width * height)
    return Image(width: width, height: height, pixels: .rgba8(pixels.flatMap { $0.map { UInt8($0) } }), alpha: alpha)
}

func image16(_ width: Int, _ height: Int, _ pixels: [[Int]], alpha: AlphaState = .straight) -> Image {
    precondition(pixels.count == width * height)
    return Image(width: width, height: height, pixels: .rgba16(pixels.flatMap { $0.map { UInt16($0) } }), alpha: alpha)
}

/// All pixels as RGBA quadruples.
func quads(_ image: Image) -> [[Int]] {
    (0..<image.height).flatMap { y in (0..<image.width).map { x in image.pixel(x, y) } }
}

/// The formula's rounding, written independently: nearest integer, halves up.
func roundHalfUp(_ x: Double) -> Int { Int((x + 0.5).rounded(.down)) }

extension Stage {
    /// A stage run as the tests run it: in memory, one band (or on `rows`), with `images` as the
    /// files it declared in `reads` — never read from disk here (stages are pure; the engine's
    /// loader is tested on its own) — and fonts found as the planner finds them.
    func applied(
        to image: Image, images: [String: Image] = [:], rows: any RowScheduler = SerialRows()
    ) throws -> [Image] {
        var context = StageContext()
        context.images = images
        context.rows = rows
        context.text = FreeTypeText()
        for case .font(let spec, let base, _) in reads {
            context.fonts[spec] = try FontFinder.resolve(spec, baseDirectory: base).get()
        }
        return try applied(to: image, context: &context)
    }
}

extension TextureSettings.Format {
    /// The BC encoder variant of a BC format (a test's shorthand; nil-free for BC formats only).
    var bcVariant: BCVariant {
        guard case .bc(let v) = info.codec else { fatalError("\(self) is not a BC format") }
        return v
    }
}
