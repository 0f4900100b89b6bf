import Foundation
import Testing

/// A real WebDAV server for the remote cache (docs/caching-and-ci.md): Debian's nginx on a free loopback port,
/// its own root and temp folders, one process (`master_process off`), stopped with SIGKILL.
/// Locations: `/cache` (PUT/DELETE, `create_full_put_path`), `/fail` (500), `/slow` (the same
/// files as `/cache`, sent at 1 byte a second), `/lagging` (the same, read and written, every
/// answer sent at 150 bytes a second: about 2 s for a 404), `/auth` (Basic auth, user `ci`).
final class Nginx {
    let dir: String
    let port: Int
    var process: Process?
    static let password = "s3cret-Pa55"

    struct Missing: Error, CustomStringConvertible {
        var description: String { "nginx is not installed (Scripts/setup --test)" }
    }

    static var binary: String? {
        ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    var root: String { dir + "/root" }
    var url: String { "http://127.0.0.1:\(port)" }
    var accessLog: String { (try? String(contentsOfFile: dir + "/access.log", encoding: .utf8)) ?? "" }

    init() throws {
        dir = NSTemporaryDirectory() + "texpipe-nginx-" + UUID().uuidString
        for sub in ["root/cache", "root/auth", "tmp"] {
            try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
        }
        port = Nginx.freePort()
        try "ci:{PLAIN}\(Nginx.password)\n".write(toFile: dir + "/htpasswd", atomically: true, encoding: .utf8)
        let dav = "dav_methods PUT DELETE; create_full_put_path on; dav_access user:rw group:r all:r;"
        let conf = """
            daemon off;
            master_process off;
            error_log \(dir)/error.log;
            pid \(dir)/nginx.pid;
            events { worker_connections 256; }
            http {
              access_log \(dir)/access.log;
              client_body_temp_path \(dir)/tmp/body;
              proxy_temp_path \(dir)/tmp/proxy;
              fastcgi_temp_path \(dir)/tmp/fastcgi;
              uwsgi_temp_path \(dir)/tmp/uwsgi;
              scgi_temp_path \(dir)/tmp/scgi;
              client_max_body_size 0;
              server {
                listen 127.0.0.1:\(port);
                root \(dir)/root;
                location /cache/ { \(dav) }
                location /fail/ { return 500; }
                location /slow/ { alias \(dir)/root/cache/; limit_rate 1; }
                location /lagging/ { alias \(dir)/root/cache/; \(dav) limit_rate 150; }
                location /auth/ { auth_basic "texpipe"; auth_basic_user_file \(dir)/htpasswd; \(dav) }
              }
            }
            """
        try conf.write(toFile: dir + "/nginx.conf", atomically: true, encoding: .utf8)
        try start()
    }

    func start() throws {
        // Missing under CI=true, the test fails here rather than the whole test process crashing.
        guard let binary = Nginx.binary else { throw Nginx.Missing() }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["-p", dir, "-c", dir + "/nginx.conf", "-e", dir + "/error.log"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        process = p
        for _ in 0..<100 where !Nginx.accepts(port) { usleep(50_000) }
        #expect(Nginx.accepts(port), "nginx did not start: \(accessLog)")
    }

    func stop() {
        guard let p = process else { return }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        process = nil
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Files under the root's `cache/` folder, relative (`ac/…`, `cas/…`).
    func stored(_ location: String = "cache") -> [String] {
        (FileManager.default.enumerator(atPath: root + "/" + location)?.allObjects as? [String] ?? [])
            .filter { $0.contains("/") }.sorted()
    }

    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }
}

/// Every scenario compares outputs with a run without any cache, byte for byte, and the exit status.
/// Each starts its own nginx (own port, root and logs) in its own workspace, so they run beside
/// the rest of the suite (serialized, they were the suite's last 30 s); the timed ones go through
/// `/lagging`, whose answers are slow whatever the machine's load.
@Suite(
    "remote cache on nginx",
    EndToEndReference.needs(Nginx.binary != nil, "nginx"))
struct RemoteCacheTests {
    /// The cards through three pipelines (JPEG included), and one card stored without compression
    /// (28 KiB: an output over 16 KiB travels as a blob, not inside its entry): 40 jobs.
    static func project() throws -> Workspace {
        let w = try Workspace()
        let large = """
            { "name": "large", "inputs": ["cards/a-spades.png"], "output": "large/{file}.png",
              "png": { "level": 0, "color": "rgba" }, "stages": [ { "stage": "color-key", "color": "#008000" } ] },
            """
        w.manifest(
            Workspace.cardsManifest.replacingOccurrences(of: "\"pipelines\": [", with: "\"pipelines\": [\n" + large))
        return w
    }

    /// What a run without any cache writes: the reference every scenario is held to.
    static let reference: [String: Data] = {
        let w = try! project()
        let r = try! CLI.run(["--quiet"], in: w.path)
        precondition(r.status == 0)
        return w.files(under: "out")
    }()

    /// For runs whose hit and miss counts are asserted: the cost model off, so every job that
    /// misses locally is asked (with it on, small jobs may run here instead: the same bytes, other
    /// counts; `aServerKilledDuringAnAllHitRunOnlyCostsTime` compares the two).
    static let asking = ["CI": "true", "TEXPIPE_REMOTE_COST_MODEL": "off"]

    static func report(_ w: Workspace) throws -> [String: Any] {
        let data = try #require(FileManager.default.contents(atPath: w.path + "/report.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// `texpipe --quiet --remote-cache URL` started in `w`, not waited for.
    /// `texpipe run` in the background, always asking the cache (no cost model), so that a run
    /// against `/lagging` lasts as long as its lookups do, whatever the binary's speed.
    static func startRun(in w: Workspace, cache url: String, stderr: Pipe?) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = ["--quiet", "--remote-cache", url]
        p.environment = ProcessInfo.processInfo.environment.merging(asking) { $1 }
        p.currentDirectoryURL = URL(fileURLWithPath: w.path)
        p.standardOutput = FileHandle.nullDevice
        p.standardError = stderr ?? FileHandle.nullDevice
        try p.run()
        return p
    }

    static func remote(_ w: Workspace) throws -> [String: Any] {
        try #require(try report(w)["remote"] as? [String: Any])
    }

    @Test func twoTreesShareOneCacheAndTheSecondRunsNothing() throws {
        let nginx = try Nginx()
        let a = try Self.project()
        let ra = try CLI.run(
            ["--quiet", "--remote-cache", nginx.url + "/cache", "--report", "report.json"], in: a.path, env: Self.asking
        )
        #expect(ra.status == 0)
        #expect(ra.stderr == "")
        #expect(a.files(under: "out") == Self.reference)
        let upA = try Self.remote(a)
        #expect(upA["uploads"] as? Int == 40 && upA["hits"] as? Int == 0 && upA["misses"] as? Int == 40)
        // Entries last: every output an entry does not carry inside it is on the server as a
        // blob, and one it carries (at most 16 KiB) is not sent a second time as a blob.
        let stored = Set(nginx.stored())
        #expect(stored.filter { $0.hasPrefix("ac/") }.count == 40)
        var (inline, blobs) = (0, 0)
        for entry in stored where entry.hasPrefix("ac/") {
            let data = try #require(FileManager.default.contents(atPath: nginx.root + "/cache/" + entry))
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            for output in try #require(json["outputs"] as? [[String: Any]]) {
                let sha = try #require(output["sha256"] as? String)
                let size = try #require(output["size"] as? Int)
                if output["contents"] != nil {
                    inline += 1
                    #expect(size <= 16 * 1024 && !stored.contains("cas/" + sha), "\(entry): \(size) bytes")
                } else {
                    blobs += 1
                    #expect(size > 16 * 1024 && stored.contains("cas/" + sha), "\(entry) lists a blob the server lacks")
                }
            }
        }
        #expect(inline > 0 && blobs > 0, "\(inline) inline, \(blobs) blobs: the project has both kinds")
        // Another checkout, nothing local: every job a remote hit, no stage runs.
        let b = try Self.project()
        let rb = try CLI.run(
            ["--remote-cache", nginx.url + "/cache", "--report", "report.json"], in: b.path, env: Self.asking)
        #expect(rb.status == 0)
        #expect(b.files(under: "out") == Self.reference)
        #expect(rb.stdout.contains("remote cache: 40 hits, 0 misses, 0 uploads"))
        let jobs = try #require(try Self.report(b)["jobs"] as? [[String: Any]])
        #expect(jobs.count == 40)
        #expect(jobs.allSatisfy { $0["remoteHit"] as? Bool == true && ($0["stages"] as? [Any])?.isEmpty == true })
        // The hits were recorded locally: a rerun without the server is all up to date.
        let rerun = try CLI.run(["--report", "report.json"], in: b.path)
        #expect(rerun.stdout.contains("40 ok (40 up to date)"))
    }

    /// An atlas's pages are known once it has packed: a remote hit brings back every page and data
    /// file its entry lists, and a rerun is up to date.
    @Test func anAtlasWithSeveralPagesComesBackWhole() throws {
        let nginx = try Nginx()
        let manifest = """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "deck", "inputs": ["cards/*.png"], "atlas": { "maxSize": 256, "data": ["json", "libgdx"] },
                "output": "deck/{page}.png" } ] }
            """
        let a = try Workspace()
        a.manifest(manifest)
        #expect(try CLI.run(["--quiet", "--remote-cache", nginx.url + "/cache"], in: a.path).status == 0)
        let written = a.files(under: "out")
        #expect(
            written.keys.contains("deck/2.png") && written.keys.contains("deck/deck.atlas"), "\(written.keys.sorted())")
        let b = try Workspace()
        b.manifest(manifest)
        let rb = try CLI.run(["--remote-cache", nginx.url + "/cache"], in: b.path, env: Self.asking)
        #expect(rb.status == 0)
        #expect(rb.stdout.contains("remote cache: 1 hits, 0 misses, 0 uploads"), "\(rb.stdout)")
        #expect(b.files(under: "out") == written)
        #expect(try CLI.run([], in: b.path).stdout.contains("1 ok (1 up to date)"))
    }

