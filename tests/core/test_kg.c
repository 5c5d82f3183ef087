/*
** 2026-12-02
**
** tests/core/test_kg.c - the knowledge graph (core/kg): entities, aliases, facts with validity,
** functional predicates, resolution and merges, forgetting, graph and time queries, time
** expressions, the extractor, the /graph group across reopen, the fused search, and bad input
** (each failure leaves the graph as it was).
*/
#include <stdlib.h>
#include <string.h>

#include "cairn/kg.h"
#include "kg/kg_int.h"
#include "tf.h"

#define DAY 86400000LL
static int64_t ymd(int y, int m, int d) { /* days from civil */
  y -= m <= 2;
  int era = (y >= 0 ? y : y - 399) / 400, yoe = y - era * 400, mp = (m + 9) % 12;
  int doy = (153 * mp + 2) / 5 + d - 1, doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return ((int64_t)era * 146097 + doe - 719468) * DAY;
}

static cairn_kg_fact fact(const char *s, const char *p, const char *o, int64_t validAt) {
  cairn_kg_fact f;
  memset(&f, 0, sizeof f);
  f.zSubject = s, f.zPredicate = p, f.zObject = o;
  f.validAt = validAt, f.invalidAt = f.expiredAt = CAIRN_KG_NONE, f.createdAt = validAt == CAIRN_KG_NONE ? 1000 : validAt;
  return f;
}

TEST(kg, entities_aliases) {
  cairn_kg *g;
  CHECK_OK(cairn_kg_open(NULL, 0, &g));
  uint32_t a, b, c;
  CHECK_OK(cairn_kg_entity_add(g, "Maya Silva", "person", &a));
  CHECK_OK(cairn_kg_entity_add(g, "maya  silva!", NULL, &b));
  CHECK_EQ(a, b);
  CHECK_OK(cairn_kg_alias(g, a, "my sister"));
  CHECK_OK(cairn_kg_find(g, "My Sister", &c));
  CHECK_EQ(c, a);
  CHECK_OK(cairn_kg_entity_add(g, "Ines", "person", &b));
  /* an alias pointing at two entities: refused, nothing changed */
  CHECK_RC(cairn_kg_alias(g, b, "my sister"), CAIRN_EXISTS);
  CHECK_OK(cairn_kg_find(g, "my sister", &c));
  CHECK_EQ(c, a);
  CHECK_OK(cairn_kg_alias(g, a, "my sister")); /* same entity again: no-op */
  cairn_kg_entity e;
  CHECK_OK(cairn_kg_entity_get(g, a, &e));
  CHECK_EQ(e.nAlias, 1);
  CHECK(!strcmp(e.zType, "person"));
  CHECK_RC(cairn_kg_entity_add(g, "", NULL, &c), CAIRN_RANGE);
  CHECK_RC(cairn_kg_entity_add(g, "!!!", NULL, &c), CAIRN_RANGE);
  CHECK_EQ(cairn_kg_entity_count(g), 2);
  CHECK_RC(cairn_kg_find(g, "nobody", &c), CAIRN_NOTFOUND);
  cairn_kg_close(g);
}

TEST(kg, functional_bitemporal) {
  cairn_kg *g;
  CHECK_OK(cairn_kg_open(NULL, 0, &g));
  CHECK_OK(cairn_kg_functional(g, "lives_in", 0));
  cairn_kg_fact f = fact("Maya", "lives_in", "Porto", ymd(2020, 1, 1));
  uint32_t f1, f2, f3;
  CHECK_OK(cairn_kg_add_fact(g, &f, &f1));
  f = fact("Maya", "lives_in", "Lisbon", ymd(2023, 5, 1));
  CHECK_OK(cairn_kg_add_fact(g, &f, &f2));
  cairn_kg_fact o;
  CHECK_OK(cairn_kg_fact_get(g, f1, &o));
  CHECK_EQ(o.invalidAt, ymd(2023, 5, 1)); /* kept, invalidated */
  CHECK(o.expiredAt != CAIRN_KG_NONE);
  CHECK(!cairn_kg_fact_valid(g, f1, CAIRN_KG_NOW));
  CHECK(cairn_kg_fact_valid(g, f1, ymd(2021, 6, 1)));
  CHECK(!cairn_kg_fact_valid(g, f2, ymd(2021, 6, 1)));
  CHECK(cairn_kg_fact_valid(g, f2, CAIRN_KG_NOW));
  /* older news arriving late: it ends where the current one begins, the current one stays */
  f = fact("Maya", "lives_in", "Braga", ymd(2018, 1, 1));
  CHECK_OK(cairn_kg_add_fact(g, &f, &f3));
  CHECK_OK(cairn_kg_fact_get(g, f3, &o));
  CHECK(o.invalidAt != CAIRN_KG_NONE);
  CHECK(cairn_kg_fact_valid(g, f2, CAIRN_KG_NOW));
  /* the same fact again adds a source, no new fact */
  uint64_t src = 7;
  f = fact("Maya", "lives_in", "Lisbon", ymd(2023, 6, 1));
  f.aSource = &src, f.nSource = 1;
  uint32_t f4;
  CHECK_OK(cairn_kg_add_fact(g, &f, &f4));
  CHECK_EQ(f4, f2);
  uint32_t aF[8], n;
  CHECK_OK(cairn_kg_facts_at(g, ymd(2021, 1, 1), aF, 8, &n));
  CHECK_EQ(n, 1);
  CHECK_EQ(aF[0], f1);
  CHECK_OK(cairn_kg_facts_between(g, ymd(2019, 1, 1), ymd(2024, 1, 1), aF, 8, &n));
  CHECK_EQ(n, 2);
  /* non-functional predicates keep several current values */
  f = fact("Maya", "likes", "jazz", CAIRN_KG_NONE);
  CHECK_OK(cairn_kg_add_fact(g, &f, NULL));
  f = fact("Maya", "likes", "hiking", CAIRN_KG_NONE);
  CHECK_OK(cairn_kg_add_fact(g, &f, NULL));
  /* declared functional after conflicts: refused unchanged, then resolved to the latest */
  uint32_t nBefore = cairn_kg_fact_count(g);
  CHECK_RC(cairn_kg_functional(g, "likes", 0), CAIRN_EXISTS);
  CHECK_OK(cairn_kg_facts_at(g, CAIRN_KG_NOW, aF, 8, &n));
  CHECK_EQ(n, 3);
  CHECK_OK(cairn_kg_functional(g, "likes", CAIRN_KG_RESOLVE));
  CHECK_OK(cairn_kg_facts_at(g, CAIRN_KG_NOW, aF, 8, &n));
  CHECK_EQ(n, 2);
  CHECK_EQ(cairn_kg_fact_count(g), nBefore);
  cairn_kg_close(g);
}

