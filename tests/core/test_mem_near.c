/*
** 2026-12-02
**
** tests/core/test_mem_near.c - near-duplicate checks on write through the LSH index of
** core/mem/near.c (the same answers as the exact scan, measured here, comparing a fraction of
** the rows), and all-or-nothing batches (core/mem/store_undo.c): an allocation failure at
** every allocation of an import or a delete by filter leaves the store as before the call, in
** memory and in the file.
*/
#include <math.h>
#include <string.h>

#include "tf.h"
#include "oom.h"
#include "../../core/mem/mem_int.h"

/* ---- near duplicates through the index ---- */
static float cosine(const float *a, const float *b, uint32_t d) {
  double ab = 0, aa = 0, bb = 0;
  for (uint32_t j = 0; j < d; j++) ab += (double)a[j] * b[j], aa += (double)a[j] * a[j], bb += (double)b[j] * b[j];
  return (float)(ab / sqrt(aa * bb));
}
static void gauss(float *v, uint32_t d, uint64_t *s) {
  for (uint32_t j = 0; j < d; j++) {
    double u = 0;
    for (int k = 0; k < 4; k++) {
      *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
      u += (double)(*s >> 11) / 9007199254740992.0 - 0.5;
    }
    v[j] = (float)u;
  }
}

TEST(memnear, index_agrees_with_the_exact_scan) {
  enum { D = 64, N = 4000, Q = 400 };
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.dim = D;
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(NULL, &cfg, &m));
  float *aBase = malloc((size_t)N * D * 4), q[D], e[D];
  uint64_t s = 0x1234567;
  const char *azUser[2] = {"ana", "ben"};
  for (int i = 0; i < N; i++) {
    gauss(aBase + (size_t)i * D, D, &s);
    char z[48];
    snprintf(z, sizeof z, "memory number %d", i);
    cairn_mem_record r;
    memset(&r, 0, sizeof r);
    r.zText = z, r.zUser = azUser[i & 1], r.aEmbedding = aBase + (size_t)i * D, r.nEmbedding = D, r.createdMs = 1700000000000 + i;
    CHECK_OK(cairn_mem_add(m, &r, NULL));
  }
  cairn_mem_put_opts o;
  memset(&o, 0, sizeof o);
  o.nearThreshold = 0.9f, o.nearPolicy = CAIRN_MEM_NEAR_SKIP;
  int nWant = 0, nFound = 0, nWrong = 0, nFalse = 0;
  for (int i = 0; i < Q; i++) {
    /* a perturbed copy of a base vector (cosine 0.8 .. 0.99 to it), or an unrelated vector */
    int b = (i * 7919) % N;
    gauss(e, D, &s);
    float eps = (float)(i % 5) * 0.09f;
    for (int j = 0; j < D; j++) q[j] = i % 6 == 5 ? e[j] : aBase[(size_t)b * D + j] + eps * e[j];
    /* the exact answer: the most similar current memory of the user */
    int best = -1;
    float bestSim = -2;
    for (int r = 0; r < N; r++) {
      if ((r & 1) != (b & 1)) continue;
      float c = cosine(q, aBase + (size_t)r * D, D);
      if (c > bestSim) bestSim = c, best = r;
    }
    char z[48];
    snprintf(z, sizeof z, "query %d", i);
    cairn_mem_record r;
    memset(&r, 0, sizeof r);
    r.zText = z, r.zUser = azUser[b & 1], r.aEmbedding = q, r.nEmbedding = D;
    cairn_mem_put_result res;
    CHECK_OK(cairn_mem_put(m, &r, &o, &res));
    if (bestSim >= 0.9f) {
      nWant++;
      if (res.status == CAIRN_MEM_PUT_NEAR_SKIP) {
        nFound += res.duplicateOf == (uint64_t)best + 1;
        nWrong += res.duplicateOf != (uint64_t)best + 1;
        if (fabsf(res.similarity - bestSim) > 1e-4f) nWrong++;
      }
    } else {
      nFalse += res.status != CAIRN_MEM_PUT_ADDED;
    }
  }
  uint64_t nCheck, nCompared;
  cairnMemNearCounts(m, &nCheck, &nCompared);
  /* the index was used (after the first 32 checks, which scan) and compared a small part of
  ** the rows; nothing under the threshold reported; >= 0.9 found at the analytic rate */
  CHECK(nCheck >= Q - 32);
  CHECK(nCompared < nCheck * (uint64_t)N / 8);
  CHECK_EQ(nFalse, 0);
  CHECK_EQ(nWrong, 0);
  CHECK(nWant > 100);
  CHECK(nFound * 100 >= nWant * 98);
  if (getenv("CAIRN_TEST_VERBOSE")) fprintf(stderr, "near: %d of %d found, %llu checks compared %llu rows of %d\n", nFound, nWant, (unsigned long long)nCheck, (unsigned long long)nCompared, N);
  /* a forgotten memory is not reported any more, and the index survives it */
  cairn_mem_record r;
  memset(&r, 0, sizeof r);
  r.zText = "copy of 10", r.zUser = "ana", r.aEmbedding = aBase + 10 * D, r.nEmbedding = D;
  cairn_mem_put_result res;
  CHECK_OK(cairn_mem_put(m, &r, &o, &res));
  CHECK_EQ(res.status, CAIRN_MEM_PUT_NEAR_SKIP);
  CHECK_EQ(res.duplicateOf, 11);
  CHECK_OK(cairn_mem_delete(m, 11));
  CHECK_OK(cairn_mem_put(m, &r, &o, &res));
  CHECK_EQ(res.status, CAIRN_MEM_PUT_ADDED);
  /* the exact duplicate in its scope is the hash's: the existing id */
  o.nearThreshold = 0;
  CHECK_OK(cairn_mem_put(m, &r, &o, &res));
  CHECK_EQ(res.status, CAIRN_MEM_PUT_EXACT);
  free(aBase);
  cairn_mem_close(m);
}

