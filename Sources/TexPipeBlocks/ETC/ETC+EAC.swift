// EAC: the R11/RG11 blocks and ETC2 RGBA's alpha block.
extension ETC {
    /// EAC's sixteen modifier tables.
    static let eacTables: [F8] = [
        F8(-3, -6, -9, -15, 2, 5, 8, 14), F8(-3, -7, -10, -13, 2, 6, 9, 12), F8(-2, -5, -8, -13, 1, 4, 7, 12),
        F8(-2, -4, -6, -13, 1, 3, 5, 12), F8(-3, -6, -8, -12, 2, 5, 7, 11), F8(-3, -7, -9, -11, 2, 6, 8, 10),
        F8(-4, -7, -8, -11, 3, 6, 7, 10), F8(-3, -5, -8, -11, 2, 4, 7, 10), F8(-2, -6, -8, -10, 1, 5, 7, 9),
        F8(-2, -5, -8, -10, 1, 4, 7, 9), F8(-2, -4, -8, -10, 1, 3, 7, 9), F8(-2, -5, -7, -10, 1, 4, 6, 9),
        F8(-3, -4, -7, -10, 2, 3, 6, 9), F8(-1, -2, -3, -10, 0, 1, 2, 9), F8(-4, -6, -8, -9, 3, 5, 7, 8),
        F8(-3, -5, -7, -9, 2, 4, 6, 8),
    ]

    /// One EAC block for 16 targets: 8-bit alpha values, or for R11 the 11-bit values
    /// (v · 2047 / 255) the decoder's base · 8 + 4 + modifier · multiplier · 8 should reach.
    static func eacBlock(_ v: F16, r11: Bool, _ effort: Effort) -> UInt64 {
        let lo = v.least
        let hi = v.greatest
        let top: Float = r11 ? 2047 : 255
        var bestError = Float.infinity
        var bestBits: UInt64 = 0
        if hi == lo {
            // One value: exact where the format can hold it.
            return eacConstant(v[0], r11: r11)
        }
        @inline(__always) func values(_ base: Int, _ mult: Int, _ table: F8) -> F8 {
            let b: Float = r11 ? Float(base * 8 + 4) : Float(base)
            let m: Float = r11 ? (mult == 0 ? 1 : Float(mult * 8)) : Float(mult)
            let x = table * m + b
            return x.replacing(with: 0, where: x .< 0).replacing(with: top, where: x .> top)
        }
        @inline(__always) func evaluate(_ base: Int, _ mult: Int, _ t: Int) -> (Float, I16) {
            let c = values(base, mult, eacTables[t])
            var least = F16(repeating: .infinity)
            var index = I16()
            for k in 0..<8 {
                let d = v - c[k]
                let e = d * d
                let m = e.below(least)
                least = least.choosing(e, where: m)
                index = index.choosing(I16(repeating: Int32(k)), where: m)
            }
            return (least.total, index)
        }
        @inline(__always) func consider(_ base: Int, _ mult: Int, _ t: Int) -> I16? {
            guard base >= 0, base <= 255 else { return nil }
            let (e, index) = evaluate(base, mult, t)
            if e < bestError {
                bestError = e
                var bits = UInt64(base) << 56 | UInt64(mult) << 52 | UInt64(t) << 48
                for i in 0..<16 {
                    let k = (i % 4) * 4 + i / 4
                    bits |= UInt64(truncatingIfNeeded: index[i]) << UInt64(45 - 3 * k)
                }
                bestBits = bits
                return index
            }
            return nil
        }
        let unit: Float = r11 ? 8 : 1
        var bestTable = 0
        var bestMult = 1
        let least = r11 ? 0 : 1
        for t in 0..<16 {
            let table = eacTables[t]
            let tmin = table[3]  // each table's most negative and most positive entries
            let tmax = table[7]
            let ideal = (hi - lo) / ((tmax - tmin) * unit)
            // One multiplier: the nearest; more: the one at or below, then above, then below that.
            let first = max(
                least, min(15, Int(ideal.rounded(effort.eacMultipliers == 1 ? .toNearestOrAwayFromZero : .down))))
            // The multiplier at or below the ideal, then the one above, then the one below.
            for k in 0..<effort.eacMultipliers {
                let mult = k == 0 ? first : k == 1 ? first + 1 : first - 1
                if mult < least || mult > 15 { continue }
                let m: Float = r11 ? (mult == 0 ? 1 : Float(mult * 8)) : Float(mult)
                let center = (lo + hi) / 2 - m * (tmin + tmax) / 2
                let base = Int((r11 ? (center - 4) / 8 : center).rounded())
                let before = bestError
                _ = consider(max(0, min(255, base)), mult, t)
                if effort.eacMultipliers >= 3 {
                    _ = consider(base - 1, mult, t)
                    _ = consider(base + 1, mult, t)
                }
                if bestError < before { (bestTable, bestMult) = (t, mult) }
            }
        }
        // (Where the search's best is off by more than a quarter of an 8-bit step on average.)
        if bestError > 16 * (unit * unit) / 16,
            let pick = eacTwoValues(v, lo: lo, hi: hi, r11: r11, least: least), pick.error < bestError
        {
            _ = consider(pick.base, pick.mult, pick.table)
        }
        if effort.eacRefit {
            // The base that best fits the chosen indices: the mean of value − modifier · multiplier.
            let base = Int((bestBits >> 56) & 255)
            let (_, index) = evaluate(base, bestMult, bestTable)
            let m: Float = r11 ? (bestMult == 0 ? 1 : Float(bestMult * 8)) : Float(bestMult)
            var sum: Float = 0
            let table = eacTables[bestTable]
            for i in 0..<16 { sum += v[i] - table[Int(index[i])] * m }
            let fit = sum / 16
            let refit = Int((r11 ? (fit - 4) / 8 : fit).rounded())
            if refit != base { _ = consider(refit, bestMult, bestTable) }
        }
        return bestBits
    }

