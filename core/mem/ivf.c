/*
** 2026-11-29
**
** core/mem/ivf.c - approximate vector indexes of the memory store: IVF (k-means inverted
** lists, scanned with the int8 codes) and IVF-PQ (the same lists, 8-bit product-quantisation
** codes scored through per-query lookup tables), both followed by an exact f32 re-rank of a
** candidate set.
**
** Training: Lloyd's k-means on a deterministic sample (seeded shuffle); the first nlist sample
** points seed the centroids and an empty list is reseeded with a sample point. For cosine and
** inner-product stores the centroids are normalised (spherical k-means) and rows go to the
** centroid of largest dot product; for L2 to the nearest centroid. Assignment of rows runs
** over cairnParallelFor. PQ codebooks are trained on the raw vectors, 256 sub-centroids per
** sub-space (L2 k-means), and score by inner product or negative squared distance.
**
** Rows added after training are assigned to the trained centroids (no retraining); the
** grouping of rows by list is rebuilt lazily before the next search.
*/
#include <math.h>

#include "mem_int.h"

static uint64_t rngNext(uint64_t *s) {
  uint64_t x = *s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *s = x;
}

/* score of a row for centroid i given dot = x.c_i */
static inline float centScore(int metric, float dot, float cSq) {
  return metric == CAIRN_METRIC_L2 ? 2 * dot - cSq : dot;
}

typedef struct AssignJob {
  const float *aX;      /* rows to assign, row-major dim */
  const uint32_t *aRowIdx; /* optional indirection into aX */
  size_t n;
  uint32_t dim, nlist;
  const float *aCent, *aCentSq;
  int metric;
  uint32_t *aOut;
  float **aScratch;     /* per worker: nlist floats */
  size_t blk;
} AssignJob;

static void assignTask(void *pArg, size_t iTask, unsigned iWorker) {
  AssignJob *J = pArg;
  const MemKernels *K = cairnMemKernels();
  float *s = J->aScratch[iWorker];
  size_t r0 = iTask * J->blk, r1 = CAIRN_MIN(J->n, r0 + J->blk);
  for (size_t r = r0; r < r1; r++) {
    size_t src = J->aRowIdx ? J->aRowIdx[r] : r;
    K->xDotF32(J->aCent, J->nlist, J->dim, J->aX + src * J->dim, s);
    uint32_t best = 0;
    float bs = -INFINITY;
    for (uint32_t c = 0; c < J->nlist; c++) {
      float v = centScore(J->metric, s[c], J->aCentSq[c]);
      if (v > bs) bs = v, best = c;
    }
    J->aOut[r] = best;
  }
}

static int assignRows(const float *aX, const uint32_t *aRowIdx, size_t n, uint32_t dim, const float *aCent,
                      const float *aCentSq, uint32_t nlist, int metric, uint32_t *aOut) {
  unsigned nW = cairnConcurrency();
  AssignJob J = {aX, aRowIdx, n, dim, nlist, aCent, aCentSq, metric, aOut, NULL, 0};
  J.aScratch = cairnMallocZero(sizeof(float *) * nW);
  int rc = J.aScratch ? CAIRN_OK : cairnErr(CAIRN_NOMEM, "ivf: scratch");
  for (unsigned w = 0; rc == CAIRN_OK && w < nW; w++) {
    J.aScratch[w] = cairnMallocArray(nlist, sizeof(float));
    if (!J.aScratch[w]) rc = cairnErr(CAIRN_NOMEM, "ivf: scratch");
  }
  if (rc == CAIRN_OK && n) {
    size_t nTask = CAIRN_MIN(n, (size_t)nW * 8);
    J.blk = (n + nTask - 1) / nTask;
    nTask = (n + J.blk - 1) / J.blk;
    rc = cairnParallelFor(nTask, assignTask, &J);
  }
  if (J.aScratch)
    for (unsigned w = 0; w < nW; w++) cairnFree(J.aScratch[w]);
  cairnFree(J.aScratch);
  return rc;
}

static void normaliseRows(float *a, size_t n, uint32_t dim) {
  for (size_t i = 0; i < n; i++) {
    double sq = 0;
    for (uint32_t j = 0; j < dim; j++) sq += (double)a[i * dim + j] * a[i * dim + j];
    if (sq > 0) {
      float inv = (float)(1 / sqrt(sq));
      for (uint32_t j = 0; j < dim; j++) a[i * dim + j] *= inv;
    }
  }
}

