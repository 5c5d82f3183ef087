/* 2026-11-29 - memory store: add/get/search through the public API, bad input, filters,
** hybrid fusion against its definition, recency, text-only stores, the JSON entry points and
** an out-of-memory loop. Persistence (the log, the checkpoint) is in test_mem_persist.c. */
#include <math.h>
#include <stdlib.h>

#include "cairn/h5w.h"
#include "cairn/mem.h"
#include "mem/mem_int.h"
#include "tf.h"
#include "oom.h"
#include "mem_turns.h"


TEST(mem, add_get_search) {
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(NULL, NULL, &m));
  CHECK_OK(addTurns(m, NTURN));
  cairn_mem_record r;
  CHECK_OK(cairn_mem_get(m, 3, &r));
  CHECK_STR(r.zText, aTurn[2][2]);
  CHECK_STR(r.zSession, "s1");
  CHECK_STR(r.zRole, "user");
  CHECK_EQ(r.tier, 2);
  CHECK_EQ(r.eventMs, 1700000000000 + 2 * 3600000);
  CHECK_STR(r.zMeta, "{\"turn\": 2, \"topic\": \"even\"}");
  CHECK_EQ(r.nEmbedding, CAIRN_MEM_DEFAULT_DIM);
  CHECK_RC(cairn_mem_get(m, 11, &r), CAIRN_NOTFOUND);
  CHECK_RC(cairn_mem_get(m, 0, &r), CAIRN_NOTFOUND);
  cairn_mem_hit h[10];
  static const int aMode[] = {CAIRN_MEM_HYBRID, CAIRN_MEM_VECTOR, CAIRN_MEM_BM25, CAIRN_MEM_AUTO};
  for (size_t i = 0; i < CAIRN_ARRAY_SIZE(aMode); i++) {
    int mode = aMode[i];
    /* BM25 finds only the two turns that name Ana (auto without a query vector is BM25) */
    CHECK_EQ(search(m, "where does my sister Ana live?", mode, 3, NULL, h), mode == CAIRN_MEM_BM25 || mode == CAIRN_MEM_AUTO ? 2 : 3);
    CHECK_EQ(h[0].id, 3);
    CHECK(h[0].score >= h[1].score);
  }
  CHECK_EQ(search(m, "cello lessons", CAIRN_MEM_BM25, 10, NULL, h), 3); /* only 3 turns say cello */
  cairn_mem_stats st;
  CHECK_OK(cairn_mem_stats_get(m, &st));
  CHECK_EQ(st.nMemory, NTURN);
  CHECK_EQ(st.nSession, 4);
  CHECK_EQ(st.nRole, 2);
  CHECK(st.nTerm > 40);
  cairn_mem_close(m);
}

