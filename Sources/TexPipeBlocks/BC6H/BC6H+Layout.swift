/// BC6H's block layouts as the BPTC specification gives them (ARB_texture_compression_bptc,
/// Table.MF and Table.F; Microsoft's "BC6H Format" numbers the same modes 1–14). Spec data, read
/// by the decoder (to gather) and the encoder (to scatter); the tests check both against an
/// independent decoder (texture2ddecoder) on every mode.
enum BC6HLayout {
    /// Table.MF: one row per mode, by mode number (the low 2 bits when they are below 2, else the
    /// low 5 bits).
    struct Mode: Sendable {
        /// The mode number as stored (2 or 5 bits).
        let number: Int
        let modeBits: Int
        /// Endpoints 1–3 are stored as signed deltas from endpoint 0 (wrapped at `endpointBits`).
        let transformed: Bool
        /// Two regions (5 partition bits, 3-bit indices) or one (4-bit indices).
        let twoRegions: Bool
        /// EPB: bits of endpoint 0 per channel.
        let endpointBits: Int
        /// Bits of the other endpoints per channel (R, G, B).
        let deltaBits: SIMD3<Int32>
    }

    /// A stored field: channel (0 r, 1 g, 2 b) · 4 + endpoint (0–3), or `modeField`.
    static let modeField = 12

    static let modes: [Mode] = [
        .init(number: 0, modeBits: 2, transformed: true, twoRegions: true, endpointBits: 10, deltaBits: [5, 5, 5]),
        .init(number: 1, modeBits: 2, transformed: true, twoRegions: true, endpointBits: 7, deltaBits: [6, 6, 6]),
        .init(number: 2, modeBits: 5, transformed: true, twoRegions: true, endpointBits: 11, deltaBits: [5, 4, 4]),
        .init(number: 6, modeBits: 5, transformed: true, twoRegions: true, endpointBits: 11, deltaBits: [4, 5, 4]),
        .init(number: 10, modeBits: 5, transformed: true, twoRegions: true, endpointBits: 11, deltaBits: [4, 4, 5]),
        .init(number: 14, modeBits: 5, transformed: true, twoRegions: true, endpointBits: 9, deltaBits: [5, 5, 5]),
        .init(number: 18, modeBits: 5, transformed: true, twoRegions: true, endpointBits: 8, deltaBits: [6, 5, 5]),
        .init(number: 22, modeBits: 5, transformed: true, twoRegions: true, endpointBits: 8, deltaBits: [5, 6, 5]),
        .init(number: 26, modeBits: 5, transformed: true, twoRegions: true, endpointBits: 8, deltaBits: [5, 5, 6]),
        .init(number: 30, modeBits: 5, transformed: false, twoRegions: true, endpointBits: 6, deltaBits: [6, 6, 6]),
        .init(
            number: 3, modeBits: 5, transformed: false, twoRegions: false, endpointBits: 10, deltaBits: [10, 10, 10]),
        .init(number: 7, modeBits: 5, transformed: true, twoRegions: false, endpointBits: 11, deltaBits: [9, 9, 9]),
        .init(number: 11, modeBits: 5, transformed: true, twoRegions: false, endpointBits: 12, deltaBits: [8, 8, 8]),
        .init(number: 15, modeBits: 5, transformed: true, twoRegions: false, endpointBits: 16, deltaBits: [4, 4, 4]),
    ]

