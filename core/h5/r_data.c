/*
** 2026-11-29
**
** core/h5/r_data.c - reading dataset values: compact, contiguous and chunked layouts, the six
** chunk indexes (v1 B-tree, single chunk, implicit, fixed array, extensible array, v2 B-tree),
** partial edge chunks, unallocated chunks as the fill value, and hyperslab selections
** (start/stride/count/block). Chunks are looked up serially (the metadata cache is not
** thread-safe), then read, decoded and scattered in parallel through cairnParallelFor.
*/
#include <stdlib.h> /* qsort */

#include "h5int.h"

/* ---------------------------------------------------------------- selection geometry */
/* A regular hyperslab, kept symbolic: the k-th selected coordinate along dimension i is
** start + (k / block) * stride + k % block, for k < count * block (increasing, since
** block <= stride). Nothing is materialized, so a whole-dataset selection costs O(rank). */
typedef struct Geo {
  uint32_t rank;
  uint64_t aOut[H5_MAX_RANK]; /* selected extent per dimension */
  uint64_t st[H5_MAX_RANK], sd[H5_MAX_RANK], bl[H5_MAX_RANK];
  uint64_t nSel;
  size_t es;
} Geo;

static void geoFree(Geo *g) { (void)g; }

static inline uint64_t geoCoord(const Geo *g, uint32_t i, uint64_t k) {
  return g->bl[i] == 1 ? g->st[i] + k * g->sd[i] : g->st[i] + (k / g->bl[i]) * g->sd[i] + k % g->bl[i];
}

/* First k with coordinate >= v (aOut[i] if none). */
static uint64_t geoLower(const Geo *g, uint32_t i, uint64_t v) {
  if (v <= g->st[i]) return 0;
  uint64_t d = v - g->st[i], a = d / g->sd[i], off = d % g->sd[i];
  if (a >= g->aOut[i]) return g->aOut[i];
  uint64_t k = off == 0 ? a * g->bl[i] : off < g->bl[i] ? a * g->bl[i] + off : (a + 1) * g->bl[i];
  return k > g->aOut[i] ? g->aOut[i] : k;
}

static int geoInit(Geo *g, const H5Space *s, const H5Sel *sel, size_t es, const char *zPath) {
  memset(g, 0, sizeof(*g));
  g->rank = s->rank;
  g->es = es;
  g->nSel = 1;
  for (uint32_t i = 0; i < s->rank; i++) {
    uint64_t st = sel ? sel->start[i] : 0, sd = sel ? sel->stride[i] : 1, ct = sel ? sel->count[i] : s->aDim[i], bl = sel ? sel->block[i] : 1;
    if (sd == 0) sd = 1;
    if (bl == 0) bl = 1;
    uint64_t n;
    if (cairnMulOverflow64(ct, bl, &n) || (ct > 1 && bl > sd))
      return cairnErr(CAIRN_RANGE, "hdf5: bad selection in dimension %u of %s (block %llu > stride %llu)", i, zPath, (unsigned long long)bl,
                      (unsigned long long)sd);
    if (n) {
      uint64_t last;
      if ((ct - 1) > UINT64_MAX / sd || cairnAddOverflow64(st, (ct - 1) * sd, &last) || cairnAddOverflow64(last, bl - 1, &last) ||
          last >= s->aDim[i])
        return cairnErr(CAIRN_RANGE, "hdf5: selection past the end of dimension %u (size %llu) of %s", i, (unsigned long long)s->aDim[i], zPath);
    }
    if (ct <= 1) sd = bl; /* a single block has no gaps */
    g->aOut[i] = n;
    g->st[i] = st;
    g->sd[i] = sd;
    g->bl[i] = bl;
    if (cairnMulOverflow64(g->nSel, n, &g->nSel)) return cairnErr(CAIRN_RANGE, "hdf5: selection too large in %s", zPath);
  }
  return CAIRN_OK;
}

/*
** Copy the selected elements that fall inside a block [org, org+dim) into out. The block is
** either a buffer (src, C order over dim) or, with src NULL and fileAddr set, bytes in the
** file read run by run; with both NULL the fill value is written.
*/
typedef struct Ext Ext;
typedef struct Block {
  const uint64_t *org, *dim;
  const uint8_t *src;
  uint64_t fileAddr; /* H5_UNDEF if none */
  Ext *ext;          /* with fileAddr 0: the bytes are in external files, not in the file */
  const uint8_t *pFill;
  size_t nFill;
} Block;
static int extRead(Ext *x, uint64_t off, uint8_t *dst, size_t n);

/* n bytes at offset s of a block kept in the file (or in external files). */
static inline int blockRead(H5File *f, const Block *b, uint64_t s, uint8_t *dst, size_t n) {
  if (b->ext) return extRead(b->ext, s, dst, n);
  return cairnH5ReadRaw(f, b->fileAddr + s, dst, n);
}

