internal import Foundation
internal import TexPipePixels

/// The sources of `composite`'s layers, drawn a band of canvas rows at a time as straight RGBA
/// Floats in 0…1.
enum LayerCanvas {
    typealias Size = (width: Int, height: Int)

    /// Pixels per band of Floats (1 MiB a buffer): a band holds the canvas's rows, one layer's and
    /// its mask's.
    static let bandPixels = 1 << 16

    /// What a layer draws, resolved once per image: images and masks stay as stored.
    enum Content {
        case color(SIMD4<Float>)
        /// A layer image already fitted (stretched) where `fit` says so, or the incoming image.
        case image(Image)
        case gradient(from: Color, to: Color, angle: Double)
        case text(Composite.TextContent, TextBitmap)
    }

    struct Source {
        var content: Content
        var mask: Image?
        var layer: Composite.Layer

        /// This layer's `rows` of the canvas: made, masked, scaled by opacity and composited over
        /// `canvas` (those rows, straight Floats).
        func draw(over canvas: inout [SIMD4<Float>], rows: Range<Int>, canvas size: Size) {
            var source: [SIMD4<Float>]
            switch content {
            case .color(let c): source = Array(repeating: c, count: canvas.count)
            case .image(let image):
                source = placed(image, fit: layer.fit, offset: layer.offset, canvas: size, rows: rows)
            case .gradient(let from, let to, let angle):
                source = gradient(from: from, to: to, angle: angle, canvas: size, rows: rows)
            case .text(let t, let bitmap): source = text(t, bitmap, offset: layer.offset, canvas: size, rows: rows)
            }
            if let mask {
                let placed = placed(mask, fit: layer.fit, offset: (0, 0), canvas: size, rows: rows)
                scaleAlpha(&source, byCoverageOf: placed, opacity: Float(layer.opacity))
            } else if layer.opacity < 1 {
                scaleAlpha(&source, by: Float(layer.opacity))
            }
            layer.blend.composite(source, over: &canvas, atop: layer.op == .sourceAtop)
        }
    }

    /// Straight 0…1 Floats of RGBA8/16 pixels.
    static func floats<C: PixelChannel>(_ p: UnsafeBufferPointer<C>) -> [SIMD4<Float>] {
        [SIMD4<Float>](unsafeUninitializedCapacity: p.count / 4) { out, n in
            for i in 0..<out.count { out[i] = float(p, i) }
            n = out.count
        }
    }

    /// Pixel i of RGBA8/16 pixels as straight 0…1 Floats.
    @inline(__always) static func float<C: PixelChannel>(_ p: UnsafeBufferPointer<C>, _ i: Int) -> SIMD4<Float> {
        SIMD4(Float(p[4 * i]), Float(p[4 * i + 1]), Float(p[4 * i + 2]), Float(p[4 * i + 3])) * (1 / Float(C.maxValue))
    }

    /// Floats back into the pixels: clamped to 0…1, rounded half up. A fully transparent pixel
    /// keeps the color the formulas gave it (0 after a composite with nothing on it).
    static func store<C: PixelChannel>(_ f: [SIMD4<Float>], into out: UnsafeMutableBufferPointer<C>) {
        let max = Float(C.maxValue)
        // Clamp, scale, add ½ and truncate (≥ 0, so truncation is the floor): lane by lane, no libm.
        @inline(__always) func quantized(_ v: Float) -> C {
            C(truncatingIfNeeded: Int(Swift.min(1, Swift.max(0, v)) * max + 0.5))
        }
        f.withUnsafeBufferPointer { f in
            for i in 0..<f.count {
                out[4 * i] = quantized(f[i].x)
                out[4 * i + 1] = quantized(f[i].y)
                out[4 * i + 2] = quantized(f[i].z)
                out[4 * i + 3] = quantized(f[i].w)
            }
        }
    }

    /// The layer image or mask as it will be placed: resized to the canvas for `fit: stretch`
    /// (premultiplied, triangle filter, in `colorSpace` — linear light for images, as stored for
    /// masks, whose values are coverage), otherwise as it is.
    static func fitted(
        _ image: Image, _ fit: Composite.Fit?, canvas: Size, colorSpace: ColorSpace, context: inout StageContext
    ) throws -> Image {
        guard fit == .stretch, image.width != canvas.width || image.height != canvas.height else { return image }
        var resize = Resize(width: canvas.width, height: canvas.height, filter: .triangle)
        resize.colorSpace = colorSpace
        return try resize.applied(to: image, context: &context)[0]
    }

    /// `rows` of a layer image (straight Floats) placed on the canvas by `fit` (`center`, `tile`;
    /// a stretched layer already has the canvas's size) and `offset`; transparent where it does
    /// not reach.
    static func placed(
        _ image: Image, fit: Composite.Fit?, offset: (x: Int, y: Int), canvas: Size, rows: Range<Int>
    ) -> [SIMD4<Float>] {
        switch image.pixels {
        case .rgba8(let p):
            p.withUnsafeBufferPointer {
                placed($0, image.width, image.height, fit: fit, offset: offset, canvas: canvas, rows: rows)
            }
        case .rgba16(let p):
            p.withUnsafeBufferPointer {
                placed($0, image.width, image.height, fit: fit, offset: offset, canvas: canvas, rows: rows)
            }
        case .rgbaF32: preconditionFailure("an HDR layer: the planner refuses HDR images in composite")
        }
    }

