/*
** 2026-11-29
**
** core/cas/cas_int.h - what the files of the chunk store share: the gear tables and masks of
** FastCDC, the fused SHA-256 + gear-scan kernels, CRC32C, and the store's record layout.
*/
#ifndef CAIRN_CAS_INT_H
#define CAIRN_CAS_INT_H

#include "common/internal.h"
#include "cairn/cas.h"

/* ---- FastCDC ---- */
extern const uint64_t cairnCdcGear[256];
extern const uint64_t cairnCdcMasks[26];

/* Everything a cut decision needs, derived once from the parameters. */
typedef struct CdcCfg {
  cairn_fastcdc_params prm;
  uint64_t maskS, maskL; /* before / after the average size (byte-wise hash) */
  uint64_t maskI;        /* maskS & maskL: the prefilter the scanners record candidates with */
  uint64_t aGear[256];   /* seeded table */
  uint64_t aGearLs[256]; /* aGear << 1, for the first byte of each two-byte step */
} CdcCfg;
int cairnCdcInit(CdcCfg *c, const cairn_fastcdc_params *pPrm);
/* cairn_fastcdc_prepare with the configuration already derived. */
int cairnCdcPrepare(const CdcCfg *c, const uint8_t *p, size_t n, int eof, cairn_chunk **paChunk,
                    size_t *pnChunk, size_t *pnUsed);

/*
** A candidate found by a window scan: position (absolute in the buffer) whose byte-wise gear
** hash h (over the 48 bytes ending there, which is all the masks can see) has no bit of
** maskI set. The chunker then checks maskS/maskL on h.
*/
typedef struct CdcCand {
  uint64_t iPos;
  uint64_t h;
} CdcCand;

/* The rolling scan state: tables, prefilter mask, hash, candidate output (the caller makes
** room for 64*nBlock more before each call). */
typedef struct CdcScan {
  const uint64_t *aGear, *aGearLs;
  uint64_t mask;
  uint64_t h;
  CdcCand *aCand;
  size_t nCand;
} CdcScan;

/* Scan n bytes at p (absolute position iPos) without hashing. n is even except at the end. */
void cairnCdcScanPlain(CdcScan *s, const uint8_t *p, size_t n, uint64_t iPos);
/*
** Fused: compress nBlock SHA-256 blocks at pSha into h[8] while scanning nBlock*64 bytes at
** pGear (absolute position iGear). The two streams are independent; the CPU overlaps the
** gear chain with the SHA rounds, so the scan costs almost nothing on top of the hash.
*/
typedef void (*CdcFusedFn)(uint32_t h[8], const uint8_t *pSha, size_t nBlock, CdcScan *s,
                           const uint8_t *pGear, uint64_t iGear);
void cairnCdcFusedPortable(uint32_t h[8], const uint8_t *pSha, size_t nBlock, CdcScan *s,
                           const uint8_t *pGear, uint64_t iGear);
void cairnCdcFusedShaNi(uint32_t h[8], const uint8_t *pSha, size_t nBlock, CdcScan *s,
                        const uint8_t *pGear, uint64_t iGear);
void cairnCdcFusedArm(uint32_t h[8], const uint8_t *pSha, size_t nBlock, CdcScan *s,
                      const uint8_t *pGear, uint64_t iGear);
CdcFusedFn cairnCdcPickFused(void);
/* Test hooks: the smallest segment prepare gives a lane of its own, and the number of lanes
** (0 = defaults: 2 maximum chunks or 8 MiB; the host's concurrency). */
extern size_t cairnCdcSegMin, cairnCdcLanes;

/*
** One gear step of the two-byte scheme (positions i and i+1 of p, absolute iPos+i), on the
** locals a kernel declares with CDC_LOCALS so the hash stays in a register: the first byte
** adds its entry shifted left once more and is tested with the mask shifted too (the
** doubled byte-wise hash), the second byte completes the byte-wise hash.
*/
#define CDC_LOCALS(s_)                                                                       \
  uint64_t cdcH = (s_)->h;                                                                   \
  const uint64_t cdcM = (s_)->mask, cdcMls = (s_)->mask << 1;                                \
  const uint64_t *const cdcG = (s_)->aGear, *const cdcGls = (s_)->aGearLs;                   \
  CdcCand *const cdcCand = (s_)->aCand;                                                      \
  size_t cdcN = (s_)->nCand
#define CDC_SAVE(s_) ((s_)->h = cdcH, (s_)->nCand = cdcN)
#define CDC_STEP2(p_, i_, iPos_)                                                              \
  do {                                                                                       \
    cdcH = (cdcH << 2) + cdcGls[(p_)[i_]];                                                   \
    if (__builtin_expect((cdcH & cdcMls) == 0, 0)) {                                         \
      cdcCand[cdcN].iPos = (iPos_) + (i_);                                                   \
      cdcCand[cdcN++].h = cdcH >> 1;                                                         \
    }                                                                                        \
    cdcH += cdcG[(p_)[(i_) + 1]];                                                            \
    if (__builtin_expect((cdcH & cdcM) == 0, 0)) {                                           \
      cdcCand[cdcN].iPos = (iPos_) + (i_) + 1;                                               \
      cdcCand[cdcN++].h = cdcH;                                                              \
    }                                                                                        \
  } while (0)

