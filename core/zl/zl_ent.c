/*
** 2026-11-29
**
** core/zl/zl_ent.c - decoders (and a Huffman encoder) of OpenZL's entropy stages, whose bit
** formats are those of zstd's FSE and Huffman (RFC 8878 sections 4.1 and 4.2):
**   fse_ncount (52): serial normalized-count header -> numeric int16 counts
**   fse_v2 (49): (counts, backward bitstream) -> serial; header = state count (2 or 4) +
**                decoded size; symbols come round-robin from the states
**   huffman_v2 (50): (one weight per symbol, bitstream) -> serial; header = flags (bit0: four
**                streams with a 6-byte jump table) + decoded size
** Encoder: huffman_v2 (cairnZlHufEncode), code lengths limited to 11 bits, four streams when
** their sizes fit the 16-bit jump table.
** Bitstreams are read backward from the marker bit of their last byte; bits below the start
** read as zero when peeked, never when consumed. Every table size is capped (FSE 12 bits,
** Huffman 12 bits) before it is built.
*/
#include "zl/zl_int.h"

/* Backward bit reader: p = number of unread bits (they are bits [0, p) of the LE integer). */
typedef struct {
  const uint8_t *b;
  size_t n;
  int64_t p;
} BitR;
static int brInit(BitR *r, const uint8_t *b, size_t n) {
  if (n == 0 || b[n - 1] == 0) return BAD("zl: entropy bitstream without end marker");
  r->b = b, r->n = n;
  r->p = (int64_t)(8 * (n - 1)) + (31 - __builtin_clz(b[n - 1]));
  return CAIRN_OK;
}
/* bits [a, a+k) with zeros below 0; k <= 32 */
static inline uint32_t brGet(const BitR *r, int64_t a, unsigned k) {
  if (k == 0 || a <= -(int64_t)k) return 0;
  int shift = 0;
  if (a < 0) shift = (int)-a, a = 0; /* shift later: bits below the start are zero */
  size_t i = (size_t)(a >> 3);
  uint64_t v = 0;
  if (i + 8 <= r->n) v = cairnGetLE64(r->b + i);
  else
    for (size_t j = 0; i + j < r->n && j < 8; j++) v |= (uint64_t)r->b[i + j] << (8 * j);
  v >>= (a & 7);
  v <<= shift;
  return (uint32_t)(v & ((1ull << k) - 1));
}
static inline uint32_t brPeek(const BitR *r, unsigned k) { return brGet(r, r->p - (int64_t)k, k); }
static inline uint32_t brRead(BitR *r, unsigned k) {
  uint32_t v = brPeek(r, k);
  r->p -= k;
  return v;
}

/* ---------------------------------------------------------------- FSE */

#define FSE_MAXLOG 12
typedef struct {
  uint16_t next;
  uint8_t sym, nb;
} FseD;

static int fseBuild(FseD *t, const int16_t *norm, unsigned nSym, unsigned log) {
  unsigned size = 1u << log, high = size - 1, step = (size >> 1) + (size >> 3) + 3, pos = 0;
  uint16_t nextS[256];
  for (unsigned s = 0; s < nSym; s++) {
    if (norm[s] == -1) t[high--].sym = (uint8_t)s, nextS[s] = 1;
    else nextS[s] = (uint16_t)norm[s];
  }
  for (unsigned s = 0; s < nSym; s++)
    for (int i = 0; i < norm[s]; i++) {
      t[pos].sym = (uint8_t)s;
      do pos = (pos + step) & (size - 1);
      while (pos > high);
    }
  if (pos != 0) return BAD("zl: FSE counts do not spread over the table");
  for (unsigned u = 0; u < size; u++) {
    unsigned s = t[u].sym, x = nextS[s]++;
    unsigned nb = log - (31 - __builtin_clz(x));
    t[u].nb = (uint8_t)nb, t[u].next = (uint16_t)((x << nb) - size);
  }
  return CAIRN_OK;
}

