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

struct ZlMulti;
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
  CairnSb *sb; /* cairn_zl_info: the chunk's graph and streams are described here */
  int json, nChunk;
  /* Reached through pointers that only cairn_zl_info / cairn_zl_decompress_multi set, so a
  ** decode-only program does not link them (bench/zl/wasm-size.sh). */
  void (*xInfo)(ZlDec *, const uint8_t *, size_t, size_t, const void *, size_t, const ZlStream *, const int32_t *, const int32_t *, int);
  int (*xMulti)(ZlDec *, struct ZlMulti *, ZlStream *, size_t, const uint8_t *, uint64_t, unsigned, size_t);
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

/* Outputs of a multi-output decode (cairn_zl_decompress_multi): each chunk appends its part of
** every output. aOut[k] is the frame's output k, which is the chunk's stream total-1-k. */
typedef struct ZlMulti {
  unsigned n;
  cairn_zl_output *aOut;
  uint64_t *aCap, *aCapLen; /* allocated bytes and lengths of each output */
} ZlMulti;
static int multiAppend(ZlDec *d, cairn_zl_output *o, uint64_t *pCap, uint64_t *pCapLen, const ZlStream *s, uint64_t limit) {
  (void)d;
  if (o->nb + s->nb > limit) return cairnErr(CAIRN_CORRUPT, "zl: a chunk regenerates more than the frame declares for output");
  if (o->nb + s->nb > *pCap) {
    uint64_t cap = CAIRN_MAX(o->nb + s->nb, *pCap * 2);
    if (cap > limit) cap = limit;
    uint8_t *q = cairnRealloc(o->p, (size_t)cap + 1);
    if (!q) return cairnErr(CAIRN_NOMEM, "zl: out of memory for an output");
    o->p = q, *pCap = cap;
  }
  if (s->nb) memcpy(o->p + o->nb, s->p, s->nb);
  o->nb += s->nb;
  if (s->type == ZT_STRING) {
    if (o->n + s->n > *pCapLen) {
      uint64_t cap = CAIRN_MAX(o->n + s->n, *pCapLen * 2);
      uint32_t *q = cairnRealloc(o->aLen, (size_t)cap * 4 + 4);
      if (!q) return cairnErr(CAIRN_NOMEM, "zl: out of memory for string lengths");
      o->aLen = q, *pCapLen = cap;
    }
    if (s->n) memcpy(o->aLen + o->n, s->aLen, s->n * 4);
  }
  o->n += s->type == ZT_STRING ? s->n : s->nb / (s->width ? s->width : 1);
  o->width = s->type == ZT_STRING ? 0 : s->width;
  return CAIRN_OK;
}

