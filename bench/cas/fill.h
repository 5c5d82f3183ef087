/*
** 2026-11-30
**
** bench/cas/fill.h - the seeded random payload both chunk-store benchmarks (bench_cas.c natively,
** bench_wasi.c under WASI) hash and chunk, so the two measure the same bytes for a seed.
*/
#ifndef CAIRN_BENCH_CAS_FILL_H
#define CAIRN_BENCH_CAS_FILL_H

#include <stdint.h>
#include <string.h>

/* Seeded PRNG bytes (xorshift64*). */
static void fillRand(uint8_t *p, size_t n, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < n; i += 8) {
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    uint64_t v = x * 0x2545F4914F6CDD1Dull;
    memcpy(p + i, &v, n - i < 8 ? n - i : 8);
  }
}

#endif
