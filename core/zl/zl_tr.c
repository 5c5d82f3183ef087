/*
** 2026-11-29
**
** core/zl/zl_tr.c - the decoders of OpenZL's standard transforms (format 26): conversions
** between serial/struct/numeric/string, delta, zigzag, transpose splits, bitpack, flatpack,
** constant, tokenize, range_pack, splitN, zstd, lz4, concat. Each checks its inputs against
** its codec header and allocates only through cairnZlNewStream (bounded by the frame budget).
** The string transforms dispatch_string and parse_int are in zl_tr_str.c; the entropy
** coders and LZ codecs in zl_ent.c and zl_lz.c.
*/
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zstd_errors.h>

#include "zl/zl_int.h"
#include "codec/lz4.h"

#define TRDEC(name) static ZL_TRDEC(name)

/* Output that reuses the input's bytes (a retyping): an owned input hands its buffer over (the
** input is freed right after the decoder anyway); a borrowed one (a stored stream) is copied. */
static int retype(ZlDec *d, ZlStream *o, ZlStream *s, uint8_t type, uint32_t width) {
  if (width == 0 || s->nb % width) return BAD("zl: %zu bytes are not a whole number of %u-byte elements", s->nb, width);
  if ((s->own || (s->p && s->p == cairnZlDirectDst(d))) && !s->aLen) {
    /* owned: the buffer and its budget move over; direct: both alias the caller's buffer */
    int own = s->own;
    memset(o, 0, sizeof *o);
    o->type = type, o->width = width, o->n = s->nb / width, o->nb = s->nb, o->p = s->p, o->own = (uint8_t)own;
    s->p = NULL, s->own = 0, s->nb = 0;
    return CAIRN_OK;
  }
  CAIRN_TRY(cairnZlNewStream(d, o, type, width, s->nb / width));
  memcpy(o->p, s->p, s->nb);
  return CAIRN_OK;
}

/* 10: serial -> numeric of 1<<h[0] bytes */
TRDEC(decNumToSerial) {
  if (nh != 1 || h[0] > 3) return BAD("zl: num_to_serial header must be one byte 0..3");
  return retype(d, out[0], in[0], ZT_NUMERIC, 1u << h[0]);
}
/* 9: numeric -> serial */
TRDEC(decSerialToNum) { return retype(d, out[0], in[0], ZT_SERIAL, 1); }
/* 14: numeric -> serial, big-endian */
TRDEC(decSerialToNumBE) {
  const ZlStream *s = in[0];
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_SERIAL, 1, s->nb));
  for (size_t i = 0; i < s->n; i++)
    for (uint32_t k = 0; k < s->width; k++) out[0]->p[i * s->width + k] = s->p[i * s->width + s->width - 1 - k];
  return CAIRN_OK;
}
/* 6: serial -> struct of varint width */
TRDEC(decStructToSerial) {
  uint64_t w;
  if (!nh || zlVarGet(h, h + nh, &w) != nh || w == 0 || w > 0xffffffu) return BAD("zl: bad struct width header");
  return retype(d, out[0], in[0], ZT_STRUCT, (uint32_t)w);
}
/* 5: struct -> serial */
TRDEC(decSerialToStruct) { return retype(d, out[0], in[0], ZT_SERIAL, 1); }
/* 7: numeric -> struct */
TRDEC(decStructToNum) { return retype(d, out[0], in[0], ZT_STRUCT, in[0]->width); }
/* 13: numeric -> struct, big-endian */
TRDEC(decStructToNumBE) {
  const ZlStream *s = in[0];
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_STRUCT, s->width, s->n));
  for (size_t i = 0; i < s->n; i++)
    for (uint32_t k = 0; k < s->width; k++) out[0]->p[i * s->width + k] = s->p[i * s->width + s->width - 1 - k];
  return CAIRN_OK;
}
/* 8: struct of 1/2/4/8 bytes -> numeric */
TRDEC(decNumToStruct) {
  if (!isIntWidth(in[0]->width)) return BAD("zl: num_to_struct on %u-byte records", in[0]->width);
  return retype(d, out[0], in[0], ZT_NUMERIC, in[0]->width);
}
/* 11: string -> serial (drop the lengths; an owned content buffer, or the caller's buffer the
** string was written into, is handed over) */
TRDEC(decSerialString) {
  ZlStream *s = in[0], *o = out[0];
  if (!s->own && (!s->p || s->p != cairnZlDirectDst(d))) return retype(d, o, s, ZT_SERIAL, 1);
  memset(o, 0, sizeof *o);
  o->type = ZT_SERIAL, o->width = 1, o->n = o->nb = s->nb, o->p = s->p, o->own = s->own;
  s->own = 0, s->p = NULL; /* the content's budget moves to o; the lengths are freed with s */
  return CAIRN_OK;
}
/* 12: (serial content, numeric lengths) -> string */
TRDEC(decSeparateString) {
  ZlStream *c = in[0], *l = in[1];
  ZlStream *o = out[0];
  uint64_t sum = 0;
  CAIRN_TRY(retype(d, o, c, ZT_STRING, 1));
  o->n = l->n;
  CAIRN_TRY(cairnZlNewLens(d, o, l->n));
  if (l->width == 1)
    for (size_t i = 0; i < l->n; i++) o->aLen[i] = l->p[i], sum += l->p[i];
  else if (l->width == 2)
    for (size_t i = 0; i < l->n; i++) o->aLen[i] = cairnGetLE16(l->p + 2 * i), sum += o->aLen[i];
  else
    for (size_t i = 0; i < l->n; i++) {
      uint64_t v = rdN(l->p + i * l->width, l->width);
      if (v > 0xffffffffu) return BAD("zl: string length %llu too large", (unsigned long long)v);
      o->aLen[i] = (uint32_t)v, sum += v;
    }
  if (sum != o->nb) return BAD("zl: string lengths sum to %llu, content has %zu bytes", (unsigned long long)sum, o->nb);
  return CAIRN_OK;
}

