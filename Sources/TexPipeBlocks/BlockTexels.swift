/// A 4 × 4 block's texels gathered for a block encoder: 16 packed RGBA words (bytes r, g, b, a in
/// memory: the low byte is r on little-endian machines), rows top to bottom. Whole rows of four
/// are loaded at once inside the image; at its right and bottom edges the last column and row
/// repeat, texel by texel.
enum BlockTexels {
    @inline(__always) static func load(
        _ src: UnsafeBufferPointer<UInt8>, _ bx: Int, _ by: Int, width: Int, height: Int
    ) -> SIMD16<Int32> {
        var words = (SIMD4<Int32>(), SIMD4<Int32>(), SIMD4<Int32>(), SIMD4<Int32>())
        let inside = bx * 4 + 4 <= width && by * 4 + 4 <= height
        for y in 0..<4 {
            let sy = min(by * 4 + y, height - 1)
            var row = SIMD4<Int32>()
            if inside {
                row = UnsafeRawPointer(src.baseAddress! + (sy * width + bx * 4) * 4).loadUnaligned(
                    as: SIMD4<Int32>.self)
            } else {
                for x in 0..<4 {
                    let s = (sy * width + min(bx * 4 + x, width - 1)) * 4
                    row[x] = Int32(src[s]) | Int32(src[s + 1]) << 8 | Int32(src[s + 2]) << 16 | Int32(src[s + 3]) << 24
                }
            }
            switch y {
            case 0: words.0 = row
            case 1: words.1 = row
            case 2: words.2 = row
            default: words.3 = row
            }
        }
        return unsafeBitCast(words, to: SIMD16<Int32>.self)
    }
}
