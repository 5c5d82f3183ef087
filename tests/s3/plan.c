/*
** 2026-12-02
**
** tests/s3/plan.c - the S3 host's read planner and its read plans, for tests/s3/run.sh:
**   plan                      cairn_s3_plan on made-up ranges (no network): the runs it makes
**                             join neighbours whose gap is small, stay within the run size, keep
**                             every range once and in order, and never read a large gap through
**   read s3://B/K DSET OUT    read DSET whole (NATIVE) through cairn_s3_file_open, write its
**                             bytes to OUT and print "bytes requests gets plan-runs plan-hits"
**                             (the host's counters), for a byte comparison with h5py
** Built by tests/s3/run.sh against build/native/libcairn.a and libcairn_s3.a.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cairn/cairn.h"
#include "cairn/h5.h"
#include "cairn/objstore.h"
#include "cairn/platform.h"

static int nFail;
#define CHECK(c, ...) \
  do { \
    if (!(c)) { \
      nFail++; \
      fprintf(stderr, "plan: FAIL line %d: ", __LINE__); \
      fprintf(stderr, __VA_ARGS__); \
      fprintf(stderr, "\n"); \
    } \
  } while (0)

/* Properties every plan must have, whatever the ranges: runs start at 0 and ascend, each run is
** within maxRun unless it is one range, no gap inside a run exceeds maxGap, and a range starts a
** new run only when joining would break one of those. */
static void checkPlan(const uint64_t *a, size_t n, uint64_t gap, uint64_t maxRun, const size_t *f, size_t nRun, const char *zWhat) {
  CHECK(n == 0 ? nRun == 0 : nRun >= 1 && f[0] == 0, "%s: first run", zWhat);
  for (size_t k = 0; k < nRun; k++) {
    size_t i0 = f[k], i1 = k + 1 < nRun ? f[k + 1] : n;
    CHECK(i1 > i0, "%s: run %zu is empty", zWhat, k);
    if (i1 <= i0) return;
    uint64_t span = a[2 * (i1 - 1)] + a[2 * (i1 - 1) + 1] - a[2 * i0];
    CHECK(span <= maxRun || i1 - i0 == 1, "%s: run %zu spans %llu > %llu with %zu ranges", zWhat, k, (unsigned long long)span,
          (unsigned long long)maxRun, i1 - i0);
    for (size_t i = i0 + 1; i < i1; i++)
      CHECK(a[2 * i] - (a[2 * i - 2] + a[2 * i - 1]) <= gap, "%s: gap inside run %zu too large", zWhat, k);
    if (k > 0) { /* why did range i0 not join run k-1? */
      size_t j0 = f[k - 1];
      uint64_t g = a[2 * i0] - (a[2 * i0 - 2] + a[2 * i0 - 1]);
      uint64_t joined = a[2 * i0] + a[2 * i0 + 1] - a[2 * j0];
      CHECK(g > gap || joined > maxRun, "%s: range %zu could have joined run %zu", zWhat, i0, k - 1);
    }
  }
}

