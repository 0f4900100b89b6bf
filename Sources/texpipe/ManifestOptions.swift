public import ArgumentParser
import TexPipe

/// The options `run` and `watch` share: which manifest, how many jobs, which pipelines, the
/// pixel limit.
struct ManifestOptions: ParsableArguments {
    @Argument(help: "The manifest.") var manifest: String = "pipeline.json"
    @Option(help: "Jobs in parallel (default: number of cores).") var jobs: Int?
    @Option(name: .customLong("pipeline"), help: "Only this pipeline (repeatable).") var pipelines: [String] = []
    @Option(
        name: .customLong("variant"),
        help: "Only this variant's jobs (repeatable): one platform per CI machine; --shard splits within it.")
    var variants: [String] = []
    @Option(help: "Refuse images with more pixels than this, before allocating.") var maxPixels: Int = Image
        .defaultMaxPixels

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError(CLIMessage.atLeastOne("--jobs")) }
        if maxPixels < 1 { throw ValidationError(CLIMessage.atLeastOne("--max-pixels")) }
    }
}

// Choices on the command line are the library's enums: argument-parser lists their values
// when one is misspelled.
extension TextureSettings.Format: ExpressibleByArgument {}
extension TextureSettings.Quality: ExpressibleByArgument {}
extension RemoteSettings.Mode: ExpressibleByArgument {}
