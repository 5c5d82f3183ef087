/*
** 2026-12-02
**
** tests/core/test_allocs.c - allocations per operation on the hot paths (issue 23): through
** the host's allocator hooks, count the calls (malloc and realloc) and the bytes they ask for
** in one steady-state operation (after a first call has warmed any cache the handle keeps),
** and fail if either is above the figure recorded here. Not a timing: the counts are the same
** on every machine and load. The ceilings are today's counts on the 64-bit native build with a
** little room (wasm32's pointers make some blocks smaller, never larger). A change that makes a
** hot path allocate more must raise them here, visibly, with a reason; one that makes it
** allocate less should lower them. Counts on 2026-12-02 (native, 64-bit): small read 2 / 86,192
** bytes (the handle), 1 of 2,000 5 / 1,168, chunked read 6 / 40,824 (81 / 672,345 before the
** read kept one scratch of buffers and decoder per thread and the v1 B-tree nodes cached), zl 14 / 788,564, zstd 1 / 95,992 (a decoder context per call), cas 0 / 0
** (4 / 212 before the manifest went to the store's scratch buffer and the payload handle of
** cairn_cas_read to its stack). Parallel decoding is switched off (xParallelFor NULL) so the
** counts do not depend on how work is split between threads.
**   h5   open + get + read 1K f32 + close (the small read), get + read of one dataset out of
**        2,000 (file open), chunked shuffle+deflate (16 chunks) and shuffle+zstd (128) reads
**        (file and object open)
**   zl   cairn_zl_decompress_dctx of a 256 KiB le-u32 frame into the caller's buffer
**   zstd cairn_zdecompress of a 64 KiB frame into the caller's buffer
**   cas  cairn_cas_read of a 256-byte object from a file store; of a 4 MiB payload into the
**        caller's buffer, whole and in pieces through an open payload
*/
#include <stdio.h>
#include <stdlib.h>

#include "cairn/cas.h"
#include "cairn/h5.h"
#include "cairn/h5w.h"
#include "cairn/zcodec.h"
#include "cairn/zl.h"
#include "common/internal.h"
#include "tf.h"

static long gCalls, gBytes;
static void *acMalloc(void *ctx, size_t n) {
  (void)ctx;
  __atomic_add_fetch(&gCalls, 1, __ATOMIC_SEQ_CST);
  __atomic_add_fetch(&gBytes, (long)n, __ATOMIC_SEQ_CST);
  return malloc(n);
}
static void *acRealloc(void *ctx, void *p, size_t n) {
  (void)ctx;
  __atomic_add_fetch(&gCalls, 1, __ATOMIC_SEQ_CST);
  __atomic_add_fetch(&gBytes, (long)n, __ATOMIC_SEQ_CST);
  return realloc(p, n);
}
static void acFree(void *ctx, void *p) {
  (void)ctx;
  free(p);
}

static cairn_host gSaved;
static void acInstall(void) {
  gSaved = *cairn_host_get();
  cairn_host h = gSaved;
  h.xMalloc = acMalloc, h.xRealloc = acRealloc, h.xFree = acFree;
  h.xParallelFor = NULL;
  cairn_host_set(&h);
}
static void acRemove(void) { cairn_host_set(&gSaved); }
static void acReset(void) { gCalls = gBytes = 0; }

/* Check the counts of the last operation against the ceilings, naming it (and print them). */
#define AC_CHECK(zWhat, maxCalls, maxBytes)                                                                       \
  do {                                                                                                            \
    printf("    %-58s %4ld allocations %8ld bytes\n", zWhat, gCalls, gBytes);                                     \
    if (gCalls > (maxCalls) || gBytes > (maxBytes))                                                               \
      tfFail(__FILE__, __LINE__, "%s: %ld allocations of %ld bytes, the ceiling is %ld allocations of %ld bytes", \
             zWhat, gCalls, gBytes, (long)(maxCalls), (long)(maxBytes));                                          \
  } while (0)

