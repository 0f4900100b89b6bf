internal import Dispatch
internal import Foundation
import Synchronization
internal import TexPipeCache
internal import TexPipeCodecs
internal import TexPipePlan

extension Runner {
    /// One run's workers and what they share (docs/ARCHITECTURE.md "TexPipeEngine"): the order jobs
    /// start in (largest input first), the jobs waiting for others (`Work.after`), the remote cache's
    /// lookups in flight, and the results, delivered in plan order whatever the completion order.
    final class Schedule: @unchecked Sendable {
        struct State {
            var next = 0
            var done = 0
            var reported = 0
            var results: [JobResult?]
            /// Jobs whose remote lookup missed, ready to run here.
            var ready: [(Int, Prepared)] = []
            /// Jobs whose outputs came from the remote cache, for a worker to write.
            var fetched: [(Int, Prepared, [(RemoteCache.Blob, [UInt8])])] = []
            /// Remote lookups in flight.
            var parked = 0
            /// Per job, how many of the jobs it waits for (`Work.after`) have not finished; jobs
            /// met in order while still waiting, and those whose wait is over.
            var waiting: [Int]
            var blocked: Set<Int> = []
            var unblocked: [Int] = []
        }

        /// What a worker does next.
        enum Step {
            case prepare(Int)
            case run(Int, Prepared)
            case materialize(Int, Prepared, [(RemoteCache.Blob, [UInt8])])
        }

        let plan: Plan
        let jobs: [Job]
        let options: RunOptions
        let loader: ResourceLoader
        let progress: @Sendable (Int, Int) -> Void
        let finished: @Sendable (Job, JobResult) -> Void
        /// Plan index → position in `jobs`, and per job the jobs that wait for it.
        let position: [Int: Int]
        let waitedOnBy: [[Int]]
        let state: Mutex<State>
        let wake = NSCondition()
        let workers: Int
        /// Cores without a job (fewer jobs than --jobs, or a worker whose queue ran dry) are lent
        /// to the jobs still running, for the row bands of a large image.
        let lender: CoreLender
        /// Biggest inputs first (pixels stand in for work): the long jobs start early and the run
        /// does not end on one large image while the other cores wait.
        let order: [Int]
        /// Lookups in flight at most: a parked job holds the input bytes it read.
        let window = 4 * RemoteCache.lanes
        let costs: Mutex<RemoteCosts>

        init(
            _ plan: Plan, _ options: RunOptions, loader: ResourceLoader,
            progress: @escaping @Sendable (Int, Int) -> Void, finished: @escaping @Sendable (Job, JobResult) -> Void
        ) {
            let jobs = plan.jobs
            (self.plan, self.jobs, self.options, self.loader) = (plan, jobs, options, loader)
            (self.progress, self.finished) = (progress, finished)
            // A model's rewrite waits for its textures (`Work.after`, plan indices).
            position = Dictionary(jobs.indices.map { (jobs[$0].index, $0) }, uniquingKeysWith: { a, _ in a })
            var dependents = [[Int]](repeating: [], count: jobs.count)
            var waiting = [Int](repeating: 0, count: jobs.count)
            for i in jobs.indices {
                for d in jobs[i].work.after {
                    guard let k = position[d] else { continue }
                    dependents[k].append(i)
                    waiting[i] += 1
                }
            }
            waitedOnBy = dependents
            state = Mutex(State(results: Array(repeating: nil, count: jobs.count), waiting: waiting))
            workers = min(options.jobs, max(1, jobs.count))
            lender = CoreLender(idle: options.jobs - workers)
            order = Runner.largestFirst(jobs)
            costs = Mutex(RemoteCosts(workers: workers, lanes: RemoteCache.lanes))
        }

        var results: [JobResult] { state.withLock { $0.results.map { $0! } } }

        /// One worker: steps until none is left.
        func work() {
            while let step = nextStep() {
                switch step {
                case .run(let i, let p):
                    runHere(i, p)
                case .materialize(let i, let p, let blobs):
                    // Written by the run's workers, not the cache's lanes: sixteen threads creating
                    // files and recording them side by side on two cores queued on the index's
                    // lock (a third of a run served by the cache).
                    let started = DispatchTime.now().uptimeNanoseconds
                    if let hit = AtomicWriter.job({ materialize(jobs[i], in: plan, options, p, blobs: blobs) }) {
                        let ns = DispatchTime.now().uptimeNanoseconds - started
                        costs.withLock { $0.wrote(nanoseconds: ns) }
                        deliver(i, hit)
                    } else {
                        runHere(i, p)
                    }
                case .prepare(let i):
                    prepareStep(i)
                }
            }
            lender.workerFinished()
        }

        /// Next: a job whose remote lookup missed, else a new job, else wait for a lookup in flight
        /// or a job's prerequisites; nil when none is left.
        func nextStep() -> Step? {
            wake.lock()
            defer { wake.unlock() }
            while true {
                let step = state.withLock { s -> Step? in
                    if let (i, p, blobs) = s.fetched.popLast() { return .materialize(i, p, blobs) }
                    if !s.ready.isEmpty {
                        let (i, p) = s.ready.removeFirst()
                        return .run(i, p)
                    }
                    if !s.unblocked.isEmpty { return .prepare(s.unblocked.removeFirst()) }
                    while s.next < jobs.count && s.parked < window {
                        let i = order[s.next]
                        s.next += 1
                        if s.waiting[i] > 0 {
                            s.blocked.insert(i)
                            continue
                        }
                        return .prepare(i)
                    }
                    return nil
                }
                let more = state.withLock { $0.parked > 0 || !$0.fetched.isEmpty || !$0.blocked.isEmpty }
                if step != nil || !more { return step }
                wake.wait()
            }
        }

