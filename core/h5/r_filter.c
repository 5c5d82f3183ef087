/*
** 2026-11-29
**
** core/h5/r_filter.c - the read side of the filter pipeline: deflate (1), shuffle (2),
** fletcher32 (3, verified), zstd (32015), LZ4 (32004, core/codec/lz4.c) and
** bitshuffle (32008: none, LZ4 and zstd modes), n-bit (5, atomic types) and scale-offset (6,
** integers and D-scaled floats). Anything else fails with CAIRN_UNSUPPORTED
** naming the filter id and the dataset path.
*/
#include "h5int.h"
#include "codec/lz4.h"
#include "codec/zdec.h"


static void unshuffle(const uint8_t *in, uint8_t *out, size_t n, size_t es) {
  size_t ne = n / es;
  if (ne == 0) { /* element size beyond the chunk (a corrupt parameter): nothing to undo */
    memcpy(out, in, n);
    return;
  }
  if (es == 4) {
    for (size_t i = 0; i < ne; i++) {
      out[4 * i] = in[i];
      out[4 * i + 1] = in[ne + i];
      out[4 * i + 2] = in[2 * ne + i];
      out[4 * i + 3] = in[3 * ne + i];
    }
  } else {
    for (size_t b = 0; b < es; b++)
      for (size_t i = 0; i < ne; i++) out[i * es + b] = in[b * ne + i];
  }
  memcpy(out + ne * es, in + ne * es, n - ne * es);
}

/* Inverse bitshuffle of one block of n elements (n a multiple of 8) of es bytes. */
static void bitunshuffleBlock(const uint8_t *in, uint8_t *out, size_t n, size_t es) {
  size_t rowBytes = n / 8;
  memset(out, 0, n * es);
  for (size_t b = 0; b < es; b++)
    for (size_t k = 0; k < 8; k++) {
      const uint8_t *row = in + (b * 8 + k) * rowBytes;
      for (size_t j = 0; j < rowBytes; j++) {
        uint8_t v = row[j];
        if (!v) continue;
        for (size_t t = 0; t < 8; t++)
          if (v & (1u << t)) out[(j * 8 + t) * es + b] |= (uint8_t)(1u << k);
      }
    }
}

static size_t bshufDefaultBlock(size_t es) {
  size_t bs = 8192 / es;
  bs = (bs / 8) * 8;
  return bs < 128 ? 128 : bs;
}

/* Bitshuffle decode of a whole chunk whose transposed blocks are in `in` (already
** decompressed block by block by the caller when compressed). */
static void bitunshuffleAll(const uint8_t *in, uint8_t *out, size_t nBytes, size_t es, size_t bs) {
  size_t ne = nBytes / es, done = 0;
  while (ne - done >= bs) {
    bitunshuffleBlock(in + done * es, out + done * es, bs, es);
    done += bs;
  }
  size_t last = ((ne - done) / 8) * 8;
  if (last) bitunshuffleBlock(in + done * es, out + done * es, last, es);
  done += last;
  memcpy(out + done * es, in + done * es, nBytes - done * es);
}


/* ---- n-bit (5) and scale-offset (6): packed bit fields, most significant bit first. ---- */
typedef struct BitReader {
  const uint8_t *p;
  size_t n, bit; /* bit position from the start */
} BitReader;
static int bitsGet(BitReader *b, unsigned nBits, uint64_t *pv) {
  if (nBits > 64 || b->bit + nBits > 8 * b->n) return 0;
  uint64_t v = 0;
  for (unsigned k = 0; k < nBits; k++, b->bit++) v = (v << 1) | ((b->p[b->bit >> 3] >> (7 - (b->bit & 7))) & 1);
  *pv = v;
  return 1;
}
static void putElem(uint8_t *dst, uint64_t v, unsigned size, int bigEndian) {
  for (unsigned k = 0; k < size; k++) {
    uint8_t byte = k < 8 ? (uint8_t)(v >> (8 * k)) : 0;
    dst[bigEndian ? size - 1 - k : k] = byte;
  }
}

