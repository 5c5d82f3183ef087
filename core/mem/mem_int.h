/*
** 2026-11-29
**
** core/mem/mem_int.h - what the files of the memory module share: vector kernels and their
** dispatch, top-k heaps, quantisation, the IVF / IVF-PQ index, the BM25 index, the tokenizer
** internals, the small JSON reader, and the store itself. Tests and benchmarks include it to
** reach the kernels directly; nothing here is public API.
*/
#ifndef CAIRN_MEM_INT_H
#define CAIRN_MEM_INT_H

#include <math.h>   /* INFINITY, NAN */
#include <stdlib.h> /* qsort */

#include "cairn/mem.h"
#include "../common/internal.h" /* relative: the CLI includes this header too */

/* ------------------------------------------------------------------ vector kernels */
/* A kernel table. Every variant computes the same thing as the scalar one; float results may
** differ by summation order only (tests allow 1e-5 relative to sum|a_i*b_i|). */
typedef struct MemKernels {
  const char *zName;
  /* out[i] = dot(base + i*dim, q) for i in [0, n) */
  void (*xDotF32)(const float *base, size_t n, uint32_t dim, const float *q, float *out);
  /* out[i] = dot(base + i*dim, q) over int8 codes, exact int32 */
  void (*xDotI8)(const int8_t *base, size_t n, uint32_t dim, const int8_t *q, int32_t *out);
  /* out[i] = dot(f16 base + i*dim, q) */
  void (*xDotF16)(const uint16_t *base, size_t n, uint32_t dim, const float *q, float *out);
} MemKernels;

/* The table for the current CPU features (honours cairn_cpu_disable). */
const MemKernels *cairnMemKernels(void);
/* Every table built into this binary whose CPU features are present, scalar first. */
int cairnMemKernelList(const MemKernels **aOut, int nMax);

float cairnMemDot(const float *a, const float *b, uint32_t dim);
uint16_t cairnF32ToF16(float f);
float cairnF16ToF32(uint16_t h);
void cairnF32ToF16Row(const float *x, uint16_t *h, uint32_t n); /* F16C when present */
/* Symmetric int8 quantisation: code = round(x / scale), scale = max|x| / 127. */
float cairnQuantI8(const float *x, uint32_t dim, int8_t *code);

/* ------------------------------------------------------------------ top-k */
typedef struct MemTopK {
  uint32_t k, n;
  float *aScore;   /* min-heap on (score, -idx): the worst kept hit at [0] */
  uint32_t *aIdx;
} MemTopK;
int cairnTopKInit(MemTopK *t, uint32_t k);
void cairnTopKFree(MemTopK *t);
void cairnTopKReset(MemTopK *t);
/* Would (score, idx) enter? */
static inline int cairnTopKBetter(float s, uint32_t i, float s0, uint32_t i0) { return s > s0 || (s == s0 && i < i0); }
void cairnTopKPush(MemTopK *t, float score, uint32_t idx);
static inline float cairnTopKFloor(const MemTopK *t) { return t->n < t->k ? -INFINITY : t->aScore[0]; }
/* Sort the kept hits best first (score desc, idx asc) in place; the heap is then unusable. */
void cairnTopKSort(MemTopK *t);

/* ------------------------------------------------------------------ vector set */
/* Row-major vectors with what each scan needs. Rows are the store's records (row = id - 1). */
typedef struct MemVecs {
  uint32_t dim;
  int metric;
  size_t n, nAlloc;
  float *aF32;       /* n * dim */
  float *aSqNorm;    /* n: |x|^2 (L2 scores) */
  int8_t *aI8;       /* n * dim: int8 codes */
  float *aI8Scale;   /* n */
  uint16_t *aF16;    /* n * dim */
  /* aF32, aI8 and aF16 start on a 64-byte boundary (a cache line: no SIMD load of a row
  ** straddles two lines when dim is a multiple of 16); these are the blocks to free. */
  void *pF32Mem, *pI8Mem, *pF16Mem;
} MemVecs;

int cairnVecsAppend(MemVecs *v, const float *x); /* x already normalised for cosine */
void cairnVecsFree(MemVecs *v);

/* A row filter: bit r set = row allowed (NULL = all rows). */
typedef struct MemBits {
  uint64_t *a;
  size_t n;
} MemBits;
static inline int cairnBitTest(const MemBits *b, size_t r) {
  return !b || !b->a || (r < b->n && ((b->a[r >> 6] >> (r & 63)) & 1));
}

/* Exact or quantised flat search over v into t (already initialised with k). kind is
** CAIRN_VINDEX_FLAT/F16/INT8; quantised kinds re-rank nRerank candidates exactly. */
int cairnVecSearch(const MemVecs *v, const float *q, int kind, uint32_t nRerank, const MemBits *pBits, MemTopK *t);
/* Exact score of row r for query q (|q|^2 given for L2). */
float cairnVecScore(const MemVecs *v, size_t r, const float *q, float qSqNorm);

