/*
** 2026-12-02
**
** core/kg/kg_h5.c - the graph's /graph group (layout in core/kg/FORMAT.md): one int64 table per
** kind of row and one byte string pool, read whole at open and written incrementally through the
** public h5w API, either into a file of its own (cairn_kg_open) or into the memory store's file
** at the store's checkpoint (cairn_kg_open_mem, core/mem/mem_hook.h): a commit appends the rows made since the last one, rewrites the rows changed in
** place (copy-on-write inside h5w) and flips the superblock once, so a crash at any point leaves
** the last commit. A failed save discards the writer's uncommitted work and reopens it.
*/
#include <string.h>

#include "cairn/h5.h"
#include "kg/kg_int.h"

enum { T_ENT, T_ALIAS, T_PRED, T_FACT, T_MENTION, T_SOURCE, T_TIME, T_MERGE, T_EMBIX, T_N };
static const char *const azTab[T_N] = {"/graph/entities", "/graph/aliases", "/graph/predicates", "/graph/facts", "/graph/mentions",
                                       "/graph/sources", "/graph/times", "/graph/merges", "/graph/embedding_index"};
static const unsigned aWidth[T_N] = {4, 3, 2, 9, 3, 3, 3, 4, 3};

static size_t *countOf(cairn_kg *g, int t, size_t **ppSaved) {
  switch (t) {
    case T_ENT: *ppSaved = &g->nEntSaved; return &g->nEnt;
    case T_ALIAS: *ppSaved = &g->nAliasSaved; return &g->nAlias;
    case T_PRED: *ppSaved = &g->nPredSaved; return &g->nPred;
    case T_FACT: *ppSaved = &g->nFactSaved; return &g->nFact;
    case T_MENTION: *ppSaved = &g->nMentionSaved; return &g->nMention;
    case T_SOURCE: *ppSaved = &g->nSourceSaved; return &g->nSource;
    case T_TIME: *ppSaved = &g->nTimeSaved; return &g->nTime;
    case T_MERGE: *ppSaved = &g->nMergeSaved; return &g->nMerge;
    default: *ppSaved = &g->nEmbSaved; return &g->nEmb;
  }
}
static KgDirty *dirtyOf(cairn_kg *g, int t) {
  switch (t) {
    case T_ENT: return &g->dEnt;
    case T_PRED: return &g->dPred;
    case T_FACT: return &g->dFact;
    case T_MENTION: return &g->dMention;
    case T_SOURCE: return &g->dSource;
    case T_MERGE: return &g->dMerge;
    default: return NULL;
  }
}

/* Row i of table t as int64s. aEmbOff: running offset of embedding values (T_EMBIX). */
static void encodeRow(cairn_kg *g, int t, size_t i, int64_t *r, uint64_t embOff) {
  switch (t) {
    case T_ENT: {
      const KgEnt *e = &g->aEnt[i];
      r[0] = e->zName, r[1] = e->zNorm, r[2] = e->zType, r[3] = e->canon;
      break;
    }
    case T_ALIAS: r[0] = g->aAlias[i].zNorm, r[1] = g->aAlias[i].zAlias, r[2] = g->aAlias[i].ent; break;
    case T_PRED: r[0] = g->aPred[i].zName, r[1] = g->aPred[i].functional; break;
    case T_FACT: {
      const KgFact *f = &g->aFact[i];
      r[0] = f->subj, r[1] = f->pred, r[2] = f->obj, r[3] = f->obj ? -1 : (int64_t)f->zLit;
      r[4] = f->validAt, r[5] = f->invalidAt, r[6] = f->createdAt, r[7] = f->expiredAt, r[8] = f->removed;
      break;
    }
    case T_MENTION: r[0] = (int64_t)g->aMention[i].a, r[1] = (int64_t)g->aMention[i].b, r[2] = (int64_t)g->aMention[i].alive; break;
    case T_SOURCE: r[0] = (int64_t)g->aSource[i].a, r[1] = (int64_t)g->aSource[i].b, r[2] = (int64_t)g->aSource[i].alive; break;
    case T_TIME: r[0] = (int64_t)g->aTime[i].mem, r[1] = g->aTime[i].lo, r[2] = g->aTime[i].hi; break;
    case T_MERGE: r[0] = g->aMerge[i].from, r[1] = g->aMerge[i].into, r[2] = g->aMerge[i].zReason, r[3] = g->aMerge[i].undone; break;
    default: r[0] = g->aEmb[i].ent, r[1] = (int64_t)embOff, r[2] = g->aEmb[i].n; break;
  }
}

