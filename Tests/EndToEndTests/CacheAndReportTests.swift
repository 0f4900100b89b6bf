import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A workspace with cards, a decal and its alpha map, and a manifest that reads the map.
final class CacheWorkspace {
    let w: Workspace
    var path: String { w.path }

    init() throws {
        w = try Workspace()
        let decals = CLI.packageRoot + "/Samples/decals"
        try FileManager.default.createDirectory(atPath: path + "/decals", withIntermediateDirectories: true)
        for name in ["crack.png", "crack_alpha.png"] {
            try FileManager.default.copyItem(atPath: decals + "/" + name, toPath: path + "/decals/" + name)
        }
        manifest(radius: 2)
    }

    func manifest(radius: Int) {
        w.manifest(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "cards", "inputs": ["cards/*.png"], "output": "cards/{file}.png",
                "stages": [ { "stage": "color-key", "color": "rgb(0,128,0)", "region": "edges" } ] },
              { "name": "padded", "inputs": ["cards/{a,k}-*.png"], "output": "padded/{file}.png",
                "stages": [ { "stage": "pad", "all": \(radius) } ] },
              { "name": "decals", "inputs": ["decals/*.png"], "exclude": ["decals/*_alpha.png"], "output": "decals/{file}.png",
                "stages": [ { "stage": "alpha-merge", "alpha": "decals/{file}_alpha.png" } ] }
            ] }
            """)
    }

    /// Runs with a JSON report; returns (status, the jobs that ran — not up to date — as "pipeline:input").
    func run(_ extra: [String] = []) throws -> (Int32, [String], [[String: Any]]) {
        let r = try CLI.run(["--quiet", "--report", "report.json"] + extra, in: path)
        let data = try #require(FileManager.default.contents(atPath: path + "/report.json"))
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let jobs = try #require(report["jobs"] as? [[String: Any]])
        let ran = jobs.filter { ($0["cacheHit"] as? Bool) == false }.map { "\($0["pipeline"]!):\($0["input"]!)" }
        return (r.status, ran, jobs)
    }

    func mtimes() -> [String: Date] {
        var out: [String: Date] = [:]
        for (rel, _) in w.files(under: "out") {
            out[rel] =
                try? FileManager.default.attributesOfItem(atPath: path + "/out/" + rel)[.modificationDate] as? Date
        }
        return out
    }
}

@Suite("incremental cache and reports", .serialized)
struct CacheAndReportTests {
    @Test func secondRunIsAllHitsAndRewritesNothing() throws {
        let c = try CacheWorkspace()
        let (status, ran, _) = try c.run()
        #expect(status == 0 && ran.count == 13 + 2 + 1)
        let before = c.mtimes()
        usleep(20_000)
        let (status2, ran2, jobs) = try c.run()
        #expect(status2 == 0 && ran2.isEmpty)
        #expect(jobs.allSatisfy { ($0["reason"] as? String) == "up to date" })
        #expect(c.mtimes() == before)
    }

    @Test func changingOneMaskRerunsExactlyTheJobsThatReadIt() throws {
        let c = try CacheWorkspace()
        _ = try c.run()
        // Rewrite the alpha map with different (still valid) content: invert it through texpipe's own codec path.
        let mapPath = c.path + "/decals/crack_alpha.png"
        var bytes = try #require(FileManager.default.contents(atPath: mapPath))
        bytes.append(contentsOf: [0])  // trailing bytes after IEND change the file, not the pixels
        try bytes.write(to: URL(fileURLWithPath: mapPath))
        let (status, ran, jobs) = try c.run()
        #expect(status == 0 && ran == ["decals:decals/crack.png"])
        #expect(jobs.first { ($0["cacheHit"] as? Bool) == false }?["reason"] as? String == "input changed")
    }

    @Test func changingAParameterRerunsExactlyThatPipeline() throws {
        let c = try CacheWorkspace()
        _ = try c.run()
        c.manifest(radius: 3)
        let (_, ran, jobs) = try c.run()
        #expect(ran == ["padded:cards/a-spades.png", "padded:cards/k-spades.png"])
        #expect(
            jobs.filter { ($0["cacheHit"] as? Bool) == false }.allSatisfy {
                $0["reason"] as? String == "parameters changed"
            })
    }

    @Test func deletingOrModifyingAnOutputRerunsExactlyItsJob() throws {
        let c = try CacheWorkspace()
        _ = try c.run()
        try FileManager.default.removeItem(atPath: c.path + "/out/cards/q-clubs.png")
        let (_, ran, _) = try c.run()
        #expect(ran == ["cards:cards/q-clubs.png"])
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: c.path + "/out/padded/k-spades.png"))
        let (_, ran2, jobs) = try c.run()
        #expect(ran2 == ["padded:cards/k-spades.png"])
        #expect(jobs.contains { $0["reason"] as? String == "output modified: out/padded/k-spades.png" })
    }

    /// Rewrites a file in place with the same size and puts its old mtime back (`touch -d`):
    /// only its ctime tells (and it must).
    static func editKeepingSizeAndMtime(_ path: String) throws {
        var st = stat()
        #expect(stat(path, &st) == 0)
        let fd = open(path, O_RDWR)
        #expect(fd >= 0)
        var byte: UInt8 = 0
        let at = off_t(st.st_size / 2)
        #expect(pread(fd, &byte, 1, at) == 1)
        byte ^= 0x55
        #expect(pwrite(fd, &byte, 1, at) == 1)
        close(fd)
        var times = [st.st_atim, st.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        var after = stat()
        #expect(stat(path, &after) == 0)
        #expect(after.st_size == st.st_size && after.st_mtim.tv_nsec == st.st_mtim.tv_nsec)
        #expect(after.st_mtim.tv_sec == st.st_mtim.tv_sec && after.st_ino == st.st_ino)
    }

    /// The index trusts a stat only while size, mtime, ctime and inode all match: edits that keep
    /// size and mtime are still caught, in outputs and in inputs.
    @Test func editsThatKeepSizeAndMtimeAreStillCaught() throws {
        let c = try CacheWorkspace()
        _ = try c.run()
        usleep(20_000)  // past the racy window: the next run trusts the recorded stats
        #expect(try c.run().1.isEmpty)
        try Self.editKeepingSizeAndMtime(c.path + "/out/cards/q-clubs.png")
        let (_, ran, jobs) = try c.run()
        #expect(ran == ["cards:cards/q-clubs.png"])
        #expect(jobs.contains { $0["reason"] as? String == "output modified: out/cards/q-clubs.png" })
        try Self.editKeepingSizeAndMtime(c.path + "/decals/crack_alpha.png")
        let (_, ran2, jobs2) = try c.run()
        #expect(ran2 == ["decals:decals/crack.png"])
        #expect(jobs2.contains { $0["reason"] as? String == "input changed" })
    }

    /// `--verify` hashes every file instead of trusting the index: an entry and stat record that
    /// agree with each other but not with the bytes on disk are caught only with it.
    @Test func verifyHashesEverything() throws {
        let c = try CacheWorkspace()
        _ = try c.run()
        // Outputs written in the last 10 ms of a run are hashed once more by the next (the racy
        // window); after that every record is trusted.
        usleep(20_000)
        _ = try c.run()
        // Forge the output's hash wherever the cache holds it (index and journal), consistently.
        let files = [c.path + "/.texpipe/index", c.path + "/.texpipe/journal"]
        let target = "out/cards/q-clubs.png"
        let all = files.map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" }.joined(separator: "\n")
        let line = try #require(all.split(separator: "\n").last { $0.hasPrefix("f ") && $0.hasSuffix(" " + target) })
        let sha = String(line.split(separator: " ")[6])
        let forged = String(repeating: "0", count: 64)
        for file in files where FileManager.default.fileExists(atPath: file) {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            try text.replacingOccurrences(of: sha, with: forged).write(toFile: file, atomically: true, encoding: .utf8)
        }
        #expect(try c.run().1.isEmpty)  // the stat matches: trusted, as designed
        let (_, ran, jobs) = try c.run(["--verify"])
        #expect(ran == ["cards:cards/q-clubs.png"])
        #expect(jobs.contains { $0["reason"] as? String == "output modified: \(target)" })
        #expect(try c.run().1.isEmpty)
    }

    @Test func forceDryRunAndACorruptEntry() throws {
        let c = try CacheWorkspace()
        _ = try c.run()
        let (_, ran, _) = try c.run(["--force"])
        #expect(ran.count == 16)
        let dry = try CLI.run(["--dry-run"], in: c.path)
        #expect(dry.stdout.contains("16 jobs, 0 would run"))
        // Damage one entry's line in the index: a warning naming the file, that job reruns,
        // nothing else is affected.
        let index = c.path + "/.texpipe/index"
        var lines = try String(contentsOfFile: index, encoding: .utf8).split(separator: "\n").map(String.init)
        let j = try #require(lines.firstIndex { $0.hasPrefix("j ") })
        lines[j] = "j not-a-key"
        try (lines.joined(separator: "\n") + "\n").write(toFile: index, atomically: true, encoding: .utf8)
        let r = try CLI.run(["--quiet"], in: c.path)
        #expect(r.status == 0)
        #expect(r.stderr == "warning: .texpipe/index: 2 damaged lines ignored (the jobs they held run again)\n")
        let (_, ran2, _) = try c.run()
        #expect(ran2.isEmpty)
    }

    @Test func cleanRemovesOnlyWhatNoJobWritesAnyMore() throws {
        let c = try CacheWorkspace()
        _ = try c.run()
        // Drop the "padded" pipeline: its outputs become stale.
        let text = try String(contentsOfFile: c.path + "/pipeline.json", encoding: .utf8)
        let without = text.replacingOccurrences(
            of:
                #"  { "name": "padded", "inputs": ["cards/{a,k}-*.png"], "output": "padded/{file}.png",\#n    "stages": [ { "stage": "pad", "all": 2 } ] },\#n"#,
            with: "")
        #expect(without != text)
        c.w.manifest(without)
        let dry = try CLI.run(["clean", "--dry-run"], in: c.path)
        #expect(
            dry.stdout
                == "would remove out/padded/a-spades.png\nwould remove out/padded/k-spades.png\n2 stale outputs; nothing removed (--dry-run)\n"
        )
        #expect(FileManager.default.fileExists(atPath: c.path + "/out/padded/a-spades.png"))
        let clean = try CLI.run(["clean"], in: c.path)
        #expect(clean.status == 0)
        #expect(!FileManager.default.fileExists(atPath: c.path + "/out/padded/a-spades.png"))
        #expect(FileManager.default.fileExists(atPath: c.path + "/out/cards/a-spades.png"))
        #expect(
            try CLI.run(["clean", "--dry-run"], in: c.path).stdout == "0 stale outputs; nothing removed (--dry-run)\n")
    }

    @Test func interruptedRunsResumeWithExactlyTheRemainingJobs() throws {
        // Large jobs so a SIGINT lands mid-run; then the rerun must do exactly what is missing.
        let w = try Workspace()
        w.manifest(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "big", "inputs": ["cards/*.png"], "output": "{file}.png", "png": { "level": 1 },
                "stages": [ { "stage": "resize", "scale": 6, "filter": "box" } ] } ] }
            """)
        for delay in [150_000, 600_000] as [UInt32] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: CLI.binary)
            p.arguments = ["--jobs", "2", "--quiet"]
            p.currentDirectoryURL = URL(fileURLWithPath: w.path)
            p.standardError = Pipe()
            try p.run()
            usleep(delay)
            p.interrupt()  // SIGINT
            p.waitUntilExit()
            let names = (FileManager.default.enumerator(atPath: w.path + "/out")?.allObjects as? [String]) ?? []
            #expect(!names.contains { $0.contains(".tmp-") }, "no temporary file left")
            // Every output present is complete and has a cache entry; the rerun does the rest.
            let present = Set(names.filter { $0.hasSuffix(".png") })
            let r = try CLI.run(["--quiet", "--report", "r.json"], in: w.path)
            #expect(r.status == 0)
            let data = try #require(FileManager.default.contents(atPath: w.path + "/r.json"))
            let jobs = try #require(
                (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["jobs"] as? [[String: Any]])
            let ran = Set(
                jobs.filter { ($0["cacheHit"] as? Bool) == false }.map {
                    ($0["input"] as! String).replacingOccurrences(of: "cards/", with: "")
                })
            #expect(ran.isDisjoint(with: present), "finished jobs are not redone")
            #expect(ran.count + present.count == 13)
            try FileManager.default.removeItem(atPath: w.path + "/out")
            try FileManager.default.removeItem(atPath: w.path + "/.texpipe")
        }
    }

    @Test func reportsValidateParseAndRender() throws {
        let c = try CacheWorkspace()
        _ = FileManager.default.createFile(atPath: c.path + "/cards/bad.png", contents: Data("nope".utf8))
        let r = try CLI.run(
            ["--quiet", "--report", "report.json", "--junit", "junit.xml", "--html", "html"], in: c.path)
        #expect(r.status == 1)
        // JSON: valid against the committed schema (python3's jsonschema).
        let schema = CLI.packageRoot + "/docs/report.schema.json"
        let check = try CLI.run(
            [
                "-c",
                "import json, sys, jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))",
                c.path + "/report.json", schema,
            ], in: c.path, wrapper: EndToEndReference.python, bareCommand: true)
        #expect(check.status == 0, "report.json validates against docs/report.schema.json: \(check.stderr)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: FileManager.default.contents(atPath: c.path + "/report.json")!)
                as? [String: Any])
        let summary = try #require(report["summary"] as? [String: Any])
        #expect(summary["jobs"] as? Int == 17 && summary["failed"] as? Int == 1)
        let bad = (report["jobs"] as? [[String: Any]])?.first { ($0["status"] as? String) == "failed" }
        #expect((bad?["error"] as? [String: Any])?["message"] as? String == "not a PNG file (bad signature)")

        // JUnit: parses, counts match.
        let xml = try XMLDocument(contentsOf: URL(fileURLWithPath: c.path + "/junit.xml"))
        let root = try #require(xml.rootElement())
        #expect(root.name == "testsuites" && root.attribute(forName: "tests")?.stringValue == "17")
        #expect(root.attribute(forName: "failures")?.stringValue == "1")
        let cases = try xml.nodes(forXPath: "//testcase")
        #expect(cases.count == 17)
        #expect(try xml.nodes(forXPath: "//testcase/failure").count == 1)

        // HTML: loads in headless Chromium, which shows every job and every thumbnail.
        let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        let browser = try #require(chromium, "Debian's chromium is needed (Scripts/test installs it)")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: browser)
        p.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "file://" + c.path + "/html/index.html",
        ]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = Pipe()
        try p.run()
        let dom = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(dom.components(separatedBy: "<section class=\"job").count - 1 == 17)
        #expect(dom.contains("class=\"job failed\"") && dom.contains("not a PNG file (bad signature)"))
        let thumbs = try FileManager.default.contentsOfDirectory(atPath: c.path + "/html/thumbs")
        #expect(thumbs.count == 16 + 16, "the 16 good inputs and their 16 outputs")
    }
}
