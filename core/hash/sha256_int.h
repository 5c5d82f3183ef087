/* 2026-11-29 - core/hash/sha256_int.h: the SHA-256 kernels (see sha256.c). Maintenance
** reminder: a new kernel needs a CAIRN_CPU_ bit, a case in pickKernel() and the test loop in
** tests/core/test_sha256.c. */
#ifndef CAIRN_SHA256_INT_H
#define CAIRN_SHA256_INT_H
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CAIRN_SHA256_HAVE_X86 1
#else
#define CAIRN_SHA256_HAVE_X86 0
#endif
#if defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
#define CAIRN_SHA256_HAVE_ARM 1
#else
#define CAIRN_SHA256_HAVE_ARM 0
#endif

const uint32_t *cairnSha256K(void);
void cairnSha256Portable(uint32_t h[8], const uint8_t *p, size_t nBlock);
void cairnSha256ShaNi(uint32_t h[8], const uint8_t *p, size_t nBlock);
void cairnSha256Arm(uint32_t h[8], const uint8_t *p, size_t nBlock);
#endif
