/*
** 2026-12-02
**
** core/cas/store_put.c - publishing into the chunk store: chunking (FastCDC), dedup against
** the chunk index, optional compression in parallel, chunk placement, manifests, and the
** streaming writer.
*/
#include "cas/cas_int.h"

/* ------------------------------------------------------------------ publishing */
/* Add one chunk (data p[0..n), hash h) unless the store has it. pOut/nOut: a compressed
** form (codec) to store instead, or NULL. */
static int casAddChunk(cairn_cas *c, const uint8_t *h, const uint8_t *p, uint32_t n, int codec,
                       const uint8_t *pOut, size_t nOut) {
  if (casTabFindHash(c, &c->tChunk, casChunkKey, h) != SIZE_MAX) return CAIRN_OK;
  CasChunk *k = casGrowOne(&c->aChunk, &c->nChunkAlloc, c->nChunk, sizeof(CasChunk));
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
  CAIRN_TRY(cairnCasRecord(c, REC_CHUNK, fx, sizeof fx, pData, nData, cairnCrc32c(0, fx, sizeof fx)));
  c->nChunk++;
  return cairnCasTabPut(c, &c->tChunk, 0, c->nChunk - 1);
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
  cairnCasRecHeader(d, REC_CHUNK, CHUNK_FIXED + q->nData, cairnCrc32c(0, d + REC_HDR, CHUNK_FIXED));
  memcpy(d + REC_HDR + CHUNK_FIXED, q->pData, q->nData);
}
#define PLACE_PARALLEL_MIN ((size_t)1 << 20) /* fewer bytes than this: one thread */
int cairnCasPlace(cairn_cas *c, const uint8_t *base, const cairn_chunk *aK, size_t nK, uint8_t *const *aOut,
                    const size_t *anOut) {
  Place *a = cairnMallocArray(nK ? nK : 1, sizeof(Place));
  if (!a) return cairnErr(CAIRN_NOMEM, "store: out of memory");
  int rc = cairnCasFlush(c);
  size_t nNew = 0, nBytes = 0;
  for (size_t i = 0; rc == CAIRN_OK && i < nK; i++) {
    const cairn_chunk *k = &aK[i];
    if (casTabFindHash(c, &c->tChunk, casChunkKey, k->aHash) != SIZE_MAX) continue;
    CasChunk *e = casGrowOne(&c->aChunk, &c->nChunkAlloc, c->nChunk, sizeof(CasChunk));
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
    cairnCasRecHeader(h, REC_CHUNK, CHUNK_FIXED + q->nData, cairnCrc32c(0, fx, CHUNK_FIXED));
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
    rc = cairnCasTabPut(c, &c->tChunk, 0, c->nChunk - 1);
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
  /* On failure the transaction rolls back (cairnCasEndOp), which cuts the file and the index. */
  cairnFree(a);
  return rc;
}

/* Store the chunks aK[0..nK) of base (dedup, optional compression). */
static int casStoreChunks(cairn_cas *c, const uint8_t *base, const cairn_chunk *aK, size_t nK) {
  int bMem = c->bOwnMem;
  if (!c->codec) {
    if (bMem) return cairnCasPlace(c, base, aK, nK, NULL, NULL);
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
      if (casTabFindHash(c, &c->tChunk, casChunkKey, k->aHash) != SIZE_MAX) continue;
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
    if (rc == CAIRN_OK && bMem) rc = cairnCasPlace(c, base, aK + i0, nG, aOut, anOut);
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

/* Publish a sealed manifest body a[0..n) (its ID in its first 32 bytes) unless the store has it. */
int cairnCasAddManifestBody(cairn_cas *c, const uint8_t *a, uint32_t n) {
  if (casTabFindHash(c, &c->tPay, casPayKey, a) != SIZE_MAX) return CAIRN_OK; /* published before */
  CasPay *y = casGrowOne(&c->aPay, &c->nPayAlloc, c->nPay, sizeof(CasPay));
  if (!y) return cairnErr(CAIRN_NOMEM, "store: cannot grow the payload index");
  memcpy(y->aId, a, 32);
  y->iOff = c->iEnd;
  y->nSize = cairnGetLE64(a + 48);
  y->nChunk = cairnGetLE32(a + 56);
  y->nBody = n;
  y->iTime = (int64_t)cairnGetLE64(a + 32);
  y->iName = -1;
  CAIRN_TRY(cairnCasRecord(c, REC_MANIFEST, a, n, NULL, 0, cairnCrc32c(0, a, n)));
  c->nPay++;
  c->bNamesDirty = 1;
  return cairnCasTabPut(c, &c->tPay, 1, c->nPay - 1);
}
static int casAddManifest(cairn_cas *c, Mani *m, uint8_t aId[32]) {
  maniSeal(m, cairnClock(0));
  memcpy(aId, m->a, 32);
  return cairnCasAddManifestBody(c, m->a, (uint32_t)m->n);
}

/* Add one chunk of raw bytes p[0..n) named aHash (salvage), compressed with the store's codec
** when that makes it smaller. */
int cairnCasAddChunkRaw(cairn_cas *c, const uint8_t aHash[32], const uint8_t *p, uint32_t n) {
  if (casTabFindHash(c, &c->tChunk, casChunkKey, aHash) != SIZE_MAX) return CAIRN_OK;
  uint8_t *z = NULL;
  size_t nZ = 0;
  if (c->codec && n > 0) {
    z = cairnMalloc(n);
    if (!z) return cairnErr(CAIRN_NOMEM, "store: out of memory");
    int rc = cairn_zcompress((cairn_zkind)c->codec, c->level, p, n, z, n, &nZ);
    if (rc != CAIRN_OK || nZ >= n) {
      if (rc != CAIRN_OK && CAIRN_PRIMARY(rc) != CAIRN_RANGE) {
        cairnFree(z);
        return rc;
      }
      cairnFree(z);
      z = NULL;
    }
  }
  int rc = casAddChunk(c, aHash, p, n, c->codec, z, nZ);
  cairnFree(z);
  return rc;
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
    CAIRN_TRY(cairnCasFlush(c));
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
  CAIRN_TRY(cairnCasTxnCheck(c));
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
  return cairnCasEndOp(c, rc);
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
  CAIRN_TRY(cairnCasTxnCheck(c));
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
  CAIRN_TRY(cairnCasTxnCheck(w->c));
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
  if (!w->c->bExplicit && w->c->nTxnRec) cairnCasRollback(w->c);
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
  int rc = w->rc ? cairnErr(w->rc, "this payload writer failed earlier") : cairnCasTxnCheck(c);
  if (rc == CAIRN_OK) rc = writerDrain(w, 1);
  if (rc == CAIRN_OK) rc = casAddManifest(c, &w->m, aId);
  cairnFree(w->m.a);
  cairnFree(w->a);
  cairnFree(w);
  return cairnCasEndOp(c, rc);
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

