internal import COpenSSL
internal import Foundation
internal import TexPipeCodecs
public import TexPipeFormats
public import TexPipeMeasures
internal import TexPipePixels
public import TexPipePlan

/// The incremental cache in `.texpipe/` beside the manifest (docs/guarantees.md). An entry per job, keyed by
/// the SHA-256 of the job's identity, records the hashes of the texpipe version, the resolved
/// parameters and every file the job read, and each output's SHA-256 and size. Entries and the
/// stat data of every file hashed live in one index (`CacheIndex`): a rerun stats each input and
/// output and hashes only files whose stat changed (`verify` hashes everything). An entry is
/// recorded only after the job's outputs are renamed into place, so an interrupted run never leaves
/// an entry that claims a missing file.
public final class Cache: Sendable {
    public let directory: String
    package let index: CacheIndex
    /// The input shapes the index remembers, for `PlanOptions(shapes:)`: a plan then reads no
    /// header of a file whose stat is unchanged.
    public var shapes: any ShapeMemory { index }
    /// Hash every input and output, trusting no stat data (`--verify`).
    public let verify: Bool

    public init(manifestDirectory: String, verify: Bool = false) {
        directory = manifestDirectory + "/.texpipe"
        index = CacheIndex(directory: directory, base: manifestDirectory)
        self.verify = verify
    }

    public struct Entry: Codable, Sendable, Equatable {
        public var job: String
        public var version: String
        public var parameters: String
        public var inputs: String
        public var outputs: [Output]

        public struct Output: Codable, Sendable, Equatable {
            /// Relative to the manifest's folder.
            public var path: String
            public var sha256: String
            public var bytes: Int
            /// What the output holds (`png`, `jpeg`, a texture format such as `bc7`) and what it
            /// occupies in GPU memory; nil in entries from before they were recorded.
            public var format: String? = nil
            public var gpuBytes: Int? = nil
            /// The PSNR of each level, when a `minPSNR` gate or a report asked for it (lossy and
            /// block-compressed outputs only).
            public var psnr: [LevelQuality]? = nil
            /// What a quality target chose (the format is `format`); nil: no target.
            public var choice: TargetChoice? = nil

            public init(
                path: String, sha256: String, bytes: Int, format: String? = nil, gpuBytes: Int? = nil,
                psnr: [LevelQuality]? = nil, choice: TargetChoice? = nil
            ) {
                self.path = path
                self.sha256 = sha256
                self.bytes = bytes
                self.format = format
                self.gpuBytes = gpuBytes
                self.psnr = psnr
                self.choice = choice
            }

            /// format;gpuBytes;rgb:alpha,… — one field without spaces, for the index and the remote
            /// entry. A level measured beyond PSNR adds :ssim:ssimAlpha:flip:normalMean:normalP99
            /// ("-" for what was not measured); a target's choice adds `;qlevel=96` (`;-`: the
            /// format only).
            package var measureToken: String? {
                guard let format, let gpuBytes else { return nil }
                func field(_ v: Double?, _ digits: String = "%.4f") -> String {
                    v.map { String(format: digits, $0) } ?? "-"
                }
                let levels = (psnr ?? []).map { q in
                    var t = field(q.rgb) + ":" + field(q.alpha)
                    if q.ssim != nil || q.flip != nil || q.normalMean != nil {
                        t +=
                            ":" + field(q.ssim, "%.6f") + ":" + field(q.ssimAlpha, "%.6f") + ":"
                            + field(q.flip, "%.6f") + ":" + field(q.normalMean) + ":" + field(q.normalP99)
                    }
                    return t
                }
                return "\(format);\(gpuBytes);" + (psnr == nil ? "-" : levels.joined(separator: ","))
                    + (choice.map { ";" + $0.token } ?? "")
            }

