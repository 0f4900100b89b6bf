/// The 16 blend modes and 2 operators of W3C Compositing and Blending Level 1
/// (https://www.w3.org/TR/compositing-1/), on straight colors in 0…1.
///
/// A layer pixel (Cs, αs) over a backdrop pixel (Cb, αb):
///   Cs' = (1 − αb)·Cs + αb·B(Cb, Cs)                         (§ 5.8, "mixing")
///   source-over: αo = αs + αb·(1 − αs),  co = αs·Cs' + αb·Cb·(1 − αs)
///   source-atop: αo = αb,                co = αs·αb·Cs' + αb·Cb·(1 − αs)
/// with co premultiplied; Co = co / αo (0 where αo = 0).
extension Composite {
    public enum BlendMode: String, Sendable, CaseIterable {
        case normal, multiply, screen, overlay, darken, lighten
        case colorDodge = "color-dodge"
        case colorBurn = "color-burn"
        case hardLight = "hard-light"
        case softLight = "soft-light"
        case difference, exclusion, hue, saturation, color, luminosity

        /// B(Cb, Cs) for one pixel, by the W3C formulas (the reference the kernels and the tests share).
        public func blended(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> {
            switch self {
            case .normal: Normal.blend(cb, cs)
            case .multiply: Multiply.blend(cb, cs)
            case .screen: Screen.blend(cb, cs)
            case .overlay: Overlay.blend(cb, cs)
            case .darken: Darken.blend(cb, cs)
            case .lighten: Lighten.blend(cb, cs)
            case .colorDodge: ColorDodge.blend(cb, cs)
            case .colorBurn: ColorBurn.blend(cb, cs)
            case .hardLight: HardLight.blend(cb, cs)
            case .softLight: SoftLight.blend(cb, cs)
            case .difference: Difference.blend(cb, cs)
            case .exclusion: Exclusion.blend(cb, cs)
            case .hue: Hue.blend(cb, cs)
            case .saturation: Saturation.blend(cb, cs)
            case .color: ColorBlend.blend(cb, cs)
            case .luminosity: Luminosity.blend(cb, cs)
            }
        }

        /// Runs the compositing loop specialised for this mode: the switch happens once per
        /// layer, never per pixel.
        func composite(_ source: [SIMD4<Float>], over canvas: inout [SIMD4<Float>], atop: Bool) {
            switch self {
            case .normal: Blending.composite(Normal.self, source, &canvas, atop: atop)
            case .multiply: Blending.composite(Multiply.self, source, &canvas, atop: atop)
            case .screen: Blending.composite(Screen.self, source, &canvas, atop: atop)
            case .overlay: Blending.composite(Overlay.self, source, &canvas, atop: atop)
            case .darken: Blending.composite(Darken.self, source, &canvas, atop: atop)
            case .lighten: Blending.composite(Lighten.self, source, &canvas, atop: atop)
            case .colorDodge: Blending.composite(ColorDodge.self, source, &canvas, atop: atop)
            case .colorBurn: Blending.composite(ColorBurn.self, source, &canvas, atop: atop)
            case .hardLight: Blending.composite(HardLight.self, source, &canvas, atop: atop)
            case .softLight: Blending.composite(SoftLight.self, source, &canvas, atop: atop)
            case .difference: Blending.composite(Difference.self, source, &canvas, atop: atop)
            case .exclusion: Blending.composite(Exclusion.self, source, &canvas, atop: atop)
            case .hue: Blending.composite(Hue.self, source, &canvas, atop: atop)
            case .saturation: Blending.composite(Saturation.self, source, &canvas, atop: atop)
            case .color: Blending.composite(ColorBlend.self, source, &canvas, atop: atop)
            case .luminosity: Blending.composite(Luminosity.self, source, &canvas, atop: atop)
            }
        }
    }