/* 1: delta; header = first value (absent for an empty stream) */
/* Prefix sums of 16- and 32-bit lanes with the compiler's generic vectors (SSE2, NEON, wasm
** simd128): within 16 bytes by log-step shifted adds, then the running carry. o[i] = v + sum of
** q[0..i]; returns how many were done, *pv the last sum. Little-endian hosts only. */
#if defined(__GNUC__) && defined(__has_builtin) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#if __has_builtin(__builtin_shufflevector)
#define ZL_VEC_DELTA 1
typedef uint16_t ZlV16 __attribute__((vector_size(16)));
typedef uint32_t ZlV32 __attribute__((vector_size(16)));
static size_t deltaV16(const uint8_t *q, uint8_t *o, size_t n, uint64_t *pv) {
  ZlV16 z = {0}, x, c = z + (uint16_t)*pv;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    memcpy(&x, q + 2 * i, 16);
    x += __builtin_shufflevector(z, x, 0, 8, 9, 10, 11, 12, 13, 14);
    x += __builtin_shufflevector(z, x, 0, 1, 8, 9, 10, 11, 12, 13);
    x += __builtin_shufflevector(z, x, 0, 1, 2, 3, 8, 9, 10, 11);
    x += c;
    memcpy(o + 2 * i, &x, 16);
    c = __builtin_shufflevector(x, x, 7, 7, 7, 7, 7, 7, 7, 7);
  }
  *pv = c[0];
  return i;
}
static size_t deltaV32(const uint8_t *q, uint8_t *o, size_t n, uint64_t *pv) {
  ZlV32 z = {0}, x, c = z + (uint32_t)*pv;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    memcpy(&x, q + 4 * i, 16);
    x += __builtin_shufflevector(z, x, 0, 4, 5, 6);
    x += __builtin_shufflevector(z, x, 0, 1, 4, 5);
    x += c;
    memcpy(o + 4 * i, &x, 16);
    c = __builtin_shufflevector(x, x, 3, 3, 3, 3);
  }
  *pv = c[0];
  return i;
}
#endif
#endif

TRDEC(decDelta) {
  const ZlStream *s = in[0];
  uint32_t w = s->width;
  if (nh == 0) {
    if (s->n) return BAD("zl: delta without first value but %zu deltas", s->n);
    return cairnZlNewStream(d, out[0], ZT_NUMERIC, w, 0);
  }
  if (nh != w) return BAD("zl: delta header of %zu bytes for %u-byte integers", nh, w);
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_NUMERIC, w, s->n + 1));
  uint8_t *o = out[0]->p;
  uint64_t mask = w == 8 ? ~0ull : (1ull << (8 * w)) - 1, v = rdN(h, w);
  wrN(o, v, w);
  const uint8_t *q = s->p;
  size_t n = s->n;
  size_t i0 = 0;
#ifdef ZL_VEC_DELTA
  if (w == 2) i0 = deltaV16(q, o + 2, n, &v);
  if (w == 4) i0 = deltaV32(q, o + 4, n, &v);
