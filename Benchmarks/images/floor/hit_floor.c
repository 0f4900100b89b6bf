/* The least a cache hit can cost: for every job, read its input file (a key covers the input's
   bytes) and write its output atomically (a temporary file in the output's folder, renamed into
   place) — no hashing, no HTTP, no index. Nothing a remote hit does can be cheaper than this, so
   this time over the local cold run's is the lowest "served by the cache × local" any client can
   reach on this file system (Benchmarks/runs/remote.py prints it beside the runs).
   Usage: hit_floor THREADS OUTDIR BYTES INPUT...   Jobs are taken in turn by THREADS threads,
   folders interleaved as texpipe's workers take them. Each output is BYTES bytes in
   OUTDIR/<input's parent folder name>/<input's name>. Built by Benchmarks/remote.py. */
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static char **inputs;
static int count;
static const char *outdir;
static size_t bytes;
static atomic_int next;

static void *work(void *unused) {
    (void)unused;
    char *buffer = malloc(bytes > 65536 ? bytes : 65536);
    char path[4096], temp[4096], folder[4096], a[4096], b[4096];
    for (;;) {
        int i = atomic_fetch_add(&next, 1);
        if (i >= count) break;
        int in = open(inputs[i], O_RDONLY);
        if (in < 0) { perror(inputs[i]); exit(1); }
        while (read(in, buffer, 65536) > 0) {}
        close(in);
        snprintf(a, sizeof a, "%s", inputs[i]);
        snprintf(b, sizeof b, "%s", inputs[i]);
        snprintf(folder, sizeof folder, "%s/%s", outdir, basename(dirname(a)));
        mkdir(folder, 0755);
        snprintf(path, sizeof path, "%s/%s", folder, basename(b));
        snprintf(temp, sizeof temp, "%s/.%s.tmp-XXXXXX", folder, basename(b));
        int fd = mkstemp(temp);
        if (fd < 0) { perror(temp); exit(1); }
        flock(fd, LOCK_EX);
        if (write(fd, buffer, bytes) != (ssize_t)bytes) { perror(temp); exit(1); }
        close(fd);
        if (rename(temp, path) != 0) { perror(path); exit(1); }
    }
    free(buffer);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: hit_floor THREADS OUTDIR BYTES INPUT...\n"); return 2; }
    int threads = atoi(argv[1]);
    outdir = argv[2];
    bytes = (size_t)atol(argv[3]);
    inputs = argv + 4;
    count = argc - 4;
    mkdir(outdir, 0755);
    pthread_t t[64];
    if (threads < 1 || threads > 64) return 2;
    for (int k = 0; k < threads; k++) pthread_create(&t[k], NULL, work, NULL);
    for (int k = 0; k < threads; k++) pthread_join(t[k], NULL);
    return 0;
}
