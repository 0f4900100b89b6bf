internal import TexPipeFormats
internal import TexPipePixels

/// ASTC, LDR and HDR, through Arm's astcenc behind the door (`TextureCodecs`).
struct ASTCCodec: BlockCodec {
    func encode(_ rgba: [UInt8], _ width: Int, _ height: Int, _ settings: TextureSettings, rows: any RowScheduler)
        throws -> [UInt8]
    {
        guard !settings.format.info.hdr else { throw CodecError(.hdrFormatNeedsHDR(settings.format.rawValue)) }
        return try ASTC.compress(rgba, width, height, settings, rows: rows)
    }

    func decode(_ blocks: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format, srgb: Bool) throws
        -> [UInt8]
    {
        guard !format.info.hdr else { throw CodecError(.ldrFormatGotHDR(format.rawValue)) }
        return try ASTC.decompress(blocks, width: width, height: height, format: format, srgb: srgb)
    }

    func encodeHDR(_ rgba: [Float], _ width: Int, _ height: Int, _ settings: TextureSettings, rows: any RowScheduler)
        throws -> [UInt8]
    {
        guard settings.format.info.hdr else { throw CodecError(.ldrFormatGotHDR(settings.format.rawValue)) }
        return try ASTC.compressHDR(rgba, width, height, settings, rows: rows)
    }

    func decodeHDR(_ blocks: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format) throws -> [Float] {
        guard format.info.hdr else { throw CodecError(.hdrFormatNeedsHDR(format.rawValue)) }
        return try ASTC.decompressHDR(blocks, width: width, height: height, format: format)
    }
}
