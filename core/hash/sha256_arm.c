/*
** 2026-11-29
**
** core/hash/sha256_arm.c - SHA-256 block function with the ARMv8 cryptography extension.
** Called only when the host reports CAIRN_CPU_ARMSHA2 (AT_HWCAP on Linux); tested under
** qemu-user, whose default CPU has the extension.
*/
#include "hash/sha256_int.h"

#if CAIRN_SHA256_HAVE_ARM
#include <arm_neon.h>

__attribute__((target("arch=armv8-a+crypto")))
void cairnSha256Arm(uint32_t h[8], const uint8_t *p, size_t nBlock) {
  const uint32_t *K = cairnSha256K();
  uint32x4_t abcd = vld1q_u32(h), efgh = vld1q_u32(h + 4);
  while (nBlock--) {
    uint32x4_t save0 = abcd, save1 = efgh, m[4];
    for (int i = 0; i < 4; i++) m[i] = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p + 16 * i)));
    for (int r = 0; r < 16; r++) {
      uint32x4_t t = vaddq_u32(m[r & 3], vld1q_u32(K + 4 * r));
      if (r < 12) m[r & 3] = vsha256su1q_u32(vsha256su0q_u32(m[r & 3], m[(r + 1) & 3]), m[(r + 2) & 3], m[(r + 3) & 3]);
      uint32x4_t prev = abcd;
      abcd = vsha256hq_u32(abcd, efgh, t);
      efgh = vsha256h2q_u32(efgh, prev, t);
    }
    abcd = vaddq_u32(abcd, save0);
    efgh = vaddq_u32(efgh, save1);
    p += 64;
  }
  vst1q_u32(h, abcd);
  vst1q_u32(h + 4, efgh);
}
#endif
