/*
** 2026-12-02
**
** core/mem/store_rec.c - the records of the memory store: the name table (sessions and roles),
** the per-row arrays in memory, and add / touch / get / embedding (each add logs its record
** through store_log.c).
*/
#include <math.h>

#include "mem_int.h"

/* ------------------------------------------------------------------ names */
int cairnMemNamesFind(MemNames *t, const char *z, size_t n, uint32_t *pId, int add) {
  uint64_t h = cairnMemHash(z, n, 77);
  if (add && ((uint64_t)t->n + 1) * 2 > t->nSlot) {
    uint32_t nS = t->nSlot ? t->nSlot * 2 : 64;
    uint32_t *a = cairnMallocZero((size_t)nS * 4);
    if (!a) return cairnErr(CAIRN_NOMEM, "names table");
    for (uint32_t i = 0; i < t->n; i++) {
      uint32_t s = (uint32_t)cairnMemHash(t->z + t->aOff[i], t->aLen[i], 77) & (nS - 1);
      while (a[s]) s = (s + 1) & (nS - 1);
      a[s] = i + 1;
    }
    cairnFree(t->aSlot);
    t->aSlot = a, t->nSlot = nS;
  }
  if (!t->nSlot) return CAIRN_NOTFOUND;
  uint32_t s = (uint32_t)h & (t->nSlot - 1);
  for (;;) {
    uint32_t v = t->aSlot[s];
    if (!v) break;
    if (t->aLen[v - 1] == n && memcmp(t->z + t->aOff[v - 1], z, n) == 0) {
      *pId = v - 1;
      return CAIRN_OK;
    }
    s = (s + 1) & (t->nSlot - 1);
  }
  if (!add) return CAIRN_NOTFOUND;
  if (t->n == t->nAlloc) {
    uint32_t nA = t->nAlloc;
    CAIRN_TRY(CAIRN_GROW(t->aOff, nA, t->n + 1, "names table"));
    nA = t->nAlloc;
    CAIRN_TRY(CAIRN_GROW(t->aLen, nA, t->n + 1, "names table"));
    t->nAlloc = nA;
  }
  CAIRN_TRY(cairnArrayReserve(&t->z, &t->nzAlloc, t->nz + n + 1, 1, 1024, "names table"));
  memcpy(t->z + t->nz, z, n);
  t->z[t->nz + n] = 0;
  t->aOff[t->n] = t->nz, t->aLen[t->n] = (uint32_t)n;
  t->nz += n + 1;
  t->aSlot[s] = t->n + 1;
  *pId = t->n++;
  return CAIRN_OK;
}
void cairnMemNamesFree(MemNames *t) {
  cairnFree(t->z), cairnFree(t->aOff), cairnFree(t->aLen), cairnFree(t->aSlot);
  memset(t, 0, sizeof(*t));
}


/* ------------------------------------------------------------------ records */
/* Room for one more record in every per-row array (they share the capacity m->nAlloc). */
static int growRecords(cairn_mem *m) {
  if (m->n < m->nAlloc) return CAIRN_OK;
  size_t nA = m->nAlloc;
#define GROW(field)                                                                          \
  do {                                                                                       \
    nA = m->nAlloc;                                                                          \
    CAIRN_TRY(cairnArrayReserve(&m->field, &nA, m->n + 1, sizeof(*m->field), 256, "store: records")); \
  } while (0)
  GROW(aTextOff);
  GROW(aTextLen);
  GROW(aMetaOff);
  GROW(aMetaLen);
  GROW(aCreated);
  GROW(aEvent);
  GROW(aSession);
  GROW(aRole);
  GROW(aTier);
  GROW(aImp);
  GROW(aAccess);
#undef GROW
  m->nAlloc = nA;
  return CAIRN_OK;
}

static int textReserve(cairn_mem *m, size_t nMore) {
  if (m->nText + nMore <= m->nTextAlloc) return CAIRN_OK;
  return cairnArrayReserve(&m->zText, &m->nTextAlloc, m->nText + nMore, 1, 65536, "store: text");
}

