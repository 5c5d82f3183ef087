/*
** 2026-11-29
**
** core/h5/w_data.c - datasets for the HDF5 writer: compact, contiguous and chunked layouts
** (data layout message version 3), fill values (version 3), the filter pipeline message
** (version 2), chunk indexes as version-1 B-trees (node type 1, K = 32: what every reader,
** jsfive and libhdf5 1.8 included, opens), appends along the first dimension, and the global
** heap collections ("GCOL") that hold variable-length strings.
**
** Appends keep one row block (chunk[0] rows of full width) in memory: complete blocks are cut
** into chunks, filtered (in parallel through cairnParallelFor) and written at once; a partial
** block is written at commit and rewritten (copy-on-write) when it grows. The B-tree is packed
** (64 entries per node, left to right), so an append rewrites only the right-most path.
*/
#include "h5/h5w.h"

#define BT_K 32
#define BT_FAN (2 * BT_K)

static void hashU64h(cairn_sha256_ctx *h, uint64_t v) {
  uint8_t b[8];
  cairnPutLE64(b, v);
  cairn_sha256_update(h, b, 8);
}

static size_t keySize(int rank) { return 8 + 8 * ((size_t)rank + 1); }
static size_t nodeSize(int rank) { return 24 + (BT_FAN + 1) * keySize(rank) + BT_FAN * 8; }

static uint64_t chunkElems(const H5wDset *d) {
  uint64_t n = 1;
  for (int i = 0; i < d->rank; i++) n *= d->aChunk[i];
  return n;
}
static uint64_t rowElems(const H5wDset *d) {
  uint64_t n = 1;
  for (int i = 1; i < d->rank; i++) n *= d->aDim[i];
  return n;
}
static uint64_t gridCells(const H5wDset *d) {
  uint64_t n = 1;
  for (int i = 1; i < d->rank; i++) n *= (d->aDim[i] + d->aChunk[i] - 1) / d->aChunk[i];
  return n;
}

void cairnH5wDsetFree(H5wDset *d) {
  if (!d) return;
  cairnFree(d->pFill);
  cairnFree(d->aRec);
  for (int l = 0; l < 8; l++) cairnFree(d->aLevel[l]);
  cairnFree(d->pTail);
  cairnFree(d->aOldNode);
  cairnFree(d);
}

/* ---------------------------------------------------------------- global heap */
int cairnH5wHeapFlush(cairn_h5w *w) {
  if (!w->pHeap) return CAIRN_OK;
  uint8_t *p = w->pHeap;
  size_t rest = w->nHeap - w->nHeapUsed;
  if (rest >= 16) { /* the free-space object: index 0, its size counts its own header */
    uint8_t *o = p + w->nHeapUsed;
    memset(o, 0, 16);
    cairnPutLE64(o + 8, rest);
  }
  int rc = cairnH5wWrite(w, p, w->nHeap, w->heapAddr);
  cairnFree(w->pHeap);
  w->pHeap = NULL;
  return rc;
}

static int heapPut(cairn_h5w *w, const char *z, size_t n, uint64_t *pAddr, uint32_t *pIdx) {
  size_t need = 16 + ((n + 7) & ~(size_t)7);
  if (w->pHeap && (w->nHeap - w->nHeapUsed < need || w->heapNext >= 0xffff)) CAIRN_TRY(cairnH5wHeapFlush(w));
  if (!w->pHeap) {
    size_t size = 16 + need + 16;
    if (size < 4096) size = 4096;
    w->pHeap = cairnMallocZero(size);
    if (!w->pHeap) return cairnErr(CAIRN_NOMEM, "global heap: out of memory");
    int rc = cairnH5wAlloc(w, size, &w->heapAddr);
    if (rc) {
      cairnFree(w->pHeap);
      w->pHeap = NULL;
      return rc;
    }
    memcpy(w->pHeap, H5_SIG_GCOL, 4);
    w->pHeap[4] = 1;
    cairnPutLE64(w->pHeap + 8, size);
    (void)CAIRN_GROW(w->aColl, w->nCollAlloc, w->nColl + 1, "heap collections"); /* else not tracked (below) */
    if (w->nColl < w->nCollAlloc) w->aColl[w->nColl++] = (struct H5wColl){w->heapAddr, size, 0, w->txn, 1};
    w->nHeap = size;
    w->nHeapUsed = 16;
    w->heapNext = 1;
  }
  uint8_t *o = w->pHeap + w->nHeapUsed;
  cairnPutLE16(o, (uint16_t)w->heapNext);
  cairnPutLE16(o + 2, 0);
  cairnPutLE32(o + 4, 0);
  cairnPutLE64(o + 8, n);
  memcpy(o + 16, z, n);
  w->nHeapUsed += need;
  *pAddr = w->heapAddr;
  *pIdx = w->heapNext++;
  if (w->nColl && w->aColl[w->nColl - 1].addr == w->heapAddr) w->aColl[w->nColl - 1].nLive++;
  return CAIRN_OK;
}

/* An attribute message is replaced or removed: the heap objects its variable-length values
** used lose a reference; a collection of this session that nothing uses any more is freed
** (after the next commit if an earlier commit used it). */
void cairnH5wAttrDropRefs(cairn_h5w *w, const H5wMsg *m) {
  if (!w->nColl || m->type != H5_MSG_ATTR || m->n < 8 || m->p[0] < 1 || m->p[0] > 3) return;
  const uint8_t *p = m->p;
  int v = p[0];
  size_t nName = cairnGetLE16(p + 2), nType = cairnGetLE16(p + 4), nSpace = cairnGetLE16(p + 6);
#define PAD(x) (v == 1 ? (((x) + 7) & ~(size_t)7) : (x))
  size_t off = (v == 3 ? 9 : 8) + PAD(nName);
  if (off + PAD(nType) + PAD(nSpace) > m->n || nType < 8 || (p[off] & 0x0f) != H5T_VLEN) return;
  const uint8_t *data = p + off + PAD(nType) + PAD(nSpace);
#undef PAD
  size_t nData = (size_t)(p + m->n - data);
  for (size_t i = 0; i + 16 <= nData; i += 16) {
    uint64_t addr = cairnGetLE64(data + i + 4);
    for (int k = 0; addr && k < w->nColl; k++) {
      struct H5wColl *c = &w->aColl[k];
      if (c->addr != addr || c->nLive == 0) continue;
      if (--c->nLive == 0 && !(w->pHeap && w->heapAddr == addr)) {
        cairnH5wFree(w, c->addr, c->size, c->gen != w->txn);
        w->aColl[k] = w->aColl[--w->nColl];
      }
      break;
    }
  }
}

