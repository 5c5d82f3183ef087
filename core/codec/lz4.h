/* 2026-11-29 - core/codec/lz4.h: the LZ4 block format (no frame), shared by the HDF5 reader
** (filter 32004 and bitshuffle's LZ4 mode), the HDF5 writer (filter 32004) and the OpenZL
** codec (wire ID 62). One implementation: three modules once carried their own copies. */
#ifndef CAIRN_LZ4_H
#define CAIRN_LZ4_H
#include <stddef.h>
#include <stdint.h>

/* Largest block cairnLz4Compress writes for n input bytes. */
size_t cairnLz4Bound(size_t n);
/* Compress src[0..n) into dst[0..nDst); nDst must be at least cairnLz4Bound(n). Returns the
** block size, or 0 if nDst is too small or the hash table cannot be allocated. */
size_t cairnLz4Compress(const uint8_t *src, size_t n, uint8_t *dst, size_t nDst);
/* Decode one whole block into dst[0..nDst); *pnOut = bytes written. Never reads or writes out
** of bounds: malformed, truncated or oversized blocks are CAIRN_CORRUPT naming the offset. */
int cairnLz4Decompress(const uint8_t *src, size_t n, uint8_t *dst, size_t nDst, size_t *pnOut);
#endif