/* Test hook (store.c): sync early once this many bytes are written unsynced (0 = 8 MiB). */
extern uint64_t cairnCasSyncAhead;

/* Largest chunk a store accepts (cairn_fastcdc_check caps nMax there). */
#define CDC_MAX_BYTES (64u << 20)

/* ---- CRC32C (Castagnoli), for record headers and metadata ---- */
#include "hash/crc32c.h"

/* ---- the store: store.c (open, recovery), store_log.c (index, records, transactions),
** store_put.c (publishing), store_name.c (catalog), store_read.c (reads, verify) ---- */
/* Maintenance reminder: a layout change here changes core/cas/FORMAT.md. */
/* ------------------------------------------------------------------ layout (FORMAT.md) */
#define CAS_MAGIC "cairnCAS"
#define CAS_VERSION 2     /* written by new stores; version 1 (no commit copies) is read and appended to as it is */
#define CAS_VERSION_MIN 1
#define CAS_HDR 64
#define REC_HDR 16
#define REC_TAG 0xCA5E0000u
enum { REC_CHUNK = 1, REC_MANIFEST = 2, REC_NAME = 3, REC_COMMIT = 4, REC_COMMIT_COPY = 5 /* version 2 */ };
#define CHUNK_FIXED 40          /* hash 32, raw length 4, codec 1, reserved 3 */
#define MANI_FIXED 64           /* id 32, time 8, tag 8, size 8, count 4, reserved 4 */
#define MANI_ENTRY 36           /* hash 32, length 4 */
#define MANI_TAG "cairnMF1"
#define NAME_FIXED 48           /* id 32, time 8, flags 4, name length 4 */
#define COMMIT_BODY 32          /* seq 8, txStart 8, nRec 4, crc 4, time 8 */
#define NAME_MAX_LEN 4096
#define MANI_MAX_BODY (64u << 20)
#define WBUF_SIZE (1u << 20)
#define BATCH_RAW ((size_t)16 << 20) /* streamed input handled per prepare call */

typedef struct CasChunk {
  uint8_t aHash[32];
  uint64_t iOff;   /* record offset */
  uint32_t nStored, nRaw;
  uint8_t codec;
} CasChunk;

typedef struct CasPay {
  uint8_t aId[32];
  uint64_t iOff;   /* manifest record offset */
  uint64_t nSize;
  uint32_t nChunk, nBody;
  int64_t iTime;
  int64_t iName;   /* newest live name bound to it, -1 if none (see casNames) */
} CasPay;

typedef struct CasName {
  char *zName;
  uint8_t aId[32];
  int64_t iTime;
  int bDelete;
} CasName;

/* A damaged region a read-only scan skipped (FORMAT.md, "Recovery rule"): bytes [iOff, iEnd)
** of committed data; zWhat names the record as far as its header and body still tell. */
typedef struct CasDamage {
  uint64_t iOff, iEnd;
  char zWhat[200];
} CasDamage;

/* Open addressing over indexes into an entry array (slot value = index + 1). */
typedef struct CasTab {
  uint32_t *a;
  size_t nSlot; /* power of two */
  size_t nUsed;
} CasTab;

struct cairn_cas {
  cairn_file *f;
  int readonly, noSync, codec, level;
  int bMemory;           /* the file is a memory file: syncing it does nothing */
  int bOwnMem;           /* ... one the store created (cairn_cas_open_memory): chunks go in place */
  uint64_t iSynced;      /* bytes before this offset were synced by an early sync */
  CdcCfg *cdc;
  uint64_t iCommitted;   /* end of the committed log */
  uint64_t iEnd;         /* append position (== iCommitted outside a transaction) */
  uint64_t seq;          /* sequence number of the last commit */
  CasChunk *aChunk;
  size_t nChunk, nChunkAlloc, nChunkC;
  CasPay *aPay;
  size_t nPay, nPayAlloc, nPayC;
  CasName *aName;
  size_t nName, nNameAlloc, nNameC;
  CasTab tChunk, tPay, tName;
  int bNamesDirty;       /* aPay[].iName needs recomputing */
  /* transaction */
  int bExplicit;         /* inside cairn_cas_begin .. commit/rollback */
  int txnErr;            /* sticky error of the open transaction */
  uint32_t nTxnRec, txnCrc;
  uint64_t txnStart;
  /* write buffer: bytes [iWBuf, iWBuf+nWBuf) not yet handed to the file */
  uint8_t *aWBuf;
  size_t nWBuf;
  uint64_t iWBuf;
  /* read scratch */
  uint8_t *aScratch;
  size_t nScratch;
  /* damage found by a read-only open (and its refreshes); the scan then resynchronizes */
  CasDamage *aDamage;
  size_t nDamage, nDamageAlloc;
  int bLenient;          /* past a damaged region: every well-formed later commit counts */
  uint64_t iBadCommit;   /* a read-only scan ended in whole records and then 48 bytes that fail
                         ** as their commit, at the very end of the file (0: not so) */
  uint64_t nFileScanned; /* the file's size the last scan read up to */
  int bRollbackDirty;    /* a rollback's truncation is not durable yet: sync before new records */
  /* version 2: every commit record is followed by a copy (FORMAT.md, "Commit") */
  unsigned version;      /* the store's format version */
  int bBadIsCopy;        /* iBadCommit is the last commit's copy, damaged (its original is intact) */
  int bLastCopied;       /* the last commit that counts has its copy on disk */
  uint8_t aLastCommit[COMMIT_BODY]; /* ... and its body (a writer appends a missing copy) */
  int bRepaired;         /* a writer's scan rewrote a commit from its copy: sync before use */
};