/* Variable-length elements in memory (char* for strings, cairn_h5w_vl for sequences) -> 16-byte
** file elements (length in units, collection address, object index). An empty string is a
** zero-length heap object, as libhdf5 writes it; NULL and empty sequences are null references. */
int cairnH5wVlenToFile(cairn_h5w *w, int kind, size_t unit, const void *pMem, uint64_t n, uint8_t *pOut) {
  for (uint64_t i = 0; i < n; i++) {
    uint8_t *e = pOut + 16 * i;
    const char *z;
    size_t len, nb;
    if (kind == 1) {
      z = ((const char *const *)pMem)[i];
      len = nb = z ? strlen(z) : 0;
    } else {
      const cairn_h5w_vl *v = (const cairn_h5w_vl *)pMem + i;
      z = v->n ? v->p : NULL;
      len = v->n;
      if (cairnMulOverflowSize(len, unit, &nb)) return cairnErr(CAIRN_RANGE, "sequence of %zu elements", len);
      if (len && !v->p) return cairnErr(CAIRN_MISUSE, "sequence %llu: %zu elements at NULL", (unsigned long long)i, len);
    }
    if (len > 0x7fffffff || nb > 0x7fffffff) return cairnErr(CAIRN_RANGE, "variable-length element of %zu bytes", nb);
    uint64_t addr = 0;
    uint32_t idx = 0;
    if (z) CAIRN_TRY(heapPut(w, z, nb, &addr, &idx));
    cairnPutLE32(e, (uint32_t)len);
    cairnPutLE64(e + 4, addr);
    cairnPutLE32(e + 12, idx);
  }
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- chunk records */
static int offCmp(const uint64_t *a, const uint64_t *b, int rank) {
  for (int i = 0; i < rank; i++)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

static uint64_t recFind(const H5wDset *d, const uint64_t *off, int *pFound) {
  uint64_t lo = 0, hi = d->nRec;
  while (lo < hi) {
    uint64_t mid = (lo + hi) / 2;
    int c = offCmp(d->aRec[mid].aOff, off, d->rank);
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  *pFound = lo < d->nRec && offCmp(d->aRec[lo].aOff, off, d->rank) == 0;
  return lo;
}

static int recPut(cairn_h5w *w, H5wDset *d, const uint64_t *off, uint64_t addr, uint32_t nByte) {
  int found;
  uint64_t i = recFind(d, off, &found);
  if (found) {
    H5wChunk *c = &d->aRec[i];
    cairnH5wFree(w, c->addr, c->nByte, c->gen != w->txn);
  } else {
    int rc = CAIRN_GROW(d->aRec, d->nRecAlloc, d->nRec + 1, "chunk index");
    if (rc) return cairnH5wFail(w, rc);
    memmove(d->aRec + i + 1, d->aRec + i, sizeof(H5wChunk) * (size_t)(d->nRec - i));
    d->nRec++;
  }
  H5wChunk *c = &d->aRec[i];
  memset(c, 0, sizeof *c);
  memcpy(c->aOff, off, sizeof(uint64_t) * (size_t)d->rank);
  c->addr = addr;
  c->nByte = nByte;
  c->gen = w->txn;
  if (!d->bIndexDirty || i < d->iDirtyFrom) d->iDirtyFrom = i;
  d->bIndexDirty = 1;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- slab <-> chunk */
/* Copy between a row block (chunk[0] rows of full width, row-major) and one chunk whose other
** coordinates start at base[1..]. bToChunk: slab -> chunk (the chunk is pre-filled). */
static void slabChunkCopy(const H5wDset *d, uint8_t *slab, uint8_t *chunk, const uint64_t *base, int bToChunk) {
  size_t el = d->elSize;
  int r = d->rank;
  if (r == 1) {
    if (bToChunk) memcpy(chunk, slab, (size_t)d->aChunk[0] * el);
    else memcpy(slab, chunk, (size_t)d->aChunk[0] * el);
    return;
  }
  uint64_t c[CAIRN_H5W_MAXRANK] = {0};
  uint64_t last = d->aDim[r - 1] - base[r - 1];
  size_t nLine = (size_t)(last < d->aChunk[r - 1] ? last : d->aChunk[r - 1]) * el;
  for (;;) {
    int in = 1;
    for (int i = 1; i < r - 1; i++)
      if (base[i] + c[i] >= d->aDim[i]) in = 0;
    if (in) {
      uint64_t so = c[0], co = c[0];
      for (int i = 1; i < r; i++) {
        so = so * d->aDim[i] + (i < r - 1 ? base[i] + c[i] : base[i]);
        co = co * d->aChunk[i] + (i < r - 1 ? c[i] : 0);
      }
      if (bToChunk) memcpy(chunk + co * el, slab + so * el, nLine);
      else memcpy(slab + so * el, chunk + co * el, nLine);
    }
    int k = r - 2;
    while (k >= 0 && ++c[k] == d->aChunk[k]) c[k--] = 0;
    if (k < 0) break;
  }
}

static void fillPattern(const H5wDset *d, uint8_t *p, uint64_t nEl) {
  if (!d->pFill) {
    memset(p, 0, (size_t)(nEl * d->elSize));
    return;
  }
  for (uint64_t i = 0; i < nEl; i++) memcpy(p + i * d->elSize, d->pFill, d->elSize);
}

typedef struct EmitTask {
  const H5wDset *d;
  uint8_t *const *aSlab; /* per slab */
  uint64_t nCell;
  uint8_t **aOut;
  size_t *anOut;
  int *aRc;
  uint8_t *aOwn; /* aOut[i] was allocated (else it points into a slab) */
} EmitTask;

static void cellBase(const H5wDset *d, uint64_t cell, uint64_t *base) {
  for (int i = d->rank - 1; i >= 1; i--) {
    uint64_t n = (d->aDim[i] + d->aChunk[i] - 1) / d->aChunk[i];
    base[i] = (cell % n) * d->aChunk[i];
    cell /= n;
  }
}

/* A chunk whose other dimensions span the whole row (chunk[i] == dims[i] for i >= 1) has the
** slab's memory layout: it is filtered or written straight from the slab, without a copy. */
static int slabIsChunk(const H5wDset *d) {
  for (int i = 1; i < d->rank; i++)
    if (d->aChunk[i] != d->aDim[i]) return 0;
  return 1;
}

static void emitTask(void *pArg, size_t i, unsigned iWorker) {
  (void)iWorker;
  EmitTask *t = pArg;
  const H5wDset *d = t->d;
  uint64_t base[CAIRN_H5W_MAXRANK] = {0};
  cellBase(d, i % t->nCell, base);
  size_t n = (size_t)(chunkElems(d) * d->elSize);
  uint8_t *slab = t->aSlab[i / t->nCell];
  if (slabIsChunk(d)) {
    if (d->nFilter == 0) { /* written from the slab itself (aOwn stays 0) */
      t->aOut[i] = slab;
      t->anOut[i] = n;
      return;
    }
    t->aRc[i] = cairnH5wFilterApply(d->aFilter, d->nFilter, slab, n, &t->aOut[i], &t->anOut[i]);
    t->aOwn[i] = 1;
    return;
  }
  uint8_t *c = cairnMalloc(n ? n : 1);
  if (!c) {
    t->aRc[i] = CAIRN_NOMEM;
    return;
  }
  int bEdge = 0;
  for (int k = 1; k < d->rank; k++)
    if (base[k] + d->aChunk[k] > d->aDim[k]) bEdge = 1;
  if (bEdge) fillPattern(d, c, chunkElems(d)); /* edge chunks: the part outside the dataset */
  slabChunkCopy(d, slab, c, base, 1);
  t->aOwn[i] = 1;
  if (d->nFilter == 0) {
    t->aOut[i] = c;
    t->anOut[i] = n;
    return;
  }
  t->aRc[i] = cairnH5wFilterApply(d->aFilter, d->nFilter, c, n, &t->aOut[i], &t->anOut[i]);
  cairnFree(c);
}

/* Cut nSlab row blocks (block indices b0, b0+1, ...) into chunks, filter and write them. */
static int emitSlabs(cairn_h5w *w, H5wDset *d, uint8_t *const *aSlab, uint64_t nSlab, uint64_t b0) {
  uint64_t nCell = gridCells(d), nTask = nSlab * nCell;
  EmitTask t = {d, aSlab, nCell, NULL, NULL, NULL, NULL};
  t.aOut = cairnMallocZero(sizeof(uint8_t *) * (size_t)nTask);
  t.anOut = cairnMallocZero(sizeof(size_t) * (size_t)nTask);
  t.aRc = cairnMallocZero(sizeof(int) * (size_t)nTask);
  t.aOwn = cairnMallocZero((size_t)nTask);
  int rc = CAIRN_OK;
  if (!t.aOut || !t.anOut || !t.aRc || !t.aOwn) rc = cairnErr(CAIRN_NOMEM, "chunks: out of memory");
  if (!rc) {
    if (nTask > 1 && (d->nFilter || nCell > 1)) cairnParallelFor((size_t)nTask, emitTask, &t);
    else
      for (size_t i = 0; i < nTask; i++) emitTask(&t, i, 0);
  }
  for (uint64_t i = 0; i < nTask && !rc; i++) {
    if (t.aRc[i]) {
      rc = t.aRc[i] == CAIRN_NOMEM ? cairnErr(CAIRN_NOMEM, "chunk: out of memory") : t.aRc[i];
      break;
    }
    if (t.anOut[i] > 0xffffffffu) {
      rc = cairnErr(CAIRN_RANGE, "chunk of %zu bytes after filtering (max 4 GiB)", t.anOut[i]);
      break;
    }
    uint64_t off[CAIRN_H5W_MAXRANK] = {0}, addr;
    cellBase(d, i % nCell, off);
    off[0] = (b0 + i / nCell) * d->aChunk[0];
    rc = cairnH5wAlloc(w, t.anOut[i], &addr);
    if (!rc) rc = cairnH5wWrite(w, t.aOut[i], t.anOut[i], addr);
    if (!rc) rc = recPut(w, d, off, addr, (uint32_t)t.anOut[i]);
  }
  for (uint64_t i = 0; t.aOut && t.aOwn && i < nTask; i++)
    if (t.aOwn[i]) cairnFree(t.aOut[i]);
  cairnFree(t.aOut);
  cairnFree(t.aOwn);
  cairnFree(t.anOut);
  cairnFree(t.aRc);
  return rc ? cairnH5wFail(w, rc) : CAIRN_OK;
}

/* ---------------------------------------------------------------- B-tree (v1, type 1) */
static int levelsFor(uint64_t nRec, uint64_t *aCount) {
  int n = 0;
  uint64_t c = nRec;
  do {
    c = (c + BT_FAN - 1) / BT_FAN;
    aCount[n++] = c;
  } while (c > 1 && n < 8);
  return n;
}

static void keyPut(const H5wDset *d, uint8_t *p, const H5wChunk *c, int bRight) {
  cairnPutLE32(p, bRight ? 0 : c->nByte);
  cairnPutLE32(p + 4, bRight ? 0 : c->mask);
  for (int i = 0; i < d->rank; i++) cairnPutLE64(p + 8 + 8 * i, c->aOff[i] + (bRight ? d->aChunk[i] : 0));
  cairnPutLE64(p + 8 + 8 * d->rank, 0);
}

static int btreeWrite(cairn_h5w *w, H5wDset *d) {
  for (uint64_t i = 0; i < d->nOldNode; i++) cairnH5wFree(w, d->aOldNode[i], nodeSize(d->rank), 1);
  d->nOldNode = 0;
  if (d->nRec == 0) {
    d->bIndexDirty = 0;
    return CAIRN_OK;
  }
  uint64_t aCount[8];
  int nl = levelsFor(d->nRec, aCount);
  if (nl >= 8) return cairnErr(CAIRN_RANGE, "chunk index too deep");
  size_t ks = keySize(d->rank), ns = nodeSize(d->rank);
  uint8_t *buf = cairnMalloc(ns);
  if (!buf) return cairnErr(CAIRN_NOMEM, "B-tree: out of memory");
  uint64_t from = d->iDirtyFrom, span = 1; /* records per child at this level */
  int rc = CAIRN_OK;
  for (int l = 0; l < nl && !rc; l++) {
    uint64_t oldCount = l < d->nLevels ? d->nLevel[l] : 0;
    uint64_t first = from / BT_FAN;
    if (first > oldCount) first = oldCount;
    if (aCount[l] > d->nLevelAlloc[l]) {
      H5wNode *a = cairnRealloc(d->aLevel[l], sizeof(H5wNode) * (size_t)(aCount[l] + 16));
      if (!a) { rc = cairnErr(CAIRN_NOMEM, "B-tree: out of memory"); break; }
      d->aLevel[l] = a;
      d->nLevelAlloc[l] = aCount[l] + 16;
    }
    for (uint64_t j = oldCount; j < aCount[l]; j++) d->aLevel[l][j] = (H5wNode){H5_UNDEF, w->txn};
    uint64_t spanNode = span * BT_FAN; /* records under one node of this level */
    for (uint64_t j = first; j < aCount[l] && !rc; j++) {
      uint64_t r0 = j * spanNode, r1 = r0 + spanNode < d->nRec ? r0 + spanNode : d->nRec;
      uint64_t nChild = (r1 - r0 + span - 1) / span;
      memset(buf, 0, ns);
      memcpy(buf, H5_SIG_TREE, 4);
      buf[4] = 1;
      buf[5] = (uint8_t)l;
      cairnPutLE16(buf + 6, (uint16_t)nChild);
      cairnPutLE64(buf + 8, H5_UNDEF); /* siblings are not kept: nodes move on every rewrite */
      cairnPutLE64(buf + 16, H5_UNDEF);
      uint8_t *p = buf + 24;
      for (uint64_t k = 0; k < nChild; k++) {
        uint64_t r = r0 + k * span;
        keyPut(d, p, &d->aRec[r], 0);
        p += ks;
        cairnPutLE64(p, l == 0 ? d->aRec[r].addr : d->aLevel[l - 1][j * BT_FAN + k].addr);
        p += 8;
      }
      keyPut(d, p, &d->aRec[r1 - 1], 1);
      uint64_t addr;
      rc = cairnH5wAlloc(w, ns, &addr);
      if (!rc) rc = cairnH5wWrite(w, buf, ns, addr);
      if (rc) break;
      H5wNode *nd = &d->aLevel[l][j];
      cairnH5wFree(w, nd->addr, ns, nd->gen != w->txn);
      *nd = (H5wNode){addr, w->txn};
    }
    d->nLevel[l] = aCount[l];
    from = first;
    span = spanNode;
  }
  /* Nodes of levels that no longer exist (cannot happen: the tree only grows) */
  for (int l = nl; l < d->nLevels; l++)
    for (uint64_t j = 0; j < d->nLevel[l]; j++) cairnH5wFree(w, d->aLevel[l][j].addr, ns, d->aLevel[l][j].gen != w->txn);
  cairnFree(buf);
  if (rc) return cairnH5wFail(w, rc);
  d->nLevels = nl;
  d->btreeAddr = d->aLevel[nl - 1][0].addr;
  d->bIndexDirty = 0;
  d->bIndexWritten = 1;
  return CAIRN_OK;
}

/* Read the B-tree below addr into aRec, noting each node per level (for adopting the tree). */
typedef struct BtLoad { uint64_t *aAddr[8]; uint16_t *aN[8]; uint64_t n[8], nAlloc[8]; int depth; uint64_t nNode; } BtLoad;
#define BT_MAX_NODES (1u << 17) /* 8M chunks at 64 per leaf: beyond that a damaged tree, or a limit */

static int btreeRead(cairn_h5w *w, H5wDset *d, uint64_t addr, int expectLevel, BtLoad *bl, int depth) {
  if (depth > 8) return cairnErr(CAIRN_CORRUPT, "chunk B-tree deeper than 8 at %llu", (unsigned long long)addr);
  size_t ks = keySize(d->rank);
  uint8_t hdr[24];
  CAIRN_TRY(cairnH5wRead(w, hdr, 24, addr));
  if (memcmp(hdr, H5_SIG_TREE, 4) != 0 || hdr[4] != 1) return cairnErr(CAIRN_CORRUPT, "no chunk B-tree node at %llu", (unsigned long long)addr);
  int level = hdr[5];
  unsigned n = cairnGetLE16(hdr + 6);
  if ((expectLevel >= 0 && level != expectLevel) || level >= 8 || n > 4096)
    return cairnErr(CAIRN_CORRUPT, "chunk B-tree node at %llu: level %d, %u entries", (unsigned long long)addr, level, n);
  if (bl->depth < 0) bl->depth = level;
  if (++bl->nNode > BT_MAX_NODES) return cairnErr(CAIRN_LIMIT, "chunk B-tree at %llu has more than %u nodes", (unsigned long long)addr, BT_MAX_NODES);
  if (bl->n[level] == bl->nAlloc[level]) { /* two arrays of one capacity */
    size_t capA = (size_t)bl->nAlloc[level], capN = capA, nNeed = (size_t)bl->n[level] + 1;
    CAIRN_TRY(cairnArrayReserve(&bl->aAddr[level], &capA, nNeed, sizeof(uint64_t), 16, "B-tree"));
    CAIRN_TRY(cairnArrayReserve(&bl->aN[level], &capN, nNeed, sizeof(uint16_t), 16, "B-tree"));
    bl->nAlloc[level] = CAIRN_MIN(capA, capN);
  }
  cairnH5wUsed(w, addr, nodeSize(d->rank));
  bl->aAddr[level][bl->n[level]] = addr;
  bl->aN[level][bl->n[level]++] = (uint16_t)n;
  size_t sz = (size_t)n * (ks + 8) + ks;
  uint8_t *p = cairnMalloc(sz);
  if (!p) return cairnErr(CAIRN_NOMEM, "B-tree: out of memory");
  int rc = cairnH5wRead(w, p, sz, addr + 24);
  for (unsigned i = 0; i < n && !rc; i++) {
    const uint8_t *k = p + i * (ks + 8);
    uint64_t child = cairnGetLE64(k + ks);
    if (level > 0) {
      rc = btreeRead(w, d, child, level - 1, bl, depth + 1);
      continue;
    }
    if ((rc = CAIRN_GROW(d->aRec, d->nRecAlloc, d->nRec + 1, "chunk index")) != CAIRN_OK) break;
    H5wChunk *c = &d->aRec[d->nRec];
    memset(c, 0, sizeof *c);
    c->nByte = cairnGetLE32(k);
    c->mask = cairnGetLE32(k + 4);
    for (int j = 0; j < d->rank; j++) c->aOff[j] = cairnGetLE64(k + 8 + 8 * j);
    c->addr = child;
    if (d->nRec && offCmp(d->aRec[d->nRec - 1].aOff, c->aOff, d->rank) >= 0)
      rc = cairnErr(CAIRN_CORRUPT, "chunk B-tree keys out of order at %llu", (unsigned long long)addr);
    d->nRec++;
  }
  cairnFree(p);
  return rc;
}

static int indexLoad(cairn_h5w *w, H5wDset *d) {
  if (d->bIndexLoaded) return CAIRN_OK;
  if (w->bBadK) return cairnErr(CAIRN_UNSUPPORTED, "the file sets a chunk B-tree K other than 32");
  BtLoad bl;
  memset(&bl, 0, sizeof bl);
  bl.depth = -1;
  int rc = CAIRN_OK;
  uint64_t nRec0 = d->nRec;
  if (d->btreeAddr != H5_UNDEF) rc = btreeRead(w, d, d->btreeAddr, -1, &bl, 0);
  if (!rc) {
    /* Adopt the nodes if the tree is packed the way btreeWrite packs it; else rewrite it all. */
    uint64_t aCount[8];
    int nl = d->nRec ? levelsFor(d->nRec, aCount) : 0, ok = nl == bl.depth + 1;
    for (int l = 0; ok && l < nl; l++) {
      if (bl.n[l] != aCount[l]) ok = 0;
      for (uint64_t j = 0; ok && j + 1 < bl.n[l]; j++)
        if (bl.aN[l][j] != BT_FAN) ok = 0;
    }
    if (ok) {
      for (int l = 0; l < nl && !rc; l++) {
        d->aLevel[l] = cairnMalloc(sizeof(H5wNode) * (size_t)(aCount[l] + 16));
        if (!d->aLevel[l]) { rc = cairnErr(CAIRN_NOMEM, "B-tree: out of memory"); break; }
        d->nLevelAlloc[l] = aCount[l] + 16;
        d->nLevel[l] = aCount[l];
        for (uint64_t j = 0; j < aCount[l]; j++) d->aLevel[l][j] = (H5wNode){bl.aAddr[l][j], 0};
      }
      d->nLevels = nl;
    } else {
      uint64_t nAll = 0;
      for (int l = 0; l < 8; l++) nAll += bl.n[l];
      d->aOldNode = cairnMalloc(sizeof(uint64_t) * (size_t)(nAll ? nAll : 1));
      if (!d->aOldNode) rc = cairnErr(CAIRN_NOMEM, "B-tree: out of memory");
      for (int l = 0; !rc && l < 8; l++)
        for (uint64_t j = 0; j < bl.n[l]; j++) d->aOldNode[d->nOldNode++] = bl.aAddr[l][j];
      d->nLevels = 0;
      d->bIndexDirty = d->nRec > 0;
      d->iDirtyFrom = 0;
    }
  }
  for (int l = 0; l < 8; l++) cairnFree(bl.aAddr[l]), cairnFree(bl.aN[l]);
  if (!rc) d->bIndexLoaded = 1;
  else {
    /* a failure (out of memory) leaves nothing half-loaded: a later load starts afresh
    ** instead of appending the records a second time */
    d->nRec = nRec0;
    for (int l = 0; l < 8; l++) cairnFree(d->aLevel[l]), d->aLevel[l] = NULL, d->nLevel[l] = d->nLevelAlloc[l] = 0;
    d->nLevels = 0;
    d->bIndexDirty = 0;
    cairnFree(d->aOldNode), d->aOldNode = NULL, d->nOldNode = 0;
  }
  return rc;
}

/* ---------------------------------------------------------------- messages */
static size_t layoutSize(const H5wDset *d, size_t nCompact) {
  if (d->layout == CAIRN_H5W_COMPACT) return 4 + nCompact;
  if (d->layout == CAIRN_H5W_CONTIGUOUS) return 2 + 16;
  return 3 + 8 + 4 * ((size_t)d->rank + 1);
}

static int updateChunkedMsgs(H5wObj *o) {
  H5wDset *d = o->pDset;
  uint8_t sp[4 + 16 * CAIRN_H5W_MAXRANK];
  size_t n = (size_t)cairnH5wEncodeSpace(sp, d->rank, d->aDim, d->aMax);
  CAIRN_TRY(cairnH5wObjSetMsg(o, d->iSpaceMsg, sp, n));
  uint8_t ly[3 + 8 + 4 * (CAIRN_H5W_MAXRANK + 1)];
  ly[0] = 3;
  ly[1] = 2;
  ly[2] = (uint8_t)(d->rank + 1);
  cairnPutLE64(ly + 3, d->nRec ? d->btreeAddr : H5_UNDEF);
  for (int i = 0; i < d->rank; i++) cairnPutLE32(ly + 11 + 4 * i, (uint32_t)d->aChunk[i]);
  cairnPutLE32(ly + 11 + 4 * d->rank, (uint32_t)d->elSize);
  return cairnH5wObjSetMsg(o, d->iLayoutMsg, ly, layoutSize(d, 0));
}

/* ---------------------------------------------------------------- row blocks */
static uint64_t curBlock(const H5wDset *d) { return d->tailRow0 / d->aChunk[0]; }
#define NO_BLOCK UINT64_MAX

static size_t blockBytes(const H5wDset *d) { return (size_t)(d->aChunk[0] * rowElems(d) * d->elSize); }

/* Make block b the tail: filled with the fill value, or with the chunks already stored for it. */
static int tailLoad(cairn_h5w *w, H5wDset *d, uint64_t b) {
  size_t nb = blockBytes(d);
  if (!d->pTail || d->nTailAlloc < nb) {
    cairnFree(d->pTail);
    d->pTail = cairnMalloc(nb ? nb : 1);
    d->nTailAlloc = d->pTail ? nb : 0;
    if (!d->pTail) return cairnErr(CAIRN_NOMEM, "append: out of memory for a %zu-byte row block", nb);
  }
  fillPattern(d, d->pTail, d->aChunk[0] * rowElems(d));
  d->tailRow0 = b * d->aChunk[0];
  uint64_t off[CAIRN_H5W_MAXRANK] = {0};
  off[0] = d->tailRow0;
  int found;
  uint64_t i = recFind(d, off, &found);
  size_t nc = (size_t)(chunkElems(d) * d->elSize);
  uint8_t *c = NULL, *raw = NULL;
  int rc = CAIRN_OK;
  for (; i < d->nRec && d->aRec[i].aOff[0] == d->tailRow0 && !rc; i++) {
    const H5wChunk *r = &d->aRec[i];
    if (!c && !(c = cairnMalloc(nc ? nc : 1))) { rc = cairnErr(CAIRN_NOMEM, "append: out of memory"); break; }
    if (r->nByte > nc + (nc >> 3) + 65536 + 64) { rc = cairnErr(CAIRN_CORRUPT, "chunk at %llu of %u bytes", (unsigned long long)r->addr, r->nByte); break; }
    cairnFree(raw);
    if (!(raw = cairnMalloc(r->nByte ? r->nByte : 1))) { rc = cairnErr(CAIRN_NOMEM, "append: out of memory"); break; }
    rc = cairnH5wRead(w, raw, r->nByte, r->addr);
    if (!rc) {
      if (d->nFilter) rc = cairnH5wFilterUndo(d->aFilter, d->nFilter, r->mask, raw, r->nByte, c, nc);
      else if (r->nByte != nc) rc = cairnErr(CAIRN_CORRUPT, "unfiltered chunk at %llu of %u bytes, want %zu", (unsigned long long)r->addr, r->nByte, nc);
      else memcpy(c, raw, nc);
    }
    if (!rc) slabChunkCopy(d, d->pTail, c, r->aOff, 0);
  }
  cairnFree(c);
  cairnFree(raw);
  return rc;
}

/* Write rows [row0, row0+n) from p (row-major, file form). */
static int writeRows(cairn_h5w *w, H5wDset *d, uint64_t row0, uint64_t n, const uint8_t *p) {
  uint64_t c0 = d->aChunk[0], rb = rowElems(d) * d->elSize;
  while (n > 0) {
    uint64_t b = row0 / c0;
    int haveTail = d->pTail && d->tailRow0 != NO_BLOCK;
    if (!haveTail && row0 % c0 == 0 && n >= c0) {
      /* whole blocks straight from the caller's memory, several at a time (parallel) */
      uint64_t nb = n / c0, cells = gridCells(d);
      uint64_t maxB = (64 + cells - 1) / cells;
      if (maxB < 1) maxB = 1;
      if (nb > maxB) nb = maxB;
      uint8_t *aSlab[64];
      if (nb > 64) nb = 64;
      for (uint64_t k = 0; k < nb; k++) aSlab[k] = (uint8_t *)p + k * c0 * rb;
      CAIRN_TRY(emitSlabs(w, d, aSlab, nb, b));
      row0 += nb * c0, n -= nb * c0, p += nb * c0 * rb;
      continue;
    }
    if (!haveTail || curBlock(d) != b) {
      if (haveTail && d->bTailDirty) {
        /* leaving a partial block: write it now */
        uint8_t *s = d->pTail;
        CAIRN_TRY(emitSlabs(w, d, &s, 1, curBlock(d)));
        d->bTailDirty = 0;
      }
      CAIRN_TRY(tailLoad(w, d, b));
    }
    uint64_t k = row0 - d->tailRow0, m = c0 - k < n ? c0 - k : n;
    memcpy(d->pTail + k * rb, p, (size_t)(m * rb));
    row0 += m, n -= m, p += m * rb;
    if (k + m == c0) { /* block complete */
      uint8_t *s = d->pTail;
      CAIRN_TRY(emitSlabs(w, d, &s, 1, b));
      d->tailRow0 = NO_BLOCK;
      d->bTailDirty = 0;
    } else d->bTailDirty = 1;
  }
  return CAIRN_OK;
}

/* At commit: write the partial tail block and the B-tree, update the layout message. */
int cairnH5wDsetFlush(cairn_h5w *w, H5wObj *o) {
  H5wDset *d = o->pDset;
  if (d->layout != CAIRN_H5W_CHUNKED) return CAIRN_OK;
  if (d->pTail && d->tailRow0 != NO_BLOCK && d->bTailDirty) {
    uint8_t *s = d->pTail;
    CAIRN_TRY(emitSlabs(w, d, &s, 1, curBlock(d)));
    d->bTailDirty = 0;
  }
  if (d->bIndexDirty) CAIRN_TRY(btreeWrite(w, d));
  if (d->bIndexDirty == 0 && (d->bShapeDirty || d->bIndexWritten)) {
    int rc = updateChunkedMsgs(o);
    if (rc) return cairnH5wFail(w, rc);
    d->bShapeDirty = d->bIndexWritten = 0;
    o->bDirty = 1;
  }
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- create */
static int parseDims(const char *zPath, int rank, const uint64_t *dims, const uint64_t *maxdims, uint64_t *pnEl) {
  uint64_t n = 1;
  for (int i = 0; i < rank; i++) {
    if (maxdims && maxdims[i] != CAIRN_H5W_UNLIMITED && maxdims[i] < dims[i])
      return cairnErr(CAIRN_RANGE, "dataset '%s': dimension %d is %llu, above its maximum %llu", zPath, i,
                      (unsigned long long)dims[i], (unsigned long long)maxdims[i]);
    if (cairnMulOverflow64(n, dims[i], &n)) return cairnErr(CAIRN_RANGE, "dataset '%s': too many elements", zPath);
  }
  *pnEl = n;
  return CAIRN_OK;
}

int cairn_h5w_dataset(cairn_h5w *w, const char *zPath, const cairn_h5w_type *t, int rank, const uint64_t *dims,
                      const uint64_t *maxdims, const cairn_h5w_dset_opts *pOpt, const void *pData) {
  if (!w) return cairnErr(CAIRN_MISUSE, "cairn_h5w_dataset: NULL writer");
  if (w->rcFatal) return cairnErr(w->rcFatal, "cairn_h5w_dataset: the writer failed earlier");
  if (w->bReadOnly) return cairnErr(CAIRN_READONLY, "cairn_h5w_dataset: file opened read-only");
  if (!zPath || !t || rank < 0 || rank > CAIRN_H5W_MAXRANK || (rank && !dims))
    return cairnErr(CAIRN_MISUSE, "cairn_h5w_dataset: bad arguments for '%s'", zPath ? zPath : "(null)");
  cairn_h5w_dset_opts opt;
  memset(&opt, 0, sizeof opt);
  if (pOpt) opt = *pOpt;
  uint64_t nEl = 0, nByte = 0;
  CAIRN_TRY(parseDims(zPath, rank, dims, maxdims, &nEl));
  if (cairnMulOverflow64(nEl, t->size, &nByte)) return cairnErr(CAIRN_RANGE, "dataset '%s': too large", zPath);
  int bResizable = 0;
  for (int i = 0; maxdims && i < rank; i++)
    if (maxdims[i] != dims[i]) bResizable = 1;
  if (bResizable)
    for (int i = 1; i < rank; i++)
      if (maxdims[i] != dims[i]) return cairnErr(CAIRN_UNSUPPORTED, "dataset '%s': only the first dimension can grow", zPath);
  H5wDset *d = cairnMallocZero(sizeof *d);
  if (!d) return cairnErr(CAIRN_NOMEM, "dataset '%s': out of memory", zPath);
  d->rank = rank;
  d->elSize = t->size;
  d->bVlen = t->bHasVlen;
  d->vlenKind = t->vlenKind;
  d->vlenUnit = t->vlenUnit;
  d->tailRow0 = NO_BLOCK;
  d->btreeAddr = H5_UNDEF;
  d->bIndexLoaded = 1;
  for (int i = 0; i < rank; i++) d->aDim[i] = dims[i], d->aMax[i] = maxdims ? maxdims[i] : dims[i];
  int rc = CAIRN_OK;
  const char *zErr;
  if (opt.zFilters && opt.zFilters[0]) rc = cairnH5wFilterParse(opt.zFilters, t->size, d->aFilter, &d->nFilter, &zErr);
  d->layout = opt.layout;
  if (!rc && d->layout == CAIRN_H5W_AUTO) d->layout = (bResizable || d->nFilter || opt.chunk) ? CAIRN_H5W_CHUNKED : CAIRN_H5W_CONTIGUOUS;
  if (!rc && d->layout > CAIRN_H5W_CHUNKED) rc = cairnErr(CAIRN_MISUSE, "dataset '%s': layout %d", zPath, d->layout);
  if (!rc && d->layout != CAIRN_H5W_CHUNKED && (bResizable || d->nFilter))
    rc = cairnErr(CAIRN_MISUSE, "dataset '%s': resizable or filtered datasets must be chunked", zPath);
  if (!rc && d->layout == CAIRN_H5W_CHUNKED && rank == 0) rc = cairnErr(CAIRN_MISUSE, "dataset '%s': a scalar cannot be chunked", zPath);
  if (!rc && d->layout == CAIRN_H5W_CHUNKED && w->bBadK) rc = cairnErr(CAIRN_UNSUPPORTED, "dataset '%s': the file sets a chunk B-tree K other than 32", zPath);
  if (!rc && d->layout == CAIRN_H5W_COMPACT && nByte > 60000)
    rc = cairnErr(CAIRN_RANGE, "dataset '%s': %llu bytes is too large for the compact layout (60000 max)", zPath, (unsigned long long)nByte);
  if (!rc && opt.pFill && t->bHasVlen) rc = cairnErr(CAIRN_UNSUPPORTED, "dataset '%s': fill value for variable-length data", zPath);
  if (!rc && d->layout == CAIRN_H5W_CHUNKED) {
    uint64_t cb = t->size;
    for (int i = rank - 1; i >= 0; i--) {
      uint64_t c;
      if (opt.chunk) c = opt.chunk[i];
      else if (i > 0) c = dims[i] ? dims[i] : 1;
      else {
        uint64_t row = cb ? cb : 1;
        c = row >= 65536 ? 1 : 65536 / row;
        if (!bResizable && dims[0] && c > dims[0]) c = dims[0];
      }
      if (c == 0 || c > 0xffffffffu || (d->aMax[i] != CAIRN_H5W_UNLIMITED && c > d->aMax[i] && d->aMax[i] > 0))
        rc = cairnErr(CAIRN_RANGE, "dataset '%s': chunk dimension %d is %llu", zPath, i, (unsigned long long)c);
      d->aChunk[i] = c;
      if (!rc && cairnMulOverflow64(cb, c, &cb)) rc = cairnErr(CAIRN_RANGE, "dataset '%s': chunk too large", zPath);
    }
    if (!rc && cb > (256u << 20)) rc = cairnErr(CAIRN_RANGE, "dataset '%s': %llu-byte chunks (256 MiB max)", zPath, (unsigned long long)cb);
    if (!rc && rowElems(d) * t->size * d->aChunk[0] > (1ull << 30))
      rc = cairnErr(CAIRN_RANGE, "dataset '%s': a row block of chunks exceeds 1 GiB", zPath);
  }
  if (!rc && opt.pFill) {
    if (!(d->pFill = cairnMalloc(t->size))) rc = cairnErr(CAIRN_NOMEM, "out of memory");
    else memcpy(d->pFill, opt.pFill, t->size);
  }
  H5wObj *g = NULL, *o = NULL;
  const char *zLeaf = NULL;
  if (!rc) rc = cairnH5wCreateChild(w, zPath, &g, &zLeaf);
  if (!rc && !(o = cairnMallocZero(sizeof *o))) rc = cairnErr(CAIRN_NOMEM, "out of memory");
  if (rc) {
    cairnH5wDsetFree(d);
    return rc;
  }
  o->addr = H5_UNDEF;
  o->pDset = d;
  /* file-form data for vlen strings */
  const uint8_t *pFile = pData;
  uint8_t *pConv = NULL;
  if (pData && t->bHasVlen) {
    if (!(pConv = cairnMalloc((size_t)(nByte ? nByte : 1)))) rc = cairnErr(CAIRN_NOMEM, "dataset '%s': out of memory", zPath);
    else rc = cairnH5wVlenToFile(w, t->vlenKind, t->vlenUnit, pData, nEl, pConv);
    pFile = pConv;
  }
  /* messages: dataspace, datatype, fill value, layout, filters */
  uint8_t sp[4 + 16 * CAIRN_H5W_MAXRANK];
  if (!rc) {
    d->iSpaceMsg = o->nMsg;
    rc = cairnH5wObjAddMsg(o, H5_MSG_DATASPACE, 0, sp, (size_t)cairnH5wEncodeSpace(sp, rank, dims, bResizable ? d->aMax : NULL));
  }
  if (!rc) {
    uint8_t *te;
    size_t tn;
    rc = cairnH5wTypeEncode(t, &te, &tn);
    if (!rc) {
      rc = cairnH5wObjAddMsg(o, H5_MSG_DATATYPE, 1, te, tn);
      cairnFree(te);
    }
  }
  if (!rc) {
    uint8_t fv[8 + 64];
    size_t nfv = 2;
    uint8_t alloc = d->layout == CAIRN_H5W_CHUNKED ? 3 : 1;
    fv[0] = 3;
    fv[1] = (uint8_t)(alloc | (2 << 2));
    uint8_t *big = NULL;
    if (d->pFill) {
      fv[1] |= 0x20;
      if (t->size + 6 > sizeof fv) big = cairnMalloc(t->size + 6);
      uint8_t *q = big ? big : fv;
      q[0] = fv[0], q[1] = fv[1];
      cairnPutLE32(q + 2, (uint32_t)t->size);
      memcpy(q + 6, d->pFill, t->size);
      nfv = 6 + t->size;
      rc = (t->size + 6 > sizeof fv && !big) ? cairnErr(CAIRN_NOMEM, "out of memory") : cairnH5wObjAddMsg(o, H5_MSG_FILLVALUE, 1, q, nfv);
      cairnFree(big);
    } else rc = cairnH5wObjAddMsg(o, H5_MSG_FILLVALUE, 1, fv, nfv);
  }
  if (!rc && d->nFilter) {
    uint8_t fp[2 + 8 * (8 + 64 + 32)];
    size_t i = 2;
    fp[0] = 2;
    fp[1] = (uint8_t)d->nFilter;
    for (int k = 0; k < d->nFilter; k++) {
      const H5wFilter *f = &d->aFilter[k];
      const char *zName = f->id == 32015 ? "Zstandard compression: http://www.zstd.net" : f->id == 32004 ? "HDF5 lz4 filter; see http://www.hdfgroup.org/services/contributions.html" : NULL;
      cairnPutLE16(fp + i, f->id), i += 2;
      if (f->id >= 256) cairnPutLE16(fp + i, (uint16_t)(strlen(zName) + 1)), i += 2;
      cairnPutLE16(fp + i, f->flags), i += 2;
      cairnPutLE16(fp + i, (uint16_t)f->nCd), i += 2;
      if (f->id >= 256) memcpy(fp + i, zName, strlen(zName) + 1), i += strlen(zName) + 1;
      for (int c = 0; c < f->nCd; c++) cairnPutLE32(fp + i, f->aCd[c]), i += 4;
    }
    rc = cairnH5wObjAddMsg(o, H5_MSG_FILTER, 0, fp, i);
  }
  if (!rc) rc = cairnH5wEnsureAinfo(o);
  /* layout + data */
  if (!rc) {
    d->iLayoutMsg = o->nMsg;
    if (d->layout == CAIRN_H5W_COMPACT) {
      size_t nb = (size_t)nByte;
      uint8_t *ly = cairnMalloc(4 + nb);
      if (!ly) rc = cairnErr(CAIRN_NOMEM, "out of memory");
      else {
        ly[0] = 3, ly[1] = 0;
        cairnPutLE16(ly + 2, (uint16_t)nb);
        if (pFile) memcpy(ly + 4, pFile, nb);
        else fillPattern(d, ly + 4, nEl);
        rc = cairnH5wObjAddMsg(o, H5_MSG_LAYOUT, 0, ly, 4 + nb);
        cairnFree(ly);
      }
    } else if (d->layout == CAIRN_H5W_CONTIGUOUS) {
      uint64_t addr = H5_UNDEF;
      if (nByte) {
        rc = cairnH5wAlloc(w, nByte, &addr);
        if (!rc && pFile) rc = cairnH5wWrite(w, pFile, (size_t)nByte, addr);
        else if (!rc && !w->bSkipFill) { /* fill in bounded blocks */
          size_t blk = 1 << 20;
          blk -= blk % t->size;
          uint8_t *b = cairnMalloc(blk);
          if (!b) rc = cairnErr(CAIRN_NOMEM, "out of memory");
          else fillPattern(d, b, blk / t->size);
          for (uint64_t off = 0; !rc && off < nByte; off += blk)
            rc = cairnH5wWrite(w, b, (size_t)(nByte - off < blk ? nByte - off : blk), addr + off);
          cairnFree(b);
        }
      }
      uint8_t ly[18];
      ly[0] = 3, ly[1] = 1;
      cairnPutLE64(ly + 2, addr);
      cairnPutLE64(ly + 10, nByte);
      if (!rc) rc = cairnH5wObjAddMsg(o, H5_MSG_LAYOUT, 0, ly, sizeof ly);
      d->contigAddr = addr, d->contigSize = nByte, d->contigGen = w->txn;
    } else {
      uint8_t ly[3 + 8 + 4 * (CAIRN_H5W_MAXRANK + 1)] = {0};
      if (!rc) rc = cairnH5wObjAddMsg(o, H5_MSG_LAYOUT, 0, ly, layoutSize(d, 0));
      if (!rc) rc = updateChunkedMsgs(o);
      if (!rc && pFile && dims[0]) {
        rc = writeRows(w, d, 0, dims[0], pFile);
      }
    }
  }
  cairnFree(pConv);
  if (!rc) rc = cairnH5wLinkAdd(g, zLeaf, o);
  if (rc) {
    /* Nothing links to o; space it took is leaked until commit/repack but the file is intact. */
    o->pParent = NULL;
    for (int i = 0; i < o->nMsg; i++) cairnFree(o->aMsg[i].p);
    cairnFree(o->aMsg);
    cairnH5wDsetFree(d);
    cairnFree(o);
    return rc;
  }
  w->bChanged = 1;
  return CAIRN_OK;
}

/* Read rows [r0, r0 + nr) of dataset d (rank, dims: its shape) in native form into p (nb bytes):
** the row blocks in which append and repack copy a dataset. */
int cairnH5wReadRows(cairn_h5_obj *d, unsigned rank, const uint64_t *dims, uint64_t r0, uint64_t nr, void *p, size_t nb) {
  cairn_h5_sel sel;
  memset(&sel, 0, sizeof sel);
  sel.rank = rank;
  for (unsigned i = 0; i < rank; i++) sel.count[i] = dims[i];
  sel.start[0] = r0;
  sel.count[0] = nr;
  return cairn_h5_read(d, &sel, CAIRN_H5_NATIVE, p, nb);
}

/* ---------------------------------------------------------------- v4 chunk indexes */
/* A dataset whose chunks are indexed by a layout-v4 structure (extensible array, fixed array,
** v2 B-tree: libver latest) is given a version-1 B-tree on its first append: its rows are read
** through cairn's reader one block at a time and written again as new chunks with the same
** shape and filters; the old index and chunks are left unreferenced at the next commit. This
** costs one copy of this dataset, once, and keeps every reader able to open the file. */
static int convertV4(cairn_h5w *w, H5wObj *o, const char *zPath) {
  H5wDset *d = o->pDset;
  if (!o->zPath) return cairnErr(CAIRN_UNSUPPORTED, "append: dataset '%s' has a layout-v4 index and no committed path", zPath);
  if (d->bVlen) return cairnErr(CAIRN_UNSUPPORTED, "append: dataset '%s': variable-length data in a layout-v4 index", zPath);
  for (int i = 0; i < d->nFilter; i++) {
    uint16_t id = d->aFilter[i].id;
    if (id != 1 && id != 2 && id != 3 && id != 32004 && id != 32015)
      return cairnErr(CAIRN_UNSUPPORTED, "append: dataset '%s' uses filter %u", zPath, id);
  }
  if (w->bBadK) return cairnErr(CAIRN_UNSUPPORTED, "append: dataset '%s': the file sets a chunk B-tree K other than 32", zPath);
  CAIRN_TRY(cairnH5wFlush(w));
  cairn_h5 *h = NULL;
  cairn_h5_obj *src = NULL;
  cairn_h5_info in;
  int rc = cairn_h5_open(w->f, 0, &h);
  if (!rc) rc = cairn_h5_get(h, o->zPath, &src);
  if (!rc) rc = cairn_h5_info_get(src, &in);
  if (!rc && (in.typeBigEndian || in.layout != CAIRN_H5_CHUNKED || (int)in.rank != d->rank))
    rc = cairnErr(CAIRN_UNSUPPORTED, "append: dataset '%s': big-endian or unexpected layout", zPath);
  H5wDset save = *d;
  if (!rc) {
    d->layout = CAIRN_H5W_CHUNKED;
    for (int i = 0; i < d->rank; i++) d->aChunk[i] = in.chunk[i];
    d->nRec = 0;
    d->bIndexLoaded = 1;
    d->btreeAddr = H5_UNDEF;
    d->nLevels = 0;
    d->tailRow0 = NO_BLOCK;
    d->bTailDirty = 0;
  }
  uint64_t rowBytes = d->elSize;
  for (int i = 1; i < d->rank; i++) rowBytes *= d->aDim[i];
  uint64_t step = d->aChunk[0] ? d->aChunk[0] : 1;
  while (!rc && step * rowBytes < (4u << 20) && step * 2 <= d->aDim[0]) step *= 2;
  uint8_t *p = rc || !rowBytes ? NULL : cairnMalloc((size_t)(step * rowBytes));
  if (!rc && rowBytes && !p) rc = cairnErr(CAIRN_NOMEM, "append: out of memory converting '%s'", zPath);
  for (uint64_t r0 = 0; !rc && rowBytes && r0 < d->aDim[0]; r0 += step) {
    uint64_t nr = d->aDim[0] - r0 < step ? d->aDim[0] - r0 : step;
    rc = cairnH5wReadRows(src, in.rank, in.dims, r0, nr, p, (size_t)(nr * rowBytes));
    if (!rc) rc = writeRows(w, d, r0, nr, p);
  }
  cairnFree(p);
  cairn_h5_obj_close(src);
  cairn_h5_close(h);
  if (rc) {
    /* chunks written so far are in space nothing committed uses: leaked until the next reclaim */
    cairnFree(d->aRec);
    cairnFree(d->pTail);
    for (int l = 0; l < 8; l++) if (d->aLevel[l] != save.aLevel[l]) cairnFree(d->aLevel[l]);
    *d = save;
    d->aRec = NULL, d->nRec = d->nRecAlloc = 0, d->pTail = NULL, d->nTailAlloc = 0;
    return rc;
  }
  /* the layout message becomes version 3 (chunked, v1 B-tree), written at commit */
  uint8_t ly[3 + 8 + 4 * (CAIRN_H5W_MAXRANK + 1)] = {0};
  rc = cairnH5wObjSetMsg(o, d->iLayoutMsg, ly, layoutSize(d, 0));
  if (!rc) rc = updateChunkedMsgs(o);
  if (rc) return cairnH5wFail(w, rc);
  d->bShapeDirty = 1;
  cairnH5wObjDirty(o);
  w->bChanged = 1;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- append */
static int dsetFind(cairn_h5w *w, const char *zPath, H5wObj **ppO, const char *zWhat) {
  H5wObj *o;
  CAIRN_TRY(cairnH5wLookup(w, zPath, &o));
  if (!o->pDset) return cairnErr(CAIRN_TYPE, "%s: '%s' is not a dataset", zWhat, zPath);
  if (o->pDset->bShared) return cairnErr(CAIRN_UNSUPPORTED, "%s: dataset '%s' uses shared (SOHM) messages", zWhat, zPath);
  *ppO = o;
  return CAIRN_OK;
}

int cairn_h5w_append(cairn_h5w *w, const char *zPath, uint64_t nRows, const void *pData) {
  if (!w || !zPath || (nRows && !pData)) return cairnErr(CAIRN_MISUSE, "cairn_h5w_append: bad arguments");
  if (w->rcFatal) return cairnErr(w->rcFatal, "cairn_h5w_append: the writer failed earlier");
  if (w->bReadOnly) return cairnErr(CAIRN_READONLY, "cairn_h5w_append: file opened read-only");
  H5wObj *o = NULL;
  CAIRN_TRY(dsetFind(w, zPath, &o, "append"));
  CAIRN_TRY(cairnH5wCheckChain(o, zPath));
  CAIRN_TRY(cairnH5wCheckRefs(w, zPath));
  H5wDset *d = o->pDset;
  if (d->layout == -1) CAIRN_TRY(convertV4(w, o, zPath));
  if (d->layout != CAIRN_H5W_CHUNKED || d->rank == 0)
    return cairnErr(CAIRN_TYPE, "append: dataset '%s' is not chunked", zPath);
  if (d->aMax[0] != CAIRN_H5W_UNLIMITED && d->aDim[0] + nRows > d->aMax[0])
    return cairnErr(CAIRN_RANGE, "append: dataset '%s' can hold %llu rows, has %llu, asked for %llu more", zPath,
                    (unsigned long long)d->aMax[0], (unsigned long long)d->aDim[0], (unsigned long long)nRows);
  if (d->nFilter && d->nFilter > 0) {
    for (int i = 0; i < d->nFilter; i++) {
      uint16_t id = d->aFilter[i].id;
      if (id != 1 && id != 2 && id != 3 && id != 32004 && id != 32015)
        return cairnErr(CAIRN_UNSUPPORTED, "append: dataset '%s' uses filter %u", zPath, id);
    }
  }
  if (nRows == 0) return CAIRN_OK;
  CAIRN_TRY(indexLoad(w, d));
  uint64_t nEl = nRows * rowElems(d);
  const uint8_t *p = pData;
  uint8_t *pConv = NULL;
  if (d->bVlen) {
    if (!(pConv = cairnMalloc((size_t)(nEl * 16)))) return cairnErr(CAIRN_NOMEM, "append: out of memory");
    int rc = cairnH5wVlenToFile(w, d->vlenKind, d->vlenUnit, pData, nEl, pConv);
    if (rc) {
      cairnFree(pConv);
      return rc;
    }
    p = pConv;
  }
  uint64_t row0 = d->aDim[0];
  d->aDim[0] += nRows;
  int rc = writeRows(w, d, row0, nRows, p);
  cairnFree(pConv);
  if (rc) return cairnH5wFail(w, rc);
  d->bShapeDirty = 1; /* dataspace and layout messages are re-encoded once, at commit */
  if (!o->bDirty) cairnH5wObjDirty(o);
  w->bChanged = 1;
  return CAIRN_OK;
}

/* Grow the first dimension to nRows: the new rows are appended as the fill value, one bounded
** block (about 1 MiB) at a time, through the append path (same checks, same tail handling). */
int cairn_h5w_resize(cairn_h5w *w, const char *zPath, uint64_t nRows) {
  if (!w || !zPath) return cairnErr(CAIRN_MISUSE, "cairn_h5w_resize: bad arguments");
  if (w->rcFatal) return cairnErr(w->rcFatal, "cairn_h5w_resize: the writer failed earlier");
  if (w->bReadOnly) return cairnErr(CAIRN_READONLY, "cairn_h5w_resize: file opened read-only");
  H5wObj *o = NULL;
  CAIRN_TRY(dsetFind(w, zPath, &o, "resize"));
  H5wDset *d = o->pDset;
  if (d->rank == 0) return cairnErr(CAIRN_TYPE, "resize: dataset '%s' is a scalar", zPath);
  if (nRows < d->aDim[0])
    return cairnErr(CAIRN_UNSUPPORTED, "resize: dataset '%s' has %llu rows; the writer only grows datasets (to %llu asked)", zPath,
                    (unsigned long long)d->aDim[0], (unsigned long long)nRows);
  if (nRows == d->aDim[0]) return CAIRN_OK;
  if (d->bVlen) return cairnErr(CAIRN_UNSUPPORTED, "resize: dataset '%s' holds variable-length data (append rows instead)", zPath);
  if (d->aMax[0] != CAIRN_H5W_UNLIMITED && nRows > d->aMax[0])
    return cairnErr(CAIRN_RANGE, "resize: dataset '%s' can hold %llu rows, asked for %llu", zPath, (unsigned long long)d->aMax[0],
                    (unsigned long long)nRows);
  uint64_t nAdd = nRows - d->aDim[0], rowBytes = rowElems(d) * d->elSize, per = rowBytes ? (1u << 20) / rowBytes : nAdd;
  if (per == 0) per = 1;
  if (per > nAdd) per = nAdd;
  size_t nb = (size_t)(per * rowBytes);
  uint8_t *b = cairnMalloc(nb ? nb : 1);
  if (!b) return cairnErr(CAIRN_NOMEM, "resize: out of memory");
  fillPattern(d, b, per * rowElems(d));
  int rc = CAIRN_OK;
  while (!rc && d->aDim[0] < nRows) {
    uint64_t n = nRows - d->aDim[0] < per ? nRows - d->aDim[0] : per;
    rc = cairn_h5w_append(w, zPath, n, b);
  }
  cairnFree(b);
  return rc;
}

/* Overwrite rows [row0, row0 + nRows) of a dataset. Committed bytes are never written over:
** chunks are rewritten (copy-on-write, read-modify-write for partial ones), contiguous storage
** of an earlier transaction is first copied to new space (once per transaction), compact data
** lives in the header, which is rewritten at commit anyway. */
int cairn_h5w_write(cairn_h5w *w, const char *zPath, uint64_t row0, uint64_t nRows, const void *pData) {
  if (!w || !zPath || (nRows && !pData)) return cairnErr(CAIRN_MISUSE, "cairn_h5w_write: bad arguments");
  if (w->rcFatal) return cairnErr(w->rcFatal, "cairn_h5w_write: the writer failed earlier");
  if (w->bReadOnly) return cairnErr(CAIRN_READONLY, "cairn_h5w_write: file opened read-only");
  H5wObj *o = NULL;
  CAIRN_TRY(dsetFind(w, zPath, &o, "write"));
  CAIRN_TRY(cairnH5wCheckChain(o, zPath));
  CAIRN_TRY(cairnH5wCheckRefs(w, zPath));
  H5wDset *d = o->pDset;
  uint64_t nRowsAll = d->rank ? d->aDim[0] : 1, rowEl = 1;
  for (int i = 1; i < d->rank; i++) rowEl *= d->aDim[i];
  if (row0 > nRowsAll || nRows > nRowsAll - row0)
    return cairnErr(CAIRN_RANGE, "write: rows %llu..%llu outside the %llu rows of '%s'", (unsigned long long)row0,
                    (unsigned long long)(row0 + nRows), (unsigned long long)nRowsAll, zPath);
  if (nRows == 0) return CAIRN_OK;
  if (d->layout == 0) return cairnErr(CAIRN_UNSUPPORTED, "write: dataset '%s' has a layout the writer cannot edit", zPath);
  uint64_t rowBytes = rowEl * d->elSize, nEl = nRows * rowEl;
  const uint8_t *p = pData;
  uint8_t *pConv = NULL;
  if (d->bVlen) {
    if (!(pConv = cairnMalloc((size_t)(nEl * 16)))) return cairnErr(CAIRN_NOMEM, "write: out of memory");
    int rc = cairnH5wVlenToFile(w, d->vlenKind, d->vlenUnit, pData, nEl, pConv);
    if (rc) {
      cairnFree(pConv);
      return rc;
    }
    p = pConv;
  }
  int rc = CAIRN_OK;
  if (d->layout == -1) rc = convertV4(w, o, zPath);
  if (!rc && d->layout == CAIRN_H5W_COMPACT) {
    H5wMsg *m = &o->aMsg[d->iLayoutMsg];
    if (m->n < 4 + (row0 + nRows) * rowBytes) rc = cairnErr(CAIRN_CORRUPT, "compact layout of '%s' is short", zPath);
    else memcpy(m->p + 4 + row0 * rowBytes, p, (size_t)(nRows * rowBytes));
  } else if (!rc && d->layout == CAIRN_H5W_CONTIGUOUS) {
    if (d->contigAddr == H5_UNDEF || d->contigGen != w->txn) {
      /* copy the committed storage to new space first (or allocate it: late allocation) */
      uint64_t size = nRowsAll * rowBytes, addr;
      rc = cairnH5wAlloc(w, size ? size : 1, &addr);
      uint8_t *b = rc ? NULL : cairnMalloc(1 << 20);
      if (!rc && !b) rc = cairnErr(CAIRN_NOMEM, "write: out of memory");
      for (uint64_t off = 0; !rc && off < size; off += 1 << 20) {
        size_t m = (size_t)(size - off < (1u << 20) ? size - off : (1u << 20));
        if (d->contigAddr != H5_UNDEF) rc = cairnH5wRead(w, b, m, d->contigAddr + off);
        else fillPattern(d, b, m / d->elSize);
        if (!rc) rc = cairnH5wWrite(w, b, m, addr + off);
      }
      cairnFree(b);
      if (!rc) {
        cairnH5wFree(w, d->contigAddr, d->contigSize, d->contigGen != w->txn);
        d->contigAddr = addr, d->contigSize = size, d->contigGen = w->txn;
        uint8_t ly[18];
        ly[0] = 3, ly[1] = 1;
        cairnPutLE64(ly + 2, addr);
        cairnPutLE64(ly + 10, size);
        rc = cairnH5wObjSetMsg(o, d->iLayoutMsg, ly, sizeof ly);
      }
    }
    if (!rc) rc = cairnH5wWrite(w, p, (size_t)(nRows * rowBytes), d->contigAddr + row0 * rowBytes);
  } else if (!rc && d->layout == CAIRN_H5W_CHUNKED) {
    rc = indexLoad(w, d);
    if (!rc) rc = writeRows(w, d, row0, nRows, p);
  }
  cairnFree(pConv);
  if (rc) return CAIRN_PRIMARY(rc) == CAIRN_IOERR ? cairnH5wFail(w, rc) : rc;
  cairnH5wObjDirty(o);
  w->bChanged = 1;
  return CAIRN_OK;
}

int cairn_h5w_shape(cairn_h5w *w, const char *zPath, int *pRank, uint64_t *dims) {
  if (!w || !zPath || !pRank) return cairnErr(CAIRN_MISUSE, "cairn_h5w_shape: NULL argument");
  H5wObj *o = NULL;
  CAIRN_TRY(dsetFind(w, zPath, &o, "shape"));
  *pRank = o->pDset->rank;
  if (dims) memcpy(dims, o->pDset->aDim, sizeof(uint64_t) * (size_t)o->pDset->rank);
  return CAIRN_OK;
}

int cairn_h5w_dtype(cairn_h5w *w, const char *zPath, int *pClass, size_t *pSize, int *pSigned) {
  if (!w || !zPath || !pClass || !pSize || !pSigned) return cairnErr(CAIRN_MISUSE, "cairn_h5w_dtype: NULL argument");
  H5wObj *o = NULL;
  CAIRN_TRY(dsetFind(w, zPath, &o, "dtype"));
  for (int i = 0; i < o->nMsg; i++)
    if (o->aMsg[i].type == H5_MSG_DATATYPE && o->aMsg[i].n >= 8) {
      const uint8_t *p = o->aMsg[i].p;
      *pClass = p[0] & 0x0f;
      *pSize = cairnGetLE32(p + 4);
      *pSigned = *pClass == 0 && (p[1] & 0x08) != 0;
      return CAIRN_OK;
    }
  return cairnErr(CAIRN_CORRUPT, "dataset '%s' has no datatype message", zPath);
}

/* ---------------------------------------------------------------- load */
int cairnH5wDsetLoad(cairn_h5w *w, H5wObj *o) {
  (void)w;
  H5wDset *d = cairnMallocZero(sizeof *d);
  if (!d) return cairnErr(CAIRN_NOMEM, "dataset: out of memory");
  d->tailRow0 = NO_BLOCK;
  d->btreeAddr = H5_UNDEF;
  d->iSpaceMsg = d->iLayoutMsg = -1;
  o->pDset = d;
  int cls = 0;
  for (int i = 0; i < o->nMsg; i++) {
    const H5wMsg *m = &o->aMsg[i];
    const uint8_t *p = m->p;
    size_t n = m->n;
    if ((m->flags & H5_MSGF_SHARED) && (m->type == H5_MSG_DATASPACE || m->type == H5_MSG_DATATYPE || m->type == H5_MSG_FILLVALUE ||
                              m->type == H5_MSG_FILTER || m->type == H5_MSG_LAYOUT)) {
      d->bShared = 1; /* a shared (SOHM or committed) message: this dataset is kept as it is */
      if (m->type == H5_MSG_DATASPACE) d->iSpaceMsg = i;
      if (m->type == H5_MSG_LAYOUT) d->iLayoutMsg = i;
      continue;
    }
    if (m->type == H5_MSG_DATASPACE && n >= 4) {
      d->iSpaceMsg = i;
      int ver = p[0], rank = p[1], fl = p[2];
      size_t off = ver == 1 ? 8 : 4;
      if (rank > CAIRN_H5W_MAXRANK || off + 8 * (size_t)rank * ((fl & 1) ? 2 : 1) > n)
        return cairnErr(CAIRN_UNSUPPORTED, "dataspace of rank %d at %llu", rank, (unsigned long long)o->addr);
      d->rank = rank;
      for (int k = 0; k < rank; k++) {
        d->aDim[k] = cairnGetLE64(p + off + 8 * k);
        d->aMax[k] = (fl & 1) ? cairnGetLE64(p + off + 8 * (rank + k)) : d->aDim[k];
      }
    } else if (m->type == H5_MSG_DATATYPE) {
      CAIRN_TRY(cairnH5wTypeInfo(p, n, &cls, &d->elSize, &d->bVlen));
      if (d->bVlen) cairnH5wVlenInfo(p, n, &d->vlenKind, &d->vlenUnit);
    } else if (m->type == H5_MSG_LAYOUT && n >= 2) {
      d->iLayoutMsg = i;
      if (p[0] == 3 && p[1] == 2 && n >= 3 + 8) {
        d->layout = CAIRN_H5W_CHUNKED;
        int nd = p[2];
        if (nd < 2 || 3 + 8 + 4 * (size_t)nd > n) return cairnErr(CAIRN_CORRUPT, "layout message at %llu", (unsigned long long)o->addr);
        d->btreeAddr = cairnGetLE64(p + 3);
        for (int k = 0; k < nd - 1 && k < CAIRN_H5W_MAXRANK; k++) d->aChunk[k] = cairnGetLE32(p + 11 + 4 * k);
      } else if (p[0] == 3 && p[1] == 1 && n >= 18) {
        d->layout = CAIRN_H5W_CONTIGUOUS;
        d->contigAddr = cairnGetLE64(p + 2);
        d->contigSize = cairnGetLE64(p + 10);
        d->contigGen = 0; /* committed: written again only after a copy (see cairn_h5w_write) */
      }
      else if (p[0] == 3 && p[1] == 0) d->layout = CAIRN_H5W_COMPACT;
      else d->layout = (p[0] == 4 && p[1] == 2) ? -1 : 0; /* v4 chunk indexes and others: not editable (yet) */
    } else if (m->type == H5_MSG_FILTER && n >= 2) {
      int ver = p[0], nf = p[1];
      size_t i2 = ver == 1 ? 8 : 2;
      if (nf > 8) return cairnErr(CAIRN_UNSUPPORTED, "%d filters", nf);
      for (int k = 0; k < nf; k++) {
        H5wFilter *f = &d->aFilter[k];
        if (i2 + 2 > n) return cairnErr(CAIRN_CORRUPT, "filter pipeline message at %llu", (unsigned long long)o->addr);
        f->id = cairnGetLE16(p + i2);
        i2 += 2;
        size_t nName = 0;
        if (ver == 1 || f->id >= 256) {
          if (i2 + 2 > n) return cairnErr(CAIRN_CORRUPT, "filter pipeline message");
          nName = cairnGetLE16(p + i2);
          i2 += 2;
        }
        if (i2 + 4 > n) return cairnErr(CAIRN_CORRUPT, "filter pipeline message");
        f->flags = cairnGetLE16(p + i2);
        int nCd = cairnGetLE16(p + i2 + 2);
        i2 += 4;
        if (ver == 1) nName = (nName + 7) & ~(size_t)7;
        i2 += nName;
        f->nCd = nCd < 8 ? nCd : 8;
        for (int c = 0; c < nCd; c++) {
          if (i2 + 4 > n) return cairnErr(CAIRN_CORRUPT, "filter pipeline message");
          if (c < 8) f->aCd[c] = cairnGetLE32(p + i2);
          i2 += 4;
        }
        if (ver == 1 && (nCd & 1)) i2 += 4;
      }
      d->nFilter = nf;
    } else if (m->type == H5_MSG_FILLVALUE && n >= 2 && p[0] == 3 && (p[1] & 0x20) && n >= 6) {
      size_t fs = cairnGetLE32(p + 2);
      if (fs && fs <= n - 6 && (d->elSize == 0 || fs == d->elSize)) {
        d->pFill = cairnMalloc(fs);
        if (!d->pFill) return cairnErr(CAIRN_NOMEM, "out of memory");
        memcpy(d->pFill, p + 6, fs);
      }
    }
  }
  if (d->bShared) {
    /* Shared dataspace/datatype/filters: the writer does not resolve them, so it edits only
    ** this dataset's attributes (the messages are copied as they are); data operations refuse. */
    if (d->iSpaceMsg < 0 || d->iLayoutMsg < 0) return cairnErr(CAIRN_CORRUPT, "dataset at %llu lacks a dataspace or layout", (unsigned long long)o->addr);
    d->layout = 0;
    if (d->elSize == 0) d->elSize = 1;
    return CAIRN_OK;
  }
  if (d->iSpaceMsg < 0 || d->iLayoutMsg < 0 || d->elSize == 0)
    return cairnErr(CAIRN_CORRUPT, "dataset at %llu lacks a dataspace, datatype or layout", (unsigned long long)o->addr);
  if (d->layout == CAIRN_H5W_CHUNKED && d->rank == 0) d->layout = 0;
  for (int k = 0; k < d->rank && d->layout == CAIRN_H5W_CHUNKED; k++)
    if (d->aChunk[k] == 0) return cairnErr(CAIRN_CORRUPT, "chunk dimension 0 at %llu", (unsigned long long)o->addr);
  if (d->pFill && d->elSize == 0) cairnFree(d->pFill), d->pFill = NULL;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- verify (read back) */
void cairnH5wHeapCacheClear(cairn_h5w *w) {
  cairnFree(w->pGc);
  w->pGc = NULL;
  w->gcAddr = H5_UNDEF;
}

static int heapGet(cairn_h5w *w, uint64_t addr, uint32_t idx, const uint8_t **pp, uint64_t *pn) {
  if (!w->pGc || w->gcAddr != addr) {
    cairnH5wHeapCacheClear(w);
    uint8_t hd[16];
    CAIRN_TRY(cairnH5wRead(w, hd, 16, addr));
    uint64_t size = cairnGetLE64(hd + 8);
    if (memcmp(hd, H5_SIG_GCOL, 4) != 0 || hd[4] != 1 || size < 16 || size > (64u << 20))
      return cairnErr(CAIRN_CORRUPT, "no global heap collection at %llu", (unsigned long long)addr);
    w->pGc = cairnMalloc((size_t)size);
    if (!w->pGc) return cairnErr(CAIRN_NOMEM, "global heap: out of memory");
    int rc = cairnH5wRead(w, w->pGc, (size_t)size, addr);
    if (rc) {
      cairnH5wHeapCacheClear(w);
      return rc;
    }
    w->gcAddr = addr;
    w->nGc = (size_t)size;
    cairnH5wUsed(w, addr, size);
  }
  size_t off = 16;
  while (off + 16 <= w->nGc) {
    const uint8_t *o = w->pGc + off;
    uint32_t k = cairnGetLE16(o);
    uint64_t n = cairnGetLE64(o + 8);
    if (k == 0) break;
    if (n > w->nGc - off - 16) break;
    if (k == idx) {
      *pp = o + 16;
      *pn = n;
      return CAIRN_OK;
    }
    off += 16 + (size_t)((n + 7) & ~(uint64_t)7);
  }
  return cairnErr(CAIRN_CORRUPT, "global heap object %u not in the collection at %llu", idx, (unsigned long long)addr);
}

static int hashVlen(cairn_h5w *w, const uint8_t *p, uint64_t nEl, size_t unit, cairn_sha256_ctx *h) {
  for (uint64_t i = 0; i < nEl; i++) {
    const uint8_t *e = p + 16 * i;
    uint32_t len = cairnGetLE32(e);
    uint64_t addr = cairnGetLE64(e + 4);
    uint8_t b[4];
    cairnPutLE32(b, len);
    if (addr == 0 || addr == H5_UNDEF) {
      cairn_sha256_update(h, "\xff\xff\xff\xff", 4);
      continue;
    }
    const uint8_t *s = NULL;
    uint64_t n = 0;
    CAIRN_TRY(heapGet(w, addr, cairnGetLE32(e + 12), &s, &n));
    uint64_t nb = (uint64_t)len * unit;
    if (nb > n) return cairnErr(CAIRN_CORRUPT, "variable-length element of %llu bytes in a %llu-byte heap object", (unsigned long long)nb, (unsigned long long)n);
    cairn_sha256_update(h, b, 4);
    cairn_sha256_update(h, s, (size_t)nb);
  }
  return CAIRN_OK;
}

static int spaceCount(const uint8_t *p, size_t n, uint64_t *pnEl, size_t *pnUsed) {
  if (n < 4) return cairnErr(CAIRN_CORRUPT, "dataspace of %zu bytes", n);
  int ver = p[0], rank = p[1], fl = p[2];
  size_t off = ver == 1 ? 8 : 4;
  size_t need = off + 8 * (size_t)rank * ((fl & 1) ? 2 : 1);
  if (need > n || rank > 32) return cairnErr(CAIRN_CORRUPT, "dataspace of rank %d", rank);
  uint64_t ne = (ver >= 2 && p[3] == 2) ? 0 : 1;
  for (int i = 0; i < rank; i++)
    if (cairnMulOverflow64(ne, cairnGetLE64(p + off + 8 * i), &ne)) return cairnErr(CAIRN_CORRUPT, "dataspace too large");
  *pnEl = ne;
  *pnUsed = need;
  return CAIRN_OK;
}

int cairnH5wAttrDigest(cairn_h5w *w, const H5wMsg *m, cairn_sha256_ctx *h) {
  const uint8_t *p = m->p;
  size_t n = m->n;
  if (n < 8 || p[0] < 1 || p[0] > 3) return cairnErr(CAIRN_CORRUPT, "attribute message version %d", n ? p[0] : -1);
  int v = p[0];
  size_t nName = cairnGetLE16(p + 2), nType = cairnGetLE16(p + 4), nSpace = cairnGetLE16(p + 6);
  size_t off = v == 3 ? 9 : 8;
#define PAD(x) (v == 1 ? (((x) + 7) & ~(size_t)7) : (x))
  if (off + PAD(nName) + PAD(nType) + PAD(nSpace) > n) return cairnErr(CAIRN_CORRUPT, "attribute message sizes overrun it");
  const uint8_t *t = p + off + PAD(nName), *s = t + PAD(nType), *data = s + PAD(nSpace);
#undef PAD
  cairn_sha256_update(h, p + off, nName);
  cairn_sha256_update(h, t, nType);
  int cls = 0;
  size_t el = 0;
  int bVlen = 0;
  uint64_t nEl = 0, nData = 0;
  size_t used = 0;
  CAIRN_TRY(cairnH5wTypeInfo(t, nType, &cls, &el, &bVlen));
  if (cairnH5wTypeMayHideVlen(t, nType)) w->bUnsafe = 1;
  CAIRN_TRY(spaceCount(s, nSpace, &nEl, &used));
  cairn_sha256_update(h, s, used);
  size_t rest = (size_t)(p + n - data);
  if (cairnMulOverflow64(nEl, el, &nData) || nData > rest) return cairnErr(CAIRN_CORRUPT, "attribute data overruns its message");
  if (bVlen && el == 16) {
    int kind;
    size_t unit;
    cairnH5wVlenInfo(t, nType, &kind, &unit);
    return hashVlen(w, data, nEl, unit, h);
  }
  cairn_sha256_update(h, data, (size_t)nData);
  return CAIRN_OK;
}

int cairnH5wDsetDigest(cairn_h5w *w, H5wObj *o, cairn_sha256_ctx *h) {
  H5wDset *d = o->pDset;
  const H5wMsg *ly = &o->aMsg[d->iLayoutMsg];
  int bVlen = d->bVlen && d->elSize == 16;
  if (d->layout == CAIRN_H5W_CONTIGUOUS) {
    if (ly->n < 18) return cairnErr(CAIRN_CORRUPT, "contiguous layout message");
    uint64_t addr = cairnGetLE64(ly->p + 2), size = cairnGetLE64(ly->p + 10);
    if (addr == H5_UNDEF) return CAIRN_OK;
    if (addr + size < addr || addr + size > w->eofCommitted) return cairnErr(CAIRN_CORRUPT, "contiguous data at %llu past end of file", (unsigned long long)addr);
    cairnH5wUsed(w, addr, size);
    if (w->bCollect && !bVlen) return CAIRN_OK; /* accounting only: no need to read the bytes */
    size_t blk = 65536;
    uint8_t *b = cairnMalloc(blk);
    if (!b) return cairnErr(CAIRN_NOMEM, "verify: out of memory");
    int rc = CAIRN_OK;
    for (uint64_t off = 0; off < size && !rc; off += blk) {
      size_t m = (size_t)(size - off < blk ? size - off : blk);
      rc = cairnH5wRead(w, b, m, addr + off);
      if (!rc && bVlen) rc = hashVlen(w, b, m / 16, d->vlenUnit, h);
      else if (!rc) cairn_sha256_update(h, b, m);
    }
    cairnFree(b);
    return rc;
  }
  if (d->layout == CAIRN_H5W_COMPACT) {
    if (bVlen && ly->n >= 4) return hashVlen(w, ly->p + 4, (ly->n - 4) / 16, d->vlenUnit, h);
    return CAIRN_OK; /* the bytes are in the layout message, already hashed */
  }
  if (d->layout != CAIRN_H5W_CHUNKED) return CAIRN_OK; /* v4 chunk indexes: the layout message bytes were hashed, chunks are not decoded */
  CAIRN_TRY(indexLoad(w, d));
  size_t nc = (size_t)(chunkElems(d) * d->elSize);
  uint8_t *c = cairnMalloc(nc ? nc : 1), *raw = NULL;
  int rc = c ? CAIRN_OK : cairnErr(CAIRN_NOMEM, "verify: out of memory");
  for (uint64_t i = 0; i < d->nRec && !rc; i++) {
    const H5wChunk *r = &d->aRec[i];
    cairnH5wUsed(w, r->addr, r->nByte);
    if (w->bCollect && !bVlen) continue; /* accounting only */
    for (int k = 0; k < d->rank; k++) hashU64h(h, r->aOff[k]);
    if (r->nByte > nc * 2 + (1u << 20) || r->addr + r->nByte > w->eofCommitted) {
      rc = cairnErr(CAIRN_CORRUPT, "chunk at %llu of %u bytes", (unsigned long long)r->addr, r->nByte);
      break;
    }
    cairnFree(raw);
    if (!(raw = cairnMalloc(r->nByte ? r->nByte : 1))) { rc = cairnErr(CAIRN_NOMEM, "verify: out of memory"); break; }
    rc = cairnH5wRead(w, raw, r->nByte, r->addr);
    if (!rc) {
      if (d->nFilter) rc = cairnH5wFilterUndo(d->aFilter, d->nFilter, r->mask, raw, r->nByte, c, nc);
      else if (r->nByte != nc) rc = cairnErr(CAIRN_CORRUPT, "chunk at %llu of %u bytes, want %zu", (unsigned long long)r->addr, r->nByte, nc);
      else memcpy(c, raw, nc);
    }
    if (!rc && bVlen) rc = hashVlen(w, c, nc / 16, d->vlenUnit, h);
    else if (!rc) cairn_sha256_update(h, c, nc);
  }
  cairnFree(c);
  cairnFree(raw);
  return rc;
}
