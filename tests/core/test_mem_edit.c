/*
** 2026-12-02
**
** tests/core/test_mem_edit.c - memories that change after their add (issue 17): scopes that
** never leak, updates with history and asOf searches, forgetting proven on the raw bytes of
** the file, compaction that shrinks it, dedup on write, the JSON filter language, and the
** migration of a store of version 1.
*/
#include <string.h>

#include "tf.h"
#include "../../core/mem/mem_int.h"

static cairn_mem_record rec(const char *zText, const char *zUser, const char *zSession) {
  cairn_mem_record r;
  memset(&r, 0, sizeof r);
  r.zText = zText, r.zUser = zUser, r.zSession = zSession;
  r.createdMs = 1700000000000;
  return r;
}
static uint32_t searchText(cairn_mem *m, const char *zQ, const cairn_mem_filter *pf, int64_t asOf, cairn_mem_hit *h) {
  cairn_mem_query q;
  memset(&q, 0, sizeof q);
  q.zText = zQ, q.k = 10, q.mode = CAIRN_MEM_BM25, q.pFilter = pf, q.asOfMs = asOf;
  uint32_t n = 0;
  if (cairn_mem_search(m, &q, h, &n) != CAIRN_OK) return 9999;
  return n;
}
/* Does the file hold the bytes z anywhere? */
static int fileHas(const char *zPath, const char *z) {
  cairn_file *f;
  if (cairn_open(zPath, CAIRN_OPEN_READONLY, &f)) return -1;
  uint64_t n = 0;
  cairn_file_size(f, &n);
  uint8_t *p = malloc((size_t)n + 1);
  int found = 0;
  if (p && cairn_file_read_exact(f, p, (size_t)n, 0) == CAIRN_OK) {
    size_t k = strlen(z);
    for (size_t i = 0; i + k <= n && !found; i++) found = memcmp(p + i, z, k) == 0;
  } else found = -1;
  free(p);
  cairn_file_close(f);
  return found;
}
static uint64_t fileSize(const char *zPath) {
  cairn_file *f;
  uint64_t n = 0;
  if (cairn_open(zPath, CAIRN_OPEN_READONLY, &f)) return 0;
  cairn_file_size(f, &n);
  cairn_file_close(f);
  return n;
}

TEST(memedit, scopes_never_leak) {
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(NULL, NULL, &m));
  const char *azUser[2] = {"alice", "bob"};
  for (int u = 0; u < 2; u++)
    for (int i = 0; i < 20; i++) {
      char z[64];
      snprintf(z, sizeof z, "my favourite colour is number %d", i);
      cairn_mem_record r = rec(z, azUser[u], u ? "run-b" : "run-a");
      r.zAgent = "helper";
      CHECK_OK(cairn_mem_add(m, &r, NULL));
    }
  cairn_mem_filter f;
  memset(&f, 0, sizeof f);
  cairn_mem_hit h[10];
  for (int u = 0; u < 2; u++) {
    f.zUser = azUser[u];
    uint32_t n = searchText(m, "favourite colour", &f, 0, h);
    CHECK_EQ(n, 10);
    for (uint32_t i = 0; i < n; i++) {
      cairn_mem_record g;
      CHECK_OK(cairn_mem_get(m, h[i].id, &g));
      CHECK(!strcmp(g.zUser, azUser[u]));
      CHECK(!strcmp(g.zAgent, "helper"));
    }
  }
  /* the same through the filter language */
  char *arena = NULL;
  CHECK_OK(cairn_mem_filter_parse("{\"user\": \"bob\", \"run\": {\"in\": [\"run-b\"]}}", &f, &arena));
  uint32_t n = searchText(m, "favourite colour", &f, 0, h);
  CHECK_EQ(n, 10);
  for (uint32_t i = 0; i < n; i++) CHECK(h[i].id > 20);
  cairn_free(arena);
  CHECK_OK(cairn_mem_filter_parse("{\"user\": \"carol\"}", &f, &arena));
  CHECK_EQ(searchText(m, "favourite colour", &f, 0, h), 0);
  cairn_free(arena);
  cairn_mem_close(m);
}

