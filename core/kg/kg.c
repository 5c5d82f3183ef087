/*
** 2026-12-02
**
** core/kg/kg.c - the knowledge graph's data model: the string pool, entities and their name and
** alias maps, facts with bi-temporal validity and functional predicates, entity resolution
** (normalised names, Levenshtein, trigrams, aliases, embeddings), merges with provenance and
** undo, forgetting a memory, the savepoint that keeps a failed change from touching the graph,
** and the graph queries (neighbours, BFS, shortest path, spreading activation, the subgraph at a
** time, the temporal index).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kg/kg_int.h"

enum {
  U_ENT_CANON = 1, U_ENT_TYPE, U_ENT_NALIAS, U_ENT_MEMPOP, U_ENT_MEMINS, U_ENT_EMB, U_FACT_INVALID, U_FACT_EXPIRED,
  U_FACT_REMOVED, U_FACT_SRCPOP, U_FACT_SRCINS, U_PRED_FUNC, U_MENTION_ALIVE, U_SOURCE_ALIVE, U_MERGE_UNDONE,
  U_LIVE_MERGE
};

/* ------------------------------------------------------------------ small helpers */
int cairnKgListAdd(KgList *l, uint64_t v) {
  CAIRN_TRY(CAIRN_GROW(l->a, l->cap, l->n + 1, "graph list"));
  l->a[l->n++] = v;
  return CAIRN_OK;
}
static int listHas(const KgList *l, uint64_t v) {
  for (uint32_t i = 0; i < l->n; i++)
    if (l->a[i] == v) return 1;
  return 0;
}
static int listRemove(KgList *l, uint64_t v) {
  for (uint32_t i = 0; i < l->n; i++)
    if (l->a[i] == v) {
      memmove(l->a + i, l->a + i + 1, (l->n - i - 1) * sizeof(uint64_t));
      l->n--;
      return 1;
    }
  return 0;
}
static int dirtyAdd(KgDirty *d, size_t i) {
  CAIRN_TRY(CAIRN_GROW(d->a, d->cap, d->n + 1, "graph dirty rows"));
  d->a[d->n++] = (uint32_t)i;
  return CAIRN_OK;
}
static int undo(cairn_kg *g, int kind, uint32_t i, int64_t old) {
  if (!g->inTxn) return CAIRN_OK;
  CAIRN_TRY(CAIRN_GROW(g->aUndo, g->capUndo, g->nUndo + 1, "graph undo log"));
  g->aUndo[g->nUndo++] = (KgUndo){kind, i, old};
  return CAIRN_OK;
}
static int64_t nowMs(void) { return cairnClock(0) / 1000000; }
static void stale(cairn_kg *g) { g->adjStale = g->validStale = 1; }

int cairnKgPoolAdd(cairn_kg *g, const char *z, size_t n, uint32_t *pOff) {
  CAIRN_RETURN_ERROR_IF(g->nPool + n + 1 > UINT32_MAX - 1, CAIRN_LIMIT, "graph string pool full (4 GiB)");
  CAIRN_TRY(CAIRN_GROW(g->pool, g->capPool, g->nPool + n + 1, "graph strings"));
  memcpy(g->pool + g->nPool, z, n);
  g->pool[g->nPool + n] = 0;
  *pOff = (uint32_t)g->nPool;
  g->nPool += n + 1;
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ names */
size_t cairn_kg_normalize(const char *zName, char *zOut, size_t nOut) {
  size_t n = 0;
  int space = 1;
  if (!zOut || nOut == 0) return 0;
  if (!zName) zName = "";
  for (const unsigned char *p = (const unsigned char *)zName; *p && n + 1 < nOut; p++) {
    unsigned c = *p;
    if (c >= 'A' && c <= 'Z') c += 32;
    if (c == 0xC3 && p[1] >= 0x80 && p[1] <= 0x9E && p[1] != 0x97 && n + 2 < nOut) { /* Latin-1 capitals */
      zOut[n++] = (char)0xC3, zOut[n++] = (char)(p[1] + 0x20), p++, space = 0;
      continue;
    }
    int word = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80;
    if (c == '\'' || c == '.') continue; /* O'Neil, Dr. -> oneil, dr */
    if (!word) {
      if (!space) zOut[n++] = ' ', space = 1;
      continue;
    }
    zOut[n++] = (char)c, space = 0;
  }
  while (n && zOut[n - 1] == ' ') n--;
  zOut[n] = 0;
  /* "the beatles" -> "beatles"; "maya s" (from "Maya's") -> "maya" */
  if (n > 4 && !memcmp(zOut, "the ", 4)) memmove(zOut, zOut + 4, n - 3), n -= 4;
  if (n > 2 && zOut[n - 1] == 's' && zOut[n - 2] == ' ') zOut[n -= 2] = 0;
  return n;
}
static int normArg(const char *z, char *zOut, size_t *pn, const char *zWhat) {
  CAIRN_RETURN_ERROR_IF(!z, CAIRN_MISUSE, "graph: no %s", zWhat);
  size_t nRaw = strlen(z);
  CAIRN_RETURN_ERROR_IF(nRaw > CAIRN_KG_MAX_NAME, CAIRN_RANGE, "graph: %s of %zu bytes (at most %d)", zWhat, nRaw,
                        CAIRN_KG_MAX_NAME);
  *pn = cairn_kg_normalize(z, zOut, CAIRN_KG_MAX_NAME + 1);
  CAIRN_RETURN_ERROR_IF(*pn == 0, CAIRN_RANGE, "graph: empty %s '%s'", zWhat, z);
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ string maps */
static uint32_t hashStr(const char *z, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)z[i]) * 16777619u;
  return h;
}
static void mapFree(KgMap *m) {
  cairnFree(m->aKey), cairnFree(m->aVal);
  memset(m, 0, sizeof *m);
}
static uint32_t mapSlot(const cairn_kg *g, const KgMap *m, const char *z, size_t n) {
  uint32_t i = hashStr(z, n) & (m->nSlot - 1);
  while (m->aKey[i] != KG_NIL) {
    const char *k = KG_STR(g, m->aKey[i]);
    if (!strncmp(k, z, n) && k[n] == 0) break; /* strncmp: k may be shorter than n */
    i = (i + 1) & (m->nSlot - 1);
  }
  return i;
}
static uint32_t mapGet(const cairn_kg *g, const KgMap *m, const char *z, size_t n) {
  if (!m->nSlot) return 0;
  uint32_t i = mapSlot(g, m, z, n);
  return m->aKey[i] == KG_NIL ? 0 : m->aVal[i];
}
static int mapPut(cairn_kg *g, KgMap *m, uint32_t zKey, uint32_t val) {
  if ((m->nUsed + 1) * 4 >= m->nSlot * 3) {
    KgMap o = *m;
    uint32_t nSlot = o.nSlot ? o.nSlot * 2 : 64;
    KgMap nw = {cairnMallocArray(nSlot, 4), cairnMallocArray(nSlot, 4), nSlot, 0};
    if (!nw.aKey || !nw.aVal) {
      mapFree(&nw);
      return cairnErr(CAIRN_NOMEM, "graph name map of %u slots", nSlot);
    }
    memset(nw.aKey, 0xff, nSlot * 4u);
    for (uint32_t i = 0; i < o.nSlot; i++)
      if (o.aKey[i] != KG_NIL) {
        const char *k = KG_STR(g, o.aKey[i]);
        uint32_t j = mapSlot(g, &nw, k, strlen(k));
        nw.aKey[j] = o.aKey[i], nw.aVal[j] = o.aVal[i], nw.nUsed++;
      }
    mapFree(m);
    *m = nw;
  }
  const char *k = KG_STR(g, zKey);
  uint32_t i = mapSlot(g, m, k, strlen(k));
  if (m->aKey[i] == KG_NIL) m->nUsed++;
  m->aKey[i] = zKey, m->aVal[i] = val;
  return CAIRN_OK;
}