TEST(kg, bad_facts_leave_graph_unchanged) {
  cairn_kg *g;
  CHECK_OK(cairn_kg_open(NULL, 0, &g));
  cairn_kg_fact f = fact("A", "knows", NULL, CAIRN_KG_NONE);
  CHECK_RC(cairn_kg_add_fact(g, &f, NULL), CAIRN_MISUSE); /* missing object */
  f = fact("A", "knows", "B", CAIRN_KG_TIME_MAX + 1);
  CHECK_RC(cairn_kg_add_fact(g, &f, NULL), CAIRN_RANGE);
  f = fact("A", "knows", "B", ymd(2020, 1, 1));
  f.invalidAt = ymd(2019, 1, 1);
  CHECK_RC(cairn_kg_add_fact(g, &f, NULL), CAIRN_RANGE);
  f = fact(NULL, "knows", "B", CAIRN_KG_NONE);
  f.subject = 99;
  CHECK_RC(cairn_kg_add_fact(g, &f, NULL), CAIRN_NOTFOUND);
  CHECK_EQ(cairn_kg_entity_count(g), 0);
  CHECK_EQ(cairn_kg_fact_count(g), 0);
  /* JSON batch: one bad fact and none is added */
  uint32_t n = 5;
  CHECK_RC(cairn_kg_add_facts_json(g, "[{\"subject\":\"A\",\"predicate\":\"knows\",\"object\":\"B\"},"
                                       "{\"subject\":\"C\",\"predicate\":\"knows\"}]", &n), CAIRN_MISUSE);
  CHECK_EQ(n, 0);
  CHECK_EQ(cairn_kg_entity_count(g), 0);
  CHECK_EQ(cairn_kg_fact_count(g), 0);
  CHECK_RC(cairn_kg_add_facts_json(g, "[{\"subject\":\"A\",\"predicate\":\"p\",\"object\":\"B\",\"bogus\":1}]", &n), CAIRN_MISUSE);
  CHECK_RC(cairn_kg_add_facts_json(g, "[{\"subject\":\"A\",\"predicate\":\"p\",\"object\":\"B\",\"validAt\":1e300}]", &n), CAIRN_RANGE);
  CHECK_OK(cairn_kg_add_facts_json(g, "[{\"subject\":\"A\",\"predicate\":\"knows\",\"object\":\"B\",\"sources\":[1,2]},"
                                       "{\"subject\":\"B\",\"predicate\":\"age\",\"literal\":\"41\"}]", &n));
  CHECK_EQ(n, 2);
  CHECK_EQ(cairn_kg_fact_count(g), 2);
  /* self-edge: allowed and harmless to every query */
  f = fact("A", "likes", "A", CAIRN_KG_NONE);
  CHECK_OK(cairn_kg_add_fact(g, &f, NULL));
  uint32_t a, aOut[8];
  CHECK_OK(cairn_kg_find(g, "A", &a));
  CHECK_OK(cairn_kg_bfs(g, a, 5, CAIRN_KG_NOW, aOut, NULL, 8, &n));
  CHECK_EQ(n, 2);
  CHECK_RC(cairn_kg_time_add(g, 1, 10, 5), CAIRN_RANGE);
  CHECK_RC(cairn_kg_time_add(g, 1, CAIRN_KG_TIME_MIN - 1, 5), CAIRN_RANGE);
  cairn_kg_close(g);
}

TEST(kg, queries_cycles) {
  cairn_kg *g;
  CHECK_OK(cairn_kg_open(NULL, 0, &g));
  /* a ring A-B-C-D-A and a tail D-E */
  const char *az[][2] = {{"A", "B"}, {"B", "C"}, {"C", "D"}, {"D", "A"}, {"D", "E"}};
  for (int i = 0; i < 5; i++) {
    cairn_kg_fact f = fact(az[i][0], "knows", az[i][1], CAIRN_KG_NONE);
    CHECK_OK(cairn_kg_add_fact(g, &f, NULL));
  }
  uint32_t a, e, aOut[16], aD[16], n;
  CHECK_OK(cairn_kg_find(g, "A", &a));
  CHECK_OK(cairn_kg_find(g, "E", &e));
  CHECK_OK(cairn_kg_bfs(g, a, 1, CAIRN_KG_NOW, aOut, aD, 16, &n));
  CHECK_EQ(n, 3);
  CHECK_OK(cairn_kg_bfs(g, a, 10, CAIRN_KG_NOW, aOut, aD, 16, &n));
  CHECK_EQ(n, 5);
  CHECK_EQ(aD[4], 2);
  CHECK_OK(cairn_kg_path(g, a, e, CAIRN_KG_NOW, aOut, 16, &n));
  CHECK_EQ(n, 3); /* A D E */
  CHECK_EQ(aOut[0], a);
  CHECK_EQ(aOut[2], e);
  cairn_kg_edge aE[8];
  CHECK_OK(cairn_kg_neighbors(g, a, CAIRN_KG_NOW, aE, 8, &n));
  CHECK_EQ(n, 2);
  float aS[16];
  CHECK_OK(cairn_kg_activate(g, &a, 1, 5, 0.5f, CAIRN_KG_NOW, aOut, aS, 16, &n));
  CHECK_EQ(n, 5);
  CHECK_EQ(aOut[0], a);
  CHECK(aS[n - 1] > 0);
  /* merge E into B: the path A..E is now A B */
  uint32_t b, m;
  CHECK_OK(cairn_kg_find(g, "B", &b));
  CHECK_RC(cairn_kg_merge(g, b, b, NULL, &m), CAIRN_MISUSE);
  CHECK_OK(cairn_kg_merge(g, e, b, "same person", &m));
  CHECK_RC(cairn_kg_merge(g, b, e, NULL, NULL), CAIRN_MISUSE); /* would be a cycle */
  uint32_t x;
  CHECK_OK(cairn_kg_find(g, "E", &x));
  CHECK_EQ(x, b);
  CHECK_OK(cairn_kg_path(g, a, e, CAIRN_KG_NOW, aOut, 16, &n));
  CHECK_EQ(n, 2);
  CHECK_OK(cairn_kg_unmerge(g, m));
  CHECK_RC(cairn_kg_unmerge(g, m), CAIRN_MISUSE);
  CHECK_OK(cairn_kg_find(g, "E", &x));
  CHECK_EQ(x, e);
  /* resolution */
  cairn_kg_match aM[4];
  uint32_t id;
  CHECK_OK(cairn_kg_entity_add(g, "Caroline Hughes", "person", &id));
  CHECK_OK(cairn_kg_resolve(g, "Carolin Hughes", NULL, 0, 0.7f, aM, 4, &n));
  CHECK(n >= 1);
  CHECK_EQ(aM[0].id, id);
  CHECK_OK(cairn_kg_resolve(g, "Caroline", NULL, 0, 0.8f, aM, 4, &n));
  CHECK(n >= 1);
  CHECK_EQ(aM[0].id, id);
  CHECK_EQ(aM[0].how, CAIRN_KG_BY_TOKEN);
  float v1[3] = {1, 0, 0}, v2[3] = {0.9f, 0.1f, 0};
  CHECK_OK(cairn_kg_embedding(g, id, v1, 3));
  CHECK_OK(cairn_kg_resolve(g, "Zzyzx", v2, 3, 0.9f, aM, 4, &n));
  CHECK_EQ(n, 1);
  CHECK_EQ(aM[0].how, CAIRN_KG_BY_EMBEDDING);
  cairn_kg_close(g);
}

