internal import TexPipeFormats
internal import TexPipePixels

/// The one loop over a level's 4 × 4 blocks, for every block encoder and decoder: rows of blocks in bands
/// across the cores a `RowScheduler` lends (the bytes never depend on how many), blocks left to
/// right within a row, each written at its place in the level. An encoder supplies only what
/// one block is. Inlined into each encoder, so the block function is called directly: no
/// dispatch and no allocation per block.
enum BlockRows {
    /// A level's blocks (`blockBytes` each, row-major) from `texels` (4 values a texel, width ×
    /// height): `block(src, bx, by, dst)` writes block (bx, by) at `dst`. `flushDenormals`: each
    /// band runs with denormal floats flushed on its thread (BC7's vector lanes; see
    /// `BC7.withDenormalsFlushed`).
    @inline(__always)
    static func encode<Texel>(
        _ texels: [Texel], width: Int, height: Int, blockBytes: Int, rows: any RowScheduler,
        flushDenormals: Bool = false,
        _ block: (UnsafeBufferPointer<Texel>, _ bx: Int, _ by: Int, UnsafeMutablePointer<UInt8>) -> Void
    ) -> [UInt8] {
        let bw = (width + 3) / 4
        let bh = (height + 3) / 4
        var out = [UInt8](repeating: 0, count: bw * bh * blockBytes)
        out.withUnsafeMutableBufferPointer { dst in
            texels.withUnsafeBufferPointer { src in
                rows.forEachBand(rows: bh, pixelsPerRow: width * 4) { rowsOfBlocks in
                    BC7.withDenormalsFlushed(flushDenormals) {
                        for by in rowsOfBlocks {
                            for bx in 0..<bw { block(src, bx, by, dst.baseAddress! + (by * bw + bx) * blockBytes) }
                        }
                    }
                }
            }
        }
        return out
    }

    /// A level's texels (4 values a texel, width × height, row-major) from its blocks
    /// (`blockBytes` each): `block(at, texels)` writes the 16 texels of the block at byte `at`, 4
    /// values each, rows top to bottom; the part inside the level is copied, a row at a time. Too
    /// few bytes for the level is the one-line error naming the `family`.
    @inline(__always)
    static func decode<Texel>(
        _ blocks: [UInt8], width: Int, height: Int, blockBytes: Int, family: String, fill: Texel,
        _ block: (_ at: Int, UnsafeMutablePointer<Texel>) -> Void
    ) throws -> [Texel] {
        let bw = (width + 3) / 4
        let bh = (height + 3) / 4
        guard blocks.count >= bw * bh * blockBytes else { throw CodecError(.textureTruncated(family)) }
        var out = [Texel](repeating: fill, count: width * height * 4)
        out.withUnsafeMutableBufferPointer { dst in
            withUnsafeTemporaryAllocation(of: Texel.self, capacity: 64) { texels in
                let t = texels.baseAddress!
                t.initialize(repeating: fill, count: 64)
                for by in 0..<bh {
                    for bx in 0..<bw {
                        block((by * bw + bx) * blockBytes, t)
                        let columns = min(4, width - bx * 4) * 4
                        for y in 0..<min(4, height - by * 4) {
                            (dst.baseAddress! + ((by * 4 + y) * width + bx * 4) * 4).update(
                                from: t + y * 16, count: columns)
                        }
                    }
                }
            }
        }
        return out
    }

    /// `value`'s 8 bytes at `dst`, least significant first (BC, BC6H, UASTC).
    @inline(__always) static func putLittleEndian(_ value: UInt64, _ dst: UnsafeMutablePointer<UInt8>) {
        for i in 0..<8 { dst[i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
    }

    /// `value`'s 8 bytes at `dst`, most significant first (ETC2 and EAC).
    @inline(__always) static func putBigEndian(_ value: UInt64, _ dst: UnsafeMutablePointer<UInt8>) {
        for i in 0..<8 { dst[i] = UInt8(truncatingIfNeeded: value >> (56 - 8 * i)) }
    }
}