/* n-bit for atomic types: params [nparams, flag, nelmts, class=1, size, order, precision,
** offset]; each element's `precision` bits, placed back at `offset` (other bits zero: the
** datatype's precision/offset tell readers which bits count). */
static int nbitDecode(const H5Filter *fl, const uint8_t *in, size_t n, size_t cap, uint8_t **pp, size_t *pn, const char *zPath, H5Scratch *S) {
  const uint32_t *a = fl->aParam;
  if (fl->nParam < 8 || a[3] != 1)
    return cairnErr(CAIRN_UNSUPPORTED, "hdf5: unsupported filter 5 (nbit) of a compound or array type in %s", zPath);
  uint64_t nElem = a[2];
  unsigned size = a[4], big = a[5] == 1, prec = a[6], off = a[7];
  if (size == 0 || size > 8 || prec == 0 || prec + off > 8 * size || nElem > cap / size)
    return cairnErr(CAIRN_CORRUPT, "hdf5: nbit parameters (size %u, precision %u, offset %u) in %s", size, prec, off, zPath);
  uint8_t *out = cairnH5ScrAlloc(S, (size_t)(nElem * size));
  if (!out) return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
  BitReader b = {in, n, 0};
  for (uint64_t i = 0; i < nElem; i++) {
    uint64_t v;
    if (!bitsGet(&b, prec, &v)) {
      cairnH5ScrFree(S, out);
      return cairnErr(CAIRN_CORRUPT, "hdf5: nbit chunk too short (%zu bytes for %llu elements) in %s", n, (unsigned long long)nElem, zPath);
    }
    putElem(out + i * size, off < 64 ? v << off : 0, size, big);
  }
  *pp = out;
  *pn = (size_t)(nElem * size);
  return CAIRN_OK;
}

