/* 2026-11-29 - crash safety of the memory store's log, with tests/core/faultfile.c: for every
** N, fail the Nth write or sync with an I/O error, tear the Nth write, or cut the power before
** the Nth write or sync (with and without garbage in lost writes, several seeds). After the
** power fails, a restarted program must open the store and find every memory whose commit
** returned OK, nothing that was never committed, the texts intact, and a working search. */
#include <stdlib.h>

#include "faultfile.h"
#include "mem/mem_int.h"
#include "tf.h"

#define NCOMMIT 4
#define PER 3

static void textOf(int i, char *z, size_t n) {
  cairnFormat(z, n, "memory number %d about topic%d and the lake", i, i % 5);
}

/* One run; returns 1 if the fault point was reached, 0 if not, -1 on a failed check. */
/* A reopened store must answer a search: min(3, nMemory) hits for zQuery. Nonzero (and a test
** failure) if not. */
static int searchAfterCrash(cairn_mem *m, const char *zWhat, const char *zQuery, uint64_t nMemory) {
  cairn_mem_hit h[3];
  uint32_t n;
  cairn_mem_query q;
  memset(&q, 0, sizeof q);
  q.zText = zQuery, q.k = 3;
  if (cairn_mem_search(m, &q, h, &n) || n != CAIRN_MIN(3u, (uint32_t)nMemory)) {
    tfFail(__FILE__, __LINE__, "%s: search after the crash: %s", zWhat, cairn_errmsg());
    return 1;
  }
  return 0;
}

/* Make an empty store in a new memory file *ppBase (created and synced without faults), then
** reopen it through a fault file with spec (*ppF, *ppM; opening a clean store writes nothing).
** Nonzero, with a test failure and nothing left open, if either open fails. */
static int openUnderFaults(const cairn_mem_config *cfg, const FaultSpec *spec, const char *zWhat,
                           cairn_file **ppBase, cairn_file **ppF, cairn_mem **ppM) {
  cairn_file *base, *f;
  cairn_mem *m;
  if (cairn_memfile_open(NULL, 0, &base)) return -1;
  faultfileWrap(base, 0, NULL, &f);
  if (cairn_mem_open_file(f, cfg, &m)) {
    tfFail(__FILE__, __LINE__, "%s: setup: %s", zWhat, cairn_errmsg());
    cairn_file_close(base);
    return -1;
  }
  cairn_mem_close(m);
  faultfileWrap(base, 0, spec, &f);
  if (cairn_mem_open_file(f, cfg, &m)) {
    tfFail(__FILE__, __LINE__, "%s: open: %s", zWhat, cairn_errmsg());
    cairn_file_close(base);
    return -1;
  }
  *ppBase = base, *ppF = f, *ppM = m;
  return 0;
}