/* 52: FSE normalized counts (zstd's header format) */
static int decFseNcount(ZlDec *d, const uint8_t *h, size_t nh, ZlStream **in, size_t nIn, ZlStream **out, size_t nOut) {
  const uint8_t *b = in[0]->p;
  size_t n = in[0]->nb;
  int16_t norm[256] = {0}; /* symbols skipped by zero runs stay 0 */
  uint64_t bp = 0;
#define NC_PEEK(k) ((uint32_t)((bp >> 3) < n ? (cairnGetLEn(b + (bp >> 3), (unsigned)CAIRN_MIN(8, n - (bp >> 3))) >> (bp & 7)) & ((1ull << (k)) - 1) : 0))
  if (n == 0) return BAD("zl: empty FSE count header");
  unsigned log = NC_PEEK(4) + 5;
  bp += 4;
  if (log > FSE_MAXLOG) return BAD("zl: FSE table log %u too large", log);
  int remaining = (1 << log) + 1, threshold = 1 << log, nbBits = (int)log + 1;
  unsigned nSym = 0;
  int prev0 = 0;
  for (;;) {
    if (prev0) {
      unsigned r;
      while ((r = NC_PEEK(2)) == 3) {
        nSym += 3, bp += 2;
        if (nSym > 256 || bp > 8 * (uint64_t)n) return BAD("zl: FSE zero run past 256 symbols");
      }
      nSym += r, bp += 2;
      if (nSym >= 256) break;
    }
    int max = (2 * threshold - 1) - remaining, count;
    if ((int)NC_PEEK(nbBits - 1) < max) {
      count = (int)NC_PEEK(nbBits - 1);
      bp += (unsigned)nbBits - 1;
    } else {
      count = (int)NC_PEEK(nbBits);
      if (count >= threshold) count -= max;
      bp += (unsigned)nbBits;
    }
    count--;
    remaining -= count < 0 ? -count : count;
    if (nSym >= 256) return BAD("zl: FSE counts for more than 256 symbols");
    norm[nSym++] = (int16_t)count;
    prev0 = count == 0;
    if (remaining < threshold) {
      if (remaining <= 1) break;
      nbBits = (31 - __builtin_clz((unsigned)remaining)) + 1;
      threshold = 1 << (nbBits - 1);
    }
    if (nSym >= 256) break;
    if (bp > 8 * (uint64_t)n) return BAD("zl: truncated FSE count header");
  }
#undef NC_PEEK
  if (remaining != 1 || nSym > 256 || (bp + 7) / 8 != n) return BAD("zl: bad FSE count header (%zu bytes)", n);
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_NUMERIC, 2, nSym));
  for (unsigned s = 0; s < nSym; s++) cairnPutLE16(out[0]->p + 2 * s, (uint16_t)norm[s]);
  return CAIRN_OK;
}

