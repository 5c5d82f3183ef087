/*
** 2026-11-30
**
** core/codec/deflate_enc.c - cairn's zlib-format compressor: an RFC 1950 header and Adler-32
** trailer around an RFC 1951 deflate stream, written for the HDF5 deflate filter (one call
** per chunk, the whole chunk in memory). zlib stays the decoder; this only encodes.
**
** Design. The input is parsed into a block of items (a run of literals, or a match: length
** 3..258 and distance 1..32768) while the literal/length and distance symbol counts are kept.
** Matches of 4 and more come from hash chains over 4-byte prefixes (head[] per hash, prev[] per
** window position, positions offset by WOFF so that 0 means "none" and is always out of the
** window); matches of 3, as zlib finds them, from a one-entry-per-hash table of 3-byte prefixes
** within 4 KiB. A candidate is first checked on the 4 bytes ending at the current best length
** (the cheap rejection), then extended 8 bytes at a time by XOR and count-trailing-zeros.
** Levels choose the chain depth, the length that stops the search ("nice"), whether to look one
** byte ahead for a longer match before taking one (lazy matching, zlib's parse; the search cut
** to a quarter once a match of "good" length is in hand), how fast the parse steps over long
** runs of literals (every 2nd, 3rd... position searched after 2^skip literals in a row, up to
** maxStep: data that does not match costs little), and whether long matches have all their
** positions hashed. A block of 16K symbols (or the end of the input) is written as the cheapest
** of a dynamic-Huffman, fixed-Huffman or stored block, its exact size counted beforehand.
** Huffman code lengths: a two-queue Huffman tree over the sorted counts, then depths over the
** limit (15, or 7 for the code-length code) clamped and the Kraft sum repaired by moving
** leaves down, lengths handed out by frequency. Bits go out through a 64-bit buffer written 8
** bytes at a time (callers leave 16 bytes of slack: cairnDeflateBound does). Tables are sized
** to the input (an HDF5 chunk is often 16 KiB: 176 KiB of tables for it), 390 KiB at most
** whatever the input size. Inputs are matched in segments of 1 GiB so that
** positions fit 32 bits. Adler-32 uses AVX2 or wasm simd128 when cairn_cpu_features() has them.
*/
#include "common/internal.h"
#include "codec/deflate_enc.h"


#define WSIZE 32768u
#define WOFF (WSIZE + 1u) /* stored position = position + WOFF; 0 = empty, never in the window */
#define MINM 4u           /* shortest match the chains find */
#define MAXM 258u
#define DIST3 4096u /* farthest match of 3 (zlib's TOO_FAR) */
#define INSEDGE 16
#define SEG ((size_t)1 << 30)
#define BLOCK_ITEMS 16384u
#define SLACK 16u

typedef struct Level {
  uint16_t depth; /* candidates per search */
  uint16_t nice;  /* stop searching at this length */
  uint16_t lazy;  /* 0: greedy; else try the next position while the match is shorter */
  uint16_t good;  /* a match this long cuts the lazy search to depth/4 */
  uint16_t skip;  /* after 2^skip literals in a row, search every other position, then every third... (0: never) */
  uint16_t maxStep; /* ...up to every maxStep-th */
  uint16_t insMax;  /* matches longer than this have only their ends hashed (0: all positions) */
} Level;

static const Level aLevel[10] = {
    {0, 0, 0, 0, 0, 1, 0},         /* 0: stored */
    {4, 16, 0, 0, 6, 8, 32},       /* 1 */
    {6, 24, 0, 0, 6, 8, 32},       /* 2 */
    {12, 32, 0, 0, 6, 8, 32},      /* 3 */
    {12, 32, 16, 8, 7, 4, 64},     /* 4 */
    {20, 64, 16, 8, 7, 4, 64},     /* 5 */
    {96, 128, 16, 8, 6, 4, 64},    /* 6 */
    {192, 192, 32, 8, 8, 4, 0},    /* 7 */
    {256, 258, 128, 32, 0, 1, 0},  /* 8 */
    {1024, 258, 258, 32, 0, 1, 0}, /* 9 */
};

