/// IEEE 754 half floats (binary16), as GPU textures and EXR store them.
public enum Half {
    /// Each Float as a half's bit pattern: rounded to nearest even, ±65504 at most (no infinity),
    /// NaN as 0.
    public static func bits(_ values: [Float]) -> [UInt16] {
        values.map { v in
            guard !v.isNaN else { return 0 }
            return Float16(min(max(v, -65504), 65504)).bitPattern
        }
    }

    /// Half bit patterns back to Float (exact).
    public static func floats(_ bits: UnsafeBufferPointer<UInt16>) -> [Float] {
        bits.map { Float(Float16(bitPattern: $0)) }
    }
}
