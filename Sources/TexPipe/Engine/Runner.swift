internal import Foundation
import Synchronization

/// What happened to one job.
public struct JobResult: Sendable {
    public enum Status: String, Sendable { case ok, failed }
    public var index: Int
    public var status: Status
    /// One line: `Samples/cards/7h.png: not a PNG file (bad signature)`.
    public var error: String?
    public var written: [PlannedOutput] = []
    /// Seconds per stage, in order; decode and encode included.
    public var timings: [(name: String, seconds: Double)] = []
    /// What the stages reported (`bleed: 12 pixels not reached within radius 4`).
    public var notes: [String] = []
    public var seconds: Double = 0
}

public struct RunOptions: Sendable {
    public var jobs: Int
    public var maxPixels: Int
    public static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }
    public init(jobs: Int? = nil, maxPixels: Int = Decoder.defaultMaxPixels) {
        self.jobs = max(1, jobs ?? RunOptions.cores)
        self.maxPixels = maxPixels
    }
}

/// Runs a plan's jobs on `jobs` workers. Results are delivered in plan order, never in
/// completion order, so console output and reports are identical at any `--jobs` (STYLE 11).
public enum Runner {
    /// `finished` is called once per job, in plan order, serialised.
    /// `progress` is called after every completion with (done, total), in any order.
    public static func run(
        _ plan: Plan, _ options: RunOptions,
        progress: @Sendable (Int, Int) -> Void = { _, _ in },
        finished: @Sendable (Job, JobResult) -> Void = { _, _ in }
    ) -> [JobResult] {
        let jobs = plan.jobs
        struct State {
            var next = 0
            var done = 0
            var reported = 0
            var results: [JobResult?]
        }
        let state = Mutex(State(results: Array(repeating: nil, count: jobs.count)))
        let workers = min(options.jobs, max(1, jobs.count))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let i: Int? = state.withLock { s in
                    guard s.next < jobs.count else { return nil }
                    defer { s.next += 1 }
                    return s.next
                }
                guard let i else { return }
                let result = execute(jobs[i], options)
                state.withLock { s in
                    s.results[i] = result
                    s.done += 1
                    progress(s.done, jobs.count)
                    while s.reported < jobs.count, let r = s.results[s.reported] {
                        finished(jobs[s.reported], r)
                        s.reported += 1
                    }
                }
            }
        }
        return state.withLock { $0.results.map { $0! } }
    }

    /// Decode → stages → encode → atomic write, for one job. Never throws: a failure is a result.
    public static func execute(_ job: Job, _ options: RunOptions) -> JobResult {
        let start = DispatchTime.now().uptimeNanoseconds
        var result = JobResult(index: job.index, status: .ok)
        func elapsed(since t: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9 }
        func fail(_ message: String) -> JobResult {
            result.status = .failed
            result.error = job.inputDisplay + (job.variant.map { " (variant \"\($0)\")" } ?? "") + ": " + message
            result.seconds = elapsed(since: start)
            return result
        }
        if let failure = job.failure { return fail(failure) }
        var t = DispatchTime.now().uptimeNanoseconds
        guard let data = FileManager.default.contents(atPath: job.input) else {
            return fail(
                "cannot read the file (" + AtomicWriter.reason(access(job.input, R_OK) == 0 ? EIO : errno) + ")")
        }
        var images: [Image]
        do {
            var image = try Decoder.decode(Array(data), path: job.input, maxPixels: options.maxPixels)
            image.alpha = job.inputAlpha
            images = [image]
        } catch {
            return fail("\(error)")
        }
        result.timings.append(("decode", elapsed(since: t)))
        var context = StageContext(maxPixels: options.maxPixels)
        for stage in job.stages {
            t = DispatchTime.now().uptimeNanoseconds
            let name = type(of: stage).name
            context.notes = []
            do {
                images = try images.flatMap { try stage.applied(to: $0, context: &context) }
            } catch {
                return fail("\(name): \(error)")
            }
            result.notes += context.notes.map { "\(name): \($0)" }
            result.timings.append((name, elapsed(since: t)))
        }
        guard images.count == job.outputs.count else {
            return fail("the stages made \(images.count) images where the plan expected \(job.outputs.count)")
        }
        t = DispatchTime.now().uptimeNanoseconds
        for (image, output) in zip(images, job.outputs) {
            do {
                let bytes = output.format == .png ? try Encoder.png(image, job.png) : try Encoder.jpeg(image, job.jpeg)
                try AtomicWriter.write(bytes, to: output.path)
                result.written.append(output)
            } catch {
                return fail("\(output.relative): \(error)")
            }
        }
        result.timings.append(("encode", elapsed(since: t)))
        result.seconds = elapsed(since: start)
        return result
    }
}
