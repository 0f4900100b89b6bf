import Foundation
import Testing
import TexPipePlanTestSupport
import TexPipeTestSupport

@testable import TexPipe
@testable import TexPipeCodecs
@testable import TexPipeEngine
@testable import TexPipeFormats
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeStages

/// Cube maps (docs/hdr.md "Cube maps"): the face table against OpenGL's, `cubemap` against the
/// equirect mapping evaluated here, the containers' cube headers read by the test's own readers.
@Suite("cube maps")
struct CubemapTests {
    /// OpenGL's cube-map face selection (the OpenGL 4.6 specification, table 8.19), written out
    /// here: the major axis picks the face; s = (sc / |ma| + 1) / 2, t = (tc / |ma| + 1) / 2.
    static func glFace(_ d: SIMD3<Double>) -> (face: Int, s: Double, t: Double) {
        let (rx, ry, rz) = (d.x, d.y, d.z)
        let (face, sc, tc, ma): (Int, Double, Double, Double)
        if abs(rx) >= abs(ry) && abs(rx) >= abs(rz) {
            (face, sc, tc, ma) = rx > 0 ? (0, -rz, -ry, rx) : (1, rz, -ry, rx)
        } else if abs(ry) >= abs(rz) {
            (face, sc, tc, ma) = ry > 0 ? (2, rx, rz, ry) : (3, rx, -rz, ry)
        } else {
            (face, sc, tc, ma) = rz > 0 ? (4, rx, -ry, rz) : (5, -rx, -ry, rz)
        }
        return (face, (sc / abs(ma) + 1) / 2, (tc / abs(ma) + 1) / 2)
    }

