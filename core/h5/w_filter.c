/*
** 2026-11-29
**
** core/h5/w_filter.c - the HDF5 filter pipeline for written chunks: shuffle (2), deflate (1,
** cairn's own encoder, core/codec/deflate_enc.c; zlib stays the decoder), fletcher32 (3),
** zstd (32015: one frame per chunk, content size set, as ZSTD_compress writes it) and LZ4
** (32004, the registered framing: 8-byte big-endian original size, 4-byte big-endian block
** size, then per block a 4-byte big-endian compressed size and the block, raw when it did not
** shrink). LZ4 blocks go through core/codec/lz4.c.
** Decoding (read-modify-write of partial chunks) is the reader's cairnH5Unfilter.
*/
#include "h5/h5int.h"
#include "h5/h5w.h"
#include "codec/deflate_enc.h"
#include "codec/lz4.h"

#define F_DEFLATE 1
#define F_SHUFFLE 2
#define F_FLETCHER 3
#define F_LZ4 32004
#define F_ZSTD 32015

/* ---------------------------------------------------------------- pipeline */
static int parseNum(const char **pz, long *pv) {
  const char *z = *pz;
  long v = 0;
  int n = 0;
  while (*z >= '0' && *z <= '9' && n < 10) v = v * 10 + (*z++ - '0'), n++;
  if (n == 0) return 0;
  *pz = z;
  *pv = v;
  return 1;
}

/* "shuffle,deflate:6,zstd:3,lz4[:block],fletcher32" -> filters in pipeline order. */
int cairnH5wFilterParse(const char *zSpec, size_t elSize, H5wFilter *a, int *pn, const char **pzErr) {
  int n = 0;
  const char *z = zSpec;
  *pzErr = NULL;
  while (z && *z) {
    const char *e = z;
    while (*e && *e != ',' && *e != ':') e++;
    size_t len = (size_t)(e - z);
    long v = -1;
    if (*e == ':') {
      const char *q = e + 1;
      if (!parseNum(&q, &v) || (*q && *q != ',')) {
        *pzErr = z;
        return cairnErr(CAIRN_MISUSE, "filter spec '%s': bad parameter", zSpec);
      }
      e = q;
    }
    if (n >= 8) return cairnErr(CAIRN_RANGE, "filter spec '%s': more than 8 filters", zSpec);
    H5wFilter *f = &a[n];
    memset(f, 0, sizeof *f);
#define IS(s) (len == sizeof(s) - 1 && memcmp(z, s, len) == 0)
    if (IS("shuffle")) {
      f->id = F_SHUFFLE;
      f->nCd = 1;
      f->aCd[0] = (uint32_t)elSize;
    } else if (IS("deflate") || IS("gzip")) {
      if (v < -1 || v > 9) return cairnErr(CAIRN_RANGE, "filter spec '%s': deflate level %lld", zSpec, (long long)v);
      f->id = F_DEFLATE;
      f->nCd = 1;
      f->aCd[0] = (uint32_t)(v < 0 ? 6 : v);
    } else if (IS("zstd")) {
      if (v > 22) return cairnErr(CAIRN_RANGE, "filter spec '%s': zstd level %lld", zSpec, (long long)v);
      f->id = F_ZSTD;
      f->flags = 1; /* optional, as h5py/hdf5plugin set it for plugin filters */
      f->nCd = 1;
      f->aCd[0] = (uint32_t)(v < 0 ? 3 : v);
    } else if (IS("lz4")) {
      f->id = F_LZ4;
      f->flags = 1;
      f->nCd = 1;
      f->aCd[0] = (uint32_t)(v < 0 ? 0 : v);
    } else if (IS("fletcher32")) {
      f->id = F_FLETCHER;
      f->flags = 0;
      f->nCd = 0;
    } else {
      *pzErr = z;
      return cairnErr(CAIRN_MISUSE, "filter spec '%s': unknown filter (shuffle, deflate[:L], zstd[:L], lz4, fletcher32)", zSpec);
    }
#undef IS
    n++;
    z = *e == ',' ? e + 1 : e;
  }
  *pn = n;
  return CAIRN_OK;
}

