/* 2026-11-29 - the chunk store: round trips and range reads (memory and file), dedup numbers,
** compression, the catalog, transactions, corruption detection, and reopening. Crash safety is
** in test_cas_crash.c. */
#include <stdlib.h>

#include "cas/cas_int.h"
#include "tf.h"
#include "oom.h"

/* Small chunks so tests see many of them. */
static cairn_cas_config smallCfg(int codec) {
  cairn_cas_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.chunking.nMin = 1024;
  cfg.chunking.nAvg = 4096;
  cfg.chunking.nMax = 16384;
  cfg.chunking.level = 2;
  cfg.codec = codec;
  return cfg;
}

static void fillText(uint8_t *p, size_t n, uint64_t seed) {
  static const char *w[] = {"chunk ", "store ", "cairn ", "payload ", "agent ", "memory ", "hash "};
  uint64_t x = seed + 1;
  size_t i = 0;
  while (i < n) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const char *z = w[(x >> 33) % 7];
    while (*z && i < n) p[i++] = (uint8_t)*z++;
  }
}

TEST(cas, crc32c_and_ids) {
  CHECK(cairnCrc32c(0, "123456789", 9) == 0xe3069283u);
  uint8_t id[32], id2[32];
  char z[65];
  for (int i = 0; i < 32; i++) id[i] = (uint8_t)(i * 37);
  cairn_cas_id_hex(id, z);
  CHECK_EQ(strlen(z), 64);
  CHECK_OK(cairn_cas_id_parse(z, id2));
  CHECK_MEM(id, id2, 32);
  z[3] = 'G';
  CHECK_RC(cairn_cas_id_parse(z, id2), CAIRN_MISUSE);
  CHECK_RC(cairn_cas_id_parse("abc", id2), CAIRN_MISUSE);
}

/* Every byte range of a payload reads back verified. */
static void checkRanges(cairn_cas *cas, const uint8_t *id, const uint8_t *a, size_t n, uint64_t seed) {
  uint8_t *b = cairn_malloc(n + 16);
  size_t nGot;
  uint64_t sz;
  CHECK_OK(cairn_cas_stat(cas, id, &sz));
  CHECK_EQ(sz, n);
  CHECK_OK(cairn_cas_read(cas, id, 0, b, n + 16, &nGot));
  CHECK_EQ(nGot, n);
  CHECK_MEM(a, b, n);
  cairn_cas_payload *pl;
  CHECK_OK(cairn_cas_payload_open(cas, id, &pl));
  CHECK_EQ(cairn_cas_payload_size(pl), n);
  uint64_t x = seed * 2654435761u + 7;
  for (int i = 0; i < 200 && n > 0; i++) {
    x = x * 6364136223846793005ull + 1;
    size_t i0 = (size_t)((x >> 20) % n), k = (size_t)((x >> 40) % (n - i0 + 1));
    CHECK_OK(cairn_cas_payload_read(pl, i0, b, k, &nGot));
    CHECK_EQ(nGot, k);
    CHECK_MEM(a + i0, b, k);
  }
  CHECK_OK(cairn_cas_payload_read(pl, n + 5, b, 10, &nGot)); /* past the end: nothing */
  CHECK_EQ(nGot, 0);
  cairn_cas_payload_close(pl);
  cairn_free(b);
}

TEST(cas, memory_roundtrip) {
  cairn_cas *cas;
  cairn_cas_config cfg = smallCfg(0);
  CHECK_OK(cairn_cas_open_memory(&cfg, &cas));
  size_t aN[] = {0, 1, 63, 1024, 1025, 5000, 100000, 777777};
  uint8_t *a = cairn_malloc(777777);
  uint8_t ids[8][32];
  for (int i = 0; i < 8; i++) {
    if (i & 1) tfFillRandom(a, aN[i], (uint64_t)i);
    else fillText(a, aN[i], (uint64_t)i);
    CHECK_OK(cairn_cas_put(cas, a, aN[i], ids[i]));
    checkRanges(cas, ids[i], a, aN[i], (uint64_t)i);
    /* Same bytes, same ID; and the ID is deterministic across stores. */
    uint8_t id2[32];
    CHECK_OK(cairn_cas_put(cas, a, aN[i], id2));
    CHECK_MEM(ids[i], id2, 32);
  }
  CHECK_EQ(cairn_cas_count(cas), 8);
  /* The empty payload is a payload. */
  uint64_t sz = 99;
  CHECK_OK(cairn_cas_stat(cas, ids[0], &sz));
  CHECK_EQ(sz, 0);
  uint8_t bogus[32] = {1, 2, 3};
  CHECK_RC(cairn_cas_stat(cas, bogus, &sz), CAIRN_NOTFOUND);
  CHECK_RC(cairn_cas_read(cas, bogus, 0, a, 1, NULL), CAIRN_NOTFOUND);
  /* Earlier payloads still read after later ones. */
  tfFillRandom(a, 777777, 7);
  checkRanges(cas, ids[7], a, 777777, 9);
  CHECK_OK(cairn_cas_close(cas));
  cairn_free(a);
}