int cairnKgRebuildMaps(cairn_kg *g) {
  mapFree(&g->mName), mapFree(&g->mAlias), mapFree(&g->mPred);
  for (size_t i = 0; i < g->nEnt; i++) {
    g->aEnt[i].factHead = 0;
    g->aEnt[i].nAlias = 0;
    if (!mapGet(g, &g->mName, KG_STR(g, g->aEnt[i].zNorm), strlen(KG_STR(g, g->aEnt[i].zNorm))))
      CAIRN_TRY(mapPut(g, &g->mName, g->aEnt[i].zNorm, (uint32_t)i + 1));
  }
  for (size_t i = 0; i < g->nAlias; i++) {
    CAIRN_TRY(mapPut(g, &g->mAlias, g->aAlias[i].zNorm, g->aAlias[i].ent));
    g->aEnt[g->aAlias[i].ent - 1].nAlias++;
  }
  for (size_t i = 0; i < g->nPred; i++) CAIRN_TRY(mapPut(g, &g->mPred, g->aPred[i].zName, (uint32_t)i + 1));
  g->nLiveMerge = 0;
  for (size_t i = 0; i < g->nMerge; i++) g->nLiveMerge += !g->aMerge[i].undone;
  for (size_t i = 0; i < g->nFact; i++) {
    KgEnt *e = &g->aEnt[g->aFact[i].subj - 1];
    g->aFact[i].nextSubj = e->factHead;
    e->factHead = (uint32_t)i + 1;
  }
  stale(g);
  g->timeStale = 1;
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ savepoint */
int cairnKgBegin(cairn_kg *g) {
  CAIRN_RETURN_ERROR_IF(g->flags & CAIRN_KG_READONLY, CAIRN_READONLY, "graph opened read-only");
  if (g->inTxn++) return CAIRN_OK;
  size_t a[10] = {g->nPool, g->nEnt, g->nFact, g->nPred, g->nAlias, g->nMention, g->nSource, g->nTime, g->nMerge, g->nEmb};
  memcpy(g->sp, a, sizeof a);
  g->nUndo = 0;
  return CAIRN_OK;
}
static void rollback(cairn_kg *g) {
  for (size_t i = g->sp[1]; i < g->nEnt; i++) cairnFree(g->aEnt[i].mem.a);
  for (size_t i = g->sp[2]; i < g->nFact; i++) cairnFree(g->aFact[i].src.a);
  for (size_t i = g->sp[9]; i < g->nEmb; i++) cairnFree(g->aEmb[i].a);
  if (g->nTriEnt > g->sp[1]) g->nTriEnt = g->sp[1], g->nTri = g->nTriEnt ? g->aTriStart[g->nTriEnt] : 0;
  g->nPool = g->sp[0], g->nEnt = g->sp[1], g->nFact = g->sp[2], g->nPred = g->sp[3], g->nAlias = g->sp[4];
  g->nMention = g->sp[5], g->nSource = g->sp[6], g->nTime = g->sp[7], g->nMerge = g->sp[8], g->nEmb = g->sp[9];
  while (g->nUndo) {
    KgUndo u = g->aUndo[--g->nUndo];
    KgEnt *e = u.kind <= U_ENT_EMB && u.i < g->nEnt ? &g->aEnt[u.i] : NULL;
    KgFact *f = u.kind >= U_FACT_INVALID && u.kind <= U_FACT_SRCINS && u.i < g->nFact ? &g->aFact[u.i] : NULL;
    switch (u.kind) {
      case U_ENT_CANON: if (e) e->canon = (uint32_t)u.old; break;
      case U_ENT_TYPE: if (e) e->zType = (uint32_t)u.old; break;
      case U_ENT_MEMPOP: if (e && e->mem.n) e->mem.n--; break;
      case U_ENT_MEMINS: if (e) (void)cairnKgListAdd(&e->mem, (uint64_t)u.old); break;
      case U_ENT_EMB: if (e) e->iEmb = (int32_t)u.old; break;
      case U_FACT_INVALID: if (f) f->invalidAt = u.old; break;
      case U_FACT_EXPIRED: if (f) f->expiredAt = u.old; break;
      case U_FACT_REMOVED: if (f) f->removed = (uint32_t)u.old; break;
      case U_FACT_SRCPOP: if (f && f->src.n) f->src.n--; break;
      case U_FACT_SRCINS: if (f) (void)cairnKgListAdd(&f->src, (uint64_t)u.old); break;
      case U_PRED_FUNC: if (u.i < g->nPred) g->aPred[u.i].functional = (uint32_t)u.old; break;
      case U_MENTION_ALIVE: if (u.i < g->nMention) g->aMention[u.i].alive = (uint64_t)u.old; break;
      case U_SOURCE_ALIVE: if (u.i < g->nSource) g->aSource[u.i].alive = (uint64_t)u.old; break;
      case U_MERGE_UNDONE: if (u.i < g->nMerge) g->aMerge[u.i].undone = (uint32_t)u.old; break;
      default: break;
    }
  }
  (void)cairnKgRebuildMaps(g); /* only shrinks what it holds: no allocation beyond the old size */
}
void cairnKgEnd(cairn_kg *g, int rc) {
  if (--g->inTxn) return;
  if (rc) {
    char zMsg[512];
    const char *zm = cairn_errmsg();
    size_t n = strlen(zm);
    if (n >= sizeof zMsg) n = sizeof zMsg - 1;
    memcpy(zMsg, zm, n), zMsg[n] = 0;
    rollback(g);
    cairn_seterr(rc, "%s", zMsg);
  }
  g->nUndo = 0;
}
#define KG_BEGIN(g) CAIRN_TRY(cairnKgBegin(g))
#define KG_END(g, rc) (cairnKgEnd((g), (rc)), (rc))

/* ------------------------------------------------------------------ open / close */
int cairn_kg_open(cairn_file *f, unsigned flags, cairn_kg **ppKg) {
  CAIRN_RETURN_ERROR_IF(!ppKg, CAIRN_MISUSE, "cairn_kg_open: ppKg is NULL");
  *ppKg = NULL;
  cairn_kg *g = cairnMallocZero(sizeof *g);
  CAIRN_RETURN_ERROR_IF(!g, CAIRN_NOMEM, "graph handle");
  g->f = f, g->flags = flags;
  stale(g);
  g->timeStale = 1;
  uint32_t off;
  int rc = cairnKgPoolAdd(g, "", 0, &off); /* offset 0 is the empty string */
  if (rc == CAIRN_OK && f) g->bUnread = 1, g->fUnread = f; /* read at the first call that needs it */
  if (rc) {
    g->flags |= CAIRN_KG_READONLY;
    cairn_kg_close(g);
    return rc;
  }
  *ppKg = g;
  return CAIRN_OK;
}

int cairn_kg_open_mem(cairn_mem *m, cairn_file *fOld, unsigned flags, cairn_kg **ppKg) {
  CAIRN_RETURN_ERROR_IF(!ppKg, CAIRN_MISUSE, "cairn_kg_open_mem: ppKg is NULL");
  *ppKg = NULL;
  CAIRN_RETURN_ERROR_IF(!m, CAIRN_MISUSE, "cairn_kg_open_mem: NULL store");
  CAIRN_TRY(cairn_kg_open(NULL, flags, ppKg));
  cairn_kg *g = *ppKg;
  g->bAttached = 1;
  int rc = cairnKgAttach(g, m, fOld); /* kg_mem.c */
  if (rc) {
    *ppKg = NULL;
    cairnKgDetach(g);
    g->flags |= CAIRN_KG_READONLY;
    cairn_kg_close(g);
  }
  return rc;
}

int cairnKgNeed(cairn_kg *g) {
  if (g->rcRead) return cairnErr(g->rcRead, "%s", g->zRead);
  if (!g->bUnread) return CAIRN_OK;
  g->bUnread = 0;
  int rc = g->bAttached ? cairnKgAttachRead(g) : cairnKgLoad(g);
  if (rc) {
    cairnFormat(g->zRead, sizeof g->zRead, "graph: reading /graph: %s", cairn_errmsg());
    g->rcRead = rc, g->flags |= CAIRN_KG_READONLY;
    return cairnErr(rc, "%s", g->zRead);
  }
  return CAIRN_OK;
}

int cairn_kg_commit(cairn_kg *g) {
  CAIRN_RETURN_ERROR_IF(!g, CAIRN_MISUSE, "cairn_kg_commit: NULL graph");
  if (g->bUnread || g->rcRead) return CAIRN_OK; /* never read: nothing changed */
  if (g->flags & CAIRN_KG_READONLY) return CAIRN_OK;
  if (g->bAttached) return g->m && cairnKgPending(g) ? cairn_mem_checkpoint(g->m) : CAIRN_OK;
  if (!g->f) return CAIRN_OK;
  return cairnKgSave(g);
}

int cairn_kg_close(cairn_kg *g) {
  if (!g) return CAIRN_OK;
  int rc = cairn_kg_commit(g);
  cairnKgDetach(g);
  if (g->w) {
    if (rc) cairn_h5w_discard(g->w);
    else rc = cairn_h5w_close(g->w);
  }
  for (size_t i = 0; i < g->nEnt; i++) cairnFree(g->aEnt[i].mem.a);
  for (size_t i = 0; i < g->nFact; i++) cairnFree(g->aFact[i].src.a);
  for (size_t i = 0; i < g->nEmb; i++) cairnFree(g->aEmb[i].a);
  cairnFree(g->pool), cairnFree(g->aEnt), cairnFree(g->aFact), cairnFree(g->aPred), cairnFree(g->aAlias);
  cairnFree(g->aMention), cairnFree(g->aSource), cairnFree(g->aTime), cairnFree(g->aMerge), cairnFree(g->aEmb);
  cairnFree(g->dEnt.a), cairnFree(g->dFact.a), cairnFree(g->dPred.a), cairnFree(g->dMention.a);
  cairnFree(g->dSource.a), cairnFree(g->dMerge.a);
  mapFree(&g->mName), mapFree(&g->mAlias), mapFree(&g->mPred);
  cairnFree(g->aUndo), cairnFree(g->adjStart), cairnFree(g->adjEdge), cairnFree(g->adjOther), cairnFree(g->adjNow);
  cairnFree(g->aTimeOrder), cairnFree(g->aTimeMem), cairnFree(g->aValidOrder), cairnFree(g->aTri), cairnFree(g->aTriStart);
  cairnFree(g->aTimeLo), cairnFree(g->aTimeS);
  cairnFree(g->aMark), cairnFree(g->aQueue), cairnFree(g->aPrev), cairnFree(g->aAct), cairnFree(g->aAct2);
  cairnFree(g);
  return rc;
}

/* ------------------------------------------------------------------ entities */
uint32_t cairn_kg_canon(cairn_kg *g, uint32_t id) {
  if (g && (g->bUnread || g->rcRead) && cairnKgNeed(g)) return 0;
  if (!g || id == 0 || id > g->nEnt) return 0;
  for (int hop = 0; g->aEnt[id - 1].canon && hop < 1 << 20; hop++) id = g->aEnt[id - 1].canon;
  return id;
}
uint32_t cairn_kg_entity_count(cairn_kg *g) { return g && !((g->bUnread || g->rcRead) && cairnKgNeed(g)) ? (uint32_t)g->nEnt : 0; }

int cairnKgEntityFind(cairn_kg *g, const char *zNorm, size_t nNorm, uint32_t *pId) {
  uint32_t id = mapGet(g, &g->mName, zNorm, nNorm);
  if (!id) id = mapGet(g, &g->mAlias, zNorm, nNorm);
  *pId = id ? cairn_kg_canon(g, id) : 0;
  return id ? CAIRN_OK : CAIRN_NOTFOUND;
}

int cairn_kg_find(cairn_kg *g, const char *zName, uint32_t *pId) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g || !pId, CAIRN_MISUSE, "cairn_kg_find: NULL argument");
  char z[CAIRN_KG_MAX_NAME + 1];
  size_t n;
  *pId = 0;
  CAIRN_TRY(normArg(zName, z, &n, "name"));
  if (cairnKgEntityFind(g, z, n, pId)) return cairnErr(CAIRN_NOTFOUND, "graph: no entity named '%s'", zName);
  return CAIRN_OK;
}

static int entityAdd(cairn_kg *g, const char *zName, const char *zType, uint32_t *pId) {
  char z[CAIRN_KG_MAX_NAME + 1];
  size_t n;
  CAIRN_TRY(normArg(zName, z, &n, "entity name"));
  size_t nType = zType ? strlen(zType) : 0;
  CAIRN_RETURN_ERROR_IF(nType > CAIRN_KG_MAX_NAME, CAIRN_RANGE, "graph: type of %zu bytes", nType);
  uint32_t id;
  if (cairnKgEntityFind(g, z, n, &id) == CAIRN_OK) {
    KgEnt *e = &g->aEnt[id - 1];
    if (nType && !KG_STR(g, e->zType)[0]) {
      uint32_t off = 0;
      CAIRN_TRY(cairnKgPoolAdd(g, zType, nType, &off));
      CAIRN_TRY(undo(g, U_ENT_TYPE, id - 1, e->zType));
      CAIRN_TRY(dirtyAdd(&g->dEnt, id - 1));
      e->zType = off;
    }
    *pId = id;
    return CAIRN_OK;
  }
  CAIRN_RETURN_ERROR_IF(g->nEnt >= UINT32_MAX / 2, CAIRN_LIMIT, "graph: too many entities");
  KgEnt e;
  memset(&e, 0, sizeof e);
  e.iEmb = -1;
  CAIRN_TRY(cairnKgPoolAdd(g, zName, strlen(zName), &e.zName));
  CAIRN_TRY(cairnKgPoolAdd(g, z, n, &e.zNorm));
  e.zType = 0;
  if (nType) CAIRN_TRY(cairnKgPoolAdd(g, zType, nType, &e.zType));
  CAIRN_TRY(CAIRN_GROW(g->aEnt, g->capEnt, g->nEnt + 1, "graph entities"));
  g->aEnt[g->nEnt++] = e;
  CAIRN_TRY(mapPut(g, &g->mName, e.zNorm, (uint32_t)g->nEnt));
  g->adjStale = 1;
  *pId = (uint32_t)g->nEnt;
  return CAIRN_OK;
}

