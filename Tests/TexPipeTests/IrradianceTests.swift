import Foundation
import Testing
import TexPipePlanTestSupport
import TexPipeTestSupport

@testable import TexPipe
@testable import TexPipeCodecs
@testable import TexPipeEngine
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeStages

/// `irradiance` (docs/hdr.md "Irradiance") against closed forms: a constant and a linear sky have
/// exact SH projections and exact irradiance.
@Suite("irradiance")
struct IrradianceTests {
    @Test func aConstantSkyGivesPiTimesItsRadiance() throws {
        let cube = PrefilterTests.cube(16) { _ in SIMD3(2, 0.5, 3) }
        let e = Irradiance.coefficients(cube)
        // E00 = π · ∫ L Y00 dΩ = π · L · 0.282095 · 4π; every other coefficient 0.
        let e00 = Double.pi * 0.282_095 * 4 * .pi
        #expect(abs(e[0].x - 2 * e00) < 1e-4 * e00 && abs(e[0].z - 3 * e00) < 1e-4 * e00)
        for k in 1..<9 { #expect(abs(e[k].x) + abs(e[k].y) + abs(e[k].z) < 1e-4) }
        let out = try Irradiance(size: 4).applied(to: cube, images: [:])[0]
        #expect(out.cube && out.width == 4 && out.height == 24)
        // The irradiance cube is E / π: the constant radiance again.
        for y in 0..<24 {
            for x in 0..<4 {
                let p = out.floatPixel(x, y)
                #expect(abs(p.x - 2) < 1e-3 && abs(p.y - 0.5) < 1e-3 && abs(p.z - 3) < 1e-3)
            }
        }
    }

    @Test func aLinearSkyGivesTheClosedFormIrradiance() throws {
        // L(d) = 1 + d.z (red), 2 − d.x (green), 1 + d.y (blue): bands 0 and 1 only, so the
        // irradiance is exact: E(n) = π a + (2π/3) (b · n) for L = a + b · d.
        let cube = PrefilterTests.cube(32) { d in SIMD3(1 + d.z, 2 - d.x, 1 + d.y) }
        let e = Irradiance.coefficients(cube)
        #expect(abs(e[2].x - 2 * .pi / 3 * 0.488_603 * 4 * .pi / 3) < 2e-3)
        #expect(abs(e[3].y + 2 * .pi / 3 * 0.488_603 * 4 * .pi / 3) < 2e-3)
        for k in 4..<9 { #expect(abs(e[k].x) + abs(e[k].y) + abs(e[k].z) < 2e-3) }
        let out = try Irradiance(size: 8).applied(to: cube, images: [:])[0]
        for face in 0..<6 {
            for (x, y) in [(0, 0), (3, 5), (7, 7)] {
                let n = PrefilterTests.direction(face, x, y, 8)
                let want = SIMD3(1 + 2.0 / 3 * n.z, 2 - 2.0 / 3 * n.x, 1 + 2.0 / 3 * n.y)
                let p = out.floatPixel(x, face * 8 + y)
                #expect(abs(Double(p.x) - want.x) < 2e-3 && abs(Double(p.y) - want.y) < 2e-3)
                #expect(abs(Double(p.z) - want.z) < 2e-3, "face \(face) (\(x), \(y))")
            }
        }
    }

    @Test func theCoefficientsGoBesideTheOutputs() throws {
        let t = TempDir()
        t.write("in/sky.exr", try EXR.encode(CubemapTests.coordinates(32)))
        let plan = try t.plan(
            #"{ "version": 1, "output": "out", "pipelines": [ { "name": "ibl", "inputs": ["in/*.exr"], "stages": [{ "stage": "cubemap", "size": 8 }, { "stage": "irradiance" }, { "stage": "prefilter", "samples": 64 }], "texture": { "format": "rgba16f" }, "output": "{file}_ibl.ktx2" } ] }"#
        ).get()
        #expect(plan.jobs[0].outputs.map(\.relative) == ["sky_ibl.ktx2", "sky_ibl_sh.json"])
        #expect(plan.jobs[0].outputs.map(\.levels) == [4, 0])
        let results = Runner.run(plan, RunOptions(jobs: 1))
        #expect(results.map(\.status) == [.ok], "\(results.map(\.error))")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(t.read("out/sky_ibl_sh.json"))) as? [String: Any])
        let coefficients = try #require(json["coefficients"] as? [[Double]])
        #expect(coefficients.count == 9 && coefficients.allSatisfy { $0.count == 3 })
        // The same as the stage computes on the same cube.
        let cube = try Cubemap(size: 8).applied(to: CubemapTests.coordinates(32), images: [:])[0]
        let e = Irradiance.coefficients(cube)
        #expect(abs(coefficients[0][0] - e[0].x) < 1e-6 * abs(e[0].x))
        #expect(try TextureFile(t.read("out/sky_ibl.ktx2")).levels.count == 4)
        #expect(throws: StageError(.needsCube(stage: "irradiance"))) {
            try Irradiance().planned(Signature(of: CubemapTests.coordinates(8)))
        }
    }
}
