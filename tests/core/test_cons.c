/*
** 2026-12-02
**
** tests/core/test_cons.c - the consolidation cycle, explain and the session tick
** (cairn/consolidate.h): the issue-18 experiment (1,000 memories, 10 signal accessed 15 times,
** capacity 100: the signal stays hot and is found first), eviction into the episodic tier with
** its history, promotion of near duplicates and of linked memories into a semantic memory that
** cites them, the incremental second cycle, a new member extending a semantic memory (a new
** version), forgetting a source, summarisers (used, failing, garbage: store unchanged), bad
** settings, the tick's budget and its durable result after a reopen, the JSON forms.
*/
#include <math.h>
#include <stdlib.h>

#include "cairn/consolidate.h"
#include "common/internal.h"
#include "oom.h"
#include "tf.h"

static const char *const azWord[] = {"river", "lamp", "orange", "piano", "garden", "ticket", "window", "planet", "coffee", "marble",
                                     "violet", "bridge", "candle", "forest", "rocket", "silver", "pocket", "button", "thunder", "meadow",
                                     "harbor", "pepper", "saddle", "lantern", "falcon", "quartz", "velvet", "walnut", "canyon", "ember"};
static uint64_t rnd(uint64_t *s) {
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  return *s;
}
/* A noise sentence of 6 random words plus a unique number. */
static void noise(char *z, size_t n, uint64_t *s, int i) {
  size_t o = 0;
  for (int w = 0; w < 6; w++) o += cairnFormat(z + o, n - o, "%s ", azWord[rnd(s) % 30]);
  cairnFormat(z + o, n - o, "note%d", i);
}

static int64_t T0 = 1764000000000; /* a fixed "now" (ms) */

static cairn_mem_consolidate_config cfgCap(uint32_t cap) {
  cairn_mem_consolidate_config c;
  memset(&c, 0, sizeof c);
  c.capacity = cap, c.nowMs = T0;
  return c;
}
static int tierOf(cairn_mem *m, uint64_t id) {
  cairn_mem_record r;
  return cairn_mem_get(m, id, &r) == CAIRN_OK ? r.tier : -1;
}
static int countTier(cairn_mem *m, int tier, uint64_t nMax) {
  int n = 0;
  for (uint64_t id = 1; id <= nMax; id++) {
    cairn_mem_record r;
    if (cairn_mem_get(m, id, &r) == CAIRN_OK && r.id == id && r.tier == tier) n++;
  }
  return n;
}
static int contains(const char *z, const char *zNeedle) { return z && strstr(z, zNeedle) != NULL; }

