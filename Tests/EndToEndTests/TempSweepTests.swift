import Foundation
import Testing

/// Temporary files that a killed run left behind (SIGKILL, power loss) are removed by the next
/// run whose outputs live in their folder (up to date or not) and by `texpipe clean` — only when their writer is gone,
/// never a live concurrent run's. docs/guarantees.md.
@Suite("temporary files of killed runs")
struct TempSweepTests {
    /// The pid of a process that has exited.
    static func deadPid() throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/true")
        try p.run()
        p.waitUntilExit()
        return p.processIdentifier
    }

    /// A live process holding an exclusive flock on `path` (as a writer does) until terminated.
    static func liveLockHolder(_ path: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: EndToEndReference.python[0])
        p.arguments =
            Array(EndToEndReference.python.dropFirst()) + [
                "-c",
                "import fcntl, sys, time; f = open(sys.argv[1], 'w'); fcntl.flock(f, fcntl.LOCK_EX); print('locked', flush=True); time.sleep(60)",
                path,
            ]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        _ = out.fileHandleForReading.availableData  // "locked"
        return p
    }

    @Test func nextRunAndCleanSweepOnlyDeadWritersFiles() throws {
        let w = try Workspace()
        w.manifest(
            #"{ "version": 1, "output": "out", "pipelines": [ { "name": "p", "inputs": ["cards/*.png"], "output": "p/{file}.png", "stages": [{ "stage": "premultiply" }] } ] }"#
        )
        let dir = w.path + "/out/p"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let dead = dir + "/.a-spades.png.tmp-\(try Self.deadPid())-Ab3dE9"
        let live = dir + "/.2-hearts.png.tmp-\(ProcessInfo.processInfo.processIdentifier)-Zz9yX8"
        let legacy = dir + "/.3-diamonds.png.tmp-Qw7eR5"  // an older texpipe's name: no owner known
        for f in [dead, legacy] { #expect(FileManager.default.createFile(atPath: f, contents: Data("partial".utf8))) }
        let holder = try Self.liveLockHolder(live)
        // A dead pid in the name but the lock held (a writer in another pid namespace): kept too.
        let lockedDead = dir + "/.k-clubs.png.tmp-\(try Self.deadPid())-Ab3dE9"
        let other = try Self.liveLockHolder(lockedDead)
        // SIGKILL: the test runner's children may inherit an ignored SIGTERM.
        defer {
            kill(holder.processIdentifier, SIGKILL)
            kill(other.processIdentifier, SIGKILL)
        }

        let run = try CLI.run(["run", "--quiet"], in: w.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dead), "a dead writer's file is swept")
        #expect(FileManager.default.fileExists(atPath: live), "a live writer's file is kept")
        #expect(FileManager.default.fileExists(atPath: legacy), "a file of unknown owner is kept")
        #expect(FileManager.default.fileExists(atPath: lockedDead), "a locked file is kept")

        // clean: the same rule, anywhere under the output root.
        try FileManager.default.createDirectory(atPath: w.path + "/out/q", withIntermediateDirectories: true)
        let dead2 = w.path + "/out/q/.x.png.tmp-\(try Self.deadPid())-Ab3dE9"
        #expect(FileManager.default.createFile(atPath: dead2, contents: Data()))
        let clean = try CLI.run(["clean"], in: w.path)
        #expect(clean.status == 0)
        #expect(clean.stdout.contains("removed out/q/.x.png.tmp-"), "\(clean.stdout)")
        #expect(!FileManager.default.fileExists(atPath: dead2))
        #expect(FileManager.default.fileExists(atPath: live))

        // The pid check comes first: a file named for a live process is kept even with its lock
        // free (its writer may be between creating and locking it).
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        let again = try CLI.run(["clean"], in: w.path)
        #expect(again.status == 0)
        #expect(FileManager.default.fileExists(atPath: live))
    }

    /// A no-op run (every job up to date, nothing written) still sweeps the folders its outputs
    /// live in: a dead writer's file goes, a live writer's (its lock held) stays.
    @Test func aNoOpRunSweepsToo() throws {
        let w = try Workspace()
        w.manifest(
            #"{ "version": 1, "output": "out", "pipelines": [ { "name": "p", "inputs": ["cards/*.png"], "output": "p/{file}.png", "stages": [{ "stage": "premultiply" }] } ] }"#
        )
        let first = try CLI.run(["run", "--quiet"], in: w.path)
        #expect(first.status == 0, "\(first.stderr)")
        let dir = w.path + "/out/p"
        let dead = dir + "/.a-spades.png.tmp-\(try Self.deadPid())-Ab3dE9"
        #expect(FileManager.default.createFile(atPath: dead, contents: Data(repeating: 7, count: 4096)))
        let lockedDead = dir + "/.k-clubs.png.tmp-\(try Self.deadPid())-Qq3dE9"
        let holder = try Self.liveLockHolder(lockedDead)
        defer { kill(holder.processIdentifier, SIGKILL) }
        let noop = try CLI.run(["run", "--no-progress"], in: w.path)
        #expect(noop.status == 0, "\(noop.stderr)")
        #expect(noop.stdout.contains("up to date"), "\(noop.stdout)")
        #expect(!FileManager.default.fileExists(atPath: dead), "a dead writer's file is swept by a no-op run")
        #expect(FileManager.default.fileExists(atPath: lockedDead), "a live writer's file is kept")
    }
}
