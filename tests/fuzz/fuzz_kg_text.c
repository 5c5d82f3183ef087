/* 2026-12-02 - fuzz target: arbitrary bytes through the knowledge graph's text paths: the time
** expression parser (against three reference times, intervals must be non-empty and in range),
** the extractor into a graph (with and without a speaker), its JSON form, resolution of the bytes
** as a name, the fused search with
** the bytes as the query, and the facts JSON importer. Nothing may crash or hang. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cairn/cairn.h"
#include "cairn/kg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *z = malloc(size + 1);
  memcpy(z, data, size);
  z[size] = 0;
  static const int64_t aRef[3] = {1683550800000LL, 0, CAIRN_KG_TIME_MIN + 86400000LL * 400};
  cairn_kg_time aT[16];
  for (int r = 0; r < 3; r++) {
    uint32_t n = 0;
    if (cairn_kg_time_parse(z, size, aRef[r], aT, 16, &n) != CAIRN_OK || n > 16) __builtin_trap();
    for (uint32_t i = 0; i < n; i++)
      if (aT[i].hi <= aT[i].lo || aT[i].lo < CAIRN_KG_TIME_MIN || aT[i].hi > CAIRN_KG_TIME_MAX || aT[i].iStart + aT[i].nLen > size)
        __builtin_trap();
  }
  char *zJ = NULL;
  if (cairn_kg_extract_json(z, "Caroline", aRef[0], &zJ) == CAIRN_OK) cairn_free(zJ);
  cairn_kg *g;
  if (cairn_kg_open(NULL, 0, &g) == CAIRN_OK) {
    cairn_kg_extract(g, 1, "My sister Ines moved to Lisbon last May.", "Caroline", aRef[0], NULL, NULL);
    cairn_kg_extract(g, 2, z, "Caroline", aRef[0], NULL, NULL);
    cairn_kg_extract(g, 3, z, NULL, aRef[2], NULL, NULL);
    uint32_t nBefore = cairn_kg_fact_count(g), n = 0;
    if (cairn_kg_add_facts_json(g, z, &n) != CAIRN_OK && cairn_kg_fact_count(g) != nBefore) __builtin_trap(); /* all or none */
    cairn_mem *m;
    cairn_mem_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.textOnly = 1;
    if (cairn_mem_open(NULL, &cfg, &m) == CAIRN_OK) {
      cairn_mem_record r;
      memset(&r, 0, sizeof r);
      r.zText = "Caroline: My sister Ines moved to Lisbon last May.", r.eventMs = aRef[0], r.createdMs = aRef[0];
      cairn_mem_add(m, &r, NULL);
      r.zText = z[0] ? z : "x";
      cairn_mem_add(m, &r, NULL);
      cairn_mem_hit aH[4];
      uint32_t nH;
      cairn_kg_search_opts o;
      memset(&o, 0, sizeof o);
      o.k = 4, o.mode = CAIRN_MEM_BM25;
      cairn_kg_search(g, m, z, &o, aH, &nH);
      cairn_mem_close(m);
    }
    cairn_kg_match aM[4];
    uint32_t nM;
    cairn_kg_resolve(g, z, NULL, 0, 0.0f, aM, 4, &nM); /* debug builds check the bit-parallel distance */
    char *zE;
    if (cairn_kg_entities_json(g, &zE) == CAIRN_OK) cairn_free(zE);
    cairn_kg_close(g);
  }
  free(z);
  return 0;
}
