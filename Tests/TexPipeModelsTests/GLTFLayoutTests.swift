import Foundation
import Testing

@testable import TexPipeFormats
@testable import TexPipeModels
@testable import TexPipeParameters
@testable import TexPipePixels

/// The glTF container's pieces against expectations worked out by hand from docs/gltf.md: roles
/// and kinds as the documentation lists them, file names, and where a re-laid buffer puts views.
@Suite("glTF layout")
struct GLTFLayoutTests {
    static func model(_ json: String) throws -> GLTFModel { try GLTFModel.parse(Array(json.utf8)) }

    @Test func everyRoleHasTheKindTheDocumentationGivesIt() {
        // docs/gltf.md "Roles": colour, normal maps, data — typed out here, not read from the code.
        let color = ["baseColor", "emissive", "sheenColor", "specularColor"]
        let normal = ["normal", "clearcoatNormal"]
        let data = [
            "metallicRoughness", "occlusion", "clearcoat", "clearcoatRoughness", "sheenRoughness", "specular",
            "transmission", "thickness", "iridescence", "iridescenceThickness", "anisotropy",
        ]
        #expect(Set(GLTFRole.allCases.map(\.rawValue)) == Set(color + normal + data))
        for role in GLTFRole.allCases {
            let kind: GLTFRole.Kind =
                color.contains(role.rawValue) ? .color : normal.contains(role.rawValue) ? .normal : .data
            #expect(role.kind == kind, "\(role)")
        }
        #expect(GLTFRole.governing([.occlusion, .metallicRoughness]) == .metallicRoughness)
        #expect(GLTFRole.governing([.transmission, .occlusion]) == .occlusion)
    }

    @Test func texturesAreNamedAfterTheirURIsNamesOrIndices() throws {
        let m = try Self.model(
            #"""
            {"asset": {"version": "2.0"},
             "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}, "metallicRoughnessTexture": {"index": 4}},
                            "normalTexture": {"index": 1}, "emissiveTexture": {"index": 2}, "occlusionTexture": {"index": 3}},
                           {"pbrMetallicRoughness": {"baseColorTexture": {"index": 1}}}],
             "textures": [{"source": 0}, {"source": 1}, {"source": 2}, {"source": 3}, {"source": 4}],
             "images": [{"uri": "tex/a%20b.png"}, {"uri": "../up/c.png"}, {"uri": "data:image/png;base64,AAAA", "name": "n/x"},
                        {"bufferView": 0, "mimeType": "image/png"}, {"uri": "tex/a b.jpg"}],
             "bufferViews": [{"buffer": 0, "byteLength": 4}], "buffers": [{"uri": "m.bin", "byteLength": 4}]}
            """#)
        let layout = try GLTFLayout(m, binary: false, stem: "m")
        #expect(layout.textures.map(\.name) == ["tex/a b", "c_normal", "c_baseColor", "n_x", "image3", "tex/a b_2"])
        #expect(layout.textures.map(\.kind) == [.color, .normal, .color, .color, .data, .data])
        #expect(layout.mixed.map(\.image) == [1])
        #expect(layout.beside == [GLTFLayout.Beside(name: "m.bin", what: .buffer(0))])
        // A GLB holds every image; its first buffer is the BIN chunk.
        let glb = try GLTFLayout(m, binary: true, stem: "m")
        #expect(glb.textures.allSatisfy(\.inView) && glb.beside.isEmpty)
    }

    /// Views at 0 (48 bytes), the image at 48 (74 bytes), a view at 124 (12 bytes): the image's 10
    /// new bytes go at 48 (an 8-byte boundary), the last view at 60 — after 58, the first offset
    /// that is 124 modulo 16.
    @Test func aReLaidBufferKeepsEachViewsOffsetModulo16() throws {
        let views: [JSON] = [(0, 48), (48, 74), (124, 12)].map { offset, length in
            var o = JSONObject()
            o.insert("buffer", .number(0))
            o.insert("byteOffset", .number(Double(offset)))
            o.insert("byteLength", .number(Double(length)))
            return .object(o)
        }
        let buffer = (0..<136).map { UInt8($0) }
        let (bytes, places) = try GLTFRewrite.relay(
            buffer, views: views, mine: [0, 1, 2], replaced: [1: [UInt8](repeating: 0xEE, count: 10)])
        #expect(places[0]! == (0, 48) && places[1]! == (48, 10) && places[2]! == (60, 12))
        #expect(Array(bytes[0..<48]) == Array(buffer[0..<48]))
        #expect(Array(bytes[48..<58]) == [UInt8](repeating: 0xEE, count: 10))
        #expect(Array(bytes[60..<72]) == Array(buffer[124..<136]))
    }
}
