internal import TexPipeFormats
internal import TexPipeMeasures
internal import TexPipePixels

/// BC1, BC3, BC4, BC5 and BC7 behind the door (`TextureCodecs`): texpipe's encoders, then `rdo`
/// where the row takes it; BC7's PSNR block by block.
struct BCCodec: BlockCodec {
    let variant: BCVariant

    func encode(_ rgba: [UInt8], _ width: Int, _ height: Int, _ settings: TextureSettings, rows: any RowScheduler)
        -> [UInt8]
    {
        RDO.applied(
            settings.rdo,
            to: BC.encode(rgba, width: width, height: height, variant: variant, quality: settings.quality, rows: rows),
            rgba, width: width, height: height, kind: .bc(variant), rows: rows)
    }

    func decode(_ blocks: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format, srgb: Bool) throws
        -> [UInt8]
    { try BC.decode(blocks, variant: variant, width: width, height: height) }

    func squaredErrors(
        _ blocks: [UInt8], _ original: [UInt8], _ width: Int, _ height: Int, format: TextureSettings.Format, srgb: Bool
    ) throws -> SIMD4<Int64> {
        guard variant == .bc7 else {
            return Quality.squaredErrors(original, try decode(blocks, width, height, format: format, srgb: srgb))
        }
        return try BC.bc7SquaredErrors(blocks, original, width: width, height: height)
    }
}
