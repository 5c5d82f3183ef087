/* 2026-12-02 - memory store persistence: the write-ahead log (reopen, torn tails at every
** byte, corruption), the IVF index across reopen, the disk encodings of vectors, the HDF5
** checkpoint (reopen, IVF generations, bad files, out of memory), log-only files of format 1
** and creations that crashed. (Split from test_mem.c; the suite is still "mem".) */
#include <math.h>
#include <stdlib.h>

#include "cairn/h5w.h"
#include "cairn/mem.h"
#include "mem/mem_int.h"
#include "tf.h"
#include "oom.h"
#include "mem_turns.h"

static cairn_host gSaved;

static int countOpen(cairn_file *f, uint64_t *pn) {
  cairn_mem *m;
  int rc = cairn_mem_open_file(f, NULL, &m);
  if (rc) return rc;
  cairn_mem_stats st;
  cairn_mem_stats_get(m, &st);
  *pn = st.nMemory;
  cairn_mem_close(m);
  return CAIRN_OK;
}

TEST(mem, log_reopen) {
  const char *zPath = tfTmp("mem_reopen.cmem");
  cairn_file *f;
  CHECK_OK(cairn_open(zPath, CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE | CAIRN_OPEN_TRUNCATE, &f));
  cairn_file_close(f);
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(zPath, NULL, &m));
  CHECK_OK(addTurns(m, 6));
  CHECK_OK(cairn_mem_commit(m));
  CHECK_OK(cairn_mem_touch(m, 2));
  CHECK_OK(cairn_mem_touch(m, 2));
  cairn_mem_record r;
  memset(&r, 0, sizeof r);
  r.zText = "uncommitted thought";
  CHECK_OK(cairn_mem_add(m, &r, NULL));
  cairn_mem_stats st;
  CHECK_OK(cairn_mem_stats_get(m, &st));
  CHECK_EQ(st.nUncommitted, 1);
  CHECK_OK(cairn_mem_close(m)); /* the 7th add and the touches were never committed */
  CHECK_OK(cairn_mem_open(zPath, NULL, &m));
  CHECK_OK(cairn_mem_stats_get(m, &st));
  CHECK_EQ(st.nMemory, 6);
  CHECK_OK(cairn_mem_get(m, 2, &r));
  CHECK_EQ(r.accessCount, 0);
  cairn_mem_hit h[3];
  CHECK_EQ(search(m, "where does my sister Ana live?", CAIRN_MEM_HYBRID, 3, NULL, h), 3);
  CHECK_EQ(h[0].id, 3);
  CHECK_OK(cairn_mem_touch(m, 2));
  /* add more, commit, reopen: every index sees all rows */
  for (int i = 6; i < NTURN; i++) {
    memset(&r, 0, sizeof r);
    r.zText = aTurn[i][2], r.zSession = aTurn[i][0], r.zRole = aTurn[i][1];
    CHECK_OK(cairn_mem_add(m, &r, NULL));
  }
  CHECK_OK(cairn_mem_commit(m));
  CHECK_OK(cairn_mem_close(m));
  cairn_mem_config ro = {0, 0, 1, 0, 0, 0, 0, 0};
  CHECK_OK(cairn_mem_open(zPath, &ro, &m));
  CHECK_OK(cairn_mem_stats_get(m, &st));
  CHECK_EQ(st.nMemory, NTURN);
  CHECK_OK(cairn_mem_get(m, 2, &r));
  CHECK_EQ(r.accessCount, 1);
  CHECK_OK(cairn_mem_get(m, 7, &r));
  CHECK_STR(r.zSession, "s3");
  CHECK_EQ(search(m, "Kyoto ryokan", CAIRN_MEM_BM25, 3, NULL, h), 2);
  CHECK_EQ(h[0].id, 9);
  memset(&r, 0, sizeof r);
  r.zText = "x";
  CHECK_RC(cairn_mem_add(m, &r, NULL), CAIRN_READONLY);
  CHECK_OK(cairn_mem_close(m));
  /* a store of another dimension is refused */
  cairn_mem_config c64 = {64, 0, 0, 0, 0, 0, 0, 0};
  CHECK_RC(cairn_mem_open(zPath, &c64, &m), CAIRN_MISUSE);
}