/* The experiment of the issue: 10 signal memories accessed 15 times among 990 noise ones. */
TEST(cons, signal_stays_hot) {
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(NULL, NULL, &m));
  uint64_t s = 42, aSig[10];
  char z[256];
  static const char *const azSig[10] = {"the deploy key rotates every ninth day", "my sister Ines lives in Porto",
                                        "the staging database password is kept in vault", "allergic to penicillin since childhood",
                                        "the quarterly report is due on March third", "prefer window seats on long flights",
                                        "the cat is called Biscuit", "the office wifi is named zebra-five",
                                        "budget approval needs two signatures", "the bike lock combination is four digits"};
  for (int i = 0; i < 1000; i++) {
    cairn_mem_record r;
    memset(&r, 0, sizeof r);
    r.createdMs = r.eventMs = T0 - 3600000 * (int64_t)(i % 48);
    r.importance = 0.3f;
    if (i % 100 == 7) r.zText = azSig[i / 100];
    else noise(z, sizeof z, &s, i), r.zText = z;
    uint64_t id;
    CHECK_OK(cairn_mem_add(m, &r, &id));
    if (i % 100 == 7) {
      aSig[i / 100] = id;
      for (int k = 0; k < 15; k++) CHECK_OK(cairn_mem_touch(m, id));
    }
  }
  cairn_mem_consolidate_config c = cfgCap(100);
  cairn_mem_consolidate_report rep;
  CHECK_OK(cairn_mem_consolidate(m, &c, &rep));
  CHECK_EQ(rep.nWorking, 1000);
  CHECK_EQ(rep.nEvicted, 900);
  CHECK_EQ(countTier(m, CAIRN_TIER_WORKING, 1000), 100);
  CHECK_EQ(countTier(m, CAIRN_TIER_EPISODIC, 1000) + countTier(m, CAIRN_TIER_WORKING, 1000), 1000);
  for (int i = 0; i < 10; i++) CHECK_EQ(tierOf(m, aSig[i]), CAIRN_TIER_WORKING);
  /* the hot index finds every signal memory first */
  cairn_mem_filter f;
  memset(&f, 0, sizeof f);
  f.tierMask = CAIRN_MEM_HOT_TIERS;
  for (int i = 0; i < 10; i++) {
    cairn_mem_query q;
    memset(&q, 0, sizeof q);
    q.zText = azSig[i], q.k = 10, q.pFilter = &f;
    cairn_mem_hit hit[10];
    uint32_t n;
    CHECK_OK(cairn_mem_search(m, &q, hit, &n));
    CHECK(n >= 1);
    CHECK_EQ(hit[0].id, aSig[i]);
    for (uint32_t h = 0; h < n; h++) CHECK(tierOf(m, hit[h].id) != CAIRN_TIER_EPISODIC);
  }
  /* evicted memories are still found with a tier filter, and forgettable */
  uint64_t idEvicted = 0;
  for (uint64_t id = 1; id <= 1000 && !idEvicted; id++)
    if (tierOf(m, id) == CAIRN_TIER_EPISODIC) idEvicted = id;
  CHECK(idEvicted);
  cairn_mem_record er;
  CHECK_OK(cairn_mem_get(m, idEvicted, &er));
  cairn_mem_filter fe;
  memset(&fe, 0, sizeof fe);
  fe.tierMask = 1u << CAIRN_TIER_EPISODIC;
  cairn_mem_query q;
  memset(&q, 0, sizeof q);
  q.zText = er.zText, q.k = 1, q.pFilter = &fe, q.mode = CAIRN_MEM_BM25;
  cairn_mem_hit hit;
  uint32_t n;
  CHECK_OK(cairn_mem_search(m, &q, &hit, &n));
  CHECK_EQ(n, 1);
  CHECK_EQ(hit.id, idEvicted);
  /* history: working, then episodic from the cycle's time */
  cairn_mem_record av[4];
  uint32_t nv;
  CHECK_OK(cairn_mem_history(m, idEvicted, av, 4, &nv));
  CHECK_EQ(nv, 2);
  CHECK_EQ(av[0].tier, CAIRN_TIER_WORKING);
  CHECK_EQ(av[1].tier, CAIRN_TIER_EPISODIC);
  CHECK_EQ(av[1].validFromMs, T0);
  char *zx = NULL;
  CHECK_OK(cairn_mem_explain_json(m, idEvicted, &c, &zx));
  CHECK(contains(zx, "\"decision\":\"evicted\""));
  CHECK(contains(zx, "\"scoreAtEviction\""));
  cairn_free(zx);
  CHECK_OK(cairn_mem_explain_json(m, aSig[3], &c, &zx));
  CHECK(contains(zx, "\"decision\":\"kept\""));
  CHECK(contains(zx, "\"accessCount\":15"));
  cairn_free(zx);
  CHECK_OK(cairn_mem_delete(m, idEvicted));
  CHECK_RC(cairn_mem_explain_json(m, idEvicted, &c, &zx), CAIRN_NOTFOUND);
  /* a second cycle with nothing new: nothing evicted, nothing compared */
  CHECK_OK(cairn_mem_consolidate(m, &c, &rep));
  CHECK_EQ(rep.nEvicted, 0);
  CHECK_EQ(rep.nCompared, 0);
  CHECK_OK(cairn_mem_close(m));
}

static uint64_t addText(cairn_mem *m, const char *z, int tier, const char *zMeta) {
  cairn_mem_record r;
  memset(&r, 0, sizeof r);
  r.zText = z, r.tier = tier, r.zMeta = zMeta, r.createdMs = r.eventMs = T0 - 1000, r.zSession = "s1";
  uint64_t id = 0;
  return cairn_mem_add(m, &r, &id) == CAIRN_OK ? id : 0;
}

