import Testing
import TexPipeTestSupport

@testable import TexPipeFormats
@testable import TexPipeParameters
@testable import TexPipePixels

/// The one table of file kinds against what the formats' own specifications say their files start
/// with and are named (PNG: RFC 2083 §3.1; JPEG: ITU T.81 SOI + a marker; OpenEXR's magic
/// 20000630; Radiance's `#?` program line; KTX 2.0 §3.1; DDS's "DDS " magic; GLB: glTF 2.0 §4.4;
/// WebP: RFC 9649 §2.5, "RIFF", a size, "WEBP"; AVIF: an ISO BMFF `ftyp` box naming the `avif` or
/// `avis` brand, AVIF v1.1 §9.2, major or among the compatible brands).
@Suite("file kinds")
struct FileKindTests {
    static let firstBytes: [(FileKind, [UInt8])] = [
        (.png, [137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13]),
        (.jpeg, [0xFF, 0xD8, 0xFF, 0xE0, 0, 16]),
        (.exr, [0x76, 0x2F, 0x31, 0x01, 2, 0, 0, 0]),
        (.radiance, Array("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n".utf8)),
        (.ktx2, [0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A, 0]),
        (.dds, Array("DDS ".utf8) + [124, 0, 0, 0]),
        (.glb, Array("glTF".utf8) + [2, 0, 0, 0]),
        (.webp, Array("RIFF".utf8) + [26, 0, 0, 0] + Array("WEBPVP8L".utf8)),
        // ftyp of 32 bytes: major brand avif, minor version 0, compatible mif1 avif miaf.
        (.avif, [0, 0, 0, 32] + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("mif1avifmiafMA1B".utf8)),
        // An AVIF sequence whose major brand is mif1 and which names avis among the compatible.
        (.avif, [0, 0, 0, 24] + Array("ftypmif1".utf8) + [0, 0, 0, 0] + Array("msf1avis".utf8)),
    ]

    @Test func eachKindIsKnownByItsFirstBytes() {
        for (kind, bytes) in Self.firstBytes {
            #expect(FileKind.sniff(bytes) == kind, "\(kind)")
        }
        // Text formats have no signature: never sniffed, known by their extension.
        #expect(FileKind.sniff(Array("LUT_3D_SIZE 2\n".utf8)) == nil)
        #expect(FileKind.sniff(Array(#"{"asset": {"version": "2.0"}}"#.utf8)) == nil)
        // A Radiance file of another program's name, and one cut before its first line ends.
        #expect(FileKind.sniff(Array("#?RGBE\n".utf8)) == .radiance)
        #expect(FileKind.sniff(Array("#?RADIANCE".utf8)) == .radiance)
        #expect(FileKind.sniff(Array("#?".utf8)) == nil)
        // A RIFF of another kind (WAVE) and an ISO BMFF file of another brand (HEIC) are neither.
        #expect(FileKind.sniff(Array("RIFF".utf8) + [4, 0, 0, 0] + Array("WAVEfmt ".utf8)) == nil)
        #expect(FileKind.sniff([0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)) == nil)
        // A brand past the ftyp box's own size is not the file's.
        #expect(FileKind.sniff([0, 0, 0, 16] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("avif".utf8)) == nil)
    }

    @Test func eachExtensionNamesOneKindInAnyCase() {
        let expected: [String: FileKind] = [
            "a.png": .png, "a.JPG": .jpeg, "a.jpeg": .jpeg, "a.webp": .webp, "a.AVIF": .avif, "a.exr": .exr,
            "a.hdr": .radiance, "a.ktx2": .ktx2,
            "a.DDS": .dds, "a.cube": .cube, "a.gltf": .gltf, "a.glb": .glb,
        ]
        for (path, kind) in expected { #expect(FileKind(path: "dir/" + path) == kind, "\(path)") }
        for path in ["a.tga", "a", "dir.png/a", "a.png/", ".png.x"] { #expect(FileKind(path: path) == nil, "\(path)") }
    }

    /// What a kind holds decides its job and its picture: images, textures, LUTs and models.
    @Test func eachKindHoldsWhatItsFormatHolds() {
        let holds: [FileKind: FileKind.Holds] = [
            .png: .image, .jpeg: .image, .webp: .image, .avif: .image, .exr: .hdrImage, .radiance: .hdrImage,
            .ktx2: .texture(.ktx2),
            .dds: .texture(.dds), .cube: .lut, .gltf: .model(binary: false), .glb: .model(binary: true),
        ]
        #expect(holds.count == FileKind.allCases.count)
        for kind in FileKind.allCases { #expect(kind.row.holds == holds[kind], "\(kind)") }
        // Radiance and .cube are read only; the image formats and containers are written.
        #expect(FileKind.allCases.filter { !$0.row.writable } == [.radiance, .cube])
        #expect(ImageFormat.extensionList == ".png, .jpg, .jpeg, .webp, .avif, .exr, .ktx2 or .dds")
        // The lossy kinds are decoded back and measured; WebP and AVIF readers take straight alpha.
        #expect(FileKind.allCases.filter(\.row.lossy) == [.jpeg, .webp, .avif])
        #expect(FileKind.allCases.filter(\.row.straightAlpha) == [.webp, .avif])
    }

    /// `inspect` and the previews: a text kind by its name (a `.cube` whose comment starts `#?` is
    /// a LUT, not a Radiance file), a binary kind by its bytes whatever its name says.
    @Test func aFilesKindForInspectTrustsBytesOverNamesExceptForText() {
        #expect(FileKind.of(Array("#?odd comment\nLUT_3D_SIZE 2\n".utf8), path: "grade.cube") == .cube)
        #expect(FileKind.of(Self.firstBytes[0].1, path: "really-a-png.jpg") == .png)
        #expect(FileKind.of([1, 2, 3], path: "x.ktx2") == .ktx2)
        #expect(FileKind.of([1, 2, 3], path: "x.bin") == nil)
    }
}
