import ArgumentParser
import Foundation
import TexPipe

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe image files: size, color type, depth, alpha stats, likely key color.")

    @Argument(help: "Image files.") var files: [String]
    @Option(help: "Refuse images with more pixels than this.") var maxPixels: Int = Image.defaultMaxPixels
    @Flag(help: "Print one JSON object per file (in an array) instead of text, for scripts.") var json = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one file") }
    }

    func run() throws {
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
