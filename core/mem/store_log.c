/*
** 2026-12-02
**
** core/mem/store_log.c - the write-ahead log of the memory store: the pending-record buffer,
** IVF records, commit (one write and a sync), and replay on open (two passes: find the end of
** the last COMMIT, then apply up to it).
*/
#include "mem_int.h"

/* ------------------------------------------------------------------ log writing */
/* Room for nMore bytes of pending records (memRecBegin calls it when the buffer is full). */
int cairnMemPendGrow(cairn_mem *m, size_t nMore) {
  cairnAssert(m->nPend <= m->nPendAlloc);
  return cairnArrayReserve(&m->pPend, &m->nPendAlloc, m->nPend + nMore, 1, 65536 /* the first buffer: 64 KiB */, "log buffer");
}
/* ------------------------------------------------------------------ IVF record */
static int logIvf(cairn_mem *m) {
  MemIvf *ix = &m->ivf;
  uint64_t n = 4 * 6 + 8, t;
  uint64_t nCent = (uint64_t)ix->nlist * ix->dim * 4, nPq = (uint64_t)ix->m * 256 * ix->dsub * 4;
  n += nCent + nPq + (uint64_t)ix->nAssigned * 4 + (uint64_t)ix->nAssigned * ix->m;
  if (n > MEM_REC_MAX) return cairnErr(CAIRN_RANGE, "commit: IVF record of %llu bytes", (unsigned long long)n);
  (void)t;
  uint8_t *p = memRecBegin(m, MEM_REC_IVF, (size_t)n);
  if (!p) return CAIRN_NOMEM;
  MemWr w = {p, 0};
  memWU32(&w, (uint32_t)ix->kind);
  memWU32(&w, ix->dim);
  memWU32(&w, ix->nlist);
  memWU32(&w, ix->m);
  memWU32(&w, ix->dsub);
  memWU32(&w, (uint32_t)ix->metric);
  memWU64(&w, ix->nAssigned);
  for (uint64_t i = 0; i < (uint64_t)ix->nlist * ix->dim; i++) memWF32(&w, ix->aCent[i]);
  for (uint64_t i = 0; i < (uint64_t)ix->m * 256 * ix->dsub; i++) memWF32(&w, ix->aPq[i]);
  for (size_t i = 0; i < ix->nAssigned; i++) memWU32(&w, ix->aAssign[i]);
  if (ix->m) memWBytes(&w, ix->aCode, ix->nAssigned * ix->m);
  cairnAssert(w.i == n);
  memRecEnd(m, (size_t)n);
  return CAIRN_OK;
}

