/*
** 2026-11-29
**
** core/cas/fastcdc.c - FastCDC 2020 content-defined chunking: parameters, the reference cut
** (one chunk at a time, exactly the published algorithm), and the fast "prepare" path that
** chunks and hashes a buffer.
**
** The algorithm (Xia et al., TPDS 2020; fastcdc-rs v2020 and Go fastcdc2020 agree, and the
** vectors in ../shared/data/fastcdc pin it): for a chunk starting at s, no byte before
** s + 2*(nMin/2) is hashed; from there the gear hash h = (h << 1) + GEAR[byte], rolled two
** bytes per step, is tested against maskS (more one-bits) before s + nAvg and maskL after;
** the chunk ends before the byte whose hash has no masked bit set, at nMax at the latest.
**
** The fast path rests on one property: the masks only see bits 0..47, and bit j of a gear
** hash depends only on the last j+1 bytes. So past the first 48 hashed bytes of a chunk,
** "would the chunk's hash cut here" equals "does the hash of a rolling scan that never
** restarts have no masked bit here". The scanner (cdc_fused.c) therefore rolls over the
** whole buffer without resets and records candidate positions; the chunker checks the first
** 48 positions of each chunk exactly and takes the rest from the candidates. Consequences:
**   - the scan can be fused with SHA-256 of the bytes behind it (one pass, one thread);
**   - any segment of a buffer can be scanned and chunked on its own from an assumed start,
**     and its cuts join the true sequence at the first cut both share (parallel prepare).
** Every path gives the cuts of cairn_fastcdc_cut; tests/core/test_fastcdc.c checks it on
** random data, parameters, seeds, thread counts and buffer splits.
*/
#include "cas/cas_int.h"

/* MASKS[b] has b one-bits, spread over bits 12..47 as in the reference code. */
const uint64_t cairnCdcMasks[26] = {
  0, 0, 0, 0, 0,
  0x0000000001804110ull, 0x0000000001803110ull, 0x0000000018035100ull, 0x0000001800035300ull,
  0x0000019000353000ull, 0x0000590003530000ull, 0x0000d90003530000ull, 0x0000d90103530000ull,
  0x0000d90303530000ull, 0x0000d90313530000ull, 0x0000d90f03530000ull, 0x0000d90303537000ull,
  0x0000d90703537000ull, 0x0000d90707537000ull, 0x0000d91707537000ull, 0x0000d91747537000ull,
  0x0000d91767537000ull, 0x0000d93767537000ull, 0x0000d93777537000ull, 0x0000d93777577000ull,
  0x0000db3777577000ull};

#define CDC_MAX_MAX (64u << 20)

void cairn_fastcdc_default(cairn_fastcdc_params *p) {
  p->nMin = 256u << 10;
  p->nAvg = 1u << 20;
  p->nMax = 4u << 20;
  p->level = 2;
  p->seed = 0;
}

static unsigned log2u(uint32_t v) {
  unsigned b = 0;
  while (v > 1) v >>= 1, b++;
  return b;
}

int cairn_fastcdc_check(const cairn_fastcdc_params *p) {
  if (!p) return cairnErr(CAIRN_MISUSE, "fastcdc: NULL parameters");
  if (p->nAvg == 0 || (p->nAvg & (p->nAvg - 1)) != 0)
    return cairnErr(CAIRN_MISUSE, "fastcdc: average size %u is not a power of two", p->nAvg);
  if (p->nMin < 64) return cairnErr(CAIRN_MISUSE, "fastcdc: minimum size %u is below 64", p->nMin);
  if (p->nMin > p->nAvg || p->nAvg > p->nMax)
    return cairnErr(CAIRN_MISUSE, "fastcdc: sizes must satisfy min %u <= avg %u <= max %u", p->nMin, p->nAvg, p->nMax);
  if (p->nMax > CDC_MAX_MAX) return cairnErr(CAIRN_MISUSE, "fastcdc: maximum size %u is above 64 MiB", p->nMax);
  unsigned a = log2u(p->nAvg);
  if (p->level > 3 || a < 5 + p->level || a + p->level > 25)
    return cairnErr(CAIRN_MISUSE, "fastcdc: average 2^%u with normalization level %u leaves the mask table", a, p->level);
  return CAIRN_OK;
}

