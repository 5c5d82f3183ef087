/*
** 2026-11-29
**
** core/codec/lz4.c - the LZ4 block format: a greedy compressor (one hash table of 4-byte
** sequences, 64 KiB window) whose output any LZ4 block decoder reads, and a decoder that
** checks every bound.
**
** Block: sequences of token (literal length in the high nibble, match length - 4 in the low
** nibble; 15 = more bytes follow, each 255 meaning "add 255 and continue"), literals, a 2-byte
** little-endian offset, extra match-length bytes. The last sequence has literals only; the last
** 5 bytes are always literals and the last match starts at least 12 bytes before the end.
*/
#include "codec/lz4.h"

#include "common/internal.h"

size_t cairnLz4Bound(size_t n) { return n + n / 255 + 16; }

static uint8_t *lz4Len(uint8_t *o, size_t n) {
  while (n >= 255) {
    *o++ = 255;
    n -= 255;
  }
  *o++ = (uint8_t)n;
  return o;
}

size_t cairnLz4Compress(const uint8_t *src, size_t n, uint8_t *dst, size_t nDst) {
  enum { HBITS = 13 };
  if (nDst < cairnLz4Bound(n)) return 0;
  /* position + 1 per hash slot; 0 = empty. On the heap: wasm stacks are small. */
  uint32_t *aHash = cairnMallocZero(sizeof(uint32_t) << HBITS);
  if (!aHash) return 0;
  uint8_t *o = dst;
  size_t anchor = 0, ip = 0;
  if (n >= 13) {
    size_t limit = n - 12;
    while (ip < limit) {
      uint32_t seq = cairnGetLE32(src + ip);
      uint32_t h = (seq * 2654435761u) >> (32 - HBITS);
      size_t ref = aHash[h];
      aHash[h] = (uint32_t)(ip + 1);
      if (ref == 0 || ip - (ref - 1) > 65535 || cairnGetLE32(src + ref - 1) != seq) {
        ip++;
        continue;
      }
      ref--;
      size_t mlen = 4;
      while (ip + mlen < n - 5 && src[ref + mlen] == src[ip + mlen]) mlen++;
      size_t lit = ip - anchor;
      uint8_t *tok = o++;
      *tok = (uint8_t)((lit < 15 ? lit : 15) << 4);
      if (lit >= 15) o = lz4Len(o, lit - 15);
      memcpy(o, src + anchor, lit);
      o += lit;
      cairnPutLE16(o, (uint16_t)(ip - ref));
      o += 2;
      size_t ml = mlen - 4;
      *tok |= (uint8_t)(ml < 15 ? ml : 15);
      if (ml >= 15) o = lz4Len(o, ml - 15);
      ip += mlen;
      anchor = ip;
    }
  }
  size_t lit = n - anchor;
  *o++ = (uint8_t)((lit < 15 ? lit : 15) << 4);
  if (lit >= 15) o = lz4Len(o, lit - 15);
  memcpy(o, src + anchor, lit);
  o += lit;
  cairnFree(aHash);
  return (size_t)(o - dst);
}

/* Read an extended length (the bytes after a nibble of 15); 0 on truncation. */
static int lz4ReadLen(const uint8_t *src, size_t n, size_t *pi, size_t *pLen) {
  uint8_t b;
  do {
    if (*pi >= n) return 0;
    b = src[(*pi)++];
    *pLen += b;
  } while (b == 255);
  return 1;
}

int cairnLz4Decompress(const uint8_t *src, size_t n, uint8_t *dst, size_t nDst, size_t *pnOut) {
  size_t i = 0, o = 0;
  *pnOut = 0;
  for (;;) {
    if (i >= n) return cairnErr(CAIRN_CORRUPT, "lz4: block truncated at input offset %zu", i);
    unsigned tok = src[i++];
    size_t lit = tok >> 4;
    if (lit == 15 && !lz4ReadLen(src, n, &i, &lit))
      return cairnErr(CAIRN_CORRUPT, "lz4: literal length truncated at input offset %zu", i);
    if (lit > n - i || lit > nDst - o)
      return cairnErr(CAIRN_CORRUPT, "lz4: literal run of %zu bytes overflows at input offset %zu", lit, i);
    memcpy(dst + o, src + i, lit);
    i += lit;
    o += lit;
    if (i == n) break; /* the last sequence has literals only */
    if (n - i < 2) return cairnErr(CAIRN_CORRUPT, "lz4: match offset truncated at input offset %zu", i);
    size_t off = cairnGetLE16(src + i);
    i += 2;
    if (off == 0 || off > o)
      return cairnErr(CAIRN_CORRUPT, "lz4: match offset %zu out of range at input offset %zu", off, i - 2);
    size_t ml = tok & 15;
    if (ml == 15 && !lz4ReadLen(src, n, &i, &ml))
      return cairnErr(CAIRN_CORRUPT, "lz4: match length truncated at input offset %zu", i);
    ml += 4;
    if (ml > nDst - o) return cairnErr(CAIRN_CORRUPT, "lz4: match overruns the output at input offset %zu", i);
    const uint8_t *m = dst + o - off;
    if (off >= ml) memcpy(dst + o, m, ml);
    else for (size_t k = 0; k < ml; k++) dst[o + k] = m[k]; /* overlapping: byte by byte */
    o += ml;
  }
  *pnOut = o;
  return CAIRN_OK;
}
