/*
** 2026-12-02
**
** cairn/consolidate.h - a memory store that tends itself (issue 18, items 1 and 3): the tiers
** Working -> Episodic -> Semantic, the consolidation cycle that moves memories between them,
** `explain` (why a memory is where it is), and the session tick (due maintenance within a time
** budget). Everything goes through the store's versioned API (cairn/mem.h): a tier change is a
** new version (cairn_mem_update), so a memory's tier history is its version history, and a
** crash leaves the last commit (a cycle is logged as one batch: commit once after it).
**
**   cairn_mem_consolidate_config c = {0};
**   c.capacity = 100;                          // working memories kept hot
**   c.score.halfLifeH = 24;                    // recency decays by half a day (cairn/score.h)
**   cairn_mem_consolidate_report r;
**   cairn_mem_consolidate(m, &c, &r);          // score, evict, promote
**   cairn_mem_commit(m);
**
** The cycle:
**   1. score every current memory (cairn/score.h): its importance, access count, recency (its
**      event time against now, with c.score.halfLifeH) and the links other memories make to it
**      (metadata "links": [ids], and the "sources" a semantic memory cites);
**   2. evict: the Working tier (0) keeps its `capacity` best; every other working memory gets a
**      new version in the Episodic tier (1): out of the hot index (search with the filter
**      {"tier": [0, 2]}, CAIRN_MEM_HOT_TIERS), still searchable with any other filter, and
**      forgettable (cairn_mem_delete);
**   3. promote what recurs: episodic memories that are near duplicates (cosine of their
**      embeddings >= mergeThreshold; text-only stores: of the built-in embedder's vectors) or
**      that link each other (each names the other in "links") are merged into one Semantic
**      memory (tier 2) whose metadata cites them: {"sources": [ids], "central": id, "rule":
**      "extractive" | "summariser", "consolidatedMs": ms}. Its text comes from the caller's
**      summariser, or the built-in extractive rule: the text of the most central member (the
**      highest summed similarity to the others); the others are linked as sources. An episodic
**      memory that joins an existing group gives the semantic memory a new version (its history
**      is the history of the merge). The sources stay in the Episodic tier;
**   4. forgetting: a semantic memory one of whose sources was forgotten is forgotten too (its text
**      may hold the forgotten one's words), and its remaining sources are merged again.
** Incremental: scoring and eviction are a pass over the current memories (a few ns each); the
** promotion compares only the episodic memories new since the handle's last cycle (or freed by a
** dissolved group) with the others, so its cost follows what changed.
**
** Failure: the plan (scores, groups, summaries) is made before anything is written; a summariser
** that fails (non-zero) fails the cycle with its code, and one that returns an empty, oversized or
** invalid UTF-8 text fails it with CAIRN_TYPE: the store is unchanged in both cases. Running out
** of memory while writing can leave part of the cycle applied in memory (each step a valid
** version): do not commit then, close the handle (uncommitted work is dropped).
*/
#ifndef CAIRN_CONSOLIDATE_H
#define CAIRN_CONSOLIDATE_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "mem.h"
#include "score.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CAIRN_TIER_WORKING  0
#define CAIRN_TIER_EPISODIC 1
#define CAIRN_TIER_SEMANTIC 2
/* cairn_mem_filter.tierMask of the hot index: working and semantic memories. */
#define CAIRN_MEM_HOT_TIERS ((1u << CAIRN_TIER_WORKING) | (1u << CAIRN_TIER_SEMANTIC))

/*
** A summariser: write one text for the n memories (ids aId, texts azText) of a group into *pzOut.
** The text must stay valid until the next call of the summariser or the end of the cycle (the
** caller's buffer). Return 0 with *pzOut NULL to decline (the extractive rule is used), non-zero
** to fail the whole cycle (nothing is changed; the code is returned).
*/
typedef int (*cairn_mem_summarise_fn)(void *pCtx, uint32_t n, const uint64_t *aId, const char *const *azText,
                                      const char **pzOut);

typedef struct cairn_mem_consolidate_config {
  cairn_score_config score; /* weights and half-lives (cairn/score.h; zeros = its defaults) */
  uint32_t capacity;        /* working memories kept, >= 1 (0 fails with CAIRN_RANGE) */
  float mergeThreshold;     /* cosine at or above which episodic memories are near duplicates,
                            ** in (0, 1]; 0 = 0.9; negative = no promotion */
  uint32_t minGroup;        /* members of a new semantic memory, >= 2; 0 = 2 */
  int noLinkMerge;          /* 1: links do not merge (only near duplicates) */
  int64_t nowMs;            /* "now" for recency and the versions written; 0 = the host clock */
  int dryRun;               /* 1: plan and report only; the store is not changed */
  cairn_mem_summarise_fn xSummarise; /* NULL = the extractive rule */
  void *pSummariseCtx;
} cairn_mem_consolidate_config;

typedef struct cairn_mem_consolidate_report {
  uint64_t nScored;     /* current memories scored */
  uint64_t nWorking;    /* working memories before the cycle */
  uint64_t nEvicted;    /* moved to the episodic tier */
  uint64_t nHot;        /* working + semantic memories after it (the hot index) */
  uint64_t nEpisodic;   /* episodic memories after it */
  uint64_t nCompared;   /* episodic memories compared for promotion (the incremental part) */
  uint64_t nPromoted;   /* semantic memories written (new ones and new versions) */
  uint64_t nMerged;     /* episodic memories those cite */
  uint64_t nDissolved;  /* semantic memories forgotten (a source forgotten, or joined to another) */
  uint64_t nSummarised; /* texts from the summariser (the rest extractive) */
  int64_t ns;           /* time the cycle took */
} cairn_mem_consolidate_report;

