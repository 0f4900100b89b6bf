import Foundation
import Testing

/// The SwiftPM command plugin, for real: `Examples/PluginDemo` depends on texpipe by path and runs
/// `swift package --allow-writing-to-package-directory texpipe` (the tool built from source at the
/// plugin's request); its outputs must be byte for byte what `texpipe run` writes for the same manifest.
@Suite("SwiftPM command plugin")
struct PluginTests {
    static let demo = CLI.packageRoot + "/Examples/PluginDemo"

    /// Under Scripts/test (which names its compiler flags in TEXPIPE_TEST_SWIFTC_FLAGS, one per line) the demo shares
    /// the package's own build folder and flags, so the plugin's request for a release texpipe finds
    /// the suite's build up to date instead of compiling texpipe a second time; `--ignore-lock`,
    /// because `swift test` holds that folder while the tests run (its build is finished by then).
    /// Otherwise the demo builds in a scratch folder of its own.
    static func swiftPackage(_ args: [String]) throws -> CLI.Output {
        let scratch: [String] =
            if let flags = ProcessInfo.processInfo.environment["TEXPIPE_TEST_SWIFTC_FLAGS"] {
                ["--scratch-path", CLI.packageRoot + "/.build", "--ignore-lock"]
                    + flags.split(separator: "\n").map(String.init)
            } else {
                ["--scratch-path", CLI.packageRoot + "/.build-plugin-demo"]
            }
        return try CLI.run(
            ["swift", "package"] + scratch + args, in: demo, wrapper: ["/usr/bin/env"], bareCommand: true)
    }

    /// Every file under `dir`, relative path → bytes.
    static func files(_ dir: String) -> [String: Data] {
        var out: [String: Data] = [:]
        let e = FileManager.default.enumerator(atPath: dir)
        while let rel = e?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: dir + "/" + rel, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                out[rel] = FileManager.default.contents(atPath: dir + "/" + rel)
            }
        }
        return out
    }

    @Test func pluginRunsTexpipeOnThePackagesManifest() throws {
        try? FileManager.default.removeItem(atPath: Self.demo + "/build")
        try? FileManager.default.removeItem(atPath: Self.demo + "/.texpipe")
        defer {
            try? FileManager.default.removeItem(atPath: Self.demo + "/build")
            try? FileManager.default.removeItem(atPath: Self.demo + "/.texpipe")
        }
        let run = try Self.swiftPackage(["--allow-writing-to-package-directory", "texpipe", "run", "--no-progress"])
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        #expect(run.stdout.contains("2 jobs: 2 ok"))
        let viaPlugin = Self.files(Self.demo + "/build")
        #expect(viaPlugin.count == 6)

        // The same manifest and assets through the CLI, in a copy of the demo's folder.
        let copy = NSTemporaryDirectory() + "texpipe-plugin-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        for item in ["pipeline.json", "Assets"] {
            try FileManager.default.copyItem(atPath: Self.demo + "/" + item, toPath: copy + "/" + item)
        }
        let direct = try CLI.run(["run", "--quiet"], in: copy)
        #expect(direct.status == 0, "\(direct.stderr)")
        #expect(Self.files(copy + "/build") == viaPlugin)

        // Other subcommands pass through; a failing one fails the plugin.
        let validate = try Self.swiftPackage(["--allow-writing-to-package-directory", "texpipe", "validate"])
        #expect(validate.status == 0 && validate.stdout.contains("pipeline.json: ok — 1 pipelines, 2 jobs, 6 outputs"))
        let broken = try Self.swiftPackage(["--allow-writing-to-package-directory", "texpipe", "validate", "nope.json"])
        #expect(
            broken.status != 0 && (broken.stdout + broken.stderr).contains("nope.json: cannot read the manifest"),
            "status \(broken.status): \(broken.stdout)\(broken.stderr)")
    }
}
