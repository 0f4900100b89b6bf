import Foundation
import Testing
import TexPipe

/// Runs the built `texpipe` binary on fixtures: exit codes, stdout/stderr, files. docs/command-line.md.
struct CLI {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// The binary beside the test bundle (what `swift test` just built), else .build/debug.
    static let binary: String = {
        if let env = ProcessInfo.processInfo.environment["TEXPIPE_BIN"] { return env }
        let besideBundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("texpipe").path
        if FileManager.default.isExecutableFile(atPath: besideBundle) { return besideBundle }
        return packageRoot + "/.build/debug/texpipe"
    }()

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs the binary with `args` in `dir`; `wrapper` (e.g. timeout + a shell with ulimit) goes in front.
    /// `bareCommand`: the wrapper runs `args` itself, not the texpipe binary.
    static func run(
        _ args: [String], in dir: String, env: [String: String] = ["CI": "true"], wrapper: [String] = [],
        bareCommand: Bool = false
    ) throws -> Output {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: wrapper.first ?? binary)
        p.arguments =
            wrapper.isEmpty ? args : Array(wrapper.dropFirst()) + (bareCommand ? [] : [binary]) + args
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        var environment = ProcessInfo.processInfo.environment
        for (k, v) in env { environment[k] = v }
        p.environment = environment
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Output(
            status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
            stderr: String(decoding: e, as: UTF8.self))
    }
}

/// A temp folder holding a copy of the sample cards and a manifest.
final class Workspace {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "texpipe-e2e-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path + "/cards", withIntermediateDirectories: true)
        let cards = CLI.packageRoot + "/Samples/cards"
        for name in try FileManager.default.contentsOfDirectory(atPath: cards) {
            try FileManager.default.copyItem(atPath: cards + "/" + name, toPath: path + "/cards/" + name)
        }
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    func manifest(_ text: String) {
        _ = FileManager.default.createFile(atPath: path + "/pipeline.json", contents: Data(text.utf8))
    }

    func files(under dir: String) -> [String: Data] {
        var out: [String: Data] = [:]
        let root = path + "/" + dir
        guard let e = FileManager.default.enumerator(atPath: root) else { return out }
        for case let rel as String in e {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + rel, isDirectory: &isDir), !isDir.boolValue {
                out[rel] = FileManager.default.contents(atPath: root + "/" + rel)
            }
        }
        return out
    }

    static let cardsManifest = """
        { "version": 1, "output": "out", "pipelines": [
          { "name": "cards", "inputs": ["cards/*.png"], "output": "cards/{file}.png",
            "stages": [ { "stage": "color-key", "color": "rgb(0,128,0)", "region": "edges" }, { "stage": "trim" } ] },
          { "name": "thumbs", "inputs": ["cards/*.png"], "output": "thumbs/{file}.jpg",
            "stages": [ { "stage": "color-key", "color": "rgb(0,128,0)", "region": "edges" }, { "stage": "flatten" } ] },
          { "name": "pma", "inputs": ["cards/*.png"], "output": "pma/{file}.png", "png": { "color": "auto", "level": 9 },
            "stages": [ { "stage": "color-key", "color": "#008000" }, { "stage": "premultiply" }, { "stage": "pad", "all": 3 } ] }
        ] }
        """
}

@Suite("end to end", .serialized)
struct CLITests {
    @Test func successfulRunExitsZeroAndWritesEveryOutput() throws {
        let w = try Workspace()
        w.manifest(Workspace.cardsManifest)
        let r = try CLI.run(["pipeline.json", "--jobs", "2"], in: w.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty)
        let files = w.files(under: "out")
        #expect(files.count == 39)
        #expect(files.keys.contains("cards/a-spades.png") && files.keys.contains("thumbs/k-spades.jpg"))
        #expect(r.stdout.contains("[1/39] cards/10-hearts.png -> out/cards/10-hearts.png"))
        #expect(r.stdout.contains("39 jobs: 39 ok (0 up to date), 0 failed"))
    }

