import Foundation
import Testing
import TexPipePlanTestSupport
import TexPipeTestSupport

@testable import TexPipe
@testable import TexPipeCodecs
@testable import TexPipeEngine
@testable import TexPipeFormats
@testable import TexPipeManifest
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeReport
@testable import TexPipeStages

/// The W3C Compositing and Blending Level 1 formulas, written out again here in Double, apart
/// from the kernels: B(Cb, Cs) per mode, Cs' = (1 − αb)·Cs + αb·B, then Porter-Duff.
enum W3C {
    typealias RGB = (Double, Double, Double)

    static func lum(_ c: RGB) -> Double { 0.3 * c.0 + 0.59 * c.1 + 0.11 * c.2 }

    /// Which ClipColor branches a call took (the test checks its colors reach both).
    nonisolated(unsafe) static var clippedLow = 0
    nonisolated(unsafe) static var clippedHigh = 0

    static func clipColor(_ c: RGB) -> RGB {
        let l = lum(c)
        let n = min(c.0, c.1, c.2)
        let x = max(c.0, c.1, c.2)
        var r = c
        if n < 0 {
            clippedLow += 1
            r = (l + (r.0 - l) * l / (l - n), l + (r.1 - l) * l / (l - n), l + (r.2 - l) * l / (l - n))
        }
        if x > 1 {
            clippedHigh += 1
            r = (
                l + (r.0 - l) * (1 - l) / (x - l), l + (r.1 - l) * (1 - l) / (x - l), l + (r.2 - l) * (1 - l) / (x - l)
            )
        }
        return r
    }
    static func setLum(_ c: RGB, _ l: Double) -> RGB {
        let d = l - lum(c)
        return clipColor((c.0 + d, c.1 + d, c.2 + d))
    }
    static func sat(_ c: RGB) -> Double { max(c.0, c.1, c.2) - min(c.0, c.1, c.2) }
    static func setSat(_ c: RGB, _ s: Double) -> RGB {
        // Spelled the W3C way: sort into max / mid / min, then write back by position.
        var v = [c.0, c.1, c.2]
        let order = [0, 1, 2].sorted { v[$0] < v[$1] }
        let (lo, mid, hi) = (order[0], order[1], order[2])
        if v[hi] > v[lo] {
            v[mid] = (v[mid] - v[lo]) * s / (v[hi] - v[lo])
            v[hi] = s
        } else {
            v[mid] = 0
            v[hi] = 0
        }
        v[lo] = 0
        return (v[0], v[1], v[2])
    }

    static func separable(_ mode: String, _ cb: Double, _ cs: Double) -> Double {
        func hard(_ b: Double, _ s: Double) -> Double { s <= 0.5 ? b * 2 * s : b + (2 * s - 1) - b * (2 * s - 1) }
        switch mode {
        case "normal": return cs
        case "multiply": return cb * cs
        case "screen": return cb + cs - cb * cs
        case "overlay": return hard(cs, cb)
        case "darken": return min(cb, cs)
        case "lighten": return max(cb, cs)
        case "color-dodge": return cb == 0 ? 0 : cs == 1 ? 1 : min(1, cb / (1 - cs))
        case "color-burn": return cb == 1 ? 1 : cs == 0 ? 0 : 1 - min(1, (1 - cb) / cs)
        case "hard-light": return hard(cb, cs)
        case "soft-light":
            if cs <= 0.5 { return cb - (1 - 2 * cs) * cb * (1 - cb) }
            let d = cb <= 0.25 ? ((16 * cb - 12) * cb + 4) * cb : cb.squareRoot()
            return cb + (2 * cs - 1) * (d - cb)
        case "difference": return abs(cb - cs)
        case "exclusion": return cb + cs - 2 * cb * cs
        default: fatalError(mode)
        }
    }

    static func blend(_ mode: String, _ cb: RGB, _ cs: RGB) -> RGB {
        switch mode {
        case "hue": return setLum(setSat(cs, sat(cb)), lum(cb))
        case "saturation": return setLum(setSat(cb, sat(cs)), lum(cb))
        case "color": return setLum(cs, lum(cb))
        case "luminosity": return setLum(cb, lum(cs))
        default: return (separable(mode, cb.0, cs.0), separable(mode, cb.1, cs.1), separable(mode, cb.2, cs.2))
        }
    }

