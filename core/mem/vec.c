/*
** 2026-11-29
**
** core/mem/vec.c - vector kernels and flat search for the memory store.
**
** Three kernels per instruction set, each over a batch of rows against one query: f32 dot,
** int8 dot (exact int32) and f16 dot. Scalar is the reference; AVX2+FMA, AVX-512 and AVX-512
** VNNI (int8 only) variants
** are compiled with target attributes and picked at run time from cairn_cpu_features(); NEON
** under __aarch64__ and wasm simd128 under __wasm_simd128__ at compile time. The scan is bound
** by memory bandwidth (a 100K x 384 f32 scan reads 154 MB): the x86 f32 kernels read one row
** at a time in address order with several accumulators and a software prefetch; the wasm f32
** kernel goes four rows at a time from four contiguous stripes of the batch (four sequential
** streams; see its comment); the int8 and NEON f32 kernels go four adjacent rows at a time so
** each query load feeds four multiply-adds. Row storage is 64-byte aligned (cairnVecsAppend).
**
** All scores are "higher is better": dot for cosine (rows are normalised on add) and inner
** product, 2 x.q - |x|^2 - |q|^2 (= -|x-q|^2) for L2. Quantised scans use the same formulas
** with the approximate dot and the exact |x|^2, then re-rank a candidate set with f32.
**
** The flat search splits the rows into blocks run through cairnParallelFor; each worker keeps
** its own top-k heap and the heaps are merged at the end, so results do not depend on the
** thread count (ties are broken by row number).
*/
#include <math.h>

#include "mem_int.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define MEM_X86 1
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#endif
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

/* ------------------------------------------------------------------ f16 conversion */
uint16_t cairnF32ToF16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t e = (x >> 23) & 0xff, m = x & 0x7fffffu;
  if (e == 0xff) return (uint16_t)(sign | 0x7c00u | (m ? 0x200u : 0)); /* inf / nan */
  int32_t exp = (int32_t)e - 127 + 15;
  if (exp >= 31) return (uint16_t)(sign | 0x7c00u);                   /* overflow -> inf */
  if (exp <= 0) {                                                      /* subnormal or zero */
    if (exp < -10) return (uint16_t)sign;
    m |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - exp);
    uint32_t hm = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (hm & 1))) hm++;
    return (uint16_t)(sign | hm);
  }
  uint32_t hm = m >> 13, rem = m & 0x1fffu;
  uint32_t h = sign | ((uint32_t)exp << 10) | hm;
  if (rem > 0x1000u || (rem == 0x1000u && (hm & 1))) h++; /* may carry into the exponent: right */
  return (uint16_t)h;
}

float cairnF16ToF32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu, x;
  if (e == 0) {
    if (m == 0) x = sign;
    else { /* subnormal: normalise */
      e = 127 - 15 + 1;
      while (!(m & 0x400u)) {
        m <<= 1;
        e--;
      }
      x = sign | (e << 23) | ((m & 0x3ffu) << 13);
    }
  } else if (e == 31) x = sign | 0x7f800000u | (m << 13);
  else x = sign | ((e + 127 - 15) << 23) | (m << 13);
  float f;
  memcpy(&f, &x, 4);
  return f;
}

/* Plain C the compiler vectorises (no libm calls on the add path): rounding is half away from
** zero, and inputs are finite (the store rejects NaN/Inf before this). */
float cairnQuantI8(const float *x, uint32_t dim, int8_t *code) {
  float mx = 0;
  for (uint32_t i = 0; i < dim; i++) {
    float a = x[i] < 0 ? -x[i] : x[i];
    mx = a > mx ? a : mx;
  }
  if (mx == 0) {
    memset(code, 0, dim);
    return 0;
  }
  float s = mx / 127.0f, inv = 127.0f / mx;
  for (uint32_t i = 0; i < dim; i++) {
    float r = x[i] * inv;
    int v = (int)(r + (r >= 0 ? 0.5f : -0.5f));
    code[i] = (int8_t)(v > 127 ? 127 : v < -127 ? -127 : v);
  }
  return s;
}

/* A row of f32 to f16, round to nearest even: F16C when present (the same rounding as
** cairnF32ToF16, checked by the tests), else the portable conversion. */
#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx,f16c"))) static void f16RowF16c(const float *x, uint16_t *h, uint32_t n) {
  uint32_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128((__m128i *)(h + i), _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
  for (; i < n; i++) h[i] = cairnF32ToF16(x[i]);
}
#endif
void cairnF32ToF16Row(const float *x, uint16_t *h, uint32_t n) {
#if defined(__x86_64__) || defined(__i386__)
  if (cairn_cpu_features() & CAIRN_CPU_F16C) {
    f16RowF16c(x, h, n);
    return;
  }
#endif
  for (uint32_t i = 0; i < n; i++) h[i] = cairnF32ToF16(x[i]);
}

/* ------------------------------------------------------------------ scalar kernels */
static float dotScalar1(const float *a, const float *b, uint32_t d) {
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  uint32_t j = 0;
  for (; j + 4 <= d; j += 4) {
    s0 += a[j] * b[j];
    s1 += a[j + 1] * b[j + 1];
    s2 += a[j + 2] * b[j + 2];
    s3 += a[j + 3] * b[j + 3];
  }
  for (; j < d; j++) s0 += a[j] * b[j];
  return (s0 + s1) + (s2 + s3);
}
static void dotF32Scalar(const float *base, size_t n, uint32_t dim, const float *q, float *out) {
  for (size_t i = 0; i < n; i++) out[i] = dotScalar1(base + i * dim, q, dim);
}
static void dotI8Scalar(const int8_t *base, size_t n, uint32_t dim, const int8_t *q, int32_t *out) {
  for (size_t i = 0; i < n; i++) {
    const int8_t *r = base + i * dim;
    int32_t s = 0;
    for (uint32_t j = 0; j < dim; j++) s += (int32_t)r[j] * q[j];
    out[i] = s;
  }
}
static void dotF16Scalar(const uint16_t *base, size_t n, uint32_t dim, const float *q, float *out) {
  for (size_t i = 0; i < n; i++) {
    const uint16_t *r = base + i * dim;
    float s0 = 0, s1 = 0;
    uint32_t j = 0;
    for (; j + 2 <= dim; j += 2) {
      s0 += cairnF16ToF32(r[j]) * q[j];
      s1 += cairnF16ToF32(r[j + 1]) * q[j + 1];
    }
    for (; j < dim; j++) s0 += cairnF16ToF32(r[j]) * q[j];
    out[i] = s0 + s1;
  }
}
static const MemKernels kScalar = {"scalar", dotF32Scalar, dotI8Scalar, dotF16Scalar};

