/*
** 2026-11-29
**
** core/zl/zl_dec.c - OpenZL frame reader (format 21..26): frame header, chunks with their
** transposed decoding map, stored streams, checksums, and the run of the decoder graph.
**
** Wire layout (format 26): magic, flags (bit0 content checksum, bit1 compressed checksum +
** header check byte, bit2 comment, bit3 dictionary bundle), inputs token (count in the low
** nibble, 2-bit types above), varint(size+1) per input, string counts, comment, check byte.
** Each chunk: varint(nDecoders+1) (0 ends the frame), varint nStored, then bit-packed fields
** (standard/custom flags, 7-bit standard IDs, header-size flags + varints, VO-count flags +
** varints, regen-count flags + varints, regen stream distances), varint stored-stream sizes,
** the codec headers, the stream bodies, then the optional 4-byte checksums.
**
** Stream numbering: decoder t reads the next nIn streams [base, base+nIn) in reverse order
** (the last stream is its first input) and writes its regenerated streams at
** base+nIn+distance; every slot no decoder writes is a stored stream, in order. The last
** slot is the frame's output. Every size read from the frame is checked against what is left
** of the frame or against a memory budget proportional to the declared output size.
*/
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "zl/zl_int.h"

struct ZlDec {
  uint64_t budget, live; /* bytes the transforms may still allocate, bytes now allocated */
  uint64_t chunkOff;
  ZSTD_DCtx *zd;
  int noCheck; /* fuzzing: skip checksum comparisons so mutations reach the decoders */
  int noFuse;  /* tests: decode every stream unfused */
  int fuse;    /* the running decoder's output goes only to a dispatch_string: may be lazy */
  int needLens; /* the running decoder's string output goes to a consumer that reads its lengths */
  /* The stream that becomes the chunk's output (or the input of a final retyping) is written
  ** straight into the caller's buffer when it fits: no final copy. */
  ZlStream *pDirect;
  uint8_t *pDirectDst;
  size_t nDirectCap;
};

uint8_t *cairnZlDirectDst(const ZlDec *d) { return d->pDirectDst; }
size_t cairnZlDirectCap(const ZlDec *d) { return d->nDirectCap; }

/* zstd allocates through the host too, so a host memory cap covers it. */
static void *zlZstdAlloc(void *o, size_t n) { (void)o; return cairnMalloc(n); }
static void zlZstdFree(void *o, void *p) { (void)o; cairnFree(p); }
static const ZSTD_customMem kZlZstdMem = {zlZstdAlloc, zlZstdFree, NULL};
void *cairnZlZstdCreateCCtx(void) { return ZSTD_createCCtx_advanced(kZlZstdMem); }
void *cairnZlZstdCreateDCtx(void) { return ZSTD_createDCtx_advanced(kZlZstdMem); }

void *cairnZlZstdDCtx(ZlDec *d) {
  if (!d->zd && (d->zd = cairnZlZstdCreateDCtx()) != NULL) ZSTD_DCtx_setParameter(d->zd, ZSTD_d_format, ZSTD_f_zstd1_magicless);
  return d->zd;
}

uint64_t cairnZlOffset(const ZlDec *d) { return d->chunkOff; }
int cairnZlFuse(const ZlDec *d) { return d->fuse; }
int cairnZlNeedLens(const ZlDec *d) { return d->needLens; }

int cairnZlNewStream(ZlDec *d, ZlStream *s, uint8_t type, uint32_t width, size_t n) {
  uint64_t nb;
  if (width == 0 || cairnMulOverflow64(n, width, &nb) || nb > d->budget - d->live)
    return cairnErr(CAIRN_CORRUPT, "zl: stream of %llu x %u bytes exceeds the frame's memory budget (chunk at offset %llu)",
                    (unsigned long long)n, width, (unsigned long long)d->chunkOff);
  memset(s, 0, sizeof *s);
  if (s == d->pDirect && nb <= d->nDirectCap) { /* borrowed from the caller's buffer */
    s->p = d->pDirectDst, s->type = type, s->width = width, s->n = n, s->nb = (size_t)nb;
    d->pDirect = NULL;
    return CAIRN_OK;
  }
  s->p = cairnMalloc((size_t)nb + ZL_SLACK);
  if (!s->p) return cairnErr(CAIRN_NOMEM, "zl: out of memory for a %llu-byte stream", (unsigned long long)nb);
  s->type = type, s->width = width, s->n = n, s->nb = (size_t)nb, s->own = 1;
  d->live += nb;
  return CAIRN_OK;
}

