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
