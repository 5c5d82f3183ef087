/*
** 2026-12-02
**
** bench/cons/bench_cons.c - the consolidation cycle and the session tick (issue 18) on the
** seed's workload shapes (bench/cons/run.sh builds it against build/native and runs it):
**   - one cycle over N = 1,000 and 10,000 working memories of 384-d random unit vectors,
**     capacity N/10: eviction only (mergeThreshold < 0, what the seed's cycle does) and with
**     promotion (every evicted memory compared with the others), and a second cycle right after
**     (the incremental case: nothing new)
**   - the session tick at 1K and 10K (commit + a due consolidation, in-memory store)
**   - the seed's efficiency experiment: 1,000 memories, 10 "signal" ones each searched for
**     (touch: access counted) 15 times, 990 noise, capacity 100: memories left hot, Hit@1/5/10 of
**     the 10 signal queries over the hot tier, and the search time over the hot tier against the
**     whole store (median of the queries).
** Prints one JSON object. Times are thread CPU time (the shared machine runs at load ~18: wall
** time there measures the run queue), medians over ROUNDS fresh stores (argv[1], default 5;
** argv[2] = 1: the 1K shape only).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cairn/cairn.h"
#include "cairn/consolidate.h"

#define DIM 384
static double nowNs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: the machine is shared (load ~18 on 2 cores), wall time measures the queue */
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}
static uint64_t rs = 88172645463325252ull;
static double rnd(void) {
  rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
  return (double)(rs >> 11) / 9007199254740992.0;
}
static void randVec(float *v) {
  double sq = 0;
  for (int d = 0; d < DIM; d++) v[d] = (float)(rnd() * 2 - 1), sq += v[d] * v[d];
  for (int d = 0; d < DIM; d++) v[d] = (float)(v[d] / sqrt(sq));
}
static int cmpD(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *a, int n) {
  qsort(a, n, sizeof *a, cmpD);
  return a[n / 2];
}
#define OK(x) do { int rc_ = (x); if (rc_) { fprintf(stderr, "%s:%d: %s: %d %s\n", __FILE__, __LINE__, #x, rc_, cairn_errmsg()); exit(1); } } while (0)

static const int64_t T0 = 1796000000000LL;

