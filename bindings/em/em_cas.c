/*
** 2026-11-29
**
** bindings/em/em_cas.c - Emscripten glue for the content-addressed chunk store (cairn/cas.h), used by
** js/src/store.js. Payload IDs cross as 32-byte buffers (JS converts to/from hex), 64-bit
** sizes, offsets and times as doubles (see bindings/em/em_mem.c for why), and the verify callback is
** collected into one string here so that no JS function pointer is needed.
*/
#include <emscripten.h>
#include <string.h>

#include "cairn/cairn.h"
#include "cairn/cas.h"
#include "em_exports.h"

/* Open a store on JS file f (owned by the store from here on, also on failure), or in memory
** when f is NULL. Zero chunking sizes mean the defaults (256 KiB / 1 MiB / 4 MiB, level 2). */
EMSCRIPTEN_KEEPALIVE int cairn_em_cas_open(cairn_file *f, int codec, int level, int readonly, int noSync, uint32_t nMin,
                                           uint32_t nAvg, uint32_t nMax, int normLevel, double seed, cairn_cas **ppCas) {
  cairn_cas_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.iVersion = 1;
  cfg.codec = codec, cfg.level = level, cfg.readonly = readonly, cfg.noSync = noSync;
  if (nMin || nAvg || nMax) {
    cairn_fastcdc_default(&cfg.chunking);
    if (nMin) cfg.chunking.nMin = nMin;
    if (nAvg) cfg.chunking.nAvg = nAvg;
    if (nMax) cfg.chunking.nMax = nMax;
    if (normLevel >= 0) cfg.chunking.level = (uint32_t)normLevel;
    cfg.chunking.seed = (uint64_t)seed;
  }
  *ppCas = NULL;
  return f ? cairn_cas_open_file(f, &cfg, ppCas) : cairn_cas_open_memory(&cfg, ppCas);
}

EMSCRIPTEN_KEEPALIVE int cairn_em_cas_stat(cairn_cas *c, const uint8_t *aId, double *pSize) {
  uint64_t n = 0;
  int rc = cairn_cas_stat(c, aId, &n);
  *pSize = (double)n;
  return rc;
}

/* Read [off, off+n) of a payload into p, every covering chunk verified; *pnRead the count. */
EMSCRIPTEN_KEEPALIVE int cairn_em_cas_read(cairn_cas *c, const uint8_t *aId, double off, void *p, size_t n, size_t *pnRead) {
  return cairn_cas_read(c, aId, (uint64_t)off, p, n, pnRead);
}

/* An open payload for reads in pieces (JS Store.getInto): the handle keeps the manifest and a
** chunk that a piece cut, so each chunk is read and verified once. */
EMSCRIPTEN_KEEPALIVE int cairn_em_cas_payload_open(cairn_cas *c, const uint8_t *aId, cairn_cas_payload **ppP) {
  return cairn_cas_payload_open(c, aId, ppP);
}
EMSCRIPTEN_KEEPALIVE int cairn_em_cas_payload_read(cairn_cas_payload *pl, double off, void *p, size_t n, size_t *pnRead) {
  return cairn_cas_payload_read(pl, (uint64_t)off, p, n, pnRead);
}
EMSCRIPTEN_KEEPALIVE void cairn_em_cas_payload_close(cairn_cas_payload *pl) { cairn_cas_payload_close(pl); }

/* Write [start, end) of a payload to JS file out (end < 0: to the payload's end). */
EMSCRIPTEN_KEEPALIVE int cairn_em_cas_get_file(cairn_cas *c, const uint8_t *aId, double start, double end, cairn_file *out) {
  return cairn_cas_get_file(c, aId, (uint64_t)start, end < 0 ? UINT64_MAX : (uint64_t)end, out, NULL, NULL);
}

EMSCRIPTEN_KEEPALIVE int cairn_em_cas_put_file(cairn_cas *c, cairn_file *in, uint8_t *aId) {
  return cairn_cas_put_file(c, in, NULL, NULL, aId);
}

/* Payload i of the listing: aId, aNum = {size, nChunk, time in ms}, *pzName (or NULL). */
EMSCRIPTEN_KEEPALIVE int cairn_em_cas_entry(cairn_cas *c, size_t i, uint8_t *aId, double *aNum, const char **pzName) {
  cairn_cas_entry e;
  int rc = cairn_cas_entry_at(c, i, &e);
  if (rc) return rc;
  memcpy(aId, e.aId, 32);
  aNum[0] = (double)e.nSize, aNum[1] = e.nChunk, aNum[2] = (double)(e.iTime / 1000000);
  *pzName = e.zName;
  return CAIRN_OK;
}

/* aNum = {nPayload, nChunk, nName, nRawBytes, nStoredBytes, nFileBytes, min, avg, max, level}. */
EMSCRIPTEN_KEEPALIVE int cairn_em_cas_stats(cairn_cas *c, double *aNum) {
  cairn_cas_stats s;
  int rc = cairn_cas_get_stats(c, &s);
  if (rc) return rc;
  aNum[0] = (double)s.nPayload, aNum[1] = (double)s.nChunk, aNum[2] = (double)s.nName;
  aNum[3] = (double)s.nRawBytes, aNum[4] = (double)s.nStoredBytes, aNum[5] = (double)s.nFileBytes;
  aNum[6] = s.chunking.nMin, aNum[7] = s.chunking.nAvg, aNum[8] = s.chunking.nMax, aNum[9] = s.chunking.level;
  return CAIRN_OK;
}

/* Verify everything. Problems are joined with '\n' into *pz (cairn_malloc'd, or NULL when
** there are none; JS frees it with cairn_free); *pnBad receives their count. */
typedef struct Lines {
  char *z;
  size_t n, cap;
} Lines;
static void addLine(void *pArg, const char *zMsg) {
  Lines *l = pArg;
  size_t k = strlen(zMsg);
  if (l->n + k + 2 > l->cap) {
    size_t cap = (l->cap ? l->cap * 2 : 256) + k + 2;
    char *p = cairn_realloc(l->z, cap);
    if (!p) return; /* the count and the status still say what happened */
    l->z = p, l->cap = cap;
  }
  memcpy(l->z + l->n, zMsg, k);
  l->n += k;
  l->z[l->n++] = '\n';
  l->z[l->n] = 0;
}
EMSCRIPTEN_KEEPALIVE int cairn_em_cas_verify(cairn_cas *c, double *pnBad, char **pz) {
  Lines l = {NULL, 0, 0};
  uint64_t nBad = 0;
  int rc = cairn_cas_verify(c, NULL, NULL, addLine, &l, &nBad);
  *pnBad = (double)nBad;
  *pz = l.z;
  return rc;
}
