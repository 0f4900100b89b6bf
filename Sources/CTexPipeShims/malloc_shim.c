// glibc's mallopt, which Swift's Glibc module does not export (<malloc.h>). See Allocator.swift.
#include "tp_shims.h"

#if defined(__GLIBC__)
#include <malloc.h>

int tp_keep_large_buffers(void) {
    return mallopt(M_MMAP_THRESHOLD, 32 << 20) && mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

int tp_give_back_large_buffers(void) {
    return mallopt(M_MMAP_THRESHOLD, 128 << 10) && mallopt(M_TRIM_THRESHOLD, 128 << 10);
}

void tp_give_back_freed(void) { malloc_trim(0); }
#else
int tp_keep_large_buffers(void) { return 0; }
int tp_give_back_large_buffers(void) { return 0; }
void tp_give_back_freed(void) {}
#endif

// Whether `bytes` of private, writable address space can be had now: a mapping that is never
// touched (so it costs no memory) and given back at once. It fails exactly where the image
// buffers would — under RLIMIT_DATA or RLIMIT_AS, or with strict overcommit — so a job that
// cannot fit gets a clean error instead of a failed allocation deep inside the runtime.
#include <sys/mman.h>
int tp_can_reserve(size_t bytes) {
    if (bytes == 0) return 1;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return 0;
    munmap(p, bytes);
    return 1;
}