TEST(mem, bad_input) {
  cairn_mem *m;
  cairn_mem_config cfg = {8, CAIRN_METRIC_COSINE, 0, 0, 0, 0, 0, 0};
  CHECK_OK(cairn_mem_open(NULL, &cfg, &m));
  float v[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  cairn_mem_record r;
  memset(&r, 0, sizeof r);
  r.zText = "hello";
  r.aEmbedding = v, r.nEmbedding = 9;
  CHECK_RC(cairn_mem_add(m, &r, NULL), CAIRN_MISUSE); /* wrong dimension */
  CHECK(strstr(cairn_errmsg(), "9 dimensions") != NULL);
  r.nEmbedding = 8;
  v[3] = NAN;
  CHECK_RC(cairn_mem_add(m, &r, NULL), CAIRN_TYPE);
  CHECK(strstr(cairn_errmsg(), "embedding[3]") != NULL);
  v[3] = INFINITY;
  CHECK_RC(cairn_mem_add(m, &r, NULL), CAIRN_TYPE);
  v[3] = 4;
  r.zText = "";
  CHECK_RC(cairn_mem_add(m, &r, NULL), CAIRN_RANGE);
  char *big = malloc(CAIRN_MEM_MAX_TEXT + 2);
  memset(big, 'a', CAIRN_MEM_MAX_TEXT + 1);
  big[CAIRN_MEM_MAX_TEXT + 1] = 0;
  r.zText = big;
  CHECK_RC(cairn_mem_add(m, &r, NULL), CAIRN_RANGE);
  free(big);
  r.zText = "hello";
  r.zMeta = "[1, 2]";
  CHECK_RC(cairn_mem_add(m, &r, NULL), CAIRN_TYPE);
  r.zMeta = "{\"a\": ";
  CHECK_RC(cairn_mem_add(m, &r, NULL), CAIRN_CORRUPT);
  r.zMeta = NULL;
  r.tier = 40;
  CHECK_RC(cairn_mem_add(m, &r, NULL), CAIRN_RANGE);
  r.tier = 0;
  r.importance = NAN;
  CHECK_RC(cairn_mem_add(m, &r, NULL), CAIRN_TYPE);
  r.importance = 0;
  uint64_t id;
  CHECK_OK(cairn_mem_add(m, &r, &id));
  CHECK_EQ(id, 1); /* the failed adds left nothing behind */
  cairn_mem_stats st;
  CHECK_OK(cairn_mem_stats_get(m, &st));
  CHECK_EQ(st.nMemory, 1);
  CHECK_EQ(st.nTerm, 1);
  float e[8];
  CHECK_OK(cairn_mem_embedding(m, 1, e));
  double sq = 0;
  for (int i = 0; i < 8; i++) sq += (double)e[i] * e[i];
  CHECK(fabs(sq - 1) < 1e-5); /* normalised for cosine */
  /* queries */
  cairn_mem_hit h[4];
  uint32_t n;
  cairn_mem_query q;
  memset(&q, 0, sizeof q);
  q.mode = CAIRN_MEM_BM25;
  CHECK_RC(cairn_mem_search(m, &q, h, &n), CAIRN_MISUSE); /* bm25 without text */
  q.mode = 7;
  q.zText = "x";
  CHECK_RC(cairn_mem_search(m, &q, h, &n), CAIRN_MISUSE);
  q.mode = CAIRN_MEM_VECTOR;
  q.aEmbedding = v, q.nEmbedding = 7;
  CHECK_RC(cairn_mem_search(m, &q, h, &n), CAIRN_MISUSE);
  q.nEmbedding = 8;
  v[0] = NAN;
  CHECK_RC(cairn_mem_search(m, &q, h, &n), CAIRN_TYPE);
  v[0] = 1;
  q.k = CAIRN_MEM_MAX_K + 1;
  CHECK_RC(cairn_mem_search(m, &q, h, &n), CAIRN_RANGE);
  q.k = 4;
  q.vindex = CAIRN_VINDEX_IVF; /* not built */
  CHECK_RC(cairn_mem_search(m, &q, h, &n), CAIRN_MISUSE);
  q.vindex = 0;
  CHECK_OK(cairn_mem_search(m, &q, h, &n));
  CHECK_EQ(n, 1);
  cairn_mem_close(m);
  /* config errors */
  cairn_mem_config bad = {CAIRN_MEM_MAX_DIM + 1, 0, 0, 0, 0, 0, 0, 0};
  CHECK_RC(cairn_mem_open(NULL, &bad, &m), CAIRN_RANGE);
  cairn_mem_config bad2 = {8, 5, 0, 0, 0, 0, 0, 0};
  CHECK_RC(cairn_mem_open(NULL, &bad2, &m), CAIRN_MISUSE);
}

TEST(mem, filters) {
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(NULL, NULL, &m));
  CHECK_OK(addTurns(m, NTURN));
  cairn_mem_hit h[10];
  cairn_mem_filter f;
  char *arena;
  const char *q = "Biscuit Ana Kyoto cello";
  for (int mode = 0; mode <= 2; mode++) {
    CHECK_OK(cairn_mem_filter_parse("{\"session\": \"s3\"}", &f, &arena));
    uint32_t n = search(m, q, mode, 10, &f, h);
    CHECK(n >= 1 && n <= 3);
    for (uint32_t i = 0; i < n; i++) CHECK(h[i].id >= 7 && h[i].id <= 9);
    cairn_free(arena);
    CHECK_OK(cairn_mem_filter_parse("{\"role\": \"assistant\", \"tier\": [0, 2]}", &f, &arena));
    n = search(m, q, mode, 10, &f, h);
    for (uint32_t i = 0; i < n; i++) {
      cairn_mem_record r;
      CHECK_OK(cairn_mem_get(m, h[i].id, &r));
      CHECK_STR(r.zRole, "assistant");
      CHECK(r.tier == 0 || r.tier == 2);
    }
    cairn_free(arena);
    /* time range: turns 2..4 (event times t0 + 2h .. t0 + 4h inclusive) */
    CHECK_OK(cairn_mem_filter_parse("{\"after\": 1700007200000, \"before\": 1700014400001}", &f, &arena));
    n = search(m, "cello Ana", mode, 10, &f, h);
    CHECK(n >= 1);
    for (uint32_t i = 0; i < n; i++) CHECK(h[i].id >= 3 && h[i].id <= 5);
    cairn_free(arena);
    CHECK_OK(cairn_mem_filter_parse("{\"meta\": {\"topic\": \"odd\"}}", &f, &arena));
    n = search(m, q, mode, 10, &f, h);
    CHECK(n >= 1);
    for (uint32_t i = 0; i < n; i++) CHECK(h[i].id % 2 == 0); /* odd turn index = even id */
    cairn_free(arena);
    CHECK_OK(cairn_mem_filter_parse("{\"meta\": {\"turn\": 5}}", &f, &arena));
    n = search(m, q, mode, 10, &f, h);
    CHECK_EQ(n, 1);
    CHECK_EQ(h[0].id, 6);
    cairn_free(arena);
    CHECK_OK(cairn_mem_filter_parse("{\"session\": \"nobody\"}", &f, &arena));
    CHECK_EQ(search(m, q, mode, 10, &f, h), 0);
    cairn_free(arena);
  }
  /* bad filters name the problem */
  CHECK_RC(cairn_mem_filter_parse("{\"sesion\": \"s1\"}", &f, &arena), CAIRN_MISUSE);
  CHECK(strstr(cairn_errmsg(), "unknown field 'sesion'") != NULL);
  CHECK_RC(cairn_mem_filter_parse("{\"tier\": 32}", &f, &arena), CAIRN_MISUSE);
  CHECK_RC(cairn_mem_filter_parse("{\"tier\": []}", &f, &arena), CAIRN_MISUSE);
  CHECK_RC(cairn_mem_filter_parse("{\"after\": \"yesterday\"}", &f, &arena), CAIRN_MISUSE);
  CHECK_RC(cairn_mem_filter_parse("{\"meta\": {\"a\": 1, \"b\": 2}}", &f, &arena), CAIRN_MISUSE);
  CHECK_RC(cairn_mem_filter_parse("[1]", &f, &arena), CAIRN_MISUSE);
  CHECK_RC(cairn_mem_filter_parse("{", &f, &arena), CAIRN_CORRUPT);
  cairn_mem_close(m);
}

