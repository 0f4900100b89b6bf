internal import Foundation

/// A straight-alpha sRGB color, channels as fractions 0…1. docs/manifest.md "Colors".
public struct Color: Sendable, Hashable, CustomStringConvertible {
    public var r: Double
    public var g: Double
    public var b: Double
    public var a: Double

    public init(r: Double, g: Double, b: Double, a: Double = 1) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    public init(rgb: UInt32, alpha: Double = 1) {
        self.init(
            r: Double((rgb >> 16) & 0xFF) / 255, g: Double((rgb >> 8) & 0xFF) / 255,
            b: Double(rgb & 0xFF) / 255, a: alpha)
    }

    public static let transparent = Color(r: 0, g: 0, b: 0, a: 0)
    public static let white = Color(r: 1, g: 1, b: 1)
    public static let black = Color(r: 0, g: 0, b: 0)

    /// The four channels at a bit depth's maximum (255 or 65535), rounded half up,
    /// as stored in a straight (or, with `premultiplied`, premultiplied) image.
    /// The colour in linear light (sRGB decoded) as an HDR image stores it; alpha as is.
    public func linear(premultiplied: Bool = false) -> SIMD4<Float> {
        let a = Float(self.a)
        let c = SIMD3(SRGB.toLinear(Float(r)), SRGB.toLinear(Float(g)), SRGB.toLinear(Float(b)))
        return SIMD4(premultiplied ? c * a : c, a)
    }

    public func channels(max: Int, premultiplied: Bool = false) -> [Int] {
        let a = Rounding.scaled(self.a, max: max)
        return [r, g, b].map { c in
            let v = Rounding.scaled(c, max: max)
            return premultiplied ? Rounding.mulDiv(v, a, max: max) : v
        } + [a]
    }

    public var description: String {
        let c = channels(max: 255)
        return c[3] == 255
            ? String(format: "#%02x%02x%02x", c[0], c[1], c[2])
            : String(format: "#%02x%02x%02x%02x", c[0], c[1], c[2], c[3])
    }
}

extension Color {
    /// Parses `#RGB`, `#RGBA`, `#RRGGBB`, `#RRGGBBAA`, `rgb(r, g, b)`, `rgba(r, g, b, a)`,
    /// `hsv(h, s%, v%)` / `hsb(…)`, `hsl(h, s%, l%)` (each with an optional 4th alpha
    /// argument) and the CSS named colors. Returns nil for anything else.
    public init?(parsing text: String) {
        let s = text.trimmingCharacters(in: .whitespaces).lowercased()
        if s.hasPrefix("#") {
            guard let c = Color.parseHex(String(s.dropFirst())) else { return nil }
            self = c
            return
        }
        if s == "transparent" {
            self = .transparent
            return
        }
        if let rgb = cssNamedColors[s] {
            self.init(rgb: rgb)
            return
        }
        guard let open = s.firstIndex(of: "("), s.hasSuffix(")") else { return nil }
        let function = s[..<open].trimmingCharacters(in: .whitespaces)
        let inner = s[s.index(after: open)..<s.index(before: s.endIndex)]
        let args = inner.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard let c = Color.parseFunction(function, args) else { return nil }
        self = c
    }

    private static func parseHex(_ h: String) -> Color? {
        guard h.allSatisfy(\.isHexDigit), let v = UInt64(h, radix: 16) else { return nil }
        func nib(_ shift: UInt64) -> Double { Double((v >> shift) & 0xF) * 17 / 255 }
        func byte(_ shift: UInt64) -> Double { Double((v >> shift) & 0xFF) / 255 }
        switch h.count {
        case 3: return Color(r: nib(8), g: nib(4), b: nib(0))
        case 4: return Color(r: nib(12), g: nib(8), b: nib(4), a: nib(0))
        case 6: return Color(r: byte(16), g: byte(8), b: byte(0))
        case 8: return Color(r: byte(24), g: byte(16), b: byte(8), a: byte(0))
        default: return nil
        }
    }

    /// A number, or with `percent` a number followed by `%` (the `%` is optional).
    private static func number(_ s: String, percent: Bool = false) -> Double? {
        var t = Substring(s)
        if percent, t.hasSuffix("%") { t = t.dropLast() }
        guard !t.isEmpty, let v = Double(t), v.isFinite else { return nil }
        return v
    }