static void shuffle(const uint8_t *p, size_t n, size_t el, uint8_t *o) {
  size_t ne = n / el;
  for (size_t b = 0; b < el; b++) {
    uint8_t *d = o + b * ne;
    const uint8_t *s = p + b;
    for (size_t i = 0; i < ne; i++) d[i] = s[i * el];
  }
  memcpy(o + ne * el, p + ne * el, n - ne * el);
}
/* Run the pipeline forward on one chunk. *ppOut is a new buffer (caller frees). */
int cairnH5wFilterApply(const H5wFilter *a, int n, const uint8_t *p, size_t nIn, uint8_t **ppOut, size_t *pnOut) {
  /* the first stage reads the caller's bytes; later stages own their input */
  uint8_t *cur = (uint8_t *)p, *own = NULL;
  size_t nCur = nIn;
  if (n == 0) {
    if (!(own = cairnMalloc(nIn ? nIn : 1))) return cairnErr(CAIRN_NOMEM, "filter: out of memory for %zu bytes", nIn);
    memcpy(own, p, nIn);
    cur = own;
  }
  for (int i = 0; i < n; i++) {
    const H5wFilter *f = &a[i];
    uint8_t *o = NULL;
    size_t nO = 0;
    int rc = CAIRN_OK;
    if (f->id == F_SHUFFLE) {
      o = cairnMalloc(nCur ? nCur : 1);
      if (!o) rc = CAIRN_NOMEM;
      else if (f->aCd[0] > 1) shuffle(cur, nCur, f->aCd[0], o), nO = nCur;
      else memcpy(o, cur, nCur), nO = nCur;
    } else if (f->id == F_DEFLATE) {
      size_t nb = cairnDeflateBound(nCur);
      o = cairnMalloc(nb);
      if (!o) rc = CAIRN_NOMEM;
      else rc = cairnDeflateCompress((int)f->aCd[0], cur, nCur, o, nb, &nO);
    } else if (f->id == F_ZSTD) {
      size_t nb = cairn_zbound(CAIRN_ZSTD, nCur);
      o = cairnMalloc(nb ? nb : 1);
      if (!o) rc = CAIRN_NOMEM;
      else rc = cairn_zcompress(CAIRN_ZSTD, (int)f->aCd[0], cur, nCur, o, nb, &nO);
    } else if (f->id == F_LZ4) {
      size_t blk = f->aCd[0] ? f->aCd[0] : (1u << 30);
      size_t nBlk = nCur ? (nCur + blk - 1) / blk : 0;
      size_t nb = 12 + nBlk * 4 + cairnLz4Bound(nCur) + nBlk * 16;
      o = cairnMalloc(nb);
      if (!o) rc = CAIRN_NOMEM;
      else {
        cairnPutBE64(o, nCur);
        cairnPutBE32(o + 8, (uint32_t)(blk < nCur ? blk : nCur ? nCur : blk));
        size_t w = 12;
        for (size_t off = 0; off < nCur; off += blk) {
          size_t m = nCur - off < blk ? nCur - off : blk;
          size_t c = cairnLz4Compress(cur + off, m, o + w + 4, nb - w - 4);
          if (c == 0 && m > 0) {
            rc = CAIRN_NOMEM;
            break;
          }
          if (c >= m) { /* did not shrink: stored raw, size == block size */
            memcpy(o + w + 4, cur + off, m);
            c = m;
          }
          cairnPutBE32(o + w, (uint32_t)c);
          w += 4 + c;
        }
        nO = w;
      }
    } else if (f->id == F_FLETCHER) {
      o = cairnMalloc(nCur + 4);
      if (!o) rc = CAIRN_NOMEM;
      else {
        memcpy(o, cur, nCur);
        cairnPutLE32(o + nCur, cairnH5Fletcher32(cur, nCur));
        nO = nCur + 4;
      }
    } else rc = cairnErr(CAIRN_UNSUPPORTED, "filter %u cannot be written", f->id);
    cairnFree(own);
    if (rc) {
      cairnFree(o);
      return rc == CAIRN_NOMEM ? cairnErr(CAIRN_NOMEM, "filter %u: out of memory", f->id) : rc;
    }
    cur = own = o;
    nCur = nO;
  }
  *ppOut = cur;
  *pnOut = nCur;
  return CAIRN_OK;
}

/* Undo the pipeline on one stored chunk into pOut[0..nOut) (the chunk's full size). Filters
** whose bit is set in mask were skipped when the chunk was written. The reader's decoder
** (cairnH5Unfilter, core/h5/r_filter.c) does the work: one implementation of every filter's decode
** side, with the reader's checks on corrupt input. */
int cairnH5wFilterUndo(const H5wFilter *a, int n, uint32_t mask, const uint8_t *p, size_t nIn, uint8_t *pOut, size_t nOut) {
  H5Pipeline pl;
  if (n < 0 || n > H5_MAX_FILTERS) return cairnErr(CAIRN_CORRUPT, "filter pipeline of %d filters", n);
  memset(&pl, 0, sizeof pl);
  pl.n = (uint32_t)n;
  for (int i = 0; i < n; i++) {
    pl.a[i].id = a[i].id;
    pl.a[i].flags = a[i].flags;
    pl.a[i].nParam = (uint32_t)(a[i].nCd > 0 ? a[i].nCd : 0);
    for (int j = 0; j < a[i].nCd && j < 8; j++) pl.a[i].aParam[j] = a[i].aCd[j];
  }
  uint8_t *in = cairnMalloc(nIn ? nIn : 1), *out = NULL;
  if (!in) return cairnErr(CAIRN_NOMEM, "filter: out of memory");
  memcpy(in, p, nIn);
  size_t nGot = 0;
  CAIRN_TRY(cairnH5Unfilter(&pl, mask, in, nIn, nOut, &out, &nGot, "a chunk the writer rewrites", 0, NULL)); /* takes in */
  if (nGot != nOut) {
    cairnFree(out);
    return cairnErr(CAIRN_CORRUPT, "chunk decoded to %zu bytes, want %zu", nGot, nOut);
  }
  memcpy(pOut, out, nOut);
  cairnFree(out);
  return CAIRN_OK;
}