TEST(memedit, update_history_as_of) {
  const char *zPath = tfTmp("upd.mem");
  remove(zPath);
  cairn_mem *m;
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.noSync = 1;
  CHECK_OK(cairn_mem_open(zPath, &cfg, &m));
  cairn_mem_record r = rec("I live in Lisbon", "alice", "s1");
  uint64_t id, other, ver = 0;
  CHECK_OK(cairn_mem_add(m, &r, &id));
  r = rec("I have a dog named Pepper", "alice", "s1");
  CHECK_OK(cairn_mem_add(m, &r, &other));
  CHECK_OK(cairn_mem_commit(m));
  CHECK_OK(cairn_mem_touch(m, id));
  /* update at t = 1700000100000: text and tier change, the rest stays */
  cairn_mem_record u;
  memset(&u, 0, sizeof u);
  u.zText = "I live in Porto";
  u.tier = 2;
  u.validFromMs = 1700000100000;
  CHECK_OK(cairn_mem_update(m, id, &u, CAIRN_MEM_F_TEXT | CAIRN_MEM_F_TIER, &ver));
  CHECK_EQ(ver, 3);
  for (int pass = 0; pass < 3; pass++) {
    cairn_mem_record g;
    CHECK_OK(cairn_mem_get(m, id, &g));
    CHECK(!strcmp(g.zText, "I live in Porto"));
    CHECK_EQ(g.id, id);
    CHECK_EQ(g.version, 3);
    CHECK_EQ(g.tier, 2);
    CHECK(!strcmp(g.zUser, "alice") && !strcmp(g.zSession, "s1"));
    CHECK_EQ(g.accessCount, 1);
    cairn_mem_record hv[4];
    uint32_t nv = 0;
    CHECK_OK(cairn_mem_history(m, id, hv, 4, &nv));
    CHECK_EQ(nv, 2);
    CHECK(!strcmp(hv[0].zText, "I live in Lisbon"));
    CHECK_EQ(hv[0].validToMs, 1700000100000);
    CHECK_EQ(hv[1].validFromMs, 1700000100000);
    CHECK_EQ(hv[1].validToMs, 0);
    /* search sees the current version; asOf sees the store as it was */
    cairn_mem_hit h[10];
    uint32_t n = searchText(m, "live Lisbon Porto", NULL, 0, h);
    CHECK_EQ(n, 1);
    CHECK_EQ(h[0].id, id);
    CHECK_EQ(h[0].version, 3);
    n = searchText(m, "Lisbon", NULL, 0, h);
    CHECK_EQ(n, 0);
    n = searchText(m, "Lisbon", NULL, 1700000050000, h);
    CHECK_EQ(n, 1);
    CHECK_EQ(h[0].id, id);
    CHECK_EQ(h[0].version, 1);
    CHECK_EQ(searchText(m, "Porto", NULL, 1700000050000, h), 0);
    CHECK_EQ(searchText(m, "Pepper", NULL, 1700000050000, h), 1);
    /* pass 0: in memory; 1: reopened from the log; 2: reopened from the checkpoint */
    CHECK_OK(cairn_mem_commit(m));
    if (pass == 1) CHECK_OK(cairn_mem_checkpoint(m));
    if (pass < 2) {
      cfg.checkpointEvery = pass == 0 ? UINT32_MAX : 0;
      cairn_mem_close(m);
      CHECK_OK(cairn_mem_open(zPath, &cfg, &m));
    }
  }
  /* an update of a deleted id, or of a version id, changes nothing */
  CHECK_OK(cairn_mem_delete(m, other));
  CHECK_RC(cairn_mem_update(m, other, &u, CAIRN_MEM_F_TEXT, NULL), CAIRN_NOTFOUND);
  CHECK_RC(cairn_mem_update(m, 3, &u, CAIRN_MEM_F_TEXT, NULL), CAIRN_NOTFOUND);
  CHECK_RC(cairn_mem_update(m, 99, &u, CAIRN_MEM_F_TEXT, NULL), CAIRN_NOTFOUND);
  u.tier = 40;
  CHECK_RC(cairn_mem_update(m, id, &u, CAIRN_MEM_F_TIER, NULL), CAIRN_RANGE);
  cairn_mem_stats st;
  CHECK_OK(cairn_mem_stats_get(m, &st));
  CHECK_EQ(st.nMemory, 3);
  cairn_mem_close(m);
  remove(zPath);
}