#endif
  switch (w) { /* fixed widths let the compiler keep v in a register */
    case 1: for (size_t i = 0; i < n; i++) v += q[i], o[i + 1] = (uint8_t)v; break;
    case 2: for (size_t i = i0; i < n; i++) v += cairnGetLE16(q + 2 * i), cairnPutLE16(o + 2 * (i + 1), (uint16_t)v); break;
    case 4: for (size_t i = i0; i < n; i++) v += cairnGetLE32(q + 4 * i), cairnPutLE32(o + 4 * (i + 1), (uint32_t)v); break;
    case 8: for (size_t i = 0; i < n; i++) v += cairnGetLE64(q + 8 * i), cairnPutLE64(o + 8 * (i + 1), v); break;
    default: for (size_t i = 0; i < n; i++) v = (v + rdN(q + i * w, w)) & mask, wrN(o + (i + 1) * w, v, w);
  }
  return CAIRN_OK;
}
/* 3: zigzag */
TRDEC(decZigzag) {
  const ZlStream *s = in[0];
  uint32_t w = s->width;
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_NUMERIC, w, s->n));
  const uint8_t *p = s->p;
  uint8_t *o = out[0]->p;
  size_t n = s->n;
  switch (w) {
    case 2: for (size_t i = 0; i < n; i++) { uint32_t v = cairnGetLE16(p + 2 * i); cairnPutLE16(o + 2 * i, (uint16_t)((v >> 1) ^ (0u - (v & 1)))); } break;
    case 4: for (size_t i = 0; i < n; i++) { uint32_t v = cairnGetLE32(p + 4 * i); cairnPutLE32(o + 4 * i, (v >> 1) ^ (0u - (v & 1))); } break;
    case 8: for (size_t i = 0; i < n; i++) { uint64_t v = cairnGetLE64(p + 8 * i); cairnPutLE64(o + 8 * i, (v >> 1) ^ (0ull - (v & 1))); } break;
    default:
      for (size_t i = 0; i < n; i++) {
        uint64_t v = rdN(p + i * w, w);
        wrN(o + i * w, (v >> 1) ^ (0 - (v & 1)), w);
      }
  }
  return CAIRN_OK;
}

/* out[i*W+k] = in[k][i] */
static int untranspose(ZlDec *d, ZlStream **in, size_t w, ZlStream *o) {
  if (w == 0) return BAD("zl: transpose_split without inputs");
  size_t n = in[0]->n;
  for (size_t k = 1; k < w; k++)
    if (in[k]->n != n) return BAD("zl: transpose_split inputs differ in size (%zu vs %zu)", in[k]->n, n);
  if (w > 0xffffffu) return BAD("zl: transpose_split of %zu streams", w);
  CAIRN_TRY(cairnZlNewStream(d, o, ZT_STRUCT, (uint32_t)w, n));
  uint8_t *q = o->p;
  if (w == 2) {
    const uint8_t *a = in[0]->p, *b = in[1]->p;
    for (size_t i = 0; i < n; i++) cairnPutLE16(q + 2 * i, (uint16_t)(a[i] | (b[i] << 8)));
  } else if (w == 4) {
    const uint8_t *a = in[0]->p, *b = in[1]->p, *c = in[2]->p, *e = in[3]->p;
    for (size_t i = 0; i < n; i++)
      cairnPutLE32(q + 4 * i, (uint32_t)a[i] | ((uint32_t)b[i] << 8) | ((uint32_t)c[i] << 16) | ((uint32_t)e[i] << 24));
  } else if (w == 8) {
    const uint8_t *a[8];
    for (int k = 0; k < 8; k++) a[k] = in[k]->p;
    for (size_t i = 0; i < n; i++) {
      uint64_t v = 0;
      for (int k = 0; k < 8; k++) v |= (uint64_t)a[k][i] << (8 * k);
      cairnPutLE64(q + 8 * i, v);
    }
  } else {
    for (size_t k = 0; k < w; k++) {
      const uint8_t *p = in[k]->p;
      uint8_t *r = q + k;
      for (size_t i = 0; i < n; i++, r += w) *r = p[i];
    }
  }
  return CAIRN_OK;
}
TRDEC(decTransposeSplit) { return untranspose(d, in, nIn, out[0]); }