TEST(cons, promote_near_duplicates) {
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(NULL, NULL, &m));
  uint64_t a = addText(m, "I moved to Lisbon in May with my partner", 1, NULL);
  uint64_t b = addText(m, "I moved to Lisbon in May with my partner.", 1, NULL);
  uint64_t c = addText(m, "i moved to lisbon in may, with my partner", 1, NULL);
  uint64_t d = addText(m, "the quarterly budget meeting is on thursday", 1, NULL);
  CHECK(a && b && c && d);
  cairn_mem_consolidate_config cf = cfgCap(10);
  cairn_mem_consolidate_report rep;
  CHECK_OK(cairn_mem_consolidate(m, &cf, &rep));
  CHECK_EQ(rep.nPromoted, 1);
  CHECK_EQ(rep.nMerged, 3);
  uint64_t sem = 5;
  cairn_mem_record r;
  CHECK_OK(cairn_mem_get(m, sem, &r));
  CHECK_EQ(r.tier, CAIRN_TIER_SEMANTIC);
  CHECK(contains(r.zMeta, "\"sources\":[1,2,3]"));
  CHECK(contains(r.zMeta, "\"rule\":\"extractive\""));
  CHECK_STR(r.zSession, "s1");
  /* the extractive text is one member's text */
  int same = 0;
  for (uint64_t id = 1; id <= 3; id++) {
    cairn_mem_record x;
    CHECK_OK(cairn_mem_get(m, id, &x));
    same += !strcmp(x.zText, r.zText);
    CHECK_EQ(x.tier, CAIRN_TIER_EPISODIC); /* sources stay episodic */
  }
  CHECK_EQ(same, 1);
  char *zx;
  CHECK_OK(cairn_mem_explain_json(m, b, &cf, &zx));
  CHECK(contains(zx, "\"decision\":\"merged\""));
  CHECK(contains(zx, "\"mergedInto\":5"));
  cairn_free(zx);
  CHECK_OK(cairn_mem_explain_json(m, sem, &cf, &zx));
  CHECK(contains(zx, "\"decision\":\"semantic\""));
  CHECK(contains(zx, "\"sources\":[1,2,3]"));
  cairn_free(zx);
  /* incremental: nothing new, nothing compared; a new near duplicate extends the group */
  CHECK_OK(cairn_mem_consolidate(m, &cf, &rep));
  CHECK_EQ(rep.nCompared, 0);
  CHECK_EQ(rep.nPromoted, 0);
  uint64_t e = addText(m, "I moved to Lisbon in May with my partner!", 1, NULL);
  CHECK_OK(cairn_mem_consolidate(m, &cf, &rep));
  CHECK_EQ(rep.nCompared, 1);
  CHECK_EQ(rep.nPromoted, 1);
  CHECK_EQ(rep.nMerged, 4);
  CHECK_OK(cairn_mem_get(m, sem, &r));
  CHECK(contains(r.zMeta, "\"sources\":[1,2,3,6]"));
  cairn_mem_record hv[4];
  uint32_t nv;
  CHECK_OK(cairn_mem_history(m, sem, hv, 4, &nv));
  CHECK_EQ(nv, 2); /* the merge's history: 3 sources, then 4 */
  CHECK(contains(hv[0].zMeta, "\"sources\":[1,2,3]"));
  (void)e;
  /* forgetting a source forgets the semantic memory; the rest merge again */
  CHECK_OK(cairn_mem_delete(m, a));
  CHECK_OK(cairn_mem_consolidate(m, &cf, &rep));
  CHECK_EQ(rep.nDissolved, 1);
  CHECK_EQ(rep.nPromoted, 1);
  CHECK_EQ(rep.nMerged, 3);
  CHECK_RC(cairn_mem_get(m, sem, &r), CAIRN_NOTFOUND);
  uint64_t sem2 = 0;
  for (uint64_t id = 1; id <= 20; id++) {
    cairn_mem_record x;
    if (cairn_mem_get(m, id, &x) == CAIRN_OK && x.id == id && x.tier == CAIRN_TIER_SEMANTIC) sem2 = id;
  }
  CHECK(sem2 > sem);
  CHECK_OK(cairn_mem_get(m, sem2, &r));
  CHECK(contains(r.zMeta, "\"sources\":[2,3,6]"));
  CHECK_OK(cairn_mem_close(m));
}

