/// How an image's color channels relate to its alpha. docs/manifest.md.
public enum AlphaState: String, Sendable, Hashable, CaseIterable {
    /// Colors are independent of alpha (what PNG files normally hold).
    case straight
    /// Colors are already multiplied by alpha.
    case premultiplied
}

/// Which channels an image carries when it is written. Inside, every image is RGBA;
/// stages that produce maps (alpha-split) mark theirs as `rgb` or `gray`.
public enum ChannelLayout: String, Sendable, Hashable {
    case rgba, rgb, gray
}

/// Pixel storage: interleaved RGBA, 8 or 16 bits per channel, or linear-light Float for HDR
/// images (EXR, Radiance), rows top to bottom, no padding. docs/manifest.md "one pixel format
/// inside" (STYLE 5); docs/hdr.md for HDR.
public enum PixelStorage: Sendable, Equatable {
    case rgba8([UInt8])
    case rgba16([UInt16])
    /// HDR: linear light, never clamped (values above 1 are the point). Depth 32.
    case rgbaF32([Float])

    public var depth: Int {
        switch self {
        case .rgba8: 8
        case .rgba16: 16
        case .rgbaF32: 32
        }
    }

    /// An HDR image's storage.
    public var isHDR: Bool { depth == 32 }
}

/// An image in flight: size, RGBA pixels, alpha state and the labels that name it.
public struct Image: Sendable, Equatable {
    /// `--max-pixels`' default (docs/guarantees.md): decoders refuse larger images before allocating.
    public static let defaultMaxPixels = 1 << 28

    public var width: Int
    public var height: Int
    public var pixels: PixelStorage
    public var alpha: AlphaState
    public var layout: ChannelLayout
    /// Accumulated stage suffixes (`_diffuse`, `_mip3`): the `{suffix}` placeholder.
    public var suffix: String
    /// Extra placeholder values a stage attaches (`level`).
    public var labels: [String: String]
    /// A data map (alpha-split's `_alpha`) that must be stored losslessly: written as PNG
    /// even when the output template ends in `.jpg`.
    public var lossless = false
    /// Level n of a GPU texture's mip chain (`mipmaps` with `layout: "texture"`): level 0 starts
    /// a texture and the levels after it go into the same file. nil: an image of its own.
    public var textureLevel: Int?
    /// A cube map (`cubemap`'s output): six square faces stacked top to bottom in the order +X, −X,
    /// +Y, −Y, +Z, −Z, each face `width` × `width` (so `height` is 6 · `width`). docs/hdr.md.
    public var cube = false
    /// Files a stage made beside the image (`irradiance`'s `_sh.json`), by the suffix that names them
    /// next to the image's output; the engine writes them.
    public var sidecars: [String: [UInt8]] = [:]

    public init(
        width: Int, height: Int, pixels: PixelStorage, alpha: AlphaState = .straight,
        layout: ChannelLayout = .rgba, suffix: String = "", labels: [String: String] = [:]
    ) {
        precondition(width > 0 && height > 0, "image sizes are positive")
        switch pixels {
        case .rgba8(let p): precondition(p.count == width * height * 4, "rgba8 buffer size")
        case .rgba16(let p): precondition(p.count == width * height * 4, "rgba16 buffer size")
        case .rgbaF32(let p): precondition(p.count == width * height * 4, "rgbaF32 buffer size")
        }
        self.width = width
        self.height = height
        self.pixels = pixels
        self.alpha = alpha
        self.layout = layout
        self.suffix = suffix
        self.labels = labels
    }

    /// A transparent (all-zero) image.
    public init(width: Int, height: Int, depth: Int, alpha: AlphaState = .straight) {
        let count = width * height * 4
        self.init(
            width: width, height: height,
            pixels: depth == 32
                ? .rgbaF32([Float](repeating: 0, count: count))
                : depth == 16
                    ? .rgba16([UInt16](repeating: 0, count: count))
                    : .rgba8([UInt8](repeating: 0, count: count)),
            alpha: alpha)
    }

    public var depth: Int { pixels.depth }
    /// An HDR image (linear-light Float RGBA).
    public var isHDR: Bool { pixels.isHDR }
    public var pixelCount: Int { width * height }

    /// The same labels and state around new pixels of another size.
    public func with(width: Int, height: Int, pixels: PixelStorage) -> Image {
        var out = Image(
            width: width, height: height, pixels: pixels, alpha: alpha, layout: layout,
            suffix: suffix, labels: labels)
        out.lossless = lossless
        out.cube = cube
        out.sidecars = sidecars
        return out
    }

