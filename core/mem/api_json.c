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

/* ------------------------------------------------------------------ records */
/* The fields of a memory in JSON object node v of j (source zJson) into *r; *pFields gets the
** CAIRN_MEM_F_* bits of the fields present. Allocations (embedding, metadata) go to *paEmb /
** *pzMeta. bExport: also the fields of an export line (id, version, validFromMs, validToMs,
** accessCount), into *pX. */
typedef struct MemLine {
  uint64_t id, version;
  int64_t validFrom, validTo;
  int64_t access; /* -1: absent */
} MemLine;
static int jsonRecord(const Json *j, uint32_t v0, const char *zJson, cairn_mem_record *r, unsigned *pFields, float **paEmb, char **pzMeta,
                      MemLine *pX) {
  memset(r, 0, sizeof *r);
  *pFields = 0;
  if (pX) memset(pX, 0, sizeof *pX), pX->access = -1;
  if (j->a[v0].type != JSON_OBJ) return cairnErr(CAIRN_MISUSE, "a memory must be a JSON object");
  int rc = CAIRN_OK;
  for (uint32_t k = cairnJsonChild(j, v0); k && rc == CAIRN_OK;) {
    uint32_t v = j->a[k].next;
    const char *zKey = j->a[k].z;
    double d = 0;
    unsigned f = 0;
    if (!strcmp(zKey, "text")) rc = jStr(j, v, zKey, &r->zText), f = CAIRN_MEM_F_TEXT;
    else if (!strcmp(zKey, "session") || !strcmp(zKey, "run")) rc = jStr(j, v, zKey, &r->zSession), f = CAIRN_MEM_F_SESSION;
    else if (!strcmp(zKey, "role")) rc = jStr(j, v, zKey, &r->zRole), f = CAIRN_MEM_F_ROLE;
    else if (!strcmp(zKey, "user")) rc = jStr(j, v, zKey, &r->zUser), f = CAIRN_MEM_F_USER;
    else if (!strcmp(zKey, "agent")) rc = jStr(j, v, zKey, &r->zAgent), f = CAIRN_MEM_F_AGENT;
    else if (!strcmp(zKey, "tier")) rc = jNum(j, v, zKey, 0, 31, &d), r->tier = (int32_t)d, f = CAIRN_MEM_F_TIER;
    else if (!strcmp(zKey, "importance")) rc = jNum(j, v, zKey, -1e30, 1e30, &d), r->importance = (float)d, f = CAIRN_MEM_F_IMPORTANCE;
    else if (!strcmp(zKey, "createdMs")) rc = jNum(j, v, zKey, 0, 9e15, &d), r->createdMs = (int64_t)d, f = CAIRN_MEM_F_CREATED;
    else if (!strcmp(zKey, "eventMs")) rc = jNum(j, v, zKey, 0, 9e15, &d), r->eventMs = (int64_t)d, f = CAIRN_MEM_F_EVENT;
    else if (!strcmp(zKey, "embedding")) { /* a key given twice: the last one holds */
      cairnFree(*paEmb), *paEmb = NULL, r->aEmbedding = NULL, r->nEmbedding = 0;
      if (j->a[v].type != JSON_NULL) rc = jVec(j, v, zKey, paEmb, &r->nEmbedding), r->aEmbedding = *paEmb;
      f = CAIRN_MEM_F_EMBEDDING;
    } else if (!strcmp(zKey, "meta")) {
      cairnFree(*pzMeta), *pzMeta = NULL, r->zMeta = NULL;
      if (j->a[v].type == JSON_OBJ) {
        *pzMeta = jSrc(j, v, zJson);
        if (!*pzMeta) rc = cairnErr(CAIRN_NOMEM, "out of memory");
        r->zMeta = *pzMeta;
      } else if (j->a[v].type != JSON_NULL) rc = cairnErr(CAIRN_TYPE, "'meta' must be a JSON object");
      f = CAIRN_MEM_F_META;
    } else if (pX && !strcmp(zKey, "id")) rc = jNum(j, v, zKey, 1, 9e15, &d), pX->id = (uint64_t)d;
    else if (pX && !strcmp(zKey, "version")) rc = jNum(j, v, zKey, 1, 9e15, &d), pX->version = (uint64_t)d;
    else if (pX && !strcmp(zKey, "validFromMs")) rc = jNum(j, v, zKey, 0, 9e15, &d), pX->validFrom = (int64_t)d;
    else if (pX && !strcmp(zKey, "validToMs")) rc = jNum(j, v, zKey, 0, 9e15, &d), pX->validTo = (int64_t)d;
    else if (pX && !strcmp(zKey, "accessCount")) rc = jNum(j, v, zKey, 0, 4294967295.0, &d), pX->access = (int64_t)d;
    else
      rc = cairnErr(CAIRN_MISUSE, "unknown field '%s' (text, embedding, user, agent, session, run, role, tier, importance, createdMs, eventMs, meta%s)",
                    zKey, pX ? ", id, version, validFromMs, validToMs, accessCount" : "");
    *pFields |= f;
    k = j->a[v].next;
  }
  return rc;
}

