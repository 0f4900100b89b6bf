internal import Foundation
internal import TexPipeCache
internal import TexPipeCodecs
public import TexPipeEngine
internal import TexPipeMeasures
internal import TexPipePixels
public import TexPipePlan
internal import TexPipeStages
internal import TexPipeTextures

/// `--html DIR`: the static page (docs/command-line.md "Reports"): failures and warnings first, the
/// totals against their budgets, the per-pipeline output tables, then every job's pictures.
extension Reports {
    /// A static page (no scripts, no network): per job the input and every output side by side
    /// on a checkerboard, failed jobs with their error. Thumbnails (at most 160 px) are made by
    /// texpipe itself into `DIR/thumbs/`.
    public static func html(
        _ plan: Plan, _ results: [JobResult], to dir: String, budgets: [Gates.PipelineTotal]? = nil
    ) throws {
        let budgets = budgets ?? Gates.pipelineTotals(plan, results)
        try FileManager.default.createDirectory(atPath: dir + "/thumbs", withIntermediateDirectories: true)
        func thumbnail(_ path: String, _ name: String) -> String? {
            guard case .success(let bytes) = FileReader.read(path),
                let image = try? ImageDecoder.decode(bytes, path: path)
            else { return nil }
            return thumbnail(image, name)
        }
        func thumbnail(_ hdrOrNot: Image, _ name: String) -> String? {
            guard let png = try? ImageEncoder.png(Tonemap.shown(hdrOrNot, fitting: 160)) else { return nil }
            try? AtomicWriter.write(png, to: dir + "/thumbs/" + name)
            return "thumbs/" + name
        }
        let failed = results.filter { $0.status == .failed }.count
        var h = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>texpipe report</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
            main { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
            .job { border: 1px solid #ccc; border-radius: 6px; padding: 8px 12px; }
            .job h2 { font-size: 13px; margin: 0 0 8px; }
            .job.failed { border-color: #c33; background: #fff4f4; }
            .row { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
            figure { margin: 0; text-align: center; font-size: 12px; }
            \(checkerCSS)
            .checker img { display: block; image-rendering: pixelated; }
            .error { color: #a00; font-family: monospace; }
            .page { position: relative; }
            .frames { position: absolute; left: 0; top: 0; }
            .frames rect { fill: transparent; stroke: #e0217a; stroke-width: 1; }
            .frames rect:hover { fill: rgba(224, 33, 122, 0.25); }
            table.outputs { border-collapse: collapse; margin: 0 0 20px; font-size: 13px; }
            table.outputs th, table.outputs td { border-bottom: 1px solid #ddd; padding: 3px 10px; text-align: right; }
            table.outputs th { cursor: pointer; background: #f4f4f4; user-select: none; }
            table.outputs td:first-child, table.outputs th:first-child { text-align: left; }
            table.outputs tr.over td { background: #fff0f0; }
            table.outputs tfoot td { font-weight: 600; border-top: 2px solid #999; }
            .under { color: #a00; font-weight: 600; }
            #failures li { font-family: monospace; font-size: 12px; color: #a00; }
            #failures li.warning { color: #850; }
            details { margin: 0 0 8px; }
            details > summary { cursor: pointer; font-weight: 600; }
            </style></head><body>
            <h1>texpipe report</h1>
            <p id="summary">\(xml(Self.shownManifest(plan.manifest.file))): \(results.count) jobs, \(results.count - failed) ok, \(failed) failed, \(results.filter(\.cacheHit).count) up to date</p>

            """
        // What a reviewer looks for first: what failed, the gates that failed, the totals against
        // the budgets; then the per-output tables, folded per pipeline; then the pictures.
        h += failures(plan, results, budgets)
        h += totals(budgets)
        h += outputTables(plan, results, budgets)
        h += "<h2>Pictures</h2>\n<main>\n"
        for (job, r) in zip(plan.jobs, results) {
            let title =
                "\(xml(job.pipeline)) · \(xml(name(job, plan)))" + (job.variant.map { " · \(xml($0))" } ?? "")
            h +=
                "<section class=\"job\(r.status == .failed ? " failed" : "")\" id=\"job-\(job.index)\"><h2>\(title)</h2>\n"
            if let e = r.error { h += "<p class=\"error\">\(xml(e))</p>\n" }
            h += "<div class=\"row\">"
            switch job.work {
            case .atlas:
                if r.status == .ok { h += atlasFigures(r.written, job.index, dir: dir, thumbnail) }
                h += "</div></section>\n"
                continue
            case .image, .array, .volume, .lut, .model, .modelTexture: break
            }
            if let t = thumbnail(job.input.path, "\(job.index)-input.png") {
                h +=
                    "<figure><div class=\"checker\"><img src=\"\(t)\" alt=\"input\"></div><figcaption>input</figcaption></figure>"
            }
            if r.status == .ok {
                for (k, out) in job.outputs.enumerated() {
                    let rel = relative(out.path, plan)
                    if out.format.container != nil {
                        h += textureFigures(out, rel, "\(job.index)-\(k)", thumbnail)
                        continue
                    }
                    if let t = thumbnail(out.path, "\(job.index)-\(k).png") {
                        h +=
                            "<figure><div class=\"checker\"><img src=\"\(t)\" alt=\"\(xml(rel))\"></div><figcaption>\(xml(out.relative))</figcaption></figure>"
                    }
                }
            }
            // A job whose gates failed or warned: where each measured output differs from what was
            // encoded, as the FLIP map of its worst level (black 0, red, yellow, white 1).
            if r.status == .failed || !r.warnings.isEmpty {
                for (k, (path, m)) in r.flipMaps.sorted(by: { $0.key < $1.key }).enumerated() where !m.png.isEmpty {
                    let name = "thumbs/\(job.index)-flip-\(k).png"
                    try? AtomicWriter.write(m.png, to: dir + "/" + name)
                    h +=
                        "<figure class=\"flip\"><img src=\"\(name)\" alt=\"FLIP error map of \(xml(path))\"><figcaption>FLIP error of \(xml(path)): its worst level, mean \(String(format: "%.4f", m.mean))</figcaption></figure>"
                }
            }
            h += "</div></section>\n"
        }
        h += "</main>\n" + sortScript + "</body></html>\n"
        try AtomicWriter.write(Array(h.utf8), to: dir + "/index.html")
    }

    /// A checkerboard behind transparent pictures (the run's report and `texpipe diff`'s page).
    static let checkerCSS = """
        .checker { background-color: #fff; background-image:
          linear-gradient(45deg, #ccc 25%, transparent 25%), linear-gradient(-45deg, #ccc 25%, transparent 25%),
          linear-gradient(45deg, transparent 75%, #ccc 75%), linear-gradient(-45deg, transparent 75%, #ccc 75%);
          background-size: 16px 16px; background-position: 0 0, 0 8px, 8px -8px, -8px 0; display: inline-block; }
        """

    /// The manifest as the run named it, relative to the folder texpipe ran in when it lies below
    /// it (a report made from an absolute path shows no machine's folders).
    static func shownManifest(_ file: String) -> String {
        guard file.hasPrefix("/") else { return file }
        return PathText.relative(file, to: FileManager.default.currentDirectoryPath)
    }

    /// Failed jobs (linked to their pictures) and the gates that failed, warnings included.
    static func failures(_ plan: Plan, _ results: [JobResult], _ budgets: [Gates.PipelineTotal]) -> String {
        var items: [String] = []
        for (job, r) in zip(plan.jobs, results) {
            if r.status == .failed, let e = r.error {
                items.append("<li><a href=\"#job-\(job.index)\">\(xml(e))</a></li>")
            }
            for w in r.warnings {
                items.append("<li class=\"warning\"><a href=\"#job-\(job.index)\">\(xml(w))</a></li>")
            }
        }
        for b in budgets {
            for f in b.findings {
                items.append("<li\(f.severity == .warning ? " class=\"warning\"" : "")>\(xml(f.message))</li>")
            }
        }
        guard !items.isEmpty else { return "" }
        return "<section id=\"failures\"><h2>Failures and warnings</h2><ul>\n" + items.joined(separator: "\n")
            + "\n</ul></section>\n"
    }

    /// Each pipeline with a check: its outputs' file and GPU bytes against its budget.
    static func totals(_ budgets: [Gates.PipelineTotal]) -> String {
        guard !budgets.isEmpty else { return "" }
        func kb(_ n: Int) -> String { String(format: "%.1f KiB", Double(n) / 1024) }
        func against(_ total: Int, _ max: Int?) -> String {
            guard let max else { return kb(total) }
            return "<span\(total > max ? " class=\"under\"" : "")>\(kb(total)) of \(kb(max))</span>"
        }
        var h = "<h2>Totals</h2>\n<table class=\"outputs\" id=\"totals\"><thead><tr>"
        h += "<th>pipeline</th><th>files</th><th>GPU</th></tr></thead><tbody>\n"
        for b in budgets {
            h += "<tr\(b.findings.isEmpty ? "" : " class=\"over\"")><td>\(xml(b.pipeline))</td>"
            h +=
                "<td>\(against(b.bytes, b.check.maxTotalBytes))</td><td>\(against(b.gpuBytes, b.check.maxGPUBytes))</td></tr>\n"
        }
        return h + "</tbody></table>\n"
    }

    /// Per pipeline (per pipeline and variant where a variant sets the budget), a table of its
    /// outputs — format, file bytes, GPU bytes, the worst level's PSNR — largest GPU bytes first,
    /// with the totals against the budget; a click on a heading sorts by that column.
    static func outputTables(_ plan: Plan, _ results: [JobResult], _ budgets: [Gates.PipelineTotal]) -> String {
        var rows: [(pipeline: String, output: Cache.Entry.Output, over: Bool)] = []
        // Each table's quality target, in words, when its outputs have one.
        var targets: [String: String] = [:]
        for (job, r) in zip(plan.jobs, results) {
            for o in r.recorded where o.format != nil {
                if o.choice != nil, let t = Gates.target(job, format: o.format!) {
                    targets[job.quality.budget.isEmpty ? job.pipeline : job.quality.budget] = t.words
                }
                // The job's own verdict on the output (the gates ask the same one).
                let failed = job.quality.check.map { !$0.failures(of: o.path, bytes: o.bytes, levels: o.psnr).isEmpty }
                let unmet =
                    o.choice != nil && Gates.target(job, format: o.format!).map { !$0.meets(o.psnr ?? []) } == true
                rows.append(
                    (job.quality.budget.isEmpty ? job.pipeline : job.quality.budget, o, failed == true || unmet))
            }
        }
        guard !rows.isEmpty else { return "" }
        var pipelines: [String] = []
        for r in rows where !pipelines.contains(r.pipeline) { pipelines.append(r.pipeline) }
        func kb(_ n: Int) -> String { String(format: "%.1f KiB", Double(n) / 1024) }
        var h = "<h2>Outputs</h2>\n"
        for p in pipelines {
            let mine = rows.filter { $0.pipeline == p }.sorted {
                ($0.output.gpuBytes ?? 0, $1.output.path) > ($1.output.gpuBytes ?? 0, $0.output.path)
            }
            let budget = budgets.first { $0.pipeline == p }
            // Folded, unless something in it is over a gate.
            let open = mine.contains(where: \.over) || budget.map { !$0.findings.isEmpty } == true
            h += "<details\(open ? " open" : "")><summary>\(xml(p)) · \(mine.count) outputs</summary>\n"
            if let c = budget?.check {
                let limits =
                    [
                        c.minPSNR.map { String(format: "PSNR ≥ %.2f dB", $0) },
                        c.minSSIM.map { String(format: "SSIM ≥ %.4f", $0) },
                        c.maxFLIP.map { String(format: "FLIP ≤ %.4f", $0) },
                        c.maxNormalError?.mean.map { String(format: "normal mean ≤ %.2f°", $0) },
                        c.maxNormalError?.p99.map { String(format: "normal p99 ≤ %.2f°", $0) },
                        c.maxBytes.map { "each file ≤ \(kb($0))" },
                        c.maxTotalBytes.map { "files ≤ \(kb($0))" }, c.maxGPUBytes.map { "GPU ≤ \(kb($0))" },
                    ].compactMap { $0 }
                h += "<p>check: \(limits.joined(separator: " · ")) (\(c.severity.rawValue))</p>\n"
            }
            if let t = targets[p] {
                h += "<p>target: \(xml(t)), the smallest output meeting it chosen per output</p>\n"
            }
            h += "<table class=\"outputs\" id=\"outputs-\(xml(p))\"><thead><tr>"
            h += "<th>output</th><th>format</th><th>file</th><th>GPU</th><th>worst PSNR</th>"
            h += "<th>worst SSIM</th><th>worst FLIP</th><th>normal mean / p99</th></tr></thead><tbody>\n"
            var bytes = 0
            var gpu = 0
            for r in mine {
                let o = r.output
                bytes += o.bytes
                gpu += o.gpuBytes ?? 0
                let worst = o.psnr.flatMap { $0.map(\.worst).min() }
                let minPSNR = budget?.check.minPSNR
                let psnr =
                    worst.map { w in
                        let text = w >= LevelQuality.identical ? "exact" : String(format: "%.2f dB", w)
                        return minPSNR.map { w < $0 } == true ? "<span class=\"under\">\(text)</span>" : text
                    } ?? "—"
                h += "<tr\(r.over ? " class=\"over\"" : "")><td data-v=\"\(xml(o.path))\">\(xml(o.path))</td>"
                // A quality target's choice beside the format: "etc1s · qlevel 96".
                let format =
                    (o.format ?? "")
                    + (o.choice.map {
                        $0.knob == nil ? " · chosen" : $0.knob == "block" ? " · block chosen" : " · " + $0.words
                    }
                        ?? "")
                h += "<td data-v=\"\(xml(format))\">\(xml(format))</td>"
                h +=
                    "<td data-v=\"\(o.bytes)\">\(kb(o.bytes))</td><td data-v=\"\(o.gpuBytes ?? 0)\">\(kb(o.gpuBytes ?? 0))</td>"
                h += "<td data-v=\"\(worst ?? -1)\">\(psnr)</td>"
                let levels = o.psnr ?? []
                let ssim = levels.compactMap(\.worstSSIM).min()
                let flip = levels.compactMap(\.flip).max()
                let normal = (levels.compactMap(\.normalMean).max(), levels.compactMap(\.normalP99).max())
                let c = budget?.check
                func marked(_ text: String, _ bad: Bool) -> String {
                    bad ? "<span class=\"under\">\(text)</span>" : text
                }
                h +=
                    "<td data-v=\"\(ssim ?? -1)\">"
                    + (ssim.map { v in marked(String(format: "%.4f", v), c?.minSSIM.map { v < $0 } == true) } ?? "—")
                    + "</td><td data-v=\"\(flip ?? -1)\">"
                    + (flip.map { v in marked(String(format: "%.4f", v), c?.maxFLIP.map { v > $0 } == true) } ?? "—")
                    + "</td><td data-v=\"\(normal.0 ?? -1)\">"
                    + (normal.0.map { mean in
                        let bad =
                            c?.maxNormalError?.mean.map { mean > $0 } == true
                            || c?.maxNormalError?.p99.map { (normal.1 ?? 0) > $0 } == true
                        return marked(String(format: "%.2f° / %.2f°", mean, normal.1 ?? 0), bad)
                    } ?? "—") + "</td></tr>\n"
            }
            h += "</tbody><tfoot><tr><td>\(mine.count) outputs</td><td></td>"
            func against(_ total: Int, _ max: Int?) -> String {
                guard let max else { return kb(total) }
                let mark = total > max ? " class=\"under\"" : ""
                return "<span\(mark)>\(kb(total)) of \(kb(max))</span>"
            }
            h +=
                "<td>\(against(bytes, budget?.check.maxTotalBytes))</td><td>\(against(gpu, budget?.check.maxGPUBytes))</td><td></td><td></td><td></td><td></td>"
            h += "</tr></tfoot></table></details>\n"
        }
        return h
    }

    /// Sorts a table of outputs by the clicked column (numbers by value), toggling the direction:
    /// the page's only script, inline (no network).
    static let sortScript = """
        <script>
        document.querySelectorAll("table.outputs th").forEach((th, col) => th.addEventListener("click", () => {
          const body = th.closest("table").tBodies[0];
          const down = th.dataset.dir !== "down";
          th.dataset.dir = down ? "down" : "up";
          const key = r => { const v = r.cells[col].dataset.v; const n = parseFloat(v); return isNaN(n) ? v : n; };
          [...body.rows].sort((a, b) => { const x = key(a), y = key(b); return (x < y ? -1 : x > y ? 1 : 0) * (down ? -1 : 1); })
            .forEach(r => body.appendChild(r));
        }));
        </script>

        """

    /// An atlas's pages, each with its frames outlined (an SVG over the picture, named on hover
    /// from the page's JSON hash), and its data files listed.
    static func atlasFigures(
        _ written: [PlannedOutput], _ index: Int, dir: String, _ thumbnail: (Image, String) -> String?
    ) -> String {
        var h = ""
        for (k, out) in written.enumerated() where !out.isData {
            if out.format.container != nil {
                h += textureFigures(out, out.relative, "\(index)-\(k)", thumbnail)
                continue
            }
            guard case .success(let bytes) = FileReader.read(out.path),
                let decoded = try? ImageDecoder.decode(bytes, path: out.path)
            else { continue }
            // Pages are shown larger than job thumbnails: up to 640 px.
            let scale = min(1, 640 / Double(max(decoded.width, decoded.height)))
            let shown = Tonemap.shown(decoded, fitting: 640)
            guard let png = try? ImageEncoder.png(shown) else { continue }
            let name = "thumbs/\(index)-page\(k).png"
            try? AtomicWriter.write(png, to: dir + "/" + name)
            h += pageFigure(out, shown, name, frames: frames(besides: out), scale: scale)
        }
        let data = written.filter(\.isData).map { xml($0.relative) }
        if !data.isEmpty { h += "<p>data: " + data.joined(separator: ", ") + "</p>" }
        return h
    }

    /// The frames a page's JSON hash lists: name, x, y, w, h, rotated.
    static func frames(besides page: PlannedOutput) -> [(name: String, x: Int, y: Int, w: Int, h: Int, rotated: Bool)] {
        let path = PathText.deletingExtension(page.path) + ".json"
        guard case .success(let bytes) = FileReader.read(path),
            let root = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let frames = root["frames"] as? [String: Any]
        else { return [] }
        return frames.keys.sorted().compactMap { name in
            guard let f = frames[name] as? [String: Any], let r = f["frame"] as? [String: Int] else { return nil }
            return (name, r["x"] ?? 0, r["y"] ?? 0, r["w"] ?? 0, r["h"] ?? 0, (f["rotated"] as? Bool) ?? false)
        }
    }

    static func pageFigure(
        _ out: PlannedOutput, _ shown: Image, _ uri: String,
        frames: [(name: String, x: Int, y: Int, w: Int, h: Int, rotated: Bool)], scale: Double
    ) -> String {
        var svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(shown.width)\" height=\"\(shown.height)\" class=\"frames\">"
        for f in frames {
            let (w, h) = f.rotated ? (f.h, f.w) : (f.w, f.h)
            let x = Double(f.x) * scale
            let y = Double(f.y) * scale
            svg +=
                "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(Double(w) * scale)\" height=\"\(Double(h) * scale)\"><title>\(xml(f.name))\(f.rotated ? " (rotated)" : "")</title></rect>"
        }
        svg += "</svg>"
        return "<figure><div class=\"checker page\"><img src=\"\(uri)\" alt=\"\(xml(out.relative))\">\(svg)</div>"
            + "<figcaption>\(xml(out.relative)) · \(frames.count) frames</figcaption></figure>"
    }

    /// A KTX2 / DDS output decoded: level 0 and the chain as a strip, or "not decodable".
    static func textureFigures(
        _ out: PlannedOutput, _ rel: String, _ stem: String, _ thumbnail: (Image, String) -> String?
    ) -> String {
        guard case .success(let bytes) = FileReader.read(out.path), let file = try? TextureFile(bytes) else {
            return "<figure><figcaption>\(xml(out.relative)): unreadable</figcaption></figure>"
        }
        let caption =
            "\(xml(out.relative)) · \(file.format.rawValue), \(file.levels.count) levels"
            + (file.isArray ? ", \(file.layers) layers (layer 0 shown)" : "")
            + (file.isCube ? ", cube map (face +X shown)" : "")
            + (file.isVolume ? ", \(file.width)×\(file.height)×\(file.depth) volume (slice 0 shown)" : "")
        guard let levels = try? (0..<file.levels.count).map({ try file.level($0) }),
            let level0 = levels.first
        else {
            return "<figure><figcaption>\(caption): not decodable</figcaption></figure>"
        }
        var figures = ""
        if let t = thumbnail(level0, stem + "-level0.png") {
            figures +=
                "<figure><div class=\"checker\"><img src=\"\(t)\" alt=\"\(xml(rel)) level 0\"></div><figcaption>\(caption)</figcaption></figure>"
        }
        // The chain side by side, level 0 on the left, bottoms aligned.
        let width = levels.reduce(0) { $0 + $1.width }
        var strip = Image(width: width, height: level0.height, depth: level0.depth, alpha: level0.alpha)
        var x = 0
        for level in levels {
            strip = strip.pasting(level, atX: x, y: level0.height - level.height)
            x += level.width
        }
        if levels.count > 1, let t = thumbnail(strip, stem + "-chain.png") {
            figures +=
                "<figure><div class=\"checker\"><img src=\"\(t)\" alt=\"\(xml(rel)) mip chain\"></div><figcaption>mip chain</figcaption></figure>"
        }
        // A cube map's level 0 as a cross (+Y above +Z; −X, +Z, +X, −Z across; −Y below), an
        // array's first layers side by side.
        if file.isVolume, let (strip, slices) = try? Preview.volumeStrip(file) {
            if let t = thumbnail(strip, stem + "-slices.png") {
                figures +=
                    "<figure><div class=\"checker\"><img src=\"\(t)\" alt=\"\(xml(rel)) slices\"></div><figcaption>level 0, slices \(slices.map(String.init).joined(separator: ", "))</figcaption></figure>"
            }
        } else if file.isCube, let cross = try? Preview.cross(file) {
            if let t = thumbnail(cross, stem + "-faces.png") {
                figures +=
                    "<figure><div class=\"checker\"><img src=\"\(t)\" alt=\"\(xml(rel)) faces\"></div><figcaption>faces: +Y above +Z; −X, +Z, +X, −Z across; −Y below</figcaption></figure>"
            }
        } else if file.isArray, let layers = try? (0..<min(file.layers, 8)).map({ try file.level(0, layer: $0) }) {
            if let t = thumbnail(Preview.row(layers), stem + "-layers.png") {
                figures +=
                    "<figure><div class=\"checker\"><img src=\"\(t)\" alt=\"\(xml(rel)) layers\"></div><figcaption>layers 0–\(layers.count - 1)</figcaption></figure>"
            }
        }
        return figures
    }
}
