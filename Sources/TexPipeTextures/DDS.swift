internal import TexPipeFormats
internal import TexPipeParameters
internal import TexPipePixels

/// DDS with the DX10 header (Microsoft's DDS documentation): `DDS `, DDS_HEADER, DDS_HEADER_DXT10,
/// then every level, level 0 first.
enum DDS {
    static func file(
        _ image: Image, _ levelCount: Int, _ data: [[UInt8]], _ settings: TextureSettings, alphaMode: UInt32,
        arraySize: Int = 1, cube: Bool = false
    ) throws -> [UInt8] {
        var pieces = data.map { [$0] }
        var released = TextureEncoder.Releases(nil)
        return try file(
            width: image.width, height: image.height, depth: 0, levelCount, &pieces, settings, alphaMode: alphaMode,
            arraySize: arraySize, cube: cube, released: &released)
    }

    /// From each level's data in pieces (a volume's slices), emptied as they are copied in.
    /// `depth` > 0: a volume (`DDSD_DEPTH`, `DDSCAPS2_VOLUME`, DX10 `TEXTURE3D`), whose levels
    /// follow one another, each holding its slices.
    static func file(
        width: Int, height: Int, depth: Int, _ levelCount: Int, _ pieces: inout [[[UInt8]]],
        _ settings: TextureSettings, alphaMode: UInt32, arraySize: Int = 1, cube: Bool = false,
        released: inout TextureEncoder.Releases
    ) throws -> [UInt8] {
        let volume = depth > 0
        let info = settings.format.info
        // The encoder checked the container; a format without a DXGI code never reaches here.
        guard let dxgi = info.dxgiFormat(srgb: settings.srgb) else {
            throw CodecError(
                .settings(
                    settings.problems(in: .dds).first
                        ?? SettingsProblem("format", "\(settings.format.rawValue) has no DXGI format")))
        }
        var out = ByteWriter()
        out.bytes.reserveCapacity(148 + pieces.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } })
        out.bytes += Array("DDS ".utf8)
        let compressed = info.isBlockCompressed
        // DDSD_CAPS | HEIGHT | WIDTH | PIXELFORMAT | MIPMAPCOUNT, and LINEARSIZE or PITCH.
        var flags: UInt32 = 0x1 | 0x2 | 0x4 | 0x1000 | 0x20000
        flags |= compressed ? 0x80000 : 0x8
        if volume { flags |= 0x800000 }  // DDSD_DEPTH
        out.u32(124)  // dwSize
        out.u32(flags)
        out.u32(UInt32(height))
        out.u32(UInt32(width))
        // Pitch of a row (uncompressed) or the byte size of level 0 (block-compressed; of one
        // slice of a volume, as DirectXTex writes it).
        out.u32(UInt32(compressed ? info.levelBytes(width, height) : width * info.blockBytes))
        out.u32(UInt32(depth))  // dwDepth
        out.u32(UInt32(levelCount))
        for _ in 0..<11 { out.u32(0) }  // dwReserved1
        // DDS_PIXELFORMAT: DDPF_FOURCC with "DX10": the real format is in the DX10 header.
        out.u32(32)
        out.u32(0x4)
        out.bytes += Array("DX10".utf8)
        for _ in 0..<5 { out.u32(0) }
        // DDSCAPS_TEXTURE, and COMPLEX | MIPMAP when there are levels (COMPLEX for arrays and cubes).
        out.u32(0x1000 | (levelCount > 1 ? 0x8 | 0x400000 : 0) | (arraySize > 1 || cube || volume ? 0x8 : 0))
        // dwCaps2: DDSCAPS2_CUBEMAP with all six faces (POSITIVEX … NEGATIVEZ) for a cube,
        // DDSCAPS2_VOLUME for a volume.
        out.u32(cube ? 0x200 | 0xFC00 : volume ? 0x200000 : 0)
        for _ in 0..<3 { out.u32(0) }  // dwCaps3, dwCaps4, dwReserved2
        // DDS_HEADER_DXT10
        out.u32(dxgi)
        out.u32(volume ? 4 : 3)  // D3D10_RESOURCE_DIMENSION_TEXTURE3D or _TEXTURE2D
        out.u32(cube ? 0x4 : 0)  // miscFlag: D3D10_RESOURCE_MISC_TEXTURECUBE
        out.u32(UInt32(cube ? 1 : arraySize))  // a cube is one cube (its six faces are implied)
        out.u32(alphaMode)  // miscFlags2: DDS_ALPHA_MODE_STRAIGHT 1, PREMULTIPLIED 2, OPAQUE 3
        if volume {
            // Level by level, each level's slices in order.
            for n in pieces.indices {
                for k in pieces[n].indices {
                    out.bytes += pieces[n][k]
                    released.add(pieces[n][k].count)
                    pieces[n][k] = []
                }
            }
            return out.bytes
        }
        // `pieces[n]` holds level n of every layer (or face); DDS stores each one's whole chain in turn.
        let data = pieces.map { $0.count == 1 ? $0[0] : Array($0.joined()) }
        let slices = cube ? 6 : arraySize
        for layer in 0..<slices {
            for level in data {
                let size = level.count / slices
                out.bytes += level[(layer * size)..<((layer + 1) * size)]
            }
        }
        return out.bytes
    }
}
