public import TexPipePixels

/// A sprite ready for packing: its pixels after its stages and the atlas's trim, and where they
/// sat in the untrimmed image (what an engine needs to restore the frame). docs/atlases.md.
public struct AtlasSprite: Sendable {
    public var name: String
    public var image: Image
    /// The untrimmed size.
    public var sourceWidth: Int
    public var sourceHeight: Int
    /// The trimmed rectangle's origin inside the untrimmed image.
    public var offsetX: Int
    public var offsetY: Int
    public var trimmed: Bool { image.width != sourceWidth || image.height != sourceHeight }

    /// `image` with its border of alpha-0 rows and columns removed when `trim` (a sprite
    /// transparent everywhere becomes 1×1 transparent at (0, 0)).
    public init(name: String, image: Image, trim: Bool) {
        self.name = name
        sourceWidth = image.width
        sourceHeight = image.height
        offsetX = 0
        offsetY = 0
        guard trim else {
            self.image = image
            return
        }
        guard let b = image.bounds(alphaAbove: 0) else {
            self.image = image.with(width: 1, height: 1, pixels: Image(width: 1, height: 1, depth: image.depth).pixels)
            return
        }
        offsetX = b.x0
        offsetY = b.y0
        let (w, h) = (b.x1 - b.x0 + 1, b.y1 - b.y0 + 1)
        self.image =
            w == image.width && h == image.height
            ? image : image.produced(width: w, height: h, RectCopy(x: b.x0, y: b.y0, width: w, height: h, to: 0, 0))
    }
}

/// Draws a page: every sprite's pixels at its frame (turned 90° clockwise when rotated: sprite
/// texel (sx, sy) of a w × h sprite lands at (x + h − 1 − sy, y + sx)), its edge texels repeated
/// `extrude` texels outward, and (0, 0, 0, 0) everywhere else. 16-bit when any sprite is (8-bit
/// values widen by × 257, exactly). docs/atlases.md.
public enum Sheet {
    public static func draw(_ page: Packer.Page, sprites: [AtlasSprite], extrude e: Int, alpha: AlphaState) -> Image {
        let depth = page.placements.contains { sprites[$0.sprite].image.depth == 16 } ? 16 : 8
        var out = Image(width: page.width, height: page.height, depth: depth, alpha: alpha)
        func paint<D: PixelChannel>(_ dst: inout [D]) {
            for p in page.placements {
                let img = sprites[p.sprite].image
                switch img.pixels {
                case .rgba8(let s): place(s, img.width, img.height, p, into: &dst, pageWidth: page.width, extrude: e)
                case .rgba16(let s): place(s, img.width, img.height, p, into: &dst, pageWidth: page.width, extrude: e)
                case .rgbaF32: preconditionFailure("an HDR sprite: the atlas runner refuses them when decoding")
                }
            }
        }
        out.pixels.modify({ paint(&$0) }, { paint(&$0) })
        return out
    }

    /// One sprite with its extrusion. Stored (u, v) shows sprite texel (u, v), or when rotated
    /// (v, h − 1 − u); texels outside the stored rectangle repeat the nearest edge texel.
    static func place<S: PixelChannel, D: PixelChannel>(
        _ src: [S], _ w: Int, _ h: Int, _ p: Packer.Placement, into dst: inout [D], pageWidth pw: Int, extrude e: Int
    ) {
        let (sw, sh) = p.rotated ? (h, w) : (w, h)
        // 8-bit into 16-bit widens by 257 (exact: 255 · 257 = 65535); same depth copies.
        let widen = S.maxValue == 255 && D.maxValue == 65535
        src.withUnsafeBufferPointer { s in
            dst.withUnsafeMutableBufferPointer { d in
                for v in -e..<(sh + e) {
                    let cv = min(max(v, 0), sh - 1)
                    var di = ((p.y + v) * pw + p.x - e) * 4
                    for u in -e..<(sw + e) {
                        let cu = min(max(u, 0), sw - 1)
                        let si = p.rotated ? ((h - 1 - cu) * w + cv) * 4 : (cv * w + cu) * 4
                        for c in 0..<4 {
                            d[di + c] =
                                widen ? D(truncatingIfNeeded: Int(s[si + c]) * 257) : D(truncatingIfNeeded: s[si + c])
                        }
                        di += 4
                    }
                }
            }
        }
    }
}
