/*
** 2026-11-29
**
** core/hash/lookup3.c - lookup3 hashlittle (Bob Jenkins, 2006, public domain algorithm),
** byte-at-a-time so it is independent of alignment and host byte order.
*/
#include "common/internal.h"
#include "hash/lookup3.h"

#define ROT(x, k) (((x) << (k)) | ((x) >> (32 - (k))))
#define MIX(a, b, c)                     \
  do {                                   \
    a -= c; a ^= ROT(c, 4);  c += b;     \
    b -= a; b ^= ROT(a, 6);  a += c;     \
    c -= b; c ^= ROT(b, 8);  b += a;     \
    a -= c; a ^= ROT(c, 16); c += b;     \
    b -= a; b ^= ROT(a, 19); a += c;     \
    c -= b; c ^= ROT(b, 4);  b += a;     \
  } while (0)
#define FINAL(a, b, c)                   \
  do {                                   \
    c ^= b; c -= ROT(b, 14);             \
    a ^= c; a -= ROT(c, 11);             \
    b ^= a; b -= ROT(a, 25);             \
    c ^= b; c -= ROT(b, 16);             \
    a ^= c; a -= ROT(c, 4);              \
    b ^= a; b -= ROT(a, 14);             \
    c ^= b; c -= ROT(b, 24);             \
  } while (0)

uint32_t cairnLookup3(const void *pv, size_t n, uint32_t initval) {
  const uint8_t *k = pv;
  uint32_t a, b, c;
  a = b = c = 0xdeadbeef + (uint32_t)n + initval;
  while (n > 12) {
    a += cairnGetLE32(k);
    b += cairnGetLE32(k + 4);
    c += cairnGetLE32(k + 8);
    MIX(a, b, c);
    n -= 12;
    k += 12;
  }
  /* The last 1..12 bytes, zero-padded (the tail switch of the reference code). */
  if (n == 0) return c;
  uint8_t t[12] = {0};
  memcpy(t, k, n);
  a += cairnGetLE32(t);
  b += cairnGetLE32(t + 4);
  c += cairnGetLE32(t + 8);
  FINAL(a, b, c);
  return c;
}
