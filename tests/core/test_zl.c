/* 2026-11-29 - the OpenZL-format codec: XXH3 against reference values, the golden frames of
** OpenZL's own CLI (../shared/data/openzl-v26), round trips of every profile, malformed frames. */
#include <stdlib.h>

#include "common/internal.h"
#include "oom.h"
#include "tf.h"
#include "zl/zl_int.h"
#include "cairn/sha256.h"

#define ZL_GOLDEN_MIN 20

/* XXH3-64 of the first n bytes of a xorshift buffer, computed with the reference xxHash
** implementation (xxhash.h 0.8, XXH_INLINE_ALL), covering every length class of XXH3. */
static const struct {
  int n;
  uint64_t h;
} kXxh[] = {
    {0, 0x2d06800538d394c2ull},
    {1, 0x07d5ae159a919058ull},
    {2, 0x3bfab338e01a7c90ull},
    {3, 0x3f7ca198e38a9dd8ull},
    {4, 0x7e9ffd5315ced531ull},
    {5, 0x9d699b8f2cef6852ull},
    {7, 0xe0361bb27d9991b4ull},
    {8, 0x080bb5587dddbcccull},
    {9, 0x57339e096b0bc95cull},
    {15, 0x6e1e56fda1e36045ull},
    {16, 0x3bd319479dba1b29ull},
    {17, 0xc847380e61a6022full},
    {31, 0x5c08193bbbf9dbecull},
    {32, 0x923680bb2d97f47bull},
    {33, 0xac63f04df743f2a3ull},
    {63, 0x83f4e0d0640ed22cull},
    {64, 0x8d28779b8326a96cull},
    {65, 0x24f293c4914481e7ull},
    {95, 0xce7242375d1dff59ull},
    {96, 0x43bdeb7472fd9485ull},
    {97, 0x303e65436f588f66ull},
    {127, 0x49fd352f2c5d824aull},
    {128, 0x869719f808986034ull},
    {129, 0xfe8faf78e75b87e0ull},
    {200, 0x627a7e41150a76acull},
    {239, 0xd3635842d08301b1ull},
    {240, 0x5c9c59f8c78ad1a6ull},
    {241, 0xe228aef82e94348cull},
    {255, 0x24240d29c03f4ee7ull},
    {256, 0x625b00e95c5955d2ull},
    {500, 0x9dff3ba1f34a1032ull},
    {1023, 0x4a46879281d8fd32ull},
    {1024, 0x3bdc77f63c7b9effull},
    {1025, 0x0a5abe8c747da52eull},
    {2047, 0xad91b37831313cf1ull},
    {2048, 0xd7f08cbd1734de4full},
    {2049, 0xea2b831b528a8d85ull},
    {4096, 0xfebf8778159043c5ull},
};

TEST(zl, xxh3) {
  static uint8_t buf[4096];
  uint64_t g = 0x9E3779B185EBCA8Dull;
  for (int i = 0; i < 4096; i++) {
    g ^= g << 13, g ^= g >> 7, g ^= g << 17;
    buf[i] = (uint8_t)(g >> 24);
  }
  for (size_t i = 0; i < CAIRN_ARRAY_SIZE(kXxh); i++) {
    if (cairnXxh3(buf, (size_t)kXxh[i].n) != kXxh[i].h) tfFail(__FILE__, __LINE__, "xxh3 of %d bytes", kXxh[i].n);
  }
}

/* The SIMD stripe kernels (AVX2, wasm simd128) agree with the scalar one on every length class. */
TEST(zl, xxh3_kernels) {
  static uint8_t buf[5000];
  tfFillRandom(buf, sizeof buf, 77);
  for (size_t n = 0; n <= sizeof buf; n += n < 300 ? 1 : 37) {
    uint64_t h = cairnXxh3(buf, n);
    cairn_cpu_disable(CAIRN_CPU_AVX2 | CAIRN_CPU_WASM128);
    uint64_t h0 = cairnXxh3(buf, n);
    cairn_cpu_disable(0);
    if (h != h0) {
      tfFail(__FILE__, __LINE__, "xxh3 kernels differ at %zu bytes", n);
      return;
    }
  }
}

/* MANIFEST.tsv: frame input profile input_bytes frame_bytes zstd3 zstd19 sha256 */
typedef struct {
  char zFrame[96], zInput[96], zProfile[16], zSha[65];
  long nIn, nFrame;
} Golden;

static int readManifest(Golden *a, int nMax) {
  size_t n;
  uint8_t *p = tfReadFile(tfData("openzl-v26/MANIFEST.tsv"), &n);
  if (!p) return -1;
  int k = 0;
  char *z = (char *)p, *e = z + n;
  while (z < e && *z != '\n') z++; /* header line */
  while (z < e && k < nMax) {
    z++;
    char *eol = memchr(z, '\n', (size_t)(e - z));
    if (!eol) eol = e;
    if (eol - z > 10) {
      Golden *g = &a[k];
      char aF[8][100];
      int f = 0, j = 0;
      memset(aF, 0, sizeof aF);
      for (char *q = z; q < eol && f < 8; q++) {
        if (*q == '\t') f++, j = 0;
        else if (j < 99) aF[f][j++] = *q;
      }
      memcpy(g->zFrame, aF[0], 95), memcpy(g->zInput, aF[1], 95), memcpy(g->zProfile, aF[2], 15), memcpy(g->zSha, aF[7], 64);
      g->zFrame[95] = g->zInput[95] = g->zProfile[15] = g->zSha[64] = 0;
      g->nIn = strtol(aF[3], NULL, 10), g->nFrame = strtol(aF[4], NULL, 10);
      k++;
    }
    z = eol;
  }
  cairn_free(p);
  return k;
}

static uint8_t *readGolden(const char *zRel, size_t *pn) {
  char z[200];
  cairnFormat(z, sizeof z, "openzl-v26/%s", zRel);
  return tfReadFile(tfData(z), pn);
}

