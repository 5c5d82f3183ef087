/* 2026-12-02 - the BM25 index persisted in the store's HDF5 file (core/mem/bm25_store.c): an
** open after a checkpoint reads it instead of tokenizing the texts, and answers exactly as an
** index built from the same adds; an index that is damaged (a flipped bit in its chunk, or one
** that passes the chunk's Fletcher-32 and only the blob's own checks can catch) is rebuilt from
** the texts, with the same answers, and verify calls it index damage, not lost memories. */
#include <stdlib.h>

#include "cairn/mem.h"
#include "h5/format.h"
#include "mem/mem_int.h"
#include "tf.h"

#define NROW 240
static const char *const azWord[] = {"lisbon", "cello", "biscuit", "kyoto", "ryokan", "vaccine", "nurse", "april",
                                     "blossom", "scales", "puppy", "trip", "booster", "sister", "case", "morning"};
static const char *const azRole[] = {"ana", "bruno", "carla", "user"};
static const char *const azQuery[] = {"what did bruno say about kyoto", "cello scales morning", "biscuit vaccine booster",
                                      "carla", "lisbon nurse sister", "ryokan april blossom trip"};

static int addRow(cairn_mem *m, int i) {
  char z[160];
  cairnFormat(z, sizeof z, "note %d: the %s and the %s, then %s %s", i, azWord[i % 16], azWord[(i * 7 + 3) % 16],
              azWord[(i * 5 + 1) % 16], i % 3 ? "again" : "once more");
  cairn_mem_record r;
  memset(&r, 0, sizeof r);
  r.zText = z, r.zRole = azRole[i % 4], r.zSession = i % 2 ? "s1" : "s2";
  r.createdMs = r.eventMs = 1700000000000 + (int64_t)i * 1000;
  return cairn_mem_add(m, &r, NULL);
}

/* BM25 top-10 of every query equal (ids and scores) in a and b; 0 if so. */
static int sameAnswers(cairn_mem *a, cairn_mem *b) {
  for (size_t qi = 0; qi < CAIRN_ARRAY_SIZE(azQuery); qi++) {
    cairn_mem_query q;
    memset(&q, 0, sizeof q);
    q.zText = azQuery[qi], q.mode = CAIRN_MEM_BM25, q.k = 10;
    cairn_mem_hit h1[10], h2[10];
    uint32_t n1 = 0, n2 = 0;
    if (cairn_mem_search(a, &q, h1, &n1) || cairn_mem_search(b, &q, h2, &n2)) return -1;
    if (n1 != n2 || n1 == 0) return 1;
    for (uint32_t i = 0; i < n1; i++)
      if (h1[i].id != h2[i].id || h1[i].score != h2[i].score) return 1;
  }
  return 0;
}

static int bm25Read(cairn_mem *m) {
  cairn_mem_stats st;
  cairn_mem_stats_get(m, &st);
  return st.bm25Read;
}

static int openCopy(const uint8_t *p, size_t n, cairn_mem **pm) {
  cairn_file *g;
  int rc = cairn_memfile_open(p, n, &g);
  if (rc) return rc;
  cairn_mem_config ro;
  memset(&ro, 0, sizeof ro);
  ro.readOnly = 1;
  return cairn_mem_open_file(g, &ro, pm); /* owns g, also on failure */
}

/* A store in a memory file (checkpoints only when asked) and its reference: the same adds in
** memory only, whose index is always built from the texts. */
static int openPair(cairn_mem_config *pCfg, cairn_file **pf, cairn_mem **pm, cairn_mem **pRef) {
  memset(pCfg, 0, sizeof *pCfg);
  pCfg->dim = 16, pCfg->noSync = 1, pCfg->checkpointEvery = UINT32_MAX;
  int rc = cairn_memfile_open(NULL, 0, pf);
  if (!rc) rc = cairn_mem_open_file(*pf, pCfg, pm);
  if (!rc) rc = cairn_mem_open(NULL, pCfg, pRef);
  return rc;
}

