import Foundation
import Testing

/// The servers and tools the end-to-end tests drive. Missing on a developer's machine: the tests
/// that need one are skipped; under `CI=true` they run and fail (Tests/TexPipeTests has the same
/// rule for the reference decoders and encoders).
enum EndToEndReference {
    static let underCI = ProcessInfo.processInfo.environment["CI"] == "true"
    static func needs(_ available: Bool, _ what: String) -> ConditionTrait {
        .enabled(if: available || underCI, "\(what) not installed (Scripts/setup --test)")
    }

    /// python3 with the test references: the package's `.venv` (Scripts/setup --test), else the
    /// `python3` on PATH. As a `CLI.run` wrapper with `bareCommand`.
    static let python: [String] = {
        let venv = CLI.packageRoot + "/.venv/bin/python3"
        return FileManager.default.isExecutableFile(atPath: venv) ? [venv] : ["/usr/bin/env", "python3"]
    }()

    static func pythonHas(_ module: String) -> Bool {
        (try? CLI.run(["-c", "import \(module)"], in: "/", wrapper: python, bareCommand: true))?.status == 0
    }
}

@Suite("end-to-end references")
struct EndToEndReferenceTests {
    @Test(.enabled(if: EndToEndReference.underCI)) func everyToolIsInstalledUnderCI() {
        let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].contains {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        let tools = [
            ("nginx", Nginx.binary != nil), ("python3 PyYAML", CIRecipeTests.hasYAML), ("chromium", chromium),
            ("python3 jsonschema", EndToEndReference.pythonHas("jsonschema")),
            ("GNU time", FileManager.default.isExecutableFile(atPath: "/usr/bin/time")),
        ]
        #expect(tools.filter { !$0.1 }.map(\.0) == [])
    }
}
