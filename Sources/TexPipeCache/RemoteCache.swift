internal import Foundation
import Synchronization
internal import TexPipePixels

/// How to reach a remote cache (docs/caching-and-ci.md): the URL without its credentials, the headers to send,
/// the mode and the per-request timeout. Credentials given in the URL become a Basic
/// `Authorization` header; the URL is only ever shown redacted.
public struct RemoteSettings: Sendable {
    public enum Mode: String, Sendable, CaseIterable { case readWrite = "read-write", read }

    /// The server's base, no credentials, no trailing slash.
    public var base: String
    /// What messages and reports show: `http://***@host:port/path` when credentials were given.
    public var redacted: String
    public var headers: [(name: String, value: String)]
    public var mode: Mode
    public var timeout: Double

    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    /// `url`: `http(s)://[user:password@]host[:port][/path]`; `headers`: `NAME=VALUE` each.
    public init(url: String, mode: Mode = .readWrite, headers: [String] = [], timeout: Double = 10) throws {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = parts.host, !host.isEmpty
        else {
            // Never echo the text: it may hold a password.
            throw Invalid(description: RemoteMessage.badURL)
        }
        var clean = parts
        clean.user = nil
        clean.password = nil
        var path = clean.path
        while path.hasSuffix("/") { path.removeLast() }
        clean.path = path
        base = clean.string ?? url
        var shown = clean
        let hasCredentials = parts.user != nil || parts.password != nil
        shown.path = path
        redacted = hasCredentials ? base.replacingOccurrences(of: "://", with: "://***@") : base
        _ = shown
        self.headers = []
        if hasCredentials {
            let user = parts.user ?? ""
            let password = parts.password ?? ""
            let token = Data((user + ":" + password).utf8).base64EncodedString()
            self.headers.append(("Authorization", "Basic " + token))
        }
        for h in headers {
            guard let eq = h.firstIndex(of: "="), eq != h.startIndex else {
                throw Invalid(description: RemoteMessage.badHeader)
            }
            self.headers.append((String(h[..<eq]), String(h[h.index(after: eq)...])))
        }
        self.mode = mode
        guard timeout > 0 else { throw Invalid(description: RemoteMessage.badTimeout) }
        self.timeout = timeout
    }
}

/// The Bazel HTTP remote-cache protocol over libcurl's multi interface (`HTTPClient`: connections
/// kept alive, requests overlapping). Every call is synchronous and runs on the cache's own
/// `lanes` threads — plain threads, not Dispatch's (Dispatch adds threads about once a second
/// when its workers block) — so lookups and uploads overlap with the jobs running on the run's
/// cores.
///
/// The cache can only save time: every failure is counted, warned about once per kind, and the
/// caller runs the job locally. After `breakerLimit` transport failures in a row (refused,
/// timed out) the cache is switched off for the rest of the run, so a dead server costs at most
/// a few timeouts, not one per job.
public final class RemoteCache: Sendable {
    public let settings: RemoteSettings
    let client: HTTPClient?
    let lanes: Lanes
    package static let lanes = 16
    static let breakerLimit = 3

    public struct Stats: Sendable, Equatable {
        public var hits = 0
        public var misses = 0
        public var uploads = 0
        public var bytesUp = 0
        public var bytesDown = 0
        public var errors = 0
    }

    struct State {
        var stats = Stats()
        var warned: Set<String> = []
        var warnings: [String] = []
        var failuresInARow = 0
        var off = false
    }

    let state = Mutex(State())
    /// Called once per kind of failure with the warning's text (no `warning: ` prefix).
    let warn: @Sendable (String) -> Void

    deinit { lanes.stop() }

    public init(_ settings: RemoteSettings, warn: @escaping @Sendable (String) -> Void = { _ in }) {
        self.settings = settings
        self.warn = warn
        client = HTTPClient(timeout: settings.timeout, connections: RemoteCache.lanes)
        lanes = Lanes(count: RemoteCache.lanes)
    }