/* 49: FSE with 2 or 4 interleaved states */
static int decFse(ZlDec *d, const uint8_t *h, size_t nh, ZlStream **in, size_t nIn, ZlStream **out, size_t nOut) {
  const ZlStream *c = in[0], *bits = in[1];
  if (c->width != 2 || c->n < 2 || c->n > 256) return BAD("zl: FSE needs 2..256 int16 counts");
  if (nh < 2 || nh > 9 || (h[0] != 2 && h[0] != 4)) return BAD("zl: bad FSE header");
  unsigned nst = h[0];
  uint64_t n = cairnGetLEn(h + 1, (unsigned)nh - 1);
  if (n < 2) return BAD("zl: FSE output of %llu symbols", (unsigned long long)n);
  int16_t norm[256];
  unsigned sum = 0;
  for (size_t s = 0; s < c->n; s++) {
    norm[s] = (int16_t)cairnGetLE16(c->p + 2 * s);
    if (norm[s] < -1) return BAD("zl: negative FSE count");
    sum += norm[s] == -1 ? 1u : (unsigned)norm[s];
  }
  if (sum < 32 || sum > (1u << FSE_MAXLOG) || (sum & (sum - 1))) return BAD("zl: FSE counts sum to %u", sum);
  unsigned log = 31 - __builtin_clz(sum);
  /* every state update reads at most `log` bits: the stream bounds the output size */
  if (n > (uint64_t)bits->nb * 8 * 16 + 64) return BAD("zl: FSE output of %llu symbols from %zu bytes", (unsigned long long)n, bits->nb);
  FseD t[1u << FSE_MAXLOG];
  CAIRN_TRY(fseBuild(t, norm, (unsigned)c->n, log));
  BitR r = {0};
  CAIRN_TRY(brInit(&r, bits->p, bits->nb));
  unsigned st[4];
  for (unsigned k = 0; k < nst; k++) st[k] = brRead(&r, log);
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_SERIAL, 1, (size_t)n));
  uint8_t *o = out[0]->p;
  size_t nUpd = n > nst ? (size_t)n - nst : 0;
  for (size_t i = 0; i < n; i++) {
    unsigned k = (unsigned)(i % nst);
    const FseD *e = &t[st[k]];
    o[i] = e->sym;
    if (i < nUpd) st[k] = e->next + brRead(&r, e->nb);
  }
  if (r.p != 0) return BAD("zl: FSE bitstream %s", r.p > 0 ? "not fully used" : "overrun");
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- Huffman */

#define HUF_MAXLOG 12
typedef struct {
  uint8_t sym, nb;
} HufD;

static int hufBuild(HufD *t, const uint8_t *w, size_t nw, unsigned *pLog, unsigned minL) {
  if (nw < 2 || nw > 256) return BAD("zl: Huffman with %zu weights", nw);
  unsigned sum = 0, nz = 0, cnt[HUF_MAXLOG + 2] = {0};
  for (size_t i = 0; i < nw; i++) {
    if (w[i] > HUF_MAXLOG) return BAD("zl: Huffman weight %u too large", w[i]);
    sum += (1u << w[i]) >> 1, nz += w[i] != 0, cnt[w[i]]++;
  }
  if (nz < 2 || sum == 0 || (sum & (sum - 1))) return BAD("zl: Huffman weights sum to %u", sum);
  unsigned log = 31 - __builtin_clz(sum);
  if (log > HUF_MAXLOG) return BAD("zl: Huffman table log %u", log);
  /* the table has 2^L entries, L = max(log, minL) (each code's run scaled up when log is
  ** smaller): not a fixed 2^12, whose build cost more than decoding 5000 symbols */
  unsigned L = log > minL ? log : minL, start[HUF_MAXLOG + 2], next = 0, sh = L - log;
  for (unsigned k = 1; k <= log; k++) start[k] = next, next += cnt[k] << (k - 1 + sh);
  for (size_t s = 0; s < nw; s++) {
    unsigned k = w[s];
    if (!k) continue;
    unsigned len = 1u << (k - 1 + sh);
    for (unsigned u = 0; u < len; u++) t[start[k] + u].sym = (uint8_t)s, t[start[k] + u].nb = (uint8_t)(log + 1 - k);
    start[k] += len;
  }
  *pLog = L;
  return CAIRN_OK;
}

/* Runs: entry u of the 2^L table holds the code at the top of u and the codes after it that
** also lie wholly in u, up to 4 (zstd's "X2" idea, longer: a small alphabet's 2-3 bit codes
** come 3 or 4 per lookup). */
typedef struct {
  uint8_t s[4], nb, n, pad[2]; /* symbols, bits of all, 1 to 4; 8 bytes: a scaled index */
} HufD2;
static void hufBuildPairs(HufD2 *t2, const HufD *t, unsigned L) {
  unsigned kMax = L <= 8 ? 4 : 2; /* long tables (wide alphabets) stay pairs: cheaper to build */
  for (unsigned u = 0; u < (1u << L); u++) {
    unsigned used = 0, k = 0;
    memset(t2[u].s, 0, 4);
    while (k < kMax) {
      const HufD *e = &t[(u << used) & ((1u << L) - 1)];
      if (k && used + e->nb > L) break;
      t2[u].s[k++] = e->sym, used += e->nb;
    }
    t2[u].nb = (uint8_t)used, t2[u].n = (uint8_t)k;
  }
}

