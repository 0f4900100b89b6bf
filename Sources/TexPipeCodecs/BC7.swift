/// BC7 (BPTC UNORM, Microsoft's "BC7 Format" and the ARB_texture_compression_bptc extension): a
/// 16-byte block holds one of eight modes, each splitting the 4 × 4 texels into one to three
/// subsets that interpolate between their own two endpoints.
///
/// The encoder fits every subset a line (the principal axis of its texels, then least squares on
/// the indices), quantizes its endpoints to the mode's bits with the p-bits nearest, picks each
/// texel's nearest palette entry, and keeps the mode, partition, rotation and index selection
/// with the smallest squared RGBA error. Partitions are ranked by how well their subsets match a
/// 2- or 3-means clustering of the block's texels; only the best few are fitted.
enum BC7 {
    typealias V16 = SIMD16<Int32>
    typealias F16 = SIMD16<Float>

    /// Table.M: subsets, partition bits, rotation bits, index selection bit, color bits, alpha
    /// bits, p-bits (per endpoint or shared per subset), index bits and secondary index bits.
    struct Mode {
        let subsets: Int
        let partitionBits: Int
        let rotationBits: Int
        let selectionBits: Int
        let colorBits: Int
        let alphaBits: Int
        let endpointP: Bool
        let sharedP: Bool
        let indexBits: Int
        let index2Bits: Int
    }

    static let modes: [Mode] = [
        Mode(
            subsets: 3, partitionBits: 4, rotationBits: 0, selectionBits: 0, colorBits: 4, alphaBits: 0,
            endpointP: true, sharedP: false, indexBits: 3, index2Bits: 0),
        Mode(
            subsets: 2, partitionBits: 6, rotationBits: 0, selectionBits: 0, colorBits: 6, alphaBits: 0,
            endpointP: false, sharedP: true, indexBits: 3, index2Bits: 0),
        Mode(
            subsets: 3, partitionBits: 6, rotationBits: 0, selectionBits: 0, colorBits: 5, alphaBits: 0,
            endpointP: false, sharedP: false, indexBits: 2, index2Bits: 0),
        Mode(
            subsets: 2, partitionBits: 6, rotationBits: 0, selectionBits: 0, colorBits: 7, alphaBits: 0,
            endpointP: true, sharedP: false, indexBits: 2, index2Bits: 0),
        Mode(
            subsets: 1, partitionBits: 0, rotationBits: 2, selectionBits: 1, colorBits: 5, alphaBits: 6,
            endpointP: false, sharedP: false, indexBits: 2, index2Bits: 3),
        Mode(
            subsets: 1, partitionBits: 0, rotationBits: 2, selectionBits: 0, colorBits: 7, alphaBits: 8,
            endpointP: false, sharedP: false, indexBits: 2, index2Bits: 2),
        Mode(
            subsets: 1, partitionBits: 0, rotationBits: 0, selectionBits: 0, colorBits: 7, alphaBits: 7,
            endpointP: true, sharedP: false, indexBits: 4, index2Bits: 0),
        Mode(
            subsets: 2, partitionBits: 6, rotationBits: 0, selectionBits: 0, colorBits: 5, alphaBits: 5,
            endpointP: true, sharedP: false, indexBits: 2, index2Bits: 0),
    ]

    /// The 6-bit interpolation factors of 2-, 3- and 4-bit indices (index bits − 2).
    static let weights: [[Int32]] = [
        [0, 21, 43, 64],
        [0, 9, 18, 27, 37, 46, 55, 64],
        [0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64],
    ]

    /// Table.P2: bit i is the subset of texel i (x-major), one row per 2-subset partition.
    static let partitions2: [UInt16] = [
        0xCCCC, 0x8888, 0xEEEE, 0xECC8, 0xC880, 0xFEEC, 0xFEC8, 0xEC80,
        0xC800, 0xFFEC, 0xFE80, 0xE800, 0xFFE8, 0xFF00, 0xFFF0, 0xF000,
        0xF710, 0x008E, 0x7100, 0x08CE, 0x008C, 0x7310, 0x3100, 0x8CCE,
        0x088C, 0x3110, 0x6666, 0x366C, 0x17E8, 0x0FF0, 0x718E, 0x399C,
        0xAAAA, 0xF0F0, 0x5A5A, 0x33CC, 0x3C3C, 0x55AA, 0x9696, 0xA55A,
        0x73CE, 0x13C8, 0x324C, 0x3BDC, 0x6996, 0xC33C, 0x9966, 0x0660,
        0x0272, 0x04E4, 0x4E40, 0x2720, 0xC936, 0x936C, 0x39C6, 0x639C,
        0x9336, 0x9CC6, 0x817E, 0xE718, 0xCCF0, 0x0FCC, 0x7744, 0xEE22,
    ]

    /// Table.P3: bits 2i…2i+1 are the subset of texel i, one row per 3-subset partition.
    static let partitions3: [UInt32] = [
        0xAA685050, 0x6A5A5040, 0x5A5A4200, 0x5450A0A8, 0xA5A50000, 0xA0A05050,
        0x5555A0A0, 0x5A5A5050, 0xAA550000, 0xAA555500, 0xAAAA5500, 0x90909090,
        0x94949494, 0xA4A4A4A4, 0xA9A59450, 0x2A0A4250, 0xA5945040, 0x0A425054,
        0xA5A5A500, 0x55A0A0A0, 0xA8A85454, 0x6A6A4040, 0xA4A45000, 0x1A1A0500,
        0x0050A4A4, 0xAAA59090, 0x14696914, 0x69691400, 0xA08585A0, 0xAA821414,
        0x50A4A450, 0x6A5A0200, 0xA9A58000, 0x5090A0A8, 0xA8A09050, 0x24242424,
        0x00AA5500, 0x24924924, 0x24499224, 0x50A50A50, 0x500AA550, 0xAAAA4444,
        0x66660000, 0xA5A0A5A0, 0x50A050A0, 0x69286928, 0x44AAAA44, 0x66666600,
        0xAA444444, 0x54A854A8, 0x95809580, 0x96969600, 0xA85454A8, 0x80959580,
        0xAA141414, 0x96960000, 0xAAAA1414, 0xA05050A0, 0xA0A5A5A0, 0x96000000,
        0x40804080, 0xA9A8A9A8, 0xAAAAAA44, 0x2A4A5254,
    ]

    /// Table.A2: the second subset's anchor texel of each 2-subset partition (35 is 8, as the
    /// ARB extension gives it).
    static let anchors2: [UInt8] = [
        15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 2, 8, 2, 2, 8, 8, 15, 2, 8, 2, 2, 8, 8, 2, 2,
        15, 15, 6, 8, 2, 8, 15, 15, 2, 8, 2, 2, 2, 15, 15, 6,
        6, 2, 6, 8, 15, 15, 2, 2, 15, 15, 15, 15, 15, 2, 2, 15,
    ]

