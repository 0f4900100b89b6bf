import ArgumentParser
import Foundation
import TexPipe

struct Stages: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the stage reference.")

    @Argument(help: "One stage's name.") var name: String?

    func run() throws {
        if let name {
            guard let type = StageRegistry.named(name) else {
                throw fail(Say.unknownStage(name, valid: StageRegistry.names))
            }
            print(StageReference.text(for: [type]))
        } else {
            print(StageReference.text(for: StageRegistry.all) + "\n\n" + StageReference.settingsText())
        }
    }
}
