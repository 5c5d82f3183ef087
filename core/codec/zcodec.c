/*
** 2026-11-29
**
** core/codec/zcodec.c - zstd and zlib behind one small API, buffers and bounded streams.
**
** Both libraries allocate through the host (ZSTD_customMem, zalloc/zfree), so an embedder's
** memory cap covers them. Streams move data through fixed 128 KiB buffers: memory does not
** grow with the file.
*/
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createCCtx_advanced + customMem */
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "codec/zdec.h"
#include "common/internal.h"

#define ZIO_BLOCK (128 * 1024)

/* ---- allocator glue ---- */
static void *zstdAlloc(void *o, size_t n) { (void)o; return cairnMalloc(n); }
static void zstdFree(void *o, void *p) { (void)o; cairnFree(p); }
static const ZSTD_customMem zstdMem = {zstdAlloc, zstdFree, NULL};
static voidpf zlibAlloc(voidpf o, uInt n, uInt s) { (void)o; return cairnMallocArray(n, s); }
static void zlibFree(voidpf o, voidpf p) { (void)o; cairnFree(p); }

const char *cairn_zstd_version(void) { return ZSTD_versionString(); }
const char *cairn_zlib_version(void) { return zlibVersion(); }

static int zlibWindowBits(cairn_zkind k) { return k == CAIRN_GZIP ? 15 + 16 : 15; }
static int validKind(cairn_zkind k) { return k == CAIRN_ZSTD || k == CAIRN_DEFLATE || k == CAIRN_GZIP; }

size_t cairn_zbound(cairn_zkind kind, size_t n) {
  if (kind == CAIRN_ZSTD) {
    size_t b = ZSTD_compressBound(n);
    return ZSTD_isError(b) ? 0 : b;
  }
  if (!validKind(kind) || n > (size_t)UINT32_MAX) return 0;
  /* deflateBound without a stream: the documented worst case plus gzip's larger header. */
  return (size_t)compressBound((uLong)n) + 18;
}

static int zstdErr(size_t r, const char *zWhat) {
  ZSTD_ErrorCode e = ZSTD_getErrorCode(r);
  int rc = e == ZSTD_error_dstSize_tooSmall ? CAIRN_RANGE
         : e == ZSTD_error_memory_allocation ? CAIRN_NOMEM
         : e == ZSTD_error_checksum_wrong ? CAIRN_CHECKSUM
         : CAIRN_CORRUPT;
  return cairnErr(rc, "zstd %s: %s", zWhat, ZSTD_getErrorName(r));
}

static int zlibErr(int z, z_stream *s, const char *zWhat) {
  int rc = z == Z_MEM_ERROR ? CAIRN_NOMEM : z == Z_BUF_ERROR ? CAIRN_RANGE : CAIRN_CORRUPT;
  return cairnErr(rc, "zlib %s at input offset %llu: %s", zWhat, (unsigned long long)s->total_in,
                  s->msg ? s->msg : (z == Z_BUF_ERROR ? "output buffer too small or input truncated" : "error"));
}

int cairn_zcompress(cairn_zkind kind, int level, const void *p, size_t n, void *out, size_t nOut, size_t *pnOut) {
  if (!pnOut || (!p && n) || (!out && nOut)) return cairnErr(CAIRN_MISUSE, "zcompress: NULL argument");
  if (!validKind(kind)) return cairnErr(CAIRN_MISUSE, "zcompress: unknown codec %d", (int)kind);
  *pnOut = 0;
  if (kind == CAIRN_ZSTD) {
    if (level == 0) level = 3;
    if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
      return cairnErr(CAIRN_RANGE, "zstd level %d outside [%d, %d]", level, ZSTD_minCLevel(), ZSTD_maxCLevel());
    ZSTD_CCtx *c = ZSTD_createCCtx_advanced(zstdMem);
    if (!c) return cairnErr(CAIRN_NOMEM, "zstd: cannot allocate a compression context");
    size_t r = ZSTD_compressCCtx(c, out, nOut, p, n, level);
    ZSTD_freeCCtx(c);
    if (ZSTD_isError(r)) return zstdErr(r, "compress");
    *pnOut = r;
    return CAIRN_OK;
  }
  if (level < -1 || level > 9) return cairnErr(CAIRN_RANGE, "deflate level %d outside [0, 9]", level);
  if (n > UINT32_MAX || nOut > UINT32_MAX) return cairnErr(CAIRN_RANGE, "deflate: buffers over 4 GiB need the stream API");
  z_stream s;
  memset(&s, 0, sizeof(s));
  s.zalloc = zlibAlloc;
  s.zfree = zlibFree;
  int z = deflateInit2(&s, level, Z_DEFLATED, zlibWindowBits(kind), 8, Z_DEFAULT_STRATEGY);
  if (z != Z_OK) return zlibErr(z, &s, "deflateInit");
  s.next_in = (Bytef *)(uintptr_t)p;
  s.avail_in = (uInt)n;
  s.next_out = out;
  s.avail_out = (uInt)nOut;
  z = deflate(&s, Z_FINISH);
  size_t nDone = s.total_out;
  deflateEnd(&s);
  if (z != Z_STREAM_END) return z == Z_OK || z == Z_BUF_ERROR ? cairnErr(CAIRN_RANGE, "deflate: output buffer of %zu bytes too small", nOut) : zlibErr(z, &s, "deflate");
  *pnOut = nDone;
  return CAIRN_OK;
}

