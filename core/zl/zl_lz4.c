/*
** 2026-11-29
**
** core/zl/zl_lz4.c - the LZ4 block format (no frame): a decoder that never reads or writes
** out of bounds, and a small greedy hash-chain-free encoder (one 4-byte hash table) whose
** output any LZ4 block decoder reads. Used by OpenZL's lz4 codec (wire ID 62).
**
** Block: sequences of token (literal length high nibble, match length - 4 low nibble; 15 =
** more bytes of 255s), literals, 2-byte little-endian offset, extra match length bytes. The
** last sequence has literals only; the last 5 bytes are always literals and the last match
** starts at least 12 bytes before the end.
*/
#include "zl/zl_int.h"

long cairnLz4Decode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap) {
  const uint8_t *ip = src, *ie = src + n;
  size_t op = 0;
  for (;;) {
    if (ip >= ie) return -1;
    unsigned tok = *ip++;
    size_t lit = tok >> 4;
    if (lit == 15) {
      unsigned b;
      do {
        if (ip >= ie) return -1;
        b = *ip++;
        lit += b;
      } while (b == 255);
    }
    if (lit > (size_t)(ie - ip) || lit > cap - op) return -1;
    memcpy(dst + op, ip, lit);
    ip += lit, op += lit;
    if (ip == ie) return (long)op; /* last sequence */
    if (ie - ip < 2) return -1;
    size_t off = (size_t)ip[0] | ((size_t)ip[1] << 8);
    ip += 2;
    if (off == 0 || off > op) return -1;
    size_t ml = tok & 15;
    if (ml == 15) {
      unsigned b;
      do {
        if (ip >= ie) return -1;
        b = *ip++;
        ml += b;
      } while (b == 255);
    }
    ml += 4;
    if (ml > cap - op) return -1;
    const uint8_t *m = dst + op - off;
    uint8_t *o = dst + op;
    if (off >= ml) memcpy(o, m, ml);
    else for (size_t i = 0; i < ml; i++) o[i] = m[i];
    op += ml;
  }
}

size_t zlLz4Bound(size_t n) { return n + n / 255 + 16; }

static uint8_t *lz4Len(uint8_t *o, size_t v) {
  while (v >= 255) *o++ = 255, v -= 255;
  *o++ = (uint8_t)v;
  return o;
}

#define LZ4_HLOG 14
size_t cairnLz4Encode(const uint8_t *src, size_t n, uint8_t *dst) {
  uint32_t *tab = cairnMallocZero(sizeof(uint32_t) << LZ4_HLOG);
  uint8_t *o = dst;
  size_t anchor = 0, i = 0;
  if (tab && n >= 13) {
    size_t limit = n - 12;
    while (i < limit) {
      uint32_t v = cairnGetLE32(src + i), hsh = (v * 2654435761u) >> (32 - LZ4_HLOG);
      size_t cand = tab[hsh];
      tab[hsh] = (uint32_t)i;
      if (cand >= i || i - cand > 65535 || cairnGetLE32(src + cand) != v || (i == 0)) {
        i++;
        continue;
      }
      size_t ml = 4;
      while (i + ml < n - 5 && src[cand + ml] == src[i + ml]) ml++;
      size_t lit = i - anchor;
      uint8_t *tok = o++;
      *tok = (uint8_t)((lit >= 15 ? 15 : lit) << 4);
      if (lit >= 15) o = lz4Len(o, lit - 15);
      memcpy(o, src + anchor, lit), o += lit;
      cairnPutLE16(o, (uint16_t)(i - cand)), o += 2;
      *tok |= (uint8_t)(ml - 4 >= 15 ? 15 : ml - 4);
      if (ml - 4 >= 15) o = lz4Len(o, ml - 4 - 15);
      i += ml, anchor = i;
    }
  }
  size_t lit = n - anchor;
  *o++ = (uint8_t)((lit >= 15 ? 15 : lit) << 4);
  if (lit >= 15) o = lz4Len(o, lit - 15);
  memcpy(o, src + anchor, lit), o += lit;
  cairnFree(tab);
  return (size_t)(o - dst);
}