/* Crash at every byte: a log cut anywhere reopens to the last commit before the cut, and
** garbage after a commit is cut away. */
TEST(mem, log_torn_tail_every_byte) {
  cairn_file *f;
  CHECK_OK(cairn_memfile_open(NULL, 0, &f));
  cairn_mem *m;
  cairn_mem_config cfg = {16, 0, 0, 0, 0, 0, 0, 0};
  /* keep the handle: open through a second memfile copy each time */
  CHECK_OK(cairn_mem_open_file(f, &cfg, &m));
  uint64_t aEnd[8], aCnt[8];
  int nCommit = 0;
  cairn_mem_stats st0;
  CHECK_OK(cairn_mem_stats_get(m, &st0));
  CHECK_EQ(st0.format, 2);
  CHECK_EQ(st0.nLogBytes, 0);
  aEnd[nCommit] = st0.nFileBytes, aCnt[nCommit++] = 0; /* the log starts at the HDF5 end of allocation */
  for (int c = 0; c < 4; c++) {
    for (int i = 0; i < c + 1; i++) {
      cairn_mem_record r;
      memset(&r, 0, sizeof r);
      r.zText = aTurn[(c * 3 + i) % NTURN][2];
      r.zMeta = "{\"k\": \"v\"}";
      CHECK_OK(cairn_mem_add(m, &r, NULL));
    }
    CHECK_OK(cairn_mem_touch(m, 1));
    CHECK_OK(cairn_mem_commit(m));
    cairn_mem_stats st;
    cairn_mem_stats_get(m, &st);
    aEnd[nCommit] = st.nFileBytes, aCnt[nCommit++] = st.nMemory;
  }
  const uint8_t *p;
  size_t n;
  CHECK_OK(cairn_memfile_data(f, &p, &n));
  CHECK_EQ(n, aEnd[nCommit - 1]);
  uint8_t *img = malloc(n + 100);
  memcpy(img, p, n);
  cairn_mem_close(m);
  for (size_t cut = (size_t)aEnd[0]; cut <= n; cut++) {
    uint64_t want = 0;
    for (int c = 0; c < nCommit; c++)
      if (aEnd[c] <= cut) want = aCnt[c];
    cairn_file *g;
    CHECK_OK(cairn_memfile_open(img, cut, &g));
    uint64_t got;
    CHECK_OK(countOpen(g, &got));
    if (got != want) {
      tfFail(__FILE__, __LINE__, "cut at %zu: %llu records, want %llu", cut, (unsigned long long)got, (unsigned long long)want);
      break;
    }
  }
  /* garbage after the last commit: ignored and truncated */
  memset(img + n, 0xab, 100);
  cairn_file *g;
  CHECK_OK(cairn_memfile_open(img, n + 100, &g));
  CHECK_OK(cairn_mem_open_file(g, NULL, &m));
  uint64_t sz;
  CHECK_OK(cairn_file_size(g, &sz));
  CHECK_EQ(sz, n);
  cairn_mem_record r;
  CHECK_OK(cairn_mem_get(m, 1, &r));
  CHECK_EQ(r.accessCount, 4);
  cairn_mem_close(m);
  /* a flipped byte inside the second commit, with commits after it: damage, not a torn tail
  ** (issue 16: this used to keep the first commit only and truncate the rest on the next add) */
  img[aEnd[1] + 20] ^= 1;
  CHECK_OK(cairn_memfile_open(img, n, &g));
  uint64_t got;
  CHECK_RC(countOpen(g, &got), CAIRN_CORRUPT);
  img[aEnd[1] + 20] ^= 1;
  /* header damage is an error, not a silent empty store */
  img[3] ^= 1;
  CHECK_OK(cairn_memfile_open(img, n, &g));
  CHECK_RC(countOpen(g, &got), CAIRN_CORRUPT);
  img[3] ^= 1;
  img[20] ^= 1;
  CHECK_OK(cairn_memfile_open(img, n, &g));
  CHECK_RC(countOpen(g, &got), CAIRN_CHECKSUM);
  CHECK_OK(cairn_memfile_open(img, 10, &g));
  CHECK_RC(countOpen(g, &got), CAIRN_CORRUPT);
  free(img);
}

