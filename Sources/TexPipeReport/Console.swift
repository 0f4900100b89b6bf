internal import Foundation
import Synchronization
public import TexPipeCache
internal import TexPipeCodecs
public import TexPipeEngine
internal import TexPipeMeasures
internal import TexPipePixels
public import TexPipePlan

/// Console output of a run. On a terminal: a progress bar on stderr (done / total,
/// images/s, ETA). Otherwise (`--no-progress`, `CI=true`, no TTY): one line per finished
/// job, in plan order. Errors always go to stderr, one line each. docs/command-line.md.
public final class Console: Sendable {
    public enum Verbosity: Sendable { case quiet, normal, verbose }

    let verbosity: Verbosity
    let bar: Bool
    let total: Int
    let start = DispatchTime.now().uptimeNanoseconds
    let lastDraw = Mutex<UInt64>(0)

    public init(verbosity: Verbosity, progressBar: Bool, total: Int) {
        self.verbosity = verbosity
        self.bar = progressBar && verbosity != .quiet
        self.total = total
    }

    /// Whether a progress bar suits this process: stderr is a terminal and CI is not set.
    public static func wantsProgressBar() -> Bool {
        let ci = ProcessInfo.processInfo.environment["CI"]?.lowercased()
        return isatty(STDERR_FILENO) == 1 && ci != "true" && ci != "1"
    }

    var seconds: Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }

    public func progress(done: Int, total: Int) {
        guard bar else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let draw: Bool = lastDraw.withLock { last in
            guard done == total || now - last > 100_000_000 else { return false }
            last = now
            return true
        }
        guard draw else { return }
        let s = seconds
        let rate = s > 0 ? Double(done) / s : 0
        let eta = rate > 0 ? Double(total - done) / rate : 0
        let width = 30
        let filled = total > 0 ? width * done / total : width
        let line =
            "\r[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            + "] \(done)/\(total)  " + String(format: "%.1f images/s  ETA %.0fs ", rate, eta)
        Console.err(line + (done == total ? "\n" : ""), newline: false)
    }

    public func finished(_ job: Job, _ result: JobResult) {
        if AtomicWriter.isStopped { return }  // interrupted: the handler says so once
        for w in result.warnings {
            if bar { Console.err("\r\u{1B}[K", newline: false) }
            Console.err(ValueText.oneLine("warning: " + w))
        }
        if let error = result.error {
            if bar { Console.err("\r\u{1B}[K", newline: false) }
            Console.err(ValueText.oneLine("error: " + error))
            return
        }
        guard !bar, verbosity != .quiet else { return }
        let outs = result.written.map { Planner.display($0.path) }.joined(separator: ", ")
        var line = "[\(job.index + 1)/\(total)] \(job.input.display)"
        if let v = job.variant { line += " (\(v))" }
        line += " -> " + outs
        let choices = result.recorded.compactMap(Console.chosen)
        if !choices.isEmpty { line += " (" + choices.joined(separator: "; ") + ")" }
        if result.cacheHit { line += " (up to date)" }
        if result.remoteHit { line += " (from the remote cache)" }
        line = ValueText.oneLine(line)  // a file name may hold a newline
        if verbosity == .verbose {
            line +=
                "  "
                + result.timings.map { String(format: "%@ %.1fms", $0.name, $0.seconds * 1000) }
                .joined(separator: ", ")
            for note in result.notes { line += "\n    " + note }
        }
        Console.out(line)
    }

    public func summary(_ results: [JobResult], remote: RemoteCache? = nil) {
        guard verbosity != .quiet else { return }
        let failed = results.filter { $0.status == .failed }.count
        let cached = results.filter(\.cacheHit).count
        let s = seconds
        Console.out(
            "\(results.count) jobs: \(results.count - failed) ok (\(cached) up to date), \(failed) failed in "
                + String(format: "%.2f s (%.1f images/s)", s, s > 0 ? Double(results.count) / s : 0))
        if let remote { Console.out(Console.remoteLine(remote.stats)) }
    }

    /// What a quality target chose for an output and what it measured: "etc1s qlevel 96: SSIM
    /// 0.9612, PSNR 38.20 dB" (worst over the levels); nil without a target.
    public static func chosen(_ o: Cache.Entry.Output) -> String? {
        guard let choice = o.choice, let format = o.format else { return nil }
        var s = choice.knob == nil || choice.knob == "block" ? format : "\(format) \(choice.words)"
        let w = LevelQuality.worst(of: o.psnr ?? [])
        var measured: [String] = []
        if let v = w?.worstSSIM { measured.append(String(format: "SSIM %.4f", v)) }
        if let v = w?.flip { measured.append(String(format: "FLIP %.4f", v)) }
        if let v = w?.normalMean { measured.append(String(format: "normal error %.2f°", v)) }
        if let v = w?.worst { measured.append(String(format: "PSNR %.2f dB", v)) }
        if !measured.isEmpty { s += ": " + measured.joined(separator: ", ") }
        return s
    }

    /// `remote cache: 12 hits, 3 misses, 3 uploads, 1.2 MB down, 0.4 MB up, 0 errors`.
    public static func remoteLine(_ s: RemoteCache.Stats) -> String {
        func mb(_ n: Int) -> String { String(format: "%.1f MB", Double(n) / 1e6) }
        return "remote cache: \(s.hits) hits, \(s.misses) misses, \(s.uploads) uploads, \(mb(s.bytesDown)) down, "
            + "\(mb(s.bytesUp)) up, \(s.errors) errors"
    }

    public static func out(_ s: String) {
        FileHandle.standardOutput.write(Data((s + "\n").utf8))
    }

    public static func err(_ s: String, newline: Bool = true) {
        FileHandle.standardError.write(Data((newline ? s + "\n" : s).utf8))
    }
}