int cairn_kg_entity_add(cairn_kg *g, const char *zName, const char *zType, uint32_t *pId) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g, CAIRN_MISUSE, "cairn_kg_entity_add: NULL graph");
  uint32_t id = 0;
  KG_BEGIN(g);
  int rc = entityAdd(g, zName, zType, &id);
  if (pId) *pId = rc ? 0 : id;
  return KG_END(g, rc);
}

int cairn_kg_entity_get(cairn_kg *g, uint32_t id, cairn_kg_entity *p) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g || !p, CAIRN_MISUSE, "cairn_kg_entity_get: NULL argument");
  CAIRN_RETURN_ERROR_IF(id == 0 || id > g->nEnt, CAIRN_NOTFOUND, "graph: no entity %u", id);
  const KgEnt *e = &g->aEnt[id - 1];
  p->id = id, p->canon = cairn_kg_canon(g, id);
  p->zName = KG_STR(g, e->zName), p->zType = KG_STR(g, e->zType);
  p->nAlias = e->nAlias, p->nMention = e->mem.n;
  p->nEmbedding = e->iEmb >= 0 ? g->aEmb[e->iEmb].n : 0;
  return CAIRN_OK;
}

int cairn_kg_alias(cairn_kg *g, uint32_t id, const char *zAlias) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g, CAIRN_MISUSE, "cairn_kg_alias: NULL graph");
  CAIRN_RETURN_ERROR_IF(id == 0 || id > g->nEnt, CAIRN_NOTFOUND, "graph: no entity %u", id);
  char z[CAIRN_KG_MAX_NAME + 1];
  size_t n;
  CAIRN_TRY(normArg(zAlias, z, &n, "alias"));
  uint32_t c = cairn_kg_canon(g, id), other;
  if (cairnKgEntityFind(g, z, n, &other) == CAIRN_OK) {
    if (other == c) return CAIRN_OK;
    return cairnErr(CAIRN_EXISTS, "graph: alias '%s' already names entity %u ('%s'), not %u", zAlias, other,
                    KG_STR(g, g->aEnt[other - 1].zName), c);
  }
  KG_BEGIN(g);
  KgAlias a = {0, 0, c};
  int rc = cairnKgPoolAdd(g, z, n, &a.zNorm);
  if (!rc) rc = cairnKgPoolAdd(g, zAlias, strlen(zAlias), &a.zAlias);
  if (!rc) rc = CAIRN_GROW(g->aAlias, g->capAlias, g->nAlias + 1, "graph aliases");
  if (!rc) rc = undo(g, U_ENT_NALIAS, c - 1, g->aEnt[c - 1].nAlias);
  if (!rc) {
    g->aAlias[g->nAlias++] = a;
    g->aEnt[c - 1].nAlias++;
    rc = mapPut(g, &g->mAlias, a.zNorm, c);
  }
  return KG_END(g, rc);
}

int cairn_kg_alias_at(cairn_kg *g, uint32_t id, uint32_t i, const char **pz) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g || !pz, CAIRN_MISUSE, "cairn_kg_alias_at: NULL argument");
  for (size_t k = 0; k < g->nAlias; k++)
    if (g->aAlias[k].ent == id && i-- == 0) {
      *pz = KG_STR(g, g->aAlias[k].zAlias);
      return CAIRN_OK;
    }
  return cairnErr(CAIRN_NOTFOUND, "graph: entity %u has no alias of that index", id);
}

int cairn_kg_embedding(cairn_kg *g, uint32_t id, const float *a, uint32_t n) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g || !a, CAIRN_MISUSE, "cairn_kg_embedding: NULL argument");
  CAIRN_RETURN_ERROR_IF(id == 0 || id > g->nEnt, CAIRN_NOTFOUND, "graph: no entity %u", id);
  CAIRN_RETURN_ERROR_IF(n == 0 || n > CAIRN_MEM_MAX_DIM, CAIRN_RANGE, "graph: embedding of %u dimensions", n);
  for (uint32_t i = 0; i < n; i++)
    CAIRN_RETURN_ERROR_IF(!isfinite(a[i]), CAIRN_TYPE, "graph: embedding value %u is not finite", i);
  KG_BEGIN(g);
  KgEmb em = {id, n, cairnMallocArray(n, sizeof(float))};
  int rc = em.a ? CAIRN_GROW(g->aEmb, g->capEmb, g->nEmb + 1, "graph embeddings") : cairnErr(CAIRN_NOMEM, "embedding");
  if (!rc) rc = undo(g, U_ENT_EMB, id - 1, g->aEnt[id - 1].iEmb);
  if (!rc) {
    memcpy(em.a, a, n * sizeof(float));
    g->aEnt[id - 1].iEmb = (int32_t)g->nEmb;
    g->aEmb[g->nEmb++] = em;
  } else cairnFree(em.a);
  return KG_END(g, rc);
}

static int mentionAdd(cairn_kg *g, uint32_t id, uint64_t memId) {
  KgEnt *e = &g->aEnt[id - 1];
  if (listHas(&e->mem, memId)) return CAIRN_OK;
  CAIRN_TRY(CAIRN_GROW(g->aMention, g->capMention, g->nMention + 1, "graph mentions"));
  CAIRN_TRY(undo(g, U_ENT_MEMPOP, id - 1, 0));
  CAIRN_TRY(cairnKgListAdd(&e->mem, memId));
  g->aMention[g->nMention++] = (KgRow2){id, memId, 1};
  return CAIRN_OK;
}
int cairn_kg_mention(cairn_kg *g, uint32_t id, uint64_t memId) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g, CAIRN_MISUSE, "cairn_kg_mention: NULL graph");
  CAIRN_RETURN_ERROR_IF(id == 0 || id > g->nEnt, CAIRN_NOTFOUND, "graph: no entity %u", id);
  KG_BEGIN(g);
  int rc = mentionAdd(g, id, memId);
  return KG_END(g, rc);
}

int cairn_kg_mentions(cairn_kg *g, uint32_t id, uint64_t *aOut, uint32_t nMax, uint32_t *pn) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g || !pn || (nMax && !aOut), CAIRN_MISUSE, "cairn_kg_mentions: NULL argument");
  uint32_t c = cairn_kg_canon(g, id), n = 0;
  CAIRN_RETURN_ERROR_IF(!c, CAIRN_NOTFOUND, "graph: no entity %u", id);
  for (size_t i = 0; i < g->nEnt; i++) {
    if (i + 1 != c && (!g->nLiveMerge || cairn_kg_canon(g, (uint32_t)i + 1) != c)) continue;
    for (uint32_t k = 0; k < g->aEnt[i].mem.n; k++, n++)
      if (n < nMax) aOut[n] = g->aEnt[i].mem.a[k];
    if (!g->nLiveMerge) break;
  }
  *pn = n;
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ resolution */
static uint32_t levenshtein(const char *a, size_t na, const char *b, size_t nb) {
  uint32_t row[CAIRN_KG_MAX_NAME + 2];
  if (na > CAIRN_KG_MAX_NAME) na = CAIRN_KG_MAX_NAME;
  if (nb > CAIRN_KG_MAX_NAME) nb = CAIRN_KG_MAX_NAME;
  for (size_t j = 0; j <= nb; j++) row[j] = (uint32_t)j;
  for (size_t i = 1; i <= na; i++) {
    uint32_t diag = row[0];
    row[0] = (uint32_t)i;
    for (size_t j = 1; j <= nb; j++) {
      uint32_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best, diag = up;
    }
  }
  return row[nb];
}
/* Levenshtein distance of a pattern of m <= 64 bytes (its match masks in aPeq) to b[0..nb), bit-
** parallel (Myers 1999, Hyyro's formulation for global distance): one pass of word operations per
** byte of b instead of m cells. Debug builds check it against the table above. */
static uint32_t levenshteinBits(const uint64_t *aPeq, size_t m, const char *b, size_t nb) {
  uint64_t pv = ~0ull, mv = 0, top = 1ull << (m - 1);
  uint32_t d = (uint32_t)m;
  for (size_t j = 0; j < nb; j++) {
    uint64_t eq = aPeq[(uint8_t)b[j]], xv = eq | mv, xh = (((eq & pv) + pv) ^ pv) | eq;
    uint64_t ph = mv | ~(xh | pv), mh = pv & xh;
    if (ph & top) d++;
    else if (mh & top) d--;
    ph = ph << 1 | 1, mh <<= 1;
    pv = mh | ~(xv | ph), mv = ph & xv;
  }
  return d;
}

static int cmpU32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}
static uint32_t trigrams(const char *z, size_t n, uint32_t *a, uint32_t nMax) {
  uint32_t k = 0;
  for (size_t i = 0; i + 1 <= n + 1 && k < nMax; i++) { /* padded: " ab", "abc", ..., "yz " */
    unsigned c0 = i ? (uint8_t)z[i - 1] : ' ', c1 = (uint8_t)z[i], c2 = i + 1 < n ? (uint8_t)z[i + 1] : ' ';
    if (i >= n) break;
    a[k++] = c0 << 16 | c1 << 8 | c2;
  }
  qsort(a, k, sizeof *a, cmpU32);
  uint32_t u = 0;
  for (uint32_t i = 0; i < k; i++)
    if (!u || a[u - 1] != a[i]) a[u++] = a[i];
  return u;
}
static float jaccard(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb) {
  uint32_t i = 0, j = 0, inter = 0;
  while (i < na && j < nb) {
    if (a[i] == b[j]) inter++, i++, j++;
    else if (a[i] < b[j]) i++;
    else j++;
  }
  uint32_t uni = na + nb - inter;
  return uni ? (float)inter / (float)uni : 0;
}
static int wordOf(const char *zShort, size_t ns, const char *zLong) { /* zShort is a whole word of zLong */
  for (const char *p = zLong; (p = strstr(p, zShort)) != NULL; p++)
    if ((p == zLong || p[-1] == ' ') && (p[ns] == 0 || p[ns] == ' ')) return 1;
  return 0;
}

