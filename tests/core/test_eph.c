/*
** 2026-12-02
**
** tests/core/test_eph.c - the ephemeral tier (cairn/eph.h) and the decision gate and save
** strategies (cairn/gate.h): set/get/delete against a reference model (hash table shifts, LRU
** order), TTLs on a fake host clock, capacity and TTL edge cases, embedding search against a
** brute-force scan for each metric, promotion into a memory store, out-of-memory failures that
** change nothing, the gate's rules on empty, trivial, short, thin and huge texts, the save
** strategies, and the consolidation score (cairn/score.h) with its selection of the best.
*/
#include <math.h>
#include <stdlib.h>

#include "cairn/eph.h"
#include "cairn/gate.h"
#include "cairn/score.h"
#include "oom.h"
#include "tf.h"

/* ---- a fake monotonic clock: the host with xClock replaced ---- */
static cairn_host gSavedHost;
static int64_t gFakeNs;
static int64_t fakeClock(void *pCtx, int monotonic) {
  (void)pCtx, (void)monotonic;
  return gFakeNs;
}
static void fakeClockOn(int64_t ms) {
  gSavedHost = *cairn_host_get();
  cairn_host h = gSavedHost;
  h.xClock = fakeClock;
  gFakeNs = ms * 1000000;
  cairn_host_set(&h);
}
static void fakeClockOff(void) { cairn_host_set(&gSavedHost); }

static cairn_eph *openEph(uint32_t capacity, uint32_t dim, int metric) {
  cairn_eph_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.capacity = capacity, cfg.dim = dim, cfg.metric = metric;
  cairn_eph *e = NULL;
  return cairn_eph_open(&cfg, &e) == CAIRN_OK ? e : NULL;
}
static int setS(cairn_eph *e, const char *k, const char *v, int64_t ttl) {
  return cairn_eph_set(e, k, strlen(k), v, strlen(v), ttl, NULL, 0);
}
static int getIs(cairn_eph *e, const char *k, const char *v) {
  cairn_eph_entry x;
  if (cairn_eph_get(e, k, strlen(k), &x) != CAIRN_OK) return v == NULL;
  return v && x.nValue == strlen(v) && memcmp(x.pValue, v, x.nValue) == 0 && ((const char *)x.pValue)[x.nValue] == 0;
}

TEST(eph, set_get_delete) {
  cairn_eph *e = openEph(100, 0, 0);
  CHECK(e);
  CHECK_OK(setS(e, "a", "apple", 0));
  CHECK_OK(setS(e, "b", "", 0)); /* an empty value is a value */
  CHECK(getIs(e, "a", "apple"));
  CHECK(getIs(e, "b", ""));
  CHECK_RC(cairn_eph_get(e, "c", 1, NULL), CAIRN_NOTFOUND);
  CHECK_OK(setS(e, "a", "a much longer value than before", 0)); /* overwrite, bigger block */
  CHECK(getIs(e, "a", "a much longer value than before"));
  CHECK_OK(setS(e, "a", "x", 0)); /* smaller: the block is reused */
  CHECK(getIs(e, "a", "x"));
  CHECK_OK(cairn_eph_delete(e, "a", 1));
  CHECK_RC(cairn_eph_delete(e, "a", 1), CAIRN_NOTFOUND);
  CHECK(getIs(e, "a", NULL));
  /* binary keys: a NUL inside is part of the key */
  CHECK_OK(cairn_eph_set(e, "k\0x", 3, "1", 1, 0, NULL, 0));
  CHECK_OK(cairn_eph_set(e, "k\0y", 3, "2", 1, 0, NULL, 0));
  cairn_eph_entry x;
  CHECK_OK(cairn_eph_get(e, "k\0y", 3, &x));
  CHECK_EQ(((const char *)x.pValue)[0], '2');
  CHECK_EQ(x.ttlLeftMs, -1);
  cairn_eph_stats st;
  CHECK_OK(cairn_eph_stats_get(e, &st));
  CHECK_EQ(st.count, 3);
  CHECK_EQ(st.nBytes, 1 + 0 + 3 + 1 + 3 + 1);
  CHECK_EQ(st.nDelete, 1);
  /* bad input */
  CHECK_RC(cairn_eph_set(e, "", 0, "v", 1, 0, NULL, 0), CAIRN_RANGE);
  CHECK_RC(cairn_eph_set(e, NULL, 1, "v", 1, 0, NULL, 0), CAIRN_MISUSE);
  float v[4] = {1, 0, 0, 0};
  CHECK_RC(cairn_eph_set(e, "v", 1, "v", 1, 0, v, 4), CAIRN_MISUSE); /* no dim */
  CHECK_RC(cairn_eph_search(e, v, 4, 1, (cairn_eph_hit[1]){0}, &(uint32_t){0}), CAIRN_MISUSE);
  /* blocks a freed entry keeps (up to 256 bytes) and those it does not, reused by later sets */
  static char big[1000];
  memset(big, 'b', sizeof big);
  CHECK_OK(cairn_eph_set(e, "big", 3, big, sizeof big, 0, NULL, 0));
  CHECK_OK(cairn_eph_delete(e, "big", 3));
  CHECK_OK(setS(e, "s1", "small", 0)); /* takes the freed entry: a new block */
  CHECK_OK(cairn_eph_delete(e, "s1", 2));
  CHECK_OK(setS(e, "s2", "tiny", 0)); /* reuses the kept block */
  CHECK(getIs(e, "s2", "tiny"));
  CHECK_OK(cairn_eph_delete(e, "s2", 2));
  CHECK_OK(cairn_eph_set(e, "s3", 2, big, 200, 0, NULL, 0)); /* the kept block is too small */
  cairn_eph_entry y;
  CHECK_OK(cairn_eph_get(e, "s3", 2, &y));
  CHECK(y.nValue == 200 && memcmp(y.pValue, big, 200) == 0);
  CHECK_OK(cairn_eph_delete(e, "s3", 2));
  cairn_eph_clear(e);
  CHECK_OK(cairn_eph_stats_get(e, &st));
  CHECK_EQ(st.count, 0);
  CHECK_EQ(st.nBytes, 0);
  CHECK(getIs(e, "b", NULL));
  CHECK_OK(setS(e, "b", "again", 0));
  CHECK(getIs(e, "b", "again"));
  cairn_eph_close(e);
  cairn_eph_close(NULL);
}