static cairn_mem *fill(int n, float *aVec) {
  cairn_mem *m;
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.dim = DIM;
  OK(cairn_mem_open(NULL, &cfg, &m));
  char z[64];
  for (int i = 0; i < n; i++) {
    cairn_mem_record r;
    memset(&r, 0, sizeof r);
    snprintf(z, sizeof z, "memory number %d", i);
    r.zText = z, r.aEmbedding = aVec + (size_t)i * DIM, r.nEmbedding = DIM;
    r.createdMs = r.eventMs = T0 - (int64_t)(n - i) * 1000;
    OK(cairn_mem_add(m, &r, NULL));
  }
  return m;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 5;
  if (rounds < 1 || rounds > 99) rounds = 5;
  printf("{");
  static const int aN[2] = {1000, 10000};
  int nSizes = argc > 2 ? atoi(argv[2]) : 2; /* 1: the 1K shape only */
  for (int ni = 0; ni < nSizes && ni < 2; ni++) {
    int n = aN[ni];
    float *aVec = malloc((size_t)n * DIM * sizeof(float));
    for (int i = 0; i < n; i++) randVec(aVec + (size_t)i * DIM);
    double aEv[99], aPr[99], aInc[99], aTick[99];
    uint64_t nEv = 0, nCmp = 0;
    int rPr = ni ? (rounds < 3 ? rounds : 3) : rounds; /* promotion at 10K is quadratic: fewer rounds */
    for (int r = 0; r < rounds; r++) {
      cairn_mem *m = fill(n, aVec);
      cairn_mem_consolidate_config c;
      memset(&c, 0, sizeof c);
      c.capacity = (uint32_t)(n / 10), c.nowMs = T0, c.mergeThreshold = -1;
      cairn_mem_consolidate_report rep;
      double t = nowNs();
      OK(cairn_mem_consolidate(m, &c, &rep));
      aEv[r] = nowNs() - t;
      nEv = rep.nEvicted;
      OK(cairn_mem_close(m));
      m = fill(n, aVec);
      cairn_mem_tick_config tc;
      memset(&tc, 0, sizeof tc);
      tc.budgetMs = 1000000, tc.pConsolidate = &c;
      cairn_mem_tick_report tr;
      t = nowNs();
      OK(cairn_mem_tick(m, &tc, &tr));
      aTick[r] = nowNs() - t;
      OK(cairn_mem_close(m));
      if (r < rPr) {
        m = fill(n, aVec);
        c.mergeThreshold = 0.9f;
        t = nowNs();
        OK(cairn_mem_consolidate(m, &c, &rep));
        aPr[r] = nowNs() - t;
        nCmp = rep.nCompared;
        t = nowNs();
        OK(cairn_mem_consolidate(m, &c, &rep));
        aInc[r] = nowNs() - t;
        OK(cairn_mem_close(m));
      }
    }
    printf("%s\"n%d\":{\"evict_us\":%.1f,\"evicted\":%llu,\"promote_us\":%.1f,\"compared\":%llu,\"second_cycle_us\":%.1f,\"tick_us\":%.1f}",
           ni ? "," : "", n, median(aEv, rounds) / 1e3, (unsigned long long)nEv, median(aPr, rPr) / 1e3, (unsigned long long)nCmp,
           median(aInc, rPr) / 1e3, median(aTick, rounds) / 1e3);
    free(aVec);
    fflush(stdout);
  }
  /* the efficiency experiment */
  {
    int n = 1000, nSig = 10;
    float *aVec = malloc((size_t)n * DIM * sizeof(float));
    for (int i = 0; i < n; i++) randVec(aVec + (size_t)i * DIM);
    cairn_mem *m = fill(n, aVec);
    uint64_t aSig[10];
    float q[10][DIM];
    for (int s = 0; s < nSig; s++) {
      aSig[s] = (uint64_t)(1 + s * 97); /* spread over the store */
      float *v = aVec + (size_t)(aSig[s] - 1) * DIM;
      double sq = 0;
      for (int d = 0; d < DIM; d++) q[s][d] = v[d] + (float)((rnd() * 2 - 1) * 0.03), sq += q[s][d] * q[s][d];
      for (int d = 0; d < DIM; d++) q[s][d] = (float)(q[s][d] / sqrt(sq));
      cairn_mem_query qq;
      memset(&qq, 0, sizeof qq);
      qq.aEmbedding = q[s], qq.nEmbedding = DIM, qq.k = 1, qq.mode = CAIRN_MEM_VECTOR, qq.touch = 1;
      cairn_mem_hit h[1];
      uint32_t nh;
      for (int a = 0; a < 15 + s; a++) OK(cairn_mem_search(m, &qq, h, &nh)); /* 15+ accesses */
    }
    cairn_mem_consolidate_config c;
    memset(&c, 0, sizeof c);
    c.capacity = 100, c.nowMs = T0;
    cairn_mem_consolidate_report rep;
    OK(cairn_mem_consolidate(m, &c, &rep));
    cairn_mem_filter hot;
    memset(&hot, 0, sizeof hot);
    hot.tierMask = CAIRN_MEM_HOT_TIERS;
    int aHit[3] = {0, 0, 0};
    double aFull[10 * 20], aHot[10 * 20];
    int nt = 0;
    for (int s = 0; s < nSig; s++) {
      cairn_mem_query qq;
      memset(&qq, 0, sizeof qq);
      qq.aEmbedding = q[s], qq.nEmbedding = DIM, qq.k = 10, qq.mode = CAIRN_MEM_VECTOR, qq.pFilter = &hot;
      cairn_mem_hit h[10];
      uint32_t nh;
      OK(cairn_mem_search(m, &qq, h, &nh));
      for (uint32_t i = 0; i < nh; i++)
        if (h[i].id == aSig[s]) aHit[0] += i < 1, aHit[1] += i < 5, aHit[2] += i < 10;
      for (int rep2 = 0; rep2 < 20; rep2++) {
        qq.pFilter = &hot;
        double t = nowNs();
        OK(cairn_mem_search(m, &qq, h, &nh));
        aHot[nt] = nowNs() - t;
        qq.pFilter = NULL;
        t = nowNs();
        OK(cairn_mem_search(m, &qq, h, &nh));
        aFull[nt++] = nowNs() - t;
      }
    }
    double tHot = median(aHot, nt), tFull = median(aFull, nt);
    printf(",\"experiment\":{\"memories\":%d,\"signal\":%d,\"capacity\":100,\"hot_after\":%llu,\"evicted\":%llu,\"hit1\":%.2f,\"hit5\":%.2f,\"hit10\":%.2f,"
           "\"search_hot_us\":%.2f,\"search_all_us\":%.2f,\"speedup\":%.2f}",
           n, nSig, (unsigned long long)rep.nHot, (unsigned long long)rep.nEvicted, aHit[0] / 10.0, aHit[1] / 10.0, aHit[2] / 10.0,
           tHot / 1e3, tFull / 1e3, tFull / tHot);
    OK(cairn_mem_close(m));
    free(aVec);
  }
  printf("}\n");
  return 0;
}
