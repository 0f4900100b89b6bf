import Foundation
import Testing
import TexPipe

/// The memory bounds of docs/performance.md "Memory", held by the kernel: the binary runs as a
/// child under a data limit (`prlimit --data`, RLIMIT_DATA) set from what the process itself
/// reports it uses before the job (its `--verbose` memory note), plus the SPEC's bound for the
/// operation (2.5× the image for per-pixel chains, 3.5× the images held for the others). The
/// bounded operations pass; with a quarter of the job's minimum need free, the job is a clean
/// one-line "cannot allocate" error — never a crash or a hang. Memory only, no timing. (The
/// per-pixel chain is written as PNG, the writer's path, without a row filter; the others as
/// uncompressed KTX2, which keeps the debug binary's run short.)
@Suite("memory limits")
struct MemoryLimitTests {
    static let side = 2048
    static let mib = 1 << 20
    /// The decoded image: 2048² RGBA8.
    static var decoded: Int { side * side * 4 }

    /// A 2048² RGBA8 noise image (so its file does not compress and counts in full), written
    /// without a row filter: choosing each row's filter takes the debug build 20 seconds of such an
    /// image. Made once per seed for every case.
    static func noise(_ path: String, seed: UInt64) throws {
        let png = try #require(noiseFiles[seed], "no noise image made for seed \(seed)").get()
        #expect(FileManager.default.createFile(atPath: path, contents: png))
    }
    /// The seeds the cases use: the image (7) and composite's layer (8).
    static let noiseFiles: [UInt64: Result<Data, any Error>] = [
        7: Result { try makeNoise(seed: 7) }, 8: Result { try makeNoise(seed: 8) },
    ]

    static func makeNoise(seed: UInt64) throws -> Data {
        var state = seed
        var bytes = [UInt8](repeating: 0, count: decoded)
        for i in bytes.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[i] = UInt8(truncatingIfNeeded: state >> 56)
        }
        var settings = PNGSettings.standard
        settings.level = 1
        settings.filter = .none
        return Data(try ImageEncoder.png(Image(width: side, height: side, pixels: .rgba8(bytes)), settings))
    }

    static func limited(_ megabytes: Int, in dir: String, verbose: Bool = false) throws -> CLI.Output {
        // Every run from the same start (no cache index: each reads its files as the first did).
        try? FileManager.default.removeItem(atPath: dir + "/.texpipe")
        return try CLI.run(
            ["run", "--jobs", "1", "--force", verbose ? "--verbose" : "--quiet", "--no-progress"], in: dir,
            wrapper: ["/usr/bin/timeout", "-s", "KILL", "600", "/usr/bin/prlimit", "--data=\(megabytes * mib)"])
    }

    /// `memory: N MiB needed at least, F MiB free of a L MiB limit` → L − F, what the process used.
    static func used(_ output: String) -> Int? {
        guard let line = output.split(separator: "\n").first(where: { $0.contains("memory: ") }) else { return nil }
        let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard numbers.count >= 3 else { return nil }
        return numbers[numbers.count - 1] - numbers[numbers.count - 2]
    }

    @Test(
        arguments: [
            ("color-key", ##"[{ "stage": "color-key", "color": "#00ff00" }]"##, "png", 2.5, 1.0),
            (
                "composite", #"[{ "stage": "composite", "layers": [{ "image": "layer.png", "blend": "overlay" }] }]"#,
                "ktx2", 3.5, 2.0
            ),
            ("mipmaps", #"[{ "stage": "mipmaps" }]"#, "ktx2", 3.5, 4.0 / 3),
            ("rotate", #"[{ "stage": "rotate", "degrees": 17, "filter": "bilinear" }]"#, "ktx2", 3.5, 1 + 1.5601),
        ])
    func boundedOperationsFitAndATightLimitIsAClearError(
        name: String, stages: String, ext: String, bound: Double, held: Double
    ) throws {
        let w = try Workspace()
        try Self.noise(w.path + "/image.png", seed: 7)
        if name == "composite" { try Self.noise(w.path + "/layer.png", seed: 8) }
        // PNG without a row filter, as the input above: the adaptive filter's candidate rows are
        // 40 KiB beside bounds of tens of MiB, and choosing them takes the debug build 20 seconds.
        w.manifest(
            #"{ "version": 1, "output": "out", "pipelines": [{ "name": "m", "inputs": ["image.png"], "output": "{file}."#
                + ext + #"", "png": { "filter": "none" }, "stages": "# + stages + " }] }")
        // What the process uses before the job varies from run to run by a thread's stack or a
        // malloc arena (16 MiB here): the least of three runs sets the tight limit, the most the
        // one that must fit.
        var uses: [Int] = []
        for _ in 0..<3 {
            let generous = try Self.limited(16 << 10, in: w.path, verbose: true)
            #expect(generous.status == 0, "\(generous.stderr)")
            uses.append(try #require(Self.used(generous.stdout), "no memory note in: \(generous.stdout)"))
        }
        let used = uses.max()!

        // Room for the SPEC's bound on top of what the process had before the job.
        let bound = Int((bound * held * Double(Self.decoded)).rounded(.up)) / Self.mib
        // Under a limit large buffers are given back when freed (Allocator.configure): kept in
        // the arenas, this run needed up to 12 MiB beyond the bound, by which threads ran the job.
        let fits = try Self.limited(used + bound + 4, in: w.path)
        #expect(fits.status == 0, "\(name) under \(used) + \(bound) + 4 MiB: \(fits.stderr)")
        #expect(FileManager.default.fileExists(atPath: w.path + "/out/image." + ext))

        // A quarter of the job's least need (2 × the image) free beyond the most the process was
        // seen to use with the file read: refused before any image buffer exists. The process's
        // own use still varies by up to 16 MiB (a thread's stack or arena): when this run is the
        // largest of all, its file (17 MiB) is what no longer fits, and that is refused with its
        // own clean line.
        let need = 2 * Self.decoded / Self.mib
        let tight = try Self.limited(used + need / 4, in: w.path)
        #expect(tight.status == 1, "\(name): \(tight.status) \(tight.stderr)")
        #expect(
            tight.stderr.contains("image.png: decode: cannot allocate \(need) MiB")
                || tight.stderr.contains("image.png: cannot allocate 17 MiB to read the file"), "\(tight.stderr)")
        #expect(tight.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }.count == 1, "\(tight.stderr)")
    }

    /// Under a limit too small for the process's own threads, libdispatch would wait forever for
    /// a thread: texpipe refuses to start instead, with one line and exit 2.
    @Test func aLimitTooSmallToStartIsRefusedNotAHang() throws {
        let w = try Workspace()
        w.manifest(Workspace.cardsManifest)
        let r = try Self.limited(16, in: w.path)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("texpipe needs at least 24 MiB free to start its threads"), "\(r.stderr)")
    }
}
