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
#include "cairn/h5.h"
#include "cairn/h5w.h"
#include "hash/lookup3.h"

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
  /* file: format 2 is an HDF5 checkpoint with the log after its end of allocation, format 1 a
  ** log-only file of before 2026-11-29 (read and appended to, never checkpointed) */
  int fmt;
  uint64_t logStart;     /* where the log records start: HDF5 end of allocation, or 32 */
  size_t nCk;            /* rows in the HDF5 checkpoint */
  uint32_t nCkNames;     /* names in the checkpoint */
  uint64_t nCkText, nCkMeta, nCkNameBytes; /* bytes of the CSR arrays in the checkpoint */
  size_t touchMin;       /* lowest checkpointed row touched since (SIZE_MAX: none) */
  uint32_t ivfGen;       /* generation of the IVF index in memory (a build makes a new one) */
  uint32_t ivfCkGen;     /* generation in the checkpoint (0: none) */
  size_t ivfCkRows;      /* IVF rows assigned in the checkpoint */
  uint32_t ckEvery;      /* automatic checkpoint when the log holds this many memories */
  size_t ckRetryAt;      /* after a failed automatic checkpoint: next try at this many rows */
  uint64_t nCheckpoint;  /* checkpoints written by this handle */
  int64_t ckNs;          /* time the last checkpoint took */
  cairn_h5 *pH5;         /* open only while the checkpoint is loaded */
  int bReady;            /* the open succeeded (close may checkpoint) */
  int rcFatal;           /* a checkpoint failed after its superblock switch was written: the
                         ** file holds the old or the new state, unknown which; every later
                         ** write fails until the store is reopened */
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
  m->ivfGen++; /* not the one in the checkpoint */
  return CAIRN_OK;
}

int cairn_mem_build_index(cairn_mem *m, const cairn_mem_index_config *cfg) {
  if (!m || !cfg) return cairnErr(CAIRN_MISUSE, "build_index: NULL argument");
  if (m->readOnly) return cairnErr(CAIRN_READONLY, "build_index: store opened read-only");
  if (m->textOnly) return cairnErr(CAIRN_MISUSE, "build_index: this store is text-only");
  CAIRN_TRY(cairnIvfTrain(&m->ivf, &m->vecs, cfg));
  m->ivfUnlogged = 1;
  m->ivfGen++;
  return CAIRN_OK;
}

static int checkpointRun(cairn_mem *m);