/* ------------------------------------------------------------------ add */
int cairn_mem_add_json(cairn_mem *m, const char *zJson, uint64_t *pId) {
  if (!m || !zJson) return cairnErr(CAIRN_MISUSE, "mem_add_json: NULL argument");
  Json j;
  CAIRN_TRY(cairnJsonParse(&j, zJson, strlen(zJson)));
  cairn_mem_record r;
  float *aEmb = NULL;
  char *zMeta = NULL;
  unsigned f = 0;
  int rc = jsonRecord(&j, 0, zJson, &r, &f, &aEmb, &zMeta, NULL);
  if (rc) rc = cairnErr(rc, "mem_add_json: %s", cairn_errmsg());
  if (rc == CAIRN_OK && !r.zText) rc = cairnErr(CAIRN_MISUSE, "mem_add_json: 'text' is required");
  if (rc == CAIRN_OK) rc = cairn_mem_add(m, &r, pId);
  cairnFree(aEmb);
  cairnFree(zMeta);
  cairnJsonFree(&j);
  return rc;
}

static const char *const azPut[] = {"added", "exact", "near_kept", "near_skipped", "superseded"};
int cairn_mem_put_json(cairn_mem *m, const char *zJson, const char *zOpts, char **pzResult) {
  if (!m || !zJson || !pzResult) return cairnErr(CAIRN_MISUSE, "mem_put_json: NULL argument");
  *pzResult = NULL;
  cairn_mem_put_opts o;
  memset(&o, 0, sizeof o);
  Json jo;
  memset(&jo, 0, sizeof jo);
  int rc = CAIRN_OK;
  if (zOpts && zOpts[0]) {
    CAIRN_TRY(cairnJsonParse(&jo, zOpts, strlen(zOpts)));
    if (jo.a[0].type != JSON_OBJ) rc = cairnErr(CAIRN_MISUSE, "add options must be a JSON object");
    for (uint32_t k = rc ? 0 : cairnJsonChild(&jo, 0); k && rc == CAIRN_OK; k = jo.a[jo.a[k].next].next) {
      uint32_t v = jo.a[k].next;
      const char *zKey = jo.a[k].z, *z = NULL;
      double d = 0;
      if (!strcmp(zKey, "dedup")) {
        if (jo.a[v].type != JSON_TRUE && jo.a[v].type != JSON_FALSE) rc = cairnErr(CAIRN_MISUSE, "'dedup' must be true or false");
        o.noExact = jo.a[v].type == JSON_FALSE;
      } else if (!strcmp(zKey, "nearThreshold")) rc = jNum(&jo, v, zKey, 0, 1, &d), o.nearThreshold = (float)d;
      else if (!strcmp(zKey, "nearPolicy")) {
        rc = jStr(&jo, v, zKey, &z);
        if (!rc && z && !strcmp(z, "keep")) o.nearPolicy = CAIRN_MEM_NEAR_KEEP;
        else if (!rc && z && !strcmp(z, "skip")) o.nearPolicy = CAIRN_MEM_NEAR_SKIP;
        else if (!rc && z && !strcmp(z, "supersede")) o.nearPolicy = CAIRN_MEM_NEAR_SUPERSEDE;
        else if (!rc) rc = cairnErr(CAIRN_MISUSE, "'nearPolicy' must be keep, skip or supersede");
      } else rc = cairnErr(CAIRN_MISUSE, "add: unknown option '%s' (dedup, nearThreshold, nearPolicy)", zKey);
    }
  }
  Json j;
  memset(&j, 0, sizeof j);
  cairn_mem_record r;
  float *aEmb = NULL;
  char *zMeta = NULL;
  unsigned f = 0;
  if (!rc) rc = cairnJsonParse(&j, zJson, strlen(zJson));
  if (!rc) {
    rc = jsonRecord(&j, 0, zJson, &r, &f, &aEmb, &zMeta, NULL);
    if (rc) rc = cairnErr(rc, "mem_add: %s", cairn_errmsg());
  }
  if (rc == CAIRN_OK && !r.zText) rc = cairnErr(CAIRN_MISUSE, "mem_add: 'text' is required");
  cairn_mem_put_result res;
  if (rc == CAIRN_OK) rc = cairn_mem_put(m, &r, &o, &res);
  CairnSb sb = {0};
  if (rc == CAIRN_OK) {
    cairnSbStr(&sb, "{\"id\":"), cairnSbU64(&sb, res.id);
    cairnSbStr(&sb, ",\"version\":"), cairnSbU64(&sb, res.version);
    cairnSbStr(&sb, ",\"status\":\""), cairnSbStr(&sb, azPut[res.status]), cairnSbStr(&sb, "\"");
    if (res.duplicateOf) {
      cairnSbStr(&sb, ",\"duplicateOf\":"), cairnSbU64(&sb, res.duplicateOf);
      cairnSbStr(&sb, ",\"similarity\":"), outFloat(&sb, res.similarity);
    }
    cairnSbStr(&sb, "}");
  }
  rc = cairnSbDone(&sb, rc, "mem_add: result", pzResult, NULL);
  cairnFree(aEmb), cairnFree(zMeta);
  cairnJsonFree(&j), cairnJsonFree(&jo);
  return rc;
}

