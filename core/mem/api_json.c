/*
** 2026-11-29
**
** core/mem/api_json.c - the JSON face of the memory store, for bindings (the npm package's
** mem.add({...}) and mem.search(query, {...}) pass their objects through as JSON text, so no
** struct layout crosses the JS boundary). Unknown fields are errors that name the field, so a
** typo in a filter never silently widens a search.
*/
#include <math.h>

#include "mem_int.h"

/* ------------------------------------------------------------------ output */
/* A float as JSON: shortest round-trip is not needed, 9 significant digits are exact for f32.
** NaN and infinities become null. Pure: no printf. */
static void outFloat(CairnSb *o, float f) {
  if (!(f == f) || f - f != 0) {
    cairnSbStr(o, "null");
    return;
  }
  double v = f;
  char b[48];
  size_t n = 0;
  if (v < 0) b[n++] = '-', v = -v;
  if (v == 0) {
    cairnSbPut(o, b, n), cairnSbStr(o, "0");
    return;
  }
  int e = 0;
  while (v >= 10) v /= 10, e++;
  while (v < 1) v *= 10, e--;
  unsigned long long m = (unsigned long long)(v * 1e8 + 0.5); /* 9 digits */
  if (m >= 1000000000ull) m /= 10, e++;
  char dig[10];
  for (int i = 8; i >= 0; i--) dig[i] = (char)('0' + m % 10), m /= 10;
  int nd = 9;
  while (nd > 1 && dig[nd - 1] == '0') nd--;
  b[n++] = dig[0];
  if (nd > 1) {
    b[n++] = '.';
    for (int i = 1; i < nd; i++) b[n++] = dig[i];
  }
  if (e) n += cairnFormat(b + n, sizeof b - n, "e%d", e);
  cairnSbPut(o, b, n);
}
/* z (NULL: empty) as a JSON string: control characters as \u00xx, DEL and non-ASCII as they are. */
static void outJsonStr(CairnSb *o, const char *z) { cairnSbJsonStr(o, z ? z : "", z ? strlen(z) : 0, 0); }

/* ------------------------------------------------------------------ helpers */
static int jStr(const Json *j, uint32_t v, const char *zField, const char **pz) {
  if (j->a[v].type == JSON_NULL) return CAIRN_OK;
  if (j->a[v].type != JSON_STR) return cairnErr(CAIRN_MISUSE, "'%s' must be a string", zField);
  if (memchr(j->a[v].z, 0, j->a[v].nz)) return cairnErr(CAIRN_MISUSE, "'%s' contains a NUL character", zField);
  *pz = j->a[v].z;
  return CAIRN_OK;
}
static int jNum(const Json *j, uint32_t v, const char *zField, double lo, double hi, double *pd) {
  if (j->a[v].type != JSON_NUM || !(j->a[v].num >= lo && j->a[v].num <= hi))
    return cairnErr(CAIRN_MISUSE, "'%s' must be a number in [%lld, %lld]", zField, (long long)lo, (long long)hi);
  *pd = j->a[v].num;
  return CAIRN_OK;
}
/* An array of numbers into a new float array. */
static int jVec(const Json *j, uint32_t v, const char *zField, float **pa, uint32_t *pn) {
  if (j->a[v].type != JSON_ARR) return cairnErr(CAIRN_MISUSE, "'%s' must be an array of numbers", zField);
  uint32_t n = j->a[v].n;
  if (n == 0 || n > CAIRN_MEM_MAX_DIM) return cairnErr(CAIRN_RANGE, "'%s' has %u numbers (1..%u)", zField, n, CAIRN_MEM_MAX_DIM);
  float *a = cairnMallocArray(n, sizeof(float));
  if (!a) return cairnErr(CAIRN_NOMEM, "'%s': out of memory", zField);
  uint32_t i = 0;
  for (uint32_t x = cairnJsonChild(j, v); x; x = j->a[x].next, i++) {
    if (j->a[x].type != JSON_NUM) {
      cairnFree(a);
      return cairnErr(CAIRN_TYPE, "'%s'[%u] is not a number", zField, i);
    }
    a[i] = (float)j->a[x].num;
  }
  *pa = a, *pn = n;
  return CAIRN_OK;
}
/* NUL-terminated copy of a source span (the JSON text of a value). */
static char *jSrc(const Json *j, uint32_t v, const char *zSrc) {
  char *z = cairnMalloc(j->a[v].nSrc + 1);
  if (z) {
    memcpy(z, zSrc + j->a[v].iSrc, j->a[v].nSrc);
    z[j->a[v].nSrc] = 0;
  }
  return z;
}

