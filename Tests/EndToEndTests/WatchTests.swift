import Foundation
import Synchronization
import Testing

/// `texpipe watch` driven as a user would: a subprocess over a workspace, files changed under
/// it, its lines read as they come. Every wait is bounded; none is a timing assertion.
@Suite("watch")
struct WatchTests {
    /// A running `texpipe watch` whose stdout is collected as it arrives.
    final class Watcher: Sendable {
        let process = Process()
        let buffer = Buffer()

        final class Buffer: Sendable {
            let text = Mutex("")
        }

        init(in dir: String) throws {
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = ["watch", "--jobs", "2"]
            process.currentDirectoryURL = URL(fileURLWithPath: dir)
            let out = Pipe()
            process.standardOutput = out
            process.standardError = out
            let buffer = self.buffer
            out.fileHandleForReading.readabilityHandler = { h in
                let data = h.availableData
                buffer.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
            try process.run()
        }

        var text: String { buffer.text.withLock { $0 } }

        /// Waits (at most 20 s) until the output has `count` lines containing `needle`.
        @discardableResult
        func waitFor(_ needle: String, count: Int = 1) -> Bool {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if text.components(separatedBy: "\n").filter({ $0.contains(needle) }).count >= count { return true }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return false
        }
    }

    static func waitUntil(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    static let manifest = #"""
        { "version": 1, "output": "out", "pipelines": [
          { "name": "p", "inputs": ["cards/**/*.png"], "output": "p/{path}/{file}.png",
            "stages": [{ "stage": "color-key", "color": "rgb(0,128,0)", "region": "edges" }] } ] }
        """#

    /// An atlas reruns when a sprite arrives and when one goes: its frames follow.
    @Test func anAtlasFollowsItsSprites() throws {
        let w = try Workspace()
        w.manifest(
            #"""
            { "version": 1, "output": "out", "pipelines": [
              { "name": "deck", "inputs": ["cards/*.png"], "atlas": {}, "output": "deck{page}.png" } ] }
            """#)
        let watcher = try Watcher(in: w.path)
        defer { if watcher.process.isRunning { watcher.process.terminate() } }
        #expect(watcher.waitFor("watch: started → 1 job: 1 ok"), "\(watcher.text)")
        func frames() -> Set<String> {
            guard let data = FileManager.default.contents(atPath: w.path + "/out/deck0.json"),
                let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let frames = root["frames"] as? [String: Any]
            else { return [] }
            return Set(frames.keys)
        }
        #expect(frames().count == 13)
        try FileManager.default.copyItem(atPath: w.path + "/cards/a-spades.png", toPath: w.path + "/cards/joker.png")
        #expect(Self.waitUntil { frames().contains("joker") }, "\(watcher.text)")
        try FileManager.default.removeItem(atPath: w.path + "/cards/2-hearts.png")
        #expect(Self.waitUntil { !frames().contains("2-hearts") && frames().count == 13 }, "\(watcher.text)")
        #expect(!watcher.text.contains("was deleted"), "\(watcher.text)")
        kill(watcher.process.processIdentifier, SIGINT)
        watcher.process.waitUntilExit()
    }

    /// A model's rewrite follows its textures: an edited texture file reruns its jobs and the
    /// models' rewrites; an edited GLB reruns the textures it embeds and itself.
    @Test func aModelFollowsItsTextures() throws {
        let (w, _) = try GLTFTests.workspace()
        let watcher = try Watcher(in: w.path)
        defer { if watcher.process.isRunning { watcher.process.terminate() } }
        #expect(watcher.waitFor("watch: started → 20 jobs: 20 ok"), "\(watcher.text)")
        let quad = w.path + "/out/glb/quad.glb"
        let before = FileManager.default.contents(atPath: quad)
        try Data(try GLTFTests.png(GLTFTests.gradient(48, 40, 9))).write(
            to: URL(fileURLWithPath: w.path + "/models/textures/paint.png"))
        #expect(Self.waitUntil { FileManager.default.contents(atPath: quad) != before }, "\(watcher.text)")
        #expect(watcher.waitFor("changed → 4 jobs: 4 ok"), "\(watcher.text)")
        let embedded = w.path + "/out/glb/embedded.glb"
        let previous = FileManager.default.contents(atPath: embedded)
        let png = { (image: AtlasCLITests.RGBA) in try GLTFTests.png(image) }
        try Data(
            GLTFTests.embedded(
                paint: try png(GLTFTests.gradient(48, 40, 7)), bump: try png(GLTFTests.normalMap(32)),
                coat: try png(GLTFTests.gradient(24, 24, 5)))
        ).write(to: URL(fileURLWithPath: w.path + "/models/embedded.glb"))
        #expect(Self.waitUntil { FileManager.default.contents(atPath: embedded) != previous }, "\(watcher.text)")
        kill(watcher.process.processIdentifier, SIGINT)
        watcher.process.waitUntilExit()
    }

    @Test func rerunsWhatChangedAndStopsCleanly() throws {
        let w = try Workspace()
        w.manifest(Self.manifest)
        let cards = try FileManager.default.contentsOfDirectory(atPath: w.path + "/cards").sorted()
        let watcher = try Watcher(in: w.path)
        defer { if watcher.process.isRunning { watcher.process.terminate() } }
        #expect(watcher.waitFor("watch: started → \(cards.count) jobs: \(cards.count) ok"), "\(watcher.text)")

        // Modify an input: its output changes.
        let target = w.path + "/out/p/" + cards[0]
        let before = FileManager.default.contents(atPath: target)
        try FileManager.default.removeItem(atPath: w.path + "/cards/" + cards[0])
        try FileManager.default.copyItem(atPath: w.path + "/cards/" + cards[1], toPath: w.path + "/cards/" + cards[0])
        #expect(Self.waitUntil { FileManager.default.contents(atPath: target) != before }, "\(watcher.text)")
        #expect(
            FileManager.default.contents(atPath: target)
                == FileManager.default.contents(atPath: w.path + "/out/p/" + cards[1]))
        #expect(watcher.waitFor("changed → 1 job: 1 ok"), "\(watcher.text)")

        // A new file matching the glob, in a new folder, gets its job.
        try FileManager.default.createDirectory(atPath: w.path + "/cards/more", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: w.path + "/cards/" + cards[2], toPath: w.path + "/cards/more/new.png")
        #expect(
            Self.waitUntil { FileManager.default.fileExists(atPath: w.path + "/out/p/more/new.png") }, "\(watcher.text)"
        )

        // A deleted input: reported, its output left alone.
        try FileManager.default.removeItem(atPath: w.path + "/cards/" + cards[3])
        #expect(
            watcher.waitFor("cards/\(cards[3]) was deleted; its outputs are left alone: out/p/\(cards[3])"),
            "\(watcher.text)")
        #expect(FileManager.default.fileExists(atPath: w.path + "/out/p/" + cards[3]))

        // A broken manifest: its errors, and watching goes on; fixed, it is replanned and rerun.
        w.manifest(#"{ "version": 1, "pipelines": [ { "name": "p" } ] }"#)
        #expect(watcher.waitFor("pipeline.json has errors; waiting for a fix"), "\(watcher.text)")
        #expect(watcher.text.contains(#"missing required key "inputs""#))
        w.manifest(Self.manifest.replacingOccurrences(of: #""region": "edges""#, with: #""region": "all""#))
        #expect(watcher.waitFor("pipeline.json changed →"), "\(watcher.text)")

        // Ctrl-C: exit 0, no temporary file anywhere.
        kill(watcher.process.processIdentifier, SIGINT)
        watcher.process.waitUntilExit()
        #expect(watcher.process.terminationStatus == 0)
        #expect(watcher.text.hasSuffix("watch: stopped\n"), "\(watcher.text)")
        let leftovers =
            FileManager.default.enumerator(atPath: w.path)?.compactMap { $0 as? String }
            .filter { $0.contains(".tmp-") } ?? []
        #expect(leftovers.isEmpty)
    }
}