static int scatter(H5File *f, const Geo *g, const Block *b, uint8_t *out) {
  uint32_t r = g->rank;
  size_t es = g->es;
  if (r == 0) {
    if (b->src) memcpy(out, b->src, es);
    else if (b->fileAddr != H5_UNDEF) return blockRead(f, b, 0, out, es);
    else if (b->pFill) memcpy(out, b->pFill, es);
    else memset(out, 0, es);
    return CAIRN_OK;
  }
  uint64_t lo[H5_MAX_RANK], hi[H5_MAX_RANK], outStride[H5_MAX_RANK], srcStride[H5_MAX_RANK];
  for (uint32_t i = 0; i < r; i++) {
    lo[i] = geoLower(g, i, b->org[i]);
    hi[i] = geoLower(g, i, b->org[i] + b->dim[i]);
    if (lo[i] >= hi[i]) return CAIRN_OK;
  }
  outStride[r - 1] = es;
  srcStride[r - 1] = es;
  for (int i = (int)r - 2; i >= 0; i--) {
    outStride[i] = outStride[i + 1] * g->aOut[i + 1];
    srcStride[i] = srcStride[i + 1] * b->dim[i + 1];
  }
  uint64_t idx[H5_MAX_RANK];
  for (uint32_t i = 0; i < r; i++) idx[i] = lo[i];
  uint32_t L = r - 1;
  int contig = g->sd[L] == g->bl[L]; /* the innermost selection has no gaps */
  for (;;) {
    uint64_t oOff = 0, sOff = 0;
    for (uint32_t i = 0; i + 1 < r; i++) {
      oOff += idx[i] * outStride[i];
      sOff += (geoCoord(g, i, idx[i]) - b->org[i]) * srcStride[i];
    }
    /* innermost dimension: runs of consecutive coordinates (whole blocks) */
    uint64_t k = lo[L];
    while (k < hi[L]) {
      uint64_t e = contig ? hi[L] : CAIRN_MIN(hi[L], (k / g->bl[L] + 1) * g->bl[L]);
      size_t n = (size_t)((e - k) * es);
      uint8_t *dst = out + oOff + k * es;
      uint64_t s = sOff + (geoCoord(g, L, k) - b->org[L]) * es;
      if (b->src) memcpy(dst, b->src + s, n);
      else if (b->fileAddr != H5_UNDEF) CAIRN_TRY(blockRead(f, b, s, dst, n));
      else if (b->pFill && b->nFill == es) {
        for (size_t q = 0; q < n; q += es) memcpy(dst + q, b->pFill, es);
      } else memset(dst, 0, n);
      k = e;
    }
    int i = (int)r - 2;
    for (; i >= 0; i--) {
      if (++idx[i] < hi[i]) break;
      idx[i] = lo[i];
    }
    if (i < 0) break;
  }
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- chunk indexes */
typedef struct ChunkRef {
  uint64_t scaled[H5_MAX_RANK];
  uint64_t addr; /* H5_UNDEF: not allocated */
  uint64_t size; /* stored bytes */
  uint32_t mask;
} ChunkRef;

/* Bytes of one decoded chunk, saturating at UINT64_MAX (chunk dimensions come from the file). */
static uint64_t chunkBytes(const H5Dset *d) {
  uint64_t n = d->layout.elemSize ? d->layout.elemSize : d->pType->size;
  for (uint32_t i = 0; i < d->layout.rank; i++)
    if (cairnMulOverflow64(n, d->layout.aChunk[i], &n)) return UINT64_MAX;
  return n;
}

/* Number of chunks along dimension i over the max extent (current extent if unlimited). */
static uint64_t maxChunks(const H5Dset *d, uint32_t i) {
  uint64_t m = d->space.aMax[i] == H5_UNDEF ? d->space.aDim[i] : d->space.aMax[i];
  return (m + d->layout.aChunk[i] - 1) / d->layout.aChunk[i];
}

/* Entries of d->aIdx set (the ring's first iIdx, then all: see h5int.h), so a new dataset needs
** only iIdx zeroed. */
static unsigned idxCount(const H5Dset *d) { return d->iIdx < CAIRN_ARRAY_SIZE(d->aIdx) ? d->iIdx : (unsigned)CAIRN_ARRAY_SIZE(d->aIdx); }

/* A verified index block (signature, lookup3 over all but the last 4 bytes), from a small
** per-dataset cache: reading chunk after chunk walks the same blocks. Owned by d. */
static const uint8_t *idxFind(const H5Dset *d, uint64_t addr, size_t n) {
  for (unsigned i = 0, nSet = idxCount(d); i < nSet; i++)
    if (d->aIdx[i].addr == addr && d->aIdx[i].n == n) return d->aIdx[i].p;
  return NULL;
}
/* Put block p (verified, taken) into the cache. */
static void idxKeep(H5Dset *d, uint64_t addr, size_t n, uint8_t *p) {
  unsigned k = d->iIdx % CAIRN_ARRAY_SIZE(d->aIdx);
  if (d->iIdx >= CAIRN_ARRAY_SIZE(d->aIdx)) cairnFree(d->aIdx[k].p); /* the oldest goes */
  d->iIdx = d->iIdx + 1 < 2 * CAIRN_ARRAY_SIZE(d->aIdx) ? d->iIdx + 1 : (unsigned)CAIRN_ARRAY_SIZE(d->aIdx);
  d->aIdx[k].addr = addr;
  d->aIdx[k].n = n;
  d->aIdx[k].p = p;
}
/* lo/hi: the parent's keys around this child (NULL at the root); wantLevel: the level it must
** have (-1 at the root). */
static int btree1Chunk(H5Dset *d, uint64_t node, ChunkRef *c, int depth, int wantLevel, const uint8_t *lo, const uint8_t *hi) {
  H5File *f = d->f;
  uint32_t r = d->layout.rank;
  if (depth > 64) return cairnErr(CAIRN_CORRUPT, "hdf5: chunk B-tree of %s too deep", d->zPath);
  size_t hdr = 8 + 2 * (size_t)f->so, key = 8 + 8 * (size_t)(r + 1);
  uint8_t hd[32];
  CAIRN_TRY(cairnH5ReadMeta(f, node, hd, hdr));
  if (memcmp(hd, H5_SIG_TREE, 4) || hd[4] != 1) return cairnErr(CAIRN_CORRUPT, "hdf5: bad chunk B-tree node at offset %llu in %s", (unsigned long long)node, d->zPath);
  uint32_t level = hd[5], n = cairnGetLE16(hd + 6);
  if (n > 2 * (uint32_t)f->chunkK + 2 && n > 4096) return cairnErr(CAIRN_CORRUPT, "hdf5: chunk B-tree node at %llu has %u entries", (unsigned long long)node, n);
  if (wantLevel >= 0 && level != (uint32_t)wantLevel)
    return cairnErr(CAIRN_CORRUPT, "hdf5: chunk B-tree node at offset %llu of %s is at level %u under a node of level %d", (unsigned long long)node, d->zPath, level,
                    wantLevel + 1);
  if (n == 0 && (level || depth)) return cairnErr(CAIRN_CORRUPT, "hdf5: chunk B-tree node at offset %llu of %s is empty", (unsigned long long)node, d->zPath);
  size_t body = (size_t)n * (key + f->so) + key;
  /* Node bodies, checked once, stay in the dataset's index cache (issue 23: each chunk's lookup
  ** loaded and checked its path of nodes again, one allocation per node). The check's bounds lo
  ** and hi are the parent's keys, the same on every walk to this node. */
  const uint8_t *p = idxFind(d, node + hdr, body);
  if (!p) {
    uint8_t *q;
    CAIRN_TRY(cairnH5LoadMeta(f, node + hdr, body, &q));
    const char *zWhy = cairnH5ChunkNodeCheck(q, n, r, d->layout.aChunk, f->so, lo, hi);
    if (!zWhy && level == 0 && d->pipeline.n == 0) /* unfiltered chunks hold exactly one chunk's bytes */
      for (uint32_t i = 0; i < n && !zWhy; i++)
        if (cairnGetLE32(q + (size_t)i * (key + f->so)) != chunkBytes(d)) zWhy = "an unfiltered chunk's size is not the chunk's";
    if (zWhy) {
      cairnFree(q);
      return cairnErr(CAIRN_CORRUPT, "hdf5: chunk B-tree node at offset %llu of %s is damaged: %s", (unsigned long long)node, d->zPath, zWhy);
    }
    idxKeep(d, node + hdr, body, q);
    p = q;
  }
  int rc = CAIRN_OK;
  uint64_t want[H5_MAX_RANK];
  for (uint32_t i = 0; i < r; i++) want[i] = c->scaled[i] * d->layout.aChunk[i];
  /* last child whose left key <= want */
  int64_t pick = -1;
  for (uint32_t i = 0; i < n; i++) {
    const uint8_t *k = p + (size_t)i * (key + f->so);
    int cmp = 0;
    for (uint32_t j = 0; j < r && cmp == 0; j++) {
      uint64_t v = cairnGetLE64(k + 8 + 8 * j);
      cmp = v < want[j] ? -1 : v > want[j] ? 1 : 0;
    }
    if (cmp <= 0) pick = i;
    else break;
  }
  c->addr = H5_UNDEF;
  if (pick >= 0) {
    const uint8_t *k = p + (size_t)pick * (key + f->so);
    uint64_t child = cairnGetLEn(k + key, f->so);
    if (level) {
      /* The bounds point into p, which the child uses only before it puts its own node into the
      ** cache (that may evict p); nothing here reads p after the child returns. */
      rc = btree1Chunk(d, child, c, depth + 1, (int)level - 1, k, k + key + f->so);
    } else {
      int eq = 1;
      for (uint32_t j = 0; j < r; j++) eq &= cairnGetLE64(k + 8 + 8 * j) == want[j];
      if (eq) {
        c->addr = child;
        c->size = cairnGetLE32(k);
        c->mask = cairnGetLE32(k + 4);
      }
    }
  }
  return rc;
}

static int idxLoad(H5Dset *d, uint64_t addr, size_t n, const char *zSig, const char *zWhat, const uint8_t **pp) {
  if ((*pp = idxFind(d, addr, n))) return CAIRN_OK;
  uint8_t *p;
  CAIRN_TRY(cairnH5LoadMeta(d->f, addr, n, &p));
  int rc = CAIRN_OK;
  if (n < 8) rc = cairnErr(CAIRN_CORRUPT, "hdf5: %s at %llu too small in %s", zWhat, (unsigned long long)addr, d->zPath);
  else if (zSig && memcmp(p, zSig, 4) != 0)
    rc = cairnErr(CAIRN_CORRUPT, "hdf5: missing %s signature at offset %llu in %s", zSig, (unsigned long long)addr, d->zPath);
  else rc = cairnH5Checksum(p, n - 4, addr, zWhat);
  if (rc) {
    cairnFree(p);
    return rc;
  }
  idxKeep(d, addr, n, p);
  *pp = p;
  return CAIRN_OK;
}

void cairnH5DsetFreeCache(H5Dset *d) {
  for (unsigned i = 0, nSet = idxCount(d); i < nSet; i++) {
    cairnFree(d->aIdx[i].p);
    d->aIdx[i].p = NULL;
  }
  d->iIdx = 0;
}

static void idxEntry(H5File *f, const uint8_t *p, unsigned es, int filtered, ChunkRef *c);

/* Fixed array entry lookup. */
static int farrayGet(H5Dset *d, uint64_t idx, ChunkRef *c) {
  H5File *f = d->f;
  uint8_t hd[64];
  size_t n = 4 + 1 + 1 + 1 + 1 + f->sl + f->so + 4;
  CAIRN_TRY(cairnH5ReadMeta(f, d->layout.addr, hd, n));
  if (memcmp(hd, H5_SIG_FAHD, 4)) return cairnErr(CAIRN_CORRUPT, "hdf5: missing FAHD signature at offset %llu in %s", (unsigned long long)d->layout.addr, d->zPath);
  CAIRN_TRY(cairnH5Checksum(hd, n - 4, d->layout.addr, "fixed array header"));
  uint8_t client = hd[5], es = hd[6], pageBits = hd[7];
  H5Cur cu;
  cairnH5Cur(&cu, hd + 8, n - 12, d->layout.addr + 8);
  uint64_t nEnt = cairnH5Len(f, &cu), dblk = cairnH5Addr(f, &cu);
  if (es < f->so || pageBits > 40) return cairnErr(CAIRN_CORRUPT, "hdf5: fixed array header at %llu in %s", (unsigned long long)d->layout.addr, d->zPath);
  c->addr = H5_UNDEF;
  if (idx >= nEnt || dblk == H5_UNDEF) return CAIRN_OK;
  uint64_t pageN = (uint64_t)1 << pageBits;
  size_t pre = 4 + 1 + 1 + f->so;
  if (nEnt > pageN) {
    uint64_t nPages = (nEnt + pageN - 1) / pageN;
    size_t bm = (size_t)((nPages + 7) / 8);
    if (bm > H5_MAX_META) return cairnErr(CAIRN_CORRUPT, "hdf5: fixed array of %llu entries in %s", (unsigned long long)nEnt, d->zPath);
    const uint8_t *p;
    CAIRN_TRY(idxLoad(d, dblk, pre + bm + 4, H5_SIG_FADB, "fixed array data block", &p));
    uint64_t pg = idx / pageN;
    if (!((p[pre + pg / 8] >> (7 - pg % 8)) & 1)) return CAIRN_OK;
    uint64_t pageBytes = pageN * es + 4;
    uint64_t pageAddr = dblk + pre + bm + 4 + pg * pageBytes;
    uint64_t inPage = (pg == nPages - 1) ? nEnt - pg * pageN : pageN;
    const uint8_t *q;
    CAIRN_TRY(idxLoad(d, pageAddr, (size_t)(inPage * es + 4), NULL, "fixed array page", &q));
    idxEntry(f, q + (idx - pg * pageN) * es, es, client == 1, c);
    return CAIRN_OK;
  }
  const uint8_t *p;
  CAIRN_TRY(idxLoad(d, dblk, pre + (size_t)nEnt * es + 4, H5_SIG_FADB, "fixed array data block", &p));
  idxEntry(f, p + pre + idx * es, es, client == 1, c);
  return CAIRN_OK;
}

static unsigned lg2(uint64_t v) {
  unsigned r = 0;
  while (v > 1) {
    v >>= 1;
    r++;
  }
  return r;
}

/* Decode one element of an array index (fixed/extensible). */
static void idxEntry(H5File *f, const uint8_t *p, unsigned es, int filtered, ChunkRef *c) {
  H5Cur e;
  cairnH5Cur(&e, p, es, 0);
  c->addr = cairnH5Addr(f, &e);
  if (filtered) {
    c->size = cairnH5U(&e, es - f->so - 4);
    c->mask = (uint32_t)cairnH5U(&e, 4);
  }
}

/* Read a data block of the extensible array (EADB) and fetch element k of it. */
static int earrayDblk(H5Dset *d, uint64_t addr, uint64_t nElem, uint64_t k, unsigned es, int filtered, unsigned aoBytes, unsigned pageBits,
                      ChunkRef *c) {
  H5File *f = d->f;
  size_t pre = 4 + 1 + 1 + f->so + aoBytes;
  uint64_t pageN = (uint64_t)1 << pageBits;
  if (nElem > pageN) {
    uint64_t pg = k / pageN;
    uint64_t pageAddr = addr + pre + 4 + pg * (pageN * es + 4);
    const uint8_t *q;
    CAIRN_TRY(idxLoad(d, pageAddr, (size_t)(pageN * es + 4), NULL, "extensible array data block page", &q));
    idxEntry(f, q + (k - pg * pageN) * es, es, filtered, c);
    return CAIRN_OK;
  }
  const uint8_t *p;
  CAIRN_TRY(idxLoad(d, addr, pre + (size_t)nElem * es + 4, H5_SIG_EADB, "extensible array data block", &p));
  idxEntry(f, p + pre + k * es, es, filtered, c);
  return CAIRN_OK;
}

static int earrayGet(H5Dset *d, uint64_t idx, ChunkRef *c) {
  H5File *f = d->f;
  c->addr = H5_UNDEF;
  uint8_t hd[96];
  size_t n = 4 + 1 + 1 + 6 + 6 * (size_t)f->sl + f->so + 4;
  CAIRN_TRY(cairnH5ReadMeta(f, d->layout.addr, hd, n));
  if (memcmp(hd, H5_SIG_EAHD, 4)) return cairnErr(CAIRN_CORRUPT, "hdf5: missing EAHD signature at offset %llu in %s", (unsigned long long)d->layout.addr, d->zPath);
  CAIRN_TRY(cairnH5Checksum(hd, n - 4, d->layout.addr, "extensible array header"));
  unsigned client = hd[5], es = hd[6], maxBits = hd[7], idxElem = hd[8], minElem = hd[9], minPtr = hd[10], pageBits = hd[11];
  H5Cur cu;
  cairnH5Cur(&cu, hd + 12, n - 16, d->layout.addr + 12);
  for (int i = 0; i < 5; i++) cairnH5Len(f, &cu);
  uint64_t maxIdx = cairnH5Len(f, &cu); /* number of elements realized */
  uint64_t iblk = cairnH5Addr(f, &cu);
  if (es < f->so || maxBits == 0 || maxBits > 64 || minElem == 0 || (minElem & (minElem - 1)) || minPtr == 0 || (minPtr & (minPtr - 1)) || pageBits > 40)
    return cairnErr(CAIRN_CORRUPT, "hdf5: extensible array header at %llu in %s", (unsigned long long)d->layout.addr, d->zPath);
  if (iblk == H5_UNDEF || idx >= maxIdx) return CAIRN_OK;
  int filtered = client == 1;
  unsigned aoBytes = (maxBits + 7) / 8;
  /* Super block table: super block s has 2^(s/2) data blocks of 2^((s+1)/2) * minElem elements. */
  unsigned nSblk = 1 + maxBits - lg2(minElem);
  if (nSblk > 64) nSblk = 64;
  unsigned iblkSblk = 2 * lg2(minPtr);
  size_t nIblkDblk = 2 * ((size_t)minPtr - 1);
  size_t nIblkSblk = nSblk > iblkSblk ? nSblk - iblkSblk : 0;
  size_t pre = 4 + 1 + 1 + f->so;
  size_t total = pre + (size_t)idxElem * es + nIblkDblk * f->so + nIblkSblk * f->so + 4;
  const uint8_t *p;
  CAIRN_TRY(idxLoad(d, iblk, total, H5_SIG_EAIB, "extensible array index block", &p));
  if (idx < idxElem) {
    idxEntry(f, p + pre + idx * es, es, filtered, c);
    return CAIRN_OK;
  }
  uint64_t i = idx - idxElem, start = 0, dblkStart = 0;
  unsigned s = 0;
  uint64_t ndblk = 0, dn = 0;
  for (; s < nSblk; s++) {
    ndblk = (uint64_t)1 << (s / 2);
    dn = ((uint64_t)1 << ((s + 1) / 2)) * minElem;
    if (i < start + ndblk * dn) break;
    start += ndblk * dn;
    dblkStart += ndblk;
  }
  if (s == nSblk) return CAIRN_OK;
  uint64_t di = (i - start) / dn, k = (i - start) % dn;
  uint64_t dAddr;
  if (s < iblkSblk) {
    uint64_t e = dblkStart + di;
    if (e >= nIblkDblk) return cairnErr(CAIRN_CORRUPT, "hdf5: extensible array index out of range in %s", d->zPath);
    H5Cur a;
    cairnH5Cur(&a, p + pre + (size_t)idxElem * es + e * f->so, f->so, iblk);
    dAddr = cairnH5Addr(f, &a);
  } else {
    H5Cur a;
    cairnH5Cur(&a, p + pre + (size_t)idxElem * es + nIblkDblk * f->so + (size_t)(s - iblkSblk) * f->so, f->so, iblk);
    uint64_t sAddr = cairnH5Addr(f, &a);
    if (sAddr == H5_UNDEF) return CAIRN_OK;
    uint64_t pageN = (uint64_t)1 << pageBits;
    /* page-init bits: the field holds ceil(pages/8) bytes per data block, but the bits run
    ** on across data blocks (bit di * pages + page), as libhdf5 writes them */
    uint64_t nPg = dn > pageN ? (dn + pageN - 1) / pageN : 0;
    size_t bm = (size_t)(((nPg + 7) / 8) * ndblk);
    size_t sp = 4 + 1 + 1 + f->so + aoBytes;
    const uint8_t *q;
    CAIRN_TRY(idxLoad(d, sAddr, sp + bm + (size_t)ndblk * f->so + 4, H5_SIG_EASB, "extensible array super block", &q));
    H5Cur b;
    cairnH5Cur(&b, q + sp + bm + di * f->so, f->so, sAddr);
    dAddr = cairnH5Addr(f, &b);
    if (bm && dAddr != H5_UNDEF) {
      uint64_t bit = di * nPg + k / pageN;
      if (!((q[sp + bit / 8] >> (7 - bit % 8)) & 1)) dAddr = H5_UNDEF;
    }
  }
  if (dAddr == H5_UNDEF) return CAIRN_OK;
  return earrayDblk(d, dAddr, dn, k, es, filtered, aoBytes, pageBits, c);
}

typedef struct Bt2C {
  H5Dset *d;
  ChunkRef *c;
  uint32_t recSize;
} Bt2C;
static int bt2CCmp(void *pArg, const uint8_t *rec) {
  Bt2C *a = pArg;
  uint32_t r = a->d->layout.rank;
  /* The record size is only known from the B-tree header; the scaled offsets end the record.
  ** Unfiltered records are addr + 8*rank bytes; filtered ones add a size and a mask. */
  size_t so = a->d->f->so;
  size_t off = a->d->pipeline.n ? a->recSize - 8 * (size_t)r : so;
  for (uint32_t j = 0; j < r; j++) {
    uint64_t v = cairnGetLE64(rec + off + 8 * j);
    if (a->c->scaled[j] != v) return a->c->scaled[j] < v ? -1 : 1;
  }
  return 0;
}
static int bt2CFound(void *pArg, const uint8_t *rec, uint32_t n) {
  Bt2C *a = pArg;
  H5File *f = a->d->f;
  a->c->addr = cairnGetLEn(rec, f->so);
  if (a->d->pipeline.n) {
    size_t nz = n - f->so - 4 - 8 * (size_t)a->d->layout.rank;
    a->c->size = cairnGetLEn(rec + f->so, (unsigned)CAIRN_MIN(nz, 8));
    a->c->mask = cairnGetLE32(rec + f->so + nz);
  }
  return CAIRN_OK;
}

static int chunkLookup(H5Dset *d, ChunkRef *c) {
  const H5Layout *l = &d->layout;
  c->addr = H5_UNDEF;
  c->size = chunkBytes(d);
  c->mask = 0;
  if (l->addr == H5_UNDEF) return CAIRN_OK;
  uint32_t r = l->rank;
  switch (l->idx) {
    case H5IDX_BTREE1: return btree1Chunk(d, l->addr, c, 0, -1, NULL, NULL);
    case H5IDX_SINGLE:
      c->addr = l->addr;
      if (l->flags & 2) {
        c->size = l->singleSize;
        c->mask = l->singleMask;
      }
      return CAIRN_OK;
    case H5IDX_IMPLICIT:
    case H5IDX_FARRAY: {
      uint64_t lin = 0;
      for (uint32_t i = 0; i < r; i++) lin = lin * maxChunks(d, i) + c->scaled[i];
      if (l->idx == H5IDX_IMPLICIT) {
        uint64_t off;
        if (cairnMulOverflow64(lin, c->size, &off)) return cairnErr(CAIRN_CORRUPT, "hdf5: implicit chunk index overflow in %s", d->zPath);
        c->addr = l->addr + off;
        return CAIRN_OK;
      }
      return farrayGet(d, lin, c);
    }
    case H5IDX_EARRAY: {
      /* The unlimited dimension is the slowest; the others keep their order. */
      uint32_t u = 0;
      for (uint32_t i = 0; i < r; i++)
        if (d->space.aMax[i] == H5_UNDEF) {
          u = i;
          break;
        }
      uint64_t lin = c->scaled[u];
      for (uint32_t i = 0; i < r; i++)
        if (i != u) lin = lin * maxChunks(d, i) + c->scaled[i];
      return earrayGet(d, lin, c);
    }
    case H5IDX_BTREE2: {
      uint8_t hd[16];
      CAIRN_TRY(cairnH5ReadMeta(d->f, l->addr, hd, 12));
      Bt2C a = {d, c, cairnGetLE16(hd + 10)};
      if (a.recSize < d->f->so + 8 * r) return cairnErr(CAIRN_CORRUPT, "hdf5: chunk v2 B-tree record size %u in %s", a.recSize, d->zPath);
      int rc = cairnH5Bt2Find(d->f, l->addr, bt2CCmp, bt2CFound, &a);
      if (rc == CAIRN_NOTFOUND) {
        c->addr = H5_UNDEF;
        return CAIRN_OK;
      }
      return rc;
    }
  }
  return cairnErr(CAIRN_UNSUPPORTED, "hdf5: chunk index %u in %s", l->idx, d->zPath);
}

/* ---------------------------------------------------------------- chunked reads */
/* One chunk to read: 32 bytes whatever the rank (a selection may touch millions of chunks);
** its coordinates are recomputed from its position in the touched box. */
typedef struct Job {
  uint64_t addr, size;
  uint64_t lin; /* row-major index inside the box of touched chunks */
  uint32_t mask;
  int rc;
} Job;

typedef struct ReadCtx {
  uint64_t c0[H5_MAX_RANK], span[H5_MAX_RANK]; /* the box of touched chunks */
  H5Dset *d;
  const Geo *g;
  uint8_t *out;
  Job *aJob;
  H5Scratch *aScr; /* one per worker (iWorker < nScr), NULL: none (each chunk allocates) */
  unsigned nScr;
  uint64_t cb;  /* decoded chunk bytes */
  char zErr[256];
  int errSet;
} ReadCtx;

/* Partial edge chunks are stored whole (the library pads them), so the block is always the
** full chunk shape. */
static void jobOrigin(const ReadCtx *x, const Job *jb, uint64_t *org) {
  const H5Dset *d = x->d;
  uint64_t lin = jb->lin;
  for (int i = (int)d->layout.rank - 1; i >= 0; i--) {
    org[i] = (x->c0[i] + lin % x->span[i]) * d->layout.aChunk[i];
    lin /= x->span[i];
  }
}

static int chunkUnfiltered(const H5Dset *d, const Job *jb) {
  return d->pipeline.n == 0 || (jb->mask & ((1u << d->pipeline.n) - 1)) == ((1u << d->pipeline.n) - 1);
}

/* An unfiltered chunk is read whole when a good part of it is selected (or it is small), run by
** run otherwise: a 128x128 chunk read row by row would be 128 host calls. */
static int chunkReadWhole(const ReadCtx *x, const uint64_t *org) {
  const H5Dset *d = x->d;
  uint64_t nIn = 1;
  for (uint32_t i = 0; i < x->g->rank; i++) nIn *= geoLower(x->g, i, org[i] + d->layout.aChunk[i]) - geoLower(x->g, i, org[i]);
  return x->cb <= (64u << 10) || (nIn * x->g->es * 4 >= x->cb && x->cb <= (256u << 20));
}

static int readOneChunk(ReadCtx *x, Job *jb, H5Scratch *S) {
  H5Dset *d = x->d;
  uint64_t org[H5_MAX_RANK];
  jobOrigin(x, jb, org);
  Block b;
  b.org = org;
  b.dim = d->layout.aChunk;
  b.src = NULL;
  b.fileAddr = H5_UNDEF;
  b.ext = NULL;
  b.pFill = d->fill.defined ? d->fill.p : NULL;
  b.nFill = d->fill.defined ? d->fill.size : 0;
  if (jb->addr == H5_UNDEF) return scatter(d->f, x->g, &b, x->out);
  if (chunkUnfiltered(d, jb)) {
    if (jb->size < x->cb)
      return cairnErr(CAIRN_CORRUPT, "hdf5: chunk at offset %llu of %s holds %llu bytes, not %llu", (unsigned long long)jb->addr, d->zPath,
                      (unsigned long long)jb->size, (unsigned long long)x->cb);
    if (chunkReadWhole(x, org)) {
      uint8_t *raw = cairnH5ScrAlloc(S, (size_t)x->cb);
      if (!raw) return cairnErr(CAIRN_NOMEM, "hdf5: out of memory for a chunk of %llu bytes", (unsigned long long)x->cb);
      int rc = cairnH5ReadRaw(d->f, jb->addr, raw, (size_t)x->cb);
      if (rc == CAIRN_OK) {
        b.src = raw;
        rc = scatter(d->f, x->g, &b, x->out);
      }
      cairnH5ScrFree(S, raw);
      return rc;
    }
    b.fileAddr = jb->addr;
    return scatter(d->f, x->g, &b, x->out);
  }
  if (jb->size > H5_MAX_CHUNK || jb->size == 0)
    return cairnErr(CAIRN_CORRUPT, "hdf5: chunk at offset %llu of %s has stored size %llu", (unsigned long long)jb->addr, d->zPath,
                    (unsigned long long)jb->size);
  uint8_t *raw = cairnH5ScrAlloc(S, (size_t)jb->size);
  if (!raw) return cairnErr(CAIRN_NOMEM, "hdf5: out of memory for a chunk of %llu bytes", (unsigned long long)jb->size);
  int rc = cairnH5ReadRaw(d->f, jb->addr, raw, (size_t)jb->size);
  if (rc) {
    cairnH5ScrFree(S, raw);
    return rc;
  }
  uint8_t *dec;
  size_t nDec;
  CAIRN_TRY(cairnH5Unfilter(&d->pipeline, jb->mask, raw, (size_t)jb->size, (size_t)x->cb, &dec, &nDec, d->zPath, jb->addr, S));
  if (nDec < x->cb) {
    cairnH5ScrFree(S, dec);
    return cairnErr(CAIRN_CORRUPT, "hdf5: chunk at offset %llu of %s decodes to %zu bytes, not %llu", (unsigned long long)jb->addr, d->zPath, nDec,
                    (unsigned long long)x->cb);
  }
  b.src = dec;
  rc = scatter(d->f, x->g, &b, x->out);
  cairnH5ScrFree(S, dec);
  return rc;
}


static int jobAddrCmp(const void *a, const void *b) {
  uint64_t x = ((const Job *)a)->addr, y = ((const Job *)b)->addr;
  return x < y ? -1 : x > y;
}

/* Tell a remote host (cairn_file_methods.xWillRead) which byte ranges the chunk reads of x will
** read whole, in address order (the jobs are sorted so: the pool's workers take them in order),
** so that it can fetch neighbours in few large requests ahead of the reads. Chunks read run by
** run (a small part of a large chunk selected) are left out; overlapping chunks (a damaged
** index) send no plan. Best effort: without memory for the list, no plan. */
static void chunkPlan(ReadCtx *x, size_t n) {
  H5File *f = x->d->f;
  if (n < 2 || n > ((size_t)1 << 20) || !cairnFileCanPlan(f->pFile)) return;
  qsort(x->aJob, n, sizeof(Job), jobAddrCmp);
  uint64_t *a = cairnMallocArray(n * 2, sizeof(uint64_t));
  if (!a) return;
  size_t k = 0;
  uint64_t end = 0;
  for (size_t i = 0; i < n; i++) {
    const Job *jb = &x->aJob[i];
    if (jb->addr == H5_UNDEF) continue;
    uint64_t len = jb->size, org[H5_MAX_RANK], abs;
    if (chunkUnfiltered(x->d, jb)) {
      jobOrigin(x, jb, org);
      if (!chunkReadWhole(x, org) || jb->size < x->cb) continue;
      len = x->cb;
    }
    if (len == 0 || cairnAddOverflow64(jb->addr, f->base, &abs) || abs < end) {
      k = 0; /* overlapping or past 2^64: no plan */
      break;
    }
    a[2 * k] = abs, a[2 * k + 1] = len, k++;
    end = abs + len;
  }
  if (k > 1) cairnFileWillRead(f->pFile, a, k);
  cairnFree(a);
}

static void chunkTask(void *pArg, size_t i, unsigned iWorker) {
  ReadCtx *x = pArg;
  x->aJob[i].rc = readOneChunk(x, &x->aJob[i], iWorker < x->nScr ? &x->aScr[iWorker] : NULL);
  if (x->aJob[i].rc && __atomic_exchange_n(&x->errSet, 1, __ATOMIC_ACQ_REL) == 0) {
    /* error messages are per thread: keep the first for the caller's thread */
    cairnFormat(x->zErr, sizeof(x->zErr), "%s", cairn_errmsg());
  }
}

static int readChunked(H5Dset *d, const Geo *g, uint8_t *out) {
  const H5Layout *l = &d->layout;
  uint32_t r = l->rank;
  if (chunkBytes(d) > H5_MAX_CHUNK) return cairnErr(CAIRN_LIMIT, "hdf5: chunks of %llu bytes in %s", (unsigned long long)chunkBytes(d), d->zPath);
  CAIRN_TRY(cairnH5Budget(d->f, d->zPath, chunkBytes(d))); /* each chunk is decoded whole */
  if (l->elemSize && l->elemSize != d->pType->size)
    return cairnErr(CAIRN_CORRUPT, "hdf5: layout element size %u differs from datatype size %u in %s", l->elemSize, d->pType->size, d->zPath);
  /* Chunk ranges touched per dimension, and the list of touched chunk coordinates. */
  uint64_t c0[H5_MAX_RANK], c1[H5_MAX_RANK];
  uint64_t nJob = 1;
  for (uint32_t i = 0; i < r; i++) {
    c0[i] = geoCoord(g, i, 0) / l->aChunk[i];
    c1[i] = geoCoord(g, i, g->aOut[i] - 1) / l->aChunk[i];
    uint64_t span = c1[i] - c0[i] + 1;
    if (cairnMulOverflow64(nJob, span, &nJob) || nJob > ((uint64_t)1 << 24))
      return cairnErr(CAIRN_LIMIT, "hdf5: selection touches more than 16M chunks of %s: read it in parts", d->zPath);
  }
  Job *aJob = cairnMallocArray((size_t)nJob, sizeof(Job));
  if (!aJob) return cairnErr(CAIRN_NOMEM, "hdf5: out of memory for %llu chunks of %s", (unsigned long long)nJob, d->zPath);
  uint64_t sc[H5_MAX_RANK];
  for (uint32_t i = 0; i < r; i++) sc[i] = c0[i];
  size_t n = 0;
  int rc = CAIRN_OK;
  for (;;) {
    /* skip chunks that contain no selected coordinate (strided selections) */
    int hit = 1;
    for (uint32_t i = 0; i < r && hit; i++) {
      uint64_t lo = sc[i] * l->aChunk[i];
      uint64_t k = geoLower(g, i, lo);
      hit = k < g->aOut[i] && geoCoord(g, i, k) < lo + l->aChunk[i];
    }
    if (hit) {
      ChunkRef cr;
      uint64_t lin = 0;
      for (uint32_t i = 0; i < r; i++) {
        cr.scaled[i] = sc[i];
        lin = lin * (c1[i] - c0[i] + 1) + (sc[i] - c0[i]);
      }
      if ((rc = chunkLookup(d, &cr))) break;
      aJob[n].addr = cr.addr;
      aJob[n].size = cr.size;
      aJob[n].mask = cr.mask;
      aJob[n].lin = lin;
      aJob[n].rc = 0;
      n++;
    }
    int i = (int)r - 1;
    for (; i >= 0; i--) {
      if (++sc[i] <= c1[i]) break;
      sc[i] = c0[i];
    }
    if (i < 0) break;
  }
  if (rc == CAIRN_OK && l->idx == H5IDX_BTREE1 && n > 1) {
    /* A v1 B-tree's child addresses are unchecksummed: one flipped bit can name another chunk
    ** (whose Fletcher-32 then passes). Two keys naming one address is that damage; jobs in
    ** address order also read the file forwards. */
    qsort(aJob, n, sizeof(Job), jobAddrCmp);
    for (size_t i = 1; i < n && !rc; i++)
      if (aJob[i].addr != H5_UNDEF && aJob[i].addr == aJob[i - 1].addr)
        rc = cairnErr(CAIRN_CORRUPT, "hdf5: two chunks of %s are at offset %llu: its chunk B-tree is damaged", d->zPath, (unsigned long long)aJob[i].addr);
  }
  if (rc == CAIRN_OK) {
    ReadCtx x;
    memset(&x, 0, sizeof(x));
    x.d = d;
    x.g = g;
    x.out = out;
    x.aJob = aJob;
    x.cb = chunkBytes(d);
    for (uint32_t i = 0; i < r; i++) {
      x.c0[i] = c0[i];
      x.span[i] = c1[i] - c0[i] + 1;
    }
    chunkPlan(&x, n);
    /* One scratch per worker, kept from chunk to chunk (issue 23: a 16-chunk deflate read made
    ** 81 allocations, five per chunk). Without it (no memory for the array) chunks allocate. */
    unsigned nW = n > 1 ? cairnConcurrency() : 1;
    if ((x.aScr = cairnMallocArray(nW, sizeof(H5Scratch)))) {
      memset(x.aScr, 0, nW * sizeof(H5Scratch));
      x.nScr = nW;
      for (unsigned i = 0; i < nW; i++) x.aScr[i].nHint = (size_t)x.cb + 64; /* cairnH5Unfilter's cap */
    }
    if (n > 1) cairnParallelFor(n, chunkTask, &x);
    else if (n == 1) chunkTask(&x, 0, 0);
    for (unsigned i = 0; i < x.nScr; i++) cairnH5ScrClear(&x.aScr[i]);
    cairnFree(x.aScr);
    for (size_t i = 0; i < n; i++)
      if (aJob[i].rc) {
        rc = aJob[i].rc;
        cairnErr(rc, "%s", x.zErr[0] ? x.zErr : "hdf5: chunk read failed");
        break;
      }
  }
  cairnFree(aJob);
  return rc;
}

/* Every allocated chunk of d (repack copies only those: never-written chunks stay unwritten). */
int cairnH5DsetChunkEach(H5Dset *d, uint64_t maxCells, int (*x)(void *, const uint64_t *, uint64_t), void *pArg) {
  const H5Layout *l = &d->layout;
  if (l->cls != CAIRN_H5_CHUNKED || l->addr == H5_UNDEF || d->space.kind != CAIRN_H5_SIMPLE) return CAIRN_OK; /* none written */
  uint32_t r = l->rank;
  uint64_t n[H5_MAX_RANK], nCell = 1;
  for (uint32_t i = 0; i < r; i++) {
    uint64_t dim = i < d->space.rank ? d->space.aDim[i] : 1;
    if (dim == 0) return CAIRN_OK;
    n[i] = (dim + l->aChunk[i] - 1) / l->aChunk[i];
    if (cairnMulOverflow64(nCell, n[i], &nCell) || nCell > maxCells)
      return cairnErr(CAIRN_LIMIT, "hdf5: %s has more than %llu chunk positions to look up", d->zPath, (unsigned long long)maxCells);
  }
  ChunkRef c;
  memset(&c, 0, sizeof c);
  for (uint64_t k = 0; k < nCell; k++) {
    uint64_t lin = k;
    for (int i = (int)r - 1; i >= 0; i--) {
      c.scaled[i] = lin % n[i];
      lin /= n[i];
    }
    CAIRN_TRY(chunkLookup(d, &c));
    if (c.addr != H5_UNDEF) CAIRN_TRY(x(pArg, c.scaled, c.addr));
  }
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- external raw data
** A contiguous dataset may keep its bytes in other files (External Data Files message): slots
** of (name in a local heap, offset in that file, size), whose concatenation is the dataset's
** storage; the last slot's size may be unlimited. Each file is opened through the host,
** read-only, by the name as written: a relative name is resolved by the host, from its working
** directory, as libhdf5 does by default. Bytes past the end of an external file read as zeros
** (libhdf5 reads them so); bytes past the last slot are an error. One file is open at a time,
** for the length of one read. */
typedef struct ExtSlot {
  uint64_t nameOff, off, size; /* size UINT64_MAX: to the end of the file and beyond */
} ExtSlot;
struct Ext {
  H5Dset *d;
  uint64_t heap;
  ExtSlot *a;
  uint32_t n;
  uint32_t iOpen; /* the slot whose file is open (when pOpen) */
  cairn_file *pOpen;
  char *zOpen;
  uint32_t iCur;     /* where the last read ended: slot iCur, which starts at byte curStart */
  uint64_t curStart; /* (a selection reads run after run, mostly forward: no rescan) */
};

static int extParse(H5Dset *d, Ext *x) {
  H5File *f = d->f;
  const uint8_t *q;
  size_t nq;
  uint64_t qa;
  uint8_t *own;
  memset(x, 0, sizeof(*x));
  x->d = d;
  CAIRN_TRY(cairnH5MsgResolve(f, d->pEfl, &q, &nq, &qa, &own));
  H5Cur c;
  cairnH5Cur(&c, q, nq, qa);
  uint8_t ver = cairnH5U8(&c);
  cairnH5U(&c, 3);
  uint32_t nAlloc = (uint32_t)cairnH5U(&c, 2), nUsed = (uint32_t)cairnH5U(&c, 2);
  x->heap = cairnH5Addr(f, &c);
  int rc = CAIRN_OK;
  size_t slot = 3 * (size_t)f->sl;
  if (c.bad || ver != 1 || nUsed == 0 || nUsed > nAlloc || !cairnH5Has(&c, nUsed * slot))
    rc = cairnErr(CAIRN_CORRUPT, "hdf5: bad external data files message (version %u, %u of %u slots) of %s at offset %llu", ver, nUsed,
                  nAlloc, d->zPath, (unsigned long long)qa);
  else if (!(x->a = cairnMalloc(nUsed * sizeof(ExtSlot))))
    rc = cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
  else {
    uint64_t unlimited = f->sl >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * f->sl)) - 1;
    for (uint32_t i = 0; i < nUsed; i++) {
      x->a[i].nameOff = cairnH5U(&c, f->sl);
      x->a[i].off = cairnH5U(&c, f->sl);
      x->a[i].size = cairnH5U(&c, f->sl);
      if (x->a[i].size == unlimited) x->a[i].size = UINT64_MAX;
      if (x->a[i].size == UINT64_MAX && i + 1 < nUsed)
        rc = cairnErr(CAIRN_CORRUPT, "hdf5: external file %u of %u of %s has unlimited size but is not the last", i + 1, nUsed, d->zPath);
    }
    x->n = nUsed;
  }
  cairnFree(own);
  return rc;
}

