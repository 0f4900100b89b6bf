@testable import TexPipe

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
