/*
** 2026-11-29
**
** core/zl/zl_xxh3.c - XXH3-64 (seed 0, default secret), the hash OpenZL frames use for their
** header check byte and their content/compressed checksums (low 32 bits). Written from the
** published XXH3 algorithm description; checked against reference values in tests/core/test_zl.c.
** Inputs above 240 bytes run a stripe kernel: scalar, AVX2 (x86, when the CPU has it) or wasm
** simd128 (when compiled with it); cairn_cpu_disable() forces the scalar one.
*/
#include "zl/zl_int.h"

#define P32_1 0x9E3779B1u
#define P32_2 0x85EBCA77u
#define P32_3 0xC2B2AE3Du
#define P64_1 0x9E3779B185EBCA87ull
#define P64_2 0xC2B2AE3D27D4EB4Full
#define P64_3 0x165667B19E3779F9ull
#define P64_4 0x85EBCA77C2B2AE63ull
#define P64_5 0x27D4EB2F165667C5ull
#define PMX_1 0x165667919E3779F9ull
#define PMX_2 0x9FB21C651E98DF25ull

static const uint8_t kSecret[192] = {
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
};

#define RD64 cairnGetLE64
#define RD32 cairnGetLE32

static uint64_t xxMul128Fold(uint64_t a, uint64_t b) {
#ifdef __SIZEOF_INT128__
  unsigned __int128 r = (unsigned __int128)a * b;
  return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
  uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
  uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
  uint64_t cross = (ll >> 32) + (uint32_t)hl + lh;
  uint64_t hi = (hl >> 32) + (cross >> 32) + hh;
  uint64_t lo = (cross << 32) | (uint32_t)ll;
  return lo ^ hi;
#endif
}
static uint64_t xxRotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static uint64_t xxAval64(uint64_t h) {
  h ^= h >> 33, h *= P64_2, h ^= h >> 29, h *= P64_3;
  return h ^ (h >> 32);
}
static uint64_t xxAval3(uint64_t h) {
  h ^= h >> 37, h *= PMX_1;
  return h ^ (h >> 32);
}
static uint64_t xxMix16(const uint8_t *p, const uint8_t *s) {
  return xxMul128Fold(RD64(p) ^ RD64(s), RD64(p + 8) ^ RD64(s + 8));
}
/* The long-input loop: stripes of 64 bytes into 8 accumulators, a scramble every block. Three
** kernels (scalar, AVX2, wasm simd128) compute the same thing; tests check they agree. */
static void xxAccScalar(uint64_t *acc, const uint8_t *p, size_t nStripes, const uint8_t *s) {
  for (size_t k = 0; k < nStripes; k++, p += 64, s += 8)
    for (int i = 0; i < 8; i++) {
      uint64_t v = RD64(p + 8 * i), key = v ^ RD64(s + 8 * i);
      acc[i ^ 1] += v;
      acc[i] += (uint64_t)(uint32_t)key * (key >> 32);
    }
}
static void xxScrScalar(uint64_t *acc, const uint8_t *s) {
  for (int i = 0; i < 8; i++) {
    uint64_t a = acc[i];
    a ^= a >> 47, a ^= RD64(s + 8 * i), a *= P32_1;
    acc[i] = a;
  }
}

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define XX_HAVE_AVX2 1
__attribute__((target("avx2"))) static void xxAccAvx2(uint64_t *acc, const uint8_t *p, size_t nStripes, const uint8_t *s) {
  __m256i a0 = _mm256_loadu_si256((const __m256i *)(const void *)acc), a1 = _mm256_loadu_si256((const __m256i *)(const void *)(acc + 4));
  for (size_t k = 0; k < nStripes; k++, p += 64, s += 8) {
    __m256i d0 = _mm256_loadu_si256((const __m256i *)(const void *)p), d1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
    __m256i k0 = _mm256_xor_si256(d0, _mm256_loadu_si256((const __m256i *)(const void *)s));
    __m256i k1 = _mm256_xor_si256(d1, _mm256_loadu_si256((const __m256i *)(const void *)(s + 32)));
    __m256i m0 = _mm256_mul_epu32(k0, _mm256_srli_epi64(k0, 32)), m1 = _mm256_mul_epu32(k1, _mm256_srli_epi64(k1, 32));
    a0 = _mm256_add_epi64(a0, _mm256_add_epi64(_mm256_shuffle_epi32(d0, _MM_SHUFFLE(1, 0, 3, 2)), m0));
    a1 = _mm256_add_epi64(a1, _mm256_add_epi64(_mm256_shuffle_epi32(d1, _MM_SHUFFLE(1, 0, 3, 2)), m1));
  }
  _mm256_storeu_si256((__m256i *)(void *)acc, a0), _mm256_storeu_si256((__m256i *)(void *)(acc + 4), a1);
}
#endif

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
static void xxAccWasm(uint64_t *acc, const uint8_t *p, size_t nStripes, const uint8_t *s) {
  v128_t a[4];
  for (int j = 0; j < 4; j++) a[j] = wasm_v128_load(acc + 2 * j);
  const v128_t lo32 = wasm_i64x2_splat(0xffffffffll);
  for (size_t k = 0; k < nStripes; k++, p += 64, s += 8)
    for (int j = 0; j < 4; j++) {
      v128_t d = wasm_v128_load(p + 16 * j), key = wasm_v128_xor(d, wasm_v128_load(s + 16 * j));
      v128_t m = wasm_i64x2_mul(wasm_v128_and(key, lo32), wasm_u64x2_shr(key, 32));
      a[j] = wasm_i64x2_add(a[j], wasm_i64x2_add(wasm_i64x2_shuffle(d, d, 1, 0), m));
    }
  for (int j = 0; j < 4; j++) wasm_v128_store(acc + 2 * j, a[j]);
}
#endif