/* ------------------------------------------------------------------ one record as JSON */
static void outRecord(CairnSb *o, const cairn_mem_record *r, int bEmbedding) {
  cairnSbStr(o, "{\"id\":"), cairnSbU64(o, r->id);
  cairnSbStr(o, ",\"version\":"), cairnSbU64(o, r->version);
  cairnSbStr(o, ",\"text\":"), outJsonStr(o, r->zText);
  if (r->zUser) cairnSbStr(o, ",\"user\":"), outJsonStr(o, r->zUser);
  if (r->zAgent) cairnSbStr(o, ",\"agent\":"), outJsonStr(o, r->zAgent);
  if (r->zSession) cairnSbStr(o, ",\"session\":"), outJsonStr(o, r->zSession);
  if (r->zRole) cairnSbStr(o, ",\"role\":"), outJsonStr(o, r->zRole);
  cairnSbStr(o, ",\"tier\":"), cairnSbI64(o, (int64_t)r->tier);
  cairnSbStr(o, ",\"importance\":"), outFloat(o, r->importance);
  cairnSbStr(o, ",\"accessCount\":"), cairnSbI64(o, (int64_t)r->accessCount);
  cairnSbStr(o, ",\"createdMs\":"), cairnSbI64(o, r->createdMs);
  cairnSbStr(o, ",\"eventMs\":"), cairnSbI64(o, r->eventMs);
  cairnSbStr(o, ",\"validFromMs\":"), cairnSbI64(o, r->validFromMs);
  cairnSbStr(o, ",\"validToMs\":"), cairnSbI64(o, r->validToMs);
  if (r->zMeta) cairnSbStr(o, ",\"meta\":"), cairnSbStr(o, r->zMeta); /* validated JSON object on add */
  if (bEmbedding && r->aEmbedding) {
    cairnSbStr(o, ",\"embedding\":[");
    for (uint32_t i = 0; i < r->nEmbedding; i++) {
      if (i) cairnSbStr(o, ",");
      outFloat(o, r->aEmbedding[i]);
    }
    cairnSbStr(o, "]");
  }
  cairnSbStr(o, "}");
}

