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
** workers at once (see cairnCasPlace).
*/
int cairn_cas_memory_data(cairn_cas *c, const uint8_t **pp, size_t *pn) {
  if (!c || !pp || !pn) return cairnErr(CAIRN_MISUSE, "cairn_cas_memory_data: NULL argument");
  if (!c->bOwnMem) return cairnErr(CAIRN_MISUSE, "cairn_cas_memory_data: not a memory store");
  CAIRN_TRY(cairnCasFlush(c));
  return cairn_memfile_data(c->f, pp, pn);
}

/* ------------------------------------------------------------------ open and recovery */
static void casFree(cairn_cas *c) {
  cairnCasDropNames(c, 0);
  cairnFree(c->aChunk);
  cairnFree(c->aPay);
  cairnFree(c->aName);
  cairnCasTabFree(&c->tChunk);
  cairnCasTabFree(&c->tPay);
  cairnCasTabFree(&c->tName);
  cairnFree(c->aWBuf);
  cairnFree(c->aScratch);
  cairnFree(c->cdc);
  cairnFree(c->aDamage);
  cairnFree(c);
}

int cairn_cas_close(cairn_cas *c) {
  if (!c) return CAIRN_OK;
  int rc = CAIRN_OK;
  if (c->bExplicit || c->nTxnRec) rc = cairnCasRollback(c);
  int rc2 = cairn_file_close(c->f);
  casFree(c);
  return rc ? rc : rc2;
}

cairn_file *cairn_cas_file(cairn_cas *c) { return c ? c->f : NULL; }

