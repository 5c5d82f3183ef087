/*
** 2026-11-29
**
** cairn/mem.h - agent memory: a store of memories (text + embedding + who/when/where) with
** vector, BM25 and hybrid retrieval, filters applied inside the search, and a crash-safe
** write-ahead log on a host file.
**
** The shape follows what a JS binding needs (js: Memory.open(file), mem.add({...}),
** mem.search(query, {k, mode, filter})): plain structs of scalars and NUL-terminated UTF-8
** strings in, plain arrays out, and a JSON form of the filter so a binding can pass the
** user's object through as a string.
**
**   cairn_mem *m;
**   cairn_mem_config cfg = {0};          // dim 0: the built-in embedder's 256 dimensions
**   cairn_mem_open("agent.mem", &cfg, &m);
**   cairn_mem_record r = {0};
**   r.zText = "I moved to Lisbon in May"; r.zSession = "s1"; r.zRole = "user";
**   uint64_t id; cairn_mem_add(m, &r, &id);
**   cairn_mem_commit(m);                 // durable after this returns
**   cairn_mem_query q = {0}; q.zText = "where do I live?"; q.k = 5;
**   cairn_mem_hit hit[5]; uint32_t n; cairn_mem_search(m, &q, hit, &n);
**   cairn_mem_close(m);
**
** Threads: one cairn_mem handle is not safe to use from two threads at once; the search itself
** uses the host's parallel-for. Strings returned by cairn_mem_get stay valid until the next
** call that changes the store (add, commit, touch, build_index, close).
**
** The on-disk layout (the write-ahead log now, the HDF5 container it will be checkpointed
** into) is described in core/mem/FORMAT.md.
*/
#ifndef CAIRN_MEM_H
#define CAIRN_MEM_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "host.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cairn_mem cairn_mem;

/* Similarity between a query vector and a memory; scores are always "higher is better". */
#define CAIRN_METRIC_COSINE 0 /* vectors are L2-normalised on add; score = cosine in [-1, 1] */
#define CAIRN_METRIC_IP     1 /* inner product */
#define CAIRN_METRIC_L2     2 /* score = -(squared Euclidean distance) */

/* Dimensions of the built-in embedder when cfg.dim is 0. */
#define CAIRN_MEM_DEFAULT_DIM 256
/* Limits: bad input beyond them is refused with CAIRN_RANGE. */
#define CAIRN_MEM_MAX_DIM     8192
#define CAIRN_MEM_MAX_TEXT    (1u << 20) /* bytes of text per memory */
#define CAIRN_MEM_MAX_META    (1u << 16) /* bytes of JSON metadata per memory */
#define CAIRN_MEM_MAX_NAME    1024       /* bytes of a session or role name */
#define CAIRN_MEM_MAX_K       10000      /* hits per search */

typedef struct cairn_mem_config {
  uint32_t dim;  /* embedding dimension, fixed per store; 0 = CAIRN_MEM_DEFAULT_DIM */
  int metric;    /* CAIRN_METRIC_* */
  int readOnly;  /* open without writing; add/commit fail with CAIRN_READONLY */
  int noSync;    /* skip fsync on commit (tests, bulk loads): not crash-safe */
  int textOnly;  /* no vectors at all: BM25 only (adds take no embedding, vector search fails) */
  int diskVectors; /* how the file keeps vectors: CAIRN_MEM_DISK_F32 (exact), _F16 (half the
                   ** bytes) or _INT8 (a quarter); the store then searches the decoded values,
                   ** the same before and after a reopen. Fixed at creation like dim. */
  uint32_t checkpointEvery; /* a commit checkpoints the log into the HDF5 datasets once it holds
                            ** this many memories; 0 = 4096; UINT32_MAX = only when
                            ** cairn_mem_checkpoint is called (not by commits, not by close) */
  int64_t busyTimeoutMs; /* how long an open waits for the store's lock while another writer holds
                         ** it (writers take CAIRN_LOCK_WRITE, read-only opens CAIRN_LOCK_READ,
                         ** cairn/host.h "Locking"): 0 = the process-wide default
                         ** (cairn_set_busy_timeout), > 0 = up to that many ms, < 0 = try once.
                         ** Still held after it: CAIRN_BUSY naming the file. */
} cairn_mem_config;
#define CAIRN_MEM_DISK_F32  0
#define CAIRN_MEM_DISK_F16  1
#define CAIRN_MEM_DISK_INT8 2

