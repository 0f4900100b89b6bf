internal import TexPipePixels

/// The metadata an engine reads beside the pages (docs/atlases.md). Frames in name order, keys in a
/// fixed order, numbers as integers: the bytes depend only on the layout.
public enum AtlasData {
    /// TexturePacker's "JSON hash" for one page (what Phaser, PixiJS and Cocos read): `frames`
    /// keyed by name with `frame` (x, y and the unrotated trimmed w, h), `rotated`, `trimmed`,
    /// `spriteSourceSize`, `sourceSize`; `meta` with the page's file name, size, format and scale.
    public static func jsonHash(_ page: Packer.Page, sprites: [AtlasSprite], image: String, version: String) -> [UInt8]
    {
        var out = "{\"frames\": {\n"
        let frames = page.placements.sorted { sprites[$0.sprite].name < sprites[$1.sprite].name }
        for (k, p) in frames.enumerated() {
            let s = sprites[p.sprite]
            out += "\t" + ValueText.quoted(s.name) + ": {\n"
            out += "\t\t\"frame\": {\"x\": \(p.x), \"y\": \(p.y), \"w\": \(s.image.width), \"h\": \(s.image.height)},\n"
            out += "\t\t\"rotated\": \(p.rotated),\n"
            out += "\t\t\"trimmed\": \(s.trimmed),\n"
            out +=
                "\t\t\"spriteSourceSize\": {\"x\": \(s.offsetX), \"y\": \(s.offsetY), \"w\": \(s.image.width), \"h\": \(s.image.height)},\n"
            out += "\t\t\"sourceSize\": {\"w\": \(s.sourceWidth), \"h\": \(s.sourceHeight)}\n"
            out += "\t}" + (k + 1 < frames.count ? ",\n" : "\n")
        }
        out += "},\n\"meta\": {\n"
        out += "\t\"app\": \"texpipe\",\n"
        out += "\t\"version\": " + ValueText.quoted(version) + ",\n"
        out += "\t\"image\": " + ValueText.quoted(image) + ",\n"
        out += "\t\"format\": \"RGBA8888\",\n"
        out += "\t\"size\": {\"w\": \(page.width), \"h\": \(page.height)},\n"
        out += "\t\"scale\": \"1\"\n"
        out += "}\n}\n"
        return Array(out.utf8)
    }

    /// libGDX's TextureAtlas text format for all pages: per page a blank line, the page's file
    /// (relative to the `.atlas` file), `size`, `format`, `filter`, `repeat`; per region its name
    /// and indented `rotate`, `xy`, `size` (unrotated), `orig`, `offset` (from the original's
    /// bottom-left, as libGDX measures it) and `index`.
    public static func libGDX(_ pages: [(page: Packer.Page, image: String)], sprites: [AtlasSprite]) -> [UInt8] {
        var out = ""
        for (page, image) in pages {
            out += "\n" + image + "\n"
            out += "size: \(page.width), \(page.height)\n"
            out += "format: RGBA8888\nfilter: Linear, Linear\nrepeat: none\n"
            for p in page.placements.sorted(by: { sprites[$0.sprite].name < sprites[$1.sprite].name }) {
                let s = sprites[p.sprite]
                let bottom = s.sourceHeight - s.offsetY - s.image.height
                out += s.name + "\n"
                out += "  rotate: \(p.rotated)\n"
                out += "  xy: \(p.x), \(p.y)\n"
                out += "  size: \(s.image.width), \(s.image.height)\n"
                out += "  orig: \(s.sourceWidth), \(s.sourceHeight)\n"
                out += "  offset: \(s.offsetX), \(bottom)\n"
                out += "  index: -1\n"
            }
        }
        return Array(out.utf8)
    }
}
