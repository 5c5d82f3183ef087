/*
** 2026-11-29
**
** core/h5/r_file.c - the HDF5 reader's file layer: the metadata page cache (byte budget,
** LRU), the superblock (versions 0-3, searched at 0, 512, 1024...), the superblock extension
** and its shared-message table, and object headers v1/v2 with their continuation chunks.
*/
#include "h5int.h"

/* Pages read by one host call share one allocation (an H5Run: the bytes, then the page
** records), so the host reads straight into the cache; the run is freed with its last page. */
typedef struct H5Run {
  uint64_t nLive; /* pages of the run still in the cache (64-bit: the page records follow) */
} H5Run;
struct H5Page {
  uint64_t pno;
  H5Page *pHash;            /* next in the hash chain */
  H5Page *pPrev, *pNext;    /* LRU list: head = most recent */
  uint32_t n;               /* valid bytes */
  H5Run *pRun;
  uint8_t *a;               /* 1 << pageBits bytes inside the run's allocation */
};
/* The first read's run in the handle's memory: its header (two page records), then 8 KiB */
#define H5_FIRST_HEAD ((sizeof(H5Run) + 2 * sizeof(H5Page) + 15) & ~(size_t)15)
typedef char h5FirstRunFits[H5_FIRST_HEAD + H5_FIRST_BYTES <= H5_FIRST_RUN ? 1 : -1];

/* ---------------------------------------------------------------- cache */
static int reachSize(H5File *f, uint64_t abs, uint64_t n);
static void lruUnlink(H5File *f, H5Page *pg) {
  if (pg->pPrev) pg->pPrev->pNext = pg->pNext;
  else f->pLruHead = pg->pNext;
  if (pg->pNext) pg->pNext->pPrev = pg->pPrev;
  else f->pLruTail = pg->pPrev;
  pg->pPrev = pg->pNext = NULL;
}
static void lruPush(H5File *f, H5Page *pg) {
  pg->pPrev = NULL;
  pg->pNext = f->pLruHead;
  if (f->pLruHead) f->pLruHead->pPrev = pg;
  f->pLruHead = pg;
  if (!f->pLruTail) f->pLruTail = pg;
}
static H5Page *cacheFind(H5File *f, uint64_t pno) {
  if (!f->aSlot) return NULL;
  for (H5Page *pg = f->aSlot[(pno * 0x9E3779B97F4A7C15ull >> 40) & (f->nSlot - 1)]; pg; pg = pg->pHash)
    if (pg->pno == pno) return pg;
  return NULL;
}
static int runOwned(H5File *f, H5Run *r) {
  uint8_t *p = (uint8_t *)r;
  return (void *)r != f->pFirstRun && !(f->pArena && p >= f->pArena && p < f->pArena + H5_ARENA);
}
static void runFree(H5File *f, H5Run *r) {
  if (runOwned(f, r)) cairnFree(r);
}
static void cacheRemove(H5File *f, H5Page *pg) {
  H5Page **pp = &f->aSlot[(pg->pno * 0x9E3779B97F4A7C15ull >> 40) & (f->nSlot - 1)];
  while (*pp != pg) pp = &(*pp)->pHash;
  *pp = pg->pHash;
  lruUnlink(f, pg);
  f->cacheBytes -= ((uint64_t)1 << f->pageBits);
  f->nPage--;
  if (--pg->pRun->nLive == 0) runFree(f, pg->pRun);
}
static void cacheEvict(H5File *f, uint64_t budget) {
  while (f->cacheBytes > budget && f->pLruTail) cacheRemove(f, f->pLruTail);
}
void cairnH5CacheTrim(H5File *f) { cacheEvict(f, f->cacheBudget); }
void cairnH5CacheFree(H5File *f) {
  for (unsigned k = 0; k < CAIRN_ARRAY_SIZE(f->aTypeMemo); k++) {
    cairnH5TypeFree(f->aTypeMemo[k].t); /* inline: most opens memoise no type, which costs no call */
    f->aTypeMemo[k].t = NULL;
  }
  /* everything goes: free the runs as their last page passes, leave the hash chains be */
  for (H5Page *pg = f->pLruHead, *nx; pg; pg = nx) {
    nx = pg->pNext;
    if (--pg->pRun->nLive == 0) runFree(f, pg->pRun);
  }
  f->pLruHead = f->pLruTail = NULL;
  f->cacheBytes = 0;
  f->nPage = 0;
  if (f->aSlot != f->aSlot0) cairnFree(f->aSlot);
  f->aSlot = NULL;
  cairnFree(f->pArena);
  f->pArena = NULL;
}

/* The hash table starts small (most opens touch a few pages) and grows 4x when pages outnumber
** slots. Out of memory here only keeps the old, fuller table. */
static void cacheGrow(H5File *f) {
  uint32_t nNew = f->nSlot * 4;
  if (f->aSlot == f->aSlot0 && nNew <= CAIRN_ARRAY_SIZE(f->aSlot0)) {
    /* still in the handle's slots: every page is on the LRU list, put them all back */
    memset(f->aSlot0, 0, nNew * sizeof(H5Page *));
    for (H5Page *pg = f->pLruHead; pg; pg = pg->pNext) {
      size_t h = (pg->pno * 0x9E3779B97F4A7C15ull >> 40) & (nNew - 1);
      pg->pHash = f->aSlot0[h];
      f->aSlot0[h] = pg;
    }
    f->nSlot = nNew;
    return;
  }
  H5Page **a = cairnMallocZero(nNew * sizeof(H5Page *));
  if (!a) return;
  for (uint32_t i = 0; i < f->nSlot; i++)
    for (H5Page *pg = f->aSlot[i], *nx; pg; pg = nx) {
      nx = pg->pHash;
      size_t h = (pg->pno * 0x9E3779B97F4A7C15ull >> 40) & (nNew - 1);
      pg->pHash = a[h];
      a[h] = pg;
    }
  if (f->aSlot != f->aSlot0) cairnFree(f->aSlot);
  f->aSlot = a;
  f->nSlot = nNew;
}

