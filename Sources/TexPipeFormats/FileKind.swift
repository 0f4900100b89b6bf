/// Every kind of file texpipe reads or writes, one row each (docs/ARCHITECTURE.md "Where a new piece
/// goes"): its name, its extensions, how its first bytes are recognised, what it holds and whether
/// texpipe writes it. The extension of a path, the signature of a file's bytes, an output template's
/// list of extensions, and which job, reader, preview and `inspect` a file gets are all read from
/// here; what a kind holds (`Holds`) is what the layers above switch over, so a new kind of image
/// touches its row and its codec, not the planner or the reports.
public enum FileKind: String, Sendable, CaseIterable, Hashable {
    case png, jpeg, webp, avif, exr, radiance, ktx2, dds, cube, gltf, glb

    /// What a file of the kind holds: an image (8/16-bit or HDR), a GPU texture in a container, a
    /// 3D colour-grading LUT or a glTF model.
    public enum Holds: Sendable, Hashable {
        case image
        case hdrImage
        case texture(TextureContainer)
        case lut
        case model(binary: Bool)
    }

    public struct Row: Sendable {
        /// As messages and `inspect` name it: "PNG", "Radiance HDR".
        public let name: String
        /// Lowercase, without the dot; the first is the one texpipe writes.
        public let extensions: [String]
        public let holds: Holds
        /// Whether an output template may end in one of its extensions.
        public let writable: Bool
        /// Whether the file's first bytes say it is one (the extension is never trusted for
        /// contents); nil: a text format recognised by its extension only.
        public let probe: (@Sendable ([UInt8]) -> Bool)?
        /// It stores an image's pixels inexactly (JPEG): what is written is decoded back and
        /// measured, as block formats are.
        public var lossy = false
        /// Its readers take straight alpha (WebP, AVIF: browsers): a premultiplied image is
        /// unpremultiplied before it is written, and the log says so.
        public var straightAlpha = false
    }

    /// The kind's row.
    public var row: Row {
        switch self {
        case .png:
            Row(name: "PNG", extensions: ["png"], holds: .image, writable: true, probe: Self.starts(Self.pngSignature))
        case .jpeg:
            Row(
                name: "JPEG", extensions: ["jpg", "jpeg"], holds: .image, writable: true,
                probe: Self.starts([0xFF, 0xD8, 0xFF]), lossy: true)
        case .webp:
            // RIFF, a size, WEBP. A lossless WebP is lossy's kind too: what is written is decoded
            // back and measured (and measures exact).
            Row(
                name: "WebP", extensions: ["webp"], holds: .image, writable: true,
                probe: { b in
                    b.count >= 12 && b.starts(with: Array("RIFF".utf8)) && Array(b[8..<12]) == Array("WEBP".utf8)
                },
                lossy: true, straightAlpha: true)
        case .avif:
            Row(
                name: "AVIF", extensions: ["avif"], holds: .image, writable: true, probe: Self.isAVIF, lossy: true,
                straightAlpha: true)
        case .exr:
            Row(
                name: "EXR", extensions: ["exr"], holds: .hdrImage, writable: true,
                probe: Self.starts([0x76, 0x2F, 0x31, 0x01]))
        case .radiance:
            // "#?RADIANCE", "#?RGBE", or any "#?" program name on a first line.
            Row(
                name: "Radiance HDR", extensions: ["hdr"], holds: .hdrImage, writable: false,
                probe: { b in
                    b.starts(with: Array("#?RADIANCE".utf8)) || b.starts(with: Array("#?RGBE".utf8))
                        || (b.count > 2 && b[0] == 0x23 && b[1] == 0x3F && b.prefix(64).contains(0x0A))
                })
        case .ktx2:
            Row(
                name: "KTX2", extensions: ["ktx2"], holds: .texture(.ktx2), writable: true,
                probe: Self.starts(Self.ktx2Signature))
        case .dds:
            Row(
                name: "DDS", extensions: ["dds"], holds: .texture(.dds), writable: true,
                probe: Self.starts(Array("DDS ".utf8)))
        case .cube:
            Row(name: "Cube LUT", extensions: ["cube"], holds: .lut, writable: false, probe: nil)
        case .gltf:
            Row(name: "glTF", extensions: ["gltf"], holds: .model(binary: false), writable: true, probe: nil)
        case .glb:
            Row(
                name: "GLB", extensions: ["glb"], holds: .model(binary: true), writable: true,
                probe: Self.starts(Array("glTF".utf8)))
        }
    }

    /// PNG's eight signature bytes.
    public static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// KTX 2.0's twelve identifier bytes: «KTX 20»\r\n\x1A\n.
    public static let ktx2Signature: [UInt8] = [0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A]