/* Add row i of a clustered set: noise in [-0.5, 0.5) plus 1 on the dims j with j % nCluster ==
** i % nCluster (so rows fall into nCluster groups), from the xorshift state *pS; the row is
** left in v (dim floats). */
static int addClustered(cairn_mem *m, int dim, int i, int nCluster, uint64_t *pS, float *v) {
  uint64_t s = *pS;
  for (int j = 0; j < dim; j++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    v[j] = (float)((s >> 11) % 1000) / 1000.0f - 0.5f + (float)((i % nCluster) == j % nCluster);
  }
  *pS = s;
  cairn_mem_record r;
  memset(&r, 0, sizeof r);
  r.zText = "v";
  r.aEmbedding = v, r.nEmbedding = (uint32_t)dim;
  return cairn_mem_add(m, &r, NULL);
}

TEST(mem, ivf_persisted) {
  cairn_file *f;
  CHECK_OK(cairn_memfile_open(NULL, 0, &f));
  cairn_mem *m;
  cairn_mem_config cfg = {32, CAIRN_METRIC_COSINE, 0, 0, 0, 0, 0, 0};
  CHECK_OK(cairn_mem_open_file(f, &cfg, &m));
  float v[32];
  uint64_t s = 11;
  for (int i = 0; i < 600; i++) CHECK_OK(addClustered(m, 32, i, 6, &s, v));
  cairn_mem_index_config ic = {CAIRN_VINDEX_IVFPQ, 12, 8, 5, 0, 1};
  CHECK_OK(cairn_mem_build_index(m, &ic));
  CHECK_OK(cairn_mem_commit(m));
  cairn_mem_query q;
  memset(&q, 0, sizeof q);
  q.aEmbedding = v, q.nEmbedding = 32, q.k = 5, q.mode = CAIRN_MEM_VECTOR, q.nprobe = 3;
  cairn_mem_hit h1[5], h2[5];
  uint32_t n1, n2;
  CHECK_OK(cairn_mem_search(m, &q, h1, &n1));
  CHECK_EQ(h1[0].id, 600);
  const uint8_t *p;
  size_t n;
  CHECK_OK(cairn_memfile_data(f, &p, &n));
  cairn_file *g;
  CHECK_OK(cairn_memfile_open(p, n, &g));
  cairn_mem_close(m);
  CHECK_OK(cairn_mem_open_file(g, NULL, &m));
  cairn_mem_stats st;
  CHECK_OK(cairn_mem_stats_get(m, &st));
  CHECK_EQ(st.ivfKind, CAIRN_VINDEX_IVFPQ);
  CHECK_EQ(st.ivfNlist, 12);
  CHECK_OK(cairn_mem_search(m, &q, h2, &n2)); /* same index, same answer */
  CHECK_EQ(n1, n2);
  for (uint32_t i = 0; i < n1; i++) CHECK_EQ(h1[i].id, h2[i].id);
  cairn_mem_close(m);
}

