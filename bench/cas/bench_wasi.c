/*
** 2026-11-29
**
** bench/cas/bench_wasi.c - cairn's SHA-256 and memory store in the WASI build, for
** bench/cas/wasm.mjs (which runs it under Node's node:wasi through scripts/wasi-run.mjs and
** compares it with hash-wasm in the same Node). Hashes the same 32 MiB seeded-PRNG payload as
** bench_cas.c (bytes generated here, digest printed so the caller can check the peers hashed the
** same bytes). Best of REPS, on wall-clock and on process CPU time (node:wasi gives it):
**   bench_wasi sha REPS     wasi_kernel NAME / wasi_sha256 HEX / wasi_sha256 WALL_MBPS CPU_MBPS
**   bench_wasi store REPS   wasi_put_mem WALL_MBPS CPU_MBPS / wasi_read_mem WALL_MBPS CPU_MBPS
** Built by bench/cas/run.sh against build/wasi's libraries (clang --target=wasm32-wasi).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cairn/cairn.h"
#include "cairn/cas.h"
#include "fill.h"
#include "cairn/platform.h"

static double clk(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
/* Best wall-clock and CPU seconds of the runs so far. */
typedef struct Best {
  double wall, cpu, w0, c0;
} Best;
static void start(Best *b) { b->w0 = clk(CLOCK_MONOTONIC), b->c0 = clk(CLOCK_PROCESS_CPUTIME_ID); }
static void stop(Best *b) {
  double w = clk(CLOCK_MONOTONIC) - b->w0, c = clk(CLOCK_PROCESS_CPUTIME_ID) - b->c0;
  if (w < b->wall) b->wall = w;
  if (c < b->cpu) b->cpu = c;
}

static void die(const char *z) {
  fprintf(stderr, "bench_wasi: %s: %s\n", z, cairn_errmsg());
  exit(1);
}

int main(int argc, char **argv) {
  const size_t N = (size_t)32 << 20;
  const char *zCmd = argc > 1 ? argv[1] : "sha";
  int reps = argc > 2 ? atoi(argv[2]) : 3;
  if (reps < 1) reps = 1;
  if (cairn_wasi_install()) die("install");
  uint8_t *p = malloc(N);
  if (!p) die("malloc");
  fillRand(p, N, 2026);
  if (strcmp(zCmd, "sha") == 0) {
    uint8_t d[32];
    char z[65];
    Best b = {1e9, 1e9, 0, 0};
    for (int r = 0; r < reps; r++) {
      start(&b);
      cairn_sha256(p, N, d);
      stop(&b);
    }
    cairn_hex(d, 32, z);
    printf("wasi_kernel %s\n", cairn_sha256_kernel());
    printf("wasi_digest %s\n", z);
    printf("wasi_sha256 %.0f %.0f\n", N / b.wall / 1e6, N / b.cpu / 1e6);
  } else if (strcmp(zCmd, "store") == 0) {
    uint8_t *q = malloc(N);
    Best bp = {1e9, 1e9, 0, 0}, br = {1e9, 1e9, 0, 0};
    if (!q) die("malloc");
    for (int r = 0; r < reps; r++) {
      cairn_cas *c;
      uint8_t id[32];
      size_t nGot = 0;
      if (cairn_cas_open_memory(NULL, &c)) die("open");
      start(&bp);
      if (cairn_cas_put(c, p, N, id)) die("put");
      stop(&bp);
      start(&br);
      if (cairn_cas_read(c, id, 0, q, N, &nGot) || nGot != N) die("read");
      stop(&br);
      if (memcmp(q, p, N) != 0) die("read back differs");
      cairn_cas_close(c);
    }
    printf("wasi_put_mem %.0f %.0f\n", N / bp.wall / 1e6, N / bp.cpu / 1e6);
    printf("wasi_read_mem %.0f %.0f\n", N / br.wall / 1e6, N / br.cpu / 1e6);
    free(q);
  } else {
    fprintf(stderr, "usage: bench_wasi sha|store [REPS]\n");
    return 2;
  }
  free(p);
  return 0;
}