typedef struct Enc {
  uint32_t *head, *prev, *head3;
  unsigned hashBits, hash3Bits;
  uint32_t prevMask;
  uint32_t *items; /* a run of n literals (n < 2^31), or 1<<31 | (len-3)<<16 | (dist-1) */
  size_t nItems, nSym; /* items, and the symbols they stand for */
  const uint8_t *blockStart; /* input the current block covers starts here */
  uint32_t litFreq[288], distFreq[32];
  uint8_t *out, *outEnd;
  uint64_t bb; /* bits not yet written, LSB first */
  unsigned nb;
  int full; /* the output buffer was too small */
} Enc;

/* ---------------------------------------------------------------- small helpers */
static inline uint32_t load32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static inline uint64_t load64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}
/* Length symbol index (0..28, symbol 257+i) of a match length minus 3, and its extra bits. */
static inline unsigned lenSym(unsigned l) {
  if (l < 8) return l;
  if (l == 255) return 28;
  unsigned nb = 29u - (unsigned)__builtin_clz(l);
  return 4 * nb + 4 + ((l >> nb) & 3);
}
static inline unsigned lenExtraBits(unsigned sym) { return sym < 8 || sym == 28 ? 0 : (sym - 4) >> 2; }
/* Distance code (0..29) of a distance minus 1; its extra bits are (code-2)/2 from code 4. */
static inline unsigned distSym(unsigned d) {
  if (d < 4) return d;
  unsigned nb = 30u - (unsigned)__builtin_clz(d);
  return 2 * nb + 2 + ((d >> nb) & 1);
}
static inline unsigned distExtraBits(unsigned sym) { return sym < 4 ? 0 : (sym - 2) >> 1; }

/* ---------------------------------------------------------------- bits */
static inline void putBits(Enc *e, uint64_t v, unsigned k) {
  e->bb |= v << e->nb;
  e->nb += k;
}
/* Write whole bytes; at most 7 bits stay. Callers keep nb <= 56 before a flush. */
static inline void flushBits(Enc *e) {
  cairnPutLE64(e->out, e->bb);
  unsigned by = e->nb >> 3;
  e->out += by;
  e->bb = by ? e->bb >> (by * 8) : e->bb;
  e->nb &= 7;
}
static void alignByte(Enc *e) {
  flushBits(e);
  if (e->nb) {
    e->out++;
    e->bb = 0;
    e->nb = 0;
  }
}

/* ---------------------------------------------------------------- Huffman codes */
/* Canonical codes (RFC 1951 3.2.2), bit-reversed for LSB-first output. */
static void huffCodes(const uint8_t *len, unsigned n, uint16_t *code) {
  unsigned cnt[16] = {0}, next[16];
  for (unsigned i = 0; i < n; i++) cnt[len[i]]++;
  cnt[0] = 0;
  unsigned c = 0;
  for (unsigned b = 1; b < 16; b++) {
    c = (c + cnt[b - 1]) << 1;
    next[b] = c;
  }
  for (unsigned i = 0; i < n; i++) {
    unsigned l = len[i];
    if (!l) {
      code[i] = 0;
      continue;
    }
    uint32_t v = next[l]++; /* reverse 16 bits, keep the top l */
    v = ((v & 0x5555) << 1) | ((v >> 1) & 0x5555);
    v = ((v & 0x3333) << 2) | ((v >> 2) & 0x3333);
    v = ((v & 0x0f0f) << 4) | ((v >> 4) & 0x0f0f);
    v = ((v & 0x00ff) << 8) | ((v >> 8) & 0x00ff);
    code[i] = (uint16_t)(v >> (16 - l));
  }
}

/* ---------------------------------------------------------------- blocks */
static const uint8_t aClOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

static unsigned fixedLitLen(unsigned s) { return s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8; }

