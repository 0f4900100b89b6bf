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

extension SIMD16<Float> {
    /// Small non-negative integers (below 2²³) as floats, exactly: placed in the mantissa of 2²³.
    /// (The standard library's conversion goes lane by lane, out of line.)
    @inline(__always) init(small v: SIMD16<Int32>) {
        self = unsafeBitCast(v | 0x4B00_0000, to: SIMD16<Float>.self) - 8_388_608
    }

    /// Bytes as floats, exactly.
    @inline(__always) init(bytes v: SIMD16<UInt8>) {
        let wide = SIMD16<Int32>(
            Int32(v[0]), Int32(v[1]), Int32(v[2]), Int32(v[3]), Int32(v[4]), Int32(v[5]), Int32(v[6]),
            Int32(v[7]), Int32(v[8]), Int32(v[9]), Int32(v[10]), Int32(v[11]), Int32(v[12]), Int32(v[13]),
            Int32(v[14]), Int32(v[15]))
        self.init(small: wide)
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