TEST(eph, capacity_zero_and_bad_config) {
  cairn_eph_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cairn_eph *e = (cairn_eph *)1;
  CHECK_RC(cairn_eph_open(&cfg, &e), CAIRN_RANGE);
  CHECK(e == NULL);
  CHECK(strstr(cairn_errmsg(), "capacity 0"));
  cfg.capacity = CAIRN_EPH_MAX_CAPACITY + 1;
  CHECK_RC(cairn_eph_open(&cfg, &e), CAIRN_RANGE);
  cfg.capacity = 1, cfg.metric = 7;
  CHECK_RC(cairn_eph_open(&cfg, &e), CAIRN_MISUSE);
  cfg.metric = 0, cfg.defaultTtlMs = -1;
  CHECK_RC(cairn_eph_open(&cfg, &e), CAIRN_MISUSE);
  cfg.defaultTtlMs = 0, cfg.dim = CAIRN_EPH_MAX_DIM + 1;
  CHECK_RC(cairn_eph_open(&cfg, &e), CAIRN_RANGE);
  /* capacity 1: each new key replaces the last */
  e = openEph(1, 0, 0);
  CHECK(e);
  CHECK_OK(setS(e, "a", "1", 0));
  CHECK_OK(setS(e, "b", "2", 0));
  CHECK(getIs(e, "a", NULL));
  CHECK(getIs(e, "b", "2"));
  CHECK_OK(setS(e, "b", "3", 0)); /* an overwrite at capacity evicts nothing */
  CHECK(getIs(e, "b", "3"));
  cairn_eph_stats st;
  CHECK_OK(cairn_eph_stats_get(e, &st));
  CHECK_EQ(st.nEvicted, 1);
  cairn_eph_close(e);
}

/* ---- LRU order and the drop callback ---- */
static char gDropped[64];
static int gDropReason[64], gnDropped;
static void onDrop(void *pCtx, const cairn_eph_entry *x, int reason) {
  (void)pCtx;
  if (gnDropped < 64) gDropped[gnDropped] = *(const char *)x->pKey, gDropReason[gnDropped++] = reason;
}

TEST(eph, lru_order) {
  cairn_eph_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.capacity = 3, cfg.xDrop = onDrop;
  cairn_eph *e;
  CHECK_OK(cairn_eph_open(&cfg, &e));
  gnDropped = 0;
  CHECK_OK(setS(e, "a", "1", 0));
  CHECK_OK(setS(e, "b", "2", 0));
  CHECK_OK(setS(e, "c", "3", 0));
  CHECK(getIs(e, "a", "1"));      /* order now a c b (b least recent) */
  CHECK_OK(setS(e, "d", "4", 0)); /* evicts b */
  CHECK(getIs(e, "b", NULL));
  CHECK_OK(setS(e, "c", "33", 0)); /* overwrite refreshes c: order c d a */
  CHECK_OK(setS(e, "e", "5", 0));  /* evicts a */
  CHECK(getIs(e, "a", NULL));
  CHECK(getIs(e, "c", "33"));
  CHECK(getIs(e, "d", "4"));
  CHECK(getIs(e, "e", "5"));
  CHECK_EQ(gnDropped, 2);
  CHECK_EQ(gDropped[0], 'b');
  CHECK_EQ(gDropped[1], 'a');
  CHECK_EQ(gDropReason[0], CAIRN_EPH_EVICTED);
  CHECK_OK(cairn_eph_delete(e, "c", 1)); /* delete: no callback */
  CHECK_EQ(gnDropped, 2);
  cairn_eph_close(e);
}

/* ---- against a reference model: random operations over few keys, small capacity ---- */
TEST(eph, model_random_ops) {
  enum { NKEY = 300, CAP = 97, NOP = 60000 };
  cairn_eph *e = openEph(CAP, 0, 0);
  CHECK(e);
  static int present[NKEY], value[NKEY];
  static long lastUse[NKEY];
  memset(present, 0, sizeof present);
  uint64_t s = 12345;
  int nPresent = 0;
  for (long op = 1; op <= NOP; op++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    int k = (int)(s % NKEY), what = (int)((s >> 20) % 10);
    char key[16], val[32];
    int nk = snprintf(key, sizeof key, "key%d", k);
    if (what < 5) { /* set */
      int v = (int)(s >> 32) & 0xffff;
      int nv = snprintf(val, sizeof val, "v%d-%.*s", v, (int)(v % 17), "xxxxxxxxxxxxxxxxx");
      CHECK_OK(cairn_eph_set(e, key, (size_t)nk, val, (size_t)nv, 0, NULL, 0));
      if (!present[k]) {
        if (nPresent == CAP) { /* the model evicts the least recently used */
          int lru = -1;
          for (int i = 0; i < NKEY; i++)
            if (present[i] && (lru < 0 || lastUse[i] < lastUse[lru])) lru = i;
          present[lru] = 0, nPresent--;
        }
        present[k] = 1, nPresent++;
      }
      value[k] = v, lastUse[k] = op;
    } else if (what < 8) { /* get */
      cairn_eph_entry x;
      int rc = cairn_eph_get(e, key, (size_t)nk, &x);
      CHECK_EQ(rc == CAIRN_OK, present[k]);
      if (present[k]) {
        int nv = snprintf(val, sizeof val, "v%d-%.*s", value[k], (int)(value[k] % 17), "xxxxxxxxxxxxxxxxx");
        CHECK_EQ(x.nValue, nv);
        CHECK(memcmp(x.pValue, val, (size_t)nv) == 0);
        lastUse[k] = op;
      }
    } else { /* delete */
      int rc = cairn_eph_delete(e, key, (size_t)nk);
      CHECK_EQ(rc == CAIRN_OK, present[k]);
      if (present[k]) present[k] = 0, nPresent--;
    }
  }
  cairn_eph_stats st;
  CHECK_OK(cairn_eph_stats_get(e, &st));
  CHECK_EQ(st.count, nPresent);
  cairn_eph_close(e);
}

