/*
** 2026-11-29
**
** core/mem/mem_int.h - what the files of the memory module share: vector kernels and their
** dispatch, top-k heaps, quantisation, the IVF / IVF-PQ index, the BM25 index, the tokenizer
** internals, and the store itself (the JSON reader it uses is core/common/json_int.h). Tests and benchmarks include it to
** reach the kernels directly; nothing here is public API.
*/
#ifndef CAIRN_MEM_INT_H
#define CAIRN_MEM_INT_H

#include <math.h>   /* INFINITY, NAN */
#include <stdlib.h> /* qsort */

#include "cairn/mem.h"
#include "../common/internal.h"
#include "../common/json_int.h"
#include "hash/crc32c.h"

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
/* Adds row b->nDoc: the terms of its text and of one field (the role / speaker name; NULL, 0:
** none), one bag of words. */
int cairnBm25Add(MemBm25 *b, const char *zText, size_t nText, const char *zField, size_t nField);
void cairnBm25Free(MemBm25 *b);
/* Top-k by BM25. pruned != 0 uses MaxScore; 0 scores every posting (the reference). */
int cairnBm25Search(const MemBm25 *b, const char *zQuery, size_t nQuery, float k1, float bb,
                    const MemBits *pBits, int pruned, MemTopK *t);
/* Score of one row (for hybrid re-scoring); terms of the query are looked up each call. */

/* ------------------------------------------------------------------ store */
/* The store is one struct shared by its files (FORMAT.md describes the file):
**   store.c         open, close, stats, the log-only header of format 1
**   store_rec.c     the name table, records in memory, add / touch / get
**   store_log.c     the write-ahead log: pending records, IVF records, commit, replay
**   store_ck.c      the HDF5 checkpoint: writing it and loading it on open
**   store_filter.c  JSON filters and the row bitmap they select
**   store_search.c  the one query: vector, BM25, fusion, recency
** Maintenance reminder: a field added to cairn_mem that must survive a reopen is logged in
** store_rec.c/store_log.c and checkpointed in store_ck.c. */

/* Tests: create new files as log-only stores of format 1 (FORMAT.md part 1), to check that
** such files still open. */
extern int cairnMemLegacyCreate;
/* Tests: checkpoint datasets get chunks of 8 rows (or bytes), so a small store is a small file. */
extern int cairnMemSmallChunks;
/* Tests: new stores are HDF5 stores of version 1 (before 2026-12-02), and are not migrated. */
extern int cairnMemV1Create;

#define MEM_LOG_MAGIC "CAIRNMEM"
#define MEM_LOG_VERSION 1
#define MEM_LOG_HDR 32
#define MEM_REC_ADD 1
#define MEM_REC_TOUCH 2
#define MEM_REC_COMMIT 3
#define MEM_REC_IVF 4
#define MEM_REC_ADD2 5   /* ADD + head, validity, flags, user, agent (2026-12-02) */
#define MEM_REC_END 6    /* u64 row id, i64 valid_to: a version superseded */
#define MEM_REC_MODEL 8  /* the embedding model's name (bytes) */
#define MEM_REC_FORGET 7 /* u64 row id: forgotten (tombstoned; gone from the file at the next checkpoint) */
#define MEM_REC_MAX ((uint64_t)1 << 31) /* bytes in one record */
#define MEM_H5_SIG "\x89HDF\r\n\x1a\n"   /* the 8-byte HDF5 signature at offset 0 */
#define MEM_CK_EVERY_DEFAULT 4096

typedef struct MemNames {
  char *z;
  size_t nz, nzAlloc;
  size_t *aOff;
  uint32_t *aLen;
  uint32_t n, nAlloc;
  uint32_t *aSlot;
  uint32_t nSlot;
} MemNames;

