internal import CTexPipeShims
internal import Foundation
internal import TexPipeFormats

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
        // One buffer of the file's size, read into directly. A large one is first asked of the
        // address space (under a memory limit a refused allocation would trap in the runtime):
        // a file that cannot fit is this file's error, and the run goes on.
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            return .failure(ReadError(description: CodecMessage.cannotRead(why: reason(errno)).description))
        }
        defer { close(fd) }
        guard fstat(fd, &st) == 0 else {
            return .failure(ReadError(description: CodecMessage.cannotRead(why: reason(errno)).description))
        }
        let size = Int(st.st_size)
        if size >= 8 << 20 && tp_can_reserve(size) == 0 {
            return .failure(
                ReadError(description: CodecMessage.cannotAllocateToRead(mib: (size + (1 << 20) - 1) >> 20).description)
            )
        }
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            while count < size {
                let n = Foundation.read(fd, buffer.baseAddress! + count, size - count)
                if n > 0 {
                    count += n
                } else if n == 0 {
                    break  // shorter than it was a moment ago: what is there
                } else if errno != EINTR {
                    failure = errno
                    break
                }
            }
        }
        if failure != 0 {
            return .failure(ReadError(description: CodecMessage.cannotRead(why: reason(failure)).description))
        }
        return .success(bytes)
    }

    /// The system's words for an errno value ("No such file or directory").
    public static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