float cairnMemDot(const float *a, const float *b, uint32_t dim) {
  float r;
  cairnMemKernels()->xDotF32(a, 1, dim, b, &r);
  return r;
}

/* ------------------------------------------------------------------ x86 */
#ifdef MEM_X86
#define AVX2 __attribute__((target("avx2,fma")))
#define AVX2F16 __attribute__((target("avx2,fma,f16c")))
#define AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx2,fma,f16c")))

AVX2 static inline float hsum256(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
}
AVX2 static inline int32_t hsum256i(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
  return _mm_cvtsi128_si32(s);
}

/* The same shape as the AVX-512 f32 kernel below (one row at a time, four accumulators,
** software prefetch); its comment says why. Prefetches past the end of the rows are harmless
** (they never fault), and the address is formed as an integer so no out-of-bounds pointer is
** made. */
#define SCAN_PREFETCH 8192
/* pfOff is SCAN_PREFETCH for a scan, 0 for a few scattered rows (re-ranking: the bytes after
** a row are not needed, and a prefetch of the row itself costs nothing). */
#define PREFETCH_AHEAD(p) _mm_prefetch((const char *)((uintptr_t)(p) + pfOff), _MM_HINT_T0)
#define PREFETCH_OFFSET(n) ((n) >= 8 ? (uintptr_t)SCAN_PREFETCH : 0)
AVX2 static void dotF32Avx2(const float *base, size_t n, uint32_t dim, const float *q, float *out) {
  uint32_t d32 = dim & ~31u, d8 = dim & ~7u;
  uintptr_t pfOff = PREFETCH_OFFSET(n);
  for (size_t i = 0; i < n; i++) {
    const float *r = base + i * dim;
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    uint32_t j = 0;
    for (; j < d32; j += 32) {
      PREFETCH_AHEAD(r + j);
      PREFETCH_AHEAD(r + j + 16);
      a0 = _mm256_fmadd_ps(_mm256_loadu_ps(r + j), _mm256_loadu_ps(q + j), a0);
      a1 = _mm256_fmadd_ps(_mm256_loadu_ps(r + j + 8), _mm256_loadu_ps(q + j + 8), a1);
      a2 = _mm256_fmadd_ps(_mm256_loadu_ps(r + j + 16), _mm256_loadu_ps(q + j + 16), a2);
      a3 = _mm256_fmadd_ps(_mm256_loadu_ps(r + j + 24), _mm256_loadu_ps(q + j + 24), a3);
    }
    for (; j < d8; j += 8) {
      PREFETCH_AHEAD(r + j);
      a0 = _mm256_fmadd_ps(_mm256_loadu_ps(r + j), _mm256_loadu_ps(q + j), a0);
    }
    float s = hsum256(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
    for (; j < dim; j++) s += r[j] * q[j];
    out[i] = s;
  }
}

AVX2 static void dotI8Avx2(const int8_t *base, size_t n, uint32_t dim, const int8_t *q, int32_t *out) {
  uint32_t d16 = dim & ~15u;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const int8_t *r0 = base + i * dim, *r1 = r0 + dim, *r2 = r1 + dim, *r3 = r2 + dim;
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    for (uint32_t j = 0; j < d16; j += 16) {
      __m256i qq = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(q + j)));
      a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(r0 + j))), qq));
      a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(r1 + j))), qq));
      a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(r2 + j))), qq));
      a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(r3 + j))), qq));
    }
    int32_t s0 = hsum256i(a0), s1 = hsum256i(a1), s2 = hsum256i(a2), s3 = hsum256i(a3);
    for (uint32_t j = d16; j < dim; j++) {
      s0 += r0[j] * q[j], s1 += r1[j] * q[j], s2 += r2[j] * q[j], s3 += r3[j] * q[j];
    }
    out[i] = s0, out[i + 1] = s1, out[i + 2] = s2, out[i + 3] = s3;
  }
  for (; i < n; i++) {
    const int8_t *r = base + i * dim;
    __m256i a0 = _mm256_setzero_si256();
    for (uint32_t j = 0; j < d16; j += 16)
      a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(r + j))),
                                                  _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(q + j)))));
    int32_t s = hsum256i(a0);
    for (uint32_t j = d16; j < dim; j++) s += r[j] * q[j];
    out[i] = s;
  }
}

AVX2F16 static void dotF16Avx2(const uint16_t *base, size_t n, uint32_t dim, const float *q, float *out) {
  uint32_t d8 = dim & ~7u;
  for (size_t i = 0; i < n; i++) {
    const uint16_t *r = base + i * dim;
    __m256 a0 = _mm256_setzero_ps(), a1 = a0;
    uint32_t j = 0;
    for (; j + 16 <= d8; j += 16) {
      a0 = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(r + j))), _mm256_loadu_ps(q + j), a0);
      a1 = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(r + j + 8))), _mm256_loadu_ps(q + j + 8), a1);
    }
    for (; j < d8; j += 8)
      a0 = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(r + j))), _mm256_loadu_ps(q + j), a0);
    float s = hsum256(_mm256_add_ps(a0, a1));
    for (; j < dim; j++) s += cairnF16ToF32(r[j]) * q[j];
    out[i] = s;
  }
}
static const MemKernels kAvx2 = {"avx2", dotF32Avx2, dotI8Avx2, dotF16Avx2};
/* AVX2 without F16C (no such CPU is known, but the bits are separate). */
static const MemKernels kAvx2NoF16 = {"avx2", dotF32Avx2, dotI8Avx2, dotF16Scalar};

