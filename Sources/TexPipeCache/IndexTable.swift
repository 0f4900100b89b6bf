internal import Foundation
internal import TexPipePlan

/// Space-separated fields of newline-separated lines, over bytes.
struct LineFields {
    typealias Bytes = UnsafeBufferPointer<UInt8>.SubSequence
    var rest: Bytes

    init(_ buffer: UnsafeBufferPointer<UInt8>) { rest = buffer[...] }
    init(line: Bytes) { rest = line }

    /// The next non-empty line, as its own field reader.
    mutating func nextLine() -> LineFields? { nextLineBytes().map(LineFields.init(line:)) }

    mutating func nextLineBytes() -> Bytes? {
        while !rest.isEmpty {
            let end = rest.firstIndex(of: 0x0A) ?? rest.endIndex
            let line = rest[rest.startIndex..<end]
            rest = end < rest.endIndex ? rest[(end + 1)...] : rest[rest.endIndex...]
            if !line.isEmpty { return line }
        }
        return nil
    }

    var hasRest: Bool { !rest.isEmpty }

    /// The next field up to a space (the space consumed).
    mutating func field() -> Bytes? {
        guard !rest.isEmpty else { return nil }
        let end = rest.firstIndex(of: 0x20) ?? rest.endIndex
        let f = rest[rest.startIndex..<end]
        rest = end < rest.endIndex ? rest[(end + 1)...] : rest[rest.endIndex...]
        return f
    }

    mutating func int() -> Int64? { field().flatMap(LineFields.number) }

    /// A time (ns since 1970): a file dated before 1970 has a negative one.
    mutating func time() -> Int64? {
        guard let f = field() else { return nil }
        guard f.first == UInt8(ascii: "-") else { return LineFields.number(f) }
        return LineFields.number(f.dropFirst()).map { -$0 }
    }

    /// An unsigned field: an inode number may use all 64 bits (20 digits).
    mutating func uint() -> UInt64? { field().flatMap { LineFields.unsigned($0, digits: 20) } }

    /// A non-negative Int64 of at most 19 digits; nil for anything else.
    static func number(_ f: Bytes) -> Int64? {
        // 19 digits can pass Int64.max: such a field is damaged, not a trap.
        unsigned(f, digits: 19).flatMap { $0 <= UInt64(Int64.max) ? Int64($0) : nil }
    }

    /// Decimal digits only, at most `digits` of them, within UInt64; nil for anything else.
    static func unsigned(_ f: Bytes, digits: Int) -> UInt64? {
        guard !f.isEmpty, f.count <= digits else { return nil }
        var v: UInt64 = 0
        for b in f {
            guard b >= 0x30 && b <= 0x39 else { return nil }
            let (times10, o1) = v.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(b - 0x30))
            guard !o1, !o2 else { return nil }
            v = sum
        }
        return v
    }

    static func string(_ f: Bytes) -> String { String(decoding: f, as: UTF8.self) }

    /// A SHA-256 as the index writes it: 64 lowercase hex digits; nil for anything else.
    static func sha256(_ f: Bytes) -> String? {
        guard f.count == 64, f.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return nil
        }
        return string(f)
    }
}

/// A key of the index as bytes: into the table's storage, or into a query string's UTF-8 while
/// it is looked up. Hash and equality are the bytes'.
struct ByteKey: Hashable, @unchecked Sendable {
    let start: UnsafeRawPointer
    let count: Int

    static func == (a: ByteKey, b: ByteKey) -> Bool {
        a.count == b.count && memcmp(a.start, b.start, a.count) == 0
    }

    func hash(into hasher: inout Hasher) { hasher.combine(bytes: UnsafeRawBufferPointer(start: start, count: count)) }

    var string: String { String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self) }
}

/// The index and journal as read: one buffer, and where each key's latest record starts.
final class IndexTable: @unchecked Sendable {
    let storage: UnsafeMutableRawBufferPointer
    /// Unescaped copies of keys that held `%` escapes.
    private var extra: [UnsafeMutableRawBufferPointer] = []
    private(set) var files: [ByteKey: Int] = [:]
    private(set) var jobs: [ByteKey: Int] = [:]
    private(set) var damaged = 0