static int reopenWriter(cairn_kg *g) {
  if (g->w) cairn_h5w_discard(g->w);
  g->w = NULL;
  unsigned fl = (g->flags & CAIRN_KG_NOSYNC) ? CAIRN_H5W_NOSYNC : 0;
  uint64_t size = 0;
  CAIRN_TRY(cairn_file_size(g->f, &size));
  if (size == 0) g->bFresh = 1; /* ours from the start: nothing of the caller's to keep */
  int rc = size ? cairn_h5w_open(g->f, fl, &g->w) : cairn_h5w_create(g->f, fl, &g->w);
  if (rc && g->bFresh && !(g->h5Have & (1u << 31))) rc = cairn_h5w_create(g->f, fl, &g->w); /* a first commit that failed */
  return rc;
}

static int makeTable(cairn_h5w *w, const char *zPath, const cairn_h5w_type *ty, unsigned width, uint64_t nRow, const void *p) {
  uint64_t dims[2] = {nRow, width}, maxd[2] = {CAIRN_H5W_UNLIMITED, width}, chunk[2] = {width > 1 ? 1024 : 65536, width};
  cairn_h5w_dset_opts o;
  memset(&o, 0, sizeof o);
  o.layout = CAIRN_H5W_CHUNKED, o.chunk = chunk;
  return cairn_h5w_dataset(w, zPath, ty, width > 1 ? 2 : 1, dims, maxd, &o, nRow ? p : NULL);
}

