/*
** 2026-11-29
**
** core/common/cpu.c - which SIMD and crypto instructions kernels may use.
**
** x86: cpuid + xgetbv, executed here (they are instructions, not OS calls). The OS must have
** enabled the wider register state (XCR0), or AVX code faults even though cpuid says yes.
** ARM: NEON is part of AArch64. Whether the crypto extension is there only the OS knows
** (AT_HWCAP), so the host reports it through xCpuFeatures.
** wasm: simd128 is chosen at compile time.
** cairn_cpu_disable() lets tests force every portable path.
*/
#include "internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
static uint64_t detectX86(void) {
  unsigned a, b, c, d;
  uint64_t f = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1, fma = (c >> 12) & 1, f16c = (c >> 29) & 1;
  if ((c >> 19) & 1) f |= CAIRN_CPU_SSE41;
  uint64_t xcr0 = 0;
  if (osxsave) {
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    xcr0 = ((uint64_t)hi << 32) | lo;
  }
  int ymm = (xcr0 & 6) == 6, zmm = (xcr0 & 0xe6) == 0xe6;
  if (ymm && f16c && avx) f |= CAIRN_CPU_F16C;
  if (__get_cpuid_max(0, NULL) >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    if (ymm && avx && fma && ((b >> 5) & 1)) f |= CAIRN_CPU_AVX2;
    if (zmm && ((b >> 16) & 1) && ((b >> 30) & 1) && ((b >> 31) & 1)) f |= CAIRN_CPU_AVX512;
    if ((b >> 29) & 1) f |= CAIRN_CPU_SHANI;
  }
  return f;
}
#endif

static uint64_t gDisabled;
static int gDetected;
static uint64_t gFeatures;

uint64_t cairn_cpu_features(void) {
  if (!gDetected) {
    uint64_t f = 0;
#if defined(__x86_64__) || defined(__i386__)
    f |= detectX86();
#endif
#if defined(__aarch64__)
    f |= CAIRN_CPU_NEON;
#endif
#if defined(__wasm_simd128__)
    f |= CAIRN_CPU_WASM128;
#endif
    const cairn_host *h = cairn_host_get();
    if (h->xCpuFeatures) f |= h->xCpuFeatures(h->pCtx);
    gFeatures = f;
    gDetected = 1; /* benign race: every thread computes the same value */
  }
  return gFeatures & ~gDisabled;
}

void cairn_cpu_disable(uint64_t mask) { gDisabled = mask; }

/* The host may report features (xCpuFeatures): detect again after cairn_host_set. */
void cairnCpuReset(void) { gDetected = 0; }
