import Foundation
import Testing

/// The independent references the tests compare against (decoders, reference encoders, validators).
/// Where one is missing a test that needs it is skipped on a developer's machine, but under
/// `CI=true` it runs and fails: a missing reference must never turn CI green.
enum Reference {
    static let underCI = ProcessInfo.processInfo.environment["CI"] == "true"

    static func needs(_ available: Bool, _ what: String) -> ConditionTrait {
        .enabled(if: available || underCI, "\(what) not installed (Scripts/setup --test)")
    }

    /// For the part of a test that needs a reference: true where it is installed, and always under
    /// CI, where its absence then fails the test.
    static func use(_ available: Bool) -> Bool { available || underCI }

    static var imageMagickComposite: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/composite") }

    /// Every reference this target uses, and whether it is here.
    static var all: [(String, Bool)] {
        [
            ("python3 texture2ddecoder", Python.has("texture2ddecoder")), ("python3 etcpak", Python.has("etcpak")),
            ("python3 bc7enc", Python.has("bc7enc")), ("python3 zstandard", Python.has("zstandard")),
            ("python3 rectpack", Python.has("rectpack")), ("python3 jsonschema", Python.has("jsonschema")),
            ("astcenc", ASTCTool.available), ("ImageMagick's composite", imageMagickComposite),
            ("pngcheck", FileManager.default.isExecutableFile(atPath: "/usr/bin/pngcheck")),
            ("python3 alktx2", Python.has("alktx2")), ("python3 opengl_basisu", Python.has("opengl_basisu")),
            ("python3 OpenEXR", Python.has("OpenEXR")), ("python3 PIL (pillow)", Python.has("PIL")),
            ("python3 ispc_texcomp", Python.has("ispc_texcomp")), ("python3 py360convert", Python.has("py360convert")),
            ("python3 numpy", Python.has("numpy")), ("python3 freetype-py", Python.has("freetype")),
        ]
    }
}

/// Thrown by a helper whose reference is not installed: under `CI=true` its test fails with this
/// instead of crashing the test process.
struct MissingReference: Error, CustomStringConvertible {
    var name: String
    var description: String { "\(name) is not installed (Scripts/setup --test)" }
}

@Suite("test references")
struct ReferenceTests {
    /// Under CI every reference is installed (Scripts/setup --test): the one place a missing tool
    /// is named, besides the tests that then fail.
    @Test(.enabled(if: Reference.underCI)) func everyReferenceIsInstalledUnderCI() {
        #expect(Reference.all.filter { !$0.1 }.map(\.0) == [])
    }

    /// A reference script that fails fails its test: its exit status and what it said are the error
    /// (Python.run once returned whatever it had printed).
    @Test func aFailingScriptThrowsWithItsStatusAndMessage() throws {
        let failure = #expect(throws: Python.Failure.self) {
            try Python.run("import sys; sys.stderr.write('no such decoder'); sys.exit(3)")
        }
        #expect(failure?.status == 3 && failure?.stderr == "no such decoder")
        #expect(try Python.run("import sys; sys.stdout.write('ok')") == Array("ok".utf8))
    }

    /// Part of a test that needs a reference runs where it is installed and always under CI.
    @Test func aPartThatNeedsAReferenceRunsUnderCI() {
        #expect(Reference.use(true))
        #expect(Reference.use(false) == Reference.underCI)
    }
}

/// python3 with the test references (Scripts/setup --test makes its virtual environment and links it
/// as the package's `.venv`; without one, the `python3` on PATH).
enum Python {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The executable and the arguments that go before a script's.
    static let command: [String] = {
        let venv = packageRoot + "/.venv/bin/python3"
        return FileManager.default.isExecutableFile(atPath: venv) ? [venv] : ["/usr/bin/env", "python3"]
    }()

    /// A process running python3 with `arguments`.
    static func process(_ arguments: [String]) -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: command[0])
        p.arguments = Array(command.dropFirst()) + arguments
        return p
    }

    static func has(_ module: String) -> Bool {
        let p = process(["-c", "import \(module)"])
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    struct Failure: Error, CustomStringConvertible {
        var status: Int32
        var stderr: String
        var description: String { "python3 exited with status \(status): \(stderr.suffix(2000))" }
    }

    /// Runs `code` with `args` and returns what it wrote to stdout; a non-zero exit throws, with
    /// the end of what it wrote to stderr.
    static func run(_ code: String, _ args: String...) throws -> [UInt8] {
        try run(["-c", code] + args)
    }

    /// Runs python3 with `arguments` (a script and its arguments, or `-c` and code); a non-zero exit
    /// throws.
    static func run(_ arguments: [String]) throws -> [UInt8] {
        let p = process(arguments)
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // stderr drained on another thread, so neither pipe fills while the other is read.
        let errData = UnsafeSendable(NSMutableData())
        let drained = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            errData.value.append(err.fileHandleForReading.readDataToEndOfFile())
            drained.signal()
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        p.waitUntilExit()
        guard p.terminationReason == .exit, p.terminationStatus == 0 else {
            throw Failure(
                status: p.terminationStatus, stderr: String(decoding: errData.value as Data, as: UTF8.self))
        }
        return Array(data)
    }
}
