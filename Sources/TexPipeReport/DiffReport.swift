internal import Foundation
public import TexPipeEngine

/// `texpipe diff`'s reports (docs/command-line.md): a markdown summary for a pull request (GitHub's
/// `$GITHUB_STEP_SUMMARY` renders it), JSON with every output, and an HTML page with before, after
/// and the FLIP map of each changed output.
public enum DiffReport {
    // MARK: Numbers as people read them

    static func size(_ n: Int?) -> String {
        guard let n else { return "–" }
        if n < 1024 { return "\(n) B" }
        if n < 1024 * 1024 { return String(format: "%.1f KiB", Double(n) / 1024) }
        return String(format: "%.2f MiB", Double(n) / 1024 / 1024)
    }

    static func change(_ before: Int?, _ after: Int?) -> String {
        guard let b = before, let a = after else { return size(after ?? before) }
        if a == b { return size(a) }
        let pct = b > 0 ? String(format: " (%@%.1f %%)", a > b ? "+" : "", Double(a - b) / Double(b) * 100) : ""
        return "\(size(b)) → \(size(a))\(pct)"
    }

    static func signed(_ n: Int) -> String { n > 0 ? "+\(n)" : "\(n)" }
    static func percent(_ before: Int, _ after: Int) -> String {
        before > 0
            ? String(format: "%@%.1f %%", after >= before ? "+" : "", Double(after - before) / Double(before) * 100)
            : "–"
    }

    static func db(_ v: Double?) -> String {
        guard let v else { return "–" }
        return v >= 99 ? "identical" : String(format: "%.2f dB", v)
    }
    static func fixed(_ v: Double?, _ digits: Int) -> String { v.map { String(format: "%.\(digits)f", $0) } ?? "–" }
    static func degrees(_ p: Differ.Part?) -> String {
        guard let m = p?.normalMean, let q = p?.normalP99 else { return "–" }
        return String(format: "%.2f° (p99 %.2f°)", m, q)
    }

    public static func headline(_ r: Differ.Report) -> String {
        let t = r.total
        return
            "\(t.changed) changed, \(t.added) added, \(t.removed) removed, \(t.unchanged) unchanged; GPU bytes \(change(t.gpuBytesBefore, t.gpuBytesAfter))"
    }

    /// The totals' rows, as both reports show them: what, before, after, change.
    static func totalRows(_ t: Differ.Totals) -> [[String]] {
        [
            [
                "outputs", "\(t.changed + t.removed + t.unchanged)", "\(t.changed + t.added + t.unchanged)",
                signed(t.added - t.removed),
            ],
            ["file bytes", size(t.bytesBefore), size(t.bytesAfter), percent(t.bytesBefore, t.bytesAfter)],
            ["GPU bytes", size(t.gpuBytesBefore), size(t.gpuBytesAfter), percent(t.gpuBytesBefore, t.gpuBytesAfter)],
        ]
    }

    static let folderColumns = ["folder", "changed", "added", "removed", "unchanged", "file bytes", "GPU bytes"]

    /// A folder's row after its name.
    static func folderRow(_ f: Differ.Totals) -> [String] {
        [
            "\(f.changed)", "\(f.added)", "\(f.removed)", "\(f.unchanged)", change(f.bytesBefore, f.bytesAfter),
            change(f.gpuBytesBefore, f.gpuBytesAfter),
        ]
    }

    // MARK: Markdown