/* The sorted trigram set of entity i's normalised name, cached (names never change; the cache
** grows with the entities and is dropped with the handle). */
static int triCache(cairn_kg *g, size_t i, const uint32_t **ppT, uint32_t *pn) {
  while (g->nTriEnt <= i) {
    size_t e = g->nTriEnt;
    const char *zn = KG_STR(g, g->aEnt[e].zNorm);
    size_t nn = strlen(zn);
    CAIRN_TRY(CAIRN_GROW(g->aTriStart, g->capTriStart, e + 2, "trigram cache"));
    CAIRN_TRY(CAIRN_GROW(g->aTri, g->capTri, g->nTri + nn + 1, "trigram cache"));
    if (e == 0) g->aTriStart[0] = 0;
    g->nTri += trigrams(zn, nn, g->aTri + g->nTri, (uint32_t)nn + 1);
    g->aTriStart[e + 1] = (uint32_t)g->nTri;
    g->nTriEnt++;
  }
  *ppT = g->aTri + g->aTriStart[i];
  *pn = g->aTriStart[i + 1] - g->aTriStart[i];
  return CAIRN_OK;
}

int cairn_kg_resolve(cairn_kg *g, const char *zName, const float *aEmb, uint32_t nEmb, float minScore, cairn_kg_match *aOut,
                     uint32_t nMax, uint32_t *pn) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g || !pn || (nMax && !aOut), CAIRN_MISUSE, "cairn_kg_resolve: NULL argument");
  char z[CAIRN_KG_MAX_NAME + 1];
  size_t n;
  *pn = 0;
  CAIRN_TRY(normArg(zName, z, &n, "name"));
  uint32_t aTq[CAIRN_KG_MAX_NAME + 2], aTe[CAIRN_KG_MAX_NAME + 2];
  uint32_t nTq = trigrams(z, n, aTq, CAIRN_KG_MAX_NAME + 2);
  double qn = 0;
  for (uint32_t i = 0; aEmb && i < nEmb; i++) qn += (double)aEmb[i] * aEmb[i];
  uint64_t aPeq[256];
  int bits = n <= 64;
  if (bits) {
    memset(aPeq, 0, sizeof aPeq);
    for (size_t i = 0; i < n; i++) aPeq[(uint8_t)z[i]] |= 1ull << i;
  }
  uint32_t nOut = 0;
  for (size_t i = 0; i < g->nEnt; i++) {
    const KgEnt *e = &g->aEnt[i];
    if (e->canon) continue;
    const char *zn = KG_STR(g, e->zNorm);
    size_t nn = strlen(zn);
    float best = 0;
    int how = 0;
    if (nn == n && !memcmp(zn, z, n)) best = 1, how = CAIRN_KG_BY_EXACT;
    else {
      size_t mx = nn > n ? nn : n, diff = nn > n ? nn - n : n - nn;
      /* the distance is at least the length difference: skip the DP when even that fails */
      float s = 1.0f - (float)diff / (float)mx;
      if (s >= minScore) {
        uint32_t dist = bits ? levenshteinBits(aPeq, n, zn, nn) : levenshtein(z, n, zn, nn);
        cairnAssert(!bits || dist == levenshtein(z, n, zn, nn));
        s = 1.0f - (float)dist / (float)mx;
        if (s > best) best = s, how = CAIRN_KG_BY_EDIT;
      }
      const uint32_t *aT = NULL;
      uint32_t nT = 0;
      if (triCache(g, i, &aT, &nT) != CAIRN_OK) nT = trigrams(zn, nn, aTe, CAIRN_KG_MAX_NAME + 2), aT = aTe;
      s = jaccard(aTq, nTq, aT, nT);
      if (s > best) best = s, how = CAIRN_KG_BY_TRIGRAM;
      if (best < 0.9f && ((n < nn && wordOf(z, n, zn)) || (nn < n && wordOf(zn, nn, z)))) best = 0.9f, how = CAIRN_KG_BY_TOKEN;
      if (aEmb && e->iEmb >= 0 && g->aEmb[e->iEmb].n == nEmb && qn > 0) {
        const float *b = g->aEmb[e->iEmb].a;
        double dot = 0, bn = 0;
        for (uint32_t k = 0; k < nEmb; k++) dot += (double)aEmb[k] * b[k], bn += (double)b[k] * b[k];
        s = bn > 0 ? (float)(dot / sqrt(qn * bn)) : 0;
        if (s > best) best = s, how = CAIRN_KG_BY_EMBEDDING;
      }
    }
    if (best < minScore) continue;
    cairn_kg_match m = {(uint32_t)i + 1, best, how};
    /* insertion into the sorted top nMax */
    uint32_t at = nOut < nMax ? nOut : nMax;
    while (at > 0 && aOut[at - 1].score < best) at--;
    if (at >= nMax) continue;
    uint32_t last = nOut < nMax ? nOut : nMax - 1;
    memmove(aOut + at + 1, aOut + at, (last - at) * sizeof *aOut);
    aOut[at] = m;
    if (nOut < nMax) nOut++;
  }
  /* aliases: exact hits on an alias rank first */
  uint32_t a = mapGet(g, &g->mAlias, z, n);
  if (a && nMax) {
    uint32_t c = cairn_kg_canon(g, a);
    uint32_t at = 0;
    for (uint32_t i = 0; i < nOut; i++)
      if (aOut[i].id == c) {
        memmove(aOut + i, aOut + i + 1, (nOut - i - 1) * sizeof *aOut);
        nOut--;
        break;
      }
    if (nOut == nMax) nOut--;
    memmove(aOut + at + 1, aOut + at, nOut * sizeof *aOut);
    aOut[0] = (cairn_kg_match){c, 1, CAIRN_KG_BY_ALIAS};
    nOut++;
  }
  *pn = nOut;
  return CAIRN_OK;
}

int cairn_kg_merge(cairn_kg *g, uint32_t from, uint32_t into, const char *zReason, uint32_t *pMerge) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g, CAIRN_MISUSE, "cairn_kg_merge: NULL graph");
  CAIRN_RETURN_ERROR_IF(!from || from > g->nEnt || !into || into > g->nEnt, CAIRN_NOTFOUND, "graph: merge of unknown entity %u or %u",
                        from, into);
  CAIRN_RETURN_ERROR_IF(cairn_kg_canon(g, into) == from || from == into, CAIRN_MISUSE,
                        "graph: merging entity %u into %u would make a cycle", from, into);
  CAIRN_RETURN_ERROR_IF(g->aEnt[from - 1].canon || g->aEnt[into - 1].canon, CAIRN_MISUSE,
                        "graph: merge needs two canonical entities (%u -> %u)", from, into);
  size_t nR = zReason ? strlen(zReason) : 0;
  CAIRN_RETURN_ERROR_IF(nR > CAIRN_KG_MAX_NAME, CAIRN_RANGE, "graph: merge reason of %zu bytes", nR);
  KG_BEGIN(g);
  KgMerge m = {from, into, 0, 0};
  int rc = nR ? cairnKgPoolAdd(g, zReason, nR, &m.zReason) : CAIRN_OK;
  if (!rc) rc = CAIRN_GROW(g->aMerge, g->capMerge, g->nMerge + 1, "graph merges");
  if (!rc) rc = undo(g, U_ENT_CANON, from - 1, 0);
  if (!rc) rc = dirtyAdd(&g->dEnt, from - 1);
  if (!rc) {
    g->aMerge[g->nMerge++] = m;
    g->aEnt[from - 1].canon = into;
    g->nLiveMerge++;
    stale(g);
    if (pMerge) *pMerge = (uint32_t)g->nMerge;
  }
  if (rc) g->nLiveMerge = g->nLiveMerge; /* recomputed by the rollback */
  return KG_END(g, rc);
}

int cairn_kg_unmerge(cairn_kg *g, uint32_t iMerge) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g, CAIRN_MISUSE, "cairn_kg_unmerge: NULL graph");
  CAIRN_RETURN_ERROR_IF(iMerge == 0 || iMerge > g->nMerge, CAIRN_NOTFOUND, "graph: no merge %u", iMerge);
  KgMerge *m = &g->aMerge[iMerge - 1];
  CAIRN_RETURN_ERROR_IF(m->undone || g->aEnt[m->from - 1].canon != m->into, CAIRN_MISUSE,
                        "graph: merge %u is already undone or superseded", iMerge);
  KG_BEGIN(g);
  int rc = undo(g, U_ENT_CANON, m->from - 1, m->into);
  if (!rc) rc = undo(g, U_MERGE_UNDONE, iMerge - 1, 0);
  if (!rc) rc = dirtyAdd(&g->dEnt, m->from - 1);
  if (!rc) rc = dirtyAdd(&g->dMerge, iMerge - 1);
  if (!rc) {
    g->aEnt[m->from - 1].canon = 0;
    m->undone = 1;
    g->nLiveMerge--;
    stale(g);
  }
  return KG_END(g, rc);
}

/* ------------------------------------------------------------------ facts */
int cairnKgPredId(cairn_kg *g, const char *zPred, int bCreate, uint32_t *pId) {
  char z[CAIRN_KG_MAX_NAME + 1];
  size_t n;
  CAIRN_TRY(normArg(zPred, z, &n, "predicate"));
  for (size_t i = 0; i < n; i++)
    if (z[i] == ' ') z[i] = '_';
  uint32_t id = mapGet(g, &g->mPred, z, n);
  if (!id && bCreate) {
    KgPred p = {0, 0};
    CAIRN_TRY(cairnKgPoolAdd(g, z, n, &p.zName));
    CAIRN_TRY(CAIRN_GROW(g->aPred, g->capPred, g->nPred + 1, "graph predicates"));
    g->aPred[g->nPred++] = p;
    CAIRN_TRY(mapPut(g, &g->mPred, p.zName, (uint32_t)g->nPred));
    id = (uint32_t)g->nPred;
  }
  *pId = id;
  return id ? CAIRN_OK : cairnErr(CAIRN_NOTFOUND, "graph: no predicate '%s'", zPred);
}

int cairnKgValidAt(const KgFact *f, int64_t asOf) {
  if (f->removed) return 0;
  if (asOf == CAIRN_KG_ANY) return 1;
  if (asOf == CAIRN_KG_NOW) return f->invalidAt == CAIRN_KG_NONE && f->expiredAt == CAIRN_KG_NONE;
  return (f->validAt == CAIRN_KG_NONE || f->validAt <= asOf) && (f->invalidAt == CAIRN_KG_NONE || asOf < f->invalidAt);
}

