extension BC7 {
    /// A 128-bit block read from its least significant bit up. A field's position is a running
    /// sum, and each field is cut from the whole block on its own, so reads do not wait on each other.
    struct BitReader {
        let all: UInt128
        var at: Int

        init(lo: UInt64, hi: UInt64, at: Int) {
            all = UInt128(hi) &<< 64 | UInt128(lo)
            self.at = at
        }

        /// The `n` bits at `position` (n ≤ 8).
        @inline(__always) func field(_ position: Int, _ n: Int) -> Int32 {
            // Masking shifts (positions are below 128, n below 64): no overshift checks.
            Int32(truncatingIfNeeded: UInt64(truncatingIfNeeded: all &>> UInt128(position)) & ((1 &<< UInt64(n)) &- 1))
        }

        @inline(__always) mutating func read(_ n: Int) -> Int32 {
            defer { at += n }
            return field(at, n)
        }
    }

    /// One block (16 bytes at `at`) into 16 RGBA texels. A block whose low byte is zero (no
    /// mode) decodes to transparent black, as Direct3D specifies.
    static func decodeBlock(_ b: [UInt8], _ at: Int, into t: inout [UInt8]) {
        precondition(at >= 0 && at + 16 <= b.count && t.count >= 64)
        b.withUnsafeBufferPointer { src in
            t.withUnsafeMutableBufferPointer { dst in decodeBlock(src.baseAddress! + at, into: dst.baseAddress!) }
        }
    }

    /// Per 2-subset partition, then per 3-subset partition: a bit per texel set at its anchors
    /// (texel 0 always), whose indices are stored one bit shorter.
    static let anchorMasks: [UInt16] =
        (0..<64).map { p in 1 | 1 << UInt16(anchors2[p]) }
        + (0..<64).map { p in 1 | 1 << UInt16(anchors3a[p]) | 1 << UInt16(anchors3b[p]) }

    /// A mode's endpoints and p-bits, read from `r` (just after the selection bit), into
    /// `e[k * 4 + c]` widened to 8 bits: endpoint k (subset k / 2), channel c; alpha 255 in a
    /// mode without it.
    @inline(__always) static func readEndpoints(_ r: inout BitReader, _ m: Mode, into e: UnsafeMutablePointer<Int32>) {
        let count = m.subsets * 2
        // The fields from here on, cut into words: one per channel's run of `count` fields
        // (at most 6 × 7 bits), one for alpha's and one for the p-bits.
        let fields = r.all &>> UInt128(truncatingIfNeeded: r.at)
        @inline(__always) func word(_ at: Int) -> UInt64 {
            UInt64(truncatingIfNeeded: fields &>> UInt128(truncatingIfNeeded: at))
        }
        let (cb, ab) = (m.colorBits, m.alphaBits)
        let run = count &* cb
        let (red, green, blue, alpha) = (word(0), word(run), word(2 &* run), word(3 &* run))
        let hasP = m.endpointP || m.sharedP
        let pBits = word(3 &* run &+ count &* ab)
        r.at &+= 3 &* run &+ count &* ab &+ (m.endpointP ? count : m.sharedP ? m.subsets : 0)
        let colorMask: UInt64 = (1 &<< UInt64(truncatingIfNeeded: cb)) &- 1
        let alphaMask: UInt64 = (1 &<< UInt64(truncatingIfNeeded: ab)) &- 1
        let colorLanes = SIMD4<Int32>(-1, -1, -1, 0)
        // Each endpoint's four channels built in a register and stored whole.
        for k in 0..<count {
            @inline(__always) func field(_ w: UInt64, _ bits: Int, _ mask: UInt64) -> Int32 {
                Int32(truncatingIfNeeded: (w &>> UInt64(truncatingIfNeeded: k &* bits)) & mask)
            }
            var v = SIMD4<Int32>(
                field(red, cb, colorMask), field(green, cb, colorMask), field(blue, cb, colorMask),
                field(alpha, ab, alphaMask))
            var (nc, na) = (cb, ab)
            if hasP {
                // One p-bit per endpoint, or one per subset (both its endpoints).
                let p = Int32(truncatingIfNeeded: (pBits &>> UInt64(truncatingIfNeeded: m.endpointP ? k : k / 2)) & 1)
                v = v &<< 1 | SIMD4(repeating: p)
                (nc, na) = (cb &+ 1, ab &+ 1)
            }
            // Alpha 255 in a mode without it.
            let a = ab > 0 ? expand(v, na) : SIMD4(repeating: 255)
            let c = expand(v, nc)
            (UnsafeMutableRawPointer(e) + 16 &* k).storeBytes(
                of: (c & colorLanes) | (a & ~colorLanes), as: SIMD4<Int32>.self)
        }
    }

