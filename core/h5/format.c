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