static int timeOk(int64_t t) { return t == CAIRN_KG_NONE || (t >= CAIRN_KG_TIME_MIN && t <= CAIRN_KG_TIME_MAX); }

/* Call x(g, factIndex, p) for each fact whose subject is (merged into) canonical entity c. */
static int eachFactOf(cairn_kg *g, uint32_t c, int (*x)(cairn_kg *, size_t, void *), void *p) {
  for (size_t i = 0; i < g->nEnt; i++) {
    uint32_t e = (uint32_t)i + 1;
    if (g->nLiveMerge ? cairn_kg_canon(g, e) != c : e != c) continue;
    for (uint32_t k = g->aEnt[i].factHead; k; k = g->aFact[k - 1].nextSubj) CAIRN_TRY(x(g, k - 1, p));
    if (!g->nLiveMerge) break;
  }
  return CAIRN_OK;
}

typedef struct AddCtx {
  KgFact *pNew;
  uint32_t subj, obj, pred;
  int functional;
  size_t iSame; /* an identical current fact + 1 */
} AddCtx;
static int sameObject(cairn_kg *g, const KgFact *a, uint32_t obj, uint32_t zLit) {
  if (obj || a->obj) return a->obj && obj && cairn_kg_canon(g, a->obj) == cairn_kg_canon(g, obj);
  return !strcmp(KG_STR(g, a->zLit), KG_STR(g, zLit));
}
static int findSame(cairn_kg *g, size_t i, void *p) {
  AddCtx *c = p;
  KgFact *f = &g->aFact[i];
  if (c->iSame || f->removed || f->pred != c->pred) return CAIRN_OK;
  if (f->expiredAt != CAIRN_KG_NONE) return CAIRN_OK;
  if (!sameObject(g, f, c->obj, c->pNew->zLit)) return CAIRN_OK;
  if (c->pNew->validAt != CAIRN_KG_NONE && f->invalidAt != CAIRN_KG_NONE && c->pNew->validAt >= f->invalidAt) return CAIRN_OK;
  c->iSame = i + 1;
  return CAIRN_OK;
}
static int setInvalid(cairn_kg *g, size_t i, int64_t invalidAt, int64_t expiredAt) {
  KgFact *f = &g->aFact[i];
  CAIRN_TRY(undo(g, U_FACT_INVALID, (uint32_t)i, f->invalidAt));
  CAIRN_TRY(undo(g, U_FACT_EXPIRED, (uint32_t)i, f->expiredAt));
  if (i < g->nFactSaved) CAIRN_TRY(dirtyAdd(&g->dFact, i));
  f->invalidAt = invalidAt, f->expiredAt = expiredAt;
  stale(g); /* the adjacency keeps a valid-now bit per edge */
  return CAIRN_OK;
}
static int invalidateOld(cairn_kg *g, size_t i, void *p) {
  AddCtx *c = p;
  KgFact *f = &g->aFact[i], *nw = c->pNew;
  if (f == nw || f->removed || f->pred != c->pred || sameObject(g, f, c->obj, nw->zLit)) return CAIRN_OK;
  if (nw->validAt != CAIRN_KG_NONE && f->validAt != CAIRN_KG_NONE && nw->validAt < f->validAt) {
    /* the new fact is older news: it ended when the next known one began */
    if (nw->invalidAt == CAIRN_KG_NONE || nw->invalidAt > f->validAt) nw->invalidAt = f->validAt;
    return CAIRN_OK;
  }
  if (f->invalidAt != CAIRN_KG_NONE || f->expiredAt != CAIRN_KG_NONE) return CAIRN_OK;
  return setInvalid(g, i, nw->validAt != CAIRN_KG_NONE ? nw->validAt : nw->createdAt, nw->createdAt);
}

static int sourceAdd(cairn_kg *g, size_t iFact, uint64_t memId) {
  KgFact *f = &g->aFact[iFact];
  if (listHas(&f->src, memId)) return CAIRN_OK;
  CAIRN_TRY(CAIRN_GROW(g->aSource, g->capSource, g->nSource + 1, "graph fact sources"));
  if (iFact < g->sp[2]) CAIRN_TRY(undo(g, U_FACT_SRCPOP, (uint32_t)iFact, 0));
  CAIRN_TRY(cairnKgListAdd(&f->src, memId));
  g->aSource[g->nSource++] = (KgRow2){iFact + 1, memId, 1};
  return CAIRN_OK;
}

static int resolveEnd(cairn_kg *g, const char *zName, uint32_t id, uint32_t *pOut, const char *zWhat) {
  if (zName) return entityAdd(g, zName, NULL, pOut);
  CAIRN_RETURN_ERROR_IF(id == 0 || id > g->nEnt, CAIRN_NOTFOUND, "graph: fact %s entity %u does not exist", zWhat, id);
  *pOut = id;
  return CAIRN_OK;
}

static int checkFact(const cairn_kg_fact *f) {
  CAIRN_RETURN_ERROR_IF(!f, CAIRN_MISUSE, "graph: NULL fact");
  CAIRN_RETURN_ERROR_IF(!f->zSubject && !f->subject, CAIRN_MISUSE, "graph: fact without a subject");
  CAIRN_RETURN_ERROR_IF(!f->zPredicate || !f->zPredicate[0], CAIRN_MISUSE, "graph: fact without a predicate");
  CAIRN_RETURN_ERROR_IF(!f->zObject && !f->object && !f->zLiteral, CAIRN_MISUSE,
                        "graph: fact '%s' has no object (neither an entity nor a literal)", f->zPredicate);
  CAIRN_RETURN_ERROR_IF(f->zLiteral && strlen(f->zLiteral) > CAIRN_KG_MAX_NAME, CAIRN_RANGE, "graph: literal too long");
  CAIRN_RETURN_ERROR_IF(!timeOk(f->validAt) || !timeOk(f->invalidAt) || !timeOk(f->createdAt) || !timeOk(f->expiredAt), CAIRN_RANGE,
                        "graph: fact '%s' has a time outside years 1..9999", f->zPredicate);
  CAIRN_RETURN_ERROR_IF(f->validAt != CAIRN_KG_NONE && f->invalidAt != CAIRN_KG_NONE && f->invalidAt < f->validAt, CAIRN_RANGE,
                        "graph: fact '%s' is invalid (%lld) before it is valid (%lld)", f->zPredicate, (long long)f->invalidAt,
                        (long long)f->validAt);
  CAIRN_RETURN_ERROR_IF(f->nSource > CAIRN_KG_MAX_SOURCE || (f->nSource && !f->aSource), CAIRN_RANGE,
                        "graph: fact '%s' has %u sources", f->zPredicate, f->nSource);
  return CAIRN_OK;
}

static int factAdd(cairn_kg *g, const cairn_kg_fact *in, uint32_t *pId) {
  CAIRN_TRY(checkFact(in));
  uint32_t s, o = 0, pred;
  CAIRN_TRY(resolveEnd(g, in->zSubject, in->subject, &s, "subject"));
  if (in->zObject || in->object) CAIRN_TRY(resolveEnd(g, in->zObject, in->object, &o, "object"));
  CAIRN_TRY(cairnKgPredId(g, in->zPredicate, 1, &pred));
  KgFact nf;
  memset(&nf, 0, sizeof nf);
  nf.subj = s, nf.pred = pred, nf.obj = o, nf.zLit = KG_NIL;
  if (!o) CAIRN_TRY(cairnKgPoolAdd(g, in->zLiteral, strlen(in->zLiteral), &nf.zLit));
  nf.validAt = in->validAt, nf.invalidAt = in->invalidAt, nf.expiredAt = in->expiredAt;
  nf.createdAt = in->createdAt != CAIRN_KG_NONE ? in->createdAt : nowMs();
  if (!o && nf.zLit == KG_NIL) nf.zLit = 0;
  AddCtx c = {&nf, cairn_kg_canon(g, s), o, pred, (int)g->aPred[pred - 1].functional, 0};
  CAIRN_TRY(eachFactOf(g, c.subj, findSame, &c));
  size_t iFact;
  if (c.iSame) iFact = c.iSame - 1;
  else {
    if (c.functional) CAIRN_TRY(eachFactOf(g, c.subj, invalidateOld, &c));
    CAIRN_TRY(CAIRN_GROW(g->aFact, g->capFact, g->nFact + 1, "graph facts"));
    iFact = g->nFact;
    nf.nextSubj = g->aEnt[s - 1].factHead;
    g->aFact[g->nFact++] = nf;
    g->aEnt[s - 1].factHead = (uint32_t)g->nFact;
    stale(g);
  }
  for (uint32_t i = 0; i < in->nSource; i++) CAIRN_TRY(sourceAdd(g, iFact, in->aSource[i]));
  if (pId) *pId = (uint32_t)iFact + 1;
  return CAIRN_OK;
}
int cairnKgFactAdd(cairn_kg *g, const cairn_kg_fact *in, uint32_t *pId); /* kg_json.c, kg_extract.c */
int cairnKgFactAdd(cairn_kg *g, const cairn_kg_fact *in, uint32_t *pId) { return factAdd(g, in, pId); }
int cairnKgEntityAdd(cairn_kg *g, const char *zName, const char *zType, uint32_t *pId);
int cairnKgEntityAdd(cairn_kg *g, const char *zName, const char *zType, uint32_t *pId) { return entityAdd(g, zName, zType, pId); }
int cairnKgMentionAdd(cairn_kg *g, uint32_t id, uint64_t memId);
int cairnKgMentionAdd(cairn_kg *g, uint32_t id, uint64_t memId) { return mentionAdd(g, id, memId); }

int cairn_kg_add_fact(cairn_kg *g, const cairn_kg_fact *f, uint32_t *pId) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g, CAIRN_MISUSE, "cairn_kg_add_fact: NULL graph");
  CAIRN_TRY(checkFact(f));
  KG_BEGIN(g);
  int rc = factAdd(g, f, pId);
  return KG_END(g, rc);
}

uint32_t cairn_kg_fact_count(cairn_kg *g) { return g && !((g->bUnread || g->rcRead) && cairnKgNeed(g)) ? (uint32_t)g->nFact : 0; }

