/*
** 2026-12-02
**
** cli/cmd_eph.c - the decision gate and the ephemeral tier in the cairn CLI (native and WASI):
**   cairn mem gate TEXT... [--json] [--min-bytes N] [--min-content N] [--min-ratio X] [--trivial-max N]
**        would the decision gate save TEXT (the words joined by spaces; "-" reads stdin)? Prints
**        the verdict, the rule that decided and the counts it used.
**   cairn eph bench [--n N] [--dim D] [--rounds R] [--json]
**        the ephemeral tier's and the gate's costs on the issue-18 workload shapes: SET, GET,
**        miss, DELETE of N keys (10-byte keys, 64-byte values), SET with a D-float embedding,
**        top-10 search over the N embeddings, gate on a trivial and on a non-trivial text, and
**        the observer (every-exchange, on-shift) deciding and saving into an in-memory store, and
**        the consolidation score of 100, 1K and 10K memories and the selection of their best tenth.
**        Each figure is the best of R rounds (the machine may be shared); the SET/GET/DELETE rounds
**        reuse one cleared tier, and the first fill of fresh memory is reported apart (cold). bench/eph/run.sh runs
**        it beside a Redis server on the same shapes.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#if CAIRN_WITH_MEM
#include "cairn/eph.h"
#include "cairn/gate.h"
#include "cairn/score.h"

static int64_t ephNs(void) {
  const cairn_host *h = cairn_host_get();
  return h->xClock ? h->xClock(h->pCtx, 1) : 0;
}

/* Take the option at argv[*pi] with a value; 0 when argv[*pi] is not zName. */
static const char *optValue(int argc, char **argv, int *pi, const char *zName) {
  if (strcmp(argv[*pi], zName) || *pi + 1 >= argc) return NULL;
  return argv[++*pi];
}
static int parseU32(const char *z, uint32_t *p) {
  char *zEnd = NULL;
  unsigned long v = strtoul(z, &zEnd, 10);
  if (!zEnd || *zEnd || z[0] == '-' || v > UINT32_MAX) return 0;
  *p = (uint32_t)v;
  return 1;
}

/* Read all of stdin (for `cairn mem gate -`). */
static char *readStdin(size_t *pn) {
  size_t n = 0, cap = 4096;
  char *z = malloc(cap);
  while (z) {
    size_t got = fread(z + n, 1, cap - n - 1, stdin);
    n += got;
    if (got == 0) break;
    if (cap - n - 1 == 0) {
      char *z2 = realloc(z, cap * 2);
      if (!z2) free(z);
      z = z2, cap *= 2;
    }
  }
  if (z) z[n] = 0, *pn = n;
  return z;
}

