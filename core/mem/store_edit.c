/*
** 2026-12-02
**
** core/mem/store_edit.c - what changes a memory after its add (FORMAT.md "Versions and
** forgetting"): dedup on write (cairn_mem_put), versions (cairn_mem_update, cairn_mem_history),
** forgetting (cairn_mem_delete: a tombstone now, the bytes gone at the next checkpoint's
** rewrite), compaction, and the bitmap of current rows that every search starts from.
**
** Rows never move: row r is version r + 1; aHead[r] is the memory it is a version of (the id
** of its first version, which is the memory's id for every call), aCur[head - 1] its latest
** version. A version is valid over [aFrom, aTo), aTo 0 = current.
*/
#include <math.h>

#include "mem_int.h"
#include "mem_hook.h"

void cairnMemSetLive(cairn_mem *m, size_t r, int live) {
  if (live) m->aLive[r >> 6] |= 1ull << (r & 63);
  else m->aLive[r >> 6] &= ~(1ull << (r & 63));
}

size_t cairnMemCurRow(const cairn_mem *m, uint64_t id) {
  if (id == 0 || id > m->n) return SIZE_MAX;
  size_t r = (size_t)id - 1;
  if (m->aHead[r] != id || (m->aFlags[r] & MEM_ROW_DEAD)) return SIZE_MAX;
  return (size_t)m->aCur[r];
}

