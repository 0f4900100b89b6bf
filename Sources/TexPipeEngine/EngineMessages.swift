internal import TexPipePlan

/// The engine's wording, in one place (STYLE 10): job failures, write errors, cache warnings.
enum EngineMessage {
    static func prerequisiteFailed(_ what: String) -> String { "not rewritten: \(what) failed" }
    static func modelChanged(_ what: String) -> String {
        "the model changed while texpipe ran (\(what)); run again"
    }
    static func textureMissing(_ what: String, _ why: String) -> String { "\(what): \(why)" }
    /// The one line a failed job prints: `Samples/cards/7h.png (variant "reds"): rotate: why`.
    static func jobLine(input: String, variant: String?, stage: String?, _ message: String) -> String {
        input + (variant.map { " (variant \"\($0)\")" } ?? "") + ": " + (stage.map { $0 + ": " } ?? "") + message
    }

    /// A file a stage declared could not be loaded.
    static func resource(_ label: String, _ path: String, _ error: any Error) -> String {
        "\(label): \(Planner.display(path)): \(error)"
    }

    static let unreadableInput = "cannot read the file"
    static func cannotAllocate(_ need: Int, pixels: Int, free: Int?) -> String {
        "cannot allocate \(mib(need)) MiB for the \(pixels)-pixel image"
            + (free.map { ": \(mib($0)) MiB free under the process's memory limit" } ?? ": out of memory")
    }
    static func memoryNote(need: Int, limit: Int, free: Int) -> String {
        "memory: \(mib(need)) MiB needed at least, \(mib(free)) MiB free of a \(mib(limit)) MiB limit"
    }
    static func mib(_ bytes: Int) -> Int { (bytes + (1 << 20) - 1) >> 20 }
    static func layer(_ display: String, _ message: String) -> String {
        message.hasPrefix(display) || message.hasPrefix("layer ") ? message : "layer \(display): \(message)"
    }
    static func layerSize(_ display: String, _ size: (Int, Int), levels: Int, first: (Int, Int), firstLevels: Int)
        -> String
    {
        "layer \(display) is \(size.0)×\(size.1) with \(levels) levels after its stages, the first layer \(first.0)×\(first.1) with \(firstLevels): every layer must match"
    }
    static func sprite(_ display: String, _ message: String) -> String {
        message.hasPrefix(display) ? message : "sprite \(display): \(message)"
    }
    static func spriteTooLarge(
        _ name: String, _ display: String, size: (Int, Int), needs: (Int, Int), page: (Int, Int)
    ) -> String {
        "sprite \"\(name)\" (\(display)) is \(size.0)×\(size.1), \(needs.0)×\(needs.1) with its extrusion and the "
            + "border: larger than the largest page, \(page.0)×\(page.1) (raise atlas.maxSize)"
    }
    static func pagesWithoutNumber(_ count: Int, template: String) -> String {
        "the sprites need \(count) pages, but the output template \"\(template)\" has no {page} (add {page} or raise atlas.maxSize)"
    }

    static func imageCount(made: Int, planned: Int) -> String {
        "the stages made \(made) images where the plan expected \(planned)"
    }

    static func output(_ relative: String, _ error: any Error) -> String { "\(relative): \(error)" }

    /// A premultiplied image written to a file whose readers take straight alpha.
    static func unpremultiplied(_ relative: String, _ kind: String) -> String {
        "\(relative): unpremultiplied first (\(kind) readers take straight alpha)"
    }

    static func cannotWatch(_ why: String) -> String { "cannot watch files (inotify: \(why))" }
}
