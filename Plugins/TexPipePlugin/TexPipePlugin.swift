import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory texpipe [run|validate|stages|…]`: builds the
/// texpipe tool from source (SwiftPM's build, asked for by the plugin) and runs it in the package's
/// folder, so its `pipeline.json` (the default manifest) is processed and outputs land beside it.
/// With no arguments it runs `texpipe run`.
///
/// A release build: a debug texpipe runs the pixel work about 30 times slower (the samples: 133 s
/// against 4 s), far more than the one-off difference in compile time.
///
/// The plugin asks for the build itself instead of declaring the tool as its dependency: SwiftPM
/// builds a command plugin's tool dependencies for the host as a second copy of every module
/// (`-tool`), in every `swift build` of the package, used or not — it doubled the package's build.
@main
struct TexPipePlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let build = try packageManager.build(
            .product("texpipe"), parameters: .init(configuration: .release, logging: .concise))
        guard build.succeeded,
            let tool = build.builtArtifacts.first(where: {
                $0.kind == .executable && $0.url.lastPathComponent == "texpipe"
            })
        else {
            Diagnostics.error("building texpipe failed:\n\(build.logText)")
            throw ExitCode(1)
        }
        let process = Process()
        process.executableURL = tool.url
        process.arguments = arguments.isEmpty ? ["run"] : arguments
        process.currentDirectoryURL = context.package.directoryURL
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            Diagnostics.error(
                "texpipe \(process.arguments!.joined(separator: " ")) exited with status \(process.terminationStatus)")
            throw ExitCode(process.terminationStatus)
        }
    }
}

struct ExitCode: Error, CustomStringConvertible {
    var code: Int32
    init(_ code: Int32) { self.code = code }
    var description: String { "texpipe failed (exit status \(code))" }
}