/* ------------------------------------------------------------------ IVF / IVF-PQ */
typedef struct MemIvf {
  int kind;            /* CAIRN_VINDEX_IVF or CAIRN_VINDEX_IVFPQ; 0 = no index */
  uint32_t dim, nlist, m, dsub;
  int metric;
  float *aCent;        /* nlist * dim (normalised for cosine / inner product) */
  float *aCentSq;      /* nlist: |c|^2 */
  float *aPq;          /* IVFPQ: m * 256 * dsub sub-centroids */
  uint32_t *aAssign;   /* per row: its list, rows [0, nAssigned) */
  uint8_t *aCode;      /* IVFPQ: per row, m codes */
  size_t nAssigned, nAlloc;
  /* Rows grouped by list (counting sort of aAssign), rebuilt lazily after adds. */
  uint32_t *aListStart; /* nlist + 1 */
  uint32_t *aListRow;
  uint8_t *aListCode;   /* IVFPQ codes in list order */
  int dirty;
} MemIvf;
int cairnIvfTrain(MemIvf *ix, const MemVecs *v, const cairn_mem_index_config *cfg);
int cairnIvfAddRows(MemIvf *ix, const MemVecs *v); /* assign rows [nAssigned, v->n) */
int cairnIvfSearch(MemIvf *ix, const MemVecs *v, const float *q, uint32_t nprobe, uint32_t nRerank,
                   const MemBits *pBits, MemTopK *t);
void cairnIvfFree(MemIvf *ix);

/* ------------------------------------------------------------------ text */
/* Decode one UTF-8 code point at z[*pi]; advances *pi; returns -1 for an invalid byte. */
int32_t cairnUtf8Decode(const uint8_t *z, size_t n, size_t *pi);
int32_t cairnMemLower(int32_t c);
int cairnMemIsWordChar(int32_t c);
uint64_t cairnMemHash(const void *p, size_t n, uint64_t seed);

/* ------------------------------------------------------------------ BM25 */
typedef struct MemPost {
  uint32_t *aDoc;   /* increasing row numbers */
  uint16_t *aTf;
  uint32_t n, nAlloc;
  uint32_t maxTf;
  uint32_t minLen;  /* shortest document holding the term */
} MemPost;

typedef struct MemBm25 {
  /* vocabulary: open addressing on hash -> term id */
  uint32_t *aSlot;  /* term id + 1, 0 empty */
  uint32_t nSlot;
  char *zTerm;      /* term bytes, back to back */
  uint64_t nTermBytes, nTermAlloc;
  uint64_t *aTermOff; /* nTerm+1 offsets (the last is the end) */
  uint64_t *aTermHash;
  MemPost *aPost;
  uint32_t nTerm, nTermCap;
  uint32_t *aDocLen; /* per row */
  size_t nDoc, nDocAlloc;
  uint64_t nTotLen, nPosting;
} MemBm25;
int cairnBm25Add(MemBm25 *b, const char *zText, size_t nText); /* adds row b->nDoc */
void cairnBm25Free(MemBm25 *b);
/* Top-k by BM25. pruned != 0 uses MaxScore; 0 scores every posting (the reference). */
int cairnBm25Search(const MemBm25 *b, const char *zQuery, size_t nQuery, float k1, float bb,
                    const MemBits *pBits, int pruned, MemTopK *t);
/* Score of one row (for hybrid re-scoring); terms of the query are looked up each call. */

/* ------------------------------------------------------------------ JSON (small reader) */
#define JSON_NULL 0
#define JSON_FALSE 1
#define JSON_TRUE 2
#define JSON_NUM 3
#define JSON_STR 4
#define JSON_ARR 5
#define JSON_OBJ 6
typedef struct JsonNode {
  uint8_t type;
  uint32_t n;        /* children (ARR, OBJ: keys and values alternate, n counts pairs * 2) */
  uint32_t next;     /* index of the next sibling (0 = none) */
  double num;
  const char *z;     /* STR: decoded UTF-8 in the arena (NUL-terminated); key too */
  uint32_t nz;
  size_t iz;         /* offset of z in the arena */
  size_t iSrc, nSrc; /* the value's bytes in the source text */
} JsonNode;
typedef struct Json {
  JsonNode *a;
  uint32_t n, nAlloc;
  char *zArena;
  size_t nArena, nArenaAlloc;
} Json;
/* Parse z[0..n) completely (depth <= 64, nodes <= 1<<26); on error a message with the offset. */
int cairnJsonParse(Json *j, const char *z, size_t n);
void cairnJsonFree(Json *j);
/* First child of node i (0 if none), and the value of key zKey in object i (0 if absent). */
static inline uint32_t cairnJsonChild(const Json *j, uint32_t i) { return j->a[i].n ? i + 1 : 0; }
uint32_t cairnJsonGet(const Json *j, uint32_t iObj, const char *zKey);
/* Do two values in two documents compare equal (numbers by value, objects key-ordered)? */
int cairnJsonEqual(const Json *ja, uint32_t ia, const Json *jb, uint32_t ib);

/* ------------------------------------------------------------------ store */
/* Tests: create new files as log-only stores of format 1 (FORMAT.md part 1), to check that
** such files still open. */
extern int cairnMemLegacyCreate;

/* ------------------------------------------------------------------ checksums */
#include "hash/crc32c.h"

#endif /* CAIRN_MEM_INT_H */
