public import TexPipeParameters
public import TexPipePixels

/// `shadow`: a drop shadow under the image (docs/stages.md). The image's alpha, moved by `offset`, grown by
/// `spread` px (a square max filter) and blurred with a Gaussian of sigma `blur`, tinted `color`
/// (its alpha scales the shadow), and the image composited over it (source-over, in premultiplied
/// Float on the stored values, as CSS and ImageMagick composite). The canvas grows to hold the
/// whole shadow unless `clip`.
///
/// The Gaussian is three successive box blurs (the W3C filter-effects construction: box size
/// d = ⌊σ · 3√(2π)/4 + ½⌋), O(pixels) per pass whatever σ; it stays within 3 % of the true
/// Gaussian's peak and preserves the shadow's total alpha exactly.
public struct Shadow: Stage {
    public static let name = "shadow"
    public static let summary = "adds a blurred drop shadow under the image; the canvas grows to fit"
    public static let identity = #"{"color": "transparent", "clip": true}"#
    public static let parameters: [Parameter] = [
        Parameter(
            "offset", .integers(count: 2, -4096...4096), .defaulted(.integers([4, 4])), doc: "[x, y] of the shadow, px"),
        .number("blur", in: 0...256, default: 4, doc: "Gaussian sigma, px"),
        .color("color", default: Color(r: 0, g: 0, b: 0, a: 0.5), doc: "shadow color; its alpha scales the shadow"),
        .integer("spread", in: 0...256, default: 0, doc: "px the shape grows before blurring"),
        .boolean("clip", default: false, doc: "keep the input's size instead of growing the canvas"),
    ]

    public var offset: (x: Int, y: Int)
    public var blur: Double
    public var color: Color
    public var spread: Int
    public var clip: Bool

    public init(_ a: Arguments) {
        let o = a.integers("offset")
        offset = (o[0], o[1])
        blur = a.number("blur")
        color = a.color("color")
        spread = a.integer("spread")
        clip = a.boolean("clip")
    }

    /// The table's defaults for what is not given.
    public init(
        offset: (Int, Int)? = nil, blur: Double? = nil, color: Color? = nil, spread: Int? = nil, clip: Bool? = nil
    ) {
        self.init(
            .defaults(
                of: Self.parameters,
                [
                    "offset": offset.map { .integers([$0.0, $0.1]) }, "blur": blur.map { .number($0) },
                    "color": color.map { .color($0) }, "spread": spread.map { .integer($0) },
                    "clip": clip.map { .boolean($0) },
                ]))
    }

    /// How far the shadow reaches beyond the moved shape.
    var margin: Int { spread + (blur > 0 ? Int((3 * blur).rounded(.up)) : 0) }

    /// The canvas for a w × h image: its size and where the image sits on it.
    package func canvas(_ w: Int, _ h: Int) -> (width: Int, height: Int, x: Int, y: Int) {
        if clip { return (w, h, 0, 0) }
        let left = min(0, offset.x - margin)
        let top = min(0, offset.y - margin)
        let right = max(w, offset.x + w + margin)
        let bottom = max(h, offset.y + h + margin)
        return (right - left, bottom - top, -left, -top)
    }

    public func planned(_ input: Signature) throws -> [Signature] {
        var out = input
        if let w = input.width, let h = input.height {
            let c = canvas(w, h)
            (out.width, out.height) = (c.width, c.height)
        }
        return [out]
    }

