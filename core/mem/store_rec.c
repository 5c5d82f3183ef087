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
  GROW(aUser);
  GROW(aAgent);
  GROW(aHead);
  GROW(aCur);
  GROW(aFrom);
  GROW(aTo);
  GROW(aFlags);
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
  uint32_t uid = 0, aid = 0;
  if (a->nUser) {
    CAIRN_TRY(cairnMemNamesFind(&m->names, a->zUser, a->nUser, &uid, 1));
    uid++;
  }
  if (a->nAgent) {
    CAIRN_TRY(cairnMemNamesFind(&m->names, a->zAgent, a->nAgent, &aid, 1));
    aid++;
  }
  uint64_t head = a->head ? a->head : (uint64_t)m->n + 1;
  if (head > (uint64_t)m->n + 1 || (head <= m->n && m->aHead[head - 1] != head))
    return cairnErr(CAIRN_CORRUPT, "store: version %llu of memory %llu, which is not a memory", (unsigned long long)m->n + 1, (unsigned long long)head);
  if (((m->n >> 6) + 1) > m->nLiveAlloc) {
    size_t nW = m->nLiveAlloc;
    CAIRN_TRY(cairnArrayReserve(&m->aLive, &nW, (m->n >> 6) + 1, 8, 64, "store: live rows"));
    memset(m->aLive + m->nLiveAlloc, 0, (nW - m->nLiveAlloc) * 8);
    m->nLiveAlloc = nW;
  }
  int live = !(a->flags & MEM_ROW_DEAD) && a->to == 0;
  if (live && (m->nDedup + 1) * 2 > m->nDedupSlot) CAIRN_TRY(cairnMemDedupAdd(m, SIZE_MAX)); /* grow only */
  /* vectors first: its failure leaves nothing behind (a tombstone has the zero vector) */
  if (!m->textOnly && !a->aVec) memset(m->aScratch, 0, (size_t)m->dim * 4);
  if (!m->textOnly) CAIRN_TRY(cairnVecsAppend(&m->vecs, a->aVec ? a->aVec : m->aScratch));
  /* the role (speaker) is a BM25 field: "what did Ana say about X" finds Ana's turns even when the
  ** text does not name her; cairnMemApplyForget removes it with the text */
  int rc = cairnBm25Add(&m->bm25, a->zText, a->nText, a->zRole, a->nRole);
  if (rc) {
    if (!m->textOnly) m->vecs.n--;
    return rc;
  }
  size_t r = m->n;
  m->aTextOff[r] = m->nText;
  m->aTextLen[r] = (uint32_t)a->nText;
  if (a->nText) memcpy(m->zText + m->nText, a->zText, a->nText);
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
  m->aUser[r] = uid, m->aAgent[r] = aid;
  m->aHead[r] = head, m->aFrom[r] = a->from ? a->from : a->created, m->aTo[r] = a->to, m->aFlags[r] = a->flags;
  m->aCur[r] = r;
  if (head != r + 1 && !(a->flags & MEM_ROW_DEAD)) m->aCur[head - 1] = r;
  if (!(a->flags & MEM_ROW_DEAD) && (m->n == 0 || a->event > m->maxEvent)) m->maxEvent = a->event;
  m->n++;
  if (live) {
    cairnMemSetLive(m, r, 1);
    (void)cairnMemDedupAdd(m, r); /* room was made above: cannot fail */
  } else m->nNotLive++;
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
  if (!a->aVec) nVec = 0; /* a tombstone (salvage / import of a gap) */
  size_t n = 8 + 8 + 8 + 4 + 4 + 4 + 4 + a->nText + 2 + a->nSession + 2 + a->nRole + 4 + a->nMeta + 1 + nVec;
  n += 8 + 8 + 8 + 1 + 2 + a->nUser + 2 + a->nAgent; /* ADD2 */
  cairnAssert(id == (uint64_t)m->n + 1); /* ids are the log's sequence numbers */
  uint8_t *p = memRecBegin(m, MEM_REC_ADD2, n);
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
  memWU8(&w, (uint8_t)(a->aVec ? memVecEncByte(m) : 1)); /* vector encoding: 0 f32, 1 none, 2 f16, 3 int8 */
  if (m->textOnly || !a->aVec) {
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
  memWU64(&w, a->head ? a->head : id);
  memWU64(&w, (uint64_t)(a->from ? a->from : a->created));
  memWU64(&w, (uint64_t)a->to);
  memWU8(&w, a->flags);
  memWU16(&w, (uint16_t)a->nUser);
  memWBytes(&w, a->zUser, a->nUser);
  memWU16(&w, (uint16_t)a->nAgent);
  memWBytes(&w, a->zAgent, a->nAgent);
  cairnAssert(w.i == n);
  memRecEnd(m, n);
  return CAIRN_OK;
}