/* Apply to the in-memory store. Order matters for failure: everything that can fail on
** memory is reserved before anything is appended, except the BM25 and vector appends which
** are last and each all-or-nothing; if the vector append fails after BM25 succeeded the
** store is left with one more BM25 row than records, so we roll BM25's row count back. */
int cairnMemApplyAdd(cairn_mem *m, const MemAddArgs *a) {
  CAIRN_TRY(growRecords(m));
  CAIRN_TRY(textReserve(m, a->nText + a->nMeta + 2));
  uint32_t sid = 0, rid = 0;
  if (a->nSession) {
    CAIRN_TRY(cairnMemNamesFind(&m->names, a->zSession, a->nSession, &sid, 1));
    sid++;
  }
  if (a->nRole) {
    CAIRN_TRY(cairnMemNamesFind(&m->names, a->zRole, a->nRole, &rid, 1));
    rid++;
  }
  /* vectors first: its failure leaves nothing behind */
  if (!m->textOnly) CAIRN_TRY(cairnVecsAppend(&m->vecs, a->aVec));
  int rc = cairnBm25Add(&m->bm25, a->zText, a->nText);
  if (rc) {
    if (!m->textOnly) m->vecs.n--;
    return rc;
  }
  size_t r = m->n;
  m->aTextOff[r] = m->nText;
  m->aTextLen[r] = (uint32_t)a->nText;
  memcpy(m->zText + m->nText, a->zText, a->nText);
  m->zText[m->nText + a->nText] = 0;
  m->nText += a->nText + 1;
  m->aMetaOff[r] = m->nText;
  m->aMetaLen[r] = (uint32_t)a->nMeta;
  if (a->nMeta) memcpy(m->zText + m->nText, a->zMeta, a->nMeta);
  m->zText[m->nText + a->nMeta] = 0;
  m->nText += a->nMeta + 1;
  m->aCreated[r] = a->created, m->aEvent[r] = a->event;
  m->aSession[r] = sid, m->aRole[r] = rid;
  m->aTier[r] = (uint8_t)a->tier, m->aImp[r] = a->imp, m->aAccess[r] = a->access;
  if (m->n == 0 || a->event > m->maxEvent) m->maxEvent = a->event;
  m->n++;
  return CAIRN_OK;
}

/* Round a vector through the disk encoding, so what is searched now is what a reopen reads. */
static void roundForDisk(cairn_mem *m, float *v) {
  if (m->diskVec == CAIRN_MEM_DISK_F16) {
    for (uint32_t j = 0; j < m->dim; j++) v[j] = cairnF16ToF32(cairnF32ToF16(v[j]));
  } else if (m->diskVec == CAIRN_MEM_DISK_INT8) {
    float sc = cairnQuantI8(v, m->dim, m->aScratchI8);
    for (uint32_t j = 0; j < m->dim; j++) v[j] = (float)m->aScratchI8[j] * sc;
  }
}

static int logAdd(cairn_mem *m, const MemAddArgs *a, uint64_t id) {
  size_t nVec = m->textOnly ? 0
                : m->diskVec == CAIRN_MEM_DISK_F16  ? (size_t)m->dim * 2
                : m->diskVec == CAIRN_MEM_DISK_INT8 ? 4 + (size_t)m->dim
                                                    : (size_t)m->dim * 4;
  size_t n = 8 + 8 + 8 + 4 + 4 + 4 + 4 + a->nText + 2 + a->nSession + 2 + a->nRole + 4 + a->nMeta + 1 + nVec;
  cairnAssert(id == (uint64_t)m->n + 1); /* ids are the log's sequence numbers */
  uint8_t *p = memRecBegin(m, MEM_REC_ADD, n);
  if (!p) return CAIRN_NOMEM;
  MemWr w = {p, 0};
  memWU64(&w, id);
  memWU64(&w, (uint64_t)a->created);
  memWU64(&w, (uint64_t)a->event);
  memWU32(&w, (uint32_t)a->tier);
  memWF32(&w, a->imp);
  memWU32(&w, a->access);
  memWU32(&w, (uint32_t)a->nText);
  memWBytes(&w, a->zText, a->nText);
  memWU16(&w, (uint16_t)a->nSession);
  memWBytes(&w, a->zSession, a->nSession);
  memWU16(&w, (uint16_t)a->nRole);
  memWBytes(&w, a->zRole, a->nRole);
  memWU32(&w, (uint32_t)a->nMeta);
  memWBytes(&w, a->zMeta, a->nMeta);
  memWU8(&w, (uint8_t)memVecEncByte(m)); /* vector encoding: 0 f32, 1 none, 2 f16, 3 int8 */
  if (m->textOnly) {
  } else if (m->diskVec == CAIRN_MEM_DISK_F16) {
    for (uint32_t j = 0; j < m->dim; j++) memWU16(&w, cairnF32ToF16(a->aVec[j]));
  } else if (m->diskVec == CAIRN_MEM_DISK_INT8) {
    /* aVec was already rounded through int8 on add: re-quantising reproduces the codes */
    float sc = cairnQuantI8(a->aVec, m->dim, m->aScratchI8);
    memWF32(&w, sc);
    memWBytes(&w, m->aScratchI8, m->dim);
  } else {
    for (uint32_t j = 0; j < m->dim; j++) memWF32(&w, a->aVec[j]);
  }
  cairnAssert(w.i == n);
  memRecEnd(m, n);
  return CAIRN_OK;
}