int cairn_mem_get_json(cairn_mem *m, uint64_t id, int bEmbedding, char **pz) {
  if (!m || !pz) return cairnErr(CAIRN_MISUSE, "mem_get_json: NULL argument");
  *pz = NULL;
  cairn_mem_record r;
  CAIRN_TRY(cairn_mem_get(m, id, &r));
  CairnSb sb = {0};
  outRecord(&sb, &r, bEmbedding);
  return cairnSbDone(&sb, CAIRN_OK, "mem_get_json", pz, NULL);
}

int cairn_mem_version_json(cairn_mem *m, uint64_t version, int bEmbedding, char **pz) {
  if (!m || !pz) return cairnErr(CAIRN_MISUSE, "mem_version_json: NULL argument");
  *pz = NULL;
  cairn_mem_record r;
  CAIRN_TRY(cairn_mem_get_version(m, version, &r));
  CairnSb sb = {0};
  outRecord(&sb, &r, bEmbedding);
  return cairnSbDone(&sb, CAIRN_OK, "mem_version_json", pz, NULL);
}

int cairn_mem_history_json(cairn_mem *m, uint64_t id, int bEmbedding, char **pz) {
  if (!m || !pz) return cairnErr(CAIRN_MISUSE, "mem_history_json: NULL argument");
  *pz = NULL;
  uint32_t n = 0;
  CAIRN_TRY(cairn_mem_history(m, id, NULL, 0, &n));
  cairn_mem_record *a = cairnMallocArray(n, sizeof *a);
  if (!a) return cairnErr(CAIRN_NOMEM, "mem_history_json: %u versions", n);
  int rc = cairn_mem_history(m, id, a, n, &n);
  CairnSb sb = {0};
  cairnSbStr(&sb, "[");
  for (uint32_t i = 0; rc == CAIRN_OK && i < n; i++) {
    if (i) cairnSbStr(&sb, ",");
    outRecord(&sb, &a[i], bEmbedding);
  }
  cairnSbStr(&sb, "]");
  cairnFree(a);
  return cairnSbDone(&sb, rc, "mem_history_json", pz, NULL);
}

int cairn_mem_update_json(cairn_mem *m, uint64_t id, const char *zJson, uint64_t *pVersion) {
  if (!m || !zJson) return cairnErr(CAIRN_MISUSE, "mem_update_json: NULL argument");
  Json j;
  CAIRN_TRY(cairnJsonParse(&j, zJson, strlen(zJson)));
  cairn_mem_record r;
  float *aEmb = NULL;
  char *zMeta = NULL;
  unsigned f = 0;
  int rc = jsonRecord(&j, 0, zJson, &r, &f, &aEmb, &zMeta, NULL);
  if (rc) rc = cairnErr(rc, "mem_update: %s", cairn_errmsg());
  if (rc == CAIRN_OK && !f) rc = cairnErr(CAIRN_MISUSE, "mem_update: no field to change");
  if (rc == CAIRN_OK && (f & CAIRN_MEM_F_TEXT) && !r.zText) rc = cairnErr(CAIRN_MISUSE, "mem_update: 'text' cannot be null");
  if (rc == CAIRN_OK) rc = cairn_mem_update(m, id, &r, f, pVersion);
  cairnFree(aEmb), cairnFree(zMeta);
  cairnJsonFree(&j);
  return rc;
}

