/*
** 2026-11-29
**
** core/mem/store.c - the memory store: records, filters, the one query API (vector, BM25,
** hybrid with RRF or weighted fusion, recency), and persistence as a write-ahead log.
**
** Persistence. Until the HDF5 container is wired in (FORMAT.md describes both), a store file
** is a log: a 32-byte header, then records [u32 len][u8 type][payload][u32 crc32c]. Adds are
** buffered in memory and appended together with a COMMIT record by cairn_mem_commit, then the
** file is synced. Reopening reads the log twice: the first pass checks every checksum and finds
** the end of the last COMMIT; the second applies the records up to there. Anything after it
** (a torn write, garbage, adds that were never committed) is cut off when the file is writable.
** Every index is rebuilt from the records on open (BM25 postings, the f16/int8 copies), except
** the IVF index whose centroids, codebooks and row assignments are logged when built, because
** retraining would cost seconds where replay costs milliseconds.
*/
#include <math.h>

#include "mem_int.h"

#define LOG_MAGIC "CAIRNMEM"
#define LOG_VERSION 1
#define LOG_HDR 32
#define REC_ADD 1
#define REC_TOUCH 2
#define REC_COMMIT 3
#define REC_IVF 4
#define REC_MAX ((uint64_t)1 << 31) /* bytes in one record */

typedef struct MemNames {
  char *z;
  size_t nz, nzAlloc;
  size_t *aOff;
  uint32_t *aLen;
  uint32_t n, nAlloc;
  uint32_t *aSlot;
  uint32_t nSlot;
} MemNames;

struct cairn_mem {
  cairn_file *f;
  uint32_t dim;
  int metric, readOnly, noSync, textOnly;
  int diskVec;      /* CAIRN_MEM_DISK_* */
  int8_t *aScratchI8; /* dim bytes */
  /* records: row r is id r + 1 */
  size_t n, nAlloc;
  char *zText;
  size_t nText, nTextAlloc;
  size_t *aTextOff;
  uint32_t *aTextLen;
  size_t *aMetaOff; /* in zText too */
  uint32_t *aMetaLen;
  int64_t *aCreated, *aEvent;
  uint32_t *aSession, *aRole; /* name id + 1, 0 = none */
  uint8_t *aTier;
  float *aImp;
  uint32_t *aAccess;
  MemNames names;
  MemVecs vecs;
  MemBm25 bm25;
  MemIvf ivf;
  int ivfUnlogged;
  int64_t maxEvent;
  /* log */
  uint64_t nFile; /* end of the last commit */
  uint8_t *pPend;
  size_t nPend, nPendAlloc;
  size_t nCommitted;
  int64_t openNs;
  float *aScratch; /* dim floats */
};

/* ------------------------------------------------------------------ names */
static int namesFind(MemNames *t, const char *z, size_t n, uint32_t *pId, int add) {
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
    uint32_t nA = t->nAlloc ? t->nAlloc * 2 : 32;
    size_t *o = cairnRealloc(t->aOff, (size_t)nA * sizeof(size_t));
    if (!o) return cairnErr(CAIRN_NOMEM, "names table");
    t->aOff = o;
    uint32_t *l = cairnRealloc(t->aLen, (size_t)nA * 4);
    if (!l) return cairnErr(CAIRN_NOMEM, "names table");
    t->aLen = l, t->nAlloc = nA;
  }
  if (t->nz + n + 1 > t->nzAlloc) {
    size_t nA = t->nzAlloc ? t->nzAlloc * 2 : 1024;
    while (nA < t->nz + n + 1) nA *= 2;
    char *zz = cairnRealloc(t->z, nA);
    if (!zz) return cairnErr(CAIRN_NOMEM, "names table");
    t->z = zz, t->nzAlloc = nA;
  }
  memcpy(t->z + t->nz, z, n);
  t->z[t->nz + n] = 0;
  t->aOff[t->n] = t->nz, t->aLen[t->n] = (uint32_t)n;
  t->nz += n + 1;
  t->aSlot[s] = t->n + 1;
  *pId = t->n++;
  return CAIRN_OK;
}
static void namesFree(MemNames *t) {
  cairnFree(t->z), cairnFree(t->aOff), cairnFree(t->aLen), cairnFree(t->aSlot);
  memset(t, 0, sizeof(*t));
}

/* ------------------------------------------------------------------ log writing */
static int pendReserve(cairn_mem *m, size_t nMore) {
  if (m->nPend + nMore <= m->nPendAlloc) return CAIRN_OK;
  size_t nA = m->nPendAlloc ? m->nPendAlloc * 2 : 65536;
  while (nA < m->nPend + nMore) nA *= 2;
  uint8_t *a = cairnRealloc(m->pPend, nA);
  if (!a) return cairnErr(CAIRN_NOMEM, "log buffer of %zu bytes", nA);
  m->pPend = a, m->nPendAlloc = nA;
  return CAIRN_OK;
}
/* Start a record of payload size n; returns the payload pointer (valid until the next
** reserve) after making room. recEnd() writes the checksum. */
static uint8_t *recBegin(cairn_mem *m, uint8_t type, size_t n) {
  if (pendReserve(m, n + 9) != CAIRN_OK) return NULL;
  uint8_t *p = m->pPend + m->nPend;
  cairnPutLE32(p, (uint32_t)n);
  p[4] = type;
  return p + 5;
}
static void recEnd(cairn_mem *m, size_t n) {
  uint8_t *p = m->pPend + m->nPend;
  cairnPutLE32(p + 5 + n, cairnCrc32c(0, p, n + 5));
  m->nPend += n + 9;
}

typedef struct Wr {
  uint8_t *p;
  size_t i;
} Wr;
static void wU8(Wr *w, uint8_t v) { w->p[w->i++] = v; }
static void wU16(Wr *w, uint16_t v) { cairnPutLE16(w->p + w->i, v), w->i += 2; }
static void wU32(Wr *w, uint32_t v) { cairnPutLE32(w->p + w->i, v), w->i += 4; }
static void wU64(Wr *w, uint64_t v) { cairnPutLE64(w->p + w->i, v), w->i += 8; }
static void wF32(Wr *w, float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  wU32(w, u);
}
static void wBytes(Wr *w, const void *p, size_t n) {
  if (n) memcpy(w->p + w->i, p, n);
  w->i += n;
}

