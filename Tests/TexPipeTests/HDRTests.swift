import Foundation
import Testing
import TexPipePlanTestSupport
import TexPipeTestSupport

@testable import TexPipe
@testable import TexPipeCodecs
@testable import TexPipeEngine
@testable import TexPipeFormats
@testable import TexPipeManifest
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeStages

/// HDR images (docs/hdr.md): EXR and Radiance in, EXR and rgba16f out, the stages that take them,
/// tonemap, and the planner's checks. References: OpenEXR's own Python module writes and reads
/// EXR files; Radiance files are built here byte by byte from the format's description.
@Suite("HDR images")
struct HDRTests {
    static let hasOpenEXR = Python.has("OpenEXR")

    /// The test image's texel (x, y): values a half float holds exactly, from 2^-10 to 100.
    static func value(_ x: Int, _ y: Int) -> SIMD4<Float> {
        SIMD4(Float(x) * 0.5, Float(y) * 2 + 0.25, (x + y) % 2 == 1 ? 100 : 0.0009765625, x == 2 && y == 1 ? 0.5 : 1)
    }

    /// Writes `/tmp/…/name.exr` through OpenEXR's Python module: the 5×3 test image as `kind`.
    static func writeReference(_ t: TempDir, _ name: String, kind: String) throws {
        let code = """
            import sys, OpenEXR, numpy as np
            kind, path = sys.argv[1], sys.argv[2]
            h, w = 3, 5
            rgba = np.zeros((h, w, 4), dtype=np.float32)
            for y in range(h):
                for x in range(w):
                    rgba[y, x] = [x * 0.5, y * 2 + 0.25, 100.0 if (x + y) % 2 else 0.0009765625, 0.5 if (x, y) == (2, 1) else 1]
            if kind == "half-zip-rgba":
                header = {"compression": OpenEXR.ZIP_COMPRESSION, "type": OpenEXR.scanlineimage}
                channels = {"RGBA": rgba.astype(np.float16)}
            elif kind == "float-piz-tiled-rgb":
                td = OpenEXR.TileDescription(); td.xSize = 2; td.ySize = 2
                header = {"compression": OpenEXR.PIZ_COMPRESSION, "type": OpenEXR.tiledimage, "tiles": td}
                channels = {"RGB": rgba[..., :3].copy()}
            elif kind == "half-none-y":
                header = {"compression": OpenEXR.NO_COMPRESSION, "type": OpenEXR.scanlineimage}
                channels = {"Y": rgba[..., 1].astype(np.float16)}
            elif kind == "float-rle-rgba":
                header = {"compression": OpenEXR.RLE_COMPRESSION, "type": OpenEXR.scanlineimage}
                channels = {"R": rgba[..., 0].copy(), "G": rgba[..., 1].copy(), "B": rgba[..., 2].copy(), "A": rgba[..., 3].copy()}
            OpenEXR.File(header, channels).write(path)
            """
        _ = try Python.run(code, kind, t.path + "/" + name)
    }

    @Test(
        Reference.needs(hasOpenEXR, "python3 OpenEXR"),
        arguments: [
            "half-zip-rgba", "float-piz-tiled-rgb", "half-none-y", "float-rle-rgba",
        ])
    func exrFilesDecodeToTheValuesOpenEXRWrote(_ kind: String) throws {
        let t = TempDir()
        try Self.writeReference(t, "ref.exr", kind: kind)
        let image = try ImageDecoder.decode(t.read("ref.exr"), path: "ref.exr")
        #expect(image.isHDR && image.width == 5 && image.height == 3)
        let header = try ImageDecoder.header(t.read("ref.exr"))
        #expect(header.format == .exr && header.depth == 32)
        for y in 0..<3 {
            for x in 0..<5 {
                var want = Self.value(x, y)
                if kind.hasSuffix("rgb") { want.w = 1 }  // no alpha channel: opaque
                if kind.hasSuffix("-y") { want = SIMD4(want.y, want.y, want.y, 1) }  // luminance fills R, G, B
                #expect(image.floatPixel(x, y) == want, "\(kind) (\(x), \(y))")
            }
        }
    }

    @Test(Reference.needs(hasOpenEXR, "python3 OpenEXR"))
    func exrOutputIsHalfZipAndReadsBackInOpenEXR() throws {
        let t = TempDir()
        // 1/3 is not a half: it rounds to nearest (0x3555); 70000 clamps to 65504.
        var floats: [Float] = []
        for y in 0..<3 { for x in 0..<5 { let v = Self.value(x, y); floats += [v.x, v.y, v.z, v.w] } }
        floats[0] = 1.0 / 3
        floats[4] = 70000
        let bytes = try EXR.encode(Image(width: 5, height: 3, pixels: .rgbaF32(floats)))
        t.write("ours.exr", bytes)
        let out = try Python.run(
            """
            import sys, OpenEXR, numpy as np
            f = OpenEXR.File(sys.argv[1])
            h = f.header()
            assert h["compression"] == OpenEXR.ZIP_COMPRESSION, h["compression"]
            ch = f.channels()
            names = sorted(ch.keys())
            sys.stderr.write(repr(names))
            rgba = ch["RGBA"].pixels if "RGBA" in ch else np.dstack([ch[c].pixels for c in "RGBA"])
            assert rgba.dtype == np.float16, rgba.dtype
            sys.stdout.buffer.write(rgba.astype(np.float32).tobytes())
            """, t.path + "/ours.exr")
        let back = out.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(back.count == floats.count)
        let expected = floats.map { Float(Float16(min($0, 65504))) }
        #expect(back == expected)
        #expect(back[0] == Float(Float16(bitPattern: 0x3555)) && back[4] == 65504)
        // Opaque images store no alpha channel; ours reads back with alpha 1.
        var opaque = floats
        for i in stride(from: 3, to: opaque.count, by: 4) { opaque[i] = 1 }
        let again = try ImageDecoder.decode(try EXR.encode(Image(width: 5, height: 3, pixels: .rgbaF32(opaque))))
        #expect(try EXR.info(try EXR.encode(Image(width: 5, height: 3, pixels: .rgbaF32(opaque)))).has_alpha == 0)
        #expect(again.floatPixel(1, 1) == SIMD4(0.5, 2.25, 0.0009765625, 1))
    }