/* Many keys: the table grows several times; every key is still found, then all deleted. */
TEST(eph, grow_and_shrink) {
  enum { N = 20000 };
  cairn_eph *e = openEph(N, 0, 0);
  CHECK(e);
  char key[16];
  for (int i = 0; i < N; i++) {
    int nk = snprintf(key, sizeof key, "%d", i);
    CHECK_OK(cairn_eph_set(e, key, (size_t)nk, &i, sizeof i, 0, NULL, 0));
  }
  for (int i = 0; i < N; i += 2) {
    int nk = snprintf(key, sizeof key, "%d", i);
    CHECK_OK(cairn_eph_delete(e, key, (size_t)nk));
  }
  for (int i = 0; i < N; i++) {
    int nk = snprintf(key, sizeof key, "%d", i);
    cairn_eph_entry x;
    int rc = cairn_eph_get(e, key, (size_t)nk, &x);
    CHECK_EQ(rc, i % 2 ? CAIRN_OK : CAIRN_NOTFOUND);
    if (rc == CAIRN_OK) CHECK(memcmp(x.pValue, &i, sizeof i) == 0);
  }
  cairn_eph_stats st;
  CHECK_OK(cairn_eph_stats_get(e, &st));
  CHECK_EQ(st.count, N / 2);
  CHECK_EQ(st.nEvicted, 0);
  cairn_eph_close(e);
}

/* ---- TTLs on the fake clock ---- */
TEST(eph, ttl_expiry) {
  fakeClockOn(1000);
  cairn_eph_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.capacity = 10, cfg.xDrop = onDrop;
  cairn_eph *e;
  int rc = cairn_eph_open(&cfg, &e);
  if (rc != CAIRN_OK) fakeClockOff();
  CHECK_OK(rc);
  gnDropped = 0;
  int ok = setS(e, "short", "s", 100) == CAIRN_OK && setS(e, "long", "l", 5000) == CAIRN_OK &&
           setS(e, "never", "n", 0) == CAIRN_OK && setS(e, "forever", "f", CAIRN_EPH_FOREVER) == CAIRN_OK;
  cairn_eph_entry x;
  ok = ok && cairn_eph_get(e, "short", 5, &x) == CAIRN_OK && x.ttlLeftMs == 100;
  gFakeNs += 99 * 1000000ll; /* 99 ms later: still there */
  ok = ok && getIs(e, "short", "s");
  gFakeNs += 1000000ll; /* at 100 ms it has expired */
  ok = ok && getIs(e, "short", NULL) && gnDropped == 1 && gDropReason[0] == CAIRN_EPH_EXPIRED;
  ok = ok && cairn_eph_get(e, "long", 4, &x) == CAIRN_OK && x.ttlLeftMs == 4900;
  /* a TTL in the past is refused and changes nothing */
  int rcPast = setS(e, "long", "changed", -1);
  ok = ok && getIs(e, "long", "l");
  int rcPast2 = cairn_eph_expire(e, "long", 4, -5);
  /* expire: a new TTL; purge drops what is due */
  ok = ok && cairn_eph_expire(e, "never", 5, 10) == CAIRN_OK;
  gFakeNs += 10 * 1000000ll;
  uint32_t nDropped = 99;
  ok = ok && cairn_eph_purge(e, &nDropped) == CAIRN_OK && nDropped == 1;
  ok = ok && getIs(e, "never", NULL) && getIs(e, "forever", "f");
  gFakeNs += 1000000ll * 1000000ll; /* a thousand seconds */
  ok = ok && getIs(e, "long", NULL) && getIs(e, "forever", "f");
  ok = ok && cairn_eph_expire(e, "nope", 4, 10) == CAIRN_NOTFOUND;
  cairn_eph_stats st;
  cairn_eph_stats_get(e, &st);
  cairn_eph_close(e);
  fakeClockOff();
  CHECK(ok);
  CHECK_EQ(rcPast, CAIRN_RANGE);
  CHECK_EQ(rcPast2, CAIRN_RANGE);
  CHECK_EQ(st.nExpired, 3);
  CHECK_EQ(st.count, 1);
}

TEST(eph, default_ttl_and_expired_tail) {
  fakeClockOn(0);
  cairn_eph_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.capacity = 2, cfg.defaultTtlMs = 50, cfg.xDrop = onDrop;
  cairn_eph *e;
  int rc = cairn_eph_open(&cfg, &e);
  if (rc != CAIRN_OK) fakeClockOff();
  CHECK_OK(rc);
  gnDropped = 0;
  int ok = setS(e, "a", "1", 0) == CAIRN_OK && setS(e, "b", "2", CAIRN_EPH_FOREVER) == CAIRN_OK;
  gFakeNs = 60 * 1000000ll;
  ok = ok && setS(e, "c", "3", 0) == CAIRN_OK; /* the tail (a) had expired: reported so */
  ok = ok && gnDropped == 1 && gDropped[0] == 'a' && gDropReason[0] == CAIRN_EPH_EXPIRED;
  ok = ok && getIs(e, "b", "2") && getIs(e, "c", "3");
  gFakeNs = 200 * 1000000ll;
  ok = ok && getIs(e, "c", NULL) && getIs(e, "b", "2");
  cairn_eph_close(e);
  fakeClockOff();
  CHECK(ok);
}

/* ---- embedding search against brute force ---- */
static double refScore(const float *a, const float *q, uint32_t d, int metric) {
  double dot = 0, na = 0, nq = 0, l2 = 0;
  for (uint32_t j = 0; j < d; j++) {
    dot += (double)a[j] * q[j], na += (double)a[j] * a[j], nq += (double)q[j] * q[j];
    l2 += ((double)a[j] - q[j]) * ((double)a[j] - q[j]);
  }
  if (metric == CAIRN_METRIC_COSINE) return dot / sqrt(na * nq);
  if (metric == CAIRN_METRIC_IP) return dot;
  return -l2;
}