static int replayIvf(cairn_mem *m, MemRd *r, uint64_t off) {
  MemIvf nx;
  memset(&nx, 0, sizeof nx);
  nx.kind = (int)memRU32(r);
  nx.dim = memRU32(r), nx.nlist = memRU32(r), nx.m = memRU32(r), nx.dsub = memRU32(r);
  nx.metric = (int)memRU32(r);
  uint64_t nAs = memRU64(r);
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
  for (uint64_t i = 0; i < (uint64_t)nx.nlist * nx.dim; i++) nx.aCent[i] = memRF32(r);
  for (uint64_t i = 0; i < (uint64_t)nx.m * 256 * nx.dsub; i++) nx.aPq[i] = memRF32(r);
  for (uint64_t i = 0; i < nAs; i++) {
    nx.aAssign[i] = memRU32(r);
    if (nx.aAssign[i] >= nx.nlist) {
      cairnIvfFree(&nx);
      return cairnErr(CAIRN_CORRUPT, "log: IVF list %u >= %u at offset %llu", nx.aAssign[i], nx.nlist, (unsigned long long)off);
    }
  }
  if (nx.m) memcpy(nx.aCode, memRBytes(r, nAs * nx.m), nAs * nx.m);
  for (uint32_t c = 0; c < nx.nlist; c++) {
    float *ct = nx.aCent + (size_t)c * nx.dim;
    if (!memIsFinite(ct[0])) {
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
  if (m->modelUnlogged) {
    size_t n = strlen(m->zModel);
    uint8_t *q = memRecBegin(m, MEM_REC_MODEL, n);
    if (!q) return CAIRN_NOMEM;
    memcpy(q, m->zModel, n);
    memRecEnd(m, n);
    m->modelUnlogged = 0;
  }
  if (m->nPend == 0 && m->nCommitted == m->n) return CAIRN_OK;
  uint8_t *p = memRecBegin(m, MEM_REC_COMMIT, 16);
  if (!p) {
    m->nPend = nPend0;
    return CAIRN_NOMEM;
  }
  MemWr w = {p, 0};
  memWU64(&w, m->n);
  memWU64(&w, (uint64_t)cairnClock(0));
  memRecEnd(m, 16);
  /* One write then a sync: a crash before the sync leaves either nothing or a prefix whose
  ** checksums fail, and replay stops at the previous COMMIT. The pending bytes stay until
  ** the write succeeded, so a failed commit can be retried at the same offset. */
  int rc = cairn_file_write(m->f, m->pPend, m->nPend, m->nFile);
  if (rc == CAIRN_OK && !m->noSync) rc = cairn_file_sync(m->f);
  if (rc) {
    m->nPend = nPend0; /* drop the COMMIT (and IVF) record; the adds stay pending */
    return rc;
  }
  cairnAssert(m->nFile >= m->logStart);
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
    if (cairnMemCheckpointRun(m) != CAIRN_OK) {
      m->ckRetryAt = m->n + m->ckEvery;
      cairn_clearerr();
    }
  }
  return CAIRN_OK;
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
  size_t nWant = (size_t)CAIRN_MIN((uint64_t)want, avail), nRead = 0;
  /* A short read: the file was cut meanwhile (a writer dropping a torn tail beside a reader):
  ** the log ends there (the host zero-fills the rest). */
  CAIRN_TRY(cairn_file_read(r->f, r->buf, nWant, off, &nRead));
  if (nRead < nWant) r->size = off + nRead;
  r->bufOff = off, r->nValid = nRead;
  if (n > nRead) return CAIRN_NOTFOUND;
  *pp = r->buf;
  return CAIRN_OK;
}

/* Read the record at off: CAIRN_OK with its type/payload, or CAIRN_NOTFOUND if it is torn or
** its checksum fails (the log ends there). */
static int logRecord(LogRd *r, uint64_t off, uint8_t *pType, const uint8_t **pPay, size_t *pn) {
  const uint8_t *p = NULL;
  if (off > r->size || r->size - off < 9) return CAIRN_NOTFOUND;
  CAIRN_TRY(logFetch(r, off, 5, &p));
  uint32_t len = cairnGetLE32(p);
  if ((uint64_t)len + 9 > r->size - off || len > MEM_REC_MAX) return CAIRN_NOTFOUND;
  CAIRN_TRY(logFetch(r, off, (size_t)len + 9, &p));
  if (cairnCrc32c(0, p, (size_t)len + 5) != cairnGetLE32(p + 5 + len)) return CAIRN_NOTFOUND;
  *pType = p[4];
  *pPay = p + 5;
  *pn = len;
  return CAIRN_OK;
}

static int replayAdd(cairn_mem *m, const uint8_t *p, size_t n, uint64_t off, int type) {
  MemRd r = {p, 0, n, 0};
  MemAddArgs a;
  memset(&a, 0, sizeof a);
  uint64_t id = memRU64(&r);
  a.created = (int64_t)memRU64(&r);
  a.event = (int64_t)memRU64(&r);
  a.tier = (int32_t)memRU32(&r);
  a.imp = memRF32(&r);
  a.access = memRU32(&r);
  a.nText = memRU32(&r);
  a.zText = (const char *)memRBytes(&r, a.nText);
  a.nSession = memRU16(&r);
  a.zSession = (const char *)memRBytes(&r, a.nSession);
  a.nRole = memRU16(&r);
  a.zRole = (const char *)memRBytes(&r, a.nRole);
  a.nMeta = memRU32(&r);
  a.zMeta = (const char *)memRBytes(&r, a.nMeta);
  uint8_t enc = memRU8(&r);
  size_t nVec = enc == 0 ? (size_t)m->dim * 4 : enc == 2 ? (size_t)m->dim * 2 : enc == 3 ? 4 + (size_t)m->dim : 0;
  const uint8_t *pv = nVec ? memRBytes(&r, nVec) : NULL;
  if (type == MEM_REC_ADD2) {
    a.head = memRU64(&r);
    a.from = (int64_t)memRU64(&r);
    a.to = (int64_t)memRU64(&r);
    a.flags = memRU8(&r);
    a.nUser = memRU16(&r);
    a.zUser = (const char *)memRBytes(&r, a.nUser);
    a.nAgent = memRU16(&r);
    a.zAgent = (const char *)memRBytes(&r, a.nAgent);
    if (a.head == id) a.head = 0;
  }
  int dead = (a.flags & MEM_ROW_DEAD) != 0;
  if (r.bad || r.i != n || (enc != memVecEncByte(m) && !(dead && enc == 1)) || a.flags > MEM_ROW_DEAD || a.nUser > CAIRN_MEM_MAX_NAME ||
      a.nAgent > CAIRN_MEM_MAX_NAME)
    return cairnErr(CAIRN_CORRUPT, "log: malformed ADD record at offset %llu", (unsigned long long)off);
  if (id != (uint64_t)m->n + 1 && !m->pVer)
    return cairnErr(CAIRN_CORRUPT, "log: ADD of id %llu where %llu was expected at offset %llu", (unsigned long long)id,
                    (unsigned long long)m->n + 1, (unsigned long long)off);
  if ((a.nText == 0 && !dead) || a.nText > CAIRN_MEM_MAX_TEXT || a.nMeta > CAIRN_MEM_MAX_META || a.tier < 0 || a.tier > 31 ||
      a.nSession > CAIRN_MEM_MAX_NAME || a.nRole > CAIRN_MEM_MAX_NAME || !memIsFinite(a.imp))
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
    if (!memIsFinite(v[j])) return cairnErr(CAIRN_CORRUPT, "log: non-finite vector in ADD record at offset %llu", (unsigned long long)off);
  }
  a.aVec = pv ? v : NULL;
  return m->pVer ? cairnMemApplySalvaged(m, &a, id) : cairnMemApplyAdd(m, &a);
}