    public var stats: Stats { state.withLock { $0.stats } }
    /// Every warning given, in order.
    public var warnings: [String] { state.withLock { $0.warnings } }
    public var isOff: Bool { state.withLock { $0.off } }

    /// Runs `work` on the cache's threads.
    package func submit(_ work: @escaping @Sendable () -> Void) { lanes.submit(work) }

    /// Waits for every lookup and upload in flight (the end of a run).
    public func finish() { lanes.finish() }

    // MARK: protocol

    /// One output as the entry lists it: its path under the output root, size and SHA-256.
    public struct Blob: Sendable, Equatable {
        public var path: String
        public var size: Int
        public var sha256: String
        /// The output's measure token (format, GPU bytes, PSNR per level), as the local index keeps it.
        public var measure: String? = nil

        package init(path: String, size: Int, sha256: String, measure: String? = nil) {
            (self.path, self.size, self.sha256, self.measure) = (path, size, sha256, measure)
        }
    }

    enum Answer {
        case status(Int, [UInt8])
        case failed(kind: String, what: String)
    }

    /// A job's outputs from the cache: the entry `/ac/KEY`, then every blob it lists, each checked
    /// against its size and SHA-256. nil: a miss, or anything wrong (warned, counted).
    func fetch(key: String, expecting paths: [String]) -> [(Blob, [UInt8])]? {
        fetch(key: key) { Set($0) == Set(paths) && $0.count == paths.count }
    }

    /// `accept`: whether the outputs an entry lists are the job's (an atlas knows its pages only
    /// by their names' pattern).
    package func fetch(key: String, accept: ([String]) -> Bool) -> [(Blob, [UInt8])]? {
        guard !isOff else { return nil }
        switch send("GET", "ac/" + key) {
        case .failed(let kind, let what):
            failure(kind, what)
            return nil
        case .status(404, _):
            succeeded()
            state.withLock { $0.stats.misses += 1 }
            return nil
        case .status(200, let body):
            succeeded()
            state.withLock { $0.stats.bytesDown += body.count }
            guard let listed = RemoteCache.parseEntry(body), accept(listed.map(\.blob.path)) else {
                failure("malformed", RemoteMessage.malformedEntry(key))
                return nil
            }
            var out: [(Blob, [UInt8])] = []
            for (blob, inline) in listed {
                // A small output comes inside the entry; checked like a blob, it needs no request.
                if let inline {
                    guard inline.count == blob.size, Cache.sha256(inline) == blob.sha256 else {
                        failure("mismatch", RemoteMessage.blobMismatch(blob.sha256, key))
                        return nil
                    }
                    out.append((blob, inline))
                    continue
                }
                switch send("GET", "cas/" + blob.sha256) {
                case .status(200, let bytes):
                    state.withLock { $0.stats.bytesDown += bytes.count }
                    guard bytes.count == blob.size, Cache.sha256(bytes) == blob.sha256 else {
                        failure("mismatch", RemoteMessage.blobMismatch(blob.sha256, key))
                        return nil
                    }
                    out.append((blob, bytes))
                case .status(404, _):
                    failure("missing", RemoteMessage.blobMissing(blob.sha256, key))
                    return nil
                case .status(let code, _):
                    failure("http \(code)", RemoteMessage.http(code, "GET cas/…", RemoteMessage.runLocally))
                    return nil
                case .failed(let kind, let what):
                    failure(kind, what)
                    return nil
                }
            }
            state.withLock { $0.stats.hits += 1 }
            return out
        case .status(let code, _):
            succeeded()
            failure("http \(code)", RemoteMessage.http(code, "GET ac/…", RemoteMessage.runLocally))
            return nil
        }
    }

