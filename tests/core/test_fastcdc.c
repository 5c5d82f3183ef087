/* 2026-11-29 - FastCDC 2020: the published vectors (both seeds: offsets, lengths, SHA-256,
** fingerprints), parameter checks, and the fast prepare path against the reference cut on
** random data, parameters, seeds, kernels, thread splits and streaming splits. */
#include <stdlib.h>

#include "cas/cas_int.h"
#include "tf.h"

typedef struct Vec {
  uint64_t seed, off, len, fp;
  char zHash[65];
} Vec;

/* Parse fastcdc2020_test_vectors.txt: "# Seed: N" headers, then "off len sha fp" lines. */
static int loadVectors(Vec *a, int nMax) {
  size_t n;
  char *z = (char *)tfReadFile(tfData("fastcdc/fastcdc2020_test_vectors.txt"), &n);
  if (!z) return -1;
  z[n] = 0;
  int k = 0;
  uint64_t seed = 0;
  for (char *line = z; line && *line && k < nMax;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    if (strncmp(line, "# Seed:", 7) == 0) seed = strtoull(line + 7, NULL, 10);
    else if (line[0] >= '0' && line[0] <= '9') {
      Vec *v = &a[k++];
      char *e;
      v->seed = seed;
      v->off = strtoull(line, &e, 10);
      v->len = strtoull(e, &e, 10);
      while (*e == ' ' || *e == '\t') e++;
      memcpy(v->zHash, e, 64);
      v->zHash[64] = 0;
      v->fp = strtoull(e + 64, NULL, 10);
    }
    line = nl ? nl + 1 : NULL;
  }
  cairn_free(z);
  return k;
}

static cairn_fastcdc_params vecParams(uint64_t seed) {
  cairn_fastcdc_params p = {4096, 16384, 65535, 2, seed};
  return p;
}

TEST(fastcdc, gear_table) {
  /* GEAR[i] = first 8 bytes (big-endian) of MD5(64 x byte i): spot checks of the formula. */
  CHECK(cairnCdcGear[0] == 0x3b5d3c7d207e37dcull);
  CHECK(cairnCdcGear[1] == 0x784d68ba91123086ull);
  CHECK(cairnCdcGear[255] == 0xaabd2b2a451504e1ull);
  for (int b = 5; b <= 25; b++) CHECK_EQ(__builtin_popcountll(cairnCdcMasks[b]), b);
}

TEST(fastcdc, vectors_reference_cut) {
  CHECK(tfHaveData());
  Vec a[64];
  int nVec = loadVectors(a, 64);
  CHECK_EQ(nVec, 12);
  size_t n;
  uint8_t *img = tfReadFile(tfData("fastcdc/SekienAkashita.jpg"), &n);
  CHECK(img != NULL);
  CHECK_EQ(n, 109466);
  for (int i = 0; i < nVec; i++) {
    Vec *v = &a[i];
    cairn_fastcdc_params p = vecParams(v->seed);
    size_t k;
    uint64_t fp;
    CHECK_OK(cairn_fastcdc_cut(&p, img + v->off, n - v->off, 1, &k, &fp));
    CHECK_EQ(k, v->len);
    CHECK(fp == v->fp);
    uint8_t h[32];
    char z[65];
    cairn_sha256(img + v->off, k, h);
    cairn_hex(h, 32, z);
    CHECK_STR(z, v->zHash);
    /* Consecutive: each chunk starts where the previous ended. */
    if (i + 1 < nVec && a[i + 1].seed == v->seed) CHECK_EQ(a[i + 1].off, v->off + v->len);
    else CHECK_EQ(v->off + v->len, n);
  }
  cairn_free(img);
}

/* Every kernel and thread split gives the vectors too. */
TEST(fastcdc, vectors_prepare) {
  CHECK(tfHaveData());
  Vec a[64];
  int nVec = loadVectors(a, 64);
  CHECK_EQ(nVec, 12);
  size_t n;
  uint8_t *img = tfReadFile(tfData("fastcdc/SekienAkashita.jpg"), &n);
  CHECK(img != NULL);
  for (int mode = 0; mode < 4; mode++) {
    cairn_cpu_disable(mode & 1 ? (CAIRN_CPU_SHANI | CAIRN_CPU_ARMSHA2) : 0);
    cairnCdcSegMin = mode & 2 ? 20000 : 0; /* mode 2/3: split into lanes and join */
    for (uint64_t seed = 0; seed <= 666; seed += 666) {
      cairn_fastcdc_params p = vecParams(seed);
      cairn_chunk *ak;
      size_t nk, nUsed;
      CHECK_OK(cairn_fastcdc_prepare(&p, img, n, 1, &ak, &nk, &nUsed));
      CHECK_EQ(nUsed, n);
      int j = 0;
      for (int i = 0; i < nVec; i++) {
        if (a[i].seed != seed) continue;
        char z[65];
        CHECK((size_t)j < nk);
        CHECK_EQ(ak[j].iOff, a[i].off);
        CHECK_EQ(ak[j].n, a[i].len);
        cairn_hex(ak[j].aHash, 32, z);
        CHECK_STR(z, a[i].zHash);
        j++;
      }
      CHECK_EQ(j, nk);
      cairn_free(ak);
    }
  }
  cairnCdcSegMin = 0;
  cairn_cpu_disable(0);
  cairn_free(img);
}