TEST(mem, disk_vector_encodings) {
  size_t aSize[3];
  for (int enc = CAIRN_MEM_DISK_F32; enc <= CAIRN_MEM_DISK_INT8; enc++) {
    cairn_file *f;
    CHECK_OK(cairn_memfile_open(NULL, 0, &f));
    cairn_mem *m;
    cairn_mem_config cfg = {64, CAIRN_METRIC_COSINE, 0, 0, 0, enc, 0, 0};
    CHECK_OK(cairn_mem_open_file(f, &cfg, &m));
    CHECK_OK(addTurns(m, NTURN));
    CHECK_OK(cairn_mem_commit(m));
    cairn_mem_hit h1[5], h2[5];
    CHECK_EQ(search(m, "Biscuit cello Kyoto", CAIRN_MEM_VECTOR, 5, NULL, h1), 5);
    float e1[64], e2[64];
    CHECK_OK(cairn_mem_embedding(m, 3, e1));
    const uint8_t *p;
    size_t n;
    CHECK_OK(cairn_memfile_data(f, &p, &n));
    aSize[enc] = n;
    cairn_file *g;
    CHECK_OK(cairn_memfile_open(p, n, &g));
    cairn_mem_close(m);
    CHECK_OK(cairn_mem_open_file(g, NULL, &m));
    CHECK_EQ(search(m, "Biscuit cello Kyoto", CAIRN_MEM_VECTOR, 5, NULL, h2), 5);
    for (int i = 0; i < 5; i++) {
      CHECK_EQ(h1[i].id, h2[i].id);
      CHECK(h1[i].score == h2[i].score);
    }
    CHECK_OK(cairn_mem_embedding(m, 3, e2));
    CHECK_MEM(e1, e2, sizeof e1);
    /* still close to the built-in embedding of the text */
    float ref[64], dot = 0;
    CHECK_OK(cairn_mem_embed(aTurn[2][2], strlen(aTurn[2][2]), ref, 64));
    for (int j = 0; j < 64; j++) dot += ref[j] * e2[j];
    if (!(dot > (enc == CAIRN_MEM_DISK_INT8 ? 0.99f : 0.999f))) { /* f16: 2^-11 relative per component */
      tfFail(__FILE__, __LINE__, "encoding %d: dot %g", enc, (double)dot);
      return;
    }
    cairn_mem_close(m);
  }
  CHECK(aSize[CAIRN_MEM_DISK_F16] < aSize[CAIRN_MEM_DISK_F32] - NTURN * 64 * 2 + 64);
  CHECK(aSize[CAIRN_MEM_DISK_INT8] < aSize[CAIRN_MEM_DISK_F16]);
  cairn_mem_config bad = {64, 0, 0, 0, 0, 3, 0, 0};
  cairn_mem *m;
  CHECK_RC(cairn_mem_open(NULL, &bad, &m), CAIRN_MISUSE);
}

/* ---- the HDF5 checkpoint ---- */
/* Reopen from the HDF5 part alone (no log) and from HDF5 + log restores the same store. */
static void recEq(cairn_mem *a, cairn_mem *b, uint64_t id, int *pBad) {
  cairn_mem_record x, y;
  if (cairn_mem_get(a, id, &x) || cairn_mem_get(b, id, &y)) {
    *pBad = 1;
    return;
  }
  int same = !strcmp(x.zText, y.zText) && !x.zSession == !y.zSession && (!x.zSession || !strcmp(x.zSession, y.zSession)) &&
             !x.zRole == !y.zRole && (!x.zRole || !strcmp(x.zRole, y.zRole)) && !x.zMeta == !y.zMeta &&
             (!x.zMeta || !strcmp(x.zMeta, y.zMeta)) && x.createdMs == y.createdMs && x.eventMs == y.eventMs && x.tier == y.tier &&
             x.importance == y.importance && x.accessCount == y.accessCount &&
             (!x.aEmbedding || !memcmp(x.aEmbedding, y.aEmbedding, x.nEmbedding * 4));
  if (!same) *pBad = 1;
}

