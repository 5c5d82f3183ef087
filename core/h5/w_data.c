/*
** 2026-11-29
**
** core/h5/w_data.c - datasets for the HDF5 writer: compact, contiguous and chunked layouts
** (data layout message version 3), fill values (version 3), the filter pipeline message
** (version 2), chunk indexes as version-1 B-trees (node type 1, K = 32: what every reader,
** jsfive and libhdf5 1.8 included, opens), appends along the first dimension, and the global
** heap collections ("GCOL") that hold variable-length strings. The dataset calls that use all
** this (create, append, load, verify) are w_dset.c's.
**
** Appends keep one row block (chunk[0] rows of full width) in memory: complete blocks are cut
** into chunks, filtered (in parallel through cairnParallelFor) and written at once; a partial
** block is written at commit and rewritten (copy-on-write) when it grows. The B-tree is packed
** (64 entries per node, left to right), so an append rewrites only the right-most path.
*/
#include "h5/h5w.h"

#define BT_K 32
#define BT_FAN (2 * BT_K)

static size_t keySize(int rank) { return 8 + 8 * ((size_t)rank + 1); }
static size_t nodeSize(int rank) { return 24 + (BT_FAN + 1) * keySize(rank) + BT_FAN * 8; }

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
  /* records ascend by chunk offset (the B-tree's key order, and recFind's) */
  cairnAssert(i == 0 || offCmp(d->aRec[i - 1].aOff, off, d->rank) < 0);
  cairnAssert(i + 1 >= d->nRec || offCmp(off, d->aRec[i + 1].aOff, d->rank) < 0);
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

