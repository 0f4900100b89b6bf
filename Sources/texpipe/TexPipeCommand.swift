import ArgumentParser
import Dispatch
import Foundation
import TexPipe

/// The CLI: the only place that calls exit. Exit status (docs/command-line.md): 0 every job succeeded,
/// 1 at least one job failed, 2 the manifest or the command line is wrong.
@main
struct TexPipeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "texpipe",
        abstract: "Batch image asset pipeline: runs pipeline.json over folders of PNGs.",
        version: TexPipeVersion.string + " (" + InstructionSet.built + ")",
        subcommands: [
            Run.self, Watch.self, Validate.self, Stages.self, Formats.self, Schema.self, Inspect.self, Clean.self,
            PackRects.self,
            EncodeBlocks.self, Diff.self,
        ],
        defaultSubcommand: Run.self)

    static func main() {
        Allocator.configure()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            let message = fullMessage(for: error)
            if exitCode(for: error) == .success {
                print(message)
                Foundation.exit(0)
            }
            FileHandle.standardError.write(Data((message + "\n").utf8))
            Foundation.exit(2)
        }
    }
}

/// Printed diagnostics, then exit 2.
func fail(_ error: ManifestError) -> ExitCode {
    for d in error.diagnostics { Console.err(d.description) }
    return ExitCode(2)
}

/// Under a memory limit (`ulimit -d`/`-v`) too small for the process's own threads, a one-line
/// error and exit 2 before anything starts (libdispatch would otherwise wait forever for a thread).
func checkMemoryLimit() throws {
    guard let limit = Allocator.limit(), limit.free < Allocator.minimumFree else { return }
    throw fail(CLIMessage.memoryLimitTooSmall(limit: limit.limit, free: limit.free, needs: Allocator.minimumFree))
}

/// A one-line error of the command line's own (`error: …`), then `code`.
func fail(_ message: String, code: Int32 = 2) -> ExitCode {
    Console.err(CLIMessage.error(message))
    return ExitCode(code)
}

/// Kept until the process exits, never freed: tearing down a 20,000-job plan and its cache
/// index is work nobody waits for (it was 7 % of a `validate`).
nonisolated(unsafe) var keptUntilExit: [Any] = []

/// A path given on the command line, made absolute against the current folder.
func absolute(_ path: String) -> String {
    path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
}
