import Foundation
import Testing

@testable import TexPipe
@testable import TexPipeCodecs
@testable import TexPipeEngine
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

    /// For each stage, manifest arguments that must give back `opaque` unchanged.
    static let identities: [String: [(String, JSON)]] = [
        "color-key": [("color", .string("#00ff00"))],
        "premultiply": [],
        "unpremultiply": [],
        "flatten": [],
        "flip": [("axis", .string("horizontal"))],  // applied twice below
        "crop": [("x", .number(0)), ("y", .number(0)), ("width", .number(3)), ("height", .number(2))],
        "pad": [],
        "trim": [],
        "bleed": [],
        "alpha-split": [],  // the diffuse map of an opaque image is the image
        "alpha-merge": [("alpha", .string(ConformanceTests.opaqueMapPath))],
        "mipmaps": [("levels", .number(1))],
        "resize": [("width", .number(3))],
        "rotate": [("degrees", .number(0))],
        "shadow": [("color", .string("transparent")), ("clip", .bool(true))],
        "round-corners": [("radius", .number(0))],
        "extrude": [("pixels", .number(0))],
        "composite": [("layers", .array([.object(ConformanceTests.object([("color", .string("transparent"))]))]))],
        "adjust": [("hue", .number(360))],
    ]

    static func object(_ pairs: [(String, JSON)]) -> JSONObject {
        var o = JSONObject()
        for (k, v) in pairs { o.insert(k, v) }
        return o
    }

    /// An opaque gray map of `opaque`'s size, written once for alpha-merge's identity case.
    static let opaqueMapPath: String = {
        let path = NSTemporaryDirectory() + "texpipe-conformance-map.png"
        let bytes = ReferencePNG.encode(
            .init(width: 3, height: 2, colorType: 0, bitDepth: 8, samples: Array(repeating: 255, count: 6)))
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }()

    @Test func namesAreUniqueAndEveryStageHasAnIdentityCase() {
        #expect(Set(StageRegistry.names).count == StageRegistry.names.count)
        for name in StageRegistry.names { #expect(Self.identities[name] != nil, "\(name) needs an identity case") }
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
        var object = JSONObject()
        for (k, v) in try #require(Self.identities[name]) { object.insert(k, v) }
        var decoder = ParameterDecoder(file: "", placeholders: [:], knownNames: [])
        let decoded = decoder.decode(object, at: .root, table: type.parameters)
        let args = try #require(decoded)
        let stage = try type.init(args)
        var input = Self.opaque
        if name == "unpremultiply" { input.alpha = .premultiplied }
        var out = try stage.applied(to: input)
        if name == "flip" { out = try stage.applied(to: out[0]) }
        #expect(out[0].pixels == input.pixels && out[0].width == input.width && out[0].height == input.height)
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
