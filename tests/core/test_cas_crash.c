/* 2026-11-29 - crash safety of the durable store, with tests/core/faultfile.c: for every N,
** fail / tear / cut the power at the Nth write or sync while payloads, names and a
** transaction of small payloads are published; after the (simulated) restart every payload
** is either fully there and verified or absent, a transaction is all or nothing, whatever
** was acknowledged is there, and nothing published before is lost. */
#include <stdlib.h>

#include "cas/cas_int.h"
#include "faultfile.h"
#include "tf.h"

#define NSMALL 12

typedef struct Scenario {
  cairn_cas_config cfg;
  uint8_t *aBig;      /* payload B */
  size_t nBig;
  uint8_t idA[32], idB[32], idC[32], aSmall[NSMALL][32];
  uint8_t aSmallData[NSMALL][300];
  uint8_t *aA;
  size_t nA;
} Scenario;

/* bLarge: chunks of about 1 MiB, as by default, so chunk data does not fit the store's 1 MiB
** write buffer and goes to the file in a write of its own, apart from its record header:
** the case where a missing sync would let a commit record land without the data it covers. */
static void scenarioInit(Scenario *s, int codec, int bLarge) {
  memset(s, 0, sizeof(*s));
  s->cfg.chunking.nMin = bLarge ? 262144 : 1024;
  s->cfg.chunking.nAvg = bLarge ? 1048576 : 4096;
  s->cfg.chunking.nMax = bLarge ? 2097152 : 16384;
  s->cfg.chunking.level = 2;
  s->cfg.codec = codec;
  s->nA = 150000;
  s->aA = malloc(s->nA);
  tfFillRandom(s->aA, s->nA, 1);
  for (size_t i = 0; i < s->nA; i += 997) s->aA[i] = 'a'; /* a little compressible */
  s->nBig = bLarge ? 7000000 : 1500000; /* B: more than the store's 1 MiB write buffer */
  s->aBig = malloc(s->nBig);
  tfFillRandom(s->aBig, s->nBig, 2);
  memcpy(s->aBig + 400000, s->aA, 100000); /* shares chunks with A */
  for (int i = 0; i < NSMALL; i++) tfFillRandom(s->aSmallData[i], 300, 100 + (uint64_t)i);
}

static void scenarioFree(Scenario *s) {
  free(s->aA);
  free(s->aBig);
}

/* Payload present and verified (1), absent (0), or damaged (-1). */
static int payloadState(cairn_cas *cas, const uint8_t *id, const uint8_t *a, size_t n) {
  uint64_t sz;
  if (cairn_cas_stat(cas, id, &sz) == CAIRN_NOTFOUND) return 0;
  if (sz != n) return -1;
  uint8_t *b = malloc(n ? n : 1);
  size_t nGot = 0;
  int rc = cairn_cas_read(cas, id, 0, b, n, &nGot);
  int ok = rc == CAIRN_OK && nGot == n && memcmp(a, b, n) == 0;
  free(b);
  return ok ? 1 : -1;
}

static uint32_t gPending; /* unsynced operations at the last power loss */

