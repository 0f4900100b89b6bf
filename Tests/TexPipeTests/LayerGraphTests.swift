import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipe

/// The layers are targets and the compiler holds the data flow (docs/ARCHITECTURE.md): this reads
/// the package graph as SwiftPM sees it and checks it against the documented one.
@Suite("layer graph")
struct LayerGraphTests {
    /// Bottom to top: each depends only on layers before it.
    static let layers = [
        "TexPipePixels", "TexPipeParameters", "TexPipeFormats", "TexPipeMeasures", "TexPipeBlocks", "TexPipeCodecs",
        "TexPipeTextures", "TexPipeModels", "TexPipeStages", "TexPipeAtlas", "TexPipeManifest", "TexPipePlan",
        "TexPipeCache", "TexPipeEngine", "TexPipeReport",
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

    /// The tests follow the layers: each layer's test target declares only its layer, what that
    /// layer builds on and the shared support, and its files import only what it declares — a
    /// BC7 test cannot reach the engine, and builds as soon as the block codecs do.
    @Test func eachLayersTestsImportOnlyItsLayerAndWhatThatNeeds() throws {
        let graph = try Self.describedGraph()
        for layer in Self.layers {
            let target = layer + "Tests"
            let declared = Set(try #require(graph[target], "\(target) is a target"))
            #expect(declared.contains(layer), "\(target) does not depend on \(layer)")
            let below = Self.closure(layer, graph).union([layer])
            var allowed = below.union(["TexPipeTestSupport"])
            // The block tests hand KTX2, DDS and PNG files to the references: the container writer
            // and the image files are the layers above theirs they use.
            if layer == "TexPipeBlocks" { allowed.formUnion(["TexPipeTextures", "TexPipeCodecs"]) }
            // Planning a manifest in a test's folder, for the planner's tests and those above it.
            if below.contains("TexPipePlan") { allowed.insert("TexPipePlanTestSupport") }
            #expect(declared.isSubset(of: allowed), "\(target) declares \(declared.subtracting(allowed).sorted())")
            for (file, module) in try Self.imports(in: "Tests/\(target)", label: target) {
                #expect(declared.contains(module), "\(file) imports \(module), not a dependency of \(target)")
            }
        }
        // The support is public API of the layers below the engine: no testability, no engine.
        let support = Self.closure("TexPipeTestSupport", graph)
        #expect(support.isDisjoint(with: ["TexPipeEngine", "TexPipePlan", "TexPipeReport", "TexPipe"]))
        let testable = try Self.imports(in: "Tests/TexPipeTestSupport", label: "TexPipeTestSupport")
        #expect(testable.allSatisfy { $0.module != "TexPipe" })
    }

    /// The rooms by concern (docs/ARCHITECTURE.md): the planner needs no block codec, the measures
    /// and the caches have targets of their own, and glTF lives in the models' target.
    @Test func eachConcernHasItsRoom() throws {
        let graph = try Self.describedGraph()
        #expect(!Self.closure("TexPipePlan", graph).contains("TexPipeBlocks"), "the planner waits for block codecs")
        #expect(Self.closure("TexPipeBlocks", graph).contains("TexPipeMeasures"))
        #expect(try Self.topLevelNames(of: "TexPipeBlocks").isDisjoint(with: ["Quality", "LevelQuality"]))
        #expect(try Self.topLevelNames(of: "TexPipeMeasures").isSuperset(of: ["Quality", "LevelQuality"]))
        #expect(try Self.topLevelNames(of: "TexPipeEngine").isDisjoint(with: ["Cache", "RemoteCache", "CacheIndex"]))
        #expect(try Self.topLevelNames(of: "TexPipeCache").isSuperset(of: ["Cache", "RemoteCache"]))
        let codecs = Self.root.appendingPathComponent("Sources/TexPipeCodecs")
        for name in try FileManager.default.subpathsOfDirectory(atPath: codecs.path) where name.hasSuffix(".swift") {
            let text = try String(contentsOf: codecs.appendingPathComponent(name), encoding: .utf8)
            #expect(!text.contains("GLTF"), "TexPipeCodecs/\(name) holds glTF")
        }
    }

    @Test func dependenciesPointDownAndStagesKnowNoCodecOrEngine() throws {
        let graph = try Self.describedGraph()
        for (i, layer) in Self.layers.enumerated() {
            let deps = try #require(graph[layer], "\(layer) is a target")
            let above = Set(Self.layers[i...])
            #expect(Set(deps).isDisjoint(with: above), "\(layer) imports a layer at or above it: \(deps)")
        }
        let stages = Self.closure("TexPipeStages", graph)
        #expect(stages == ["TexPipePixels", "TexPipeParameters"], "Stages depends on \(stages.sorted())")
        #expect(!Self.closure("TexPipeCodecs", graph).contains("TexPipeStages"))
        #expect(!Self.closure("TexPipeTextures", graph).contains("TexPipeStages"))
        #expect(Self.closure("TexPipeParameters", graph) == ["TexPipePixels"], "the settings vocabulary is below all")
        #expect(
            Self.closure("TexPipeBlocks", graph).isDisjoint(with: ["TexPipeCodecs", "TexPipeStages"]),
            "the block codecs know neither files nor stages")
        #expect(
            Self.closure("TexPipeAtlas", graph) == ["TexPipePixels", "TexPipeParameters"],
            "the packer knows pixels and its own settings table only")
        #expect(Set(graph["TexPipe"] ?? []) == Set(Self.layers), "the umbrella re-exports every layer")
        #expect(
            Self.closure("TexPipeFormats", graph) == ["TexPipePixels", "TexPipeParameters"],
            "the format table and the output settings are data only")
        // The JSON layer links no C library: its settings types come from Formats, not Codecs.
        let manifest = Self.closure("TexPipeManifest", graph)
        #expect(manifest.allSatisfy { !$0.hasPrefix("C") }, "Manifest links \(manifest.sorted())")
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

