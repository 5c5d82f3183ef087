/*
** 2026-11-29
**
** core/mem/bm25.c - the BM25 inverted index of the memory store.
**
** Vocabulary: open addressing over 64-bit term hashes (term bytes compared on a hash match).
** Postings: per term, increasing row numbers with their term frequency, plus the largest tf
** and the shortest document of the term, which give a per-term score bound for pruning.
** Rows are only ever appended, so postings stay sorted without work.
**
** Scoring: Lucene's idf ln(1 + (N - df + 0.5) / (df + 0.5)) (never negative) times
** tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)); a query term repeated counts that many times.
**
** Top-k: MaxScore (Turtle & Flood 1995): terms sorted by their bound; the ones whose summed
** bounds cannot reach the current k-th score are "non-essential" and only probed for rows that
** the essential terms bring up and that could still make it. The exhaustive scorer is kept as
** the reference: tests check both give identical hits and scores, which holds because a
** candidate's final score is always summed in query-term order and pruning only drops rows
** whose bound is strictly below the k-th score (with a relative slack for float rounding).
*/
#include <math.h>

#include "mem_int.h"

#define BM25_MAX_QTERMS 256

static uint64_t termHash(const char *z, size_t n) { return cairnMemHash(z, n, 0x62d); }

static int vocabFind(const MemBm25 *b, const char *z, size_t n, uint64_t h, uint32_t *pSlot) {
  if (b->nSlot == 0) return -1;
  uint32_t mask = b->nSlot - 1, s = (uint32_t)h & mask;
  for (;;) {
    uint32_t v = b->aSlot[s];
    if (v == 0) {
      if (pSlot) *pSlot = s;
      return -1;
    }
    uint32_t t = v - 1;
    if (b->aTermHash[t] == h && b->aTermOff[t + 1] - b->aTermOff[t] == n && memcmp(b->zTerm + b->aTermOff[t], z, n) == 0)
      return (int)t;
    s = (s + 1) & mask;
  }
}

static int vocabGrow(MemBm25 *b) {
  uint32_t nNew = b->nSlot ? b->nSlot * 2 : 1024;
  uint32_t *a = cairnMallocZero((size_t)nNew * 4);
  if (!a) return cairnErr(CAIRN_NOMEM, "bm25: vocabulary of %u slots", nNew);
  for (uint32_t t = 0; t < b->nTerm; t++) {
    uint32_t s = (uint32_t)b->aTermHash[t] & (nNew - 1);
    while (a[s]) s = (s + 1) & (nNew - 1);
    a[s] = t + 1;
  }
  cairnFree(b->aSlot);
  b->aSlot = a, b->nSlot = nNew;
  return CAIRN_OK;
}

/* Term id of z, added if new. */
static int vocabIntern(MemBm25 *b, const char *z, size_t n, uint32_t *pId) {
  uint64_t h = termHash(z, n);
  if ((uint64_t)(b->nTerm + 1) * 2 > b->nSlot) CAIRN_TRY(vocabGrow(b));
  uint32_t slot = 0;
  int t = vocabFind(b, z, n, h, &slot);
  if (t >= 0) {
    *pId = (uint32_t)t;
    return CAIRN_OK;
  }
  if (b->nTerm + 1 >= b->nTermCap) {
    /* three arrays of one capacity (aTermOff has one entry more: the end of the last term) */
    size_t nOld = b->nTermCap, nCap = nOld, c;
    CAIRN_TRY(cairnArrayReserve(&b->aTermHash, &nCap, (size_t)b->nTerm + 2, 8, 1024, "bm25: vocabulary"));
    c = nOld;
    CAIRN_TRY(cairnArrayReserve(&b->aPost, &c, nCap, sizeof(MemPost), 1024, "bm25: vocabulary"));
    c = nOld ? nOld + 1 : 0;
    CAIRN_TRY(cairnArrayReserve(&b->aTermOff, &c, nCap + 1, 8, nCap + 1, "bm25: vocabulary"));
    if (nOld == 0) b->aTermOff[0] = 0;
    if (NEVER(nCap > UINT32_MAX)) return cairnErr(CAIRN_RANGE, "bm25: vocabulary of %zu terms", nCap);
    b->nTermCap = (uint32_t)nCap;
  }
  if (b->nTermBytes + n > b->nTermAlloc) {
    CAIRN_TRY(CAIRN_GROW(b->zTerm, b->nTermAlloc, b->nTermBytes + n, "bm25: term bytes"));
  }
  uint32_t id = b->nTerm++;
  memcpy(b->zTerm + b->nTermBytes, z, n);
  b->nTermBytes += n;
  b->aTermOff[id + 1] = b->nTermBytes;
  b->aTermHash[id] = h;
  memset(&b->aPost[id], 0, sizeof(MemPost));
  b->aPost[id].minLen = UINT32_MAX;
  b->aSlot[slot] = id + 1;
  *pId = id;
  return CAIRN_OK;
}

