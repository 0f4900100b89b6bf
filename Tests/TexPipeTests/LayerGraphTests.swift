import Foundation
import Testing

@testable import TexPipe

/// The layers are targets and the compiler holds the data flow (docs/ARCHITECTURE.md): this reads
/// the package graph as SwiftPM sees it and checks it against the documented one.
@Suite("layer graph")
struct LayerGraphTests {
    static let layers = [
        "TexPipePixels", "TexPipeCodecs", "TexPipeStages", "TexPipeAtlas", "TexPipeManifest", "TexPipePlan",
        "TexPipeEngine", "TexPipeReport",
    ]
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `swift package describe --type json`: target name → its direct target dependencies.
    static func describedGraph() throws -> [String: [String]] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Its own scratch folder: the test runs while `swift test` holds the package's .build.
        p.arguments = [
            "swift", "package", "--package-path", root.path, "--scratch-path",
            NSTemporaryDirectory() + "texpipe-describe", "describe", "--type", "json",
        ]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var graph: [String: [String]] = [:]
        for t in try #require(json["targets"] as? [[String: Any]]) {
            graph[t["name"] as! String] = (t["target_dependencies"] as? [String]) ?? []
        }
        return graph
    }

    static func closure(_ target: String, _ graph: [String: [String]]) -> Set<String> {
        var seen = Set<String>()
        var stack = [target]
        while let t = stack.popLast() {
            for d in graph[t] ?? [] where seen.insert(d).inserted { stack.append(d) }
        }
        return seen
    }

    @Test func dependenciesPointDownAndStagesKnowNoCodecOrEngine() throws {
        let graph = try Self.describedGraph()
        for (i, layer) in Self.layers.enumerated() {
            let deps = try #require(graph[layer], "\(layer) is a target")
            let above = Set(Self.layers[i...])
            #expect(Set(deps).isDisjoint(with: above), "\(layer) imports a layer at or above it: \(deps)")
        }
        let stages = Self.closure("TexPipeStages", graph)
        #expect(stages == ["TexPipePixels"], "Stages depends on \(stages.sorted())")
        #expect(!Self.closure("TexPipeCodecs", graph).contains("TexPipeStages"))
        #expect(Self.closure("TexPipeAtlas", graph) == ["TexPipePixels"], "the packer knows pixels only")
        #expect(Set(graph["TexPipe"] ?? []) == Set(Self.layers), "the umbrella re-exports every layer")
    }

    /// docs/ARCHITECTURE.md's graph block (`Target → A, B`) is what SwiftPM describes.
    @Test func architectureDocumentMatchesThePackage() throws {
        let graph = try Self.describedGraph()
        let doc = try String(contentsOf: Self.root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        let block = try #require(
            doc.components(separatedBy: "```text\n").dropFirst().first?.components(separatedBy: "```").first)
        var documented: [String: [String]] = [:]
        for line in block.split(separator: "\n") {
            let parts = line.components(separatedBy: " → ")
            guard parts.count == 2 else { continue }
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            let deps = parts[1].trimmingCharacters(in: .whitespaces)
            documented[name] = deps == "nothing" ? [] : deps.components(separatedBy: ", ")
        }
        for layer in Self.layers + ["TexPipe", "CTexPipeShims"] {
            #expect(Set(documented[layer] ?? ["missing"]) == Set(graph[layer] ?? []), "\(layer)")
        }
    }
}