/*
** Open (or create) a store. zPath NULL keeps it in memory only. An existing file keeps its own
** dim and metric; a cfg that disagrees (dim != 0 and different) fails with CAIRN_MISUSE.
** textOnly is also fixed at creation (an existing store keeps its own).
** Reopening replays the log and rebuilds every index (see FORMAT.md for what is rebuilt and
** what is persisted); records after the last commit are dropped, and a torn tail is cut off.
*/
CAIRN_API int cairn_mem_open(const char *zPath, const cairn_mem_config *pCfg, cairn_mem **ppMem);
/* Same on a file the caller opened (any cairn_file: POSIX, memory, JS). The store owns f and
** closes it in cairn_mem_close, also when the open fails. */
CAIRN_API int cairn_mem_open_file(cairn_file *f, const cairn_mem_config *pCfg, cairn_mem **ppMem);
/*
** Concurrency (FORMAT.md "Readers and writers"): one writer per store (a second one gets
** CAIRN_BUSY once busyTimeoutMs has passed), any number of readers beside it. A reader loads the
** store at its open and sees the state of the last commit before it, whole: a checkpoint that
** lands during the open makes it start over (CAIRN_BUSY after 64 tries); reopen to see newer
** commits. Damage (a checksum that fails inside committed data, in the log or the HDF5 part)
** fails the open with CAIRN_CORRUPT naming the offset and the object, read-only or not, and
** nothing is ever truncated or rewritten over it: see cairn_mem_verify and cairn_mem_salvage.
*/
/*
** (2026-12-02) Say which embedding model the caller's vectors come from ("all-MiniLM-L6-v2",
** "text-embedding-3-small"...; at most 255 bytes). Recorded in the store with its dim (durable
** at the next commit) when it has none; CAIRN_MISUSE naming both when it has another. A store
** with a model refuses adds without an embedding and vector searches without a query vector
** (the built-in embedder's would not match); the default (hybrid) search with text only is then
** BM25. cairn_mem_stats.zModel says which model a store has.
*/
CAIRN_API int cairn_mem_model(cairn_mem *pMem, const char *zModel);
/* Close; uncommitted adds are discarded (call cairn_mem_commit first). NULL is a no-op. */
CAIRN_API int cairn_mem_close(cairn_mem *pMem);

/* One memory. Strings are NUL-terminated UTF-8; NULL means empty. */
typedef struct cairn_mem_record {
  const char *zText;         /* required, 1..CAIRN_MEM_MAX_TEXT bytes */
  const float *aEmbedding;   /* NULL: computed by the built-in embedder from zText */
  uint32_t nEmbedding;       /* must equal the store's dim when aEmbedding is set */
  int64_t createdMs;         /* ms since 1970; 0 = now (host clock) */
  int64_t eventMs;           /* when the remembered thing happened; 0 = createdMs */
  const char *zSession;      /* conversation / session id */
  const char *zRole;         /* role or speaker ("user", "assistant", "Caroline") */
  int32_t tier;              /* 0..31, e.g. 0 working, 1 episodic, 2 semantic */
  float importance;          /* any finite value */
  const char *zMeta;         /* a JSON object or NULL */
  /* Filled by cairn_mem_get only: */
  uint64_t id;
  uint32_t accessCount;
  /* Scopes (2026-12-02): who the memory belongs to (mem0's user_id / agent_id; zSession is the
  ** run). NULL = none. Indexed: every search, list, delete and export can be scoped. */
  const char *zUser;
  const char *zAgent;
  /* Filled by cairn_mem_get / cairn_mem_history only (versions, FORMAT.md "Versions"): */
  uint64_t version;     /* the id of this version (== id for the first one) */
  int64_t validFromMs;  /* when this version was written */
  int64_t validToMs;    /* when a later version superseded it; 0 = current */
} cairn_mem_record;