int cairnZlNewLens(ZlDec *d, ZlStream *s, size_t n) {
  uint64_t nb = (uint64_t)n * 4;
  if (nb > d->budget - d->live) return cairnErr(CAIRN_CORRUPT, "zl: %llu string lengths exceed the memory budget", (unsigned long long)n);
  s->aLen = cairnMalloc(nb ? (size_t)nb : 4);
  if (!s->aLen) return cairnErr(CAIRN_NOMEM, "zl: out of memory");
  d->live += nb;
  return CAIRN_OK;
}

void cairnZlShrinkStream(ZlDec *d, ZlStream *s, size_t nb) {
  cairnAssert(nb <= s->nb); /* a decoder writes at most what it allocated */
  if (s->own && nb < s->nb) d->live -= s->nb - nb; /* the slack past nb stays allocated */
  s->nb = nb;
}

void cairnZlFreeStream(ZlDec *d, ZlStream *s) {
  if (!s) return;
  if (s->own) {
    cairnFree(s->p);
    cairnAssert(d->live >= s->nb); /* the budget counts every owned byte once */
    d->live -= s->nb;
  }
  if (s->aLen) {
    cairnFree(s->aLen);
    d->live -= (uint64_t)s->n * 4;
  }
  cairnFree(s->lzOff);
  memset(s, 0, sizeof *s);
}

/* Cursor over the chunk header. */
typedef struct {
  const uint8_t *p, *e, *b; /* now, end, frame start (for offsets) */
} Cur;
static uint64_t curOff(const Cur *c) { return (uint64_t)(c->p - c->b); }
static int curVar(Cur *c, uint64_t *pv, const char *zWhat) {
  size_t k = zlVarGet(c->p, c->e, pv);
  if (!k) return cairnErr(CAIRN_CORRUPT, "zl: bad or truncated varint (%s) at offset %llu", zWhat, (unsigned long long)curOff(c));
  c->p += k;
  return CAIRN_OK;
}
/* n values of nb bits, LSB first, in ceil(n*nb/8) bytes. */
static int curBits(Cur *c, uint32_t *a, size_t n, int nb, const char *zWhat) {
  uint64_t nBytes = ((uint64_t)n * (unsigned)nb + 7) / 8;
  if (nBytes > (uint64_t)(c->e - c->p))
    return cairnErr(CAIRN_CORRUPT, "zl: truncated %s at offset %llu", zWhat, (unsigned long long)curOff(c));
  uint64_t acc = 0;
  int have = 0;
  const uint8_t *q = c->p;
  for (size_t i = 0; i < n; i++) {
    while (have < nb) acc |= (uint64_t)*q++ << have, have += 8;
    a[i] = nb ? (uint32_t)(acc & ((1ull << nb) - 1)) : 0;
    acc = nb < 64 ? acc >> nb : 0, have -= nb;
  }
  c->p += nBytes;
  return CAIRN_OK;
}

typedef struct {
  uint32_t id, hSize, nVO, nRegen, base, nIn;
  uint64_t hOff;
  const uint32_t *aDist;
  const ZlTransform *t;
} Node;