            /// The fields of a token; false when it is malformed (the entry is then damaged).
            /// Read as bytes (`format;gpuBytes;levels`): a no-op run reads one per output, and
            /// splitting by Characters was a tenth of its time.
            package mutating func readMeasure(_ token: Substring) -> Bool {
                let bytes = token.utf8
                guard let first = bytes.firstIndex(of: UInt8(ascii: ";")),
                    let second = bytes[bytes.index(after: first)...].firstIndex(of: UInt8(ascii: ";"))
                else { return false }
                let name = bytes[..<first]
                var quality = token[bytes.index(after: second)...]
                var choice: TargetChoice?
                if let third = quality.utf8.firstIndex(of: UInt8(ascii: ";")) {
                    guard let c = TargetChoice(token: quality[quality.utf8.index(after: third)...]) else {
                        return false
                    }
                    choice = c
                    quality = quality[..<third]
                }
                func isNameByte(_ b: UInt8) -> Bool {
                    (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z"))
                        || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
                        || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "-")
                }
                guard !name.isEmpty, name.count <= 32, name.allSatisfy(isNameByte),
                    !quality.utf8.contains(UInt8(ascii: ";")),
                    let gpu = Int(token[bytes.index(after: first)..<second]), gpu >= 0
                else { return false }
                var levels: [LevelQuality]?
                if quality != "-" {
                    levels = []
                    for level in quality.split(separator: ",", omittingEmptySubsequences: false) {
                        let qa = level.split(separator: ":", omittingEmptySubsequences: false)
                        guard qa.count == 2 || qa.count == 7, let rgb = Double(qa[0]), rgb.isFinite else {
                            return false
                        }
                        // Each optional field: "-", or a finite number.
                        var optional: [Double?] = []
                        for f in qa.dropFirst() {
                            if f == "-" {
                                optional.append(nil)
                                continue
                            }
                            guard let v = Double(f), v.isFinite else { return false }
                            optional.append(v)
                        }
                        var q = LevelQuality(rgb: rgb, alpha: optional[0])
                        if optional.count == 6 {
                            (q.ssim, q.ssimAlpha, q.flip) = (optional[1], optional[2], optional[3])
                            (q.normalMean, q.normalP99) = (optional[4], optional[5])
                        }
                        levels!.append(q)
                    }
                }
                (format, gpuBytes, psnr, self.choice) = (String(token[..<first]), gpu, levels, choice)
                return true
            }
        }
    }

    /// Why a job runs, or that it need not.
    public enum Decision: Sendable, Equatable, CustomStringConvertible {
        case hit
        case new
        case forced
        case versionChanged
        case parametersChanged
        case inputChanged
        case outputMissing(String)
        case outputModified(String)
        /// Up to date, but recorded without what the job's gates measure (PSNR, GPU bytes).
        case unmeasured
        /// A job it waits for runs (a model's texture): its own inputs change with it.
        case prerequisiteRuns(String)

        public var isHit: Bool { self == .hit }

        public var description: String {
            switch self {
            case .hit: "up to date"
            case .new: "new"
            case .forced: "forced"
            case .versionChanged: "texpipe version changed"
            case .parametersChanged: "parameters changed"
            case .inputChanged: "input changed"
            case .outputMissing(let p): "output missing: \(p)"
            case .outputModified(let p): "output modified: \(p)"
            case .unmeasured: "not measured for its check"
            case .prerequisiteRuns(let what): "\(what) runs first"
            }
        }
    }

    /// SHA-256 by OpenSSL's libcrypto (loaded anyway, by libcurl): its digest fetched once from
    /// the default provider, then one `EVP_Digest` a call.
    public static func sha256(_ bytes: [UInt8]) -> String {
        var digest = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let ok = withUnsafeMutableBytes(of: &digest) { out in
            bytes.withUnsafeBufferPointer { input in
                var length: UInt32 = 0
                let done = EVP_Digest(
                    input.baseAddress, input.count, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &length,
                    sha256Method, nil)
                return done == 1 && length == 32
            }
        }
        precondition(ok, "OpenSSL's libcrypto did not compute a SHA-256 (is its default provider configured?)")
        return withUnsafeBytes(of: digest) { hex($0) }
    }

    /// OpenSSL 3's SHA-256, fetched once (an implicit fetch per call looks it up each time);
    /// `EVP_MD` objects are safe to share between threads.
    nonisolated(unsafe) private static let sha256Method: OpaquePointer? =
        EVP_MD_fetch(nil, "SHA256", nil) ?? EVP_sha256()