TEST(kg, forget_memory) {
  cairn_kg *g;
  CHECK_OK(cairn_kg_open(NULL, 0, &g));
  uint64_t s1[2] = {1, 2}, s2 = 2;
  cairn_kg_fact f = fact("A", "knows", "B", CAIRN_KG_NONE);
  f.aSource = s1, f.nSource = 2;
  uint32_t f1, f2, n;
  CHECK_OK(cairn_kg_add_fact(g, &f, &f1));
  f = fact("A", "knows", "C", CAIRN_KG_NONE);
  f.aSource = &s2, f.nSource = 1;
  CHECK_OK(cairn_kg_add_fact(g, &f, &f2));
  uint32_t a;
  CHECK_OK(cairn_kg_find(g, "A", &a));
  CHECK_OK(cairn_kg_mention(g, a, 2));
  CHECK_OK(cairn_kg_forget_memory(g, 2, &n));
  CHECK_EQ(n, 1); /* only f2 lost all support */
  CHECK(cairn_kg_fact_valid(g, f1, CAIRN_KG_NOW));
  CHECK(!cairn_kg_fact_valid(g, f2, CAIRN_KG_ANY));
  uint64_t aM[4];
  CHECK_OK(cairn_kg_mentions(g, a, aM, 4, &n));
  CHECK_EQ(n, 0);
  cairn_kg_close(g);
}

static int64_t tp(const char *z, int64_t ref, int64_t *pHi) {
  cairn_kg_time t[4];
  uint32_t n = 0;
  if (cairn_kg_time_parse(z, strlen(z), ref, t, 4, &n) || n == 0) return -1;
  if (pHi) *pHi = t[0].hi;
  return t[0].lo;
}

TEST(kg, time_expressions) {
  int64_t ref = ymd(2023, 5, 8) + 13 * 3600000LL, hi; /* Monday 8 May 2023, 1 pm */
  CHECK_EQ(tp("I went yesterday", ref, NULL), ymd(2023, 5, 7));
  CHECK_EQ(tp("on 8 May, 2023", ref, &hi), ymd(2023, 5, 8));
  CHECK_EQ(hi, ymd(2023, 5, 9));
  CHECK_EQ(tp("May 20, 2022", ref, NULL), ymd(2022, 5, 20));
  CHECK_EQ(tp("2021-03-04", ref, NULL), ymd(2021, 3, 4));
  CHECK_EQ(tp("back in 2022", ref, &hi), ymd(2022, 1, 1));
  CHECK_EQ(hi, ymd(2023, 1, 1));
  CHECK_EQ(tp("last May", ref, NULL), ymd(2022, 5, 1));
  CHECK_EQ(tp("in March", ref, NULL), ymd(2023, 3, 1));
  CHECK_EQ(tp("in June 2023", ref, NULL), ymd(2023, 6, 1));
  CHECK_EQ(tp("last week", ref, NULL), ymd(2023, 5, 1));
  CHECK_EQ(tp("last month", ref, NULL), ymd(2023, 4, 1));
  CHECK_EQ(tp("last year", ref, NULL), ymd(2022, 1, 1));
  CHECK_EQ(tp("two weeks ago", ref, &hi), ymd(2023, 4, 24) - 3 * DAY);
  CHECK_EQ(tp("3 days ago", ref, NULL), ymd(2023, 5, 5));
  CHECK_EQ(tp("a few days ago", ref, NULL), ymd(2023, 5, 5));
  CHECK_EQ(tp("the day before", ref, NULL), ymd(2023, 5, 7));
  CHECK_EQ(tp("last Friday", ref, NULL), ymd(2023, 5, 5));
  CHECK_EQ(tp("last weekend", ref, NULL), ymd(2023, 5, 6));
  CHECK_EQ(tp("next month", ref, NULL), ymd(2023, 6, 1));
  CHECK_EQ(tp("last summer", ref, NULL), ymd(2022, 6, 1));
  CHECK_EQ(tp("I may go", ref, NULL), -1); /* the verb is not a month */
  CHECK_EQ(tp("nothing here", ref, NULL), -1);
  cairn_kg_time t[2];
  uint32_t n;
  CHECK_RC(cairn_kg_time_parse("x", 1, CAIRN_KG_TIME_MAX + 1, t, 2, &n), CAIRN_RANGE);
  /* long text: every window */
  char *z = malloc(20000);
  size_t k = 0;
  for (int i = 0; i < 600; i++) k += (size_t)sprintf(z + k, "word yesterday ");
  CHECK_OK(cairn_kg_time_parse(z, k, ref, NULL, 0, &n));
  cairn_kg_time *aT = malloc(700 * sizeof *aT);
  CHECK_OK(cairn_kg_time_parse(z, k, ref, aT, 700, &n));
  CHECK_EQ(n, 600);
  free(aT), free(z);
}