    /// Table.A3a and Table.A3b: the second and third subsets' anchor texels, 3-subset partitions.
    static let anchors3a: [UInt8] = [
        3, 3, 15, 15, 8, 3, 15, 15, 8, 8, 6, 6, 6, 5, 3, 3,
        3, 3, 8, 15, 3, 3, 6, 10, 5, 8, 8, 6, 8, 5, 15, 15,
        8, 15, 3, 5, 6, 10, 8, 15, 15, 3, 15, 5, 15, 15, 15, 15,
        3, 15, 5, 5, 5, 8, 5, 10, 5, 10, 8, 13, 15, 12, 3, 3,
    ]
    static let anchors3b: [UInt8] = [
        15, 8, 8, 3, 15, 15, 3, 8, 15, 15, 15, 15, 15, 15, 15, 8,
        15, 8, 15, 3, 15, 8, 15, 8, 3, 15, 6, 10, 15, 15, 10, 8,
        15, 3, 15, 10, 10, 8, 9, 10, 6, 15, 8, 15, 3, 6, 6, 8,
        15, 3, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 3, 15, 15, 8,
    ]

    /// Each partition's subset per texel, as lanes.
    static let subsets2: [V16] = partitions2.map { p in
        var v = V16()
        for i in 0..<16 { v[i] = Int32((p >> i) & 1) }
        return v
    }
    static let subsets3: [V16] = partitions3.map { p in
        var v = V16()
        for i in 0..<16 { v[i] = Int32((p >> (2 * i)) & 3) }
        return v
    }

    /// Each 3-subset partition's subsets as one 16-bit texel mask each.
    static let subsetMasks3: [SIMD4<UInt16>] = partitions3.map { p in
        var sets = SIMD4<UInt16>()
        for i in 0..<16 { sets[Int((p >> (2 * UInt32(i))) & 3)] |= 1 << UInt16(i) }
        return sets
    }

    /// The subset of each texel for `partition` of a mode with `subsets` subsets.
    @inline(__always) static func subsetLanes(_ subsets: Int, _ partition: Int) -> V16 {
        subsets == 1 ? V16() : subsets == 2 ? subsets2[partition] : subsets3[partition]
    }

    /// The anchor texel of `subset` (its index is stored with one bit less, its top bit zero).
    @inline(__always) static func anchor(_ subsets: Int, _ partition: Int, _ subset: Int) -> Int {
        if subset == 0 { return 0 }
        if subsets == 2 { return Int(anchors2[partition]) }
        return Int(subset == 1 ? anchors3a[partition] : anchors3b[partition])
    }

    /// An n-bit endpoint value widened to 8 bits by repeating its top bits below it.
    @inline(__always) static func expand(_ v: Int32, _ n: Int) -> Int32 {
        n >= 8 ? v : (v << (8 - n)) | (v >> (2 * n - 8))
    }

    // MARK: Decoding

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

// MARK: Encoding

/// Lane operations written as plain vector instructions: the standard library's comparisons
/// (`.==`, `.<`), `replacing(with:where:)`, `min()`, `max()`, `sum()` and `clamped` go lane by
/// lane here. A mask is a SIMD16<Int32> of −1 (set) and 0.
extension SIMD16<Float> {
    typealias Quarters = (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)

    /// `other` where `mask` is set, else self.
    @inline(__always) func choosing(_ other: SIMD16<Float>, where m: SIMD16<Int32>) -> SIMD16<Float> {
        let a = unsafeBitCast(self, to: SIMD16<Int32>.self)
        let b = unsafeBitCast(other, to: SIMD16<Int32>.self)
        return unsafeBitCast((a & ~m) | (b & m), to: SIMD16<Float>.self)
    }

    /// 1 where `mask` is set, else 0.
    @inline(__always) static func ones(_ m: SIMD16<Int32>) -> SIMD16<Float> {
        unsafeBitCast(m & 0x3F80_0000, to: SIMD16<Float>.self)
    }

    /// Set where self < other (by the sign of the difference; no NaNs here).
    @inline(__always) func below(_ other: SIMD16<Float>) -> SIMD16<Int32> {
        unsafeBitCast(self - other, to: SIMD16<Int32>.self) &>> 31
    }

    @inline(__always) var total: Float {
        let q = unsafeBitCast(self, to: Quarters.self)
        let s = (q.0 + q.1) + (q.2 + q.3)
        return (s[0] + s[1]) + (s[2] + s[3])
    }

    @inline(__always) var least: Float {
        let q = unsafeBitCast(self, to: Quarters.self)
        let a = q.0.choosing4(q.1, q.1.below4(q.0))
        let b = q.2.choosing4(q.3, q.3.below4(q.2))
        let m = a.choosing4(b, b.below4(a))
        return Swift.min(Swift.min(m[0], m[1]), Swift.min(m[2], m[3]))
    }

    @inline(__always) var greatest: Float {
        let q = unsafeBitCast(self, to: Quarters.self)
        let a = q.0.choosing4(q.1, q.0.below4(q.1))
        let b = q.2.choosing4(q.3, q.2.below4(q.3))
        let m = a.choosing4(b, a.below4(b))
        return Swift.max(Swift.max(m[0], m[1]), Swift.max(m[2], m[3]))
    }
}

extension SIMD4<Float> {
    @inline(__always) var total: Float { (self[0] + self[1]) + (self[2] + self[3]) }

    @inline(__always) func below4(_ other: SIMD4<Float>) -> SIMD4<Int32> {
        unsafeBitCast(self - other, to: SIMD4<Int32>.self) &>> 31
    }

    @inline(__always) func choosing4(_ other: SIMD4<Float>, _ m: SIMD4<Int32>) -> SIMD4<Float> {
        let a = unsafeBitCast(self, to: SIMD4<Int32>.self)
        let b = unsafeBitCast(other, to: SIMD4<Int32>.self)
        return unsafeBitCast((a & ~m) | (b & m), to: SIMD4<Float>.self)
    }
}

extension SIMD16<Int32> {
    @inline(__always) func choosing(_ other: SIMD16<Int32>, where m: SIMD16<Int32>) -> SIMD16<Int32> {
        (self & ~m) | (other & m)
    }

    /// Set where a lane equals `v`; lanes and `v` are small non-negative numbers.
    @inline(__always) func equals(_ v: Int32) -> SIMD16<Int32> {
        ((self ^ SIMD16(repeating: v)) &- 1) &>> 31
    }

    /// Set where self < other (no overflow: values well inside Int32).
    @inline(__always) func below(_ other: SIMD16<Int32>) -> SIMD16<Int32> { (self &- other) &>> 31 }
}

extension BC7 {
    /// A block's texels, channel by channel, as integers and as floats.
    struct Block {
        var x: (V16, V16, V16, V16)
        var f: (F16, F16, F16, F16)
        /// Each channel's weight in the error: alpha counts `alphaWeight`, wherever a rotation puts it.
        var weights = SIMD4<Float>(1, 1, 1, BC7.alphaWeight)

        init(_ r: V16, _ g: V16, _ b: V16, _ a: V16) {
            x = (r, g, b, a)
            f = (BC7.float(r), BC7.float(g), BC7.float(b), BC7.float(a))
        }

        @inline(__always) func int(_ c: Int) -> V16 { c == 0 ? x.0 : c == 1 ? x.1 : c == 2 ? x.2 : x.3 }
        @inline(__always) func float(_ c: Int) -> F16 { c == 0 ? f.0 : c == 1 ? f.1 : c == 2 ? f.2 : f.3 }

        /// The block with alpha and channel `rotation − 1` swapped (modes 4 and 5).
        func rotated(_ rotation: Int) -> Block {
            if rotation == 0 { return self }
            var b =
                switch rotation {
                case 1: Block(x.3, x.1, x.2, x.0)
                case 2: Block(x.0, x.3, x.2, x.1)
                default: Block(x.0, x.1, x.3, x.2)
                }
            b.weights = weights
            (b.weights[rotation - 1], b.weights[3]) = (weights[3], weights[rotation - 1])
            return b
        }
    }