static const char *infoType(unsigned t) { return t == ZT_SERIAL ? "serial" : t == ZT_STRUCT ? "struct" : t == ZT_NUMERIC ? "numeric" : t == ZT_STRING ? "string" : "?"; }
static void infoList(CairnSb *s, int json, const char *zKey, size_t a0, size_t n, const uint32_t *aDist, size_t base) {
  cairnSbStr(s, json ? ",\"" : " "), cairnSbStr(s, zKey), cairnSbStr(s, json ? "\":[" : " [");
  for (size_t k = 0; k < n; k++) {
    if (k) cairnSbStr(s, json ? "," : " ");
    cairnSbU64(s, aDist ? base + aDist[k] : a0 + k);
  }
  cairnSbStr(s, "]");
}
/* One chunk's graph and streams (see cairn_zl_info). */
static void infoChunk(ZlDec *d, const uint8_t *b, size_t off, size_t nDec, const void *pvNode, size_t total, const ZlStream *aRec,
                      const int32_t *aProd, const int32_t *aCons, int rc) {
  const Node *aNode = pvNode;
  CairnSb *s = d->sb;
  int J = d->json;
  (void)b;
  if (J) {
    cairnSbStr(s, d->nChunk++ ? ",{\"offset\":" : "{\"offset\":"), cairnSbU64(s, off);
    cairnSbStr(s, ",\"decoders\":[");
  } else {
    cairnSbStr(s, "chunk "), cairnSbU64(s, (uint64_t)d->nChunk++), cairnSbStr(s, " at offset "), cairnSbU64(s, off);
    cairnSbStr(s, ": "), cairnSbU64(s, nDec), cairnSbStr(s, " decoders, "), cairnSbU64(s, total), cairnSbStr(s, " streams\n");
  }
  for (size_t i = 0; i < nDec; i++) {
    const Node *pN = &aNode[i];
    const char *zName = pN->t ? pN->t->zName : "?";
    if (J) {
      cairnSbStr(s, i ? ",{\"codec\":" : "{\"codec\":"), cairnSbU64(s, pN->id), cairnSbStr(s, ",\"name\":");
      cairnSbJsonStr(s, zName, strlen(zName), 1);
      cairnSbStr(s, ",\"header_bytes\":"), cairnSbU64(s, pN->hSize);
    } else {
      cairnSbStr(s, "  decoder "), cairnSbU64(s, i), cairnSbStr(s, ": "), cairnSbStr(s, zName), cairnSbStr(s, " ("), cairnSbU64(s, pN->id);
      cairnSbStr(s, "), header "), cairnSbU64(s, pN->hSize), cairnSbStr(s, " bytes,");
    }
    infoList(s, J, "inputs", pN->base, pN->nIn, NULL, 0);
    infoList(s, J, "outputs", 0, pN->nRegen, pN->aDist, (size_t)pN->base + pN->nIn);
    cairnSbStr(s, J ? "}" : "\n");
  }
  cairnSbStr(s, J ? "],\"streams\":[" : "");
  for (size_t j = 0; j < total; j++) {
    const ZlStream *r = aRec ? &aRec[j] : NULL;
    int known = r && r->own;
    if (J) {
      cairnSbStr(s, j ? ",{\"id\":" : "{\"id\":"), cairnSbU64(s, j);
      cairnSbStr(s, aProd[j] < 0 ? ",\"stored\":true" : ",\"stored\":false");
      if (known) {
        cairnSbStr(s, ",\"type\":\""), cairnSbStr(s, infoType(r->type)), cairnSbStr(s, "\",\"width\":"), cairnSbU64(s, r->width);
        cairnSbStr(s, ",\"count\":"), cairnSbU64(s, r->n), cairnSbStr(s, ",\"bytes\":"), cairnSbU64(s, r->nb);
      }
      cairnSbStr(s, ",\"producer\":"), cairnSbI64(s, aProd[j]), cairnSbStr(s, ",\"consumer\":"), cairnSbI64(s, aCons[j]);
      cairnSbStr(s, "}");
    } else {
      cairnSbStr(s, "  stream "), cairnSbU64(s, j), cairnSbStr(s, aProd[j] < 0 ? ": stored" : ": regenerated");
      if (known) {
        cairnSbStr(s, " "), cairnSbStr(s, infoType(r->type)), cairnSbStr(s, " "), cairnSbU64(s, r->n), cairnSbStr(s, " x ");
        cairnSbU64(s, r->width), cairnSbStr(s, " = "), cairnSbU64(s, r->nb), cairnSbStr(s, " bytes");
      }
      if (aProd[j] >= 0) cairnSbStr(s, ", from "), cairnSbStr(s, aNode[aProd[j]].t ? aNode[aProd[j]].t->zName : "?");
      if (aCons[j] >= 0) cairnSbStr(s, ", into "), cairnSbStr(s, aNode[aCons[j]].t ? aNode[aCons[j]].t->zName : "?");
      else cairnSbStr(s, ", frame output");
      cairnSbStr(s, "\n");
    }
  }
  if (J) {
    cairnSbStr(s, "]");
    if (rc) cairnSbStr(s, ",\"error\":"), cairnSbJsonStr(s, cairn_errmsg(), strlen(cairn_errmsg()), 1);
    cairnSbStr(s, "}");
  } else if (rc) cairnSbStr(s, "  not decoded: "), cairnSbStr(s, cairn_errmsg()), cairnSbStr(s, "\n");
}

