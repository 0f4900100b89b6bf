public import TexPipePixels

/// The wording of every stage error, in one place (STYLE 10). A stage throws
/// `StageError(.case)`; the engine prefixes the input file and the stage's name.
public enum StageMessage: Sendable, Equatable, CustomStringConvertible {
    /// `premultiply` on premultiplied data, `unpremultiply` on straight data.
    case alreadyIn(AlphaState)
    /// A stage that works on one alpha state only, and the stage that converts to it.
    case needsAlpha(stage: String, needs: AlphaState, has: AlphaState)
    /// A stage not defined on HDR images, given one.
    case notOnHDR(stage: String)
    case tonemapNeedsHDR
    case hdrSourceNeedsHDR(slot: String)
    case notOnCube(stage: String)
    case needsCube(stage: String)
    case cubemapNeedsEquirect(width: Int, height: Int)
    /// A declared image the engine did not hand over (a bug, not a user error).
    case notLoaded(label: String, path: String)
    case fontNotResolved(label: String, spec: String)
    case noTextRenderer(label: String)
    case mapSize(label: String, width: Int, height: Int, imageWidth: Int, imageHeight: Int)
    case layerKinds(label: String, kinds: [String])
    case layerWithoutContent(label: String)
    case textOnly(label: String, key: String)
    case layerTakesNoColor(label: String, kind: String)
    case cropOutside(x: Int, y: Int, width: Int, height: Int, imageWidth: Int, imageHeight: Int)
    case needsKnownSize
    case resizeScaleAndSize
    case resizeNeedsSize
    case roughnessFromNeeds

    public var description: String {
        switch self {
        case .alreadyIn(let state):
            state == .premultiplied
                ? "the image is already premultiplied here" : "the image is already straight (not premultiplied) here"
        case .needsAlpha(let stage, let needs, let has):
            "\(stage) needs \(needs.rawValue) alpha but the image is \(has.rawValue) here; add \"\(needs == .straight ? "unpremultiply" : "premultiply")\" before it"
        case .notOnHDR(let stage):
            "\(stage) does not take HDR images (this input is an .exr or .hdr); put \"tonemap\" before it, or remove it"
        case .notOnCube(let stage):
            "\(stage) does not take cube maps (after cubemap: mipmaps, prefilter, irradiance, tonemap, premultiply and unpremultiply do)"
        case .needsCube(let stage): "\(stage) takes a cube map: put \"cubemap\" before it"
        case .cubemapNeedsEquirect(let w, let h):
            "cubemap takes an equirectangular image, twice as wide as high; this one is \(w)×\(h)"
        case .hdrSourceNeedsHDR(let slot):
            "\(slot): an HDR image packs only into an HDR one (an .exr or .hdr input); convert it to PNG first"
        case .roughnessFromNeeds:
            "roughnessFrom raises the roughness of an 8/16-bit 2D chain of levels (not an HDR image or a cube map)"
        case .tonemapNeedsHDR:
            "the image is already 8/16-bit (tonemap takes HDR images: .exr or .hdr inputs); remove it"
        case .notLoaded(let label, let path): "\(label): \(path) was not loaded"
        case .fontNotResolved(let label, let spec): "\(label): font \"\(spec)\" was not resolved"
        case .noTextRenderer(let label): "\(label): no text renderer"
        case .mapSize(let label, let w, let h, let iw, let ih):
            "\(label): the map is \(w)×\(h) but the image is \(iw)×\(ih)"
        case .layerKinds(let label, let kinds):
            "\(label): give one of \"image\", \"gradient\" or \"text\", not \(kinds.joined(separator: " and "))"
        case .layerWithoutContent(let label): "\(label): give \"color\", \"image\", \"gradient\" or \"text\""
        case .textOnly(let label, let key): "\(label).\(key) applies to text layers only"
        case .layerTakesNoColor(let label, let kind): "\(label).color: an \(kind) layer takes no \"color\""
        case .cropOutside(let x, let y, let width, let height, let w, let h):
            "the rectangle \(width)×\(height) at (\(x), \(y)) does not fit inside the \(w)×\(h) image"
        case .needsKnownSize:
            "needs a known image size, but an earlier stage (such as trim) makes it depend on the pixels"
        case .resizeScaleAndSize: "give one of \"width\"/\"height\", \"scale\" or \"fit\", not more"
        case .resizeNeedsSize: "give \"width\", \"height\", \"scale\" or \"fit\""
        }
    }
}

extension StageError {
    public init(_ message: StageMessage) { self.init(message.description) }
}
