/*
** 2026-12-02
**
** bench/kg/bench_kg.c - speed of the knowledge graph (core/kg) on the seed system's shapes and
** against SQLite's recursive CTE (bench/kg/sqlite_peer.py on the same edges):
**   BFS over 1,000 entities (5,000 random edges, whole graph), spreading activation over 100
**   entities (300 edges, 5 steps), Levenshtein/trigram resolution of a name against 100 entities,
**   alias lookup (1,000 aliases), a temporal range query over 10,000 intervals; then BFS to depth
**   3 and a shortest path between random pairs at 1K, 100K and 1M edges (avg degree 10), the
**   edges written to DIR/edges_N.tsv for the peer. Median of many runs, one thread.
** Usage: bench_kg [DIR]   (bench/kg/run.sh builds and runs it and the peer)
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cairn/cairn.h"
#include "cairn/kg.h"

static double nowNs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}
static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (uint32_t)(rng % n);
}
static int cmpD(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *a, int n) {
  qsort(a, (size_t)n, sizeof *a, cmpD);
  return a[n / 2];
}
#define CHECK(x)                                                                 \
  do {                                                                           \
    int rc_ = (x);                                                               \
    if (rc_) {                                                                   \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cairn_errmsg()); \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

/* A graph of nEnt entities e0..e{n-1} and nEdge random edges; ids are 1..nEnt in order. */
static cairn_kg *randomGraph(uint32_t nEnt, uint32_t nEdge, FILE *out) {
  cairn_kg *g;
  CHECK(cairn_kg_open(NULL, 0, &g));
  char z[32];
  for (uint32_t i = 0; i < nEnt; i++) {
    snprintf(z, sizeof z, "e%u", i);
    uint32_t id;
    CHECK(cairn_kg_entity_add(g, z, NULL, &id));
  }
  cairn_kg_fact f;
  memset(&f, 0, sizeof f);
  f.zPredicate = "r", f.validAt = f.invalidAt = f.expiredAt = CAIRN_KG_NONE, f.createdAt = 1;
  for (uint32_t i = 0; i < nEdge; i++) {
    f.subject = 1 + rnd(nEnt), f.object = 1 + rnd(nEnt);
    CHECK(cairn_kg_add_fact(g, &f, NULL));
    if (out) fprintf(out, "%u\t%u\n", f.subject, f.object);
  }
  return g;
}