static void writeStored(Enc *e, const uint8_t *p, size_t n, int last) {
  do {
    size_t k = n < 65535 ? n : 65535;
    n -= k;
    putBits(e, (last && n == 0) ? 1 : 0, 3);
    alignByte(e);
    cairnPutLE16(e->out, (uint16_t)k);
    cairnPutLE16(e->out + 2, (uint16_t)~k);
    memcpy(e->out + 4, p, k);
    e->out += 4 + k;
    p += k;
  } while (n);
}

/* The block's symbols: runs of literals are read from the input (the item holds the run's
** length), matches from their item. Bit buffer in locals: stores through the output pointer
** may alias anything, so fields of Enc would be reloaded after each one. */
static void writeItems(Enc *e, const uint16_t *lcode, const uint8_t *llen, const uint16_t *dcode, const uint8_t *dlen) {
  const uint32_t *it = e->items, *end = it + e->nItems;
  const uint8_t *src = e->blockStart;
  uint64_t bb = e->bb;
  unsigned nb = e->nb;
  uint8_t *out = e->out;
#define PUT(v, k) (bb |= (uint64_t)(v) << nb, nb += (k))
#define FLUSH() (cairnPutLE64(out, bb), out += nb >> 3, bb = (nb >> 3) ? bb >> (nb & ~7u) : bb, nb &= 7)
  for (; it < end; it++) {
    uint32_t v = *it;
    if (!(v >> 31)) {
      const uint8_t *q = src, *qe = src + v;
      src = qe;
      for (; qe - q >= 3; q += 3) { /* three literals (45 bits at most) per flush */
        PUT(lcode[q[0]], llen[q[0]]);
        PUT(lcode[q[1]], llen[q[1]]);
        PUT(lcode[q[2]], llen[q[2]]);
        FLUSH();
      }
      for (; q < qe; q++) PUT(lcode[*q], llen[*q]);
    } else {
      unsigned l = (v >> 16) & 0xff, d = v & 0xffff;
      unsigned ls = lenSym(l), ds = distSym(d);
      unsigned lx = lenExtraBits(ls), dx = distExtraBits(ds);
      src += l + 3;
      PUT(lcode[257 + ls], llen[257 + ls]);
      PUT(l & ((1u << lx) - 1), lx);
      PUT(dcode[ds], dlen[ds]);
      PUT(d & ((1u << dx) - 1), dx);
    }
    FLUSH();
  }
#undef PUT
#undef FLUSH
  e->bb = bb, e->nb = nb, e->out = out;
}