    /// Uploads each blob the server lacks, then the entry: the entry last, so no reader sees an
    /// entry whose blobs are not there. An output of at most `inlineLimit` bytes travels only
    /// inside the entry, which only texpipe reads (its key covers texpipe's version); a larger one
    /// is asked for first (HEAD) and sent only when missing. Read mode never writes.
    package func store(key: String, outputs: [(Blob, [UInt8])]) {
        guard settings.mode == .readWrite, !isOff else { return }
        for (blob, bytes) in outputs where bytes.count > RemoteCache.inlineLimit {
            switch send("HEAD", "cas/" + blob.sha256) {
            case .status(200, _): continue
            case .status(404, _): break
            case .status(let code, _):
                failure("http \(code)", RemoteMessage.http(code, "HEAD cas/…", RemoteMessage.notShared))
                return
            case .failed(let kind, let what):
                failure(kind, what)
                return
            }
            guard put("cas/" + blob.sha256, bytes) else { return }
        }
        let entry = outputs.map { ($0.0, $0.1.count <= RemoteCache.inlineLimit ? $0.1 : nil) }
        guard put("ac/" + key, RemoteCache.entryText(entry)) else { return }
        state.withLock { $0.stats.uploads += 1 }
    }

    private func put(_ path: String, _ bytes: [UInt8]) -> Bool {
        switch send("PUT", path, body: bytes) {
        case .status(let code, _) where (200..<300).contains(code):
            succeeded()
            state.withLock { $0.stats.bytesUp += bytes.count }
            return true
        case .status(let code, _):
            failure(
                "http \(code)",
                RemoteMessage.http(code, "PUT \(path.hasPrefix("ac/") ? "ac" : "cas")/…", RemoteMessage.notShared))
            return false
        case .failed(let kind, let what):
            failure(kind, what)
            return false
        }
    }

    /// One request, waited for. Transport errors are classified without their text (which could
    /// name the URL with its credentials).
    func send(_ method: String, _ path: String, body: [UInt8]? = nil) -> Answer {
        guard let client else { return .failed(kind: "transport", what: RemoteMessage.noClient) }
        var headers = settings.headers.map { "\($0.0): \($0.1)" }
        if body != nil { headers.append("Content-Type: application/octet-stream") }
        switch client.send(method, settings.base + "/" + path, headers: headers, body: body) {
        case .status(let code, let bytes): return .status(code, bytes)
        case .failed(.timeout): return .failed(kind: "timeout", what: RemoteMessage.noAnswer(settings.timeout))
        case .failed(.unreachable): return .failed(kind: "unreachable", what: RemoteMessage.cannotConnect)
        case .failed(.transport(let code)): return .failed(kind: "transport", what: RemoteMessage.requestFailed(code))
        }
    }

    private func succeeded() { state.withLock { $0.failuresInARow = 0 } }

    /// Counts an error; warns once per kind; switches the cache off after repeated transport
    /// failures.
    private func failure(_ kind: String, _ what: String) {
        state.withLock { s in
            var messages: [String] = []
            s.stats.errors += 1
            if s.warned.insert(kind).inserted { messages.append(RemoteMessage.warning(settings.redacted, what)) }
            if kind == "timeout" || kind == "unreachable" || kind == "transport" {
                s.failuresInARow += 1
                if s.failuresInARow >= RemoteCache.breakerLimit && !s.off {
                    s.off = true
                    messages.append(
                        RemoteMessage.warning(settings.redacted, RemoteMessage.switchedOff(RemoteCache.breakerLimit)))
                }
            }
            s.warnings += messages
            // Printed under the lock, so the lines come out in the order they were decided.
            for m in messages { warn(m) }
        }
    }

    // MARK: entry format

    /// Outputs up to this size travel inside the entry too (base64 under `contents`), so a hit on
    /// a small job is one request, not two — as Bazel's own action results inline small outputs.
    static let inlineLimit = 16 * 1024