/* The role (speaker) is a BM25 field: a query naming the speaker finds the turns whose text does
** not name them; forgetting takes the role's postings out with the text's. */
TEST(mem, role_indexed_for_bm25) {
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(NULL, NULL, &m));
  static const char *const aT[][2] = {
      {"Melanie", "I went camping at the lake with the kids"},
      {"Caroline", "The adoption agency called back today"},
      {"Melanie", "Pottery class was great, I made a bowl"},
      {"Caroline", "I am going to a support group tonight"},
  };
  for (size_t i = 0; i < CAIRN_ARRAY_SIZE(aT); i++) {
    cairn_mem_record r;
    memset(&r, 0, sizeof r);
    r.zText = aT[i][1], r.zRole = aT[i][0], r.createdMs = 1 + (int64_t)i;
    CHECK_OK(cairn_mem_add(m, &r, NULL));
  }
  cairn_mem_hit h[8];
  CHECK_EQ(search(m, "what did Melanie do", CAIRN_MEM_BM25, 8, NULL, h), 2); /* only "melani" matches */
  CHECK_EQ(h[0].id + h[1].id, 1 + 3);
  /* the role counts once, like "Melanie: ..." in the text: same scores as that store */
  cairn_mem *m2;
  CHECK_OK(cairn_mem_open(NULL, NULL, &m2));
  for (size_t i = 0; i < CAIRN_ARRAY_SIZE(aT); i++) {
    char z[128];
    cairnFormat(z, sizeof z, "%s: %s", aT[i][0], aT[i][1]);
    cairn_mem_record r;
    memset(&r, 0, sizeof r);
    r.zText = z, r.createdMs = 1 + (int64_t)i;
    CHECK_OK(cairn_mem_add(m2, &r, NULL));
  }
  cairn_mem_hit h2[8];
  CHECK_EQ(search(m2, "Caroline adoption", CAIRN_MEM_BM25, 8, NULL, h2), search(m, "Caroline adoption", CAIRN_MEM_BM25, 8, NULL, h));
  for (int i = 0; i < 2; i++) {
    CHECK_EQ(h[i].id, h2[i].id);
    CHECK(fabsf(h[i].score - h2[i].score) < 1e-6f);
  }
  cairn_mem_close(m2);
  /* forgetting: the role's postings go too (a later search never sees the row) */
  uint64_t nPost = m->bm25.nPosting;
  CHECK_OK(cairn_mem_delete(m, 1));
  CHECK_EQ(m->bm25.nPosting, nPost - 5); /* went camp lake kid + melani ("i", "at", "the", "with" are stop words) */
  CHECK_EQ(search(m, "Melanie", CAIRN_MEM_BM25, 8, NULL, h), 1);
  CHECK_EQ(h[0].id, 3);
  cairn_mem_close(m);
}

