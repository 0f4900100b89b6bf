internal import Foundation

/// Every file texpipe reads (inputs, alpha maps, files to inspect) goes through here.
public enum FileReader {
    public struct ReadError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// A regular file's bytes. Anything else — a folder, a FIFO (whose open would block), a symlink
    /// loop, a file we may not read — is a one-line error, never a hang.
    public static func read(_ path: String) -> Result<[UInt8], ReadError> {
        var st = stat()
        guard stat(path, &st) == 0 else {
            return .failure(ReadError(description: CodecMessage.cannotRead(why: reason(errno)).description))
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            return .failure(ReadError(description: CodecMessage.notRegularFile.description))
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            let code = access(path, R_OK) == 0 ? EIO : errno
            return .failure(ReadError(description: CodecMessage.cannotRead(why: reason(code)).description))
        }
        return .success(Array(data))
    }

    /// The system's words for an errno value ("No such file or directory").
    public static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
