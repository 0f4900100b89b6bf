internal import Foundation
public import TexPipePixels

/// `adjust`: HSV hue / saturation / brightness, then contrast, then gamma, on colors in 0…1.
/// SPEC §3. Per pixel (straight colors; a premultiplied image is adjusted on c' / a and
/// multiplied back):
///   (h, s, v) = HSV(r, g, b);  h += hue (mod 360);  s = clamp(s · saturation);  v = clamp(v · brightness)
///   c = clamp((c − ½) · contrast + ½)
///   c = c ^ gamma
/// rounded half up to the image's depth. Alpha is unchanged.
public struct Adjust: Stage {
    public static let name = "adjust"
    public static let summary = "HSV hue/saturation/brightness, contrast and gamma; alpha unchanged"
    public static let parameters: [Parameter] = [
        .number("hue", in: -360...360, default: 0, doc: "degrees added to the HSV hue"),
        .number("saturation", in: 0...16, default: 1, doc: "factor on HSV saturation"),
        .number("brightness", in: 0...16, default: 1, doc: "factor on HSV value"),
        .number("contrast", in: 0...16, default: 1, doc: "factor around mid-gray: (c − ½) · k + ½"),
        .number("gamma", in: 0.01...16, default: 1, doc: "exponent on 0…1 values: c ^ gamma"),
    ]

    public var hue = 0.0
    public var saturation = 1.0
    public var brightness = 1.0
    public var contrast = 1.0
    public var gamma = 1.0

    public init(_ a: Arguments) {
        hue = a.number("hue")
        saturation = a.number("saturation")
        brightness = a.number("brightness")
        contrast = a.number("contrast")
        gamma = a.number("gamma")
    }

    public init(
        hue: Double = 0, saturation: Double = 1, brightness: Double = 1, contrast: Double = 1, gamma: Double = 1
    ) {
        self.hue = hue
        self.saturation = saturation
        self.brightness = brightness
        self.contrast = contrast
        self.gamma = gamma
    }

    public func applied(to image: Image, context: inout StageContext) throws -> [Image] {
        if !hsv && contrast == 1 && gamma == 1 { return [image] }
        var out = image
        out.runInBands(Kernel(adjust: self, hsv: hsv, premultiplied: image.alpha == .premultiplied), on: context.rows)
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
            var (h, s, v) = Self.hsv(c)
            h += Float(hue)
            s = min(1, max(0, s * Float(saturation)))
            v = min(1, max(0, v * Float(brightness)))
            c = Self.rgb(h, s, v)
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

    /// RGB → HSV, h in degrees 0…360.
    static func hsv(_ c: SIMD3<Float>) -> (Float, Float, Float) {
        let v = c.max()
        let delta = v - c.min()
        guard delta > 0 else { return (0, 0, v) }
        let h: Float
        if v == c.x {
            h = 60 * ((c.y - c.z) / delta)
        } else if v == c.y {
            h = 60 * ((c.z - c.x) / delta + 2)
        } else {
            h = 60 * ((c.x - c.y) / delta + 4)
        }
        return (h, delta / v, v)
    }

    /// HSV → RGB (h in degrees, any value). No fmod: h is brought into 0…360 by whole turns.
    static func rgb(_ h: Float, _ s: Float, _ v: Float) -> SIMD3<Float> {
        var hh = h  // within a turn or two of 0…360: no floor call (a libm call on baseline x86-64)
        while hh < 0 { hh += 360 }
        while hh >= 360 { hh -= 360 }
        hh /= 60
        let sector = Float(Int(hh))
        let f = hh - sector
        let c = v * s
        // x = c · (1 − |hh mod 2 − 1|): rising in even sectors, falling in odd ones.
        let x = c * (Int(sector) & 1 == 0 ? f : 1 - f)
        let m = v - c
        let rgb: SIMD3<Float>
        switch Int(sector) {
        case 0: rgb = SIMD3(c, x, 0)
        case 1: rgb = SIMD3(x, c, 0)
        case 2: rgb = SIMD3(0, c, x)
        case 3: rgb = SIMD3(0, x, c)
        case 4: rgb = SIMD3(x, 0, c)
        default: rgb = SIMD3(c, 0, x)
        }
        return rgb + m
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
