/*
** 2026-12-02
**
** core/kg/kg_json.c - the graph's JSON entry points for bindings and the CLI: facts in (all or
** nothing), entities, facts at a time and the neighbourhood of an entity out.
*/
#include <string.h>

#include "cairn/json.h"
#include "kg/kg_int.h"

int cairnKgFactAdd(cairn_kg *g, const cairn_kg_fact *in, uint32_t *pId);

static int jTime(const cairn_json *j, uint32_t o, const char *zKey, int64_t *p) {
  uint32_t v = cairn_json_get(j, o, zKey);
  *p = CAIRN_KG_NONE;
  if (!v || cairn_json_type(j, v) == CAIRN_JSON_NULL) return CAIRN_OK;
  CAIRN_RETURN_ERROR_IF(cairn_json_type(j, v) != CAIRN_JSON_NUMBER, CAIRN_TYPE, "graph JSON: \"%s\" must be ms since 1970", zKey);
  double d = cairn_json_num(j, v);
  CAIRN_RETURN_ERROR_IF(!(d >= (double)CAIRN_KG_TIME_MIN && d <= (double)CAIRN_KG_TIME_MAX), CAIRN_RANGE,
                        "graph JSON: \"%s\" outside years 1..9999", zKey);
  *p = (int64_t)d;
  return CAIRN_OK;
}
static const char *jStr(const cairn_json *j, uint32_t o, const char *zKey) {
  uint32_t v = cairn_json_get(j, o, zKey);
  return v && cairn_json_type(j, v) == CAIRN_JSON_STRING ? cairn_json_str(j, v, NULL) : NULL;
}

int cairn_kg_add_facts_json(cairn_kg *g, const char *zJson, uint32_t *pn) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g || !zJson, CAIRN_MISUSE, "cairn_kg_add_facts_json: NULL argument");
  cairn_json *j = NULL;
  CAIRN_TRY(cairn_json_parse(zJson, strlen(zJson), &j));
  int rc = cairn_json_type(j, 0) == CAIRN_JSON_ARRAY ? CAIRN_OK : cairnErr(CAIRN_TYPE, "graph JSON: expected a list of facts");
  uint32_t n = 0;
  uint64_t aSrc[256];
  if (!rc) rc = cairnKgBegin(g);
  if (!rc) {
    for (uint32_t o = cairn_json_child(j, 0); o && !rc; o = cairn_json_next(j, o), n++) {
      cairn_kg_fact f;
      memset(&f, 0, sizeof f);
      if (cairn_json_type(j, o) != CAIRN_JSON_OBJECT) {
        rc = cairnErr(CAIRN_TYPE, "graph JSON: fact %u is not an object", n);
        break;
      }
      for (uint32_t k = cairn_json_child(j, o); k && !rc; k = cairn_json_next(j, k)) {
        size_t nk;
        const char *zk = cairn_json_key(j, k, &nk);
        static const char *const azOk[] = {"subject", "predicate", "object", "literal", "validAt", "invalidAt", "createdAt",
                                           "expiredAt", "sources", "subjectType", "objectType", NULL};
        int ok = 0;
        for (int q = 0; azOk[q]; q++) ok |= strlen(azOk[q]) == nk && !memcmp(azOk[q], zk, nk);
        if (!ok) rc = cairnErr(CAIRN_MISUSE, "graph JSON: fact %u has unknown field \"%.*s\"", n, (int)nk, zk);
      }
      f.zSubject = jStr(j, o, "subject"), f.zPredicate = jStr(j, o, "predicate");
      f.zObject = jStr(j, o, "object"), f.zLiteral = jStr(j, o, "literal");
      if (!rc) rc = jTime(j, o, "validAt", &f.validAt);
      if (!rc) rc = jTime(j, o, "invalidAt", &f.invalidAt);
      if (!rc) rc = jTime(j, o, "createdAt", &f.createdAt);
      if (!rc) rc = jTime(j, o, "expiredAt", &f.expiredAt);
      uint32_t s = cairn_json_get(j, o, "sources");
      if (!rc && s) {
        if (cairn_json_type(j, s) != CAIRN_JSON_ARRAY) rc = cairnErr(CAIRN_TYPE, "graph JSON: fact %u: \"sources\" must be a list", n);
        for (uint32_t e = s ? cairn_json_child(j, s) : 0; e && !rc; e = cairn_json_next(j, e)) {
          if (cairn_json_type(j, e) != CAIRN_JSON_NUMBER || cairn_json_num(j, e) < 0) rc = cairnErr(CAIRN_TYPE, "graph JSON: fact %u: bad source id", n);
          else if (f.nSource >= 256) rc = cairnErr(CAIRN_RANGE, "graph JSON: fact %u: more than 256 sources", n);
          else aSrc[f.nSource++] = (uint64_t)cairn_json_num(j, e);
        }
        f.aSource = aSrc;
      }
      if (!rc && !f.zSubject) rc = cairnErr(CAIRN_MISUSE, "graph JSON: fact %u has no \"subject\"", n);
      if (!rc) rc = cairnKgFactAdd(g, &f, NULL);
    }
    cairnKgEnd(g, rc);
  }
  cairn_json_free(j);
  if (pn) *pn = rc ? 0 : n;
  return rc;
}

