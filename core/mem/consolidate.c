/*
** 2026-12-02
**
** core/mem/consolidate.c - the consolidation cycle, explain and the session tick of the memory
** store (cairn/consolidate.h). A cycle is planned whole (scores, evictions, groups, summaries)
** before the first write, so that a failing summariser leaves the store as it was; the writes
** are the store's versioned calls (cairn_mem_update for a tier change, cairn_mem_add for a new
** semantic memory, cairn_mem_delete for a dissolved one).
**
** The per-handle state (struct MemCons, m->pCons) holds what makes the cycle incremental: the
** row up to which episodic memories have been compared, and the measured cost of each tick task.
*/
#include "cairn/consolidate.h"
#include "mem_int.h"

struct MemCons {
  size_t nRowSeen;    /* episodic rows below this were compared by an earlier cycle */
  float thr;          /* with this threshold (another one compares everything again) */
  int noLink;
  int64_t aTaskNs[4]; /* last cost of each tick task ... */
  uint64_t aTaskN[4]; /* ... and the rows it covered */
};

void cairnMemConsFree(cairn_mem *m) {
  cairnFree(m->pCons);
  m->pCons = NULL;
}

static struct MemCons *consState(cairn_mem *m) {
  if (!m->pCons) m->pCons = cairnMallocZero(sizeof(struct MemCons));
  return m->pCons;
}

static int64_t consNowMs(const cairn_mem_consolidate_config *c) { return c->nowMs ? c->nowMs : cairnClock(0) / 1000000; }

/* Does z[0..n) hold zNeedle? (metadata is parsed only when it names links or sources) */
static int consHas(const char *z, size_t n, const char *zNeedle) {
  size_t k = strlen(zNeedle);
  for (size_t i = 0; i + k <= n; i++)
    if (z[i] == zNeedle[0] && !memcmp(z + i, zNeedle, k)) return 1;
  return 0;
}

static int consUtf8Ok(const char *z, size_t n) {
  size_t i = 0;
  while (i < n) {
    if (z[i] == 0 || cairnUtf8Decode((const uint8_t *)z, n, &i) < 0) return 0;
  }
  return 1;
}

/* ------------------------------------------------------------------ links and semantic memories */
typedef struct ConsSem {
  uint64_t id;       /* the semantic memory */
  size_t row;        /* its current row */
  uint32_t iSrc, nSrc; /* its sources in aSrc */
  int dissolve;      /* forget it this cycle */
  uint64_t central;
  int rule;          /* 0 extractive, 1 summariser */
} ConsSem;
typedef struct ConsPair {
  uint64_t a, b; /* (source, semantic) or (from, to) */
} ConsPair;
static int cmpPair(const void *x, const void *y) {
  const ConsPair *p = x, *q = y;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  return p->b < q->b ? -1 : p->b > q->b;
}

typedef struct ConsLinks {
  uint32_t *aIn;      /* per row: links other current memories make to its memory */
  ConsSem *aSem;
  uint32_t nSem, nSemAlloc;
  uint64_t *aSrc;
  size_t nSrc, nSrcAlloc;
  ConsPair *aOfSrc;   /* (source, semantic) sorted: which semantic memories cite a memory */
  size_t nOfSrc;
  ConsPair *aEdge;    /* (from, to) of "links", sorted */
  size_t nEdge, nEdgeAlloc;
} ConsLinks;

static void consLinksFree(ConsLinks *l) {
  cairnFree(l->aIn), cairnFree(l->aSem), cairnFree(l->aSrc), cairnFree(l->aOfSrc), cairnFree(l->aEdge);
  memset(l, 0, sizeof *l);
}

static int consGrow(void **pp, size_t *pnAlloc, size_t nNeed, size_t size) {
  if (nNeed <= *pnAlloc) return CAIRN_OK;
  size_t n = *pnAlloc ? *pnAlloc * 2 : 64;
  while (n < nNeed) n *= 2;
  if (n > SIZE_MAX / size) return cairnErr(CAIRN_NOMEM, "consolidate: out of memory");
  void *p = cairnRealloc(*pp, n * size);
  if (!p) return cairnErr(CAIRN_NOMEM, "consolidate: out of memory for %zu entries", n);
  *pp = p, *pnAlloc = n;
  return CAIRN_OK;
}

/* Every current memory's "links" and "sources": in-link counts, the semantic memories with their
** sources (and whether a source is gone), the link edges. */
static int consLinksBuild(cairn_mem *m, ConsLinks *l) {
  memset(l, 0, sizeof *l);
  l->aIn = cairnMallocZero((m->n ? m->n : 1) * sizeof(uint32_t));
  if (!l->aIn) return cairnErr(CAIRN_NOMEM, "consolidate: out of memory for %zu link counts", m->n);
  int rc = CAIRN_OK;
  for (size_t r = 0; r < m->n && rc == CAIRN_OK; r++) {
    if (!memRowLive(m, r) || !m->aMetaLen[r]) continue;
    const char *zMeta = m->zText + m->aMetaOff[r];
    size_t nMeta = m->aMetaLen[r];
    int bSources = m->aTier[r] == CAIRN_TIER_SEMANTIC && consHas(zMeta, nMeta, "\"sources\"");
    if (!bSources && !consHas(zMeta, nMeta, "\"links\"")) continue;
    Json j;
    int rcJ = cairnJsonParse(&j, zMeta, nMeta);
    if (rcJ == CAIRN_NOMEM) {
      rc = rcJ;
      break;
    }
    if (rcJ != CAIRN_OK) { /* stored metadata was checked on add: cannot happen */
      cairn_clearerr();
      continue;
    }
    for (int pass = 0; pass < 2 && rc == CAIRN_OK; pass++) {
      if (pass == 0 && !bSources) continue;
      uint32_t v = j.a[0].type == JSON_OBJ ? cairnJsonGet(&j, 0, pass == 0 ? "sources" : "links") : 0;
      if (!v || j.a[v].type != JSON_ARR) continue;
      uint32_t iFirst = (uint32_t)l->nSrc;
      for (uint32_t c = cairnJsonChild(&j, v); c && rc == CAIRN_OK; c = j.a[c].next) {
        if (j.a[c].type != JSON_NUM || !(j.a[c].num >= 1) || j.a[c].num > 9e15) continue;
        uint64_t id = (uint64_t)j.a[c].num;
        size_t t = cairnMemCurRow(m, id);
        if (pass == 0) {
          rc = consGrow((void **)&l->aSrc, &l->nSrcAlloc, l->nSrc + 1, sizeof(uint64_t));
          if (rc == CAIRN_OK) l->aSrc[l->nSrc++] = id;
        } else if (t != SIZE_MAX) {
          rc = consGrow((void **)&l->aEdge, &l->nEdgeAlloc, l->nEdge + 1, sizeof(ConsPair));
          if (rc == CAIRN_OK) l->aEdge[l->nEdge++] = (ConsPair){m->aHead[r], id};
        }
        if (t != SIZE_MAX && m->aHead[t] != m->aHead[r]) l->aIn[t]++;
      }
      if (pass == 0 && rc == CAIRN_OK) {
        size_t nAlloc = l->nSemAlloc;
        rc = consGrow((void **)&l->aSem, &nAlloc, (size_t)l->nSem + 1, sizeof(ConsSem));
        l->nSemAlloc = (uint32_t)nAlloc;
        if (rc == CAIRN_OK) {
          ConsSem *s = &l->aSem[l->nSem++];
          memset(s, 0, sizeof *s);
          s->id = m->aHead[r], s->row = r, s->iSrc = iFirst, s->nSrc = (uint32_t)(l->nSrc - iFirst);
          uint32_t vc = cairnJsonGet(&j, 0, "central"), vr = cairnJsonGet(&j, 0, "rule");
          if (vc && j.a[vc].type == JSON_NUM && j.a[vc].num >= 1) s->central = (uint64_t)j.a[vc].num;
          s->rule = vr && j.a[vr].type == JSON_STR && !strcmp(j.a[vr].z, "summariser");
          for (uint32_t i = 0; i < s->nSrc; i++)
            if (cairnMemCurRow(m, l->aSrc[s->iSrc + i]) == SIZE_MAX) s->dissolve = 1; /* a source was forgotten */
        }
      }
    }
    cairnJsonFree(&j);
  }
  if (rc == CAIRN_OK && l->nSrc) {
    l->aOfSrc = cairnMallocArray(l->nSrc, sizeof(ConsPair));
    if (!l->aOfSrc) rc = cairnErr(CAIRN_NOMEM, "consolidate: out of memory");
    for (uint32_t s = 0; rc == CAIRN_OK && s < l->nSem; s++)
      for (uint32_t i = 0; i < l->aSem[s].nSrc; i++) l->aOfSrc[l->nOfSrc++] = (ConsPair){l->aSrc[l->aSem[s].iSrc + i], s};
    if (rc == CAIRN_OK) qsort(l->aOfSrc, l->nOfSrc, sizeof(ConsPair), cmpPair);
  }
  if (rc == CAIRN_OK && l->nEdge) qsort(l->aEdge, l->nEdge, sizeof(ConsPair), cmpPair);
  if (rc) consLinksFree(l);
  return rc;
}

