/*
** 2026-12-02
**
** cairn/eph.h - the ephemeral tier: an in-process key-value cache for an agent's working state
** (what a Redis beside the agent would hold), in the core, on every target.
**
**   cairn_eph *e;
**   cairn_eph_config cfg = {0};
**   cfg.capacity = 10000;                 // entries; the least recently used goes beyond it
**   cfg.dim = 384;                        // 0: entries carry no embeddings
**   cairn_eph_open(&cfg, &e);
**   cairn_eph_set(e, "plan", 4, "book the flight", 15, 60000, NULL, 0);   // TTL one minute
**   cairn_eph_entry x;
**   if (cairn_eph_get(e, "plan", 4, &x) == CAIRN_OK) use(x.pValue, x.nValue);
**   cairn_eph_hit hit[5]; uint32_t n; cairn_eph_search(e, query, 384, 5, hit, &n);
**   cairn_eph_promote(e, "plan", 4, mem, NULL, 1, &id);   // into the durable store (cairn/mem.h)
**   cairn_eph_close(e);
**
** Costs: set, get and delete are O(1) (an open-addressing hash table and a doubly linked LRU
** list over one array of entries); get never allocates; set allocates the one block that holds
** the key and the value (reused when an overwrite fits). Search is an exact scan of the entries
** that have an embedding with the memory store's vector kernels (cairnVecSearch), O(n * dim).
**
** Time: TTLs are measured with the host's monotonic clock (cairn_host.xClock(pCtx, 1)), read
** only by calls that need it (a set with a TTL, a get of an entry that has one, search, purge).
** A host without a clock reads time as 0, so no entry ever expires there.
**
** Expired entries are never returned. Their memory is reclaimed when a get or set meets them,
** when they reach the LRU tail, by cairn_eph_purge, and before each search.
**
** Threads: one cairn_eph is not safe to use from two threads at once (guard it with a lock);
** search uses the host's parallel-for. Pointers a call hands back (values, keys, embeddings)
** stay valid until the next call that changes the tier: set, delete, expire, purge, search
** (it purges), promote with bRemove, clear, close. A get that meets an expired entry frees only
** that entry.
*/
#ifndef CAIRN_EPH_H
#define CAIRN_EPH_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "mem.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cairn_eph cairn_eph;

/* Limits: beyond them a call fails with CAIRN_RANGE. */
#define CAIRN_EPH_MAX_CAPACITY (1u << 26) /* entries */
#define CAIRN_EPH_MAX_KEY      65535u     /* bytes of a key */
#define CAIRN_EPH_MAX_VALUE    (1u << 28) /* bytes of a value (256 MiB) */
#define CAIRN_EPH_MAX_DIM      CAIRN_MEM_MAX_DIM

/* A ttlMs for set/expire: the entry never expires (also when the tier has a default TTL). */
#define CAIRN_EPH_FOREVER INT64_MAX

/* Why an entry left the tier (the xDrop callback's reason). */
#define CAIRN_EPH_EVICTED 1 /* the least recently used one, to make room under capacity */
#define CAIRN_EPH_EXPIRED 2 /* its TTL had passed */

/* What a get, a search hit or the drop callback shows of an entry; pointers as above. */
typedef struct cairn_eph_entry {
  const void *pKey;
  size_t nKey;
  const void *pValue;      /* the value's bytes, followed by a NUL (a C string if it holds none) */
  size_t nValue;
  const float *aEmbedding; /* dim floats (normalised for cosine), or NULL */
  int64_t ttlLeftMs;       /* ms until it expires; -1 = never */
} cairn_eph_entry;

typedef struct cairn_eph_config {
  uint32_t capacity;    /* entries kept at most, 1..CAIRN_EPH_MAX_CAPACITY; 0 fails with CAIRN_RANGE */
  uint32_t dim;         /* embedding dimension (1..CAIRN_EPH_MAX_DIM), or 0: no embeddings */
  int metric;           /* CAIRN_METRIC_COSINE (vectors normalised on set), _IP or _L2 (cairn/mem.h) */
  int64_t defaultTtlMs; /* TTL of a set that passes 0; 0 = never expire */
  /* Optional: called for every entry that leaves by eviction or expiry (not by delete, an
  ** overwrite, clear or close), just before it is freed; reason is CAIRN_EPH_EVICTED or
  ** CAIRN_EPH_EXPIRED. A way to promote what falls out (cairn_mem_add on pEntry's value). It must
  ** not call into this cairn_eph. */
  void (*xDrop)(void *pCtx, const cairn_eph_entry *pEntry, int reason);
  void *pDropCtx;
} cairn_eph_config;

