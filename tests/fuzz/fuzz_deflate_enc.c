/*
** 2026-11-30
**
** tests/fuzz/fuzz_deflate_enc.c - cairn's deflate encoder on arbitrary bytes: the first byte
** picks the level (0-9) and how the rest is used (as is, or repeated so that long matches and
** several blocks occur); the stream must decode with zlib's inflate to the same bytes, fit the
** bound, and a buffer shorter than the stream must give CAIRN_RANGE, never a write past it.
** Corpus: tests/fuzz/corpus/deflate_enc/.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cairn/cairn.h"
#include "codec/deflate_enc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  int level = data[0] % 10, reps = 1 + (data[0] / 10) % 8; /* up to 8 copies */
  data++, size--;
  if (size > (1u << 20)) return 0;
  size_t n = size * (size_t)reps;
  uint8_t *a = malloc(n + 1);
  for (int r = 0; r < reps; r++) {
    memcpy(a + (size_t)r * size, data, size);
    if (r && size) a[(size_t)r * size + (size_t)r % size] ^= (uint8_t)r; /* copies that differ a little */
  }
  size_t cap = cairnDeflateBound(n), nc = 0, nd = 0;
  uint8_t *c = malloc(cap), *d = malloc(n + 1);
  if (cairnDeflateCompress(level, a, n, c, cap, &nc) != CAIRN_OK || nc > cap) __builtin_trap();
  if (cairn_zdecompress(CAIRN_DEFLATE, c, nc, d, n + 1, &nd) != CAIRN_OK || nd != n || memcmp(a, d, n) != 0) __builtin_trap();
  /* one byte short: must refuse, within the buffer */
  uint8_t *s = malloc(nc - 1 ? nc - 1 : 1);
  size_t ns = 0;
  if (cairnDeflateCompress(level, a, n, s, nc - 1, &ns) != CAIRN_RANGE) __builtin_trap();
  free(s), free(a), free(c), free(d);
  return 0;
}
