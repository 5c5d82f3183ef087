/* 2026-11-30 - bench/h5w/deflate_cmp.c: cairn's deflate encoder (core/codec/deflate_enc.c)
** against zlib's deflate at the same level, on the h5w bench's chunks (the native bench's
** shuffled f32 chunks, the wasm bench's image chunks with and without shuffle) and on the
** shared test corpus. Prints compressed sizes (ours / zlib) and speed (fastest of several runs,
** both sides alternating), and checks every stream of ours with zlib's inflate.
** Built and run by bench/h5w/run.sh (or: deflate_cmp [LEVELS] [FILES...]). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "cairn/cairn.h"
#include "cairn/platform.h"
#include "codec/deflate_enc.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct Set {
  const char *zName;
  uint8_t **a;
  size_t *n;
  int nPart;
} Set;

/* 512x512 f32 split into 64x64 chunks as the writer stores them, optionally byte-shuffled */
static Set chunks(const char *zName, const float *img, int shuffle) {
  Set s = {zName, malloc(64 * sizeof(uint8_t *)), malloc(64 * sizeof(size_t)), 64};
  for (int c = 0; c < 64; c++) {
    int r0 = (c / 8) * 64, c0 = (c % 8) * 64;
    float *ch = malloc(64 * 64 * 4);
    for (int r = 0; r < 64; r++) memcpy(ch + r * 64, img + (size_t)(r0 + r) * 512 + c0, 64 * 4);
    uint8_t *o = malloc(64 * 64 * 4);
    if (shuffle) {
      const uint8_t *b = (const uint8_t *)ch;
      for (int k = 0; k < 4; k++)
        for (int i = 0; i < 4096; i++) o[k * 4096 + i] = b[i * 4 + k];
    } else memcpy(o, ch, 64 * 64 * 4);
    free(ch);
    s.a[c] = o, s.n[c] = 64 * 64 * 4;
  }
  return s;
}
static Set file(const char *zPath) {
  Set s = {zPath, malloc(sizeof(uint8_t *)), malloc(sizeof(size_t)), 1};
  FILE *f = fopen(zPath, "rb");
  if (!f) { fprintf(stderr, "cannot open %s\n", zPath); exit(1); }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  s.a[0] = malloc(n ? n : 1);
  if (fread(s.a[0], 1, n, f) != (size_t)n) exit(1);
  fclose(f);
  s.n[0] = n;
  const char *z = strrchr(zPath, '/');
  s.zName = z ? z + 1 : zPath;
  return s;
}

static size_t runOurs(const Set *s, int level, uint8_t *out, size_t cap, int check) {
  size_t tot = 0;
  for (int i = 0; i < s->nPart; i++) {
    size_t n = 0;
    if (cairnDeflateCompress(level, s->a[i], s->n[i], out, cap, &n)) { fprintf(stderr, "ours failed: %s\n", cairn_errmsg()); exit(1); }
    if (check) {
      uLongf m = s->n[i] + 1;
      uint8_t *back = malloc(m);
      if (uncompress(back, &m, out, n) != Z_OK || m != s->n[i] || memcmp(back, s->a[i], m)) {
        fprintf(stderr, "ROUND TRIP FAILED: %s part %d level %d\n", s->zName, i, level);
        exit(1);
      }
      free(back);
    }
    tot += n;
  }
  return tot;
}
static size_t runZlib(const Set *s, int level, uint8_t *out, size_t cap) {
  size_t tot = 0;
  for (int i = 0; i < s->nPart; i++) {
    uLongf n = cap;
    if (compress2(out, &n, s->a[i], s->n[i], level) != Z_OK) exit(1);
    tot += n;
  }
  return tot;
}

