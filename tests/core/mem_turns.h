/* 2026-12-02 - what the memory store's test files share (test_mem.c, test_mem_persist.c): ten
** chat turns over four sessions, adding them with metadata, and one search call. */
#ifndef CAIRN_TEST_MEM_TURNS_H
#define CAIRN_TEST_MEM_TURNS_H

#include "cairn/mem.h"
#include "mem/mem_int.h"

static const char *const aTurn[][3] = {
  /* session, role, text */
  {"s1", "user", "I adopted a golden retriever puppy named Biscuit last week"},
  {"s1", "assistant", "Congratulations on Biscuit! Golden retrievers are wonderful family dogs"},
  {"s1", "user", "My sister Ana lives in Lisbon and works as a nurse"},
  {"s2", "user", "I started learning the cello in January"},
  {"s2", "assistant", "Cello is a beautiful instrument; practice scales every day"},
  {"s2", "user", "Biscuit chewed my cello case this morning"},
  {"s3", "user", "We are planning a trip to Japan in April to see the cherry blossoms"},
  {"s3", "user", "Ana will join us in Kyoto for three days"},
  {"s3", "assistant", "Kyoto in April is lovely; book the ryokan early"},
  {"s4", "user", "The vet said Biscuit needs a vaccine booster next month"},
};
#define NTURN ((int)CAIRN_ARRAY_SIZE(aTurn))

static inline int addTurns(cairn_mem *m, int nTurn) {
  cairn_mem_stats st;
  int rc0 = cairn_mem_stats_get(m, &st);
  if (rc0) return rc0;
  for (int i = 0; i < nTurn; i++) {
    cairn_mem_record r;
    memset(&r, 0, sizeof r);
    r.zSession = aTurn[i][0], r.zRole = aTurn[i][1], r.zText = aTurn[i][2];
    r.createdMs = 1700000000000 + (int64_t)i * 3600000;
    r.eventMs = r.createdMs;
    r.tier = i % 3;
    r.importance = (float)i / 10;
    char meta[64];
    cairnFormat(meta, sizeof meta, "{\"turn\": %d, \"topic\": \"%s\"}", i, i % 2 ? "odd" : "even");
    r.zMeta = meta;
    uint64_t id;
    int rc = cairn_mem_add(m, &r, &id);
    if (rc) return rc;
    if (id != st.nMemory + (uint64_t)i + 1) return CAIRN_ERROR;
  }
  return CAIRN_OK;
}

static inline uint32_t search(cairn_mem *m, const char *zQ, int mode, uint32_t k, const cairn_mem_filter *pf, cairn_mem_hit *aHit) {
  cairn_mem_query q;
  memset(&q, 0, sizeof q);
  q.zText = zQ, q.mode = mode, q.k = k, q.pFilter = pf;
  uint32_t n = 0;
  if (cairn_mem_search(m, &q, aHit, &n) != CAIRN_OK) return 9999;
  return n;
}

#endif
