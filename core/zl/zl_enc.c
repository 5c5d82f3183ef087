/*
** 2026-11-29
**
** core/zl/zl_enc.c - the encoder: builds, per input, a graph of OpenZL transforms and writes
** it as a format-26 frame (the decoding map of the decoders, then the stored streams).
**
** A graph is a tree whose root regenerates the frame's serial output. Each node is a wire
** decoder (an ID, a codec header, its inputs: stored streams or other nodes). Writing it:
** nodes go in post-order (children first); the inputs of a node occupy the next consecutive
** stream slots in reverse order, so a child's output distance is its slot minus the end of its
** own input range; slots that no node writes are the stored streams, in slot order.
**
** The selector tries candidate graphs on a prefix and keeps the smallest, each stream costed by a
** fast zstd run (levels >= 4) or by its sampled order-0 entropy (levels <= 3, no zstd at all):
** for integers raw, delta, delta+zigzag, tokenize (sorted alphabet + indices), and at ratio
** levels interleaved fields (records of 2 or 4 integers, one selection per column); each as
** whole bytes or transposed byte planes; leaves are zstd, constant, stored, or at levels <= 3
** Huffman alone for dense byte planes (optionally after a delta of the plane). CSV fields are
** dispatched by column (dispatch_string); fixed-width records split by field (split_by_struct).
** The winner is then built on the whole segment at the final level (cairn levels 1-5 run their
** zstd stages a notch lower, and store byte planes that look incompressible); if it would expand the
** segment, plain bytes are used instead, so frames fit cairn_zl_compress_bound. Inputs above one
** segment become several chunks compressed through cairnParallelFor; segment boundaries depend
** only on the input, so the frame does not depend on the thread count.
*/
#define ZSTD_STATIC_LINKING_ONLY
#include <stdlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "zl/zl_int.h"

#define ENC_SEGMENT (2u << 20) /* 2 MiB: enough for LZ windows, and 8 MiB = 4 tasks balance on 2 threads */
#define ENC_TRIAL (64u << 10) /* bytes the selector tries candidates on */
#define ENC_SKIP INT_MIN /* a candidate that does not apply */

typedef struct ENode {
  uint8_t id, nh;
  uint8_t hdr[24];
  int nIn, nVO; /* inputs; the last nVO are variable */
  int *aIn;     /* ref >= 0 node, ref <= -2 stored stream -(ref+2) */
} ENode;

typedef struct Enc {
  ENode *aNode;
  int nNode, nNodeAlloc;
  uint8_t **aSt;
  size_t *anSt;
  int nSt, nStAlloc;
  int level, fast; /* cairn level; fast = selection pass */
  int stageLevel;   /* zstd level of the final zstd stages (cairn levels <= 5 map below themselves) */
  int denseLevel;   /* zstd level of dense byte planes at levels <= 3 (see encSegment) */
  int dense;        /* the stream being coded is such a plane */
  int trialLevel;   /* zstd level of the selection pass */
  size_t trial;     /* bytes the selector tries candidates on */
  size_t noLz;      /* streams of at most this many bytes: Huffman or stored, no zstd stage */
  ZSTD_CCtx *zc;    /* reused by every zstd stage of the segment */
  uint8_t *zbuf;    /* zstd output scratch, reused */
  size_t nZbuf;
  int rc;
} Enc;

static void encFail(Enc *e, int rc) {
  if (!e->rc) e->rc = rc;
}

static int encStored(Enc *e, uint8_t *p, size_t n) { /* takes ownership of p */
  if (e->rc) return cairnFree(p), -1;
  if (e->nSt == e->nStAlloc) {
    int k = e->nStAlloc ? 2 * e->nStAlloc : 16;
    uint8_t **a = cairnRealloc(e->aSt, sizeof(*a) * k);
    size_t *an = a ? cairnRealloc(e->anSt, sizeof(*an) * k) : NULL;
    if (a) e->aSt = a;
    if (!a || !an) return cairnFree(p), encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
    e->anSt = an, e->nStAlloc = k;
  }
  e->aSt[e->nSt] = p, e->anSt[e->nSt] = n;
  e->nSt++;
  return -e->nSt - 1; /* stored stream i is ref -(i+2); -1 is an error */
}
static int encStoredCopy(Enc *e, const void *p, size_t n) {
  uint8_t *q = cairnMalloc(n ? n : 1);
  if (!q) return encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
  memcpy(q, p, n);
  return encStored(e, q, n);
}

static int encNode(Enc *e, int id, const uint8_t *hdr, size_t nh, const int *aIn, int nIn, int nVO) {
  if (e->rc) return -1;
  for (int i = 0; i < nIn; i++) /* a failed or skipped child makes the node invalid */
    if (aIn[i] == -1 || aIn[i] == ENC_SKIP) return encFail(e, cairnErr(CAIRN_ERROR, "zl: encoder input missing")), -1;
  if (e->nNode == e->nNodeAlloc) {
    int k = e->nNodeAlloc ? 2 * e->nNodeAlloc : 16;
    ENode *a = cairnRealloc(e->aNode, sizeof(*a) * k);
    if (!a) return encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
    e->aNode = a, e->nNodeAlloc = k;
  }
  ENode *n = &e->aNode[e->nNode];
  memset(n, 0, sizeof *n);
  n->aIn = cairnMalloc(sizeof(int) * (nIn ? nIn : 1));
  if (!n->aIn) return encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
  memcpy(n->aIn, aIn, sizeof(int) * nIn);
  n->id = (uint8_t)id, n->nh = (uint8_t)nh, n->nIn = nIn, n->nVO = nVO;
  if (nh) memcpy(n->hdr, hdr, nh);
  return e->nNode++;
}
static int encNode1(Enc *e, int id, const uint8_t *hdr, size_t nh, int in) {
  if (e->rc) return -1;
  return encNode(e, id, hdr, nh, &in, 1, 0);
}

/* Checkpoint / rollback for trying candidates. */
typedef struct {
  int nNode, nSt;
} Mark;
static Mark encMark(Enc *e) { return (Mark){e->nNode, e->nSt}; }
static size_t encCost(Enc *e, Mark m) {
  size_t c = 0;
  for (int i = m.nSt; i < e->nSt; i++) c += e->anSt[i] + 2;
  for (int i = m.nNode; i < e->nNode; i++) c += e->aNode[i].nh + 2 + e->aNode[i].nIn / 4;
  return c;
}
static void encRollback(Enc *e, Mark m) {
  while (e->nSt > m.nSt) cairnFree(e->aSt[--e->nSt]);
  while (e->nNode > m.nNode) cairnFree(e->aNode[--e->nNode].aIn);
}

/* ---------------------------------------------------------------- leaves */

/* zstd into the segment's scratch buffer, capped at n - 4 bytes (a stream that does not shrink
** is stored instead), then an exact-size copy. Returns 1 if it did not shrink. */
static int encZstdBytes(Enc *e, const uint8_t *p, size_t n, uint8_t **pOut, size_t *pn) {
  if (n < 8) return 1;
  size_t cap = n - 4;
  if (cap > e->nZbuf) {
    uint8_t *z = cairnRealloc(e->zbuf, cap);
    if (!z) return encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
    e->zbuf = z, e->nZbuf = cap;
  }
  if (!e->zc) e->zc = cairnZlZstdCreateCCtx();
  ZSTD_CCtx *z = e->zc;
  if (!z) return encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
  uint8_t *q = e->zbuf;
  q[0] = 1; /* varint element width */
  ZSTD_CCtx_reset(z, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(z, ZSTD_c_format, ZSTD_f_zstd1_magicless);
  ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, e->fast ? e->trialLevel : e->dense ? e->denseLevel : e->stageLevel);
  /* dense planes: a negative level finds the few matches cheaply, but would also drop the
  ** Huffman stage of the literals that does the work there */
  if (!e->fast && e->dense) ZSTD_CCtx_setParameter(z, ZSTD_c_literalCompressionMode, ZSTD_ps_enable);
  ZSTD_CCtx_setParameter(z, ZSTD_c_contentSizeFlag, 1);
  ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, 0);
  size_t r = ZSTD_compress2(z, q + 1, cap - 1, p, n);
  if (ZSTD_isError(r)) {
    if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall) return 1;
    int code = ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation ? CAIRN_NOMEM : CAIRN_ERROR;
    return encFail(e, cairnErr(code, "zl: zstd: %s", ZSTD_getErrorName(r))), -1;
  }
  uint8_t *o = cairnMalloc(r + 1);
  if (!o) return encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
  memcpy(o, q, r + 1);
  *pOut = o, *pn = r + 1;
  return 0;
}

/* log2 of x > 0, within about 0.01: exponent bits plus a quadratic of the mantissa. */
static float encLog2(float x) {
  union {
    float f;
    uint32_t u;
  } v = {x};
  float e = (float)((int)(v.u >> 23) - 127);
  v.u = (v.u & 0x7fffffu) | 0x3f800000u; /* mantissa in [1, 2) */
  return e + (-0.34484843f * v.f + 2.03454529f) * v.f - 1.68969686f; /* exact at 1 and 2 */
}