/* Put pages [lo, end) into the cache from one run allocation whose first (end - lo) pages of
** bytes hold what the host read (nr valid bytes). Takes ownership of pRun's memory. */
static void cacheAddRun(H5File *f, H5Run *pRun, uint8_t *data, uint64_t lo, uint64_t end, size_t nr) {
  uint64_t pageSize = (uint64_t)1 << f->pageBits;
  H5Page *aPg = (H5Page *)(pRun + 1);
  pRun->nLive = end - lo;
  for (uint64_t q = lo; q < end; q++) {
    size_t o = (size_t)((q - lo) << f->pageBits);
    H5Page *np = &aPg[q - lo];
    np->pno = q;
    np->pRun = pRun;
    np->a = data + o;
    np->n = o < nr ? (uint32_t)CAIRN_MIN(pageSize, nr - o) : 0; /* every read checks n: the rest is never read */
    size_t h = (q * 0x9E3779B97F4A7C15ull >> 40) & (f->nSlot - 1);
    np->pHash = f->aSlot[h];
    f->aSlot[h] = np;
    np->pPrev = np->pNext = NULL;
    lruPush(f, np);
    f->cacheBytes += pageSize;
    f->nPage++;
  }
  if (f->nPage > f->nSlot && f->nSlot < (1u << 20)) cacheGrow(f);
}

/* A run of nPages pages: the H5Run header and page records first, the bytes after them
** (aligned to 16). *ppData receives the bytes. */
static H5Run *runAlloc(H5File *f, uint64_t nPages, uint8_t **ppData) {
  size_t nHead = (sizeof(H5Run) + (size_t)nPages * sizeof(H5Page) + 15) & ~(size_t)15;
  size_t n = nHead + (size_t)(nPages << f->pageBits);
  if (!f->pArena && f->iArena == 0) {
    f->pArena = cairnMalloc(H5_ARENA);
    f->iArena = f->pArena ? 0 : H5_ARENA; /* out of memory: plain runs */
  }
  if (f->pArena && n <= H5_ARENA - f->iArena) {
    H5Run *r = (H5Run *)(f->pArena + f->iArena);
    f->iArena += n;
    *ppData = (uint8_t *)r + nHead;
    return r;
  }
  H5Run *r = cairnMalloc(n);
  if (r) *ppData = (uint8_t *)r + nHead;
  return r;
}

/* The size of the file is learnt lazily: the first read at open gives it when the file is
** shorter than that read; otherwise f->fileSize is a lower bound (what has been read) until a
** structure reaches past it (cairnH5Reach, below). */
/* At open: one host read of the first two pages (for small files: all their metadata and often
** their data) into the handle's own memory (pFirstRun, H5_FIRST_RUN bytes: a run header, then
** the pages). cairn_h5_open makes that read itself (see there why); cairnH5FirstData says where the
** pages go and cairnH5FirstDone takes what came back. A short read tells the file's size. */
uint8_t *cairnH5FirstData(H5File *f) { return (uint8_t *)f->pFirstRun + H5_FIRST_HEAD; }
void cairnH5FirstDone(H5File *f, size_t nr) {
  f->fileSize = nr;
  if (nr < H5_FIRST_BYTES) f->sizeKnown = 1;
  f->pFirstData = cairnH5FirstData(f); /* never freed or reused before the handle: see cairnH5MetaPtr */
  f->nFirstData = nr;
  f->firstPending = 1; /* into the cache on the first miss (cairnH5CacheFirst) */
}

/* While it is pending, nothing has changed pFirstData or nFirstData (only a cache budget below
** two pages zeroes nFirstData, and cairn_h5_cache_budget calls this first). */
void cairnH5CacheFirst(H5File *f) {
  if (!f->firstPending) return;
  f->firstPending = 0;
  cacheAddRun(f, f->pFirstRun, (uint8_t *)f->pFirstData, 0, 2, f->nFirstData);
}

/*
** The reader's lock (cairn/host.h "Locking": READ), deferred from the open to the first host
** call after the open's own read, so that a small file read in one go costs no system call more
** than it did (a lock is an open file description's flock plus OFD lock: ~0.2-0.4 us each on
** this machine, against ~1 us for open + pread + close). Taken once (threads reading chunks at
** once race for it: the one that takes it checks, the others' reads belong to the same call).
** What the open saw is only known to be the state the lock now protects if no commit came in
** between: the superblock is read again and compared; a different one is CAIRN_BUSY (reopen).
*/
int cairnH5LockNow(H5File *f) {
  if (!__atomic_exchange_n(&f->lockLater, 0, __ATOMIC_ACQ_REL)) return CAIRN_OK;
  CAIRN_TRY(cairn_file_lock(f->pFile, CAIRN_LOCK_READ, CAIRN_LOCK_DEFAULT_TIMEOUT));
  uint8_t a[sizeof f->aSb];
  size_t nr = 0;
  CAIRN_TRY(cairn_file_read(f->pFile, a, f->nSb, f->sbAt, &nr));
  if (nr != f->nSb || memcmp(a, f->aSb, f->nSb) != 0)
    return cairnErr(CAIRN_BUSY_SNAPSHOT, "hdf5: the file was committed to since it was opened (its superblock at %llu "
                    "changed): reopen it to read the new state", (unsigned long long)f->sbAt);
  return CAIRN_OK;
}
#define H5_LOCK_LATER(f) \
  do { \
    if (__builtin_expect(__atomic_load_n(&(f)->lockLater, __ATOMIC_RELAXED), 0)) CAIRN_TRY(cairnH5LockNow(f)); \
  } while (0)

static int hostRead(H5File *f, uint64_t abs, void *p, size_t n, size_t *pnRead) {
  H5_LOCK_LATER(f);
  /* chunk reads run on several threads at once */
  __atomic_fetch_add(&f->nRead, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&f->nReadBytes, (uint64_t)n, __ATOMIC_RELAXED);
  size_t nr = 0;
  int rc = cairn_file_read(f->pFile, p, n, abs, &nr);
  if (rc) return rc;
  if (pnRead) *pnRead = nr;
  else if (nr < n)
    return cairnErr(CAIRN_CORRUPT, "hdf5: file truncated: %zu bytes at offset %llu go past its end", n,
                    (unsigned long long)abs);
  return CAIRN_OK;
}

