/* 2026-11-30 - core/codec/deflate_enc.h: cairn's own zlib-format compressor (RFC 1950 wrapper
** around an RFC 1951 deflate stream) for the HDF5 deflate filter. Levels 0-9 as zlib names
** them (0 stored, 1 fastest, 9 smallest); the output decodes with any inflate. zlib itself
** stays the decoder. See deflate_enc.c for the design. */
#ifndef CAIRN_DEFLATE_ENC_H
#define CAIRN_DEFLATE_ENC_H
#include <stddef.h>
#include <stdint.h>

/* Largest zlib stream cairnDeflateCompress writes for n input bytes (n < 2^32). */
size_t cairnDeflateBound(size_t n);
/* Compress src[0..n) at level (-1 = 6, 0..9) into dst[0..nDst); *pnOut = bytes written.
** The encoder writes 8 bytes at a time and wants 16 bytes of room past the stream: give it
** cairnDeflateBound(n). CAIRN_RANGE if nDst is too small (never a write past dst + nDst) or
** the level is outside [-1, 9]; CAIRN_NOMEM if the match finder cannot be allocated. */
int cairnDeflateCompress(int level, const uint8_t *src, size_t n, uint8_t *dst, size_t nDst, size_t *pnOut);
/* Adler-32 (RFC 1950) of p[0..n) continued from a (start with 1). */
uint32_t cairnAdler32(uint32_t a, const uint8_t *p, size_t n);
#endif