/* Write the rows made since the last save (bWhole: every row, into a writer of a fresh image)
** through w, and commit when bCommit. */
static int saveAll(cairn_kg *g, cairn_h5w *w, int bWhole, int bCommit) {
  int rc = CAIRN_OK;
  unsigned have = bWhole ? 0 : g->h5Have;
  size_t nPoolSaved = bWhole ? 0 : g->nPoolSaved;
  cairn_h5w_type *tI64 = cairn_h5w_type_int(8, 1), *tU8 = cairn_h5w_type_int(1, 0), *tF32 = cairn_h5w_type_float(4);
  int64_t *aRow = NULL;
  float *aVal = NULL;
  if (!tI64 || !tU8 || !tF32) CAIRN_ERROR_GOTO(rc, done, CAIRN_NOMEM, "graph: HDF5 types");
  if (!(have & (1u << 31))) {
    rc = cairn_h5w_group(w, "/graph");
    if (CAIRN_PRIMARY(rc) == CAIRN_EXISTS) rc = CAIRN_OK;
    CAIRN_TRY_GOTO(rc, rc, done);
    CAIRN_TRY_GOTO(rc, cairn_h5w_attr(w, "/graph", "format", tI64, 0, NULL, &(int64_t){1}), done);
  }
  /* the string pool */
  if (!(have & (1u << 30))) CAIRN_TRY_GOTO(rc, makeTable(w, "/graph/strtab", tU8, 1, g->nPool, g->pool), done);
  else {
    if (g->nPool > nPoolSaved) CAIRN_TRY_GOTO(rc, cairn_h5w_append(w, "/graph/strtab", g->nPool - nPoolSaved, g->pool + nPoolSaved), done);
    /* bytes wiped by a forget (the strings of facts no memory supports any more) */
    size_t lo = g->poolDirtyLo, hi = CAIRN_MIN(g->poolDirtyHi, nPoolSaved);
    if (lo < hi) CAIRN_TRY_GOTO(rc, cairn_h5w_write(w, "/graph/strtab", lo, hi - lo, g->pool + lo), done);
  }
  /* embedding values: a flat float table, entries located by the index table */
  uint64_t embOff = 0, nVal = 0;
  size_t nEmbSaved = bWhole ? 0 : g->nEmbSaved;
  for (size_t i = 0; i < nEmbSaved; i++) embOff += g->aEmb[i].n;
  for (size_t i = nEmbSaved; i < g->nEmb; i++) nVal += g->aEmb[i].n;
  if (nVal || !(have & (1u << 29))) {
    aVal = cairnMallocArray(nVal + 1, sizeof(float));
    if (!aVal) CAIRN_ERROR_GOTO(rc, done, CAIRN_NOMEM, "graph: embedding rows");
    uint64_t k = 0;
    for (size_t i = nEmbSaved; i < g->nEmb; i++) memcpy(aVal + k, g->aEmb[i].a, g->aEmb[i].n * sizeof(float)), k += g->aEmb[i].n;
    if (!(have & (1u << 29))) CAIRN_TRY_GOTO(rc, makeTable(w, "/graph/embedding_values", tF32, 1, nVal, aVal), done);
    else CAIRN_TRY_GOTO(rc, cairn_h5w_append(w, "/graph/embedding_values", nVal, aVal), done);
  }
  for (int t = 0; t < T_N; t++) {
    size_t *pSaved, *pN = countOf(g, t, &pSaved), n = *pN, n0 = bWhole ? 0 : *pSaved;
    unsigned wd = aWidth[t];
    size_t nNew = n - n0;
    cairnFree(aRow);
    aRow = cairnMallocArray((nNew ? nNew : 1), wd * sizeof(int64_t));
    if (!aRow) CAIRN_ERROR_GOTO(rc, done, CAIRN_NOMEM, "graph: %zu rows of %s", nNew, azTab[t]);
    uint64_t off = embOff;
    for (size_t i = n0; i < n; i++) {
      encodeRow(g, t, i, aRow + (i - n0) * wd, off);
      if (t == T_EMBIX) off += g->aEmb[i].n;
    }
    if (!(have & (1u << t))) CAIRN_TRY_GOTO(rc, makeTable(w, azTab[t], tI64, wd, nNew, aRow), done);
    else if (nNew) CAIRN_TRY_GOTO(rc, cairn_h5w_append(w, azTab[t], nNew, aRow), done);
    KgDirty *d = dirtyOf(g, t);
    for (size_t k = 0; d && k < d->n; k++) {
      size_t i = d->a[k];
      if (i >= n0) continue; /* appended above with its current values */
      int64_t r[9];
      encodeRow(g, t, i, r, 0);
      CAIRN_TRY_GOTO(rc, cairn_h5w_write(w, azTab[t], i, 1, r), done);
    }
  }
  CAIRN_TRY_GOTO(rc, cairn_h5w_attr(w, "/graph", "entities", tI64, 0, NULL, &(int64_t){(int64_t)g->nEnt}), done);
  CAIRN_TRY_GOTO(rc, cairn_h5w_attr(w, "/graph", "facts", tI64, 0, NULL, &(int64_t){(int64_t)g->nFact}), done);
  if (bCommit) rc = cairn_h5w_commit(w);
done:
  cairn_h5w_type_free(tI64), cairn_h5w_type_free(tU8), cairn_h5w_type_free(tF32);
  cairnFree(aRow), cairnFree(aVal);
  return rc;
}

#define markSaved cairnKgMarkSaved
/* After a failed save: did the commit land anyway (a sync after the superblock switch failed)?
** The file then holds the new rows, and appending them again would duplicate them. Commits are
** atomic, so one table that grew tells for all. */
static int landed(cairn_kg *g) {
  if (!g->w) return 0;
  for (int t = 0; t < T_N; t++) {
    size_t *pSaved, *pN = countOf(g, t, &pSaved);
    if (*pN == *pSaved) continue;
    int rank = 0;
    uint64_t dims[CAIRN_H5W_MAXRANK];
    if (cairn_h5w_shape(g->w, azTab[t], &rank, dims) != CAIRN_OK) return 0;
    return dims[0] == *pN;
  }
  return 0;
}

int cairnKgSaveInto(cairn_kg *g, cairn_h5w *w, int bWhole) { return saveAll(g, w, bWhole, 0); }

