internal import Foundation

/// Path text without Foundation's `NSString` bridging (its `lastPathComponent` and
/// `deletingLastPathComponent` normalised every path again and were a fifth of planning 20,000
/// sprites). Paths here are already clean: absolute or relative, `/`-separated, no trailing `/`.
package enum PathText {
    /// `a/b/c.png` → `c.png`.
    package static func lastComponent(_ path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    /// `a/b/c.png` → `a/b`; `/c.png` → `/`; `c.png` → ``.
    package static func parent(_ path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        if slash == path.utf8.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// `path` without its first `bytes` UTF-8 bytes (a folder prefix and its `/`): String's
    /// `dropFirst` walks characters (grapheme breaking) and its `count` walks the whole string.
    package static func dropping(_ bytes: Int, from path: String) -> String {
        String(Substring(path.utf8.dropFirst(bytes)))
    }

    /// `path` relative to the folder `base` when it lies below it, else `path` as it is.
    package static func relative(_ path: String, to base: String) -> String {
        path.hasPrefix(base + "/") ? dropping(base.utf8.count + 1, from: path) : path
    }

    /// `c.png` → `png`; `c` → ``; `.hidden` → ``.
    package static func pathExtension(_ name: String) -> String {
        let file = lastComponent(name)
        guard let dot = file.utf8.lastIndex(of: UInt8(ascii: ".")), dot != file.utf8.startIndex else { return "" }
        return String(file[file.utf8.index(after: dot)...])
    }

    /// `a/c.png` → `a/c`.
    package static func deletingExtension(_ path: String) -> String {
        let ext = pathExtension(path)
        return ext.isEmpty ? path : String(path.dropLast(ext.count + 1))
    }

    /// Shows a path relative to the current folder when it lies below it.
    package static func display(_ absolute: String) -> String {
        let prefix = workingDirectoryPrefix
        return absolute.hasPrefix(prefix) ? String(absolute.dropFirst(prefix.count)) : absolute
    }

    /// The process's folder with a trailing `/`, asked once (a getcwd per message added up to one
    /// per job); texpipe never changes folder.
    static let workingDirectoryPrefix: String = {
        let cwd = FileManager.default.currentDirectoryPath
        return cwd.hasSuffix("/") ? cwd : cwd + "/"
    }()
}
