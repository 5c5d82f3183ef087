/*
** 2026-12-02
**
** cairn/score.h - the consolidation score of a memory (issue 18, item 1): how much a memory is
** worth keeping in the hot (working) tier, from four parts, each in [0, 1]:
**
**   value    the caller's importance, clamped to [0, 1]
**   access   1 - 2^(-accessCount / accessHalf)          (accessHalf accesses give 0.5)
**   recency  2^(-age / halfLife), age = now - last access (or creation), 0 for future times
**   links    1 - 2^(-nLinks / linkHalf)                  (links from other memories)
**
**   score = (wValue*value + wAccess*access + wRecency*recency + wLinks*links) / (sum of weights)
**
** Pure functions: no state, no allocation except cairn_score_select's index array, no clock (the
** caller passes "now"), so a consolidation cycle can score incrementally (only what changed) and
** explain every decision by the parts. cairn_score_select keeps the best `capacity` of a set:
** the working tier's eviction rule.
*/
#ifndef CAIRN_SCORE_H
#define CAIRN_SCORE_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 0 = the default in brackets; a negative weight turns its part off (weight 0). */
typedef struct cairn_score_config {
  float wValue;     /* [0.4] */
  float wAccess;    /* [0.3] */
  float wRecency;   /* [0.2] */
  float wLinks;     /* [0.1] */
  float halfLifeH;  /* recency half-life in hours [168: a week] */
  float accessHalf; /* accesses at which the access part is 0.5 [4] */
  float linkHalf;   /* links at which the links part is 0.5 [2] */
} cairn_score_config;

typedef struct cairn_score_input {
  float importance;     /* the caller's value (NaN counts as 0) */
  uint32_t accessCount;
  int64_t lastMs;       /* last access, or creation when never accessed (ms since 1970) */
  uint32_t nLinks;      /* links from other memories */
} cairn_score_input;

typedef struct cairn_score_parts {
  float value, access, recency, links; /* each in [0, 1] */
  float score;                         /* the weighted mean, in [0, 1] */
} cairn_score_parts;

/* Score one memory at nowMs; pCfg NULL = defaults. Errors: CAIRN_MISUSE (NULL, every weight off,
** a NaN or infinite setting, a half-life or half count below 0). */
CAIRN_API int cairn_score(const cairn_score_config *pCfg, const cairn_score_input *pIn, int64_t nowMs, cairn_score_parts *pOut);
/* Score n memories into aScore[0..n) (the score only). */
CAIRN_API int cairn_score_many(const cairn_score_config *pCfg, const cairn_score_input *aIn, size_t n, int64_t nowMs,
                               float *aScore);
/*
** Keep the best: aKeep[0..*pnKeep) gets the indexes of the min(capacity, n) best-scoring inputs,
** best first (ties: the lower index first), *pnKeep how many. capacity 0 keeps none (CAIRN_OK, an
** empty set: nothing stays hot). O(n log n); allocates n (score, index) pairs.
*/
CAIRN_API int cairn_score_select(const cairn_score_config *pCfg, const cairn_score_input *aIn, size_t n, int64_t nowMs,
                                 size_t capacity, uint32_t *aKeep, size_t *pnKeep);

#ifdef __cplusplus
}
#endif
#endif /* CAIRN_SCORE_H */
