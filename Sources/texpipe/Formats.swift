import ArgumentParser
import TexPipe

struct Formats: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the texture formats: block, bytes, codes, containers, encoder.")

    @Flag(help: "As markdown (docs/reference/textures.md).") var markdown = false

    func run() throws {
        print(markdown ? TextureReference.markdown() : TextureReference.text(), terminator: markdown ? "" : "\n")
    }
}
