/*
** 2026-11-30
**
** core/h5/w_dense.c - dense link storage of the HDF5 writer: a group with more than 8 links
** keeps them as link messages in a fractal heap (FRHP/FHIB/FHDB, spec III.G) indexed by a
** version 2 B-tree of name hashes (BTHD/BTIN/BTLF, type 5, spec III.A.2), as libhdf5 does
** with libver 1.8+. Adding a link to such a group writes O(log n) bytes: its message goes into
** unused space of a direct block (direct blocks carry no checksum here), the B-tree nodes on
** its path are written copy-on-write, and the heap header is rewritten in place inside one
** disk sector (every heap block names the header's address, so it cannot move). Why that
** keeps the commit crash-safe is in core/h5/WRITER.md ("Dense groups").
*/
#include "h5/h5w.h"

/* Fractal heap parameters (libhdf5's for link heaps, but 1 MiB direct blocks: 13 rows of
** direct blocks in the root indirect block hold 8 MiB of link messages, no nested blocks). */
#define DN_WIDTH 4
#define DN_START 512u
#define DN_MAXDIRECT (1u << 20)
#define DN_ROWS 13 /* log2(DN_MAXDIRECT / DN_START) + 2 */
#define DN_NENT (DN_ROWS * DN_WIDTH)
#define DN_HEAPBITS 32
#define DN_OFFB 4 /* heap offsets: DN_HEAPBITS / 8 */
#define DN_LENB 2 /* object lengths: bytes for min(max direct, max managed = 4096) */
#define DN_IDLEN (1 + DN_OFFB + DN_LENB)
#define DN_DBHDR (5 + 8 + DN_OFFB) /* direct block prefix: FHDB, version, heap address, offset */
#define DN_HDR 146                 /* heap header with 8-byte offsets and lengths, no filters */
#define DN_SECTOR 512u

/* v2 B-tree of the name index: libhdf5's node size and split/merge percentages. */
#define BT_NODE 512u
#define BT_REC (4 + DN_IDLEN)
#define BT_MAXLVL 10

typedef struct DNode {
  int lvl, n;
  int *aRec;             /* link indices, sorted by (hash, name) */
  struct DNode **aKid;   /* n + 1 children (internal nodes) */
  uint64_t nTot;         /* records in this subtree */
  uint64_t addr;         /* where it is written (H5_UNDEF: not yet) */
  uint32_t gen;          /* transaction that wrote it */
  int bDirty;
} DNode;

struct H5wDense {
  uint64_t hdrAddr; uint32_t hdrGen; /* heap header (never moves) */
  uint64_t aBlk[DN_NENT]; uint32_t aBlkGen[DN_NENT]; int nBlk; /* direct blocks (H5_UNDEF: skipped) */
  uint64_t wp;           /* next free heap offset in the last block */
  uint64_t ibAddr, ibSize; uint32_t ibGen; int curRows, bIbDirty;
  uint64_t newEnd;       /* end of the blocks (direct and indirect) written since the last commit */
  uint64_t nLive, nLiveBytes;
  int nDone;             /* links [0, nDone) have been stored (links are only ever appended) */
  int *aMoved; int nMoved, nMovedAlloc, bScanAll; /* links whose target header moved since */
  DNode *pRoot;
  uint64_t btAddr; uint32_t btGen;
  uint32_t maxRec[BT_MAXLVL + 1];
  uint8_t nrecB[BT_MAXLVL + 1], totB[BT_MAXLVL + 1];
};

static uint64_t rowSize(int r) { return r == 0 ? DN_START : (uint64_t)DN_START << (r - 1); }
static uint64_t entOff(int e) { /* heap offset of direct block entry e of the root indirect block */
  uint64_t off = 0;
  int r = e / DN_WIDTH;
  for (int k = 0; k < r; k++) off += rowSize(k) * DN_WIDTH;
  return off + (uint64_t)(e % DN_WIDTH) * rowSize(r);
}
static uint32_t ptrSize(const H5wDense *d, int lvl) { return 8 + d->nrecB[lvl - 1] + (lvl > 1 ? d->totB[lvl - 1] : 0); }

/* ---------------------------------------------------------------- B-tree in memory */
static DNode *nodeNew(H5wDense *d, int lvl) {
  DNode *x = cairnMallocZero(sizeof *x);
  if (!x) return NULL;
  x->lvl = lvl;
  x->addr = H5_UNDEF;
  x->bDirty = 1;
  x->aRec = cairnMalloc(sizeof(int) * (d->maxRec[lvl] + 1));
  if (lvl) x->aKid = cairnMalloc(sizeof(DNode *) * (d->maxRec[lvl] + 2));
  if (!x->aRec || (lvl && !x->aKid)) {
    cairnFree(x->aRec);
    cairnFree(x->aKid);
    cairnFree(x);
    return NULL;
  }
  return x;
}
/* Free the tree; with w, its written nodes become free space (after the commit if committed). */
static void nodeFree(cairn_h5w *w, DNode *x) {
  if (!x) return;
  if (x->lvl)
    for (int i = 0; i <= x->n; i++) nodeFree(w, x->aKid[i]); /* NULL for children not loaded */
  if (w) cairnH5wFree(w, x->addr, BT_NODE, x->gen != w->txn);
  cairnFree(x->aRec);
  cairnFree(x->aKid);
  cairnFree(x);
}

