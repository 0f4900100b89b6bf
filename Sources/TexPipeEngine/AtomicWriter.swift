internal import Foundation
import Synchronization
internal import TexPipeCodecs
internal import TexPipeManifest
internal import TexPipePixels
internal import TexPipePlan
internal import TexPipeStages

/// Outputs are written to a temporary file in their own folder and renamed into place,
/// so a reader (or an interrupted run) never sees a partial file. SPEC §5 "Atomic".
/// Every temporary file in flight is registered, so a signal handler can remove them.
public enum AtomicWriter {
    static let inFlight = Mutex<(paths: Set<String>, stopped: Bool)>(([], false))

    public struct WriteError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Writes `bytes` to `path` atomically, creating folders as needed.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        let dir = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            throw WriteError(description: EngineMessage.cannotCreateFolder(dir, reason(errno)))
        }
        let name = (path as NSString).lastPathComponent
        var template = Array((dir + "/." + name + ".tmp-XXXXXX").utf8CString)
        // Register before creating, under the lock, so a stop in between cannot miss it.
        let fd: Int32 = inFlight.withLock { state in
            if state.stopped { return -2 }
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            if fd >= 0 { state.paths.insert(String(nullTerminated: template)) }
            return fd
        }
        if fd == -2 { throw WriteError(description: EngineMessage.stopped) }
        guard fd >= 0 else {
            throw WriteError(description: EngineMessage.cannotWriteIn(dir, reason(errno)))
        }
        let temp = String(nullTerminated: template)
        defer { _ = inFlight.withLock { $0.paths.remove(temp) } }
        var ok = fchmod(fd, 0o644) == 0
        var written = 0
        bytes.withUnsafeBytes { b in
            while ok && written < b.count {
                let n = Foundation.write(fd, b.baseAddress! + written, b.count - written)
                if n <= 0 { ok = false } else { written += n }
            }
        }
        let writeErrno = errno
        if close(fd) != 0 { ok = false }
        guard ok else {
            unlink(temp)
            throw WriteError(description: EngineMessage.cannotWrite(path, reason(writeErrno)))
        }
        let renamed: Bool = inFlight.withLock { state in
            if state.stopped { return false }
            return rename(temp, path) == 0
        }
        guard renamed else {
            let e = errno
            unlink(temp)
            throw WriteError(description: EngineMessage.cannotRename(path, reason(e)))
        }
    }

    /// Stops all writing and removes every temporary file in flight. Used on SIGINT/SIGTERM;
    /// after this no rename happens, so no partial or half-finished output appears.
    public static func stopAndCleanUp() {
        inFlight.withLock { state in
            state.stopped = true
            for p in state.paths { unlink(p) }
            state.paths.removeAll()
        }
    }

    /// True once a signal stopped the run: results after that are not reported.
    public static var isStopped: Bool { inFlight.withLock { $0.stopped } }

    static func reason(_ code: Int32) -> String { FileReader.reason(code) }
}