typedef struct TokBuf {
  MemBm25 *b;           /* interning (add) or NULL (lookup only) */
  const MemBm25 *bq;
  uint32_t *a;
  uint32_t n, nAlloc;
  uint32_t nTok;        /* tokens seen, including unknown ones */
  int rc;
} TokBuf;

static void tokCollect(void *pArg, const char *z, size_t n) {
  TokBuf *t = pArg;
  if (t->rc) return;
  t->nTok++;
  uint32_t id = 0;
  if (t->b) {
    t->rc = vocabIntern(t->b, z, n, &id);
    if (t->rc) return;
  } else {
    int f = vocabFind(t->bq, z, n, termHash(z, n), NULL);
    if (f < 0) return;
    id = (uint32_t)f;
  }
  if (t->n == t->nAlloc) {
    int rc = CAIRN_GROW(t->a, t->nAlloc, (size_t)t->n + 1, "bm25: token buffer");
    if (rc) {
      t->rc = rc;
      return;
    }
  }
  t->a[t->n++] = id;
}

/* The terms of a document into t: its text, then its field (the speaker / role name: a query
** naming the speaker finds their turns, as when the text starts "Name: ..."). The field's
** tokens count in the document's length like the text's, so a turn indexed with its role scores
** exactly as the same turn written "role: text". Maintenance reminder: cairnBm25Add and
** cairnBm25Remove both tokenize through here, so removal finds every posting an add made. */
static int tokDoc(TokBuf *t, const char *zText, size_t nText, const char *zField, size_t nField) {
  int rc = cairn_mem_tokenize(zText, nText, tokCollect, t);
  if (rc == CAIRN_OK) rc = t->rc;
  if (rc == CAIRN_OK && nField) rc = cairn_mem_tokenize(zField, nField, tokCollect, t);
  if (rc == CAIRN_OK) rc = t->rc;
  return rc;
}

/* The known terms of a document (lookup only) into t; on failure t holds nothing. */
static int tokKnown(const MemBm25 *b, const char *zText, size_t nText, const char *zField, size_t nField, TokBuf *t) {
  memset(t, 0, sizeof *t);
  t->bq = b;
  int rc = tokDoc(t, zText, nText, zField, nField);
  if (rc) cairnFree(t->a), t->a = NULL;
  return rc;
}

static int cmpU32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

int cairnBm25Add(MemBm25 *b, const char *zText, size_t nText, const char *zField, size_t nField) {
  TokBuf t;
  memset(&t, 0, sizeof t);
  t.b = b;
  int rc = tokDoc(&t, zText, nText, zField, nField);
  if (rc == CAIRN_OK && b->nDoc == b->nDocAlloc) {
    rc = cairnArrayReserve(&b->aDocLen, &b->nDocAlloc, b->nDoc + 1, 4, 1024, "bm25: documents");
  }
  if (rc == CAIRN_OK && b->nDoc >= UINT32_MAX) rc = cairnErr(CAIRN_RANGE, "bm25: too many documents");
  if (rc) {
    cairnFree(t.a);
    return rc;
  }
  if (t.n) qsort(t.a, t.n, 4, cmpU32);
  /* First make room in every posting list, so the append below cannot fail half-way. */
  for (uint32_t i = 0; i < t.n; i++) {
    if (i && t.a[i] == t.a[i - 1]) continue;
    MemPost *p = &b->aPost[t.a[i]];
    if (p->n == p->nAlloc) {
      /* two arrays of one capacity; most terms keep a short list: start at 4 */
      size_t nA = p->nAlloc, c = p->nAlloc;
      rc = cairnArrayReserve(&p->aDoc, &nA, (size_t)p->n + 1, 4, 4, "bm25: postings");
      if (rc == CAIRN_OK) rc = cairnArrayReserve(&p->aTf, &c, nA, 2, 4, "bm25: postings");
      if (rc == CAIRN_OK && NEVER(nA > UINT32_MAX)) rc = cairnErr(CAIRN_RANGE, "bm25: postings");
      if (rc) {
        cairnFree(t.a);
        return rc;
      }
      p->nAlloc = (uint32_t)nA;
    }
  }
  uint32_t row = (uint32_t)b->nDoc, len = t.nTok;
  for (uint32_t i = 0; i < t.n;) {
    uint32_t j = i;
    while (j < t.n && t.a[j] == t.a[i]) j++;
    MemPost *p = &b->aPost[t.a[i]];
    uint32_t tf = CAIRN_MIN(j - i, 65535u);
    p->aDoc[p->n] = row;
    p->aTf[p->n] = (uint16_t)tf;
    p->n++;
    if (tf > p->maxTf) p->maxTf = tf;
    if (len < p->minLen) p->minLen = len;
    b->nPosting++;
    i = j;
  }
  b->aDocLen[b->nDoc++] = len;
  b->nTotLen += len;
  cairnFree(t.a);
  return CAIRN_OK;
}