/* ---- all or nothing under allocation failures ---- */
typedef struct Buf {
  char *z;
  size_t n, nAlloc;
} Buf;
static void bufAdd(Buf *b, const char *z, size_t n) {
  if (b->n + n + 1 > b->nAlloc) {
    b->nAlloc = (b->n + n + 1) * 2;
    b->z = realloc(b->z, b->nAlloc);
  }
  memcpy(b->z + b->n, z, n);
  b->n += n;
  b->z[b->n] = 0;
}
static int expLine(void *p, const char *z, size_t n) {
  bufAdd(p, z, n);
  bufAdd(p, "\n", 1);
  return 0;
}
/* Everything a caller can see of the store: every version of every memory with its embedding,
** searches, and (bStats) the index statistics. */
static char *fingerprint(cairn_mem *m, int bStats) {
  Buf b = {0};
  if (cairn_mem_export(m, "{\"embeddings\": true}", expLine, &b) != CAIRN_OK) bufAdd(&b, "export failed", 13);
  const char *azQ[3] = {"garden roses", "zanzibar quokka", "Lisbon"};
  for (int i = 0; i < 3; i++) {
    char *z = NULL;
    if (cairn_mem_search_json(m, azQ[i], i == 2 ? "{\"mode\": \"hybrid\"}" : "{\"mode\": \"bm25\"}", &z) == CAIRN_OK) bufAdd(&b, z, strlen(z));
    else bufAdd(&b, "search failed", 13);
    cairn_free(z);
  }
  cairn_mem_stats st;
  cairn_mem_stats_get(m, &st);
  char z[256];
  snprintf(z, sizeof z, "\nn=%llu unc=%llu text=%llu", (unsigned long long)st.nMemory, (unsigned long long)st.nUncommitted,
           (unsigned long long)st.nTextBytes);
  bufAdd(&b, z, strlen(z));
  if (bStats) {
    snprintf(z, sizeof z, " sess=%u role=%u term=%u post=%llu", st.nSession, st.nRole, st.nTerm, (unsigned long long)st.nPosting);
    bufAdd(&b, z, strlen(z));
  }
  return b.z;
}

static const char *const azImport[] = {
  "{\"text\": \"zanzibar quokka seen in the garden\", \"user\": \"newuser\", \"session\": \"newsess\", \"role\": \"newrole\", \"createdMs\": 1700000100000, \"meta\": {\"k\": [1, 2]}}",
  "{\"text\": \"second imported line about Lisbon trams\", \"agent\": \"newagent\", \"createdMs\": 1700000100001, \"tier\": 2, \"importance\": 0.5}",
  "{\"text\": \"quokka versions one\", \"id\": 900, \"version\": 900, \"createdMs\": 1700000100002, \"validToMs\": 1700000100009}",
  "{\"text\": \"quokka versions two\", \"id\": 900, \"version\": 901, \"createdMs\": 1700000100003, \"validFromMs\": 1700000100009}",
  "{\"text\": \"a last line with brandnewword\", \"user\": \"alice\", \"createdMs\": 1700000100004, \"eventMs\": 1600000000000}",
};