/* The semantic memory (index into aSem, not dissolved) citing id, or -1. */
static int64_t consSemOf(const ConsLinks *l, uint64_t id) {
  size_t lo = 0, hi = l->nOfSrc;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (l->aOfSrc[mid].a < id) lo = mid + 1;
    else hi = mid;
  }
  for (; lo < l->nOfSrc && l->aOfSrc[lo].a == id; lo++)
    if (!l->aSem[l->aOfSrc[lo].b].dissolve) return (int64_t)l->aOfSrc[lo].b;
  return -1;
}
static int consHasEdge(const ConsLinks *l, uint64_t a, uint64_t b) {
  ConsPair k = {a, b};
  return l->nEdge && bsearch(&k, l->aEdge, l->nEdge, sizeof(ConsPair), cmpPair) != NULL;
}

static cairn_score_input consInput(const cairn_mem *m, const ConsLinks *l, size_t r) {
  cairn_score_input x;
  x.importance = m->aImp[r];
  x.accessCount = m->aAccess[r];
  x.lastMs = m->aEvent[r] ? m->aEvent[r] : m->aCreated[r];
  x.nLinks = l->aIn[r];
  return x;
}

/* ------------------------------------------------------------------ the plan */
typedef struct ConsNode {
  uint64_t id;
  size_t row;
  int kind;    /* 0 episodic, 1 evicted by this cycle, 2 a source of semantic sem */
  int cand;    /* compared with the others this cycle */
  int64_t sem; /* kind 2: index into aSem */
  uint32_t parent;
} ConsNode;

typedef struct ConsGroup {
  uint32_t iMember, nMember; /* node indexes in aMember */
  int64_t sem;               /* the semantic memory it extends (index into aSem), -1 new */
  uint32_t central;          /* node index */
  char *zText;               /* the merged text (owned) */
  int bSummary;
  float *aVec;               /* its embedding (owned) or NULL: the built-in embedder */
  float imp;
  int64_t event;
} ConsGroup;

typedef struct ConsPlan {
  int64_t now;
  ConsLinks l;
  uint64_t *aEvict;
  size_t nEvict, nWorking, nScored, nEpisodicBefore, nSemanticBefore;
  ConsNode *aNode;
  uint32_t nNode, nCand;
  float *aNodeVec; /* nNode * dim, unit length */
  uint32_t *aMember;
  ConsGroup *aGroup;
  uint32_t nGroup;
  uint64_t nSummarised;
} ConsPlan;

static void consPlanFree(ConsPlan *p) {
  consLinksFree(&p->l);
  for (uint32_t g = 0; g < p->nGroup; g++) cairnFree(p->aGroup[g].zText), cairnFree(p->aGroup[g].aVec);
  cairnFree(p->aEvict), cairnFree(p->aNode), cairnFree(p->aNodeVec), cairnFree(p->aMember), cairnFree(p->aGroup);
  memset(p, 0, sizeof *p);
}

static uint32_t ufFind(ConsNode *a, uint32_t i) {
  while (a[i].parent != i) a[i].parent = a[a[i].parent].parent, i = a[i].parent;
  return i;
}
static void ufUnion(ConsNode *a, uint32_t x, uint32_t y) {
  x = ufFind(a, x), y = ufFind(a, y);
  if (x != y) a[x > y ? x : y].parent = x < y ? x : y; /* the lower index is the root */
}