TEST(mem, checkpoint_reopen) {
  for (int enc = 0; enc < 3; enc++) {
    cairn_file *f;
    CHECK_OK(cairn_memfile_open(NULL, 0, &f));
    cairn_mem *m, *m2, *ref;
    cairn_mem_config cfg = {32, CAIRN_METRIC_COSINE, 0, 0, 0, enc, UINT32_MAX, 0}; /* checkpoints only when asked */
    CHECK_OK(cairn_mem_open_file(f, &cfg, &m));
    CHECK_OK(cairn_mem_open(NULL, &cfg, &ref)); /* the same adds, in memory only */
    for (int round = 0; round < 3; round++) {
      CHECK_OK(addTurns(m, NTURN));
      CHECK_OK(addTurns(ref, NTURN));
      CHECK_OK(cairn_mem_touch(m, 2 + round));
      CHECK_OK(cairn_mem_touch(ref, 2 + round));
      if (round == 1) CHECK_OK(cairn_mem_checkpoint(m));
      else CHECK_OK(cairn_mem_commit(m));
    }
    cairn_mem_stats st;
    CHECK_OK(cairn_mem_stats_get(m, &st));
    CHECK_EQ(st.nCheckpointed, 2 * NTURN); /* round 2 is in the log */
    CHECK(st.nLogBytes > 0);
    /* reopen a copy: HDF5 part + log */
    const uint8_t *p;
    size_t n;
    CHECK_OK(cairn_memfile_data(f, &p, &n));
    cairn_file *g;
    CHECK_OK(cairn_memfile_open(p, n, &g));
    cairn_mem_config ro = {0, 0, 1, 0, 0, 0, 0, 0};
    CHECK_OK(cairn_mem_open_file(g, &ro, &m2));
    CHECK_OK(cairn_mem_stats_get(m2, &st));
    CHECK_EQ(st.nMemory, 3 * NTURN);
    CHECK_EQ(st.nCheckpointed, 2 * NTURN);
    CHECK_EQ(st.diskVectors, enc);
    int bad = 0;
    for (uint64_t id = 1; id <= 3 * NTURN; id++) recEq(m, m2, id, &bad);
    CHECK(!bad);
    cairn_mem_close(m2);
    /* everything checkpointed: the log is empty, the same store again */
    CHECK_OK(cairn_mem_checkpoint(m));
    CHECK_OK(cairn_mem_stats_get(m, &st));
    CHECK_EQ(st.nCheckpointed, 3 * NTURN);
    CHECK_EQ(st.nLogBytes, 0);
    CHECK_OK(cairn_memfile_data(f, &p, &n));
    CHECK_EQ(n, st.nFileBytes);
    CHECK_OK(cairn_memfile_open(p, n, &g));
    CHECK_OK(cairn_mem_open_file(g, &ro, &m2));
    for (uint64_t id = 1; id <= 3 * NTURN; id++) recEq(m, m2, id, &bad);
    CHECK(!bad);
    cairn_mem_record r;
    CHECK_OK(cairn_mem_get(m2, 3, &r));
    CHECK_EQ(r.accessCount, 1);
    /* searches agree with the in-memory store fed the same adds */
    const char *azQ[] = {"where does my sister Ana live?", "Kyoto ryokan in April", "Biscuit vaccine"};
    for (int qi = 0; qi < 3; qi++)
      for (int mode = 0; mode < 3; mode++) {
        cairn_mem_hit h1[5], h2[5];
        uint32_t n1 = search(m2, azQ[qi], mode, 5, NULL, h1), n2 = search(ref, azQ[qi], mode, 5, NULL, h2);
        CHECK_EQ(n1, n2);
        for (uint32_t i = 0; i < n1; i++) CHECK_EQ(h1[i].id, h2[i].id);
      }
    cairn_mem_close(m2);
    cairn_mem_close(ref);
    cairn_mem_close(m);
  }
}

