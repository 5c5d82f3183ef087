/*
** 2026-11-29
**
** core/zl/zl_lz.c - decoders of OpenZL's LZ stages and their helpers:
**   lz (19): (literals, offsets, literal lengths, match lengths) -> serial; header varint size
**   field_lz (24): (literal records, 16-bit tokens, offsets, extra literal lengths, extra match
**       lengths) -> records; tokens hold a 2-bit offset code (0..2 repeat offsets, 3 = next
**       offset), 4-bit literal length and 4-bit match length codes (15 = add the next extra)
**   mux_lengths (65): (mux bytes, long lengths) -> literal lengths, match lengths
**   partition (64), quantize_offsets/lengths (25/26): bucket + forward bits -> integers
**   sentinel (18): (values, exceptions) -> integers
** Every copy is checked against the output and input bounds before it happens.
*/
#include "zl/zl_int.h"

#define TRDEC(name) static ZL_TRDEC(name)

/* Overlapping-safe match copy (offset may be smaller than length). */
static void lzCopy(uint8_t *o, size_t off, size_t len) {
  const uint8_t *m = o - off;
  if (off >= len) memcpy(o, m, len);
  else if (off == 1) memset(o, m[0], len);
  else
    for (size_t i = 0; i < len; i++) o[i] = m[i];
}

/* 19: lz */
TRDEC(decLz) {
  const ZlStream *lit = in[0], *of = in[1], *ll = in[2], *ml = in[3];
  uint64_t n;
  if (!nh || zlVarGet(h, h + nh, &n) != nh) return BAD("zl: bad lz header");
  if (of->n != ll->n || of->n != ml->n) return BAD("zl: lz sequence streams differ in length");
  if (n > lit->nb + (uint64_t)ml->n * 0xffffffffu) return BAD("zl: lz size %llu not reachable", (unsigned long long)n);
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_SERIAL, 1, (size_t)n));
  uint8_t *o = out[0]->p;
  size_t op = 0, lp = 0;
  for (size_t i = 0; i < of->n; i++) {
    uint64_t l = rdN(ll->p + i * ll->width, ll->width), m = rdN(ml->p + i * ml->width, ml->width),
             off = rdN(of->p + i * of->width, of->width);
    if (l > lit->nb - lp || l > n - op) return BAD("zl: lz literal run beyond its streams (sequence %zu)", i);
    memcpy(o + op, lit->p + lp, (size_t)l), op += (size_t)l, lp += (size_t)l;
    if (off == 0 || off > op || m > n - op) return BAD("zl: lz match (offset %llu, length %llu) out of range (sequence %zu)", (unsigned long long)off, (unsigned long long)m, i);
    lzCopy(o + op, (size_t)off, (size_t)m), op += (size_t)m;
  }
  if (lit->nb - lp != n - op) return BAD("zl: lz regenerates %zu bytes, header says %llu", op + (lit->nb - lp), (unsigned long long)n);
  memcpy(o + op, lit->p + lp, lit->nb - lp);
  return CAIRN_OK;
}