int cairnKgPending(const cairn_kg *g) {
  if (g->nPool > g->nPoolSaved || g->poolDirtyLo < g->poolDirtyHi) return 1;
  if (g->dEnt.n || g->dFact.n || g->dPred.n || g->dMention.n || g->dSource.n || g->dMerge.n) return 1;
  for (int t = 0; t < T_N; t++) {
    size_t *pSaved, *pN = countOf((cairn_kg *)g, t, &pSaved);
    if (*pN > *pSaved) return 1;
  }
  return 0;
}

void cairnKgMarkUnsaved(cairn_kg *g) {
  g->h5Have = 0;
  g->nPoolSaved = 0;
  g->poolDirtyLo = g->poolDirtyHi = 0;
  for (int t = 0; t < T_N; t++) {
    size_t *pSaved;
    countOf(g, t, &pSaved);
    *pSaved = 0;
    KgDirty *d = dirtyOf(g, t);
    if (d) d->n = 0;
  }
}

int cairnKgSave(cairn_kg *g) {
  if (!g->w) CAIRN_TRY(reopenWriter(g));
  int rc = saveAll(g, g->w, 0, 1);
  if (rc) {
    /* drop whatever reached the writer: the file keeps the last commit, the graph its rows */
    char zMsg[256];
    const char *zm = cairn_errmsg();
    size_t n = strlen(zm) < sizeof zMsg - 1 ? strlen(zm) : sizeof zMsg - 1;
    memcpy(zMsg, zm, n), zMsg[n] = 0;
    if (reopenWriter(g) == CAIRN_OK && landed(g)) markSaved(g);
    return cairn_seterr(rc, "%s", zMsg);
  }
  markSaved(g);
  return CAIRN_OK;
}

void cairnKgMarkSaved(cairn_kg *g) {
  g->h5Have = ~0u;
  g->nPoolSaved = g->nPool;
  g->poolDirtyLo = g->poolDirtyHi = 0;
  for (int t = 0; t < T_N; t++) {
    size_t *pSaved, *pN = countOf(g, t, &pSaved);
    *pSaved = *pN;
    KgDirty *d = dirtyOf(g, t);
    if (d) d->n = 0;
  }
}

/* ------------------------------------------------------------------ load */
static int readTable(cairn_h5 *h, const char *zPath, unsigned width, cairn_h5_mtype m, size_t szElem, uint64_t nCap, void **pp,
                     size_t *pn) {
  cairn_h5_obj *o = NULL;
  *pp = NULL, *pn = 0;
  int rc = cairn_h5_get(h, zPath, &o);
  if (rc) return rc;
  cairn_h5_info info;
  rc = cairn_h5_info_get(o, &info);
  if (rc == CAIRN_OK && (info.kind != CAIRN_H5_DATASET || info.rank != (width > 1 ? 2u : 1u) || (width > 1 && info.dims[1] != width)))
    rc = cairnErr(CAIRN_CORRUPT, "graph: %s is not a [n, %u] table", zPath, width);
  if (rc == CAIRN_OK && info.dims[0] > nCap) rc = cairnErr(CAIRN_CORRUPT, "graph: %s claims %llu rows", zPath, (unsigned long long)info.dims[0]);
  if (rc == CAIRN_OK) {
    size_t nElem = (size_t)info.dims[0] * width;
    void *p = cairnMallocArray(nElem + 1, szElem);
    if (!p) rc = cairnErr(CAIRN_NOMEM, "graph: %s", zPath);
    else if (nElem && (rc = cairn_h5_read(o, NULL, m, p, nElem * szElem)) != CAIRN_OK) cairnFree(p);
    else *pp = p, *pn = (size_t)info.dims[0];
  }
  cairn_h5_obj_close(o);
  return rc;
}

#define BAD(t, i) cairnErr(CAIRN_CORRUPT, "graph: %s row %zu refers outside the graph", azTab[t], (size_t)(i))
static int strOk(const cairn_kg *g, int64_t off) { return off >= 0 && (uint64_t)off < g->nPool; }