    /// How endpoints are stored: bits per channel before any p-bit, and the kind of p-bit.
    struct Quantizer {
        let bits: Int
        let endpointP: Bool
        let sharedP: Bool
        var total: Int { bits + (endpointP || sharedP ? 1 : 0) }
    }

    /// Unquantized endpoints of up to three subsets (lanes: the fitted channels).
    struct Ends {
        var a = (SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>())
        var b = (SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>())
        /// Subsets of one color (bit s), stored as `SolidTable` gives them: quantized ends and p-bits.
        var solid = 0
        var solidEnds = (Solid(), Solid(), Solid())
        @inline(__always) func solidEnd(_ s: Int) -> Solid {
            s == 0 ? solidEnds.0 : s == 1 ? solidEnds.1 : solidEnds.2
        }
        @inline(__always) mutating func set(_ s: Int, _ x: SIMD4<Float>, _ y: SIMD4<Float>) {
            switch s {
            case 0: (a.0, b.0) = (x, y)
            case 1: (a.1, b.1) = (x, y)
            default: (a.2, b.2) = (x, y)
            }
        }
        @inline(__always) func get(_ s: Int) -> (SIMD4<Float>, SIMD4<Float>) {
            s == 0 ? (a.0, b.0) : s == 1 ? (a.1, b.1) : (a.2, b.2)
        }
    }

    /// A one-color subset's stored ends.
    struct Solid {
        var q0 = SIMD4<Int32>()
        var q1 = SIMD4<Int32>()
        var p0: Int32 = 0
        var p1: Int32 = 0
    }

    /// For one way of storing endpoints and one index size: for each p-bit choice, index k and
    /// 8-bit value v, the stored pair whose palette entry k decodes nearest v (exactly where any
    /// pair does), closest ends first. A subset of one color takes, across its channels, the p-bits
    /// and index whose summed error is least: BC7's modes hold most single colors exactly this way
    /// and few of them as a line's ends.
    struct SolidTable {
        let pairs: [(Int32, Int32)]
        let steps: Int
        /// (pair · steps + k) · 256 + v → x0 | x1 << 8 | squared error << 16.
        let entries: [Int32]

        init(_ q: Quantizer, indexBits: Int) {
            let hasP = q.endpointP || q.sharedP
            pairs = q.endpointP ? [(0, 0), (0, 1), (1, 0), (1, 1)] : q.sharedP ? [(0, 0), (1, 1)] : [(0, 0)]
            steps = 1 << indexBits
            let n = q.total
            let top = Int32(1 << q.bits)
            let weights = BC7.weights[indexBits - 2]
            var entries = [Int32](repeating: 0, count: pairs.count * steps * 256)
            for (pi, (p0, p1)) in pairs.enumerated() {
                for k in 0..<steps {
                    var cost = [Int32](repeating: Int32.max, count: 256)
                    var found = [Int32](repeating: -1, count: 256)
                    for x0 in 0..<top {
                        let e0 = BC7.expand(hasP ? x0 << 1 | p0 : x0, n)
                        for x1 in 0..<top {
                            let e1 = BC7.expand(hasP ? x1 << 1 | p1 : x1, n)
                            let v = Int(e0 + ((weights[k] * (e1 - e0) + 32) >> 6))
                            let c = abs(x0 - x1)
                            if c < cost[v] { (cost[v], found[v]) = (c, x0 | x1 << 8) }
                        }
                    }
                    // Values no pair gives take the nearest that one does (below first on a tie).
                    var below = [Int](repeating: -1, count: 256)
                    var last = -1
                    for v in 0..<256 {
                        if found[v] >= 0 { last = v }
                        below[v] = last
                    }
                    var above = -1
                    for v in (0..<256).reversed() {
                        if found[v] >= 0 { above = v }
                        let b = below[v]
                        let u = b < 0 ? above : above < 0 || v - b <= above - v ? b : above
                        entries[(pi * steps + k) * 256 + v] = found[u] | Int32((u - v) * (u - v)) << 16
                    }
                }
            }
            self.entries = entries
        }

        /// The stored ends for one color (channels `0 ..< count` of `color`).
        func ends(for color: SIMD4<Float>, count: Int) -> Solid {
            var v = SIMD4<Int>()
            for c in 0..<count { v[c] = Int(color[c] + 0.5) }
            var best = (Int32.max, 0, 0)
            for pi in 0..<pairs.count {
                for k in 0..<steps {
                    var e: Int32 = 0
                    for c in 0..<count { e += entries[(pi * steps + k) * 256 + v[c]] >> 16 }
                    if e < best.0 { best = (e, pi, k) }
                }
            }
            var solid = Solid(p0: pairs[best.1].0, p1: pairs[best.1].1)
            for c in 0..<count {
                let x = entries[(best.1 * steps + best.2) * 256 + v[c]]
                solid.q0[c] = x & 255
                solid.q1[c] = (x >> 8) & 255
            }
            return solid
        }
    }

    @inline(__always) static func solidKey(_ q: Quantizer, _ indexBits: Int) -> Int {
        q.bits * 100 + (q.endpointP ? 10 : q.sharedP ? 20 : 0) + indexBits
    }

    /// Every endpoint storage and index size the modes use.
    static let solidTables: [Int: SolidTable] = {
        var tables: [Int: SolidTable] = [:]
        for m in modes {
            let color = Quantizer(bits: m.colorBits, endpointP: m.endpointP, sharedP: m.sharedP)
            let alpha = Quantizer(bits: m.alphaBits, endpointP: false, sharedP: false)
            var uses = [(color, m.indexBits)]
            if m.index2Bits > 0 { uses += [(color, m.index2Bits), (alpha, m.indexBits), (alpha, m.index2Bits)] }
            for (q, bits) in uses where tables[solidKey(q, bits)] == nil {
                tables[solidKey(q, bits)] = SolidTable(q, indexBits: bits)
            }
        }
        return tables
    }()

    /// One index set's result: each subset's quantized ends (before p-bits; lanes: the fitted
    /// channels), p-bits (lane s * 2 + e), indices and the weighted squared error over the fitted
    /// channels.
    struct Lines {
        var q0 = (SIMD4<Int32>(), SIMD4<Int32>(), SIMD4<Int32>())
        var q1 = (SIMD4<Int32>(), SIMD4<Int32>(), SIMD4<Int32>())

        /// Endpoint `e` (0 or 1) of subset `s`.
        func end(_ e: Int, _ s: Int) -> SIMD4<Int32> {
            let q = e == 0 ? q0 : q1
            return s == 0 ? q.0 : s == 1 ? q.1 : q.2
        }

        mutating func swapEnds(_ s: Int) {
            switch s {
            case 0: (q0.0, q1.0) = (q1.0, q0.0)
            case 1: (q0.1, q1.1) = (q1.1, q0.1)
            default: (q0.2, q1.2) = (q1.2, q0.2)
            }
            (p[s * 2], p[s * 2 + 1]) = (p[s * 2 + 1], p[s * 2])
        }
        var p = SIMD8<Int32>()
        var indices = V16()
        var error = Int32.max
    }