struct cairn_h5;
struct cairn_mem {
  cairn_file *f;
  uint32_t dim;
  int metric, readOnly, noSync, textOnly;
  int diskVec;      /* CAIRN_MEM_DISK_* */
  int8_t *aScratchI8; /* dim bytes */
  /* records: row r is id r + 1 */
  size_t n, nAlloc;
  char *zText;
  size_t nText, nTextAlloc;
  size_t *aTextOff;
  uint32_t *aTextLen;
  size_t *aMetaOff; /* in zText too */
  uint32_t *aMetaLen;
  int64_t *aCreated, *aEvent;
  uint32_t *aSession, *aRole; /* name id + 1, 0 = none */
  uint8_t *aTier;
  float *aImp;
  uint32_t *aAccess;
  /* 2026-12-02: scopes, versions, forgetting (FORMAT.md "Versions and forgetting") */
  uint32_t *aUser, *aAgent; /* name id + 1, 0 = none */
  uint64_t *aCur;           /* for a first version: the row of the memory's latest version */
  uint64_t *aHead;          /* the memory (id of its first version) this row is a version of */
  int64_t *aFrom, *aTo;     /* validity of the version: [from, to), to 0 = current */
  uint8_t *aFlags;          /* MEM_ROW_DEAD: forgotten (a tombstone: no text, vector, names) */
  uint64_t *aLive;          /* bitmap: current and not forgotten (what a search sees) */
  size_t nLiveAlloc;        /* words of aLive */
  size_t nNotLive;          /* rows not in aLive */
  size_t endMin;            /* lowest checkpointed row whose valid_to changed since (SIZE_MAX: none) */
  int forgetPending;        /* a forget since the last checkpoint: the next one rewrites the file */
  int ckV2;                 /* the checkpoint has the datasets of 2026-12-02 (user, agent, head...) */
  const struct cairnMemHook *pHook; /* the graph kept in this file (mem_hook.h), NULL none */
  /* exact dedup: open addressing on the normalised text's hash -> row + 1 of current rows */
  uint32_t *aDedup;
  size_t nDedupSlot, nDedup;
  char zModel[256];        /* the embedding model recorded, "" none */
  int modelUnlogged;        /* zModel set by this open, not yet in the log */
  MemNames names;
  MemVecs vecs;
  MemBm25 bm25;
  MemIvf ivf;
  int ivfUnlogged;
  int64_t maxEvent;
  /* file: format 2 is an HDF5 checkpoint with the log after its end of allocation, format 1 a
  ** log-only file of before 2026-11-29 (read and appended to, never checkpointed) */
  int fmt;
  uint64_t logStart;     /* where the log records start: HDF5 end of allocation, or 32 */
  size_t nCk;            /* rows in the HDF5 checkpoint */
  uint32_t nCkNames;     /* names in the checkpoint */
  uint64_t nCkText, nCkMeta, nCkNameBytes; /* bytes of the CSR arrays in the checkpoint */
  size_t touchMin;       /* lowest checkpointed row touched since (SIZE_MAX: none) */
  uint32_t ivfGen;       /* generation of the IVF index in memory (a build makes a new one) */
  uint32_t ivfCkGen;     /* generation in the checkpoint (0: none) */
  size_t ivfCkRows;      /* IVF rows assigned in the checkpoint */
  uint32_t ckEvery;      /* automatic checkpoint when the log holds this many memories */
  size_t ckRetryAt;      /* after a failed automatic checkpoint: next try at this many rows */
  uint64_t nCheckpoint;  /* checkpoints written by this handle */
  int64_t ckNs;          /* time the last checkpoint took */
  struct cairn_h5 *pH5;  /* open only while the checkpoint is loaded */
  int bReady;            /* the open succeeded (close may checkpoint) */
  int rcFatal;           /* a checkpoint failed after its superblock switch was written: the
                         ** file holds the old or the new state, unknown which; every later
                         ** write fails until the store is reopened */
  /* log */
  uint64_t nFile; /* end of the last commit */
  uint8_t *pPend;
  size_t nPend, nPendAlloc;
  size_t nCommitted;
  int64_t openNs;
  float *aScratch; /* dim floats */
  /* integrity (FORMAT.md "Damage") */
  uint8_t aSb0[48];      /* the superblock as this open first read it (readers: changed = start over) */
  int ckRowCrc;          /* the checkpoint has /memory/row_crc (and @access_crc): every row verified */
  int ckFletcher;        /* its datasets were created with Fletcher-32 */
  /* verify / salvage (store_verify.c): damaged rows and records are skipped and counted in
  ** pVer instead of failing the open; rows are then renumbered, aOrigId[r] the id in the file */
  cairn_mem_verify_info *pVer;
  uint64_t *aOrigId;
  size_t nOrigIdAlloc;
};



