/*
** 2026-12-02
**
** core/zl/zl_enc_csv.c - the encoder's CSV graphs: fields split by column (dispatch_string),
** numeric columns parsed to integers (parse_int), text columns as strings or tokens, the
** separators and line ends as their own streams. Compiled at -Os in wasm, as the whole encoder
** (CMakeLists.txt: zl_enc*.c).
*/
#define ZSTD_STATIC_LINKING_ONLY
#include <stdlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "zl/zl_int.h"

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
  if (n < 2 || i < n) return cairnZlEncNumeric(e, p, n, 8, 0);
  uint8_t v[8];
  cairnPutLE64(v, d0);
  int r = cairnZlEncNode1(e, ZID_NUM_TO_STRUCT, NULL, 0, cairnZlEncConstRun(e, d0 ? v : p, 8, d0 ? n - 1 : n));
  return d0 ? cairnZlEncNode1(e, ZID_DELTA, p, 8, r) : r;
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
        cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory"));
      } else {
        uint32_t mx = 0;
        for (size_t j = 0, o = 0; j < k; j++) memcpy(ac + o, c + aOff[j], aLn[j]), o += aLn[j], mx = CAIRN_MAX(mx, aLn[j]);
        unsigned aw = mx < 256 ? 1 : mx < 65536 ? 2 : 4;
        for (size_t j = 0; j < k; j++) cairnPutLEn(al + j * aw, aLn[j], aw);
        int two[2], in2[2];
        two[0] = cairnZlEncSerial(e, ac, nAlpha);
        two[1] = cairnZlEncNumeric(e, al, k, aw, 1);
        in2[0] = cairnZlEncNode(e, ZID_SEPARATE_STRING, NULL, 0, two, 2, 0); /* the alphabet is decoder input 0 */
        /* indices: at fast levels their byte planes (the numeric trials cost more than they
        ** gain; 2-byte indices' high bytes apart are a small alphabet, decoded several per lookup) */
        in2[1] = e->level <= 5 ? cairnZlEncNumBytes(e, ix, nStr, iw, 1) : cairnZlEncNumeric(e, ix, nStr, iw, 1);
        rc = cairnZlEncNode(e, ZID_TOKENIZE_STRING, NULL, 0, in2, 2, 0);
        cairnFree(ac), cairnFree(al);
      }
    }
  } else if (nStr >= 64) {
    cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory"));
  }
  cairnFree(ht), cairnFree(aOff), cairnFree(ix);
  if (rc != -1 || e->rc) return rc;
  int two[2];
  two[0] = cairnZlEncSerial(e, c, nb);
  two[1] = cairnZlEncNumeric(e, lb, nStr, lw, 1);
  return cairnZlEncNode(e, ZID_SEPARATE_STRING, NULL, 0, two, 2, 0);
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
  if (nRep < 16 || nRep * bestP < n / 2) return cairnZlEncNumeric(e, t, n, 2, 1);
  uint8_t lw = 1;
  int aIn[3], k = 0;
  if (bestM) aIn[k++] = cairnZlEncNumeric(e, t, bestM, 2, 1);
  int r = cairnZlEncNode1(e, ZID_SERIAL_TO_STRUCT, NULL, 0, cairnZlEncConstRun(e, t + 2 * bestM, 2 * bestP, nRep));
  aIn[k++] = cairnZlEncNode1(e, ZID_NUM_TO_SERIAL, &lw, 1, r);
  size_t end = bestM + nRep * bestP;
  if (end < n) aIn[k++] = cairnZlEncNumeric(e, t + 2 * end, n - end, 2, 1);
  return cairnZlEncNode(e, ZID_SPLITN_NUM, NULL, 0, aIn, k, k);
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
int cairnZlEncCsv(Enc *e, const uint8_t *p, size_t n) {
  size_t nField = 1 + csvSeps(p, n);
  /* per field: tag (column, bit 15 = an integer), length with separator, value; per string
  ** (at most two per field): source, start, length */
  uint16_t *tag = cairnMalloc(sizeof(uint16_t) * 3 * nField);
  uint32_t *len = cairnMalloc(sizeof(uint32_t) * 5 * nField);
  uint8_t *num = cairnMalloc(16 * nField + 8);
  uint8_t *buf = NULL, *lb = NULL;
  int rc = -1;
  if (!tag || !len || !num) {
    cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory"));
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
    cairnZlEncFail(e, cairnErr(CAIRN_NOMEM, "zl: out of memory"));
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
      aIn[1 + srcId[s]] = cairnZlEncNode1(e, ZID_PARSE_INT, NULL, 0, encCsvNum(e, buf + offC[s], srcN[s]));
    } else {
      aIn[1 + srcId[s]] = encCsvText(e, buf + offC[s], srcBytes[s], lb + offL[s], lw[s], srcN[s]);
    }
  }
  for (size_t f = 0; f < ns; f++) cairnPutLE16(buf + 2 * f, (uint16_t)srcId[sTag[f]]); /* the sources are done */
  /* tags through the numeric selector even at fast levels: the order-0 estimate of their raw
  ** bytes misses that rows repeat them (a 70-column table then looked incompressible) */
  aIn[0] = encCsvTags(e, buf, ns);
  e->noLz = 0;
  int r = cairnZlEncNode(e, ZID_DISPATCH_STRING, NULL, 0, aIn, 1 + (int)nId, (int)nId);
  rc = cairnZlEncNode1(e, ZID_SERIAL_STRING, NULL, 0, r);
done:
  cairnFree(tag), cairnFree(len), cairnFree(num), cairnFree(buf), cairnFree(lb);
  return rc;
}
#undef CSV_SRC
#undef CSV_COLS