TEST(mem, checkpoint_ivf_generations) {
  cairn_file *f;
  CHECK_OK(cairn_memfile_open(NULL, 0, &f));
  cairn_mem *m;
  cairn_mem_config cfg = {16, CAIRN_METRIC_COSINE, 0, 0, 0, 0, 0, 0};
  CHECK_OK(cairn_mem_open_file(f, &cfg, &m));
  float v[16];
  uint64_t s = 5;
  for (int i = 0; i < 400; i++) {
    CHECK_OK(addClustered(m, 16, i, 4, &s, v));
    if (i == 199) {
      cairn_mem_index_config ic = {CAIRN_VINDEX_IVFPQ, 6, 4, 4, 0, 1};
      CHECK_OK(cairn_mem_build_index(m, &ic));
      CHECK_OK(cairn_mem_checkpoint(m)); /* generation 1, 200 rows */
    }
  }
  CHECK_OK(cairn_mem_checkpoint(m)); /* 200 more rows appended to generation 1 */
  const uint8_t *p;
  size_t n;
  cairn_file *g;
  cairn_mem *m2;
  cairn_mem_stats st;
  CHECK_OK(cairn_memfile_data(f, &p, &n));
  CHECK_OK(cairn_memfile_open(p, n, &g));
  CHECK_OK(cairn_mem_open_file(g, NULL, &m2));
  CHECK_OK(cairn_mem_stats_get(m2, &st));
  CHECK_EQ(st.nLogBytes, 0);
  CHECK_EQ(st.ivfKind, CAIRN_VINDEX_IVFPQ);
  CHECK_EQ(st.ivfNlist, 6);
  cairn_mem_query q;
  memset(&q, 0, sizeof q);
  q.aEmbedding = v, q.nEmbedding = 16, q.k = 5, q.mode = CAIRN_MEM_VECTOR, q.nprobe = 2, q.vindex = CAIRN_VINDEX_IVFPQ;
  cairn_mem_hit h1[5], h2[5];
  uint32_t n1, n2;
  CHECK_OK(cairn_mem_search(m, &q, h1, &n1));
  CHECK_OK(cairn_mem_search(m2, &q, h2, &n2));
  CHECK_EQ(n1, n2);
  for (uint32_t i = 0; i < n1; i++) CHECK_EQ(h1[i].id, h2[i].id);
  CHECK_EQ(h1[0].id, 400);
  cairn_mem_close(m2);
  /* a rebuild is a new generation, which the reopened store uses */
  cairn_mem_index_config ic2 = {CAIRN_VINDEX_IVF, 9, 0, 4, 0, 2};
  CHECK_OK(cairn_mem_build_index(m, &ic2));
  CHECK_OK(cairn_mem_checkpoint(m));
  CHECK_OK(cairn_memfile_data(f, &p, &n));
  CHECK_OK(cairn_memfile_open(p, n, &g));
  CHECK_OK(cairn_mem_open_file(g, NULL, &m2));
  CHECK_OK(cairn_mem_stats_get(m2, &st));
  CHECK_EQ(st.ivfKind, CAIRN_VINDEX_IVF);
  CHECK_EQ(st.ivfNlist, 9);
  q.vindex = CAIRN_VINDEX_IVF;
  CHECK_OK(cairn_mem_search(m, &q, h1, &n1));
  CHECK_OK(cairn_mem_search(m2, &q, h2, &n2));
  CHECK_EQ(n1, n2);
  for (uint32_t i = 0; i < n1; i++) CHECK_EQ(h1[i].id, h2[i].id);
  cairn_mem_close(m2);
  cairn_mem_close(m);
}

/* Log-only files of format 1 (before 2026-11-29) still open, take adds, and refuse checkpoints. */
TEST(mem, legacy_log_only_files) {
  cairn_file *f;
  CHECK_OK(cairn_memfile_open(NULL, 0, &f));
  cairn_mem *m;
  cairnMemLegacyCreate = 1;
  int rc = cairn_mem_open_file(f, NULL, &m);
  cairnMemLegacyCreate = 0;
  CHECK_OK(rc);
  CHECK_OK(addTurns(m, 4));
  CHECK_OK(cairn_mem_commit(m));
  const uint8_t *p;
  size_t n;
  CHECK_OK(cairn_memfile_data(f, &p, &n));
  CHECK(n > 8 && !memcmp(p, "CAIRNMEM", 8));
  cairn_file *g;
  CHECK_OK(cairn_memfile_open(p, n, &g));
  cairn_mem_close(m);
  CHECK_OK(cairn_mem_open_file(g, NULL, &m));
  cairn_mem_stats st;
  CHECK_OK(cairn_mem_stats_get(m, &st));
  CHECK_EQ(st.format, 1);
  CHECK_EQ(st.nMemory, 4);
  CHECK_OK(addTurns(m, 0));
  cairn_mem_record r;
  memset(&r, 0, sizeof r);
  r.zText = "one more";
  CHECK_OK(cairn_mem_add(m, &r, NULL));
  CHECK_RC(cairn_mem_checkpoint(m), CAIRN_UNSUPPORTED); /* its commit went through */
  CHECK_OK(cairn_mem_stats_get(m, &st));
  CHECK_EQ(st.nUncommitted, 0);
  cairn_mem_close(m);
}

