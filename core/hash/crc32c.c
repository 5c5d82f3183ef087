/*
** 2026-11-29
**
** core/hash/crc32c.c - CRC-32C (Castagnoli, reflected polynomial 0x82F63B78): the record
** checksum of the chunk store (core/cas) and of the memory store's log (core/mem). SSE4.2's
** crc32 instruction on x86-64, slicing-by-8 tables elsewhere (wasm included).
** Check value: crc32c("123456789") = 0xe3069283.
*/
#include "common/internal.h"
#include "hash/crc32c.h"

static uint32_t aCrcTab[8][256];
static int crcReady;
static void crcInit(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
    aCrcTab[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; i++)
    for (int t = 1; t < 8; t++) aCrcTab[t][i] = (aCrcTab[t - 1][i] >> 8) ^ aCrcTab[0][aCrcTab[t - 1][i] & 0xff];
  crcReady = 1; /* benign race: every thread writes the same tables */
}
#if defined(__x86_64__)
#include <immintrin.h>
/* SSE4.2's crc32 instruction computes exactly CRC-32C, 8 bytes per instruction. SSE4.2 is not
** among the CAIRN_CPU_* bits: the compiler runtime's cpuid check decides, and disabling
** CAIRN_CPU_SSE41 (the tests' kill switch) forces the table. */
__attribute__((target("sse4.2"))) static uint32_t crcHw(uint32_t crc, const uint8_t *a, size_t n) {
  uint64_t c = crc;
  for (; n >= 8; n -= 8, a += 8) c = _mm_crc32_u64(c, cairnGetLE64(a));
  uint32_t c32 = (uint32_t)c;
  for (; n; n--) c32 = _mm_crc32_u8(c32, *a++);
  return c32;
}
static int haveSse42(void) {
  static int v = -1;
  if (v < 0) {
    __builtin_cpu_init();
    v = __builtin_cpu_supports("sse4.2") != 0;
  }
  return v && (cairn_cpu_features() & CAIRN_CPU_SSE41);
}
#endif

uint32_t cairnCrc32c(uint32_t crc, const void *p, size_t n) {
  const uint8_t *a = p;
#if defined(__x86_64__)
  if (haveSse42()) return ~crcHw(~crc, a, n);
#endif
  if (!crcReady) crcInit();
  crc = ~crc;
  while (n >= 8) { /* slicing-by-8 */
    uint32_t lo = crc ^ cairnGetLE32(a), hi = cairnGetLE32(a + 4);
    crc = aCrcTab[7][lo & 0xff] ^ aCrcTab[6][(lo >> 8) & 0xff] ^ aCrcTab[5][(lo >> 16) & 0xff] ^ aCrcTab[4][lo >> 24] ^
          aCrcTab[3][hi & 0xff] ^ aCrcTab[2][(hi >> 8) & 0xff] ^ aCrcTab[1][(hi >> 16) & 0xff] ^ aCrcTab[0][hi >> 24];
    a += 8, n -= 8;
  }
  while (n--) crc = (crc >> 8) ^ aCrcTab[0][(crc ^ *a++) & 0xff];
  return ~crc;
}