    /// Fits one index set: for each of `subsets` subsets (the texels whose lane in `lanes` is the
    /// subset), a line through channels `first ..< first + count` along their principal axis, then
    /// `refine` rounds of least squares on the indices while the error falls.
    static func fit(
        _ block: Block, first: Int, count: Int, subsets: Int, lanes: V16, quantizer: Quantizer,
        indexBits: Int, refine: Int, exhaustive: Bool = false, start: Ends? = nil
    ) -> Lines {
        var ends = start ?? lines(block, first: first, count: count, subsets: subsets, lanes: lanes)
        for s in 0..<subsets where ends.solid & (1 << s) != 0 {
            let solid = solidTables[solidKey(quantizer, indexBits)]!.ends(for: ends.get(s).0, count: count)
            switch s {
            case 0: ends.solidEnds.0 = solid
            case 1: ends.solidEnds.1 = solid
            default: ends.solidEnds.2 = solid
            }
        }
        var best = Lines()
        evaluate(
            block, first: first, count: count, subsets: subsets, lanes: lanes, ends: ends,
            quantizer: quantizer, indexBits: indexBits, exhaustive: exhaustive, into: &best)
        if exhaustive && best.error > 0 {
            // Also the texels at the ends of each projection: exact where they are a mode's ends.
            var extremes = ends
            for s in 0..<subsets where ends.solid & (1 << s) == 0 {
                let (a, b) = principalLine(
                    block, first: first, count: count, member: lanes.equals(Int32(s)), extremes: true)
                extremes.set(s, a, b)
            }
            let before = best.error
            evaluate(
                block, first: first, count: count, subsets: subsets, lanes: lanes, ends: extremes,
                quantizer: quantizer, indexBits: indexBits, exhaustive: exhaustive, into: &best)
            if best.error < before { ends = extremes }
        }
        for _ in 0..<refine {
            if best.error == 0 { break }
            var next = Ends()
            for s in 0..<subsets {
                let fitted = leastSquares(
                    block, first: first, count: count, member: lanes.equals(Int32(s)), indices: best.indices,
                    indexBits: indexBits)
                let (a, b) = fitted ?? ends.get(s)
                next.set(s, a, b)
            }
            (next.solid, next.solidEnds) = (ends.solid, ends.solidEnds)
            let before = best.error
            evaluate(
                block, first: first, count: count, subsets: subsets, lanes: lanes, ends: next,
                quantizer: quantizer, indexBits: indexBits, exhaustive: exhaustive, into: &best)
            if best.error >= before { break }
            ends = next
        }
        return best
    }

    /// Each subset's principal line (a subset of one color marked `solid`): shared by the modes
    /// that fit the same subsets with different bits.
    static func lines(_ block: Block, first: Int, count: Int, subsets: Int, lanes: V16) -> Ends {
        var ends = Ends()
        for s in 0..<subsets {
            let (a, b) = principalLine(block, first: first, count: count, member: lanes.equals(Int32(s)))
            ends.set(s, a, b)
            if a == b { ends.solid |= 1 << s }
        }
        return ends
    }

    /// The ends of the segment through the member texels' mean along their principal axis
    /// (power iteration on the covariance), covering every member's projection.
    static func principalLine(
        _ block: Block, first: Int, count: Int, member: V16, extremes: Bool = false
    ) -> (SIMD4<Float>, SIMD4<Float>) {
        let w = F16.ones(member)
        let n = w.total
        var mean = SIMD4<Float>()
        var d = (F16(), F16(), F16(), F16())
        for c in 0..<count {
            let x = block.float(first + c)
            let m = (x * w).total / n
            mean[c] = m
            // Weighted channels: the line is fitted to √weight·x, then scaled back.
            let v = (x - F16(repeating: m)) * (w * block.weights[first + c].squareRoot())
            switch c {
            case 0: d.0 = v
            case 1: d.1 = v
            case 2: d.2 = v
            default: d.3 = v
            }
        }
        if count == 1 {
            let x = block.float(first)
            let lo = F16(repeating: 1e9).choosing(x, where: member).least
            let hi = F16(repeating: -1e9).choosing(x, where: member).greatest
            return (SIMD4<Float>(lo, 0, 0, 0), SIMD4<Float>(hi, 0, 0, 0))
        }
        // Covariance rows (symmetric, unused channels zero).
        var r0 = SIMD4<Float>()
        var r1 = SIMD4<Float>()
        var r2 = SIMD4<Float>()
        var r3 = SIMD4<Float>()
        r0[0] = (d.0 * d.0).total
        r0[1] = (d.0 * d.1).total
        r0[2] = (d.0 * d.2).total
        r1[1] = (d.1 * d.1).total
        r1[2] = (d.1 * d.2).total
        r2[2] = (d.2 * d.2).total
        if count == 4 {
            r0[3] = (d.0 * d.3).total
            r1[3] = (d.1 * d.3).total
            r2[3] = (d.2 * d.3).total
            r3[3] = (d.3 * d.3).total
        }
        (r1[0], r2[0], r2[1]) = (r0[1], r0[2], r1[2])
        (r3[0], r3[1], r3[2]) = (r0[3], r1[3], r2[3])
        // Start from the channel with the largest variance, signed by its covariances.
        let diagonal = SIMD4<Float>(r0[0], r1[1], r2[2], r3[3])
        let top = diagonal.max()
        var axis = top == diagonal[0] ? r0 : top == diagonal[1] ? r1 : top == diagonal[2] ? r2 : r3
        if top <= 0 { return (mean, mean) }
        // Steps normalised by the largest variance only (no square root): each multiplies the
        // axis by at most 4, so four stay far inside Float's range.
        axis /= top
        for _ in 0..<4 {
            var next: SIMD4<Float> = r0 * axis[0]
            next += r1 * axis[1]
            next += r2 * axis[2]
            next += r3 * axis[3]
            axis = next / top
        }
        let length = (axis * axis).total.squareRoot()
        if length < 1e-12 { return (mean, mean) }
        axis /= length
        var projection: F16 = d.0 * axis[0]
        projection += d.1 * axis[1]
        projection += d.2 * axis[2]
        projection += d.3 * axis[3]
        let lo = F16(repeating: 1e9).choosing(projection, where: member).least
        let hi = F16(repeating: -1e9).choosing(projection, where: member).greatest
        if extremes {
            // The member texels themselves at both ends of the projection.
            var a = SIMD4<Float>()
            var b = SIMD4<Float>()
            for i in 0..<16 where member[i] != 0 {
                let x = SIMD4<Float>(block.f.0[i], block.f.1[i], block.f.2[i], block.f.3[i])
                var v = SIMD4<Float>()
                for c in 0..<count { v[c] = x[first + c] }
                if projection[i] == lo { a = v }
                if projection[i] == hi { b = v }
            }
            return (a, b)
        }
        var unscale = SIMD4<Float>(repeating: 1)
        for c in 0..<count { unscale[c] = 1 / block.weights[first + c].squareRoot() }
        return (mean + axis * unscale * lo, mean + axis * unscale * hi)
    }

