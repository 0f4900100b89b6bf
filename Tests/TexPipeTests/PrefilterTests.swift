import Foundation
import Testing
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

/// `prefilter` (docs/hdr.md "Prefiltering") against the integral it estimates, evaluated here by
/// brute force over every texel of the source cube.
@Suite("prefilter")
struct PrefilterTests {
    /// A cube of face `n` whose radiance is `f(direction)`.
    static func cube(_ n: Int, _ f: (SIMD3<Double>) -> SIMD3<Double>) -> Image {
        var floats: [Float] = []
        for face in 0..<6 {
            for y in 0..<n {
                for x in 0..<n {
                    let d = Self.direction(face, x, y, n)
                    let c = f(d)
                    floats += [Float(c.x), Float(c.y), Float(c.z), 1]
                }
            }
        }
        var image = Image(width: n, height: 6 * n, pixels: .rgbaF32(floats))
        image.cube = true
        return image
    }

    /// The unit direction through texel (x, y) of `face` (OpenGL's table, written here again).
    static func direction(_ face: Int, _ x: Int, _ y: Int, _ n: Int) -> SIMD3<Double> {
        let s = 2 * (Double(x) + 0.5) / Double(n) - 1
        let t = 2 * (Double(y) + 0.5) / Double(n) - 1
        let d: SIMD3<Double> =
            switch face {
            case 0: SIMD3(1, -t, -s)
            case 1: SIMD3(-1, -t, s)
            case 2: SIMD3(s, 1, t)
            case 3: SIMD3(s, -1, -t)
            case 4: SIMD3(s, -t, 1)
            default: SIMD3(-s, -t, -1)
            }
        return d / (d * d).sum().squareRoot()
    }

    /// ∫ L(l) (n·l) D(h) dl / ∫ (n·l) D(h) dl over n·l > 0, h = (n + l) / |n + l|: what the
    /// importance-sampled sum estimates (pdf(l) = D(h) / 4 when v = n), summed over every texel
    /// with its solid angle (4 / (n² r³) on the unit cube's face).
    static func exact(_ cube: Image, at normal: SIMD3<Double>, roughness: Double) -> SIMD3<Double> {
        let a2 = pow(roughness, 4)
        let n = cube.width
        var num = SIMD3<Double>()
        var den = 0.0
        for face in 0..<6 {
            for y in 0..<n {
                for x in 0..<n {
                    let s = 2 * (Double(x) + 0.5) / Double(n) - 1
                    let t = 2 * (Double(y) + 0.5) / Double(n) - 1
                    let r2 = 1 + s * s + t * t
                    let omega = 4 / (Double(n * n) * r2 * r2.squareRoot())
                    let l = Self.direction(face, x, y, n)
                    let nl = (l * normal).sum()
                    guard nl > 0 else { continue }
                    var h = l + normal
                    h /= (h * h).sum().squareRoot()
                    let nh = (h * normal).sum()
                    let d = a2 / (.pi * pow(nh * nh * (a2 - 1) + 1, 2))
                    let w = nl * d * omega
                    let p = cube.floatPixel(x, face * n + y)
                    num += SIMD3(Double(p.x), Double(p.y), Double(p.z)) * w
                    den += w
                }
            }
        }
        return num / den
    }

    @Test func aUniformEnvironmentStaysUniformAtEveryRoughness() throws {
        let cube = Self.cube(16) { _ in SIMD3(2, 0.5, 100) }
        let levels = try Prefilter(samples: 256).applied(to: cube, images: [:])
        #expect(levels.count == 5 && levels.map(\.width) == [16, 8, 4, 2, 1] && levels.allSatisfy(\.cube))
        #expect(levels.map(\.textureLevel) == [0, 1, 2, 3, 4])
        for level in levels {
            guard case .rgbaF32(let p) = level.pixels else {
                Issue.record("level \(level.textureLevel) is not float pixels")
                return
            }
            for i in stride(from: 0, to: p.count, by: 4) {
                #expect(abs(p[i] - 2) < 1e-4 && abs(p[i + 1] - 0.5) < 1e-4 && abs(p[i + 2] - 100) < 5e-3)
            }
        }
    }

    @Test func eachLevelIsTheGGXIntegralWithinTwoPercent() throws {
        // A smooth sky: brighter towards +Y, tinted along X and Z.
        let cube = Self.cube(32) { d in
            SIMD3(1 + 0.8 * d.x, 1 + 2 * max(d.y, 0) * max(d.y, 0), 2 + d.z)
        }
        let levels = try Prefilter(samples: 1024, levels: 5).applied(to: cube, images: [:])
        for n in 1..<5 {
            let roughness = Double(n) / 4
            let size = levels[n].width
            for (face, x, y) in [(0, size / 2, size / 2), (2, 0, size - 1), (3, size / 3, 0), (5, size - 1, size / 2)] {
                let want = Self.exact(cube, at: Self.direction(face, x, y, size), roughness: roughness)
                let got = levels[n].floatPixel(x, face * size + y)
                let error = SIMD3(Double(got.x), Double(got.y), Double(got.z)) - want
                let relative = (error * error).sum().squareRoot() / (want * want).sum().squareRoot()
                #expect(relative < 0.02, "level \(n) face \(face) (\(x), \(y)): \(got) vs \(want)")
            }
        }
    }

    @Test func theBytesDoNotDependOnTheBands() throws {
        let cube = Self.cube(8) { d in SIMD3(1 + d.x, 2 + d.y * 3, d.z * d.z) }
        let serial = try Prefilter(samples: 64).applied(to: cube, images: [:])
        let threaded = try Prefilter(samples: 64).applied(to: cube, images: [:], rows: ThreadedRows())
        #expect(serial.map(\.pixels) == threaded.map(\.pixels))
    }

    @Test func itTakesACube() throws {
        let flat = Image(width: 4, height: 2, pixels: .rgbaF32([Float](repeating: 1, count: 32)))
        #expect(throws: StageError(.needsCube(stage: "prefilter"))) { try Prefilter().planned(Signature(of: flat)) }
        // Files: a level per file, `_mip{n}`.
        var files = Prefilter(samples: 4, levels: 2)
        files.layout = .files
        let out = try files.applied(to: Self.cube(4) { _ in SIMD3(1, 1, 1) }, images: [:])
        #expect(out.map(\.suffix) == ["_mip0", "_mip1"] && out.map { $0.labels["level"] } == ["0", "1"])
    }
}
