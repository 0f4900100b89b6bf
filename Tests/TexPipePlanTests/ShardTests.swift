import Foundation
import Testing
import TexPipePlanTestSupport
import TexPipeTestSupport

@testable import TexPipeCodecs
@testable import TexPipeFormats
@testable import TexPipeManifest
@testable import TexPipeParameters
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeStages

/// `--shard`: every job in exactly one shard, balanced by input pixels, the same on every machine;
/// `--shard auto` from the CI's variables. docs/command-line.md.
@Suite("shards")
struct ShardTests {
    /// 60 inputs of texture-like sizes (powers of two 16…512 per side, seeded), planned once for
    /// every test (writing the PNGs is most of a debug build's time here).
    static func plan() throws -> Plan { try planned.get() }
    static let planned = Result { try makePlan() }

    static func makePlan() throws -> Plan {
        let t = TempDir()
        var rng = SeededRandom(seed: 42)
        for i in 0..<60 {
            let w = 16 << rng.int(0...5)
            let h = 16 << rng.int(0...5)
            t.png("in/\(i).png", width: w, height: h)
        }
        return try t.plan(
            #"{"version": 1, "pipelines": [{"name": "p", "inputs": ["in/*.png"], "stages": [{"stage": "premultiply"}]}]}"#
        ).get()
    }

    @Test(arguments: [1, 2, 3, 4, 7])
    func everyJobInExactlyOneShardAndBalanced(n: Int) throws {
        let plan = try Self.plan()
        #expect(plan.jobs.allSatisfy { $0.input.pixels > 0 })
        let shards = (1...n).map { Shards.jobs(plan.jobs, shard: $0, of: n) }
        let ids = shards.flatMap { $0.map(\.id) }
        #expect(ids.count == plan.jobs.count && Set(ids) == Set(plan.jobs.map(\.id)))
        for s in shards { #expect(s.map(\.index) == s.map(\.index).sorted(), "plan order within a shard") }
        let loads = shards.map { $0.reduce(0) { $0 + $1.input.pixels } }
        let mean = Double(loads.reduce(0, +)) / Double(n)
        #expect(Double(loads.max()!) <= 1.1 * mean, "loads \(loads)")
        // The split docs/command-line.md describes, computed here from the jobs' pixels alone: largest
        // first (ties in plan order), each into the lightest shard so far (ties to the lowest).
        var load = [Int](repeating: 0, count: n)
        var expected = [Int](repeating: -1, count: plan.jobs.count)
        let pixels = plan.jobs.map(\.input.pixels)
        for i in pixels.indices.sorted(by: { (pixels[$0], -$0) > (pixels[$1], -$1) }) {
            let lightest = load.firstIndex(of: load.min()!)!
            expected[i] = lightest
            load[lightest] += pixels[i]
        }
        #expect(Shards.assign(plan.jobs, count: n) == expected)
    }

    @Test func largestFirstIntoTheLightestShardTiesInPlanOrder() throws {
        let plan = try Self.plan()
        var jobs = Array(plan.jobs.prefix(5))
        for (i, px) in [10, 40, 40, 30, 20].enumerated() { jobs[i].input.pixels = px }
        // Largest first: job 1 (40) → 0; job 2 (40) → 1; job 3 (30): both at 40, tie → 0 (70);
        // job 4 (20) → 1 (60); job 0 (10) → 1 (70).
        #expect(Shards.assign(jobs, count: 2) == [1, 0, 1, 0, 1])
    }

    @Test func autoReadsTheCIsVariables() throws {
        #expect(try Shards.fromEnvironment(["CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "4"]) == (2, 4))
        #expect(
            try Shards.fromEnvironment(["BUILDKITE_PARALLEL_JOB": "0", "BUILDKITE_PARALLEL_JOB_COUNT": "3"]) == (1, 3))
        #expect(try Shards.fromEnvironment(["JOB_COMPLETION_INDEX": "4", "TEXPIPE_SHARD_TOTAL": "5"]) == (5, 5))
        #expect(throws: ShardError.self) { try Shards.fromEnvironment(["CI_NODE_INDEX": "0", "CI_NODE_TOTAL": "4"]) }
        #expect(throws: ShardError.self) { try Shards.fromEnvironment(["JOB_COMPLETION_INDEX": "3"]) }
        let none = #expect(throws: ShardError.self) { try Shards.fromEnvironment(["PATH": "/bin"]) }
        #expect("\(none as Any)".contains("CI_NODE_INDEX and CI_NODE_TOTAL"))
        #expect("\(none as Any)".contains("JOB_COMPLETION_INDEX with TEXPIPE_SHARD_TOTAL; none is set"))
    }
}