/* Check a record and fill *a (its vector in m->aScratch, normalised and rounded for the disk).
** zWho names the call in errors. */
int cairnMemPrepare(cairn_mem *m, const cairn_mem_record *r, MemAddArgs *pa, const char *zWho) {
  MemAddArgs a;
  memset(&a, 0, sizeof a);
  a.zText = r->zText ? r->zText : "";
  a.nText = strlen(a.zText);
  if (a.nText == 0) return cairnErr(CAIRN_RANGE, "%s: text is empty", zWho);
  if (a.nText > CAIRN_MEM_MAX_TEXT) return cairnErr(CAIRN_RANGE, "%s: text of %zu bytes > %u", zWho, a.nText, CAIRN_MEM_MAX_TEXT);
  a.zSession = r->zSession ? r->zSession : "", a.nSession = strlen(a.zSession);
  a.zRole = r->zRole ? r->zRole : "", a.nRole = strlen(a.zRole);
  a.zUser = r->zUser ? r->zUser : "", a.nUser = strlen(a.zUser);
  a.zAgent = r->zAgent ? r->zAgent : "", a.nAgent = strlen(a.zAgent);
  if (a.nSession > CAIRN_MEM_MAX_NAME || a.nRole > CAIRN_MEM_MAX_NAME)
    return cairnErr(CAIRN_RANGE, "%s: session or role longer than %u bytes", zWho, CAIRN_MEM_MAX_NAME);
  if (a.nUser > CAIRN_MEM_MAX_NAME || a.nAgent > CAIRN_MEM_MAX_NAME)
    return cairnErr(CAIRN_RANGE, "%s: user or agent longer than %u bytes", zWho, CAIRN_MEM_MAX_NAME);
  a.zMeta = r->zMeta ? r->zMeta : "", a.nMeta = strlen(a.zMeta);
  if (a.nMeta > CAIRN_MEM_MAX_META) return cairnErr(CAIRN_RANGE, "%s: metadata of %zu bytes > %u", zWho, a.nMeta, CAIRN_MEM_MAX_META);
  if (a.nMeta) {
    Json j;
    CAIRN_TRY(cairnJsonParse(&j, a.zMeta, a.nMeta));
    int isObj = j.a[0].type == JSON_OBJ;
    cairnJsonFree(&j);
    if (!isObj) return cairnErr(CAIRN_TYPE, "%s: metadata must be a JSON object", zWho);
  }
  if (r->tier < 0 || r->tier > 31) return cairnErr(CAIRN_RANGE, "%s: tier %d not in 0..31", zWho, r->tier);
  if (!memIsFinite(r->importance)) return cairnErr(CAIRN_TYPE, "%s: importance is not a finite number", zWho);
  float *v = m->aScratch;
  if (m->textOnly) {
    if (r->aEmbedding) return cairnErr(CAIRN_MISUSE, "%s: this store is text-only and takes no embedding", zWho);
  } else if (r->aEmbedding) {
    if (r->nEmbedding != m->dim)
      return cairnErr(CAIRN_MISUSE, "%s: embedding has %u dimensions, the store %u", zWho, r->nEmbedding, m->dim);
    double sq = 0;
    for (uint32_t j = 0; j < m->dim; j++) {
      if (!memIsFinite(r->aEmbedding[j])) return cairnErr(CAIRN_TYPE, "%s: embedding[%u] is NaN or infinite", zWho, j);
      sq += (double)r->aEmbedding[j] * r->aEmbedding[j];
    }
    if (!(sq < 1e30)) return cairnErr(CAIRN_TYPE, "%s: embedding norm overflows", zWho);
    memcpy(v, r->aEmbedding, (size_t)m->dim * 4);
    /* (a vector normalised already, as an export holds it, is kept bit for bit) */
    if (m->metric == CAIRN_METRIC_COSINE && sq > 0 && fabs(sq - 1) > 1e-6) {
      float inv = (float)(1 / sqrt(sq));
      for (uint32_t j = 0; j < m->dim; j++) v[j] *= inv;
    }
  } else if (m->zModel[0]) {
    return cairnErr(CAIRN_MISUSE, "%s: the store's embeddings come from model '%s': pass this memory's embedding (the built-in embedder's would not match)", zWho, m->zModel);
  } else {
    CAIRN_TRY(cairn_mem_embed(a.zText, a.nText, v, m->dim));
  }
  if (!m->textOnly) roundForDisk(m, v);
  a.aVec = m->textOnly ? NULL : v;
  a.created = r->createdMs ? r->createdMs : cairnClock(0) / 1000000;
  a.event = r->eventMs ? r->eventMs : a.created;
  a.tier = r->tier, a.imp = r->importance;
  *pa = a;
  return CAIRN_OK;
}