/* The streaming writer and put_file give the same ID as put, whatever the piece sizes. */
TEST(cas, writer_matches_put) {
  cairn_cas *cas;
  cairn_cas_config cfg = smallCfg(0);
  CHECK_OK(cairn_cas_open_memory(&cfg, &cas));
  size_t n = 3 << 20;
  uint8_t *a = cairn_malloc(n);
  fillText(a, n / 2, 3);
  tfFillRandom(a + n / 2, n - n / 2, 4);
  uint8_t id[32], id2[32], id3[32];
  CHECK_OK(cairn_cas_put(cas, a, n, id));
  cairn_cas_writer *w;
  CHECK_OK(cairn_cas_writer_open(cas, &w));
  uint64_t x = 5;
  for (size_t i = 0; i < n;) {
    x = x * 6364136223846793005ull + 1;
    size_t k = CAIRN_MIN(n - i, (size_t)(x >> 45));
    CHECK_OK(cairn_cas_writer_write(w, a + i, k));
    i += k;
  }
  CHECK_OK(cairn_cas_writer_finish(w, id2));
  CHECK_MEM(id, id2, 32);
  cairn_file *in;
  CHECK_OK(cairn_memfile_open(a, n, &in));
  CHECK_OK(cairn_cas_put_file(cas, in, NULL, NULL, id3));
  cairn_file_close(in);
  CHECK_MEM(id, id3, 32);
  CHECK_EQ(cairn_cas_count(cas), 1);
  /* get_file writes the range out. */
  cairn_file *out;
  CHECK_OK(cairn_memfile_open("stale", 5, &out));
  CHECK_OK(cairn_cas_get_file(cas, id, 1000, 2000000, out, NULL, NULL));
  const uint8_t *p;
  size_t np;
  CHECK_OK(cairn_memfile_data(out, &p, &np));
  CHECK_EQ(np, 2000000 - 1000);
  CHECK_MEM(p, a + 1000, np);
  CHECK_OK(cairn_cas_get_file(cas, id, 0, UINT64_MAX, out, NULL, NULL));
  CHECK_OK(cairn_memfile_data(out, &p, &np));
  CHECK_EQ(np, n);
  CHECK_MEM(p, a, n);
  CHECK_RC(cairn_cas_get_file(cas, id, 10, 5, out, NULL, NULL), CAIRN_RANGE);
  cairn_file_close(out);
  cairn_cas_writer_abort(NULL);
  CHECK_OK(cairn_cas_writer_open(cas, &w));
  CHECK_OK(cairn_cas_writer_write(w, a, 12345));
  cairn_cas_writer_abort(w);
  CHECK_EQ(cairn_cas_count(cas), 1);
  CHECK_OK(cairn_cas_close(cas));
  cairn_free(a);
}

