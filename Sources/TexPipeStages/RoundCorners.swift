internal import Foundation
public import TexPipeParameters
public import TexPipePixels

/// `round-corners`: alpha outside the rounded rectangle becomes 0; the arc is anti-aliased by the
/// exact area of each pixel inside it (docs/stages.md). `radius` is one value or [tl, tr, br, bl]; radii
/// that do not fit are scaled down together, as CSS does. Straight images keep their color and get
/// alpha' = round(a · coverage); premultiplied images scale every channel.
/// An optional `border` {`width`, `color`} is stroked inside the rounded edge, anti-aliased the same
/// way: a pixel shows the border over the band between the outer and the inset rounded rectangle
/// (radii reduced by the width) and the image inside the inset one.
public struct RoundCorners: Stage {
    public static let name = "round-corners"
    public static let summary = "rounds the corners with exact-area anti-aliasing, with an optional border"
    public static let identity = #"{"radius": 0}"#
    static let borderParameters: [Parameter] = [
        .number("width", in: 0...4096, doc: "stroke width, px"),
        .color("color", doc: "stroke color"),
    ]
    public static let parameters: [Parameter] = [
        Parameter(
            "radius", .numberOrList(count: 4, 0...65536), .required,
            doc: "px (fractions allowed: 7.5), or [top-left, top-right, bottom-right, bottom-left]"),
        Parameter(
            "border", .object(borderParameters), .optional(absentDoc: "none"), doc: "a stroke along the rounded edge"),
    ]

    public var radii: [Double]
    public var border: (width: Double, color: Color)?

    public init(_ a: Arguments) {
        radii = a.numbers("radius")
        border = a.object("border").map { ($0.number("width"), $0.color("color")) }
    }

    public init(radius: [Double], border: (Double, Color)? = nil) {
        radii = radius.count == 1 ? Array(repeating: radius[0], count: 4) : radius
        self.border = border.map { (width: $0.0, color: $0.1) }
    }

    /// Radii scaled down together so adjacent ones fit each side (CSS Backgrounds 3, §5.5).
    static func fitted(_ r: [Double], _ w: Double, _ h: Double) -> [Double] {
        var f = 1.0
        for (sum, side) in [(r[0] + r[1], w), (r[3] + r[2], w), (r[0] + r[3], h), (r[1] + r[2], h)] where sum > side {
            f = min(f, side / sum)
        }
        return r.map { $0 * f }
    }

    /// Area of the pixel [x0, x1] × [y0, y1] inside the rounded rectangle [rx0, rx1] × [ry0, ry1]
    /// with radii [tl, tr, br, bl]: the rectangle overlap minus, per corner, the part of the corner
    /// square outside its quarter disc.
    static func coverage(
        _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double,
        rect: (x0: Double, y0: Double, x1: Double, y1: Double), radii r: [Double]
    ) -> Double {
        let ox0 = max(x0, rect.x0), ox1 = min(x1, rect.x1)
        let oy0 = max(y0, rect.y0), oy1 = min(y1, rect.y1)
        guard ox1 > ox0, oy1 > oy0 else { return 0 }
        var area = (ox1 - ox0) * (oy1 - oy0)
        // Corner centres and which way "outward" points.
        let corners: [(cx: Double, cy: Double, sx: Double, sy: Double, r: Double)] = [
            (rect.x0 + r[0], rect.y0 + r[0], -1, -1, r[0]),
            (rect.x1 - r[1], rect.y0 + r[1], 1, -1, r[1]),
            (rect.x1 - r[2], rect.y1 - r[2], 1, 1, r[2]),
            (rect.x0 + r[3], rect.y1 - r[3], -1, 1, r[3]),
        ]
        for c in corners where c.r > 0 {
            // The overlap within the corner square, in (u, v) = distance from the centre outward.
            let (ax0, ax1) = c.sx < 0 ? (max(ox0, c.cx - c.r), min(ox1, c.cx)) : (max(ox0, c.cx), min(ox1, c.cx + c.r))
            let (ay0, ay1) = c.sy < 0 ? (max(oy0, c.cy - c.r), min(oy1, c.cy)) : (max(oy0, c.cy), min(oy1, c.cy + c.r))
            guard ax1 > ax0, ay1 > ay0 else { continue }
            let (u0, u1) = c.sx < 0 ? (c.cx - ax1, c.cx - ax0) : (ax0 - c.cx, ax1 - c.cx)
            let (v0, v1) = c.sy < 0 ? (c.cy - ay1, c.cy - ay0) : (ay0 - c.cy, ay1 - c.cy)
            area -= (u1 - u0) * (v1 - v0) - discArea(u0, u1, v0, v1, c.r)
        }
        return min(1, max(0, area))
    }

