/*
** 2026-11-29
**
** bindings/em/em_services.c - host services for the npm package, and a heap probe for its tests.
**
** The core reads time only through the
** installed host (cairn_host.xClock), and without one every timestamp is 0 (memories created
** "now" would all be dated 1970, chunk-store publications carry no time). JS calls
** cairn_em_host_install once after the module loads (js/src/api.js init). Emscripten's libc
** implements clock_gettime with Date.now (realtime) and performance.now (monotonic).
*/
#include <emscripten.h>
#include <malloc.h>
#include <time.h>

#include "cairn/cairn.h"
#include "em_int.h"
#include "em_exports.h"

static int64_t emClock(void *pCtx, int monotonic) {
  (void)pCtx;
  struct timespec ts;
  if (clock_gettime(monotonic ? CLOCK_MONOTONIC : CLOCK_REALTIME, &ts)) return 0;
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

EMSCRIPTEN_KEEPALIVE int cairn_em_host_install(void) {
  cairn_host h = *cairn_host_get();
  h.iVersion = 1;
  h.xClock = emClock;
  h.xOpen = cairnEmOpen;
  return cairn_host_set(&h);
}

/* Bytes currently allocated from the wasm heap (dlmalloc's mallinfo): the JS tests check that
** a run of operations leaves it where it was, i.e. that every allocation was freed. */
EMSCRIPTEN_KEEPALIVE double cairn_em_heap_used(void) {
  struct mallinfo mi = mallinfo();
  return (double)mi.uordblks;
}
