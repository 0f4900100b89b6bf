package import TexPipeFormats

// BC1, BC3, BC4 and BC5 blocks decoded (the encoder is in BC.swift).
extension BC {
    /// A level's blocks as tightly packed RGBA8 (w × h). BC4 decodes to (r, 0, 0, 255), BC5 to
    /// (r, g, 0, 255), as the Direct3D samplers return them.
    public static func decode(
        _ blocks: [UInt8], format: TextureSettings.Format, width: Int, height: Int
    ) throws -> [UInt8] {
        guard case .bc(let variant) = format.info.codec else { throw CodecError(.notBlockCompressed(format.rawValue)) }
        return try decode(blocks, variant: variant, width: width, height: height)
    }

    /// Per channel, the squared differences between BC7 `blocks` decoded and the `original` texels
    /// (RGBA8, width × height), block by block: what a PSNR needs, without the decoded level.
    static func bc7SquaredErrors(_ blocks: [UInt8], _ original: [UInt8], width: Int, height: Int) throws -> SIMD4<Int64>
    {
        let bw = (width + 3) / 4
        let bh = (height + 3) / 4
        guard blocks.count >= bw * bh * 16, original.count == width * height * 4 else {
            throw CodecError(.textureTruncated("BC7"))
        }
        var total = SIMD4<Int64>()
        blocks.withUnsafeBufferPointer { src in
            original.withUnsafeBufferPointer { org in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { texels in
                    let t = texels.baseAddress!
                    for by in 0..<bh {
                        var acc = SIMD4<Int32>()  // a row of blocks: at most 4 · width · 255² per channel
                        for bx in 0..<bw {
                            BC7.decodeBlock(src.baseAddress! + (by * bw + bx) * 16, into: t)
                            let columns = min(4, width - bx * 4)
                            for y in 0..<min(4, height - by * 4) {
                                let o = org.baseAddress! + ((by * 4 + y) * width + bx * 4) * 4
                                for x in 0..<columns {
                                    let d =
                                        SIMD4<Int32>(
                                            truncatingIfNeeded: UnsafeRawPointer(o + x * 4).loadUnaligned(
                                                as: SIMD4<UInt8>.self))
                                        &- SIMD4<Int32>(
                                            truncatingIfNeeded: UnsafeRawPointer(t + y * 16 + x * 4).loadUnaligned(
                                                as: SIMD4<UInt8>.self))
                                    acc &+= d &* d
                                }
                            }
                            if bx % 256 == 255 {
                                total &+= SIMD4<Int64>(truncatingIfNeeded: acc)
                                acc = .zero
                            }
                        }
                        total &+= SIMD4<Int64>(truncatingIfNeeded: acc)
                    }
                }
            }
        }
        return total
    }

    static func decode(_ blocks: [UInt8], variant: BCVariant, width: Int, height: Int) throws -> [UInt8] {
        try blocks.withUnsafeBufferPointer { src in
            let b = src.baseAddress!
            return try BlockRows.decode(
                blocks, width: width, height: height, blockBytes: variant.blockBytes, family: variant.name, fill: 0
            ) { at, t in
                switch variant {
                case .bc1: color(b + at, into: t, alwaysFour: false)
                case .bc3:
                    color(b + at + 8, into: t, alwaysFour: true)
                    single(b + at, into: t, channel: 3)
                case .bc4:
                    single(b + at, into: t, channel: 0)
                    for i in 0..<16 { (t[i * 4 + 1], t[i * 4 + 2], t[i * 4 + 3]) = (0, 0, 255) }
                case .bc5:
                    single(b + at, into: t, channel: 0)
                    single(b + at + 8, into: t, channel: 1)
                    for i in 0..<16 { (t[i * 4 + 2], t[i * 4 + 3]) = (0, 255) }
                case .bc7: BC7.decodeBlock(b + at, into: t)
                }
            }
        }
    }

    /// 5:6:5 expanded to 8 bits by repeating the top bits.
    @inline(__always) static func expand565(_ c: Int) -> (Int, Int, Int) {
        let r = (c >> 11) & 31
        let g = (c >> 5) & 63
        let b = c & 31
        return ((r << 3) | (r >> 2), (g << 2) | (g >> 4), (b << 3) | (b >> 2))
    }

    /// A BC1 color block (8 bytes at `b`) into 16 RGBA texels. c0 > c1: four colors; else three
    /// and transparent black (BC3's color block is always four colors).
    static func color(_ b: UnsafePointer<UInt8>, into t: UnsafeMutablePointer<UInt8>, alwaysFour: Bool) {
        let c0 = Int(b[0]) | Int(b[1]) << 8
        let c1 = Int(b[2]) | Int(b[3]) << 8
        // The encoder's palette; the three-color mode's fourth entry is transparent black.
        let four = alwaysFour || c0 > c1
        let palette = colorPalette(c0, c1, four: four)
        let bits = Int(b[4]) | Int(b[5]) << 8 | Int(b[6]) << 16 | Int(b[7]) << 24
        for i in 0..<16 {
            let k = (bits >> (2 * i)) & 3
            let inside = k < palette.count
            let p = inside ? (palette.r[k], palette.g[k], palette.b[k]) : (0, 0, 0)
            let a: UInt8 = inside ? 255 : 0
            (t[i * 4], t[i * 4 + 1], t[i * 4 + 2], t[i * 4 + 3]) = (UInt8(p.0), UInt8(p.1), UInt8(p.2), a)
        }
    }

    /// A BC4 block (8 bytes at `b`) into one channel of 16 RGBA texels (the encoder's palette).
    static func single(_ b: UnsafePointer<UInt8>, into t: UnsafeMutablePointer<UInt8>, channel: Int) {
        let values = palette8(Int32(b[0]), Int32(b[1]))
        var bits = 0
        for k in 0..<6 { bits |= Int(b[2 + k]) << (8 * k) }
        for i in 0..<16 { t[i * 4 + channel] = UInt8(values[(bits >> (3 * i)) & 7]) }
    }
}
