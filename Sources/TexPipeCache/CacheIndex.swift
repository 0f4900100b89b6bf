internal import Foundation
import Synchronization
internal import TexPipeCodecs
internal import TexPipePixels
package import TexPipePlan

/// `.texpipe/index` and `.texpipe/journal`: every job entry and every file texpipe hashed, in one
/// text file read once per run, as git's index keeps a repository's stat data.
///
/// - A **file record** is a path's stamp (size, mtime and ctime in ns, inode), its SHA-256 and,
///   for images, its shape. While the stamp on disk equals the record, the recorded hash stands
///   and the file is not read. A record is trusted only when the file's mtime lies at least
///   `racyWindow` before the moment it was checked (git's "racily clean" rule: a write within the
///   same clock tick as the check could leave the stamp unchanged); others are hashed again.
/// - A **job entry** is what `Cache.Entry` says.
/// - Each finished job appends its lines to the journal (one `write`, under a shared `flock`), so
///   a killed run keeps what it finished. At the end of a run a few changes are appended to the
///   journal too; once the journal would outgrow a quarter of the index, the index is
///   rewritten (atomically, under an exclusive `flock`, merged with what concurrent runs wrote
///   meanwhile) and the journal emptied. A run with nothing new writes nothing.
///
/// Line format (UTF-8, one record a line, the path last so it may hold spaces; `%` and newlines
/// in paths and job names are percent-escaped):
///
///     texpipe-index 1
///     f SIZE MTIME CTIME INODE CHECKED SHA256|- WxHxDEPTH|- PATH
///     j KEY VERSION PARAMETERS INPUTS OUTPUTS JOB
///     o SHA256 BYTES PATH            (OUTPUTS of them follow their `j` line)
///     -f PATH                        (journal: a record dropped)
///     -j KEY                         (journal: an entry dropped)
package final class CacheIndex: Sendable, ShapeMemory {
    /// 10 ms: above the kernel's coarse clock tick (1–4 ms) file times are taken from.
    static let racyWindow: Int64 = 10_000_000

    struct FileRecord: Equatable {
        var stamp: FileStamp
        /// When the stamp was taken, with the hash or shape it vouches for (ns, realtime).
        var checked: Int64
        var sha256: String?
        var shape: ImageShape?
        /// An output this run wrote: confirmed (stamp taken again) when the index is written.
        var pending = false

        var trusted: Bool { stamp.mtime < checked - CacheIndex.racyWindow }
    }

    /// The records: those read from disk stay unparsed bytes in an `IndexTable` until asked for;
    /// this run's changes sit on top.
    struct Contents: Sendable {
        var files = LazyMap<FileRecord>(parse: { IndexTable.fileRecord($0, $1) }, keys: { $0.fileKeys })
        var jobs = LazyMap<Cache.Entry>(parse: { IndexTable.jobEntry($0, $1) }, keys: { $0.jobKeys })
        /// Lines that did not parse (a torn journal line of a killed run, a hand edit).
        var damaged = 0
    }

    struct State {
        var contents: Contents
        var loaded = false
        var changedFiles: Set<String> = []
        var droppedFiles: Set<String> = []
        var changedJobs: Set<String> = []
        var droppedJobs: Set<String> = []
        var journal: Int32 = -1
        var journalFailed = false
    }

    /// The folder (`.texpipe`) and the manifest's folder, which record paths are relative to.
    public let directory: String
    public let base: String
    let state = Mutex(State(contents: Contents()))

    /// Set once the background read of the index and journal has finished.
    let loading = DispatchGroup()

    /// Starts reading the index on another core at once: a run plans (globs, headers) meanwhile.
    public init(directory: String, base: String) {
        self.directory = directory
        self.base = base
        let files = [directory + "/index", directory + "/journal"]
        loading.enter()
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            let contents = CacheIndex.read(files)
            self.state.withLock { s in
                if !s.loaded {
                    s.contents = contents
                    s.loaded = true
                }
            }
            loading.leave()
        }
    }

    var indexFile: String { directory + "/index" }

    /// How many lines of the index and journal did not parse, if any.
    var damage: Int? { withContents { $0.contents.damaged > 0 ? $0.contents.damaged : nil } }
    var journalFile: String { directory + "/journal" }

    /// A path as the index keys it: relative to the manifest's folder when below it.
    func key(_ path: String) -> String { PathText.relative(path, to: base) }

    func withContents<T>(_ body: (inout State) -> T) -> T {
        if !state.withLock({ $0.loaded }) { loading.wait() }
        return state.withLock { s in body(&s) }
    }

    // MARK: files

    /// The recorded SHA-256 of `path` when its stamp on disk still matches a trusted record.
    func digest(of path: String, stamp: FileStamp) -> String? {
        let k = key(path)
        return withContents { s in
            guard let r = s.contents.files[k], r.stamp == stamp, r.trusted else { return nil }
            return r.sha256
        }
    }

    /// Records a hash taken of `path` whose stamp was `stamp` just before it was read at `time`.
    func record(_ path: String, stamp: FileStamp, sha256: String, at time: Int64, pending: Bool = false) {
        let k = key(path)
        withContents { s in
            var r = FileRecord(stamp: stamp, checked: time, sha256: sha256, shape: nil, pending: pending)
            if let old = s.contents.files[k], old.stamp == stamp { r.shape = old.shape }
            if s.contents.files[k] != r { Self.set(k, r, &s) }
        }
    }

    /// A file record changed by this run (written to the journal or index by `save`).
    private static func set(_ k: String, _ r: FileRecord, _ s: inout State) {
        s.contents.files[k] = r
        s.changedFiles.insert(k)
        s.droppedFiles.remove(k)
    }

    package func forget(_ path: String) {
        let k = key(path)
        withContents { s in
            if s.contents.files.removeValue(forKey: k) != nil {
                s.droppedFiles.insert(k)
                s.changedFiles.remove(k)
            }
        }
    }

    public func shape(of path: String, stamp: FileStamp) -> ImageShape? {
        let k = key(path)
        return withContents { s in
            guard let r = s.contents.files[k], r.stamp == stamp, r.trusted else { return nil }
            return r.shape
        }
    }

    public func remember(_ shape: ImageShape, of path: String, stamp: FileStamp, at time: Int64) {
        let k = key(path)
        withContents { s in
            var r = s.contents.files[k] ?? FileRecord(stamp: stamp, checked: time)
            if r.stamp != stamp { r = FileRecord(stamp: stamp, checked: time) }
            guard r.shape != shape else { return }
            r.shape = shape
            r.checked = min(r.checked, time)
            Self.set(k, r, &s)
        }
    }

    // MARK: jobs

    func entry(_ key: String) -> Cache.Entry? { withContents { $0.contents.jobs[key] } }

    package var entries: [String: Cache.Entry] {
        withContents { s in
            Dictionary(
                uniqueKeysWithValues: s.contents.jobs.keys.compactMap { k in s.contents.jobs[k].map { (k, $0) } })
        }
    }

    /// Records a finished job and its outputs' files, and appends them to the journal.
    func store(_ key: String, _ entry: Cache.Entry, outputs: [(path: String, stamp: FileStamp, sha256: String)]) {
        let time = FileStamp.now()
        var lines: [UInt8] = []
        lines.reserveCapacity(512)
        CacheIndex.append(job: key, entry, to: &lines)
        let records = outputs.map { o in
            (self.key(o.path), FileRecord(stamp: o.stamp, checked: time, sha256: o.sha256, shape: nil, pending: true))
        }
        for (k, r) in records { CacheIndex.append(file: k, r, to: &lines) }
        withContents { s in
            s.contents.jobs[key] = entry
            s.changedJobs.insert(key)
            s.droppedJobs.remove(key)
            for (k, r) in records { Self.set(k, r, &s) }
            appendToJournal(lines, &s)
        }
    }

    package func drop(job key: String) {
        withContents { s in
            if s.contents.jobs.removeValue(forKey: key) != nil {
                s.droppedJobs.insert(key)
                s.changedJobs.remove(key)
            }
        }
    }

    /// One `write` with `O_APPEND` under a shared lock (the compaction takes it exclusively). A
    /// journal that cannot be written only costs the next run time if this one is killed.
    private func appendToJournal(_ bytes: [UInt8], _ s: inout State) {
        if s.journal < 0 && !s.journalFailed {
            mkdir(directory, 0o755)
            s.journal = open(journalFile, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
            s.journalFailed = s.journal < 0
        }
        guard s.journal >= 0 else { return }
        flock(s.journal, LOCK_SH)
        _ = bytes.withUnsafeBytes { write(s.journal, $0.baseAddress, $0.count) }
        flock(s.journal, LOCK_UN)
    }

    // MARK: writing the index

    /// Whether anything changed since the index was read.
    var isDirty: Bool {
        withContents { s in
            !(s.changedFiles.isEmpty && s.droppedFiles.isEmpty && s.changedJobs.isEmpty && s.droppedJobs.isEmpty)
        }
    }

    /// Rewrites the index with this run's changes merged into what is on disk now (a concurrent
    /// run's records survive; for the same key, this run's win), then empties the journal.
    /// Outputs written by this run are stamped again: one changed since it was written is
    /// dropped (it will be hashed next time). Errors are returned as text; the cache stays usable.
    @discardableResult
    public func save() -> String? {
        guard isDirty else { return nil }
        return withContents { s -> String? in
            mkdir(directory, 0o755)
            let fd = s.journal >= 0 ? s.journal : open(journalFile, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { return CacheMessage.indexNotWritten(journalFile, String(cString: strerror(errno))) }
            defer {
                flock(fd, LOCK_UN)
                close(fd)
                s.journal = -1
            }
            flock(fd, LOCK_EX)
            // Outputs this run wrote, stamped again: unchanged since, they are trusted from now.
            let now = FileStamp.now()
            var confirmed: [(key: String, record: FileRecord?)] = []
            confirmed.reserveCapacity(s.changedFiles.count)
            for k in s.changedFiles {
                guard var r = s.contents.files[k] else { continue }
                if r.pending {
                    let path = k.hasPrefix("/") ? k : base + "/" + k
                    guard FileStamp.of(path) == r.stamp else {
                        confirmed.append((k, nil))
                        continue
                    }
                    r.checked = now
                    r.pending = false
                }
                confirmed.append((k, r))
            }
            // A few changes (a handful of jobs reran): appended to the journal, which every run
            // reads anyway, instead of rewriting the whole index.
            var st = stat()
            let journalBytes = fstat(fd, &st) == 0 ? Int(st.st_size) : 0
            let indexBytes = stat(indexFile, &st) == 0 ? Int(st.st_size) : 0
            if indexBytes > 0 && journalBytes + 200 * (confirmed.count + s.droppedFiles.count) < indexBytes / 4 {
                var bytes: [UInt8] = []
                for (k, r) in confirmed.sorted(by: { $0.key < $1.key }) {
                    if let r {
                        CacheIndex.append(file: k, r, to: &bytes)
                    } else {
                        bytes += Array("-f \(CacheIndex.escape(k))\n".utf8)
                    }
                }
                for k in s.droppedFiles.sorted() { bytes += Array("-f \(CacheIndex.escape(k))\n".utf8) }
                for k in s.droppedJobs.sorted() { bytes += Array("-j \(k)\n".utf8) }
                let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                guard written == bytes.count else {
                    return CacheMessage.indexNotWritten(journalFile, String(cString: strerror(errno)))
                }
                for (k, r) in confirmed { s.contents.files[k] = r }
                s.changedFiles = []
                s.droppedFiles = []
                s.changedJobs = []
                s.droppedJobs = []
                return nil
            }
            var merged = CacheIndex.read([indexFile, journalFile])
            merged.damaged = 0
            merged.files.reserveChanges(confirmed.count + s.droppedFiles.count)
            merged.jobs.reserveChanges(s.changedJobs.count + s.droppedJobs.count)
            for (k, r) in confirmed { merged.files[k] = r }
            for k in s.droppedFiles { merged.files[k] = nil }
            for k in s.changedJobs { merged.jobs[k] = s.contents.jobs[k] }
            for k in s.droppedJobs { merged.jobs[k] = nil }
            do {
                try AtomicWriter.write(CacheIndex.text(merged), to: indexFile)
            } catch {
                return "\(error)"
            }
            ftruncate(fd, 0)
            s.contents = merged
            s.changedFiles = []
            s.droppedFiles = []
            s.changedJobs = []
            s.droppedJobs = []
            // The folder of one JSON file per job that texpipe used before the index.
            let old = directory + "/jobs"
            if access(old, F_OK) == 0 { try? FileManager.default.removeItem(atPath: old) }
            return nil
        }
    }

    // MARK: the text format

    /// `%`, newline, carriage return and NUL as `%25`, `%0A`, `%0D`, `%00`, byte by byte: a key
    /// stays one field of one line whatever characters surround these.
    static func escape(_ s: String) -> String {
        guard s.utf8.contains(where: { $0 == 0x25 || $0 == 0x0A || $0 == 0x0D || $0 == 0 }) else { return s }
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count + 16)
        for b in s.utf8 {
            switch b {
            case 0x25: out += [0x25, 0x32, 0x35]
            case 0x0A: out += [0x25, 0x30, 0x41]
            case 0x0D: out += [0x25, 0x30, 0x44]
            case 0: out += [0x25, 0x30, 0x30]
            default: out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `escape` undone over the key's bytes; a `%` that starts none of its four escapes stays
    /// itself.
    static func unescaped(_ b: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        while i < b.count {
            if b[i] == 0x25, i + 2 < b.count {
                let decoded: UInt8? =
                    switch (b[i + 1], b[i + 2]) {
                    case (0x32, 0x35): 0x25
                    case (0x30, 0x41): 0x0A
                    case (0x30, 0x44): 0x0D
                    case (0x30, 0x30): 0
                    default: nil
                    }
                if let decoded {
                    out.append(decoded)
                    i += 3
                    continue
                }
            }
            out.append(b[i])
            i += 1
        }
        return out
    }

    static func unescape(_ s: Substring) -> String {
        guard s.utf8.contains(0x25) else { return String(s) }
        var s = s
        return s.withUTF8 { String(decoding: unescaped($0), as: UTF8.self) }
    }

    /// `f SIZE MTIME CTIME INODE CHECKED SHA256|- WxHxDEPTH|- PATH`, appended as bytes: an index
    /// of 20,000 jobs is 60,000 such lines, written at the end of the run while nothing else runs.
    static func append(file k: String, _ r: FileRecord, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "f"))
        for n in [r.stamp.size, r.stamp.mtime, r.stamp.ctime] {
            out.append(0x20)
            appendDecimal(n, to: &out)
        }
        out.append(0x20)
        appendDecimal(r.stamp.inode, to: &out)
        out.append(0x20)
        appendDecimal(r.checked, to: &out)
        out.append(0x20)
        appendText(r.sha256 ?? "-", to: &out)
        out.append(0x20)
        if let shape = r.shape {
            appendDecimal(Int64(shape.width), to: &out)
            out.append(UInt8(ascii: "x"))
            appendDecimal(Int64(shape.height), to: &out)
            out.append(UInt8(ascii: "x"))
            appendDecimal(Int64(shape.depth), to: &out)
        } else {
            out.append(UInt8(ascii: "-"))
        }
        out.append(0x20)
        appendText(escape(k), to: &out)
        out.append(0x0A)
    }

    /// `j KEY VERSION PARAMETERS INPUTS OUTPUTS JOB`, then an `o` (or `p`, with the measure) line
    /// per output.
    static func append(job key: String, _ e: Cache.Entry, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "j"))
        for field in [key, e.version, e.parameters, e.inputs] {
            out.append(0x20)
            appendText(field, to: &out)
        }
        out.append(0x20)
        appendDecimal(Int64(e.outputs.count), to: &out)
        out.append(0x20)
        appendText(escape(e.job), to: &out)
        out.append(0x0A)
        for o in e.outputs {
            let m = o.measureToken
            out.append(UInt8(ascii: m == nil ? "o" : "p"))
            out.append(0x20)
            appendText(o.sha256, to: &out)
            out.append(0x20)
            appendDecimal(Int64(o.bytes), to: &out)
            if let m {
                out.append(0x20)
                appendText(m, to: &out)
            }
            out.append(0x20)
            appendText(escape(o.path), to: &out)
            out.append(0x0A)
        }
    }

    private static func appendText(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { out.append(contentsOf: $0) }
    }

    /// `n` in decimal, as `"\(n)"` writes it.
    static func appendDecimal(_ n: Int64, to out: inout [UInt8]) {
        if n < 0 { out.append(UInt8(ascii: "-")) }
        appendDecimal(n.magnitude, to: &out)
    }

    static func appendDecimal(_ n: UInt64, to out: inout [UInt8]) {
        var v = n
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        var count = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[23 - count] = UInt8(truncatingIfNeeded: v % 10) + 0x30
                v /= 10
                count += 1
            } while v > 0
            out.append(contentsOf: d[(24 - count)...])
        }
    }

    /// The index's text: the file records, then the job entries, each sorted by key. (Made on two
    /// cores, the halves took more time in all and no less on the clock: they share the maps.)
    static func text(_ c: Contents) -> [UInt8] {
        let files = c.files.keys.sorted()
        let jobs = c.jobs.keys.sorted()
        var out = Array("texpipe-index 1\n".utf8)
        out.reserveCapacity(160 * files.count + 320 * jobs.count)
        // A record the scan let through but that does not parse whole is dropped, not trusted.
        for k in files { if let r = c.files[k] { append(file: k, r, to: &out) } }
        for k in jobs { if let e = c.jobs[k] { append(job: k, e, to: &out) } }
        return out
    }

    /// Reads the files in order, later lines overriding earlier ones. Lines that do not parse are
    /// counted and skipped (a torn journal line from a killed run, say): the cache can only lose
    /// time. One pass over the bytes finds each record's key and checks its fields; a record is
    /// parsed into values only when asked for (a no-op asks for each once, on the run's cores).
    static func read(_ files: [String]) -> Contents {
        let table = IndexTable(index: files[0], journal: files[1])
        var c = Contents()
        c.files.table = table
        c.jobs.table = table
        c.damaged = table.damaged
        return c
    }

    /// The index and journal at these paths read, every record parsed and written out again as
    /// one index: what a run does with them, for the fuzz target and the tests.
    package static func rewritten(index: String, journal: String) -> (text: String, damaged: Int) {
        let c = read([index, journal])
        return (String(decoding: text(c), as: UTF8.self), c.damaged)
    }

    /// A field's text with its escapes undone, straight from the index's bytes.
    static func unescape(_ bytes: UnsafeBufferPointer<UInt8>.SubSequence) -> String {
        guard bytes.contains(0x25) else { return LineFields.string(bytes) }
        return String(decoding: unescaped(UnsafeBufferPointer(rebasing: bytes)), as: UTF8.self)
    }
}