    /// `{"outputs":[{"contents":…,"path":…,"sha256":…,"size":…},…]}`, keys sorted, outputs in path
    /// order; `contents` (the bytes, base64) only for outputs given with their bytes.
    package static func entryText(_ outputs: [(Blob, [UInt8]?)]) -> [UInt8] {
        let items = outputs.sorted { $0.0.path < $1.0.path }.map { b, contents in
            (contents.map { "{\"contents\":\"\(Data($0).base64EncodedString())\"," } ?? "{")
                + (b.measure.map { "\"measure\":\(ValueText.quoted($0))," } ?? "")
                + "\"path\":\(ValueText.quoted(b.path)),\"sha256\":\"\(b.sha256)\",\"size\":\(b.size)}"
        }
        return Array(("{\"outputs\":[" + items.joined(separator: ",") + "]}").utf8)
    }

    /// The outputs an entry lists, each with its inline bytes when it carries them; nil for
    /// anything malformed (a path leaving the output root, a SHA-256 that is not 64 hex digits, a
    /// negative size, contents that are not base64).
    ///
    /// An entry as `entryText` writes it is read by `canonicalFields`, a scan of exactly that
    /// layout; anything else (other spacing, key order, numbers) by Foundation's JSON parser,
    /// which took a sixth of serving a 32×32 sprite from the cache. Both give the same fields to
    /// the same checks.
    package static func parseEntry(_ bytes: [UInt8]) -> [(blob: Blob, contents: [UInt8]?)]? {
        guard let outputs = canonicalFields(bytes) ?? jsonFields(bytes) else { return nil }
        var listed: [(blob: Blob, contents: [UInt8]?)] = []
        for o in outputs {
            let (path, sha, size) = (o.path, o.sha256, o.size)
            guard sha.utf8.count == 64,
                sha.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
                size >= 0, !path.hasPrefix("/"), !path.split(separator: "/").contains("..")
            else { return nil }
            var contents: [UInt8]?
            if let text = o.contents {
                guard let data = Data(base64Encoded: text) else { return nil }
                contents = Array(data)
            }
            var blob = Blob(path: path, size: size, sha256: sha)
            if let m = o.measure {
                var probe = Cache.Entry.Output(path: path, sha256: sha, bytes: size)
                guard probe.readMeasure(Substring(m)) else { return nil }
                blob.measure = m
            }
            listed.append((blob, contents))
        }
        return listed
    }

    /// One output of an entry, its fields as the JSON holds them (checked by `parseEntry`).
    package struct EntryFields {
        package var contents: String?
        package var measure: String?
        package var path: String
        package var sha256: String
        package var size: Int
    }

