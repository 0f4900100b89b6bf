internal import Foundation

/// A path as a dictionary key, equal and hashed by its UTF-8 bytes. Swift's `String` is equal by
/// canonical equivalence, so `café.png` with `é` as one code point and as `e` plus an accent is one
/// String but two files on Linux: a table of paths keyed by `String` gives one file's answer for
/// the other (its real folder, its header, its decoded pixels). Hashing the bytes as they lie also
/// skips the normalisation `String` hashing does outside ASCII.
public struct PathKey: Hashable, Sendable {
    public let path: String

    public init(_ path: String) { self.path = path }

    /// The bytes compared where they lie (a native String's UTF-8 is contiguous): the generic
    /// `elementsEqual` over two `UTF8View`s was a tenth of planning 20,000 sprites.
    public static func == (a: PathKey, b: PathKey) -> Bool {
        let (x, y) = (a.path.utf8, b.path.utf8)
        guard x.count == y.count else { return false }
        let equal = x.withContiguousStorageIfAvailable { xs in
            y.withContiguousStorageIfAvailable { ys in
                xs.isEmpty || memcmp(xs.baseAddress!, ys.baseAddress!, xs.count) == 0
            }
        }
        return (equal ?? nil) ?? x.elementsEqual(y)
    }

    public func hash(into hasher: inout Hasher) {
        let hashed: Void? = path.utf8.withContiguousStorageIfAvailable {
            hasher.combine(bytes: UnsafeRawBufferPointer($0))
        }
        if hashed == nil {
            // The same bytes the same way, from a contiguous copy: equal keys hash alike.
            var text = path
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }
}

extension Array where Element == String {
    /// Whether the list holds `path` byte for byte (`contains` compares as Strings: see `PathKey`).
    package func containsPath(_ path: String) -> Bool {
        let key = PathKey(path)
        return contains { PathKey($0) == key }
    }
}