/* ------------------------------------------------------------------ damage or torn tail */
/* The first record that fails at x (torn, bad length, bad checksum): is it damage inside the
** committed log, or the tail of a commit a crash interrupted (FORMAT.md "Damage")? A commit is
** one write ending in its COMMIT record, synced before the next one starts, so a crash leaves
** at most one unfinished write, a prefix of its bytes (or garbage). Hence damage when (1) a
** valid COMMIT record follows x anywhere (committed data lies past the bad spot), or (2) the
** file ends in a whole COMMIT record (25 bytes) with at most one bit wrong: the last write
** was complete, so a record inside it was damaged, not torn. *pAt receives the offset of the
** COMMIT that proves it. */
static const uint8_t memCommitHdr[5] = {16, 0, 0, 0, MEM_REC_COMMIT};
static int commitAt(const uint8_t *p) { return memcmp(p, memCommitHdr, 5) == 0 && cairnCrc32c(0, p, 21) == cairnGetLE32(p + 21); }
static int logDamageAfter(LogRd *r, uint64_t x, uint64_t *pAt, int *pDamage) {
  *pDamage = 0;
  const size_t nWin = (size_t)1 << 20;
  for (uint64_t p = x + 1; p + 25 <= r->size;) {
    size_t n = (size_t)CAIRN_MIN((uint64_t)nWin, r->size - p);
    const uint8_t *b = NULL;
    int rc = logFetch(r, p, n, &b);
    if (rc == CAIRN_NOTFOUND) break; /* the file got shorter */
    CAIRN_TRY(rc);
    for (size_t i = 0; i + 25 <= n; i++)
      if (b[i] == 16 && commitAt(b + i)) {
        *pAt = p + i, *pDamage = 1;
        return CAIRN_OK;
      }
    if (p + n >= r->size) break;
    p += n - 24;
  }
  if (r->size >= 25 && r->size - 25 >= x) {
    const uint8_t *b = NULL;
    int rc = logFetch(r, r->size - 25, 25, &b);
    if (rc == CAIRN_NOTFOUND) return CAIRN_OK;
    CAIRN_TRY(rc);
    uint8_t c[25];
    memcpy(c, b, 25);
    int nBit = 0;
    for (int i = 0; i < 5; i++)
      for (uint8_t d = (uint8_t)(c[i] ^ memCommitHdr[i]); d; d &= (uint8_t)(d - 1)) nBit++;
    memcpy(c, memCommitHdr, 5);
    if (nBit == 0 || (nBit == 1 && commitAt(c))) *pAt = r->size - 25, *pDamage = 1;
  }
  return CAIRN_OK;
}