    /// The pull-request summary: the totals, the changed outputs (the most visible change first;
    /// each output's worst level, face or layer), the added and removed ones by name, and the
    /// folders. Unchanged outputs are only counted.
    public static func markdown(_ r: Differ.Report) -> String {
        func code(_ s: String) -> String { "`" + s.replacingOccurrences(of: "`", with: "'") + "`" }
        func cell(_ s: String) -> String { s.replacingOccurrences(of: "|", with: "\\|") }
        var m = "## texpipe diff\n\n\(headline(r))\n\n"
        m += "| | before | after | change |\n| --- | ---: | ---: | ---: |\n"
        for row in totalRows(r.total) { m += "| " + row.joined(separator: " | ") + " |\n" }
        m += "\n"
        let changed = r.outputs.filter { $0.status == .changed }
        if !changed.isEmpty {
            let normals = changed.contains { $0.worst?.normalMean != nil }
            m += "### Changed (\(changed.count)), the most visible change first\n\n"
            m +=
                "| output | file bytes | GPU bytes | PSNR | SSIM | FLIP |" + (normals ? " normal angle |" : "")
                + " note |\n"
            m += "| --- | ---: | ---: | ---: | ---: | ---: |" + (normals ? " ---: |" : "") + " --- |\n"
            for o in changed {
                let w = o.worst
                let note = [o.error, o.note].compactMap { $0 }.joined(separator: "; ")
                m +=
                    "| \(code(o.path)) | \(change(o.bytesBefore, o.bytesAfter)) | \(change(o.gpuBytesBefore, o.gpuBytesAfter)) | \(db(w?.psnr)) | \(fixed(w?.ssim, 4)) | \(fixed(w?.flip, 4)) |"
                    + (normals ? " \(degrees(w)) |" : "") + " \(cell(note)) |\n"
            }
            m += "\nPSNR, SSIM and FLIP: HEAD against BASE, the worst level, face or layer of each output.\n\n"
        }
        for (status, title) in [(Differ.Status.added, "Added"), (.removed, "Removed")] {
            let list = r.outputs.filter { $0.status == status }
            guard !list.isEmpty else { continue }
            m += "### \(title) (\(list.count))\n\n"
            for o in list {
                let what = (status == .added ? o.after : o.before) ?? "unreadable"
                let bytes = status == .added ? o.bytesAfter : o.bytesBefore
                let gpu = status == .added ? o.gpuBytesAfter : o.gpuBytesBefore
                m += "- \(code(o.path)): \(what), \(size(bytes))" + (gpu.map { ", GPU \(size($0))" } ?? "")
                m += (o.error.map { " — \($0)" } ?? "") + "\n"
            }
            m += "\n"
        }
        if r.folders.count > 1 {
            m += "### Folders\n\n| " + folderColumns.joined(separator: " | ") + " |\n"
            m += "| --- |" + String(repeating: " ---: |", count: folderColumns.count - 1) + "\n"
            for f in r.folders { m += "| " + ([code(f.folder)] + folderRow(f)).joined(separator: " | ") + " |\n" }
            m += "\n"
        }
        return m
    }

    // MARK: JSON

