/*
** 2026-12-02
**
** core/mem/store_filter.c - filters of the memory store: parsing a JSON filter into
** cairn_mem_filter, and the row bitmap a filter selects (session, role, tier, time, metadata).
*/
#include <math.h>

#include "mem_int.h"

/* ------------------------------------------------------------------ filters */
int cairn_mem_filter_parse(const char *zJson, cairn_mem_filter *pf, char **pzArena) {
  if (!zJson || !pf || !pzArena) return cairnErr(CAIRN_MISUSE, "filter_parse: NULL argument");
  memset(pf, 0, sizeof(*pf));
  *pzArena = NULL;
  Json j;
  CAIRN_TRY(cairnJsonParse(&j, zJson, strlen(zJson)));
  int rc = CAIRN_OK;
  if (j.a[0].type != JSON_OBJ) rc = cairnErr(CAIRN_MISUSE, "filter: must be a JSON object");
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

/* Build the row bitmap of a filter; *pAll set when it admits every row (no bitmap then). */
int cairnMemFilterBits(cairn_mem *m, const cairn_mem_filter *pf, MemBits *pb, int *pAll) {
  memset(pb, 0, sizeof(*pb));
  *pAll = 1;
  if (!pf) return CAIRN_OK;
  if (!pf->zSession && !pf->zRole && !pf->tierMask && !pf->hasAfter && !pf->hasBefore && !pf->zMetaKey) return CAIRN_OK;
  if (!pf->zMetaKey != !pf->zMetaJson) return cairnErr(CAIRN_MISUSE, "filter: zMetaKey and zMetaJson go together");
  *pAll = 0;
  uint32_t sid = UINT32_MAX, rid = UINT32_MAX;
  int noneSession = 0, noneRole = 0;
  if (pf->zSession) {
    uint32_t id;
    if (cairnMemNamesFind(&m->names, pf->zSession, strlen(pf->zSession), &id, 0) == CAIRN_OK) sid = id + 1;
    else noneSession = 1;
  }
  if (pf->zRole) {
    uint32_t id;
    if (cairnMemNamesFind(&m->names, pf->zRole, strlen(pf->zRole), &id, 0) == CAIRN_OK) rid = id + 1;
    else noneRole = 1;
  }
  Json jv;
  memset(&jv, 0, sizeof jv);
  if (pf->zMetaKey) CAIRN_TRY(cairnJsonParse(&jv, pf->zMetaJson, strlen(pf->zMetaJson)));
  pb->n = m->n;
  pb->a = cairnMallocZero(((m->n + 63) / 64 + 1) * 8);
  if (!pb->a) {
    cairnJsonFree(&jv);
    return cairnErr(CAIRN_NOMEM, "filter: bitmap of %zu rows", m->n);
  }
  if (noneSession || noneRole) {
    cairnJsonFree(&jv);
    return CAIRN_OK; /* a name nobody used: no row matches */
  }
  int rc = CAIRN_OK;
  for (size_t r = 0; r < m->n; r++) {
    if (sid != UINT32_MAX && m->aSession[r] != sid) continue;
    if (rid != UINT32_MAX && m->aRole[r] != rid) continue;
    if (pf->tierMask && !((pf->tierMask >> m->aTier[r]) & 1)) continue;
    if (pf->hasAfter && m->aEvent[r] < pf->afterMs) continue;
    if (pf->hasBefore && m->aEvent[r] >= pf->beforeMs) continue;
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
  cairnJsonFree(&jv);
  if (rc) {
    cairnFree(pb->a);
    pb->a = NULL;
  }
  return rc;
}