/* Close the block that covers blockStart..end: counts, codes, the cheapest block type. */
static void endBlock(Enc *e, const uint8_t *end, int last) {
  uint8_t llen[288], dlen[32], cllen[19];
  uint16_t lcode[288], dcode[32], clcode[19];
  uint32_t clFreq[19] = {0};
  uint8_t rle[288 + 32], rleX[288 + 32], lens[288 + 32];
  size_t span = (size_t)(end - e->blockStart);
  if (e->full) return;
  e->litFreq[256]++;
  cairnHuffLengths(e->litFreq, 286, 15, llen);
  cairnHuffLengths(e->distFreq, 30, 15, dlen);
  unsigned hlit = 286, hdist = 30;
  while (hlit > 257 && llen[hlit - 1] == 0) hlit--;
  while (hdist > 1 && dlen[hdist - 1] == 0) hdist--;
  memcpy(lens, llen, hlit);
  memcpy(lens + hlit, dlen, hdist);
  unsigned nl = hlit + hdist, nr = 0;
  for (unsigned i = 0; i < nl;) {
    unsigned v = lens[i], r = 1;
    while (i + r < nl && lens[i + r] == v) r++;
    i += r;
    if (v == 0) {
      while (r >= 11) {
        unsigned k = r < 138 ? r : 138;
        rle[nr] = 18, rleX[nr++] = (uint8_t)(k - 11), r -= k;
      }
      if (r >= 3) rle[nr] = 17, rleX[nr++] = (uint8_t)(r - 3), r = 0;
    } else {
      rle[nr] = (uint8_t)v, rleX[nr++] = 0, r--;
      while (r >= 3) {
        unsigned k = r < 6 ? r : 6;
        rle[nr] = 16, rleX[nr++] = (uint8_t)(k - 3), r -= k;
      }
    }
    while (r--) rle[nr] = (uint8_t)v, rleX[nr++] = 0;
  }
  for (unsigned i = 0; i < nr; i++) clFreq[rle[i]]++;
  cairnHuffLengths(clFreq, 19, 7, cllen);
  unsigned hclen = 19;
  while (hclen > 4 && cllen[aClOrder[hclen - 1]] == 0) hclen--;
  /* sizes in bits */
  uint64_t extra = 0, dyn = 3 + 14 + 3 * (uint64_t)hclen, fix = 3;
  for (unsigned i = 0; i < 19; i++) dyn += (uint64_t)clFreq[i] * cllen[i];
  dyn += 2 * (uint64_t)clFreq[16] + 3 * (uint64_t)clFreq[17] + 7 * (uint64_t)clFreq[18];
  for (unsigned i = 0; i < 286; i++) {
    dyn += (uint64_t)e->litFreq[i] * llen[i];
    fix += (uint64_t)e->litFreq[i] * fixedLitLen(i);
  }
  for (unsigned i = 0; i < 29; i++) extra += (uint64_t)e->litFreq[257 + i] * lenExtraBits(i);
  for (unsigned i = 0; i < 30; i++) {
    dyn += (uint64_t)e->distFreq[i] * dlen[i];
    fix += (uint64_t)e->distFreq[i] * 5;
    extra += (uint64_t)e->distFreq[i] * distExtraBits(i);
  }
  dyn += extra, fix += extra;
  uint64_t stored = 8 * ((uint64_t)span + 5 * (span / 65535 + 1)) + 8;
  uint64_t best = dyn < fix ? dyn : fix;
  if (stored < best) best = stored;
  if ((uint64_t)(e->outEnd - e->out) < best / 8 + SLACK) {
    e->full = 1;
    return;
  }
  if (best == stored) {
    writeStored(e, e->blockStart, span, last);
  } else if (best == fix) {
    for (unsigned i = 0; i < 288; i++) llen[i] = (uint8_t)fixedLitLen(i);
    for (unsigned i = 0; i < 30; i++) dlen[i] = 5;
    huffCodes(llen, 288, lcode);
    huffCodes(dlen, 30, dcode);
    putBits(e, last ? 3 : 2, 3);
    writeItems(e, lcode, llen, dcode, dlen);
    putBits(e, lcode[256], llen[256]);
  } else {
    huffCodes(llen, 286, lcode);
    huffCodes(dlen, 30, dcode);
    huffCodes(cllen, 19, clcode);
    putBits(e, last ? 5 : 4, 3);
    putBits(e, hlit - 257, 5);
    putBits(e, hdist - 1, 5);
    putBits(e, hclen - 4, 4);
    flushBits(e);
    for (unsigned i = 0; i < hclen; i++) {
      putBits(e, cllen[aClOrder[i]], 3);
      flushBits(e);
    }
    static const uint8_t xb[3] = {2, 3, 7};
    for (unsigned i = 0; i < nr; i++) {
      unsigned s = rle[i];
      putBits(e, clcode[s], cllen[s]);
      if (s >= 16) putBits(e, rleX[i], xb[s - 16]);
      flushBits(e);
    }
    writeItems(e, lcode, llen, dcode, dlen);
    putBits(e, lcode[256], llen[256]);
  }
  flushBits(e);
  e->nItems = e->nSym = 0;
  e->blockStart = end;
  memset(e->litFreq, 0, sizeof e->litFreq);
  memset(e->distFreq, 0, sizeof e->distFreq);
}