static void putTime(CairnSb *s, const char *zKey, int64_t t) {
  cairnSbStr(s, zKey);
  if (t == CAIRN_KG_NONE) cairnSbStr(s, "null");
  else cairnSbI64(s, t);
}
static void putFact(cairn_kg *g, CairnSb *s, uint32_t id) {
  cairn_kg_fact f;
  if (cairn_kg_fact_get(g, id, &f)) return;
  cairnSbStr(s, "{\"id\":");
  cairnSbU64(s, id);
  cairnSbStr(s, ",\"subject\":");
  cairnSbJsonStr(s, f.zSubject, strlen(f.zSubject), 0);
  cairnSbStr(s, ",\"predicate\":");
  cairnSbJsonStr(s, f.zPredicate, strlen(f.zPredicate), 0);
  cairnSbStr(s, f.zObject ? ",\"object\":" : ",\"literal\":");
  const char *z = f.zObject ? f.zObject : f.zLiteral;
  cairnSbJsonStr(s, z, strlen(z), 0);
  putTime(s, ",\"validAt\":", f.validAt);
  putTime(s, ",\"invalidAt\":", f.invalidAt);
  putTime(s, ",\"createdAt\":", f.createdAt);
  putTime(s, ",\"expiredAt\":", f.expiredAt);
  cairnSbStr(s, ",\"sources\":[");
  for (uint32_t i = 0; i < f.nSource; i++) {
    if (i) cairnSbStr(s, ",");
    cairnSbU64(s, f.aSource[i]);
  }
  cairnSbStr(s, "]}");
}

int cairn_kg_entities_json(cairn_kg *g, char **pzJson) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g || !pzJson, CAIRN_MISUSE, "cairn_kg_entities_json: NULL argument");
  CairnSb s = {0};
  cairnSbStr(&s, "[");
  int first = 1;
  for (uint32_t id = 1; id <= g->nEnt; id++) {
    if (g->aEnt[id - 1].canon) continue;
    cairn_kg_entity e;
    (void)cairn_kg_entity_get(g, id, &e);
    uint32_t nMen = 0;
    (void)cairn_kg_mentions(g, id, NULL, 0, &nMen);
    cairnSbStr(&s, first ? "{\"id\":" : ",{\"id\":");
    first = 0;
    cairnSbU64(&s, id);
    cairnSbStr(&s, ",\"name\":");
    cairnSbJsonStr(&s, e.zName, strlen(e.zName), 0);
    cairnSbStr(&s, ",\"type\":");
    cairnSbJsonStr(&s, e.zType, strlen(e.zType), 0);
    cairnSbStr(&s, ",\"aliases\":[");
    int fa = 1;
    for (size_t k = 0; k < g->nAlias; k++)
      if (cairn_kg_canon(g, g->aAlias[k].ent) == id) {
        if (!fa) cairnSbStr(&s, ",");
        fa = 0;
        const char *z = KG_STR(g, g->aAlias[k].zAlias);
        cairnSbJsonStr(&s, z, strlen(z), 0);
      }
    for (uint32_t k = 1; k <= g->nEnt && g->nLiveMerge; k++) /* merged names are aliases too */
      if (k != id && g->aEnt[k - 1].canon && cairn_kg_canon(g, k) == id) {
        if (!fa) cairnSbStr(&s, ",");
        fa = 0;
        const char *z = KG_STR(g, g->aEnt[k - 1].zName);
        cairnSbJsonStr(&s, z, strlen(z), 0);
      }
    cairnSbStr(&s, "],\"mentions\":");
    cairnSbU64(&s, nMen);
    cairnSbStr(&s, "}");
  }
  cairnSbStr(&s, "]");
  size_t n;
  return cairnSbDone(&s, CAIRN_OK, "entities JSON", pzJson, &n);
}