static void extClose(Ext *x) {
  cairn_file_close(x->pOpen);
  cairnFree(x->zOpen);
  cairnFree(x->a);
}

static int extRead(Ext *x, uint64_t off, uint8_t *dst, size_t n) {
  uint64_t start = 0, want = off;
  size_t nWant = n;
  uint32_t i = 0;
  if (off >= x->curStart) i = x->iCur, start = x->curStart;
  for (; i < x->n && n > 0; i++) {
    const ExtSlot *s = &x->a[i];
    uint64_t end;
    if (s->size == UINT64_MAX || cairnAddOverflow64(start, s->size, &end)) end = UINT64_MAX;
    x->iCur = i, x->curStart = start;
    if (off < end) {
      uint64_t skip = off - start, at;
      size_t k = (size_t)CAIRN_MIN((uint64_t)n, end - off), got = 0;
      if (cairnAddOverflow64(s->off, skip, &at))
        return cairnErr(CAIRN_CORRUPT, "hdf5: external file %u of %s: offset overflows", i + 1, x->d->zPath);
      if (!x->pOpen || x->iOpen != i) {
        cairn_file_close(x->pOpen);
        x->pOpen = NULL;
        cairnFree(x->zOpen);
        CAIRN_TRY(cairnH5LocalHeapStr(x->d->f, x->heap, s->nameOff, &x->zOpen));
        int rc = cairn_open(x->zOpen, CAIRN_OPEN_READONLY, &x->pOpen);
        if (rc) return cairnErr(rc, "hdf5: %s keeps its data in external file '%s', which cannot be opened: %s", x->d->zPath, x->zOpen, cairn_errmsg());
        x->iOpen = i;
      }
      int rc = cairn_file_read(x->pOpen, dst, k, at, &got);
      if (rc) return cairnErr(rc, "hdf5: %s: reading external file '%s': %s", x->d->zPath, x->zOpen, cairn_errmsg());
      if (got < k) memset(dst + got, 0, k - got); /* past its end: zeros */
      dst += k;
      off += k;
      n -= k;
    }
    start = end;
    if (end == UINT64_MAX) break;
  }
  if (n > 0) /* start: the sum of all the slots' sizes (curStart sums those before iCur) */
    return cairnErr(CAIRN_CORRUPT, "hdf5: %s needs bytes %llu..%llu but its %u external files hold %llu", x->d->zPath, (unsigned long long)want,
                    (unsigned long long)(want + nWant), x->n, (unsigned long long)start);
  return CAIRN_OK;
}

