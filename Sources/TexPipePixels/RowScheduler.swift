/// Where the row bands of one image run. Kernels expose their row ranges and never decide on
/// threads themselves; the engine hands stages and writers a scheduler that may lend them the
/// cores of idle workers (STYLE 4: the algorithm apart from its schedule). Every banded kernel
/// gives the same bytes whether it ran in one band or many.
public protocol RowScheduler: Sendable {
    /// Runs `body` over `rows` — all of them, in one or more disjoint bands, possibly at once.
    /// `body` must only write its own rows' output. `pixelsPerRow` lets the scheduler keep small
    /// images in one band.
    func forEachBand(rows: Int, pixelsPerRow: Int, _ body: (Range<Int>) -> Void)
}

/// One band on the calling thread: what tests and a lone job without lent cores get.
public struct SerialRows: RowScheduler {
    public init() {}
    public func forEachBand(rows: Int, pixelsPerRow: Int, _ body: (Range<Int>) -> Void) {
        body(0..<rows)
    }
}
