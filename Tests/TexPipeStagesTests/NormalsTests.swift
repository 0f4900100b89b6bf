import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeParameters
@testable import TexPipePixels
@testable import TexPipeStages

/// The normal stages and `mipmaps`' `roughnessFrom` against their formulas evaluated in NumPy
/// (Tests/TexPipeTestSupport/normals_reference.py, written from docs/stages.md), within 1 unit on
/// 8- and 16-bit images; the conventions checked by lighting a bump.
@Suite("normal maps")
struct NormalsTests {
    static let script = Python.script("normals_reference.py")
    static let available = Python.has("numpy")

    // MARK: - Inputs made here

    /// A height field: two bumps and a ramp, with a little noise (every derivative exercised).
    static func heights(_ w: Int, _ h: Int, depth: Int, seed: UInt64) -> Image {
        var rng = SeededRandom(seed: seed)
        let max = Double(depth == 16 ? 65535 : 255)
        var px: [[Int]] = []
        for y in 0..<h {
            for x in 0..<w {
                let (u, v) = (Double(x) / Double(w), Double(y) / Double(h))
                var t = 0.35 * exp(-(pow(u - 0.3, 2) + pow(v - 0.4, 2)) * 30) + 0.3 * u
                t += 0.25 * exp(-(pow(u - 0.7, 2) + pow(v - 0.7, 2)) * 60) + 0.02 * Double(rng.int(0...100)) / 100
                let g = Int(t * max)
                px.append([g, Int(Double(g) * 0.8), Swift.min(Int(max), g + 9), rng.int(0...Int(max))])
            }
        }
        return depth == 16 ? image16(w, h, px) : image8(w, h, px)
    }

    /// A normal map of varied unit-ish vectors (stored as a tool would: not exactly unit).
    static func normals(_ w: Int, _ h: Int, depth: Int, seed: UInt64) -> Image {
        var rng = SeededRandom(seed: seed)
        let max = Double(depth == 16 ? 65535 : 255)
        var px: [[Int]] = []
        for _ in 0..<(w * h) {
            let x = Double(rng.int(-700...700)) / 1000
            let y = Double(rng.int(-700...700)) / 1000
            let z = (Swift.max(0.05, 1 - x * x - y * y)).squareRoot()
            px.append([x, y, z].map { Int((($0 + 1) / 2 * max).rounded()) } + [Int(max)])
        }
        return depth == 16 ? image16(w, h, px) : image8(w, h, px)
    }

    static func raw(_ image: Image) -> [UInt8] {
        switch image.pixels {
        case .rgba8(let p): return p
        case .rgba16(let p): return p.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        case .rgbaF32: return []
        }
    }

    static func image(raw: [UInt8], _ w: Int, _ h: Int, depth: Int) -> Image {
        if depth == 8 { return Image(width: w, height: h, pixels: .rgba8(raw)) }
        let p = stride(from: 0, to: raw.count, by: 2).map { UInt16(raw[$0]) | UInt16(raw[$0 + 1]) << 8 }
        return Image(width: w, height: h, pixels: .rgba16(p))
    }

    /// The reference's image for `command` on `images` (written raw), with `json` parameters.
    static func reference(_ command: String, _ images: [Image], _ json: String) throws -> Image {
        let t = TempDir()
        var args = [script, command]
        for (k, image) in images.enumerated() {
            t.write("in\(k).raw", raw(image))
            args += [t.path + "/in\(k).raw", "\(image.width)", "\(image.height)"]
            if k == 0 { args.append("\(image.depth)") }
        }
        args += [json, t.path + "/out.raw"]
        _ = try Python.run(args)
        return image(raw: t.read("out.raw"), images[0].width, images[0].height, depth: images[0].depth)
    }

    /// The largest difference between two images' channels.
    static func worst(_ a: Image, _ b: Image) -> Int {
        zip(quads(a).flatMap { $0 }, quads(b).flatMap { $0 }).map { abs($0 - $1) }.max() ?? Int.max
    }

    static func decode(_ json: String, _ table: [Parameter]) throws -> Arguments {
        guard case .object(let o) = try JSONParser.parse(Array(json.utf8)) else { throw StageError("not an object") }
        var decoder = ParameterDecoder(file: "", placeholders: [:], knownNames: [], baseDirectory: "/t")
        guard let a = decoder.decode(o, at: .root, table: table) else { throw StageError("\(decoder.diagnostics)") }
        return a
    }