/* Issue 5's dedup numbers, with the default chunk sizes: re-publishing 32 MiB adds nothing;
** a one-byte edit in the middle adds the chunk or two around it plus a manifest. */
TEST(cas, dedup_numbers) {
  cairn_cas *cas;
  CHECK_OK(cairn_cas_open_memory(NULL, &cas));
  size_t n = 32 << 20;
  uint8_t *a = cairn_malloc(n);
  tfFillRandom(a, n, 2026);
  uint8_t id[32], id2[32], id3[32];
  cairn_cas_stats s0, s1, s2, s3;
  CHECK_OK(cairn_cas_get_stats(cas, &s0));
  CHECK_OK(cairn_cas_put(cas, a, n, id));
  CHECK_OK(cairn_cas_get_stats(cas, &s1));
  CHECK(s1.nChunk >= 16 && s1.nChunk <= 64);
  CHECK_OK(cairn_cas_put(cas, a, n, id2));
  CHECK_OK(cairn_cas_get_stats(cas, &s2));
  CHECK_MEM(id, id2, 32);
  CHECK_EQ(s2.nChunk, s1.nChunk);
  CHECK_EQ(s2.nFileBytes, s1.nFileBytes); /* not one byte, metadata included */
  a[n / 2] ^= 1;
  CHECK_OK(cairn_cas_put(cas, a, n, id3));
  CHECK_OK(cairn_cas_get_stats(cas, &s3));
  CHECK(memcmp(id, id3, 32) != 0);
  uint64_t nNew = s3.nChunk - s2.nChunk, nAdded = s3.nFileBytes - s2.nFileBytes;
  CHECK(nNew >= 1 && nNew <= 2);
  /* Bytes added = the new chunk(s) + their record headers + one manifest + one commit. */
  uint64_t nNewRaw = s3.nRawBytes - s2.nRawBytes;
  CHECK(nAdded > nNewRaw && nAdded < nNewRaw + 4096);
  printf("    dedup: 32 MiB in %llu chunks (%llu bytes of store); again: +0 bytes; one byte changed: +%llu chunk(s), "
         "+%llu bytes (%llu of chunk data, %llu of metadata)\n",
         (unsigned long long)s1.nChunk, (unsigned long long)(s1.nFileBytes - s0.nFileBytes), (unsigned long long)nNew,
         (unsigned long long)nAdded, (unsigned long long)nNewRaw, (unsigned long long)(nAdded - nNewRaw));
  checkRanges(cas, id3, a, n, 1);
  a[n / 2] ^= 1;
  checkRanges(cas, id, a, n, 2);
  CHECK_OK(cairn_cas_close(cas));
  cairn_free(a);
}

TEST(cas, compression) {
  int aCodec[] = {CAIRN_ZSTD, CAIRN_DEFLATE};
  for (int ic = 0; ic < 2; ic++) {
    cairn_cas *cas;
    cairn_cas_config cfg = smallCfg(aCodec[ic]);
    CHECK_OK(cairn_cas_open_memory(&cfg, &cas));
    size_t n = 500000;
    uint8_t *a = cairn_malloc(n), id[32], idR[32];
    fillText(a, n, 11);
    cairn_cas_stats s;
    CHECK_OK(cairn_cas_put(cas, a, n, id));
    CHECK_OK(cairn_cas_get_stats(cas, &s));
    CHECK_EQ(s.nRawBytes, n);
    CHECK(s.nStoredBytes < n / 2); /* text shrinks */
    checkRanges(cas, id, a, n, 3);
    /* Random bytes do not shrink: stored raw, so stored == raw for them. */
    uint8_t *r = cairn_malloc(n);
    tfFillRandom(r, n, 12);
    cairn_cas_stats s2;
    CHECK_OK(cairn_cas_put(cas, r, n, idR));
    CHECK_OK(cairn_cas_get_stats(cas, &s2));
    CHECK_EQ(s2.nStoredBytes - s.nStoredBytes, n);
    checkRanges(cas, idR, r, n, 4);
    /* The ID does not depend on how chunks are stored. */
    cairn_cas *plain;
    cairn_cas_config cfg0 = smallCfg(0);
    uint8_t id0[32];
    CHECK_OK(cairn_cas_open_memory(&cfg0, &plain));
    CHECK_OK(cairn_cas_put(plain, a, n, id0));
    CHECK_MEM(id, id0, 32);
    CHECK_OK(cairn_cas_close(plain));
    CHECK_OK(cairn_cas_close(cas));
    cairn_free(a);
    cairn_free(r);
  }
  cairn_cas *cas;
  cairn_cas_config bad = smallCfg(CAIRN_GZIP);
  CHECK_RC(cairn_cas_open_memory(&bad, &cas), CAIRN_MISUSE);
}