/* scale-offset: params [scale type (0 float D-scale, 1 float E-scale, 2 integer), scale
** factor, nelmts, class (0 integer, 1 float), size, sign, order, fill defined, fill...].
** A chunk is: minbits (4 bytes LE), minval size (1 byte), minval (8 bytes LE, zero-padded to a
** 21-byte header), then nelmts values of minbits bits (MSB first) added to minval; the all-ones
** value stands for the fill value when one is defined. Floats (D-scale) are q / 10^factor +
** minval. */
static int scaleoffsetDecode(const H5Filter *fl, const uint8_t *in, size_t n, size_t cap, uint8_t **pp, size_t *pn, const char *zPath, H5Scratch *S) {
  const uint32_t *a = fl->aParam;
  if (fl->nParam < 8) return cairnErr(CAIRN_CORRUPT, "hdf5: scaleoffset filter with %u parameters in %s", fl->nParam, zPath);
  unsigned type = a[0], cls = a[3], size = a[4], isSigned = a[5], big = a[6] == 1, fillDef = a[7];
  int32_t factor = (int32_t)a[1];
  uint64_t nElem = a[2];
  if (type == 1) return cairnErr(CAIRN_UNSUPPORTED, "hdf5: unsupported filter 6 (scaleoffset, E-scale) in %s", zPath);
  if ((cls == 0 && (size == 0 || size > 8)) || (cls == 1 && size != 4 && size != 8) || cls > 1 || nElem > cap / (size ? size : 1))
    return cairnErr(CAIRN_CORRUPT, "hdf5: scaleoffset parameters (class %u, size %u) in %s", cls, size, zPath);
  if (n < 21) return cairnErr(CAIRN_CORRUPT, "hdf5: scaleoffset chunk of %zu bytes in %s", n, zPath);
  uint32_t minbits = cairnGetLE32(in);
  uint64_t minval = cairnGetLE64(in + 5);
  if (minbits > 8 * size) return cairnErr(CAIRN_CORRUPT, "hdf5: scaleoffset minbits %u for %u-byte values in %s", minbits, size, zPath);
  /* the fill value, in the dataset's byte order, follows the 8 fixed parameters */
  uint8_t fill[8] = {0};
  if (fillDef && fl->nParam >= 8 + (size + 3) / 4)
    for (unsigned k = 0; k < size; k++) fill[k] = (uint8_t)(a[8 + k / 4] >> (8 * (k % 4)));
  uint8_t *out = cairnH5ScrAlloc(S, (size_t)(nElem * size));
  if (!out) return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
  if (minbits == 8 * size) { /* stored as is */
    if (n - 21 < nElem * size) {
      cairnH5ScrFree(S, out);
      return cairnErr(CAIRN_CORRUPT, "hdf5: short scaleoffset chunk in %s", zPath);
    }
    /* the packed values are in the writer's (little-endian) order: put them in the file's */
    for (uint64_t i = 0; i < nElem; i++) putElem(out + i * size, cairnGetLEn(in + 21 + i * size, size), size, big);
  } else {
    BitReader b = {in + 21, n - 21, 0};
    uint64_t allOnes = minbits >= 64 ? UINT64_MAX : (((uint64_t)1 << minbits) - 1);
    double scale = 1;
    for (int32_t k = 0; k < (factor < 0 ? -factor : factor) && k < 400; k++) scale *= 10;
    for (uint64_t i = 0; i < nElem; i++) {
      uint64_t q = 0;
      if (minbits && !bitsGet(&b, minbits, &q)) {
        cairnH5ScrFree(S, out);
        return cairnErr(CAIRN_CORRUPT, "hdf5: scaleoffset chunk too short (%zu bytes for %llu elements) in %s", n, (unsigned long long)nElem, zPath);
      }
      uint8_t *dst = out + i * size;
      if (fillDef && minbits && q == allOnes) {
        memcpy(dst, fill, size);
        continue;
      }
      if (cls == 0) {
        putElem(dst, q + minval, size, big);
      } else if (size == 8) {
        double mv, v;
        memcpy(&mv, &minval, 8);
        v = (factor >= 0 ? (double)q / scale : (double)q * scale) + mv;
        uint64_t u;
        memcpy(&u, &v, 8);
        putElem(dst, u, 8, big);
      } else {
        float mv;
        uint32_t m32 = (uint32_t)minval;
        memcpy(&mv, &m32, 4);
        /* single precision throughout, as the writer's inverse computes it */
        float v = (factor >= 0 ? (float)q / (float)scale : (float)q * (float)scale) + mv;
        uint32_t u;
        memcpy(&u, &v, 4);
        putElem(dst, u, 4, big);
      }
    }
    (void)isSigned;
  }
  *pp = out;
  *pn = (size_t)(nElem * size);
  return CAIRN_OK;
}

static int filterName(const H5Filter *fl, const char **pz) {
  switch (fl->id) {
    case 1: *pz = "deflate"; break;
    case 2: *pz = "shuffle"; break;
    case 3: *pz = "fletcher32"; break;
    case 4: *pz = "szip"; break;
    case 5: *pz = "nbit"; break;
    case 6: *pz = "scaleoffset"; break;
    case 307: *pz = "bzip2"; break;
    case 32000: *pz = "lzf"; break;
    case 32001: *pz = "blosc"; break;
    case 32004: *pz = "lz4"; break;
    case 32008: *pz = "bitshuffle"; break;
    case 32013: *pz = "zfp"; break;
    case 32015: *pz = "zstd"; break;
    case 32026: *pz = "blosc2"; break;
    default: *pz = fl->zName[0] ? fl->zName : "unknown";
  }
  return CAIRN_OK;
}