static void writeH5(const char *zPath) {
  cairn_file *f = NULL;
  cairn_h5w *w = NULL;
  CHECK_OK(cairn_open(zPath, CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE | CAIRN_OPEN_TRUNCATE, &f));
  CHECK_OK(cairn_h5w_create(f, CAIRN_H5W_NOSYNC, &w));
  cairn_h5w_type *tf = cairn_h5w_type_float(4), *ti = cairn_h5w_type_int(4, 1);
  static float a[256 * 256];
  for (int i = 0; i < 256 * 256; i++) a[i] = (float)(i % 977) * 0.5f;
  uint64_t d1 = 1024, d2[2] = {256, 256}, c2[2] = {64, 64}, d4 = 4;
  cairn_h5w_dset_opts contig = {CAIRN_H5W_CONTIGUOUS, NULL, NULL, NULL}, chunked = {CAIRN_H5W_CHUNKED, c2, "shuffle,deflate:6", NULL};
  CHECK_OK(cairn_h5w_dataset(w, "/x", tf, 1, &d1, NULL, &contig, a));
  CHECK_OK(cairn_h5w_dataset(w, "/c", tf, 2, d2, NULL, &chunked, a));
  uint64_t c3[2] = {16, 32};
  cairn_h5w_dset_opts chunked128 = {CAIRN_H5W_CHUNKED, c3, "shuffle,zstd", NULL};
  CHECK_OK(cairn_h5w_dataset(w, "/c128", tf, 2, d2, NULL, &chunked128, a));
  CHECK_OK(cairn_h5w_group(w, "/many"));
  for (int i = 0; i < 2000; i++) {
    char z[32];
    int32_t v[4] = {i, i, i, i};
    cairnFormat(z, sizeof z, "/many/d%d", i);
    CHECK_OK(cairn_h5w_dataset(w, z, ti, 1, &d4, NULL, NULL, v));
  }
  CHECK_OK(cairn_h5w_close(w));
  cairn_file_close(f);
  cairn_h5w_type_free(tf);
  cairn_h5w_type_free(ti);
}

static int smallRead(const char *zPath, float *buf) {
  cairn_h5 *h;
  cairn_h5_obj *o;
  int rc = cairn_h5_open_path(zPath, &h);
  if (rc) return rc;
  rc = cairn_h5_get(h, "/x", &o);
  if (!rc) rc = cairn_h5_read(o, NULL, CAIRN_H5_F32, buf, 1024 * sizeof(float));
  cairn_h5_obj_close(o);
  cairn_h5_close(h);
  return rc;
}

TEST(allocs, h5_reads) {
  const char *zPath = tfTmp("allocs.h5");
  writeH5(zPath);
  static float buf[256 * 256];
  acInstall();
  CHECK_OK(smallRead(zPath, buf));
  acReset();
  CHECK_OK(smallRead(zPath, buf));
  AC_CHECK("h5 small open+read+close", 4, 100000);
  CHECK(buf[1000] == (float)(1000 % 977) * 0.5f);

  cairn_h5 *h;
  cairn_h5_obj *o;
  int32_t v[4];
  CHECK_OK(cairn_h5_open_path(zPath, &h));
  for (int k = 0; k < 2; k++) { /* the first get warms the group's caches */
    acReset();
    CHECK_OK(cairn_h5_get(h, "/many/d1234", &o));
    CHECK_OK(cairn_h5_read(o, NULL, CAIRN_H5_I32, v, sizeof v));
    cairn_h5_obj_close(o);
  }
  AC_CHECK("h5 get+read 1 of 2,000 (file open)", 7, 1600);
  CHECK_EQ(v[3], 1234);

  CHECK_OK(cairn_h5_get(h, "/c", &o));
  CHECK_OK(cairn_h5_read(o, NULL, CAIRN_H5_F32, buf, sizeof buf));
  acReset();
  CHECK_OK(cairn_h5_read(o, NULL, CAIRN_H5_F32, buf, sizeof buf));
  AC_CHECK("h5 chunked shuffle+deflate 256x256 f32 read (16 chunks)", 8, 48000);
  CHECK(buf[256 * 100 + 7] == (float)((256 * 100 + 7) % 977) * 0.5f);
  cairn_h5_obj_close(o);
  /* Eight times the chunks, a quarter the size, zstd: the count must not grow with the chunks
  ** (a per-read scratch, not per-chunk buffers and decoders). */
  long nDeflate = gCalls;
  memset(buf, 0, sizeof buf);
  CHECK_OK(cairn_h5_get(h, "/c128", &o));
  CHECK_OK(cairn_h5_read(o, NULL, CAIRN_H5_F32, buf, sizeof buf));
  acReset();
  CHECK_OK(cairn_h5_read(o, NULL, CAIRN_H5_F32, buf, sizeof buf));
  AC_CHECK("h5 chunked shuffle+zstd 256x256 f32 read (128 chunks)", 8, 150000);
  CHECK(gCalls <= nDeflate);
  CHECK(buf[256 * 200 + 9] == (float)((256 * 200 + 9) % 977) * 0.5f);
  cairn_h5_obj_close(o);
  cairn_h5_close(h);
  acRemove();
}