/* ------------------------------------------------------------------ exact dedup */
/* FNV-1a over the normalised text: ASCII lowercased, runs of white space as one space, trimmed. */
static int memIsSpace(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
uint64_t cairnMemNormHash(const char *z, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  int pendSpace = 0, any = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)z[i];
    if (memIsSpace(c)) {
      pendSpace = any;
      continue;
    }
    if (pendSpace) h = (h ^ ' ') * 0x100000001b3ull, pendSpace = 0;
    if (c >= 'A' && c <= 'Z') c = (unsigned char)(c + 32);
    h = (h ^ c) * 0x100000001b3ull;
    any = 1;
  }
  return h;
}
/* Do a and b normalise to the same text? */
static int normEqual(const char *a, size_t na, const char *b, size_t nb) {
  size_t i = 0, j = 0;
  for (;;) {
    while (i < na && memIsSpace((unsigned char)a[i])) i++;
    while (j < nb && memIsSpace((unsigned char)b[j])) j++;
    if (i == na || j == nb) return i == na && j == nb;
    /* one word of each */
    while (i < na && j < nb && !memIsSpace((unsigned char)a[i]) && !memIsSpace((unsigned char)b[j])) {
      unsigned char x = (unsigned char)a[i], y = (unsigned char)b[j];
      if (x >= 'A' && x <= 'Z') x = (unsigned char)(x + 32);
      if (y >= 'A' && y <= 'Z') y = (unsigned char)(y + 32);
      if (x != y) return 0;
      i++, j++;
    }
    int ea = i == na || memIsSpace((unsigned char)a[i]), eb = j == nb || memIsSpace((unsigned char)b[j]);
    if (ea != eb) return 0;
  }
}
static uint64_t dedupKey(uint64_t hText, uint32_t sid, uint32_t uid, uint32_t aid) {
  uint64_t h = hText ^ ((uint64_t)sid * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)uid * 0xc2b2ae3d27d4eb4full) ^ ((uint64_t)aid * 0x165667b19e3779f9ull);
  h ^= h >> 29;
  return h * 0xbf58476d1ce4e5b9ull;
}
static uint64_t rowKey(const cairn_mem *m, size_t r) {
  return dedupKey(cairnMemNormHash(m->zText + m->aTextOff[r], m->aTextLen[r]), m->aSession[r], m->aUser[r], m->aAgent[r]);
}
#define DEDUP_DEL 0xFFFFFFFFu
/* Insert row r (SIZE_MAX: only make room for one more). Fails only on NOMEM while growing. */
int cairnMemDedupAdd(cairn_mem *m, size_t r) {
  if ((m->nDedup + 1) * 2 > m->nDedupSlot) {
    size_t nS = m->nDedupSlot ? m->nDedupSlot * 2 : 1024;
    size_t nLive = 0;
    for (size_t i = 0; i < m->n; i++) nLive += memRowLive(m, i);
    while ((nLive + 1) * 4 > nS) nS *= 2;
    uint32_t *a = cairnMallocZero(nS * 4);
    if (!a) return cairnErr(CAIRN_NOMEM, "store: dedup table of %zu slots", nS);
    for (size_t i = 0; i < m->n; i++) {
      if (!memRowLive(m, i)) continue;
      size_t s = (size_t)rowKey(m, i) & (nS - 1);
      while (a[s]) s = (s + 1) & (nS - 1);
      a[s] = (uint32_t)i + 1;
    }
    cairnFree(m->aDedup);
    m->aDedup = a, m->nDedupSlot = nS, m->nDedup = nLive;
  }
  if (r == SIZE_MAX) return CAIRN_OK;
  size_t s = (size_t)rowKey(m, r) & (m->nDedupSlot - 1);
  while (m->aDedup[s] && m->aDedup[s] != DEDUP_DEL) s = (s + 1) & (m->nDedupSlot - 1);
  if (!m->aDedup[s]) m->nDedup++;
  m->aDedup[s] = (uint32_t)r + 1;
  return CAIRN_OK;
}
void cairnMemDedupDel(cairn_mem *m, size_t r) {
  if (!m->nDedupSlot) return;
  size_t s = (size_t)rowKey(m, r) & (m->nDedupSlot - 1);
  for (size_t k = 0; k < m->nDedupSlot && m->aDedup[s]; k++, s = (s + 1) & (m->nDedupSlot - 1))
    if (m->aDedup[s] == (uint32_t)r + 1) {
      m->aDedup[s] = DEDUP_DEL;
      return;
    }
}
static uint32_t nameId(cairn_mem *m, const char *z, size_t n, int *pMissing) {
  uint32_t id = 0;
  if (!n) return 0;
  if (cairnMemNamesFind(&m->names, z, n, &id, 0) != CAIRN_OK) {
    cairn_clearerr();
    *pMissing = 1;
    return 0;
  }
  return id + 1;
}
/* The current row holding a's normalised text in a's scope, SIZE_MAX if none. */
static size_t dedupFind(cairn_mem *m, const MemAddArgs *a) {
  if (!m->nDedupSlot) return SIZE_MAX;
  int missing = 0;
  uint32_t sid = nameId(m, a->zSession, a->nSession, &missing), uid = nameId(m, a->zUser, a->nUser, &missing);
  uint32_t aid = nameId(m, a->zAgent, a->nAgent, &missing);
  if (missing) return SIZE_MAX; /* a scope nobody used yet */
  uint64_t key = dedupKey(cairnMemNormHash(a->zText, a->nText), sid, uid, aid);
  size_t s = (size_t)key & (m->nDedupSlot - 1);
  for (size_t k = 0; k < m->nDedupSlot && m->aDedup[s]; k++, s = (s + 1) & (m->nDedupSlot - 1)) {
    uint32_t v = m->aDedup[s];
    if (v == DEDUP_DEL) continue;
    size_t r = v - 1;
    if (m->aSession[r] == sid && m->aUser[r] == uid && m->aAgent[r] == aid &&
        normEqual(m->zText + m->aTextOff[r], m->aTextLen[r], a->zText, a->nText))
      return r;
  }
  return SIZE_MAX;
}

