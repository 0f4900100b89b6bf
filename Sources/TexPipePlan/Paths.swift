internal import Foundation

/// One folder's entries with their types from `readdir` (`d_type`), so a walk needs no stat per
/// file; `lstat` only where the file system does not say.
package enum Folder {
    package enum Kind { case file, directory, symlink, other }

    /// Entries sorted by name (byte order), `.` and `..` left out; empty when unreadable.
    package static func entries(_ path: String) -> [(name: String, kind: Kind)] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var out: [(String, Kind)] = []
        while let entry = readdir(dir) {
            // The name read where it lies: a dirent from readdir may be shorter than the struct
            // (its name as long as it needs), so copying the whole `d_name` field can read past it.
            let name = String(
                cString: (UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
                    .assumingMemoryBound(to: CChar.self))
            if name == "." || name == ".." { continue }
            var kind: Kind
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_REG): kind = .file
            case Int32(DT_DIR): kind = .directory
            case Int32(DT_LNK): kind = .symlink
            case Int32(DT_UNKNOWN):
                var st = stat()
                guard lstat(path + "/" + name, &st) == 0 else { continue }
                switch st.st_mode & S_IFMT {
                case S_IFREG: kind = .file
                case S_IFDIR: kind = .directory
                case S_IFLNK: kind = .symlink
                default: kind = .other
                }
            default: kind = .other
            }
            out.append((name, kind))
        }
        return out.sorted { $0.0 < $1.0 }
    }
}

/// A file's identity on disk, as git's index keeps it: size, modification and change times
/// (nanoseconds) and inode. A file rewritten in place changes mtime and ctime; one replaced by
/// rename changes the inode; `touch -d` restoring an mtime still changes ctime.
public struct FileStamp: Sendable, Equatable {
    public var size: Int64
    public var mtime: Int64
    public var ctime: Int64
    public var inode: UInt64

    public init(size: Int64, mtime: Int64, ctime: Int64, inode: UInt64) {
        self.size = size
        self.mtime = mtime
        self.ctime = ctime
        self.inode = inode
    }

    init(_ st: stat) {
        size = Int64(st.st_size)
        mtime = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        ctime = Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec)
        inode = UInt64(st.st_ino)
    }

    /// The stamp of a regular file (following symlinks); nil when missing or not a regular file.
    public static func of(_ path: String) -> FileStamp? {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileStamp(st)
    }

    /// Wall-clock time in nanoseconds, the clock file times are taken from.
    public static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