TEST(kg, extractor) {
  cairn_kg *g;
  CHECK_OK(cairn_kg_open(NULL, 0, &g));
  int64_t ref = ymd(2023, 5, 8);
  uint32_t nE, nF, id, s;
  CHECK_OK(cairn_kg_extract(g, 1, "Caroline: My sister Ines moved to Lisbon last May.", "Caroline", ref, &nE, &nF));
  CHECK(nE >= 3);
  CHECK(nF >= 1);
  CHECK_OK(cairn_kg_find(g, "Ines", &id));
  CHECK_OK(cairn_kg_find(g, "Caroline's sister", &s));
  CHECK_EQ(s, id);
  CHECK_OK(cairn_kg_extract(g, 2, "I called my sister yesterday.", "Caroline", ref, &nE, &nF));
  uint64_t aM[4];
  uint32_t n;
  CHECK_OK(cairn_kg_mentions(g, id, aM, 4, &n));
  CHECK_EQ(n, 2); /* "my sister" resolved to Ines */
  uint64_t aMem[4];
  CHECK_OK(cairn_kg_time_range(g, ymd(2023, 5, 7), ymd(2023, 5, 8), aMem, 4, &n));
  CHECK_EQ(n, 1);
  CHECK_EQ(aMem[0], 2);
  char *zJ;
  CHECK_OK(cairn_kg_extract_json("Melanie: I work at Acme Corp since 2021.", "Melanie", ref, &zJ));
  CHECK(strstr(zJ, "\"works_at\"") != NULL);
  CHECK(strstr(zJ, "Acme Corp") != NULL);
  cairn_free(zJ);
  cairn_kg_close(g);
}

TEST(kg, persist_reopen) {
  const char *zPath = tfTmp("kg_reopen.h5");
  cairn_file *f;
  CHECK_OK(cairn_open(zPath, CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE | CAIRN_OPEN_TRUNCATE, &f));
  cairn_kg *g;
  CHECK_OK(cairn_kg_open(f, CAIRN_KG_NOSYNC, &g));
  CHECK_OK(cairn_kg_functional(g, "lives_in", 0));
  uint64_t src = 3;
  cairn_kg_fact k = fact("Maya", "lives_in", "Porto", ymd(2020, 1, 1));
  k.aSource = &src, k.nSource = 1;
  uint32_t f1, id;
  CHECK_OK(cairn_kg_add_fact(g, &k, &f1));
  CHECK_OK(cairn_kg_find(g, "Maya", &id));
  CHECK_OK(cairn_kg_alias(g, id, "my sister"));
  CHECK_OK(cairn_kg_time_add(g, 3, ymd(2020, 1, 1), ymd(2020, 1, 2)));
  float v[2] = {0.5f, 0.25f};
  CHECK_OK(cairn_kg_embedding(g, id, v, 2));
  CHECK_OK(cairn_kg_commit(g));
  /* the second commit appends and rewrites f1 in place (invalidated) */
  k = fact("Maya", "lives_in", "Lisbon", ymd(2023, 5, 1));
  CHECK_OK(cairn_kg_add_fact(g, &k, NULL));
  CHECK_OK(cairn_kg_close(g));
  CHECK_OK(cairn_kg_open(f, CAIRN_KG_READONLY, &g));
  CHECK_EQ(cairn_kg_fact_count(g), 2);
  CHECK(!cairn_kg_fact_valid(g, f1, CAIRN_KG_NOW));
  CHECK(cairn_kg_fact_valid(g, f1, ymd(2021, 1, 1)));
  uint32_t x;
  CHECK_OK(cairn_kg_find(g, "my sister", &x));
  CHECK_EQ(x, id);
  uint64_t aS[2];
  uint32_t n;
  CHECK_OK(cairn_kg_fact_sources(g, f1, aS, 2, &n));
  CHECK_EQ(n, 1);
  CHECK_EQ(aS[0], 3);
  cairn_kg_entity e;
  CHECK_OK(cairn_kg_entity_get(g, id, &e));
  CHECK_EQ(e.nEmbedding, 2);
  uint64_t aM[2];
  CHECK_OK(cairn_kg_time_range(g, ymd(2020, 1, 1), ymd(2020, 2, 1), aM, 2, &n));
  CHECK_EQ(n, 1);
  /* functional survives: a new value invalidates */
  cairn_kg_close(g);
  CHECK_OK(cairn_kg_open(f, CAIRN_KG_NOSYNC, &g));
  k = fact("Maya", "lives_in", "Faro", ymd(2024, 1, 1));
  CHECK_OK(cairn_kg_add_fact(g, &k, NULL));
  uint32_t aF[4];
  CHECK_OK(cairn_kg_facts_at(g, CAIRN_KG_NOW, aF, 4, &n));
  CHECK_EQ(n, 1);
  CHECK_OK(cairn_kg_forget_memory(g, 3, &n));
  CHECK_EQ(n, 1);
  CHECK_OK(cairn_kg_close(g));
  CHECK_OK(cairn_kg_open(f, CAIRN_KG_READONLY, &g));
  CHECK(!cairn_kg_fact_valid(g, f1, CAIRN_KG_ANY)); /* removed, persisted */
  CHECK_EQ(cairn_kg_fact_count(g), 3);
  cairn_kg_close(g);
  cairn_file_close(f);
}

/* An in-memory store and graph of a two-speaker chat (zA the even turns, zB the odd ones), one
** day apart from 2023-05-08, each turn run through the extractor. */
static void kgChat(const char **az, int n, const char *zA, const char *zB, cairn_mem **pm, cairn_kg **pg) {
  cairn_mem_config cfg = {0};
  cfg.textOnly = 1;
  CHECK_OK(cairn_mem_open(NULL, &cfg, pm));
  CHECK_OK(cairn_kg_open(NULL, 0, pg));
  for (int i = 0; i < n; i++) {
    cairn_mem_record r;
    memset(&r, 0, sizeof r);
    r.zText = az[i], r.zRole = i % 2 ? zB : zA, r.eventMs = ymd(2023, 5, 8) + i * DAY, r.createdMs = r.eventMs;
    uint64_t id;
    CHECK_OK(cairn_mem_add(*pm, &r, &id));
    CHECK_OK(cairn_kg_extract(*pg, id, r.zText, r.zRole, r.eventMs, NULL, NULL));
  }
}

