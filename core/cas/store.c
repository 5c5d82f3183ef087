/*
** 2026-11-29
**
** core/cas/store.c - the content-addressed payload store: an append-only log of records
** (chunks, manifests, names, commits) in one cairn_file, an in-memory index rebuilt by
** scanning the log at open, publication with dedup and optional compression, verified reads,
** transactions, and the recovery rule. The format, the commit protocol and the recovery rule
** are in core/cas/FORMAT.md; maintenance reminder: a layout change here changes that file.
*/
#include "cas/cas_int.h"

/* ------------------------------------------------------------------ layout (FORMAT.md) */
#define CAS_MAGIC "cairnCAS"
#define CAS_VERSION 1
#define CAS_HDR 64
#define REC_HDR 16
#define REC_TAG 0xCA5E0000u
enum { REC_CHUNK = 1, REC_MANIFEST = 2, REC_NAME = 3, REC_COMMIT = 4 };
#define CHUNK_FIXED 40          /* hash 32, raw length 4, codec 1, reserved 3 */
#define MANI_FIXED 64           /* id 32, time 8, tag 8, size 8, count 4, reserved 4 */
#define MANI_ENTRY 36           /* hash 32, length 4 */
#define MANI_TAG "cairnMF1"
#define NAME_FIXED 48           /* id 32, time 8, flags 4, name length 4 */
#define COMMIT_BODY 32          /* seq 8, txStart 8, nRec 4, crc 4, time 8 */
#define NAME_MAX_LEN 4096
#define MANI_MAX_BODY (64u << 20)
#define WBUF_SIZE (1u << 20)
#define BATCH_RAW ((size_t)16 << 20) /* streamed input handled per prepare call */

typedef struct CasChunk {
  uint8_t aHash[32];
  uint64_t iOff;   /* record offset */
  uint32_t nStored, nRaw;
  uint8_t codec;
} CasChunk;

typedef struct CasPay {
  uint8_t aId[32];
  uint64_t iOff;   /* manifest record offset */
  uint64_t nSize;
  uint32_t nChunk, nBody;
  int64_t iTime;
  int64_t iName;   /* newest live name bound to it, -1 if none (see casNames) */
} CasPay;

typedef struct CasName {
  char *zName;
  uint8_t aId[32];
  int64_t iTime;
  int bDelete;
} CasName;

/* Open addressing over indexes into an entry array (slot value = index + 1). */
typedef struct CasTab {
  uint32_t *a;
  size_t nSlot; /* power of two */
  size_t nUsed;
} CasTab;

struct cairn_cas {
  cairn_file *f;
  int readonly, noSync, codec, level;
  int bMemory;           /* the file is a memory file: syncing it does nothing */
  int bOwnMem;           /* ... one the store created (cairn_cas_open_memory): chunks go in place */
  uint64_t iSynced;      /* bytes before this offset were synced by an early sync */
  CdcCfg *cdc;
  uint64_t iCommitted;   /* end of the committed log */
  uint64_t iEnd;         /* append position (== iCommitted outside a transaction) */
  uint64_t seq;          /* sequence number of the last commit */
  CasChunk *aChunk;
  size_t nChunk, nChunkAlloc, nChunkC;
  CasPay *aPay;
  size_t nPay, nPayAlloc, nPayC;
  CasName *aName;
  size_t nName, nNameAlloc, nNameC;
  CasTab tChunk, tPay, tName;
  int bNamesDirty;       /* aPay[].iName needs recomputing */
  /* transaction */
  int bExplicit;         /* inside cairn_cas_begin .. commit/rollback */
  int txnErr;            /* sticky error of the open transaction */
  uint32_t nTxnRec, txnCrc;
  uint64_t txnStart;
  /* write buffer: bytes [iWBuf, iWBuf+nWBuf) not yet handed to the file */
  uint8_t *aWBuf;
  size_t nWBuf;
  uint64_t iWBuf;
  /* read scratch */
  uint8_t *aScratch;
  size_t nScratch;
};

/* ------------------------------------------------------------------ small helpers */
void cairn_cas_id_hex(const uint8_t aId[32], char zHex[65]) { cairn_hex(aId, 32, zHex); }

int cairn_cas_id_parse(const char *z, uint8_t aId[32]) {
  if (!z || !aId) return cairnErr(CAIRN_MISUSE, "payload ID: NULL argument");
  for (int i = 0; i < 64; i++) {
    char ch = z[i];
    int v = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
    if (v < 0) return cairnErr(CAIRN_MISUSE, "payload ID '%s' is not 64 hex digits", z);
    if (i & 1) aId[i / 2] |= (uint8_t)v;
    else aId[i / 2] = (uint8_t)(v << 4);
  }
  if (z[64] != 0) return cairnErr(CAIRN_MISUSE, "payload ID '%s' is not 64 hex digits", z);
  return CAIRN_OK;
}

/*
** The memory backend: the same log in one cairn_memfile, which the store created itself
** (bOwnMem). Its one addition for speed, cairnMemfileGrow(), extends the file without
** zero-filling, so that new chunks can be copied straight to their final place, by several
** workers at once (see casPlace).
*/
static int casFlush(cairn_cas *c);
int cairn_cas_memory_data(cairn_cas *c, const uint8_t **pp, size_t *pn) {
  if (!c || !pp || !pn) return cairnErr(CAIRN_MISUSE, "cairn_cas_memory_data: NULL argument");
  if (!c->bOwnMem) return cairnErr(CAIRN_MISUSE, "cairn_cas_memory_data: not a memory store");
  CAIRN_TRY(casFlush(c));
  return cairn_memfile_data(c->f, pp, pn);
}

static uint64_t keyOfHash(const uint8_t *h) { return cairnGetLE64(h); }
static uint64_t keyOfName(const char *z) {
  uint64_t x = 0xcbf29ce484222325ull;
  while (*z) x = (x ^ (uint8_t)*z++) * 0x100000001b3ull;
  return x;
}

static void tabFree(CasTab *t) {
  cairnFree(t->a);
  memset(t, 0, sizeof(*t));
}
static int tabReset(CasTab *t, size_t nWant) {
  size_t nSlot = 64;
  while (nSlot < nWant * 2 + 2) nSlot *= 2;
  if (nSlot != t->nSlot) {
    uint32_t *a = cairnMallocArray(nSlot, sizeof(uint32_t));
    if (!a) return cairnErr(CAIRN_NOMEM, "store index: cannot allocate %zu slots", nSlot);
    cairnFree(t->a);
    t->a = a;
    t->nSlot = nSlot;
  }
  memset(t->a, 0, t->nSlot * sizeof(uint32_t));
  t->nUsed = 0;
  return CAIRN_OK;
}

/* Chunk and payload tables, keyed by 32-byte hashes; the name table by string. */
typedef const uint8_t *(*TabKeyFn)(cairn_cas *, size_t);
static const uint8_t *chunkKey(cairn_cas *c, size_t i) { return c->aChunk[i].aHash; }
static const uint8_t *payKey(cairn_cas *c, size_t i) { return c->aPay[i].aId; }

static size_t tabFindHash(cairn_cas *c, const CasTab *t, TabKeyFn xKey, const uint8_t *h) {
  if (!t->nSlot) return SIZE_MAX;
  size_t m = t->nSlot - 1, i = (size_t)keyOfHash(h) & m;
  for (; t->a[i]; i = (i + 1) & m)
    if (memcmp(xKey(c, t->a[i] - 1), h, 32) == 0) return t->a[i] - 1;
  return SIZE_MAX;
}
static size_t tabFindName(cairn_cas *c, const char *z) {
  const CasTab *t = &c->tName;
  if (!t->nSlot) return SIZE_MAX;
  size_t m = t->nSlot - 1, i = (size_t)keyOfName(z) & m;
  for (; t->a[i]; i = (i + 1) & m)
    if (strcmp(c->aName[t->a[i] - 1].zName, z) == 0) return t->a[i] - 1;
  return SIZE_MAX;
}

static int tabGrow(cairn_cas *c, CasTab *t, int kind);
/* Insert index v under key (replacing an entry with the same key: the name table). */
static int tabPut(cairn_cas *c, CasTab *t, int kind, size_t v) {
  if ((t->nUsed + 1) * 2 > t->nSlot) CAIRN_TRY(tabGrow(c, t, kind));
  size_t m = t->nSlot - 1, i;
  if (kind == 2) {
    const char *z = c->aName[v].zName;
    for (i = (size_t)keyOfName(z) & m; t->a[i]; i = (i + 1) & m)
      if (strcmp(c->aName[t->a[i] - 1].zName, z) == 0) {
        t->a[i] = (uint32_t)(v + 1);
        return CAIRN_OK;
      }
  } else {
    const uint8_t *h = kind == 0 ? c->aChunk[v].aHash : c->aPay[v].aId;
    for (i = (size_t)keyOfHash(h) & m; t->a[i]; i = (i + 1) & m) {
    }
  }
  t->a[i] = (uint32_t)(v + 1);
  t->nUsed++;
  return CAIRN_OK;
}
static int tabGrow(cairn_cas *c, CasTab *t, int kind) {
  CasTab old = *t;
  t->a = NULL;
  t->nSlot = 0;
  int rc = tabReset(t, old.nUsed + 1 > 32 ? (old.nUsed + 1) * 2 : 64);
  if (rc) {
    *t = old;
    return rc;
  }
  for (size_t i = 0; i < old.nSlot; i++)
    if (old.a[i]) {
      size_t v = old.a[i] - 1, m = t->nSlot - 1, j;
      const uint8_t *h = kind == 0 ? c->aChunk[v].aHash : kind == 1 ? c->aPay[v].aId : NULL;
      j = (size_t)(h ? keyOfHash(h) : keyOfName(c->aName[v].zName)) & m;
      while (t->a[j]) j = (j + 1) & m;
      t->a[j] = (uint32_t)(v + 1);
      t->nUsed++;
    }
  cairnFree(old.a);
  return CAIRN_OK;
}

