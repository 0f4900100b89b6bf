internal import Dispatch
import Synchronization
internal import TexPipePixels

/// Cores that the rows of one large image may use. The engine owns the lender and lends it the
/// workers that have no job left — when a run has fewer jobs than cores, or its last jobs are
/// still running — so kernels never decide on threads themselves (STYLE 4). Row bands are
/// deterministic: every banded kernel gives the same bytes whether it ran in one band or many.
package final class CoreLender: RowScheduler {
    /// Images smaller than this stay in one band: splitting costs more than it saves
    /// (1 MP by default; tests lower it to band small images).
    public let minimumPixels: Int

    private let idle: Mutex<Int>
    private let splits = Mutex(0)

    public init(idle: Int = 0, minimumPixels: Int = 1 << 20) {
        self.idle = Mutex(max(0, idle))
        self.minimumPixels = minimumPixels
    }

    /// How many times rows were split across lent cores (the tests check bands really happened).
    public var splitCount: Int { splits.withLock { $0 } }

    /// A worker has run out of jobs: one more core to lend.
    public func workerFinished() { idle.withLock { $0 += 1 } }

    /// Cores lent right now (0 when every worker is busy).
    public var idleCores: Int { idle.withLock { $0 } }

    func borrow(upTo n: Int) -> Int {
        idle.withLock { count in
            let lent = min(count, max(0, n))
            count -= lent
            return lent
        }
    }

    func giveBack(_ n: Int) { idle.withLock { $0 += n } }

    /// Runs `body` over `rows` in bands: one band on this thread unless the lender has idle
    /// cores and the image has at least the lender's `minimumPixels`, then four bands per borrowed
    /// core and this one, taken in turn. `body` must only touch its own rows' output.
    public func forEachBand(rows: Int, pixelsPerRow: Int, _ body: (Range<Int>) -> Void) {
        let lender = self
        guard rows > 1, rows * pixelsPerRow >= lender.minimumPixels else {
            body(0..<rows)
            return
        }
        let lent = lender.borrow(upTo: min(rows, 64) - 1)
        guard lent > 0 else {
            body(0..<rows)
            return
        }
        defer { lender.giveBack(lent) }
        lender.splits.withLock { $0 += 1 }
        // Four bands per core, taken in turn by one worker per core: a core whose bands are
        // cheap (flat or transparent rows) takes more of them, so the cores finish together.
        let workers = lent + 1
        let bands = min(rows, workers * 4)
        let next = Mutex(0)
        // The bands touch disjoint rows of buffers the caller keeps alive for this call: the one
        // place the compiler is told to trust that.
        nonisolated(unsafe) let body = body
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let k = next.withLock { n in
                    defer { n += 1 }
                    return n
                }
                guard k < bands else { return }
                body((rows * k / bands)..<(rows * (k + 1) / bands))
            }
        }
    }
}
