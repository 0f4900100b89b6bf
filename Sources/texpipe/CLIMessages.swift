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
    /// The formats whose family stores texels exactly, from the format table.
    static var exactFormats: [String] {
        TextureSettings.Format.allCases.filter(\.info.codec.family.exact).map(\.rawValue)
    }
    static var notBCFormat: String {
        "--format: a block format (\(exactFormats.joined(separator: " and ")) are stored as they are)"
    }
    /// `encode-blocks --format`'s help: every block format from the format table.
    static var blockFormats: String {
        let ldr = TextureSettings.Format.allCases.filter { !$0.info.codec.family.exact && !$0.info.hdr }
        return "A block format: \(ldr.map(\.rawValue).joined(separator: ", ")); \(TextureSettings.Format.hdrNames) "
            + "take raw Float32 RGBA (\(exactFormats.joined(separator: " and ")) are stored as they are)."
    }
    /// A family's own setting, from the family's declaration: "etc1s: the codebooks' size, 1…255."
    static func knob(_ name: String) -> String {
        let owners = TextureSettings.Format.allCases.filter { $0.info.codec.family.knobs.contains { $0.name == name } }
        let sets = owners.first?.info.codec.family.knobs.first { $0.name == name }?.sets ?? name
        var range = ""
        if case .integer(let r)? = TextureSettings.parameters.first(where: { $0.name == name })?.kind {
            range = "\(r.lowerBound)…\(r.upperBound)"
        }
        return
            "\(owners.map(\.rawValue).joined(separator: ", ")): the \(sets)' size\(range.isEmpty ? "" : ", " + range)."
    }
    static func rawSize(_ input: String, _ bytes: Int) -> String { "\(input): expected \(bytes) bytes of RGBA8" }
}
