internal import TexPipeFormats
internal import TexPipePixels

/// ETC2 RGB/RGBA and EAC R11/RG11 behind the door (`TextureCodecs`).
struct ETCCodec: BlockCodec {
    let variant: ETCVariant

    func encode(_ rgba: [UInt8], _ width: Int, _ height: Int, _ settings: TextureSettings, rows: any RowScheduler)
        -> [UInt8]
    { ETC.encode(rgba, width: width, height: height, variant: variant, quality: settings.quality, rows: rows) }

    func decode(_ blocks: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format, srgb: Bool) throws
        -> [UInt8]
    { try ETCDecoder.decode(blocks, variant: variant, width: width, height: height) }
}