TEST(kg, fused_search) {
  cairn_mem *m;
  cairn_kg *g;
  const char *az[] = {"Caroline: My sister Ines moved to Lisbon.", "Melanie: I painted a sunrise.",
                      "Caroline: I went to the support group yesterday.", "Melanie: The kids loved the museum.",
                      "Caroline: Ines called me, she loves the city."};
  kgChat(az, 5, "Caroline", "Melanie", &m, &g);
  cairn_mem_hit aH[5];
  uint32_t n;
  cairn_kg_search_opts o;
  memset(&o, 0, sizeof o);
  o.mode = CAIRN_MEM_BM25, o.k = 5;
  CHECK_OK(cairn_kg_search(g, m, "When did Caroline go to the support group?", &o, aH, &n));
  CHECK(n >= 1);
  CHECK_EQ(aH[0].id, 3);
  CHECK_OK(cairn_kg_search(g, m, "Where does Caroline's sister live?", &o, aH, &n));
  CHECK(n >= 2);
  CHECK(aH[0].id == 1 || aH[0].id == 5);
  cairn_kg_close(g);
  cairn_mem_close(m);
}

/* Expansion from the best text hits: a memory that shares none of the query's words but names the
** rare entity the best hit names ("Louvre") is found; without expansion it is not. */
TEST(kg, search_expands_from_hits) {
  cairn_mem *m;
  cairn_kg *g;
  const char *az[] = {"Melanie: We went to see the Louvre in Paris.", "Caroline: I baked bread today.",
                      "Melanie: The kids played outside.", "Caroline: The Louvre pyramid glowed at night, Tom said.",
                      "Melanie: I painted a lake.", "Caroline: Rain all week here."};
  kgChat(az, 6, "Melanie", "Caroline", &m, &g);
  uint32_t idL;
  CHECK_OK(cairn_kg_find(g, "Louvre", &idL));
  cairn_mem_hit aH[6];
  uint32_t n;
  cairn_kg_search_opts o;
  memset(&o, 0, sizeof o);
  o.mode = CAIRN_MEM_BM25, o.k = 6, o.noContext = 1, o.noTime = 1;
  int bFound[2] = {0, 0};
  for (int x = 0; x < 2; x++) {
    o.noExpand = x;
    CHECK_OK(cairn_kg_search(g, m, "What did Melanie see in Paris?", &o, aH, &n));
    CHECK(n >= 1);
    CHECK_EQ(aH[0].id, 1);
    for (uint32_t i = 0; i < n; i++) bFound[x] |= aH[i].id == 4 && aH[i].score > 0;
  }
  CHECK(bFound[0]);
  CHECK(!bFound[1]);
  cairn_kg_close(g);
  cairn_mem_close(m);
}

/* The bidirectional path agrees with BFS distances on a random graph, and each step is an edge. */
TEST(kg, path_matches_bfs) {
  cairn_kg *g;
  CHECK_OK(cairn_kg_open(NULL, 0, &g));
  uint64_t x = 99;
  char z[16];
  for (int i = 0; i < 300; i++) {
    uint32_t id;
    sprintf(z, "n%d", i);
    CHECK_OK(cairn_kg_entity_add(g, z, NULL, &id));
  }
  cairn_kg_fact f = fact(NULL, "r", NULL, CAIRN_KG_NONE);
  for (int i = 0; i < 450; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    f.subject = 1 + (uint32_t)(x % 300), f.object = 1 + (uint32_t)((x >> 20) % 300);
    CHECK_OK(cairn_kg_add_fact(g, &f, NULL));
  }
  static uint32_t aB[400], aD[400], aP[400];
  for (uint32_t a = 1; a <= 300; a += 37) {
    uint32_t nB;
    CHECK_OK(cairn_kg_bfs(g, a, 1000, CAIRN_KG_NOW, aB, aD, 400, &nB));
    for (uint32_t b = 1; b <= 300; b += 7) {
      uint32_t want = 0, found = 0, nP = 0;
      for (uint32_t i = 0; i < nB; i++)
        if (aB[i] == b) want = aD[i], found = 1;
      int rc = cairn_kg_path(g, a, b, CAIRN_KG_NOW, aP, 400, &nP);
      if (!found) {
        CHECK_RC(rc, CAIRN_NOTFOUND);
        continue;
      }
      CHECK_OK(rc);
      CHECK_EQ(nP, want + 1);
      CHECK_EQ(aP[0], a);
      CHECK_EQ(aP[nP - 1], b);
      for (uint32_t i = 0; i + 1 < nP; i++) {
        cairn_kg_edge aE[64];
        uint32_t nE, adj = 0;
        CHECK_OK(cairn_kg_neighbors(g, aP[i], CAIRN_KG_NOW, aE, 64, &nE));
        for (uint32_t k = 0; k < nE && k < 64; k++) adj |= aE[k].other == aP[i + 1];
        CHECK(adj);
      }
    }
  }
  cairn_kg_close(g);
}