    private static func parseFunction(_ name: String, _ args: [String]) -> Color? {
        guard args.count == 3 || args.count == 4 else { return nil }
        var alpha = 1.0
        if args.count == 4 {
            guard let a = number(args[3]), (0...1).contains(a) else { return nil }
            alpha = a
        }
        switch name {
        case "rgb", "rgba":
            if name == "rgba" && args.count != 4 { return nil }
            if name == "rgb" && args.count != 3 { return nil }
            let v = args[0..<3].compactMap { number($0) }
            guard v.count == 3, v.allSatisfy({ (0...255).contains($0) }) else { return nil }
            return Color(r: v[0] / 255, g: v[1] / 255, b: v[2] / 255, a: alpha)
        case "hsv", "hsb", "hsl":
            guard let h = number(args[0]), let s = number(args[1], percent: true),
                let x = number(args[2], percent: true),
                (0...100).contains(s), (0...100).contains(x)
            else { return nil }
            let (r, g, b) =
                name == "hsl" ? hslToRGB(h, s / 100, x / 100) : hsvToRGB(h, s / 100, x / 100)
            return Color(r: r, g: g, b: b, a: alpha)
        default:
            return nil
        }
    }

    /// HSV → RGB, h in degrees (any value, taken mod 360), s and v in 0…1 (`HSV.toRGB`).
    public static func hsvToRGB(_ h: Double, _ s: Double, _ v: Double) -> (Double, Double, Double) {
        let c = HSV.toRGB(h.truncatingRemainder(dividingBy: 360), s, v)
        return (c.x, c.y, c.z)
    }

    /// HSL → RGB through HSV: v = l + s·min(l, 1 − l), s_v = v = 0 ? 0 : 2(1 − l/v).
    public static func hslToRGB(_ h: Double, _ s: Double, _ l: Double) -> (Double, Double, Double) {
        let v = l + s * min(l, 1 - l)
        let sv = v == 0 ? 0 : 2 * (1 - l / v)
        return hsvToRGB(h, sv, v)
    }
}

/// HSV ↔ RGB, written once: color parsing (`hsv(…)`, `hsl(…)`) and `adjust`'s kernel use it.
public enum HSV {
    /// RGB → HSV, h in degrees 0…360.
    @inlinable @inline(__always)
    public static func fromRGB(_ c: SIMD3<Float>) -> (Float, Float, Float) {
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

    /// HSV → RGB, h in degrees within a turn or two of 0…360 (brought in by whole turns: no
    /// fmod or floor, which are libm calls on baseline x86-64).
    @inlinable @inline(__always)
    public static func toRGB<F: BinaryFloatingPoint & SIMDScalar>(_ h: F, _ s: F, _ v: F) -> SIMD3<F> {
        var hh = h
        while hh < 0 { hh += 360 }
        while hh >= 360 { hh -= 360 }
        hh /= 60
        let sector = Int(hh)
        let f = hh - F(sector)
        let c = v * s
        // x = c · (1 − |hh mod 2 − 1|): rising in even sectors, falling in odd ones.
        let x = c * (sector & 1 == 0 ? f : 1 - f)
        let m = v - c
        let rgb: SIMD3<F>
        switch sector {
        case 0: rgb = SIMD3(c, x, 0)
        case 1: rgb = SIMD3(x, c, 0)
        case 2: rgb = SIMD3(0, c, x)
        case 3: rgb = SIMD3(0, x, c)
        case 4: rgb = SIMD3(x, 0, c)
        default: rgb = SIMD3(c, 0, x)
        }
        return rgb + SIMD3(repeating: m)
    }
}

/// Rec. 709 luma weights, written once: mask coverage in `composite` and the map in `alpha-merge`.
public enum Rec709 {
    /// Y = (2126 R + 7152 G + 722 B) / 10000, rounded half up (integers: exact for gray).
    @inlinable @inline(__always)
    public static func luma(_ r: Int, _ g: Int, _ b: Int) -> Int { (2126 * r + 7152 * g + 722 * b + 5000) / 10000 }

    /// The same weights on 0…1 Floats.
    @inlinable @inline(__always)
    public static func luma(_ c: SIMD4<Float>) -> Float { 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z }
}