    /// Lowercase hex of a digest, two table lookups a byte (`String(format:)` per byte was 46 % of
    /// a no-op rerun over 20,000 sprites).
    static func hex(_ digest: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func sha256(_ text: String) -> String { sha256(Array(text.utf8)) }

    /// The key of a job's entry: the SHA-256 of its identity (pipeline, input, variant).
    public func key(for job: Job) -> String { Cache.sha256(job.id) }

    /// The entry of a job; nil if there is none.
    public func entry(for job: Job) -> Entry? { index.entry(key(for: job)) }

    /// Problems reading the index (damaged lines), once per run.
    public func warnings() -> [String] { index.damage.map { [CacheMessage.damagedIndex(index.indexFile, $0)] } ?? [] }

    /// The SHA-256 of a file: from the index while its stat is unchanged, else read and hashed
    /// (and recorded). nil: missing or unreadable. `bytes` receives the contents when it was read.
    public func digest(of path: String, bytes: inout [UInt8]?) -> String? {
        var read: [UInt8]?
        let sha = digest(of: path) { stamp in
            guard case .success(let data) = FileReader.read(path) else { return nil }
            read = data
            // Recorded only when the bytes read are the stamped ones (same size; mtime checked below).
            return (Cache.sha256(data), record: data.count == stamp.size)
        }
        if read != nil { bytes = read }
        return sha
    }

    /// The SHA-256 of a file: the index's while its stat matches a trusted record, else what
    /// `hash` computes (nil: unreadable), recorded against the stat taken before it when `hash`
    /// says so. nil when the file is missing.
    package func digest(of path: String, hash: (FileStamp) -> (sha256: String, record: Bool)?) -> String? {
        guard let stamp = FileStamp.of(path) else { return nil }
        if !verify, let known = index.digest(of: path, stamp: stamp) { return known }
        let time = FileStamp.now()
        guard let (sha, record) = hash(stamp) else { return nil }
        if record { index.record(path, stamp: stamp, sha256: sha, at: time) }
        return sha
    }

    /// Hash of every file the job reads, in order (a missing file hashes as missing).
    /// `digest`: each file's SHA-256 (nil: missing).
    /// Paths below `base` (the manifest's folder) enter relative to it, so the same project in
    /// another folder or on another machine has the same key (the remote cache's).
    public static func inputsHash(_ files: [(path: String, digest: String?)], base: String) -> String {
        sha256(
            files.map { file in
                "\(PathText.relative(file.path, to: base))\u{0}" + (file.digest ?? "missing")
            }.joined(separator: "\n"))
    }

    public static var versionHash: String { sha256("texpipe " + TexPipeVersion.string) }

    /// Whether the job must run: compares its identity hashes, then the recorded outputs on disk
    /// (by stat, hashing only an output whose stat changed). Also hands back the entry it read.
    public func decide(_ job: Job, inputs: String, base: String) -> (decision: Decision, entry: Entry?) {
        guard let e = entry(for: job) else { return (.new, nil) }
        if e.version != Cache.versionHash { return (.versionChanged, e) }
        if e.parameters != Cache.sha256(job.parameters) { return (.parametersChanged, e) }
        if e.inputs != inputs { return (.inputChanged, e) }
        // An atlas's pages are known once it has packed: the entry lists them.
        let paths = job.work.outputsPlanned ? job.outputs.map(\.path) : e.outputs.map { base + "/" + $0.path }
        for path in paths {
            let rel = PathText.relative(path, to: base)
            guard let rec = e.outputs.first(where: { $0.path == rel }) else { return (.parametersChanged, e) }
            var bytes: [UInt8]?
            guard let sha = digest(of: path, bytes: &bytes) else { return (.outputMissing(rel), e) }
            if sha != rec.sha256 { return (.outputModified(rel), e) }
        }
        return (.hit, e)
    }

    /// The outputs an entry records, as the plan would name them (an atlas's pages and data).
    public static func recordedOutputs(_ entry: Entry, root: String, base: String) -> [PlannedOutput] {
        entry.outputs.map { PlannedOutput.named(PathText.relative(base + "/" + $0.path, to: root), root: root) }
    }

    /// Records a completed job. Called only after every output is in place.
    public func store(_ job: Job, inputs: String, outputs: [Entry.Output], base: String) {
        let entry = Entry(
            job: Cache.displayName(job.id), version: Cache.versionHash,
            parameters: Cache.sha256(job.parameters), inputs: inputs, outputs: outputs)
        var files: [(String, FileStamp, String)] = []
        for o in outputs {
            let path = base + "/" + o.path
            if let stamp = FileStamp.of(path), stamp.size == Int64(o.bytes) { files.append((path, stamp, o.sha256)) }
        }
        index.store(key(for: job), entry, outputs: files)
    }

    /// A job's identity as its entry names it: the parts (pipeline, input, variant) joined by
    /// ` | ` instead of NUL. Byte by byte: Foundation's `replacingOccurrences` cost a third of
    /// recording each job at sprite scale.
    static func displayName(_ id: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(id.utf8.count + 8)
        for b in id.utf8 {
            if b == 0 { out += [0x20, 0x7C, 0x20] } else { out.append(b) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Writes the index (end of a run, `clean`); a failure is a warning.
    public func save() -> String? { index.save() }
}
