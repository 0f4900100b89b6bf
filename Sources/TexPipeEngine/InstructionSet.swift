internal import CTexPipeShims

/// The instruction set this binary's Swift code was built for (docs/performance.md "The wide
/// build"): `x86-64, haswell` for the wide build `Scripts/cpu-flags` chooses on a CPU with AVX2
/// and FMA (such a binary checks the CPU before `main` and exits 2 with one line on one without),
/// else `x86-64` or `arm64`. Every output byte is the same in each: `texpipe --version` shows it.
public enum InstructionSet {
    public static var built: String { String(cString: tp_cpu_built_for()) }
}
