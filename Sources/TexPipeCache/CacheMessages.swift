internal import TexPipePixels

/// The local cache's wording: an index damaged or not written.
enum CacheMessage {
    static func damagedIndex(_ file: String, _ lines: Int) -> String {
        "\(PathText.display(file)): \(lines) damaged line\(lines == 1 ? "" : "s") ignored (the jobs they held run again)"
    }
    static func indexNotWritten(_ file: String, _ why: String) -> String {
        "cache index not written: \(PathText.display(file)): \(why)"
    }

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
