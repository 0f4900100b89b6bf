internal import Dispatch
internal import TexPipeAtlas
internal import TexPipeCodecs
internal import TexPipePixels
internal import TexPipePlan

extension Runner {
    /// An atlas job (docs/atlases.md): every sprite decoded and through its stages (bands of sprites on
    /// the cores the run lends), trimmed; packed; each page drawn, through the page stages and
    /// written with its JSON hash; then the libGDX file; then the cache entry. One sprite that
    /// fails fails the job before anything is written.
    static func runAtlas(
        _ job: Job, _ atlas: AtlasPlan, in plan: Plan, _ options: RunOptions, _ prepared: Prepared,
        _ inputs: JobInputs, rows: any RowScheduler, loader: ResourceLoader
    ) -> (result: JobResult, bytes: [[UInt8]]) {
        groupRun(job, plan, options, prepared, inputs) { result, encoded, base in
            func fail(_ message: String, stage: String? = nil) -> GroupFailure? { GroupFailure(message, stage) }
            var t = DispatchTime.now().uptimeNanoseconds
            let n = atlas.sprites.count
            var made = [AtlasSprite?](repeating: nil, count: n)
            var problems = [StageFailure?](repeating: nil, count: n)
            var notes = [[String]](repeating: [], count: n)
            made.withUnsafeMutableBufferPointer { made in
                problems.withUnsafeMutableBufferPointer { problems in
                    notes.withUnsafeMutableBufferPointer { notes in
                        // Sprites as the rows of a band: each band writes only its own sprites' slots.
                        rows.forEachBand(rows: n, pixelsPerRow: max(1, job.input.pixels / max(1, n))) { range in
                            for k in range {
                                switch sprite(k, job, atlas, inputs, options, loader: loader) {
                                case .success(let (s, said)):
                                    made[k] = s
                                    notes[k] = said
                                case .failure(let f): problems[k] = f
                                }
                            }
                        }
                    }
                }
            }
            if let k = problems.firstIndex(where: { $0 != nil }), let f = problems[k] {
                return fail(EngineMessage.sprite(atlas.sprites[k].display, f.message), stage: f.stage)
            }
            result.notes += notes.flatMap { $0 }
            let sprites = made.map { $0! }
            result.timings.append(("sprites", elapsed(since: t)))

            t = DispatchTime.now().uptimeNanoseconds
            let packer = Packer(atlas.settings)
            let pages: [Packer.Page]
            switch packer.pack(sprites.map { Packer.Size(width: $0.image.width, height: $0.image.height) }) {
            case .success(let p): pages = p
            case .failure(.tooLarge(let k, let size, let needs, let page)):
                return fail(
                    EngineMessage.spriteTooLarge(
                        sprites[k].name, atlas.sprites[k].display, size: (size.width, size.height),
                        needs: (needs.width, needs.height), page: (page.width, page.height)), stage: "atlas")
            }
            if pages.count > 1 && !atlas.numbered {
                return fail(EngineMessage.pagesWithoutNumber(pages.count, template: atlas.template), stage: "atlas")
            }
            result.timings.append(("pack", elapsed(since: t)))

            var clock = WriteClock()
            var libGDXPages: [(page: Packer.Page, image: String)] = []
            var libGDX: PlannedOutput?
            let alpha = sprites.first?.image.alpha ?? job.input.alpha
            var context = stageContext(job, options, rows: rows)
            var pageTime: UInt64 = 0
            for (k, page) in pages.enumerated() {
                t = DispatchTime.now().uptimeNanoseconds
                let sheet = Sheet.draw(page, sprites: sprites, extrude: atlas.settings.extrude, alpha: alpha)
                let images: [Image]
                switch applyStages(
                    atlas.pageStages, to: [sheet], &context, options, loader: loader, result: &result, timed: false,
                    prefix: "page \(k): ")
                {
                case .success(let out): images = out
                case .failure(let f): return fail("page \(k): " + f.message, stage: f.stage)
                }
                pageTime += DispatchTime.now().uptimeNanoseconds - t
                let outputs: [PlannedOutput]
                switch atlas.outputs(page: k, images: images) {
                case .success(let o): outputs = o
                case .failure(let f): return fail(f.description, stage: "atlas")
                }
                if let message = write(
                    images, to: outputs, job, options, rows: rows, base: base, &result, &encoded, &clock)
                {
                    return fail(message)
                }
                guard let first = outputs.first else { continue }
                if k == 0, atlas.settings.data.contains(.libgdx) { libGDX = atlas.libGDXOutput(first: images[0]) }
                if atlas.settings.data.contains(.json) {
                    let data = AtlasData.jsonHash(
                        page, sprites: sprites, image: PathText.lastComponent(first.relative),
                        version: TexPipeVersion.string)
                    let out = atlas.jsonOutput(beside: first)
                    do { try record(data, out, options, base: base, &result, &encoded) } catch {
                        return fail(EngineMessage.output(out.relative, error))
                    }
                }
                if let libGDX {
                    libGDXPages.append((page, PathText.relative(first.path, to: PathText.parent(libGDX.path))))
                }
            }
            if let libGDX {
                do {
                    try record(
                        AtlasData.libGDX(libGDXPages, sprites: sprites), libGDX, options, base: base, &result, &encoded)
                } catch {
                    return fail(EngineMessage.output(libGDX.relative, error))
                }
            }
            result.timings.append(("pages", Double(pageTime) / 1e9))
            clock.report(into: &result)
            return nil
        }
    }

    /// One sprite: decoded, through its stages (serially: the sprites are what runs in parallel),
    /// trimmed. Its notes are prefixed with its name.
    static func sprite(
        _ k: Int, _ job: Job, _ atlas: AtlasPlan, _ inputs: JobInputs, _ options: RunOptions, loader: ResourceLoader
    ) -> Result<(AtlasSprite, [String]), StageFailure> {
        let spec = atlas.sprites[k]
        if let failure = spec.failure {
            return .failure(StageFailure(message: failure.message, stage: failure.stage))
        }
        guard let data = inputs.files[k] else {
            return .failure(StageFailure(message: inputs.errors[k] ?? EngineMessage.unreadableInput, stage: nil))
        }
        var image: Image
        var scratch = JobResult(index: job.index, status: .ok)
        do {
            image = try ImageDecoder.decode(
                data, path: spec.path, maxPixels: options.maxPixels,
                warn: { scratch.notes.append(spec.name + ": " + $0) })
        } catch {
            return .failure(StageFailure(message: "\(error)", stage: "decode"))
        }
        image.alpha = job.input.alpha
        var context = stageContext(job, options, rows: SerialRows())
        switch applyStages(
            spec.stages, to: [image], &context, options, loader: loader, result: &scratch, timed: false,
            prefix: spec.name + ": ")
        {
        case .success(let out):
            guard out.count == 1 else {
                return .failure(
                    StageFailure(message: EngineMessage.imageCount(made: out.count, planned: 1), stage: nil))
            }
            return .success(
                (AtlasSprite(name: spec.name, image: out[0], trim: atlas.settings.trim), scratch.notes))
        case .failure(let f): return .failure(f)
        }
    }
}