TEST(memedit, forget_is_gone_from_the_bytes) {
  const char *zPath = tfTmp("forget.mem");
  remove(zPath);
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.noSync = 1;
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(zPath, &cfg, &m));
  for (int i = 0; i < 50; i++) {
    char z[64];
    snprintf(z, sizeof z, "an ordinary memory %d about the garden", i);
    cairn_mem_record r = rec(z, "bob", "s1");
    CHECK_OK(cairn_mem_add(m, &r, NULL));
  }
  /* one secret checkpointed, one only in the log, one updated (two versions) */
  cairn_mem_record r = rec("zebrasecret4711 lives at Elm street", "alice-private-user", "s-secret");
  r.zMeta = "{\"ssn\": \"ssn-123-45-6789\"}";
  uint64_t idA, idB, idC;
  CHECK_OK(cairn_mem_add(m, &r, &idA));
  CHECK_OK(cairn_mem_checkpoint(m));
  CHECK_EQ(fileHas(zPath, "zebrasecret4711"), 1);
  CHECK_EQ(fileHas(zPath, "alice-private-user"), 1);
  r = rec("quagga-hidden-9 in the log only", "bob", "s1");
  CHECK_OK(cairn_mem_add(m, &r, &idB));
  r = rec("okapi-first-version", "bob", "s1");
  CHECK_OK(cairn_mem_add(m, &r, &idC));
  cairn_mem_record u;
  memset(&u, 0, sizeof u);
  u.zText = "okapi-second-version";
  CHECK_OK(cairn_mem_update(m, idC, &u, CAIRN_MEM_F_TEXT, NULL));
  CHECK_OK(cairn_mem_commit(m));
  CHECK_EQ(fileHas(zPath, "quagga-hidden-9"), 1);
  CHECK_EQ(fileHas(zPath, "okapi-first-version"), 1);
  CHECK_OK(cairn_mem_delete(m, idA));
  CHECK_OK(cairn_mem_delete(m, idB));
  CHECK_OK(cairn_mem_delete(m, idC));
  CHECK_RC(cairn_mem_delete(m, idC), CAIRN_NOTFOUND);
  cairn_mem_record g;
  CHECK_RC(cairn_mem_get(m, idA, &g), CAIRN_NOTFOUND);
  cairn_mem_hit h[10];
  CHECK_EQ(searchText(m, "zebrasecret4711", NULL, 0, h), 0);
  CHECK_EQ(searchText(m, "zebrasecret4711", NULL, 1700000000001, h), 0);
  uint64_t before = fileSize(zPath);
  CHECK_OK(cairn_mem_checkpoint(m));
  const char *azGone[] = {"zebrasecret4711", "alice-private-user", "s-secret", "ssn-123-45-6789", "quagga-hidden-9", "okapi-first-version",
                          "okapi-second-version"};
  for (size_t i = 0; i < sizeof azGone / sizeof *azGone; i++)
    if (fileHas(zPath, azGone[i]) != 0) tfFail(__FILE__, __LINE__, "'%s' is still in the file", azGone[i]);
  CHECK_EQ(fileHas(zPath, "an ordinary memory 49 about the garden"), 1);
  CHECK(fileSize(zPath) < before);
  cairn_mem_close(m);
  /* reopened: the rest is intact, ids kept */
  CHECK_OK(cairn_mem_open(zPath, &cfg, &m));
  CHECK_RC(cairn_mem_get(m, idA, &g), CAIRN_NOTFOUND);
  CHECK_RC(cairn_mem_get(m, idC, &g), CAIRN_NOTFOUND);
  CHECK_OK(cairn_mem_get(m, 50, &g));
  CHECK(!strcmp(g.zText, "an ordinary memory 49 about the garden"));
  CHECK_EQ(searchText(m, "garden", NULL, 0, h), 10);
  r = rec("a new memory after the forget", "bob", "s1");
  uint64_t idD;
  CHECK_OK(cairn_mem_add(m, &r, &idD));
  CHECK_EQ(idD, idC + 2);
  CHECK_OK(cairn_mem_checkpoint(m));
  cairn_mem_close(m);
  cairn_file *f;
  CHECK_OK(cairn_open(zPath, CAIRN_OPEN_READONLY, &f));
  cairn_mem_verify_info vi;
  CHECK_OK(cairn_mem_verify(f, &vi));
  cairn_file_close(f);
  remove(zPath);
}

TEST(memedit, compact_shrinks_the_file) {
  const char *zPath = tfTmp("compact.mem");
  remove(zPath);
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.noSync = 1;
  cfg.checkpointEvery = 64;
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(zPath, &cfg, &m));
  for (int i = 0; i < 400; i++) {
    char z[96];
    snprintf(z, sizeof z, "memory number %d with some words to make it longer than a line", i);
    cairn_mem_record r = rec(z, "u", "s");
    CHECK_OK(cairn_mem_add(m, &r, NULL));
    if (i % 10 == 9) CHECK_OK(cairn_mem_commit(m));
  }
  CHECK_OK(cairn_mem_checkpoint(m));
  uint64_t full = fileSize(zPath);
  CHECK_OK(cairn_mem_compact(m));
  uint64_t compacted = fileSize(zPath);
  CHECK(compacted < full);
  for (uint64_t id = 1; id <= 300; id++) CHECK_OK(cairn_mem_delete(m, id));
  CHECK_OK(cairn_mem_compact(m));
  uint64_t small = fileSize(zPath);
  CHECK(small * 2 < compacted);
  cairn_mem_close(m);
  CHECK_OK(cairn_mem_open(zPath, &cfg, &m));
  cairn_mem_stats st;
  CHECK_OK(cairn_mem_stats_get(m, &st));
  CHECK_EQ(st.nMemory, 400);
  cairn_mem_record g;
  CHECK_RC(cairn_mem_get(m, 300, &g), CAIRN_NOTFOUND);
  CHECK_OK(cairn_mem_get(m, 301, &g));
  CHECK(!strncmp(g.zText, "memory number 300 ", 18));
  cairn_mem_close(m);
  remove(zPath);
}