static int memCrashRun(const FaultSpec *spec, const char *zWhat) {
  cairn_file *base, *f;
  cairn_mem *m;
  cairn_mem_config cfg = {16, CAIRN_METRIC_COSINE, 0, 0, 0, 0, 0, 0};
  if (openUnderFaults(&cfg, spec, zWhat, &base, &f, &m)) return -1;
  int nAdded = 0, nAcked = 0; /* memories added; memories covered by the last commit that returned OK */
  for (int c = 0; c < NCOMMIT; c++) {
    for (int i = 0; i < PER; i++) {
      char z[96];
      textOf(nAdded, z, sizeof z);
      cairn_mem_record r;
      memset(&r, 0, sizeof r);
      r.zText = z;
      r.zSession = c & 1 ? "odd" : "even";
      r.createdMs = 1000 + nAdded;
      if (cairn_mem_add(m, &r, NULL) == CAIRN_OK) nAdded++;
    }
    if (cairn_mem_commit(m) == CAIRN_OK) nAcked = nAdded;
    else if (!faultfileDead(f) && cairn_mem_commit(m) == CAIRN_OK) nAcked = nAdded; /* an I/O error: retry once */
  }
  uint32_t nW, nS;
  faultfileCounts(f, &nW, &nS);
  int reached = (spec->nFailWrite && nW >= spec->nFailWrite) || (spec->nTearWrite && nW >= spec->nTearWrite) ||
                (spec->nCrashWrite && nW >= spec->nCrashWrite) || (spec->nFailSync && nS >= spec->nFailSync) ||
                (spec->nCrashSync && nS >= spec->nCrashSync);
  faultfilePowerLoss(f); /* what was acknowledged must have been synced */
  cairn_mem_close(m);

  faultfileWrap(base, 0, NULL, &f);
  int rc = cairn_mem_open_file(f, NULL, &m);
  if (rc) {
    tfFail(__FILE__, __LINE__, "%s: reopen after the crash: %s", zWhat, cairn_errmsg());
    cairn_file_close(base);
    return -1;
  }
  cairn_mem_stats st;
  cairn_mem_stats_get(m, &st);
  int bad = 0;
  if (st.nMemory < (uint64_t)nAcked || st.nMemory > (uint64_t)nAdded || st.nMemory % PER) {
    tfFail(__FILE__, __LINE__, "%s: %llu memories after the crash; %d acknowledged, %d added", zWhat,
           (unsigned long long)st.nMemory, nAcked, nAdded);
    bad = 1;
  }
  for (uint64_t id = 1; !bad && id <= st.nMemory; id++) {
    cairn_mem_record r;
    char z[96];
    textOf((int)id - 1, z, sizeof z);
    if (cairn_mem_get(m, id, &r) || strcmp(r.zText, z) != 0 || r.createdMs != 1000 + (int64_t)id - 1) {
      tfFail(__FILE__, __LINE__, "%s: memory %llu damaged", zWhat, (unsigned long long)id);
      bad = 1;
    }
  }
  if (!bad && searchAfterCrash(m, zWhat, "topic1 lake", st.nMemory)) bad = 1;
  /* and the restarted program can go on committing */
  cairn_mem_record r;
  memset(&r, 0, sizeof r);
  r.zText = "after the crash";
  if (!bad && (cairn_mem_add(m, &r, NULL) || cairn_mem_commit(m))) {
    tfFail(__FILE__, __LINE__, "%s: commit after the crash: %s", zWhat, cairn_errmsg());
    bad = 1;
  }
  cairn_mem_close(m);
  cairn_file_close(base);
  return bad ? -1 : reached;
}

static int gRuns; /* runs that reached their fault, over the suite */
/* Run one scripted session per fault point N = 1, 2, ... (the Nth write/sync fails, tears or
** loses power, by field 0-4) until a run no longer reaches its fault. xRun returns -1 on a wrong
** reopen, 0 when the run never reached fault N, 1 otherwise. */
static void sweepWith(int (*xRun)(const FaultSpec *, const char *), uint32_t nMax, int bSectorAtomic,
                      const char *zWhat, int field, int garble, uint64_t seed) {
  for (uint32_t n = 1; n < nMax; n++) {
    FaultSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.bGarble = garble, spec.seed = seed + n, spec.bSectorAtomic = bSectorAtomic;
    switch (field) {
      case 0: spec.nFailWrite = n; break;
      case 1: spec.nFailSync = n; break;
      case 2: spec.nTearWrite = n; break;
      case 3: spec.nCrashWrite = n; break;
      default: spec.nCrashSync = n; break;
    }
    int r = xRun(&spec, zWhat);
    if (r < 0) {
      tfFail(__FILE__, __LINE__, "%s: failed at N = %u (seed %llu)", zWhat, n, (unsigned long long)spec.seed);
      return;
    }
    if (r == 0) return; /* the run never reached fault N: done */
    gRuns++;
  }
}
static void sweep(const char *zWhat, int field, int garble, uint64_t seed) {
  sweepWith(memCrashRun, 200, 0, zWhat, field, garble, seed);
}

TEST(memcrash, io_errors) {
  gRuns = 0;
  sweep("fail write", 0, 0, 1);
  sweep("fail sync", 1, 0, 2);
  CHECK(gRuns >= 2 * NCOMMIT); /* every commit's write and sync was hit */
}
TEST(memcrash, torn_and_lost_writes) {
  gRuns = 0;
  for (uint64_t seed = 1; seed <= 4; seed++) {
    sweep("tear write", 2, (int)(seed & 1), seed * 100);
    sweep("crash before write", 3, (int)(seed & 1), seed * 100);
    sweep("crash before sync", 4, (int)(seed & 1), seed * 100);
  }
  CHECK(gRuns >= 3 * 4 * NCOMMIT);
}