TEST(cons, linked_and_thresholds) {
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(NULL, NULL, &m));
  uint64_t a = addText(m, "flight to Oslo on Friday", 1, "{\"links\":[2]}");
  uint64_t b = addText(m, "hotel near the harbour booked", 1, "{\"links\":[1]}");
  uint64_t c = addText(m, "dentist appointment next week", 1, "{\"links\":[1]}");
  CHECK(a && b && c);
  cairn_mem_consolidate_config cf = cfgCap(10);
  cf.noLinkMerge = 1, cf.dryRun = 1;
  cairn_mem_consolidate_report rep;
  CHECK_OK(cairn_mem_consolidate(m, &cf, &rep));
  CHECK_EQ(rep.nPromoted, 0); /* not near duplicates, links off */
  cf.noLinkMerge = 0, cf.dryRun = 0;
  CHECK_OK(cairn_mem_consolidate(m, &cf, &rep));
  CHECK_EQ(rep.nPromoted, 1); /* 1 and 2 name each other; 3 names 1 only */
  CHECK_EQ(rep.nMerged, 2);
  char *zx;
  CHECK_OK(cairn_mem_explain_json(m, a, &cf, &zx));
  CHECK(contains(zx, "\"links\":3")); /* from 2, 3 and the semantic memory's sources */
  cairn_free(zx);
  /* bad settings */
  cairn_mem_consolidate_config bad = cfgCap(0);
  CHECK_RC(cairn_mem_consolidate(m, &bad, &rep), CAIRN_RANGE);
  bad = cfgCap(5), bad.mergeThreshold = 1.5f;
  CHECK_RC(cairn_mem_consolidate(m, &bad, &rep), CAIRN_RANGE);
  bad = cfgCap(5), bad.score.halfLifeH = -1;
  CHECK_RC(cairn_mem_consolidate(m, &bad, &rep), CAIRN_MISUSE);
  bad = cfgCap(5), bad.minGroup = 1;
  CHECK_RC(cairn_mem_consolidate(m, &bad, &rep), CAIRN_RANGE);
  CHECK_RC(cairn_mem_consolidate(m, NULL, &rep), CAIRN_MISUSE);
  CHECK_OK(cairn_mem_close(m));
}

/* ---- summarisers ---- */
typedef struct Summ {
  int mode; /* 0 ok, 1 fail, 2 empty, 3 bad utf-8, 4 decline */
  int nCalls;
  char z[256];
} Summ;
static int summarise(void *pCtx, uint32_t n, const uint64_t *aId, const char *const *azText, const char **pz) {
  Summ *s = pCtx;
  s->nCalls++;
  (void)azText;
  switch (s->mode) {
    case 1: return CAIRN_IOERR;
    case 2: *pz = ""; return 0;
    case 3: *pz = "bad \xff\xfe text"; return 0;
    case 4: *pz = NULL; return 0;
    default: cairnFormat(s->z, sizeof s->z, "summary of %u memories from %llu", n, (unsigned long long)aId[0]); *pz = s->z; return 0;
  }
}