/* The most similar current memory of a's scope: cosine of the vectors (text-only stores: of
** the built-in embedder's vectors of the BM25 candidates' texts). */
static int nearFind(cairn_mem *m, const MemAddArgs *a, size_t *pRow, float *pSim) {
  *pRow = SIZE_MAX, *pSim = -INFINITY;
  int missing = 0;
  uint32_t sid = nameId(m, a->zSession, a->nSession, &missing), uid = nameId(m, a->zUser, a->nUser, &missing);
  uint32_t aid = nameId(m, a->zAgent, a->nAgent, &missing);
  if (missing) return CAIRN_OK;
  if (!m->textOnly) {
    const float *q = a->aVec;
    float qn = sqrtf(cairnMemDot(q, q, m->dim));
    for (size_t r = 0; r < m->n; r++) {
      if (!memRowLive(m, r) || m->aSession[r] != sid || m->aUser[r] != uid || m->aAgent[r] != aid) continue;
      const float *x = m->vecs.aF32 + r * m->dim;
      float d = cairnMemDot(q, x, m->dim), xn = sqrtf(m->vecs.aSqNorm[r]);
      float s = qn > 0 && xn > 0 ? d / (qn * xn) : 0;
      if (s > *pSim) *pSim = s, *pRow = r;
    }
    return CAIRN_OK;
  }
  /* text-only: the 20 best BM25 rows of the scope, compared by character grams */
  MemTopK t;
  memset(&t, 0, sizeof t);
  size_t nW = (m->n + 63) / 64 + 1;
  MemBits b = {cairnMallocZero(nW * 8), m->n};
  float *qv = cairnMallocArray(2 * CAIRN_MEM_DEFAULT_DIM, 4);
  int rc = b.a && qv ? cairnTopKInit(&t, 20) : cairnErr(CAIRN_NOMEM, "mem_put: near duplicates");
  for (size_t r = 0; rc == CAIRN_OK && r < m->n; r++)
    if (memRowLive(m, r) && m->aSession[r] == sid && m->aUser[r] == uid && m->aAgent[r] == aid) b.a[r >> 6] |= 1ull << (r & 63);
  if (rc == CAIRN_OK) rc = cairnBm25Search(&m->bm25, a->zText, a->nText, 1.2f, 0.75f, &b, 1, &t);
  if (rc == CAIRN_OK) rc = cairn_mem_embed(a->zText, a->nText, qv, CAIRN_MEM_DEFAULT_DIM);
  for (uint32_t i = 0; rc == CAIRN_OK && i < t.n; i++) {
    size_t r = t.aIdx[i];
    float *xv = qv + CAIRN_MEM_DEFAULT_DIM;
    rc = cairn_mem_embed(m->zText + m->aTextOff[r], m->aTextLen[r], xv, CAIRN_MEM_DEFAULT_DIM);
    float s = cairnMemDot(qv, xv, CAIRN_MEM_DEFAULT_DIM);
    if (rc == CAIRN_OK && s > *pSim) *pSim = s, *pRow = r;
  }
  cairnTopKFree(&t);
  cairnFree(b.a);
  cairnFree(qv);
  return rc;
}

