/*
** 2026-12-02
**
** core/kg/kg_int.h - the knowledge graph's private structures, shared by kg.c (model, resolution,
** queries), kg_h5.c (the /graph group), kg_json.c, kg_extract.c and kg_search.c.
**
** Every table is an append-only array whose rows mirror the file's rows one for one (FORMAT.md):
** a commit appends rows [nSaved, n) and rewrites the rows changed in place (listed in the
** table's dirty list). Strings live in one pool (the file's /graph/strtab), referenced by
** offset. A failed multi-step change rolls back to a savepoint: tables are cut to their saved
** lengths, the in-place changes undone from an undo log, and the hash maps rebuilt.
*/
#ifndef CAIRN_KG_INT_H
#define CAIRN_KG_INT_H

#include "cairn/h5w.h"
#include "cairn/kg.h"
#include "common/internal.h"
#include "mem/mem_hook.h"

#define KG_NIL UINT32_MAX

typedef struct KgList { /* a small growable list of memory ids */
  uint64_t *a;
  uint32_t n, cap;
} KgList;

typedef struct KgEnt {
  uint32_t zName, zNorm, zType; /* pool offsets */
  uint32_t canon;               /* 0 = itself, else the entity it was merged into */
  KgList mem;                   /* memories that mention it (this entity only) */
  uint32_t nAlias;
  int32_t iEmb;                 /* index into aEmb or -1 */
  uint32_t factHead;            /* latest fact (index + 1) with this subject, 0 none */
} KgEnt;

typedef struct KgFact {
  uint32_t subj, pred, obj; /* obj 0 = literal */
  uint32_t zLit;            /* pool offset or KG_NIL */
  int64_t validAt, invalidAt, createdAt, expiredAt;
  uint32_t removed;
  uint32_t nextSubj; /* previous fact (index + 1) with the same subject entity, 0 none */
  KgList src;
} KgFact;

typedef struct KgPred { uint32_t zName; uint32_t functional; } KgPred;
typedef struct KgAlias { uint32_t zNorm, zAlias, ent; } KgAlias;
typedef struct KgRow2 { uint64_t a, b, alive; } KgRow2; /* mentions / sources rows */
typedef struct KgTime { uint64_t mem; int64_t lo, hi; } KgTime;
typedef struct KgMerge { uint32_t from, into, zReason, undone; } KgMerge;
typedef struct KgEmb { uint32_t ent, n; float *a; } KgEmb;

typedef struct KgMap { /* open addressing: string (pool offset) -> value */
  uint32_t *aKey, *aVal; /* aKey KG_NIL = empty */
  uint32_t nSlot, nUsed;
} KgMap;

typedef struct KgDirty { uint32_t *a; size_t n, cap; } KgDirty;

/* in-place changes, for rollback */
typedef struct KgUndo { int kind; uint32_t i; int64_t old; } KgUndo;