/* Order-0 entropy of a byte stream in bits per byte, from a sample (all of streams up to 8 KiB,
** else every 8th byte, at most 16384 bytes), with the Miller-Madow correction for the symbols a
** sample misses. */
static float encEntropy(const uint8_t *p, size_t n, unsigned *pnSym) {
  uint16_t h[4][256]; /* at most 4096 counts each */
  memset(h, 0, sizeof h);
  size_t step = n <= 8192 ? 1 : CAIRN_MAX(8, n / 16384 + 1), m = 0, i = 0;
  for (; i + 4 * step <= n; i += 4 * step, m += 4)
    h[0][p[i]]++, h[1][p[i + step]]++, h[2][p[i + 2 * step]]++, h[3][p[i + 3 * step]]++;
  for (; i < n; i += step, m++) h[0][p[i]]++;
  float sum = 0;
  unsigned nSym = 0;
  for (int c = 0; c < 256; c++) {
    uint32_t k = (uint32_t)h[0][c] + h[1][c] + h[2][c] + h[3][c];
    if (k) sum += (float)k * encLog2((float)k), nSym++;
  }
  *pnSym = nSym;
  if (m == 0) return 0;
  return encLog2((float)m) - sum / (float)m + (float)(nSym - 1) / (2 * 0.6931472f * (float)m);
}

/* 1 if a byte stream has short-range repeats LZ would use: in a window of up to 4 KiB from
** its middle, more than 1 position in 32 starts an 8-byte match of an earlier position (found
** through a hash of the 8 bytes). Order-0 entropy misses these (the low byte of a ramp is flat
** in its histogram, and periodic). Meaningful above about 3 bits per byte: below, chance
** matches of 8 bytes are frequent in a 4 KiB window. */
static int encRepeats(const uint8_t *p, size_t n) {
  if (n < 64) return 1;
  size_t w = CAIRN_MIN(n, 4096), a = (n - w) / 2, hits = 0;
  uint16_t tab[1024]; /* position + 1 in the window, 0 = empty */
  memset(tab, 0, sizeof tab);
  for (size_t i = 0; i + 8 <= w; i++) {
    uint64_t v = cairnGetLE64(p + a + i);
    uint32_t hh = (uint32_t)((v * 0x9E3779B97F4A7C15ull) >> 54);
    if (tab[hh] && cairnGetLE64(p + a + tab[hh] - 1) == v) hits++;
    tab[hh] = (uint16_t)(i + 1);
  }
  return hits * 32 > w;
}


/* width bytes at p, nRep times: one stored copy of them as a struct, repeated by
** constant_fixed (the caller retypes the result). */
static int encConstRun(Enc *e, const uint8_t *p, size_t width, size_t nRep) {
  uint8_t h[10];
  int r = encNode1(e, ZID_STRUCT_TO_SERIAL, h, zlVarPut(h, width), encStoredCopy(e, p, width));
  return encNode1(e, ZID_CONST_FIXED, h, zlVarPut(h, nRep), r);
}

/* A serial stream: stored, constant, or zstd, whichever is smallest. Copies p. */
static int encHuffman(Enc *e, const uint8_t *p, size_t n, int raw);
static int encSerial(Enc *e, const uint8_t *p, size_t n) {
  if (e->rc) return -1;
  if (n >= 2) {
    size_t i = 1;
    while (i < n && p[i] == p[0]) i++;
    if (i == n) {
      uint8_t h[10];
      return encNode1(e, ZID_CONST_SERIAL, h, zlVarPut(h, n), encStoredCopy(e, p, 1));
    }
  }
  if (e->fast && e->level <= 3 && n > 16) {
    /* selection pass at fast levels: order-0 entropy estimates what zstd would make of the
    ** stream (a placeholder stream of that size carries the cost; trials are rolled back). It
    ** ignores LZ matches: the final pass still runs zstd on the chosen streams. */
    unsigned nSym;
    float bits = encEntropy(p, n, &nSym);
    size_t est = CAIRN_MIN(n, (size_t)(bits * (float)n / 8) + nSym / 2 + 8);
    uint8_t *q = cairnMalloc(1);
    if (!q) return encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
    int r = encStored(e, q, 1);
    if (r < -1) e->anSt[e->nSt - 1] = est;
    return r;
  }
  if (n <= e->noLz && n >= 64) { /* a period of up to 16 bytes repeated (separators' indices), else Huffman or stored */
    size_t per = 1;
    while (per <= 16 && memcmp(p, p + per, n - per)) per++;
    if (per > 16) return encHuffman(e, p, n, 1);
    int aIn[2];
    size_t nRep = n / per;
    aIn[0] = encNode1(e, ZID_SERIAL_TO_STRUCT, NULL, 0, encConstRun(e, p, per, nRep));
    if (nRep * per == n) return aIn[0];
    aIn[1] = encStoredCopy(e, p + nRep * per, n - nRep * per);
    return encNode(e, ZID_SPLITN, NULL, 0, aIn, 2, 2);
  }
  if (n > 16) {
    uint8_t *q;
    size_t nq;
    int r = encZstdBytes(e, p, n, &q, &nq);
    if (r < 0) return -1;
    if (r == 0) return encNode1(e, ZID_ZSTD, NULL, 0, encStored(e, q, nq));
  }
  return encStoredCopy(e, p, n);
}

/* ---------------------------------------------------------------- numeric */

/* Order-0 entropy of the differences of consecutive bytes, from up to 8192 of them spread over
** the stream (the smooth planes of a sampled signal: their differences are narrower). */
static float encEntropyDelta(const uint8_t *p, size_t n) {
  uint8_t d[8192];
  size_t m = CAIRN_MIN(n - 1, sizeof d), step = (n - 1) / m;
  for (size_t j = 0; j < m; j++) d[j] = (uint8_t)(p[j * step + 1] - p[j * step]);
  unsigned nSym;
  return encEntropy(d, m, &nSym);
}

/* A dense byte plane through Huffman alone (huffman_v2: weights as a stored numeric stream of
** bytes, the bitstream stored): no match search at all. Falls back to encSerial (raw: stored
** as is) when it would not save 1/64 of the plane. */
static int encHuffman(Enc *e, const uint8_t *p, size_t n, int raw) {
  if (e->rc) return -1;
  uint8_t w[256], *q = NULL;
  size_t nw = 0;
  int x4 = 0;
  size_t nq = cairnZlHufEncode(p, n, w, &nw, &x4, &q);
  if (nq == (size_t)-1) return encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
  if (nq == 0 || nq + nw + 16 > n - n / 64) return cairnFree(q), raw ? encStoredCopy(e, p, n) : encSerial(e, p, n);
  uint8_t h[9], lw = 0;
  h[0] = (uint8_t)x4;
  unsigned nh = 1;
  for (uint64_t v = n; v; v >>= 8) h[nh++] = (uint8_t)v;
  int aIn[2];
  aIn[0] = encNode1(e, ZID_NUM_TO_SERIAL, &lw, 1, encStoredCopy(e, w, nw)); /* decoder input 0 */
  aIn[1] = encStored(e, q, nq);
  return encNode(e, ZID_HUFFMAN, h, nh, aIn, 2, 0);
}

static uint64_t rdW(const uint8_t *p, unsigned w) { return cairnGetLEn(p, w); }

static int encNumeric(Enc *e, const uint8_t *p, size_t n, unsigned w, int depth);
static int encNode1(Enc *e, int id, const uint8_t *hdr, size_t nh, int in);