    public static func json(_ r: Differ.Report) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(r)) + [0x0A]
    }

    // MARK: HTML

    /// `DIR/index.html`: the totals and folders, then per changed output its table of levels and
    /// layers and before / after / FLIP map side by side, with a level and face/layer picker (the
    /// pictures `Differ` wrote into `DIR/img`).
    public static func html(_ r: Differ.Report) -> String {
        func x(_ s: String) -> String { Reports.xml(s) }
        var h = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>texpipe diff</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
            table { border-collapse: collapse; margin: 0 0 16px; font-size: 13px; }
            th, td { border-bottom: 1px solid #ddd; padding: 3px 10px; text-align: right; }
            th { background: #f4f4f4; }
            td:first-child, th:first-child { text-align: left; }
            section.output { border: 1px solid #ccc; border-radius: 6px; padding: 8px 12px; margin: 0 0 16px; }
            section.output h3 { font-size: 14px; margin: 0 0 6px; font-family: monospace; }
            .row { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
            figure { margin: 0; text-align: center; font-size: 12px; }
            \(Reports.checkerCSS)
            .checker img { display: block; image-rendering: pixelated; width: 256px; }
            .error { color: #a00; font-family: monospace; }
            .note { color: #850; }
            details > summary { cursor: pointer; }
            </style></head><body>
            <h1>texpipe diff</h1>
            <p id="summary">\(x(r.base)) → \(x(r.head)): \(x(headline(r)))</p>

            """
        func tr(_ cells: [String], _ tag: String = "td") -> String {
            "<tr>" + cells.map { "<\(tag)>\(x($0))</\(tag)>" }.joined() + "</tr>"
        }
        h += "<table id=\"totals\">" + tr(["", "before", "after", "change"], "th")
        h += totalRows(r.total).map { tr($0) }.joined() + "</table>\n"
        h += "<details><summary>Folders (\(r.folders.count))</summary><table id=\"folders\">" + tr(folderColumns, "th")
        h += r.folders.map { tr([$0.folder] + folderRow($0)) }.joined() + "</table></details>\n"
        for (status, title) in [(Differ.Status.added, "Added"), (.removed, "Removed")] {
            let list = r.outputs.filter { $0.status == status }
            guard !list.isEmpty else { continue }
            h += "<h2>\(title) (\(list.count))</h2><ul class=\"\(status.rawValue)\">"
            for o in list {
                let what = (status == .added ? o.after : o.before) ?? "unreadable"
                h +=
                    "<li><code>\(x(o.path))</code>: \(x(what))"
                    + (o.error.map { " <span class=\"error\">\(x($0))</span>" } ?? "") + "</li>"
            }
            h += "</ul>\n"
        }
        let changed = r.outputs.filter { $0.status == .changed }
        h += "<h2>Changed (\(changed.count)), the most visible change first</h2>\n"
        for o in changed {
            h += section(o)
        }
        h += """
            <script>
            // The picker: each output's level and layer choose which pictures its three figures show.
            for (const s of document.querySelectorAll('section.output[data-picture]')) {
              const show = () => {
                const level = s.querySelector('select.level')?.value ?? '0';
                const layer = s.querySelector('select.layer')?.value ?? '0';
                for (const img of s.querySelectorAll('img[data-kind]'))
                  img.src = 'img/' + s.dataset.picture + '/L' + level + '-' + layer + '-' + img.dataset.kind + '.png';
              };
              for (const sel of s.querySelectorAll('select')) sel.addEventListener('change', show);
            }
            </script>
            </body></html>

            """
        return h
    }

    static func section(_ o: Differ.Output) -> String {
        func x(_ s: String) -> String { Reports.xml(s) }
        var h = "<section class=\"output\"" + (o.picture.map { " data-picture=\"\($0)\"" } ?? "") + ">"
        h += "<h3>\(x(o.path))</h3>"
        h +=
            "<p>\(x(o.before ?? "–")) → \(x(o.after ?? "–")); file bytes \(x(change(o.bytesBefore, o.bytesAfter))); GPU bytes \(x(change(o.gpuBytesBefore, o.gpuBytesAfter)))</p>"
        if let e = o.error { h += "<p class=\"error\">\(x(e))</p>" }
        if let n = o.note { h += "<p class=\"note\">\(x(n))</p>" }
        guard !o.parts.isEmpty else { return h + "</section>\n" }
        let normals = o.parts.contains { $0.normalMean != nil }
        h +=
            "<details><summary>\(o.parts.count == 1 ? "measures" : "\(o.parts.count) levels and layers")</summary><table class=\"parts\"><tr><th>level</th><th>layer</th><th>size</th><th>PSNR</th><th>alpha PSNR</th><th>SSIM</th><th>alpha SSIM</th><th>FLIP</th>"
        h += (normals ? "<th>normal angle</th>" : "") + "</tr>"
        for p in o.parts {
            h +=
                "<tr><td>\(p.level)</td><td>\(p.layer)</td><td>\(p.width)×\(p.height)</td><td>\(db(p.psnr))</td><td>\(db(p.psnrAlpha))</td><td>\(fixed(p.ssim, 4))</td><td>\(fixed(p.ssimAlpha, 4))</td><td>\(fixed(p.flip, 4))</td>"
                + (normals ? "<td>\(x(degrees(p)))</td>" : "") + "</tr>"
        }
        h += "</table></details>"
        guard o.picture != nil else { return h + "</section>\n" }
        let levels = Set(o.parts.map(\.level)).sorted()
        let layers = o.picturedLayers ?? Set(o.parts.map(\.layer)).sorted()
        if levels.count > 1 {
            h +=
                "<label>level <select class=\"level\">"
                + levels.map { "<option value=\"\($0)\">\($0)</option>" }.joined() + "</select></label> "
        }
        if layers.count > 1 {
            h +=
                "<label>face / layer <select class=\"layer\">"
                + layers.map { "<option value=\"\($0)\">\($0)</option>" }.joined() + "</select></label>"
        }
        let first = "img/\(o.picture!)/L0-0"
        h += "<div class=\"row\">"
        h +=
            "<figure><div class=\"checker\"><img data-kind=\"before\" src=\"\(first)-before.png\" alt=\"before\"></div><figcaption>before (BASE)</figcaption></figure>"
        h +=
            "<figure><div class=\"checker\"><img data-kind=\"after\" src=\"\(first)-after.png\" alt=\"after\"></div><figcaption>after (HEAD)</figcaption></figure>"
        if o.parts.contains(where: { $0.flip != nil }) {
            h +=
                "<figure><div class=\"checker\"><img data-kind=\"flip\" src=\"\(first)-flip.png\" alt=\"FLIP map\"></div><figcaption>FLIP error (black 0, red, yellow, white 1)</figcaption></figure>"
        }
        return h + "</div></section>\n"
    }
}
