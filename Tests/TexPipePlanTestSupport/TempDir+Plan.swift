public import TexPipeManifest
public import TexPipePlan
public import TexPipeTestSupport

/// Planning a manifest in a test's folder, for the tests of the planner and of what builds on it.
extension TempDir {
    /// Plans the manifest text placed in this folder; returns the plan or the diagnostics.
    public func plan(_ manifest: String, pipelines: [String] = []) -> Result<Plan, ManifestError> {
        write("pipeline.json", text: manifest)
        do {
            return .success(
                try Planner.plan(try Manifest.load(path: path + "/pipeline.json"), PlanOptions(pipelines: pipelines)))
        } catch let e as ManifestError {
            return .failure(e)
        } catch {
            fatalError("unexpected \(error)")
        }
    }

    /// The diagnostics' lines with the folder's path replaced by `$T`.
    public func errors(_ manifest: String) -> [String] {
        switch plan(manifest) {
        case .success: return []
        case .failure(let e): return e.diagnostics.map { $0.description.replacingOccurrences(of: path, with: "$T") }
        }
    }
}