    /// The weights of 2-, 3- and 4-bit indices, one table after the other (at 0, 4 and 12).
    static let weightTable: [Int16] = weights.flatMap { $0.map { Int16($0) } }

    /// `subsetLanes` in 16-bit lanes, per 2-subset partition, then per 3-subset partition.
    static let subsetLanes16: [SIMD16<Int16>] = (subsets2 + subsets3).map { SIMD16(truncatingIfNeeded: $0) }

    /// `bits`-bit fields stored with each anchor's (a bit of `anchors` per texel) one bit shorter,
    /// with that top bit put back as zero: texel i's field is then at i · bits.
    @inline(__always) static func widened(_ packed: UInt64, bits n: Int, anchors: UInt64) -> UInt64 {
        var h = packed
        var left = anchors
        while left != 0 {
            let top = UInt64(truncatingIfNeeded: left.trailingZeroBitCount &* n &+ n &- 1)
            let below = (1 &<< top) &- 1
            h = (h & below) | ((h & ~below) &<< 1)
            left &= left &- 1
        }
        return h
    }

    /// The 16 weights of `bits`-bit indices at i · bits in `h`, one lane each.
    @inline(__always) static func weights16(_ h: UInt64, bits: Int) -> SIMD16<Int16> {
        weightTable.withUnsafeBufferPointer { table in
            @inline(__always) func gather(_ n: UInt64, _ at: Int) -> SIMD16<Int16> {
                let mask: UInt64 = (1 &<< n) &- 1
                var w = SIMD16<Int16>()
                for i in 0..<16 { w[i] = table[at &+ Int(truncatingIfNeeded: (h &>> (UInt64(i) &* n)) & mask)] }
                return w
            }
            return bits == 2 ? gather(2, 0) : bits == 3 ? gather(3, 4) : gather(4, 12)
        }
    }

    /// One block at `src` into 16 RGBA texels at `t` (`channels`, each texel's four bytes
    /// together). A block whose low byte is zero (no mode) decodes to transparent black, as
    /// Direct3D specifies.
    static func decodeBlock(_ src: UnsafePointer<UInt8>, into t: UnsafeMutablePointer<UInt8>) {
        let raw = UnsafeRawPointer(src)
        let lo = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
        let hi = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let px = channels(UInt128(hi) &<< 64 | UInt128(lo))
        // Each texel's four bytes in one 32-bit lane, R lowest: stored as they lie in memory (little-endian).
        var packed =
            V16(truncatingIfNeeded: px.0) | V16(truncatingIfNeeded: px.1) &<< 8
            | V16(truncatingIfNeeded: px.2) &<< 16 | V16(truncatingIfNeeded: px.3) &<< 24
        withUnsafeBytes(of: &packed) { UnsafeMutableRawPointer(t).copyMemory(from: $0.baseAddress!, byteCount: 64) }
    }