TEST(cas, catalog) {
  const char *zPath = tfTmp("cas_catalog.cas");
  remove(zPath);
  cairn_cas *cas;
  cairn_cas_config cfg = smallCfg(0);
  CHECK_OK(cairn_cas_open(zPath, &cfg, &cas));
  uint8_t idA[32], idB[32], id[32];
  CHECK_OK(cairn_cas_put(cas, "alpha", 5, idA));
  CHECK_OK(cairn_cas_put(cas, "beta!", 5, idB));
  CHECK_OK(cairn_cas_name_set(cas, "notes/a.txt", idA));
  CHECK_OK(cairn_cas_name_set(cas, "b", idB));
  CHECK_OK(cairn_cas_name_get(cas, "notes/a.txt", id));
  CHECK_MEM(id, idA, 32);
  CHECK_OK(cairn_cas_name_set(cas, "notes/a.txt", idB)); /* re-bind */
  CHECK_OK(cairn_cas_name_get(cas, "notes/a.txt", id));
  CHECK_MEM(id, idB, 32);
  CHECK_OK(cairn_cas_name_delete(cas, "b"));
  CHECK_RC(cairn_cas_name_get(cas, "b", id), CAIRN_NOTFOUND);
  CHECK_RC(cairn_cas_name_delete(cas, "b"), CAIRN_NOTFOUND);
  uint8_t bogus[32] = {9};
  CHECK_RC(cairn_cas_name_set(cas, "x", bogus), CAIRN_NOTFOUND);
  CHECK_RC(cairn_cas_name_set(cas, "", idA), CAIRN_MISUSE);
  CHECK_OK(cairn_cas_close(cas));
  /* Everything survives a reopen, read-only too. */
  cfg.readonly = 1;
  CHECK_OK(cairn_cas_open(zPath, &cfg, &cas));
  CHECK_EQ(cairn_cas_count(cas), 2);
  CHECK_OK(cairn_cas_name_get(cas, "notes/a.txt", id));
  CHECK_MEM(id, idB, 32);
  CHECK_RC(cairn_cas_name_get(cas, "b", id), CAIRN_NOTFOUND);
  cairn_cas_entry e;
  int seenNamed = 0;
  for (size_t i = 0; i < cairn_cas_count(cas); i++) {
    CHECK_OK(cairn_cas_entry_at(cas, i, &e));
    CHECK_EQ(e.nSize, 5);
    if (memcmp(e.aId, idB, 32) == 0) {
      CHECK_STR(e.zName, "notes/a.txt");
      seenNamed++;
    } else {
      CHECK(e.zName == NULL);
    }
  }
  CHECK_EQ(seenNamed, 1);
  CHECK_RC(cairn_cas_entry_at(cas, 2, &e), CAIRN_RANGE);
  CHECK_RC(cairn_cas_put(cas, "x", 1, id), CAIRN_READONLY);
  cairn_cas_stats st;
  CHECK_OK(cairn_cas_get_stats(cas, &st));
  CHECK_EQ(st.nName, 1);
  CHECK_EQ(st.chunking.nAvg, 4096);
  CHECK_OK(cairn_cas_close(cas));
}