int cairnH5DsetExternalJson(H5Dset *d, CairnSb *s) {
  Ext x;
  int rc = extParse(d, &x);
  cairnSbStr(s, ",\"external\":[");
  for (uint32_t i = 0; rc == CAIRN_OK && i < x.n; i++) {
    char *z;
    if ((rc = cairnH5LocalHeapStr(d->f, x.heap, x.a[i].nameOff, &z)) != CAIRN_OK) break;
    cairnSbStr(s, i ? ",{\"name\":" : "{\"name\":");
    cairnSbJsonStr(s, z, strlen(z), 1);
    cairnFree(z);
    cairnSbStr(s, ",\"offset\":");
    cairnSbU64(s, x.a[i].off);
    cairnSbStr(s, ",\"size\":");
    if (x.a[i].size == UINT64_MAX) cairnSbStr(s, "null"); /* unlimited */
    else cairnSbU64(s, x.a[i].size);
    cairnSbStr(s, "}");
  }
  cairnSbStr(s, "]");
  extClose(&x);
  return rc;
}

/* The selected elements of a dataset kept in external files. */
static int extScatter(H5Dset *d, const Geo *g, Block *b, uint8_t *out, uint64_t full) {
  if (d->f->noExternal)
    return cairnErr(CAIRN_UNSUPPORTED, "hdf5: %s keeps its data in external files, which this handle does not open (CAIRN_H5_NO_EXTERNAL)", d->zPath);
  Ext x;
  int rc = extParse(d, &x);
  if (rc == CAIRN_OK) {
    b->ext = &x;
    b->fileAddr = 0;
    if (g->nSel == d->space.nElem && full <= SIZE_MAX) rc = extRead(&x, 0, out, (size_t)full); /* all of it, in order */
    else rc = scatter(d->f, g, b, out);
  }
  extClose(&x);
  return rc;
}

