public import TexPipeParameters
public import TexPipePixels

/// `alpha-split`: one straight RGBA image in, two out (docs/stages.md):
/// - `_diffuse`: the color, written as RGB without alpha, bled first (see `Bleed`) unless
///   `"bleed": false`, so a sampler never fetches the garbage that sat under alpha 0;
/// - `_alpha`: the alpha channel as an 8- or 16-bit grayscale map. A data map is never stored
///   lossy: when the output template ends in `.jpg`, the alpha map is written as `.png`.
/// `alpha-merge` is the inverse: split then merge gives back the alpha exactly and the RGB
/// wherever alpha > 0.
public struct AlphaSplit: Stage {
    public static let name = "alpha-split"
    public static let summary = "splits RGBA into an RGB diffuse map (_diffuse) and a grayscale alpha map (_alpha)"
    public static let identity = #"{}"#
    public static let parameters: [Parameter] = [
        .boolean("bleed", default: true, doc: "bleed the diffuse map's color under transparent pixels")
    ]

    public var bleed: Bool

    public init(_ a: Arguments) { bleed = a.boolean("bleed") }
    /// The table's default when not given.
    public init(bleed: Bool? = nil) { self.init(.defaults(of: Self.parameters, ["bleed": bleed.map { .boolean($0) }])) }

    public func planned(_ input: Signature) throws -> [Signature] {
        try input.requireAlpha(.straight, for: Self.name)
        var diffuse = input
        diffuse.layout = .rgb
        diffuse.suffix += "_diffuse"
        var alpha = input
        alpha.layout = .gray
        alpha.suffix += "_alpha"
        alpha.lossless = true
        return [diffuse, alpha]
    }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        var diffuse = bleed ? Bleed().bled(image).image : image
        diffuse.runInBands(AlphaToMax(), on: context.rows)
        diffuse.layout = .rgb
        diffuse.suffix += "_diffuse"
        var alpha = image
        alpha.runInBands(AlphaToGray(), on: context.rows)
        alpha.layout = .gray
        alpha.suffix += "_alpha"
        alpha.lossless = true
        return [diffuse, alpha]
    }

    struct AlphaToMax: InPlaceKernel {
        func run<C: PixelChannel>(_ p: UnsafeMutableBufferPointer<C>, width: Int, height: Int) {
            let max = C(truncatingIfNeeded: C.maxValue)
            var i = 3
            while i < p.count {
                p[i] = max
                i += 4
            }
        }
    }

    struct AlphaToGray: InPlaceKernel {
        func run<C: PixelChannel>(_ p: UnsafeMutableBufferPointer<C>, width: Int, height: Int) {
            let max = C(truncatingIfNeeded: C.maxValue)
            var i = 0
            while i < p.count {
                let a = p[i + 3]
                p[i] = a; p[i + 1] = a; p[i + 2] = a; p[i + 3] = max
                i += 4
            }
        }
    }
}
