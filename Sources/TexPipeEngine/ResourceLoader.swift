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
        state.withLock { s in entry(path, &s).digest }
    }

    /// The decoded image (RGBA, straight), or the decoder's or reader's one-line error. Reading
    /// and decoding happen under the loader's lock, so a file is read once however many jobs
    /// ask for it at the same moment (once per run: these are a pipeline's few shared files).
    public func image(_ path: String, maxPixels: Int) throws -> Image {
        try state.withLock { s in
            var e = entry(path, &s)
            if let image = e.image {
                guard image.width * image.height <= maxPixels else { throw CodecError(.overLimitCached) }
                return image
            }
            if let error = e.error { throw CodecError(error) }
            var bytes = e.bytes
            if bytes == nil {  // not kept (over the budget): read again
                switch read(path, &s) {
                case .success(let b): bytes = b
                case .failure(let error): throw CodecError(error.description)
                }
            }
            let image = try ImageDecoder.decode(bytes!, path: path, maxPixels: maxPixels)
            let size = image.width * image.height * image.depth / 2
            s.held -= e.bytes?.count ?? 0
            e.bytes = nil
            if s.held + size <= budget {
                e.image = image
                s.held += size
            }
            s.entries[path] = e
            return image
        }
    }

    private func read(_ path: String, _ s: inout State) -> Result<[UInt8], FileReader.ReadError> {
        s.reads[path, default: 0] += 1
        return FileReader.read(path)
    }

    /// The entry of `path`, read from disk the first time.
    private func entry(_ path: String, _ s: inout State) -> Entry {
        if let known = s.entries[path] { return known }
        var e = Entry()
        switch read(path, &s) {
        case .success(let bytes):
            e.digest = Cache.sha256(bytes)
            if s.held + bytes.count <= budget {
                e.bytes = bytes
                s.held += bytes.count
            }
        case .failure(let error):
            e.error = error.description
        }
        s.entries[path] = e
        return e
    }
}

/// FreeType's text rendering, handed to stages through their context.
struct FreeTypeText: TextRenderer {
    func rendered(_ text: String, font: FontFace, size: Double, outline: Double) throws -> TextBitmap {
        try TextBitmap.rendered(text, font: font, size: size, outline: outline)
    }
}