/* One run: returns 1 if the fault point was reached (so the caller tries N+1). */
static int crashRun(Scenario *s, const FaultSpec *spec, const char *zWhat) {
  int reached = 0;
  cairn_file *base, *f;
  cairn_cas *cas = NULL;
  int rc;
  /* Setup, without faults: payload A named "a", committed. */
  if (cairn_memfile_open(NULL, 0, &base)) return tfFail(__FILE__, __LINE__, "memfile"), 0;
  faultfileWrap(base, 0, NULL, &f);
  if ((rc = cairn_cas_open_file(f, &s->cfg, &cas)) || (rc = cairn_cas_put(cas, s->aA, s->nA, s->idA)) ||
      (rc = cairn_cas_name_set(cas, "a", s->idA))) {
    tfFail(__FILE__, __LINE__, "%s setup: %s", zWhat, cairn_errmsg());
    cairn_file_close(base);
    return 0;
  }
  cairn_cas_close(cas);

  /* The run under faults. */
  faultfileWrap(base, 0, spec, &f);
  int okB = 0, okName = 0, okTxn = 0, okC = 0;
  rc = cairn_cas_open_file(f, &s->cfg, &cas);
  if (rc) { /* opening a clean store writes nothing, so no fault can hit it */
    tfFail(__FILE__, __LINE__, "%s: open: %s", zWhat, cairn_errmsg());
    cairn_file_close(base);
    return 0;
  }
  {
    okB = cairn_cas_put(cas, s->aBig, s->nBig, s->idB) == CAIRN_OK;
    if (okB) okName = cairn_cas_name_set(cas, "b", s->idB) == CAIRN_OK;
    if (cairn_cas_begin(cas) == CAIRN_OK) {
      int ok = 1;
      for (int i = 0; i < NSMALL && ok; i++) ok = cairn_cas_put(cas, s->aSmallData[i], 300, s->aSmall[i]) == CAIRN_OK;
      if (ok) ok = cairn_cas_name_set(cas, "small", s->aSmall[3]) == CAIRN_OK;
      if (ok) ok = cairn_cas_commit(cas) == CAIRN_OK;
      if (!ok) cairn_cas_rollback(cas);
      okTxn = ok;
    }
    /* After a failure (without a crash) the store keeps working. */
    uint8_t c[5000];
    tfFillRandom(c, sizeof c, 3);
    okC = cairn_cas_put(cas, c, sizeof c, s->idC) == CAIRN_OK;
  }
  uint32_t nW, nS;
  faultfileCounts(f, &nW, &nS);
  if ((spec->nFailWrite && nW >= spec->nFailWrite) || (spec->nTearWrite && nW >= spec->nTearWrite) ||
      (spec->nCrashWrite && nW >= spec->nCrashWrite) || (spec->nFailSync && nS >= spec->nFailSync) ||
      (spec->nCrashSync && nS >= spec->nCrashSync))
    reached = 1;
  /* The power fails now in every case (what was acknowledged must have been synced). */
  faultfilePowerLoss(f);
  gPending = faultfilePendingAtLoss(f);
  cairn_cas_close(cas);

  /* Restart. */
  faultfileWrap(base, 0, NULL, &f);
  rc = cairn_cas_open_file(f, &s->cfg, &cas);
  if (rc) {
    tfFail(__FILE__, __LINE__, "%s: reopen after the crash: %s", zWhat, cairn_errmsg());
    cairn_file_close(base);
    return 0;
  }
  int stA = payloadState(cas, s->idA, s->aA, s->nA), stB = payloadState(cas, s->idB, s->aBig, s->nBig);
  uint8_t c[5000], id[32];
  tfFillRandom(c, sizeof c, 3);
  int stC = payloadState(cas, s->idC, c, sizeof c);
  int nSmall = 0, bad = 0;
  for (int i = 0; i < NSMALL; i++) {
    int st = payloadState(cas, s->aSmall[i], s->aSmallData[i], 300);
    if (st < 0) bad = 1;
    nSmall += st == 1;
  }
  if (stA != 1) tfFail(__FILE__, __LINE__, "%s: payload A published before is %s", zWhat, stA ? "damaged" : "lost");
  if (stB < 0 || (okB && stB != 1)) tfFail(__FILE__, __LINE__, "%s: payload B is %s (put said %d)", zWhat, stB ? "damaged" : "absent", okB);
  if (stC < 0 || (okC && stC != 1)) tfFail(__FILE__, __LINE__, "%s: payload C is %s (put said %d)", zWhat, stC ? "damaged" : "absent", okC);
  if (bad || (nSmall != 0 && nSmall != NSMALL) || (okTxn && nSmall != NSMALL))
    tfFail(__FILE__, __LINE__, "%s: the transaction is not all-or-nothing: %d of %d small payloads (commit said %d)", zWhat, nSmall,
           NSMALL, okTxn);
  if (cairn_cas_name_get(cas, "a", id) != CAIRN_OK || memcmp(id, s->idA, 32) != 0) tfFail(__FILE__, __LINE__, "%s: name a lost", zWhat);
  if (okName && (cairn_cas_name_get(cas, "b", id) != CAIRN_OK || memcmp(id, s->idB, 32) != 0))
    tfFail(__FILE__, __LINE__, "%s: acknowledged name b lost", zWhat);
  if ((cairn_cas_name_get(cas, "small", id) == CAIRN_OK) != (nSmall == NSMALL))
    tfFail(__FILE__, __LINE__, "%s: the transaction's name and payloads disagree", zWhat);
  uint64_t nBad = 0;
  if (cairn_cas_verify(cas, NULL, NULL, NULL, NULL, &nBad) != CAIRN_OK)
    tfFail(__FILE__, __LINE__, "%s: verify after recovery: %s", zWhat, cairn_errmsg());
  /* The recovered store takes new payloads. */
  if (cairn_cas_put(cas, "after the crash", 15, id) != CAIRN_OK) tfFail(__FILE__, __LINE__, "%s: put after recovery: %s", zWhat, cairn_errmsg());
  cairn_cas_close(cas);
  faultfileWrap(base, 0, NULL, &f);
  if (cairn_cas_open_file(f, &s->cfg, &cas) != CAIRN_OK || cairn_cas_stat(cas, id, NULL) != CAIRN_OK ||
      payloadState(cas, s->idA, s->aA, s->nA) != 1)
    tfFail(__FILE__, __LINE__, "%s: second reopen: %s", zWhat, cairn_errmsg());
  cairn_cas_close(cas);
  cairn_file_close(base);
  return reached;
}