TEST(memedit, dedup_on_write) {
  cairn_mem *m;
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.dim = 64;
  CHECK_OK(cairn_mem_open(NULL, &cfg, &m));
  cairn_mem_put_result res;
  cairn_mem_record r = rec("The meeting moved to Tuesday", "alice", "s1");
  CHECK_OK(cairn_mem_put(m, &r, NULL, &res));
  CHECK_EQ(res.status, CAIRN_MEM_PUT_ADDED);
  uint64_t id = res.id;
  /* same normalised text, same scope: not stored, the access counted */
  r = rec("  the   meeting moved to TUESDAY ", "alice", "s1");
  CHECK_OK(cairn_mem_put(m, &r, NULL, &res));
  CHECK_EQ(res.status, CAIRN_MEM_PUT_EXACT);
  CHECK_EQ(res.id, id);
  CHECK_EQ(res.duplicateOf, id);
  cairn_mem_record g;
  CHECK_OK(cairn_mem_get(m, id, &g));
  CHECK_EQ(g.accessCount, 1);
  /* another user: a memory of its own */
  r = rec("The meeting moved to Tuesday", "bob", "s1");
  CHECK_OK(cairn_mem_put(m, &r, NULL, &res));
  CHECK_EQ(res.status, CAIRN_MEM_PUT_ADDED);
  CHECK(res.id != id);
  /* near duplicates under each policy */
  cairn_mem_put_opts o;
  memset(&o, 0, sizeof o);
  o.nearThreshold = 0.8f;
  o.nearPolicy = CAIRN_MEM_NEAR_KEEP;
  r = rec("The meeting moved to Tuesday!!", "alice", "s1");
  CHECK_OK(cairn_mem_put(m, &r, &o, &res));
  CHECK_EQ(res.status, CAIRN_MEM_PUT_NEAR_KEPT);
  CHECK_EQ(res.duplicateOf, id);
  CHECK(res.similarity >= 0.8f && res.similarity <= 1.0001f);
  uint64_t kept = res.id;
  o.nearPolicy = CAIRN_MEM_NEAR_SKIP;
  r = rec("the meeting moved to tuesday .", "alice", "s1");
  cairn_mem_stats s0, s1;
  cairn_mem_stats_get(m, &s0);
  CHECK_OK(cairn_mem_put(m, &r, &o, &res));
  CHECK_EQ(res.status, CAIRN_MEM_PUT_NEAR_SKIP);
  CHECK(res.id == id || res.id == kept);
  cairn_mem_stats_get(m, &s1);
  CHECK_EQ(s1.nMemory, s0.nMemory);
  o.nearPolicy = CAIRN_MEM_NEAR_SUPERSEDE;
  CHECK_OK(cairn_mem_delete(m, kept));
  r = rec("The meeting moved to Tuesday at 10", "alice", "s1");
  CHECK_OK(cairn_mem_put(m, &r, &o, &res));
  CHECK_EQ(res.status, CAIRN_MEM_PUT_SUPERSEDED);
  CHECK_EQ(res.id, id);
  CHECK_OK(cairn_mem_get(m, id, &g));
  CHECK(!strcmp(g.zText, "The meeting moved to Tuesday at 10"));
  uint32_t nv = 0;
  CHECK_OK(cairn_mem_history(m, id, NULL, 0, &nv));
  CHECK_EQ(nv, 2);
  /* unrelated text: added */
  r = rec("Pepper is a beagle", "alice", "s1");
  CHECK_OK(cairn_mem_put(m, &r, &o, &res));
  CHECK_EQ(res.status, CAIRN_MEM_PUT_ADDED);
  o.nearThreshold = 1.5f;
  CHECK_RC(cairn_mem_put(m, &r, &o, &res), CAIRN_RANGE);
  cairn_mem_close(m);
}

static uint32_t countWhere(cairn_mem *m, const char *zFilter) {
  cairn_mem_filter f;
  char *arena = NULL;
  if (cairn_mem_filter_parse(zFilter, &f, &arena)) return 9999;
  MemBits b;
  int all = 0;
  uint32_t n = 0;
  if (cairnMemFilterBits(m, &f, 0, &b, &all) == CAIRN_OK) {
    for (size_t r = 0; r < m->n; r++) n += (uint32_t)(all ? memRowLive(m, r) : cairnBitTest(&b, r));
    cairnFree(b.a);
  } else n = 8888;
  cairn_free(arena);
  return n;
}