/* ------------------------------------------------------------------ list, delete, export */
typedef struct ListOpts {
  char *zFilter, *zArena;
  cairn_mem_filter f;
  int hasFilter;
  int order; /* 0 id, 1 eventMs, 2 createdMs, 3 importance, 4 accessCount */
  int desc, history, embeddings;
  uint64_t offset, limit;
  int64_t asOf;
} ListOpts;
static const char *const azOrder[] = {"id", "eventMs", "createdMs", "importance", "accessCount"};
static void listOptsFree(ListOpts *o) { cairnFree(o->zFilter), cairnFree(o->zArena); }
static int listOpts(const char *zOpts, ListOpts *o, int bList) {
  memset(o, 0, sizeof *o);
  o->limit = UINT64_MAX;
  if (!zOpts || !zOpts[0]) return CAIRN_OK;
  Json j;
  CAIRN_TRY(cairnJsonParse(&j, zOpts, strlen(zOpts)));
  int rc = j.a[0].type == JSON_OBJ ? CAIRN_OK : cairnErr(CAIRN_MISUSE, "options must be a JSON object");
  for (uint32_t k = rc ? 0 : cairnJsonChild(&j, 0); k && rc == CAIRN_OK; k = j.a[j.a[k].next].next) {
    uint32_t v = j.a[k].next;
    const char *zKey = j.a[k].z, *z = NULL;
    double d = 0;
    int isBool = j.a[v].type == JSON_TRUE || j.a[v].type == JSON_FALSE;
    if (!strcmp(zKey, "filter")) {
      if (j.a[v].type == JSON_NULL) continue;
      o->zFilter = jSrc(&j, v, zOpts);
      rc = o->zFilter ? cairn_mem_filter_parse(o->zFilter, &o->f, &o->zArena) : cairnErr(CAIRN_NOMEM, "options: out of memory");
      o->hasFilter = rc == CAIRN_OK;
    } else if (bList && !strcmp(zKey, "order")) {
      rc = jStr(&j, v, zKey, &z);
      int found = 0;
      for (int i = 0; !rc && z && i < 5; i++)
        if (!strcmp(z, azOrder[i])) o->order = i, found = 1;
      if (!rc && !found) rc = cairnErr(CAIRN_MISUSE, "'order' must be id, eventMs, createdMs, importance or accessCount");
    } else if (bList && (!strcmp(zKey, "desc") || !strcmp(zKey, "history") || !strcmp(zKey, "embeddings"))) {
      if (!isBool) rc = cairnErr(CAIRN_MISUSE, "'%s' must be true or false", zKey);
      int b = j.a[v].type == JSON_TRUE;
      if (zKey[0] == 'd') o->desc = b;
      else if (zKey[0] == 'h') o->history = b;
      else o->embeddings = b;
    } else if (bList && !strcmp(zKey, "offset")) rc = jNum(&j, v, zKey, 0, 9e15, &d), o->offset = (uint64_t)d;
    else if (bList && !strcmp(zKey, "limit")) rc = jNum(&j, v, zKey, 0, 9e15, &d), o->limit = (uint64_t)d;
    else if (bList && !strcmp(zKey, "asOf")) rc = jNum(&j, v, zKey, 1, 9e15, &d), o->asOf = (int64_t)d;
    else rc = cairnErr(CAIRN_MISUSE, "unknown option '%s' (%s)", zKey, bList ? "filter, order, desc, offset, limit, history, asOf, embeddings" : "filter");
  }
  cairnJsonFree(&j);
  return rc;
}
/* The rows a listing selects, in its order. */
static cairn_mem *gSortMem;
static int gSortOrder, gSortDesc;
static int cmpRows(const void *pa, const void *pb) {
  size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
  const cairn_mem *m = gSortMem;
  double x = 0, y = 0;
  switch (gSortOrder) {
    case 1: x = (double)m->aEvent[a], y = (double)m->aEvent[b]; break;
    case 2: x = (double)m->aCreated[a], y = (double)m->aCreated[b]; break;
    case 3: x = m->aImp[a], y = m->aImp[b]; break;
    case 4: x = m->aAccess[a], y = m->aAccess[b]; break;
    default: x = (double)m->aHead[a], y = (double)m->aHead[b]; break;
  }
  int c = x < y ? -1 : x > y;
  if (gSortDesc) c = -c;
  return c ? c : (a < b ? -1 : a > b);
}
static int listRows(cairn_mem *m, ListOpts *o, size_t **paRow, size_t *pn) {
  *paRow = NULL, *pn = 0;
  MemBits b;
  int all = 0;
  CAIRN_TRY(cairnMemFilterBits(m, o->hasFilter ? &o->f : NULL, o->asOf, &b, &all));
  size_t *a = cairnMallocArray(CAIRN_MAX(m->n, (size_t)1), sizeof(size_t)), n = 0;
  if (!a) {
    cairnFree(b.a);
    return cairnErr(CAIRN_NOMEM, "list: %zu rows", m->n);
  }
  for (size_t r = 0; r < m->n; r++) {
    if (m->aFlags[r] & MEM_ROW_DEAD) continue;
    int in = o->history ? 1 : all ? memRowLive(m, r) : cairnBitTest(&b, r);
    /* history: every version of the memories whose current version the filter admits */
    if (o->history && (o->hasFilter || o->asOf)) {
      size_t c = (size_t)m->aCur[m->aHead[r] - 1];
      in = all ? memRowLive(m, c) : cairnBitTest(&b, c);
    }
    if (in) a[n++] = r;
  }
  cairnFree(b.a);
  if (o->order || o->desc) {
    gSortMem = m, gSortOrder = o->order, gSortDesc = o->desc;
    qsort(a, n, sizeof *a, cmpRows);
  }
  *paRow = a, *pn = n;
  return CAIRN_OK;
}

