internal import Foundation
public import TexPipePixels

/// `rotate`: clockwise by `degrees` (as ImageMagick and CSS). docs/stages.md.
///
/// Resampling runs on premultiplied Float (linear light unless `colorSpace: linear`) by inverse
/// mapping, with everything outside the source transparent — so the rotated border interpolates
/// against transparency and comes out anti-aliased, never jagged and never darkened. `padding`
/// (default 2) transparent pixels on every side make room for that soft border: with `expand`
/// (default) the canvas is the bounding box of the padded image, ⌈W·|cos θ| + H·|sin θ|⌉ ×
/// ⌈W·|sin θ| + H·|cos θ|⌉ with W = w + 2·padding, H = h + 2·padding; without, the input's size,
/// centred. Multiples of 90° (any sign, any number of turns) are exact pixel moves without padding:
/// four quarter turns give the input back byte for byte. `background` is composited under the
/// result. An optional `shadow` (as the `shadow` stage) follows the rotation.
public struct Rotate: Stage {
    public static let name = "rotate"
    public static let summary = "rotates clockwise with anti-aliased borders; quarter turns are exact"
    public static let identity = #"{"degrees": 0}"#
    public static let parameters: [Parameter] = [
        .number("degrees", in: -36000...36000, doc: "clockwise angle"),
        .boolean("expand", default: true, doc: "grow the canvas to the rotated bounding box (false: keep the size)"),
        .integer("padding", in: 0...64, default: 2, doc: "transparent border added before resampling"),
        .choice("filter", Filter.self, default: .bicubic, doc: "interpolation filter"),
        ResamplingParameters.colorSpace,
        .color("background", default: .transparent, doc: "composited under the rotated image"),
        Parameter(
            "shadow", .object(Shadow.parameters), .optional(absentDoc: "none"),
            doc: "a drop shadow, as the shadow stage"),
    ]

    /// Interpolation: tent; Keys cubic with a = −0.5 (Catmull-Rom); Lanczos a = 3.
    public enum Filter: String, Sendable, CaseIterable { case bilinear, bicubic, lanczos3 }

    public var degrees: Double
    public var expand: Bool
    public var padding: Int
    public var filter: Filter
    public var colorSpace: ColorSpace
    public var background: Color
    public var shadow: Shadow?

    public init(_ a: Arguments) {
        degrees = a.number("degrees")
        expand = a.boolean("expand")
        padding = a.integer("padding")
        filter = a.choice("filter", as: Filter.self)
        colorSpace = a.choice("colorSpace", as: ColorSpace.self)
        background = a.color("background")
        shadow = a.object("shadow").map(Shadow.init)
    }

    /// The table's defaults for what is not given.
    public init(degrees: Double, expand: Bool? = nil, padding: Int? = nil, filter: Filter? = nil) {
        self.init(
            .defaults(
                of: Self.parameters,
                [
                    "degrees": .number(degrees), "expand": expand.map { .boolean($0) },
                    "padding": padding.map { .integer($0) }, "filter": filter.map { .text($0.rawValue) },
                ]))
    }

    /// Quarter turns when the angle is a multiple of 90°, else nil.
    var quarterTurns: Int? {
        let q = degrees / 90
        guard q == q.rounded() else { return nil }
        return ((Int(q) % 4) + 4) % 4
    }

    /// The output size for a w × h input.
    public func size(_ w: Int, _ h: Int) -> (width: Int, height: Int) {
        if let q = quarterTurns { return expand && q % 2 == 1 ? (h, w) : (w, h) }
        guard expand else { return (w, h) }
        let t = degrees * Double.pi / 180
        let (c, s) = (abs(cos(t)), abs(sin(t)))
        let (pw, ph) = (Double(w + 2 * padding), Double(h + 2 * padding))
        // A hair of slack so 12.000000001 does not become 13.
        return (Int((pw * c + ph * s - 1e-9).rounded(.up)), Int((pw * s + ph * c - 1e-9).rounded(.up)))
    }