    /// Table.F, read left to right from the block's least significant bit. `v[a:b]` takes a − b + 1
    /// bits into bits b…a of v, lowest first; with a < b the bits go in reversed (the first into
    /// bit b). The partition index (5 bits) and then the indices follow.
    static let formats: [Int: String] = [
        0: """
        m[1:0],g2[4],b2[4],b3[4],r0[9:0],g0[9:0],b0[9:0],r1[4:0],g3[4],g2[3:0],\
        g1[4:0],b3[0],g3[3:0],b1[4:0],b3[1],b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]
        """,
        1: """
        m[1:0],g2[5],g3[4],g3[5],r0[6:0],b3[0],b3[1],b2[4],g0[6:0],b2[5],b3[2],\
        g2[4],b0[6:0],b3[3],b3[5],b3[4],r1[5:0],g2[3:0],g1[5:0],g3[3:0],b1[5:0],\
        b2[3:0],r2[5:0],r3[5:0]
        """,
        2: """
        m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[4:0],r0[10],g2[3:0],g1[3:0],g0[10],\
        b3[0],g3[3:0],b1[3:0],b0[10],b3[1],b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]
        """,
        6: """
        m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[3:0],r0[10],g3[4],g2[3:0],g1[4:0],\
        g0[10],g3[3:0],b1[3:0],b0[10],b3[1],b2[3:0],r2[3:0],b3[0],b3[2],r3[3:0],\
        g2[4],b3[3]
        """,
        10: """
        m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[3:0],r0[10],b2[4],g2[3:0],g1[3:0],\
        g0[10],b3[0],g3[3:0],b1[4:0],b0[10],b2[3:0],r2[3:0],b3[1],b3[2],r3[3:0],\
        b3[4],b3[3]
        """,
        14: """
        m[4:0],r0[8:0],b2[4],g0[8:0],g2[4],b0[8:0],b3[4],r1[4:0],g3[4],g2[3:0],\
        g1[4:0],b3[0],g3[3:0],b1[4:0],b3[1],b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]
        """,
        18: """
        m[4:0],r0[7:0],g3[4],b2[4],g0[7:0],b3[2],g2[4],b0[7:0],b3[3],b3[4],\
        r1[5:0],g2[3:0],g1[4:0],b3[0],g3[3:0],b1[4:0],b3[1],b2[3:0],r2[5:0],\
        r3[5:0]
        """,
        22: """
        m[4:0],r0[7:0],b3[0],b2[4],g0[7:0],g2[5],g2[4],b0[7:0],g3[5],b3[4],\
        r1[4:0],g3[4],g2[3:0],g1[5:0],g3[3:0],b1[4:0],b3[1],b2[3:0],r2[4:0],\
        b3[2],r3[4:0],b3[3]
        """,
        26: """
        m[4:0],r0[7:0],b3[1],b2[4],g0[7:0],b2[5],g2[4],b0[7:0],b3[5],b3[4],\
        r1[4:0],g3[4],g2[3:0],g1[4:0],b3[0],g3[3:0],b1[5:0],b2[3:0],r2[4:0],\
        b3[2],r3[4:0],b3[3]
        """,
        30: """
        m[4:0],r0[5:0],g3[4],b3[0],b3[1],b2[4],g0[5:0],g2[5],b2[5],b3[2],\
        g2[4],b0[5:0],g3[5],b3[3],b3[5],b3[4],r1[5:0],g2[3:0],g1[5:0],g3[3:0],\
        b1[5:0],b2[3:0],r2[5:0],r3[5:0]
        """,
        3: "m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[9:0],g1[9:0],b1[9:0]",
        7: "m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[8:0],r0[10],g1[8:0],g0[10],b1[8:0],b0[10]",
        11: "m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[7:0],r0[10:11],g1[7:0],g0[10:11],b1[7:0],b0[10:11]",
        15: "m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[3:0],r0[10:15],g1[3:0],g0[10:15],b1[3:0],b0[10:15]",
    ]

    /// One stored bit: the field it belongs to and its bit in that field.
    struct Bit: Sendable {
        let field: UInt8
        let bit: UInt8
    }

    /// Per mode number (0…31; empty for reserved numbers), the fields of block bits 0, 1, 2…
    /// before the partition index.
    static let bits: [[Bit]] = (0..<32).map { number in formats[number].map(parse) ?? [] }

    /// Per mode number, the row of Table.MF (nil: reserved).
    static let modeByNumber: [Mode?] = (0..<32).map { n in modes.first { $0.number == n } }

    /// Table.F's format string as the list of bits it lays out.
    static func parse(_ format: String) -> [Bit] {
        var out: [Bit] = []
        for item in format.split(separator: ",") {
            // "r0[9:0]", "g2[4]", "m[1:0]", "r0[10:15]".
            let name = item.prefix { $0 != "[" }
            let range = item.drop { $0 != "[" }.dropFirst().dropLast().split(separator: ":").map { Int($0)! }
            let field: Int
            if name == "m" {
                field = modeField
            } else {
                let channel = ["r": 0, "g": 1, "b": 2][String(name.prefix(1))]!
                field = channel * 4 + Int(String(name.dropFirst()))!
            }
            let a = range[0]
            let b = range.count > 1 ? range[1] : a
            let order = a >= b ? Array(b...a) : Array((a...b).reversed())
            for bit in order { out.append(Bit(field: UInt8(field), bit: UInt8(bit))) }
        }
        return out
    }
}
