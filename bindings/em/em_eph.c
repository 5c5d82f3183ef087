/*
** 2026-12-02
**
** bindings/em/em_eph.c - Emscripten glue for the ephemeral tier (cairn/eph.h) and the decision
** gate (cairn/gate.h), used by js/src/ephemeral.js. As in em_mem.c, 64-bit quantities (TTLs, times)
** cross as doubles and structs are flattened into double arrays the JS side allocates and reads;
** pointers inside them (keys, values, embeddings) point into the wasm heap and stay valid until
** the next call that changes the tier (cairn/eph.h).
*/
#include <emscripten.h>
#include <math.h>
#include <string.h>

#include "cairn/cairn.h"
#include "cairn/eph.h"
#include "cairn/gate.h"
#include "em_exports.h"

/* A TTL from JS: Infinity (or anything at or beyond 2^63) is CAIRN_EPH_FOREVER. */
static int64_t ttlOf(double ms) {
  if (ms != ms) return -1; /* NaN: refused by the core as a TTL in the past */
  if (ms >= 9.2e18) return CAIRN_EPH_FOREVER;
  return (int64_t)ms;
}

EMSCRIPTEN_KEEPALIVE int cairn_em_eph_open(uint32_t capacity, uint32_t dim, int metric, double defaultTtlMs, cairn_eph **pp) {
  cairn_eph_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.capacity = capacity, cfg.dim = dim, cfg.metric = metric;
  cfg.defaultTtlMs = defaultTtlMs >= 9.2e18 ? 0 : (int64_t)defaultTtlMs;
  return cairn_eph_open(&cfg, pp);
}

EMSCRIPTEN_KEEPALIVE int cairn_em_eph_set(cairn_eph *e, const void *pKey, uint32_t nKey, const void *pValue, uint32_t nValue,
                                          double ttlMs, const float *aEmb, uint32_t nEmb) {
  return cairn_eph_set(e, pKey, nKey, pValue, nValue, ttlOf(ttlMs), aEmb, nEmb);
}

/* aOut = {pValue, nValue, pEmbedding (0 = none), ttlLeftMs (-1 = never)}. */
static void entryOut(const cairn_eph_entry *x, double *aOut) {
  aOut[0] = (double)(uintptr_t)x->pValue, aOut[1] = (double)x->nValue;
  aOut[2] = (double)(uintptr_t)x->aEmbedding, aOut[3] = (double)x->ttlLeftMs;
}

EMSCRIPTEN_KEEPALIVE int cairn_em_eph_get(cairn_eph *e, const void *pKey, uint32_t nKey, double *aOut) {
  cairn_eph_entry x;
  int rc = cairn_eph_get(e, pKey, nKey, &x);
  if (rc == CAIRN_OK) entryOut(&x, aOut);
  return rc;
}

EMSCRIPTEN_KEEPALIVE int cairn_em_eph_expire(cairn_eph *e, const void *pKey, uint32_t nKey, double ttlMs) {
  return cairn_eph_expire(e, pKey, nKey, ttlOf(ttlMs));
}

/* aOut: 6 doubles per hit {pKey, nKey, pValue, nValue, pEmbedding, score}; aHit: room for k hits
** (JS allocates k * cairn_em_eph_hit_size() bytes). */
EMSCRIPTEN_KEEPALIVE uint32_t cairn_em_eph_hit_size(void) { return (uint32_t)sizeof(cairn_eph_hit); }
EMSCRIPTEN_KEEPALIVE int cairn_em_eph_search(cairn_eph *e, const float *q, uint32_t nQ, uint32_t k, cairn_eph_hit *aHit,
                                             double *aOut, uint32_t *pn) {
  int rc = cairn_eph_search(e, q, nQ, k, aHit, pn);
  for (uint32_t i = 0; rc == CAIRN_OK && i < *pn; i++) {
    const cairn_eph_entry *x = &aHit[i].entry;
    double *o = aOut + 6 * i;
    o[0] = (double)(uintptr_t)x->pKey, o[1] = (double)x->nKey, o[2] = (double)(uintptr_t)x->pValue;
    o[3] = (double)x->nValue, o[4] = (double)(uintptr_t)x->aEmbedding, o[5] = aHit[i].score;
  }
  return rc;
}