/* auto (the default mode, 0): BM25 when the query vector would be the built-in embedder's,
** hybrid when the caller gives the query's embedding, the vector alone with no query text. */
TEST(mem, auto_mode) {
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(NULL, NULL, &m));
  CHECK_OK(addTurns(m, NTURN));
  const char *zq = "when is the trip to Japan with Ana";
  float v[CAIRN_MEM_DEFAULT_DIM];
  CHECK_OK(cairn_mem_embed(zq, strlen(zq), v, CAIRN_MEM_DEFAULT_DIM));
  /* (text, vector) -> the mode auto must equal */
  static const struct { int text, vec, mode; uint32_t n; } aCase[] = {
      {1, 0, CAIRN_MEM_BM25, 0}, {1, 1, CAIRN_MEM_HYBRID, 10}, {0, 1, CAIRN_MEM_VECTOR, 10}};
  for (size_t c = 0; c < CAIRN_ARRAY_SIZE(aCase); c++) {
    cairn_mem_query q;
    memset(&q, 0, sizeof q); /* mode 0: auto */
    q.zText = aCase[c].text ? zq : NULL, q.aEmbedding = aCase[c].vec ? v : NULL, q.nEmbedding = CAIRN_MEM_DEFAULT_DIM, q.k = 10;
    cairn_mem_hit ha[10], hb[10];
    uint32_t na, nb;
    CHECK_OK(cairn_mem_search(m, &q, ha, &na));
    q.mode = aCase[c].mode;
    CHECK_OK(cairn_mem_search(m, &q, hb, &nb));
    CHECK_EQ(na, nb);
    CHECK(na >= 2);
    if (aCase[c].n) CHECK_EQ(na, aCase[c].n); /* the vector list fills it */
    for (uint32_t i = 0; i < na; i++) {
      CHECK_EQ(ha[i].id, hb[i].id);
      CHECK(ha[i].score == hb[i].score);
    }
    CHECK(isnan(ha[0].vscore) == !aCase[c].vec);
  }
  cairn_mem_query q;
  memset(&q, 0, sizeof q);
  cairn_mem_hit h[1];
  uint32_t n;
  CHECK_RC(cairn_mem_search(m, &q, h, &n), CAIRN_MISUSE); /* nothing to search with */
  q.zText = zq, q.mode = 4;
  CHECK_RC(cairn_mem_search(m, &q, h, &n), CAIRN_MISUSE);
  cairn_mem_close(m);
}

