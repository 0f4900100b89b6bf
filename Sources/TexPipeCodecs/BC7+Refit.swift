extension BC7 {
    /// Where a mode's indices start: after the mode, partition, rotation, selection, endpoint
    /// and p-bit fields.
    static let indexStart: [Int] = (0..<8).map { mode in
        let m = modes[mode]
        let pBits = m.endpointP ? 2 * m.subsets : m.sharedP ? m.subsets : 0
        return mode + 1 + m.partitionBits + m.rotationBits + m.selectionBits + 6 * m.subsets * m.colorBits
            + 2 * m.subsets * m.alphaBits + pBits
    }

    /// The block `bytes` with new endpoints for the texels of `block`: least squares on the
    /// block's own indices, quantized to its mode's bits with the nearest p-bits. The mode,
    /// partition, rotation, selection and every index bit stay as they are, so the bytes from
    /// the first index bit on are unchanged (`rdo` fits a block's endpoints to the indices it
    /// copies from another). Nil for a block without a mode.
    static func refit(_ bytes: UInt128, _ block: Block) -> UInt128? {
        let lo = UInt64(truncatingIfNeeded: bytes)
        guard lo & 0xFF != 0 else { return nil }
        let mode = lo.trailingZeroBitCount
        let m = modes[mode]
        let r = BitReader(lo: lo, hi: UInt64(truncatingIfNeeded: bytes &>> 64), at: mode + 1)
        let partition = Int(r.field(mode + 1, m.partitionBits))
        let rotation = Int(r.field(mode + 1 + m.partitionBits, m.rotationBits))
        let selection = Int(r.field(mode + 1 + m.partitionBits + m.rotationBits, m.selectionBits))
        // The indices as stored (an anchor's top bit is zero, not stored).
        let anchors = m.subsets == 1 ? 1 : Int(anchorMasks[(m.subsets - 2) * 64 + partition])
        var primary = V16()
        var secondary = V16()
        var at = indexStart[mode]
        for i in 0..<16 {
            let n = m.indexBits - (anchors &>> i) & 1
            primary[i] = r.field(at, n)
            at += n
        }
        if m.index2Bits > 0 {
            for i in 0..<16 {
                let n = m.index2Bits - (i == 0 ? 1 : 0)
                secondary[i] = r.field(at, n)
                at += n
            }
        }
        var block = block.rotated(rotation)
        // As the encoder weighs an opaque block: alpha 255 kept by the p-bits.
        if rotation == 0 && block.opaque { block.weights[3] = 16 }

        /// One index set's lines: per subset, least squares (or the subset's mean where every
        /// member has one index), quantized with the nearest p-bits.
        func lines(first: Int, count: Int, lanes: V16, subsets: Int, indices: V16, indexBits: Int, q: Quantizer)
            -> Lines
        {
            var out = Lines()
            var p = SIMD8<Int32>()
            let weights = fittedWeights(block, first: first, count: count)
            for s in 0..<subsets {
                let member = lanes.equals(Int32(s))
                var ends = leastSquares(
                    block, first: first, count: count, member: member, indices: indices, indexBits: indexBits)
                if ends == nil {
                    let w = F16.ones(member)
                    let mean = totals(w, block, first: first, count: count) / max(1, w.total)
                    ends = (mean, mean)
                }
                let (x, _, err) = quantize(ends!.0, ends!.1, q, count: count, weights: weights)
                let pick = nearestP(q, err)
                switch s {
                case 0: (out.q0.0, out.q1.0) = (quarter(x, pick.0), quarter(x, pick.1))
                case 1: (out.q0.1, out.q1.1) = (quarter(x, pick.0), quarter(x, pick.1))
                default: (out.q0.2, out.q1.2) = (quarter(x, pick.0), quarter(x, pick.1))
                }
                p[2 * s] = Int32(pick.0 & 1)
                p[2 * s + 1] = Int32(pick.1 & 1)
            }
            out.p = p
            out.indices = indices
            return out
        }
        var choice = Choice(error: 0, mode: mode, partition: partition, rotation: rotation, selection: selection)
        if m.index2Bits == 0 {
            choice.color = lines(
                first: 0, count: m.alphaBits > 0 ? 4 : 3, lanes: subsetLanes(m.subsets, partition),
                subsets: m.subsets, indices: primary, indexBits: m.indexBits,
                q: Quantizer(bits: m.colorBits, endpointP: m.endpointP, sharedP: m.sharedP))
        } else {
            let (color, alpha) = selection == 1 ? (secondary, primary) : (primary, secondary)
            let (colorBits, alphaBits) = selection == 1 ? (m.index2Bits, m.indexBits) : (m.indexBits, m.index2Bits)
            choice.color = lines(
                first: 0, count: 3, lanes: V16(), subsets: 1, indices: color, indexBits: colorBits,
                q: Quantizer(bits: m.colorBits, endpointP: false, sharedP: false))
            choice.alpha = lines(
                first: 3, count: 1, lanes: V16(), subsets: 1, indices: alpha, indexBits: alphaBits,
                q: Quantizer(bits: m.alphaBits, endpointP: false, sharedP: false))
        }
        let (newLo, newHi) = pack(choice)
        return UInt128(newHi) &<< 64 | UInt128(newLo)
    }
}