TEST(fastcdc, params) {
  cairn_fastcdc_params p;
  cairn_fastcdc_default(&p);
  CHECK_EQ(p.nMin, 256 << 10);
  CHECK_EQ(p.nAvg, 1 << 20);
  CHECK_EQ(p.nMax, 4 << 20);
  CHECK_OK(cairn_fastcdc_check(&p));
  p.nAvg = 1000000;
  CHECK_RC(cairn_fastcdc_check(&p), CAIRN_MISUSE);
  CHECK(strstr(cairn_errmsg(), "power of two") != NULL);
  cairn_fastcdc_default(&p);
  p.nMin = p.nMax + 1;
  CHECK_RC(cairn_fastcdc_check(&p), CAIRN_MISUSE);
  cairn_fastcdc_default(&p);
  p.level = 9;
  CHECK_RC(cairn_fastcdc_check(&p), CAIRN_MISUSE);
  cairn_fastcdc_default(&p);
  p.nMin = 16;
  CHECK_RC(cairn_fastcdc_check(&p), CAIRN_MISUSE);
  /* Without the end of the data and no cut yet, the reference asks for more. */
  cairn_fastcdc_default(&p);
  uint8_t small[1000] = {0};
  size_t k = 99;
  CHECK_OK(cairn_fastcdc_cut(&p, small, sizeof small, 0, &k, NULL));
  CHECK_EQ(k, 0);
  CHECK_OK(cairn_fastcdc_cut(&p, small, sizeof small, 1, &k, NULL));
  CHECK_EQ(k, sizeof small);
  cairn_chunk *ak;
  size_t nk, nUsed;
  CHECK_OK(cairn_fastcdc_prepare(&p, small, 0, 1, &ak, &nk, &nUsed));
  CHECK_EQ(nk, 0);
  cairn_free(ak);
}

/* Fill with a mix that exercises the chunker: random runs, zero runs, repeats, text. */
static void fillMixed(uint8_t *a, size_t n, uint64_t seed) {
  tfFillRandom(a, n, seed);
  uint64_t x = seed * 77 + 5;
  for (size_t i = 0; i < n;) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    size_t run = (size_t)(x >> 40) % 5000;
    if (i + run > n) run = n - i;
    switch ((x >> 20) % 4) {
      case 0: memset(a + i, 0, run); break;
      case 1: if (i >= run) memmove(a + i, a + i - run, run); break; /* repeat */
      case 2: for (size_t j = 0; j < run; j++) a[i + j] = (uint8_t)"the quick brown fox "[j % 20]; break;
      default: break;
    }
    i += run + (size_t)(x >> 50) % 9000;
  }
}

/* Reference chunking of a whole buffer with cairn_fastcdc_cut. */
static size_t refChunks(const cairn_fastcdc_params *p, const uint8_t *a, size_t n, int eof, uint64_t *aEnd, size_t nMax) {
  size_t i = 0, k = 0;
  while (i < n && k < nMax) {
    size_t c;
    if (cairn_fastcdc_cut(p, a + i, n - i, eof, &c, NULL) != CAIRN_OK || c == 0) break;
    i += c;
    aEnd[k++] = i;
  }
  return k;
}

TEST(fastcdc, prepare_matches_reference) {
  size_t nBuf = 3 << 20;
  uint8_t *a = cairn_malloc(nBuf);
  uint64_t *aEnd = cairn_malloc(sizeof(uint64_t) * 200000);
  uint8_t h[32];
  for (int iter = 0; iter < 24; iter++) {
    uint64_t r = (uint64_t)iter * 0x9E3779B97F4A7C15ull + 3;
    cairn_fastcdc_params p;
    unsigned aLog = 6 + (unsigned)(r % 9); /* avg 64 B .. 16 KiB */
    p.nAvg = 1u << aLog;
    p.level = (unsigned)((r >> 8) % 4);
    while (aLog < 5 + p.level || aLog + p.level > 25) p.level--;
    p.nMin = 64 + (uint32_t)((r >> 12) % (p.nAvg - 63)); /* any value in [64, avg], odd ones too */
    p.nMax = p.nAvg + (uint32_t)((r >> 24) % (4 * p.nAvg));
    p.seed = (iter & 1) ? (r >> 3) : 0;
    size_t n = (size_t)((r >> 30) % nBuf);
    if (iter < 3) n = (size_t)iter * 37; /* tiny inputs */
    fillMixed(a, n, r);
    size_t nRef = refChunks(&p, a, n, 1, aEnd, 200000);
    for (int mode = 0; mode < 4; mode++) {
      cairn_cpu_disable(mode & 1 ? (CAIRN_CPU_SHANI | CAIRN_CPU_ARMSHA2) : 0);
      cairnCdcSegMin = mode & 2 ? 8192 + (size_t)(r % 100000) : 0;
      cairn_chunk *ak;
      size_t nk, nUsed;
      CHECK_OK(cairn_fastcdc_prepare(&p, a, n, 1, &ak, &nk, &nUsed));
      CHECK_EQ(nk, nRef);
      CHECK_EQ(nUsed, n);
      uint64_t iPrev = 0;
      for (size_t i = 0; i < nk; i++) {
        if (ak[i].iOff != iPrev || ak[i].iOff + ak[i].n != aEnd[i]) {
          tfFail(__FILE__, __LINE__, "iter %d mode %d chunk %zu: %llu+%u, want end %llu (min %u avg %u max %u lvl %u)", iter,
                 mode, i, (unsigned long long)ak[i].iOff, ak[i].n, (unsigned long long)aEnd[i], p.nMin, p.nAvg, p.nMax, p.level);
          cairn_free(ak);
          goto done;
        }
        cairn_sha256(a + ak[i].iOff, ak[i].n, h);
        CHECK_MEM(h, ak[i].aHash, 32);
        iPrev = aEnd[i];
      }
      cairn_free(ak);
    }
  }
done:
  cairnCdcSegMin = 0;
  cairn_cpu_disable(0);
  cairn_free(aEnd);
  cairn_free(a);
}

