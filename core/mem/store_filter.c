/*
** 2026-12-02
**
** core/mem/store_filter.c - filters of the memory store: parsing a JSON filter into
** cairn_mem_filter, and the row bitmap a filter selects (session, role, tier, time, metadata).
*/
#include <math.h>

#include "mem_int.h"

static int isOpObject(const Json *j, uint32_t v);
static int checkExpr(const Json *j, uint32_t v, int *pMeta);

/* ------------------------------------------------------------------ filters */
int cairn_mem_filter_parse(const char *zJson, cairn_mem_filter *pf, char **pzArena) {
  if (!zJson || !pf || !pzArena) return cairnErr(CAIRN_MISUSE, "filter_parse: NULL argument");
  memset(pf, 0, sizeof(*pf));
  *pzArena = NULL;
  Json j;
  CAIRN_TRY(cairnJsonParse(&j, zJson, strlen(zJson)));
  int rc = CAIRN_OK;
  if (j.a[0].type != JSON_OBJ) rc = cairnErr(CAIRN_MISUSE, "filter: must be a JSON object");
  /* The filter language (below) unless every member is one of the first filter's (session,
  ** role, tier, after, before, meta with one key) without an operator object: those keep
  ** their struct fields and their errors. */
  int legacy = rc == CAIRN_OK;
  for (uint32_t k = rc ? 0 : cairnJsonChild(&j, 0); k && legacy; k = j.a[j.a[k].next].next) {
    const char *zKey = j.a[k].z;
    uint32_t v = j.a[k].next;
    if (strcmp(zKey, "session") && strcmp(zKey, "role") && strcmp(zKey, "tier") && strcmp(zKey, "after") && strcmp(zKey, "before") && strcmp(zKey, "meta"))
      legacy = 0;
    else if (isOpObject(&j, v)) legacy = 0;
    else if (!strcmp(zKey, "meta") && j.a[v].type == JSON_OBJ && j.a[v].n == 2 && isOpObject(&j, j.a[cairnJsonChild(&j, v)].next)) legacy = 0;
  }
  if (rc == CAIRN_OK && !legacy) {
    int meta = 0;
    rc = checkExpr(&j, 0, &meta);
    char *z = rc ? NULL : cairnMalloc(strlen(zJson) + 1);
    if (!rc && !z) rc = cairnErr(CAIRN_NOMEM, "filter: out of memory");
    cairnJsonFree(&j);
    if (rc) return rc;
    memcpy(z, zJson, strlen(zJson) + 1);
    pf->zExpr = z;
    *pzArena = z;
    return CAIRN_OK;
  }
  /* arena: copies of the strings we keep (the JSON is freed below) */
  size_t nArena = 0;
  for (uint32_t i = 0; i < j.n; i++) nArena += j.a[i].type == JSON_STR ? 6 * (size_t)j.a[i].nz + 3 : 0;
  nArena += strlen(zJson) + 64;
  char *z = cairnMalloc(nArena), *zEnd = z;
  if (!z && rc == CAIRN_OK) rc = cairnErr(CAIRN_NOMEM, "filter: out of memory");
  for (uint32_t k = rc ? 0 : cairnJsonChild(&j, 0); k && rc == CAIRN_OK;) {
    uint32_t v = j.a[k].next;
    const char *zKey = j.a[k].z;
    const JsonNode *pv = &j.a[v];
    if (!strcmp(zKey, "session") || !strcmp(zKey, "role")) {
      if (pv->type != JSON_STR) {
        rc = cairnErr(CAIRN_MISUSE, "filter: '%s' must be a string", zKey);
        break;
      }
      memcpy(zEnd, pv->z, pv->nz + 1);
      if (zKey[0] == 's') pf->zSession = zEnd;
      else pf->zRole = zEnd;
      zEnd += pv->nz + 1;
    } else if (!strcmp(zKey, "tier")) {
      uint32_t first = pv->type == JSON_ARR ? cairnJsonChild(&j, v) : v, nItem = pv->type == JSON_ARR ? pv->n : 1;
      if (pv->type == JSON_ARR && nItem == 0) {
        rc = cairnErr(CAIRN_MISUSE, "filter: 'tier' list is empty");
        break;
      }
      for (uint32_t x = first, c = 0; c < nItem; c++, x = j.a[x].next) {
        double t = j.a[x].type == JSON_NUM ? j.a[x].num : -1;
        if (t < 0 || t > 31 || t != floor(t)) {
          rc = cairnErr(CAIRN_MISUSE, "filter: 'tier' must be an integer 0..31 or a list of them");
          break;
        }
        pf->tierMask |= 1u << (int)t;
      }
    } else if (!strcmp(zKey, "after") || !strcmp(zKey, "before")) {
      if (pv->type != JSON_NUM || !(fabs(pv->num) < 9.2e18)) {
        rc = cairnErr(CAIRN_MISUSE, "filter: '%s' must be a time in ms since 1970", zKey);
        break;
      }
      if (zKey[0] == 'a') pf->afterMs = (int64_t)pv->num, pf->hasAfter = 1;
      else pf->beforeMs = (int64_t)pv->num, pf->hasBefore = 1;
    } else if (!strcmp(zKey, "meta")) {
      if (pv->type != JSON_OBJ || pv->n != 2) {
        rc = cairnErr(CAIRN_MISUSE, "filter: 'meta' must be an object with exactly one key");
        break;
      }
      uint32_t mk = cairnJsonChild(&j, v);
      memcpy(zEnd, j.a[mk].z, j.a[mk].nz + 1);
      pf->zMetaKey = zEnd;
      zEnd += j.a[mk].nz + 1;
      /* re-serialise the value: find its source text by re-parsing is overkill; values of
      ** scalars are enough for equality, objects/arrays compare structurally */
      uint32_t mv = j.a[mk].next;
      const JsonNode *n = &j.a[mv];
      char *o = zEnd;
      if (n->type == JSON_STR) {
        /* JSON-encode the decoded string */
        *o++ = '"';
        for (uint32_t c = 0; c < n->nz; c++) {
          unsigned char ch = (unsigned char)n->z[c];
          if (ch == '"' || ch == '\\') *o++ = '\\', *o++ = (char)ch;
          else if (ch < 0x20) {
            static const char hex[] = "0123456789abcdef";
            *o++ = '\\', *o++ = 'u', *o++ = '0', *o++ = '0', *o++ = hex[ch >> 4], *o++ = hex[ch & 15];
          }
          else *o++ = (char)ch;
        }
        *o++ = '"';
      } else if (n->type == JSON_NUM) {
        o += cairnFormat(o, 32, "%lld", (long long)n->num);
        if ((double)(long long)n->num != n->num) {
          rc = cairnErr(CAIRN_UNSUPPORTED, "filter: meta values must be strings, integers, booleans or null");
          break;
        }
      } else if (n->type <= JSON_TRUE) {
        const char *zl = n->type == JSON_NULL ? "null" : n->type == JSON_TRUE ? "true" : "false";
        memcpy(o, zl, strlen(zl));
        o += strlen(zl);
      } else {
        rc = cairnErr(CAIRN_UNSUPPORTED, "filter: meta values must be strings, integers, booleans or null");
        break;
      }
      *o++ = 0;
      pf->zMetaJson = zEnd;
      zEnd = o;
    } else {
      rc = cairnErr(CAIRN_MISUSE, "filter: unknown field '%s' (session, role, tier, after, before, meta)", zKey);
      break;
    }
    k = j.a[v].next;
  }
  cairnJsonFree(&j);
  if (rc) {
    cairnFree(z);
    memset(pf, 0, sizeof(*pf));
    return rc;
  }
  *pzArena = z;
  return CAIRN_OK;
}