/* ---- crash safety of the /graph group: each write or sync of four commits fails, tears or loses
** power; the reopened graph is one of the committed states (at least the last acknowledged one),
** and its functional invalidation is there exactly when the commit that made it is. */
#include "faultfile.h"
#define KG_PER 3
static int kgCrashRun(const FaultSpec *spec, const char *zWhat) {
  cairn_file *base, *f;
  if (cairn_memfile_open(NULL, 0, &base)) return -1;
  faultfileWrap(base, 0, spec, &f);
  cairn_kg *g;
  int nAcked = -1, nAdded = 0;
  if (cairn_kg_open(f, 0, &g) == CAIRN_OK) {
    nAcked = 0;
    for (int c = 0; c < 4; c++) {
      if (c == 0 && cairn_kg_functional(g, "lives_in", 0) != CAIRN_OK) break;
      for (int i = 0; i < KG_PER; i++) {
        char zs[16], zo[16];
        sprintf(zs, "s%d", i), sprintf(zo, "o%d_%d", c, i);
        cairn_kg_fact k = fact(zs, "lives_in", zo, 1000000 + c * 1000);
        if (cairn_kg_add_fact(g, &k, NULL) == CAIRN_OK) nAdded++;
      }
      if (cairn_kg_commit(g) == CAIRN_OK || (!faultfileDead(f) && cairn_kg_commit(g) == CAIRN_OK)) nAcked = nAdded;
    }
    faultfilePowerLoss(f);
    cairn_kg_close(g);
  }
  uint32_t nW, nS;
  faultfileCounts(f, &nW, &nS);
  int reached = (spec->nFailWrite && nW >= spec->nFailWrite) || (spec->nTearWrite && nW >= spec->nTearWrite) ||
                (spec->nCrashWrite && nW >= spec->nCrashWrite) || (spec->nFailSync && nS >= spec->nFailSync) ||
                (spec->nCrashSync && nS >= spec->nCrashSync);
  cairn_file_close(f);
  faultfileWrap(base, 0, NULL, &f);
  uint64_t size = 0;
  cairn_file_size(f, &size);
  int bad = 0;
  if (nAcked > 0 || size > 0) {
    int rc = cairn_kg_open(f, CAIRN_KG_READONLY, &g);
    if (rc && nAcked > 0) {
      tfFail(__FILE__, __LINE__, "%s: reopen after the crash: %s", zWhat, cairn_errmsg());
      bad = 1;
    } else if (rc == CAIRN_OK) {
      uint32_t n = cairn_kg_fact_count(g);
      if ((int)n < (nAcked > 0 ? nAcked : 0) || (int)n > nAdded || n % KG_PER) {
        tfFail(__FILE__, __LINE__, "%s: %u facts after the crash; %d acknowledged, %d added", zWhat, n, nAcked, nAdded);
        bad = 1;
      }
      /* fact 1 (s0 -> o0_0) is invalidated by the second commit */
      if (!bad && n > KG_PER && cairn_kg_fact_valid(g, 1, CAIRN_KG_NOW)) {
        tfFail(__FILE__, __LINE__, "%s: %u facts but fact 1 still current", zWhat, n);
        bad = 1;
      }
      cairn_kg_close(g);
    }
  }
  cairn_file_close(f);
  cairn_file_close(base);
  return bad ? -1 : reached;
}

/* Every fault point N = 1, 2, ... of each kind (fail, tear, crash at a write or a sync) until a
** run no longer reaches it; xRun returns -1 on a wrong reopen, 0 when fault N was not reached. */
static void kgSweep(int (*xRun)(const FaultSpec *, const char *), const char *zWhat, uint64_t seed) {
  for (int field = 0; field < 5; field++)
    for (uint32_t n = 1; n < 400; n++) {
      FaultSpec spec;
      memset(&spec, 0, sizeof spec);
      spec.seed = seed + n, spec.bSectorAtomic = 1, spec.bGarble = field == 2;
      uint32_t *ap[5] = {&spec.nFailWrite, &spec.nFailSync, &spec.nTearWrite, &spec.nCrashWrite, &spec.nCrashSync};
      *ap[field] = n;
      int r = xRun(&spec, zWhat);
      CHECK(r >= 0);
      if (r <= 0) break;
    }
}

TEST(kg, crash_sweep) { kgSweep(kgCrashRun, "kg crash", 7); }

/* ---- the graph inside the memory store's file (cairn_kg_open_mem): written at the store's
** checkpoint, read back at reopen, forgetting a memory drops the facts only it supported (and
** their text leaves the file), a rewrite by a process that never opened the graph keeps it, a
** forget replayed from the log is caught up at attach, and a FILE.graph of before moves in. */
static int kgFileHas(const char *zPath, const char *z) { /* the raw bytes hold z */
  size_t n = 0, k = strlen(z), i = 0;
  uint8_t *p = tfReadFile(zPath, &n);
  while (p && i + k <= n && memcmp(p + i, z, k)) i++;
  cairn_free(p);
  return p ? i + k <= n : -1;
}
static uint64_t kgMemAdd(cairn_mem *m, const char *z) {
  cairn_mem_record r;
  memset(&r, 0, sizeof r);
  r.zText = z;
  uint64_t id = 0;
  if (cairn_mem_add(m, &r, &id) != CAIRN_OK) return 0;
  return id;
}
static int kgAddSrc(cairn_kg *g, const char *s, const char *p, const char *o, const char *lit, uint64_t src, uint32_t *pId) {
  cairn_kg_fact k = fact(s, p, o, 1000);
  k.zLiteral = lit;
  k.aSource = &src, k.nSource = 1;
  return cairn_kg_add_fact(g, &k, pId);
}
static int kgOpenStore(const char *zPath, int readOnly, uint32_t ckEvery, cairn_mem **pm) {
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.noSync = 1, cfg.textOnly = 1, cfg.readOnly = readOnly, cfg.checkpointEvery = ckEvery;
  return cairn_mem_open(zPath, &cfg, pm);
}