/* Take row's postings out (forgetting): its text and field are tokenized again and the row removed from
** the posting list of each of its terms. maxTf / minLen stay what they were: bounds still. */
int cairnBm25Remove(MemBm25 *b, uint32_t row, const char *zText, size_t nText, const char *zField, size_t nField) {
  if (row >= b->nDoc) return cairnErr(CAIRN_CORRUPT, "bm25: remove of row %u of %zu", row, b->nDoc);
  TokBuf t;
  CAIRN_TRY(tokKnown(b, zText, nText, zField, nField, &t));
  if (t.n) qsort(t.a, t.n, 4, cmpU32);
  for (uint32_t i = 0; i < t.n; i++) {
    if (i && t.a[i] == t.a[i - 1]) continue;
    MemPost *p = &b->aPost[t.a[i]];
    uint32_t lo = 0, hi = p->n;
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (p->aDoc[mid] < row) lo = mid + 1;
      else hi = mid;
    }
    if (lo < p->n && p->aDoc[lo] == row) {
      memmove(p->aDoc + lo, p->aDoc + lo + 1, (size_t)(p->n - lo - 1) * 4);
      memmove(p->aTf + lo, p->aTf + lo + 1, (size_t)(p->n - lo - 1) * 2);
      p->n--;
      b->nPosting--;
    }
  }
  b->nTotLen -= b->aDocLen[row];
  b->aDocLen[row] = 0;
  cairnFree(t.a);
  return CAIRN_OK;
}

void cairnBm25Free(MemBm25 *b) {
  for (uint32_t t = 0; t < b->nTerm; t++) {
    cairnFree(b->aPost[t].aDoc);
    cairnFree(b->aPost[t].aTf);
  }
  cairnFree(b->aPost);
  cairnFree(b->aSlot);
  cairnFree(b->zTerm);
  cairnFree(b->aTermOff);
  cairnFree(b->aTermHash);
  cairnFree(b->aDocLen);
  memset(b, 0, sizeof(*b));
}

/* ------------------------------------------------------------------ search */
typedef struct QTerm {
  const MemPost *p;
  float w;     /* qtf * idf */
  float ub;    /* bound on its contribution to any row */
  uint32_t pos;
  uint32_t iOrig;
} QTerm;

typedef struct Bm25Ctx {
  float k1, b, avgdl;
  const uint32_t *aLen;
} Bm25Ctx;

static inline float termScore(const Bm25Ctx *c, float w, uint32_t tf, uint32_t len) {
  float ftf = (float)tf;
  return w * ftf * (c->k1 + 1) / (ftf + c->k1 * (1 - c->b + c->b * (float)len / c->avgdl));
}

/* Is a bound strictly below the threshold even allowing for float rounding? */
static inline int belowFloor(float bound, float floor) { return bound * 1.0001f + 1e-6f < floor; }

static int cmpQTermUb(const void *a, const void *b) {
  const QTerm *x = a, *y = b;
  return x->ub < y->ub ? -1 : x->ub > y->ub ? 1 : (x->iOrig < y->iOrig ? -1 : 1);
}

/* First index >= pos in p with aDoc >= d (galloping). */
static uint32_t seekDoc(const MemPost *p, uint32_t pos, uint32_t d) {
  if (pos >= p->n || p->aDoc[pos] >= d) return pos;
  uint32_t step = 1, lo = pos, hi = pos + 1;
  while (hi < p->n && p->aDoc[hi] < d) {
    lo = hi;
    step *= 2;
    hi = pos + step;
  }
  if (hi > p->n) hi = p->n;
  /* aDoc[lo] < d, answer in (lo, hi] */
  while (lo + 1 < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (p->aDoc[mid] < d) lo = mid;
    else hi = mid;
  }
  return hi;
}

