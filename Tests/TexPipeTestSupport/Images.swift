internal import Foundation
internal import TexPipeCodecs
public import TexPipePixels
public import TexPipeStages

/// Builds an 8-bit image from RGBA quadruples, row-major.
public func image8(_ width: Int, _ height: Int, _ pixels: [[Int]], alpha: AlphaState = .straight) -> Image {
    precondition(pixels.count == width * height)
    return Image(width: width, height: height, pixels: .rgba8(pixels.flatMap { $0.map { UInt8($0) } }), alpha: alpha)
}

public func image16(_ width: Int, _ height: Int, _ pixels: [[Int]], alpha: AlphaState = .straight) -> Image {
    precondition(pixels.count == width * height)
    return Image(width: width, height: height, pixels: .rgba16(pixels.flatMap { $0.map { UInt16($0) } }), alpha: alpha)
}

/// All pixels as RGBA quadruples.
public func quads(_ image: Image) -> [[Int]] {
    (0..<image.height).flatMap { y in (0..<image.width).map { x in image.pixel(x, y) } }
}

/// The formula's rounding, written independently: nearest integer, halves up.
public func roundHalfUp(_ x: Double) -> Int { Int((x + 0.5).rounded(.down)) }

extension Stage {
    /// A stage run as the tests run it: in memory, one band (or on `rows`), with `images` as the
    /// files it declared in `reads` — never read from disk here (stages are pure; the engine's
    /// loader is tested on its own) — and fonts found as the planner finds them.
    public func applied(
        to image: Image, images: [String: Image] = [:], rows: any RowScheduler = SerialRows()
    ) throws -> [Image] {
        var context = StageContext()
        context.images = Dictionary(uniqueKeysWithValues: images.map { (PathKey($0.key), $0.value) })
        context.rows = rows
        context.text = TestText()
        for case .font(let spec, let base, _) in reads {
            context.fonts[spec] = try FontFinder.resolve(spec, baseDirectory: base).get()
        }
        return try applied(to: image, context: &context)
    }
}

/// PSNR in dB of interleaved RGBA8 texels over `channels`: 10 · log10(255² / MSE); 99 when they
/// are identical. The one PSNR the tests use (alpha is measured on its own by passing [3]).
public func psnr(_ a: [UInt8], _ b: [UInt8], channels: [Int] = [0, 1, 2]) -> Double {
    precondition(a.count == b.count)
    var se = 0.0
    var n = 0
    for i in stride(from: 0, to: a.count, by: 4) {
        for c in channels {
            let d = Double(a[i + c]) - Double(b[i + c])
            se += d * d
            n += 1
        }
    }
    return se == 0 ? 99 : 10 * log10(255 * 255 / (se / Double(n)))
}

extension Image {
    /// The 8-bit texels inside a border of `inset` pixels, row-major.
    public func rgba8(inset: Int) -> [UInt8] {
        var out: [UInt8] = []
        for y in inset..<(height - inset) {
            for x in inset..<(width - inset) { out += pixel(x, y).map { UInt8($0) } }
        }
        return out
    }
}

/// A w × h image whose texels count up (distinct colors, so a moved pixel is found).
public func numbered(_ w: Int, _ h: Int) -> Image {
    image8(w, h, (0..<(w * h)).map { [$0 % 256, ($0 * 7) % 256, 200, 255 - $0 % 200] })
}

/// A small w × h image indexed by texel (w · h ≤ 50): r is the index, alpha 255 − index.
public func indexed(_ w: Int, _ h: Int) -> Image {
    image8(w, h, (0..<(w * h)).map { [$0, 100 + $0 % 50, 7, 255 - $0] })
}

/// An n × n image of one color.
public func square(_ n: Int, _ color: [Int]) -> Image { image8(n, n, Array(repeating: color, count: n * n)) }

/// FreeType's text, as the engine hands it to stages (its own `FreeTypeText` is internal to it).
struct TestText: TextRenderer {
    func rendered(_ text: String, font: FontFace, size: Double, outline: Double) throws -> TextBitmap {
        try TextBitmap.rendered(text, font: font, size: size, outline: outline)
    }
}

public func pngFixture(type: Int, depth: Int, interlaced: Bool, trns: Bool, width: Int = 13, height: Int = 11)
    -> ReferencePNG.Spec
{
    var rng = SeededRandom(seed: UInt64(type * 1000 + depth * 10 + (interlaced ? 1 : 0) + (trns ? 5 : 0)))
    let ch = ReferencePNG.channels[type]!
    let maxSample = (1 << depth) - 1
    var spec = ReferencePNG.Spec(
        width: width, height: height, colorType: type, bitDepth: depth, interlaced: interlaced, samples: [])
    if type == 3 {
        let entries = 1 << depth
        spec.palette = (0..<entries).map { _ in (rng.int(0...255), rng.int(0...255), rng.int(0...255)) }
        spec.samples = (0..<(width * height)).map { _ in rng.int(0...maxSample) }
        if trns { spec.trns = (0..<max(1, entries / 2)).map { _ in rng.int(0...255) } }
    } else {
        spec.samples = (0..<(width * height * ch)).map { _ in rng.int(0...maxSample) }
        if trns && type == 0 {
            spec.trns = [spec.samples[spec.samples.count / 2]]  // a value that occurs
        } else if trns && type == 2 {
            let mid = (width * height / 2) * 3
            spec.trns = Array(spec.samples[mid..<(mid + 3)])
        }
    }
    return spec
}

public func randomImage(_ w: Int, _ h: Int, depth: Int, seed: UInt64, opaque: Bool = false, gray: Bool = false)
    -> Image
{
    var rng = SeededRandom(seed: seed)
    let max = depth == 16 ? 65535 : 255
    let px: [[Int]] = (0..<(w * h)).map { _ in
        let r = rng.int(0...max)
        let rgb = gray ? [r, r, r] : [r, rng.int(0...max), rng.int(0...max)]
        return rgb + [opaque ? max : rng.int(0...max)]
    }
    return depth == 16 ? image16(w, h, px) : image8(w, h, px)
}

/// A 4×2 half-float EXR of one HDR value (2.0) everywhere: an HDR input for planner tests.
public var exrBytes: [UInt8] {
    (try? EXR.encode(Image(width: 4, height: 2, pixels: .rgbaF32([Float](repeating: 2, count: 32))))) ?? []
}

/// Row bands of `bandRows` rows run one after another: what a scheduler lending cores does to a
/// banded kernel, in order (a kernel must give the same bytes however its rows are banded).
public struct TestRows: RowScheduler {
    public let bandRows: Int
    public init(bandRows: Int) { self.bandRows = bandRows }
    public func forEachBand(rows: Int, pixelsPerRow: Int, _ body: (Range<Int>) -> Void) {
        var y = 0
        while y < rows {
            body(y..<Swift.min(rows, y + bandRows))
            y += bandRows
        }
    }
}
