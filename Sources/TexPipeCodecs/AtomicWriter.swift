internal import Foundation
import Synchronization
internal import TexPipePixels

/// Outputs are written to a temporary file in their own folder and renamed into place,
/// so a reader (or an interrupted run) never sees a partial file. docs/guarantees.md "Atomic".
/// Every temporary file in flight is registered, so a signal handler can remove them.
///
/// A temporary file is `.NAME.tmp-PID-XXXXXX`, and its writer holds an exclusive `flock` on it
/// until it is renamed. A run killed outright (SIGKILL, power loss) leaves such files behind; the
/// next run that writes into that folder (and `texpipe clean`) removes those whose writer is gone
/// — its pid not alive, and the lock free — and never a live concurrent run's. docs/guarantees.md "Clean".
package enum AtomicWriter {
    static let inFlight = Mutex<(paths: Set<String>, stopped: Bool)>(([], false))
    /// Held shared by every writer while it creates or renames a temporary file, exclusively by
    /// `stopAndCleanUp`: a stop waits for the renames in progress and none starts after it. Shared,
    /// so writers never wait for each other's system calls (holding the mutex across mkstemp and
    /// rename was a fifth of a cold run over 20,000 sprites, in the kernel's PI-futex slow path).
    nonisolated(unsafe) static let gate: UnsafeMutablePointer<pthread_rwlock_t> = {
        let p = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
        pthread_rwlock_init(p, nil)
        return p
    }()

    /// Jobs that renamed an output and have not yet recorded their cache entry. A stop waits for
    /// them (a little while at most), so an interrupted run leaves no finished output without its
    /// entry: the rerun does exactly the jobs that had not finished.
    static let committing = Atomic<Int>(0)
    /// Per thread, while it runs a job: 1 = nothing renamed yet, 2 = renamed (counted in `committing`).
    static let jobState: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Runs one job's work (its writes and its cache entry) on this thread: from its first rename
    /// to its end, a stop waits for it. docs/guarantees.md "Atomic".
    package static func job<T>(_ body: () -> T) -> T {
        pthread_setspecific(jobState, UnsafeRawPointer(bitPattern: 1))
        defer {
            if pthread_getspecific(jobState) == UnsafeMutableRawPointer(bitPattern: 2) {
                committing.subtract(1, ordering: .releasing)
            }
            pthread_setspecific(jobState, nil)
        }
        return body()
    }

    static func shared<T>(_ body: () -> T) -> T {
        pthread_rwlock_rdlock(gate)
        defer { pthread_rwlock_unlock(gate) }
        return body()
    }
    /// Folders this process has created (or found) and swept: each once, before its first write.
    static let swept = Mutex<Set<PathKey>>([])  // by bytes: `PathKey`

    public struct WriteError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Writes `bytes` to `path` atomically, creating folders as needed.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        // A bare file name is in the current folder.
        let parent = (path as NSString).deletingLastPathComponent
        let dir = parent.isEmpty ? "." : parent
        // Once per folder per process: create it (FileManager looks up /etc/passwd and /etc/group
        // on every call) and sweep what killed runs left in it. A folder removed since (a long
        // `watch`) is created again when the temporary file cannot be.
        func createFolder() throws {
            do {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            } catch {
                throw WriteError(description: FileMessage.cannotCreateFolder(dir, reason(errno)))
            }
        }
        if swept.withLock({ !$0.contains(PathKey(dir)) }) {
            try createFolder()
            if swept.withLock({ $0.insert(PathKey(dir)).inserted }) { sweep(dir) }
        }
        let name = (path as NSString).lastPathComponent
        var template: [CChar] = []
        // Created and registered under the shared gate, so a stop (exclusive) cannot miss it.
        func create() -> Int32 {
            template = Array((dir + "/." + name + ".tmp-\(getpid())-XXXXXX").utf8CString)
            return shared {
                if inFlight.withLock({ $0.stopped }) { return -2 }
                let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
                if fd >= 0 {
                    let e = errno
                    inFlight.withLock { _ = $0.paths.insert(String(nullTerminated: template)) }
                    _ = flock(fd, LOCK_EX)  // held until the rename: a sweeper sees a live writer
                    errno = e
                }
                return fd
            }
        }
        var fd = create()
        if fd == -1 && errno == ENOENT {
            try createFolder()
            fd = create()
        }
        if fd == -2 { throw WriteError(description: FileMessage.stopped) }
        guard fd >= 0 else {
            throw WriteError(description: FileMessage.cannotWriteIn(dir, reason(errno)))
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
        guard ok else {
            close(fd)
            unlink(temp)
            throw WriteError(description: FileMessage.cannotWrite(path, reason(writeErrno)))
        }
        // Renamed while still open and locked, so no sweeper can take the file in between.
        let renamed: Bool = shared {
            if inFlight.withLock({ $0.stopped }) { return false }
            guard rename(temp, path) == 0 else { return false }
            // Counted before the gate opens, so a stop that follows sees this job committing.
            if pthread_getspecific(jobState) == UnsafeMutableRawPointer(bitPattern: 1) {
                committing.add(1, ordering: .relaxed)
                pthread_setspecific(jobState, UnsafeRawPointer(bitPattern: 2))
            }
            return true
        }
        guard renamed else {
            let e = errno
            close(fd)
            unlink(temp)
            throw WriteError(description: FileMessage.cannotRename(path, reason(e)))
        }
        if close(fd) != 0 {
            let e = errno
            unlink(path)  // the data may not have reached the disk: no output rather than a bad one
            throw WriteError(description: FileMessage.cannotWrite(path, reason(e)))
        }
    }

    /// Sweeps `dir` unless this process has already: a folder that exists is swept once per
    /// process, whether or not anything is written into it (one that does not exist holds
    /// nothing to sweep, and is created by the first write).
    package static func sweepOnce(_ dir: String) {
        var st = stat()
        guard stat(dir, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else { return }
        if swept.withLock({ $0.insert(PathKey(dir)).inserted }) { sweep(dir) }
    }

    /// Removes the temporary files in `dir` that a killed run left: `.NAME.tmp-PID-XXXXXX`
    /// whose pid is not a live process and whose lock is free. Returns the paths removed.
    @discardableResult
    ///
    /// The folder is read with `opendir`/`readdir`, and only names holding `.tmp-` become Strings:
    /// the sweep runs beside the jobs, and under a tight memory limit Foundation's listing passed
    /// a failed allocation on to `strlen` (a crash in a CI run, the job itself refusing cleanly).
    public static func sweep(_ dir: String) -> [String] {
        var removed: [String] = []
        guard let listing = opendir(dir) else { return removed }
        defer { closedir(listing) }
        while let entry = readdir(listing) {
            let candidate = withUnsafePointer(to: entry.pointee.d_name) { raw in
                raw.withMemoryRebound(to: CChar.self, capacity: 256) { name -> String? in
                    guard name[0] == 0x2E, strstr(name, ".tmp-") != nil else { return nil }
                    return String(cString: name)
                }
            }
            guard let name = candidate, let pid = ownerPid(ofTemporary: name), pid != getpid() else { continue }
            // Alive (or not ours to signal): a concurrent run's file. Leave it.
            if kill(pid, 0) == 0 || errno == EPERM { continue }
            let path = dir + "/" + name
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            // The writer holds the lock until its rename: a free lock means nobody is writing.
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }
            if unlink(path) == 0 { removed.append(path) }
        }
        return removed
    }

    /// The pid in a temporary file's name (`.NAME.tmp-PID-XXXXXX`), or nil for any other name.
    static func ownerPid(ofTemporary name: String) -> pid_t? {
        guard name.hasPrefix("."), let marker = name.range(of: ".tmp-", options: .backwards) else { return nil }
        let rest = name[marker.upperBound...].split(separator: "-", omittingEmptySubsequences: false)
        guard rest.count == 2, rest[1].count == 6, let pid = pid_t(rest[0]), pid > 0 else { return nil }
        return pid
    }

    /// Stops all writing and removes every temporary file in flight. Used on SIGINT/SIGTERM;
    /// after this no rename happens, so no partial or half-finished output appears.
    /// Then it waits, up to two seconds, for the jobs that renamed an output to record their
    /// cache entry (a job whose next output is still encoding fails at its next write instead).
    public static func stopAndCleanUp() {
        pthread_rwlock_wrlock(gate)
        inFlight.withLock { state in
            state.stopped = true
            for p in state.paths { unlink(p) }
            state.paths.removeAll()
        }
        pthread_rwlock_unlock(gate)
        var waited = 0
        while committing.load(ordering: .acquiring) > 0 && waited < 2000 {
            usleep(1000)
            waited += 1
        }
    }

    /// True once a signal stopped the run: results after that are not reported.
    public static var isStopped: Bool { inFlight.withLock { $0.stopped } }

    static func reason(_ code: Int32) -> String { FileReader.reason(code) }
}
