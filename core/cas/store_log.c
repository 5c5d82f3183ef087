/*
** 2026-12-02
**
** core/cas/store_log.c - the chunk store's log and index: the hash tables over chunks,
** payloads and names, the write buffer and record framing, and transactions (begin, commit
** with its COMMIT record and sync, rollback to the last commit).
*/
#include "cas/cas_int.h"


void cairnCasTabFree(CasTab *t) {
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


static int tabGrow(cairn_cas *c, CasTab *t, int kind);
/* Insert index v under key (replacing an entry with the same key: the name table). */
int cairnCasTabPut(cairn_cas *c, CasTab *t, int kind, size_t v) {
  if ((t->nUsed + 1) * 2 > t->nSlot) CAIRN_TRY(tabGrow(c, t, kind));
  size_t m = t->nSlot - 1, i;
  if (kind == 2) {
    const char *z = c->aName[v].zName;
    for (i = (size_t)casKeyOfName(z) & m; t->a[i]; i = (i + 1) & m)
      if (strcmp(c->aName[t->a[i] - 1].zName, z) == 0) {
        t->a[i] = (uint32_t)(v + 1);
        return CAIRN_OK;
      }
  } else {
    const uint8_t *h = kind == 0 ? c->aChunk[v].aHash : c->aPay[v].aId;
    for (i = (size_t)casKeyOfHash(h) & m; t->a[i]; i = (i + 1) & m) {
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
      j = (size_t)(h ? casKeyOfHash(h) : casKeyOfName(c->aName[v].zName)) & m;
      while (t->a[j]) j = (j + 1) & m;
      t->a[j] = (uint32_t)(v + 1);
      t->nUsed++;
    }
  cairnFree(old.a);
  return CAIRN_OK;
}

/* Rebuild every table from the arrays (after open and rollback). */
int cairnCasReindex(cairn_cas *c) {
  CAIRN_TRY(tabReset(&c->tChunk, c->nChunk));
  CAIRN_TRY(tabReset(&c->tPay, c->nPay));
  CAIRN_TRY(tabReset(&c->tName, c->nName));
  for (size_t i = 0; i < c->nChunk; i++) CAIRN_TRY(cairnCasTabPut(c, &c->tChunk, 0, i));
  for (size_t i = 0; i < c->nPay; i++) CAIRN_TRY(cairnCasTabPut(c, &c->tPay, 1, i));
  for (size_t i = 0; i < c->nName; i++) CAIRN_TRY(cairnCasTabPut(c, &c->tName, 2, i));
  c->bNamesDirty = 1;
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ writing records */
int cairnCasFlush(cairn_cas *c) {
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
    CAIRN_TRY(cairnCasFlush(c));
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

void cairnCasRecHeader(uint8_t h[REC_HDR], unsigned type, uint32_t nBody, uint32_t crcBody) {
  cairnPutLE32(h, REC_TAG | type);
  cairnPutLE32(h + 4, nBody);
  cairnPutLE32(h + 8, crcBody);
  cairnPutLE32(h + 12, cairnCrc32c(0, h, 12));
}

/* Write one record: header, then the body in up to two pieces (fixed part, data). */
int cairnCasRecord(cairn_cas *c, unsigned type, const void *pA, size_t nA, const void *pB, size_t nB, uint32_t crcBody) {
  uint8_t h[REC_HDR];
  if (c->bRollbackDirty) {
    /* A rollback cut records whose commit may have reached the file; that cut is durable before
    ** anything lands in their place, so no stale commit can outlive it behind new records. */
    CAIRN_TRY(cairn_file_sync(c->f));
    c->bRollbackDirty = 0;
  }
  cairnCasRecHeader(h, type, (uint32_t)(nA + nB), crcBody);
  if (type != REC_COMMIT && type != REC_COMMIT_COPY) {
    c->txnCrc = cairnCrc32c(c->txnCrc, h, REC_HDR);
    c->nTxnRec++;
  }
  CAIRN_TRY(casWrite(c, h, REC_HDR));
  CAIRN_TRY(casWrite(c, pA, nA));
  if (nB) CAIRN_TRY(casWrite(c, pB, nB));
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ transactions */
void cairnCasDropNames(cairn_cas *c, size_t nKeep) {
  for (size_t i = nKeep; i < c->nName; i++) cairnFree(c->aName[i].zName);
  c->nName = nKeep;
}

int cairnCasRollback(cairn_cas *c) {
  int rc = CAIRN_OK;
  c->nWBuf = 0;
  if (c->iEnd != c->iCommitted && !c->readonly) {
    /* The bytes after the last commit are invisible to any reader; cutting them keeps the
    ** next transaction from writing after stale records. */
    rc = cairn_file_truncate(c->f, c->iCommitted);
    /* Make the cut durable (FORMAT.md, "Recovery rule": a commit the failed transaction may have
    ** written must not survive behind the next transaction's records); if this sync fails, the
    ** next record written syncs first. */
    if (rc == CAIRN_OK && !c->noSync && !c->bMemory) c->bRollbackDirty = cairn_file_sync(c->f) != CAIRN_OK;
  }
  c->iEnd = c->txnStart = c->iCommitted;
  if (c->iSynced > c->iCommitted) c->iSynced = c->iCommitted;
  c->nChunk = c->nChunkC;
  c->nPay = c->nPayC;
  cairnCasDropNames(c, c->nNameC);
  c->nTxnRec = 0;
  c->txnCrc = 0;
  c->txnErr = CAIRN_OK;
  c->bExplicit = 0;
  int rc2 = cairnCasReindex(c);
  return rc ? rc : rc2;
}

int cairnCasTxnCheck(cairn_cas *c) {
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
  CAIRN_TRY(cairnCasFlush(c));
  if (!c->noSync) CAIRN_TRY(cairn_file_sync(c->f));
  cairnAssert(c->iCommitted <= c->txnStart && c->txnStart < c->iEnd); /* the transaction follows the last commit */
  uint8_t b[COMMIT_BODY];
  cairnPutLE64(b, c->seq + 1);
  cairnPutLE64(b + 8, c->txnStart);
  cairnPutLE32(b + 16, c->nTxnRec);
  cairnPutLE32(b + 20, c->txnCrc);
  cairnPutLE64(b + 24, (uint64_t)cairnClock(0));
  uint32_t crcB = cairnCrc32c(0, b, sizeof b);
  CAIRN_TRY(cairnCasRecord(c, REC_COMMIT, b, sizeof b, NULL, 0, crcB));
  /* Version 2: a copy right behind it, in the same write. One flipped bit in the last commit
  ** would otherwise look like a commit torn by a power loss, and the next writer would cut a
  ** transaction that was acknowledged (FORMAT.md, "Commit"). */
  if (c->version >= 2) CAIRN_TRY(cairnCasRecord(c, REC_COMMIT_COPY, b, sizeof b, NULL, 0, crcB));
  CAIRN_TRY(cairnCasFlush(c));
  if (!c->noSync) CAIRN_TRY(cairn_file_sync(c->f));
  c->seq++; /* the COMMIT just written carries seq + 1: sequence numbers go up by one */
  memcpy(c->aLastCommit, b, sizeof b);
  c->bLastCopied = c->version >= 2;
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
  CAIRN_TRY(cairnCasTxnCheck(c));
  if (c->bExplicit) return cairnErr(CAIRN_MISUSE, "cairn_cas_begin: a transaction is already open");
  c->bExplicit = 1;
  return CAIRN_OK;
}

int cairn_cas_commit(cairn_cas *c) {
  if (!c) return cairnErr(CAIRN_MISUSE, "cairn_cas_commit: NULL store");
  if (!c->bExplicit) return cairnErr(CAIRN_MISUSE, "cairn_cas_commit: no transaction is open");
  CAIRN_TRY(cairnCasTxnCheck(c));
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
  return cairnCasRollback(c);
}

/* Every publishing call: in autocommit mode it commits itself, or rolls back on error; in an
** explicit transaction an error sticks until rollback. */
int cairnCasEndOp(cairn_cas *c, int rc) {
  if (c->bExplicit) {
    if (rc) c->txnErr = rc;
    return rc;
  }
  if (rc == CAIRN_OK) rc = casCommit(c);
  if (rc) {
    char zMsg[512];
    memcpy(zMsg, cairn_errmsg(), sizeof zMsg);
    zMsg[sizeof zMsg - 1] = 0;
    cairnCasRollback(c);
    cairnErr(rc, "%s", zMsg);
  }
  return rc;
}