/*
** Add one memory; *pId (may be NULL) receives its id (1, 2, 3... in order of addition).
** Errors: CAIRN_MISUSE (wrong embedding size), CAIRN_RANGE (empty/huge text, tier),
** CAIRN_TYPE (NaN/Inf in embedding or importance, metadata that is not a JSON object).
** A failed add changes nothing. The memory is searchable at once and durable after commit.
*/
CAIRN_API int cairn_mem_add(cairn_mem *pMem, const cairn_mem_record *pRec, uint64_t *pId);
/* ---- dedup on write (2026-12-02) ---- */
#define CAIRN_MEM_NEAR_KEEP      0 /* a near duplicate is stored, and reported */
#define CAIRN_MEM_NEAR_SKIP      1 /* not stored: the existing memory's id is returned */
#define CAIRN_MEM_NEAR_SUPERSEDE 2 /* stored as a new version of the existing memory (an update) */
typedef struct cairn_mem_put_opts {
  int noExact;          /* 1: store an exact duplicate again (default: not stored twice) */
  float nearThreshold;  /* 0 = no near-duplicate check; else cosine of the embeddings (text-only
                        ** stores: of the built-in embedder's character-gram vectors) at or above
                        ** which a memory of the same scope is a near duplicate, in (0, 1] */
  int nearPolicy;       /* CAIRN_MEM_NEAR_* */
} cairn_mem_put_opts;
#define CAIRN_MEM_PUT_ADDED      0 /* a new memory */
#define CAIRN_MEM_PUT_EXACT      1 /* exact duplicate: not stored; id is the existing one, its access counted */
#define CAIRN_MEM_PUT_NEAR_KEPT  2 /* stored; duplicateOf / similarity say of what */
#define CAIRN_MEM_PUT_NEAR_SKIP  3 /* not stored; id is the existing one */
#define CAIRN_MEM_PUT_SUPERSEDED 4 /* stored as a new version of duplicateOf (id == duplicateOf) */
typedef struct cairn_mem_put_result {
  uint64_t id;          /* the memory's id */
  uint64_t version;     /* the version written (0 when nothing was stored) */
  int status;           /* CAIRN_MEM_PUT_* */
  uint64_t duplicateOf; /* the existing memory (exact or near), 0 = none */
  float similarity;     /* its similarity (1 for an exact duplicate) */
} cairn_mem_put_result;
/*
** Add with dedup: the same normalised text (lowercased, runs of spaces as one, trimmed) in the
** same scope (user, agent, session) as a current memory is not stored twice; near duplicates are
** reported and handled by pOpts->nearPolicy. pOpts NULL = exact dedup only. cairn_mem_add stays
** the raw add (every call stores a memory, as before 2026-12-02); cairn_mem_add_json, the CLI's
** `mem add` and JS `mem.add` dedup (they go through cairn_mem_put).
*/
CAIRN_API int cairn_mem_put(cairn_mem *pMem, const cairn_mem_record *pRec, const cairn_mem_put_opts *pOpts, cairn_mem_put_result *pRes);

