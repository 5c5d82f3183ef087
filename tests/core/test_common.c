/* 2026-11-29 - tests of core/common: status and messages, the memory file, the host wrappers,
** the parallel-for contract, CPU feature kill switches. */
#include "common/internal.h"
#include <stdlib.h>
#if !defined(__wasi__) && !defined(__EMSCRIPTEN__)
#include "cairn/platform.h" /* cairn_posix_install: restarts the pool */
#endif

#include "tf.h"
#include "oom.h"

TEST(common, errmsg_and_codes) {
  CHECK_EQ(cairn_seterr(CAIRN_CORRUPT, "bad %s at offset %llu (%d, %x, %zu)", "superblock", 123456789012ull, -5, 255u, (size_t)7), CAIRN_CORRUPT);
  CHECK_STR(cairn_errmsg(), "bad superblock at offset 123456789012 (-5, ff, 7)");
  CHECK_STR(cairn_errstr(CAIRN_IOERR_SHORT_READ), "CAIRN_IOERR_SHORT_READ");
  CHECK_EQ(CAIRN_PRIMARY(CAIRN_IOERR_SHORT_READ), CAIRN_IOERR);
  CHECK_STR(cairn_errstr(CAIRN_IOERR | (99 << 8)), "CAIRN_IOERR");
  /* A message built from the previous one (the core adds context this way). */
  cairn_seterr(CAIRN_IOERR, "inner");
  cairn_seterr(CAIRN_IOERR, "outer: %s", cairn_errmsg());
  CHECK_STR(cairn_errmsg(), "outer: inner");
  char z[8];
  CHECK_EQ(cairnFormat(z, sizeof z, "%s", "truncated-here"), 7);
  CHECK_STR(z, "truncat");
}

TEST(common, memfile) {
  cairn_file *f;
  CHECK_OK(cairn_memfile_open("hello", 5, &f));
  uint8_t buf[16];
  size_t n = 99;
  CHECK_OK(cairn_file_read(f, buf, 8, 2, &n));
  CHECK_EQ(n, 3);
  CHECK_MEM(buf, "llo\0\0\0\0\0", 8); /* short read zero-fills the tail */
  CHECK_RC(cairn_file_read_exact(f, buf, 8, 2), CAIRN_IOERR_SHORT_READ);
  CHECK(strstr(cairn_errmsg(), "offset 2") != NULL);
  CHECK_OK(cairn_file_write(f, "XY", 2, 10)); /* a hole reads as zeros */
  uint64_t sz;
  CHECK_OK(cairn_file_size(f, &sz));
  CHECK_EQ(sz, 12);
  CHECK_OK(cairn_file_read_exact(f, buf, 12, 0));
  CHECK_MEM(buf, "hello\0\0\0\0\0XY", 12);
  CHECK_OK(cairn_file_truncate(f, 4));
  CHECK_OK(cairn_file_size(f, &sz));
  CHECK_EQ(sz, 4);
  CHECK_OK(cairn_file_sync(f));
  CHECK_OK(cairn_file_close(f));
}

TEST(common, host_file_roundtrip) {
  const char *zPath = tfTmp("common_host.bin");
  cairn_file *f;
  CHECK_OK(cairn_open(zPath, CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE | CAIRN_OPEN_TRUNCATE, &f));
  uint8_t a[10000], b[10000];
  tfFillRandom(a, sizeof a, 1);
  CHECK_OK(cairn_file_write(f, a, sizeof a, 0));
  CHECK_OK(cairn_file_sync(f));
  CHECK_OK(cairn_file_close(f));
  CHECK_RC(cairn_open(zPath, CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE | CAIRN_OPEN_EXCLUSIVE, &f), CAIRN_EXISTS);
  CHECK_OK(cairn_open(zPath, CAIRN_OPEN_READONLY, &f));
  uint64_t sz;
  CHECK_OK(cairn_file_size(f, &sz));
  CHECK_EQ(sz, sizeof a);
  CHECK_OK(cairn_file_read_exact(f, b, sizeof b, 0));
  CHECK_MEM(a, b, sizeof a);
  CHECK(cairn_file_write(f, a, 1, 0) != CAIRN_OK); /* read-only */
  const void *pMap = NULL;
  if (f->pMethods->xMap && f->pMethods->xMap(f, 100, 50, &pMap) == CAIRN_OK) CHECK_MEM(pMap, a + 100, 50);
  CHECK_OK(cairn_file_close(f));
  CHECK_RC(cairn_open(tfTmp("no/such/dir/x"), CAIRN_OPEN_READONLY, &f), CAIRN_NOTFOUND);
  CHECK(strstr(cairn_errmsg(), "no/such/dir") != NULL);
}