/* Rebuild every table from the arrays (after open and rollback). */
static int casReindex(cairn_cas *c) {
  CAIRN_TRY(tabReset(&c->tChunk, c->nChunk));
  CAIRN_TRY(tabReset(&c->tPay, c->nPay));
  CAIRN_TRY(tabReset(&c->tName, c->nName));
  for (size_t i = 0; i < c->nChunk; i++) CAIRN_TRY(tabPut(c, &c->tChunk, 0, i));
  for (size_t i = 0; i < c->nPay; i++) CAIRN_TRY(tabPut(c, &c->tPay, 1, i));
  for (size_t i = 0; i < c->nName; i++) CAIRN_TRY(tabPut(c, &c->tName, 2, i));
  c->bNamesDirty = 1;
  return CAIRN_OK;
}

/* Grow an array of entries by one. */
static void *growArray(void **pa, size_t *pnAlloc, size_t n, size_t sz) {
  if (n == *pnAlloc) {
    size_t nNew = *pnAlloc ? *pnAlloc * 2 : 64;
    void *a = cairnRealloc(*pa, nNew * sz);
    if (!a) return NULL;
    *pa = a;
    *pnAlloc = nNew;
  }
  return (uint8_t *)*pa + n * sz;
}

/* ------------------------------------------------------------------ writing records */
static int casFlush(cairn_cas *c) {
  if (c->nWBuf == 0) return CAIRN_OK;
  int rc = cairn_file_write(c->f, c->aWBuf, c->nWBuf, c->iWBuf);
  if (rc) return rc;
  c->iWBuf += c->nWBuf;
  c->nWBuf = 0;
  return CAIRN_OK;
}

/* Append bytes at c->iEnd through the write buffer (large pieces go straight to the file). */
static int casWrite(cairn_cas *c, const void *p, size_t n) {
  if (c->nWBuf == 0) c->iWBuf = c->iEnd;
  if (n <= WBUF_SIZE - c->nWBuf) {
    memcpy(c->aWBuf + c->nWBuf, p, n);
    c->nWBuf += n;
  } else {
    CAIRN_TRY(casFlush(c));
    if (n < WBUF_SIZE / 2) {
      memcpy(c->aWBuf, p, n);
      c->nWBuf = n;
      c->iWBuf = c->iEnd;
    } else {
      CAIRN_TRY(cairn_file_write(c->f, p, n, c->iEnd));
      c->iWBuf = c->iEnd + n;
    }
  }
  c->iEnd += n;
  return CAIRN_OK;
}

static void recHeader(uint8_t h[REC_HDR], unsigned type, uint32_t nBody, uint32_t crcBody) {
  cairnPutLE32(h, REC_TAG | type);
  cairnPutLE32(h + 4, nBody);
  cairnPutLE32(h + 8, crcBody);
  cairnPutLE32(h + 12, cairnCrc32c(0, h, 12));
}

