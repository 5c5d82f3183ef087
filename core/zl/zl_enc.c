/*
** 2026-11-29
**
** core/zl/zl_enc.c - the encoder: builds, per input, a graph of OpenZL transforms and writes
** it as a format-26 frame (the decoding map of the decoders, then the stored streams). This file
** builds and selects graphs; zl_enc_csv.c has the CSV graphs, zl_enc_frame.c the writer and
** the entry points (zl_int.h declares what crosses them).
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
void cairnZlEncFail(Enc *e, int rc) {
  if (!e->rc) e->rc = rc;
}

static int encStored(Enc *e, uint8_t *p, size_t n) { /* takes ownership of p */
  if (e->rc) return cairnFree(p), -1;
  if (e->nSt == e->nStAlloc) {
    /* two arrays of one capacity */
    size_t k = (size_t)e->nStAlloc, k2 = k;
    int rc = cairnArrayReserve(&e->aSt, &k, (size_t)e->nSt + 1, sizeof(*e->aSt), 16, "zl: streams");
    if (!rc) rc = cairnArrayReserve(&e->anSt, &k2, k, sizeof(*e->anSt), 16, "zl: streams");
    if (!rc && NEVER(k > INT_MAX)) rc = cairnErr(CAIRN_RANGE, "zl: streams");
    if (rc) return cairnFree(p), cairnZlEncFail(e, rc), -1;
    e->nStAlloc = (int)k;
  }
  e->aSt[e->nSt] = p, e->anSt[e->nSt] = n;
  e->nSt++;
  return -e->nSt - 1; /* stored stream i is ref -(i+2); -1 is an error */
}
static int encStoredCopy(Enc *e, const void *p, size_t n) {
  uint8_t *q = cairnMalloc(n ? n : 1);
  if (!q) return cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
  memcpy(q, p, n);
  return encStored(e, q, n);
}

int cairnZlEncNode(Enc *e, int id, const uint8_t *hdr, size_t nh, const int *aIn, int nIn, int nVO) {
  if (e->rc) return -1;
  for (int i = 0; i < nIn; i++) /* a failed or skipped child makes the node invalid */
    if (aIn[i] == -1 || aIn[i] == ENC_SKIP) return cairnZlEncFail(e, cairnErr(CAIRN_ERROR, "zl: encoder input missing")), -1;
  if (e->nNode == e->nNodeAlloc) {
    size_t k = (size_t)e->nNodeAlloc;
    int rc = cairnArrayReserve(&e->aNode, &k, (size_t)e->nNode + 1, sizeof(*e->aNode), 16, "zl: graph nodes");
    if (!rc && NEVER(k > INT_MAX)) rc = cairnErr(CAIRN_RANGE, "zl: graph nodes");
    if (rc) return cairnZlEncFail(e, rc), -1;
    e->nNodeAlloc = (int)k;
  }
  ENode *n = &e->aNode[e->nNode];
  memset(n, 0, sizeof *n);
  n->aIn = cairnMalloc(sizeof(int) * (nIn ? nIn : 1));
  if (!n->aIn) return cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
  memcpy(n->aIn, aIn, sizeof(int) * nIn);
  n->id = (uint8_t)id, n->nh = (uint8_t)nh, n->nIn = nIn, n->nVO = nVO;
  if (nh) memcpy(n->hdr, hdr, nh);
  return e->nNode++;
}
int cairnZlEncNode1(Enc *e, int id, const uint8_t *hdr, size_t nh, int in) {
  if (e->rc) return -1;
  return cairnZlEncNode(e, id, hdr, nh, &in, 1, 0);
}

static Mark encMark(Enc *e) { return (Mark){e->nNode, e->nSt}; }
static size_t encCost(Enc *e, Mark m) {
  size_t c = 0;
  for (int i = m.nSt; i < e->nSt; i++) c += e->anSt[i] + 2;
  for (int i = m.nNode; i < e->nNode; i++) c += e->aNode[i].nh + 2 + e->aNode[i].nIn / 4;
  return c;
}
void cairnZlEncRollback(Enc *e, Mark m) {
  while (e->nSt > m.nSt) cairnFree(e->aSt[--e->nSt]);
  while (e->nNode > m.nNode) cairnFree(e->aNode[--e->nNode].aIn);
}

/* ---------------------------------------------------------------- leaves */

