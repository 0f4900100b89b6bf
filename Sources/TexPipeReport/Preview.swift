internal import TexPipeCodecs
internal import TexPipeFormats
public import TexPipePixels
internal import TexPipeStages
internal import TexPipeTextures

/// Pictures of what a file holds, for the HTML report and `texpipe inspect --preview`: an image
/// as it is, a texture's level 0 — a cube map as a cross, an array's first layers side by side, a
/// volume's slices as a strip — and a `.cube` LUT as the volume it becomes. HDR is tonemapped.
public enum Preview {
    /// Up to `limit` indices of `count`, evenly spaced, the first and the last included.
    public static func picks(_ count: Int, limit: Int = 8) -> [Int] { TextureFile.picks(count, limit: limit) }

    /// Images side by side, left to right, tops aligned, with a 1-texel gap when `gap`.
    static func row(_ images: [Image], gap: Bool = false) -> Image {
        let spacing = gap ? 1 : 0
        let width = images.reduce(0) { $0 + $1.width } + spacing * (images.count - 1)
        let height = images.map(\.height).max() ?? 1
        var row = Image(width: width, height: height, depth: images[0].depth, alpha: images[0].alpha)
        var x = 0
        for image in images {
            row = row.pasting(image, atX: x, y: 0)
            x += image.width + spacing
        }
        return row
    }

    /// A volume's slices (level 0's `picks`) as a strip, and which slices they are.
    static func volumeStrip(_ file: TextureFile) throws -> (image: Image, slices: [Int]) {
        let slices = picks(file.depth)
        return (row(try slices.map { try file.level(0, layer: $0) }, gap: true), slices)
    }

    /// The picture of any file texpipe reads, as 8/16-bit (HDR tonemapped).
    public static func picture(path: String, maxPixels: Int = Image.defaultMaxPixels) throws -> Image {
        let bytes: [UInt8]
        switch FileReader.read(path) {
        case .success(let b): bytes = b
        case .failure(let e): throw CodecError(e.description)
        }
        var image: Image
        switch FileKind.of(bytes, path: path)?.row.holds {
        case .texture?:
            let file = try TextureFile(bytes, maxPixels: maxPixels)
            if file.isVolume {
                image = try volumeStrip(file).image
            } else if file.isCube {
                image = try cross(file)
            } else if file.isArray {
                image = row(try picks(file.layers).map { try file.level(0, layer: $0) }, gap: true)
            } else {
                image = try file.level(0)
            }
        case .lut?:
            let lut = try CubeLUT(bytes, maxTexels: maxPixels)
            let slices = lut.slices8()
            image = row(picks(slices.count).map { slices[$0] }, gap: true)
        case .image?, .hdrImage?, .model?, nil:
            image = try ImageDecoder.decode(bytes, path: path, maxPixels: maxPixels)
        }
        return Tonemap.shown(image)
    }

    /// A cube map's level 0 as a cross: +Y above +Z; −X, +Z, +X, −Z across; −Y below.
    static func cross(_ file: TextureFile) throws -> Image {
        let faces = try (0..<6).map { try file.level(0, layer: $0) }
        let n = faces[0].width
        var cross = Image(width: 4 * n, height: 3 * n, depth: faces[0].depth, alpha: faces[0].alpha)
        for (f, (cx, cy)) in [(2, (1, 0)), (1, (0, 1)), (4, (1, 1)), (0, (2, 1)), (5, (3, 1)), (3, (1, 2))] {
            cross = cross.pasting(faces[f], atX: cx * n, y: cy * n)
        }
        return cross
    }
}