/* Numeric as w byte planes (w = 2, 4, 8; transpose_split), each plane in its own buffer and
** straight from the source values: raw (kind 0), or the differences of consecutive values
** (kind 1, n + 1 source values) zigzagged (kind 2). One pass, no intermediate array of values,
** and a plane that is stored is handed over as is. */
static int encPlanes(Enc *e, const uint8_t *p, size_t n, unsigned w, int kind) {
  uint8_t *pl[8] = {0};
  int aIn[8];
  for (unsigned k = 0; k < w; k++)
    if ((pl[k] = cairnMalloc(n + 1)) == NULL) {
      while (k) cairnFree(pl[--k]);
      return encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
    }
#define PLANES_K(W, T, GET, BITS, KIND)                                                            \
  for (size_t i = 0; i < n; i++) {                                                                 \
    T v = (KIND) ? (T)(GET(p + (i + 1) * (W)) - GET(p + i * (W))) : GET(p + i * (W));             \
    if ((KIND) == 2) v = (T)((T)(v << 1) ^ (T)(0 - (T)(v >> ((BITS)-1))));                         \
    for (unsigned k = 0; k < (W); k++) pl[k][i] = (uint8_t)(v >> (8 * k));                        \
  }
#define PLANES(W, T, GET, BITS)                                                                    \
  if (kind == 0) PLANES_K(W, T, GET, BITS, 0)                                                     \
  else if (kind == 1) PLANES_K(W, T, GET, BITS, 1)                                                \
  else PLANES_K(W, T, GET, BITS, 2)
  if (w == 2) PLANES(2, uint16_t, cairnGetLE16, 16)
  else if (w == 4) PLANES(4, uint32_t, cairnGetLE32, 32)
  else PLANES(8, uint64_t, cairnGetLE64, 64)
#undef PLANES
#undef PLANES_K
  /* transpose_split: decoder input k (slot order reversed) is byte plane k. Fast levels and
  ** the zstd trials of the selection pass store planes that look incompressible instead of
  ** running zstd on them (at levels <= 3 the selection pass estimates without zstd anyway). */
  int storeFlat = e->fast ? e->level > 3 : e->level <= 5;
  for (unsigned k = 0; k < w; k++) {
    /* order-0 entropy, once per plane: flat planes are stored, dense ones (levels <= 3) get
    ** Huffman or zstd at denseLevel */
    int denseOk = !e->fast && e->level <= 3;
    unsigned nSym;
    float h = n >= 1024 && (storeFlat || denseOk) ? encEntropy(pl[k], n, &nSym) : 0;
    /* a plane that looks incompressible (entropy coding would save under 1%, no short-range
    ** repeats: mantissas, noise) is stored without running zstd over it */
    int dense = denseOk && h >= 4.0f, rep = (storeFlat && h > 7.93f) || dense ? encRepeats(pl[k], n) : 1;
    if (storeFlat && h > 7.93f && !rep) aIn[k] = encStored(e, pl[k], n);
    else {
      e->dense = dense;
      /* dense planes whose own differences are narrower (smooth planes of a sampled signal) are
      ** coded as those; differences under 3 bits (a ramp's plane: flat histogram, runs) go to
      ** zstd's matches, since Huffman spends at least 1 bit per byte. Huffman alone (no match
      ** search) takes dense planes under 5 bits per byte that have no repeats for LZ, or whose
      ** differences are used: above 5 bits its decoding (one lookup per byte) is slower than
      ** zstd's literal decoding, so such planes keep zstd at denseLevel. */
      float hd = dense ? encEntropyDelta(pl[k], n) : 8;
      int delta = hd < h - 0.25f, huf = dense && (delta ? hd >= 3.0f && hd < 5.0f : !rep && h < 5.0f);
      if (delta && (huf || hd < 3.0f)) {
        uint8_t first = pl[k][0], lw = 0, *dp = cairnMalloc(n);
        int r = -1;
        if (!dp) encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory"));
        else {
          for (size_t i = 1; i < n; i++) dp[i - 1] = (uint8_t)(pl[k][i] - pl[k][i - 1]); /* vectorizes */
          e->dense = 0;
          r = huf ? encHuffman(e, dp, n - 1, 0) : encSerial(e, dp, n - 1);
          cairnFree(dp);
        }
        r = encNode1(e, ZID_NUM_TO_SERIAL, &lw, 1, r);
        aIn[k] = encNode1(e, ZID_SERIAL_TO_NUM, NULL, 0, encNode1(e, ZID_DELTA, &first, 1, r));
      } else aIn[k] = huf ? encHuffman(e, pl[k], n, 0) : encSerial(e, pl[k], n);
      cairnFree(pl[k]);
      e->dense = 0;
    }
    pl[k] = NULL;
  }
  int st = encNode(e, ZID_TRANSPOSE_SPLIT, NULL, 0, aIn, (int)w, (int)w);
  return encNode1(e, ZID_NUM_TO_STRUCT, NULL, 0, st);
}

/* Numeric from its bytes, either whole (num_to_serial) or as w transposed byte planes. */
static int encNumBytes(Enc *e, const uint8_t *p, size_t n, unsigned w, int planes) {
  uint8_t lw = (uint8_t)(w == 1 ? 0 : w == 2 ? 1 : w == 4 ? 2 : 3);
  if (!planes || w == 1) return encNode1(e, ZID_NUM_TO_SERIAL, &lw, 1, encSerial(e, p, n * w));
  return encPlanes(e, p, n, w, 0);
}

static int cmpU64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Tokenize: sorted alphabet + indices of 1, 2 or 4 bytes. ENC_SKIP if there are more than n/4
** distinct values. Distinct values are found with a hash table (one pass), only they are sorted. */
static int encTokenize(Enc *e, const uint8_t *p, size_t n, unsigned w, int depth) {
  size_t kMax = n / 4, hb = 4;
  while (((size_t)1 << hb) < 2 * kMax + 2) hb++;
  size_t hmask = ((size_t)1 << hb) - 1;
  uint64_t *hv = cairnMallocZero(sizeof(uint64_t) << hb); /* value + 1, 0 = empty */
  uint32_t *hi = cairnMalloc(sizeof(uint32_t) << hb);
  uint64_t *a = cairnMalloc(sizeof(uint64_t) * (kMax + 1));
  uint8_t *alpha = NULL, *ix = NULL;
  int rc = ENC_SKIP;
  size_t k = 0;
  if (!hv || !hi || !a) {
    rc = -1, encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory"));
    goto done;
  }
#define TOK_SLOT(v, slot)                                                                          \
  do {                                                                                             \
    slot = (size_t)(((v) * 0x9E3779B97F4A7C15ull) >> (64 - hb));                                   \
    while (hv[slot] && hv[slot] != (v)) slot = (slot + 1) & hmask;                                 \
  } while (0)
  for (size_t i = 0; i < n; i++) {
    uint64_t v = rdW(p + i * w, w) + 1;
    size_t slot;
    TOK_SLOT(v, slot);
    if (!hv[slot]) {
      if (k == kMax) goto done; /* too many distinct values */
      hv[slot] = v, a[k++] = v - 1;
    }
  }
  if (k == 0 || k > 0xffffffffu) goto done;
  qsort(a, k, sizeof *a, cmpU64);
  for (size_t i = 0; i < k; i++) {
    size_t slot;
    TOK_SLOT(a[i] + 1, slot);
    hi[slot] = (uint32_t)i;
  }
  unsigned iw = k <= 256 ? 1 : k <= 65536 ? 2 : 4;
  alpha = cairnMalloc(k * w), ix = cairnMalloc(n * iw + 1);
  if (!alpha || !ix) {
    rc = -1, encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory"));
    goto done;
  }
  for (size_t i = 0; i < k; i++) cairnPutLEn(alpha + i * w, a[i], w);
  for (size_t i = 0; i < n; i++) {
    size_t slot;
    TOK_SLOT(rdW(p + i * w, w) + 1, slot);
    cairnPutLEn(ix + i * iw, hi[slot], iw);
  }
#undef TOK_SLOT
  int aIn[2];
  aIn[0] = encNumeric(e, alpha, k, w, depth + 1); /* alphabet is decoder input 0 */
  aIn[1] = encNumeric(e, ix, n, iw, depth + 1);
  rc = encNode(e, ZID_TOKENIZE_NUM, NULL, 0, aIn, 2, 0);
done:
  cairnFree(hv), cairnFree(hi), cairnFree(a), cairnFree(alpha), cairnFree(ix);
  return rc;
}

enum { NC_RAW, NC_RAWT, NC_DELTA, NC_DELTAT, NC_DZZ, NC_DZZT, NC_TOK, NC_F2, NC_F4, NC_N };

/* Interleaved fields: integer i belongs to column i % k (records of k integers). Each column is
** selected on its own; split_by_struct interleaves them back. Ratio levels only (>= 6). */
static int encFields(Enc *e, const uint8_t *p, size_t n, unsigned w, unsigned k, int depth) {
  if (depth >= 1 || e->level < 6 || n % k || n < 16 * k) return ENC_SKIP;
  size_t m = n / k;
  uint8_t *col = cairnMalloc(m * w);
  int aIn[4];
  if (!col) return encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
  for (unsigned j = 0; j < k; j++) {
    for (size_t i = 0; i < m; i++) memcpy(col + i * w, p + (i * k + j) * w, w);
    aIn[j] = encNode1(e, ZID_STRUCT_TO_NUM, NULL, 0, encNumeric(e, col, m, w, depth + 1));
  }
  cairnFree(col);
  uint8_t lw = (uint8_t)(w == 1 ? 0 : w == 2 ? 1 : w == 4 ? 2 : 3);
  int rec = encNode(e, ZID_SPLIT_BY_STRUCT, NULL, 0, aIn, (int)k, (int)k);
  return encNode1(e, ZID_NUM_TO_SERIAL, &lw, 1, rec);
}