/* One zstd run of p[0..n) at `level` into q[0..cap) (magicless, content size, no checksum).
** Returns the size, 0 if it did not fit, (size_t)-1 on an error (e->rc set). */
static size_t encZstdRun(Enc *e, const uint8_t *p, size_t n, int level, int lit, uint8_t *q, size_t cap) {
  ZSTD_CCtx *z = e->zc;
  ZSTD_CCtx_reset(z, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(z, ZSTD_c_format, ZSTD_f_zstd1_magicless);
  ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, level);
  /* dense planes: a negative level finds the few matches cheaply, but would also drop the
  ** Huffman stage of the literals that does the work there */
  if (lit) ZSTD_CCtx_setParameter(z, ZSTD_c_literalCompressionMode, ZSTD_ps_enable);
  ZSTD_CCtx_setParameter(z, ZSTD_c_contentSizeFlag, 1);
  ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, 0);
  size_t r = ZSTD_compress2(z, q, cap, p, n);
  if (ZSTD_isError(r)) {
    if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall) return 0;
    int code = ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation ? CAIRN_NOMEM : CAIRN_ERROR;
    return cairnZlEncFail(e, cairnErr(code, "zl: zstd: %s", ZSTD_getErrorName(r))), (size_t)-1;
  }
  return r;
}

/* Streams at least this long, at zstd stage levels of at least ENC_SLOW_LEVEL (the optimal
** parsers, btopt and up: about 1 MB/s), first run both levels on a sample of ENC_SAMPLE bytes
** from their middle. Where the slow parse saves under 1% of the sample over zstd level 1 (noise
** and the dense byte planes of sensor values: there level 1 is as small, or smaller, since the
** optimal parse buys matches that cost more than their literals), the whole stream is coded
** at level 1: 20-50x faster. Text and repetitive streams keep the slow level (it saves 20-40%
** on them). */
#define ENC_SLOW_LEVEL 16
#define ENC_SAMPLE (64u << 10)
static int encZstdLevel(Enc *e, const uint8_t *p, size_t n, uint8_t *q, size_t cap) {
  int level = e->fast ? e->trialLevel : e->dense ? e->denseLevel : e->stageLevel;
  if (e->fast || level < ENC_SLOW_LEVEL || n < 4 * ENC_SAMPLE || cap < ENC_SAMPLE + 1024) return level;
  const uint8_t *s = p + (n - ENC_SAMPLE) / 2;
  size_t a = encZstdRun(e, s, ENC_SAMPLE, 1, 0, q, cap), b = 0;
  if (a == (size_t)-1) return level;
  if (a == 0) a = ENC_SAMPLE; /* did not fit: as large as the sample */
  b = encZstdRun(e, s, ENC_SAMPLE, level, 0, q, cap);
  if (b == (size_t)-1) return level;
  if (b == 0) b = ENC_SAMPLE;
  return b + a / 100 >= a ? 1 : level;
}

