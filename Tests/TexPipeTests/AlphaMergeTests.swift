import Foundation
import Testing
import TexPipePlanTestSupport
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

/// Alpha-merge: the map becomes the alpha channel; sizes must match.
@Suite("alpha-merge")
struct AlphaMergeTests {
    @Test func sizeMismatchNamesBothFiles() throws {
        // The stage itself, in memory: a map of another size is refused.
        let map = image8(2, 2, Array(repeating: [9, 9, 9, 255], count: 4))
        let stage = AlphaMerge(path: "/maps/small_alpha.png")
        #expect(stage.reads == [.image(path: "/maps/small_alpha.png", label: "alpha", sameSize: true)])
        #expect(throws: StageError("alpha: the map is 2×2 but the image is 4×3")) {
            try stage.applied(
                to: image8(4, 3, Array(repeating: [1, 2, 3, 255], count: 12)), images: ["/maps/small_alpha.png": map])
        }
        // The planner checks the declared map: another size fails that job, a missing one the manifest.
        let t = TempDir()
        t.png("in.png", width: 4, height: 3)
        t.png("small_alpha.png", width: 2, height: 2)
        func manifest(_ map: String) -> String {
            #"{"version": 1, "pipelines": [{"name": "m", "inputs": ["in.png"], "stages": ["#
                + #"{"stage": "alpha-merge", "alpha": "\#(map)"}]}]}"#
        }
        let plan = try t.plan(manifest("small_alpha.png")).get()
        #expect(plan.jobs[0].failure?.message == "alpha \(t.path)/small_alpha.png is 2×2 but the image is 4×3")
        #expect(plan.jobs[0].failure?.stage == "alpha-merge")
        guard case .failure(let error) = t.plan(manifest("nope.png")) else {
            Issue.record("a missing map plans")
            return
        }
        #expect(
            error.diagnostics.map(\.message) == ["alpha-merge: alpha: cannot read \(t.path)/nope.png"])
    }
}
