public import TexPipeParameters
public import TexPipePixels

/// `alpha-merge`: the grayscale map named by `alpha` becomes the alpha channel of the incoming
/// image (docs/stages.md). `alpha` is a path relative to the manifest's folder, with placeholders:
/// `"Samples/rock/{file%_diffuse}_alpha.png"`. The map's coverage is its Rec. 709 luma on the
/// stored values times its own alpha (for a gray map: its gray value), converted to the image's
/// depth. The map is a `Resource`: the planner fails the job when it is missing or of another size.
public struct AlphaMerge: Stage {
    public static let name = "alpha-merge"
    public static let summary = "makes a grayscale map (a path template) the alpha channel of the image"
    public static let identity = #"{"alpha": "opaque.png"}"#
    public static let parameters: [Parameter] = [
        Parameter(
            "alpha", .text, .required,
            doc: "path of the grayscale alpha map, relative to the manifest, placeholders allowed")
    ]

    /// Absolute path of the map.
    public var path: String

    public init(_ a: Arguments) { path = a.file("alpha") }
    public init(path: String) { self.path = path }

    public var reads: [Resource] { [.image(path: path, label: "alpha", sameSize: true)] }

    public func planned(_ input: Signature) throws -> [Signature] { [try input.drawnOn(by: Self.name)] }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        var map = try context.image(path, label: "alpha")
        guard map.width == image.width && map.height == image.height else {
            throw StageError(
                .mapSize(
                    label: "alpha", width: map.width, height: map.height, imageWidth: image.width,
                    imageHeight: image.height))
        }
        map = image.depth == 16 ? map.to16Bit() : map.to8Bit()
        var out = consume image
        switch (out.pixels, map.pixels) {
        case (.rgba8(var p), .rgba8(let m)):
            Self.merge(&p, m)
            out.pixels = .rgba8(p)
        case (.rgba16(var p), .rgba16(let m)):
            Self.merge(&p, m)
            out.pixels = .rgba16(p)
        default:
            preconditionFailure("depths were matched above")
        }
        out.layout = .rgba
        out.lossless = false
        return [out]
    }

    /// alpha = round(Y · a_map / max), Y = round((2126 R + 7152 G + 722 B) / 10000): exact for gray.
    static func merge<C: PixelChannel>(_ p: inout [C], _ m: [C]) {
        let max = C.maxValue
        p.withUnsafeMutableBufferPointer { p in
            m.withUnsafeBufferPointer { m in
                var i = 0
                while i < p.count {
                    let y = Rec709.luma(Int(m[i]), Int(m[i + 1]), Int(m[i + 2]))
                    p[i + 3] = C(truncatingIfNeeded: Rounding.mulDiv(y, Int(m[i + 3]), max: max))
                    i += 4
                }
            }
        }
    }
}
