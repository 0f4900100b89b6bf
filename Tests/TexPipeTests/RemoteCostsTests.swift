import Testing

@testable import TexPipeEngine

/// The remote cache's cost model (docs/caching-and-ci.md), with the numbers worked by hand: a job
/// runs here when its pixels at the measured time per pixel, shared by the workers, cost less than
/// a lookup's measured mean time shared by the lanes; before 8 samples of each, the cache is asked.
@Suite("remote cost model")
struct RemoteCostsTests {
    @Test func asksUntilBothAreMeasured() {
        var c = RemoteCosts(workers: 2, lanes: 16)
        for _ in 0..<7 {
            c.ranHere(nanoseconds: 1, pixels: 1024)
            c.asked(nanoseconds: 1_000_000_000)
        }
        #expect(!c.prefersHere(pixels: 1))
        c.ranHere(nanoseconds: 1, pixels: 1024)
        #expect(!c.prefersHere(pixels: 1), "7 lookups measured")
        c.asked(nanoseconds: 1_000_000_000)
        #expect(c.prefersHere(pixels: 1))
    }

    @Test func comparesThroughputs() {
        var c = RemoteCosts(workers: 2, lanes: 16)
        // Here: 100 µs per 1,024-pixel job; with 2 workers, 50 µs of wall time per job.
        for _ in 0..<8 { c.ranHere(nanoseconds: 100_000, pixels: 1024) }
        // There: 1.6 ms per lookup; with 16 lanes, 100 µs per job.
        for _ in 0..<8 { c.asked(nanoseconds: 1_600_000) }
        #expect(c.prefersHere(pixels: 1024), "50 µs here against 100 µs there")
        // A 4,096-pixel job: 200 µs here against 100 µs there.
        #expect(!c.prefersHere(pixels: 4096))
        // 2,048 pixels: 100 µs both ways: ask (not strictly cheaper here).
        #expect(!c.prefersHere(pixels: 2048))
    }
}