/* A multi-output chunk's end: each output's type checked and its part appended; the content
** checksum covers all outputs in order (each string output's lengths after its bytes). */
static int multiFinish(ZlDec *d, ZlMulti *pm, ZlStream *aS, size_t total, const uint8_t *b, uint64_t endStreams, unsigned flags,
                       size_t off) {
  size_t nAll = 0;
  for (unsigned k = 0; k < pm->n; k++) {
    ZlStream *o = &aS[total - 1 - k];
    if (o->type != pm->aOut[k].type)
      return cairnErr(CAIRN_CORRUPT, "zl: the chunk at offset %llu regenerates type %u for output %u, the frame declares %u",
                      (unsigned long long)off, o->type, k, pm->aOut[k].type);
    nAll += o->nb + (o->type == ZT_STRING ? 4 * o->n : 0);
  }
  if (flags & 1) {
    uint8_t *t = cairnMalloc(nAll ? nAll : 1), *q = t;
    if (!t) return cairnErr(CAIRN_NOMEM, "zl: out of memory");
    for (unsigned k = 0; k < pm->n; k++) {
      ZlStream *o = &aS[total - 1 - k];
      memcpy(q, o->p, o->nb), q += o->nb;
      if (o->type == ZT_STRING)
        for (size_t i = 0; i < o->n; i++) cairnPutLE32(q, o->aLen[i]), q += 4;
    }
    uint32_t got = (uint32_t)cairnXxh3(t, nAll), want = cairnGetLE32(b + endStreams);
    cairnFree(t);
    if (got != want && !d->noCheck) return cairnErr(CAIRN_CHECKSUM, "zl: content checksum mismatch for the chunk at offset %llu", (unsigned long long)off);
  }
  for (unsigned k = 0; k < pm->n; k++)
    CAIRN_TRY(multiAppend(d, &pm->aOut[k], &pm->aCap[k], &pm->aCapLen[k], &aS[total - 1 - k], pm->aOut[k].declared));
  return CAIRN_OK;
}