/* Decode one chunk at p[off..n). Appends its output to out (capacity nOut, *pnOut bytes so
** far); returns the chunk size in *pnChunk. */
static int decChunk(ZlDec *d, const uint8_t *b, size_t n, size_t off, unsigned version, unsigned flags,
                    uint8_t outType, uint8_t *out, size_t nOut, size_t *pnOut, size_t *pnChunk) {
  Cur c = {b + off, b + n, b};
  uint64_t v = 0, nDec, nSt = 0;
  int rc = CAIRN_OK;
  d->chunkOff = off;
  CAIRN_TRY(curVar(&c, &v, "decoder count"));
  nDec = v - 1;
  CAIRN_TRY(curVar(&c, &nSt, "stored stream count"));
  size_t left = (size_t)(c.e - c.p);
  /* Every decoder costs at least one flag bit, every stored stream one size byte: both counts
  ** are bounded by the bytes left, so the arrays below are too. */
  if (nDec > 8 * (uint64_t)left || nDec > 65536 || nSt > left || nSt > 65536)
    return cairnErr(CAIRN_CORRUPT, "zl: chunk at offset %llu declares %llu decoders and %llu streams, more than its %zu bytes can hold",
                    (unsigned long long)off, (unsigned long long)nDec, (unsigned long long)nSt, left);
  Node *aNode = cairnMallocZero(sizeof(Node) * (size_t)(nDec + 1));
  uint32_t *aTmp = cairnMalloc(sizeof(uint32_t) * (size_t)(nDec + 1) * 2);
  uint32_t *aDist = NULL;
  uint64_t *aSize = cairnMalloc(sizeof(uint64_t) * (size_t)(nSt + 1));
  ZlStream *aS = NULL, **apIn = NULL;
  int32_t *aProd = NULL, *aCons = NULL;
  if (!aNode || !aTmp || !aSize) {
    rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
    goto done;
  }
  /* standard/custom flags, then IDs */
  if ((rc = curBits(&c, aTmp, (size_t)nDec, 1, "codec type flags"))) goto done;
  size_t nStd = 0;
  for (size_t i = 0; i < nDec; i++) {
    if (aTmp[i]) {
      rc = cairnErr(CAIRN_UNSUPPORTED, "zl: decoder %zu of the chunk at offset %llu is a custom codec", i, (unsigned long long)off);
      goto done;
    }
    nStd++;
  }
  if ((rc = curBits(&c, aTmp, nStd, version < 24 ? 6 : 7, "codec IDs"))) goto done;
  for (size_t i = 0; i < nDec; i++) {
    aNode[i].id = aTmp[i];
    aNode[i].t = cairnZlTransform(aTmp[i]);
    if (!aNode[i].t) {
      rc = cairnErr(aTmp[i] < ZID_END ? CAIRN_UNSUPPORTED : CAIRN_CORRUPT,
                    "zl: codec ID %u (decoder %zu, chunk at offset %llu) is not supported", aTmp[i], i, (unsigned long long)off);
      goto done;
    }
  }
  /* codec header sizes: flags, then varint(size-1) */
  uint64_t totalH = 0;
  if ((rc = curBits(&c, aTmp, (size_t)nDec, 1, "header size flags"))) goto done;
  for (size_t i = 0; i < nDec; i++) {
    if (aTmp[i]) {
      if ((rc = curVar(&c, &v, "codec header size"))) goto done;
      if (v >= n) {
        rc = cairnErr(CAIRN_CORRUPT, "zl: codec header size %llu beyond the frame at offset %llu", (unsigned long long)v, (unsigned long long)curOff(&c));
        goto done;
      }
      aNode[i].hSize = (uint32_t)v + 1;
    }
    aNode[i].hOff = totalH;
    totalH += aNode[i].hSize;
  }
  if ((rc = curBits(&c, aTmp, (size_t)nDec, 1, "variable input flags"))) goto done;
  for (size_t i = 0; i < nDec; i++) {
    if (aTmp[i]) {
      if ((rc = curVar(&c, &v, "variable input count"))) goto done;
      if (v >= 4096) {
        rc = cairnErr(CAIRN_CORRUPT, "zl: %llu variable inputs for one decoder at offset %llu", (unsigned long long)v, (unsigned long long)curOff(&c));
        goto done;
      }
      aNode[i].nVO = (uint32_t)v + 1;
    }
  }
  uint64_t totRegen = 0;
  if ((rc = curBits(&c, aTmp, (size_t)nDec, 1, "regenerated stream flags"))) goto done;
  for (size_t i = 0; i < nDec; i++) {
    aNode[i].nRegen = 1;
    if (aTmp[i]) {
      if ((rc = curVar(&c, &v, "regenerated stream count"))) goto done;
      if (v >= 4096) {
        rc = cairnErr(CAIRN_CORRUPT, "zl: %llu regenerated streams for one decoder at offset %llu", (unsigned long long)v, (unsigned long long)curOff(&c));
        goto done;
      }
      aNode[i].nRegen = (uint32_t)v + 2;
    }
    totRegen += aNode[i].nRegen;
  }
  if (totRegen > 8 * (uint64_t)(c.e - c.p) + 1) {
    rc = cairnErr(CAIRN_CORRUPT, "zl: %llu regenerated streams cannot fit the chunk at offset %llu", (unsigned long long)totRegen, (unsigned long long)off);
    goto done;
  }
  aDist = cairnMalloc(sizeof(uint32_t) * (size_t)(totRegen + 1));
  if (!aDist) {
    rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
    goto done;
  }
  if ((rc = curBits(&c, aDist, (size_t)totRegen, zlBitsFor(totRegen + nSt), "stream distances"))) goto done;
  for (size_t i = 0, k = 0; i < nDec; i++) aNode[i].aDist = aDist + k, k += aNode[i].nRegen;
  uint64_t totalSt = 0;
  for (size_t i = 0; i < nSt; i++) {
    if ((rc = curVar(&c, &aSize[i], "stored stream size"))) goto done;
    totalSt += aSize[i];
    if (aSize[i] >= n || totalSt > n) {
      rc = cairnErr(CAIRN_CORRUPT, "zl: stored stream %zu of %llu bytes overruns the frame (size field at offset %llu)", i,
                    (unsigned long long)aSize[i], (unsigned long long)curOff(&c));
      goto done;
    }
  }
  size_t hdrPos = (size_t)(c.p - b);
  uint64_t endStreams = hdrPos + totalH + totalSt;
  uint64_t endChunk = endStreams + 4 * ((flags & 1) + ((flags >> 1) & 1));
  if (endChunk > n) {
    rc = cairnErr(CAIRN_CORRUPT, "zl: chunk at offset %llu needs %llu bytes, the frame has %zu", (unsigned long long)off,
                  (unsigned long long)(endChunk - off), n - off);
    goto done;
  }
  if ((flags & 2) && !d->noCheck) { /* compressed checksum over the chunk and its content checksum, checked first */
    uint64_t endHashed = endStreams + 4 * (flags & 1);
    uint32_t want = cairnGetLE32(b + endHashed);
    if ((uint32_t)cairnXxh3(b + off, (size_t)(endHashed - off)) != want) {
      rc = cairnErr(CAIRN_CHECKSUM, "zl: compressed checksum mismatch for the chunk at offset %llu", (unsigned long long)off);
      goto done;
    }
  }
  /* Lay out the streams. */
  size_t total = (size_t)(nSt + totRegen);
  if (total == 0) {
    rc = cairnErr(CAIRN_CORRUPT, "zl: chunk at offset %llu has no stream", (unsigned long long)off);
    goto done;
  }
  aS = cairnMallocZero(sizeof(ZlStream) * total);
  aProd = cairnMalloc(sizeof(int32_t) * total);
  aCons = cairnMalloc(sizeof(int32_t) * total);
  apIn = cairnMalloc(sizeof(ZlStream *) * (total + 8));
  if (!aS || !aProd || !aCons || !apIn) {
    rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
    goto done;
  }
  for (size_t i = 0; i < total; i++) aProd[i] = aCons[i] = -1;
  size_t cursor = 0;
  for (size_t i = 0; i < nDec; i++) {
    Node *pN = &aNode[i];
    if (pN->nVO && !pN->t->hasVar) {
      rc = cairnErr(CAIRN_CORRUPT, "zl: codec %s (decoder %zu) takes no variable inputs, the chunk at offset %llu gives %u",
                    pN->t->zName, i, (unsigned long long)off, pN->nVO);
      goto done;
    }
    if (pN->t->nOut && pN->nRegen != pN->t->nOut) {
      rc = cairnErr(CAIRN_CORRUPT, "zl: codec %s (decoder %zu) regenerates %u streams, not %u (chunk at offset %llu)", pN->t->zName,
                    i, pN->t->nOut, pN->nRegen, (unsigned long long)off);
      goto done;
    }
    pN->base = (uint32_t)cursor;
    pN->nIn = pN->t->nFixed + pN->nVO;
    size_t end = cursor + pN->nIn;
    if (end > total) {
      rc = cairnErr(CAIRN_CORRUPT, "zl: decoder %zu reads past the chunk's %zu streams (chunk at offset %llu)", i, total, (unsigned long long)off);
      goto done;
    }
    for (size_t k = cursor; k < end; k++) aCons[k] = (int32_t)i;
    for (size_t k = 0; k < pN->nRegen; k++) {
      uint64_t j = (uint64_t)end + pN->aDist[k];
      if (j >= total || aProd[j] != -1) {
        rc = cairnErr(CAIRN_CORRUPT, "zl: decoder %zu regenerates stream %llu, %s (chunk at offset %llu)", i, (unsigned long long)j,
                      j >= total ? "out of range" : "already produced", (unsigned long long)off);
        goto done;
      }
      aProd[j] = (int32_t)i;
    }
    cursor = end;
  }
  if (cursor + 1 != total) {
    rc = cairnErr(CAIRN_CORRUPT, "zl: the decoders of the chunk at offset %llu read %zu of %zu streams: the graph does not end in one output",
                  (unsigned long long)off, cursor, total);
    goto done;
  }
  size_t pos = (size_t)(hdrPos + totalH), iSt = 0;
  for (size_t j = 0; j < total; j++) {
    if (aProd[j] != -1) continue;
    if (iSt == nSt) {
      rc = cairnErr(CAIRN_CORRUPT, "zl: the graph of the chunk at offset %llu needs more than its %llu stored streams", (unsigned long long)off,
                    (unsigned long long)nSt);
      goto done;
    }
    aS[j].type = ZT_SERIAL, aS[j].width = 1, aS[j].n = aS[j].nb = (size_t)aSize[iSt], aS[j].p = (uint8_t *)b + pos;
    pos += (size_t)aSize[iSt++];
  }
  if (iSt != nSt) {
    rc = cairnErr(CAIRN_CORRUPT, "zl: the chunk at offset %llu stores %llu streams, its graph uses %zu", (unsigned long long)off,
                  (unsigned long long)nSt, iSt);
    goto done;
  }
  /* Direct output: the final stream, or, through a chain of pure retypings (conversions that
  ** keep the bytes, string to serial included), the stream they all start from. */
  {
    size_t slot = total - 1;
    for (int guard = 0; guard < 64; guard++) {
      int fin = aProd[slot];
      uint32_t fid = fin >= 0 ? aNode[fin].id : 0;
      if (fin < 0 || aNode[fin].nIn != 1 || fid < ZID_SERIAL_TO_STRUCT || fid > ZID_SERIAL_STRING) break;
      slot = aNode[fin].base;
    }
    d->pDirect = &aS[slot];
    d->pDirectDst = out + *pnOut, d->nDirectCap = nOut - *pnOut;
  }
  /* Run the decoders in order. */
  for (size_t i = 0; i < nDec; i++) {
    Node *pN = &aNode[i];
    const ZlTransform *t = pN->t;
    ZlStream *aOut[16], **apOut = pN->nRegen <= 16 ? aOut : cairnMalloc(sizeof(ZlStream *) * pN->nRegen);
    if (!apOut) {
      rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
      goto done;
    }
    for (size_t k = 0; k < pN->nIn; k++) {
      ZlStream *s = &aS[pN->base + pN->nIn - 1 - k];
      uint8_t want = k < t->nFixed ? t->inTypes[k] : t->inTypes[t->nFixed];
      if (!s->type || !(s->type & want)) {
        rc = cairnErr(CAIRN_CORRUPT, "zl: codec %s (decoder %zu, chunk at offset %llu): input %zu has type %u, expected %u", t->zName, i,
                      (unsigned long long)off, k, s->type, want);
        break;
      }
      apIn[k] = s;
    }
    for (size_t k = 0; k < pN->nRegen; k++) apOut[k] = &aS[pN->base + pN->nIn + pN->aDist[k]];
    /* parse_int and tokenize_string feeding a dispatch_string (a string source, not its tags):
    ** their strings are written once, by dispatch_string, from the integers or indices; their
    ** inputs then stay until the chunk is done. */
    d->fuse = 0;
    if (!d->noFuse && (pN->id == ZID_PARSE_INT || pN->id == ZID_TOKENIZE_STRING) && pN->nRegen == 1) {
      size_t j = pN->base + pN->nIn + pN->aDist[0];
      int32_t cons = aCons[j];
      if (cons >= 0 && aNode[cons].id == ZID_DISPATCH_STRING && j + 1 < aNode[cons].base + aNode[cons].nIn && &aS[j] != d->pDirect) {
        const Node *pC = &aNode[cons];
        /* 2: the dispatch writes into the caller's buffer, whose size bounds it */
        d->fuse = &aS[pC->base + pC->nIn + pC->aDist[0]] == d->pDirect ? 2 : 1;
      }
    }
    int fused = d->fuse;
    d->needLens = 1;
    if (pN->nRegen == 1) { /* serial_string drops a string stream's lengths */
      int32_t cons = aCons[pN->base + pN->nIn + pN->aDist[0]];
      d->needLens = !(cons >= 0 && aNode[cons].id == ZID_SERIAL_STRING);
    }
    if (!rc) rc = t->x(d, b + hdrPos + pN->hOff, pN->hSize, apIn, pN->nIn, apOut, pN->nRegen);
    for (size_t k = 0; !rc && k < pN->nRegen; k++)
      if (!apOut[k]->type || (t->outType && apOut[k]->type != t->outType))
        rc = cairnErr(CAIRN_CORRUPT, "zl: codec %s (decoder %zu) did not regenerate stream %zu", t->zName, i, k);
    if (apOut != aOut) cairnFree(apOut);
    if (rc) {
      if (CAIRN_PRIMARY(rc) == CAIRN_CORRUPT && !strstr(cairn_errmsg(), "offset"))
        cairnErr(rc, "%s (codec %s, decoder %zu of the chunk at offset %llu)", cairn_errmsg(), t->zName, i, (unsigned long long)off);
      goto done;
    }
    d->fuse = 0;
    if (!fused)
      for (size_t k = 0; k < pN->nIn; k++) cairnZlFreeStream(d, &aS[pN->base + k]);
  }
  ZlStream *o = &aS[total - 1];
  if (o->type != outType) {
    rc = cairnErr(CAIRN_CORRUPT, "zl: the chunk at offset %llu regenerates type %u, the frame declares %u", (unsigned long long)off, o->type, outType);
    goto done;
  }
  if (o->nb > nOut - *pnOut) {
    rc = cairnErr(CAIRN_CORRUPT, "zl: the chunk at offset %llu regenerates more than the frame's declared size", (unsigned long long)off);
    goto done;
  }
  if (o->p != out + *pnOut) memcpy(out + *pnOut, o->p, o->nb);
  if (flags & 1) {
    uint32_t want = cairnGetLE32(b + endStreams), got;
    if (o->type == ZT_STRING) { /* content then the 32-bit lengths */
      size_t nAll = o->nb + 4 * o->n;
      uint8_t *t = cairnMalloc(nAll ? nAll : 1);
      if (!t) {
        rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
        goto done;
      }
      memcpy(t, o->p, o->nb);
      for (size_t k = 0; k < o->n; k++) cairnPutLE32(t + o->nb + 4 * k, o->aLen[k]);
      got = (uint32_t)cairnXxh3(t, nAll);
      cairnFree(t);
    } else {
      got = (uint32_t)cairnXxh3(o->p, o->nb);
    }
    if (got != want && !d->noCheck) {
      rc = cairnErr(CAIRN_CHECKSUM, "zl: content checksum mismatch for the chunk at offset %llu", (unsigned long long)off);
      goto done;
    }
  }
  *pnOut += o->nb;
  *pnChunk = (size_t)(endChunk - off);
done:
  d->pDirect = NULL, d->pDirectDst = NULL;
  if (aS)
    for (size_t j = 0; j < total; j++) cairnZlFreeStream(d, &aS[j]);
  d->fuse = 0;
  cairnFree(aS), cairnFree(aProd), cairnFree(aCons), cairnFree(apIn), cairnFree(aNode), cairnFree(aTmp), cairnFree(aDist), cairnFree(aSize);
  return rc;
}

