/*
** 2026-11-29
**
** core/common/host.c - the installed host, the thin wrappers every core module calls to reach
** it (so tests can inject faults in one place), the lock wrappers with their busy timeout, and
** the in-memory file.
*/
#include <stddef.h> /* offsetof */
#include <stdlib.h> /* malloc/realloc/free: the default allocator only */

#include "internal.h"

static cairn_host gHost = {2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
static int64_t gBusyTimeoutMs; /* cairn_set_busy_timeout */

int cairn_host_set(const cairn_host *pHost) {
  cairnCpuReset();
  if (pHost == NULL) {
    memset(&gHost, 0, sizeof(gHost));
    gHost.iVersion = 2;
    return CAIRN_OK;
  }
  if (pHost->iVersion < 1) return cairnErr(CAIRN_MISUSE, "cairn_host_set: iVersion %d < 1", pHost->iVersion);
  if ((pHost->xMalloc == NULL) != (pHost->xFree == NULL))
    return cairnErr(CAIRN_MISUSE, "cairn_host_set: xMalloc and xFree must be set together");
  /* Copy only the fields the caller's version has: a version 1 struct ends before xSleep. */
  memset(&gHost, 0, sizeof(gHost));
  memcpy(&gHost, pHost, pHost->iVersion >= 2 ? sizeof(gHost) : offsetof(cairn_host, xSleep));
  return CAIRN_OK;
}

const cairn_host *cairn_host_get(void) { return &gHost; }

/* ---- allocation ---- */
void *cairnMalloc(size_t n) {
  if (n == 0) n = 1;
  return gHost.xMalloc ? gHost.xMalloc(gHost.pCtx, n) : malloc(n);
}
void *cairnMallocZero(size_t n) {
  void *p = cairnMalloc(n);
  if (p) memset(p, 0, n);
  return p;
}
void *cairnMallocArray(size_t n, size_t size) {
  size_t t;
  if (cairnMulOverflowSize(n, size, &t)) return NULL;
  return cairnMalloc(t);
}
void *cairnRealloc(void *p, size_t n) {
  if (n == 0) n = 1;
  if (gHost.xMalloc) {
    if (gHost.xRealloc) return gHost.xRealloc(gHost.pCtx, p, n);
    /* Without xRealloc we cannot know the old size, so a host that sets xMalloc must set
    ** xRealloc too for growth to work; fail cleanly instead of guessing. */
    return p ? NULL : gHost.xMalloc(gHost.pCtx, n);
  }
  return realloc(p, n);
}
void cairnFreeBlock(void *p) {
  if (gHost.xFree) gHost.xFree(gHost.pCtx, p);
  else free(p);
}
void *cairn_malloc(size_t n) { return cairnMalloc(n); }
void *cairn_realloc(void *p, size_t n) { return cairnRealloc(p, n); }
void cairn_free(void *p) { cairnFree(p); }

/* ---- services ---- */
int64_t cairnClock(int monotonic) { return gHost.xClock ? gHost.xClock(gHost.pCtx, monotonic) : 0; }

unsigned cairnConcurrency(void) {
  unsigned n = gHost.xConcurrency ? gHost.xConcurrency(gHost.pCtx) : 1;
  return n ? n : 1;
}

int cairnParallelFor(size_t nTask, cairn_task_fn xTask, void *pArg) {
  if (nTask == 0) return CAIRN_OK;
  if (gHost.xParallelFor && nTask > 1 && cairnConcurrency() > 1)
    return gHost.xParallelFor(gHost.pCtx, nTask, xTask, pArg);
  for (size_t i = 0; i < nTask; i++) xTask(pArg, i, 0);
  return CAIRN_OK;
}

int cairn_open(const char *zPath, int flags, cairn_file **ppFile) {
  if (!ppFile) return cairnErr(CAIRN_MISUSE, "cairn_open: ppFile is NULL");
  *ppFile = NULL;
  if (!zPath) return cairnErr(CAIRN_MISUSE, "cairn_open: path is NULL");
  if (!gHost.xOpen) return cairnErr(CAIRN_UNSUPPORTED, "cannot open '%s': this host has no file system", zPath);
  /* A tail call: the open system call is made below it, and every frame still on the stack
  ** when a system call returns costs a mispredicted return ("System calls and the stack" in
  ** internal.h). A host leaves *ppFile NULL on failure (cairn_host.xOpen). */
  return gHost.xOpen(gHost.pCtx, zPath, flags, ppFile);
}

/* ---- file wrappers ---- */
int cairn_file_read(cairn_file *f, void *p, size_t n, uint64_t iOff, size_t *pnRead) {
  size_t nRead = 0;
  if (!f || (!p && n)) return cairnErr(CAIRN_MISUSE, "read: NULL file or buffer");
  int rc = f->pMethods->xRead(f, p, n, iOff, &nRead);
  if (pnRead) *pnRead = nRead;
  return rc == CAIRN_OK ? CAIRN_OK : cairnReadFailed(rc, n, iOff);
}

cairn_status cairnReadFailed(cairn_status rc, size_t n, uint64_t iOff) {
  /* Keep the host's message if it set one, but make sure the offset is in it. */
  const char *zHost = cairn_errmsg();
  return cairnErr(rc, "read of %zu bytes at offset %llu failed%s%s", n, (unsigned long long)iOff, zHost[0] ? ": " : "",
                  zHost);
}

void cairnFileWillRead(cairn_file *f, const uint64_t *aRange, size_t nRange) {
  if (f && nRange && f->pMethods->iVersion >= 3 && f->pMethods->xWillRead) (void)f->pMethods->xWillRead(f, aRange, nRange);
}
int cairnFileCanPlan(cairn_file *f) { return f && f->pMethods->iVersion >= 3 && f->pMethods->xWillRead != NULL; }

int cairn_file_read_exact(cairn_file *f, void *p, size_t n, uint64_t iOff) {
  size_t nRead = 0;
  CAIRN_TRY(cairn_file_read(f, p, n, iOff, &nRead));
  if (nRead != n)
    return cairnErr(CAIRN_IOERR_SHORT_READ, "file ends at offset %llu, inside a read of %zu bytes at offset %llu",
                    (unsigned long long)(iOff + nRead), n, (unsigned long long)iOff);
  return CAIRN_OK;
}

int cairn_file_write(cairn_file *f, const void *p, size_t n, uint64_t iOff) {
  if (!f || (!p && n)) return cairnErr(CAIRN_MISUSE, "write: NULL file or buffer");
  int rc = f->pMethods->xWrite(f, p, n, iOff);
  if (rc != CAIRN_OK) {
    const char *zHost = cairn_errmsg();
    return cairnErr(rc, "write of %zu bytes at offset %llu failed%s%s", n, (unsigned long long)iOff,
                    zHost[0] ? ": " : "", zHost);
  }
  return CAIRN_OK;
}

int cairn_file_size(cairn_file *f, uint64_t *pnSize) {
  if (!f || !pnSize) return cairnErr(CAIRN_MISUSE, "size: NULL argument");
  *pnSize = 0;
  return f->pMethods->xSize(f, pnSize);
}
int cairn_file_truncate(cairn_file *f, uint64_t nSize) {
  if (!f) return cairnErr(CAIRN_MISUSE, "truncate: NULL file");
  return f->pMethods->xTruncate(f, nSize);
}
int cairn_file_sync(cairn_file *f) {
  if (!f) return cairnErr(CAIRN_MISUSE, "sync: NULL file");
  return f->pMethods->xSync(f);
}
int cairn_file_close(cairn_file *f) {
  if (!f) return CAIRN_OK;
  return f->pMethods->xClose(f);
}

/* ---- locks and the busy timeout ---- */
static int fileHasLocks(cairn_file *f) { return f->pMethods->iVersion >= 2 && f->pMethods->xLock != NULL; }

int cairn_file_can_lock(cairn_file *f) { return f && fileHasLocks(f); }

void cairn_set_busy_timeout(int64_t ms) { gBusyTimeoutMs = ms > 0 ? ms : 0; }
int64_t cairn_busy_timeout(void) { return gBusyTimeoutMs; }

/* Waits between tries, in ms (SQLite's sqliteDefaultBusyCallback uses the same ladder): short
** first, since most locks are held for one commit; the last one repeats. */
static const uint8_t aBusyDelayMs[] = {1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100};

int cairn_file_lock(cairn_file *f, int eLock, int64_t timeoutMs) {
  if (!f) return cairnErr(CAIRN_MISUSE, "lock: NULL file");
  if (eLock != CAIRN_LOCK_READ && eLock != CAIRN_LOCK_WRITE)
    return cairnErr(CAIRN_MISUSE, "lock: level %d is not CAIRN_LOCK_READ or CAIRN_LOCK_WRITE", eLock);
  if (!fileHasLocks(f)) return CAIRN_OK; /* a host without locks: documented in host.h */
  if (timeoutMs < 0) timeoutMs = gBusyTimeoutMs;
  int rc = f->pMethods->xLock(f, eLock);
  if (rc != CAIRN_BUSY || timeoutMs == 0 || gHost.iVersion < 2 || !gHost.xSleep) return rc;
  /* Waited so far: from the monotonic clock when the host has one, else the sum of the sleeps
  ** (then time spent inside xLock is not counted, which only makes the wait a little longer). */
  const int64_t tStart = cairnClock(1);
  const int haveClock = tStart != 0;
  int64_t nWaitedMs = 0;
  for (unsigned i = 0; rc == CAIRN_BUSY; i++) {
    if (haveClock) nWaitedMs = (cairnClock(1) - tStart) / 1000000;
    if (nWaitedMs >= timeoutMs) break;
    int64_t d = aBusyDelayMs[i < sizeof(aBusyDelayMs) ? i : sizeof(aBusyDelayMs) - 1];
    if (d > timeoutMs - nWaitedMs) d = timeoutMs - nWaitedMs;
    gHost.xSleep(gHost.pCtx, d * 1000000);
    if (!haveClock) nWaitedMs += d;
    rc = f->pMethods->xLock(f, eLock);
  }
  if (rc != CAIRN_BUSY) return rc;
  const char *zHost = cairn_errmsg();
  return cairnErr(CAIRN_BUSY, "%s (gave up after %lld ms)", zHost[0] ? zHost : "file is locked", (long long)nWaitedMs);
}

int cairn_file_no_readers(cairn_file *f) {
  if (!f) return cairnErr(CAIRN_MISUSE, "no_readers: NULL file");
  if (!fileHasLocks(f)) return CAIRN_OK;
  return f->pMethods->xLock(f, CAIRN_LOCK_EXCLUSIVE);
}

int cairn_file_unlock(cairn_file *f, int eLock) {
  if (!f) return cairnErr(CAIRN_MISUSE, "unlock: NULL file");
  if (eLock != CAIRN_LOCK_NONE && eLock != CAIRN_LOCK_READ)
    return cairnErr(CAIRN_MISUSE, "unlock: level %d is not CAIRN_LOCK_NONE or CAIRN_LOCK_READ", eLock);
  if (!fileHasLocks(f) || !f->pMethods->xUnlock) return CAIRN_OK;
  return f->pMethods->xUnlock(f, eLock);
}

/* ---- the memory file ---- */
typedef struct MemFile {
  cairn_file base;
  uint8_t *a;   /* bytes */
  size_t n;     /* logical size */
  size_t nAlloc;
} MemFile;

static int memRead(cairn_file *pF, void *p, size_t n, uint64_t iOff, size_t *pnRead) {
  MemFile *m = (MemFile *)pF;
  size_t nGot = 0;
  if (iOff < m->n) nGot = CAIRN_MIN(n, m->n - (size_t)iOff);
  if (nGot) memcpy(p, m->a + iOff, nGot);
  if (nGot < n) memset((uint8_t *)p + nGot, 0, n - nGot);
  if (pnRead) *pnRead = nGot;
  else if (nGot < n) return cairnErr(CAIRN_IOERR_SHORT_READ, "memory file ends at %zu", m->n);
  return CAIRN_OK;
}

static int memReserve(MemFile *m, uint64_t nNeed) {
  if (nNeed > (uint64_t)(SIZE_MAX / 2)) return cairnErr(CAIRN_RANGE, "memory file cannot grow to %llu bytes", (unsigned long long)nNeed);
  if (nNeed <= m->nAlloc) return CAIRN_OK;
  size_t nNew = m->nAlloc ? m->nAlloc : 4096;
  while (nNew < nNeed) nNew *= 2;
  uint8_t *a = cairnRealloc(m->a, nNew);
  if (!a) return cairnErr(CAIRN_NOMEM, "memory file: cannot allocate %zu bytes", nNew);
  m->a = a;
  m->nAlloc = nNew;
  return CAIRN_OK;
}

static int memWrite(cairn_file *pF, const void *p, size_t n, uint64_t iOff) {
  MemFile *m = (MemFile *)pF;
  uint64_t nEnd;
  if (cairnAddOverflow64(iOff, n, &nEnd)) return cairnErr(CAIRN_RANGE, "memory file: write past 2^64");
  CAIRN_TRY(memReserve(m, nEnd));
  if (iOff > m->n) memset(m->a + m->n, 0, (size_t)iOff - m->n);
  if (n) memcpy(m->a + iOff, p, n);
  if (nEnd > m->n) m->n = (size_t)nEnd;
  return CAIRN_OK;
}
static int memSize(cairn_file *pF, uint64_t *pn) {
  *pn = ((MemFile *)pF)->n;
  return CAIRN_OK;
}
static int memTruncate(cairn_file *pF, uint64_t nSize) {
  MemFile *m = (MemFile *)pF;
  CAIRN_TRY(memReserve(m, nSize));
  if (nSize > m->n) memset(m->a + m->n, 0, (size_t)nSize - m->n);
  m->n = (size_t)nSize;
  return CAIRN_OK;
}
static int memSync(cairn_file *pF) {
  (void)pF;
  return CAIRN_OK;
}
static int memClose(cairn_file *pF) {
  MemFile *m = (MemFile *)pF;
  cairnFree(m->a);
  cairnFree(m);
  return CAIRN_OK;
}
static int memMap(cairn_file *pF, uint64_t iOff, size_t n, const void **pp) {
  /* Not offered: a later write may move the buffer, which would invalidate the pointer
  ** before xClose as the contract promises. */
  (void)pF, (void)iOff, (void)n, (void)pp;
  return CAIRN_NOTFOUND;
}

static const cairn_file_methods memMethods = {1, memRead, memWrite, memSize, memTruncate, memSync, memClose, memMap, NULL, NULL, NULL};

int cairn_memfile_open(const void *p, size_t n, cairn_file **ppFile) {
  if (!ppFile) return cairnErr(CAIRN_MISUSE, "cairn_memfile_open: ppFile is NULL");
  *ppFile = NULL;
  MemFile *m = cairnMallocZero(sizeof(*m));
  if (!m) return cairnErr(CAIRN_NOMEM, "cairn_memfile_open: out of memory");
  m->base.pMethods = &memMethods;
  if (p && n) {
    int rc = memWrite(&m->base, p, n, 0);
    if (rc) {
      memClose(&m->base);
      return rc;
    }
  }
  *ppFile = &m->base;
  return CAIRN_OK;
}

uint8_t *cairnMemfileGrow(cairn_file *f, uint64_t nEnd) {
  MemFile *m = (MemFile *)f;
  if (!f || f->pMethods != &memMethods) {
    cairnErr(CAIRN_MISUSE, "cairnMemfileGrow: not a memory file");
    return NULL;
  }
  if (memReserve(m, nEnd)) return NULL;
  if (nEnd > m->n) m->n = (size_t)nEnd;
  return m->a;
}

int cairn_memfile_data(cairn_file *f, const uint8_t **pp, size_t *pn) {
  if (!f || f->pMethods != &memMethods) return cairnErr(CAIRN_MISUSE, "cairn_memfile_data: not a memory file");
  *pp = ((MemFile *)f)->a;
  *pn = ((MemFile *)f)->n;
  return CAIRN_OK;
}