    public enum Operator: String, Sendable, CaseIterable {
        case sourceOver = "source-over"
        case sourceAtop = "source-atop"
    }
}

// The kernels' types, nested so no common word (Normal, Hue, Color…) sits at module level.
extension Composite {
    /// The Porter-Duff half: Fa (the source's factor) and the result's alpha.
    protocol PorterDuff {
        static func sourceFactor(_ αb: Float) -> Float
        static func alpha(_ αs: Float, _ αb: Float) -> Float
    }
    enum SourceOver: PorterDuff {
        @inline(__always) static func sourceFactor(_ αb: Float) -> Float { 1 }
        @inline(__always) static func alpha(_ αs: Float, _ αb: Float) -> Float { αs + αb * (1 - αs) }
    }
    enum SourceAtop: PorterDuff {
        @inline(__always) static func sourceFactor(_ αb: Float) -> Float { αb }
        @inline(__always) static func alpha(_ αs: Float, _ αb: Float) -> Float { αb }
    }

    /// One blend function B(Cb, Cs); a type per mode so each compositing loop is specialised.
    protocol BlendFunction {
        static func blend(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float>
    }

    enum Blending {
        /// Composites `source` (straight RGBA) over `canvas` (straight RGBA) in place, pixel by pixel.
        static func composite<B: BlendFunction>(
            _: B.Type, _ source: [SIMD4<Float>], _ canvas: inout [SIMD4<Float>], atop: Bool
        ) {
            if atop {
                composite(B.self, SourceAtop.self, source, &canvas)
            } else {
                composite(B.self, SourceOver.self, source, &canvas)
            }
        }

        @inline(__always)
        static func composite<B: BlendFunction, O: PorterDuff>(
            _: B.Type, _: O.Type, _ source: [SIMD4<Float>], _ canvas: inout [SIMD4<Float>]
        ) {
            source.withUnsafeBufferPointer { src in
                canvas.withUnsafeMutableBufferPointer { dst in
                    for i in 0..<dst.count {
                        let s = src[i]
                        let αs = s.w
                        if αs <= 0 { continue }
                        let d = dst[i]
                        let αb = d.w
                        let cs = SIMD3(s.x, s.y, s.z)
                        let cb = SIMD3(d.x, d.y, d.z)
                        // Where the backdrop is transparent, B(Cb, Cs) does not matter: skip it.
                        let mixed = αb > 0 ? (1 - αb) * cs + αb * B.blend(cb, cs) : cs
                        let co = αs * O.sourceFactor(αb) * mixed + αb * (1 - αs) * cb
                        let αo = O.alpha(αs, αb)
                        dst[i] = αo > 0 ? SIMD4(co / αo, αo) : SIMD4(0, 0, 0, 0)
                    }
                }
            }
        }

        /// Lum(C) = 0.3 R + 0.59 G + 0.11 B (W3C § 5.9).
        @inline(__always) static func lum(_ c: SIMD3<Float>) -> Float { 0.3 * c.x + 0.59 * c.y + 0.11 * c.z }

        /// ClipColor: brings a color with components outside 0…1 back along the line to its luminosity.
        @inline(__always) static func clipColor(_ c: SIMD3<Float>) -> SIMD3<Float> {
            let l = lum(c)
            let n = c.min()
            let x = c.max()
            var out = c
            if n < 0 { out = l + (out - l) * l / (l - n) }
            if x > 1 { out = l + (out - l) * (1 - l) / (x - l) }
            return out
        }

        @inline(__always) static func setLum(_ c: SIMD3<Float>, _ l: Float) -> SIMD3<Float> {
            clipColor(c + (l - lum(c)))
        }

        @inline(__always) static func sat(_ c: SIMD3<Float>) -> Float { c.max() - c.min() }

        /// cb + cs − cb·cs, written so that 1 stays exactly 1.
        @inline(__always) static func screen(_ cb: Float, _ cs: Float) -> Float { 1 - (1 - cb) * (1 - cs) }

