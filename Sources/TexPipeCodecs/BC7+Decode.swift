extension BC7 {
    /// A 128-bit block read from its least significant bit up.
    struct BitReader {
        let lo: UInt64
        let hi: UInt64
        var at = 0

        mutating func read(_ n: Int) -> Int32 {
            if n == 0 { return 0 }
            let v: UInt64
            if at >= 64 {
                v = hi >> UInt64(at - 64)
            } else if at + n <= 64 {
                v = lo >> UInt64(at)
            } else {
                v = (lo >> UInt64(at)) | (hi << UInt64(64 - at))
            }
            at += n
            return Int32(truncatingIfNeeded: v & ((1 << UInt64(n)) - 1))
        }
    }

    /// One block (16 bytes at `at`) into 16 RGBA texels. A block whose low byte is zero (no
    /// mode) decodes to transparent black, as Direct3D specifies.
    static func decodeBlock(_ b: [UInt8], _ at: Int, into t: inout [UInt8]) {
        var lo: UInt64 = 0
        var hi: UInt64 = 0
        for i in 0..<8 {
            lo |= UInt64(b[at + i]) << UInt64(8 * i)
            hi |= UInt64(b[at + 8 + i]) << UInt64(8 * i)
        }
        guard lo & 0xFF != 0 else {
            for i in 0..<64 { t[i] = 0 }
            return
        }
        let mode = (lo & 0xFF).trailingZeroBitCount
        let m = modes[mode]
        var r = BitReader(lo: lo, hi: hi, at: mode + 1)
        let partition = Int(r.read(m.partitionBits))
        let rotation = Int(r.read(m.rotationBits))
        let selection = r.read(m.selectionBits)
        // Endpoint e of subset s, channel c, at lane (s * 2 + e) of channel c's vector.
        var ends = (SIMD8<Int32>(), SIMD8<Int32>(), SIMD8<Int32>(), SIMD8<Int32>(repeating: 255))
        let count = m.subsets * 2
        for c in 0..<3 {
            for k in 0..<count {
                let v = r.read(m.colorBits)
                switch c {
                case 0: ends.0[k] = v
                case 1: ends.1[k] = v
                default: ends.2[k] = v
                }
            }
        }
        if m.alphaBits > 0 { for k in 0..<count { ends.3[k] = r.read(m.alphaBits) } }
        var pbits = SIMD8<Int32>()
        var bitsColor = m.colorBits
        var bitsAlpha = m.alphaBits
        if m.endpointP {
            for k in 0..<count { pbits[k] = r.read(1) }
        } else if m.sharedP {
            for s in 0..<m.subsets {
                let p = r.read(1)
                (pbits[2 * s], pbits[2 * s + 1]) = (p, p)
            }
        }
        if m.endpointP || m.sharedP {
            bitsColor += 1
            bitsAlpha += 1
            ends.0 = ends.0 &<< 1 | pbits
            ends.1 = ends.1 &<< 1 | pbits
            ends.2 = ends.2 &<< 1 | pbits
            if m.alphaBits > 0 { ends.3 = ends.3 &<< 1 | pbits }
        }
        for k in 0..<count {
            ends.0[k] = expand(ends.0[k], bitsColor)
            ends.1[k] = expand(ends.1[k], bitsColor)
            ends.2[k] = expand(ends.2[k], bitsColor)
            if m.alphaBits > 0 { ends.3[k] = expand(ends.3[k], bitsAlpha) }
        }
        let lanes = subsetLanes(m.subsets, partition)
        var anchors = SIMD4<Int>(0, -1, -1, -1)
        for s in 1..<m.subsets { anchors[s] = anchor(m.subsets, partition, s) }
        var primary = V16()
        for i in 0..<16 {
            let isAnchor = i == anchors[0] || i == anchors[1] || i == anchors[2]
            primary[i] = r.read(m.indexBits - (isAnchor ? 1 : 0))
        }
        var secondary = primary
        if m.index2Bits > 0 { for i in 0..<16 { secondary[i] = r.read(m.index2Bits - (i == 0 ? 1 : 0)) } }
        // The color index is the secondary one when the selection bit is set; the alpha index is
        // the secondary one when there is one and the bit is clear.
        let (colorIndex, colorBits) =
            selection == 1 ? (secondary, m.index2Bits) : (primary, m.indexBits)
        let (alphaIndex, alphaBits) =
            (m.index2Bits > 0 && selection == 0) ? (secondary, m.index2Bits) : (primary, m.indexBits)
        let wc = weights[colorBits - 2]
        let wa = weights[alphaBits - 2]
        for i in 0..<16 {
            let s = Int(lanes[i]) * 2
            let w = wc[Int(colorIndex[i])]
            let v = wa[Int(alphaIndex[i])]
            var px = SIMD4<Int32>(
                ((64 - w) * ends.0[s] + w * ends.0[s + 1] + 32) >> 6,
                ((64 - w) * ends.1[s] + w * ends.1[s + 1] + 32) >> 6,
                ((64 - w) * ends.2[s] + w * ends.2[s + 1] + 32) >> 6,
                ((64 - v) * ends.3[s] + v * ends.3[s + 1] + 32) >> 6)
            if rotation > 0 { (px[rotation - 1], px[3]) = (px[3], px[rotation - 1]) }
            for c in 0..<4 { t[i * 4 + c] = UInt8(px[c]) }
        }
    }
}