    /// A block of two values only (a mask's edge, a two-level gauge): every pair of a table's
    /// modifiers whose spacing times a multiplier spans them, scored in closed form; the best (nil
    /// when the block holds more than `lo` and `hi`). `eacBlock`'s range search only spans a block
    /// with each table's outermost pair.
    static func eacTwoValues(_ v: F16, lo: Float, hi: Float, r11: Bool, least: Int) -> (
        error: Float, base: Int, mult: Int, table: Int
    )? {
        let unit: Float = r11 ? 8 : 1
        let top: Float = r11 ? 2047 : 255
        let bits = unsafeBitCast(v, to: I16.self)
        let isLow = bits.equals(Int32(bitPattern: lo.bitPattern))
        let isHigh = bits.equals(Int32(bitPattern: hi.bitPattern))
        guard (isLow | isHigh) == I16(repeating: -1) else { return nil }
        let nLow = F16.ones(isLow).total
        let nHigh = 16 - nLow
        var pick = (error: Float.infinity, base: 0, mult: 0, table: 0)
        for t in 0..<16 {
            let table = eacTables[t]
            for i in 0..<8 {
                for j in 0..<8 where table[j] > table[i] {
                    let ideal = (hi - lo) / ((table[j] - table[i]) * unit)
                    let below = Int(ideal.rounded(.down))
                    for mult in below...(below + 1) where mult >= least && mult <= 15 {
                        let m: Float = r11 ? (mult == 0 ? 1 : Float(mult * 8)) : Float(mult)
                        let fit = (lo + hi - m * (table[i] + table[j])) / 2
                        let base = min(255, max(0, Int((r11 ? (fit - 4) / 8 : fit).rounded())))
                        let b: Float = r11 ? Float(base * 8 + 4) : Float(base)
                        let a = min(top, max(0, b + m * table[i])) - lo
                        let c = min(top, max(0, b + m * table[j])) - hi
                        let e = nLow * a * a + nHigh * c * c
                        if e < pick.error { pick = (e, base, mult, t) }
                    }
                }
            }
        }
        return pick
    }

    /// A block of one value: alpha v exactly (table 13 holds 0); R11 the 11-bit value nearest
    /// v·2047/255, from base ⌊T / 8⌋ with a multiplier of ⅛ and an offset −4…3 (tables 13 and 6).
    static func eacConstant(_ v: Float, r11: Bool) -> UInt64 {
        var base: Int
        var table = 13
        var index = 4
        var mult = 1
        if r11 {
            let target = Int(v.rounded())
            base = min(255, target / 8)
            let offset = target - base * 8 - 4
            mult = 0
            switch offset {
            case -3: index = 2
            case -2: index = 1
            case -1: index = 0
            case 0: index = 4
            case 1: index = 5
            case 2: index = 6
            case -4: (table, index) = (6, 0)
            default: (table, index) = (6, 4)  // 3
            }
        } else {
            base = Int(v.rounded())
        }
        var bits = UInt64(base) << 56 | UInt64(mult) << 52 | UInt64(table) << 48
        for k in 0..<16 { bits |= UInt64(index) << UInt64(45 - 3 * k) }
        return bits
    }
}
