internal import CTexPipeShims
internal import Foundation

/// The process's allocator policy, set once by the CLI before any job runs.
///
/// Every job allocates image-sized buffers (the decoded image, a stage's output, the filtered
/// rows) and frees them when it ends. glibc hands blocks over 128 KiB out as fresh mmaps at first
/// and trims freed heap memory back, so each job page-faults its buffers in again, and in a
/// threaded process every munmap also flushes the other cores' TLBs. Serving blocks up to 32 MiB
/// (glibc's maximum) from each thread's arena and not trimming below 1 GiB lets a worker's next job
/// reuse what its last one freed — per-worker scratch reuse, done by the allocator for every
/// buffer at once. On the 150-texture corpus, color-key with 2 jobs takes 9 k page faults instead
/// of 86 k, with peak RSS within a few MiB. Blocks over 32 MiB (images of 8 MP and more) are
/// still mmapped and given back at once, so large images do not raise the resident floor.
///
/// Under a data or address-space limit (`ulimit -d`/`-v`) the other way round: what a thread's
/// arena keeps counts against the limit, and a buffer freed in one thread's arena does not serve
/// the next allocation of another's. A color-key job on a 2048² image (2.5 × the image by its
/// bound) then needed up to 12 MiB beyond it, by which threads happened to run its steps, and half
/// the runs or more were killed by a failed allocation under a limit it fits. So there every block from
/// 128 KiB is mapped on its own and given back when freed: the job holds what it uses.
package enum Allocator {
    /// The policy for this process, set before any job: keep large buffers for reuse, unless a
    /// memory limit is set. True when the C library took the settings (glibc); elsewhere a no-op.
    @discardableResult
    public static func configure() -> Bool { limit() == nil ? keepLargeBuffersForReuse() : giveBackLargeBuffers() }

    @discardableResult
    public static func keepLargeBuffersForReuse() -> Bool { tp_keep_large_buffers() != 0 }

    @discardableResult
    public static func giveBackLargeBuffers() -> Bool { tp_give_back_large_buffers() != 0 }
    /// Freed blocks' pages back to the system now: under the keep-for-reuse policy a job that
    /// frees its working set block by block while it fills a large output (a volume's slices into
    /// its file) would otherwise hold both at once.
    public static func giveBackFreed() { tp_give_back_freed() }

    /// What the process itself needs free under a memory limit before any job: its worker threads'
    /// stacks and the runtime's. Below it, libdispatch cannot start a thread and retries forever,
    /// so the CLI refuses to start instead (measured: a run needs 24–32 MiB of data limit in all).
    package static let minimumFree = 24 << 20

    /// Below this, a job's memory is not checked before it runs (a sprite never fails for memory).
    static let checkedFrom = 8 << 20

    /// What a job needs at least, before it decodes: its image and one buffer of that size (a
    /// stage's output, the writer's filtered rows or the mip chain) — 2 × the decoded bytes at
    /// 8 bits (docs/performance.md "Memory").
    static func need(pixels: Int) -> Int { 2 * 4 * pixels }

    /// Whether `bytes` of address space can be had now: mapped untouched and given back at once.
    /// It fails where the image buffers would — under `ulimit -d`/`-v` (RLIMIT_DATA, RLIMIT_AS)
    /// or strict overcommit — so such a job gets a clean error instead of a trap in the runtime.
    static func canReserve(_ bytes: Int) -> Bool { bytes <= 0 || tp_can_reserve(bytes) != 0 }

    /// When the process runs under a data or address-space limit: the limit and what is free
    /// under it now (the limit less VmData or VmSize from /proc/self/status), in bytes.
    package static func limit() -> (limit: Int, free: Int)? {
        var limits: [(limit: Int, key: String)] = []
        for (resource, key) in [(RLIMIT_DATA, "VmData"), (RLIMIT_AS, "VmSize")] {
            var r = rlimit()
            guard getrlimit(__rlimit_resource_t(resource.rawValue), &r) == 0, r.rlim_cur != rlim_t.max else { continue }
            limits.append((Int(clamping: r.rlim_cur), key))
        }
        guard !limits.isEmpty else { return nil }
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func used(_ key: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }) else { return nil }
            return line.split(separator: " ").compactMap { Int($0) }.first.map { $0 * 1024 }
        }
        return limits.compactMap { l in used(l.key).map { (l.limit, l.limit - $0) } }.min { $0.1 < $1.1 }
    }
}
