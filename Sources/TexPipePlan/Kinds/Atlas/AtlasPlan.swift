internal import Foundation
public import TexPipeAtlas
internal import TexPipeParameters
public import TexPipePixels
public import TexPipeStages

/// What makes a job an atlas job (docs/atlases.md): its sprites in name order, the packing settings, the
/// page stages, and how pages are named — known only when the job has packed them.
public struct AtlasPlan: Sendable {
    public var settings: AtlasSettings
    public var sprites: [PartInput]
    public var pageStages: [any Stage]
    /// The output template and the job's placeholders (pipeline, variant and its keys).
    public var template: String
    public var values: [String: String]
    public var outputRoot: String
    /// Whether the template has `{page}`: without it, only one page may be written.
    public var numbered: Bool { Template.names(in: template).contains("page") }

    /// The outputs of page `page`, one per image its page stages made (a GPU texture's levels
    /// share one). Checked as the planner checks outputs; a message when one does not hold.
    public func outputs(page: Int, images: [Image]) -> Result<[PlannedOutput], PlanFailure> {
        var out: [PlannedOutput] = []
        let compiled = Template.Compiled(template)
        for image in images {
            if let level = image.textureLevel, level > 0, !out.isEmpty {
                out[out.count - 1].levels += 1
                continue
            }
            var v = values
            v["page"] = String(page)
            v["suffix"] = image.suffix
            for (k, l) in image.labels { v[k] = l }
            guard case .success(let rendered) = compiled.render(v) else {
                return .failure(PlanFailure("cannot name page \(page) from \"\(template)\""))
            }
            guard var o = PlanBuilder.output(rendered, root: outputRoot) else {
                return .failure(PlanFailure("page \(page): \"\(rendered)\" is not an output path under the root"))
            }
            if image.lossless && o.format.kind.row.lossy { o = o.asPNG() }
            out.append(o)
        }
        return .success(out)
    }

    /// The JSON hash beside a page: its first output's path with `.json` for its extension.
    public func jsonOutput(beside page: PlannedOutput) -> PlannedOutput {
        Self.data(page, extension: "json")
    }

    /// The libGDX file: the template's path with `{page}` removed (page 0's first output's
    /// values otherwise), with `.atlas` for its extension; named after the pipeline when nothing
    /// is left of the file name (`deck/{page}.png` → `deck/deck.atlas`).
    public func libGDXOutput(first image: Image) -> PlannedOutput? {
        var v = values
        v["page"] = ""
        v["suffix"] = image.suffix
        for (k, l) in image.labels { v[k] = l }
        guard case .success(let rendered) = Template.render(template, v),
            let o = PlanBuilder.output(libGDXName(rendered), root: outputRoot)
        else { return nil }
        return Self.data(o, extension: "atlas")
    }

    /// A rendered template without its page number, named after the pipeline when nothing is left
    /// of the file name.
    func libGDXName(_ rendered: String) -> String {
        guard PathText.lastComponent(rendered).hasPrefix(".") else { return rendered }
        let dir = PathText.parent(rendered)
        return (dir.isEmpty ? "" : dir + "/") + (values["pipeline"] ?? "atlas") + PathText.lastComponent(rendered)
    }

    static func data(_ o: PlannedOutput, extension ext: String) -> PlannedOutput {
        func swap(_ p: String) -> String { PathText.deletingExtension(p) + "." + ext }
        var d = PlannedOutput(path: swap(o.path), relative: swap(o.relative), format: o.format)
        d.isData = true
        return d
    }

    /// Whether `relative` (under the output root) is a path this job could write: the template
    /// with `{page}` any number (or nothing), `{suffix}`/`{level}` any name characters, and the
    /// extension the template's or `.json`/`.atlas`. The remote cache and `clean` ask it, for
    /// outputs the plan cannot list.
    public func owns(_ relative: String) -> Bool {
        var v = values
        v["suffix"] = "\u{2}"
        v["level"] = "\u{2}"
        let ext = PathText.pathExtension(relative).lowercased()
        if ext == "atlas" {
            v["page"] = ""
        } else {
            v["page"] = "\u{1}"
        }
        guard case .success(var pattern) = Template.render(template, v) else { return false }
        if ext == "atlas" { pattern = libGDXName(pattern) }
        let patternExt = PathText.pathExtension(pattern).lowercased()
        guard ext == patternExt || ext == "json" || ext == "atlas" else { return false }
        let stem = Array(PathText.deletingExtension(relative).utf8)
        let parts = Array(PathText.deletingExtension(pattern).utf8)
        return Self.match(parts[...], stem[...])
    }

    /// \u{1}: digits (or none); \u{2}: letters, digits, `_` (or none); anything else itself.
    static func match(_ p: ArraySlice<UInt8>, _ s: ArraySlice<UInt8>) -> Bool {
        guard let c = p.first else { return s.isEmpty }
        if c == 1 || c == 2 {
            var k = s.startIndex
            while true {
                if match(p.dropFirst(), s[k...]) { return true }
                guard k < s.endIndex else { return false }
                let b = s[k]
                let ok =
                    c == 1
                    ? (b >= 48 && b <= 57) : (b == 95 || (b >= 48 && b <= 57) || ((b | 32) >= 97 && (b | 32) <= 122))
                guard ok else { return false }
                k += 1
            }
        }
        guard let f = s.first, f == c else { return false }
        return match(p.dropFirst(), s.dropFirst())
    }
}

/// A page that cannot be named or placed.
public struct PlanFailure: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ d: String) { description = d }
}
