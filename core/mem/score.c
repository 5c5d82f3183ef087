/*
** 2026-12-02
**
** core/mem/score.c - the consolidation score (cairn/score.h): four parts in [0, 1] and their
** weighted mean, one memory at a time or a batch, and the selection of the best `capacity`.
** exp2 of a negative ratio gives the decays; the weights are normalised once per call.
*/
#include "cairn/score.h"
#include "mem_int.h"

typedef struct ScoreCfg {
  float w[4]; /* value, access, recency, links; normalised to sum 1 */
  double invHalfLifeMs, invAccessHalf, invLinkHalf;
} ScoreCfg;

static int scoreCfg(const cairn_score_config *p, ScoreCfg *c) {
  cairn_score_config z;
  if (!p) memset(&z, 0, sizeof z), p = &z;
  const float aIn[4] = {p->wValue, p->wAccess, p->wRecency, p->wLinks}, aDefault[4] = {0.4f, 0.3f, 0.2f, 0.1f};
  float sum = 0;
  for (int i = 0; i < 4; i++) {
    CAIRN_RETURN_ERROR_IF(!isfinite(aIn[i]), CAIRN_MISUSE, "score: weight %d is NaN or infinite", i);
    c->w[i] = aIn[i] == 0 ? aDefault[i] : aIn[i] < 0 ? 0 : aIn[i];
    sum += c->w[i];
  }
  CAIRN_RETURN_ERROR_IF(sum <= 0, CAIRN_MISUSE, "score: every weight is off");
  for (int i = 0; i < 4; i++) c->w[i] /= sum;
  const float aH[3] = {p->halfLifeH, p->accessHalf, p->linkHalf}, aHDefault[3] = {168, 4, 2};
  double aInv[3];
  for (int i = 0; i < 3; i++) {
    CAIRN_RETURN_ERROR_IF(!isfinite(aH[i]) || aH[i] < 0, CAIRN_MISUSE, "score: %s must be a finite number >= 0",
                          i == 0 ? "halfLifeH" : i == 1 ? "accessHalf" : "linkHalf");
    aInv[i] = 1.0 / (aH[i] == 0 ? aHDefault[i] : aH[i]);
  }
  c->invHalfLifeMs = aInv[0] / 3600000.0, c->invAccessHalf = aInv[1], c->invLinkHalf = aInv[2];
  return CAIRN_OK;
}

static void scoreOne(const ScoreCfg *c, const cairn_score_input *x, int64_t nowMs, cairn_score_parts *o) {
  float v = x->importance;
  o->value = v > 0 ? (v < 1 ? v : 1) : 0; /* NaN fails v > 0: 0 */
  o->access = (float)(1.0 - exp2(-(double)x->accessCount * c->invAccessHalf));
  double age = nowMs > x->lastMs ? (double)(nowMs - x->lastMs) : 0;
  o->recency = (float)exp2(-age * c->invHalfLifeMs);
  o->links = (float)(1.0 - exp2(-(double)x->nLinks * c->invLinkHalf));
  o->score = c->w[0] * o->value + c->w[1] * o->access + c->w[2] * o->recency + c->w[3] * o->links;
}

int cairn_score(const cairn_score_config *pCfg, const cairn_score_input *pIn, int64_t nowMs, cairn_score_parts *pOut) {
  CAIRN_RETURN_ERROR_IF(!pIn || !pOut, CAIRN_MISUSE, "score: NULL argument");
  ScoreCfg c;
  CAIRN_TRY(scoreCfg(pCfg, &c));
  scoreOne(&c, pIn, nowMs, pOut);
  return CAIRN_OK;
}

int cairn_score_many(const cairn_score_config *pCfg, const cairn_score_input *aIn, size_t n, int64_t nowMs, float *aScore) {
  CAIRN_RETURN_ERROR_IF((!aIn || !aScore) && n, CAIRN_MISUSE, "score_many: NULL argument");
  ScoreCfg c;
  CAIRN_TRY(scoreCfg(pCfg, &c));
  for (size_t i = 0; i < n; i++) {
    cairn_score_parts o;
    scoreOne(&c, &aIn[i], nowMs, &o);
    aScore[i] = o.score;
  }
  return CAIRN_OK;
}

/* Best first, ties by index: qsort's context through a file-static would not be reentrant, so
** sort (score, index) pairs instead. */
typedef struct ScorePair {
  float s;
  uint32_t i;
} ScorePair;
static int pairCmp(const void *a, const void *b) {
  const ScorePair *x = a, *y = b;
  if (x->s != y->s) return x->s > y->s ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

int cairn_score_select(const cairn_score_config *pCfg, const cairn_score_input *aIn, size_t n, int64_t nowMs,
                       size_t capacity, uint32_t *aKeep, size_t *pnKeep) {
  CAIRN_RETURN_ERROR_IF(!pnKeep || ((!aIn || !aKeep) && n && capacity), CAIRN_MISUSE, "score_select: NULL argument");
  *pnKeep = 0;
  CAIRN_RETURN_ERROR_IF(n > UINT32_MAX, CAIRN_RANGE, "score_select: %zu memories (at most 2^32 - 1)", n);
  ScoreCfg c;
  CAIRN_TRY(scoreCfg(pCfg, &c));
  if (capacity == 0 || n == 0) return CAIRN_OK;
  ScorePair *a = cairnMallocArray(n, sizeof(ScorePair));
  if (!a) return cairnErr(CAIRN_NOMEM, "score_select: out of memory for %zu memories", n);
  for (size_t i = 0; i < n; i++) {
    cairn_score_parts o;
    scoreOne(&c, &aIn[i], nowMs, &o);
    a[i].s = o.score, a[i].i = (uint32_t)i;
  }
  qsort(a, n, sizeof *a, pairCmp);
  size_t k = CAIRN_MIN(capacity, n);
  for (size_t i = 0; i < k; i++) aKeep[i] = a[i].i;
  *pnKeep = k;
  cairnFree(a);
  return CAIRN_OK;
}
