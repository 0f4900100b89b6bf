internal import Foundation

/// `alpha-merge`: the grayscale map named by `alpha` becomes the alpha channel of the incoming
/// image (SPEC §3). `alpha` is a path relative to the manifest's folder, with placeholders:
/// `"Samples/rock/{file%_diffuse}_alpha.png"`. The map's coverage is its Rec. 709 luma on the
/// stored values times its own alpha (for a gray map: its gray value), converted to the image's
/// depth. A missing map or a size mismatch fails the job, naming both files.
public struct AlphaMerge: Stage {
    public static let name = "alpha-merge"
    public static let summary = "makes a grayscale map (a path template) the alpha channel of the image"
    public static let parameters: [Parameter] = [
        Parameter(
            "alpha", .text, .required,
            doc: "path of the grayscale alpha map, relative to the manifest, placeholders allowed")
    ]

    /// Absolute path of the map.
    public var path: String

    public init(_ a: Arguments) { path = a.file("alpha") }
    public init(path: String) { self.path = path }

    var shownPath: String { Planner.display(path) }
    public var reads: [String] { [path] }

    public func planned(_ input: Signature) throws -> [Signature] {
        try input.requireAlpha(.straight, for: Self.name)
        if let w = input.width, let h = input.height {
            guard case .success(let data) = FileReader.read(path) else {
                throw StageError("cannot read the alpha map \(shownPath)")
            }
            let header = try Decoder.header(data, path: path)
            try checkSize(header.width, header.height, w, h)
        }
        var out = input
        out.layout = .rgba
        out.lossless = false
        return [out]
    }

    func checkSize(_ mw: Int, _ mh: Int, _ w: Int, _ h: Int) throws {
        guard mw == w && mh == h else {
            throw StageError("the alpha map \(shownPath) is \(mw)×\(mh) but the image is \(w)×\(h)")
        }
    }

    public func applied(to image: Image) throws -> [Image] {
        var context = StageContext()
        return try applied(to: image, context: &context)
    }

    public func applied(to image: Image, context: inout StageContext) throws -> [Image] {
        guard case .success(let data) = FileReader.read(path) else {
            throw StageError("cannot read the alpha map \(shownPath)")
        }
        var map: Image
        do {
            map = try Decoder.decode(data, path: path, maxPixels: context.maxPixels)
        } catch {
            throw StageError("the alpha map \(shownPath): \(error)")
        }
        try checkSize(map.width, map.height, image.width, image.height)
        map = image.depth == 16 ? map.to16Bit() : map.to8Bit()
        var out = image
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
                    let y = (2126 * Int(m[i]) + 7152 * Int(m[i + 1]) + 722 * Int(m[i + 2]) + 5000) / 10000
                    p[i + 3] = C(truncatingIfNeeded: Rounding.mulDiv(y, Int(m[i + 3]), max: max))
                    i += 4
                }
            }
        }
    }
}