static int planTests(void) {
  enum { MiB = 1 << 20, N = 4096 };
  static uint64_t a[2 * N];
  static size_t f[N];
  /* 32 adjacent chunks of 1 MiB (the large-chunk dataset): runs of 8 MiB are 4 runs of 8 */
  for (int i = 0; i < 32; i++) a[2 * i] = 4096 + (uint64_t)i * MiB, a[2 * i + 1] = MiB;
  size_t n = cairn_s3_plan(a, 32, 131072, 8 * MiB, f);
  CHECK(n == 4 && f[0] == 0 && f[1] == 8 && f[2] == 16 && f[3] == 24, "32 x 1 MiB at 8 MiB: %zu runs", n);
  checkPlan(a, 32, 131072, 8 * MiB, f, n, "32x1MiB/8");
  n = cairn_s3_plan(a, 32, 131072, 16 * MiB, f);
  CHECK(n == 2 && f[1] == 16, "32 x 1 MiB at 16 MiB: %zu runs", n);
  /* a run size that is not a multiple of the chunk: 3 chunks per 3.5 MiB run */
  n = cairn_s3_plan(a, 32, 0, 7 * MiB / 2, f);
  CHECK(n == 11 && f[1] == 3, "32 x 1 MiB at 3.5 MiB: %zu runs", n);
  checkPlan(a, 32, 0, 7 * MiB / 2, f, n, "32x1MiB/3.5");
  /* gaps: 100 KiB is read through, 1 MiB is not (a large gap is never fetched) */
  uint64_t g[] = {0, 1000, 1000 + 102400, 1000, 2100 + 102400 + MiB, 5000, 7100 + 102400 + MiB + 100, 10};
  n = cairn_s3_plan(g, 4, 131072, 16 * MiB, f);
  CHECK(n == 2 && f[1] == 2, "gaps of 100 KiB, 1 MiB, 100 B: %zu runs (second at %zu)", n, n > 1 ? f[1] : 0);
  checkPlan(g, 4, 131072, 16 * MiB, f, n, "gaps");
  n = cairn_s3_plan(g, 4, 0, 16 * MiB, f);
  CHECK(n == 4, "gap 0 joins only adjacent ranges: %zu runs", n);
  /* a range larger than the run size is a run alone, and does not swallow its neighbours */
  uint64_t big[] = {0, MiB, MiB, 20 * MiB, 21 * (uint64_t)MiB, MiB};
  n = cairn_s3_plan(big, 3, 131072, 16 * MiB, f);
  CHECK(n == 3, "a 20 MiB range among 1 MiB ones: %zu runs", n);
  checkPlan(big, 3, 131072, 16 * MiB, f, n, "big");
  CHECK(cairn_s3_plan(a, 0, 131072, 16 * MiB, f) == 0, "no ranges, no runs");
  CHECK(cairn_s3_plan(a, 1, 131072, 16 * MiB, f) == 1 && f[0] == 0, "one range, one run");
  /* made-up files: random sizes and gaps; the properties hold, and the bytes the runs fetch are
  ** the ranges' bytes plus at most one maxGap per range (no over-fetch beyond the gaps) */
  uint64_t seed = 12345;
  for (int round = 0; round < 200; round++) {
    size_t nr = 1 + (size_t)(seed % N);
    uint64_t off = 0, want = 0, gap = (seed >> 8) % 300000, maxRun = MiB + (seed >> 20) % (16 * MiB);
    for (size_t i = 0; i < nr; i++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      uint64_t gp = (seed >> 33) % 8 == 0 ? (seed >> 13) % (2 * MiB) : (seed >> 13) % 4096;
      uint64_t len = 1 + (seed >> 40) % (2 * MiB);
      off += gp;
      a[2 * i] = off, a[2 * i + 1] = len;
      off += len, want += len;
    }
    n = cairn_s3_plan(a, nr, gap, maxRun, f);
    checkPlan(a, nr, gap, maxRun, f, n, "random");
    uint64_t fetched = 0;
    for (size_t k = 0; k < n; k++) {
      size_t i1 = k + 1 < n ? f[k + 1] : nr;
      fetched += a[2 * (i1 - 1)] + a[2 * (i1 - 1) + 1] - a[2 * f[k]];
    }
    CHECK(fetched >= want && fetched - want <= (uint64_t)nr * gap, "random: fetched %llu for %llu", (unsigned long long)fetched,
          (unsigned long long)want);
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
  }
  if (nFail == 0) printf("plan: all planner checks passed\n");
  return nFail != 0;
}

static int readOne(const char *zUrl, const char *zDset, const char *zOut) {
  cairn_posix_install(8);
  cairn_file *pf = NULL;
  cairn_h5 *h = NULL;
  cairn_h5_obj *o = NULL;
  cairn_h5_info info;
  int rc = cairn_s3_file_open(zUrl, NULL, &pf);
  if (rc == CAIRN_OK) rc = cairn_h5_open(pf, CAIRN_H5_OWN_FILE, &h);
  if (rc == CAIRN_OK) rc = cairn_h5_get(h, zDset, &o);
  if (rc == CAIRN_OK) rc = cairn_h5_info_get(o, &info);
  size_t n = rc ? 0 : (size_t)(info.nElem * info.typeSize);
  void *buf = malloc(n ? n : 1);
  if (rc == CAIRN_OK) rc = cairn_h5_read(o, NULL, CAIRN_H5_NATIVE, buf, n);
  if (rc) return fprintf(stderr, "plan read: %s\n", cairn_errmsg()), 1;
  FILE *out = fopen(zOut, "wb");
  if (!out || fwrite(buf, 1, n, out) != n || fclose(out) != 0) return fprintf(stderr, "plan read: cannot write %s\n", zOut), 1;
  cairn_s3_counters k;
  cairn_s3_get_counters(&k);
  printf("%zu %llu %llu %llu %llu\n", n, (unsigned long long)k.nRequest, (unsigned long long)k.nGet, (unsigned long long)k.nPlanRun,
         (unsigned long long)k.nPlanHit);
  cairn_h5_obj_close(o);
  cairn_h5_close(h);
  free(buf);
  cairn_posix_shutdown();
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "plan") == 0) return planTests();
  if (argc == 5 && strcmp(argv[1], "read") == 0) return readOne(argv[2], argv[3], argv[4]);
  fprintf(stderr, "usage: plan plan | plan read s3://B/K DATASET OUT\n");
  return 2;
}