/* Files opened one after another: the POSIX host hands the struct of a closed file to the next
** open (hosts/posix.c keeps one spare), unless its path does not fit the spare's room. A
** reused struct reads its own file and its messages name its own path, never the last one's;
** two files open at once never share one. (A spare handed out too small for its path is an
** overflow that the sanitizer run catches.) */
static void fileMustRead(cairn_file *f, const uint8_t *aWant, size_t n) {
  uint8_t b[64];
  CHECK_OK(cairn_file_read_exact(f, b, n, 0));
  CHECK_MEM(b, aWant, n);
}
TEST(common, host_file_reuse) {
  char zLongName[251];
  memset(zLongName, 'L', 250);
  zLongName[250] = 0;
  char zA[1024], zB[1024], zLong[1024];
  snprintf(zA, sizeof zA, "%s", tfTmp("reuse_a.bin"));
  snprintf(zB, sizeof zB, "%s", tfTmp("reuse_b.bin"));
  snprintf(zLong, sizeof zLong, "%s", tfTmp(zLongName));
  CHECK(strlen(zLong) > 256); /* more than a spare struct holds */
  CHECK_OK(tfWriteFile(zA, "aaaaaaaa", 8));
  CHECK_OK(tfWriteFile(zB, "bbbbbbbb", 8));
  CHECK_OK(tfWriteFile(zLong, "llllllll", 8));
  cairn_file *fa, *fb, *fl;
  CHECK_OK(cairn_open(zA, CAIRN_OPEN_READONLY, &fa));
  fileMustRead(fa, (const uint8_t *)"aaaaaaaa", 8);
  CHECK_OK(cairn_file_close(fa));
  CHECK_OK(cairn_open(zB, CAIRN_OPEN_READONLY, &fb)); /* a's struct, the spare */
  fileMustRead(fb, (const uint8_t *)"bbbbbbbb", 8);
  CHECK(cairn_file_write(fb, "x", 1, 0) != CAIRN_OK); /* read-only: the message names b */
  CHECK(strstr(cairn_errmsg(), "reuse_b.bin") != NULL && strstr(cairn_errmsg(), "reuse_a.bin") == NULL);
  CHECK_OK(cairn_open(zA, CAIRN_OPEN_READONLY, &fa)); /* while b is open: its own struct */
  CHECK(fa != fb);
  fileMustRead(fa, (const uint8_t *)"aaaaaaaa", 8);
  fileMustRead(fb, (const uint8_t *)"bbbbbbbb", 8);
  CHECK_OK(cairn_file_close(fb));
  CHECK_OK(cairn_file_close(fa));
  CHECK_OK(cairn_open(zLong, CAIRN_OPEN_READONLY, &fl)); /* too long for the spare's room */
  fileMustRead(fl, (const uint8_t *)"llllllll", 8);
  CHECK(cairn_file_write(fl, "x", 1, 0) != CAIRN_OK);
  CHECK(strstr(cairn_errmsg(), zLongName) != NULL);
  CHECK_OK(cairn_file_close(fl));
  CHECK_OK(cairn_open(zB, CAIRN_OPEN_READONLY, &fb)); /* the spare again, after the long one */
  fileMustRead(fb, (const uint8_t *)"bbbbbbbb", 8);
  CHECK(cairn_file_write(fb, "x", 1, 0) != CAIRN_OK);
  CHECK(strstr(cairn_errmsg(), "reuse_b.bin") != NULL && strstr(cairn_errmsg(), zLongName) == NULL);
  CHECK_OK(cairn_file_close(fb));
}

