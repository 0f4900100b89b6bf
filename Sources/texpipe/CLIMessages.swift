import TexPipe

/// The wording of the command line's own messages, in one place (as each layer keeps its own).
enum CLIMessage {
    static func error(_ message: String) -> String { ValueText.oneLine("error: " + message) }
    static func warning(_ message: String) -> String { ValueText.oneLine("warning: " + message) }
    static func atLeastOne(_ option: String) -> String { "\(option) must be at least 1" }
    static let quietAndVerbose = "--quiet and --verbose exclude each other"
    static func memoryLimitTooSmall(limit: Int, free: Int, needs: Int) -> String {
        "the process's memory limit (\(limit >> 20) MiB, ulimit -d or -v) leaves \(max(0, free) >> 20) MiB free; "
            + "texpipe needs at least \(needs >> 20) MiB free to start its threads"
    }
    static func badShard(_ found: String) -> String {
        "--shard expects K/N with 1 ≤ K ≤ N, e.g. 2/4, or auto; found \"\(found)\""
    }
    static let interrupted = "\ninterrupted: no partial output was left behind"
    static let watchStopped = "watch: stopped"
    static func manifestHasErrors(_ manifest: String) -> String { "watch: \(manifest) has errors; waiting for a fix" }
    static func cannotWriteReport(_ why: any Error) -> String { "cannot write the report: \(why)" }
    static func willFail(_ input: String, _ failure: String) -> String { "\(input): \(failure) (this job will fail)" }
    static let notBCFormat = "--format: a block format (rgba8 and rgba16f are stored as they are)"
    static func rawSize(_ input: String, _ bytes: Int) -> String { "\(input): expected \(bytes) bytes of RGBA8" }
}
