/* 2026-11-30 - cairn's deflate encoder (core/codec/deflate_enc.c): every stream it writes is
** decoded by zlib's inflate (cairn_zdecompress) over many sizes and patterns at every level,
** output stays inside the bound and inside short buffers, sizes stay close to zlib's at the
** same level, and Adler-32 agrees with zlib's. */
#include <math.h>
#include <zlib.h>

#include "codec/deflate_enc.h"
#include "common/internal.h"
#include "tf.h"

static void fillText(uint8_t *p, size_t n, uint64_t seed) {
  static const char *w[] = {"memory ", "agent ", "chunk ", "store  ", "cairn ", "vector ", "hdf5 ", "the ", "of ", "window\n"};
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  size_t i = 0;
  while (i < n) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const char *z = w[x % 10];
    while (*z && i < n) p[i++] = (uint8_t)*z++;
  }
}
static void fillFloats(uint8_t *p, size_t n) {
  for (size_t i = 0; i + 4 <= n; i += 4) {
    float f = (float)(sin((double)i / 400.0) * 100.0 + (double)(i % 28) / 4.0);
    memcpy(p + i, &f, 4);
  }
  for (size_t i = n & ~(size_t)3; i < n; i++) p[i] = (uint8_t)i;
}
/* runs of one byte of many lengths, some longer than a match (258) */
static void fillRuns(uint8_t *p, size_t n) {
  size_t i = 0, k = 1;
  while (i < n) {
    size_t r = (k * 37) % 700 + 1;
    for (size_t j = 0; j < r && i < n; j++) p[i++] = (uint8_t)(k * 11);
    k++;
  }
}
/* random bytes with a 300-byte piece repeated at distances 32767, 32768 and 32769 (one past
** the window: must not be used) and a 1000-byte piece repeated right away (matches of 258
** back to back) */
static void fillWindowEdges(uint8_t *p, size_t n) {
  tfFillRandom(p, n, 77);
  if (n < 3 * 32768 + 2000) return;
  memcpy(p + 32767, p, 300);
  memcpy(p + 40000 + 32768, p + 40000, 300);
  memcpy(p + 65536 + 32769, p + 65536, 300);
  memcpy(p + 1000, p, 1000);
}

enum { PAT_ZERO, PAT_ONE, PAT_RUNS, PAT_RANDOM, PAT_TEXT, PAT_FLOAT, PAT_EDGES, PAT_MIXED, NPAT };
static void fillPattern(int pat, uint8_t *p, size_t n) {
  switch (pat) {
    case PAT_ZERO: memset(p, 0, n); break;
    case PAT_ONE: memset(p, 'a', n); break;
    case PAT_RUNS: fillRuns(p, n); break;
    case PAT_RANDOM: tfFillRandom(p, n, n + 1); break;
    case PAT_TEXT: fillText(p, n, n); break;
    case PAT_FLOAT: fillFloats(p, n); break;
    case PAT_EDGES: fillWindowEdges(p, n); break;
    default: /* text, random and floats in turns of 5000 bytes */
      for (size_t i = 0; i < n; i += 5000) {
        size_t k = n - i < 5000 ? n - i : 5000;
        int t = (int)(i / 5000) % 3;
        if (t == 0) fillText(p + i, k, i);
        else if (t == 1) tfFillRandom(p + i, k, i);
        else fillFloats(p + i, k);
      }
  }
}

/* Compress at level into a buffer of exactly the bound, decode with zlib, compare; returns
** the compressed size (0 after a failed check). */
static size_t trip(int level, const uint8_t *a, size_t n) {
  size_t cap = cairnDeflateBound(n), nc = 0, nd = 0;
  uint8_t *c = cairn_malloc(cap), *d = cairn_malloc(n + 1);
  int ok = c && d && cairnDeflateCompress(level, a, n, c, cap, &nc) == CAIRN_OK && nc <= cap &&
           cairn_zdecompress(CAIRN_DEFLATE, c, nc, d, n + 1, &nd) == CAIRN_OK && nd == n && memcmp(a, d, n) == 0;
  cairn_free(c), cairn_free(d);
  return ok ? nc : 0;
}

TEST(deflate, round_trip_sizes_patterns_levels) {
  static const size_t aSize[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 257, 258, 259, 1000, 4096, 16384, 16385, 65535, 65536, 65537, 70000, 3 * 32768 + 5000};
  size_t nMax = 3 * 32768 + 5000;
  uint8_t *a = cairn_malloc(nMax);
  CHECK(a != NULL);
  for (int pat = 0; pat < NPAT; pat++)
    for (size_t k = 0; k < CAIRN_ARRAY_SIZE(aSize); k++) {
      size_t n = aSize[k];
      fillPattern(pat, a, n);
      for (int level = 0; level <= 9; level++) {
        if (n > 20000 && level != 1 && level != 6 && level != 9 && pat != PAT_EDGES) continue; /* keep the suite fast */
        size_t nc = trip(level, a, n);
        if (!nc) tfFail(__FILE__, __LINE__, "round trip failed: pattern %d, %zu bytes, level %d", pat, n, level);
        CHECK(nc != 0);
        if (level > 0 && n >= 1000 && (pat == PAT_ZERO || pat == PAT_ONE || pat == PAT_RUNS)) CHECK(nc < n / 20);
      }
    }
  cairn_free(a);
}