/* Is row r visible: current (asOf 0) or valid at asOf, and never forgotten. */
static int rowVisible(const cairn_mem *m, size_t r, int64_t asOf) {
  if (!asOf) return memRowLive(m, r);
  return !(m->aFlags[r] & MEM_ROW_DEAD) && m->aFrom[r] <= asOf && (m->aTo[r] == 0 || m->aTo[r] > asOf);
}
static int nameOf(cairn_mem *m, const char *z, uint32_t *pId) {
  uint32_t id;
  if (!z) return 1;
  if (cairnMemNamesFind(&m->names, z, strlen(z), &id, 0) == CAIRN_OK) {
    *pId = id + 1;
    return 1;
  }
  cairn_clearerr();
  return 0;
}

/* Build the row bitmap of a filter; *pAll set when it admits every row (no bitmap then). */
int cairnMemFilterBits(cairn_mem *m, const cairn_mem_filter *pf, int64_t asOf, MemBits *pb, int *pAll) {
  memset(pb, 0, sizeof(*pb));
  *pAll = 1;
  int bFilter = pf && (pf->zSession || pf->zRole || pf->zUser || pf->zAgent || pf->tierMask || pf->hasAfter || pf->hasBefore || pf->zMetaKey || pf->zExpr);
  if (!bFilter && !asOf && m->nNotLive == 0) return CAIRN_OK;
  if (pf && !pf->zMetaKey != !pf->zMetaJson) return cairnErr(CAIRN_MISUSE, "filter: zMetaKey and zMetaJson go together");
  *pAll = 0;
  pb->n = m->n;
  pb->a = cairnMallocZero(((m->n + 63) / 64 + 1) * 8);
  if (!pb->a) return cairnErr(CAIRN_NOMEM, "filter: bitmap of %zu rows", m->n);
  if (!bFilter) {
    if (!asOf) memcpy(pb->a, m->aLive, ((m->n + 63) / 64) * 8);
    else
      for (size_t r = 0; r < m->n; r++)
        if (rowVisible(m, r, asOf)) pb->a[r >> 6] |= 1ull << (r & 63);
    return CAIRN_OK;
  }
  uint32_t sid = UINT32_MAX, rid = UINT32_MAX, uid = UINT32_MAX, aid = UINT32_MAX;
  if (!nameOf(m, pf->zSession, &sid) || !nameOf(m, pf->zRole, &rid) || !nameOf(m, pf->zUser, &uid) || !nameOf(m, pf->zAgent, &aid))
    return CAIRN_OK; /* a name nobody used: no row matches */
  Json jv;
  memset(&jv, 0, sizeof jv);
  int rc = CAIRN_OK;
  if (pf->zMetaKey) rc = cairnJsonParse(&jv, pf->zMetaJson, strlen(pf->zMetaJson));
  MemBits ex;
  memset(&ex, 0, sizeof ex);
  if (rc == CAIRN_OK && pf->zExpr) rc = cairnMemExprBits(m, pf->zExpr, &ex);
  for (size_t r = 0; rc == CAIRN_OK && r < m->n; r++) {
    if (!rowVisible(m, r, asOf)) continue;
    if (sid != UINT32_MAX && m->aSession[r] != sid) continue;
    if (rid != UINT32_MAX && m->aRole[r] != rid) continue;
    if (uid != UINT32_MAX && m->aUser[r] != uid) continue;
    if (aid != UINT32_MAX && m->aAgent[r] != aid) continue;
    if (pf->tierMask && !((pf->tierMask >> m->aTier[r]) & 1)) continue;
    if (pf->hasAfter && m->aEvent[r] < pf->afterMs) continue;
    if (pf->hasBefore && m->aEvent[r] >= pf->beforeMs) continue;
    if (ex.a && !((ex.a[r >> 6] >> (r & 63)) & 1)) continue;
    if (pf->zMetaKey) {
      if (!m->aMetaLen[r]) continue;
      Json jm;
      rc = cairnJsonParse(&jm, m->zText + m->aMetaOff[r], m->aMetaLen[r]);
      if (rc) break;
      uint32_t v = cairnJsonGet(&jm, 0, pf->zMetaKey);
      int eq = v && cairnJsonEqual(&jm, v, &jv, 0);
      cairnJsonFree(&jm);
      if (!eq) continue;
    }
    pb->a[r >> 6] |= 1ull << (r & 63);
  }
  cairnFree(ex.a);
  cairnJsonFree(&jv);
  if (rc) {
    cairnFree(pb->a);
    pb->a = NULL;
  }
  return rc;
}

