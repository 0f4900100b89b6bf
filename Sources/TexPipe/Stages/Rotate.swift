internal import Foundation

/// `rotate`: clockwise by `degrees` (as ImageMagick and CSS). SPEC §3.
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
    public static let parameters: [Parameter] = [
        .number("degrees", in: -36000...36000, doc: "clockwise angle"),
        .boolean("expand", default: true, doc: "grow the canvas to the rotated bounding box (false: keep the size)"),
        .integer("padding", in: 0...64, default: 2, doc: "transparent border added before resampling"),
        .choice("filter", ["bilinear", "bicubic", "lanczos3"], default: "bicubic", doc: "interpolation filter"),
        ResamplingParameters.colorSpace,
        .color("background", default: .transparent, doc: "composited under the rotated image"),
        Parameter(
            "shadow", .object(Shadow.parameters), .optional(absentDoc: "none"),
            doc: "a drop shadow, as the shadow stage"),
    ]

    public enum Filter: String, Sendable {
        case bilinear, bicubic, lanczos3

        var radius: Int {
            switch self {
            case .bilinear: 1
            case .bicubic: 2
            case .lanczos3: 3
            }
        }

        /// Interpolation kernels: tent; Keys cubic with a = −0.5 (Catmull-Rom); Lanczos a = 3.
        func weight(_ x: Double) -> Double {
            let ax = abs(x)
            switch self {
            case .bilinear: return max(0, 1 - ax)
            case .bicubic:
                if ax < 1 { return 1.5 * ax * ax * ax - 2.5 * ax * ax + 1 }
                if ax < 2 { return -0.5 * ax * ax * ax + 2.5 * ax * ax - 4 * ax + 2 }
                return 0
            case .lanczos3: return ResampleFilter.lanczos3.weight(x)
            }
        }
    }

    public var degrees: Double
    public var expand = true
    public var padding = 2
    public var filter = Filter.bicubic
    public var colorSpace = ColorSpace.srgb
    public var background = Color.transparent
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

    public init(degrees: Double, expand: Bool = true, padding: Int = 2, filter: Filter = .bicubic) {
        self.degrees = degrees
        self.expand = expand
        self.padding = padding
        self.filter = filter
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

    public func applied(to image: Image) throws -> [Image] {
        var rotated = quarterTurns.map { turned(image, $0) } ?? resampled(image)
        if background.a > 0 { rotated = try Flatten.under(rotated, background) }
        if let shadow { return try shadow.applied(to: rotated) }
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
                    dst[d] = src[s]; dst[d + 1] = src[s + 1]; dst[d + 2] = src[s + 2]; dst[d + 3] = src[s + 3]
                }
            }
        }
    }

    /// General angles: inverse mapping with a separable kernel, outside = transparent.
    func resampled(_ image: Image) -> Image {
        let (w, h) = (image.width, image.height)
        let (ow, oh) = size(w, h)
        let src = FloatImage(image, colorSpace: colorSpace)
        let t = degrees * Double.pi / 180
        let (c, s) = (cos(t), sin(t))
        let r = filter.radius
        let taps = 2 * r
        var out = [SIMD4<Float>](repeating: .zero, count: ow * oh)
        var wx = [Double](repeating: 0, count: taps)
        var wy = [Double](repeating: 0, count: taps)
        src.pixels.withUnsafeBufferPointer { p in
            for oy in 0..<oh {
                for ox in 0..<ow {
                    // Output pixel centre relative to the output centre, rotated back (−θ).
                    let dx = Double(ox) + 0.5 - Double(ow) / 2
                    let dy = Double(oy) + 0.5 - Double(oh) / 2
                    let u = dx * c + dy * s + Double(w) / 2 - 0.5
                    let v = -dx * s + dy * c + Double(h) / 2 - 0.5
                    let x0 = Int(u.rounded(.down)) - r + 1
                    let y0 = Int(v.rounded(.down)) - r + 1
                    if x0 + taps <= 0 || y0 + taps <= 0 || x0 >= w || y0 >= h { continue }
                    var sx = 0.0
                    var sy = 0.0
                    for k in 0..<taps {
                        wx[k] = filter.weight(u - Double(x0 + k))
                        wy[k] = filter.weight(v - Double(y0 + k))
                        sx += wx[k]
                        sy += wy[k]
                    }
                    var acc = SIMD4<Float>()
                    for j in 0..<taps {
                        let yy = y0 + j
                        if yy < 0 || yy >= h || wy[j] == 0 { continue }
                        var row = SIMD4<Float>()
                        for i in 0..<taps {
                            let xx = x0 + i
                            if xx < 0 || xx >= w || wx[i] == 0 { continue }
                            row += Float(wx[i]) * p[yy * w + xx]
                        }
                        acc += Float(wy[j]) * row
                    }
                    out[oy * ow + ox] = acc / Float(sx * sy)
                }
            }
        }
        let result = FloatImage(width: ow, height: oh, pixels: out)
            .image(depth: image.depth, alpha: image.alpha, colorSpace: colorSpace)
        return image.with(width: ow, height: oh, pixels: result.pixels)
    }
}