/* A validated record, ready to be applied (in memory) and logged. */
typedef struct MemAddArgs {
  const char *zText;
  size_t nText;
  const float *aVec; /* dim floats, normalised already for cosine */
  int64_t created, event;
  const char *zSession, *zRole, *zMeta;
  size_t nSession, nRole, nMeta;
  int32_t tier;
  float imp;
  uint32_t access;
  const char *zUser, *zAgent;
  size_t nUser, nAgent;
  uint64_t head;      /* 0: its own id (a new memory) */
  int64_t from, to;   /* validity (from 0 = created) */
  uint8_t flags;      /* MEM_ROW_* */
} MemAddArgs;
#define MEM_ROW_DEAD 1
#define MEM_ROW_ABSENT 2 /* in memory only: a forgotten row the file's datasets leave out */

/* verify / salvage (store_verify.c): note damage (the first one is kept with its offset); lost
** memories are counted from the ids missing at the end. */
void cairnMemNoteDamage(cairn_mem *m, uint64_t off, const char *zMsg);
/* salvage: apply a row read from the file, whose id there is origId. */
int cairnMemApplySalvaged(cairn_mem *m, const MemAddArgs *a, uint64_t origId);
/* salvage: the row of the version whose id in the file is origId; SIZE_MAX: not loaded */
size_t cairnMemSalvagedRow(const cairn_mem *m, uint64_t origId);
/* store_rec.c: log and apply a validated record (salvage's copy). */
int cairnMemAddArgs(cairn_mem *m, const MemAddArgs *a);
/* Open f as a store (store.c); the caller has taken the lock; f is never closed here. */
int cairnMemOpenLocked(cairn_file *f, const cairn_mem_config *cfg, cairn_mem_verify_info *pVer, cairn_mem **pp);

static inline int memIsFinite(float f) { return f == f && f - f == 0; }
/* The vector encoding byte of an ADD record: 0 f32, 1 none, 2 f16, 3 int8. */
static inline int memVecEncByte(const cairn_mem *m) {
  return m->textOnly ? 1 : m->diskVec == CAIRN_MEM_DISK_F16 ? 2 : m->diskVec == CAIRN_MEM_DISK_INT8 ? 3 : 0;
}

/* store_rec.c: the name table (sessions and roles share it; ids from 0) and the records. */
int cairnMemNamesFind(MemNames *t, const char *z, size_t n, uint32_t *pId, int add);
void cairnMemNamesFree(MemNames *t);
int cairnMemApplyAdd(cairn_mem *m, const MemAddArgs *a);

/* store_log.c: pending log records. memRecBegin starts a record of payload size n and returns
** the payload pointer (valid until the next begin), NULL on NOMEM; memRecEnd writes its
** checksum. Inline: every add and touch logs a record. */
int cairnMemPendGrow(cairn_mem *m, size_t nMore);
static inline uint8_t *memRecBegin(cairn_mem *m, uint8_t type, size_t n) {
  if (m->nPend + n + 9 > m->nPendAlloc && cairnMemPendGrow(m, n + 9) != CAIRN_OK) return NULL;
  uint8_t *p = m->pPend + m->nPend;
  cairnPutLE32(p, (uint32_t)n);
  p[4] = type;
  return p + 5;
}
static inline void memRecEnd(cairn_mem *m, size_t n) {
  uint8_t *p = m->pPend + m->nPend;
  cairnAssert(m->nPend + n + 9 <= m->nPendAlloc);
  cairnPutLE32(p + 5 + n, cairnCrc32c(0, p, n + 5));
  m->nPend += n + 9;
}
/* Apply the log in [logStart, size): up to the end of its last COMMIT; cut what follows. */
int cairnMemReplay(cairn_mem *m, uint64_t size);

/* store_ck.c: the HDF5 checkpoint. */
int cairnMemCheckpointRun(cairn_mem *m);
int cairnMemCkCreate(cairn_mem *m);                   /* a new file holding the empty store */
int cairnMemCkOpen(cairn_mem *m, const cairn_mem_config *cfg, uint64_t size, int64_t *pCount);
int cairnMemCkLoad(cairn_mem *m, uint64_t nRow);      /* rows and IVF index from m->pH5 */