static int encNumCand(Enc *e, const uint8_t *p, size_t n, unsigned w, int c, int depth) {
  if (c == NC_RAW || c == NC_RAWT) return encNumBytes(e, p, n, w, c == NC_RAWT);
  if (c == NC_F2 || c == NC_F4) return encFields(e, p, n, w, c == NC_F2 ? 2 : 4, depth);
  if (c == NC_TOK) return depth < 1 ? encTokenize(e, p, n, w, depth) : ENC_SKIP;
  if (n < 2) return ENC_SKIP;
  int zz = c == NC_DZZ || c == NC_DZZT; /* zigzag of the signed difference */
  if (w > 1 && (c == NC_DELTAT || c == NC_DZZT)) { /* differences straight into byte planes */
    int r = encPlanes(e, p, n - 1, w, zz ? 2 : 1);
    if (zz) r = encNode1(e, ZID_ZIGZAG, NULL, 0, r);
    return encNode1(e, ZID_DELTA, p, w, r);
  }
  uint8_t *q = cairnMalloc((n - 1) * w);
  if (!q) return encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
  switch (w) { /* fixed widths: this loop runs for every candidate */
#define DELTA_LOOP(T, GET, PUT, BITS)                                                               \
  for (size_t i = 1; i < n; i++) {                                                                  \
    T dv = (T)(GET(p + i * w) - GET(p + (i - 1) * w));                                              \
    if (zz) dv = (T)((T)(dv << 1) ^ (T)(0 - (T)(dv >> (BITS - 1))));                                \
    PUT(q + (i - 1) * w, dv);                                                                       \
  }
    case 1: {
#define GET1(x) (*(x))
#define PUT1(x, v) (*(x) = (v))
      DELTA_LOOP(uint8_t, GET1, PUT1, 8)
      break;
    }
    case 2: DELTA_LOOP(uint16_t, cairnGetLE16, cairnPutLE16, 16) break;
    case 4: DELTA_LOOP(uint32_t, cairnGetLE32, cairnPutLE32, 32) break;
    default: DELTA_LOOP(uint64_t, cairnGetLE64, cairnPutLE64, 64) break;
#undef DELTA_LOOP
  }
  int r = encNumBytes(e, q, n - 1, w, c == NC_DELTAT || c == NC_DZZT);
  cairnFree(q);
  if (c == NC_DZZ || c == NC_DZZT) r = encNode1(e, ZID_ZIGZAG, NULL, 0, r);
  return encNode1(e, ZID_DELTA, p, w, r);
}

/* A numeric stream of n w-byte little-endian values: the smallest candidate. */
static int encNumeric(Enc *e, const uint8_t *p, size_t n, unsigned w, int depth) {
  if (e->rc) return -1;
  int best = NC_RAW;
  if (n >= 64) {
    size_t bestCost = SIZE_MAX;
    int fast = e->fast;
    e->fast = 1;
    for (int c = 0; c < NC_N && !e->rc; c++) {
      if (w == 1 && (c == NC_RAWT || c == NC_DELTAT || c == NC_DZZT)) continue;
      /* fast levels: multi-byte deltas only as byte planes (whole-byte deltas rarely win) */
      if (w > 1 && e->level <= 5 && (c == NC_DELTA || c == NC_DZZ)) continue;
      /* single bytes at fast levels: zigzag and tokenize map each byte one to one (same matches,
      ** same order-0 entropy as delta and raw), so they are not worth a trial */
      if (w == 1 && e->level <= 5 && (c == NC_DZZ || c == NC_TOK)) continue;
      Mark m = encMark(e);
      int r = encNumCand(e, p, CAIRN_MIN(n, e->trial / w), w, c, depth); /* decide on a prefix */
      size_t cost = r == ENC_SKIP ? SIZE_MAX : encCost(e, m);
      encRollback(e, m);
      if (cost < bestCost) bestCost = cost, best = c;
    }
    e->fast = fast;
  }
  /* chosen on a prefix: on the whole stream it may not apply (tokenize with too many values) */
  int r = encNumCand(e, p, n, w, best, depth);
  return r == ENC_SKIP ? encNumCand(e, p, n, w, NC_RAW, depth) : r;
}

/* ---------------------------------------------------------------- CSV */

/* The decimal integer a field holds, if it is exactly what parse_int writes back: digits
** without leading zeros, '-' when negative (not "-0"), within 64 bits signed. */
static inline int csvInt(const uint8_t *p, size_t n, int64_t *pv) {
  size_t i = p[0] == '-';
  if (n - i < 1 || n - i > 19 || (p[i] == '0' && n - i > 1) || (i && p[1] == '0')) return 0;
  uint64_t u = 0;
  for (size_t j = i; j < n; j++) {
    unsigned dgt = (unsigned)p[j] - '0';
    if (dgt > 9) return 0;
    u = u * 10 + dgt; /* 19 digits fit in 64 bits unsigned */
  }
  if (u > (uint64_t)INT64_MAX + i) return 0;
  *pv = i ? (int64_t)(0 - u) : (int64_t)u;
  return 1;
}

static inline void csvPut64(uint8_t *p, uint64_t v) { /* little-endian, one store where it can */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(p, &v, 8);
#else
  cairnPutLE64(p, v);
#endif
}

/* Bytes that are ',' or '\n' (an upper bound on the fields, quotes aside): 8 at a time, a
** byte-lane counter summed every 255 words. */
static size_t csvSeps(const uint8_t *p, size_t n) {
  const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full, one = 0x0101010101010101ull;
  size_t c = 0, i = 0;
  while (i + 8 <= n) {
    uint64_t acc = 0;
    for (int k = 0; k < 255 && i + 8 <= n; k++, i += 8) {
      uint64_t x = cairnGetLE64(p + i), a = x ^ (one * ','), b = x ^ (one * '\n');
      uint64_t za = ~(((a & lo7) + lo7) | a), zb = ~(((b & lo7) + lo7) | b); /* bit 7 set: the byte was 0 */
      acc += ((za | zb) >> 7) & one;
    }
    acc = (acc & 0x00ff00ff00ff00ffull) + ((acc >> 8) & 0x00ff00ff00ff00ffull); /* 16-bit lanes: no overflow */
    c += (size_t)((acc * 0x0001000100010001ull) >> 48);
  }
  for (; i < n; i++) c += (p[i] == ',') + (p[i] == '\n');
  return c;
}

/* The 8-byte integers of a numeric column: constant values or constant differences (ids,
** regular timestamps) as one stored value, else the numeric selector. */
static int encCsvNum(Enc *e, const uint8_t *p, size_t n) {
  uint64_t d0 = n >= 2 ? cairnGetLE64(p + 8) - cairnGetLE64(p) : 0;
  size_t i = 2;
  while (i < n && cairnGetLE64(p + 8 * i) - cairnGetLE64(p + 8 * (i - 1)) == d0) i++;
  if (n < 2 || i < n) return encNumeric(e, p, n, 8, 0);
  uint8_t v[8];
  cairnPutLE64(v, d0);
  int r = encNode1(e, ZID_NUM_TO_STRUCT, NULL, 0, encConstRun(e, d0 ? v : p, 8, d0 ? n - 1 : n));
  return d0 ? encNode1(e, ZID_DELTA, p, 8, r) : r;
}

/* The strings of a text source (content c of nb bytes; lengths in lb, lw bytes each): with few
** distinct strings (at most a quarter of them, names or categories), tokenize_string over an
** alphabet in order of first appearance and 1- or 2-byte indices; else content + lengths. */
static int encCsvText(Enc *e, const uint8_t *c, size_t nb, const uint8_t *lb, unsigned lw, size_t nStr) {
  size_t kMax = CAIRN_MIN(nStr / 4, 65536), hb = 4, k = 0, nAlpha = 0;
  while (((size_t)1 << hb) < 2 * kMax + 2) hb++;
  size_t hmask = ((size_t)1 << hb) - 1;
  uint32_t *ht = nStr >= 64 ? cairnMallocZero(sizeof(uint32_t) << hb) : NULL; /* alphabet index + 1 */
  uint32_t *aOff = ht ? cairnMalloc(sizeof(uint32_t) * 2 * (kMax + 1)) : NULL, *aLn = aOff ? aOff + kMax + 1 : NULL;
  uint8_t *ix = aOff ? cairnMalloc(2 * nStr + 8) : NULL;
  int rc = -1;
  if (ix) {
    unsigned iw = kMax <= 256 ? 1 : 2;
    size_t off = 0, i = 0;
    for (; i < nStr; i++) {
      uint32_t l = (uint32_t)cairnGetLEn(lb + i * lw, lw);
      const uint8_t *q = c + off;
      uint64_t h = l * 0x9E3779B97F4A7C15ull;
      uint32_t j = 0;
      for (; j + 8 <= l; j += 8) h = (h ^ cairnGetLE64(q + j)) * 0xBF58476D1CE4E5B9ull;
      if (j < l) { /* the tail: the region's slack may be read, its bytes are masked off */
        uint64_t t = cairnGetLE64(q + j);
        h = (h ^ (t & (~0ull >> (64 - 8 * (l - j))))) * 0xBF58476D1CE4E5B9ull;
      }
      h ^= h >> 31, h *= 0x94D049BB133111EBull; /* the top bits must depend on every byte */
      size_t slot = (size_t)(h >> (64 - hb)) & hmask;
      while (ht[slot] && (aLn[ht[slot] - 1] != l || memcmp(c + aOff[ht[slot] - 1], q, l))) slot = (slot + 1) & hmask;
      if (!ht[slot]) {
        if (k == kMax) break; /* too many distinct strings */
        aOff[k] = (uint32_t)off, aLn[k] = l, nAlpha += l, ht[slot] = (uint32_t)++k;
      }
      cairnPutLEn(ix + i * iw, ht[slot] - 1, iw);
      off += l;
    }
    if (i == nStr && k > 0 && k <= 256 && iw == 2) { /* few after all (names): 1-byte indices */
      for (size_t j = 0; j < nStr; j++) ix[j] = ix[2 * j];
      iw = 1;
    }
    if (i == nStr && k == 1 && aLn[0] <= 1) k = 0; /* one separator: plain strings (constants), no lookups */
    if (i == nStr && k > 0) {
      uint8_t *ac = cairnMalloc(nAlpha + 1), *al = cairnMalloc(4 * k + 1);
      if (!ac || !al) {
        cairnFree(ac), cairnFree(al);
        encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory"));
      } else {
        uint32_t mx = 0;
        for (size_t j = 0, o = 0; j < k; j++) memcpy(ac + o, c + aOff[j], aLn[j]), o += aLn[j], mx = CAIRN_MAX(mx, aLn[j]);
        unsigned aw = mx < 256 ? 1 : mx < 65536 ? 2 : 4;
        for (size_t j = 0; j < k; j++) cairnPutLEn(al + j * aw, aLn[j], aw);
        int two[2], in2[2];
        two[0] = encSerial(e, ac, nAlpha);
        two[1] = encNumeric(e, al, k, aw, 1);
        in2[0] = encNode(e, ZID_SEPARATE_STRING, NULL, 0, two, 2, 0); /* the alphabet is decoder input 0 */
        /* indices: at fast levels their byte planes (the numeric trials cost more than they
        ** gain; 2-byte indices' high bytes apart are a small alphabet, decoded several per lookup) */
        in2[1] = e->level <= 5 ? encNumBytes(e, ix, nStr, iw, 1) : encNumeric(e, ix, nStr, iw, 1);
        rc = encNode(e, ZID_TOKENIZE_STRING, NULL, 0, in2, 2, 0);
        cairnFree(ac), cairnFree(al);
      }
    }
  } else if (nStr >= 64) {
    encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory"));
  }
  cairnFree(ht), cairnFree(aOff), cairnFree(ix);
  if (rc != -1 || e->rc) return rc;
  int two[2];
  two[0] = encSerial(e, c, nb);
  two[1] = encNumeric(e, lb, nStr, lw, 1);
  return encNode(e, ZID_SEPARATE_STRING, NULL, 0, two, 2, 0);
}

