internal import TexPipeFormats
internal import TexPipePixels

/// BC6H (unsigned, HDR) behind the door (`TextureCodecs`).
struct BC6HCodec: BlockCodec {
    func encodeHDR(_ rgba: [Float], _ width: Int, _ height: Int, _ settings: TextureSettings, rows: any RowScheduler)
        -> [UInt8]
    { BC6H.encode(rgba, width: width, height: height, quality: settings.quality, rows: rows) }

    func decodeHDR(_ blocks: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format) throws -> [Float] {
        try BC6HDecoder.decode(blocks, width: width, height: height)
    }
}