TEST(allocs, zl_and_zstd_decode) {
  enum { N = 256 << 10 };
  uint8_t *p = malloc(N), *d = malloc(N);
  size_t cap = cairn_zl_compress_bound(N) + cairn_zbound(CAIRN_ZSTD, N), nc = 0, nd = 0;
  uint8_t *c = malloc(cap);
  CHECK(p && d && c);
  uint32_t x = 7, val = 1000;
  for (size_t i = 0; i < N; i += 4) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    val += x % 9 - 3;
    cairnPutLE32(p + i, val);
  }
  CHECK_OK(cairn_zl_compress_level(CAIRN_ZL_LE_U32, 3, p, N, c, cap, &nc));
  cairn_zl_dctx *x0 = cairn_zl_dctx_create();
  CHECK(x0);
  acInstall();
  CHECK_OK(cairn_zl_decompress_dctx(x0, c, nc, d, N, &nd));
  acReset();
  CHECK_OK(cairn_zl_decompress_dctx(x0, c, nc, d, N, &nd));
  AC_CHECK("zl decompress 256 KiB le-u32 (context reused)", 16, 900000);
  CHECK(nd == N && memcmp(d, p, N) == 0);
  acRemove();
  cairn_zl_dctx_free(x0);

  size_t nz = 0;
  CHECK_OK(cairn_zcompress(CAIRN_ZSTD, 3, p, 64 << 10, c, cap, &nz));
  acInstall();
  CHECK_OK(cairn_zdecompress(CAIRN_ZSTD, c, nz, d, 64 << 10, &nd));
  acReset();
  CHECK_OK(cairn_zdecompress(CAIRN_ZSTD, c, nz, d, 64 << 10, &nd));
  AC_CHECK("zstd decompress 64 KiB into the caller's buffer", 2, 110000);
  CHECK(nd == (64 << 10) && memcmp(d, p, 64 << 10) == 0);
  acRemove();
  free(p), free(d), free(c);
}

TEST(allocs, cas_small_read_file) {
  const char *zPath = tfTmp("allocs.cas");
  remove(zPath);
  cairn_cas *cas;
  uint8_t a[256], b[256], id[32];
  for (int i = 0; i < 256; i++) a[i] = (uint8_t)(i * 7 + 1);
  CHECK_OK(cairn_cas_open(zPath, NULL, &cas));
  CHECK_OK(cairn_cas_begin(cas));
  CHECK_OK(cairn_cas_put(cas, a, sizeof a, id));
  CHECK_OK(cairn_cas_commit(cas));
  size_t nGot = 0;
  acInstall();
  CHECK_OK(cairn_cas_read(cas, id, 0, b, sizeof b, &nGot));
  acReset();
  CHECK_OK(cairn_cas_read(cas, id, 0, b, sizeof b, &nGot));
  AC_CHECK("cas read of a 256-byte object (file store)", 0, 0);
  CHECK(nGot == sizeof b && memcmp(a, b, sizeof b) == 0);
  acRemove();
  CHECK_OK(cairn_cas_close(cas));
}

/* Large reads into the caller's buffer (issue 23; JS Store.getInto reads this way): a whole
** multi-chunk payload through cairn_cas_read, and the same payload in pieces that cut chunks
** through one open payload (cairn_cas_payload_read): after the first piece, no allocation. */
TEST(allocs, cas_large_read_into) {
  enum { N = 4 << 20, PIECE = 100000 };
  uint8_t *a = malloc(N), *b = malloc(N), id[32];
  CHECK(a && b);
  uint32_t x = 11;
  for (size_t i = 0; i < N; i++) x ^= x << 13, x ^= x >> 17, x ^= x << 5, a[i] = (uint8_t)x;
  cairn_cas_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.chunking.nMin = 16 << 10, cfg.chunking.nAvg = 64 << 10, cfg.chunking.nMax = 256 << 10;
  cairn_cas *cas;
  CHECK_OK(cairn_cas_open_memory(&cfg, &cas));
  CHECK_OK(cairn_cas_begin(cas));
  CHECK_OK(cairn_cas_put(cas, a, N, id));
  CHECK_OK(cairn_cas_commit(cas));
  size_t nGot = 0;
  acInstall();
  CHECK_OK(cairn_cas_read(cas, id, 0, b, N, &nGot));
  memset(b, 0, N);
  acReset();
  CHECK_OK(cairn_cas_read(cas, id, 0, b, N, &nGot));
  AC_CHECK("cas read of a 4 MiB payload (64 KiB chunks) into the caller's buffer", 2, 1 << 12);
  CHECK(nGot == N && memcmp(a, b, N) == 0);
  memset(b, 0, N);
  cairn_cas_payload *pl;
  CHECK_OK(cairn_cas_payload_open(cas, id, &pl));
  CHECK_OK(cairn_cas_payload_read(pl, 0, b, PIECE, &nGot));
  acReset();
  size_t iOff = PIECE;
  while (iOff < N) {
    CHECK_OK(cairn_cas_payload_read(pl, iOff, b + iOff, PIECE, &nGot));
    CHECK(nGot == (N - iOff < PIECE ? N - iOff : PIECE));
    iOff += nGot;
  }
  AC_CHECK("cas open payload read in 100,000-byte pieces, after the first", 0, 0);
  CHECK(memcmp(a, b, N) == 0);
  cairn_cas_payload_close(pl);
  acRemove();
  CHECK_OK(cairn_cas_close(cas));
  free(a), free(b);
}