/* A store of 20 memories (two users, one memory with versions), committed. */
static int setup(const char *zPath, cairn_mem **pm) {
  remove(zPath);
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.noSync = 1, cfg.dim = 32;
  CAIRN_TRY(cairn_mem_open(zPath, &cfg, pm));
  for (int i = 0; i < 20; i++) {
    char z[80];
    snprintf(z, sizeof z, "memory %d of the garden with roses and %s", i, i % 3 ? "tea" : "Lisbon");
    cairn_mem_record r;
    memset(&r, 0, sizeof r);
    r.zText = z, r.zUser = i % 2 ? "bob" : "alice", r.zSession = i % 4 ? "s1" : "s2", r.createdMs = 1700000000000 + i;
    r.zMeta = i % 5 ? NULL : "{\"topic\": \"plants\"}";
    CAIRN_TRY(cairn_mem_add(*pm, &r, NULL));
  }
  cairn_mem_record u;
  memset(&u, 0, sizeof u);
  u.zText = "memory 3 of the garden, corrected", u.validFromMs = 1700000050000;
  CAIRN_TRY(cairn_mem_update(*pm, 4, &u, CAIRN_MEM_F_TEXT, NULL));
  return cairn_mem_commit(*pm);
}

static char *reopenPrint(const char *zPath) {
  cairn_mem *m;
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.noSync = 1;
  if (cairn_mem_open(zPath, &cfg, &m) != CAIRN_OK) return NULL;
  char *z = fingerprint(m, 0);
  cairn_mem_close(m);
  return z;
}

/* op 0: import azImport; 1: delete by a filter; 2: delete of a memory with two versions;
** 3: a batch of adds (cairn_mem_batch_begin / end, JS addMany) */
static int runOp(cairn_mem *m, int op, char *zJsonl) {
  uint64_t n = 0;
  if (op == 0) return cairn_mem_import_jsonl(m, zJsonl, strlen(zJsonl), &n);
  if (op == 1) return cairn_mem_delete_where(m, "{\"user\": \"bob\"}", &n);
  if (op == 2) return cairn_mem_delete(m, 4);
  int rc = cairn_mem_batch_begin(m);
  if (rc) return rc;
  const char *azText[4] = {"batch zanzibar quokka one", "batch Lisbon two", "batch three garden", "batch four brandnewword"};
  const char *azName[4] = {"newuser", NULL, "alice", "u4"};
  for (int i = 0; rc == CAIRN_OK && i < 4; i++) {
    cairn_mem_record r;
    memset(&r, 0, sizeof r);
    r.zText = azText[i], r.zUser = azName[i], r.zRole = azName[3 - i], r.zSession = i == 1 ? "batch-s" : NULL;
    r.createdMs = 1700000200000 + i, r.zMeta = i == 2 ? "{\"a\": {\"b\": 1}}" : NULL;
    rc = cairn_mem_add(m, &r, NULL);
  }
  int rc2 = cairn_mem_batch_end(m, rc == CAIRN_OK);
  return rc ? rc : rc2;
}