/* ---- the HDF5 checkpoint: adds, commits, touches, an IVF build, explicit and automatic
** checkpoints and the checkpoint of close, crashed at every write and sync. A write inside one
** 512-byte sector is atomic here (bSectorAtomic): the HDF5 superblock switch assumes it, as
** core/h5/WRITER.md says. After the crash the store must hold every memory whose commit
** returned OK, none that was not added, each intact (text, session, role, times, embedding),
** its HDF5 part must pass the writer's full verification, and it must take new commits and
** checkpoints. */
#include "cairn/h5w.h"

#define CK_ROUNDS 6
#define CK_PER 3
#define CK_DIM 16

static void ckText(int i, char *z, size_t n) { cairnFormat(z, n, "note %d: the heron crossed lake %d at dawn", i, i % 4); }

static int ckCheckRow(cairn_mem *m, uint64_t id) {
  char z[96];
  int i = (int)id - 1;
  ckText(i, z, sizeof z);
  cairn_mem_record r;
  float want[CK_DIM], got[CK_DIM];
  if (cairn_mem_get(m, id, &r) || strcmp(r.zText, z) || r.createdMs != 5000 + i || r.eventMs != 9000 + 2 * i) return 0;
  if (!r.zSession || strcmp(r.zSession, i % 3 ? "s-odd" : "s-zero") || !r.zRole || strcmp(r.zRole, i & 1 ? "assistant" : "user")) return 0;
  if (cairn_mem_embed(z, strlen(z), want, CK_DIM) || cairn_mem_embedding(m, id, got)) return 0;
  return memcmp(want, got, sizeof want) == 0;
}

/* The text of memory id (edRun's memories 3..6 are ckText's) and its user. */
static int ckCheckRowText(cairn_mem *m, uint64_t id) {
  char z[96];
  ckText((int)id - 1, z, sizeof z);
  cairn_mem_record r;
  return cairn_mem_get(m, id, &r) == CAIRN_OK && !strcmp(r.zText, z) && r.zUser && !strcmp(r.zUser, "u") && r.createdMs == 5000 + (int64_t)id - 1;
}