/* Many small payloads in one transaction; rollback; sticky errors. */
TEST(cas, transactions) {
  const char *zPath = tfTmp("cas_txn.cas");
  remove(zPath);
  cairn_cas *cas;
  cairn_cas_config cfg = smallCfg(0);
  CHECK_OK(cairn_cas_open(zPath, &cfg, &cas));
  uint8_t a[256], id[32], ids[500][32];
  CHECK_OK(cairn_cas_begin(cas));
  CHECK_RC(cairn_cas_begin(cas), CAIRN_MISUSE);
  for (int i = 0; i < 500; i++) {
    tfFillRandom(a, sizeof a, (uint64_t)i);
    CHECK_OK(cairn_cas_put(cas, a, sizeof a, ids[i]));
  }
  char zName[32];
  snprintf(zName, sizeof zName, "obj-%d", 7);
  CHECK_OK(cairn_cas_name_set(cas, zName, ids[7]));
  /* Visible to this handle before commit. */
  uint8_t b[256];
  CHECK_OK(cairn_cas_read(cas, ids[499], 0, b, sizeof b, NULL));
  tfFillRandom(a, sizeof a, 499);
  CHECK_MEM(a, b, sizeof a);
  cairn_cas_stats s0;
  CHECK_OK(cairn_cas_get_stats(cas, &s0));
  CHECK_EQ(s0.nFileBytes, 64); /* nothing committed yet */
  CHECK_OK(cairn_cas_commit(cas));
  CHECK_RC(cairn_cas_commit(cas), CAIRN_MISUSE);
  /* A rolled-back transaction leaves no trace. */
  CHECK_OK(cairn_cas_get_stats(cas, &s0));
  CHECK_OK(cairn_cas_begin(cas));
  CHECK_OK(cairn_cas_put(cas, "temporary", 9, id));
  CHECK_OK(cairn_cas_stat(cas, id, NULL));
  CHECK_OK(cairn_cas_rollback(cas));
  CHECK_RC(cairn_cas_stat(cas, id, NULL), CAIRN_NOTFOUND);
  cairn_cas_stats s1;
  CHECK_OK(cairn_cas_get_stats(cas, &s1));
  CHECK_EQ(s1.nFileBytes, s0.nFileBytes);
  CHECK_EQ(s1.nPayload, 500);
  CHECK_OK(cairn_cas_close(cas));
  CHECK_OK(cairn_cas_open(zPath, &cfg, &cas));
  CHECK_EQ(cairn_cas_count(cas), 500);
  CHECK_OK(cairn_cas_name_get(cas, "obj-7", id));
  CHECK_MEM(id, ids[7], 32);
  for (int i = 0; i < 500; i += 37) {
    tfFillRandom(a, sizeof a, (uint64_t)i);
    CHECK_OK(cairn_cas_read(cas, ids[i], 0, b, sizeof b, NULL));
    CHECK_MEM(a, b, sizeof a);
  }
  /* A transaction left open at close is rolled back. */
  CHECK_OK(cairn_cas_begin(cas));
  CHECK_OK(cairn_cas_put(cas, "never committed", 15, id));
  CHECK_OK(cairn_cas_close(cas));
  CHECK_OK(cairn_cas_open(zPath, &cfg, &cas));
  CHECK_RC(cairn_cas_stat(cas, id, NULL), CAIRN_NOTFOUND);
  CHECK_EQ(cairn_cas_verify(cas, NULL, NULL, NULL, NULL, NULL), CAIRN_OK);
  CHECK_OK(cairn_cas_close(cas));
}

/* Flip one byte of a chunk in the file: reads of that chunk fail naming it, never wrong
** bytes; other chunks still read; verify reports it. */
typedef struct Problems {
  int n;
  char zFirst[512];
} Problems;
static void onProblem(void *p, const char *z) {
  Problems *pr = p;
  if (pr->n++ == 0) snprintf(pr->zFirst, sizeof pr->zFirst, "%s", z);
}

