// Refitting a block's endpoints to the selectors it took from another block.
extension RDO {
    /// A color block's 16 2-bit selectors (the low 32 bits), one a lane.
    @inline(__always) static func selectorLanes(_ selectors: UInt64) -> V16 {
        let s = Int32(truncatingIfNeeded: selectors)
        return (V16(repeating: s) &>> V16(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30)) & 3
    }

    /// Four-color endpoints (c0 | c1 << 16) fitted by least squares to the texels for these 2-bit
    /// selectors (the encoder's own refinement, `BC.colorLeastSquares`); nil when the selectors
    /// do not span a line (all one weight).
    static func refitColor(_ t: BC.Texels, _ selectors: UInt64) -> UInt64? {
        guard let (c0, c1) = BC.colorLeastSquares(t, selectorLanes(selectors), four: true) else { return nil }
        return UInt64(c0) | UInt64(c1) << 16
    }

    /// BC4 endpoints (r0 | r1 << 8) fitted by least squares to the values for these 3-bit
    /// indices in the eight-value mode (indices of the six-value mode, or a fit that comes out in
    /// the other order, make a poor block that its error then rules out).
    static func refitAlpha(_ a: V16, _ indices: UInt64) -> UInt64? {
        var idx = V16()
        for i in 0..<16 { idx[i] = Int32((indices >> UInt64(3 * i)) & 7) }
        guard let (r0, r1) = BC.leastSquares(a, idx, eight: true) else { return nil }
        return UInt64(r0) | UInt64(r1) << 8
    }

    /// All ones for the texels of block (bx, by) inside the image, 0 for the edge's repeats.
    @inline(__always) static func insideMask(_ bx: Int, _ by: Int, _ width: Int, _ height: Int) -> V16 {
        let x = V16(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3) &+ Int32(bx * 4)
        let y = V16(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3) &+ Int32(by * 4)
        return x.below(V16(repeating: Int32(width))) & y.below(V16(repeating: Int32(height)))
    }

    /// A BC1/BC3 color block's squared error: RGB, and (BC1) alpha against 255 — texpipe's BC1
    /// holds opaque images only, so the three-color mode's transparent fourth entry is an error of
    /// 255² wherever it is used, whatever alpha the texels given here have (the benchmark's).
    @inline(__always) static func colorError(
        _ block: UInt64, _ t: BC.Texels, _ inside: V16, alwaysFour: Bool, alpha: Bool
    ) -> SIMD2<Int32> {
        let c0 = Int32(truncatingIfNeeded: block & 0xFFFF)
        let c1 = Int32(truncatingIfNeeded: (block >> 16) & 0xFFFF)
        let four = alwaysFour || c0 > c1
        // The palette as the decoder makes it (BC.colorPalette), without divisions: ⌊x / 3⌋ is
        // (x · 43691) >> 17 for x ≤ 765.
        @inline(__always) func expand(_ c: Int32) -> SIMD4<Int32> {
            let v = SIMD4<Int32>(c >> 11, (c >> 5) & 63, c & 31, 0)
            let five = (v &<< 3) | (v &>> 2)
            let six = (v &<< 2) | (v &>> 4)
            return SIMD4(five[0], six[1], five[2], 0)
        }
        let e0 = expand(c0)
        let e1 = expand(c1)
        let p2 = four ? ((2 &* e0 &+ e1) &* 43691) &>> 17 : (e0 &+ e1) &>> 1
        let p3 = four ? ((e0 &+ 2 &* e1) &* 43691) &>> 17 : SIMD4<Int32>()
        let idx = selectorLanes(block >> 32)
        // Each texel's palette entry, channel by channel (masks as plain vector instructions,
        // SIMD+Lanes.swift: the standard library's go lane by lane), then one distance.
        let (is1, is2, is3) = (idx.equals(1), idx.equals(2), idx.equals(3))
        @inline(__always) func entry(_ c: Int) -> V16 {
            V16(repeating: e0[c]).choosing(V16(repeating: e1[c]), where: is1).choosing(
                V16(repeating: p2[c]), where: is2
            ).choosing(V16(repeating: p3[c]), where: is3)
        }
        let dr = t.r &- entry(0)
        let dg = t.g &- entry(1)
        let db = t.b &- entry(2)
        let rgb = ((dr &* dr &+ dg &* dg &+ db &* db) & inside).wrappedSum()
        guard alpha else { return SIMD2(rgb, 0) }
        // The three-color mode's fourth entry is transparent: alpha 0 there, else 255.
        let a = four ? V16(repeating: 255) : V16(repeating: 255) & ~idx.equals(3)
        let da = a &- 255
        return SIMD2(rgb, (da &* da & inside).wrappedSum())
    }