/* Log and apply a prepared record as the next row; nothing changes on failure. */
int cairnMemAddArgs(cairn_mem *m, const MemAddArgs *a) {
  size_t nPend0 = m->nPend;
  if (m->f && !m->readOnly) CAIRN_TRY(logAdd(m, a, (uint64_t)m->n + 1));
  int rc = cairnMemApplyAdd(m, a);
  if (rc) m->nPend = nPend0;
  return rc;
}

int cairn_mem_add(cairn_mem *m, const cairn_mem_record *r, uint64_t *pId) {
  cairn_mem_put_result res;
  cairn_mem_put_opts o;
  memset(&o, 0, sizeof o);
  o.noExact = 1; /* the raw add: every call stores a memory (cairn_mem_put dedups) */
  int rc = cairn_mem_put(m, r, &o, &res);
  if (rc == CAIRN_OK && pId) *pId = res.id;
  return rc;
}

int cairn_mem_touch(cairn_mem *m, uint64_t id) {
  if (!m) return cairnErr(CAIRN_MISUSE, "mem_touch: NULL store");
  size_t r = cairnMemCurRow(m, id);
  if (r == SIZE_MAX) return cairnErr(CAIRN_NOTFOUND, "mem_touch: no memory %llu", (unsigned long long)id);
  if (m->f && !m->readOnly) {
    uint8_t *p = memRecBegin(m, MEM_REC_TOUCH, 12);
    if (!p) return CAIRN_NOMEM;
    MemWr w = {p, 0};
    memWU64(&w, (uint64_t)r + 1);
    memWU32(&w, 1);
    memRecEnd(m, 12);
  }
  m->aAccess[r]++;
  if (r < m->nCk && r < m->touchMin) m->touchMin = r;
  return CAIRN_OK;
}

/* Row r into *rec (pointers into the store). */
void cairnMemRowGet(cairn_mem *m, size_t i, cairn_mem_record *r) {
  memset(r, 0, sizeof(*r));
  r->id = m->aHead[i];
  r->version = (uint64_t)i + 1;
  r->zText = m->zText + m->aTextOff[i];
  r->zMeta = m->aMetaLen[i] ? m->zText + m->aMetaOff[i] : NULL;
  r->aEmbedding = m->textOnly ? NULL : m->vecs.aF32 + i * m->dim;
  r->nEmbedding = m->textOnly ? 0 : m->dim;
  r->createdMs = m->aCreated[i], r->eventMs = m->aEvent[i];
#define NAME(a) (a ? m->names.z + m->names.aOff[a - 1] : NULL)
  r->zSession = NAME(m->aSession[i]);
  r->zRole = NAME(m->aRole[i]);
  r->zUser = NAME(m->aUser[i]);
  r->zAgent = NAME(m->aAgent[i]);
#undef NAME
  r->tier = m->aTier[i], r->importance = m->aImp[i], r->accessCount = m->aAccess[i];
  r->validFromMs = m->aFrom[i], r->validToMs = m->aTo[i];
}

/* A memory id gives its latest version; the id of a later version gives that version. */
int cairn_mem_get(cairn_mem *m, uint64_t id, cairn_mem_record *r) {
  if (!m || !r) return cairnErr(CAIRN_MISUSE, "mem_get: NULL argument");
  if (id == 0 || id > m->n || (m->aFlags[id - 1] & MEM_ROW_DEAD))
    return cairnErr(CAIRN_NOTFOUND, "mem_get: no memory %llu", (unsigned long long)id);
  size_t i = (size_t)id - 1;
  if (m->aHead[i] == id) i = (size_t)m->aCur[i];
  cairnMemRowGet(m, i, r);
  return CAIRN_OK;
}

int cairn_mem_get_version(cairn_mem *m, uint64_t version, cairn_mem_record *r) {
  if (!m || !r) return cairnErr(CAIRN_MISUSE, "mem_get_version: NULL argument");
  if (version == 0 || version > m->n || (m->aFlags[version - 1] & MEM_ROW_DEAD))
    return cairnErr(CAIRN_NOTFOUND, "mem_get_version: no version %llu", (unsigned long long)version);
  cairnMemRowGet(m, (size_t)version - 1, r);
  return CAIRN_OK;
}

int cairn_mem_embedding(cairn_mem *m, uint64_t id, float *pOut) {
  if (!m || !pOut) return cairnErr(CAIRN_MISUSE, "mem_embedding: NULL argument");
  size_t r = id && id <= m->n && m->aHead[id - 1] != id && !(m->aFlags[id - 1] & MEM_ROW_DEAD) ? (size_t)id - 1 : cairnMemCurRow(m, id);
  if (r == SIZE_MAX) return cairnErr(CAIRN_NOTFOUND, "mem_embedding: no memory %llu", (unsigned long long)id);
  if (m->textOnly) return cairnErr(CAIRN_MISUSE, "mem_embedding: this store is text-only");
  memcpy(pOut, m->vecs.aF32 + r * m->dim, (size_t)m->dim * 4);
  return CAIRN_OK;
}

