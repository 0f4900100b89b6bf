public import TexPipeParameters
public import TexPipePixels

/// `normal-adjust`: a normal map between conventions and strengths (docs/stages.md "Normal maps").
/// Per texel, n = 2c / max − 1 from R, G, B; then
///   `fromXY`: z = √max(0, 1 − x² − y²) (a map stored two-channel, as BC5 and EAC RG hold it);
///   `flipY`: y = −y (OpenGL ↔ DirectX: glTF, Blender, Godot and Unity against Unreal);
///   `strength`: x · s, y · s (below 1 flattens, above 1 sharpens);
/// and the result renormalized (a zero vector becomes (0, 0, 1)) and written round((n + 1) / 2 ·
/// max). Alpha is unchanged.
public struct NormalAdjust: Stage {
    public static let name = "normal-adjust"
    public static let summary = "a normal map's green flipped (OpenGL ↔ DirectX), Z rebuilt, strength; renormalized"
    public static let identity = #"{}"#
    public static let identityInput: [[Int]]? = Normal.identityMap
    public static let parameters: [Parameter] = [
        .boolean("flipY", default: false, doc: "negate green: OpenGL-style ↔ DirectX-style"),
        .boolean("fromXY", default: false, doc: "rebuild Z = √max(0, 1 − x² − y²) from R and G"),
        .number("strength", in: 0...100, default: 1, doc: "scale X and Y before renormalizing: < 1 flatter"),
    ]

    public var flipY: Bool
    public var fromXY: Bool
    public var strength: Double

    public init(_ a: Arguments) {
        flipY = a.boolean("flipY")
        fromXY = a.boolean("fromXY")
        strength = a.number("strength")
    }

    public init(flipY: Bool = false, fromXY: Bool = false, strength: Double = 1) {
        (self.flipY, self.fromXY, self.strength) = (flipY, fromXY, strength)
    }

    public var makesNormalMap: Bool { true }

    public func planned(_ input: Signature) throws -> [Signature] { [try input.drawnOn(by: Self.name)] }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        var out = consume image
        out.runInBands(Kernel(adjust: self), on: context.rows)
        out.layout = .rgba
        out.lossless = false
        return [out]
    }

    /// One stored vector through the adjustment.
    @inline(__always) func adjusted(_ v: Normal) -> Normal {
        var n = fromXY ? v.rebuiltZ() : v
        if flipY { n.y = -n.y }
        let s = Float(strength)
        n.x *= s
        n.y *= s
        return n.normalized()
    }

    struct Kernel: InPlaceKernel {
        var adjust: NormalAdjust

        func run<C: PixelChannel>(_ p: UnsafeMutableBufferPointer<C>, width: Int, height: Int) {
            let max = Float(C.maxValue)
            let read = UnsafeBufferPointer(p)
            Normal.components(C.self).withUnsafeBufferPointer { unpack in
                var i = 0
                while i < p.count {
                    adjust.adjusted(Normal(read, i, unpack)).store(into: p, i, max: max)
                    i += 4
                }
            }
        }
    }
}