int cairnBm25Search(const MemBm25 *b, const char *zQuery, size_t nQuery, float k1, float bb, const MemBits *pBits,
                    int pruned, MemTopK *t) {
  if (b->nDoc == 0) return CAIRN_OK;
  TokBuf tb;
  int rc = tokKnown(b, zQuery, nQuery, NULL, 0, &tb);
  if (rc) return rc;
  /* distinct query terms in order of first appearance, with their counts */
  QTerm aQ[BM25_MAX_QTERMS];
  uint32_t nQ = 0;
  Bm25Ctx c = {k1, bb, (float)((double)b->nTotLen / (double)b->nDoc), b->aDocLen};
  if (c.avgdl <= 0) c.avgdl = 1;
  for (uint32_t i = 0; i < tb.n; i++) {
    uint32_t j = 0;
    while (j < nQ && aQ[j].p != &b->aPost[tb.a[i]]) j++;
    if (j < nQ) {
      aQ[j].w += 1; /* counts first; idf applied below */
      continue;
    }
    if (nQ == BM25_MAX_QTERMS) continue;
    aQ[nQ].p = &b->aPost[tb.a[i]];
    aQ[nQ].w = 1;
    aQ[nQ].pos = 0;
    aQ[nQ].iOrig = nQ;
    nQ++;
  }
  cairnFree(tb.a);
  double N = (double)b->nDoc;
  for (uint32_t i = 0; i < nQ; i++) {
    double df = aQ[i].p->n;
    aQ[i].w *= (float)log(1.0 + (N - df + 0.5) / (df + 0.5));
    aQ[i].ub = aQ[i].p->n ? termScore(&c, aQ[i].w, aQ[i].p->maxTf, aQ[i].p->minLen) : 0;
  }
  if (nQ == 0) return CAIRN_OK;

  if (!pruned) {
    /* Reference: term at a time into an accumulator per row. */
    float *acc = cairnMallocZero(b->nDoc * sizeof(float));
    uint8_t *seen = cairnMallocZero(b->nDoc);
    if (!acc || !seen) {
      cairnFree(acc), cairnFree(seen);
      return cairnErr(CAIRN_NOMEM, "bm25: accumulators for %zu rows", b->nDoc);
    }
    for (uint32_t i = 0; i < nQ; i++) {
      const MemPost *p = aQ[i].p;
      for (uint32_t j = 0; j < p->n; j++) {
        uint32_t d = p->aDoc[j];
        acc[d] += termScore(&c, aQ[i].w, p->aTf[j], c.aLen[d]);
        seen[d] = 1;
      }
    }
    for (size_t d = 0; d < b->nDoc; d++)
      if (seen[d] && cairnBitTest(pBits, d)) cairnTopKPush(t, acc[d], (uint32_t)d);
    cairnFree(acc), cairnFree(seen);
    return CAIRN_OK;
  }

  /* MaxScore, document at a time. */
  qsort(aQ, nQ, sizeof(QTerm), cmpQTermUb);
  float cum[BM25_MAX_QTERMS];
  int32_t sortedOf[BM25_MAX_QTERMS]; /* original index -> sorted index */
  for (uint32_t i = 0; i < nQ; i++) {
    cum[i] = aQ[i].ub + (i ? cum[i - 1] : 0);
    sortedOf[aQ[i].iOrig] = (int32_t)i;
  }
  float contrib[BM25_MAX_QTERMS];
  uint8_t has[BM25_MAX_QTERMS];
  uint32_t e = 0; /* lists [0, e) are non-essential */
  for (;;) {
    float floor = cairnTopKFloor(t);
    while (e < nQ && belowFloor(cum[e], floor)) e++;
    if (e >= nQ) break; /* even all terms together cannot enter */
    uint32_t d = UINT32_MAX;
    for (uint32_t i = e; i < nQ; i++)
      if (aQ[i].pos < aQ[i].p->n && aQ[i].p->aDoc[aQ[i].pos] < d) d = aQ[i].p->aDoc[aQ[i].pos];
    if (d == UINT32_MAX) break;
    int ok = cairnBitTest(pBits, d);
    float partial = 0;
    memset(has, 0, nQ);
    for (uint32_t i = e; i < nQ; i++) {
      QTerm *q = &aQ[i];
      if (q->pos < q->p->n && q->p->aDoc[q->pos] == d) {
        if (ok) {
          contrib[i] = termScore(&c, q->w, q->p->aTf[q->pos], c.aLen[d]);
          has[i] = 1;
          partial += contrib[i];
        }
        q->pos++;
      }
    }
    if (!ok) continue;
    float bound = partial + (e ? cum[e - 1] : 0);
    int dead = 0;
    for (int32_t i = (int32_t)e - 1; i >= 0; i--) {
      if (belowFloor(bound, floor)) {
        dead = 1;
        break;
      }
      QTerm *q = &aQ[i];
      q->pos = seekDoc(q->p, q->pos, d);
      bound -= q->ub;
      if (q->pos < q->p->n && q->p->aDoc[q->pos] == d) {
        contrib[i] = termScore(&c, q->w, q->p->aTf[q->pos], c.aLen[d]);
        has[i] = 1;
        bound += contrib[i];
      }
    }
    if (dead || belowFloor(bound, floor)) continue;
    /* the exact score, summed in query order as the reference does */
    float s = 0;
    for (uint32_t o = 0; o < nQ; o++) {
      int32_t i = sortedOf[o];
      if (has[i]) s += contrib[i];
    }
    cairnTopKPush(t, s, d);
  }
  return CAIRN_OK;
}