/* Every golden frame decodes to its input, byte for byte, with both checksums verified (the
** frames carry them; a mismatch fails with CAIRN_CHECKSUM). */
TEST(zl, golden_decode) {
  Golden a[40];
  int n = readManifest(a, 40);
  CHECK(n >= 20);
  int nOk = 0;
  for (int i = 0; i < n; i++) {
    size_t nf, ni, nd = 0;
    uint8_t *f = readGolden(a[i].zFrame, &nf), *in = readGolden(a[i].zInput, &ni);
    CHECK(f && in);
    CHECK_EQ(nf, a[i].nFrame);
    CHECK_EQ(ni, a[i].nIn);
    char zHex[65];
    uint8_t dg[32];
    cairn_sha256(in, ni, dg);
    cairn_hex(dg, 32, zHex);
    CHECK_STR(zHex, a[i].zSha);
    uint64_t nDecl = 0;
    CHECK_OK(cairn_zl_decompressed_size(f, nf, &nDecl));
    CHECK_EQ(nDecl, ni);
    uint8_t *out = cairn_malloc(ni + 1);
    int rc = cairn_zl_decompress(f, nf, out, ni, &nd);
    if (rc == CAIRN_OK) {
      CHECK_EQ(nd, ni);
      CHECK_MEM(out, in, ni);
      nOk++;
      /* and through the streaming reader (its window grows to the chunk's size) */
      cairn_file *fi, *fo;
      const uint8_t *po;
      size_t npo;
      CHECK_OK(cairn_memfile_open(f, nf, &fi));
      CHECK_OK(cairn_memfile_open(NULL, 0, &fo));
      CHECK_OK(cairn_zl_decompress_file(fi, fo, NULL, NULL, NULL, NULL));
      CHECK_OK(cairn_memfile_data(fo, &po, &npo));
      CHECK_EQ(npo, ni);
      if (ni) CHECK_MEM(po, in, ni);
      cairn_file_close(fi), cairn_file_close(fo);
    } else if (rc != CAIRN_UNSUPPORTED) {
      tfFail(__FILE__, __LINE__, "%s: %s", a[i].zFrame, cairn_errmsg());
    }
    cairn_free(out), cairn_free(f), cairn_free(in);
  }
  printf("  zl: %d of %d golden frames decoded\n", nOk, n);
  CHECK(nOk >= ZL_GOLDEN_MIN);
}

/* Truncations at every length and single-byte corruptions of small golden frames: a clean
** error, never a crash (sanitizer builds check the rest). */
TEST(zl, malformed) {
  const char *az[] = {"frames/empty.serial.zl", "frames/tiny_64.serial.zl", "frames/zeros_1m.serial.zl", "frames/u64_ids.le-u64.zl"};
  for (size_t k = 0; k < CAIRN_ARRAY_SIZE(az); k++) {
    size_t nf, nd;
    uint8_t *f = readGolden(az[k], &nf);
    CHECK(f);
    uint8_t *out = cairn_malloc(1 << 20);
    for (size_t cut = 0; cut < nf && cut < 4000; cut++) CHECK(cairn_zl_decompress(f, cut, out, 1 << 20, &nd) != CAIRN_OK);
    for (size_t i = 0; i < nf && i < 600; i++) {
      uint8_t save = f[i];
      f[i] ^= (uint8_t)(1u << (i % 8));
      int rc = cairn_zl_decompress(f, nf, out, 1 << 20, &nd);
      CHECK(rc != CAIRN_OK);
      f[i] = save;
    }
    cairn_free(out), cairn_free(f);
  }
  /* mutations of every golden frame with checksum comparisons off, so that they reach the
  ** transform decoders: any result but a crash, a hang or unbounded memory is fine */
  Golden g[40];
  int ng = readManifest(g, 40);
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < ng; i++) {
    size_t nf, nd2, nFrame;
    uint8_t *f = readGolden(g[i].zFrame, &nf), *o = cairn_malloc((size_t)g[i].nIn + 1), *m = cairn_malloc(nf + 1);
    CHECK(f && o && m);
    for (int k = 0; k < 40; k++) {
      memcpy(m, f, nf);
      for (int e = 0; e < 1 + k % 3; e++) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        if (nf) m[rng % nf] ^= (uint8_t)(1u << ((rng >> 32) % 8));
      }
      cairnZlDecodeFrame(m, nf, o, (size_t)g[i].nIn, &nd2, &nFrame, 1 | (k & 1) << 1); /* odd k: unfused */
    }
    cairn_free(f), cairn_free(o), cairn_free(m);
  }
  /* hostile declared size: the buffer bounds it */
  uint8_t hdr[] = {0xda, 0xa5, 0xb1, 0xd7, 0x00, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x05, 0x01};
  size_t nd;
  uint8_t o[16];
  CHECK_RC(cairn_zl_decompress(hdr, sizeof hdr, o, sizeof o, &nd), CAIRN_RANGE);
  hdr[0] = 0;
  CHECK_RC(cairn_zl_decompress(hdr, sizeof hdr, o, sizeof o, &nd), CAIRN_CORRUPT);
}

/* cairn's frame for every MANIFEST pair: decodes to the input (our reader), is no larger than
** OpenZL's frame for the same (input, profile), and smaller on at least half of the pairs.
** Frames are left in tfTmp("zl/") so that an independent decoder can be run over them. */
TEST(zl, golden_encode) {
  Golden a[40];
  int n = readManifest(a, 40);
  CHECK(n >= 20);
  int nSmaller = 0, nLarger = 0;
  for (int i = 0; i < n; i++) {
    size_t ni, nf, nd;
    uint8_t *in = readGolden(a[i].zInput, &ni);
    CHECK(in);
    int prof = cairn_zl_profile_from_name(a[i].zProfile);
    CHECK(prof >= 0);
    size_t cap = cairn_zl_compress_bound(ni);
    uint8_t *f = cairn_malloc(cap), *d = cairn_malloc(ni + 1);
    CHECK_OK(cairn_zl_compress(prof, in, ni, f, cap, &nf));
    CHECK_OK(cairn_zl_decompress(f, nf, d, ni, &nd));
    CHECK_EQ(nd, ni);
    CHECK_MEM(d, in, ni);
    char z[160];
    cairnFormat(z, sizeof z, "zl/%s", a[i].zFrame + 7);
    tfWriteFile(tfTmp(z), f, nf);
    printf("  %-28s %-7s openzl %8ld  cairn %8zu  (%s)\n", a[i].zFrame + 7, a[i].zProfile, a[i].nFrame, nf,
           (long)nf < a[i].nFrame ? "smaller" : (long)nf == a[i].nFrame ? "equal" : "LARGER");
    nSmaller += (long)nf < a[i].nFrame;
    nLarger += (long)nf > a[i].nFrame;
    cairn_free(f), cairn_free(d), cairn_free(in);
  }
  CHECK_EQ(nLarger, 0);
  CHECK(2 * nSmaller >= n);
}