    public func planned(_ input: Signature) throws -> [Signature] {
        var out = input
        if let w = input.width, let h = input.height { (out.width, out.height) = size(w, h) }
        if let shadow { return try shadow.planned(out) }
        return [out]
    }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        var rotated = quarterTurns.map { turned(image, $0) } ?? resampled(image, rows: context.rows)
        if background.a > 0 { rotated = Flatten.under(rotated, background, rows: context.rows) }
        if let shadow { return try shadow.applied(to: rotated, context: &context) }
        return [rotated]
    }

    /// An exact quarter-turn pixel move (q clockwise quarter turns), centred into the input's
    /// size when `expand` is false and the sides swap.
    func turned(_ image: Image, _ q: Int) -> Image {
        guard q != 0 else { return image }
        let (w, h) = (image.width, image.height)
        let (tw, th) = q % 2 == 1 ? (h, w) : (w, h)
        let moved = image.produced(width: tw, height: th, QuarterTurn(turns: q))
        guard !expand, (tw, th) != (w, h) else { return moved }
        let fill = Image(width: w, height: h, depth: image.depth, alpha: image.alpha)
        let canvas = image.with(width: w, height: h, pixels: fill.pixels)
        return canvas.pasting(moved, atX: (w - tw) / 2, y: (h - th) / 2, clipped: true)
    }

    struct QuarterTurn: CopyKernel {
        var turns: Int
        func run<C: PixelChannel>(
            _ src: UnsafeBufferPointer<C>, srcWidth w: Int, srcHeight h: Int,
            _ dst: UnsafeMutableBufferPointer<C>, width: Int, height: Int
        ) {
            for y in 0..<h {
                for x in 0..<w {
                    let (dx, dy): (Int, Int)
                    switch turns {
                    case 1: (dx, dy) = (h - 1 - y, x)  // clockwise
                    case 2: (dx, dy) = (w - 1 - x, h - 1 - y)
                    default: (dx, dy) = (y, w - 1 - x)
                    }
                    let s = (y * w + x) * 4
                    let d = (dy * width + dx) * 4
                    copyPixel(src, s, to: dst, d)
                }
            }
        }
    }

    /// General angles: inverse mapping with a separable kernel, outside = transparent. The source
    /// is premultiplied Float (sampled at random); each output row is made in Float and quantised
    /// straight into the result, so no Float output image exists.
    func resampled(_ image: Image, rows scheduler: any RowScheduler) -> Image {
        let src = FloatImage(image, colorSpace: colorSpace)
        let (ow, oh) = size(image.width, image.height)
        func rotated<C: PixelChannel>(_: C.Type) -> [C] {
            switch filter {
            case .bilinear: inverseMapped(src, ow, oh, Tent.self, alpha: image.alpha, rows: scheduler)
            case .bicubic: inverseMapped(src, ow, oh, KeysCubic.self, alpha: image.alpha, rows: scheduler)
            case .lanczos3: inverseMapped(src, ow, oh, Lanczos3.self, alpha: image.alpha, rows: scheduler)
            }
        }
        let pixels: PixelStorage = image.depth == 16 ? .rgba16(rotated(UInt16.self)) : .rgba8(rotated(UInt8.self))
        return image.with(width: ow, height: oh, pixels: pixels)
    }

    /// The inner loop, specialised per kernel so the weight function inlines: for each output
    /// pixel, rotate its centre back, take `2 · radius` taps per axis, normalise by the weight sum
    /// (taps outside the source count as transparent).
    func inverseMapped<K: InterpolationKernel, C: PixelChannel>(
        _ src: FloatImage, _ ow: Int, _ oh: Int, _: K.Type, alpha: AlphaState, rows scheduler: any RowScheduler
    ) -> [C] {
        let (w, h) = (src.width, src.height)
        let t = degrees * Double.pi / 180
        let (c, s) = (Float(cos(t)), Float(sin(t)))
        let taps = 2 * K.radius
        var result = [C](repeating: 0, count: ow * oh * 4)
        // Output rows are independent: bands of them run on the cores the engine lends.
        src.pixels.withUnsafeBufferPointer { p in
            result.withUnsafeMutableBufferPointer { result in
                scheduler.forEachBand(rows: oh, pixelsPerRow: ow) { rows in
                    let out = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: ow)
                    defer { out.deallocate() }
                    withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * taps) { weights in
                        for oy in rows {
                            out.initialize(repeating: .zero)
                            let dy = Float(oy) + 0.5 - Float(oh) / 2
                            for ox in 0..<ow {
                                let dx = Float(ox) + 0.5 - Float(ow) / 2
                                let u = dx * c + dy * s + Float(w) / 2 - 0.5
                                let v = -dx * s + dy * c + Float(h) / 2 - 0.5
                                let x0 = floorToInt(u) - K.radius + 1
                                let y0 = floorToInt(v) - K.radius + 1
                                if x0 + taps <= 0 || y0 + taps <= 0 || x0 >= w || y0 >= h { continue }
                                var sx: Float = 0
                                var sy: Float = 0
                                for k in 0..<taps {
                                    let wx = K.weight(u - Float(x0 + k))
                                    let wy = K.weight(v - Float(y0 + k))
                                    weights[k] = wx
                                    weights[taps + k] = wy
                                    sx += wx
                                    sy += wy
                                }
                                var acc = SIMD4<Float>()
                                if x0 >= 0, y0 >= 0, x0 + taps <= w, y0 + taps <= h {
                                    // Inside: every tap exists, and the trip counts are the kernel's constant.
                                    for k in 0..<taps {
                                        var row = SIMD4<Float>()
                                        let base = (y0 + k) * w + x0
                                        for j in 0..<taps { row += weights[j] * p[base + j] }
                                        acc += weights[taps + k] * row
                                    }
                                } else {
                                    let xa = max(0, x0), xb = min(w, x0 + taps)
                                    let ya = max(0, y0), yb = min(h, y0 + taps)
                                    for yy in ya..<yb {
                                        var row = SIMD4<Float>()
                                        let base = yy * w
                                        for xx in xa..<xb { row += weights[xx - x0] * p[base + xx] }
                                        acc += weights[taps + yy - y0] * row
                                    }
                                }
                                out[ox] = acc / (sx * sy)
                            }
                            FloatImage.store(
                                UnsafeBufferPointer(out), into: result.baseAddress! + 4 * ow * oy, alpha: alpha,
                                space: colorSpace)
                        }
                    }
                }
            }
        }
        return result
    }
}