/* The 16-bit tags of dispatch_string. Rows of one shape repeat a period of P <= 16 tags: those
** become the concatenation (splitn_num) of the tags before the repeats, one period as a
** constant struct of 2P bytes repeated R times, and the partial period after them; else the
** numeric selector. zstd would code the repeats as one long match whose offset (2P bytes) is
** under 16 for P < 8, a slow copy: table.csv's tags took a quarter of its decode time. */
static int encCsvTags(Enc *e, const uint8_t *t, size_t n) {
  size_t bestM = n, bestP = 0;
  for (size_t q = 1; q <= 16 && q < n; q++) { /* the earliest start of a run of period q to the end */
    size_t j = n - q;
    while (j > 0 && cairnGetLE16(t + 2 * (j - 1)) == cairnGetLE16(t + 2 * (j - 1 + q))) j--;
    if (j < bestM) bestM = j, bestP = q;
  }
  size_t nRep = bestP ? (n - bestM) / bestP : 0;
  if (nRep < 16 || nRep * bestP < n / 2) return encNumeric(e, t, n, 2, 1);
  uint8_t lw = 1;
  int aIn[3], k = 0;
  if (bestM) aIn[k++] = encNumeric(e, t, bestM, 2, 1);
  int r = encNode1(e, ZID_SERIAL_TO_STRUCT, NULL, 0, encConstRun(e, t + 2 * bestM, 2 * bestP, nRep));
  aIn[k++] = encNode1(e, ZID_NUM_TO_SERIAL, &lw, 1, r);
  size_t end = bestM + nRep * bestP;
  if (end < n) aIn[k++] = encNumeric(e, t + 2 * end, n - end, 2, 1);
  return encNode(e, ZID_SPLITN_NUM, NULL, 0, aIn, k, k);
}

/* A CSV segment as strings that dispatch_string interleaves back: one pass splits the fields
** (column, length with its trailing ',' or '\n'); columns whose fields are (at least 7 in 8)
** integers written as parse_int writes them become numbers (parse_int over a numeric graph),
** the rest go by column as text (content + lengths). A number's separator is not part of it: it
** opens the next text string of the row, or is a one-byte string of its own. Every string is a
** range of the input: [start, start + len). */
/* The strings of a CSV segment, in order, and per source their count, bytes and longest. */
typedef struct {
  uint16_t *aSrc;
  uint32_t *aStart, *aLen;
  size_t n, *srcN, *srcBytes;
  uint32_t *srcMax;
} CsvStrs;
static void csvStr(CsvStrs *S, unsigned src, size_t at, size_t l) {
  S->aSrc[S->n] = (uint16_t)src, S->aStart[S->n] = (uint32_t)at, S->aLen[S->n++] = (uint32_t)l;
  S->srcN[src]++, S->srcBytes[src] += l, S->srcMax[src] = CAIRN_MAX(S->srcMax[src], (uint32_t)l);
}

