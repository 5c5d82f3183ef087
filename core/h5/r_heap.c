/*
** 2026-11-29
**
** core/h5/r_heap.c - the reader's heaps and version 2 B-trees: global heap collections
** (GCOL, vlen data), fractal heaps (FRHP/FHIB/FHDB: managed, tiny and huge objects; dense
** links and attributes, SOHM) and v2 B-trees (BTHD/BTIN/BTLF, iteration and keyed search).
*/
#include "h5int.h"

/* ---------------------------------------------------------------- global heap */
static void gcolDrop(H5File *f) {
  cairnFree(f->pGcol);
  cairnFree(f->aGcolObj);
  f->pGcol = NULL;
  f->aGcolObj = NULL;
  f->nGcol = 0;
  f->nGcolObj = 0;
  f->gcolAddr = H5_UNDEF;
}

static int gcolLoad(H5File *f, uint64_t addr) {
  gcolDrop(f);
  uint8_t hdr[16];
  size_t nh = 8 + f->sl;
  CAIRN_TRY(cairnH5ReadMeta(f, addr, hdr, nh));
  if (memcmp(hdr, H5_SIG_GCOL, 4) != 0) return cairnErr(CAIRN_CORRUPT, "hdf5: missing GCOL signature at offset %llu", (unsigned long long)addr);
  uint64_t size = cairnGetLEn(hdr + 8, f->sl);
  if (size < nh || size > H5_MAX_META) return cairnErr(CAIRN_CORRUPT, "hdf5: global heap collection at %llu has size %llu", (unsigned long long)addr, (unsigned long long)size);
  uint8_t *p;
  CAIRN_TRY(cairnH5LoadMeta(f, addr, (size_t)size, &p));
  /* Index the objects: [2*i] = data offset, [2*i+1] = size. */
  uint32_t cap = 64;
  uint64_t *a = cairnMallocZero(cap * 2 * sizeof(uint64_t));
  if (!a) {
    cairnFree(p);
    return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
  }
  /* the collection header and each object header are padded to a multiple of 8 bytes (it
  ** shows with 4-byte lengths: 12 written, 16 used) */
  size_t i = (nh + 7) & ~(size_t)7, hs = (8 + (size_t)f->sl + 7) & ~(size_t)7;
  while (i + hs <= size) {
    uint32_t idx = cairnGetLE16(p + i);
    uint64_t n = cairnGetLEn(p + i + 8, f->sl);
    if (idx == 0) break; /* free space: the rest of the collection */
    if (n > size - i - hs) {
      cairnFree(p);
      cairnFree(a);
      return cairnErr(CAIRN_CORRUPT, "hdf5: global heap object %u at offset %llu overruns its collection", idx, (unsigned long long)(addr + i));
    }
    if (idx >= cap) { /* two entries per object: the array grows in pairs, zeroed */
      size_t nOld = 2 * (size_t)cap, nCap = nOld;
      int rc = cairnArrayReserve(&a, &nCap, 2 * ((size_t)idx + 1), sizeof(uint64_t), 0, "hdf5: global heap objects");
      if (rc) {
        cairnFree(p);
        cairnFree(a);
        return rc;
      }
      cap = (uint32_t)(nCap / 2);
      memset(a + nOld, 0, (2 * (size_t)cap - nOld) * sizeof(uint64_t));
    }
    a[2 * idx] = i + hs;
    a[2 * idx + 1] = n;
    i += hs + ((n + 7) & ~(uint64_t)7);
  }
  f->pGcol = p;
  f->nGcol = (size_t)size;
  f->aGcolObj = a;
  f->nGcolObj = cap;
  f->gcolAddr = addr;
  return CAIRN_OK;
}