/* Inputs above one segment: several chunks, compressed through the host's parallel-for. The
** frame must not depend on the thread count (same bytes with xParallelFor NULL), and the
** streaming API must write the same frame and read it back in bounded memory. */
static void fillSensor(uint8_t *p, size_t n) {
  uint32_t v = 1000;
  for (size_t i = 0; i + 4 <= n; i += 4) {
    v += (uint32_t)((i * 2654435761u) >> 29) - 3;
    cairnPutLE32(p + i, v);
  }
}
TEST(zl, parallel_and_stream) {
  size_t n = (9u << 20) + 4096, cap = cairn_zl_compress_bound(n), nf = 0, nf1 = 0, nd = 0;
  uint8_t *a = cairn_malloc(n), *f = cairn_malloc(cap), *f1 = cairn_malloc(cap), *d = cairn_malloc(n);
  CHECK(a && f && f1 && d);
  fillSensor(a, n);
  CHECK_OK(cairn_zl_compress_level(CAIRN_ZL_LE_U32, 3, a, n, f, cap, &nf));
  cairn_host h = *cairn_host_get(), hSeq = h;
  hSeq.xParallelFor = NULL;
  CHECK_OK(cairn_host_set(&hSeq));
  int rc = cairn_zl_compress_level(CAIRN_ZL_LE_U32, 3, a, n, f1, cap, &nf1);
  CHECK_OK(cairn_host_set(&h));
  CHECK_OK(rc);
  CHECK_EQ(nf, nf1);
  CHECK_MEM(f, f1, nf);
  CHECK(nf < n / 4);
  CHECK_OK(cairn_zl_decompress(f, nf, d, n, &nd));
  CHECK_EQ(nd, n);
  CHECK_MEM(a, d, n);
  /* streams */
  cairn_file *in, *mid, *out;
  CHECK_OK(cairn_memfile_open(a, n, &in));
  CHECK_OK(cairn_memfile_open(NULL, 0, &mid));
  CHECK_OK(cairn_memfile_open("stale bytes that must go", 24, &out));
  uint64_t nIn = 0, nOut = 0;
  CHECK_OK(cairn_zl_compress_file(CAIRN_ZL_LE_U32, 3, in, mid, NULL, NULL, &nIn, &nOut));
  CHECK_EQ(nIn, n);
  CHECK_EQ(nOut, nf);
  const uint8_t *pm;
  size_t nm;
  CHECK_OK(cairn_memfile_data(mid, &pm, &nm));
  CHECK_EQ(nm, nf);
  CHECK_MEM(pm, f, nf);
  CHECK_OK(cairn_zl_decompress_file(mid, out, NULL, NULL, &nIn, &nOut));
  CHECK_EQ(nOut, n);
  CHECK_OK(cairn_memfile_data(out, &pm, &nm));
  CHECK_EQ(nm, n);
  CHECK_MEM(pm, a, n);
  /* a truncated stream fails cleanly */
  cairn_file *tr;
  CHECK_OK(cairn_memfile_open(f, nf - 9, &tr));
  CHECK(cairn_zl_decompress_file(tr, out, NULL, NULL, NULL, NULL) != CAIRN_OK);
  cairn_file_close(tr), cairn_file_close(in), cairn_file_close(mid), cairn_file_close(out);
  cairn_free(a), cairn_free(f), cairn_free(f1), cairn_free(d);
}

TEST(zl, profiles_and_misuse) {
  CHECK_EQ(cairn_zl_profile_from_name("le-i64"), CAIRN_ZL_LE_I64);
  CHECK_EQ(cairn_zl_profile_from_name("nope"), -1);
  uint8_t a[7] = {1, 2, 3, 4, 5, 6, 7}, f[256];
  size_t nf;
  /* issue 21: any length (the tail beside the typed part), as OpenZL accepts */
  uint8_t d7[7];
  size_t n7 = 0;
  CHECK_OK(cairn_zl_compress(CAIRN_ZL_LE_U32, a, 7, f, sizeof f, &nf));
  CHECK_OK(cairn_zl_decompress(f, nf, d7, 7, &n7));
  CHECK(n7 == 7 && memcmp(d7, a, 7) == 0);
  CHECK_RC(cairn_zl_compress(99, a, 7, f, sizeof f, &nf), CAIRN_MISUSE);
  CHECK_RC(cairn_zl_compress(CAIRN_ZL_SERIAL, a, 7, f, 10, &nf), CAIRN_RANGE);
  /* every profile round-trips small and odd inputs */
  static uint8_t b[4096];
  for (int prof = 0; prof <= CAIRN_ZL_CSV; prof++) {
    for (size_t n = 0; n <= 4096; n = n ? n * 2 : 8) {
      for (size_t i = 0; i < n; i++) b[i] = prof == CAIRN_ZL_CSV ? (uint8_t)("a,1,\"x,y\"\n"[i % 10]) : (uint8_t)(i * i >> 3);
      size_t cap = cairn_zl_compress_bound(n), nd;
      uint8_t *c = cairn_malloc(cap), d[4096];
      CHECK_OK(cairn_zl_compress(prof, b, n, c, cap, &nf));
      CHECK_OK(cairn_zl_decompress(c, nf, d, n, &nd));
      CHECK_EQ(nd, n);
      CHECK_MEM(d, b, n);
      cairn_free(c);
    }
  }
}

/* Allocation N and every later one fail, for N = 0, 1, 2, ... until a run needs no failure:
** every run either succeeds or fails with CAIRN_NOMEM, never another error or a crash, and
** frees all it allocated; compressing and decompressing through the host's allocator (zstd
** included), with the counting allocator of oom.h. */
TEST(zl, oom_loop) {
  static uint8_t in[6000], f[8000], out[6000];
  for (size_t i = 0; i < sizeof in; i += 4) cairnPutLE32(in + i, (uint32_t)(i * 7 + (i >> 6) * 1000));
  cairn_host saved = *cairn_host_get(), h = saved;
  oomHooks(&h);
  size_t nf = 0, nd = 0;
  int phase, done = 0;
  for (phase = 0; phase < 2; phase++) {
    for (long fail = 0; fail < 100000; fail++) {
      CHECK_OK(cairn_host_set(&h));
      oomArm(OOM_FOREVER, fail);
      int rc = phase == 0 ? cairn_zl_compress_level(CAIRN_ZL_LE_U32, 3, in, sizeof in, f, sizeof f, &nf)
                          : cairn_zl_decompress(f, nf, out, sizeof out, &nd);
      long nLive = oomLive();
      CHECK_OK(cairn_host_set(&saved));
      if (nLive != 0) {
        tfFail(__FILE__, __LINE__, "phase %d, allocation %ld failing: %ld blocks left allocated", phase, fail, nLive);
        return;
      }
      if (rc == CAIRN_OK) {
        done++;
        break;
      }
      if (CAIRN_PRIMARY(rc) != CAIRN_NOMEM) {
        tfFail(__FILE__, __LINE__, "phase %d, allocation %ld failing: %s", phase, fail, cairn_errmsg());
        return;
      }
    }
  }
  CHECK_EQ(done, 2);
  CHECK_EQ(nd, sizeof in);
  CHECK_MEM(out, in, sizeof in);
}