typedef struct {
  unsigned version, flags;
  uint8_t type;
  uint64_t size, nStrings;
  size_t nHeader;
} FrameInfo;

static int decHeader(const uint8_t *b, size_t n, FrameInfo *f) {
  memset(f, 0, sizeof *f);
  if (n < 4) return cairnErr(CAIRN_CORRUPT, "zl: frame of %zu bytes is shorter than its magic number", n);
  uint32_t m = cairnGetLE32(b);
  if (m < ZL_MAGIC_BASE || m - ZL_MAGIC_BASE > 64)
    return cairnErr(CAIRN_CORRUPT, "zl: bad magic number 0x%x at offset 0", m);
  f->version = m - ZL_MAGIC_BASE;
  if (f->version < ZL_FORMAT_MIN || f->version > ZL_FORMAT)
    return cairnErr(CAIRN_UNSUPPORTED, "zl: format version %u (this reader knows %d..%d)", f->version, ZL_FORMAT_MIN, ZL_FORMAT);
  Cur c = {b + 4, b + n, b};
  if (c.p >= c.e) return cairnErr(CAIRN_CORRUPT, "zl: truncated frame header at offset 4");
  f->flags = *c.p++;
  if (f->flags & 0xf0) return cairnErr(CAIRN_CORRUPT, "zl: unknown frame flags 0x%x at offset 4", f->flags);
  if ((f->flags & 8) && f->version >= 25)
    return cairnErr(CAIRN_UNSUPPORTED, "zl: frame needs a dictionary bundle (offset 4)");
  if (c.p >= c.e) return cairnErr(CAIRN_CORRUPT, "zl: truncated frame header at offset %llu", (unsigned long long)curOff(&c));
  uint8_t tok = *c.p++;
  if ((tok & 15) != 1)
    return cairnErr((tok & 15) ? CAIRN_UNSUPPORTED : CAIRN_CORRUPT, "zl: frame has %u outputs, this reader takes exactly 1 (offset %llu)",
                    tok & 15, (unsigned long long)curOff(&c) - 1);
  f->type = (uint8_t)(1u << ((tok >> 4) & 3));
  uint64_t v = 0;
  CAIRN_TRY(curVar(&c, &v, "output size"));
  if (v == 0) return cairnErr(CAIRN_UNSUPPORTED, "zl: frame of unknown output size (offset %llu)", (unsigned long long)curOff(&c) - 1);
  f->size = v - 1;
  if (f->type == ZT_STRING) CAIRN_TRY(curVar(&c, &f->nStrings, "string count"));
  if (f->flags & 4) {
    CAIRN_TRY(curVar(&c, &v, "comment size"));
    if (v == 0 || v > 10000 || v > (uint64_t)(c.e - c.p))
      return cairnErr(CAIRN_CORRUPT, "zl: bad comment size %llu at offset %llu", (unsigned long long)v, (unsigned long long)curOff(&c));
    c.p += v;
  }
  if (f->flags & 2) {
    if (c.p >= c.e) return cairnErr(CAIRN_CORRUPT, "zl: truncated frame header at offset %llu", (unsigned long long)curOff(&c));
    size_t k = (size_t)(c.p - b);
    if ((uint8_t)cairnXxh3(b, k) != *c.p)
      return cairnErr(CAIRN_CHECKSUM, "zl: frame header check byte mismatch at offset %zu", k);
    c.p++;
  }
  f->nHeader = (size_t)(c.p - b);
  return CAIRN_OK;
}