static int cmpU64(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

/* Node index of memory id (aById: (id, node) sorted), or UINT32_MAX. */
static uint32_t consNodeOf(const ConsPlan *p, const ConsPair *aById, uint64_t id) {
  uint32_t lo = 0, hi = p->nNode;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (aById[mid].a < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < p->nNode && aById[lo].a == id ? (uint32_t)aById[lo].b : UINT32_MAX;
}

/* A summary must be text the store takes: 1..CAIRN_MEM_MAX_TEXT bytes of UTF-8 without NUL. */
static int consCheckSummary(const char *z, uint32_t nMember, uint64_t idFirst) {
  size_t n = z ? strlen(z) : 0;
  CAIRN_RETURN_ERROR_IF(n == 0, CAIRN_TYPE, "consolidate: the summariser returned an empty text for the %u memories from %llu",
                        nMember, (unsigned long long)idFirst);
  CAIRN_RETURN_ERROR_IF(n > CAIRN_MEM_MAX_TEXT, CAIRN_TYPE, "consolidate: the summariser returned %zu bytes (at most %u) for the memories from %llu",
                        n, CAIRN_MEM_MAX_TEXT, (unsigned long long)idFirst);
  CAIRN_RETURN_ERROR_IF(!consUtf8Ok(z, n), CAIRN_TYPE, "consolidate: the summariser returned text that is not UTF-8 for the memories from %llu",
                        (unsigned long long)idFirst);
  return CAIRN_OK;
}

static char *consStrDup(const char *z, size_t n) {
  char *p = cairnMalloc(n + 1);
  if (p) memcpy(p, z, n), p[n] = 0;
  return p;
}

static int consCheck(const cairn_mem *m, const cairn_mem_consolidate_config *c) {
  CAIRN_RETURN_ERROR_IF(!m || !c, CAIRN_MISUSE, "consolidate: NULL argument");
  CAIRN_RETURN_ERROR_IF(c->capacity == 0, CAIRN_RANGE, "consolidate: capacity 0 (the working tier must keep at least one memory)");
  CAIRN_RETURN_ERROR_IF(!(c->mergeThreshold == c->mergeThreshold) || c->mergeThreshold > 1, CAIRN_RANGE,
                        "consolidate: mergeThreshold must be a cosine <= 1 (0: 0.9, negative: no promotion)");
  CAIRN_RETURN_ERROR_IF(c->minGroup == 1, CAIRN_RANGE, "consolidate: minGroup 1 (a group has at least 2 memories)");
  cairn_score_input x = {0};
  cairn_score_parts o;
  return cairn_score(&c->score, &x, 0, &o); /* the score settings' errors */
}

static int consPlanMake(cairn_mem *m, const cairn_mem_consolidate_config *c, struct MemCons *st, ConsPlan *p) {
  memset(p, 0, sizeof *p);
  p->now = consNowMs(c);
  CAIRN_TRY(consLinksBuild(m, &p->l));
  int rc = CAIRN_OK;
  /* 1. score the working tier and keep its best `capacity` */
  size_t nW = 0;
  for (size_t r = 0; r < m->n; r++)
    if (memRowLive(m, r)) {
      p->nScored++;
      if (m->aTier[r] == CAIRN_TIER_WORKING) nW++;
      else if (m->aTier[r] == CAIRN_TIER_EPISODIC) p->nEpisodicBefore++;
      else if (m->aTier[r] == CAIRN_TIER_SEMANTIC) p->nSemanticBefore++;
    }
  p->nWorking = nW;
  size_t *aWRow = NULL;
  cairn_score_input *aIn = NULL;
  uint32_t *aKeep = NULL;
  uint8_t *aKept = NULL;
  if (nW > c->capacity) {
    aWRow = cairnMallocArray(nW, sizeof(size_t));
    aIn = cairnMallocArray(nW, sizeof(cairn_score_input));
    aKeep = cairnMallocArray(c->capacity, sizeof(uint32_t));
    aKept = cairnMallocZero(nW);
    p->aEvict = cairnMallocArray(nW - c->capacity, sizeof(uint64_t));
    if (!aWRow || !aIn || !aKeep || !aKept || !p->aEvict) rc = cairnErr(CAIRN_NOMEM, "consolidate: out of memory for %zu working memories", nW);
    size_t i = 0;
    for (size_t r = 0; rc == CAIRN_OK && r < m->n; r++)
      if (memRowLive(m, r) && m->aTier[r] == CAIRN_TIER_WORKING) aWRow[i] = r, aIn[i] = consInput(m, &p->l, r), i++;
    size_t nKeep = 0;
    if (rc == CAIRN_OK) rc = cairn_score_select(&c->score, aIn, nW, p->now, c->capacity, aKeep, &nKeep);
    for (size_t k = 0; rc == CAIRN_OK && k < nKeep; k++) aKept[aKeep[k]] = 1;
    for (size_t k = 0; rc == CAIRN_OK && k < nW; k++)
      if (!aKept[k]) p->aEvict[p->nEvict++] = m->aHead[aWRow[k]];
  }
  /* 2. the nodes of the promotion: episodic memories and the ones evicted now */
  int promote = c->mergeThreshold >= 0;
  float thr = c->mergeThreshold > 0 ? c->mergeThreshold : 0.9f;
  int reset = !st || st->thr != thr || st->noLink != c->noLinkMerge;
  size_t nRowSeen = reset ? 0 : st->nRowSeen;
  if (rc == CAIRN_OK && promote) {
    size_t nMax = p->nEpisodicBefore + p->nEvict;
    p->aNode = cairnMallocArray(nMax ? nMax : 1, sizeof(ConsNode));
    if (!p->aNode) rc = cairnErr(CAIRN_NOMEM, "consolidate: out of memory for %zu episodic memories", nMax);
    size_t iEvict = 0;
    for (size_t r = 0; rc == CAIRN_OK && r < m->n; r++) {
      if (!memRowLive(m, r)) continue;
      ConsNode nx, *x = &nx; /* copied in when the row is a node (aNode has room for those only) */
      memset(x, 0, sizeof nx);
      x->id = m->aHead[r], x->row = r, x->sem = -1, x->parent = p->nNode;
      if (m->aTier[r] == CAIRN_TIER_EPISODIC) {
        x->sem = consSemOf(&p->l, x->id);
        x->kind = x->sem >= 0 ? 2 : 0;
        x->cand = x->kind == 0 && r >= nRowSeen;
      } else if (m->aTier[r] == CAIRN_TIER_WORKING && iEvict < p->nEvict) {
        /* evicted now? (aEvict is in row order of the working scan) */
        if (p->aEvict[iEvict] != x->id) continue;
        iEvict++;
        x->kind = 1, x->cand = 1;
      } else continue;
      p->aNode[p->nNode++] = nx;
    }
    /* members of a dissolved semantic memory are compared again, whatever their row */
    for (uint32_t s = 0; rc == CAIRN_OK && s < p->l.nSem; s++) {
      if (!p->l.aSem[s].dissolve) continue;
      for (uint32_t i = 0; i < p->l.aSem[s].nSrc; i++) {
        uint64_t id = p->l.aSrc[p->l.aSem[s].iSrc + i];
        for (uint32_t k = 0; k < p->nNode; k++)
          if (p->aNode[k].id == id && p->aNode[k].kind == 0) p->aNode[k].cand = 1;
      }
    }
  }
  cairnFree(aWRow), cairnFree(aIn), cairnFree(aKeep), cairnFree(aKept);
  if (rc || !promote || p->nNode < 2) return rc;
  for (uint32_t k = 0; k < p->nNode; k++) p->nCand += (uint32_t)p->aNode[k].cand;
  /* nothing new since the last cycle: no group can form (each needs a compared member) */
  if (p->nCand == 0) return rc;
  /* 3. unit vectors of the nodes, back to back for the dot kernel */
  uint32_t dim = m->textOnly ? CAIRN_MEM_DEFAULT_DIM : m->dim;
  p->aNodeVec = cairnMallocArray((size_t)p->nNode * dim, sizeof(float));
  ConsPair *aById = cairnMallocArray(p->nNode, sizeof(ConsPair));
  float *aDot = cairnMallocArray(p->nNode, sizeof(float));
  if (!p->aNodeVec || !aById || !aDot) rc = cairnErr(CAIRN_NOMEM, "consolidate: out of memory for %u vectors", p->nNode);
  for (uint32_t k = 0; rc == CAIRN_OK && k < p->nNode; k++) {
    float *v = p->aNodeVec + (size_t)k * dim;
    size_t r = p->aNode[k].row;
    if (m->textOnly) rc = cairn_mem_embed(m->zText + m->aTextOff[r], m->aTextLen[r], v, dim);
    else memcpy(v, m->vecs.aF32 + r * dim, (size_t)dim * 4);
    double sq = 0;
    for (uint32_t d = 0; d < dim; d++) sq += (double)v[d] * v[d];
    if (sq > 0 && (sq < 0.999 || sq > 1.001))
      for (uint32_t d = 0; d < dim; d++) v[d] = (float)(v[d] / sqrt(sq));
    aById[k] = (ConsPair){p->aNode[k].id, k};
  }
  if (rc == CAIRN_OK) {
    qsort(aById, p->nNode, sizeof(ConsPair), cmpPair);
    /* the sources of one semantic memory are one group already */
    for (uint32_t s = 0; s < p->l.nSem; s++) {
      if (p->l.aSem[s].dissolve) continue;
      uint32_t first = UINT32_MAX;
      for (uint32_t i = 0; i < p->l.aSem[s].nSrc; i++) {
        uint32_t k = consNodeOf(p, aById, p->l.aSrc[p->l.aSem[s].iSrc + i]);
        if (k == UINT32_MAX || p->aNode[k].kind != 2) continue;
        if (first == UINT32_MAX) first = k;
        else ufUnion(p->aNode, first, k);
      }
    }
    /* 4. near duplicates: each candidate against every node (the pairs of two candidates once) */
    const MemKernels *K = cairnMemKernels();
    for (uint32_t ci = 0; ci < p->nNode; ci++) {
      if (!p->aNode[ci].cand) continue;
      K->xDotF32(p->aNodeVec, p->nNode, dim, p->aNodeVec + (size_t)ci * dim, aDot);
      for (uint32_t t = 0; t < p->nNode; t++) {
        if (t == ci || (p->aNode[t].cand && t < ci)) continue;
        if (aDot[t] >= thr) ufUnion(p->aNode, ci, t);
      }
    }
    /* links each way between two episodic memories */
    if (!c->noLinkMerge)
      for (size_t e = 0; e < p->l.nEdge; e++) {
        uint32_t a = consNodeOf(p, aById, p->l.aEdge[e].a), b = consNodeOf(p, aById, p->l.aEdge[e].b);
        if (a == UINT32_MAX || b == UINT32_MAX || a == b || (!p->aNode[a].cand && !p->aNode[b].cand)) continue;
        if (consHasEdge(&p->l, p->l.aEdge[e].b, p->l.aEdge[e].a)) ufUnion(p->aNode, a, b);
      }
  }
  cairnFree(aById);
  /* 5. the groups: components with a new member, extending a semantic memory or new */
  uint32_t *aCount = NULL, *aStart = NULL;
  if (rc == CAIRN_OK) {
    aCount = cairnMallocZero((size_t)p->nNode * sizeof(uint32_t));
    aStart = cairnMallocArray((size_t)p->nNode + 1, sizeof(uint32_t));
    p->aMember = cairnMallocArray(p->nNode, sizeof(uint32_t));
    p->aGroup = cairnMallocArray(p->nNode / 2 + 1, sizeof(ConsGroup));
    if (!aCount || !aStart || !p->aMember || !p->aGroup) rc = cairnErr(CAIRN_NOMEM, "consolidate: out of memory for the groups");
  }
  if (rc == CAIRN_OK) {
    for (uint32_t k = 0; k < p->nNode; k++) aCount[ufFind(p->aNode, k)]++;
    uint32_t at = 0;
    for (uint32_t k = 0; k < p->nNode; k++) aStart[k] = at, at += aCount[k];
    memset(aCount, 0, (size_t)p->nNode * sizeof(uint32_t));
    for (uint32_t k = 0; k < p->nNode; k++) { /* members in node order: ids ascending within a row order */
      uint32_t root = ufFind(p->aNode, k);
      p->aMember[aStart[root] + aCount[root]++] = k;
    }
    uint32_t minGroup = c->minGroup ? c->minGroup : 2;
    for (uint32_t root = 0; root < p->nNode && rc == CAIRN_OK; root++) {
      uint32_t n = aCount[root];
      if (n < 2 || ufFind(p->aNode, root) != root) continue;
      const uint32_t *a = p->aMember + aStart[root];
      int64_t sem = -1;
      uint32_t nNew = 0;
      for (uint32_t i = 0; i < n; i++) {
        const ConsNode *x = &p->aNode[a[i]];
        if (x->kind == 2 && (sem < 0 || p->l.aSem[x->sem].id < p->l.aSem[sem].id)) sem = x->sem;
        nNew += x->kind != 2;
      }
      if (nNew == 0 || (sem < 0 && n < minGroup)) continue;
      for (uint32_t i = 0; i < n; i++) { /* another semantic memory joined to this one is dissolved */
        const ConsNode *x = &p->aNode[a[i]];
        if (x->kind == 2 && x->sem != sem) p->l.aSem[x->sem].dissolve = 2;
      }
      ConsGroup *g = &p->aGroup[p->nGroup++];
      memset(g, 0, sizeof *g);
      g->iMember = aStart[root], g->nMember = n, g->sem = sem, g->event = INT64_MIN, g->imp = -INFINITY;
      /* the most central member: the highest summed similarity to the others */
      double best = -INFINITY;
      for (uint32_t i = 0; i < n; i++) {
        double sum = 0;
        const float *vi = p->aNodeVec + (size_t)a[i] * dim;
        for (uint32_t k = 0; k < n; k++)
          if (k != i) sum += cairnMemDot(vi, p->aNodeVec + (size_t)a[k] * dim, dim);
        if (sum > best) best = sum, g->central = a[i];
        size_t r = p->aNode[a[i]].row;
        if (m->aEvent[r] > g->event) g->event = m->aEvent[r];
        if (m->aImp[r] > g->imp) g->imp = m->aImp[r];
      }
    }
  }
  cairnFree(aCount), cairnFree(aStart), cairnFree(aDot);
  /* 6. the texts: the summariser's or the central member's, checked before anything is written */
  for (uint32_t gi = 0; gi < p->nGroup && rc == CAIRN_OK; gi++) {
    ConsGroup *g = &p->aGroup[gi];
    const uint32_t *a = p->aMember + g->iMember;
    const char *zSum = NULL;
    if (c->xSummarise) {
      uint64_t *aId = cairnMallocArray(g->nMember, sizeof(uint64_t));
      const char **az = cairnMallocArray(g->nMember, sizeof(char *));
      if (!aId || !az) rc = cairnErr(CAIRN_NOMEM, "consolidate: out of memory");
      for (uint32_t i = 0; rc == CAIRN_OK && i < g->nMember; i++)
        aId[i] = p->aNode[a[i]].id, az[i] = m->zText + m->aTextOff[p->aNode[a[i]].row];
      if (rc == CAIRN_OK) {
        cairn_clearerr();
        int rcS = c->xSummarise(c->pSummariseCtx, g->nMember, aId, az, &zSum);
        if (rcS) {
          const char *zMsg = cairn_errmsg();
          rc = zMsg[0] ? rcS : cairnErr(rcS, "consolidate: the summariser failed (%d) for the %u memories from %llu", rcS, g->nMember, (unsigned long long)aId[0]);
        } else if (zSum) rc = consCheckSummary(zSum, g->nMember, aId[0]);
      }
      cairnFree(aId), cairnFree(az);
    }
    if (rc) break;
    size_t rc0 = p->aNode[g->central].row;
    if (zSum) g->zText = consStrDup(zSum, strlen(zSum)), g->bSummary = 1, p->nSummarised++;
    else g->zText = consStrDup(m->zText + m->aTextOff[rc0], m->aTextLen[rc0]);
    if (!g->zText) rc = cairnErr(CAIRN_NOMEM, "consolidate: out of memory for a merged text");
    if (rc == CAIRN_OK && !m->textOnly && (!g->bSummary || m->zModel[0])) {
      /* the central member's vector, or (a summary in a store of a model) the members' mean */
      g->aVec = cairnMallocArray(m->dim, sizeof(float));
      if (!g->aVec) rc = cairnErr(CAIRN_NOMEM, "consolidate: out of memory");
      else if (!g->bSummary) memcpy(g->aVec, m->vecs.aF32 + rc0 * m->dim, (size_t)m->dim * 4);
      else {
        memset(g->aVec, 0, (size_t)m->dim * 4);
        for (uint32_t i = 0; i < g->nMember; i++)
          for (uint32_t d = 0; d < m->dim; d++) g->aVec[d] += p->aNodeVec[(size_t)a[i] * dim + d];
      }
    }
  }
  return rc;
}

/* ------------------------------------------------------------------ applying it */
static void consOutIds(CairnSb *o, const uint64_t *a, size_t n) {
  cairnSbPut(o, "[", 1);
  for (size_t i = 0; i < n; i++) {
    if (i) cairnSbPut(o, ",", 1);
    cairnSbU64(o, a[i]);
  }
  cairnSbPut(o, "]", 1);
}

/* The metadata of a semantic memory: its sources (ids ascending), central member, rule, time. */
static int consGroupMeta(const ConsPlan *p, const ConsGroup *g, CairnSb *o, uint64_t **paId) {
  const uint32_t *a = p->aMember + g->iMember;
  uint64_t *aId = cairnMallocArray(g->nMember, sizeof(uint64_t));
  if (!aId) return cairnErr(CAIRN_NOMEM, "consolidate: out of memory");
  for (uint32_t i = 0; i < g->nMember; i++) aId[i] = p->aNode[a[i]].id;
  qsort(aId, g->nMember, sizeof(uint64_t), cmpU64);
  cairnSbStr(o, "{\"sources\":");
  consOutIds(o, aId, g->nMember);
  cairnSbStr(o, ",\"central\":");
  cairnSbU64(o, p->aNode[g->central].id);
  cairnSbStr(o, g->bSummary ? ",\"rule\":\"summariser\",\"consolidatedMs\":" : ",\"rule\":\"extractive\",\"consolidatedMs\":");
  cairnSbI64(o, p->now);
  cairnSbPut(o, "}", 1);
  *paId = aId;
  return o->oom ? cairnErr(CAIRN_NOMEM, "consolidate: out of memory") : CAIRN_OK;
}

static char *consNameDup(const char *z) { return z ? consStrDup(z, strlen(z)) : NULL; }

static int consApply(cairn_mem *m, ConsPlan *p, cairn_mem_consolidate_report *r) {
  int rc = CAIRN_OK;
  for (uint32_t s = 0; s < p->l.nSem && rc == CAIRN_OK; s++)
    if (p->l.aSem[s].dissolve) rc = cairn_mem_delete(m, p->l.aSem[s].id), r->nDissolved++;
  for (size_t i = 0; i < p->nEvict && rc == CAIRN_OK; i++) {
    cairn_mem_record u;
    memset(&u, 0, sizeof u);
    u.tier = CAIRN_TIER_EPISODIC, u.validFromMs = p->now;
    rc = cairn_mem_update(m, p->aEvict[i], &u, CAIRN_MEM_F_TIER, NULL);
  }
  for (uint32_t gi = 0; gi < p->nGroup && rc == CAIRN_OK; gi++) {
    ConsGroup *g = &p->aGroup[gi];
    CairnSb o = {0};
    uint64_t *aId = NULL;
    rc = consGroupMeta(p, g, &o, &aId);
    /* the scopes of the central member (copied: the name table may move as the store grows) */
    cairn_mem_record cen;
    char *zS = NULL, *zR = NULL, *zU = NULL, *zA = NULL;
    if (rc == CAIRN_OK) {
      size_t cr = cairnMemCurRow(m, p->aNode[g->central].id);
      if (cr == SIZE_MAX) rc = cairnErr(CAIRN_NOTFOUND, "consolidate: memory %llu vanished", (unsigned long long)p->aNode[g->central].id);
      else {
        cairnMemRowGet(m, cr, &cen);
        zS = consNameDup(cen.zSession), zR = consNameDup(cen.zRole), zU = consNameDup(cen.zUser), zA = consNameDup(cen.zAgent);
        if ((cen.zSession && !zS) || (cen.zRole && !zR) || (cen.zUser && !zU) || (cen.zAgent && !zA)) rc = cairnErr(CAIRN_NOMEM, "consolidate: out of memory");
      }
    }
    if (rc == CAIRN_OK) {
      cairn_mem_record x;
      memset(&x, 0, sizeof x);
      x.zText = g->zText, x.zMeta = o.z, x.tier = CAIRN_TIER_SEMANTIC, x.importance = memIsFinite(g->imp) ? g->imp : 0;
      x.aEmbedding = g->aVec, x.nEmbedding = g->aVec ? m->dim : 0;
      x.eventMs = g->event > 0 ? g->event : p->now, x.createdMs = p->now, x.validFromMs = p->now;
      x.zSession = zS, x.zRole = zR, x.zUser = zU, x.zAgent = zA;
      if (g->sem >= 0)
        rc = cairn_mem_update(m, p->l.aSem[g->sem].id, &x,
                              CAIRN_MEM_F_TEXT | CAIRN_MEM_F_META | CAIRN_MEM_F_IMPORTANCE | CAIRN_MEM_F_EVENT |
                                  (g->aVec ? CAIRN_MEM_F_EMBEDDING : 0),
                              NULL);
      else rc = cairn_mem_add(m, &x, NULL);
      if (rc == CAIRN_OK) r->nPromoted++, r->nMerged += g->nMember;
    }
    cairnFree(zS), cairnFree(zR), cairnFree(zU), cairnFree(zA), cairnFree(aId), cairnFree(o.z);
  }
  return rc;
}

static void consCount(cairn_mem *m, cairn_mem_consolidate_report *r) {
  r->nHot = r->nEpisodic = 0;
  for (size_t i = 0; i < m->n; i++)
    if (memRowLive(m, i)) {
      if (m->aTier[i] == CAIRN_TIER_WORKING || m->aTier[i] == CAIRN_TIER_SEMANTIC) r->nHot++;
      else if (m->aTier[i] == CAIRN_TIER_EPISODIC) r->nEpisodic++;
    }
}

/* The plan as JSON (after the counts): evictions and groups (texts too for a dry run). */
static void consPlanJson(cairn_mem *m, const ConsPlan *p, int dry, CairnSb *o) {
  cairnSbStr(o, ",\"evict\":");
  consOutIds(o, p->aEvict, p->nEvict);
  cairnSbStr(o, ",\"groups\":[");
  for (uint32_t gi = 0; gi < p->nGroup; gi++) {
    const ConsGroup *g = &p->aGroup[gi];
    const uint32_t *a = p->aMember + g->iMember;
    if (gi) cairnSbPut(o, ",", 1);
    cairnSbStr(o, "{\"sources\":[");
    for (uint32_t i = 0; i < g->nMember; i++) {
      if (i) cairnSbPut(o, ",", 1);
      cairnSbU64(o, p->aNode[a[i]].id);
    }
    cairnSbStr(o, "],\"central\":");
    cairnSbU64(o, p->aNode[g->central].id);
    cairnSbStr(o, ",\"semantic\":");
    cairnSbU64(o, g->sem >= 0 ? p->l.aSem[g->sem].id : 0);
    cairnSbStr(o, g->bSummary ? ",\"rule\":\"summariser\"" : ",\"rule\":\"extractive\"");
    if (dry) {
      cairnSbStr(o, ",\"texts\":[");
      for (uint32_t i = 0; i < g->nMember; i++) {
        size_t r = p->aNode[a[i]].row;
        if (i) cairnSbPut(o, ",", 1);
        cairnSbJsonStr(o, m->zText + m->aTextOff[r], m->aTextLen[r], 0);
      }
      cairnSbPut(o, "]", 1);
    }
    cairnSbPut(o, "}", 1);
  }
  cairnSbPut(o, "]", 1);
}

static int consRun(cairn_mem *m, const cairn_mem_consolidate_config *c, cairn_mem_consolidate_report *pRep, CairnSb *pPlanOut) {
  cairn_mem_consolidate_report rz;
  cairn_mem_consolidate_report *r = pRep ? pRep : &rz;
  memset(r, 0, sizeof *r);
  CAIRN_TRY(consCheck(m, c));
  CAIRN_RETURN_ERROR_IF(m->readOnly && !c->dryRun, CAIRN_READONLY, "consolidate: store opened read-only");
  CAIRN_RETURN_ERROR_IF(m->rcFatal, m->rcFatal, "consolidate: an earlier checkpoint failed; reopen the store");
  int64_t t0 = cairnClock(1);
  struct MemCons *st = consState(m);
  if (!st) return cairnErr(CAIRN_NOMEM, "consolidate: out of memory");
  ConsPlan p;
  int rc = consPlanMake(m, c, st, &p);
  if (rc == CAIRN_OK) {
    r->nScored = p.nScored, r->nWorking = p.nWorking, r->nEvicted = p.nEvict, r->nCompared = p.nCand, r->nSummarised = p.nSummarised;
    if (pPlanOut) consPlanJson(m, &p, c->dryRun, pPlanOut);
    if (c->dryRun) {
      for (uint32_t s = 0; s < p.l.nSem; s++) r->nDissolved += p.l.aSem[s].dissolve != 0;
      for (uint32_t g = 0; g < p.nGroup; g++) r->nPromoted++, r->nMerged += p.aGroup[g].nMember;
      r->nHot = p.nWorking - p.nEvict + p.nSemanticBefore, r->nEpisodic = p.nEpisodicBefore + p.nEvict;
    } else {
      rc = consApply(m, &p, r);
      consCount(m, r);
      if (rc == CAIRN_OK) st->nRowSeen = m->n, st->thr = c->mergeThreshold > 0 ? c->mergeThreshold : 0.9f, st->noLink = c->noLinkMerge;
    }
  }
  consPlanFree(&p);
  r->ns = cairnClock(1) - t0;
  return rc;
}

int cairn_mem_consolidate(cairn_mem *m, const cairn_mem_consolidate_config *c, cairn_mem_consolidate_report *pRep) {
  return consRun(m, c, pRep, NULL);
}

/* ------------------------------------------------------------------ JSON options */
static void consNum(CairnSb *o, double v) {
  if (!(v == v) || v - v != 0) {
    cairnSbStr(o, "null");
    return;
  }
  if (v < 0) cairnSbPut(o, "-", 1), v = -v;
  uint64_t ip = (uint64_t)v;
  uint64_t frac = (uint64_t)((v - (double)ip) * 1e6 + 0.5);
  if (frac >= 1000000) ip++, frac -= 1000000;
  cairnSbU64(o, ip);
  if (frac) {
    char b[8];
    for (int i = 5; i >= 0; i--) b[i] = (char)('0' + frac % 10), frac /= 10;
    int n = 6;
    while (n > 1 && b[n - 1] == '0') n--;
    cairnSbPut(o, ".", 1), cairnSbPut(o, b, (size_t)n);
  }
}

typedef struct ConsSummaries {
  Json *j;
  uint32_t v; /* the "summaries" array, 0 none */
} ConsSummaries;

/* The JSON path's summariser: a summary given for exactly these sources, else the extractive rule. */
static int consLookupSummary(void *pCtx, uint32_t n, const uint64_t *aId, const char *const *azText, const char **pz) {
  (void)azText;
  ConsSummaries *s = pCtx;
  *pz = NULL;
  for (uint32_t e = s->v ? cairnJsonChild(s->j, s->v) : 0; e; e = s->j->a[e].next) {
    uint32_t vs = cairnJsonGet(s->j, e, "sources"), vt = cairnJsonGet(s->j, e, "text");
    if (!vs || !vt || s->j->a[vs].n != n) continue;
    uint32_t nHit = 0;
    for (uint32_t c = cairnJsonChild(s->j, vs); c; c = s->j->a[c].next)
      for (uint32_t i = 0; i < n; i++)
        if (s->j->a[c].type == JSON_NUM && s->j->a[c].num == (double)aId[i]) {
          nHit++;
          break;
        }
    if (nHit != n) continue;
    if (s->j->a[vt].type != JSON_STR) return cairnErr(CAIRN_TYPE, "consolidate: the summary for the memories from %llu is not a string", (unsigned long long)aId[0]);
    *pz = s->j->a[vt].z;
    return CAIRN_OK;
  }
  return CAIRN_OK;
}

static int consOptNum(const Json *j, uint32_t v, const char *zKey, double lo, double hi, double *pd, int *pHave) {
  uint32_t x = cairnJsonGet(j, v, zKey);
  if (pHave) *pHave = x != 0;
  if (!x) return CAIRN_OK;
  CAIRN_RETURN_ERROR_IF(j->a[x].type != JSON_NUM || !(j->a[x].num >= lo && j->a[x].num <= hi), CAIRN_MISUSE,
                        "consolidate: option '%s' must be a number in [%d, %lld]", zKey, (int)lo, (long long)hi);
  *pd = j->a[x].num;
  return CAIRN_OK;
}

static const char *const azConsKey[] = {"capacity", "halfLifeHours", "accessHalf", "linkHalf", "weights", "mergeThreshold",
                                        "minGroup", "linkMerge", "now", "dryRun", "summaries"};

/* Options at object v of j into *c (capacity 1000 unless given). */
static int consOpts(const Json *j, uint32_t v, cairn_mem_consolidate_config *c, ConsSummaries *pSum) {
  memset(c, 0, sizeof *c);
  c->capacity = 1000;
  if (!v && (!j || !j->n)) return CAIRN_OK;
  CAIRN_RETURN_ERROR_IF(j->a[v].type != JSON_OBJ, CAIRN_MISUSE, "consolidate: options must be a JSON object");
  for (uint32_t k = cairnJsonChild(j, v); k;) { /* keys and values alternate as siblings */
    int known = 0;
    for (size_t i = 0; i < sizeof azConsKey / sizeof *azConsKey; i++) known |= !strcmp(j->a[k].z, azConsKey[i]);
    CAIRN_RETURN_ERROR_IF(!known, CAIRN_MISUSE, "consolidate: unknown option '%s' (capacity, halfLifeHours, accessHalf, linkHalf, weights, "
                          "mergeThreshold, minGroup, linkMerge, now, dryRun, summaries)", j->a[k].z);
    uint32_t val = j->a[k].next;
    k = val ? j->a[val].next : 0;
  }
  double d = 0;
  int have = 0;
  CAIRN_TRY(consOptNum(j, v, "capacity", 0, 4294967295.0, &d, &have));
  if (have) c->capacity = (uint32_t)d;
  CAIRN_TRY(consOptNum(j, v, "halfLifeHours", 0, 1e9, &d, &have));
  if (have) c->score.halfLifeH = (float)d;
  CAIRN_TRY(consOptNum(j, v, "accessHalf", 0, 1e9, &d, &have));
  if (have) c->score.accessHalf = (float)d;
  CAIRN_TRY(consOptNum(j, v, "linkHalf", 0, 1e9, &d, &have));
  if (have) c->score.linkHalf = (float)d;
  CAIRN_TRY(consOptNum(j, v, "mergeThreshold", -1, 1, &d, &have));
  if (have) c->mergeThreshold = d == 0 ? -1.0f : (float)d; /* an explicit 0 would read as the default */
  CAIRN_TRY(consOptNum(j, v, "minGroup", 0, 1e6, &d, &have));
  if (have) c->minGroup = (uint32_t)d;
  CAIRN_TRY(consOptNum(j, v, "now", 0, 9e15, &d, &have));
  if (have) c->nowMs = (int64_t)d;
  uint32_t w = cairnJsonGet(j, v, "weights");
  if (w) {
    CAIRN_RETURN_ERROR_IF(j->a[w].type != JSON_OBJ, CAIRN_MISUSE, "consolidate: 'weights' must be an object {value, access, recency, links}");
    float *ap[4] = {&c->score.wValue, &c->score.wAccess, &c->score.wRecency, &c->score.wLinks};
    const char *az[4] = {"value", "access", "recency", "links"};
    for (int i = 0; i < 4; i++) {
      CAIRN_TRY(consOptNum(j, w, az[i], -1e9, 1e9, &d, &have));
      if (have) *ap[i] = d == 0 ? -1.0f : (float)d; /* 0 turns the part off */
    }
  }
  uint32_t b = cairnJsonGet(j, v, "linkMerge");
  if (b) {
    CAIRN_RETURN_ERROR_IF(j->a[b].type != JSON_TRUE && j->a[b].type != JSON_FALSE, CAIRN_MISUSE, "consolidate: 'linkMerge' must be true or false");
    c->noLinkMerge = j->a[b].type == JSON_FALSE;
  }
  b = cairnJsonGet(j, v, "dryRun");
  if (b) {
    CAIRN_RETURN_ERROR_IF(j->a[b].type != JSON_TRUE && j->a[b].type != JSON_FALSE, CAIRN_MISUSE, "consolidate: 'dryRun' must be true or false");
    c->dryRun = j->a[b].type == JSON_TRUE;
  }
  uint32_t s = cairnJsonGet(j, v, "summaries");
  if (s) {
    CAIRN_RETURN_ERROR_IF(j->a[s].type != JSON_ARR, CAIRN_MISUSE, "consolidate: 'summaries' must be an array of {sources, text}");
    pSum->j = (Json *)j, pSum->v = s;
    c->xSummarise = consLookupSummary, c->pSummariseCtx = pSum;
  }
  return CAIRN_OK;
}

static int consParse(const char *zOpts, Json *j, uint32_t *pv) {
  memset(j, 0, sizeof *j);
  *pv = 0;
  if (!zOpts || !zOpts[0]) return CAIRN_OK;
  return cairnJsonParse(j, zOpts, strlen(zOpts));
}

static void consReportJson(CairnSb *o, const cairn_mem_consolidate_report *r) {
  cairnSbStr(o, "{\"scored\":"), cairnSbU64(o, r->nScored);
  cairnSbStr(o, ",\"working\":"), cairnSbU64(o, r->nWorking);
  cairnSbStr(o, ",\"evicted\":"), cairnSbU64(o, r->nEvicted);
  cairnSbStr(o, ",\"hot\":"), cairnSbU64(o, r->nHot);
  cairnSbStr(o, ",\"episodic\":"), cairnSbU64(o, r->nEpisodic);
  cairnSbStr(o, ",\"compared\":"), cairnSbU64(o, r->nCompared);
  cairnSbStr(o, ",\"promoted\":"), cairnSbU64(o, r->nPromoted);
  cairnSbStr(o, ",\"merged\":"), cairnSbU64(o, r->nMerged);
  cairnSbStr(o, ",\"dissolved\":"), cairnSbU64(o, r->nDissolved);
  cairnSbStr(o, ",\"summarised\":"), cairnSbU64(o, r->nSummarised);
  cairnSbStr(o, ",\"ms\":"), consNum(o, (double)r->ns / 1e6);
}

int cairn_mem_consolidate_json(cairn_mem *m, const char *zOpts, char **pz) {
  CAIRN_RETURN_ERROR_IF(!m || !pz, CAIRN_MISUSE, "consolidate_json: NULL argument");
  *pz = NULL;
  Json j;
  uint32_t v;
  CAIRN_TRY(consParse(zOpts, &j, &v));
  cairn_mem_consolidate_config c;
  ConsSummaries sum = {0};
  int rc = consOpts(&j, v, &c, &sum);
  CairnSb plan = {0}, o = {0};
  cairn_mem_consolidate_report r;
  memset(&r, 0, sizeof r);
  if (rc == CAIRN_OK) rc = consRun(m, &c, &r, &plan);
  if (rc == CAIRN_OK) {
    consReportJson(&o, &r);
    if (plan.z) cairnSbPut(&o, plan.z, plan.n);
    cairnSbPut(&o, "}", 1);
  }
  cairnFree(plan.z);
  cairnJsonFree(&j);
  size_t n;
  return cairnSbDone(&o, rc, "consolidate_json", pz, &n);
}

/* ------------------------------------------------------------------ explain */
static const char *consTierName(int t) {
  return t == CAIRN_TIER_WORKING ? "working" : t == CAIRN_TIER_EPISODIC ? "episodic" : t == CAIRN_TIER_SEMANTIC ? "semantic" : "other";
}

static void consParts(CairnSb *o, const cairn_score_parts *s) {
  cairnSbStr(o, "{\"score\":"), consNum(o, s->score);
  cairnSbStr(o, ",\"value\":"), consNum(o, s->value);
  cairnSbStr(o, ",\"access\":"), consNum(o, s->access);
  cairnSbStr(o, ",\"recency\":"), consNum(o, s->recency);
  cairnSbStr(o, ",\"links\":"), consNum(o, s->links);
  cairnSbPut(o, "}", 1);
}

int cairn_mem_explain_json(cairn_mem *m, uint64_t id, const cairn_mem_consolidate_config *pCfg, char **pz) {
  CAIRN_RETURN_ERROR_IF(!m || !pz, CAIRN_MISUSE, "explain: NULL argument");
  *pz = NULL;
  cairn_mem_consolidate_config dflt;
  if (!pCfg) memset(&dflt, 0, sizeof dflt), dflt.capacity = 1000, pCfg = &dflt;
  CAIRN_TRY(consCheck(m, pCfg));
  size_t row = cairnMemCurRow(m, id);
  if (row == SIZE_MAX) return cairnErr(CAIRN_NOTFOUND, "explain: no memory %llu (never added, or forgotten)", (unsigned long long)id);
  ConsLinks l;
  CAIRN_TRY(consLinksBuild(m, &l));
  int64_t now = consNowMs(pCfg);
  cairn_score_input x = consInput(m, &l, row);
  cairn_score_parts sp;
  int rc = cairn_score(&pCfg->score, &x, now, &sp);
  int tier = m->aTier[row];
  CairnSb o = {0};
  cairnSbStr(&o, "{\"id\":"), cairnSbU64(&o, id);
  cairnSbStr(&o, ",\"tier\":"), cairnSbI64(&o, tier);
  cairnSbStr(&o, ",\"tierName\":\""), cairnSbStr(&o, consTierName(tier)), cairnSbPut(&o, "\"", 1);
  /* the decision and why */
  char zWhy[512];
  zWhy[0] = 0;
  const char *zDecision = "episodic";
  uint64_t nRank = 0, nWork = 0;
  int64_t evictedMs = 0;
  cairn_score_parts atEvict;
  int hasAtEvict = 0;
  int64_t semOf = rc == CAIRN_OK ? consSemOf(&l, id) : -1;
  if (rc == CAIRN_OK && tier == CAIRN_TIER_WORKING) {
    for (size_t r = 0; r < m->n && rc == CAIRN_OK; r++) {
      if (!memRowLive(m, r) || m->aTier[r] != CAIRN_TIER_WORKING) continue;
      nWork++;
      if (r == row) continue;
      cairn_score_input y = consInput(m, &l, r);
      cairn_score_parts q;
      rc = cairn_score(&pCfg->score, &y, now, &q);
      if (q.score > sp.score || (q.score == sp.score && r < row)) nRank++;
    }
    nRank++;
    if (nRank <= pCfg->capacity) {
      zDecision = "kept";
      cairnFormat(zWhy, sizeof zWhy, "working: its score ranks %llu of %llu working memories, within the capacity of %u",
                  (unsigned long long)nRank, (unsigned long long)nWork, pCfg->capacity);
    } else {
      zDecision = "would_evict";
      cairnFormat(zWhy, sizeof zWhy, "working: its score ranks %llu of %llu working memories, beyond the capacity of %u: the next cycle evicts it to the episodic tier",
                  (unsigned long long)nRank, (unsigned long long)nWork, pCfg->capacity);
    }
  } else if (rc == CAIRN_OK && tier == CAIRN_TIER_SEMANTIC) {
    zDecision = "semantic";
    int64_t s = -1;
    for (uint32_t i = 0; i < l.nSem; i++)
      if (l.aSem[i].id == id) s = i;
    if (s >= 0)
      cairnFormat(zWhy, sizeof zWhy, "semantic: merged from %u episodic memories that recur (near duplicates or linked), text by the %s rule%s",
                  l.aSem[s].nSrc, l.aSem[s].rule ? "summariser" : "extractive (the most central member)",
                  l.aSem[s].dissolve ? "; a source was forgotten: the next cycle forgets this memory and merges the rest again" : "");
    else cairnFormat(zWhy, sizeof zWhy, "semantic: written to the semantic tier by the caller (it cites no sources)");
  }
  /* the tier history: the versions, and for an evicted memory the score when it left */
  uint32_t nVer = 0;
  cairn_mem_record *aVer = NULL;
  if (rc == CAIRN_OK) rc = cairn_mem_history(m, id, NULL, 0, &nVer);
  if (rc == CAIRN_OK && nVer) {
    aVer = cairnMallocArray(nVer, sizeof(cairn_mem_record));
    if (!aVer) rc = cairnErr(CAIRN_NOMEM, "explain: out of memory");
    else rc = cairn_mem_history(m, id, aVer, nVer, &nVer);
  }
  if (rc == CAIRN_OK && tier == CAIRN_TIER_EPISODIC) {
    for (uint32_t i = 1; i < nVer; i++)
      if (aVer[i].tier == CAIRN_TIER_EPISODIC && aVer[i - 1].tier == CAIRN_TIER_WORKING) {
        evictedMs = aVer[i].validFromMs;
        cairn_score_input y = x;
        y.importance = aVer[i - 1].importance, y.accessCount = aVer[i - 1].accessCount;
        rc = cairn_score(&pCfg->score, &y, evictedMs, &atEvict);
        hasAtEvict = 1;
      }
    if (semOf >= 0) {
      zDecision = "merged";
      cairnFormat(zWhy, sizeof zWhy, "episodic%s; it recurs: merged with %u others into semantic memory %llu, which cites it",
                  evictedMs ? " (evicted from the working tier by consolidation)" : "", l.aSem[semOf].nSrc - 1,
                  (unsigned long long)l.aSem[semOf].id);
    } else if (evictedMs) {
      zDecision = "evicted";
      cairnFormat(zWhy, sizeof zWhy, "episodic: evicted from the working tier by consolidation (its score then was below the capacity cut); out of the hot index, searchable with a tier filter");
    } else cairnFormat(zWhy, sizeof zWhy, "episodic: added to the episodic tier by the caller");
  }
  if (rc == CAIRN_OK && !zWhy[0]) cairnFormat(zWhy, sizeof zWhy, "tier %d: outside the cycle (it moves only working memories)", tier), zDecision = "other";
  if (rc == CAIRN_OK) {
    cairnSbStr(&o, ",\"decision\":\""), cairnSbStr(&o, zDecision);
    cairnSbStr(&o, "\",\"why\":"), cairnSbJsonStr(&o, zWhy, strlen(zWhy), 0);
    cairnSbStr(&o, ",\"score\":"), consParts(&o, &sp);
    cairnSbStr(&o, ",\"inputs\":{\"importance\":"), consNum(&o, x.importance);
    cairnSbStr(&o, ",\"accessCount\":"), cairnSbU64(&o, x.accessCount);
    cairnSbStr(&o, ",\"lastMs\":"), cairnSbI64(&o, x.lastMs);
    cairnSbStr(&o, ",\"links\":"), cairnSbU64(&o, x.nLinks);
    cairnSbStr(&o, "},\"nowMs\":"), cairnSbI64(&o, now);
    cairnSbStr(&o, ",\"capacity\":"), cairnSbU64(&o, pCfg->capacity);
    if (tier == CAIRN_TIER_WORKING) cairnSbStr(&o, ",\"rank\":"), cairnSbU64(&o, nRank), cairnSbStr(&o, ",\"working\":"), cairnSbU64(&o, nWork);
    if (hasAtEvict) cairnSbStr(&o, ",\"evictedMs\":"), cairnSbI64(&o, evictedMs), cairnSbStr(&o, ",\"scoreAtEviction\":"), consParts(&o, &atEvict);
    if (semOf >= 0) cairnSbStr(&o, ",\"mergedInto\":"), cairnSbU64(&o, l.aSem[semOf].id);
    for (uint32_t i = 0; i < l.nSem; i++)
      if (l.aSem[i].id == id) {
        cairnSbStr(&o, ",\"sources\":"), consOutIds(&o, l.aSrc + l.aSem[i].iSrc, l.aSem[i].nSrc);
        cairnSbStr(&o, ",\"central\":"), cairnSbU64(&o, l.aSem[i].central);
        cairnSbStr(&o, l.aSem[i].rule ? ",\"rule\":\"summariser\"" : ",\"rule\":\"extractive\"");
      }
    cairnSbStr(&o, ",\"history\":[");
    for (uint32_t i = 0; i < nVer; i++) {
      if (i) cairnSbPut(&o, ",", 1);
      cairnSbStr(&o, "{\"version\":"), cairnSbU64(&o, aVer[i].version);
      cairnSbStr(&o, ",\"tier\":"), cairnSbI64(&o, aVer[i].tier);
      cairnSbStr(&o, ",\"tierName\":\""), cairnSbStr(&o, consTierName(aVer[i].tier));
      cairnSbStr(&o, "\",\"validFromMs\":"), cairnSbI64(&o, aVer[i].validFromMs);
      cairnSbStr(&o, ",\"validToMs\":"), cairnSbI64(&o, aVer[i].validToMs);
      cairnSbPut(&o, "}", 1);
    }
    cairnSbStr(&o, "]}");
  }
  cairnFree(aVer);
  consLinksFree(&l);
  size_t n;
  return cairnSbDone(&o, rc, "explain", pz, &n);
}

int cairn_mem_explain_opts_json(cairn_mem *m, uint64_t id, const char *zOpts, char **pz) {
  CAIRN_RETURN_ERROR_IF(!m || !pz, CAIRN_MISUSE, "explain: NULL argument");
  *pz = NULL;
  Json j;
  uint32_t v;
  CAIRN_TRY(consParse(zOpts, &j, &v));
  cairn_mem_consolidate_config c;
  ConsSummaries sum = {0};
  int rc = consOpts(&j, v, &c, &sum);
  if (rc == CAIRN_OK) rc = cairn_mem_explain_json(m, id, &c, pz);
  cairnJsonFree(&j);
  return rc;
}

/* ------------------------------------------------------------------ the session tick */
static const char *const azTask[4] = {"commit", "consolidate", "index", "checkpoint"};

/* Estimated cost of task t over nRows: its last cost per row, else a first guess (per row, ns). */
static int64_t tickEstimate(const struct MemCons *st, int t, uint64_t nRows) {
  static const int64_t aGuessNs[4] = {200, 2000, 2000, 3000}, aBaseNs[4] = {200000, 100000, 50000, 2000000};
  if (st->aTaskN[t]) return (int64_t)((double)st->aTaskNs[t] / (double)st->aTaskN[t] * (double)nRows);
  return aBaseNs[t] + aGuessNs[t] * (int64_t)nRows;
}

int cairn_mem_tick(cairn_mem *m, const cairn_mem_tick_config *pCfg, cairn_mem_tick_report *pRep) {
  cairn_mem_tick_report rz;
  cairn_mem_tick_report *r = pRep ? pRep : &rz;
  memset(r, 0, sizeof *r);
  CAIRN_RETURN_ERROR_IF(!m || !pCfg, CAIRN_MISUSE, "tick: NULL argument");
  CAIRN_RETURN_ERROR_IF(pCfg->budgetMs < 0, CAIRN_RANGE, "tick: budget of %lld ms (give a budget >= 0)", (long long)pCfg->budgetMs);
  if (pCfg->pConsolidate) CAIRN_TRY(consCheck(m, pCfg->pConsolidate));
  CAIRN_RETURN_ERROR_IF(m->rcFatal, m->rcFatal, "tick: an earlier checkpoint failed; reopen the store");
  int64_t t0 = cairnClock(1), budgetNs = pCfg->budgetMs > INT64_MAX / 1000000 ? INT64_MAX : pCfg->budgetMs * 1000000;
  struct MemCons *st = consState(m);
  if (!st) return cairnErr(CAIRN_NOMEM, "tick: out of memory");
  if (m->readOnly) {
    r->ns = cairnClock(1) - t0;
    return CAIRN_OK; /* nothing to maintain in a read-only handle */
  }
  uint32_t ckAt = pCfg->checkpointAt ? pCfg->checkpointAt : 1024;
  uint64_t aRows[4] = {0};
  /* what is due */
  if (m->nPend || m->nCommitted < m->n) r->due |= CAIRN_TICK_COMMIT, aRows[0] = m->n - m->nCommitted + 1;
  if (pCfg->pConsolidate) {
    size_t nW = 0;
    int fresh = 0;
    for (size_t i = 0; i < m->n; i++)
      if (memRowLive(m, i)) {
        nW += m->aTier[i] == CAIRN_TIER_WORKING;
        fresh |= m->aTier[i] == CAIRN_TIER_EPISODIC && i >= st->nRowSeen;
      }
    if (nW > pCfg->pConsolidate->capacity || (fresh && pCfg->pConsolidate->mergeThreshold >= 0) || m->forgetPending)
      r->due |= CAIRN_TICK_CONSOLIDATE, aRows[1] = m->n;
  }
  if (m->ivf.kind && (m->ivf.nAssigned < m->vecs.n || m->ivf.dirty)) r->due |= CAIRN_TICK_INDEX, aRows[2] = m->vecs.n - m->ivf.nAssigned + 1;
  int canCk = m->f && m->fmt == 2 && m->ckEvery != UINT32_MAX;
  if (canCk && (m->n - m->nCk >= ckAt || m->forgetPending)) r->due |= CAIRN_TICK_CHECKPOINT, aRows[3] = m->n;
  int rc = CAIRN_OK, wrote = 0;
  for (int t = 0; t < 4 && rc == CAIRN_OK; t++) {
    unsigned bit = 1u << t;
    if (!(r->due & bit)) continue;
    int64_t left = budgetNs - (cairnClock(1) - t0);
    if (budgetNs == 0 || tickEstimate(st, t, aRows[t]) > left) {
      r->skipped |= bit;
      continue;
    }
    int64_t s0 = cairnClock(1);
    switch (t) {
      case 0: rc = cairn_mem_commit(m); break;
      case 1:
        rc = cairn_mem_consolidate(m, pCfg->pConsolidate, &r->consolidate);
        wrote = rc == CAIRN_OK && (r->consolidate.nEvicted || r->consolidate.nPromoted || r->consolidate.nDissolved);
        break;
      case 2: rc = cairnIvfUpkeep(&m->ivf, &m->vecs); break;
      default: rc = cairn_mem_checkpoint(m), wrote = 0; break;
    }
    r->aTaskNs[t] = cairnClock(1) - s0;
    if (rc == CAIRN_OK) r->done |= bit, st->aTaskNs[t] = r->aTaskNs[t], st->aTaskN[t] = aRows[t] ? aRows[t] : 1;
  }
  if (rc == CAIRN_OK && wrote && m->f) rc = cairn_mem_commit(m);
  r->ns = cairnClock(1) - t0;
  return rc;
}

static void tickBits(CairnSb *o, unsigned bits) {
  cairnSbPut(o, "[", 1);
  int first = 1;
  for (int t = 0; t < 4; t++)
    if (bits & (1u << t)) {
      if (!first) cairnSbPut(o, ",", 1);
      cairnSbPut(o, "\"", 1), cairnSbStr(o, azTask[t]), cairnSbPut(o, "\"", 1);
      first = 0;
    }
  cairnSbPut(o, "]", 1);
}

int cairn_mem_tick_json(cairn_mem *m, const char *zOpts, char **pz) {
  CAIRN_RETURN_ERROR_IF(!m || !pz, CAIRN_MISUSE, "tick_json: NULL argument");
  *pz = NULL;
  Json j;
  uint32_t v;
  CAIRN_TRY(consParse(zOpts, &j, &v));
  cairn_mem_tick_config t;
  memset(&t, 0, sizeof t);
  t.budgetMs = 50;
  cairn_mem_consolidate_config c;
  ConsSummaries sum = {0};
  int rc = CAIRN_OK;
  if (j.n && j.a[0].type != JSON_OBJ) rc = cairnErr(CAIRN_MISUSE, "tick: options must be a JSON object");
  double d = 0;
  int have = 0;
  if (rc == CAIRN_OK && j.n) {
    for (uint32_t k = cairnJsonChild(&j, 0); k && rc == CAIRN_OK; k = j.a[k].next ? j.a[j.a[k].next].next : 0)
      if (strcmp(j.a[k].z, "budgetMs") && strcmp(j.a[k].z, "checkpointAt") && strcmp(j.a[k].z, "consolidate"))
        rc = cairnErr(CAIRN_MISUSE, "tick: unknown option '%s' (budgetMs, checkpointAt, consolidate)", j.a[k].z);
    if (rc == CAIRN_OK) rc = consOptNum(&j, 0, "budgetMs", -1e15, 1e15, &d, &have);
    if (rc == CAIRN_OK && have) t.budgetMs = (int64_t)d;
    if (rc == CAIRN_OK) rc = consOptNum(&j, 0, "checkpointAt", 0, 4294967295.0, &d, &have);
    if (rc == CAIRN_OK && have) t.checkpointAt = (uint32_t)d;
  }
  uint32_t vc = rc == CAIRN_OK && j.n ? cairnJsonGet(&j, 0, "consolidate") : 0;
  if (rc == CAIRN_OK && !(vc && j.a[vc].type == JSON_FALSE)) {
    if (vc) rc = consOpts(&j, vc, &c, &sum);
    else memset(&c, 0, sizeof c), c.capacity = 1000;
    t.pConsolidate = &c;
  }
  cairn_mem_tick_report r;
  memset(&r, 0, sizeof r);
  if (rc == CAIRN_OK) rc = cairn_mem_tick(m, &t, &r);
  CairnSb o = {0};
  if (rc == CAIRN_OK) {
    cairnSbStr(&o, "{\"due\":"), tickBits(&o, r.due);
    cairnSbStr(&o, ",\"done\":"), tickBits(&o, r.done);
    cairnSbStr(&o, ",\"skipped\":"), tickBits(&o, r.skipped);
    cairnSbStr(&o, ",\"budgetMs\":"), cairnSbI64(&o, t.budgetMs);
    cairnSbStr(&o, ",\"ms\":"), consNum(&o, (double)r.ns / 1e6);
    cairnSbStr(&o, ",\"taskMs\":{");
    for (int i = 0; i < 4; i++) {
      if (i) cairnSbPut(&o, ",", 1);
      cairnSbPut(&o, "\"", 1), cairnSbStr(&o, azTask[i]), cairnSbStr(&o, "\":"), consNum(&o, (double)r.aTaskNs[i] / 1e6);
    }
    cairnSbPut(&o, "}", 1);
    if (r.done & CAIRN_TICK_CONSOLIDATE) cairnSbStr(&o, ",\"consolidate\":"), consReportJson(&o, &r.consolidate), cairnSbPut(&o, "}", 1);
    cairnSbPut(&o, "}", 1);
  }
  cairnJsonFree(&j);
  size_t n;
  return cairnSbDone(&o, rc, "tick_json", pz, &n);
}