    /// Endpoints minimising the squared error of the member texels for these indices (weights
    /// w/64), per channel; nil when every member has the same weight.
    static func leastSquares(
        _ block: Block, first: Int, count: Int, member: V16, indices: V16,
        indexBits: Int
    ) -> (SIMD4<Float>, SIMD4<Float>)? {
        // Weight round(64·k / steps), as the table has it, over 64.
        let steps = Float((1 << indexBits) - 1)
        let t = round(float(indices) * (64 / steps)) * (1.0 / 64)
        let w = F16.ones(member)
        let one = F16(repeating: 1)
        let s = one - t
        let u: F16 = s * w
        let v: F16 = t * w
        let aa = (u * s).total
        let ab = (u * t).total
        let bb = (v * t).total
        let det = aa * bb - ab * ab
        if abs(det) < 1e-6 { return nil }
        var a = SIMD4<Float>()
        var b = SIMD4<Float>()
        for c in 0..<count {
            let x = block.float(first + c)
            let ax = (u * x).total
            let bx = (v * x).total
            a[c] = (ax * bb - bx * ab) / det
            b[c] = (bx * aa - ax * ab) / det
        }
        return (a, b)
    }

    /// Both ends quantized with each p-bit at once, lanes (a, p 0), (a, p 1), (b, p 0), (b, p 1)
    /// four channels each: the stored values before the p-bit, the 8-bit values they decode to,
    /// and each quarter's squared difference over the first `count` channels.
    @inline(__always) static func quantize(
        _ a: SIMD4<Float>, _ b: SIMD4<Float>, _ q: Quantizer, count: Int, weights: SIMD4<Float>
    ) -> (V16, V16, SIMD4<Float>) {
        let n = q.total
        let hasP = q.endpointP || q.sharedP
        let value = unsafeBitCast((a, a, b, b), to: F16.self)
        var v = value.choosing(F16(), where: value.below(F16()))
        v = v.choosing(F16(repeating: 255), where: F16(repeating: 255).below(v))
        var scaled = v * (Float((1 << n) - 1) / 255)
        let p = F16(0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1)
        if hasP { scaled = (scaled - p) * 0.5 }
        let limit = F16(repeating: Float((1 << q.bits) - 1))
        var k = round(scaled)
        k = k.choosing(F16(), where: k.below(F16()))
        k = k.choosing(limit, where: limit.below(k))
        let x = unsafeBitCast(k + 12_582_912, to: V16.self) &- 0x4B40_0000
        let full = hasP ? x &<< 1 | V16(0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1) : x
        let e = n >= 8 ? full : (full &<< Int32(8 - n)) | (full &>> Int32(2 * n - 8))
        let diff = float(e) - v
        let used = SIMD4<Float>(1, count > 1 ? 1 : 0, count > 2 ? 1 : 0, count > 3 ? 1 : 0) * weights
        let d = unsafeBitCast(diff * diff, to: F16.Quarters.self)
        let err = SIMD4<Float>((d.0 * used).total, (d.1 * used).total, (d.2 * used).total, (d.3 * used).total)
        return (x, e, err)
    }

    /// Lanes 4·i ..< 4·i + 4.
    @inline(__always) static func quarter(_ v: V16, _ i: Int) -> SIMD4<Int32> {
        let q = unsafeBitCast(v, to: (SIMD4<Int32>, SIMD4<Int32>, SIMD4<Int32>, SIMD4<Int32>).self)
        return i == 0 ? q.0 : i == 1 ? q.1 : i == 2 ? q.2 : q.3
    }

    /// Quantizes every subset's endpoints (p-bits chosen nearest), picks each texel's nearest
    /// palette entry, and keeps the result in `best` when its error is smaller.
    static func evaluate(
        _ block: Block, first: Int, count: Int, subsets: Int, lanes: V16, ends: Ends, quantizer: Quantizer,
        indexBits: Int, exhaustive: Bool, into best: inout Lines
    ) {
        var out = Lines()
        var f0 = (SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>())
        var f1 = (SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>())
        for s in 0..<subsets {
            let (a, b) = ends.get(s)
            var qa: (SIMD4<Int32>, SIMD4<Int32>, Float)
            var qb: (SIMD4<Int32>, SIMD4<Int32>, Float)
            var pa: Int32 = 0
            var pb: Int32 = 0
            if ends.solid & (1 << s) != 0 {
                let e = ends.solidEnd(s)
                let n = quantizer.total
                let hasP = quantizer.endpointP || quantizer.sharedP
                func decoded(_ x: SIMD4<Int32>, _ p: Int32) -> SIMD4<Int32> {
                    let full = hasP ? x &<< 1 | SIMD4(repeating: p) : x
                    return n >= 8 ? full : (full &<< Int32(8 - n)) | (full &>> Int32(2 * n - 8))
                }
                (qa, qb, pa, pb) = ((e.q0, decoded(e.q0, e.p0), 0), (e.q1, decoded(e.q1, e.p1), 0), e.p0, e.p1)
            } else {
                var weights = SIMD4<Float>(repeating: 1)
                for c in 0..<count { weights[c] = block.weights[first + c] }
                let (x, e, err) = quantize(a, b, quantizer, count: count, weights: weights)
                // Per endpoint, per subset (shared) or none: the p-bits nearest the line's ends.
                let pick =
                    quantizer.endpointP
                    ? (err[1] < err[0] ? 1 : 0, err[3] < err[2] ? 3 : 2)
                    : quantizer.sharedP ? (err[1] + err[3] < err[0] + err[2] ? (1, 3) : (0, 2)) : (0, 2)
                qa = (quarter(x, pick.0), quarter(e, pick.0), 0)
                qb = (quarter(x, pick.1), quarter(e, pick.1), 0)
                (pa, pb) = (Int32(pick.0 & 1), Int32(pick.1 & 1))
            }
            let (x0, x1) = (float4(qa.1), float4(qb.1))
            switch s {
            case 0: (out.q0.0, out.q1.0, f0.0, f1.0) = (qa.0, qb.0, x0, x1)
            case 1: (out.q0.1, out.q1.1, f0.1, f1.1) = (qa.0, qb.0, x0, x1)
            default: (out.q0.2, out.q1.2, f0.2, f1.2) = (qa.0, qb.0, x0, x1)
            }
            out.p[s * 2] = pa
            out.p[s * 2 + 1] = pb
        }
        // Per texel: its subset's decoded endpoints, blended by 0/1 lane weights (exact in floats).
        let m1 = F16.ones(lanes.equals(1))
        let m2 = F16.ones(lanes.equals(2))
        let steps = Float((1 << indexBits) - 1)
        var dot = F16()
        var length = F16()
        var e0 = (F16(), F16(), F16(), F16())
        var d = (F16(), F16(), F16(), F16())
        for c in 0..<count {
            var a = F16(repeating: f0.0[c])
            var b = F16(repeating: f1.0[c])
            if subsets > 1 {
                a += m1 * (f0.1[c] - f0.0[c])
                b += m1 * (f1.1[c] - f1.0[c])
            }
            if subsets > 2 {
                a += m2 * (f0.2[c] - f0.0[c])
                b += m2 * (f1.2[c] - f1.0[c])
            }
            let delta = b - a
            let x = block.float(first + c) - a
            let weighted = delta * block.weights[first + c]
            dot += x * weighted
            length += delta * weighted
            switch c {
            case 0: (e0.0, d.0) = (a, delta)
            case 1: (e0.1, d.1) = (a, delta)
            case 2: (e0.2, d.2) = (a, delta)
            default: (e0.3, d.3) = (a, delta)
            }
        }
        // The index nearest the texel's projection on its line, then its exact palette value:
        // e0 + ⌊(w·(e1 − e0) + 32) / 64⌋ with w = round(64·k / steps).
        var t = dot / (length + 1e-9) * steps
        t = t.choosing(F16(), where: t.below(F16()))
        t = t.choosing(F16(repeating: steps), where: F16(repeating: steps).below(t))
        var k = round(t)
        /// Each texel's squared error at index `k` (lanes).
        @inline(__always) func error(_ k: F16) -> F16 {
            let w = round(k * (64 / steps))
            var err = F16()
            for c in 0..<count {
                let (a, delta) = c == 0 ? (e0.0, d.0) : c == 1 ? (e0.1, d.1) : c == 2 ? (e0.2, d.2) : (e0.3, d.3)
                let y = (w * delta + 32) * (1.0 / 64) - (0.5 - 1.0 / 128)
                let r = block.float(first + c) - (a + round(y))
                err += r * r * block.weights[first + c]
            }
            return err
        }
        var err = error(k)
        if exhaustive {
            // Every entry, keeping each texel's nearest (the palette is only nearly a line).
            for j in 0..<Int(steps) + 1 {
                let kj = F16(repeating: Float(j))
                let e = error(kj)
                let closer = e.below(err)
                err = err.choosing(e, where: closer)
                k = k.choosing(kj, where: closer)
            }
        }
        let indices = unsafeBitCast(k + 12_582_912, to: V16.self) &- 0x4B40_0000
        let total = err.total
        out.indices = indices
        out.error = Int32(total)
        if out.error < best.error { best = out }
    }

