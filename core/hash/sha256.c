/*
** 2026-11-29
**
** core/hash/sha256.c - SHA-256 (FIPS 180-4): the portable kernel, the streaming state machine,
** and run-time dispatch to the SHA-NI (sha256_x86.c) and ARMv8 (sha256_arm.c) kernels.
**
** A kernel compresses nBlock whole 64-byte blocks into the state h[8]. Every kernel must give
** the same state as the portable one on the same input; tests/core/test_sha256.c runs the
** NIST vectors through each kernel the CPU has, and with all of them disabled.
*/
#include "common/internal.h"
#include "hash/sha256_int.h"
#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

static const uint32_t K[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

const uint32_t *cairnSha256K(void) { return K; }

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

/*
** The portable kernel (wasm and CPUs without SHA instructions). Fully unrolled: the eight
** working variables never move (each round renames them through the macro arguments), and
** the message schedule is a 16-word window in locals, updated in place for rounds 16..63, so
** a compiler keeps everything in registers (wasm: in locals, which the engines allocate to
** registers). Rotations are written so compilers emit one rotate (wasm: i32.rotr).
*/
#define SHA_CH(e, f, g) ((g) ^ ((e) & ((f) ^ (g))))
#define SHA_S0(a) (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22))
#define SHA_S1(e) (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25))
#define SHA_s0(x) (ROR(x, 7) ^ ROR(x, 18) ^ ((x) >> 3))
#define SHA_s1(x) (ROR(x, 17) ^ ROR(x, 19) ^ ((x) >> 10))
/*
** One round; the caller rotates the roles of a..h. Maj(a,b,c) = b ^ ((a ^ b) & (b ^ c)), and
** this round's b ^ c is the previous round's a ^ b (locals ab, bc), so Maj costs three
** operations, not four.
*/
#define SHA_RND(a, b, c, d, e, f, g, h, k, w)                                                \
  do {                                                                                       \
    uint32_t t1_ = (h) + SHA_S1(e) + SHA_CH(e, f, g) + (k) + (w);                            \
    ab = (a) ^ (b);                                                                          \
    (d) += t1_;                                                                              \
    (h) = t1_ + SHA_S0(a) + ((b) ^ (ab & bc));                                               \
    bc = ab;                                                                                 \
  } while (0)
/* W[i] for i >= 16, with the 16-word window: w_i += s1(w_{i-2}) + w_{i-7} + s0(w_{i-15}). */
#define SHA_SCHED(wi, wm2, wm7, wm15) ((wi) += SHA_s1(wm2) + (wm7) + SHA_s0(wm15))
/* Sixteen rounds from K[k0]; the schedule words as they stand. */
#define SHA_16(k0)                                                                           \
  do {                                                                                       \
    SHA_RND(a, b, c, d, e, f, g, h, K[(k0) + 0], w0);                                        \
    SHA_RND(h, a, b, c, d, e, f, g, K[(k0) + 1], w1);                                        \
    SHA_RND(g, h, a, b, c, d, e, f, K[(k0) + 2], w2);                                        \
    SHA_RND(f, g, h, a, b, c, d, e, K[(k0) + 3], w3);                                        \
    SHA_RND(e, f, g, h, a, b, c, d, K[(k0) + 4], w4);                                        \
    SHA_RND(d, e, f, g, h, a, b, c, K[(k0) + 5], w5);                                        \
    SHA_RND(c, d, e, f, g, h, a, b, K[(k0) + 6], w6);                                        \
    SHA_RND(b, c, d, e, f, g, h, a, K[(k0) + 7], w7);                                        \
    SHA_RND(a, b, c, d, e, f, g, h, K[(k0) + 8], w8);                                        \
    SHA_RND(h, a, b, c, d, e, f, g, K[(k0) + 9], w9);                                        \
    SHA_RND(g, h, a, b, c, d, e, f, K[(k0) + 10], w10);                                      \
    SHA_RND(f, g, h, a, b, c, d, e, K[(k0) + 11], w11);                                      \
    SHA_RND(e, f, g, h, a, b, c, d, K[(k0) + 12], w12);                                      \
    SHA_RND(d, e, f, g, h, a, b, c, K[(k0) + 13], w13);                                      \
    SHA_RND(c, d, e, f, g, h, a, b, K[(k0) + 14], w14);                                      \
    SHA_RND(b, c, d, e, f, g, h, a, K[(k0) + 15], w15);                                      \
  } while (0)
/* The next sixteen schedule words, in place. */
#define SHA_NEXT16()                                                                         \
  do {                                                                                       \
    SHA_SCHED(w0, w14, w9, w1);                                                              \
    SHA_SCHED(w1, w15, w10, w2);                                                             \
    SHA_SCHED(w2, w0, w11, w3);                                                              \
    SHA_SCHED(w3, w1, w12, w4);                                                              \
    SHA_SCHED(w4, w2, w13, w5);                                                              \
    SHA_SCHED(w5, w3, w14, w6);                                                              \
    SHA_SCHED(w6, w4, w15, w7);                                                              \
    SHA_SCHED(w7, w5, w0, w8);                                                               \
    SHA_SCHED(w8, w6, w1, w9);                                                               \
    SHA_SCHED(w9, w7, w2, w10);                                                              \
    SHA_SCHED(w10, w8, w3, w11);                                                             \
    SHA_SCHED(w11, w9, w4, w12);                                                             \
    SHA_SCHED(w12, w10, w5, w13);                                                            \
    SHA_SCHED(w13, w11, w6, w14);                                                            \
    SHA_SCHED(w14, w12, w7, w15);                                                            \
    SHA_SCHED(w15, w13, w8, w0);                                                             \
  } while (0)

void cairnSha256Portable(uint32_t st[8], const uint8_t *p, size_t nBlock) {
  uint32_t a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6], h = st[7];
  while (nBlock--) {
#ifdef __wasm_simd128__
    /* Four big-endian words per 16-byte load and one byte shuffle (wasm has no bswap). */
    uint32_t w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15;
#define SHA_LOAD4(i, x0, x1, x2, x3)                                                         \
  do {                                                                                       \
    v128_t v_ = wasm_v128_load(p + 16 * (i));                                                \
    v_ = wasm_i8x16_shuffle(v_, v_, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);   \
    x0 = (uint32_t)wasm_i32x4_extract_lane(v_, 0), x1 = (uint32_t)wasm_i32x4_extract_lane(v_, 1); \
    x2 = (uint32_t)wasm_i32x4_extract_lane(v_, 2), x3 = (uint32_t)wasm_i32x4_extract_lane(v_, 3); \
  } while (0)
    SHA_LOAD4(0, w0, w1, w2, w3);
    SHA_LOAD4(1, w4, w5, w6, w7);
    SHA_LOAD4(2, w8, w9, w10, w11);
    SHA_LOAD4(3, w12, w13, w14, w15);
#else
    uint32_t w0 = cairnGetBE32(p), w1 = cairnGetBE32(p + 4), w2 = cairnGetBE32(p + 8), w3 = cairnGetBE32(p + 12);
    uint32_t w4 = cairnGetBE32(p + 16), w5 = cairnGetBE32(p + 20), w6 = cairnGetBE32(p + 24), w7 = cairnGetBE32(p + 28);
    uint32_t w8 = cairnGetBE32(p + 32), w9 = cairnGetBE32(p + 36), w10 = cairnGetBE32(p + 40), w11 = cairnGetBE32(p + 44);
    uint32_t w12 = cairnGetBE32(p + 48), w13 = cairnGetBE32(p + 52), w14 = cairnGetBE32(p + 56), w15 = cairnGetBE32(p + 60);
#endif
    uint32_t ab, bc = b ^ c;
    SHA_16(0);
    SHA_NEXT16();
    SHA_16(16);
    SHA_NEXT16();
    SHA_16(32);
    SHA_NEXT16();
    SHA_16(48);
    a = st[0] += a, b = st[1] += b, c = st[2] += c, d = st[3] += d;
    e = st[4] += e, f = st[5] += f, g = st[6] += g, h = st[7] += h;
    p += 64;
  }
}