int cairn_kg_fact_get(cairn_kg *g, uint32_t id, cairn_kg_fact *p) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g || !p, CAIRN_MISUSE, "cairn_kg_fact_get: NULL argument");
  CAIRN_RETURN_ERROR_IF(id == 0 || id > g->nFact, CAIRN_NOTFOUND, "graph: no fact %u", id);
  const KgFact *f = &g->aFact[id - 1];
  memset(p, 0, sizeof *p);
  p->subject = cairn_kg_canon(g, f->subj), p->zSubject = KG_STR(g, g->aEnt[p->subject - 1].zName);
  p->zPredicate = KG_STR(g, g->aPred[f->pred - 1].zName);
  if (f->obj) p->object = cairn_kg_canon(g, f->obj), p->zObject = KG_STR(g, g->aEnt[p->object - 1].zName);
  else p->zLiteral = KG_STR(g, f->zLit);
  p->validAt = f->validAt, p->invalidAt = f->invalidAt, p->createdAt = f->createdAt, p->expiredAt = f->expiredAt;
  p->aSource = f->src.a, p->nSource = f->src.n;
  p->id = id, p->removed = (int)f->removed;
  return CAIRN_OK;
}

int cairn_kg_fact_sources(cairn_kg *g, uint32_t id, uint64_t *aOut, uint32_t nMax, uint32_t *pn) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g || !pn || (nMax && !aOut), CAIRN_MISUSE, "cairn_kg_fact_sources: NULL argument");
  CAIRN_RETURN_ERROR_IF(id == 0 || id > g->nFact, CAIRN_NOTFOUND, "graph: no fact %u", id);
  const KgList *l = &g->aFact[id - 1].src;
  for (uint32_t i = 0; i < l->n && i < nMax; i++) aOut[i] = l->a[i];
  *pn = l->n;
  return CAIRN_OK;
}

int cairn_kg_fact_valid(cairn_kg *g, uint32_t id, int64_t asOf) {
  if (g && (g->bUnread || g->rcRead) && cairnKgNeed(g)) return 0;
  if (!g || id == 0 || id > g->nFact) return 0;
  return cairnKgValidAt(&g->aFact[id - 1], asOf);
}

int cairn_kg_invalidate(cairn_kg *g, uint32_t id, int64_t t) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g, CAIRN_MISUSE, "cairn_kg_invalidate: NULL graph");
  CAIRN_RETURN_ERROR_IF(id == 0 || id > g->nFact, CAIRN_NOTFOUND, "graph: no fact %u", id);
  CAIRN_RETURN_ERROR_IF(t == CAIRN_KG_NONE || !timeOk(t), CAIRN_RANGE, "graph: invalidation time %lld out of range", (long long)t);
  KgFact *f = &g->aFact[id - 1];
  CAIRN_RETURN_ERROR_IF(f->validAt != CAIRN_KG_NONE && t < f->validAt, CAIRN_RANGE, "graph: fact %u invalid before it is valid", id);
  KG_BEGIN(g);
  int rc = setInvalid(g, id - 1, t, nowMs());
  return KG_END(g, rc);
}

typedef struct FuncCtx { cairn_kg *g; uint32_t pred; int resolve; uint32_t subj; int conflict; } FuncCtx;
static int funcScan(cairn_kg *g, size_t i, void *p) {
  FuncCtx *c = p;
  KgFact *f = &g->aFact[i];
  if (f->pred != c->pred || !cairnKgValidAt(f, CAIRN_KG_NOW)) return CAIRN_OK;
  /* the latest current fact of this subject (by validAt, then createdAt, then id) */
  size_t best = i;
  for (size_t j = 0; j < g->nFact; j++) {
    KgFact *h = &g->aFact[j];
    if (j == i || h->pred != c->pred || !cairnKgValidAt(h, CAIRN_KG_NOW) || cairn_kg_canon(g, h->subj) != cairn_kg_canon(g, f->subj))
      continue;
    if (sameObject(g, h, f->obj, f->zLit)) continue;
    c->conflict = 1;
    const KgFact *b = &g->aFact[best];
    if (h->validAt > b->validAt || (h->validAt == b->validAt && (h->createdAt > b->createdAt || (h->createdAt == b->createdAt && j > best))))
      best = j;
  }
  if (best != i && c->resolve) {
    const KgFact *b = &g->aFact[best];
    return setInvalid(g, i, b->validAt != CAIRN_KG_NONE ? b->validAt : b->createdAt, b->createdAt);
  }
  if (best != i) c->subj = cairn_kg_canon(g, f->subj);
  return CAIRN_OK;
}

int cairn_kg_functional(cairn_kg *g, const char *zPredicate, unsigned flags) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g, CAIRN_MISUSE, "cairn_kg_functional: NULL graph");
  KG_BEGIN(g);
  uint32_t pred;
  int rc = cairnKgPredId(g, zPredicate, 1, &pred);
  if (!rc && !g->aPred[pred - 1].functional) {
    FuncCtx c = {g, pred, (flags & CAIRN_KG_RESOLVE) != 0, 0, 0};
    for (size_t i = 0; i < g->nFact && !rc && !c.subj; i++) rc = funcScan(g, i, &c);
    if (!rc && c.subj && !c.resolve)
      rc = cairnErr(CAIRN_EXISTS, "graph: '%s' has several current values for entity %u ('%s'): pass CAIRN_KG_RESOLVE to keep the latest",
                    zPredicate, c.subj, KG_STR(g, g->aEnt[c.subj - 1].zName));
    if (!rc) rc = undo(g, U_PRED_FUNC, pred - 1, 0);
    if (!rc && pred - 1 < g->nPredSaved) rc = dirtyAdd(&g->dPred, pred - 1);
    if (!rc) g->aPred[pred - 1].functional = 1;
  }
  return KG_END(g, rc);
}

int cairn_kg_forget_memory(cairn_kg *g, uint64_t memId, uint32_t *pnRemoved) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g, CAIRN_MISUSE, "cairn_kg_forget_memory: NULL graph");
  KG_BEGIN(g);
  int rc = CAIRN_OK;
  uint32_t nRemoved = 0;
  for (size_t i = 0; i < g->nMention && !rc; i++) {
    KgRow2 *r = &g->aMention[i];
    if (!r->alive || r->b != memId) continue;
    rc = undo(g, U_MENTION_ALIVE, (uint32_t)i, 1);
    if (!rc) rc = undo(g, U_ENT_MEMINS, (uint32_t)r->a - 1, (int64_t)memId);
    if (!rc && i < g->nMentionSaved) rc = dirtyAdd(&g->dMention, i);
    if (!rc) r->alive = 0, listRemove(&g->aEnt[r->a - 1].mem, memId);
  }
  for (size_t i = 0; i < g->nSource && !rc; i++) {
    KgRow2 *r = &g->aSource[i];
    if (!r->alive || r->b != memId) continue;
    KgFact *f = &g->aFact[r->a - 1];
    rc = undo(g, U_SOURCE_ALIVE, (uint32_t)i, 1);
    if (!rc) rc = undo(g, U_FACT_SRCINS, (uint32_t)r->a - 1, (int64_t)memId);
    if (!rc && i < g->nSourceSaved) rc = dirtyAdd(&g->dSource, i);
    if (rc) break;
    r->alive = 0;
    listRemove(&f->src, memId);
    if (f->src.n == 0 && !f->removed) {
      rc = undo(g, U_FACT_REMOVED, (uint32_t)r->a - 1, 0);
      if (!rc && r->a - 1 < g->nFactSaved) rc = dirtyAdd(&g->dFact, r->a - 1);
      if (!rc) f->removed = 1, nRemoved++, stale(g);
    }
  }
  /* the removed facts' literals are wiped from the pool (written at the next save), so the text
  ** of a forgotten memory's facts leaves the file; a literal belongs to one fact only */
  for (size_t i = 0; i < g->nSource && !rc && nRemoved; i++) {
    const KgRow2 *r = &g->aSource[i];
    if (r->b != memId || r->alive) continue;
    const KgFact *f = &g->aFact[r->a - 1];
    if (!f->removed || f->src.n || f->obj || f->zLit == KG_NIL || f->zLit == 0) continue;
    size_t n = strlen(KG_STR(g, f->zLit));
    if (!n) continue;
    memset(g->pool + f->zLit, 0, n);
    if (g->poolDirtyLo >= g->poolDirtyHi) g->poolDirtyLo = f->zLit, g->poolDirtyHi = f->zLit + n;
    else g->poolDirtyLo = CAIRN_MIN(g->poolDirtyLo, f->zLit), g->poolDirtyHi = CAIRN_MAX(g->poolDirtyHi, f->zLit + n);
  }
  if (!rc && pnRemoved) *pnRemoved = nRemoved;
  return KG_END(g, rc);
}

/* ------------------------------------------------------------------ queries */
int cairnKgAdjacency(cairn_kg *g) {
  if (!g->adjStale) return CAIRN_OK;
  size_t nE = g->nEnt, nEdge = 0;
  uint32_t *st = cairnMallocZero((nE + 2) * sizeof(uint32_t));
  CAIRN_RETURN_ERROR_IF(!st, CAIRN_NOMEM, "graph adjacency of %zu entities", nE);
  for (size_t i = 0; i < g->nFact; i++) {
    const KgFact *f = &g->aFact[i];
    if (f->removed || !f->obj) continue;
    st[cairn_kg_canon(g, f->subj) + 1]++, st[cairn_kg_canon(g, f->obj) + 1]++;
    nEdge += 2;
  }
  for (size_t i = 1; i <= nE + 1; i++) st[i] += st[i - 1];
  if (nEdge > g->capAdjE || !g->adjEdge) {
    cairnFree(g->adjEdge), cairnFree(g->adjOther), cairnFree(g->adjNow);
    g->adjEdge = cairnMallocArray(nEdge + 1, sizeof(uint32_t));
    g->adjOther = cairnMallocArray(nEdge + 1, sizeof(uint32_t));
    g->adjNow = cairnMalloc(nEdge + 1);
    g->capAdjE = nEdge;
    if (!g->adjEdge || !g->adjOther || !g->adjNow) {
      cairnFree(st), cairnFree(g->adjEdge), cairnFree(g->adjOther), cairnFree(g->adjNow);
      g->adjEdge = g->adjOther = NULL, g->adjNow = NULL, g->capAdjE = 0;
      return cairnErr(CAIRN_NOMEM, "graph adjacency of %zu edges", nEdge);
    }
  }
  /* st[c] is now the start of c's edges (c is 1-based: st[c] .. st[c+1]) */
  uint32_t *fill = cairnMallocArray(nE + 2, sizeof(uint32_t));
  if (!fill) {
    cairnFree(st);
    return cairnErr(CAIRN_NOMEM, "graph adjacency");
  }
  memcpy(fill, st, (nE + 2) * sizeof(uint32_t));
  for (size_t i = 0; i < g->nFact; i++) {
    const KgFact *f = &g->aFact[i];
    if (f->removed || !f->obj) continue;
    uint32_t s = cairn_kg_canon(g, f->subj), o = cairn_kg_canon(g, f->obj);
    uint8_t now = (uint8_t)cairnKgValidAt(f, CAIRN_KG_NOW);
    g->adjNow[fill[s]] = now, g->adjEdge[fill[s]] = (uint32_t)i << 1 | 1, g->adjOther[fill[s]++] = o;
    g->adjNow[fill[o]] = now, g->adjEdge[fill[o]] = (uint32_t)i << 1, g->adjOther[fill[o]++] = s;
  }
  cairnFree(fill);
  cairnFree(g->adjStart);
  g->adjStart = st;
  g->adjStale = 0;
  return CAIRN_OK;
}