/* zstd into the segment's scratch buffer, capped at n - 4 bytes (a stream that does not shrink
** is stored instead), then an exact-size copy. Returns 1 if it did not shrink. */
static int encZstdBytes(Enc *e, const uint8_t *p, size_t n, uint8_t **pOut, size_t *pn) {
  if (n < 8) return 1;
  size_t cap = n - 4;
  if (cap > e->nZbuf) {
    uint8_t *z = cairnRealloc(e->zbuf, cap);
    if (!z) return cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
    e->zbuf = z, e->nZbuf = cap;
  }
  if (!e->zc) e->zc = cairnZlZstdCreateCCtx();
  if (!e->zc) return cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
  uint8_t *q = e->zbuf;
  int level = encZstdLevel(e, p, n, q + 1, cap - 1);
  if (e->rc) return -1;
  q[0] = 1; /* varint element width */
  size_t r = encZstdRun(e, p, n, level, !e->fast && e->dense, q + 1, cap - 1);
  if (r == (size_t)-1) return -1;
  if (r == 0) return 1;
  uint8_t *o = cairnMalloc(r + 1);
  if (!o) return cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
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
int cairnZlEncConstRun(Enc *e, const uint8_t *p, size_t width, size_t nRep) {
  uint8_t h[10];
  int r = cairnZlEncNode1(e, ZID_STRUCT_TO_SERIAL, h, zlVarPut(h, width), encStoredCopy(e, p, width));
  return cairnZlEncNode1(e, ZID_CONST_FIXED, h, zlVarPut(h, nRep), r);
}

/* A serial stream: stored, constant, or zstd, whichever is smallest. Copies p. */
static int encHuffman(Enc *e, const uint8_t *p, size_t n, int raw);
int cairnZlEncSerial(Enc *e, const uint8_t *p, size_t n) {
  if (e->rc) return -1;
  if (n >= 2) {
    size_t i = 1;
    while (i < n && p[i] == p[0]) i++;
    if (i == n) {
      uint8_t h[10];
      return cairnZlEncNode1(e, ZID_CONST_SERIAL, h, zlVarPut(h, n), encStoredCopy(e, p, 1));
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
    if (!q) return cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
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
    aIn[0] = cairnZlEncNode1(e, ZID_SERIAL_TO_STRUCT, NULL, 0, cairnZlEncConstRun(e, p, per, nRep));
    if (nRep * per == n) return aIn[0];
    aIn[1] = encStoredCopy(e, p + nRep * per, n - nRep * per);
    return cairnZlEncNode(e, ZID_SPLITN, NULL, 0, aIn, 2, 2);
  }
  if (n > 16) {
    uint8_t *q;
    size_t nq;
    int r = encZstdBytes(e, p, n, &q, &nq);
    if (r < 0) return -1;
    if (r == 0) return cairnZlEncNode1(e, ZID_ZSTD, NULL, 0, encStored(e, q, nq));
  }
  return encStoredCopy(e, p, n);
}

/* For the named graphs (zl_enc_graph.c). */
int cairnZlEncStoredCopy(Enc *e, const void *p, size_t n) { return encStoredCopy(e, p, n); }
int cairnZlEncStored(Enc *e, uint8_t *p, size_t n) { return encStored(e, p, n); }
int cairnZlEncHuffman(Enc *e, const uint8_t *p, size_t n) { return encHuffman(e, p, n, 1); }
int cairnZlEncZstdLeaf(Enc *e, const uint8_t *p, size_t n) {
  uint8_t *q;
  size_t nq;
  int r = encZstdBytes(e, p, n, &q, &nq);
  if (r < 0) return -1;
  return r == 0 ? cairnZlEncNode1(e, ZID_ZSTD, NULL, 0, encStored(e, q, nq)) : encStoredCopy(e, p, n);
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
** bytes, the bitstream stored): no match search at all. Falls back to cairnZlEncSerial (raw: stored
** as is) when it would not save 1/64 of the plane. */
static int encHuffman(Enc *e, const uint8_t *p, size_t n, int raw) {
  if (e->rc) return -1;
  uint8_t w[256], *q = NULL;
  size_t nw = 0;
  int x4 = 0;
  size_t nq = cairnZlHufEncode(p, n, w, &nw, &x4, &q);
  if (nq == (size_t)-1) return cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
  if (nq == 0 || nq + nw + 16 > n - n / 64) return cairnFree(q), raw ? encStoredCopy(e, p, n) : cairnZlEncSerial(e, p, n);
  uint8_t h[9], lw = 0;
  h[0] = (uint8_t)x4;
  unsigned nh = 1;
  for (uint64_t v = n; v; v >>= 8) h[nh++] = (uint8_t)v;
  int aIn[2];
  aIn[0] = cairnZlEncNode1(e, ZID_NUM_TO_SERIAL, &lw, 1, encStoredCopy(e, w, nw)); /* decoder input 0 */
  aIn[1] = encStored(e, q, nq);
  return cairnZlEncNode(e, ZID_HUFFMAN, h, nh, aIn, 2, 0);
}

static uint64_t rdW(const uint8_t *p, unsigned w) { return cairnGetLEn(p, w); }


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
      return cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
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
        if (!dp) cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory"));
        else {
          for (size_t i = 1; i < n; i++) dp[i - 1] = (uint8_t)(pl[k][i] - pl[k][i - 1]); /* vectorizes */
          e->dense = 0;
          r = huf ? encHuffman(e, dp, n - 1, 0) : cairnZlEncSerial(e, dp, n - 1);
          cairnFree(dp);
        }
        r = cairnZlEncNode1(e, ZID_NUM_TO_SERIAL, &lw, 1, r);
        aIn[k] = cairnZlEncNode1(e, ZID_SERIAL_TO_NUM, NULL, 0, cairnZlEncNode1(e, ZID_DELTA, &first, 1, r));
      } else aIn[k] = huf ? encHuffman(e, pl[k], n, 0) : cairnZlEncSerial(e, pl[k], n);
      cairnFree(pl[k]);
      e->dense = 0;
    }
    pl[k] = NULL;
  }
  int st = cairnZlEncNode(e, ZID_TRANSPOSE_SPLIT, NULL, 0, aIn, (int)w, (int)w);
  return cairnZlEncNode1(e, ZID_NUM_TO_STRUCT, NULL, 0, st);
}