    /// The composited straight 8-bit pixel, rounded half up.
    static func composite(_ mode: String, atop: Bool, backdrop b: [Int], source s: [Int]) -> [Int] {
        let cb = (Double(b[0]) / 255, Double(b[1]) / 255, Double(b[2]) / 255)
        let cs = (Double(s[0]) / 255, Double(s[1]) / 255, Double(s[2]) / 255)
        let ab = Double(b[3]) / 255
        let asrc = Double(s[3]) / 255
        let mixed = blend(mode, cb, cs)
        let cs2 = [(1 - ab) * cs.0 + ab * mixed.0, (1 - ab) * cs.1 + ab * mixed.1, (1 - ab) * cs.2 + ab * mixed.2]
        let cbs = [cb.0, cb.1, cb.2]
        let fa = atop ? ab : 1
        let ao = atop ? ab : asrc + ab * (1 - asrc)
        var out: [Int] = []
        for k in 0..<3 {
            let co = asrc * fa * cs2[k] + ab * cbs[k] * (1 - asrc)
            out.append(ao > 0 ? roundHalfUp(min(1, max(0, co / ao)) * 255) : 0)
        }
        return out + [roundHalfUp(ao * 255)]
    }
}

/// Decodes a stage from its manifest JSON, the way the planner does.
func decodeStage<T: Stage>(_: T.Type, _ json: String, base: String = "/") throws -> T {
    guard case .object(let object) = try JSONParser.parse(Array(json.utf8)) else { fatalError("not an object") }
    var decoder = ParameterDecoder(file: "test", placeholders: [:], knownNames: [], baseDirectory: base)
    guard let args = decoder.decode(object, at: .root, table: T.parameters, ignoring: ["stage"]) else {
        throw StageError(decoder.diagnostics.map(\.message).joined(separator: "; "))
    }
    return try T(args)
}

@Suite("composite")
struct CompositeTests {
    /// Backdrop and source colors that reach every branch: 0, 1, the ¼ and ½ thresholds,
    /// saturated primaries for the non-separable modes' ClipColor.
    static let colors: [[Int]] = [
        [0, 0, 0], [255, 255, 255], [64, 128, 191], [255, 0, 0], [0, 0, 255], [255, 230, 0], [30, 200, 90],
        [128, 127, 129],
    ]
    static let alphas = [0, 102, 255]
    static let swatches: [[Int]] = colors.flatMap { c in alphas.map { c + [$0] } }

    /// The grid: backdrop swatches down, source swatches across.
    static func grid() -> (backdrop: Image, source: Image) {
        let n = swatches.count
        let b = (0..<n).flatMap { _ in swatches }  // row y repeats … no: column x = backdrop
        let s = (0..<n).flatMap { y in Array(repeating: swatches[y], count: n) }
        return (image8(n, n, b), image8(n, n, s))
    }