/* Copy [abs, abs+n) from cached pages if all are there (no LRU update: raw reads run on
** several threads at once while nothing inserts into the cache). */
static int cacheTryCopy(H5File *f, uint64_t abs, uint8_t *out, size_t n) {
  if (abs < f->nFirstData && n <= f->nFirstData - abs) { /* the first read's bytes (cairnH5MetaPtr) */
    memcpy(out, f->pFirstData + abs, n);
    return 1;
  }
  if (!f->aSlot || n > ((size_t)16 << f->pageBits)) return 0;
  uint64_t pageSize = (uint64_t)1 << f->pageBits;
  uint64_t first = abs >> f->pageBits, last = (abs + n - 1) >> f->pageBits;
  for (uint64_t pno = first; pno <= last; pno++) {
    H5Page *pg = cacheFind(f, pno);
    uint64_t ps = pno << f->pageBits;
    if (!pg || CAIRN_MIN(abs + n, ps + pageSize) > ps + pg->n) return 0;
  }
  for (uint64_t pno = first; pno <= last; pno++) {
    H5Page *pg = cacheFind(f, pno);
    uint64_t ps = pno << f->pageBits, from = CAIRN_MAX(abs, ps), to = CAIRN_MIN(abs + n, ps + pageSize);
    memcpy(out + (from - abs), pg->a + (from - ps), (size_t)(to - from));
  }
  return 1;
}

/* The absolute offset of n raw bytes at address a, checked to lie within the file. */
static inline __attribute__((always_inline)) int rawRange(H5File *f, uint64_t a, size_t n, uint64_t *pAbs) {
  uint64_t abs;
  if (cairnAddOverflow64(a, f->base, &abs)) abs = UINT64_MAX;
  *pAbs = abs;
  CAIRN_TRY(reachSize(f, abs, n));
  if (abs > f->fileSize || n > f->fileSize - abs)
    return cairnErr(CAIRN_CORRUPT, "hdf5: %zu bytes at address %llu go past the end of the file (%llu bytes)", n,
                    (unsigned long long)a, (unsigned long long)f->fileSize);
  return CAIRN_OK;
}

int cairnH5ReadRaw(H5File *f, uint64_t a, void *p, size_t n) {
  uint64_t abs;
  CAIRN_TRY(rawRange(f, a, n, &abs));
  if (n == 0) return CAIRN_OK;
  if (cacheTryCopy(f, abs, p, n)) return CAIRN_OK;
  return hostRead(f, abs, p, n, NULL);
}

/* A large raw read split over the host's workers: the cost of a read from a file the system
** has cached is the kernel's copy out of it, and copies on two cores run in twice the bandwidth
** of one (64 MiB: 6.3 GB/s with one pread, 12.6 with two halves at once on this machine kind).
** The range is checked once here; each part is one host read. A part that fails is read again
** on this thread, for its error message (tasks share no error state). */
typedef struct ParRead {
  H5File *f;
  uint64_t abs;
  uint8_t *p;
  size_t n, part;
  int aRc[16];
} ParRead;
static void parReadTask(void *pArg, size_t i, unsigned iWorker) {
  (void)iWorker;
  ParRead *r = pArg;
  size_t off = i * r->part, k = CAIRN_MIN(r->part, r->n - off);
  r->aRc[i] = hostRead(r->f, r->abs + off, r->p + off, k, NULL);
}

int cairnH5ReadRawPar(H5File *f, uint64_t a, void *p, size_t n) {
  unsigned nw = cairnConcurrency();
  if (nw < 2) return cairnH5ReadRaw(f, a, p, n);
  uint64_t abs;
  CAIRN_TRY(rawRange(f, a, n, &abs));
  ParRead r;
  size_t nPart = CAIRN_MIN((size_t)nw, CAIRN_ARRAY_SIZE(r.aRc));
  r.f = f;
  r.abs = abs;
  r.p = p;
  r.n = n;
  r.part = ((n + nPart - 1) / nPart + 4095) & ~(size_t)4095; /* page-aligned parts */
  nPart = (n + r.part - 1) / r.part;
  cairnParallelFor(nPart, parReadTask, &r);
  for (size_t i = 0; i < nPart; i++)
    if (r.aRc[i]) {
      size_t off = i * r.part;
      return hostRead(f, abs + off, (uint8_t *)p + off, CAIRN_MIN(r.part, n - off), NULL);
    }
  return CAIRN_OK;
}

/* Read the missing page pno into the cache, with the run of missing pages after it up to
** `last` (at most 16) and the missing neighbours in the same aligned group of four pages
** (16 KiB): metadata that belongs together (a heap, a B-tree level, a group's headers) tends to
** sit together. Measured on a lookup among 10,000 objects: 2 pages 8 reads, 4 pages 6 reads and
** 7% less time, 8 pages 5 reads but slower again (copies). While the file's size is only a lower
** bound the run is not cut to it: a short read tells the size instead of asking the host. */
static int cacheLoadRun(H5File *f, uint64_t pno, uint64_t last, int exact) {
  cairnH5CacheFirst(f); /* (its callers have, before their own lookups: kept for any new one) */
  uint64_t pageSize = (uint64_t)1 << f->pageBits;
  uint64_t end = pno + 1;
  while (end <= last && end - pno < 16 && !cacheFind(f, end)) end++;
  uint64_t grp0 = pno & ~(uint64_t)3, lo = pno;
  uint64_t nPages = f->sizeKnown ? (f->fileSize + pageSize - 1) >> f->pageBits : UINT64_MAX;
  if (!exact) {
    while (end < grp0 + 4 && end < nPages && !cacheFind(f, end) && f->cacheBytes + ((end + 1 - lo) << f->pageBits) <= f->cacheBudget) end++;
    while (lo > grp0 && !cacheFind(f, lo - 1) && f->cacheBytes + ((end + 1 - lo) << f->pageBits) <= f->cacheBudget) lo--;
  }
  uint64_t off = lo << f->pageBits;
  size_t nRun = (size_t)((end - lo) << f->pageBits);
  if (f->sizeKnown && off + nRun > f->fileSize) nRun = (size_t)(f->fileSize - off);
  uint8_t *data;
  H5Run *pRun = runAlloc(f, end - lo, &data);
  if (!pRun) return cairnErr(CAIRN_NOMEM, "hdf5: out of memory in the metadata cache");
  size_t nr = 0;
  int rc = hostRead(f, off, data, nRun, &nr);
  if (rc) {
    runFree(f, pRun);
    return rc;
  }
  if (!f->sizeKnown) {
    if (nr < nRun) {
      f->fileSize = off + nr;
      f->sizeKnown = 1;
    } else if (off + nr > f->fileSize) f->fileSize = off + nr;
  }
  cacheAddRun(f, pRun, data, lo, end, nr);
  return CAIRN_OK;
}

