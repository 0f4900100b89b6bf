internal import Foundation

/// A fresh folder under the system temp dir, removed when the value is released.
public final class TempDir {
    public let path: String

    public init() {
        path = NSTemporaryDirectory() + "texpipe-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        // Resolve /tmp symlinks so expected paths match what the planner prints.
        let real = realpath(path, nil)!
        defer { free(real) }
        _ = real
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public func write(_ relative: String, _ bytes: [UInt8]) {
        let full = path + "/" + relative
        try! FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: full, contents: Data(bytes))
    }

    public func write(_ relative: String, text: String) { write(relative, Array(text.utf8)) }

    /// A small valid PNG (opaque 4×3 RGBA) written by the reference writer.
    public func png(_ relative: String, width: Int = 4, height: Int = 3) {
        let samples = (0..<(width * height)).flatMap { [$0 % 256, 128, 0, 255] }
        write(
            relative,
            ReferencePNG.encode(.init(width: width, height: height, colorType: 6, bitDepth: 8, samples: samples)))
    }

    /// A file's bytes (empty when it is not there).
    public func read(_ relative: String) -> [UInt8] {
        FileManager.default.contents(atPath: path + "/" + relative).map { Array($0) } ?? []
    }

    public func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: path + "/" + relative) }
}
