import ArgumentParser
import Foundation
import TexPipe

struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the manifest's JSON Schema (draft 2020-12), made from the tables that validate it.")

    func run() throws { print(ManifestSchema.text, terminator: "") }
}
