/*
** 2026-12-02
**
** core/mem/eph.c - the ephemeral tier (cairn/eph.h): an in-process key-value cache with
** per-key TTLs, a capacity with LRU eviction, optional embeddings searched with the memory
** store's vector kernels, and promotion of an entry into the durable store.
**
** Layout, chosen so that set/get/delete are O(1) and a get allocates nothing:
**   aEnt     the entries, one array indexed by entry number; free numbers are chained through
**            `next` (freeHead). Each entry owns one block: key bytes, value bytes, a NUL.
**   aSlot    open addressing with linear probing, power-of-two size, at most half full. A slot
**            is (high 32 bits of the key's hash) << 32 | (entry number + 1), 0 = empty; the
**            high bits pick the home slot too, so probing and rehashing never read an entry
**            until the tag matches. Deletion shifts the cluster back (no tombstones, so a long
**            run of set/delete never degrades the probes).
**   LRU      a doubly linked list through prev/next, head = most recently used.
**   aVec     the embeddings of the entries that have one, dense and 64-byte aligned (the
**            layout cairnVecSearch scans), row r belonging to entry aRowEnt[r]; deleting moves
**            the last row into the hole, so a scan never meets a gap.
** Expiry is lazy (eph.h says when entries are reclaimed); minExpire, a lower bound of every
** expiry time held, lets a purge that finds nothing due return without a walk.
*/
#include "cairn/eph.h"
#include "eph_int.h"
#include "mem_int.h"

#define EPH_NIL UINT32_MAX
#define EPH_NEVER INT64_MAX
/* A freed entry keeps its block up to this size for the next set that takes the entry: a delete
** then frees nothing and the set after it allocates nothing (the common churn of a cache), at a
** cost bounded by capacity x 256 bytes. */
#define EPH_KEEP_BLOB 256

typedef struct EphEnt {
  uint64_t hash;
  int64_t expireMs; /* host monotonic ms, or EPH_NEVER */
  uint8_t *pBlob;   /* key, value, NUL; a free entry may keep a small block for the next set */
  uint32_t nKey, nValue, nBlob; /* nKey 0: a free entry */
  uint32_t prev, next; /* LRU neighbours; next also links the free list */
  uint32_t row;        /* embedding row, or EPH_NIL */
} EphEnt;

struct cairn_eph {
  cairn_eph_config cfg;
  EphEnt *aEnt;
  uint32_t nEnt, nEntAlloc; /* entries [0, nEnt) have been used */
  uint32_t freeHead, count;
  uint32_t head, tail;
  uint64_t *aSlot;
  uint32_t nSlot, mask;
  float *aVec; /* nRowAlloc * dim, 64-byte aligned inside pVecMem */
  void *pVecMem;
  float *aSqNorm;
  uint32_t *aRowEnt;
  uint32_t nRow, nRowAlloc;
  float *aQuery; /* dim floats: the normalised query */
  int64_t minExpire;
  cairn_eph_stats st;
};

static int64_t ephNowMs(void) { return cairnClock(1) / 1000000; }

/* The 1..7 bytes at p as one integer: two overlapping 4-byte loads, or three single bytes that
** cover every position of a 1..3 byte tail. Equal lengths map equal bytes to equal values and
** unequal bytes to unequal ones, so it serves the key comparison too. */
static inline uint64_t loadTail(const uint8_t *p, size_t n) {
  if (n >= 4) {
    uint32_t a, b;
    memcpy(&a, p, 4);
    memcpy(&b, p + n - 4, 4);
    return ((uint64_t)b << 32) | a;
  }
  return (uint64_t)p[0] | ((uint64_t)p[n >> 1] << 8) | ((uint64_t)p[n - 1] << 16);
}

/* A 64-bit hash of the key, 8 bytes per step (in-process only: byte order does not matter). */
static uint64_t ephHash(const uint8_t *p, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ ((uint64_t)n * 0xff51afd7ed558ccdull);
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
  }
  uint64_t w = n ? loadTail(p, n) : 0;
  h = (h ^ w) * 0x94d049bb133111ebull;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 32;
  return h;
}

