extension BC7 {
    /// Swaps a subset's endpoints (and their p-bits) and reverses its indices when its anchor
    /// texel's index has its top bit set, so that bit need not be stored.
    static func fixAnchors(
        _ lines: inout Lines, subsets: Int, partition: Int, lanes: V16, indexBits: Int,
        channels: Int
    ) {
        let top = Int32(1 << indexBits) - 1
        for s in 0..<subsets {
            let i = anchor(subsets, partition, s)
            guard lines.indices[i] > top / 2 else { continue }
            lines.swapEnds(s)
            lines.indices = lines.indices.choosing(V16(repeating: top) &- lines.indices, where: lanes.equals(Int32(s)))
        }
    }

    /// The block's 16 bytes as two little-endian u64s, fields in Table.M's order.
    static func pack(_ choice: Choice) -> (UInt64, UInt64) {
        let mode = choice.mode
        let m = modes[mode]
        let lanes = subsetLanes(m.subsets, choice.partition)
        var color = choice.color
        var alpha = choice.alpha
        let separate = m.index2Bits > 0
        let (colorIndex, alphaIndex) =
            choice.selection == 1 ? (m.index2Bits, m.indexBits) : (m.indexBits, m.index2Bits)
        fixAnchors(
            &color, subsets: m.subsets, partition: choice.partition, lanes: lanes,
            indexBits: separate ? colorIndex : m.indexBits, channels: separate ? 3 : 4)
        if separate {
            fixAnchors(&alpha, subsets: 1, partition: 0, lanes: lanes, indexBits: alphaIndex, channels: 1)
        }
        var w = BitWriter()
        w.write(1 << Int32(mode), mode + 1)
        w.write(Int32(choice.partition), m.partitionBits)
        w.write(Int32(choice.rotation), m.rotationBits)
        w.write(Int32(choice.selection), m.selectionBits)
        for c in 0..<3 {
            for s in 0..<m.subsets {
                w.write(color.end(0, s)[c], m.colorBits)
                w.write(color.end(1, s)[c], m.colorBits)
            }
        }
        if m.alphaBits > 0 {
            for s in 0..<m.subsets {
                if separate {
                    w.write(alpha.end(0, 0)[0], m.alphaBits)
                    w.write(alpha.end(1, 0)[0], m.alphaBits)
                } else {
                    w.write(color.end(0, s)[3], m.alphaBits)
                    w.write(color.end(1, s)[3], m.alphaBits)
                }
            }
        }
        if m.endpointP {
            for k in 0..<(2 * m.subsets) { w.write(color.p[k], 1) }
        } else if m.sharedP {
            for s in 0..<m.subsets { w.write(color.p[2 * s], 1) }
        }
        /// Indices gathered into one word first (at most 63 bits), the texels whose bit is set in
        /// `anchors` one bit short.
        @inline(__always) func gather(_ indices: V16, bits: Int, anchors: Int) {
            var word: UInt64 = 0
            var at: UInt64 = 0
            for i in 0..<16 {
                let n = UInt64(bits - (anchors &>> i) & 1)
                // Masking shifts (`&<<`): every shift here is below 64, and the checked ones branch.
                word |= (UInt64(UInt32(bitPattern: indices[i])) & ((1 &<< n) &- 1)) &<< at
                at &+= n
            }
            w.write(word: word, Int(at))
        }
        let anchors = m.subsets == 1 ? 1 : Int(anchorMasks[(m.subsets - 2) * 64 + choice.partition])
        gather(separate && choice.selection == 1 ? alpha.indices : color.indices, bits: m.indexBits, anchors: anchors)
        if separate {
            // The secondary indices: texel 0 their only anchor.
            gather(choice.selection == 1 ? color.indices : alpha.indices, bits: m.index2Bits, anchors: 1)
        }
        return (w.lo, w.hi)
    }
}
