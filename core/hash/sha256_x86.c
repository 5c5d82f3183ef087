/*
** 2026-11-29
**
** core/hash/sha256_x86.c - SHA-256 block function with the x86 SHA extensions (SHA-NI).
** Compiled at baseline with a target attribute, and called only when cpuid reports SHA
** (see pickKernel in sha256.c). The state is kept as the two lanes the instructions want:
** ABEF and CDGH.
*/
#include "hash/sha256_int.h"

#if CAIRN_SHA256_HAVE_X86
#include <immintrin.h>

__attribute__((target("sha,sse4.1,ssse3")))
void cairnSha256ShaNi(uint32_t h[8], const uint8_t *p, size_t nBlock) {
  const uint32_t *K = cairnSha256K();
  const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bll, 0x0405060700010203ll);
  __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)h), 0xB1);      /* CDAB */
  __m128i st1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(h + 4)), 0x1B); /* HGFE */
  __m128i st0 = _mm_alignr_epi8(tmp, st1, 8);                                        /* ABEF */
  st1 = _mm_blend_epi16(st1, tmp, 0xF0);                                             /* CDGH */
  while (nBlock--) {
    __m128i save0 = st0, save1 = st1, m[4];
    for (int i = 0; i < 4; i++) m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), bswap);
    for (int r = 0; r < 16; r++) {
      __m128i t = _mm_add_epi32(m[r & 3], _mm_loadu_si128((const __m128i *)(K + 4 * r)));
      st1 = _mm_sha256rnds2_epu32(st1, st0, t);
      st0 = _mm_sha256rnds2_epu32(st0, st1, _mm_shuffle_epi32(t, 0x0E));
      if (r < 12) {
        /* W[t] for the block 4 rounds-of-4 ahead: msg1 adds sigma0, alignr brings W[t-7],
        ** msg2 adds sigma1 of W[t-2]. */
        __m128i x = _mm_sha256msg1_epu32(m[r & 3], m[(r + 1) & 3]);
        x = _mm_add_epi32(x, _mm_alignr_epi8(m[(r + 3) & 3], m[(r + 2) & 3], 4));
        m[r & 3] = _mm_sha256msg2_epu32(x, m[(r + 3) & 3]);
      }
    }
    st0 = _mm_add_epi32(st0, save0);
    st1 = _mm_add_epi32(st1, save1);
    p += 64;
  }
  tmp = _mm_shuffle_epi32(st0, 0x1B);   /* FEBA */
  st1 = _mm_shuffle_epi32(st1, 0xB1);   /* DCHG */
  st0 = _mm_blend_epi16(tmp, st1, 0xF0); /* DCBA */
  st1 = _mm_alignr_epi8(st1, tmp, 8);   /* HGFE */
  _mm_storeu_si128((__m128i *)h, st0);
  _mm_storeu_si128((__m128i *)(h + 4), st1);
}
#endif