/* ------------------------------------------------------------------ the filter language */
/*
** A filter is a JSON object whose members all hold (AND). A member is
**   "and": [F, ...]   "or": [F, ...]   "not": F
**   FIELD: VALUE            (equality)
**   FIELD: {OP: VALUE, ...} (every operator holds)
** FIELD: user, agent, session (or run), role (strings); tier, importance, eventMs (or time),
** createdMs, validFromMs, validToMs, id, accessCount (numbers); "meta.a.b" (a path into the
** metadata) or "meta": {"a.b": VALUE or {OP: VALUE}, ...}; and the older after / before (event
** time >= / <). OP: eq ne in nin gt gte lt lte exists contains. A missing metadata key matches ne,
** nin and exists:false only. Checked whole before any row is looked at: an unknown field or
** operator, or a value of the wrong type, is an error naming it.
*/
enum { FK_STR = 1, FK_NUM, FK_META };
typedef struct FVal {
  int type;        /* JSON_* or -1 missing */
  double num;
  const char *z;
  size_t nz;
  const Json *doc; /* meta values: the row's document and node */
  uint32_t node;
} FVal;
typedef struct FCtx {
  cairn_mem *m;
  const Json *jf;
  size_t r;
  Json meta;       /* row r's metadata, parsed once per row when the filter has meta fields */
  int metaRow;     /* the row meta holds + 1 (0 none) */
  int rc;
} FCtx;