    /// Rounding to the nearest integer (ties to even) for |v| < 2²²: adding 1.5·2²³ leaves the
    /// integer in the low mantissa bits.
    @inline(__always) static func round(_ v: F16) -> F16 { (v + 12_582_912) - 12_582_912 }

    @inline(__always) static func float4(_ v: SIMD4<Int32>) -> SIMD4<Float> {
        unsafeBitCast(v | 0x4B00_0000, to: SIMD4<Float>.self) - 8_388_608
    }

    /// Small non-negative integers (< 2²³) as floats: placed in the mantissa of 2²³.
    @inline(__always) static func float(_ v: V16) -> F16 {
        unsafeBitCast(v | 0x4B00_0000, to: F16.self) - 8_388_608
    }
}

extension BC7 {
    /// The best encoding found so far for a block.
    struct Choice {
        var error = Int32.max
        var mode = 6
        var partition = 0
        var rotation = 0
        var selection = 0
        /// The joint RGB(A) lines, or modes 4 and 5's color lines.
        var color = Lines()
        /// Modes 4 and 5's alpha line (channel 3 of the rotated block).
        var alpha = Lines()
    }

    /// How hard to search, per effort.
    struct Search {
        /// Two-subset partitions fitted per mode (1, 3, 7), three-subset ones (0, 2; none: those
        /// modes are not tried).
        let partitions2: Int
        let partitions3: Int
        /// Rounds of least squares on the indices, while the error falls.
        let refine: Int
        /// Thorough's extras: partitions ranked by line residual too (and all 64 for mode 2), all
        /// four rotations and both index selections of modes 4 and 5 (also on opaque blocks), line
        /// ends at texels, and every palette entry tried per texel.
        let exhaustive: Bool
        /// A block whose mode 6 error is at most this (squared, summed) tries nothing else.
        let enough: Int32

        static func of(_ quality: TextureSettings.Quality) -> Search {
            switch quality {
            case .fast:
                Search(
                    partitions2: 1, partitions3: 0, refine: 1, exhaustive: false, enough: 16 * 3 * 4
                )
            case .medium:
                Search(partitions2: 2, partitions3: 1, refine: 1, exhaustive: false, enough: 16 * 3)
            case .thorough:
                Search(partitions2: 12, partitions3: 8, refine: 4, exhaustive: true, enough: 0)
            }
        }
    }

    /// Fits mode `mode` (0, 1, 2, 3, 6 or 7: one index set for every channel) with `partition`.
    static func tryJoint(
        _ block: Block, mode: Int, partition: Int, search: Search, start: Ends? = nil,
        into best: inout Choice
    ) {
        let m = modes[mode]
        let count = m.alphaBits > 0 ? 4 : 3
        let q = Quantizer(bits: m.colorBits, endpointP: m.endpointP, sharedP: m.sharedP)
        let lines = fit(
            block, first: 0, count: count, subsets: m.subsets, lanes: subsetLanes(m.subsets, partition),
            quantizer: q, indexBits: m.indexBits, refine: search.refine, exhaustive: search.exhaustive, start: start)
        // Modes 0–3 (alpha 255) are tried on opaque blocks only: their error is the whole error.
        if lines.error < best.error {
            best = Choice(error: lines.error, mode: mode, partition: partition, rotation: 0, selection: 0, color: lines)
        }
    }

    /// Fits mode 4 or 5 (color and alpha on their own index sets) with a rotation and selection.
    static func trySeparate(
        _ block: Block, mode: Int, rotation: Int, selection: Int, search: Search,
        into best: inout Choice
    ) {
        let m = modes[mode]
        let rotated = block.rotated(rotation)
        let (colorIndex, alphaIndex) = selection == 1 ? (m.index2Bits, m.indexBits) : (m.indexBits, m.index2Bits)
        let color = fit(
            rotated, first: 0, count: 3, subsets: 1, lanes: V16(),
            quantizer: Quantizer(bits: m.colorBits, endpointP: false, sharedP: false), indexBits: colorIndex,
            refine: search.refine, exhaustive: search.exhaustive)
        if color.error >= best.error { return }
        let alpha = fit(
            rotated, first: 3, count: 1, subsets: 1, lanes: V16(),
            quantizer: Quantizer(bits: m.alphaBits, endpointP: false, sharedP: false), indexBits: alphaIndex,
            refine: search.refine, exhaustive: search.exhaustive)
        let error = color.error &+ alpha.error
        if error < best.error {
            best = Choice(
                error: error, mode: mode, partition: 0, rotation: rotation, selection: selection, color: color,
                alpha: alpha)
        }
    }

    /// Texels split into two or three clusters (k-means from the ends of the principal line), as
    /// one 16-bit mask per cluster.
    static func clusters(
        _ block: Block, _ k: Int, count: Int, line: (SIMD4<Float>, SIMD4<Float>)? = nil
    ) -> SIMD4<UInt16> {
        let (a, b) = line ?? principalLine(block, first: 0, count: count, member: V16(repeating: -1))
        var centers = (a, b, (a + b) * 0.5)
        var labels = V16()
        for round in 0..<3 {
            var best = F16(repeating: .greatestFiniteMagnitude)
            for j in 0..<k {
                let c = j == 0 ? centers.0 : j == 1 ? centers.1 : centers.2
                var dist = F16()
                for ch in 0..<count {
                    let d = block.float(ch) - F16(repeating: c[ch])
                    dist += d * d
                }
                let closer = dist.below(best)
                best = best.choosing(dist, where: closer)
                labels = labels.choosing(V16(repeating: Int32(j)), where: closer)
            }
            if k == 3 && round == 0 {
                // The third center starts at the texel farthest from the line's ends.
                let far = best.greatest
                for i in 0..<16 where best[i] == far {
                    centers.2 = SIMD4<Float>(block.f.0[i], block.f.1[i], block.f.2[i], block.f.3[i])
                    break
                }
                continue
            }
            if round == 2 { break }
            for j in 0..<k {
                let member = labels.equals(Int32(j))
                let w = F16.ones(member)
                let n = w.total
                if n == 0 { continue }
                let c =
                    SIMD4<Float>(
                        (block.f.0 * w).total, (block.f.1 * w).total, (block.f.2 * w).total, (block.f.3 * w).total) / n
                switch j {
                case 0: centers.0 = c
                case 1: centers.1 = c
                default: centers.2 = c
                }
            }
        }
        var masks = SIMD4<UInt16>()
        for i in 0..<16 { masks[Int(labels[i])] |= 1 << UInt16(i) }
        return masks
    }

