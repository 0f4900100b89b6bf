/// `--shard K/N` and `--shard auto`: the plan's jobs split into N shards balanced by work — input
/// pixels — the same split on every machine. docs/command-line.md.
public enum Shards {
    /// The shard (0-based) of every job: largest input first (ties in plan order), each into the
    /// shard with the fewest pixels so far (ties to the lowest shard). Greedy LPT: the heaviest
    /// shard is within 4/3 of the best possible, and on real texture sets within a few percent of
    /// the mean. Depends on the jobs alone, never on timing or the machine.
    public static func assign(_ jobs: [Job], count n: Int) -> [Int] {
        precondition(n >= 1)
        var load = [Int](repeating: 0, count: n)
        // A model's rewrite and its textures (`Work.after`) are one unit: the rewrite reads their files.
        var unit = Array(jobs.indices)
        let position = Dictionary(jobs.indices.map { (jobs[$0].index, $0) }, uniquingKeysWith: { a, _ in a })
        for i in jobs.indices {
            for d in jobs[i].work.after { if let k = position[d] { unit[k] = unit[i] } }
        }
        var weight = [Int](repeating: 0, count: jobs.count)
        for i in jobs.indices { weight[unit[i]] += max(1, jobs[i].input.pixels) }
        var shardOfUnit = [Int](repeating: 0, count: jobs.count)
        let order = jobs.indices.filter { unit[$0] == $0 }.sorted { a, b in
            weight[a] != weight[b] ? weight[a] > weight[b] : a < b
        }
        for u in order {
            let lightest = load.indices.min { load[$0] != load[$1] ? load[$0] < load[$1] : $0 < $1 }!
            shardOfUnit[u] = lightest
            load[lightest] += weight[u]
        }
        return jobs.indices.map { shardOfUnit[unit[$0]] }
    }

    /// The jobs of shard `k` of `n` (1-based), in plan order.
    public static func jobs(_ jobs: [Job], shard k: Int, of n: Int) -> [Job] {
        let shard = assign(jobs, count: n)
        return jobs.indices.filter { shard[$0] == k - 1 }.map { jobs[$0] }
    }

    /// `K/N`, 1 ≤ K ≤ N.
    public static func parse(_ s: String) -> (k: Int, n: Int)? {
        let parts = s.split(separator: "/")
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(k) else {
            return nil
        }
        return (k, n)
    }

    /// The CI's own variables, for `--shard auto`: GitLab `CI_NODE_INDEX` (1-based) /
    /// `CI_NODE_TOTAL`, Buildkite `BUILDKITE_PARALLEL_JOB` (0-based) /
    /// `BUILDKITE_PARALLEL_JOB_COUNT`, a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX` (0-based)
    /// with `TEXPIPE_SHARD_TOTAL`. An error naming them when none is set or a value is off.
    public static func fromEnvironment(_ env: [String: String]) throws -> (k: Int, n: Int) {
        let sources: [(index: String, total: String, base: Int)] = [
            ("CI_NODE_INDEX", "CI_NODE_TOTAL", 1),
            ("BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", 0),
            ("JOB_COMPLETION_INDEX", "TEXPIPE_SHARD_TOTAL", 0),
        ]
        for s in sources {
            guard let index = env[s.index], let total = env[s.total] else { continue }
            guard let i = Int(index), let n = Int(total), n >= 1, (s.base..<(s.base + n)).contains(i) else {
                throw ShardError(
                    "--shard auto: \(s.index)=\(index) and \(s.total)=\(total) do not name a shard (\(s.index) counts from \(s.base))"
                )
            }
            return (i - s.base + 1, n)
        }
        throw ShardError(
            "--shard auto needs the CI's shard variables: GitLab CI_NODE_INDEX and CI_NODE_TOTAL, Buildkite BUILDKITE_PARALLEL_JOB and BUILDKITE_PARALLEL_JOB_COUNT, or a Kubernetes Indexed Job's JOB_COMPLETION_INDEX with TEXPIPE_SHARD_TOTAL; none is set"
        )
    }
}

public struct ShardError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
