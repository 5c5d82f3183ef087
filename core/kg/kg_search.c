/*
** 2026-12-02
**
** core/kg/kg_search.c - retrieval that uses the graph and time. One call ranks memories by
**   text    the memory store's own search (BM25, vector or hybrid), its score divided by the best;
**   graph   memories that mention the query's entities (names found in the query by their
**           normalised n-grams and aliases, "Melanie's kids" included) and, weaker, the entities
**           spreading activation reaches from them;
**   time    memories whose event time or extracted time expressions overlap the intervals the
**           query names ("in May 2023", "last week", resolved against nowMs); for questions that
**           ask for a time ("when", "what year", "how long ago") memories that state one;
** and sums text + wGraph*graph + wTime*time. Uses only the public mem API (search, get, stats).
*/
#include <string.h>

#include "kg/kg_int.h"

#define DAY_MS 86400000LL

static int askTime(const char *z) {
  char w[3][16] = {{0}};
  int k = 0;
  for (const char *p = z; *p && k < 3;) {
    while (*p && !((*p | 32) >= 'a' && (*p | 32) <= 'z')) p++;
    int n = 0;
    while (((*p | 32) >= 'a' && (*p | 32) <= 'z')) {
      if (n < 15) w[k][n++] = (char)(*p | 32);
      p++;
    }
    if (n) k++;
  }
  if (!strcmp(w[0], "when")) return 1;
  if (!strcmp(w[0], "how") && (!strcmp(w[1], "long") || !strcmp(w[1], "many") || !strcmp(w[1], "recently"))) return 1;
  if ((!strcmp(w[0], "what") || !strcmp(w[0], "which")) &&
      (!strcmp(w[1], "year") || !strcmp(w[1], "date") || !strcmp(w[1], "month") || !strcmp(w[1], "day") || !strcmp(w[1], "time") ||
       !strcmp(w[1], "week")))
    return 1;
  for (const char *p = z; *p; p++)
    if (!strncmp(p, " ago", 4) || !strncmp(p, " since ", 7)) return 1;
  return 0;
}

static int addSeed(uint32_t *a, uint32_t *pn, uint32_t nMax, uint32_t id) {
  for (uint32_t i = 0; i < *pn; i++)
    if (a[i] == id) return 0;
  if (*pn < nMax) a[(*pn)++] = id;
  return 1;
}

/* Entities the query names: proper-noun spans, then every 1-3 word n-gram that is a known name. */
static uint32_t querySeeds(cairn_kg *g, const char *zQ, uint32_t *aSeed, uint32_t nMax) {
  uint32_t nSeed = 0, aSpan[64], nSpan = 0;
  size_t nQ = strlen(zQ);
  (void)cairnKgNameSpans(zQ, nQ, aSpan, 64, &nSpan);
  char zn[CAIRN_KG_MAX_NAME + 1], zb[CAIRN_KG_MAX_NAME + 1];
  for (uint32_t i = 0; i < nSpan; i++) {
    uint32_t n = aSpan[2 * i + 1] < CAIRN_KG_MAX_NAME ? aSpan[2 * i + 1] : CAIRN_KG_MAX_NAME;
    memcpy(zb, zQ + aSpan[2 * i], n), zb[n] = 0;
    size_t nn = cairn_kg_normalize(zb, zn, sizeof zn);
    uint32_t id;
    if (nn && cairnKgEntityFind(g, zn, nn, &id) == CAIRN_OK) addSeed(aSeed, &nSeed, nMax, id);
  }
  /* n-grams of the normalised query */
  size_t nn = cairn_kg_normalize(zQ, zn, sizeof zn);
  uint32_t aW[128], nW = 0;
  for (size_t i = 0; i < nn && nW < 128; i++)
    if (i == 0 || zn[i - 1] == ' ') aW[nW++] = (uint32_t)i;
  for (uint32_t i = 0; i < nW; i++)
    for (uint32_t len = 1; len <= 3 && i + len <= nW; len++) {
      size_t end = i + len < nW ? aW[i + len] - 1 : nn;
      size_t n = end - aW[i];
      if (n < 3) continue;
      uint32_t id;
      if (cairnKgEntityFind(g, zn + aW[i], n, &id) == CAIRN_OK && zn[aW[i] + n] == ' ') addSeed(aSeed, &nSeed, nMax, id);
      else if (aW[i] + n == nn) {
        if (cairnKgEntityFind(g, zn + aW[i], n, &id) == CAIRN_OK) addSeed(aSeed, &nSeed, nMax, id);
      } else {
        char c = zn[aW[i] + n];
        zn[aW[i] + n] = 0;
        if (cairnKgEntityFind(g, zn + aW[i], n, &id) == CAIRN_OK) addSeed(aSeed, &nSeed, nMax, id);
        zn[aW[i] + n] = c;
      }
    }
  return nSeed;
}

