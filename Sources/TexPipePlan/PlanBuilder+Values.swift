internal import TexPipeManifest
internal import TexPipeParameters
internal import TexPipePixels

/// The placeholder values a job's parameters, settings and output are rendered with, and the
/// decoder that reads them: one place for the planner's three kinds of job (one per input, one
/// atlas, one array).
extension PlanBuilder {
    /// What every job of a pipeline knows: the variant's keys and `{pipeline}`.
    static func values(_ p: PipelineSpec, _ variant: Variant?) -> [String: String] {
        var values = variant?.values ?? [:]
        values["pipeline"] = p.name
        return values
    }

    /// `values` and what one input adds: `{path}`, `{dir}`, `{file}` (its name without the
    /// extension) and `{ext}` (docs/manifest.md "Placeholders").
    static func values(_ values: [String: String], of m: Glob.Match) -> [String: String] {
        let name = PathText.lastComponent(m.relativePath)
        let ext = PathText.pathExtension(name)
        let dir = PathText.parent(m.relativePath)
        var v = values
        v["path"] = m.folder
        v["dir"] = dir.isEmpty ? "." : dir
        v["file"] = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
        v["ext"] = ext
        return v
    }

    /// The words a variant's diagnostics end with (` (variant "ios")`); empty without one.
    static func context(_ variant: Variant?) -> String {
        variant.map { PlanMessage.variantContext($0.name) } ?? ""
    }

    /// A decoder of this manifest's parameters with these placeholder values.
    func decoder(_ values: [String: String], context: String) -> ParameterDecoder {
        ParameterDecoder(
            file: manifest.file, placeholders: values, knownNames: [], context: context,
            baseDirectory: manifest.directory)
    }
}
