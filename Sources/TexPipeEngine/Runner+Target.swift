internal import Foundation
internal import TexPipeCodecs
internal import TexPipeFormats
internal import TexPipeMeasures
internal import TexPipePixels
internal import TexPipePlan
internal import TexPipeTextures

/// Quality targets (docs/gpu-textures.md "Quality targets"): the engine's side — a texture's
/// search is `TextureEncoder.encode(targeted:)`; an image file's (`jpeg`, `webp`, `avif`) is here.
extension Runner {
    /// `group` (a texture's levels) encoded at the setting `job.encoding.texture.target` chooses.
    static func targetedTexture(
        _ group: [Image], _ job: Job, _ container: TextureContainer, rows: any RowScheduler, metrics: QualityMetrics
    ) throws -> (bytes: [UInt8], measure: Measure) {
        let t = try TextureEncoder.encode(
            targeted: [group], job.encoding.texture, container: container, rows: rows, metrics: metrics)
        return (
            t.bytes,
            Measure(format: t.format.rawValue, gpuBytes: t.gpuBytes, psnr: t.quality, choice: t.choice)
        )
    }

    /// The target of a lossy image file kind, if its settings give one.
    static func fileTarget(_ kind: FileKind, _ files: ImageFileSettings) -> QualityTarget? {
        switch kind {
        case .jpeg: files.jpeg.target
        case .webp: files.webp.target
        case .avif: files.avif.target
        default: nil
        }
    }

    /// The quality each kind's search covers: JPEG 1…100, WebP and AVIF 0…100.
    static func qualities(_ kind: FileKind) -> ClosedRange<Int> { kind == .jpeg ? 1...100 : 0...100 }

    static func with(_ files: ImageFileSettings, _ kind: FileKind, quality: Int) -> ImageFileSettings {
        var f = files
        switch kind {
        case .jpeg: f.jpeg.quality = quality
        case .webp: f.webp.quality = quality
        case .avif: f.avif.quality = quality
        default: break
        }
        return f
    }

    /// A lossy image file at the quality its target chooses: the lowest quality whose file meets the
    /// target (`QualityTarget.lowestMeeting`: what a quality measures rises with it, near enough); then, as a file's
    /// size is not monotone in quality everywhere (JPEG's quantisation tables round to the same
    /// steps over a few qualities, and a higher one can be smaller), the next four qualities above
    /// are encoded too and any smaller file among them that also meets is taken (a tie to the
    /// lower quality). When no quality meets, the highest is written. `measure(bytes)` decodes a
    /// file back and measures it as the gates do.
    static func targetedFile(
        _ image: Image, as format: ImageFormat, _ files: ImageFileSettings, _ target: QualityTarget,
        rows: any RowScheduler, measure: ([UInt8]) throws -> LevelQuality
    ) throws -> (bytes: [UInt8], gpuBytes: Int, quality: LevelQuality, choice: TargetChoice, met: Bool) {
        let kind = format.kind
        let range = qualities(kind)
        var encoded: [Int: (bytes: [UInt8], gpuBytes: Int)] = [:]
        var measured: [Int: LevelQuality] = [:]
        func file(_ q: Int) throws -> (bytes: [UInt8], gpuBytes: Int) {
            if let e = encoded[q] { return e }
            let e = try ImageEncoder.encode(image, as: format, with(files, kind, quality: q), rows: rows)
            encoded[q] = e
            return e
        }
        func quality(_ q: Int) throws -> LevelQuality {
            if let m = measured[q] { return m }
            let m = try measure(try file(q).bytes)
            measured[q] = m
            return m
        }
        let found = try QualityTarget.lowestMeeting(range.count, above: -1) { k in
            let q = [try quality(range.lowerBound + k)]
            return (target.meets(q), target.score(q))
        }
        let hi = range.lowerBound + found
        var chosen = min(hi, range.upperBound)
        let met = hi <= range.upperBound
        if met {
            for q in (hi + 1)...min(hi + 4, range.upperBound + 1) where q <= range.upperBound {
                if try file(q).bytes.count < file(chosen).bytes.count, target.meets([try quality(q)]) { chosen = q }
            }
        }
        let e = try file(chosen)
        return (e.bytes, e.gpuBytes, try quality(chosen), TargetChoice(knob: "quality", value: String(chosen)), met)
    }
}