/* store_filter.c: the row bitmap of a filter; *pAll set when it admits every row. asOf 0: the
** current versions only (aLive); else the versions valid at asOf. Forgotten rows never. */
int cairnMemFilterBits(cairn_mem *m, const cairn_mem_filter *pf, int64_t asOf, MemBits *pb, int *pAll);

/* store_filter.c: the rows a filter expression (the JSON filter language) admits; pb->a is
** allocated (m->n bits). */
int cairnMemExprBits(cairn_mem *m, const char *zExpr, MemBits *pb);
int cairnMemExprCheck(const char *zExpr); /* the errors of a filter, before any row */
/* store_edit.c: versions, forgetting, dedup */
static inline int memRowLive(const cairn_mem *m, size_t r) { return (int)((m->aLive[r >> 6] >> (r & 63)) & 1); }
void cairnMemSetLive(cairn_mem *m, size_t r, int live);
int cairnMemApplyEnd(cairn_mem *m, size_t r, int64_t to);
int cairnMemApplyForget(cairn_mem *m, size_t r);
uint64_t cairnMemNormHash(const char *z, size_t n);
int cairnMemDedupAdd(cairn_mem *m, size_t r);
void cairnMemDedupDel(cairn_mem *m, size_t r);
size_t cairnMemCurRow(const cairn_mem *m, uint64_t id); /* the latest version's row of memory id; SIZE_MAX: none */
void cairnMemRowGet(cairn_mem *m, size_t r, cairn_mem_record *rec);
int cairnMemPrepare(cairn_mem *m, const cairn_mem_record *r, MemAddArgs *pa, const char *zWho);
/* bm25.c: take row's postings out (its text and field as added, tokenized again). */
int cairnBm25Remove(MemBm25 *b, uint32_t row, const char *zText, size_t nText, const char *zField, size_t nField);
/* store_ck.c: rewrite the whole file (forgetting, compaction, migration) */
int cairnMemRewrite(cairn_mem *m);
/* store_ck.c: an interrupted rewrite found at open (the image at the end of the file): finish it */
int cairnMemRecoverRewrite(cairn_file *f, uint64_t *pSize, int readOnly, int noSync);

/* Record payloads: little-endian writer (room was reserved) and bounds-checked reader (a short
** read sets bad and returns 0). */
typedef struct MemWr {
  uint8_t *p;
  size_t i;
} MemWr;
static inline void memWU8(MemWr *w, uint8_t v) { w->p[w->i++] = v; }
static inline void memWU16(MemWr *w, uint16_t v) { cairnPutLE16(w->p + w->i, v), w->i += 2; }
static inline void memWU32(MemWr *w, uint32_t v) { cairnPutLE32(w->p + w->i, v), w->i += 4; }
static inline void memWU64(MemWr *w, uint64_t v) { cairnPutLE64(w->p + w->i, v), w->i += 8; }
static inline void memWF32(MemWr *w, float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  memWU32(w, u);
}
static inline void memWBytes(MemWr *w, const void *p, size_t n) {
  if (n) memcpy(w->p + w->i, p, n);
  w->i += n;
}

typedef struct MemRd {
  const uint8_t *p;
  size_t i, n;
  int bad;
} MemRd;
static inline int memRdHave(MemRd *r, size_t k) {
  if (r->bad || r->n - r->i < k) {
    r->bad = 1;
    return 0;
  }
  return 1;
}
static inline uint8_t memRU8(MemRd *r) { return memRdHave(r, 1) ? r->p[r->i++] : 0; }
static inline uint16_t memRU16(MemRd *r) {
  if (!memRdHave(r, 2)) return 0;
  r->i += 2;
  return cairnGetLE16(r->p + r->i - 2);
}
static inline uint32_t memRU32(MemRd *r) {
  if (!memRdHave(r, 4)) return 0;
  r->i += 4;
  return cairnGetLE32(r->p + r->i - 4);
}
static inline uint64_t memRU64(MemRd *r) {
  if (!memRdHave(r, 8)) return 0;
  r->i += 8;
  return cairnGetLE64(r->p + r->i - 8);
}
static inline float memRF32(MemRd *r) {
  uint32_t u = memRU32(r);
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline const uint8_t *memRBytes(MemRd *r, size_t k) {
  if (!memRdHave(r, k)) return NULL;
  r->i += k;
  return r->p + r->i - k;
}

#endif /* CAIRN_MEM_INT_H */