/* 27/28: bitpack; header byte = log2(width)<<6 | (nbBits-1), optional byte = unused tail */
static int bitpack(ZlDec *d, const uint8_t *h, size_t nh, const ZlStream *s, ZlStream *o, uint8_t type) {
  if (nh < 1 || nh > 2) return BAD("zl: bitpack header of %zu bytes", nh);
  uint32_t w = 1u << (h[0] >> 6), nb = 1 + (h[0] & 63);
  if (nb > 8 * w || (type == ZT_SERIAL && w != 1)) return BAD("zl: bitpack of %u bits into %u bytes", nb, w);
  size_t maxN = (s->nb * 8) / nb, extra = nh > 1 ? h[1] : 0;
  if (extra > maxN) return BAD("zl: bitpack tail of %zu elements beyond %zu", extra, maxN);
  size_t n = maxN - extra;
  if ((n * nb + 7) / 8 != s->nb) return BAD("zl: bitpack of %zu values does not use all %zu bytes", n, s->nb);
  CAIRN_TRY(cairnZlNewStream(d, o, type, w, n));
  const uint8_t *p = s->p;
  uint64_t acc = 0, mask = nb == 64 ? ~0ull : (1ull << nb) - 1;
  int have = 0;
  size_t ip = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t v;
    if (nb <= 56) {
      while (have < (int)nb) acc |= (uint64_t)p[ip++] << have, have += 8;
      v = acc & mask, acc >>= nb, have -= nb;
    } else { /* 57..64 bits: two steps */
      uint64_t lo, hi;
      while (have < 32) acc |= (uint64_t)p[ip++] << have, have += 8;
      lo = acc & 0xffffffffu, acc >>= 32, have -= 32;
      unsigned r = nb - 32;
      while (have < (int)r) acc |= (uint64_t)p[ip++] << have, have += 8;
      hi = acc & ((1ull << r) - 1), acc >>= r, have -= r;
      v = lo | (hi << 32);
    }
    wrN(o->p + i * w, v, w);
  }
  return CAIRN_OK;
}
TRDEC(decBitpackInt) { return bitpack(d, h, nh, in[0], out[0], ZT_NUMERIC); }
TRDEC(decBitpackSerial) { return bitpack(d, h, nh, in[0], out[0], ZT_SERIAL); }

/* 29: flatpack (alphabet, packed indices with a terminating 1 bit) */
TRDEC(decFlatpack) {
  const ZlStream *a = in[0], *k = in[1];
  if (a->n > 256) return BAD("zl: flatpack alphabet of %zu symbols", a->n);
  if (k->nb == 0 || a->n == 0) return cairnZlNewStream(d, out[0], ZT_SERIAL, 1, 0);
  unsigned nb = a->n <= 1 ? (unsigned)a->n : (unsigned)zlBitsFor(a->n);
  unsigned last = k->p[k->nb - 1];
  if (!last) return BAD("zl: flatpack stream has no end marker");
  size_t pad = 8 - (31 - __builtin_clz(last)); /* zero bits above the marker, plus the marker */
  size_t n = (8 * k->nb - pad) / nb;
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_SERIAL, 1, n));
  uint64_t acc = 0;
  int have = 0;
  const uint8_t *p = k->p;
  for (size_t i = 0; i < n; i++) {
    if (have < (int)nb) acc |= (uint64_t)*p++ << have, have += 8;
    unsigned ix = (unsigned)(acc & ((1u << nb) - 1));
    if (ix >= a->n) return BAD("zl: flatpack index %u beyond alphabet of %zu", ix, a->n);
    out[0]->p[i] = a->p[ix];
    acc >>= nb, have -= nb;
  }
  return CAIRN_OK;
}

/* 44/45: constant; header varint count, input one element */
TRDEC(decConstant) {
  const ZlStream *s = in[0];
  uint64_t n;
  if (!nh || zlVarGet(h, h + nh, &n) != nh || n == 0) return BAD("zl: bad constant header");
  if (s->n != 1) return BAD("zl: constant input holds %zu elements, not 1", s->n);
  CAIRN_TRY(cairnZlNewStream(d, out[0], s->type, s->width, (size_t)n));
  uint8_t *o = out[0]->p;
  size_t nb = out[0]->nb;
  if (s->width == 1) memset(o, s->p[0], nb);
  else { /* one element, then copies of what is written, doubling */
    memcpy(o, s->p, s->width);
    for (size_t k = s->width; k < nb; k *= 2) memcpy(o + k, o, CAIRN_MIN(k, nb - k));
  }
  return CAIRN_OK;
}