/* ---- update, history, forget (2026-12-02; FORMAT.md "Versions and forgetting") ---- */
/* Fields of an update (bits of `fields`): the others are copied from the current version. */
#define CAIRN_MEM_F_TEXT       0x001 /* zText (without F_EMBEDDING the built-in embedder re-embeds it) */
#define CAIRN_MEM_F_EMBEDDING  0x002
#define CAIRN_MEM_F_META       0x004
#define CAIRN_MEM_F_EVENT      0x008
#define CAIRN_MEM_F_CREATED    0x010
#define CAIRN_MEM_F_TIER       0x020
#define CAIRN_MEM_F_IMPORTANCE 0x040
#define CAIRN_MEM_F_SESSION    0x080
#define CAIRN_MEM_F_ROLE       0x100
#define CAIRN_MEM_F_USER       0x200
#define CAIRN_MEM_F_AGENT      0x400
#define CAIRN_MEM_F_ALL        0x7ff
/*
** Update memory id: a new version with the given fields changed is written; the current one
** gets validToMs = now (superseded, not erased) and stays in cairn_mem_history and in searches
** with asOfMs. Ids do not change. *pVersion (may be NULL) receives the new version's id.
** CAIRN_NOTFOUND for an unknown or deleted id; nothing is changed on any error.
*/
CAIRN_API int cairn_mem_update(cairn_mem *pMem, uint64_t id, const cairn_mem_record *pRec, unsigned fields, uint64_t *pVersion);
/* Every version of memory id, oldest first: up to nMax records into aOut (pointers as for
** cairn_mem_get); *pnVersion receives how many versions there are. */
CAIRN_API int cairn_mem_history(cairn_mem *pMem, uint64_t id, cairn_mem_record *aOut, uint32_t nMax, uint32_t *pnVersion);
/*
** Forget memory id and its whole history: from now on no call returns it, and after the next
** checkpoint (cairn_mem_checkpoint, an automatic one, or close) its text, embedding, metadata
** and names are gone from every byte of the file: the checkpoint then rewrites the file
** (FORMAT.md "Forgetting"). CAIRN_NOTFOUND if unknown or already forgotten.
*/
CAIRN_API int cairn_mem_delete(cairn_mem *pMem, uint64_t id);
/* Rewrite the file now with only what it holds (forgotten memories, freed space and the log
** gone): the file shrinks to its live content. Commits first. */
CAIRN_API int cairn_mem_compact(cairn_mem *pMem);

/* Make every add so far durable (append to the log, then sync). Every checkpointEvery memories
** the commit also checkpoints (below). */
CAIRN_API int cairn_mem_commit(cairn_mem *pMem);
/*
** Commit, then move the log into the file's HDF5 datasets (FORMAT.md), crash-safely: after
** it h5py/h5dump see every memory. cairn_mem_close checkpoints too when nothing is left
** uncommitted. CAIRN_UNSUPPORTED on a log-only store of format 1.
*/
CAIRN_API int cairn_mem_checkpoint(cairn_mem *pMem);
/* Read a memory by id: its current version (the id of a later version gives that version).
** Pointers inside *pRec live until the next change to the store. CAIRN_NOTFOUND once deleted. */
CAIRN_API int cairn_mem_get(cairn_mem *pMem, uint64_t id, cairn_mem_record *pRec);
/* One version of a memory by its version id (cairn_mem_hit.version, cairn_mem_history), the
** current one or a superseded one. */
CAIRN_API int cairn_mem_get_version(cairn_mem *pMem, uint64_t version, cairn_mem_record *pRec);
/* The embedding of a memory as stored (normalised for cosine stores); pOut has dim floats. */
CAIRN_API int cairn_mem_embedding(cairn_mem *pMem, uint64_t id, float *pOut);
/* Count one more access of a memory (logged, durable at the next commit). */
CAIRN_API int cairn_mem_touch(cairn_mem *pMem, uint64_t id);

/* ---- search ---- */
/* (2026-12-02) The default (0) is AUTO: the best mode for the query at hand. With a query
** embedding from the caller (a model's vectors) it is HYBRID (RRF over vector and BM25; the
** vector alone without query text); without one the query vector would come from the built-in
** embedder, which only sees word overlap and has no idf: then BM25 alone, which retrieves better
** than fusing it in (LoCoMo dev turn recall@5, speaker in the role: BM25 0.588, RRF hybrid
** 0.424, bench/history/2026-12-02-m17b.md). HYBRID was 0 before 2026-12-02: recompile. */
#define CAIRN_MEM_AUTO   0
#define CAIRN_MEM_VECTOR 1
#define CAIRN_MEM_BM25   2
#define CAIRN_MEM_HYBRID 3

