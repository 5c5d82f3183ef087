/*
** 2026-12-02
**
** core/cas/store_read.c - reading from the chunk store: verified chunk reads, payload handles
** and range reads, whole-payload export, and verify (every record's checksum and hash).
*/
#include "cas/cas_int.h"

/* ------------------------------------------------------------------ reading */
static int casScratch(cairn_cas *c, size_t n) {
  if (n <= c->nScratch) return CAIRN_OK;
  uint8_t *a = cairnRealloc(c->aScratch, n);
  if (!a) return cairnErr(CAIRN_NOMEM, "store: cannot allocate a %zu-byte read buffer", n);
  c->aScratch = a;
  c->nScratch = n;
  return CAIRN_OK;
}

/* Chunks of at most this many raw bytes are read with their record header in one host read
** (into the store's scratch buffer, then copied): a small-object read costs two reads (manifest,
** chunk) instead of four. Larger raw chunks are read straight into dst, header apart. */
#define CAS_READ_WHOLE (64u << 10)

/* The hex hash of chunk k and, with aPayId, ", bytes A..B of payload P": only for messages. */
static void chunkWhere(const CasChunk *k, uint64_t iPay, const uint8_t *aPayId, char zH[65], char *zWhere, size_t nWhere) {
  cairn_hex(k->aHash, 32, zH);
  zWhere[0] = 0;
  if (aPayId) {
    char zP[65];
    cairn_hex(aPayId, 32, zP);
    cairnFormat(zWhere, nWhere, ", bytes %llu..%llu of payload %s", (unsigned long long)iPay, (unsigned long long)(iPay + k->nRaw), zP);
  }
}