TEST(eph, search_matches_brute_force) {
  enum { N = 1500, D = 48, K = 10 };
  static float aVec[N][D];
  static int live[N];
  tfFillRandom(aVec, sizeof aVec, 7);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < D; j++) {
      uint32_t u;
      memcpy(&u, &aVec[i][j], 4);
      aVec[i][j] = (float)(u % 20001) / 10000.0f - 1.0f;
    }
  for (int metric = 0; metric <= 2; metric++) {
    cairn_eph *e = openEph(N, D, metric);
    CHECK(e);
    char key[16];
    for (int i = 0; i < N; i++) {
      int nk = snprintf(key, sizeof key, "%d", i);
      /* every 7th has no embedding (not searchable) */
      CHECK_OK(cairn_eph_set(e, key, (size_t)nk, "v", 1, 0, i % 7 ? aVec[i] : NULL, i % 7 ? D : 0));
      live[i] = i % 7 != 0;
    }
    /* holes: deletes move rows around; overwrites without embedding drop rows */
    for (int i = 0; i < N; i += 5) {
      int nk = snprintf(key, sizeof key, "%d", i);
      if (i % 2) CHECK_OK(cairn_eph_delete(e, key, (size_t)nk));
      else CHECK_OK(cairn_eph_set(e, key, (size_t)nk, "w", 1, 0, NULL, 0));
      live[i] = 0;
    }
    for (int qi = 0; qi < 5; qi++) {
      const float *q = aVec[(qi * 311 + 3) % N];
      cairn_eph_hit hit[K];
      uint32_t nHit;
      CHECK_OK(cairn_eph_search(e, q, D, K, hit, &nHit));
      CHECK_EQ(nHit, K);
      /* the brute-force top K */
      int best[K];
      double bestS[K];
      for (int k = 0; k < K; k++) best[k] = -1, bestS[k] = -INFINITY;
      for (int i = 0; i < N; i++) {
        if (!live[i]) continue;
        double sc = refScore(aVec[i], q, D, metric);
        if (sc <= bestS[K - 1]) continue;
        int k = K - 1;
        while (k > 0 && bestS[k - 1] < sc) best[k] = best[k - 1], bestS[k] = bestS[k - 1], k--;
        best[k] = i, bestS[k] = sc;
      }
      for (int k = 0; k < K; k++) {
        int got = atoi((const char *)hit[k].entry.pKey);
        double tol = 1e-4 * (metric == CAIRN_METRIC_COSINE ? 1 : D);
        CHECK(fabs((double)hit[k].score - bestS[k]) < tol);
        if (k + 1 < K && bestS[k] - bestS[k + 1] > tol && (k == 0 || bestS[k - 1] - bestS[k] > tol)) CHECK_EQ(got, best[k]);
        CHECK(hit[k].entry.aEmbedding != NULL);
        CHECK(hit[k].entry.nKey > 0);
      }
    }
    /* k larger than the searchable entries */
    static cairn_eph_hit many[2000];
    uint32_t nMany;
    CHECK_OK(cairn_eph_search(e, aVec[1], D, 2000, many, &nMany));
    int nLive = 0;
    for (int i = 0; i < N; i++) nLive += live[i];
    CHECK_EQ(nMany, nLive);
    for (uint32_t i = 1; i < nMany; i++) CHECK(many[i - 1].score >= many[i].score);
    CHECK_RC(cairn_eph_search(e, aVec[1], D, 0, many, &nMany), CAIRN_RANGE);
    CHECK_RC(cairn_eph_search(e, aVec[1], D - 1, 3, many, &nMany), CAIRN_MISUSE);
    float bad[D];
    memcpy(bad, aVec[1], sizeof bad);
    bad[3] = NAN;
    CHECK_RC(cairn_eph_search(e, bad, D, 3, many, &nMany), CAIRN_TYPE);
    CHECK_RC(cairn_eph_set(e, "nan", 3, "v", 1, 0, bad, D), CAIRN_TYPE);
    CHECK_RC(cairn_eph_get(e, "nan", 3, NULL), CAIRN_NOTFOUND);
    cairn_eph_close(e);
  }
}

TEST(eph, search_skips_expired) {
  fakeClockOn(0);
  cairn_eph *e = openEph(10, 2, CAIRN_METRIC_IP);
  int ok = e != NULL;
  float a[2] = {1, 0}, b[2] = {0.5f, 0};
  ok = ok && cairn_eph_set(e, "a", 1, "A", 1, 10, a, 2) == CAIRN_OK && cairn_eph_set(e, "b", 1, "B", 1, 0, b, 2) == CAIRN_OK;
  cairn_eph_hit h[2];
  uint32_t n = 0;
  ok = ok && cairn_eph_search(e, a, 2, 2, h, &n) == CAIRN_OK && n == 2 && *(const char *)h[0].entry.pKey == 'a';
  ok = ok && h[0].entry.ttlLeftMs == 10 && h[1].entry.ttlLeftMs == -1;
  gFakeNs = 10 * 1000000ll;
  ok = ok && cairn_eph_search(e, a, 2, 2, h, &n) == CAIRN_OK && n == 1 && *(const char *)h[0].entry.pKey == 'b';
  cairn_eph_close(e);
  fakeClockOff();
  CHECK(ok);
}

