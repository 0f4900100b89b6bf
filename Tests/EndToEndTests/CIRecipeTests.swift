import Foundation
import Testing

/// The CI recipes in docs/ci parse as YAML (PyYAML, an independent parser) and every texpipe
/// command line in them uses only options `texpipe <command> --help` lists.
@Suite("CI recipes")
struct CIRecipeTests {
    static let hasYAML: Bool = {
        EndToEndReference.pythonHas("yaml")
    }()

    /// The recipe as JSON (via PyYAML), and every texpipe command line in its `run:`/`script:` text.
    static func load(_ name: String) throws -> (document: [String: Any], commands: [[String]]) {
        let script = """
            import json, shlex, sys, yaml, re
            doc = yaml.safe_load(open(sys.argv[1]))
            texts = []
            def walk(v):
                if isinstance(v, dict):
                    for k, x in v.items():
                        if k in ("run", "script", "before_script") and isinstance(x, (str, list)):
                            texts.extend(x if isinstance(x, list) else [x])
                        else:
                            walk(x)
                elif isinstance(v, list):
                    for x in v: walk(x)
            walk(doc)
            commands = []
            for t in texts:
                t = re.sub(r"\\$\\{\\{.*?\\}\\}", "EXPR", t)
                for line in t.replace("\\\\\\n", " ").split("\\n"):
                    words = shlex.split(line)
                    if words and words[0] == "texpipe":
                        commands.append(words)
                # Folded (>) blocks arrive as one line already.
            print(json.dumps({"doc": json.loads(json.dumps(doc, default=str)), "commands": commands}))
            """
        let r = try CLI.run(
            ["-c", script, CLI.packageRoot + "/docs/ci/" + name], in: "/", wrapper: EndToEndReference.python,
            bareCommand: true)
        #expect(r.status == 0, "\(name): \(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let doc = try #require(json["doc"] as? [String: Any])
        let commands = try #require(json["commands"] as? [[String]])
        return (doc, commands)
    }

    /// `--long` options of `texpipe COMMAND --help`.
    static func options(_ command: String) throws -> Set<String> {
        let help = try CLI.run([command, "--help"], in: "/")
        let found = help.stdout.split(whereSeparator: { " ,\n[]<>=".contains($0) }).filter { $0.hasPrefix("--") }
        return Set(found.map(String.init))
    }

    static func check(_ commands: [[String]]) throws {
        #expect(!commands.isEmpty)
        for words in commands {
            let command = words.count > 1 && !words[1].hasPrefix("-") && !words[1].hasSuffix(".json") ? words[1] : "run"
            let valid = try options(command)
            #expect(!valid.isEmpty)
            for word in words where word.hasPrefix("--") {
                #expect(valid.contains(word), "\(word) is not an option of texpipe \(command): \(words)")
            }
        }
    }

    @Test(EndToEndReference.needs(hasYAML, "PyYAML"))
    func githubActionsRunsFourShardsAgainstTheRemoteCache() throws {
        let (doc, commands) = try Self.load("github-actions.yml")
        try Self.check(commands)
        let jobs = try #require(doc["jobs"] as? [String: Any])
        let textures = try #require(jobs["textures"] as? [String: Any])
        let matrix = try #require((textures["strategy"] as? [String: Any])?["matrix"] as? [String: Any])
        #expect(matrix["shard"] as? [Int] == [1, 2, 3, 4])
        let run = try #require(commands.first { $0.count > 1 && $0[1] == "run" })
        let shard = try #require(run.firstIndex(of: "--shard"))
        #expect(run[shard + 1] == "EXPR/4")
        #expect(run.contains("--junit"))
        let env = try #require(textures["env"] as? [String: Any])
        #expect(env["TEXPIPE_REMOTE_CACHE"] != nil)
        #expect(jobs["junit"] != nil)
    }

    @Test(EndToEndReference.needs(hasYAML, "PyYAML"))
    func gitlabRunsFourParallelCopiesWithShardAuto() throws {
        let (doc, commands) = try Self.load("gitlab-ci.yml")
        try Self.check(commands)
        let job = try #require(doc["textures"] as? [String: Any])
        #expect(job["parallel"] as? Int == 4)
        let run = try #require(commands.first { $0.count > 1 && $0[1] == "run" })
        let shard = try #require(run.firstIndex(of: "--shard"))
        #expect(run[shard + 1] == "auto")
        #expect(run.contains("--junit"))
    }
}
