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

#endif
