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
          CasChunk *k = casGrowOne(&c->aChunk, &c->nChunkAlloc, c->nChunk, sizeof(CasChunk));
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
        CasPay *y = memcmp(id, m, 32) == 0 ? casGrowOne(&c->aPay, &c->nPayAlloc, c->nPay, sizeof(CasPay)) : NULL;
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
        CasName *e = casGrowOne(&c->aName, &c->nNameAlloc, c->nName, sizeof(CasName));
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
  cairnCasDropNames(c, c->nNameC);
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
  if (rc == CAIRN_OK) rc = cairnCasReindex(c);
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
