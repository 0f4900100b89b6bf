/// A path as a dictionary key, equal and hashed by its UTF-8 bytes. Swift's `String` is equal by
/// canonical equivalence, so `café.png` with `é` as one code point and as `e` plus an accent is one
/// String but two files on Linux: a table of paths keyed by `String` gives one file's answer for
/// the other (its real folder, its header, its decoded pixels). Hashing the bytes as they lie also
/// skips the normalisation `String` hashing does outside ASCII.
public struct PathKey: Hashable, Sendable {
    public let path: String

    public init(_ path: String) { self.path = path }

    public static func == (a: PathKey, b: PathKey) -> Bool { a.path.utf8.elementsEqual(b.path.utf8) }

    public func hash(into hasher: inout Hasher) {
        var text = path
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

extension Array where Element == String {
    /// Whether the list holds `path` byte for byte (`contains` compares as Strings: see `PathKey`).
    package func containsPath(_ path: String) -> Bool { contains { $0.utf8.elementsEqual(path.utf8) } }
}