typedef void (*Sha256Kernel)(uint32_t h[8], const uint8_t *p, size_t nBlock);

static Sha256Kernel pickKernel(const char **pzName) {
  uint64_t f = cairn_cpu_features();
  (void)f;
#if CAIRN_SHA256_HAVE_X86
  if (f & CAIRN_CPU_SHANI) {
    if (pzName) *pzName = "sha-ni";
    return cairnSha256ShaNi;
  }
#endif
#if CAIRN_SHA256_HAVE_ARM
  if (f & CAIRN_CPU_ARMSHA2) {
    if (pzName) *pzName = "armv8-sha2";
    return cairnSha256Arm;
  }
#endif
  if (pzName) *pzName = "portable";
  return cairnSha256Portable;
}

const char *cairn_sha256_kernel(void) {
  const char *z;
  pickKernel(&z);
  return z;
}

void cairn_sha256_init(cairn_sha256_ctx *s) {
  static const uint32_t H0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(s->h, H0, sizeof(H0));
  s->nTotal = 0;
  s->nBuf = 0;
}

void cairn_sha256_update(cairn_sha256_ctx *s, const void *pv, size_t n) {
  const uint8_t *p = pv;
  if (n == 0) return;
  Sha256Kernel x = pickKernel(NULL);
  s->nTotal += n;
  if (s->nBuf) {
    size_t k = CAIRN_MIN(n, 64 - (size_t)s->nBuf);
    memcpy(s->buf + s->nBuf, p, k);
    s->nBuf += (uint32_t)k;
    p += k, n -= k;
    if (s->nBuf < 64) return;
    x(s->h, s->buf, 1);
    s->nBuf = 0;
  }
  if (n >= 64) {
    x(s->h, p, n / 64);
    p += n & ~(size_t)63;
    n &= 63;
  }
  if (n) memcpy(s->buf, p, n);
  s->nBuf = (uint32_t)n;
}