int cairn_mem_list_json(cairn_mem *m, const char *zOpts, char **pz) {
  if (!m || !pz) return cairnErr(CAIRN_MISUSE, "mem_list_json: NULL argument");
  *pz = NULL;
  ListOpts o;
  int rc = listOpts(zOpts, &o, 1);
  size_t *a = NULL, n = 0;
  if (rc == CAIRN_OK) rc = listRows(m, &o, &a, &n);
  CairnSb sb = {0};
  cairnSbStr(&sb, "[");
  for (size_t i = o.offset, k = 0; rc == CAIRN_OK && i < n && k < o.limit; i++, k++) {
    cairn_mem_record r;
    cairnMemRowGet(m, a[i], &r);
    if (k) cairnSbStr(&sb, ",");
    outRecord(&sb, &r, o.embeddings);
  }
  cairnSbStr(&sb, "]");
  cairnFree(a);
  listOptsFree(&o);
  return cairnSbDone(&sb, rc, "mem_list_json", pz, NULL);
}

int cairn_mem_delete_where(cairn_mem *m, const char *zFilter, uint64_t *pnDeleted) {
  if (!m || !zFilter) return cairnErr(CAIRN_MISUSE, "mem_delete_where: NULL argument");
  if (pnDeleted) *pnDeleted = 0;
  ListOpts o;
  memset(&o, 0, sizeof o);
  int rc = CAIRN_OK;
  Json j;
  CAIRN_TRY(cairnJsonParse(&j, zFilter, strlen(zFilter)));
  if (j.a[0].type != JSON_OBJ) rc = cairnErr(CAIRN_MISUSE, "delete: the filter must be a JSON object ({} deletes every memory)");
  int bAll = rc == CAIRN_OK && j.a[0].n == 0;
  cairnJsonFree(&j);
  if (rc == CAIRN_OK && !bAll) {
    rc = cairn_mem_filter_parse(zFilter, &o.f, &o.zArena);
    o.hasFilter = rc == CAIRN_OK;
  }
  size_t *a = NULL, n = 0;
  if (rc == CAIRN_OK) rc = listRows(m, &o, &a, &n);
  uint64_t nDel = 0;
  for (size_t i = 0; rc == CAIRN_OK && i < n; i++) {
    rc = cairn_mem_delete(m, m->aHead[a[i]]);
    nDel++;
  }
  cairnFree(a);
  listOptsFree(&o);
  if (pnDeleted) *pnDeleted = nDel;
  return rc;
}

