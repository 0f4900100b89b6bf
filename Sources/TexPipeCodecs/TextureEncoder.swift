internal import Foundation
public import TexPipeFormats
public import TexPipePixels

/// GPU texture files: one image and its mip levels (level 0 first) encoded and put in a KTX2 or
/// DDS container. The block data of a level does not depend on how many cores encoded it.
public enum TextureEncoder {
    /// The file's bytes. `levels[0]` is the full-size image; every level must share its alpha
    /// state. Rows of blocks are split across the cores `rows` lends (astcenc's own threads).
    public static func encode(
        _ levels: [Image], _ settings: TextureSettings, container: TextureContainer,
        rows: any RowScheduler = SerialRows()
    ) throws -> [UInt8] {
        guard let first = levels.first else { throw CodecError(.textureWithoutLevels) }
        let format = settings.format
        let info = format.info
        if info.channels == .rgb {
            let translucent = Self.translucentTexels(first)
            if translucent > 0 {
                throw CodecError(.needsOpaque(format.rawValue, translucent, first.width, first.height))
            }
        }
        guard info.containers.contains(container) else {
            throw CodecError(.notInContainer(container.name, info.familyName, allowed: info.containers.map(\.rawValue)))
        }
        var data: [[UInt8]] = []
        data.reserveCapacity(levels.count)
        for level in levels {
            data.append(try TextureCodecs.encode(Self.rgba8(level), level.width, level.height, settings, rows: rows))
        }
        let premultiplied = first.alpha == .premultiplied
        switch container {
        case .ktx2:
            return try KTX2.file(first, levels.count, data, settings, premultiplied: premultiplied)
        case .dds:
            let opaque = levels.allSatisfy { Self.isOpaque($0) }
            return try DDS.file(first, levels.count, data, settings, alphaMode: premultiplied ? 2 : opaque ? 3 : 1)
        }
    }

    /// The image as tightly packed 8-bit RGBA (16-bit rounded: (v · 255 + 32767) / 65535).
    public static func rgba8(_ image: Image) -> [UInt8] {
        switch image.pixels {
        case .rgba8(let p): return p
        case .rgba16(let p):
            return p.map { UInt8((UInt32($0) * 255 + 32767) / 65535) }
        }
    }

    /// Texels whose alpha is below max.
    static func translucentTexels(_ image: Image) -> Int {
        switch image.pixels {
        case .rgba8(let p): return stride(from: 3, to: p.count, by: 4).reduce(0) { $0 + (p[$1] < 255 ? 1 : 0) }
        case .rgba16(let p): return stride(from: 3, to: p.count, by: 4).reduce(0) { $0 + (p[$1] < 65535 ? 1 : 0) }
        }
    }

    static func isOpaque(_ image: Image) -> Bool {
        switch image.pixels {
        case .rgba8(let p): return stride(from: 3, to: p.count, by: 4).allSatisfy { p[$0] == 255 }
        case .rgba16(let p): return stride(from: 3, to: p.count, by: 4).allSatisfy { p[$0] == 65535 }
        }
    }
}
