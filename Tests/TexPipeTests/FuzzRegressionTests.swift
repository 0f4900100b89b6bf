import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeFuzzing

/// Every input a fuzzer found (and the hostile files written by hand beside them) in
/// Fixtures/fuzz/TARGET/ goes through its target as texpipe would read it: a one-line answer,
/// never a crash, a hang or an allocation past the pixel limit.
@Suite("fuzz regressions")
struct FuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fuzz")

    static func inputs(_ target: FuzzTarget) -> [String] {
        let dir = folder.appendingPathComponent(target.rawValue).path
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted().map { dir + "/" + $0 }
    }

    @Test(arguments: FuzzTarget.allCases) func everyKeptInputGetsAOneLineAnswer(_ target: FuzzTarget) throws {
        let files = Self.inputs(target)
        #expect(!files.isEmpty, "Fixtures/fuzz/\(target.rawValue) holds the target's hostile inputs")
        for file in files {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
            let answer = target.run(bytes)
            #expect(!answer.isEmpty && !answer.contains("\n"), "\(file): \(answer)")
        }
    }

    /// The hand-built ones are refused for what they are.
    @Test func knownHostileFilesAreRefusedForTheirFault() throws {
        func answer(_ target: FuzzTarget, _ name: String) throws -> String {
            target.run(Array(try Data(contentsOf: Self.folder.appendingPathComponent("\(target.rawValue)/\(name)"))))
        }
        #expect(
            try answer(.texture, "huge-uncompressed-length.ktx2")
                == "KTX2 level 0 holds 57420895248973888 bytes of blocks; its format and size need 64")
        #expect(try answer(.texture, "offset-overflows.ktx2") == "KTX2 level 0 past the end")
        // glTF: a model each way it can lie, and one that rewrites both ways (an image of two kinds).
        #expect(try answer(.gltf, "valid-two-kinds.glb") == "ok")
        #expect(try answer(.gltf, "length-lies.glb") == "GLB: the header says 628 bytes; the file has 624")
        #expect(
            try answer(.gltf, "view-past-buffer.glb")
                == "bufferViews[1]: bytes 48…222 lie past the end of buffers[0] (122 bytes)")
        #expect(
            try answer(.gltf, "accessor-past-view.glb")
                == "accessors[0]: reads up to byte 4800 of bufferViews[0], which has 48")
        #expect(
            try answer(.gltf, "view-overlaps-image.glb")
                == "bufferViews[1]: an image's bytes overlap bufferViews[2]; texpipe cannot replace the image alone")
        #expect(try answer(.gltf, "version-1.gltf") == "asset.version: \"1.0\": texpipe reads glTF 2.x")
        #expect(try answer(.texture, "level-count-huge.ktx2").hasPrefix("4294967295 levels for 4×4"))
        // Found by `cube`: a LUT_3D_SIZE past Int's range (it trapped converting it).
        #expect(
            try answer(.cube, "crash-huge-size.cube")
                == "Cube LUT line 1: LUT_3D_SIZE must be one whole number from 2 to 256, found \"3777777777777777777777777777777\""
        )
        #expect(try answer(.cube, "seed-2x2x2.cube") == "ok")
        // Found by `cube`: a value a Double holds and a Float does not (it became infinity).
        #expect(
            try answer(.cube, "crash-past-float.cube")
                == "Cube LUT line 8: 0444444444444444444444444444444444444444 is past a 32-bit float's range")
        #expect(try answer(.manifest, "deep-nesting.json") == "invalid JSON at line 1, column 513: nested too deeply")
        // Found by `manifest` (9.5 s and 786 MB; 88 s): braces that would expand into gigabytes.
        #expect(try answer(.manifest, "slow-brace-expansion.json").contains("alternatives expand into more than 256"))
        #expect(
            try answer(.manifest, "timeout-brace-expansion.json").contains("alternatives expand into more than 256"))
        #expect(try answer(.remoteEntry, "path-escapes.json") == "malformed entry")
        #expect(try answer(.remoteEntry, "not-json.json") == "malformed entry")
        // Found by `remote-entry`: a size past 2⁵³, exact in the scan, rounded by Foundation. The
        // scan leaves such sizes to Foundation, so the two readers agree.
        #expect(try answer(.remoteEntry, "size-past-double-precision.json") == "ok")
        // diff: a 4-byte length, BASE, HEAD. Two 8×8 PNGs measured; a BC7 KTX2 against a PNG of
        // the same size measured level 0 against the PNG (the levels the two have); a KTX2 cut short
        // named with HEAD's fault; a length past the end: BASE takes the rest (a PNG cut inside its
        // header, named with BASE's fault) and HEAD is empty.
        #expect(try answer(.diff, "two-pngs.bin") == "ok")
        #expect(try answer(.diff, "png-against-ktx2.bin") == "ok")
        #expect(try answer(.diff, "ktx2-cut-short.bin").hasPrefix("HEAD: "))
        #expect(try answer(.diff, "length-past-end.bin").hasPrefix("BASE: "))
        // Found by `diff`: an EXR holding infinity, drawn for the page through `tonemap`, whose
        // ACES quotient was ∞/∞ (it trapped).
        #expect(try answer(.diff, "crash-infinite-exr.bin") == "ok")
        #expect(try answer(.index, "torn-lines.txt").hasSuffix("damaged lines"))
        // Found by `index` (a failed read-back): keys that were one string but two records.
        #expect(try answer(.index, "crash-key-not-utf8").hasSuffix("damaged lines"))
    }
}