#define CAIRN_FUSE_RRF      0 /* sum of 1/(rrfK + rank) */
#define CAIRN_FUSE_WEIGHTED 1 /* wVector*norm(vector) + wBm25*norm(bm25): vector min-max normalised
                               over the candidates, BM25 divided by the best BM25 score */

/* How vectors are scanned. */
#define CAIRN_VINDEX_AUTO  0 /* the built index if any, else exact */
#define CAIRN_VINDEX_FLAT  1 /* exact f32 scan */
#define CAIRN_VINDEX_F16   2 /* f16 scan + exact re-rank */
#define CAIRN_VINDEX_INT8  3 /* int8 scan + exact re-rank */
#define CAIRN_VINDEX_IVF   4 /* k-means lists, nprobe lists scanned (int8) + exact re-rank */
#define CAIRN_VINDEX_IVFPQ 5 /* k-means lists + product quantisation + exact re-rank */

typedef struct cairn_mem_filter {
  const char *zSession;  /* NULL = any */
  const char *zRole;     /* NULL = any */
  uint32_t tierMask;     /* bit t set = tier t allowed; 0 = any */
  int64_t afterMs;       /* event time >= afterMs (when hasAfter) */
  int64_t beforeMs;      /* event time < beforeMs (when hasBefore) */
  int hasAfter, hasBefore;
  const char *zMetaKey;  /* top-level metadata key ... */
  const char *zMetaJson; /* ... whose value equals this JSON value (e.g. "\"work\"", "3", "true") */
  /* 2026-12-02 */
  const char *zUser;     /* NULL = any */
  const char *zAgent;    /* NULL = any */
  const char *zExpr;     /* a filter in the JSON filter language (below), ANDed with the rest */
} cairn_mem_filter;

/*
** Parse a JSON filter: {"session": "s1", "role": "user", "tier": 2 | [0, 1],
** "after": ms, "before": ms, "meta": {"key": value}} (one meta key). Unknown fields, wrong types
** and bad JSON fail with CAIRN_MISUSE/CAIRN_CORRUPT and a message naming the field. String
** pointers in *pFilter point into *pzArena (free it with cairn_free after the search).
*/
CAIRN_API int cairn_mem_filter_parse(const char *zJson, cairn_mem_filter *pFilter, char **pzArena);

typedef struct cairn_mem_query {
  const char *zText;        /* for BM25 and, without aEmbedding, the built-in embedder */
  const float *aEmbedding;  /* query vector (dim floats) or NULL */
  uint32_t nEmbedding;
  uint32_t k;               /* hits wanted, 1..CAIRN_MEM_MAX_K; 0 = 10 */
  int mode;                 /* CAIRN_MEM_AUTO (0) / VECTOR / BM25 / HYBRID */
  int fusion;               /* CAIRN_FUSE_* */
  float rrfK;               /* 0 = 60 */
  float wVector, wBm25;     /* weighted fusion; both 0 = 0.5 / 0.5 */
  float recencyWeight;      /* added: recencyWeight * 2^(-age/halfLife); 0 = off */
  float recencyHalfLifeH;   /* hours; 0 = 168 (a week) */
  int64_t nowMs;            /* "now" for recency; 0 = newest event time in the store */
  int vindex;               /* CAIRN_VINDEX_* */
  uint32_t nprobe;          /* IVF lists to scan; 0 = 8 */
  uint32_t rerank;          /* candidates re-ranked exactly for quantised scans; 0 = max(4k, 64) */
  float bm25K1, bm25B;      /* 0 = 1.2 / 0.75 */
  const cairn_mem_filter *pFilter;
  int touch;                /* count an access for every hit returned */
  int64_t asOfMs;           /* 0 = the current versions; else the store as it was at that time
                            ** (the versions valid then, memories forgotten since excluded) */
} cairn_mem_query;