/* HDF5 files that are not stores, or stores whose datasets disagree, fail with a clear error. */
TEST(mem, checkpoint_bad_files) {
  /* an HDF5 file without /memory */
  cairn_file *f;
  CHECK_OK(cairn_memfile_open(NULL, 0, &f));
  cairn_h5w *w;
  CHECK_OK(cairn_h5w_create(f, CAIRN_H5W_NOSYNC, &w));
  CHECK_OK(cairn_h5w_group(w, "/other"));
  CHECK_OK(cairn_h5w_close(w));
  cairn_mem *m;
  CHECK_RC(cairn_mem_open_file(f, NULL, &m), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "/memory") != NULL);
  /* a store whose @count says more rows than its datasets hold */
  CHECK_OK(cairn_memfile_open(NULL, 0, &f));
  cairn_mem_config cfg = {8, 0, 0, 0, 0, 0, 0, 0};
  CHECK_OK(cairn_mem_open_file(f, &cfg, &m));
  CHECK_OK(addTurns(m, 3));
  const uint8_t *p;
  size_t n;
  CHECK_OK(cairn_mem_checkpoint(m));
  CHECK_OK(cairn_memfile_data(f, &p, &n));
  cairn_file *g;
  CHECK_OK(cairn_memfile_open(p, n, &g));
  cairn_mem_close(m);
  CHECK_OK(cairn_h5w_open(g, CAIRN_H5W_NOSYNC, &w));
  cairn_h5w_type *t = cairn_h5w_type_int(8, 1);
  int64_t cnt = 5;
  CHECK_OK(cairn_h5w_attr(w, "/memory", "count", t, 0, NULL, &cnt));
  cairn_h5w_type_free(t);
  CHECK_OK(cairn_h5w_close(w));
  CHECK_RC(cairn_mem_open_file(g, NULL, &m), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "/memory/id") != NULL);
}