    @Test func distinctWarnsAndRunsOrStopsBeforeWritingAnything() throws {
        let w = try Workspace()
        func manifest(_ severity: String) -> String {
            ##"""
            { "version": 1, "output": "out", "pipelines": [
              { "name": "kits", "inputs": ["cards/a-spades.png"], "output": "{variant}.png",
                "variants": [ { "name": "reds", "shirt": "#c8102e" }, { "name": "crimson", "shirt": "#b8141f" } ],
                "distinct": { "keys": ["shirt"], "minDeltaE": 10, "severity": "\##(severity)" },
                "stages": [ { "stage": "composite", "layers": [ { "color": "{shirt}", "blend": "multiply" } ] } ] } ] }
            """##
        }
        let message =
            "pipelines[0].distinct: variants \"reds\" and \"crimson\" are too alike: shirt #c8102e vs #b8141f ΔE00 4.5 (minDeltaE 10)"
        w.manifest(manifest("warning"))
        let warned = try CLI.run(["--quiet", "--report", "r.json"], in: w.path)
        #expect(warned.status == 0)
        #expect(warned.stderr == "warning: pipeline.json: \(message)\n")
        #expect(w.files(under: "out").keys.sorted() == ["crimson.png", "reds.png"])
        let report = try JSONSerialization.jsonObject(with: FileManager.default.contents(atPath: w.path + "/r.json")!)
        #expect((report as? [String: Any])?["warnings"] as? [String] == [message])
        try FileManager.default.removeItem(atPath: w.path + "/out")
        w.manifest(manifest("error"))
        let stopped = try CLI.run(["--quiet"], in: w.path)
        #expect(stopped.status == 2)
        #expect(stopped.stderr == "error: pipeline.json: \(message)\n")
        #expect(w.files(under: "out").isEmpty)
    }

    @Test func jobsCountNeverChangesABit() throws {
        let w = try Workspace()
        w.manifest(Workspace.cardsManifest)
        #expect(try CLI.run(["run", "--jobs", "1", "--quiet"], in: w.path).status == 0)
        let one = w.files(under: "out")
        try FileManager.default.removeItem(atPath: w.path + "/out")
        let r = try CLI.run(["--jobs", "4"], in: w.path)
        #expect(r.status == 0)
        #expect(w.files(under: "out") == one)
        // Console lines come in plan order too.
        let lines = r.stdout.split(separator: "\n").filter { $0.hasPrefix("[") }
        #expect(lines.map { $0.split(separator: "]")[0] } == (1...39).map { "[\($0)/39" })
    }

    @Test func oneCorruptInputFailsAloneWithOneLine() throws {
        let w = try Workspace()
        _ = FileManager.default.createFile(atPath: w.path + "/cards/7h.png", contents: Data("not an image".utf8))
        w.manifest(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "cards", "inputs": ["cards/*.png"], "output": "{file}.png",
                "stages": [ { "stage": "color-key", "color": "rgb(0,128,0)" } ] } ] }
            """)
        let r = try CLI.run([], in: w.path)
        #expect(r.status == 1)
        #expect(r.stderr == "error: cards/7h.png: not a PNG file (bad signature)\n")
        #expect(w.files(under: "out").count == 13)
        #expect(r.stdout.contains("14 jobs: 13 ok (0 up to date), 1 failed"))
    }