TEST(membm25, persisted_index_read) {
  cairn_file *f;
  cairn_mem *m, *ref, *m2;
  cairn_mem_config cfg;
  CHECK_OK(openPair(&cfg, &f, &m, &ref));
  for (int i = 0; i < NROW; i++) {
    CHECK_OK(addRow(m, i));
    CHECK_OK(addRow(ref, i));
  }
  CHECK_OK(cairn_mem_checkpoint(m));
  for (int i = NROW; i < NROW + 20; i++) {
    CHECK_OK(addRow(m, i));
    CHECK_OK(addRow(ref, i));
  } /* in the log */
  CHECK_OK(cairn_mem_commit(m));
  const uint8_t *p;
  size_t n;
  CHECK_OK(cairn_memfile_data(f, &p, &n));
  CHECK_OK(openCopy(p, n, &m2));
  CHECK_EQ(bm25Read(m2), 1);
  CHECK_EQ(sameAnswers(m2, ref), 0);
  /* the role is in the persisted index: a query naming only the speaker finds their turns */
  cairn_mem_query q;
  memset(&q, 0, sizeof q);
  q.zText = "carla", q.mode = CAIRN_MEM_BM25, q.k = 5;
  cairn_mem_hit h[5];
  uint32_t nh = 0;
  CHECK_OK(cairn_mem_search(m2, &q, h, &nh));
  CHECK_EQ(nh, 5);
  for (uint32_t i = 0; i < nh; i++) CHECK_EQ((h[i].id - 1) % 4, 2);
  cairn_mem_close(m2);
  /* forgetting rewrites the file: the index written then holds only what is left */
  for (uint64_t id = 3; id <= NROW; id += 9) {
    CHECK_OK(cairn_mem_delete(m, id));
    CHECK_OK(cairn_mem_delete(ref, id));
  }
  CHECK_OK(cairn_mem_checkpoint(m));
  CHECK_OK(cairn_memfile_data(f, &p, &n));
  CHECK_OK(openCopy(p, n, &m2));
  CHECK_EQ(bm25Read(m2), 1);
  CHECK_EQ(sameAnswers(m2, ref), 0);
  CHECK_EQ(sameAnswers(m, ref), 0);
  cairn_mem_close(m2);
  /* a store with a log only (never checkpointed) builds it: nothing to read */
  cairn_file *g;
  CHECK_OK(cairn_memfile_open(NULL, 0, &g));
  CHECK_OK(cairn_mem_open_file(g, &cfg, &m2));
  for (int i = 0; i < 30; i++) CHECK_OK(addRow(m2, i));
  CHECK_OK(cairn_mem_commit(m2));
  cairn_mem_close(m2);
  cairn_mem_close(ref);
  cairn_mem_close(m);
}

/* Where the blob's chunk is in the image: the magic at the start of the first chunk (the blob
** is smaller than one chunk here), with its Fletcher-32 after nChunk bytes. */
static size_t findBlob(const uint8_t *p, size_t n) {
  for (size_t i = 0; i + 8 <= n; i++)
    if (!memcmp(p + i, "CAIRNBM1", 8)) return i;
  return SIZE_MAX;
}