struct cairn_kg {
  cairn_file *f;
  cairn_h5w *w;
  cairn_mem *m;    /* the store whose file holds the graph (cairn_kg_open_mem), NULL none */
  int bAttached;   /* opened by cairn_kg_open_mem (m NULL again once the store closed) */
  int bUnread;     /* lazy open: /graph of fUnread not decoded yet; the first graph call reads it (cairnKgNeed) */
  cairn_file *fUnread;
  int rcRead;      /* that read failed: every later call returns this (zRead: its message) */
  char zRead[200];
  cairnMemHook hook;
  size_t poolDirtyLo, poolDirtyHi; /* pool bytes wiped in place (forgetting) since the last save */
  unsigned flags;
  int bFresh;      /* the file was empty at open (a failed first commit may be redone from scratch) */
  unsigned h5Have; /* bit t: table t exists in the file; 29 embedding values, 30 strtab, 31 the group */
  char *pool; size_t nPool, capPool, nPoolSaved;
  KgEnt *aEnt; size_t nEnt, capEnt, nEntSaved; /* entity id i+1 at [i] */
  KgFact *aFact; size_t nFact, capFact, nFactSaved;
  KgPred *aPred; size_t nPred, capPred, nPredSaved;
  KgAlias *aAlias; size_t nAlias, capAlias, nAliasSaved;
  KgRow2 *aMention; size_t nMention, capMention, nMentionSaved;
  KgRow2 *aSource; size_t nSource, capSource, nSourceSaved;
  KgTime *aTime; size_t nTime, capTime, nTimeSaved;
  KgMerge *aMerge; size_t nMerge, capMerge, nMergeSaved;
  KgEmb *aEmb; size_t nEmb, capEmb, nEmbSaved;
  KgDirty dEnt, dFact, dPred, dMention, dSource, dMerge;
  KgMap mName, mAlias, mPred;
  /* savepoint */
  int inTxn;
  size_t sp[10];
  KgUndo *aUndo; size_t nUndo, capUndo;
  /* derived, rebuilt on demand */
  int adjStale;
  uint32_t *adjStart, *adjEdge; /* CSR over canonical ids: adjEdge holds fact<<1 | out */
  uint32_t *adjOther;
  uint8_t *adjNow; /* per edge: the fact is valid now (CAIRN_KG_NOW without a look at the fact) */
  size_t capAdjE;
  int timeStale;
  uint32_t *aTimeOrder; int64_t maxTimeLen;
  int64_t *aTimeLo; KgTime *aTimeS; /* the intervals in order of lo, contiguous (range queries) */
  uint64_t *aTimeMem; size_t nTimeMem; /* sorted unique memories with a time */
  size_t nLiveMerge;
  uint32_t *aTri, *aTriStart; size_t nTri, capTri, capTriStart, nTriEnt; /* trigram cache (resolve) */
  int validStale;
  uint32_t *aValidOrder; size_t nValidOrder;
  /* scratch for queries */
  uint32_t *aMark; uint32_t markGen; size_t capMark;
  uint32_t *aQueue, *aPrev; float *aAct, *aAct2;
};

#define KG_STR(g, off) ((g)->pool + (off))

/* kg.c */
int cairnKgPoolAdd(cairn_kg *g, const char *z, size_t n, uint32_t *pOff);
int cairnKgBegin(cairn_kg *g);
void cairnKgEnd(cairn_kg *g, int rc);
int cairnKgRebuildMaps(cairn_kg *g);
int cairnKgPredId(cairn_kg *g, const char *zPred, int bCreate, uint32_t *pId);
int cairnKgEntityFind(cairn_kg *g, const char *zNorm, size_t nNorm, uint32_t *pId); /* canonical */
int cairnKgMemHasTime(cairn_kg *g, uint64_t memId);
int cairnKgTimeIndex(cairn_kg *g);
int cairnKgListAdd(KgList *l, uint64_t v);
int cairnKgValidAt(const KgFact *f, int64_t asOf);
int cairnKgAdjacency(cairn_kg *g);
/* kg_mem.c */
int cairnKgAttach(cairn_kg *g, cairn_mem *m, cairn_file *fOld);
void cairnKgDetach(cairn_kg *g);
/* kg_h5.c */
int cairnKgLoad(cairn_kg *g);
/* Lazy open (2026-12-02): read /graph now if the open deferred it; an error sticks. KG_NEED at the
** top of every public call that looks at the graph's rows. */
int cairnKgNeed(cairn_kg *g);
int cairnKgAttachRead(cairn_kg *g); /* kg_mem.c: the attached graph's deferred read */
#define KG_NEED(g) \
  do { \
    if ((g) && ((g)->bUnread || (g)->rcRead)) CAIRN_TRY(cairnKgNeed(g)); \
  } while (0)
int cairnKgLoadFile(cairn_kg *g, cairn_file *f, int *pbFound);
int cairnKgSave(cairn_kg *g);
int cairnKgSaveInto(cairn_kg *g, cairn_h5w *w, int bWhole); /* no commit: the store's checkpoint commits */
int cairnKgPending(const cairn_kg *g);
void cairnKgMarkSaved(cairn_kg *g);
void cairnKgMarkUnsaved(cairn_kg *g); /* every row to be written (a graph moved into another file) */
/* kg_time.c */
int64_t cairnKgDaysFromCivil(int y, int m, int d);
void cairnKgCivil(int64_t days, int *py, int *pm, int *pd);
/* kg_extract.c: name spans (offset, length) a query mentions, for kg_search.c */
int cairnKgNameSpans(const char *z, size_t n, uint32_t *aSpan, uint32_t nMax, uint32_t *pn);

#endif /* CAIRN_KG_INT_H */