/* Numeric from its bytes, either whole (num_to_serial) or as w transposed byte planes. */
int cairnZlEncNumBytes(Enc *e, const uint8_t *p, size_t n, unsigned w, int planes) {
  uint8_t lw = (uint8_t)(w == 1 ? 0 : w == 2 ? 1 : w == 4 ? 2 : 3);
  if (!planes || w == 1) return cairnZlEncNode1(e, ZID_NUM_TO_SERIAL, &lw, 1, cairnZlEncSerial(e, p, n * w));
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
    rc = -1, cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory"));
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
    rc = -1, cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory"));
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
  aIn[0] = cairnZlEncNumeric(e, alpha, k, w, depth + 1); /* alphabet is decoder input 0 */
  aIn[1] = cairnZlEncNumeric(e, ix, n, iw, depth + 1);
  rc = cairnZlEncNode(e, ZID_TOKENIZE_NUM, NULL, 0, aIn, 2, 0);
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
  if (!col) return cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
  for (unsigned j = 0; j < k; j++) {
    for (size_t i = 0; i < m; i++) memcpy(col + i * w, p + (i * k + j) * w, w);
    aIn[j] = cairnZlEncNode1(e, ZID_STRUCT_TO_NUM, NULL, 0, cairnZlEncNumeric(e, col, m, w, depth + 1));
  }
  cairnFree(col);
  uint8_t lw = (uint8_t)(w == 1 ? 0 : w == 2 ? 1 : w == 4 ? 2 : 3);
  int rec = cairnZlEncNode(e, ZID_SPLIT_BY_STRUCT, NULL, 0, aIn, (int)k, (int)k);
  return cairnZlEncNode1(e, ZID_NUM_TO_SERIAL, &lw, 1, rec);
}

static int encNumCand(Enc *e, const uint8_t *p, size_t n, unsigned w, int c, int depth) {
  if (c == NC_RAW || c == NC_RAWT) return cairnZlEncNumBytes(e, p, n, w, c == NC_RAWT);
  if (c == NC_F2 || c == NC_F4) return encFields(e, p, n, w, c == NC_F2 ? 2 : 4, depth);
  if (c == NC_TOK) return depth < 1 ? encTokenize(e, p, n, w, depth) : ENC_SKIP;
  if (n < 2) return ENC_SKIP;
  int zz = c == NC_DZZ || c == NC_DZZT; /* zigzag of the signed difference */
  if (w > 1 && (c == NC_DELTAT || c == NC_DZZT)) { /* differences straight into byte planes */
    int r = encPlanes(e, p, n - 1, w, zz ? 2 : 1);
    if (zz) r = cairnZlEncNode1(e, ZID_ZIGZAG, NULL, 0, r);
    return cairnZlEncNode1(e, ZID_DELTA, p, w, r);
  }
  uint8_t *q = cairnMalloc((n - 1) * w);
  if (!q) return cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
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
  int r = cairnZlEncNumBytes(e, q, n - 1, w, c == NC_DELTAT || c == NC_DZZT);
  cairnFree(q);
  if (c == NC_DZZ || c == NC_DZZT) r = cairnZlEncNode1(e, ZID_ZIGZAG, NULL, 0, r);
  return cairnZlEncNode1(e, ZID_DELTA, p, w, r);
}

/* A numeric stream of n w-byte little-endian values: the smallest candidate. */
int cairnZlEncNumeric(Enc *e, const uint8_t *p, size_t n, unsigned w, int depth) {
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
      cairnZlEncRollback(e, m);
      if (cost < bestCost) bestCost = cost, best = c;
    }
    e->fast = fast;
  }
  /* chosen on a prefix: on the whole stream it may not apply (tokenize with too many values) */
  int r = encNumCand(e, p, n, w, best, depth);
  return r == ENC_SKIP ? encNumCand(e, p, n, w, NC_RAW, depth) : r;
}

/* ---------------------------------------------------------------- records */

