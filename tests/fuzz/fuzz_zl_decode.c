/*
** 2026-11-29
**
** tests/fuzz/fuzz_zl_decode.c - the OpenZL-format reader on arbitrary bytes: it must return an
** error or a result, never crash, hang or allocate without bound. When the input decodes, the
** result is compressed again (profile from its size) and must round-trip exactly. Then the same
** bytes are decoded with checksum comparisons off, so that mutations reach the transforms. A
** decompression context kept across inputs must give the one-shot result every time. Corpus:
** small frames cairn's own encoder writes (tests/fuzz/corpus/zl_decode/).
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cairn/cairn.h"
#include "zl/zl_int.h"

static cairn_zl_dctx *gCtx; /* one context for every input: it must give the one-shot result */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint64_t n = 0;
  if (cairn_zl_decompressed_size(data, size, &n) != CAIRN_OK || n > (16u << 20)) return 0;
  /* frames of several (or string) outputs, and the introspection walk (2026-12-02) */
  cairn_zl_output *aMo = NULL;
  unsigned nMo = 0;
  if (cairn_zl_decompress_multi(data, size, &aMo, &nMo) == CAIRN_OK) cairn_zl_outputs_free(aMo, nMo);
  else if (aMo) __builtin_trap();
  char *zInfo = NULL;
  if (cairn_zl_info(data, size, (int)(size & 1), &zInfo, NULL) == CAIRN_OK) cairn_free(zInfo);
  uint8_t *out = malloc(n + 1), *o2 = malloc(n + 1);
  size_t got = 0, got2 = 0;
  int rc = out ? cairn_zl_decompress(data, size, out, n, &got) : CAIRN_NOMEM;
  if (!gCtx) gCtx = cairn_zl_dctx_create();
  if (out && o2 && gCtx) {
    int rc2 = cairn_zl_decompress_dctx(gCtx, data, size, o2, n, &got2);
    if (rc2 != rc || (rc == CAIRN_OK && (got2 != got || memcmp(o2, out, got) != 0))) __builtin_trap();
  }
  free(o2);
  if (rc == CAIRN_OK) {
    int profile = (got % 8 == 0) ? CAIRN_ZL_LE_U64 : (got % 4 == 0) ? CAIRN_ZL_LE_U32 : CAIRN_ZL_SERIAL;
    size_t cap = cairn_zl_compress_bound(got), nf = 0, nd = 0;
    uint8_t *f = malloc(cap), *back = malloc(got + 1);
    if (!f || !back || cairn_zl_compress_level(profile, 1, out, got, f, cap, &nf) != CAIRN_OK ||
        cairn_zl_decompress(f, nf, back, got, &nd) != CAIRN_OK || nd != got || memcmp(back, out, got) != 0)
      __builtin_trap();
    free(f), free(back);
  }
  /* again without checksum comparisons, so that mutations reach every transform decoder */
  size_t nFrame;
  if (out) cairnZlDecodeFrame(data, size, out, n, &got, &nFrame, 1);
  free(out);
  return 0;
}