#define CSV_COLS 64
#define CSV_SRC (2 * CSV_COLS + 1)
static int encCsv(Enc *e, const uint8_t *p, size_t n) {
  size_t nField = 1 + csvSeps(p, n);
  /* per field: tag (column, bit 15 = an integer), length with separator, value; per string
  ** (at most two per field): source, start, length */
  uint16_t *tag = cairnMalloc(sizeof(uint16_t) * 3 * nField);
  uint32_t *len = cairnMalloc(sizeof(uint32_t) * 5 * nField);
  uint8_t *num = cairnMalloc(16 * nField + 8);
  uint8_t *buf = NULL, *lb = NULL;
  int rc = -1;
  if (!tag || !len || !num) {
    encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory"));
    goto done;
  }
  size_t colN[CSV_COLS] = {0}, colInt[CSV_COLS] = {0};
  unsigned col = 0, nCol = 0;
  size_t k = 0, start = 0, i = 0;
  int quoted = 0, lastBare = 0;
  for (;;) {
    /* next ',', '\n' or '"': 8 bytes at a time (a zero byte of x ^ c marks c; the lowest flag
    ** of the borrow trick is exact) */
    const uint64_t one = 0x0101010101010101ull, high = 0x8080808080808080ull;
    while (i + 8 <= n) {
      uint64_t x = cairnGetLE64(p + i), a = x ^ (one * ','), b = x ^ (one * '\n'), q = x ^ (one * '"');
      uint64_t m = (((a - one) & ~a) | ((b - one) & ~b) | ((q - one) & ~q)) & high;
      if (m) {
        i += (size_t)__builtin_ctzll(m) >> 3;
        goto found;
      }
      i += 8;
    }
    while (i < n && p[i] != ',' && p[i] != '\n' && p[i] != '"') i++;
  found:
    if (i >= n) {
      if (start >= n) break;
      lastBare = 1, i = n; /* a last field without separator */
    } else if (p[i] == '"' || quoted) {
      quoted ^= p[i] == '"', i++;
      continue;
    }
    /* a field ends with its separator; a column stops being tried as integers once 1 in 8 of
    ** its first 32 fields or more were not */
    unsigned c = col < CSV_COLS - 1 ? col : CSV_COLS - 1;
    int64_t v;
    int isInt = i > start && (colN[c] < 32 || colInt[c] * 8 >= colN[c] * 7) && csvInt(p + start, i - start, &v);
    if (isInt) csvPut64(num + 8 * k, (uint64_t)v), colInt[c]++;
    tag[k] = (uint16_t)(c | (unsigned)isInt << 15), len[k] = (uint32_t)(i + !lastBare - start), k++;
    colN[c]++;
    if (c + 1u > nCol) nCol = c + 1u;
    if (lastBare) break;
    col = p[i] == '\n' ? 0 : col + 1;
    start = ++i;
  }
  if (nCol == 0) {
    rc = ENC_SKIP;
    goto done;
  }
  /* Sources: column c's text is 2c, its numbers 2c + 1, the separators 2 * nCol. */
  unsigned nSrc = 2 * nCol + 1, sepSrc = 2 * nCol, srcId[CSV_SRC], lw[CSV_SRC];
  size_t srcN[CSV_SRC] = {0}, srcBytes[CSV_SRC] = {0}, offC[CSV_SRC], offL[CSV_SRC], posC[CSV_SRC], posL[CSV_SRC];
  uint32_t srcMax[CSV_SRC] = {0};
  int colNum[CSV_COLS];
  /* Integer columns become numbers whatever their width: parse_int writes 9- and 10-digit
  ** numbers (timestamps in seconds) as 2 + 8 digits, with a digit-pair table and one 8-digit
  ** word. (Until now numbers of more than 8 digits on average stayed text, zstd being faster
  ** than the decoder's digits then; table.csv's timestamps as text cost 6 KB of frame and a
  ** zstd stage, and so a zstd context per frame.) */
  for (unsigned c = 0; c < nCol; c++) colNum[c] = colN[c] >= 16 && colInt[c] * 8 >= colN[c] * 7;
  uint16_t *sTag = tag + nField;
  uint32_t *sStart = len + nField, *sLen = len + 3 * nField;
  size_t pos = 0;
  int pending = 0; /* the byte before pos is a number's separator, in no string yet */
  CsvStrs S = {sTag, sStart, sLen, 0, srcN, srcBytes, srcMax};
#define CSV_STR(src, at, l) csvStr(&S, src, at, l)
  for (size_t f = 0; f < k; f++) {
    unsigned c = tag[f] & 0x7fffu;
    uint32_t l = len[f];
    if ((tag[f] >> 15) && colNum[c]) {
      int sep = !(lastBare && f == k - 1);
      if (pending) CSV_STR(sepSrc, pos - 1, 1);
      CSV_STR(2 * c + 1, pos, l - sep);
      pending = sep;
    } else {
      CSV_STR(2 * c, pos - pending, l + pending);
      pending = 0;
    }
    pos += l;
  }
  if (pending) CSV_STR(sepSrc, pos - 1, 1);
#undef CSV_STR
  size_t ns = S.n;
  /* contents: text sources each in a region with 32 bytes of slack (fixed-size block copies),
  ** numbers as 8-byte integers per column */
  size_t totC = 0, totL = 0;
  unsigned nId = 0;
  for (unsigned s = 0; s < nSrc; s++) {
    srcId[s] = srcN[s] ? nId++ : 0;
    lw[s] = srcMax[s] < 256 ? 1 : srcMax[s] < 65536 ? 2 : 4;
    offC[s] = totC, offL[s] = totL;
    totC += s % 2 && s != sepSrc ? 8 * srcN[s] : srcBytes[s] + 32;
    totL += srcN[s] * lw[s];
  }
  buf = cairnMalloc(CAIRN_MAX(totC, 2 * ns) + 32), lb = cairnMalloc(totL + 8);
  if (!buf || !lb) {
    encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory"));
    goto done;
  }
  memcpy(posC, offC, sizeof(size_t) * nSrc), memcpy(posL, offL, sizeof(size_t) * nSrc);
  for (size_t f = 0, fi = 0; f < ns; f++) {
    unsigned s = sTag[f];
    uint32_t l = sLen[f];
    if (s % 2 && s != sepSrc) { /* a number: its value is that of the next integer field */
      while (!((tag[fi] >> 15) && colNum[tag[fi] & 0x7fffu])) fi++;
      memcpy(buf + posC[s], num + 8 * fi++, 8), posC[s] += 8;
      continue;
    }
    const uint8_t *q = p + sStart[f];
    if (l <= 16 && sStart[f] + 16 <= n) memcpy(buf + posC[s], q, 16);
    else memcpy(buf + posC[s], q, l);
    posC[s] += l;
    if (lw[s] == 1) lb[posL[s]++] = (uint8_t)l;
    else cairnPutLEn(lb + posL[s], l, lw[s]), posL[s] += lw[s];
  }
  int aIn[CSV_SRC + 1];
  /* Small streams (indices, alphabets, lengths) get Huffman or are stored, not zstd: a
  ** frame without zstd stages decodes without a zstd context, whose set-up (cpuid in it)
  ** cost table.csv 8 us of its 100 (and each small zstd stage its own tables) */
  e->noLz = 16384;
  for (unsigned s = 0; s < nSrc; s++) {
    if (!srcN[s]) continue;
    if (s % 2 && s != sepSrc) {
      aIn[1 + srcId[s]] = encNode1(e, ZID_PARSE_INT, NULL, 0, encCsvNum(e, buf + offC[s], srcN[s]));
    } else {
      aIn[1 + srcId[s]] = encCsvText(e, buf + offC[s], srcBytes[s], lb + offL[s], lw[s], srcN[s]);
    }
  }
  for (size_t f = 0; f < ns; f++) cairnPutLE16(buf + 2 * f, (uint16_t)srcId[sTag[f]]); /* the sources are done */
  /* tags through the numeric selector even at fast levels: the order-0 estimate of their raw
  ** bytes misses that rows repeat them (a 70-column table then looked incompressible) */
  aIn[0] = encCsvTags(e, buf, ns);
  e->noLz = 0;
  int r = encNode(e, ZID_DISPATCH_STRING, NULL, 0, aIn, 1 + (int)nId, (int)nId);
  rc = encNode1(e, ZID_SERIAL_STRING, NULL, 0, r);
done:
  cairnFree(tag), cairnFree(len), cairnFree(num), cairnFree(buf), cairnFree(lb);
  return rc;
}
#undef CSV_SRC
#undef CSV_COLS

/* ---------------------------------------------------------------- records */

/* What to compress: a profile, or fixed-width records (nField > 0). */
typedef struct ZlOpts {
  int profile, level;
  unsigned nField;
  uint32_t aField[CAIRN_ZL_MAX_FIELDS];
  size_t unit; /* input size must be a multiple of it: integer width or record size */
} ZlOpts;

/* Records: each field becomes a column (numeric if 1/2/4/8 bytes, else byte planes), the
** columns come back together through split_by_struct. */
static int encRecords(Enc *e, const ZlOpts *o, const uint8_t *p, size_t n) {
  size_t nRec = n / o->unit;
  int aIn[CAIRN_ZL_MAX_FIELDS];
  uint8_t *col = cairnMalloc(nRec * 8 + 1), *t = cairnMalloc(nRec + 1);
  if (!col || !t) {
    cairnFree(col), cairnFree(t);
    return encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
  }
  for (unsigned f = 0, off = 0; f < o->nField && !e->rc; off += o->aField[f++]) {
    uint32_t w = o->aField[f];
    if (w == 1 || w == 2 || w == 4 || w == 8) {
      for (size_t i = 0; i < nRec; i++) memcpy(col + i * w, p + i * o->unit + off, w);
      aIn[f] = encNode1(e, ZID_STRUCT_TO_NUM, NULL, 0, encNumeric(e, col, nRec, w, 0));
    } else {
      int *aPl = cairnMalloc(sizeof(int) * w);
      if (!aPl) {
        encFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory"));
        break;
      }
      for (uint32_t k = 0; k < w; k++) {
        for (size_t i = 0; i < nRec; i++) t[i] = p[i * o->unit + off + k];
        aPl[k] = encSerial(e, t, nRec);
      }
      aIn[f] = encNode(e, ZID_TRANSPOSE_SPLIT, NULL, 0, aPl, (int)w, (int)w);
      cairnFree(aPl);
    }
  }
  cairnFree(col), cairnFree(t);
  return encNode(e, ZID_SPLIT_BY_STRUCT, NULL, 0, aIn, (int)o->nField, (int)o->nField);
}

/* ---------------------------------------------------------------- root and writer */

static const unsigned kWidth[] = {1, 1, 2, 4, 8, 8, 1};

/* Build the graph of one segment; returns the root ref (a serial stream). The typed graph and
** plain bytes are both tried on a prefix; the smaller wins. */
static int encTyped(Enc *e, const ZlOpts *o, const uint8_t *p, size_t n) {
  if (o->nField) return encRecords(e, o, p, n);
  if (o->profile == CAIRN_ZL_CSV) return encCsv(e, p, n);
  unsigned w = kWidth[o->profile];
  return encNode1(e, ZID_SERIAL_TO_NUM, NULL, 0, encNumeric(e, p, n / w, w, 0));
}
static int encRoot(Enc *e, const ZlOpts *o, const uint8_t *p, size_t n) {
  if (n == 0 || (o->profile == CAIRN_ZL_SERIAL && !o->nField)) return encSerial(e, p, n);
  /* integers: the typed selector's own "raw bytes" candidate already covers plain bytes */
  if (!o->nField && o->profile != CAIRN_ZL_CSV) return encTyped(e, o, p, n);
  int best = 0;
  size_t bestCost = SIZE_MAX;
  int fast = e->fast;
  e->fast = 1;
  for (int c = 0; c < 2 && !e->rc; c++) { /* 0: as bytes, 1: typed */
    Mark m = encMark(e);
    size_t nt = n;
    if (nt > 2 * e->trial + o->unit) { /* decide on a prefix: whole units; CSV: up to a line end */
      nt = (2 * e->trial / o->unit + 1) * o->unit;
      if (o->profile == CAIRN_ZL_CSV && !o->nField)
        while (nt < n && p[nt - 1] != '\n') nt++;
    }
    int r = c == 0 ? encSerial(e, p, nt) : encTyped(e, o, p, nt);
    size_t cost = r == ENC_SKIP ? SIZE_MAX : encCost(e, m);
    encRollback(e, m);
    if (cost < bestCost) bestCost = cost, best = c;
  }
  e->fast = fast;
  int r = best == 0 ? ENC_SKIP : encTyped(e, o, p, n);
  return r == ENC_SKIP ? encSerial(e, p, n) : r;
}

