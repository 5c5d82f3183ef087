/*
** 2026-12-02
**
** core/mem/near.c - the index of near-duplicate checks on write (cairn_mem_put with a
** nearThreshold): random-hyperplane LSH (SimHash, Charikar 2002) over the store's vectors, so
** that a check looks at the rows that share a bucket with the new vector instead of all rows.
**
** Hyperplanes: instead of NEAR_BITS * NEAR_TABLES dense random vectors (dim multiply-adds per
** bit), the vector is zero-padded to P = a power of two >= max(dim, bits), rotated by three
** rounds of random signs and a Walsh-Hadamard transform (H D3 H D2 H D1, the structured rotation
** of Andoni et al. 2015), and the signs of its first bits coordinates are the bits: 3 P log2(P)
** additions per vector, the bits those of orthogonal hyperplanes. Two vectors at angle a agree
** on one bit with probability 1 - a / pi.
**
** Tables: NEAR_TABLES tables keyed by NEAR_BITS bits each; a row is a candidate when it agrees
** with the query on all bits of one table. For cosine s at the threshold, p = 1 - acos(s) / pi,
** a row is found with probability 1 - (1 - p^12)^32: 0.962 at s = 0.85, 0.996 at 0.9, 0.99999
** at 0.95 (approximate, as every LSH: tests/core/test_mem_near.c measures it against the exact
** scan). Below NEAR_INDEX_MIN the check scans every row (exact).
**
** Built lazily: opening a store builds nothing. The first NEAR_SCANS_FIRST checks of a handle
** scan (a CLI `mem add` is one check: a scan of n rows costs less than building, which hashes
** every row once); the next one builds the index, and later checks hash the rows added since
** (lazy catch-up, no hook in the add path). Superseded and forgotten rows stay in the chains and
** are skipped by the live bitmap. A rollback (store_undo.c) below the rows indexed drops it.
** In memory only: nothing of it is in the file.
*/
#include <math.h>

#include "mem_int.h"

#define NEAR_BITS 12
#define NEAR_TABLES 32
#define NEAR_NB (NEAR_BITS * NEAR_TABLES)
#define NEAR_BUCKETS (1u << NEAR_BITS)
#define NEAR_SCANS_FIRST 32

struct MemNear {
  uint32_t dim, P;
  uint8_t *aSign;    /* 3 * P: 1 = flip the sign in round k */
  float *aWork;      /* P */
  size_t n, nAlloc;  /* rows indexed: [0, n) */
  uint32_t *aHead;   /* NEAR_TABLES * NEAR_BUCKETS: newest row + 1 of the bucket, 0 = empty */
  uint32_t *aNext;   /* nAlloc * NEAR_TABLES: the next older row + 1 of row r's bucket in table t */
  uint32_t *aStamp;  /* nAlloc: the check that last looked at the row */
  uint32_t stamp;
  uint64_t nCheck, nCompared; /* checks through the index, rows they compared (tests, bench) */
};

static void fwht(float *a, uint32_t n) {
  for (uint32_t len = 1; len < n; len <<= 1)
    for (uint32_t i = 0; i < n; i += 2 * len)
      for (uint32_t j = i; j < i + len; j++) {
        float u = a[j], v = a[j + len];
        a[j] = u + v, a[j + len] = u - v;
      }
}

/* The NEAR_TABLES bucket keys of x. */
static void nearCodes(MemNear *p, const float *x, uint32_t *aKey) {
  float *w = p->aWork;
  memcpy(w, x, (size_t)p->dim * 4);
  memset(w + p->dim, 0, (size_t)(p->P - p->dim) * 4);
  for (int k = 0; k < 3; k++) {
    const uint8_t *s = p->aSign + (size_t)k * p->P;
    for (uint32_t j = 0; j < p->P; j++)
      if (s[j]) w[j] = -w[j];
    fwht(w, p->P);
  }
  for (uint32_t t = 0; t < NEAR_TABLES; t++) {
    uint32_t key = 0;
    for (uint32_t b = 0; b < NEAR_BITS; b++) key = key << 1 | (w[t * NEAR_BITS + b] >= 0);
    aKey[t] = key;
  }
}

void cairnMemNearFree(cairn_mem *m) {
  MemNear *p = m->pNear;
  if (!p) return;
  cairnFree(p->aSign), cairnFree(p->aWork), cairnFree(p->aHead), cairnFree(p->aNext), cairnFree(p->aStamp);
  cairnFree(p);
  m->pNear = NULL;
}

