import Foundation
import Testing
import TexPipeTestSupport

extension Reference {
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
            ("chromium (WebGL 2)", FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")),
            ("cwebp, avifenc and avifdec", WebTools.available),
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