TEST(mem, hybrid_fusion_definition) {
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(NULL, NULL, &m));
  CHECK_OK(addTurns(m, NTURN));
  const char *zq = "when is the trip to Japan with Ana";
  cairn_mem_hit hv[10], hb[10], hh[10];
  uint32_t nv = search(m, zq, CAIRN_MEM_VECTOR, 10, NULL, hv);
  uint32_t nb = search(m, zq, CAIRN_MEM_BM25, 10, NULL, hb);
  uint32_t nh = search(m, zq, CAIRN_MEM_HYBRID, 10, NULL, hh);
  CHECK_EQ(nv, 10);
  CHECK(nb >= 2);
  CHECK_EQ(nh, 10);
  /* RRF: score = sum over lists of 1/(60 + rank) */
  for (uint32_t i = 0; i < nh; i++) {
    double want = 0;
    for (uint32_t j = 0; j < nv; j++)
      if (hv[j].id == hh[i].id) want += 1.0 / (60 + j + 1);
    for (uint32_t j = 0; j < nb; j++)
      if (hb[j].id == hh[i].id) want += 1.0 / (60 + j + 1);
    CHECK(fabs(hh[i].score - want) < 1e-6);
    if (i) CHECK(hh[i].score <= hh[i - 1].score);
  }
  /* weighted fusion: wVector = 0 gives the BM25 order for BM25 hits */
  cairn_mem_query q;
  memset(&q, 0, sizeof q);
  q.zText = zq, q.k = 10, q.mode = CAIRN_MEM_HYBRID, q.fusion = CAIRN_FUSE_WEIGHTED, q.wVector = 0, q.wBm25 = 1;
  uint32_t n;
  CHECK_OK(cairn_mem_search(m, &q, hh, &n));
  for (uint32_t i = 0; i < nb; i++) CHECK_EQ(hh[i].id, hb[i].id);
  CHECK(fabs(hh[0].score - 1) < 1e-6); /* the best BM25 hit normalises to 1 */
  /* recency: a large weight puts the newest memory first */
  memset(&q, 0, sizeof q);
  q.zText = "Biscuit", q.k = 3, q.mode = CAIRN_MEM_BM25, q.recencyWeight = 100, q.recencyHalfLifeH = 1;
  CHECK_OK(cairn_mem_search(m, &q, hh, &n));
  CHECK_EQ(hh[0].id, 10);
  q.recencyWeight = 0;
  CHECK_OK(cairn_mem_search(m, &q, hh, &n));
  CHECK(hh[0].id != 10 || n == 1);
  /* touch counts accesses */
  q.touch = 1;
  CHECK_OK(cairn_mem_search(m, &q, hh, &n));
  cairn_mem_record r;
  CHECK_OK(cairn_mem_get(m, hh[0].id, &r));
  CHECK_EQ(r.accessCount, 1);
  cairn_mem_close(m);
}

TEST(mem, caller_embeddings_l2) {
  cairn_mem *m;
  cairn_mem_config cfg = {4, CAIRN_METRIC_L2, 0, 0, 0, 0, 0, 0};
  CHECK_OK(cairn_mem_open(NULL, &cfg, &m));
  float v[5][4] = {{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 2, 0, 0}, {3, 3, 3, 3}, {-1, -1, 0, 0}};
  for (int i = 0; i < 5; i++) {
    cairn_mem_record r;
    memset(&r, 0, sizeof r);
    r.zText = "x";
    r.aEmbedding = v[i], r.nEmbedding = 4;
    CHECK_OK(cairn_mem_add(m, &r, NULL));
  }
  float q[4] = {0.9f, 0.1f, 0, 0};
  cairn_mem_query qq;
  memset(&qq, 0, sizeof qq);
  qq.aEmbedding = q, qq.nEmbedding = 4, qq.k = 5, qq.mode = CAIRN_MEM_VECTOR;
  cairn_mem_hit h[5];
  uint32_t n;
  CHECK_OK(cairn_mem_search(m, &qq, h, &n));
  CHECK_EQ(n, 5);
  /* squared distances: v1 0.02, v0 0.82, v2 4.42, v4 3.62+... = (1.9^2 + 1.1^2) = 4.82, v3 ~ 2.1^2+2.9^2+9+9 */
  CHECK_EQ(h[0].id, 2);
  CHECK_EQ(h[1].id, 1);
  CHECK_EQ(h[2].id, 3);
  CHECK_EQ(h[3].id, 5);
  CHECK_EQ(h[4].id, 4);
  CHECK(fabsf(h[0].score + 0.02f) < 1e-5f);
  CHECK(fabsf(h[0].vscore - h[0].score) < 1e-6f);
  cairn_mem_close(m);
}

/* ---- persistence ---- */
/* ---- out of memory: fail allocation N for N = 1, 2, ... ---- */
static cairn_host gSaved;