/* Expansion: weight each entity by the normalised scores of the top text hits that mention it,
** then add to every memory that mentions it wExpand * weight * idf. One pass over the mention rows. */
#define KG_EXPAND_TOP 5
static int expandFromHits(cairn_kg *g, const cairn_mem_hit *aBase, uint32_t nBase, const uint32_t *aSeed, uint32_t nSeed,
                          uint64_t nMem, float *aScore, uint8_t *aIn, int mayAdd) {
  const float wX = 0.2f;
  uint32_t nTop = nBase < KG_EXPAND_TOP ? nBase : KG_EXPAND_TOP; /* aBase is best first */
  float best = aBase[0].score > 0 ? aBase[0].score : 1;
  float *aW = cairnMallocZero((g->nEnt + 1) * sizeof(float));
  uint32_t *aCnt = cairnMallocZero((g->nEnt + 1) * sizeof(uint32_t));
  int rc = CAIRN_OK;
  if (!aW || !aCnt) CAIRN_ERROR_GOTO(rc, done, CAIRN_NOMEM, "cairn_kg_search: expansion over %zu entities", g->nEnt);
  for (size_t i = 0; i < g->nMention; i++) {
    const KgRow2 *r = &g->aMention[i];
    uint32_t e = r->alive ? cairn_kg_canon(g, (uint32_t)r->a) : 0;
    if (!e) continue;
    aCnt[e]++;
    for (uint32_t t = 0; t < nTop; t++)
      if (aBase[t].id == r->b) aW[e] += aBase[t].score / best;
  }
  for (uint32_t i = 0; i < nSeed; i++) aW[aSeed[i]] = 0;
  for (size_t i = 0; i < g->nMention; i++) {
    const KgRow2 *r = &g->aMention[i];
    uint32_t e = r->alive ? cairn_kg_canon(g, (uint32_t)r->a) : 0;
    uint64_t id = r->b;
    if (!e || aW[e] <= 0 || id == 0 || id > nMem || (!aIn[id] && !mayAdd)) continue;
    if ((uint64_t)aCnt[e] * 20 > nMem && aCnt[e] > 8) continue; /* in more than 1 memory in 20: says little */
    float idf = aCnt[e] > 4 ? 4.0f / (float)aCnt[e] : 1.0f;
    float w = aW[e] > 1 ? 1 : aW[e];
    aScore[id] += wX * w * idf / (float)nTop;
    aIn[id] = 1;
  }
done:
  cairnFree(aW), cairnFree(aCnt);
  return rc;
}

