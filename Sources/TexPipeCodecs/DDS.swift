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
        let info = settings.format.info
        // The encoder checked the container; a format without a DXGI code never reaches here.
        guard let dxgi = info.dxgiFormat(srgb: settings.srgb) else {
            throw CodecError(
                .settings(
                    settings.problems(in: .dds).first
                        ?? SettingsProblem("format", "\(settings.format.rawValue) has no DXGI format")))
        }
        var out = ByteWriter()
        out.bytes.reserveCapacity(148 + data.reduce(0) { $0 + $1.count })
        out.bytes += Array("DDS ".utf8)
        let compressed = info.isBlockCompressed
        // DDSD_CAPS | HEIGHT | WIDTH | PIXELFORMAT | MIPMAPCOUNT, and LINEARSIZE or PITCH.
        var flags: UInt32 = 0x1 | 0x2 | 0x4 | 0x1000 | 0x20000
        flags |= compressed ? 0x80000 : 0x8
        out.u32(124)  // dwSize
        out.u32(flags)
        out.u32(UInt32(image.height))
        out.u32(UInt32(image.width))
        // Pitch of a row (uncompressed) or the byte size of level 0 (block-compressed).
        out.u32(UInt32(compressed ? info.levelBytes(image.width, image.height) : image.width * info.blockBytes))
        out.u32(0)  // dwDepth
        out.u32(UInt32(levelCount))
        for _ in 0..<11 { out.u32(0) }  // dwReserved1
        // DDS_PIXELFORMAT: DDPF_FOURCC with "DX10": the real format is in the DX10 header.
        out.u32(32)
        out.u32(0x4)
        out.bytes += Array("DX10".utf8)
        for _ in 0..<5 { out.u32(0) }
        // DDSCAPS_TEXTURE, and COMPLEX | MIPMAP when there are levels (COMPLEX for arrays and cubes).
        out.u32(0x1000 | (levelCount > 1 ? 0x8 | 0x400000 : 0) | (arraySize > 1 || cube ? 0x8 : 0))
        // dwCaps2: DDSCAPS2_CUBEMAP with all six faces (POSITIVEX … NEGATIVEZ) for a cube.
        out.u32(cube ? 0x200 | 0xFC00 : 0)
        for _ in 0..<3 { out.u32(0) }  // dwCaps3, dwCaps4, dwReserved2
        // DDS_HEADER_DXT10
        out.u32(dxgi)
        out.u32(3)  // D3D10_RESOURCE_DIMENSION_TEXTURE2D
        out.u32(cube ? 0x4 : 0)  // miscFlag: D3D10_RESOURCE_MISC_TEXTURECUBE
        out.u32(UInt32(cube ? 1 : arraySize))  // a cube is one cube (its six faces are implied)
        out.u32(alphaMode)  // miscFlags2: DDS_ALPHA_MODE_STRAIGHT 1, PREMULTIPLIED 2, OPAQUE 3
        // `data[n]` holds level n of every layer (or face); DDS stores each one's whole chain in turn.
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
