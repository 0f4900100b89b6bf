internal import Foundation
internal import TexPipeCodecs
internal import TexPipeFormats
internal import TexPipeModels
internal import TexPipePixels
internal import TexPipeTextures

/// What `inspect` says of a glTF model: its counts and every image with its roles.
public struct ModelFacts: Codable, Sendable, Equatable {
    public var meshes: Int
    public var materials: Int
    public var extensionsUsed: [String]
    public var images: [ImageFacts]

    public struct ImageFacts: Codable, Sendable, Equatable {
        public var index: Int
        /// The roles the materials use it in (through `source`, `KHR_texture_basisu`,
        /// `EXT_texture_webp` or `EXT_texture_avif`); empty: unused.
        public var roles: [String]
        /// `PNG`, `JPEG`, `WebP`, `AVIF`, `KTX2`; the texture format and colour space for a KTX2.
        public var format: String
        public var textureFormat: String?
        public var colorSpace: String?
        public var supercompression: String?
        public var width: Int
        public var height: Int
        public var levels: Int
        public var bytes: Int
        /// Why the image could not be read; the other fields are then zero.
        public var error: String?
    }
}

extension Inspector {
    /// A model's facts: every image with its roles, format, size, levels and bytes.
    static func modelFacts(_ bytes: [UInt8], path: String, maxPixels: Int) throws -> InspectFacts {
        let model: GLTFModel
        let buffers: [[UInt8]]
        let folder = PathText.parent(path).isEmpty ? "." : PathText.parent(path)
        let read = GLTFModel.files(in: folder)
        do {
            model = try GLTFModel.parse(bytes)
            buffers = try model.buffers(read: read)
        } catch {
            throw CodecError(error.description)
        }
        var roles: [Int: [String]] = [:]
        for use in (try? model.uses()) ?? [] {
            let texture = model.object("textures", use.texture)
            var images: [Int] = []
            if let s = GLTFModel.integer(texture["source"]) { images.append(s) }
            if case .object(let e)? = texture["extensions"] {
                for name in GLTFModel.imageExtensions {
                    if case .object(let x)? = e[name], let s = GLTFModel.integer(x["source"]) { images.append(s) }
                }
            }
            for i in images where !roles[i, default: []].contains(use.role.rawValue) {
                roles[i, default: []].append(use.role.rawValue)
            }
        }
        var images: [ModelFacts.ImageFacts] = []
        for k in model.items("images").indices {
            var facts = ModelFacts.ImageFacts(
                index: k, roles: roles[k] ?? [], format: "?", width: 0, height: 0, levels: 0, bytes: 0)
            do {
                let data = try model.imageBytes(k, buffers: buffers, read: read)
                facts.bytes = data.count
                if ImageFormat.sniff(data)?.container != nil {
                    let t = try TextureFile(data, maxPixels: maxPixels)
                    (facts.format, facts.textureFormat, facts.colorSpace) =
                        (t.container.name, t.format.rawValue, t.srgb ? "srgb" : "linear")
                    facts.supercompression = t.basisLZ != nil ? "basislz" : t.supercompression.rawValue
                    (facts.width, facts.height, facts.levels) = (t.width, t.height, t.levels.count)
                } else {
                    let h = try ImageDecoder.header(data)
                    (facts.format, facts.width, facts.height, facts.levels) = (h.format.name, h.width, h.height, 1)
                }
            } catch {
                facts.error = "\(error)"
            }
            images.append(facts)
        }
        var used: [String] = []
        if case .array(let a)? = model.json["extensionsUsed"] {
            used = a.compactMap { if case .string(let s) = $0 { s } else { nil } }
        }
        var f = InspectFacts(
            file: path, format: model.isBinary ? "GLB" : "glTF", width: 0, height: 0, colorType: "model",
            bitDepth: 0, decodedDepth: 0, alphaMin: 0, alphaMax: 0, transparentPercent: 0, likelyKeyColor: nil,
            likelyKeyColorEvidence: nil)
        f.model = ModelFacts(
            meshes: model.items("meshes").count, materials: model.items("materials").count, extensionsUsed: used,
            images: images)
        return f
    }

    /// `scene.glb: GLB, 2 meshes, 3 materials, 4 images` and a line per image.
    static func modelText(_ f: InspectFacts, _ m: ModelFacts) -> String {
        var lines = [
            "\(f.file): \(f.format), \(m.meshes) mesh\(m.meshes == 1 ? "" : "es"), \(m.materials) material"
                + "\(m.materials == 1 ? "" : "s"), \(m.images.count) image\(m.images.count == 1 ? "" : "s")"
                + (m.extensionsUsed.isEmpty ? "" : "; extensions: " + m.extensionsUsed.joined(separator: ", "))
        ]
        for i in m.images {
            let roles = i.roles.isEmpty ? "unused" : i.roles.joined(separator: ", ")
            if let error = i.error {
                lines.append("  images[\(i.index)] (\(roles)): \(error)")
                continue
            }
            var what = "\(i.format) \(i.width)×\(i.height)"
            if let t = i.textureFormat {
                what += " \(t) \(i.colorSpace ?? ""), \(i.levels) level\(i.levels == 1 ? "" : "s")"
                if let s = i.supercompression, s != "none" { what += ", \(s)" }
            }
            lines.append("  images[\(i.index)] (\(roles)): \(what), \(i.bytes) bytes")
        }
        return lines.joined(separator: "\n")
    }
}
