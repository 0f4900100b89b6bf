import ArgumentParser
import Foundation
import TexPipe

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe image files: size, color type, depth, alpha stats, likely key color.")

    @Argument(help: "Image files.") var files: [String]
    @Option(help: "Refuse images with more pixels than this.") var maxPixels: Int = Image.defaultMaxPixels
    @Flag(help: "Print one JSON object per file (in an array) instead of text, for scripts.") var json = false
    @Option(
        help:
            "Also write a PNG picture of the one file named: a texture's level 0, a cube map as a cross, an array's or a volume's first layers or slices side by side."
    )
    var preview: String?

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one file") }
        if preview != nil && files.count != 1 { throw ValidationError("--preview pictures one file: name only one") }
    }

    func run() throws {
        if let preview {
            do {
                let picture = try Preview.picture(path: files[0], maxPixels: maxPixels)
                try Data(try ImageEncoder.png(picture)).write(to: URL(fileURLWithPath: preview))
            } catch {
                Console.err(CLIMessage.error("\(files[0]): \(error)"))
                throw ExitCode(1)
            }
        }
        if json {
            let results = files.map { f in
                (
                    file: f,
                    result: Result<InspectFacts, any Error> { try Inspector.facts(path: f, maxPixels: maxPixels) }
                )
            }
            FileHandle.standardOutput.write(Data(try Inspector.json(results)))
            if results.contains(where: { if case .failure = $0.result { true } else { false } }) { throw ExitCode(1) }
            return
        }
        var failed = false
        for f in files {
            do {
                print(try Inspector.describe(path: f, maxPixels: maxPixels))
            } catch {
                Console.err(CLIMessage.error("\(f): \(error)"))
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }
}