/* The decoder states behind cairn_zdecompress: made on first use, kept by a CairnZDec between
** calls (core/codec/zdec.h), freed at once by cairn_zdecompress. */
struct CairnZDec {
  ZSTD_DCtx *pZstd;
  z_stream z;
  int zBits; /* windowBits z was initialised with; 0: not yet */
};

static int zdecRun(struct CairnZDec *x, cairn_zkind kind, const void *p, size_t n, void *out, size_t nOut, size_t *pnOut) {
  if (!pnOut || (!p && n) || (!out && nOut)) return cairnErr(CAIRN_MISUSE, "zdecompress: NULL argument");
  if (!validKind(kind)) return cairnErr(CAIRN_MISUSE, "zdecompress: unknown codec %d", (int)kind);
  *pnOut = 0;
  if (kind == CAIRN_ZSTD) {
    if (!x->pZstd && !(x->pZstd = ZSTD_createDCtx_advanced(zstdMem)))
      return cairnErr(CAIRN_NOMEM, "zstd: cannot allocate a decompression context");
    size_t r = ZSTD_decompressDCtx(x->pZstd, out, nOut, p, n);
    if (ZSTD_isError(r)) return zstdErr(r, "decompress");
    *pnOut = r;
    return CAIRN_OK;
  }
  if (n > UINT32_MAX || nOut > UINT32_MAX) return cairnErr(CAIRN_RANGE, "inflate: buffers over 4 GiB need the stream API");
  z_stream *s = &x->z;
  int bits = zlibWindowBits(kind), z;
  if (x->zBits) z = inflateReset2(s, bits); /* keeps the state (and a window, if one was made) */
  else {
    memset(s, 0, sizeof(*s));
    s->zalloc = zlibAlloc;
    s->zfree = zlibFree;
    z = inflateInit2(s, bits);
  }
  if (z != Z_OK) return zlibErr(z, s, "inflateInit");
  x->zBits = bits;
  s->next_in = (Bytef *)(uintptr_t)p;
  s->avail_in = (uInt)n;
  s->next_out = out;
  s->avail_out = (uInt)nOut;
  z = inflate(s, Z_FINISH);
  size_t nDone = s->total_out;
  if (z != Z_STREAM_END) {
    if (z == Z_BUF_ERROR && s->avail_out == 0) return cairnErr(CAIRN_RANGE, "inflate: output larger than %zu bytes", nOut);
    if (z == Z_BUF_ERROR) return cairnErr(CAIRN_CORRUPT, "inflate: input truncated after %zu bytes", n);
    return zlibErr(z, s, "inflate");
  }
  *pnOut = nDone;
  return CAIRN_OK;
}
static void zdecClear(struct CairnZDec *x) {
  ZSTD_freeDCtx(x->pZstd); /* NULL is fine */
  if (x->zBits) inflateEnd(&x->z);
}

int cairn_zdecompress(cairn_zkind kind, const void *p, size_t n, void *out, size_t nOut, size_t *pnOut) {
  struct CairnZDec x;
  x.pZstd = NULL, x.zBits = 0;
  int rc = zdecRun(&x, kind, p, n, out, nOut, pnOut);
  zdecClear(&x);
  return rc;
}

int cairnZDecompressWith(CairnZDec **ppDec, cairn_zkind kind, const void *p, size_t n, void *out, size_t nOut, size_t *pnOut) {
  if (!*ppDec) {
    if (!(*ppDec = cairnMalloc(sizeof(CairnZDec)))) return cairnErr(CAIRN_NOMEM, "zdecompress: cannot allocate a decoder");
    (*ppDec)->pZstd = NULL, (*ppDec)->zBits = 0;
  }
  return zdecRun(*ppDec, kind, p, n, out, nOut, pnOut);
}

void cairnZDecFree(CairnZDec *pDec) {
  if (!pDec) return;
  zdecClear(pDec);
  cairnFree(pDec);
}