void cairnH5wFillPattern(const H5wDset *d, uint8_t *p, uint64_t nEl) {
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
  size_t n = (size_t)(cairnH5wChunkElems(d) * d->elSize);
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
  if (bEdge) cairnH5wFillPattern(d, c, cairnH5wChunkElems(d)); /* edge chunks: the part outside the dataset */
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

int cairnH5wChunkPut(cairn_h5w *w, H5wDset *d, const uint64_t *off, const uint8_t *p) {
  size_t n = (size_t)(cairnH5wChunkElems(d) * d->elSize), nOut = n;
  uint8_t *pOwn = NULL;
  const uint8_t *q = p;
  int rc = CAIRN_OK;
  if (d->nFilter) {
    rc = cairnH5wFilterApply(d->aFilter, d->nFilter, p, n, &pOwn, &nOut);
    q = pOwn;
  }
  if (!rc && nOut > 0xffffffffu) rc = cairnErr(CAIRN_RANGE, "chunk of %zu bytes after filtering (max 4 GiB)", nOut);
  uint64_t addr;
  if (!rc) rc = cairnH5wAlloc(w, nOut, &addr);
  if (!rc) rc = cairnH5wWrite(w, q, nOut, addr);
  if (!rc) rc = recPut(w, d, off, addr, (uint32_t)nOut);
  cairnFree(pOwn);
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
        cairnAssert(r < d->nRec && (r == 0 || offCmp(d->aRec[r - 1].aOff, d->aRec[r].aOff, d->rank) < 0)); /* keys ascend */
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

/* lo/hi: the parent's keys around this node (NULL at the root). */
static int btreeRead(cairn_h5w *w, H5wDset *d, uint64_t addr, int expectLevel, BtLoad *bl, int depth, const uint8_t *lo, const uint8_t *hi) {
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
  if (!rc && n == 0 && (level || depth)) rc = cairnErr(CAIRN_CORRUPT, "chunk B-tree node at %llu is empty", (unsigned long long)addr);
  if (!rc) {
    const char *zWhy = cairnH5ChunkNodeCheck(p, n, (uint32_t)d->rank, d->aChunk, 8, lo, hi);
    if (zWhy) rc = cairnErr(CAIRN_CORRUPT, "chunk B-tree node at %llu is damaged: %s", (unsigned long long)addr, zWhy);
  }
  for (unsigned i = 0; i < n && !rc; i++) {
    const uint8_t *k = p + i * (ks + 8);
    uint64_t child = cairnGetLE64(k + ks);
    if (level > 0) {
      rc = btreeRead(w, d, child, level - 1, bl, depth + 1, k, k + ks + 8);
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

int cairnH5wIndexLoad(cairn_h5w *w, H5wDset *d) {
  if (d->bIndexLoaded) return CAIRN_OK;
  if (w->bBadK) return cairnErr(CAIRN_UNSUPPORTED, "the file sets a chunk B-tree K other than 32");
  BtLoad bl;
  memset(&bl, 0, sizeof bl);
  bl.depth = -1;
  int rc = CAIRN_OK;
  uint64_t nRec0 = d->nRec;
  if (d->btreeAddr != H5_UNDEF) rc = btreeRead(w, d, d->btreeAddr, -1, &bl, 0, NULL, NULL);
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
size_t cairnH5wLayoutSize(const H5wDset *d, size_t nCompact) {
  if (d->layout == CAIRN_H5W_COMPACT) return 4 + nCompact;
  if (d->layout == CAIRN_H5W_CONTIGUOUS) return 2 + 16;
  return 3 + 8 + 4 * ((size_t)d->rank + 1);
}

int cairnH5wUpdateChunkedMsgs(H5wObj *o) {
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
  return cairnH5wObjSetMsg(o, d->iLayoutMsg, ly, cairnH5wLayoutSize(d, 0));
}

/* ---------------------------------------------------------------- row blocks */
static uint64_t curBlock(const H5wDset *d) { return d->tailRow0 / d->aChunk[0]; }

static size_t blockBytes(const H5wDset *d) { return (size_t)(d->aChunk[0] * cairnH5wRowElems(d) * d->elSize); }

/* Make block b the tail: filled with the fill value, or with the chunks already stored for it. */
static int tailLoad(cairn_h5w *w, H5wDset *d, uint64_t b) {
  size_t nb = blockBytes(d);
  if (!d->pTail || d->nTailAlloc < nb) {
    cairnFree(d->pTail);
    d->pTail = cairnMalloc(nb ? nb : 1);
    d->nTailAlloc = d->pTail ? nb : 0;
    if (!d->pTail) return cairnErr(CAIRN_NOMEM, "append: out of memory for a %zu-byte row block", nb);
  }
  cairnH5wFillPattern(d, d->pTail, d->aChunk[0] * cairnH5wRowElems(d));
  d->tailRow0 = b * d->aChunk[0];
  uint64_t off[CAIRN_H5W_MAXRANK] = {0};
  off[0] = d->tailRow0;
  int found;
  uint64_t i = recFind(d, off, &found);
  size_t nc = (size_t)(cairnH5wChunkElems(d) * d->elSize);
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
int cairnH5wWriteRows(cairn_h5w *w, H5wDset *d, uint64_t row0, uint64_t n, const uint8_t *p) {
  uint64_t c0 = d->aChunk[0], rb = cairnH5wRowElems(d) * d->elSize;
  while (n > 0) {
    uint64_t b = row0 / c0;
    int haveTail = d->pTail && d->tailRow0 != H5W_NO_BLOCK;
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
      d->tailRow0 = H5W_NO_BLOCK;
      d->bTailDirty = 0;
    } else d->bTailDirty = 1;
  }
  return CAIRN_OK;
}

/* At commit: write the partial tail block and the B-tree, update the layout message. */
int cairnH5wDsetFlush(cairn_h5w *w, H5wObj *o) {
  H5wDset *d = o->pDset;
  if (d->layout != CAIRN_H5W_CHUNKED) return CAIRN_OK;
  if (d->pTail && d->tailRow0 != H5W_NO_BLOCK && d->bTailDirty) {
    uint8_t *s = d->pTail;
    CAIRN_TRY(emitSlabs(w, d, &s, 1, curBlock(d)));
    d->bTailDirty = 0;
  }
  if (d->bIndexDirty) CAIRN_TRY(btreeWrite(w, d));
  if (d->bIndexDirty == 0 && (d->bShapeDirty || d->bIndexWritten)) {
    int rc = cairnH5wUpdateChunkedMsgs(o);
    if (rc) return cairnH5wFail(w, rc);
    d->bShapeDirty = d->bIndexWritten = 0;
    o->bDirty = 1;
  }
  return CAIRN_OK;
}