int cairn_mem_put(cairn_mem *m, const cairn_mem_record *r, const cairn_mem_put_opts *o, cairn_mem_put_result *res) {
  if (!m || !r || !res) return cairnErr(CAIRN_MISUSE, "mem_add: NULL argument");
  memset(res, 0, sizeof *res);
  if (m->readOnly) return cairnErr(CAIRN_READONLY, "mem_add: store opened read-only");
  if (m->rcFatal) return cairnErr(m->rcFatal, "mem_add: an earlier checkpoint failed after its superblock switch; reopen the store");
  if (o && (!(o->nearThreshold >= 0 && o->nearThreshold <= 1) || o->nearPolicy < CAIRN_MEM_NEAR_KEEP || o->nearPolicy > CAIRN_MEM_NEAR_SUPERSEDE))
    return cairnErr(CAIRN_RANGE, "mem_add: nearThreshold must be in [0, 1] and nearPolicy keep, skip or supersede");
  MemAddArgs a;
  CAIRN_TRY(cairnMemPrepare(m, r, &a, "mem_add"));
  if (!o || !o->noExact) {
    size_t d = dedupFind(m, &a);
    if (d != SIZE_MAX) {
      uint64_t id = m->aHead[d];
      CAIRN_TRY(cairn_mem_touch(m, id));
      res->id = id, res->status = CAIRN_MEM_PUT_EXACT, res->duplicateOf = id, res->similarity = 1;
      return CAIRN_OK;
    }
  }
  if (o && o->nearThreshold > 0) {
    size_t d;
    float sim;
    CAIRN_TRY(nearFind(m, &a, &d, &sim));
    if (d != SIZE_MAX && sim >= o->nearThreshold) {
      uint64_t id = m->aHead[d];
      res->duplicateOf = id, res->similarity = sim;
      if (o->nearPolicy == CAIRN_MEM_NEAR_SKIP) {
        res->id = id, res->status = CAIRN_MEM_PUT_NEAR_SKIP;
        return CAIRN_OK;
      }
      if (o->nearPolicy == CAIRN_MEM_NEAR_SUPERSEDE) {
        unsigned f = CAIRN_MEM_F_TEXT | CAIRN_MEM_F_META | CAIRN_MEM_F_TIER | CAIRN_MEM_F_IMPORTANCE | CAIRN_MEM_F_ROLE;
        if (r->aEmbedding) f |= CAIRN_MEM_F_EMBEDDING;
        if (r->eventMs) f |= CAIRN_MEM_F_EVENT;
        CAIRN_TRY(cairn_mem_update(m, id, r, f, &res->version));
        res->id = id, res->status = CAIRN_MEM_PUT_SUPERSEDED;
        return CAIRN_OK;
      }
      res->status = CAIRN_MEM_PUT_NEAR_KEPT;
    }
  }
  CAIRN_TRY(cairnMemAddArgs(m, &a));
  res->id = res->version = m->n;
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ versions */
int cairnMemApplyEnd(cairn_mem *m, size_t r, int64_t to) {
  if (r >= m->n || (m->aFlags[r] & MEM_ROW_DEAD) || m->aTo[r] != 0)
    return cairnErr(CAIRN_CORRUPT, "store: version %zu cannot end (unknown, forgotten or ended already)", r + 1);
  if (memRowLive(m, r)) {
    cairnMemDedupDel(m, r);
    cairnMemSetLive(m, r, 0);
    m->nNotLive++;
  }
  m->aTo[r] = to;
  if (r < m->nCk && r < m->endMin) m->endMin = r;
  return CAIRN_OK;
}

/* A copy of the strings of *r (they may point into the store, which the add reallocates). */
static char *copyStrings(cairn_mem_record *r) {
  const char **ap[6] = {&r->zText, &r->zMeta, &r->zSession, &r->zRole, &r->zUser, &r->zAgent};
  size_t n = 0;
  for (int i = 0; i < 6; i++) n += *ap[i] ? strlen(*ap[i]) + 1 : 0;
  char *z = cairnMalloc(n + 1), *o = z;
  if (!z) return NULL;
  for (int i = 0; i < 6; i++) {
    if (!*ap[i]) continue;
    size_t k = strlen(*ap[i]) + 1;
    memcpy(o, *ap[i], k);
    *ap[i] = o, o += k;
  }
  return z;
}

int cairn_mem_update(cairn_mem *m, uint64_t id, const cairn_mem_record *p, unsigned fields, uint64_t *pVersion) {
  if (!m || !p) return cairnErr(CAIRN_MISUSE, "mem_update: NULL argument");
  if (m->readOnly) return cairnErr(CAIRN_READONLY, "mem_update: store opened read-only");
  if (m->rcFatal) return cairnErr(m->rcFatal, "mem_update: an earlier checkpoint failed after its superblock switch; reopen the store");
  if (fields & ~(unsigned)CAIRN_MEM_F_ALL) return cairnErr(CAIRN_MISUSE, "mem_update: unknown field bits 0x%x", fields & ~(unsigned)CAIRN_MEM_F_ALL);
  size_t c = cairnMemCurRow(m, id);
  if (c == SIZE_MAX) return cairnErr(CAIRN_NOTFOUND, "mem_update: no memory %llu (never added, or deleted)", (unsigned long long)id);
  cairn_mem_record cur;
  cairnMemRowGet(m, c, &cur);
  cairn_mem_record u = cur;
  if (fields & CAIRN_MEM_F_TEXT) u.zText = p->zText;
  if (fields & CAIRN_MEM_F_META) u.zMeta = p->zMeta;
  if (fields & CAIRN_MEM_F_SESSION) u.zSession = p->zSession;
  if (fields & CAIRN_MEM_F_ROLE) u.zRole = p->zRole;
  if (fields & CAIRN_MEM_F_USER) u.zUser = p->zUser;
  if (fields & CAIRN_MEM_F_AGENT) u.zAgent = p->zAgent;
  if (fields & CAIRN_MEM_F_TIER) u.tier = p->tier;
  if (fields & CAIRN_MEM_F_IMPORTANCE) u.importance = p->importance;
  if (fields & CAIRN_MEM_F_EVENT) u.eventMs = p->eventMs;
  if (fields & CAIRN_MEM_F_CREATED) u.createdMs = p->createdMs;
  if (fields & CAIRN_MEM_F_EMBEDDING) u.aEmbedding = p->aEmbedding, u.nEmbedding = p->nEmbedding;
  else if (fields & CAIRN_MEM_F_TEXT) u.aEmbedding = NULL, u.nEmbedding = 0; /* the built-in embedder */
  char *zCopy = copyStrings(&u);
  if (!zCopy) return cairnErr(CAIRN_NOMEM, "mem_update: out of memory");
  float *aVec = NULL;
  if (u.aEmbedding && u.aEmbedding == cur.aEmbedding) { /* the stored vector: copy it too */
    aVec = cairnMallocArray(m->dim, 4);
    if (aVec) memcpy(aVec, cur.aEmbedding, (size_t)m->dim * 4);
    u.aEmbedding = aVec;
  }
  MemAddArgs a;
  int rc = aVec || !u.aEmbedding || u.aEmbedding == p->aEmbedding ? cairnMemPrepare(m, &u, &a, "mem_update") : cairnErr(CAIRN_NOMEM, "mem_update: out of memory");
  int64_t now = p->validFromMs ? p->validFromMs : cairnClock(0) / 1000000;
  if (now < m->aFrom[c]) now = m->aFrom[c];
  if (rc == CAIRN_OK) {
    a.head = id, a.from = now, a.access = m->aAccess[c];
    /* room for the END record after the ADD2, so that the two are logged together or not at all */
    if (m->f) rc = cairnMemPendGrow(m, a.nText + a.nMeta + a.nSession + a.nRole + a.nUser + a.nAgent + (size_t)m->dim * 4 + 256);
  }
  if (rc == CAIRN_OK) rc = cairnMemAddArgs(m, &a);
  if (rc == CAIRN_OK) {
    if (m->f) {
      uint8_t *q = memRecBegin(m, MEM_REC_END, 16);
      MemWr w = {q, 0};
      memWU64(&w, (uint64_t)c + 1);
      memWU64(&w, (uint64_t)now);
      memRecEnd(m, 16);
    }
    rc = cairnMemApplyEnd(m, c, now);
    if (pVersion) *pVersion = m->n;
  }
  cairnFree(aVec);
  cairnFree(zCopy);
  return rc;
}

int cairn_mem_history(cairn_mem *m, uint64_t id, cairn_mem_record *aOut, uint32_t nMax, uint32_t *pn) {
  if (!m || !pn || (nMax && !aOut)) return cairnErr(CAIRN_MISUSE, "mem_history: NULL argument");
  *pn = 0;
  if (cairnMemCurRow(m, id) == SIZE_MAX) return cairnErr(CAIRN_NOTFOUND, "mem_history: no memory %llu (never added, or deleted)", (unsigned long long)id);
  uint32_t k = 0;
  for (size_t r = (size_t)id - 1; r < m->n; r++) {
    if (m->aHead[r] != id || (m->aFlags[r] & MEM_ROW_DEAD)) continue;
    if (k < nMax) cairnMemRowGet(m, r, &aOut[k]);
    k++;
  }
  *pn = k;
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ forgetting */
/* Tombstone row r in memory: postings, text, metadata, vector and names gone. */
int cairnMemApplyForget(cairn_mem *m, size_t r) {
  if (r >= m->n) return cairnErr(CAIRN_CORRUPT, "store: forget of unknown version %zu", r + 1);
  if (m->aFlags[r] & MEM_ROW_DEAD) return CAIRN_OK;
  uint32_t role = m->aRole[r]; /* the role is indexed with the text (store_rec.c cairnMemApplyAdd) */
  CAIRN_TRY(cairnBm25Remove(&m->bm25, (uint32_t)r, m->zText + m->aTextOff[r], m->aTextLen[r], role ? m->names.z + m->names.aOff[role - 1] : NULL,
                            role ? m->names.aLen[role - 1] : 0));
  if (memRowLive(m, r)) {
    cairnMemDedupDel(m, r);
    cairnMemSetLive(m, r, 0);
    m->nNotLive++;
  }
  memset(m->zText + m->aTextOff[r], 0, m->aTextLen[r]);
  memset(m->zText + m->aMetaOff[r], 0, m->aMetaLen[r]);
  m->aTextLen[r] = m->aMetaLen[r] = 0;
  if (!m->textOnly) {
    MemVecs *v = &m->vecs;
    memset(v->aF32 + r * v->dim, 0, (size_t)v->dim * 4);
    memset(v->aI8 + r * v->dim, 0, v->dim);
    memset(v->aF16 + r * v->dim, 0, (size_t)v->dim * 2);
    v->aSqNorm[r] = 0, v->aI8Scale[r] = 0;
  }
  m->aSession[r] = m->aRole[r] = m->aUser[r] = m->aAgent[r] = 0;
  m->aCreated[r] = m->aEvent[r] = m->aFrom[r] = m->aTo[r] = 0;
  m->aTier[r] = 0, m->aImp[r] = 0, m->aAccess[r] = 0;
  m->aFlags[r] |= MEM_ROW_DEAD;
  m->forgetPending = 1;
  return CAIRN_OK;
}

int cairn_mem_delete(cairn_mem *m, uint64_t id) {
  if (!m) return cairnErr(CAIRN_MISUSE, "mem_delete: NULL store");
  if (m->readOnly) return cairnErr(CAIRN_READONLY, "mem_delete: store opened read-only");
  if (m->rcFatal) return cairnErr(m->rcFatal, "mem_delete: an earlier checkpoint failed after its superblock switch; reopen the store");
  if (cairnMemCurRow(m, id) == SIZE_MAX) return cairnErr(CAIRN_NOTFOUND, "mem_delete: no memory %llu (never added, or deleted)", (unsigned long long)id);
  size_t nVer = 0;
  for (size_t r = (size_t)id - 1; r < m->n; r++) nVer += m->aHead[r] == id && !(m->aFlags[r] & MEM_ROW_DEAD);
  if (m->f) CAIRN_TRY(cairnMemPendGrow(m, nVer * 17));
  for (size_t r = (size_t)id - 1; r < m->n; r++) {
    if (m->aHead[r] != id || (m->aFlags[r] & MEM_ROW_DEAD)) continue;
    CAIRN_TRY(cairnMemApplyForget(m, r));
    if (m->f) {
      uint8_t *q = memRecBegin(m, MEM_REC_FORGET, 8);
      MemWr w = {q, 0};
      memWU64(&w, (uint64_t)r + 1);
      memRecEnd(m, 8);
    }
  }
  /* the graph kept in the file drops the facts only this memory supported (mem_hook.h); were it
  ** to fail, the next checkpoint's rewrite finds the memory gone and drops them then */
  if (m->pHook && m->pHook->xForget(m->pHook->pCtx, id) != CAIRN_OK) cairn_clearerr();
  return CAIRN_OK;
}

int cairn_mem_compact(cairn_mem *m) {
  if (!m) return cairnErr(CAIRN_MISUSE, "mem_compact: NULL store");
  if (m->readOnly) return cairnErr(CAIRN_READONLY, "mem_compact: store opened read-only");
  if (!m->f) return CAIRN_OK;
  if (m->fmt != 2) return cairnErr(CAIRN_UNSUPPORTED, "mem_compact: a log-only store of format 1 (before 2026-11-29): checkpoint into a new store first");
  CAIRN_TRY(cairn_mem_commit(m));
  return cairnMemRewrite(m);
}