static int ckRun(const FaultSpec *spec, const char *zWhat) {
  cairn_file *base, *f;
  cairn_mem *m;
  cairn_mem_config cfg = {CK_DIM, CAIRN_METRIC_COSINE, 0, 0, 0, 0, 4, 0};
  if (openUnderFaults(&cfg, spec, zWhat, &base, &f, &m)) return -1;
  int nAdded = 0, nAcked = 0;
  for (int c = 0; c < CK_ROUNDS; c++) {
    for (int i = 0; i < CK_PER; i++) {
      char z[96];
      ckText(nAdded, z, sizeof z);
      cairn_mem_record r;
      memset(&r, 0, sizeof r);
      r.zText = z;
      r.zSession = nAdded % 3 ? "s-odd" : "s-zero";
      r.zRole = nAdded & 1 ? "assistant" : "user";
      r.createdMs = 5000 + nAdded, r.eventMs = 9000 + 2 * nAdded;
      if (cairn_mem_add(m, &r, NULL) == CAIRN_OK) nAdded++;
    }
    if (nAdded) cairn_mem_touch(m, 1);
    if (c == 2) {
      cairn_mem_index_config ic = {CAIRN_VINDEX_IVF, 2, 0, 3, 0, 7};
      cairn_mem_build_index(m, &ic);
    }
    if (cairn_mem_commit(m) == CAIRN_OK) nAcked = nAdded;
    else if (!faultfileDead(f) && cairn_mem_commit(m) == CAIRN_OK) nAcked = nAdded;
    if (c == 1 || c == 4) cairn_mem_checkpoint(m); /* its commit has nothing left to do */
  }
  cairn_mem_checkpoint(m); /* what close would do */
  uint32_t nW, nS;
  faultfileCounts(f, &nW, &nS);
  int reached = (spec->nFailWrite && nW >= spec->nFailWrite) || (spec->nTearWrite && nW >= spec->nTearWrite) ||
                (spec->nCrashWrite && nW >= spec->nCrashWrite) || (spec->nFailSync && nS >= spec->nFailSync) ||
                (spec->nCrashSync && nS >= spec->nCrashSync);
  faultfilePowerLoss(f);
  cairn_mem_close(m); /* closes f; its checkpoint finds the power gone */

  int bad = 0;
  /* the HDF5 part on its own: every structure checks out */
  cairn_h5w *w = NULL;
  uint8_t dg[32];
  if (cairn_h5w_open(base, CAIRN_H5W_READONLY, &w) || cairn_h5w_verify(w, dg)) {
    tfFail(__FILE__, __LINE__, "%s: the HDF5 part fails verification: %s", zWhat, cairn_errmsg());
    bad = 1;
  }
  cairn_h5w_discard(w);
  faultfileWrap(base, 0, NULL, &f);
  if (bad || cairn_mem_open_file(f, NULL, &m)) {
    if (!bad) tfFail(__FILE__, __LINE__, "%s: reopen after the crash: %s", zWhat, cairn_errmsg());
    cairn_file_close(base);
    return -1;
  }
  cairn_mem_stats st;
  cairn_mem_stats_get(m, &st);
  if (st.nMemory < (uint64_t)nAcked || st.nMemory > (uint64_t)nAdded || st.nMemory % CK_PER || st.nCheckpointed > st.nMemory) {
    tfFail(__FILE__, __LINE__, "%s: %llu memories (%llu checkpointed) after the crash; %d acknowledged, %d added", zWhat,
           (unsigned long long)st.nMemory, (unsigned long long)st.nCheckpointed, nAcked, nAdded);
    bad = 1;
  }
  for (uint64_t id = 1; !bad && id <= st.nMemory; id++)
    if (!ckCheckRow(m, id)) {
      tfFail(__FILE__, __LINE__, "%s: memory %llu damaged", zWhat, (unsigned long long)id);
      bad = 1;
    }
  /* memory 1 was touched once per committed round (the rounds are the commits) */
  cairn_mem_record r;
  if (!bad && st.nMemory && (cairn_mem_get(m, 1, &r) || r.accessCount != st.nMemory / CK_PER)) {
    tfFail(__FILE__, __LINE__, "%s: access count %u after %llu rounds", zWhat, r.accessCount, (unsigned long long)(st.nMemory / CK_PER));
    bad = 1;
  }
  if (!bad && st.nMemory >= 3 * CK_PER && st.ivfKind != CAIRN_VINDEX_IVF) {
    tfFail(__FILE__, __LINE__, "%s: the IVF index was lost", zWhat);
    bad = 1;
  }
  if (!bad && searchAfterCrash(m, zWhat, "heron lake 1", st.nMemory)) bad = 1;
  memset(&r, 0, sizeof r);
  r.zText = "after the crash";
  if (!bad && (cairn_mem_add(m, &r, NULL) || cairn_mem_checkpoint(m))) {
    tfFail(__FILE__, __LINE__, "%s: checkpoint after the crash: %s", zWhat, cairn_errmsg());
    bad = 1;
  }
  cairn_mem_close(m);
  cairn_file_close(base);
  return bad ? -1 : reached;
}

static void ckSweep(const char *zWhat, int field, int garble, uint64_t seed) {
  sweepWith(ckRun, 1000, 1, zWhat, field, garble, seed);
}

TEST(memcrash, checkpoint_io_errors) {
  gRuns = 0;
  ckSweep("checkpoint: fail write", 0, 0, 11);
  ckSweep("checkpoint: fail sync", 1, 0, 12);
  CHECK(gRuns >= 2 * CK_ROUNDS);
}
TEST(memcrash, checkpoint_torn_and_lost_writes) {
  gRuns = 0;
  for (uint64_t seed = 1; seed <= 3; seed++) {
    ckSweep("checkpoint: tear write", 2, (int)(seed & 1), seed * 1000);
    ckSweep("checkpoint: crash before write", 3, (int)(seed & 1), seed * 1000);
    ckSweep("checkpoint: crash before sync", 4, (int)(seed & 1), seed * 1000);
  }
  CHECK(gRuns >= 3 * 3 * CK_ROUNDS);
}