    /// The `limit` partitions (of `total`) whose subsets agree best with the clusters, best first
    /// (ties: the lower partition number), packed as agreement << 8 | partition.
    static func rank(_ clusters: SIMD4<UInt16>, subsets: Int, total: Int, limit: Int) -> SIMD16<Int32> {
        var top = SIMD16<Int32>(repeating: -1)
        for p in 0..<total {
            var agree: Int
            if subsets == 2 {
                let d = (partitions2[p] ^ clusters[0]).nonzeroBitCount
                agree = max(d, 16 - d)
            } else {
                let sets = subsetMasks3[p]
                // Texels shared by subset i and cluster j, then the best matching of the two.
                var shared = (SIMD4<Int32>(), SIMD4<Int32>(), SIMD4<Int32>())
                for j in 0..<3 {
                    shared.0[j] = Int32((sets[0] & clusters[j]).nonzeroBitCount)
                    shared.1[j] = Int32((sets[1] & clusters[j]).nonzeroBitCount)
                    shared.2[j] = Int32((sets[2] & clusters[j]).nonzeroBitCount)
                }
                let best = max(
                    max(shared.0[0] + shared.1[1] + shared.2[2], shared.0[0] + shared.1[2] + shared.2[1]),
                    max(shared.0[1] + shared.1[0] + shared.2[2], shared.0[1] + shared.1[2] + shared.2[0]),
                    max(shared.0[2] + shared.1[0] + shared.2[1], shared.0[2] + shared.1[1] + shared.2[0]))
                agree = Int(best)
            }
            // Insertion into the sorted top list (score descending, partition ascending).
            let key = Int32(agree << 8 | (255 - p))
            var at = limit
            while at > 0 && top[at - 1] < key { at -= 1 }
            if at < limit {
                var i = limit - 1
                while i > at {
                    top[i] = top[i - 1]
                    i -= 1
                }
                top[at] = key
            }
        }
        for i in 0..<limit where top[i] >= 0 { top[i] = 255 - (top[i] & 255) }
        return top
    }

    /// For each 8-bit value, the 7-bit endpoint pair whose first interpolated entry (weight
    /// 21/64) decodes to it, or comes nearest: mode 5 holds any one color this way, exactly.
    static let singleColor: [SIMD2<Int32>] = (0..<256).map { v in
        var best = SIMD2<Int32>(0, 0)
        var bestError = Int32.max
        // Ends near v/2 suffice (each 7-bit step is 2 in 8 bits).
        let near = Int32(v / 2)
        for a in max(0, near - 4)...min(127, near + 4) {
            for b in max(0, near - 8)...min(127, near + 8) {
                let (ea, eb) = (expand(a, 7), expand(b, 7))
                let d = ((64 - 21) * ea + 21 * eb + 32) >> 6 - Int32(v)
                let error = d * d * 1024 + abs(a - b)
                if error < bestError { (best, bestError) = (SIMD2(a, b), error) }
            }
        }
        return best
    }

    /// A block of one color as mode 5: each channel from `singleColor` at index 1, alpha exact.
    static func solid(_ block: Block) -> Choice {
        var choice = Choice(error: 0, mode: 5)
        var q0 = SIMD4<Int32>()
        var q1 = SIMD4<Int32>()
        for c in 0..<3 {
            let v = block.int(c)[0]
            let pair = singleColor[Int(v)]
            (q0[c], q1[c]) = (pair[0], pair[1])
            let d = ((64 - 21) * expand(pair[0], 7) + 21 * expand(pair[1], 7) + 32) >> 6 - v
            choice.error += 16 * d * d
        }
        choice.color.q0.0 = q0
        choice.color.q1.0 = q1
        choice.color.indices = V16(repeating: 1)
        let a = block.x.3[0]
        choice.alpha.q0.0 = SIMD4(a, 0, 0, 0)
        choice.alpha.q1.0 = SIMD4(a, 0, 0, 0)
        return choice
    }

    /// The `limit` partitions (of `total`) whose subsets lie closest to lines: the summed squared
    /// distance of each subset's texels from its principal axis (trace of the covariance less its
    /// largest eigenvalue), best first. Thorough's ranking; costlier than `rank`.
    static func rankByLines(_ block: Block, subsets: Int, total: Int, limit: Int, count: Int) -> SIMD16<Int32> {
        // Per texel: x, then the products x_i·x_j, i ≤ j (on the stack: nothing allocated per block).
        withUnsafeTemporaryAllocation(of: F16.self, capacity: 14) { q in
            for c in 0..<count { q[c] = block.float(c) }
            var k = 4
            for i in 0..<count {
                for j in i..<count {
                    q[k] = q[i] * q[j]
                    k += 1
                }
            }
            @inline(__always) func residual(_ w: F16) -> Float {
                let n = w.total
                if n < 2 { return 0 }
                var mean = SIMD4<Float>()
                for c in 0..<count { mean[c] = (q[c] * w).total / n }
                var rows = (SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>())
                var k = 4
                for i in 0..<count {
                    for j in i..<count {
                        let v = (q[k] * w).total - n * mean[i] * mean[j]
                        k += 1
                        switch i {
                        case 0: rows.0[j] = v
                        case 1: rows.1[j] = v
                        case 2: rows.2[j] = v
                        default: rows.3[j] = v
                        }
                    }
                }
                (rows.1[0], rows.2[0], rows.2[1]) = (rows.0[1], rows.0[2], rows.1[2])
                (rows.3[0], rows.3[1], rows.3[2]) = (rows.0[3], rows.1[3], rows.2[3])
                let trace = rows.0[0] + rows.1[1] + rows.2[2] + rows.3[3]
                if trace <= 0 { return 0 }
                var v = SIMD4<Float>(1, 1, 1, 1) / trace
                for _ in 0..<6 {
                    var next = rows.0 * v[0]
                    next += rows.1 * v[1]
                    next += rows.2 * v[2]
                    next += rows.3 * v[3]
                    let length = (next * next).total.squareRoot()
                    if length == 0 { return trace }
                    v = next / length
                }
                var cv = rows.0 * v[0]
                cv += rows.1 * v[1]
                cv += rows.2 * v[2]
                cv += rows.3 * v[3]
                return trace - (cv * v).total
            }
            // The best `limit`, kept sorted (ties: the lower partition).
            var top = SIMD16<Int32>(repeating: -1)
            var scores = SIMD16<Float>(repeating: .greatestFiniteMagnitude)
            for p in 0..<total {
                let lanes = subsetLanes(subsets, p)
                var e: Float = 0
                for s in 0..<subsets { e += residual(F16.ones(lanes.equals(Int32(s)))) }
                var at = limit
                while at > 0 && e < scores[at - 1] { at -= 1 }
                guard at < limit else { continue }
                var i = limit - 1
                while i > at {
                    (top[i], scores[i]) = (top[i - 1], scores[i - 1])
                    i -= 1
                }
                (top[at], scores[at]) = (Int32(p), e)
            }
            return top
        }
    }