TEST(cons, summariser) {
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(NULL, NULL, &m));
  CHECK(addText(m, "unrelated note about gardening tools", 0, NULL)); /* kept: ties go to the lower id */
  CHECK(addText(m, "the standup moved to ten thirty", 0, NULL));
  CHECK(addText(m, "the standup moved to ten thirty.", 0, NULL));
  cairn_mem_consolidate_config cf = cfgCap(1);
  Summ s;
  memset(&s, 0, sizeof s);
  cf.xSummarise = summarise, cf.pSummariseCtx = &s;
  cairn_mem_consolidate_report rep;
  cairn_mem_stats st0, st1;
  CHECK_OK(cairn_mem_stats_get(m, &st0));
  for (int mode = 1; mode <= 3; mode++) { /* failures: the store is unchanged */
    s.mode = mode;
    CHECK_RC(cairn_mem_consolidate(m, &cf, &rep), mode == 1 ? CAIRN_IOERR : CAIRN_TYPE);
    CHECK(cairn_errmsg()[0]);
    CHECK_OK(cairn_mem_stats_get(m, &st1));
    CHECK_EQ(st1.nMemory, st0.nMemory);
    CHECK_EQ(countTier(m, CAIRN_TIER_WORKING, 3), 3);
  }
  s.mode = 0;
  CHECK_OK(cairn_mem_consolidate(m, &cf, &rep));
  CHECK_EQ(rep.nEvicted, 2);
  CHECK_EQ(rep.nSummarised, 1);
  CHECK_EQ(countTier(m, CAIRN_TIER_SEMANTIC, 10), 1);
  uint64_t sem = 0;
  for (uint64_t id = 1; id <= 10; id++)
    if (tierOf(m, id) == CAIRN_TIER_SEMANTIC) sem = id;
  cairn_mem_record r;
  CHECK_OK(cairn_mem_get(m, sem, &r));
  CHECK(contains(r.zText, "summary of 2 memories"));
  CHECK(contains(r.zMeta, "\"rule\":\"summariser\""));
  CHECK_OK(cairn_mem_close(m));
}

/* ---- the JSON forms: a dry run's groups, then their summaries ---- */
TEST(cons, json_plan_then_summaries) {
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(NULL, NULL, &m));
  CHECK(addText(m, "we agreed the launch is on June first", 1, NULL));
  CHECK(addText(m, "we agreed the launch is on June first!", 1, NULL));
  char *z = NULL;
  CHECK_OK(cairn_mem_consolidate_json(m, "{\"capacity\": 10, \"dryRun\": true, \"now\": 1764000000000}", &z));
  CHECK(contains(z, "\"sources\":[1,2]"));
  CHECK(contains(z, "\"texts\":[\"we agreed"));
  cairn_free(z);
  CHECK_EQ(countTier(m, CAIRN_TIER_SEMANTIC, 5), 0); /* a dry run writes nothing */
  CHECK_OK(cairn_mem_consolidate_json(m, "{\"capacity\": 10, \"summaries\": [{\"sources\": [2, 1], \"text\": \"launch: June 1\"}]}", &z));
  CHECK(contains(z, "\"promoted\":1"));
  cairn_free(z);
  cairn_mem_record r;
  CHECK_OK(cairn_mem_get(m, 3, &r));
  CHECK_STR(r.zText, "launch: June 1");
  CHECK_RC(cairn_mem_consolidate_json(m, "{\"capacity\": 0}", &z), CAIRN_RANGE);
  CHECK_RC(cairn_mem_consolidate_json(m, "{\"capacty\": 3}", &z), CAIRN_MISUSE);
  CHECK(contains(cairn_errmsg(), "capacty"));
  CHECK_RC(cairn_mem_consolidate_json(m, "{\"summaries\": 3}", &z), CAIRN_MISUSE);
  CHECK_OK(cairn_mem_explain_opts_json(m, 1, "{\"capacity\": 5}", &z));
  CHECK(contains(z, "\"history\":[{"));
  cairn_free(z);
  CHECK_RC(cairn_mem_tick_json(m, "{\"budgetMs\": -1}", &z), CAIRN_RANGE);
  CHECK_RC(cairn_mem_tick_json(m, "{\"budget\": 5}", &z), CAIRN_MISUSE);
  CHECK_OK(cairn_mem_tick_json(m, "{\"budgetMs\": 1000, \"consolidate\": {\"capacity\": 1}}", &z));
  CHECK(contains(z, "\"done\":["));
  cairn_free(z);
  CHECK_OK(cairn_mem_close(m));
}