/* Growable output. */
typedef struct {
  uint8_t *p;
  size_t n, cap;
  int rc;
} Out;
static void outPut(Out *o, const void *p, size_t n) {
  if (o->rc) return;
  if (o->n + n > o->cap) {
    size_t cap = CAIRN_MAX(o->cap * 2, o->n + n + 256);
    uint8_t *q = cairnRealloc(o->p, cap);
    if (!q) {
      o->rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
      return;
    }
    o->p = q, o->cap = cap;
  }
  memcpy(o->p + o->n, p, n);
  o->n += n;
}
static void outVar(Out *o, uint64_t v) {
  uint8_t b[10];
  outPut(o, b, zlVarPut(b, v));
}
static void outBits(Out *o, const uint32_t *a, size_t n, int nb) {
  uint64_t acc = 0;
  int have = 0;
  for (size_t i = 0; i < n; i++) {
    acc |= (uint64_t)a[i] << have, have += nb;
    while (have >= 8) {
      uint8_t b = (uint8_t)acc;
      outPut(o, &b, 1);
      acc >>= 8, have -= 8;
    }
  }
  if (have > 0) {
    uint8_t b = (uint8_t)acc;
    outPut(o, &b, 1);
  }
}

/* Post-order layout: assigns each node its input base; returns the slot count. */
typedef struct {
  int *aOrder, nOrder;
  int *aBase, *aEnd;   /* per node: first input slot, end of inputs */
  int *aSlotRef;       /* per slot: ref that fills it */
  int nSlot;
} Layout;
static void layVisit(Enc *e, Layout *L, int node) {
  ENode *pN = &e->aNode[node];
  for (int i = 0; i < pN->nIn; i++)
    if (pN->aIn[i] >= 0) layVisit(e, L, pN->aIn[i]);
  L->aBase[node] = L->nSlot;
  for (int i = 0; i < pN->nIn; i++) L->aSlotRef[L->nSlot + pN->nIn - 1 - i] = pN->aIn[i];
  L->nSlot += pN->nIn;
  L->aEnd[node] = L->nSlot;
  L->aOrder[L->nOrder++] = node;
}

/* Write one chunk for the graph whose root is `root`; the chunk regenerates p[0..n). */
static void encWriteChunk(Enc *e, int root, const uint8_t *p, size_t n, Out *o) {
  int nN = e->nNode, nSlotMax = e->nSt + nN + 1;
  Layout L = {0};
  L.aOrder = cairnMalloc(sizeof(int) * (nN + 1));
  L.aBase = cairnMalloc(sizeof(int) * (nN + 1));
  L.aEnd = cairnMalloc(sizeof(int) * (nN + 1));
  L.aSlotRef = cairnMalloc(sizeof(int) * (nSlotMax + 1));
  uint32_t *a = cairnMalloc(sizeof(uint32_t) * (nSlotMax + nN + 1));
  if (!L.aOrder || !L.aBase || !L.aEnd || !L.aSlotRef || !a) {
    o->rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
    goto done;
  }
  /* reserve the whole chunk at once (streams + a bound on the graph description): growing
  ** the buffer stream by stream copied it over and over */
  size_t need = o->n + 64 + (size_t)nN * 48 + (size_t)e->nSt * 10;
  for (int i = 0; i < e->nSt; i++) need += e->anSt[i];
  if (need > o->cap && !o->rc) {
    uint8_t *q = cairnRealloc(o->p, need);
    if (!q) {
      o->rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
      goto done;
    }
    o->p = q, o->cap = need;
  }
  size_t start = o->n;
  int nSt;
  if (root < 0) { /* a lone stored stream */
    outVar(o, 1), outVar(o, 1), outVar(o, e->anSt[-root - 2]);
    outPut(o, e->aSt[-root - 2], e->anSt[-root - 2]);
  } else {
    layVisit(e, &L, root);
    L.aSlotRef[L.nSlot] = root; /* final output slot */
    int nSlot = L.nSlot + 1;
    nSt = 0;
    for (int s = 0; s < nSlot; s++) nSt += L.aSlotRef[s] < -1;
    int nD = L.nOrder;
    outVar(o, (uint64_t)nD + 1), outVar(o, (uint64_t)nSt);
    for (int i = 0; i < nD; i++) a[i] = 0;
    outBits(o, a, nD, 1); /* all standard */
    for (int i = 0; i < nD; i++) a[i] = e->aNode[L.aOrder[i]].id;
    outBits(o, a, nD, 7);
    for (int i = 0; i < nD; i++) a[i] = e->aNode[L.aOrder[i]].nh != 0;
    outBits(o, a, nD, 1);
    for (int i = 0; i < nD; i++)
      if (a[i]) outVar(o, e->aNode[L.aOrder[i]].nh - 1u);
    for (int i = 0; i < nD; i++) a[i] = e->aNode[L.aOrder[i]].nVO != 0;
    outBits(o, a, nD, 1);
    for (int i = 0; i < nD; i++)
      if (a[i]) outVar(o, e->aNode[L.aOrder[i]].nVO - 1u);
    for (int i = 0; i < nD; i++) a[i] = 0;
    outBits(o, a, nD, 1); /* one regenerated stream each */
    /* distance of each node's output slot from the end of its inputs */
    int *aSlotOf = L.aBase; /* the input bases are no longer needed: reuse as node -> output slot */
    for (int s = 0; s < nSlot; s++)
      if (L.aSlotRef[s] >= 0) aSlotOf[L.aSlotRef[s]] = s;
    for (int i = 0; i < nD; i++) {
      int node = L.aOrder[i];
      a[i] = (uint32_t)(aSlotOf[node] - L.aEnd[node]);
    }
    outBits(o, a, nD, zlBitsFor((uint64_t)nD + nSt));
    for (int s = 0; s < nSlot; s++)
      if (L.aSlotRef[s] < -1) outVar(o, e->anSt[-L.aSlotRef[s] - 2]);
    for (int i = 0; i < nD; i++) outPut(o, e->aNode[L.aOrder[i]].hdr, e->aNode[L.aOrder[i]].nh);
    for (int s = 0; s < nSlot; s++)
      if (L.aSlotRef[s] < -1) outPut(o, e->aSt[-L.aSlotRef[s] - 2], e->anSt[-L.aSlotRef[s] - 2]);
  }
  uint8_t c4[4];
  cairnPutLE32(c4, (uint32_t)cairnXxh3(p, n));
  outPut(o, c4, 4);
  if (!o->rc) {
    cairnPutLE32(c4, (uint32_t)cairnXxh3(o->p + start, o->n - start));
    outPut(o, c4, 4);
  }
done:
  cairnFree(L.aOrder), cairnFree(L.aBase), cairnFree(L.aEnd), cairnFree(L.aSlotRef), cairnFree(a);
}

static void encFree(Enc *e) {
  encRollback(e, (Mark){0, 0});
  ZSTD_freeCCtx(e->zc);
  cairnFree(e->zbuf);
  cairnFree(e->aNode), cairnFree(e->aSt), cairnFree(e->anSt);
  memset(e, 0, sizeof *e);
}

/* One segment -> one chunk in *o. */
static int encSegment(const ZlOpts *opt, const uint8_t *p, size_t n, Out *o) {
  Enc e = {0};
  int level = opt->level;
  e.level = level;
  /* zstd stages: levels 1-2 use zstd's fast negative levels, 3-5 zstd 1-3 (the typed graph
  ** already did most of the work), 6 and up the same zstd level */
  e.stageLevel = level <= 2 ? level - 3 : level <= 5 ? level - 2 : level;
  /* fast levels decide on a short prefix at zstd level 1; high levels look longer */
  e.trialLevel = level <= 5 ? 1 : 3;
  /* dense byte planes (order-0 entropy >= 4 bits per byte) at levels <= 3: zstd four notches
  ** lower, with Huffman literals kept on (negative levels drop them). Matches there are few and
  ** costly to look for (the match finder mispredicts on such bytes); the literals' entropy
  ** stage does the work. f32_signal level 3: +0.1% bytes, ~15% faster. */
  e.denseLevel = e.stageLevel - 4;
  e.trial = level <= 3 ? ENC_TRIAL / 8 : level <= 5 ? ENC_TRIAL / 4 : ENC_TRIAL;
  size_t start = o->n;
  int root = encRoot(&e, opt, p, n);
  if (!e.rc && (root == -1 || root == ENC_SKIP)) e.rc = cairnErr(CAIRN_ERROR, "zl: encoder built no graph");
  if (!e.rc) encWriteChunk(&e, root, p, n, o);
  if (!e.rc && !o->rc && o->n - start > n + 32 && root >= 0) {
    /* The graph chosen on a prefix expanded the whole segment (tokens of a high-cardinality
    ** tail, say): plain bytes instead, which never exceed n + 20 (cairn_zl_compress_bound). */
    o->n = start;
    encRollback(&e, (Mark){0, 0});
    root = encSerial(&e, p, n);
    if (!e.rc) encWriteChunk(&e, root, p, n, o);
  }
  int rc = e.rc ? e.rc : o->rc;
  encFree(&e);
  return rc;
}