/* 36/37: tokenize (alphabet, indices) */
static int tokenize(ZlDec *d, ZlStream **in, ZlStream *o, uint8_t type) {
  const ZlStream *a = in[0], *k = in[1];
  CAIRN_TRY(cairnZlNewStream(d, o, type, a->width, k->n));
  for (size_t i = 0; i < k->n; i++) {
    uint64_t ix = rdN(k->p + i * k->width, k->width);
    if (ix >= a->n) return BAD("zl: token index %llu beyond alphabet of %zu", (unsigned long long)ix, a->n);
    memcpy(o->p + i * a->width, a->p + ix * a->width, a->width);
  }
  return CAIRN_OK;
}
TRDEC(decTokenizeFixed) { return tokenize(d, in, out[0], ZT_STRUCT); }
TRDEC(decTokenizeNum) { return tokenize(d, in, out[0], ZT_NUMERIC); }
/* 38: tokenize strings: alphabet (a string stream), indices. Sizes first (the output is
** allocated exactly), then each string copied as a 16- or 32-byte block where the alphabet has
** slack and the output has room (see dispatch_string), else exactly. */
TRDEC(decTokenizeString) {
  const ZlStream *a = in[0], *k = in[1];
  size_t na = a->n, n = k->n;
  unsigned iw = k->width;
  const uint8_t *kp = k->p;
  uint64_t *aOff = cairnMalloc(sizeof(uint64_t) * (na + 1)), total = 0;
  if (!aOff) return cairnErr(CAIRN_NOMEM, "zl: out of memory");
  aOff[0] = 0;
  for (size_t i = 0; i < na; i++) aOff[i + 1] = aOff[i] + a->aLen[i];
  int rc = CAIRN_OK;
  const uint32_t *aL = a->aLen;
#define TOK_IX(i) (iw == 1 ? kp[i] : iw == 2 ? cairnGetLE16(kp + 2 * (i)) : rdN(kp + (size_t)(i) * iw, iw))
  uint64_t bad = 0;
  /* 1- and 2-byte indices (the usual case) get loops of their own: a 16-bit read, masked (an
  ** owned index stream has slack for the last one) */
  int small = (iw == 1 || iw == 2) && k->own, unsized = cairnZlFuse(d) == 2 && na > 0;
  unsigned mask = iw == 1 ? 0xffu : 0xffffu;
  if (unsized) /* dispatch_string checks the indices as it reads them */
    ;
  else if (small)
    for (size_t i = 0; i < n; i++) {
      unsigned ix = cairnGetLE16(kp + i * iw) & mask;
      bad |= ix >= na, total += aL[ix < na ? ix : 0];
    }
  else
    for (size_t i = 0; i < n; i++) {
      uint64_t ix = TOK_IX(i);
      bad |= ix >= na, total += aL[ix < na ? ix : 0];
    }
  if (na == 0) bad = n > 0;
  if (bad) rc = BAD("zl: token index beyond alphabet of %zu", na);
  else if (total > SIZE_MAX / 2) rc = BAD("zl: tokenized strings too large");
  if (!rc && cairnZlFuse(d)) { /* indices only: dispatch_string copies the strings */
    ZlStream *o = out[0];
    o->type = ZT_STRING, o->width = 1, o->n = n, o->nb = (size_t)total, o->lazy = iw == 1 ? 2 : iw == 2 ? 3 : 4;
    for (size_t i = 0; i < na; i++) aOff[i] += (uintptr_t)a->p; /* addresses: one add less per string */
    o->lzSrc = kp, o->lzW = (uint8_t)iw, o->lzLen = aL, o->lzSlack = a->own, o->lzOff = aOff, aOff = NULL;
    o->lzUnsized = (uint8_t)unsized, o->lzN = na;
    goto fin;
  }
  if (!rc) rc = cairnZlNewStream(d, out[0], ZT_STRING, 1, (size_t)total);
  if (!rc) {
    out[0]->n = n;
    rc = cairnZlNewLens(d, out[0], n);
  }
  if (!rc) {
    uint8_t *o = out[0]->p;
    uint32_t *oLen = out[0]->aLen;
    const uint8_t *ap = a->p;
    size_t nFast = a->own ? n : 0;
    if (a->own && !out[0]->own) { /* the caller's buffer: no block stores within 32 bytes of its end */
      uint64_t after = 0;
      size_t j = n;
      while (j > 0 && after < 32) j--, after += aL[TOK_IX(j)];
      nFast = after >= 32 ? j + 1 : 0;
    }
    size_t i = 0;
    if (small)
      for (; i < nFast; i++) {
        unsigned ix = cairnGetLE16(kp + i * iw) & mask;
        uint32_t len = aL[ix];
        const uint8_t *q = ap + aOff[ix];
        if (len <= 32) memcpy(o, q, 32);
        else memcpy(o, q, len);
        o += len, oLen[i] = len;
      }
    for (; i < n; i++) {
      uint64_t ix = TOK_IX(i);
      uint32_t len = aL[ix];
      const uint8_t *q = ap + aOff[ix];
      if (len <= 32 && i < nFast) memcpy(o, q, 32);
      else memcpy(o, q, len);
      o += len, oLen[i] = len;
    }
  }
fin:
#undef TOK_IX
  cairnFree(aOff);
  return rc;
}