int cairn_kg_facts_json(cairn_kg *g, int64_t asOf, char **pzJson) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g || !pzJson, CAIRN_MISUSE, "cairn_kg_facts_json: NULL argument");
  CairnSb s = {0};
  cairnSbStr(&s, "[");
  int first = 1;
  for (uint32_t id = 1; id <= g->nFact; id++) {
    if (!cairn_kg_fact_valid(g, id, asOf)) continue;
    if (!first) cairnSbStr(&s, ",");
    first = 0;
    putFact(g, &s, id);
  }
  cairnSbStr(&s, "]");
  size_t n;
  return cairnSbDone(&s, CAIRN_OK, "facts JSON", pzJson, &n);
}

int cairn_kg_graph_json(cairn_kg *g, const char *zName, uint32_t depth, int64_t asOf, char **pzJson) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g || !pzJson, CAIRN_MISUSE, "cairn_kg_graph_json: NULL argument");
  uint32_t id;
  CAIRN_TRY(cairn_kg_find(g, zName, &id));
  uint32_t n = 0;
  CAIRN_TRY(cairn_kg_bfs(g, id, depth, asOf, NULL, NULL, 0, &n));
  uint32_t *a = cairnMallocArray(n + 1, 2 * sizeof(uint32_t));
  CAIRN_RETURN_ERROR_IF(!a, CAIRN_NOMEM, "graph JSON");
  uint32_t *aD = a + n + 1;
  int rc = cairn_kg_bfs(g, id, depth, asOf, a, aD, n, &n);
  CairnSb s = {0};
  cairnSbStr(&s, "{\"entity\":");
  cairnSbJsonStr(&s, KG_STR(g, g->aEnt[id - 1].zName), strlen(KG_STR(g, g->aEnt[id - 1].zName)), 0);
  cairnSbStr(&s, ",\"nodes\":[");
  for (uint32_t i = 0; i < n && !rc; i++) {
    const char *z = KG_STR(g, g->aEnt[a[i] - 1].zName);
    cairnSbStr(&s, i ? ",{\"id\":" : "{\"id\":");
    cairnSbU64(&s, a[i]);
    cairnSbStr(&s, ",\"name\":");
    cairnSbJsonStr(&s, z, strlen(z), 0);
    cairnSbStr(&s, ",\"depth\":");
    cairnSbU64(&s, aD[i]);
    cairnSbStr(&s, "}");
  }
  cairnSbStr(&s, "],\"edges\":[");
  /* facts between two reached entities, each once */
  int first = 1;
  for (uint32_t f = 1; f <= g->nFact && !rc; f++) {
    const KgFact *kf = &g->aFact[f - 1];
    if (!kf->obj || !cairnKgValidAt(kf, asOf)) continue;
    uint32_t cs = cairn_kg_canon(g, kf->subj), co = cairn_kg_canon(g, kf->obj);
    int hs = 0, ho = 0;
    for (uint32_t i = 0; i < n; i++) hs |= a[i] == cs, ho |= a[i] == co;
    if (!hs || !ho) continue;
    if (!first) cairnSbStr(&s, ",");
    first = 0;
    putFact(g, &s, f);
  }
  cairnSbStr(&s, "]}");
  cairnFree(a);
  size_t nz;
  return cairnSbDone(&s, rc, "graph JSON", pzJson, &nz);
}
