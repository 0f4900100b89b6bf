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

/// Every registered stage passes these: a complete parameter table, defaults in range,
/// and an identity case that leaves pixels untouched (STYLE 14).
@Suite("stage conformance")
struct ConformanceTests {
    /// An opaque 8-bit image with no pure green or black pixels.
    static let opaque = image8(
        3, 2,
        [
            [10, 20, 30, 255], [200, 100, 50, 255], [1, 2, 250, 255],
            [90, 90, 90, 255], [255, 255, 254, 255], [7, 70, 170, 255],
        ])

    /// `makesLevels` is all the planner knows of the stages that make level chains (it supplies
    /// `layout: texture` when a pipeline writes a GPU texture): exactly the stages whose `layout`
    /// can be `texture` declare it.
    @Test func levelMakersAreTheStagesWithATextureLayout() {
        for type in StageRegistry.all {
            let textureLayout = type.parameters.contains { p in
                guard p.name == "layout", case .choice(let values) = p.kind else { return false }
                return values.contains("texture")
            }
            #expect(type.makesLevels == textureLayout, "\(type.name)")
        }
        #expect(StageRegistry.all.filter { $0.makesLevels }.map { $0.name }.sorted() == ["mipmaps", "prefilter"])
    }

    @Test func namesAreUniqueAndIdentitiesDecode() throws {
        #expect(Set(StageRegistry.names).count == StageRegistry.names.count)
        for type in StageRegistry.all { _ = try Self.stage(type) }
    }

    /// The stage built from its own `identity` arguments, decoded as the manifest would.
    static func stage(_ type: any Stage.Type) throws -> any Stage {
        guard case .object(let object) = try JSONParser.parse(Array(type.identity.utf8)) else {
            throw StageError("\(type.name): identity is not a JSON object")
        }
        var decoder = ParameterDecoder(file: "", placeholders: [:], knownNames: [], baseDirectory: "/conformance")
        guard let args = decoder.decode(object, at: .root, table: type.parameters) else {
            throw StageError("\(type.name): identity arguments \(decoder.diagnostics)")
        }
        return try type.init(args)
    }

    @Test(arguments: StageRegistry.names)
    func parameterTableIsComplete(name: String) throws {
        let type = try #require(StageRegistry.named(name))
        #expect(!type.summary.isEmpty)
        let names = type.parameters.map(\.name)
        #expect(Set(names).count == names.count, "parameter names are unique")
        for p in type.parameters {
            #expect(!p.doc.isEmpty, "\(name).\(p.name) has a doc line")
            guard case .defaulted(let value) = p.requirement else { continue }
            // The default, written as JSON, passes the same validation as user input.
            let json = value.json
            let decoder = ParameterDecoder(file: "", placeholders: [:], knownNames: [])
            #expect(
                decoder.check(json, p.kind) == value, "\(name).\(p.name) default \(value) is in range and round-trips")
        }
        // `texpipe stages` prints every parameter from the same table.
        let reference = StageReference.text(for: [type])
        for p in type.parameters { #expect(reference.contains("  \(p.name): ")) }
    }

    @Test(arguments: StageRegistry.names)
    func identityCaseHolds(name: String) throws {
        let type = try #require(StageRegistry.named(name))
        let stage = try Self.stage(type)
        // A stage that reads or makes normal maps holds its identity on a normal map.
        var input = type.identityInput.map { image8(3, 2, $0) } ?? Self.opaque
        // A stage that needs premultiplied input (its straight plan fails) gets it.
        if (try? stage.planned(Signature(of: input))) == nil { input.alpha = .premultiplied }
        // A stage that takes only HDR images (tonemap) gets the same texels in linear light, and
        // must give back the 8-bit ones.
        var expected = input
        if (try? stage.planned(Signature(of: input))) == nil && type.takesHDR {
            expected = Self.opaque
            input = HDRTests.hdrOf(Self.opaque)
        }
        // A stage that changes the image's shape by design (cubemap: a 2:1 image to a cube) gets a
        // uniform 8×4 image, and its identity is that every output texel keeps the colour.
        var uniform = false
        if (try? stage.planned(Signature(of: input))) == nil {
            uniform = true
            input = image8(8, 4, Array(repeating: [10, 20, 30, 255], count: 32))
            expected = input
            // A stage that takes only cube maps (prefilter) gets a uniform cube of 2 × 2 faces.
            if (try? stage.planned(Signature(of: input))) == nil && type.takesCube {
                input = image8(2, 12, Array(repeating: [10, 20, 30, 255], count: 24))
                input.cube = true
            }
        }
        // Declared images: opaque white of the input's size, in memory.
        var images: [String: Image] = [:]
        for case .image(let path, _, _, _) in stage.reads {
            images[path] = image8(3, 2, Array(repeating: [255, 255, 255, 255], count: 6))
        }
        var out = [input]
        for _ in 0..<type.identityApplications { out = try stage.applied(to: out[0], images: images) }
        if uniform {
            #expect(out[0].pixelCount > 0)
            for y in 0..<out[0].height {
                for x in 0..<out[0].width { #expect(out[0].pixel(x, y) == [10, 20, 30, 255], "\(name) (\(x), \(y))") }
            }
        } else {
            #expect(out[0].pixels == expected.pixels && out[0].width == input.width && out[0].height == input.height)
        }
        // The plan's signatures agree with the result.
        let planned = try stage.planned(Signature(of: input))
        #expect(planned.count == out.count)
        for (sig, img) in zip(planned, out) {
            if let w = sig.width { #expect(w == img.width) }
            if let h = sig.height { #expect(h == img.height) }
            #expect(sig.alpha == img.alpha && sig.layout == img.layout && sig.suffix == img.suffix)
            #expect(sig.lossless == img.lossless && sig.labels == img.labels)
        }
    }
}
