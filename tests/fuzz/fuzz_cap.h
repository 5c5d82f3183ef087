/*
** 2026-11-30
**
** tests/fuzz/fuzz_cap.h - the allocation cap of the HDF5 fuzz targets (fuzz_h5_read.c,
** fuzz_h5w_edit.c): installed as the host's allocator on the first input, it fails every
** allocation above 64 MiB, as an embedder's cap would, so a corrupted size can only produce an
** error, never a huge allocation.
*/
#ifndef CAIRN_FUZZ_CAP_H
#define CAIRN_FUZZ_CAP_H

#include <stdlib.h>

#include "cairn/cairn.h"

static void *capMalloc(void *ctx, size_t n) { return n > (64u << 20) ? NULL : malloc(n); }
static void *capRealloc(void *ctx, void *p, size_t n) { return n > (64u << 20) ? NULL : realloc(p, n); }
static void capFree(void *ctx, void *p) { free(p); }

/* Install the cap (once per process). */
static void fuzzCapAllocations(void) {
  static int init;
  if (!init) {
    cairn_host hst = *cairn_host_get();
    hst.xMalloc = capMalloc;
    hst.xRealloc = capRealloc;
    hst.xFree = capFree;
    cairn_host_set(&hst);
    init = 1;
  }
}

#endif