/* Fixed-width records: each field a column, joined back by split_by_struct; odd widths go
** through byte planes. Round trips, misuse, and the golden records16 input (16-byte records)
** compressed smaller as four 32-bit fields than as bytes. */
TEST(zl, records) {
  static const uint32_t aLay[][6] = {{4, 4, 4, 4}, {8, 2, 2, 4}, {3, 5, 8}, {1}, {7}};
  static const int anLay[] = {4, 4, 3, 1, 1};
  size_t n = 16 * 2000, cap = cairn_zl_compress_bound(n + 64), nf, nd;
  uint8_t *a = cairn_malloc(n), *f = cairn_malloc(cap), *d = cairn_malloc(n);
  CHECK(a && f && d);
  for (size_t i = 0; i < n; i += 16) {
    cairnPutLE32(a + i, (uint32_t)(i / 16) * 3 + 1000);    /* id */
    cairnPutLE32(a + i + 4, (uint32_t)((i / 16) % 7));     /* category */
    cairnPutLE32(a + i + 8, (uint32_t)(i * 2654435761u));  /* noise */
    cairnPutLE32(a + i + 12, 0x40490fdbu + (uint32_t)(i % 5)); /* near-constant */
  }
  for (size_t l = 0; l < CAIRN_ARRAY_SIZE(anLay); l++) {
    size_t rec = 0;
    for (int k = 0; k < anLay[l]; k++) rec += aLay[l][k];
    size_t m = n / rec * rec;
    CHECK_OK(cairn_zl_compress_records(aLay[l], anLay[l], 3, a, m, f, cap, &nf));
    CHECK_OK(cairn_zl_decompress(f, nf, d, m, &nd));
    CHECK_EQ(nd, m);
    CHECK_MEM(d, a, m);
    if (m != n) { /* issue 21: a partial last record is kept as a tail */
      CHECK_OK(cairn_zl_compress_records(aLay[l], anLay[l], 3, a, m + 1, f, cap, &nf));
      CHECK_OK(cairn_zl_decompress(f, nf, d, m + 1, &nd));
      CHECK(nd == m + 1 && memcmp(d, a, m + 1) == 0);
    }
  }
  uint32_t bad[2] = {4, 0};
  CHECK_RC(cairn_zl_compress_records(bad, 2, 3, a, 16, f, cap, &nf), CAIRN_MISUSE);
  CHECK_RC(cairn_zl_compress_records(bad, 0, 3, a, 16, f, cap, &nf), CAIRN_MISUSE);
  cairn_free(a), cairn_free(f), cairn_free(d);
  size_t ni, nSer;
  uint8_t *in = readGolden("inputs/records16.bin", &ni);
  CHECK(in);
  cap = cairn_zl_compress_bound(ni);
  f = cairn_malloc(cap), d = cairn_malloc(ni);
  CHECK_OK(cairn_zl_compress_level(CAIRN_ZL_SERIAL, 3, in, ni, f, cap, &nSer));
  CHECK_OK(cairn_zl_compress_records(aLay[0], 4, 3, in, ni, f, cap, &nf));
  CHECK_OK(cairn_zl_decompress(f, nf, d, ni, &nd));
  CHECK_MEM(d, in, ni);
  tfWriteFile(tfTmp("zl/records16.rec.zl"), f, nf);
  printf("  records16.bin: serial %zu, records 4x4 bytes %zu\n", nSer, nf);
  CHECK(nf < nSer);
  cairn_free(in), cairn_free(f), cairn_free(d);
}

/* A prefix of few distinct 16-bit values (tokenize wins there) and a random tail (where tokens
** cost more than raw bytes): the frame still fits the bound, because the encoder falls back to
** plain bytes when the graph chosen on the prefix expands the segment. */
TEST(zl, bound_holds) {
  size_t n = 1 << 20, cap = cairn_zl_compress_bound(n), nf, nd;
  uint8_t *a = cairn_malloc(n), *f = cairn_malloc(cap), *d = cairn_malloc(n);
  CHECK(a && f && d);
  uint32_t x = 1;
  for (size_t i = 0; i < n; i += 2) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    cairnPutLE16(a + i, (uint16_t)(i < 65536 ? (x % 100) * 617 : x));
  }
  for (int prof = CAIRN_ZL_U8; prof <= CAIRN_ZL_CSV; prof++) {
    CHECK_OK(cairn_zl_compress_level(prof, 3, a, n, f, cap, &nf));
    CHECK(nf <= n + 64);
    CHECK_OK(cairn_zl_decompress(f, nf, d, n, &nd));
    CHECK_MEM(d, a, n);
  }
  cairn_free(a), cairn_free(f), cairn_free(d);
}

