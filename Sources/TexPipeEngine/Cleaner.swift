internal import Foundation
internal import TexPipeCodecs
internal import TexPipeManifest
internal import TexPipePixels
public import TexPipePlan
internal import TexPipeStages

/// `texpipe clean`: outputs the cache recorded that no job of the manifest writes any more —
/// jobs that are gone, and outputs a job no longer makes. Only files texpipe recorded are ever
/// removed, and only while they still hold the bytes it wrote (a modified one is kept and listed).
public struct Cleaner {
    public var plan: Plan
    public init(plan: Plan) { self.plan = plan }

    public struct Stale: Sendable {
        public var path: String
        public var modified: Bool
    }

    /// Stale outputs, the cache entries of jobs that no longer exist, and warnings.
    public func scan() -> (outputs: [Stale], entries: [String], warnings: [String]) {
        let cache = Cache(manifestDirectory: plan.manifest.directory)
        var warnings: [String] = []
        let current = Dictionary(plan.jobs.map { (cache.entryFile(for: $0), $0) }, uniquingKeysWith: { a, _ in a })
        var stale: [Stale] = []
        var entries: [String] = []
        for (file, entry) in cache.allEntries(warnings: &warnings) {
            let planned = Set((current[file]?.outputs ?? []).map(\.path))
            for out in entry.outputs {
                let path = plan.manifest.directory + "/" + out.path
                guard !planned.contains(path), FileManager.default.fileExists(atPath: path) else { continue }
                let bytes = FileManager.default.contents(atPath: path).map { Cache.sha256(Array($0)) }
                stale.append(Stale(path: path, modified: bytes != out.sha256))
            }
            if current[file] == nil { entries.append(file) }
        }
        return (stale, entries, warnings)
    }

    /// Temporary files that killed runs left anywhere under the output root (their writer gone).
    public func sweepTemporaries() -> [String] {
        let root = plan.manifest.outputRoot
        var dirs = [root]
        var removed: [String] = []
        while let dir = dirs.popLast() {
            removed += AtomicWriter.sweep(dir)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] {
                var st = stat()
                let path = dir + "/" + name
                if lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR { dirs.append(path) }
            }
        }
        return removed.sorted()
    }

    /// Removes the unmodified stale outputs and the entries of vanished jobs.
    public func remove(_ outputs: [Stale], entries: [String]) {
        for item in outputs where !item.modified { try? FileManager.default.removeItem(atPath: item.path) }
        for file in entries { try? FileManager.default.removeItem(atPath: file) }
    }
}
