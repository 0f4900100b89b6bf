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
            ("python3 OpenEXR", Python.has("OpenEXR")),
        ]
    }
}

@Suite("test references")
struct ReferenceTests {
    /// Under CI every reference is installed (Scripts/setup --test): the one place a missing tool
    /// is named, besides the tests that then fail.
    @Test(.enabled(if: Reference.underCI)) func everyReferenceIsInstalledUnderCI() {
        #expect(Reference.all.filter { !$0.1 }.map(\.0) == [])
    }
}