/* a[0..n) == b[0..n), inline for keys of up to 16 bytes (most are): no libc call per probe. */
static inline int keyEq(const uint8_t *a, const uint8_t *b, size_t n) {
  if (n > 16) return memcmp(a, b, n) == 0;
  if (n >= 8) {
    uint64_t a0, a1, b0, b1;
    memcpy(&a0, a, 8), memcpy(&b0, b, 8), memcpy(&a1, a + n - 8, 8), memcpy(&b1, b + n - 8, 8);
    return a0 == b0 && a1 == b1;
  }
  return loadTail(a, n) == loadTail(b, n);
}

/* ------------------------------------------------------------------ hash table */
static inline uint32_t slotTag(uint64_t s) { return (uint32_t)(s >> 32); }

/* The slot holding the key (*pFound = 1), or the empty slot that ends its probe (*pFound = 0). */
static uint32_t slotFind(const cairn_eph *e, uint64_t h, const void *pKey, size_t nKey, int *pFound) {
  uint32_t tag = (uint32_t)(h >> 32), i = tag & e->mask;
  for (;; i = (i + 1) & e->mask) {
    uint64_t s = e->aSlot[i];
    if (!s) break;
    if (slotTag(s) != tag) continue;
    const EphEnt *x = &e->aEnt[(uint32_t)s - 1];
    if (x->hash == h && x->nKey == nKey && keyEq(x->pBlob, pKey, nKey)) {
      *pFound = 1;
      return i;
    }
  }
  *pFound = 0;
  return i;
}

/* The slot that points at entry idx (it is there: every live entry has one). */
static uint32_t slotOfEntry(const cairn_eph *e, uint32_t idx) {
  uint32_t i = (uint32_t)(e->aEnt[idx].hash >> 32) & e->mask;
  while ((uint32_t)e->aSlot[i] != idx + 1) {
    cairnAssert(e->aSlot[i] != 0);
    i = (i + 1) & e->mask;
  }
  return i;
}

/* Empty slot i and shift back the rest of its cluster: an entry may move into the hole when the
** hole lies between its home and where it sits (cyclically). */
static void slotRemove(cairn_eph *e, uint32_t i) {
  uint32_t j = i, m = e->mask;
  for (;;) {
    j = (j + 1) & m;
    uint64_t s = e->aSlot[j];
    if (!s) break;
    uint32_t home = slotTag(s) & m;
    if (((j - home) & m) >= ((j - i) & m)) {
      e->aSlot[i] = s;
      i = j;
    }
  }
  e->aSlot[i] = 0;
}