/* k-means over aX (n rows of dim), nC centroids into aCent. spherical: normalise centroids. */
static int kmeans(const float *aX, size_t n, uint32_t dim, uint32_t nC, uint32_t nIter, int metric, uint64_t *pSeed,
                  float *aCent, float *aCentSq) {
  uint32_t *aAs = cairnMallocArray(n, 4);
  double *aSum = cairnMallocArray((size_t)nC * dim, sizeof(double));
  uint32_t *aCnt = cairnMallocArray(nC, 4);
  int rc = CAIRN_OK;
  if (!aAs || !aSum || !aCnt) rc = cairnErr(CAIRN_NOMEM, "k-means: %u centroids of %u dims", nC, dim);
  int spherical = metric != CAIRN_METRIC_L2;
  if (rc == CAIRN_OK) {
    for (uint32_t c = 0; c < nC; c++) memcpy(aCent + (size_t)c * dim, aX + (size_t)(c % n) * dim, (size_t)dim * 4);
    if (spherical) normaliseRows(aCent, nC, dim);
  }
  for (uint32_t it = 0; rc == CAIRN_OK && it <= nIter; it++) {
    for (uint32_t c = 0; c < nC; c++) aCentSq[c] = cairnMemDot(aCent + (size_t)c * dim, aCent + (size_t)c * dim, dim);
    rc = assignRows(aX, NULL, n, dim, aCent, aCentSq, nC, spherical ? CAIRN_METRIC_IP : CAIRN_METRIC_L2, aAs);
    if (rc || it == nIter) break;
    memset(aSum, 0, (size_t)nC * dim * sizeof(double));
    memset(aCnt, 0, (size_t)nC * 4);
    for (size_t i = 0; i < n; i++) {
      double *s = aSum + (size_t)aAs[i] * dim;
      const float *x = aX + i * dim;
      for (uint32_t j = 0; j < dim; j++) s[j] += x[j];
      aCnt[aAs[i]]++;
    }
    for (uint32_t c = 0; c < nC; c++) {
      float *ct = aCent + (size_t)c * dim;
      if (aCnt[c] == 0) { /* reseed an empty list with a random point */
        memcpy(ct, aX + (size_t)(rngNext(pSeed) % n) * dim, (size_t)dim * 4);
        continue;
      }
      for (uint32_t j = 0; j < dim; j++) ct[j] = (float)(aSum[(size_t)c * dim + j] / aCnt[c]);
    }
    if (spherical) normaliseRows(aCent, nC, dim);
  }
  if (rc == CAIRN_OK)
    for (uint32_t c = 0; c < nC; c++) aCentSq[c] = cairnMemDot(aCent + (size_t)c * dim, aCent + (size_t)c * dim, dim);
  cairnFree(aAs), cairnFree(aSum), cairnFree(aCnt);
  return rc;
}

void cairnIvfFree(MemIvf *ix) {
  cairnFree(ix->aCent), cairnFree(ix->aCentSq), cairnFree(ix->aPq), cairnFree(ix->aAssign), cairnFree(ix->aCode);
  cairnFree(ix->aListStart), cairnFree(ix->aListRow), cairnFree(ix->aListCode);
  memset(ix, 0, sizeof(*ix));
}

/* PQ code of one vector. */
static void pqEncode(const MemIvf *ix, const float *x, uint8_t *code) {
  for (uint32_t j = 0; j < ix->m; j++) {
    const float *xs = x + (size_t)j * ix->dsub, *cb = ix->aPq + (size_t)j * 256 * ix->dsub;
    float best = INFINITY;
    uint32_t bi = 0;
    for (uint32_t c = 0; c < 256; c++) {
      float d = 0;
      for (uint32_t t = 0; t < ix->dsub; t++) {
        float u = xs[t] - cb[(size_t)c * ix->dsub + t];
        d += u * u;
      }
      if (d < best) best = d, bi = c;
    }
    code[j] = (uint8_t)bi;
  }
}

typedef struct PqJob {
  const MemIvf *ix;
  const MemVecs *v;
  size_t r0, blk, n;
} PqJob;
static void pqTask(void *pArg, size_t iTask, unsigned iWorker) {
  (void)iWorker;
  PqJob *J = pArg;
  size_t a = J->r0 + iTask * J->blk, b = CAIRN_MIN(J->r0 + J->n, a + J->blk);
  for (size_t r = a; r < b; r++) pqEncode(J->ix, J->v->aF32 + r * J->v->dim, J->ix->aCode + r * J->ix->m);
}

