internal import Crypto
internal import Foundation
internal import TexPipeCodecs
internal import TexPipeManifest
internal import TexPipePixels
public import TexPipePlan
internal import TexPipeStages

/// The incremental cache in `.texpipe/` beside the manifest (SPEC §5): one small JSON entry per
/// job, named by the SHA-256 of the job's identity. An entry records the hashes of the texpipe
/// version, the resolved parameters and every file the job read, and each output's SHA-256. It is
/// written (atomically) only after the job's outputs are renamed into place, so an interrupted run
/// never leaves an entry that claims a missing file; an unreadable entry is discarded with a warning.
public final class Cache: Sendable {
    public let directory: String

    public init(manifestDirectory: String) {
        directory = manifestDirectory + "/.texpipe/jobs"
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
            }
        }
    }

    public static func sha256(_ bytes: [UInt8]) -> String { hex(SHA256.hash(data: bytes)) }

    static func sha256(_ data: Data) -> String { hex(SHA256.hash(data: data)) }

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

    func path(for job: Job) -> String { directory + "/" + Cache.sha256(job.id) + ".json" }

    /// The entry of a job; nil if there is none. A corrupt entry is removed and reported.
    public func entry(for job: Job, warnings: inout [String]) -> Entry? {
        let file = path(for: job)
        guard let data = FileManager.default.contents(atPath: file) else { return nil }
        guard let entry = try? JSONDecoder().decode(Entry.self, from: data) else {
            warnings.append(EngineMessage.corruptEntryDiscarded(file))
            try? FileManager.default.removeItem(atPath: file)
            return nil
        }
        return entry
    }

    /// Hash of every file the job reads, in order (a missing file hashes as missing).
    /// `digest`: each file's SHA-256 (nil: missing).
    public static func inputsHash(_ files: [(path: String, digest: String?)]) -> String {
        sha256(files.map { "\($0.path)\u{0}" + ($0.digest ?? "missing") }.joined(separator: "\n"))
    }

    public static var versionHash: String { sha256("texpipe " + TexPipeVersion.string) }

    /// Whether the job must run: compares its identity hashes, then the recorded outputs on disk.
    /// Also hands back the entry it read, so a hit needs no second read.
    public func decide(_ job: Job, inputs: String, base: String, warnings: inout [String]) -> (
        decision: Decision, entry: Entry?
    ) {
        guard let e = entry(for: job, warnings: &warnings) else { return (.new, nil) }
        if e.version != Cache.versionHash { return (.versionChanged, e) }
        if e.parameters != Cache.sha256(job.parameters) { return (.parametersChanged, e) }
        if e.inputs != inputs { return (.inputChanged, e) }
        for out in job.outputs {
            let rel = String(out.path.dropFirst(base.count + 1))
            guard let rec = e.outputs.first(where: { $0.path == rel }) else { return (.parametersChanged, e) }
            guard let data = FileManager.default.contents(atPath: out.path) else { return (.outputMissing(rel), e) }
            if data.count != rec.bytes || Cache.sha256(data) != rec.sha256 { return (.outputModified(rel), e) }
        }
        return (.hit, e)
    }

    /// Records a completed job. Called only after every output is in place.
    public func store(_ job: Job, inputs: String, outputs: [Entry.Output]) throws {
        let entry = Entry(
            job: job.id.replacingOccurrences(of: "\u{0}", with: " | "), version: Cache.versionHash,
            parameters: Cache.sha256(job.parameters), inputs: inputs, outputs: outputs)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try AtomicWriter.write(Array(try encoder.encode(entry)), to: path(for: job))
    }

    /// Every entry on disk by file name, for `clean`.
    public func allEntries(warnings: inout [String]) -> [(file: String, entry: Entry)] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        var out: [(String, Entry)] = []
        for name in names where name.hasSuffix(".json") {
            let file = directory + "/" + name
            guard let data = FileManager.default.contents(atPath: file),
                let e = try? JSONDecoder().decode(Entry.self, from: data)
            else {
                warnings.append(EngineMessage.corruptEntryIgnored(file))
                continue
            }
            out.append((file, e))
        }
        return out
    }

    /// The entry file name a job would use.
    public func entryFile(for job: Job) -> String { path(for: job) }
}