/* 24: field_lz */
TRDEC(decFieldLz) {
  const ZlStream *lit = in[0], *tok = in[1], *of = in[2], *el = in[3], *em = in[4];
  uint32_t w = lit->width;
  if ((w & (w - 1)) || w > 8 || tok->width != 2 || of->width != 4 || el->width != 4 || em->width != 4)
    return BAD("zl: field_lz stream widths (%u, %u, %u, %u, %u)", w, tok->width, of->width, el->width, em->width);
  uint64_t cap;
  if (!nh || zlVarGet(h, h + nh, &cap) != nh) return BAD("zl: bad field_lz header");
  unsigned eb = (unsigned)__builtin_ctz(w);
  uint64_t capB = cap << eb;
  if (cap > (1ull << 40)) return BAD("zl: field_lz capacity of %llu records", (unsigned long long)cap);
  /* capacity counts against the frame's budget like any stream */
  ZlStream probe;
  CAIRN_TRY(cairnZlNewStream(d, &probe, ZT_STRUCT, w, (size_t)cap));
  cairnZlFreeStream(d, &probe);
  uint8_t *o = cairnMalloc(capB ? (size_t)capB : 1);
  if (!o) return cairnErr(CAIRN_NOMEM, "zl: out of memory for field_lz (%llu bytes)", (unsigned long long)capB);
  size_t op = 0, lp = 0, io = 0, il = 0, im = 0;
  uint64_t rep[3] = {1ull << eb, 2ull << eb, 4ull << eb};
  unsigned minMatch = w == 1 ? 4 : w == 2 ? 2 : 1;
  int rc = CAIRN_OK;
  for (size_t i = 0; i < tok->n && !rc; i++) {
    unsigned t = cairnGetLE16(tok->p + 2 * i), oc = t & 3, lc = (t >> 2) & 15, mc = (t >> 6) & 15;
    uint64_t off;
    if (oc == 3) {
      if (io == of->n) { rc = BAD("zl: field_lz runs out of offsets"); break; }
      off = (uint64_t)cairnGetLE32(of->p + 4 * io++) << eb;
      rep[2] = rep[1], rep[1] = rep[0], rep[0] = off;
    } else {
      off = rep[oc];
      if (oc == 1) rep[1] = rep[0], rep[0] = off;
      else if (oc == 2) rep[2] = rep[1], rep[1] = rep[0], rep[0] = off;
    }
    uint64_t ll = lc, ml = mc + minMatch;
    if (lc == 15) {
      if (il == el->n) { rc = BAD("zl: field_lz runs out of extra literal lengths"); break; }
      ll += cairnGetLE32(el->p + 4 * il++);
    }
    if (mc == 15) {
      if (im == em->n) { rc = BAD("zl: field_lz runs out of extra match lengths"); break; }
      ml += cairnGetLE32(em->p + 4 * im++);
    }
    ll <<= eb, ml <<= eb;
    if (ll + ml > capB - op) { rc = BAD("zl: field_lz output beyond its declared %llu records", (unsigned long long)cap); break; }
    if (ll > lit->nb - lp) { rc = BAD("zl: field_lz runs out of literals"); break; }
    memcpy(o + op, lit->p + lp, (size_t)ll), op += (size_t)ll, lp += (size_t)ll;
    if (off == 0 || off > op) { rc = BAD("zl: field_lz offset %llu beyond %zu bytes", (unsigned long long)off, op); break; }
    lzCopy(o + op, (size_t)off, (size_t)ml), op += (size_t)ml;
  }
  if (!rc && lit->nb - lp > capB - op) rc = BAD("zl: field_lz last literals overflow");
  if (!rc) memcpy(o + op, lit->p + lp, lit->nb - lp), op += lit->nb - lp;
  if (!rc && (io != of->n || il != el->n || im != em->n)) rc = BAD("zl: field_lz leaves offsets or lengths unused");
  if (!rc) rc = cairnZlNewStream(d, out[0], ZT_STRUCT, w, op >> eb);
  if (!rc) memcpy(out[0]->p, o, op);
  cairnFree(o);
  return rc;
}

/* 65: mux_lengths */
TRDEC(decMuxLengths) {
  const ZlStream *mx = in[0], *lg = in[1];
  if (nh != 1 || (h[0] & 15) > 8) return BAD("zl: bad mux_lengths header");
  unsigned split = h[0] & 15, bias = h[0] >> 4;
  uint32_t w = lg->width;
  uint64_t llMask = (1u << split) - 1, mlMax = bias + (1u << (8 - split)) - 1, wmask = w == 8 ? ~0ull : (1ull << (8 * w)) - 1;
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_NUMERIC, w, mx->n));
  CAIRN_TRY(cairnZlNewStream(d, out[1], ZT_NUMERIC, w, mx->n));
  size_t k = 0;
  for (size_t i = 0; i < mx->n; i++) {
    unsigned b = mx->p[i];
    uint64_t ll = b & llMask, ml = bias + (split == 8 ? 0 : (b >> split));
    if (ll == llMask) {
      if (k == lg->n) return BAD("zl: mux_lengths runs out of long lengths");
      ll = (ll + rdN(lg->p + w * k++, w)) & wmask;
    }
    if (ml == mlMax) {
      if (k == lg->n) return BAD("zl: mux_lengths runs out of long lengths");
      ml = (ml + rdN(lg->p + w * k++, w)) & wmask;
    }
    cairnPutLEn(out[0]->p + w * i, ll, w), cairnPutLEn(out[1]->p + w * i, ml & wmask, w);
  }
  if (k != lg->n) return BAD("zl: mux_lengths leaves %zu long lengths unused", lg->n - k);
  return CAIRN_OK;
}

