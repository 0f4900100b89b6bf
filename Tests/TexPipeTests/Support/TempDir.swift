import Foundation

@testable import TexPipe
@testable import TexPipeCodecs
@testable import TexPipeEngine
@testable import TexPipeFormats
@testable import TexPipeManifest
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeReport
@testable import TexPipeStages

/// A fresh folder under the system temp dir, removed when the value is released.
final class TempDir {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "texpipe-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        // Resolve /tmp symlinks so expected paths match what the planner prints.
        let real = realpath(path, nil)!
        defer { free(real) }
        _ = real
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func write(_ relative: String, _ bytes: [UInt8]) {
        let full = path + "/" + relative
        try! FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: full, contents: Data(bytes))
    }

    func write(_ relative: String, text: String) { write(relative, Array(text.utf8)) }

    /// A small valid PNG (opaque 4×3 RGBA) written by the reference writer.
    func png(_ relative: String, width: Int = 4, height: Int = 3) {
        let samples = (0..<(width * height)).flatMap { [$0 % 256, 128, 0, 255] }
        write(
            relative,
            ReferencePNG.encode(.init(width: width, height: height, colorType: 6, bitDepth: 8, samples: samples)))
    }

    /// A file's bytes (empty when it is not there).
    func read(_ relative: String) -> [UInt8] {
        FileManager.default.contents(atPath: path + "/" + relative).map { Array($0) } ?? []
    }

    func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: path + "/" + relative) }

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