/* ---- promotion into the durable store ---- */
TEST(eph, promote) {
  cairn_eph *e = openEph(10, 8, CAIRN_METRIC_COSINE);
  CHECK(e);
  cairn_mem_config mc;
  memset(&mc, 0, sizeof mc);
  mc.dim = 8;
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(NULL, &mc, &m));
  float v[8] = {3, 0, 0, 4, 0, 0, 0, 0};
  CHECK_OK(cairn_eph_set(e, "plan", 4, "book the flight to Lisbon", 25, 0, v, 8));
  cairn_mem_record base;
  memset(&base, 0, sizeof base);
  base.zSession = "s1", base.zRole = "agent", base.tier = 1, base.importance = 0.75f;
  base.zText = "ignored";
  uint64_t id = 0;
  CHECK_OK(cairn_eph_promote(e, "plan", 4, m, &base, 0, &id));
  CHECK_EQ(id, 1);
  cairn_mem_record r;
  CHECK_OK(cairn_mem_get(m, id, &r));
  CHECK(strcmp(r.zText, "book the flight to Lisbon") == 0);
  CHECK(strcmp(r.zSession, "s1") == 0);
  CHECK_EQ(r.tier, 1);
  float got[8];
  CHECK_OK(cairn_mem_embedding(m, id, got));
  CHECK(fabsf(got[0] - 0.6f) < 1e-6f && fabsf(got[3] - 0.8f) < 1e-6f);
  CHECK(getIs(e, "plan", "book the flight to Lisbon")); /* kept: bRemove 0 */
  CHECK_OK(cairn_eph_promote(e, "plan", 4, m, NULL, 1, &id));
  CHECK_EQ(id, 2);
  CHECK(getIs(e, "plan", NULL));
  CHECK_RC(cairn_eph_promote(e, "plan", 4, m, NULL, 1, &id), CAIRN_NOTFOUND);
  /* a value a memory cannot hold: refused, both sides unchanged */
  CHECK_OK(cairn_eph_set(e, "bin", 3, "a\0b", 3, 0, NULL, 0));
  CHECK_RC(cairn_eph_promote(e, "bin", 3, m, NULL, 1, &id), CAIRN_TYPE);
  CHECK_OK(cairn_eph_set(e, "empty", 5, "", 0, 0, NULL, 0));
  CHECK_RC(cairn_eph_promote(e, "empty", 5, m, NULL, 1, &id), CAIRN_RANGE);
  CHECK(getIs(e, "empty", ""));
  cairn_mem_stats ms;
  CHECK_OK(cairn_mem_stats_get(m, &ms));
  CHECK_EQ(ms.nMemory, 2);
  /* a store of another dimension embeds the text itself */
  cairn_mem *m2;
  CHECK_OK(cairn_mem_open(NULL, NULL, &m2));
  CHECK_OK(cairn_eph_set(e, "x", 1, "hello there", 11, 0, v, 8));
  CHECK_OK(cairn_eph_promote(e, "x", 1, m2, NULL, 0, &id));
  CHECK_EQ(id, 1);
  cairn_mem_close(m2);
  cairn_mem_close(m);
  cairn_eph_close(e);
}

/* ---- out of memory: each failing allocation fails the call with NOMEM and changes nothing ---- */
TEST(eph, out_of_memory) {
  cairn_host saved = *cairn_host_get();
  int done = 0;
  for (long fail = 0; fail < 2000 && !done; fail++) {
    oomInstallOnce(&saved, fail);
    cairn_eph *e = NULL;
    cairn_eph_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.capacity = 50, cfg.dim = 4;
    int rc = cairn_eph_open(&cfg, &e), bad = 0;
    char key[16];
    float v[4] = {1, 2, 3, 4};
    for (int i = 0; rc == CAIRN_OK && i < 120; i++) {
      int nk = snprintf(key, sizeof key, "k%d", i);
      cairn_eph_stats before, after;
      cairn_eph_stats_get(e, &before);
      rc = cairn_eph_set(e, key, (size_t)nk, key, (size_t)nk, 0, i % 2 ? v : NULL, i % 2 ? 4 : 0);
      if (rc != CAIRN_OK) {
        cairn_eph_stats_get(e, &after);
        bad = after.count != before.count || after.nBytes != before.nBytes || after.nEvicted != before.nEvicted ||
              cairn_eph_get(e, key, (size_t)nk, NULL) != CAIRN_NOTFOUND;
      }
    }
    cairn_eph_hit hit[3];
    uint32_t n;
    if (rc == CAIRN_OK) rc = cairn_eph_search(e, v, 4, 3, hit, &n);
    if (rc == CAIRN_OK) done = 1;
    cairn_eph_close(e);
    long live = oomLive();
    cairn_host_set(&saved);
    if (bad) {
      tfFail(__FILE__, __LINE__, "fail at %ld: a failed set changed the tier", fail);
      return;
    }
    if (rc != CAIRN_OK && CAIRN_PRIMARY(rc) != CAIRN_NOMEM) {
      tfFail(__FILE__, __LINE__, "fail at %ld: %s (%s)", fail, cairn_errstr(rc), cairn_errmsg());
      return;
    }
    if (live != 0) {
      tfFail(__FILE__, __LINE__, "fail at %ld: %ld allocations leaked", fail, live);
      return;
    }
  }
  CHECK(done);
}

/* ---- the gate ---- */
static int gateReason(const char *z) {
  cairn_gate_result r;
  if (cairn_gate_check(NULL, z, strlen(z), &r) != CAIRN_OK) return -1;
  if (r.save != (r.reason == CAIRN_GATE_PASS)) return -2;
  return r.reason;
}

