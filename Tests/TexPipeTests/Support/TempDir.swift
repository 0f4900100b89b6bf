import Foundation
import TexPipeTestSupport

@testable import TexPipe
@testable import TexPipeCodecs
@testable import TexPipeEngine
@testable import TexPipeFormats
@testable import TexPipeManifest
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeReport
@testable import TexPipeStages

extension TempDir {
    /// Plans the manifest text placed in this folder; returns the plan or the diagnostics.
    func plan(_ manifest: String, pipelines: [String] = []) -> Result<Plan, ManifestError> {
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
    func errors(_ manifest: String) -> [String] {
        switch plan(manifest) {
        case .success: return []
        case .failure(let e): return e.diagnostics.map { $0.description.replacingOccurrences(of: path, with: "$T") }
        }
    }
}
