/*
** 2026-12-02
**
** core/zl/zl_tr_more.c - the rest of OpenZL's standard decoders at format 26 (cairn's encoder
** writes none of them; OpenZL's graphs and users' own graphs do): transpose (2), bitunpack (34),
** dispatchN_byTag (42), merge_sorted (43), prefix (46), concat_string (59, through decConcat's
** string case here), interleave_string (61) and bitSplit (63). Each checks its inputs as
** OpenZL's decoder does (counts, widths, sums) and allocates only through cairnZlNewStream.
*/
#include "zl/zl_int.h"

#define TRDEC(name) static ZL_TRDEC(name)

/* Rare decoders: clang builds them for size (the wasm codec's 400 KB budget, wasm-size.sh). */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((minsize)), apply_to = function)
#endif

/* 2: transpose, struct of n x w bytes -> struct of w x n (0 x w when empty) */
TRDEC(decTranspose) {
  const ZlStream *s = in[0];
  (void)h, (void)nh, (void)nIn, (void)nOut;
  size_t n = s->n, w = s->width;
  if (n == 0) return cairnZlNewStream(d, out[0], ZT_STRUCT, (uint32_t)w, 0);
  if (n > 0xffffffu) return BAD("zl: transpose into elements of %zu bytes", n);
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_STRUCT, (uint32_t)n, w));
  uint8_t *o = out[0]->p;
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < w; i++) o[i * n + j] = s->p[j * w + i];
  return CAIRN_OK;
}

/* 34: bitunpack, numeric -> serial: each value's low nbBits, LSB first (header byte 0); an
** optional header byte 1 holds the bits that fill the last byte's top */
TRDEC(decBitunpack) {
  const ZlStream *s = in[0];
  (void)nIn, (void)nOut;
  if (nh < 1 || nh > 2) return BAD("zl: bitunpack header of %zu bytes", nh);
  unsigned nb = h[0];
  if (nb > 8 * s->width) return BAD("zl: bitunpack of %u bits from %u-byte values", nb, s->width);
  uint64_t nBits = (uint64_t)s->n * nb;
  size_t nOutB = (size_t)((nBits + 7) / 8);
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_SERIAL, 1, nOutB));
  uint8_t *o = out[0]->p;
  memset(o, 0, nOutB);
  uint64_t mask = nb >= 64 ? ~0ull : (1ull << nb) - 1, acc = 0;
  unsigned have = 0; /* bits in acc, < 8 between values */
  size_t op = 0;
#define BU_PUT(v, k) \
  do { \
    acc |= (v) << have, have += (k); \
    while (have >= 8) o[op++] = (uint8_t)acc, acc >>= 8, have -= 8; \
  } while (0)
  for (size_t i = 0; nb && i < s->n; i++) {
    uint64_t v = rdN(s->p + i * s->width, s->width) & mask;
    if (nb <= 56) BU_PUT(v, nb);
    else { /* two steps keep acc within 64 bits */
      BU_PUT(v & 0xffffffffu, 32u);
      BU_PUT(v >> 32, nb - 32);
    }
  }
#undef BU_PUT
  if (have) o[op++] = (uint8_t)acc;
  cairnAssert(op == nOutB);
  if (nh == 2) {
    unsigned rem = (unsigned)(nOutB * 8 - nBits);
    if (rem == 0 || nOutB == 0) return BAD("zl: bitunpack tail bits given for a whole number of bytes");
    o[nOutB - 1] |= (uint8_t)(h[1] << (8 - rem));
  }
  return CAIRN_OK;
}