TEST(memedit, filter_language) {
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(NULL, NULL, &m));
  for (int i = 0; i < 10; i++) {
    char zMeta[160], zText[32];
    snprintf(zMeta, sizeof zMeta, "{\"n\": %d, \"topic\": \"%s\", \"tags\": [\"t%d\", \"all\"], \"who\": {\"name\": \"%s\"}%s}", i,
             i % 2 ? "work" : "home", i, i < 5 ? "ana" : "rui", i == 3 ? ", \"flag\": true" : "");
    snprintf(zText, sizeof zText, "memory %d", i);
    cairn_mem_record r = rec(zText, i < 3 ? "u1" : "u2", "s");
    r.zMeta = zMeta, r.tier = i % 3, r.importance = (float)i / 10, r.eventMs = 1000 + i;
    r.zRole = i % 2 ? "assistant" : "user";
    CHECK_OK(cairn_mem_add(m, &r, NULL));
  }
  CHECK_EQ(countWhere(m, "{\"meta.topic\": \"work\"}"), 5);
  CHECK_EQ(countWhere(m, "{\"meta.topic\": {\"ne\": \"work\"}}"), 5);
  CHECK_EQ(countWhere(m, "{\"meta.n\": {\"in\": [1, 2, 3, 42]}}"), 3);
  CHECK_EQ(countWhere(m, "{\"meta.n\": {\"nin\": [1, 2, 3]}}"), 7);
  CHECK_EQ(countWhere(m, "{\"meta.n\": {\"gt\": 6}}"), 3);
  CHECK_EQ(countWhere(m, "{\"meta.n\": {\"gte\": 6, \"lt\": 8}}"), 2);
  CHECK_EQ(countWhere(m, "{\"meta.n\": {\"lte\": 0}}"), 1);
  CHECK_EQ(countWhere(m, "{\"meta.flag\": {\"exists\": true}}"), 1);
  CHECK_EQ(countWhere(m, "{\"meta.flag\": {\"exists\": false}}"), 9);
  CHECK_EQ(countWhere(m, "{\"meta.tags\": {\"contains\": \"t4\"}}"), 1);
  CHECK_EQ(countWhere(m, "{\"meta.tags\": {\"contains\": \"all\"}}"), 10);
  CHECK_EQ(countWhere(m, "{\"meta.topic\": {\"contains\": \"or\"}}"), 5);
  CHECK_EQ(countWhere(m, "{\"meta.who.name\": \"rui\"}"), 5);
  CHECK_EQ(countWhere(m, "{\"meta\": {\"who.name\": \"ana\", \"topic\": \"home\"}, \"user\": \"u2\"}"), 1);
  CHECK_EQ(countWhere(m, "{\"or\": [{\"user\": \"u1\"}, {\"tier\": 2}]}"), 5);
  CHECK_EQ(countWhere(m, "{\"not\": {\"or\": [{\"user\": \"u1\"}, {\"tier\": 2}]}}"), 5);
  CHECK_EQ(countWhere(m, "{\"and\": [{\"role\": \"assistant\"}, {\"importance\": {\"gte\": 0.5}}]}"), 3);
  CHECK_EQ(countWhere(m, "{\"eventMs\": {\"gte\": 1005}, \"time\": {\"lt\": 1007}}"), 2);
  CHECK_EQ(countWhere(m, "{\"tier\": {\"in\": [0, 1]}, \"user\": {\"ne\": \"u1\"}}"), 5);
  CHECK_EQ(countWhere(m, "{\"id\": {\"lte\": 2}}"), 2);
  /* bad filters: an error naming what is wrong */
  cairn_mem_filter f;
  char *arena = NULL;
  CHECK_RC(cairn_mem_filter_parse("{\"meta.n\": {\"gt\": 1, \"greater\": 3}}", &f, &arena), CAIRN_MISUSE);
  CHECK(strstr(cairn_errmsg(), "greater") != NULL);
  CHECK_RC(cairn_mem_filter_parse("{\"tier\": {\"gt\": \"x\"}}", &f, &arena), CAIRN_TYPE);
  CHECK(strstr(cairn_errmsg(), "tier") != NULL);
  CHECK_RC(cairn_mem_filter_parse("{\"importance\": {\"greater\": 3}}", &f, &arena), CAIRN_TYPE);
  CHECK(strstr(cairn_errmsg(), "importance") != NULL);
  CHECK_RC(cairn_mem_filter_parse("{\"user\": {\"in\": \"u1\"}}", &f, &arena), CAIRN_TYPE);
  CHECK_RC(cairn_mem_filter_parse("{\"or\": {\"user\": \"u1\"}}", &f, &arena), CAIRN_TYPE);
  CHECK_RC(cairn_mem_filter_parse("{\"colour\": {\"eq\": 1}}", &f, &arena), CAIRN_MISUSE);
  CHECK(strstr(cairn_errmsg(), "colour") != NULL);
  CHECK_RC(cairn_mem_filter_parse("{\"meta.x\": {\"exists\": 1}}", &f, &arena), CAIRN_TYPE);
  cairn_mem_close(m);
}