/* Over 1 MiB of mixed data (several blocks) at the default level, and level -1 = 6. */
TEST(deflate, large_mixed_and_default_level) {
  size_t n = (1 << 20) + 12345;
  uint8_t *a = cairn_malloc(n);
  CHECK(a != NULL);
  fillPattern(PAT_MIXED, a, n);
  size_t n6 = trip(6, a, n), nDef = trip(-1, a, n);
  CHECK(n6 != 0);
  CHECK_EQ(n6, nDef);
  CHECK(n6 < n * 3 / 4);
  cairn_free(a);
}

/* Short output buffers: a range error, never a write past the end (ASan checks the latter). */
TEST(deflate, short_buffer) {
  size_t n = 50000, nc = 0, nx = 0;
  uint8_t *a = cairn_malloc(n), *c = cairn_malloc(cairnDeflateBound(n));
  CHECK(a && c);
  for (int pat = PAT_RANDOM; pat <= PAT_TEXT; pat++) {
    fillPattern(pat, a, n);
    CHECK_OK(cairnDeflateCompress(6, a, n, c, cairnDeflateBound(n), &nc));
    for (size_t cut = 1; cut < nc; cut = cut * 3 + 1) {
      size_t m = nc - cut;
      uint8_t *b = cairn_malloc(m);
      CHECK(b != NULL);
      int rc = cairnDeflateCompress(6, a, n, b, m, &nx);
      cairn_free(b);
      CHECK_RC(rc, CAIRN_RANGE);
    }
  }
  CHECK_RC(cairnDeflateCompress(10, a, n, c, cairnDeflateBound(n), &nc), CAIRN_RANGE);
  CHECK_RC(cairnDeflateCompress(-2, a, n, c, cairnDeflateBound(n), &nc), CAIRN_RANGE);
  cairn_free(a), cairn_free(c);
}

/* Each level within 5% of zlib's size at the same level on a fixed non-trivial input (text,
** random and floats); the bench (bench/h5w/deflate_cmp.c) reports the exact ratios. */
TEST(deflate, size_close_to_zlib) {
  size_t n = 400000;
  uint8_t *a = cairn_malloc(n), *c = cairn_malloc(cairnDeflateBound(n)), *z = cairn_malloc(cairn_zbound(CAIRN_DEFLATE, n));
  CHECK(a && c && z);
  fillPattern(PAT_MIXED, a, n);
  for (int level = 1; level <= 9; level++) {
    size_t nc = 0, nz = 0;
    CHECK_OK(cairnDeflateCompress(level, a, n, c, cairnDeflateBound(n), &nc));
    CHECK_OK(cairn_zcompress(CAIRN_DEFLATE, level, a, n, z, cairn_zbound(CAIRN_DEFLATE, n), &nz));
    if (nc * 100 > nz * 105) tfFail(__FILE__, __LINE__, "level %d: %zu bytes, zlib %zu", level, nc, nz);
    CHECK(nc * 100 <= nz * 105);
  }
  cairn_free(a), cairn_free(c), cairn_free(z);
}

TEST(deflate, adler32_matches_zlib) {
  CHECK_EQ(cairnAdler32(1, (const uint8_t *)"Wikipedia", 9), 0x11E60398);
  CHECK_EQ(cairnAdler32(1, NULL, 0), 1);
  size_t n = 100000;
  uint8_t *a = cairn_malloc(n);
  CHECK(a != NULL);
  memset(a, 0xff, n / 2); /* largest sums: the modulo must come in time */
  tfFillRandom(a + n / 2, n - n / 2, 5);
  static const size_t aLen[] = {1, 15, 16, 17, 63, 64, 65, 100, 5551, 5552, 5553, 11104, 11200, 65536, 100000};
  for (int pass = 0; pass < 2; pass++) { /* SIMD (AVX2 or wasm simd128) where there is one, then scalar */
    if (pass) cairn_cpu_disable(~(uint64_t)0);
    for (size_t k = 0; k < CAIRN_ARRAY_SIZE(aLen); k++) {
      for (size_t off = 0; off < 3 && off < aLen[k]; off++) { /* unaligned starts */
        uint32_t mine = cairnAdler32(1, a + off, aLen[k] - off);
        CHECK_EQ(mine, (uint32_t)adler32(1, a + off, (uInt)(aLen[k] - off)));
        /* continued in two pieces */
        size_t h = (aLen[k] - off) / 3;
        CHECK_EQ(cairnAdler32(cairnAdler32(1, a + off, h), a + off + h, aLen[k] - off - h), mine);
      }
    }
    cairn_cpu_disable(0);
  }
  cairn_free(a);
}
