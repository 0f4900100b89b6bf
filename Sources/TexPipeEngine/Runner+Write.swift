internal import Foundation
internal import TexPipeCache
internal import TexPipeCodecs
internal import TexPipeFormats
internal import TexPipeMeasures
internal import TexPipePixels
internal import TexPipePlan
internal import TexPipeStages
internal import TexPipeTextures

extension Runner {
    /// Encoding (the codec) and writing (the file system, the output's hash) apart: a large
    /// uncompressed texture spends more in the second.
    struct WriteClock {
        var encoding: UInt64 = 0
        var total: UInt64 = 0
        func report(into result: inout JobResult) {
            result.timings.append(("encode", Double(encoding) / 1e9))
            result.timings.append(("write", Double(total - encoding) / 1e9))
        }
    }

    /// Encodes `images` into `outputs` (an output takes one image, or a GPU texture's `levels`),
    /// each written atomically and recorded in `result`; the bytes kept in `encoded` for a remote
    /// cache. nil, or the failure's message.
    static func write(
        _ images: consuming [Image], to outputs: [PlannedOutput], _ job: Job, _ options: RunOptions,
        rows: any RowScheduler, base: String, _ result: inout JobResult, _ encoded: inout [[UInt8]],
        _ clock: inout WriteClock
    ) -> String? {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { clock.total += DispatchTime.now().uptimeNanoseconds - start }
        // PSNR per level only when a gate or a report asks: decoding the blocks back costs time.
        let measureQuality = Self.measuresQuality(job, options)
        let metrics = Self.metrics(job, options)
        // Each output takes its images out of the list, so the encoder holds the only reference
        // and frees the pixels as soon as it no longer needs them (docs/performance.md "Memory").
        var slots: [Image?] = (consume images).map { $0 }
        var next = 0
        var faces: [Image] = []
        // The files the last image's stages made beside it (`_sh.json`), for its sidecar outputs.
        var sidecars: [String: [UInt8]] = [:]
        for output in outputs {
            let t = DispatchTime.now().uptimeNanoseconds
            if let suffix = output.sidecar {
                do {
                    try record(sidecars[suffix] ?? [], output, options, base: base, &result, &encoded)
                } catch {
                    return EngineMessage.output(output.relative, error)
                }
                continue
            }
            var group: [Image] = []
            if let f = output.face {
                // A cube map into six image files: face 0's output takes the cube, each its face.
                if f == 0 || faces.isEmpty {
                    faces = slots[next]!.cubeFaces()
                    slots[next] = nil
                    next += 1
                }
                group = [faces[f]]
            } else {
                for k in next..<(next + output.levels) {
                    group.append(slots[k]!)
                    slots[k] = nil
                }
                next += output.levels
            }
            sidecars = group.first?.sidecars ?? [:]
            var sink: FLIPMapSink?
            defer {
                if let m = sink?.map {
                    result.flipMaps[PathText.relative(output.path, to: base)] = (m.mean, Self.picture(m))
                }
            }
            do {
                let bytes: [UInt8]
                var measure = Measure(format: "png", gpuBytes: 0, psnr: nil)
                if group.contains(where: \.isHDR), !output.format.isHDR, output.format.container == nil {
                    // The planner refuses this; a variant's extension could still name it.
                    throw CodecError(.ldrFormatGotHDR(output.format.name))
                }
                switch output.format.kind.row.holds {
                case .image, .hdrImage:
                    // A lossy file (JPEG, WebP, AVIF) is decoded back and measured against the
                    // image encoded.
                    let row = output.format.kind.row
                    if row.straightAlpha && group[0].alpha == .premultiplied {
                        group = [Unpremultiply.straightened(group.removeLast(), rows: rows)]
                        result.notes.append(EngineMessage.unpremultiplied(output.relative, row.name))
                    }
                    // The encoder takes the only reference when nothing is measured after it, so
                    // it can free the pixels as it goes (docs/performance.md "Memory").
                    let image = row.lossy ? group[0] : group.removeLast()
                    let metrics = row.lossy ? Self.withMap(metrics, options, &sink) : metrics
                    (bytes, measure) = try Self.imageFile(
                        image, source: row.lossy ? group[0] : nil, output, job, rows: rows,
                        measure: row.lossy && measureQuality,
                        metrics: metrics)
                case .lut, .model:
                    throw CodecError(.notWritable(output.format.name))
                case .texture(let container):
                    if job.encoding.texture.target != nil {
                        (bytes, measure) = try Self.targetedTexture(
                            group, job, container, rows: rows, metrics: Self.withMap(metrics, options, &sink))
                        break
                    }
                    let info = job.encoding.texture.format.info
                    measure.format = job.encoding.texture.format.rawValue
                    measure.gpuBytes = group.reduce(0) { $0 + info.levelBytes($1.width, $1.height) }
                    let encoded = try TextureEncoder.encode(
                        group, job.encoding.texture, container: container, rows: rows,
                        measure: measureQuality && info.isBlockCompressed,
                        metrics: Self.withMap(metrics, options, &sink))
                    bytes = encoded.bytes
                    if measureQuality && info.isBlockCompressed { measure.psnr = encoded.quality }
                }
                clock.encoding += DispatchTime.now().uptimeNanoseconds - t
                try record(bytes, output, options, base: base, &result, &encoded, measure: measure)
            } catch {
                return EngineMessage.output(output.relative, error)
            }
        }
        return nil
    }