void cairn_sha256_final(cairn_sha256_ctx *s, uint8_t out[32]) {
  uint64_t nBits = s->nTotal * 8;
  uint8_t pad[72];
  size_t nPad = (s->nBuf < 56 ? 56 : 120) - s->nBuf;
  memset(pad, 0, sizeof pad);
  pad[0] = 0x80;
  cairnPutBE64(pad + nPad, nBits);
  uint64_t nTotal = s->nTotal;
  cairn_sha256_update(s, pad, nPad + 8);
  s->nTotal = nTotal;
  for (int i = 0; i < 8; i++) cairnPutBE32(out + 4 * i, s->h[i]);
}

void cairn_sha256(const void *p, size_t n, uint8_t out[32]) {
  cairn_sha256_ctx s;
  cairn_sha256_init(&s);
  cairn_sha256_update(&s, p, n);
  cairn_sha256_final(&s, out);
}

int cairn_sha256_file(cairn_file *f, uint8_t out[32]) {
  enum { BLOCK = 256 * 1024 };
  uint64_t nSize, i = 0;
  if (!f || !out) return cairnErr(CAIRN_MISUSE, "cairn_sha256_file: NULL argument");
  CAIRN_TRY(cairn_file_size(f, &nSize));
  cairn_sha256_ctx s;
  cairn_sha256_init(&s);
  const void *pMap = NULL;
  /* Mapped files are hashed in place, with no copy. */
  if (nSize > 0 && nSize <= SIZE_MAX && f->pMethods->xMap &&
      f->pMethods->xMap(f, 0, (size_t)nSize, &pMap) == CAIRN_OK) {
    cairn_sha256_update(&s, pMap, (size_t)nSize);
    cairn_sha256_final(&s, out);
    return CAIRN_OK;
  }
  uint8_t *buf = cairnMalloc(BLOCK);
  if (!buf) return cairnErr(CAIRN_NOMEM, "sha256: cannot allocate a %d-byte buffer", BLOCK);
  int rc = CAIRN_OK;
  while (i < nSize) {
    size_t k = (size_t)CAIRN_MIN((uint64_t)BLOCK, nSize - i);
    if ((rc = cairn_file_read_exact(f, buf, k, i)) != CAIRN_OK) break;
    cairn_sha256_update(&s, buf, k);
    i += k;
  }
  cairnFree(buf);
  if (rc == CAIRN_OK) cairn_sha256_final(&s, out);
  return rc;
}

void cairn_hex(const uint8_t *p, size_t n, char *z) {
  static const char hex[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    z[2 * i] = hex[p[i] >> 4];
    z[2 * i + 1] = hex[p[i] & 15];
  }
  z[2 * n] = 0;
}