static inline uint64_t casKeyOfHash(const uint8_t *h) { return cairnGetLE64(h); }
static inline uint64_t casKeyOfName(const char *z) {
  uint64_t x = 0xcbf29ce484222325ull;
  while (*z) x = (x ^ (uint8_t)*z++) * 0x100000001b3ull;
  return x;
}

/* Chunk and payload tables, keyed by 32-byte hashes; the name table by string. */
typedef const uint8_t *(*CasTabKeyFn)(cairn_cas *, size_t);
static inline const uint8_t *casChunkKey(cairn_cas *c, size_t i) { return c->aChunk[i].aHash; }
static inline const uint8_t *casPayKey(cairn_cas *c, size_t i) { return c->aPay[i].aId; }

static inline size_t casTabFindHash(cairn_cas *c, const CasTab *t, CasTabKeyFn xKey, const uint8_t *h) {
  if (!t->nSlot) return SIZE_MAX;
  size_t m = t->nSlot - 1, i = (size_t)casKeyOfHash(h) & m;
  for (; t->a[i]; i = (i + 1) & m)
    if (memcmp(xKey(c, t->a[i] - 1), h, 32) == 0) return t->a[i] - 1;
  return SIZE_MAX;
}
static inline size_t casTabFindName(cairn_cas *c, const char *z) {
  const CasTab *t = &c->tName;
  if (!t->nSlot) return SIZE_MAX;
  size_t m = t->nSlot - 1, i = (size_t)casKeyOfName(z) & m;
  for (; t->a[i]; i = (i + 1) & m)
    if (strcmp(c->aName[t->a[i] - 1].zName, z) == 0) return t->a[i] - 1;
  return SIZE_MAX;
}

/* Room for entry n of an entry array of *pnAlloc entries: its address, or NULL on NOMEM (the
** caller names what could not grow). */
static inline void *casGrowOne(void *ppArray, size_t *pnAlloc, size_t n, size_t sz) {
  if (n == *pnAlloc && cairnArrayReserve(ppArray, pnAlloc, n + 1, sz, 64, "store index") != CAIRN_OK) return NULL;
  uint8_t *p;
  memcpy(&p, ppArray, sizeof p);
  return p + n * sz;
}

void cairnCasTabFree(CasTab *t); /* store_log.c */
int cairnCasTabPut(cairn_cas *c, CasTab *t, int kind, size_t v); /* store_log.c */
int cairnCasReindex(cairn_cas *c); /* store_log.c */
int cairnCasFlush(cairn_cas *c); /* store_log.c */
void cairnCasRecHeader(uint8_t h[REC_HDR], unsigned type, uint32_t nBody, uint32_t crcBody); /* store_log.c */
int cairnCasRecord(cairn_cas *c, unsigned type, const void *pA, size_t nA, const void *pB, size_t nB, uint32_t crcBody); /* store_log.c */
void cairnCasDropNames(cairn_cas *c, size_t nKeep); /* store_log.c */
int cairnCasRollback(cairn_cas *c); /* store_log.c */
int cairnCasTxnCheck(cairn_cas *c); /* store_log.c */
int cairnCasEndOp(cairn_cas *c, int rc); /* store_log.c */
int cairnCasAddChunkRaw(cairn_cas *c, const uint8_t aHash[32], const uint8_t *p, uint32_t n); /* store_put.c */
int cairnCasAddManifestBody(cairn_cas *c, const uint8_t *a, uint32_t n); /* store_put.c */
int cairnCasAddName(cairn_cas *c, const char *zName, const uint8_t aId[32], int bDelete); /* store_name.c */
int cairnCasReadChunk(cairn_cas *c, const CasChunk *k, uint8_t *dst, uint64_t iPay, const uint8_t *aPayId); /* store_read.c */
int cairnCasPlace(cairn_cas *c, const uint8_t *base, const cairn_chunk *aK, size_t nK, uint8_t *const *aOut,
                    const size_t *anOut); /* store_put.c */

#endif
