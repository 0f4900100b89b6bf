import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory texpipe [run|validate|stages|…]`: runs the
/// texpipe tool, built from source as a dependency, in the package's folder, so its
/// `pipeline.json` (the default manifest) is processed and outputs land beside it. With no
/// arguments it runs `texpipe run`.
@main
struct TexPipePlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let tool = try context.tool(named: "texpipe")
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
