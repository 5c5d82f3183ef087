/*
** 2026-12-02
**
** core/h5/format.c - the out-of-line part of the HDF5 format layer (format.h): the lookup3
** check with its message, and Fletcher-32, shared by the reader's filter pipeline
** (r_filter.c) and the writer's (w_filter.c).
*/
#include "h5/format.h"

int cairnH5Checksum(const uint8_t *p, size_t n, uint64_t addr, const char *zWhat) {
  uint32_t want = cairnGetLE32(p + n), got = cairnLookup3(p, n, 0);
  if (want != got)
    return cairnErr(CAIRN_CHECKSUM, "hdf5: %s checksum mismatch at offset %llu (stored %x, computed %x)", zWhat,
                    (unsigned long long)addr, want, got);
  return CAIRN_OK;
}

uint32_t cairnH5Fletcher32(const uint8_t *p, size_t n) {
  uint32_t s1 = 0, s2 = 0;
  size_t words = n / 2;
  while (words) {
    size_t t = words > 360 ? 360 : words; /* no overflow of the 32-bit sums within a block */
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

/* Lexicographic order of two chunk keys' offsets, the element coordinate last. */
static int chunkKeyCmp(const uint8_t *a, const uint8_t *b, uint32_t rank) {
  for (uint32_t j = 0; j <= rank; j++) {
    uint64_t x = cairnGetLE64(a + 8 + 8 * j), y = cairnGetLE64(b + 8 + 8 * j);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

const char *cairnH5ChunkNodeCheck(const uint8_t *p, uint32_t n, uint32_t rank, const uint64_t *aChunk, unsigned so, const uint8_t *lo,
                                  const uint8_t *hi) {
  size_t key = 8 + 8 * (size_t)(rank + 1), step = key + so;
  for (uint32_t i = 0; i <= n; i++) {
    const uint8_t *k = p + (size_t)i * step;
    if (i < n) {
      for (uint32_t j = 0; j < rank; j++)
        if (aChunk[j] == 0 || cairnGetLE64(k + 8 + 8 * j) % aChunk[j]) return "a key is not a multiple of the chunk dimensions";
      if (cairnGetLE64(k + 8 + 8 * rank) != 0) return "a key has a nonzero element coordinate";
    }
    if (i > 0 && chunkKeyCmp(k - step, k, rank) >= 0) return "its keys do not ascend";
  }
  if (lo && chunkKeyCmp(p, lo, rank) < 0) return "its first key is before its parent's";
  /* (a right bound may pass the parent's next key: cairn's offset + chunk dims does in rank 2+) */
  if (hi && n > 0 && chunkKeyCmp(p + (size_t)(n - 1) * step, hi, rank) >= 0) return "its last chunk is not before its parent's next key";
  return NULL;
}