typedef struct Rd {
  const uint8_t *p;
  size_t i, n;
  int bad;
} Rd;
static int rdHave(Rd *r, size_t k) {
  if (r->bad || r->n - r->i < k) {
    r->bad = 1;
    return 0;
  }
  return 1;
}
static uint8_t rU8(Rd *r) { return rdHave(r, 1) ? r->p[r->i++] : 0; }
static uint16_t rU16(Rd *r) {
  if (!rdHave(r, 2)) return 0;
  r->i += 2;
  return cairnGetLE16(r->p + r->i - 2);
}
static uint32_t rU32(Rd *r) {
  if (!rdHave(r, 4)) return 0;
  r->i += 4;
  return cairnGetLE32(r->p + r->i - 4);
}
static uint64_t rU64(Rd *r) {
  if (!rdHave(r, 8)) return 0;
  r->i += 8;
  return cairnGetLE64(r->p + r->i - 8);
}
static float rF32(Rd *r) {
  uint32_t u = rU32(r);
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static const uint8_t *rBytes(Rd *r, size_t k) {
  if (!rdHave(r, k)) return NULL;
  r->i += k;
  return r->p + r->i - k;
}

/* ------------------------------------------------------------------ records */
static int growRecords(cairn_mem *m) {
  if (m->n < m->nAlloc) return CAIRN_OK;
  size_t nA = m->nAlloc ? m->nAlloc * 2 : 256;
#define GROW(field, type)                                                  \
  do {                                                                     \
    type *a_ = cairnRealloc(m->field, nA * sizeof(type));                 \
    if (!a_) return cairnErr(CAIRN_NOMEM, "store: %zu records", nA);      \
    m->field = a_;                                                         \
  } while (0)
  GROW(aTextOff, size_t);
  GROW(aTextLen, uint32_t);
  GROW(aMetaOff, size_t);
  GROW(aMetaLen, uint32_t);
  GROW(aCreated, int64_t);
  GROW(aEvent, int64_t);
  GROW(aSession, uint32_t);
  GROW(aRole, uint32_t);
  GROW(aTier, uint8_t);
  GROW(aImp, float);
  GROW(aAccess, uint32_t);
#undef GROW
  m->nAlloc = nA;
  return CAIRN_OK;
}

static int textReserve(cairn_mem *m, size_t nMore) {
  if (m->nText + nMore <= m->nTextAlloc) return CAIRN_OK;
  size_t nA = m->nTextAlloc ? m->nTextAlloc * 2 : 65536;
  while (nA < m->nText + nMore) nA *= 2;
  char *z = cairnRealloc(m->zText, nA);
  if (!z) return cairnErr(CAIRN_NOMEM, "store: %zu bytes of text", nA);
  m->zText = z, m->nTextAlloc = nA;
  return CAIRN_OK;
}

/* A validated record, ready to be applied (in memory) and logged. */
typedef struct AddArgs {
  const char *zText;
  size_t nText;
  const float *aVec; /* dim floats, normalised already for cosine */
  int64_t created, event;
  const char *zSession, *zRole, *zMeta;
  size_t nSession, nRole, nMeta;
  int32_t tier;
  float imp;
  uint32_t access;
} AddArgs;

/* Apply to the in-memory store. Order matters for failure: everything that can fail on
** memory is reserved before anything is appended, except the BM25 and vector appends which
** are last and each all-or-nothing; if the vector append fails after BM25 succeeded the
** store is left with one more BM25 row than records, so we roll BM25's row count back. */
static int applyAdd(cairn_mem *m, const AddArgs *a) {
  CAIRN_TRY(growRecords(m));
  CAIRN_TRY(textReserve(m, a->nText + a->nMeta + 2));
  uint32_t sid = 0, rid = 0;
  if (a->nSession) {
    CAIRN_TRY(namesFind(&m->names, a->zSession, a->nSession, &sid, 1));
    sid++;
  }
  if (a->nRole) {
    CAIRN_TRY(namesFind(&m->names, a->zRole, a->nRole, &rid, 1));
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

static int vecEncByte(const cairn_mem *m) {
  return m->textOnly ? 1 : m->diskVec == CAIRN_MEM_DISK_F16 ? 2 : m->diskVec == CAIRN_MEM_DISK_INT8 ? 3 : 0;
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

static int logAdd(cairn_mem *m, const AddArgs *a, uint64_t id) {
  size_t nVec = m->textOnly ? 0
                : m->diskVec == CAIRN_MEM_DISK_F16  ? (size_t)m->dim * 2
                : m->diskVec == CAIRN_MEM_DISK_INT8 ? 4 + (size_t)m->dim
                                                    : (size_t)m->dim * 4;
  size_t n = 8 + 8 + 8 + 4 + 4 + 4 + 4 + a->nText + 2 + a->nSession + 2 + a->nRole + 4 + a->nMeta + 1 + nVec;
  uint8_t *p = recBegin(m, REC_ADD, n);
  if (!p) return CAIRN_NOMEM;
  Wr w = {p, 0};
  wU64(&w, id);
  wU64(&w, (uint64_t)a->created);
  wU64(&w, (uint64_t)a->event);
  wU32(&w, (uint32_t)a->tier);
  wF32(&w, a->imp);
  wU32(&w, a->access);
  wU32(&w, (uint32_t)a->nText);
  wBytes(&w, a->zText, a->nText);
  wU16(&w, (uint16_t)a->nSession);
  wBytes(&w, a->zSession, a->nSession);
  wU16(&w, (uint16_t)a->nRole);
  wBytes(&w, a->zRole, a->nRole);
  wU32(&w, (uint32_t)a->nMeta);
  wBytes(&w, a->zMeta, a->nMeta);
  wU8(&w, (uint8_t)vecEncByte(m)); /* vector encoding: 0 f32, 1 none, 2 f16, 3 int8 */
  if (m->textOnly) {
  } else if (m->diskVec == CAIRN_MEM_DISK_F16) {
    for (uint32_t j = 0; j < m->dim; j++) wU16(&w, cairnF32ToF16(a->aVec[j]));
  } else if (m->diskVec == CAIRN_MEM_DISK_INT8) {
    /* aVec was already rounded through int8 on add: re-quantising reproduces the codes */
    float sc = cairnQuantI8(a->aVec, m->dim, m->aScratchI8);
    wF32(&w, sc);
    wBytes(&w, m->aScratchI8, m->dim);
  } else {
    for (uint32_t j = 0; j < m->dim; j++) wF32(&w, a->aVec[j]);
  }
  recEnd(m, n);
  return CAIRN_OK;
}

static int isFiniteF(float f) { return f == f && f - f == 0; }

int cairn_mem_add(cairn_mem *m, const cairn_mem_record *r, uint64_t *pId) {
  if (!m || !r) return cairnErr(CAIRN_MISUSE, "mem_add: NULL argument");
  if (m->readOnly) return cairnErr(CAIRN_READONLY, "mem_add: store opened read-only");
  AddArgs a;
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
  if (!isFiniteF(r->importance)) return cairnErr(CAIRN_TYPE, "mem_add: importance is not a finite number");
  float *v = m->aScratch;
  if (m->textOnly) {
    if (r->aEmbedding) return cairnErr(CAIRN_MISUSE, "mem_add: this store is text-only and takes no embedding");
  } else if (r->aEmbedding) {
    if (r->nEmbedding != m->dim)
      return cairnErr(CAIRN_MISUSE, "mem_add: embedding has %u dimensions, the store %u", r->nEmbedding, m->dim);
    double sq = 0;
    for (uint32_t j = 0; j < m->dim; j++) {
      if (!isFiniteF(r->aEmbedding[j])) return cairnErr(CAIRN_TYPE, "mem_add: embedding[%u] is NaN or infinite", j);
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
  int rc = applyAdd(m, &a);
  if (rc) {
    m->nPend = nPend0;
    return rc;
  }
  if (pId) *pId = m->n;
  return CAIRN_OK;
}

int cairn_mem_touch(cairn_mem *m, uint64_t id) {
  if (!m) return cairnErr(CAIRN_MISUSE, "mem_touch: NULL store");
  if (id == 0 || id > m->n) return cairnErr(CAIRN_NOTFOUND, "mem_touch: no memory %llu", (unsigned long long)id);
  if (m->f && !m->readOnly) {
    uint8_t *p = recBegin(m, REC_TOUCH, 12);
    if (!p) return CAIRN_NOMEM;
    Wr w = {p, 0};
    wU64(&w, id);
    wU32(&w, 1);
    recEnd(m, 12);
  }
  m->aAccess[id - 1]++;
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

/* ------------------------------------------------------------------ IVF record */
static int logIvf(cairn_mem *m) {
  MemIvf *ix = &m->ivf;
  uint64_t n = 4 * 6 + 8, t;
  uint64_t nCent = (uint64_t)ix->nlist * ix->dim * 4, nPq = (uint64_t)ix->m * 256 * ix->dsub * 4;
  n += nCent + nPq + (uint64_t)ix->nAssigned * 4 + (uint64_t)ix->nAssigned * ix->m;
  if (n > REC_MAX) return cairnErr(CAIRN_RANGE, "commit: IVF record of %llu bytes", (unsigned long long)n);
  (void)t;
  uint8_t *p = recBegin(m, REC_IVF, (size_t)n);
  if (!p) return CAIRN_NOMEM;
  Wr w = {p, 0};
  wU32(&w, (uint32_t)ix->kind);
  wU32(&w, ix->dim);
  wU32(&w, ix->nlist);
  wU32(&w, ix->m);
  wU32(&w, ix->dsub);
  wU32(&w, (uint32_t)ix->metric);
  wU64(&w, ix->nAssigned);
  for (uint64_t i = 0; i < (uint64_t)ix->nlist * ix->dim; i++) wF32(&w, ix->aCent[i]);
  for (uint64_t i = 0; i < (uint64_t)ix->m * 256 * ix->dsub; i++) wF32(&w, ix->aPq[i]);
  for (size_t i = 0; i < ix->nAssigned; i++) wU32(&w, ix->aAssign[i]);
  if (ix->m) wBytes(&w, ix->aCode, ix->nAssigned * ix->m);
  recEnd(m, (size_t)n);
  return CAIRN_OK;
}

static int replayIvf(cairn_mem *m, Rd *r, uint64_t off) {
  MemIvf nx;
  memset(&nx, 0, sizeof nx);
  nx.kind = (int)rU32(r);
  nx.dim = rU32(r), nx.nlist = rU32(r), nx.m = rU32(r), nx.dsub = rU32(r);
  nx.metric = (int)rU32(r);
  uint64_t nAs = rU64(r);
  if (r->bad || (nx.kind != CAIRN_VINDEX_IVF && nx.kind != CAIRN_VINDEX_IVFPQ) || nx.dim != m->dim || nx.metric != m->metric ||
      nx.nlist == 0 || nx.nlist > 65536 || nAs > m->n ||
      (nx.kind == CAIRN_VINDEX_IVFPQ ? (nx.m == 0 || nx.m * nx.dsub != nx.dim) : (nx.m != 0 || nx.dsub != 0)))
    return cairnErr(CAIRN_CORRUPT, "log: bad IVF record header at offset %llu", (unsigned long long)off);
  uint64_t need = (uint64_t)nx.nlist * nx.dim * 4 + (uint64_t)nx.m * 256 * nx.dsub * 4 + nAs * 4 + nAs * nx.m;
  if (need != r->n - r->i) return cairnErr(CAIRN_CORRUPT, "log: IVF record size mismatch at offset %llu", (unsigned long long)off);
  nx.aCent = cairnMallocArray(nx.nlist, (size_t)nx.dim * 4);
  nx.aCentSq = cairnMallocArray(nx.nlist, 4);
  nx.aPq = nx.m ? cairnMallocArray((size_t)nx.m * 256, (size_t)nx.dsub * 4) : NULL;
  nx.aAssign = cairnMallocArray(CAIRN_MAX(nAs, 1), 4);
  nx.aCode = nx.m ? cairnMallocArray(CAIRN_MAX(nAs, 1), nx.m) : NULL;
  nx.nAlloc = CAIRN_MAX(nAs, 1);
  if (!nx.aCent || !nx.aCentSq || (nx.m && (!nx.aPq || !nx.aCode)) || !nx.aAssign) {
    cairnIvfFree(&nx);
    return cairnErr(CAIRN_NOMEM, "log: IVF index");
  }
  for (uint64_t i = 0; i < (uint64_t)nx.nlist * nx.dim; i++) nx.aCent[i] = rF32(r);
  for (uint64_t i = 0; i < (uint64_t)nx.m * 256 * nx.dsub; i++) nx.aPq[i] = rF32(r);
  for (uint64_t i = 0; i < nAs; i++) {
    nx.aAssign[i] = rU32(r);
    if (nx.aAssign[i] >= nx.nlist) {
      cairnIvfFree(&nx);
      return cairnErr(CAIRN_CORRUPT, "log: IVF list %u >= %u at offset %llu", nx.aAssign[i], nx.nlist, (unsigned long long)off);
    }
  }
  if (nx.m) memcpy(nx.aCode, rBytes(r, nAs * nx.m), nAs * nx.m);
  for (uint32_t c = 0; c < nx.nlist; c++) {
    float *ct = nx.aCent + (size_t)c * nx.dim;
    if (!isFiniteF(ct[0])) {
      cairnIvfFree(&nx);
      return cairnErr(CAIRN_CORRUPT, "log: IVF centroid %u is not finite at offset %llu", c, (unsigned long long)off);
    }
    nx.aCentSq[c] = cairnMemDot(ct, ct, nx.dim);
  }
  nx.nAssigned = nAs;
  nx.dirty = 1;
  cairnIvfFree(&m->ivf);
  m->ivf = nx;
  return CAIRN_OK;
}

int cairn_mem_build_index(cairn_mem *m, const cairn_mem_index_config *cfg) {
  if (!m || !cfg) return cairnErr(CAIRN_MISUSE, "build_index: NULL argument");
  if (m->readOnly) return cairnErr(CAIRN_READONLY, "build_index: store opened read-only");
  if (m->textOnly) return cairnErr(CAIRN_MISUSE, "build_index: this store is text-only");
  CAIRN_TRY(cairnIvfTrain(&m->ivf, &m->vecs, cfg));
  m->ivfUnlogged = 1;
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ commit */
int cairn_mem_commit(cairn_mem *m) {
  if (!m) return cairnErr(CAIRN_MISUSE, "mem_commit: NULL store");
  if (m->readOnly) return cairnErr(CAIRN_READONLY, "mem_commit: store opened read-only");
  if (!m->f) {
    m->nCommitted = m->n;
    return CAIRN_OK;
  }
  size_t nPend0 = m->nPend;
  if (m->ivfUnlogged && m->ivf.kind) {
    CAIRN_TRY(cairnIvfAddRows(&m->ivf, &m->vecs));
    CAIRN_TRY(logIvf(m));
  }
  if (m->nPend == 0 && m->nCommitted == m->n) return CAIRN_OK;
  uint8_t *p = recBegin(m, REC_COMMIT, 16);
  if (!p) {
    m->nPend = nPend0;
    return CAIRN_NOMEM;
  }
  Wr w = {p, 0};
  wU64(&w, m->n);
  wU64(&w, (uint64_t)cairnClock(0));
  recEnd(m, 16);
  /* One write then a sync: a crash before the sync leaves either nothing or a prefix whose
  ** checksums fail, and replay stops at the previous COMMIT. The pending bytes stay until
  ** the write succeeded, so a failed commit can be retried at the same offset. */
  int rc = cairn_file_write(m->f, m->pPend, m->nPend, m->nFile);
  if (rc == CAIRN_OK && !m->noSync) rc = cairn_file_sync(m->f);
  if (rc) {
    m->nPend = nPend0; /* drop the COMMIT (and IVF) record; the adds stay pending */
    return rc;
  }
  m->nFile += m->nPend;
  m->nPend = 0;
  m->nCommitted = m->n;
  m->ivfUnlogged = 0;
  if (m->nPendAlloc > (1u << 22)) { /* give back a large bulk-load buffer */
    cairnFree(m->pPend);
    m->pPend = NULL, m->nPendAlloc = 0;
  }
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ open / replay */
static void memFree(cairn_mem *m) {
  cairnFree(m->zText), cairnFree(m->aTextOff), cairnFree(m->aTextLen), cairnFree(m->aMetaOff), cairnFree(m->aMetaLen);
  cairnFree(m->aCreated), cairnFree(m->aEvent), cairnFree(m->aSession), cairnFree(m->aRole), cairnFree(m->aTier);
  cairnFree(m->aImp), cairnFree(m->aAccess), cairnFree(m->pPend), cairnFree(m->aScratch), cairnFree(m->aScratchI8);
  namesFree(&m->names);
  cairnVecsFree(&m->vecs);
  cairnBm25Free(&m->bm25);
  cairnIvfFree(&m->ivf);
}

int cairn_mem_close(cairn_mem *m) {
  if (!m) return CAIRN_OK;
  int rc = cairn_file_close(m->f);
  memFree(m);
  cairnFree(m);
  return rc;
}

/* Buffered sequential reader over the log. */
typedef struct LogRd {
  cairn_file *f;
  uint64_t size;
  uint8_t *buf;
  size_t nBuf;
  uint64_t bufOff; /* file offset of buf[0] */
  size_t nValid;
} LogRd;

/* Make [off, off+n) available; returns a pointer into the buffer. */
static int logFetch(LogRd *r, uint64_t off, size_t n, const uint8_t **pp) {
  if (off >= r->bufOff && off + n <= r->bufOff + r->nValid) {
    *pp = r->buf + (off - r->bufOff);
    return CAIRN_OK;
  }
  size_t want = CAIRN_MAX(n, (size_t)1 << 20);
  if (want > r->nBuf) {
    uint8_t *b = cairnRealloc(r->buf, want);
    if (!b) return cairnErr(CAIRN_NOMEM, "log: read buffer of %zu bytes", want);
    r->buf = b, r->nBuf = want;
  }
  uint64_t avail = r->size - off;
  size_t nRead = (size_t)CAIRN_MIN((uint64_t)want, avail);
  CAIRN_TRY(cairn_file_read_exact(r->f, r->buf, nRead, off));
  r->bufOff = off, r->nValid = nRead;
  *pp = r->buf;
  return CAIRN_OK;
}

/* Read the record at off: CAIRN_OK with its type/payload, or CAIRN_NOTFOUND if it is torn or
** its checksum fails (the log ends there). */
static int logRecord(LogRd *r, uint64_t off, uint8_t *pType, const uint8_t **pPay, size_t *pn) {
  const uint8_t *p = NULL;
  if (r->size - off < 9) return CAIRN_NOTFOUND;
  CAIRN_TRY(logFetch(r, off, 5, &p));
  uint32_t len = cairnGetLE32(p);
  if ((uint64_t)len + 9 > r->size - off || len > REC_MAX) return CAIRN_NOTFOUND;
  CAIRN_TRY(logFetch(r, off, (size_t)len + 9, &p));
  if (cairnCrc32c(0, p, (size_t)len + 5) != cairnGetLE32(p + 5 + len)) return CAIRN_NOTFOUND;
  *pType = p[4];
  *pPay = p + 5;
  *pn = len;
  return CAIRN_OK;
}

static int replayAdd(cairn_mem *m, const uint8_t *p, size_t n, uint64_t off) {
  Rd r = {p, 0, n, 0};
  AddArgs a;
  memset(&a, 0, sizeof a);
  uint64_t id = rU64(&r);
  a.created = (int64_t)rU64(&r);
  a.event = (int64_t)rU64(&r);
  a.tier = (int32_t)rU32(&r);
  a.imp = rF32(&r);
  a.access = rU32(&r);
  a.nText = rU32(&r);
  a.zText = (const char *)rBytes(&r, a.nText);
  a.nSession = rU16(&r);
  a.zSession = (const char *)rBytes(&r, a.nSession);
  a.nRole = rU16(&r);
  a.zRole = (const char *)rBytes(&r, a.nRole);
  a.nMeta = rU32(&r);
  a.zMeta = (const char *)rBytes(&r, a.nMeta);
  uint8_t enc = rU8(&r);
  size_t nVec = enc == 0 ? (size_t)m->dim * 4 : enc == 2 ? (size_t)m->dim * 2 : enc == 3 ? 4 + (size_t)m->dim : 0;
  const uint8_t *pv = nVec ? rBytes(&r, nVec) : NULL;
  if (r.bad || r.i != n || enc != vecEncByte(m))
    return cairnErr(CAIRN_CORRUPT, "log: malformed ADD record at offset %llu", (unsigned long long)off);
  if (id != (uint64_t)m->n + 1)
    return cairnErr(CAIRN_CORRUPT, "log: ADD of id %llu where %llu was expected at offset %llu", (unsigned long long)id,
                    (unsigned long long)m->n + 1, (unsigned long long)off);
  if (a.nText == 0 || a.nText > CAIRN_MEM_MAX_TEXT || a.nMeta > CAIRN_MEM_MAX_META || a.tier < 0 || a.tier > 31 ||
      a.nSession > CAIRN_MEM_MAX_NAME || a.nRole > CAIRN_MEM_MAX_NAME || !isFiniteF(a.imp))
    return cairnErr(CAIRN_CORRUPT, "log: ADD record out of range at offset %llu", (unsigned long long)off);
  float *v = m->aScratch;
  float sc = 0;
  if (enc == 3) {
    uint32_t u = cairnGetLE32(pv);
    memcpy(&sc, &u, 4);
  }
  for (uint32_t j = 0; pv && j < m->dim; j++) {
    if (enc == 0) {
      uint32_t u = cairnGetLE32(pv + 4 * j);
      memcpy(&v[j], &u, 4);
    } else if (enc == 2) v[j] = cairnF16ToF32(cairnGetLE16(pv + 2 * j));
    else v[j] = (float)(int8_t)pv[4 + j] * sc;
    if (!isFiniteF(v[j])) return cairnErr(CAIRN_CORRUPT, "log: non-finite vector in ADD record at offset %llu", (unsigned long long)off);
  }
  a.aVec = pv ? v : NULL;
  return applyAdd(m, &a);
}

static int replay(cairn_mem *m, uint64_t size) {
  LogRd r;
  memset(&r, 0, sizeof r);
  r.f = m->f, r.size = size;
  /* pass 1: where does the last commit end? */
  uint64_t off = LOG_HDR, end = LOG_HDR;
  int rc = CAIRN_OK;
  for (;;) {
    uint8_t type;
    const uint8_t *p;
    size_t n;
    rc = logRecord(&r, off, &type, &p, &n);
    if (rc == CAIRN_NOTFOUND) {
      rc = CAIRN_OK;
      break;
    }
    if (rc) break;
    off += n + 9;
    if (type == REC_COMMIT) end = off;
  }
  /* pass 2: apply up to there */
  off = LOG_HDR;
  while (rc == CAIRN_OK && off < end) {
    uint8_t type;
    const uint8_t *p;
    size_t n;
    rc = logRecord(&r, off, &type, &p, &n);
    if (rc == CAIRN_NOTFOUND) rc = cairnErr(CAIRN_CORRUPT, "log: record at offset %llu changed while reading", (unsigned long long)off);
    if (rc) break;
    if (type == REC_ADD) rc = replayAdd(m, p, n, off);
    else if (type == REC_TOUCH) {
      Rd d = {p, 0, n, 0};
      uint64_t id = rU64(&d);
      uint32_t k = rU32(&d);
      if (d.bad || id == 0 || id > m->n) rc = cairnErr(CAIRN_CORRUPT, "log: TOUCH of unknown id at offset %llu", (unsigned long long)off);
      else m->aAccess[id - 1] += k;
    } else if (type == REC_COMMIT) {
      Rd d = {p, 0, n, 0};
      uint64_t nRec = rU64(&d);
      if (d.bad || nRec != m->n)
        rc = cairnErr(CAIRN_CORRUPT, "log: COMMIT of %llu records after %llu adds at offset %llu", (unsigned long long)nRec,
                      (unsigned long long)m->n, (unsigned long long)off);
    } else if (type == REC_IVF) {
      Rd d = {p, 0, n, 0};
      rc = replayIvf(m, &d, off);
    } else rc = cairnErr(CAIRN_CORRUPT, "log: unknown record type %u at offset %llu", type, (unsigned long long)off);
    off += n + 9;
  }
  cairnFree(r.buf);
  if (rc) return rc;
  m->nFile = end;
  m->nCommitted = m->n;
  if (end < size && !m->readOnly) {
    /* cut the torn or uncommitted tail so the next commit appends after valid records */
    CAIRN_TRY(cairn_file_truncate(m->f, end));
    if (!m->noSync) CAIRN_TRY(cairn_file_sync(m->f));
  }
  return CAIRN_OK;
}

static int openLog(cairn_mem *m, const cairn_mem_config *cfg) {
  uint64_t size;
  CAIRN_TRY(cairn_file_size(m->f, &size));
  uint8_t h[LOG_HDR];
  if (size == 0) {
    if (m->readOnly) return cairnErr(CAIRN_CORRUPT, "mem_open: empty file opened read-only");
    memset(h, 0, sizeof h);
    memcpy(h, LOG_MAGIC, 8);
    cairnPutLE32(h + 8, LOG_VERSION);
    cairnPutLE32(h + 12, m->dim);
    cairnPutLE32(h + 16, (uint32_t)m->metric);
    /* flags: bit 0 text-only, bits 1-2 the disk encoding of vectors */
    cairnPutLE32(h + 20, (m->textOnly ? 1u : 0u) | ((uint32_t)m->diskVec << 1));
    cairnPutLE32(h + 28, cairnCrc32c(0, h, 28));
    CAIRN_TRY(cairn_file_write(m->f, h, LOG_HDR, 0));
    if (!m->noSync) CAIRN_TRY(cairn_file_sync(m->f));
    m->nFile = LOG_HDR;
    return CAIRN_OK;
  }
  if (size < LOG_HDR) return cairnErr(CAIRN_CORRUPT, "mem_open: file of %llu bytes is too short for a store header", (unsigned long long)size);
  CAIRN_TRY(cairn_file_read_exact(m->f, h, LOG_HDR, 0));
  if (memcmp(h, LOG_MAGIC, 8) != 0) return cairnErr(CAIRN_CORRUPT, "mem_open: not a cairn memory store (bad magic at offset 0)");
  if (cairnCrc32c(0, h, 28) != cairnGetLE32(h + 28)) return cairnErr(CAIRN_CHECKSUM, "mem_open: header checksum mismatch at offset 28");
  if (cairnGetLE32(h + 8) != LOG_VERSION)
    return cairnErr(CAIRN_UNSUPPORTED, "mem_open: store version %u (this build reads %u)", cairnGetLE32(h + 8), LOG_VERSION);
  uint32_t dim = cairnGetLE32(h + 12), metric = cairnGetLE32(h + 16), flags = cairnGetLE32(h + 20);
  if (dim == 0 || dim > CAIRN_MEM_MAX_DIM || metric > CAIRN_METRIC_L2 || flags > 5)
    return cairnErr(CAIRN_CORRUPT, "mem_open: header dim %u / metric %u / flags %u out of range", dim, metric, flags);
  m->textOnly = (int)(flags & 1);
  m->diskVec = (int)(flags >> 1);
  if (cfg && cfg->dim && cfg->dim != dim)
    return cairnErr(CAIRN_MISUSE, "mem_open: the store has %u dimensions, %u were asked for", dim, cfg->dim);
  m->dim = dim, m->metric = (int)metric;
  m->nFile = LOG_HDR; /* a header-only store appends right after it (replay moves it on) */
  return CAIRN_OK;
}

int cairn_mem_open_file(cairn_file *f, const cairn_mem_config *cfg, cairn_mem **pp) {
  if (!pp) {
    cairn_file_close(f);
    return cairnErr(CAIRN_MISUSE, "mem_open: ppMem is NULL");
  }
  *pp = NULL;
  int64_t t0 = cairnClock(1);
  uint32_t dim = cfg && cfg->dim ? cfg->dim : CAIRN_MEM_DEFAULT_DIM;
  int metric = cfg ? cfg->metric : CAIRN_METRIC_COSINE;
  if (dim > CAIRN_MEM_MAX_DIM) {
    cairn_file_close(f);
    return cairnErr(CAIRN_RANGE, "mem_open: dim %u > %u", dim, CAIRN_MEM_MAX_DIM);
  }
  if (metric < CAIRN_METRIC_COSINE || metric > CAIRN_METRIC_L2) {
    cairn_file_close(f);
    return cairnErr(CAIRN_MISUSE, "mem_open: unknown metric %d", metric);
  }
  cairn_mem *m = cairnMallocZero(sizeof(*m));
  if (!m) {
    cairn_file_close(f);
    return cairnErr(CAIRN_NOMEM, "mem_open: out of memory");
  }
  m->f = f, m->dim = dim, m->metric = metric;
  m->readOnly = cfg ? cfg->readOnly : 0;
  m->noSync = cfg ? cfg->noSync : 0;
  m->textOnly = cfg ? cfg->textOnly : 0;
  m->diskVec = cfg ? cfg->diskVectors : 0;
  if (m->diskVec < CAIRN_MEM_DISK_F32 || m->diskVec > CAIRN_MEM_DISK_INT8) {
    cairn_file_close(f);
    cairnFree(m);
    return cairnErr(CAIRN_MISUSE, "mem_open: unknown diskVectors %d", cfg->diskVectors);
  }
  int rc = CAIRN_OK;
  uint64_t size = 0;
  if (f) {
    rc = openLog(m, cfg);
    if (rc == CAIRN_OK) rc = cairn_file_size(f, &size);
  }
  if (rc == CAIRN_OK) {
    m->vecs.dim = m->dim, m->vecs.metric = m->metric;
    m->aScratch = cairnMallocArray(m->dim, 4);
    m->aScratchI8 = cairnMalloc(m->dim);
    if (!m->aScratch || !m->aScratchI8) rc = cairnErr(CAIRN_NOMEM, "mem_open: out of memory");
  }
  if (rc == CAIRN_OK && f && size > LOG_HDR) rc = replay(m, size);
  if (rc) {
    cairn_mem_close(m);
    return rc;
  }
  m->openNs = cairnClock(1) - t0;
  *pp = m;
  return CAIRN_OK;
}

int cairn_mem_open(const char *zPath, const cairn_mem_config *cfg, cairn_mem **pp) {
  if (!pp) return cairnErr(CAIRN_MISUSE, "mem_open: ppMem is NULL");
  *pp = NULL;
  cairn_file *f = NULL;
  if (zPath) {
    int ro = cfg && cfg->readOnly;
    int rc = cairn_open(zPath, ro ? CAIRN_OPEN_READONLY : (CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE), &f);
    if (rc) {
      const char *z = cairn_errmsg();
      return cairnErr(rc, "mem_open: cannot open '%s'%s%s", zPath, z[0] ? ": " : "", z);
    }
  }
  return cairn_mem_open_file(f, cfg, pp);
}

int cairn_mem_stats_get(cairn_mem *m, cairn_mem_stats *s) {
  if (!m || !s) return cairnErr(CAIRN_MISUSE, "mem_stats: NULL argument");
  memset(s, 0, sizeof(*s));
  s->nMemory = m->n;
  s->nUncommitted = m->n - m->nCommitted;
  s->dim = m->dim, s->metric = m->metric;
  /* sessions and roles share one name table; count the distinct ids in use */
  if (m->names.n) {
    uint8_t *used = cairnMallocZero(m->names.n);
    if (!used) return cairnErr(CAIRN_NOMEM, "mem_stats: out of memory");
    for (size_t i = 0; i < m->n; i++)
      if (m->aSession[i]) used[m->aSession[i] - 1] |= 1;
    for (size_t i = 0; i < m->n; i++)
      if (m->aRole[i]) used[m->aRole[i] - 1] |= 2;
    for (uint32_t i = 0; i < m->names.n; i++) s->nSession += used[i] & 1, s->nRole += (used[i] >> 1) & 1;
    cairnFree(used);
  }
  s->nTerm = m->bm25.nTerm;
  s->nPosting = m->bm25.nPosting;
  s->nTextBytes = m->nText;
  s->nFileBytes = m->f ? m->nFile : 0;
  s->ivfKind = m->ivf.kind, s->ivfNlist = m->ivf.nlist, s->ivfPqM = m->ivf.m;
  s->openNs = m->openNs;
  s->zKernel = cairnMemKernels()->zName;
  s->textOnly = m->textOnly, s->diskVectors = m->diskVec;
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ filters */
int cairn_mem_filter_parse(const char *zJson, cairn_mem_filter *pf, char **pzArena) {
  if (!zJson || !pf || !pzArena) return cairnErr(CAIRN_MISUSE, "filter_parse: NULL argument");
  memset(pf, 0, sizeof(*pf));
  *pzArena = NULL;
  Json j;
  CAIRN_TRY(cairnJsonParse(&j, zJson, strlen(zJson)));
  int rc = CAIRN_OK;
  if (j.a[0].type != JSON_OBJ) rc = cairnErr(CAIRN_MISUSE, "filter: must be a JSON object");
  /* arena: copies of the strings we keep (the JSON is freed below) */
  size_t nArena = 0;
  for (uint32_t i = 0; i < j.n; i++) nArena += j.a[i].type == JSON_STR ? 6 * (size_t)j.a[i].nz + 3 : 0;
  nArena += strlen(zJson) + 64;
  char *z = cairnMalloc(nArena), *zEnd = z;
  if (!z && rc == CAIRN_OK) rc = cairnErr(CAIRN_NOMEM, "filter: out of memory");
  for (uint32_t k = rc ? 0 : cairnJsonChild(&j, 0); k && rc == CAIRN_OK;) {
    uint32_t v = j.a[k].next;
    const char *zKey = j.a[k].z;
    const JsonNode *pv = &j.a[v];
    if (!strcmp(zKey, "session") || !strcmp(zKey, "role")) {
      if (pv->type != JSON_STR) {
        rc = cairnErr(CAIRN_MISUSE, "filter: '%s' must be a string", zKey);
        break;
      }
      memcpy(zEnd, pv->z, pv->nz + 1);
      if (zKey[0] == 's') pf->zSession = zEnd;
      else pf->zRole = zEnd;
      zEnd += pv->nz + 1;
    } else if (!strcmp(zKey, "tier")) {
      uint32_t first = pv->type == JSON_ARR ? cairnJsonChild(&j, v) : v, nItem = pv->type == JSON_ARR ? pv->n : 1;
      if (pv->type == JSON_ARR && nItem == 0) {
        rc = cairnErr(CAIRN_MISUSE, "filter: 'tier' list is empty");
        break;
      }
      for (uint32_t x = first, c = 0; c < nItem; c++, x = j.a[x].next) {
        double t = j.a[x].type == JSON_NUM ? j.a[x].num : -1;
        if (t < 0 || t > 31 || t != floor(t)) {
          rc = cairnErr(CAIRN_MISUSE, "filter: 'tier' must be an integer 0..31 or a list of them");
          break;
        }
        pf->tierMask |= 1u << (int)t;
      }
    } else if (!strcmp(zKey, "after") || !strcmp(zKey, "before")) {
      if (pv->type != JSON_NUM || !(fabs(pv->num) < 9.2e18)) {
        rc = cairnErr(CAIRN_MISUSE, "filter: '%s' must be a time in ms since 1970", zKey);
        break;
      }
      if (zKey[0] == 'a') pf->afterMs = (int64_t)pv->num, pf->hasAfter = 1;
      else pf->beforeMs = (int64_t)pv->num, pf->hasBefore = 1;
    } else if (!strcmp(zKey, "meta")) {
      if (pv->type != JSON_OBJ || pv->n != 2) {
        rc = cairnErr(CAIRN_MISUSE, "filter: 'meta' must be an object with exactly one key");
        break;
      }
      uint32_t mk = cairnJsonChild(&j, v);
      memcpy(zEnd, j.a[mk].z, j.a[mk].nz + 1);
      pf->zMetaKey = zEnd;
      zEnd += j.a[mk].nz + 1;
      /* re-serialise the value: find its source text by re-parsing is overkill; values of
      ** scalars are enough for equality, objects/arrays compare structurally */
      uint32_t mv = j.a[mk].next;
      const JsonNode *n = &j.a[mv];
      char *o = zEnd;
      if (n->type == JSON_STR) {
        /* JSON-encode the decoded string */
        *o++ = '"';
        for (uint32_t c = 0; c < n->nz; c++) {
          unsigned char ch = (unsigned char)n->z[c];
          if (ch == '"' || ch == '\\') *o++ = '\\', *o++ = (char)ch;
          else if (ch < 0x20) {
            static const char hex[] = "0123456789abcdef";
            *o++ = '\\', *o++ = 'u', *o++ = '0', *o++ = '0', *o++ = hex[ch >> 4], *o++ = hex[ch & 15];
          }
          else *o++ = (char)ch;
        }
        *o++ = '"';
      } else if (n->type == JSON_NUM) {
        o += cairnFormat(o, 32, "%lld", (long long)n->num);
        if ((double)(long long)n->num != n->num) {
          rc = cairnErr(CAIRN_UNSUPPORTED, "filter: meta values must be strings, integers, booleans or null");
          break;
        }
      } else if (n->type <= JSON_TRUE) {
        const char *zl = n->type == JSON_NULL ? "null" : n->type == JSON_TRUE ? "true" : "false";
        memcpy(o, zl, strlen(zl));
        o += strlen(zl);
      } else {
        rc = cairnErr(CAIRN_UNSUPPORTED, "filter: meta values must be strings, integers, booleans or null");
        break;
      }
      *o++ = 0;
      pf->zMetaJson = zEnd;
      zEnd = o;
    } else {
      rc = cairnErr(CAIRN_MISUSE, "filter: unknown field '%s' (session, role, tier, after, before, meta)", zKey);
      break;
    }
    k = j.a[v].next;
  }
  cairnJsonFree(&j);
  if (rc) {
    cairnFree(z);
    memset(pf, 0, sizeof(*pf));
    return rc;
  }
  *pzArena = z;
  return CAIRN_OK;
}

/* Build the row bitmap of a filter; *pAll set when it admits every row (no bitmap then). */
static int filterBits(cairn_mem *m, const cairn_mem_filter *pf, MemBits *pb, int *pAll) {
  memset(pb, 0, sizeof(*pb));
  *pAll = 1;
  if (!pf) return CAIRN_OK;
  if (!pf->zSession && !pf->zRole && !pf->tierMask && !pf->hasAfter && !pf->hasBefore && !pf->zMetaKey) return CAIRN_OK;
  if (!pf->zMetaKey != !pf->zMetaJson) return cairnErr(CAIRN_MISUSE, "filter: zMetaKey and zMetaJson go together");
  *pAll = 0;
  uint32_t sid = UINT32_MAX, rid = UINT32_MAX;
  int noneSession = 0, noneRole = 0;
  if (pf->zSession) {
    uint32_t id;
    if (namesFind(&m->names, pf->zSession, strlen(pf->zSession), &id, 0) == CAIRN_OK) sid = id + 1;
    else noneSession = 1;
  }
  if (pf->zRole) {
    uint32_t id;
    if (namesFind(&m->names, pf->zRole, strlen(pf->zRole), &id, 0) == CAIRN_OK) rid = id + 1;
    else noneRole = 1;
  }
  Json jv;
  memset(&jv, 0, sizeof jv);
  if (pf->zMetaKey) CAIRN_TRY(cairnJsonParse(&jv, pf->zMetaJson, strlen(pf->zMetaJson)));
  pb->n = m->n;
  pb->a = cairnMallocZero(((m->n + 63) / 64 + 1) * 8);
  if (!pb->a) {
    cairnJsonFree(&jv);
    return cairnErr(CAIRN_NOMEM, "filter: bitmap of %zu rows", m->n);
  }
  if (noneSession || noneRole) {
    cairnJsonFree(&jv);
    return CAIRN_OK; /* a name nobody used: no row matches */
  }
  int rc = CAIRN_OK;
  for (size_t r = 0; r < m->n; r++) {
    if (sid != UINT32_MAX && m->aSession[r] != sid) continue;
    if (rid != UINT32_MAX && m->aRole[r] != rid) continue;
    if (pf->tierMask && !((pf->tierMask >> m->aTier[r]) & 1)) continue;
    if (pf->hasAfter && m->aEvent[r] < pf->afterMs) continue;
    if (pf->hasBefore && m->aEvent[r] >= pf->beforeMs) continue;
    if (pf->zMetaKey) {
      if (!m->aMetaLen[r]) continue;
      Json jm;
      rc = cairnJsonParse(&jm, m->zText + m->aMetaOff[r], m->aMetaLen[r]);
      if (rc) break;
      uint32_t v = cairnJsonGet(&jm, 0, pf->zMetaKey);
      int eq = v && cairnJsonEqual(&jm, v, &jv, 0);
      cairnJsonFree(&jm);
      if (!eq) continue;
    }
    pb->a[r >> 6] |= 1ull << (r & 63);
  }
  cairnJsonFree(&jv);
  if (rc) {
    cairnFree(pb->a);
    pb->a = NULL;
  }
  return rc;
}

/* ------------------------------------------------------------------ search */
typedef struct Cand {
  uint32_t row;
  float v, b;   /* raw scores (NaN = not in that list) */
  int rv, rb;   /* ranks, 1-based (0 = absent) */
  float score;
} Cand;

static int cmpCand(const void *pa, const void *pb) {
  const Cand *a = pa, *b = pb;
  if (a->score != b->score) return a->score > b->score ? -1 : 1;
  return a->row < b->row ? -1 : a->row > b->row;
}

static int cmpCandRow(const void *pa, const void *pb) {
  const Cand *a = pa, *b = pb;
  return a->row < b->row ? -1 : a->row > b->row;
}

static int vectorTopK(cairn_mem *m, const cairn_mem_query *q, const float *qv, const MemBits *pb, MemTopK *t) {
  int kind = q->vindex;
  uint32_t nRerank = q->rerank ? q->rerank : CAIRN_MAX(4 * t->k, 64u);
  if (kind == CAIRN_VINDEX_AUTO) kind = m->ivf.kind ? m->ivf.kind : CAIRN_VINDEX_FLAT;
  switch (kind) {
    case CAIRN_VINDEX_FLAT:
    case CAIRN_VINDEX_F16:
    case CAIRN_VINDEX_INT8: return cairnVecSearch(&m->vecs, qv, kind, nRerank, pb, t);
    case CAIRN_VINDEX_IVF:
    case CAIRN_VINDEX_IVFPQ:
      if (m->ivf.kind != kind) return cairnErr(CAIRN_MISUSE, "search: vindex %d asked, but the built index is %d", kind, m->ivf.kind);
      return cairnIvfSearch(&m->ivf, &m->vecs, qv, q->nprobe ? q->nprobe : 8, nRerank, pb, t);
    default: return cairnErr(CAIRN_MISUSE, "search: unknown vindex %d", q->vindex);
  }
}

int cairn_mem_search(cairn_mem *m, const cairn_mem_query *q, cairn_mem_hit *aHit, uint32_t *pnHit) {
  if (!m || !q || !aHit || !pnHit) return cairnErr(CAIRN_MISUSE, "mem_search: NULL argument");
  *pnHit = 0;
  uint32_t k = q->k ? q->k : 10;
  if (k > CAIRN_MEM_MAX_K) return cairnErr(CAIRN_RANGE, "mem_search: k %u > %u", k, CAIRN_MEM_MAX_K);
  if (q->mode < CAIRN_MEM_HYBRID || q->mode > CAIRN_MEM_BM25) return cairnErr(CAIRN_MISUSE, "mem_search: unknown mode %d", q->mode);
  if (q->fusion != CAIRN_FUSE_RRF && q->fusion != CAIRN_FUSE_WEIGHTED) return cairnErr(CAIRN_MISUSE, "mem_search: unknown fusion %d", q->fusion);
  int wantV = q->mode != CAIRN_MEM_BM25, wantB = q->mode != CAIRN_MEM_VECTOR;
  if (m->textOnly) {
    if (q->mode == CAIRN_MEM_VECTOR || q->aEmbedding) return cairnErr(CAIRN_MISUSE, "mem_search: this store is text-only (bm25)");
    wantV = 0; /* hybrid on a text-only store is BM25 */
  }
  size_t nQText = q->zText ? strlen(q->zText) : 0;
  if (nQText > CAIRN_MEM_MAX_TEXT) return cairnErr(CAIRN_RANGE, "mem_search: query of %zu bytes > %u", nQText, CAIRN_MEM_MAX_TEXT);
  if (wantB && !nQText) {
    if (q->mode == CAIRN_MEM_BM25) return cairnErr(CAIRN_MISUSE, "mem_search: bm25 needs query text");
    wantB = 0; /* hybrid with only a vector: vector alone */
  }
  if (wantV && !q->aEmbedding && !nQText) return cairnErr(CAIRN_MISUSE, "mem_search: vector search needs query text or an embedding");
  if (q->aEmbedding && q->nEmbedding != m->dim)
    return cairnErr(CAIRN_MISUSE, "mem_search: query embedding has %u dimensions, the store %u", q->nEmbedding, m->dim);
  float k1 = q->bm25K1 > 0 ? q->bm25K1 : 1.2f, bb = q->bm25B > 0 ? q->bm25B : 0.75f;
  if (!isFiniteF(k1) || !isFiniteF(bb) || bb > 1) return cairnErr(CAIRN_RANGE, "mem_search: bm25 k1/b out of range");
  float rrfK = q->rrfK > 0 ? q->rrfK : 60.0f;
  float wv = q->wVector, wb = q->wBm25;
  if (wv == 0 && wb == 0) wv = wb = 0.5f;
  float rw = q->recencyWeight, half = q->recencyHalfLifeH > 0 ? q->recencyHalfLifeH : 168.0f;
  if (!isFiniteF(rw) || !isFiniteF(wv) || !isFiniteF(wb) || !isFiniteF(rrfK) || !isFiniteF(half))
    return cairnErr(CAIRN_RANGE, "mem_search: non-finite weight");
  if (m->n == 0) return CAIRN_OK;

  float *qv = NULL;
  if (wantV) {
    qv = cairnMallocArray(m->dim, 4);
    if (!qv) return cairnErr(CAIRN_NOMEM, "mem_search: out of memory");
    if (q->aEmbedding) {
      double sq = 0;
      for (uint32_t j = 0; j < m->dim; j++) {
        if (!isFiniteF(q->aEmbedding[j])) {
          cairnFree(qv);
          return cairnErr(CAIRN_TYPE, "mem_search: query embedding[%u] is NaN or infinite", j);
        }
        qv[j] = q->aEmbedding[j];
        sq += (double)qv[j] * qv[j];
      }
      if (m->metric == CAIRN_METRIC_COSINE && sq > 0)
        for (uint32_t j = 0; j < m->dim; j++) qv[j] = (float)(qv[j] / sqrt(sq));
    } else {
      int rc = cairn_mem_embed(q->zText, nQText, qv, m->dim);
      if (rc) {
        cairnFree(qv);
        return rc;
      }
    }
  }
  MemBits bits;
  int all;
  int rc = filterBits(m, q->pFilter, &bits, &all);
  if (rc) {
    cairnFree(qv);
    return rc;
  }
  /* one list alone and no recency: its top k is the answer; otherwise candidates to fuse */
  int fuse = (wantV && wantB) || rw != 0;
  uint32_t nCand = fuse ? CAIRN_MIN(CAIRN_MAX(k * 5, 100u), (uint32_t)CAIRN_MIN(m->n, (size_t)UINT32_MAX)) : k;
  nCand = CAIRN_MAX(nCand, k);
  MemTopK tv, tb;
  memset(&tv, 0, sizeof tv);
  memset(&tb, 0, sizeof tb);
  Cand *aC = NULL;
  if (wantV) {
    rc = cairnTopKInit(&tv, nCand);
    if (rc == CAIRN_OK) rc = vectorTopK(m, q, qv, all ? NULL : &bits, &tv);
    cairnTopKSort(&tv);
  }
  if (rc == CAIRN_OK && wantB) {
    rc = cairnTopKInit(&tb, nCand);
    if (rc == CAIRN_OK) rc = cairnBm25Search(&m->bm25, q->zText, nQText, k1, bb, all ? NULL : &bits, 1, &tb);
    cairnTopKSort(&tb);
  }
  uint32_t nC = 0;
  if (rc == CAIRN_OK) {
    aC = cairnMallocArray((size_t)tv.n + tb.n + 1, sizeof(Cand));
    if (!aC) rc = cairnErr(CAIRN_NOMEM, "mem_search: out of memory");
  }
  if (rc == CAIRN_OK) {
    for (uint32_t i = 0; i < tv.n; i++) aC[nC++] = (Cand){tv.aIdx[i], tv.aScore[i], NAN, (int)i + 1, 0, 0};
    /* rows of the vector list sorted, so each BM25 hit finds its partner by binary search */
    uint32_t nV = nC;
    qsort(aC, nV, sizeof(Cand), cmpCandRow);
    for (uint32_t i = 0; i < tb.n; i++) {
      uint32_t lo = 0, hi = nV;
      while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (aC[mid].row < tb.aIdx[i]) lo = mid + 1;
        else hi = mid;
      }
      if (lo < nV && aC[lo].row == tb.aIdx[i]) aC[lo].b = tb.aScore[i], aC[lo].rb = (int)i + 1;
      else aC[nC++] = (Cand){tb.aIdx[i], NAN, tb.aScore[i], 0, (int)i + 1, 0};
    }
    float vMin = INFINITY, vMax = -INFINITY, bMax = 0;
    for (uint32_t c = 0; c < nC; c++) {
      if (aC[c].rv) vMin = fminf(vMin, aC[c].v), vMax = fmaxf(vMax, aC[c].v);
      if (aC[c].rb) bMax = fmaxf(bMax, aC[c].b);
    }
    int64_t now = q->nowMs ? q->nowMs : m->maxEvent;
    for (uint32_t c = 0; c < nC; c++) {
      Cand *x = &aC[c];
      float s;
      if (wantV && wantB) {
        if (q->fusion == CAIRN_FUSE_RRF) s = (x->rv ? 1.0f / (rrfK + (float)x->rv) : 0) + (x->rb ? 1.0f / (rrfK + (float)x->rb) : 0);
        else {
          float nv = x->rv ? (vMax > vMin ? (x->v - vMin) / (vMax - vMin) : 1) : 0;
          float nb = x->rb && bMax > 0 ? x->b / bMax : 0; /* BM25 >= 0: scale by the best, keep 0 for absent */
          s = wv * nv + wb * nb;
        }
      } else s = wantV ? x->v : x->b;
      if (rw != 0) {
        double ageH = (double)(now - m->aEvent[x->row]) / 3.6e6;
        if (ageH < 0) ageH = 0;
        s += rw * (float)exp2(-ageH / half);
      }
      x->score = s;
    }
    qsort(aC, nC, sizeof(Cand), cmpCand);
    uint32_t nOut = CAIRN_MIN(nC, k);
    for (uint32_t i = 0; i < nOut; i++) {
      Cand *x = &aC[i];
      aHit[i].id = (uint64_t)x->row + 1;
      aHit[i].score = x->score;
      /* vector similarity is cheap to give exactly even for BM25-only hits */
      aHit[i].vscore = wantV ? (x->rv ? x->v : cairnVecScore(&m->vecs, x->row, qv, 0)) : NAN;
      if (wantV && !x->rv && m->metric == CAIRN_METRIC_L2) {
        double qsq = 0;
        for (uint32_t j = 0; j < m->dim; j++) qsq += (double)qv[j] * qv[j];
        aHit[i].vscore -= (float)qsq;
      }
      aHit[i].bscore = wantB ? (x->rb ? x->b : NAN) : NAN;
    }
    *pnHit = nOut;
    if (q->touch)
      for (uint32_t i = 0; i < nOut && rc == CAIRN_OK; i++) rc = cairn_mem_touch(m, aHit[i].id);
  }
  cairnFree(aC);
  cairnTopKFree(&tv);
  cairnTopKFree(&tb);
  cairnFree(bits.a);
  cairnFree(qv);
  return rc;
}
