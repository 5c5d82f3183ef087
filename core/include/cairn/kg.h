/*
** 2026-12-02
**
** cairn/kg.h - a knowledge graph with time, beside the memory store: entities (canonical name,
** type, aliases, optional embedding, the memories that mention them) and facts (subject,
** predicate, object entity or literal) with bi-temporal validity in the manner of Zep's
** Graphiti: validAt / invalidAt say when the fact held in the world, createdAt / expiredAt
** when the store learnt it and when it stopped believing it. Nothing is deleted by a newer
** fact: a fact on a functional predicate (lives_in) invalidates the old edge and keeps it.
**
**   cairn_kg *g;
**   cairn_kg_open(NULL, 0, &g);                  // in memory; or a cairn_file for /graph
**   cairn_kg_functional(g, "lives_in", 0);
**   cairn_kg_fact f = {0};
**   f.zSubject = "Maya"; f.zPredicate = "lives_in"; f.zObject = "Lisbon";
**   f.validAt = ms; f.aSource = &memId; f.nSource = 1;
**   cairn_kg_add_fact(g, &f, NULL);
**   uint32_t e; cairn_kg_find(g, "maya", &e);    // names resolve through aliases
**   cairn_kg_commit(g);                          // durable (a file-backed graph)
**
** Entities are numbered 1, 2, 3... in order of creation, facts likewise; numbers never change
** (a merge points one entity at another; cairn_kg_canon follows the pointers). Every query takes
** a valid time `asOf` (CAIRN_KG_NOW: what is valid now, i.e. not invalidated; CAIRN_KG_ANY:
** every fact ever stored and not removed). Times are ms since 1970, within years 1..9999.
**
** Storage: a /graph group of an HDF5 file written through cairn/h5w.h (layout in
** core/kg/FORMAT.md; h5py reads it): the memory store's own file (cairn_kg_open_mem) or a file
** of its own (cairn_kg_open). Changes are appended (and changed rows rewritten copy-on-write) at
** cairn_kg_commit, which is one h5w commit: a crash leaves the last commit.
**
** Threads: a handle is used by one thread at a time. Strings returned stay valid until the next
** call that changes the graph.
*/
#ifndef CAIRN_KG_H
#define CAIRN_KG_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "host.h"
#include "mem.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cairn_kg cairn_kg;

#define CAIRN_KG_NONE INT64_MIN     /* a time not set (validAt unknown; never invalidated) */
#define CAIRN_KG_NOW  INT64_MAX     /* asOf: facts not invalidated */
#define CAIRN_KG_ANY  (INT64_MAX-1) /* asOf: every fact not removed */
#define CAIRN_KG_TIME_MIN (-62135596800000LL) /* 0001-01-01 */
#define CAIRN_KG_TIME_MAX (253402300799999LL) /* 9999-12-31T23:59:59.999 */
#define CAIRN_KG_MAX_NAME 512         /* bytes of a name, type, predicate or literal */
#define CAIRN_KG_MAX_SOURCE 4096      /* source memories of one fact given at once */

/*
** Open a graph. f NULL: in memory only. Otherwise f is an HDF5 file (an empty file becomes a new
** one) whose /graph group is read now and written at each cairn_kg_commit; the caller closes f
** after cairn_kg_close. flags: CAIRN_KG_READONLY (changes fail with CAIRN_READONLY),
** CAIRN_KG_NOSYNC (commits skip fsync). A file without /graph gets one at the first commit.
*/
#define CAIRN_KG_READONLY 0x1
#define CAIRN_KG_NOSYNC 0x2
CAIRN_API int cairn_kg_open(cairn_file *f, unsigned flags, cairn_kg **ppKg);
/*
** Open the graph kept inside memory store m's own HDF5 file (its /graph group, read now) and
** attach it to m: each checkpoint of m (cairn_mem_checkpoint, the automatic ones, a forget's or
** compaction's rewrite, cairn_mem_close) writes the graph's changes in the same h5w commit as the
** memories, so a crash leaves both at the last checkpoint; cairn_kg_commit checkpoints m.
** Forgetting a memory (cairn_mem_delete) removes the facts only it supported, and their literal
** text leaves the file at the next checkpoint. fOld (may be NULL): a graph file of before
** (FILE.graph), read when m's file has no /graph yet; its rows move into m's file at the next
** checkpoint, after which the caller may delete it. A read-only m gives a read-only graph.
** Close the graph before m (a graph whose store closed first turns read-only). flags as above.
*/
CAIRN_API int cairn_kg_open_mem(cairn_mem *m, cairn_file *fOld, unsigned flags, cairn_kg **ppKg);
/* Commit (when file-backed and writable) and free. NULL is a no-op. */
CAIRN_API int cairn_kg_close(cairn_kg *g);
/* Make every change so far durable in one h5w commit. In memory: a no-op. */
CAIRN_API int cairn_kg_commit(cairn_kg *g);