TEST(mem, out_of_memory_loop) {
  gSaved = *cairn_host_get();
  int done = 0;
  for (long fail = 0; fail < 5000 && !done; fail++) {
    cairn_host h = gSaved;
    oomHooks(&h);
    h.xParallelFor = NULL; /* allocation order must be deterministic */
    cairn_host_set(&h);
    oomArm(OOM_ONCE, fail);
    cairn_mem *m = NULL;
    cairn_file *f = NULL;
    int rc = cairn_memfile_open(NULL, 0, &f);
    if (rc == CAIRN_OK) rc = cairn_mem_open_file(f, NULL, &m);
    if (rc == CAIRN_OK) rc = addTurns(m, 4);
    if (rc == CAIRN_OK) rc = cairn_mem_commit(m);
    cairn_mem_hit hit[3];
    if (rc == CAIRN_OK) rc = search(m, "Biscuit and Ana", CAIRN_MEM_HYBRID, 3, NULL, hit) == 9999 ? CAIRN_NOMEM : CAIRN_OK;
    if (rc == CAIRN_OK) done = 1;
    else if (CAIRN_PRIMARY(rc) != CAIRN_NOMEM) {
      cairn_mem_close(m);
      cairn_host_set(&gSaved);
      tfFail(__FILE__, __LINE__, "fail at %ld: %s (%s)", fail, cairn_errstr(rc), cairn_errmsg());
      return;
    }
    cairn_mem_close(m);
    long live = oomLive();
    cairn_host_set(&gSaved);
    if (live != 0) {
      tfFail(__FILE__, __LINE__, "fail at %ld: %ld allocations leaked", fail, live);
      return;
    }
  }
  cairn_host_set(&gSaved);
  CHECK(done);
}

/* The README demo: the built-in conversation, its questions answered from the store. The
** answering turns were labelled by hand in core/mem/demo_data.c. */
TEST(mem, demo_questions) {
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(NULL, NULL, &m));
  size_t nT, nQ;
  const cairn_mem_demo_turn *aT = cairn_mem_demo_turns(&nT);
  const cairn_mem_demo_question *aQ = cairn_mem_demo_questions(&nQ);
  CHECK(nT >= 30 && nQ >= 10);
  for (size_t i = 0; i < nT; i++) {
    char z[512];
    cairnFormat(z, sizeof z, "%s: %s", aT[i].zSpeaker, aT[i].zText);
    cairn_mem_record r;
    memset(&r, 0, sizeof r);
    r.zText = z, r.zSession = aT[i].zSession, r.zRole = aT[i].zSpeaker, r.eventMs = aT[i].eventMs;
    CHECK_OK(cairn_mem_add(m, &r, NULL));
  }
  int nTop3 = 0;
  for (size_t i = 0; i < nQ; i++) {
    CHECK(aQ[i].iTurn >= 0 && (size_t)aQ[i].iTurn < nT);
    cairn_mem_hit h[3];
    uint32_t n = search(m, aQ[i].zQuestion, CAIRN_MEM_HYBRID, 3, NULL, h);
    CHECK_EQ(n, 3);
    for (uint32_t j = 0; j < n; j++) nTop3 += h[j].id == (uint64_t)aQ[i].iTurn + 1;
  }
  CHECK(nTop3 >= 9); /* word overlap is enough for these questions; see the demo's note */
  cairn_mem_close(m);
}

