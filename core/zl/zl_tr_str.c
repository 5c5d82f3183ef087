/*
** 2026-12-02
**
** core/zl/zl_tr_str.c - the decoders of OpenZL's string transforms (format 26): parse_int
** (integers back to their decimal strings, 8 digits per 64-bit word) and dispatch_string (the
** strings of several sources interleaved back by a tag stream, copied in 32-byte blocks). Both
** run per byte of output on CSV frames: the hot loops of the decoder's CSV path.
*/
#include "zl/zl_int.h"

/* 60: parse_int: signed 64-bit integers -> their decimal strings (no leading zeros, '-' when
** negative). Digits are made 8 at a time in a 64-bit word; an owned output has the slack for
** whole-word stores, the caller's buffer gets them through a small copy at its end. */
static const uint64_t kPow10[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
                                    1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
                                    100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
                                    1000000000000000000ull, 10000000000000000000ull};
static inline unsigned decDigits(uint64_t u) { /* 1..20 */
  uint64_t x = u | 1; /* same count, and 0 has one digit */
  unsigned a = ((64u - (unsigned)__builtin_clzll(x)) * 1233u) >> 12;
  return a + (x >= kPow10[a]);
}
/* x < 10^8 as 8 ASCII digits, the first in the lowest byte: 4|4 digits in 32-bit lanes, then
** 2|2 in 16-bit lanes, then 1|1 in bytes (divisions by 100 and 10 as multiply-shifts). */
static inline uint64_t dec8(uint32_t x) {
  uint64_t v = (x / 10000) | ((uint64_t)(x % 10000) << 32);
  uint64_t t = ((v * 10486) >> 20) & 0x0000007f0000007full;
  v = t | ((v - 100 * t) << 16);
  t = ((v * 103) >> 10) & 0x000f000f000f000full;
  v = t | ((v - 10 * t) << 8);
  return v + 0x3030303030303030ull;
}
/* x < 10^4 as 4 ASCII digits in the low 32 bits, the same way */
static inline uint64_t dec4(uint32_t x) {
  uint32_t t = (x * 5243u) >> 19; /* x / 100 */
  uint32_t v = t | ((x - 100 * t) << 16);
  t = ((v * 103u) >> 10) & 0x000f000fu;
  v = t | ((v - 10 * t) << 8);
  return v + 0x30303030u;
}
/* "00" to "99" */
static const char kDig2[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                               "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                               "8081828384858687888990919293949596979899";
/* writes the len-byte string of v at o, and up to 8 bytes beyond. Inlined natively (a call per
** number cost the csv decode 5-10%); wasm keeps one copy (size) */
#ifdef __wasm__
#define DEC_INLINE static inline
#else
#define DEC_INLINE static inline __attribute__((always_inline))
#endif
DEC_INLINE void decIntWrite(uint8_t *o, int64_t v, unsigned len) {
  uint64_t u = (uint64_t)v;
  if (v < 0) *o++ = '-', u = 0 - u, len--;
  if (len <= 4) cairnPutLE64(o, dec4((uint32_t)u) >> (8 * (4 - len)));
  else if (len <= 8) cairnPutLE64(o, dec8((uint32_t)u) >> (8 * (8 - len)));
  else if (len <= 10) { /* under 10^10 (timestamps in seconds): 1 or 2 digits, then 8 */
#ifdef __wasm__ /* u / 10^8 as (u / 2^8) / 390625 in 32 bits: wasm has no 64x64 high multiply, and a
               ** 64-bit division by a constant there is a real division or a 128-bit helper call */
    uint32_t hi = (uint32_t)(u >> 8) / 390625u, lo = (uint32_t)(u - (uint64_t)hi * 100000000u);
#else
    uint64_t hi = u / 100000000u, lo = u - hi * 100000000u;
#endif
    memcpy(o, kDig2 + 2 * hi + 10 - len, 2); /* len 9: its second byte is the next store's */
    cairnPutLE64(o + len - 8, dec8((uint32_t)lo));
  } else { /* leading group first: its store runs into the groups after it */
    uint64_t hi = u / 100000000u, lo = u - hi * 100000000u;
    if (len <= 12) cairnPutLE64(o, dec4((uint32_t)hi) >> (8 * (12 - len)));
    else if (len <= 16) cairnPutLE64(o, dec8((uint32_t)hi) >> (8 * (16 - len)));
    else {
      uint64_t top = hi / 100000000u;
      cairnPutLE64(o, dec8((uint32_t)top) >> (8 * (24 - len)));
      cairnPutLE64(o + len - 16, dec8((uint32_t)(hi - top * 100000000u)));
    }
    cairnPutLE64(o + len - 8, dec8((uint32_t)lo));
  }
}
/* Fields as 32-byte blocks (exactly when longer), each from its address; the sources and the
** output have 32 bytes to spare. One 32-byte store per field with AVX2. */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
__attribute__((target("avx2"))) static uint8_t *dsCopyAvx2(uint8_t *o, const uint8_t *const *apF, const uint32_t *aL, size_t n) {
  for (size_t f = 0; f < n; f++) { /* one 32-byte load and store (memcpy's would be split in two) */
    uint32_t len = aL[f];
    if (len <= 32) _mm256_storeu_si256((__m256i *)(void *)o, _mm256_loadu_si256((const __m256i *)(const void *)apF[f]));
    else memcpy(o, apF[f], len);
    o += len;
  }
  return o;
}
#endif
static uint8_t *dsCopy(uint8_t *o, const uint8_t *const *apF, const uint32_t *aL, size_t n) {
#if defined(__x86_64__) || defined(__i386__)
  if (cairn_cpu_features() & CAIRN_CPU_AVX2) return dsCopyAvx2(o, apF, aL, n);
#endif
  for (size_t f = 0; f < n; f++) {
    uint32_t len = aL[f];
    if (len <= 32) memcpy(o, apF[f], 32);
    else memcpy(o, apF[f], len);
    o += len;
  }
  return o;
}

/* a[0..n) == b[0..n): libc's memcmp, but in wasm (whose memcmp goes byte by byte: 14% of a
** csv decode there) 8 bytes at a time */
static int dsSame(const uint8_t *a, const uint8_t *b, size_t n) {
#ifndef __wasm__
  return !memcmp(a, b, n);
#endif
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    if (cairnGetLE64(a + i) != cairnGetLE64(b + i)) return 0;
  for (; i < n; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

/* the length of v's string, from *pdg, the digits of the number before it (a column's numbers
** are alike: two predictable compares) */
static inline uint32_t dsDigits(uint64_t v, unsigned *pdg) {
  uint64_t u = (v >> 63) ? 0 - v : v;
  unsigned dg = *pdg;
  while (dg < 20 && u >= kPow10[dg]) dg++;
  while (dg > 1 && u < kPow10[dg - 1]) dg--;
  *pdg = dg;
  return dg + (unsigned)(v >> 63);
}

/* 54: dispatch_string (16-bit tags, then the variable string inputs) */
ZL_TRDEC(cairnZlDecDispatchString) {
  const ZlStream *t = in[0];
  size_t nv = nIn - 1, total = 0, n = t->n;
  if (t->width != 2) return BAD("zl: dispatch_string tags must be 16-bit");
  if (n && !nv) return BAD("zl: dispatch_string without sources");
  if (nv > 2048) return BAD("zl: dispatch_string with %zu sources (at most 2048)", nv);
  /* Checked up front, so the copy loop runs without checks: every tag names a source and each
  ** source gets exactly as many tags as it has strings (a string stream's lengths always sum to
  ** its content). Per source: next string, next length. */
  typedef struct {
    const uint8_t *p;    /* next string (fused: next integer or index) */
    const uint32_t *len; /* its length */
    unsigned kind, w;    /* ZlStream.lazy, index width */
    /* tokenize: the alphabet's string i at address aOff[i], aL[i] bytes */
    const uint64_t *aOff;
    const uint32_t *aL;
    size_t na;   /* alphabet strings (indices are checked) */
    unsigned dg; /* unsized parse_int: digits of the last number */
  } DSrc;
  size_t *aCnt = cairnMallocZero(sizeof(size_t) * (nv + 1));
  DSrc *aSrc = cairnMalloc(sizeof(DSrc) * (nv + 1));
  int rc = CAIRN_OK;
  const uint8_t *tp = t->p;
  if (!aCnt || !aSrc) {
    rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
    goto done;
  }
  /* Rows of a table repeat their tags: the first m are counted one by one (a header line), and
  ** if the rest repeats with a period P <= 16 the last P of them say how often each comes. */
  size_t m = n < 64 ? n : 64, nCount = n, per = 0;
  for (size_t q = 1; q <= 16 && q <= m && m < n; q++)
    if (dsSame(tp + 2 * (m - q), tp + 2 * m, 2 * (n - m))) {
      for (size_t j = m - q; j < m; j++) {
        unsigned k = cairnGetLE16(tp + 2 * j);
        if (k < nv) aCnt[k] += (n - 1 - j) / q; /* positions j+q, j+2q, ... below n */
      }
      nCount = m, per = q;
      break;
    }
  for (size_t i = 0; i < nCount; i++) {
    unsigned k = cairnGetLE16(tp + 2 * i);
    if (k >= nv) {
      rc = BAD("zl: dispatch_string tag %u beyond %zu sources", k, nv);
      goto done;
    }
    aCnt[k]++;
  }
  int slack = 1, unsized = 0; /* every source readable 32 bytes past its end; some of unknown size */
  for (size_t k = 0; k < nv; k++) {
    const ZlStream *s = in[1 + k];
    if (aCnt[k] != s->n) {
      rc = BAD("zl: dispatch_string source %zu has %zu strings, %zu tags name it", k, s->n, aCnt[k]);
      goto done;
    }
    aSrc[k].p = s->lazy ? s->lzSrc : s->p, aSrc[k].len = s->aLen, total += s->nb;
    aSrc[k].kind = s->lazy, aSrc[k].w = s->lzW, aSrc[k].aOff = s->lzOff, aSrc[k].aL = s->lzLen, aSrc[k].na = s->lzN, aSrc[k].dg = 1;
    unsized |= s->lazy && s->lzUnsized;
    slack &= s->lazy == 1 ? 1 : s->lazy ? s->lzSlack : s->own;
  }
  /* unsized sources: the output is the caller's buffer (cairnZlFuse 2), what it holds bounds
  ** every write, and the size is what was written */
  if (unsized) total = cairnZlDirectCap(d);
  if ((rc = cairnZlNewStream(d, out[0], ZT_STRING, 1, total)) != CAIRN_OK) goto done;
  out[0]->n = n;
  /* the lengths only when the consumer keeps them (serial_string drops them) */
  if (cairnZlNeedLens(d) && (rc = cairnZlNewLens(d, out[0], n)) != CAIRN_OK) goto done;
  /* Fields go by blocks of at most DS_B, each in three passes (no branch on each field's
  ** source kind, and every array of a block stays in the first-level cache):
  ** 1. the block's fields of each source, in order (aPos; a source's slots from aSt[k]);
  ** 2. per source, one loop of its own kind giving each of its fields the address of its
  **    bytes (apF) and its length (aL): plain strings in place, tokenize's alphabet entries,
  **    parse_int's digits written into a 32-byte cell of their own;
  ** 3. the fields in order, each copied as one 32-byte block where the source has slack and
  **    the output room, else exactly.
  ** Periodic tags (fields m + r * per + j, j < per, have the tag of field m - per + j) make
  ** blocks of whole rows whose positions need no sort. */
#define DS_B 512
  uint32_t *aPos = cairnMalloc(sizeof(uint32_t) * (DS_B + 16) * 2 + sizeof(size_t) * 2 * (nv + 1));
  const uint8_t **apF = cairnMalloc(sizeof(uint8_t *) * (DS_B + 16) + 32 * (DS_B + 16) + 64);
  if (!aPos || !apF) {
    rc = cairnErr(CAIRN_NOMEM, "zl: out of memory");
    goto done2;
  }
  {
    uint32_t *aL = aPos + DS_B + 16;
    size_t *aSt = (size_t *)(void *)(aL + DS_B + 16), *aEnd = aSt + nv + 1;
    memset(aEnd, 0, sizeof(size_t) * (nv + 1));
    uint8_t *aCell = (uint8_t *)(apF + DS_B + 16);
    /* the period's sources (first position each), with their positions */
    unsigned aPk[16], aPJ[16][16], aPn[16], nPk = 0;
    for (size_t j = 0; j < per; j++) {
      unsigned k = cairnGetLE16(tp + 2 * (m - per + j)), u = 0;
      while (u < nPk && aPk[u] != k) u++;
      if (u == nPk) aPk[nPk] = k, aPn[nPk++] = 0;
      aPJ[u][aPn[u]++] = (unsigned)j;
    }
    size_t rowsB = per ? DS_B / per : 0;
    uint8_t *o = out[0]->p, *oFull = o + total, *oEnd = oFull + (out[0]->own ? ZL_SLACK : 0);
    unsigned bad = 0;
    uint32_t *aLenOut = out[0]->aLen;
    for (size_t b = 0; b < n;) {
      size_t e, nSrcB = 0;
      /* per source of the block: its fields are pos[0..cnt) or, pos NULL, f0 + c * per */
      unsigned aK[DS_B + 16];
      uint32_t *aPosB[DS_B + 16];
      size_t aF0[16], aCntB[DS_B + 16];
      if (per && b >= m) { /* whole rows */
        e = CAIRN_MIN(n, b + rowsB * per);
        uint32_t *w = aPos;
        for (unsigned u = 0; u < nPk; u++) {
          aK[nSrcB] = aPk[u], aPosB[nSrcB] = w;
          if (aPn[u] == 1) {
            aF0[nSrcB] = aPJ[u][0], aPosB[nSrcB] = NULL;
            aCntB[nSrcB++] = e - b > aPJ[u][0] ? (e - b - aPJ[u][0] + per - 1) / per : 0;
            continue;
          }
          for (size_t r = 0; r < e - b; r += per)
            for (unsigned x = 0; x < aPn[u] && r + aPJ[u][x] < e - b; x++) *w++ = (uint32_t)(r + aPJ[u][x]);
          aCntB[nSrcB] = (size_t)(w - aPosB[nSrcB]), nSrcB++;
        }
      } else { /* a counting sort */
        e = CAIRN_MIN(per ? m : n, b + DS_B);
        for (size_t i = b; i < e; i++) {
          unsigned k = cairnGetLE16(tp + 2 * i);
          if (!aEnd[k]++) aK[nSrcB++] = k; /* aEnd: counts here, zero between blocks */
        }
        size_t at = 0;
        for (size_t u = 0; u < nSrcB; u++) {
          aSt[aK[u]] = at, aPosB[u] = aPos + at, aCntB[u] = aEnd[aK[u]], at += aEnd[aK[u]];
          aEnd[aK[u]] = aSt[aK[u]];
        }
        for (size_t i = b; i < e; i++) aPos[aEnd[cairnGetLE16(tp + 2 * i)]++] = (uint32_t)(i - b);
        for (size_t u = 0; u < nSrcB; u++) aEnd[aK[u]] = 0;
      }
      uint8_t *cell = aCell;
      size_t nbB = 0; /* the block's bytes, summed as the lengths are made */
      for (size_t u = 0; u < nSrcB; u++) {
        DSrc *s = &aSrc[aK[u]];
        const uint32_t *pos = aPosB[u], *sl = s->len;
        const uint8_t *p = s->p;
        size_t cnt = aCntB[u], f0 = pos ? 0 : aF0[u];
        /* one loop per source kind, for listed or strided fields */
#define DS_KINDS(F)                                                                     \
  if (s->kind == 0) {                                                                   \
    for (size_t c = 0; c < cnt; c++) {                                                  \
      size_t f = F;                                                                     \
      uint32_t len = sl[c];                                                             \
      apF[f] = p, aL[f] = len, p += len, nbB += len;                                    \
    }                                                                                   \
  } else if (s->kind == 1) {                                                            \
    /* the last cells written whole of 5+ and of 3+ digits, with their keys */          \
    const uint8_t *pc = NULL, *pc2 = NULL;                                              \
    uint64_t pk = 0, pk2 = 0;                                                           \
    uint32_t plen = 0, plen2 = 0;                                                       \
    for (size_t c = 0; c < cnt; c++, cell += 32) {                                      \
      size_t f = F;                                                                     \
      uint64_t v = cairnGetLE64(p + 8 * c), mag = (v >> 63) ? 0 - v : v;                \
      uint64_t q = mag / 10000, key = q << 1 | v >> 63;                                 \
      uint64_t q2 = mag / 100, key2 = q2 << 1 | v >> 63;                                \
      uint32_t len;                                                                     \
      if (key == pk && pc) { /* same sign and digits but the last 4: those patched */   \
        len = sl ? sl[c] : plen;                                                        \
        memcpy(cell, pc, 32);                                                           \
        cairnPutLE32(cell + len - 4, (uint32_t)dec4((uint32_t)(mag - q * 10000)));              \
      } else if (key2 == pk2 && pc2) { /* ... but the last 2 */                         \
        len = sl ? sl[c] : plen2;                                                       \
        memcpy(cell, pc2, 32);                                                          \
        memcpy(cell + len - 2, kDig2 + 2 * (mag - q2 * 100), 2);                        \
      } else {                                                                          \
        len = sl ? sl[c] : dsDigits(v, &s->dg);                                         \
        decIntWrite(cell, (int64_t)v, len);                                             \
        if (q) pc = cell, pk = key, plen = len;                                         \
        if (q2) pc2 = cell, pk2 = key2, plen2 = len;                                    \
      }                                                                                 \
      apF[f] = cell, aL[f] = len, nbB += len;                                           \
    }                                                                                   \
  } else if (s->kind == 3) {                                                            \
    for (size_t c = 0; c < cnt; c++) {                                                  \
      size_t f = F;                                                                     \
      unsigned ix = cairnGetLE16(p + 2 * c);                                            \
      bad |= ix >= s->na, ix = ix < s->na ? ix : 0;                                     \
      apF[f] = (const uint8_t *)(uintptr_t)s->aOff[ix], aL[f] = s->aL[ix];              \
      nbB += s->aL[ix];                                                                 \
    }                                                                                   \
  } else {                                                                              \
    for (size_t c = 0; c < cnt; c++) {                                                  \
      size_t f = F;                                                                     \
      size_t ix = s->kind == 2 ? p[c] : (size_t)rdN(p + c * s->w, s->w);                \
      bad |= ix >= s->na, ix = ix < s->na ? ix : 0;                                     \
      apF[f] = (const uint8_t *)(uintptr_t)s->aOff[ix], aL[f] = s->aL[ix];              \
      nbB += s->aL[ix];                                                                 \
    }                                                                                   \
  }
        DS_KINDS(pos ? pos[c] : (f0 += per) - per) /* strided: no multiply per field */
#undef DS_KINDS
        if (s->kind == 0) s->len += cnt;
        else if (s->kind == 1) s->len = s->len ? s->len + cnt : NULL, p += 8 * cnt;
        else p += cnt * s->w;
        s->p = p;
      }
      if (aLenOut) memcpy(aLenOut + b, aL, sizeof(uint32_t) * (e - b));
      if (nbB > (size_t)(oFull - o)) {
        rc = BAD("zl: dispatch_string strings exceed the %zu-byte output", (size_t)(oFull - out[0]->p));
        goto done2;
      }
      if (slack && (size_t)(oEnd - o) >= nbB + 32) /* the whole block as 32-byte blocks */
        o = dsCopy(o, apF, aL, e - b);
      else
        for (size_t f = 0; f < e - b; f++) {
          uint32_t len = aL[f];
          if (len <= 32 && slack && oEnd - o >= 32) memcpy(o, apF[f], 32);
          else if (len) memcpy(o, apF[f], len);
          o += len;
        }
      b = e;
    }
    if (bad) {
      rc = BAD("zl: token index beyond its alphabet (dispatch_string source)");
      goto done2;
    }
    if (unsized) cairnZlShrinkStream(d, out[0], (size_t)(o - out[0]->p));
    else if (o != oFull) { /* cannot happen: sized sources' lengths sum to their content */
      rc = BAD("zl: dispatch_string wrote %zu of %zu bytes", (size_t)(o - out[0]->p), total);
      goto done2;
    }
  }
#undef DS_B
done2:
  cairnFree(aPos), cairnFree(apF);
done:
  cairnFree(aCnt), cairnFree(aSrc);
  return rc;
}

ZL_TRDEC(cairnZlDecParseInt) {
  const ZlStream *s = in[0];
  if (s->width != 8) return BAD("zl: parse_int of %u-byte integers (needs 8)", s->width);
  size_t n = s->n;
  const uint8_t *p = s->p;
  ZlStream *o = out[0];
  /* The output is sized for n times the longest string (the largest magnitude's digits, '-' if
  ** any is negative), then trimmed; if that bound exceeds the frame's memory budget, or lands in
  ** the caller's buffer (no slack), it is sized exactly by a first pass over the lengths. */
  uint64_t total = 0;
  if (cairnZlFuse(d) == 2) { /* nothing: dispatch_string counts the digits and writes them */
    o->type = ZT_STRING, o->width = 1, o->n = n, o->nb = 0, o->lazy = 1, o->lzUnsized = 1, o->lzSrc = p;
    return CAIRN_OK;
  }
  if (cairnZlFuse(d)) { /* lengths only: dispatch_string writes the digits */
    CAIRN_TRY(cairnZlNewLens(d, o, n));
    uint32_t *aLen = o->aLen;
    /* digits counted from the previous number's count (a column's numbers are alike): two
    ** predictable compares, where decDigits' bit scan was a third of the time */
    unsigned dg = 1;
    for (size_t i = 0; i < n; i++) {
      uint64_t v = cairnGetLE64(p + 8 * i), u = (v >> 63) ? 0 - v : v;
      while (dg < 20 && u >= kPow10[dg]) dg++;
      while (dg > 1 && u < kPow10[dg - 1]) dg--;
      unsigned len = dg + (unsigned)(v >> 63);
      aLen[i] = len, total += len;
    }
    o->type = ZT_STRING, o->width = 1, o->n = n, o->nb = (size_t)total, o->lazy = 1, o->lzSrc = p;
    return CAIRN_OK;
  }
  uint64_t mx = 0, neg = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t v = cairnGetLE64(p + 8 * i), u = (v >> 63) ? 0 - v : v;
    mx = u > mx ? u : mx, neg |= v >> 63;
  }
  uint64_t bound = (uint64_t)n * (decDigits(mx) + neg);
  int rc = bound < SIZE_MAX / 2 ? cairnZlNewStream(d, o, ZT_STRING, 1, (size_t)bound) : CAIRN_RANGE;
  if (rc || !o->own) {
    cairnZlFreeStream(d, o);
    for (size_t i = 0; i < n; i++) {
      uint64_t v = cairnGetLE64(p + 8 * i);
      total += decDigits((v >> 63) ? 0 - v : v) + (v >> 63);
    }
    CAIRN_TRY(cairnZlNewStream(d, o, ZT_STRING, 1, (size_t)total));
  }
  o->n = n;
  CAIRN_TRY(cairnZlNewLens(d, o, n));
  /* a string starting at or before qSafe is stored in place (its stores run 8 bytes past it) */
  uint8_t *q = o->p, *qSafe = o->own ? q + o->nb : o->nb >= 32 ? q + o->nb - 32 : q;
  int inPlace = o->own || o->nb >= 32;
  uint32_t *aLen = o->aLen;
  size_t i = 0;
  if (o->own) /* the usual case, without the check */
    for (; i < n; i++) {
      int64_t v = (int64_t)cairnGetLE64(p + 8 * i);
      unsigned len = decDigits(v < 0 ? 0 - (uint64_t)v : (uint64_t)v) + (v < 0);
      decIntWrite(q, v, len);
      aLen[i] = len, q += len;
    }
  for (; i < n; i++) {
    int64_t v = (int64_t)cairnGetLE64(p + 8 * i);
    unsigned len = decDigits(v < 0 ? 0 - (uint64_t)v : (uint64_t)v) + (v < 0);
    if (inPlace && q <= qSafe) decIntWrite(q, v, len);
    else {
      uint8_t tmp[48];
      decIntWrite(tmp, v, len);
      memcpy(q, tmp, len);
    }
    aLen[i] = len, q += len;
  }
  cairnZlShrinkStream(d, o, (size_t)(q - o->p));
  return CAIRN_OK;
}