/* 35: range_pack; header = dst width [+ minimum value] */
TRDEC(decRangePack) {
  const ZlStream *s = in[0];
  if (nh < 1 || !isIntWidth(h[0]) || h[0] < s->width || (nh > 1 && nh != 1u + h[0])) return BAD("zl: bad range_pack header");
  uint32_t w = h[0];
  uint64_t lo = nh > 1 ? rdN(h + 1, w) : 0;
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_NUMERIC, w, s->n));
  for (size_t i = 0; i < s->n; i++) wrN(out[0]->p + i * w, rdN(s->p + i * s->width, s->width) + lo, w);
  return CAIRN_OK;
}

/* 40/47/48: splitN (concatenation of its variable inputs) */
TRDEC(decSplitN) {
  uint32_t w = 1;
  uint8_t type = nIn ? in[0]->type : ZT_SERIAL;
  if (nIn) w = in[0]->width;
  else if (nh) {
    uint64_t v;
    if (zlVarGet(h, h + nh, &v) != nh || v == 0 || v > 0xffffffu) return BAD("zl: bad splitN header");
    w = (uint32_t)v;
  }
  size_t n = 0;
  for (size_t i = 0; i < nIn; i++) {
    if (in[i]->type != type || in[i]->width != w) return BAD("zl: splitN inputs differ in type or width");
    n += in[i]->n;
  }
  CAIRN_TRY(cairnZlNewStream(d, out[0], type, w, n));
  for (size_t i = 0, pos = 0; i < nIn; i++) memcpy(out[0]->p + pos, in[i]->p, in[i]->nb), pos += in[i]->nb;
  return CAIRN_OK;
}


/* 55/57/58: concat (sizes, concatenated elements) -> one stream per size */
TRDEC(decConcat) {
  const ZlStream *sz = in[0], *all = in[1];
  if (sz->n != nOut) return BAD("zl: concat with %zu sizes regenerates %zu streams", sz->n, nOut);
  uint64_t sum = 0;
  for (size_t k = 0; k < sz->n; k++) sum += rdN(sz->p + k * sz->width, sz->width);
  if (sum != all->n) return BAD("zl: concat sizes sum to %llu, the input holds %zu elements", (unsigned long long)sum, all->n);
  size_t pos = 0;
  for (size_t k = 0; k < nOut; k++) {
    size_t m = (size_t)rdN(sz->p + k * sz->width, sz->width);
    CAIRN_TRY(cairnZlNewStream(d, out[k], all->type, all->width, m));
    memcpy(out[k]->p, all->p + pos * all->width, m * all->width), pos += m;
  }
  return CAIRN_OK;
}

/* 41: split_by_struct (fields as variable struct inputs) -> serial records */
TRDEC(decSplitByStruct) {
  if (nIn == 0) return BAD("zl: split_by_struct without fields");
  size_t n = in[0]->n, rec = 0;
  for (size_t k = 0; k < nIn; k++) {
    if (in[k]->n != n) return BAD("zl: split_by_struct fields differ in length");
    rec += in[k]->width;
  }
  uint64_t total;
  if (cairnMulOverflow64(n, rec, &total) || total > SIZE_MAX / 2) return BAD("zl: split_by_struct output too large");
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_SERIAL, 1, (size_t)total));
  uint8_t *o = out[0]->p;
  for (size_t k = 0, off = 0; k < nIn; k++) {
    uint32_t w = in[k]->width;
    const uint8_t *q = in[k]->p;
    for (size_t i = 0; i < n; i++) memcpy(o + i * rec + off, q + i * w, w);
    off += w;
  }
  return CAIRN_OK;
}

/* 33: float_deconstruct (sign+fraction records, exponent bytes) -> floats; header = kind */
TRDEC(decFloatDeconstruct) {
  const ZlStream *sf = in[0], *ex = in[1];
  if (nh != 1 || h[0] > 2) return BAD("zl: bad float_deconstruct header");
  static const uint8_t kSf[3] = {3, 1, 2}, kOut[3] = {4, 2, 2}, kFrac[3] = {23, 7, 10}, kExp[3] = {8, 8, 5};
  unsigned k = h[0];
  if (sf->width != kSf[k] || sf->n != ex->n) return BAD("zl: float_deconstruct streams (%u-byte, %zu vs %zu)", sf->width, sf->n, ex->n);
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_NUMERIC, kOut[k], sf->n));
  for (size_t i = 0; i < sf->n; i++) {
    uint32_t v = (uint32_t)rdN(sf->p + i * kSf[k], kSf[k]), e = ex->p[i];
    if ((v >> (kFrac[k] + 1)) || (e >> kExp[k])) return BAD("zl: float_deconstruct element %zu has unused bits set", i);
    uint32_t r = ((v & 1) << (kFrac[k] + kExp[k])) | (e << kFrac[k]) | (v >> 1);
    wrN(out[0]->p + i * kOut[k], r, kOut[k]);
  }
  return CAIRN_OK;
}