static const char *const azStrField[] = {"user", "agent", "session", "run", "role"};
static const char *const azNumField[] = {"tier", "importance", "eventMs", "time", "createdMs", "validFromMs", "validToMs", "id", "accessCount"};
static const char *const azOp[] = {"eq", "ne", "in", "nin", "gt", "gte", "lt", "lte", "exists", "contains"};
static int fieldKind(const char *z) {
  for (size_t i = 0; i < sizeof azStrField / sizeof *azStrField; i++)
    if (!strcmp(z, azStrField[i])) return FK_STR;
  for (size_t i = 0; i < sizeof azNumField / sizeof *azNumField; i++)
    if (!strcmp(z, azNumField[i])) return FK_NUM;
  if (!strncmp(z, "meta.", 5) && z[5]) return FK_META;
  return 0;
}
static int opIndex(const char *z) {
  for (int i = 0; i < 10; i++)
    if (!strcmp(z, azOp[i])) return i;
  return -1;
}
/* an object is an operator object when one of its keys is an operator (then all must be); an
** object without one is a value (metadata equality) */
static int isOpObject(const Json *j, uint32_t v) {
  if (j->a[v].type != JSON_OBJ) return 0;
  for (uint32_t k = cairnJsonChild(j, v); k; k = j->a[j->a[k].next].next)
    if (opIndex(j->a[k].z) >= 0) return 1;
  return 0;
}

