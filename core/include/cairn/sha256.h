/*
** 2026-11-29
**
** cairn/sha256.h - SHA-256 (FIPS 180-4). Kernels: SHA-NI on x86-64, the ARMv8 crypto extension
** on AArch64, portable C everywhere else (wasm included); chosen at run time through
** cairn_cpu_features(), so cairn_cpu_disable(CAIRN_CPU_SHANI|CAIRN_CPU_ARMSHA2) forces the
** portable path.
*/
#ifndef CAIRN_SHA256_H
#define CAIRN_SHA256_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>
#include "host.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CAIRN_SHA256_BYTES 32

/* Streaming state. Treat as opaque; it is public so it can live on the stack. */
typedef struct cairn_sha256_ctx {
  uint32_t h[8];
  uint64_t nTotal;  /* bytes hashed so far */
  uint8_t buf[64];  /* partial block */
  uint32_t nBuf;
} cairn_sha256_ctx;

CAIRN_API void cairn_sha256_init(cairn_sha256_ctx *s);
CAIRN_API void cairn_sha256_update(cairn_sha256_ctx *s, const void *p, size_t n);
CAIRN_API void cairn_sha256_final(cairn_sha256_ctx *s, uint8_t out[CAIRN_SHA256_BYTES]);
/* One shot. */
CAIRN_API void cairn_sha256(const void *p, size_t n, uint8_t out[CAIRN_SHA256_BYTES]);
/* Hash a whole file through the host, reading in bounded blocks. */
CAIRN_API int cairn_sha256_file(cairn_file *f, uint8_t out[CAIRN_SHA256_BYTES]);
/* 64 lowercase hex digits + NUL. */
CAIRN_API void cairn_hex(const uint8_t *p, size_t n, char *zOut);

/* Which kernel is in use: "sha-ni", "armv8-sha2" or "portable". */
CAIRN_API const char *cairn_sha256_kernel(void);

#ifdef __cplusplus
}
#endif
#endif