        /// A job's result: its gates judged, the jobs waiting for it told, and every result ready
        /// in plan order handed to `finished`.
        func deliver(_ i: Int, _ result: JobResult) {
            var result = result
            Gates.apply(jobs[i], to: &result)
            let freed = state.withLock { s -> Bool in
                var freed = false
                for j in waitedOnBy[i] {
                    s.waiting[j] -= 1
                    if s.waiting[j] == 0 && s.blocked.remove(j) != nil {
                        s.unblocked.append(j)
                        freed = true
                    }
                }
                s.results[i] = result
                s.done += 1
                progress(s.done, jobs.count)
                while s.reported < jobs.count, let r = s.results[s.reported] {
                    finished(jobs[s.reported], r)
                    s.reported += 1
                }
                return freed
            }
            if freed {
                wake.lock()
                wake.broadcast()
                wake.unlock()
            }
        }

        /// Runs a job here; `upload`: gives its outputs to the remote cache (read-write mode).
        func runHere(_ i: Int, _ p: Prepared, upload: Bool = true) {
            let started = DispatchTime.now().uptimeNanoseconds
            let (result, bytes) = AtomicWriter.job {
                runLocally(jobs[i], in: plan, options, p, rows: lender, loader: loader)
            }
            if result.status == .ok {
                let ns = DispatchTime.now().uptimeNanoseconds - started
                costs.withLock { $0.ranHere(nanoseconds: ns, pixels: jobs[i].input.pixels) }
            }
            if let remote = options.remote, upload, result.status == .ok, remote.settings.mode == .readWrite,
                let inputs = p.inputs
            {
                let blobs = zip(result.written, zip(result.recorded, bytes)).map { out, rb in
                    (
                        RemoteCache.Blob(
                            path: out.relative, size: rb.0.bytes, sha256: rb.0.sha256, measure: rb.0.measureToken), rb.1
                    )
                }
                let key = remoteKey(jobs[i], inputs)
                remote.submit { remote.store(key: key, outputs: blobs) }
            }
            deliver(i, result)
        }

        /// A job met in order: failed with a prerequisite that failed, finished by the local cache,
        /// or run here, or asked of the remote cache.
        func prepareStep(_ i: Int) {
            // A job whose prerequisite failed fails with it, naming it.
            let failedFirst = jobs[i].work.after.compactMap { d -> String? in
                guard let k = position[d] else { return nil }
                return state.withLock { $0.results[k]?.status == .failed } ? jobs[k].input.display : nil
            }
            if let first = failedFirst.first {
                var r = JobResult(index: jobs[i].index, status: .ok)
                r = failed(
                    jobs[i], r, EngineMessage.prerequisiteFailed(first), stage: "gltf",
                    start: DispatchTime.now().uptimeNanoseconds)
                deliver(i, r)
                return
            }
            let p = prepare(jobs[i], in: plan, options, loader: loader)
            if p.done {
                deliver(i, p.result)
                return
            }
            guard let remote = options.remote, !remote.isOff, !options.force, let inputs = p.inputs,
                inputs.inputError == nil
            else {
                runHere(i, p)
                return
            }
            // Cheaper here than a hit: run here, and do not upload it. A reader's model weighs the
            // same costs and runs it here too, so the entry would only cost this run a request, and
            // the server a file, that no run would read.
            if options.remoteCostModel, costs.withLock({ $0.runsHere(pixels: jobs[i].input.pixels) }) {
                runHere(i, p, upload: false)
                return
            }
            ask(remote, i, p, inputs)
        }

        /// Asks the remote cache on its own threads; the worker goes on with other jobs.
        func ask(_ remote: RemoteCache, _ i: Int, _ p: Prepared, _ inputs: JobInputs) {
            state.withLock { $0.parked += 1 }
            let key = remoteKey(jobs[i], inputs)
            let paths = jobs[i].outputs.map(\.relative)
            let work = jobs[i].work
            let asked = DispatchTime.now().uptimeNanoseconds
            remote.submit {
                let hit = remote.fetch(key: key) { listed in
                    guard !work.outputsPlanned else { return Set(listed) == Set(paths) && listed.count == paths.count }
                    return Set(paths).isSubset(of: listed) && Set(listed).count == listed.count
                        && listed.allSatisfy(work.owns)
                }
                self.costs.withLock { $0.asked(nanoseconds: DispatchTime.now().uptimeNanoseconds - asked) }
                self.wake.lock()
                self.state.withLock { s in
                    s.parked -= 1
                    if let hit { s.fetched.append((i, p, hit)) } else { s.ready.append((i, p)) }
                }
                self.wake.broadcast()
                self.wake.unlock()
            }
        }
    }
}