/* ---------------------------------------------------------------- parsing */
/* The match finder's tables and sizes, copied into a local of parse(): as fields of Enc they
** were reloaded after every store into a table (the stores might have aliased them). */
typedef struct MF {
  uint32_t *head, *prev, *head3;
  unsigned hb, hb3;
  uint32_t mask;
} MF;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define LOW3 0xffffff00u /* the first 3 bytes of a 32-bit load */
#else
#define LOW3 0x00ffffffu
#endif
static inline uint32_t hash4(uint32_t v, unsigned bits) { return (v * 0x9E3779B1u) >> (32 - bits); }
static inline uint32_t hash3(uint32_t v, unsigned bits) { return ((v & LOW3) * 0x9E3779B1u) >> (32 - bits); }

static inline void insert(MF *m, const uint8_t *base, size_t p) {
  uint32_t v = load32(base + p), s = (uint32_t)p + WOFF;
  uint32_t h = hash4(v, m->hb);
  m->prev[s & m->mask] = m->head[h];
  m->head[h] = s;
  m->head3[hash3(v, m->hb3)] = s;
}

/* Length of the common prefix of a and b, from start up to max. */
static inline unsigned extend(const uint8_t *a, const uint8_t *b, unsigned start, unsigned max) {
  unsigned l = start;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  while (l + 8 <= max) {
    uint64_t x = load64(a + l) ^ load64(b + l);
    if (x) return l + ((unsigned)__builtin_ctzll(x) >> 3);
    l += 8;
  }
#endif
  while (l < max && a[l] == b[l]) l++;
  return l;
}

/* Insert p and search its chain for a match longer than best (at least 2); returns the best
** length found (best if none), its distance in *pDist. p + MINM <= n. Chains give matches of 4
** and more; when best is 2 and they give none, the last position with the same 3 bytes (one
** per hash, within DIST3) gives a match of 3, as zlib finds them. */
static inline __attribute__((always_inline)) unsigned findMatch(MF *m, const uint8_t *base, size_t p, size_t n, unsigned best, unsigned depth, unsigned nice, unsigned *pDist) {
  const uint8_t *cur = base + p;
  uint32_t first = load32(cur), sp = (uint32_t)p + WOFF;
  uint32_t h = hash4(first, m->hb), h3 = hash3(first, m->hb3);
  uint32_t s = m->head[h], s3 = m->head3[h3];
  m->prev[sp & m->mask] = s;
  m->head[h] = sp;
  m->head3[h3] = sp;
  unsigned maxLen = n - p < MAXM ? (unsigned)(n - p) : MAXM;
  unsigned want3 = best < 3;
  if (want3) best = 3;
  if (best >= maxLen) return want3 ? 2 : best;
  if (nice > maxLen) nice = maxLen;
  uint32_t lim = sp - WSIZE;
  while (s >= lim && depth--) {
    const uint8_t *c = base + (s - WOFF);
    if (load32(c + best - 3) == load32(cur + best - 3) && load32(c) == first) {
      unsigned l = extend(c, cur, 4, maxLen);
      if (l > best) {
        best = l;
        *pDist = sp - s;
        if (l >= nice) break;
      }
    }
    s = m->prev[s & m->mask];
  }
  if (want3 && best == 3) {
    if (sp - s3 <= DIST3 && ((load32(base + (s3 - WOFF)) ^ first) & LOW3) == 0) *pDist = sp - s3;
    else best = 2;
  }
  return best;
}

