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

extension BC7 {
    /// The block `bytes`' mode, partition, rotation, endpoints and p-bits, with each texel of `t`
    /// given the index its projection on its subset's line rounds to (over the channels that
    /// index sets; an anchor's index kept to the half stored without its top bit): the nearest
    /// palette entry or, rarely, one beside it. Every bit before the first index bit is
    /// `bytes`' own: `rdo` takes another block's endpoints this way. Nil for a block without a
    /// mode and for mode 4 (its index selection bit).
    static func reindexed(_ bytes: UInt128, _ t: BC.Texels) -> UInt128? {
        let lo = UInt64(truncatingIfNeeded: bytes)
        guard lo & 0xFF != 0 else { return nil }
        let mode = lo.trailingZeroBitCount
        guard mode != 4 else { return nil }
        let m = modes[mode]
        var r = BitReader(lo: lo, hi: UInt64(truncatingIfNeeded: bytes &>> 64), at: mode + 1)
        let partition = Int(r.read(m.partitionBits))
        let rotation = Int(r.read(m.rotationBits))
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: 24) { buffer -> UInt128 in
            let e = buffer.baseAddress!
            readEndpoints(&r, m, into: e)
            let lanes = subsetLanes(m.subsets, partition)
            let in1 = V16() &- (lanes & 1)
            let in2 = V16() &- (lanes &>> 1)
            // Each texel's subset's two endpoints, channel c.
            @inline(__always) func ends(_ c: Int) -> (V16, V16) {
                var a = V16(repeating: e[c])
                var b = V16(repeating: e[4 + c])
                if m.subsets > 1 {
                    a = a.choosing(V16(repeating: e[8 + c]), where: in1)
                    b = b.choosing(V16(repeating: e[12 + c]), where: in1)
                }
                if m.subsets > 2 {
                    a = a.choosing(V16(repeating: e[16 + c]), where: in2)
                    b = b.choosing(V16(repeating: e[20 + c]), where: in2)
                }
                return (a, b)
            }
            let (r0, r1) = ends(0)
            let (g0, g1) = ends(1)
            let (b0, b1) = ends(2)
            let (a0, a1) = ends(3)
            // The texels in the block's own channel order (a rotation swaps alpha with a color,
            // and is its own inverse).
            var x = (t.r, t.g, t.b, t.a)
            switch rotation {
            case 1: (x.0, x.3) = (x.3, x.0)
            case 2: (x.1, x.3) = (x.3, x.1)
            case 3: (x.2, x.3) = (x.3, x.2)
            default: break
            }
            let anchors = Int32(m.subsets == 1 ? 1 : anchorMasks[(m.subsets - 2) * 64 + partition])
            let anchorLanes =
                V16() &- ((V16(repeating: anchors) &>> V16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)) & 1)
            /// Each texel's index for `bits`-bit indices over the colors, alpha or both: its
            /// projection on its subset's line, rounded to the nearest of the evenly spread
            /// weights (the table's are within ½ of 64·k / (2^bits − 1)), an anchor's kept to the
            /// lower half. Near the nearest entry, not always it: `rdo` measures every candidate.
            @inline(__always) func nearest(_ bits: Int, color: Bool, alpha: Bool, anchors: V16) -> V16 {
                var along = F16()
                var length = F16()
                @inline(__always) func add(_ a: V16, _ b: V16, _ x: V16) {
                    let fa = float(a)
                    let d = float(b) - fa
                    along += d * (float(x) - fa)
                    length += d * d
                }
                if color {
                    add(r0, r1, x.0)
                    add(g0, g1, x.1)
                    add(b0, b1, x.2)
                }
                if alpha { add(a0, a1, x.3) }
                let top = F16(repeating: Float((1 << bits) - 1))
                // Two equal ends: every index decodes alike; 0.
                let flat = length.below(F16(repeating: 0.5))
                var k = round(along / length.choosing(F16(repeating: 1), where: flat) * top)
                k = k.choosing(F16(), where: k.below(F16()) | flat)
                k = k.choosing(top, where: top.below(k))
                let half = F16(repeating: Float(1 << (bits - 1)) - 1)
                k = k.choosing(half, where: half.below(k) & anchors)
                return unsafeBitCast(k + 12_582_912, to: V16.self) &- 0x4B40_0000
            }
            var out = bytes & ((UInt128(1) &<< UInt128(indexStart[mode])) &- 1)
            var at = indexStart[mode]
            @inline(__always) func put(_ index: V16, _ bits: Int, anchors: Int32) {
                for i in 0..<16 {
                    out |= UInt128(UInt32(truncatingIfNeeded: index[i])) &<< UInt128(at)
                    at += bits - Int((anchors &>> Int32(i)) & 1)
                }
            }
            if m.index2Bits == 0 {
                put(nearest(m.indexBits, color: true, alpha: true, anchors: anchorLanes), m.indexBits, anchors: anchors)
            } else {
                // Mode 5: the colors' indices, then alpha's, texel 0 the only anchor of each.
                put(nearest(m.indexBits, color: true, alpha: false, anchors: anchorLanes), m.indexBits, anchors: 1)
                put(nearest(m.index2Bits, color: false, alpha: true, anchors: anchorLanes), m.index2Bits, anchors: 1)
            }
            return out
        }
    }
}
