internal import Foundation
internal import TexPipeCodecs
public import TexPipePlan

/// Folders watched with Linux inotify (through Glibc: no polling loop). Folders, not files, so an
/// editor's save-by-rename and new files are seen too. `texpipe watch`, docs/command-line.md.
public final class FolderWatcher {
    private let fd: Int32
    private var watches: [String: Int32] = [:]
    private var folders: [Int32: String] = [:]

    public init() throws {
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw WatchError(EngineMessage.cannotWatch(FileReader.reason(errno))) }
    }

    deinit { close(fd) }

    /// How many folders are watched now.
    public var count: Int { watches.count }

    /// Watches exactly `wanted` (absolute folders): adds the new ones, drops the rest. A folder
    /// that does not exist (yet) is skipped; its parent's events bring it in on the next plan.
    public func watch(_ wanted: Set<String>) {
        for (dir, wd) in watches where !wanted.contains(dir) {
            inotify_rm_watch(fd, wd)
            watches[dir] = nil
            folders[wd] = nil
        }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_DELETE_SELF)
        for dir in wanted where watches[dir] == nil {
            let wd = inotify_add_watch(fd, dir, mask | UInt32(IN_ONLYDIR))
            guard wd >= 0 else { continue }
            watches[dir] = wd
            folders[wd] = dir
        }
    }

    /// Blocks until something changes, then until `settle` seconds pass with no further event
    /// (an editor's or exporter's burst of writes is one change); returns the changed paths.
    public func changes(settle: Double = 0.1) -> Set<String> {
        var changed = Set<String>()
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&pfd, 1, -1) <= 0 {}
        repeat {
            drain(into: &changed)
        } while poll(&pfd, 1, Int32(settle * 1000)) > 0
        return changed
    }

    private func drain(into changed: inout Set<String>) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= n {
                let (wd, length) = buffer.withUnsafeBytes { raw -> (Int32, Int) in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, Int(event.len))
                }
                let nameBytes = buffer[(offset + header)..<(offset + header + length)].prefix { $0 != 0 }
                if let dir = folders[wd] {
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    changed.insert(name.isEmpty ? dir : dir + "/" + name)
                }
                offset += header + length
            }
        }
    }
}

public struct WatchError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// What a change means for a plan: which jobs to rerun, which inputs went away. Pure, so tests
/// can check it without a file system.
public enum WatchPlan {
    /// The folders a plan depends on: those its globs walk, and those holding every file its
    /// jobs read and the manifest.
    public static func folders(_ plan: Plan) -> Set<String> {
        let base = plan.manifest.directory
        var out: Set<String> = [base]
        for p in plan.manifest.pipelines {
            for pattern in p.inputs { out.formUnion(Glob(pattern).folders(in: base)) }
        }
        for job in plan.jobs {
            for file in job.reads.files { out.insert((file as NSString).deletingLastPathComponent) }
        }
        return out
    }

    /// Paths that are texpipe's own writing (outputs, the cache, temporary files): never a reason
    /// to rerun.
    public static func isOwnWrite(_ path: String, _ plan: Plan?) -> Bool {
        let name = (path as NSString).lastPathComponent
        if name.hasPrefix(".") && name.contains(".tmp-") { return true }
        guard let plan else { return false }
        let root = plan.manifest.outputRoot
        let cache = plan.manifest.directory + "/.texpipe"
        return path == root || path.hasPrefix(root + "/") || path == cache || path.hasPrefix(cache + "/")
    }

    /// The jobs of `new` to run after `changed` paths: those that read a changed file, and those
    /// new to the plan or whose parameters, outputs or files read changed (a new input, an edited
    /// manifest, a sprite added to or gone from an atlas).
    /// A glTF texture whose model changed (its image may be embedded) runs too, and a model's
    /// rewrite runs with any of its textures (docs/gltf.md).
    public static func affected(old: Plan?, new: Plan, changed: Set<String>) -> [Job] {
        let before = Dictionary((old?.jobs ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let picked = Set(
            new.jobs.filter { job in
                guard let previous = before[job.id] else { return true }
                return previous.parameters != job.parameters || previous.reads.files != job.reads.files
                    || job.reads.files.contains(where: changed.contains)
                    || job.work.changesWith.contains(where: changed.contains)
            }.map(\.index))
        return new.jobs.filter { picked.contains($0.index) || $0.work.after.contains(where: picked.contains) }
    }

    /// Inputs of `old` that are gone from disk after the change, with the outputs left in place.
    public static func deleted(old: Plan?, changed: Set<String>) -> [(input: String, outputs: [String])] {
        var seen = Set<String>()
        var out: [(String, [String])] = []
        // An atlas losing a sprite is not an input gone: it reruns without it (`affected`).
        for job in old?.jobs ?? []
        where changed.contains(job.input.path) && !FileManager.default.fileExists(atPath: job.input.path) {
            switch job.work {
            case .atlas: continue
            case .image, .array, .volume, .lut, .model, .modelTexture: break
            }
            guard seen.insert(job.input.path).inserted else { continue }
            let outputs = (old?.jobs ?? []).filter { $0.input.path == job.input.path }.flatMap(\.outputs).map(\.path)
            out.append((job.input.display, outputs.map(Planner.display)))
        }
        return out
    }
}