/* aOut = {count, capacity, dim, nEmbedded, nBytes, nSet, nHit, nMiss, nDelete, nEvicted, nExpired}. */
EMSCRIPTEN_KEEPALIVE int cairn_em_eph_stats(cairn_eph *e, double *aOut) {
  cairn_eph_stats s;
  int rc = cairn_eph_stats_get(e, &s);
  if (rc) return rc;
  double a[11] = {s.count, s.capacity, s.dim, s.nEmbedded, (double)s.nBytes, (double)s.nSet, (double)s.nHit,
                  (double)s.nMiss, (double)s.nDelete, (double)s.nEvicted, (double)s.nExpired};
  memcpy(aOut, a, sizeof a);
  return CAIRN_OK;
}

/* ---- the gate ---- */
/* aCfg = {minBytes, minContentWords, minContentRatio, trivialMaxWords, maxBytes, scanBytes, noGate,
**         strategy, shiftThreshold, window, importanceThreshold, dim} (0 = the default). */
static void gateCfg(const double *a, cairn_gate_config *c) {
  memset(c, 0, sizeof *c);
  if (!a) return;
  c->minBytes = (uint32_t)a[0], c->minContentWords = (uint32_t)a[1], c->minContentRatio = (float)a[2];
  c->trivialMaxWords = (uint32_t)a[3], c->maxBytes = (uint32_t)a[4], c->scanBytes = (uint32_t)a[5];
  c->noGate = a[6] != 0, c->strategy = (int)a[7], c->shiftThreshold = (float)a[8], c->window = (uint32_t)a[9];
  c->importanceThreshold = (float)a[10], c->dim = (uint32_t)a[11];
}
/* aOut = {save, reason, bytes, words, content, acks, ratio}. */
static void gateOut(const cairn_gate_result *r, double *a) {
  a[0] = r->save, a[1] = r->reason, a[2] = r->nBytes, a[3] = r->nWords, a[4] = r->nContent, a[5] = r->nAck;
  a[6] = r->ratio;
}

EMSCRIPTEN_KEEPALIVE int cairn_em_gate_check(const char *z, uint32_t n, const double *aCfg, double *aOut) {
  cairn_gate_config c;
  gateCfg(aCfg, &c);
  cairn_gate_result r;
  int rc = cairn_gate_check(&c, z, n, &r);
  if (rc == CAIRN_OK) gateOut(&r, aOut);
  return rc;
}

EMSCRIPTEN_KEEPALIVE int cairn_em_gate_open(const double *aCfg, cairn_gate **pp) {
  cairn_gate_config c;
  gateCfg(aCfg, &c);
  return cairn_gate_open(&c, pp);
}

/* Decide only (the JS side saves through its Memory): aOut = {save, why, shift, importance,
** saveUser, saveAssistant, user gate (7), assistant gate (7)}. importance NaN = estimate. */
EMSCRIPTEN_KEEPALIVE int cairn_em_gate_observe(cairn_gate *g, const char *zUser, const char *zAssistant, const float *aUser,
                                               const float *aAssistant, uint32_t nEmb, double importance, double *aOut) {
  cairn_exchange x;
  memset(&x, 0, sizeof x);
  x.zUser = zUser, x.zAssistant = zAssistant, x.aUserEmbedding = aUser, x.aAssistantEmbedding = aAssistant;
  x.nEmbedding = nEmb, x.importance = (float)importance;
  cairn_observe_result o;
  int rc = cairn_gate_observe(g, &x, NULL, &o);
  if (rc) return rc;
  aOut[0] = o.save, aOut[1] = o.why, aOut[2] = o.shift, aOut[3] = o.importance;
  aOut[4] = o.saveUser, aOut[5] = o.saveAssistant;
  gateOut(&o.user, aOut + 6);
  gateOut(&o.assistant, aOut + 13);
  return CAIRN_OK;
}