int cliMemGate(int argc, char **argv) {
  const char *zCmd = "mem gate";
  cairn_gate_config cfg;
  memset(&cfg, 0, sizeof cfg);
  int json = 0, nText = 0;
  char **azText = calloc((size_t)argc + 1, sizeof(char *));
  if (!azText) return cliFail(zCmd, CAIRN_NOMEM);
  for (int i = 1; i < argc; i++) {
    const char *v;
    if (!strcmp(argv[i], "--json")) json = 1;
    else if ((v = optValue(argc, argv, &i, "--min-bytes"))) {
      if (!parseU32(v, &cfg.minBytes)) return free(azText), cliUsage(zCmd, "--min-bytes needs a count");
    } else if ((v = optValue(argc, argv, &i, "--min-content"))) {
      if (!parseU32(v, &cfg.minContentWords)) return free(azText), cliUsage(zCmd, "--min-content needs a count");
    } else if ((v = optValue(argc, argv, &i, "--trivial-max"))) {
      if (!parseU32(v, &cfg.trivialMaxWords)) return free(azText), cliUsage(zCmd, "--trivial-max needs a count");
    } else if ((v = optValue(argc, argv, &i, "--min-ratio"))) {
      char *zEnd = NULL;
      cfg.minContentRatio = strtof(v, &zEnd);
      if (!zEnd || *zEnd || !isfinite(cfg.minContentRatio))
        return free(azText), cliUsage(zCmd, "--min-ratio needs a number (negative: the ratio rule is off)");
    } else if (argv[i][0] == '-' && argv[i][1] == '-') {
      free(azText);
      return cliUsage(zCmd, "unknown option %s", argv[i]);
    } else azText[nText++] = argv[i];
  }
  if (nText == 0) return free(azText), cliUsage(zCmd, "give the TEXT to judge (or - for stdin)");
  char *z = NULL;
  size_t n = 0;
  if (nText == 1 && !strcmp(azText[0], "-")) {
    z = readStdin(&n);
  } else {
    for (int i = 0; i < nText; i++) n += strlen(azText[i]) + 1;
    z = malloc(n + 1);
    if (z) {
      size_t o = 0;
      for (int i = 0; i < nText; i++) {
        size_t m = strlen(azText[i]);
        memcpy(z + o, azText[i], m);
        o += m;
        z[o++] = ' ';
      }
      n = o ? o - 1 : 0;
      z[n] = 0;
    }
  }
  free(azText);
  if (!z) return cliFail(zCmd, cairn_seterr(CAIRN_NOMEM, "out of memory reading the text"));
  cairn_gate_result r;
  int rc = cairn_gate_check(&cfg, z, n, &r);
  free(z);
  if (rc) return cliFail(zCmd, rc);
  const char *zWhy = cairn_gate_reason_name(r.reason);
  if (json)
    printf("{\"save\":%s,\"reason\":\"%s\",\"bytes\":%u,\"words\":%u,\"content\":%u,\"acks\":%u,\"ratio\":%.4g}\n",
           r.save ? "true" : "false", zWhy, r.nBytes, r.nWords, r.nContent, r.nAck, (double)r.ratio);
  else
    printf("%s: %s (%u bytes, %u words, %u content, %u acknowledgements, ratio %.2f)\n", r.save ? "save" : "skip", zWhy,
           r.nBytes, r.nWords, r.nContent, r.nAck, (double)r.ratio);
  return 0;
}

/* ------------------------------------------------------------------ bench */
typedef struct EphBench {
  uint32_t n, dim, rounds;
  char (*aKey)[16];
  char (*aMiss)[16];
  uint32_t *aPerm;
  float *aVec;
  char zValue[65];
} EphBench;

static uint64_t benchRand(uint64_t *s) {
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  return *s;
}

/* The best of b->rounds of: fill the tier (SET), GET in random order, miss, DELETE all. One tier
** serves every round (emptied by the deletes, its arrays and small blocks kept), as a long-running
** tier reuses its memory; the first round fills fresh memory, whose page faults it pays:
** *pColdSetNs. */
static int benchKv(const EphBench *b, int withEmb, double aNs[4], double *pColdSetNs) {
  for (int k = 0; k < 4; k++) aNs[k] = INFINITY;
  cairn_eph_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.capacity = b->n, cfg.dim = withEmb ? b->dim : 0;
  cairn_eph *e;
  int rc = cairn_eph_open(&cfg, &e);
  if (rc) return rc;
  for (uint32_t r = 0; r <= b->rounds && !rc; r++) {
    int64_t t0 = ephNs(); /* the tier is empty: new, or every key deleted by the round before */
    for (uint32_t i = 0; i < b->n && !rc; i++)
      rc = cairn_eph_set(e, b->aKey[i], 10, b->zValue, 64, 0, withEmb ? b->aVec + (size_t)i * b->dim : NULL,
                         withEmb ? b->dim : 0);
    int64_t t1 = ephNs();
    uint32_t nHit = 0;
    for (uint32_t i = 0; i < b->n; i++) nHit += cairn_eph_get(e, b->aKey[b->aPerm[i]], 10, NULL) == CAIRN_OK;
    int64_t t2 = ephNs();
    for (uint32_t i = 0; i < b->n; i++) nHit += cairn_eph_get(e, b->aMiss[b->aPerm[i]], 10, NULL) == CAIRN_OK;
    int64_t t3 = ephNs();
    for (uint32_t i = 0; i < b->n; i++) cairn_eph_delete(e, b->aKey[b->aPerm[i]], 10);
    int64_t t4 = ephNs();
    if (!rc && nHit != b->n) rc = cairn_seterr(CAIRN_ERROR, "bench: %u of %u gets found their key", nHit, b->n);
    double a[4] = {(double)(t1 - t0), (double)(t2 - t1), (double)(t3 - t2), (double)(t4 - t3)};
    if (r == 0) {
      *pColdSetNs = a[0] / b->n;
      continue;
    }
    for (int k = 0; k < 4; k++) aNs[k] = fmin(aNs[k], a[k] / b->n);
  }
  cairn_eph_close(e);
  return rc;
}

