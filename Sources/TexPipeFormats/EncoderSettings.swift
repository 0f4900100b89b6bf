public import TexPipePixels

/// The pipeline's `png` settings (docs/manifest.md). Their parameter table, which the manifest validates,
/// is `TexPipeManifest`'s `OutputSettings.swift`.
public struct PNGSettings: Sendable, Hashable {
    public enum Filter: String, Sendable, CaseIterable { case adaptive, none, sub, up, average, paeth }
    /// `rgba` keeps RGBA (or RGB/gray where a stage makes those); `auto` writes the smallest
    /// lossless color type.
    public enum ColorType: String, Sendable, CaseIterable { case rgba, auto }
    public enum Writer: String, Sendable, CaseIterable { case texpipe, libpng }

    public var level: Int
    public var encoder: Writer
    public var filter: Filter
    public var color: ColorType
    /// Bits per channel written; nil: as decoded.
    public var depth: Int?

    public init(level: Int, encoder: Writer, filter: Filter, color: ColorType, depth: Int?) {
        self.level = level
        self.encoder = encoder
        self.filter = filter
        self.color = color
        self.depth = depth
    }

    /// The defaults, declared once: the manifest's table takes its defaults from here.
    public static let standard = PNGSettings(level: 6, encoder: .texpipe, filter: .adaptive, color: .auto, depth: nil)
}

/// The pipeline's `jpeg` settings (docs/manifest.md); their table is in `TexPipeManifest`.
public struct JPEGSettings: Sendable, Hashable {
    public var quality: Int
    public var progressive: Bool
    /// Background composited under non-opaque pixels; nil: such an image is an error.
    public var flatten: Color?

    public init(quality: Int, progressive: Bool, flatten: Color?) {
        self.quality = quality
        self.progressive = progressive
        self.flatten = flatten
    }

    /// The defaults, declared once: the manifest's table takes its defaults from here.
    public static let standard = JPEGSettings(quality: 90, progressive: false, flatten: nil)
}