/* Records: each field becomes a column (numeric if 1/2/4/8 bytes, else byte planes), the
** columns come back together through split_by_struct. */
static int encRecords(Enc *e, const ZlOpts *o, const uint8_t *p, size_t n) {
  size_t nRec = n / o->unit;
  int aIn[CAIRN_ZL_MAX_FIELDS];
  uint8_t *col = cairnMalloc(nRec * 8 + 1), *t = cairnMalloc(nRec + 1);
  if (!col || !t) {
    cairnFree(col), cairnFree(t);
    return cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory")), -1;
  }
  for (unsigned f = 0, off = 0; f < o->nField && !e->rc; off += o->aField[f++]) {
    uint32_t w = o->aField[f];
    if (w == 1 || w == 2 || w == 4 || w == 8) {
      for (size_t i = 0; i < nRec; i++) memcpy(col + i * w, p + i * o->unit + off, w);
      aIn[f] = cairnZlEncNode1(e, ZID_STRUCT_TO_NUM, NULL, 0, cairnZlEncNumeric(e, col, nRec, w, 0));
    } else {
      int *aPl = cairnMalloc(sizeof(int) * w);
      if (!aPl) {
        cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory"));
        break;
      }
      for (uint32_t k = 0; k < w; k++) {
        for (size_t i = 0; i < nRec; i++) t[i] = p[i * o->unit + off + k];
        aPl[k] = cairnZlEncSerial(e, t, nRec);
      }
      aIn[f] = cairnZlEncNode(e, ZID_TRANSPOSE_SPLIT, NULL, 0, aPl, (int)w, (int)w);
      cairnFree(aPl);
    }
  }
  cairnFree(col), cairnFree(t);
  return cairnZlEncNode(e, ZID_SPLIT_BY_STRUCT, NULL, 0, aIn, (int)o->nField, (int)o->nField);
}

/* ---------------------------------------------------------------- root and writer */

/* Build the graph of one segment; returns the root ref (a serial stream). The typed graph and
** plain bytes are both tried on a prefix; the smaller wins. */
static int encTyped(Enc *e, const ZlOpts *o, const uint8_t *p, size_t n) {
  if (o->nField) return encRecords(e, o, p, n);
  if (o->profile == CAIRN_ZL_CSV) return cairnZlEncCsv(e, p, n);
  unsigned w = kZlWidth[o->profile];
  if (w == 8 && n >= 64 * 8) {
    /* 8-byte integers that are pairs of 4-byte ones (u32 series read as le-u64: the halves'
    ** differences are narrow, the 64-bit ones carry borrows into the high half): the 4-byte
    ** graph is tried beside the 8-byte one on a prefix, the smaller wins. Either is a numeric
    ** view of the same serial bytes (serial_to_num takes its width from its input). */
    size_t nt = CAIRN_MIN(n, 2 * e->trial) / 8 * 8, aCost[2] = {SIZE_MAX, SIZE_MAX};
    int fast = e->fast;
    e->fast = 1;
    for (int k = 0; k < 2 && !e->rc; k++) {
      Mark m = encMark(e);
      unsigned wk = k ? 4 : 8;
      int r = cairnZlEncNumeric(e, p, nt / wk, wk, 0);
      aCost[k] = r == ENC_SKIP ? SIZE_MAX : encCost(e, m);
      cairnZlEncRollback(e, m);
    }
    e->fast = fast;
    if (aCost[1] < aCost[0]) w = 4;
  }
  return cairnZlEncNode1(e, ZID_SERIAL_TO_NUM, NULL, 0, cairnZlEncNumeric(e, p, n / w, w, 0));
}
static int encRootWhole(Enc *e, const ZlOpts *o, const uint8_t *p, size_t n);
/* Any length: a tail shorter than the unit (integer width or record) is stored beside the
** typed part and joined by splitN (OpenZL's own profiles send such a last chunk whole to their
** generic fallback; a frame of either shape decodes in both). */
int cairnZlEncRoot(Enc *e, const ZlOpts *o, const uint8_t *p, size_t n) {
  size_t tail = o->unit > 1 ? n % o->unit : 0;
  if (!tail) return encRootWhole(e, o, p, n);
  if (n == tail) return cairnZlEncSerial(e, p, n);
  int a[2];
  a[0] = encRootWhole(e, o, p, n - tail);
  a[1] = encStoredCopy(e, p + n - tail, tail);
  return cairnZlEncNode(e, ZID_SPLITN, NULL, 0, a, 2, 2);
}
static int encRootWhole(Enc *e, const ZlOpts *o, const uint8_t *p, size_t n) {
  if (o->graph && o->xGraph) return o->xGraph(e, o, p, n);
  if (n == 0 || (o->profile == CAIRN_ZL_SERIAL && !o->nField)) return cairnZlEncSerial(e, p, n);
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
    int r = c == 0 ? cairnZlEncSerial(e, p, nt) : encTyped(e, o, p, nt);
    size_t cost = r == ENC_SKIP ? SIZE_MAX : encCost(e, m);
    cairnZlEncRollback(e, m);
    if (cost < bestCost) bestCost = cost, best = c;
  }
  e->fast = fast;
  int r = best == 0 ? ENC_SKIP : encTyped(e, o, p, n);
  return r == ENC_SKIP ? cairnZlEncSerial(e, p, n) : r;
}