static int benchSearch(const EphBench *b, double *pMs) {
  cairn_eph_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.capacity = b->n, cfg.dim = b->dim;
  cairn_eph *e;
  int rc = cairn_eph_open(&cfg, &e);
  if (rc) return rc;
  for (uint32_t i = 0; i < b->n && !rc; i++)
    rc = cairn_eph_set(e, b->aKey[i], 10, b->zValue, 64, 0, b->aVec + (size_t)i * b->dim, b->dim);
  cairn_eph_hit hit[10];
  uint32_t nHit;
  double best = INFINITY;
  for (uint32_t r = 0; r < b->rounds * 4 && !rc; r++) {
    int64_t t0 = ephNs();
    rc = cairn_eph_search(e, b->aVec + (size_t)((r * 7919) % b->n) * b->dim, b->dim, 10, hit, &nHit);
    best = fmin(best, (double)(ephNs() - t0) / 1e6);
  }
  cairn_eph_close(e);
  *pMs = best;
  return rc;
}

/* ns per gate check of z, best of 20 x rounds runs of 5000 checks (each well under a scheduler
** time slice, so that on a loaded machine some run uninterrupted). */
static double benchGate(const EphBench *b, const char *z) {
  size_t n = strlen(z);
  cairn_gate_result r;
  uint32_t nRep = 5000;
  double best = INFINITY;
  volatile int sink = 0;
  for (uint32_t k = 0; k < 20 * b->rounds; k++) {
    int64_t t0 = ephNs();
    for (uint32_t i = 0; i < nRep; i++) cairn_gate_check(NULL, z, n, &r), sink += r.save;
    best = fmin(best, (double)(ephNs() - t0) / nRep);
  }
  (void)sink;
  return best;
}

/* ns per observed exchange: strategy s, saving into an in-memory store of dim b->dim (bSave) or
** deciding only, with the exchange's embeddings given. */
static int benchObserve(const EphBench *b, int strategy, int bSave, double *pNs) {
  static const char *const azUser[] = {"I moved to Lisbon in May and I love the food there",
                                       "My sister Ana works as a nurse in Porto",
                                       "Can you remind me to call the dentist on Friday"};
  static const char *const azAsst[] = {"Lisbon in spring is lovely; have you tried the pasteis de nata?",
                                       "Nursing is demanding work; does Ana enjoy living in Porto?",
                                       "I will remind you on Friday morning to call the dentist"};
  uint32_t nEx = b->n / 2 < 2000 ? b->n / 2 : 2000;
  double best = INFINITY;
  int rc = CAIRN_OK;
  for (uint32_t r = 0; r < b->rounds && !rc; r++) {
    cairn_gate_config gc;
    memset(&gc, 0, sizeof gc);
    gc.strategy = strategy, gc.dim = b->dim;
    cairn_mem_config mc;
    memset(&mc, 0, sizeof mc);
    mc.dim = b->dim;
    cairn_gate *g = NULL;
    cairn_mem *m = NULL;
    rc = cairn_gate_open(&gc, &g);
    if (!rc && bSave) rc = cairn_mem_open(NULL, &mc, &m);
    cairn_exchange x;
    memset(&x, 0, sizeof x);
    x.nEmbedding = b->dim, x.importance = NAN, x.zSession = "bench";
    cairn_observe_result o;
    int64_t t0 = ephNs();
    for (uint32_t i = 0; i < nEx && !rc; i++) {
      x.zUser = azUser[i % 3], x.zAssistant = azAsst[i % 3];
      x.aUserEmbedding = b->aVec + (size_t)(2 * i) * b->dim, x.aAssistantEmbedding = x.aUserEmbedding + b->dim;
      rc = cairn_gate_observe(g, &x, m, &o);
    }
    best = fmin(best, (double)(ephNs() - t0) / nEx);
    cairn_mem_close(m);
    cairn_gate_close(g);
  }
  *pNs = best;
  return rc;
}