static void parse(Enc *e, const uint8_t *base, size_t n, const Level *L) {
  MF m = {e->head, e->prev, e->head3, e->hashBits, e->hash3Bits, e->prevMask};
  uint32_t *items = e->items, *lf = e->litFreq, *df = e->distFreq;
  size_t ni = e->nItems, nSym = e->nSym, lit0 = 0; /* lit0: first literal not yet in an item */
  size_t p = 0, ins = 0, lastHash = n >= MINM ? n - MINM + 1 : 0; /* p < lastHash can be hashed */
  const unsigned depth = L->depth, nice = L->nice, lazy = L->lazy, good = L->good, skip = L->skip ? L->skip : 31, maxStep = L->maxStep ? L->maxStep : 1, insMax = L->insMax;
  size_t anchor = 0; /* where the current run of literals began */
  memset(m.head, 0, sizeof(uint32_t) << m.hb);
  memset(m.head3, 0, sizeof(uint32_t) << m.hb3);
#define LIT() (lf[base[p++]]++, nSym++)
#define RUN() \
  if (p > lit0) items[ni++] = (uint32_t)(p - lit0)
  while (p < n) {
    if (nSym >= BLOCK_ITEMS) {
      RUN();
      lit0 = p;
      e->nItems = ni;
      endBlock(e, base + p, 0);
      if (e->full) return;
      ni = nSym = 0;
    }
    if (p >= lastHash) {
      LIT();
      continue;
    }
    while (ins < p) insert(&m, base, ins++);
    unsigned dist = 0, len = findMatch(&m, base, p, n, 2, depth, nice, &dist);
    ins = p + 1;
    if (len < 3) {
      size_t step = 1 + ((p - anchor) >> skip), stop;
      if (step > maxStep) step = maxStep;
      stop = p + step < lastHash ? p + step : lastHash;
      LIT();
      while (p < stop) LIT(); /* not searched, not inserted */
      ins = p;
      continue;
    }
    while (len < lazy && p + 1 < lastHash) {
      unsigned d2 = 0, l2 = findMatch(&m, base, p + 1, n, len, len >= good ? (depth >> 2) + 1 : depth, nice, &d2);
      ins = p + 2;
      if (l2 <= len) break;
      LIT();
      len = l2, dist = d2;
    }
    unsigned l = len - 3, d = dist - 1;
    RUN();
    items[ni++] = 0x80000000u | (l << 16) | d;
    nSym++;
    lf[257 + lenSym(l)]++;
    df[distSym(d)]++;
    p += len;
    anchor = lit0 = p;
    size_t stop = p < lastHash ? p : lastHash;
    if (insMax && len > insMax && stop > ins + 2 * INSEDGE) { /* a long match: its two ends only */
      size_t mid = stop - INSEDGE;
      while (ins < stop - len + INSEDGE) insert(&m, base, ins++);
      ins = mid;
    }
    while (ins < stop) insert(&m, base, ins++);
  }
  RUN();
#undef LIT
#undef RUN
  e->nItems = ni, e->nSym = nSym;
}

/* ---------------------------------------------------------------- API */
size_t cairnDeflateBound(size_t n) {
  /* every block is at most its stored size: 5 bytes per 65535 and one of alignment per block,
  ** blocks end after BLOCK_ITEMS items (so after at least that many input bytes) */
  return n + 5 * (n / 65535 + 1) + 6 * (n / BLOCK_ITEMS + 1) + 6 + SLACK;
}