/* Is CSR edge e valid at asOf? NOW and ANY need no look at the fact. */
static inline int edgeValid(const cairn_kg *g, uint32_t e, int64_t asOf) {
  if (asOf == CAIRN_KG_NOW) return g->adjNow[e];
  if (asOf == CAIRN_KG_ANY) return 1;
  return cairnKgValidAt(&g->aFact[g->adjEdge[e] >> 1], asOf);
}

static int scratch(cairn_kg *g) {
  size_t n = g->nEnt + 2;
  if (g->capMark >= n) return CAIRN_OK;
  cairnFree(g->aMark), cairnFree(g->aQueue), cairnFree(g->aPrev), cairnFree(g->aAct), cairnFree(g->aAct2);
  g->aMark = cairnMallocZero(n * sizeof(uint32_t)), g->aQueue = cairnMallocArray(n, sizeof(uint32_t));
  g->aPrev = cairnMallocArray(n, sizeof(uint32_t));
  g->aAct = cairnMallocArray(n, sizeof(float)), g->aAct2 = cairnMallocArray(n, sizeof(float));
  g->markGen = 0;
  if (!g->aMark || !g->aQueue || !g->aPrev || !g->aAct || !g->aAct2) {
    cairnFree(g->aMark), cairnFree(g->aQueue), cairnFree(g->aPrev), cairnFree(g->aAct), cairnFree(g->aAct2);
    g->aMark = g->aQueue = g->aPrev = NULL, g->aAct = g->aAct2 = NULL, g->capMark = 0;
    return cairnErr(CAIRN_NOMEM, "graph query scratch for %zu entities", n);
  }
  g->capMark = n;
  return CAIRN_OK;
}
static uint32_t nextGen(cairn_kg *g) {
  if (++g->markGen == 0) {
    memset(g->aMark, 0, g->capMark * sizeof(uint32_t));
    g->markGen = 1;
  }
  return g->markGen;
}
static int queryPrep(cairn_kg *g, uint32_t *pId, const char *zWhat) {
  CAIRN_RETURN_ERROR_IF(!g, CAIRN_MISUSE, "%s: NULL graph", zWhat);
  uint32_t c = cairn_kg_canon(g, *pId);
  CAIRN_RETURN_ERROR_IF(!c, CAIRN_NOTFOUND, "%s: no entity %u", zWhat, *pId);
  *pId = c;
  CAIRN_TRY(cairnKgAdjacency(g));
  return scratch(g);
}

int cairn_kg_neighbors(cairn_kg *g, uint32_t id, int64_t asOf, cairn_kg_edge *aOut, uint32_t nMax, uint32_t *pn) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!pn || (nMax && !aOut), CAIRN_MISUSE, "cairn_kg_neighbors: NULL argument");
  CAIRN_TRY(queryPrep(g, &id, "cairn_kg_neighbors"));
  uint32_t n = 0;
  for (uint32_t e = g->adjStart[id]; e < g->adjStart[id + 1]; e++) {
    uint32_t fi = g->adjEdge[e] >> 1;
    if (!edgeValid(g, e, asOf)) continue;
    if (n < nMax) aOut[n] = (cairn_kg_edge){fi + 1, g->adjOther[e], (int)(g->adjEdge[e] & 1)};
    n++;
  }
  *pn = n;
  return CAIRN_OK;
}

int cairn_kg_bfs(cairn_kg *g, uint32_t id, uint32_t depth, int64_t asOf, uint32_t *aOut, uint32_t *aDist, uint32_t nMax, uint32_t *pn) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!pn || (nMax && !aOut), CAIRN_MISUSE, "cairn_kg_bfs: NULL argument");
  CAIRN_TRY(queryPrep(g, &id, "cairn_kg_bfs"));
  /* level by level: the queue between levelStart and levelEnd is one hop count, so no per-node
  ** distance is stored; the valid-now check is the adjacency's own byte */
  uint32_t gen = nextGen(g), tail = 0, *q = g->aQueue, *mark = g->aMark;
  const uint32_t *st = g->adjStart, *other = g->adjOther;
  const uint8_t *now = g->adjNow;
  q[tail++] = id, mark[id] = gen;
  uint32_t levelStart = 0, levelEnd = 1, d = 0;
  if (aDist && nMax) aDist[0] = 0;
  while (levelStart < levelEnd && d < depth) {
    for (uint32_t k = levelStart; k < levelEnd; k++) {
      uint32_t u = q[k];
      for (uint32_t e = st[u]; e < st[u + 1]; e++) {
        uint32_t v = other[e];
        if (mark[v] == gen) continue;
        if (asOf == CAIRN_KG_NOW ? !now[e] : !edgeValid(g, e, asOf)) continue;
        mark[v] = gen;
        if (aDist && tail < nMax) aDist[tail] = d + 1;
        q[tail++] = v;
      }
    }
    levelStart = levelEnd, levelEnd = tail, d++;
  }
  if (nMax) memcpy(aOut, q, (tail < nMax ? tail : nMax) * sizeof(uint32_t));
  *pn = tail;
  return CAIRN_OK;
}

/* Fewest hops, bidirectional: the smaller frontier grows a whole level at a time and the best
** meeting of that level wins, so a path over a million edges explores two small balls instead of
** one big one. A node belongs to the side that reached it first: aMark holds genA or genB, aPrev
** its parent on that side, aAct2 (as uint32) its hops from that side's end; the a-queue grows up
** from aQueue[0], the b-queue down from the top. */
int cairn_kg_path(cairn_kg *g, uint32_t a, uint32_t b, int64_t asOf, uint32_t *aOut, uint32_t nMax, uint32_t *pn) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!pn || (nMax && !aOut), CAIRN_MISUSE, "cairn_kg_path: NULL argument");
  CAIRN_TRY(queryPrep(g, &a, "cairn_kg_path"));
  uint32_t cb = cairn_kg_canon(g, b);
  CAIRN_RETURN_ERROR_IF(!cb, CAIRN_NOTFOUND, "cairn_kg_path: no entity %u", b);
  *pn = 0;
  if (a == cb) {
    if (nMax) aOut[0] = a;
    *pn = 1;
    return CAIRN_OK;
  }
  uint32_t genA = nextGen(g), genB = nextGen(g);
  if (genB < genA) genA = nextGen(g), genB = nextGen(g); /* wrapped: both fresh */
  uint32_t *q = g->aQueue, *prev = g->aPrev, *dist = (uint32_t *)(void *)g->aAct2, top = (uint32_t)g->capMark;
  uint32_t aHead = 0, aTail = 0, bHead = top, bTail = top; /* b-queue: [bTail, bHead) grows down */
  q[aTail++] = a, g->aMark[a] = genA, prev[a] = 0, dist[a] = 0;
  q[--bTail] = cb, g->aMark[cb] = genB, prev[cb] = 0, dist[cb] = 0;
  uint32_t bestU = 0, bestV = 0, best = UINT32_MAX; /* meeting edge u (a side) - v (b side) */
  while (best == UINT32_MAX && aHead < aTail && bTail < bHead) {
    int sideA = aTail - aHead <= bHead - bTail;
    uint32_t mine = sideA ? genA : genB, other = sideA ? genB : genA;
    uint32_t nLevel = sideA ? aTail - aHead : bHead - bTail;
    for (uint32_t k = 0; k < nLevel; k++) {
      uint32_t u = sideA ? q[aHead++] : q[--bHead];
      for (uint32_t e = g->adjStart[u]; e < g->adjStart[u + 1]; e++) {
        uint32_t v = g->adjOther[e];
        if (g->aMark[v] == mine || !edgeValid(g, e, asOf)) continue;
        if (g->aMark[v] == other) {
          uint32_t len = dist[u] + dist[v] + 1;
          if (len < best) best = len, bestU = sideA ? u : v, bestV = sideA ? v : u;
          continue;
        }
        g->aMark[v] = mine, prev[v] = u, dist[v] = dist[u] + 1;
        if (sideA) q[aTail++] = v;
        else q[--bTail] = v;
      }
    }
  }
  if (best == UINT32_MAX) return cairnErr(CAIRN_NOTFOUND, "graph: no path from entity %u to %u", a, cb);
  uint32_t n = best + 1, i = dist[bestU];
  for (uint32_t v = bestU;; v = prev[v]) { /* a .. bestU */
    if (i < nMax) aOut[i] = v;
    if (v == a) break;
    i--;
  }
  i = dist[bestU] + 1;
  for (uint32_t v = bestV;; v = prev[v], i++) { /* bestV .. b */
    if (i < nMax) aOut[i] = v;
    if (v == cb) break;
  }
  *pn = n;
  return CAIRN_OK;
}

