internal import Foundation
public import TexPipeParameters
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
    public static let takesHDR = true
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
        if let shadow {
            if input.isHDR { throw StageError(.notOnHDR(stage: "rotate with a shadow")) }
            return try shadow.planned(out)
        }
        return [out]
    }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        var rotated = quarterTurns.map { turned(image, $0) } ?? resampled(image, rows: context.rows)
        if background.a > 0 {
            rotated =
                rotated.isHDR ? Self.under(rotated, background) : Flatten.under(rotated, background, rows: context.rows)
        }
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

    /// An HDR image over `background` (linear light): premultiplied c' + b'(1 − a), straight
    /// (c·a + b·β(1 − a)) / (a + β(1 − a)).
    static func under(_ image: Image, _ background: Color) -> Image {
        var out = image
        let b = background.linear(premultiplied: true)
        let premultiplied = image.alpha == .premultiplied
        out.runFloatsInBands(on: SerialRows()) { p in
            for i in stride(from: 0, to: p.count, by: 4) {
                let a = p[i + 3]
                let outA = a + b.w * (1 - a)
                for k in 0..<3 {
                    let c = premultiplied ? p[i + k] : p[i + k] * a
                    let v = c + b[k] * (1 - a)
                    p[i + k] = premultiplied ? v : (outA > 0 ? v / outA : 0)
                }
                p[i + 3] = outA
            }
        }
        return out
    }

    struct QuarterTurn: CopyKernel {
        static var movesPixelsOnly: Bool { true }
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

    /// General angles: inverse mapping with a separable kernel, outside = transparent. The output
    /// is made in tiles of 64 × 64 pixels: each tile converts only the source pixels its taps can
    /// reach (premultiplied Float, exactly as a whole-image conversion would) into a small buffer
    /// and samples from there; each band of output rows is quantised straight into the result. So
    /// neither the source nor the output ever exists whole in Float (16 B a pixel): the stage holds
    /// the image and its rotation as stored (docs/performance.md "Memory").
    func resampled(_ image: Image, rows scheduler: any RowScheduler) -> Image {
        let (w, h) = (image.width, image.height)
        let (ow, oh) = size(w, h)
        let premultiplied = image.alpha == .premultiplied
        let space = colorSpace
        /// The rotation through the kernel of `filter`, reading source rows with `load` and handing
        /// each finished output row to `store`.
        func mapped(
            _ load: (Int, Int, Int, UnsafeMutableBufferPointer<SIMD4<Float>>) -> Void,
            _ store: (Int, UnsafeBufferPointer<SIMD4<Float>>) -> Void
        ) {
            switch filter {
            case .bilinear: inverseMapped(w, h, ow, oh, Tent.self, rows: scheduler, load: load, store: store)
            case .bicubic: inverseMapped(w, h, ow, oh, KeysCubic.self, rows: scheduler, load: load, store: store)
            case .lanczos3: inverseMapped(w, h, ow, oh, Lanczos3.self, rows: scheduler, load: load, store: store)
            }
        }
        func rotated<C: PixelChannel>(_ p: [C], _ table: [Float]) -> [C] {
            var result = [C](repeating: 0, count: ow * oh * 4)
            p.withUnsafeBufferPointer { src in
                result.withUnsafeMutableBufferPointer { dst in
                    mapped(
                        { y, x0, x1, into in
                            FloatImage.load(
                                UnsafeBufferPointer(rebasing: src[(4 * (y * w + x0))..<(4 * (y * w + x1))]),
                                into: into, premultiplied: premultiplied, space: space, table: table)
                        },
                        { oy, row in
                            FloatImage.store(
                                row, into: dst.baseAddress! + 4 * ow * oy, alpha: image.alpha, space: space)
                        })
                }
            }
            return result
        }
        let pixels: PixelStorage
        switch image.pixels {
        case .rgba8(let p): pixels = .rgba8(rotated(p, SRGB.decode8))
        case .rgba16(let p): pixels = .rgba16(rotated(p, SRGB.decode16))
        case .rgbaF32(let p):
            // HDR: linear light already, no upper bound (docs/hdr.md).
            var result = [Float](repeating: 0, count: ow * oh * 4)
            p.withUnsafeBufferPointer { src in
                result.withUnsafeMutableBufferPointer { dst in
                    mapped(
                        { y, x0, x1, into in
                            FloatImage.loadHDR(
                                UnsafeBufferPointer(rebasing: src[(4 * (y * w + x0))..<(4 * (y * w + x1))]),
                                into: into, premultiplied: premultiplied)
                        },
                        { oy, row in FloatImage.storeHDR(row, into: dst.baseAddress! + 4 * ow * oy, alpha: image.alpha)
                        })
                }
            }
            pixels = .rgbaF32(result)
        }
        return image.with(width: ow, height: oh, pixels: pixels)
    }

    static let tile = 64

    /// The inner loop, specialised per kernel so the weight function inlines: for each output
    /// pixel, rotate its centre back, take `2 · radius` taps per axis, normalise by the weight sum
    /// (taps outside the source count as transparent).
    func inverseMapped<K: InterpolationKernel>(
        _ w: Int, _ h: Int, _ ow: Int, _ oh: Int, _: K.Type, rows scheduler: any RowScheduler,
        load: (_ y: Int, _ x0: Int, _ x1: Int, _ into: UnsafeMutableBufferPointer<SIMD4<Float>>) -> Void,
        store: (_ oy: Int, _ row: UnsafeBufferPointer<SIMD4<Float>>) -> Void
    ) {
        let t = degrees * Double.pi / 180
        let (c, s) = (Float(cos(t)), Float(sin(t)))
        let taps = 2 * K.radius
        let side = Self.tile
        // The source a tile's taps can reach, at most: its rotated extent, the taps, and a margin
        // of 2 pixels each side for the rounding of the corners' coordinates.
        let reach = Int((Float(side) * (abs(c) + abs(s))).rounded(.up)) + taps + 6
        @inline(__always) func sourcePoint(_ ox: Int, _ oy: Int) -> (u: Float, v: Float) {
            let dx = Float(ox) + 0.5 - Float(ow) / 2
            let dy = Float(oy) + 0.5 - Float(oh) / 2
            return (dx * c + dy * s + Float(w) / 2 - 0.5, -dx * s + dy * c + Float(h) / 2 - 0.5)
        }
        // Output rows are independent: bands of them run on the cores the engine lends.
        do {
            scheduler.forEachBand(rows: oh, pixelsPerRow: ow) { rows in
                let out = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: ow * side)
                let patch = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: reach * reach)
                defer {
                    out.deallocate()
                    patch.deallocate()
                }
                withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * taps) { weights in
                    for ty in stride(from: rows.lowerBound, to: rows.upperBound, by: side) {
                        let tileRows = ty..<min(rows.upperBound, ty + side)
                        out.initialize(repeating: .zero)
                        for tx in stride(from: 0, to: ow, by: side) {
                            let tileColumns = tx..<min(ow, tx + side)
                            // The source rectangle under the tile: u and v are affine in (ox, oy),
                            // so their extremes are at the corners.
                            let corners = [
                                sourcePoint(tileColumns.lowerBound, tileRows.lowerBound),
                                sourcePoint(tileColumns.upperBound - 1, tileRows.lowerBound),
                                sourcePoint(tileColumns.lowerBound, tileRows.upperBound - 1),
                                sourcePoint(tileColumns.upperBound - 1, tileRows.upperBound - 1),
                            ]
                            let sx0 = max(0, floorToInt(corners.map(\.u).min()!) - K.radius - 1)
                            let sx1 = min(w, floorToInt(corners.map(\.u).max()!) + K.radius + 3)
                            let sy0 = max(0, floorToInt(corners.map(\.v).min()!) - K.radius - 1)
                            let sy1 = min(h, floorToInt(corners.map(\.v).max()!) + K.radius + 3)
                            guard sx0 < sx1, sy0 < sy1 else { continue }  // no tap lands on the source
                            let pw = sx1 - sx0
                            for y in sy0..<sy1 {
                                load(
                                    y, sx0, sx1,
                                    UnsafeMutableBufferPointer(rebasing: patch[((y - sy0) * pw)..<((y - sy0 + 1) * pw)])
                                )
                            }
                            for oy in tileRows {
                                let row = out.baseAddress! + (oy - ty) * ow
                                for ox in tileColumns {
                                    let (u, v) = sourcePoint(ox, oy)
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
                                            var sum = SIMD4<Float>()
                                            let base = (y0 + k - sy0) * pw + x0 - sx0
                                            for j in 0..<taps { sum += weights[j] * patch[base + j] }
                                            acc += weights[taps + k] * sum
                                        }
                                    } else {
                                        let xa = max(0, x0), xb = min(w, x0 + taps)
                                        let ya = max(0, y0), yb = min(h, y0 + taps)
                                        for yy in ya..<yb {
                                            var sum = SIMD4<Float>()
                                            let base = (yy - sy0) * pw - sx0
                                            for xx in xa..<xb { sum += weights[xx - x0] * patch[base + xx] }
                                            acc += weights[taps + yy - y0] * sum
                                        }
                                    }
                                    row[ox] = acc / (sx * sy)
                                }
                            }
                        }
                        for oy in tileRows {
                            store(oy, UnsafeBufferPointer(start: out.baseAddress! + (oy - ty) * ow, count: ow))
                        }
                    }
                }
            }
        }
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