TEST(memedit, version1_store_migrates) {
  const char *zPath = tfTmp("v1.mem");
  remove(zPath);
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.noSync = 1;
  cairn_mem *m;
  cairnMemV1Create = 1;
  CHECK_OK(cairn_mem_open(zPath, &cfg, &m));
  for (int i = 0; i < 30; i++) {
    char z[64];
    snprintf(z, sizeof z, "old memory %d", i);
    cairn_mem_record r = rec(z, NULL, "s1");
    CHECK_OK(cairn_mem_add(m, &r, NULL));
  }
  CHECK_OK(cairn_mem_checkpoint(m));
  cairn_mem_record r = rec("old memory in the log", NULL, "s1");
  CHECK_OK(cairn_mem_add(m, &r, NULL));
  CHECK_OK(cairn_mem_commit(m));
  cfg.checkpointEvery = UINT32_MAX;
  cairn_mem_close(m);
  cairnMemV1Create = 0;
  CHECK_OK(cairn_mem_open(zPath, &cfg, &m));
  CHECK_EQ(m->ckV2, 0);
  cairn_mem_record g;
  CHECK_OK(cairn_mem_get(m, 31, &g));
  CHECK(!strcmp(g.zText, "old memory in the log"));
  r = rec("new memory with a user", "alice", "s2");
  CHECK_OK(cairn_mem_add(m, &r, NULL));
  CHECK_OK(cairn_mem_update(m, 1, &r, CAIRN_MEM_F_TEXT, NULL));
  CHECK_OK(cairn_mem_checkpoint(m)); /* the first checkpoint migrates */
  CHECK_EQ(m->ckV2, 1);
  cairn_mem_close(m);
  CHECK_OK(cairn_mem_open(zPath, &cfg, &m));
  CHECK_EQ(m->ckV2, 1);
  CHECK_OK(cairn_mem_get(m, 32, &g));
  CHECK(!strcmp(g.zUser, "alice"));
  CHECK_OK(cairn_mem_get(m, 1, &g));
  CHECK(!strcmp(g.zText, "new memory with a user"));
  CHECK_OK(cairn_mem_get(m, 30, &g));
  CHECK(!strcmp(g.zText, "old memory 29"));
  cairn_mem_close(m);
  remove(zPath);
}

typedef struct Lines {
  char *z;
  size_t n, cap;
} Lines;
static int addLine(void *p, const char *z, size_t n) {
  Lines *l = p;
  if (l->n + n + 2 > l->cap) {
    l->cap = (l->n + n + 2) * 2;
    l->z = realloc(l->z, l->cap);
  }
  memcpy(l->z + l->n, z, n);
  l->n += n;
  l->z[l->n++] = '\n';
  l->z[l->n] = 0;
  return CAIRN_OK;
}

