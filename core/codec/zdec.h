/* 2026-12-02 - core/codec/zdec.h: a reusable zstd / zlib decoder (internal). cairn_zdecompress
** creates and frees a decoder state per call (zlib's inflate state, ~7 KiB; zstd's DCtx, ~95
** KiB): a reader that decodes many chunks keeps one of these per thread instead (issue 23: the
** chunked HDF5 read made two allocations per chunk for it). Not thread-safe: one per thread. */
#ifndef CAIRN_ZDEC_H
#define CAIRN_ZDEC_H
#include <stddef.h>

#include "cairn/zcodec.h"

typedef struct CairnZDec CairnZDec;
/* cairn_zdecompress through *ppDec, created on first use (NULL: CAIRN_NOMEM); same results and
** errors. Free with cairnZDecFree. */
int cairnZDecompressWith(CairnZDec **ppDec, cairn_zkind kind, const void *p, size_t n, void *out, size_t nOut, size_t *pnOut);
void cairnZDecFree(CairnZDec *pDec);
#endif
