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

/* A frame of three typed outputs OpenZL wrote (ZL_CCtx_compressMultiTypedRef, generic graph,
** level 6): serial text, 500 u64 numbers, 600 strings. */
static const char kMulti3[] =
    "daa5b1d70383039910a11fcc0dd8042f1f0f000000001603c2c250281406168bc56259148184451148581481040183b0"
    "00e2bf9909000000000001010101010000000000000100000004070000000000100424c7711c04411004004003008002"
    "00c0410082002397010000000001010101011e2014cf040102020202f403f403f403f403f40300e500680000f4030160"
    "5801e500004002030203030203020700b264500128001220388fa71200ad6780050160cb058504009651210be06d8094"
    "c8eeee9d8dc3011d001d001d00b4c4f1d116d7515726af9ae4e1b4613e3eb6ccd1cfb6b97adca519c3011177a32ba65b"
    "53064ef5c8c2c13ed9b8d831b79b5d33f5dea421a67b02312f9ae29935c8f7d42207bfdae4e26177662f9be6e9bc81be"
    "3eb7d001444f2c437db12d75c8e556974cbc3667e864cf2c1dee9badcb1d7403010019af71fc6b0a0000018bcf0160f3"
    "00bd000028000100010005000283a10010287411a45020211ec7060160f300cd00002003040304078020f7ada2e33294"
    "39a0c0c6a1205ad205d8010160f3006d000010eadd0300de3015a4c443706c0160180745120026e74913a015a439e80c"
    "00206e69c9cadeb2a3d569b502470046004000e5cc164518c14b0c0dded18635c938658f520c112e6106215ed08e35a4"
    "39c696428c281ec210c7235ab08c349cd9a294b1f08961e11d6d5841324ed9292d46090f0203c040804094629cf03b86"
    "235ed08c35a439c5965286113761b0e30d2d58462a67b628c298173154f08e36ac49c6296b946290703a06225ed08c35"
    "a439c596328c213ec230c71b5ab08c14dd7a75ead3dba547bf877eb2c925933c726591435e0ef2c516574cf1c48d258e"
    "f838c46dd7f4dce5f8f017b67085293ce186251ce112433878471bd624e394adc1c7bbedae9beeb97bcb1df777b8cf36"
    "bb6cb2c7ae2d76d8dbc1bedaeaaaa99ebab5d4515f87fa68a38b267ae8d242073d1de89b6dae99e6993bcb1cf373982f"
    "80c7a81010035763c0a2110ae9011010e22cde4fecc43431267809518249241239a2469c2224c20e8110298801a21f96"
    "0fe8c179d00ea94373181c7e83d8203590869a2132540c07835e3017b085b0b02ba4c24a4128d80932214b280933c289"
    "801004087e503da883e6e0369006960130c80bd2822a581460029540222804fbc00efc0634036a0114480984401f7006"
    "a800438003340136011c0760c5ff7fdd7fadf7ff3aff5adfff75fdb5cb7f06f82bddbff5cbf9377ef9feb6afaefff415"
    "9ebf5bbe040e843a84013086a054669118ea0280592499c02084b6003a561980073d20cf3489441293500c80cb3c9e12"
    "04742813c0661249bcc003126cf1dc17fc3620500200b04c33428308dd06e80def2f1a62a6ea95f9927dc9404f019db6"
    "a567aa97409500";

TEST(zl_v26, multi_output_frame) {
  size_t nf = 0;
  uint8_t *f = unhex(kMulti3, &nf);
  cairn_zl_output *a = NULL;
  unsigned n = 0;
  CHECK(f != NULL);
  int rc = cairn_zl_decompress_multi(f, nf, &a, &n);
  if (rc) tfFail(__FILE__, __LINE__, "multi: %s", cairn_errmsg());
  else {
    CHECK_EQ(n, 3u);
    CHECK(a[0].type == 1 && a[0].nb == 2072 && shaIs(a[0].p, a[0].nb, "7315dad00f5b558f7d787272fa722b0bff419db54b87c954bc7ed3524af822ab"));
    CHECK(a[1].type == 4 && a[1].width == 8 && a[1].n == 500 && shaIs(a[1].p, a[1].nb, "200e9a6602e971c99248c0413c6d79a9e0d9d2469449947a3cb0995bcd9a25da"));
    CHECK(a[2].type == 8 && a[2].n == 600 && shaIs(a[2].p, a[2].nb, "7df5871498d0a7dbf273b53c866a41ae9491d800a393427b341ad64a5b75d3e6"));
    CHECK(a[2].aLen && shaIs((const uint8_t *)a[2].aLen, 4 * 600, "3172459f0c22ac9a609c3d35e98a5fd4a3fa6cd147555421ed9db6efe6779d9c"));
    cairn_zl_outputs_free(a, n);
  }
  /* the one-output call says where to go */
  uint8_t tiny[16];
  size_t nd = 0;
  CHECK_RC(cairn_zl_decompress(f, nf, tiny, sizeof tiny, &nd), CAIRN_UNSUPPORTED);
  CHECK(strstr(cairn_errmsg(), "3 outputs") != NULL);
  char *z = NULL;
  CHECK_OK(cairn_zl_info(f, nf, 1, &z, NULL));
  CHECK(z && strstr(z, "\"type\":\"string\",\"bytes\":1739,\"strings\":600") && strstr(z, "separate_string_components") && !strstr(z, "error"));
  cairn_free(z);
  for (size_t cut = 0; cut < nf; cut += 5) {
    a = NULL;
    CHECK(cairn_zl_decompress_multi(f, cut, &a, &n) != CAIRN_OK && a == NULL);
  }
  cairnFree(f);
}