static int cacheLoad(H5File *f, uint64_t pno, uint64_t last) { return cacheLoadRun(f, pno, last, 0); }

/* See h5int.h. Only pages the structure covers: a B-tree node's neighbours in the file are other
** nodes and headers of the same group, not the ones a lookup goes to next (measured on a lookup
** among 10,000 objects: the same 6 reads, 20 KiB fewer bytes). */
void cairnH5Prefetch(H5File *f, uint64_t a, uint64_t n) {
  uint64_t abs;
  if (n == 0 || !f->aSlot || n > ((uint64_t)8 << f->pageBits) || f->cacheBudget < ((uint64_t)32 << f->pageBits) ||
      cairnAddOverflow64(a, f->base, &abs) || abs > UINT64_MAX - n)
    return;
  cairnH5CacheFirst(f);
  if (f->sizeKnown) {
    if (abs >= f->fileSize) return;
    n = CAIRN_MIN(n, f->fileSize - abs);
  }
  uint64_t last = (abs + n - 1) >> f->pageBits;
  for (uint64_t pno = abs >> f->pageBits; pno <= last; pno++)
    if (!cacheFind(f, pno) && cacheLoadRun(f, pno, last, 1) != CAIRN_OK) return; /* the read that follows reports it */
}

/* Ask the host for the size if [abs, abs+n) reaches past what is known (no cache change: raw
** reads call this from several threads). */
static int reachSize(H5File *f, uint64_t abs, uint64_t n) {
  if (f->sizeKnown || (abs <= f->fileSize && n <= f->fileSize - abs)) return CAIRN_OK;
  uint64_t sz;
  H5_LOCK_LATER(f);
  CAIRN_TRY(cairn_file_size(f->pFile, &sz));
  f->fileSize = sz;
  f->sizeKnown = 1;
  return CAIRN_OK;
}

/* Metadata only (one thread): see h5int.h. */
int cairnH5Reach(H5File *f, uint64_t abs, uint64_t n) {
  if (f->sizeKnown || (abs <= f->fileSize && n <= f->fileSize - abs)) return CAIRN_OK;
  cairnH5CacheFirst(f);
  /* A structure about to be read: read its pages now (they would be read next anyway), which
  ** either covers it or, coming back short, tells the size. Only a large one asks the host. */
  if (f->aSlot && n <= ((uint64_t)4 << f->pageBits) && abs <= UINT64_MAX - n && f->cacheBudget >= ((uint64_t)32 << f->pageBits)) {
    uint64_t last = (abs + (n ? n : 1) - 1) >> f->pageBits;
    for (uint64_t pno = abs >> f->pageBits; pno <= last && !f->sizeKnown; pno++)
      if (!cacheFind(f, pno)) CAIRN_TRY(cacheLoad(f, pno, last));
  }
  return reachSize(f, abs, n);
}

/* See h5int.h: the common case of cairnH5ReadMeta (one page, cached) without the copy. */
const uint8_t *cairnH5MetaPtr(H5File *f, uint64_t a, size_t n) {
  uint64_t abs = a + f->base;
  /* within the first read (a small file's metadata, all of it): no page to look up */
  if (abs >= a && abs < f->nFirstData && n <= f->nFirstData - abs && n) return f->pFirstData + abs;
  if (abs < a || n == 0 || n > ((size_t)1 << f->pageBits) || abs > UINT64_MAX - n) return NULL;
  uint64_t pno = abs >> f->pageBits, off = abs & (((uint64_t)1 << f->pageBits) - 1);
  if (((abs + n - 1) >> f->pageBits) != pno) return NULL;
  H5Page *pg = f->pLruHead && f->pLruHead->pno == pno ? f->pLruHead : cacheFind(f, pno);
  if (!pg || off + n > pg->n) return NULL;
  if (pg != f->pLruHead) {
    lruUnlink(f, pg);
    lruPush(f, pg);
  }
  return pg->a + off;
}

int cairnH5ReadMeta(H5File *f, uint64_t a, void *pOut, size_t n) {
  const uint8_t *q = cairnH5MetaPtr(f, a, n);
  if (q) {
    memcpy(pOut, q, n);
    return CAIRN_OK;
  }
  uint64_t abs;
  cairnH5CacheFirst(f);
  if (cairnAddOverflow64(a, f->base, &abs)) abs = UINT64_MAX;
  CAIRN_TRY(cairnH5Reach(f, abs, n));
  if (abs > f->fileSize || n > f->fileSize - abs)
    return cairnErr(CAIRN_CORRUPT, "hdf5: %zu bytes at address %llu go past the end of the file (%llu bytes)", n,
                    (unsigned long long)a, (unsigned long long)f->fileSize);
  if (n == 0) return CAIRN_OK;
  uint64_t pageSize = (uint64_t)1 << f->pageBits;
  if (!f->aSlot || n > f->cacheBudget / 4) return hostRead(f, abs, pOut, n, NULL);
  uint8_t *out = pOut;
  uint64_t first = abs >> f->pageBits, last = (abs + n - 1) >> f->pageBits;
  for (uint64_t pno = first; pno <= last;) {
    H5Page *pg = cacheFind(f, pno);
    if (!pg) {
      CAIRN_TRY(cacheLoad(f, pno, last));
      continue; /* now found */
    }
    uint64_t pageStart = pno << f->pageBits;
    uint64_t from = CAIRN_MAX(abs, pageStart), to = CAIRN_MIN(abs + n, pageStart + pageSize);
    if (to > pageStart + pg->n)
      return cairnErr(CAIRN_CORRUPT, "hdf5: metadata at address %llu runs past the end of the file",
                      (unsigned long long)a);
    memcpy(out + (from - abs), pg->a + (from - pageStart), (size_t)(to - from));
    if (pg != f->pLruHead) {
      lruUnlink(f, pg);
      lruPush(f, pg);
    }
    pno++;
  }
  if (f->cacheBytes > f->cacheBudget) cacheEvict(f, f->cacheBudget);
  return CAIRN_OK;
}