    /// Any JSON: Foundation's parser; nil when it is not an entry's shape.
    package static func jsonFields(_ bytes: [UInt8]) -> [EntryFields]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let outputs = object["outputs"] as? [[String: Any]]
        else { return nil }
        var fields: [EntryFields] = []
        for o in outputs {
            guard let path = o["path"] as? String, let sha = o["sha256"] as? String,
                let number = o["size"] as? NSNumber, let size = Int(exactly: number.doubleValue)
            else { return nil }
            var f = EntryFields(path: path, sha256: sha, size: size)
            if let c = o["contents"] {
                guard let c = c as? String else { return nil }
                f.contents = c
            }
            if let m = o["measure"] {
                guard let m = m as? String else { return nil }
                f.measure = m
            }
            fields.append(f)
        }
        return fields
    }

    /// `{"outputs":[{"contents":S,"measure":S,"path":S,"sha256":S,"size":N},…]}` exactly as
    /// `entryText` writes it (`contents` and `measure` optional; no spaces; strings valid UTF-8
    /// with the escapes `ValueText.quoted` writes; N digits only); nil for anything else.
    package static func canonicalFields(_ bytes: [UInt8]) -> [EntryFields]? {
        bytes.withUnsafeBufferPointer { b -> [EntryFields]? in
            var at = 0
            func take(_ literal: StaticString) -> Bool {
                let n = literal.utf8CodeUnitCount
                guard at + n <= b.count, memcmp(b.baseAddress! + at, literal.utf8Start, n) == 0 else { return false }
                at += n
                return true
            }
            func string() -> String? {
                var out: [UInt8] = []
                while at < b.count {
                    let c = b[at]
                    at += 1
                    if c == UInt8(ascii: "\"") { return String(validating: out, as: UTF8.self) }
                    if c < 0x20 { return nil }
                    guard c == UInt8(ascii: "\\") else {
                        out.append(c)
                        continue
                    }
                    guard at < b.count else { return nil }
                    let e = b[at]
                    at += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        // Only the control characters `quoted` escapes this way.
                        guard at + 4 <= b.count, b[at] == 0x30, b[at + 1] == 0x30 else { return nil }
                        let digits = [b[at + 2], b[at + 3]].map { d -> Int? in
                            switch d {
                            case 0x30...0x39: Int(d - 0x30)
                            case 0x61...0x66: Int(d - 0x61 + 10)
                            default: nil
                            }
                        }
                        guard let hi = digits[0], let lo = digits[1], hi < 2 else { return nil }
                        out.append(UInt8(hi << 4 | lo))
                        at += 4
                    default: return nil
                    }
                }
                return nil
            }
            func number() -> Int? {
                var v = 0
                let start = at
                while at < b.count, b[at] >= 0x30, b[at] <= 0x39, at - start < 18 {
                    v = v * 10 + Int(b[at] - 0x30)
                    at += 1
                }
                // JSON has no leading zeros. Above 2⁵³ Foundation reads a number as the nearest
                // Double: such a size is left to it, so both readers give the same one.
                return at > start && (b[start] != 0x30 || at == start + 1) && v <= 1 << 53 ? v : nil
            }
            guard take("{\"outputs\":[") else { return nil }
            var fields: [EntryFields] = []
            if take("]}") { return at == b.count ? fields : nil }
            repeat {
                guard take("{") else { return nil }
                var contents: String?
                var measure: String?
                if take("\"contents\":\"") {
                    guard let c = string(), take(",") else { return nil }
                    contents = c
                }
                if take("\"measure\":\"") {
                    guard let m = string(), take(",") else { return nil }
                    measure = m
                }
                guard take("\"path\":\""), let path = string(), take(",\"sha256\":\""), let sha = string(),
                    take(",\"size\":"), let size = number(), take("}")
                else { return nil }
                fields.append(EntryFields(contents: contents, measure: measure, path: path, sha256: sha, size: size))
            } while take(",")
            return take("]}") && at == b.count ? fields : nil
        }
    }
}

/// A fixed set of threads running submitted work in order of submission.
final class Lanes: @unchecked Sendable {
    private let condition = NSCondition()
    private var work: [@Sendable () -> Void] = []
    private var head = 0
    private var busy = 0
    private var stopping = false

    /// The threads hold the lanes until `stop()`.
    init(count: Int) {
        for k in 0..<count {
            let thread = Thread { self.loop() }
            thread.name = "texpipe remote \(k)"
            thread.start()
        }
    }

    func submit(_ item: @escaping @Sendable () -> Void) {
        condition.lock()
        work.append(item)
        condition.broadcast()
        condition.unlock()
    }

    /// Returns once nothing is queued or running.
    func finish() {
        condition.lock()
        while head < work.count || busy > 0 { condition.wait() }
        condition.unlock()
    }

    /// Lets the threads end once the queue is empty.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while head >= work.count && !stopping { condition.wait() }
            if head >= work.count {
                condition.unlock()
                return
            }
            let item = work[head]
            head += 1
            if head == work.count {
                work.removeAll(keepingCapacity: true)
                head = 0
            }
            busy += 1
            condition.unlock()
            item()
            condition.lock()
            busy -= 1
            condition.broadcast()
            condition.unlock()
        }
    }
}