    @Test("every blend mode and both operators match the W3C formulas", arguments: Composite.BlendMode.allCases)
    func blendModeMatchesW3C(mode: Composite.BlendMode) throws {
        let (backdrop, source) = Self.grid()
        for op in Composite.Operator.allCases {
            let stage = try decodeStage(
                Composite.self,
                #"{"layers": [{"image": "source.png", "blend": "\#(mode.rawValue)", "operator": "\#(op.rawValue)"}]}"#,
                base: "/mem")
            let out = try stage.applied(to: backdrop, images: ["/mem/source.png": source])[0]
            var worst = 0
            for y in 0..<backdrop.height {
                for x in 0..<backdrop.width {
                    let want = W3C.composite(
                        mode.rawValue, atop: op == .sourceAtop, backdrop: backdrop.pixel(x, y),
                        source: source.pixel(x, y))
                    let got = out.pixel(x, y)
                    if got[3] == 0 && want[3] == 0 { continue }  // no color to compare
                    worst = max(worst, zip(got, want).map { abs($0 - $1) }.max()!)
                    #expect(
                        zip(got, want).allSatisfy { abs($0 - $1) <= 1 },
                        "\(mode.rawValue) \(op.rawValue) b=\(backdrop.pixel(x, y)) s=\(source.pixel(x, y)): \(got) vs \(want)"
                    )
                }
            }
            #expect(worst <= 1)
        }
    }

    /// ImageMagick follows the W3C formulas for the separable modes with partial alpha (its
    /// Hue/Saturation/Colorize/Luminize work in HCL instead, so they are not compared). One known
    /// difference: ImageMagick 6's ColorDodge tests Cs = 1 before Cb = 0, the W3C's current text
    /// the other way round, so a black backdrop channel under a full source channel is skipped.
    @Test(
        "separable modes agree with ImageMagick's composite, partial alpha included",
        Reference.needs(Reference.imageMagickComposite, "ImageMagick's composite"),
        arguments: [
            ("multiply", "Multiply"), ("screen", "Screen"), ("overlay", "Overlay"), ("darken", "Darken"),
            ("lighten", "Lighten"), ("color-dodge", "ColorDodge"), ("color-burn", "ColorBurn"),
            ("hard-light", "HardLight"), ("soft-light", "SoftLight"), ("difference", "Difference"),
            ("exclusion", "Exclusion"),
        ])
    func agreesWithImageMagick(mode: String, magick: String) throws {
        let t = TempDir()
        let (backdrop, source) = Self.grid()
        t.write("backdrop.png", try ImageEncoder.png(backdrop))
        t.write("source.png", try ImageEncoder.png(source))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/composite")
        p.arguments = [
            "-compose", magick, t.path + "/source.png", t.path + "/backdrop.png", "PNG32:" + t.path + "/im.png",
        ]
        try p.run()
        p.waitUntilExit()
        let im = try ImageDecoder.decode(Array(try Data(contentsOf: URL(fileURLWithPath: t.path + "/im.png"))))
        let stage = try decodeStage(
            Composite.self, #"{"layers": [{"image": "source.png", "blend": "\#(mode)"}]}"#, base: "/mem")
        let ours = try stage.applied(to: backdrop, images: ["/mem/source.png": source])[0]
        for (i, (a, b)) in zip(quads(ours), quads(im)).enumerated() where a[3] > 0 || b[3] > 0 {
            let (cb, cs) = (
                backdrop.pixel(i % backdrop.width, i / backdrop.width),
                source.pixel(i % backdrop.width, i / backdrop.width)
            )
            if mode == "color-dodge" && (0..<3).contains(where: { cb[$0] == 0 && cs[$0] == 255 }) { continue }
            #expect(zip(a, b).allSatisfy { abs($0 - $1) <= 1 }, "\(mode): texpipe \(a) vs ImageMagick \(b)")
        }
    }

    @Test func nonSeparableModesReachBothClipColorBranches() throws {
        W3C.clippedLow = 0
        W3C.clippedHigh = 0
        for b in Self.colors {
            for s in Self.colors {
                for mode in ["hue", "saturation", "color", "luminosity"] {
                    _ = W3C.composite(mode, atop: false, backdrop: b + [255], source: s + [255])
                }
            }
        }
        #expect(W3C.clippedLow > 0 && W3C.clippedHigh > 0)
        // Two by hand: blue's hue/saturation at white's luminosity overflows (x > 1 branch) …
        let blueOnWhite = Composite.BlendMode.color.blended(SIMD3(1, 1, 1), SIMD3(0, 0, 1))
        #expect(abs(blueOnWhite.x - 1) < 1e-6 && abs(blueOnWhite.z - 1) < 1e-6)
        // … and yellow at black's luminosity underflows (n < 0 branch): black.
        let yellowDark = Composite.BlendMode.luminosity.blended(SIMD3(1, 1, 0), SIMD3(0, 0, 0))
        #expect(yellowDark.max() < 1e-6 && yellowDark.min() > -1e-6)
    }

    @Test func overlayKeepsPureWhiteAndBlackWhereHardLightShades() throws {
        // docs/stages.md: overlay is HardLight with the layers swapped, so gray shading cannot darken
        // white or lighten black; hard-light (the shading decides) does.
        let white = SIMD3<Float>(1, 1, 1)
        let black = SIMD3<Float>(0, 0, 0)
        let darkShade = SIMD3<Float>(repeating: 0.3)
        let lightShade = SIMD3<Float>(repeating: 0.7)
        #expect(Composite.BlendMode.overlay.blended(white, darkShade) == white)
        #expect(Composite.BlendMode.overlay.blended(black, lightShade) == black)
        #expect(Composite.BlendMode.softLight.blended(white, darkShade) == white)
        #expect(Composite.BlendMode.hardLight.blended(white, darkShade).x < 0.7)
        #expect(Composite.BlendMode.hardLight.blended(black, lightShade).x > 0.3)
        #expect(
            Composite.BlendMode.hardLight.blended(SIMD3(0.2, 0.6, 0.9), SIMD3(repeating: 0.5)) == SIMD3(0.2, 0.6, 0.9))
    }

    /// Red through a mask over opaque blue: the expected pixel is the mix by the coverage k.
    func masked(_ mask: Image) throws -> (Image, [Double]) {
        let stage = try decodeStage(
            Composite.self, ##"{"layers": [{"color": "#ff0000", "mask": "mask.png", "opacity": 0.8}]}"##, base: "/mem")
        let backdrop = image8(
            mask.width, mask.height, Array(repeating: [0, 0, 255, 255], count: mask.width * mask.height))
        let out = try stage.applied(to: backdrop, images: ["/mem/mask.png": mask])[0]
        let k = quads(mask).map { m in
            (0.2126 * Double(m[0]) + 0.7152 * Double(m[1]) + 0.0722 * Double(m[2])) / 255 * Double(m[3]) / 255 * 0.8
        }
        return (out, k)
    }

    @Test func maskCoverageIsLumaTimesAlpha() throws {
        let fromGray = image8(3, 1, [[0, 0, 0, 255], [128, 128, 128, 255], [255, 255, 255, 255]])
        let fromAlpha = image8(3, 1, [[255, 255, 255, 0], [255, 255, 255, 100], [255, 255, 255, 255]])
        let fromBoth = image8(3, 1, [[200, 10, 60, 200], [0, 255, 0, 128], [0, 0, 255, 255]])
        for mask in [fromGray, fromAlpha, fromBoth] {
            let (out, k) = try masked(mask)
            for (x, k) in k.enumerated() {
                #expect(out.pixel(x, 0) == [roundHalfUp(255 * k), 0, roundHalfUp(255 * (1 - k)), 255], "k = \(k)")
            }
        }
    }

    /// Composite draws a band of rows at a time (docs/performance.md "Memory"). A canvas several
    /// bands tall (300 × 700 = 210,000 pixels, bands of 65,536): a tiled 7 × 5 layer moved by
    /// (3, −2) in `multiply`, and a `center`ed 50 × 690 layer in `screen` whose edges cross the
    /// band borders, each pixel checked against the W3C formulas on the pixel the test itself
    /// finds under it.
    @Test func layersCrossingBandBordersLandWhereTheFormulasSay() throws {
        let (w, h) = (300, 700)
        var rng = SeededRandom(seed: 91)
        func random(_ n: Int, opaque: Bool = false) -> [[Int]] {
            (0..<n).map { _ in [rng.int(0...255), rng.int(0...255), rng.int(0...255), opaque ? 255 : rng.int(1...255)] }
        }
        let backdrop = image8(w, h, random(w * h, opaque: true))
        let tile = image8(7, 5, random(35))
        let tall = image8(50, 690, random(50 * 690))
        let stage = try decodeStage(
            Composite.self,
            #"{"layers": [{"image": "tile.png", "fit": "tile", "offset": [3, -2], "blend": "multiply"}, {"image": "tall.png", "fit": "center", "blend": "screen"}]}"#,
            base: "/mem")
        let out = try stage.applied(to: backdrop, images: ["/mem/tile.png": tile, "/mem/tall.png": tall])[0]
        var worst = 0
        for y in 0..<h {
            for x in 0..<w {
                var want = W3C.composite(
                    "multiply", atop: false, backdrop: backdrop.pixel(x, y),
                    source: tile.pixel(((x - 3) % 7 + 7) % 7, ((y + 2) % 5 + 5) % 5))
                let (tx, ty) = (x - (w - 50) / 2, y - (h - 690) / 2)
                if (0..<50).contains(tx) && (0..<690).contains(ty) {
                    want = W3C.composite("screen", atop: false, backdrop: want, source: tall.pixel(tx, ty))
                }
                worst = max(worst, zip(out.pixel(x, y), want).map { abs($0 - $1) }.max()!)
            }
        }
        // Two layers, each rounded once by the test's oracle: at most one step each.
        #expect(worst <= 2)
    }

    @Test func fitModesPlaceALayerOfAnotherSize() throws {
        let r = [255, 0, 0, 255]
        let g = [0, 255, 0, 255]
        let b = [0, 0, 255, 255]
        let w = [255, 255, 255, 255]
        let small = ["/mem/small.png": image8(2, 2, [r, g, b, w])]
        let clear = [0, 0, 0, 0]
        let canvas = image8(4, 4, Array(repeating: clear, count: 16))
        func run(_ fit: String, offset: [Int] = [0, 0]) throws -> [[Int]] {
            let stage = try decodeStage(
                Composite.self, #"{"layers": [{"image": "small.png", "fit": "\#(fit)", "offset": \#(offset)}]}"#,
                base: "/mem")
            return quads(try stage.applied(to: canvas, images: small)[0])
        }
        #expect(
            try run("center") == [
                clear, clear, clear, clear, clear, r, g, clear, clear, b, w, clear, clear, clear, clear, clear,
            ])
        #expect(try run("tile") == [r, g, r, g, b, w, b, w, r, g, r, g, b, w, b, w])
        #expect(try run("tile", offset: [1, 0]) == [g, r, g, r, w, b, w, b, g, r, g, r, w, b, w, b])
        let stretched = try run("stretch")
        #expect(stretched.allSatisfy { $0[3] == 255 })
        #expect(stretched[0] == r && stretched[3] == g && stretched[12] == b && stretched[15] == w)
        // Without fit, the layer must be the canvas's size: the planner checks it (the plan test below).
        let strict = try decodeStage(Composite.self, #"{"layers": [{"image": "small.png"}]}"#, base: "/mem")
        guard case .image(_, "layers[0].image", true, let hint)? = strict.reads.first else {
            Issue.record("the layer image is not a same-size resource")
            return
        }
        #expect(hint == "; add \"fit\": \"stretch\", \"center\" or \"tile\"")
    }

    @Test func offsetPartlyOutsideTheCanvasDrawsOnlyWhatLandsOnIt() throws {
        let layer = image8(4, 4, (0..<16).map { [$0 * 10, 100, 200, 255] })
        let backdrop = image8(4, 4, Array(repeating: [9, 9, 9, 255], count: 16))
        let stage = try decodeStage(
            Composite.self, #"{"layers": [{"image": "layer.png", "offset": [2, -1]}]}"#, base: "/mem")
        let out = try stage.applied(to: backdrop, images: ["/mem/layer.png": layer])[0]
        for y in 0..<4 {
            for x in 0..<4 {
                let (lx, ly) = (x - 2, y + 1)
                let want = (0..<4).contains(lx) && (0..<4).contains(ly) ? layer.pixel(lx, ly) : [9, 9, 9, 255]
                #expect(out.pixel(x, y) == want, "(\(x), \(y))")
            }
        }
    }

    @Test func aLayerMovedEntirelyOffTheCanvasDrawsNothing() throws {
        let layer = ["/mem/layer.png": image8(2, 2, Array(repeating: [255, 0, 0, 255], count: 4))]
        let backdrop = image8(2, 2, Array(repeating: [9, 9, 9, 255], count: 4))
        for offset in [[0, 5], [5, 0], [-3, 0], [0, -3], [7, 7]] {
            let stage = try decodeStage(
                Composite.self, #"{"layers": [{"image": "layer.png", "offset": \#(offset)}]}"#, base: "/mem")
            #expect(try stage.applied(to: backdrop, images: layer)[0] == backdrop, "offset \(offset)")
        }
    }

    @Test func gradientRunsTopToBottomAtZeroAndClockwise() throws {
        let canvas = image8(1, 4, Array(repeating: [0, 0, 0, 0], count: 4))
        let down = try decodeStage(
            Composite.self, ##"{"layers": [{"gradient": {"from": "#000000", "to": "#ffffff"}}]}"##)
        // t at pixel centers: 1/8, 3/8, 5/8, 7/8 of the height.
        #expect(quads(try down.applied(to: canvas)[0]).map { $0[0] } == [32, 96, 159, 223])
        let wide = image8(4, 1, Array(repeating: [0, 0, 0, 0], count: 4))
        let left = try decodeStage(
            Composite.self, ##"{"layers": [{"gradient": {"from": "#000000", "to": "#ffffff", "angle": 90}}]}"##)
        #expect(quads(try left.applied(to: wide)[0]).map { $0[0] } == [223, 159, 96, 32])
    }

    @Test func imageLayerOfAnotherPipelineInputAtInputIsTheIncomingImage() throws {
        // "@input" multiplied over itself squares each channel.
        let img = image8(2, 1, [[255, 128, 0, 255], [51, 204, 102, 255]])
        let stage = try decodeStage(Composite.self, #"{"layers": [{"image": "@input", "blend": "multiply"}]}"#)
        let out = try stage.applied(to: img)[0]
        for (o, i) in zip(quads(out), quads(img)) {
            #expect(o == i[0..<3].map { roundHalfUp(Double($0 * $0) / 255) } + [255])
        }
    }

    @Test func layerMistakesAreNamedByTheirPath() throws {
        #expect(throws: StageError("layers[0]: give one of \"image\", \"gradient\" or \"text\", not image and text")) {
            try decodeStage(Composite.self, #"{"layers": [{"image": "a.png", "text": "x"}]}"#)
        }
        #expect(throws: StageError("layers[1]: give \"color\", \"image\", \"gradient\" or \"text\"")) {
            try decodeStage(Composite.self, #"{"layers": [{"color": "red"}, {"opacity": 0.5}]}"#)
        }
        #expect(throws: StageError("layers[0].outline applies to text layers only")) {
            try decodeStage(Composite.self, #"{"layers": [{"color": "red", "outline": {"width": 2}}]}"#)
        }
    }

    @Test func missingLayerFilesFailThePlanAndMismatchedSizesFailTheJob() throws {
        let t = TempDir()
        t.png("in.png", width: 4, height: 3)
        t.png("small.png", width: 2, height: 2)
        let missing = t.errors(
            #"""
            { "version": 1, "pipelines": [ { "name": "p", "inputs": ["in.png"], "stages": [
              { "stage": "composite", "layers": [ { "color": "red", "mask": "masks/nope.png" } ] } ] } ] }
            """#)
        #expect(
            missing == [
                "error: $T/pipeline.json: pipelines[0].stages[0]: composite: layers[0].mask: cannot read $T/masks/nope.png"
            ])
        let plan = try t.plan(
            #"""
            { "version": 1, "pipelines": [ { "name": "p", "inputs": ["in.png"], "stages": [
              { "stage": "composite", "layers": [ { "image": "small.png" } ] } ] } ] }
            """#
        ).get()
        #expect(plan.jobs[0].failure?.stage == "composite")
        #expect(
            plan.jobs[0].failure?.message.replacingOccurrences(of: t.path, with: "$T")
                == "layers[0].image $T/small.png is 2×2 but the image is 4×3; add \"fit\": \"stretch\", \"center\" or \"tile\""
        )
    }

    @Test func unknownBlendModeIsAManifestErrorWithItsPath() throws {
        let t = TempDir()
        t.png("in.png")
        let errors = t.errors(
            #"""
            { "version": 1, "pipelines": [ { "name": "p", "inputs": ["in.png"], "stages": [
              { "stage": "composite", "layers": [ { "color": "red" }, { "color": "red", "blend": "overlay2" } ] } ] } ] }
            """#)
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("error: $T/pipeline.json: pipelines[0].stages[0].layers[1].blend: ") == true)
        #expect(errors.first?.contains("\"overlay\"") == true)
        let notAnObject = t.errors(
            #"""
            { "version": 1, "pipelines": [ { "name": "p", "inputs": ["in.png"], "stages": [
              { "stage": "composite", "layers": [ { "text": "1", "outline": 3 } ] } ] } ] }
            """#)
        #expect(
            notAnObject == [
                "error: $T/pipeline.json: pipelines[0].stages[0].layers[0].outline: expected an object with \"width\", \"color\", found 3"
            ])
    }
}
