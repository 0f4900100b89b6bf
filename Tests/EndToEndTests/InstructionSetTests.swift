import Foundation
import Testing

/// The wide build (docs/performance.md "The wide build"): the binary under test is built for the
/// instruction set its flags name (Scripts/test passes them in TEXPIPE_TEST_SWIFTC_FLAGS), which
/// its machine code shows (objdump: AVX registers, or none); under CI on a CPU with AVX2 and FMA it
/// is the wide one; and a wide binary on a CPU without them (as TEXPIPE_TEST_CPU pretends) refuses
/// to start in one line with exit status 2, where a baseline binary runs.
@Suite("the wide build")
struct InstructionSetTests {
    static var flags: [String] {
        (ProcessInfo.processInfo.environment["TEXPIPE_TEST_SWIFTC_FLAGS"] ?? "").split(separator: "\n").map(
            String.init)
    }
    static var builtWide: Bool { flags.contains("-DTEXPIPE_BUILT_FOR_HASWELL") }

    /// The CPU's Haswell features, read from /proc/cpuinfo here (SSE3 is `pni` there).
    static var cpuIsHaswell: Bool {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("flags") })
        else { return false }
        let have = Set(line.split(separator: " ").map(String.init))
        return [
            "pni", "ssse3", "sse4_1", "sse4_2", "popcnt", "pclmulqdq", "aes", "cx16", "avx", "avx2", "fma", "bmi1",
            "bmi2", "f16c", "abm", "movbe", "xsave",
        ].allSatisfy(have.contains)
    }

    @Test func theMachineCodeIsWhatTheFlagsAsked() throws {
        let dump = try CLI.run(
            ["objdump", "-d", "--no-show-raw-insn", CLI.binary], in: "/", wrapper: ["/usr/bin/env"],
            bareCommand: true)
        #expect(dump.status == 0, "\(dump.stderr)")
        let wide = dump.stdout.components(separatedBy: "%ymm").count - 1
        if Self.builtWide {
            #expect(wide > 1000, "a wide build uses AVX registers: \(wide) instructions do")
        } else {
            #expect(wide == 0, "a baseline build uses no AVX register: \(wide) instructions do")
        }
        let version = try CLI.run(["--version"], in: "/")
        #expect(version.stdout == "0.1.0 (\(Self.builtWide ? "x86-64, haswell" : "x86-64"))\n")
    }

    @Test func ciBuildsTheFastestBinaryTheMachineRuns() throws {
        guard ProcessInfo.processInfo.environment["CI"] == "true",
            ProcessInfo.processInfo.environment["TEXPIPE_PORTABLE"] == nil
        else { return }
        #expect(!Self.flags.isEmpty, "CI runs the tests through Scripts/test, which names its flags")
        #expect(Self.builtWide == Self.cpuIsHaswell)
    }

    @Test func aWideBinaryOnAnOlderCPUSaysSoAndExitsTwo() throws {
        let r = try CLI.run(["--version"], in: "/", env: ["TEXPIPE_TEST_CPU": "x86-64"])
        if Self.builtWide {
            #expect(r.status == 2)
            #expect(r.stdout.isEmpty)
            #expect(r.stderr.hasPrefix("texpipe: this binary was built for Haswell's instructions (AVX2, FMA)"))
            #expect(r.stderr.filter { $0 == "\n" }.count == 1 && r.stderr.hasSuffix("\n"), "\(r.stderr)")
        } else {
            #expect(r.status == 0)
            #expect(r.stdout == "0.1.0 (x86-64)\n")
        }
    }
}