static int checkValue(const Json *j, uint32_t v, const char *zField, int kind, const char *zOp, int needArr) {
  int t = j->a[v].type;
  if (needArr) {
    if (t != JSON_ARR) return cairnErr(CAIRN_TYPE, "filter: '%s' %s needs an array", zField, zOp);
    for (uint32_t x = cairnJsonChild(j, v); x; x = j->a[x].next) CAIRN_TRY(checkValue(j, x, zField, kind, zOp, 0));
    return CAIRN_OK;
  }
  if (kind == FK_STR && t != JSON_STR) return cairnErr(CAIRN_TYPE, "filter: '%s' %s needs a string", zField, zOp);
  if (kind == FK_NUM && t != JSON_NUM) return cairnErr(CAIRN_TYPE, "filter: '%s' %s needs a number", zField, zOp);
  return CAIRN_OK;
}
static int checkCond(const Json *j, uint32_t v, const char *zField, int kind) {
  if (!isOpObject(j, v)) {
    if (kind != FK_META && j->a[v].type == JSON_ARR && !strcmp(zField, "tier")) return checkValue(j, v, zField, kind, "in", 1);
    return checkValue(j, v, zField, kind, "eq", 0);
  }
  for (uint32_t k = cairnJsonChild(j, v); k; k = j->a[j->a[k].next].next) {
    uint32_t x = j->a[k].next;
    int op = opIndex(j->a[k].z);
    if (op < 0) return cairnErr(CAIRN_MISUSE, "filter: unknown operator '%s' for '%s' (eq ne in nin gt gte lt lte exists contains)", j->a[k].z, zField);
    if (op == 8) {
      if (j->a[x].type != JSON_TRUE && j->a[x].type != JSON_FALSE) return cairnErr(CAIRN_TYPE, "filter: '%s' exists needs true or false", zField);
    } else if (op == 9) {
      if (kind == FK_NUM) return cairnErr(CAIRN_TYPE, "filter: '%s' is a number: contains does not apply", zField);
      if (kind == FK_STR) CAIRN_TRY(checkValue(j, x, zField, kind, "contains", 0));
    } else if (op >= 4 && op <= 7 && kind == FK_META && j->a[x].type != JSON_NUM && j->a[x].type != JSON_STR) {
      return cairnErr(CAIRN_TYPE, "filter: '%s' %s needs a number or a string", zField, azOp[op]);
    } else CAIRN_TRY(checkValue(j, x, zField, kind, azOp[op], op == 2 || op == 3));
  }
  return CAIRN_OK;
}
static int checkExpr(const Json *j, uint32_t v, int *pMeta) {
  if (j->a[v].type != JSON_OBJ) return cairnErr(CAIRN_TYPE, "filter: a filter must be a JSON object");
  for (uint32_t k = cairnJsonChild(j, v); k; k = j->a[j->a[k].next].next) {
    uint32_t x = j->a[k].next;
    const char *z = j->a[k].z;
    if (!strcmp(z, "and") || !strcmp(z, "or")) {
      if (j->a[x].type != JSON_ARR) return cairnErr(CAIRN_TYPE, "filter: '%s' needs an array of filters", z);
      for (uint32_t c = cairnJsonChild(j, x); c; c = j->a[c].next) CAIRN_TRY(checkExpr(j, c, pMeta));
    } else if (!strcmp(z, "not")) {
      CAIRN_TRY(checkExpr(j, x, pMeta));
    } else if (!strcmp(z, "after") || !strcmp(z, "before")) {
      if (j->a[x].type != JSON_NUM) return cairnErr(CAIRN_TYPE, "filter: '%s' must be a time in ms since 1970", z);
    } else if (!strcmp(z, "meta")) {
      if (j->a[x].type != JSON_OBJ) return cairnErr(CAIRN_TYPE, "filter: 'meta' must be an object of key: condition");
      for (uint32_t c = cairnJsonChild(j, x); c; c = j->a[j->a[c].next].next) CAIRN_TRY(checkCond(j, j->a[c].next, j->a[c].z, FK_META));
      *pMeta = 1;
    } else {
      int kind = fieldKind(z);
      if (!kind)
        return cairnErr(CAIRN_MISUSE, "filter: unknown field '%s' (user, agent, session, run, role, tier, importance, eventMs, createdMs, "
                                      "validFromMs, validToMs, id, accessCount, meta.PATH, and, or, not, after, before)", z);
      if (kind == FK_META) *pMeta = 1;
      CAIRN_TRY(checkCond(j, x, z, kind));
    }
  }
  return CAIRN_OK;
}