    @Test func theFaceTableIsOpenGLs() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53) * 2 - 1
        }
        for _ in 0..<2000 {
            let d = SIMD3(next(), next(), next())
            guard (d * d).sum() > 1e-6 else { continue }
            let gl = Self.glFace(d)
            let ours = CubeMap.face(of: SIMD3<Float>(Float(d.x), Float(d.y), Float(d.z)))
            #expect(ours.face == gl.face)
            // Ours in [−1, 1], GL's in [0, 1].
            #expect(abs(Double(ours.s) - (2 * gl.s - 1)) < 1e-5 && abs(Double(ours.t) - (2 * gl.t - 1)) < 1e-5)
            // And back: the direction through that point is d, up to length.
            let back = CubeMap.direction(face: ours.face, s: ours.s, t: ours.t)
            let a = SIMD3<Double>(Double(back.x), Double(back.y), Double(back.z))
            let cross = SIMD3(a.y * d.z - a.z * d.y, a.z * d.x - a.x * d.z, a.x * d.y - a.y * d.x)
            #expect((cross * cross).sum().squareRoot() < 1e-5 * (a * a).sum().squareRoot() * (d * d).sum().squareRoot())
            #expect((a * d).sum() > 0)
        }
        // Face centres.
        let centres = (0..<6).map { CubeMap.direction(face: $0, s: 0, t: 0) }
        #expect(
            centres == [
                SIMD3(1, 0, 0), SIMD3(-1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, -1, 0), SIMD3(0, 0, 1), SIMD3(0, 0, -1),
            ])
    }

    /// An HDR equirect whose texel holds where it is: R = u, G = v (fractions of the texel centres).
    static func coordinates(_ w: Int) -> Image {
        let h = w / 2
        var floats: [Float] = []
        for y in 0..<h {
            for x in 0..<w { floats += [(Float(x) + 0.5) / Float(w), (Float(y) + 0.5) / Float(h), 1, 1] }
        }
        return Image(width: w, height: h, pixels: .rgbaF32(floats))
    }

    @Test(arguments: [Cubemap.Filter.bilinear, .bicubic])
    func eachTexelSamplesTheEquirectAtItsDirection(_ filter: Cubemap.Filter) throws {
        let (w, n) = (256, 16)
        let cube = try Cubemap(size: n, filter: filter).applied(to: Self.coordinates(w), images: [:])[0]
        #expect(cube.cube && cube.width == n && cube.height == 6 * n && cube.isHDR)
        let faces = cube.cubeFaces()
        var checked = 0
        for f in 0..<6 {
            for y in 0..<n {
                for x in 0..<n {
                    // The texel's direction from OpenGL's table (written in the tests once), and the
                    // SPEC's mapping evaluated here: +Y up, longitude atan2(x, −z), −Z at the centre.
                    let d = PrefilterTests.direction(f, x, y, n)
                    let u = atan2(d.x, -d.z) / (2 * .pi) + 0.5
                    let v = 0.5 - asin(d.y / (d * d).sum().squareRoot()) / .pi
                    // Away from the seam (u near 0 or 1) and the poles, where the gradient wraps or clamps.
                    guard u > 2.0 / Double(w), u < 1 - 2.0 / Double(w), v > 2.0 / Double(w / 2),
                        v < 1 - 2.0 / Double(w / 2)
                    else { continue }
                    let p = faces[f].floatPixel(x, y)
                    #expect(abs(Double(p.x) - u) < 1e-4 && abs(Double(p.y) - v) < 1e-4, "face \(f) (\(x), \(y))")
                    checked += 1
                }
            }
        }
        #expect(checked > 6 * n * n / 2)
        // The default size is a quarter of the width.
        #expect(try Cubemap().applied(to: Self.coordinates(64), images: [:])[0].width == 16)
    }

    /// Six faces of six colours, each face uniform.
    static func coloured(_ n: Int) -> Image {
        let colours: [SIMD4<Float>] = [
            SIMD4(1, 0, 0, 1), SIMD4(0, 1, 0, 1), SIMD4(0, 0, 1, 1), SIMD4(8, 8, 0, 1), SIMD4(0, 5, 5, 1),
            SIMD4(0.5, 0.25, 100, 1),
        ]
        var floats: [Float] = []
        for c in colours { for _ in 0..<(n * n) { floats += [c.x, c.y, c.z, c.w] } }
        var image = Image(width: n, height: 6 * n, pixels: .rgbaF32(floats))
        image.cube = true
        return image
    }

    @Test func mipmapsFilterEachFaceOnItsOwn() throws {
        let cube = Self.coloured(8)
        var mipmaps = Mipmaps()
        mipmaps.layout = .texture
        mipmaps.filter = .lanczos3
        let levels = try mipmaps.applied(to: cube, images: [:])
        #expect(levels.count == 4 && levels.map(\.width) == [8, 4, 2, 1] && levels.allSatisfy(\.cube))
        #expect(levels.map(\.textureLevel) == [0, 1, 2, 3])
        let planned = try mipmaps.planned(Signature(of: cube))
        #expect(
            planned.map(\.width) == [8, 4, 2, 1] && planned.map(\.height) == [48, 24, 12, 6]
                && planned.allSatisfy(\.cube))
        for level in levels {
            for (f, face) in level.cubeFaces().enumerated() {
                let want = cube.cubeFaces()[f].floatPixel(0, 0)
                for y in 0..<face.height {
                    for x in 0..<face.width {
                        let p = face.floatPixel(x, y)
                        #expect(abs(p.x - want.x) + abs(p.y - want.y) + abs(p.z - want.z) < 1e-3 * max(1, want.z))
                    }
                }
            }
        }
    }

    /// `inspect`'s HDR line covers every face: `coloured`'s brightest texel (blue 100) is on −Z,
    /// and the mean luminance is the six faces' (Rec. 709 weights, evaluated here).
    @Test(arguments: [TextureContainer.ktx2, .dds])
    func inspectMeasuresEveryFace(_ container: TextureContainer) throws {
        let t = TempDir()
        let settings = TextureSettings(
            format: .rgba16f, colorSpace: .linear, quality: .medium, supercompression: .none, zstdLevel: 9)
        let name = "cube." + (container == .ktx2 ? "ktx2" : "dds")
        t.write(name, try TextureEncoder.encode([Self.coloured(4)], settings, container: container))
        let facts = try Inspector.facts(path: t.path + "/" + name)
        let faces: [SIMD3<Double>] = [
            SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1), SIMD3(8, 8, 0), SIMD3(0, 5, 5), SIMD3(0.5, 0.25, 100),
        ]
        let mean = faces.map { 0.2126 * $0.x + 0.7152 * $0.y + 0.0722 * $0.z }.reduce(0, +) / 6
        let hdr = try #require(facts.hdr)
        #expect(hdr.max == 100 && abs(hdr.meanLuminance - mean) < 1e-5 * mean, "\(hdr) against \(mean)")
        #expect(try Inspector.describe(path: t.path + "/" + name).contains("level 0 HDR (all six faces): max 100"))
    }

    @Test(arguments: [TextureContainer.ktx2, .dds])
    func containersDeclareACubeAndHoldEveryFace(_ container: TextureContainer) throws {
        let cube = Self.coloured(4)
        var mipmaps = Mipmaps()
        mipmaps.layout = .texture
        let levels = try mipmaps.applied(to: cube, images: [:])
        let settings = TextureSettings(
            format: .rgba16f, colorSpace: .linear, quality: .medium, supercompression: .none, zstdLevel: 9)
        let bytes = try TextureEncoder.encode(levels, settings, container: container)
        // Half floats of face f, level n, as they must appear.
        func halves(_ f: Int, _ n: Int) -> [UInt8] {
            let face = levels[n].cubeFaces()[f]
            guard case .rgbaF32(let p) = face.pixels else { return [] }
            return p.flatMap { v -> [UInt8] in
                let b = Float16(v).bitPattern
                return [UInt8(b & 0xFF), UInt8(b >> 8)]
            }
        }
        switch container {
        case .ktx2:
            let k = try #require(KTX2File(bytes))
            #expect(k.faceCount == 6 && k.layerCount == 0 && k.pixelWidth == 4 && k.pixelHeight == 4)
            #expect(k.levelCount == 3)
            // Each level: the faces +X … −Z in order.
            for n in 0..<3 { #expect(k.levelData(n) == (0..<6).flatMap { halves($0, n) }) }
        case .dds:
            let d = try #require(DDSFile(bytes))
            #expect(d.caps2 == 0x200 | 0xFC00 && d.miscFlag & 0x4 == 4 && d.arraySize == 1)
            #expect(d.width == 4 && d.height == 4 && d.mipMapCount == 3)
            // Each face's whole chain in turn.
            #expect(d.data == (0..<6).flatMap { f in (0..<3).flatMap { halves(f, $0) } })
        }
        let file = try TextureFile(bytes)
        #expect(file.isCube && file.layers == 6 && !file.isArray)
        #expect(try file.level(1, layer: 5).floatPixel(1, 1) == SIMD4(0.5, 0.25, 100, 1))
    }

    static let hasPy360 = Python.has("py360convert")

    /// Against PyPI's py360convert (`e2c`, bilinear) on a smooth HDR sky: its faces F, R, B, L are
    /// texpipe's −Z, +X, +Z, −X mirrored left to right and its U and D texpipe's +Y and −Y
    /// mirrored top to bottom (it draws faces as seen from outside the cube; KTX and OpenGL from
    /// inside). It samples its faces on a slightly different grid (within a texel), so the
    /// comparison is within interpolation error: differences against each channel's peak.
    @Test(Reference.needs(hasPy360, "python3 py360convert"))
    func facesMatchPy360convert() throws {
        let (w, h, n) = (256, 128, 32)
        var floats: [Float] = []
        for y in 0..<h {
            for x in 0..<w {
                let u = (Double(x) + 0.5) / Double(w)
                let v = (Double(y) + 0.5) / Double(h)
                floats += [
                    Float(2 + sin(2 * .pi * u) * sin(.pi * v)), Float(1 + cos(.pi * v)),
                    Float(1.5 + 0.5 * cos(2 * .pi * u)), 1,
                ]
            }
        }
        let t = TempDir()
        t.write("e.f32", floats.enumerated().filter { $0.offset % 4 != 3 }.map(\.element).withUnsafeBytes { Array($0) })
        let raw = try Python.run(
            "import sys, numpy as np, py360convert as p; w, h, n = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]); "
                + "e = np.fromfile(sys.argv[1], dtype=np.float32).reshape(h, w, 3).astype(np.float64); "
                + "d = p.e2c(e, face_w=n, mode='bilinear', cube_format='dict'); "
                + "sys.stdout.buffer.write(b''.join(d[k].astype(np.float32).tobytes() for k in 'FRBLUD'))",
            t.path + "/e.f32", String(w), String(h), String(n))
        #expect(raw.count == 6 * n * n * 3 * 4)
        let theirs = raw.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let cube = try Cubemap(size: n, filter: .bilinear).applied(
            to: Image(width: w, height: h, pixels: .rgbaF32(floats)), images: [:])[0]
        let faces = cube.cubeFaces()
        // texpipe's face → (py360convert's face in F, R, B, L, U, D order, mirrored left-right?).
        let mapping: [(Int, Bool)] = [(1, true), (3, true), (4, false), (5, false), (2, true), (0, true)]
        let peak: [Float] = [3, 2, 2]
        var sum = 0.0
        var worst: Float = 0
        for (f, (k, leftRight)) in mapping.enumerated() {
            for y in 0..<n {
                for x in 0..<n {
                    let (sx, sy) = leftRight ? (n - 1 - x, y) : (x, n - 1 - y)
                    let mine = faces[f].floatPixel(x, y)
                    for c in 0..<3 {
                        let d = abs(mine[c] - theirs[((k * n + sy) * n + sx) * 3 + c]) / peak[c]
                        sum += Double(d)
                        worst = max(worst, d)
                    }
                }
            }
        }
        let mean = sum / Double(6 * n * n * 3)
        #expect(mean < 0.005 && worst < 0.04, "mean \(mean), worst \(worst)")
    }

    @Test func planningACube() throws {
        let t = TempDir()
        t.write("in/sky.exr", try EXR.encode(Self.coordinates(16)))
        #expect(
            t.errors(
                #"{ "version": 1, "output": "out", "pipelines": [ { "name": "p", "inputs": ["in/*.exr"], "stages": [{ "stage": "cubemap" }, { "stage": "resize", "scale": 0.5 }], "output": "{file}.exr" } ] }"#
            ) == [
                "error: $T/pipeline.json: pipelines[0].stages[1]: resize: resize does not take cube maps (after cubemap: mipmaps, prefilter, irradiance, tonemap, premultiply and unpremultiply do)"
            ])
        t.write(
            "in/wide.exr",
            try EXR.encode(Image(width: 9, height: 4, pixels: .rgbaF32([Float](repeating: 1, count: 144)))))
        let plan = try t.plan(
            #"{ "version": 1, "output": "out", "pipelines": [ { "name": "p", "inputs": ["in/sky.exr", "in/wide.exr"], "stages": [{ "stage": "cubemap", "size": 2 }], "output": "{file}/{face}.exr" }, { "name": "t", "inputs": ["in/sky.exr"], "stages": [{ "stage": "cubemap", "size": 2 }, { "stage": "mipmaps" }], "texture": { "format": "rgba16f" }, "output": "{file}{suffix}.ktx2" } ] }"#
        ).get()
        #expect(
            plan.jobs[0].outputs.map(\.relative) == [
                "sky/px.exr", "sky/nx.exr", "sky/py.exr", "sky/ny.exr", "sky/pz.exr", "sky/nz.exr",
            ])
        #expect(plan.jobs[0].outputs.map(\.face) == [0, 1, 2, 3, 4, 5])
        #expect(
            plan.jobs[1].failure?.message
                == "cubemap takes an equirectangular image, twice as wide as high; this one is 9×4")
        #expect(plan.jobs[2].outputs.map(\.relative) == ["sky.ktx2"] && plan.jobs[2].outputs[0].levels == 2)
        let results = Runner.run(plan, RunOptions(jobs: 2))
        #expect(results.map(\.status) == [.ok, .failed, .ok])
        // Face files hold the faces of the cube the texture holds.
        let texture = try TextureFile(t.read("out/sky.ktx2"))
        for (f, name) in CubeMap.faceNames.enumerated() {
            let face = try ImageDecoder.decode(t.read("out/sky/\(name).exr"))
            let inTexture = try texture.level(0, layer: f)
            #expect(face.pixels == inTexture.pixels, "\(name)")
        }
    }
}