/* Hand-made frames (no checksums): one constant decoder. With its regenerated-stream distance in
** range it decodes; out of range, or a graph that leaves a stream unread, is CAIRN_CORRUPT with the
** chunk's offset in the message. */
TEST(zl, hostile_graphs) {
  /* magic v26, flags 0, 1 serial output of 5 bytes, then one chunk: 1 decoder, 1 stored stream */
  uint8_t fr[] = {0xda, 0xa5, 0xb1, 0xd7, 0x00, 0x01, 0x06,
                  0x02, 0x01,       /* nDecoders+1, nStored */
                  0x00,             /* standard/custom flags: standard */
                  44,               /* 7-bit ID: constant_serial */
                  0x01, 0x00,       /* header-size flag, varint(size-1) = 0 -> 1 byte */
                  0x00,             /* no variable inputs */
                  0x00,             /* one regenerated stream */
                  0x00,             /* distance (1 bit) */
                  0x01,             /* stored stream size */
                  0x05,             /* constant header: 5 elements */
                  'z',              /* the stored element */
                  0x00};            /* end of frame */
  uint8_t out[16];
  size_t nd;
  CHECK_OK(cairn_zl_decompress(fr, sizeof fr, out, sizeof out, &nd));
  CHECK_EQ(nd, 5);
  CHECK_MEM(out, "zzzzz", 5);
  fr[15] = 0x01; /* distance 1: the stream slot after the last one */
  CHECK_RC(cairn_zl_decompress(fr, sizeof fr, out, sizeof out, &nd), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "offset 7") != NULL);
  fr[15] = 0x00, fr[8] = 0x02; /* two stored streams declared: one is never read */
  CHECK_RC(cairn_zl_decompress(fr, sizeof fr, out, sizeof out, &nd), CAIRN_CORRUPT);
  fr[8] = 0x01, fr[17] = 0xff, fr[18] = 0xff; /* constant of a huge count (varint runs off its header) */
  CHECK_RC(cairn_zl_decompress(fr, sizeof fr, out, sizeof out, &nd), CAIRN_CORRUPT);
  fr[17] = 0x7f; /* 127 elements: more than the frame declares */
  CHECK_RC(cairn_zl_decompress(fr, sizeof fr, out, sizeof out, &nd), CAIRN_CORRUPT);
  fr[17] = 0x05, fr[10] = 127; /* unknown codec ID */
  CHECK_RC(cairn_zl_decompress(fr, sizeof fr, out, sizeof out, &nd), CAIRN_UNSUPPORTED);
  fr[10] = 44, fr[9] = 0x01; /* custom codec */
  CHECK_RC(cairn_zl_decompress(fr, sizeof fr, out, sizeof out, &nd), CAIRN_UNSUPPORTED);
}

/* Random walks of 16- and 32-bit integers that wrap around zero, of lengths that leave 1..7 values
** after the decoder's 16-byte vector blocks of delta: the round trip is exact, and the frames are
** small (below a third of the input), which only the delta graphs achieve on such walks. */
TEST(zl, delta_walks) {
  size_t nMax = 1100 * 4, cap = cairn_zl_compress_bound(nMax), nf, nd;
  uint8_t *a = cairn_malloc(nMax), *f = cairn_malloc(cap), *d = cairn_malloc(nMax);
  CHECK(a && f && d);
  static const size_t kN[] = {1000, 1001, 1003, 1005, 1007, 1099};
  for (unsigned w = 2; w <= 4; w += 2) {
    for (size_t t = 0; t < CAIRN_ARRAY_SIZE(kN); t++) {
      size_t n = kN[t];
      uint64_t v = (w == 2 ? 0xffffu : 0xffffffffu) - 300, x = 12345 + t;
      for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        v += (uint64_t)(x % 7) - 2; /* drifts upward through the wrap */
        cairnPutLEn(a + i * w, v, w);
      }
      for (int level = 3; level <= 19; level += 16) {
        CHECK_OK(cairn_zl_compress_level(w == 2 ? CAIRN_ZL_LE_U16 : CAIRN_ZL_LE_U32, level, a, n * w, f, cap, &nf));
        CHECK(nf < n * w / 3);
        CHECK_OK(cairn_zl_decompress(f, nf, d, n * w, &nd));
        CHECK_EQ(nd, n * w);
        CHECK_MEM(d, a, n * w);
      }
    }
  }
  cairn_free(a), cairn_free(f), cairn_free(d);
}

/* Dense byte planes at level 3 go through the Huffman stage (huffman_v2). High bytes drawn from
** a Fibonacci-like distribution (code lengths past the 11-bit limit, so the limiting runs) times
** 4 uniform values (4.5 bits), low bytes uniform: the frame must come out near the entropy bound (which
** zstd-less coding of the high plane reaches) and decode. 4 MiB of u32 with a dense plane: a
** plane of 512 KiB per segment codes as one stream (four would overflow the 16-bit jump table). */
TEST(zl, huffman_stage) {
  size_t n = 60000, cap = cairn_zl_compress_bound(4u << 20), nf, nd;
  uint8_t *a = cairn_malloc(4u << 20), *f = cairn_malloc(cap), *d = cairn_malloc(4u << 20);
  CHECK(a && f && d);
  uint32_t fib[16] = {1, 1};
  for (int k = 2; k < 16; k++) fib[k] = fib[k - 1] + fib[k - 2]; /* sum 2583 */
  uint64_t x = 99;
  double bits = 0;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    uint32_t r = (uint32_t)(x >> 20) % 2583, s = 15;
    while (r >= fib[s]) r -= fib[s], s--; /* s = 15 most likely */
    a[2 * i] = (uint8_t)x, a[2 * i + 1] = (uint8_t)(s * 4 + ((x >> 8) & 3));
  }
  for (int k = 0; k < 16; k++) bits -= (double)fib[k] / 2583 * __builtin_log2((double)fib[k] / 2583);
  CHECK_OK(cairn_zl_compress_level(CAIRN_ZL_LE_U16, 3, a, 2 * n, f, cap, &nf));
  CHECK(nf < (size_t)(n * (8 + bits + 2) / 8 * 1.02)); /* low plane stored, high plane near its entropy */
  CHECK_OK(cairn_zl_decompress(f, nf, d, 2 * n, &nd));
  CHECK_EQ(nd, 2 * n);
  CHECK_MEM(d, a, 2 * n);
  /* one-stream planes: byte 1 a sum of four 3-bit values (~4.3 bits), bytes 0 and 2-3 */
  size_t m = (4u << 20) / 4;
  for (size_t i = 0; i < m; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    int g = (int)((x >> 8) & 7) + (int)((x >> 11) & 7) + (int)((x >> 14) & 7) + (int)((x >> 17) & 7) - 14;
    cairnPutLE32(a + 4 * i, (uint32_t)(x >> 56) | (uint32_t)(uint8_t)(g * 2) << 8 | (uint32_t)(i / 1000 & 255) << 16);
  }
  CHECK_OK(cairn_zl_compress_level(CAIRN_ZL_LE_U32, 3, a, 4 * m, f, cap, &nf));
  CHECK(nf < 4 * m * 6 / 10);
  CHECK_OK(cairn_zl_decompress(f, nf, d, 4 * m, &nd));
  CHECK_EQ(nd, 4 * m);
  CHECK_MEM(d, a, 4 * m);
  /* a sampled signal (golden input): its smooth exponent/mantissa plane goes through delta +
  ** Huffman at levels 1-3 */
  size_t ns;
  uint8_t *sig = readGolden("inputs/f32_signal.bin", &ns);
  CHECK(sig && ns <= (4u << 20));
  for (int level = 1; level <= 3; level++) {
    CHECK_OK(cairn_zl_compress_level(CAIRN_ZL_LE_U32, level, sig, ns, f, cap, &nf));
    CHECK(nf < ns * 65 / 100);
    CHECK_OK(cairn_zl_decompress(f, nf, d, ns, &nd));
    CHECK_EQ(nd, ns);
    CHECK_MEM(d, sig, ns);
  }
  cairn_free(sig);
  cairn_free(a), cairn_free(f), cairn_free(d);
}