    /// Area of [u0, u1] × [v0, v1] (all ≥ 0) inside u² + v² ≤ r², in closed form:
    /// ∫ clamp(√(r² − u²) − v0, 0, v1 − v0) du with F(u) = (u√(r² − u²) + r² asin(u/r)) / 2.
    static func discArea(_ u0: Double, _ u1: Double, _ v0: Double, _ v1: Double, _ r: Double) -> Double {
        func integral(_ u: Double) -> Double {
            let uu = min(u, r)
            return (uu * max(0, r * r - uu * uu).squareRoot() + r * r * asin(uu / r)) / 2
        }
        let ua = v1 < r ? (r * r - v1 * v1).squareRoot() : 0  // √(r²−u²) ≥ v1 for u ≤ ua
        let ub = v0 < r ? (r * r - v0 * v0).squareRoot() : 0  // √(r²−u²) ≥ v0 for u ≤ ub
        var area = 0.0
        let fullEnd = min(u1, ua)
        if fullEnd > u0 { area += (fullEnd - u0) * (v1 - v0) }
        let a = max(u0, ua), b = min(u1, ub)
        if b > a { area += integral(b) - integral(a) - v0 * (b - a) }
        return area
    }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        let (w, h) = (Double(image.width), Double(image.height))
        let outer = Self.fitted(radii, w, h)
        guard let border, border.width > 0 else {
            if outer.allSatisfy({ $0 == 0 }) { return [image] }
            var out = image
            out.run(Mask(radii: outer, premultiplied: image.alpha == .premultiplied))
            return [out]
        }
        let bw = min(border.width, min(w, h) / 2)
        let inner = outer.map { max(0, $0 - bw) }
        let innerRect = (bw, bw, w - bw, h - bw)
        let src = FloatImage(image, colorSpace: .linear)
        let tint =
            SIMD4<Float>(Float(border.color.r), Float(border.color.g), Float(border.color.b), 1) * Float(border.color.a)
        var pixels = src.pixels
        // Only pixels near an edge (within the border) or in a corner box can be partly covered.
        let edge = Int(bw.rounded(.up))
        let box = Int(max(bw, outer.max() ?? 0).rounded(.up)) + 1
        for y in 0..<image.height {
            for x in 0..<image.width {
                let nearEdge = x < edge || y < edge || x >= image.width - edge || y >= image.height - edge
                let inCornerBox = (x < box || x >= image.width - box) && (y < box || y >= image.height - box)
                if !nearEdge && !inCornerBox { continue }
                let (px, py) = (Double(x), Double(y))
                let o = Self.coverage(px, py, px + 1, py + 1, rect: (0, 0, w, h), radii: outer)
                let i = Self.coverage(px, py, px + 1, py + 1, rect: innerRect, radii: inner)
                if o == 1 && i == 1 { continue }
                let band = Float(o - i)
                let p = pixels[y * image.width + x]
                pixels[y * image.width + x] = tint * band + p * Float(i) + p * band * (1 - tint.w)
            }
        }
        let result = FloatImage(width: image.width, height: image.height, pixels: pixels)
            .image(depth: image.depth, alpha: image.alpha, colorSpace: .linear)
        return [image.with(width: image.width, height: image.height, pixels: result.pixels)]
    }

    /// Scales alpha (and, premultiplied, color) by the exact coverage, corner squares only.
    struct Mask: InPlaceKernel {
        var radii: [Double]
        var premultiplied: Bool
        func run<C: PixelChannel>(_ p: UnsafeMutableBufferPointer<C>, width: Int, height: Int) {
            let (w, h) = (Double(width), Double(height))
            let squares = [
                (0, 0, radii[0]), (width - Int(radii[1].rounded(.up)), 0, radii[1]),
                (width - Int(radii[2].rounded(.up)), height - Int(radii[2].rounded(.up)), radii[2]),
                (0, height - Int(radii[3].rounded(.up)), radii[3]),
            ]
            for (sx, sy, r) in squares where r > 0 {
                let n = Int(r.rounded(.up))
                for y in max(0, sy)..<min(height, sy + n) {
                    for x in max(0, sx)..<min(width, sx + n) {
                        let cov = RoundCorners.coverage(
                            Double(x), Double(y), Double(x + 1), Double(y + 1), rect: (0, 0, w, h), radii: radii)
                        if cov >= 1 { continue }
                        let i = (y * width + x) * 4
                        for k in (premultiplied ? 0 : 3)..<4 {
                            p[i + k] = C(truncatingIfNeeded: Int(Double(p[i + k]) * cov + 0.5))
                        }
                    }
                }
            }
        }
    }
}