int main(int argc, char **argv) {
  const char *zDir = argc > 1 ? argv[1] : "/tmp/cairn-bench-kg";
  static double t[20001];
  uint32_t *aOut = malloc(sizeof(uint32_t) * 1100000), n = 0;
  float *aS = malloc(sizeof(float) * 1000);

  /* 1. BFS, 1,000 entities */
  cairn_kg *g = randomGraph(1000, 5000, NULL);
  for (int i = 0; i < 2000; i++) {
    uint32_t s = 1 + rnd(1000);
    double t0 = nowNs();
    CHECK(cairn_kg_bfs(g, s, 1000, CAIRN_KG_NOW, aOut, NULL, 1000, &n));
    t[i] = nowNs() - t0;
  }
  printf("bfs_1000_entities          %10.2f us  (%u reached, 5000 edges)\n", median(t, 2000) / 1e3, n);
  cairn_kg_close(g);

  /* 2. spreading activation, 100 entities, 5 steps */
  g = randomGraph(100, 300, NULL);
  for (int i = 0; i < 5000; i++) {
    uint32_t s = 1 + rnd(100);
    double t0 = nowNs();
    CHECK(cairn_kg_activate(g, &s, 1, 5, 0.5f, CAIRN_KG_NOW, aOut, aS, 100, &n));
    t[i] = nowNs() - t0;
  }
  printf("activation_100_entities_5  %10.2f us  (%u activated)\n", median(t, 5000) / 1e3, n);
  cairn_kg_close(g);

  /* 3. resolution of a misspelt name against 100 entities */
  CHECK(cairn_kg_open(NULL, 0, &g));
  static const char *const azFirst[] = {"Maya", "Ines", "Caroline", "Melanie", "Jon", "Gina", "Nate", "Joanna", "John", "Maria"};
  static const char *const azLast[] = {"Silva", "Hughes", "Garcia", "Okafor", "Tanaka", "Novak", "Larsen", "Moreau", "Rossi", "Kowalski"};
  char z[64];
  for (int i = 0; i < 100; i++) {
    snprintf(z, sizeof z, "%s %s", azFirst[i % 10], azLast[i / 10]);
    uint32_t id;
    CHECK(cairn_kg_entity_add(g, z, "person", &id));
  }
  cairn_kg_match aM[5];
  for (int i = 0; i < 5000; i++) {
    snprintf(z, sizeof z, "%s %sx", azFirst[rnd(10)], azLast[rnd(10)]);
    double t0 = nowNs();
    CHECK(cairn_kg_resolve(g, z, NULL, 0, 0.6f, aM, 5, &n));
    t[i] = nowNs() - t0;
  }
  printf("resolve_100_entities       %10.2f us  (best %.2f)\n", median(t, 5000) / 1e3, n ? aM[0].score : 0);
  cairn_kg_close(g);

  /* 4. alias lookup among 1,000 aliases */
  CHECK(cairn_kg_open(NULL, 0, &g));
  for (int i = 0; i < 1000; i++) {
    uint32_t id;
    snprintf(z, sizeof z, "entity %d", i);
    CHECK(cairn_kg_entity_add(g, z, NULL, &id));
    snprintf(z, sizeof z, "nick %d", i);
    CHECK(cairn_kg_alias(g, id, z));
  }
  for (int i = 0; i < 20000; i++) {
    snprintf(z, sizeof z, "Nick %u", rnd(1000));
    uint32_t id;
    double t0 = nowNs();
    CHECK(cairn_kg_find(g, z, &id));
    t[i] = nowNs() - t0;
  }
  printf("alias_lookup_1000          %10.3f us\n", median(t, 20000) / 1e3);
  cairn_kg_close(g);

  /* 5. temporal range over 10,000 intervals */
  CHECK(cairn_kg_open(NULL, 0, &g));
  for (int i = 0; i < 10000; i++) {
    int64_t lo = 1600000000000LL + (int64_t)rnd(1000000) * 60000;
    CHECK(cairn_kg_time_add(g, (uint64_t)i + 1, lo, lo + 86400000));
  }
  uint64_t aMem[64];
  CHECK(cairn_kg_time_range(g, 0, 1, aMem, 64, &n)); /* builds the index once */
  for (int i = 0; i < 20000; i++) {
    int64_t lo = 1600000000000LL + (int64_t)rnd(1000000) * 60000;
    double t0 = nowNs();
    CHECK(cairn_kg_time_range(g, lo, lo + 3600000, aMem, 64, &n));
    t[i] = nowNs() - t0;
  }
  printf("time_range_10000           %10.1f ns  (%u hits)\n", median(t, 20000), n);
  cairn_kg_close(g);

  /* 6. BFS depth 3 and shortest path at 1K, 100K, 1M edges (the same edges go to the peer) */
  static const uint32_t aEdges[3] = {1000, 100000, 1000000};
  for (int k = 0; k < 3; k++) {
    uint32_t nEdge = aEdges[k], nEnt = nEdge / 5;
    char zPath[512];
    snprintf(zPath, sizeof zPath, "%s/edges_%u.tsv", zDir, nEdge);
    FILE *out = fopen(zPath, "w");
    if (!out) {
      perror(zPath);
      return 1;
    }
    rng = 12345 + k;
    g = randomGraph(nEnt, nEdge, out);
    fclose(out);
    uint32_t reached = 0;
    CHECK(cairn_kg_bfs(g, 1, 1, CAIRN_KG_NOW, aOut, NULL, 0, &n)); /* builds the adjacency */
    int nRun = 200;
    for (int i = 0; i < nRun; i++) {
      uint32_t s = 1 + (uint32_t)(i * 7919u % nEnt);
      double t0 = nowNs();
      CHECK(cairn_kg_bfs(g, s, 3, CAIRN_KG_NOW, aOut, NULL, 1100000, &n));
      t[i] = nowNs() - t0;
      reached += n;
    }
    double bfs = median(t, nRun);
    for (int i = 0; i < nRun; i++) {
      uint32_t a = 1 + (uint32_t)(i * 7919u % nEnt), b = 1 + (uint32_t)(i * 104729u % nEnt);
      double t0 = nowNs();
      int rc = cairn_kg_path(g, a, b, CAIRN_KG_NOW, aOut, 1100000, &n);
      t[i] = nowNs() - t0;
      if (rc && rc != CAIRN_NOTFOUND) CHECK(rc);
    }
    char zName[64];
    snprintf(zName, sizeof zName, "bfs3_%u_edges", nEdge);
    printf("%-26s %10.2f us  (mean %u reached)\n", zName, bfs / 1e3, reached / (uint32_t)nRun);
    snprintf(zName, sizeof zName, "path_%u_edges", nEdge);
    printf("%-26s %10.2f us\n", zName, median(t, nRun) / 1e3);
    cairn_kg_close(g);
  }
  free(aOut), free(aS);
  return 0;
}