int cairnH5GlobalHeapGet(H5File *f, uint64_t coll, uint32_t idx, uint8_t **pp, size_t *pn) {
  if (coll != f->gcolAddr || !f->pGcol) CAIRN_TRY(gcolLoad(f, coll));
  if (idx == 0 || idx >= f->nGcolObj || f->aGcolObj[2 * idx] == 0)
    return cairnErr(CAIRN_CORRUPT, "hdf5: no object %u in the global heap collection at %llu", idx, (unsigned long long)coll);
  *pp = f->pGcol + f->aGcolObj[2 * idx];
  *pn = (size_t)f->aGcolObj[2 * idx + 1];
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- fractal heap */
static unsigned log2u(uint64_t v) {
  unsigned r = 0;
  while (v > 1) {
    v >>= 1;
    r++;
  }
  return r;
}

int cairnH5FHeapOpen(H5File *f, uint64_t addr, H5FHeap *h) {
  memset(h, 0, sizeof(*h));
  h->addr = addr;
  if (addr == H5_UNDEF) return cairnErr(CAIRN_CORRUPT, "hdf5: undefined fractal heap address");
  uint8_t hd[256];
  size_t nFixed = 4 + 1 + 2 + 2 + 1 + 4 + (size_t)f->sl * 12 + (size_t)f->so * 3 + 2 + 2 + 2 + 2;
  CAIRN_TRY(cairnH5ReadMeta(f, addr, hd, nFixed));
  if (memcmp(hd, H5_SIG_FRHP, 4) != 0) return cairnErr(CAIRN_CORRUPT, "hdf5: missing FRHP signature at offset %llu", (unsigned long long)addr);
  H5Cur c;
  cairnH5Cur(&c, hd + 4, nFixed - 4, addr + 4);
  if (cairnH5U8(&c) != 0) return cairnErr(CAIRN_UNSUPPORTED, "hdf5: fractal heap version at offset %llu", (unsigned long long)addr);
  h->idLen = (uint16_t)cairnH5U(&c, 2);
  h->filterLen = (uint16_t)cairnH5U(&c, 2);
  h->flags = cairnH5U8(&c);
  h->maxManaged = (uint32_t)cairnH5U(&c, 4);
  cairnH5Len(f, &c); /* next huge id */
  h->hugeBtree = cairnH5Addr(f, &c);
  cairnH5Len(f, &c);  /* free space */
  cairnH5Addr(f, &c); /* free space manager */
  cairnH5Len(f, &c);  /* managed space */
  cairnH5Len(f, &c);  /* allocated managed */
  cairnH5Len(f, &c);  /* iterator */
  cairnH5Len(f, &c);  /* n managed */
  cairnH5Len(f, &c);  /* huge size */
  cairnH5Len(f, &c);  /* n huge */
  cairnH5Len(f, &c);  /* tiny size */
  cairnH5Len(f, &c);  /* n tiny */
  h->width = (uint16_t)cairnH5U(&c, 2);
  h->startBlock = cairnH5Len(f, &c);
  h->maxDirect = cairnH5Len(f, &c);
  h->maxHeapBits = (uint16_t)cairnH5U(&c, 2);
  h->startRows = (uint16_t)cairnH5U(&c, 2);
  h->root = cairnH5Addr(f, &c);
  h->curRows = (uint16_t)cairnH5U(&c, 2);
  if (c.bad) return cairnErr(CAIRN_CORRUPT, "hdf5: truncated fractal heap header at offset %llu", (unsigned long long)addr);
  size_t nAll = nFixed + (h->filterLen ? (size_t)f->sl + 4 + h->filterLen : 0) + 4;
  if (nAll > sizeof(hd)) return cairnErr(CAIRN_CORRUPT, "hdf5: fractal heap header at %llu too large", (unsigned long long)addr);
  CAIRN_TRY(cairnH5ReadMeta(f, addr, hd, nAll));
  CAIRN_TRY(cairnH5Checksum(hd, nAll - 4, addr, "fractal heap header"));
  if (h->filterLen) CAIRN_TRY(cairnH5PipelineDecode(hd + nFixed + f->sl + 4, h->filterLen, addr + nFixed + f->sl + 4, &h->filters));
  if (h->width == 0 || (h->width & (h->width - 1)) || h->startBlock == 0 || (h->startBlock & (h->startBlock - 1)) ||
      h->maxDirect < h->startBlock || (h->maxDirect & (h->maxDirect - 1)) || h->maxHeapBits == 0 || h->maxHeapBits > 64 ||
      h->idLen < 2 || h->maxDirect > H5_MAX_META)
    return cairnErr(CAIRN_CORRUPT, "hdf5: fractal heap header at %llu has bad doubling table parameters", (unsigned long long)addr);
  h->offBytes = (h->maxHeapBits + 7) / 8;
  h->lenBytes = cairnLEnSize(CAIRN_MIN(h->maxDirect, (uint64_t)h->maxManaged));
  h->maxDirectRows = log2u(h->maxDirect) - log2u(h->startBlock) + 2;
  return CAIRN_OK;
}

static uint64_t rowSize(const H5FHeap *h, unsigned r) { return r == 0 ? h->startBlock : h->startBlock << (r - 1); }

/* Find the direct block holding heap offset off: its address, its heap offset and size. */
static int fheapLocate(H5File *f, H5FHeap *h, uint64_t off, uint64_t *pAddr, uint64_t *pBlockOff, uint64_t *pSize) {
  if (h->root == H5_UNDEF) return cairnErr(CAIRN_CORRUPT, "hdf5: empty fractal heap at %llu", (unsigned long long)h->addr);
  if (h->curRows == 0) {
    *pAddr = h->root;
    *pBlockOff = 0;
    *pSize = h->startBlock;
    return CAIRN_OK;
  }
  uint64_t ib = h->root, ibOff = 0;
  unsigned nrows = h->curRows;
  for (int depth = 0; depth < 64; depth++) {
    if (nrows > 64) return cairnErr(CAIRN_CORRUPT, "hdf5: fractal heap indirect block at %llu has %u rows", (unsigned long long)ib, nrows);
    unsigned nDirRows = CAIRN_MIN(nrows, h->maxDirectRows);
    size_t entDirect = f->so + (h->filterLen ? f->sl + 4 : 0);
    size_t nK = (size_t)nDirRows * h->width, nN = nrows > h->maxDirectRows ? (size_t)(nrows - h->maxDirectRows) * h->width : 0;
    size_t hdr = 5 + f->so + h->offBytes;
    size_t total = hdr + nK * entDirect + nN * f->so + 4;
    uint8_t *p;
    CAIRN_TRY(cairnH5LoadMeta(f, ib, total, &p));
    int rc = CAIRN_OK;
    if (memcmp(p, H5_SIG_FHIB, 4) != 0) rc = cairnErr(CAIRN_CORRUPT, "hdf5: missing FHIB signature at offset %llu", (unsigned long long)ib);
    else rc = cairnH5Checksum(p, total - 4, ib, "fractal heap indirect block");
    if (rc) {
      cairnFree(p);
      return rc;
    }
    uint64_t rowStart = ibOff;
    int next = 0;
    for (unsigned r = 0; r < nrows; r++) {
      uint64_t bs = rowSize(h, r), span = bs * h->width;
      if (off >= rowStart + span) {
        rowStart += span;
        continue;
      }
      unsigned col = (unsigned)((off - rowStart) / bs);
      H5Cur c;
      if (r < h->maxDirectRows) {
        size_t e = (size_t)r * h->width + col;
        cairnH5Cur(&c, p + hdr + e * entDirect, entDirect, ib);
        *pAddr = cairnH5Addr(f, &c);
        *pBlockOff = rowStart + (uint64_t)col * bs;
        *pSize = bs;
        cairnFree(p);
        if (*pAddr == H5_UNDEF) return cairnErr(CAIRN_CORRUPT, "hdf5: fractal heap offset %llu is in an unallocated block", (unsigned long long)off);
        return CAIRN_OK;
      }
      size_t e = (size_t)(r - h->maxDirectRows) * h->width + col;
      cairnH5Cur(&c, p + hdr + nK * entDirect + e * f->so, f->so, ib);
      ib = cairnH5Addr(f, &c);
      ibOff = rowStart + (uint64_t)col * bs;
      nrows = log2u(bs) - log2u(h->startBlock * h->width) + 1;
      next = 1;
      break;
    }
    cairnFree(p);
    if (!next) return cairnErr(CAIRN_CORRUPT, "hdf5: fractal heap offset %llu beyond heap at %llu", (unsigned long long)off, (unsigned long long)h->addr);
    if (ib == H5_UNDEF) return cairnErr(CAIRN_CORRUPT, "hdf5: fractal heap offset %llu is in an unallocated indirect block", (unsigned long long)off);
  }
  return cairnErr(CAIRN_CORRUPT, "hdf5: fractal heap at %llu nests too deeply", (unsigned long long)h->addr);
}

static int bt2HugeCmp(void *pArg, const uint8_t *rec);
static int bt2HugeFound(void *pArg, const uint8_t *rec, uint32_t n);
typedef struct HugeKey { H5File *f; uint64_t key; uint64_t addr, len; } HugeKey;

int cairnH5FHeapGet(H5File *f, H5FHeap *h, const uint8_t *id, uint8_t **pp, size_t *pn) {
  *pp = NULL;
  *pn = 0;
  unsigned type = (id[0] >> 4) & 3;
  if ((id[0] >> 6) != 0) return cairnErr(CAIRN_CORRUPT, "hdf5: fractal heap ID version %u (heap %llu)", id[0] >> 6, (unsigned long long)h->addr);
  if (type == 2) { /* tiny */
    size_t n, skip;
    if (h->idLen <= 18) {
      n = (id[0] & 15) + 1u;
      skip = 1;
    } else {
      n = (((size_t)(id[0] & 15) << 8) | id[1]) + 1;
      skip = 2;
    }
    if (n + skip > h->idLen) return cairnErr(CAIRN_CORRUPT, "hdf5: tiny heap object longer than its ID (heap %llu)", (unsigned long long)h->addr);
    uint8_t *p = cairnMalloc(n);
    if (!p) return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
    memcpy(p, id + skip, n);
    *pp = p;
    *pn = n;
    return CAIRN_OK;
  }
  if (type == 1) { /* huge */
    if (h->filterLen) return cairnErr(CAIRN_UNSUPPORTED, "hdf5: filtered huge objects in fractal heap %llu", (unsigned long long)h->addr);
    uint64_t a, n;
    if (h->idLen >= 1 + f->so + f->sl) {
      H5Cur c;
      cairnH5Cur(&c, id + 1, h->idLen - 1, h->addr);
      a = cairnH5Addr(f, &c);
      n = cairnH5Len(f, &c);
    } else {
      HugeKey k = {f, cairnGetLEn(id + 1, CAIRN_MIN((unsigned)h->idLen - 1, f->sl)), 0, 0};
      CAIRN_TRY(cairnH5Bt2Find(f, h->hugeBtree, bt2HugeCmp, bt2HugeFound, &k));
      a = k.addr;
      n = k.len;
    }
    if (n > H5_MAX_META) return cairnErr(CAIRN_LIMIT, "hdf5: huge heap object of %llu bytes", (unsigned long long)n);
    CAIRN_TRY(cairnH5LoadMeta(f, a, (size_t)n, pp));
    *pn = (size_t)n;
    return CAIRN_OK;
  }
  if (type != 0) return cairnErr(CAIRN_CORRUPT, "hdf5: fractal heap ID type %u (heap %llu)", type, (unsigned long long)h->addr);
  if (h->filterLen) return cairnErr(CAIRN_UNSUPPORTED, "hdf5: filtered fractal heap at %llu", (unsigned long long)h->addr);
  if (1 + h->offBytes + h->lenBytes > h->idLen) return cairnErr(CAIRN_CORRUPT, "hdf5: fractal heap %llu IDs too short", (unsigned long long)h->addr);
  uint64_t off = cairnGetLEn(id + 1, h->offBytes), len = cairnGetLEn(id + 1 + h->offBytes, h->lenBytes);
  uint64_t ba = 0, bo = 0, bs = 0;
  CAIRN_TRY(fheapLocate(f, h, off, &ba, &bo, &bs));
  size_t hdr = 5 + f->so + h->offBytes + ((h->flags & 2) ? 4 : 0);
  if (off - bo < hdr || len > bs || off - bo > bs - len)
    return cairnErr(CAIRN_CORRUPT, "hdf5: heap object (offset %llu, %llu bytes) outside its direct block at %llu", (unsigned long long)off,
                    (unsigned long long)len, (unsigned long long)ba);
  if (h->flags & 2) {
    int seen = 0;
    /* only the slots written so far (the array is not zeroed at open) */
    for (unsigned i = 0; i < CAIRN_MIN(f->iVerified, (uint32_t)CAIRN_ARRAY_SIZE(f->aVerified)); i++) seen |= f->aVerified[i] == ba + 1;
    if (!seen) {
      uint8_t *blk;
      CAIRN_TRY(cairnH5LoadMeta(f, ba, (size_t)bs, &blk));
      int rc = memcmp(blk, H5_SIG_FHDB, 4) ? cairnErr(CAIRN_CORRUPT, "hdf5: missing FHDB signature at offset %llu", (unsigned long long)ba) : CAIRN_OK;
      if (rc == CAIRN_OK) {
        /* The checksum covers the whole block with the checksum field taken as zero. */
        size_t ck = hdr - 4;
        uint32_t want = cairnGetLE32(blk + ck);
        memset(blk + ck, 0, 4);
        uint32_t got = cairnLookup3(blk, (size_t)bs, 0);
        if (got != want)
          rc = cairnErr(CAIRN_CHECKSUM, "hdf5: fractal heap direct block checksum mismatch at offset %llu", (unsigned long long)ba);
      }
      if (rc) {
        cairnFree(blk);
        return rc;
      }
      f->aVerified[f->iVerified++ % CAIRN_ARRAY_SIZE(f->aVerified)] = ba + 1;
      uint8_t *p = cairnMalloc(len ? (size_t)len : 1);
      if (!p) {
        cairnFree(blk);
        return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
      }
      memcpy(p, blk + (off - bo), (size_t)len);
      cairnFree(blk);
      *pp = p;
      *pn = (size_t)len;
      return CAIRN_OK;
    }
  } else {
    uint8_t sig[4];
    CAIRN_TRY(cairnH5ReadMeta(f, ba, sig, 4));
    if (memcmp(sig, H5_SIG_FHDB, 4)) return cairnErr(CAIRN_CORRUPT, "hdf5: missing FHDB signature at offset %llu", (unsigned long long)ba);
  }
  CAIRN_TRY(cairnH5LoadMeta(f, ba + (off - bo), (size_t)len, pp));
  *pn = (size_t)len;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- v2 B-trees */
typedef struct Bt2 {
  H5File *f;
  uint64_t addr;
  uint8_t type;
  uint32_t nodeSize;
  uint16_t recSize, depth;
  uint64_t root;
  uint32_t nRoot;
  uint64_t total;
  uint32_t maxRec[17];
  uint8_t nrecBytes[17], totBytes[17];
} Bt2;

static int bt2Open(H5File *f, uint64_t addr, Bt2 *t) {
  memset(t, 0, sizeof(*t));
  t->f = f;
  t->addr = addr;
  uint8_t hd[64];
  size_t n = 4 + 1 + 1 + 4 + 2 + 2 + 1 + 1 + f->so + 2 + f->sl + 4;
  CAIRN_TRY(cairnH5ReadMeta(f, addr, hd, n));
  if (memcmp(hd, H5_SIG_BTHD, 4)) return cairnErr(CAIRN_CORRUPT, "hdf5: missing BTHD signature at offset %llu", (unsigned long long)addr);
  CAIRN_TRY(cairnH5Checksum(hd, n - 4, addr, "v2 B-tree header"));
  H5Cur c;
  cairnH5Cur(&c, hd + 4, n - 8, addr + 4);
  if (cairnH5U8(&c) != 0) return cairnErr(CAIRN_UNSUPPORTED, "hdf5: v2 B-tree version at offset %llu", (unsigned long long)addr);
  t->type = cairnH5U8(&c);
  t->nodeSize = (uint32_t)cairnH5U(&c, 4);
  t->recSize = (uint16_t)cairnH5U(&c, 2);
  t->depth = (uint16_t)cairnH5U(&c, 2);
  cairnH5U(&c, 2);
  t->root = cairnH5Addr(f, &c);
  t->nRoot = (uint32_t)cairnH5U(&c, 2);
  t->total = cairnH5Len(f, &c);
  if (t->nodeSize < 32 || t->nodeSize > H5_MAX_META || t->recSize == 0 || t->recSize > t->nodeSize || t->depth > 16)
    return cairnErr(CAIRN_CORRUPT, "hdf5: v2 B-tree at %llu: node size %u, record size %u, depth %u", (unsigned long long)addr, t->nodeSize,
                    t->recSize, t->depth);
  /* Per-level capacities, which size the child pointer fields. */
  uint64_t cum[17];
  t->maxRec[0] = (t->nodeSize - 10) / t->recSize;
  cum[0] = t->maxRec[0];
  t->nrecBytes[0] = (uint8_t)cairnLEnSize(t->maxRec[0]);
  t->totBytes[0] = (uint8_t)cairnLEnSize(cum[0]);
  for (unsigned d = 1; d <= t->depth; d++) {
    uint32_t ptr = f->so + t->nrecBytes[d - 1] + (d > 1 ? t->totBytes[d - 1] : 0);
    if (t->nodeSize < 10 + ptr) return cairnErr(CAIRN_CORRUPT, "hdf5: v2 B-tree at %llu: nodes too small", (unsigned long long)addr);
    t->maxRec[d] = (t->nodeSize - 10 - ptr) / (t->recSize + ptr);
    uint64_t cm = (uint64_t)(t->maxRec[d] + 1) * cum[d - 1] + t->maxRec[d];
    if (cm < cum[d - 1]) cm = UINT64_MAX;
    cum[d] = cm;
    t->nrecBytes[d] = (uint8_t)cairnLEnSize(t->maxRec[d]);
    t->totBytes[d] = (uint8_t)cairnLEnSize(cum[d]);
  }
  return CAIRN_OK;
}

/* Load a node at depth d with n records; returns its buffer (records at +6). */
static int bt2Node(Bt2 *t, uint64_t addr, unsigned d, uint32_t n, uint8_t **pp, uint32_t *pPtr) {
  if (n > t->maxRec[d] + 1u && n > 0xffff) return cairnErr(CAIRN_CORRUPT, "hdf5: v2 B-tree node at %llu has %u records", (unsigned long long)addr, n);
  uint32_t ptr = d ? t->f->so + t->nrecBytes[d - 1] + (d > 1 ? t->totBytes[d - 1] : 0) : 0;
  uint64_t size = 6 + (uint64_t)n * t->recSize + (d ? (uint64_t)(n + 1) * ptr : 0) + 4;
  if (size > t->nodeSize) return cairnErr(CAIRN_CORRUPT, "hdf5: v2 B-tree node at %llu: %u records overflow the node", (unsigned long long)addr, n);
  uint8_t *p;
  CAIRN_TRY(cairnH5LoadMeta(t->f, addr, (size_t)size, &p));
  int rc = CAIRN_OK;
  if (memcmp(p, d ? H5_SIG_BTIN : H5_SIG_BTLF, 4) != 0) rc = cairnErr(CAIRN_CORRUPT, "hdf5: missing %s signature at offset %llu", d ? H5_SIG_BTIN : H5_SIG_BTLF, (unsigned long long)addr);
  else if (p[5] != t->type) rc = cairnErr(CAIRN_CORRUPT, "hdf5: v2 B-tree node at %llu has type %u, not %u", (unsigned long long)addr, p[5], t->type);
  else rc = cairnH5Checksum(p, (size_t)size - 4, addr, "v2 B-tree node");
  if (rc) {
    cairnFree(p);
    return rc;
  }
  *pp = p;
  *pPtr = ptr;
  return CAIRN_OK;
}

static void bt2Child(Bt2 *t, const uint8_t *p, uint32_t n, unsigned d, uint32_t ptr, uint32_t i, uint64_t *pAddr, uint32_t *pN) {
  H5Cur c;
  cairnH5Cur(&c, p + 6 + (size_t)n * t->recSize + (size_t)i * ptr, ptr, 0);
  *pAddr = cairnH5Addr(t->f, &c);
  *pN = (uint32_t)cairnH5U(&c, t->nrecBytes[d - 1]);
}

static int bt2Walk(Bt2 *t, uint64_t addr, unsigned d, uint32_t n, H5Bt2Visit x, void *pArg) {
  uint8_t *p;
  uint32_t ptr;
  CAIRN_TRY(bt2Node(t, addr, d, n, &p, &ptr));
  int rc = 0;
  for (uint32_t i = 0; i <= n && rc == 0; i++) {
    if (d) {
      uint64_t ca;
      uint32_t cn;
      bt2Child(t, p, n, d, ptr, i, &ca, &cn);
      rc = bt2Walk(t, ca, d - 1, cn, x, pArg);
    }
    if (rc == 0 && i < n) rc = x(pArg, p + 6 + (size_t)i * t->recSize, t->recSize);
  }
  cairnFree(p);
  return rc;
}

int cairnH5Bt2Iterate(H5File *f, uint64_t addr, H5Bt2Visit x, void *pArg) {
  if (addr == H5_UNDEF) return CAIRN_OK;
  Bt2 t;
  CAIRN_TRY(bt2Open(f, addr, &t));
  if (t.root == H5_UNDEF || t.nRoot == 0) return CAIRN_OK;
  return bt2Walk(&t, t.root, t.depth, t.nRoot, x, pArg);
}

int cairnH5Bt2Find(H5File *f, uint64_t addr, H5Bt2Cmp xCmp, H5Bt2Visit xFound, void *pArg) {
  if (addr == H5_UNDEF) return CAIRN_NOTFOUND;
  Bt2 t;
  CAIRN_TRY(bt2Open(f, addr, &t));
  uint64_t node = t.root;
  uint32_t n = t.nRoot;
  if (node == H5_UNDEF || n == 0) return CAIRN_NOTFOUND;
  for (int d = t.depth; d >= 0; d--) {
    uint8_t *p;
    uint32_t ptr;
    CAIRN_TRY(bt2Node(&t, node, (unsigned)d, n, &p, &ptr));
    uint32_t i = 0;
    int cmp = 1;
    for (; i < n; i++) {
      cmp = xCmp(pArg, p + 6 + (size_t)i * t.recSize);
      if (cmp <= 0) break;
    }
    if (i < n && cmp == 0) {
      int rc = xFound(pArg, p + 6 + (size_t)i * t.recSize, t.recSize);
      cairnFree(p);
      return rc;
    }
    if (cmp > 0 && cmp != 1 && cmp != INT_MAX) { /* comparator error */
    }
    if (d == 0) {
      cairnFree(p);
      return CAIRN_NOTFOUND;
    }
    bt2Child(&t, p, n, (unsigned)d, ptr, i, &node, &n);
    cairnFree(p);
  }
  return CAIRN_NOTFOUND;
}

static int bt2HugeCmp(void *pArg, const uint8_t *rec) {
  HugeKey *k = pArg;
  uint64_t id = cairnGetLEn(rec + k->f->so + k->f->sl, k->f->sl);
  return k->key < id ? -1 : k->key > id ? 1 : 0;
}
static int bt2HugeFound(void *pArg, const uint8_t *rec, uint32_t n) {
  HugeKey *k = pArg;
  k->addr = cairnGetLEn(rec, k->f->so);
  k->len = cairnGetLEn(rec + k->f->so, k->f->sl);
  return CAIRN_OK;
}
