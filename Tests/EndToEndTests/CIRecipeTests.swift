import Foundation
import Testing
import TexPipe

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
                    # `(cd ../base && texpipe run …)`: each command of the line.
                    for part in line.split("&&"):
                        words = shlex.split(part.strip().strip("()"))
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

    /// The review jobs: main's outputs from the cache in read mode, then `texpipe diff` of them
    /// against the branch's into the summary.
    @Test(EndToEndReference.needs(hasYAML, "PyYAML"))
    func bothReviewJobsDiffTheBranchAgainstTheBaseBuiltFromTheCache() throws {
        for name in ["github-actions.yml", "gitlab-ci.yml"] {
            let (_, commands) = try Self.load(name)
            let run = try #require(commands.first { $0.count > 1 && $0[1] == "run" && $0.contains("read") })
            #expect(run[run.firstIndex(of: "--remote-cache-mode")! + 1] == "read", "\(name)")
            let diff = try #require(commands.first { $0.count > 1 && $0[1] == "diff" }, "\(name)")
            #expect(Array(diff[2...3]) == ["../base/out", "out"], "\(name)")
            #expect(diff.contains("--markdown") && diff.contains("--html") && diff.contains("--fail-on-growth"))
        }
    }

    /// GitLab's review job run as written, line by line in bash, against the test nginx: main's
    /// pipeline fills the cache; a merge request changes one card; its review job builds the merge
    /// base's outputs from the cache (read mode: byte-identical to main's, nothing sent) and diffs
    /// them against the branch's — the card's four outputs changed, the rest unchanged.
    @Test(EndToEndReference.needs(hasYAML && Nginx.binary != nil, "PyYAML and nginx"))
    func gitlabsReviewJobRunsAsWrittenAgainstARealCache() throws {
        let (doc, _) = try Self.load("gitlab-ci.yml")
        let script = try #require((doc["review"] as? [String: Any])?["script"] as? [String])
        let nginx = try Nginx()
        let w = try Workspace()
        let repo = w.path + "/mr"
        try FileManager.default.createDirectory(atPath: repo, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: w.path + "/cards", toPath: repo + "/cards")
        let gpu = """
              { "name": "gpu", "inputs": ["cards/*.png"], "output": "gpu/{file}.ktx2",
                "texture": { "format": "bc7" }, "stages": [ { "stage": "mipmaps" } ] },
            """
        try Workspace.cardsManifest.replacingOccurrences(of: "\"pipelines\": [", with: "\"pipelines\": [\n" + gpu)
            .write(toFile: repo + "/pipeline.json", atomically: true, encoding: .utf8)
        func sh(_ line: String, _ env: [String: String] = [:]) throws -> CLI.Output {
            try CLI.run(["-c", line], in: repo, env: env, wrapper: ["/bin/bash"], bareCommand: true)
        }
        let git = "git -c user.name=ci -c user.email=ci@example.com"
        #expect(
            try sh(
                "git init -q -b main . && \(git) add -A && \(git) commit -qm main && git init -q --bare ../origin.git && git remote add origin ../origin.git && git push -q origin main"
            ).status == 0)
        let mainSHA = try sh("git rev-parse HEAD").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let cache = ["CI": "true", "TEXPIPE_REMOTE_CACHE": nginx.url + "/cache"]
        // main's pipeline: read-write.
        #expect(try CLI.run(["run", "pipeline.json", "--quiet"], in: repo, env: cache).status == 0)
        let mainOutputs = w.files(under: "mr/out")
        #expect(mainOutputs.count == 52)
        // The merge request: a red square on one card; its textures job only reads the cache.
        let card = repo + "/cards/k-spades.png"
        var image = try ImageDecoder.decode(Array(try Data(contentsOf: URL(fileURLWithPath: card))))
        guard case .rgba8(var px) = image.pixels else { throw CodecError("8-bit card") }
        for y in 20..<30 {
            for x in 20..<30 {
                px.replaceSubrange(
                    ((y * image.width + x) * 4)..<((y * image.width + x) * 4 + 4), with: [255, 0, 0, 255])
            }
        }
        image.pixels = .rgba8(px)
        try Data(try ImageEncoder.png(image)).write(to: URL(fileURLWithPath: card))
        #expect(try sh("git checkout -q -b art && \(git) commit -qam art && rm -rf out .texpipe").status == 0)
        #expect(
            try CLI.run(["run", "pipeline.json", "--quiet", "--remote-cache-mode", "read"], in: repo, env: cache).status
                == 0)
        let puts = nginx.accessLog.components(separatedBy: "\"PUT ").count
        // The review job, as written.
        var env = cache
        env["CI_MERGE_REQUEST_DIFF_BASE_SHA"] = mainSHA
        env["PATH"] =
            URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().path + ":"
            + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        for line in script {
            let r = try sh(line, env)
            #expect(r.status == 0, "\(line): \(r.stderr)")
        }
        #expect(w.files(under: "base/out") == mainOutputs)
        #expect(nginx.accessLog.components(separatedBy: "\"PUT ").count == puts, "read mode sends nothing")
        let summary = try String(contentsOfFile: repo + "/texpipe-diff.md", encoding: .utf8)
        #expect(summary.contains("4 changed, 0 added, 0 removed, 48 unchanged"), "\(summary)")
        for output in ["cards/k-spades.png", "thumbs/k-spades.jpg", "pma/k-spades.png", "gpu/k-spades.ktx2"] {
            #expect(summary.contains("`\(output)`"), "\(output)")
        }
        #expect(FileManager.default.fileExists(atPath: repo + "/texpipe-diff/index.html"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: repo + "/texpipe-diff.json")))
                as? [String: Any])
        let gpuTexture = try #require(
            (json["outputs"] as? [[String: Any]])?.first { $0["path"] as? String == "gpu/k-spades.ktx2" })
        #expect((gpuTexture["parts"] as? [Any])?.count ?? 0 > 1)
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