TEST(gate, rules) {
  CHECK_EQ(gateReason(""), CAIRN_GATE_EMPTY);
  CHECK_EQ(gateReason("   \n\t "), CAIRN_GATE_EMPTY);
  CHECK_EQ(gateReason("?!... :)"), CAIRN_GATE_EMPTY);
  CHECK_EQ(gateReason("ok"), CAIRN_GATE_TRIVIAL);
  CHECK_EQ(gateReason("  OK!  "), CAIRN_GATE_TRIVIAL);
  CHECK_EQ(gateReason("yes please"), CAIRN_GATE_TRIVIAL);
  CHECK_EQ(gateReason("Thank you so much!"), CAIRN_GATE_TRIVIAL);
  CHECK_EQ(gateReason("sounds good to me"), CAIRN_GATE_TRIVIAL);
  CHECK_EQ(gateReason("lol"), CAIRN_GATE_TRIVIAL);
  CHECK_EQ(gateReason("ok ok ok ok ok ok ok"), CAIRN_GATE_SHORT); /* 7 words: beyond trivialMaxWords, no content */
  CHECK_EQ(gateReason("Paris"), CAIRN_GATE_SHORT);
  CHECK_EQ(gateReason("I am here"), CAIRN_GATE_SHORT);
  CHECK_EQ(gateReason("ok, Lisbon"), CAIRN_GATE_SHORT);
  CHECK_EQ(gateReason("it is what it is and that is that, so it is what it was, really"), CAIRN_GATE_SHORT); /* no content word */
  CHECK_EQ(gateReason("well it is what it is and that is how it was with the weather and the rain"), CAIRN_GATE_LOW_CONTENT);
  CHECK_EQ(gateReason("I moved to Lisbon in May"), CAIRN_GATE_PASS);
  CHECK_EQ(gateReason("My dog Biscuit turned three yesterday"), CAIRN_GATE_PASS);
  CHECK_EQ(gateReason("Ich bin im Mai nach Lissabon gezogen"), CAIRN_GATE_PASS);
  CHECK_EQ(gateReason("\xd0\xaf \xd0\xbf\xd0\xb5\xd1\x80\xd0\xb5\xd0\xb5\xd1\x85\xd0\xb0\xd0\xbb \xd0\xb2 "
                      "\xd0\x9b\xd0\xb8\xd1\x81\xd1\x81\xd0\xb0\xd0\xb1\xd0\xbe\xd0\xbd"), CAIRN_GATE_PASS);
  cairn_gate_result r;
  CHECK_OK(cairn_gate_check(NULL, "  I moved to Lisbon in May  ", 28, &r));
  CHECK_EQ(r.nBytes, 24);
  CHECK_EQ(r.nWords, 6);
  CHECK_EQ(r.nContent, 2); /* moved, lisbon ("may" is a function word to the gate) */
  CHECK(fabsf(r.ratio - 1.0f / 3.0f) < 1e-6f);
  CHECK_RC(cairn_gate_check(NULL, NULL, 3, &r), CAIRN_MISUSE);
  CHECK_OK(cairn_gate_check(NULL, NULL, 0, &r));
  CHECK_EQ(r.reason, CAIRN_GATE_EMPTY);
  CHECK(strcmp(cairn_gate_reason_name(CAIRN_GATE_LOW_CONTENT), "low content") == 0);
  CHECK(cairn_gate_reason_name(99) == NULL);
}

TEST(gate, thresholds_and_huge_text) {
  cairn_gate_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cairn_gate_result r;
  cfg.minBytes = 3, cfg.minContentWords = 1;
  CHECK_OK(cairn_gate_check(&cfg, "Paris", 5, &r));
  CHECK_EQ(r.reason, CAIRN_GATE_PASS);
  cfg.minContentRatio = -1; /* off */
  const char *zThin = "well it is what it is and that is how it was with the weather and the rain";
  CHECK_OK(cairn_gate_check(&cfg, zThin, strlen(zThin), &r));
  CHECK_EQ(r.reason, CAIRN_GATE_PASS);
  CHECK_EQ(r.nContent, 2);
  cfg.noGate = 1;
  CHECK_OK(cairn_gate_check(&cfg, "ok", 2, &r));
  CHECK_EQ(r.reason, CAIRN_GATE_PASS);
  CHECK_OK(cairn_gate_check(&cfg, " ", 1, &r));
  CHECK_EQ(r.reason, CAIRN_GATE_EMPTY);
  /* huge: 3 MiB of words */
  size_t n = 7 * 449390; /* 3 MiB of "lisbon ", ending in a space */
  char *z = malloc(n);
  CHECK(z);
  for (size_t i = 0; i < n; i++) z[i] = "lisbon "[i % 7];
  int rc = cairn_gate_check(NULL, z, n, &r);
  int reason = r.reason, nWords = (int)r.nWords;
  memset(&cfg, 0, sizeof cfg);
  cfg.maxBytes = UINT32_MAX, cfg.scanBytes = 700;
  int rc2 = cairn_gate_check(&cfg, z, n, &r);
  free(z);
  CHECK_OK(rc);
  CHECK_EQ(reason, CAIRN_GATE_TOO_LONG);
  CHECK_EQ(nWords, 65536 / 7 + 1); /* counted over the first 64 KiB only */
  CHECK_OK(rc2);
  CHECK_EQ(r.reason, CAIRN_GATE_PASS);
  CHECK_EQ(r.nWords, 100);
  CHECK_EQ(r.nBytes, (uint32_t)n - 1); /* the last space trimmed */
}