int main(int argc, char **argv) {
  cairn_posix_install(1);
  /* DEFL_ONLY=M (or: deflate_cmp only M [LEVEL [REPS]], wasm has no environment): one side on
  ** one data set, for instruction counts (valgrind --tool=callgrind). M: 0/1 native bench data
  ** plain/shuffled through cairn, 2/3 the same through zlib; +10: the wasm bench's image. */
  const char *zOnly = getenv("DEFL_ONLY");
  if (argc > 2 && strcmp(argv[1], "only") == 0) zOnly = argv[2]; /* wasm: no environment */
  if (zOnly) { /* one pass of one side, for instruction counts */
    float *f = malloc(sizeof(float) * 512 * 512);
    int which = atoi(zOnly);
    for (int i = 0; i < 512 * 512; i++) f[i] = which < 10 ? (float)((i * 7) % 1000) * 0.25f + (float)(i / 4096) : (float)(sin(i / 100.0) * 100 + (i % 7));
    Set s = chunks("x", f, which % 10 == 1 || which % 10 == 3);
    size_t cap = 1 << 20;
    uint8_t *o = malloc(cap);
    int lv = getenv("DEFL_LEVEL") ? atoi(getenv("DEFL_LEVEL")) : argc > 3 ? atoi(argv[3]) : 6;
    int reps = argc > 4 ? atoi(argv[4]) : 1;
    size_t r = 0;
    for (int k = 0; k < reps; k++) r = which % 10 >= 2 ? runZlib(&s, lv, o, cap) : runOurs(&s, lv, o, cap, 0);
    printf("%zu\n", r);
    return 0;
  }
  int lo = 1, hi = 9, a = 1;
  if (argc > 1 && argv[1][0] >= '0' && argv[1][0] <= '9') {
    lo = hi = atoi(argv[1]);
    if (strchr(argv[1], '-')) hi = atoi(strchr(argv[1], '-') + 1);
    a = 2;
  }
  Set aSet[64];
  int nSet = 0;
  float *gF = malloc(sizeof(float) * 512 * 512), *img = malloc(sizeof(float) * 512 * 512);
  for (int i = 0; i < 512 * 512; i++) gF[i] = (float)((i * 7) % 1000) * 0.25f + (float)(i / 4096);
  for (int i = 0; i < 512 * 512; i++) img[i] = (float)(sin(i / 100.0) * 100 + (i % 7)); /* wasm.mjs's img */
  aSet[nSet++] = chunks("native bench chunks, shuffled", gF, 1);
  aSet[nSet++] = chunks("wasm bench chunks (deflate only)", img, 0);
  aSet[nSet++] = chunks("wasm bench chunks, shuffled", img, 1);
  for (; a < argc && nSet < 64; a++) aSet[nSet++] = file(argv[a]);
  size_t cap = 64 << 20;
  uint8_t *out = malloc(cap);
  printf("| data | level | bytes in | cairn bytes | zlib bytes | size cairn/zlib | cairn MB/s | zlib MB/s | speed |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int lv = lo; lv <= hi; lv++) {
    size_t tIn = 0, tO = 0, tZ = 0;
    for (int k = 0; k < nSet; k++) {
      const Set *s = &aSet[k];
      size_t in = 0;
      for (int i = 0; i < s->nPart; i++) in += s->n[i];
      size_t o = runOurs(s, lv, out, cap, 1), z = runZlib(s, lv, out, cap);
      double to = 1e9, tz = 1e9, t0 = now();
      double tMax = getenv("DEFL_TIME") ? atof(getenv("DEFL_TIME")) : 1.0;
      for (int r = 0; r < 500 && (r < 3 || now() - t0 < tMax); r++) {
        double t = now();
        runOurs(s, lv, out, cap, 0);
        double d = now() - t;
        if (d < to) to = d;
        t = now();
        runZlib(s, lv, out, cap);
        d = now() - t;
        if (d < tz) tz = d;
      }
      tIn += in, tO += o, tZ += z;
      printf("| %s | %d | %zu | %zu | %zu | %.4f | %.1f | %.1f | %.2fx |\n", s->zName, lv, in, o, z, z ? (double)o / z : 1.0,
             in / to / 1e6, in / tz / 1e6, tz / to);
    }
    printf("| **all** | %d | %zu | %zu | %zu | %.4f | | | |\n", lv, tIn, tO, tZ, (double)tO / tZ);
    fflush(stdout);
  }
  return 0;
}