int cairn_zstd_content_size(const void *p, size_t n, uint64_t *pnSize) {
  if (!p || !pnSize) return cairnErr(CAIRN_MISUSE, "zstd_content_size: NULL argument");
  unsigned long long r = ZSTD_getFrameContentSize(p, n);
  if (r == ZSTD_CONTENTSIZE_ERROR) return cairnErr(CAIRN_CORRUPT, "not a zstd frame header");
  if (r == ZSTD_CONTENTSIZE_UNKNOWN) return cairnErr(CAIRN_NOTFOUND, "zstd frame has no content size");
  *pnSize = r;
  return CAIRN_OK;
}

/* ---- streams ---- */
typedef struct ZStream {
  cairn_file *in, *out;
  uint64_t iIn, nInTotal, iOut;
  cairn_progress_fn xProgress;
  void *pArg;
  uint8_t *aIn, *aOut;
} ZStream;

static int zsInit(ZStream *z, cairn_file *in, cairn_file *out, cairn_progress_fn xp, void *pa) {
  memset(z, 0, sizeof(*z));
  if (!in || !out) return cairnErr(CAIRN_MISUSE, "z stream: NULL file");
  z->in = in;
  z->out = out;
  z->xProgress = xp;
  z->pArg = pa;
  CAIRN_TRY(cairn_file_size(in, &z->nInTotal));
  z->aIn = cairnMalloc(ZIO_BLOCK);
  z->aOut = cairnMalloc(ZIO_BLOCK);
  if (!z->aIn || !z->aOut) return cairnErr(CAIRN_NOMEM, "z stream: cannot allocate buffers");
  return CAIRN_OK;
}
static void zsFree(ZStream *z) {
  cairnFree(z->aIn);
  cairnFree(z->aOut);
}
/* Read the next block of input; *pn = 0 at end. */
static int zsRead(ZStream *z, size_t *pn) {
  size_t want = (size_t)CAIRN_MIN((uint64_t)ZIO_BLOCK, z->nInTotal - z->iIn);
  *pn = 0;
  if (want == 0) return CAIRN_OK;
  CAIRN_TRY(cairn_file_read_exact(z->in, z->aIn, want, z->iIn));
  z->iIn += want;
  *pn = want;
  if (z->xProgress) z->xProgress(z->pArg, z->iIn, z->nInTotal);
  return CAIRN_OK;
}
static int zsWrite(ZStream *z, size_t n) {
  if (n == 0) return CAIRN_OK;
  CAIRN_TRY(cairn_file_write(z->out, z->aOut, n, z->iOut));
  z->iOut += n;
  return CAIRN_OK;
}
static int zsFinish(ZStream *z, uint64_t *pnIn, uint64_t *pnOut) {
  CAIRN_TRY(cairn_file_truncate(z->out, z->iOut));
  if (pnIn) *pnIn = z->iIn;
  if (pnOut) *pnOut = z->iOut;
  return CAIRN_OK;
}

static int zstdStream(ZStream *z, int compress, int level) {
  ZSTD_CCtx *c = NULL;
  ZSTD_DCtx *d = NULL;
  int rc = CAIRN_OK;
  if (compress) {
    c = ZSTD_createCCtx_advanced(zstdMem);
    if (!c) return cairnErr(CAIRN_NOMEM, "zstd: cannot allocate a compression context");
    size_t r = ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level ? level : 3);
    if (!ZSTD_isError(r)) r = ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    if (!ZSTD_isError(r)) r = ZSTD_CCtx_setPledgedSrcSize(c, z->nInTotal);
    if (ZSTD_isError(r)) rc = zstdErr(r, "setup");
  } else {
    d = ZSTD_createDCtx_advanced(zstdMem);
    if (!d) return cairnErr(CAIRN_NOMEM, "zstd: cannot allocate a decompression context");
    /* Bound the window a frame may ask for: 128 MiB, zstd's default limit for streams. */
    size_t r = ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, 27);
    if (ZSTD_isError(r)) rc = zstdErr(r, "setup");
  }
  int done = 0;
  size_t lastRet = 0;
  while (rc == CAIRN_OK && !done) {
    size_t nIn;
    if ((rc = zsRead(z, &nIn)) != CAIRN_OK) break;
    int last = nIn == 0;
    if (last && !compress) break; /* a call with no input would report the next frame's header size */
    ZSTD_inBuffer ib = {z->aIn, nIn, 0};
    for (;;) {
      ZSTD_outBuffer ob = {z->aOut, ZIO_BLOCK, 0};
      size_t r;
      if (compress) r = ZSTD_compressStream2(c, &ob, &ib, last ? ZSTD_e_end : ZSTD_e_continue);
      else r = ZSTD_decompressStream(d, &ob, &ib);
      if (ZSTD_isError(r)) {
        rc = zstdErr(r, compress ? "compress" : "decompress");
        if (!compress) cairnErr(rc, "zstd decompress near input offset %llu: %s", (unsigned long long)(z->iIn - nIn + ib.pos), ZSTD_getErrorName(r));
        break;
      }
      if ((rc = zsWrite(z, ob.pos)) != CAIRN_OK) break;
      lastRet = r;
      if (compress) {
        if (last ? r == 0 : ib.pos == ib.size) break;
      } else {
        /* Keep draining while the output buffer came back full, unless the frame is complete
        ** (r == 0): another call without input would report the next frame's header size. */
        if (ib.pos == ib.size && (ob.pos < ob.size || r == 0)) break;
      }
    }
    if (last) done = 1;
  }
  if (rc == CAIRN_OK && !compress && z->iIn == 0) rc = cairnErr(CAIRN_CORRUPT, "zstd: empty input (not a zstd frame)");
  if (rc == CAIRN_OK && !compress && lastRet != 0)
    rc = cairnErr(CAIRN_CORRUPT, "zstd: input ends inside a frame (truncated at %llu bytes)", (unsigned long long)z->iIn);
  ZSTD_freeCCtx(c);
  ZSTD_freeDCtx(d);
  return rc;
}