/* f32 rows stream from memory (a 100K x 384 scan reads 154 MB), so this kernel is about
** feeding the loads: one row at a time in address order (the hardware prefetcher sees one
** stream), rows 64-byte aligned by cairnVecsAppend (no load straddles two cache lines),
** four independent accumulators, and a software prefetch SCAN_PREFETCH bytes ahead, which
** also covers the 4 KB page crossings where the hardware prefetcher stops. Measured on the
** bench machine (10K rows, L3-resident): about 1.3x the four-rows-at-a-time form, which
** shared each query load between rows but read four interleaved streams. (SCAN_PREFETCH is
** defined with the AVX2 kernel above.) */
AVX512 static void dotF32Avx512(const float *base, size_t n, uint32_t dim, const float *q, float *out) {
  uint32_t d64 = dim & ~63u, d16 = dim & ~15u;
  uintptr_t pfOff = PREFETCH_OFFSET(n);
  __mmask16 tail = (__mmask16)((1u << (dim - d16)) - 1);
  for (size_t i = 0; i < n; i++) {
    const float *r = base + i * dim;
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    uint32_t j = 0;
    for (; j < d64; j += 64) {
      PREFETCH_AHEAD(r + j);
      PREFETCH_AHEAD(r + j + 16);
      PREFETCH_AHEAD(r + j + 32);
      PREFETCH_AHEAD(r + j + 48);
      a0 = _mm512_fmadd_ps(_mm512_loadu_ps(r + j), _mm512_loadu_ps(q + j), a0);
      a1 = _mm512_fmadd_ps(_mm512_loadu_ps(r + j + 16), _mm512_loadu_ps(q + j + 16), a1);
      a2 = _mm512_fmadd_ps(_mm512_loadu_ps(r + j + 32), _mm512_loadu_ps(q + j + 32), a2);
      a3 = _mm512_fmadd_ps(_mm512_loadu_ps(r + j + 48), _mm512_loadu_ps(q + j + 48), a3);
    }
    for (; j < d16; j += 16) {
      PREFETCH_AHEAD(r + j);
      a0 = _mm512_fmadd_ps(_mm512_loadu_ps(r + j), _mm512_loadu_ps(q + j), a0);
    }
    if (tail) a1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, r + d16), _mm512_maskz_loadu_ps(tail, q + d16), a1);
    out[i] = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
  }
}

AVX512 static void dotI8Avx512(const int8_t *base, size_t n, uint32_t dim, const int8_t *q, int32_t *out) {
  uint32_t d32 = dim & ~31u;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const int8_t *r0 = base + i * dim, *r1 = r0 + dim, *r2 = r1 + dim, *r3 = r2 + dim;
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    for (uint32_t j = 0; j < d32; j += 32) {
      __m512i qq = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(q + j)));
      a0 = _mm512_add_epi32(a0, _mm512_madd_epi16(_mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(r0 + j))), qq));
      a1 = _mm512_add_epi32(a1, _mm512_madd_epi16(_mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(r1 + j))), qq));
      a2 = _mm512_add_epi32(a2, _mm512_madd_epi16(_mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(r2 + j))), qq));
      a3 = _mm512_add_epi32(a3, _mm512_madd_epi16(_mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(r3 + j))), qq));
    }
    int32_t s0 = _mm512_reduce_add_epi32(a0), s1 = _mm512_reduce_add_epi32(a1);
    int32_t s2 = _mm512_reduce_add_epi32(a2), s3 = _mm512_reduce_add_epi32(a3);
    for (uint32_t j = d32; j < dim; j++) {
      s0 += r0[j] * q[j], s1 += r1[j] * q[j], s2 += r2[j] * q[j], s3 += r3[j] * q[j];
    }
    out[i] = s0, out[i + 1] = s1, out[i + 2] = s2, out[i + 3] = s3;
  }
  for (; i < n; i++) {
    const int8_t *r = base + i * dim;
    __m512i a0 = _mm512_setzero_si512();
    for (uint32_t j = 0; j < d32; j += 32)
      a0 = _mm512_add_epi32(a0, _mm512_madd_epi16(_mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(r + j))),
                                                  _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(q + j)))));
    int32_t s = _mm512_reduce_add_epi32(a0);
    for (uint32_t j = d32; j < dim; j++) s += r[j] * q[j];
    out[i] = s;
  }
}

AVX512 static void dotF16Avx512(const uint16_t *base, size_t n, uint32_t dim, const float *q, float *out) {
  uint32_t d16 = dim & ~15u;
  for (size_t i = 0; i < n; i++) {
    const uint16_t *r = base + i * dim;
    __m512 a0 = _mm512_setzero_ps(), a1 = a0;
    uint32_t j = 0;
    for (; j + 32 <= d16; j += 32) {
      a0 = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(r + j))), _mm512_loadu_ps(q + j), a0);
      a1 = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(r + j + 16))), _mm512_loadu_ps(q + j + 16), a1);
    }
    for (; j < d16; j += 16)
      a0 = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(r + j))), _mm512_loadu_ps(q + j), a0);
    float s = _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
    for (; j < dim; j++) s += cairnF16ToF32(r[j]) * q[j];
    out[i] = s;
  }
}
static const MemKernels kAvx512 = {"avx512", dotF32Avx512, dotI8Avx512, dotF16Avx512};

