/// Basis Universal UASTC LDR 4×4 blocks decoded, written from Binomial's "UASTC Texture
/// Specification" on its own (it shares nothing with the encoder in `UASTC.swift`, so each
/// checks the other): all 19 modes — RGB, RGBA and luminance-alpha, one to three subsets, dual
/// planes, solid color — to RGBA8 as the transcoder's RGBA32 output gives them (the spec's ASTC
/// interpolation with 16-bit expanded endpoints, linear). A reserved or malformed block decodes to
/// opaque magenta, ASTC's error color.
package enum UASTCDecoder {
    /// A level's blocks as tightly packed RGBA8 (w × h).
    package static func decode(_ blocks: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        var texels = [UInt8](repeating: 0, count: 64)
        return try BlockRows.decode(blocks, width: width, height: height, blockBytes: 16, family: "UASTC", fill: 0) {
            at, t in
            block(Array(blocks[at..<(at + 16)]), into: &texels)
            t.update(from: texels, count: 64)
        }
    }

    /// The spec's mode table: endpoint BISE range, components (2 LA, 3 RGB, 4 RGBA), weight bits,
    /// planes, subsets, and the bits of transcoding hints after the mode code.
    struct Mode {
        let range: Int, components: Int, weightBits: Int, planes: Int, subsets: Int, hints: Int
    }
    static let modes: [Mode] = [
        Mode(range: 19, components: 3, weightBits: 4, planes: 1, subsets: 1, hints: 15),
        Mode(range: 20, components: 3, weightBits: 2, planes: 1, subsets: 1, hints: 15),
        Mode(range: 8, components: 3, weightBits: 3, planes: 1, subsets: 2, hints: 15),
        Mode(range: 7, components: 3, weightBits: 2, planes: 1, subsets: 3, hints: 15),
        Mode(range: 12, components: 3, weightBits: 2, planes: 1, subsets: 2, hints: 15),
        Mode(range: 20, components: 3, weightBits: 3, planes: 1, subsets: 1, hints: 15),
        Mode(range: 18, components: 3, weightBits: 2, planes: 2, subsets: 1, hints: 15),
        Mode(range: 12, components: 3, weightBits: 2, planes: 1, subsets: 2, hints: 15),
        Mode(range: 0, components: 4, weightBits: 0, planes: 0, subsets: 0, hints: 0),  // solid color
        Mode(range: 8, components: 4, weightBits: 2, planes: 1, subsets: 2, hints: 23),
        Mode(range: 13, components: 4, weightBits: 4, planes: 1, subsets: 1, hints: 17),
        Mode(range: 13, components: 4, weightBits: 2, planes: 2, subsets: 1, hints: 17),
        Mode(range: 19, components: 4, weightBits: 3, planes: 1, subsets: 1, hints: 17),
        Mode(range: 20, components: 4, weightBits: 1, planes: 2, subsets: 1, hints: 23),
        Mode(range: 20, components: 4, weightBits: 2, planes: 1, subsets: 1, hints: 23),
        Mode(range: 20, components: 2, weightBits: 4, planes: 1, subsets: 1, hints: 23),
        Mode(range: 20, components: 2, weightBits: 2, planes: 1, subsets: 2, hints: 23),
        Mode(range: 20, components: 2, weightBits: 2, planes: 2, subsets: 1, hints: 23),
        Mode(range: 11, components: 3, weightBits: 5, planes: 1, subsets: 1, hints: 15),
    ]

    /// The mode codes (the block's lowest bits): (code, length) per mode; every other 7-bit
    /// value is the reserved mode 19.
    static let codes: [(Int, Int)] = [
        (1, 4), (53, 6), (29, 5), (3, 5), (19, 5), (11, 5), (27, 5), (7, 5), (23, 5), (15, 5), (2, 3), (0, 2),
        (6, 3), (31, 5), (13, 5), (5, 7), (21, 6), (37, 6), (9, 4),
    ]
    /// The low 7 bits → the mode (19: reserved).
    static let modeOf: [Int] = (0..<128).map { v in
        codes.firstIndex { v & ((1 << $0.1) - 1) == $0.0 } ?? 19
    }

    /// ASTC's BISE ranges 0…20: (levels, trits or quints: 3, 5 or 1, bits).
    static let ranges: [(levels: Int, radix: Int, bits: Int)] = [
        (2, 1, 1), (3, 3, 0), (4, 1, 2), (5, 5, 0), (6, 3, 1), (8, 1, 3), (10, 5, 1), (12, 3, 2), (16, 1, 4),
        (20, 5, 2), (24, 3, 3), (32, 1, 5), (40, 5, 3), (48, 3, 4), (64, 1, 6), (80, 5, 4), (96, 3, 5), (128, 1, 7),
        (160, 5, 5), (192, 3, 6), (256, 1, 8),
    ]

    /// A color endpoint value to 8 bits (ASTC's color unquantization): bits replicated, or with a
    /// trit or quint D: T = D·C + B, XOR A, then (A & 0x80) | (T >> 2).
    static func unquantize(_ value: (digit: Int, bits: Int), range: Int) -> Int {
        let r = ranges[range]
        let v = value.bits
        if r.radix == 1 {
            var out = 0
            var shift = 8 - r.bits
            while shift > -r.bits {
                out |= shift >= 0 ? v << shift : v >> -shift
                shift -= r.bits
            }
            return out & 255
        }
        func bit(_ k: Int) -> Int { (v >> k) & 1 }
        let a = bit(0) == 1 ? 0x1FF : 0
        let (b, c, d, e, f) = (bit(1), bit(2), bit(3), bit(4), bit(5))
        let (bb, cc): (Int, Int) =
            switch (r.radix, r.bits) {
            case (3, 1): (0, 204)
            case (3, 2): (b << 8 | b << 4 | b << 2 | b << 1, 93)
            case (3, 3): (c << 8 | b << 7 | c << 3 | b << 2 | c << 1 | b, 44)
            case (3, 4): (d << 8 | c << 7 | b << 6 | d << 2 | c << 1 | b, 22)
            case (3, 5): (e << 8 | d << 7 | c << 6 | b << 5 | e << 1 | d, 11)
            case (3, 6): (f << 8 | e << 7 | d << 6 | c << 5 | b << 4 | f, 5)
            case (5, 1): (0, 113)
            case (5, 2): (b << 8 | b << 3 | b << 2, 54)
            case (5, 3): (c << 8 | b << 7 | c << 2 | b << 1 | c, 26)
            case (5, 4): (d << 8 | c << 7 | b << 6 | d << 1 | c, 13)
            default: (e << 8 | d << 7 | c << 6 | b << 5 | e, 6)  // (5, 5)
            }
        let t = (value.digit * cc + bb) ^ a
        return (a & 0x80) | (t >> 2)
    }

    /// A weight of `bits` bits to 0…64: bits replicated to six, then values above 32 one more.
    static func unquantizeWeight(_ w: Int, bits: Int) -> Int {
        var six = 0
        var shift = 6 - bits
        while shift > -bits {
            six |= shift >= 0 ? w << shift : w >> -shift
            shift -= bits
        }
        six &= 63
        return six > 32 ? six + 1 : six
    }

    /// ASTC's LDR interpolation of 8-bit endpoints with a 0…64 weight (linear: each endpoint
    /// expanded to 16 bits by repetition).
    @inline(__always) static func interpolate(_ l: Int, _ h: Int, _ w: Int) -> UInt8 {
        let (l16, h16) = (l << 8 | l, h << 8 | h)
        return UInt8(((l16 * (64 - w) + h16 * w + 32) >> 6) >> 8)
    }

    /// Reads the block from its least significant bit up.
    struct Bits {
        let lo: UInt64, hi: UInt64
        var at = 0
        mutating func read(_ n: Int) -> Int {
            if n == 0 { return 0 }
            var v: UInt64
            if at >= 64 {
                v = hi >> UInt64(at - 64)
            } else {
                v = lo >> UInt64(at)
                if at + n > 64 { v |= hi << UInt64(64 - at) }
            }
            at += n
            return Int(v & ((1 << UInt64(n)) - 1))
        }
    }

    static let magenta: [UInt8] = [255, 0, 255, 255]

    /// One block (16 bytes at `p`) into 16 RGBA texels at `t`.
    static func block(at p: UnsafePointer<UInt8>, into t: UnsafeMutablePointer<UInt8>) {
        var texels = [UInt8](repeating: 0, count: 64)
        block(Array(UnsafeBufferPointer(start: p, count: 16)), into: &texels)
        for i in 0..<64 { t[i] = texels[i] }
    }

    /// One block's 16 texels, RGBA, row by row.
    static func block(_ b: [UInt8], into t: inout [UInt8]) {
        func fill(_ c: [UInt8]) { for i in 0..<16 { for k in 0..<4 { t[i * 4 + k] = c[k] } } }
        var lo: UInt64 = 0
        var hi: UInt64 = 0
        for i in 0..<8 {
            lo |= UInt64(b[i]) << UInt64(8 * i)
            hi |= UInt64(b[8 + i]) << UInt64(8 * i)
        }
        var r = Bits(lo: lo, hi: hi)
        let m = modeOf[r.read(7)]
        guard m < 19 else { return fill(magenta) }
        r.at = codes[m].1
        if m == 8 {
            return fill([UInt8(r.read(8)), UInt8(r.read(8)), UInt8(r.read(8)), UInt8(r.read(8))])
        }
        let mode = modes[m]
        r.at += mode.hints
        // The dual-plane channel: read for RGB(A), alpha for luminance-alpha.
        let plane2 = mode.planes == 2 ? (mode.components == 2 ? 3 : r.read(2)) : -1
        var pattern = [Int](repeating: 0, count: 16)
        var anchors = [0]
        if mode.subsets > 1 {
            let (table, anchorTable, count): ([[Int]], [[Int]], Int) =
                m == 7
                ? (patterns2of3, anchors2of3, 19)
                : mode.subsets == 2 ? (patterns2, anchors2, 30) : (patterns3, anchors3, 11)
            let p = r.read(mode.subsets == 2 ? 5 : 4)
            guard p < count else { return fill(magenta) }
            pattern = table[p]
            anchors = anchorTable[p]
        }
        // Endpoints: the trits or quints of all values packed first (5 trits in 8 bits, 3 quints
        // in 7, base 3 or 5, a short last group in fewer), then each value's bits.
        let count = 2 * mode.components * mode.subsets
        let range = ranges[mode.range]
        var digits = [Int](repeating: 0, count: count)
        if range.radix > 1 {
            let per = range.radix == 3 ? 5 : 3
            let groupBits = range.radix == 3 ? [0, 2, 4, 5, 7, 8] : [0, 3, 5, 7]
            var k = 0
            while k < count {
                let n = min(per, count - k)
                var packed = r.read(groupBits[n])
                for j in 0..<n {
                    digits[k + j] = packed % range.radix
                    packed /= range.radix
                }
                k += n
            }
        }
        var ends = [Int](repeating: 0, count: count)
        for k in 0..<count {
            ends[k] = unquantize((digits[k], r.read(range.bits)), range: mode.range)
        }
        // Weights: texel by texel (both planes' in turn), a subset's anchor texel one bit short.
        var weights = [Int](repeating: 0, count: 32)
        for i in 0..<16 {
            let bits = mode.weightBits - (anchors.contains(i) ? 1 : 0)
            for p in 0..<mode.planes {
                weights[i * mode.planes + p] = unquantizeWeight(r.read(bits), bits: mode.weightBits)
            }
        }
        for i in 0..<16 {
            let s = pattern[i]
            let v = Array(ends[(s * 2 * mode.components)..<((s + 1) * 2 * mode.components)])
            // Per channel (r, g, b, a): the endpoint values' places (RGB: r0 r1 g0 g1 b0 b1; RGBA
            // then a0 a1; LA: l0 l1 a0 a1).
            let places: [Int?] =
                switch mode.components {
                case 2: [0, 0, 0, 2]
                case 3: [0, 2, 4, nil]
                default: [0, 2, 4, 6]
                }
            for c in 0..<4 {
                guard let at = places[c] else {
                    t[i * 4 + c] = 255
                    continue
                }
                let w = weights[i * mode.planes + (c == plane2 ? 1 : 0)]
                t[i * 4 + c] = interpolate(v[at], v[at + 1], w)
            }
        }
    }

    // The spec's partition patterns common to ASTC and BC7 (texel → subset), and each pattern's
    // anchor texels (subset 0's first).
    static let patterns2: [[Int]] = [
        "0011001100110011", "0001000100010001", "1000100010001000", "0001001100110111", "1111111011101100",
        "0011011101111111", "1110110010000000", "1111111011001000", "0000000000010011", "1100100000000000",
        "0000000101111111", "1111111111101000", "1110100000000000", "1111111100000000", "0000111111111111",
        "1111111111110000", "1000111011111111", "1111111101110001", "0111001100010000", "0011000100000000",
        "0000100011001110", "1111111101110011", "1000110011001110", "0011000100010000", "1111011101110011",
        "0110011001100110", "1111000000001111", "1010101010101010", "1111000011110000", "1001001101101100",
    ].map(digits)
    static let anchors2: [[Int]] = [
        [0, 2], [0, 3], [1, 0], [0, 3], [7, 0], [0, 2], [3, 0], [7, 0], [0, 11], [2, 0], [0, 7], [11, 0], [3, 0],
        [8, 0], [0, 4], [12, 0], [1, 0], [8, 0], [0, 1], [0, 2], [0, 4], [8, 0], [1, 0], [0, 2], [4, 0], [0, 1],
        [4, 0], [1, 0], [4, 0], [1, 0],
    ]
    static let patterns3: [[Int]] = [
        "0000000011221122", "1111111100002222", "1111000000002222", "1111222200000000", "1120112011201120",
        "0112011201120112", "0211021102110211", "2000200021112111", "2012201220122012", "1111000022221111",
        "0022001100110022",
    ].map(digits)
    static let anchors3: [[Int]] = [
        [0, 8, 10], [8, 0, 12], [4, 0, 12], [8, 0, 4], [3, 0, 2], [0, 1, 3], [0, 2, 1], [1, 9, 0], [1, 2, 0],
        [4, 0, 8], [0, 6, 2],
    ]
    /// Mode 7's two-subset patterns (BC7 three-subset patterns that are ASTC two-subset ones).
    static let patterns2of3: [[Int]] = [
        "0000111100000000", "0010001000100010", "1100110010000000", "0000000100110011", "1111111100001111",
        "0100010001000100", "0001001111111111", "0111001100110011", "1100000000111100", "0111011100000000",
        "0000000011101110", "1100000000001100", "0111001100000000", "0000000111111111", "1111111111110110",
        "1100110011001000", "1111111110001000", "0011011011001000", "1111011100000000",
    ].map(digits)
    static let anchors2of3: [[Int]] = [
        [0, 4], [0, 2], [2, 0], [0, 7], [8, 0], [0, 1], [0, 3], [0, 1], [2, 0], [0, 1], [0, 8], [2, 0], [0, 1],
        [0, 7], [12, 0], [2, 0], [9, 0], [0, 2], [4, 0],
    ]

    static func digits(_ s: String) -> [Int] { s.map { Int(String($0))! } }
}
