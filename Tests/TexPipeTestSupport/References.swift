public import Foundation
public import Testing
internal import TexPipeCodecs
internal import TexPipeFormats
public import TexPipePixels

@testable import TexPipeTextures

/// The independent references the tests compare against (decoders, reference encoders, validators).
/// Where one is missing a test that needs it is skipped on a developer's machine, but under
/// `CI=true` it runs and fails: a missing reference must never turn CI green.
public enum Reference {
    public static let underCI = ProcessInfo.processInfo.environment["CI"] == "true"

    public static func needs(_ available: Bool, _ what: String) -> ConditionTrait {
        .enabled(if: available || underCI, "\(what) not installed (Scripts/setup --test)")
    }

    /// For the part of a test that needs a reference: true where it is installed, and always under
    /// CI, where its absence then fails the test.
    public static func use(_ available: Bool) -> Bool { available || underCI }

    public static var imageMagickComposite: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/composite") }

}

/// Thrown by a helper whose reference is not installed: under `CI=true` its test fails with this
/// instead of crashing the test process.
public struct MissingReference: Error, CustomStringConvertible {
    public var name: String
    public init(name: String) { self.name = name }
    public var description: String { "\(name) is not installed (Scripts/setup --test)" }
}

/// python3 with the test references (Scripts/setup --test makes its virtual environment and links it
/// as the package's `.venv`; without one, the `python3` on PATH).
public enum Python {
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// A reference script kept beside this file (`basisu_reference.py`, `rectpack_best.py`).
    public static func script(_ name: String) -> String { packageRoot + "/Tests/TexPipeTestSupport/" + name }

    /// The executable and the arguments that go before a script's.
    public static let command: [String] = {
        let venv = packageRoot + "/.venv/bin/python3"
        return FileManager.default.isExecutableFile(atPath: venv) ? [venv] : ["/usr/bin/env", "python3"]
    }()

    /// A process running python3 with `arguments`.
    public static func process(_ arguments: [String]) -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: command[0])
        p.arguments = Array(command.dropFirst()) + arguments
        return p
    }

    public static func has(_ module: String) -> Bool {
        let p = process(["-c", "import \(module)"])
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    public struct Failure: Error, CustomStringConvertible {
        public var status: Int32
        public var stderr: String
        public var description: String { "python3 exited with status \(status): \(stderr.suffix(2000))" }
    }

    /// Runs `code` with `args` and returns what it wrote to stdout; a non-zero exit throws, with
    /// the end of what it wrote to stderr.
    public static func run(_ code: String, _ args: String...) throws -> [UInt8] {
        try run(["-c", code] + args)
    }

    /// Runs python3 with `arguments` (a script and its arguments, or `-c` and code); a non-zero exit
    /// throws.
    public static func run(_ arguments: [String]) throws -> [UInt8] {
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

public struct UnsafeSendable<T>: @unchecked Sendable {
    public let value: T
    public init(_ v: T) { value = v }
}

/// Arm's astcenc command-line tool (Debian's `astcenc`): the reference encoder and decoder.
public enum ASTCTool {
    public static let path = ["/usr/bin/astcenc", "/usr/local/bin/astcenc"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    public static var available: Bool { path != nil }

    public static func run(_ args: [String]) throws {
        guard let path else { throw MissingReference(name: "astcenc") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "astcenc \(args)")
    }

    /// `-dl` (LDR, linear) to a PNG, read back with texpipe's PNG decoder... through libpng.
    public static func decode(_ astc: String, in t: TempDir) throws -> [UInt8] {
        let png = t.path + "/decoded.png"
        try run(["-dl", astc, png])
        let image = try ImageDecoder.decode(Array(try Data(contentsOf: URL(fileURLWithPath: png))), pngReader: .libpng)
        return TextureEncoder.rgba8(image)
    }

    /// The image compressed by the CLI at `preset` and decoded again.
    public static func roundTrip(_ image: Image, block: String, preset: String, in t: TempDir) throws -> [UInt8] {
        t.write("source.png", try ImageEncoder.png(image, PNGSettings.standard))
        try run(["-cl", t.path + "/source.png", t.path + "/ref.astc", block, preset])
        return try decode(t.path + "/ref.astc", in: t)
    }
}

/// Debian's `webp` and `libavif-bin` tools (cwebp, avifenc): the same libraries as texpipe, driven
/// as scripts drive them — the reference encoders of the WebP and AVIF tests.
public enum WebTools {
    public static func path(_ tool: String) -> String? {
        ["/usr/bin/" + tool, "/usr/local/bin/" + tool].first { FileManager.default.isExecutableFile(atPath: $0) }
    }
    public static var available: Bool { path("cwebp") != nil && path("avifenc") != nil && path("avifdec") != nil }

    /// Runs `tool` with `args`; a non-zero exit throws with its stderr.
    public static func run(_ tool: String, _ args: [String]) throws {
        guard let path = path(tool) else { throw MissingReference(name: tool) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        let err = Pipe()
        p.standardOutput = FileHandle.nullDevice
        p.standardError = err
        try p.run()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw Python.Failure(status: p.terminationStatus, stderr: String(decoding: e, as: UTF8.self))
        }
    }

    /// The RGBA8 pixels Pillow decodes from `file` (its first frame), with its size: Pillow's
    /// wheel carries its own libwebp and libavif (Tests/TexPipeTestSupport/web_reference.py).
    public static func pillow(_ file: String, _ how: String = "decode") throws -> (
        width: Int, height: Int, rgba: [UInt8]
    ) {
        let out = file + ".pillow.rgba"
        let said = String(decoding: try Python.run([Python.script("web_reference.py"), how, file, out]), as: UTF8.self)
        let size = said.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        let rgba = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        try? FileManager.default.removeItem(atPath: out)
        return (size[0], size[1], rgba)
    }

    /// What Debian's avifdec decodes from an AVIF at 16 bits (RGBA16).
    public static func avifdec16(_ file: String) throws -> [UInt16] {
        let out = file + ".avifdec.rgba"
        _ = try Python.run([Python.script("web_reference.py"), "decode16", file, out])
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        try? FileManager.default.removeItem(atPath: out)
        return stride(from: 0, to: data.count, by: 2).map { UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8 }
    }
}
