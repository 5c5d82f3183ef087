/*
** 2026-12-02
**
** bench/kg/bench_open.c - how long opening a large graph takes: N entities, 10 N facts between
** random pairs (each with one source memory), one mention per entity, written to a file with one
** commit; then the median of 5 opens (read-only), and of open + a first query that needs the
** facts (the neighbours of one entity), and open + a name lookup (entities only).
** Usage: bench_open DIR [N]   (default N = 100000: 1M facts)
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cairn/cairn.h"
#include "cairn/kg.h"
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

int main(int argc, char **argv) {
  if (argc < 2) return fprintf(stderr, "usage: bench_open DIR [N]\n"), 2;
  uint32_t n = argc > 2 ? (uint32_t)atoi(argv[2]) : 100000;
  CHECK(cairn_posix_install(0));
  char zPath[1024];
  snprintf(zPath, sizeof zPath, "%s/open_%u.h5", argv[1], n);
  cairn_file *f;
  cairn_kg *g;
  remove(zPath);
  CHECK(cairn_open(zPath, CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE, &f));
  CHECK(cairn_kg_open(f, CAIRN_KG_NOSYNC, &g));
  char zs[32], zo[32];
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
    uint64_t src = i + 1;
    k.zSubject = zs, k.zPredicate = i & 1 ? "knows" : "met", k.zObject = zo, k.aSource = &src, k.nSource = 1;
    k.validAt = k.invalidAt = k.expiredAt = CAIRN_KG_NONE, k.createdAt = 1000;
    CHECK(cairn_kg_add_fact(g, &k, NULL));
  }
  CHECK(cairn_kg_close(g));
  uint64_t size = 0;
  cairn_file_size(f, &size);
  cairn_file_close(f);
  double aOpen[5], aNb[5], aFind[5];
  for (int r = 0; r < 5; r++) {
    CHECK(cairn_open(zPath, CAIRN_OPEN_READONLY, &f));
    double t0 = nowMs();
    CHECK(cairn_kg_open(f, CAIRN_KG_READONLY, &g));
    double t1 = nowMs();
    uint32_t id, nE;
    CHECK(cairn_kg_find(g, "entity 7", &id));
    double t2 = nowMs();
    cairn_kg_edge aE[64];
    CHECK(cairn_kg_neighbors(g, id, CAIRN_KG_NOW, aE, 64, &nE));
    double t3 = nowMs();
    aOpen[r] = t1 - t0, aFind[r] = t2 - t0, aNb[r] = t3 - t0;
    cairn_kg_close(g);
    cairn_file_close(f);
  }
  qsort(aOpen, 5, sizeof(double), cmpD), qsort(aNb, 5, sizeof(double), cmpD), qsort(aFind, 5, sizeof(double), cmpD);
  printf("graph of %u entities, %u facts, %.1f MB\n", n, 10 * n, size / 1e6);
  printf("open_ms %.2f\nopen_find_ms %.2f\nopen_neighbors_ms %.2f\n", aOpen[2], aFind[2], aNb[2]);
  remove(zPath);
  return 0;
}