/* 42: dispatchN_byTag, (tags, segment sizes, serial sources...) -> serial: segment i is the
** next sizes[i] bytes of source tags[i] */
TRDEC(decDispatchNByTag) {
  const ZlStream *tg = in[0], *sz = in[1];
  (void)h, (void)nh, (void)nOut;
  size_t nSrc = nIn - 2, nSeg = sz->n;
  if (tg->n != nSeg) return BAD("zl: dispatchN_byTag with %zu tags for %zu segments", tg->n, nSeg);
  if (nSrc >= 65536 || tg->width > 2) return BAD("zl: dispatchN_byTag of %zu sources, %u-byte tags", nSrc, tg->width);
  uint64_t total = 0, *aLeft = cairnMallocZero(sizeof(uint64_t) * (nSrc + 1));
  if (!aLeft) return cairnErr(CAIRN_NOMEM, "zl: out of memory");
  int rc = CAIRN_OK;
  for (size_t k = 0; k < nSeg; k++) {
    uint64_t t = rdN(tg->p + k * tg->width, tg->width), m = rdN(sz->p + k * sz->width, sz->width);
    if (t >= nSrc) {
      rc = BAD("zl: dispatchN_byTag tag %llu of segment %zu beyond %zu sources", (unsigned long long)t, k, nSrc);
      goto done;
    }
    aLeft[t] += m, total += m;
    if (aLeft[t] > in[2 + t]->nb) {
      rc = BAD("zl: dispatchN_byTag segments of source %llu exceed its %zu bytes", (unsigned long long)t, in[2 + t]->nb);
      goto done;
    }
  }
  for (size_t j = 0; j < nSrc; j++)
    if (aLeft[j] != in[2 + j]->nb) {
      rc = BAD("zl: dispatchN_byTag segments take %llu of source %zu's %zu bytes", (unsigned long long)aLeft[j], j, in[2 + j]->nb);
      goto done;
    }
  if ((rc = cairnZlNewStream(d, out[0], ZT_SERIAL, 1, (size_t)total))) goto done;
  memset(aLeft, 0, sizeof(uint64_t) * nSrc); /* now: bytes taken from each source */
  uint8_t *o = out[0]->p;
  for (size_t k = 0; k < nSeg; k++) {
    size_t t = (size_t)rdN(tg->p + k * tg->width, tg->width), m = (size_t)rdN(sz->p + k * sz->width, sz->width);
    memcpy(o, in[2 + t]->p + aLeft[t], m);
    o += m, aLeft[t] += m;
  }
done:
  cairnFree(aLeft);
  return rc;
}

/* 43: merge_sorted, (bitsets, merged 32-bit values) -> the concatenated lists (32-bit numeric);
** header = varint size of each list (at most 64, at most the bitset's bits); value i goes to
** every list whose bit is set in bitset i and that is not full yet; every list must fill */
TRDEC(decMergeSorted) {
  const ZlStream *bs = in[0], *mg = in[1];
  (void)nIn, (void)nOut;
  if (bs->n != mg->n || mg->width != 4) return BAD("zl: merge_sorted of %zu bitsets, %zu values of %u bytes", bs->n, mg->n, mg->width);
  uint32_t bw = bs->width;
  if (!isIntWidth(bw)) return BAD("zl: merge_sorted bitsets of %u bytes", bw);
  uint64_t aSize[64], total = 0, maxTotal;
  size_t nL = 0;
  if (cairnMulOverflow64(8ull * bw, bs->n, &maxTotal)) return BAD("zl: merge_sorted too large");
  for (const uint8_t *p = h, *e = h + nh; p < e;) {
    uint64_t v;
    size_t k = zlVarGet(p, e, &v);
    if (!k || nL == 64) return BAD("zl: bad merge_sorted header");
    aSize[nL++] = v, p += k, total += v;
    if (v > maxTotal || total > maxTotal) return BAD("zl: merge_sorted lists of %llu values from %zu", (unsigned long long)total, bs->n);
  }
  if (nL > 8 * bw) return BAD("zl: merge_sorted of %zu lists with %u-bit sets", nL, 8 * bw);
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_NUMERIC, 4, (size_t)total));
  uint8_t *o = out[0]->p;
  size_t aPos[64], aEnd[64];
  for (size_t b = 0, pos = 0; b < nL; b++) aPos[b] = pos, pos += (size_t)aSize[b], aEnd[b] = pos;
  for (size_t i = 0; i < mg->n; i++) {
    uint64_t set = rdN(bs->p + i * bw, bw);
    for (size_t b = 0; b < nL; b++)
      if ((set >> b) & 1 && aPos[b] != aEnd[b]) memcpy(o + 4 * aPos[b]++, mg->p + 4 * i, 4);
  }
  for (size_t b = 0; b < nL; b++)
    if (aPos[b] != aEnd[b]) return BAD("zl: merge_sorted list %zu gets %zu of its %llu values", b, aPos[b] - (aEnd[b] - (size_t)aSize[b]), (unsigned long long)aSize[b]);
  return CAIRN_OK;
}

