internal import TexPipeFormats
internal import TexPipePixels

/// Basis Universal UASTC behind the door (`TextureCodecs`): texpipe's encoder, then `rdo`.
struct UASTCCodec: BlockCodec {
    func encode(_ rgba: [UInt8], _ width: Int, _ height: Int, _ settings: TextureSettings, rows: any RowScheduler)
        -> [UInt8]
    {
        RDO.applied(
            settings.rdo, to: UASTC.encode(rgba, width: width, height: height, quality: settings.quality, rows: rows),
            rgba, width: width, height: height, kind: .uastc, rows: rows)
    }

    func decode(_ blocks: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format, srgb: Bool) throws
        -> [UInt8]
    { try UASTCDecoder.decode(blocks, width: width, height: height) }
}
