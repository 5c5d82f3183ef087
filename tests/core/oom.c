/*
** 2026-11-30
**
** tests/core/oom.c - the failing allocator of oom.h, shared by the out-of-memory sweeps of the
** common, h5, h5w, cas and mem suites.
*/
#include <stdlib.h>

#include "oom.h"

static long gMode, gFailAt = -1, gN, gLive;

void oomArm(int mode, long n) {
  __atomic_store_n(&gMode, mode, __ATOMIC_SEQ_CST);
  __atomic_store_n(&gFailAt, n, __ATOMIC_SEQ_CST);
  __atomic_store_n(&gN, 0, __ATOMIC_SEQ_CST);
  __atomic_store_n(&gLive, 0, __ATOMIC_SEQ_CST);
}
void oomDisarm(void) { __atomic_store_n(&gFailAt, -1, __ATOMIC_SEQ_CST); }
int oomReached(void) {
  long n = __atomic_load_n(&gFailAt, __ATOMIC_SEQ_CST);
  return n >= 0 && __atomic_load_n(&gN, __ATOMIC_SEQ_CST) > n;
}
long oomLive(void) { return __atomic_load_n(&gLive, __ATOMIC_SEQ_CST); }

/* Count one allocation; nonzero: it must fail. */
static int oomFails(void) {
  long i = __atomic_fetch_add(&gN, 1, __ATOMIC_SEQ_CST), n = __atomic_load_n(&gFailAt, __ATOMIC_SEQ_CST);
  return n >= 0 && (gMode == OOM_FOREVER ? i >= n : i == n);
}
static void *oomMalloc(void *ctx, size_t n) {
  (void)ctx;
  if (oomFails()) return NULL;
  void *p = malloc(n);
  if (p) __atomic_add_fetch(&gLive, 1, __ATOMIC_SEQ_CST);
  return p;
}
static void *oomRealloc(void *ctx, void *p, size_t n) {
  (void)ctx;
  if (oomFails()) return NULL;
  void *q = realloc(p, n);
  if (q && !p) __atomic_add_fetch(&gLive, 1, __ATOMIC_SEQ_CST);
  return q;
}
static void oomFree(void *ctx, void *p) {
  (void)ctx;
  if (p) __atomic_sub_fetch(&gLive, 1, __ATOMIC_SEQ_CST);
  free(p);
}
void oomHooks(cairn_host *h) {
  h->xMalloc = oomMalloc;
  h->xRealloc = oomRealloc;
  h->xFree = oomFree;
}

void oomInstallOnce(const cairn_host *pBase, long n) {
  cairn_host h = *pBase;
  oomHooks(&h);
  h.xParallelFor = NULL;
  cairn_host_set(&h);
  oomArm(OOM_ONCE, n);
}
