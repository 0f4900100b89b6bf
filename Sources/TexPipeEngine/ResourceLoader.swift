internal import Foundation
import Synchronization
internal import TexPipeCodecs
public import TexPipePixels
internal import TexPipeStages

/// Reads and decodes the files stages declare in `reads` — layer images, masks, alpha maps, font
/// files — once per run, however many jobs use them (the jersey case reads the same few masks in
/// every job). Stages never touch the file system; the engine hands them these images through
/// their context. Holds at most `budget` bytes (file bytes kept for decoding, decoded pixels);
/// past that a file is read again by the job that needs it.
public final class ResourceLoader: Sendable {
    struct Entry {
        var digest: String?
        var bytes: [UInt8]?
        var error: String?
        var image: Image?
    }
    struct State {
        var entries: [String: Entry] = [:]
        var held = 0
        var reads: [String: Int] = [:]
    }

    public let budget: Int
    private let state = Mutex(State())

    public init(budget: Int = 256 << 20) { self.budget = budget }

    /// How many times each file was read from disk (the tests check "once per run").
    public func readCount(_ path: String) -> Int { state.withLock { $0.reads[path] ?? 0 } }

    /// The file's SHA-256 (for the job's cache key); nil when it cannot be read.
    public func digest(_ path: String) -> String? {
        if let e = state.withLock({ $0.entries[path] }) { return e.digest }
        return load(path).digest
    }

    /// The decoded image (RGBA, straight), or the decoder's or reader's one-line error.
    public func image(_ path: String, maxPixels: Int) throws -> Image {
        var entry = state.withLock { $0.entries[path] } ?? load(path)
        if let image = entry.image {
            guard image.width * image.height <= maxPixels else { throw CodecError("over the pixel limit") }
            return image
        }
        if let error = entry.error { throw CodecError(error) }
        let bytes =
            try entry.bytes
            ?? { () throws -> [UInt8] in
                // Not kept (over the budget): read again.
                switch read(path) {
                case .success(let b): return b
                case .failure(let e): throw CodecError(e.description)
                }
            }()
        let image = try ImageDecoder.decode(bytes, path: path, maxPixels: maxPixels)
        entry.image = image
        entry.bytes = nil
        state.withLock { s in
            let size = image.width * image.height * image.depth / 2
            let kept = s.entries[path]?.bytes?.count ?? 0
            if s.held - kept + size <= budget {
                s.entries[path] = entry
                s.held += size - kept
            }
        }
        return image
    }

    private func read(_ path: String) -> Result<[UInt8], FileReader.ReadError> {
        state.withLock { $0.reads[path, default: 0] += 1 }
        return FileReader.read(path)
    }

    private func load(_ path: String) -> Entry {
        var entry = Entry()
        switch read(path) {
        case .success(let bytes):
            entry.digest = Cache.sha256(bytes)
            entry.bytes = bytes
        case .failure(let e):
            entry.error = e.description
        }
        state.withLock { s in
            guard s.entries[path] == nil else { return }
            let size = entry.bytes?.count ?? 0
            if s.held + size > budget { entry.bytes = nil }
            s.entries[path] = entry
            s.held += entry.bytes?.count ?? 0
        }
        return entry
    }
}

/// FreeType's text rendering, handed to stages through their context.
struct FreeTypeText: TextRenderer {
    func rendered(_ text: String, font: FontFace, size: Double, outline: Double) throws -> TextBitmap {
        try TextBitmap.rendered(text, font: font, size: size, outline: outline)
    }
}