int cairn_zl_decompressed_size(const void *p, size_t n, uint64_t *pnSize) {
  FrameInfo f;
  if (!p || !pnSize) return cairnErr(CAIRN_MISUSE, "zl: NULL argument");
  CAIRN_TRY(decHeader(p, n, &f));
  *pnSize = f.size;
  return CAIRN_OK;
}

/* A reusable decompression context: what a frame's decode would otherwise set up per call. Only
** the zstd context is kept (its size is fixed by zstd, ~96 KB, whatever the frames: the zstd
** stages decode straight into the stream buffers, so it grows no window); streams are freed at
** the end of every call, so nothing proportional to a frame stays alive between calls. */
struct cairn_zl_dctx {
  ZSTD_DCtx *zd;
};

cairn_zl_dctx *cairn_zl_dctx_create(void) { return cairnMallocZero(sizeof(cairn_zl_dctx)); }

void cairn_zl_dctx_free(cairn_zl_dctx *x) {
  if (!x) return;
  ZSTD_freeDCtx(x->zd);
  cairnFree(x);
}

static int decodeFrame(cairn_zl_dctx *x, const uint8_t *b, size_t n, uint8_t *out, size_t nOut, size_t *pnOut, size_t *pnFrame,
                       int noCheck) {
  FrameInfo f;
  CAIRN_TRY(decHeader(b, n, &f));
  if (f.type == ZT_STRING) return cairnErr(CAIRN_UNSUPPORTED, "zl: string-typed frame output (offset 5)");
  if (f.size > nOut) return cairnErr(CAIRN_RANGE, "zl: frame declares %llu bytes, the buffer holds %zu", (unsigned long long)f.size, nOut);
  ZlDec d = {0};
  d.zd = x ? x->zd : NULL;
  d.noCheck = noCheck & 1, d.noFuse = (noCheck >> 1) & 1;
  /* Intermediate streams may exceed the output (wider indices, headers), never by much. */
  d.budget = f.size * 8 + ((uint64_t)n * 4) + (1u << 20);
  size_t pos = f.nHeader, got = 0;
  int rc = CAIRN_OK;
  for (;;) {
    if (pos >= n) {
      rc = cairnErr(CAIRN_CORRUPT, "zl: frame truncated at offset %zu (no end marker)", pos);
      break;
    }
    if (b[pos] == 0) {
      pos++;
      break;
    }
    size_t nChunk = 0;
    if ((rc = decChunk(&d, b, n, pos, f.version, f.flags, f.type, out, (size_t)f.size, &got, &nChunk))) break;
    pos += nChunk;
  }
  if (x) x->zd = d.zd; /* kept for the next frame: zstd resets it per stream, after errors too */
  else ZSTD_freeDCtx(d.zd);
  if (rc) return rc;
  if (got != f.size)
    return cairnErr(CAIRN_CORRUPT, "zl: frame regenerated %zu bytes, its header declares %llu", got, (unsigned long long)f.size);
  *pnOut = got;
  if (pnFrame) *pnFrame = pos;
  return CAIRN_OK;
}