/* AVX-512 VNNI: vpdpbusd multiplies unsigned by signed bytes and sums groups of four into
** int32, 64 products per instruction. Rows are signed, so feed x + 128 (x ^ 0x80 read as
** unsigned) and subtract 128 * sum(q) at the end: sum (x+128) q = sum x q + 128 sum q. Exact. */
#define AVX512VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")))
AVX512VNNI static void dotI8Vnni(const int8_t *base, size_t n, uint32_t dim, const int8_t *q, int32_t *out) {
  uint32_t d64 = dim & ~63u;
  const __m512i flip = _mm512_set1_epi8((char)0x80);
  int32_t qsum = 0;
  for (uint32_t j = 0; j < d64; j++) qsum += q[j];
  int32_t bias = 128 * qsum;
  uintptr_t pfOff = PREFETCH_OFFSET(n); /* the four rows are one contiguous block: prefetch it */
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const int8_t *r0 = base + i * dim, *r1 = r0 + dim, *r2 = r1 + dim, *r3 = r2 + dim;
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    for (uint32_t j = 0; j < d64; j += 64) {
      PREFETCH_AHEAD(r0 + j), PREFETCH_AHEAD(r1 + j), PREFETCH_AHEAD(r2 + j), PREFETCH_AHEAD(r3 + j);
      __m512i qq = _mm512_loadu_si512((const void *)(q + j));
      a0 = _mm512_dpbusd_epi32(a0, _mm512_xor_si512(_mm512_loadu_si512((const void *)(r0 + j)), flip), qq);
      a1 = _mm512_dpbusd_epi32(a1, _mm512_xor_si512(_mm512_loadu_si512((const void *)(r1 + j)), flip), qq);
      a2 = _mm512_dpbusd_epi32(a2, _mm512_xor_si512(_mm512_loadu_si512((const void *)(r2 + j)), flip), qq);
      a3 = _mm512_dpbusd_epi32(a3, _mm512_xor_si512(_mm512_loadu_si512((const void *)(r3 + j)), flip), qq);
    }
    int32_t s0 = _mm512_reduce_add_epi32(a0) - bias, s1 = _mm512_reduce_add_epi32(a1) - bias;
    int32_t s2 = _mm512_reduce_add_epi32(a2) - bias, s3 = _mm512_reduce_add_epi32(a3) - bias;
    for (uint32_t j = d64; j < dim; j++) {
      s0 += r0[j] * q[j], s1 += r1[j] * q[j], s2 += r2[j] * q[j], s3 += r3[j] * q[j];
    }
    out[i] = s0, out[i + 1] = s1, out[i + 2] = s2, out[i + 3] = s3;
  }
  for (; i < n; i++) {
    const int8_t *r = base + i * dim;
    __m512i a0 = _mm512_setzero_si512();
    for (uint32_t j = 0; j < d64; j += 64)
      a0 = _mm512_dpbusd_epi32(a0, _mm512_xor_si512(_mm512_loadu_si512((const void *)(r + j)), flip),
                               _mm512_loadu_si512((const void *)(q + j)));
    int32_t s = _mm512_reduce_add_epi32(a0) - bias;
    for (uint32_t j = d64; j < dim; j++) s += r[j] * q[j];
    out[i] = s;
  }
}
static const MemKernels kAvx512Vnni = {"avx512vnni", dotF32Avx512, dotI8Vnni, dotF16Avx512};

/* VNNI is not among the CAIRN_CPU_* bits: ask the compiler runtime (cpuid, no OS call), and
** only on top of CAIRN_CPU_AVX512 so cairn_cpu_disable(CAIRN_CPU_AVX512) turns it off too. */
static int haveVnni(void) {
  static int v = -1;
  if (v < 0) {
    __builtin_cpu_init();
    v = __builtin_cpu_supports("avx512vnni") != 0;
  }
  return v;
}
#endif /* MEM_X86 */

/* ------------------------------------------------------------------ NEON */
#if defined(__aarch64__)
static void dotF32Neon(const float *base, size_t n, uint32_t dim, const float *q, float *out) {
  uint32_t d4 = dim & ~3u;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const float *r0 = base + i * dim, *r1 = r0 + dim, *r2 = r1 + dim, *r3 = r2 + dim;
    float32x4_t a0 = vdupq_n_f32(0), a1 = a0, a2 = a0, a3 = a0;
    for (uint32_t j = 0; j < d4; j += 4) {
      float32x4_t qq = vld1q_f32(q + j);
      a0 = vfmaq_f32(a0, vld1q_f32(r0 + j), qq);
      a1 = vfmaq_f32(a1, vld1q_f32(r1 + j), qq);
      a2 = vfmaq_f32(a2, vld1q_f32(r2 + j), qq);
      a3 = vfmaq_f32(a3, vld1q_f32(r3 + j), qq);
    }
    float s0 = vaddvq_f32(a0), s1 = vaddvq_f32(a1), s2 = vaddvq_f32(a2), s3 = vaddvq_f32(a3);
    for (uint32_t j = d4; j < dim; j++) {
      s0 += r0[j] * q[j], s1 += r1[j] * q[j], s2 += r2[j] * q[j], s3 += r3[j] * q[j];
    }
    out[i] = s0, out[i + 1] = s1, out[i + 2] = s2, out[i + 3] = s3;
  }
  for (; i < n; i++) {
    const float *r = base + i * dim;
    float32x4_t a0 = vdupq_n_f32(0);
    for (uint32_t j = 0; j < d4; j += 4) a0 = vfmaq_f32(a0, vld1q_f32(r + j), vld1q_f32(q + j));
    float s = vaddvq_f32(a0);
    for (uint32_t j = d4; j < dim; j++) s += r[j] * q[j];
    out[i] = s;
  }
}
static void dotI8Neon(const int8_t *base, size_t n, uint32_t dim, const int8_t *q, int32_t *out) {
  uint32_t d16 = dim & ~15u;
  for (size_t i = 0; i < n; i++) {
    const int8_t *r = base + i * dim;
    int32x4_t a0 = vdupq_n_s32(0), a1 = a0;
    for (uint32_t j = 0; j < d16; j += 16) {
      int8x16_t x = vld1q_s8(r + j), y = vld1q_s8(q + j);
      a0 = vpadalq_s16(a0, vmull_s8(vget_low_s8(x), vget_low_s8(y)));
      a1 = vpadalq_s16(a1, vmull_high_s8(x, y));
    }
    int32_t s = vaddvq_s32(vaddq_s32(a0, a1));
    for (uint32_t j = d16; j < dim; j++) s += r[j] * q[j];
    out[i] = s;
  }
}
static void dotF16Neon(const uint16_t *base, size_t n, uint32_t dim, const float *q, float *out) {
  uint32_t d4 = dim & ~3u;
  for (size_t i = 0; i < n; i++) {
    const uint16_t *r = base + i * dim;
    float32x4_t a0 = vdupq_n_f32(0);
    for (uint32_t j = 0; j < d4; j += 4)
      a0 = vfmaq_f32(a0, vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(r + j))), vld1q_f32(q + j));
    float s = vaddvq_f32(a0);
    for (uint32_t j = d4; j < dim; j++) s += cairnF16ToF32(r[j]) * q[j];
    out[i] = s;
  }
}
static const MemKernels kNeon = {"neon", dotF32Neon, dotI8Neon, dotF16Neon};
#endif