typedef struct cairn_mem_hit {
  uint64_t id;
  float score;   /* the ranking score of the chosen mode */
  float vscore;  /* vector similarity (NaN if not computed) */
  float bscore;  /* BM25 score (NaN if not computed or not among the BM25 candidates) */
  uint64_t version; /* the version that matched (== id unless the memory was updated) */
} cairn_mem_hit;

/* Search; aHit has room for q->k hits; *pnHit receives how many were found (<= k). */
CAIRN_API int cairn_mem_search(cairn_mem *pMem, const cairn_mem_query *pQuery, cairn_mem_hit *aHit, uint32_t *pnHit);

/* ---- indexes ---- */
typedef struct cairn_mem_index_config {
  int kind;          /* CAIRN_VINDEX_IVF or CAIRN_VINDEX_IVFPQ */
  uint32_t nlist;    /* 0 = about sqrt(n) */
  uint32_t pqM;      /* PQ sub-vectors (dim must divide by it); 0 = dim/8 */
  uint32_t nIter;    /* k-means iterations; 0 = 10 */
  uint32_t nTrain;   /* training sample; 0 = min(n, 64*nlist) */
  uint64_t seed;
} cairn_mem_index_config;
/* Train and build an approximate index over the vectors so far; later adds join it. Persisted
** in the log at the next commit, so reopening does not retrain. */
CAIRN_API int cairn_mem_build_index(cairn_mem *pMem, const cairn_mem_index_config *pCfg);

typedef struct cairn_mem_stats {
  uint64_t nMemory, nUncommitted;
  uint32_t dim;
  int metric;
  uint32_t nSession, nRole, nTerm;
  uint64_t nPosting;
  uint64_t nTextBytes, nFileBytes;
  int ivfKind;                   /* 0 none, or CAIRN_VINDEX_IVF / IVFPQ */
  uint32_t ivfNlist, ivfPqM;
  int64_t openNs;                /* time the last open took (replay + rebuild) */
  const char *zKernel;           /* "avx512vnni", "avx512", "avx2", "neon", "wasm128", "scalar" */
  int textOnly, diskVectors;     /* as created (cairn_mem_config) */
  int format;                    /* 2: HDF5 + log; 1: log-only file of before 2026-11-29; 0: in memory */
  uint64_t nCheckpointed;        /* memories in the HDF5 datasets (the rest are in the log) */
  uint64_t nLogBytes;            /* committed log after the HDF5 part */
  uint64_t nCheckpoint;          /* checkpoints written since open */
  int64_t checkpointNs;          /* time the last one took */
  const char *zModel;            /* the embedding model recorded ("" none: the built-in embedder or unnamed vectors) */
} cairn_mem_stats;
CAIRN_API int cairn_mem_stats_get(cairn_mem *pMem, cairn_mem_stats *pStats);