    static func placed<C: PixelChannel>(
        _ src: UnsafeBufferPointer<C>, _ w: Int, _ h: Int, fit: Composite.Fit?, offset: (x: Int, y: Int),
        canvas: Size, rows: Range<Int>
    ) -> [SIMD4<Float>] {
        let cw = canvas.width
        let ch = canvas.height
        let first = rows.lowerBound
        if w == cw && h == ch && offset == (0, 0) {
            return floats(UnsafeBufferPointer(rebasing: src[(first * cw * 4)..<(rows.upperBound * cw * 4)]))
        }
        var out = [SIMD4<Float>](repeating: .zero, count: rows.count * cw)
        out.withUnsafeMutableBufferPointer { o in
            if fit == .tile {
                for y in rows {
                    let sy = ((y - offset.y) % h + h) % h
                    for x in 0..<cw {
                        o[(y - first) * cw + x] = float(src, sy * w + ((x - offset.x) % w + w) % w)
                    }
                }
                return
            }
            let left = offset.x + (fit == .center ? (cw - w) / 2 : 0)
            let top = offset.y + (fit == .center ? (ch - h) / 2 : 0)
            let x0 = max(0, left)
            let x1 = min(cw, left + w)
            let y0 = max(first, top)
            let y1 = min(rows.upperBound, top + h)
            guard x0 < x1, y0 < y1 else { return }  // off these rows
            for y in y0..<y1 {
                let s = (y - top) * w + (x0 - left)
                for k in 0..<(x1 - x0) { o[(y - first) * cw + x0 + k] = float(src, s + k) }
            }
        }
        return out
    }

    /// `rows` of a linear gradient as CSS draws it: along the direction at `angle` degrees clockwise from
    /// "down", over a line long enough that the canvas's corners get exactly `from` and `to`;
    /// t = ((p − center) · d) / length + ½ at pixel centers, colors mixed premultiplied.
    static func gradient(from: Color, to: Color, angle: Double, canvas: Size, rows: Range<Int>) -> [SIMD4<Float>] {
        let cw = canvas.width
        let ch = canvas.height
        let θ = angle * .pi / 180
        let d = (x: -sin(θ), y: cos(θ))
        let length = abs(Double(cw) * d.x) + abs(Double(ch) * d.y)
        func premultiplied(_ c: Color) -> SIMD4<Double> { SIMD4(c.r * c.a, c.g * c.a, c.b * c.a, c.a) }
        let a = premultiplied(from)
        let b = premultiplied(to)
        var out = [SIMD4<Float>](repeating: .zero, count: cw * rows.count)
        for y in rows {
            let py = Double(y) + 0.5 - Double(ch) / 2
            for x in 0..<cw {
                let px = Double(x) + 0.5 - Double(cw) / 2
                let t = min(1, max(0, (px * d.x + py * d.y) / length + 0.5))
                let c: SIMD4<Double> = a + (b - a) * t
                guard c.w > 0 else { continue }
                let straight = SIMD3(c.x, c.y, c.z) / c.w
                out[(y - rows.lowerBound) * cw + x] = SIMD4(SIMD3<Float>(straight), Float(c.w))
            }
        }
        return out
    }

    /// `rows` of a text layer: the outline color under the fill color, each with FreeType's coverage, the
    /// ink box placed so its `anchor` point lies at `at` (+ `offset`).
    static func text(
        _ t: Composite.TextContent, _ bitmap: TextBitmap, offset: (x: Int, y: Int), canvas: Size, rows: Range<Int>
    ) -> [SIMD4<Float>] {
        let cw = canvas.width
        let ch = canvas.height
        var out = [SIMD4<Float>](repeating: .zero, count: cw * rows.count)
        guard let ink = bitmap.inkBox else { return out }
        let at = t.at.map { (Double($0.x), Double($0.y)) } ?? (Double(cw) / 2, Double(ch) / 2)
        let f = t.anchor.fraction
        let left = Int((at.0 - f.x * Double(ink.width)).rounded(.down)) + offset.x - ink.x
        let top = Int((at.1 - f.y * Double(ink.height)).rounded(.down)) + offset.y - ink.y
        let fill = SIMD4(Float(t.color.r), Float(t.color.g), Float(t.color.b), Float(t.color.a))
        let ring = t.outline.map { SIMD4(Float($0.color.r), Float($0.color.g), Float($0.color.b), Float($0.color.a)) }
        for by in 0..<bitmap.height {
            let y = top + by
            guard y >= 0 && y < ch && rows.contains(y) else { continue }
            for bx in 0..<bitmap.width {
                let x = left + bx
                guard x >= 0 && x < cw else { continue }
                let k = by * bitmap.width + bx
                let αf = fill.w * Float(bitmap.fill[k]) / 255
                var px = SIMD4(fill.x, fill.y, fill.z, αf)
                if let ring, let cover = bitmap.outline?[k] {
                    // Fill over outline, source-over, straight result.
                    let αr = ring.w * Float(cover) / 255
                    let α = αf + αr * (1 - αf)
                    let rgb =
                        α > 0
                        ? (SIMD3(fill.x, fill.y, fill.z) * αf + SIMD3(ring.x, ring.y, ring.z) * αr * (1 - αf)) / α
                        : .zero
                    px = SIMD4(rgb, α)
                }
                out[(y - rows.lowerBound) * cw + x] = px
            }
        }
        return out
    }

    /// α ← α · opacity · coverage, coverage = Y(mask) · α(mask), Y with Rec. 709 weights.
    static func scaleAlpha(_ source: inout [SIMD4<Float>], byCoverageOf mask: [SIMD4<Float>], opacity: Float) {
        source.withUnsafeMutableBufferPointer { s in
            mask.withUnsafeBufferPointer { m in
                for i in 0..<s.count {
                    let c = m[i]
                    s[i].w *= opacity * Rec709.luma(c) * c.w
                }
            }
        }
    }

    static func scaleAlpha(_ source: inout [SIMD4<Float>], by opacity: Float) {
        for i in source.indices { source[i].w *= opacity }
    }
}