/* ---- entities ---- */
typedef struct cairn_kg_entity {
  uint32_t id;
  uint32_t canon;        /* the entity it was merged into (itself if not merged) */
  const char *zName;     /* canonical name as first given */
  const char *zType;     /* "" if none */
  uint32_t nAlias;       /* aliases pointing at it (cairn_kg_alias_at) */
  uint32_t nMention;     /* memories mentioning it (cairn_kg_mentions) */
  uint32_t nEmbedding;   /* 0 if none */
} cairn_kg_entity;

/* Normalise a name the way lookups do: NFC-less casefold of ASCII and Latin-1, punctuation to
** single spaces, leading "the " and trailing possessive 's dropped. Writes at most nOut-1 bytes
** and a NUL into zOut; returns the length. */
CAIRN_API size_t cairn_kg_normalize(const char *zName, char *zOut, size_t nOut);
/*
** Find or create the entity named zName (exact normalised name or alias; no fuzzy matching:
** see cairn_kg_resolve). zType may be NULL; a type given for an untyped entity is recorded.
** Errors: CAIRN_RANGE (empty or longer than CAIRN_KG_MAX_NAME), CAIRN_READONLY.
*/
CAIRN_API int cairn_kg_entity_add(cairn_kg *g, const char *zName, const char *zType, uint32_t *pId);
/* Exact lookup (normalised name, then aliases), following merges: CAIRN_NOTFOUND if none. */
CAIRN_API int cairn_kg_find(cairn_kg *g, const char *zName, uint32_t *pId);
CAIRN_API int cairn_kg_entity_get(cairn_kg *g, uint32_t id, cairn_kg_entity *pOut);
CAIRN_API uint32_t cairn_kg_entity_count(cairn_kg *g);
CAIRN_API uint32_t cairn_kg_canon(cairn_kg *g, uint32_t id); /* 0 for an unknown id */
/* Alias zAlias -> entity id. An alias already naming another (canonical) entity: CAIRN_EXISTS,
** nothing changed; the same entity again: a no-op. */
CAIRN_API int cairn_kg_alias(cairn_kg *g, uint32_t id, const char *zAlias);
CAIRN_API int cairn_kg_alias_at(cairn_kg *g, uint32_t id, uint32_t i, const char **pzAlias);
/* Embedding of an entity (copied; replaces an earlier one; n 1..8192, finite values). */
CAIRN_API int cairn_kg_embedding(cairn_kg *g, uint32_t id, const float *a, uint32_t n);
/* Record that memory memId mentions entity id (idempotent). */
CAIRN_API int cairn_kg_mention(cairn_kg *g, uint32_t id, uint64_t memId);
/* Memories mentioning entity id and every entity merged into it: up to nMax ids into aOut,
** *pn the total. */
CAIRN_API int cairn_kg_mentions(cairn_kg *g, uint32_t id, uint64_t *aOut, uint32_t nMax, uint32_t *pn);