/* ---- scratch of a chunked read (h5int.h H5Scratch) ----
** A block is [capacity, 16 bytes][data]: cairnH5ScrFree learns a returned block's size from it.
** Freed blocks wait in S->ap (at most H5_SCR_KEEP; a decode holds at most three at once). */
#define SCR_HEAD 16
uint8_t *cairnH5ScrAlloc(H5Scratch *S, size_t n) {
  if (!S) return cairnMalloc(n ? n : 1);
  int best = -1;
  size_t cBest = 0;
  for (int i = 0; i < H5_SCR_KEEP; i++) {
    size_t c;
    if (!S->ap[i]) continue;
    memcpy(&c, S->ap[i] - SCR_HEAD, sizeof c);
    if (c >= n && (best < 0 || c < cBest)) best = i, cBest = c;
  }
  if (best >= 0) {
    uint8_t *p = S->ap[best];
    S->ap[best] = NULL;
    return p;
  }
  size_t c = n > S->nHint ? n : S->nHint;
  if (c > SIZE_MAX - SCR_HEAD) return NULL;
  uint8_t *q = cairnMalloc(c + SCR_HEAD);
  if (!q) return NULL;
  memcpy(q, &c, sizeof c);
  return q + SCR_HEAD;
}
void cairnH5ScrFree(H5Scratch *S, uint8_t *p) {
  if (!S) {
    cairnFree(p);
    return;
  }
  if (!p) return;
  for (int i = 0; i < H5_SCR_KEEP; i++)
    if (!S->ap[i]) {
      S->ap[i] = p;
      return;
    }
  cairnFree(p - SCR_HEAD);
}
void cairnH5ScrClear(H5Scratch *S) {
  for (int i = 0; i < H5_SCR_KEEP; i++) {
    if (S->ap[i]) cairnFree(S->ap[i] - SCR_HEAD);
    S->ap[i] = NULL;
  }
  cairnZDecFree(S->pDec);
  S->pDec = NULL;
}