/* The value of a field at row c->r. */
static void fieldValue(FCtx *c, const char *zField, int kind, FVal *v) {
  cairn_mem *m = c->m;
  size_t r = c->r;
  memset(v, 0, sizeof *v);
  v->type = -1;
  if (kind == FK_STR) {
    uint32_t id = zField[0] == 'u' ? m->aUser[r] : zField[0] == 'a' ? m->aAgent[r] : zField[0] == 'r' && zField[1] == 'o' ? m->aRole[r] : m->aSession[r];
    if (id) v->type = JSON_STR, v->z = m->names.z + m->names.aOff[id - 1], v->nz = m->names.aLen[id - 1];
    return;
  }
  if (kind == FK_NUM) {
    v->type = JSON_NUM;
    if (!strcmp(zField, "tier")) v->num = m->aTier[r];
    else if (!strcmp(zField, "importance")) v->num = m->aImp[r];
    else if (!strcmp(zField, "eventMs") || !strcmp(zField, "time")) v->num = (double)m->aEvent[r];
    else if (!strcmp(zField, "createdMs")) v->num = (double)m->aCreated[r];
    else if (!strcmp(zField, "validFromMs")) v->num = (double)m->aFrom[r];
    else if (!strcmp(zField, "validToMs")) v->num = (double)m->aTo[r];
    else if (!strcmp(zField, "id")) v->num = (double)m->aHead[r];
    else v->num = m->aAccess[r];
    return;
  }
  /* meta path: "meta." prefix stripped by the caller when given inside "meta": {...} */
  if ((size_t)c->metaRow != r + 1) {
    cairnJsonFree(&c->meta);
    memset(&c->meta, 0, sizeof c->meta);
    c->metaRow = 0;
    if (m->aMetaLen[r]) {
      int rc = cairnJsonParse(&c->meta, m->zText + m->aMetaOff[r], m->aMetaLen[r]);
      if (rc) {
        c->rc = rc;
        return;
      }
    }
    c->metaRow = (int)(r + 1);
  }
  if (!c->meta.a) return;
  uint32_t node = 0;
  const char *p = zField;
  char key[256];
  while (*p) {
    const char *e = strchr(p, '.');
    size_t k = e ? (size_t)(e - p) : strlen(p);
    if (k >= sizeof key || c->meta.a[node].type != JSON_OBJ) return;
    memcpy(key, p, k), key[k] = 0;
    node = cairnJsonGet(&c->meta, node, key);
    if (!node) return;
    p += k + (e ? 1 : 0);
  }
  const JsonNode *n = &c->meta.a[node];
  v->type = n->type, v->num = n->num, v->z = n->z, v->nz = n->nz, v->doc = &c->meta, v->node = node;
}