    /// An image file's bytes and what was measured of them: a lossy file (JPEG, WebP, AVIF) is
    /// decoded back and measured against `source`, at the quality its target chooses if it has one.
    /// `source` nil: nothing is measured (the encoder holds the image's only reference).
    static func imageFile(
        _ image: consuming Image, source: Image?, _ output: PlannedOutput, _ job: Job, rows: any RowScheduler,
        measure: Bool,
        metrics: QualityMetrics
    ) throws -> ([UInt8], Measure) {
        let row = output.format.kind.row
        let kind = output.format.kind
        var m = Measure(format: kind.rawValue, gpuBytes: 0, psnr: nil)
        let measured = { (bytes: [UInt8], metrics: QualityMetrics) throws -> LevelQuality in
            guard let source else { throw CodecError(.notWritable(output.format.name)) }
            let back = TextureEncoder.rgba8(try ImageDecoder.decode(bytes, path: output.path))
            let texels = TextureEncoder.rgba8(source)
            // Alpha is measured where the file holds it (a WebP or AVIF of a non-opaque image).
            let alpha =
                row.straightAlpha && source.layout == .rgba && source.alphaStatistics().min < (1 << source.depth) - 1
            return Quality.measured(
                LevelQuality(
                    rgb: Quality.psnr(texels, back, channels: 0...2),
                    alpha: alpha ? Quality.psnr(texels, back, channels: 3...3) : nil), texels, back,
                width: source.width, height: source.height, channels: alpha ? .rgba : .rgb, metrics)
        }
        if let target = Self.fileTarget(kind, job.encoding.files), source != nil {
            let wanted = target.measures(metrics)
            let found = try Self.targetedFile(
                image, as: output.format, job.encoding.files, target, rows: rows,
                measure: { [wanted] in try measured($0, wanted) })
            (m.gpuBytes, m.psnr, m.choice) = (found.gpuBytes, [found.quality], found.choice)
            return (found.bytes, m)
        }
        let written = try ImageEncoder.encode(consume image, as: output.format, job.encoding.files, rows: rows)
        m.gpuBytes = written.gpuBytes
        if measure { m.psnr = [try measured(written.bytes, metrics)] }
        return (written.bytes, m)
    }

    /// Writes `bytes` atomically to `output` and records it in `result`.
    static func record(
        _ bytes: [UInt8], _ output: PlannedOutput, _ options: RunOptions, base: String, _ result: inout JobResult,
        _ encoded: inout [[UInt8]], measure: Measure? = nil
    ) throws {
        try AtomicWriter.write(bytes, to: output.path)
        if options.remote != nil { encoded.append(bytes) }
        result.written.append(output)
        result.recorded.append(
            .init(
                path: PathText.relative(output.path, to: base), sha256: Cache.sha256(bytes), bytes: bytes.count,
                format: measure?.format, gpuBytes: measure?.gpuBytes, psnr: measure?.psnr, choice: measure?.choice))
    }

    /// `metrics` keeping the worst FLIP map in a new `sink` when the HTML report wants it.
    static func withMap(_ metrics: QualityMetrics, _ options: RunOptions, _ sink: inout FLIPMapSink?) -> QualityMetrics
    {
        guard options.flipMaps && metrics.perceptual else { return metrics }
        var m = metrics
        sink = FLIPMapSink()
        m.flipMaps = sink
        return m
    }

    /// A FLIP map as the report shows it: the heat map, at most 160 texels on a side.
    static func picture(_ m: FLIPMapSink.Map) -> [UInt8] {
        guard m.width > 0, m.height > 0, m.values.count == m.width * m.height else { return [] }
        return (try? ImageEncoder.png(Tonemap.shown(Differ.heatMap(m.values, m.width, m.height), fitting: 160))) ?? []
    }

    /// Whether a job's levels are measured: a quality gate, a report, or `--report-metrics`.
    static func measuresQuality(_ job: Job, _ options: RunOptions) -> Bool {
        job.quality.check?.measures == true || options.measureQuality || options.reportMetrics
    }

    /// What beyond PSNR: SSIM and FLIP for their gates or `--report-metrics`; the normal angle of
    /// a normal map for its gate or `--report-metrics`.
    static func metrics(_ job: Job, _ options: RunOptions) -> QualityMetrics {
        QualityMetrics(
            perceptual: job.quality.check?.minSSIM != nil || job.quality.check?.maxFLIP != nil || options.reportMetrics,
            normals: job.quality.normalMap
                && (job.quality.check?.maxNormalError != nil || job.encoding.texture.target?.gates.maxNormalError != nil
                    || options.reportMetrics)
        )
    }

    /// What an output holds and costs, recorded beside its hash (docs/gpu-textures.md "Checks and budgets").
    struct Measure {
        var format: String
        var gpuBytes: Int
        var psnr: [LevelQuality]?
        /// What a quality target chose (nil: no target).
        var choice: TargetChoice? = nil
    }
}