static int nearCreate(cairn_mem *m) {
  MemNear *p = cairnMallocZero(sizeof *p);
  if (!p) return cairnErr(CAIRN_NOMEM, "mem_put: near-duplicate index");
  p->dim = m->dim;
  p->P = 1;
  while (p->P < m->dim || p->P < NEAR_NB) p->P <<= 1;
  p->aSign = cairnMalloc((size_t)3 * p->P);
  p->aWork = cairnMallocArray(p->P, 4);
  p->aHead = cairnMallocZero((size_t)NEAR_TABLES * NEAR_BUCKETS * 4);
  m->pNear = p;
  if (!p->aSign || !p->aWork || !p->aHead) {
    cairnMemNearFree(m);
    return cairnErr(CAIRN_NOMEM, "mem_put: near-duplicate index");
  }
  uint64_t s = 0x6e6561722d647570ull; /* fixed: the same index for the same vectors */
  for (size_t j = 0; j < (size_t)3 * p->P; j++) {
    s += 0x9e3779b97f4a7c15ull;
    uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    p->aSign[j] = (uint8_t)((z ^ (z >> 31)) & 1);
  }
  return CAIRN_OK;
}

/* Hash rows [p->n, m->n) into the tables. */
static int nearCatchUp(cairn_mem *m) {
  MemNear *p = m->pNear;
  if (m->n > UINT32_MAX - 1) return cairnErr(CAIRN_RANGE, "mem_put: near-duplicate index of %zu rows", m->n);
  if (m->n > p->nAlloc) {
    size_t nA = p->nAlloc, nS = p->nAlloc;
    CAIRN_TRY(cairnArrayReserve(&p->aNext, &nA, m->n, (size_t)NEAR_TABLES * 4, 1024, "mem_put: near-duplicate index"));
    CAIRN_TRY(cairnArrayReserve(&p->aStamp, &nS, nA, 4, nA, "mem_put: near-duplicate index"));
    memset(p->aStamp + p->nAlloc, 0, (nS - p->nAlloc) * 4);
    p->nAlloc = nA < nS ? nA : nS;
  }
  uint32_t aKey[NEAR_TABLES];
  for (size_t r = p->n; r < m->n; r++) {
    nearCodes(p, m->vecs.aF32 + r * m->dim, aKey);
    for (uint32_t t = 0; t < NEAR_TABLES; t++) {
      uint32_t *h = &p->aHead[(size_t)t * NEAR_BUCKETS + aKey[t]];
      p->aNext[r * NEAR_TABLES + t] = *h;
      *h = (uint32_t)r + 1;
    }
  }
  p->n = m->n;
  return CAIRN_OK;
}

void cairnMemNearTruncate(cairn_mem *m, size_t n) {
  if (m->pNear && m->pNear->n > n) cairnMemNearFree(m); /* rebuilt at a later check */
}

/* The most similar live row of the scope (sid, uid, aid) among q's candidates; cosine. Returns
** CAIRN_NOTFOUND (no error set) when the index is not (yet) to be used: scan instead. */
int cairnMemNearIndexFind(cairn_mem *m, const float *q, float threshold, uint32_t sid, uint32_t uid, uint32_t aid, size_t *pRow, float *pSim) {
  if (m->textOnly || threshold < MEM_NEAR_INDEX_MIN) return CAIRN_NOTFOUND;
  if (!m->pNear) {
    if (m->nNearScan < NEAR_SCANS_FIRST) {
      m->nNearScan++;
      return CAIRN_NOTFOUND;
    }
    CAIRN_TRY(nearCreate(m));
  }
  CAIRN_TRY(nearCatchUp(m));
  MemNear *p = m->pNear;
  if (++p->stamp == 0) {
    memset(p->aStamp, 0, p->nAlloc * 4);
    p->stamp = 1;
  }
  uint32_t aKey[NEAR_TABLES];
  nearCodes(p, q, aKey);
  p->nCheck++;
  float qn = sqrtf(cairnMemDot(q, q, m->dim));
  for (uint32_t t = 0; t < NEAR_TABLES; t++) {
    for (uint32_t v = p->aHead[(size_t)t * NEAR_BUCKETS + aKey[t]]; v; v = p->aNext[(size_t)(v - 1) * NEAR_TABLES + t]) {
      size_t r = v - 1;
      if (p->aStamp[r] == p->stamp) continue;
      p->aStamp[r] = p->stamp;
      p->nCompared++;
      if (!memRowLive(m, r) || m->aSession[r] != sid || m->aUser[r] != uid || m->aAgent[r] != aid) continue;
      const float *x = m->vecs.aF32 + r * m->dim;
      float d = cairnMemDot(q, x, m->dim), xn = sqrtf(m->vecs.aSqNorm[r]);
      float s = qn > 0 && xn > 0 ? d / (qn * xn) : 0;
      if (s > *pSim || (s == *pSim && r < *pRow)) *pSim = s, *pRow = r;
    }
  }
  return CAIRN_OK;
}

void cairnMemNearCounts(const cairn_mem *m, uint64_t *pnCheck, uint64_t *pnCompared) {
  *pnCheck = m->pNear ? m->pNear->nCheck : 0;
  *pnCompared = m->pNear ? m->pNear->nCompared : 0;
}
