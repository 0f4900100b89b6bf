import Foundation
import Testing
import TexPipePlanTestSupport
import TexPipeTestSupport

@testable import TexPipe

/// The texture format table (docs/reference/textures.md): its rows agree with the registries they
/// copy (Vulkan, DXGI, the Khronos Data Format Specification), and what validation, the writers and
/// the reader do follows from a row alone.
@Suite("texture format table")
struct TextureFormatTests {
    typealias Format = TextureSettings.Format

    /// Codes checked against the Vulkan and DXGI headers by hand, independently of the rows.
    static let published: [Format: (vk: [UInt32], dxgi: [UInt32]?)] = [
        .rgba8: ([37, 43], [28, 29]), .bc1: ([131, 132], [71, 72]), .bc3: ([137, 138], [77, 78]),
        .bc4: ([139], [80]), .bc5: ([141], [83]), .bc7: ([145, 146], [98, 99]),
        .astc4x4: ([157, 158], nil), .astc5x5: ([161, 162], nil), .astc6x6: ([165, 166], nil),
        .astc8x8: ([171, 172], nil), .etc2RGB: ([147, 148], nil), .etc2RGBA: ([151, 152], nil),
        .eacR11: ([153], nil), .eacRG11: ([155], nil),
        // UASTC: VK_FORMAT_UNDEFINED in either colour space (KTX 2.0 §3.1: Basis Universal payloads).
        .uastc: ([0, 0], nil),
        // ETC1S with BasisLZ: VK_FORMAT_UNDEFINED too, named by its colour model (163).
        .etc1s: ([0, 0], nil),
        // VK_FORMAT_R16G16B16A16_SFLOAT, DXGI_FORMAT_R16G16B16A16_FLOAT: no sRGB codes.
        .rgba16f: ([97], [10]),
        // VK_FORMAT_BC6H_UFLOAT_BLOCK, DXGI_FORMAT_BC6H_UF16 (unsigned; no sRGB codes).
        .bc6h: ([143], [95]),
        // VK_FORMAT_ASTC_4x4_SFLOAT_BLOCK, VK_FORMAT_ASTC_6x6_SFLOAT_BLOCK (VK_EXT_texture_compression_astc_hdr,
        // 1000066000 + the block size's index); DXGI has none.
        .astc4x4HDR: ([1_000_066_000], nil), .astc6x6HDR: ([1_000_066_004], nil),
    ]

    @Test(arguments: Format.allCases) func rowMatchesThePublishedCodes(_ format: Format) throws {
        let info = format.info
        let codes = try #require(Self.published[format], "\(format) has published codes in this test")
        #expect([info.vulkan.unorm] + (info.vulkan.srgb.map { [$0] } ?? []) == codes.vk)
        #expect(info.dxgi.map { [$0.unorm] + ($0.srgb.map { [$0] } ?? []) } == codes.dxgi)
        // DDS holds a format exactly when DXGI has a code for it.
        #expect(info.containers.contains(.dds) == (info.dxgi != nil))
        #expect(info.containers.contains(.ktx2))
        // The samples cover the block's bits, none overlapping.
        let bits = info.samples.reduce(0) { $0 + $1.bitLength }
        #expect(bits == info.blockBytes * 8)
        #expect(Set(info.samples.map(\.bitOffset)).count == info.samples.count)
        // Data formats (no sRGB code) are the one- and two-channel ones, and the HDR (linear) ones.
        #expect(info.isData == (info.channels == .r || info.channels == .rg || info.hdr))
    }

    @Test func codesLeadBackToTheirFormat() {
        for format in Format.allCases {
            let info = format.info
            for srgb in [false, true] where !(srgb && info.isData) {
                // VK_FORMAT_UNDEFINED names its format by the descriptor's colour model (the
                // colour space is its transfer function, which the reader takes).
                if info.vkFormat(srgb: srgb) == 0 {
                    #expect(Format.forVulkan(0, model: info.colorModel)?.format == format)
                    continue
                }
                let vk = Format.forVulkan(info.vkFormat(srgb: srgb))
                #expect(vk?.format == format && vk?.srgb == srgb, "\(format) srgb \(srgb)")
                if let dxgi = info.dxgiFormat(srgb: srgb) {
                    let d = Format.forDXGI(dxgi)
                    #expect(d?.format == format && d?.srgb == srgb, "\(format) srgb \(srgb)")
                }
            }
        }
        // vkFormat 0 names UASTC (166) and ETC1S (163) by colour model; another model is no format.
        #expect(Format.forVulkan(0, model: 163)?.format == .etc1s && Format.forVulkan(0, model: 166)?.format == .uastc)
        #expect(Format.forVulkan(0) == nil && Format.forVulkan(0, model: 164) == nil && Format.forDXGI(0) == nil)
    }