    /// Reads both files straight into one buffer (a missing one is empty), then scans them.
    init(index: String, journal: String) {
        let fds: [Int32] = [open(index, O_RDONLY | O_CLOEXEC), open(journal, O_RDONLY | O_CLOEXEC)]
        defer { for fd in fds where fd >= 0 { close(fd) } }
        let sizes = fds.map { fd -> Int in
            var st = stat()
            return fd >= 0 && fstat(fd, &st) == 0 ? Int(st.st_size) : 0
        }
        storage = .allocate(byteCount: sizes[0] + 1 + sizes[1], alignment: 8)
        var got = [0, 0]
        for k in 0..<2 where fds[k] >= 0 {
            let at = k == 0 ? 0 : sizes[0] + 1
            while got[k] < sizes[k] {
                let n = read(fds[k], storage.baseAddress! + at + got[k], sizes[k] - got[k])
                if n <= 0 { break }
                got[k] += n
            }
        }
        storage[sizes[0]] = 0x0A
        let bytes = UnsafeBufferPointer(
            start: storage.baseAddress!.assumingMemoryBound(to: UInt8.self), count: storage.count)
        // A file that shrank while read is scanned as far as it was read.
        scan(bytes, from: 0, to: got[0], isIndex: true)
        scan(bytes, from: sizes[0] + 1, to: sizes[0] + 1 + got[1], isIndex: false)
    }

    deinit {
        storage.deallocate()
        for e in extra { e.deallocate() }
    }

    /// A record's key, unescaped; nil (the record is damaged) unless it is UTF-8. Keys are paths
    /// and job names texpipe wrote from strings: bytes that are not UTF-8 come from damage, and
    /// two such keys can read as one string (each bad byte a U+FFFD) but be two records here.
    private func key(_ f: LineFields.Bytes) -> ByteKey? {
        guard f.allSatisfy({ $0 < 0x80 }) || String(validating: f, as: UTF8.self) != nil else { return nil }
        guard f.contains(0x25) else {
            return ByteKey(start: UnsafeRawPointer(f.base.baseAddress! + f.startIndex), count: f.count)
        }
        let text = CacheIndex.unescaped(UnsafeBufferPointer(rebasing: f))
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, text.count), alignment: 1)
        copy.copyBytes(from: text)
        extra.append(copy)
        return ByteKey(start: UnsafeRawPointer(copy.baseAddress!), count: text.count)
    }

    /// Finds every record's key and checks its fields, without making a value of it.
    private func scan(_ all: UnsafeBufferPointer<UInt8>, from: Int, to: Int, isIndex: Bool) {
        var lines = LineFields(line: all[from..<to])
        if isIndex {
            guard to > from else { return }
            let header = Array("texpipe-index 1".utf8)
            guard let first = lines.nextLineBytes(), first.count == header.count,
                zip(first, header).allSatisfy({ $0 == $1 })
            else {
                damaged += 1
                return
            }
        }
        var open: (key: ByteKey, expected: Int, seen: Int)?
        func finish() {
            if let o = open, o.seen != o.expected {
                jobs[o.key] = nil
                damaged += 1
            }
            open = nil
        }
        while var line = lines.nextLine() {
            let start = line.rest.startIndex
            guard let kind = line.field() else { continue }
            // A line starting with a space has an empty first field: damaged, like any other.
            guard let k0 = kind.first else {
                finish()
                damaged += 1
                continue
            }
            if kind.count == 1 && k0 == UInt8(ascii: "f") {
                finish()
                guard line.int() != nil, line.time() != nil, line.time() != nil, line.uint() != nil, line.time() != nil,
                    line.field() != nil, line.field() != nil, line.hasRest, let k = key(line.rest)
                else {
                    damaged += 1
                    continue
                }
                files[k] = start
            } else if kind.count == 1 && k0 == UInt8(ascii: "j") {
                finish()
                guard let k = line.field(), k.count == 64, line.field() != nil, line.field() != nil,
                    line.field() != nil, let count = line.int(), let bk = key(k)
                else {
                    damaged += 1
                    continue
                }
                jobs[bk] = start
                open = (bk, Int(count), 0)
            } else if kind.count == 1 && (k0 == UInt8(ascii: "o") || k0 == UInt8(ascii: "p")) {
                guard open != nil, line.field() != nil, line.int() != nil,
                    k0 == UInt8(ascii: "o") || line.field() != nil,
                    line.hasRest
                else {
                    damaged += 1
                    continue
                }
                open!.seen += 1
            } else if kind.count == 2 && k0 == UInt8(ascii: "-") && kind.last == UInt8(ascii: "f") && line.hasRest {
                finish()
                if let k = key(line.rest) { files[k] = nil } else { damaged += 1 }
            } else if kind.count == 2 && k0 == UInt8(ascii: "-") && kind.last == UInt8(ascii: "j") && line.hasRest {
                finish()
                if let k = key(line.rest) { jobs[k] = nil } else { damaged += 1 }
            } else {
                finish()
                damaged += 1
            }
        }
        finish()
    }

    private var bytes: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: storage.baseAddress!.assumingMemoryBound(to: UInt8.self), count: storage.count)
    }

    /// The fields of the line starting at `offset`.
    private func line(at offset: Int) -> LineFields {
        let all = bytes
        var reader = LineFields(line: all[offset...])
        return reader.nextLine() ?? LineFields(line: all[offset..<offset])
    }

    /// Looks `key` up by its UTF-8 bytes.
    static func offset(_ key: String, in table: [ByteKey: Int]) -> Int? {
        var k = key
        return k.withUTF8 { u in
            table[ByteKey(start: UnsafeRawPointer(u.baseAddress ?? UnsafePointer(bitPattern: 1)!), count: u.count)]
        }
    }

    var fileKeys: [String] { files.keys.map(\.string) }
    var jobKeys: [String] { jobs.keys.map(\.string) }

    static func fileRecord(_ table: IndexTable, _ key: String) -> CacheIndex.FileRecord? {
        guard let at = offset(key, in: table.files) else { return nil }
        var line = table.line(at: at)
        _ = line.field()
        guard let size = line.int(), let m = line.time(), let ct = line.time(), let ino = line.uint(),
            let checked = line.time(), let sha = line.field(), let dims = line.field()
        else { return nil }
        var shape: ImageShape?
        let parts = dims.split(separator: UInt8(ascii: "x")).map { LineFields.number($0) }
        if parts.count == 3, let w = parts[0], let h = parts[1], let d = parts[2] {
            shape = ImageShape(width: Int(w), height: Int(h), depth: Int(d))
        }
        return CacheIndex.FileRecord(
            stamp: FileStamp(size: size, mtime: m, ctime: ct, inode: ino), checked: checked,
            sha256: LineFields.sha256(sha), shape: shape)
    }

    static func jobEntry(_ table: IndexTable, _ key: String) -> Cache.Entry? {
        guard let at = offset(key, in: table.jobs) else { return nil }
        let all = table.bytes
        var lines = LineFields(line: all[at...])
        guard var j = lines.nextLine() else { return nil }
        _ = j.field()
        // Every hash a SHA-256 in hex, or the entry is damaged: nothing else could match a job.
        guard j.field() != nil, let version = j.field().flatMap(LineFields.sha256),
            let parameters = j.field().flatMap(LineFields.sha256), let inputs = j.field().flatMap(LineFields.sha256),
            let count = j.int()
        else { return nil }
        var entry = Cache.Entry(
            job: CacheIndex.unescape(j.rest), version: version, parameters: parameters, inputs: inputs, outputs: [])
        for _ in 0..<count {
            guard var o = lines.nextLine(), let kind = o.field() else { return nil }
            // `o`: an output; `p`: an output with its measure (format, GPU bytes, PSNR per level).
            guard let sha = o.field().flatMap(LineFields.sha256), let bytes = o.int() else { return nil }
            var measure: Substring?
            if kind.elementsEqual("p".utf8) {
                guard let m = o.field() else { return nil }
                measure = Substring(LineFields.string(m))
            }
            var output = Cache.Entry.Output(path: CacheIndex.unescape(o.rest), sha256: sha, bytes: Int(bytes))
            if let measure, !output.readMeasure(measure) { return nil }
            entry.outputs.append(output)
        }
        return entry
    }
}

