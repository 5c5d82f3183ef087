/*
** 2026-11-29
**
** bindings/em/em_zl.c - Emscripten glue for the OpenZL-format codec (cairn/zl.h), used by js/src/zl.js.
** The buffer functions take only pointers and size_t and are exported as they are; these shims
** carry the 64-bit sizes as doubles (see bindings/em/em_mem.c for why). Fixed-width records are
** compressed where zl.h has them (CAIRN_ZL_MAX_FIELDS, branch zl); elsewhere they are a clear
** CAIRN_UNSUPPORTED.
*/
#include <emscripten.h>
#include <string.h>

#include "cairn/cairn.h"
#include "cairn/zl.h"
#include "em_exports.h"

/* The decompressed size a frame declares, in *pSize. */
EMSCRIPTEN_KEEPALIVE int cairn_em_zl_size(const void *p, size_t n, double *pSize) {
  uint64_t v = 0;
  int rc = cairn_zl_decompressed_size(p, n, &v);
  *pSize = (double)v;
  return rc;
}

/* Stream between two JS files; pSizes receives {bytes in, bytes out}. level 0 = 19. */
EMSCRIPTEN_KEEPALIVE int cairn_em_zl_file(int compress, int profile, int level, cairn_file *in, cairn_file *out, double *pSizes) {
  uint64_t nIn = 0, nOut = 0;
  int rc = compress ? cairn_zl_compress_file(profile, level, in, out, NULL, NULL, &nIn, &nOut)
                    : cairn_zl_decompress_file(in, out, NULL, NULL, &nIn, &nOut);
  pSizes[0] = (double)nIn;
  pSizes[1] = (double)nOut;
  return rc;
}

/* Records of nField fields of aWidth[i] bytes, one column per field. level 0 = 19. */
EMSCRIPTEN_KEEPALIVE int cairn_em_zl_compress_records(const uint32_t *aWidth, int nField, int level, const void *p, size_t n,
                                                      void *out, size_t nOut, size_t *pnOut) {
#ifdef CAIRN_ZL_MAX_FIELDS
  return cairn_zl_compress_records(aWidth, nField, level, p, n, out, nOut, pnOut);
#else
  (void)aWidth, (void)nField, (void)level, (void)p, (void)n, (void)out, (void)nOut, (void)pnOut;
  return cairn_seterr(CAIRN_UNSUPPORTED, "compress: fixed-width records are not in this build of the codec");
#endif
}

EMSCRIPTEN_KEEPALIVE int cairn_em_zl_records_file(const uint32_t *aWidth, int nField, int level, cairn_file *in, cairn_file *out,
                                                  double *pSizes) {
  uint64_t nIn = 0, nOut = 0;
#ifdef CAIRN_ZL_MAX_FIELDS
  int rc = cairn_zl_compress_records_file(aWidth, nField, level, in, out, NULL, NULL, &nIn, &nOut);
#else
  (void)aWidth, (void)nField, (void)level, (void)in, (void)out;
  int rc = cairn_seterr(CAIRN_UNSUPPORTED, "compressFile: fixed-width records are not in this build of the codec");
#endif
  pSizes[0] = (double)nIn;
  pSizes[1] = (double)nOut;
  return rc;
}