int cairn_kg_activate(cairn_kg *g, const uint32_t *aSeed, uint32_t nSeed, uint32_t nStep, float decay, int64_t asOf, uint32_t *aOut,
                      float *aScore, uint32_t nMax, uint32_t *pn) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g || !pn || (nSeed && !aSeed) || (nMax && (!aOut || !aScore)), CAIRN_MISUSE,
                        "cairn_kg_activate: NULL argument");
  CAIRN_RETURN_ERROR_IF(!(decay >= 0 && decay <= 1), CAIRN_RANGE, "cairn_kg_activate: decay must be in [0, 1]");
  CAIRN_TRY(cairnKgAdjacency(g));
  CAIRN_TRY(scratch(g));
  uint32_t gen = nextGen(g), nAct = 0, *list = g->aQueue;
  float *tot = g->aAct, *pulse = g->aAct2;
  /* touched entities are listed in aQueue, marked in aMark; pulse/tot are valid only for them */
  for (uint32_t i = 0; i < nSeed; i++) {
    uint32_t c = cairn_kg_canon(g, aSeed[i]);
    CAIRN_RETURN_ERROR_IF(!c, CAIRN_NOTFOUND, "cairn_kg_activate: no entity %u", aSeed[i]);
    if (g->aMark[c] != gen) g->aMark[c] = gen, list[nAct++] = c, tot[c] = 0, pulse[c] = 0;
    tot[c] += 1, pulse[c] += 1;
  }
  float *next = cairnMallocZero((g->nEnt + 2) * sizeof(float));
  CAIRN_RETURN_ERROR_IF(!next, CAIRN_NOMEM, "activation");
  for (uint32_t s = 0; s < nStep; s++) {
    uint32_t nNow = nAct;
    for (uint32_t i = 0; i < nNow; i++) {
      uint32_t u = list[i];
      if (pulse[u] <= 0) continue;
      uint32_t deg = 0;
      for (uint32_t e = g->adjStart[u]; e < g->adjStart[u + 1]; e++) deg += edgeValid(g, e, asOf);
      if (!deg) continue;
      float share = decay * pulse[u] / (float)deg;
      for (uint32_t e = g->adjStart[u]; e < g->adjStart[u + 1]; e++) {
        if (!edgeValid(g, e, asOf)) continue;
        uint32_t v = g->adjOther[e];
        if (g->aMark[v] != gen) g->aMark[v] = gen, list[nAct++] = v, tot[v] = 0, pulse[v] = 0;
        next[v] += share;
      }
    }
    for (uint32_t i = 0; i < nAct; i++) {
      uint32_t u = list[i];
      pulse[u] = next[u], tot[u] += next[u], next[u] = 0;
    }
  }
  cairnFree(next);
  /* top nMax by total (selection into the output, insertion sorted) */
  uint32_t nOut = 0;
  for (uint32_t i = 0; i < nAct; i++) {
    uint32_t u = list[i];
    float sc = tot[u];
    uint32_t at = nOut < nMax ? nOut : nMax;
    while (at > 0 && aScore[at - 1] < sc) at--;
    if (at >= nMax) continue;
    uint32_t last = nOut < nMax ? nOut : nMax - 1;
    memmove(aOut + at + 1, aOut + at, (last - at) * sizeof *aOut);
    memmove(aScore + at + 1, aScore + at, (last - at) * sizeof *aScore);
    aOut[at] = u, aScore[at] = sc;
    if (nOut < nMax) nOut++;
  }
  *pn = nOut;
  return CAIRN_OK;
}

int cairn_kg_facts_at(cairn_kg *g, int64_t asOf, uint32_t *aOut, uint32_t nMax, uint32_t *pn) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g || !pn || (nMax && !aOut), CAIRN_MISUSE, "cairn_kg_facts_at: NULL argument");
  uint32_t n = 0;
  for (size_t i = 0; i < g->nFact; i++)
    if (cairnKgValidAt(&g->aFact[i], asOf)) {
      if (n < nMax) aOut[n] = (uint32_t)i + 1;
      n++;
    }
  *pn = n;
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ temporal index */
int cairn_kg_time_add(cairn_kg *g, uint64_t memId, int64_t lo, int64_t hi) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g, CAIRN_MISUSE, "cairn_kg_time_add: NULL graph");
  CAIRN_RETURN_ERROR_IF(lo == CAIRN_KG_NONE || !timeOk(lo) || !timeOk(hi) || hi <= lo, CAIRN_RANGE,
                        "graph: time interval [%lld, %lld) out of range or empty", (long long)lo, (long long)hi);
  KG_BEGIN(g);
  int rc = CAIRN_GROW(g->aTime, g->capTime, g->nTime + 1, "graph times");
  if (!rc) g->aTime[g->nTime++] = (KgTime){memId, lo, hi}, g->timeStale = 1;
  return KG_END(g, rc);
}

/* Sort aIdx[0..n) by aKey (qsort has no context argument: keys travel with the indices). */
typedef struct KeyIdx { int64_t key; uint32_t i; } KeyIdx;
static int cmpKeyIdx(const void *a, const void *b) {
  const KeyIdx *x = a, *y = b;
  return x->key < y->key ? -1 : x->key > y->key ? 1 : (x->i > y->i) - (x->i < y->i);
}
static int sortByKey(uint32_t *aIdx, size_t n, const int64_t *aKey) {
  KeyIdx *t = cairnMallocArray(n + 1, sizeof *t);
  CAIRN_RETURN_ERROR_IF(!t, CAIRN_NOMEM, "graph index sort of %zu rows", n);
  for (size_t i = 0; i < n; i++) t[i].i = aIdx[i], t[i].key = aKey[aIdx[i]];
  qsort(t, n, sizeof *t, cmpKeyIdx);
  for (size_t i = 0; i < n; i++) aIdx[i] = t[i].i;
  cairnFree(t);
  return CAIRN_OK;
}
static int cmpU64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}
int cairnKgTimeIndex(cairn_kg *g) {
  if (!g->timeStale) return CAIRN_OK;
  cairnFree(g->aTimeOrder), cairnFree(g->aTimeMem);
  g->aTimeOrder = cairnMallocArray(g->nTime + 1, sizeof(uint32_t));
  g->aTimeMem = cairnMallocArray(g->nTime + 1, sizeof(uint64_t));
  if (!g->aTimeOrder || !g->aTimeMem) {
    cairnFree(g->aTimeOrder), cairnFree(g->aTimeMem);
    g->aTimeOrder = NULL, g->aTimeMem = NULL;
    return cairnErr(CAIRN_NOMEM, "graph time index");
  }
  g->maxTimeLen = 0;
  for (size_t i = 0; i < g->nTime; i++) {
    g->aTimeOrder[i] = (uint32_t)i, g->aTimeMem[i] = g->aTime[i].mem;
    if (g->aTime[i].hi - g->aTime[i].lo > g->maxTimeLen) g->maxTimeLen = g->aTime[i].hi - g->aTime[i].lo;
  }
  int64_t *aKey = cairnMallocArray(g->nTime + 1, sizeof(int64_t));
  CAIRN_RETURN_ERROR_IF(!aKey, CAIRN_NOMEM, "graph time index");
  for (size_t i = 0; i < g->nTime; i++) aKey[i] = g->aTime[i].lo;
  int rc = sortByKey(g->aTimeOrder, g->nTime, aKey);
  cairnFree(g->aTimeLo), cairnFree(g->aTimeS);
  g->aTimeLo = aKey, g->aTimeS = rc ? NULL : cairnMallocArray(g->nTime + 1, sizeof(KgTime));
  if (rc == CAIRN_OK && !g->aTimeS) rc = cairnErr(CAIRN_NOMEM, "graph time index");
  if (rc) cairnFree(g->aTimeLo), cairnFree(g->aTimeS), g->aTimeLo = NULL, g->aTimeS = NULL;
  CAIRN_TRY(rc);
  for (size_t i = 0; i < g->nTime; i++) g->aTimeS[i] = g->aTime[g->aTimeOrder[i]], aKey[i] = g->aTimeS[i].lo;
  qsort(g->aTimeMem, g->nTime, sizeof(uint64_t), cmpU64);
  size_t u = 0;
  for (size_t i = 0; i < g->nTime; i++)
    if (!u || g->aTimeMem[u - 1] != g->aTimeMem[i]) g->aTimeMem[u++] = g->aTimeMem[i];
  g->nTimeMem = u;
  g->timeStale = 0;
  return CAIRN_OK;
}

int cairnKgMemHasTime(cairn_kg *g, uint64_t memId) {
  if (cairnKgTimeIndex(g)) return 0;
  size_t lo = 0, hi = g->nTimeMem;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (g->aTimeMem[mid] < memId) lo = mid + 1;
    else hi = mid;
  }
  return lo < g->nTimeMem && g->aTimeMem[lo] == memId;
}

int cairn_kg_time_range(cairn_kg *g, int64_t lo, int64_t hi, uint64_t *aOut, uint32_t nMax, uint32_t *pn) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g || !pn || (nMax && !aOut), CAIRN_MISUSE, "cairn_kg_time_range: NULL argument");
  CAIRN_RETURN_ERROR_IF(hi < lo, CAIRN_RANGE, "cairn_kg_time_range: hi before lo");
  CAIRN_TRY(cairnKgTimeIndex(g));
  int64_t from = lo - g->maxTimeLen;
  if (from > lo) from = INT64_MIN; /* overflow */
  /* the first interval with lo >= from: a branch-free halving over the contiguous lo keys */
  const int64_t *aLo = g->aTimeLo;
  size_t a = 0, len = g->nTime;
  while (len > 1) {
    size_t half = len / 2;
    a = aLo[a + half] < from ? a + half : a;
    len -= half;
  }
  if (g->nTime && aLo[a] < from) a++;
  uint32_t n = 0;
  for (size_t i = a; i < g->nTime; i++) {
    const KgTime *t = &g->aTimeS[i];
    if (t->lo >= hi) break;
    if (t->hi <= lo) continue;
    int dup = 0;
    for (uint32_t k = n > 64 ? n - 64 : 0; k < n && k < nMax; k++) dup |= aOut[k] == t->mem; /* nearby duplicates */
    if (dup) continue;
    if (n < nMax) aOut[n] = t->mem;
    n++;
  }
  *pn = n;
  return CAIRN_OK;
}

int cairn_kg_facts_between(cairn_kg *g, int64_t lo, int64_t hi, uint32_t *aOut, uint32_t nMax, uint32_t *pn) {
  KG_NEED(g);
  CAIRN_RETURN_ERROR_IF(!g || !pn || (nMax && !aOut), CAIRN_MISUSE, "cairn_kg_facts_between: NULL argument");
  if (g->validStale) {
    cairnFree(g->aValidOrder);
    g->aValidOrder = cairnMallocArray(g->nFact + 1, sizeof(uint32_t));
    CAIRN_RETURN_ERROR_IF(!g->aValidOrder, CAIRN_NOMEM, "graph valid-time index");
    size_t n = 0;
    for (size_t i = 0; i < g->nFact; i++)
      if (!g->aFact[i].removed && g->aFact[i].validAt != CAIRN_KG_NONE) g->aValidOrder[n++] = (uint32_t)i;
    if (n) {
      int64_t *aKey = cairnMallocArray(g->nFact, sizeof(int64_t));
      CAIRN_RETURN_ERROR_IF(!aKey, CAIRN_NOMEM, "graph valid-time index");
      for (size_t i = 0; i < g->nFact; i++) aKey[i] = g->aFact[i].validAt;
      int rc = sortByKey(g->aValidOrder, n, aKey);
      cairnFree(aKey);
      CAIRN_TRY(rc);
    }
    g->nValidOrder = n, g->validStale = 0;
  }
  size_t a = 0, b = g->nValidOrder;
  while (a < b) {
    size_t mid = (a + b) / 2;
    if (g->aFact[g->aValidOrder[mid]].validAt < lo) a = mid + 1;
    else b = mid;
  }
  uint32_t n = 0;
  for (size_t i = a; i < g->nValidOrder && g->aFact[g->aValidOrder[i]].validAt < hi; i++, n++)
    if (n < nMax) aOut[n] = g->aValidOrder[i] + 1;
  *pn = n;
  return CAIRN_OK;
}