/// A map over an `IndexTable`'s records with this run's changes on top: reads parse the record
/// from the table's bytes unless a change overrides it; `nil` assigned removes.
struct LazyMap<Value>: @unchecked Sendable {
    var table: IndexTable?
    let parse: @Sendable (IndexTable, String) -> Value?
    let tableKeys: @Sendable (IndexTable) -> [String]
    /// Changes; `.some(nil)` is a removal.
    private(set) var changes: [String: Value?] = [:]

    init(
        parse: @escaping @Sendable (IndexTable, String) -> Value?, keys: @escaping @Sendable (IndexTable) -> [String]
    ) {
        self.parse = parse
        tableKeys = keys
    }

    subscript(key: String) -> Value? {
        get {
            if let changed = changes[key] { return changed }
            return table.flatMap { parse($0, key) }
        }
        set { changes[key] = .some(newValue) }
    }

    @discardableResult
    mutating func removeValue(forKey key: String) -> Value? {
        let old = self[key]
        changes[key] = .some(nil)
        return old
    }

    mutating func reserveChanges(_ n: Int) { changes.reserveCapacity(changes.count + n) }

    /// Every key with a value, once each.
    var keys: [String] {
        let recorded = table.map(tableKeys) ?? []
        var all = changes.compactMap { $0.value == nil ? nil : $0.key }
        all.reserveCapacity(all.count + recorded.count)
        for k in recorded where changes[k] == nil { all.append(k) }
        return all
    }
}
