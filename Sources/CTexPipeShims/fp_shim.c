// The calling thread's floating-point mode, for BC7's encoder (see BC7.withDenormalsFlushed).
#include "tp_shims.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>

// MXCSR bit 15 (FTZ: results below Float's normal range become 0) and bit 6 (DAZ: such inputs
// are read as 0). Without them, each SSE operation that meets one takes a microcode assist of
// about a hundred cycles.
unsigned tp_fp_flush_denormals(void) {
    unsigned previous = _mm_getcsr();
    _mm_setcsr(previous | 0x8040);
    return previous;
}

void tp_fp_restore(unsigned previous) { _mm_setcsr(previous); }
#else
// Elsewhere (arm64) denormals cost no assist, and the mode stays as it is.
unsigned tp_fp_flush_denormals(void) { return 0; }
void tp_fp_restore(unsigned previous) { (void)previous; }
#endif