int cairnIvfAddRows(MemIvf *ix, const MemVecs *v) {
  if (!ix->kind || v->n <= ix->nAssigned) return CAIRN_OK;
  size_t n0 = ix->nAssigned, n = v->n - n0;
  if (v->n > ix->nAlloc) {
    /* aAssign and (IVFPQ) aCode share the capacity nAlloc rows */
    size_t nA = ix->nAlloc, c = ix->nAlloc;
    CAIRN_TRY(cairnArrayReserve(&ix->aAssign, &nA, v->n, 4, 1, "ivf: rows"));
    if (ix->kind == CAIRN_VINDEX_IVFPQ) CAIRN_TRY(cairnArrayReserve(&ix->aCode, &c, nA, ix->m, 1, "ivf: rows"));
    ix->nAlloc = nA;
  }
  CAIRN_TRY(assignRows(v->aF32 + n0 * v->dim, NULL, n, v->dim, ix->aCent, ix->aCentSq, ix->nlist, ix->metric,
                       ix->aAssign + n0));
  if (ix->kind == CAIRN_VINDEX_IVFPQ) {
    unsigned nW = cairnConcurrency();
    PqJob J = {ix, v, n0, 0, n};
    size_t nTask = CAIRN_MIN(n, (size_t)nW * 8);
    J.blk = (n + nTask - 1) / nTask;
    nTask = (n + J.blk - 1) / J.blk;
    CAIRN_TRY(cairnParallelFor(nTask, pqTask, &J));
  }
  ix->nAssigned = v->n;
  ix->dirty = 1;
  return CAIRN_OK;
}

int cairnIvfTrain(MemIvf *ix, const MemVecs *v, const cairn_mem_index_config *cfg) {
  if (cfg->kind != CAIRN_VINDEX_IVF && cfg->kind != CAIRN_VINDEX_IVFPQ)
    return cairnErr(CAIRN_MISUSE, "build_index: kind %d is not IVF (%d) or IVFPQ (%d)", cfg->kind, CAIRN_VINDEX_IVF, CAIRN_VINDEX_IVFPQ);
  if (v->n < 1) return cairnErr(CAIRN_MISUSE, "build_index: the store has no vectors to train on");
  uint32_t dim = v->dim;
  uint32_t nlist = cfg->nlist ? cfg->nlist : (uint32_t)CAIRN_MAX(1.0, floor(sqrt((double)v->n)));
  if (nlist > v->n || nlist > 65536) return cairnErr(CAIRN_RANGE, "build_index: nlist %u for %zu vectors (max min(n, 65536))", nlist, v->n);
  uint32_t m = 0, dsub = 0;
  if (cfg->kind == CAIRN_VINDEX_IVFPQ) {
    m = cfg->pqM ? cfg->pqM : CAIRN_MAX(1u, dim / 8);
    if (m == 0 || dim % m != 0) return cairnErr(CAIRN_RANGE, "build_index: pqM %u does not divide dim %u", m, dim);
    dsub = dim / m;
  }
  uint32_t nIter = cfg->nIter ? cfg->nIter : 10;
  if (nIter > 1000) return cairnErr(CAIRN_RANGE, "build_index: nIter %u > 1000", nIter);
  size_t nTrain = cfg->nTrain ? cfg->nTrain : CAIRN_MIN(v->n, (size_t)nlist * 64);
  nTrain = CAIRN_MIN(CAIRN_MAX(nTrain, (size_t)nlist), v->n);
  uint64_t seed = cfg->seed ? cfg->seed : 0x5eed;

  MemIvf nx;
  memset(&nx, 0, sizeof nx);
  nx.kind = cfg->kind, nx.dim = dim, nx.nlist = nlist, nx.m = m, nx.dsub = dsub, nx.metric = v->metric;
  /* sample: a seeded partial Fisher-Yates shuffle of the row numbers */
  uint32_t *aPerm = cairnMallocArray(v->n, 4);
  float *aS = cairnMallocArray(nTrain, (size_t)dim * 4);
  nx.aCent = cairnMallocArray(nlist, (size_t)dim * 4);
  nx.aCentSq = cairnMallocArray(nlist, 4);
  int rc = (aPerm && aS && nx.aCent && nx.aCentSq) ? CAIRN_OK : cairnErr(CAIRN_NOMEM, "build_index: training sample of %zu", nTrain);
  if (rc == CAIRN_OK) {
    for (size_t i = 0; i < v->n; i++) aPerm[i] = (uint32_t)i;
    for (size_t i = 0; i < nTrain; i++) {
      size_t j = i + (size_t)(rngNext(&seed) % (v->n - i));
      uint32_t t = aPerm[i];
      aPerm[i] = aPerm[j], aPerm[j] = t;
      memcpy(aS + i * dim, v->aF32 + (size_t)aPerm[i] * dim, (size_t)dim * 4);
    }
    rc = kmeans(aS, nTrain, dim, nlist, nIter, v->metric, &seed, nx.aCent, nx.aCentSq);
  }
  if (rc == CAIRN_OK && m) {
    /* PQ codebooks per sub-space, trained on at most 16384 sample rows */
    size_t nPq = CAIRN_MIN(nTrain, (size_t)16384);
    uint32_t nC = 256;
    nx.aPq = cairnMallocArray((size_t)m * 256, (size_t)dsub * 4);
    float *aSub = cairnMallocArray(CAIRN_MAX(nPq, (size_t)256), (size_t)dsub * 4);
    float *aSubSq = cairnMallocArray(256, 4);
    if (!nx.aPq || !aSub || !aSubSq) rc = cairnErr(CAIRN_NOMEM, "build_index: PQ codebooks");
    for (uint32_t j = 0; rc == CAIRN_OK && j < m; j++) {
      /* fewer points than 256: repeat them (codes then just reuse the same centroids) */
      size_t nP = CAIRN_MAX(nPq, (size_t)nC);
      for (size_t i = 0; i < nP; i++) memcpy(aSub + i * dsub, aS + (i % nPq) * dim + (size_t)j * dsub, (size_t)dsub * 4);
      rc = kmeans(aSub, nP, dsub, nC, nIter, CAIRN_METRIC_L2, &seed, nx.aPq + (size_t)j * 256 * dsub, aSubSq);
    }
    cairnFree(aSub), cairnFree(aSubSq);
  }
  cairnFree(aPerm), cairnFree(aS);
  if (rc == CAIRN_OK) rc = cairnIvfAddRows(&nx, v);
  if (rc) {
    cairnIvfFree(&nx);
    return rc;
  }
  cairnIvfFree(ix);
  *ix = nx;
  return CAIRN_OK;
}

