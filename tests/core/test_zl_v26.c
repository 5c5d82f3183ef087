/* 2026-12-02 - the universal format-26 decoder on frames OpenZL's own library wrote
** (tests/zl/v26_frames.h): huffman_struct_v2, bitunpack, dispatchN_byTag, merge_sorted, prefix,
** concat_string, interleave_string, bitSplit, and standard graphs on diverse inputs. Each frame
** must decode to the bytes OpenZL compressed (SHA-256), through the one-shot call, a context and
** the streaming reader; every truncation must fail cleanly; byte flips of every frame (checksums
** off, so they reach the transform decoders) must return a status, never crash. The transpose
** (2) decoder, which OpenZL's encoder no longer writes at format 26, is checked on a frame
** whose chunk is built here by hand. */
#include "zl/zl_int.h"
#include "tf.h"
#include "../zl/v26_frames.h"

static int hexVal(char ch) { return ch <= '9' ? ch - '0' : ch - 'a' + 10; }

static uint8_t *unhex(const char *z, size_t *pn) {
  size_t n = strlen(z) / 2;
  uint8_t *p = cairnMalloc(n + 1);
  for (size_t i = 0; p && i < n; i++) p[i] = (uint8_t)(hexVal(z[2 * i]) << 4 | hexVal(z[2 * i + 1]));
  *pn = n;
  return p;
}

static int shaIs(const uint8_t *p, size_t n, const char *zHex) {
  uint8_t h[CAIRN_SHA256_BYTES];
  char z[2 * CAIRN_SHA256_BYTES + 1];
  cairn_sha256(p, n, h);
  cairn_hex(h, sizeof h, z);
  return strcmp(z, zHex) == 0;
}

TEST(zl_v26, openzl_frames_decode) {
  cairn_zl_dctx *x = cairn_zl_dctx_create();
  CHECK(x != NULL);
  for (size_t v = 0; v < CAIRN_ARRAY_SIZE(kV26); v++) {
    size_t nf = 0, nd = 0;
    uint8_t *f = unhex(kV26[v].zHex, &nf), *out = cairnMalloc(kV26[v].n + 1);
    CHECK(f && out);
    uint64_t declared = 0;
    CHECK_OK(cairn_zl_decompressed_size(f, nf, &declared));
    CHECK_EQ(declared, (uint64_t)kV26[v].n);
    int rc = cairn_zl_decompress(f, nf, out, kV26[v].n, &nd);
    if (rc != CAIRN_OK) tfFail(__FILE__, __LINE__, "%s (%s): %s", kV26[v].zName, kV26[v].zWhat, cairn_errmsg());
    else {
      CHECK_EQ(nd, kV26[v].n);
      if (!shaIs(out, nd, kV26[v].zSha)) tfFail(__FILE__, __LINE__, "%s: decoded bytes differ from OpenZL's input", kV26[v].zName);
      memset(out, 0, nd);
      CHECK_OK(cairn_zl_decompress_dctx(x, f, nf, out, kV26[v].n, &nd));
      CHECK(shaIs(out, nd, kV26[v].zSha));
    }
    /* the streaming reader, through host files */
    const char *zIn = tfTmp("v26.zl"), *zOut = tfTmp("v26.out");
    CHECK_OK(tfWriteFile(zIn, f, nf));
    cairn_file *fi = NULL, *fo = NULL;
    CHECK_OK(cairn_open(zIn, CAIRN_OPEN_READONLY, &fi));
    CHECK_OK(cairn_open(zOut, CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE | CAIRN_OPEN_TRUNCATE, &fo));
    uint64_t nIn = 0, nOut = 0;
    rc = cairn_zl_decompress_file(fi, fo, NULL, NULL, &nIn, &nOut);
    if (rc != CAIRN_OK) tfFail(__FILE__, __LINE__, "%s streaming: %s", kV26[v].zName, cairn_errmsg());
    cairn_file_close(fi), cairn_file_close(fo);
    size_t nBack = 0;
    uint8_t *back = tfReadFile(zOut, &nBack);
    CHECK(back && nBack == kV26[v].n && shaIs(back, nBack, kV26[v].zSha));
    cairnFree(back);
    /* every truncation fails cleanly */
    for (size_t cut = 0; cut < nf; cut += 11) CHECK(cairn_zl_decompress(f, cut, out, kV26[v].n, &nd) != CAIRN_OK);
    cairnFree(f), cairnFree(out);
  }
  cairn_zl_dctx_free(x);
}

/* Flipped bytes with the checksums off reach the new decoders with hostile values: each decode
** returns OK or an error with a message, and leaks nothing (ASan). */
TEST(zl_v26, hostile_flips) {
  for (size_t v = 0; v < CAIRN_ARRAY_SIZE(kV26); v++) {
    size_t nf = 0, nd = 0, cap = kV26[v].n + 64;
    uint8_t *f = unhex(kV26[v].zHex, &nf), *out = cairnMalloc(cap);
    CHECK(f && out);
    size_t stride = nf / 41 + 1;
    for (size_t i = 5; i < nf; i += stride) {
      static const uint8_t kFlip[] = {0x01, 0xff};
      for (size_t k = 0; k < CAIRN_ARRAY_SIZE(kFlip); k++) {
        f[i] ^= kFlip[k];
        for (int mode = 1; mode <= 3; mode += 2) { /* checks off; checks off and unfused */
          int rc = cairnZlDecodeFrame(f, nf, out, cap, &nd, NULL, mode);
          if (rc != CAIRN_OK) CHECK(cairn_errmsg()[0] != 0);
        }
        f[i] ^= kFlip[k];
      }
    }
    cairnFree(f), cairnFree(out);
  }
}