    /// `import TexPipeX` lines of a target's Swift files.
    static func imports(of target: String) throws -> [(file: String, module: String)] {
        try imports(in: "Sources/\(target)", label: target)
    }

    /// The TexPipe modules the Swift files under `path` import, by file (`label/name`).
    static func imports(in path: String, label target: String) throws -> [(file: String, module: String)] {
        let folder = root.appendingPathComponent(path)
        var out: [(String, String)] = []
        for name in try FileManager.default.subpathsOfDirectory(atPath: folder.path) where name.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let i = words.firstIndex(of: "import"), i + 1 < words.count, i <= 1 else { continue }
                if words[i + 1].hasPrefix("TexPipe") { out.append(("\(target)/\(name)", String(words[i + 1]))) }
            }
        }
        return out
    }

    /// The names a layer declares at the top level as public or package: what another file can
    /// only reach by importing it (members of its types need no import of their own).
    static func topLevelNames(of target: String) throws -> Set<String> {
        let folder = root.appendingPathComponent("Sources/\(target)")
        let kinds: Set<Substring> = ["struct", "enum", "class", "protocol", "typealias", "func", "var", "let", "actor"]
        var names = Set<String>()
        for name in try FileManager.default.subpathsOfDirectory(atPath: folder.path) where name.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("public ") || line.hasPrefix("package ") {
                let words = line.split(whereSeparator: { " (:<{".contains($0) })
                if let k = words.firstIndex(where: { kinds.contains($0) }), k + 1 < words.count {
                    names.insert(String(words[k + 1]))
                }
            }
        }
        return names
    }

    /// Every layer a file imports is a declared dependency of its target (no module reached only
    /// through another's graph), and is used: the file names one of that layer's top-level
    /// declarations. A copied import block fails here.
    @Test func importsAreDeclaredAndUsed() throws {
        let graph = try Self.describedGraph()
        var names: [String: Set<String>] = [:]
        for layer in Self.layers { names[layer] = try Self.topLevelNames(of: layer) }
        for target in Self.layers + ["texpipe"] {
            let declared = Set(graph[target] ?? [])
            for (file, module) in try Self.imports(of: target) {
                #expect(
                    declared.contains(module) || module == "TexPipe",
                    "\(file) imports \(module), not a dependency of \(target)")
                guard let exported = names[module], target != "texpipe" else { continue }
                let text = try String(contentsOf: Self.root.appendingPathComponent("Sources/\(file)"), encoding: .utf8)
                let code = text.split(separator: "\n").filter {
                    !$0.contains("import ") && !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//")
                }
                .joined(separator: "\n")
                let identifiers = Set(
                    code.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init))
                #expect(!exported.isDisjoint(with: identifiers), "\(file) imports \(module) and uses none of its names")
            }
            // And the other way: a declared layer dependency is imported somewhere in the target.
            let imported = Set(try Self.imports(of: target).map(\.module))
            for dep in declared where dep.hasPrefix("TexPipe") {
                #expect(imported.contains(dep), "\(target) declares \(dep) but no file imports it")
            }
        }
    }
}