/* Room for nNeed entries at most half full: double the table and re-insert by tag. */
static int slotReserve(cairn_eph *e, uint32_t nNeed) {
  if ((uint64_t)nNeed * 2 <= e->nSlot) return CAIRN_OK;
  uint32_t n = e->nSlot ? e->nSlot : 64;
  while ((uint64_t)nNeed * 2 > n) n *= 2;
  uint64_t *a = cairnMallocArray(n, sizeof(uint64_t));
  if (!a) return cairnErr(CAIRN_NOMEM, "ephemeral tier: cannot grow the hash table to %u slots", n);
  memset(a, 0, (size_t)n * sizeof(uint64_t));
  uint32_t m = n - 1;
  for (uint32_t i = 0; i < e->nSlot; i++) {
    uint64_t s = e->aSlot[i];
    if (!s) continue;
    uint32_t j = slotTag(s) & m;
    while (a[j]) j = (j + 1) & m;
    a[j] = s;
  }
  cairnFree(e->aSlot);
  e->aSlot = a, e->nSlot = n, e->mask = m;
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ LRU list */
static void lruUnlink(cairn_eph *e, uint32_t idx) {
  EphEnt *x = &e->aEnt[idx];
  if (x->prev != EPH_NIL) e->aEnt[x->prev].next = x->next;
  else e->head = x->next;
  if (x->next != EPH_NIL) e->aEnt[x->next].prev = x->prev;
  else e->tail = x->prev;
}
static void lruPushFront(cairn_eph *e, uint32_t idx) {
  EphEnt *x = &e->aEnt[idx];
  x->prev = EPH_NIL, x->next = e->head;
  if (e->head != EPH_NIL) e->aEnt[e->head].prev = idx;
  else e->tail = idx;
  e->head = idx;
}
static void lruTouch(cairn_eph *e, uint32_t idx) {
  if (e->head == idx) return;
  lruUnlink(e, idx);
  lruPushFront(e, idx);
}

/* ------------------------------------------------------------------ embedding rows */
/* Room for one more row. The rows grow with realloc: a large block then moves by remapping its
** pages (no copy, no fresh pages to fault in and zero, which dominated a cold fill of 10K x 384
** rows when each doubling copied into a new block); the 64-byte alignment is restored by one
** memmove in the rare case where the block's offset to it changed. */
static int rowReserve(cairn_eph *e) {
  if (e->nRow < e->nRowAlloc) return CAIRN_OK;
  uint32_t d = e->cfg.dim;
  uint32_t n = e->nRowAlloc ? e->nRowAlloc * 2 : 64;
  if (n > e->cfg.capacity) n = CAIRN_MAX(e->cfg.capacity, e->nRow + 1);
  size_t nb;
  if (cairnMulOverflowSize(n, (size_t)d * sizeof(float), &nb) || nb > SIZE_MAX - 63)
    return cairnErr(CAIRN_NOMEM, "ephemeral tier: %u embeddings of %u floats are too many", n, d);
  size_t oldOff = e->pVecMem ? (size_t)((uint8_t *)e->aVec - (uint8_t *)e->pVecMem) : 0;
  uint8_t *pMem = cairnRealloc(e->pVecMem, nb + 63);
  if (!pMem) return cairnErr(CAIRN_NOMEM, "ephemeral tier: cannot grow the embeddings to %u rows", n);
  float *a = (float *)(((uintptr_t)pMem + 63) & ~(uintptr_t)63);
  if (e->nRow && (uint8_t *)a - pMem != (ptrdiff_t)oldOff) memmove(a, pMem + oldOff, (size_t)e->nRow * d * sizeof(float));
  e->pVecMem = pMem, e->aVec = a;
  float *aSq = cairnRealloc(e->aSqNorm, (size_t)n * sizeof(float));
  if (!aSq) return cairnErr(CAIRN_NOMEM, "ephemeral tier: cannot grow the embeddings to %u rows", n);
  e->aSqNorm = aSq;
  uint32_t *aRow = cairnRealloc(e->aRowEnt, (size_t)n * sizeof(uint32_t));
  if (!aRow) return cairnErr(CAIRN_NOMEM, "ephemeral tier: cannot grow the embeddings to %u rows", n);
  e->aRowEnt = aRow, e->nRowAlloc = n;
  return CAIRN_OK;
}

/* Write the (already checked, |x|^2 = sq) embedding of entry idx into its row, taking one if
** needed (the caller reserved it). */
static void rowPut(cairn_eph *e, uint32_t idx, const float *x, float sq) {
  EphEnt *p = &e->aEnt[idx];
  if (p->row == EPH_NIL) {
    p->row = e->nRow++;
    e->aRowEnt[p->row] = idx;
  }
  uint32_t d = e->cfg.dim;
  float *r = e->aVec + (size_t)p->row * d;
  if (e->cfg.metric == CAIRN_METRIC_COSINE && sq > 0) {
    float inv = 1.0f / sqrtf(sq);
    for (uint32_t j = 0; j < d; j++) r[j] = x[j] * inv;
    sq = 1;
  } else {
    memcpy(r, x, (size_t)d * sizeof(float));
  }
  e->aSqNorm[p->row] = sq;
}

/* Give up entry idx's row: the last row moves into it. */
static void rowDrop(cairn_eph *e, uint32_t idx) {
  uint32_t r = e->aEnt[idx].row, last = e->nRow - 1, d = e->cfg.dim;
  if (r == EPH_NIL) return;
  if (r != last) {
    memcpy(e->aVec + (size_t)r * d, e->aVec + (size_t)last * d, (size_t)d * sizeof(float));
    e->aSqNorm[r] = e->aSqNorm[last];
    e->aRowEnt[r] = e->aRowEnt[last];
    e->aEnt[e->aRowEnt[r]].row = r;
  }
  e->nRow--;
  e->aEnt[idx].row = EPH_NIL;
}

/* ------------------------------------------------------------------ entries */
static void entryView(const cairn_eph *e, const EphEnt *x, int64_t now, cairn_eph_entry *pOut) {
  pOut->pKey = x->pBlob, pOut->nKey = x->nKey;
  pOut->pValue = x->pBlob + x->nKey, pOut->nValue = x->nValue;
  pOut->aEmbedding = x->row == EPH_NIL ? NULL : e->aVec + (size_t)x->row * e->cfg.dim;
  pOut->ttlLeftMs = x->expireMs == EPH_NEVER ? -1 : CAIRN_MAX((int64_t)0, x->expireMs - now);
}

/* Remove entry idx whose slot is iSlot; reason 0 (delete, overwrite) or CAIRN_EPH_EVICTED /
** _EXPIRED (reported to xDrop first). */
static void entryDrop(cairn_eph *e, uint32_t idx, uint32_t iSlot, int reason, int64_t now) {
  EphEnt *x = &e->aEnt[idx];
  if (reason && e->cfg.xDrop) {
    cairn_eph_entry v;
    entryView(e, x, now, &v);
    e->cfg.xDrop(e->cfg.pDropCtx, &v, reason);
  }
  if (reason == CAIRN_EPH_EVICTED) e->st.nEvicted++;
  if (reason == CAIRN_EPH_EXPIRED) e->st.nExpired++;
  slotRemove(e, iSlot);
  lruUnlink(e, idx);
  rowDrop(e, idx);
  e->st.nBytes -= (uint64_t)x->nKey + x->nValue;
  if (x->nBlob > EPH_KEEP_BLOB) {
    cairnFree(x->pBlob);
    x->pBlob = NULL, x->nBlob = 0;
  }
  x->nKey = 0;
  x->next = e->freeHead;
  e->freeHead = idx;
  e->count--;
}

static int expired(const EphEnt *x, int64_t *pNow, int *pHaveNow) {
  if (x->expireMs == EPH_NEVER) return 0;
  if (!*pHaveNow) *pNow = ephNowMs(), *pHaveNow = 1;
  return *pNow >= x->expireMs;
}

/* ttlMs as set/expire take it -> an absolute expiry (or EPH_NEVER). */
static int expiryOf(const cairn_eph *e, int64_t ttlMs, int64_t *pAt) {
  CAIRN_RETURN_ERROR_IF(ttlMs < 0, CAIRN_RANGE, "ephemeral tier: TTL %lld ms is in the past", (long long)ttlMs);
  int64_t ttl = ttlMs == 0 ? e->cfg.defaultTtlMs : ttlMs;
  if (ttl == 0 || ttl == CAIRN_EPH_FOREVER) {
    *pAt = EPH_NEVER;
    return CAIRN_OK;
  }
  int64_t now = ephNowMs();
  *pAt = now > EPH_NEVER - ttl ? EPH_NEVER : now + ttl;
  return CAIRN_OK;
}

/* Check a vector of the tier's dim and return |a|^2 in *pSq. The sum of squares runs in the
** SIMD dot kernel; only when it is not finite are the elements looked at, to say which one is
** NaN or Inf (or that the norm itself overflows). */
static int checkVec(const cairn_eph *e, const float *a, uint32_t n, const char *zWhat, float *pSq) {
  CAIRN_RETURN_ERROR_IF(e->cfg.dim == 0, CAIRN_MISUSE, "ephemeral tier: %s given but the tier has no dim", zWhat);
  CAIRN_RETURN_ERROR_IF(n != e->cfg.dim, CAIRN_MISUSE, "ephemeral tier: %s of %u floats, the tier has dim %u", zWhat, n,
                        e->cfg.dim);
  float sq = cairnMemDot(a, a, n);
  if (!isfinite(sq)) {
    for (uint32_t j = 0; j < n; j++)
      CAIRN_RETURN_ERROR_IF(!isfinite(a[j]), CAIRN_TYPE, "ephemeral tier: %s has a NaN or Inf at %u", zWhat, j);
    return cairnErr(CAIRN_RANGE, "ephemeral tier: the norm of the %s overflows a float", zWhat);
  }
  *pSq = sq;
  return CAIRN_OK;
}

/* ------------------------------------------------------------------ API */
int cairn_eph_open(const cairn_eph_config *pCfg, cairn_eph **ppEph) {
  CAIRN_RETURN_ERROR_IF(!pCfg || !ppEph, CAIRN_MISUSE, "eph_open: NULL argument");
  *ppEph = NULL;
  CAIRN_RETURN_ERROR_IF(pCfg->capacity == 0, CAIRN_RANGE, "eph_open: capacity 0 (at least 1 entry)");
  CAIRN_RETURN_ERROR_IF(pCfg->capacity > CAIRN_EPH_MAX_CAPACITY, CAIRN_RANGE, "eph_open: capacity %u above %u",
                        pCfg->capacity, CAIRN_EPH_MAX_CAPACITY);
  CAIRN_RETURN_ERROR_IF(pCfg->dim > CAIRN_EPH_MAX_DIM, CAIRN_RANGE, "eph_open: dim %u above %u", pCfg->dim,
                        (unsigned)CAIRN_EPH_MAX_DIM);
  CAIRN_RETURN_ERROR_IF(pCfg->metric < CAIRN_METRIC_COSINE || pCfg->metric > CAIRN_METRIC_L2, CAIRN_MISUSE,
                        "eph_open: unknown metric %d", pCfg->metric);
  CAIRN_RETURN_ERROR_IF(pCfg->defaultTtlMs < 0, CAIRN_MISUSE, "eph_open: default TTL %lld ms is negative",
                        (long long)pCfg->defaultTtlMs);
  cairn_eph *e = cairnMallocZero(sizeof *e);
  if (!e) return cairnErr(CAIRN_NOMEM, "eph_open: out of memory");
  e->cfg = *pCfg;
  e->freeHead = e->head = e->tail = EPH_NIL;
  e->minExpire = EPH_NEVER;
  e->st.capacity = pCfg->capacity, e->st.dim = pCfg->dim;
  int rc = slotReserve(e, 16);
  if (rc == CAIRN_OK && pCfg->dim) {
    e->aQuery = cairnMallocArray(pCfg->dim, sizeof(float));
    if (!e->aQuery) rc = cairnErr(CAIRN_NOMEM, "eph_open: out of memory");
  }
  if (rc != CAIRN_OK) {
    cairn_eph_close(e);
    return rc;
  }
  *ppEph = e;
  return CAIRN_OK;
}

static void freeBlobs(cairn_eph *e) {
  for (uint32_t i = 0; i < e->nEnt; i++) cairnFree(e->aEnt[i].pBlob);
}

void cairn_eph_close(cairn_eph *e) {
  if (!e) return;
  freeBlobs(e);
  cairnFree(e->aEnt), cairnFree(e->aSlot);
  cairnFree(e->pVecMem), cairnFree(e->aSqNorm), cairnFree(e->aRowEnt), cairnFree(e->aQuery);
  cairnFree(e);
}

void cairn_eph_clear(cairn_eph *e) {
  if (!e) return;
  freeBlobs(e);
  e->nEnt = e->count = e->nRow = 0;
  e->freeHead = e->head = e->tail = EPH_NIL;
  e->minExpire = EPH_NEVER;
  e->st.nBytes = 0;
  if (e->aSlot) memset(e->aSlot, 0, (size_t)e->nSlot * sizeof(uint64_t));
}

int cairn_eph_set(cairn_eph *e, const void *pKey, size_t nKey, const void *pValue, size_t nValue, int64_t ttlMs,
                  const float *aEmb, uint32_t nEmb) {
  CAIRN_RETURN_ERROR_IF(!e || (!pKey && nKey) || (!pValue && nValue), CAIRN_MISUSE, "eph_set: NULL argument");
  CAIRN_RETURN_ERROR_IF(nKey == 0 || nKey > CAIRN_EPH_MAX_KEY, CAIRN_RANGE, "eph_set: key of %zu bytes (1..%u)", nKey,
                        CAIRN_EPH_MAX_KEY);
  CAIRN_RETURN_ERROR_IF(nValue > CAIRN_EPH_MAX_VALUE, CAIRN_RANGE, "eph_set: value of %zu bytes above %u", nValue,
                        CAIRN_EPH_MAX_VALUE);
  CAIRN_RETURN_ERROR_IF(!aEmb && nEmb, CAIRN_MISUSE, "eph_set: nEmbedding %u without an embedding", nEmb);
  float sq = 0;
  if (aEmb) CAIRN_TRY(checkVec(e, aEmb, nEmb, "embedding", &sq));
  int64_t at = EPH_NEVER;
  CAIRN_TRY(expiryOf(e, ttlMs, &at));

  uint64_t h = ephHash(pKey, nKey);
  int found;
  uint32_t iSlot = slotFind(e, h, pKey, nKey, &found);
  uint32_t nBlob = (uint32_t)(nKey + nValue + 1), idx;
  /* Every allocation first, so that a failure changes nothing. */
  if (aEmb) CAIRN_TRY(rowReserve(e));
  if (found) {
    idx = (uint32_t)e->aSlot[iSlot] - 1;
    EphEnt *x = &e->aEnt[idx];
    if (nBlob > x->nBlob) {
      uint8_t *p = cairnMalloc(nBlob);
      if (!p) return cairnErr(CAIRN_NOMEM, "eph_set: out of memory for a value of %zu bytes", nValue);
      memcpy(p, x->pBlob, nKey);
      cairnFree(x->pBlob);
      x->pBlob = p, x->nBlob = nBlob;
    }
    e->st.nBytes -= x->nValue;
  } else {
    int evict = e->count >= e->cfg.capacity;
    CAIRN_TRY(slotReserve(e, e->count + 1));
    if (!evict && e->freeHead == EPH_NIL && e->nEnt == e->nEntAlloc)
      CAIRN_TRY(CAIRN_GROW(e->aEnt, e->nEntAlloc, CAIRN_MIN((uint64_t)e->nEnt + 1, e->cfg.capacity), "ephemeral entries"));
    /* The entry this set takes: the evicted tail, a free one, or a new one. A block it keeps
    ** (EPH_KEEP_BLOB) is reused when big enough; else a new block is allocated before anything
    ** changes. */
    uint32_t cand = evict ? e->tail : e->freeHead;
    const EphEnt *pc = cand == EPH_NIL ? NULL : &e->aEnt[cand];
    int reuse = pc && pc->pBlob && pc->nBlob >= nBlob && pc->nBlob <= EPH_KEEP_BLOB;
    uint8_t *p = NULL;
    if (!reuse) {
      p = cairnMalloc(nBlob);
      if (!p) return cairnErr(CAIRN_NOMEM, "eph_set: out of memory for a value of %zu bytes", nValue);
    }
    if (evict) {
      uint32_t t = e->tail;
      int64_t now = 0;
      int haveNow = 0;
      int why = expired(&e->aEnt[t], &now, &haveNow) ? CAIRN_EPH_EXPIRED : CAIRN_EPH_EVICTED;
      entryDrop(e, t, slotOfEntry(e, t), why, now);
    }
    if (e->freeHead != EPH_NIL) {
      idx = e->freeHead, e->freeHead = e->aEnt[idx].next;
    } else {
      idx = e->nEnt++;
      e->aEnt[idx].pBlob = NULL, e->aEnt[idx].nBlob = 0;
    }
    cairnAssert(!reuse || idx == cand);
    EphEnt *x = &e->aEnt[idx];
    if (!reuse) {
      cairnFree(x->pBlob); /* a kept block too small for this set */
      x->pBlob = p, x->nBlob = nBlob;
    }
    p = x->pBlob;
    x->hash = h, x->nKey = (uint32_t)nKey, x->row = EPH_NIL, x->nValue = 0;
    memcpy(p, pKey, nKey);
    /* The table may have been rebuilt or shifted by the eviction: probe again for the hole. */
    iSlot = ((uint32_t)(h >> 32)) & e->mask;
    while (e->aSlot[iSlot]) iSlot = (iSlot + 1) & e->mask;
    e->aSlot[iSlot] = ((uint64_t)(uint32_t)(h >> 32) << 32) | (idx + 1);
    lruPushFront(e, idx);
    e->count++;
    e->st.nBytes += nKey;
  }
  EphEnt *x = &e->aEnt[idx];
  if (nValue) memcpy(x->pBlob + nKey, pValue, nValue);
  x->pBlob[nKey + nValue] = 0;
  x->nValue = (uint32_t)nValue;
  x->expireMs = at;
  if (at < e->minExpire) e->minExpire = at;
  if (aEmb) rowPut(e, idx, aEmb, sq);
  else rowDrop(e, idx);
  if (found) lruTouch(e, idx);
  e->st.nBytes += nValue;
  e->st.nSet++;
  return CAIRN_OK;
}

/* The live entry of a key: its number (and slot, for a delete), or CAIRN_NOTFOUND (an expired
** one is dropped). */
static int lookup(cairn_eph *e, const void *pKey, size_t nKey, uint32_t *pIdx, uint32_t *pSlot, int64_t *pNow) {
  int found, haveNow = 0;
  uint64_t h = ephHash(pKey, nKey);
  uint32_t iSlot = slotFind(e, h, pKey, nKey, &found);
  *pNow = 0;
  if (!found) return CAIRN_NOTFOUND;
  uint32_t idx = (uint32_t)e->aSlot[iSlot] - 1;
  if (expired(&e->aEnt[idx], pNow, &haveNow)) {
    entryDrop(e, idx, iSlot, CAIRN_EPH_EXPIRED, *pNow);
    return CAIRN_NOTFOUND;
  }
  *pIdx = idx;
  if (pSlot) *pSlot = iSlot;
  return CAIRN_OK;
}

int cairn_eph_get(cairn_eph *e, const void *pKey, size_t nKey, cairn_eph_entry *pOut) {
  CAIRN_RETURN_ERROR_IF(!e || (!pKey && nKey), CAIRN_MISUSE, "eph_get: NULL argument");
  uint32_t idx;
  int64_t now;
  if (lookup(e, pKey, nKey, &idx, NULL, &now) != CAIRN_OK) {
    e->st.nMiss++;
    return CAIRN_NOTFOUND;
  }
  lruTouch(e, idx);
  e->st.nHit++;
  if (pOut) entryView(e, &e->aEnt[idx], now, pOut);
  return CAIRN_OK;
}

int cairn_eph_delete(cairn_eph *e, const void *pKey, size_t nKey) {
  CAIRN_RETURN_ERROR_IF(!e || (!pKey && nKey), CAIRN_MISUSE, "eph_delete: NULL argument");
  uint32_t idx;
  int64_t now;
  uint32_t iSlot;
  if (lookup(e, pKey, nKey, &idx, &iSlot, &now) != CAIRN_OK) return CAIRN_NOTFOUND;
  entryDrop(e, idx, iSlot, 0, now);
  e->st.nDelete++;
  return CAIRN_OK;
}

int cairn_eph_expire(cairn_eph *e, const void *pKey, size_t nKey, int64_t ttlMs) {
  CAIRN_RETURN_ERROR_IF(!e || (!pKey && nKey), CAIRN_MISUSE, "eph_expire: NULL argument");
  int64_t at = EPH_NEVER;
  CAIRN_TRY(expiryOf(e, ttlMs, &at));
  uint32_t idx;
  int64_t now;
  if (lookup(e, pKey, nKey, &idx, NULL, &now) != CAIRN_OK) return CAIRN_NOTFOUND;
  e->aEnt[idx].expireMs = at;
  if (at < e->minExpire) e->minExpire = at;
  return CAIRN_OK;
}

int cairn_eph_purge(cairn_eph *e, uint32_t *pnDropped) {
  CAIRN_RETURN_ERROR_IF(!e, CAIRN_MISUSE, "eph_purge: NULL argument");
  uint32_t n = 0;
  if (e->minExpire != EPH_NEVER) {
    int64_t now = ephNowMs();
    if (now >= e->minExpire) {
      int64_t next = EPH_NEVER;
      for (uint32_t i = 0; i < e->nEnt; i++) {
        EphEnt *x = &e->aEnt[i];
        if (!x->nKey || x->expireMs == EPH_NEVER) continue;
        if (now >= x->expireMs) entryDrop(e, i, slotOfEntry(e, i), CAIRN_EPH_EXPIRED, now), n++;
        else if (x->expireMs < next) next = x->expireMs;
      }
      e->minExpire = next;
    }
  }
  if (pnDropped) *pnDropped = n;
  return CAIRN_OK;
}

int cairn_eph_search(cairn_eph *e, const float *q, uint32_t nQuery, uint32_t k, cairn_eph_hit *aHit, uint32_t *pnHit) {
  CAIRN_RETURN_ERROR_IF(!e || !q || !aHit || !pnHit, CAIRN_MISUSE, "eph_search: NULL argument");
  *pnHit = 0;
  CAIRN_RETURN_ERROR_IF(k == 0 || k > CAIRN_MEM_MAX_K, CAIRN_RANGE, "eph_search: k %u (1..%u)", k, CAIRN_MEM_MAX_K);
  float sq;
  CAIRN_TRY(checkVec(e, q, nQuery, "query", &sq));
  CAIRN_TRY(cairn_eph_purge(e, NULL));
  if (e->nRow == 0) return CAIRN_OK;
  uint32_t d = e->cfg.dim;
  const float *qn = q;
  if (e->cfg.metric == CAIRN_METRIC_COSINE) {
    float inv = sq > 0 ? 1.0f / sqrtf(sq) : 0.0f;
    for (uint32_t j = 0; j < d; j++) e->aQuery[j] = q[j] * inv;
    qn = e->aQuery;
  }
  /* A view of the rows in the layout the store's flat scan reads (aF32, and aSqNorm for L2);
  ** it owns nothing. */
  MemVecs v;
  memset(&v, 0, sizeof v);
  v.dim = d, v.metric = e->cfg.metric, v.n = e->nRow, v.nAlloc = e->nRowAlloc;
  v.aF32 = e->aVec, v.aSqNorm = e->aSqNorm;
  MemTopK t;
  CAIRN_TRY(cairnTopKInit(&t, CAIRN_MIN(k, e->nRow)));
  int rc = cairnVecSearch(&v, qn, CAIRN_VINDEX_FLAT, 0, NULL, &t);
  if (rc == CAIRN_OK) {
    cairnTopKSort(&t);
    int64_t now = e->minExpire == EPH_NEVER ? 0 : ephNowMs();
    for (uint32_t i = 0; i < t.n; i++) {
      entryView(e, &e->aEnt[e->aRowEnt[t.aIdx[i]]], now, &aHit[i].entry);
      aHit[i].score = t.aScore[i];
    }
    *pnHit = t.n;
  }
  cairnTopKFree(&t);
  return rc;
}

int cairn_eph_promote(cairn_eph *e, const void *pKey, size_t nKey, cairn_mem *pMem, const cairn_mem_record *pBase,
                      int bRemove, uint64_t *pId) {
  CAIRN_RETURN_ERROR_IF(!e || (!pKey && nKey) || !pMem, CAIRN_MISUSE, "eph_promote: NULL argument");
  uint32_t idx;
  int64_t now;
  if (lookup(e, pKey, nKey, &idx, NULL, &now) != CAIRN_OK)
    return cairnErr(CAIRN_NOTFOUND, "eph_promote: no such key (absent or expired)");
  EphEnt *x = &e->aEnt[idx];
  const char *zText = (const char *)x->pBlob + x->nKey;
  const void *pNul = memchr(zText, 0, x->nValue);
  CAIRN_RETURN_ERROR_IF(pNul, CAIRN_TYPE, "eph_promote: the value holds a NUL at byte %zu (a memory's text cannot)",
                        (size_t)((const char *)pNul - zText));
  cairn_mem_record r;
  if (pBase) r = *pBase;
  else memset(&r, 0, sizeof r);
  r.zText = zText, r.aEmbedding = NULL, r.nEmbedding = 0;
  if (x->row != EPH_NIL) r.aEmbedding = e->aVec + (size_t)x->row * e->cfg.dim, r.nEmbedding = e->cfg.dim;
  CAIRN_TRY(cairnMemAddEmbeddingOrText(pMem, &r, pId));
  if (bRemove) {
    entryDrop(e, idx, slotOfEntry(e, idx), 0, now);
    e->st.nDelete++;
  }
  return CAIRN_OK;
}

int cairn_eph_stats_get(cairn_eph *e, cairn_eph_stats *pStats) {
  CAIRN_RETURN_ERROR_IF(!e || !pStats, CAIRN_MISUSE, "eph_stats: NULL argument");
  *pStats = e->st;
  pStats->count = e->count;
  pStats->nEmbedded = e->nRow;
  return CAIRN_OK;
}