int cairnH5Unfilter(const H5Pipeline *pl, uint32_t mask, uint8_t *pIn, size_t nIn, size_t nOut, uint8_t **ppOut, size_t *pnOut,
               const char *zPath, uint64_t addr, H5Scratch *S) {
  uint8_t *cur = pIn; /* owned */
  size_t n = nIn;
  int rc = CAIRN_OK;
  size_t cap = nOut + 64;
  for (int i = (int)pl->n - 1; i >= 0 && rc == CAIRN_OK; i--) {
    if (mask & (1u << i)) continue;
    const H5Filter *fl = &pl->a[i];
    uint8_t *nxt = NULL;
    size_t nn = 0;
    switch (fl->id) {
      case 1: /* deflate */
        nxt = cairnH5ScrAlloc(S, cap);
        if (!nxt) return cairnH5ScrFree(S, cur), cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
        rc = S ? cairnZDecompressWith(&S->pDec, CAIRN_DEFLATE, cur, n, nxt, cap, &nn) : cairn_zdecompress(CAIRN_DEFLATE, cur, n, nxt, cap, &nn);
        break;
      case 32015: { /* zstd */
        uint64_t cs;
        size_t c2 = cap;
        if (cairn_zstd_content_size(cur, n, &cs) == CAIRN_OK && cs <= H5_MAX_CHUNK) c2 = (size_t)cs;
        nxt = cairnH5ScrAlloc(S, c2);
        if (!nxt) return cairnH5ScrFree(S, cur), cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
        rc = S ? cairnZDecompressWith(&S->pDec, CAIRN_ZSTD, cur, n, nxt, c2, &nn) : cairn_zdecompress(CAIRN_ZSTD, cur, n, nxt, c2, &nn);
        break;
      }
      case 2: { /* shuffle */
        size_t es = fl->nParam ? fl->aParam[0] : 1;
        if (es <= 1) break;
        nxt = cairnH5ScrAlloc(S, n);
        if (!nxt) return cairnH5ScrFree(S, cur), cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
        unshuffle(cur, nxt, n, es);
        nn = n;
        break;
      }
      case 3: { /* fletcher32 */
        if (n < 4) {
          rc = cairnErr(CAIRN_CORRUPT, "hdf5: fletcher32 chunk of %zu bytes at offset %llu in %s", n, (unsigned long long)addr, zPath);
          break;
        }
        uint32_t want = cairnGetLE32(cur + n - 4), got = cairnH5Fletcher32(cur, n - 4);
        if (want != got) {
          /* Files written on big-endian machines by old libraries stored it byte-swapped. */
          uint32_t sw = (want >> 24) | ((want >> 8) & 0xff00) | ((want << 8) & 0xff0000) | (want << 24);
          if (sw != got)
            rc = cairnErr(CAIRN_CHECKSUM, "hdf5: fletcher32 mismatch in the chunk at offset %llu of %s", (unsigned long long)addr, zPath);
        }
        n -= 4;
        break;
      }
      case 32004: { /* lz4: 8-byte BE size, 4-byte BE block size, then blocks */
        if (n < 12) {
          rc = cairnErr(CAIRN_CORRUPT, "hdf5: lz4 chunk too short at offset %llu in %s", (unsigned long long)addr, zPath);
          break;
        }
        uint64_t total = cairnGetBE64(cur);
        uint32_t bs = cairnGetBE32(cur + 8);
        if (total > H5_MAX_CHUNK || total > cap || bs == 0) {
          rc = cairnErr(CAIRN_CORRUPT, "hdf5: lz4 chunk header (size %llu, block %u) at offset %llu in %s", (unsigned long long)total, bs,
                        (unsigned long long)addr, zPath);
          break;
        }
        nxt = cairnH5ScrAlloc(S, (size_t)total);
        if (!nxt) return cairnH5ScrFree(S, cur), cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
        size_t ip = 12, op = 0;
        while (op < total && rc == CAIRN_OK) {
          size_t want = (size_t)CAIRN_MIN((uint64_t)bs, total - op);
          if (n - ip < 4) {
            rc = cairnErr(CAIRN_CORRUPT, "hdf5: truncated lz4 chunk at offset %llu in %s", (unsigned long long)addr, zPath);
            break;
          }
          uint32_t cs = cairnGetBE32(cur + ip);
          ip += 4;
          if (cs > n - ip) {
            rc = cairnErr(CAIRN_CORRUPT, "hdf5: lz4 block overruns its chunk at offset %llu in %s", (unsigned long long)addr, zPath);
            break;
          }
          if (cs == want) memcpy(nxt + op, cur + ip, want); /* stored raw */
          else {
            size_t got;
            rc = cairnLz4Decompress(cur + ip, cs, nxt + op, want, &got);
            if (rc == CAIRN_OK && got != want)
              rc = cairnErr(CAIRN_CORRUPT, "hdf5: lz4 block decoded to %zu bytes, not %zu, in %s", got, want, zPath);
          }
          ip += cs;
          op += want;
        }
        nn = (size_t)total;
        break;
      }
      case 32008: { /* bitshuffle */
        size_t es = fl->nParam > 2 ? fl->aParam[2] : 0;
        size_t bs = fl->nParam > 3 ? fl->aParam[3] : 0;
        unsigned comp = fl->nParam > 4 ? fl->aParam[4] : 0;
        if (es == 0 || es > 1024) {
          rc = cairnErr(CAIRN_CORRUPT, "hdf5: bitshuffle element size %zu in %s", es, zPath);
          break;
        }
        if (bs == 0) bs = bshufDefaultBlock(es);
        if (bs % 8) {
          rc = cairnErr(CAIRN_CORRUPT, "hdf5: bitshuffle block size %zu in %s", bs, zPath);
          break;
        }
        uint8_t *tr = NULL;
        size_t total;
        if (comp == 0) {
          total = n;
          tr = cur;
          cur = NULL;
        } else if (comp == 2 || comp == 3) {
          if (n < 12) {
            rc = cairnErr(CAIRN_CORRUPT, "hdf5: bitshuffle chunk too short in %s", zPath);
            break;
          }
          uint64_t t64 = cairnGetBE64(cur);
          uint32_t bb = cairnGetBE32(cur + 8);
          if (bb) bs = bb / es;
          if (t64 > H5_MAX_CHUNK || t64 > cap || bs == 0 || bs % 8) {
            rc = cairnErr(CAIRN_CORRUPT, "hdf5: bitshuffle header (size %llu, block %u bytes) in %s", (unsigned long long)t64, bb, zPath);
            break;
          }
          total = (size_t)t64;
          tr = cairnH5ScrAlloc(S, total);
          if (!tr) return cairnH5ScrFree(S, cur), cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
          size_t ne = total / es, done = 0, ip = 12;
          while (done < ne && rc == CAIRN_OK) {
            size_t be = ne - done >= bs ? bs : ((ne - done) / 8) * 8;
            if (be == 0) break;
            if (n - ip < 4) {
              rc = cairnErr(CAIRN_CORRUPT, "hdf5: truncated bitshuffle chunk in %s", zPath);
              break;
            }
            uint32_t cs = cairnGetBE32(cur + ip);
            ip += 4;
            if (cs > n - ip) {
              rc = cairnErr(CAIRN_CORRUPT, "hdf5: bitshuffle block overruns its chunk in %s", zPath);
              break;
            }
            size_t got = 0;
            if (comp == 2) rc = cairnLz4Decompress(cur + ip, cs, tr + done * es, be * es, &got);
            else if (S) rc = cairnZDecompressWith(&S->pDec, CAIRN_ZSTD, cur + ip, cs, tr + done * es, be * es, &got);
            else rc = cairn_zdecompress(CAIRN_ZSTD, cur + ip, cs, tr + done * es, be * es, &got);
            if (rc == CAIRN_OK && got != be * es) rc = cairnErr(CAIRN_CORRUPT, "hdf5: bitshuffle block decoded to %zu bytes in %s", got, zPath);
            ip += cs;
            done += be;
          }
          /* Leftover elements (fewer than 8) are stored as they are. */
          size_t rest = total - done * es;
          if (rc == CAIRN_OK) {
            if (n - ip < rest) rc = cairnErr(CAIRN_CORRUPT, "hdf5: truncated bitshuffle tail in %s", zPath);
            else memcpy(tr + done * es, cur + ip, rest);
          }
        } else {
          rc = cairnErr(CAIRN_UNSUPPORTED, "hdf5: bitshuffle compressor %u in %s", comp, zPath);
          break;
        }
        if (rc == CAIRN_OK) {
          nxt = cairnH5ScrAlloc(S, total);
          if (!nxt) rc = cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
          else bitunshuffleAll(tr, nxt, total, es, bs);
          nn = total;
        }
        cairnH5ScrFree(S, tr);
        break;
      }
      case 5: rc = nbitDecode(fl, cur, n, cap, &nxt, &nn, zPath, S); break;
      case 6: rc = scaleoffsetDecode(fl, cur, n, cap, &nxt, &nn, zPath, S); break;
      default: {
        const char *z;
        filterName(fl, &z);
        rc = cairnErr(CAIRN_UNSUPPORTED, "hdf5: unsupported filter %u (%s) in %s", fl->id, z, zPath);
      }
    }
    if (nxt) {
      cairnH5ScrFree(S, cur);
      cur = nxt;
      n = nn;
    } else if (rc) {
      break;
    }
    if (rc == CAIRN_OK && n > cap) rc = cairnErr(CAIRN_CORRUPT, "hdf5: chunk at offset %llu of %s decodes to %zu bytes", (unsigned long long)addr, zPath, n);
  }
  if (rc) {
    cairnH5ScrFree(S, cur);
    if (CAIRN_PRIMARY(rc) == CAIRN_CORRUPT || CAIRN_PRIMARY(rc) == CAIRN_RANGE) {
      const char *m = cairn_errmsg();
      if (!strstr(m, zPath)) return cairnErr(CAIRN_CORRUPT, "hdf5: chunk at offset %llu of %s: %s", (unsigned long long)addr, zPath, m);
    }
    return rc;
  }
  *ppOut = cur;
  *pnOut = n;
  return CAIRN_OK;
}

/* Used by r_api.c for the info structure. */
const char *cairnH5FilterName(const H5Filter *fl) {
  const char *z;
  filterName(fl, &z);
  return z;
}