/// ⌊x⌋ for the coordinates of a rotation: a truncation and a compare. `Float.rounded(.down)` is
/// a call to libm's floorf through the PLT on baseline x86-64, twice per output pixel here.
@inline(__always) func floorToInt(_ x: Float) -> Int {
    let i = Int(x)
    return Float(i) > x ? i - 1 : i
}

extension Rotate {
    /// An interpolation kernel as a type, so the rotation loop is specialised for it (the radius a
    /// constant the loops unroll on).
    protocol InterpolationKernel {
        static var radius: Int { get }
        static func weight(_ x: Float) -> Float
    }

    /// Tent: bilinear interpolation.
    enum Tent: InterpolationKernel {
        static var radius: Int { 1 }
        @inline(__always) static func weight(_ x: Float) -> Float { max(0, 1 - abs(x)) }
    }

    /// Keys cubic convolution, a = −0.5 (Catmull-Rom).
    enum KeysCubic: InterpolationKernel {
        static var radius: Int { 2 }
        @inline(__always) static func weight(_ x: Float) -> Float {
            let ax = abs(x)
            if ax < 1 { return (1.5 * ax - 2.5) * ax * ax + 1 }
            if ax < 2 { return ((-0.5 * ax + 2.5) * ax - 4) * ax + 2 }
            return 0
        }
    }

    /// Lanczos, a = 3, from a table of 1024 samples per unit, linearly interpolated (the table's
    /// error is below 1e-5, far under one 16-bit step) — sinf per tap was the rotation's hot spot.
    enum Lanczos3: InterpolationKernel {
        static var radius: Int { 3 }
        static let steps: Float = 1024
        static let table: [Float] = (0...(3 * 1024 + 1)).map { i in
            Float(FilterKernels.lanczos(Double(i) / 1024, a: 3))
        }
        @inline(__always) static func weight(_ x: Float) -> Float {
            let f = abs(x) * steps
            guard f < 3 * steps else { return 0 }
            let i = Int(f)
            let t = f - Float(i)
            return table.withUnsafeBufferPointer { $0[i] + ($0[i + 1] - $0[i]) * t }
        }
    }
}