static size_t encHeader(uint8_t *h, uint64_t n) {
  size_t k = 0;
  cairnPutLE32(h, ZL_MAGIC_BASE + ZL_FORMAT), k = 4;
  h[k++] = 3;    /* content + compressed checksums */
  h[k++] = 0x01; /* one output, serial */
  k += zlVarPut(h + k, n + 1);
  h[k] = (uint8_t)cairnXxh3(h, k), k++;
  return k;
}

size_t cairn_zl_compress_bound(size_t n) {
  size_t nSeg = n / ENC_SEGMENT + 1;
  return n + nSeg * 64 + 32;
}

typedef struct {
  const ZlOpts *o;
  const uint8_t *p;
  size_t n, seg;
  Out *aOut;
  int *aRc;
} SegJob;
static void segTask(void *pArg, size_t i, unsigned iWorker) {
  SegJob *j = pArg;
  size_t off = i * j->seg, len = CAIRN_MIN(j->seg, j->n - off);
  j->aRc[i] = encSegment(j->o, j->p + off, len, &j->aOut[i]);
}
/* Segments hold whole units, so every chunk is typed alike; boundaries depend on the input only. */
static size_t segSize(const ZlOpts *o) { return CAIRN_MAX(1, ENC_SEGMENT / o->unit) * o->unit; }

static int optsProfile(ZlOpts *o, int profile, int level) {
  memset(o, 0, sizeof *o);
  if (!cairn_zl_profile_name(profile)) return cairnErr(CAIRN_MISUSE, "zl: unknown profile %d", profile);
  if (level == 0) level = 19;
  if (level < 1 || level > 22) return cairnErr(CAIRN_MISUSE, "zl: level %d outside 1..22", level);
  o->profile = profile, o->level = level, o->unit = kWidth[profile];
  return CAIRN_OK;
}
static int optsRecords(ZlOpts *o, const uint32_t *aWidth, int nField, int level) {
  memset(o, 0, sizeof *o);
  if (!aWidth || nField < 1 || nField > CAIRN_ZL_MAX_FIELDS) return cairnErr(CAIRN_MISUSE, "zl: %d fields (1..%d)", nField, CAIRN_ZL_MAX_FIELDS);
  if (level == 0) level = 19;
  if (level < 1 || level > 22) return cairnErr(CAIRN_MISUSE, "zl: level %d outside 1..22", level);
  o->profile = CAIRN_ZL_SERIAL, o->level = level, o->nField = (unsigned)nField;
  for (int i = 0; i < nField; i++) {
    if (aWidth[i] < 1 || aWidth[i] > 4096) return cairnErr(CAIRN_MISUSE, "zl: field %d of %u bytes (1..4096)", i, aWidth[i]);
    o->aField[i] = aWidth[i], o->unit += aWidth[i];
  }
  return CAIRN_OK;
}

static int zlCompressBuf(const ZlOpts *o, const void *pv, size_t n, void *out, size_t nOut, size_t *pnOut) {
  const uint8_t *p = pv;
  if ((!p && n) || (!out && nOut) || !pnOut) return cairnErr(CAIRN_MISUSE, "zl: NULL argument");
  if (n % o->unit) return cairnErr(CAIRN_MISUSE, "zl: %zu bytes are not a whole number of %zu-byte units", n, o->unit);
  uint8_t h[32];
  size_t k = encHeader(h, n);
  size_t seg = segSize(o), nSeg = n ? (n + seg - 1) / seg : 1;
  Out *aOut = cairnMallocZero(sizeof(Out) * nSeg);
  int *aRc = cairnMallocZero(sizeof(int) * nSeg);
  int rc = CAIRN_OK;
  if (!aOut || !aRc) rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
  if (!rc) {
    SegJob j = {o, p, n, seg, aOut, aRc};
    rc = cairnParallelFor(nSeg, segTask, &j);
    for (size_t i = 0; i < nSeg && !rc; i++) rc = aRc[i];
  }
  size_t total = k + 1;
  for (size_t i = 0; i < nSeg && !rc; i++) total += aOut[i].n;
  if (!rc && total > nOut) rc = cairnErr(CAIRN_RANGE, "zl: frame of %zu bytes does not fit %zu", total, nOut);
  if (!rc) {
    uint8_t *q = out;
    memcpy(q, h, k);
    for (size_t i = 0; i < nSeg; i++) memcpy(q + k, aOut[i].p, aOut[i].n), k += aOut[i].n;
    q[k++] = 0;
    *pnOut = k;
  }
  for (size_t i = 0; aOut && i < nSeg; i++) cairnFree(aOut[i].p);
  cairnFree(aOut), cairnFree(aRc);
  return rc;
}

int cairn_zl_compress_level(int profile, int level, const void *p, size_t n, void *out, size_t nOut, size_t *pnOut) {
  ZlOpts o;
  if (level == 0) return cairnErr(CAIRN_MISUSE, "zl: level 0 (use 1..22)");
  CAIRN_TRY(optsProfile(&o, profile, level));
  return zlCompressBuf(&o, p, n, out, nOut, pnOut);
}
int cairn_zl_compress_records(const uint32_t *aWidth, int nField, int level, const void *p, size_t n, void *out, size_t nOut,
                              size_t *pnOut) {
  ZlOpts o;
  CAIRN_TRY(optsRecords(&o, aWidth, nField, level));
  return zlCompressBuf(&o, p, n, out, nOut, pnOut);
}

int cairn_zl_compress(int profile, const void *p, size_t n, void *out, size_t nOut, size_t *pnOut) {
  return cairn_zl_compress_level(profile, 19, p, n, out, nOut, pnOut);
}

/* Streaming compression: groups of segments read, compressed in parallel, written in order. */
static int zlCompressFile(const ZlOpts *o, cairn_file *in, cairn_file *out, cairn_zl_progress_fn xProgress, void *pArg,
                          uint64_t *pnIn, uint64_t *pnOut) {
  uint64_t size = 0, pos = 0, wpos = 0;
  if (!in || !out) return cairnErr(CAIRN_MISUSE, "zl: NULL file");
  CAIRN_TRY(cairn_file_size(in, &size));
  if (size % o->unit) return cairnErr(CAIRN_MISUSE, "zl: %llu bytes are not a whole number of %zu-byte units", (unsigned long long)size, o->unit);
  uint8_t h[32];
  size_t k = encHeader(h, size), seg = segSize(o);
  CAIRN_TRY(cairn_file_write(out, h, k, 0));
  wpos = k;
  size_t nGroup = CAIRN_MAX(1, CAIRN_MIN(cairnConcurrency(), 4u));
  uint8_t *buf = cairnMalloc((size_t)CAIRN_MIN(size ? size : 1, (uint64_t)seg * nGroup));
  Out *aOut = cairnMallocZero(sizeof(Out) * nGroup);
  int *aRc = cairnMallocZero(sizeof(int) * nGroup);
  int rc = (!buf || !aOut || !aRc) ? cairnErr(CAIRN_NOMEM, "zl: out of memory") : CAIRN_OK;
  do { /* an empty input still gets its one (empty) chunk */
    size_t len = (size_t)CAIRN_MIN(size - pos, (uint64_t)seg * nGroup);
    if (!rc && len) rc = cairn_file_read_exact(in, buf, len, pos);
    size_t nSeg = len ? (len + seg - 1) / seg : 1;
    if (!rc) {
      SegJob j = {o, buf, len, seg, aOut, aRc};
      for (size_t i = 0; i < nSeg; i++) aOut[i].n = 0, aRc[i] = 0;
      rc = cairnParallelFor(nSeg, segTask, &j);
      for (size_t i = 0; i < nSeg && !rc; i++) rc = aRc[i];
      for (size_t i = 0; i < nSeg && !rc; i++) rc = cairn_file_write(out, aOut[i].p, aOut[i].n, wpos), wpos += aOut[i].n;
    }
    pos += len;
    if (xProgress && !rc) xProgress(pArg, pos, size);
  } while (!rc && pos < size);
  if (!rc) {
    uint8_t z = 0;
    rc = cairn_file_write(out, &z, 1, wpos++);
  }
  if (!rc) rc = cairn_file_truncate(out, wpos);
  for (size_t i = 0; aOut && i < nGroup; i++) cairnFree(aOut[i].p);
  cairnFree(aOut), cairnFree(aRc), cairnFree(buf);
  if (!rc && pnIn) *pnIn = size;
  if (!rc && pnOut) *pnOut = wpos;
  return rc;
}

int cairn_zl_compress_file(int profile, int level, cairn_file *in, cairn_file *out, cairn_zl_progress_fn xProgress,
                           void *pArg, uint64_t *pnIn, uint64_t *pnOut) {
  ZlOpts o;
  CAIRN_TRY(optsProfile(&o, profile, level));
  return zlCompressFile(&o, in, out, xProgress, pArg, pnIn, pnOut);
}
int cairn_zl_compress_records_file(const uint32_t *aWidth, int nField, int level, cairn_file *in, cairn_file *out,
                                   cairn_zl_progress_fn xProgress, void *pArg, uint64_t *pnIn, uint64_t *pnOut) {
  ZlOpts o;
  CAIRN_TRY(optsRecords(&o, aWidth, nField, level));
  return zlCompressFile(&o, in, out, xProgress, pArg, pnIn, pnOut);
}