TEST(membm25, damaged_index_rebuilt) {
  cairn_file *f;
  cairn_mem *m, *ref, *m2;
  cairn_mem_config cfg;
  CHECK_OK(openPair(&cfg, &f, &m, &ref));
  for (int i = 0; i < 60; i++) {
    CHECK_OK(addRow(m, i));
    CHECK_OK(addRow(ref, i));
  }
  CHECK_OK(cairn_mem_checkpoint(m));
  const uint8_t *p;
  size_t n;
  CHECK_OK(cairn_memfile_data(f, &p, &n));
  uint8_t *img = malloc(n), *d = malloc(n);
  CHECK(img && d);
  memcpy(img, p, n);
  size_t at = findBlob(img, n);
  CHECK(at != SIZE_MAX);
  if (at == SIZE_MAX) goto done;
  const size_t nChunk = 4096; /* bm25_store.c: chunks of 4 KiB for a blob this small */
  uint64_t nBlob = 0;
  CHECK(at + nChunk + 4 <= n);
  if (at + nChunk + 4 > n) goto done;
  /* the layout the test relies on: the chunk's Fletcher-32 follows it (as libhdf5 writes it) */
  uint32_t fl = cairnH5Fletcher32(img + at, nChunk);
  int le = cairnGetLE32(img + at + nChunk) == fl;
  CHECK(le || ((uint32_t)img[at + nChunk] << 24 | (uint32_t)img[at + nChunk + 1] << 16 | (uint32_t)img[at + nChunk + 2] << 8 |
               img[at + nChunk + 3]) == fl);
  {
    /* the blob's length: header counts -> bytes (the last 4 are its CRC-32C) */
    uint64_t nTerm = cairnGetLE32(img + at + 12), nDoc = cairnGetLE64(img + at + 16), nPost = cairnGetLE64(img + at + 32),
             nTb = cairnGetLE64(img + at + 40);
    nBlob = 64 + (nTb + 7) / 8 * 8 + nTerm * 16 + nDoc * 4 + nPost * 4 + (nPost * 2 + 3) / 4 * 4 + 4;
    CHECK_EQ(nDoc, 60);
    CHECK(nBlob <= nChunk);
    CHECK_EQ(cairnCrc32c(0, img + at, (size_t)nBlob - 4), cairnGetLE32(img + at + nBlob - 4));
  }
  CHECK_OK(openCopy(img, n, &m2));
  CHECK_EQ(bm25Read(m2), 1);
  cairn_mem_close(m2);
  int nBad = 0;
#if defined(__wasm__) || defined(__SANITIZE_ADDRESS__)
  const size_t nStep = 7; /* every 7th byte: 2 opens per flip are slow there */
#else
  const size_t nStep = 1;
#endif
  for (size_t i = 0; i < nBlob && nBad < 5; i += nStep) {
    for (int fix = 0; fix < 2; fix++) {
      memcpy(d, img, n);
      d[at + i] ^= (uint8_t)(1u << (i % 8));
      if (fix) { /* past the chunk's checksum: only the blob's CRC and its checks see it */
        uint32_t v = cairnH5Fletcher32(d + at, nChunk);
        if (le) cairnPutLE32(d + at + nChunk, v);
        else d[at + nChunk] = (uint8_t)(v >> 24), d[at + nChunk + 1] = (uint8_t)(v >> 16), d[at + nChunk + 2] = (uint8_t)(v >> 8),
             d[at + nChunk + 3] = (uint8_t)v;
      }
      int rc = openCopy(d, n, &m2);
      if (rc) {
        tfFail(__FILE__, __LINE__, "flip at byte %zu of the BM25 index (fix %d): open fails (%s)", i, fix, cairn_errmsg());
        cairn_clearerr();
        nBad++;
        continue;
      }
      if (bm25Read(m2) || sameAnswers(m2, ref)) {
        tfFail(__FILE__, __LINE__, "flip at byte %zu of the BM25 index (fix %d): read %d, answers differ %d", i, fix, bm25Read(m2),
               sameAnswers(m2, ref));
        nBad++;
      }
      cairn_mem_close(m2);
      if (fix && i % (16 * nStep) == 0) { /* verify: index damage, no memory lost */
        cairn_file *g;
        CHECK_OK(cairn_memfile_open(d, n, &g));
        cairn_mem_verify_info v;
        int rcV = cairn_mem_verify(g, &v);
        cairn_file_close(g);
        if (rcV || !v.indexDamaged || v.nLost) {
          tfFail(__FILE__, __LINE__, "flip at byte %zu: verify %d, indexDamaged %d, lost %llu", i, rcV, v.indexDamaged,
                 (unsigned long long)v.nLost);
          cairn_clearerr();
          nBad++;
        }
      }
    }
  }
  /* a writer on a damaged index rebuilds it and the next checkpoint writes a good one */
  memcpy(d, img, n);
  d[at + 70] ^= 1;
  {
    cairn_file *g;
    CHECK_OK(cairn_memfile_open(d, n, &g));
    cairn_mem_config w = cfg;
    CHECK_OK(cairn_mem_open_file(g, &w, &m2));
    CHECK_EQ(bm25Read(m2), 0);
    CHECK_OK(addRow(m2, 60));
    CHECK_OK(addRow(ref, 60));
    CHECK_OK(cairn_mem_checkpoint(m2));
    CHECK_OK(cairn_memfile_data(g, &p, &n));
    cairn_mem *m3;
    CHECK_OK(openCopy(p, n, &m3));
    CHECK_EQ(bm25Read(m3), 1);
    CHECK_EQ(sameAnswers(m3, ref), 0);
    cairn_mem_close(m3);
    cairn_mem_close(m2);
  }
done:
  free(img), free(d);
  cairn_mem_close(ref);
  cairn_mem_close(m);
}
