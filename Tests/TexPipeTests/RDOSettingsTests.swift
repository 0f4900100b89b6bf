import Foundation
import Testing
import TexPipePlanTestSupport
import TexPipeTestSupport

@testable import TexPipe

/// `rdo` in a manifest: checked at its JSON path before anything runs (docs/gpu-textures.md
/// "Smaller downloads"); what it does to blocks is in TexPipeBlocksTests' `RDOTests`.
@Suite("rdo settings")
struct RDOSettingsTests {
    /// Every other format refuses it: a manifest error naming the formats that take it.
    @Test(arguments: ["bc4", "bc5", "astc-4x4", "rgba8", "etc2-rgb"])
    func otherFormatsAreAManifestError(_ format: String) {
        let t = TempDir()
        t.png("in/a.png")
        let errors = t.errors(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "p", "inputs": ["in/*.png"], "output": "{file}.ktx2", "stages": [],
                "texture": { "format": "\(format)", "rdo": { "maxLoss": 1 } } } ] }
            """)
        #expect(
            errors == [
                "error: $T/pipeline.json: pipelines[0].texture.rdo: rdo applies to bc1, bc3, bc7, uastc, not \(format) (remove rdo or change the format)"
            ])
    }

    @Test func eitherLambdaOrMaxLoss() {
        let t = TempDir()
        t.png("in/a.png")
        func errors(_ rdo: String) -> [String] {
            t.errors(
                """
                { "version": 1, "output": "out", "pipelines": [
                  { "name": "p", "inputs": ["in/*.png"], "output": "{file}.ktx2", "stages": [],
                    "texture": { "format": "bc7", "rdo": \(rdo) } } ] }
                """)
        }
        #expect(
            errors("{}") == [
                "error: $T/pipeline.json: pipelines[0].texture.rdo: expected \"lambda\" or \"maxLoss\" in rdo, found neither"
            ])
        #expect(
            errors(#"{"lambda": 2, "maxLoss": 1}"#)
                == [
                    "error: $T/pipeline.json: pipelines[0].texture.rdo: expected one of \"lambda\" or \"maxLoss\" in rdo, found both"
                ])
        #expect(errors(#"{"lambda": 2}"#).isEmpty)
        #expect(errors(#"{"maxLoss": 0}"#).count == 1)  // out of range: 0.01…20
    }
}
