/*
** 2026-11-29
**
** bindings/em/em_mem.c - Emscripten glue for the agent memory (cairn/mem.h), used by js/src/memory.js.
**
** Emscripten 3.1.6 splits 64-bit integer arguments into two i32 halves, which is awkward to call
** from JS; so every 64-bit quantity (ids, times in ms, counters) crosses as a double (exact up
** to 2^53) and structs are flattened into scalar arguments or double/pointer arrays that JS
** allocates and reads. Everything here is a thin shim: the core does the work and sets the
** error message.
*/
#include <emscripten.h>
#include <string.h>

#include "cairn/cairn.h"
#include "cairn/mem.h"
#include "em_exports.h"

/* Open a store on JS file f (owned by the store from here on, also on failure), or in memory
** when f is NULL. *ppMem receives the handle. */
/* diskVectors: CAIRN_MEM_DISK_F32/F16/INT8 where the core has them (a newer mem.h), else only 0. */
EMSCRIPTEN_KEEPALIVE int cairn_em_mem_open(cairn_file *f, uint32_t dim, int metric, int readOnly, int noSync, int textOnly,
                                           int diskVectors, cairn_mem **ppMem) {
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.dim = dim, cfg.metric = metric, cfg.readOnly = readOnly, cfg.noSync = noSync, cfg.textOnly = textOnly;
  *ppMem = NULL;
#ifdef CAIRN_MEM_DISK_F16
  cfg.diskVectors = diskVectors;
#else
  if (diskVectors) {
    if (f) cairn_file_close(f); /* the store would have owned it */
    return cairn_seterr(CAIRN_UNSUPPORTED, "mem_open: this build keeps vectors on disk as f32 only");
  }
#endif
  return f ? cairn_mem_open_file(f, &cfg, ppMem) : cairn_mem_open(NULL, &cfg, ppMem);
}

/* Add one memory; *pId receives its id. Times are ms since 1970 (0 = now / = created). */
EMSCRIPTEN_KEEPALIVE int cairn_em_mem_add(cairn_mem *m, const char *zText, const float *aEmb, uint32_t nEmb, double createdMs,
                                          double eventMs, const char *zSession, const char *zRole, int tier, double importance,
                                          const char *zMeta, double *pId) {
  cairn_mem_record r;
  memset(&r, 0, sizeof r);
  r.zText = zText, r.aEmbedding = aEmb, r.nEmbedding = nEmb;
  r.createdMs = (int64_t)createdMs, r.eventMs = (int64_t)eventMs;
  r.zSession = zSession, r.zRole = zRole, r.tier = tier, r.importance = (float)importance, r.zMeta = zMeta;
  uint64_t id = 0;
  int rc = cairn_mem_add(m, &r, &id);
  *pId = (double)id;
  return rc;
}

/* Read a memory: aNum = {createdMs, eventMs, tier, importance, accessCount},
** azStr = {text, session, role, meta} (NULL when absent; valid until the store changes). */
EMSCRIPTEN_KEEPALIVE int cairn_em_mem_get(cairn_mem *m, double id, double *aNum, const char **azStr) {
  cairn_mem_record r;
  int rc = cairn_mem_get(m, (uint64_t)id, &r);
  if (rc) return rc;
  aNum[0] = (double)r.createdMs, aNum[1] = (double)r.eventMs, aNum[2] = r.tier, aNum[3] = r.importance;
  aNum[4] = r.accessCount;
  azStr[0] = r.zText, azStr[1] = r.zSession, azStr[2] = r.zRole, azStr[3] = r.zMeta;
  return CAIRN_OK;
}

EMSCRIPTEN_KEEPALIVE int cairn_em_mem_embedding(cairn_mem *m, double id, float *pOut) {
  return cairn_mem_embedding(m, (uint64_t)id, pOut);
}

EMSCRIPTEN_KEEPALIVE int cairn_em_mem_touch(cairn_mem *m, double id) { return cairn_mem_touch(m, (uint64_t)id); }