/* 46: prefix, (suffixes, 32-bit match sizes) -> strings: string i = the first match[i] bytes of
** string i-1 (at most its length) + suffix i */
TRDEC(decPrefix) {
  const ZlStream *sf = in[0], *ms = in[1];
  (void)h, (void)nh, (void)nIn, (void)nOut;
  if (ms->n != sf->n || ms->width != 4) return BAD("zl: prefix of %zu strings with %zu match sizes of %u bytes", sf->n, ms->n, ms->width);
  uint64_t total = sf->nb, prev = 0;
  for (size_t i = 0; i < sf->n; i++) {
    uint32_t m = cairnGetLE32(ms->p + 4 * i);
    if (m > prev) return BAD("zl: prefix match of %u bytes after a %llu-byte string (string %zu)", m, (unsigned long long)prev, i);
    prev = (uint64_t)m + sf->aLen[i];
    if (prev > 0xffffffffu) return BAD("zl: prefix string %zu longer than 4 GiB", i);
    total += m;
  }
  if (total > SIZE_MAX / 2) return BAD("zl: prefix output too large");
  ZlStream *o = out[0];
  CAIRN_TRY(cairnZlNewStream(d, o, ZT_STRING, 1, (size_t)total));
  o->n = sf->n;
  CAIRN_TRY(cairnZlNewLens(d, o, sf->n));
  uint8_t *q = o->p, *last = q;
  const uint8_t *src = sf->p;
  for (size_t i = 0; i < sf->n; i++) {
    uint32_t m = cairnGetLE32(ms->p + 4 * i), l = sf->aLen[i];
    memmove(q, last, m);
    memcpy(q + m, src, l);
    last = q, q += m + l, src += l;
    o->aLen[i] = m + l;
  }
  return CAIRN_OK;
}

/* 59: concat_string, (32-bit sizes, strings) -> one string stream per size */
TRDEC(decConcatString) {
  const ZlStream *sz = in[0], *all = in[1];
  (void)h, (void)nh, (void)nIn;
  if (sz->n != nOut) return BAD("zl: concat with %zu sizes regenerates %zu streams", sz->n, nOut);
  size_t pos = 0, bpos = 0;
  for (size_t k = 0; k < nOut; k++) {
    uint64_t m = rdN(sz->p + k * sz->width, sz->width);
    if (m > all->n - pos) return BAD("zl: concat sizes exceed the input's %zu strings", all->n);
    uint64_t nb = 0;
    for (size_t i = pos; i < pos + m; i++) nb += all->aLen[i];
    ZlStream *o = out[k];
    CAIRN_TRY(cairnZlNewStream(d, o, ZT_STRING, 1, (size_t)nb));
    o->n = (size_t)m;
    CAIRN_TRY(cairnZlNewLens(d, o, (size_t)m));
    memcpy(o->p, all->p + bpos, (size_t)nb);
    memcpy(o->aLen, all->aLen + pos, sizeof(uint32_t) * (size_t)m);
    pos += (size_t)m, bpos += (size_t)nb;
  }
  if (pos != all->n) return BAD("zl: concat sizes sum to %zu, the input holds %zu strings", pos, all->n);
  return CAIRN_OK;
}

/* 61: interleave_string, strings -> nOut string streams, round robin; header LE32 = nOut */
TRDEC(decInterleaveString) {
  const ZlStream *s = in[0];
  (void)nIn;
  if (nh != 4) return BAD("zl: interleave header of %zu bytes", nh);
  uint32_t k = cairnGetLE32(h);
  if (k == 0 || k > 512 || k != nOut) return BAD("zl: interleave into %u streams, the graph has %zu", k, nOut);
  if (s->n % k) return BAD("zl: interleave of %zu strings into %u streams", s->n, k);
  size_t per = s->n / k;
  uint64_t *aNb = cairnMallocZero(sizeof(uint64_t) * k);
  if (!aNb) return cairnErr(CAIRN_NOMEM, "zl: out of memory");
  for (size_t i = 0; i < s->n; i++) aNb[i % k] += s->aLen[i];
  int rc = CAIRN_OK;
  for (uint32_t j = 0; j < k && !rc; j++) {
    if (!(rc = cairnZlNewStream(d, out[j], ZT_STRING, 1, (size_t)aNb[j]))) out[j]->n = per, rc = cairnZlNewLens(d, out[j], per);
    aNb[j] = 0; /* now: bytes written */
  }
  const uint8_t *src = s->p;
  for (size_t i = 0; !rc && i < s->n; i++) {
    ZlStream *o = out[i % k];
    uint32_t l = s->aLen[i];
    memcpy(o->p + aNb[i % k], src, l);
    o->aLen[i / k] = l, aNb[i % k] += l, src += l;
  }
  cairnFree(aNb);
  return rc;
}