/* ---- entity resolution ---- */
typedef struct cairn_kg_match {
  uint32_t id;      /* canonical entity */
  float score;      /* 0..1: 1 exact or alias; else the best of the measures below */
  int how;          /* CAIRN_KG_BY_* */
} cairn_kg_match;
#define CAIRN_KG_BY_EXACT 0
#define CAIRN_KG_BY_ALIAS 1
#define CAIRN_KG_BY_EDIT 2      /* 1 - Levenshtein / longer length (normalised names) */
#define CAIRN_KG_BY_TRIGRAM 3   /* Jaccard similarity of character trigrams */
#define CAIRN_KG_BY_EMBEDDING 4 /* cosine of the embeddings (aEmb given and entity has one) */
#define CAIRN_KG_BY_TOKEN 5     /* the name is one word of a multi-word name ("Maya" ~ "Maya Silva") */
/* The best candidates for zName (aEmb may be NULL) with score >= minScore, best first. */
CAIRN_API int cairn_kg_resolve(cairn_kg *g, const char *zName, const float *aEmb, uint32_t nEmb, float minScore,
                     cairn_kg_match *aOut, uint32_t nMax, uint32_t *pn);
/* Merge entity `from` into `into` (both canonical, different): lookups of from's names, its
** facts and mentions then answer for `into`. *pMerge (may be NULL) numbers the merge (1...).
** zReason is kept as provenance (NULL = ""). Cycles are impossible: merging an entity into one
** merged into it fails with CAIRN_MISUSE. */
CAIRN_API int cairn_kg_merge(cairn_kg *g, uint32_t from, uint32_t into, const char *zReason, uint32_t *pMerge);
/* Undo merge number iMerge (only the latest live merge of `from`): its entity is its own again. */
CAIRN_API int cairn_kg_unmerge(cairn_kg *g, uint32_t iMerge);

/* ---- facts ---- */
typedef struct cairn_kg_fact {
  const char *zSubject;   /* entity name (found or created) ... */
  uint32_t subject;       /* ... or its id when zSubject is NULL */
  const char *zPredicate; /* required: lives_in, works_at, sister_of... (normalised: lowercase) */
  const char *zObject;    /* object entity name (found or created) ... */
  uint32_t object;        /* ... or its id; neither: zLiteral */
  const char *zLiteral;   /* a value instead of an object entity */
  int64_t validAt, invalidAt;  /* world time; CAIRN_KG_NONE = unknown / still valid */
  int64_t createdAt;      /* store time; CAIRN_KG_NONE = the host clock */
  int64_t expiredAt;      /* CAIRN_KG_NONE = not expired */
  const uint64_t *aSource; /* memories it came from */
  uint32_t nSource;
  /* Filled by cairn_kg_fact_get: */
  uint32_t id;
  int removed;            /* every source memory forgotten */
} cairn_kg_fact;
/*
** Add a fact. The same subject, predicate and object/literal again (and valid time not
** contradicting) adds its sources to the existing fact (*pId = it). On a functional predicate
** a different object invalidates every current fact of the subject with that predicate:
** invalidAt = the new validAt (createdAt when unknown), expiredAt = the new createdAt.
** Errors, nothing changed: CAIRN_MISUSE (no subject, no predicate, or none of object/literal:
** "missing object"), CAIRN_NOTFOUND (an id that does not exist), CAIRN_RANGE (a time outside
** CAIRN_KG_TIME_MIN..MAX, invalidAt before validAt, names too long, too many sources).
** A self-edge (subject == object) is allowed; cycles are allowed (queries visit each entity once).
*/
CAIRN_API int cairn_kg_add_fact(cairn_kg *g, const cairn_kg_fact *f, uint32_t *pId);
CAIRN_API int cairn_kg_fact_get(cairn_kg *g, uint32_t id, cairn_kg_fact *pOut);
CAIRN_API uint32_t cairn_kg_fact_count(cairn_kg *g);
/* Source memories of a fact (up to nMax; *pn the total). */
CAIRN_API int cairn_kg_fact_sources(cairn_kg *g, uint32_t id, uint64_t *aOut, uint32_t nMax, uint32_t *pn);
/* Is fact id valid at asOf (CAIRN_KG_NOW / CAIRN_KG_ANY / a time)? */
CAIRN_API int cairn_kg_fact_valid(cairn_kg *g, uint32_t id, int64_t asOf);
/* Invalidate a fact at world time t (expiredAt = now). */
CAIRN_API int cairn_kg_invalidate(cairn_kg *g, uint32_t id, int64_t t);
/*
** Declare a predicate functional (one current object per subject). When some subject already
** has two or more current facts with different objects: without CAIRN_KG_RESOLVE it fails with
** CAIRN_EXISTS naming the subject (nothing changed); with it, every one but the latest by
** validAt (then createdAt) is invalidated as a new fact would.
*/
#define CAIRN_KG_RESOLVE 0x1
CAIRN_API int cairn_kg_functional(cairn_kg *g, const char *zPredicate, unsigned flags);
/* A memory was forgotten: drop its mentions and its support of facts; facts it alone supported
** are removed (kept in the file, marked removed, never returned). *pnRemoved may be NULL. */
CAIRN_API int cairn_kg_forget_memory(cairn_kg *g, uint64_t memId, uint32_t *pnRemoved);