TEST(mem, text_only_store) {
  cairn_file *f;
  CHECK_OK(cairn_memfile_open(NULL, 0, &f));
  cairn_mem *m;
  cairn_mem_config cfg = {0, 0, 0, 0, 1, 0, 0, 0};
  CHECK_OK(cairn_mem_open_file(f, &cfg, &m));
  CHECK_OK(addTurns(m, NTURN));
  CHECK_OK(cairn_mem_commit(m));
  cairn_mem_hit h[3];
  CHECK_EQ(search(m, "Kyoto ryokan", CAIRN_MEM_BM25, 3, NULL, h), 2);
  CHECK_EQ(h[0].id, 9);
  CHECK_EQ(search(m, "Kyoto ryokan", CAIRN_MEM_HYBRID, 3, NULL, h), 2); /* hybrid is BM25 here */
  CHECK_EQ(h[0].id, 9);
  CHECK(isnan(h[0].vscore));
  CHECK_EQ(search(m, "Kyoto", CAIRN_MEM_VECTOR, 3, NULL, h), 9999);
  float v[256] = {1};
  cairn_mem_record r;
  memset(&r, 0, sizeof r);
  r.zText = "x", r.aEmbedding = v, r.nEmbedding = 256;
  CHECK_RC(cairn_mem_add(m, &r, NULL), CAIRN_MISUSE);
  CHECK_OK(cairn_mem_get(m, 1, &r));
  CHECK(r.aEmbedding == NULL && r.nEmbedding == 0);
  const uint8_t *p;
  size_t n;
  CHECK_OK(cairn_memfile_data(f, &p, &n));
  cairn_file *g;
  CHECK_OK(cairn_memfile_open(p, n, &g));
  cairn_mem_close(m);
  CHECK_OK(cairn_mem_open_file(g, NULL, &m)); /* text-only comes from the header */
  CHECK_EQ(search(m, "Kyoto ryokan", CAIRN_MEM_BM25, 3, NULL, h), 2);
  CHECK_EQ(search(m, "Kyoto", CAIRN_MEM_VECTOR, 3, NULL, h), 9999);
  cairn_mem_close(m);
}