/* Group rows by list (counting sort), with PQ codes copied into list order. */
static int ivfRegroup(MemIvf *ix) {
  uint32_t *aStart = cairnMallocZero(((size_t)ix->nlist + 1) * 4);
  uint32_t *aRow = cairnMallocArray(CAIRN_MAX(ix->nAssigned, (size_t)1), 4);
  uint8_t *aCode = ix->m ? cairnMallocArray(CAIRN_MAX(ix->nAssigned, (size_t)1), ix->m) : NULL;
  if (!aStart || !aRow || (ix->m && !aCode)) {
    cairnFree(aStart), cairnFree(aRow), cairnFree(aCode);
    return cairnErr(CAIRN_NOMEM, "ivf: lists of %zu rows", ix->nAssigned);
  }
  for (size_t r = 0; r < ix->nAssigned; r++) aStart[ix->aAssign[r] + 1]++;
  for (uint32_t c = 0; c < ix->nlist; c++) aStart[c + 1] += aStart[c];
  uint32_t *aFill = cairnMallocArray(ix->nlist, 4);
  if (!aFill) {
    cairnFree(aStart), cairnFree(aRow), cairnFree(aCode);
    return cairnErr(CAIRN_NOMEM, "ivf: lists");
  }
  memcpy(aFill, aStart, (size_t)ix->nlist * 4);
  for (size_t r = 0; r < ix->nAssigned; r++) {
    uint32_t at = aFill[ix->aAssign[r]]++;
    aRow[at] = (uint32_t)r;
    if (ix->m) memcpy(aCode + (size_t)at * ix->m, ix->aCode + r * ix->m, ix->m);
  }
  cairnFree(aFill);
  cairnFree(ix->aListStart), cairnFree(ix->aListRow), cairnFree(ix->aListCode);
  ix->aListStart = aStart, ix->aListRow = aRow, ix->aListCode = aCode;
  ix->dirty = 0;
  return CAIRN_OK;
}

