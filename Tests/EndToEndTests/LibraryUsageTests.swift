import Foundation
import Testing
import TexPipe

/// The getting-started article's code (Sources/TexPipe/TexPipe.docc/GettingStarted.md), through
/// `import TexPipe` alone: the umbrella must export everything a library user needs.
@Suite("library use")
struct LibraryUsageTests {
    @Test func runAManifestFromSwift() throws {
        let dir = NSTemporaryDirectory() + "texpipe-library-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var image = Image(width: 4, height: 2, depth: 8)
        image.pixels = .rgba8((0..<32).map { UInt8($0 * 8) })
        try Data(try ImageEncoder.png(image)).write(to: URL(fileURLWithPath: dir + "/in/a.png"))
        try Data(
            #"{"version": 1, "output": "out", "pipelines": [{"name": "p", "inputs": ["in/*.png"], "output": "{file}{suffix}.png", "stages": [{"stage": "mipmaps"}]}]}"#
                .utf8
        ).write(to: URL(fileURLWithPath: dir + "/pipeline.json"))

        let manifest = try Manifest.load(path: dir + "/pipeline.json")
        let plan = try Planner.plan(manifest)
        let cache = Cache(manifestDirectory: manifest.directory)
        let results = Runner.run(plan, RunOptions(jobs: 4, cache: cache))
        #expect(results.map(\.status) == [.ok])
        #expect(results[0].written.map(\.relative) == ["a_mip0.png", "a_mip1.png", "a_mip2.png"])
        let again = Runner.run(plan, RunOptions(jobs: 4, cache: cache))
        #expect(again[0].cacheHit)
        let json = try Reports.json(plan, results, seconds: 0)
        #expect(!json.isEmpty)

        // Images without a manifest.
        let bytes = try ImageEncoder.png(image)
        let decoded = try ImageDecoder.decode(bytes)
        var context = StageContext()
        let chain = try Mipmaps().applied(to: decoded, context: &context)
        #expect(chain.map(\.width) == [4, 2, 1])

        // A broken manifest: every problem, with its JSON path, nothing run.
        let broken = try Manifest.parse(
            Array(#"{"version": 1, "pipelines": [{"name": "p", "inputs": ["nope/*.png"], "stages": []}]}"#.utf8),
            file: "pipeline.json", directory: dir)
        #expect(throws: ManifestError.self) { try Planner.plan(broken) }
    }
}