/* ns streams (1 or 4) decoded side by side, then each finished alone. Fast part (with a run
** table): while every stream has 57 unread bits or more and room for 20 symbols, one 8-byte
** load per stream gives 4 lookups of L <= 12 bits, 4 to 16 symbols (each lookup stores 4 bytes). */
static inline __attribute__((always_inline)) int hufDecode(const HufD *t, const HufD2 *t2, unsigned L, int ns, const uint8_t *const *b,
                                                          const size_t *nb, uint8_t *const *o, const size_t *no) {
  BitR r[4] = {{0}};
  size_t done[4] = {0};
  for (int k = 0; k < ns; k++) CAIRN_TRY(brInit(&r[k], b[k], nb[k]));
  while (t2) {
    int ok = 1;
    for (int k = 0; k < ns; k++) ok &= r[k].p >= 57 && no[k] - done[k] >= 20;
    if (!ok) break;
    for (int k = 0; k < ns; k++) {
      size_t a = (size_t)(r[k].p - 1) / 8 - 7; /* the 8 bytes that end with bit p - 1 */
      uint64_t x = cairnGetLE64(b[k] + a) << (64 - (r[k].p - 8 * (int64_t)a));
      unsigned used = 0;
      uint8_t *q = o[k] + done[k];
      for (int j = 0; j < 4; j++) {
        HufD2 e = t2[x >> (64 - L)];
        memcpy(q, e.s, 4);
        q += e.n, x <<= e.nb, used += e.nb;
      }
      done[k] = (size_t)(q - o[k]), r[k].p -= used;
    }
  }
  for (int k = 0; k < ns; k++) {
    for (size_t j = done[k]; j < no[k]; j++) {
      const HufD *e = &t[brPeek(&r[k], L)];
      o[k][j] = e->sym;
      r[k].p -= e->nb;
      if (r[k].p < 0) return BAD("zl: Huffman bitstream overrun");
    }
    if (r[k].p != 0) return BAD("zl: Huffman bitstream not fully used");
  }
  return CAIRN_OK;
}
static int hufDecode4(const HufD *t, const HufD2 *t2, unsigned L, const uint8_t *b, size_t nb, uint8_t *o, size_t n);
static int decHuffman(ZlDec *d, const uint8_t *h, size_t nh, ZlStream **in, size_t nIn, ZlStream **out, size_t nOut) {
  const ZlStream *wt = in[0], *bits = in[1];
  if (nh < 2 || nh > 9) return BAD("zl: bad Huffman header");
  int x4 = h[0] & 1;
  uint64_t n = cairnGetLEn(h + 1, (unsigned)nh - 1);
  if (n < 2) return BAD("zl: Huffman output of %llu symbols", (unsigned long long)n);
  if (n > (uint64_t)bits->nb * 8 * 16 + 64) return BAD("zl: Huffman output of %llu symbols from %zu bytes", (unsigned long long)n, bits->nb);
  HufD t[1u << HUF_MAXLOG];
  unsigned log = 0;
  /* with 2^L >= n / 8 table entries: lookups of at least 8 bits (several short codes each) */
  CAIRN_TRY(hufBuild(t, wt->p, wt->nb, &log, n >= 2048 ? 8 : 1));
  CAIRN_TRY(cairnZlNewStream(d, out[0], ZT_SERIAL, 1, (size_t)n));
  const uint8_t *b = bits->p;
  /* the pair table pays for its 2^log entries from about as many symbols on */
  HufD2 *t2 = n >= (1u << log) && n >= 64 ? cairnMalloc(sizeof(HufD2) << log) : NULL;
  if (t2) hufBuildPairs(t2, t, log);
  int rc;
  if (!x4) {
    size_t nb1 = bits->nb, no1 = (size_t)n;
    uint8_t *o1 = out[0]->p;
    rc = hufDecode(t, t2, log, 1, &b, &nb1, &o1, &no1);
  } else rc = hufDecode4(t, t2, log, b, bits->nb, out[0]->p, (size_t)n);
  cairnFree(t2);
  return rc;
}

