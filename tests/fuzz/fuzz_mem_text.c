/* 2026-11-29 - fuzz target: arbitrary bytes through the memory module's text paths: the
** tokenizer, the hashing embedder, the JSON reader, JSON filters, metadata on add, and BM25
** and hybrid search with the bytes as the query. Nothing may crash or hang; the embedding is
** either zero or unit length. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem_int.h"

static void tokCheck(void *p, const char *z, size_t n) {
  (void)z;
  if (n == 0 || n > 68) __builtin_trap();
  *(size_t *)p += n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t nTok = 0;
  cairn_mem_tokenize((const char *)data, size, tokCheck, &nTok);
  float v[64];
  if (cairn_mem_embed((const char *)data, size, v, 64) != CAIRN_OK) __builtin_trap();
  double sq = 0;
  for (int i = 0; i < 64; i++) sq += (double)v[i] * v[i];
  if (sq != 0 && fabs(sq - 1) > 1e-4) __builtin_trap();
  Json j;
  if (cairnJsonParse(&j, (const char *)data, size) == CAIRN_OK) cairnJsonFree(&j);
  char *z = malloc(size + 1);
  memcpy(z, data, size);
  z[size] = 0;
  cairn_mem_filter f;
  char *arena;
  int haveFilter = cairn_mem_filter_parse(z, &f, &arena) == CAIRN_OK;
  cairn_mem *m;
  cairn_mem_config cfg = {64, 0, 0, 0, 0, 0, 0, 0};
  if (cairn_mem_open(NULL, &cfg, &m) == CAIRN_OK) {
    cairn_mem_record r;
    memset(&r, 0, sizeof r);
    r.zText = "Caroline painted a lake at sunrise";
    r.zSession = "s1";
    r.zMeta = "{\"k\": 1, \"topic\": \"art\"}";
    cairn_mem_add(m, &r, NULL);
    r.zText = z[0] ? z : "x";
    r.zMeta = z;
    cairn_mem_add(m, &r, NULL); /* may fail (bad metadata): must not change the store */
    r.zMeta = NULL;
    cairn_mem_add(m, &r, NULL);
    cairn_mem_query q;
    memset(&q, 0, sizeof q);
    q.zText = z;
    q.k = 3;
    q.pFilter = haveFilter ? &f : NULL;
    cairn_mem_hit h[3];
    uint32_t n;
    for (int mode = 0; mode <= 2; mode++) {
      q.mode = mode;
      cairn_mem_search(m, &q, h, &n);
    }
    uint64_t id;
    cairn_mem_add_json(m, z, &id);  /* the bytes as a memory object ... */
    char *zRes = NULL;
    if (cairn_mem_search_json(m, "Caroline lake", z, &zRes) == CAIRN_OK) { /* ... and as search options */
      Json jr;
      if (cairnJsonParse(&jr, zRes, strlen(zRes)) != CAIRN_OK) __builtin_trap(); /* results are valid JSON */
      cairnJsonFree(&jr);
      cairn_free(zRes);
    }
    cairn_mem_close(m);
  }
  if (haveFilter) cairn_free(arena);
  free(z);
  return 0;
}
