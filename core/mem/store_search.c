/*
** 2026-12-02
**
** core/mem/store_search.c - the one query of the memory store (cairn_mem_search): the vector
** and BM25 candidate lists, their fusion (RRF or weighted), recency, and the hits.
*/
#include <math.h>

#include "mem_int.h"

/* ------------------------------------------------------------------ search */
typedef struct Cand {
  uint32_t row;
  float v, b;   /* raw scores (NaN = not in that list) */
  int rv, rb;   /* ranks, 1-based (0 = absent) */
  float score;
} Cand;

static int cmpCand(const void *pa, const void *pb) {
  const Cand *a = pa, *b = pb;
  if (a->score != b->score) return a->score > b->score ? -1 : 1;
  return a->row < b->row ? -1 : a->row > b->row;
}

static int cmpCandRow(const void *pa, const void *pb) {
  const Cand *a = pa, *b = pb;
  return a->row < b->row ? -1 : a->row > b->row;
}

static int vectorTopK(cairn_mem *m, const cairn_mem_query *q, const float *qv, const MemBits *pb, MemTopK *t) {
  int kind = q->vindex;
  uint32_t nRerank = q->rerank ? q->rerank : CAIRN_MAX(4 * t->k, 64u);
  if (kind == CAIRN_VINDEX_AUTO) kind = m->ivf.kind ? m->ivf.kind : CAIRN_VINDEX_FLAT;
  switch (kind) {
    case CAIRN_VINDEX_FLAT:
    case CAIRN_VINDEX_F16:
    case CAIRN_VINDEX_INT8: return cairnVecSearch(&m->vecs, qv, kind, nRerank, pb, t);
    case CAIRN_VINDEX_IVF:
    case CAIRN_VINDEX_IVFPQ:
      if (m->ivf.kind != kind) return cairnErr(CAIRN_MISUSE, "search: vindex %d asked, but the built index is %d", kind, m->ivf.kind);
      return cairnIvfSearch(&m->ivf, &m->vecs, qv, q->nprobe ? q->nprobe : 8, nRerank, pb, t);
    default: return cairnErr(CAIRN_MISUSE, "search: unknown vindex %d", q->vindex);
  }
}

