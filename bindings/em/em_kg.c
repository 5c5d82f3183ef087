/*
** 2026-12-02
**
** bindings/em/em_kg.c - Emscripten glue for the knowledge graph (cairn/kg.h), used by js/src/kg.js.
** As in em_mem.c, 64-bit quantities cross as doubles; a time to query at crosses as a kind
** (0 now, 1 any, 2 the time in asOf). The graph does not own its file, so the handle here pairs
** the two and closes both.
*/
#include <emscripten.h>
#include <string.h>

#include "cairn/cairn.h"
#include "cairn/kg.h"
#include "em_exports.h"

typedef struct EmKg { cairn_kg *g; cairn_file *f; } EmKg;

static int64_t asOfOf(int kind, double t) { return kind == 0 ? CAIRN_KG_NOW : kind == 1 ? CAIRN_KG_ANY : (int64_t)t; }
static int text(int rc, char *z, char **pz, double *pn) {
  *pz = rc ? NULL : z;
  *pn = rc || !z ? 0 : (double)strlen(z);
  return rc;
}

/* Open a graph on JS file f (closed with the graph, also on failure) or in memory (f NULL). */
EMSCRIPTEN_KEEPALIVE int cairn_em_kg_open(cairn_file *f, int readOnly, EmKg **pp) {
  *pp = NULL;
  EmKg *h = cairn_malloc(sizeof *h);
  if (!h) {
    if (f) cairn_file_close(f);
    return cairn_seterr(CAIRN_NOMEM, "kg_open: handle");
  }
  h->f = f;
  int rc = cairn_kg_open(f, readOnly ? CAIRN_KG_READONLY : 0, &h->g);
  if (rc) {
    if (f) cairn_file_close(f);
    cairn_free(h);
    return rc;
  }
  *pp = h;
  return CAIRN_OK;
}
/* Open the graph kept in memory store m's own file (cairn_kg_open_mem); closed before m. */
EMSCRIPTEN_KEEPALIVE int cairn_em_kg_open_mem(cairn_mem *m, int readOnly, EmKg **pp) {
  *pp = NULL;
  EmKg *h = cairn_malloc(sizeof *h);
  if (!h) return cairn_seterr(CAIRN_NOMEM, "kg_open_mem: handle");
  h->f = NULL;
  int rc = cairn_kg_open_mem(m, NULL, readOnly ? CAIRN_KG_READONLY : 0, &h->g);
  if (rc) {
    cairn_free(h);
    return rc;
  }
  *pp = h;
  return CAIRN_OK;
}
EMSCRIPTEN_KEEPALIVE int cairn_em_kg_close(EmKg *h) {
  if (!h) return CAIRN_OK;
  int rc = cairn_kg_close(h->g);
  if (h->f) cairn_file_close(h->f);
  cairn_free(h);
  return rc;
}
EMSCRIPTEN_KEEPALIVE int cairn_em_kg_commit(EmKg *h) { return cairn_kg_commit(h->g); }
EMSCRIPTEN_KEEPALIVE int cairn_em_kg_functional(EmKg *h, const char *zPred, int resolve) {
  return cairn_kg_functional(h->g, zPred, resolve ? CAIRN_KG_RESOLVE : 0);
}
EMSCRIPTEN_KEEPALIVE int cairn_em_kg_add_facts(EmKg *h, const char *zJson, double *pn) {
  uint32_t n = 0;
  int rc = cairn_kg_add_facts_json(h->g, zJson, &n);
  *pn = n;
  return rc;
}
EMSCRIPTEN_KEEPALIVE int cairn_em_kg_extract(EmKg *h, double memId, const char *zText, const char *zSpeaker, double refMs) {
  return cairn_kg_extract(h->g, (uint64_t)memId, zText, zSpeaker, (int64_t)refMs, NULL, NULL);
}
EMSCRIPTEN_KEEPALIVE int cairn_em_kg_entities(EmKg *h, char **pz, double *pn) {
  char *z = NULL;
  return text(cairn_kg_entities_json(h->g, &z), z, pz, pn);
}
EMSCRIPTEN_KEEPALIVE int cairn_em_kg_facts(EmKg *h, int kind, double asOf, char **pz, double *pn) {
  char *z = NULL;
  return text(cairn_kg_facts_json(h->g, asOfOf(kind, asOf), &z), z, pz, pn);
}
EMSCRIPTEN_KEEPALIVE int cairn_em_kg_graph(EmKg *h, const char *zName, uint32_t depth, int kind, double asOf, char **pz, double *pn) {
  char *z = NULL;
  return text(cairn_kg_graph_json(h->g, zName, depth, asOfOf(kind, asOf), &z), z, pz, pn);
}