int cairn_kg_search(cairn_kg *g, cairn_mem *mem, const char *zQuery, const cairn_kg_search_opts *pOpt, cairn_mem_hit *aHit,
                    uint32_t *pnHit) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g || !mem || !zQuery || !aHit || !pnHit, CAIRN_MISUSE, "cairn_kg_search: NULL argument");
  cairn_kg_search_opts o;
  memset(&o, 0, sizeof o);
  if (pOpt) o = *pOpt;
  uint32_t k = o.k ? o.k : 10;
  CAIRN_RETURN_ERROR_IF(k > CAIRN_MEM_MAX_K, CAIRN_RANGE, "cairn_kg_search: k %u above %d", k, CAIRN_MEM_MAX_K);
  float wG = o.wGraph > 0 ? o.wGraph : 0.35f, wT = o.wTime > 0 ? o.wTime : 0.5f;
  const float idfFloor = 0.4f; /* an entity in every memory (the speaker) still counts this much */
  float wC = o.noContext ? 0 : o.wContext > 0 ? o.wContext : 0.4f;
  *pnHit = 0;
  cairn_mem_stats st;
  CAIRN_TRY(cairn_mem_stats_get(mem, &st));
  uint64_t nMem = st.nMemory;
  if (nMem == 0) return CAIRN_OK;
  CAIRN_RETURN_ERROR_IF(nMem > (1u << 26), CAIRN_LIMIT, "cairn_kg_search: %llu memories (at most 2^26)", (unsigned long long)nMem);
  int64_t now = o.nowMs;
  if (now == 0 || now == CAIRN_KG_NONE) {
    cairn_mem_record r;
    now = cairn_mem_get(mem, nMem, &r) == CAIRN_OK ? r.eventMs : cairnClock(0) / 1000000;
  }
  if (now < CAIRN_KG_TIME_MIN || now > CAIRN_KG_TIME_MAX) now = 0;

  uint32_t nCand = (uint32_t)(nMem < CAIRN_MEM_MAX_K ? nMem : CAIRN_MEM_MAX_K);
  if (nCand > k && nCand > 200 && k < 200) nCand = 200 > k * 4 ? 200 : k * 4;
  float *aScore = cairnMallocZero((size_t)(nMem + 1) * sizeof(float));
  uint8_t *aIn = cairnMallocZero((size_t)nMem + 1);
  cairn_mem_hit *aBase = cairnMallocArray(nCand, sizeof(cairn_mem_hit));
  uint64_t *aMen = NULL;
  uint32_t *aAct = NULL;
  float *aActS = NULL;
  int rc = CAIRN_OK;
  if (!aScore || !aIn || !aBase) CAIRN_ERROR_GOTO(rc, done, CAIRN_NOMEM, "cairn_kg_search: scores for %llu memories", (unsigned long long)nMem);
  cairn_mem_query q;
  memset(&q, 0, sizeof q);
  q.zText = zQuery, q.k = nCand, q.mode = o.mode, q.pFilter = o.pFilter;
  uint32_t nBase = 0;
  CAIRN_TRY_GOTO(rc, cairn_mem_search(mem, &q, aBase, &nBase), done);
  float best = 0;
  for (uint32_t i = 0; i < nBase; i++)
    if (aBase[i].score > best) best = aBase[i].score;
  for (uint32_t i = 0; i < nBase; i++)
    if (aBase[i].id <= nMem) {
      aScore[aBase[i].id] = best > 0 ? aBase[i].score / best : 0;
      aIn[aBase[i].id] = 1;
    }
  int mayAdd = o.pFilter == NULL; /* graph/time-only candidates cannot be checked against a filter */

  /* graph proximity */
  uint32_t aSeed[32], nSeed = 0;
  if (!o.noGraph && g->nEnt) {
    nSeed = querySeeds(g, zQuery, aSeed, 32);
    if (nSeed) {
      uint32_t nMaxAct = 256, nAct = 0;
      aAct = cairnMallocArray(nMaxAct, sizeof(uint32_t));
      aActS = cairnMallocArray(nMaxAct, sizeof(float));
      if (!aAct || !aActS) CAIRN_ERROR_GOTO(rc, done, CAIRN_NOMEM, "cairn_kg_search: activation");
      CAIRN_TRY_GOTO(rc, cairn_kg_activate(g, aSeed, nSeed, 2, 0.5f, CAIRN_KG_NOW, aAct, aActS, nMaxAct, &nAct), done);
      for (uint32_t i = 0; i < nAct; i++) {
        uint32_t nM = 0;
        CAIRN_TRY_GOTO(rc, cairn_kg_mentions(g, aAct[i], NULL, 0, &nM), done);
        if (!nM) continue;
        cairnFree(aMen);
        aMen = cairnMallocArray(nM, sizeof(uint64_t));
        if (!aMen) CAIRN_ERROR_GOTO(rc, done, CAIRN_NOMEM, "cairn_kg_search: mentions");
        CAIRN_TRY_GOTO(rc, cairn_kg_mentions(g, aAct[i], aMen, nM, &nM), done);
        float a = aActS[i] > 1 ? 1 : aActS[i];
        /* an entity mentioned everywhere (the speaker) says little about any one memory */
        float idf = nM > 8 ? 8.0f / (float)nM : 1.0f;
        if (idf < idfFloor) idf = idfFloor;
        for (uint32_t m = 0; m < nM; m++) {
          uint64_t id = aMen[m];
          if (id == 0 || id > nMem || (!aIn[id] && !mayAdd)) continue;
          aScore[id] += wG * a * idf / (float)nSeed;
          aIn[id] = 1;
        }
      }
    }
  }
  /* graph expansion from the best text hits: the entities they mention (not the query's own, not
  ** the ones nearly every memory names) lead to other memories about the same things */
  if (!o.noGraph && !o.noExpand && g->nEnt && nBase) CAIRN_TRY_GOTO(rc, expandFromHits(g, aBase, nBase, aSeed, nSeed, nMem, aScore, aIn, mayAdd), done);
  /* time */
  if (!o.noTime && now) {
    cairn_kg_time aT[8];
    uint32_t nT = 0;
    CAIRN_TRY_GOTO(rc, cairn_kg_time_parse(zQuery, strlen(zQuery), now, aT, 8, &nT), done);
    for (uint32_t t = 0; t < nT; t++) {
      uint32_t nR = 0;
      CAIRN_TRY_GOTO(rc, cairn_kg_time_range(g, aT[t].lo, aT[t].hi, NULL, 0, &nR), done);
      if (nR) {
        cairnFree(aMen);
        aMen = cairnMallocArray(nR, sizeof(uint64_t));
        if (!aMen) CAIRN_ERROR_GOTO(rc, done, CAIRN_NOMEM, "cairn_kg_search: time range");
        CAIRN_TRY_GOTO(rc, cairn_kg_time_range(g, aT[t].lo, aT[t].hi, aMen, nR, &nR), done);
        for (uint32_t m = 0; m < nR; m++)
          if (aMen[m] && aMen[m] <= nMem && (aIn[aMen[m]] || mayAdd)) aScore[aMen[m]] += wT / (float)nT, aIn[aMen[m]] = 1;
      }
      /* the memories' own event times (candidates only: a get each) */
      for (uint64_t id = 1; id <= nMem; id++) {
        if (!aIn[id]) continue;
        cairn_mem_record r;
        if (cairn_mem_get(mem, id, &r) == CAIRN_OK && r.eventMs >= aT[t].lo && r.eventMs < aT[t].hi) aScore[id] += 0.5f * wT / (float)nT;
      }
    }
    if (!nT && askTime(zQuery))
      for (uint64_t id = 1; id <= nMem; id++)
        if (aIn[id] && cairnKgMemHasTime(g, id)) aScore[id] += 0.4f * wT;
  }
  /* conversation context: a turn next to a strong one in the same session (the answer often
  ** sits one turn from the words the question repeats: "look at this" [a photo of ...]) */
  if (wC > 0) {
    float *aCtx = cairnMallocZero((size_t)(nMem + 2) * sizeof(float));
    const char **azSess = cairnMallocZero((size_t)(nMem + 2) * sizeof(char *));
    if (!aCtx || !azSess) {
      cairnFree(aCtx), cairnFree(azSess);
      CAIRN_ERROR_GOTO(rc, done, CAIRN_NOMEM, "cairn_kg_search: context");
    }
    for (uint64_t id = 1; id <= nMem; id++) {
      cairn_mem_record r;
      azSess[id] = cairn_mem_get(mem, id, &r) == CAIRN_OK && r.zSession ? r.zSession : "";
    }
    for (uint64_t id = 1; id <= nMem; id++) {
      float b = 0;
      if (id > 1 && aIn[id - 1] && !strcmp(azSess[id - 1], azSess[id])) b = aScore[id - 1];
      if (id < nMem && aIn[id + 1] && !strcmp(azSess[id + 1], azSess[id]) && aScore[id + 1] > b) b = aScore[id + 1];
      aCtx[id] = b;
    }
    for (uint64_t id = 1; id <= nMem; id++)
      if (aCtx[id] > 0 && (aIn[id] || mayAdd)) aScore[id] += wC * aCtx[id], aIn[id] = 1;
    cairnFree(aCtx), cairnFree(azSess);
  }
  /* top k */
  uint32_t nOut = 0;
  for (uint64_t id = 1; id <= nMem; id++) {
    if (!aIn[id]) continue;
    float sc = aScore[id];
    uint32_t at = nOut < k ? nOut : k;
    while (at > 0 && aHit[at - 1].score < sc) at--;
    if (at >= k) continue;
    uint32_t last = nOut < k ? nOut : k - 1;
    memmove(aHit + at + 1, aHit + at, (last - at) * sizeof *aHit);
    aHit[at].id = id, aHit[at].score = sc, aHit[at].vscore = aHit[at].bscore = 0;
    if (nOut < k) nOut++;
  }
  *pnHit = nOut;
done:
  cairnFree(aScore), cairnFree(aIn), cairnFree(aBase), cairnFree(aMen), cairnFree(aAct), cairnFree(aActS);
  return rc;
}