/* Out of memory while reading a checkpoint + log and while checkpointing: clean NOMEM, no leak,
** and the image is never damaged (the last run must see everything). */
TEST(mem, out_of_memory_checkpoint) {
  cairn_file *f;
  CHECK_OK(cairn_memfile_open(NULL, 0, &f));
  cairn_mem *m;
  cairn_mem_config cfg = {8, 0, 0, 0, 0, 0, UINT32_MAX, 0};
  CHECK_OK(cairn_mem_open_file(f, &cfg, &m));
  CHECK_OK(addTurns(m, 5));
  cairn_mem_index_config ic = {CAIRN_VINDEX_IVFPQ, 2, 2, 2, 0, 1};
  CHECK_OK(cairn_mem_build_index(m, &ic));
  CHECK_OK(cairn_mem_checkpoint(m));
  CHECK_OK(addTurns(m, 3));
  CHECK_OK(cairn_mem_commit(m));
  const uint8_t *p;
  size_t n;
  CHECK_OK(cairn_memfile_data(f, &p, &n));
  uint8_t *img = malloc(n);
  memcpy(img, p, n);
  cairn_mem_close(m);
  gSaved = *cairn_host_get();
  int done = 0;
  long nFail = 0;
  for (long fail = 0; fail < 20000 && !done; fail++) {
    cairn_host h = gSaved;
    oomHooks(&h);
    h.xParallelFor = NULL;
    cairn_host_set(&h);
    oomArm(OOM_ONCE, fail);
    cairn_file *g = NULL;
    m = NULL;
    int rc = cairn_memfile_open(img, n, &g);
    if (rc == CAIRN_OK) rc = cairn_mem_open_file(g, &cfg, &m);
    if (rc == CAIRN_OK) rc = addTurns(m, 2);
    if (rc == CAIRN_OK) rc = cairn_mem_checkpoint(m);
    cairn_mem_stats st;
    if (rc == CAIRN_OK) rc = cairn_mem_stats_get(m, &st);
    if (rc == CAIRN_OK && (st.nMemory != 10 || st.nCheckpointed != 10)) {
      cairn_host_set(&gSaved);
      tfFail(__FILE__, __LINE__, "fail at %ld: %llu memories, %llu checkpointed", fail, (unsigned long long)st.nMemory,
             (unsigned long long)st.nCheckpointed);
      free(img);
      return;
    }
    if (rc == CAIRN_OK) done = !oomReached(); /* no allocation failed: every point was tried */
    else if (CAIRN_PRIMARY(rc) != CAIRN_NOMEM) {
      cairn_mem_close(m);
      cairn_host_set(&gSaved);
      tfFail(__FILE__, __LINE__, "fail at %ld: %s (%s)", fail, cairn_errstr(rc), cairn_errmsg());
      free(img);
      return;
    }
    nFail += rc != CAIRN_OK;
    cairn_mem_close(m);
    long live = oomLive();
    cairn_host_set(&gSaved);
    if (live != 0) {
      tfFail(__FILE__, __LINE__, "fail at %ld: %ld allocations leaked", fail, live);
      free(img);
      return;
    }
  }
  cairn_host_set(&gSaved);
  free(img);
  CHECK(done);
  CHECK(nFail > 100);
}

/* The creation of a store writes the HDF5 superblock last: a crash before it leaves a first
** sector of zeros, which a writable open takes as "not created yet" (small files only). */
TEST(mem, unfinished_creation) {
  uint8_t img[4096];
  memset(img, 0, sizeof img);
  memset(img + 1000, 0x5a, 500); /* what the crashed creation wrote after the superblock */
  cairn_file *f;
  cairn_mem *m;
  cairn_mem_config ro = {0, 0, 1, 0, 0, 0, 0, 0};
  CHECK_OK(cairn_memfile_open(img, sizeof img, &f));
  CHECK_RC(cairn_mem_open_file(f, &ro, &m), CAIRN_CORRUPT); /* read-only: not touched */
  CHECK_OK(cairn_memfile_open(img, sizeof img, &f));
  CHECK_OK(cairn_mem_open_file(f, NULL, &m));
  cairn_mem_stats st;
  CHECK_OK(cairn_mem_stats_get(m, &st));
  CHECK_EQ(st.nMemory, 0);
  CHECK_EQ(st.format, 2);
  CHECK_OK(addTurns(m, 2));
  CHECK_OK(cairn_mem_close(m));
  /* a damaged superblock of a real store is an error, never a new store */
  CHECK_OK(cairn_memfile_open(NULL, 0, &f));
  CHECK_OK(cairn_mem_open_file(f, NULL, &m));
  CHECK_OK(addTurns(m, 2));
  CHECK_OK(cairn_mem_checkpoint(m));
  const uint8_t *p;
  size_t n;
  CHECK_OK(cairn_memfile_data(f, &p, &n));
  uint8_t *cp = malloc(n);
  memcpy(cp, p, n);
  cairn_mem_close(m);
  cp[30] ^= 0x40;
  CHECK_OK(cairn_memfile_open(cp, n, &f));
  CHECK_RC(cairn_mem_open_file(f, NULL, &m), CAIRN_CHECKSUM);
  free(cp);
}