    /// The shadow's alpha on the canvas (before the color's alpha), for tests and reuse.
    package func shadowField(of image: Image) -> [Float] {
        shadowAlpha(FloatImage(image, colorSpace: .linear), canvas(image.width, image.height)).map {
            $0 * Float(color.a)
        }
    }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        let (w, h) = (image.width, image.height)
        let c = canvas(w, h)
        let src = FloatImage(image, colorSpace: .linear)
        let alpha = shadowAlpha(src, c)
        // Image over shadow, premultiplied.
        let tint = SIMD4<Float>(Float(color.r), Float(color.g), Float(color.b), 1) * Float(color.a)
        var out = [SIMD4<Float>](unsafeUninitializedCapacity: alpha.count) { buf, n in
            for i in 0..<alpha.count { buf[i] = tint * alpha[i] }
            n = alpha.count
        }
        for y in 0..<h {
            let cy = y + c.y
            guard cy >= 0 && cy < c.height else { continue }
            for x in 0..<w {
                let cx = x + c.x
                guard cx >= 0 && cx < c.width else { continue }
                let s = src.pixels[y * w + x]
                let i = cy * c.width + cx
                out[i] = s + out[i] * (1 - s.w)
            }
        }
        let result = FloatImage(width: c.width, height: c.height, pixels: out)
            .image(depth: image.depth, alpha: image.alpha, colorSpace: .linear)
        return [image.with(width: c.width, height: c.height, pixels: result.pixels)]
    }

    /// The moved, spread and blurred alpha of the image on the canvas.
    func shadowAlpha(_ src: FloatImage, _ c: (width: Int, height: Int, x: Int, y: Int)) -> [Float] {
        var alpha = [Float](repeating: 0, count: c.width * c.height)
        for y in 0..<src.height {
            let cy = y + c.y + offset.y
            guard cy >= 0 && cy < c.height else { continue }
            for x in 0..<src.width {
                let cx = x + c.x + offset.x
                guard cx >= 0 && cx < c.width else { continue }
                alpha[cy * c.width + cx] = src.pixels[y * src.width + x].w
            }
        }
        if spread > 0 { Shadow.dilate(&alpha, c.width, c.height, spread) }
        if blur > 0 { Shadow.gaussian(&alpha, c.width, c.height, sigma: blur) }
        return alpha
    }

    /// Separable square max filter of radius r.
    static func dilate(_ a: inout [Float], _ w: Int, _ h: Int, _ r: Int) {
        var tmp = a
        for y in 0..<h {
            for x in 0..<w {
                var m: Float = 0
                for k in max(0, x - r)...min(w - 1, x + r) { m = max(m, a[y * w + k]) }
                tmp[y * w + x] = m
            }
        }
        for y in 0..<h {
            for x in 0..<w {
                var m: Float = 0
                for k in max(0, y - r)...min(h - 1, y + r) { m = max(m, tmp[k * w + x]) }
                a[y * w + x] = m
            }
        }
    }

    /// Three box blurs per axis approximating a Gaussian of `sigma` (W3C filter effects).
    static func gaussian(_ a: inout [Float], _ w: Int, _ h: Int, sigma: Double) {
        let d = Int((sigma * 3 * (2 * Double.pi).squareRoot() / 4 + 0.5).rounded(.down))
        guard d >= 2 else { return }
        // (window size, how far the window starts left of the pixel)
        let passes: [(Int, Int)] =
            d % 2 == 1
            ? [(d, (d - 1) / 2), (d, (d - 1) / 2), (d, (d - 1) / 2)]
            : [(d, d / 2), (d, d / 2 - 1), (d + 1, d / 2)]
        var line = [Float](repeating: 0, count: max(w, h))
        var result = [Float](repeating: 0, count: max(w, h))
        func blurLine(_ n: Int) {
            for (size, lead) in passes {
                // Running sum over [i − lead, i − lead + size − 1], zero outside.
                var sum: Float = 0
                for k in 0..<min(n, size - lead) { sum += line[k] }
                for i in 0..<n {
                    result[i] = sum / Float(size)
                    let enter = i - lead + size
                    let leave = i - lead
                    if enter < n { sum += line[enter] }
                    if leave >= 0 { sum -= line[leave] }
                }
                swap(&line, &result)
            }
        }
        for y in 0..<h {
            for x in 0..<w { line[x] = a[y * w + x] }
            blurLine(w)
            for x in 0..<w { a[y * w + x] = line[x] }
        }
        for x in 0..<w {
            for y in 0..<h { line[y] = a[y * w + x] }
            blurLine(h)
            for y in 0..<h { a[y * w + x] = line[y] }
        }
    }
}