/* CSV with integer and categorical columns: every digit count of 64-bit integers (both signs, both ends of the
** range), fields that look like integers but are not what parse_int writes back ("007", "-0",
** "+5", "", "-"), quoted fields, a ragged row, adjacent integer columns, with and without a final
** newline. Round trips exactly at fast and ratio levels; a table of counters and regular
** 8-digit timestamps (integers as numbers, differences constant) compresses to a small fraction
** of its text, which only the numeric graph achieves. */
TEST(zl, csv_integers) {
  size_t cap0 = 1 << 20, n = 0, nf, nd;
  char *a = cairn_malloc(cap0);
  uint8_t *f = cairn_malloc(cairn_zl_compress_bound(cap0)), *d = cairn_malloc(cap0);
  CHECK(a && f && d);
  static const char *kOdd[] = {"007", "-0", "+5", "", "-", "1e3", "\"4,2\"", "00", "x"};
  /* and text columns of few distinct strings (tokenized: 1- and 2-byte indices, strings longer
  ** than the decoder's 32-byte blocks) */
  static const char *kName[] = {"ann", "bo", "a name of more than thirty-two bytes, quoted", "", "dee", "e", "fay"};
  uint64_t x = 99;
  n += (size_t)cairnFormat(a + n, cap0 - n, "id,v,w,ts,name,cat\n");
  for (int i = 0; i < 3000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    int64_t v = (i / 20) % 2 ? INT64_MIN : INT64_MAX;
    int dg = i % 20; /* 1..19 digits, the extremes at 16; 3 in 4 short (the column stays numbers) */
    if (dg != 16) {
      uint64_t p10 = 1;
      for (int k = 0; k < dg && k < 18; k++) p10 *= 10;
      v = (int64_t)(p10 + (x >> 8) % ((dg < 18 ? 9 : 8) * p10)); /* dg + 1 digits (19 at most) */
      if (x & 1) v = -v;
      if (i % 4) v = (int64_t)(x % 1000) - 500;
    }
    if (i % 11 == 5) n += (size_t)cairnFormat(a + n, cap0 - n, "%lld,%s,%d,%lld\n", (long long)i, kOdd[i % 9], -i, 1700000000ll + 17 * i);
    else if (i % 97 == 3) n += (size_t)cairnFormat(a + n, cap0 - n, "%lld,%lld\n", (long long)i, (long long)v); /* ragged */
    else
      n += (size_t)cairnFormat(a + n, cap0 - n, "%lld,%lld,%d,%lld,%s,c%d\n", (long long)i, (long long)v, -i, 1700000000ll + 17 * i,
                               kName[(x >> 20) % 7], (int)((x >> 30) % 300));
  }
  CHECK(n > 100000 && n < cap0 - 200);
  for (int bare = 0; bare < 2; bare++) {
    size_t m = n - bare; /* bare: no final newline */
    for (int level = 1; level <= 19; level += 9) {
      CHECK_OK(cairn_zl_compress_level(CAIRN_ZL_CSV, level, a, m, f, cairn_zl_compress_bound(m), &nf));
      CHECK_OK(cairn_zl_decompress(f, nf, d, m, &nd));
      CHECK_EQ(nd, m);
      CHECK_MEM(d, a, m);
    }
  }
  /* counters and 8-digit timestamps: 3000 rows of ~14 bytes */
  n = (size_t)cairnFormat(a, cap0, "n,ts\n");
  for (int i = 0; i < 3000; i++) n += (size_t)cairnFormat(a + n, cap0 - n, "%d,%lld\n", i, 17000000ll + 17 * i);
  CHECK_OK(cairn_zl_compress(CAIRN_ZL_CSV, a, n, f, cairn_zl_compress_bound(n), &nf));
  CHECK(nf < 400);
  CHECK_OK(cairn_zl_decompress(f, nf, d, n, &nd));
  CHECK_EQ(nd, n);
  CHECK_MEM(d, a, n);
  cairn_free(a), cairn_free(f), cairn_free(d);
}

/* The decoder writes parse_int's and tokenize_string's strings straight into dispatch_string's
** output (fused); flag 2 of cairnZlDecodeFrame decodes every stream unfused. Both must give the
** input back on many generated tables: integer, categorical (1- and 2-byte indices, strings
** longer than 32 bytes, quoted with commas and newlines inside), decimal and empty columns,
** ragged rows, with and without a final newline, from one row (the whole output within the
** last 32 bytes of the caller's buffer) to thousands, at fast and ratio levels. */
/* Compress the csv a[0..m) at level, then decode it fused (flags 0) and unfused (flag bit 2) into
** d1/d2 (m + 1 bytes each): both must give the input and write nothing past it. */
static void csvFusedCheck(const char *a, size_t m, int level, uint8_t *f, uint8_t *d1, uint8_t *d2) {
  size_t nf, nd1, nd2, nFr;
  CHECK_OK(cairn_zl_compress_level(CAIRN_ZL_CSV, level, a, m, f, cairn_zl_compress_bound(m), &nf));
  memset(d1, 0xee, m + 1), memset(d2, 0xee, m + 1);
  CHECK_OK(cairnZlDecodeFrame(f, nf, d1, m, &nd1, &nFr, 0));
  CHECK_OK(cairnZlDecodeFrame(f, nf, d2, m, &nd2, &nFr, 2));
  CHECK_EQ(nd1, m);
  CHECK_EQ(nd2, m);
  CHECK_MEM(d1, a, m);
  CHECK_MEM(d2, a, m);
  CHECK_EQ(d1[m], 0xee); /* nothing written past the output */
}

