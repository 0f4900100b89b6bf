// glibc's mallopt, which Swift's Glibc module does not export (<malloc.h>). See Allocator.swift.
#include "tp_shims.h"

#if defined(__GLIBC__)
#include <malloc.h>

int tp_keep_large_buffers(void) {
    return mallopt(M_MMAP_THRESHOLD, 32 << 20) && mallopt(M_TRIM_THRESHOLD, 1 << 30);
}
#else
int tp_keep_large_buffers(void) { return 0; }
#endif