    // MARK: - Against the formulas

    @Test(
        Reference.needs(NormalsTests.available, "python3 numpy"),
        arguments: [8, 16],
        [
            "{}", #"{"filter": "scharr", "strength": 2.5}"#, #"{"filter": "central", "convention": "directx"}"#,
            #"{"edge": "wrap", "channel": "g", "keepHeight": true}"#, #"{"channel": "a", "strength": 0.5}"#,
        ])
    func fromHeightIsItsFormula(depth: Int, json: String) throws {
        let input = Self.heights(37, 23, depth: depth, seed: 7)
        let stage = NormalFromHeight(try Self.decode(json, NormalFromHeight.parameters))
        let got = try stage.applied(to: input, rows: TestRows(bandRows: 5))[0]
        let want = try Self.reference("from-height", [input], json)
        #expect(Self.worst(got, want) <= 1, "\(depth)-bit \(json)")
    }

    @Test(
        Reference.needs(NormalsTests.available, "python3 numpy"),
        arguments: [8, 16],
        ["{}", #"{"flipY": true}"#, #"{"fromXY": true, "strength": 0.5}"#, #"{"strength": 3, "flipY": true}"#])
    func adjustIsItsFormula(depth: Int, json: String) throws {
        let input = Self.normals(29, 17, depth: depth, seed: 3)
        let got = try NormalAdjust(try Self.decode(json, NormalAdjust.parameters)).applied(to: input)[0]
        #expect(Self.worst(got, try Self.reference("adjust", [input], json)) <= 1, "\(depth)-bit \(json)")
    }

    @Test(
        Reference.needs(NormalsTests.available, "python3 numpy"),
        arguments: [8, 16], ["rnm", "whiteout", "udn", "linear"])
    func blendIsItsFormula(depth: Int, method: String) throws {
        let base = Self.normals(24, 20, depth: depth, seed: 11)
        for (detail, tile) in [
            (Self.normals(24, 20, depth: depth, seed: 12), false), (Self.normals(7, 5, depth: depth, seed: 13), true),
        ] {
            let json = #"{"detail": "d.png", "method": "\#(method)", "strength": 0.7, "tile": \#(tile)}"#
            let stage = NormalBlend(try Self.decode(json, NormalBlend.parameters))
            let got = try stage.applied(to: base, images: [stage.path: detail])[0]
            #expect(
                Self.worst(got, try Self.reference("blend", [base, detail], json)) <= 1,
                "\(depth)-bit \(method) \(tile)")
        }
    }

    @Test func blendRefusesADetailOfAnotherSizeNamingBoth() throws {
        let stage = NormalBlend(path: "/t/d.png")
        #expect {
            try stage.applied(
                to: Self.normals(8, 8, depth: 8, seed: 1), images: ["/t/d.png": Self.normals(4, 4, depth: 8, seed: 2)])
        } throws: { "\($0)".contains("4×4") && "\($0)".contains("8×8") }
        #expect(
            stage.reads == [
                .image(path: "/t/d.png", label: "detail", sameSize: true, hint: " (or \"tile\": true to repeat it)")
            ])
    }

    @Test(
        Reference.needs(NormalsTests.available, "python3 numpy"),
        arguments: [8, 16], [(32, 32), (48, 40), (20, 12)])
    func roughnessFromNormalsIsGodotsFormula(depth: Int, normalSize: (Int, Int)) throws {
        let orm = Self.heights(32, 32, depth: depth, seed: 5)
        let map = Self.normals(normalSize.0, normalSize.1, depth: depth, seed: 6)
        let plain = try Mipmaps(try Self.decode(#"{"colorSpace": "linear"}"#, Mipmaps.parameters)).applied(to: orm)
        let json = #"{"colorSpace": "linear", "roughnessFrom": {"normals": "n.png", "channel": "g"}}"#
        let stage = Mipmaps(try Self.decode(json, Mipmaps.parameters))
        let raised = try stage.applied(to: orm, images: ["/t/n.png": map])
        #expect(raised.count == plain.count)
        // Level 0 is untouched; every level below it is the formula over the plain chain's level.
        #expect(raised[0].pixels == plain[0].pixels)
        for n in 1..<plain.count {
            let want = try Self.reference("roughness", [plain[n], map], #"{"channel": "g"}"#)
            #expect(Self.worst(raised[n], want) <= 1, "level \(n), \(depth)-bit, normals \(normalSize)")
        }
        // Roughness only rises, and only in its channel.
        for n in 1..<plain.count {
            for (a, b) in zip(quads(plain[n]), quads(raised[n])) {
                #expect(b[1] >= a[1] && b[0] == a[0] && b[2] == a[2] && b[3] == a[3])
            }
        }
    }

    @Test func aFlatNormalMapChangesNoRoughness() throws {
        let orm = Self.heights(16, 16, depth: 8, seed: 9)
        let flat = image8(16, 16, Array(repeating: [128, 128, 255, 255], count: 256))
        let json = #"{"roughnessFrom": {"normals": "flat.png"}}"#
        let raised = try Mipmaps(try Self.decode(json, Mipmaps.parameters)).applied(
            to: orm, images: ["/t/flat.png": flat])
        let plain = try Mipmaps().applied(to: orm)
        #expect(raised.map(\.pixels) == plain.map(\.pixels))
        // And the formula's ends: r = 1 adds nothing, r = 0 the cap 0.16.
        #expect(RoughnessFrom.added(1) == 0 && RoughnessFrom.added(0) == 0.16)
        // κ at r = 0.9: (2.7 − 0.729) / 0.19; 3σ² = 0.75 / κ.
        #expect(abs(RoughnessFrom.added(0.9) - 0.75 / ((2.7 - 0.729) / 0.19)) < 1e-12)
    }

    // MARK: - Conventions, by lighting

    /// A dome lit from the top of the image: with the OpenGL map (green up) the texels of its upper
    /// half face the light; the DirectX map, flipped, lights the same; unflipped it lights the
    /// lower half.
    @Test func conventionsAreCheckedByLighting() throws {
        let n = 48
        var px: [[Int]] = []
        for y in 0..<n {
            for x in 0..<n {
                let d = (pow(Double(x) - 23.5, 2) + pow(Double(y) - 23.5, 2)).squareRoot() / 18
                let h = d < 1 ? (1 - d * d).squareRoot() : 0
                px.append(Array(repeating: Int(h * 255), count: 3) + [255])
            }
        }
        let bump = image8(n, n, px)
        let gl = try NormalFromHeight(strength: 6).applied(to: bump)[0]
        let dx = try NormalFromHeight(strength: 6, convention: .directx).applied(to: bump)[0]
        let flipped = try NormalAdjust(flipY: true).applied(to: dx)[0]
        // Light from above the image, in tangent space with v up: (0, 1, 1) / √2.
        func lit(_ image: Image, _ x: Int, _ y: Int) -> Double {
            let p = image.pixel(x, y).map { 2 * Double($0) / 255 - 1 }
            return Swift.max(0, (p[1] + p[2]) / 2.squareRoot())
        }
        var (upper, lower) = (0.0, 0.0)
        for y in 0..<n {
            for x in 0..<n {
                #expect(abs(lit(gl, x, y) - lit(flipped, x, y)) < 0.02, "(\(x), \(y))")
                if y < 20 { upper += lit(gl, x, y) } else if y > 27 { lower += lit(gl, x, y) }
            }
        }
        #expect(upper > lower * 1.2, "the upper half faces the light: \(upper) against \(lower)")
        // Unflipped, the DirectX map lights the dome from below.
        var (dxUpper, dxLower) = (0.0, 0.0)
        for y in 0..<n {
            for x in 0..<n { if y < 20 { dxUpper += lit(dx, x, y) } else if y > 27 { dxLower += lit(dx, x, y) } }
        }
        #expect(dxLower > dxUpper * 1.2)
    }

    @Test func bandsDoNotChangeTheBytes() throws {
        let input = Self.heights(40, 33, depth: 16, seed: 21)
        for stage in [NormalFromHeight(edge: .wrap) as any Stage, NormalAdjust(strength: 2)] {
            let one = try stage.applied(to: input)[0]
            let many = try stage.applied(to: input, rows: TestRows(bandRows: 3))[0]
            #expect(one == many, "\(type(of: stage).name)")
        }
    }
}