        /// SetSat: the largest component becomes s, the smallest 0, the middle one keeps its place
        /// proportionally; a gray color stays 0.
        @inline(__always) static func setSat(_ c: SIMD3<Float>, _ s: Float) -> SIMD3<Float> {
            let lo = c.min()
            let range = c.max() - lo
            return range > 0 ? (c - lo) * (s / range) : SIMD3(repeating: 0)
        }
    }

    enum Normal: BlendFunction { static func blend(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> { cs } }
    enum Multiply: BlendFunction {
        static func blend(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> { cb * cs }
    }
    enum Screen: BlendFunction {
        static func blend(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> { 1 - (1 - cb) * (1 - cs) }
    }
    /// A separable mode: B applied to each channel alone.
    protocol SeparableBlend: BlendFunction {
        static func channel(_ cb: Float, _ cs: Float) -> Float
    }

    /// Overlay(Cb, Cs) = HardLight(Cs, Cb): the backdrop decides multiply or screen.
    enum Overlay: SeparableBlend {
        static func channel(_ cb: Float, _ cs: Float) -> Float { HardLight.channel(cs, cb) }
    }
    enum Darken: SeparableBlend { static func channel(_ cb: Float, _ cs: Float) -> Float { min(cb, cs) } }
    enum Lighten: SeparableBlend { static func channel(_ cb: Float, _ cs: Float) -> Float { max(cb, cs) } }
    enum ColorDodge: SeparableBlend {
        static func channel(_ cb: Float, _ cs: Float) -> Float { cb == 0 ? 0 : cs >= 1 ? 1 : min(1, cb / (1 - cs)) }
    }
    enum ColorBurn: SeparableBlend {
        static func channel(_ cb: Float, _ cs: Float) -> Float { cb >= 1 ? 1 : cs == 0 ? 0 : 1 - min(1, (1 - cb) / cs) }
    }
    /// HardLight: multiply by 2Cs below ½, screen with 2Cs − 1 above.
    enum HardLight: SeparableBlend {
        static func channel(_ cb: Float, _ cs: Float) -> Float {
            cs <= 0.5 ? cb * 2 * cs : Blending.screen(cb, 2 * cs - 1)
        }
    }
    enum SoftLight: SeparableBlend {
        static func channel(_ cb: Float, _ cs: Float) -> Float {
            if cs <= 0.5 { return cb - (1 - 2 * cs) * cb * (1 - cb) }
            let d = cb <= 0.25 ? ((16 * cb - 12) * cb + 4) * cb : cb.squareRoot()
            return cb + (2 * cs - 1) * (d - cb)
        }
    }
    enum Difference: SeparableBlend { static func channel(_ cb: Float, _ cs: Float) -> Float { abs(cb - cs) } }
    enum Exclusion: BlendFunction {
        static func blend(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> { cb + cs - 2 * cb * cs }
    }
    /// Hue: SetLum(SetSat(Cs, Sat(Cb)), Lum(Cb)).
    enum Hue: BlendFunction {
        static func blend(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> {
            Blending.setLum(Blending.setSat(cs, Blending.sat(cb)), Blending.lum(cb))
        }
    }
    /// Saturation: SetLum(SetSat(Cb, Sat(Cs)), Lum(Cb)).
    enum Saturation: BlendFunction {
        static func blend(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> {
            Blending.setLum(Blending.setSat(cb, Blending.sat(cs)), Blending.lum(cb))
        }
    }
    /// Color: SetLum(Cs, Lum(Cb)).
    enum ColorBlend: BlendFunction {
        static func blend(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> {
            Blending.setLum(cs, Blending.lum(cb))
        }
    }
    /// Luminosity: SetLum(Cb, Lum(Cs)).
    enum Luminosity: BlendFunction {
        static func blend(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> {
            Blending.setLum(cb, Blending.lum(cs))
        }
    }
}

extension Composite.SeparableBlend {
    @inline(__always) static func blend(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> {
        SIMD3(channel(cb.x, cs.x), channel(cb.y, cs.y), channel(cb.z, cs.z))
    }
}
