package import TexPipeFormats

/// ETC2 and EAC blocks decoded, written from the Khronos Data Format Specification's chapter
/// "ETC2 Compressed Texture Image Formats" on its own (it shares nothing with the encoder in
/// `ETC.swift`, so each checks the other). ETC2 RGB decodes with alpha 255; EAC R11 to
/// (r, 0, 0, 255) and RG11 to (r, g, 0, 255), each 11-bit value v rounded to 8 bits as
/// (v · 255 + 1023) / 2047 — the nearest 8-bit value, where a sampler returns v / 2047.
package enum ETCDecoder {
    /// A level's blocks as tightly packed RGBA8 (w × h).
    public static func decode(
        _ blocks: [UInt8], format: TextureSettings.Format, width: Int, height: Int
    ) throws -> [UInt8] {
        guard case .etc(let variant) = format.info.codec else { throw CodecError(.notBlockCompressed(format.rawValue)) }
        return try decode(blocks, variant: variant, width: width, height: height)
    }

    static func decode(_ blocks: [UInt8], variant: ETCVariant, width: Int, height: Int) throws -> [UInt8] {
        let info = variant.format.info
        var texels = [UInt8](repeating: 0, count: 64)
        return try BlockRows.decode(
            blocks, width: width, height: height, blockBytes: info.blockBytes, family: info.familyName, fill: 0
        ) { at, t in
            func word(_ offset: Int) -> UInt64 {
                var w: UInt64 = 0
                for i in 0..<8 { w = w << 8 | UInt64(blocks[at + offset + i]) }
                return w
            }
            switch variant {
            case .rgb:
                color(word(0), into: &texels)
            case .rgba:
                color(word(8), into: &texels)
                let a = word(0)
                for t in 0..<16 { texels[t * 4 + 3] = alpha(a, t) }
            case .r11, .rg11:
                let r = word(0)
                let g = variant == .rg11 ? word(8) : 0
                for t in 0..<16 {
                    texels[t * 4] = to8(eac11(r, t))
                    texels[t * 4 + 1] = variant == .rg11 ? to8(eac11(g, t)) : 0
                    texels[t * 4 + 2] = 0
                    texels[t * 4 + 3] = 255
                }
            }
            t.update(from: texels, count: 64)
        }
    }

    static func to8(_ v: Int) -> UInt8 { UInt8((v * 255 + 1023) / 2047) }

    /// The spec's per-texel index of texel (x, y): column-major, k = x·4 + y.
    static func bit(_ w: UInt64, _ n: Int) -> Int { Int((w >> UInt64(n)) & 1) }
    static func field(_ w: UInt64, _ high: Int, _ count: Int) -> Int {
        Int((w >> UInt64(high - count + 1)) & ((1 << UInt64(count)) - 1))
    }

    static let intensity: [(Int, Int)] = [(2, 8), (5, 17), (9, 29), (13, 42), (18, 60), (24, 80), (33, 106), (47, 183)]
    static let distance = [3, 6, 11, 16, 23, 32, 41, 64]

    static func clamp(_ v: Int) -> UInt8 { UInt8(max(0, min(255, v))) }
    static func ext4(_ v: Int) -> Int { v << 4 | v }
    static func ext5(_ v: Int) -> Int { v << 3 | v >> 2 }
    static func ext6(_ v: Int) -> Int { v << 2 | v >> 4 }
    static func ext7(_ v: Int) -> Int { v << 1 | v >> 6 }
    /// A 3-bit two's-complement value.
    static func signed3(_ v: Int) -> Int { v >= 4 ? v - 8 : v }

    /// One ETC2 RGB block into 16 RGBA texels (row-major), alpha 255.
    static func color(_ w: UInt64, into t: inout [UInt8]) {
        func set(_ x: Int, _ y: Int, _ r: Int, _ g: Int, _ b: Int) {
            let i = (y * 4 + x) * 4
            t[i] = clamp(r)
            t[i + 1] = clamp(g)
            t[i + 2] = clamp(b)
            t[i + 3] = 255
        }
        func index(_ x: Int, _ y: Int) -> Int {
            let k = x * 4 + y
            return bit(w, 16 + k) << 1 | bit(w, k)
        }
        let r = field(w, 63, 5)
        let dr = signed3(field(w, 58, 3))
        let g = field(w, 55, 5)
        let dg = signed3(field(w, 50, 3))
        let b = field(w, 47, 5)
        let db = signed3(field(w, 42, 3))
        let differential = bit(w, 33) == 1
        if differential && !(0...31).contains(r + dr) {
            // T mode.
            let c1 = SIMD3(ext4(field(w, 60, 2) << 2 | field(w, 57, 2)), ext4(field(w, 55, 4)), ext4(field(w, 51, 4)))
            let c2 = SIMD3(ext4(field(w, 47, 4)), ext4(field(w, 43, 4)), ext4(field(w, 39, 4)))
            let d = SIMD3(repeating: distance[field(w, 35, 2) << 1 | bit(w, 32)])
            for x in 0..<4 {
                for y in 0..<4 {
                    let i = index(x, y)
                    let p = i == 0 ? c1 : i == 1 ? c2 &+ d : i == 2 ? c2 : c2 &- d
                    set(x, y, p.x, p.y, p.z)
                }
            }
        } else if differential && !(0...31).contains(g + dg) {
            // H mode.
            let c1 = SIMD3(
                ext4(field(w, 62, 4)), ext4(field(w, 58, 3) << 1 | bit(w, 52)), ext4(bit(w, 51) << 3 | field(w, 49, 3)))
            let c2 = SIMD3(ext4(field(w, 46, 4)), ext4(field(w, 42, 4)), ext4(field(w, 38, 4)))
            let v1 = c1.x << 16 | c1.y << 8 | c1.z
            let v2 = c2.x << 16 | c2.y << 8 | c2.z
            let d = SIMD3(repeating: distance[bit(w, 34) << 2 | bit(w, 32) << 1 | (v1 >= v2 ? 1 : 0)])
            for x in 0..<4 {
                for y in 0..<4 {
                    let i = index(x, y)
                    let p = i == 0 ? c1 &+ d : i == 1 ? c1 &- d : i == 2 ? c2 &+ d : c2 &- d
                    set(x, y, p.x, p.y, p.z)
                }
            }
        } else if differential && !(0...31).contains(b + db) {
            // Planar mode.
            let ro = ext6(field(w, 62, 6))
            let go = ext7(bit(w, 56) << 6 | field(w, 54, 6))
            let bo = ext6(bit(w, 48) << 5 | field(w, 44, 2) << 3 | field(w, 41, 3))
            let rh = ext6(field(w, 38, 5) << 1 | bit(w, 32))
            let gh = ext7(field(w, 31, 7))
            let bh = ext6(field(w, 24, 6))
            let rv = ext6(field(w, 18, 6))
            let gv = ext7(field(w, 12, 7))
            let bv = ext6(field(w, 5, 6))
            for x in 0..<4 {
                for y in 0..<4 {
                    func p(_ o: Int, _ h: Int, _ v: Int) -> Int { (x * (h - o) + y * (v - o) + 4 * o + 2) >> 2 }
                    set(x, y, p(ro, rh, rv), p(go, gh, gv), p(bo, bh, bv))
                }
            }
        } else {
            // Individual or differential: two subblocks, side by side (flip 0) or on top (flip 1).
            let base1: SIMD3<Int>
            let base2: SIMD3<Int>
            if differential {
                base1 = SIMD3(ext5(r), ext5(g), ext5(b))
                base2 = SIMD3(ext5(r + dr), ext5(g + dg), ext5(b + db))
            } else {
                base1 = SIMD3(ext4(field(w, 63, 4)), ext4(field(w, 55, 4)), ext4(field(w, 47, 4)))
                base2 = SIMD3(ext4(field(w, 59, 4)), ext4(field(w, 51, 4)), ext4(field(w, 43, 4)))
            }
            let table1 = intensity[field(w, 39, 3)]
            let table2 = intensity[field(w, 36, 3)]
            let flip = bit(w, 32) == 1
            for x in 0..<4 {
                for y in 0..<4 {
                    let second = flip ? y >= 2 : x >= 2
                    let base = second ? base2 : base1
                    let table = second ? table2 : table1
                    let i = index(x, y)
                    let m = i == 0 ? table.0 : i == 1 ? table.1 : i == 2 ? -table.0 : -table.1
                    set(x, y, base.x + m, base.y + m, base.z + m)
                }
            }
        }
    }

    static let eacModifiers: [[Int]] = [
        [-3, -6, -9, -15, 2, 5, 8, 14], [-3, -7, -10, -13, 2, 6, 9, 12], [-2, -5, -8, -13, 1, 4, 7, 12],
        [-2, -4, -6, -13, 1, 3, 5, 12], [-3, -6, -8, -12, 2, 5, 7, 11], [-3, -7, -9, -11, 2, 6, 8, 10],
        [-4, -7, -8, -11, 3, 6, 7, 10], [-3, -5, -8, -11, 2, 4, 7, 10], [-2, -6, -8, -10, 1, 5, 7, 9],
        [-2, -5, -8, -10, 1, 4, 7, 9], [-2, -4, -8, -10, 1, 3, 7, 9], [-2, -5, -7, -10, 1, 4, 6, 9],
        [-3, -4, -7, -10, 2, 3, 6, 9], [-1, -2, -3, -10, 0, 1, 2, 9], [-4, -6, -8, -9, 3, 5, 7, 8],
        [-3, -5, -7, -9, 2, 4, 6, 8],
    ]

    /// The 3-bit index of texel row-major i: texel k = x·4 + y at bits 47 − 3k … 45 − 3k.
    static func eacIndex(_ w: UInt64, _ i: Int) -> Int {
        let k = (i % 4) * 4 + i / 4
        return field(w, 47 - 3 * k, 3)
    }

    /// ETC2 RGBA's alpha of texel i (row-major): clamp255(base + modifier · multiplier).
    static func alpha(_ w: UInt64, _ i: Int) -> UInt8 {
        let base = field(w, 63, 8)
        let multiplier = field(w, 55, 4)
        return clamp(base + eacModifiers[field(w, 51, 4)][eacIndex(w, i)] * multiplier)
    }

    /// An unsigned R11 block's 11-bit value (0…2047) of texel i (row-major): base · 8 + 4 +
    /// modifier · multiplier · 8, a multiplier of 0 standing for ⅛.
    static func eac11(_ w: UInt64, _ i: Int) -> Int {
        let base = field(w, 63, 8)
        let multiplier = field(w, 55, 4)
        let m = eacModifiers[field(w, 51, 4)][eacIndex(w, i)]
        let v = multiplier == 0 ? base * 8 + 4 + m : base * 8 + 4 + m * multiplier * 8
        return max(0, min(2047, v))
    }

    /// All 16 alpha values, and all 16 R11 values (the tests' view).
    static func alpha(_ w: UInt64) -> [UInt8] { (0..<16).map { alpha(w, $0) } }
    static func eac11(_ w: UInt64) -> [Int] { (0..<16).map { eac11(w, $0) } }
}