    /// A BC4 (BC3 alpha) block's squared error against the alpha values.
    @inline(__always) static func alphaError(_ block: UInt64, _ a: V16, _ inside: V16) -> Int32 {
        let values = BC.palette8(Int32(block & 0xFF), Int32((block >> 8) & 0xFF))
        // Each texel's 3-bit index: the 48 index bits as two 24-bit halves, shifted per lane.
        let lo = Int32(truncatingIfNeeded: (block >> 16) & 0xFF_FFFF)
        let hi = Int32(truncatingIfNeeded: (block >> 40) & 0xFF_FFFF)
        let halves = V16(lo, lo, lo, lo, lo, lo, lo, lo, hi, hi, hi, hi, hi, hi, hi, hi)
        let idx = (halves &>> V16(0, 3, 6, 9, 12, 15, 18, 21, 0, 3, 6, 9, 12, 15, 18, 21)) & 7
        var v = V16(repeating: values[0])
        for k in 1..<8 { v = v.choosing(V16(repeating: values[k]), where: idx.equals(Int32(k))) }
        let d = v &- a
        return (d &* d & inside).wrappedSum()
    }

    typealias H16 = SIMD16<Int16>

    /// A BC7 block's squared error (RGB, alpha), from its channels as `BC7.channels` decodes
    /// them, against the texels `t` (in 16-bit lanes) inside the image (`inside`: lanes all ones).
    /// A difference is at most 255 in magnitude, so its square (at most 65,025) is exact in a
    /// 16-bit lane read as unsigned; pairs of lanes are then added in 32 bits.
    @inline(__always) static func bc7Error(_ px: (H16, H16, H16, H16), _ t: (H16, H16, H16, H16), _ inside: H16)
        -> SIMD2<Int32>
    {
        @inline(__always) func squares(_ a: H16, _ b: H16) -> SIMD8<UInt32> {
            let d = a &- b
            let pairs = unsafeBitCast((d &* d) & inside, to: SIMD8<UInt32>.self)
            return (pairs & 0xFFFF) &+ (pairs &>> 16)
        }
        @inline(__always) func total(_ v: SIMD8<UInt32>) -> Int32 {
            let q = v.lowHalf &+ v.highHalf
            return Int32(truncatingIfNeeded: (q[0] &+ q[1]) &+ (q[2] &+ q[3]))
        }
        return SIMD2(
            total(squares(px.0, t.0) &+ squares(px.1, t.1) &+ squares(px.2, t.2)), total(squares(px.3, t.3)))
    }

    /// Decoded BC7 texels' squared error: RGB and alpha.
    @inline(__always) static func bc7Error(_ decoded: UnsafePointer<UInt8>, _ t: BC.Texels, _ inside: V16) -> SIMD2<
        Int32
    > {
        // 16 texels, r, g, b, a bytes each: a word a texel (r the low byte on little-endian machines).
        let packed = UnsafeRawPointer(decoded).loadUnaligned(as: SIMD16<UInt32>.self)
        let p = SIMD16<Int32>(truncatingIfNeeded: packed)
        let dr = (p & 255) &- t.r
        let dg = ((p &>> 8) & 255) &- t.g
        let db = ((p &>> 16) & 255) &- t.b
        let da = ((p &>> 24) & 255) &- t.a
        return SIMD2(
            ((dr &* dr &+ dg &* dg &+ db &* db) & inside).wrappedSum(), (da &* da & inside).wrappedSum())
    }
}