static void headerEncode(uint8_t h[CAS_HDR], const cairn_fastcdc_params *p) { /* a new store: the newest version */
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
  unsigned maxType; /* the highest record type of the store's version */
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
** One record at offset i, checked but not indexed: RP_OK (r filled; r->pBody points into the
** scan buffer until the next scanAt), RP_BAD (the record is all there and does not check),
** RP_SHORT (it runs past the end of the file, or its header does: only a torn tail does that,
** since a well-formed header's body length is what the writer wrote). For a chunk only the
** fixed part is read (its data is checked against its SHA-256 on every read).
*/
enum { RP_OK, RP_BAD, RP_SHORT };
typedef struct RecInfo {
  unsigned type;
  uint32_t nBody;
  uint64_t iNext;
  const uint8_t *pBody;
  uint8_t aHdr[REC_HDR];
  uint8_t aId[32]; /* manifest: its ID as computed */
} RecInfo;
static int recParse(ScanBuf *b, uint64_t i, RecInfo *r, int *pRc) {
  const uint8_t *h = scanAt(b, i, REC_HDR, pRc);
  if (!h) return *pRc ? RP_BAD : RP_SHORT;
  uint32_t tag = cairnGetLE32(h), nBody = cairnGetLE32(h + 4), crcBody = cairnGetLE32(h + 8);
  if (cairnGetLE32(h + 12) != cairnCrc32c(0, h, 12) || (tag & 0xffff0000u) != REC_TAG || (tag & 0xffff) > b->maxType) return RP_BAD;
  memcpy(r->aHdr, h, REC_HDR);
  r->type = tag & 0xffff;
  r->nBody = nBody;
  uint64_t iBody = i + REC_HDR;
  r->iNext = iBody + nBody;
  if (r->iNext > b->nFile) return RP_SHORT;
  const uint8_t *m;
  switch (r->type) {
    case REC_CHUNK:
      if (nBody < CHUNK_FIXED || nBody - CHUNK_FIXED > CDC_MAX_BYTES) return RP_BAD;
      if (!(m = scanAt(b, iBody, CHUNK_FIXED, pRc)) || cairnCrc32c(0, m, CHUNK_FIXED) != crcBody) return RP_BAD;
      {
        uint32_t nRaw = cairnGetLE32(m + 32), nStored = nBody - CHUNK_FIXED;
        uint8_t codec = m[36];
        if (nRaw > CDC_MAX_BYTES || !(codec == 0 ? nStored == nRaw : (codec == CAIRN_ZSTD || codec == CAIRN_DEFLATE))) return RP_BAD;
      }
      break;
    case REC_MANIFEST:
      if (nBody < MANI_FIXED || nBody > MANI_MAX_BODY || (nBody - MANI_FIXED) % MANI_ENTRY != 0) return RP_BAD;
      if (!(m = scanAt(b, iBody, nBody, pRc)) || cairnCrc32c(0, m, nBody) != crcBody || memcmp(m + 40, MANI_TAG, 8) != 0 ||
          cairnGetLE32(m + 56) != (nBody - MANI_FIXED) / MANI_ENTRY)
        return RP_BAD;
      cairn_sha256(m + 40, nBody - 40, r->aId);
      if (memcmp(r->aId, m, 32) != 0) return RP_BAD;
      break;
    case REC_NAME:
      if (nBody <= NAME_FIXED || nBody > NAME_FIXED + NAME_MAX_LEN) return RP_BAD;
      if (!(m = scanAt(b, iBody, nBody, pRc)) || cairnCrc32c(0, m, nBody) != crcBody || cairnGetLE32(m + 44) != nBody - NAME_FIXED ||
          memchr(m + NAME_FIXED, 0, nBody - NAME_FIXED) != NULL)
        return RP_BAD;
      break;
    case REC_COMMIT:
    case REC_COMMIT_COPY:
      if (nBody != COMMIT_BODY) return RP_BAD;
      if (!(m = scanAt(b, iBody, nBody, pRc)) || cairnCrc32c(0, m, nBody) != crcBody) return RP_BAD;
      break;
    default:
      return RP_BAD;
  }
  r->pBody = m;
  return RP_OK;
}

/* Add a checked record to the index (pending until its commit counts). */
static int recIndex(cairn_cas *c, uint64_t i, const RecInfo *r) {
  const uint8_t *m = r->pBody;
  if (r->type == REC_CHUNK) {
    CasChunk *k = casGrowOne(&c->aChunk, &c->nChunkAlloc, c->nChunk, sizeof(CasChunk));
    if (!k) return cairnErr(CAIRN_NOMEM, "store: out of memory");
    memcpy(k->aHash, m, 32);
    k->iOff = i, k->nStored = r->nBody - CHUNK_FIXED, k->nRaw = cairnGetLE32(m + 32), k->codec = m[36];
    c->nChunk++;
  } else if (r->type == REC_MANIFEST) {
    CasPay *y = casGrowOne(&c->aPay, &c->nPayAlloc, c->nPay, sizeof(CasPay));
    if (!y) return cairnErr(CAIRN_NOMEM, "store: out of memory");
    memcpy(y->aId, r->aId, 32);
    y->iOff = i, y->nSize = cairnGetLE64(m + 48), y->nChunk = cairnGetLE32(m + 56), y->nBody = r->nBody;
    y->iTime = (int64_t)cairnGetLE64(m + 32), y->iName = -1;
    c->nPay++;
  } else if (r->type == REC_NAME) {
    CasName *e = casGrowOne(&c->aName, &c->nNameAlloc, c->nName, sizeof(CasName));
    size_t k = r->nBody - NAME_FIXED;
    char *z = e ? cairnMalloc(k + 1) : NULL;
    if (!z) return cairnErr(CAIRN_NOMEM, "store: out of memory");
    memcpy(z, m + NAME_FIXED, k);
    z[k] = 0;
    e->zName = z;
    memcpy(e->aId, m, 32);
    e->iTime = (int64_t)cairnGetLE64(m + 32);
    e->bDelete = cairnGetLE32(m + 40) & 1;
    c->nName++;
  }
  return CAIRN_OK;
}

/*
** Is there, anywhere in [i, end of file), a well-formed commit record (both CRCs right) with a
** sequence number above seq whose transaction starts in [iCommitted, its own offset)? That is
** committed data after the bad record at i-1: damage, not a torn tail (FORMAT.md). A commit is
** written only after every record before it was synced, so a crash cannot leave one behind a
** record it tore. The search is a byte-wise scan for the commit tag, on the damage path only.
*/
static int findLaterCommit(ScanBuf *b, uint64_t i, uint64_t seq, uint64_t iCommitted, uint64_t *pSeq, uint64_t *pAt, int *pRc) {
  enum { NREC = REC_HDR + COMMIT_BODY };
  while (i + NREC <= b->nFile) {
    /* A block of the file at a time; candidates are found by the tag's top byte (0xCA at +3). */
    size_t nBlk = (size_t)CAIRN_MIN((uint64_t)b->nAlloc, b->nFile - i);
    const uint8_t *blk = scanAt(b, i, nBlk, pRc);
    if (!blk) return 0;
    size_t nCand = nBlk - NREC + 1; /* candidate starts in this block */
    for (size_t j = 0; j < nCand;) {
      const uint8_t *q = memchr(blk + j + 3, 0xCA, nCand - j);
      if (!q) break;
      const uint8_t *h = q - 3, *m = h + REC_HDR;
      j = (size_t)(h - blk) + 1;
      if (h[2] != 0x5E || h[1] != 0 || (h[0] != REC_COMMIT && !(h[0] == REC_COMMIT_COPY && b->maxType >= REC_COMMIT_COPY)) ||
          cairnGetLE32(h + 4) != COMMIT_BODY)
        continue;
      if (cairnGetLE32(h + 12) != cairnCrc32c(0, h, 12) || cairnGetLE32(h + 8) != cairnCrc32c(0, m, COMMIT_BODY)) continue;
      uint64_t at = i + (uint64_t)(h - blk), s = cairnGetLE64(m), t = cairnGetLE64(m + 8);
      if (s > seq && t >= iCommitted && t < at) {
        *pSeq = s, *pAt = at;
        return 1;
      }
    }
    i += nCand;
  }
  return 0;
}

/* The next offset after i where a record that checks starts (resynchronizing past damage), or 0. */
static uint64_t findNextRecord(ScanBuf *b, uint64_t i, int *pRc) {
  RecInfo r;
  while (i + REC_HDR <= b->nFile) {
    size_t nBlk = (size_t)CAIRN_MIN((uint64_t)b->nAlloc, b->nFile - i);
    const uint8_t *blk = scanAt(b, i, nBlk, pRc);
    if (!blk) return 0;
    size_t nCand = nBlk - REC_HDR + 1, j = 0;
    uint64_t iHit = 0;
    for (; j < nCand && !iHit;) {
      const uint8_t *q = memchr(blk + j + 3, 0xCA, nCand - j);
      if (!q) break;
      const uint8_t *h = q - 3;
      j = (size_t)(h - blk) + 1;
      if (h[2] != 0x5E || h[1] != 0 || h[0] < REC_CHUNK || h[0] > b->maxType || cairnGetLE32(h + 12) != cairnCrc32c(0, h, 12)) continue;
      iHit = i + (uint64_t)(h - blk);
    }
    if (iHit) {
      /* recParse moves the buffer: check, then go on after the candidate. */
      if (recParse(b, iHit, &r, pRc) == RP_OK) return iHit;
      if (*pRc) return 0;
      i = iHit + 1;
      continue;
    }
    i += nCand;
  }
  return 0;
}

/* What the bad record at i is, as far as its bytes tell (for messages; nothing is trusted). */
static void describeBad(ScanBuf *b, uint64_t i, char *z, size_t n) {
  static const char *const azType[] = {"record", "chunk record", "manifest record", "name record", "commit record", "commit copy record"};
  int rc = CAIRN_OK;
  const uint8_t *h = scanAt(b, i, REC_HDR, &rc);
  if (!h) {
    cairnFormat(z, n, "the record at file offset %llu", (unsigned long long)i);
    return;
  }
  uint32_t tag = cairnGetLE32(h), nBody = cairnGetLE32(h + 4);
  unsigned t = (tag & 0xffff0000u) == REC_TAG && (tag & 0xffff) <= b->maxType ? tag & 0xffff : 0;
  int bHdr = cairnGetLE32(h + 12) == cairnCrc32c(0, h, 12);
  if (!bHdr) {
    cairnFormat(z, n, "the %s header at file offset %llu (its checksum fails%s)", t ? azType[t] : "record", (unsigned long long)i,
                t ? "; its tag is intact" : "");
    return;
  }
  const uint8_t *m = (t == REC_CHUNK || t == REC_MANIFEST || t == REC_NAME) && nBody >= 48 ? scanAt(b, i + REC_HDR, 48, &rc) : NULL;
  char zId[65];
  if (m && t != REC_NAME) {
    cairn_hex(m, 32, zId);
    cairnFormat(z, n, "the %s at file offset %llu (%u bytes; it names %s %s, unverified)", azType[t], (unsigned long long)i, nBody,
                t == REC_CHUNK ? "chunk" : "payload", zId);
  } else if (m) {
    cairn_hex(m, 32, zId);
    cairnFormat(z, n, "the %s at file offset %llu (%u bytes; it binds a name to payload %s, unverified)", azType[t],
                (unsigned long long)i, nBody, zId);
  } else {
    cairnFormat(z, n, "the %s at file offset %llu (%u bytes)", azType[t], (unsigned long long)i, nBody);
  }
}

static int addDamage(cairn_cas *c, uint64_t iOff, uint64_t iEnd, const char *zWhat) {
  if (c->nDamage && c->aDamage[c->nDamage - 1].iEnd == iOff) {
    c->aDamage[c->nDamage - 1].iEnd = iEnd; /* one region: the resync landed on more damage */
    return CAIRN_OK;
  }
  CasDamage *d = casGrowOne(&c->aDamage, &c->nDamageAlloc, c->nDamage, sizeof(CasDamage));
  if (!d) return cairnErr(CAIRN_NOMEM, "store: out of memory");
  d->iOff = iOff, d->iEnd = iEnd;
  cairnFormat(d->zWhat, sizeof d->zWhat, "%s", zWhat);
  c->nDamage++;
  return CAIRN_OK;
}

/* Forget the records read since the last commit that counts. */
static void dropPending(cairn_cas *c) {
  c->nChunk = c->nChunkC;
  c->nPay = c->nPayC;
  cairnCasDropNames(c, c->nNameC);
}

/*
** The recovery rule (FORMAT.md): walk the records from the last commit that counts (the header,
** at open); a transaction counts once its COMMIT record is intact and agrees with what precedes
** it (sequence, start offset, record count, CRC over the record headers). The first record that
** does not check ends the log if no valid commit follows it (a torn tail: a transaction that
** never finished). If one does, the committed data is damaged: a writer gets CAIRN_CORRUPT and
** nothing is cut; a reader checks once more from its last commit (a writer may have been
** rewriting those bytes while it read them), then records the region, resynchronizes on the next
** record that checks, and from there counts every well-formed commit with a higher sequence.
*/
/* Does the record at i (where the commit of the pending transaction was due, or right behind a
** damaged one) check as that commit's copy? Then the transaction is committed by it. */
static int copyCommits(cairn_cas *c, ScanBuf *b, uint64_t i, uint64_t txStart, uint32_t nRec, uint32_t crc, RecInfo *r, int *pRc) {
  if (c->version < 2 || nRec == 0 || recParse(b, i, r, pRc) != RP_OK || r->type != REC_COMMIT_COPY) return 0;
  const uint8_t *m = r->pBody;
  return cairnGetLE64(m) == c->seq + 1 && cairnGetLE64(m + 8) == txStart && cairnGetLE32(m + 16) == nRec && cairnGetLE32(m + 20) == crc;
}

static void commitCounts(cairn_cas *c, const uint8_t *m, uint64_t iEnd, int bCopied) {
  c->seq = cairnGetLE64(m);
  c->iCommitted = iEnd;
  memcpy(c->aLastCommit, m, COMMIT_BODY);
  c->bLastCopied = bCopied;
  c->nChunkC = c->nChunk, c->nPayC = c->nPay, c->nNameC = c->nName;
}

static int casScan(cairn_cas *c, uint64_t nFile) {
  ScanBuf b = {c->f, nFile, NULL, 256 << 10, 0, 0, c->version >= 2 ? REC_COMMIT_COPY : REC_COMMIT};
  b.a = cairnMalloc(b.nAlloc);
  if (!b.a) return cairnErr(CAIRN_NOMEM, "store: out of memory");
  int rc = CAIRN_OK, bRetried = 0;
  uint64_t i = c->iCommitted, txStart = c->iCommitted;
  uint32_t nRec = 0, crc = 0;
  RecInfo r;
  c->iBadCommit = 0;
  c->bBadIsCopy = 0;
  for (;;) {
    int k = recParse(&b, i, &r, &rc);
    if (rc || k == RP_SHORT) break;
    if (k == RP_OK && r.type == REC_COMMIT_COPY) {
      /* A copy counts where its commit did not: right after it (skipped here), or as the last
      ** commit's copy a writer appended since this handle's last scan, or past damage. */
      if (nRec == 0 && !c->bLastCopied && i == c->iCommitted && memcmp(r.pBody, c->aLastCommit, COMMIT_BODY) == 0) {
        c->iCommitted = txStart = i = r.iNext;
        c->bLastCopied = 1;
        continue;
      }
      if (c->bLenient && cairnGetLE64(r.pBody) > c->seq) {
        commitCounts(c, r.pBody, r.iNext, 1);
        txStart = i = r.iNext;
        nRec = 0, crc = 0;
        continue;
      }
      k = RP_BAD;
    }
    if (k == RP_OK && r.type == REC_COMMIT) {
      const uint8_t *m = r.pBody;
      uint64_t seq = cairnGetLE64(m);
      int bChains = seq == c->seq + 1 && cairnGetLE64(m + 8) == txStart && cairnGetLE32(m + 16) == nRec &&
                    cairnGetLE32(m + 20) == crc && nRec > 0;
      if (bChains || (c->bLenient && seq > c->seq)) {
        uint8_t body[COMMIT_BODY];
        memcpy(body, m, COMMIT_BODY);
        uint64_t iEnd = r.iNext;
        int bCopied = 0;
        if (c->version >= 2) { /* its copy, right behind it */
          RecInfo q;
          int kq = recParse(&b, iEnd, &q, &rc);
          if (rc) break;
          if (kq == RP_OK && q.type == REC_COMMIT_COPY && memcmp(q.pBody, body, COMMIT_BODY) == 0) iEnd = q.iNext, bCopied = 1;
        }
        commitCounts(c, body, iEnd, bCopied);
        txStart = i = iEnd;
        nRec = 0, crc = 0;
        continue;
      }
      k = RP_BAD; /* a commit out of sequence: a stale one, or damage in front of it */
    }
    if (k == RP_OK) {
      if ((rc = recIndex(c, i, &r)) != CAIRN_OK) break;
      crc = cairnCrc32c(crc, r.aHdr, REC_HDR);
      nRec++;
      i = r.iNext;
      continue;
    }
    /* A bad record at i where the transaction's commit was due, and its copy behind it checks:
    ** the commit is damaged (or torn by a power loss that wrote the copy's sector), the
    ** transaction committed. A reader reports the damage; a writer rewrites the commit from
    ** its copy. */
    if (copyCommits(c, &b, i + REC_HDR + COMMIT_BODY, txStart, nRec, crc, &r, &rc)) {
      uint8_t rec[REC_HDR + COMMIT_BODY];
      memcpy(rec + REC_HDR, r.pBody, COMMIT_BODY);
      cairnCasRecHeader(rec, REC_COMMIT, COMMIT_BODY, cairnCrc32c(0, rec + REC_HDR, COMMIT_BODY));
      uint64_t iEnd = r.iNext;
      if (c->readonly) {
        char zWhat[200];
        cairnFormat(zWhat, sizeof zWhat, "commit %llu's record at file offset %llu (its copy at %llu is intact: nothing is lost)",
                    (unsigned long long)(c->seq + 1), (unsigned long long)i, (unsigned long long)(i + REC_HDR + COMMIT_BODY));
        if ((rc = addDamage(c, i, i + REC_HDR + COMMIT_BODY, zWhat)) != CAIRN_OK) break;
      } else {
        if ((rc = cairn_file_write(c->f, rec, sizeof rec, i)) != CAIRN_OK) break;
        c->bRepaired = 1;
        b.nA = 0; /* the scan buffer held the old bytes */
      }
      commitCounts(c, rec + REC_HDR, iEnd, 1);
      txStart = i = iEnd;
      nRec = 0, crc = 0;
      continue;
    }
    if (rc) break;
    /* A torn tail, or damage? */
    uint64_t seqLater = 0, iLater = 0;
    if (!findLaterCommit(&b, i + 1, c->seq, c->iCommitted, &seqLater, &iLater, &rc)) {
      /* A torn tail. One that is whole records and then exactly a commit's 48 bytes that fail (or
      ** 96: the commit and its copy) is a commit damaged after the fact or torn by a power loss;
      ** 48 bytes that fail right after a commit that counts are its copy, damaged or torn:
      ** verify says so. */
      if (rc) break;
      if (nRec > 0 && (i + REC_HDR + COMMIT_BODY == b.nFile || (c->version >= 2 && i + 2 * (REC_HDR + COMMIT_BODY) == b.nFile)))
        c->iBadCommit = i, c->bBadIsCopy = 0;
      else if (nRec == 0 && c->version >= 2 && !c->bLastCopied && i == c->iCommitted && i + REC_HDR + COMMIT_BODY == b.nFile)
        c->iBadCommit = i, c->bBadIsCopy = 1;
      break;
    }
    if (c->readonly && !bRetried && !c->bLenient) {
      bRetried = 1; /* read it all again from the last commit, with the file's size now */
      dropPending(c);
      if ((rc = cairn_file_size(c->f, &b.nFile)) != CAIRN_OK) break;
      b.nA = 0;
      i = txStart = c->iCommitted;
      nRec = 0, crc = 0;
      continue;
    }
    char zWhat[200];
    describeBad(&b, i, zWhat, sizeof zWhat);
    if (!c->readonly) {
      rc = cairnErr(CAIRN_CORRUPT,
                    "store damaged: %s fails its checks, and committed data follows it (commit %llu at file offset %llu), so it "
                    "is not a torn tail; nothing is cut and the store is not opened for writing (open it read-only: `cairn "
                    "verify` lists what is intact, `cairn salvage` copies that into a new store)",
                    zWhat, (unsigned long long)seqLater, (unsigned long long)iLater);
      break;
    }
    uint64_t iNext = findNextRecord(&b, i + 1, &rc);
    if (rc) break;
    if (!iNext) iNext = iLater; /* cannot happen: the later commit itself checks */
    if ((rc = addDamage(c, i, iNext, zWhat)) != CAIRN_OK) break;
    c->bLenient = 1;
    i = iNext;
  }
  c->nFileScanned = b.nFile;
  cairnFree(b.a);
  dropPending(c); /* what follows the last good commit never happened */
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
  /* The lock comes first: a writer must see the log as the previous writer left it, and may cut a
  ** torn tail or start a torn creation over only while it holds the writer lock. */
  if (rc == CAIRN_OK) {
    int64_t tmo = cfg.iVersion >= 2 ? cfg.busyTimeoutMs : CAIRN_LOCK_DEFAULT_TIMEOUT;
    rc = cairn_file_lock(f, c->readonly ? CAIRN_LOCK_READ : CAIRN_LOCK_WRITE, tmo);
  }
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
      c->version = cairnGetLE32(h + 8);
      if (c->version < CAS_VERSION_MIN || c->version > CAS_VERSION) {
        rc = cairnErr(CAIRN_UNSUPPORTED, "store format version %u (this cairn reads versions %d to %d)", c->version, CAS_VERSION_MIN, CAS_VERSION);
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
      c->version = CAS_VERSION;
      rc = cairn_file_truncate(f, 0);
      if (rc == CAIRN_OK) rc = cairn_file_write(f, h, CAS_HDR, 0);
      if (rc == CAIRN_OK && !c->noSync) rc = cairn_file_sync(f);
      nFile = CAS_HDR;
    }
  }
  if (rc == CAIRN_OK) rc = cairnCdcInit(c->cdc, &prm);
  c->iCommitted = CAS_HDR;
  if (rc == CAIRN_OK) rc = casScan(c, nFile);
  if (rc == CAIRN_OK && !c->readonly && nFile > c->iCommitted) {
    /* Cut the unfinished tail now, durably, so no later commit can sit in front of it. */
    rc = cairn_file_truncate(f, c->iCommitted);
    c->bRepaired = 1;
  }
  if (rc == CAIRN_OK && !c->readonly && c->version >= 2 && c->seq > 0 && !c->bLastCopied) {
    /* The last commit's copy was torn or damaged (and cut just now): write it again, so that
    ** one flipped bit in that commit never reads as a torn tail. */
    uint8_t rec[REC_HDR + COMMIT_BODY];
    memcpy(rec + REC_HDR, c->aLastCommit, COMMIT_BODY);
    cairnCasRecHeader(rec, REC_COMMIT_COPY, COMMIT_BODY, cairnCrc32c(0, rec + REC_HDR, COMMIT_BODY));
    rc = cairn_file_write(f, rec, sizeof rec, c->iCommitted);
    if (rc == CAIRN_OK) c->iCommitted += sizeof rec, c->bLastCopied = 1, c->bRepaired = 1;
  }
  if (rc == CAIRN_OK && c->bRepaired && !c->noSync) rc = cairn_file_sync(f);
  c->bRepaired = 0;
  c->iEnd = c->txnStart = c->iSynced = c->iCommitted;
  if (rc == CAIRN_OK) rc = cairnCasReindex(c);
  if (rc) {
    cairn_file_close(f);
    casFree(c);
    return rc;
  }
  *ppCas = c;
  return CAIRN_OK;
}

int cairn_cas_refresh(cairn_cas *c) {
  if (!c) return cairnErr(CAIRN_MISUSE, "cairn_cas_refresh: NULL store");
  if (!c->readonly) return CAIRN_OK; /* the writer lock: nobody else commits */
  uint64_t nFile = 0;
  CAIRN_TRY(cairn_file_size(c->f, &nFile));
  if (nFile < c->iCommitted)
    return cairnErr(CAIRN_CORRUPT, "store: the file shrank to %llu bytes, below its last commit at %llu (replaced under this handle?)",
                    (unsigned long long)nFile, (unsigned long long)c->iCommitted);
  if (nFile == c->iCommitted) return CAIRN_OK;
  size_t nChunk = c->nChunk, nPay = c->nPay, nName = c->nName;
  int rc = casScan(c, nFile);
  if (rc == CAIRN_OK && (c->nChunk != nChunk || c->nPay != nPay || c->nName != nName)) {
    c->iEnd = c->txnStart = c->iSynced = c->iCommitted;
    for (size_t i = nChunk; rc == CAIRN_OK && i < c->nChunk; i++) rc = cairnCasTabPut(c, &c->tChunk, 0, i);
    for (size_t i = nPay; rc == CAIRN_OK && i < c->nPay; i++) rc = cairnCasTabPut(c, &c->tPay, 1, i);
    for (size_t i = nName; rc == CAIRN_OK && i < c->nName; i++) rc = cairnCasTabPut(c, &c->tName, 2, i);
    c->bNamesDirty = 1;
  }
  c->iEnd = c->txnStart = c->iSynced = c->iCommitted;
  return rc;
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