static int hufDecode4(const HufD *t, const HufD2 *t2, unsigned L, const uint8_t *b, size_t nb, uint8_t *o, size_t n) {
  if (nb < 10) return BAD("zl: 4-stream Huffman of %zu bytes", nb);
  size_t l[4] = {cairnGetLE16(b), cairnGetLE16(b + 2), cairnGetLE16(b + 4), 0};
  if (l[0] + l[1] + l[2] + 6 > nb) return BAD("zl: Huffman jump table beyond the stream");
  l[3] = nb - 6 - l[0] - l[1] - l[2];
  size_t seg = (n + 3) / 4;
  if (3 * seg > n) return BAD("zl: Huffman output too small for 4 streams");
  const uint8_t *ab[4] = {b + 6, b + 6 + l[0], b + 6 + l[0] + l[1], b + 6 + l[0] + l[1] + l[2]};
  uint8_t *ao[4] = {o, o + seg, o + 2 * seg, o + 3 * seg};
  size_t an[4] = {seg, seg, seg, n - 3 * seg};
  return hufDecode(t, t2, L, 4, ab, l, ao, an);
}

/* 51: huffman_struct_v2, OpenZL's "large" Huffman over 16-bit symbols: (one weight per symbol
** 0..nW-1, nW <= 65536, weights <= 20, bitstreams) -> struct of 2-byte elements; header = flags
** (bit0: four streams) + decoded count. Each stream is LE32 symbol count, LE32 byte size, then a
** backward bitstream; the four-stream form is four of them, all bytes used. Symbol s of weight
** w > 0 has code length tableLog + 1 - w, codes in order of (weight, symbol) as zstd's. */
#define HUF16_MAXLOG 20
typedef struct {
  uint16_t sym, nb;
} HufD16;
ZL_MINSIZE static int decHuffmanStruct(ZlDec *d, const uint8_t *h, size_t nh, ZlStream **in, size_t nIn, ZlStream **out, size_t nOut) {
  const ZlStream *wt = in[0], *bits = in[1];
  (void)nIn, (void)nOut;
  if (wt->width != 1) return BAD("zl: Huffman-struct weights of %u bytes", wt->width);
  if (nh < 2 || nh > 9) return BAD("zl: bad Huffman-struct header of %zu bytes", nh);
  int x4 = h[0] & 1;
  uint64_t n = cairnGetLEn(h + 1, (unsigned)nh - 1);
  if (n < 2) return BAD("zl: Huffman-struct output of %llu symbols", (unsigned long long)n);
  /* a code is at least one bit: n symbols need n/8 bytes */
  if (n > (uint64_t)bits->nb * 8 + 64) return BAD("zl: Huffman-struct output of %llu symbols from %zu bytes", (unsigned long long)n, bits->nb);
  size_t nW = wt->n;
  if (nW < 2 || nW > 65536) return BAD("zl: Huffman-struct alphabet of %zu weights", nW);
  uint64_t sum = 0;
  size_t nNZ = 0;
  unsigned cnt[HUF16_MAXLOG + 2] = {0};
  for (size_t s = 0; s < nW; s++) {
    unsigned w = wt->p[s];
    if (w > HUF16_MAXLOG) return BAD("zl: Huffman-struct weight %u of symbol %zu above %d", w, s, HUF16_MAXLOG);
    if (w) sum += 1ull << (w - 1), nNZ++;
    cnt[w]++;
  }
  if (nNZ < 2 || (sum & (sum - 1))) return BAD("zl: Huffman-struct weights do not make a code (%zu used, sum %llu)", nNZ, (unsigned long long)sum);
  unsigned log = (unsigned)(63 - __builtin_clzll(sum));
  if (log > HUF16_MAXLOG) return BAD("zl: Huffman-struct table log %u", log);
  HufD16 *t = cairnMalloc(sizeof(HufD16) << log);
  if (!t) return cairnErr(CAIRN_NOMEM, "zl: out of memory for a Huffman table");
  uint32_t start[HUF16_MAXLOG + 2];
  for (unsigned w = 1, pos = 0; w <= log + 1 && w <= HUF16_MAXLOG; w++) start[w] = pos, pos += cnt[w] << (w - 1);
  for (size_t s = 0; s < nW; s++) {
    unsigned w = wt->p[s];
    if (!w) continue;
    HufD16 e = {(uint16_t)s, (uint16_t)(log + 1 - w)};
    for (uint32_t i = 0, len = 1u << (w - 1); i < len; i++) t[start[w] + i] = e;
    start[w] += 1u << (w - 1);
  }
  int rc = cairnZlNewStream(d, out[0], ZT_STRUCT, 2, (size_t)n);
  const uint8_t *b = bits->p, *e = b + bits->nb;
  uint8_t *o = rc ? NULL : out[0]->p;
  size_t done = 0;
  for (int k = 0; !rc && k < (x4 ? 4 : 1); k++) {
    if (e - b < 8) {
      rc = BAD("zl: Huffman-struct stream %d header truncated", k);
      break;
    }
    uint32_t m = cairnGetLE32(b), sz = cairnGetLE32(b + 4);
    b += 8;
    if (sz > (size_t)(e - b) || m > n - done) {
      rc = BAD("zl: Huffman-struct stream %d of %u symbols in %u bytes overruns", k, m, sz);
      break;
    }
    BitR r = {0};
    if ((rc = brInit(&r, b, sz))) break;
    for (uint32_t i = 0; i < m; i++) {
      const HufD16 *q = &t[brPeek(&r, log)];
      cairnPutLE16(o + 2 * (done + i), q->sym);
      r.p -= q->nb;
    }
    b += sz, done += m;
  }
  if (!rc && (done != n || b != e))
    rc = BAD("zl: Huffman-struct streams hold %zu of %llu symbols, %zu bytes unused", done, (unsigned long long)n, (size_t)(e - b));
  cairnFree(t);
  return rc;
}