    /// A file name with a newline, a glob with one, a 60 KB glob: each error is still one line
    /// (the newline written `\n`, the long glob quoted by its ends), and stdout's job lines too.
    @Test func errorsStayOneLineWhateverTheNamesHold() throws {
        let w = try Workspace()
        _ = FileManager.default.createFile(atPath: w.path + "/cards/bad\nname.png", contents: Data("junk".utf8))
        let long = String(repeating: "x", count: 60_000)
        w.manifest(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "cards", "inputs": ["cards/*.png"], "output": "{file}.png", "stages": [] } ] }
            """)
        let r = try CLI.run(["--no-progress"], in: w.path)
        #expect(r.status == 1)
        #expect(r.stderr == "error: cards/bad\\nname.png: not a PNG file (bad signature)\n")
        #expect(
            r.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("[") || $0.contains(" jobs: ") }, "\(r.stdout)")

        w.manifest(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "cards", "inputs": ["cards/\\n*.png", "\(long)*.png"], "output": "{file}.png", "stages": [] } ] }
            """)
        let bad = try CLI.run([], in: w.path)
        #expect(bad.status == 2)
        let lines = bad.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines[2].isEmpty, "\(bad.stderr.prefix(300))")
        #expect(lines[0] == #"error: pipeline.json: pipelines[0].inputs[0]: glob "cards/\n*.png" matches no file"#)
        // Two thirds of 1,000 characters from the start, a third from the end, what is left out
        // counted: the line was 60,068 characters.
        let prefix = #"error: pipeline.json: pipelines[0].inputs[1]: glob ""#
        let full = prefix + long + #"*.png" matches no file"#
        let (head, tail) = (666, 333)
        let cut: String =
            String(full.prefix(head)) + "…[\(full.count - head - tail) characters]…" + String(full.suffix(tail))
        #expect(lines[1] == cut)
    }

    /// Two inputs whose names are equal as Strings but not as bytes (`é` as one code point and as
    /// `e` and an accent) are two jobs writing two outputs, each from its own input: the same
    /// bytes as the same images under plain names.
    @Test func namesEqualAsStringsAreTwoJobs() throws {
        let w = try Workspace()
        let (nfc, nfd) = ("caf\u{E9}", "cafe\u{301}")
        let fm = FileManager.default
        try fm.createDirectory(atPath: w.path + "/in", withIntermediateDirectories: true)
        for (name, card) in [(nfc, "a-spades"), (nfd, "10-hearts"), ("x", "a-spades"), ("y", "10-hearts")] {
            try fm.copyItem(atPath: w.path + "/cards/\(card).png", toPath: w.path + "/in/\(name).png")
        }
        w.manifest(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "p", "inputs": ["in/*.png"], "output": "{file}.png",
                "stages": [ { "stage": "color-key", "color": "#ffffff" } ] } ] }
            """)
        let r = try CLI.run(["--no-progress"], in: w.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("4 jobs: 4 ok"), "\(r.stdout)")
        let names = try fm.contentsOfDirectory(atPath: w.path + "/out").map { Array($0.utf8) }.sorted {
            $0.lexicographicallyPrecedes($1)
        }
        #expect(
            names
                == [nfd + ".png", nfc + ".png", "x.png", "y.png"].map { Array($0.utf8) }.sorted {
                    $0.lexicographicallyPrecedes($1)
                })
        func out(_ name: String) -> Data? { fm.contents(atPath: w.path + "/out/\(name).png") }
        #expect(out(nfc) != nil && out(nfc) == out("x") && out(nfd) == out("y") && out("x") != out("y"))
    }

    /// An output folder equal as a String to a real one (the other normalisation of `café`) that is
    /// a symlink out of the output root is refused like any such symlink, whichever of the two the
    /// planner met first; nothing is written outside the root (the planner once answered the
    /// symlink's folder with the real one's answer, and wrote through it).
    @Test func aFolderEqualAsAStringToAnotherIsCheckedForSymlinksOnItsOwn() throws {
        let w = try Workspace()
        let (nfc, nfd) = ("caf\u{E9}", "cafe\u{301}")
        let fm = FileManager.default
        for dir in ["in", "out/p/" + nfd, "elsewhere"] {
            try fm.createDirectory(atPath: w.path + "/" + dir, withIntermediateDirectories: true)
        }
        for name in [nfc, nfd] {
            try fm.copyItem(atPath: w.path + "/cards/a-spades.png", toPath: w.path + "/in/\(name).png")
        }
        // The NFD folder (first in byte order) is real; the NFC one leaves the root.
        try fm.createSymbolicLink(atPath: w.path + "/out/p/" + nfc, withDestinationPath: w.path + "/elsewhere")
        w.manifest(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "p", "inputs": ["in/*.png"], "output": "p/{file}/{file}.png",
                "stages": [ { "stage": "premultiply" } ] } ] }
            """)
        let r = try CLI.run(["--no-progress"], in: w.path)
        let real = URL(fileURLWithPath: w.path + "/elsewhere").resolvingSymlinksInPath().path
        #expect(r.status == 2)
        #expect(
            r.stderr == """
                error: pipeline.json: pipelines[0].output: output out/p/\(nfc)/\(nfc).png resolves through a symlink \
                to \(real), outside the output root "out"

                """)
        #expect(try fm.contentsOfDirectory(atPath: w.path + "/elsewhere").isEmpty)
        #expect(try fm.contentsOfDirectory(atPath: w.path + "/out/p/" + nfd).isEmpty)
    }

    /// Stage resources whose paths are equal as Strings are two images: one per job (the run's
    /// loader once handed the second job the first one's map) and two in one job (one read, one
    /// cache key): each output is the bytes of the same stages over plainly named copies, and a
    /// change to either file runs the job again.
    @Test func resourcesEqualAsStringsAreTwoImages() throws {
        let w = try Workspace()
        let (nfc, nfd) = ("caf\u{E9}", "cafe\u{301}")
        let fm = FileManager.default
        for dir in ["in", "m"] { try fm.createDirectory(atPath: w.path + "/" + dir, withIntermediateDirectories: true) }
        for name in [nfc, nfd, "x", "y"] {
            try fm.copyItem(atPath: w.path + "/cards/a-spades.png", toPath: w.path + "/in/\(name).png")
        }
        for (name, card) in [(nfc, "10-hearts"), (nfd, "k-spades"), ("x", "10-hearts"), ("y", "k-spades")] {
            try fm.copyItem(atPath: w.path + "/cards/\(card).png", toPath: w.path + "/m/\(name).png")
        }
        func channels(_ r: String, _ g: String) -> String {
            #"{ "stage": "pack-channels", "r": { "image": "\#(r)", "channel": "g" }, "g": { "image": "\#(g)" } }"#
        }
        w.manifest(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "each", "inputs": ["in/*.png"], "output": "each/{file}.png",
                "stages": [ \(channels("m/{file}.png", "m/{file}.png")) ] },
              { "name": "both", "inputs": ["in/x.png"], "output": "both.png",
                "stages": [ \(channels("m/\(nfc).png", "m/\(nfd).png")) ] },
              { "name": "plain", "inputs": ["in/x.png"], "output": "plain.png",
                "stages": [ \(channels("m/x.png", "m/y.png")) ] } ] }
            """)
        let r = try CLI.run(["--no-progress"], in: w.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("6 jobs: 6 ok"), "\(r.stdout)")
        func out(_ name: String) -> Data? { fm.contents(atPath: w.path + "/out/\(name).png") }
        #expect(out("each/x") != nil && out("each/x") != out("each/y"))
        #expect(out("each/" + nfc) == out("each/x") && out("each/" + nfd) == out("each/y"))
        #expect(out("both") != nil && out("both") == out("plain"))

        // The NFD map changes: the jobs that read it run again, and agree with plain names again.
        for name in [nfd, "y"] {
            try fm.removeItem(atPath: w.path + "/m/\(name).png")
            try fm.copyItem(atPath: w.path + "/cards/q-clubs.png", toPath: w.path + "/m/\(name).png")
        }
        let again = try CLI.run(["--no-progress"], in: w.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("6 jobs: 6 ok (2 up to date)"), "\(again.stdout)")
        #expect(out("each/" + nfc) == out("each/x") && out("each/" + nfd) == out("each/y"))
        #expect(out("both") == out("plain"))
    }

    @Test func manifestErrorsExitTwoAndWriteNothing() throws {
        let w = try Workspace()
        w.manifest(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "cards", "inputs": ["cards/*.png"], "stages": [ { "stage": "premultiply" }, { "stage": "premultiply" } ] },
              { "name": "more", "inputs": ["nope/*.png"], "stages": [ { "stage": "crop", "x": -1 } ] } ] }
            """)
        let r = try CLI.run([], in: w.path)
        #expect(r.status == 2)
        #expect(
            r.stderr == """
                error: pipeline.json: pipelines[0].stages[1]: premultiply: the image is already premultiplied here
                error: pipeline.json: pipelines[1].inputs[0]: glob "nope/*.png" matches no file
                error: pipeline.json: pipelines[1].stages[0]: missing required key "height" (an integer in 1…2147483647)
                error: pipeline.json: pipelines[1].stages[0]: missing required key "width" (an integer in 1…2147483647)
                error: pipeline.json: pipelines[1].stages[0]: missing required key "y" (an integer in 0…2147483647)
                error: pipeline.json: pipelines[1].stages[0].x: expected an integer in 0…2147483647, found -1

                """)
        #expect(!FileManager.default.fileExists(atPath: w.path + "/out"))
        #expect(try CLI.run(["validate", "pipeline.json"], in: w.path).status == 2)
    }

    @Test func perInputPlanFailureIsAJobError() throws {
        let w = try Workspace()
        w.manifest(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "c", "inputs": ["cards/a-spades.png"], "output": "{file}.png",
                "stages": [ { "stage": "crop", "x": 60, "y": 0, "width": 20, "height": 10 } ] } ] }
            """)
        let r = try CLI.run([], in: w.path)
        #expect(r.status == 1)
        #expect(
            r.stderr
                == "error: cards/a-spades.png: crop: the rectangle 20×10 at (60, 0) does not fit inside the 72×100 image\n"
        )
    }

    @Test func commandLineErrorsExitTwo() throws {
        let w = try Workspace()
        w.manifest(Workspace.cardsManifest)
        #expect(try CLI.run(["--bogus"], in: w.path).status == 2)
        #expect(try CLI.run(["--jobs", "0"], in: w.path).status == 2)
        #expect(try CLI.run(["--shard", "3/2"], in: w.path).status == 2)
        #expect(try CLI.run(["missing.json"], in: w.path).status == 2)
        let p = try CLI.run(["--pipeline", "card"], in: w.path)
        #expect(p.status == 2)
        #expect(p.stderr == "error: pipeline.json: no pipeline named \"card\"; did you mean \"cards\"?\n")
        #expect(try CLI.run(["--help"], in: w.path).status == 0)
    }

    /// A platform per CI machine: `--variant` writes only those variants' outputs (pipelines
    /// without them do nothing), `--shard` splits within them, and an unknown name is exit 2.
    @Test func variantSelectsPlatformsAndShardsWithinThem() throws {
        let w = try Workspace()
        w.manifest(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "tex", "inputs": ["cards/*.png"], "output": "{variant}/{file}.{fmt}",
                "variants": [ { "name": "pc", "fmt": "dds" }, { "name": "android", "fmt": "ktx2" }, { "name": "web", "fmt": "png" } ],
                "texture": { "format": "rgba8" }, "stages": [ { "stage": "flip", "axis": "vertical" } ] },
              { "name": "plain", "inputs": ["cards/*.png"], "output": "plain/{file}.png", "stages": [ { "stage": "flip", "axis": "vertical" } ] }
            ] }
            """)
        let r = try CLI.run(["--quiet", "--variant", "pc", "--variant", "web"], in: w.path)
        #expect(r.status == 0, "\(r.stderr)")
        let written = w.files(under: "out").keys.sorted()
        #expect(written.count == 26)
        #expect(
            written.allSatisfy {
                $0.hasPrefix("pc/") && $0.hasSuffix(".dds") || $0.hasPrefix("web/") && $0.hasSuffix(".png")
            })
        // Shards of one variant: together exactly its 13 outputs, each once.
        try? FileManager.default.removeItem(atPath: w.path + "/out")
        var union: [String] = []
        for k in 1...3 {
            #expect(try CLI.run(["--quiet", "--variant", "android", "--shard", "\(k)/3"], in: w.path).status == 0)
            let now = w.files(under: "out").keys.sorted()
            union += now.filter { !union.contains($0) }
        }
        #expect(union.count == 13 && union.allSatisfy { $0.hasPrefix("android/") })
        let bad = try CLI.run(["--variant", "andriod"], in: w.path)
        #expect(bad.status == 2)
        #expect(bad.stderr == "error: pipeline.json: no variant named \"andriod\"; did you mean \"android\"?\n")
    }

    /// A failed gate is exit 1 with every output still written, one line naming the output, the
    /// measured value and the limit, and a failed JUnit case; a warning gate is exit 0.
    @Test func failedGatesExitOneAndStillWrite() throws {
        let w = try Workspace()
        func manifest(_ check: String) -> String {
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "gpu", "inputs": ["cards/{a,k}-*.png"], "output": "{file}.ktx2", "texture": { "format": "bc7" },
                "check": \(check), "stages": [ { "stage": "mipmaps" } ] } ] }
            """
        }
        w.manifest(manifest(#"{ "maxBytes": 100, "maxTotalBytes": 200 }"#))
        let r = try CLI.run(["--quiet", "--junit", "j.xml"], in: w.path)
        #expect(r.status == 1)
        #expect(w.files(under: "out").count == 2)
        #expect(r.stderr.contains("error: cards/a-spades.png: check: out/a-spades.ktx2 is "))
        #expect(r.stderr.contains(" bytes, over maxBytes 100\n"))
        #expect(r.stderr.contains("error: pipeline \"gpu\": its outputs are "))
        let junit = String(decoding: FileManager.default.contents(atPath: w.path + "/j.xml")!, as: UTF8.self)
        #expect(junit.contains(#"<testcase classname="gpu" name="budget" time="0.000">"#))
        #expect(junit.contains(#"failures="3""#))
        w.manifest(manifest(#"{ "maxBytes": 100, "severity": "warning" }"#))
        let warned = try CLI.run(["--quiet"], in: w.path)
        #expect(warned.status == 0)
        #expect(warned.stderr.contains("warning: cards/a-spades.png: check: out/a-spades.ktx2 is "))
    }

    @Test func dryRunWritesNothing() throws {
        let w = try Workspace()
        w.manifest(Workspace.cardsManifest)
        let r = try CLI.run(["--dry-run", "--pipeline", "thumbs"], in: w.path)
        #expect(r.status == 0)
        #expect(r.stdout.contains("would write out/thumbs/a-spades.jpg from cards/a-spades.png — new"))
        #expect(r.stdout.contains("13 jobs, 13 would run, 13 outputs; nothing written (--dry-run)"))
        #expect(!FileManager.default.fileExists(atPath: w.path + "/out"))
    }

    @Test func shardsPartitionTheJobs() throws {
        let w = try Workspace()
        w.manifest(Workspace.cardsManifest)
        #expect(try CLI.run(["--quiet"], in: w.path).status == 0)
        let all = w.files(under: "out")
        try FileManager.default.removeItem(atPath: w.path + "/out")
        for k in 1...3 { #expect(try CLI.run(["--shard", "\(k)/3", "--quiet"], in: w.path).status == 0) }
        #expect(w.files(under: "out") == all)

        // --shard auto: the CI's variables name the same shards.
        try FileManager.default.removeItem(atPath: w.path + "/out")
        try FileManager.default.removeItem(atPath: w.path + "/.texpipe")
        for k in 1...3 {
            let r = try CLI.run(
                ["--shard", "auto", "--quiet"], in: w.path,
                env: ["CI": "true", "CI_NODE_INDEX": "\(k)", "CI_NODE_TOTAL": "3"])
            #expect(r.status == 0)
        }
        #expect(w.files(under: "out") == all)
        let none = try CLI.run(["--shard", "auto"], in: w.path)
        #expect(none.status == 2 && none.stderr.contains("--shard auto needs the CI's shard variables"))
    }

    @Test func stagesValidateAndInspect() throws {
        let w = try Workspace()
        w.manifest(Workspace.cardsManifest)
        let stages = try CLI.run(["stages"], in: w.path)
        #expect(stages.status == 0)
        for name in ["color-key", "premultiply", "unpremultiply", "flatten", "flip", "crop", "pad", "trim"] {
            #expect(stages.stdout.contains("\n\(name) — ") || stages.stdout.hasPrefix("\(name) — "))
        }
        #expect(stages.stdout.contains("  tolerance: a number in 0…1; default 0."))
        let one = try CLI.run(["stages", "colour-key"], in: w.path)
        #expect(one.status == 2 && one.stderr == "error: unknown stage \"colour-key\"; did you mean \"color-key\"?\n")

        let v = try CLI.run(["validate", "pipeline.json"], in: w.path)
        #expect(v.status == 0 && v.stdout == "pipeline.json: ok — 3 pipelines, 39 jobs, 39 outputs\n")

        // A JPEG named .png is sniffed as JPEG.
        #expect(try CLI.run(["--quiet", "--pipeline", "thumbs"], in: w.path).status == 0)
        try FileManager.default.copyItem(atPath: w.path + "/out/thumbs/a-spades.jpg", toPath: w.path + "/disguised.png")
        let i = try CLI.run(["inspect", "cards/a-spades.png", "disguised.png", "nope.png"], in: w.path)
        #expect(i.status == 1)
        #expect(i.stdout.contains("cards/a-spades.png: PNG 72×100, RGBA 8-bit"))
        #expect(i.stdout.contains("likely key color: rgb(0, 128, 0) (4 of 4 corners)"))
        #expect(i.stdout.contains("disguised.png: JPEG 72×100, YCbCr 8-bit (named .png but the signature says JPEG)"))
        #expect(i.stderr == "error: nope.png: cannot read the file (No such file or directory)\n")

        // --json: the same facts, one object per file, an error object in a failed file's place.
        let j = try CLI.run(["inspect", "--json", "cards/a-spades.png", "disguised.png", "nope.png"], in: w.path)
        #expect(j.status == 1)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [[String: Any]])
        #expect(objects.count == 3)
        #expect(objects[0]["file"] as? String == "cards/a-spades.png")
        #expect(objects[0]["format"] as? String == "PNG" && objects[0]["colorType"] as? String == "RGBA")
        #expect(objects[0]["width"] as? Int == 72 && objects[0]["height"] as? Int == 100)
        #expect(objects[0]["likelyKeyColor"] as? String == "rgb(0, 128, 0)")
        #expect(objects[0]["likelyKeyColorEvidence"] as? String == "4 of 4 corners")
        #expect(objects[0]["alphaMax"] as? Int == 255 && objects[0]["decodedDepth"] as? Int == 8)
        #expect(objects[1]["format"] as? String == "JPEG" && objects[1]["progressive"] as? Bool == false)
        #expect(objects[1]["extensionMismatch"] as? String == "named .png but the signature says JPEG")
        #expect(objects[2]["error"] as? String == "cannot read the file (No such file or directory)")
    }

    @Test func interruptedRunLeavesNoTemporaryFiles() throws {
        // Many jobs so the signal lands mid-run; whatever the timing, no temporary file may remain
        // and every output present must decode completely.
        let w = try Workspace()
        w.manifest(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "c", "inputs": ["cards/*.png"], "output": "{variant}/{file}.png", "png": { "level": 9 },
                "variants": [ \((0..<40).map { "{ \"name\": \"v\($0)\" }" }.joined(separator: ", ")) ],
                "stages": [ { "stage": "pad", "all": 200 } ] } ] }
            """)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = ["--jobs", "2", "--quiet"]
        p.currentDirectoryURL = URL(fileURLWithPath: w.path)
        let err = Pipe()
        p.standardError = err
        try p.run()
        usleep(300_000)
        p.terminate()  // SIGTERM
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(!stderr.contains("error:"), "an interrupt is not reported as job failures")
        let names = (FileManager.default.enumerator(atPath: w.path + "/out")?.allObjects as? [String]) ?? []
        #expect(!names.contains { $0.contains(".tmp-") })
        if p.terminationReason == .exit { #expect(p.terminationStatus == 143 || p.terminationStatus == 0) }
    }
}