int cairnDeflateCompress(int level, const uint8_t *src, size_t n, uint8_t *dst, size_t nDst, size_t *pnOut) {
  *pnOut = 0;
  if (level < -1 || level > 9) return cairnErr(CAIRN_RANGE, "deflate level %d outside [0, 9]", level);
  if (level < 0) level = 6;
  if (nDst < 6 + SLACK) return cairnErr(CAIRN_RANGE, "deflate: output buffer of %zu bytes too small", nDst);
  Enc e;
  memset(&e, 0, sizeof e);
  e.out = dst;
  e.outEnd = dst + nDst;
  e.blockStart = src;
  /* zlib header: deflate, 32 KiB window, FLEVEL from the level, FCHECK */
  unsigned flevel = level <= 1 ? 0 : level <= 5 ? 1 : level == 6 ? 2 : 3;
  unsigned cmf = 0x78, flg = flevel << 6;
  flg += 31 - (cmf * 256 + flg) % 31;
  dst[0] = (uint8_t)cmf, dst[1] = (uint8_t)flg;
  e.out += 2;
  int rc = CAIRN_OK;
  if (level == 0) {
    if ((size_t)(e.outEnd - e.out) < n + 5 * (n / 65535 + 1) + 4 + SLACK) e.full = 1;
    else writeStored(&e, src, n, 1);
  } else {
    const Level *L = &aLevel[level];
    size_t win = n < WSIZE ? n : WSIZE, seg = n < SEG ? n : SEG;
    unsigned pb = 1;
    while ((1u << pb) < win) pb++;
    e.prevMask = (1u << pb) - 1;
    unsigned hb = 10; /* about one head per two positions: zeroing them is per call */
    while (hb < 15 && ((size_t)2 << hb) < seg) hb++;
    e.hashBits = hb;
    e.hash3Bits = hb > 11 ? hb - 1 : 10;
    size_t nItem = n < BLOCK_ITEMS ? n + 1 : BLOCK_ITEMS + 2 * MAXM; /* an item covers a byte or more */
    e.head = cairnMalloc(sizeof(uint32_t) << hb);
    e.head3 = cairnMalloc(sizeof(uint32_t) << e.hash3Bits);
    e.prev = cairnMalloc(sizeof(uint32_t) << pb);
    e.items = cairnMalloc(sizeof(uint32_t) * nItem);
    if (!e.head || !e.head3 || !e.prev || !e.items) rc = cairnErr(CAIRN_NOMEM, "deflate: cannot allocate the match finder");
    for (size_t off = 0; rc == CAIRN_OK && off < n && !e.full; off += SEG)
      parse(&e, src + off, n - off < SEG ? n - off : SEG, L);
    if (rc == CAIRN_OK) endBlock(&e, src + n, 1);
    cairnFree(e.head);
    cairnFree(e.head3);
    cairnFree(e.prev);
    cairnFree(e.items);
  }
  if (rc) return rc;
  if (!e.full) {
    alignByte(&e);
    if ((size_t)(e.outEnd - e.out) < 4) e.full = 1;
  }
  if (e.full) return cairnErr(CAIRN_RANGE, "deflate: output buffer of %zu bytes too small", nDst);
  cairnPutBE32(e.out, cairnAdler32(1, src, n));
  *pnOut = (size_t)(e.out + 4 - dst);
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- Adler-32 */
/* Scalar: sums reduced modulo 65521 every 5552 bytes, the longest run whose sums cannot
** overflow 32 bits. The vector versions take whole 16- or 32-byte blocks of such a run: per
** block, s1's previous value is added to a running total (each byte is counted once per later
** block: times the block width in s2) and the bytes to s1, and s2 gets the bytes weighted by
** their distance from the block's end (width..1). */
static uint32_t adlerScalar(uint32_t a, const uint8_t *p, size_t n) {
  uint32_t s1 = a & 0xffff, s2 = a >> 16;
  while (n) {
    size_t k = n < 5552 ? n : 5552;
    n -= k;
    while (k >= 8) {
      s1 += p[0], s2 += s1;
      s1 += p[1], s2 += s1;
      s1 += p[2], s2 += s1;
      s1 += p[3], s2 += s1;
      s1 += p[4], s2 += s1;
      s1 += p[5], s2 += s1;
      s1 += p[6], s2 += s1;
      s1 += p[7], s2 += s1;
      p += 8, k -= 8;
    }
    while (k--) s1 += *p++, s2 += s1;
    s1 %= 65521;
    s2 %= 65521;
  }
  return (s2 << 16) | s1;
}
/* s1, s2 after k bytes whose vector sums are t1 (bytes), tps (the running total of s1 at each
** block start) and t2 (weighted bytes), for blocks of w bytes. */
static inline uint32_t adlerCombine(uint32_t a, size_t k, unsigned w, uint64_t t1, uint64_t tps, uint64_t t2) {
  uint64_t s1 = a & 0xffff, s2 = a >> 16;
  s2 = (s2 + s1 * k + w * (tps % 65521) + t2) % 65521;
  s1 = (s1 + t1) % 65521;
  return (uint32_t)(s2 << 16 | s1);
}

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
static inline uint64_t sumU32x4(v128_t v) {
  return (uint64_t)wasm_u32x4_extract_lane(v, 0) + wasm_u32x4_extract_lane(v, 1) + wasm_u32x4_extract_lane(v, 2) + wasm_u32x4_extract_lane(v, 3);
}
static uint32_t adlerWasm(uint32_t a, const uint8_t *p, size_t n) {
  const v128_t wlo = wasm_i16x8_make(16, 15, 14, 13, 12, 11, 10, 9), whi = wasm_i16x8_make(8, 7, 6, 5, 4, 3, 2, 1);
  while (n >= 16) {
    size_t k = (n < 5552 ? n : 5552) & ~(size_t)15;
    n -= k;
    v128_t vs1 = wasm_i32x4_splat(0), vps = vs1, vs2 = vs1;
    for (size_t i = 0; i < k; i += 16) {
      v128_t b = wasm_v128_load(p + i);
      v128_t lo = wasm_u16x8_extend_low_u8x16(b), hi = wasm_u16x8_extend_high_u8x16(b);
      vps = wasm_i32x4_add(vps, vs1);
      vs1 = wasm_i32x4_add(vs1, wasm_u32x4_extadd_pairwise_u16x8(wasm_i16x8_add(lo, hi)));
      vs2 = wasm_i32x4_add(vs2, wasm_i32x4_add(wasm_i32x4_dot_i16x8(lo, wlo), wasm_i32x4_dot_i16x8(hi, whi)));
    }
    a = adlerCombine(a, k, 16, sumU32x4(vs1), sumU32x4(vps), sumU32x4(vs2));
    p += k;
  }
  return adlerScalar(a, p, n);
}
#endif

#if defined(__x86_64__)
#include <immintrin.h>
__attribute__((target("avx2"))) static inline uint64_t sumU32x8(__m256i v) {
  uint32_t t[8];
  _mm256_storeu_si256((__m256i *)t, v);
  return (uint64_t)t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7];
}
__attribute__((target("avx2"))) static uint32_t adlerAvx2(uint32_t a, const uint8_t *p, size_t n) {
  const __m256i w = _mm256_setr_epi8(32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1);
  const __m256i ones = _mm256_set1_epi16(1), zero = _mm256_setzero_si256();
  while (n >= 32) {
    size_t k = (n < 5552 ? n : 5552) & ~(size_t)31;
    n -= k;
    __m256i vs1 = zero, vps = zero, vs2 = zero;
    for (size_t i = 0; i < k; i += 32) {
      __m256i b = _mm256_loadu_si256((const __m256i *)(p + i));
      vps = _mm256_add_epi32(vps, vs1);
      vs1 = _mm256_add_epi32(vs1, _mm256_sad_epu8(b, zero));
      vs2 = _mm256_add_epi32(vs2, _mm256_madd_epi16(_mm256_maddubs_epi16(b, w), ones));
    }
    a = adlerCombine(a, k, 32, sumU32x8(vs1), sumU32x8(vps), sumU32x8(vs2));
    p += k;
  }
  return adlerScalar(a, p, n);
}
#endif

uint32_t cairnAdler32(uint32_t a, const uint8_t *p, size_t n) {
#if defined(__wasm_simd128__)
  if (n >= 64 && (cairn_cpu_features() & CAIRN_CPU_WASM128)) return adlerWasm(a, p, n);
#endif
#if defined(__x86_64__)
  if (n >= 64 && (cairn_cpu_features() & CAIRN_CPU_AVX2)) return adlerAvx2(a, p, n);
#endif
  return adlerScalar(a, p, n);
}