/* ------------------------------------------------------------------ commit */
int cairn_mem_commit(cairn_mem *m) {
  if (!m) return cairnErr(CAIRN_MISUSE, "mem_commit: NULL store");
  if (m->readOnly) return cairnErr(CAIRN_READONLY, "mem_commit: store opened read-only");
  if (!m->f) {
    m->nCommitted = m->n;
    return CAIRN_OK;
  }
  if (m->rcFatal) return cairnErr(m->rcFatal, "mem_commit: an earlier checkpoint failed after its superblock switch; reopen the store");
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
  /* Automatic checkpoint once the log holds ckEvery memories. The commit above is durable
  ** whatever happens here: a failed checkpoint leaves the log as it was (retried later). */
  if (m->fmt == 2 && m->ckEvery != UINT32_MAX && m->n - m->nCk >= m->ckEvery && m->n >= m->ckRetryAt) {
    if (checkpointRun(m) != CAIRN_OK) {
      m->ckRetryAt = m->n + m->ckEvery;
      cairn_clearerr();
    }
  }
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ HDF5 checkpoint */
/* The layout is in FORMAT.md part 2: one group /memory, one row per memory in every per-row
** dataset, CSR byte arrays for text, metadata and names, the vectors as [N, dim]. */
#define CK_EVERY_DEFAULT 4096
#define CK_ROW_CHUNK 1024  /* rows per chunk of the per-row datasets (8 KiB at most) */
#define CK_BYTE_CHUNK 16384 /* bytes per chunk of the CSR byte arrays */
#define CK_NONE 0xFFFFFFFFu
static const uint8_t kH5Sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
static const char *const azMetric[] = {"cosine", "ip", "l2"};
static const char *const azEnc[] = {"f32", "f16", "int8", "none"};

typedef struct CkTypes {
  cairn_h5w_type *u8, *i8, *u16f, *u32, *u64, *i64, *f32, *f16;
} CkTypes;
static void ckTypesFree(CkTypes *t) {
  cairn_h5w_type_free(t->u8), cairn_h5w_type_free(t->i8), cairn_h5w_type_free(t->u32), cairn_h5w_type_free(t->u64);
  cairn_h5w_type_free(t->i64), cairn_h5w_type_free(t->f32), cairn_h5w_type_free(t->f16);
}
static int ckTypesInit(CkTypes *t) {
  memset(t, 0, sizeof *t);
  t->u8 = cairn_h5w_type_int(1, 0), t->i8 = cairn_h5w_type_int(1, 1), t->u32 = cairn_h5w_type_int(4, 0);
  t->u64 = cairn_h5w_type_int(8, 0), t->i64 = cairn_h5w_type_int(8, 1), t->f32 = cairn_h5w_type_float(4);
  t->f16 = cairn_h5w_type_float(2);
  if (!t->u8 || !t->i8 || !t->u32 || !t->u64 || !t->i64 || !t->f32 || !t->f16) {
    ckTypesFree(t);
    return cairnErr(CAIRN_NOMEM, "checkpoint: out of memory");
  }
  return CAIRN_OK;
}

static int ckAttrStr(cairn_h5w *w, const char *zObj, const char *zName, const char *zVal) {
  cairn_h5w_type *t = cairn_h5w_type_string(strlen(zVal), 1, 0);
  if (!t) return CAIRN_NOMEM;
  int rc = cairn_h5w_attr(w, zObj, zName, t, 0, NULL, zVal);
  cairn_h5w_type_free(t);
  return rc;
}
static int ckAttrI64(cairn_h5w *w, const char *zObj, const char *zName, int64_t v) {
  cairn_h5w_type *t = cairn_h5w_type_int(8, 1);
  if (!t) return CAIRN_NOMEM;
  int rc = cairn_h5w_attr(w, zObj, zName, t, 0, NULL, &v);
  cairn_h5w_type_free(t);
  return rc;
}

/* A resizable dataset of rank 1 (nCol 0) or 2 (rows of nCol), nInit rows from pInit. */
static int ckDset(cairn_h5w *w, const char *zPath, const cairn_h5w_type *t, uint64_t nCol, uint64_t chunk0, uint64_t nInit,
                  const void *pInit) {
  uint64_t dims[2] = {nInit, nCol}, maxd[2] = {CAIRN_H5W_UNLIMITED, nCol}, chunk[2] = {chunk0, nCol};
  cairn_h5w_dset_opts o;
  memset(&o, 0, sizeof o);
  o.layout = CAIRN_H5W_CHUNKED;
  o.chunk = chunk;
  return cairn_h5w_dataset(w, zPath, t, nCol ? 2 : 1, dims, maxd, &o, pInit);
}
static uint64_t ckVecChunk(const cairn_mem *m) {
  uint64_t sz = m->diskVec == CAIRN_MEM_DISK_F16 ? 2 : m->diskVec == CAIRN_MEM_DISK_INT8 ? 1 : 4;
  uint64_t r = 65536 / ((uint64_t)m->dim * sz);
  return r ? r : 1;
}

/* The empty store: group, attributes, every dataset with no rows (offsets hold their 0). */
static int ckCreateObjects(cairn_mem *m, cairn_h5w *w) {
  CkTypes t;
  CAIRN_TRY(ckTypesInit(&t));
  uint64_t zero = 0;
  int rc = cairn_h5w_group(w, "/memory");
  if (!rc) rc = cairn_h5w_group(w, "/memory/index");
  if (!rc) rc = ckAttrStr(w, "/memory", "format", "cairn-memory");
  if (!rc) rc = ckAttrI64(w, "/memory", "version", 1);
  if (!rc) rc = ckAttrI64(w, "/memory", "dim", m->dim);
  if (!rc) rc = ckAttrStr(w, "/memory", "metric", azMetric[m->metric]);
  if (!rc) rc = ckAttrStr(w, "/memory", "encoding", azEnc[m->textOnly ? 3 : m->diskVec]);
  if (!rc) rc = ckAttrI64(w, "/memory", "count", 0);
  if (!rc) rc = ckDset(w, "/memory/id", t.u64, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/created_ms", t.i64, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/event_ms", t.i64, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/tier", t.u8, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/importance", t.f32, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/access_count", t.u32, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/session", t.u32, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/role", t.u32, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/text_offsets", t.u64, 0, CK_ROW_CHUNK, 1, &zero);
  if (!rc) rc = ckDset(w, "/memory/text_bytes", t.u8, 0, CK_BYTE_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/meta_offsets", t.u64, 0, CK_ROW_CHUNK, 1, &zero);
  if (!rc) rc = ckDset(w, "/memory/meta_bytes", t.u8, 0, CK_BYTE_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/names_offsets", t.u64, 0, 1024, 1, &zero);
  if (!rc) rc = ckDset(w, "/memory/names_bytes", t.u8, 0, 16384, 0, NULL);
  if (!rc && !m->textOnly) {
    const cairn_h5w_type *tv = m->diskVec == CAIRN_MEM_DISK_F16 ? t.f16 : m->diskVec == CAIRN_MEM_DISK_INT8 ? t.i8 : t.f32;
    rc = ckDset(w, "/memory/embedding", tv, m->dim, ckVecChunk(m), 0, NULL);
    if (!rc) rc = ckAttrStr(w, "/memory/embedding", "encoding", azEnc[m->diskVec]);
    if (!rc && m->diskVec == CAIRN_MEM_DISK_INT8) rc = ckDset(w, "/memory/embedding_scale", t.f32, 0, CK_ROW_CHUNK, 0, NULL);
  }
  ckTypesFree(&t);
  return rc;
}

/* Append the new IVF rows, or write a new generation of the index (a build since the last
** checkpoint): /memory/index/ivf<gen>, named by the /memory@ivf attribute. */
static int ckIvf(cairn_mem *m, cairn_h5w *w, const CkTypes *t) {
  MemIvf *ix = &m->ivf;
  if (!ix->kind) return CAIRN_OK;
  CAIRN_TRY(cairnIvfAddRows(ix, &m->vecs));
  char zG[64], zP[96];
  cairnFormat(zG, sizeof zG, "/memory/index/ivf%u", m->ivfGen);
  int rc = CAIRN_OK;
  size_t r0 = m->ivfCkRows;
  if (m->ivfCkGen != m->ivfGen) {
    r0 = 0;
    uint64_t d3[3] = {ix->m, 256, ix->dsub}, d2[2] = {ix->nlist, ix->dim};
    rc = cairn_h5w_group(w, zG);
    if (!rc) rc = ckAttrStr(w, zG, "kind", ix->kind == CAIRN_VINDEX_IVFPQ ? "ivfpq" : "ivf");
    if (!rc) cairnFormat(zP, sizeof zP, "%s/centroids", zG), rc = cairn_h5w_dataset(w, zP, t->f32, 2, d2, NULL, NULL, ix->aCent);
    if (!rc && ix->m) cairnFormat(zP, sizeof zP, "%s/pq_codebooks", zG), rc = cairn_h5w_dataset(w, zP, t->f32, 3, d3, NULL, NULL, ix->aPq);
    if (!rc) cairnFormat(zP, sizeof zP, "%s/assign", zG), rc = ckDset(w, zP, t->u32, 0, CK_ROW_CHUNK, 0, NULL);
    if (!rc && ix->m) cairnFormat(zP, sizeof zP, "%s/pq_codes", zG), rc = ckDset(w, zP, t->u8, ix->m, CK_ROW_CHUNK, 0, NULL);
    if (!rc) rc = ckAttrStr(w, "/memory", "ivf", zG + 8 /* relative to /memory */);
  }
  if (!rc && ix->nAssigned > r0) {
    cairnFormat(zP, sizeof zP, "%s/assign", zG);
    rc = cairn_h5w_append(w, zP, ix->nAssigned - r0, ix->aAssign + r0);
    if (!rc && ix->m) {
      cairnFormat(zP, sizeof zP, "%s/pq_codes", zG);
      rc = cairn_h5w_append(w, zP, ix->nAssigned - r0, ix->aCode + r0 * ix->m);
    }
  }
  if (!rc) rc = ckAttrI64(w, zG, "rows", (int64_t)ix->nAssigned);
  return rc;
}

/* Rows [nCk, nCommitted), changed access counts, new names and the IVF index into the open
** writer; the caller commits. */
static int ckAppend(cairn_mem *m, cairn_h5w *w, size_t r1) {
  size_t r0 = m->nCk, nr = r1 - r0;
  CkTypes t;
  CAIRN_TRY(ckTypesInit(&t));
  int rc = CAIRN_OK;
  size_t nBuf = CAIRN_MAX(nr, (size_t)1) * 8 + 8;
  uint8_t *buf = cairnMalloc(nBuf);
  uint8_t *bytes = NULL;
  if (!buf) rc = cairnErr(CAIRN_NOMEM, "checkpoint: out of memory");
  uint64_t *u64 = (uint64_t *)(void *)buf;
  uint32_t *u32 = (uint32_t *)(void *)buf;
  float *f32 = (float *)(void *)buf;
  if (!rc && nr) {
    for (size_t i = 0; i < nr; i++) u64[i] = r0 + i + 1;
    rc = cairn_h5w_append(w, "/memory/id", nr, u64);
    if (!rc) rc = cairn_h5w_append(w, "/memory/created_ms", nr, m->aCreated + r0);
    if (!rc) rc = cairn_h5w_append(w, "/memory/event_ms", nr, m->aEvent + r0);
    if (!rc) rc = cairn_h5w_append(w, "/memory/tier", nr, m->aTier + r0);
    if (!rc) rc = cairn_h5w_append(w, "/memory/importance", nr, m->aImp + r0);
    if (!rc) rc = cairn_h5w_append(w, "/memory/access_count", nr, m->aAccess + r0);
    if (!rc) {
      for (size_t i = 0; i < nr; i++) u32[i] = m->aSession[r0 + i] ? m->aSession[r0 + i] - 1 : CK_NONE;
      rc = cairn_h5w_append(w, "/memory/session", nr, u32);
    }
    if (!rc) {
      for (size_t i = 0; i < nr; i++) u32[i] = m->aRole[r0 + i] ? m->aRole[r0 + i] - 1 : CK_NONE;
      rc = cairn_h5w_append(w, "/memory/role", nr, u32);
    }
    /* text and metadata: CSR, absolute offsets */
    for (int pass = 0; !rc && pass < 2; pass++) {
      const size_t *aOff = pass ? m->aMetaOff : m->aTextOff;
      const uint32_t *aLen = pass ? m->aMetaLen : m->aTextLen;
      uint64_t o = pass ? m->nCkMeta : m->nCkText, n = 0;
      for (size_t i = 0; i < nr; i++) n += aLen[r0 + i];
      cairnFree(bytes);
      bytes = cairnMalloc(n ? (size_t)n : 1);
      if (!bytes) {
        rc = cairnErr(CAIRN_NOMEM, "checkpoint: out of memory");
        break;
      }
      n = 0;
      for (size_t i = 0; i < nr; i++) {
        memcpy(bytes + n, m->zText + aOff[r0 + i], aLen[r0 + i]);
        n += aLen[r0 + i];
        u64[i] = o + n;
      }
      rc = cairn_h5w_append(w, pass ? "/memory/meta_offsets" : "/memory/text_offsets", nr, u64);
      if (!rc && n) rc = cairn_h5w_append(w, pass ? "/memory/meta_bytes" : "/memory/text_bytes", n, bytes);
      if (pass) m->nCkMeta = o + n; /* committed below only if the whole checkpoint commits */
    }
    /* vectors, in the disk encoding (the in-memory values were rounded through it on add) */
    if (!rc && !m->textOnly) {
      const size_t nBlk = 1024;
      size_t es = m->diskVec == CAIRN_MEM_DISK_F16 ? 2 : m->diskVec == CAIRN_MEM_DISK_INT8 ? 1 : 4;
      cairnFree(bytes);
      bytes = m->diskVec == CAIRN_MEM_DISK_F32 ? NULL : cairnMallocArray(nBlk, (size_t)m->dim * es);
      if (m->diskVec != CAIRN_MEM_DISK_F32 && !bytes) rc = cairnErr(CAIRN_NOMEM, "checkpoint: out of memory");
      for (size_t b = 0; !rc && b < nr; b += nBlk) {
        size_t k = CAIRN_MIN(nBlk, nr - b);
        const float *src = m->vecs.aF32 + (r0 + b) * m->dim;
        if (m->diskVec == CAIRN_MEM_DISK_F32) {
          rc = cairn_h5w_append(w, "/memory/embedding", k, src);
          continue;
        }
        for (size_t i = 0; i < k; i++) {
          if (m->diskVec == CAIRN_MEM_DISK_F16) {
            uint16_t *h = (uint16_t *)(void *)bytes + i * m->dim;
            for (uint32_t j = 0; j < m->dim; j++) h[j] = cairnF32ToF16(src[i * m->dim + j]);
          } else {
            f32[b + i] = cairnQuantI8(src + i * m->dim, m->dim, (int8_t *)bytes + i * m->dim);
          }
        }
        rc = cairn_h5w_append(w, "/memory/embedding", k, bytes);
      }
      if (!rc && m->diskVec == CAIRN_MEM_DISK_INT8) rc = cairn_h5w_append(w, "/memory/embedding_scale", nr, f32);
    }
  }
  /* access counts of checkpointed rows touched since */
  if (!rc && m->touchMin < r0) rc = cairn_h5w_write(w, "/memory/access_count", m->touchMin, r0 - m->touchMin, m->aAccess + m->touchMin);
  /* new names */
  uint64_t nNameBytes = m->nCkNameBytes;
  if (!rc && m->names.n > m->nCkNames) {
    uint32_t k = m->names.n - m->nCkNames;
    uint64_t *aO = cairnMallocArray(k, 8);
    uint64_t n = 0;
    for (uint32_t i = m->nCkNames; i < m->names.n; i++) n += m->names.aLen[i];
    cairnFree(bytes);
    bytes = cairnMalloc(n ? (size_t)n : 1);
    if (!aO || !bytes) rc = cairnErr(CAIRN_NOMEM, "checkpoint: out of memory");
    n = 0;
    for (uint32_t i = 0; !rc && i < k; i++) {
      uint32_t id = m->nCkNames + i;
      memcpy(bytes + n, m->names.z + m->names.aOff[id], m->names.aLen[id]);
      n += m->names.aLen[id];
      aO[i] = nNameBytes + n;
    }
    if (!rc) rc = cairn_h5w_append(w, "/memory/names_offsets", k, aO);
    if (!rc && n) rc = cairn_h5w_append(w, "/memory/names_bytes", n, bytes);
    nNameBytes += n;
    cairnFree(aO);
  }
  if (!rc) rc = ckIvf(m, w, &t);
  if (!rc) rc = ckAttrI64(w, "/memory", "count", (int64_t)r1);
  if (!rc) m->nCkNameBytes = nNameBytes;
  cairnFree(bytes);
  cairnFree(buf);
  ckTypesFree(&t);
  return rc;
}

/* Move the committed log into the HDF5 datasets. Needs no uncommitted work (the caller
** commits or checks). Crash-safe: the writer writes after the log (CAIRN_H5W_TAIL) and
** switches the superblock last; before the switch the old checkpoint + log is the store,
** after it the new checkpoint, whose end of allocation covers the old log. */
static int checkpointRun(cairn_mem *m) {
  if (m->rcFatal) return cairnErr(m->rcFatal, "checkpoint: an earlier checkpoint failed after its superblock switch; reopen the store");
  if (m->fmt != 2) return cairnErr(CAIRN_UNSUPPORTED, "checkpoint: a log-only store of format 1 (before 2026-11-29) has no HDF5 part");
  int64_t t0 = cairnClock(1);
  size_t r1 = m->nCommitted;
  if (r1 == m->nCk && m->touchMin == SIZE_MAX && m->nFile == m->logStart && (!m->ivf.kind || m->ivfCkGen == m->ivfGen)) return CAIRN_OK;
  cairn_h5w *w = NULL;
  uint64_t nCkText0 = m->nCkText, nCkMeta0 = m->nCkMeta, nCkNb0 = m->nCkNameBytes;
  /* RECLAIM: the space of old logs and of chunks rewritten by earlier checkpoints is found
  ** (a walk of the metadata only) and reused */
  int rc = cairn_h5w_open(m->f, CAIRN_H5W_TAIL | CAIRN_H5W_RECLAIM | (m->noSync ? CAIRN_H5W_NOSYNC : 0), &w);
  if (!rc) rc = ckAppend(m, w, r1);
  if (!rc) rc = cairn_h5w_commit(w);
  cairn_h5w_stats st;
  memset(&st, 0, sizeof st);
  if (!rc) rc = cairn_h5w_stats_get(w, &st);
  cairn_h5w_discard(w);
  if (rc) {
    char zErr[256];
    cairnFormat(zErr, sizeof zErr, "%s", cairn_errmsg());
    m->nCkText = nCkText0, m->nCkMeta = nCkMeta0, m->nCkNameBytes = nCkNb0;
    /* Did the superblock switch reach the file? If not, the old checkpoint and the whole log
    ** are the store: drop what the writer left after the log and go on. If it did (a sync
    ** failed after it), either state may be the durable one: refuse every later write. */
    uint8_t sb[48];
    if (cairn_file_read_exact(m->f, sb, 48, 0) == CAIRN_OK && cairnGetLE64(sb + 28) == m->logStart)
      (void)cairn_file_truncate(m->f, m->nFile);
    else
      m->rcFatal = rc;
    return cairnErr(rc, "checkpoint: %s", zErr);
  }
  /* text bytes are the sum of the rows' lengths */
  for (size_t i = m->nCk; i < r1; i++) m->nCkText += m->aTextLen[i];
  m->nCk = r1;
  m->nCkNames = m->names.n;
  m->touchMin = SIZE_MAX;
  if (m->ivf.kind) m->ivfCkGen = m->ivfGen, m->ivfCkRows = m->ivf.nAssigned;
  m->logStart = m->nFile = st.nEof;
  uint64_t size = 0;
  if (cairn_file_size(m->f, &size) == CAIRN_OK && size > st.nEof) (void)cairn_file_truncate(m->f, st.nEof);
  m->nCheckpoint++;
  m->ckNs = cairnClock(1) - t0;
  return CAIRN_OK;
}

int cairn_mem_checkpoint(cairn_mem *m) {
  if (!m) return cairnErr(CAIRN_MISUSE, "mem_checkpoint: NULL store");
  if (m->readOnly) return cairnErr(CAIRN_READONLY, "mem_checkpoint: store opened read-only");
  if (!m->f) return CAIRN_OK;
  CAIRN_TRY(cairn_mem_commit(m));
  return checkpointRun(m);
}

/* A new file: an HDF5 file holding the empty store; the log starts at its end. */
static int ckCreateFile(cairn_mem *m) {
  cairn_h5w *w = NULL;
  CAIRN_TRY(cairn_h5w_create(m->f, m->noSync ? CAIRN_H5W_NOSYNC : 0, &w));
  int rc = ckCreateObjects(m, w);
  if (!rc) rc = cairn_h5w_commit(w);
  cairn_h5w_stats st;
  if (!rc) rc = cairn_h5w_stats_get(w, &st);
  cairn_h5w_discard(w);
  if (rc) return cairnErr(rc, "mem_open: cannot create the store: %s", cairn_errmsg());
  m->fmt = 2;
  m->logStart = m->nFile = st.nEof;
  return CAIRN_OK;
}

/* ---- reading the checkpoint ---- */
static int h5Attr(cairn_h5_obj *o, const char *zName, int64_t *pv, char *zStr, size_t nStr) {
  cairn_h5_obj *a = NULL;
  CAIRN_TRY(cairn_h5_attr(o, zName, &a));
  cairn_h5_info in;
  int rc = cairn_h5_info_get(a, &in);
  if (!rc && in.nElem != 1) rc = cairnErr(CAIRN_CORRUPT, "store: attribute %s is not a scalar", zName);
  if (!rc && zStr) {
    if (in.typeClass != CAIRN_H5_T_STRING || in.typeVlenString || in.typeSize >= nStr)
      rc = cairnErr(CAIRN_CORRUPT, "store: attribute %s is not a short fixed string", zName);
    else {
      memset(zStr, 0, nStr);
      rc = cairn_h5_read(a, NULL, CAIRN_H5_NATIVE, zStr, in.typeSize);
    }
  } else if (!rc) {
    if (in.typeClass != CAIRN_H5_T_INTEGER) rc = cairnErr(CAIRN_CORRUPT, "store: attribute %s is not an integer", zName);
    else rc = cairn_h5_read(a, NULL, CAIRN_H5_I64, pv, 8);
  }
  cairn_h5_obj_close(a);
  return rc;
}
static int strIndex(const char *z, const char *const *az, int n) {
  for (int i = 0; i < n; i++)
    if (!strcmp(z, az[i])) return i;
  return -1;
}

/* Rows [row0, row0 + nRow) of a rank-1 (nCol 0) or rank-2 dataset into buf as mt; *pnRow (if
** not NULL) gets its row count and then nothing is read. */
static int h5Rows(cairn_h5 *h, const char *zPath, cairn_h5_mtype mt, size_t es, uint64_t nCol, uint64_t row0, uint64_t nRow,
                  void *buf, uint64_t *pnRow) {
  cairn_h5_obj *o = NULL;
  int rc = cairn_h5_get(h, zPath, &o);
  if (rc) return cairnErr(rc, "store: %s", cairn_errmsg());
  cairn_h5_info in;
  rc = cairn_h5_info_get(o, &in);
  if (!rc && (in.kind != CAIRN_H5_DATASET || in.rank != (nCol ? 2u : 1u) || (nCol && in.dims[1] != nCol) ||
              (mt == CAIRN_H5_NATIVE && in.typeSize != es) || (in.typeClass != CAIRN_H5_T_INTEGER && in.typeClass != CAIRN_H5_T_FLOAT)))
    rc = cairnErr(CAIRN_CORRUPT, "store: %s has the wrong shape or type", zPath);
  if (!rc && pnRow) *pnRow = in.dims[0];
  else if (!rc && (row0 > in.dims[0] || nRow > in.dims[0] - row0))
    rc = cairnErr(CAIRN_CORRUPT, "store: %s has %llu rows, %llu needed", zPath, (unsigned long long)in.dims[0],
                  (unsigned long long)(row0 + nRow));
  else if (!rc && nRow) {
    cairn_h5_sel sel;
    memset(&sel, 0, sizeof sel);
    sel.rank = in.rank;
    sel.start[0] = row0, sel.count[0] = nRow;
    if (nCol) sel.count[1] = nCol;
    rc = cairn_h5_read(o, &sel, mt, buf, (size_t)(nRow * (nCol ? nCol : 1) * es));
  }
  cairn_h5_obj_close(o);
  return rc;
}

/* Offsets of a CSR array: n + 1 nondecreasing values starting at 0, the last <= the bytes. */
static int h5Csr(cairn_h5 *h, const char *zOff, const char *zBytes, uint64_t n, uint64_t **paOff, uint8_t **paBytes) {
  *paOff = NULL, *paBytes = NULL;
  uint64_t nO = 0, nB = 0;
  CAIRN_TRY(h5Rows(h, zOff, CAIRN_H5_U64, 8, 0, 0, 0, NULL, &nO));
  CAIRN_TRY(h5Rows(h, zBytes, CAIRN_H5_U8, 1, 0, 0, 0, NULL, &nB));
  if (nO < n + 1) return cairnErr(CAIRN_CORRUPT, "store: %s has %llu entries for %llu rows", zOff, (unsigned long long)nO, (unsigned long long)n);
  uint64_t *aO = cairnMallocArray((size_t)n + 1, 8);
  if (!aO) return cairnErr(CAIRN_NOMEM, "store: %s", zOff);
  int rc = h5Rows(h, zOff, CAIRN_H5_U64, 8, 0, 0, n + 1, aO, NULL);
  for (uint64_t i = 0; !rc && i <= n; i++)
    if ((i == 0 && aO[0] != 0) || (i && aO[i] < aO[i - 1]) || aO[i] > nB)
      rc = cairnErr(CAIRN_CORRUPT, "store: %s[%llu] = %llu out of order or past %llu bytes", zOff, (unsigned long long)i,
                    (unsigned long long)aO[i], (unsigned long long)nB);
  uint8_t *aB = NULL;
  if (!rc) {
    aB = cairnMalloc(aO[n] ? (size_t)aO[n] : 1);
    if (!aB) rc = cairnErr(CAIRN_NOMEM, "store: %s of %llu bytes", zBytes, (unsigned long long)aO[n]);
  }
  if (!rc) rc = h5Rows(h, zBytes, CAIRN_H5_U8, 1, 0, 0, aO[n], aB, NULL);
  if (rc) {
    cairnFree(aO), cairnFree(aB);
    return rc;
  }
  *paOff = aO, *paBytes = aB;
  return CAIRN_OK;
}

/* Read the store's settings from /memory (the file's superblock was checked by the caller). */
static int ckHeader(cairn_mem *m, const cairn_mem_config *cfg, int64_t *pCount) {
  cairn_h5_obj *g = NULL;
  int rc = cairn_h5_get(m->pH5, "/memory", &g);
  if (CAIRN_PRIMARY(rc) == CAIRN_NOTFOUND) return cairnErr(CAIRN_CORRUPT, "mem_open: an HDF5 file without a /memory group (%s)", cairn_errmsg());
  if (rc) return cairnErr(rc, "mem_open: /memory: %s", cairn_errmsg());
  char zFmt[32], zMetric[16], zEnc[16];
  int64_t ver = 0, dim = 0;
  rc = h5Attr(g, "format", NULL, zFmt, sizeof zFmt);
  if (!rc && strcmp(zFmt, "cairn-memory")) rc = cairnErr(CAIRN_CORRUPT, "mem_open: /memory@format is '%s', not 'cairn-memory'", zFmt);
  if (!rc) rc = h5Attr(g, "version", &ver, NULL, 0);
  if (!rc && ver != 1) rc = cairnErr(CAIRN_UNSUPPORTED, "mem_open: store version %lld (this build reads 1)", (long long)ver);
  if (!rc) rc = h5Attr(g, "dim", &dim, NULL, 0);
  if (!rc) rc = h5Attr(g, "metric", NULL, zMetric, sizeof zMetric);
  if (!rc) rc = h5Attr(g, "encoding", NULL, zEnc, sizeof zEnc);
  if (!rc) rc = h5Attr(g, "count", pCount, NULL, 0);
  int metric = rc ? -1 : strIndex(zMetric, azMetric, 3), enc = rc ? -1 : strIndex(zEnc, azEnc, 4);
  if (!rc && (dim < 1 || dim > CAIRN_MEM_MAX_DIM || metric < 0 || enc < 0 || *pCount < 0 || *pCount > (int64_t)1 << 40))
    rc = cairnErr(CAIRN_CORRUPT, "mem_open: /memory attributes out of range (dim %lld, metric '%s', encoding '%s', count %lld)",
                  (long long)dim, zMetric, zEnc, (long long)*pCount);
  if (!rc && cfg && cfg->dim && cfg->dim != (uint32_t)dim)
    rc = cairnErr(CAIRN_MISUSE, "mem_open: the store has %u dimensions, %u were asked for", (uint32_t)dim, cfg->dim);
  if (!rc) {
    m->dim = (uint32_t)dim, m->metric = metric;
    m->textOnly = enc == 3;
    m->diskVec = enc == 3 ? 0 : enc;
  }
  cairn_h5_obj_close(g);
  return rc;
}

static int ckLoadIvf(cairn_mem *m) {
  cairn_h5_obj *g = NULL;
  CAIRN_TRY(cairn_h5_get(m->pH5, "/memory", &g));
  char zRel[48], zG[64], zP[96], zKind[16];
  int rc = h5Attr(g, "ivf", NULL, zRel, sizeof zRel);
  cairn_h5_obj_close(g);
  if (rc == CAIRN_NOTFOUND) {
    cairn_clearerr();
    return CAIRN_OK;
  }
  if (rc) return rc;
  unsigned gen = 0;
  for (const char *z = zRel + 9; *z; z++) gen = gen * 10 + (unsigned)(*z - '0');
  if (strncmp(zRel, "index/ivf", 9) || !zRel[9] || gen == 0 || strlen(zRel) > 18)
    return cairnErr(CAIRN_CORRUPT, "mem_open: /memory@ivf is '%s'", zRel);
  for (const char *z = zRel + 9; *z; z++)
    if (*z < '0' || *z > '9') return cairnErr(CAIRN_CORRUPT, "mem_open: /memory@ivf is '%s'", zRel);
  cairnFormat(zG, sizeof zG, "/memory/%s", zRel);
  int64_t nAs = 0;
  CAIRN_TRY(cairn_h5_get(m->pH5, zG, &g));
  rc = h5Attr(g, "kind", NULL, zKind, sizeof zKind);
  if (!rc) rc = h5Attr(g, "rows", &nAs, NULL, 0);
  cairn_h5_obj *c = NULL;
  cairn_h5_info in;
  cairnFormat(zP, sizeof zP, "%s/centroids", zG);
  if (!rc) rc = cairn_h5_get(m->pH5, zP, &c);
  if (!rc) rc = cairn_h5_info_get(c, &in);
  MemIvf nx;
  memset(&nx, 0, sizeof nx);
  nx.kind = !rc && !strcmp(zKind, "ivfpq") ? CAIRN_VINDEX_IVFPQ : CAIRN_VINDEX_IVF;
  nx.dim = m->dim, nx.metric = m->metric;
  if (!rc && (in.rank != 2 || in.dims[1] != m->dim || in.dims[0] == 0 || in.dims[0] > 65536 || nAs < 0 || (uint64_t)nAs > m->n ||
              (strcmp(zKind, "ivf") && strcmp(zKind, "ivfpq"))))
    rc = cairnErr(CAIRN_CORRUPT, "mem_open: bad IVF index in %s", zG);
  cairn_h5_obj_close(c);
  cairn_h5_obj_close(g);
  if (rc) return rc;
  nx.nlist = (uint32_t)in.dims[0];
  uint64_t nM = 0;
  if (nx.kind == CAIRN_VINDEX_IVFPQ) {
    cairnFormat(zP, sizeof zP, "%s/pq_codes", zG);
    uint64_t nR = 0;
    cairn_h5_obj *o = NULL;
    rc = cairn_h5_get(m->pH5, zP, &o);
    if (!rc) rc = cairn_h5_info_get(o, &in);
    if (!rc && (in.rank != 2 || in.dims[1] == 0 || m->dim % in.dims[1])) rc = cairnErr(CAIRN_CORRUPT, "mem_open: bad %s", zP);
    if (!rc) nM = in.dims[1], nR = in.dims[0];
    (void)nR;
    cairn_h5_obj_close(o);
    if (rc) return rc;
    nx.m = (uint32_t)nM, nx.dsub = m->dim / nx.m;
  }
  nx.aCent = cairnMallocArray(nx.nlist, (size_t)nx.dim * 4);
  nx.aCentSq = cairnMallocArray(nx.nlist, 4);
  nx.aPq = nx.m ? cairnMallocArray((size_t)nx.m * 256, (size_t)nx.dsub * 4) : NULL;
  nx.aAssign = cairnMallocArray(CAIRN_MAX((size_t)nAs, 1), 4);
  nx.aCode = nx.m ? cairnMallocArray(CAIRN_MAX((size_t)nAs, 1), nx.m) : NULL;
  nx.nAlloc = CAIRN_MAX((size_t)nAs, 1);
  if (!nx.aCent || !nx.aCentSq || (nx.m && (!nx.aPq || !nx.aCode)) || !nx.aAssign) rc = cairnErr(CAIRN_NOMEM, "mem_open: IVF index");
  cairnFormat(zP, sizeof zP, "%s/centroids", zG);
  if (!rc) rc = h5Rows(m->pH5, zP, CAIRN_H5_F32, 4, nx.dim, 0, nx.nlist, nx.aCent, NULL);
  if (!rc && nx.m) {
    cairn_h5_obj *o = NULL;
    cairnFormat(zP, sizeof zP, "%s/pq_codebooks", zG);
    rc = cairn_h5_get(m->pH5, zP, &o);
    if (!rc) rc = cairn_h5_info_get(o, &in);
    if (!rc && (in.rank != 3 || in.dims[0] != nx.m || in.dims[1] != 256 || in.dims[2] != nx.dsub))
      rc = cairnErr(CAIRN_CORRUPT, "mem_open: bad %s", zP);
    if (!rc) rc = cairn_h5_read(o, NULL, CAIRN_H5_F32, nx.aPq, (size_t)nx.m * 256 * nx.dsub * 4);
    cairn_h5_obj_close(o);
  }
  cairnFormat(zP, sizeof zP, "%s/assign", zG);
  if (!rc) rc = h5Rows(m->pH5, zP, CAIRN_H5_U32, 4, 0, 0, (uint64_t)nAs, nx.aAssign, NULL);
  cairnFormat(zP, sizeof zP, "%s/pq_codes", zG);
  if (!rc && nx.m) rc = h5Rows(m->pH5, zP, CAIRN_H5_U8, 1, nx.m, 0, (uint64_t)nAs, nx.aCode, NULL);
  for (int64_t i = 0; !rc && i < nAs; i++)
    if (nx.aAssign[i] >= nx.nlist) rc = cairnErr(CAIRN_CORRUPT, "mem_open: %s/assign[%lld] = %u >= %u lists", zG, (long long)i, nx.aAssign[i], nx.nlist);
  for (uint32_t cc = 0; !rc && cc < nx.nlist; cc++) {
    float *ct = nx.aCent + (size_t)cc * nx.dim;
    for (uint32_t j = 0; j < nx.dim; j++)
      if (!isFiniteF(ct[j])) {
        rc = cairnErr(CAIRN_CORRUPT, "mem_open: IVF centroid %u is not finite in %s", cc, zG);
        break;
      }
    if (!rc) nx.aCentSq[cc] = cairnMemDot(ct, ct, nx.dim);
  }
  if (rc) {
    cairnIvfFree(&nx);
    return rc;
  }
  nx.nAssigned = (size_t)nAs;
  nx.dirty = 1;
  cairnIvfFree(&m->ivf);
  m->ivf = nx;
  m->ivfGen = m->ivfCkGen = gen;
  m->ivfCkRows = (size_t)nAs;
  return CAIRN_OK;
}

/* Load every row of the checkpoint into memory (rebuilding BM25 and the vector copies as the
** adds do) and the persisted IVF index. */
static int ckLoad(cairn_mem *m, uint64_t nRow) {
  cairn_h5 *h = m->pH5;
  int rc = CAIRN_OK;
  uint64_t *aTo = NULL, *aMo = NULL, *aNo = NULL, *aId = NULL;
  uint8_t *aTb = NULL, *aMb = NULL, *aNb = NULL, *aTier = NULL, *aVec = NULL;
  int64_t *aCr = NULL, *aEv = NULL;
  float *aImp = NULL, *aSc = NULL;
  uint32_t *aAcc = NULL, *aSes = NULL, *aRole = NULL;
  uint64_t nNames = 0;
  size_t n = (size_t)nRow;
  if ((uint64_t)n != nRow) return cairnErr(CAIRN_RANGE, "mem_open: %llu rows", (unsigned long long)nRow);
  size_t nA = CAIRN_MAX(n, (size_t)1);
  aId = cairnMallocArray(nA, 8), aCr = cairnMallocArray(nA, 8), aEv = cairnMallocArray(nA, 8), aTier = cairnMalloc(nA);
  aImp = cairnMallocArray(nA, 4), aAcc = cairnMallocArray(nA, 4), aSes = cairnMallocArray(nA, 4), aRole = cairnMallocArray(nA, 4);
  if (!aId || !aCr || !aEv || !aTier || !aImp || !aAcc || !aSes || !aRole) rc = cairnErr(CAIRN_NOMEM, "mem_open: %zu rows", n);
  if (!rc) rc = h5Rows(h, "/memory/id", CAIRN_H5_U64, 8, 0, 0, nRow, aId, NULL);
  if (!rc) rc = h5Rows(h, "/memory/created_ms", CAIRN_H5_I64, 8, 0, 0, nRow, aCr, NULL);
  if (!rc) rc = h5Rows(h, "/memory/event_ms", CAIRN_H5_I64, 8, 0, 0, nRow, aEv, NULL);
  if (!rc) rc = h5Rows(h, "/memory/tier", CAIRN_H5_U8, 1, 0, 0, nRow, aTier, NULL);
  if (!rc) rc = h5Rows(h, "/memory/importance", CAIRN_H5_F32, 4, 0, 0, nRow, aImp, NULL);
  if (!rc) rc = h5Rows(h, "/memory/access_count", CAIRN_H5_U32, 4, 0, 0, nRow, aAcc, NULL);
  if (!rc) rc = h5Rows(h, "/memory/session", CAIRN_H5_U32, 4, 0, 0, nRow, aSes, NULL);
  if (!rc) rc = h5Rows(h, "/memory/role", CAIRN_H5_U32, 4, 0, 0, nRow, aRole, NULL);
  if (!rc) rc = h5Csr(h, "/memory/text_offsets", "/memory/text_bytes", nRow, &aTo, &aTb);
  if (!rc) rc = h5Csr(h, "/memory/meta_offsets", "/memory/meta_bytes", nRow, &aMo, &aMb);
  if (!rc) rc = h5Rows(h, "/memory/names_offsets", CAIRN_H5_U64, 8, 0, 0, 0, NULL, &nNames);
  if (!rc && (nNames == 0 || nNames > ((uint64_t)1 << 31))) rc = cairnErr(CAIRN_CORRUPT, "store: /memory/names_offsets is empty");
  if (!rc) rc = h5Csr(h, "/memory/names_offsets", "/memory/names_bytes", --nNames, &aNo, &aNb);
  /* the names table, in file order */
  for (uint64_t i = 0; !rc && i < nNames; i++) {
    uint64_t len = aNo[i + 1] - aNo[i];
    uint32_t id = 0;
    if (len == 0 || len > CAIRN_MEM_MAX_NAME) rc = cairnErr(CAIRN_CORRUPT, "store: name %llu has %llu bytes", (unsigned long long)i, (unsigned long long)len);
    else if (namesFind(&m->names, (const char *)aNb + aNo[i], (size_t)len, &id, 0) == CAIRN_OK)
      rc = cairnErr(CAIRN_CORRUPT, "store: name %llu appears twice", (unsigned long long)i);
    else {
      cairn_clearerr();
      rc = namesFind(&m->names, (const char *)aNb + aNo[i], (size_t)len, &id, 1);
    }
  }
  const size_t nBlk = 1024;
  size_t es = m->diskVec == CAIRN_MEM_DISK_F16 ? 2 : m->diskVec == CAIRN_MEM_DISK_INT8 ? 1 : 4;
  if (!rc && !m->textOnly) {
    aVec = cairnMallocArray(nBlk, (size_t)m->dim * es);
    aSc = m->diskVec == CAIRN_MEM_DISK_INT8 ? cairnMallocArray(nA, 4) : NULL;
    if (!aVec || (m->diskVec == CAIRN_MEM_DISK_INT8 && !aSc)) rc = cairnErr(CAIRN_NOMEM, "mem_open: vectors");
    if (!rc && aSc) rc = h5Rows(h, "/memory/embedding_scale", CAIRN_H5_F32, 4, 0, 0, nRow, aSc, NULL);
  }
  cairn_h5_mtype mt = m->diskVec == CAIRN_MEM_DISK_F32 ? CAIRN_H5_F32 : CAIRN_H5_NATIVE;
  for (size_t b = 0; !rc && b < n; b += nBlk) {
    size_t k = CAIRN_MIN(nBlk, n - b);
    if (!m->textOnly) rc = h5Rows(h, "/memory/embedding", mt, es, m->dim, b, k, aVec, NULL);
    for (size_t i = 0; !rc && i < k; i++) {
      size_t r = b + i;
      AddArgs a;
      memset(&a, 0, sizeof a);
      a.zText = (const char *)aTb + aTo[r], a.nText = (size_t)(aTo[r + 1] - aTo[r]);
      a.zMeta = (const char *)aMb + aMo[r], a.nMeta = (size_t)(aMo[r + 1] - aMo[r]);
      a.created = aCr[r], a.event = aEv[r], a.tier = aTier[r], a.imp = aImp[r], a.access = aAcc[r];
      if (aSes[r] != CK_NONE && aSes[r] < nNames) a.zSession = m->names.z + m->names.aOff[aSes[r]], a.nSession = m->names.aLen[aSes[r]];
      if (aRole[r] != CK_NONE && aRole[r] < nNames) a.zRole = m->names.z + m->names.aOff[aRole[r]], a.nRole = m->names.aLen[aRole[r]];
      if (aId[r] != r + 1 || a.nText == 0 || a.nText > CAIRN_MEM_MAX_TEXT || a.nMeta > CAIRN_MEM_MAX_META || a.tier > 31 ||
          !isFiniteF(a.imp) || (aSes[r] != CK_NONE && aSes[r] >= nNames) || (aRole[r] != CK_NONE && aRole[r] >= nNames)) {
        rc = cairnErr(CAIRN_CORRUPT, "store: row %zu of /memory is out of range", r);
        break;
      }
      if (!m->textOnly) {
        float *v = m->aScratch;
        for (uint32_t j = 0; j < m->dim; j++) {
          if (m->diskVec == CAIRN_MEM_DISK_F32) v[j] = ((const float *)(const void *)aVec)[i * m->dim + j];
          else if (m->diskVec == CAIRN_MEM_DISK_F16) v[j] = cairnF16ToF32(cairnGetLE16(aVec + 2 * (i * m->dim + j)));
          else v[j] = (float)(int8_t)aVec[i * m->dim + j] * aSc[r];
          if (!isFiniteF(v[j])) {
            rc = cairnErr(CAIRN_CORRUPT, "store: embedding of row %zu is not finite", r);
            break;
          }
        }
        a.aVec = v;
      }
      if (!rc) rc = applyAdd(m, &a);
    }
  }
  if (!rc) {
    m->nCk = n;
    m->nCkNames = (uint32_t)nNames;
    m->nCkText = aTo[n], m->nCkMeta = aMo[n], m->nCkNameBytes = aNo[nNames];
  }
  cairnFree(aTo), cairnFree(aMo), cairnFree(aNo), cairnFree(aId), cairnFree(aTb), cairnFree(aMb), cairnFree(aNb);
  cairnFree(aTier), cairnFree(aVec), cairnFree(aCr), cairnFree(aEv), cairnFree(aImp), cairnFree(aSc);
  cairnFree(aAcc), cairnFree(aSes), cairnFree(aRole);
  if (!rc && !m->textOnly) rc = ckLoadIvf(m);
  return rc;
}

/* Which kind of file is it? Empty: a new store. "CAIRNMEM": a log-only store of format 1. An
** HDF5 superblock v2/v3: the checkpoint, whose end of allocation is where the log starts. A
** first sector of zeros: a creation that crashed before its superblock landed (new store). */
static int openH5(cairn_mem *m, const cairn_mem_config *cfg, uint64_t size, int64_t *pCount) {
  uint8_t sb[48];
  CAIRN_TRY(cairn_file_read_exact(m->f, sb, 48, 0));
  if (memcmp(sb, kH5Sig, 8) != 0) return cairnErr(CAIRN_CORRUPT, "mem_open: not a cairn memory store (no HDF5 or CAIRNMEM signature at offset 0)");
  if (sb[8] != 2 && sb[8] != 3)
    return cairnErr(CAIRN_UNSUPPORTED, "mem_open: HDF5 superblock version %u (a store has version 2 or 3; was it rewritten by another tool?)", sb[8]);
  if (cairnLookup3(sb, 44, 0) != cairnGetLE32(sb + 44)) return cairnErr(CAIRN_CHECKSUM, "mem_open: HDF5 superblock checksum mismatch at offset 44");
  uint64_t eoa = cairnGetLE64(sb + 28);
  if (eoa < 48 || eoa > size)
    return cairnErr(CAIRN_CORRUPT, "mem_open: HDF5 end of allocation %llu outside the file of %llu bytes", (unsigned long long)eoa, (unsigned long long)size);
  CAIRN_TRY(cairn_h5_open(m->f, 0, &m->pH5));
  CAIRN_TRY(ckHeader(m, cfg, pCount));
  m->fmt = 2;
  m->logStart = m->nFile = eoa;
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
  int rc = CAIRN_OK;
  /* Checkpoint what is committed, so that HDF5 readers see it, unless uncommitted work is in
  ** memory (its access counts and IVF rows cannot be told apart from the committed ones);
  ** the log keeps everything anyway. */
  if (m->f && m->bReady && !m->rcFatal && m->fmt == 2 && m->ckEvery != UINT32_MAX && !m->readOnly && m->nPend == 0 && m->nCommitted == m->n && !m->ivfUnlogged)
    rc = checkpointRun(m);
  cairn_h5_close(m->pH5);
  int rc2 = cairn_file_close(m->f);
  if (rc == CAIRN_OK) rc = rc2;
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
  uint64_t off = m->logStart, end = m->logStart;
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
  off = m->logStart;
  while (rc == CAIRN_OK && off < end) {
    uint8_t type;
    const uint8_t *p;
    size_t n;
    rc = logRecord(&r, off, &type, &p, &n);
    if (rc == CAIRN_NOTFOUND) rc = cairnErr(CAIRN_CORRUPT, "log: record at offset %llu changed while reading", (unsigned long long)off);
    if (rc) break;
    if (type == REC_ADD && n >= 8 && cairnGetLE64(p) <= m->nCk && m->nCk == m->n) {
      /* already in the checkpoint */
    } else if (type == REC_ADD) rc = replayAdd(m, p, n, off);
    else if (type == REC_TOUCH) {
      Rd d = {p, 0, n, 0};
      uint64_t id = rU64(&d);
      uint32_t k = rU32(&d);
      if (d.bad || id == 0 || id > m->n) rc = cairnErr(CAIRN_CORRUPT, "log: TOUCH of unknown id at offset %llu", (unsigned long long)off);
      else {
        m->aAccess[id - 1] += k;
        if (id - 1 < m->nCk && id - 1 < m->touchMin) m->touchMin = (size_t)id - 1;
      }
    } else if (type == REC_COMMIT) {
      Rd d = {p, 0, n, 0};
      uint64_t nRec = rU64(&d);
      if (d.bad || (nRec != m->n && !(nRec < m->n && nRec <= m->nCk)))
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

int cairnMemLegacyCreate; /* tests: create log-only files of format 1 */

static int openFile(cairn_mem *m, const cairn_mem_config *cfg, int64_t *pCount) {
  uint64_t size;
  CAIRN_TRY(cairn_file_size(m->f, &size));
  uint8_t h[48];
  memset(h, 0, sizeof h);
  if (size) CAIRN_TRY(cairn_file_read_exact(m->f, h, (size_t)CAIRN_MIN(size, (uint64_t)48), 0));
  int bZero = 1;
  for (int i = 0; i < 48; i++) bZero &= h[i] == 0;
  /* A first sector of zeros in a small file: the creation of the store crashed before the
  ** HDF5 superblock landed (it is written last); nothing was ever committed to it. */
  if (size == 0 || (bZero && size < (1u << 20) && !m->readOnly)) {
    if (m->readOnly) return cairnErr(CAIRN_CORRUPT, "mem_open: empty file opened read-only");
    if (size) CAIRN_TRY(cairn_file_truncate(m->f, 0));
    if (!cairnMemLegacyCreate) return ckCreateFile(m);
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
    m->fmt = 1;
    m->logStart = m->nFile = LOG_HDR;
    return CAIRN_OK;
  }
  if (size >= 48 && memcmp(h, kH5Sig, 8) == 0) return openH5(m, cfg, size, pCount);
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
  m->fmt = 1;
  m->logStart = m->nFile = LOG_HDR; /* a header-only store appends right after it (replay moves it on) */
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
  m->touchMin = SIZE_MAX;
  m->ckEvery = cfg && cfg->checkpointEvery ? cfg->checkpointEvery : CK_EVERY_DEFAULT;
  int rc = CAIRN_OK;
  uint64_t size = 0;
  int64_t nCk = 0;
  if (f) {
    rc = openFile(m, cfg, &nCk);
    if (rc == CAIRN_OK) rc = cairn_file_size(f, &size);
  }
  if (rc == CAIRN_OK) {
    m->vecs.dim = m->dim, m->vecs.metric = m->metric;
    m->aScratch = cairnMallocArray(m->dim, 4);
    m->aScratchI8 = cairnMalloc(m->dim);
    if (!m->aScratch || !m->aScratchI8) rc = cairnErr(CAIRN_NOMEM, "mem_open: out of memory");
  }
  if (rc == CAIRN_OK && m->pH5) {
    rc = ckLoad(m, (uint64_t)nCk);
    cairn_h5_close(m->pH5);
    m->pH5 = NULL;
  }
  if (rc == CAIRN_OK && f && size > m->logStart) rc = replay(m, size);
  if (rc) {
    cairn_mem_close(m);
    return rc;
  }
  m->nCommitted = m->n;
  m->bReady = 1;
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
  s->format = m->f ? m->fmt : 0;
  s->nCheckpointed = m->nCk;
  s->nLogBytes = m->f ? m->nFile - m->logStart : 0;
  s->nCheckpoint = m->nCheckpoint;
  s->checkpointNs = m->ckNs;
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
