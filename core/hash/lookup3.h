/* 2026-11-29 - core/hash/lookup3.h: Bob Jenkins' lookup3 "hashlittle", the checksum of every
** HDF5 metadata structure since format version 2 (superblock v2/v3, OHDR, B-tree v2, fractal
** heap, fixed/extensible arrays). HDF5 calls it with initval 0. */
#ifndef CAIRN_LOOKUP3_H
#define CAIRN_LOOKUP3_H
#include <stddef.h>
#include <stdint.h>
uint32_t cairnLookup3(const void *p, size_t n, uint32_t initval);
#endif
