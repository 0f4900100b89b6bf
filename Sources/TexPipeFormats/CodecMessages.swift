public import TexPipeParameters

/// A codec failure: one line, already worded for the user ("not a PNG file (bad signature)").
public struct CodecError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The wording of every codec error texpipe phrases itself, in one place (STYLE 10). Messages
/// from libpng, libjpeg-turbo and FreeType pass through as those libraries word them
/// (`.library`), so a damaged file gets the same words whichever reader saw it.
public enum CodecMessage: Sendable, Equatable, CustomStringConvertible {
    case emptyFile
    case badSignature(expected: String)
    case zeroSize
    case overPixelLimit(width: UInt64, height: UInt64, limit: Int)
    case library(String)
    case encoderFailed(format: String, why: String)
    case pngCompressorUnavailable(level: Int)
    case jpegNeedsOpaque
    case fontFileMissing(spec: String)
    case fontMissing(spec: String, why: String)
    case cannotRead(why: String)
    case notRegularFile
    case cannotAllocateToRead(mib: Int)
    case overLimitCached
    case textureWithoutLevels
    case notBlockCompressed(String)
    /// A texture setting the output or the image cannot take (`TextureSettings.problems`).
    case settings(SettingsProblem)
    case textureTruncated(String)
    case astc(String)
    case zstd(String)
    case textureInput(String)
    case needsOpaque(String, Int, Int, Int)
    case truncatedHeader(String)
    case unknownTextureFormat(String, UInt32)
    case truncatedLevelIndex
    case levelPastTheEnd(String, Int)
    case notATexture
    case corruptZstdLevel(Int)
    case levelWrongSize(Int)
    case textureZeroSize(String)
    case textureShape(String)
    case tooManyLevels(Int, Int, Int, Int)
    case unknownSupercompression(UInt32)
    /// A BasisLZ/ETC1S structure problem, already worded ("BasisLZ: data ends early").
    case basisLZ(String)
    case badDFD(Int, Int)
    case rangePastTheEnd(String)
    case levelSize(Int, Int, Int)
    case levelLengths(Int, Int, Int)
    case levelOverlaps(Int)
    case ddsWithoutDX10
    case radiance(String)
    /// A `.cube` LUT problem at a line (nil: the file as a whole), already worded.
    case cubeLUT(line: Int?, String)
    case hdrFormatNeedsHDR(String)
    case ldrFormatGotHDR(String)
    case notWritable(String)
    /// An AVIF's colour that texpipe neither reads as sRGB nor converts, already worded.
    case unsupportedColor(String)
    /// An animation (a WebP, an AVIF sequence): only its first frame is read.
    case firstFrame(String, frames: Int)