/* ------------------------------------------------------------------ add */
int cairn_mem_add_json(cairn_mem *m, const char *zJson, uint64_t *pId) {
  if (!m || !zJson) return cairnErr(CAIRN_MISUSE, "mem_add_json: NULL argument");
  Json j;
  CAIRN_TRY(cairnJsonParse(&j, zJson, strlen(zJson)));
  cairn_mem_record r;
  memset(&r, 0, sizeof r);
  float *aEmb = NULL;
  char *zMeta = NULL;
  int rc = j.a[0].type == JSON_OBJ ? CAIRN_OK : cairnErr(CAIRN_MISUSE, "mem_add_json: a memory must be a JSON object");
  for (uint32_t k = rc ? 0 : cairnJsonChild(&j, 0); k && rc == CAIRN_OK;) {
    uint32_t v = j.a[k].next;
    const char *zKey = j.a[k].z;
    double d = 0;
    if (!strcmp(zKey, "text")) rc = jStr(&j, v, zKey, &r.zText);
    else if (!strcmp(zKey, "session")) rc = jStr(&j, v, zKey, &r.zSession);
    else if (!strcmp(zKey, "role")) rc = jStr(&j, v, zKey, &r.zRole);
    else if (!strcmp(zKey, "tier")) rc = jNum(&j, v, zKey, 0, 31, &d), r.tier = (int32_t)d;
    else if (!strcmp(zKey, "importance")) rc = jNum(&j, v, zKey, -1e30, 1e30, &d), r.importance = (float)d;
    else if (!strcmp(zKey, "createdMs")) rc = jNum(&j, v, zKey, 0, 9e15, &d), r.createdMs = (int64_t)d;
    else if (!strcmp(zKey, "eventMs")) rc = jNum(&j, v, zKey, 0, 9e15, &d), r.eventMs = (int64_t)d;
    else if (!strcmp(zKey, "embedding")) { /* a key given twice: the last one holds */
      cairnFree(aEmb), aEmb = NULL, r.aEmbedding = NULL, r.nEmbedding = 0;
      if (j.a[v].type != JSON_NULL) rc = jVec(&j, v, zKey, &aEmb, &r.nEmbedding), r.aEmbedding = aEmb;
    } else if (!strcmp(zKey, "meta")) {
      cairnFree(zMeta), zMeta = NULL, r.zMeta = NULL;
      if (j.a[v].type == JSON_OBJ) {
        zMeta = jSrc(&j, v, zJson);
        if (!zMeta) rc = cairnErr(CAIRN_NOMEM, "mem_add_json: out of memory");
        r.zMeta = zMeta;
      } else if (j.a[v].type != JSON_NULL) rc = cairnErr(CAIRN_TYPE, "'meta' must be a JSON object");
    } else rc = cairnErr(CAIRN_MISUSE, "mem_add_json: unknown field '%s' (text, embedding, session, role, tier, importance, createdMs, eventMs, meta)", zKey);
    if (rc == CAIRN_OK && (r.tier < 0)) rc = cairnErr(CAIRN_RANGE, "'tier' must be 0..31");
    k = j.a[v].next;
  }
  if (rc == CAIRN_OK && !r.zText) rc = cairnErr(CAIRN_MISUSE, "mem_add_json: 'text' is required");
  if (rc == CAIRN_OK) rc = cairn_mem_add(m, &r, pId);
  cairnFree(aEmb);
  cairnFree(zMeta);
  cairnJsonFree(&j);
  return rc;
}

/* ------------------------------------------------------------------ search */
static const char *const azVindex[] = {"auto", "flat", "f16", "int8", "ivf", "ivfpq"};

