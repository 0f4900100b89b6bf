/// Rounding helpers, written once, by name, and tested exhaustively (STYLE 7).
/// Every 8- and 16-bit result in texpipe is the exact value rounded half up.
public enum Rounding {
    /// round(v · a / max), half up. `max` is odd (255, 65535) so v·a/max is never a tie;
    /// the +max/2 bias then gives the nearest integer exactly.
    @inlinable @inline(__always)
    public static func mulDiv(_ v: Int, _ a: Int, max: Int) -> Int {
        (v * a + (max >> 1)) / max
    }

    /// round(n / d), half up, for non-negative n and positive d.
    @inlinable @inline(__always)
    public static func divRound(_ n: Int, _ d: Int) -> Int {
        (2 * n + d) / (2 * d)
    }

    /// A fraction 0…1 of `max`, rounded half up, clamped.
    @inlinable @inline(__always)
    public static func scaled(_ f: Double, max: Int) -> Int {
        let v = (f * Double(max) + 0.5).rounded(.down)
        return v <= 0 ? 0 : (v >= Double(max) ? max : Int(v))
    }

    /// 16-bit value to 8 bits, round(v · 255 / 65535) = round(v / 257), half up.
    @inlinable @inline(__always)
    public static func to8(_ v: UInt16) -> UInt8 {
        UInt8((Int(v) * 255 + 32767) / 65535)
    }
}