static int decode(cairn_kg *g, int t, const int64_t *r, size_t n, const float *aVal, size_t nVal) {
  size_t *pSaved, *pN = countOf(g, t, &pSaved);
  for (size_t i = 0; i < n; i++, r += aWidth[t]) {
    switch (t) {
      case T_ENT: {
        if (!strOk(g, r[0]) || !strOk(g, r[1]) || !strOk(g, r[2]) || r[3] < 0 || (uint64_t)r[3] > n) return BAD(t, i);
        KgEnt e;
        memset(&e, 0, sizeof e);
        e.zName = (uint32_t)r[0], e.zNorm = (uint32_t)r[1], e.zType = (uint32_t)r[2], e.canon = (uint32_t)r[3], e.iEmb = -1;
        CAIRN_TRY(CAIRN_GROW(g->aEnt, g->capEnt, g->nEnt + 1, "graph entities"));
        g->aEnt[g->nEnt++] = e;
        break;
      }
      case T_ALIAS:
        if (!strOk(g, r[0]) || !strOk(g, r[1]) || r[2] < 1 || (uint64_t)r[2] > g->nEnt) return BAD(t, i);
        CAIRN_TRY(CAIRN_GROW(g->aAlias, g->capAlias, g->nAlias + 1, "graph aliases"));
        g->aAlias[g->nAlias++] = (KgAlias){(uint32_t)r[0], (uint32_t)r[1], (uint32_t)r[2]};
        break;
      case T_PRED:
        if (!strOk(g, r[0])) return BAD(t, i);
        CAIRN_TRY(CAIRN_GROW(g->aPred, g->capPred, g->nPred + 1, "graph predicates"));
        g->aPred[g->nPred++] = (KgPred){(uint32_t)r[0], r[1] != 0};
        break;
      case T_FACT: {
        if (r[0] < 1 || (uint64_t)r[0] > g->nEnt || r[1] < 1 || (uint64_t)r[1] > g->nPred || r[2] < 0 || (uint64_t)r[2] > g->nEnt ||
            (!r[2] && !strOk(g, r[3])))
          return BAD(t, i);
        KgFact f;
        memset(&f, 0, sizeof f);
        f.subj = (uint32_t)r[0], f.pred = (uint32_t)r[1], f.obj = (uint32_t)r[2], f.zLit = r[2] ? KG_NIL : (uint32_t)r[3];
        f.validAt = r[4], f.invalidAt = r[5], f.createdAt = r[6], f.expiredAt = r[7], f.removed = r[8] != 0;
        CAIRN_TRY(CAIRN_GROW(g->aFact, g->capFact, g->nFact + 1, "graph facts"));
        g->aFact[g->nFact++] = f;
        break;
      }
      case T_MENTION:
      case T_SOURCE: {
        size_t lim = t == T_MENTION ? g->nEnt : g->nFact;
        if (r[0] < 1 || (uint64_t)r[0] > lim) return BAD(t, i);
        KgRow2 row = {(uint64_t)r[0], (uint64_t)r[1], r[2] != 0};
        if (t == T_MENTION) {
          CAIRN_TRY(CAIRN_GROW(g->aMention, g->capMention, g->nMention + 1, "graph mentions"));
          g->aMention[g->nMention++] = row;
          if (row.alive) CAIRN_TRY(cairnKgListAdd(&g->aEnt[row.a - 1].mem, row.b));
        } else {
          CAIRN_TRY(CAIRN_GROW(g->aSource, g->capSource, g->nSource + 1, "graph sources"));
          g->aSource[g->nSource++] = row;
          if (row.alive) CAIRN_TRY(cairnKgListAdd(&g->aFact[row.a - 1].src, row.b));
        }
        break;
      }
      case T_TIME:
        if (r[2] <= r[1]) return BAD(t, i);
        CAIRN_TRY(CAIRN_GROW(g->aTime, g->capTime, g->nTime + 1, "graph times"));
        g->aTime[g->nTime++] = (KgTime){(uint64_t)r[0], r[1], r[2]};
        break;
      case T_MERGE:
        if (r[0] < 1 || (uint64_t)r[0] > g->nEnt || r[1] < 1 || (uint64_t)r[1] > g->nEnt || !strOk(g, r[2])) return BAD(t, i);
        CAIRN_TRY(CAIRN_GROW(g->aMerge, g->capMerge, g->nMerge + 1, "graph merges"));
        g->aMerge[g->nMerge++] = (KgMerge){(uint32_t)r[0], (uint32_t)r[1], (uint32_t)r[2], r[3] != 0};
        break;
      default: {
        if (r[0] < 1 || (uint64_t)r[0] > g->nEnt || r[1] < 0 || r[2] < 1 || r[2] > CAIRN_MEM_MAX_DIM || (uint64_t)(r[1] + r[2]) > nVal)
          return BAD(t, i);
        KgEmb em = {(uint32_t)r[0], (uint32_t)r[2], cairnMallocArray((size_t)r[2], sizeof(float))};
        CAIRN_RETURN_ERROR_IF(!em.a, CAIRN_NOMEM, "graph embedding");
        memcpy(em.a, aVal + r[1], (size_t)r[2] * sizeof(float));
        int rc = CAIRN_GROW(g->aEmb, g->capEmb, g->nEmb + 1, "graph embeddings");
        if (rc) {
          cairnFree(em.a);
          return rc;
        }
        g->aEnt[em.ent - 1].iEmb = (int32_t)g->nEmb;
        g->aEmb[g->nEmb++] = em;
        break;
      }
    }
  }
  *pSaved = *pN;
  return CAIRN_OK;
}