int cairn_mem_search_json(cairn_mem *m, const char *zQuery, const char *zOptions, char **pzResult) {
  if (!m || !pzResult) return cairnErr(CAIRN_MISUSE, "mem_search_json: NULL argument");
  *pzResult = NULL;
  cairn_mem_query q;
  memset(&q, 0, sizeof q);
  q.zText = zQuery && zQuery[0] ? zQuery : NULL;
  Json j;
  memset(&j, 0, sizeof j);
  float *aEmb = NULL;
  char *zFilter = NULL, *zArena = NULL;
  cairn_mem_filter f;
  int rc = CAIRN_OK;
  if (zOptions && zOptions[0]) {
    CAIRN_TRY(cairnJsonParse(&j, zOptions, strlen(zOptions)));
    if (j.a[0].type != JSON_OBJ) rc = cairnErr(CAIRN_MISUSE, "search options must be a JSON object");
    for (uint32_t k = rc ? 0 : cairnJsonChild(&j, 0); k && rc == CAIRN_OK;) {
      uint32_t v = j.a[k].next;
      const char *zKey = j.a[k].z, *z = NULL;
      double d = 0;
      if (!strcmp(zKey, "k")) rc = jNum(&j, v, zKey, 1, CAIRN_MEM_MAX_K, &d), q.k = (uint32_t)d;
      else if (!strcmp(zKey, "mode")) {
        rc = jStr(&j, v, zKey, &z);
        if (rc == CAIRN_OK && z) {
          if (!strcmp(z, "hybrid")) q.mode = CAIRN_MEM_HYBRID;
          else if (!strcmp(z, "vector")) q.mode = CAIRN_MEM_VECTOR;
          else if (!strcmp(z, "bm25")) q.mode = CAIRN_MEM_BM25;
          else rc = cairnErr(CAIRN_MISUSE, "'mode' must be 'hybrid', 'vector' or 'bm25', not '%s'", z);
        }
      } else if (!strcmp(zKey, "fusion")) {
        rc = jStr(&j, v, zKey, &z);
        if (rc == CAIRN_OK && z) {
          if (!strcmp(z, "rrf")) q.fusion = CAIRN_FUSE_RRF;
          else if (!strcmp(z, "weighted")) q.fusion = CAIRN_FUSE_WEIGHTED;
          else rc = cairnErr(CAIRN_MISUSE, "'fusion' must be 'rrf' or 'weighted', not '%s'", z);
        }
      } else if (!strcmp(zKey, "index")) {
        rc = jStr(&j, v, zKey, &z);
        int found = 0;
        for (int i = 0; rc == CAIRN_OK && z && i < 6; i++)
          if (!strcmp(z, azVindex[i])) q.vindex = i, found = 1;
        if (rc == CAIRN_OK && z && !found) rc = cairnErr(CAIRN_MISUSE, "'index' must be auto, flat, f16, int8, ivf or ivfpq");
      } else if (!strcmp(zKey, "rrfK")) rc = jNum(&j, v, zKey, 0, 1e6, &d), q.rrfK = (float)d;
      else if (!strcmp(zKey, "wVector")) rc = jNum(&j, v, zKey, 0, 1e6, &d), q.wVector = (float)d;
      else if (!strcmp(zKey, "wBm25")) rc = jNum(&j, v, zKey, 0, 1e6, &d), q.wBm25 = (float)d;
      else if (!strcmp(zKey, "recency")) rc = jNum(&j, v, zKey, -1e6, 1e6, &d), q.recencyWeight = (float)d;
      else if (!strcmp(zKey, "halfLifeHours")) rc = jNum(&j, v, zKey, 0, 1e9, &d), q.recencyHalfLifeH = (float)d;
      else if (!strcmp(zKey, "now")) rc = jNum(&j, v, zKey, 0, 9e15, &d), q.nowMs = (int64_t)d;
      else if (!strcmp(zKey, "nprobe")) rc = jNum(&j, v, zKey, 1, 65536, &d), q.nprobe = (uint32_t)d;
      else if (!strcmp(zKey, "rerank")) rc = jNum(&j, v, zKey, 1, 1e6, &d), q.rerank = (uint32_t)d;
      else if (!strcmp(zKey, "k1")) rc = jNum(&j, v, zKey, 0, 100, &d), q.bm25K1 = (float)d;
      else if (!strcmp(zKey, "b")) rc = jNum(&j, v, zKey, 0, 1, &d), q.bm25B = (float)d;
      else if (!strcmp(zKey, "touch")) {
        if (j.a[v].type != JSON_TRUE && j.a[v].type != JSON_FALSE) rc = cairnErr(CAIRN_MISUSE, "'touch' must be true or false");
        q.touch = j.a[v].type == JSON_TRUE;
      } else if (!strcmp(zKey, "embedding")) { /* a key given twice: the last one holds */
        cairnFree(aEmb), aEmb = NULL, q.aEmbedding = NULL, q.nEmbedding = 0;
        if (j.a[v].type != JSON_NULL) rc = jVec(&j, v, zKey, &aEmb, &q.nEmbedding), q.aEmbedding = aEmb;
      } else if (!strcmp(zKey, "filter")) {
        cairnFree(zFilter), cairnFree(zArena), zFilter = zArena = NULL, q.pFilter = NULL;
        if (j.a[v].type != JSON_NULL) {
          zFilter = jSrc(&j, v, zOptions);
          rc = zFilter ? cairn_mem_filter_parse(zFilter, &f, &zArena) : cairnErr(CAIRN_NOMEM, "search_json: out of memory");
          if (rc == CAIRN_OK) q.pFilter = &f;
        }
      } else
        rc = cairnErr(CAIRN_MISUSE, "search: unknown option '%s' (k, mode, filter, fusion, rrfK, wVector, wBm25, recency, "
                                    "halfLifeHours, now, index, nprobe, rerank, k1, b, embedding, touch)", zKey);
      k = j.a[v].next;
    }
  }
  uint32_t k = q.k ? q.k : 10, nHit = 0;
  cairn_mem_hit *aHit = NULL;
  if (rc == CAIRN_OK) {
    aHit = cairnMallocArray(k, sizeof(cairn_mem_hit));
    if (!aHit) rc = cairnErr(CAIRN_NOMEM, "search_json: %u hits", k);
  }
  if (rc == CAIRN_OK) rc = cairn_mem_search(m, &q, aHit, &nHit);
  CairnSb o = {0};
  if (rc == CAIRN_OK) {
    cairnSbStr(&o, "[");
    for (uint32_t i = 0; i < nHit; i++) {
      cairn_mem_record r;
      cairn_mem_get(m, aHit[i].id, &r);
      cairnSbStr(&o, i ? ",{\"id\":" : "{\"id\":");
      cairnSbI64(&o, (int64_t)aHit[i].id);
      cairnSbStr(&o, ",\"score\":"), outFloat(&o, aHit[i].score);
      cairnSbStr(&o, ",\"vscore\":"), outFloat(&o, aHit[i].vscore);
      cairnSbStr(&o, ",\"bscore\":"), outFloat(&o, aHit[i].bscore);
      cairnSbStr(&o, ",\"text\":"), outJsonStr(&o, r.zText);
      if (r.zSession) cairnSbStr(&o, ",\"session\":"), outJsonStr(&o, r.zSession);
      if (r.zRole) cairnSbStr(&o, ",\"role\":"), outJsonStr(&o, r.zRole);
      cairnSbStr(&o, ",\"tier\":"), cairnSbI64(&o, (int64_t)r.tier);
      cairnSbStr(&o, ",\"importance\":"), outFloat(&o, r.importance);
      cairnSbStr(&o, ",\"accessCount\":"), cairnSbI64(&o, (int64_t)r.accessCount);
      cairnSbStr(&o, ",\"createdMs\":"), cairnSbI64(&o, (int64_t)r.createdMs);
      cairnSbStr(&o, ",\"eventMs\":"), cairnSbI64(&o, (int64_t)r.eventMs);
      if (r.zMeta) cairnSbStr(&o, ",\"meta\":"), cairnSbStr(&o, r.zMeta); /* validated JSON object on add */
      cairnSbStr(&o, "}");
    }
    cairnSbStr(&o, "]");
  }
  rc = cairnSbDone(&o, rc, "search_json: result", pzResult, NULL);
  cairnFree(aHit), cairnFree(aEmb), cairnFree(zFilter), cairnFree(zArena);
  cairnJsonFree(&j);
  return rc;
}
