/* 2026-11-29 - core/hash/crc32c.h: CRC-32C, shared by the chunk store and the memory log.
** Incremental: cairnCrc32c(cairnCrc32c(0, a, n), b, m) == cairnCrc32c(0, a||b, n+m). */
#ifndef CAIRN_CRC32C_H
#define CAIRN_CRC32C_H
#include <stddef.h>
#include <stdint.h>
uint32_t cairnCrc32c(uint32_t crc, const void *p, size_t n);
#endif