/* Streaming: feeding a buffer in pieces (eof only at the end) gives the same cuts. */
/* All the data fed without its end, then the end alone: the cuts must still be the reference's.
** The reference never tests the last byte of an odd remainder, so a cut there is one only if
** more data follows; the first call cannot know, and must leave that chunk for the second. */
TEST(fastcdc, prepare_unfinished_tail) {
  cairn_fastcdc_params p = {64, 64, 256, 1, 0};
  uint8_t a[1600];
  uint64_t aEnd[64];
  int nTailWaits = 0;
  for (uint64_t seed = 1; seed <= 3000; seed++) {
    size_t n = 200 + (size_t)(seed * 2654435761u % 1400);
    tfFillRandom(a, n, seed);
    size_t nRef = refChunks(&p, a, n, 1, aEnd, 64);
    cairn_chunk *ak;
    size_t nk, nUsed, k = 0;
    CHECK_OK(cairn_fastcdc_prepare(&p, a, n, 0, &ak, &nk, &nUsed));
    for (size_t i = 0; i < nk; i++, k++) {
      CHECK(k < nRef);
      CHECK_EQ(ak[i].iOff + ak[i].n, aEnd[k]);
    }
    cairn_free(ak);
    /* would the last byte have been a cut with more data after it? */
    size_t c;
    uint8_t b[1601];
    memcpy(b, a, n);
    b[n] = 0;
    CHECK_OK(cairn_fastcdc_cut(&p, a + nUsed, n - nUsed, 1, &c, NULL));
    if (c == n - nUsed) {
      size_t c2;
      CHECK_OK(cairn_fastcdc_cut(&p, b + nUsed, n + 1 - nUsed, 1, &c2, NULL));
      nTailWaits += c2 == n - nUsed - 1;
    }
    size_t base = nUsed;
    CHECK_OK(cairn_fastcdc_prepare(&p, a + base, n - base, 1, &ak, &nk, &nUsed));
    for (size_t i = 0; i < nk; i++, k++) {
      CHECK(k < nRef);
      CHECK_EQ(base + ak[i].iOff + ak[i].n, aEnd[k]);
    }
    cairn_free(ak);
    CHECK_EQ(base + nUsed, n);
    CHECK_EQ(k, nRef);
  }
  CHECK(nTailWaits > 0); /* the case happened */
}

TEST(fastcdc, prepare_streaming) {
  size_t n = 2 << 20;
  uint8_t *a = cairn_malloc(n);
  uint64_t *aEnd = cairn_malloc(sizeof(uint64_t) * 100000);
  fillMixed(a, n, 42);
  cairn_fastcdc_params p = {1024, 4096, 16384, 2, 7};
  size_t nRef = refChunks(&p, a, n, 1, aEnd, 100000);
  CHECK(nRef > 100);
  size_t k = 0, iBase = 0, iFed = 0;
  uint64_t x = 99;
  while (iBase < n) {
    x = x * 6364136223846793005ull + 1;
    iFed = CAIRN_MIN(n, iFed + (size_t)(x >> 44) % 60000);
    int eof = iFed == n;
    cairn_chunk *ak;
    size_t nk, nUsed;
    CHECK_OK(cairn_fastcdc_prepare(&p, a + iBase, iFed - iBase, eof, &ak, &nk, &nUsed));
    for (size_t i = 0; i < nk; i++) {
      CHECK(k < nRef);
      CHECK_EQ(iBase + ak[i].iOff + ak[i].n, aEnd[k]);
      k++;
    }
    cairn_free(ak);
    iBase += nUsed;
    if (eof) CHECK_EQ(iBase, n);
  }
  CHECK_EQ(k, nRef);
  cairn_free(aEnd);
  cairn_free(a);
}
