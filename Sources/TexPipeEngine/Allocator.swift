internal import CTexPipeShims

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
package enum Allocator {
    /// True when the C library took the settings (glibc); elsewhere a no-op.
    @discardableResult
    public static func keepLargeBuffersForReuse() -> Bool { tp_keep_large_buffers() != 0 }
}