/* 53: divide_by; header = varint divisor */
TRDEC(decDivideBy) {
  const ZlStream *s = in[0];
  uint64_t dv;
  if (!nh || zlVarGet(h, h + nh, &dv) != nh || dv == 0) return BAD("zl: bad divide_by header");
  uint32_t w = s->width;
  uint64_t mx = w == 8 ? ~0ull : (1ull << (8 * w)) - 1;
  if (dv > mx) return BAD("zl: divide_by divisor %llu too large", (unsigned long long)dv);
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_NUMERIC, w, s->n));
  for (size_t i = 0; i < s->n; i++) {
    uint64_t v = rdN(s->p + i * w, w), r;
    if (cairnMulOverflow64(v, dv, &r) || r > mx) return BAD("zl: divide_by element %zu overflows", i);
    wrN(out[0]->p + i * w, r, w);
  }
  return CAIRN_OK;
}

/* 56: dedup_num: one numeric input, regenerated as every output */
TRDEC(decDedupNum) {
  for (size_t k = 0; k < nOut; k++) {
    CAIRN_TRY(cairnZlNewStream(d, out[k], ZT_NUMERIC, in[0]->width, in[0]->n));
    memcpy(out[k]->p, in[0]->p, in[0]->nb);
  }
  return CAIRN_OK;
}

/* 22: zstd; input = varint(element width) + magicless zstd frame with its content size */
TRDEC(decZstd) {
  const ZlStream *s = in[0];
  uint64_t w;
  size_t k = zlVarGet(s->p, s->p + s->nb, &w);
  if (!k || w == 0 || w > 0xffffffu) return BAD("zl: bad zstd element width");
  ZSTD_frameHeader zh;
  if (ZSTD_getFrameHeader_advanced(&zh, s->p + k, s->nb - k, ZSTD_f_zstd1_magicless) != 0 ||
      zh.frameContentSize == ZSTD_CONTENTSIZE_UNKNOWN || zh.frameContentSize == ZSTD_CONTENTSIZE_ERROR ||
      zh.frameContentSize % w)
    return BAD("zl: bad zstd frame header");
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_SERIAL, (uint32_t)w, (size_t)(zh.frameContentSize / w)));
  ZSTD_DCtx *z = cairnZlZstdDCtx(d);
  if (!z) return cairnErr(CAIRN_NOMEM, "zl: out of memory for zstd");
  size_t r = ZSTD_decompressDCtx(z, out[0]->p, out[0]->nb, s->p + k, s->nb - k);
  if (ZSTD_isError(r) && ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation)
    return cairnErr(CAIRN_NOMEM, "zl: zstd: %s", ZSTD_getErrorName(r));
  if (ZSTD_isError(r) || r != out[0]->nb) return BAD("zl: zstd stream: %s", ZSTD_isError(r) ? ZSTD_getErrorName(r) : "short");
  return CAIRN_OK;
}

/* 62: lz4 block; header varint decoded size */
TRDEC(decLz4) {
  uint64_t n;
  if (!nh || zlVarGet(h, h + nh, &n) != nh || n > 0x7fffffff) return BAD("zl: bad lz4 header");
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_SERIAL, 1, (size_t)n));
  size_t got;
  if (cairnLz4Decompress(in[0]->p, in[0]->nb, out[0]->p, (size_t)n, &got) != CAIRN_OK || got != (size_t)n)
    return BAD("zl: corrupt lz4 block");
  return CAIRN_OK;
}