/* us to score n memories (cairn_score_many) and to select the best n/10 (cairn_score_select). */
static int benchScore(const EphBench *b, size_t n, double *pScoreUs, double *pSelectUs) {
  cairn_score_input *a = malloc(sizeof *a * n);
  float *sc = malloc(sizeof(float) * n);
  uint32_t *keep = malloc(sizeof(uint32_t) * n);
  int rc = a && sc && keep ? CAIRN_OK : cairn_seterr(CAIRN_NOMEM, "bench: out of memory");
  uint64_t s = 7;
  int64_t now = (int64_t)1 << 40;
  for (size_t i = 0; !rc && i < n; i++) {
    uint64_t r = benchRand(&s);
    a[i].importance = (float)(r % 1000) / 1000.0f, a[i].accessCount = (uint32_t)(r >> 20) % 20;
    a[i].lastMs = now - (int64_t)((r >> 32) % 2592000000ull), a[i].nLinks = (uint32_t)(r >> 60);
  }
  double bestScore = INFINITY, bestSelect = INFINITY;
  for (uint32_t k = 0; !rc && k < b->rounds; k++) {
    int64_t t0 = ephNs();
    for (int rep = 0; rep < 10 && !rc; rep++) rc = cairn_score_many(NULL, a, n, now, sc);
    int64_t t1 = ephNs();
    size_t nKeep;
    if (!rc) rc = cairn_score_select(NULL, a, n, now, n / 10, keep, &nKeep);
    int64_t t2 = ephNs();
    bestScore = fmin(bestScore, (double)(t1 - t0) / 10 / 1e3), bestSelect = fmin(bestSelect, (double)(t2 - t1) / 1e3);
  }
  free(a), free(sc), free(keep);
  *pScoreUs = bestScore, *pSelectUs = bestSelect;
  return rc;
}

