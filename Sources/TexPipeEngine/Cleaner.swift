internal import Foundation
internal import TexPipeCache
internal import TexPipeCodecs
internal import TexPipePixels
public import TexPipePlan

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

    /// Stale outputs, the cache entries (keys) of jobs that no longer exist, and warnings.
    public func scan() -> (outputs: [Stale], entries: [String], warnings: [String]) {
        let cache = Cache(manifestDirectory: plan.manifest.directory)
        let current = Dictionary(plan.jobs.map { (cache.key(for: $0), $0) }, uniquingKeysWith: { a, _ in a })
        var stale: [Stale] = []
        var entries: [String] = []
        let all = cache.index.entries
        for key in all.keys.sorted() {
            let entry = all[key]!
            let planned = Set((current[key]?.outputs ?? []).map(\.path))
            let root = plan.manifest.outputRoot
            for out in entry.outputs {
                let path = plan.manifest.directory + "/" + out.path
                // An atlas's pages beyond the first are known by their names' pattern.
                if current[key]?.work.owns(PathText.relative(path, to: root)) == true { continue }
                guard !planned.contains(path), FileStamp.of(path) != nil else { continue }
                var bytes: [UInt8]?
                stale.append(Stale(path: path, modified: cache.digest(of: path, bytes: &bytes) != out.sha256))
            }
            if current[key] == nil { entries.append(key) }
        }
        return (stale.sorted { $0.path < $1.path }, entries, cache.warnings())
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

    /// Removes the unmodified stale outputs and the entries of vanished jobs; nil, or why the
    /// index could not be written.
    @discardableResult
    public func remove(_ outputs: [Stale], entries: [String]) -> String? {
        let cache = Cache(manifestDirectory: plan.manifest.directory)
        for item in outputs where !item.modified {
            try? FileManager.default.removeItem(atPath: item.path)
            cache.index.forget(item.path)
        }
        for key in entries { cache.index.drop(job: key) }
        return cache.save()
    }
}