static int zlibStream(ZStream *z, cairn_zkind kind, int compress, int level) {
  z_stream s;
  memset(&s, 0, sizeof(s));
  s.zalloc = zlibAlloc;
  s.zfree = zlibFree;
  int zr = compress ? deflateInit2(&s, level < 0 ? 6 : level, Z_DEFLATED, zlibWindowBits(kind), 8, Z_DEFAULT_STRATEGY)
                    : inflateInit2(&s, zlibWindowBits(kind));
  if (zr != Z_OK) return zlibErr(zr, &s, compress ? "deflateInit" : "inflateInit");
  int rc = CAIRN_OK, ended = 0;
  while (rc == CAIRN_OK && !ended) {
    size_t nIn;
    if ((rc = zsRead(z, &nIn)) != CAIRN_OK) break;
    int last = nIn == 0;
    if (last && !compress) {
      rc = cairnErr(CAIRN_CORRUPT, "%s stream truncated at %llu bytes", kind == CAIRN_GZIP ? "gzip" : "deflate", (unsigned long long)z->iIn);
      break;
    }
    s.next_in = z->aIn;
    s.avail_in = (uInt)nIn;
    do {
      s.next_out = z->aOut;
      s.avail_out = ZIO_BLOCK;
      zr = compress ? deflate(&s, last ? Z_FINISH : Z_NO_FLUSH) : inflate(&s, Z_NO_FLUSH);
      if (zr == Z_STREAM_ERROR || zr == Z_DATA_ERROR || zr == Z_MEM_ERROR || zr == Z_NEED_DICT) {
        rc = zlibErr(zr, &s, compress ? "deflate" : "inflate");
        break;
      }
      if ((rc = zsWrite(z, ZIO_BLOCK - s.avail_out)) != CAIRN_OK) break;
      if (zr == Z_STREAM_END) {
        ended = 1;
        break;
      }
    } while (s.avail_out == 0 || (compress && last));
  }
  if (compress) deflateEnd(&s);
  else inflateEnd(&s);
  return rc;
}

static int zFile(int compress, cairn_zkind kind, int level, cairn_file *in, cairn_file *out,
                 cairn_progress_fn xp, void *pa, uint64_t *pnIn, uint64_t *pnOut) {
  if (!validKind(kind)) return cairnErr(CAIRN_MISUSE, "unknown codec %d", (int)kind);
  if (compress && kind == CAIRN_ZSTD && (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()))
    return cairnErr(CAIRN_RANGE, "zstd level %d outside [%d, %d]", level, ZSTD_minCLevel(), ZSTD_maxCLevel());
  if (compress && kind != CAIRN_ZSTD && (level < -1 || level > 9))
    return cairnErr(CAIRN_RANGE, "deflate level %d outside [0, 9]", level);
  ZStream z;
  int rc = zsInit(&z, in, out, xp, pa);
  if (rc == CAIRN_OK)
    rc = kind == CAIRN_ZSTD ? zstdStream(&z, compress, level) : zlibStream(&z, kind, compress, level);
  if (rc == CAIRN_OK) rc = zsFinish(&z, pnIn, pnOut);
  zsFree(&z);
  return rc;
}

int cairn_zcompress_file(cairn_zkind kind, int level, cairn_file *in, cairn_file *out,
                         cairn_progress_fn xProgress, void *pArg, uint64_t *pnIn, uint64_t *pnOut) {
  return zFile(1, kind, level, in, out, xProgress, pArg, pnIn, pnOut);
}
int cairn_zdecompress_file(cairn_zkind kind, cairn_file *in, cairn_file *out,
                           cairn_progress_fn xProgress, void *pArg, uint64_t *pnIn, uint64_t *pnOut) {
  return zFile(0, kind, 0, in, out, xProgress, pArg, pnIn, pnOut);
}
