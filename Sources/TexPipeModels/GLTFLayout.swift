internal import Foundation
public import TexPipeFormats

/// What a gltf pipeline makes of one model (docs/gltf.md): one texture per (image, kind) its
/// materials use, each named for its file, and the files the model writes beside it. The planner
/// and the model's rewrite both derive it from the model alone, so they agree.
public struct GLTFLayout: Sendable {
    public struct Texture: Sendable, Hashable {
        public var image: Int
        public var kind: GLTFRole.Kind
        /// The role whose settings it takes (`GLTFRole.governing`), and every role it is used in.
        public var role: GLTFRole
        public var roles: [GLTFRole]
        /// Its file's name without extension, unique within the model: the image's URI, else its
        /// `name`, else `image{index}`; `_{role}` added when the image has two kinds.
        public var name: String
        /// Written into a buffer view (a GLB), not a file beside (a `.gltf`).
        public var inView: Bool
    }

    /// A file the model's rewrite writes beside it: a buffer, or an image no material uses, copied.
    public struct Beside: Sendable, Hashable {
        public enum What: Sendable, Hashable {
            case buffer(Int)
            case image(Int)
        }
        public var name: String
        public var what: What
    }

    public var textures: [Texture]
    /// Images used in two kinds (a baseColor that is also a normal): each is written once per kind.
    public var mixed: [(image: Int, roles: [GLTFRole])] = []
    public var beside: [Beside] = []
    /// Images no material uses whose bytes are a file: a GLB embeds them, a `.gltf` copies them
    /// beside it (`beside`).
    public var unusedFiles: [(image: Int, path: String)] = []

    /// `binary`: the output is a GLB; `stem`: the output's file name without extension.
    public init(_ model: GLTFModel, binary: Bool, stem: String) throws(GLTFError) {
        let uses = try model.uses()
        var kinds: [Int: [GLTFRole.Kind]] = [:]
        var roles: [Int: [GLTFRole]] = [:]
        var order: [Int] = []
        for use in uses {
            guard let image = use.image else { continue }
            if kinds[image] == nil { order.append(image) }
            if !kinds[image, default: []].contains(use.role.kind) { kinds[image, default: []].append(use.role.kind) }
            if !roles[image, default: []].contains(use.role) { roles[image, default: []].append(use.role) }
        }
        order.sort()
        // Names beside the model, lowercased: the model's own, its buffers and copied images, and
        // each texture's with every extension it may be written with.
        var taken: Set<String> = [stem.lowercased() + (binary ? ".glb" : ".gltf")]
        /// `name`, or `name_2`, `name_3`, … (before its extension) until no name of `extensions` is taken.
        func unique(_ name: String, extensions: [String]) -> String {
            let base = extensions == [""] ? Self.stem(name) : name
            let ext = extensions == [""] ? String(name.dropFirst(base.count)) : ""
            var n = base
            var k = 2
            while extensions.contains(where: { taken.contains((n + (ext.isEmpty ? $0 : ext)).lowercased()) }) {
                n = base + "_\(k)"
                k += 1
            }
            for e in extensions { taken.insert((n + (ext.isEmpty ? e : ext)).lowercased()) }
            return n + ext
        }
        func unique(_ name: String) -> String { unique(name, extensions: [""]) }
        // Buffers and unused images beside the model first: their names are the model's own.
        for k in model.items("buffers").indices {
            switch try model.bufferSource(k) {
            case .bin where !binary: beside.append(Beside(name: unique(stem + ".bin"), what: .buffer(k)))
            case .file(let path) where !binary || k > 0:
                beside.append(Beside(name: unique(Self.fileName(path)), what: .buffer(k)))
            case .file where binary && k == 0, .bin, .data, .view: break
            case .file: break
            }
        }
        for k in model.items("images").indices where kinds[k] == nil {
            guard case .file(let path) = try model.imageSource(k) else { continue }
            unusedFiles.append((k, path))
            if !binary { beside.append(Beside(name: unique(Self.fileName(path)), what: .image(k))) }
        }
        textures = []
        for image in order {
            let source = try model.imageSource(image)
            let base: String
            switch source {
            case .file(let path): base = Self.stem(Self.fileName(path))
            default:
                if case .string(let n)? = model.object("images", image)["name"], !Self.safe(n).isEmpty {
                    base = Self.safe(n)
                } else {
                    base = "image\(image)"
                }
            }
            let imageKinds = kinds[image]!
            let imageRoles = roles[image]!
            if imageKinds.count > 1 { mixed.append((image, imageRoles)) }
            // A GLB holds every image; a .gltf's are files beside it.
            let inView = binary
            for kind in imageKinds {
                let mine = imageRoles.filter { $0.kind == kind }
                let role = GLTFRole.governing(mine)!
                let name = unique(
                    imageKinds.count > 1 ? base + "_" + role.rawValue : base,
                    extensions: [".ktx2", ".png", ".jpg", ".webp", ".avif"])
                textures.append(Texture(image: image, kind: kind, role: role, roles: mine, name: name, inView: inView))
            }
        }
    }

    /// A URI's path as a file name beside the model: kept with its folders when plain, else its
    /// last component.
    static func fileName(_ path: String) -> String {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) {
            return parts.map(safe).joined(separator: "/")
        }
        return safe(String(parts.last(where: { !$0.isEmpty && $0 != "." && $0 != ".." }) ?? "file"))
    }

    static func stem(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex,
            !name[dot...].contains("/")
        else { return name }
        return String(name[..<dot])
    }

    /// A name with the characters a file name cannot hold (`/`, control characters) as `_`.
    static func safe(_ s: some StringProtocol) -> String {
        String(
            String.UnicodeScalarView(
                s.unicodeScalars.map { $0 == "/" || $0 == "\\" || $0.value < 0x20 || $0 == ":" ? "_" : $0 }))
    }
}