/* Parallel-for: every index exactly once, iWorker within bounds, whatever the host. */
typedef struct PfArg {
  int hits[1000];
  unsigned maxWorker;
} PfArg;
static void pfTask(void *p, size_t i, unsigned w) {
  PfArg *a = p;
  __atomic_fetch_add(&a->hits[i], 1, __ATOMIC_RELAXED);
  unsigned m = __atomic_load_n(&a->maxWorker, __ATOMIC_RELAXED);
  while (w > m && !__atomic_compare_exchange_n(&a->maxWorker, &m, w, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}
TEST(common, parallel_for) {
  static PfArg a;
  memset(&a, 0, sizeof a);
  CHECK_OK(cairnParallelFor(1000, pfTask, &a));
  for (int i = 0; i < 1000; i++) CHECK_EQ(a.hits[i], 1);
  CHECK(a.maxWorker < cairnConcurrency());
}

/* Many short jobs back to back, some after a pause long enough for the pool's helpers to go
** to sleep, some from inside a task (those run sequentially), and pool restarts in between
** (native): every index of every job runs exactly once, and the results of a job are all in
** when parallel-for returns. Catches lost wake-ups (a hang), a helper running a task of a
** job that was already closed, and shutdown races. */
typedef struct PfMany {
  size_t nTask;
  unsigned hits[64];
  unsigned long nested;
} PfMany;
static void pfNestedTask(void *p, size_t i, unsigned w) {
  (void)w;
  __atomic_fetch_add(&((PfMany *)p)->nested, i + 1, __ATOMIC_RELAXED);
}
static void pfManyTask(void *p, size_t i, unsigned w) {
  PfMany *a = p;
  (void)w;
  __atomic_fetch_add(&a->hits[i], 1, __ATOMIC_RELAXED);
  if (i == 1 && a->nTask == 7) cairnParallelFor(5, pfNestedTask, a); /* 1+2+3+4+5 = 15 */
}
static void pfSpinUs(int64_t us) {
  int64_t t0 = cairnClock(1);
  if (t0 == 0) return; /* a host without a clock */
  while (cairnClock(1) - t0 < us * 1000) {
  }
}
TEST(common, parallel_for_many_short_jobs) {
  static PfMany a;
  for (int job = 0; job < 20000; job++) {
    memset(&a, 0, sizeof a);
    a.nTask = 2 + (size_t)(job % 11) * 5 % 60;
    if (job % 500 == 499) pfSpinUs(600); /* helpers go to sleep: the wake-up path */
#if !defined(__wasi__) && !defined(__EMSCRIPTEN__)
    if (job % 5000 == 4999) CHECK_OK(cairn_posix_install(1 + (unsigned)(job / 5000) % 3)); /* 1..3 threads */
#endif
    CHECK_OK(cairnParallelFor(a.nTask, pfManyTask, &a));
    for (size_t i = 0; i < a.nTask; i++)
      if (a.hits[i] != 1) {
        CHECK_EQ(a.hits[i], 1);
        return;
      }
    if (a.nTask == 7) CHECK_EQ(a.nested, 15);
  }
#if !defined(__wasi__) && !defined(__EMSCRIPTEN__)
  CHECK_OK(cairn_posix_install(2)); /* what tests/main.c installed */
#endif
}

/* The installed host's allocator with blocks of 16-64 KiB, the sizes the POSIX host keeps one
** spare of (hosts/posix.c): a freed block comes back for a request it can hold and is
** not far larger than, and never for one it cannot hold (ASan and the byte patterns catch a
** block handed out short or twice); threads allocating and freeing at once never share one. */
static void fillCheck(uint8_t *p, size_t n, uint8_t v, int *pBad) {
  for (size_t i = 0; i < n; i += 61) p[i] = (uint8_t)(v + i);
  p[n - 1] = v;
  for (size_t i = 0; i < n; i += 61)
    if (p[i] != (uint8_t)(v + i)) *pBad = 1;
  if (p[n - 1] != v) *pBad = 1;
}
typedef struct SpareArg { int bad; } SpareArg;
static void spareTask(void *pArg, size_t i, unsigned w) {
  SpareArg *a = pArg;
  (void)w;
  for (int k = 0; k < 200; k++) {
    size_t n = ((size_t)17 << 10) + ((i * 7 + (size_t)k) % 5) * 4096;
    uint8_t *p = cairnMalloc(n);
    if (!p) {
      __atomic_store_n(&a->bad, 1, __ATOMIC_RELAXED);
      return;
    }
    int bad = 0;
    fillCheck(p, n, (uint8_t)(i * 31 + (size_t)k), &bad);
    if (bad) __atomic_store_n(&a->bad, 1, __ATOMIC_RELAXED);
    cairnFree(p);
  }
}
TEST(common, host_mid_blocks) {
  int bad = 0;
  uint8_t *a = cairnMalloc(19 << 10);
  CHECK(a != NULL);
  fillCheck(a, 19 << 10, 1, &bad);
  cairnFree(a);
  uint8_t *b = cairnMalloc(19 << 10); /* the same size again */
  CHECK(b != NULL);
  fillCheck(b, 19 << 10, 2, &bad);
#if defined(__GLIBC__) && !defined(__wasi__) && !defined(__EMSCRIPTEN__)
  CHECK(b == a); /* the POSIX host's spare */
#endif
  cairnFree(b);
  uint8_t *c = cairnMalloc(60 << 10); /* larger than the spare holds: a new block */
  CHECK(c != NULL);
  fillCheck(c, 60 << 10, 3, &bad);
  cairnFree(c); /* now the spare is ~60 KiB */
  uint8_t *d = cairnMalloc(17 << 10); /* far smaller: the spare is freed, not handed out (glibc
                                        ** may still return the same address, split) */
  CHECK(d != NULL);
  fillCheck(d, 17 << 10, 4, &bad);
  uint8_t *e = cairnMalloc(20 << 10); /* while d is out */
  CHECK(e != NULL && e != d);
  fillCheck(e, 20 << 10, 5, &bad);
  fillCheck(d, 17 << 10, 6, &bad);
  cairnFree(d);
  cairnFree(e);
  CHECK_EQ(bad, 0);
  static SpareArg sa;
  sa.bad = 0;
  CHECK_OK(cairnParallelFor(8, spareTask, &sa));
  CHECK_EQ(sa.bad, 0);
}

/* A host whose allocator fails after N allocations: the core reports NOMEM cleanly. */
TEST(common, allocator_cap) {
  cairn_host saved = *cairn_host_get();
  cairn_host h = saved;
  oomHooks(&h);
  CHECK_OK(cairn_host_set(&h));
  oomArm(OOM_FOREVER, 0);
  cairn_file *f = NULL;
  int rc = cairn_memfile_open("abc", 3, &f);
  oomArm(OOM_FOREVER, 1); /* struct succeeds, buffer fails */
  int rc2 = cairn_memfile_open("abc", 3, &f);
  cairn_host_set(&saved);
  CHECK_EQ(rc, CAIRN_NOMEM);
  CHECK_EQ(CAIRN_PRIMARY(rc2), CAIRN_NOMEM);
  CHECK(f == NULL);
}

TEST(common, cpu_kill_switch) {
  uint64_t all = cairn_cpu_features();
  cairn_cpu_disable(~0ull);
  CHECK_EQ(cairn_cpu_features(), 0);
  cairn_cpu_disable(0);
  CHECK_EQ(cairn_cpu_features(), all);
#if defined(__wasm_simd128__)
  CHECK(all & CAIRN_CPU_WASM128);
#endif
#if defined(__aarch64__)
  CHECK(all & CAIRN_CPU_NEON);
#endif
}

TEST(common, format_precision) {
  char z[64];
  cairnFormat(z, sizeof z, "'%.*s' is not a group", 3, "abcdef");
  CHECK_STR(z, "'abc' is not a group");
  cairnFormat(z, sizeof z, "[%.*s]", 10, "ab");
  CHECK_STR(z, "[ab]");
}