/* ------------------------------------------------------------------ wasm simd128 */
#if defined(__wasm_simd128__)
static inline float hsum4Wasm(v128_t a) {
  return (wasm_f32x4_extract_lane(a, 0) + wasm_f32x4_extract_lane(a, 1)) +
         (wasm_f32x4_extract_lane(a, 2) + wasm_f32x4_extract_lane(a, 3));
}
/* One row: four accumulators over 16 floats (the tail rows of a batch, and single dots). */
static float dotF32Wasm1(const float *r, const float *q, uint32_t dim) {
  v128_t a0 = wasm_f32x4_splat(0), a1 = a0, a2 = a0, a3 = a0;
  uint32_t j = 0;
  for (; j + 16 <= dim; j += 16) {
    a0 = wasm_f32x4_add(a0, wasm_f32x4_mul(wasm_v128_load(r + j), wasm_v128_load(q + j)));
    a1 = wasm_f32x4_add(a1, wasm_f32x4_mul(wasm_v128_load(r + j + 4), wasm_v128_load(q + j + 4)));
    a2 = wasm_f32x4_add(a2, wasm_f32x4_mul(wasm_v128_load(r + j + 8), wasm_v128_load(q + j + 8)));
    a3 = wasm_f32x4_add(a3, wasm_f32x4_mul(wasm_v128_load(r + j + 12), wasm_v128_load(q + j + 12)));
  }
  for (; j + 4 <= dim; j += 4) a0 = wasm_f32x4_add(a0, wasm_f32x4_mul(wasm_v128_load(r + j), wasm_v128_load(q + j)));
  float s = hsum4Wasm(wasm_f32x4_add(wasm_f32x4_add(a0, a1), wasm_f32x4_add(a2, a3)));
  for (; j < dim; j++) s += r[j] * q[j];
  return s;
}
/* Without FMA or wider vectors (relaxed SIMD is not on by default in Node 20) the one-row
** form is bound by instructions: two loads, a multiply and an add per four floats, plus the
** loop. Four rows at a time load each query vector once for four multiply-adds (about 30%
** fewer instructions). But four ADJACENT rows read memory as four interleaved streams, each
** skipping the other three rows, which defeats the hardware prefetcher: measured 2-3x slower
** than one row at a time at 100K x 384 (154 MB, from DRAM), in Node and in native SSE code
** alike. So the four rows are i, i+h, i+2h, i+3h (h = n/4): four contiguous stripes of the
** batch, each read front to back, four plain sequential streams. Measured at 384-d in Node 20
** (AMD EPYC): 10K rows (L3) 0.18 ms against 0.28 ms one row at a time; 100K as fast or faster.
** V8 hoists the loads of a loop body to its top, so the body stays small (eight floats of each
** row: 10 loads + 4 accumulators live); a 16-float body spills and runs slower. */
/* An empty asm that "changes" a pointer: clang 14's loop strength reduction would otherwise
** rewrite the five pointers as one shared index plus an i32.add per load (wasm addresses are
** one i32 plus a constant offset), about 100 more instructions per 384-d row once V8 compiles
** it; with the pointers opaque, p + 4 becomes a load with offset 16. Costs nothing at run time. */
#define WASM_OPAQUE(p) __asm__("" : "+r"(p))
static void dotF32Wasm(const float *base, size_t n, uint32_t dim, const float *q, float *out) {
  size_t h = n / 4, stride = h * dim;
  uint32_t d8 = dim & ~7u;
  for (size_t i = 0; i < h; i++) {
    const float *r0 = base + i * dim, *r1 = r0 + stride, *r2 = r1 + stride, *r3 = r2 + stride;
    const float *qq = q, *qEnd = q + d8;
    v128_t a0 = wasm_f32x4_splat(0), a1 = a0, a2 = a0, a3 = a0;
    for (; qq < qEnd; qq += 8, r0 += 8, r1 += 8, r2 += 8, r3 += 8) {
      WASM_OPAQUE(qq);
      WASM_OPAQUE(r0);
      WASM_OPAQUE(r1);
      WASM_OPAQUE(r2);
      WASM_OPAQUE(r3);
      v128_t x = wasm_v128_load(qq), y = wasm_v128_load(qq + 4);
      a0 = wasm_f32x4_add(a0, wasm_f32x4_mul(wasm_v128_load(r0), x));
      a1 = wasm_f32x4_add(a1, wasm_f32x4_mul(wasm_v128_load(r1), x));
      a2 = wasm_f32x4_add(a2, wasm_f32x4_mul(wasm_v128_load(r2), x));
      a3 = wasm_f32x4_add(a3, wasm_f32x4_mul(wasm_v128_load(r3), x));
      a0 = wasm_f32x4_add(a0, wasm_f32x4_mul(wasm_v128_load(r0 + 4), y));
      a1 = wasm_f32x4_add(a1, wasm_f32x4_mul(wasm_v128_load(r1 + 4), y));
      a2 = wasm_f32x4_add(a2, wasm_f32x4_mul(wasm_v128_load(r2 + 4), y));
      a3 = wasm_f32x4_add(a3, wasm_f32x4_mul(wasm_v128_load(r3 + 4), y));
    }
    float s0 = hsum4Wasm(a0), s1 = hsum4Wasm(a1), s2 = hsum4Wasm(a2), s3 = hsum4Wasm(a3);
    for (uint32_t j = d8; j < dim; j++) { /* r0..r3 now point at column d8 */
      s0 += r0[j - d8] * q[j], s1 += r1[j - d8] * q[j], s2 += r2[j - d8] * q[j], s3 += r3[j - d8] * q[j];
    }
    out[i] = s0, out[i + h] = s1, out[i + 2 * h] = s2, out[i + 3 * h] = s3;
  }
  for (size_t i = 4 * h; i < n; i++) out[i] = dotF32Wasm1(base + i * dim, q, dim);
}
static void dotI8Wasm(const int8_t *base, size_t n, uint32_t dim, const int8_t *q, int32_t *out) {
  uint32_t d16 = dim & ~15u;
  for (size_t i = 0; i < n; i++) {
    const int8_t *r = base + i * dim;
    v128_t a0 = wasm_i32x4_splat(0), a1 = a0;
    for (uint32_t j = 0; j < d16; j += 16) {
      v128_t x = wasm_v128_load(r + j), y = wasm_v128_load(q + j);
      a0 = wasm_i32x4_add(a0, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(x), wasm_i16x8_extend_low_i8x16(y)));
      a1 = wasm_i32x4_add(a1, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(x), wasm_i16x8_extend_high_i8x16(y)));
    }
    a0 = wasm_i32x4_add(a0, a1);
    int32_t s = wasm_i32x4_extract_lane(a0, 0) + wasm_i32x4_extract_lane(a0, 1) + wasm_i32x4_extract_lane(a0, 2) +
                wasm_i32x4_extract_lane(a0, 3);
    for (uint32_t j = d16; j < dim; j++) s += r[j] * q[j];
    out[i] = s;
  }
}
/* f16 -> f32 without hardware help: put the 15 exponent+mantissa bits at the top of an f32
** exponent/mantissa and multiply by 2^112, which rebias the exponent and turns f16
** subnormals into the right f32 normals; then restore the sign. Exact for every finite half
** (the store only ever holds finite ones); infinities would come out as 2^16 * 1.x. */
static inline v128_t f16x4ToF32(v128_t h32) {
  const v128_t magic = wasm_i32x4_splat(0x77800000); /* 2^112 */
  v128_t em = wasm_i32x4_shl(wasm_v128_and(h32, wasm_i32x4_splat(0x7fff)), 13);
  v128_t sign = wasm_i32x4_shl(wasm_v128_and(h32, wasm_i32x4_splat(0x8000)), 16);
  return wasm_v128_or(wasm_f32x4_mul(em, magic), sign);
}
static void dotF16Wasm(const uint16_t *base, size_t n, uint32_t dim, const float *q, float *out) {
  uint32_t d8 = dim & ~7u;
  for (size_t i = 0; i < n; i++) {
    const uint16_t *r = base + i * dim;
    v128_t a0 = wasm_f32x4_splat(0), a1 = a0;
    for (uint32_t j = 0; j < d8; j += 8) {
      v128_t h = wasm_v128_load(r + j);
      a0 = wasm_f32x4_add(a0, wasm_f32x4_mul(f16x4ToF32(wasm_u32x4_extend_low_u16x8(h)), wasm_v128_load(q + j)));
      a1 = wasm_f32x4_add(a1, wasm_f32x4_mul(f16x4ToF32(wasm_u32x4_extend_high_u16x8(h)), wasm_v128_load(q + j + 4)));
    }
    a0 = wasm_f32x4_add(a0, a1);
    float s = (wasm_f32x4_extract_lane(a0, 0) + wasm_f32x4_extract_lane(a0, 1)) +
              (wasm_f32x4_extract_lane(a0, 2) + wasm_f32x4_extract_lane(a0, 3));
    for (uint32_t j = d8; j < dim; j++) s += cairnF16ToF32(r[j]) * q[j];
    out[i] = s;
  }
}
static const MemKernels kWasm = {"wasm128", dotF32Wasm, dotI8Wasm, dotF16Wasm};
#endif