/*
** Search. zFilter is the JSON filter (cairn_mem_filter_parse) or NULL. aOut receives 5 doubles
** per hit {id, score, vscore, bscore, version} and has room for k hits; *pn receives the hit count.
*/
EMSCRIPTEN_KEEPALIVE int cairn_em_mem_search(cairn_mem *m, const char *zText, const float *aEmb, uint32_t nEmb, uint32_t k,
                                             int mode, int fusion, double rrfK, double wVector, double wBm25,
                                             double recencyWeight, double halfLifeH, double nowMs, int vindex, uint32_t nprobe,
                                             uint32_t rerank, double bm25K1, double bm25B, const char *zFilter, int touch,
                                             double asOfMs, double *aOut, uint32_t *pn) {
  cairn_mem_query q;
  memset(&q, 0, sizeof q);
  q.zText = zText, q.aEmbedding = aEmb, q.nEmbedding = nEmb, q.k = k, q.mode = mode, q.fusion = fusion;
  q.rrfK = (float)rrfK, q.wVector = (float)wVector, q.wBm25 = (float)wBm25;
  q.recencyWeight = (float)recencyWeight, q.recencyHalfLifeH = (float)halfLifeH, q.nowMs = (int64_t)nowMs;
  q.vindex = vindex, q.nprobe = nprobe, q.rerank = rerank, q.bm25K1 = (float)bm25K1, q.bm25B = (float)bm25B;
  q.touch = touch;
  q.asOfMs = (int64_t)asOfMs;
  *pn = 0;
  cairn_mem_filter flt;
  char *zArena = NULL;
  if (zFilter) {
    int rc = cairn_mem_filter_parse(zFilter, &flt, &zArena);
    if (rc) {
      cairn_free(zArena);
      return rc;
    }
    q.pFilter = &flt;
  }
  uint32_t nCap = k ? k : 10;
  cairn_mem_hit *aHit = nCap > SIZE_MAX / sizeof(cairn_mem_hit) ? NULL : cairn_malloc((size_t)nCap * sizeof(cairn_mem_hit));
  int rc = aHit ? cairn_mem_search(m, &q, aHit, pn) : cairn_seterr(CAIRN_NOMEM, "mem search: out of memory for %u hits", nCap);
  if (rc == CAIRN_OK) {
    for (uint32_t i = 0; i < *pn; i++) {
      aOut[5 * i] = (double)aHit[i].id, aOut[5 * i + 1] = aHit[i].score;
      aOut[5 * i + 2] = aHit[i].vscore, aOut[5 * i + 3] = aHit[i].bscore, aOut[5 * i + 4] = (double)aHit[i].version;
    }
  } else {
    *pn = 0;
  }
  cairn_free(aHit);
  cairn_free(zArena);
  return rc;
}

EMSCRIPTEN_KEEPALIVE int cairn_em_mem_build_index(cairn_mem *m, int kind, uint32_t nlist, uint32_t pqM, uint32_t nIter,
                                                  uint32_t nTrain, double seed) {
  cairn_mem_index_config c;
  memset(&c, 0, sizeof c);
  c.kind = kind, c.nlist = nlist, c.pqM = pqM, c.nIter = nIter, c.nTrain = nTrain, c.seed = (uint64_t)seed;
  return cairn_mem_build_index(m, &c);
}

/* aNum = {nMemory, nUncommitted, dim, metric, nSession, nRole, nTerm, nPosting, nTextBytes,
** nFileBytes, ivfKind, ivfNlist, ivfPqM, openNs, textOnly, diskVectors}; *pzKernel the vector
** kernel's name. The last two are -1 where the core does not report them. */
EMSCRIPTEN_KEEPALIVE int cairn_em_mem_stats(cairn_mem *m, double *aNum, const char **pzKernel) {
  cairn_mem_stats s;
  int rc = cairn_mem_stats_get(m, &s);
  if (rc) return rc;
  aNum[0] = (double)s.nMemory, aNum[1] = (double)s.nUncommitted, aNum[2] = s.dim, aNum[3] = s.metric;
  aNum[4] = s.nSession, aNum[5] = s.nRole, aNum[6] = s.nTerm, aNum[7] = (double)s.nPosting;
  aNum[8] = (double)s.nTextBytes, aNum[9] = (double)s.nFileBytes, aNum[10] = s.ivfKind, aNum[11] = s.ivfNlist;
  aNum[12] = s.ivfPqM, aNum[13] = (double)s.openNs;
#ifdef CAIRN_MEM_DISK_F16
  aNum[14] = s.textOnly, aNum[15] = s.diskVectors;
#else
  aNum[14] = -1, aNum[15] = -1;
#endif
  *pzKernel = s.zKernel;
  return CAIRN_OK;
}

/* Tokens of a text, as one string with a NUL between tokens (for the JS tokenize helper):
** *pz is allocated with cairn_malloc (JS frees it with cairn_free), *pn is its length. */
typedef struct TokBuf {
  char *z;
  size_t n, cap;
  int rc;
} TokBuf;
static void tokAppend(void *pArg, const char *z, size_t n) {
  TokBuf *b = pArg;
  if (b->rc) return;
  if (b->n + n + 1 > b->cap) {
    size_t cap = (b->cap ? b->cap * 2 : 256) + n + 1;
    char *p = cairn_realloc(b->z, cap);
    if (!p) {
      b->rc = cairn_seterr(CAIRN_NOMEM, "tokenize: out of memory");
      return;
    }
    b->z = p, b->cap = cap;
  }
  memcpy(b->z + b->n, z, n);
  b->z[b->n + n] = 0;
  b->n += n + 1;
}
EMSCRIPTEN_KEEPALIVE int cairn_em_mem_tokenize(const char *zText, size_t nText, char **pz, size_t *pn) {
  TokBuf b = {NULL, 0, 0, CAIRN_OK};
  int rc = cairn_mem_tokenize(zText, nText, tokAppend, &b);
  if (rc == CAIRN_OK) rc = b.rc;
  if (rc) {
    cairn_free(b.z);
    b.z = NULL, b.n = 0;
  }
  *pz = b.z, *pn = b.n;
  return rc;
}

