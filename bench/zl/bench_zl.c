/*
** 2026-11-29
**
** bench/zl/bench_zl.c - cairn's OpenZL-format codec side by side with the zstd library in the
** same run, on the golden inputs of ../shared/data/openzl-v26 (MANIFEST.tsv pairs): ratio and
** speed of cairn_zl_compress (profile of the pair) vs ZSTD_compress at -3 and -19, and of
** cairn_zl_decompress (cairn's default frame) vs ZSTD_decompress of zstd's -3 and -19 frames. Prints ratios (cairn / zstd); no assertion.
** Text rows (u8, csv, serial text) also print "same ratio": the lowest cairn level whose frame is
** no larger than zstd -3's, against zstd -3; and cairn level 3 against the lowest zstd level whose
** frame is no larger than cairn's. Numeric rows add "level-3 frame": decoding cairn's level-3
** frame against zstd decoding its -3 frame. Decoding is timed twice: one-shot
** (cairn_zl_decompress vs ZSTD_decompress, each setting up its decoder per call; zstd's set-up
** runs cpuid, which some VMs trap) and with contexts reused across calls (cairn_zl_decompress_dctx
** vs ZSTD_decompressDCtx, one context each for the whole run): the "context" lines. Each
** time is the best of REPEAT runs (default 5), since the machine is shared.
** Every row also prints minor page faults per call of each side (bench/faults.h), cairn's
** one-shot and context decoders beside zstd's.
**   bench_zl DATA_DIR [REPEAT]
**   bench_zl --walk BYTES FILE   write BYTES of the le-u32 random walk the parallel rows use
**                                (bench/zl/run.sh's whole-process decompress row reads it)
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#include "../faults.h"
#include "cairn/cairn.h"
#include "cairn/platform.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b)) /* best of REPEAT runs: the machine is shared */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static unsigned char *slurp(const char *z, size_t *pn) {
  FILE *f = fopen(z, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *p = malloc(n + 1);
  *pn = fread(p, 1, n, f);
  fclose(f);
  return p;
}

/* le-u32 values of a random walk (xorshift steps of -3..5): what numeric profiles are made for. */
static void walk(unsigned char *p, size_t n) {
  uint32_t v = 1000, x = 7;
  for (size_t i = 0; i + 4 <= n; i += 4) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    v += x % 9 - 3;
    memcpy(p + i, &v, 4);
  }
}

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[1], "--walk")) {
    size_t n = (size_t)atoll(argv[2]);
    unsigned char *p = malloc(n);
    FILE *f = fopen(argv[3], "wb");
    if (!p || !f) return perror(argv[3]), 1;
    walk(p, n);
    return fwrite(p, 1, n, f) != n || fclose(f) ? (perror(argv[3]), 1) : 0;
  }
  if (argc < 2) return fprintf(stderr, "usage: bench_zl DATA_DIR [REPEAT]\n"), 2;
  int rep = argc > 2 ? atoi(argv[2]) : 5;
  cairn_posix_install(0); /* the POSIX host: files and the thread pool, as the CLI uses */
  char z[512];
  snprintf(z, sizeof z, "%s/openzl-v26/MANIFEST.tsv", argv[1]);
  FILE *m = fopen(z, "r");
  if (!m) return perror(z), 1;
  char line[1024];
  fgets(line, sizeof line, m);
  printf("%-22s %-6s %8s | %7s %7s %7s %7s %7s | %6s %6s %7s %6s | %7s %7s %7s %6s %6s | %5s %5s %5s %5s\n", "input", "prof", "bytes", "openzl",
         "cairn", "cairn-3", "zstd-3", "zstd-19", "c MB/s", "c3MB/s", "z3 MB/s", "c3/z3", "cd MB/s", "zd3MB/s", "zd19MBs", "cd/zd3",
         "cd/z19", "cFlt", "z3Flt", "cdFlt", "zdFlt");
  double gC = 0, gZ = 0, gO = 0;
  cairn_zl_dctx *cx = cairn_zl_dctx_create();
  ZSTD_DCtx *zx = ZSTD_createDCtx();
  int nNum = 0;
  while (fgets(line, sizeof line, m)) {
    char fr[200], in[200], prof[32];
    long nIn, nFr;
    if (sscanf(line, "%199s %199s %31s %ld %ld", fr, in, prof, &nIn, &nFr) != 5 || nIn < 4096) continue;
    snprintf(z, sizeof z, "%s/openzl-v26/%s", argv[1], in);
    size_t n;
    unsigned char *p = slurp(z, &n);
    if (!p) continue;
    int profile = cairn_zl_profile_from_name(prof);
    size_t cap = cairn_zl_compress_bound(n) + ZSTD_compressBound(n), nc = 0, nz3 = 0, nz19 = 0, nd = 0;
    unsigned char *c = malloc(cap), *d = malloc(n + 1);
    double t0, tc = 1e9, tc3 = 1e9, td = 1e9, tz3 = 1e9, tzd = 1e9, tzd19 = 1e9;
    long f0 = benchFaults();
    for (int r = 0; r < rep; r++) t0 = now(), cairn_zl_compress(profile, p, n, c, cap, &nc), tc = MIN(tc, now() - t0);
    double fc = (double)(benchFaults() - f0) / rep;
    size_t nc3 = 0;
    for (int r = 0; r < rep; r++) t0 = now(), cairn_zl_compress_level(profile, 3, p, n, c, cap, &nc3), tc3 = MIN(tc3, now() - t0);
    cairn_zl_compress(profile, p, n, c, cap, &nc);
    f0 = benchFaults();
    for (int r = 0; r < rep; r++) t0 = now(), cairn_zl_decompress(c, nc, d, n, &nd), td = MIN(td, now() - t0);
    double fd = (double)(benchFaults() - f0) / rep;
    if (nd != n || memcmp(d, p, n)) printf("ROUND TRIP FAILED %s\n", fr);
    unsigned char *zc = malloc(ZSTD_compressBound(n));
    f0 = benchFaults();
    for (int r = 0; r < rep; r++) t0 = now(), nz3 = ZSTD_compress(zc, ZSTD_compressBound(n), p, n, 3), tz3 = MIN(tz3, now() - t0);
    double fz = (double)(benchFaults() - f0) / rep;
    f0 = benchFaults();
    for (int r = 0; r < rep; r++) t0 = now(), ZSTD_decompress(d, n, zc, nz3), tzd = MIN(tzd, now() - t0);
    double fzd = (double)(benchFaults() - f0) / rep;
    nz19 = ZSTD_compress(zc, ZSTD_compressBound(n), p, n, 19);
    for (int r = 0; r < rep; r++) t0 = now(), ZSTD_decompress(d, n, zc, nz19), tzd19 = MIN(tzd19, now() - t0);
    double mb = n / 1e6;
    printf("%-22s %-6s %8zu | %7ld %7zu %7zu %7zu %7zu | %6.1f %6.1f %7.1f %6.2f | %7.1f %7.1f %7.1f %6.2f %6.2f | %5.0f %5.0f %5.0f %5.0f\n",
           in + 7, prof, n, nFr, nc, nc3, nz3, nz19, mb / tc, mb / tc3, mb / tz3, tz3 / tc3, mb / td, mb / tzd, mb / tzd19, tzd / td,
           tzd19 / td, fc, fz, fd, fzd);
    {
      /* the same frames with reused contexts (a first call outside the timing creates them) */
      double tdx = 1e9, tzx = 1e9, tzx19 = 1e9;
      size_t nzd = 0;
      cairn_zl_decompress_dctx(cx, c, nc, d, n, &nd);
      long g0 = benchFaults();
      for (int r = 0; r < rep; r++) t0 = now(), cairn_zl_decompress_dctx(cx, c, nc, d, n, &nd), tdx = MIN(tdx, now() - t0);
      double fdx = (double)(benchFaults() - g0) / rep;
      if (nd != n || memcmp(d, p, n)) printf("ROUND TRIP FAILED %s (context)\n", fr);
      ZSTD_decompressDCtx(zx, d, n, zc, nz19);
      for (int r = 0; r < rep; r++) t0 = now(), ZSTD_decompressDCtx(zx, d, n, zc, nz19), tzx19 = MIN(tzx19, now() - t0);
      nz3 = ZSTD_compress(zc, ZSTD_compressBound(n), p, n, 3);
      g0 = benchFaults();
      for (int r = 0; r < rep; r++) t0 = now(), nzd = ZSTD_decompressDCtx(zx, d, n, zc, nz3), tzx = MIN(tzx, now() - t0);
      double fzx = (double)(benchFaults() - g0) / rep;
      if (nzd != n) printf("ZSTD ROUND TRIP FAILED %s\n", fr);
      printf("  context: cairn decode %.1f MB/s vs zstd -3 frame %.1f MB/s: %.2fx (one-shot %.2fx); vs zstd -19 frame %.1f MB/s: %.2fx;"
             " faults/call cairn %.0f zstd %.0f\n",
             mb / tdx, mb / tzx, tzx / tdx, tzd / td, mb / tzx19, tzx19 / tdx, fdx, fzx);
    }
    if (!strcmp(prof, "u8") || !strcmp(prof, "csv") || (!strcmp(prof, "serial") && strstr(in, "text"))) {
      /* text at the same ratio: the lowest cairn level whose frame is no larger than zstd -3's,
      ** timed against zstd -3 (both from the numbers above / the same run) */
      for (int lv = 1; lv <= 19; lv++) {
        size_t nl = 0;
        double tl = 1e9;
        if (cairn_zl_compress_level(profile, lv, p, n, c, cap, &nl) || nl > nz3) continue;
        for (int r = 0; r < rep; r++) t0 = now(), cairn_zl_compress_level(profile, lv, p, n, c, cap, &nl), tl = MIN(tl, now() - t0);
        printf("  same ratio: cairn level %d %zu bytes %.1f MB/s vs zstd -3 %zu bytes %.1f MB/s: %.2fx\n", lv, nl, mb / tl, nz3,
               mb / tz3, tz3 / tl);
        break;
      }
      /* and the other way: cairn level 3 against the lowest (fastest) zstd level, from -7 up,
      ** whose frame is no larger than cairn's */
      int zl;
      size_t nzl = 0;
      for (zl = -7; zl <= 19; zl++)
        if (zl && (nzl = ZSTD_compress(zc, ZSTD_compressBound(n), p, n, zl)) <= nc3) break;
      if (zl > 19) printf("  same ratio: cairn level 3 %zu bytes: zstd makes no frame that small at levels -7..19\n", nc3);
      else {
        double tzl = 1e9;
        for (int r = 0; r < rep; r++) t0 = now(), ZSTD_compress(zc, ZSTD_compressBound(n), p, n, zl), tzl = MIN(tzl, now() - t0);
        printf("  same ratio: cairn level 3 %zu bytes %.1f MB/s vs zstd %d %zu bytes %.1f MB/s: %.2fx\n", nc3, mb / tc3, zl, nzl,
               mb / tzl, tzl / tc3);
      }
    }
    if (strcmp(prof, "serial") && strcmp(prof, "u8") && strcmp(prof, "csv")) {
      /* decoding cairn's level-3 frame (its dense planes may be Huffman stages) vs zstd -3's */
      double td3 = 1e9;
      cairn_zl_compress_level(profile, 3, p, n, c, cap, &nc3);
      for (int r = 0; r < rep; r++) t0 = now(), cairn_zl_decompress(c, nc3, d, n, &nd), td3 = MIN(td3, now() - t0);
      if (nd != n || memcmp(d, p, n)) printf("ROUND TRIP FAILED %s level 3\n", fr);
      double td3x = 1e9, tzx = 1e9;
      for (int r = 0; r < rep; r++) t0 = now(), cairn_zl_decompress_dctx(cx, c, nc3, d, n, &nd), td3x = MIN(td3x, now() - t0);
      for (int r = 0; r < rep; r++) t0 = now(), ZSTD_decompressDCtx(zx, d, n, zc, nz3), tzx = MIN(tzx, now() - t0);
      printf("  level-3 frame: cairn decode %.1f MB/s vs zstd -3 frame %.1f MB/s: %.2fx; context: %.1f vs %.1f MB/s: %.2fx\n", mb / td3,
             mb / tzd, tzd / td3, mb / td3x, mb / tzx, tzx / td3x);
      gC += __builtin_log((double)n / nc), gZ += __builtin_log((double)n / nz19), gO += __builtin_log((double)n / nFr), nNum++;
    }
    free(p), free(c), free(d), free(zc);
  }
  if (nNum)
    printf("numeric inputs, geometric-mean ratio: cairn %.2fx, openzl %.2fx, zstd-19 %.2fx\n", __builtin_exp(gC / nNum),
           __builtin_exp(gO / nNum), __builtin_exp(gZ / nNum));
  fclose(m);
  cairn_zl_dctx_free(cx), ZSTD_freeDCtx(zx);

  /* Parallel segments: 16 MiB of le-u32 random-walk values (8 segments of 2 MiB), the host's
  ** parallel-for vs none (sequential), best of REPEAT; the frames must be identical. */
  size_t nb = 16u << 20, capb = cairn_zl_compress_bound(nb), n1 = 0, n2 = 0;
  unsigned char *big = malloc(nb), *f1 = malloc(capb), *f2 = malloc(capb);
  walk(big, nb);
  cairn_host h = *cairn_host_get(), hs = h;
  hs.xParallelFor = NULL;
  for (int level = 9; level <= 19; level += 10) {
    double tp = 1e9, ts = 1e9, t0;
    /* alternate the two so that a burst of load on the machine hits both sides alike */
    int r = level == 19 ? 4 : rep;
    long fp = 0, fs = 0, g;
    /* one untimed call of each first: the first parallel call creates the workers' malloc arenas
    ** (~24 MiB of fresh pages, ~6K faults), which a long-running program pays once */
    cairn_zl_compress_level(CAIRN_ZL_LE_U32, level, big, nb, f1, capb, &n1);
    cairn_host_set(&hs);
    cairn_zl_compress_level(CAIRN_ZL_LE_U32, level, big, nb, f2, capb, &n2);
    cairn_host_set(&h);
    for (int k = 0; k < r; k++) {
      g = benchFaults();
      t0 = now(), cairn_zl_compress_level(CAIRN_ZL_LE_U32, level, big, nb, f1, capb, &n1), tp = MIN(tp, now() - t0);
      fp += benchFaults() - g;
      cairn_host_set(&hs);
      g = benchFaults();
      t0 = now(), cairn_zl_compress_level(CAIRN_ZL_LE_U32, level, big, nb, f2, capb, &n2), ts = MIN(ts, now() - t0);
      fs += benchFaults() - g;
      cairn_host_set(&h);
    }
    printf("parallel segments, 16 MiB le-u32, level %d: %u threads %.3f s, sequential %.3f s, speedup %.2fx, frames %s (%zu bytes); faults/call %ld parallel, %ld sequential\n", level,
           cairn_host_get()->xConcurrency ? cairn_host_get()->xConcurrency(cairn_host_get()->pCtx) : 1, tp, ts, ts / tp,
           n1 == n2 && !memcmp(f1, f2, n1) ? "identical" : "DIFFER", n1, fp / r, fs / r);
  }
  free(big), free(f1), free(f2);
  cairn_posix_shutdown();
  return 0;
}