/* ---- versions and forgetting (2026-12-02, issue 17): updates, deletes and the rewrite that
** forgets (and compaction) crashed at every write and sync. After the crash: every acknowledged
** update and delete holds, nothing else changed, the HDF5 part verifies, and once the reopened
** store checkpoints (or had finished the rewrite) no byte of the forgotten memory is in the file. */
#define ED_SECRET "okapisecret-8812"
static int bytesHave(cairn_file *base, const char *z) {
  const uint8_t *p;
  size_t n, k = strlen(z);
  if (cairn_memfile_data(base, &p, &n)) return -1;
  for (size_t i = 0; i + k <= n; i++)
    if (!memcmp(p + i, z, k)) return 1;
  return 0;
}
static int edRun(const FaultSpec *spec, const char *zWhat) {
  cairn_file *base, *f;
  cairn_mem *m;
  cairn_mem_config cfg = {CK_DIM, CAIRN_METRIC_COSINE, 0, 0, 0, 0, UINT32_MAX, 0};
  if (openUnderFaults(&cfg, spec, zWhat, &base, &f, &m)) return -1;
  int nAcked = 0, updAcked = 0, delAcked = 0, rewriteDone = 0;
  for (int i = 0; i < 6; i++) {
    char z[96];
    if (i == 1) cairnFormat(z, sizeof z, "%s lives at the mill", ED_SECRET);
    else ckText(i, z, sizeof z);
    cairn_mem_record r;
    memset(&r, 0, sizeof r);
    r.zText = z, r.zUser = i == 1 ? "secret-user-77" : "u", r.createdMs = 5000 + i;
    cairn_mem_add(m, &r, NULL);
  }
  if (cairn_mem_commit(m) == CAIRN_OK) nAcked = 6;
  cairn_mem_checkpoint(m);
  cairn_mem_record u;
  memset(&u, 0, sizeof u);
  u.zText = "the heron moved to lake 9";
  u.validFromMs = 7000;
  if (nAcked && cairn_mem_update(m, 1, &u, CAIRN_MEM_F_TEXT, NULL) == CAIRN_OK && cairn_mem_commit(m) == CAIRN_OK) updAcked = 1;
  if (updAcked && cairn_mem_delete(m, 2) == CAIRN_OK && cairn_mem_commit(m) == CAIRN_OK) delAcked = 1;
  if (delAcked && cairn_mem_checkpoint(m) == CAIRN_OK) rewriteDone = 1;
  if (rewriteDone) cairn_mem_compact(m);
  uint32_t nW, nS;
  faultfileCounts(f, &nW, &nS);
  int reached = (spec->nFailWrite && nW >= spec->nFailWrite) || (spec->nTearWrite && nW >= spec->nTearWrite) ||
                (spec->nCrashWrite && nW >= spec->nCrashWrite) || (spec->nFailSync && nS >= spec->nFailSync) ||
                (spec->nCrashSync && nS >= spec->nCrashSync);
  faultfilePowerLoss(f);
  cairn_mem_close(m);
  int bad = 0;
  if (rewriteDone && bytesHave(base, ED_SECRET) != 0) {
    tfFail(__FILE__, __LINE__, "%s: the forgotten text is back in the file after an acknowledged rewrite", zWhat);
    bad = 1;
  }
  faultfileWrap(base, 0, NULL, &f);
  if (bad || cairn_mem_open_file(f, NULL, &m)) { /* a writable open finishes an interrupted rewrite */
    if (!bad) tfFail(__FILE__, __LINE__, "%s: reopen after the crash: %s", zWhat, cairn_errmsg());
    cairn_file_close(base);
    return -1;
  }
  cairn_h5w *w = NULL;
  uint8_t dg[32];
  if (cairn_h5w_open(base, CAIRN_H5W_READONLY, &w) || cairn_h5w_verify(w, dg)) {
    tfFail(__FILE__, __LINE__, "%s: the HDF5 part fails verification: %s", zWhat, cairn_errmsg());
    bad = 1;
  }
  cairn_h5w_discard(w);
  cairn_mem_stats st;
  cairn_mem_stats_get(m, &st);
  cairn_mem_record r;
  if (!bad && st.nMemory < (uint64_t)nAcked) tfFail(__FILE__, __LINE__, "%s: %llu memories, %d acknowledged", zWhat, (unsigned long long)st.nMemory, nAcked), bad = 1;
  if (!bad && nAcked) {
    for (uint64_t id = 3; id <= 6 && !bad; id++)
      if (!ckCheckRowText(m, id)) tfFail(__FILE__, __LINE__, "%s: memory %llu damaged", zWhat, (unsigned long long)id), bad = 1;
    int upd = cairn_mem_get(m, 1, &r) == CAIRN_OK && !strcmp(r.zText, "the heron moved to lake 9");
    if (!bad && updAcked && !upd) tfFail(__FILE__, __LINE__, "%s: an acknowledged update was lost", zWhat), bad = 1;
    uint32_t nv = 0;
    if (!bad && upd && (cairn_mem_history(m, 1, NULL, 0, &nv) || nv != 2)) tfFail(__FILE__, __LINE__, "%s: history of %u versions", zWhat, nv), bad = 1;
    int gone = cairn_mem_get(m, 2, &r) == CAIRN_NOTFOUND;
    if (!gone) cairn_clearerr();
    if (!bad && delAcked && !gone) tfFail(__FILE__, __LINE__, "%s: an acknowledged delete came back", zWhat), bad = 1;
    if (!bad && !gone && (strncmp(r.zText, ED_SECRET, strlen(ED_SECRET)) || !r.zUser || strcmp(r.zUser, "secret-user-77")))
      tfFail(__FILE__, __LINE__, "%s: memory 2 damaged", zWhat), bad = 1;
    /* forgotten: after this writer's checkpoint no byte of it is left */
    if (!bad && gone && (cairn_mem_checkpoint(m) || bytesHave(base, ED_SECRET) != 0 || bytesHave(base, "secret-user-77") != 0))
      tfFail(__FILE__, __LINE__, "%s: forgotten bytes in the file after the checkpoint (%s)", zWhat, cairn_errmsg()), bad = 1;
  }
  memset(&r, 0, sizeof r);
  r.zText = "after the crash";
  if (!bad && (cairn_mem_add(m, &r, NULL) || cairn_mem_checkpoint(m))) tfFail(__FILE__, __LINE__, "%s: checkpoint after: %s", zWhat, cairn_errmsg()), bad = 1;
  cairn_mem_close(m);
  cairn_file_close(base);
  return bad ? -1 : reached;
}
static void edSweep(const char *zWhat, int field, int garble, uint64_t seed) { sweepWith(edRun, 400, 1, zWhat, field, garble, seed); }
TEST(memcrash, forget_and_update_io_errors) {
  gRuns = 0;
  edSweep("forget: fail write", 0, 0, 21);
  edSweep("forget: fail sync", 1, 0, 22);
  CHECK(gRuns >= 10);
}
TEST(memcrash, forget_and_update_torn_and_lost_writes) {
  gRuns = 0;
  for (uint64_t seed = 1; seed <= 2; seed++) {
    edSweep("forget: tear write", 2, (int)(seed & 1), seed * 3000);
    edSweep("forget: crash before write", 3, (int)(seed & 1), seed * 3000);
    edSweep("forget: crash before sync", 4, (int)(seed & 1), seed * 3000);
  }
  CHECK(gRuns >= 30);
}