/* Create an empty tier. Errors: CAIRN_RANGE (capacity 0 or too large, dim too large),
** CAIRN_MISUSE (unknown metric, negative default TTL), CAIRN_NOMEM. */
CAIRN_API int cairn_eph_open(const cairn_eph_config *pCfg, cairn_eph **ppEph);
/* Free the tier and every entry (no xDrop calls). NULL is a no-op. */
CAIRN_API void cairn_eph_close(cairn_eph *pEph);

/*
** Store pValue[0..nValue) under pKey[0..nKey) (any bytes; nKey 1..CAIRN_EPH_MAX_KEY), replacing
** what the key held, and make it the most recently used. ttlMs > 0: it expires that many ms from
** now; 0: the tier's default TTL; CAIRN_EPH_FOREVER: never; < 0 (a TTL in the past): CAIRN_RANGE
** and nothing changes. aEmbedding: nEmbedding == dim floats, or NULL (no embedding: the entry
** is not searchable). A new key at capacity evicts the least recently used entry first.
** Errors: CAIRN_RANGE (sizes, TTL), CAIRN_MISUSE (embedding on a tier without dim, or of the
** wrong size), CAIRN_TYPE (NaN or Inf in it), CAIRN_NOMEM; a failed set changes nothing.
*/
CAIRN_API int cairn_eph_set(cairn_eph *pEph, const void *pKey, size_t nKey, const void *pValue, size_t nValue,
                            int64_t ttlMs, const float *aEmbedding, uint32_t nEmbedding);
/* Look a key up: CAIRN_OK and *pOut filled (pOut may be NULL), the entry becoming the most
** recently used; CAIRN_NOTFOUND (no message set: a miss is not an error) if it is absent or
** expired. Never allocates. */
CAIRN_API int cairn_eph_get(cairn_eph *pEph, const void *pKey, size_t nKey, cairn_eph_entry *pOut);
/* Remove a key: CAIRN_OK, or CAIRN_NOTFOUND (no message) if it was absent or expired. */
CAIRN_API int cairn_eph_delete(cairn_eph *pEph, const void *pKey, size_t nKey);
/* Give a key a new TTL (as set's ttlMs; < 0 fails with CAIRN_RANGE). CAIRN_NOTFOUND if absent. */
CAIRN_API int cairn_eph_expire(cairn_eph *pEph, const void *pKey, size_t nKey, int64_t ttlMs);
/* Remove every expired entry now (xDrop is called for each); *pnDropped (may be NULL) gets how many. */
CAIRN_API int cairn_eph_purge(cairn_eph *pEph, uint32_t *pnDropped);
/* Remove every entry (no xDrop calls); the statistics are kept. */
CAIRN_API void cairn_eph_clear(cairn_eph *pEph);

typedef struct cairn_eph_hit {
  cairn_eph_entry entry;
  float score; /* higher is better: cosine, inner product, or -(squared distance) for L2 */
} cairn_eph_hit;
/*
** The k (1..CAIRN_MEM_MAX_K) entries whose embeddings score best against q (nQuery == dim floats;
** normalised here for cosine), best first, ties by insertion slot; *pnHit gets how many (<= k,
** fewer when fewer entries have embeddings). Expired entries are purged first. Does not change
** the LRU order. Errors: CAIRN_MISUSE (no dim, wrong size), CAIRN_TYPE (NaN/Inf), CAIRN_RANGE (k).
*/
CAIRN_API int cairn_eph_search(cairn_eph *pEph, const float *q, uint32_t nQuery, uint32_t k, cairn_eph_hit *aHit,
                               uint32_t *pnHit);

/*
** Promote an entry into the durable store through cairn_mem_add: the value becomes the memory's
** text (it must be valid for cairn_mem_add: 1..CAIRN_MEM_MAX_TEXT bytes, no NUL inside), the
** embedding goes with it when the store has the same dimension (else the store embeds the
** text), and the other fields come from *pBase (NULL: all defaults; its zText, aEmbedding and
** nEmbedding are ignored). bRemove: delete the entry once the add succeeded. *pId (may be NULL)
** receives the memory's id; durable after cairn_mem_commit. CAIRN_NOTFOUND if the key is absent
** or expired; a failed add leaves both the tier and the store unchanged.
*/
CAIRN_API int cairn_eph_promote(cairn_eph *pEph, const void *pKey, size_t nKey, cairn_mem *pMem,
                                const cairn_mem_record *pBase, int bRemove, uint64_t *pId);

typedef struct cairn_eph_stats {
  uint32_t count;    /* entries held (expired ones not yet reclaimed included) */
  uint32_t capacity, dim;
  uint32_t nEmbedded; /* entries with an embedding */
  uint64_t nBytes;   /* key and value bytes held */
  uint64_t nSet, nHit, nMiss, nDelete;
  uint64_t nEvicted, nExpired;
} cairn_eph_stats;
CAIRN_API int cairn_eph_stats_get(cairn_eph *pEph, cairn_eph_stats *pStats);

#ifdef __cplusplus
}
#endif
#endif /* CAIRN_EPH_H */