static int keyCmp(const H5wObj *g, int a, int b) {
  const H5wLink *x = &g->aLink[a], *y = &g->aLink[b];
  if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
  return strcmp(x->zName, y->zName);
}
static int nodePos(const H5wObj *g, const DNode *x, int k, int *pEq) {
  int lo = 0, hi = x->n;
  *pEq = 0;
  while (lo < hi) {
    int mid = (lo + hi) / 2, c = keyCmp(g, k, x->aRec[mid]);
    if (c == 0) {
      *pEq = 1;
      return mid;
    }
    if (c < 0) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

static void nodeRecount(DNode *x) {
  x->nTot = (uint64_t)x->n;
  if (x->lvl)
    for (int i = 0; i <= x->n; i++) x->nTot += x->aKid[i]->nTot;
}

static int btInsert(H5wDense *d, const H5wObj *g, int k) {
  if (!d->pRoot && !(d->pRoot = nodeNew(d, 0))) return cairnErr(CAIRN_NOMEM, "dense group: out of memory");
  DNode *path[BT_MAXLVL + 2];
  int idx[BT_MAXLVL + 2], np = 0, eq;
  for (DNode *x = d->pRoot;;) {
    int i = nodePos(g, x, k, &eq);
    if (eq) return cairnErr(CAIRN_EXISTS, "dense group: link '%s' indexed twice", g->aLink[k].zName);
    path[np] = x, idx[np] = i, np++;
    if (!x->lvl) break;
    x = x->aKid[i];
  }
  /* nodes are allocated before anything changes, so running out of memory changes nothing */
  DNode *aNew[BT_MAXLVL + 2];
  int nNew = 0;
  for (int j = np - 1, n = path[j]->n + 1; j >= 0 && n > (int)d->maxRec[path[j]->lvl]; j--) {
    if (path[j]->lvl >= BT_MAXLVL - 1) return cairnErr(CAIRN_LIMIT, "dense group: name index deeper than %d levels", BT_MAXLVL);
    if (!(aNew[nNew++] = nodeNew(d, path[j]->lvl))) goto nomem;
    if (j == 0 && !(aNew[nNew++] = nodeNew(d, path[j]->lvl + 1))) goto nomem;
    n = j ? path[j - 1]->n + 1 : 0;
  }
  DNode *leaf = path[np - 1];
  int i = idx[np - 1];
  memmove(leaf->aRec + i + 1, leaf->aRec + i, sizeof(int) * (size_t)(leaf->n - i));
  leaf->aRec[i] = k;
  leaf->n++;
  /* the name index stays in (hash, name) order: what readers binary-search */
  cairnAssert(i == 0 || keyCmp(g, leaf->aRec[i - 1], k) < 0);
  cairnAssert(i + 1 >= leaf->n || keyCmp(g, k, leaf->aRec[i + 1]) < 0);
  for (int j = 0; j < np; j++) path[j]->nTot++, path[j]->bDirty = 1;
  int iNew = 0;
  for (int j = np - 1; j >= 0; j--) {
    DNode *x = path[j];
    if (x->n <= (int)d->maxRec[x->lvl]) break;
    int m = x->n / 2, med = x->aRec[m];
    DNode *r = aNew[iNew++];
    r->n = x->n - m - 1;
    memcpy(r->aRec, x->aRec + m + 1, sizeof(int) * (size_t)r->n);
    if (x->lvl) memcpy(r->aKid, x->aKid + m + 1, sizeof(DNode *) * (size_t)(r->n + 1));
    x->n = m;
    nodeRecount(x);
    nodeRecount(r);
    if (j == 0) {
      DNode *root = aNew[iNew++];
      root->n = 1;
      root->aRec[0] = med;
      root->aKid[0] = x, root->aKid[1] = r;
      nodeRecount(root);
      d->pRoot = root;
    } else {
      DNode *p = path[j - 1];
      int pi = idx[j - 1];
      memmove(p->aRec + pi + 1, p->aRec + pi, sizeof(int) * (size_t)(p->n - pi));
      memmove(p->aKid + pi + 2, p->aKid + pi + 1, sizeof(DNode *) * (size_t)(p->n - pi));
      p->aRec[pi] = med;
      p->aKid[pi + 1] = r;
      p->n++;
    }
  }
  return CAIRN_OK;
nomem:
  while (nNew > 0) nodeFree(NULL, aNew[--nNew]);
  return cairnErr(CAIRN_NOMEM, "dense group: out of memory");
}

/* The record of link k changed (its message moved): mark the path to it. */
static int btTouch(H5wDense *d, const H5wObj *g, int k) {
  int eq;
  for (DNode *x = d->pRoot; x;) {
    int i = nodePos(g, x, k, &eq);
    x->bDirty = 1;
    if (eq) return CAIRN_OK;
    x = x->lvl ? x->aKid[i] : NULL;
  }
  return cairnErr(CAIRN_CORRUPT, "dense group: link '%s' missing from the name index", g->aLink[k].zName);
}

static void putHid(uint8_t *p, const H5wLink *l) {
  p[0] = 0; /* version 0, managed object */
  cairnPutLEn(p + 1, l->hidOff, DN_OFFB);
  cairnPutLEn(p + 1 + DN_OFFB, l->hidLen, DN_LENB);
}

static int nodeWrite(cairn_h5w *w, H5wDense *d, const H5wObj *g, DNode *x) {
  if (!x->bDirty) return CAIRN_OK;
  if (x->lvl)
    for (int i = 0; i <= x->n; i++) CAIRN_TRY(nodeWrite(w, d, g, x->aKid[i]));
  uint8_t p[BT_NODE];
  memcpy(p, x->lvl ? H5_SIG_BTIN : H5_SIG_BTLF, 4);
  p[4] = 0;
  p[5] = 5; /* link name index */
  size_t i = 6;
  for (int k = 0; k < x->n; k++) {
    const H5wLink *l = &g->aLink[x->aRec[k]];
    cairnPutLE32(p + i, l->hash);
    putHid(p + i + 4, l);
    i += BT_REC;
  }
  if (x->lvl) {
    for (int k = 0; k <= x->n; k++) {
      const DNode *c = x->aKid[k];
      cairnPutLE64(p + i, c->addr), i += 8;
      cairnPutLEn(p + i, (uint64_t)c->n, d->nrecB[x->lvl - 1]), i += d->nrecB[x->lvl - 1];
      if (x->lvl > 1) cairnPutLEn(p + i, c->nTot, d->totB[x->lvl - 1]), i += d->totB[x->lvl - 1];
    }
  }
  cairnH5ChecksumPut(p, i);
  i += 4;
  uint64_t a;
  CAIRN_TRY(cairnH5wAlloc(w, BT_NODE, &a));
  CAIRN_TRY(cairnH5wWrite(w, p, i, a)); /* the rest of the node is never read */
  cairnH5wFree(w, x->addr, BT_NODE, x->gen != w->txn);
  x->addr = a;
  x->gen = w->txn;
  x->bDirty = 0;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- the heap */
static int denseNew(H5wDense **pp) {
  H5wDense *d = cairnMallocZero(sizeof *d);
  if (!d) return cairnErr(CAIRN_NOMEM, "dense group: out of memory");
  d->hdrAddr = d->ibAddr = d->btAddr = H5_UNDEF;
  uint64_t cum = d->maxRec[0] = (BT_NODE - 10) / BT_REC;
  d->nrecB[0] = d->totB[0] = (uint8_t)cairnLEnSize(cum);
  for (int l = 1; l <= BT_MAXLVL; l++) {
    uint32_t ptr = ptrSize(d, l);
    d->maxRec[l] = (BT_NODE - 10 - ptr) / (BT_REC + ptr);
    uint64_t c = (uint64_t)(d->maxRec[l] + 1) * cum + d->maxRec[l];
    cum = c / (d->maxRec[l] + 1) < cum ? UINT64_MAX : c;
    d->nrecB[l] = (uint8_t)cairnLEnSize(d->maxRec[l]);
    d->totB[l] = (uint8_t)cairnLEnSize(cum);
  }
  *pp = d;
  return CAIRN_OK;
}

void cairnH5wDenseFree(cairn_h5w *w, H5wObj *g, int bRelease) {
  H5wDense *d = g->pDense;
  if (!d) return;
  cairn_h5w *wf = bRelease ? w : NULL;
  nodeFree(wf, d->pRoot);
  if (wf) {
    for (int e = 0; e < d->nBlk; e++) cairnH5wFree(w, d->aBlk[e], rowSize(e / DN_WIDTH), d->aBlkGen[e] != w->txn);
    cairnH5wFree(w, d->ibAddr, d->ibSize, d->ibGen != w->txn);
    cairnH5wFree(w, d->hdrAddr, DN_HDR, d->hdrGen != w->txn);
    cairnH5wFree(w, d->btAddr, 38, d->btGen != w->txn);
  }
  for (int i = 0; i < g->nLink; i++) g->aLink[i].hidLen = 0;
  cairnFree(d->aMoved);
  cairnFree(d);
  g->pDense = NULL;
}

/* The header that link i of g points to moved (commitObj): its message must be rewritten.
** Only these and the links added since the last commit are looked at, not all n. */
void cairnH5wDenseMoved(H5wObj *g, int i) {
  H5wDense *d = g->pDense;
  if (!d || d->bScanAll || i >= d->nDone) return;
  if (CAIRN_GROW(d->aMoved, d->nMovedAlloc, d->nMoved + 1, "dense links")) {
    d->bScanAll = 1; /* out of memory: the next commit looks at every link */
    return;
  }
  d->aMoved[d->nMoved++] = i;
}

/* Room for a message of n bytes: at the end of the last direct block, else in a new one.
** CAIRN_LIMIT: the heap is full, or (bNoGrow) a new block would be needed. */
static int heapPlace(cairn_h5w *w, H5wDense *d, uint64_t n, int bNoGrow, uint64_t *pOff, uint64_t *pAddr) {
  for (;;) {
    if (d->nBlk > 0 && d->aBlk[d->nBlk - 1] != H5_UNDEF) {
      int e = d->nBlk - 1;
      uint64_t bo = entOff(e), bs = rowSize(e / DN_WIDTH);
      if (d->wp + n <= bo + bs) {
        *pOff = d->wp;
        *pAddr = d->aBlk[e] + (d->wp - bo);
        d->wp += n;
        return CAIRN_OK;
      }
    }
    if (d->nBlk == DN_NENT || bNoGrow) return CAIRN_LIMIT;
    int e = d->nBlk++;
    uint64_t bs = rowSize(e / DN_WIDTH);
    if (e / DN_WIDTH + 1 > d->curRows) d->curRows = e / DN_WIDTH + 1;
    d->bIbDirty = 1;
    d->aBlk[e] = H5_UNDEF;
    if (DN_DBHDR + n > bs) continue; /* too small for this message: left unallocated */
    uint8_t h[DN_DBHDR];
    memcpy(h, H5_SIG_FHDB, 4);
    h[4] = 0;
    cairnPutLE64(h + 5, d->hdrAddr);
    cairnPutLEn(h + 13, entOff(e), DN_OFFB);
    CAIRN_TRY(cairnH5wAlloc(w, bs, &d->aBlk[e]));
    d->aBlkGen[e] = w->txn;
    if (d->aBlk[e] + bs > d->newEnd) d->newEnd = d->aBlk[e] + bs;
    CAIRN_TRY(cairnH5wWrite(w, h, DN_DBHDR, d->aBlk[e]));
    d->wp = entOff(e) + DN_DBHDR;
  }
}

static void hdrEncode(const H5wDense *d, uint8_t *p) {
  /* libhdf5's accounting: the managed space is the span of the root indirect block's rows,
  ** and its free space counts every direct block of those rows, allocated or not (libhdf5
  ** adds to this heap later relying on both) */
  uint64_t alloc = 0, iter = entOff(d->nBlk), span = entOff(d->curRows * DN_WIDTH), room = 0;
  for (int e = 0; e < d->nBlk; e++)
    if (d->aBlk[e] != H5_UNDEF) alloc += rowSize(e / DN_WIDTH);
  for (int e = 0; e < d->curRows * DN_WIDTH; e++) room += rowSize(e / DN_WIDTH) - DN_DBHDR;
  uint64_t freeSpace = room > d->nLiveBytes ? room - d->nLiveBytes : 0;
  size_t i = 0;
  memcpy(p, H5_SIG_FRHP, 4), i = 4;
  p[i++] = 0;
  cairnPutLE16(p + i, DN_IDLEN), i += 2;
  cairnPutLE16(p + i, 0), i += 2; /* no I/O filters */
  p[i++] = 0;                      /* flags: huge IDs not wrapped, direct blocks not checksummed */
  cairnPutLE32(p + i, H5W_DENSE_MAXMAN), i += 4;
  uint64_t v[12] = {0, H5_UNDEF, freeSpace, H5_UNDEF, span, alloc, iter, d->nLive, 0, 0, 0, 0};
  for (int k = 0; k < 12; k++) cairnPutLE64(p + i, v[k]), i += 8;
  cairnPutLE16(p + i, DN_WIDTH), i += 2;
  cairnPutLE64(p + i, DN_START), i += 8;
  cairnPutLE64(p + i, DN_MAXDIRECT), i += 8;
  cairnPutLE16(p + i, DN_HEAPBITS), i += 2;
  cairnPutLE16(p + i, 1), i += 2; /* starting rows of the root indirect block */
  cairnPutLE64(p + i, d->ibAddr), i += 8;
  cairnPutLE16(p + i, (uint16_t)d->curRows), i += 2;
  cairnH5ChecksumPut(p, i);
}

/* Space for the heap header that does not cross a sector boundary: its in-place rewrites
** are then all-or-nothing, like the superblock's. */
static int hdrAlloc(cairn_h5w *w, uint64_t *pAddr) {
  uint64_t a;
  CAIRN_TRY(cairnH5wAlloc(w, DN_HDR + DN_SECTOR, &a));
  uint64_t s = a % DN_SECTOR + DN_HDR <= DN_SECTOR ? a : (a + DN_SECTOR - 1) / DN_SECTOR * DN_SECTOR;
  cairnH5wFree(w, a, s - a, 0);
  cairnH5wFree(w, s + DN_HDR, a + DN_HDR + DN_SECTOR - (s + DN_HDR), 0);
  *pAddr = s;
  return CAIRN_OK;
}

/* Write what changed since the last commit. CAIRN_LIMIT: the heap cannot take it (full, or a
** new block would be needed where that is not possible in place): the caller starts afresh. */
static int denseUpdate(cairn_h5w *w, H5wObj *g) {
  H5wDense *d = g->pDense;
  int bFresh = d->hdrAddr == H5_UNDEF;
  if (bFresh) {
    CAIRN_TRY(hdrAlloc(w, &d->hdrAddr));
    d->hdrGen = w->txn;
  }
  int bHdrCommitted = d->hdrGen != w->txn;
  d->newEnd = 0;
  /* A committed heap header is rewritten in place; if it must point at a new indirect block,
  ** that block has to be inside the committed file first (cairnH5wSbExtend), which a caller's tail
  ** past the end of file (CAIRN_H5W_TAIL) forbids: such heaps are rebuilt instead. */
  int bNoGrow = bHdrCommitted && w->bTail;
  int bChanged = bFresh;
  uint8_t buf[H5W_DENSE_MAXMAN];
  /* the links to look at: those moved, then those added since the last commit (all of them
  ** for a new heap, or after running out of memory for the list) */
  int bAll = bFresh || d->bScanAll, nScan = bAll ? g->nLink : d->nMoved + (g->nLink - d->nDone);
  for (int s = 0; s < nScan; s++) {
    int k = bAll ? s : s < d->nMoved ? d->aMoved[s] : d->nDone + (s - d->nMoved);
    H5wLink *l = &g->aLink[k];
    int bHard = l->addr != H5_UNDEF || l->pObj;
    uint64_t target = l->pObj ? l->pObj->addr : l->addr;
    if (l->hidLen && (!bHard || target == l->hidTarget)) continue;
    size_t n = cairnH5wLinkMsgSize(l);
    if (n > sizeof buf) return cairnErr(CAIRN_UNSUPPORTED, "link '%s': a message of %zu bytes in dense storage", l->zName, n);
    cairnH5wLinkMsgEncode(l, target, buf);
    uint64_t off, at;
    CAIRN_TRY(heapPlace(w, d, n, bNoGrow, &off, &at));
    CAIRN_TRY(cairnH5wWrite(w, buf, n, at));
    int bNew = l->hidLen == 0;
    if (!bNew) d->nLiveBytes -= l->hidLen;
    l->hidOff = off;
    l->hidLen = (uint32_t)n;
    l->hidTarget = target;
    d->nLiveBytes += n;
    if (bNew) {
      l->hash = cairnLookup3(l->zName, strlen(l->zName), 0);
      CAIRN_TRY(btInsert(d, g, k));
      d->nLive++;
    } else CAIRN_TRY(btTouch(d, g, k));
    bChanged = 1;
  }
  d->nDone = g->nLink;
  d->nMoved = 0;
  d->bScanAll = 0;
  if (!bChanged) return CAIRN_OK;
  /* the root indirect block, copy-on-write */
  if (d->bIbDirty) {
    size_t n = 5 + 8 + DN_OFFB + (size_t)d->curRows * DN_WIDTH * 8 + 4;
    uint8_t p[5 + 8 + DN_OFFB + DN_NENT * 8 + 4];
    memcpy(p, H5_SIG_FHIB, 4);
    p[4] = 0;
    cairnPutLE64(p + 5, d->hdrAddr);
    cairnPutLEn(p + 13, 0, DN_OFFB);
    size_t i = 5 + 8 + DN_OFFB;
    for (int e = 0; e < d->curRows * DN_WIDTH; e++, i += 8) cairnPutLE64(p + i, e < d->nBlk ? d->aBlk[e] : H5_UNDEF);
    cairnH5ChecksumPut(p, i);
    uint64_t a;
    CAIRN_TRY(cairnH5wAlloc(w, n, &a));
    CAIRN_TRY(cairnH5wWrite(w, p, n, a));
    cairnH5wFree(w, d->ibAddr, d->ibSize, d->ibGen != w->txn);
    d->ibAddr = a, d->ibSize = n, d->ibGen = w->txn;
    d->bIbDirty = 0;
    if (a + n > d->newEnd) d->newEnd = a + n;
    /* the header will name the new blocks: before it is rewritten in place they must be
    ** durable (a sync) and inside the committed file (an end-of-file switch if they are not) */
    if (bHdrCommitted) CAIRN_TRY(cairnH5wSbExtend(w, d->newEnd > w->eofCommitted));
  }
  /* the B-tree, copy-on-write from the changed leaves up, then a new header for it */
  CAIRN_TRY(nodeWrite(w, d, g, d->pRoot));
  uint8_t bt[38];
  memcpy(bt, H5_SIG_BTHD, 4);
  bt[4] = 0, bt[5] = 5;
  cairnPutLE32(bt + 6, BT_NODE);
  cairnPutLE16(bt + 10, BT_REC);
  cairnPutLE16(bt + 12, (uint16_t)d->pRoot->lvl);
  bt[14] = 100, bt[15] = 40; /* split and merge percentages */
  cairnPutLE64(bt + 16, d->pRoot->addr);
  cairnPutLE16(bt + 24, (uint16_t)d->pRoot->n);
  cairnPutLE64(bt + 26, d->pRoot->nTot);
  cairnH5ChecksumPut(bt, 34);
  uint64_t a;
  CAIRN_TRY(cairnH5wAlloc(w, sizeof bt, &a));
  CAIRN_TRY(cairnH5wWrite(w, bt, sizeof bt, a));
  cairnH5wFree(w, d->btAddr, sizeof bt, d->btGen != w->txn);
  d->btAddr = a, d->btGen = w->txn;
  /* the heap header: new, or rewritten in place as one write inside one sector, after
  ** everything it names (kept out of write gathering so it stays a write of its own) */
  uint8_t h[DN_HDR];
  hdrEncode(d, h);
  CAIRN_TRY(cairnH5wFlush(w));
  w->st.nWrite++;
  if (w->nFileSize < d->hdrAddr + DN_HDR) w->nFileSize = d->hdrAddr + DN_HDR;
  int rc = cairn_file_write(w->f, h, DN_HDR, d->hdrAddr);
  if (rc) return cairnH5wFail(w, rc);
  /* the group's Link Info names the heap and the B-tree */
  uint8_t li[18] = {0, 0};
  cairnPutLE64(li + 2, d->hdrAddr);
  cairnPutLE64(li + 10, d->btAddr);
  for (int i = 0; i < g->nMsg; i++)
    if (g->aMsg[i].type == H5_MSG_LINKINFO) return cairnH5wObjSetMsg(g, i, li, sizeof li);
  return cairnH5wObjAddMsg(g, H5_MSG_LINKINFO, 0, li, sizeof li);
}

/* Back to compact storage (a link too large for the heap): the header holds every link again. */
static int denseToCompact(cairn_h5w *w, H5wObj *g) {
  cairnH5wDenseFree(w, g, 1);
  uint8_t li[18] = {0, 0};
  cairnPutLE64(li + 2, H5_UNDEF);
  cairnPutLE64(li + 10, H5_UNDEF);
  for (int i = 0; i < g->nMsg; i++)
    if (g->aMsg[i].type == H5_MSG_LINKINFO) return cairnH5wObjSetMsg(g, i, li, sizeof li);
  return cairnH5wObjAddMsg(g, H5_MSG_LINKINFO, 0, li, sizeof li);
}

int cairnH5wDenseCommit(cairn_h5w *w, H5wObj *g) {
  int bWant = H5W_DENSE_OVER > 0 && g->nLink > H5W_DENSE_OVER && g->nBigLink == 0;
  if (!bWant) return g->pDense ? denseToCompact(w, g) : CAIRN_OK;
  if (!g->pDense) CAIRN_TRY(denseNew(&g->pDense));
  int rc = denseUpdate(w, g);
  if (rc == CAIRN_LIMIT && !w->rcFatal) {
    /* full (or not growable in place): a new heap and index with the live links only */
    cairn_clearerr();
    cairnH5wDenseFree(w, g, 1);
    CAIRN_TRY(denseNew(&g->pDense));
    rc = denseUpdate(w, g);
    if (rc == CAIRN_LIMIT) rc = cairnErr(CAIRN_LIMIT, "group with %d links: more link message bytes than a dense heap holds (8 MiB)", g->nLink);
  }
  return rc ? cairnH5wFail(w, rc) : CAIRN_OK;
}

/* ---------------------------------------------------------------- loading */
/* A dense group this writer wrote (its exact heap parameters, a root indirect block of direct
** blocks, a type-5 name index) is loaded as it is, so edits continue in place: the links go
** into g->aLink in name-index order, the B-tree into memory (nodes keep their addresses).
** CAIRN_UNSUPPORTED for any other layout (libhdf5's: checksummed direct blocks, other block
** sizes, creation-order indexes), which the caller reads through cairn's reader instead. On
** failure g has no links and no dense state. */
typedef struct Load {
  cairn_h5w *w;
  H5wObj *g;
  H5wDense *d;
  uint8_t *apBlk[DN_NENT]; /* direct blocks read so far */
  uint64_t maxEnd;
} Load;

static int loadRec(Load *L, const uint8_t *r, int *pk) {
  H5wDense *d = L->d;
  const uint8_t *id = r + 4;
  if (id[0] != 0) return cairnErr(CAIRN_UNSUPPORTED, "dense group: heap ID kind %u", id[0]);
  uint64_t off = cairnGetLEn(id + 1, DN_OFFB), len = cairnGetLEn(id + 1 + DN_OFFB, DN_LENB);
  int e = 0;
  while (e < d->nBlk && off >= entOff(e) + rowSize(e / DN_WIDTH)) e++;
  if (e == d->nBlk || d->aBlk[e] == H5_UNDEF || off < entOff(e) + DN_DBHDR || len < 2 ||
      off + len > entOff(e) + rowSize(e / DN_WIDTH))
    return cairnErr(CAIRN_CORRUPT, "dense group: heap object at offset %llu (%llu bytes) outside the heap's blocks",
                    (unsigned long long)off, (unsigned long long)len);
  uint64_t bs = rowSize(e / DN_WIDTH);
  if (!L->apBlk[e]) {
    if (!(L->apBlk[e] = cairnMalloc((size_t)bs))) return cairnErr(CAIRN_NOMEM, "dense group: out of memory");
    CAIRN_TRY(cairnH5wRead(L->w, L->apBlk[e], (size_t)bs, d->aBlk[e]));
    if (memcmp(L->apBlk[e], H5_SIG_FHDB, 4) || cairnGetLE64(L->apBlk[e] + 5) != d->hdrAddr ||
        cairnGetLEn(L->apBlk[e] + 13, DN_OFFB) != entOff(e))
      return cairnErr(CAIRN_CORRUPT, "dense group: bad direct block at %llu", (unsigned long long)d->aBlk[e]);
  }
  int k = L->g->nLink;
  CAIRN_TRY(cairnH5wParseLink(L->g, L->apBlk[e] + (off - entOff(e)), (size_t)len, d->aBlk[e] + (off - entOff(e))));
  H5wLink *l = &L->g->aLink[k];
  l->hash = cairnLookup3(l->zName, strlen(l->zName), 0);
  if (l->hash != cairnGetLE32(r)) return cairnErr(CAIRN_CORRUPT, "dense group: name hash of '%s' differs from its index", l->zName);
  if (k > 0 && keyCmp(L->g, k - 1, k) >= 0) return cairnErr(CAIRN_CORRUPT, "dense group: name index out of order at '%s'", l->zName);
  l->hidOff = off;
  l->hidLen = (uint32_t)len;
  l->hidTarget = l->addr;
  d->nLiveBytes += len;
  if (off + len > L->maxEnd) L->maxEnd = off + len;
  *pk = k;
  return CAIRN_OK;
}

static int loadNode(Load *L, uint64_t addr, int lvl, int n, DNode **pp) {
  H5wDense *d = L->d;
  if (n < 0 || (uint32_t)n > d->maxRec[lvl] || addr == H5_UNDEF)
    return cairnErr(CAIRN_CORRUPT, "dense group: name index node at %llu with %d records", (unsigned long long)addr, n);
  DNode *x = nodeNew(d, lvl);
  if (!x) return cairnErr(CAIRN_NOMEM, "dense group: out of memory");
  *pp = x;
  x->addr = addr;
  x->gen = 0;
  x->bDirty = 0;
  x->n = n;
  if (lvl) memset(x->aKid, 0, sizeof(DNode *) * (size_t)(n + 1));
  size_t ptr = lvl ? ptrSize(d, lvl) : 0, size = 6 + (size_t)n * BT_REC + (lvl ? (size_t)(n + 1) * ptr : 0) + 4;
  uint8_t p[BT_NODE];
  CAIRN_TRY(cairnH5wRead(L->w, p, size, addr));
  cairnH5wUsed(L->w, addr, BT_NODE);
  if (memcmp(p, lvl ? H5_SIG_BTIN : H5_SIG_BTLF, 4) || p[4] != 0 || p[5] != 5 || !cairnH5ChecksumOk(p, size - 4))
    return cairnErr(CAIRN_CORRUPT, "dense group: bad name index node at %llu", (unsigned long long)addr);
  const uint8_t *pc = p + 6 + (size_t)n * BT_REC;
  for (int i = 0; i <= n; i++) {
    if (lvl) {
      uint64_t ca = cairnGetLE64(pc);
      int cn = (int)cairnGetLEn(pc + 8, d->nrecB[lvl - 1]);
      pc += ptr;
      CAIRN_TRY(loadNode(L, ca, lvl - 1, cn, &x->aKid[i]));
    }
    if (i < n) {
      CAIRN_TRY(loadRec(L, p + 6 + (size_t)i * BT_REC, &x->aRec[i]));
    }
  }
  nodeRecount(x);
  return CAIRN_OK;
}

int cairnH5wDenseLoad(cairn_h5w *w, H5wObj *g, uint64_t heapAddr, uint64_t btAddr) {
  uint8_t h[DN_HDR];
  CAIRN_TRY(cairnH5wRead(w, h, DN_HDR, heapAddr));
  if (memcmp(h, H5_SIG_FRHP, 4) || !cairnH5ChecksumOk(h, DN_HDR - 4))
    return cairnErr(CAIRN_UNSUPPORTED, "not a fractal heap this writer wrote at %llu", (unsigned long long)heapAddr);
  uint8_t want[DN_HDR];
  /* the parameters must be exactly ours: compare with a header we would write */
  H5wDense *d;
  CAIRN_TRY(denseNew(&d));
  d->ibAddr = cairnGetLE64(h + 132);
  d->curRows = cairnGetLE16(h + 140);
  uint64_t iter = cairnGetLE64(h + 62);
  d->nBlk = 0;
  while (d->nBlk < DN_NENT && entOff(d->nBlk) < iter) d->nBlk++;
  hdrEncode(d, want);
  if (memcmp(h + 4, want + 4, 30 - 4) || memcmp(h + 78, want + 78, 132 - 78) || cairnGetLE64(h + 38) != H5_UNDEF ||
      d->curRows < 1 || d->curRows > DN_ROWS || entOff(d->nBlk) != iter || d->nBlk > d->curRows * DN_WIDTH) {
    cairnFree(d);
    return cairnErr(CAIRN_UNSUPPORTED, "fractal heap at %llu has other parameters than this writer's", (unsigned long long)heapAddr);
  }
  d->hdrAddr = heapAddr;
  d->hdrGen = 0;
  d->nLive = cairnGetLE64(h + 46 + 8 * 3);
  d->ibSize = 5 + 8 + DN_OFFB + (size_t)d->curRows * DN_WIDTH * 8 + 4;
  g->pDense = d;
  Load L;
  memset(&L, 0, sizeof L);
  L.w = w, L.g = g, L.d = d;
  uint8_t ib[5 + 8 + DN_OFFB + DN_NENT * 8 + 4], bt[38];
  int rc = cairnH5wRead(w, ib, (size_t)d->ibSize, d->ibAddr);
  if (!rc && (memcmp(ib, H5_SIG_FHIB, 4) || ib[4] != 0 || cairnGetLE64(ib + 5) != heapAddr || cairnGetLEn(ib + 13, DN_OFFB) != 0 ||
              !cairnH5ChecksumOk(ib, (size_t)d->ibSize - 4)))
    rc = cairnErr(CAIRN_CORRUPT, "dense group: bad root indirect block at %llu", (unsigned long long)d->ibAddr);
  int lastBlk = -1;
  for (int e = 0; !rc && e < d->curRows * DN_WIDTH; e++) {
    uint64_t a = cairnGetLE64(ib + 17 + 8 * e);
    if (e >= d->nBlk && a != H5_UNDEF) rc = cairnErr(CAIRN_CORRUPT, "dense group: heap block past the allocation iterator");
    if (e < d->nBlk) d->aBlk[e] = a, d->aBlkGen[e] = 0;
    if (e < d->nBlk && a != H5_UNDEF) lastBlk = e, cairnH5wUsed(w, a, rowSize(e / DN_WIDTH));
  }
  if (!rc && lastBlk < 0) rc = cairnErr(CAIRN_CORRUPT, "dense group: heap at %llu has no blocks", (unsigned long long)heapAddr);
  if (!rc) rc = cairnH5wRead(w, bt, sizeof bt, btAddr);
  if (!rc && (memcmp(bt, H5_SIG_BTHD, 4) || bt[4] != 0 || bt[5] != 5 || cairnGetLE32(bt + 6) != BT_NODE || cairnGetLE16(bt + 10) != BT_REC ||
              cairnGetLE16(bt + 12) >= BT_MAXLVL - 1 || !cairnH5ChecksumOk(bt, 34)))
    rc = cairnErr(CAIRN_UNSUPPORTED, "dense group: a name index at %llu other than this writer's", (unsigned long long)btAddr);
  if (!rc) {
    d->btAddr = btAddr, d->btGen = 0;
    cairnH5wUsed(w, heapAddr, DN_HDR);
    cairnH5wUsed(w, d->ibAddr, d->ibSize);
    cairnH5wUsed(w, btAddr, sizeof bt);
    rc = loadNode(&L, cairnGetLE64(bt + 16), cairnGetLE16(bt + 12), cairnGetLE16(bt + 24), &d->pRoot);
  }
  /* The header may count more objects than the index holds: it is rewritten in place before
  ** the superblock switch, so a crash in between leaves the new counts beside the old index
  ** (WRITER.md). The index is the truth; the next commit writes its count. */
  if (!rc && (d->pRoot->nTot != cairnGetLE64(bt + 26) || d->pRoot->nTot > d->nLive || d->pRoot->nTot != (uint64_t)g->nLink))
    rc = cairnErr(CAIRN_CORRUPT, "dense group: record counts of heap %llu and its index differ", (unsigned long long)heapAddr);
  if (!rc) d->nLive = d->pRoot->nTot;
  for (int e = 0; e < DN_NENT; e++) cairnFree(L.apBlk[e]);
  if (rc) {
    cairnH5wDenseFree(NULL, g, 0);
    return rc;
  }
  /* new messages go after the last one stored, in the last allocated block */
  uint64_t start = entOff(lastBlk) + DN_DBHDR;
  d->wp = L.maxEnd > start ? L.maxEnd : start;
  d->nBlk = lastBlk + 1;
  d->nDone = g->nLink;
  return CAIRN_OK;
}
