import Testing
import TexPipeTestSupport

@testable import TexPipeFormats
@testable import TexPipeParameters
@testable import TexPipePixels

/// Each codec family's declaration against what docs/gpu-textures.md (and the SPEC) says of its
/// formats, listed here by hand: a new family must be declared, and a wrong flag is named.
@Suite("codec families")
struct CodecFamilyTests {
    typealias Format = TextureSettings.Format

    static func formats(_ flag: (CodecFamily) -> Bool) -> Set<String> {
        Set(Format.allCases.filter { flag($0.info.codec.family) }.map(\.rawValue))
    }

    @Test func theDeclarationsSayWhatTheDocumentationSays() {
        // `rdo` applies to bc1, bc3, bc7 and uastc.
        #expect(Self.formats(\.takesRDO) == ["bc1", "bc3", "bc7", "uastc"])
        // Volumes: texels, or 2D blocks that 3D textures take as slices (BC1–BC7, BC6H).
        #expect(
            Self.formats(\.takesVolume) == ["rgba8", "bc1", "bc3", "bc4", "bc5", "bc7", "bc6h", "rgba16f"])
        // Stored exactly: nothing to measure.
        #expect(Self.formats(\.exact) == ["rgba8", "rgba16f"])
        // One codebook for the whole file, BasisLZ.
        #expect(Self.formats(\.wholeFile) == ["etc1s"])
        // glTF's KHR_texture_basisu carries UASTC and ETC1S.
        #expect(Self.formats(\.basisUniversal) == ["uastc", "etc1s"])
        // `qlevel` is ETC1S's alone.
        #expect(Self.formats { $0.knobs.map(\.name) == ["qlevel"] } == ["etc1s"])
        #expect(Self.formats { !$0.knobs.isEmpty } == ["etc1s"])
    }

    static func problems(_ json: String) -> [String] {
        guard case .object(let o)? = try? JSONParser.parse(Array(json.utf8)) else { return ["bad test JSON"] }
        var d = ParameterDecoder(file: "m.json", placeholders: nil, knownNames: [])
        guard let args = d.decode(o, at: JSONPath(), table: TextureSettings.parameters) else {
            return d.diagnostics.map(\.message)
        }
        do throws(SettingsProblems) {
            _ = try TextureSettings(args)
            return []
        } catch {
            return error.all.map(\.message)
        }
    }

    /// The rules a family's declaration makes, in the words users see.
    @Test func aFamilysOwnSettingsAreRefusedWithOtherFormats() {
        #expect(
            Self.problems(#"{"format": "bc7", "qlevel": 64}"#) == [
                "qlevel sets etc1s's codebooks, not bc7's (remove qlevel or use etc1s)"
            ])
        #expect(
            Self.problems(#"{"format": "etc1s", "supercompression": "zstd"}"#) == [
                "etc1s is always BasisLZ-supercompressed: remove supercompression (zstd does not apply)"
            ])
        #expect(Self.problems(#"{"format": "etc1s", "qlevel": 64, "supercompression": "none"}"#) == [])
        #expect(TextureSettings.defaultQLevel == 128)
    }

    /// The HDR/LDR rule, one wording wherever it is broken.
    @Test func theRangeRuleIsWordedOnce() {
        var s = TextureSettings.standard
        s.format = .bc7
        #expect(
            s.problems(in: .ktx2, hdrImage: true).map(\.message) == [
                "the image is HDR (an .exr or .hdr input) and bc7 holds 8/16-bit images: add a \"tonemap\" stage, "
                    + "or write an .exr or a texture in bc6h, rgba16f, astc-4x4-hdr or astc-6x6-hdr"
            ])
        s.format = .bc6h
        #expect(
            s.problems(in: .dds, hdrImage: false).map(\.message) == [
                "the image is LDR (a PNG or JPEG input, or after tonemap) and bc6h holds HDR images: "
                    + "write an 8/16-bit output, or start from an .exr or .hdr input"
            ])
        #expect(CodecError(.ldrFormatGotHDR("PNG")).description == RangeRule.hdrImage(into: "PNG"))
        #expect(CodecError(.hdrFormatNeedsHDR("bc6h")).description == RangeRule.ldrImage(into: "bc6h"))
    }
}
