/// The remote cache's cost model (docs/caching-and-ci.md): from what this run has measured, is a
/// job cheaper to run here than to ask the cache for? Here, a job costs its pixels times the
/// measured time per pixel of the jobs run here, shared by the workers; a hit costs a lookup's
/// measured mean time (queue and round trips), shared by the cache's lanes, plus writing its
/// outputs, shared by the workers. Until `minimumSamples` lookups are measured, the cache is
/// asked; until as many jobs ran here, small jobs are sent here to be measured (`prefersHere`).
package struct RemoteCosts {
    let workers: Int
    let lanes: Int

    package init(workers: Int, lanes: Int) {
        self.workers = workers
        self.lanes = lanes
    }
    var hereNanoseconds = 0.0
    var herePixels = 0.0
    var hereJobs = 0
    var askedNanoseconds = 0.0
    var askedJobs = 0
    var writtenNanoseconds = 0.0
    var writtenJobs = 0
    /// Jobs run here to measure what running here costs, in a run whose jobs were all asked.
    var probes = 0
    static let minimumSamples = 8
    /// What a job's pixels are assumed to cost here before any job has run here (a cheap chain
    /// on a small image): a job cheaper than a hit at that rate may run here to be measured.
    static let probeNanosecondsPerPixel = 50.0

    package mutating func ranHere(nanoseconds: UInt64, pixels: Int) {
        hereNanoseconds += Double(nanoseconds)
        herePixels += Double(max(1, pixels))
        hereJobs += 1
    }

    package mutating func asked(nanoseconds: UInt64) {
        askedNanoseconds += Double(nanoseconds)
        askedJobs += 1
    }

    /// A hit's outputs written and recorded by a worker.
    package mutating func wrote(nanoseconds: UInt64) {
        writtenNanoseconds += Double(nanoseconds)
        writtenJobs += 1
    }

    /// What a hit costs a worker's time: the lookup's mean time shared by the lanes, plus writing
    /// and recording its outputs, which a worker does (a job run here writes its own).
    var hit: Double {
        askedNanoseconds / Double(askedJobs) / Double(lanes)
            + (writtenJobs > 0 ? writtenNanoseconds / Double(writtenJobs) / Double(workers) : 0)
    }

    /// Whether a job of `pixels` should run here rather than ask. Until 8 lookups are measured,
    /// ask. Until 8 jobs have run here, a job cheap at `probeNanosecondsPerPixel` runs here to be
    /// measured (at most 8 such probes); a larger one asks. Then: here when its pixels at the
    /// measured time per pixel, shared by the workers, cost less than a hit.
    package func prefersHere(pixels: Int) -> Bool {
        guard askedJobs >= Self.minimumSamples else { return false }
        guard hereJobs >= Self.minimumSamples else {
            return probes < Self.minimumSamples
                && Double(max(1, pixels)) * Self.probeNanosecondsPerPixel / Double(workers) < hit
        }
        return hereNanoseconds / herePixels * Double(max(1, pixels)) / Double(workers) < hit
    }

    /// `prefersHere`, counting the probes it sends here.
    package mutating func runsHere(pixels: Int) -> Bool {
        let here = prefersHere(pixels: pixels)
        if here && hereJobs < Self.minimumSamples { probes += 1 }
        return here
    }
}