TEST(gate, strategies) {
  cairn_gate *g;
  cairn_observe_result o;
  cairn_exchange x;
  memset(&x, 0, sizeof x);
  x.importance = NAN;
  /* every exchange: each side that passes */
  CHECK_OK(cairn_gate_open(NULL, &g));
  x.zUser = "I moved to Lisbon in May", x.zAssistant = "ok";
  CHECK_OK(cairn_gate_observe(g, &x, NULL, &o));
  CHECK(o.save && o.saveUser && !o.saveAssistant);
  CHECK_EQ(o.why, CAIRN_OBSERVE_EVERY);
  CHECK_EQ(o.assistant.reason, CAIRN_GATE_TRIVIAL);
  CHECK(isnan(o.shift));
  CHECK_EQ(o.userId, 0);
  x.zUser = "thanks", x.zAssistant = NULL;
  CHECK_OK(cairn_gate_observe(g, &x, NULL, &o));
  CHECK(!o.save);
  CHECK_EQ(o.why, CAIRN_OBSERVE_GATED);
  CHECK_EQ(o.assistant.reason, CAIRN_GATE_EMPTY);
  cairn_gate_close(g);

  /* on importance: given, then estimated */
  cairn_gate_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.strategy = CAIRN_SAVE_ON_IMPORTANCE, cfg.importanceThreshold = 0.6f;
  CHECK_OK(cairn_gate_open(&cfg, &g));
  x.zUser = "My sister Ana lives in Porto", x.zAssistant = NULL;
  x.importance = 0.9f;
  CHECK_OK(cairn_gate_observe(g, &x, NULL, &o));
  CHECK(o.save);
  CHECK_EQ(o.why, CAIRN_OBSERVE_IMPORTANT);
  x.importance = 0.1f;
  CHECK_OK(cairn_gate_observe(g, &x, NULL, &o));
  CHECK(!o.save);
  CHECK_EQ(o.why, CAIRN_OBSERVE_UNIMPORTANT);
  x.importance = -1; /* estimated: ratio 4/6 * min(1, 4/8) = 0.33 */
  CHECK_OK(cairn_gate_observe(g, &x, NULL, &o));
  CHECK(fabsf(o.importance - 4.0f / 6.0f * 0.5f) < 1e-6f);
  CHECK_EQ(o.why, CAIRN_OBSERVE_UNIMPORTANT);
  cairn_gate_close(g);

  /* on shift, saving into a store */
  memset(&cfg, 0, sizeof cfg);
  cfg.strategy = CAIRN_SAVE_ON_SHIFT, cfg.shiftThreshold = 0.5f, cfg.window = 4;
  CHECK_OK(cairn_gate_open(&cfg, &g));
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(NULL, NULL, &m));
  x.importance = NAN, x.zSession = "s1";
  x.zUser = "My dog Biscuit loves the beach", x.zAssistant = "Biscuit sounds like a happy dog at the beach";
  CHECK_OK(cairn_gate_observe(g, &x, m, &o));
  CHECK(o.save && o.shift == 1.0f);
  CHECK_EQ(o.why, CAIRN_OBSERVE_SHIFT);
  CHECK_EQ(o.userId, 1);
  CHECK_EQ(o.assistantId, 2);
  CHECK_OK(cairn_gate_observe(g, &x, m, &o)); /* the same again: no shift */
  CHECK(!o.save && o.shift < 0.05f);
  CHECK_EQ(o.why, CAIRN_OBSERVE_NO_SHIFT);
  x.zUser = "What is the capital of Australia", x.zAssistant = "Canberra is the capital city of Australia";
  CHECK_OK(cairn_gate_observe(g, &x, m, &o));
  CHECK(o.save && o.shift > 0.5f);
  CHECK_EQ(o.userId, 3);
  cairn_mem_record r;
  CHECK_OK(cairn_mem_get(m, 4, &r));
  CHECK(strcmp(r.zRole, "assistant") == 0 && strcmp(r.zSession, "s1") == 0);
  CHECK(strcmp(r.zText, "Canberra is the capital city of Australia") == 0);
  /* given embeddings of the wrong size */
  float v[3] = {1, 0, 0};
  x.aUserEmbedding = v, x.nEmbedding = 3;
  CHECK_RC(cairn_gate_observe(g, &x, m, &o), CAIRN_MISUSE);
  cairn_mem_stats st;
  CHECK_OK(cairn_mem_stats_get(m, &st));
  CHECK_EQ(st.nMemory, 4);
  cairn_mem_close(m);
  cairn_gate_close(g);

  /* bad configurations */
  memset(&cfg, 0, sizeof cfg);
  cfg.strategy = 9;
  CHECK_RC(cairn_gate_open(&cfg, &g), CAIRN_MISUSE);
  cfg.strategy = 0, cfg.window = 5000;
  CHECK_RC(cairn_gate_open(&cfg, &g), CAIRN_RANGE);
  cfg.window = 0, cfg.shiftThreshold = NAN;
  CHECK_RC(cairn_gate_open(&cfg, &g), CAIRN_MISUSE);
}

TEST(gate, shift_with_given_embeddings) {
  enum { D = 16 };
  cairn_gate_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.strategy = CAIRN_SAVE_ON_SHIFT, cfg.dim = D, cfg.window = 2, cfg.shiftThreshold = 0.3f, cfg.noGate = 1;
  cairn_gate *g;
  CHECK_OK(cairn_gate_open(&cfg, &g));
  float a[D] = {1}, b[D] = {0, 1}, c[D] = {0, 0, 1};
  cairn_exchange x;
  memset(&x, 0, sizeof x);
  x.zUser = "first topic", x.nEmbedding = D, x.importance = NAN;
  cairn_observe_result o;
  x.aUserEmbedding = a;
  CHECK_OK(cairn_gate_observe(g, &x, NULL, &o));
  CHECK(o.save && o.shift == 1.0f);
  CHECK_OK(cairn_gate_observe(g, &x, NULL, &o)); /* window {a}: distance 0 */
  CHECK(!o.save && fabsf(o.shift) < 1e-6f);
  x.aUserEmbedding = b; /* window {a, a}: orthogonal, distance 1 */
  CHECK_OK(cairn_gate_observe(g, &x, NULL, &o));
  CHECK(o.save && fabsf(o.shift - 1.0f) < 1e-6f);
  x.aUserEmbedding = c; /* window {a, b} (the oldest a left): centroid (1,1)/2 -> cosine 0 */
  CHECK_OK(cairn_gate_observe(g, &x, NULL, &o));
  CHECK(fabsf(o.shift - 1.0f) < 1e-6f);
  x.aUserEmbedding = b; /* window {b, c}: cosine 1/sqrt(2) */
  CHECK_OK(cairn_gate_observe(g, &x, NULL, &o));
  CHECK(fabsf(o.shift - (1.0f - 0.70710678f)) < 1e-5f);
  CHECK(!o.save);
  /* many pushes (the window's sum is recomputed every 16 here): still exact */
  for (int i = 0; i < 41; i++) {
    x.aUserEmbedding = i % 2 ? a : b;
    CHECK_OK(cairn_gate_observe(g, &x, NULL, &o));
  }
  x.aUserEmbedding = a; /* window {b, a} */
  CHECK_OK(cairn_gate_observe(g, &x, NULL, &o));
  CHECK(fabsf(o.shift - (1.0f - 0.70710678f)) < 1e-5f);
  /* saving with embeddings the store cannot take (dim 256): the store embeds the text */
  cairn_mem *m;
  CHECK_OK(cairn_mem_open(NULL, NULL, &m));
  x.aUserEmbedding = c, x.zAssistant = "a different subject", x.aAssistantEmbedding = a;
  float far[D] = {0, 0, 0, 0, 1};
  x.aUserEmbedding = far;
  CHECK_OK(cairn_gate_observe(g, &x, m, &o));
  CHECK(o.save);
  CHECK_EQ(o.userId, 1);
  CHECK_EQ(o.assistantId, 2);
  far[2] = NAN;
  CHECK_RC(cairn_gate_observe(g, &x, m, &o), CAIRN_TYPE);
  cairn_mem_stats st;
  CHECK_OK(cairn_mem_stats_get(m, &st));
  CHECK_EQ(st.nMemory, 2);
  cairn_mem_close(m);
  cairn_gate_close(g);
}

/* ---- the consolidation score (cairn/score.h) ---- */
#define HOUR_MS 3600000ll