int cairnIvfUpkeep(MemIvf *ix, const MemVecs *v) {
  CAIRN_TRY(cairnIvfAddRows(ix, v));
  return ix->dirty ? ivfRegroup(ix) : CAIRN_OK;
}

int cairnIvfSearch(MemIvf *ix, const MemVecs *v, const float *q, uint32_t nprobe, uint32_t nRerank,
                   const MemBits *pBits, MemTopK *t) {
  if (!ix->kind) return cairnErr(CAIRN_MISUSE, "search: no IVF index built (cairn_mem_build_index)");
  CAIRN_TRY(cairnIvfAddRows(ix, v));
  if (ix->dirty) CAIRN_TRY(ivfRegroup(ix));
  const MemKernels *K = cairnMemKernels();
  uint32_t dim = ix->dim;
  nprobe = CAIRN_MIN(CAIRN_MAX(nprobe, 1u), ix->nlist);
  float *aCs = cairnMallocArray(ix->nlist, 4);
  float *aLut = ix->m ? cairnMallocArray((size_t)ix->m * 256, 4) : NULL;
  int8_t *qI8 = cairnMalloc(dim);
  MemTopK probe, cand;
  memset(&probe, 0, sizeof probe);
  memset(&cand, 0, sizeof cand);
  int rc = (aCs && qI8 && (!ix->m || aLut)) ? CAIRN_OK : cairnErr(CAIRN_NOMEM, "ivf search: out of memory");
  if (rc == CAIRN_OK) rc = cairnTopKInit(&probe, nprobe);
  if (rc == CAIRN_OK) rc = cairnTopKInit(&cand, CAIRN_MAX(nRerank, t->k));
  if (rc == CAIRN_OK) {
    double qsq = 0;
    for (uint32_t j = 0; j < dim; j++) qsq += (double)q[j] * q[j];
    K->xDotF32(ix->aCent, ix->nlist, dim, q, aCs);
    for (uint32_t c = 0; c < ix->nlist; c++) cairnTopKPush(&probe, centScore(ix->metric, aCs[c], ix->aCentSq[c]), c);
    float qScale = cairnQuantI8(q, dim, qI8);
    if (ix->m) { /* lookup tables: sub-query against every sub-centroid */
      for (uint32_t j = 0; j < ix->m; j++) {
        const float *qs = q + (size_t)j * ix->dsub, *cb = ix->aPq + (size_t)j * 256 * ix->dsub;
        for (uint32_t c = 0; c < 256; c++) {
          float d = 0;
          if (ix->metric == CAIRN_METRIC_L2) {
            for (uint32_t u = 0; u < ix->dsub; u++) {
              float w = qs[u] - cb[(size_t)c * ix->dsub + u];
              d -= w * w;
            }
          } else {
            for (uint32_t u = 0; u < ix->dsub; u++) d += qs[u] * cb[(size_t)c * ix->dsub + u];
          }
          aLut[j * 256 + c] = d;
        }
      }
    }
    for (uint32_t p = 0; p < probe.n; p++) {
      uint32_t c = probe.aIdx[p];
      for (uint32_t at = ix->aListStart[c]; at < ix->aListStart[c + 1]; at++) {
        uint32_t r = ix->aListRow[at];
        if (!cairnBitTest(pBits, r)) continue;
        float s;
        if (ix->m) {
          const uint8_t *code = ix->aListCode + (size_t)at * ix->m;
          s = 0;
          for (uint32_t j = 0; j < ix->m; j++) s += aLut[j * 256 + code[j]];
        } else {
          int32_t d;
          K->xDotI8(v->aI8 + (size_t)r * dim, 1, dim, qI8, &d);
          s = (float)d * qScale * v->aI8Scale[r];
          if (ix->metric == CAIRN_METRIC_L2) s = 2 * s - v->aSqNorm[r] - (float)qsq;
        }
        cairnTopKPush(&cand, s, r);
      }
    }
    for (uint32_t i = 0; i < cand.n; i++) cairnTopKPush(t, cairnVecScore(v, cand.aIdx[i], q, (float)qsq), cand.aIdx[i]);
  }
  cairnTopKFree(&probe), cairnTopKFree(&cand);
  cairnFree(aCs), cairnFree(aLut), cairnFree(qI8);
  return rc;
}