int cairn_mem_add(cairn_mem *m, const cairn_mem_record *r, uint64_t *pId) {
  if (!m || !r) return cairnErr(CAIRN_MISUSE, "mem_add: NULL argument");
  if (m->readOnly) return cairnErr(CAIRN_READONLY, "mem_add: store opened read-only");
  MemAddArgs a;
  memset(&a, 0, sizeof a);
  a.zText = r->zText ? r->zText : "";
  a.nText = strlen(a.zText);
  if (a.nText == 0) return cairnErr(CAIRN_RANGE, "mem_add: text is empty");
  if (a.nText > CAIRN_MEM_MAX_TEXT) return cairnErr(CAIRN_RANGE, "mem_add: text of %zu bytes > %u", a.nText, CAIRN_MEM_MAX_TEXT);
  a.zSession = r->zSession ? r->zSession : "", a.nSession = strlen(a.zSession);
  a.zRole = r->zRole ? r->zRole : "", a.nRole = strlen(a.zRole);
  if (a.nSession > CAIRN_MEM_MAX_NAME || a.nRole > CAIRN_MEM_MAX_NAME)
    return cairnErr(CAIRN_RANGE, "mem_add: session or role longer than %u bytes", CAIRN_MEM_MAX_NAME);
  a.zMeta = r->zMeta ? r->zMeta : "", a.nMeta = strlen(a.zMeta);
  if (a.nMeta > CAIRN_MEM_MAX_META) return cairnErr(CAIRN_RANGE, "mem_add: metadata of %zu bytes > %u", a.nMeta, CAIRN_MEM_MAX_META);
  if (a.nMeta) {
    Json j;
    CAIRN_TRY(cairnJsonParse(&j, a.zMeta, a.nMeta));
    int isObj = j.a[0].type == JSON_OBJ;
    cairnJsonFree(&j);
    if (!isObj) return cairnErr(CAIRN_TYPE, "mem_add: metadata must be a JSON object");
  }
  if (r->tier < 0 || r->tier > 31) return cairnErr(CAIRN_RANGE, "mem_add: tier %d not in 0..31", r->tier);
  if (!memIsFinite(r->importance)) return cairnErr(CAIRN_TYPE, "mem_add: importance is not a finite number");
  float *v = m->aScratch;
  if (m->textOnly) {
    if (r->aEmbedding) return cairnErr(CAIRN_MISUSE, "mem_add: this store is text-only and takes no embedding");
  } else if (r->aEmbedding) {
    if (r->nEmbedding != m->dim)
      return cairnErr(CAIRN_MISUSE, "mem_add: embedding has %u dimensions, the store %u", r->nEmbedding, m->dim);
    double sq = 0;
    for (uint32_t j = 0; j < m->dim; j++) {
      if (!memIsFinite(r->aEmbedding[j])) return cairnErr(CAIRN_TYPE, "mem_add: embedding[%u] is NaN or infinite", j);
      sq += (double)r->aEmbedding[j] * r->aEmbedding[j];
    }
    if (!(sq < 1e30)) return cairnErr(CAIRN_TYPE, "mem_add: embedding norm overflows");
    memcpy(v, r->aEmbedding, (size_t)m->dim * 4);
    if (m->metric == CAIRN_METRIC_COSINE && sq > 0) {
      float inv = (float)(1 / sqrt(sq));
      for (uint32_t j = 0; j < m->dim; j++) v[j] *= inv;
    }
  } else {
    CAIRN_TRY(cairn_mem_embed(a.zText, a.nText, v, m->dim));
  }
  if (!m->textOnly) roundForDisk(m, v);
  a.aVec = m->textOnly ? NULL : v;
  a.created = r->createdMs ? r->createdMs : cairnClock(0) / 1000000;
  a.event = r->eventMs ? r->eventMs : a.created;
  a.tier = r->tier, a.imp = r->importance;
  size_t nPend0 = m->nPend;
  if (m->f) CAIRN_TRY(logAdd(m, &a, (uint64_t)m->n + 1));
  int rc = cairnMemApplyAdd(m, &a);
  if (rc) {
    m->nPend = nPend0;
    return rc;
  }
  if (pId) *pId = m->n;
  return CAIRN_OK;
}