TEST(zl, csv_fused_equals_unfused) {
  size_t cap0 = 1 << 19;
  char *a = cairn_malloc(cap0);
  uint8_t *f = cairn_malloc(cairn_zl_compress_bound(cap0)), *d1 = cairn_malloc(cap0 + 1), *d2 = cairn_malloc(cap0 + 1);
  CHECK(a && f && d1 && d2);
  static const char *kCat[] = {"ann", "bo", "\"quoted, with a comma\"", "", "\"two\nlines\"", "a category name longer than thirty-two bytes"};
  uint64_t x = 12345;
#define RND() (x ^= x << 13, x ^= x >> 7, x ^= x << 17, x)
  static const int kRows[] = {1, 2, 3, 7, 40, 300, 2500, 6000};
  for (int t = 0; t < 16; t++) {
    int rows = kRows[t % 8], nCat = 2 + (int)(RND() % 4) + (t >= 8 ? 300 : 0); /* t >= 8: 2-byte indices */
    size_t n = (size_t)cairnFormat(a, cap0, "id,cat,v,x,e\n");
    for (int i = 0; i < rows && n < cap0 - 400; i++) {
      uint64_t r = RND();
      int c = (int)(r % (uint64_t)nCat);
      char cat[64];
      if (c < 6) cairnFormat(cat, sizeof cat, "%s", kCat[c]);
      else cairnFormat(cat, sizeof cat, "k%d", c);
      long long v = (long long)(r >> 8) % (r & 1 ? 1000 : 100000000000ll) - (r & 2 ? 500 : 0);
      if (r % 53 == 7) n += (size_t)cairnFormat(a + n, cap0 - n, "%d,%s\n", i, cat); /* ragged */
      else if (r % 29 == 3) n += (size_t)cairnFormat(a + n, cap0 - n, "%d,%s,%s,,\n", i, cat, r & 4 ? "007" : "-");
      else
        n += (size_t)cairnFormat(a + n, cap0 - n, "%d,%s,%lld,%d.%d,\n", i, cat, v, (int)(r >> 40) % 100, (int)(r >> 50) % 10);
    }
    for (int bare = 0; bare < 2; bare++) {
      for (int level = 1; level <= 10; level += 9) csvFusedCheck(a, n - bare, level, f, d1, d2);
    }
  }
#undef RND
  cairn_free(a), cairn_free(f), cairn_free(d1), cairn_free(d2);
}

/* Fused, dispatch_string writes a number whose sign and digits but the last 4 (or 2) match the
** last number of its column written in full by copying that one and rewriting those digits.
** Runs of numbers across every edge of that: carries into a new digit (9->10, 99->100,
** 999->1000, 9999->10000, 99999999->100000000, 999999999->1000000000), negatives crossing
** -1000, -10000 and zero, zero and negative steps, the int64 extremes, a sign flip with the same
** digits, mixed widths; in several columns, at fast and ratio levels, fused must equal unfused
** and the input. */
TEST(zl, csv_fused_digit_runs) {
  static const struct {
    int64_t start, step;
    int count;
  } kRun[] = {{0, 1, 120},
              {9990, 1, 30},
              {99999990, 1, 20},
              {999999990, 1, 20},
              {9999999990, 3, 20},
              {-10020, 1, 40},
              {-5, 1, 12},
              {1700000000, 0, 30},
              {1700000500, -17, 70},
              {INT64_MAX - 40, 1, 41},
              {INT64_MIN + 40, -1, 41},
              {123456789, 10000, 30},
              {99990000, 9999, 25},
              {-99999990, -1, 20},
              {10000, -1, 5},
              {990, 1, 20},
              {-1010, 1, 25},
              {-150, 50, 8}};
  size_t cap0 = 1 << 19;
  char *a = cairn_malloc(cap0);
  uint8_t *f = cairn_malloc(cairn_zl_compress_bound(cap0)), *d1 = cairn_malloc(cap0 + 1), *d2 = cairn_malloc(cap0 + 1);
  CHECK(a && f && d1 && d2);
  for (int t = 0; t < 3; t++) {
    size_t n = (size_t)cairnFormat(a, cap0, "a,b,c\n");
    int i = 0;
    for (int rep = 0; rep <= t; rep++)
      for (size_t r = 0; r < sizeof kRun / sizeof kRun[0]; r++)
        for (int k = 0; k < kRun[r].count; k++, i++) {
          int64_t v = kRun[r].start + kRun[r].step * k;
          int64_t w = i % 7 == 3 ? -v / 2 : v / 2;                                   /* a sign flip now and then */
          int64_t x = i % 5 ? 1234567890123ll + 17 * i : (i % 2 ? 12345 + i : -12345 - i); /* widths change */
          n += (size_t)cairnFormat(a + n, cap0 - n, "%lld,%lld,%lld\n", (long long)v, (long long)w, (long long)x);
        }
    CHECK(n < cap0 - 100);
    for (int level = 1; level <= 10; level += 9) csvFusedCheck(a, n, level, f, d1, d2);
  }
  cairn_free(a), cairn_free(f), cairn_free(d1), cairn_free(d2);
}

/* Tables of one row shape (dispatch_string's periodic tags, sent as one repeated period): all
** numbers (the separators' source at several positions of a row), numbers and text, 10-digit
** numbers, a first line of another shape, a last row cut short; decoded fused and unfused. */
TEST(zl, csv_periodic_rows) {
  size_t cap0 = 1 << 18;
  char *a = cairn_malloc(cap0);
  uint8_t *f = cairn_malloc(cairn_zl_compress_bound(cap0)), *d1 = cairn_malloc(cap0 + 1), *d2 = cairn_malloc(cap0 + 1);
  CHECK(a && f && d1 && d2);
  static const int kRows[] = {20, 100, 513, 3000};
  for (int t = 0; t < 12; t++) {
    size_t n = t % 3 ? (size_t)cairnFormat(a, cap0, "a,b,c,d\n") : 0;
    for (int i = 0; i < kRows[t % 4]; i++) {
      if (t % 3 == 0) n += (size_t)cairnFormat(a + n, cap0 - n, "%d,%d,%d\n", i, 7 * i - 100, i % 13);
      else if (t % 3 == 1) n += (size_t)cairnFormat(a + n, cap0 - n, "%d,%s,%d.%d,%lld\r\n", i, i % 3 ? "x" : "yy", i % 97, i % 10, 1700000000ll + 17 * i);
      else n += (size_t)cairnFormat(a + n, cap0 - n, "%lld,%d,,q\n", 9000000000ll - 3 * i, i);
    }
    size_t cut[] = {n, n - 1, n - 3};
    for (int k = 0; k < 3; k++)
      for (int level = 1; level <= 19; level += 18) csvFusedCheck(a, cut[k], level, f, d1, d2);
  }
  cairn_free(a), cairn_free(f), cairn_free(d1), cairn_free(d2);
}