const MemKernels *cairnMemKernels(void) {
  uint64_t f = cairn_cpu_features();
  (void)f;
#ifdef MEM_X86
  if ((f & CAIRN_CPU_AVX512) && (f & CAIRN_CPU_AVX2) && (f & CAIRN_CPU_F16C)) return haveVnni() ? &kAvx512Vnni : &kAvx512;
  if (f & CAIRN_CPU_AVX2) return (f & CAIRN_CPU_F16C) ? &kAvx2 : &kAvx2NoF16;
#endif
#if defined(__aarch64__)
  if (f & CAIRN_CPU_NEON) return &kNeon;
#endif
#if defined(__wasm_simd128__)
  if (f & CAIRN_CPU_WASM128) return &kWasm;
#endif
  return &kScalar;
}

int cairnMemKernelList(const MemKernels **aOut, int nMax) {
  int n = 0;
  uint64_t f = cairn_cpu_features();
  (void)f;
  if (n < nMax) aOut[n++] = &kScalar;
#ifdef MEM_X86
  if ((f & CAIRN_CPU_AVX2) && n < nMax) aOut[n++] = (f & CAIRN_CPU_F16C) ? &kAvx2 : &kAvx2NoF16;
  if ((f & CAIRN_CPU_AVX512) && (f & CAIRN_CPU_AVX2) && (f & CAIRN_CPU_F16C) && n < nMax) aOut[n++] = &kAvx512;
  if ((f & CAIRN_CPU_AVX512) && (f & CAIRN_CPU_AVX2) && (f & CAIRN_CPU_F16C) && haveVnni() && n < nMax) aOut[n++] = &kAvx512Vnni;
#endif
#if defined(__aarch64__)
  if ((f & CAIRN_CPU_NEON) && n < nMax) aOut[n++] = &kNeon;
#endif
#if defined(__wasm_simd128__)
  if ((f & CAIRN_CPU_WASM128) && n < nMax) aOut[n++] = &kWasm;
#endif
  return n;
}

/* ------------------------------------------------------------------ top-k heap */
int cairnTopKInit(MemTopK *t, uint32_t k) {
  memset(t, 0, sizeof(*t));
  if (k == 0) k = 1;
  t->k = k;
  t->aScore = cairnMallocArray(k, sizeof(float));
  t->aIdx = cairnMallocArray(k, sizeof(uint32_t));
  if (!t->aScore || !t->aIdx) {
    cairnTopKFree(t);
    return cairnErr(CAIRN_NOMEM, "top-k: cannot allocate %u entries", k);
  }
  return CAIRN_OK;
}
void cairnTopKFree(MemTopK *t) {
  cairnFree(t->aScore);
  cairnFree(t->aIdx);
  memset(t, 0, sizeof(*t));
}
void cairnTopKReset(MemTopK *t) { t->n = 0; }