/* Run one cycle; pRep (may be NULL) gets what it did. Errors: CAIRN_MISUSE (NULL, bad settings),
** CAIRN_RANGE (capacity 0, mergeThreshold > 1), CAIRN_READONLY, the summariser's code, CAIRN_TYPE
** (a summary that is empty, longer than CAIRN_MEM_MAX_TEXT or not UTF-8), CAIRN_NOMEM. */
CAIRN_API int cairn_mem_consolidate(cairn_mem *pMem, const cairn_mem_consolidate_config *pCfg,
                                    cairn_mem_consolidate_report *pRep);

/*
** Why memory id is where it is, as JSON (free with cairn_free): {"id", "tier", "tierName",
** "decision": "kept" | "would_evict" | "evicted" | "merged" | "semantic" | "episodic",
** "why": a sentence, "score": {"score", "value", "access", "recency", "links"} (now, with pCfg's
** settings), "inputs": {"importance", "accessCount", "lastMs", "links"}, "rank" and "working"
** (working memories: its place among them by score) and "capacity", "evictedMs" and
** "scoreAtEviction" (evicted ones: the parts at that time), "mergedInto" (episodic memories a
** semantic one cites), "sources", "central", "rule" (semantic ones), "history": [{"version",
** "tier", "validFromMs", "validToMs"}]}. pCfg NULL: capacity 1000 and the default score.
** Reads only: CAIRN_NOTFOUND for an unknown or forgotten id.
*/
CAIRN_API int cairn_mem_explain_json(cairn_mem *pMem, uint64_t id, const cairn_mem_consolidate_config *pCfg, char **pzJson);

/*
** The JSON forms (for bindings and the CLI). zOpts (NULL or "" = defaults): {"capacity": 1000,
** "halfLifeHours", "accessHalf", "linkHalf", "weights": {"value", "access", "recency", "links"},
** "mergeThreshold", "minGroup", "linkMerge": bool, "now": ms, "dryRun": bool, "summaries":
** [{"sources": [ids], "text": "..."}] (the summaries of a plan: a group whose sources are exactly
** these gets this text; other groups the extractive rule)}. *pzReport: {"scored", "working",
** "evicted", "hot", "episodic", "compared", "promoted", "merged", "dissolved", "summarised",
** "ms", "evict": [ids], "groups": [{"sources": [ids], "central": id, "semantic": id (the
** existing one extended; 0 new), "texts": [..] (dry runs), "rule"}]}. A binding with an async
** summariser runs it twice: a dry run for the groups, then the run with their summaries.
*/
CAIRN_API int cairn_mem_consolidate_json(cairn_mem *pMem, const char *zOpts, char **pzReport);
CAIRN_API int cairn_mem_explain_opts_json(cairn_mem *pMem, uint64_t id, const char *zOpts, char **pzJson);

/* ---- the session tick ---- */
typedef struct cairn_mem_tick_config {
  int64_t budgetMs;        /* the time the tick may take, >= 0; 0 runs nothing (every due task
                           ** is reported skipped); < 0 fails with CAIRN_RANGE */
  const cairn_mem_consolidate_config *pConsolidate; /* NULL: no consolidation */
  uint32_t checkpointAt;   /* a checkpoint is due when the log holds this many memories or a
                           ** forget waits for its rewrite; 0 = 1024 */
} cairn_mem_tick_config;

#define CAIRN_TICK_COMMIT      0x01 /* the log flushed (commit) */
#define CAIRN_TICK_CONSOLIDATE 0x02 /* a consolidation cycle */
#define CAIRN_TICK_INDEX       0x04 /* index upkeep: new rows into the IVF lists */
#define CAIRN_TICK_CHECKPOINT  0x08 /* the log moved into the HDF5 datasets */

typedef struct cairn_mem_tick_report {
  unsigned due;     /* CAIRN_TICK_* bits: what was due */
  unsigned done;    /* what ran */
  unsigned skipped; /* due but left for a later tick: its estimated cost did not fit the budget */
  cairn_mem_consolidate_report consolidate; /* when CAIRN_TICK_CONSOLIDATE ran */
  int64_t ns;       /* time the tick took */
  int64_t aTaskNs[4]; /* per task (commit, consolidate, index, checkpoint), 0 if not run */
} cairn_mem_tick_report;

/*
** Run the maintenance that is due, cheapest and most urgent first (commit, consolidation when the
** working tier is over capacity or episodic memories are new, IVF upkeep, checkpoint), each only
** if its estimated cost (its last measured cost per memory, or a first guess) fits what is left
** of the budget; a task that has started runs to its end (no task is cut half-way: each is
** crash-safe as a whole). The tick ends with a commit when it wrote anything. pRep may be NULL.
*/
CAIRN_API int cairn_mem_tick(cairn_mem *pMem, const cairn_mem_tick_config *pCfg, cairn_mem_tick_report *pRep);
/* JSON form: zOpts {"budgetMs": 50, "checkpointAt": n, "consolidate": {as cairn_mem_consolidate_json}
** | false}; *pzReport {"due": [names], "done": [..], "skipped": [..], "ms", "taskMs": {..},
** "consolidate": {the report} }. Default budget 50 ms, consolidation with capacity 1000. */
CAIRN_API int cairn_mem_tick_json(cairn_mem *pMem, const char *zOpts, char **pzReport);

#ifdef __cplusplus
}
#endif
#endif /* CAIRN_CONSOLIDATE_H */