/* A hand-made frame whose output is parse_int's strings themselves: one stored 8-byte integer,
** struct_to_serial(8), constant_fixed(n), num_to_struct, parse_int, serial_string. The strings
** land in the caller's buffer (no slack past its end): whole-word stores must stop short of it,
** for outputs above and below 32 bytes. */
TEST(zl, parse_int_into_callers_buffer) {
  for (int n = 1; n <= 5; n += 4) {
    size_t nOut = 14 * (size_t)n; /* "-1234567890123" */
    uint8_t fr[] = {0xda, 0xa5, 0xb1, 0xd7, 0x00, 0x01, (uint8_t)(nOut + 1),
                    0x06, 0x01,                   /* 5 decoders (+1), 1 stored stream */
                    0x00,                         /* standard codecs */
                    0x86, 0x16, 0x82, 0xb7, 0x00, /* IDs 6, 45, 8, 60, 11 (7 bits each) */
                    0x03, 0x00, 0x00,             /* header flags: the first two, 1 byte each */
                    0x00, 0x00,                   /* no variable inputs, one regenerated stream each */
                    0x00, 0x00,                   /* distances (3 bits each): 0 */
                    0x08,                         /* stored stream size */
                    0x08, (uint8_t)n,             /* headers: struct width 8, constant count */
                    0x35, 0xfb, 0x04, 0x8e, 0xe0, 0xfe, 0xff, 0xff, /* -1234567890123 */
                    0x00};
    uint8_t out[80], want[80];
    size_t nd;
    for (int i = 0; i < n; i++) memcpy(want + 14 * i, "-1234567890123", 14);
    memset(out, 0xee, sizeof out);
    CHECK_OK(cairn_zl_decompress(fr, sizeof fr, out, nOut, &nd));
    CHECK_EQ(nd, nOut);
    CHECK_MEM(out, want, nOut);
    CHECK_EQ(out[nOut], 0xee); /* nothing written past the output */
  }
}

/* One reusable decompression context over many frames: golden frames (zstd, Huffman and csv
** stages), cairn frames of several profiles and levels, and in between corrupt, truncated and
** too-large-for-the-buffer ones. Every call gives what cairn_zl_decompress gives for the same
** frame: the same output, or the same error code and message; an error leaves the context
** usable for the next frame. Twice over, in two orders. */
TEST(zl, dctx_many_frames) {
  enum { NMAX = 160 };
  uint8_t *aF[NMAX];
  size_t anF[NMAX], anOut[NMAX];
  int nF = 0;
  Golden g[40];
  int ng = readManifest(g, 40);
  CHECK(ng >= 20);
  uint64_t rng = 0x2545F4914F6CDD1Dull;
  for (int i = 0; i < ng && nF + 4 <= NMAX; i++) {
    size_t nf, ni;
    uint8_t *f = readGolden(g[i].zFrame, &nf), *in = readGolden(g[i].zInput, &ni);
    CHECK(f && in);
    /* the golden frame, cairn's level-3 and default frames of its input, and a corrupt copy */
    aF[nF] = f, anF[nF] = nf, anOut[nF++] = ni;
    int prof = cairn_zl_profile_from_name(g[i].zProfile);
    for (int level = 3; level <= 19; level += 16) {
      size_t cap = cairn_zl_compress_bound(ni), nc = 0;
      uint8_t *c = cairn_malloc(cap);
      CHECK(c);
      CHECK_OK(cairn_zl_compress_level(prof, level, in, ni, c, cap, &nc));
      aF[nF] = c, anF[nF] = nc, anOut[nF++] = ni;
    }
    uint8_t *m = cairn_malloc(nf + 1);
    CHECK(m);
    memcpy(m, f, nf);
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    if (nf > 8) m[8 + rng % (nf - 8)] ^= (uint8_t)(1u << (rng >> 61));
    size_t cut = i % 3 == 0 ? nf - nf / 3 : nf; /* some truncated as well */
    aF[nF] = m, anF[nF] = cut, anOut[nF++] = i % 5 == 1 && ni ? ni - 1 : ni; /* some with a short buffer */
    cairn_free(in);
  }
  CHECK(nF >= 80);
  cairn_zl_dctx *x = cairn_zl_dctx_create();
  CHECK(x);
  size_t nMax = 0;
  for (int i = 0; i < nF; i++) nMax = anOut[i] > nMax ? anOut[i] : nMax;
  uint8_t *o1 = cairn_malloc(nMax + 1), *o2 = cairn_malloc(nMax + 1);
  char zErr[512];
  int nErr = 0, nOk = 0;
  for (int pass = 0; pass < 4; pass++) {
    for (int k = 0; k < nF; k++) {
      int i = pass & 1 ? nF - 1 - k : k;
      size_t n1 = 7, n2 = 9;
      int rc1 = cairn_zl_decompress(aF[i], anF[i], o1, anOut[i], &n1);
      cairnFormat(zErr, sizeof zErr, "%s", rc1 ? cairn_errmsg() : "");
      int rc2 = cairn_zl_decompress_dctx(x, aF[i], anF[i], o2, anOut[i], &n2);
      CHECK_EQ(rc2, rc1);
      if (rc1 == CAIRN_OK) {
        CHECK_EQ(n2, n1);
        CHECK_MEM(o2, o1, n1);
        nOk++;
      } else {
        CHECK_STR(cairn_errmsg(), zErr);
        nErr++;
      }
    }
  }
  CHECK(nOk > 2 * nF && nErr > nF / 2); /* both kinds exercised */
  CHECK_RC(cairn_zl_decompress_dctx(x, NULL, 4, o1, 4, &nMax), CAIRN_MISUSE);
  cairn_zl_dctx_free(x);
  cairn_zl_dctx_free(NULL);
  for (int i = 0; i < nF; i++) cairn_free(aF[i]);
  cairn_free(o1), cairn_free(o2);
}
