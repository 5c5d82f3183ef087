/*
** 2026-11-29
**
** core/h5/r_filter.c - the read side of the filter pipeline: deflate (1), shuffle (2),
** fletcher32 (3, verified), zstd (32015), LZ4 (32004, with our own LZ4 block decoder) and
** bitshuffle (32008: none, LZ4 and zstd modes). Anything else fails with CAIRN_UNSUPPORTED
** naming the filter id and the dataset path.
*/
#include "h5int.h"

int h5Lz4Block(const uint8_t *src, size_t nSrc, uint8_t *dst, size_t nDst, size_t *pnOut) {
  size_t i = 0, o = 0;
  for (;;) {
    if (i >= nSrc) return cairnErr(CAIRN_CORRUPT, "lz4: truncated block at input offset %zu", i);
    uint8_t tok = src[i++];
    size_t lit = tok >> 4;
    if (lit == 15) {
      uint8_t b;
      do {
        if (i >= nSrc) return cairnErr(CAIRN_CORRUPT, "lz4: truncated literal length at input offset %zu", i);
        b = src[i++];
        lit += b;
      } while (b == 255);
    }
    if (lit > nSrc - i || lit > nDst - o) return cairnErr(CAIRN_CORRUPT, "lz4: literal run of %zu bytes overflows at input offset %zu", lit, i);
    memcpy(dst + o, src + i, lit);
    i += lit;
    o += lit;
    if (i == nSrc) break; /* the last sequence has only literals */
    if (nSrc - i < 2) return cairnErr(CAIRN_CORRUPT, "lz4: truncated match offset at input offset %zu", i);
    size_t off = src[i] | ((size_t)src[i + 1] << 8);
    i += 2;
    if (off == 0 || off > o) return cairnErr(CAIRN_CORRUPT, "lz4: match offset %zu out of range at input offset %zu", off, i - 2);
    size_t ml = (tok & 15);
    if (ml == 15) {
      uint8_t b;
      do {
        if (i >= nSrc) return cairnErr(CAIRN_CORRUPT, "lz4: truncated match length at input offset %zu", i);
        b = src[i++];
        ml += b;
      } while (b == 255);
    }
    ml += 4;
    if (ml > nDst - o) return cairnErr(CAIRN_CORRUPT, "lz4: match of %zu bytes overflows the output at input offset %zu", ml, i);
    const uint8_t *m = dst + o - off;
    if (off >= ml) memcpy(dst + o, m, ml);
    else
      for (size_t k = 0; k < ml; k++) dst[o + k] = m[k];
    o += ml;
  }
  *pnOut = o;
  return CAIRN_OK;
}

static void unshuffle(const uint8_t *in, uint8_t *out, size_t n, size_t es) {
  size_t ne = n / es;
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

/* Fletcher-32 as HDF5 computes it: 16-bit big-endian words, an odd last byte as the high
** half of a word, sums reduced mod 65535 (the sums start at 0). */
static uint32_t fletcher32(const uint8_t *p, size_t n) {
  uint32_t s1 = 0, s2 = 0;
  size_t words = n / 2;
  while (words) {
    size_t t = words > 360 ? 360 : words;
    words -= t;
    do {
      s1 += ((uint32_t)p[0] << 8) | p[1];
      s2 += s1;
      p += 2;
    } while (--t);
    s1 = (s1 & 0xffff) + (s1 >> 16);
    s2 = (s2 & 0xffff) + (s2 >> 16);
  }
  if (n & 1) {
    s1 += (uint32_t)p[0] << 8;
    s2 += s1;
    s1 = (s1 & 0xffff) + (s1 >> 16);
    s2 = (s2 & 0xffff) + (s2 >> 16);
  }
  s1 = (s1 & 0xffff) + (s1 >> 16);
  s2 = (s2 & 0xffff) + (s2 >> 16);
  return (s2 << 16) | s1;
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

int h5Unfilter(const H5Pipeline *pl, uint32_t mask, uint8_t *pIn, size_t nIn, size_t nOut, uint8_t **ppOut, size_t *pnOut,
               const char *zPath, uint64_t addr) {
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
        nxt = cairnMalloc(cap);
        if (!nxt) return cairnFree(cur), cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
        rc = cairn_zdecompress(CAIRN_DEFLATE, cur, n, nxt, cap, &nn);
        break;
      case 32015: { /* zstd */
        uint64_t cs;
        size_t c2 = cap;
        if (cairn_zstd_content_size(cur, n, &cs) == CAIRN_OK && cs <= H5_MAX_CHUNK) c2 = (size_t)cs;
        nxt = cairnMalloc(c2 ? c2 : 1);
        if (!nxt) return cairnFree(cur), cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
        rc = cairn_zdecompress(CAIRN_ZSTD, cur, n, nxt, c2, &nn);
        break;
      }
      case 2: { /* shuffle */
        size_t es = fl->nParam ? fl->aParam[0] : 1;
        if (es <= 1) break;
        nxt = cairnMalloc(n ? n : 1);
        if (!nxt) return cairnFree(cur), cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
        unshuffle(cur, nxt, n, es);
        nn = n;
        break;
      }
      case 3: { /* fletcher32 */
        if (n < 4) {
          rc = cairnErr(CAIRN_CORRUPT, "hdf5: fletcher32 chunk of %zu bytes at offset %llu in %s", n, (unsigned long long)addr, zPath);
          break;
        }
        uint32_t want = cairnGetLE32(cur + n - 4), got = fletcher32(cur, n - 4);
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
        nxt = cairnMalloc(total ? (size_t)total : 1);
        if (!nxt) return cairnFree(cur), cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
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
            rc = h5Lz4Block(cur + ip, cs, nxt + op, want, &got);
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
          tr = cairnMalloc(total ? total : 1);
          if (!tr) return cairnFree(cur), cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
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
            if (comp == 2) rc = h5Lz4Block(cur + ip, cs, tr + done * es, be * es, &got);
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
          nxt = cairnMalloc(total ? total : 1);
          if (!nxt) rc = cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
          else bitunshuffleAll(tr, nxt, total, es, bs);
          nn = total;
        }
        cairnFree(tr);
        break;
      }
      default: {
        const char *z;
        filterName(fl, &z);
        rc = cairnErr(CAIRN_UNSUPPORTED, "hdf5: unsupported filter %u (%s) in %s", fl->id, z, zPath);
      }
    }
    if (nxt) {
      cairnFree(cur);
      cur = nxt;
      n = nn;
    } else if (rc) {
      break;
    }
    if (rc == CAIRN_OK && n > cap) rc = cairnErr(CAIRN_CORRUPT, "hdf5: chunk at offset %llu of %s decodes to %zu bytes", (unsigned long long)addr, zPath, n);
  }
  if (rc) {
    cairnFree(cur);
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
const char *h5FilterName(const H5Filter *fl) {
  const char *z;
  filterName(fl, &z);
  return z;
}