static int valEq(const FVal *v, const Json *j, uint32_t x) {
  if (v->type < 0) return 0;
  if (v->doc) return cairnJsonEqual(v->doc, v->node, j, x);
  const JsonNode *n = &j->a[x];
  if (v->type == JSON_STR) return n->type == JSON_STR && n->nz == v->nz && memcmp(n->z, v->z, v->nz) == 0;
  return n->type == JSON_NUM && n->num == v->num;
}
static int valCmp(const FVal *v, const Json *j, uint32_t x, int *pc) {
  const JsonNode *n = &j->a[x];
  if (v->type == JSON_NUM && n->type == JSON_NUM) {
    *pc = v->num < n->num ? -1 : v->num > n->num;
    return 1;
  }
  if (v->type == JSON_STR && n->type == JSON_STR) {
    size_t k = CAIRN_MIN(v->nz, (size_t)n->nz);
    int c = memcmp(v->z, n->z, k);
    *pc = c ? c : (v->nz < n->nz ? -1 : v->nz > n->nz);
    return 1;
  }
  return 0;
}
static int valContains(const FVal *v, const Json *j, uint32_t x) {
  const JsonNode *n = &j->a[x];
  if (v->type == JSON_STR && n->type == JSON_STR) {
    if (n->nz == 0) return 1;
    for (size_t i = 0; i + n->nz <= v->nz; i++)
      if (memcmp(v->z + i, n->z, n->nz) == 0) return 1;
    return 0;
  }
  if (v->type == JSON_ARR && v->doc)
    for (uint32_t e = cairnJsonChild(v->doc, v->node); e; e = v->doc->a[e].next)
      if (cairnJsonEqual(v->doc, e, j, x)) return 1;
  return 0;
}
static int evalCond(FCtx *c, uint32_t x, const char *zField, int kind) {
  const Json *j = c->jf;
  FVal v;
  fieldValue(c, zField, kind, &v);
  if (!isOpObject(j, x)) {
    if (kind == FK_NUM && j->a[x].type == JSON_ARR) {
      for (uint32_t e = cairnJsonChild(j, x); e; e = j->a[e].next)
        if (valEq(&v, j, e)) return 1;
      return 0;
    }
    return valEq(&v, j, x);
  }
  for (uint32_t k = cairnJsonChild(j, x); k; k = j->a[j->a[k].next].next) {
    uint32_t y = j->a[k].next;
    int op = opIndex(j->a[k].z), ok = 0, cmp = 0;
    switch (op) {
      case 0: ok = valEq(&v, j, y); break;
      case 1: ok = !valEq(&v, j, y); break;
      case 2:
      case 3:
        for (uint32_t e = cairnJsonChild(j, y); e && !ok; e = j->a[e].next) ok = valEq(&v, j, e);
        if (op == 3) ok = !ok;
        break;
      case 4: ok = valCmp(&v, j, y, &cmp) && cmp > 0; break;
      case 5: ok = valCmp(&v, j, y, &cmp) && cmp >= 0; break;
      case 6: ok = valCmp(&v, j, y, &cmp) && cmp < 0; break;
      case 7: ok = valCmp(&v, j, y, &cmp) && cmp <= 0; break;
      case 8: ok = (v.type >= 0) == (j->a[y].type == JSON_TRUE); break;
      default: ok = valContains(&v, j, y); break;
    }
    if (!ok) return 0;
  }
  return 1;
}
static int evalExpr(FCtx *c, uint32_t v) {
  const Json *j = c->jf;
  for (uint32_t k = cairnJsonChild(j, v); k && !c->rc; k = j->a[j->a[k].next].next) {
    uint32_t x = j->a[k].next;
    const char *z = j->a[k].z;
    int ok;
    if (!strcmp(z, "and")) {
      ok = 1;
      for (uint32_t e = cairnJsonChild(j, x); e && ok; e = j->a[e].next) ok = evalExpr(c, e);
    } else if (!strcmp(z, "or")) {
      ok = 0;
      for (uint32_t e = cairnJsonChild(j, x); e && !ok; e = j->a[e].next) ok = evalExpr(c, e);
    } else if (!strcmp(z, "not")) ok = !evalExpr(c, x);
    else if (!strcmp(z, "after")) ok = (double)c->m->aEvent[c->r] >= j->a[x].num;
    else if (!strcmp(z, "before")) ok = (double)c->m->aEvent[c->r] < j->a[x].num;
    else if (!strcmp(z, "meta")) {
      ok = 1;
      for (uint32_t e = cairnJsonChild(j, x); e && ok; e = j->a[j->a[e].next].next) ok = evalCond(c, j->a[e].next, j->a[e].z, FK_META);
    } else {
      int kind = fieldKind(z);
      ok = evalCond(c, x, kind == FK_META ? z + 5 : z, kind);
    }
    if (!ok) return 0;
  }
  return 1;
}

int cairnMemExprCheck(const char *zExpr) {
  Json j;
  CAIRN_TRY(cairnJsonParse(&j, zExpr, strlen(zExpr)));
  int meta = 0;
  int rc = checkExpr(&j, 0, &meta);
  cairnJsonFree(&j);
  return rc;
}

int cairnMemExprBits(cairn_mem *m, const char *zExpr, MemBits *pb) {
  memset(pb, 0, sizeof *pb);
  Json j;
  CAIRN_TRY(cairnJsonParse(&j, zExpr, strlen(zExpr)));
  int meta = 0;
  int rc = checkExpr(&j, 0, &meta);
  if (rc == CAIRN_OK) {
    pb->n = m->n;
    pb->a = cairnMallocZero(((m->n + 63) / 64 + 1) * 8);
    if (!pb->a) rc = cairnErr(CAIRN_NOMEM, "filter: bitmap of %zu rows", m->n);
  }
  FCtx c;
  memset(&c, 0, sizeof c);
  c.m = m, c.jf = &j;
  for (size_t r = 0; rc == CAIRN_OK && r < m->n; r++) {
    if (m->aFlags[r] & MEM_ROW_DEAD) continue;
    c.r = r;
    if (evalExpr(&c, 0)) pb->a[r >> 6] |= 1ull << (r & 63);
    rc = c.rc;
  }
  cairnJsonFree(&c.meta);
  cairnJsonFree(&j);
  if (rc) cairnFree(pb->a), memset(pb, 0, sizeof *pb);
  return rc;
}