int cairnH5Budget(const H5File *f, const char *zPath, uint64_t nNeed) {
  uint64_t b = f->readBudget ? f->readBudget : CAIRN_H5_READ_BUDGET_DEFAULT;
  if (nNeed <= b) return CAIRN_OK;
  return cairnErr(CAIRN_LIMIT, "hdf5: reading %s needs %llu bytes, over the read budget of %llu bytes (read a selection, or raise the budget)",
                  zPath, (unsigned long long)nNeed, (unsigned long long)b);
}

int cairnH5DsetReadRaw(H5Dset *d, const H5Sel *sel, uint8_t *out, size_t nOut) {
  size_t es = d->pType->size;
  if (d->space.kind == CAIRN_H5_NULL) return CAIRN_OK;
  const H5Layout *l = &d->layout;
  uint64_t full;
  if (!sel && l->cls == CAIRN_H5_CONTIGUOUS && l->addr != H5_UNDEF && !d->pEfl) {
    /* All of a contiguous dataset (the usual small read): one read, no selection geometry to
    ** set up (zeroing it cost more than the rest of the read). Same checks as below. */
    if (cairnMulOverflow64(d->space.nElem, es, &full) || full > nOut)
      return cairnErr(CAIRN_RANGE, "hdf5: buffer of %zu bytes too small for %llu elements of %s", nOut, (unsigned long long)d->space.nElem, d->zPath);
    if (full == 0) return CAIRN_OK;
    CAIRN_TRY(cairnH5Budget(d->f, d->zPath, full));
    if (l->size != UINT64_MAX && l->size < full)
      return cairnErr(CAIRN_CORRUPT, "hdf5: contiguous storage of %s has %llu bytes, needs %llu", d->zPath, (unsigned long long)l->size, (unsigned long long)full);
    return cairnH5ReadRawWhole(d->f, l->addr, out, (size_t)full);
  }
  Geo g;
  CAIRN_TRY(geoInit(&g, &d->space, sel, es, d->zPath));
  uint64_t need;
  int rc = CAIRN_OK;
  if (cairnMulOverflow64(g.nSel, es, &need) || need > nOut) {
    geoFree(&g);
    return cairnErr(CAIRN_RANGE, "hdf5: buffer of %zu bytes too small for %llu elements of %s", nOut, (unsigned long long)g.nSel, d->zPath);
  }
  if (g.nSel == 0) {
    geoFree(&g);
    return CAIRN_OK;
  }
  if ((rc = cairnH5Budget(d->f, d->zPath, need))) {
    geoFree(&g);
    return rc;
  }
  if (cairnMulOverflow64(d->space.nElem, es, &full)) full = UINT64_MAX;
  Block b;
  b.org = (const uint64_t[H5_MAX_RANK]){0};
  b.dim = d->space.aDim;
  b.src = NULL;
  b.fileAddr = H5_UNDEF;
  b.ext = NULL;
  b.pFill = d->fill.defined ? d->fill.p : NULL;
  b.nFill = d->fill.defined ? d->fill.size : 0;
  switch (l->cls) {
    case CAIRN_H5_COMPACT:
      if (l->size < full) rc = cairnErr(CAIRN_CORRUPT, "hdf5: compact data of %s has %llu bytes, needs %llu", d->zPath, (unsigned long long)l->size, (unsigned long long)full);
      else {
        b.src = l->pCompact;
        rc = scatter(d->f, &g, &b, out);
      }
      break;
    case CAIRN_H5_CONTIGUOUS:
      if (d->pEfl) rc = full == UINT64_MAX ? cairnErr(CAIRN_RANGE, "hdf5: %s is too large", d->zPath) : extScatter(d, &g, &b, out, full);
      else if (l->addr == H5_UNDEF) rc = scatter(d->f, &g, &b, out); /* never written: fill */
      else if (l->size != UINT64_MAX && l->size < full)
        rc = cairnErr(CAIRN_CORRUPT, "hdf5: contiguous storage of %s has %llu bytes, needs %llu", d->zPath, (unsigned long long)l->size, (unsigned long long)full);
      else if (g.nSel == d->space.nElem)
        rc = cairnH5ReadRawWhole(d->f, l->addr, out, (size_t)full);
      else if (full <= (1u << 20)) { /* small: one read, then pick from memory */
        uint8_t *raw = cairnMalloc((size_t)full);
        if (!raw) rc = cairnErr(CAIRN_NOMEM, "hdf5: out of memory reading %s", d->zPath);
        else {
          rc = cairnH5ReadRaw(d->f, l->addr, raw, (size_t)full);
          b.src = raw;
          if (rc == CAIRN_OK) rc = scatter(d->f, &g, &b, out);
          cairnFree(raw);
        }
      } else {
        b.fileAddr = l->addr;
        rc = scatter(d->f, &g, &b, out);
      }
      break;
    case CAIRN_H5_CHUNKED: rc = readChunked(d, &g, out); break;
    default: rc = cairnErr(CAIRN_UNSUPPORTED, "hdf5: virtual dataset %s", d->zPath);
  }
  geoFree(&g);
  return rc;
}