    /// A 4×4 face a prefilter made, whose ZIP chunk OpenEXRCore 3.1 wrote so that no reader decoded it
    /// back (NaNs and negatives in OpenEXR's own Python module too): the writer checks every file and
    /// falls back to no compression.
    @Test(Reference.needs(hasOpenEXR, "python3 OpenEXR"))
    func everyEXRWrittenReadsBackInOpenEXR() throws {
        let halves: [UInt16] = [
            0x461A, 0x45BB, 0x453B, 0x3C00, 0x4506, 0x44BF, 0x4469, 0x3C00, 0x426E, 0x422B, 0x4201, 0x3C00, 0x3EE5,
            0x3ED7, 0x3F40, 0x3C00, 0x452E, 0x44D9, 0x4462, 0x3C00, 0x44E6, 0x4499, 0x442F, 0x3C00, 0x4155, 0x4118,
            0x40E1, 0x3C00, 0x3D1F, 0x3D15, 0x3D5F, 0x3C00, 0x4246, 0x41DC, 0x4145, 0x3C00, 0x4139, 0x40E4, 0x406D,
            0x3C00, 0x3E20, 0x3DD2, 0x3D7D, 0x3C00, 0x3968, 0x3963, 0x39BE, 0x3C00, 0x3E2C, 0x3DC2, 0x3D29, 0x3C00,
            0x3C36, 0x3BDD, 0x3B19, 0x3C00, 0x3873, 0x3838, 0x3800, 0x3C00, 0x346C, 0x346D, 0x34D3, 0x3C00,
        ]
        let floats = halves.map { Float(Float16(bitPattern: $0)) }
        let t = TempDir()
        t.write("face.exr", try EXR.encode(Image(width: 4, height: 4, pixels: .rgbaF32(floats))))
        let out = try Python.run(
            """
            import sys, OpenEXR, numpy as np
            ch = OpenEXR.File(sys.argv[1]).channels()
            rgb = ch["RGB"].pixels if "RGB" in ch else np.dstack([ch[c].pixels for c in "RGB"])
            sys.stdout.buffer.write(rgb.astype(np.float32).tobytes())
            """, t.path + "/face.exr")
        let back = out.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let rgb = floats.enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
        #expect(back == rgb)
    }

    @Test func hostileEXRsAreOneLineErrors() throws {
        let good = try EXR.encode(Image(width: 7, height: 5, pixels: .rgbaF32([Float](repeating: 0.5, count: 140))))
        #expect(throws: CodecError.self) { try ImageDecoder.decode(Array(good.prefix(good.count - 9))) }
        #expect(throws: CodecError.self) { try ImageDecoder.decode(Array(good.prefix(40))) }
        var flipped = good
        for i in stride(from: 300, to: min(flipped.count, 340), by: 1) { flipped[i] ^= 0x5A }
        do {
            _ = try ImageDecoder.decode(flipped)
        } catch let e as CodecError {
            #expect(!e.message.contains("\n") && !e.message.isEmpty)
        }
        #expect(throws: CodecError.self) { try ImageDecoder.decode(good, maxPixels: 34) }
    }

    // MARK: Radiance

    /// c = (m + 0.5) · 2^(E − 136), the format's own conversion.
    static func rgbe(_ m: UInt8, _ e: UInt8) -> Float {
        e == 0 ? 0 : (Float(m) + 0.5) * Float(pow(2.0, Double(e) - 136))
    }