/* ---- queries (asOf as above; results are canonical entity ids) ---- */
typedef struct cairn_kg_edge {
  uint32_t fact;     /* fact id */
  uint32_t other;    /* the entity at the other end (canonical) */
  int out;           /* 1: from this entity, 0: into it */
} cairn_kg_edge;
CAIRN_API int cairn_kg_neighbors(cairn_kg *g, uint32_t id, int64_t asOf, cairn_kg_edge *aOut, uint32_t nMax, uint32_t *pn);
/* Entities within depth hops (either direction), the start first, each once, in BFS order;
** aDist (may be NULL) their hop counts. */
CAIRN_API int cairn_kg_bfs(cairn_kg *g, uint32_t id, uint32_t depth, int64_t asOf, uint32_t *aOut, uint32_t *aDist,
                 uint32_t nMax, uint32_t *pn);
/* Fewest-hop path from a to b: entity ids a..b into aOut (*pn of them); CAIRN_NOTFOUND if none. */
CAIRN_API int cairn_kg_path(cairn_kg *g, uint32_t a, uint32_t b, int64_t asOf, uint32_t *aOut, uint32_t nMax, uint32_t *pn);
/* Spreading activation: seeds get 1; each step every entity passes decay * its activation split
** over its edges; entities' totals after nStep steps, the highest first. */
CAIRN_API int cairn_kg_activate(cairn_kg *g, const uint32_t *aSeed, uint32_t nSeed, uint32_t nStep, float decay, int64_t asOf,
                      uint32_t *aOut, float *aScore, uint32_t nMax, uint32_t *pn);
/* Facts valid at asOf (the subgraph at a time), in id order. */
CAIRN_API int cairn_kg_facts_at(cairn_kg *g, int64_t asOf, uint32_t *aOut, uint32_t nMax, uint32_t *pn);

/* ---- the temporal index (event times of facts and memories) ---- */
/* Record that memory memId speaks of the world time interval [lo, hi) (from the extractor or
** the caller). */
CAIRN_API int cairn_kg_time_add(cairn_kg *g, uint64_t memId, int64_t lo, int64_t hi);
/* Memories whose intervals overlap [lo, hi) (each once, in time order). */
CAIRN_API int cairn_kg_time_range(cairn_kg *g, int64_t lo, int64_t hi, uint64_t *aOut, uint32_t nMax, uint32_t *pn);
/* Facts whose validAt lies in [lo, hi), in validAt order. */
CAIRN_API int cairn_kg_facts_between(cairn_kg *g, int64_t lo, int64_t hi, uint32_t *aOut, uint32_t nMax, uint32_t *pn);

/* ---- time expressions (core/kg/kg_time.c) ---- */
typedef struct cairn_kg_time {
  uint32_t iStart, nLen; /* the expression in the text (bytes) */
  int64_t lo, hi;        /* the interval it denotes, [lo, hi) ms */
  int grain;             /* CAIRN_KG_GRAIN_* */
  int relative;          /* 1: resolved against the reference time */
} cairn_kg_time;
#define CAIRN_KG_GRAIN_DAY 0
#define CAIRN_KG_GRAIN_WEEK 1
#define CAIRN_KG_GRAIN_MONTH 2
#define CAIRN_KG_GRAIN_YEAR 3
#define CAIRN_KG_GRAIN_PART 4 /* part of a day: morning, last night */
/*
** Find time expressions in zText ("8 May 2023", "May 2023", "2022", "2023-05-08", "yesterday",
** "last week", "last May", "two weeks ago", "the day before", "next month", "on Friday",
** "last weekend", "in the summer") and resolve them against refMs (the memory's own time, or
** the question's "now"). Up to nMax into aOut; *pn how many (never more than nMax).
*/
CAIRN_API int cairn_kg_time_parse(const char *zText, size_t nText, int64_t refMs, cairn_kg_time *aOut, uint32_t nMax, uint32_t *pn);