typedef void (*xx_acc_fn)(uint64_t *, const uint8_t *, size_t, const uint8_t *);

static uint64_t xxLong(const uint8_t *p, size_t n) {
  xx_acc_fn xAcc = xxAccScalar;
#ifdef XX_HAVE_AVX2
  if (cairn_cpu_features() & CAIRN_CPU_AVX2) xAcc = xxAccAvx2;
#endif
#ifdef __wasm_simd128__
  if (cairn_cpu_features() & CAIRN_CPU_WASM128) xAcc = xxAccWasm;
#endif
  uint64_t acc[8] = {P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1};
  const size_t nStripes = (sizeof kSecret - 64) / 8, blockLen = 64 * nStripes;
  size_t nBlocks = (n - 1) / blockLen;
  for (size_t b = 0; b < nBlocks; b++) {
    xAcc(acc, p + b * blockLen, nStripes, kSecret);
    xxScrScalar(acc, kSecret + sizeof kSecret - 64);
  }
  size_t nLast = ((n - 1) - blockLen * nBlocks) / 64;
  xAcc(acc, p + nBlocks * blockLen, nLast, kSecret);
  xAcc(acc, p + n - 64, 1, kSecret + sizeof kSecret - 64 - 7);
  uint64_t r = (uint64_t)n * P64_1;
  for (int i = 0; i < 4; i++)
    r += xxMul128Fold(acc[2 * i] ^ RD64(kSecret + 11 + 16 * i), acc[2 * i + 1] ^ RD64(kSecret + 11 + 16 * i + 8));
  return xxAval3(r);
}

uint64_t cairnXxh3(const void *pv, size_t n) {
  const uint8_t *p = pv, *s = kSecret;
  if (n == 0) return xxAval64(RD64(s + 56) ^ RD64(s + 64));
  if (n <= 3) {
    uint32_t c = ((uint32_t)p[0] << 16) | ((uint32_t)p[n >> 1] << 24) | p[n - 1] | ((uint32_t)n << 8);
    return xxAval64((uint64_t)c ^ (uint64_t)(RD32(s) ^ RD32(s + 4)));
  }
  if (n <= 8) {
    uint64_t v = (uint64_t)RD32(p + n - 4) + ((uint64_t)RD32(p) << 32);
    uint64_t h = v ^ (RD64(s + 8) ^ RD64(s + 16));
    h ^= xxRotl(h, 49) ^ xxRotl(h, 24);
    h *= PMX_2;
    h ^= (h >> 35) + n;
    h *= PMX_2;
    return h ^ (h >> 28);
  }
  if (n <= 16) {
    uint64_t lo = RD64(p) ^ (RD64(s + 24) ^ RD64(s + 32));
    uint64_t hi = RD64(p + n - 8) ^ (RD64(s + 40) ^ RD64(s + 48));
    uint64_t acc = n + __builtin_bswap64(lo) + hi + xxMul128Fold(lo, hi);
    return xxAval3(acc);
  }
  if (n <= 128) {
    uint64_t acc = n * P64_1;
    if (n > 32) {
      if (n > 64) {
        if (n > 96) acc += xxMix16(p + 48, s + 96) + xxMix16(p + n - 64, s + 112);
        acc += xxMix16(p + 32, s + 64) + xxMix16(p + n - 48, s + 80);
      }
      acc += xxMix16(p + 16, s + 32) + xxMix16(p + n - 32, s + 48);
    }
    acc += xxMix16(p, s) + xxMix16(p + n - 16, s + 16);
    return xxAval3(acc);
  }
  if (n <= 240) {
    uint64_t acc = n * P64_1;
    size_t nRounds = n / 16;
    for (size_t i = 0; i < 8; i++) acc += xxMix16(p + 16 * i, s + 16 * i);
    acc = xxAval3(acc);
    for (size_t i = 8; i < nRounds; i++) acc += xxMix16(p + 16 * i, s + 16 * (i - 8) + 3);
    acc += xxMix16(p + n - 16, s + 136 - 17);
    return xxAval3(acc);
  }
  return xxLong(p, n);
}
