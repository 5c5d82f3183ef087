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

void cairnSha256Portable(uint32_t h[8], const uint8_t *p, size_t nBlock) {
  uint32_t w[64];
  while (nBlock--) {
    for (int i = 0; i < 16; i++) w[i] = cairnGetBE32(p + 4 * i);
    for (int i = 16; i < 64; i++) {
      uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
      uint32_t S1 = ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25);
      uint32_t ch = (e & f) ^ (~e & g);
      uint32_t t1 = hh + S1 + ch + K[i] + w[i];
      uint32_t S0 = ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22);
      uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
      uint32_t t2 = S0 + maj;
      hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
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