TEST(mem, json_api) {
  cairn_mem *m;
  cairn_mem_config cfg = {4, CAIRN_METRIC_COSINE, 0, 0, 0, 0, 0, 0};
  CHECK_OK(cairn_mem_open(NULL, &cfg, &m));
  uint64_t id;
  CHECK_OK(cairn_mem_add_json(m, "{\"text\": \"Pepper the beagle hurt her paw\", \"embedding\": [1, 0, 0, 0], \"session\": "
                                 "\"s3\", \"role\": \"Maya\", \"tier\": 1, \"importance\": 0.5, \"eventMs\": 1700000000000, "
                                 "\"meta\": {\"topic\": \"dog\", \"n\": [1, 2]}}", &id));
  CHECK_EQ(id, 1);
  CHECK_OK(cairn_mem_add_json(m, "{\"text\": \"Ines plays the \\\"violin\\\"\", \"embedding\": [0, 1, 0, 0], \"session\": \"s2\"}", &id));
  CHECK_EQ(id, 2);
  CHECK_RC(cairn_mem_add_json(m, "{\"txt\": \"typo\"}", &id), CAIRN_MISUSE);
  CHECK(strstr(cairn_errmsg(), "unknown field 'txt'") != NULL);
  CHECK_RC(cairn_mem_add_json(m, "{\"text\": \"x\", \"embedding\": [1, 2]}", &id), CAIRN_MISUSE); /* 2 != 4 dims */
  CHECK_RC(cairn_mem_add_json(m, "{\"text\": \"x\", \"embedding\": [1, \"a\", 0, 0]}", &id), CAIRN_TYPE);
  CHECK_RC(cairn_mem_add_json(m, "{\"text\": \"x\", \"meta\": [1]}", &id), CAIRN_TYPE);
  CHECK_RC(cairn_mem_add_json(m, "{\"session\": \"s\"}", &id), CAIRN_MISUSE); /* no text */
  CHECK_RC(cairn_mem_add_json(m, "[]", &id), CAIRN_MISUSE);
  cairn_mem_record r;
  CHECK_OK(cairn_mem_get(m, 1, &r));
  CHECK_STR(r.zMeta, "{\"topic\": \"dog\", \"n\": [1, 2]}"); /* the object's own text */
  CHECK_EQ(r.tier, 1);
  char *z;
  CHECK_OK(cairn_mem_search_json(m, "beagle paw", "{\"k\": 5, \"mode\": \"bm25\", \"filter\": {\"session\": \"s3\"}}", &z));
  /* the result is JSON the module's own reader accepts, with the fields documented */
  Json j;
  CHECK_OK(cairnJsonParse(&j, z, strlen(z)));
  CHECK(j.a[0].type == JSON_ARR && j.a[0].n == 1);
  uint32_t h = cairnJsonChild(&j, 0);
  CHECK(j.a[cairnJsonGet(&j, h, "id")].num == 1);
  CHECK_STR(j.a[cairnJsonGet(&j, h, "text")].z, "Pepper the beagle hurt her paw");
  CHECK_STR(j.a[cairnJsonGet(&j, h, "role")].z, "Maya");
  CHECK(j.a[cairnJsonGet(&j, h, "vscore")].type == JSON_NULL); /* bm25 mode: no vector score */
  CHECK(j.a[cairnJsonGet(&j, h, "bscore")].num > 0);
  CHECK(j.a[cairnJsonGet(&j, h, "importance")].num == 0.5);
  CHECK(j.a[cairnJsonGet(&j, h, "eventMs")].num == 1700000000000.0);
  CHECK(j.a[cairnJsonGet(&j, cairnJsonGet(&j, h, "meta"), "topic")].type == JSON_STR);
  cairnJsonFree(&j);
  cairn_free(z);
  CHECK_OK(cairn_mem_search_json(m, "", "{\"mode\": \"vector\", \"embedding\": [0.1, 0.9, 0, 0], \"k\": 2}", &z));
  CHECK_OK(cairnJsonParse(&j, z, strlen(z)));
  CHECK_EQ(j.a[0].n, 2);
  h = cairnJsonChild(&j, 0);
  CHECK(j.a[cairnJsonGet(&j, h, "id")].num == 2);
  CHECK_STR(j.a[cairnJsonGet(&j, h, "text")].z, "Ines plays the \"violin\"");
  cairnJsonFree(&j);
  cairn_free(z);
  CHECK_RC(cairn_mem_search_json(m, "x", "{\"mode\": \"fuzzy\"}", &z), CAIRN_MISUSE);
  CHECK(z == NULL);
  CHECK_RC(cairn_mem_search_json(m, "x", "{\"filter\": {\"sesion\": \"s3\"}}", &z), CAIRN_MISUSE);
  CHECK(strstr(cairn_errmsg(), "sesion") != NULL);
  CHECK_RC(cairn_mem_search_json(m, "x", "{\"limit\": 3}", &z), CAIRN_MISUSE);
  CHECK_RC(cairn_mem_search_json(m, "x", "{\"k\": 0}", &z), CAIRN_MISUSE);
  CHECK_OK(cairn_mem_search_json(m, "violin", NULL, &z)); /* defaults: hybrid, k 10 */
  CHECK(strstr(z, "\"id\":2") != NULL);
  cairn_free(z);
  /* a key given twice: the last one holds, and the first one's memory is not lost (ASan) */
  CHECK_OK(cairn_mem_add_json(m, "{\"text\": \"twice\", \"embedding\": [1, 0, 0, 0], \"embedding\": [0, 0, 1, 0], "
                                 "\"meta\": {\"a\": 1}, \"meta\": {\"b\": 2}}", &id));
  CHECK_OK(cairn_mem_get(m, id, &r));
  CHECK_STR(r.zMeta, "{\"b\": 2}");
  CHECK(r.nEmbedding == 4 && r.aEmbedding[2] == 1.0f);
  CHECK_OK(cairn_mem_search_json(m, "beagle paw violin", "{\"mode\": \"bm25\", \"filter\": {\"session\": \"s2\"}, "
                                 "\"filter\": {\"session\": \"s3\"}, \"embedding\": [1, 0, 0, 0], \"embedding\": null}", &z));
  CHECK(strstr(z, "\"id\":1") != NULL);
  CHECK(strstr(z, "\"id\":2") == NULL);
  cairn_free(z);
  cairn_mem_close(m);
}

TEST(mem, meta_filter_escapes) {
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(NULL, NULL, &m));
  CHECK_OK(cairn_mem_add_json(m, "{\"text\": \"tab note\", \"meta\": {\"k\\\"ey\": \"a\\tb \\\"q\\\"\"}}", NULL));
  CHECK_OK(cairn_mem_add_json(m, "{\"text\": \"tab note\", \"meta\": {\"k\\\"ey\": \"a b\"}}", NULL));
  char *z;
  CHECK_OK(cairn_mem_search_json(m, "note", "{\"filter\": {\"meta\": {\"k\\\"ey\": \"a\\tb \\\"q\\\"\"}}}", &z));
  CHECK(strstr(z, "\"id\":1") != NULL);
  CHECK(strstr(z, "\"id\":2") == NULL);
  cairn_free(z);
  cairn_mem_close(m);
}

/* Vectors kept as f16 or int8 on disk: smaller files, and the same answers before and after
** a reopen (the store searches the decoded values from the start). */
