/*
** 2026-12-02
**
** bench/kg/bench_open.c - how long opening a large graph takes: N entities, 10 N facts between
** random pairs (each with one source memory), one mention per entity, in a memory store's own
** file (N memories, the graph beside them: cairn_kg_open_mem) and in a graph file of its own
** (cairn_kg_open); then the median of 5 read-only opens: the store alone, store + graph open (the
** graph is read lazily: at its first call), + a name lookup, + the neighbours of one entity.
** Usage: bench_open DIR [N]   (default N = 100000: 1M facts)
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cairn/cairn.h"
#include "cairn/kg.h"
#include "cairn/mem.h"
#include "cairn/platform.h"

static double nowMs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
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
#define CHECK(x)                                                        \
  do {                                                                  \
    if ((x) != CAIRN_OK) {                                              \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cairn_errmsg()); \
      exit(1);                                                          \
    }                                                                   \
  } while (0)

static void fill(cairn_kg *g, uint32_t n) {
  char zs[32], zo[32];
  rng = 88172645463325252ull;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t id;
    snprintf(zs, sizeof zs, "entity %u", i);
    CHECK(cairn_kg_entity_add(g, zs, "person", &id));
    CHECK(cairn_kg_mention(g, id, i + 1));
  }
  for (uint32_t i = 0; i < 10 * n; i++) {
    snprintf(zs, sizeof zs, "entity %u", rnd(n)), snprintf(zo, sizeof zo, "entity %u", rnd(n));
    cairn_kg_fact k;
    memset(&k, 0, sizeof k);
    uint64_t src = i % n + 1;
    k.zSubject = zs, k.zPredicate = i & 1 ? "knows" : "met", k.zObject = zo, k.aSource = &src, k.nSource = 1;
    k.validAt = k.invalidAt = k.expiredAt = CAIRN_KG_NONE, k.createdAt = 1000;
    CHECK(cairn_kg_add_fact(g, &k, NULL));
  }
}
static double med5(double *a) { return qsort(a, 5, sizeof(double), cmpD), a[2]; }
/* the graph's first calls after t0: a name lookup, then the neighbours */
static void firstCalls(cairn_kg *g, double t0, double *pFind, double *pNb) {
  uint32_t id, nE;
  CHECK(cairn_kg_find(g, "entity 7", &id));
  *pFind = nowMs() - t0;
  cairn_kg_edge aE[64];
  CHECK(cairn_kg_neighbors(g, id, CAIRN_KG_NOW, aE, 64, &nE));
  *pNb = nowMs() - t0;
}

static void benchStore(const char *zDir, uint32_t n) {
  char zPath[1024];
  snprintf(zPath, sizeof zPath, "%s/open_%u.cmem", zDir, n);
  remove(zPath);
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.noSync = 1, cfg.textOnly = 1;
  cairn_mem *m;
  cairn_kg *g;
  CHECK(cairn_mem_open(zPath, &cfg, &m));
  char z[64];
  for (uint32_t i = 0; i < n; i++) {
    cairn_mem_record r;
    memset(&r, 0, sizeof r);
    snprintf(z, sizeof z, "a memory about entity %u", i);
    r.zText = z;
    uint64_t id;
    CHECK(cairn_mem_add(m, &r, &id));
  }
  CHECK(cairn_mem_commit(m));
  CHECK(cairn_kg_open_mem(m, NULL, 0, &g));
  fill(g, n);
  CHECK(cairn_kg_close(g)); /* a checkpoint of the store */
  CHECK(cairn_mem_close(m));
  cfg.readOnly = 1;
  double aMem[5], aOpen[5], aFind[5], aNb[5];
  for (int r = 0; r < 5; r++) {
    double t0 = nowMs();
    CHECK(cairn_mem_open(zPath, &cfg, &m));
    aMem[r] = nowMs() - t0;
    CHECK(cairn_kg_open_mem(m, NULL, CAIRN_KG_READONLY, &g));
    aOpen[r] = nowMs() - t0;
    firstCalls(g, t0, &aFind[r], &aNb[r]);
    cairn_kg_close(g);
    cairn_mem_close(m);
  }
  printf("store of %u memories, graph of %u entities, %u facts in its file\n", n, n, 10 * n);
  printf("store_open_ms %.2f\nstore_graph_open_ms %.2f\nstore_open_find_ms %.2f\nstore_open_neighbors_ms %.2f\n", med5(aMem),
         med5(aOpen), med5(aFind), med5(aNb));
  remove(zPath);
}

int main(int argc, char **argv) {
  if (argc < 2) return fprintf(stderr, "usage: bench_open DIR [N]\n"), 2;
  uint32_t n = argc > 2 ? (uint32_t)atoi(argv[2]) : 100000;
  CHECK(cairn_posix_install(0));
  benchStore(argv[1], n);
  char zPath[1024];
  snprintf(zPath, sizeof zPath, "%s/open_%u.h5", argv[1], n);
  cairn_file *f;
  cairn_kg *g;
  remove(zPath);
  CHECK(cairn_open(zPath, CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE, &f));
  CHECK(cairn_kg_open(f, CAIRN_KG_NOSYNC, &g));
  fill(g, n);
  CHECK(cairn_kg_close(g));
  uint64_t size = 0;
  cairn_file_size(f, &size);
  cairn_file_close(f);
  double aOpen[5], aNb[5], aFind[5];
  for (int r = 0; r < 5; r++) {
    CHECK(cairn_open(zPath, CAIRN_OPEN_READONLY, &f));
    double t0 = nowMs();
    CHECK(cairn_kg_open(f, CAIRN_KG_READONLY, &g));
    aOpen[r] = nowMs() - t0;
    firstCalls(g, t0, &aFind[r], &aNb[r]);
    cairn_kg_close(g);
    cairn_file_close(f);
  }
  printf("graph file of %u entities, %u facts, %.1f MB\n", n, 10 * n, size / 1e6);
  printf("open_ms %.2f\nopen_find_ms %.2f\nopen_neighbors_ms %.2f\n", med5(aOpen), med5(aFind), med5(aNb));
  remove(zPath);
  return 0;
}
