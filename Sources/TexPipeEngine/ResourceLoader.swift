internal import Foundation
import Synchronization
internal import TexPipeCache
internal import TexPipeCodecs
internal import TexPipeFormats
internal import TexPipeModels
public import TexPipePixels
internal import TexPipeStages

/// Reads and decodes the files stages declare in `reads` — layer images, masks, alpha maps, font
/// files — once per run, however many jobs use them (the jersey case reads the same few masks in
/// every job). Stages never touch the file system; the engine hands them these images through
/// their context. Holds at most `budget` bytes (file bytes kept for decoding, decoded pixels);
/// past that a file is read again by the job that needs it. Each file has its own lock: one file
/// loads once, different files (an alpha map per input) load in parallel.
public final class ResourceLoader: Sendable {
    struct Entry {
        var loaded = false
        var digest: String?
        var bytes: [UInt8]?
        var error: String?
        var image: Image?
    }

    /// One file's entry behind its own lock: the same file is read and decoded once however many
    /// jobs ask at the same moment, while different files load in parallel.
    final class Slot: Sendable {
        let entry = Mutex(Entry())
    }

    public let budget: Int
    private let slots = Mutex<[PathKey: Slot]>([:])  // by bytes: `PathKey`
    /// Bytes held (file bytes kept for decoding, decoded pixels) and reads from disk per file.
    private let accounts = Mutex<(held: Int, reads: [PathKey: Int])>((0, [:]))

    public init(budget: Int = 256 << 20) { self.budget = budget }

    /// How many times each file was read from disk (the tests check "once per run").
    public func readCount(_ path: String) -> Int { accounts.withLock { $0.reads[PathKey(path)] ?? 0 } }

    private func slot(_ path: String) -> Slot {
        let key = PathKey(path)
        return slots.withLock { s in
            if let known = s[key] { return known }
            let new = Slot()
            s[key] = new
            return new
        }
    }

    /// Takes `bytes` more of the budget; false (nothing taken) when they do not fit.
    private func reserve(_ bytes: Int) -> Bool {
        accounts.withLock { a in
            guard a.held + bytes <= budget else { return false }
            a.held += bytes
            return true
        }
    }

    private func release(_ bytes: Int) { accounts.withLock { $0.held -= bytes } }

    /// The file's bytes, or why not (one line). An image a model embeds (`crate.glb#images[1]`) is
    /// read from its model.
    private func read(_ path: String) -> Result<[UInt8], CodecError> {
        accounts.withLock { $0.reads[PathKey(path), default: 0] += 1 }
        if let image = GLTFModel.referencedImageBytes(path) { return image.mapError { CodecError($0.description) } }
        return FileReader.read(path).mapError { CodecError($0.description) }
    }

    /// Reads the file the first time: its digest, and its bytes while the budget allows.
    private func load(_ path: String, _ e: inout Entry) {
        guard !e.loaded else { return }
        e.loaded = true
        switch read(path) {
        case .success(let bytes):
            e.digest = Cache.sha256(bytes)
            if reserve(bytes.count) { e.bytes = bytes }
        case .failure(let error):
            e.error = error.description
        }
    }

    /// The file's SHA-256 (for the job's cache key); nil when it cannot be read.
    public func digest(_ path: String) -> String? {
        slot(path).entry.withLock { e in
            load(path, &e)
            return e.digest
        }
    }

    /// The decoded image (RGBA, straight), or the decoder's or reader's one-line error.
    public func image(_ path: String, maxPixels: Int) throws -> Image {
        try slot(path).entry.withLock { e in
            load(path, &e)
            if let image = e.image {
                guard image.width * image.height <= maxPixels else { throw CodecError(.overLimitCached) }
                return image
            }
            if let error = e.error { throw CodecError(error) }
            // The kept bytes are handed to the decoder, which lets them go once the image is made.
            var file: [UInt8]
            if let kept = e.bytes.take() {
                release(kept.count)
                file = kept
            } else {  // not kept (over the budget): read again
                switch read(path) {
                case .success(let b): file = b
                case .failure(let error): throw CodecError(error.description)
                }
            }
            let image = try ImageDecoder.decode(consume file, path: path, maxPixels: maxPixels)
            if reserve(image.width * image.height * image.depth / 2) { e.image = image }
            return image
        }
    }
}

/// FreeType's text rendering, handed to stages through their context.
struct FreeTypeText: TextRenderer {
    func rendered(_ text: String, font: FontFace, size: Double, outline: Double) throws -> TextBitmap {
        try TextBitmap.rendered(text, font: font, size: size, outline: outline)
    }
}
