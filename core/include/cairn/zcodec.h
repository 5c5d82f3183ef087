/*
** 2026-11-29
**
** cairn/zcodec.h - general-purpose compression through zstd and zlib (deflate), as buffers and
** as bounded-memory streams between host files. Both libraries allocate through the host's
** allocator, so a memory cap set on the host applies to them too.
*/
#ifndef CAIRN_ZCODEC_H
#define CAIRN_ZCODEC_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>
#include "host.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cairn_zkind {
  CAIRN_ZSTD = 1,    /* zstd frames (RFC 8878) */
  CAIRN_DEFLATE = 2, /* zlib-wrapped deflate (RFC 1950), what HDF5's filter 1 stores */
  CAIRN_GZIP = 3     /* gzip (RFC 1952) */
} cairn_zkind;

/* Upper bound of the compressed size of n bytes (0 if n is too large to bound). */
CAIRN_API size_t cairn_zbound(cairn_zkind kind, size_t n);
/* Compress p[0..n) into out[0..nOut); *pnOut receives the size. level: zstd 1..22 (0 = 3),
** deflate/gzip 0..9 (-1 = 6). CAIRN_RANGE if out is too small. */
CAIRN_API int cairn_zcompress(cairn_zkind kind, int level, const void *p, size_t n, void *out, size_t nOut, size_t *pnOut);
/* Decompress exactly: fails with CAIRN_RANGE if the result would not fit in nOut, and with
** CAIRN_CORRUPT (naming the input offset when known) on malformed input. */
CAIRN_API int cairn_zdecompress(cairn_zkind kind, const void *p, size_t n, void *out, size_t nOut, size_t *pnOut);
/* zstd only: the content size recorded in a frame header, or CAIRN_NOTFOUND if absent. */
CAIRN_API int cairn_zstd_content_size(const void *p, size_t n, uint64_t *pnSize);

/*
** Streams between host files, in bounded memory (a few hundred KiB whatever the size). Read
** `in` from offset 0 to its end, write `out` from offset 0 and truncate it to what was written.
** pnIn/pnOut (may be NULL) receive byte counts. xProgress (may be NULL) is called now and then
** with bytes of input consumed so far and the input's total size.
*/
typedef void (*cairn_progress_fn)(void *pArg, uint64_t nDone, uint64_t nTotal);
CAIRN_API int cairn_zcompress_file(cairn_zkind kind, int level, cairn_file *in, cairn_file *out,
                         cairn_progress_fn xProgress, void *pArg, uint64_t *pnIn, uint64_t *pnOut);
CAIRN_API int cairn_zdecompress_file(cairn_zkind kind, cairn_file *in, cairn_file *out,
                           cairn_progress_fn xProgress, void *pArg, uint64_t *pnIn, uint64_t *pnOut);

/* Version strings of the linked libraries. */
CAIRN_API const char *cairn_zstd_version(void);
CAIRN_API const char *cairn_zlib_version(void);

#ifdef __cplusplus
}
#endif
#endif