/* Write one record: header, then the body in up to two pieces (fixed part, data). */
static int casRecord(cairn_cas *c, unsigned type, const void *pA, size_t nA, const void *pB, size_t nB, uint32_t crcBody) {
  uint8_t h[REC_HDR];
  recHeader(h, type, (uint32_t)(nA + nB), crcBody);
  if (type != REC_COMMIT) {
    c->txnCrc = cairnCrc32c(c->txnCrc, h, REC_HDR);
    c->nTxnRec++;
  }
  CAIRN_TRY(casWrite(c, h, REC_HDR));
  CAIRN_TRY(casWrite(c, pA, nA));
  if (nB) CAIRN_TRY(casWrite(c, pB, nB));
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ transactions */
static void casDropNames(cairn_cas *c, size_t nKeep) {
  for (size_t i = nKeep; i < c->nName; i++) cairnFree(c->aName[i].zName);
  c->nName = nKeep;
}

static int casRollback(cairn_cas *c) {
  int rc = CAIRN_OK;
  c->nWBuf = 0;
  if (c->iEnd != c->iCommitted && !c->readonly) {
    /* The bytes after the last commit are invisible to any reader; cutting them keeps the
    ** next transaction from writing after stale records. */
    rc = cairn_file_truncate(c->f, c->iCommitted);
  }
  c->iEnd = c->txnStart = c->iCommitted;
  if (c->iSynced > c->iCommitted) c->iSynced = c->iCommitted;
  c->nChunk = c->nChunkC;
  c->nPay = c->nPayC;
  casDropNames(c, c->nNameC);
  c->nTxnRec = 0;
  c->txnCrc = 0;
  c->txnErr = CAIRN_OK;
  c->bExplicit = 0;
  int rc2 = casReindex(c);
  return rc ? rc : rc2;
}

static int casTxnCheck(cairn_cas *c) {
  if (c->readonly) return cairnErr(CAIRN_READONLY, "the store is open read-only");
  if (c->txnErr) return cairnErr(c->txnErr, "the open transaction failed earlier: roll it back first");
  return CAIRN_OK;
}

/* The commit protocol (FORMAT.md): records, sync, commit record, sync. */
static int casCommit(cairn_cas *c) {
  if (c->nTxnRec == 0) {
    c->txnStart = c->iEnd;
    return CAIRN_OK;
  }
  CAIRN_TRY(casFlush(c));
  if (!c->noSync) CAIRN_TRY(cairn_file_sync(c->f));
  uint8_t b[COMMIT_BODY];
  cairnPutLE64(b, c->seq + 1);
  cairnPutLE64(b + 8, c->txnStart);
  cairnPutLE32(b + 16, c->nTxnRec);
  cairnPutLE32(b + 20, c->txnCrc);
  cairnPutLE64(b + 24, (uint64_t)cairnClock(0));
  CAIRN_TRY(casRecord(c, REC_COMMIT, b, sizeof b, NULL, 0, cairnCrc32c(0, b, sizeof b)));
  CAIRN_TRY(casFlush(c));
  if (!c->noSync) CAIRN_TRY(cairn_file_sync(c->f));
  c->seq++;
  c->iCommitted = c->iSynced = c->iEnd;
  c->txnStart = c->iEnd;
  c->nTxnRec = 0;
  c->txnCrc = 0;
  c->nChunkC = c->nChunk;
  c->nPayC = c->nPay;
  c->nNameC = c->nName;
  return CAIRN_OK;
}

int cairn_cas_begin(cairn_cas *c) {
  if (!c) return cairnErr(CAIRN_MISUSE, "cairn_cas_begin: NULL store");
  CAIRN_TRY(casTxnCheck(c));
  if (c->bExplicit) return cairnErr(CAIRN_MISUSE, "cairn_cas_begin: a transaction is already open");
  c->bExplicit = 1;
  return CAIRN_OK;
}

int cairn_cas_commit(cairn_cas *c) {
  if (!c) return cairnErr(CAIRN_MISUSE, "cairn_cas_commit: NULL store");
  if (!c->bExplicit) return cairnErr(CAIRN_MISUSE, "cairn_cas_commit: no transaction is open");
  CAIRN_TRY(casTxnCheck(c));
  int rc = casCommit(c);
  if (rc) {
    c->txnErr = rc;
    return rc;
  }
  c->bExplicit = 0;
  return CAIRN_OK;
}

int cairn_cas_rollback(cairn_cas *c) {
  if (!c) return cairnErr(CAIRN_MISUSE, "cairn_cas_rollback: NULL store");
  if (!c->bExplicit) return cairnErr(CAIRN_MISUSE, "cairn_cas_rollback: no transaction is open");
  return casRollback(c);
}

/* Every publishing call: in autocommit mode it commits itself, or rolls back on error; in an
** explicit transaction an error sticks until rollback. */
static int casEndOp(cairn_cas *c, int rc) {
  if (c->bExplicit) {
    if (rc) c->txnErr = rc;
    return rc;
  }
  if (rc == CAIRN_OK) rc = casCommit(c);
  if (rc) {
    char zMsg[512];
    memcpy(zMsg, cairn_errmsg(), sizeof zMsg);
    zMsg[sizeof zMsg - 1] = 0;
    casRollback(c);
    cairnErr(rc, "%s", zMsg);
  }
  return rc;
}

/* ------------------------------------------------------------------ publishing */
/* Add one chunk (data p[0..n), hash h) unless the store has it. pOut/nOut: a compressed
** form (codec) to store instead, or NULL. */
static int casAddChunk(cairn_cas *c, const uint8_t *h, const uint8_t *p, uint32_t n, int codec,
                       const uint8_t *pOut, size_t nOut) {
  if (tabFindHash(c, &c->tChunk, chunkKey, h) != SIZE_MAX) return CAIRN_OK;
  CasChunk *k = growArray((void **)&c->aChunk, &c->nChunkAlloc, c->nChunk, sizeof(CasChunk));
  if (!k) return cairnErr(CAIRN_NOMEM, "store: cannot grow the chunk index");
  uint8_t fx[CHUNK_FIXED];
  memset(fx, 0, sizeof fx);
  memcpy(fx, h, 32);
  cairnPutLE32(fx + 32, n);
  fx[36] = (uint8_t)(pOut ? codec : 0);
  const uint8_t *pData = pOut ? pOut : p;
  size_t nData = pOut ? nOut : n;
  memcpy(k->aHash, h, 32);
  k->iOff = c->iEnd;
  k->nStored = (uint32_t)nData;
  k->nRaw = n;
  k->codec = fx[36];
  CAIRN_TRY(casRecord(c, REC_CHUNK, fx, sizeof fx, pData, nData, cairnCrc32c(0, fx, sizeof fx)));
  c->nChunk++;
  return tabPut(c, &c->tChunk, 0, c->nChunk - 1);
}

/* Compression of a batch of new chunks, one task per chunk. */
typedef struct ZJob {
  const uint8_t *base;
  const cairn_chunk *aK;
  uint8_t **aOut;
  size_t *anOut;
  int codec, level;
  int rc;
} ZJob;
static void zTask(void *pArg, size_t i, unsigned iWorker) {
  (void)iWorker;
  ZJob *j = pArg;
  const cairn_chunk *k = &j->aK[i];
  if (!j->aOut[i]) return;
  size_t nOut = 0;
  /* Keep the compressed form only if it is smaller. */
  int rc = cairn_zcompress((cairn_zkind)j->codec, j->level, j->base + k->iOff, k->n, j->aOut[i], k->n, &nOut);
  if (rc == CAIRN_OK && nOut < k->n) j->anOut[i] = nOut;
  else if (CAIRN_PRIMARY(rc) != CAIRN_RANGE && rc != CAIRN_OK) j->rc = rc;
}

/*
** Placing new chunks in a memory store: each record goes straight to its final offset, and the
** copies run on the host's workers. First, in payload order on one thread, every chunk that is
** not in the store yet gets its offset, its index entry and its record header (the
** transaction's CRC needs the headers in order; a chunk's header covers only its fixed part,
** so no data is needed for it). Then the file grows once, without zero-filling, and the records
** are written, in parallel when there is enough to copy: the page faults of fresh memory and
** the copies spread over the cores instead of following the hashing on one. Dedup is the
** same as in casAddChunk (the index is updated in the first pass, so a chunk repeated within
** the batch is placed once).
*/
typedef struct Place {
  const uint8_t *pHash, *pData;
  uint32_t nRaw, nData;
  uint8_t codec;
  uint64_t iOff; /* record offset */
} Place;
typedef struct PlaceJob {
  uint8_t *base;
  const Place *a;
} PlaceJob;
static void placeFixed(const Place *q, uint8_t fx[CHUNK_FIXED]) {
  memset(fx, 0, CHUNK_FIXED);
  memcpy(fx, q->pHash, 32);
  cairnPutLE32(fx + 32, q->nRaw);
  fx[36] = q->codec;
}
static void placeTask(void *pArg, size_t i, unsigned iWorker) {
  (void)iWorker;
  const PlaceJob *j = pArg;
  const Place *q = &j->a[i];
  uint8_t *d = j->base + q->iOff;
  placeFixed(q, d + REC_HDR);
  recHeader(d, REC_CHUNK, CHUNK_FIXED + q->nData, cairnCrc32c(0, d + REC_HDR, CHUNK_FIXED));
  memcpy(d + REC_HDR + CHUNK_FIXED, q->pData, q->nData);
}
#define PLACE_PARALLEL_MIN ((size_t)1 << 20) /* fewer bytes than this: one thread */
static int casPlace(cairn_cas *c, const uint8_t *base, const cairn_chunk *aK, size_t nK, uint8_t *const *aOut,
                    const size_t *anOut) {
  Place *a = cairnMallocArray(nK ? nK : 1, sizeof(Place));
  if (!a) return cairnErr(CAIRN_NOMEM, "store: out of memory");
  int rc = casFlush(c);
  size_t nNew = 0, nBytes = 0;
  for (size_t i = 0; rc == CAIRN_OK && i < nK; i++) {
    const cairn_chunk *k = &aK[i];
    if (tabFindHash(c, &c->tChunk, chunkKey, k->aHash) != SIZE_MAX) continue;
    CasChunk *e = growArray((void **)&c->aChunk, &c->nChunkAlloc, c->nChunk, sizeof(CasChunk));
    if (!e) {
      rc = cairnErr(CAIRN_NOMEM, "store: cannot grow the chunk index");
      break;
    }
    Place *q = &a[nNew++];
    int bZ = aOut && anOut[i];
    q->pHash = k->aHash;
    q->pData = bZ ? aOut[i] : base + k->iOff;
    q->nRaw = k->n;
    q->nData = (uint32_t)(bZ ? anOut[i] : k->n);
    q->codec = (uint8_t)(bZ ? c->codec : 0);
    q->iOff = c->iEnd;
    uint8_t fx[CHUNK_FIXED], h[REC_HDR];
    placeFixed(q, fx);
    recHeader(h, REC_CHUNK, CHUNK_FIXED + q->nData, cairnCrc32c(0, fx, CHUNK_FIXED));
    c->txnCrc = cairnCrc32c(c->txnCrc, h, REC_HDR);
    c->nTxnRec++;
    memcpy(e->aHash, k->aHash, 32);
    e->iOff = q->iOff;
    e->nStored = q->nData;
    e->nRaw = q->nRaw;
    e->codec = q->codec;
    c->nChunk++;
    c->iEnd += REC_HDR + CHUNK_FIXED + q->nData;
    nBytes += q->nData;
    rc = tabPut(c, &c->tChunk, 0, c->nChunk - 1);
  }
  uint8_t *pBase = NULL;
  if (rc == CAIRN_OK && nNew) {
    pBase = cairnMemfileGrow(c->f, c->iEnd);
    if (!pBase) rc = cairnErr(CAIRN_NOMEM, "memory store: cannot grow to %llu bytes", (unsigned long long)c->iEnd);
  }
  if (rc == CAIRN_OK && nNew) {
    PlaceJob j = {pBase, a};
    if (nNew > 1 && nBytes >= PLACE_PARALLEL_MIN) rc = cairnParallelFor(nNew, placeTask, &j);
    else
      for (size_t i = 0; i < nNew; i++) placeTask(&j, i, 0);
  }
  /* On failure the transaction rolls back (casEndOp), which cuts the file and the index. */
  cairnFree(a);
  return rc;
}

/* Store the chunks aK[0..nK) of base (dedup, optional compression). */
static int casStoreChunks(cairn_cas *c, const uint8_t *base, const cairn_chunk *aK, size_t nK) {
  int bMem = c->bOwnMem;
  if (!c->codec) {
    if (bMem) return casPlace(c, base, aK, nK, NULL, NULL);
    for (size_t i = 0; i < nK; i++) CAIRN_TRY(casAddChunk(c, aK[i].aHash, base + aK[i].iOff, aK[i].n, 0, NULL, 0));
    return CAIRN_OK;
  }
  /* Groups of at most BATCH_RAW raw bytes keep the compression buffers bounded. */
  size_t i0 = 0;
  while (i0 < nK) {
    size_t i1 = i0, nRaw = 0;
    while (i1 < nK && (i1 == i0 || nRaw + aK[i1].n <= BATCH_RAW)) nRaw += aK[i1++].n;
    size_t nG = i1 - i0;
    uint8_t **aOut = cairnMallocZero(nG * (sizeof(uint8_t *) + sizeof(size_t)));
    if (!aOut) return cairnErr(CAIRN_NOMEM, "store: out of memory");
    size_t *anOut = (size_t *)(aOut + nG);
    int rc = CAIRN_OK;
    for (size_t i = 0; i < nG && rc == CAIRN_OK; i++) {
      const cairn_chunk *k = &aK[i0 + i];
      /* New chunks only, and each once within the group. */
      if (tabFindHash(c, &c->tChunk, chunkKey, k->aHash) != SIZE_MAX) continue;
      int dup = 0;
      for (size_t j = 0; j < i && !dup; j++) dup = aOut[j] && memcmp(aK[i0 + j].aHash, k->aHash, 32) == 0;
      if (dup) continue;
      aOut[i] = cairnMalloc(k->n);
      if (!aOut[i]) rc = cairnErr(CAIRN_NOMEM, "store: cannot allocate %u bytes for compression", k->n);
    }
    if (rc == CAIRN_OK) {
      ZJob j = {base, aK + i0, aOut, anOut, c->codec, c->level, CAIRN_OK};
      rc = cairnParallelFor(nG, zTask, &j);
      if (rc == CAIRN_OK && j.rc) rc = cairnErr(j.rc, "store: chunk compression failed (%s)", cairn_errstr(j.rc));
    }
    if (rc == CAIRN_OK && bMem) rc = casPlace(c, base, aK + i0, nG, aOut, anOut);
    for (size_t i = 0; i < nG && rc == CAIRN_OK && !bMem; i++) {
      const cairn_chunk *k = &aK[i0 + i];
      rc = casAddChunk(c, k->aHash, base + k->iOff, k->n, c->codec, anOut[i] ? aOut[i] : NULL, anOut[i]);
    }
    for (size_t i = 0; i < nG; i++) cairnFree(aOut[i]);
    cairnFree(aOut);
    CAIRN_TRY(rc);
    i0 = i1;
  }
  return CAIRN_OK;
}

/* A manifest under construction: the fixed part then 36 bytes per chunk. */
typedef struct Mani {
  uint8_t *a;
  size_t n, nAlloc;
  uint64_t nSize;
  uint32_t nChunk;
} Mani;

static int maniInit(Mani *m) {
  memset(m, 0, sizeof(*m));
  m->nAlloc = 4096;
  m->a = cairnMalloc(m->nAlloc);
  if (!m->a) return cairnErr(CAIRN_NOMEM, "store: out of memory");
  memset(m->a, 0, MANI_FIXED);
  m->n = MANI_FIXED;
  return CAIRN_OK;
}
static int maniAdd(Mani *m, const cairn_chunk *aK, size_t nK) {
  if (m->n + nK * MANI_ENTRY > MANI_MAX_BODY)
    return cairnErr(CAIRN_LIMIT, "store: a payload of more than %u chunks does not fit one manifest", (unsigned)((MANI_MAX_BODY - MANI_FIXED) / MANI_ENTRY));
  if (m->n + nK * MANI_ENTRY > m->nAlloc) {
    size_t nNew = (m->n + nK * MANI_ENTRY) * 2;
    uint8_t *a = cairnRealloc(m->a, nNew);
    if (!a) return cairnErr(CAIRN_NOMEM, "store: out of memory");
    m->a = a;
    m->nAlloc = nNew;
  }
  for (size_t i = 0; i < nK; i++) {
    memcpy(m->a + m->n, aK[i].aHash, 32);
    cairnPutLE32(m->a + m->n + 32, aK[i].n);
    m->n += MANI_ENTRY;
    m->nSize += aK[i].n;
    m->nChunk++;
  }
  return CAIRN_OK;
}
/* Seal: fill the fixed part and compute the ID = SHA-256 of the body from byte 40 on. */
static void maniSeal(Mani *m, int64_t iTime) {
  cairnPutLE64(m->a + 32, (uint64_t)iTime);
  memcpy(m->a + 40, MANI_TAG, 8);
  cairnPutLE64(m->a + 48, m->nSize);
  cairnPutLE32(m->a + 56, m->nChunk);
  cairnPutLE32(m->a + 60, 0);
  cairn_sha256(m->a + 40, m->n - 40, m->a);
}

static int casAddManifest(cairn_cas *c, Mani *m, uint8_t aId[32]) {
  maniSeal(m, cairnClock(0));
  memcpy(aId, m->a, 32);
  if (tabFindHash(c, &c->tPay, payKey, aId) != SIZE_MAX) return CAIRN_OK; /* published before */
  CasPay *y = growArray((void **)&c->aPay, &c->nPayAlloc, c->nPay, sizeof(CasPay));
  if (!y) return cairnErr(CAIRN_NOMEM, "store: cannot grow the payload index");
  memcpy(y->aId, aId, 32);
  y->iOff = c->iEnd;
  y->nSize = m->nSize;
  y->nChunk = m->nChunk;
  y->nBody = (uint32_t)m->n;
  y->iTime = (int64_t)cairnGetLE64(m->a + 32);
  y->iName = -1;
  CAIRN_TRY(casRecord(c, REC_MANIFEST, m->a, m->n, NULL, 0, cairnCrc32c(0, m->a, m->n)));
  c->nPay++;
  c->bNamesDirty = 1;
  return tabPut(c, &c->tPay, 1, c->nPay - 1);
}

/*
** Overlapping the disk with the hash. A durable put of a large stream would otherwise hash
** everything, then wait in the commit's first sync for the disk to take it all. When a good
** amount has been written since the last sync, the next batch is prepared on one worker while
** another syncs what is already written (the prepare then runs as one lane: the pool does not
** nest), so the final sync finds little left to do. Syncing early is always allowed by the
** commit protocol: it only makes records durable sooner.
*/
#define SYNC_AHEAD ((uint64_t)8 << 20)
uint64_t cairnCasSyncAhead; /* test hook: the threshold (0 = SYNC_AHEAD) */
typedef struct Overlap {
  const CdcCfg *cdc;
  const uint8_t *p;
  size_t n, nUsed, nK;
  int eof, rcPrep, rcSync;
  cairn_chunk *aK;
  cairn_file *f;
} Overlap;
static void overlapTask(void *pArg, size_t i, unsigned iWorker) {
  (void)iWorker;
  Overlap *o = pArg;
  if (i == 0) o->rcPrep = cairnCdcPrepare(o->cdc, o->p, o->n, o->eof, &o->aK, &o->nK, &o->nUsed);
  else o->rcSync = cairn_file_sync(o->f);
}

/* Chunk, hash and store p[0..n) with eof; append the chunks to m; *pnUsed: bytes consumed. */
static int casFeed(cairn_cas *c, Mani *m, const uint8_t *p, size_t n, int eof, size_t *pnUsed) {
  cairn_chunk *aK = NULL;
  size_t nK = 0;
  if (!c->noSync && !c->bMemory && cairnConcurrency() > 1 && c->iEnd >= c->iSynced + (cairnCasSyncAhead ? cairnCasSyncAhead : SYNC_AHEAD)) {
    CAIRN_TRY(casFlush(c));
    Overlap o = {c->cdc, p, n, 0, 0, eof, CAIRN_OK, CAIRN_OK, NULL, c->f};
    uint64_t iWritten = c->iEnd;
    int rc = cairnParallelFor(2, overlapTask, &o);
    if (rc == CAIRN_OK && o.rcPrep) rc = cairnErr(o.rcPrep, "store: chunking failed (%s)", cairn_errstr(o.rcPrep));
    if (rc == CAIRN_OK && o.rcSync) rc = cairnErr(o.rcSync, "store: sync failed (%s)", cairn_errstr(o.rcSync));
    if (rc) {
      cairnFree(o.aK);
      return rc;
    }
    c->iSynced = iWritten;
    aK = o.aK, nK = o.nK;
    if (pnUsed) *pnUsed = o.nUsed;
  } else {
    CAIRN_TRY(cairnCdcPrepare(c->cdc, p, n, eof, &aK, &nK, pnUsed));
  }
  int rc = casStoreChunks(c, p, aK, nK);
  if (rc == CAIRN_OK) rc = maniAdd(m, aK, nK);
  cairnFree(aK);
  return rc;
}

int cairn_cas_put(cairn_cas *c, const void *p, size_t n, uint8_t aId[32]) {
  if (!c || !aId || (!p && n)) return cairnErr(CAIRN_MISUSE, "cairn_cas_put: NULL argument");
  CAIRN_TRY(casTxnCheck(c));
  Mani m;
  int rc = maniInit(&m);
  /* Large buffers go through prepare in slices so the chunk list and the compression
  ** buffers stay bounded; the slices join exactly (prepare leaves undecided bytes). */
  size_t i = 0;
  while (rc == CAIRN_OK && (i < n || n == 0)) {
    size_t nSlice = n - i, nUsed = 0;
    int eof = 1;
    if (nSlice > 4 * BATCH_RAW) nSlice = 4 * BATCH_RAW, eof = 0;
    rc = casFeed(c, &m, (const uint8_t *)p + i, nSlice, eof, &nUsed);
    if (rc == CAIRN_OK && !eof && nUsed == 0) rc = cairnErr(CAIRN_ERROR, "store: no chunk boundary in %zu bytes", nSlice);
    i += nUsed;
    if (n == 0 || (eof && rc == CAIRN_OK)) break;
  }
  if (rc == CAIRN_OK) rc = casAddManifest(c, &m, aId);
  cairnFree(m.a);
  return casEndOp(c, rc);
}

/* The streaming writer: input gathers in a buffer; full buffers are prepared without eof and
** the undecided tail (less than one maximum chunk) moves to the front. */
struct cairn_cas_writer {
  cairn_cas *c;
  Mani m;
  uint8_t *a;
  size_t n, nAlloc;
  int rc;
};

int cairn_cas_writer_open(cairn_cas *c, cairn_cas_writer **ppW) {
  if (!c || !ppW) return cairnErr(CAIRN_MISUSE, "cairn_cas_writer_open: NULL argument");
  *ppW = NULL;
  CAIRN_TRY(casTxnCheck(c));
  cairn_cas_writer *w = cairnMallocZero(sizeof(*w));
  if (!w) return cairnErr(CAIRN_NOMEM, "store: out of memory");
  w->c = c;
  w->nAlloc = BATCH_RAW + c->cdc->prm.nMax;
  w->a = cairnMalloc(w->nAlloc);
  int rc = w->a ? maniInit(&w->m) : cairnErr(CAIRN_NOMEM, "store: cannot allocate a %zu-byte stream buffer", w->nAlloc);
  if (rc) {
    cairnFree(w->a);
    cairnFree(w);
    return rc;
  }
  *ppW = w;
  return CAIRN_OK;
}

static int writerDrain(cairn_cas_writer *w, int eof) {
  size_t nUsed = 0;
  int rc = casFeed(w->c, &w->m, w->a, w->n, eof, &nUsed);
  if (rc) return rc;
  memmove(w->a, w->a + nUsed, w->n - nUsed);
  w->n -= nUsed;
  return CAIRN_OK;
}

int cairn_cas_writer_write(cairn_cas_writer *w, const void *pv, size_t n) {
  const uint8_t *p = pv;
  if (!w || (!p && n)) return cairnErr(CAIRN_MISUSE, "cairn_cas_writer_write: NULL argument");
  if (w->rc) return cairnErr(w->rc, "this payload writer failed earlier");
  CAIRN_TRY(casTxnCheck(w->c));
  while (n > 0) {
    size_t k = CAIRN_MIN(n, w->nAlloc - w->n);
    memcpy(w->a + w->n, p, k);
    w->n += k, p += k, n -= k;
    if (w->n == w->nAlloc && (w->rc = writerDrain(w, 0)) != CAIRN_OK) return w->rc;
  }
  return CAIRN_OK;
}

void cairn_cas_writer_abort(cairn_cas_writer *w) {
  if (!w) return;
  /* Chunks it wrote stay in the transaction; in autocommit mode they are rolled back. */
  if (!w->c->bExplicit && w->c->nTxnRec) casRollback(w->c);
  cairnFree(w->m.a);
  cairnFree(w->a);
  cairnFree(w);
}

int cairn_cas_writer_finish(cairn_cas_writer *w, uint8_t aId[32]) {
  if (!w || !aId) {
    cairn_cas_writer_abort(w);
    return cairnErr(CAIRN_MISUSE, "cairn_cas_writer_finish: NULL argument");
  }
  cairn_cas *c = w->c;
  int rc = w->rc ? cairnErr(w->rc, "this payload writer failed earlier") : casTxnCheck(c);
  if (rc == CAIRN_OK) rc = writerDrain(w, 1);
  if (rc == CAIRN_OK) rc = casAddManifest(c, &w->m, aId);
  cairnFree(w->m.a);
  cairnFree(w->a);
  cairnFree(w);
  return casEndOp(c, rc);
}

int cairn_cas_put_file(cairn_cas *c, cairn_file *in, cairn_progress_fn xProgress, void *pArg, uint8_t aId[32]) {
  if (!c || !in || !aId) return cairnErr(CAIRN_MISUSE, "cairn_cas_put_file: NULL argument");
  uint64_t nSize, i = 0;
  CAIRN_TRY(cairn_file_size(in, &nSize));
  cairn_cas_writer *w;
  CAIRN_TRY(cairn_cas_writer_open(c, &w));
  int rc = CAIRN_OK;
  /* Read straight into the writer's buffer: no second copy. */
  while (rc == CAIRN_OK && i < nSize) {
    size_t k = (size_t)CAIRN_MIN((uint64_t)(w->nAlloc - w->n), nSize - i);
    rc = cairn_file_read_exact(in, w->a + w->n, k, i);
    if (rc) break;
    w->n += k;
    i += k;
    if (w->n == w->nAlloc) rc = writerDrain(w, 0);
    if (xProgress) xProgress(pArg, i, nSize);
  }
  if (rc) {
    w->rc = rc;
    char zMsg[512];
    memcpy(zMsg, cairn_errmsg(), sizeof zMsg);
    zMsg[sizeof zMsg - 1] = 0;
    if (c->bExplicit) c->txnErr = rc;
    cairn_cas_writer_abort(w);
    return cairnErr(rc, "%s", zMsg);
  }
  return cairn_cas_writer_finish(w, aId);
}

/* ------------------------------------------------------------------ the catalog */
static int casAddName(cairn_cas *c, const char *zName, const uint8_t aId[32], int bDelete) {
  size_t nName = strlen(zName);
  if (nName == 0 || nName > NAME_MAX_LEN) return cairnErr(CAIRN_MISUSE, "store: a name must have 1 to %d bytes", NAME_MAX_LEN);
  CasName *e = growArray((void **)&c->aName, &c->nNameAlloc, c->nName, sizeof(CasName));
  if (!e) return cairnErr(CAIRN_NOMEM, "store: cannot grow the catalog");
  uint8_t fx[NAME_FIXED];
  memset(fx, 0, sizeof fx);
  if (aId) memcpy(fx, aId, 32);
  int64_t t = cairnClock(0);
  cairnPutLE64(fx + 32, (uint64_t)t);
  cairnPutLE32(fx + 40, bDelete ? 1 : 0);
  cairnPutLE32(fx + 44, (uint32_t)nName);
  char *z = cairnMalloc(nName + 1);
  if (!z) return cairnErr(CAIRN_NOMEM, "store: out of memory");
  memcpy(z, zName, nName + 1);
  uint32_t crc = cairnCrc32c(cairnCrc32c(0, fx, sizeof fx), zName, nName);
  int rc = casRecord(c, REC_NAME, fx, sizeof fx, zName, nName, crc);
  if (rc) {
    cairnFree(z);
    return rc;
  }
  e->zName = z;
  memcpy(e->aId, fx, 32);
  e->iTime = t;
  e->bDelete = bDelete;
  c->nName++;
  c->bNamesDirty = 1;
  return tabPut(c, &c->tName, 2, c->nName - 1);
}

int cairn_cas_name_set(cairn_cas *c, const char *zName, const uint8_t aId[32]) {
  if (!c || !zName || !aId) return cairnErr(CAIRN_MISUSE, "cairn_cas_name_set: NULL argument");
  CAIRN_TRY(casTxnCheck(c));
  if (tabFindHash(c, &c->tPay, payKey, aId) == SIZE_MAX) {
    char z[65];
    cairn_hex(aId, 32, z);
    return cairnErr(CAIRN_NOTFOUND, "no payload %s in the store", z);
  }
  size_t i = tabFindName(c, zName);
  if (i != SIZE_MAX && !c->aName[i].bDelete && memcmp(c->aName[i].aId, aId, 32) == 0) return CAIRN_OK;
  return casEndOp(c, casAddName(c, zName, aId, 0));
}

int cairn_cas_name_get(cairn_cas *c, const char *zName, uint8_t aId[32]) {
  if (!c || !zName || !aId) return cairnErr(CAIRN_MISUSE, "cairn_cas_name_get: NULL argument");
  size_t i = tabFindName(c, zName);
  if (i == SIZE_MAX || c->aName[i].bDelete) return cairnErr(CAIRN_NOTFOUND, "no payload named '%s'", zName);
  memcpy(aId, c->aName[i].aId, 32);
  return CAIRN_OK;
}

int cairn_cas_name_delete(cairn_cas *c, const char *zName) {
  if (!c || !zName) return cairnErr(CAIRN_MISUSE, "cairn_cas_name_delete: NULL argument");
  CAIRN_TRY(casTxnCheck(c));
  size_t i = tabFindName(c, zName);
  if (i == SIZE_MAX || c->aName[i].bDelete) return cairnErr(CAIRN_NOTFOUND, "no payload named '%s'", zName);
  return casEndOp(c, casAddName(c, zName, NULL, 1));
}

/* aPay[].iName: for each payload the newest live name bound to it. */
static void casNames(cairn_cas *c) {
  if (!c->bNamesDirty) return;
  for (size_t i = 0; i < c->nPay; i++) c->aPay[i].iName = -1;
  for (size_t i = 0; i < c->nName; i++) {
    if (c->aName[i].bDelete || tabFindName(c, c->aName[i].zName) != i) continue;
    size_t y = tabFindHash(c, &c->tPay, payKey, c->aName[i].aId);
    if (y != SIZE_MAX) c->aPay[y].iName = (int64_t)i;
  }
  c->bNamesDirty = 0;
}

size_t cairn_cas_count(cairn_cas *c) { return c ? c->nPay : 0; }

int cairn_cas_entry_at(cairn_cas *c, size_t i, cairn_cas_entry *e) {
  if (!c || !e) return cairnErr(CAIRN_MISUSE, "cairn_cas_entry_at: NULL argument");
  if (i >= c->nPay) return cairnErr(CAIRN_RANGE, "payload index %zu is past the last (%zu)", i, c->nPay);
  casNames(c);
  const CasPay *y = &c->aPay[i];
  memcpy(e->aId, y->aId, 32);
  e->nSize = y->nSize;
  e->nChunk = y->nChunk;
  e->iTime = y->iTime;
  e->zName = y->iName >= 0 ? c->aName[y->iName].zName : NULL;
  return CAIRN_OK;
}

int cairn_cas_get_stats(cairn_cas *c, cairn_cas_stats *s) {
  if (!c || !s) return cairnErr(CAIRN_MISUSE, "cairn_cas_get_stats: NULL argument");
  memset(s, 0, sizeof(*s));
  s->nPayload = c->nPay;
  s->nChunk = c->nChunk;
  for (size_t i = 0; i < c->nName; i++)
    if (!c->aName[i].bDelete && tabFindName(c, c->aName[i].zName) == i) s->nName++;
  for (size_t i = 0; i < c->nChunk; i++) {
    s->nRawBytes += c->aChunk[i].nRaw;
    s->nStoredBytes += c->aChunk[i].nStored;
  }
  s->nFileBytes = c->iCommitted;
  s->chunking = c->cdc->prm;
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ reading */
static int casScratch(cairn_cas *c, size_t n) {
  if (n <= c->nScratch) return CAIRN_OK;
  uint8_t *a = cairnRealloc(c->aScratch, n);
  if (!a) return cairnErr(CAIRN_NOMEM, "store: cannot allocate a %zu-byte read buffer", n);
  c->aScratch = a;
  c->nScratch = n;
  return CAIRN_OK;
}

/*
** Read chunk k into dst[0..k->nRaw) and verify it. On any failure dst is zeroed, so a caller
** that ignores the status still never sees wrong bytes. zWhere names the payload range.
*/
static int casReadChunk(cairn_cas *c, const CasChunk *k, uint8_t *dst, uint64_t iPay, const uint8_t *aPayId) {
  char zH[65], zWhere[200] = "";
  uint8_t fx[REC_HDR + CHUNK_FIXED];
  int rc = casFlush(c);
  cairn_hex(k->aHash, 32, zH);
  if (aPayId) {
    char zP[65];
    cairn_hex(aPayId, 32, zP);
    cairnFormat(zWhere, sizeof zWhere, ", bytes %llu..%llu of payload %s", (unsigned long long)iPay,
                (unsigned long long)(iPay + k->nRaw), zP);
  }
  if (rc == CAIRN_OK) rc = cairn_file_read_exact(c->f, fx, sizeof fx, k->iOff);
  if (rc == CAIRN_OK) {
    uint8_t want[REC_HDR];
    recHeader(want, REC_CHUNK, CHUNK_FIXED + k->nStored, cairnCrc32c(0, fx + REC_HDR, CHUNK_FIXED));
    if (memcmp(want, fx, REC_HDR) != 0 || memcmp(fx + REC_HDR, k->aHash, 32) != 0 || cairnGetLE32(fx + REC_HDR + 32) != k->nRaw)
      rc = cairnErr(CAIRN_CORRUPT, "chunk %s%s: its record header at file offset %llu is damaged", zH, zWhere,
                    (unsigned long long)k->iOff);
  }
  uint64_t iData = k->iOff + REC_HDR + CHUNK_FIXED;
  if (rc == CAIRN_OK && k->codec == 0) {
    rc = cairn_file_read_exact(c->f, dst, k->nRaw, iData);
  } else if (rc == CAIRN_OK) {
    rc = casScratch(c, k->nStored);
    if (rc == CAIRN_OK) rc = cairn_file_read_exact(c->f, c->aScratch, k->nStored, iData);
    size_t nGot = 0;
    if (rc == CAIRN_OK) {
      rc = cairn_zdecompress((cairn_zkind)k->codec, c->aScratch, k->nStored, dst, k->nRaw, &nGot);
      if (rc == CAIRN_OK && nGot != k->nRaw) rc = CAIRN_CORRUPT;
      if (rc) rc = cairnErr(CAIRN_CHECKSUM, "chunk %s%s: stored bytes at file offset %llu do not decompress (damaged)", zH,
                            zWhere, (unsigned long long)iData);
    }
  }
  if (rc == CAIRN_OK) {
    uint8_t h[32];
    cairn_sha256(dst, k->nRaw, h);
    if (memcmp(h, k->aHash, 32) != 0)
      rc = cairnErr(CAIRN_CHECKSUM, "chunk %s%s: SHA-256 mismatch, the %u bytes at file offset %llu are damaged", zH, zWhere,
                    k->nRaw, (unsigned long long)iData);
  }
  if (rc) memset(dst, 0, k->nRaw);
  return rc;
}

struct cairn_cas_payload {
  cairn_cas *c;
  uint8_t aId[32];
  uint64_t nSize;
  uint32_t nChunk;
  uint64_t *aStart;  /* nChunk+1 offsets into the payload */
  uint32_t *aIdx;    /* chunk index of each piece */
  uint8_t *aBuf;     /* one chunk, for partial reads */
  size_t nBuf;
};

static int casLoadManifest(cairn_cas *c, const CasPay *y, cairn_cas_payload *pl) {
  char zP[65];
  cairn_hex(y->aId, 32, zP);
  CAIRN_TRY(casFlush(c));
  uint8_t *a = cairnMalloc(y->nBody);
  if (!a) return cairnErr(CAIRN_NOMEM, "store: out of memory");
  uint8_t h[REC_HDR];
  int rc = cairn_file_read_exact(c->f, h, REC_HDR, y->iOff);
  if (rc == CAIRN_OK) rc = cairn_file_read_exact(c->f, a, y->nBody, y->iOff + REC_HDR);
  if (rc == CAIRN_OK) {
    uint8_t want[REC_HDR], id[32];
    recHeader(want, REC_MANIFEST, y->nBody, cairnCrc32c(0, a, y->nBody));
    cairn_sha256(a + 40, y->nBody - 40, id);
    if (memcmp(want, h, REC_HDR) != 0 || memcmp(id, y->aId, 32) != 0)
      rc = cairnErr(CAIRN_CHECKSUM, "payload %s: its manifest at file offset %llu is damaged", zP, (unsigned long long)y->iOff);
  }
  if (rc == CAIRN_OK) {
    pl->aStart = cairnMallocArray((size_t)y->nChunk + 1, sizeof(uint64_t));
    pl->aIdx = cairnMallocArray((size_t)y->nChunk + 1, sizeof(uint32_t));
    if (!pl->aStart || !pl->aIdx) rc = cairnErr(CAIRN_NOMEM, "store: out of memory");
  }
  uint64_t iPos = 0;
  for (uint32_t i = 0; rc == CAIRN_OK && i < y->nChunk; i++) {
    const uint8_t *e = a + MANI_FIXED + (size_t)i * MANI_ENTRY;
    size_t k = tabFindHash(c, &c->tChunk, chunkKey, e);
    if (k == SIZE_MAX || c->aChunk[k].nRaw != cairnGetLE32(e + 32)) {
      char zH[65];
      cairn_hex(e, 32, zH);
      rc = cairnErr(CAIRN_CORRUPT, "payload %s: chunk %s (bytes %llu..) is missing from the store", zP, zH, (unsigned long long)iPos);
      break;
    }
    pl->aStart[i] = iPos;
    pl->aIdx[i] = (uint32_t)k;
    iPos += c->aChunk[k].nRaw;
  }
  if (rc == CAIRN_OK) pl->aStart[y->nChunk] = iPos;
  cairnFree(a);
  return rc;
}

int cairn_cas_payload_open(cairn_cas *c, const uint8_t aId[32], cairn_cas_payload **ppP) {
  if (!c || !aId || !ppP) return cairnErr(CAIRN_MISUSE, "cairn_cas_payload_open: NULL argument");
  *ppP = NULL;
  size_t iy = tabFindHash(c, &c->tPay, payKey, aId);
  if (iy == SIZE_MAX) {
    char z[65];
    cairn_hex(aId, 32, z);
    return cairnErr(CAIRN_NOTFOUND, "no payload %s in the store", z);
  }
  cairn_cas_payload *pl = cairnMallocZero(sizeof(*pl));
  if (!pl) return cairnErr(CAIRN_NOMEM, "store: out of memory");
  pl->c = c;
  memcpy(pl->aId, aId, 32);
  pl->nSize = c->aPay[iy].nSize;
  pl->nChunk = c->aPay[iy].nChunk;
  int rc = casLoadManifest(c, &c->aPay[iy], pl);
  if (rc) {
    cairn_cas_payload_close(pl);
    return rc;
  }
  *ppP = pl;
  return CAIRN_OK;
}

uint64_t cairn_cas_payload_size(cairn_cas_payload *pl) { return pl ? pl->nSize : 0; }

void cairn_cas_payload_close(cairn_cas_payload *pl) {
  if (!pl) return;
  cairnFree(pl->aStart);
  cairnFree(pl->aIdx);
  cairnFree(pl->aBuf);
  cairnFree(pl);
}

/* The piece that holds payload byte iOff. */
static uint32_t plFind(const cairn_cas_payload *pl, uint64_t iOff) {
  uint32_t lo = 0, hi = pl->nChunk;
  while (hi - lo > 1) {
    uint32_t m = (lo + hi) / 2;
    if (pl->aStart[m] <= iOff) lo = m;
    else hi = m;
  }
  return lo;
}

int cairn_cas_payload_read(cairn_cas_payload *pl, uint64_t iOff, void *pv, size_t n, size_t *pnRead) {
  uint8_t *p = pv;
  if (pnRead) *pnRead = 0;
  if (!pl || (!p && n)) return cairnErr(CAIRN_MISUSE, "cairn_cas_payload_read: NULL argument");
  cairn_cas *c = pl->c;
  if (iOff >= pl->nSize || n == 0) return CAIRN_OK;
  if (n > pl->nSize - iOff) n = (size_t)(pl->nSize - iOff);
  size_t nDone = 0;
  for (uint32_t i = plFind(pl, iOff); nDone < n; i++) {
    const CasChunk *k = &c->aChunk[pl->aIdx[i]];
    uint64_t iPos = iOff + nDone, iStart = pl->aStart[i];
    size_t nTake = (size_t)CAIRN_MIN((uint64_t)(n - nDone), iStart + k->nRaw - iPos);
    int rc;
    if (iPos == iStart && nTake == k->nRaw) {
      rc = casReadChunk(c, k, p + nDone, iStart, pl->aId);
    } else {
      if (pl->nBuf < k->nRaw) {
        cairnFree(pl->aBuf);
        pl->aBuf = cairnMalloc(k->nRaw);
        pl->nBuf = pl->aBuf ? k->nRaw : 0;
        if (!pl->aBuf) return cairnErr(CAIRN_NOMEM, "store: cannot allocate %u bytes", k->nRaw);
      }
      rc = casReadChunk(c, k, pl->aBuf, iStart, pl->aId);
      if (rc == CAIRN_OK) memcpy(p + nDone, pl->aBuf + (iPos - iStart), nTake);
    }
    if (rc) {
      memset(p, 0, n); /* never hand out a mix of good and unverified bytes */
      return rc;
    }
    nDone += nTake;
  }
  if (pnRead) *pnRead = nDone;
  return CAIRN_OK;
}

int cairn_cas_read(cairn_cas *c, const uint8_t aId[32], uint64_t iOff, void *p, size_t n, size_t *pnRead) {
  cairn_cas_payload *pl;
  if (pnRead) *pnRead = 0;
  CAIRN_TRY(cairn_cas_payload_open(c, aId, &pl));
  int rc = cairn_cas_payload_read(pl, iOff, p, n, pnRead);
  cairn_cas_payload_close(pl);
  return rc;
}

int cairn_cas_stat(cairn_cas *c, const uint8_t aId[32], uint64_t *pnSize) {
  if (!c || !aId) return cairnErr(CAIRN_MISUSE, "cairn_cas_stat: NULL argument");
  size_t iy = tabFindHash(c, &c->tPay, payKey, aId);
  if (iy == SIZE_MAX) {
    char z[65];
    cairn_hex(aId, 32, z);
    return cairnErr(CAIRN_NOTFOUND, "no payload %s in the store", z);
  }
  if (pnSize) *pnSize = c->aPay[iy].nSize;
  return CAIRN_OK;
}

int cairn_cas_get_file(cairn_cas *c, const uint8_t aId[32], uint64_t iStart, uint64_t iEnd, cairn_file *out,
                       cairn_progress_fn xProgress, void *pArg) {
  if (!out) return cairnErr(CAIRN_MISUSE, "cairn_cas_get_file: NULL output");
  cairn_cas_payload *pl;
  CAIRN_TRY(cairn_cas_payload_open(c, aId, &pl));
  if (iEnd > pl->nSize) iEnd = pl->nSize;
  int rc = CAIRN_OK;
  if (iStart > iEnd) rc = cairnErr(CAIRN_RANGE, "range %llu:%llu is outside the payload (%llu bytes)", (unsigned long long)iStart,
                                   (unsigned long long)iEnd, (unsigned long long)pl->nSize);
  uint64_t iOut = 0;
  uint8_t *buf = NULL;
  if (rc == CAIRN_OK && iStart < iEnd) {
    buf = cairnMalloc(c->cdc->prm.nMax > (4u << 20) ? c->cdc->prm.nMax : (4u << 20));
    if (!buf) rc = cairnErr(CAIRN_NOMEM, "store: out of memory");
  }
  /* One verified chunk at a time: memory stays at one maximum chunk. */
  for (uint64_t i = iStart; rc == CAIRN_OK && i < iEnd;) {
    uint32_t ic = plFind(pl, i);
    size_t nTake = (size_t)CAIRN_MIN(iEnd - i, pl->aStart[ic + 1] - i);
    size_t nGot;
    rc = cairn_cas_payload_read(pl, i, buf, nTake, &nGot);
    if (rc == CAIRN_OK) rc = cairn_file_write(out, buf, nTake, iOut);
    i += nTake;
    iOut += nTake;
    if (xProgress) xProgress(pArg, i - iStart, iEnd - iStart);
  }
  /* Cut what the output held before (only if it was longer: devices and pipes cannot). */
  uint64_t nNow = 0;
  if (rc == CAIRN_OK && cairn_file_size(out, &nNow) == CAIRN_OK && nNow > iOut) rc = cairn_file_truncate(out, iOut);
  cairnFree(buf);
  cairn_cas_payload_close(pl);
  return rc;
}

/* ------------------------------------------------------------------ verify */
int cairn_cas_verify(cairn_cas *c, cairn_progress_fn xProgress, void *pArg, cairn_cas_problem_fn xProblem, void *pProblemArg,
                     uint64_t *pnBad) {
  if (!c) return cairnErr(CAIRN_MISUSE, "cairn_cas_verify: NULL store");
  uint64_t nBad = 0, nDone = 0, nTotal = 0;
  int rcFirst = CAIRN_OK;
  char zFirst[512] = "";
  for (size_t i = 0; i < c->nChunk; i++) nTotal += c->aChunk[i].nRaw;
  uint32_t nBig = 0;
  for (size_t i = 0; i < c->nChunk; i++) nBig = CAIRN_MAX(nBig, c->aChunk[i].nRaw);
  uint8_t *buf = cairnMalloc(nBig ? nBig : 1);
  if (!buf) return cairnErr(CAIRN_NOMEM, "store: out of memory");
#define PROBLEM(rc_)                                                                         \
  do {                                                                                       \
    nBad++;                                                                                  \
    if (!rcFirst) rcFirst = (rc_), memcpy(zFirst, cairn_errmsg(), sizeof zFirst - 1);        \
    if (xProblem) xProblem(pProblemArg, cairn_errmsg());                                     \
  } while (0)
  for (size_t i = 0; i < c->nChunk; i++) {
    int rc = casReadChunk(c, &c->aChunk[i], buf, 0, NULL);
    if (CAIRN_PRIMARY(rc) == CAIRN_NOMEM) {
      cairnFree(buf);
      return rc;
    }
    if (rc) PROBLEM(rc);
    nDone += c->aChunk[i].nRaw;
    if (xProgress) xProgress(pArg, nDone, nTotal);
  }
  cairnFree(buf);
  for (size_t i = 0; i < c->nPay; i++) {
    cairn_cas_payload pl;
    memset(&pl, 0, sizeof pl);
    int rc = casLoadManifest(c, &c->aPay[i], &pl);
    pl.nChunk = c->aPay[i].nChunk;
    if (rc == CAIRN_OK && pl.aStart[pl.nChunk] != c->aPay[i].nSize) {
      char z[65];
      cairn_hex(c->aPay[i].aId, 32, z);
      rc = cairnErr(CAIRN_CORRUPT, "payload %s: its chunks add up to %llu bytes, its manifest says %llu", z,
                    (unsigned long long)pl.aStart[pl.nChunk], (unsigned long long)c->aPay[i].nSize);
    }
    cairnFree(pl.aStart);
    cairnFree(pl.aIdx);
    if (CAIRN_PRIMARY(rc) == CAIRN_NOMEM) return rc;
    if (rc) PROBLEM(rc);
  }
#undef PROBLEM
  if (pnBad) *pnBad = nBad;
  if (rcFirst) return cairnErr(rcFirst, "%s", zFirst);
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ open and recovery */
static void casFree(cairn_cas *c) {
  casDropNames(c, 0);
  cairnFree(c->aChunk);
  cairnFree(c->aPay);
  cairnFree(c->aName);
  tabFree(&c->tChunk);
  tabFree(&c->tPay);
  tabFree(&c->tName);
  cairnFree(c->aWBuf);
  cairnFree(c->aScratch);
  cairnFree(c->cdc);
  cairnFree(c);
}

int cairn_cas_close(cairn_cas *c) {
  if (!c) return CAIRN_OK;
  int rc = CAIRN_OK;
  if (c->bExplicit || c->nTxnRec) rc = casRollback(c);
  int rc2 = cairn_file_close(c->f);
  casFree(c);
  return rc ? rc : rc2;
}

cairn_file *cairn_cas_file(cairn_cas *c) { return c ? c->f : NULL; }

static void headerEncode(uint8_t h[CAS_HDR], const cairn_fastcdc_params *p) {
  memset(h, 0, CAS_HDR);
  memcpy(h, CAS_MAGIC, 8);
  cairnPutLE32(h + 8, CAS_VERSION);
  cairnPutLE32(h + 12, CAS_HDR);
  cairnPutLE32(h + 16, p->nMin);
  cairnPutLE32(h + 20, p->nAvg);
  cairnPutLE32(h + 24, p->nMax);
  cairnPutLE32(h + 28, p->level);
  cairnPutLE64(h + 32, p->seed);
  cairnPutLE32(h + 60, cairnCrc32c(0, h, 60));
}

/* A buffered sequential reader for the recovery scan (records may be tiny). */
typedef struct ScanBuf {
  cairn_file *f;
  uint64_t nFile;
  uint8_t *a;
  size_t nAlloc;
  uint64_t iA;  /* file offset of a[0] */
  size_t nA;    /* valid bytes */
} ScanBuf;

/* Return a pointer to file bytes [i, i+n) (n <= nAlloc), or NULL past the end / on error. */
static const uint8_t *scanAt(ScanBuf *b, uint64_t i, size_t n, int *pRc) {
  if (i + n > b->nFile) return NULL;
  if (i >= b->iA && i + n <= b->iA + b->nA) return b->a + (i - b->iA);
  if (n > b->nAlloc) {
    uint8_t *a = cairnRealloc(b->a, n);
    if (!a) {
      *pRc = cairnErr(CAIRN_NOMEM, "store: out of memory");
      return NULL;
    }
    b->a = a;
    b->nAlloc = n;
  }
  size_t k = (size_t)CAIRN_MIN((uint64_t)b->nAlloc, b->nFile - i), nGot = 0;
  if ((*pRc = cairn_file_read(b->f, b->a, k, i, &nGot)) != CAIRN_OK) return NULL;
  b->iA = i;
  b->nA = nGot;
  return nGot >= n ? b->a : NULL;
}

/*
** The recovery rule: walk the records from the header on; a transaction counts once its
** COMMIT record is intact and agrees with what precedes it (sequence, start offset, record
** count, CRC over the record headers). The first record that does not check ends the log;
** everything after the last good commit is a transaction that never finished.
*/
static int casScan(cairn_cas *c, uint64_t nFile) {
  ScanBuf b = {c->f, nFile, NULL, 256 << 10, 0, 0};
  b.a = cairnMalloc(b.nAlloc);
  if (!b.a) return cairnErr(CAIRN_NOMEM, "store: out of memory");
  int rc = CAIRN_OK;
  uint64_t i = CAS_HDR, txStart = CAS_HDR;
  uint32_t nRec = 0, crc = 0;
  c->iCommitted = CAS_HDR;
  for (;;) {
    const uint8_t *h = scanAt(&b, i, REC_HDR, &rc);
    if (!h) break;
    uint32_t tag = cairnGetLE32(h), nBody = cairnGetLE32(h + 4), crcBody = cairnGetLE32(h + 8);
    if (cairnGetLE32(h + 12) != cairnCrc32c(0, h, 12) || (tag & 0xffff0000u) != REC_TAG) break;
    unsigned type = tag & 0xffff;
    uint64_t iBody = i + REC_HDR, iNext = iBody + nBody;
    if (iNext > nFile) break;
    uint8_t hCopy[REC_HDR];
    memcpy(hCopy, h, REC_HDR);
    int ok = 0;
    if (type == REC_CHUNK && nBody >= CHUNK_FIXED && nBody - CHUNK_FIXED <= CDC_MAX_BYTES) {
      const uint8_t *fx = scanAt(&b, iBody, CHUNK_FIXED, &rc);
      if (fx && cairnCrc32c(0, fx, CHUNK_FIXED) == crcBody) {
        uint32_t nRaw = cairnGetLE32(fx + 32);
        uint8_t codec = fx[36];
        uint32_t nStored = nBody - CHUNK_FIXED;
        if (nRaw <= CDC_MAX_BYTES && (codec == 0 ? nStored == nRaw : (codec == CAIRN_ZSTD || codec == CAIRN_DEFLATE))) {
          CasChunk *k = growArray((void **)&c->aChunk, &c->nChunkAlloc, c->nChunk, sizeof(CasChunk));
          if (!k) {
            rc = cairnErr(CAIRN_NOMEM, "store: out of memory");
            break;
          }
          memcpy(k->aHash, fx, 32);
          k->iOff = i, k->nStored = nStored, k->nRaw = nRaw, k->codec = codec;
          c->nChunk++;
          ok = 1;
        }
      }
    } else if (type == REC_MANIFEST && nBody >= MANI_FIXED && nBody <= MANI_MAX_BODY && (nBody - MANI_FIXED) % MANI_ENTRY == 0) {
      const uint8_t *m = scanAt(&b, iBody, nBody, &rc);
      if (m && cairnCrc32c(0, m, nBody) == crcBody && memcmp(m + 40, MANI_TAG, 8) == 0 &&
          cairnGetLE32(m + 56) == (nBody - MANI_FIXED) / MANI_ENTRY) {
        uint8_t id[32];
        cairn_sha256(m + 40, nBody - 40, id);
        CasPay *y = memcmp(id, m, 32) == 0 ? growArray((void **)&c->aPay, &c->nPayAlloc, c->nPay, sizeof(CasPay)) : NULL;
        if (y) {
          memcpy(y->aId, id, 32);
          y->iOff = i, y->nSize = cairnGetLE64(m + 48), y->nChunk = cairnGetLE32(m + 56), y->nBody = nBody;
          y->iTime = (int64_t)cairnGetLE64(m + 32), y->iName = -1;
          c->nPay++;
          ok = 1;
        }
      }
    } else if (type == REC_NAME && nBody >= NAME_FIXED && nBody <= NAME_FIXED + NAME_MAX_LEN) {
      const uint8_t *m = scanAt(&b, iBody, nBody, &rc);
      if (m && cairnCrc32c(0, m, nBody) == crcBody && cairnGetLE32(m + 44) == nBody - NAME_FIXED && nBody > NAME_FIXED) {
        CasName *e = growArray((void **)&c->aName, &c->nNameAlloc, c->nName, sizeof(CasName));
        char *z = e ? cairnMalloc(nBody - NAME_FIXED + 1) : NULL;
        if (!z) {
          rc = cairnErr(CAIRN_NOMEM, "store: out of memory");
          break;
        }
        memcpy(z, m + NAME_FIXED, nBody - NAME_FIXED);
        z[nBody - NAME_FIXED] = 0;
        if (strlen(z) == nBody - NAME_FIXED) {
          e->zName = z;
          memcpy(e->aId, m, 32);
          e->iTime = (int64_t)cairnGetLE64(m + 32);
          e->bDelete = cairnGetLE32(m + 40) & 1;
          c->nName++;
          ok = 1;
        } else cairnFree(z);
      }
    } else if (type == REC_COMMIT && nBody == COMMIT_BODY) {
      const uint8_t *m = scanAt(&b, iBody, nBody, &rc);
      if (m && cairnCrc32c(0, m, nBody) == crcBody && cairnGetLE64(m) == c->seq + 1 && cairnGetLE64(m + 8) == txStart &&
          cairnGetLE32(m + 16) == nRec && cairnGetLE32(m + 20) == crc && nRec > 0) {
        c->seq++;
        c->iCommitted = iNext;
        c->nChunkC = c->nChunk, c->nPayC = c->nPay, c->nNameC = c->nName;
        txStart = iNext;
        nRec = 0, crc = 0;
        i = iNext;
        continue;
      }
    }
    if (rc || !ok) break;
    crc = cairnCrc32c(crc, hCopy, REC_HDR);
    nRec++;
    i = iNext;
  }
  cairnFree(b.a);
  /* What follows the last good commit never happened. */
  c->nChunk = c->nChunkC;
  c->nPay = c->nPayC;
  casDropNames(c, c->nNameC);
  return rc;
}

static int casOpenFile(cairn_file *f, const cairn_cas_config *pCfg, cairn_cas **ppCas) {
  cairn_cas_config cfg;
  memset(&cfg, 0, sizeof cfg);
  if (pCfg) cfg = *pCfg;
  cairn_cas *c = cairnMallocZero(sizeof(*c));
  if (!c) {
    cairn_file_close(f);
    return cairnErr(CAIRN_NOMEM, "store: out of memory");
  }
  c->f = f;
  {
    const uint8_t *pMem;
    size_t nMem;
    c->bMemory = cairn_memfile_data(f, &pMem, &nMem) == CAIRN_OK;
    cairn_clearerr();
  }
  c->readonly = cfg.readonly;
  c->noSync = cfg.noSync;
  c->codec = cfg.codec;
  c->level = cfg.level;
  int rc = CAIRN_OK;
  if (c->codec != 0 && c->codec != CAIRN_ZSTD && c->codec != CAIRN_DEFLATE)
    rc = cairnErr(CAIRN_MISUSE, "store: codec %d is not 0, CAIRN_ZSTD or CAIRN_DEFLATE", c->codec);
  /* Defaults: zstd 1 (a chunk store is on the write path: level 1 is ~20% faster than 3 for
  ** ~4% more bytes on log-like text), zlib 6 (its own default). */
  if (c->level == 0) c->level = c->codec == CAIRN_DEFLATE ? 6 : 1;
  c->cdc = cairnMalloc(sizeof(CdcCfg));
  c->aWBuf = cairnMalloc(WBUF_SIZE);
  if (rc == CAIRN_OK && (!c->cdc || !c->aWBuf)) rc = cairnErr(CAIRN_NOMEM, "store: out of memory");
  uint64_t nFile = 0;
  if (rc == CAIRN_OK) rc = cairn_file_size(f, &nFile);
  uint8_t h[CAS_HDR];
  cairn_fastcdc_params prm = cfg.chunking;
  if (rc == CAIRN_OK && nFile > 0) {
    size_t nGot = 0;
    memset(h, 0, sizeof h);
    rc = cairn_file_read(f, h, CAS_HDR, 0, &nGot);
    int bMagic = nFile >= CAS_HDR && memcmp(h, CAS_MAGIC, 8) == 0;
    int bTorn = 1; /* the first bytes are a prefix of the magic, or zeros: a torn creation */
    for (size_t i = 0; i < 8 && i < nGot; i++) bTorn &= h[i] == (uint8_t)CAS_MAGIC[i];
    if (!bTorn) {
      bTorn = 1;
      for (size_t i = 0; i < 8 && i < nGot; i++) bTorn &= h[i] == 0;
    }
    if (rc) {
    } else if (bMagic && cairnGetLE32(h + 60) == cairnCrc32c(0, h, 60)) {
      if (cairnGetLE32(h + 8) != CAS_VERSION) {
        rc = cairnErr(CAIRN_UNSUPPORTED, "store format version %u (this cairn reads version %d)", cairnGetLE32(h + 8), CAS_VERSION);
      } else {
        prm.nMin = cairnGetLE32(h + 16), prm.nAvg = cairnGetLE32(h + 20), prm.nMax = cairnGetLE32(h + 24);
        prm.level = cairnGetLE32(h + 28), prm.seed = cairnGetLE64(h + 32);
        if (cairn_fastcdc_check(&prm) != CAIRN_OK)
          rc = cairnErr(CAIRN_CORRUPT, "store header: bad chunking parameters (%s)", cairn_errmsg());
      }
    } else if (nFile <= CAS_HDR && bTorn && !c->readonly) {
      nFile = 0; /* a header torn while the store was being created, nothing after it: start over */
    } else if (bMagic) {
      rc = cairnErr(CAIRN_CORRUPT, "store header (file offset 0, 64 bytes) fails its checksum");
    } else {
      rc = cairnErr(CAIRN_CORRUPT, "not a cairn store: no 'cairnCAS' magic at file offset 0");
    }
  }
  if (rc == CAIRN_OK && nFile < CAS_HDR) {
    /* A new store (or one whose creation never finished). */
    if (c->readonly) rc = cairnErr(CAIRN_CORRUPT, "not a cairn store: %llu bytes, shorter than the header", (unsigned long long)nFile);
    if (rc == CAIRN_OK && prm.nAvg == 0) cairn_fastcdc_default(&prm);
    if (rc == CAIRN_OK) rc = cairn_fastcdc_check(&prm);
    if (rc == CAIRN_OK) {
      headerEncode(h, &prm);
      rc = cairn_file_truncate(f, 0);
      if (rc == CAIRN_OK) rc = cairn_file_write(f, h, CAS_HDR, 0);
      if (rc == CAIRN_OK && !c->noSync) rc = cairn_file_sync(f);
      nFile = CAS_HDR;
    }
  }
  if (rc == CAIRN_OK) rc = cairnCdcInit(c->cdc, &prm);
  if (rc == CAIRN_OK) rc = casScan(c, nFile);
  if (rc == CAIRN_OK && !c->readonly && nFile > c->iCommitted) {
    /* Cut the unfinished tail now, durably, so no later commit can sit in front of it. */
    rc = cairn_file_truncate(f, c->iCommitted);
    if (rc == CAIRN_OK && !c->noSync) rc = cairn_file_sync(f);
  }
  c->iEnd = c->txnStart = c->iSynced = c->iCommitted;
  if (rc == CAIRN_OK) rc = casReindex(c);
  if (rc) {
    cairn_file_close(f);
    casFree(c);
    return rc;
  }
  *ppCas = c;
  return CAIRN_OK;
}

int cairn_cas_open_file(cairn_file *f, const cairn_cas_config *pCfg, cairn_cas **ppCas) {
  if (!ppCas) {
    cairn_file_close(f);
    return cairnErr(CAIRN_MISUSE, "cairn_cas_open_file: ppCas is NULL");
  }
  *ppCas = NULL;
  if (!f) return cairnErr(CAIRN_MISUSE, "cairn_cas_open_file: NULL file");
  return casOpenFile(f, pCfg, ppCas);
}

int cairn_cas_open_memory(const cairn_cas_config *pCfg, cairn_cas **ppCas) {
  if (!ppCas) return cairnErr(CAIRN_MISUSE, "cairn_cas_open_memory: ppCas is NULL");
  *ppCas = NULL;
  cairn_file *f;
  CAIRN_TRY(cairn_memfile_open(NULL, 0, &f));
  cairn_cas_config cfg;
  memset(&cfg, 0, sizeof cfg);
  if (pCfg) cfg = *pCfg;
  cfg.readonly = 0;
  CAIRN_TRY(casOpenFile(f, &cfg, ppCas));
  (*ppCas)->bOwnMem = 1;
  return CAIRN_OK;
}

int cairn_cas_open(const char *zPath, const cairn_cas_config *pCfg, cairn_cas **ppCas) {
  if (!zPath || !ppCas) return cairnErr(CAIRN_MISUSE, "cairn_cas_open: NULL argument");
  *ppCas = NULL;
  int ro = pCfg && pCfg->readonly;
  cairn_file *f;
  CAIRN_TRY(cairn_open(zPath, ro ? CAIRN_OPEN_READONLY : (CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE), &f));
  int rc = casOpenFile(f, pCfg, ppCas);
  if (rc) return cairnErr(rc, "%s: %s", zPath, cairn_errmsg());
  return CAIRN_OK;
}