/* Partitions: value = base[bucket] + next bits[bucket] bits of a forward LSB-first stream. */
static int partitionRun(ZlDec *d, const ZlStream *bk, const ZlStream *bits, const uint64_t *base, const uint8_t *nb, unsigned nPart,
                        uint32_t w, ZlStream *o) {
  if (bk->width != 1) return BAD("zl: partition buckets must be bytes");
  CAIRN_TRY(cairnZlNewStream(d, o, ZT_NUMERIC, w, bk->n));
  const uint8_t *b = bits->p;
  size_t n = bits->nb;
  uint64_t bp = 0, total = 8 * (uint64_t)n;
  for (size_t i = 0; i < bk->n; i++) {
    unsigned k = bk->p[i];
    if (k >= nPart) return BAD("zl: partition bucket %u of %u", k, nPart);
    unsigned want = nb[k];
    if (bp + want > total) return BAD("zl: partition bits exhausted at element %zu", i);
    uint64_t v = 0;
    for (unsigned got = 0; got < want;) {
      size_t by = (size_t)(bp >> 3);
      unsigned sh = (unsigned)(bp & 7), take = CAIRN_MIN(8 - sh, want - got);
      v |= (uint64_t)((b[by] >> sh) & ((1u << take) - 1)) << got;
      got += take, bp += take;
    }
    cairnPutLEn(o->p + w * i, base[k] + v, w);
  }
  if ((bp + 7) / 8 < n && n - (bp + 7) / 8 >= 8) return BAD("zl: partition leaves %zu bytes unread", n - (size_t)((bp + 7) / 8));
  return CAIRN_OK;
}
static unsigned ceilLog2(uint64_t x) { return x <= 1 ? 0 : 64 - (unsigned)__builtin_clzll(x - 1); }
static int presetParts(unsigned id, uint64_t *size, uint64_t *start) {
  unsigned n = 0;
  if (id == 0) { /* quantize offsets */
    *start = 1;
    for (unsigned k = 0; k < 32; k++) size[n++] = 1ull << k;
  } else if (id == 1) { /* quantize lengths */
    *start = 0;
    for (unsigned k = 0; k < 16; k++) size[n++] = 1;
    for (unsigned k = 4; k < 32; k++) size[n++] = 1ull << k;
  } else if (id == 2) { /* varbyte16 */
    *start = 0;
    size[n++] = 2;
    for (unsigned k = 1; k < 16; k++) size[n++] = 1ull << k;
  }
  return (int)n;
}
static int partitionDecode(ZlDec *d, ZlStream **in, ZlStream *o, const uint64_t *size, unsigned nPart, uint64_t start, uint32_t w) {
  uint64_t base[256];
  uint8_t nb[256];
  for (unsigned k = 0; k < nPart; k++) {
    base[k] = k ? base[k - 1] + size[k - 1] : start;
    nb[k] = (uint8_t)ceilLog2(size[k]);
    if (nb[k] > 8 * w) return BAD("zl: partition of %u bits for %u-byte values", nb[k], w);
  }
  return partitionRun(d, in[0], in[1], base, nb, nPart, w, o);
}
/* 64: partition */
TRDEC(decPartition) {
  if (nh < 1) return BAD("zl: empty partition header");
  unsigned f = h[0];
  uint32_t w = 1u << (f & 3);
  uint64_t size[256], start = 0;
  int nPart = 0;
  if (f & 4) {
    if (nh != 1 || (nPart = presetParts(f >> 3, size, &start)) == 0) return BAD("zl: unknown partition preset %u", f >> 3);
  } else {
    size_t i = 1;
    if (!(f & 8)) {
      size_t k = zlVarGet(h + i, h + nh, &start);
      if (!k) return BAD("zl: bad partition start value");
      i += k;
    }
    if (f & 32) { /* log2 sizes, numBits each, then a 1 bit */
      unsigned nbits = ((f >> 6) & 3) + 3;
      if (i >= nh || h[nh - 1] == 0) return BAD("zl: partition sizes without end marker");
      uint64_t payload = 8 * (uint64_t)(nh - i - 1) + (31 - __builtin_clz(h[nh - 1]));
      if (payload % nbits || payload / nbits > 256) return BAD("zl: bad partition size bits");
      nPart = (int)(payload / nbits);
      for (int k = 0; k < nPart; k++) {
        uint64_t bp = (uint64_t)k * nbits, v = 0;
        for (unsigned j = 0; j < nbits; j++, bp++) v |= (uint64_t)((h[i + (bp >> 3)] >> (bp & 7)) & 1) << j;
        if (v > 63) return BAD("zl: partition size 2^%llu", (unsigned long long)v);
        size[k] = 1ull << v;
      }
    } else {
      while (i < nh) {
        size_t k = zlVarGet(h + i, h + nh, &size[nPart]);
        if (!k || nPart == 256) return BAD("zl: bad partition sizes");
        i += k, nPart++;
      }
    }
  }
  if (nPart == 0) return BAD("zl: partition without partitions");
  return partitionDecode(d, in, out[0], size, (unsigned)nPart, start, w);
}
/* 25/26: quantize offsets / lengths (the partition presets 0 and 1, 32-bit output) */
TRDEC(decQuantOffsets) {
  uint64_t size[64], start;
  int n = presetParts(0, size, &start);
  return partitionDecode(d, in, out[0], size, (unsigned)n, start, 4);
}
TRDEC(decQuantLengths) {
  uint64_t size[64], start;
  int n = presetParts(1, size, &start);
  return partitionDecode(d, in, out[0], size, (unsigned)n, start, 4);
}