int cairnCdcInit(CdcCfg *c, const cairn_fastcdc_params *p) {
  CAIRN_TRY(cairn_fastcdc_check(p));
  unsigned a = log2u(p->nAvg);
  c->prm = *p;
  c->maskS = cairnCdcMasks[a + p->level];
  c->maskL = cairnCdcMasks[a - p->level];
  c->maskI = c->maskS & c->maskL;
  for (int i = 0; i < 256; i++) {
    c->aGear[i] = cairnCdcGear[i] ^ p->seed;
    c->aGearLs[i] = c->aGear[i] << 1;
  }
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ reference cut */
/* fastcdc-rs v2020 cut_gear, line for line (with its quirks: the hashed region starts at
** 2*(min/2), an odd remainder's last byte is never tested). */
static size_t cdcCutRef(const CdcCfg *c, const uint8_t *p, size_t n, uint64_t *pH) {
  size_t remaining = n, center = c->prm.nAvg;
  uint64_t h = 0;
  *pH = 0;
  if (remaining <= c->prm.nMin) return remaining;
  if (remaining > c->prm.nMax) remaining = c->prm.nMax;
  else if (remaining < center) center = remaining;
  size_t idx = c->prm.nMin / 2;
  const uint64_t mS = c->maskS, mSls = c->maskS << 1, mL = c->maskL, mLls = c->maskL << 1;
  for (; idx < center / 2; idx++) {
    size_t i = idx * 2;
    h = (h << 2) + c->aGearLs[p[i]];
    if ((h & mSls) == 0) return *pH = h, i;
    h += c->aGear[p[i + 1]];
    if ((h & mS) == 0) return *pH = h, i + 1;
  }
  for (; idx < remaining / 2; idx++) {
    size_t i = idx * 2;
    h = (h << 2) + c->aGearLs[p[i]];
    if ((h & mLls) == 0) return *pH = h, i;
    h += c->aGear[p[i + 1]];
    if ((h & mL) == 0) return *pH = h, i + 1;
  }
  *pH = h;
  return remaining;
}

int cairn_fastcdc_cut(const cairn_fastcdc_params *pPrm, const void *pv, size_t n, int eof,
                      size_t *pnChunk, uint64_t *pFp) {
  CdcCfg c;
  uint64_t h;
  if (!pnChunk || (!pv && n)) return cairnErr(CAIRN_MISUSE, "cairn_fastcdc_cut: NULL argument");
  *pnChunk = 0;
  CAIRN_TRY(cairnCdcInit(&c, pPrm));
  size_t k = cdcCutRef(&c, pv, n, &h);
  /* Without the end of the data, "no cut before the end of the buffer" is not an answer. */
  if (!eof && k == n && n < c.prm.nMax) k = 0;
  *pnChunk = k;
  if (pFp) *pFp = h;
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ the fast path */
#define CDC_LEAD 4096          /* how far the gear scan runs ahead of the hash */
#define CDC_CAND_CAP 16384     /* candidate queue: at most 2*CDC_LEAD + 64 pending + a step */
#define CDC_EXACT 48           /* positions after the hash start checked exactly */

/* A run of the chunker over one stretch of the buffer. */
typedef struct CdcLane {
  const CdcCfg *c;
  const uint8_t *p;
  size_t n;
  int eof;
  size_t iStart;               /* the first chunk starts here (assumed to be a boundary) */
  size_t iStop;                /* stop once a chunk ends at or after this */
  const uint64_t *aSync;       /* sorted; stop once a chunk ends on one of these */
  size_t nSync;
  CdcFusedFn xFused;
  cairn_chunk *aChunk;
  size_t nChunk, nAlloc;
  size_t iEnd;                 /* end of the last chunk emitted */
  int rc;
  CdcCand *aCand;
} CdcLane;

static int laneEmit(CdcLane *L, size_t iOff, size_t n, const uint8_t h[32]) {
  if (L->nChunk == L->nAlloc) {
    CAIRN_TRY(cairnArrayReserve(&L->aChunk, &L->nAlloc, L->nChunk + 1, sizeof(cairn_chunk), 64, "fastcdc: chunk list"));
  }
  cairn_chunk *k = &L->aChunk[L->nChunk++];
  k->iOff = iOff;
  k->n = (uint32_t)n;
  memcpy(k->aHash, h, 32);
  L->iEnd = iOff + n;
  return CAIRN_OK;
}

static int syncHit(const CdcLane *L, uint64_t v) {
  size_t lo = 0, hi = L->nSync;
  while (lo < hi) {
    size_t m = (lo + hi) / 2;
    if (L->aSync[m] < v) lo = m + 1;
    else hi = m;
  }
  return lo < L->nSync && L->aSync[lo] == v;
}

/* Run the chunker from L->iStart. See the file comment for why candidates suffice. */
static void laneRun(CdcLane *L) {
  const CdcCfg *c = L->c;
  const uint8_t *p = L->p;
  const size_t n = L->n;
  const size_t nMin = c->prm.nMin, nAvg = c->prm.nAvg, nMax = c->prm.nMax;
  CdcScan sc;
  sc.aGear = c->aGear;
  sc.aGearLs = c->aGearLs;
  sc.mask = c->maskI;
  sc.h = 0;
  sc.aCand = L->aCand;
  sc.nCand = 0;
  size_t iHead = 0;            /* first unconsumed candidate */
  size_t s = L->iStart;
  size_t G = s >= 64 ? s - 64 : 0; /* gear frontier: 64 bytes of warm-up before s */
  L->iEnd = s;
  while (s < n) {
    size_t R = n - s;
    cairn_sha256_ctx ctx;
    cairn_sha256_init(&ctx);
    size_t cut = SIZE_MAX;
    if (R <= nMin) {
      if (!L->eof) break;      /* the last bytes: wait for more or the end */
      cut = n;
    }
    size_t Rp = R < nMax ? R : nMax;
    int bFinal = L->eof || R >= nMax; /* can "no cut up to checkEnd" be decided? */
    /* The reference tests positions below s + 2*(remaining/2) (an odd remainder's last byte is
    ** never tested). Without the end of the data, the final remainder is at least R: a cut at
    ** the last position of an odd R would not be one if the data ended here, so it waits. */
    size_t checkEnd = s + 2 * (Rp / 2);
    size_t p0 = s + 2 * (nMin / 2);
    size_t pExact = p0 + CDC_EXACT;
    if (cut == SIZE_MAX) {
      /* The first positions of the hashed region: exact, from a hash that starts at p0. */
      uint64_t h = 0;
      size_t e = CAIRN_MIN(pExact, checkEnd);
      for (size_t q = p0; q < e; q++) {
        h = (h << 1) + c->aGear[p[q]];
        if ((h & (q - s < nAvg ? c->maskS : c->maskL)) == 0) {
          cut = q;
          break;
        }
      }
    }
    /* If the previous chunk ended past the scan (an exact or whole-rest cut), restart the
    ** scan 64 bytes before this one. */
    if (G < s) {
      G = s >= 64 ? s - 64 : 0;
      sc.h = 0;
      sc.nCand = iHead = 0;
    }
    size_t S = s;              /* the hash covers [s, S) */
    while (cut == SIZE_MAX) {
      /* Consume the candidates scanned so far. */
      while (iHead < sc.nCand) {
        const CdcCand *k = &sc.aCand[iHead];
        if (k->iPos >= checkEnd) break;
        iHead++;
        if (k->iPos < pExact) continue;
        if ((k->h & (k->iPos - s < nAvg ? c->maskS : c->maskL)) == 0) {
          cut = (size_t)k->iPos;
          break;
        }
      }
      if (cut != SIZE_MAX) break;
      if (G >= checkEnd) {
        if (bFinal) cut = s + Rp;
        break;
      }
      /* Room in the candidate queue: drop what was consumed. */
      if (iHead > 0 && sc.nCand + 2 * CDC_LEAD + 64 > CDC_CAND_CAP) {
        memmove(sc.aCand, sc.aCand + iHead, (sc.nCand - iHead) * sizeof(CdcCand));
        sc.nCand -= iHead;
        iHead = 0;
      }
      /* (At a lane's start the scan begins 64 bytes before the hash: G < S.) */
      size_t nb = G >= S + CDC_LEAD ? CAIRN_MIN((size_t)CDC_LEAD, n - G) / 64 : 0;
      if (nb > 0) {
        /* Steady state: hash nb blocks behind the frontier, scan nb blocks ahead of it. */
        L->xFused(ctx.h, p + S, nb, &sc, p + G, G);
        ctx.nTotal += 64 * nb;
        S += 64 * nb;
        G += 64 * nb;
      } else {
        /* Build up the lead (or finish the last bytes) with a plain scan. */
        size_t k = CAIRN_MIN((size_t)CDC_LEAD, n - G);
        if (k > 1 && (k & 1) && G + k < n) k--;
        cairnCdcScanPlain(&sc, p + G, k, G);
        G += k;
      }
    }
    if (cut == SIZE_MAX) break; /* undecided: the rest waits for more data */
    cairn_sha256_update(&ctx, p + S, cut - S);
    uint8_t aH[32];
    cairn_sha256_final(&ctx, aH);
    if ((L->rc = laneEmit(L, s, cut - s, aH)) != CAIRN_OK) return;
    s = cut;
    /* Candidates before the new chunk start are of no use to it. */
    while (iHead < sc.nCand && sc.aCand[iHead].iPos < s) iHead++;
    if (s >= L->iStop) break;
    if (L->aSync && syncHit(L, s)) break;
  }
}

/* Smallest segment worth a lane of its own (0 = the default rule), and the number of lanes
** (0 = the host's concurrency); tests and fuzzers set them to exercise the join. */
size_t cairnCdcSegMin, cairnCdcLanes;

/* Parallel prepare: lane k chunks segment k from an assumed boundary. */
typedef struct CdcPar {
  CdcLane *aLane;
} CdcPar;
static void parTask(void *pArg, size_t i, unsigned iWorker) {
  (void)iWorker;
  laneRun(&((CdcPar *)pArg)->aLane[i]);
}

static int appendChunks(cairn_chunk **pa, size_t *pn, size_t *pnAlloc, const cairn_chunk *a, size_t n) {
  if (*pn + n > *pnAlloc) {
    size_t nNew = (*pn + n) * 2 + 16;
    cairn_chunk *b = cairnRealloc(*pa, nNew * sizeof(*b));
    if (!b) return cairnErr(CAIRN_NOMEM, "fastcdc: cannot grow the chunk list to %zu", nNew);
    *pa = b;
    *pnAlloc = nNew;
  }
  memcpy(*pa + *pn, a, n * sizeof(*a));
  *pn += n;
  return CAIRN_OK;
}

int cairn_fastcdc_prepare(const cairn_fastcdc_params *pPrm, const void *pv, size_t n, int eof,
                          cairn_chunk **paChunk, size_t *pnChunk, size_t *pnUsed) {
  if (!paChunk || !pnChunk || (!pv && n)) return cairnErr(CAIRN_MISUSE, "cairn_fastcdc_prepare: NULL argument");
  *paChunk = NULL;
  *pnChunk = 0;
  if (pnUsed) *pnUsed = 0;
  CdcCfg *c = cairnMalloc(sizeof(*c));
  if (!c) return cairnErr(CAIRN_NOMEM, "fastcdc: out of memory");
  int rc = cairnCdcInit(c, pPrm);
  if (rc == CAIRN_OK) rc = cairnCdcPrepare(c, pv, n, eof, paChunk, pnChunk, pnUsed);
  cairnFree(c);
  return rc;
}

int cairnCdcPrepare(const CdcCfg *c, const uint8_t *pv, size_t n, int eof, cairn_chunk **paChunk,
                    size_t *pnChunk, size_t *pnUsed) {
  int rc = CAIRN_OK;
  *paChunk = NULL;
  *pnChunk = 0;
  if (pnUsed) *pnUsed = 0;
  if (n == 0) return CAIRN_OK;
  /* All of it in one chunk (small payloads): no scanner to set up. */
  if (eof && n <= c->prm.nMin) {
    cairn_chunk *a = cairnMalloc(sizeof(*a));
    if (!a) return cairnErr(CAIRN_NOMEM, "fastcdc: out of memory");
    a->iOff = 0;
    a->n = (uint32_t)n;
    cairn_sha256(pv, n, a->aHash);
    *paChunk = a;
    *pnChunk = 1;
    if (pnUsed) *pnUsed = n;
    return CAIRN_OK;
  }
  /* Segments only pay when each holds several maximum-size chunks. */
  size_t nSeg = cairnCdcLanes ? cairnCdcLanes : cairnConcurrency();
  size_t nSegMin = cairnCdcSegMin ? cairnCdcSegMin : CAIRN_MAX((size_t)c->prm.nMax * 2, (size_t)8 << 20);
  if (nSeg > 16) nSeg = 16;
  while (nSeg > 1 && n / nSeg < nSegMin) nSeg--;
  CdcLane aLane[17];
  memset(aLane, 0, sizeof(aLane));
  CdcCand *aCand = cairnMallocArray((nSeg + 1) * (size_t)CDC_CAND_CAP, sizeof(CdcCand));
  if (!aCand) return cairnErr(CAIRN_NOMEM, "fastcdc: out of memory");
  CdcFusedFn xFused = cairnCdcPickFused();
  for (size_t k = 0; k <= nSeg; k++) {
    CdcLane *L = &aLane[k];
    L->c = c, L->p = pv, L->n = n, L->eof = eof, L->xFused = xFused;
    L->aCand = aCand + k * CDC_CAND_CAP;
    L->iStart = k < nSeg ? (n / nSeg * k) & ~(size_t)63 : 0;
    L->iStop = k + 1 < nSeg ? (n / nSeg * (k + 1)) & ~(size_t)63 : SIZE_MAX;
  }
  cairn_chunk *aOut = NULL;
  size_t nOut = 0, nOutAlloc = 0;
  uint64_t *aSync = NULL;
  if (nSeg == 1) {
    laneRun(&aLane[0]);
    rc = aLane[0].rc;
    aOut = aLane[0].aChunk, nOut = aLane[0].nChunk;
    aLane[0].aChunk = NULL;
  } else {
    CdcPar par = {aLane};
    rc = cairnParallelFor(nSeg, parTask, &par);
    /* A worker's message stayed on its thread: give the caller one. */
    for (size_t k = 0; rc == CAIRN_OK && k < nSeg; k++)
      if (aLane[k].rc) rc = cairnErr(aLane[k].rc, "fastcdc: segment %zu of %zu: out of memory", k, nSeg);
    /* Join: lane 0 is true. Each later lane is adopted from the first cut it shares with the
    ** true sequence; until then a sync lane continues the true sequence. */
    if (rc == CAIRN_OK) rc = appendChunks(&aOut, &nOut, &nOutAlloc, aLane[0].aChunk, aLane[0].nChunk);
    size_t k = 1;
    while (rc == CAIRN_OK && k < nSeg) {
      size_t iEnd = nOut ? (size_t)(aOut[nOut - 1].iOff + aOut[nOut - 1].n) : 0;
      /* Does iEnd start a chunk of some lane j >= k? */
      size_t jHit = SIZE_MAX, iHit = 0;
      for (size_t j = k; j < nSeg && jHit == SIZE_MAX; j++) {
        CdcLane *Lj = &aLane[j];
        if (iEnd == Lj->iStart) jHit = j, iHit = 0;
        for (size_t i = 0; jHit == SIZE_MAX && i < Lj->nChunk; i++)
          if (Lj->aChunk[i].iOff + Lj->aChunk[i].n == iEnd) jHit = j, iHit = i + 1;
      }
      if (jHit != SIZE_MAX) {
        CdcLane *Lj = &aLane[jHit];
        rc = appendChunks(&aOut, &nOut, &nOutAlloc, Lj->aChunk + iHit, Lj->nChunk - iHit);
        k = jHit + 1;
        continue;
      }
      /* Not yet in step: continue the true sequence until a cut lands on a later lane's. */
      size_t nSync = 0;
      for (size_t j = k; j < nSeg; j++) nSync += aLane[j].nChunk + 1;
      cairnFree(aSync);
      aSync = cairnMallocArray(nSync, sizeof(uint64_t));
      if (!aSync) {
        rc = cairnErr(CAIRN_NOMEM, "fastcdc: out of memory");
        break;
      }
      nSync = 0;
      for (size_t j = k; j < nSeg; j++) {
        aSync[nSync++] = aLane[j].iStart;
        for (size_t i = 0; i < aLane[j].nChunk; i++) aSync[nSync++] = aLane[j].aChunk[i].iOff + aLane[j].aChunk[i].n;
      }
      /* Lane ends are increasing within and across lanes except where lanes overlap: sort. */
      for (size_t i = 1; i < nSync; i++) {
        uint64_t v = aSync[i];
        size_t q = i;
        while (q > 0 && aSync[q - 1] > v) aSync[q] = aSync[q - 1], q--;
        aSync[q] = v;
      }
      CdcLane *Ls = &aLane[nSeg];
      Ls->iStart = iEnd;
      Ls->iStop = SIZE_MAX;
      Ls->aSync = aSync;
      Ls->nSync = nSync;
      Ls->nChunk = 0;
      laneRun(Ls);
      rc = Ls->rc;
      if (rc == CAIRN_OK) rc = appendChunks(&aOut, &nOut, &nOutAlloc, Ls->aChunk, Ls->nChunk);
      if (rc == CAIRN_OK && (Ls->nChunk == 0 || !syncHit(Ls, Ls->iEnd))) break; /* ran to the end */
    }
  }
  for (size_t k = 0; k <= nSeg; k++) cairnFree(aLane[k].aChunk);
  cairnFree(aSync);
  cairnFree(aCand);
  if (rc != CAIRN_OK) {
    cairnFree(aOut);
    return rc;
  }
  *paChunk = aOut;
  *pnChunk = nOut;
  if (pnUsed) *pnUsed = nOut ? (size_t)(aOut[nOut - 1].iOff + aOut[nOut - 1].n) : 0;
  return CAIRN_OK;
}