    public var description: String {
        switch self {
        case .emptyFile: "empty file"
        case .badSignature(let expected): "not a \(expected) file (bad signature)"
        case .zeroSize: "zero image size"
        case .overPixelLimit(let w, let h, let limit):
            "image is \(w)x\(h) (\(w * h) pixels), over the limit of \(limit) (--max-pixels)"
        case .library(let text): text.isEmpty ? "unknown decoder error" : text
        case .encoderFailed(let format, let why): "\(format) encoder: \(why)"
        case .pngCompressorUnavailable(let level): "PNG encoder: cannot allocate a level \(level) compressor"
        case .jpegNeedsOpaque:
            "JPEG has no alpha but the image has pixels with alpha below max; set \"jpeg\": {\"flatten\": …} or write a .png"
        case .fontFileMissing(let spec): "font file \"\(spec)\" not found"
        case .fontMissing(let spec, let why): "font \"\(spec)\" not found: \(why); run `fc-list` to see installed fonts"
        case .cannotRead(let why): "cannot read the file (\(why))"
        case .notRegularFile: "not a regular file"
        case .cannotAllocateToRead(let mib):
            "cannot allocate \(mib) MiB to read the file under the process's memory limit"
        case .overLimitCached: "over the pixel limit"
        case .textureWithoutLevels: "texture encoder: no image"
        case .notBlockCompressed(let f):
            "texture format \(f) is not one of texpipe's own block encoders' formats (BC, ETC2/EAC)"
        case .settings(let problem): problem.message
        case .textureTruncated(let f): "\(f) level data is shorter than its blocks"
        case .astc(let why): why
        case .zstd(let why): "zstd: \(why)"
        case .needsOpaque(let format, let n, let w, let h):
            "\(format) holds no alpha: \(n) of the \(w)×\(h) texels have alpha below max (use \(format.hasPrefix("etc") ? "etc2-rgba" : "bc3 or bc7"), or flatten first)"
        case .truncatedHeader(let container): "truncated \(container) header"
        case .unknownTextureFormat(let field, let code): "\(field) \(code) is not one texpipe writes"
        case .truncatedLevelIndex: "truncated KTX2 level index"
        case .levelPastTheEnd(let container, let n): "\(container) level \(n) past the end"
        case .notATexture: "not a KTX2 or DDS file texpipe can read"
        case .corruptZstdLevel(let n): "level \(n): corrupt zstd frame"
        case .levelWrongSize(let n): "level \(n): wrong size"
        case .textureZeroSize(let container): "\(container) image of zero width or height"
        case .textureShape(let what):
            "\(what) is not a texture shape texpipe reads (2D: a texture, an array, or one cube map)"
        case .tooManyLevels(let n, let w, let h, let most):
            "\(n) levels for \(w)×\(h): at most \(most) (⌊log2 of the larger side⌋ + 1)"
        case .unknownSupercompression(let scheme):
            "KTX2 supercompressionScheme \(scheme) is not one texpipe reads (0 none, 1 BasisLZ with ETC1S, 2 zstd)"
        case .basisLZ(let what): what
        case .badDFD(let offset, let length):
            "KTX2 data format descriptor at \(offset), \(length) bytes, is not a valid one (past the end, before the level index, or its total size disagrees)"
        case .rangePastTheEnd(let what): "\(what) past the end of the file"
        case .levelSize(let n, let found, let expected):
            "KTX2 level \(n) holds \(found) bytes of blocks; its format and size need \(expected)"
        case .levelLengths(let n, let stored, let raw):
            "KTX2 level \(n): byteLength \(stored) and uncompressedByteLength \(raw) differ without supercompression"
        case .levelOverlaps(let n): "KTX2 level \(n) overlaps another level or the header"
        case .ddsWithoutDX10: "DDS without a DX10 header is not one texpipe reads"
        case .radiance(let why): "Radiance HDR: \(why)"
        case .cubeLUT(let line, let why): "Cube LUT" + (line.map { " line \($0)" } ?? "") + ": \(why)"
        case .hdrFormatNeedsHDR(let f): RangeRule.ldrImage(into: f)
        case .ldrFormatGotHDR(let f): RangeRule.hdrImage(into: f)
        case .notWritable(let f): "texpipe reads \(f) files but does not write them (write an .exr)"
        case .unsupportedColor(let what):
            "AVIF colour with \(what) is not one texpipe reads: it reads SDR AVIF (BT.709/sRGB, BT.601, BT.2020 or Display P3 primaries; sRGB, BT.709, gamma 2.2/2.8 or linear transfer)"
        case .firstFrame(let kind, let frames): "an animated \(kind) of \(frames) frames: texpipe reads its first frame"
        case .textureInput(let kind): "\(kind) files are outputs only: texpipe does not read them as inputs"
        }
    }
}

extension CodecError {
    public init(_ message: CodecMessage) { self.init(message.description) }
}

/// The rule that an HDR image goes only into what holds HDR (`.exr`, an HDR texture format) and an
/// 8/16-bit image only into what holds 8/16-bit images (docs/hdr.md), worded once: the manifest, the
/// planner and the writers all say it with these words.
public enum RangeRule {
    /// An HDR image into `what` (a format or file kind) that holds 8/16-bit images.
    public static func hdrImage(into what: String) -> String {
        "the image is HDR (an .exr or .hdr input) and \(what) holds 8/16-bit images: add a \"tonemap\" stage, "
            + "or write an .exr or a texture in \(TextureSettings.Format.hdrNames)"
    }

    /// An 8/16-bit image into `what` (a format or file kind) that holds HDR images.
    public static func ldrImage(into what: String) -> String {
        "the image is LDR (a PNG or JPEG input, or after tonemap) and \(what) holds HDR images: "
            + "write an 8/16-bit output, or start from an .exr or .hdr input"
    }
}