/* 18: sentinel */
TRDEC(decSentinel) {
  const ZlStream *v = in[0], *x = in[1];
  uint32_t wv = v->width, we = x->width;
  uint64_t sent = wv == 8 ? ~0ull : (1ull << (8 * wv)) - 1;
  if (wv > we) return BAD("zl: sentinel values wider than exceptions");
  if (nh) {
    if (zlVarGet(h, h + nh, &sent) != nh || (wv < 8 && sent >> (8 * wv))) return BAD("zl: bad sentinel header");
  }
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_NUMERIC, we, v->n));
  size_t k = 0;
  for (size_t i = 0; i < v->n; i++) {
    uint64_t a = rdN(v->p + wv * i, wv);
    if (a == sent) {
      if (k == x->n) return BAD("zl: sentinel runs out of exceptions");
      a = rdN(x->p + we * k++, we);
    }
    cairnPutLEn(out[0]->p + we * i, a, we);
  }
  if (k != x->n) return BAD("zl: sentinel leaves exceptions unused");
  return CAIRN_OK;
}

/* 66: sparse_num (dominant-symbol run lengths, literals); header = dominant symbol, LE */
TRDEC(decSparseNum) {
  const ZlStream *ds = in[0], *vs = in[1];
  uint32_t w = vs->width, dw = ds->width;
  if (!(w == 1 || w == 2 || w == 4 || w == 8) || !(dw == 1 || dw == 2 || dw == 4) || nh > w)
    return BAD("zl: sparse_num widths %u/%u, header %zu", dw, w, nh);
  if (ds->n != vs->n && ds->n != vs->n + 1) return BAD("zl: sparse_num with %zu distances for %zu values", ds->n, vs->n);
  uint64_t dom = nh ? cairnGetLEn(h, (unsigned)nh) : 0, total = vs->n;
  for (size_t i = 0; i < ds->n; i++)
    if (cairnAddOverflow64(total, rdN(ds->p + i * dw, dw), &total)) return BAD("zl: sparse_num size overflow");
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_NUMERIC, w, (size_t)total));
  uint8_t *o = out[0]->p;
  for (size_t i = 0; i < ds->n; i++) {
    uint64_t run = rdN(ds->p + i * dw, dw);
    for (uint64_t r = 0; r < run; r++, o += w) cairnPutLEn(o, dom, w);
    if (i < vs->n) memcpy(o, vs->p + i * w, w), o += w;
  }
  return CAIRN_OK;
}

#define S ZT_SERIAL
#define T ZT_STRUCT
#define N ZT_NUMERIC
const ZlTransform cairnZlLzTransforms[] = {
    {ZID_SPARSE_NUM, 2, 0, 1, {N, N}, N, decSparseNum, "sparse_num"},
    {ZID_LZ, 4, 0, 1, {S, N, N, N}, S, decLz, "lz"},
    {ZID_FIELD_LZ, 5, 0, 1, {T, T, N, N, N}, T, decFieldLz, "field_lz"},
    {ZID_MUX_LENGTHS, 2, 0, 2, {S, N}, N, decMuxLengths, "mux_lengths"},
    {ZID_PARTITION, 2, 0, 1, {N, S}, N, decPartition, "partition"},
    {ZID_QUANT_OFFSETS, 2, 0, 1, {N, S}, N, decQuantOffsets, "quantize_offsets"},
    {ZID_QUANT_LENGTHS, 2, 0, 1, {N, S}, N, decQuantLengths, "quantize_lengths"},
    {ZID_SENTINEL, 2, 0, 1, {N, N}, N, decSentinel, "sentinel"},
    {0, 0, 0, 0, {0}, 0, NULL, NULL},
};