/* "a is worse than b": lower score, or same score and larger index. */
static inline int heapWorse(const MemTopK *t, uint32_t a, uint32_t b) {
  return t->aScore[a] < t->aScore[b] || (t->aScore[a] == t->aScore[b] && t->aIdx[a] > t->aIdx[b]);
}
static void heapSwap(MemTopK *t, uint32_t a, uint32_t b) {
  float s = t->aScore[a];
  uint32_t i = t->aIdx[a];
  t->aScore[a] = t->aScore[b], t->aIdx[a] = t->aIdx[b];
  t->aScore[b] = s, t->aIdx[b] = i;
}
static void heapDown(MemTopK *t, uint32_t i, uint32_t n) {
  for (;;) {
    uint32_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && heapWorse(t, l, m)) m = l;
    if (r < n && heapWorse(t, r, m)) m = r;
    if (m == i) return;
    heapSwap(t, i, m);
    i = m;
  }
}
void cairnTopKPush(MemTopK *t, float score, uint32_t idx) {
  if (score != score) return; /* NaN never ranks */
  if (t->n < t->k) {
    uint32_t i = t->n++;
    t->aScore[i] = score, t->aIdx[i] = idx;
    while (i > 0) {
      uint32_t p = (i - 1) / 2;
      if (!heapWorse(t, i, p)) break;
      heapSwap(t, i, p);
      i = p;
    }
    return;
  }
  if (!cairnTopKBetter(score, idx, t->aScore[0], t->aIdx[0])) return;
  t->aScore[0] = score, t->aIdx[0] = idx;
  heapDown(t, 0, t->n);
}
void cairnTopKSort(MemTopK *t) {
  /* heap sort: repeatedly move the worst to the end -> best first */
  for (uint32_t n = t->n; n > 1; n--) {
    heapSwap(t, 0, n - 1);
    heapDown(t, 0, n - 1);
  }
}

/* ------------------------------------------------------------------ vector set */
/* A bigger 64-byte aligned block holding the nOld bytes at pOld; *ppMem is the block to free
** (the old one is freed here). NULL when out of memory (then nothing changed). */
static void *growAligned(void **ppMem, const void *pOld, size_t nOld, size_t nNew) {
  if (nNew > SIZE_MAX - 63) return NULL;
  void *pMem = cairnMalloc(nNew + 63);
  if (!pMem) return NULL;
  void *p = (void *)(((uintptr_t)pMem + 63) & ~(uintptr_t)63);
  if (nOld) memcpy(p, pOld, nOld);
  cairnFree(*ppMem);
  *ppMem = pMem;
  return p;
}

int cairnVecsAppend(MemVecs *v, const float *x) {
  uint32_t d = v->dim;
  if (v->n == v->nAlloc) {
    size_t nNew = v->nAlloc ? v->nAlloc * 2 : 256;
    size_t nb;
    if (cairnMulOverflowSize(nNew, (size_t)d * 4, &nb)) return cairnErr(CAIRN_NOMEM, "vectors: %zu rows too many", nNew);
    size_t nOld = v->n * d;
    float *a = growAligned(&v->pF32Mem, v->aF32, nOld * 4, nb);
    if (!a) return cairnErr(CAIRN_NOMEM, "vectors: cannot grow to %zu rows", nNew);
    v->aF32 = a;
    int8_t *c = growAligned(&v->pI8Mem, v->aI8, nOld, nNew * d);
    if (!c) return cairnErr(CAIRN_NOMEM, "vectors: cannot grow to %zu rows", nNew);
    v->aI8 = c;
    uint16_t *h = growAligned(&v->pF16Mem, v->aF16, nOld * 2, nNew * d * 2);
    if (!h) return cairnErr(CAIRN_NOMEM, "vectors: cannot grow to %zu rows", nNew);
    v->aF16 = h;
    float *s = cairnRealloc(v->aSqNorm, nNew * 4);
    if (!s) return cairnErr(CAIRN_NOMEM, "vectors: cannot grow to %zu rows", nNew);
    v->aSqNorm = s;
    s = cairnRealloc(v->aI8Scale, nNew * 4);
    if (!s) return cairnErr(CAIRN_NOMEM, "vectors: cannot grow to %zu rows", nNew);
    v->aI8Scale = s;
    v->nAlloc = nNew;
  }
  size_t r = v->n;
  memcpy(v->aF32 + r * d, x, (size_t)d * 4);
  cairnF32ToF16Row(x, v->aF16 + r * d, d);
  v->aSqNorm[r] = cairnMemDot(x, x, d);
  v->aI8Scale[r] = cairnQuantI8(x, d, v->aI8 + r * d);
  v->n++;
  return CAIRN_OK;
}

void cairnVecsFree(MemVecs *v) {
  cairnFree(v->pF32Mem);
  cairnFree(v->aSqNorm);
  cairnFree(v->pI8Mem);
  cairnFree(v->aI8Scale);
  cairnFree(v->pF16Mem);
  memset(v, 0, sizeof(*v));
}

float cairnVecScore(const MemVecs *v, size_t r, const float *q, float qSqNorm) {
  float d = cairnMemDot(v->aF32 + r * v->dim, q, v->dim);
  return v->metric == CAIRN_METRIC_L2 ? 2 * d - v->aSqNorm[r] - qSqNorm : d;
}

/* ------------------------------------------------------------------ flat search */
/* Rows per kernel call. The wasm f32 kernel reads each call's rows as four stripes (four
** sequential streams); at 256 rows a stripe is 96 KB at 384-d and the hardware prefetcher
** restarts too often: 1024 rows scanned 100K x 384 in 4.7 ms against 5.5 ms in Node 20 (min of
** 15, load 5). 8 KB of scores on the stack. */
#if defined(__wasm_simd128__)
#define SCAN_CHUNK 1024
#else
#define SCAN_CHUNK 256
#endif

typedef struct ScanJob {
  const MemVecs *v;
  const MemKernels *K;
  const float *q;
  const int8_t *qI8;
  float qScale, qSq;
  int kind;
  const MemBits *pBits;
  size_t blk;
  MemTopK *aHeap; /* one per worker */
} ScanJob;

static void scanRows(ScanJob *J, size_t r0, size_t n, float *aOut, int32_t *aI) {
  const MemVecs *v = J->v;
  uint32_t d = v->dim;
  if (J->kind == CAIRN_VINDEX_INT8) {
    J->K->xDotI8(v->aI8 + r0 * d, n, d, J->qI8, aI);
    for (size_t i = 0; i < n; i++) aOut[i] = (float)aI[i] * v->aI8Scale[r0 + i] * J->qScale;
  } else if (J->kind == CAIRN_VINDEX_F16) {
    J->K->xDotF16(v->aF16 + r0 * d, n, d, J->q, aOut);
  } else {
    J->K->xDotF32(v->aF32 + r0 * d, n, d, J->q, aOut);
  }
  if (v->metric == CAIRN_METRIC_L2)
    for (size_t i = 0; i < n; i++) aOut[i] = 2 * aOut[i] - v->aSqNorm[r0 + i] - J->qSq;
}

