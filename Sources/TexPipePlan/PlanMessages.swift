internal import Foundation
internal import TexPipeFormats
internal import TexPipeStages

/// Why a file the plan needs could not be used.
enum HeaderProblem: Error {
    case unreadable
    case corrupt(String)
    case font(String)
}

/// A stage resource that failed its plan-time check: a manifest error at the stage's JSON path.
struct ResourceProblem: Error {
    var label: String
    var path: String
    var problem: HeaderProblem

    func message(stage: String) -> String {
        switch problem {
        case .unreadable: "\(stage): \(label): cannot read \(Planner.display(path))"
        case .corrupt(let why): "\(stage): \(label): \(Planner.display(path)): \(why)"
        case .font(let why): "\(label): \(why)"
        }
    }
}

/// The planner's own wording, in one place (STYLE 10); manifest wording is `Say`.
enum PlanMessage {
    static let excludesEverything = "excludes every input"
    static let tooManyAlternatives =
        "its {…} alternatives expand into more than \(Glob.maxAlternatives) patterns (each group multiplies the others)"

    /// Appended to a per-job message: which variant it was about.
    static func variantContext(_ name: String) -> String { " (variant \"\(name)\")" }

    static func job(pipeline: String, input: String, variant: String?) -> String {
        "pipeline \"\(pipeline)\" input \(input)" + (variant.map { " variant \"\($0)\"" } ?? "")
    }

    static func oddLayer(_ name: String, _ size: (Int, Int), first: (width: Int, height: Int), kind: String = "array")
        -> String
    {
        let item = kind == "array" ? "layer" : "slice"
        return
            "\(item) \"\(name)\" is \(size.0)×\(size.1) but the first \(item) is \(first.width)×\(first.height); every \(item) needs the first's size (or give \"size\": [w, h])"
    }

    static let ssimOnHDR =
        "minSSIM measures 8/16-bit outputs and this image is HDR: SSIM compares stored 8/16-bit values (gate HDR "
        + "outputs with maxFLIP, which is HDR-FLIP for them, or minPSNR, which is log-RGB)"

    static func lutStage(_ stage: String) -> String {
        "\(stage) does not apply to a .cube LUT: a LUT is a volume of colour data, and only a last \"mipmaps\" "
            + "(a box) may follow it (give LUTs their own pipeline)"
    }

    static func lutNeedsTexture(_ output: String) -> String {
        "a .cube LUT is a volume texture: its output must end in .ktx2 or .dds, not \"\(output)\""
    }

    static func lutFormat(_ format: String) -> String {
        "a .cube LUT is written as rgba8 (rounded) or rgba16f (its values kept), not \(format)"
    }

    static func arrayImages(_ n: Int, kind: String = "array") -> String {
        kind == "array"
            ? "an array's stages must make one image per layer, or one mip chain; these make \(n) outputs"
            : "a volume's stages before mipmaps must make one image per slice; these make \(n) outputs"
    }

    static func arrayDisplay(_ pipeline: String, layers: Int, kind: String = "array") -> String {
        kind == "array" ? "array \(pipeline) (\(layers) layers)" : "volume \(pipeline) (\(layers) slices)"
    }

    static func spriteImages(_ n: Int) -> String {
        "an atlas's sprite stages must make one image per sprite; these make \(n) (move mipmaps or alpha-split to \"pageStages\" or another pipeline)"
    }

    static func spriteNameTwice(_ name: String, _ a: String, _ b: String) -> String {
        "two sprites are named \"\(name)\": \(a) and \(b) (set atlas.name, e.g. \"{path}/{file}.{ext}\")"
    }

    static func atlasDisplay(_ pipeline: String, sprites: Int) -> String {
        "atlas \"\(pipeline)\" (\(sprites) sprite\(sprites == 1 ? "" : "s"))"
    }

    static let unreadableModel = "cannot read the model"
    static let unreadableImage = "the model's image cannot be read"
    static func mixedRoles(_ model: String, image: Int, _ roles: [String]) -> String {
        "\(model): images[\(image)] is used as \(roles.joined(separator: " and ")), which differ in colour space or kind; it is written once per kind"
    }
    static func absoluteOutput(_ rendered: String, root: String) -> String {
        "output \"\(rendered)\" is an absolute path; outputs must stay under the output root \"\(root)\""
    }

    static func outsideRoot(_ rendered: String, root: String) -> String {
        "output \"\(rendered)\" resolves outside the output root \"\(root)\""
    }

    static func textureLayoutNeedsTexture(_ format: String) -> String {
        "mipmaps: layout \"texture\" keeps the chain in one GPU texture file; the template writes \(format) "
            + "(use a .ktx2 or .dds template, or layout \"files\")"
    }

    static func hdrResource(_ stage: String, _ label: String, _ path: String) -> String {
        "\(stage): \(label): \(path) is an HDR image; \(stage) reads 8/16-bit images (convert it to PNG first)"
    }

    static func hdrSprite(_ name: String) -> String {
        "sprite \(name) is HDR (an .exr or .hdr input): atlas pages are 8/16-bit; add a \"tonemap\" stage"
    }

    static func unknownExtension(_ rendered: String) -> String {
        "output \"\(rendered)\" must end in \(ImageFormat.extensionList)"
    }

    static func symlinkEscape(_ output: String, to real: String, root: String) -> String {
        "output \(output) resolves through a symlink to \(real), outside the output root \"\(root)\""
    }

    static func outputIsInput(_ output: String) -> String {
        "output \(output) is also an input; texpipe never overwrites its inputs"
    }

    static func twoWriters(_ output: String, _ a: String, _ b: String) -> String {
        "output \(output) is written by two jobs: \(a) and \(b)"
    }

    /// A stage resource whose size must be the image's there, and is not: fails that job.
    static func sizeMismatch(
        label: String, path: String, size: (Int, Int), image: (Int, Int), hint: String
    ) -> StageError {
        StageError("\(label) \(path) is \(size.0)×\(size.1) but the image is \(image.0)×\(image.1)\(hint)")
    }
}