int cliEphBench(int argc, char **argv) {
  const char *zCmd = "eph bench";
  EphBench b;
  memset(&b, 0, sizeof b);
  b.n = 10000, b.dim = 384, b.rounds = 5;
  int json = 0;
  for (int i = 1; i < argc; i++) {
    const char *v;
    if (!strcmp(argv[i], "--json")) json = 1;
    else if ((v = optValue(argc, argv, &i, "--n"))) {
      if (!parseU32(v, &b.n) || b.n < 2 || b.n > 1000000) return cliUsage(zCmd, "--n needs a count, 2..1000000");
    } else if ((v = optValue(argc, argv, &i, "--dim"))) {
      if (!parseU32(v, &b.dim) || b.dim < 1 || b.dim > CAIRN_EPH_MAX_DIM) return cliUsage(zCmd, "--dim needs 1..8192");
    } else if ((v = optValue(argc, argv, &i, "--rounds"))) {
      if (!parseU32(v, &b.rounds) || b.rounds < 1 || b.rounds > 1000) return cliUsage(zCmd, "--rounds needs 1..1000");
    } else return cliUsage(zCmd, "unknown argument %s", argv[i]);
  }
  b.aKey = malloc(sizeof(*b.aKey) * b.n);
  b.aMiss = malloc(sizeof(*b.aMiss) * b.n);
  b.aPerm = malloc(sizeof(uint32_t) * b.n);
  b.aVec = malloc(sizeof(float) * (size_t)b.n * b.dim);
  int rc = b.aKey && b.aMiss && b.aPerm && b.aVec ? CAIRN_OK : cairn_seterr(CAIRN_NOMEM, "bench: out of memory");
  uint64_t s = 0x2545F4914F6CDD1Dull;
  for (uint32_t i = 0; !rc && i < b.n; i++) {
    snprintf(b.aKey[i], 16, "key:%06u", i);
    snprintf(b.aMiss[i], 16, "nok:%06u", i);
    b.aPerm[i] = i;
  }
  for (uint32_t i = b.n - 1; !rc && i > 0; i--) {
    uint32_t j = (uint32_t)(benchRand(&s) % (i + 1)), t = b.aPerm[i];
    b.aPerm[i] = b.aPerm[j], b.aPerm[j] = t;
  }
  for (size_t i = 0; !rc && i < (size_t)b.n * b.dim; i++) b.aVec[i] = (float)(benchRand(&s) >> 40) / (float)(1 << 24) - 0.5f;
  memset(b.zValue, 'v', 64);
  double kv[4] = {0}, kvE[4] = {0}, coldSet = 0, coldSetE = 0, searchMs = 0, gTriv = 0, gPass = 0, oEvery = 0, oShift = 0, oEverySave = 0, oShiftSave = 0;
  if (!rc) rc = benchKv(&b, 0, kv, &coldSet);
  if (!rc) rc = benchKv(&b, 1, kvE, &coldSetE);
  if (!rc) rc = benchSearch(&b, &searchMs);
  const char *zPass = "I moved to Lisbon in May and started a new job at a design studio near the river";
  if (!rc) gTriv = benchGate(&b, "ok"), gPass = benchGate(&b, zPass);
  if (!rc) rc = benchObserve(&b, CAIRN_SAVE_EVERY, 0, &oEvery);
  if (!rc) rc = benchObserve(&b, CAIRN_SAVE_ON_SHIFT, 0, &oShift);
  if (!rc) rc = benchObserve(&b, CAIRN_SAVE_EVERY, 1, &oEverySave);
  if (!rc) rc = benchObserve(&b, CAIRN_SAVE_ON_SHIFT, 1, &oShiftSave);
  double score100 = 0, select100 = 0, score1k = 0, select1k = 0, score10k = 0, select10k = 0;
  if (!rc) rc = benchScore(&b, 100, &score100, &select100);
  if (!rc) rc = benchScore(&b, 1000, &score1k, &select1k);
  if (!rc) rc = benchScore(&b, 10000, &score10k, &select10k);
  free(b.aKey), free(b.aMiss), free(b.aPerm), free(b.aVec);
  if (rc) return cliFail(zCmd, rc);
  if (json) {
    printf("{\"n\":%u,\"dim\":%u,\"rounds\":%u,\"set_ns\":%.1f,\"get_ns\":%.1f,\"miss_ns\":%.1f,\"delete_ns\":%.1f,"
           "\"set_emb_ns\":%.1f,\"get_emb_ns\":%.1f,\"delete_emb_ns\":%.1f,\"cold_set_ns\":%.1f,\"cold_set_emb_ns\":%.1f,\"search_ms\":%.4f,\"gate_trivial_ns\":%.1f,"
           "\"gate_pass_ns\":%.1f,\"observe_every_ns\":%.1f,\"observe_shift_ns\":%.1f,\"observe_every_save_ns\":%.1f,"
           "\"observe_shift_save_ns\":%.1f,\"score_100_us\":%.3f,\"score_1k_us\":%.2f,\"select_1k_us\":%.2f,"
           "\"score_10k_us\":%.1f,\"select_10k_us\":%.1f}\n",
           b.n, b.dim, b.rounds, kv[0], kv[1], kv[2], kv[3], kvE[0], kvE[1], kvE[3], coldSet, coldSetE, searchMs, gTriv, gPass, oEvery, oShift,
           oEverySave, oShiftSave, score100, score1k, select1k, score10k, select10k);
    return 0;
  }
  printf("ephemeral tier, %u keys of 10 bytes, values of 64 bytes, best of %u warm rounds\n", b.n, b.rounds);
  printf("  SET                         %8.1f ns\n  GET                         %8.1f ns\n", kv[0], kv[1]);
  printf("  GET miss                    %8.1f ns\n  DELETE                      %8.1f ns\n", kv[2], kv[3]);
  printf("  SET with a %u-d embedding  %8.1f ns\n", b.dim, kvE[0]);
  printf("  cold fill (fresh memory): SET %.1f ns, SET with the embedding %.1f ns\n", coldSet, coldSetE);
  printf("  search top-10 of %u x %u   %8.3f ms\n", b.n, b.dim, searchMs);
  printf("gate\n  trivial (\"ok\")              %8.1f ns\n  non-trivial (%zu bytes)      %8.1f ns\n", gTriv,
         strlen(zPass), gPass);
  printf("observe (embeddings given, %u-d)\n  every-exchange, decide      %8.1f ns\n  on-shift, decide            %8.1f ns\n",
         b.dim, oEvery, oShift);
  printf("  every-exchange, save        %8.1f ns\n  on-shift, save              %8.1f ns\n", oEverySave, oShiftSave);
  printf("consolidation score (value, access, recency, links)\n  score 100 / 1K / 10K        %.3f / %.2f / %.1f us\n", score100,
         score1k, score10k);
  printf("  keep the best tenth of 1K / 10K  %.2f / %.1f us\n", select1k, select10k);
  return 0;
}
#endif
