/* 2026-11-29 - fuzz target: arbitrary bytes as a memory-store log (core/mem/store.c replay).
** Opening must either fail with an error or give a store whose every record reads back and
** which answers a hybrid search; then a commit of one more add and a reopen must keep all. */
#include <stdint.h>
#include <string.h>

#include "cairn/cairn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cairn_file *f;
  if (cairn_memfile_open(data, size, &f)) return 0;
  cairn_mem *m;
  cairn_mem_config cfg = {0, 0, 0, 1, 0};
  if (cairn_mem_open_file(f, &cfg, &m) != CAIRN_OK) return 0;
  cairn_mem_stats st;
  cairn_mem_stats_get(m, &st);
  for (uint64_t id = 1; id <= st.nMemory; id++) {
    cairn_mem_record r;
    if (cairn_mem_get(m, id, &r) != CAIRN_OK || !r.zText) __builtin_trap();
  }
  cairn_mem_query q;
  memset(&q, 0, sizeof q);
  q.zText = "what did Caroline paint";
  q.k = 5;
  cairn_mem_hit h[5];
  uint32_t n;
  if (cairn_mem_search(m, &q, h, &n) != CAIRN_OK) __builtin_trap();
  cairn_mem_record r;
  memset(&r, 0, sizeof r);
  r.zText = "one more memory";
  if (cairn_mem_add(m, &r, NULL) != CAIRN_OK || cairn_mem_commit(m) != CAIRN_OK) __builtin_trap();
  const uint8_t *p;
  size_t np;
  cairn_memfile_data(f, &p, &np);
  cairn_file *g;
  if (cairn_memfile_open(p, np, &g) == CAIRN_OK) {
    cairn_mem *m2;
    if (cairn_mem_open_file(g, &cfg, &m2) != CAIRN_OK) __builtin_trap();
    cairn_mem_stats st2;
    cairn_mem_stats_get(m2, &st2);
    if (st2.nMemory != st.nMemory + 1) __builtin_trap();
    cairn_mem_close(m2);
  }
  cairn_mem_close(m);
  return 0;
}