/* The built-in demo conversation (core/mem/demo_data.c). */
EMSCRIPTEN_KEEPALIVE double cairn_em_mem_demo_count(int questions) {
  size_t n = 0;
  if (questions) cairn_mem_demo_questions(&n);
  else cairn_mem_demo_turns(&n);
  return (double)n;
}
/* Turn i: azStr = {session, speaker, text}; returns its event time in ms. */
EMSCRIPTEN_KEEPALIVE double cairn_em_mem_demo_turn(uint32_t i, const char **azStr) {
  size_t n;
  const cairn_mem_demo_turn *a = cairn_mem_demo_turns(&n);
  if (i >= n) return -1;
  azStr[0] = a[i].zSession, azStr[1] = a[i].zSpeaker, azStr[2] = a[i].zText;
  return (double)a[i].eventMs;
}
/* Question i: returns its text; *piTurn the index of the turn that answers it. */
EMSCRIPTEN_KEEPALIVE const char *cairn_em_mem_demo_question(uint32_t i, int *piTurn) {
  size_t n;
  const cairn_mem_demo_question *a = cairn_mem_demo_questions(&n);
  if (i >= n) return NULL;
  *piTurn = a[i].iTurn;
  return a[i].zQuestion;
}

/* ---- 2026-12-02 (issue 17): ids as doubles around the JSON calls of cairn/mem.h ---- */
EMSCRIPTEN_KEEPALIVE int cairn_em_mem_get_json(cairn_mem *m, double id, int bEmb, int bVersion, char **pz) {
  return bVersion ? cairn_mem_version_json(m, (uint64_t)id, bEmb, pz) : cairn_mem_get_json(m, (uint64_t)id, bEmb, pz);
}
EMSCRIPTEN_KEEPALIVE int cairn_em_mem_history_json(cairn_mem *m, double id, int bEmb, char **pz) { return cairn_mem_history_json(m, (uint64_t)id, bEmb, pz); }
EMSCRIPTEN_KEEPALIVE int cairn_em_mem_update_json(cairn_mem *m, double id, const char *zJson, double *pVersion) {
  uint64_t v = 0;
  int rc = cairn_mem_update_json(m, (uint64_t)id, zJson, &v);
  *pVersion = (double)v;
  return rc;
}
EMSCRIPTEN_KEEPALIVE int cairn_em_mem_delete(cairn_mem *m, double id) { return cairn_mem_delete(m, (uint64_t)id); }
EMSCRIPTEN_KEEPALIVE int cairn_em_mem_delete_where(cairn_mem *m, const char *zFilter, double *pn) {
  uint64_t n = 0;
  int rc = cairn_mem_delete_where(m, zFilter, &n);
  *pn = (double)n;
  return rc;
}
EMSCRIPTEN_KEEPALIVE int cairn_em_mem_import(cairn_mem *m, const char *z, size_t n, double *pn) {
  uint64_t k = 0;
  int rc = cairn_mem_import_jsonl(m, z, n, &k);
  *pn = (double)k;
  return rc;
}
typedef struct EmLines {
  char *z;
  size_t n, cap;
} EmLines;
static int emLine(void *pArg, const char *z, size_t n) {
  EmLines *l = pArg;
  if (l->n + n + 2 > l->cap) {
    size_t c = (l->n + n + 2) * 2;
    char *p = cairn_realloc(l->z, c);
    if (!p) return cairn_seterr(CAIRN_NOMEM, "export: out of memory");
    l->z = p, l->cap = c;
  }
  memcpy(l->z + l->n, z, n);
  l->n += n;
  l->z[l->n++] = '\n';
  l->z[l->n] = 0;
  return CAIRN_OK;
}
/* The whole export as one JSONL string (*pz, "" when empty; free with cairn_free). */
EMSCRIPTEN_KEEPALIVE int cairn_em_mem_export(cairn_mem *m, const char *zOpts, char **pz) {
  EmLines l = {0};
  int rc = cairn_mem_export(m, zOpts, emLine, &l);
  if (rc == CAIRN_OK && !l.z) {
    l.z = cairn_malloc(1);
    if (l.z) l.z[0] = 0;
    else rc = cairn_seterr(CAIRN_NOMEM, "export: out of memory");
  }
  if (rc) cairn_free(l.z), l.z = NULL;
  *pz = l.z;
  return rc;
}