/*
** Read chunk k into dst[0..k->nRaw) and verify it. On any failure dst is zeroed, so a caller
** that ignores the status still never sees wrong bytes. iPay and aPayId name the payload range
** in messages.
*/
int cairnCasReadChunk(cairn_cas *c, const CasChunk *k, uint8_t *dst, uint64_t iPay, const uint8_t *aPayId) {
  char zH[65], zWhere[200];
  uint8_t fxBuf[REC_HDR + CHUNK_FIXED], *fx = fxBuf;
  uint64_t iData = k->iOff + REC_HDR + CHUNK_FIXED;
  /* raw and small, or compressed (its stored bytes go to the scratch buffer anyway): one read */
  int bWhole = k->codec != 0 || k->nRaw <= CAS_READ_WHOLE;
  int rc = cairnCasFlush(c);
  if (rc == CAIRN_OK && bWhole) {
    size_t nRec = REC_HDR + CHUNK_FIXED + (size_t)(k->codec ? k->nStored : k->nRaw);
    rc = casScratch(c, nRec);
    if (rc == CAIRN_OK) rc = cairn_file_read_exact(c->f, c->aScratch, nRec, k->iOff);
    fx = c->aScratch;
  } else if (rc == CAIRN_OK) {
    rc = cairn_file_read_exact(c->f, fx, REC_HDR + CHUNK_FIXED, k->iOff);
  }
  if (rc == CAIRN_OK) {
    uint8_t want[REC_HDR];
    cairnCasRecHeader(want, REC_CHUNK, CHUNK_FIXED + k->nStored, cairnCrc32c(0, fx + REC_HDR, CHUNK_FIXED));
    if (memcmp(want, fx, REC_HDR) != 0 || memcmp(fx + REC_HDR, k->aHash, 32) != 0 || cairnGetLE32(fx + REC_HDR + 32) != k->nRaw) {
      chunkWhere(k, iPay, aPayId, zH, zWhere, sizeof zWhere);
      rc = cairnErr(CAIRN_CORRUPT, "chunk %s%s: its record header at file offset %llu is damaged", zH, zWhere,
                    (unsigned long long)k->iOff);
    }
  }
  if (rc == CAIRN_OK && k->codec == 0) {
    if (bWhole) memcpy(dst, c->aScratch + REC_HDR + CHUNK_FIXED, k->nRaw);
    else rc = cairn_file_read_exact(c->f, dst, k->nRaw, iData);
  } else if (rc == CAIRN_OK) {
    size_t nGot = 0;
    rc = cairn_zdecompress((cairn_zkind)k->codec, c->aScratch + REC_HDR + CHUNK_FIXED, k->nStored, dst, k->nRaw, &nGot);
    if (rc == CAIRN_OK && nGot != k->nRaw) rc = CAIRN_CORRUPT;
    if (rc) {
      chunkWhere(k, iPay, aPayId, zH, zWhere, sizeof zWhere);
      rc = cairnErr(CAIRN_CHECKSUM, "chunk %s%s: stored bytes at file offset %llu do not decompress (damaged)", zH, zWhere,
                    (unsigned long long)iData);
    }
  }
  if (rc == CAIRN_OK) {
    uint8_t h[32];
    cairn_sha256(dst, k->nRaw, h);
    if (memcmp(h, k->aHash, 32) != 0) {
      chunkWhere(k, iPay, aPayId, zH, zWhere, sizeof zWhere);
      rc = cairnErr(CAIRN_CHECKSUM, "chunk %s%s: SHA-256 mismatch, the %u bytes at file offset %llu are damaged", zH, zWhere,
                    k->nRaw, (unsigned long long)iData);
    }
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
  uint32_t iBuf;     /* 1 + the piece whose verified bytes aBuf holds; 0: none. A read in pieces
                     ** that cut a chunk (JS Store.getInto) reads and hashes it once, not twice */
  /* aStart/aIdx of payloads of at most PL_INLINE - 1 chunks (small objects: one chunk) live
  ** here, so that reading one (cairn_cas_read, with this struct on its stack) allocates nothing */
#define PL_INLINE 4
  uint64_t aStart0[PL_INLINE];
  uint32_t aIdx0[PL_INLINE];
};

/* Free what casLoadManifest allocated for pl (nothing when its arrays are inline). */
static void plFreeArrays(cairn_cas_payload *pl) {
  if (pl->aStart != pl->aStart0) cairnFree(pl->aStart);
  if (pl->aIdx != pl->aIdx0) cairnFree(pl->aIdx);
  pl->aStart = NULL, pl->aIdx = NULL;
}

static int casLoadManifest(cairn_cas *c, const CasPay *y, cairn_cas_payload *pl) {
  char zP[65]; /* the payload's hex ID, made only for a message */
  CAIRN_TRY(cairnCasFlush(c));
  /* header and body in one read, into the scratch buffer (no chunk is read until it is done) */
  CAIRN_TRY(casScratch(c, REC_HDR + (size_t)y->nBody));
  uint8_t *h = c->aScratch, *a = h + REC_HDR;
  int rc = cairn_file_read_exact(c->f, h, REC_HDR + (size_t)y->nBody, y->iOff);
  if (rc == CAIRN_OK) {
    uint8_t want[REC_HDR], id[32];
    cairnCasRecHeader(want, REC_MANIFEST, y->nBody, cairnCrc32c(0, a, y->nBody));
    cairn_sha256(a + 40, y->nBody - 40, id);
    if (memcmp(want, h, REC_HDR) != 0 || memcmp(id, y->aId, 32) != 0) {
      cairn_hex(y->aId, 32, zP);
      rc = cairnErr(CAIRN_CHECKSUM, "payload %s: its manifest at file offset %llu is damaged", zP, (unsigned long long)y->iOff);
    }
  }
  if (rc == CAIRN_OK) {
    if ((size_t)y->nChunk + 1 <= PL_INLINE) {
      pl->aStart = pl->aStart0, pl->aIdx = pl->aIdx0;
    } else {
      pl->aStart = cairnMallocArray((size_t)y->nChunk + 1, sizeof(uint64_t));
      pl->aIdx = cairnMallocArray((size_t)y->nChunk + 1, sizeof(uint32_t));
      if (!pl->aStart || !pl->aIdx) rc = cairnErr(CAIRN_NOMEM, "store: out of memory");
    }
  }
  uint64_t iPos = 0;
  for (uint32_t i = 0; rc == CAIRN_OK && i < y->nChunk; i++) {
    const uint8_t *e = a + MANI_FIXED + (size_t)i * MANI_ENTRY;
    size_t k = casTabFindHash(c, &c->tChunk, casChunkKey, e);
    if (k == SIZE_MAX || c->aChunk[k].nRaw != cairnGetLE32(e + 32)) {
      char zH[65];
      cairn_hex(e, 32, zH);
      cairn_hex(y->aId, 32, zP);
      rc = cairnErr(CAIRN_CORRUPT, "payload %s: chunk %s (bytes %llu..) is missing from the store", zP, zH, (unsigned long long)iPos);
      break;
    }
    pl->aStart[i] = iPos;
    pl->aIdx[i] = (uint32_t)k;
    iPos += c->aChunk[k].nRaw;
  }
  if (rc == CAIRN_OK) pl->aStart[y->nChunk] = iPos;
  return rc;
}

/* Set up *pl (zeroed by the caller) for payload aId: its manifest loaded and checked. On an
** error what it allocated is freed (plFreeArrays). */
static int plLoad(cairn_cas *c, const uint8_t aId[32], cairn_cas_payload *pl) {
  size_t iy = casTabFindHash(c, &c->tPay, casPayKey, aId);
  if (iy == SIZE_MAX) {
    char z[65];
    cairn_hex(aId, 32, z);
    return cairnErr(CAIRN_NOTFOUND, "no payload %s in the store", z);
  }
  pl->c = c;
  memcpy(pl->aId, aId, 32);
  pl->nSize = c->aPay[iy].nSize;
  pl->nChunk = c->aPay[iy].nChunk;
  int rc = casLoadManifest(c, &c->aPay[iy], pl);
  if (rc) plFreeArrays(pl);
  return rc;
}

int cairn_cas_payload_open(cairn_cas *c, const uint8_t aId[32], cairn_cas_payload **ppP) {
  if (!c || !aId || !ppP) return cairnErr(CAIRN_MISUSE, "cairn_cas_payload_open: NULL argument");
  *ppP = NULL;
  cairn_cas_payload *pl = cairnMallocZero(sizeof(*pl));
  if (!pl) return cairnErr(CAIRN_NOMEM, "store: out of memory");
  int rc = plLoad(c, aId, pl);
  if (rc) {
    cairnFree(pl);
    return rc;
  }
  *ppP = pl;
  return CAIRN_OK;
}

uint64_t cairn_cas_payload_size(cairn_cas_payload *pl) { return pl ? pl->nSize : 0; }

void cairn_cas_payload_close(cairn_cas_payload *pl) {
  if (!pl) return;
  plFreeArrays(pl);
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
      rc = cairnCasReadChunk(c, k, p + nDone, iStart, pl->aId);
    } else {
      if (pl->nBuf < k->nRaw) {
        /* room for the largest chunk of the store's chunking at once when the payload has
        ** several (their sizes vary up to it), so pieces read later do not grow it again */
        size_t nWant = k->nRaw;
        if (pl->nChunk > 1 && c->cdc->prm.nMax > nWant) nWant = c->cdc->prm.nMax;
        cairnFree(pl->aBuf);
        pl->iBuf = 0;
        pl->aBuf = cairnMalloc(nWant);
        pl->nBuf = pl->aBuf ? nWant : 0;
        if (!pl->aBuf) return cairnErr(CAIRN_NOMEM, "store: cannot allocate %zu bytes", nWant);
      }
      rc = pl->iBuf == i + 1 ? CAIRN_OK : cairnCasReadChunk(c, k, pl->aBuf, iStart, pl->aId);
      pl->iBuf = rc == CAIRN_OK ? i + 1 : 0;
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

/* A payload handle on the stack: a one-chunk object's read allocates nothing (PL_INLINE). */
int cairn_cas_read(cairn_cas *c, const uint8_t aId[32], uint64_t iOff, void *p, size_t n, size_t *pnRead) {
  if (pnRead) *pnRead = 0;
  if (!c || !aId) return cairnErr(CAIRN_MISUSE, "cairn_cas_payload_open: NULL argument");
  cairn_cas_payload pl;
  memset(&pl, 0, offsetof(cairn_cas_payload, aStart0));
  CAIRN_TRY(plLoad(c, aId, &pl));
  int rc = cairn_cas_payload_read(&pl, iOff, p, n, pnRead);
  plFreeArrays(&pl);
  cairnFree(pl.aBuf);
  return rc;
}

int cairn_cas_stat(cairn_cas *c, const uint8_t aId[32], uint64_t *pnSize) {
  if (!c || !aId) return cairnErr(CAIRN_MISUSE, "cairn_cas_stat: NULL argument");
  size_t iy = casTabFindHash(c, &c->tPay, casPayKey, aId);
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
  for (size_t i = 0; i < c->nDamage; i++) {
    const CasDamage *d = &c->aDamage[i];
    cairnErr(CAIRN_CORRUPT, "damaged committed data at file offset %llu..%llu (%llu bytes, skipped): %s",
             (unsigned long long)d->iOff, (unsigned long long)d->iEnd, (unsigned long long)(d->iEnd - d->iOff), d->zWhat);
    PROBLEM(CAIRN_CORRUPT);
  }
  if (c->readonly && c->iBadCommit) {
    /* Unless a writer has been appending since (then it was its commit being written). */
    uint64_t nNow = 0;
    uint8_t a[REC_HDR + COMMIT_BODY];
    if (cairn_file_size(c->f, &nNow) == CAIRN_OK && nNow == c->nFileScanned &&
        cairn_file_read_exact(c->f, a, sizeof a, c->iBadCommit) == CAIRN_OK &&
        (cairnGetLE32(a + 12) != cairnCrc32c(0, a, 12) || cairnGetLE32(a + 8) != cairnCrc32c(0, a + REC_HDR, COMMIT_BODY))) {
      if (c->bBadIsCopy)
        cairnErr(CAIRN_CORRUPT,
                 "the last %d bytes of the file (offset %llu) are the copy of the last commit (%llu) and fail its checksums: "
                 "damaged, or torn by a power failure; nothing is lost (the commit itself is intact), and the next writer "
                 "writes the copy again",
                 REC_HDR + COMMIT_BODY, (unsigned long long)c->iBadCommit, (unsigned long long)c->seq);
      else
      cairnErr(CAIRN_CORRUPT,
               "the last %d bytes of the file (offset %llu) follow whole records as their commit would, but fail its checksums: "
               "a commit damaged, or torn by a power failure; the transaction of the %llu bytes from offset %llu is not "
               "committed, and the next writer will discard it",
               REC_HDR + COMMIT_BODY, (unsigned long long)c->iBadCommit, (unsigned long long)(c->iBadCommit - c->iCommitted),
               (unsigned long long)c->iCommitted);
      PROBLEM(CAIRN_CORRUPT);
    }
  }
  for (size_t i = 0; i < c->nChunk; i++) {
    int rc = cairnCasReadChunk(c, &c->aChunk[i], buf, 0, NULL);
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
    plFreeArrays(&pl);
    if (CAIRN_PRIMARY(rc) == CAIRN_NOMEM) return rc;
    if (rc) PROBLEM(rc);
  }
  /* Names whose payload is not there (its manifest was in a damaged region). */
  for (size_t i = 0; i < c->nName; i++) {
    const CasName *e = &c->aName[i];
    if (e->bDelete || casTabFindName(c, e->zName) != i || casTabFindHash(c, &c->tPay, casPayKey, e->aId) != SIZE_MAX) continue;
    char z[65];
    cairn_hex(e->aId, 32, z);
    cairnErr(CAIRN_CORRUPT, "name '%s' is bound to payload %s, which is not in the store (lost)", e->zName, z);
    PROBLEM(CAIRN_CORRUPT);
  }
#undef PROBLEM
  if (pnBad) *pnBad = nBad;
  if (rcFirst) return cairnErr(rcFirst, "%s", zFirst);
  return CAIRN_OK;
}


int cairn_cas_check(cairn_cas *c, const uint8_t aId[32]) {
  cairn_cas_payload *pl;
  CAIRN_TRY(cairn_cas_payload_open(c, aId, &pl)); /* the manifest against its ID, chunks present */
  int rc = CAIRN_OK;
  for (uint32_t i = 0; rc == CAIRN_OK && i < pl->nChunk; i++) {
    const CasChunk *k = &c->aChunk[pl->aIdx[i]];
    if (pl->nBuf < k->nRaw) {
      cairnFree(pl->aBuf);
      pl->aBuf = cairnMalloc(k->nRaw ? k->nRaw : 1);
      pl->nBuf = pl->aBuf ? k->nRaw : 0;
      if (!pl->aBuf) rc = cairnErr(CAIRN_NOMEM, "store: cannot allocate %u bytes", k->nRaw);
    }
    if (rc == CAIRN_OK) rc = cairnCasReadChunk(c, k, pl->aBuf, pl->aStart[i], pl->aId);
  }
  if (rc == CAIRN_OK && pl->aStart[pl->nChunk] != pl->nSize) {
    char z[65];
    cairn_hex(aId, 32, z);
    rc = cairnErr(CAIRN_CORRUPT, "payload %s: its chunks add up to %llu bytes, its manifest says %llu", z,
                  (unsigned long long)pl->aStart[pl->nChunk], (unsigned long long)pl->nSize);
  }
  cairn_cas_payload_close(pl);
  return rc;
}
