/// A GPU texture file's container.
public enum TextureContainer: String, Sendable, CaseIterable, Hashable {
    case ktx2, dds

    /// As messages and `inspect` name it: "KTX2", "DDS".
    public var name: String { rawValue.uppercased() }
}

/// What a file is: an image texpipe reads and writes, or a GPU texture it writes. The one
/// mapping from a file name's extension to a kind is `init(path:)`.
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

    /// "PNG", "JPEG", "EXR", "Radiance HDR", "KTX2", "DDS".
    public var name: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .exr: "EXR"
        case .radiance: "Radiance HDR"
        case .texture(let c): c.name
        }
    }

    /// Whether its images are HDR (linear-light Float).
    public var isHDR: Bool { self == .exr || self == .radiance }

    /// Whether texpipe writes it (Radiance is read only).
    public var isWritable: Bool { self != .radiance }

    /// The container, for a GPU texture.
    public var container: TextureContainer? {
        if case .texture(let c) = self { return c }
        return nil
    }

    /// Every extension texpipe knows, lowercase, and its kind.
    public static let extensions: [(String, ImageFormat)] = [
        ("png", .png), ("jpg", .jpeg), ("jpeg", .jpeg), ("exr", .exr), ("hdr", .radiance), ("ktx2", .ktx2),
        ("dds", .dds),
    ]

    /// ".png, .jpg, .jpeg, .exr, .ktx2 or .dds": every extension an output may end in, for messages
    /// and the schema.
    public static var extensionList: String {
        let all = extensions.filter { $0.1.isWritable }.map { "." + $0.0 }
        return all.dropLast().joined(separator: ", ") + " or " + all.last!
    }

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
        guard let kind = Self.extensions.first(where: { $0.0 == ext })?.1 else { return nil }
        self = kind
    }
}
