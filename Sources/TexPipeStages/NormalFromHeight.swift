public import TexPipeParameters
public import TexPipePixels

/// `normal-from-height`: a tangent-space normal map from a height map (docs/stages.md "Normal
/// maps"). The height h of a texel is its `channel` in 0…1 (`luma`: 0.2126 R + 0.7152 G + 0.0722 B
/// on the stored values); its derivatives by `filter` — `sobel` (3×3 Sobel / 8), `scharr` (/ 32),
/// `central` ((h[x+1] − h[x−1]) / 2) — so a ramp rising k per texel has derivative k. With x to
/// the right and v up the image (`opengl`: glTF, Blender, Godot, Unity) or down it (`directx`),
///   n = normalize(−strength · ∂h/∂x, −strength · ∂h/∂v, 1)
/// written round((n + 1) / 2 · max); alpha max, or with `keepHeight` the height round(h · max).
/// Texels past the edge repeat the edge (`clamp`) or come from the other side (`wrap`, tiling).
public struct NormalFromHeight: Stage {
    public static let name = "normal-from-height"
    public static let summary =
        "a normal map from a height map: Sobel, Scharr or central differences, OpenGL or DirectX"
    /// A flat normal map is a constant height: it gives itself back.
    public static let identity = #"{}"#
    public static let identityInput: [[Int]]? = Array(repeating: [128, 128, 255, 255], count: 6)

    public enum Channel: String, Sendable, CaseIterable { case luma, r, g, b, a }
    public enum Filter: String, Sendable, CaseIterable { case sobel, scharr, central }
    public enum Convention: String, Sendable, CaseIterable { case opengl, directx }
    public enum Edge: String, Sendable, CaseIterable { case clamp, wrap }

    public static let parameters: [Parameter] = [
        .choice(
            "channel", Channel.self, default: .luma,
            doc: "the height: Rec. 709 luma of the stored values, or one channel"),
        .choice(
            "filter", Filter.self, default: .sobel,
            doc: "derivatives: 3×3 Sobel / 8, Scharr / 32, or central differences"),
        .number("strength", in: 0...1000, default: 1, doc: "scales the slopes: n = normalize(−s·∂h/∂x, −s·∂h/∂v, 1)"),
        .choice(
            "convention", Convention.self, default: .opengl,
            doc: "green up (opengl: glTF, Blender, Godot, Unity) or down (directx: Unreal)"),
        .choice("edge", Edge.self, default: .clamp, doc: "past the border: repeat the edge, or wrap (a tiling map)"),
        .boolean("keepHeight", default: false, doc: "store the height in alpha (else alpha is max)"),
    ]

    public var channel: Channel
    public var filter: Filter
    public var strength: Double
    public var convention: Convention
    public var edge: Edge
    public var keepHeight: Bool

    public init(_ a: Arguments) {
        channel = a.choice("channel", as: Channel.self)
        filter = a.choice("filter", as: Filter.self)
        strength = a.number("strength")
        convention = a.choice("convention", as: Convention.self)
        edge = a.choice("edge", as: Edge.self)
        keepHeight = a.boolean("keepHeight")
    }

    public init(
        channel: Channel = .luma, filter: Filter = .sobel, strength: Double = 1, convention: Convention = .opengl,
        edge: Edge = .clamp, keepHeight: Bool = false
    ) {
        (self.channel, self.filter, self.strength) = (channel, filter, strength)
        (self.convention, self.edge, self.keepHeight) = (convention, edge, keepHeight)
    }

    public var makesNormalMap: Bool { true }

    public func planned(_ input: Signature) throws -> [Signature] { [try input.drawnOn(by: Self.name)] }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        var out = consume image
        let (w, h) = (out.width, out.height)
        let scheduler = context.rows
        func make<C: PixelChannel>(_ src: [C]) -> [C] {
            [C](unsafeUninitializedCapacity: src.count) { dst, n in
                src.withUnsafeBufferPointer { s in
                    scheduler.forEachBand(rows: h, pixelsPerRow: w) { rows in
                        Band(stage: self, width: w, height: h).run(s, dst, rows: rows)
                    }
                }
                n = src.count
            }
        }
        switch out.pixels {
        case .rgba8(let p): out.pixels = .rgba8(make(p))
        case .rgba16(let p): out.pixels = .rgba16(make(p))
        case .rgbaF32: preconditionFailure("the planner admits no HDR image")
        }
        out.layout = .rgba
        out.lossless = false
        return [out]
    }

    /// One band of rows: the heights of three rows at a time (the row above, this one, below),
    /// each computed once, so the stage holds its input and output and three rows of heights.
    struct Band {
        let stage: NormalFromHeight
        let width: Int
        let height: Int

        func row(_ y: Int) -> Int {
            if y < 0 { return stage.edge == .wrap ? height - 1 : 0 }
            if y >= height { return stage.edge == .wrap ? 0 : height - 1 }
            return y
        }

        func heights<C: PixelChannel>(_ s: UnsafeBufferPointer<C>, _ y: Int, into r: inout [Float]) {
            let inv = 1 / Float(C.maxValue)
            let base = row(y) * width * 4
            for x in 0..<width {
                let i = base + 4 * x
                r[x] =
                    switch stage.channel {
                    case .luma: (0.2126 * Float(s[i]) + 0.7152 * Float(s[i + 1]) + 0.0722 * Float(s[i + 2])) * inv
                    case .r: Float(s[i]) * inv
                    case .g: Float(s[i + 1]) * inv
                    case .b: Float(s[i + 2]) * inv
                    case .a: Float(s[i + 3]) * inv
                    }
            }
        }

        func run<C: PixelChannel>(_ s: UnsafeBufferPointer<C>, _ d: UnsafeMutableBufferPointer<C>, rows: Range<Int>) {
            let w = width
            var above = [Float](repeating: 0, count: w)
            var here = [Float](repeating: 0, count: w)
            var below = [Float](repeating: 0, count: w)
            heights(s, rows.lowerBound - 1, into: &above)
            heights(s, rows.lowerBound, into: &here)
            let (side, middle, divisor): (Float, Float, Float) =
                switch stage.filter {
                case .sobel: (1, 2, 8)
                case .scharr: (3, 10, 32)
                case .central: (0, 1, 2)
                }
            let s0 = -Float(stage.strength) / divisor
            // ∂h/∂v is −∂h/∂y with v up the image (OpenGL), +∂h/∂y with v down it (DirectX).
            let sv = stage.convention == .opengl ? -s0 : s0
            let max = Float(C.maxValue)
            let wrap = stage.edge == .wrap
            for y in rows {
                heights(s, y + 1, into: &below)
                for x in 0..<w {
                    let l = x > 0 ? x - 1 : (wrap ? w - 1 : 0)
                    let r = x < w - 1 ? x + 1 : (wrap ? 0 : w - 1)
                    let dx =
                        side * (above[r] - above[l] + below[r] - below[l]) + middle * (here[r] - here[l])
                    let dy = side * (below[l] - above[l] + below[r] - above[r]) + middle * (below[x] - above[x])
                    let i = (y * w + x) * 4
                    Normal(s0 * dx, sv * dy, 1).normalized().store(into: d, i, max: max)
                    d[i + 3] = stage.keepHeight ? C(truncatingIfNeeded: Int(here[x] * max + 0.5)) : C.max
                }
                swap(&above, &here)
                swap(&here, &below)
            }
        }
    }
}