int cairnZlDecodeFrame(const uint8_t *b, size_t n, uint8_t *out, size_t nOut, size_t *pnOut, size_t *pnFrame, int noCheck) {
  return decodeFrame(NULL, b, n, out, nOut, pnOut, pnFrame, noCheck);
}

int cairn_zl_decompress_dctx(cairn_zl_dctx *x, const void *p, size_t n, void *out, size_t nOut, size_t *pnOut) {
  size_t nFrame = 0, nGot = 0;
  if (!p || (!out && nOut) || !pnOut) return cairnErr(CAIRN_MISUSE, "zl: NULL argument");
  CAIRN_TRY(decodeFrame(x, p, n, out ? out : (uint8_t *)"", nOut, &nGot, &nFrame, 0));
  if (nFrame != n) return cairnErr(CAIRN_CORRUPT, "zl: %zu bytes after the frame's end at offset %zu", n - nFrame, nFrame);
  *pnOut = nGot;
  return CAIRN_OK;
}

int cairn_zl_decompress(const void *p, size_t n, void *out, size_t nOut, size_t *pnOut) {
  return cairn_zl_decompress_dctx(NULL, p, n, out, nOut, pnOut);
}

/* Streaming decompression: one chunk in memory at a time. A chunk's length is known only once
** its header is parsed, so the read window grows (x4) until the chunk decodes or the window
** reaches the cap or the end of the file. */
#define ZL_STREAM_CAP (64u << 20)
int cairn_zl_decompress_file(cairn_file *in, cairn_file *out, cairn_zl_progress_fn xProgress, void *pArg, uint64_t *pnIn,
                             uint64_t *pnOut) {
  uint64_t size = 0, pos = 0, wpos = 0;
  if (!in || !out) return cairnErr(CAIRN_MISUSE, "zl: NULL file");
  CAIRN_TRY(cairn_file_size(in, &size));
  size_t nWin = (size_t)CAIRN_MIN(size, 1u << 16);
  uint8_t *win = cairnMalloc(nWin + 1), *obuf = NULL;
  if (!win) return cairnErr(CAIRN_NOMEM, "zl: out of memory");
  int rc = cairn_file_read_exact(in, win, nWin, 0);
  FrameInfo f;
  if (!rc) rc = decHeader(win, nWin, &f);
  if (!rc && f.type == ZT_STRING) rc = cairnErr(CAIRN_UNSUPPORTED, "zl: string-typed frame output (offset 5)");
  pos = rc ? 0 : f.nHeader;
  ZlDec d = {0};
  size_t nObuf = (size_t)CAIRN_MIN(f.size, ZL_STREAM_CAP);
  if (!rc && !(obuf = cairnMalloc(nObuf + 1))) rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
  uint64_t total = 0;
  size_t want = 1u << 16;
  while (!rc) {
    /* window = file[pos .. pos+want), chunk offsets are relative to pos, messages too */
    size_t n = (size_t)CAIRN_MIN(size - pos, (uint64_t)want);
    if (n > nWin) {
      uint8_t *q = cairnRealloc(win, n + 1);
      if (!q) {
        rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
        break;
      }
      win = q, nWin = n;
    }
    if ((rc = cairn_file_read_exact(in, win, n, pos))) break;
    if (n == 0) {
      rc = cairnErr(CAIRN_CORRUPT, "zl: frame truncated at offset %llu (no end marker)", (unsigned long long)pos);
      break;
    }
    if (win[0] == 0) {
      pos++;
      break;
    }
    size_t got = 0, nChunk = 0;
    d.budget = (uint64_t)nObuf * 8 + (uint64_t)n * 4 + (1u << 20), d.live = 0;
    rc = decChunk(&d, win, n, 0, f.version, f.flags, f.type, obuf, (size_t)CAIRN_MIN(nObuf, f.size - total), &got, &nChunk);
    if (rc && n < size - pos && want < ZL_STREAM_CAP) { /* maybe the chunk is longer than the window */
      want *= 4, rc = CAIRN_OK;
      continue;
    }
    if (rc && n < size - pos && CAIRN_PRIMARY(rc) != CAIRN_NOMEM) { /* the window stopped growing */
      rc = cairnErr(CAIRN_LIMIT, "zl: chunk at frame offset %llu does not decode within the streaming reader's %u MiB window (%s)",
                    (unsigned long long)pos, (unsigned)(ZL_STREAM_CAP >> 20), cairn_errmsg());
      break;
    }
    if (rc) {
      cairnErr(rc, "%s (chunk at frame offset %llu)", cairn_errmsg(), (unsigned long long)pos);
      break;
    }
    if ((rc = cairn_file_write(out, obuf, got, wpos))) break;
    wpos += got, total += got, pos += nChunk, want = 1u << 16;
    if (xProgress) xProgress(pArg, pos, size);
  }
  if (!rc && total != f.size) rc = cairnErr(CAIRN_CORRUPT, "zl: frame regenerated %llu bytes, its header declares %llu", (unsigned long long)total, (unsigned long long)f.size);
  if (!rc && pos != size) rc = cairnErr(CAIRN_CORRUPT, "zl: %llu bytes after the frame's end at offset %llu", (unsigned long long)(size - pos), (unsigned long long)pos);
  if (!rc) rc = cairn_file_truncate(out, wpos);
  ZSTD_freeDCtx(d.zd);
  cairnFree(win), cairnFree(obuf);
  if (!rc && pnIn) *pnIn = pos;
  if (!rc && pnOut) *pnOut = wpos;
  return rc;
}