/* ---- the tick: budget 0 runs nothing; a budget runs what is due; the result is durable ---- */
TEST(cons, tick_durable) {
  const char *zPath = tfTmp("tick.mem");
  cairn_mem *m;
  cairn_mem_config mc;
  memset(&mc, 0, sizeof mc);
  mc.noSync = 1;
  /* start empty */
  CHECK_OK(cairn_mem_open(zPath, &mc, &m));
  CHECK_OK(cairn_mem_delete_where(m, "{}", NULL));
  CHECK_OK(cairn_mem_compact(m));
  uint64_t s = 7;
  char z[256];
  uint64_t idFirst = 0;
  for (int i = 0; i < 50; i++) {
    noise(z, sizeof z, &s, i);
    uint64_t id = addText(m, z, 0, NULL);
    CHECK(id);
    if (!idFirst) idFirst = id;
  }
  cairn_mem_consolidate_config cf = cfgCap(20);
  cairn_mem_tick_config tc;
  memset(&tc, 0, sizeof tc);
  tc.pConsolidate = &cf;
  cairn_mem_tick_report tr;
  CHECK_OK(cairn_mem_tick(m, &tc, &tr)); /* budget 0 */
  CHECK(tr.due & CAIRN_TICK_COMMIT);
  CHECK(tr.due & CAIRN_TICK_CONSOLIDATE);
  CHECK_EQ(tr.done, 0);
  CHECK_EQ(tr.skipped, tr.due);
  tc.budgetMs = -1;
  CHECK_RC(cairn_mem_tick(m, &tc, &tr), CAIRN_RANGE);
  tc.budgetMs = 10000;
  CHECK_OK(cairn_mem_tick(m, &tc, &tr));
  CHECK(tr.done & CAIRN_TICK_COMMIT);
  CHECK(tr.done & CAIRN_TICK_CONSOLIDATE);
  CHECK_EQ(tr.consolidate.nEvicted, 30);
  CHECK_OK(cairn_mem_tick(m, &tc, &tr)); /* nothing left to do */
  CHECK_EQ(tr.due & (CAIRN_TICK_COMMIT | CAIRN_TICK_CONSOLIDATE), 0);
  /* a tick commits what it wrote: drop the handle without committing, reopen */
  cairn_mem_stats st;
  CHECK_OK(cairn_mem_stats_get(m, &st));
  CHECK_EQ(st.nUncommitted, 0);
  CHECK_OK(cairn_mem_close(m));
  CHECK_OK(cairn_mem_open(zPath, &mc, &m));
  CHECK_EQ(countTier(m, CAIRN_TIER_WORKING, idFirst + 200), 20);
  CHECK_EQ(countTier(m, CAIRN_TIER_EPISODIC, idFirst + 200), 30);
  CHECK(addText(m, "one more memory, in the log", 0, NULL));
  tc.checkpointAt = 1;
  CHECK_OK(cairn_mem_tick(m, &tc, &tr));
  CHECK(tr.done & CAIRN_TICK_CHECKPOINT);
  CHECK_OK(cairn_mem_close(m));
}

/* ---- out of memory anywhere in a cycle: NOMEM (or a success the store absorbed), never a crash ---- */
TEST(cons, oom_sweep) {
  cairn_host base = *cairn_host_get();
  int nOk = 0, nNomem = 0;
  for (long n = 0; n < 400 && !nOk; n++) {
    cairn_mem *m = NULL;
    CHECK_OK(cairn_mem_open(NULL, NULL, &m));
    /* memory 1 (linked to, so it scores highest) stays; the two near duplicates are evicted and merged */
    CHECK(addText(m, "an unrelated thought about kites", 0, NULL));
    CHECK(addText(m, "the boiler service is booked for monday", 0, "{\"links\":[1]}"));
    CHECK(addText(m, "the boiler service is booked for monday.", 0, NULL));
    cairn_mem_consolidate_config cf = cfgCap(1);
    cairn_mem_consolidate_report rep;
    oomInstallOnce(&base, n);
    int rc = cairn_mem_consolidate(m, &cf, &rep);
    int reached = oomReached();
    oomDisarm();
    cairn_host_set(&base);
    /* a failure the store absorbs (its optional dedup table) may still let the cycle succeed */
    if (rc == CAIRN_OK) CHECK_EQ(rep.nEvicted, 2);
    else {
      CHECK_RC(rc, CAIRN_NOMEM);
      nNomem++;
    }
    if (!reached) {
      CHECK_EQ(rep.nPromoted, 1);
      nOk = 1;
    }
    cairn_clearerr();
    CHECK_OK(cairn_mem_close(m));
  }
  CHECK(nOk);
  CHECK(nNomem > 10);
}
