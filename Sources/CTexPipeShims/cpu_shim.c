// Which CPU a binary was built for, and the check that it runs on one (docs/performance.md "The
// wide build"). Scripts/cpu-flags builds the Swift code for Haswell (LLVM's `haswell`: AVX2, FMA,
// BMI1/2, F16C, LZCNT, MOVBE and what came before them) on a CPU that has it — Swift's compiler
// takes no `x86-64-v3` — and defines TEXPIPE_BUILT_FOR_HASWELL for this file, which
// is itself compiled for the baseline: the check below runs before main, before any instruction
// of the wide code could, and a CPU without those features gets one line and exit status 2
// instead of an illegal instruction.
#include "tp_shims.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(TEXPIPE_BUILT_FOR_HASWELL) && defined(__x86_64__)
#include <cpuid.h>

// Haswell's features, from CPUID and XGETBV (the OS saves the YMM state): x86-64-v3 as the
// x86-64 psABI defines it, and SSE3 to SSE4.2, POPCNT, PCLMULQDQ and AES before it.
// TEXPIPE_TEST_CPU=x86-64 makes this CPU count as the baseline: how the tests see the refusal.
static int tp_cpu_is_haswell(void) {
    const char *pretend = getenv("TEXPIPE_TEST_CPU");
    if (pretend && strcmp(pretend, "x86-64") == 0) return 0;
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    // SSE3 PCLMULQDQ SSSE3 FMA CX16 SSE4.1 SSE4.2 MOVBE POPCNT AES OSXSAVE AVX F16C
    const unsigned leaf1 = (1u << 0) | (1u << 1) | (1u << 9) | (1u << 12) | (1u << 13) | (1u << 19) | (1u << 20) |
                           (1u << 22) | (1u << 23) | (1u << 25) | (1u << 27) | (1u << 28) | (1u << 29);
    if ((c & leaf1) != leaf1) return 0;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 6) != 6) return 0;  // XMM and YMM state enabled by the OS
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    const unsigned leaf7 = (1u << 3) | (1u << 5) | (1u << 8);  // BMI1 AVX2 BMI2
    if ((b & leaf7) != leaf7) return 0;
    if (!__get_cpuid(0x80000001, &a, &b, &c, &d)) return 0;
    return (c & (1u << 5)) != 0;  // LZCNT
}

__attribute__((constructor)) static void tp_cpu_check(void) {
    if (tp_cpu_is_haswell()) return;
    static const char line[] =
        "texpipe: this binary was built for Haswell's instructions (AVX2, FMA) and this CPU lacks them; build a portable "
        "one: TEXPIPE_PORTABLE=1 Scripts/run-samples (README \"Install\")\n";
    (void)!write(2, line, sizeof line - 1);
    _exit(2);
}

const char *tp_cpu_built_for(void) { return "x86-64, haswell"; }
#elif defined(__x86_64__)
const char *tp_cpu_built_for(void) { return "x86-64"; }
#elif defined(__aarch64__)
const char *tp_cpu_built_for(void) { return "arm64"; }
#else
const char *tp_cpu_built_for(void) { return "portable"; }
#endif