    /// An ISO BMFF file whose `ftyp` box names the `avif` or `avis` brand (major or compatible).
    static func isAVIF(_ b: [UInt8]) -> Bool {
        guard b.count >= 16, Array(b[4..<8]) == Array("ftyp".utf8) else { return false }
        let size = min(b.count, Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3]))
        let brands = [Array("avif".utf8), Array("avis".utf8)]
        var at = 8
        while at + 4 <= size {
            if brands.contains(Array(b[at..<(at + 4)])) { return true }
            at += at == 8 ? 8 : 4  // the major brand, then the minor version skipped, then each compatible brand
        }
        return false
    }

    static func starts(_ signature: [UInt8]) -> @Sendable ([UInt8]) -> Bool { { $0.starts(with: signature) } }

    /// The kind a path's extension names (case-insensitive); nil for any other extension.
    public init?(path: String) {
        // Only the extension is lowercased and compared: the planner asks this of every output
        // (lowercasing whole paths, and Foundation's substring search, were a tenth of planning
        // 20,000 sprites).
        let bytes = path.utf8
        guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        let tail = bytes[bytes.index(after: dot)...]
        guard !tail.contains(UInt8(ascii: "/")) else { return nil }
        let ext = String(decoding: tail, as: UTF8.self).lowercased()
        guard let kind = Self.byExtension[ext] else { return nil }
        self = kind
    }

    static let byExtension: [String: FileKind] = Dictionary(
        uniqueKeysWithValues: allCases.flatMap { k in k.row.extensions.map { ($0, k) } })

    /// The kind a file's first bytes say it is; nil when no row's probe recognises them.
    public static func sniff(_ bytes: [UInt8]) -> FileKind? {
        allCases.first { $0.row.probe?(bytes) ?? false }
    }

    /// The kind of a file, for `inspect` and the previews: its extension's when that kind is text
    /// and has no signature (`.cube`, `.gltf`), else what its first bytes say, else its extension's.
    public static func of(_ bytes: [UInt8], path: String) -> FileKind? {
        if let named = FileKind(path: path), named.row.probe == nil { return named }
        return sniff(bytes) ?? FileKind(path: path)
    }

    /// The image or texture format of the kind's files (nil: a LUT or a model).
    public var imageFormat: ImageFormat? {
        switch self {
        case .png: .png
        case .jpeg: .jpeg
        case .webp: .webp
        case .avif: .avif
        case .exr: .exr
        case .radiance: .radiance
        case .ktx2: .ktx2
        case .dds: .dds
        case .cube, .gltf, .glb: nil
        }
    }

    /// ".png, .jpg, .jpeg, .exr, .ktx2 or .dds": every extension an image output may end in, for
    /// messages and the schema.
    public static var imageExtensionList: String {
        let all = allCases.filter { $0.row.writable && $0.imageFormat != nil }.flatMap(\.row.extensions).map {
            "." + $0
        }
        return all.dropLast().joined(separator: ", ") + " or " + all.last!
    }
}

/// A GPU texture file's container.
public enum TextureContainer: String, Sendable, CaseIterable, Hashable {
    case ktx2, dds

    /// As messages and `inspect` name it: "KTX2", "DDS".
    public var name: String { rawValue.uppercased() }
}

/// What an image or texture file is: an image texpipe reads and writes, or a GPU texture it writes.
/// Its name, extensions and signature are its `FileKind`'s row (`FileKind.swift`).
public enum ImageFormat: Sendable, Hashable {
    case png
    case jpeg
    /// WebP (libwebp): lossy or lossless, read and written.
    case webp
    /// AVIF (libavif): 8/10/12-bit, read and written.
    case avif
    /// OpenEXR: HDR, read and written (half float, ZIP). docs/hdr.md.
    case exr
    /// Radiance RGBE (`.hdr`): HDR, read only.
    case radiance
    /// GPU textures: outputs only (and `inspect`).
    case texture(TextureContainer)

    public static let ktx2 = ImageFormat.texture(.ktx2)
    public static let dds = ImageFormat.texture(.dds)

    /// The file kind of the format's files.
    public var kind: FileKind {
        switch self {
        case .png: .png
        case .jpeg: .jpeg
        case .webp: .webp
        case .avif: .avif
        case .exr: .exr
        case .radiance: .radiance
        case .texture(.ktx2): .ktx2
        case .texture(.dds): .dds
        }
    }

    /// "PNG", "JPEG", "EXR", "Radiance HDR", "KTX2", "DDS".
    public var name: String { kind.row.name }

    /// Whether its images are HDR (linear-light Float).
    public var isHDR: Bool { kind.row.holds == .hdrImage }

    /// Whether texpipe writes it (Radiance is read only).
    public var isWritable: Bool { kind.row.writable }

    /// The container, for a GPU texture.
    public var container: TextureContainer? {
        if case .texture(let c) = self { return c }
        return nil
    }

    /// ".png, .jpg, .jpeg, .exr, .ktx2 or .dds": every extension an output may end in, for messages
    /// and the schema.
    public static var extensionList: String { FileKind.imageExtensionList }

    /// The image or texture format a path's extension names (case-insensitive); nil for any other
    /// extension (and for LUTs and models).
    public init?(path: String) {
        guard let format = FileKind(path: path)?.imageFormat else { return nil }
        self = format
    }

    /// Sniffs the signature; the file name's extension is never trusted.
    public static func sniff(_ bytes: [UInt8]) -> ImageFormat? { FileKind.sniff(bytes)?.imageFormat }
}