static void sweep(int op) {
  char zPath[512], zRef[512];
  snprintf(zPath, sizeof zPath, "%s", tfTmp("near_oom.mem"));
  snprintf(zRef, sizeof zRef, "%s", tfTmp("near_oom_ref.mem"));
  Buf j = {0};
  for (size_t i = 0; i < sizeof azImport / sizeof azImport[0]; i++) bufAdd(&j, azImport[i], strlen(azImport[i])), bufAdd(&j, "\n", 1);
  /* the reference: the state before and after the call, without failures */
  cairn_mem *m;
  CHECK_OK(setup(zRef, &m));
  char *zBefore = fingerprint(m, 1), *zAfter = NULL;
  CHECK_OK(runOp(m, op, j.z));
  zAfter = fingerprint(m, 1);
  CHECK_OK(cairn_mem_commit(m));
  cairn_mem_close(m);
  CHECK(strcmp(zBefore, zAfter) != 0);
  cairn_host saved = *cairn_host_get();
  int done = 0, nFailed = 0;
  for (long fail = 0; fail < 20000 && !done && !tfFailed(); fail++) {
    CHECK_OK(setup(zPath, &m));
    oomInstallOnce(&saved, fail);
    int rc = runOp(m, op, j.z);
    int reached = oomReached();
    cairn_host_set(&saved);
    char *z = fingerprint(m, 1);
    if (rc == CAIRN_OK) {
      /* the failure was not reached, or the call recovered from it: the whole effect */
      if (strcmp(z, zAfter)) tfFail(__FILE__, __LINE__, "op %d, fail at %ld: succeeded with another result", op, fail);
      done = !reached;
    } else {
      nFailed++;
      if (CAIRN_PRIMARY(rc) != CAIRN_NOMEM) tfFail(__FILE__, __LINE__, "op %d, fail at %ld: %s (%s)", op, fail, cairn_errstr(rc), cairn_errmsg());
      else if (strcmp(z, zBefore)) tfFail(__FILE__, __LINE__, "op %d, fail at %ld: the store changed\n--- before\n%s\n--- after the failed call\n%s", op, fail, zBefore, z);
      /* the store still works: the call again, then committed, it has the whole effect, also in the file */
      else if (runOp(m, op, j.z) != CAIRN_OK) tfFail(__FILE__, __LINE__, "op %d, fail at %ld: the call again: %s", op, fail, cairn_errmsg());
      else {
        char *z2 = fingerprint(m, 1);
        if (strcmp(z2, zAfter)) tfFail(__FILE__, __LINE__, "op %d, fail at %ld: the call again has another result", op, fail);
        free(z2);
      }
    }
    free(z);
    CHECK_OK(cairn_mem_commit(m));
    cairn_mem_close(m);
    if (rc != CAIRN_OK && !tfFailed()) {
      /* what the file holds: the one call's effect, once */
      char *zf = reopenPrint(zPath), *zr = reopenPrint(zRef);
      if (!zf || !zr || strcmp(zf, zr)) tfFail(__FILE__, __LINE__, "op %d, fail at %ld: the file differs from the reference", op, fail);
      free(zf), free(zr);
    }
  }
  CHECK(done);
  CHECK(nFailed > (op == 2 ? 0 : 10));
  if (getenv("CAIRN_TEST_VERBOSE")) fprintf(stderr, "op %d: %d allocation failures swept\n", op, nFailed);
  free(zBefore), free(zAfter), free(j.z);
  remove(zPath), remove(zRef);
}

TEST(memnear, import_all_or_nothing_under_oom) { sweep(0); }
TEST(memnear, delete_where_all_or_nothing_under_oom) { sweep(1); }
TEST(memnear, delete_of_versions_all_or_nothing_under_oom) { sweep(2); }
TEST(memnear, batch_of_adds_all_or_nothing_under_oom) { sweep(3); }

/* Inside a batch only appends run; batch_end(0) takes back adds that succeeded too. */
TEST(memnear, batch_rules) {
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(NULL, NULL, &m));
  cairn_mem_record r;
  memset(&r, 0, sizeof r);
  r.zText = "kept before the batch";
  CHECK_OK(cairn_mem_add(m, &r, NULL));
  char *zBefore = fingerprint(m, 1);
  CHECK_OK(cairn_mem_batch_begin(m));
  CHECK_RC(cairn_mem_batch_begin(m), CAIRN_MISUSE);
  r.zText = "inside the batch", r.zUser = "zed";
  CHECK_OK(cairn_mem_add(m, &r, NULL));
  CHECK_RC(cairn_mem_commit(m), CAIRN_MISUSE);
  CHECK_RC(cairn_mem_delete(m, 1), CAIRN_MISUSE);
  CHECK_RC(cairn_mem_touch(m, 1), CAIRN_MISUSE);
  cairn_mem_put_result res;
  CHECK_RC(cairn_mem_put(m, &r, NULL, &res), CAIRN_MISUSE);
  CHECK_OK(cairn_mem_batch_end(m, 0));
  CHECK_RC(cairn_mem_batch_end(m, 0), CAIRN_MISUSE);
  char *zAfter = fingerprint(m, 1);
  CHECK(!strcmp(zBefore, zAfter));
  free(zBefore), free(zAfter);
  CHECK_OK(cairn_mem_commit(m));
  cairn_mem_close(m);
}
