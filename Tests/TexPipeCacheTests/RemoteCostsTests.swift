import Testing
import TexPipeTestSupport

@testable import TexPipeCache
@testable import TexPipeFormats
@testable import TexPipeMeasures
@testable import TexPipePixels
@testable import TexPipePlan

/// The remote cache's cost model (docs/caching-and-ci.md), with the numbers worked by hand: a job
/// runs here when its pixels at the measured time per pixel, shared by the workers, cost less than
/// a hit — a lookup's measured mean time shared by the lanes, plus writing a hit's outputs shared
/// by the workers; before 8 lookups, the cache is asked; before 8 jobs ran here, up to 8 jobs
/// cheap at 50 ns a pixel run here to be measured.
@Suite("remote cost model")
struct RemoteCostsTests {
    @Test func asksUntilLookupsAreMeasured() {
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

    /// A run whose jobs were all asked: small jobs run here to be measured, 8 at most; a job
    /// that would cost more than a hit even at 50 ns a pixel never does.
    @Test func probesWithSmallJobsOnly() {
        var c = RemoteCosts(workers: 2, lanes: 16)
        // 1.6 ms per lookup over 16 lanes: a hit is 100 µs.
        for _ in 0..<8 { c.asked(nanoseconds: 1_600_000) }
        // 4,096 pixels at 50 ns over 2 workers: 102.4 µs, more than a hit.
        #expect(!c.prefersHere(pixels: 4096))
        // 1,024 pixels: 25.6 µs. Eight probes, then asked again until they are measured.
        for k in 0..<8 {
            let here = c.runsHere(pixels: 1024)
            #expect(here, "probe \(k)")
        }
        #expect(c.probes == 8)
        #expect(!c.prefersHere(pixels: 1024))
        // Measured (here 100 µs per 1,024 pixels: 50 µs a job over 2 workers): here from now on.
        for _ in 0..<8 { c.ranHere(nanoseconds: 100_000, pixels: 1024) }
        #expect(c.prefersHere(pixels: 1024))
    }

    /// Writing a hit's outputs is part of its cost: a job that loses to the lookup alone can win
    /// against the lookup and the writing.
    @Test func countsWritingAHitsOutputs() {
        var c = RemoteCosts(workers: 2, lanes: 16)
        for _ in 0..<8 {
            c.ranHere(nanoseconds: 100_000, pixels: 1024)
            c.asked(nanoseconds: 1_600_000)
        }
        // 3,072 pixels: 300 µs here over 2 workers, 150 µs; a hit 100 µs.
        #expect(!c.prefersHere(pixels: 3072))
        // Each hit's outputs took 200 µs to write: 100 µs more per hit over 2 workers.
        for _ in 0..<8 { c.wrote(nanoseconds: 200_000) }
        #expect(c.prefersHere(pixels: 3072), "150 µs here against 200 µs")
        // 4,096 pixels: 200 µs both ways: ask.
        #expect(!c.prefersHere(pixels: 4096))
    }
}