/* Read the /graph group of f into the (empty) graph; *pbFound: the file had one. */
int cairnKgLoadFile(cairn_kg *g, cairn_file *f, int *pbFound) {
  uint64_t size = 0;
  *pbFound = 0;
  CAIRN_TRY(cairn_file_size(f, &size));
  if (size) {
    cairn_h5 *h = NULL;
    CAIRN_TRY(cairn_h5_open(f, 0, &h));
    cairn_h5_obj *o = NULL;
    int rc = cairn_h5_get(h, "/graph", &o);
    cairn_h5_obj_close(o);
    if (CAIRN_PRIMARY(rc) == CAIRN_NOTFOUND) rc = CAIRN_OK, size = 0; /* a file without a graph yet */
    else if (rc == CAIRN_OK) {
      g->h5Have |= 1u << 31, *pbFound = 1;
      void *p = NULL;
      size_t n = 0;
      rc = readTable(h, "/graph/strtab", 1, CAIRN_H5_U8, 1, size, &p, &n);
      if (rc == CAIRN_OK) {
        if (n == 0 || ((char *)p)[0] != 0 || ((char *)p)[n - 1] != 0 || n > UINT32_MAX - 2) {
          cairnFree(p);
          rc = cairnErr(CAIRN_CORRUPT, "graph: /graph/strtab does not start and end with a NUL");
        } else cairnFree(g->pool), g->pool = p, g->nPool = g->nPoolSaved = g->capPool = n, g->h5Have |= 1u << 30;
      }
      float *aVal = NULL;
      size_t nVal = 0;
      if (rc == CAIRN_OK) rc = readTable(h, "/graph/embedding_values", 1, CAIRN_H5_F32, 4, size, (void **)&aVal, &nVal);
      if (rc == CAIRN_OK) g->h5Have |= 1u << 29;
      for (int t = 0; t < T_N && rc == CAIRN_OK; t++) {
        int64_t *r = NULL;
        rc = readTable(h, azTab[t], aWidth[t], CAIRN_H5_I64, 8, size / 8 / aWidth[t] + 1, (void **)&r, &n);
        if (rc == CAIRN_OK) rc = decode(g, t, r, n, aVal, nVal);
        if (rc == CAIRN_OK) g->h5Have |= 1u << t;
        cairnFree(r);
      }
      cairnFree(aVal);
      for (size_t i = 0; rc == CAIRN_OK && i < g->nEnt; i++)
        if (g->aEnt[i].canon > g->nEnt || g->aEnt[i].canon == i + 1) rc = cairnErr(CAIRN_CORRUPT, "graph: entity %zu merged into itself", i + 1);
      if (rc == CAIRN_OK) rc = cairnKgRebuildMaps(g);
    }
    cairn_h5_close(h);
    CAIRN_TRY(rc);
  }
  return CAIRN_OK;
}

int cairnKgLoad(cairn_kg *g) {
  int bFound;
  CAIRN_TRY(cairnKgLoadFile(g, g->f, &bFound));
  if (g->flags & CAIRN_KG_READONLY) return CAIRN_OK;
  return reopenWriter(g);
}
