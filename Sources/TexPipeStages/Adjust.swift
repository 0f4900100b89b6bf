internal import Foundation
public import TexPipeParameters
public import TexPipePixels

/// `adjust`: HSV hue / saturation / brightness, then contrast, then gamma, on colors in 0…1.
/// docs/stages.md. Per pixel (straight colors; a premultiplied image is adjusted on c' / a and
/// multiplied back):
///   (h, s, v) = HSV(r, g, b);  h += hue (mod 360);  s = clamp(s · saturation);  v = clamp(v · brightness)
///   c = clamp((c − ½) · contrast + ½)
///   c = c ^ gamma
/// rounded half up to the image's depth. Alpha is unchanged.
public struct Adjust: Stage {
    public static let name = "adjust"
    public static let summary = "HSV hue/saturation/brightness, contrast and gamma; alpha unchanged"
    public static let identity = #"{"hue": 360}"#
    public static let parameters: [Parameter] = [
        .number("hue", in: -360...360, default: 0, doc: "degrees added to the HSV hue"),
        .number("saturation", in: 0...16, default: 1, doc: "factor on HSV saturation"),
        .number("brightness", in: 0...16, default: 1, doc: "factor on HSV value"),
        .number("contrast", in: 0...16, default: 1, doc: "factor around mid-gray: (c − ½) · k + ½"),
        .number("gamma", in: 0.01...16, default: 1, doc: "exponent on 0…1 values: c ^ gamma"),
    ]

    public var hue: Double
    public var saturation: Double
    public var brightness: Double
    public var contrast: Double
    public var gamma: Double

    public init(_ a: Arguments) {
        hue = a.number("hue")
        saturation = a.number("saturation")
        brightness = a.number("brightness")
        contrast = a.number("contrast")
        gamma = a.number("gamma")
    }

    /// The table's defaults for what is not given.
    public init(
        hue: Double? = nil, saturation: Double? = nil, brightness: Double? = nil, contrast: Double? = nil,
        gamma: Double? = nil
    ) {
        self.init(
            .defaults(
                of: Self.parameters,
                [
                    "hue": hue.map { .number($0) }, "saturation": saturation.map { .number($0) },
                    "brightness": brightness.map { .number($0) }, "contrast": contrast.map { .number($0) },
                    "gamma": gamma.map { .number($0) },
                ]))
    }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        if !hsv && contrast == 1 && gamma == 1 { return [image] }
        var out = consume image
        out.runInBands(Kernel(adjust: self, hsv: hsv, premultiplied: out.alpha == .premultiplied), on: context.rows)
        return [out]
    }

    /// Whether the HSV step changes anything (a whole number of turns of hue does not).
    var hsv: Bool { hue.truncatingRemainder(dividingBy: 360) != 0 || saturation != 1 || brightness != 1 }

    /// One color in 0…1 through the whole chain (the reference the tests evaluate too).
    public func adjusted(_ c: SIMD3<Float>) -> SIMD3<Float> { adjusted(c, hsv: hsv) }

    /// The same with `hsv` decided once per image (it costs an fmod), not per pixel.
    @inline(__always) func adjusted(_ c: SIMD3<Float>, hsv: Bool) -> SIMD3<Float> {
        var c = c
        if hsv {
            var (h, s, v) = HSV.fromRGB(c)
            h += Float(hue)
            s = min(1, max(0, s * Float(saturation)))
            v = min(1, max(0, v * Float(brightness)))
            c = HSV.toRGB(h, s, v)
        }
        if contrast != 1 {
            c = Self.clamped((c - 0.5) * Float(contrast) + 0.5)
        }
        if gamma != 1 {
            let g = Float(gamma)
            c = SIMD3(Self.power(c.x, g), Self.power(c.y, g), Self.power(c.z, g))
        }
        return c
    }

    static func power(_ x: Float, _ g: Float) -> Float { x <= 0 ? 0 : powf(x, g) }

    @inline(__always) static func clamped(_ c: SIMD3<Float>) -> SIMD3<Float> {
        SIMD3(min(1, max(0, c.x)), min(1, max(0, c.y)), min(1, max(0, c.z)))
    }

    struct Kernel: InPlaceKernel {
        var adjust: Adjust
        var hsv: Bool
        var premultiplied: Bool

        func run<C: PixelChannel>(_ p: UnsafeMutableBufferPointer<C>, width: Int, height: Int) {
            let max = Float(C.maxValue)
            var i = 0
            while i < p.count {
                let a = Float(p[i + 3]) / max
                if premultiplied && a == 0 {
                    i += 4
                    continue
                }
                var c = SIMD3(Float(p[i]), Float(p[i + 1]), Float(p[i + 2])) / max
                if premultiplied { c = Adjust.clamped(c / a) }
                c = adjust.adjusted(c, hsv: hsv)
                if premultiplied { c *= a }
                let v = c * max + 0.5  // ≥ 0: truncation below is the floor
                p[i] = C(truncatingIfNeeded: Int(v.x))
                p[i + 1] = C(truncatingIfNeeded: Int(v.y))
                p[i + 2] = C(truncatingIfNeeded: Int(v.z))
                i += 4
            }
        }
    }
}