    /// A glTF model's textures (a GLB's under .texpipe/gltf/) and its rewrite come back from the
    /// cache in another checkout: every job a hit, the same bytes, and a rerun up to date.
    @Test func aModelAndItsTexturesComeBackFromTheCache() throws {
        let nginx = try Nginx()
        let (a, _) = try GLTFTests.workspace()
        #expect(
            try CLI.run(["--quiet", "--remote-cache", nginx.url + "/cache"], in: a.path, env: Self.asking).status == 0)
        let written = a.files(under: "out")
        let (b, _) = try GLTFTests.workspace()
        let rb = try CLI.run(["--remote-cache", nginx.url + "/cache"], in: b.path, env: Self.asking)
        #expect(rb.status == 0)
        #expect(rb.stdout.contains("remote cache: 20 hits, 0 misses, 0 uploads"), "\(rb.stdout)")
        #expect(b.files(under: "out") == written)
        #expect(try CLI.run([], in: b.path).stdout.contains("20 ok (20 up to date)"))
    }

    @Test func aServerThatIsGoneOrStopsMidRunOnlyCostsTime() throws {
        let nginx = try Nginx()
        let url = nginx.url + "/cache"
        nginx.stop()
        let w = try Self.project()
        let r = try CLI.run(["--quiet", "--remote-cache", url, "--report", "report.json"], in: w.path)
        #expect(r.status == 0)
        #expect(w.files(under: "out") == Self.reference)
        #expect(r.stderr.hasPrefix("warning: remote cache \(url): cannot connect; jobs run locally\n"))
        // Each kind once; then the cache is off for the run.
        #expect(r.stderr.components(separatedBy: "cannot connect").count == 2)
        #expect(try Self.remote(w)["errors"] as? Int ?? 0 >= 1)

        // Stopped while a run is looking up and uploading: the same outputs as a run without the
        // cache, and exit 0. Through `/lagging` (about 2 s an answer) and always asking, 156 jobs on
        // 16 lanes take some 20 s of lookups, so the run is still going when the server stops,
        // however fast the binary.
        let many = """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "c", "inputs": ["cards/*.png"], "output": "{variant}/{file}.png", "png": { "level": 9 },
                "variants": [ \((0..<12).map { "{ \"name\": \"v\($0)\" }" }.joined(separator: ", ")) ],
                "stages": [ { "stage": "pad", "all": 200 } ] } ] }
            """
        let plain = try Workspace()
        plain.manifest(many)
        #expect(try CLI.run(["--quiet"], in: plain.path).status == 0)
        try nginx.start()
        let w2 = try Workspace()
        w2.manifest(many)
        let err = Pipe()
        let lagging = nginx.url + "/lagging"
        let p = try Self.startRun(in: w2, cache: lagging, stderr: err)
        let start = Date()
        while nginx.accessLog.split(separator: "\n").count < 4 && Date().timeIntervalSince(start) < 30 { usleep(2000) }
        #expect(p.isRunning, "the run ended before the server stopped")
        nginx.stop()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(w2.files(under: "out") == plain.files(under: "out"))
        // The requests in flight when it stops fail part-way (libcurl error 18) or find nothing to
        // connect to, whichever the timing gives: either way a warning that the jobs run locally.
        let warning = stderr.split(separator: "\n").first { $0.hasPrefix("warning: remote cache \(lagging): ") }
        #expect(warning?.hasSuffix("; jobs run locally") == true, "\(stderr)")
    }

    /// The 13 cards padded in `variants` ways (one small job each), and what a run without any
    /// cache writes for them.
    static func smallJobs(variants: Int) throws -> (manifest: String, reference: [String: Data]) {
        let many = """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "c", "inputs": ["cards/*.png"], "output": "{variant}/{file}.png",
                "variants": [ \((0..<variants).map { "{ \"name\": \"v\($0)\", \"n\": \($0 % 7) }" }.joined(separator: ", ")) ],
                "stages": [ { "stage": "pad", "all": "{n}" } ] } ] }
            """
        let plain = try Workspace()
        plain.manifest(many)
        #expect(try CLI.run(["--quiet"], in: plain.path).status == 0)
        return (many, plain.files(under: "out"))
    }

    /// 2,002 small jobs served wholly by the cache, the server killed part-way: exit 0 and the
    /// bytes of a run without any cache. And the cost model (on by default) against always
    /// asking (TEXPIPE_REMOTE_COST_MODEL=off): the same bytes.
    @Test func aServerKilledDuringAnAllHitRunOnlyCostsTime() throws {
        let (many, reference) = try Self.smallJobs(variants: 154)
        #expect(reference.count == 2002)
        let nginx = try Nginx()
        let url = nginx.url + "/cache"
        defer { nginx.stop() }
        let upload = try Workspace()
        upload.manifest(many)
        // Always asking, so every job is uploaded (with the cost model, what it runs here is not).
        #expect(try CLI.run(["--quiet", "--remote-cache", url], in: upload.path, env: Self.asking).status == 0)
        let uploaded = nginx.accessLog.split(separator: "\n").count

        // Always asking: every job a hit. With the cost model, small jobs may run here instead
        // (probed, then where a hit costs more): the same bytes either way.
        for env in [["CI": "true", "TEXPIPE_REMOTE_COST_MODEL": "off"], ["CI": "true"]] {
            let w = try Workspace()
            w.manifest(many)
            let r = try CLI.run(["--quiet", "--remote-cache", url, "--report", "report.json"], in: w.path, env: env)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(w.files(under: "out") == reference)
            let remote = try Self.remote(w)
            let hits = try #require(remote["hits"] as? Int)
            if env["TEXPIPE_REMOTE_COST_MODEL"] == "off" { #expect(hits == 2002) } else { #expect(hits <= 2002) }
            #expect(remote["errors"] as? Int == 0)
        }

        // Killed while a fresh tree is being served: through `/lagging` (the same files, about 2 s
        // an answer) and always asking, so the run is still going when the server is killed,
        // however fast the binary.
        let w = try Workspace()
        w.manifest(many)
        func logBytes() -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: nginx.dir + "/access.log"))?[.size] as? Int) ?? 0
        }
        let before = logBytes()
        let start = Date()
        let p = try Self.startRun(in: w, cache: nginx.url + "/lagging", stderr: nil)
        // Killed once about twenty lookups (a log line each, ~100 bytes) are answered.
        while logBytes() < before + 20 * 100 && Date().timeIntervalSince(start) < 30 { usleep(2000) }
        #expect(p.isRunning, "the run ended before the server was killed")
        nginx.stop()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(w.files(under: "out") == reference)
        #expect(uploaded > 2002)
    }

    /// What the cost model runs here because it is cheaper than a hit is not uploaded: a reader's
    /// model would run it here too. `/lagging` answers a lookup in about 2 s (nginx's
    /// `limit_rate`), so a hit costs ~125 ms over 16 lanes and these small jobs (milliseconds)
    /// run here once 8 lookups are measured. Every upload is a job that was asked and missed.
    @Test func whatTheCostModelRunsHereIsNotUploaded() throws {
        let (many, reference) = try Self.smallJobs(variants: 16)
        #expect(reference.count == 208)
        let nginx = try Nginx()
        defer { nginx.stop() }
        let w = try Workspace()
        w.manifest(many)
        let r = try CLI.run(
            ["--quiet", "--remote-cache", nginx.url + "/lagging", "--report", "report.json"], in: w.path,
            env: ["CI": "true"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(w.files(under: "out") == reference)
        let remote = try Self.remote(w)
        let (hits, misses, uploads) = (remote["hits"] as? Int, remote["misses"] as? Int, remote["uploads"] as? Int)
        #expect(hits == 0 && remote["errors"] as? Int == 0)
        #expect(uploads == misses, "only what was asked for is uploaded")
        #expect((misses ?? 208) < 208, "the model ran jobs here without asking")
        #expect(nginx.stored().filter { $0.hasPrefix("ac/") }.count == uploads)
    }

    @Test func aLocationAnswering500() throws {
        let nginx = try Nginx()
        let w = try Self.project()
        let r = try CLI.run(["--quiet", "--remote-cache", nginx.url + "/fail", "--report", "report.json"], in: w.path)
        #expect(r.status == 0)
        #expect(w.files(under: "out") == Self.reference)
        #expect(r.stderr == "warning: remote cache \(nginx.url)/fail: HTTP 500 on GET ac/…; jobs run locally\n")
        let remote = try Self.remote(w)
        #expect((remote["errors"] as? Int ?? 0) >= 40 && remote["hits"] as? Int == 0)
    }

    @Test func aServerTooSlowForTheTimeout() throws {
        let nginx = try Nginx()
        let seed = try Self.project()
        #expect(try CLI.run(["--quiet", "--remote-cache", nginx.url + "/cache"], in: seed.path).status == 0)
        // /slow serves the same entries at 1 byte a second: every lookup times out after 1 s.
        let w = try Self.project()
        let r = try CLI.run(
            ["--quiet", "--remote-cache", nginx.url + "/slow", "--remote-timeout", "1", "--report", "report.json"],
            in: w.path)
        #expect(r.status == 0)
        #expect(w.files(under: "out") == Self.reference)
        #expect(r.stderr.contains("warning: remote cache \(nginx.url)/slow: no answer within 1 s; jobs run locally\n"))
        #expect(r.stderr.contains("off for the rest of this run after 3 failures in a row"))
        #expect(try Self.remote(w)["hits"] as? Int == 0)
    }

    /// An output that does not match its SHA-256, whether it comes as a blob (`cas/`) or inside
    /// its entry (`contents`): that job runs locally, the others are hits.
    @Test func aBlobCorruptedOnTheServerRunsThatJobLocally() throws {
        let nginx = try Nginx()
        let seed = try Self.project()
        // The cost model off, as in every seeding whose entries are counted: with it on, a small job
        // may run here unasked to be measured, and then nothing is stored for it.
        #expect(
            try CLI.run(["--quiet", "--remote-cache", nginx.url + "/cache"], in: seed.path, env: Self.asking).status
                == 0)
        let entries = nginx.stored().filter { $0.hasPrefix("ac/") }.sorted()
        #expect(entries.count == 40)
        func edit(_ entry: String, _ change: (inout [String: Any]) throws -> Void) throws {
            let path = nginx.root + "/cache/" + entry
            var json = try #require(
                try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: path)))
                    as? [String: Any])
            var outputs = try #require(json["outputs"] as? [[String: Any]])
            try change(&outputs[0])
            json["outputs"] = outputs
            try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
        }
        // One entry whose output came as a blob (over 16 KiB), that blob flipped on the server's disk.
        func carriesItsOutput(_ entry: String) -> Bool {
            let data = FileManager.default.contents(atPath: nginx.root + "/cache/" + entry) ?? Data()
            let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            return (json?["outputs"] as? [[String: Any]])?.first?["contents"] != nil
        }
        let large = try #require(entries.first { !carriesItsOutput($0) })
        let small = try #require(entries.first(where: carriesItsOutput))
        var sha = ""
        try edit(large) { output in
            sha = try #require(output["sha256"] as? String)
            let blob = nginx.root + "/cache/cas/" + sha
            var bytes = try #require(FileManager.default.contents(atPath: blob))
            bytes[bytes.count / 2] ^= 0xFF
            try bytes.write(to: URL(fileURLWithPath: blob))
        }
        // Another with its inline contents flipped.
        try edit(small) { output in
            let text = try #require(output["contents"] as? String)
            var bytes = try #require(Data(base64Encoded: text))
            bytes[bytes.count / 2] ^= 0xFF
            output["contents"] = bytes.base64EncodedString()
        }
        let w = try Self.project()
        let r = try CLI.run(
            [
                "--quiet", "--remote-cache", nginx.url + "/cache", "--remote-cache-mode", "read", "--report",
                "report.json",
            ],
            in: w.path, env: Self.asking)
        #expect(r.status == 0)
        #expect(w.files(under: "out") == Self.reference)
        #expect(r.stderr.contains("does not match its size and SHA-256; the job runs locally"), "\(r.stderr)")
        // Warned once for the kind; both jobs ran here.
        #expect(r.stderr.components(separatedBy: "does not match").count == 2)
        #expect(try Self.remote(w)["hits"] as? Int == 38)
        // The blob that came from cas/ is named when it is the one met first.
        #expect(r.stderr.contains("blob cas/") && r.stderr.contains(" of job "))
        _ = sha
    }

    @Test func basicAuthWorksAndThePasswordIsNeverShown() throws {
        let nginx = try Nginx()
        let good = "http://ci:\(Nginx.password)@127.0.0.1:\(nginx.port)/auth"
        let a = try Self.project()
        let ra = try CLI.run(
            ["--remote-cache", good, "--report", "report.json", "--junit", "junit.xml", "--html", "html"], in: a.path,
            env: Self.asking)
        #expect(ra.status == 0)
        #expect(ra.stderr == "")
        #expect(try Self.remote(a)["uploads"] as? Int == 40)
        #expect(try Self.remote(a)["url"] as? String == "http://***@127.0.0.1:\(nginx.port)/auth")
        #expect(nginx.stored("auth").filter { $0.hasPrefix("ac/") }.count == 40)
        // The wrong password: 401 on every request, a warning, the same outputs.
        let b = try Self.project()
        let bad = "http://ci:wrong-\(Nginx.password)@127.0.0.1:\(nginx.port)/auth"
        let rb = try CLI.run(["--remote-cache", bad, "--report", "report.json"], in: b.path)
        #expect(rb.status == 0)
        #expect(b.files(under: "out") == Self.reference)
        #expect(
            rb.stderr.contains("warning: remote cache http://***@127.0.0.1:\(nginx.port)/auth: HTTP 401 on GET ac/…"))
        // The password is nowhere: output, reports, the cache index.
        for (name, text) in [("stdout", ra.stdout + rb.stdout), ("stderr", ra.stderr + rb.stderr)] {
            #expect(!text.contains(Nginx.password), "password in \(name)")
        }
        for w in [a, b] {
            for file in w.files(under: ".").filter({ !$0.key.hasPrefix("out/") && !$0.key.hasPrefix("cards/") }) {
                #expect(
                    !String(decoding: file.value, as: UTF8.self).contains(Nginx.password), "password in \(file.key)")
            }
        }
        // Through a header instead (the same credentials, from the environment).
        let c = try Self.project()
        let token = Data("ci:\(Nginx.password)".utf8).base64EncodedString()
        let rc = try CLI.run(
            ["--quiet", "--remote-cache", nginx.url + "/auth", "--report", "report.json"], in: c.path,
            env: Self.asking.merging(["TEXPIPE_REMOTE_HEADER": "Authorization=Basic \(token)"]) { $1 })
        #expect(rc.status == 0 && rc.stderr == "")
        #expect(try Self.remote(c)["hits"] as? Int == 40)
    }

    @Test func readModeNeverWrites() throws {
        let nginx = try Nginx()
        let w = try Self.project()
        let r = try CLI.run(
            [
                "--quiet", "--remote-cache", nginx.url + "/cache", "--remote-cache-mode", "read", "--report",
                "report.json",
            ],
            in: w.path, env: Self.asking)
        #expect(r.status == 0 && r.stderr == "")
        #expect(w.files(under: "out") == Self.reference)
        let log = nginx.accessLog
        #expect(log.contains("\"GET /cache/ac/"))
        #expect(!log.contains("\"PUT ") && !log.contains("\"HEAD "))
        #expect(nginx.stored().isEmpty)
        #expect(try Self.remote(w)["misses"] as? Int == 40)
    }

    @Test func aBadURLIsAUsageErrorWithoutEchoingIt() throws {
        let w = try Self.project()
        let r = try CLI.run(["--remote-cache", "ftp://u:topsecret@host/x"], in: w.path)
        #expect(r.status == 2)
        #expect(r.stderr == "error: --remote-cache expects http://[user:password@]host[:port][/path]\n")
        #expect(!FileManager.default.fileExists(atPath: w.path + "/out"))
    }
}