TEST(memedit, json_list_export_import_round_trip) {
  cairn_mem *m, *b;
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.dim = 8;
  CHECK_OK(cairn_mem_open(NULL, &cfg, &m));
  char *z = NULL;
  CHECK_OK(cairn_mem_put_json(m, "{\"text\": \"Ana likes tea\", \"user\": \"ana\", \"run\": \"r1\", \"meta\": {\"k\": [1, {\"x\": \"y\"}]}, \"eventMs\": 5000, \"createdMs\": 4000}", NULL, &z));
  CHECK(strstr(z, "\"status\":\"added\"") != NULL);
  cairn_free(z);
  CHECK_OK(cairn_mem_put_json(m, "{\"text\": \"ana LIKES tea\", \"user\": \"ana\", \"run\": \"r1\"}", NULL, &z));
  CHECK(strstr(z, "\"status\":\"exact\"") && strstr(z, "\"duplicateOf\":1"));
  cairn_free(z);
  CHECK_OK(cairn_mem_put_json(m, "{\"text\": \"ana LIKES tea\", \"user\": \"ana\", \"run\": \"r1\", \"eventMs\": 100}", "{\"dedup\": false}", &z));
  CHECK(strstr(z, "\"id\":2"));
  cairn_free(z);
  CHECK_RC(cairn_mem_put_json(m, "{\"text\": \"x\"}", "{\"nearPolicy\": \"merge\"}", &z), CAIRN_MISUSE);
  float e[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  cairn_mem_record r = rec("Bo plays chess", "bo", "r2");
  r.aEmbedding = e, r.nEmbedding = 8, r.importance = 0.75f, r.tier = 3, r.zRole = "user", r.eventMs = 9000;
  CHECK_OK(cairn_mem_add(m, &r, NULL));
  CHECK_OK(cairn_mem_update_json(m, 1, "{\"text\": \"Ana likes green tea\", \"meta\": null}", NULL));
  CHECK_RC(cairn_mem_update_json(m, 1, "{\"txt\": \"x\"}", NULL), CAIRN_MISUSE);
  CHECK(strstr(cairn_errmsg(), "txt") != NULL);
  CHECK_RC(cairn_mem_update_json(m, 1, "{}", NULL), CAIRN_MISUSE);
  CHECK_OK(cairn_mem_put_json(m, "{\"text\": \"to be forgotten\", \"user\": \"cy\"}", NULL, &z));
  cairn_free(z);
  CHECK_OK(cairn_mem_put_json(m, "{\"text\": \"the last one\", \"user\": \"bo\", \"eventMs\": 1}", NULL, &z));
  cairn_free(z);
  uint64_t nDel = 0;
  CHECK_OK(cairn_mem_delete_where(m, "{\"user\": \"cy\"}", &nDel));
  CHECK_EQ(nDel, 1);
  /* list: order, pagination, filter */
  CHECK_OK(cairn_mem_list_json(m, "{\"order\": \"eventMs\", \"desc\": true, \"limit\": 2}", &z));
  CHECK(strstr(z, "\"id\":3") && strstr(z, "\"id\":1") && !strstr(z, "\"id\":6"));
  CHECK(strstr(z, "\"id\":3") < strstr(z, "\"id\":1"));
  cairn_free(z);
  CHECK_OK(cairn_mem_list_json(m, "{\"filter\": {\"user\": \"bo\"}, \"offset\": 1}", &z));
  CHECK(strstr(z, "\"id\":6") && !strstr(z, "\"id\":3,"));
  cairn_free(z);
  CHECK_RC(cairn_mem_list_json(m, "{\"order\": \"colour\"}", &z), CAIRN_MISUSE);
  CHECK_OK(cairn_mem_history_json(m, 1, 0, &z));
  CHECK(strstr(z, "Ana likes tea") && strstr(z, "Ana likes green tea"));
  cairn_free(z);
  /* export (with embeddings) into an empty store and out again: the same lines */
  Lines a = {0}, c = {0};
  CHECK_OK(cairn_mem_export(m, "{\"embeddings\": true}", addLine, &a));
  CHECK(a.z && strstr(a.z, "\"version\":4") && !strstr(a.z, "forgotten"));
  CHECK_OK(cairn_mem_open(NULL, &cfg, &b));
  uint64_t nImp = 0;
  CHECK_OK(cairn_mem_import_jsonl(b, a.z, a.n, &nImp));
  CHECK_EQ(nImp, 5);
  CHECK_OK(cairn_mem_export(b, "{\"embeddings\": true}", addLine, &c));
  if (!c.z || strcmp(a.z, c.z)) printf("A:\n%s\nC:\n%s\n", a.z, c.z ? c.z : "");
  CHECK(c.z && !strcmp(a.z, c.z));
  cairn_mem_record g;
  CHECK_RC(cairn_mem_get(b, 5, &g), CAIRN_NOTFOUND);
  CHECK_OK(cairn_mem_get(b, 1, &g));
  CHECK(!strcmp(g.zText, "Ana likes green tea"));
  cairn_mem_close(b);
  /* a bad line: named, nothing imported */
  CHECK_OK(cairn_mem_open(NULL, &cfg, &b));
  const char *zBad = "{\"text\": \"fine\"}\n{\"text\": \"also fine\", \"tier\": 3}\n{\"text\": \"bad\", \"embedding\": [1, 2]}\n";
  CHECK_RC(cairn_mem_import_jsonl(b, zBad, strlen(zBad), &nImp), CAIRN_MISUSE);
  CHECK(strstr(cairn_errmsg(), "line 3") != NULL);
  cairn_mem_stats st;
  CHECK_OK(cairn_mem_stats_get(b, &st));
  CHECK_EQ(st.nMemory, 0);
  const char *zBad2 = "{\"text\": \"v2\", \"id\": 7, \"version\": 9}\n";
  CHECK_RC(cairn_mem_import_jsonl(b, zBad2, strlen(zBad2), &nImp), CAIRN_MISUSE);
  CHECK(strstr(cairn_errmsg(), "line 1") && strstr(cairn_errmsg(), "first version"));
  cairn_mem_close(b);
  free(a.z), free(c.z);
  cairn_mem_close(m);
}

TEST(memedit, embedding_model_recorded_and_enforced) {
  const char *zPath = tfTmp("model.mem");
  remove(zPath);
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.noSync = 1, cfg.dim = 4;
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(zPath, &cfg, &m));
  CHECK_OK(cairn_mem_model(m, "fake-model-4"));
  float e[4] = {1, 0, 0, 0};
  cairn_mem_record r = rec("north", NULL, NULL);
  r.aEmbedding = e, r.nEmbedding = 4;
  CHECK_OK(cairn_mem_add(m, &r, NULL));
  r = rec("no vector given", NULL, NULL);
  CHECK_RC(cairn_mem_add(m, &r, NULL), CAIRN_MISUSE);
  CHECK(strstr(cairn_errmsg(), "fake-model-4") != NULL);
  CHECK_OK(cairn_mem_checkpoint(m));
  cairn_mem_close(m);
  for (int pass = 0; pass < 2; pass++) { /* from the checkpoint, then from the log */
    CHECK_OK(cairn_mem_open(zPath, &cfg, &m));
    CHECK_RC(cairn_mem_model(m, "another-model"), CAIRN_MISUSE);
    CHECK(strstr(cairn_errmsg(), "fake-model-4") && strstr(cairn_errmsg(), "another-model"));
    CHECK_OK(cairn_mem_model(m, "fake-model-4"));
    cairn_mem_stats st;
    CHECK_OK(cairn_mem_stats_get(m, &st));
    CHECK(!strcmp(st.zModel, "fake-model-4"));
    cairn_mem_query q;
    memset(&q, 0, sizeof q);
    q.zText = pass ? "east" : "north", q.k = 3, q.mode = CAIRN_MEM_VECTOR;
    cairn_mem_hit h[3];
    uint32_t n;
    CHECK_RC(cairn_mem_search(m, &q, h, &n), CAIRN_MISUSE);
    q.mode = CAIRN_MEM_HYBRID; /* text only: BM25 */
    CHECK_OK(cairn_mem_search(m, &q, h, &n));
    CHECK_EQ(n, 1);
    CHECK(h[0].vscore != h[0].vscore);
    cairn_mem_close(m);
    /* a store of an older open without a model takes the model on the first open naming it */
    if (pass == 0) {
      remove(zPath);
      CHECK_OK(cairn_mem_open(zPath, &cfg, &m));
      r = rec("east", NULL, NULL);
      float e2[4] = {0, 1, 0, 0};
      r.aEmbedding = e2, r.nEmbedding = 4;
      CHECK_OK(cairn_mem_add(m, &r, NULL));
      CHECK_OK(cairn_mem_commit(m));
      cairn_mem_close(m);
      cfg.checkpointEvery = UINT32_MAX;
      CHECK_OK(cairn_mem_open(zPath, &cfg, &m));
      CHECK_OK(cairn_mem_model(m, "fake-model-4"));
      CHECK_OK(cairn_mem_commit(m));
      cairn_mem_close(m);
    }
  }
  remove(zPath);
}