int cairnH5LoadMeta(H5File *f, uint64_t a, size_t n, uint8_t **pp) {
  *pp = NULL;
  if (n > H5_MAX_META) return cairnErr(CAIRN_LIMIT, "hdf5: metadata block of %zu bytes at address %llu is too large", n, (unsigned long long)a);
  uint8_t *p = cairnMalloc(n + 8);
  if (!p) return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
  int rc = cairnH5ReadMeta(f, a, p, n);
  if (rc) {
    cairnFree(p);
    return rc;
  }
  memset(p + n, 0, 8);
  *pp = p;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- object headers */
#define OHDR_MAX_CHUNKS 4096
#define OHDR_MAX_MSGS 65536

/* Room for one more message (aMsg out of its inline slots into an allocation, or that grown). */
static int ohdrGrowMsg(H5Ohdr *o) {
  if (o->nMsg >= OHDR_MAX_MSGS) return cairnErr(CAIRN_LIMIT, "hdf5: object header at %llu has too many messages", (unsigned long long)o->addr);
  if (!o->msgInline) return CAIRN_GROW(o->aMsg, o->capMsg, o->nMsg + 1, "hdf5: object header messages");
  /* out of the inline slots: a new array, the inline messages copied into it */
  H5Msg *a = NULL;
  size_t cap = 0;
  CAIRN_TRY(cairnArrayReserve(&a, &cap, (size_t)o->capMsg * 2, sizeof(H5Msg), 16, "hdf5: object header messages"));
  memcpy(a, o->aMsg, o->nMsg * sizeof(H5Msg));
  o->aMsg = a;
  o->msgInline = 0;
  o->capMsg = (uint32_t)cap;
  return CAIRN_OK;
}

static int ohdrAddBuf(H5Ohdr *o, uint8_t *p) {
  if (o->nBuf == o->capBuf) {
    int rc;
    if (!o->bufInline) {
      rc = CAIRN_GROW(o->aBuf, o->capBuf, o->nBuf + 1, "hdf5: object header chunks");
    } else { /* out of the inline slots: a new array, the inline pointers copied into it */
      uint8_t **a = NULL;
      size_t cap = 0;
      rc = cairnArrayReserve(&a, &cap, (size_t)o->capBuf * 2, sizeof(uint8_t *), 4, "hdf5: object header chunks");
      if (rc == CAIRN_OK) {
        memcpy(a, o->aBuf, o->nBuf * sizeof(uint8_t *));
        o->aBuf = a;
        o->bufInline = 0;
        o->capBuf = (uint32_t)cap;
      }
    }
    if (rc) {
      cairnFree(p);
      return rc;
    }
  }
  o->aBuf[o->nBuf++] = p;
  return CAIRN_OK;
}

/* The first chunk, n bytes at a, and its block, which also has room for the first messages and
** chunk pointers. A chunk in the open's first read (cairnH5MetaStable: a small file's headers) is
** parsed where it lies, valid while the handle's memory lives (see cairn_h5_close: an object in
** the handle's slot keeps it), and the block holds only the arrays (o->nFirstData 0); else the
** chunk is read into the block's start (cairnH5LoadMeta's layout: 8 zero bytes after the data). */
static inline __attribute__((always_inline)) int ohdrLoadFirst(H5File *f, H5Ohdr *o, uint64_t a, size_t n, const uint8_t **pp, uint8_t *pLent, size_t nLent) {
  *pp = NULL;
  if (n > H5_MAX_META) return cairnErr(CAIRN_LIMIT, "hdf5: metadata block of %zu bytes at address %llu is too large", n, (unsigned long long)a);
  const uint8_t *q = cairnH5MetaStable(f, a, n);
  size_t nData = q ? 0 : (n + 8 + 7) & ~(size_t)7;
  size_t nBlock = nData + H5_OHDR_INLINE_BUFS * sizeof(uint8_t *) + H5_OHDR_INLINE_MSGS * sizeof(H5Msg);
  /* the caller's memory when the block fits (pLent is 8-aligned), else an allocation */
  uint8_t *p = pLent && nBlock <= nLent ? pLent : cairnMalloc(nBlock);
  if (!p) return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
  o->firstLent = p == pLent;
  o->nFirst = (uint32_t)nBlock;
  o->nFirstData = (uint32_t)nData;
  if (!q) {
    int rc = cairnH5ReadMeta(f, a, p, n);
    if (rc) {
      if (!o->firstLent) cairnFree(p);
      o->firstLent = 0;
      return rc;
    }
    memset(p + n, 0, 8);
    q = p;
  }
  o->aBuf = (uint8_t **)(p + nData);
  o->capBuf = H5_OHDR_INLINE_BUFS;
  o->bufInline = 1;
  o->aMsg = (H5Msg *)(p + nData + H5_OHDR_INLINE_BUFS * sizeof(uint8_t *));
  o->capMsg = H5_OHDR_INLINE_MSGS;
  o->msgInline = 1;
  o->aBuf[o->nBuf++] = p;
  *pp = q;
  return CAIRN_OK;
}

typedef struct Cont { uint64_t addr, len; } Cont;

/* A continuation message (q[0..size), at file address qa): its chunk joins the list to read. */
static int ohdrCont(H5File *f, H5Ohdr *o, const uint8_t *q, uint32_t size, uint64_t qa, Cont **paCont, uint32_t *pnCont, uint32_t *pcapCont) {
  H5Cur c;
  cairnH5Cur(&c, q, size, qa);
  Cont k;
  k.addr = cairnH5Addr(f, &c);
  k.len = cairnH5Len(f, &c);
  if (c.bad) return cairnErr(CAIRN_CORRUPT, "hdf5: short continuation message at offset %llu", (unsigned long long)qa);
  if (*pnCont >= OHDR_MAX_CHUNKS) return cairnErr(CAIRN_LIMIT, "hdf5: object header at %llu has too many continuation chunks", (unsigned long long)o->addr);
  CAIRN_TRY(CAIRN_GROW(*paCont, *pcapCont, *pnCont + 1, "hdf5: continuation chunks"));
  (*paCont)[(*pnCont)++] = k;
  return CAIRN_OK;
}

/* Parse messages in [p, p+n) (a chunk's message area) of an object header whose message
** headers are hdr bytes (v1: 8; v2: 4, or 6 with creation order). Messages go straight into
** aMsg; o->typeMask records the types below 32 present (cairnH5OhdrFind, objKind). Inlined per
** version (v1 and hdr constant), so the loop is the fields' loads and stores. */
static inline __attribute__((always_inline)) int ohdrParseAs(H5File *f, H5Ohdr *o, const uint8_t *p, size_t n, uint64_t addr,
                                                              Cont **paCont, uint32_t *pnCont, uint32_t *pcapCont, int v1, size_t hdr) {
  size_t i = 0;
  while (n - i >= hdr) { /* fewer bytes left: a gap (v2) or padding */
    H5Frame fr;
    cairnH5FrameGet(p + i, v1, hdr, &fr);
    uint32_t type = fr.type, size = fr.size;
    uint8_t flags = fr.flags;
    if (size > n - i - hdr)
      return cairnErr(CAIRN_CORRUPT, "hdf5: message of type %u at offset %llu (%u bytes) overruns its object header chunk",
                      type, (unsigned long long)(addr + i), size);
    const uint8_t *q = p + i + hdr;
    uint64_t qa = addr + i + hdr;
    i += hdr + size;
    if (type == H5_MSG_NIL) continue; /* null message: padding */
    if (type == H5_MSG_CONT) {
      CAIRN_TRY(ohdrCont(f, o, q, size, qa, paCont, pnCont, pcapCont));
      continue;
    }
    if (o->nMsg == o->capMsg) CAIRN_TRY(ohdrGrowMsg(o));
    H5Msg *m = &o->aMsg[o->nMsg++];
    m->type = (uint16_t)type;
    m->flags = flags;
    m->size = size;
    m->p = q;
    m->addr = qa;
    o->typeMask |= (uint32_t)(type < 32) << (type & 31);
  }
  return CAIRN_OK;
}
static inline __attribute__((always_inline)) int ohdrParse(H5File *f, H5Ohdr *o, const uint8_t *p, size_t n, uint64_t addr,
                                                            Cont **paCont, uint32_t *pnCont, uint32_t *pcapCont) {
  if (o->version == 1) return ohdrParseAs(f, o, p, n, addr, paCont, pnCont, pcapCont, 1, 8);
  return ohdrParseAs(f, o, p, n, addr, paCont, pnCont, pcapCont, 0, (o->hdrFlags & H5_OHDR_CRT_TRACK) ? 6 : 4);
}

void cairnH5OhdrFree(H5Ohdr *o) {
  /* the first chunk's block last: aBuf and aMsg may live in it */
  for (uint32_t i = o->nBuf; i-- > 1;) cairnFree(o->aBuf[i]);
  uint8_t *first = o->nBuf ? o->aBuf[0] : NULL;
  if (!o->bufInline) cairnFree(o->aBuf);
  if (!o->msgInline) cairnFree(o->aMsg);
  if (!o->firstLent) cairnFree(first);
  memset(o, 0, sizeof(*o));
}

void cairnH5OhdrMove(H5Ohdr *o, uint8_t *pDst) {
  uint8_t *old = o->aBuf[0];
  /* the chunk, the inline chunk pointers and the inline messages in use */
  size_t nInline = o->nFirstData + H5_OHDR_INLINE_BUFS * sizeof(uint8_t *);
  memcpy(pDst, old, o->msgInline ? nInline + o->nMsg * sizeof(H5Msg) : nInline);
  /* messages of the first chunk point into it; those of continuation chunks stay */
  H5Msg *aMsg = o->msgInline ? (H5Msg *)(pDst + ((uint8_t *)o->aMsg - old)) : o->aMsg;
  for (uint32_t i = 0; i < o->nMsg; i++)
    if (aMsg[i].p >= old && aMsg[i].p < old + o->nFirstData) aMsg[i].p = pDst + (aMsg[i].p - old);
  o->aMsg = aMsg;
  if (o->bufInline) o->aBuf = (uint8_t **)(pDst + ((uint8_t *)o->aBuf - old));
  o->aBuf[0] = pDst;
  if (!o->firstLent) cairnFree(old);
  o->firstLent = 1;
}

int cairnH5OhdrLoad(H5File *f, uint64_t addr, H5Ohdr *o) { return cairnH5OhdrLoadIn(f, addr, o, NULL, 0); }

int cairnH5OhdrLoadIn(H5File *f, uint64_t addr, H5Ohdr *o, uint8_t *pLent, size_t nLent) {
  memset(o, 0, sizeof(*o));
  o->addr = addr;
  if (addr == H5_UNDEF) return cairnErr(CAIRN_CORRUPT, "hdf5: undefined object header address");
  uint8_t aPre[40];
  size_t nPre = sizeof(aPre);
  int rc;
  /* the prefix in the open's first read (then within the file), else in the cache (used only
  ** before the first chunk is read), else a copy */
  const uint8_t *pre = cairnH5MetaStable(f, addr, nPre);
  if (!pre) {
    uint64_t absHdr;
    if (cairnAddOverflow64(addr, f->base, &absHdr)) absHdr = UINT64_MAX;
    CAIRN_TRY(cairnH5Reach(f, absHdr, sizeof(aPre)));
    uint64_t avail = f->fileSize > f->base + addr ? f->fileSize - f->base - addr : 0;
    nPre = (size_t)CAIRN_MIN((uint64_t)sizeof(aPre), avail);
    if (nPre < 16) return cairnErr(CAIRN_CORRUPT, "hdf5: object header address %llu is past the end of the file", (unsigned long long)addr);
    pre = cairnH5MetaPtr(f, addr, nPre);
    if (!pre) {
      if ((rc = cairnH5ReadMeta(f, addr, aPre, nPre))) return rc;
      pre = aPre;
    }
  }
  uint32_t nCont = 0, capCont = 0;
  Cont *aCont = NULL;
  const uint8_t *first = NULL; /* the first chunk */
  uint8_t *buf = NULL;         /* a continuation chunk */
  const uint8_t *pMsgs;        /* the first chunk's messages: nMsgs bytes at file address aMsgs */
  size_t nMsgs;
  uint64_t aMsgs;
  H5OhdrPrefix hp;
  int pk = cairnH5OhdrPrefix(pre, nPre, &hp);
  if (pk == H5_PREFIX_VERSION) return cairnErr(CAIRN_CORRUPT, "hdf5: object header at %llu has version %u", (unsigned long long)addr, hp.version);
  if (pk == H5_PREFIX_NONE)
    return cairnErr(CAIRN_CORRUPT, "hdf5: no object header at address %llu (version byte %u)", (unsigned long long)addr, hp.version);
  if (pk != H5_PREFIX_OK) return cairnErr(CAIRN_CORRUPT, "hdf5: truncated object header at %llu", (unsigned long long)addr);
  o->version = hp.version;
  if (hp.nMsgs > H5_MAX_META) {
    if (hp.version == 1) return cairnErr(CAIRN_CORRUPT, "hdf5: object header at %llu claims %u bytes", (unsigned long long)addr, (unsigned)hp.nMsgs);
    return cairnErr(CAIRN_CORRUPT, "hdf5: object header at %llu claims %llu bytes", (unsigned long long)addr, (unsigned long long)hp.nMsgs);
  }
  if (hp.version == 2) {
    o->hdrFlags = hp.flags;
    o->maxCompactAttr = hp.maxCompactAttr;
    o->minDenseAttr = hp.minDenseAttr;
    size_t total = hp.iMsgs + (size_t)hp.nMsgs + 4;
    if ((rc = ohdrLoadFirst(f, o, addr, total, &first, pLent, nLent))) return rc;
    if ((rc = cairnH5Checksum(first, total - 4, addr, "object header"))) goto fail;
    pMsgs = first + hp.iMsgs;
  } else {
    if ((rc = ohdrLoadFirst(f, o, addr + 16, (size_t)hp.nMsgs, &first, pLent, nLent))) return rc;
    pMsgs = first;
  }
  nMsgs = (size_t)hp.nMsgs;
  aMsgs = addr + hp.iMsgs;
  if ((rc = ohdrParse(f, o, pMsgs, nMsgs, aMsgs, &aCont, &nCont, &capCont))) goto fail;
  for (uint32_t k = 0; k < nCont; k++) {
    Cont c = aCont[k];
    if (c.len > H5_MAX_META || c.addr == H5_UNDEF) {
      rc = cairnErr(CAIRN_CORRUPT, "hdf5: bad continuation chunk (%llu bytes at %llu) in object header %llu",
                    (unsigned long long)c.len, (unsigned long long)c.addr, (unsigned long long)addr);
      goto fail;
    }
    for (uint32_t j = 0; j < k; j++)
      if (aCont[j].addr == c.addr) {
        rc = cairnErr(CAIRN_CORRUPT, "hdf5: continuation chunk at %llu is referenced twice in object header %llu",
                      (unsigned long long)c.addr, (unsigned long long)addr);
        goto fail;
      }
    if ((rc = cairnH5LoadMeta(f, c.addr, (size_t)c.len, &buf))) goto fail;
    if ((rc = ohdrAddBuf(o, buf))) goto fail;
    size_t skip = 0; /* v2: the OCHK signature before the messages, the checksum after */
    if (o->version == 2) {
      if (c.len < 8 || memcmp(buf, H5_SIG_OCHK, 4) != 0) {
        rc = cairnErr(CAIRN_CORRUPT, "hdf5: missing OCHK signature at offset %llu", (unsigned long long)c.addr);
        goto fail;
      }
      if ((rc = cairnH5Checksum(buf, (size_t)c.len - 4, c.addr, "object header continuation"))) goto fail;
      skip = 4;
    }
    if ((rc = ohdrParse(f, o, buf + skip, (size_t)c.len - 2 * skip, c.addr + skip, &aCont, &nCont, &capCont))) goto fail;
  }
  cairnFree(aCont);
  return CAIRN_OK;
fail:
  cairnFree(aCont);
  cairnH5OhdrFree(o);
  return rc;
}

const H5Msg *cairnH5OhdrScan(const H5Ohdr *o, uint16_t type, uint32_t i) {
  for (uint32_t k = 0; k < o->nMsg; k++)
    if (o->aMsg[k].type == type && i-- == 0) return &o->aMsg[k];
  return NULL;
}

/* ---------------------------------------------------------------- superblock */
static int readSohmTable(H5File *f, uint64_t addr, uint32_t nIdx) {
  if (nIdx > CAIRN_ARRAY_SIZE(f->aSohm)) return cairnErr(CAIRN_LIMIT, "hdf5: %u shared-message indexes", nIdx);
  size_t n = 4 + nIdx * (size_t)(14 + 2 * f->so) + 4;
  uint8_t *p;
  CAIRN_TRY(cairnH5LoadMeta(f, addr, n, &p));
  int rc = CAIRN_OK;
  if (memcmp(p, H5_SIG_SMTB, 4) != 0) rc = cairnErr(CAIRN_CORRUPT, "hdf5: missing SMTB signature at offset %llu", (unsigned long long)addr);
  else rc = cairnH5Checksum(p, n - 4, addr, "shared message table");
  if (rc == CAIRN_OK) {
    H5Cur c;
    cairnH5Cur(&c, p + 4, n - 8, addr + 4);
    for (uint32_t i = 0; i < nIdx; i++) {
      cairnH5U8(&c); /* version */
      f->aSohm[i].indexType = cairnH5U8(&c);
      f->aSohm[i].typeFlags = (uint16_t)cairnH5U(&c, 2);
      cairnH5U(&c, 4); /* min size */
      cairnH5U(&c, 2); /* list cutoff */
      cairnH5U(&c, 2); /* btree cutoff */
      cairnH5U(&c, 2); /* nmsgs */
      f->aSohm[i].indexAddr = cairnH5Addr(f, &c);
      f->aSohm[i].heapAddr = cairnH5Addr(f, &c);
    }
    f->nSohm = nIdx;
  }
  cairnFree(p);
  return rc;
}

static int readExtension(H5File *f) {
  H5Ohdr o;
  CAIRN_TRY(cairnH5OhdrLoad(f, f->extAddr, &o));
  const H5Msg *m = cairnH5OhdrFind(&o, H5_MSG_SHMESG, 0);
  int rc = CAIRN_OK;
  if (m) {
    H5Cur c;
    cairnH5Cur(&c, m->p, m->size, m->addr);
    cairnH5U8(&c);
    uint64_t tab = cairnH5Addr(f, &c);
    uint32_t nIdx = cairnH5U8(&c);
    if (c.bad) rc = cairnErr(CAIRN_CORRUPT, "hdf5: short shared message table message at %llu", (unsigned long long)m->addr);
    else if (tab != H5_UNDEF && nIdx) rc = readSohmTable(f, tab, nIdx);
  }
  cairnH5OhdrFree(&o);
  return rc;
}

int cairnH5OpenSuperblock(H5File *f) {
  uint8_t aSb[128];
  const uint8_t *sb = aSb;
  uint64_t at = 0;
  for (;;) {
    CAIRN_TRY(cairnH5Reach(f, at, 8));
    if (at + 8 > f->fileSize) return cairnErr(CAIRN_CORRUPT, "hdf5: no HDF5 signature found (file of %llu bytes)", (unsigned long long)f->fileSize);
    size_t n = (size_t)CAIRN_MIN((uint64_t)sizeof(aSb), f->fileSize - at);
    /* in place in the first read when all 128 bytes are there, else copied and zero-padded */
    if (n < sizeof(aSb) || (sb = cairnH5MetaStable(f, at, n)) == NULL) {
      memset(aSb, 0, sizeof(aSb));
      CAIRN_TRY(cairnH5ReadMeta(f, at, aSb, n));
      sb = aSb;
    }
    if (memcmp(sb, H5_SIGNATURE, H5_SIGNATURE_LEN) == 0) break;
    at = at ? at * 2 : 512;
  }
  f->sbVersion = sb[8];
  /* kept for cairnH5LockNow: the superblock's own bytes (v0/v1 with its root symbol table entry) */
  f->sbAt = at;
  f->nSb = (uint32_t)(f->sbVersion >= 2 ? 12 + 4 * (size_t)sb[9] + 4 : (f->sbVersion ? 28 : 24) + 6 * (size_t)sb[13] + 24);
  if (f->nSb > sizeof f->aSb) f->nSb = sizeof f->aSb;
  memcpy(f->aSb, sb, f->nSb);
  H5Cur c;
  if (f->sbVersion <= 1) {
    f->so = sb[13];
    f->sl = sb[14];
    f->groupLeafK = cairnGetLE16(sb + 16);
    f->groupInternalK = cairnGetLE16(sb + 18);
    size_t i = 24;
    f->chunkK = 32;
    if (f->sbVersion == 1) {
      f->chunkK = cairnGetLE16(sb + 24);
      i = 28;
    }
    if ((f->so != 2 && f->so != 4 && f->so != 8) || (f->sl != 2 && f->sl != 4 && f->sl != 8))
      return cairnErr(CAIRN_CORRUPT, "hdf5: superblock at %llu has offset size %u, length size %u", (unsigned long long)at, f->so, f->sl);
    f->rootBtree = f->rootHeap = f->extAddr = H5_UNDEF;
    if (f->so == 8) {
      /* 8-byte addresses (the default): fixed offsets, all inside the 128 bytes at sb (at most
      ** 28 + 72). Base, free space, end of file, driver info, then the root symbol table
      ** entry: link name offset, header address, cache type, reserved, scratch pad. */
      const uint8_t *q = sb + i;
      f->base = cairnGetLE64(q);
      f->eofAddr = cairnGetLE64(q + 16);
      f->rootAddr = cairnGetLE64(q + 40);
      if (cairnGetLE32(q + 48) == 1) {
        f->rootBtree = cairnGetLE64(q + 56);
        f->rootHeap = cairnGetLE64(q + 64);
      }
    } else {
      cairnH5Cur(&c, sb + i, sizeof(aSb) - i, at + i);
      f->base = cairnH5Addr(f, &c);
      cairnH5Addr(f, &c); /* free space */
      f->eofAddr = cairnH5Addr(f, &c);
      cairnH5Addr(f, &c); /* driver info */
      /* root symbol table entry */
      cairnH5Addr(f, &c); /* link name offset */
      f->rootAddr = cairnH5Addr(f, &c);
      uint32_t cacheType = (uint32_t)cairnH5U(&c, 4);
      cairnH5U(&c, 4);
      if (cacheType == 1) {
        f->rootBtree = cairnH5Addr(f, &c);
        f->rootHeap = cairnH5Addr(f, &c);
      }
      if (c.bad) return cairnErr(CAIRN_CORRUPT, "hdf5: truncated superblock at %llu", (unsigned long long)at);
    }
  } else if (f->sbVersion == 2 || f->sbVersion == 3) {
    f->so = sb[9];
    f->sl = sb[10];
    if ((f->so != 2 && f->so != 4 && f->so != 8) || (f->sl != 2 && f->sl != 4 && f->sl != 8))
      return cairnErr(CAIRN_CORRUPT, "hdf5: superblock at %llu has offset size %u, length size %u", (unsigned long long)at, f->so, f->sl);
    size_t n = 12 + 4 * (size_t)f->so;
    CAIRN_TRY(cairnH5Checksum(sb, n, at, "superblock"));
    cairnH5Cur(&c, sb + 12, n - 12, at + 12);
    f->base = cairnH5Addr(f, &c);
    f->extAddr = cairnH5Addr(f, &c);
    f->eofAddr = cairnH5Addr(f, &c);
    f->rootAddr = cairnH5Addr(f, &c);
    f->rootBtree = f->rootHeap = H5_UNDEF;
    f->groupLeafK = 4;
    f->groupInternalK = 16;
    f->chunkK = 32;
  } else {
    return cairnErr(CAIRN_UNSUPPORTED, "hdf5: superblock version %u at offset %llu", f->sbVersion, (unsigned long long)at);
  }
  if (f->base == H5_UNDEF) f->base = at;
  /* The base address is where the superblock is unless the file says otherwise. */
  CAIRN_TRY(cairnH5Reach(f, f->base, 0));
  if (f->base > f->fileSize) return cairnErr(CAIRN_CORRUPT, "hdf5: base address %llu past end of file", (unsigned long long)f->base);
  if (f->rootAddr == H5_UNDEF) return cairnErr(CAIRN_CORRUPT, "hdf5: superblock has no root group");
  if (f->extAddr != H5_UNDEF) CAIRN_TRY(readExtension(f));
  return CAIRN_OK;
}
