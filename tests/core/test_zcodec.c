/* 2026-11-29 - zstd and zlib round trips (buffers and bounded streams) and their errors. */
#include "common/internal.h"
#include "tf.h"

static void fillText(uint8_t *p, size_t n) {
  static const char *w[] = {"memory ", "agent  ", "chunk  ", "store  ", "cairn  ", "vector ", "hdf5   "}; /* 7 bytes each */
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)w[(i / 7 * 2654435761u) % 7][i % 7];
}

static void roundTrip(cairn_zkind kind, int level) {
  size_t n = 300000;
  uint8_t *a = cairn_malloc(n), *c = cairn_malloc(cairn_zbound(kind, n)), *d = cairn_malloc(n);
  fillText(a, n);
  size_t nc = 0, nd = 0;
  CHECK_OK(cairn_zcompress(kind, level, a, n, c, cairn_zbound(kind, n), &nc));
  CHECK(nc < n / 4);
  CHECK_OK(cairn_zdecompress(kind, c, nc, d, n, &nd));
  CHECK_EQ(nd, n);
  CHECK_MEM(a, d, n);
  /* Output buffer one byte short: a range error, never an overflow. */
  CHECK_EQ(CAIRN_PRIMARY(cairn_zdecompress(kind, c, nc, d, n - 1, &nd)), CAIRN_RANGE);
  /* Truncated and corrupted inputs fail cleanly. */
  CHECK(cairn_zdecompress(kind, c, nc / 2, d, n, &nd) != CAIRN_OK);
  c[nc / 2] ^= 0x55;
  c[nc / 2 + 1] ^= 0x55;
  int rc = cairn_zdecompress(kind, c, nc, d, n, &nd);
  CHECK(rc != CAIRN_OK || memcmp(a, d, n) != 0 || kind == CAIRN_ZSTD);
  cairn_free(a), cairn_free(c), cairn_free(d);
}

TEST(zcodec, zstd_buffer) {
  roundTrip(CAIRN_ZSTD, 3);
  uint8_t a[1000], c[2000];
  size_t nc;
  tfFillRandom(a, sizeof a, 9);
  CHECK_OK(cairn_zcompress(CAIRN_ZSTD, 19, a, sizeof a, c, sizeof c, &nc));
  uint64_t cs;
  CHECK_OK(cairn_zstd_content_size(c, nc, &cs)); /* what HDF5's filter 32015 requires */
  CHECK_EQ(cs, sizeof a);
  CHECK_RC(cairn_zcompress(CAIRN_ZSTD, 99, a, sizeof a, c, sizeof c, &nc), CAIRN_RANGE);
}
TEST(zcodec, deflate_buffer) { roundTrip(CAIRN_DEFLATE, 6); }
TEST(zcodec, gzip_buffer) { roundTrip(CAIRN_GZIP, 9); }

static void streamTrip(cairn_zkind kind, size_t n) {
  uint8_t *a = cairn_malloc(n + 1);
  fillText(a, n / 2);
  tfFillRandom(a + n / 2, n - n / 2, 3); /* half compressible, half not */
  cairn_file *in, *mid, *out;
  CHECK_OK(cairn_memfile_open(a, n, &in));
  CHECK_OK(cairn_memfile_open(NULL, 0, &mid));
  CHECK_OK(cairn_memfile_open("stale bytes that must be truncated away", 39, &out));
  uint64_t nIn, nOut;
  CHECK_OK(cairn_zcompress_file(kind, kind == CAIRN_ZSTD ? 3 : 6, in, mid, NULL, NULL, &nIn, &nOut));
  CHECK_EQ(nIn, n);
  CHECK_OK(cairn_zdecompress_file(kind, mid, out, NULL, NULL, &nIn, &nOut));
  CHECK_EQ(nOut, n);
  const uint8_t *p;
  size_t np;
  CHECK_OK(cairn_memfile_data(out, &p, &np));
  CHECK_EQ(np, n);
  CHECK_MEM(p, a, n);
  /* A truncated stream is an error, not a short file. */
  const uint8_t *pm;
  size_t nm;
  CHECK_OK(cairn_memfile_data(mid, &pm, &nm));
  CHECK_OK(cairn_file_truncate(mid, nm - 7));
  CHECK_EQ(CAIRN_PRIMARY(cairn_zdecompress_file(kind, mid, out, NULL, NULL, NULL, NULL)), CAIRN_CORRUPT);
  cairn_file_close(in), cairn_file_close(mid), cairn_file_close(out);
  cairn_free(a);
}
TEST(zcodec, zstd_stream) { streamTrip(CAIRN_ZSTD, 1000000); streamTrip(CAIRN_ZSTD, 0); }
TEST(zcodec, deflate_stream) { streamTrip(CAIRN_DEFLATE, 700001); }
TEST(zcodec, gzip_stream) { streamTrip(CAIRN_GZIP, 1); }