int cairn_mem_search(cairn_mem *m, const cairn_mem_query *q, cairn_mem_hit *aHit, uint32_t *pnHit) {
  if (!m || !q || !aHit || !pnHit) return cairnErr(CAIRN_MISUSE, "mem_search: NULL argument");
  *pnHit = 0;
  uint32_t k = q->k ? q->k : 10;
  if (k > CAIRN_MEM_MAX_K) return cairnErr(CAIRN_RANGE, "mem_search: k %u > %u", k, CAIRN_MEM_MAX_K);
  if (q->mode < CAIRN_MEM_AUTO || q->mode > CAIRN_MEM_HYBRID) return cairnErr(CAIRN_MISUSE, "mem_search: unknown mode %d", q->mode);
  if (q->fusion != CAIRN_FUSE_RRF && q->fusion != CAIRN_FUSE_WEIGHTED) return cairnErr(CAIRN_MISUSE, "mem_search: unknown fusion %d", q->fusion);
  int wantV = q->mode != CAIRN_MEM_BM25, wantB = q->mode != CAIRN_MEM_VECTOR;
  /* auto: hybrid when the caller brings the query's embedding (its model's), BM25 when the
  ** vector would be the built-in embedder's (mem.h CAIRN_MEM_AUTO: it only lowers BM25's recall) */
  if (q->mode == CAIRN_MEM_AUTO && !q->aEmbedding) wantV = 0;
  if (m->textOnly) {
    if (q->mode == CAIRN_MEM_VECTOR || q->aEmbedding) return cairnErr(CAIRN_MISUSE, "mem_search: this store is text-only (bm25)");
    wantV = 0; /* hybrid on a text-only store is BM25 */
  }
  size_t nQText = q->zText ? strlen(q->zText) : 0;
  if (nQText > CAIRN_MEM_MAX_TEXT) return cairnErr(CAIRN_RANGE, "mem_search: query of %zu bytes > %u", nQText, CAIRN_MEM_MAX_TEXT);
  if (wantB && !nQText) {
    if (q->mode == CAIRN_MEM_BM25 || !wantV) return cairnErr(CAIRN_MISUSE, "mem_search: bm25 needs query text");
    wantB = 0; /* hybrid with only a vector: vector alone */
  }
  if (wantV && !q->aEmbedding && m->zModel[0]) {
    /* the built-in embedder's query vector would not match the model's: BM25 alone, or an error */
    if (q->mode == CAIRN_MEM_VECTOR)
      return cairnErr(CAIRN_MISUSE, "mem_search: the store's embeddings come from model '%s': pass the query's embedding", m->zModel);
    wantV = 0;
    if (!nQText) return cairnErr(CAIRN_MISUSE, "mem_search: no query text and no query embedding");
  }
  if (wantV && !q->aEmbedding && !nQText) return cairnErr(CAIRN_MISUSE, "mem_search: vector search needs query text or an embedding");
  if (q->aEmbedding && q->nEmbedding != m->dim)
    return cairnErr(CAIRN_MISUSE, "mem_search: query embedding has %u dimensions, the store %u", q->nEmbedding, m->dim);
  float k1 = q->bm25K1 > 0 ? q->bm25K1 : 1.2f, bb = q->bm25B > 0 ? q->bm25B : 0.75f;
  if (!memIsFinite(k1) || !memIsFinite(bb) || bb > 1) return cairnErr(CAIRN_RANGE, "mem_search: bm25 k1/b out of range");
  float rrfK = q->rrfK > 0 ? q->rrfK : 60.0f;
  float wv = q->wVector, wb = q->wBm25;
  if (wv == 0 && wb == 0) wv = wb = 0.5f;
  float rw = q->recencyWeight, half = q->recencyHalfLifeH > 0 ? q->recencyHalfLifeH : 168.0f;
  if (!memIsFinite(rw) || !memIsFinite(wv) || !memIsFinite(wb) || !memIsFinite(rrfK) || !memIsFinite(half))
    return cairnErr(CAIRN_RANGE, "mem_search: non-finite weight");
  if (m->n == 0) return CAIRN_OK;

  float *qv = NULL;
  if (wantV) {
    qv = cairnMallocArray(m->dim, 4);
    if (!qv) return cairnErr(CAIRN_NOMEM, "mem_search: out of memory");
    if (q->aEmbedding) {
      double sq = 0;
      for (uint32_t j = 0; j < m->dim; j++) {
        if (!memIsFinite(q->aEmbedding[j])) {
          cairnFree(qv);
          return cairnErr(CAIRN_TYPE, "mem_search: query embedding[%u] is NaN or infinite", j);
        }
        qv[j] = q->aEmbedding[j];
        sq += (double)qv[j] * qv[j];
      }
      if (m->metric == CAIRN_METRIC_COSINE && sq > 0)
        for (uint32_t j = 0; j < m->dim; j++) qv[j] = (float)(qv[j] / sqrt(sq));
    } else {
      int rc = cairn_mem_embed(q->zText, nQText, qv, m->dim);
      if (rc) {
        cairnFree(qv);
        return rc;
      }
    }
  }
  MemBits bits;
  int all;
  int rc = cairnMemFilterBits(m, q->pFilter, q->asOfMs, &bits, &all);
  if (rc) {
    cairnFree(qv);
    return rc;
  }
  /* one list alone and no recency: its top k is the answer; otherwise candidates to fuse */
  int fuse = (wantV && wantB) || rw != 0;
  uint32_t nCand = fuse ? CAIRN_MIN(CAIRN_MAX(k * 5, 100u), (uint32_t)CAIRN_MIN(m->n, (size_t)UINT32_MAX)) : k;
  nCand = CAIRN_MAX(nCand, k);
  MemTopK tv, tb;
  memset(&tv, 0, sizeof tv);
  memset(&tb, 0, sizeof tb);
  Cand *aC = NULL;
  if (wantV) {
    rc = cairnTopKInit(&tv, nCand);
    if (rc == CAIRN_OK) rc = vectorTopK(m, q, qv, all ? NULL : &bits, &tv);
    cairnTopKSort(&tv);
  }
  if (rc == CAIRN_OK && wantB) {
    rc = cairnTopKInit(&tb, nCand);
    if (rc == CAIRN_OK) rc = cairnBm25Search(&m->bm25, q->zText, nQText, k1, bb, all ? NULL : &bits, 1, &tb);
    cairnTopKSort(&tb);
  }
  uint32_t nC = 0;
  if (rc == CAIRN_OK) {
    aC = cairnMallocArray((size_t)tv.n + tb.n + 1, sizeof(Cand));
    if (!aC) rc = cairnErr(CAIRN_NOMEM, "mem_search: out of memory");
  }
  if (rc == CAIRN_OK) {
    for (uint32_t i = 0; i < tv.n; i++) aC[nC++] = (Cand){tv.aIdx[i], tv.aScore[i], NAN, (int)i + 1, 0, 0};
    /* rows of the vector list sorted, so each BM25 hit finds its partner by binary search */
    uint32_t nV = nC;
    qsort(aC, nV, sizeof(Cand), cmpCandRow);
    for (uint32_t i = 0; i < tb.n; i++) {
      uint32_t lo = 0, hi = nV;
      while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (aC[mid].row < tb.aIdx[i]) lo = mid + 1;
        else hi = mid;
      }
      if (lo < nV && aC[lo].row == tb.aIdx[i]) aC[lo].b = tb.aScore[i], aC[lo].rb = (int)i + 1;
      else aC[nC++] = (Cand){tb.aIdx[i], NAN, tb.aScore[i], 0, (int)i + 1, 0};
    }
    float vMin = INFINITY, vMax = -INFINITY, bMax = 0;
    for (uint32_t c = 0; c < nC; c++) {
      if (aC[c].rv) vMin = fminf(vMin, aC[c].v), vMax = fmaxf(vMax, aC[c].v);
      if (aC[c].rb) bMax = fmaxf(bMax, aC[c].b);
    }
    int64_t now = q->nowMs ? q->nowMs : m->maxEvent;
    for (uint32_t c = 0; c < nC; c++) {
      Cand *x = &aC[c];
      float s;
      if (wantV && wantB) {
        if (q->fusion == CAIRN_FUSE_RRF) s = (x->rv ? 1.0f / (rrfK + (float)x->rv) : 0) + (x->rb ? 1.0f / (rrfK + (float)x->rb) : 0);
        else {
          float nv = x->rv ? (vMax > vMin ? (x->v - vMin) / (vMax - vMin) : 1) : 0;
          float nb = x->rb && bMax > 0 ? x->b / bMax : 0; /* BM25 >= 0: scale by the best, keep 0 for absent */
          s = wv * nv + wb * nb;
        }
      } else s = wantV ? x->v : x->b;
      if (rw != 0) {
        double ageH = (double)(now - m->aEvent[x->row]) / 3.6e6;
        if (ageH < 0) ageH = 0;
        s += rw * (float)exp2(-ageH / half);
      }
      x->score = s;
    }
    qsort(aC, nC, sizeof(Cand), cmpCand);
    uint32_t nOut = CAIRN_MIN(nC, k);
    for (uint32_t i = 0; i < nOut; i++) {
      Cand *x = &aC[i];
      aHit[i].id = m->aHead[x->row];
      aHit[i].version = (uint64_t)x->row + 1;
      aHit[i].score = x->score;
      /* vector similarity is cheap to give exactly even for BM25-only hits */
      aHit[i].vscore = wantV ? (x->rv ? x->v : cairnVecScore(&m->vecs, x->row, qv, 0)) : NAN;
      if (wantV && !x->rv && m->metric == CAIRN_METRIC_L2) {
        double qsq = 0;
        for (uint32_t j = 0; j < m->dim; j++) qsq += (double)qv[j] * qv[j];
        aHit[i].vscore -= (float)qsq;
      }
      aHit[i].bscore = wantB ? (x->rb ? x->b : NAN) : NAN;
    }
    *pnHit = nOut;
    if (q->touch)
      for (uint32_t i = 0; i < nOut && rc == CAIRN_OK; i++) rc = cairn_mem_touch(m, aHit[i].id);
  }
  cairnFree(aC);
  cairnTopKFree(&tv);
  cairnTopKFree(&tb);
  cairnFree(bits.a);
  cairnFree(qv);
  return rc;
}