/* A validated record (salvage's copy): logged and applied as an add. */
int cairnMemAddArgs(cairn_mem *m, const MemAddArgs *a) {
  size_t nPend0 = m->nPend;
  if (m->f) CAIRN_TRY(logAdd(m, a, (uint64_t)m->n + 1));
  int rc = cairnMemApplyAdd(m, a);
  if (rc) m->nPend = nPend0;
  return rc;
}

int cairn_mem_touch(cairn_mem *m, uint64_t id) {
  if (!m) return cairnErr(CAIRN_MISUSE, "mem_touch: NULL store");
  if (id == 0 || id > m->n) return cairnErr(CAIRN_NOTFOUND, "mem_touch: no memory %llu", (unsigned long long)id);
  if (m->f && !m->readOnly) {
    uint8_t *p = memRecBegin(m, MEM_REC_TOUCH, 12);
    if (!p) return CAIRN_NOMEM;
    MemWr w = {p, 0};
    memWU64(&w, id);
    memWU32(&w, 1);
    memRecEnd(m, 12);
  }
  m->aAccess[id - 1]++;
  if (id - 1 < m->nCk && id - 1 < m->touchMin) m->touchMin = (size_t)id - 1;
  return CAIRN_OK;
}

int cairn_mem_get(cairn_mem *m, uint64_t id, cairn_mem_record *r) {
  if (!m || !r) return cairnErr(CAIRN_MISUSE, "mem_get: NULL argument");
  if (id == 0 || id > m->n) return cairnErr(CAIRN_NOTFOUND, "mem_get: no memory %llu", (unsigned long long)id);
  size_t i = (size_t)id - 1;
  memset(r, 0, sizeof(*r));
  r->id = id;
  r->zText = m->zText + m->aTextOff[i];
  r->zMeta = m->aMetaLen[i] ? m->zText + m->aMetaOff[i] : NULL;
  r->aEmbedding = m->textOnly ? NULL : m->vecs.aF32 + i * m->dim;
  r->nEmbedding = m->textOnly ? 0 : m->dim;
  r->createdMs = m->aCreated[i], r->eventMs = m->aEvent[i];
  r->zSession = m->aSession[i] ? m->names.z + m->names.aOff[m->aSession[i] - 1] : NULL;
  r->zRole = m->aRole[i] ? m->names.z + m->names.aOff[m->aRole[i] - 1] : NULL;
  r->tier = m->aTier[i], r->importance = m->aImp[i], r->accessCount = m->aAccess[i];
  return CAIRN_OK;
}

int cairn_mem_embedding(cairn_mem *m, uint64_t id, float *pOut) {
  if (!m || !pOut) return cairnErr(CAIRN_MISUSE, "mem_embedding: NULL argument");
  if (id == 0 || id > m->n) return cairnErr(CAIRN_NOTFOUND, "mem_embedding: no memory %llu", (unsigned long long)id);
  if (m->textOnly) return cairnErr(CAIRN_MISUSE, "mem_embedding: this store is text-only");
  memcpy(pOut, m->vecs.aF32 + ((size_t)id - 1) * m->dim, (size_t)m->dim * 4);
  return CAIRN_OK;
}