/* ---------------------------------------------------------------- Huffman encoder */

/* A backward bitstream of the codes (code[s], nbits nb[s]): written from the last symbol to
** the first, so the decoder reads it front to back, and ending with a marker bit. o has 8
** bytes of slack. */
static uint8_t *hufPutStream(const uint16_t *code, const uint8_t *nbOf, const uint8_t *p, size_t n, uint8_t *o) {
  uint64_t acc = 0;
  unsigned nb = 0;
  size_t i = n;
#define HUF_PUT(s) (acc |= (uint64_t)code[s] << nb, nb += nbOf[s])
#define HUF_FLUSH() (cairnPutLE64(o, acc), o += nb >> 3, acc >>= nb & ~7u, nb &= 7)
  while (i & 3) i--, HUF_PUT(p[i]), HUF_FLUSH();
  while (i) { /* four codes of at most 11 bits fit the 64-bit accumulator beside 7 left over */
    i -= 4;
    HUF_PUT(p[i + 3]), HUF_PUT(p[i + 2]), HUF_PUT(p[i + 1]), HUF_PUT(p[i]);
    HUF_FLUSH();
  }
#undef HUF_PUT
#undef HUF_FLUSH
  acc |= (uint64_t)1 << nb, nb++;
  cairnPutLE64(o, acc);
  return o + ((nb + 7) >> 3);
}

#define HUF_ENC_LOG 11 /* longest code, as zstd's default: the decoder's table fits L1 */