/* Export: one line per version, oldest first (FORMAT.md "Export"). */
int cairn_mem_export(cairn_mem *m, const char *zOpts, int (*xLine)(void *pArg, const char *zLine, size_t nLine), void *pArg) {
  if (!m || !xLine) return cairnErr(CAIRN_MISUSE, "mem_export: NULL argument");
  ListOpts o;
  int rc = listOpts(zOpts, &o, 1);
  if (rc == CAIRN_OK && !o.order && !o.desc) o.history = 1; /* every version unless asked otherwise: a round trip keeps history */
  size_t *a = NULL, n = 0;
  if (rc == CAIRN_OK) rc = listRows(m, &o, &a, &n);
  for (size_t i = o.offset, k = 0; rc == CAIRN_OK && i < n && k < o.limit; i++, k++) {
    cairn_mem_record r;
    cairnMemRowGet(m, a[i], &r);
    CairnSb sb = {0};
    outRecord(&sb, &r, o.embeddings);
    char *z = NULL;
    size_t nz = 0;
    rc = cairnSbDone(&sb, CAIRN_OK, "mem_export: line", &z, &nz);
    if (rc == CAIRN_OK) rc = xLine(pArg, z, nz);
    cairnFree(z);
  }
  cairnFree(a);
  listOptsFree(&o);
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
          if (!strcmp(z, "auto")) q.mode = CAIRN_MEM_AUTO;
          else if (!strcmp(z, "hybrid")) q.mode = CAIRN_MEM_HYBRID;
          else if (!strcmp(z, "vector")) q.mode = CAIRN_MEM_VECTOR;
          else if (!strcmp(z, "bm25")) q.mode = CAIRN_MEM_BM25;
          else rc = cairnErr(CAIRN_MISUSE, "'mode' must be 'auto', 'hybrid', 'vector' or 'bm25', not '%s'", z);
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
      else if (!strcmp(zKey, "asOf")) rc = jNum(&j, v, zKey, 1, 9e15, &d), q.asOfMs = (int64_t)d;
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
                                    "halfLifeHours, now, asOf, index, nprobe, rerank, k1, b, embedding, touch)", zKey);
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
      cairnMemRowGet(m, (size_t)aHit[i].version - 1, &r); /* the version that matched */
      cairnSbStr(&o, i ? ",{\"id\":" : "{\"id\":");
      cairnSbI64(&o, (int64_t)aHit[i].id);
      cairnSbStr(&o, ",\"version\":"), cairnSbU64(&o, aHit[i].version);
      cairnSbStr(&o, ",\"score\":"), outFloat(&o, aHit[i].score);
      cairnSbStr(&o, ",\"vscore\":"), outFloat(&o, aHit[i].vscore);
      cairnSbStr(&o, ",\"bscore\":"), outFloat(&o, aHit[i].bscore);
      cairnSbStr(&o, ",\"text\":"), outJsonStr(&o, r.zText);
      if (r.zUser) cairnSbStr(&o, ",\"user\":"), outJsonStr(&o, r.zUser);
      if (r.zAgent) cairnSbStr(&o, ",\"agent\":"), outJsonStr(&o, r.zAgent);
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

/* ------------------------------------------------------------------ import */
/* One line of an import, checked: its record (strings point into j) and export fields. */
typedef struct ImpLine {
  Json j;
  cairn_mem_record r;
  float *aEmb;
  char *zMeta;
  MemLine x;
} ImpLine;
static void impLineFree(ImpLine *l) {
  cairnJsonFree(&l->j);
  cairnFree(l->aEmb), cairnFree(l->zMeta);
  memset(l, 0, sizeof *l);
}
static int impLineParse(cairn_mem *m, const char *z, size_t n, ImpLine *l) {
  memset(l, 0, sizeof *l);
  CAIRN_TRY(cairnJsonParse(&l->j, z, n));
  unsigned f = 0;
  /* the record's strings are NUL-terminated in the JSON arena; metadata is copied */
  char *zc = cairnMalloc(n + 1);
  if (!zc) return cairnErr(CAIRN_NOMEM, "out of memory");
  memcpy(zc, z, n), zc[n] = 0;
  int rc = jsonRecord(&l->j, 0, zc, &l->r, &f, &l->aEmb, &l->zMeta, &l->x);
  cairnFree(zc);
  if (rc == CAIRN_OK && !l->r.zText) rc = cairnErr(CAIRN_MISUSE, "'text' is required");
  if (rc == CAIRN_OK && (l->x.version && !l->x.id)) rc = cairnErr(CAIRN_MISUSE, "'version' without 'id'");
  if (rc == CAIRN_OK && l->x.id && l->x.version && l->x.id > l->x.version) rc = cairnErr(CAIRN_MISUSE, "'id' %llu after its 'version' %llu", (unsigned long long)l->x.id, (unsigned long long)l->x.version);
  MemAddArgs a;
  if (rc == CAIRN_OK) rc = cairnMemPrepare(m, &l->r, &a, "memory");
  return rc;
}