    /// Thorough's candidates: half by `rankByLines`, then the rest by `rank` (k-means agreement),
    /// skipping repeats — lines miss blocks of few colors (any two colors lie on a line), clusters
    /// miss blocks of crossing gradients.
    static func rankBoth(_ block: Block, subsets: Int, total: Int, limit: Int, count: Int) -> SIMD16<Int32> {
        var top = rankByLines(block, subsets: subsets, total: total, limit: (limit + 1) / 2, count: count)
        let more = rank(clusters(block, subsets, count: count), subsets: subsets, total: total, limit: limit)
        var n = (limit + 1) / 2
        for i in 0..<limit where n < limit && more[i] >= 0 {
            var seen = false
            for j in 0..<n where top[j] == more[i] { seen = true }
            if !seen {
                top[n] = more[i]
                n += 1
            }
        }
        return top
    }

    /// How much alpha's squared error counts against a color channel's when modes compete.
    /// A quarter, as the references' perceptual weights have it: on the corpus this keeps RGB
    /// within 0.2–0.4 dB of etcpak's on textures with alpha and alpha above its (equal weights
    /// gave alpha +5 dB and RGB −1.5 dB).
    static let alphaWeight: Float = 0.25

    /// Whether the block holds at most two colors: those a partition with one color per subset
    /// stores exactly, however small mode 6's error already is.
    static func twoColors(_ block: Block) -> Bool {
        let (r, g, b, a) = block.x
        @inline(__always) func same(_ i: Int) -> V16 {
            ((r ^ V16(repeating: r[i])) | (g ^ V16(repeating: g[i])) | (b ^ V16(repeating: b[i]))
                | (a ^ V16(repeating: a[i]))).equals(0)
        }
        let first = same(0)
        var other = 0
        while other < 16 && first[other] != 0 { other += 1 }
        if other == 16 { return true }
        return (first | same(other)).wrappedSum() == -16
    }

    /// One block's best encoding within the effort's search.
    static func encodeBlock(_ block: Block, _ search: Search) -> (UInt64, UInt64) {
        let first = SIMD16<Int32>(repeating: block.x.0[0])
        if block.x.0 == first && block.x.1 == V16(repeating: block.x.1[0])
            && block.x.2 == V16(repeating: block.x.2[0]) && block.x.3 == V16(repeating: block.x.3[0])
        {
            return pack(solid(block))
        }
        var best = Choice()
        let opaque = block.x.3.min() == 255
        // An opaque block stays opaque: there alpha outweighs the colors, so mode 6's p-bits keep
        // 255 (7 bits and a p-bit of 0 decode to 254 at most).
        var block = block
        if opaque { block.weights[3] = 16 }
        // The whole block's line: mode 6's start and the clusters' first centers.
        let whole = lines(block, first: 0, count: 4, subsets: 1, lanes: V16())
        tryJoint(block, mode: 6, partition: 0, search: search, start: whole, into: &best)
        if best.error > search.enough || (best.error > 0 && twoColors(block)) {
            if opaque {
                let two =
                    search.exhaustive
                    ? rankBoth(block, subsets: 2, total: 64, limit: search.partitions2, count: 3)
                    : rank(
                        clusters(block, 2, count: 3, line: whole.get(0)), subsets: 2, total: 64,
                        limit: search.partitions2)
                for i in 0..<search.partitions2 where two[i] >= 0 {
                    let p = Int(two[i])
                    let start = lines(block, first: 0, count: 3, subsets: 2, lanes: subsets2[p])
                    tryJoint(block, mode: 1, partition: p, search: search, start: start, into: &best)
                    tryJoint(block, mode: 3, partition: p, search: search, start: start, into: &best)
                }
                if search.partitions3 > 0 && best.error > search.enough {
                    // Mode 0 (4-bit ends, 3-bit indices) has the first 16 partitions; mode 2 all 64.
                    // Medium tries both on the best of the 16, thorough ranks all 64 for mode 2.
                    let c3 = clusters(block, 3, count: 3, line: whole.get(0))
                    let sixteen =
                        search.exhaustive
                        ? rankBoth(block, subsets: 3, total: 16, limit: search.partitions3, count: 3)
                        : rank(c3, subsets: 3, total: 16, limit: search.partitions3)
                    let three =
                        search.exhaustive
                        ? rankBoth(block, subsets: 3, total: 64, limit: search.partitions3, count: 3) : sixteen
                    for i in 0..<search.partitions3 where sixteen[i] >= 0 {
                        let p = Int(sixteen[i])
                        let start = lines(block, first: 0, count: 3, subsets: 3, lanes: subsets3[p])
                        tryJoint(block, mode: 0, partition: p, search: search, start: start, into: &best)
                        if three == sixteen {
                            tryJoint(
                                block, mode: 2, partition: p, search: search, start: start, into: &best)
                        }
                    }
                    for i in 0..<search.partitions3 where three != sixteen && three[i] >= 0 {
                        tryJoint(block, mode: 2, partition: Int(three[i]), search: search, into: &best)
                    }
                }
            } else {
                let two =
                    search.exhaustive
                    ? rankBoth(block, subsets: 2, total: 64, limit: search.partitions2, count: 4)
                    : rank(
                        clusters(block, 2, count: 4, line: whole.get(0)), subsets: 2, total: 64,
                        limit: search.partitions2)
                for i in 0..<search.partitions2 where two[i] >= 0 {
                    tryJoint(
                        block, mode: 7, partition: Int(two[i]), search: search, into: &best)
                }
            }
            if best.error > 0 && (!opaque || search.exhaustive) {
                for rotation in 0..<(search.exhaustive ? 4 : 1) {
                    trySeparate(block, mode: 5, rotation: rotation, selection: 0, search: search, into: &best)
                    for selection in 0..<(search.exhaustive ? 2 : 1) {
                        trySeparate(
                            block, mode: 4, rotation: rotation, selection: selection, search: search, into: &best)
                    }
                }
            }
        }
        return pack(best)
    }

    /// A 128-bit block written from its least significant bit up.
    struct BitWriter {
        var lo: UInt64 = 0
        var hi: UInt64 = 0
        var at = 0

        mutating func write(_ value: Int32, _ n: Int) {
            if n == 0 { return }
            let v = UInt64(UInt32(bitPattern: value)) & ((1 << UInt64(n)) - 1)
            if at >= 64 {
                hi |= v << UInt64(at - 64)
            } else {
                lo |= v << UInt64(at)
                if at + n > 64 { hi |= v >> UInt64(64 - at) }
            }
            at += n
        }
    }

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
        var anchors = SIMD4<Int>(0, -1, -1, -1)
        for s in 1..<m.subsets { anchors[s] = anchor(m.subsets, choice.partition, s) }
        let primary = separate && choice.selection == 1 ? alpha.indices : color.indices
        for i in 0..<16 {
            let isAnchor = i == anchors[0] || i == anchors[1] || i == anchors[2]
            w.write(primary[i], m.indexBits - (isAnchor ? 1 : 0))
        }
        if separate {
            let secondary = choice.selection == 1 ? color.indices : alpha.indices
            for i in 0..<16 { w.write(secondary[i], m.index2Bits - (i == 0 ? 1 : 0)) }
        }
        return (w.lo, w.hi)
    }
}