    @Test func levelBytesCountWholeBlocks() {
        #expect(Format.rgba8.info.levelBytes(3, 5) == 3 * 5 * 4)
        #expect(Format.bc1.info.levelBytes(5, 4) == 2 * 1 * 8)
        #expect(Format.bc7.info.levelBytes(1, 1) == 16)
        #expect(Format.astc6x6.info.levelBytes(13, 6) == 3 * 1 * 16)
        #expect(Format.astc8x8.info.levelBytes(8, 9) == 1 * 2 * 16)
    }

    /// One extension mapping: output kinds by extension, case-insensitive; others are nil.
    @Test func extensionsNameOneKind() {
        #expect(ImageFormat(path: "a/b.PNG") == .png)
        #expect(ImageFormat(path: "x.jpg") == .jpeg && ImageFormat(path: "x.JPEG") == .jpeg)
        #expect(ImageFormat(path: "out/t.ktx2") == .texture(.ktx2) && ImageFormat(path: "t.Dds") == .dds)
        #expect(ImageFormat(path: "t.webp") == .webp && ImageFormat(path: "t.Avif") == .avif)
        #expect(ImageFormat(path: "t.gif") == nil && ImageFormat(path: "noext") == nil)
        #expect(ImageFormat(path: "dir.png/file") == nil)
        #expect(ImageFormat.dds.name == "DDS" && ImageFormat.png.container == nil)
    }

    static func manifest(format: Format, template: String, colorSpace: String? = nil) -> [String] {
        var texture = #""format": ""# + format.rawValue + #"""#
        if let colorSpace { texture += #", "colorSpace": ""# + colorSpace + #"""# }
        let t = TempDir()
        t.png("in/a.png", width: 8, height: 8)
        // An HDR format takes an HDR image.
        t.write("in/a.exr", exrBytes)
        let input = format.info.hdr ? "in/*.exr" : "in/*.png"
        return t.errors(
            #"{ "version": 1, "output": "out", "pipelines": [ { "name": "p", "inputs": [""# + input
                + #""], "output": ""#
                + template + #"", "texture": { "# + texture + #" }, "stages": [] } ] }"#)
    }

    /// Validation derives from the rows: a format in a container its row does not name is a
    /// manifest error (never a crash in the writer), and so is sRGB for a data format.
    @Test(arguments: Format.allCases) func validationFollowsTheRow(_ format: Format) {
        let info = format.info
        for container in TextureContainer.allCases {
            let errors = Self.manifest(format: format, template: "{file}.\(container.rawValue)")
            if info.containers.contains(container) {
                #expect(errors.isEmpty, "\(format) in \(container): \(errors)")
            } else {
                #expect(
                    errors == [
                        "error: $T/pipeline.json: pipelines[0].texture.format: \(format.rawValue) is KTX2 only: "
                            + "\(container.name) cannot hold \(info.familyName) (use a .ktx2 template)"
                    ])
            }
        }
        let srgb = Self.manifest(format: format, template: "{file}.ktx2", colorSpace: "srgb")
        #expect(srgb.isEmpty != info.isData, "\(format): \(srgb)")
    }

    /// The writer refuses, with a message, a container the row does not name (the DDS writer used
    /// to force-unwrap a missing DXGI code), and writes every format the row allows.
    @Test(arguments: Format.allCases) func writerFollowsTheRow(_ format: Format) throws {
        let image =
            format.info.hdr
            ? Image(width: 8, height: 8, pixels: .rgbaF32([Float](repeating: 1, count: 8 * 8 * 4)))
            : Image(width: 8, height: 8, pixels: .rgba8([UInt8](repeating: 255, count: 8 * 8 * 4)))
        var settings = TextureSettings.standard
        settings.format = format
        settings.colorSpace = format.info.isData ? .linear : .srgb
        for container in TextureContainer.allCases {
            if format.info.containers.contains(container) {
                let bytes = try TextureEncoder.encode([image], settings, container: container)
                let file = try TextureFile(bytes)
                #expect(file.format == format && file.container == container)
                #expect(file.levels[0].uncompressedBytes == format.info.levelBytes(8, 8))
            } else {
                #expect(throws: CodecError.self) {
                    try TextureEncoder.encode([image], settings, container: container)
                }
            }
        }
    }
}