/* Salvage keeps versions as the history of one memory: versions from the checkpoint and from
** the log (the END record of an update after the checkpoint), their validity, the current
** version; a forgotten memory is not copied and ids are renumbered over its gap. */
TEST(memedit, salvage_keeps_history) {
  const char *zPath = tfTmp("salvage-history.mem");
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.checkpointEvery = UINT32_MAX; /* close leaves the log as it is */
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(zPath, &cfg, &m));
  cairn_mem_record r = rec("forget me", "x", NULL);
  CHECK_OK(cairn_mem_add(m, &r, NULL));            /* 1: forgotten */
  r = rec("I live in Lisbon", "ana", "s1");
  uint64_t id = 0, v2 = 0, v3 = 0;
  CHECK_OK(cairn_mem_add(m, &r, &id));             /* 2 */
  r = rec("the cat is called Pixel", "ana", NULL);
  CHECK_OK(cairn_mem_add(m, &r, NULL));            /* 3 */
  r.zText = "I live in Porto", r.validFromMs = 1700000001000;
  CHECK_OK(cairn_mem_update(m, id, &r, CAIRN_MEM_F_TEXT, &v2));
  CHECK_OK(cairn_mem_delete(m, 1));
  CHECK_OK(cairn_mem_checkpoint(m));               /* versions 1 and 2 of memory 2 in the datasets */
  r.zText = "I live in Braga", r.validFromMs = 1700000002000;
  CHECK_OK(cairn_mem_update(m, id, &r, CAIRN_MEM_F_TEXT, &v3)); /* version 3 in the log */
  CHECK_OK(cairn_mem_commit(m));
  CHECK_OK(cairn_mem_close(m));
  cairn_file *f, *out;
  CHECK_OK(cairn_open(zPath, CAIRN_OPEN_READONLY, &f));
  CHECK_OK(cairn_memfile_open(NULL, 0, &out));
  cairn_mem_verify_info vi;
  CHECK_OK(cairn_mem_salvage(f, out, &vi));
  CHECK_OK(cairn_mem_open_file(out, NULL, &m));
  cairn_mem_stats st;
  CHECK_OK(cairn_mem_stats_get(m, &st));
  CHECK_EQ(st.nMemory, 4); /* rows: 2 memories, one of 3 versions (the forgotten one is gone) */
  cairn_mem_record aV[4];
  uint32_t nV = 0;
  CHECK_OK(cairn_mem_history(m, 1, aV, 4, &nV));   /* memory 2 is memory 1 now */
  CHECK_EQ(nV, 3);
  static const char *const azWant[] = {"I live in Lisbon", "I live in Porto", "I live in Braga"};
  for (uint32_t i = 0; i < nV && i < 3; i++) {
    CHECK_STR(aV[i].zText, azWant[i]);
    CHECK_STR(aV[i].zUser, "ana");
    if (i) CHECK_EQ(aV[i - 1].validToMs, aV[i].validFromMs);
  }
  CHECK_EQ(aV[1].validFromMs, 1700000001000);
  CHECK_EQ(aV[2].validToMs, 0);
  CHECK_OK(cairn_mem_get(m, 1, &r));
  CHECK_STR(r.zText, "I live in Braga");
  cairn_mem_hit h[10];
  CHECK_EQ(searchText(m, "live", NULL, 0, h), 1);  /* the current version only */
  CHECK_EQ(h[0].id, 1);
  CHECK_EQ(searchText(m, "Porto", NULL, 1700000001500, h), 1); /* asOf sees the old one */
  CHECK_OK(cairn_mem_get(m, 2, &r));
  CHECK_STR(r.zText, "the cat is called Pixel");
  cairn_mem_close(m);
  cairn_file_close(f);
}