TEST(score, parts_and_defaults) {
  int64_t now = 1000 * HOUR_MS;
  cairn_score_input x = {0.5f, 4, now - 168 * HOUR_MS, 2};
  cairn_score_parts p;
  CHECK_OK(cairn_score(NULL, &x, now, &p));
  CHECK(fabsf(p.value - 0.5f) < 1e-6f && fabsf(p.access - 0.5f) < 1e-6f);
  CHECK(fabsf(p.recency - 0.5f) < 1e-6f && fabsf(p.links - 0.5f) < 1e-6f);
  CHECK(fabsf(p.score - 0.5f) < 1e-6f);
  /* clamps and edges */
  cairn_score_input y = {3.0f, 0, now + HOUR_MS, 0}; /* a future time: age 0 */
  CHECK_OK(cairn_score(NULL, &y, now, &p));
  CHECK(p.value == 1.0f && p.access == 0.0f && p.recency == 1.0f && p.links == 0.0f);
  CHECK(fabsf(p.score - 0.6f) < 1e-6f);
  y.importance = NAN;
  CHECK_OK(cairn_score(NULL, &y, now, &p));
  CHECK(p.value == 0.0f);
  y.importance = -2;
  CHECK_OK(cairn_score(NULL, &y, now, &p));
  CHECK(p.value == 0.0f);
  /* one part only */
  cairn_score_config c;
  memset(&c, 0, sizeof c);
  c.wAccess = c.wRecency = c.wLinks = -1;
  x.importance = 0.25f;
  CHECK_OK(cairn_score(&c, &x, now, &p));
  CHECK(fabsf(p.score - 0.25f) < 1e-6f);
  c.wValue = -1, c.wRecency = 2, c.halfLifeH = 1; /* recency alone, a one-hour half-life */
  x.lastMs = now - 3 * HOUR_MS;
  CHECK_OK(cairn_score(&c, &x, now, &p));
  CHECK(fabsf(p.score - 0.125f) < 1e-6f);
  /* more accesses, more links, more recent: never a lower score */
  float prev = -1;
  for (uint32_t a = 0; a < 40; a++) {
    cairn_score_input z = {0.3f, a, now - (int64_t)(40 - a) * HOUR_MS, a / 4};
    CHECK_OK(cairn_score(NULL, &z, now, &p));
    CHECK(p.score > prev);
    CHECK(p.score >= 0 && p.score <= 1);
    prev = p.score;
  }
  /* bad settings */
  memset(&c, 0, sizeof c);
  c.wValue = c.wAccess = c.wRecency = c.wLinks = -1;
  CHECK_RC(cairn_score(&c, &x, now, &p), CAIRN_MISUSE);
  memset(&c, 0, sizeof c);
  c.wLinks = NAN;
  CHECK_RC(cairn_score(&c, &x, now, &p), CAIRN_MISUSE);
  memset(&c, 0, sizeof c);
  c.halfLifeH = -1;
  CHECK_RC(cairn_score(&c, &x, now, &p), CAIRN_MISUSE);
  c.halfLifeH = INFINITY;
  CHECK_RC(cairn_score(&c, &x, now, &p), CAIRN_MISUSE);
  CHECK_RC(cairn_score(NULL, NULL, now, &p), CAIRN_MISUSE);
}

/* The seed's consolidation experiment on the scoring level: 1,000 memories, 10 signal ones
** accessed 15+ times among 990 noise ones, a working capacity of 100: the 10 stay hot. */
TEST(score, select_keeps_the_signal) {
  enum { N = 1000, CAP = 100 };
  static cairn_score_input a[N];
  static uint32_t keep[N];
  int64_t now = 2000 * HOUR_MS;
  uint64_t s = 99;
  for (int i = 0; i < N; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    int signal = i % 100 == 37;
    /* the same importance for all: access tells them apart; being accessed, the signal ones were
    ** touched within the last day, the noise ones at any time in the last month */
    a[i].importance = 0.5f;
    a[i].accessCount = signal ? 15 + (uint32_t)(s >> 20) % 16 : (uint32_t)(s >> 20) % 4;
    a[i].lastMs = now - (int64_t)((s >> 32) % (signal ? 24 : 30 * 24)) * HOUR_MS;
    a[i].nLinks = (uint32_t)(s >> 50) % 2;
  }
  size_t nKeep;
  CHECK_OK(cairn_score_select(NULL, a, N, now, CAP, keep, &nKeep));
  CHECK_EQ(nKeep, CAP);
  int nSignal = 0;
  for (size_t i = 0; i < nKeep; i++) nSignal += keep[i] % 100 == 37;
  CHECK_EQ(nSignal, 10);
  /* best first, and the kept ones score at least as well as any dropped one */
  static float sc[N];
  static char kept[N];
  CHECK_OK(cairn_score_many(NULL, a, N, now, sc));
  memset(kept, 0, sizeof kept);
  for (size_t i = 0; i < nKeep; i++) {
    kept[keep[i]] = 1;
    if (i) CHECK(sc[keep[i - 1]] > sc[keep[i]] || (sc[keep[i - 1]] == sc[keep[i]] && keep[i - 1] < keep[i]));
  }
  float worstKept = sc[keep[nKeep - 1]];
  for (int i = 0; i < N; i++)
    if (!kept[i]) CHECK(sc[i] <= worstKept);
  cairn_score_parts p;
  CHECK_OK(cairn_score(NULL, &a[5], now, &p));
  CHECK(p.score == sc[5]);
  /* capacity 0 keeps none; beyond n keeps all; n 0 */
  CHECK_OK(cairn_score_select(NULL, a, N, now, 0, keep, &nKeep));
  CHECK_EQ(nKeep, 0);
  CHECK_OK(cairn_score_select(NULL, a, 7, now, 50, keep, &nKeep));
  CHECK_EQ(nKeep, 7);
  CHECK_OK(cairn_score_select(NULL, NULL, 0, now, 50, NULL, &nKeep));
  CHECK_EQ(nKeep, 0);
  CHECK_RC(cairn_score_select(NULL, a, N, now, 5, NULL, &nKeep), CAIRN_MISUSE);
}
