/*
** 2026-11-29
**
** core/cas/cdc_fused.c - the gear scanners: plain (no hashing), and fused with SHA-256 block
** compression on three kernels (SHA-NI on x86-64, the ARMv8 crypto extension, portable C).
**
** Why fused: the gear hash is one serial chain (shift, add, test per byte) and the SHA-NI
** rounds are another, on different execution units. Issued back to back in one loop the
** CPU runs them side by side, so chunking costs next to nothing on top of hashing: measured
** on this machine kind, SHA-256 alone 2,040 MB/s, gear alone 2,800 MB/s, both fused 2,000 MB/s.
** The SHA stream and the gear stream are different bytes (the gear scan runs ahead of the
** hash, see fastcdc.c), so a block of each is processed per iteration.
**
** Maintenance reminder: the SHA round code here mirrors core/hash/sha256_x86.c and
** sha256_arm.c; a fix there belongs here too (tests/core/test_fastcdc.c compares every
** kernel's chunk hashes with cairn_sha256).
*/
#include "cas/cas_int.h"
#include "hash/sha256_int.h"

void cairnCdcScanPlain(CdcScan *s, const uint8_t *p, size_t n, uint64_t iPos) {
  CDC_LOCALS(s);
  size_t i = 0;
  for (; i + 2 <= n; i += 2) CDC_STEP2(p, i, iPos);
  if (i < n) { /* an odd last byte: one byte-wise step */
    cdcH = (cdcH << 1) + cdcG[p[i]];
    if ((cdcH & cdcM) == 0) {
      cdcCand[cdcN].iPos = iPos + i;
      cdcCand[cdcN++].h = cdcH;
    }
  }
  CDC_SAVE(s);
}

void cairnCdcFusedPortable(uint32_t h[8], const uint8_t *pSha, size_t nBlock, CdcScan *s,
                           const uint8_t *pGear, uint64_t iGear) {
  while (nBlock--) {
    cairnSha256Portable(h, pSha, 1);
    cairnCdcScanPlain(s, pGear, 64, iGear);
    pSha += 64, pGear += 64, iGear += 64;
  }
}

#if CAIRN_SHA256_HAVE_X86
#include <immintrin.h>

__attribute__((target("sha,sse4.1,ssse3")))
void cairnCdcFusedShaNi(uint32_t h[8], const uint8_t *p, size_t nBlock, CdcScan *s,
                        const uint8_t *g, uint64_t iGear) {
  const uint32_t *K = cairnSha256K();
  const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bll, 0x0405060700010203ll);
  __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)h), 0xB1);
  __m128i st1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(h + 4)), 0x1B);
  __m128i st0 = _mm_alignr_epi8(tmp, st1, 8);
  st1 = _mm_blend_epi16(st1, tmp, 0xF0);
  CDC_LOCALS(s);
  while (nBlock--) {
    __m128i save0 = st0, save1 = st1, m[4];
    for (int i = 0; i < 4; i++) m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), bswap);
#pragma GCC unroll 16
    for (int r = 0; r < 16; r++) {
      __m128i t = _mm_add_epi32(m[r & 3], _mm_loadu_si128((const __m128i *)(K + 4 * r)));
      st1 = _mm_sha256rnds2_epu32(st1, st0, t);
      st0 = _mm_sha256rnds2_epu32(st0, st1, _mm_shuffle_epi32(t, 0x0E));
      if (r < 12) {
        __m128i x = _mm_sha256msg1_epu32(m[r & 3], m[(r + 1) & 3]);
        x = _mm_add_epi32(x, _mm_alignr_epi8(m[(r + 3) & 3], m[(r + 2) & 3], 4));
        m[r & 3] = _mm_sha256msg2_epu32(x, m[(r + 3) & 3]);
      }
      /* four gear bytes per four rounds */
      CDC_STEP2(g, 4 * r, iGear);
      CDC_STEP2(g, 4 * r + 2, iGear);
    }
    st0 = _mm_add_epi32(st0, save0);
    st1 = _mm_add_epi32(st1, save1);
    p += 64, g += 64, iGear += 64;
  }
  CDC_SAVE(s);
  tmp = _mm_shuffle_epi32(st0, 0x1B);
  st1 = _mm_shuffle_epi32(st1, 0xB1);
  st0 = _mm_blend_epi16(tmp, st1, 0xF0);
  st1 = _mm_alignr_epi8(st1, tmp, 8);
  _mm_storeu_si128((__m128i *)h, st0);
  _mm_storeu_si128((__m128i *)(h + 4), st1);
}
#endif

#if CAIRN_SHA256_HAVE_ARM
#include <arm_neon.h>

__attribute__((target("arch=armv8-a+crypto")))
void cairnCdcFusedArm(uint32_t h[8], const uint8_t *p, size_t nBlock, CdcScan *s,
                      const uint8_t *g, uint64_t iGear) {
  const uint32_t *K = cairnSha256K();
  uint32x4_t abcd = vld1q_u32(h), efgh = vld1q_u32(h + 4);
  CDC_LOCALS(s);
  while (nBlock--) {
    uint32x4_t save0 = abcd, save1 = efgh, m[4];
    for (int i = 0; i < 4; i++) m[i] = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p + 16 * i)));
    for (int r = 0; r < 16; r++) {
      uint32x4_t t = vaddq_u32(m[r & 3], vld1q_u32(K + 4 * r));
      if (r < 12) m[r & 3] = vsha256su1q_u32(vsha256su0q_u32(m[r & 3], m[(r + 1) & 3]), m[(r + 2) & 3], m[(r + 3) & 3]);
      uint32x4_t prev = abcd;
      abcd = vsha256hq_u32(abcd, efgh, t);
      efgh = vsha256h2q_u32(efgh, prev, t);
      CDC_STEP2(g, 4 * r, iGear);
      CDC_STEP2(g, 4 * r + 2, iGear);
    }
    abcd = vaddq_u32(abcd, save0);
    efgh = vaddq_u32(efgh, save1);
    p += 64, g += 64, iGear += 64;
  }
  CDC_SAVE(s);
  vst1q_u32(h, abcd);
  vst1q_u32(h + 4, efgh);
}
#endif

CdcFusedFn cairnCdcPickFused(void) {
  uint64_t f = cairn_cpu_features();
  (void)f;
#if CAIRN_SHA256_HAVE_X86
  if (f & CAIRN_CPU_SHANI) return cairnCdcFusedShaNi;
#endif
#if CAIRN_SHA256_HAVE_ARM
  if (f & CAIRN_CPU_ARMSHA2) return cairnCdcFusedArm;
#endif
  return cairnCdcFusedPortable;
}
