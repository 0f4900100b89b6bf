import ArgumentParser
import Foundation
import TexPipe

struct Stages: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the stage reference.")

    @Argument(help: "One stage's name.") var name: String?
    @Flag(help: "Every stage and setting as markdown (docs/reference/stages.md).") var markdown = false

    func run() throws {
        if markdown {
            print(StageReference.markdown(for: StageRegistry.all), terminator: "")
        } else if let name {
            guard let type = StageRegistry.named(name) else {
                throw fail(Say.unknownStage(name, valid: StageRegistry.names))
            }
            print(StageReference.text(for: [type]))
        } else {
            print(StageReference.text(for: StageRegistry.all) + "\n\n" + StageReference.settingsText())
        }
    }
}