TEST(cas, corruption_detected) {
  for (int codec = 0; codec <= CAIRN_ZSTD; codec += CAIRN_ZSTD) {
    cairn_cas *cas;
    cairn_cas_config cfg = smallCfg(codec);
    CHECK_OK(cairn_cas_open_memory(&cfg, &cas));
    size_t n = 200000;
    uint8_t *a = cairn_malloc(n), *b = cairn_malloc(n), id[32];
    fillText(a, n / 2, 5);
    tfFillRandom(a + n / 2, n - n / 2, 5);
    CHECK_OK(cairn_cas_put(cas, a, n, id));
    /* Find the chunk that holds payload byte 150000 and damage one of its stored bytes. */
    cairn_cas_payload *pl;
    CHECK_OK(cairn_cas_payload_open(cas, id, &pl));
    cairn_cas_payload_close(pl);
    cairn_chunk *ak;
    size_t nk, nUsed;
    cairn_cas_stats st;
    CHECK_OK(cairn_cas_get_stats(cas, &st));
    CHECK_OK(cairn_fastcdc_prepare(&st.chunking, a, n, 1, &ak, &nk, &nUsed));
    size_t ik = 0;
    while (ak[ik].iOff + ak[ik].n <= 150000) ik++;
    char zHex[65];
    cairn_hex(ak[ik].aHash, 32, zHex);
    const uint8_t *pFile;
    size_t nFile;
    cairn_file *f = cairn_cas_file(cas);
    CHECK_OK(cairn_cas_memory_data(cas, &pFile, &nFile));
    /* Locate the record by its hash in the file bytes. */
    size_t at = 0;
    for (size_t i = 64; i + 32 <= nFile; i++)
      if (memcmp(pFile + i, ak[ik].aHash, 32) == 0 && cairnGetLE32(pFile + i - 16) == (0xCA5E0000u | 1)) {
        at = i + 40 + 10; /* ten bytes into the stored data */
        break;
      }
    CHECK(at > 0);
    uint8_t x = pFile[at] ^ 0x40;
    CHECK_OK(cairn_file_write(f, &x, 1, at));
    memset(b, 0xAA, n);
    size_t nGot = 7;
    int rc = cairn_cas_read(cas, id, 0, b, n, &nGot);
    CHECK_EQ(rc, CAIRN_CHECKSUM);
    CHECK(strstr(cairn_errmsg(), zHex) != NULL);
    CHECK_EQ(nGot, 0);
    for (size_t i = 0; i < n; i++) CHECK(b[i] == 0); /* nothing unverified handed out */
    /* A range that avoids the chunk reads fine; one that touches it fails. */
    if (ak[ik].iOff > 0) {
      CHECK_OK(cairn_cas_read(cas, id, 0, b, (size_t)ak[ik].iOff, &nGot));
      CHECK_MEM(a, b, (size_t)ak[ik].iOff);
    }
    CHECK_RC(cairn_cas_read(cas, id, ak[ik].iOff + ak[ik].n - 1, b, 1, &nGot), CAIRN_CHECKSUM);
    Problems pr = {0, ""};
    uint64_t nBad = 0;
    CHECK_RC(cairn_cas_verify(cas, NULL, NULL, onProblem, &pr, &nBad), CAIRN_CHECKSUM);
    CHECK_EQ(nBad, 1);
    CHECK_EQ(pr.n, 1);
    CHECK(strstr(pr.zFirst, zHex) != NULL);
    cairn_free(ak);
    CHECK_OK(cairn_cas_close(cas));
    cairn_free(a);
    cairn_free(b);
  }
}

/* A store file cut at every length reopens as a prefix of its commits, or fails cleanly. */
TEST(cas, truncated_store_reopens) {
  cairn_cas *cas;
  cairn_cas_config cfg = smallCfg(CAIRN_ZSTD);
  CHECK_OK(cairn_cas_open_memory(&cfg, &cas));
  uint8_t a[20000], id[3][32];
  for (int i = 0; i < 3; i++) {
    fillText(a, sizeof a, (uint64_t)i);
    tfFillRandom(a + 5000 * i, 3000, (uint64_t)i);
    CHECK_OK(cairn_cas_put(cas, a, sizeof a, id[i]));
    CHECK_OK(cairn_cas_name_set(cas, i ? "one" : "zero", id[i]));
  }
  const uint8_t *p;
  size_t n;
  CHECK_OK(cairn_cas_memory_data(cas, &p, &n));
  uint8_t *img = cairn_malloc(n);
  memcpy(img, p, n);
  CHECK_OK(cairn_cas_close(cas));
  int nPrev = 0;
  for (size_t k = 0; k <= n; k += (k < 200 ? 1 : 7)) {
    cairn_file *f;
    CHECK_OK(cairn_memfile_open(img, k, &f));
    cairn_cas_config ro = cfg;
    ro.readonly = 1;
    int rc = cairn_cas_open_file(f, &ro, &cas);
    if (k < 64) {
      CHECK(rc != CAIRN_OK);
      continue;
    }
    CHECK_OK(rc);
    int nHave = (int)cairn_cas_count(cas);
    CHECK(nHave >= nPrev); /* longer prefixes never lose payloads */
    nPrev = nHave;
    CHECK_OK(cairn_cas_verify(cas, NULL, NULL, NULL, NULL, NULL));
    for (int i = 0; i < nHave; i++) CHECK_OK(cairn_cas_stat(cas, id[i], NULL));
    cairn_cas_close(cas);
  }
  CHECK_EQ(nPrev, 3);
  cairn_free(img);
}

