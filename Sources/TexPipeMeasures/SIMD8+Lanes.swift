/// Eight lanes of Float as plain vector instructions (the standard library's comparisons,
/// `replacing(with:where:)` and `clamped` go lane by lane), and the powers FLIP needs written from
/// IEEE operations alone — no libm call, whose implementation the C library picks by the CPU — so
/// every build on every CPU computes the same bits. A mask is a SIMD8<Int32> of −1 (set) and 0.
typealias Lanes = SIMD8<Float>
typealias LaneMask = SIMD8<Int32>

extension SIMD8<Float> {
    @inline(__always) var bits: SIMD8<Int32> { unsafeBitCast(self, to: SIMD8<Int32>.self) }

    @inline(__always) init(bits: SIMD8<Int32>) { self = unsafeBitCast(bits, to: SIMD8<Float>.self) }

    /// `other` where `m` is set, else self.
    @inline(__always) func choosing(_ other: Lanes, where m: LaneMask) -> Lanes {
        Lanes(bits: (bits & ~m) | (other.bits & m))
    }

    /// Set where self < other (by the difference's sign: finite values, no NaN; equal values give +0).
    @inline(__always) func below(_ other: Lanes) -> LaneMask { (self - other).bits &>> 31 }

    @inline(__always) var magnitude: Lanes { Lanes(bits: bits & 0x7FFF_FFFF) }

    /// Each lane clamped to [0, 1].
    @inline(__always) var clamped01: Lanes {
        let low = choosing(Lanes(repeating: 0), where: below(Lanes(repeating: 0)))
        return low.choosing(Lanes(repeating: 1), where: Lanes(repeating: 1).below(low))
    }

    /// log₂ of each lane (positive and normal): the exponent, and the mantissa m in [√½, √2) as
    /// 2/ln 2 · atanh(s), s = (m − 1)/(m + 1), by its series to s⁹ (|s| ≤ 0.172: the next term
    /// is under 10⁻⁸).
    @inline(__always) var log2: Lanes {
        let exponent = ((bits &>> 23) & 0xFF) &- 127
        var m = Lanes(bits: (bits & 0x7F_FFFF) | 0x3F80_0000)
        let high = Lanes(repeating: 1.414_213_5).below(m)
        m = m.choosing(m * 0.5, where: high)
        let e = Lanes(exponent &- high)
        let s = (m - 1) / (m + 1)
        let s2 = s * s
        let (c1, c3, c5, c7, c9): (Float, Float, Float, Float, Float) = (
            2.885_390_1, 0.961_796_7, 0.577_078_0, 0.412_198_6, 0.320_598_9
        )
        let series = c1 + s2 * (c3 + s2 * (c5 + s2 * (c7 + s2 * c9)))
        return e + s * series
    }

    /// 2 to each lane's power (lanes in [−126, 127]): the nearest integer n by the 1.5·2²³ trick
    /// (round to nearest even), 2ⁿ by its exponent bits, 2^f for f in [−½, ½] by its Taylor series
    /// to f⁷ (the next term is under 10⁻⁸).
    @inline(__always) static func exp2(_ t: Lanes) -> Lanes {
        let shifted = t + 12_582_912
        let n = shifted.bits &- 0x4B40_0000
        let f = t - (shifted - 12_582_912)
        let (c1, c2, c3, c4): (Float, Float, Float, Float) = (0.693_147_2, 0.240_226_5, 0.055_504_11, 0.009_618_129)
        let (c5, c6, c7): (Float, Float, Float) = (0.001_333_356, 0.000_154_035_3, 1.525_273e-5)
        var p = c6 + f * c7
        p = c4 + f * (c5 + f * p)
        p = 1 + f * (c1 + f * (c2 + f * (c3 + f * p)))
        return p * Lanes(bits: (n &+ 127) &<< 23)
    }

    /// Each lane (positive) to the power `y` (in [0, 1]): 2^(y · log₂ x), x taken as at least 10⁻³⁰
    /// and the exponent as at least −126 (both far below anything FLIP measures).
    @inline(__always) func power(_ y: Lanes) -> Lanes {
        let x = choosing(Lanes(repeating: 1e-30), where: below(Lanes(repeating: 1e-30)))
        let t = y * x.log2
        return Lanes.exp2(t.choosing(Lanes(repeating: -126), where: t.below(Lanes(repeating: -126))))
    }

    /// Lanes from `p` where `valid` lanes are (the rest 0): eight loaded at once when all are.
    @inline(__always) static func load(_ p: UnsafePointer<Float>, valid: Int) -> Lanes {
        if valid >= 8 { return UnsafeRawPointer(p).loadUnaligned(as: Lanes.self) }
        var v = Lanes(repeating: 0)
        for l in 0..<valid { v[l] = p[l] }
        return v
    }

    /// `channel` (0…3) of the `valid` RGBA8 texels at `p` as Floats (the other lanes 0): eight
    /// texels read as 32-bit words at once when all are there (on a little-endian CPU).
    @inline(__always) static func channel(_ p: UnsafePointer<UInt8>, _ channel: Int, valid: Int) -> Lanes {
        #if _endian(little)
            if valid >= 8 {
                let words = UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt32>.self)
                return Lanes(SIMD8<Int32>(truncatingIfNeeded: words &>> UInt32(8 * channel) & 0xFF))
            }
        #endif
        var v = Lanes(repeating: 0)
        for l in 0..<valid { v[l] = Float(p[4 * l + channel]) }
        return v
    }

    /// The first `valid` lanes stored at `p`.
    @inline(__always) func store(_ p: UnsafeMutablePointer<Float>, valid: Int) {
        if valid >= 8 {
            UnsafeMutableRawPointer(p).storeBytes(of: self, as: Lanes.self)
        } else {
            for l in 0..<valid { p[l] = self[l] }
        }
    }
}
