internal import TexPipePlan

/// The engine's wording, in one place (STYLE 10): job failures, write errors, cache warnings.
enum EngineMessage {
    static func prerequisiteFailed(_ what: String) -> String { "not rewritten: \(what) failed" }
    static func modelChanged(_ what: String) -> String {
        "the model changed while texpipe ran (\(what)); run again"
    }
    static func textureMissing(_ what: String, _ why: String) -> String { "\(what): \(why)" }
    /// The one line a failed job prints: `Samples/cards/7h.png (variant "reds"): rotate: why`.
    static func jobLine(input: String, variant: String?, stage: String?, _ message: String) -> String {
        input + (variant.map { " (variant \"\($0)\")" } ?? "") + ": " + (stage.map { $0 + ": " } ?? "") + message
    }

    /// A file a stage declared could not be loaded.
    static func resource(_ label: String, _ path: String, _ error: any Error) -> String {
        "\(label): \(Planner.display(path)): \(error)"
    }

    static let unreadableInput = "cannot read the file"
    static func cannotAllocate(_ need: Int, pixels: Int, free: Int?) -> String {
        "cannot allocate \(mib(need)) MiB for the \(pixels)-pixel image"
            + (free.map { ": \(mib($0)) MiB free under the process's memory limit" } ?? ": out of memory")
    }
    static func memoryNote(need: Int, limit: Int, free: Int) -> String {
        "memory: \(mib(need)) MiB needed at least, \(mib(free)) MiB free of a \(mib(limit)) MiB limit"
    }
    static func mib(_ bytes: Int) -> Int { (bytes + (1 << 20) - 1) >> 20 }
    static func layer(_ display: String, _ message: String) -> String {
        message.hasPrefix(display) || message.hasPrefix("layer ") ? message : "layer \(display): \(message)"
    }
    static func layerSize(_ display: String, _ size: (Int, Int), levels: Int, first: (Int, Int), firstLevels: Int)
        -> String
    {
        "layer \(display) is \(size.0)×\(size.1) with \(levels) levels after its stages, the first layer \(first.0)×\(first.1) with \(firstLevels): every layer must match"
    }
    static func sprite(_ display: String, _ message: String) -> String {
        message.hasPrefix(display) ? message : "sprite \(display): \(message)"
    }
    static func spriteTooLarge(
        _ name: String, _ display: String, size: (Int, Int), needs: (Int, Int), page: (Int, Int)
    ) -> String {
        "sprite \"\(name)\" (\(display)) is \(size.0)×\(size.1), \(needs.0)×\(needs.1) with its extrusion and the "
            + "border: larger than the largest page, \(page.0)×\(page.1) (raise atlas.maxSize)"
    }
    static func pagesWithoutNumber(_ count: Int, template: String) -> String {
        "the sprites need \(count) pages, but the output template \"\(template)\" has no {page} (add {page} or raise atlas.maxSize)"
    }

    static func imageCount(made: Int, planned: Int) -> String {
        "the stages made \(made) images where the plan expected \(planned)"
    }

    static func output(_ relative: String, _ error: any Error) -> String { "\(relative): \(error)" }

    static func damagedIndex(_ file: String, _ lines: Int) -> String {
        "\(Planner.display(file)): \(lines) damaged line\(lines == 1 ? "" : "s") ignored (the jobs they held run again)"
    }
    static func indexNotWritten(_ file: String, _ why: String) -> String {
        "cache index not written: \(Planner.display(file)): \(why)"
    }

    static func cannotCreateFolder(_ dir: String, _ why: String) -> String {
        "cannot create folder \(Planner.display(dir)): \(why)"
    }
    static func cannotWriteIn(_ dir: String, _ why: String) -> String {
        "cannot write in \(Planner.display(dir)): \(why)"
    }
    static func cannotWrite(_ path: String, _ why: String) -> String { "cannot write \(Planner.display(path)): \(why)" }
    static func cannotRename(_ path: String, _ why: String) -> String {
        "cannot rename into \(Planner.display(path)): \(why)"
    }
    static let stopped = "stopped"
    static func cannotWatch(_ why: String) -> String { "cannot watch files (inotify: \(why))" }
}

/// The remote cache's wording: usage errors (which never echo the URL: it may hold a password)
/// and the warnings printed once per kind, each saying what the run does instead.
enum RemoteMessage {
    static let badURL = "--remote-cache expects http://[user:password@]host[:port][/path]"
    static let badHeader = "--remote-header expects NAME=VALUE"
    static let badTimeout = "--remote-timeout must be above 0 seconds"
    static let runLocally = "jobs run locally"
    static let notShared = "results not shared"
    static let cannotConnect = "cannot connect; jobs run locally"
    static let noClient = "libcurl could not be set up; jobs run locally"

    static func warning(_ redactedURL: String, _ what: String) -> String { "remote cache \(redactedURL): \(what)" }
    static func malformedEntry(_ key: String) -> String {
        "entry ac/\(key) is malformed or lists other outputs than the job's; the job runs locally"
    }
    static func blobMismatch(_ sha256: String, _ key: String) -> String {
        "blob cas/\(sha256) of job \(key) does not match its size and SHA-256; the job runs locally"
    }
    static func blobMissing(_ sha256: String, _ key: String) -> String {
        "blob cas/\(sha256) of job \(key) is missing; the job runs locally"
    }
    static func http(_ code: Int, _ request: String, _ consequence: String) -> String {
        "HTTP \(code) on \(request); \(consequence)"
    }
    static func noAnswer(_ timeout: Double) -> String { "no answer within \(seconds(timeout)); jobs run locally" }
    static func requestFailed(_ code: Int) -> String { "request failed (libcurl error \(code)); jobs run locally" }
    static func switchedOff(_ failures: Int) -> String {
        "off for the rest of this run after \(failures) failures in a row"
    }
    static func seconds(_ s: Double) -> String { s == s.rounded() ? "\(Int(s)) s" : "\(s) s" }
}