    /// A block's 16 texels as four channels of 16-bit lanes (R, G, B, A; 0…255 each): the bit
    /// fields read in the order the BPTC specification lays them out, the endpoints kept in a
    /// small stack buffer, each index set read as one word. Zero where no mode is named.
    static func channels(_ block: UInt128) -> (SIMD16<Int16>, SIMD16<Int16>, SIMD16<Int16>, SIMD16<Int16>) {
        typealias H16 = SIMD16<Int16>
        let lo = UInt64(truncatingIfNeeded: block)
        let hi = UInt64(truncatingIfNeeded: block &>> 64)
        guard lo & 0xFF != 0 else { return (H16(), H16(), H16(), H16()) }
        let mode = (lo & 0xFF).trailingZeroBitCount
        let m = modes[mode]
        // Set inside the closure rather than returned through it (a generic result: copied by memcpy).
        var px = (H16(), H16(), H16(), H16())
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 24) { buffer in
            // The reader lives in the closure, so it stays in registers.
            var r = BitReader(lo: lo, hi: hi, at: mode + 1)
            let partition = Int(r.read(m.partitionBits))
            let rotation = Int(r.read(m.rotationBits))
            let selection = r.read(m.selectionBits)
            // e[k * 4 + c]: endpoint k (subset k / 2), channel c.
            let e = buffer.baseAddress!
            readEndpoints(&r, m, into: e)
            // The indices end the block: primary ones (anchors, texel 0 among them, one bit
            // shorter), then the secondary ones (texel 0 their only anchor). Each set is at most
            // 64 bits; with a zero put back above each anchor's bits, texel i's index is the
            // field at i · bits.
            let ib = m.indexBits
            let ib2 = m.index2Bits
            let anchors = UInt64(m.subsets == 1 ? 1 : anchorMasks[(m.subsets - 2) * 64 + partition])
            let rest = r.all &>> UInt128(r.at)
            let primary = widened(UInt64(truncatingIfNeeded: rest), bits: ib, anchors: anchors)
            let wp = weights16(primary, bits: ib)
            var ws = wp
            if ib2 > 0 {
                let secondary = UInt64(truncatingIfNeeded: rest &>> UInt128(16 * ib - anchors.nonzeroBitCount))
                ws = weights16(widened(secondary, bits: ib2, anchors: 1), bits: ib2)
            }
            // 16-bit lanes: (64 − w) · a + w · b + 32 is at most 64 · 255 + 32. The color weights
            // are the secondary ones when the selection bit is set; the alpha weights are the
            // secondary ones when there are any and the bit is clear.
            let (w, v) = selection == 1 ? (ws, wp) : (wp, ws)
            // Lane masks of the texels in subsets 1 and 2 (all ones there), made once per block.
            let lanes = m.subsets == 1 ? H16() : subsetLanes16[(m.subsets - 2) * 64 + partition]
            let in1 = H16() &- (lanes & 1)
            let in2 = H16() &- (lanes &>> 1)
            @inline(__always) func channel(_ c: Int, _ w: H16) -> H16 {
                var a = H16(repeating: Int16(truncatingIfNeeded: e[c]))
                var b = H16(repeating: Int16(truncatingIfNeeded: e[4 + c]))
                if m.subsets > 1 {
                    a = a ^ ((a ^ H16(repeating: Int16(truncatingIfNeeded: e[8 + c]))) & in1)
                    b = b ^ ((b ^ H16(repeating: Int16(truncatingIfNeeded: e[12 + c]))) & in1)
                    if m.subsets > 2 {
                        a = a ^ ((a ^ H16(repeating: Int16(truncatingIfNeeded: e[16 + c]))) & in2)
                        b = b ^ ((b ^ H16(repeating: Int16(truncatingIfNeeded: e[20 + c]))) & in2)
                    }
                }
                return ((64 &- w) &* a &+ w &* b &+ 32) &>> 6
            }
            px = (channel(0, w), channel(1, w), channel(2, w), channel(3, v))
            switch rotation {
            case 1: (px.0, px.3) = (px.3, px.0)
            case 2: (px.1, px.3) = (px.3, px.1)
            case 3: (px.2, px.3) = (px.3, px.2)
            default: break
            }
        }
        return px
    }
}