TEST(zl_v26, info_and_dictionary) {
  size_t nf = 0;
  uint8_t *f = unhex(kV26[0].zHex, &nf); /* huffman_struct_v2 */
  char *z = NULL;
  size_t nz = 0;
  CHECK_OK(cairn_zl_info(f, nf, 1, &z, &nz));
  CHECK(z && nz == strlen(z) && strstr(z, "\"codec\":51,\"name\":\"huffman_struct_v2\"") && strstr(z, "\"format\":26"));
  cairn_free(z);
  CHECK_OK(cairn_zl_info(f, nf, 0, &z, NULL));
  CHECK(z && strstr(z, "huffman_struct_v2 (51)") && strstr(z, "frame output"));
  cairn_free(z);
  /* the same frame naming dictionary bundle 0a0b0c: flag bit 3, the ID after the flags, the
  ** header check byte redone */
  uint8_t *g = cairnMalloc(nf + 4);
  CHECK(g != NULL);
  size_t nh = 0;
  {
    size_t k = 5;
    uint64_t v;
    k++;                                   /* inputs token */
    k += zlVarGet(f + k, f + nf, &v);      /* size */
    nh = k;                                /* check byte at f[nh] */
  }
  memcpy(g, f, 5);
  g[4] |= 8;
  g[5] = 3, g[6] = 0x0a, g[7] = 0x0b, g[8] = 0x0c;
  memcpy(g + 9, f + 5, nh - 5);
  g[nh + 4] = (uint8_t)cairnXxh3(g, nh + 4);
  memcpy(g + nh + 5, f + nh + 1, nf - nh - 1);
  uint8_t *out = cairnMalloc(kV26[0].n);
  size_t nd = 0;
  CHECK_RC(cairn_zl_decompress(g, nf + 4, out, kV26[0].n, &nd), CAIRN_UNSUPPORTED);
  CHECK(strstr(cairn_errmsg(), "dictionary bundle 0a0b0c") != NULL);
  cairn_zl_output *a = NULL;
  unsigned n = 0;
  CHECK_RC(cairn_zl_decompress_multi(g, nf + 4, &a, &n), CAIRN_UNSUPPORTED);
  CHECK_OK(cairn_zl_info(g, nf + 4, 1, &z, NULL));
  CHECK(z && strstr(z, "\"dictionary_bundle\":\"0a0b0c\""));
  cairn_free(z);
  cairnFree(f), cairnFree(g), cairnFree(out);
}

/* Named graphs: each round-trips on any length, for every profile; fse and field_lz are refused. */
TEST(zl_v26, named_graphs) {
  static uint8_t a[3001], f[8192], d[3001];
  for (size_t i = 0; i < sizeof a; i++) a[i] = (uint8_t)("0123456789,abc\n"[(i * 7 + i / 13) % 15]);
  for (int g = CAIRN_ZL_GRAPH_STORE; g <= CAIRN_ZL_GRAPH_BITPACK; g++)
    for (int prof = CAIRN_ZL_SERIAL; prof <= CAIRN_ZL_LE_I64; prof++) {
      size_t nf = 0, nd = 0;
      int rc = cairn_zl_compress_graph(prof, g, 3, a, sizeof a, f, sizeof f, &nf);
      if (g == CAIRN_ZL_GRAPH_FSE || g == CAIRN_ZL_GRAPH_FIELD_LZ) {
        CHECK_RC(rc, CAIRN_UNSUPPORTED);
        continue;
      }
      if (rc) {
        tfFail(__FILE__, __LINE__, "graph %s, profile %s: %s", cairn_zl_graph_name(g), cairn_zl_profile_name(prof), cairn_errmsg());
        continue;
      }
      CHECK_OK(cairn_zl_decompress(f, nf, d, sizeof d, &nd));
      CHECK(nd == sizeof a && memcmp(d, a, nd) == 0);
    }
  CHECK_EQ(cairn_zl_graph_from_name("flatpack"), CAIRN_ZL_GRAPH_FLATPACK);
  CHECK_EQ(cairn_zl_graph_from_name("nope"), -1);
  size_t nf;
  CHECK_RC(cairn_zl_compress_graph(CAIRN_ZL_SERIAL, 99, 3, a, 10, f, sizeof f, &nf), CAIRN_MISUSE);
}
