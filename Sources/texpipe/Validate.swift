import ArgumentParser
import Foundation
import TexPipe

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a manifest: exit 0, or 2 with every error listed.")

    @Argument(help: "The manifest.") var manifest: String = "pipeline.json"

    func run() throws {
        do {
            let loaded = try Manifest.load(path: manifest)
            let cache = Cache(manifestDirectory: loaded.directory)
            let plan = try Planner.plan(loaded, PlanOptions(shapes: cache.index))
            keptUntilExit += [cache, plan]
            for w in plan.warnings { Console.err(w.description) }
            let failing = plan.jobs.filter { $0.failure != nil }
            for job in failing {
                Console.err(CLIMessage.warning(CLIMessage.willFail(job.input.display, job.failure!.message)))
            }
            Console.out(
                "\(manifest): ok — \(plan.manifest.pipelines.count) pipelines, \(plan.jobs.count) jobs, "
                    + "\(plan.jobs.reduce(0) { $0 + $1.outputs.count }) outputs")
        } catch let e as ManifestError {
            throw fail(e)
        }
    }
}
