/*
** 2026-11-29
**
** tests/fuzz/fuzz_cas_cdc.c - differential: FastCDC chunking of untrusted bytes with parameters
** taken from the first 16 bytes, by the reference cut (cairn_fastcdc_cut) and by the fast
** prepare path with 1, 2 and 3 lanes and with the input fed in two pieces. Every path must
** give the same cuts and the SHA-256 of each chunk; a difference aborts. Corpus:
** tests/fuzz/corpus/cas_cdc/.
*/
#include <stdlib.h>
#include <string.h>

#include "cas/cas_int.h"

static size_t refCuts(const cairn_fastcdc_params *p, const uint8_t *a, size_t n, uint64_t *aEnd, size_t nMax) {
  size_t i = 0, k = 0;
  while (i < n && k < nMax) {
    size_t c;
    if (cairn_fastcdc_cut(p, a + i, n - i, 1, &c, NULL) != CAIRN_OK || c == 0) abort();
    i += c;
    aEnd[k++] = i;
  }
  return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 16) return 0;
  cairn_fastcdc_params p;
  unsigned a = 6 + data[0] % 8;                 /* avg 64 B .. 8 KiB */
  p.nAvg = 1u << a;
  p.level = data[1] % 4;
  while (a < 5 + p.level || a + p.level > 25) p.level--;
  p.nMin = 64 + (uint32_t)(cairnGetLE16(data + 2) % (p.nAvg - 63));
  p.nMax = p.nAvg + (uint32_t)(cairnGetLE16(data + 4) % (3 * p.nAvg));
  p.seed = data[6] & 1 ? cairnGetLE64(data + 8) : 0;
  size_t iSplit = cairnGetLE16(data + 7);
  const uint8_t *buf = data + 16;
  size_t n = size - 16;
  if (cairn_fastcdc_check(&p) != CAIRN_OK) return 0;
  uint64_t *aEnd = malloc((n + 1) * sizeof(uint64_t));
  size_t nRef = refCuts(&p, buf, n, aEnd, n + 1);
  for (size_t lanes = 1; lanes <= 3; lanes++) {
    cairnCdcLanes = lanes;
    cairnCdcSegMin = 256;
    cairn_chunk *ak;
    size_t nk, nUsed;
    if (cairn_fastcdc_prepare(&p, buf, n, 1, &ak, &nk, &nUsed) != CAIRN_OK) abort();
    if (nk != nRef || nUsed != n) abort();
    for (size_t i = 0; i < nk; i++) {
      uint8_t h[32];
      if (ak[i].iOff + ak[i].n != aEnd[i]) abort();
      cairn_sha256(buf + ak[i].iOff, ak[i].n, h);
      if (memcmp(h, ak[i].aHash, 32) != 0) abort();
    }
    cairn_free(ak);
  }
  cairnCdcLanes = 0;
  cairnCdcSegMin = 0;
  /* Two pieces: the first without eof, the rest with it. */
  size_t k = 0, iBase = 0;
  if (iSplit > n) iSplit = n;
  for (int piece = 0; piece < 2; piece++) {
    size_t iTo = piece ? n : iSplit;
    cairn_chunk *ak;
    size_t nk, nUsed;
    if (cairn_fastcdc_prepare(&p, buf + iBase, iTo - iBase, piece, &ak, &nk, &nUsed) != CAIRN_OK) abort();
    for (size_t i = 0; i < nk; i++, k++)
      if (k >= nRef || iBase + ak[i].iOff + ak[i].n != aEnd[k]) abort();
    cairn_free(ak);
    iBase += nUsed;
  }
  if (k != nRef || iBase != n) abort();
  free(aEnd);
  return 0;
}