static void crashLoop(int codec, int bLarge) {
  Scenario s;
  scenarioInit(&s, codec, bLarge);
  int nRuns = 0;
  for (int mode = 0; mode < 6; mode++) {
    int nSeeds = mode == 0 || mode == 3 ? 1 : 6;
    for (uint32_t n = 1; n < 1000; n++) {
      int reached = 0;
      for (int seed = 0; seed < nSeeds; seed++) {
        FaultSpec spec;
        memset(&spec, 0, sizeof spec);
        spec.seed = (uint64_t)seed * 1000 + n;
        spec.bGarble = seed & 1;
        const char *zMode = "";
        switch (mode) {
          case 0: spec.nFailWrite = n, zMode = "fail write"; break;
          case 1: spec.nTearWrite = n, zMode = "tear write"; break;
          case 2: spec.nCrashWrite = n, zMode = "crash before write"; break;
          case 3: spec.nFailSync = n, zMode = "fail sync"; break;
          case 4: spec.nCrashSync = n, zMode = "crash before sync"; break;
          default: /* every single unsynced write lost in turn, the rest landed */
            spec.nCrashSync = n, spec.nLoseOnly = (uint32_t)seed + 1, zMode = "crash before sync, one write lost";
            if (seed > 0 && (uint32_t)seed >= gPending) seed = nSeeds; /* covered them all */
            else nSeeds = seed + 2;
            break;
        }
        if (seed >= nSeeds) break;
        char zWhat[160];
        snprintf(zWhat, sizeof zWhat, "codec %d%s, %s %u, seed %d", codec, bLarge ? " large chunks" : "", zMode, n, seed);
        reached |= crashRun(&s, &spec, zWhat);
        nRuns++;
      }
      if (!reached) break; /* a run that never got to the Nth operation: every N is covered */
    }
  }
  printf("    %d crash runs (codec %d%s)\n", nRuns, codec, bLarge ? ", large chunks" : "");
  scenarioFree(&s);
}

TEST(cas_crash, every_write_and_sync) { crashLoop(0, 0); }
/* These two also sync early whenever anything is unsynced (the overlap of disk and hash that
** large streamed puts use), so those extra syncs get failed and cut too. */
TEST(cas_crash, every_write_and_sync_zstd) {
  cairnCasSyncAhead = 1;
  crashLoop(CAIRN_ZSTD, 0);
  cairnCasSyncAhead = 0;
}
TEST(cas_crash, every_write_and_sync_large_chunks) {
  cairnCasSyncAhead = 1;
  crashLoop(0, 1);
  cairnCasSyncAhead = 0;
}

/* The store's creation itself can be cut at any point: the file then opens as a new store. */
TEST(cas_crash, creation) {
  for (uint32_t n = 1; n <= 4; n++) {
    for (int which = 0; which < 3; which++) {
      cairn_file *base, *f;
      cairn_cas *cas = NULL;
      CHECK_OK(cairn_memfile_open(NULL, 0, &base));
      FaultSpec spec;
      memset(&spec, 0, sizeof spec);
      if (which == 0) spec.nTearWrite = n;
      else if (which == 1) spec.nCrashSync = n;
      else spec.nCrashWrite = n;
      spec.seed = n;
      CHECK_OK(faultfileWrap(base, 0, &spec, &f));
      uint8_t id[32];
      int bOpen = cairn_cas_open_file(f, NULL, &cas) == CAIRN_OK; /* closes f if it fails */
      int ok = bOpen && cairn_cas_put(cas, "first", 5, id) == CAIRN_OK;
      if (bOpen) {
        faultfilePowerLoss(f);
        cairn_cas_close(cas);
      }
      CHECK_OK(faultfileWrap(base, 0, NULL, &f));
      CHECK_OK(cairn_cas_open_file(f, NULL, &cas));
      int st = payloadState(cas, id, (const uint8_t *)"first", 5);
      CHECK(st >= 0);
      if (ok) CHECK_EQ(st, 1);
      CHECK_OK(cairn_cas_put(cas, "second", 6, id));
      cairn_cas_close(cas);
      cairn_file_close(base);
    }
  }
}