/* ---- damage ---- */
typedef struct cairn_mem_verify_info {
  int format;             /* as cairn_mem_stats.format */
  int checksums;          /* 1: every byte the store reads is under a checksum (stores created or
                          ** checkpointed from 2026-12-02 on); 0: an older HDF5 part without them */
  int damaged;            /* anything damaged (also when nothing was lost) */
  uint64_t nMemory;       /* memories the store holds (the highest id committed) */
  uint64_t nIntact;       /* memories whose every field verifies (what salvage copies) */
  uint64_t nLost;         /* nMemory - nIntact */
  uint64_t nCheckpointed; /* of nMemory, in the HDF5 part */
  uint64_t nTornBytes;    /* bytes after the last commit (a crash during a commit; not damage) */
  uint64_t damageOffset;  /* file offset of the first damage (when known) */
  char zDamage[256];      /* the first damage: what and where ("" if none) */
  int indexDamaged;       /* the persisted IVF index is damaged (rebuild it: no memory is lost) */
  uint64_t nForgotten;    /* of nMemory, forgotten on purpose (cairn_mem_delete): not lost */
} cairn_mem_verify_info;
/*
** Check every byte a store holds: the HDF5 superblock and object headers (their checksums),
** every chunk (Fletcher-32), every row against its row checksum, the access counts, the IVF
** index, every log record (CRC-32C) and the commits. Returns CAIRN_OK when nothing is damaged,
** CAIRN_CORRUPT (or CAIRN_CHECKSUM) when something is, with *pInfo saying what is lost and
** what is intact; other codes when the check itself could not run. Takes CAIRN_LOCK_READ; f is
** the caller's (not closed).
*/
CAIRN_API int cairn_mem_verify(cairn_file *f, cairn_mem_verify_info *pInfo);
/*
** Copy every memory of `in` that still verifies into `out`, a new store (an empty file, which
** gets the settings of `in`): text, session, role, tier, importance, times, metadata, access
** count and embedding. Ids are renumbered 1, 2, 3... in their old order (lost ones leave no
** gap); the IVF index is not copied (rebuild it). *pInfo (may be NULL) gets what the verify of
** `in` found. Neither file is closed; `out` is committed and synced.
*/
CAIRN_API int cairn_mem_salvage(cairn_file *in, cairn_file *out, cairn_mem_verify_info *pInfo);

/* ---- text tools ---- */
/*
** The built-in embedder: signed feature hashing of the tokens (see cairn_mem_tokenize) and of
** character 3- and 4-grams of each word, sublinear term weights, L2-normalised. Deterministic
** and fast, and it captures WORD AND SPELLING OVERLAP ONLY, NOT MEANING: "car" and
** "automobile" share nothing. Use a real embedding model for semantic search; this one is for
** offline use, demos and tests. An empty token set gives the zero vector.
*/
CAIRN_API int cairn_mem_embed(const char *zText, size_t nText, float *pOut, uint32_t dim);
/*
** Tokenize for English chat: UTF-8 decoding (invalid bytes are separators), lowercasing of
** ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic, split on punctuation and spaces,
** English stop words dropped, possessive 's dropped, Porter step-1 stemming of ASCII words.
** Calls xTok(pArg, token, nToken) for each token (not NUL-terminated, valid during the call).
*/
CAIRN_API int cairn_mem_tokenize(const char *zText, size_t nText,
                       void (*xTok)(void *pArg, const char *z, size_t n), void *pArg);