size_t cairnZlHufEncode(const uint8_t *p, size_t n, uint8_t *w, size_t *pnw, int *px4, uint8_t **pOut) {
  uint32_t h[4][256], cnt[256];
  memset(h, 0, sizeof h);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) h[0][p[i]]++, h[1][p[i + 1]]++, h[2][p[i + 2]]++, h[3][p[i + 3]]++;
  for (; i < n; i++) h[0][p[i]]++;
  int m = 0, maxSym = 0;
  for (int s = 0; s < 256; s++) {
    cnt[s] = h[0][s] + h[1][s] + h[2][s] + h[3][s];
    if (cnt[s]) m++, maxSym = s;
  }
  *pOut = NULL;
  if (m < 2 || n < 2) return 0; /* constant: not for Huffman */
  uint8_t nbOf[256];
  cairnHuffLengths(cnt, 256, HUF_ENC_LOG, nbOf);
  unsigned log = 0;
  uint64_t bits = 0;
  for (int s = 0; s <= maxSym; s++) log = CAIRN_MAX(log, nbOf[s]), bits += (uint64_t)cnt[s] * nbOf[s];
  /* canonical codes as the decoder's table lays them out: weight 1 (longest) first, symbols in
  ** order within a weight; a code is its first table index >> (weight - 1) */
  unsigned start[HUF_ENC_LOG + 2] = {0}, nW[HUF_ENC_LOG + 2] = {0}, pos = 0;
  for (int s = 0; s <= maxSym; s++) w[s] = nbOf[s] ? (uint8_t)(log + 1 - nbOf[s]) : 0, nW[w[s]]++;
  for (unsigned k = 1; k <= log; k++) start[k] = pos, pos += nW[k] << (k - 1);
  uint16_t code[256] = {0};
  for (int s = 0; s <= maxSym; s++)
    if (w[s]) code[s] = (uint16_t)(start[w[s]] >> (w[s] - 1)), start[w[s]] += 1u << (w[s] - 1);
  *pnw = (size_t)maxSym + 1;
  size_t cap = (size_t)(bits / 8) + 4 * 8 + 16;
  if (cap > n + 4 * 8 + 16) return 0; /* caller checks the gain; this only bounds the buffer */
  uint8_t *o = cairnMalloc(cap);
  if (!o) return (size_t)-1;
  /* four streams with a jump table of three 16-bit sizes when they fit, as OpenZL does above
  ** 255 bytes; else one stream */
  size_t seg = (n + 3) / 4, nOut = 0;
  int x4 = n >= 256 && bits / 8 < 4 * 60000;
  if (x4) {
    uint8_t *q = o + 6;
    for (int k = 0; k < 4 && x4; k++) {
      uint8_t *e = hufPutStream(code, nbOf, p + k * seg, k < 3 ? seg : n - 3 * seg, q);
      if (k < 3 && e - q > 65535) x4 = 0;
      else if (k < 3) cairnPutLE16(o + 2 * k, (uint16_t)(e - q));
      q = e;
    }
    nOut = (size_t)(q - o);
  }
  if (!x4) nOut = (size_t)(hufPutStream(code, nbOf, p, n, o) - o);
  *px4 = x4, *pOut = o;
  return nOut;
}

#define S ZT_SERIAL
#define N ZT_NUMERIC
const ZlTransform cairnZlEntropyTransforms[] = {
    {ZID_FSE_NCOUNT, 1, 0, 1, {S}, N, decFseNcount, "fse_ncount"},
    {ZID_FSE, 2, 0, 1, {N, S}, S, decFse, "fse_v2"},
    {ZID_HUFFMAN, 2, 0, 1, {N, S}, S, decHuffman, "huffman_v2"},
    {ZID_HUFFMAN_STRUCT, 2, 0, 1, {N, S}, ZT_STRUCT, decHuffmanStruct, "huffman_struct_v2"},
    {0, 0, 0, 0, {0}, 0, NULL, NULL},
};