@Suite("hostile input", .serialized)
struct HostileInputTests {
    @Test func everyHostileFileFailsAloneInBoundedMemory() throws {
        let w = try Workspace()
        let hostile = CLI.packageRoot + "/Tests/Fixtures/hostile"
        let names = try FileManager.default.contentsOfDirectory(atPath: hostile).sorted()
        #expect(names.count == 15)
        for name in names {
            try FileManager.default.copyItem(atPath: hostile + "/" + name, toPath: w.path + "/cards/" + name)
        }
        // Made here, not committed: a symlink loop, a FIFO (opening it would block), and a folder
        // named .png (globs match files only, so it is no job at all).
        try FileManager.default.createSymbolicLink(atPath: w.path + "/cards/loop.png", withDestinationPath: "loop.png")
        #expect(mkfifo(w.path + "/cards/fifo.png", 0o644) == 0)
        try FileManager.default.createDirectory(
            atPath: w.path + "/cards/folder.png", withIntermediateDirectories: false)
        w.manifest(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "all", "inputs": ["cards/*.{png,jpg}"], "output": "{file}.png",
                "stages": [ { "stage": "color-key", "color": "rgb(0,128,0)" } ] } ] }
            """)
        // Under a 1.5 GiB address-space limit and a 120 s timeout, peak RSS measured by GNU time:
        // bounded memory and time.
        let r = try CLI.run(
            ["--max-pixels", "4000000", "--jobs", "2"], in: w.path,
            wrapper: [
                "/usr/bin/time", "-f", "peak-rss-kib %M", "/usr/bin/timeout", "120", "/bin/sh", "-c",
                "ulimit -v 1572864; exec \"$0\" \"$@\"",
            ])
        #expect(r.status == 1, "\(r.stderr)")
        var lines = r.stderr.split(separator: "\n").map(String.init)
        let rssLine = try #require(lines.last { $0.hasPrefix("peak-rss-kib ") })
        lines.removeAll { $0.hasPrefix("peak-rss-kib ") || $0.hasPrefix("Command exited") }
        let peakKiB = try #require(Int(rssLine.dropFirst("peak-rss-kib ".count)))
        // --max-pixels × 8 bytes plus a fixed 128 MiB for the runtime and two jobs' buffers.
        #expect(peakKiB < (4_000_000 * 8) / 1024 + 128 * 1024, "peak RSS \(peakKiB) KiB")
        let bad = names.filter { $0.hasSuffix(".png") || $0.hasSuffix(".jpg") } + ["fifo.png", "loop.png"]
        #expect(lines.count == bad.count, "one line per bad file:\n\(r.stderr)")
        for name in bad {
            #expect(lines.filter { $0.hasPrefix("error: cards/\(name): ") }.count == 1, "\(name)")
        }
        #expect(lines.contains("error: cards/loop.png: cannot read the file (Too many levels of symbolic links)"))
        #expect(lines.contains("error: cards/fifo.png: not a regular file"))
        #expect(lines.contains("error: cards/zlib-bomb.png: IDAT: Too much image data"))
        #expect(lines.contains("error: cards/palette-index-out-of-range.png: palette index out of range"))
        // Every good card is written; nothing else, nothing temporary.
        let written = Set(w.files(under: "out").keys)
        #expect(written.count == 13 && written.allSatisfy { !$0.contains(".tmp-") })
    }
}

@Suite("the sample manifest")
struct SampleManifestTests {
    @Test func pipelineJSONExercisesEveryStageAndValidates() throws {
        let data = try #require(FileManager.default.contents(atPath: CLI.packageRoot + "/pipeline.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let pipelines = try #require(json["pipelines"] as? [[String: Any]])
        var used = Set<String>()
        for p in pipelines {
            for s in (p["stages"] as? [[String: Any]]) ?? [] { used.insert(s["stage"] as! String) }
        }
        let stages = try CLI.run(["stages"], in: CLI.packageRoot)
        let registered = Set(
            stages.stdout.split(separator: "\n").compactMap { line -> String? in
                guard let r = line.range(of: " — "), !line.hasPrefix(" ") else { return nil }
                return String(line[..<r.lowerBound])
            })
        #expect(registered == Set(StageRegistry.names), "texpipe stages prints the registry")
        #expect(
            registered.subtracting(used).isEmpty, "stages pipeline.json never uses: \(registered.subtracting(used))")
        #expect(try CLI.run(["validate", "pipeline.json"], in: CLI.packageRoot).status == 0)
    }
}

/// GPU textures through the command line: the same bytes at --jobs 1 and 2 (astcenc and the BC
/// encoders sharing a large image across lent cores included), the cache, `inspect`, and the HTML report's preview.
@Suite("GPU textures end to end", .serialized)
struct TextureCLITests {
    static let manifest = """
        { "version": 1, "output": "out", "pipelines": [
          { "name": "astc", "inputs": ["cards/*.png"], "output": "astc/{file}.ktx2",
            "texture": { "format": "astc-6x6", "supercompression": "zstd" },
            "stages": [ { "stage": "color-key", "color": "rgb(0,128,0)", "region": "edges" }, { "stage": "premultiply" }, { "stage": "mipmaps" } ] },
          { "name": "big", "inputs": ["cards/a-spades.png"], "output": "big/{file}.ktx2",
            "texture": { "format": "astc-4x4" },
            "stages": [ { "stage": "resize", "width": 1024, "height": 1024 }, { "stage": "mipmaps", "levels": 3 } ] },
          { "name": "dds", "inputs": ["cards/k-*.png"], "output": "dds/{file}.dds", "stages": [ { "stage": "mipmaps" } ] },
          { "name": "bc7", "inputs": ["cards/k-*.png"], "output": "bc/{file}.ktx2", "texture": { "format": "bc7" },
            "stages": [ { "stage": "color-key", "color": "rgb(0,128,0)", "region": "edges" }, { "stage": "mipmaps" } ] },
          { "name": "bigbc", "inputs": ["cards/a-spades.png"], "output": "bc/big-{file}.dds",
            "texture": { "format": "bc7" }, "stages": [ { "stage": "resize", "width": 256, "height": 256 } ] }
        ] }
        """

    @Test func sameBytesAtAnyJobCountAndUpToDateAfter() throws {
        let a = try Workspace()
        a.manifest(Self.manifest)
        let b = try Workspace()
        b.manifest(Self.manifest)
        #expect(try CLI.run(["--quiet", "--jobs", "1"], in: a.path).status == 0)
        // One big job first on two workers: the idle worker lends its core to astcenc (and to the
        // BC encoder's rows of blocks).
        #expect(try CLI.run(["--quiet", "--jobs", "2", "--pipeline", "big"], in: b.path).status == 0)
        #expect(try CLI.run(["--quiet", "--jobs", "2", "--pipeline", "bigbc"], in: b.path).status == 0)
        #expect(try CLI.run(["--quiet", "--jobs", "2"], in: b.path).status == 0)
        let files = a.files(under: "out")
        #expect(files.count == 13 + 1 + 1 + 1 + 1)
        #expect(files == b.files(under: "out"))
        let again = try CLI.run([], in: a.path)
        #expect(again.stdout.contains("17 ok (17 up to date)"))
    }

    @Test func inspectDescribesTheContainer() throws {
        let w = try Workspace()
        w.manifest(Self.manifest)
        #expect(try CLI.run(["--quiet", "--pipeline", "dds"], in: w.path).status == 0)
        let r = try CLI.run(["inspect", "out/dds/k-spades.dds"], in: w.path)
        #expect(r.status == 0)
        #expect(
            r.stdout.hasPrefix(
                """
                out/dds/k-spades.dds: DDS 72×100, rgba8 srgb, 7 levels
                  alpha: opaque
                  level 0: 72×100, 28,800 bytes
                  level 1: 36×50, 7,200 bytes

                """))
        let json = try CLI.run(["inspect", "--json", "out/dds/k-spades.dds"], in: w.path)
        let facts = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let texture = try #require(facts.first?["texture"] as? [String: Any])
        #expect(texture["container"] as? String == "DDS" && (texture["levels"] as? [Any])?.count == 7)
    }

    @Test func theReportShowsTheChain() throws {
        let w = try Workspace()
        w.manifest(Self.manifest)
        #expect(try CLI.run(["--quiet", "--pipeline", "astc", "--html", "html"], in: w.path).status == 0)
        let html = try String(contentsOfFile: w.path + "/html/index.html", encoding: .utf8)
        #expect(html.components(separatedBy: "alt=\"out/astc/").count - 1 == 13 * 2)  // level 0 and the chain
        #expect(html.contains("astc-6x6, 7 levels"))
        #expect(FileManager.default.fileExists(atPath: w.path + "/html/thumbs/0-0-chain.png"))
    }

    /// A cube map's faces in a cross, beside its level 0 (+X) and chain.
    @Test func theReportShowsACubesFaces() throws {
        let w = try Workspace()
        w.manifest(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "cube", "inputs": ["cards/a-spades.png"], "output": "{file}.ktx2",
                "stages": [ { "stage": "resize", "width": 64, "height": 32 }, { "stage": "cubemap", "size": 8 },
                            { "stage": "mipmaps" } ] } ] }
            """)
        #expect(try CLI.run(["--quiet", "--html", "html"], in: w.path).status == 0)
        let html = try String(contentsOfFile: w.path + "/html/index.html", encoding: .utf8)
        #expect(html.contains("cube map (face +X shown)") && html.contains("faces: +Y above +Z"))
        let faces = try #require(FileManager.default.contents(atPath: w.path + "/html/thumbs/0-0-faces.png"))
        let decoded = try ImageDecoder.decode(Array(faces))
        #expect(decoded.width * 3 == decoded.height * 4)  // four faces across, three down
    }

    /// A volume's slices as a strip, in the report and in `inspect --preview`.
    @Test func theReportAndInspectShowAVolumesSlices() throws {
        let w = try Workspace()
        w.manifest(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "vol", "inputs": ["cards/*-spades.png"], "volume": { "size": [16, 16] }, "output": "v.ktx2",
                "stages": [ { "stage": "mipmaps" } ] } ] }
            """)
        #expect(try CLI.run(["--quiet", "--html", "html"], in: w.path).status == 0)
        let html = try String(contentsOfFile: w.path + "/html/index.html", encoding: .utf8)
        let depth = try FileManager.default.contentsOfDirectory(atPath: w.path + "/cards").filter {
            $0.hasSuffix("-spades.png")
        }.count
        #expect(html.contains("16×16×\(depth) volume (slice 0 shown)"), "\(html)")
        let picks = Preview.picks(depth)
        #expect(html.contains("level 0, slices " + picks.map(String.init).joined(separator: ", ")))
        #expect(FileManager.default.fileExists(atPath: w.path + "/html/thumbs/0-0-slices.png"))
        let r = try CLI.run(["inspect", "--preview", "strip.png", "out/v.ktx2"], in: w.path)
        #expect(r.status == 0 && r.stdout.contains("KTX2 16×16×\(depth) volume, rgba8 srgb"))
        let strip = try ImageDecoder.decode(
            Array(try #require(FileManager.default.contents(atPath: w.path + "/strip.png"))))
        #expect(strip.width == picks.count * 17 - 1 && strip.height == 16)
        let two = try CLI.run(["inspect", "--preview", "x.png", "out/v.ktx2", "out/v.ktx2"], in: w.path)
        #expect(two.status == 2 && two.stderr.contains("--preview pictures one file: name only one"), "\(two.stderr)")
    }
}