/* Garbage after the last commit is cut when the store is opened for writing. */
TEST(cas, tail_garbage) {
  const char *zPath = tfTmp("cas_tail.cas");
  remove(zPath);
  cairn_cas *cas;
  cairn_cas_config cfg = smallCfg(0);
  uint8_t id[32], id2[32];
  CHECK_OK(cairn_cas_open(zPath, &cfg, &cas));
  CHECK_OK(cairn_cas_put(cas, "payload one", 11, id));
  cairn_cas_stats s;
  CHECK_OK(cairn_cas_get_stats(cas, &s));
  CHECK_OK(cairn_cas_close(cas));
  cairn_file *f;
  CHECK_OK(cairn_open(zPath, CAIRN_OPEN_READWRITE, &f));
  uint8_t junk[3000];
  tfFillRandom(junk, sizeof junk, 77);
  CHECK_OK(cairn_file_write(f, junk, sizeof junk, s.nFileBytes));
  cairn_file_close(f);
  CHECK_OK(cairn_cas_open(zPath, &cfg, &cas));
  CHECK_OK(cairn_cas_put(cas, "payload two", 11, id2));
  CHECK_OK(cairn_cas_close(cas));
  CHECK_OK(cairn_cas_open(zPath, &cfg, &cas));
  CHECK_EQ(cairn_cas_count(cas), 2);
  CHECK_OK(cairn_cas_verify(cas, NULL, NULL, NULL, NULL, NULL));
  CHECK_OK(cairn_cas_close(cas));
  /* Not a store: a clear error, the file untouched. */
  CHECK_OK(tfWriteFile(tfTmp("cas_not.cas"), junk, sizeof junk));
  CHECK_RC(cairn_cas_open(tfTmp("cas_not.cas"), &cfg, &cas), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "not a cairn store") != NULL);
  size_t nJ;
  uint8_t *pJ = tfReadFile(tfTmp("cas_not.cas"), &nJ);
  CHECK(pJ && nJ == sizeof junk && memcmp(pJ, junk, nJ) == 0);
  cairn_free(pJ);
}

/* Out of memory at every allocation of a put into a file store: a clean error, and the
** store still opens with what was committed before. */
TEST(cas, out_of_memory) {
  cairn_cas_config cfg = smallCfg(CAIRN_ZSTD);
  size_t n = 60000;
  uint8_t *a = malloc(n), id[32], idOk[32];
  fillText(a, n, 8);
  cairn_host saved = *cairn_host_get();
  int nDone = 0;
  for (int k = 0; k < 400 && !nDone; k++) {
    cairn_file *f;
    cairn_cas *cas;
    CHECK_OK(cairn_memfile_open(NULL, 0, &f));
    CHECK_OK(cairn_cas_open_file(f, &cfg, &cas));
    CHECK_OK(cairn_cas_put(cas, "before", 6, idOk));
    cairn_host h = saved;
    oomHooks(&h);
    h.xParallelFor = NULL; /* deterministic allocation order */
    cairn_host_set(&h);
    oomArm(OOM_FOREVER, k);
    int rc = cairn_cas_put(cas, a, n, id);
    cairn_host_set(&saved);
    if (rc == CAIRN_OK) nDone = 1;
    else CHECK_EQ(CAIRN_PRIMARY(rc), CAIRN_NOMEM);
    CHECK_OK(cairn_cas_verify(cas, NULL, NULL, NULL, NULL, NULL));
    CHECK_OK(cairn_cas_stat(cas, idOk, NULL));
    if (rc) CHECK_RC(cairn_cas_stat(cas, id, NULL), CAIRN_NOTFOUND);
    CHECK_OK(cairn_cas_close(cas));
  }
  CHECK(nDone);
  free(a);
}