/* Offer the scores aS[0..n) of rows r0.. to the heap. Once the heap is full almost no row
** beats its floor, so test 16 scores at a time with a branch-free loop the compiler
** vectorises, and only walk the groups that hold a candidate. */
static void pushAbove(MemTopK *t, const float *aS, size_t n, size_t r0) {
  float floor = cairnTopKFloor(t);
  size_t k = 0;
  for (; k < n; k += 16) {
    size_t m = CAIRN_MIN((size_t)16, n - k);
    if (m == 16) {
#if defined(__SSE2__) /* part of x86-64: no dispatch needed */
      __m128 f = _mm_set1_ps(floor);
      __m128 c = _mm_or_ps(_mm_or_ps(_mm_cmpge_ps(_mm_loadu_ps(aS + k), f), _mm_cmpge_ps(_mm_loadu_ps(aS + k + 4), f)),
                           _mm_or_ps(_mm_cmpge_ps(_mm_loadu_ps(aS + k + 8), f), _mm_cmpge_ps(_mm_loadu_ps(aS + k + 12), f)));
      if (!_mm_movemask_ps(c)) continue;
#else
      int any = 0;
      for (size_t i = 0; i < 16; i++) any |= aS[k + i] >= floor;
      if (!any) continue;
#endif
    }
    for (size_t i = k; i < k + m; i++)
      if (aS[i] >= floor) cairnTopKPush(t, aS[i], (uint32_t)(r0 + i)), floor = cairnTopKFloor(t);
  }
}

static void scanTask(void *pArg, size_t iTask, unsigned iWorker) {
  ScanJob *J = pArg;
  MemTopK *t = &J->aHeap[iWorker];
  size_t r0 = iTask * J->blk, r1 = CAIRN_MIN(J->v->n, r0 + J->blk);
  float aS[SCAN_CHUNK];
  int32_t aI[SCAN_CHUNK];
  for (size_t r = r0; r < r1; r += SCAN_CHUNK) {
    size_t n = CAIRN_MIN((size_t)SCAN_CHUNK, r1 - r);
    if (J->pBits && J->pBits->a) {
      /* Filtered rows: score only the allowed ones, in runs, so the filter costs nothing
      ** for rows it rejects and the top-k never sees them. */
      size_t i = 0;
      while (i < n) {
        while (i < n && !cairnBitTest(J->pBits, r + i)) i++;
        size_t j = i;
        while (j < n && cairnBitTest(J->pBits, r + j)) j++;
        if (j > i) {
          scanRows(J, r + i, j - i, aS + i, aI + i);
          pushAbove(t, aS + i, j - i, r + i);
        }
        i = j;
      }
      continue;
    }
    scanRows(J, r, n, aS, aI);
    pushAbove(t, aS, n, r);
  }
}

int cairnVecSearch(const MemVecs *v, const float *q, int kind, uint32_t nRerank, const MemBits *pBits, MemTopK *t) {
  if (v->n == 0) return CAIRN_OK;
  if (v->n > UINT32_MAX) return cairnErr(CAIRN_RANGE, "vector search: %zu rows", v->n);
  int quant = kind == CAIRN_VINDEX_INT8 || kind == CAIRN_VINDEX_F16;
  uint32_t kKeep = quant ? CAIRN_MAX(nRerank, t->k) : t->k;
  unsigned nW = cairnConcurrency();
  ScanJob J;
  memset(&J, 0, sizeof J);
  J.v = v, J.K = cairnMemKernels(), J.q = q, J.kind = kind, J.pBits = pBits;
  int8_t *qI8 = NULL;
  double sq = 0;
  for (uint32_t j = 0; j < v->dim; j++) sq += (double)q[j] * q[j];
  J.qSq = (float)sq;
  if (kind == CAIRN_VINDEX_INT8) {
    qI8 = cairnMalloc(v->dim);
    if (!qI8) return cairnErr(CAIRN_NOMEM, "vector search: out of memory");
    J.qScale = cairnQuantI8(q, v->dim, qI8);
    J.qI8 = qI8;
  }
  /* Blocks: up to sixteen per worker so the threads finish together even when one starts
  ** late (tasks are claimed one at a time; a 10K-row scan then splits into 256-row blocks of
  ** a few microseconds), at least 256 rows each so a small store stays on one thread (waking
  ** a helper costs more than scanning a few hundred rows). */
  size_t nTask = nW > 1 ? CAIRN_MAX((size_t)1, CAIRN_MIN(v->n / 256, (size_t)nW * 16)) : 1;
  J.blk = (v->n + nTask - 1) / nTask;
  J.blk = (J.blk + 63) & ~(size_t)63;
  nTask = (v->n + J.blk - 1) / J.blk;
  J.aHeap = cairnMallocZero(sizeof(MemTopK) * nW);
  int rc = J.aHeap ? CAIRN_OK : cairnErr(CAIRN_NOMEM, "vector search: out of memory");
  for (unsigned w = 0; rc == CAIRN_OK && w < nW; w++) rc = cairnTopKInit(&J.aHeap[w], kKeep);
  if (rc == CAIRN_OK) rc = cairnParallelFor(nTask, scanTask, &J);
  if (rc == CAIRN_OK) {
    if (!quant) {
      for (unsigned w = 0; w < nW; w++)
        for (uint32_t i = 0; i < J.aHeap[w].n; i++) cairnTopKPush(t, J.aHeap[w].aScore[i], J.aHeap[w].aIdx[i]);
    } else {
      /* The best kKeep approximate candidates over all workers (the same set whatever the
      ** thread count), then their exact scores. */
      MemTopK *a = &J.aHeap[0];
      for (unsigned w = 1; w < nW; w++)
        for (uint32_t i = 0; i < J.aHeap[w].n; i++) cairnTopKPush(a, J.aHeap[w].aScore[i], J.aHeap[w].aIdx[i]);
      for (uint32_t i = 0; i < a->n; i++) cairnTopKPush(t, cairnVecScore(v, a->aIdx[i], q, J.qSq), a->aIdx[i]);
    }
  }
  if (J.aHeap)
    for (unsigned w = 0; w < nW; w++) cairnTopKFree(&J.aHeap[w]);
  cairnFree(J.aHeap);
  cairnFree(qI8);
  return rc;
}