TEST(kg, in_store) {
  const char *zPath = tfTmp("kg_in_store.cmem");
  remove(zPath);
  cairn_mem *m;
  cairn_kg *g;
  CHECK_OK(kgOpenStore(zPath, 0, 0, &m));
  uint64_t a = kgMemAdd(m, "Maya moved to Lisbon"), b = kgMemAdd(m, "Maya cooks a stew"), c = kgMemAdd(m, "Maya met Tom");
  CHECK(a && b && c);
  CHECK_OK(cairn_mem_commit(m));
  CHECK_OK(cairn_kg_open_mem(m, NULL, 0, &g));
  uint32_t fLives, fDish, fKnows, fMet;
  CHECK_OK(kgAddSrc(g, "Maya", "lives_in", "Lisbon", NULL, a, &fLives));
  CHECK_OK(kgAddSrc(g, "Maya", "favourite_dish", NULL, "okra-pistachio-stew-77", b, &fDish));
  CHECK_OK(kgAddSrc(g, "Maya", "knows", "Tom", NULL, b, &fKnows));
  CHECK_OK(kgAddSrc(g, "Maya", "knows", "Tom", NULL, c, &fMet)); /* the same fact, a second source */
  CHECK_EQ(fMet, fKnows);
  CHECK_OK(cairn_kg_commit(g)); /* = a checkpoint of the store */
  CHECK_OK(cairn_kg_close(g));
  CHECK_OK(cairn_mem_close(m));
  CHECK_EQ(kgFileHas(zPath, "okra-pistachio-stew-77"), 1);
  /* read back from the store's file, read-only */
  CHECK_OK(kgOpenStore(zPath, 1, 0, &m));
  CHECK_OK(cairn_kg_open_mem(m, NULL, 0, &g));
  CHECK_EQ(cairn_kg_fact_count(g), 3);
  uint32_t id;
  CHECK_OK(cairn_kg_find(g, "maya", &id));
  CHECK_EQ(cairn_kg_entity_add(g, "Ines", NULL, &id), CAIRN_READONLY);
  CHECK_OK(cairn_kg_close(g));
  CHECK_OK(cairn_mem_close(m));
  /* forget b: the dish fact goes (only b supported it), knows stays (c supports it too) */
  CHECK_OK(kgOpenStore(zPath, 0, 0, &m));
  CHECK_OK(cairn_kg_open_mem(m, NULL, 0, &g));
  CHECK_OK(cairn_mem_delete(m, b));
  CHECK(!cairn_kg_fact_valid(g, fDish, CAIRN_KG_ANY));
  CHECK(cairn_kg_fact_valid(g, fKnows, CAIRN_KG_NOW));
  CHECK_OK(cairn_kg_commit(g));
  CHECK_EQ(kgFileHas(zPath, "okra-pistachio-stew-77"), 0);
  CHECK_EQ(kgFileHas(zPath, "cooks a stew"), 0);
  /* more memories and several incremental checkpoints (space reclaimed) keep the graph whole */
  for (int i = 0; i < 5; i++) {
    char z[64];
    sprintf(z, "round %d: Maya visited Porto", i);
    uint64_t x = kgMemAdd(m, z);
    CHECK(x);
    CHECK_OK(kgAddSrc(g, "Maya", "visited", "Porto", NULL, x, NULL));
    CHECK_OK(cairn_mem_commit(m));
    CHECK_OK(cairn_kg_commit(g));
  }
  CHECK_OK(cairn_kg_close(g));
  CHECK_OK(cairn_mem_close(m));
  /* a process that never opens the graph forgets a and compacts: the graph stays, minus a's fact */
  CHECK_OK(kgOpenStore(zPath, 0, 0, &m));
  CHECK_OK(cairn_mem_delete(m, a));
  CHECK_OK(cairn_mem_compact(m));
  CHECK_OK(cairn_mem_close(m));
  CHECK_OK(kgOpenStore(zPath, 1, 0, &m));
  CHECK_OK(cairn_kg_open_mem(m, NULL, 0, &g));
  CHECK_EQ(cairn_kg_fact_count(g), 4);
  CHECK(!cairn_kg_fact_valid(g, fLives, CAIRN_KG_ANY));
  CHECK(cairn_kg_fact_valid(g, fKnows, CAIRN_KG_NOW));
  uint64_t aS[4];
  uint32_t n;
  CHECK_OK(cairn_kg_fact_sources(g, fKnows, aS, 4, &n));
  CHECK_EQ(n, 1);
  CHECK_EQ(aS[0], c);
  CHECK_OK(cairn_kg_close(g));
  CHECK_OK(cairn_mem_close(m));
  /* a forget that only reached the store's log (no checkpoint, graph not attached) */
  CHECK_OK(kgOpenStore(zPath, 0, UINT32_MAX, &m));
  CHECK_OK(cairn_mem_delete(m, c));
  CHECK_OK(cairn_mem_commit(m));
  CHECK_OK(cairn_mem_close(m));
  CHECK_OK(kgOpenStore(zPath, 0, 0, &m));
  CHECK_OK(cairn_kg_open_mem(m, NULL, 0, &g));
  CHECK(!cairn_kg_fact_valid(g, fKnows, CAIRN_KG_ANY));
  /* one graph per store */
  cairn_kg *g2;
  CHECK_EQ(CAIRN_PRIMARY(cairn_kg_open_mem(m, NULL, 0, &g2)), CAIRN_EXISTS);
  CHECK_OK(cairn_kg_close(g));
  CHECK_OK(cairn_mem_close(m));
  remove(zPath);
}

/* Lazy read: opening a store's graph decodes nothing; the first graph call reads /graph. A forget
** and a compaction while it is unread keep it right: the rewrite reads it first, the forget is
** reconciled from the store's dead ids; the forgotten literal leaves the file. */
TEST(kg, in_store_lazy) {
  const char *zPath = tfTmp("kg_lazy.cmem");
  cairn_mem *m;
  cairn_kg *g;
  remove(zPath);
  CHECK_OK(kgOpenStore(zPath, 0, 0, &m));
  uint64_t a = kgMemAdd(m, "Maya moved to Lisbon");
  uint64_t b = kgMemAdd(m, "Maya cooks a stew");
  CHECK(a && b);
  CHECK_OK(cairn_kg_open_mem(m, NULL, 0, &g));
  CHECK_OK(kgAddSrc(g, "Maya", "lives_in", "Lisbon", NULL, a, NULL));
  CHECK_OK(kgAddSrc(g, "Maya", "favourite_dish", NULL, "quince-lentil-stew-19", b, NULL));
  CHECK_OK(cairn_kg_commit(g));
  CHECK_OK(cairn_kg_close(g));
  CHECK_OK(cairn_mem_close(m));
  /* read-only: unread at open, read by the first call */
  CHECK_OK(kgOpenStore(zPath, 1, 0, &m));
  CHECK_OK(cairn_kg_open_mem(m, NULL, 0, &g));
  CHECK(g->bUnread && g->nEnt == 0 && g->nFact == 0);
  CHECK_EQ(cairn_kg_fact_count(g), 2);
  CHECK(!g->bUnread);
  CHECK_EQ(cairn_kg_entity_count(g), 2);
  CHECK_OK(cairn_kg_close(g));
  CHECK_OK(cairn_mem_close(m));
  /* writable: forget b and compact while the graph is unread; close with it unread */
  CHECK_OK(kgOpenStore(zPath, 0, 0, &m));
  CHECK_OK(cairn_kg_open_mem(m, NULL, 0, &g));
  CHECK_OK(cairn_mem_delete(m, b));
  CHECK_OK(cairn_mem_commit(m));
  CHECK_OK(cairn_mem_compact(m));
  CHECK_OK(cairn_kg_close(g));
  CHECK_OK(cairn_mem_close(m));
  CHECK_EQ(kgFileHas(zPath, "quince-lentil-stew-19"), 0);
  CHECK_OK(kgOpenStore(zPath, 0, 0, &m));
  CHECK_OK(cairn_kg_open_mem(m, NULL, 0, &g));
  CHECK(g->bUnread);
  uint32_t at[4], n;
  CHECK_OK(cairn_kg_facts_at(g, CAIRN_KG_ANY, at, 4, &n));
  CHECK_EQ(n, 1);
  CHECK(cairn_kg_fact_valid(g, at[0], CAIRN_KG_NOW));
  /* a forget logged (no checkpoint) then read: reconciled at the read */
  CHECK_OK(cairn_kg_close(g));
  CHECK_OK(cairn_mem_close(m));
  CHECK_OK(kgOpenStore(zPath, 0, UINT32_MAX, &m));
  CHECK_OK(cairn_kg_open_mem(m, NULL, 0, &g));
  CHECK_OK(cairn_mem_delete(m, a));
  CHECK(g->bUnread);
  CHECK_OK(cairn_kg_facts_at(g, CAIRN_KG_ANY, at, 4, &n));
  CHECK_EQ(n, 0);
  CHECK_OK(cairn_kg_close(g));
  CHECK_OK(cairn_mem_close(m));
  remove(zPath);
}

