internal import CTexPipeShims

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

    /// `body` run with denormal floats read and written as zero on this thread (x86: MXCSR's DAZ
    /// and FTZ), the mode restored after.
    ///
    /// The fit's sums reduce 16 lanes to one, and the compiler splits such a chain into pairs of
    /// lanes held in 4-lane registers on baseline x86-64 (SSE2). The two lanes it leaves unused
    /// hold raw small integers, which read as denormal floats, and every multiply that meets one
    /// took a microcode assist: BC7 `fast` ran 1.4× and `medium` 1.5× slower than with them
    /// flushed (docs/performance.md, "BC7 speed"). The values the encoder uses are texel values
    /// (0–255), their differences, sums and products, and palette weights (multiples of 1/64), far
    /// above Float's normal minimum (about 1.2e−38), so no block changes: every corpus image
    /// encodes to the same bytes either way. Elsewhere (arm64) the mode is left as it is.
    ///
    /// With `flush` false, `body` runs as it is (the formats that share a loop with BC7).
    @inline(__always) static func withDenormalsFlushed<R>(_ flush: Bool = true, _ body: () throws -> R) rethrows -> R {
        guard flush else { return try body() }
        let previous = tp_fp_flush_denormals()
        defer { tp_fp_restore(previous) }
        return try body()
    }

    /// An n-bit endpoint value widened to 8 bits by repeating its top bits below it.
    @inline(__always) static func expand(_ v: Int32, _ n: Int) -> Int32 {
        n >= 8 ? v : (v << (8 - n)) | (v >> (2 * n - 8))
    }

    /// The same for four values of `n` bits at once (an endpoint's channels).
    @inline(__always) static func expand(_ v: SIMD4<Int32>, _ n: Int) -> SIMD4<Int32> {
        n >= 8 ? v : (v &<< Int32(truncatingIfNeeded: 8 &- n)) | (v &>> Int32(truncatingIfNeeded: 2 &* n &- 8))
    }
}