/* Could a record of this type and length be one cairn wrote? (salvage's resync, before the
** checksum) */
static int logPlausible(const cairn_mem *m, uint8_t type, uint64_t len) {
  uint64_t maxAdd = 45 + CAIRN_MEM_MAX_TEXT + 2 * CAIRN_MEM_MAX_NAME + CAIRN_MEM_MAX_META + 4 + (uint64_t)m->dim * 4;
  return (type == MEM_REC_COMMIT && len == 16) || (type == MEM_REC_TOUCH && len == 12) || (type == MEM_REC_END && len == 16) ||
         (type == MEM_REC_FORGET && len == 8) || (type == MEM_REC_MODEL && len >= 1 && len < 256) || ((type == MEM_REC_ADD || type == MEM_REC_ADD2) && len >= 45 && len <= maxAdd + 29 + 2 * CAIRN_MEM_MAX_NAME) ||
         (type == MEM_REC_IVF && len >= 32 && len <= MEM_REC_MAX);
}
/* salvage: the next offset > x where a valid record starts (r->size if none). */
static int logResync(cairn_mem *m, LogRd *r, uint64_t x, uint64_t *pNext) {
  for (uint64_t p = x + 1; p + 9 <= r->size; p++) {
    const uint8_t *b = NULL;
    int rc = logFetch(r, p, 5, &b);
    if (rc == CAIRN_NOTFOUND) break;
    CAIRN_TRY(rc);
    if (!logPlausible(m, b[4], cairnGetLE32(b))) continue;
    uint8_t type;
    const uint8_t *pay;
    size_t n;
    rc = logRecord(r, p, &type, &pay, &n);
    if (rc == CAIRN_OK) {
      *pNext = p;
      return CAIRN_OK;
    }
    if (rc != CAIRN_NOTFOUND) return rc;
  }
  *pNext = r->size;
  return CAIRN_OK;
}

static int replayAdd(cairn_mem *m, const uint8_t *p, size_t n, uint64_t off, int type);