/*
** A memory store places new chunks straight into its buffer (in parallel on two workers, the
** test host's pool); the records must be byte for byte what the file path writes, repeated
** chunks within one put stored once, and the image must reopen as a store that verifies.
*/
TEST(cas, memory_placement_matches_file) {
  for (int codec = 0; codec <= CAIRN_ZSTD; codec += CAIRN_ZSTD) {
    cairn_cas_config cfg = smallCfg(codec);
    size_t n = 3 << 20, nPart = 256 << 10;
    uint8_t *a = cairn_malloc(n), *b = cairn_malloc(n), id[32], id2[32];
    /* Random and text parts, and the first part repeated at the end: in-batch duplicates. */
    for (size_t i = 0; i + nPart <= n; i += nPart) {
      if ((i / nPart) & 1) fillText(a + i, nPart, i);
      else tfFillRandom(a + i, nPart, i + 1);
    }
    memcpy(a + n - nPart, a, nPart);
    cairn_cas *mem, *fil;
    cairn_file *f;
    CHECK_OK(cairn_cas_open_memory(&cfg, &mem));
    CHECK_OK(cairn_memfile_open(NULL, 0, &f));
    cairn_cas_config cfgF = cfg;
    cfgF.noSync = 1;
    CHECK_OK(cairn_cas_open_file(f, &cfgF, &fil));
    CHECK_OK(cairn_cas_put(mem, a, n, id));
    CHECK_OK(cairn_cas_put(fil, a, n, id2));
    CHECK_MEM(id, id2, 32);
    cairn_cas_stats sm, sf;
    CHECK_OK(cairn_cas_get_stats(mem, &sm));
    CHECK_OK(cairn_cas_get_stats(fil, &sf));
    CHECK_EQ(sm.nChunk, sf.nChunk);
    CHECK_EQ(sm.nStoredBytes, sf.nStoredBytes);
    cairn_cas_entry e;
    CHECK_OK(cairn_cas_entry_at(mem, 0, &e));
    CHECK(sm.nChunk < e.nChunk); /* the repeated part added no chunk */
    if (codec) CHECK(sm.nStoredBytes < sm.nRawBytes);
    /* Same records up to the manifest (which, like the commit, carries a time). */
    const uint8_t *pm, *pf;
    size_t nm, nf;
    CHECK_OK(cairn_cas_memory_data(mem, &pm, &nm));
    CHECK_OK(cairn_memfile_data(cairn_cas_file(fil), &pf, &nf));
    CHECK_EQ(nm, nf);
    size_t nTail = 16 + 64 + 36 * (size_t)e.nChunk + 2 * (16 + 32); /* manifest, commit and its copy */
    CHECK(nm > nTail);
    CHECK_MEM(pm, pf, nm - nTail);
    /* The image reopens as a store that verifies and reads back. */
    cairn_file *g;
    CHECK_OK(cairn_memfile_open(pm, nm, &g));
    cairn_cas *back;
    cairn_cas_config ro = cfg;
    ro.readonly = 1;
    CHECK_OK(cairn_cas_open_file(g, &ro, &back));
    uint64_t nBad = 1;
    CHECK_OK(cairn_cas_verify(back, NULL, NULL, NULL, NULL, &nBad));
    CHECK_EQ(nBad, 0);
    size_t nGot = 0;
    CHECK_OK(cairn_cas_read(back, id, 0, b, n, &nGot));
    CHECK_EQ(nGot, n);
    CHECK_MEM(a, b, n);
    CHECK_OK(cairn_cas_close(back));
    /* Publishing again adds nothing; a transaction rolled back leaves the image as it was. */
    CHECK_OK(cairn_cas_put(mem, a, n, id2));
    size_t nm2;
    CHECK_OK(cairn_cas_memory_data(mem, &pm, &nm2));
    CHECK_EQ(nm2, nm);
    CHECK_OK(cairn_cas_begin(mem));
    tfFillRandom(a, nPart, 99);
    CHECK_OK(cairn_cas_put(mem, a, n, id2));
    CHECK_OK(cairn_cas_rollback(mem));
    CHECK_OK(cairn_cas_memory_data(mem, &pm, &nm2));
    CHECK_EQ(nm2, nm);
    CHECK_RC(cairn_cas_stat(mem, id2, NULL), CAIRN_NOTFOUND);
    CHECK_OK(cairn_cas_verify(mem, NULL, NULL, NULL, NULL, &nBad));
    CHECK_RC(cairn_cas_memory_data(fil, &pm, &nm2), CAIRN_MISUSE);
    CHECK_OK(cairn_cas_close(mem));
    CHECK_OK(cairn_cas_close(fil));
    cairn_free(a);
    cairn_free(b);
  }
}
