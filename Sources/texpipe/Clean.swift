import ArgumentParser
import Foundation
import TexPipe

struct Clean: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove outputs that no job of the manifest writes any more.")

    @Argument(help: "The manifest.") var manifest: String = "pipeline.json"
    @Flag(help: "List what would be removed; remove nothing.") var dryRun = false

    func run() throws {
        let plan: Plan
        do {
            plan = try Planner.plan(try Manifest.load(path: manifest))
        } catch let e as ManifestError {
            throw fail(e)
        }
        let cleaner = Cleaner(plan: plan)
        let (stale, entries, warnings) = cleaner.scan()
        for w in warnings { Console.err(CLIMessage.warning(w)) }
        for item in stale {
            Console.out(
                (item.modified ? "kept " : dryRun ? "would remove " : "removed ") + Planner.display(item.path)
                    + (item.modified ? " (modified since texpipe wrote it)" : ""))
        }
        if !dryRun {
            if let problem = cleaner.remove(stale, entries: entries) { Console.err(CLIMessage.warning(problem)) }
            for path in cleaner.sweepTemporaries() {
                Console.out("removed \(Planner.display(path)) (left by a killed run)")
            }
        }
        let n = stale.filter { !$0.modified }.count
        Console.out("\(n) stale outputs" + (dryRun ? "; nothing removed (--dry-run)" : " removed"))
    }
}