/* verify / salvage: every record that verifies, in order; damaged stretches are skipped (and
** noted), ADDs whose id is already there are skipped, ids need not follow each other. What a
** valid COMMIT follows is committed; so is the last write when its COMMIT is merely damaged. */
static int logSalvage(cairn_mem *m, LogRd *r) {
  uint64_t off = m->logStart, end = m->logStart, nMax = 0;
  int rc = CAIRN_OK, bDamaged = 0;
  char z[160];
  for (int pass = 0; pass < 2 && rc == CAIRN_OK; pass++) {
    uint64_t stop = pass ? end : r->size;
    for (off = m->logStart; rc == CAIRN_OK && off < stop;) {
      uint8_t type = 0;
      const uint8_t *p = NULL;
      size_t n = 0;
      rc = logRecord(r, off, &type, &p, &n);
      if (rc == CAIRN_NOTFOUND) {
        rc = CAIRN_OK;
        uint64_t next = 0, at = 0;
        int dmg = 0;
        if (pass == 0) {
          rc = logDamageAfter(r, off, &at, &dmg);
          if (rc) break;
          if (dmg) {
            cairnFormat(z, sizeof z, "log: record at offset %llu fails its checksum, committed records follow (COMMIT at offset %llu)",
                        (unsigned long long)off, (unsigned long long)at);
            cairnMemNoteDamage(m, off, z);
            bDamaged = 1;
          }
        }
        if (!dmg && pass == 0 && !bDamaged) break; /* a torn tail: the log ends here */
        rc = logResync(m, r, off, &next);
        if (pass == 0 && dmg && at + 25 == r->size) end = r->size; /* the last write was whole */
        off = next;
        continue;
      }
      if (rc) break;
      if (pass == 0) {
        if (type == MEM_REC_COMMIT) end = off + n + 9;
      } else if ((type == MEM_REC_ADD || type == MEM_REC_ADD2) && n >= 8) {
        uint64_t id = cairnGetLE64(p);
        uint64_t nHave = m->n ? m->aOrigId[m->n - 1] : 0;
        if (id > nHave) {
          nMax = CAIRN_MAX(nMax, id);
          int rc2 = replayAdd(m, p, n, off, type); /* salvage: applies through cairnMemApplySalvaged */
          if (rc2 && CAIRN_PRIMARY(rc2) == CAIRN_CORRUPT) {
            cairnFormat(z, sizeof z, "%s", cairn_errmsg());
            cairnMemNoteDamage(m, off, z);
            cairn_clearerr();
          } else rc = rc2;
        }
      } else if (type == MEM_REC_TOUCH && n == 12) {
        size_t i = cairnMemSalvagedRow(m, cairnGetLE64(p));
        if (i != SIZE_MAX) m->aAccess[i] += cairnGetLE32(p + 8);
      } else if (type == MEM_REC_END && n == 16) {
        /* a version superseded: its memory's history is kept (store_verify.c) */
        size_t i = cairnMemSalvagedRow(m, cairnGetLE64(p));
        if (i != SIZE_MAX && m->aTo[i] == 0 && !(m->aFlags[i] & MEM_ROW_DEAD)) rc = cairnMemApplyEnd(m, i, (int64_t)cairnGetLE64(p + 8));
      } else if (type == MEM_REC_FORGET && n == 8) {
        size_t i = cairnMemSalvagedRow(m, cairnGetLE64(p));
        if (i != SIZE_MAX) rc = cairnMemApplyForget(m, i);
      } else if (type == MEM_REC_COMMIT && n == 16) {
        nMax = CAIRN_MAX(nMax, cairnGetLE64(p));
      }
      off += n + 9;
    }
  }
  if (rc) return rc;
  if (nMax > m->pVer->nMemory) m->pVer->nMemory = nMax;
  m->pVer->nTornBytes = r->size > end ? r->size - end : 0;
  m->nFile = end;
  return CAIRN_OK;
}