/* ---- consolidation (2026-12-02, issue 18): a cycle and the commit after it crashed at every
** write and sync. The cycle is one batch: after the crash either all of it holds (4 memories
** episodic, 2 working) or none (6 working), and an acknowledged cycle is never lost, also when
** the checkpoint after it crashes. */
#include "cairn/consolidate.h"
/* Did the run reach the fault spec sets (its write or sync count)? */
static int faultReached(cairn_file *f, const FaultSpec *spec) {
  uint32_t nW, nS;
  faultfileCounts(f, &nW, &nS);
  return (spec->nFailWrite && nW >= spec->nFailWrite) || (spec->nTearWrite && nW >= spec->nTearWrite) ||
         (spec->nCrashWrite && nW >= spec->nCrashWrite) || (spec->nFailSync && nS >= spec->nFailSync) ||
         (spec->nCrashSync && nS >= spec->nCrashSync);
}
static int consCrashRun(const FaultSpec *spec, const char *zWhat) {
  cairn_file *base, *f;
  cairn_mem *m;
  cairn_mem_config cfg = {CK_DIM, CAIRN_METRIC_COSINE, 0, 0, 0, 0, UINT32_MAX, 0};
  if (openUnderFaults(&cfg, spec, zWhat, &base, &f, &m)) return -1;
  int nAcked = 0, consAcked = 0;
  for (int i = 0; i < 6; i++) {
    char z[96];
    ckText(i, z, sizeof z);
    cairn_mem_record r;
    memset(&r, 0, sizeof r);
    r.zText = z, r.zUser = "u", r.createdMs = 5000 + i, r.importance = (float)i / 10;
    cairn_mem_add(m, &r, NULL);
  }
  if (cairn_mem_commit(m) == CAIRN_OK) nAcked = 6;
  cairn_mem_consolidate_config c;
  memset(&c, 0, sizeof c);
  c.capacity = 2, c.nowMs = 9000, c.mergeThreshold = -1;
  if (nAcked && cairn_mem_consolidate(m, &c, NULL) == CAIRN_OK && cairn_mem_commit(m) == CAIRN_OK) consAcked = 1;
  if (consAcked) cairn_mem_checkpoint(m); /* the cycle's versions into the HDF5 datasets: many writes */
  int reached = faultReached(f, spec);
  faultfilePowerLoss(f);
  cairn_mem_close(m);
  faultfileWrap(base, 0, NULL, &f);
  if (cairn_mem_open_file(f, NULL, &m)) {
    tfFail(__FILE__, __LINE__, "%s: reopen after the crash: %s", zWhat, cairn_errmsg());
    cairn_file_close(base);
    return -1;
  }
  int bad = 0, nEpi = 0, nWork = 0, nLive = 0;
  for (uint64_t id = 1; id <= 6; id++) {
    cairn_mem_record r;
    if (cairn_mem_get(m, id, &r) != CAIRN_OK) {
      cairn_clearerr();
      continue;
    }
    nLive++;
    nEpi += r.tier == CAIRN_TIER_EPISODIC, nWork += r.tier == CAIRN_TIER_WORKING;
    if (!ckCheckRowText(m, id)) tfFail(__FILE__, __LINE__, "%s: memory %llu damaged", zWhat, (unsigned long long)id), bad = 1;
  }
  if (!bad && nLive < nAcked) tfFail(__FILE__, __LINE__, "%s: %d memories, %d acknowledged", zWhat, nLive, nAcked), bad = 1;
  if (!bad && nLive && !((nEpi == 4 && nWork == 2) || (nEpi == 0 && nWork == nLive)))
    tfFail(__FILE__, __LINE__, "%s: half a cycle: %d episodic, %d working", zWhat, nEpi, nWork), bad = 1;
  if (!bad && consAcked && nEpi != 4) tfFail(__FILE__, __LINE__, "%s: an acknowledged cycle was lost (%d episodic)", zWhat, nEpi), bad = 1;
  cairn_mem_close(m);
  cairn_file_close(base);
  return bad ? -1 : reached;
}
TEST(memcrash, consolidate_faults) {
  static const struct { const char *z; int field, garble; uint64_t seed; } a[] = {
    {"consolidate: fail write", 0, 0, 31}, {"consolidate: fail sync", 1, 0, 32}, {"consolidate: tear write", 2, 1, 3300},
    {"consolidate: crash before write", 3, 0, 3400}, {"consolidate: crash before sync", 4, 1, 3500}};
  gRuns = 0;
  for (size_t i = 0; i < sizeof a / sizeof *a; i++) sweepWith(consCrashRun, 400, 1, a[i].z, a[i].field, a[i].garble, a[i].seed);
  CHECK(gRuns >= 10); /* the cycle's commit and the checkpoint's writes and syncs were hit */
}