    @Test func radianceScanlinesDecodeByTheFormula() throws {
        var file = Array("#?RADIANCE\n# made by hand\nFORMAT=32-bit_rle_rgbe\nEXPOSURE=1.0\n\n-Y 3 +X 8\n".utf8)
        // Row 0, new run-length: per channel, a run of 8 (128 + 8), or 8 literals.
        file += [2, 2, 0, 8]
        file += [128 + 8, 200]  // R: all 200
        file += [8, 0, 1, 2, 3, 4, 5, 6, 7]  // G: 0…7
        file += [128 + 4, 50, 4, 9, 9, 9, 9]  // B: 50 ×4, then 9 ×4 as literals
        file += [128 + 8, 129]  // E: 129
        // Row 1, flat texels with an old-style repeat (1, 1, 1, n): the texel before, n more times.
        file += [10, 20, 30, 140, 1, 1, 1, 6, 255, 255, 255, 120]
        // Row 2: flat, exponent 0 is black.
        for x in 0..<8 { file += [UInt8(x), 0, 0, x == 3 ? 0 : 128] }
        let image = try ImageDecoder.decode(file)
        #expect(image.isHDR && image.width == 8 && image.height == 3)
        for x in 0..<8 {
            #expect(
                image.floatPixel(x, 0)
                    == SIMD4(Self.rgbe(200, 129), Self.rgbe(UInt8(x), 129), Self.rgbe(x < 4 ? 50 : 9, 129), 1))
            let row1: (UInt8, UInt8, UInt8, UInt8) = x == 7 ? (255, 255, 255, 120) : (10, 20, 30, 140)
            #expect(
                image.floatPixel(x, 1)
                    == SIMD4(Self.rgbe(row1.0, row1.3), Self.rgbe(row1.1, row1.3), Self.rgbe(row1.2, row1.3), 1))
            let e: UInt8 = x == 3 ? 0 : 128
            #expect(image.floatPixel(x, 2) == SIMD4(Self.rgbe(UInt8(x), e), Self.rgbe(0, e), Self.rgbe(0, e), 1))
        }
        // +Y: rows stored bottom first.
        var bottomUp = Array("#?RGBE\n\n+Y 2 +X 1\n".utf8)
        bottomUp += [1, 0, 0, 130, 2, 0, 0, 130]
        let b = try ImageDecoder.decode(bottomUp)
        #expect(b.floatPixel(0, 0).x == Self.rgbe(2, 130) && b.floatPixel(0, 1).x == Self.rgbe(1, 130))
        #expect(try ImageDecoder.header(bottomUp).format == .radiance)
    }

    @Test func hostileRadianceFilesAreOneLineErrors() {
        func message(_ bytes: [UInt8]) -> String {
            do {
                _ = try ImageDecoder.decode(bytes)
                return "decoded"
            } catch { return "\(error)" }
        }
        let head = Array("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 8\n".utf8)
        #expect(message(head) == "Radiance HDR: truncated at scanline 0")
        #expect(message(head + [2, 2, 0, 9]) == "Radiance HDR: scanline 0 says a width other than the header's")
        #expect(message(head + [2, 2, 0, 8, 128 + 9, 1]) == "Radiance HDR: bad run at scanline 0")
        #expect(message(head + [2, 2, 0, 8, 0]) == "Radiance HDR: bad run at scanline 0")
        #expect(message(head + [1, 1, 1, 4]) == "Radiance HDR: bad repeat at scanline 0")
        #expect(
            message(Array("#?RADIANCE\nFORMAT=32-bit_rle_xyze\n\n-Y 2 +X 8\n".utf8))
                == "Radiance HDR: FORMAT=32-bit_rle_xyze is not supported (only 32-bit_rle_rgbe)")
        #expect(
            message(Array("#?RADIANCE\n\n-Y 2 -X 8\n".utf8))
                == "Radiance HDR: resolution line \"-Y 2 -X 8\" is not -Y H +X W or +Y H +X W")
        #expect(message(Array("#?RADIANCE\nno end".utf8)) == "Radiance HDR: the header has no end (an empty line)")
        #expect(message(Array("#?RADIANCE\n\n-Y 99999 +X 99999\n".utf8)).contains("over the limit"))
    }

    // MARK: rgba16f

    @Test(arguments: [TextureContainer.ktx2, .dds])
    func rgba16fStoresHalfFloatsAsTheSpecificationsSay(_ container: TextureContainer) throws {
        var floats: [Float] = []
        for y in 0..<3 { for x in 0..<5 { let v = Self.value(x, y); floats += [v.x, v.y, v.z, v.w] } }
        floats[1] = 1e6  // beyond a half: 65504
        let image = Image(width: 5, height: 3, pixels: .rgbaF32(floats))
        let settings = TextureSettings(
            format: .rgba16f, colorSpace: .linear, quality: .medium, supercompression: .none, zstdLevel: 9)
        let bytes = try TextureEncoder.encode([image], settings, container: container)
        // Half bit patterns, little-endian, written here from IEEE 754 binary16 by Float16.
        let halves = floats.map { Float16(min($0, 65504)).bitPattern }
        let expected = halves.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        switch container {
        case .ktx2:
            let k = try #require(KTX2File(bytes))
            #expect(k.vkFormat == 97 && k.typeSize == 2 && k.levelCount == 1)
            #expect(k.colorModel == 1 && k.transferFunction == 1 && k.texelBlockDimension == [0, 0, 0, 0])
            #expect(k.bytesPlane[0] == 8)
            // Four signed float samples of 16 bits (R, G, B, A): lower −1.0, upper 1.0.
            #expect(k.samples.map(\.channelType) == [0, 1, 2, 15])
            #expect(k.samples.allSatisfy { $0.qualifiers == 0xC && $0.bitLength == 15 })
            #expect(k.samples.map(\.bitOffset) == [0, 16, 32, 48])
            #expect(k.samples.allSatisfy { $0.lower == 0xBF80_0000 && $0.upper == 0x3F80_0000 })
            #expect(k.levelData(0) == expected)
        case .dds:
            let d = try #require(DDSFile(bytes))
            #expect(d.dxgiFormat == 10 && d.pitchOrLinearSize == 5 * 8 && d.miscFlags2 == 2 - 1)
            #expect(d.data == expected)
        }
        // And the file reader gives the (half-rounded) floats back.
        let file = try TextureFile(bytes)
        #expect(file.format == .rgba16f)
        #expect(try file.level(0).pixels == .rgbaF32(halves.map { Float(Float16(bitPattern: $0)) }))
    }

    // MARK: Stages

    /// The HDR image whose values are the opaque 8-bit conformance image's, sRGB-decoded.
    static func hdrOf(_ image: Image) -> Image {
        guard case .rgba8(let p) = image.pixels else { preconditionFailure() }
        let floats = p.enumerated().map { i, v in i % 4 == 3 ? Float(v) / 255 : SRGB.toLinear(Float(v) / 255) }
        return image.with(width: image.width, height: image.height, pixels: .rgbaF32(floats))
    }

    /// Every stage that takes HDR images but tonemap (which makes LDR ones), cubemap (which changes
    /// the shape: CubemapTests) and the ones that take only cube maps (PrefilterTests, IrradianceTests).
    static let floatStages: [String] = StageRegistry.names.filter { name in
        StageRegistry.named(name).map { type in type.takesHDR } == true
            && ![Tonemap.name, Cubemap.name, Prefilter.name, Irradiance.name].contains(name)
    }

    @Test(arguments: floatStages)
    func hdrStagesHoldTheirIdentityOnFloats(_ name: String) throws {
        let type = try #require(StageRegistry.named(name))
        let stage = try ConformanceTests.stage(type)
        var input = Self.hdrOf(ConformanceTests.opaque)
        if (try? stage.planned(Signature(of: input))) == nil { input.alpha = .premultiplied }
        var out = [input]
        for _ in 0..<type.identityApplications { out = try stage.applied(to: out[0], images: [:]) }
        #expect(out[0].isHDR && out[0].width == input.width && out[0].height == input.height)
        guard case .rgbaF32(let a) = out[0].pixels, case .rgbaF32(let b) = input.pixels else {
            Issue.record("\(name): the output is not float pixels")
            return
        }
        let worst = zip(a, b).map { abs($0 - $1) }.max() ?? 0
        #expect(worst <= 1e-6, "\(name): off by \(worst)")
    }

    @Test func pixelMovesKeepTheFloatsExactly() throws {
        let floats: [Float] = (0..<(4 * 3 * 4)).map { (i: Int) -> Float in Float(i) * 37.25 + 1e-3 }
        let image = Image(width: 4, height: 3, pixels: .rgbaF32(floats))
        let flipped = try Flip(axis: .horizontal).applied(to: image, images: [:])[0]
        #expect(
            flipped.floatPixel(0, 1) == image.floatPixel(3, 1) && flipped.floatPixel(1, 2) == image.floatPixel(2, 2))
        let cropped = try Crop(x: 1, y: 1, width: 2, height: 2).applied(to: image, images: [:])[0]
        #expect(
            cropped.floatPixel(0, 0) == image.floatPixel(1, 1) && cropped.floatPixel(1, 1) == image.floatPixel(2, 2))
        // Pad's colour is an sRGB colour: an HDR image gets it in linear light.
        let padded = try Pad(left: 1, top: 0, right: 0, bottom: 0, color: Color(r: 1, g: 0.5, b: 0, a: 1))
            .applied(to: image, images: [:])[0]
        #expect(padded.floatPixel(0, 2) == SIMD4(1, SRGB.toLinear(0.5), 0, 1))
        #expect(padded.floatPixel(1, 0) == image.floatPixel(0, 0))
    }

    @Test func rotateTurnsFloatsAndKeepsTheirRange() throws {
        let floats: [Float] = (0..<(3 * 2 * 4)).map { (i: Int) -> Float in Float(i) * 41.5 + 0.25 }
        let image = Image(width: 3, height: 2, pixels: .rgbaF32(floats))
        // A quarter turn clockwise is a pixel move: (x, y) comes from (y, h − 1 − x).
        let turned = try Rotate(degrees: 90).applied(to: image, images: [:])[0]
        #expect(turned.width == 2 && turned.height == 3)
        #expect(turned.floatPixel(0, 0) == image.floatPixel(0, 1) && turned.floatPixel(1, 2) == image.floatPixel(2, 0))
        // A uniform HDR image far above 1 keeps its value inside, at any angle (the weights sum to 1).
        let bright = Image(width: 16, height: 16, pixels: .rgbaF32([Float](repeating: 50, count: 16 * 16 * 4)))
        var rotate = Rotate(degrees: 30)
        rotate.filter = .bicubic
        let out = try rotate.applied(to: bright, images: [:])[0]
        #expect(out.isHDR && out.width > 16)
        let centre = out.floatPixel(out.width / 2, out.height / 2)
        #expect(abs(centre.x - 50) < 1e-3 && abs(centre.w - 1) < 1e-5)
        // Corners outside the turned square are transparent.
        #expect(out.floatPixel(0, 0) == .zero)
        // With a background, they take its colour in linear light.
        rotate.background = Color(r: 1, g: 0.5, b: 0, a: 1)
        let filled = try rotate.applied(to: bright, images: [:])[0]
        let corner = filled.floatPixel(0, 0)
        #expect(abs(corner.y - SRGB.toLinear(0.5)) < 1e-6 && corner.x == 1 && corner.w == 1)
    }

    @Test func packChannelsPacksFloats() throws {
        let image = Image(width: 2, height: 1, pixels: .rgbaF32([3, 40, 0.5, 1, 7, 0.25, 9, 0.5]))
        let mask = image8(2, 1, [[51, 0, 0, 255], [255, 0, 0, 255]])
        let stage = PackChannels(
            r: .source(.init(path: nil, channel: .g)), g: .source(.init(path: "/m.png", channel: .r, invert: true)),
            b: .source(.init(path: nil, channel: .luma)), a: .constant(1))
        let out = try stage.applied(to: image, images: ["/m.png": mask])[0]
        #expect(out.isHDR && out.layout == .rgb)
        // r = the input's g; g = 1 − mask.r / 255; b = Rec. 709 luma of the input; a = 1.
        func near(_ a: SIMD4<Float>, _ b: SIMD4<Double>) -> Bool {
            (0..<4).allSatisfy { abs(Double(a[$0]) - b[$0]) < 1e-5 * max(1, abs(b[$0])) }
        }
        #expect(near(out.floatPixel(0, 0), SIMD4(40, 1 - 51.0 / 255, 0.2126 * 3 + 0.7152 * 40 + 0.0722 * 0.5, 1)))
        #expect(near(out.floatPixel(1, 0), SIMD4(0.25, 0, 0.2126 * 7 + 0.7152 * 0.25 + 0.0722 * 9, 1)))
        // An HDR source packs only into an HDR image.
        let ldr = image8(2, 1, [[1, 2, 3, 255], [4, 5, 6, 255]])
        #expect(throws: StageError(.hdrSourceNeedsHDR(slot: "g"))) {
            try stage.applied(to: ldr, images: ["/m.png": image])
        }
    }

    @Test func premultiplyAndResizeWorkInLinearFloats() throws {
        // c' = c · a exactly; back again c = c' / a.
        let image = Image(width: 2, height: 1, pixels: .rgbaF32([8, 4, 2, 0.5, 3, 3, 3, 0]))
        let pre = try Premultiply().applied(to: image, images: [:])[0]
        #expect(pre.floatPixel(0, 0) == SIMD4(4, 2, 1, 0.5) && pre.alpha == .premultiplied)
        let back = try Unpremultiply().applied(to: pre, images: [:])[0]
        #expect(back.floatPixel(0, 0) == SIMD4(8, 4, 2, 0.5) && back.floatPixel(1, 0) == .zero)
        // A box halving averages the linear values, above 1 included: (2 + 6) / 2, (0 + 100) / 2.
        let wide = Image(width: 2, height: 1, pixels: .rgbaF32([2, 0, 1, 1, 6, 100, 1, 1]))
        let half = try Resize(width: 1, height: 1, filter: .box).applied(to: wide, images: [:])[0]
        #expect(half.isHDR)
        let p = half.floatPixel(0, 0)
        #expect(abs(p.x - 4) < 1e-5 && abs(p.y - 50) < 1e-4 && abs(p.z - 1) < 1e-6 && p.w == 1)
    }

    // MARK: tonemap

    /// The SPEC's curves, written out again here.
    static func curve(_ c: Double, _ name: Tonemap.Curve) -> Double {
        switch name {
        case .clamp: min(c, 1)
        case .reinhard: c / (1 + c)
        case .aces: min(max(c * (2.51 * c + 0.03) / (c * (2.43 * c + 0.59) + 0.14), 0), 1)
        }
    }

    static func srgb8(_ v: Double) -> Int {
        let s = v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
        return roundHalfUp(s * 255)
    }

    @Test(arguments: Tonemap.Curve.allCases)
    func tonemapFollowsItsFormula(_ curve: Tonemap.Curve) throws {
        let values: [Float] = [0, 0.001, 0.01, 0.18, 0.5, 1, 1.7, 4, 16, 1000]
        var floats: [Float] = []
        for v in values { floats += [v, v * 0.5, -1, v == 4 ? 0.25 : 1] }
        let image = Image(width: values.count, height: 1, pixels: .rgbaF32(floats))
        for exposure in [0.0, 1.5, -2] {
            let out = try Tonemap(exposure: exposure, curve: curve).applied(to: image, images: [:])[0]
            #expect(out.depth == 8)
            for (x, v) in values.enumerated() {
                let scale = pow(2, exposure)
                let want = [
                    Self.srgb8(Self.curve(Double(v) * scale, curve)),
                    Self.srgb8(Self.curve(Double(v) * 0.5 * scale, curve)), 0, v == 4 ? 64 : 255,
                ]
                let got = out.pixel(x, 0)
                #expect(zip(got, want).allSatisfy { abs($0 - $1) <= 1 }, "\(curve) \(exposure) \(v): \(got) vs \(want)")
            }
        }
    }

    /// Infinity (an EXR may hold it) is white under every curve, 1e30 too; NaN is black. Found by
    /// the `diff` fuzz target: the ACES and Reinhard quotients were ∞/∞ and trapped.
    @Test(arguments: Tonemap.Curve.allCases)
    func tonemapTakesInfinityAsWhite(_ curve: Tonemap.Curve) throws {
        let image = Image(width: 1, height: 1, pixels: .rgbaF32([.infinity, 1e30, .nan, 1]))
        let out = try Tonemap(exposure: 0, curve: curve).applied(to: image, images: [:])[0]
        #expect(out.pixel(0, 0) == [255, 255, 0, 255])
    }

    @Test func tonemapOfAPremultipliedImageMultipliesBackIn8Bits() throws {
        let image = Image(width: 1, height: 1, pixels: .rgbaF32([0.25, 0.25, 0.25, 0.5]), alpha: .premultiplied)
        let out = try Tonemap(curve: .clamp).applied(to: image, images: [:])[0]
        // Straight 0.5 → sRGB 188; alpha 128; 188 · 128 / 255 = 94.4 → 94.
        #expect(out.pixel(0, 0) == [94, 94, 94, 128] && out.alpha == .premultiplied)
    }

    // MARK: ASTC HDR

    /// An HDR test image: a smooth field over 16 stops (2⁻⁶ … 2¹⁰) with a hard edge and per-texel
    /// grain, every value a half float (what an .exr holds), alpha 1.
    static func hdrPicture(_ w: Int, _ h: Int) -> [Float] {
        var out: [Float] = []
        var seed: UInt64 = 7
        for y in 0..<h {
            for x in 0..<w {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let grain = Float(seed >> 40 & 0xFF) / 255 * 0.3
                let stops = Float(x) / Float(w) * 16 - 6
                let edge: Float = y > h / 2 ? 4 : 1
                let r = exp2(stops + grain) * edge
                let g = exp2(Float(y) / Float(h) * 8 - 2) + grain
                let b = x > w / 3 ? Float(0.05) : Float(300)
                out += [r, g, b].map { Float(Float16($0)) } + [1]
            }
        }
        return out
    }

    /// log-RGB PSNR as docs/hdr.md defines it, evaluated here: log2 of each of R, G, B clamped to
    /// [2⁻¹⁴, 65504], peak 30 stops.
    static func logPSNR(_ a: [Float], _ b: [Float]) -> Double {
        var sum = 0.0
        var n = 0
        for i in stride(from: 0, to: a.count, by: 4) {
            for c in 0..<3 {
                let d =
                    log2(Double(min(max(a[i + c], 0x1p-14), 65504))) - log2(Double(min(max(b[i + c], 0x1p-14), 65504)))
                sum += d * d
                n += 1
            }
        }
        return 10 * log10(900 / (sum / Double(n)))
    }

    /// An .astc file read by astcenc's own decompressor (`-dh`, HDR) into an .exr, read back by
    /// OpenEXR's Python module as Float RGBA.
    static func astcencDecodeHDR(_ t: TempDir, _ astc: String) throws -> [Float] {
        try ASTCTool.run(["-dh", t.path + "/" + astc, t.path + "/decoded.exr"])
        let out = try Python.run(
            """
            import sys, OpenEXR, numpy as np
            ch = OpenEXR.File(sys.argv[1]).channels()
            rgba = ch["RGBA"].pixels if "RGBA" in ch else np.dstack([ch[c].pixels for c in "RGBA"])
            sys.stdout.buffer.write(rgba.astype(np.float32).tobytes())
            """, t.path + "/decoded.exr")
        return out.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// astc-4x4-hdr and astc-6x6-hdr: the KTX2 fields the specification gives an SFLOAT block
    /// format, level data that astcenc's own decompressor reads, and a log-RGB PSNR within 0.2 dB
    /// of what astcenc's command line reaches with -hdr at -medium on the same image (it is the
    /// same library and profile, so the blocks are the same); texpipe's decode of its blocks (for
    /// checks and inspect) is astcenc's.
    @Test(
        Reference.needs(ASTCTool.available && hasOpenEXR, "the astcenc CLI and python3 OpenEXR"),
        arguments: [(TextureSettings.Format.astc4x4HDR, 4, 1_000_066_000), (.astc6x6HDR, 6, 1_000_066_004)])
    func astcHDRDecodesInAstcencAsItsOwnEncodeDoes(_ format: TextureSettings.Format, _ side: Int, _ vk: Int) throws {
        let (w, h) = (83, 61)
        let floats = Self.hdrPicture(w, h)
        var settings = TextureSettings.standard
        settings.format = format
        settings.colorSpace = .linear
        let image = Image(width: w, height: h, pixels: .rgbaF32(floats))
        let half = Image(width: 41, height: 30, pixels: .rgbaF32(Self.hdrPicture(41, 30)))
        let (bytes, quality) = try TextureEncoder.encode([image, half], settings, container: .ktx2, measure: true)
        let f = try #require(KTX2File(bytes))
        #expect(f.vkFormat == UInt32(vk) && f.typeSize == 1 && f.levelCount == 2 && f.supercompressionScheme == 0)
        #expect(f.colorModel == 162 && f.transferFunction == 1 && f.texelBlockDimension == [side - 1, side - 1, 0, 0])
        #expect(f.bytesPlane[0] == 16)
        // One 128-bit sample, signed float (qualifiers 0xC), lower −1.0 and upper 1.0.
        #expect(
            f.samples == [
                .init(
                    bitOffset: 0, bitLength: 127, channelType: 0, qualifiers: 0xC, samplePosition: [0, 0, 0, 0],
                    lower: 0xBF80_0000, upper: 0x3F80_0000)
            ])
        let blocksX = (w + side - 1) / side
        let blocksY = (h + side - 1) / side
        #expect(f.levels[0].byteLength == UInt64(blocksX * blocksY * 16))
        #expect(f.levels[1].byteLength == UInt64((41 + side - 1) / side * ((30 + side - 1) / side) * 16))
        let t = TempDir()
        var header: [UInt8] = [0x13, 0xAB, 0xA1, 0x5C, UInt8(side), UInt8(side), 1]
        for v in [w, h, 1] { header += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF)] }
        t.write("ours.astc", header + f.levelData(0))
        let ours = try Self.astcencDecodeHDR(t, "ours.astc")
        #expect(ours.count == floats.count)
        // The same image through the command line: an .exr of its (half) values, -ch (HDR colour,
        // LDR alpha), the same block size, -medium.
        let exr = floats.withUnsafeBytes { Array($0) }
        t.write("source.f32", exr)
        _ = try Python.run(
            """
            import sys, OpenEXR, numpy as np
            w, h = int(sys.argv[2]), int(sys.argv[3])
            rgba = np.fromfile(sys.argv[1], dtype=np.float32).reshape(h, w, 4)
            header = {"compression": OpenEXR.ZIP_COMPRESSION, "type": OpenEXR.scanlineimage}
            OpenEXR.File(header, {"RGB": rgba[..., :3].astype(np.float16)}).write(sys.argv[4])
            """, t.path + "/source.f32", "\(w)", "\(h)", t.path + "/source.exr")
        try ASTCTool.run(["-ch", t.path + "/source.exr", t.path + "/ref.astc", "\(side)x\(side)", "-medium"])
        let theirs = try Self.astcencDecodeHDR(t, "ref.astc")
        let (a, b) = (Self.logPSNR(floats, ours), Self.logPSNR(floats, theirs))
        #expect(abs(a - b) <= 0.2, "texpipe \(a) dB, astcenc \(b) dB")
        #expect(a > (side == 4 ? 40 : 33), "\(a) dB")
        // texpipe's own decode (its checks' and inspect's) is astcenc's, and its measure agrees.
        #expect(try TextureCodecs.decodeHDR(f.levelData(0), w, h, format: format) == ours)
        #expect(abs(quality[0].rgb - a) < 0.01)
    }

    // MARK: Planning

    static func planErrors(_ pipelines: String, _ files: [String: [UInt8]]) throws -> [String] {
        let t = TempDir()
        for (name, bytes) in files { t.write(name, bytes) }
        return t.errors(#"{ "version": 1, "output": "out", "pipelines": [ "# + pipelines + " ] }")
    }

    /// One mistake, one error: an unknown `texture.format` on an HDR input is named once, at its
    /// path — not again as an HDR image into rgba8 (an 8/16-bit format) from the default the planner would
    /// otherwise have put in its place (issue 51).
    @Test func anUnknownFormatOnAnHDRInputIsOneError() throws {
        let errors = try Self.planErrors(
            #"{ "name": "p", "inputs": ["in/*.exr"], "stages": [], "texture": { "format": "bc99" }, "output": "{file}.ktx2" }"#,
            ["in/sky.exr": exrBytes])
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.first?.contains("pipelines[0].texture.format") == true && errors.first?.contains("bc99") == true)
    }

    @Test func thePlannerRefusesWhatHDRCannotDo() throws {
        let files = ["in/sky.exr": exrBytes, "in/a.png": try ImageEncoder.png(square(4, [1, 2, 3, 255]))]
        let at = "error: $T/pipeline.json: "
        #expect(
            try Self.planErrors(
                ##"{ "name": "p", "inputs": ["in/*.exr"], "stages": [{ "stage": "color-key", "color": "#ff00ff" }], "output": "{file}.exr" }"##,
                files) == [
                    at
                        + "pipelines[0].stages[0]: color-key: color-key does not take HDR images (this input is an .exr or .hdr); put \"tonemap\" before it, or remove it"
                ])
        #expect(
            try Self.planErrors(
                #"{ "name": "p", "inputs": ["in/*.exr"], "stages": [], "output": "{file}.png" }"#, files)
                == [
                    at
                        + "pipelines[0].output: the image is HDR (an .exr or .hdr input) and PNG holds 8/16-bit images: add a \"tonemap\" stage, or write an .exr or a texture in bc6h, rgba16f, astc-4x4-hdr or astc-6x6-hdr (in/sky.exr)"
                ])
        #expect(
            try Self.planErrors(
                #"{ "name": "p", "inputs": ["in/*.exr"], "stages": [], "texture": { "format": "bc7" }, "output": "{file}.ktx2" }"#,
                files) == [
                    at
                        + "pipelines[0].texture.format: the image is HDR (an .exr or .hdr input) and bc7 holds 8/16-bit images: add a \"tonemap\" stage, or write an .exr or a texture in bc6h, rgba16f, astc-4x4-hdr or astc-6x6-hdr (in/sky.exr)"
                ])
        #expect(
            try Self.planErrors(
                #"{ "name": "p", "inputs": ["in/*.png"], "stages": [], "texture": { "format": "bc6h" }, "output": "{file}.ktx2" }"#,
                files) == [
                    at
                        + "pipelines[0].texture.format: the image is LDR (a PNG or JPEG input, or after tonemap) and bc6h holds HDR images: write an 8/16-bit output, or start from an .exr or .hdr input (in/a.png)"
                ])
        #expect(
            try Self.planErrors(
                #"{ "name": "p", "inputs": ["in/*.png"], "stages": [], "texture": { "format": "rgba16f" }, "output": "{file}.dds" }"#,
                files) == [
                    at
                        + "pipelines[0].texture.format: the image is LDR (a PNG or JPEG input, or after tonemap) and rgba16f holds HDR images: write an 8/16-bit output, or start from an .exr or .hdr input (in/a.png)"
                ])
        #expect(
            try Self.planErrors(
                #"{ "name": "p", "inputs": ["in/*.png"], "stages": [], "output": "{file}.exr" }"#, files)
                == [
                    at
                        + "pipelines[0].output: the image is LDR (a PNG or JPEG input, or after tonemap) and EXR holds HDR images: write an 8/16-bit output, or start from an .exr or .hdr input (in/a.png)"
                ])
        #expect(
            try Self.planErrors(
                #"{ "name": "p", "inputs": ["in/*.png"], "stages": [{ "stage": "tonemap" }], "output": "{file}.png" }"#,
                files) == [
                    at
                        + "pipelines[0].stages[0]: tonemap: the image is already 8/16-bit (tonemap takes HDR images: .exr or .hdr inputs); remove it"
                ])
        let merge = try Self.planErrors(
            #"{ "name": "p", "inputs": ["in/*.png"], "stages": [{ "stage": "alpha-merge", "alpha": "in/sky.exr" }], "output": "{file}.png" }"#,
            files)
        #expect(
            merge == [
                at
                    + "pipelines[0].stages[0]: alpha-merge: alpha: $T/in/sky.exr is an HDR image; alpha-merge reads 8/16-bit images (convert it to PNG first)"
            ], "\(merge)")
        #expect(
            try Self.planErrors(
                #"{ "name": "p", "inputs": ["in/*.exr"], "stages": [], "output": "{file}.hdr" }"#, files)
                == [
                    at
                        + "pipelines[0].output: output \"sky.hdr\" must end in .png, .jpg, .jpeg, .webp, .avif, .exr, .ktx2 or .dds"
                ])
        // An SSIM gate on HDR outputs: SSIM compares stored 8/16-bit values, so refused rather
        // than never failing; a FLIP gate is HDR-FLIP for them.
        #expect(
            try Self.planErrors(
                #"{ "name": "p", "inputs": ["in/*.exr"], "stages": [], "texture": { "format": "bc6h" }, "check": { "minSSIM": 0.9 }, "output": "{file}.ktx2" }"#,
                files) == [
                    at
                        + "pipelines[0].check.minSSIM: minSSIM measures 8/16-bit outputs and this image is HDR: SSIM compares stored 8/16-bit values (gate HDR outputs with maxFLIP, which is HDR-FLIP for them, or minPSNR, which is log-RGB) (in/sky.exr)"
                ])
        #expect(
            try Self.planErrors(
                #"{ "name": "p", "inputs": ["in/*.exr"], "stages": [], "texture": { "format": "bc6h" }, "check": { "maxFLIP": 0.1 }, "output": "{file}.ktx2" }"#,
                files) == [])
        // ASTC HDR is KTX2 only and needs an HDR image.
        #expect(
            try Self.planErrors(
                #"{ "name": "p", "inputs": ["in/*.exr"], "stages": [], "texture": { "format": "astc-6x6-hdr" }, "output": "{file}.dds" }"#,
                files) == [
                    at
                        + "pipelines[0].texture.format: astc-6x6-hdr is KTX2 only: DDS cannot hold ASTC HDR (use a .ktx2 template)"
                ])
        #expect(
            try Self.planErrors(
                #"{ "name": "p", "inputs": ["in/*.png"], "stages": [], "texture": { "format": "astc-4x4-hdr" }, "output": "{file}.ktx2" }"#,
                files) == [
                    at
                        + "pipelines[0].texture.format: the image is LDR (a PNG or JPEG input, or after tonemap) and astc-4x4-hdr holds HDR images: write an 8/16-bit output, or start from an .exr or .hdr input (in/a.png)"
                ])
        // What HDR can do plans cleanly.
        #expect(
            try Self.planErrors(
                #"{ "name": "p", "inputs": ["in/*.exr"], "stages": [{ "stage": "flip", "axis": "both" }, { "stage": "mipmaps" }], "texture": { "format": "rgba16f" }, "output": "{file}.ktx2" }, { "name": "q", "inputs": ["in/*.exr"], "stages": [{ "stage": "tonemap", "exposure": -1 }], "output": "{file}.png" }"#,
                files) == [])
    }

    /// A FLIP gate on a BC6H output measures HDR-FLIP: the value recorded is the HDR-FLIP of the
    /// level in the file, decoded (BC6HTests hold the decoder to the references), against the
    /// image encoded.
    @Test func aFLIPGateOnAnHDROutputIsHDRFLIP() throws {
        let t = TempDir()
        var floats: [Float] = []
        for y in 0..<16 {
            for x in 0..<16 { floats += [Float(x) * 0.7 + 0.01, Float(y) * 0.05, Float(x ^ y) * 0.3, 1] }
        }
        t.write("in/sky.exr", try EXR.encode(Image(width: 16, height: 16, pixels: .rgbaF32(floats))))
        let plan = try t.plan(
            #"{ "version": 1, "output": "out", "pipelines": [ { "name": "p", "inputs": ["in/*.exr"], "stages": [], "output": "{file}.ktx2", "texture": { "format": "bc6h" }, "check": { "maxFLIP": 0.000001 } } ] }"#
        ).get()
        let r = Runner.run(plan, RunOptions(jobs: 1))[0]
        #expect(r.status == .failed)
        let flip = try #require(r.recorded[0].psnr?[0].flip)
        let file = try #require(KTX2File(Array(FileManager.default.contents(atPath: t.path + "/out/sky.ktx2")!)))
        let decoded = try TextureCodecs.decodeHDR(file.levelData(0), 16, 16, format: .bc6h)
        // The image encoded: the EXR's values as it stores them (half floats).
        guard
            case .rgbaF32(let stored) = try EXR.decode(
                Array(FileManager.default.contents(atPath: t.path + "/in/sky.exr")!)
            ).pixels
        else { throw CodecError("HDR") }
        let expected = Quality.hdrFLIP(stored, decoded, width: 16, height: 16).mean
        #expect(flip > 0 && abs(flip - expected) < 1e-9, "\(flip) against \(expected)")
        #expect(r.errorMessage?.contains("FLIP \(String(format: "%.4f", flip)) is over maxFLIP") == true)
    }

    @Test func aPipelineRunsHDRThroughToEveryOutput() throws {
        let t = TempDir()
        var floats: [Float] = []
        for y in 0..<4 { for x in 0..<8 { floats += [Float(x) * 4, Float(y), 0.5, 1] } }
        t.write("in/sky.exr", try EXR.encode(Image(width: 8, height: 4, pixels: .rgbaF32(floats))))
        let plan = try t.plan(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "exr", "inputs": ["in/*.exr"], "stages": [{ "stage": "flip", "axis": "vertical" }], "output": "{file}.exr" },
              { "name": "tex", "inputs": ["in/*.exr"], "stages": [{ "stage": "mipmaps", "filter": "box" }],
                "texture": { "format": "rgba16f" }, "output": "{file}.ktx2" },
              { "name": "ldr", "inputs": ["in/*.exr"], "stages": [{ "stage": "tonemap", "curve": "reinhard" }], "output": "{file}.png" } ] }
            """
        ).get()
        let results = Runner.run(plan, RunOptions(jobs: 2))
        #expect(results.allSatisfy { $0.status == .ok }, "\(results.map(\.error))")
        let exr = try ImageDecoder.decode(t.read("out/sky.exr"))
        #expect(exr.floatPixel(5, 0) == SIMD4(20, 3, 0.5, 1) && exr.floatPixel(2, 3) == SIMD4(8, 0, 0.5, 1))
        let ktx = try TextureFile(t.read("out/sky.ktx2"))
        #expect(ktx.levels.count == 4 && ktx.format == .rgba16f)
        // Level 1 of a box chain: each texel the mean of a 2×2 block — x 4·(2i + ½), y 2j + ½.
        let level1 = try ktx.level(1)
        #expect(level1.floatPixel(1, 1) == SIMD4(10, 2.5, 0.5, 1))
        let png = try ImageDecoder.decode(t.read("out/sky.png"))
        #expect(png.pixel(1, 0) == [Self.srgb8(4.0 / 5), 0, Self.srgb8(0.5 / 1.5), 255])
    }
}