int cairnMemReplay(cairn_mem *m, uint64_t size) {
  LogRd r;
  memset(&r, 0, sizeof r);
  r.f = m->f, r.size = size;
  /* pass 1: where does the last commit end? */
  uint64_t off = m->logStart, end = m->logStart;
  int rc = CAIRN_OK;
  for (;;) {
    uint8_t type = 0;
    const uint8_t *p = NULL;
    size_t n = 0;
    rc = logRecord(&r, off, &type, &p, &n);
    if (rc == CAIRN_NOTFOUND) {
      rc = CAIRN_OK;
      break;
    }
    if (rc) break;
    off += n + 9;
    if (type == MEM_REC_COMMIT) end = off;
  }
  if (rc == CAIRN_OK && m->pVer) {
    rc = logSalvage(m, &r);
    cairnFree(r.buf);
    return rc;
  }
  if (rc == CAIRN_OK && off < r.size) {
    /* a record fails at off: damage (committed data follows) or a torn tail? */
    uint64_t at = 0;
    int dmg = 0;
    rc = logDamageAfter(&r, off, &at, &dmg);
    if (rc == CAIRN_OK && dmg)
      rc = cairnErr(CAIRN_CORRUPT, "log: record at offset %llu fails its checksum but committed records follow it (COMMIT at offset %llu): "
                    "damage, not a torn tail (cairn mem verify / salvage)", (unsigned long long)off, (unsigned long long)at);
  }
  cairnAssert(rc || (end >= m->logStart && end <= off && off <= size));
  /* pass 2: apply up to there */
  off = m->logStart;
  while (rc == CAIRN_OK && off < end) {
    uint8_t type = 0;
    const uint8_t *p = NULL;
    size_t n = 0;
    rc = logRecord(&r, off, &type, &p, &n);
    if (rc == CAIRN_NOTFOUND) rc = cairnErr(CAIRN_CORRUPT, "log: record at offset %llu changed while reading", (unsigned long long)off);
    if (rc) break;
    if ((type == MEM_REC_ADD || type == MEM_REC_ADD2) && n >= 8 && cairnGetLE64(p) <= m->nCk && m->nCk == m->n) {
      /* already in the checkpoint */
    } else if (type == MEM_REC_ADD || type == MEM_REC_ADD2) rc = replayAdd(m, p, n, off, type);
    else if (type == MEM_REC_END || type == MEM_REC_FORGET) {
      MemRd d = {p, 0, n, 0};
      uint64_t id = memRU64(&d);
      int64_t to = type == MEM_REC_END ? (int64_t)memRU64(&d) : 0;
      if (d.bad || d.i != n || id == 0 || id > m->n)
        rc = cairnErr(CAIRN_CORRUPT, "log: %s of unknown version at offset %llu", type == MEM_REC_END ? "END" : "FORGET", (unsigned long long)off);
      else if (type == MEM_REC_FORGET) rc = cairnMemApplyForget(m, (size_t)id - 1);
      else if (m->aTo[id - 1] != to) rc = cairnMemApplyEnd(m, (size_t)id - 1, to); /* the same END again: in the checkpoint already */
      if (rc && CAIRN_PRIMARY(rc) == CAIRN_CORRUPT) rc = cairnErr(CAIRN_CORRUPT, "log: record at offset %llu: %s", (unsigned long long)off, cairn_errmsg());
    }
    else if (type == MEM_REC_TOUCH) {
      MemRd d = {p, 0, n, 0};
      uint64_t id = memRU64(&d);
      uint32_t k = memRU32(&d);
      if (d.bad || id == 0 || id > m->n) rc = cairnErr(CAIRN_CORRUPT, "log: TOUCH of unknown id at offset %llu", (unsigned long long)off);
      else {
        m->aAccess[id - 1] += k;
        if (id - 1 < m->nCk && id - 1 < m->touchMin) m->touchMin = (size_t)id - 1;
      }
    } else if (type == MEM_REC_COMMIT) {
      MemRd d = {p, 0, n, 0};
      uint64_t nRec = memRU64(&d);
      if (d.bad || (nRec != m->n && !(nRec < m->n && nRec <= m->nCk)))
        rc = cairnErr(CAIRN_CORRUPT, "log: COMMIT of %llu records after %llu adds at offset %llu", (unsigned long long)nRec,
                      (unsigned long long)m->n, (unsigned long long)off);
    } else if (type == MEM_REC_MODEL) {
      if (n == 0 || n >= sizeof m->zModel || memchr(p, 0, n)) rc = cairnErr(CAIRN_CORRUPT, "log: bad MODEL record at offset %llu", (unsigned long long)off);
      else memcpy(m->zModel, p, n), m->zModel[n] = 0;
    } else if (type == MEM_REC_IVF) {
      MemRd d = {p, 0, n, 0};
      rc = replayIvf(m, &d, off);
    } else rc = cairnErr(CAIRN_CORRUPT, "log: unknown record type %u at offset %llu", type, (unsigned long long)off);
    off += n + 9;
  }
  cairnAssert(rc || off == end); /* pass 2 ends on the record boundary pass 1 found */
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