/* 63: bitSplit, numeric parts -> numeric of header[0] bytes: value = OR of part i shifted by
** the widths before it; header bytes 1.. = the widths (a last part without width takes the
** rest of the value) */
TRDEC(decBitSplit) {
  (void)nOut;
  if (nh < 1) return BAD("zl: bitSplit without header");
  unsigned ow = h[0];
  if (!isIntWidth(ow)) return BAD("zl: bitSplit into %u-byte values", ow);
  size_t nW = nh - 1;
  unsigned sum = 0;
  uint8_t aW[65];
  if (nW > 64) return BAD("zl: bitSplit of %zu widths", nW);
  for (size_t i = 0; i < nW; i++) {
    if (!h[1 + i]) return BAD("zl: bitSplit width 0");
    sum += aW[i] = h[1 + i];
  }
  if (sum > 8 * ow) return BAD("zl: bitSplit widths of %u bits for %u-byte values", sum, ow);
  if (nIn == nW + 1) {
    if (sum == 8 * ow) return BAD("zl: bitSplit last part of 0 bits");
    aW[nW++] = (uint8_t)(8 * ow - sum);
  } else if (nIn != nW) return BAD("zl: bitSplit of %zu parts for %zu widths", nIn, nW);
  if (nW == 0) return BAD("zl: bitSplit without parts");
  size_t n = in[0]->n;
  for (size_t i = 0; i < nW; i++) {
    unsigned w = aW[i], want = w <= 8 ? 1 : w <= 16 ? 2 : w <= 32 ? 4 : 8;
    if (in[i]->n != n || in[i]->width != want) return BAD("zl: bitSplit part %zu: %zu values of %u bytes", i, in[i]->n, in[i]->width);
  }
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_NUMERIC, ow, n));
  for (size_t e = 0; e < n; e++) {
    uint64_t v = 0;
    for (size_t i = 0, pos = 0; i < nW; pos += aW[i], i++) v |= rdN(in[i]->p + e * in[i]->width, in[i]->width) << pos;
    wrN(out[0]->p + e * ow, v, ow);
  }
  return CAIRN_OK;
}

#if defined(__clang__)
#pragma clang attribute pop
#endif

#define S ZT_SERIAL
#define T ZT_STRUCT
#define N ZT_NUMERIC
#define Z ZT_STRING
const ZlTransform cairnZlMoreTransforms[] = {
    {ZID_TRANSPOSE, 1, 0, 1, {T}, T, decTranspose, "transpose"},
    {ZID_BITUNPACK, 1, 0, 1, {N}, S, decBitunpack, "bitunpack"},
    {ZID_DISPATCHN_BYTAG, 2, 1, 1, {N, N, S}, S, decDispatchNByTag, "dispatchN_byTag"},
    {ZID_MERGE_SORTED, 2, 0, 1, {N, N}, N, decMergeSorted, "merge_sorted"},
    {ZID_PREFIX, 2, 0, 1, {Z, N}, Z, decPrefix, "prefix"},
    {ZID_CONCAT_STRING, 2, 0, 0, {N, Z}, Z, decConcatString, "concat_string"},
    {ZID_INTERLEAVE_STRING, 1, 0, 0, {Z}, Z, decInterleaveString, "interleave_string"},
    {ZID_BITSPLIT, 0, 1, 1, {N}, N, decBitSplit, "bitSplit"},
    {0, 0, 0, 0, {0}, 0, NULL, NULL},
};