/* ---- the built-in extractor (core/kg/kg_extract.c) ---- */
/*
** Extract from one memory: proper-noun entities (and the speaker zSpeaker, which "I"/"my"
** refer to), kinship coreference ("my sister Ines" -> Ines sister_of speaker), time
** expressions resolved against refMs (into the temporal index), and a few relation patterns
** (moved to / lives in / works at / is X's ...). Adds them to g with memId as the source.
** Deterministic; no model. *pnEntity, *pnFact (may be NULL) receive what it added.
*/
CAIRN_API int cairn_kg_extract(cairn_kg *g, uint64_t memId, const char *zText, const char *zSpeaker, int64_t refMs,
                     uint32_t *pnEntity, uint32_t *pnFact);
/* The same without a graph, as JSON: {"entities":[{"name","type"}],"facts":[{"s","p","o"}],
** "times":[{"text","lo","hi"}]} (free with cairn_free). */
CAIRN_API int cairn_kg_extract_json(const char *zText, const char *zSpeaker, int64_t refMs, char **pzJson);

/* ---- retrieval that uses the graph and time (core/kg/kg_search.c) ---- */
typedef struct cairn_kg_search_opts {
  int mode;           /* the text search underneath: CAIRN_MEM_BM25 / HYBRID / VECTOR */
  uint32_t k;         /* hits wanted; 0 = 10 */
  int64_t nowMs;      /* the reference time for "last May" in the query; CAIRN_KG_NONE or 0 =
                      ** the newest memory's event time (the host clock when the store is empty) */
  float wGraph;       /* weight of graph proximity; 0 = default 0.35 */
  float wTime;        /* weight of time agreement; 0 = default 0.5 */
  float wContext;     /* weight of the best neighbouring turn of the same session; 0 = 0.4 */
  int noGraph, noTime, noContext; /* turn a part off */
  int noExpand;       /* no expansion through the entities the best text hits mention */
  const cairn_mem_filter *pFilter; /* as cairn_mem_search */
} cairn_kg_search_opts;
/*
** One search over mem fusing its BM25/vector ranking with graph proximity (memories that mention
** the query's entities and, weaker, their neighbours by spreading activation) and the query's
** time constraints ("in May 2023", "last week": memories whose event time or extracted times fall
** in the interval; "when" questions: memories that state a time). aHit has room for k hits.
*/
CAIRN_API int cairn_kg_search(cairn_kg *g, cairn_mem *mem, const char *zQuery, const cairn_kg_search_opts *pOpt,
                    cairn_mem_hit *aHit, uint32_t *pnHit);

/* ---- JSON entry points (bindings) ---- */
/* [{"subject","predicate","object"|"literal","validAt","invalidAt","sources":[..]}] ->
** added in one step (all or nothing); *pn facts added. */
CAIRN_API int cairn_kg_add_facts_json(cairn_kg *g, const char *zJson, uint32_t *pn);
/* [{"id","name","type","aliases":[..],"mentions":n,"canon"}] of canonical entities. */
CAIRN_API int cairn_kg_entities_json(cairn_kg *g, char **pzJson);
/* [{"id","subject","predicate","object"|"literal","validAt","invalidAt","createdAt","expiredAt",
** "sources":[..]}] of the facts valid at asOf. */
CAIRN_API int cairn_kg_facts_json(cairn_kg *g, int64_t asOf, char **pzJson);
/* {"entity","nodes":[{"id","name","depth"}],"edges":[fact objects]} within depth of zName. */
CAIRN_API int cairn_kg_graph_json(cairn_kg *g, const char *zName, uint32_t depth, int64_t asOf, char **pzJson);

#ifdef __cplusplus
}
#endif
#endif /* CAIRN_KG_H */