/* ---- JSON entry points (for bindings: objects cross as JSON text) ---- */
/*
** Add a memory given as a JSON object: {"text": "...", "embedding": [..], "session": "s1",
** "role": "user", "tier": 0, "importance": 0.5, "createdMs": ms, "eventMs": ms, "meta": {..}}.
** Only "text" is required; unknown fields fail with CAIRN_MISUSE naming the field.
*/
CAIRN_API int cairn_mem_add_json(cairn_mem *pMem, const char *zJson, uint64_t *pId);
/*
** Search with options as a JSON object (NULL or "" = defaults): {"k": 10, "mode": "hybrid" |
** "vector" | "bm25", "filter": {see cairn_mem_filter_parse}, "fusion": "rrf" | "weighted",
** "rrfK", "wVector", "wBm25", "recency", "halfLifeHours", "now", "index": "auto" | "flat" |
** "f16" | "int8" | "ivf" | "ivfpq", "nprobe", "rerank", "k1", "b", "embedding": [..],
** "touch": bool}. *pzResult receives a JSON array of hits, best first: {"id", "score",
** "vscore", "bscore" (null when not computed), "text", "session", "role", "tier",
** "importance", "accessCount", "createdMs", "eventMs", "meta"}; free it with cairn_free.
*/
CAIRN_API int cairn_mem_search_json(cairn_mem *pMem, const char *zQuery, const char *zOptions, char **pzResult);
/*
** (2026-12-02) A memory as JSON, the form every call below returns and export writes:
** {"id", "version", "text", "user", "agent", "session", "role" (absent when empty), "tier",
** "importance", "accessCount", "createdMs", "eventMs", "validFromMs", "validToMs" (0 = current),
** "meta", and "embedding" when asked for}. Results are freed with cairn_free.
*/
/* Add with dedup: zOpts {"dedup": true (default) | false, "nearThreshold": 0..1, "nearPolicy":
** "keep" | "skip" | "supersede"}; *pzResult {"id", "version", "status": "added" | "exact" |
** "near_kept" | "near_skipped" | "superseded", "duplicateOf", "similarity"}. The record also
** takes "user", "agent" and "run" (= "session"). */
CAIRN_API int cairn_mem_put_json(cairn_mem *pMem, const char *zJson, const char *zOpts, char **pzResult);
CAIRN_API int cairn_mem_get_json(cairn_mem *pMem, uint64_t id, int bEmbedding, char **pzResult);
/* One version by its version id (cairn_mem_get_version) as JSON. */
CAIRN_API int cairn_mem_version_json(cairn_mem *pMem, uint64_t version, int bEmbedding, char **pzResult);
/* A JSON array of every version of memory id, oldest first. */
CAIRN_API int cairn_mem_history_json(cairn_mem *pMem, uint64_t id, int bEmbedding, char **pzResult);
/* Update the fields present in zJson (same keys as an add; null clears a string). */
CAIRN_API int cairn_mem_update_json(cairn_mem *pMem, uint64_t id, const char *zJson, uint64_t *pVersion);
/* List as a JSON array: zOpts {"filter": {...}, "order": "id" | "eventMs" | "createdMs" |
** "importance" | "accessCount", "desc": bool, "offset": n, "limit": n, "history": bool (every
** version of the memories selected), "asOf": ms, "embeddings": bool}. */
CAIRN_API int cairn_mem_list_json(cairn_mem *pMem, const char *zOpts, char **pzResult);
/* Forget every memory whose current version the filter admits ("{}": all); *pnDeleted (may be
** NULL) gets how many. Bytes gone at the next checkpoint, as cairn_mem_delete. */
CAIRN_API int cairn_mem_delete_where(cairn_mem *pMem, const char *zFilter, uint64_t *pnDeleted);
/* Export: xLine is called with one JSON line (no newline) per version, oldest first; zOpts as
** for list (default every version, no embeddings: {"embeddings": true} for a lossless copy of
** caller embeddings). A non-zero return of xLine stops the export with that code. */
CAIRN_API int cairn_mem_export(cairn_mem *pMem, const char *zOpts, int (*xLine)(void *pArg, const char *zLine, size_t nLine), void *pArg);
/*
** Import JSONL (an export, or plain records one per line). Every line is checked before any is
** applied: an error names the line and nothing is imported. Into an empty store ids and
** versions are kept (forgotten ids stay gaps); otherwise lines get new ids, versions of one
** memory stay together. Lines without "embedding" are embedded by the built-in embedder.
** Durable at the next commit.
*/
CAIRN_API int cairn_mem_import_jsonl(cairn_mem *pMem, const char *zJsonl, size_t nJsonl, uint64_t *pnImported);

/* ---- the built-in demo data set (core/mem/demo_data.c) ---- */
/* A synthetic multi-session conversation and questions about it, each naming the index of the
** turn that answers it. Static data: never freed. */
typedef struct cairn_mem_demo_turn {
  const char *zSession, *zSpeaker, *zText;
  int64_t eventMs;
} cairn_mem_demo_turn;
typedef struct cairn_mem_demo_question {
  const char *zQuestion;
  int iTurn;
} cairn_mem_demo_question;
CAIRN_API const cairn_mem_demo_turn *cairn_mem_demo_turns(size_t *pnTurn);
CAIRN_API const cairn_mem_demo_question *cairn_mem_demo_questions(size_t *pnQuestion);

#ifdef __cplusplus
}
#endif
#endif /* CAIRN_MEM_H */