extern const ZlTransform cairnZlEntropyTransforms[], cairnZlLzTransforms[], cairnZlMoreTransforms[];
#define S ZT_SERIAL
#define T ZT_STRUCT
#define N ZT_NUMERIC
#define Z ZT_STRING
static const ZlTransform kTr[] = {
    {ZID_DELTA, 1, 0, 1, {N}, N, decDelta, "delta"},
    {ZID_ZIGZAG, 1, 0, 1, {N}, N, decZigzag, "zigzag"},
    {ZID_TRANSPOSE_SPLIT, 0, 1, 1, {S}, T, decTransposeSplit, "transpose_split"},
    {ZID_SERIAL_TO_STRUCT, 1, 0, 1, {T}, S, decSerialToStruct, "convert_serial_to_struct"},
    {ZID_STRUCT_TO_SERIAL, 1, 0, 1, {S}, T, decStructToSerial, "convert_struct_to_serial"},
    {ZID_STRUCT_TO_NUM, 1, 0, 1, {N}, T, decStructToNum, "convert_struct_to_num_le"},
    {ZID_NUM_TO_STRUCT, 1, 0, 1, {T}, N, decNumToStruct, "convert_num_to_struct_le"},
    {ZID_SERIAL_TO_NUM, 1, 0, 1, {N}, S, decSerialToNum, "convert_serial_to_num_le"},
    {ZID_NUM_TO_SERIAL, 1, 0, 1, {S}, N, decNumToSerial, "convert_num_to_serial_le"},
    {ZID_SERIAL_STRING, 1, 0, 1, {Z}, S, decSerialString, "convert_serial_string"},
    {ZID_SEPARATE_STRING, 2, 0, 1, {S, N}, Z, decSeparateString, "separate_string_components"},
    {ZID_STRUCT_TO_NUM_BE, 1, 0, 1, {N}, T, decStructToNumBE, "convert_struct_to_num_be"},
    {ZID_SERIAL_TO_NUM_BE, 1, 0, 1, {N}, S, decSerialToNumBE, "convert_serial_to_num_be"},
    {ZID_ZSTD, 1, 0, 1, {S}, S, decZstd, "zstd"},
    {ZID_BITPACK_SERIAL, 1, 0, 1, {S}, S, decBitpackSerial, "bitpack_serial"},
    {ZID_BITPACK_INT, 1, 0, 1, {S}, N, decBitpackInt, "bitpack_int"},
    {ZID_FLATPACK, 2, 0, 1, {S, S}, S, decFlatpack, "flatpack"},
    {ZID_TSPLIT2, 2, 0, 1, {S, S}, T, decTransposeSplit, "transpose_split2"},
    {ZID_TSPLIT4, 4, 0, 1, {S, S, S, S}, T, decTransposeSplit, "transpose_split4"},
    {ZID_TSPLIT8, 8, 0, 1, {S, S, S, S, S, S, S, S}, T, decTransposeSplit, "transpose_split8"},
    {ZID_RANGE_PACK, 1, 0, 1, {N}, N, decRangePack, "range_pack"},
    {ZID_TOKENIZE_FIXED, 2, 0, 1, {T, N}, T, decTokenizeFixed, "tokenize_fixed"},
    {ZID_TOKENIZE_NUM, 2, 0, 1, {N, N}, N, decTokenizeNum, "tokenize_numeric"},
    {ZID_TOKENIZE_STRING, 2, 0, 1, {Z, N}, Z, decTokenizeString, "tokenize_string"},
    {ZID_SPLITN, 0, 1, 1, {S}, S, decSplitN, "splitn"},
    {ZID_CONST_SERIAL, 1, 0, 1, {S}, S, decConstant, "constant_serial"},
    {ZID_CONST_FIXED, 1, 0, 1, {T}, T, decConstant, "constant_fixed"},
    {ZID_SPLITN_STRUCT, 0, 1, 1, {T}, T, decSplitN, "splitn_struct"},
    {ZID_SPLITN_NUM, 0, 1, 1, {N}, N, decSplitN, "splitn_num"},
    {ZID_LZ4, 1, 0, 1, {S}, S, decLz4, "lz4"},
    {ZID_FLOAT_DECONSTRUCT, 2, 0, 1, {T, S}, N, decFloatDeconstruct, "float_deconstruct"},
    {ZID_DIVIDE_BY, 1, 0, 1, {N}, N, decDivideBy, "divide_by"},
    {ZID_DEDUP_NUM, 1, 0, 0, {N}, N, decDedupNum, "dedup_num"},
    {ZID_SPLIT_BY_STRUCT, 0, 1, 1, {T}, S, decSplitByStruct, "split_by_struct"},
    {ZID_CONCAT_SERIAL, 2, 0, 0, {N, S}, S, decConcat, "concat_serial"},
    {ZID_CONCAT_NUM, 2, 0, 0, {N, N}, N, decConcat, "concat_num"},
    {ZID_CONCAT_STRUCT, 2, 0, 0, {N, T}, T, decConcat, "concat_struct"},
    {ZID_DISPATCH_STRING, 1, 1, 1, {N, Z}, Z, cairnZlDecDispatchString, "dispatch_string"},
    {ZID_PARSE_INT, 1, 0, 1, {N}, Z, cairnZlDecParseInt, "parse_int"},
};
#undef S
#undef T
#undef N
#undef Z

const ZlTransform *cairnZlTransform(unsigned id) {
  for (size_t i = 0; i < CAIRN_ARRAY_SIZE(kTr); i++)
    if (kTr[i].id == id) return &kTr[i];
  for (const ZlTransform *t = cairnZlEntropyTransforms; t->x; t++)
    if (t->id == id) return t;
  for (const ZlTransform *t = cairnZlLzTransforms; t->x; t++)
    if (t->id == id) return t;
  for (const ZlTransform *t = cairnZlMoreTransforms; t->x; t++)
    if (t->id == id) return t;
  return NULL;
}