    /// A cube map's faces in order (+X, −X, +Y, −Y, +Z, −Z), each `width` × `width`.
    public func cubeFaces() -> [Image] {
        precondition(cube && height == 6 * width, "not a cube map")
        let face = width * width * 4
        return (0..<6).map { f in
            var one: Image
            switch pixels {
            case .rgba8(let p):
                one = with(width: width, height: width, pixels: .rgba8(Array(p[(f * face)..<((f + 1) * face)])))
            case .rgba16(let p):
                one = with(width: width, height: width, pixels: .rgba16(Array(p[(f * face)..<((f + 1) * face)])))
            case .rgbaF32(let p):
                one = with(width: width, height: width, pixels: .rgbaF32(Array(p[(f * face)..<((f + 1) * face)])))
            }
            one.cube = false
            return one
        }
    }

    /// Six square faces of one size and depth stacked into a cube map with this image's labels.
    public func stackingFaces(_ faces: [Image]) -> Image {
        precondition(faces.count == 6 && faces.allSatisfy { $0.width == faces[0].width && $0.height == faces[0].width })
        var storage = faces[0].pixels
        for face in faces.dropFirst() {
            switch (storage, face.pixels) {
            case (.rgba8(var a), .rgba8(let b)):
                storage = .rgba8([])
                a += b
                storage = .rgba8(a)
            case (.rgba16(var a), .rgba16(let b)):
                storage = .rgba8([])
                a += b
                storage = .rgba16(a)
            case (.rgbaF32(var a), .rgbaF32(let b)):
                storage = .rgba8([])
                a += b
                storage = .rgbaF32(a)
            default: preconditionFailure("cube faces of one depth")
            }
        }
        var out = with(width: faces[0].width, height: 6 * faces[0].width, pixels: storage)
        out.cube = true
        out.alpha = faces[0].alpha
        return out
    }

    /// Pixel (x, y) as 4 channel values, for tests and inspection (not for kernels). An HDR
    /// image's values are given in 1/65535 (rounded): `floatPixel` has them exactly.
    public func pixel(_ x: Int, _ y: Int) -> [Int] {
        let i = (y * width + x) * 4
        switch pixels {
        case .rgba8(let p): return (0..<4).map { Int(p[i + $0]) }
        case .rgba16(let p): return (0..<4).map { Int(p[i + $0]) }
        case .rgbaF32(let p): return (0..<4).map { Int((Double(p[i + $0]) * 65535).rounded()) }
        }
    }

    /// Pixel (x, y) as Float: an HDR image's values, or an 8/16-bit image's as fractions of max.
    public func floatPixel(_ x: Int, _ y: Int) -> SIMD4<Float> {
        let i = (y * width + x) * 4
        switch pixels {
        case .rgba8(let p): return SIMD4(Float(p[i]), Float(p[i + 1]), Float(p[i + 2]), Float(p[i + 3])) / 255
        case .rgba16(let p): return SIMD4(Float(p[i]), Float(p[i + 1]), Float(p[i + 2]), Float(p[i + 3])) / 65535
        case .rgbaF32(let p): return SIMD4(p[i], p[i + 1], p[i + 2], p[i + 3])
        }
    }
}

/// A channel type kernels are generic over: UInt8 or UInt16.
/// Specialised by the optimiser, so kernels pay no dynamic dispatch per pixel.
public protocol PixelChannel: FixedWidthInteger & UnsignedInteger & Sendable {
    static var maxValue: Int { get }
}

extension UInt8: PixelChannel {
    @inlinable public static var maxValue: Int { 255 }
}

extension UInt16: PixelChannel {
    @inlinable public static var maxValue: Int { 65535 }
}

/// An HDR image's Float bit patterns, for the kernels that only move pixels (flip, crop, pad,
/// quarter turns): moving the 32-bit patterns moves the Floats exactly.
extension UInt32: PixelChannel {
    @inlinable public static var maxValue: Int { Int(UInt32.max) }
}

extension PixelStorage {
    /// Runs a kernel over the storage, mutating in place, specialised per depth. Only for 8/16-bit
    /// kernels: the planner lets no stage without HDR support see an HDR image (docs/hdr.md).
    @inlinable
    package mutating func modify(
        _ body8: (inout [UInt8]) throws -> Void, _ body16: (inout [UInt16]) throws -> Void
    ) rethrows {
        switch self {
        case .rgba8(var p):
            self = .rgba8([])
            try body8(&p)
            self = .rgba8(p)
        case .rgba16(var p):
            self = .rgba16([])
            try body16(&p)
            self = .rgba16(p)
        case .rgbaF32:
            preconditionFailure("an 8/16-bit kernel on an HDR image: the planner admits only HDR stages")
        }
    }

    /// Runs a pixel move (a kernel that copies whole pixels and computes nothing) over an HDR
    /// image's Float bit patterns, as 32-bit channels.
    @inlinable
    package mutating func modifyFloatBits(_ body: (UnsafeMutableBufferPointer<UInt32>) -> Void) {
        guard case .rgbaF32(var p) = self else { preconditionFailure("not an HDR image") }
        self = .rgba8([])
        p.withUnsafeMutableBufferPointer { b in
            b.withMemoryRebound(to: UInt32.self) { body($0) }
        }
        self = .rgbaF32(p)
    }
}
