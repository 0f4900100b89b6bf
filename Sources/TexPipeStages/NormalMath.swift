public import TexPipePixels

/// Tangent-space normals as texels (docs/stages.md "Normal maps"): a stored value c of an image
/// whose largest value is `max` is the component 2c / max − 1; a unit vector is written back as
/// round((n + 1) / 2 · max), halves up. Shared by the normal stages and `mipmaps`' `roughnessFrom`.
/// Three plain Floats, not a SIMD3: Swift's SIMD3 arithmetic here measured 1.6× slower per texel.
public struct Normal: Sendable, Equatable {
    public var x: Float
    public var y: Float
    public var z: Float

    @inlinable @inline(__always)
    public init(_ x: Float, _ y: Float, _ z: Float) { (self.x, self.y, self.z) = (x, y, z) }

    /// The vector a texel stores (not renormalized), its components looked up in `unpack`
    /// (2c / max − 1 for every stored value c).
    @inlinable @inline(__always)
    public init<C: PixelChannel>(_ p: UnsafeBufferPointer<C>, _ i: Int, _ unpack: UnsafeBufferPointer<Float>) {
        self.init(unpack[Int(p[i])], unpack[Int(p[i + 1])], unpack[Int(p[i + 2])])
    }

    /// 2c / max − 1 for every value c of the channel type: the table `init(_:_:_:)` reads.
    public static func components<C: PixelChannel>(_: C.Type) -> [Float] {
        let max = Float(C.maxValue)
        return (0...C.maxValue).map { Float($0) * (2 / max) - 1 }
    }

    /// v / |v|; a zero vector is the flat normal (0, 0, 1).
    @inlinable @inline(__always)
    public func normalized() -> Normal {
        let l2 = x * x + y * y + z * z
        guard l2 > 0 else { return Normal(0, 0, 1) }
        let inv = 1 / l2.squareRoot()
        return Normal(x * inv, y * inv, z * inv)
    }

    /// Z rebuilt from X and Y: √max(0, 1 − x² − y²).
    @inlinable @inline(__always)
    public func rebuiltZ() -> Normal { Normal(x, y, Swift.max(0, 1 - x * x - y * y).squareRoot()) }

    /// Writes the unit vector into the texel's R, G and B: round((n + 1) / 2 · max).
    @inlinable @inline(__always)
    public func store<C: PixelChannel>(into p: UnsafeMutableBufferPointer<C>, _ i: Int, max: Float) {
        @inline(__always) func one(_ c: Float) -> C {
            C(truncatingIfNeeded: Int(Swift.min(max, Swift.max(0, (c + 1) * (max / 2) + 0.5))))
        }
        p[i] = one(x)
        p[i + 1] = one(y)
        p[i + 2] = one(z)
    }

    /// A 3×2 normal map whose texels are unit vectors that store back as themselves: the flat
    /// normal and the four axes' ends (the normal stages' conformance identity).
    public static let identityMap: [[Int]] = [
        [128, 128, 255, 255], [255, 128, 128, 255], [128, 255, 128, 255],
        [0, 128, 128, 255], [128, 0, 128, 255], [128, 128, 255, 255],
    ]
}