TEST(kg, in_store_migrate) {
  const char *zPath = tfTmp("kg_migrate.cmem"), *zOld = tfTmp("kg_migrate.cmem.graph");
  remove(zPath), remove(zOld);
  cairn_file *f;
  cairn_kg *g;
  CHECK_OK(cairn_open(zOld, CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE, &f));
  CHECK_OK(cairn_kg_open(f, CAIRN_KG_NOSYNC, &g));
  CHECK_OK(cairn_kg_functional(g, "lives_in", 0));
  CHECK_OK(kgAddSrc(g, "Maya", "lives_in", "Porto", NULL, 1, NULL));
  CHECK_OK(kgAddSrc(g, "Maya", "lives_in", "Lisbon", NULL, 1, NULL));
  CHECK_OK(cairn_kg_close(g));
  cairn_mem *m;
  CHECK_OK(kgOpenStore(zPath, 0, 0, &m));
  CHECK(kgMemAdd(m, "Maya lives in Lisbon"));
  CHECK_OK(cairn_kg_open_mem(m, f, 0, &g));
  CHECK_OK(cairn_kg_commit(g));
  CHECK_OK(cairn_kg_close(g));
  CHECK_OK(cairn_mem_close(m));
  cairn_file_close(f);
  remove(zOld);
  CHECK_OK(kgOpenStore(zPath, 1, 0, &m));
  CHECK_OK(cairn_kg_open_mem(m, NULL, 0, &g));
  CHECK_EQ(cairn_kg_fact_count(g), 2);
  CHECK(!cairn_kg_fact_valid(g, 1, CAIRN_KG_NOW));
  CHECK(cairn_kg_fact_valid(g, 2, CAIRN_KG_NOW));
  CHECK_OK(cairn_kg_close(g));
  CHECK_OK(cairn_mem_close(m));
  remove(zPath);
}

/* Crash safety of store + graph in one file: each write or sync of four checkpoints fails, tears
** or loses power; the reopened store's graph has at least the facts of the last acknowledged
** checkpoint, at most those added, and every fact's source memory is in the store. */
#define KG_BAD(...) (tfFail(__FILE__, __LINE__, __VA_ARGS__), bad = 1)
static int kgStoreCrashRun(const FaultSpec *spec, const char *zWhat) {
  cairn_file *base, *f;
  cairn_mem *m;
  cairn_kg *g;
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.textOnly = 1, cfg.checkpointEvery = UINT32_MAX;
  if (cairn_memfile_open(NULL, 0, &base)) return -1;
  faultfileWrap(base, 0, NULL, &f);
  if (cairn_mem_open_file(f, &cfg, &m)) return cairn_file_close(base), -1;
  cairn_mem_close(m);
  faultfileWrap(base, 0, spec, &f);
  int nAcked = 0, nAdded = 0;
  uint32_t nW = 0, nS = 0;
  if (cairn_mem_open_file(f, &cfg, &m) == CAIRN_OK) {
    if (cairn_kg_open_mem(m, NULL, 0, &g) == CAIRN_OK) {
      for (int c = 0; c < 4; c++) {
        char z[64];
        sprintf(z, "memory %d", c);
        uint64_t id = kgMemAdd(m, z);
        sprintf(z, "o%d", c);
        if (id && kgAddSrc(g, "s", "rel", z, NULL, id, NULL) == CAIRN_OK) nAdded++;
        if (cairn_kg_commit(g) == CAIRN_OK) nAcked = nAdded;
      }
      faultfilePowerLoss(f);
      cairn_kg_close(g);
    }
    faultfileCounts(f, &nW, &nS); /* f is the store's: closed with it */
    cairn_mem_close(m);
  }
  int reached = (spec->nFailWrite && nW >= spec->nFailWrite) || (spec->nTearWrite && nW >= spec->nTearWrite) ||
                (spec->nCrashWrite && nW >= spec->nCrashWrite) || (spec->nFailSync && nS >= spec->nFailSync) ||
                (spec->nCrashSync && nS >= spec->nCrashSync);
  faultfileWrap(base, 0, NULL, &f);
  cfg.readOnly = 1;
  int bad = 0;
  if (cairn_mem_open_file(f, &cfg, &m) != CAIRN_OK) KG_BAD("%s: reopen: %s", zWhat, cairn_errmsg());
  else {
    if (cairn_kg_open_mem(m, NULL, 0, &g) != CAIRN_OK) KG_BAD("%s: graph reopen: %s", zWhat, cairn_errmsg());
    else {
      uint32_t n = cairn_kg_fact_count(g);
      if ((int)n < nAcked || (int)n > nAdded) KG_BAD("%s: %u facts; %d acknowledged, %d added", zWhat, n, nAcked, nAdded);
      for (uint32_t i = 1; i <= n && !bad; i++) {
        uint64_t src;
        uint32_t k;
        cairn_mem_record r;
        if (cairn_kg_fact_sources(g, i, &src, 1, &k) || k != 1 || cairn_mem_get(m, src, &r))
          KG_BAD("%s: fact %u's source memory is not in the store", zWhat, i);
      }
      cairn_kg_close(g);
    }
    cairn_mem_close(m);
  }
  cairn_file_close(base);
  return bad ? -1 : reached;
}

TEST(kg, in_store_crash_sweep) { kgSweep(kgStoreCrashRun, "store + graph crash", 11); }