/* Decode one chunk at p[off..n). Appends its output to out (capacity nOut, *pnOut bytes so
** far); returns the chunk size in *pnChunk. */
static int decChunk(ZlDec *d, const uint8_t *b, size_t n, size_t off, unsigned version, unsigned flags,
                    uint8_t outType, uint8_t *out, size_t nOut, size_t *pnOut, size_t *pnChunk, ZlMulti *pm) {
  size_t nFinal = pm ? pm->n : 1; /* the chunk's last nFinal streams are the frame's outputs */
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
  ZlStream *aRec = NULL; /* cairn_zl_info: each stream's shape once it exists (no data) */
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
  if (d->sb && !(aRec = cairnMallocZero(sizeof(ZlStream) * total))) {
    rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
    goto done;
  }
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
  if (cursor + nFinal != total) {
    rc = cairnErr(CAIRN_CORRUPT, "zl: the decoders of the chunk at offset %llu read %zu of %zu streams: the graph does not end in %zu output(s)",
                  (unsigned long long)off, cursor, total, nFinal);
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
    if (aRec) aRec[j] = aS[j], aRec[j].own = 2; /* own 2: stored */
    pos += (size_t)aSize[iSt++];
  }
  if (iSt != nSt) {
    rc = cairnErr(CAIRN_CORRUPT, "zl: the chunk at offset %llu stores %llu streams, its graph uses %zu", (unsigned long long)off,
                  (unsigned long long)nSt, iSt);
    goto done;
  }
  /* Direct output: the final stream, or, through a chain of pure retypings (conversions that
  ** keep the bytes, string to serial included), the stream they all start from. */
  if (!pm) {
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
    for (size_t k = 0; !rc && aRec && k < pN->nRegen; k++) {
      ZlStream *r = &aRec[pN->base + pN->nIn + pN->aDist[k]];
      r->type = apOut[k]->type, r->width = apOut[k]->width, r->n = apOut[k]->n, r->nb = apOut[k]->nb, r->own = 1;
    }
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
  if (pm) {
    rc = d->xMulti(d, pm, aS, total, b, endStreams, flags, off);
    if (rc) goto done;
    *pnChunk = (size_t)(endChunk - off);
    goto done;
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
  if (d->xInfo && aNode && aS) d->xInfo(d, b, off, nDec, aNode, total, aRec, aProd, aCons, rc);
  cairnFree(aRec);
  d->pDirect = NULL, d->pDirectDst = NULL;
  if (aS)
    for (size_t j = 0; j < total; j++) cairnZlFreeStream(d, &aS[j]);
  d->fuse = 0;
  cairnFree(aS), cairnFree(aProd), cairnFree(aCons), cairnFree(apIn), cairnFree(aNode), cairnFree(aTmp), cairnFree(aDist), cairnFree(aSize);
  return rc;
}

#define ZL_MAX_OUT 64 /* outputs of a frame this reader takes (OpenZL's encoder allows 2048) */
typedef struct {
  unsigned version, flags;
  uint8_t type;             /* output 0's */
  uint64_t size, nStrings;  /* output 0's */
  size_t nHeader;
  unsigned nOut;
  uint8_t aType[ZL_MAX_OUT];
  uint64_t aSize[ZL_MAX_OUT], aStr[ZL_MAX_OUT];
  uint8_t aBundle[32], nBundle; /* dictionary bundle ID (format 25+, flag bit 3) */
  size_t iComment, nComment;    /* the comment's offset and length */
} FrameInfo;

ZL_MINSIZE static int decHeader(const uint8_t *b, size_t n, FrameInfo *f) {
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
  if ((f->flags & 8) && f->version >= 25) { /* bundle ID: length byte (1..32), bytes, not all zero */
    if (c.p >= c.e) return cairnErr(CAIRN_CORRUPT, "zl: truncated dictionary bundle ID at offset %llu", (unsigned long long)curOff(&c));
    unsigned k = *c.p++, nz = 0;
    if (k == 0 || k > 32 || k > (size_t)(c.e - c.p))
      return cairnErr(CAIRN_CORRUPT, "zl: bad dictionary bundle ID length %u at offset %llu", k, (unsigned long long)curOff(&c) - 1);
    for (unsigned i = 0; i < k; i++) f->aBundle[i] = c.p[i], nz |= c.p[i];
    if (!nz) return cairnErr(CAIRN_CORRUPT, "zl: dictionary bundle ID of zeros at offset %llu", (unsigned long long)curOff(&c));
    f->nBundle = (uint8_t)k, c.p += k;
  }
  if (c.p >= c.e) return cairnErr(CAIRN_CORRUPT, "zl: truncated frame header at offset %llu", (unsigned long long)curOff(&c));
  uint8_t tok = *c.p++;
  unsigned nOut = tok & 15, done = 0;
  if (nOut == 15) {
    if (c.p >= c.e) return cairnErr(CAIRN_CORRUPT, "zl: truncated frame header at offset %llu", (unsigned long long)curOff(&c));
    nOut = ((unsigned)*c.p++ << 4) + (tok >> 4) + 15;
  }
  if (nOut == 0) return cairnErr(CAIRN_CORRUPT, "zl: frame without outputs (offset %llu)", (unsigned long long)curOff(&c) - 1);
  if (nOut > ZL_MAX_OUT) return cairnErr(CAIRN_UNSUPPORTED, "zl: frame of %u outputs (this reader takes up to %d)", nOut, ZL_MAX_OUT);
  f->nOut = nOut;
  if (nOut <= 14) /* the first two types share the count's byte */
    for (; done < nOut && done < 2; done++) f->aType[done] = (uint8_t)(1u << ((tok >> (4 + 2 * done)) & 3));
  for (unsigned i = done; i < nOut; i++) {
    if (c.p >= c.e) return cairnErr(CAIRN_CORRUPT, "zl: truncated output types at offset %llu", (unsigned long long)curOff(&c));
    f->aType[i] = (uint8_t)(1u << ((*c.p >> (2 * ((i - done) % 4))) & 3));
    if ((i - done) % 4 == 3 || i + 1 == nOut) c.p++;
  }
  uint64_t v = 0;
  for (unsigned i = 0; i < nOut; i++) {
    CAIRN_TRY(curVar(&c, &v, "output size"));
    if (v == 0) return cairnErr(CAIRN_UNSUPPORTED, "zl: frame of unknown output size (offset %llu)", (unsigned long long)curOff(&c) - 1);
    f->aSize[i] = v - 1;
  }
  for (unsigned i = 0; i < nOut; i++)
    if (f->aType[i] == ZT_STRING) CAIRN_TRY(curVar(&c, &f->aStr[i], "string count"));
  f->type = f->aType[0], f->size = f->aSize[0], f->nStrings = f->aStr[0];
  if (f->flags & 4) {
    CAIRN_TRY(curVar(&c, &v, "comment size"));
    if (v == 0 || v > 10000 || v > (uint64_t)(c.e - c.p))
      return cairnErr(CAIRN_CORRUPT, "zl: bad comment size %llu at offset %llu", (unsigned long long)v, (unsigned long long)curOff(&c));
    f->iComment = (size_t)(c.p - b), f->nComment = (size_t)v;
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

/* What the one-output readers refuse: a dictionary they were not given (named by its bundle
** ID), several outputs, a string output. */
ZL_MINSIZE static int decSingle(const FrameInfo *f) {
  if (f->nBundle) {
    char z[65];
    cairn_hex(f->aBundle, f->nBundle, z);
    return cairnErr(CAIRN_UNSUPPORTED, "zl: frame needs dictionary bundle %s, which was not supplied", z);
  }
  if (f->nOut != 1) return cairnErr(CAIRN_UNSUPPORTED, "zl: frame has %u outputs (cairn_zl_decompress_multi reads them)", f->nOut);
  if (f->type == ZT_STRING) return cairnErr(CAIRN_UNSUPPORTED, "zl: string-typed frame output (cairn_zl_decompress_multi reads it)");
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
  CAIRN_TRY(decSingle(&f));
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
    if ((rc = decChunk(&d, b, n, pos, f.version, f.flags, f.type, out, (size_t)f.size, &got, &nChunk, NULL))) break;
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

/* At pos: 1 = a chunk starts, 0 = the end marker (pos moves past it), else an error. */
static int frameNext(const uint8_t *b, size_t n, size_t *pPos) {
  if (*pPos >= n) return cairnErr(CAIRN_CORRUPT, "zl: frame truncated at offset %zu (no end marker)", *pPos);
  if (b[*pPos]) return 1;
  ++*pPos;
  return 0;
}

int cairn_zl_info(const void *pv, size_t n, int json, char **pz, size_t *pn) {
  const uint8_t *b = pv;
  FrameInfo f;
  size_t nDummy;
  if (!pv || !pz) return cairnErr(CAIRN_MISUSE, "zl: NULL argument");
  *pz = NULL;
  if (!pn) pn = &nDummy;
  CAIRN_TRY(decHeader(b, n, &f));
  CairnSb s = {0};
  int J = json != 0;
  char zHex[65];
  if (J) {
    cairnSbStr(&s, "{\"format\":"), cairnSbU64(&s, f.version), cairnSbStr(&s, ",\"frame_bytes\":"), cairnSbU64(&s, n);
    cairnSbStr(&s, ",\"content_checksum\":"), cairnSbStr(&s, f.flags & 1 ? "true" : "false");
    cairnSbStr(&s, ",\"compressed_checksum\":"), cairnSbStr(&s, f.flags & 2 ? "true" : "false");
  } else {
    cairnSbStr(&s, "OpenZL frame, format "), cairnSbU64(&s, f.version), cairnSbStr(&s, ", "), cairnSbU64(&s, n);
    cairnSbStr(&s, " bytes; checksums:"), cairnSbStr(&s, f.flags & 1 ? " content" : ""), cairnSbStr(&s, f.flags & 2 ? " compressed" : "");
    cairnSbStr(&s, f.flags & 3 ? "\n" : " none\n");
  }
  if (f.nBundle) {
    cairn_hex(f.aBundle, f.nBundle, zHex);
    cairnSbStr(&s, J ? ",\"dictionary_bundle\":\"" : "dictionary bundle "), cairnSbStr(&s, zHex), cairnSbStr(&s, J ? "\"" : "\n");
  }
  if (f.nComment) {
    cairnSbStr(&s, J ? ",\"comment\":" : "comment: ");
    if (J) cairnSbJsonStr(&s, (const char *)b + f.iComment, f.nComment, 1);
    else cairnSbPut(&s, (const char *)b + f.iComment, f.nComment), cairnSbStr(&s, "\n");
  }
  cairnSbStr(&s, J ? ",\"outputs\":[" : "");
  uint64_t total = 0;
  for (unsigned k = 0; k < f.nOut; k++) {
    total += f.aSize[k];
    if (J) {
      cairnSbStr(&s, k ? ",{\"type\":\"" : "{\"type\":\""), cairnSbStr(&s, infoType(f.aType[k])), cairnSbStr(&s, "\",\"bytes\":");
      cairnSbU64(&s, f.aSize[k]);
      if (f.aType[k] == ZT_STRING) cairnSbStr(&s, ",\"strings\":"), cairnSbU64(&s, f.aStr[k]);
      cairnSbStr(&s, "}");
    } else {
      cairnSbStr(&s, "output "), cairnSbU64(&s, k), cairnSbStr(&s, ": "), cairnSbStr(&s, infoType(f.aType[k])), cairnSbStr(&s, ", ");
      cairnSbU64(&s, f.aSize[k]), cairnSbStr(&s, " bytes");
      if (f.aType[k] == ZT_STRING) cairnSbStr(&s, ", "), cairnSbU64(&s, f.aStr[k]), cairnSbStr(&s, " strings");
      cairnSbStr(&s, "\n");
    }
  }
  cairnSbStr(&s, J ? "],\"chunks\":[" : "");
  /* Decode each chunk to learn its regenerated streams' sizes (into a scratch output; a frame
  ** declaring more than 256 MiB is described without them). */
  ZlDec d = {0};
  d.sb = &s, d.json = J, d.xInfo = infoChunk, d.xMulti = multiFinish;
  d.budget = total * 8 + (uint64_t)n * 4 + (1u << 20);
  int one = f.nOut == 1 && f.type != ZT_STRING;
  uint8_t *out = one && total <= (256u << 20) ? cairnMalloc((size_t)total + 1) : NULL;
  ZlMulti m = {f.nOut, cairnMallocZero(sizeof(cairn_zl_output) * f.nOut), cairnMallocZero(8 * f.nOut), cairnMallocZero(8 * f.nOut)};
  for (unsigned k = 0; m.aOut && k < f.nOut; k++) m.aOut[k].type = f.aType[k], m.aOut[k].declared = f.aSize[k];
  size_t pos = f.nHeader, got = 0;
  int rc = CAIRN_OK;
  const char *zStop = NULL;
  if ((one && total <= (256u << 20) && !out) || !m.aOut || !m.aCap || !m.aCapLen) rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
  while (!rc) {
    int k = frameNext(b, n, &pos);
    if (k != 1) {
      if (k) zStop = cairn_errmsg();
      break;
    }
    size_t nChunk = 0;
    int r = decChunk(&d, b, n, pos, f.version, f.flags, f.type, out, out ? (size_t)total : 0, &got, &nChunk,
                     one ? NULL : &m);
    if (r) {
      zStop = cairn_errmsg();
      break;
    }
    pos += nChunk;
  }
  ZSTD_freeDCtx(d.zd);
  cairnFree(out), cairn_zl_outputs_free(m.aOut, f.nOut), cairnFree(m.aCap), cairnFree(m.aCapLen);
  if (J) {
    cairnSbStr(&s, "]");
    if (zStop) cairnSbStr(&s, ",\"error\":"), cairnSbJsonStr(&s, zStop, strlen(zStop), 1);
    cairnSbStr(&s, "}\n");
  } else if (zStop) cairnSbStr(&s, "stopped: "), cairnSbStr(&s, zStop), cairnSbStr(&s, "\n");
  return cairnSbDone(&s, rc, "zl: frame info", pz, pn);
}

void cairn_zl_outputs_free(cairn_zl_output *a, unsigned n) {
  for (unsigned k = 0; a && k < n; k++) cairnFree(a[k].p), cairnFree(a[k].aLen);
  cairnFree(a);
}

int cairn_zl_decompress_multi(const void *pv, size_t n, cairn_zl_output **paOut, unsigned *pnOut) {
  const uint8_t *b = pv;
  FrameInfo f;
  if (!pv || !paOut || !pnOut) return cairnErr(CAIRN_MISUSE, "zl: NULL argument");
  *paOut = NULL, *pnOut = 0;
  CAIRN_TRY(decHeader(b, n, &f));
  if (f.nBundle) {
    char z[65];
    cairn_hex(f.aBundle, f.nBundle, z);
    return cairnErr(CAIRN_UNSUPPORTED, "zl: frame needs dictionary bundle %s, which was not supplied", z);
  }
  uint64_t total = 0;
  for (unsigned k = 0; k < f.nOut; k++) total += f.aSize[k];
  ZlMulti m = {f.nOut, cairnMallocZero(sizeof(cairn_zl_output) * f.nOut), cairnMallocZero(8 * f.nOut), cairnMallocZero(8 * f.nOut)};
  int rc = CAIRN_OK;
  if (!m.aOut || !m.aCap || !m.aCapLen) rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
  for (unsigned k = 0; !rc && k < f.nOut; k++) {
    m.aOut[k].type = f.aType[k], m.aOut[k].declared = f.aSize[k];
    m.aOut[k].width = f.aType[k] == ZT_SERIAL ? 1 : 0;
  }
  ZlDec d = {0};
  d.xMulti = multiFinish;
  d.budget = total * 8 + (uint64_t)n * 4 + (1u << 20);
  size_t pos = f.nHeader;
  while (!rc) {
    int k = frameNext(b, n, &pos);
    if (k != 1) {
      rc = k;
      break;
    }
    size_t got = 0, nChunk = 0;
    if ((rc = decChunk(&d, b, n, pos, f.version, f.flags, f.type, NULL, 0, &got, &nChunk, &m))) break;
    pos += nChunk;
  }
  ZSTD_freeDCtx(d.zd);
  if (!rc && pos != n) rc = cairnErr(CAIRN_CORRUPT, "zl: %zu bytes after the frame's end at offset %zu", n - pos, pos);
  for (unsigned k = 0; !rc && k < f.nOut; k++) {
    if (m.aOut[k].nb != f.aSize[k])
      rc = cairnErr(CAIRN_CORRUPT, "zl: frame regenerated %llu bytes for output %u, its header declares %llu", (unsigned long long)m.aOut[k].nb,
                    k, (unsigned long long)f.aSize[k]);
    else if (f.aType[k] == ZT_STRING && m.aOut[k].n != f.aStr[k])
      rc = cairnErr(CAIRN_CORRUPT, "zl: frame regenerated %llu strings for output %u, its header declares %llu", (unsigned long long)m.aOut[k].n,
                    k, (unsigned long long)f.aStr[k]);
    else if (!m.aOut[k].p && !(m.aOut[k].p = cairnMalloc(1)))
      rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
  }
  cairnFree(m.aCap), cairnFree(m.aCapLen);
  if (rc) {
    cairn_zl_outputs_free(m.aOut, f.nOut);
    return rc;
  }
  *paOut = m.aOut, *pnOut = f.nOut;
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
  if (!rc) rc = decSingle(&f);
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
    rc = decChunk(&d, win, n, 0, f.version, f.flags, f.type, obuf, (size_t)CAIRN_MIN(nObuf, f.size - total), &got, &nChunk, NULL);
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