/* Map of an export's ids to the store's (pairs sorted by the export's version ids). */
typedef struct IdMap {
  uint64_t *a; /* old, new pairs */
  size_t n, nAlloc;
} IdMap;
static uint64_t idMapGet(const IdMap *p, uint64_t old) {
  size_t lo = 0, hi = p->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p->a[2 * mid] < old) lo = mid + 1;
    else hi = mid;
  }
  return lo < p->n && p->a[2 * lo] == old ? p->a[2 * lo + 1] : 0;
}

int cairn_mem_import_jsonl(cairn_mem *m, const char *z, size_t n, uint64_t *pnImported) {
  if (!m || (!z && n)) return cairnErr(CAIRN_MISUSE, "mem_import: NULL argument");
  if (pnImported) *pnImported = 0;
  if (m->readOnly) return cairnErr(CAIRN_READONLY, "mem_import: store opened read-only");
  int bKeepIds = m->n == 0; /* an empty store keeps the export's ids (forgotten ones stay gaps) */
  int rc = CAIRN_OK;
  uint64_t lastVer = 0, nImp = 0;
  IdMap map = {0};
  /* pass 0 checks every line (nothing is applied if one fails), pass 1 applies */
  for (int pass = 0; pass < 2 && rc == CAIRN_OK; pass++) {
    long line = 0;
    lastVer = 0;
    map.n = 0;
    uint64_t nNext = m->n; /* rows the store will have before this line (pass 0: simulated) */
    for (size_t i = 0; i < n && rc == CAIRN_OK;) {
      size_t e = i;
      while (e < n && z[e] != '\n') e++;
      line++;
      size_t b = i;
      while (b < e && (z[b] == ' ' || z[b] == '\t' || z[b] == '\r')) b++;
      i = e + 1;
      if (b == e) continue;
      ImpLine l;
      rc = impLineParse(m, z + b, e - b, &l);
      uint64_t head = 0;
      if (rc == CAIRN_OK && l.x.version) {
        if (l.x.version <= lastVer) rc = cairnErr(CAIRN_MISUSE, "'version' %llu is not after the line before's", (unsigned long long)l.x.version);
        else if (l.x.id != l.x.version && !(head = idMapGet(&map, l.x.id)))
          rc = cairnErr(CAIRN_MISUSE, "version %llu of memory %llu comes before its first version", (unsigned long long)l.x.version,
                        (unsigned long long)l.x.id);
        lastVer = l.x.version;
      }
      if (rc == CAIRN_OK && pass == 1 && bKeepIds && l.x.version)
        while (m->n + 1 < l.x.version && rc == CAIRN_OK) { /* a forgotten memory of the export */
          MemAddArgs t;
          memset(&t, 0, sizeof t);
          t.flags = MEM_ROW_DEAD;
          rc = cairnMemAddArgs(m, &t);
        }
      if (pass == 0 && bKeepIds && l.x.version && nNext + 1 < l.x.version) nNext = l.x.version - 1;
      if (rc == CAIRN_OK && pass == 1) {
        MemAddArgs a;
        rc = cairnMemPrepare(m, &l.r, &a, "memory");
        if (rc == CAIRN_OK) {
          a.head = head, a.from = l.x.validFrom, a.to = l.x.validTo;
          a.access = l.x.access >= 0 ? (uint32_t)l.x.access : 0;
          rc = cairnMemAddArgs(m, &a);
        }
        nImp += rc == CAIRN_OK;
      }
      nNext++;
      if (rc == CAIRN_OK && l.x.version) {
        size_t nA = map.nAlloc;
        rc = cairnArrayReserve(&map.a, &nA, 2 * (map.n + 1), 8, 256, "import: ids");
        map.nAlloc = nA;
        if (rc == CAIRN_OK) map.a[2 * map.n] = l.x.version, map.a[2 * map.n + 1] = pass ? m->n : nNext, map.n++;
      }
      impLineFree(&l);
      if (rc) {
        char zMsg[400];
        cairnFormat(zMsg, sizeof zMsg, "%s", cairn_errmsg());
        rc = cairnErr(rc, "mem_import: line %lld: %s%s", (long long)line, zMsg, pass ? "" : " (nothing was imported)");
      }
    }
  }
  cairnFree(map.a);
  if (pnImported) *pnImported = nImp;
  return rc;
}
