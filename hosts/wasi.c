/*
** 2026-11-29
**
** hosts/wasi.c - the WASI preview1 host: files through fd_pread, fd_pwrite, fd_filestat_get/set_size,
** fd_datasync on descriptors that wasi-libc's open() resolves against the preopened
** directories; clock_time_get; random_get; poll_oneoff (nanosleep) for the busy timeout. No
** threads: parallel-for stays sequential (the core's default). Only standard preview1 imports,
** so wasmtime and Node's node:wasi both run it.
**
** Locks: preview1 has none (no flock, no fcntl locks, no process ids). The safest thing left is
** to honour the lock file native and Node writers create (cairn/host.h, "Locking"): a writer
** lock is BUSY while "<file>.cairn-lock" exists, since WASI cannot tell a live holder from a
** dead one. Nothing keeps two WASI writers apart, nor a WASI writer and libhdf5. A reader lock
** always succeeds and leaves a marker "<file>.cairn-readers/wasi.<id>" ("cairn-reader wasi
** id=<id>") until it is released or the file closed, so that native writers keep the space this
** reader may still read (hosts/posix.c, readerMarkersBusy). A WASI process killed while reading
** leaves its marker: native writers then never reuse that file's freed space (the file grows)
** until the marker is deleted by hand. A WASI writer asked whether readers are gone
** (CAIRN_LOCK_EXCLUSIVE) answers BUSY while any marker is there (its own process's readers, WASI
** or Node ones); native readers' OFD locks it cannot see.
*/
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <wasi/api.h>

#include "cairn/cairn.h"
#include "cairn/platform.h"
#include "readers.h"

typedef struct WasiFile {
  cairn_file base;
  int fd;
  int writable;
  char *zPath;
  char *zMarker; /* this handle's reader marker (malloc'd), or NULL */
  int eLock;     /* the level it holds (a writer's handle makes no reader marker) */
} WasiFile;

static void markerDrop(WasiFile *f);

static const char *wfName(WasiFile *f) { return f->zPath ? f->zPath : "(fd)"; }

static int wasiErr(int rc, WasiFile *f, const char *zOp, __wasi_errno_t e) {
  return cairn_seterr(rc, "%s: %s: %s", wfName(f), zOp, strerror((int)e));
}

static int wasiRead(cairn_file *pF, void *p, size_t n, uint64_t iOff, size_t *pnRead) {
  WasiFile *f = (WasiFile *)pF;
  size_t nGot = 0;
  while (nGot < n) {
    __wasi_iovec_t iov = {(uint8_t *)p + nGot, n - nGot};
    __wasi_size_t r = 0;
    __wasi_errno_t e = __wasi_fd_pread((__wasi_fd_t)f->fd, &iov, 1, iOff + nGot, &r);
    if (e == __WASI_ERRNO_INTR) continue;
    if (e != 0) {
      if (pnRead) *pnRead = nGot;
      return wasiErr(CAIRN_IOERR, f, "fd_pread", e);
    }
    if (r == 0) break;
    nGot += r;
  }
  if (nGot < n) memset((char *)p + nGot, 0, n - nGot);
  if (pnRead) *pnRead = nGot;
  else if (nGot < n) return cairn_seterr(CAIRN_IOERR_SHORT_READ, "%s: short read", wfName(f));
  return CAIRN_OK;
}

static int wasiWrite(cairn_file *pF, const void *p, size_t n, uint64_t iOff) {
  WasiFile *f = (WasiFile *)pF;
  if (!f->writable) return cairn_seterr(CAIRN_READONLY, "%s is open read-only", wfName(f));
  size_t nDone = 0;
  while (nDone < n) {
    __wasi_ciovec_t iov = {(const uint8_t *)p + nDone, n - nDone};
    __wasi_size_t r = 0;
    __wasi_errno_t e = __wasi_fd_pwrite((__wasi_fd_t)f->fd, &iov, 1, iOff + nDone, &r);
    if (e == __WASI_ERRNO_INTR) continue;
    if (e != 0) return wasiErr(CAIRN_IOERR_WRITE, f, "fd_pwrite", e);
    nDone += r;
  }
  return CAIRN_OK;
}

static int wasiSize(cairn_file *pF, uint64_t *pn) {
  WasiFile *f = (WasiFile *)pF;
  __wasi_filestat_t st;
  __wasi_errno_t e = __wasi_fd_filestat_get((__wasi_fd_t)f->fd, &st);
  if (e != 0) return wasiErr(CAIRN_IOERR, f, "fd_filestat_get", e);
  *pn = st.size;
  return CAIRN_OK;
}

static int wasiTruncate(cairn_file *pF, uint64_t n) {
  WasiFile *f = (WasiFile *)pF;
  if (!f->writable) return cairn_seterr(CAIRN_READONLY, "%s is open read-only", wfName(f));
  __wasi_errno_t e = __wasi_fd_filestat_set_size((__wasi_fd_t)f->fd, n);
  if (e != 0) return wasiErr(CAIRN_IOERR, f, "fd_filestat_set_size", e);
  return CAIRN_OK;
}

static int wasiSync(cairn_file *pF) {
  WasiFile *f = (WasiFile *)pF;
  if (!f->writable) return CAIRN_OK;
  __wasi_errno_t e = __wasi_fd_datasync((__wasi_fd_t)f->fd);
  if (e != 0) return wasiErr(CAIRN_IOERR_SYNC, f, "fd_datasync", e);
  return CAIRN_OK;
}

static int wasiClose(cairn_file *pF) {
  WasiFile *f = (WasiFile *)pF;
  __wasi_errno_t e = __wasi_fd_close((__wasi_fd_t)f->fd);
  int rc = e ? wasiErr(CAIRN_IOERR, f, "fd_close", e) : CAIRN_OK;
  markerDrop(f);
  free(f->zPath);
  free(f);
  return rc;
}

static void markerDrop(WasiFile *f) { readersMarkerDrop(&f->zMarker); }

/* The reader marker (hosts/readers.h). */
static void markerTake(WasiFile *f) { readersMarkerTake(f->zPath, "wasi", &f->zMarker); }

static int wasiLock(cairn_file *pF, int eLock) {
  WasiFile *f = (WasiFile *)pF;
  if (eLock == CAIRN_LOCK_READ) {
    if (f->eLock < CAIRN_LOCK_READ) markerTake(f), f->eLock = CAIRN_LOCK_READ;
    return CAIRN_OK;
  }
  if (eLock == CAIRN_LOCK_EXCLUSIVE) return readersNone(f->zPath, wfName(f)); /* WASI and Node readers */
  if (eLock != CAIRN_LOCK_WRITE) return CAIRN_OK;
  if (!f->zPath) return f->eLock = CAIRN_LOCK_WRITE, CAIRN_OK;
  if (!f->writable) return cairn_seterr(CAIRN_READONLY, "%s is open read-only: no writer lock", wfName(f));
  size_t n = strlen(f->zPath);
  char *zLock = malloc(n + sizeof(".cairn-lock"));
  if (!zLock) return cairn_seterr(CAIRN_NOMEM, "%s: out of memory", wfName(f));
  memcpy(zLock, f->zPath, n);
  memcpy(zLock + n, ".cairn-lock", sizeof(".cairn-lock"));
  struct stat st;
  int rc = CAIRN_OK;
  if (stat(zLock, &st) == 0) {
    char z[200] = {0};
    int fd = open(zLock, O_RDONLY);
    if (fd >= 0) {
      ssize_t k = read(fd, z, sizeof(z) - 1);
      close(fd);
      z[k > 0 ? k : 0] = 0;
      char *zNl = strchr(z, '\n');
      if (zNl) *zNl = 0;
    }
    rc = cairn_seterr(CAIRN_BUSY, "%s is open for writing by another process (%s: \"%s\"; WASI cannot tell "
                      "whether it still runs: if not, delete the lock file)", wfName(f), zLock, z);
  }
  free(zLock);
  if (rc == CAIRN_OK) {
    markerDrop(f); /* READ -> WRITE: a writer now */
    f->eLock = CAIRN_LOCK_WRITE;
  }
  return rc;
}
static int wasiUnlock(cairn_file *pF, int eLock) {
  WasiFile *f = (WasiFile *)pF;
  if (eLock >= f->eLock) return CAIRN_OK;
  if (eLock == CAIRN_LOCK_NONE) markerDrop(f);
  else if (f->eLock == CAIRN_LOCK_WRITE) markerTake(f); /* WRITE -> READ: a reader now */
  f->eLock = eLock;
  return CAIRN_OK;
}

static const cairn_file_methods wasiMethods = {2, wasiRead, wasiWrite, wasiSize, wasiTruncate,
                                               wasiSync, wasiClose, NULL, wasiLock, wasiUnlock, NULL};

static int wasiOpen(void *c, const char *zPath, int flags, cairn_file **ppFile) {
  (void)c;
  int writable = (flags & CAIRN_OPEN_READWRITE) != 0;
  int o = writable ? O_RDWR : O_RDONLY;
  if (writable && (flags & CAIRN_OPEN_CREATE)) o |= O_CREAT;
  if (writable && (flags & CAIRN_OPEN_TRUNCATE)) o |= O_TRUNC;
  if (writable && (flags & CAIRN_OPEN_EXCLUSIVE)) o |= O_EXCL;
  /* open() maps the path onto a preopened directory; a path outside every preopen fails
  ** with ENOTCAPABLE/ENOENT, which we report with the path. */
  int fd = open(zPath, o, 0644);
  if (fd < 0) {
    int e = errno;
    int rc = e == ENOENT ? CAIRN_NOTFOUND : e == EEXIST ? CAIRN_EXISTS : CAIRN_IOERR_OPEN;
    return cairn_seterr(rc, "cannot open %s: %s", zPath, strerror(e));
  }
  __wasi_filestat_t st;
  if (__wasi_fd_filestat_get((__wasi_fd_t)fd, &st) == 0 && st.filetype == __WASI_FILETYPE_DIRECTORY) {
    close(fd);
    return cairn_seterr(CAIRN_IOERR_OPEN, "cannot open %s: is a directory", zPath);
  }
  WasiFile *f = calloc(1, sizeof(*f));
  if (!f) {
    close(fd);
    return cairn_seterr(CAIRN_NOMEM, "out of memory opening %s", zPath);
  }
  f->base.pMethods = &wasiMethods;
  f->fd = fd;
  f->writable = writable;
  f->zPath = strdup(zPath);
  *ppFile = &f->base;
  return CAIRN_OK;
}

static int64_t wasiClock(void *c, int monotonic) {
  (void)c;
  __wasi_timestamp_t t = 0;
  if (__wasi_clock_time_get(monotonic ? __WASI_CLOCKID_MONOTONIC : __WASI_CLOCKID_REALTIME, 1000, &t) != 0) t = 0;
  return (int64_t)t;
}

static int wasiRandom(void *c, void *p, size_t n) {
  (void)c;
  __wasi_errno_t e = __wasi_random_get((uint8_t *)p, n);
  return e ? cairn_seterr(CAIRN_IOERR, "random_get: %s", strerror((int)e)) : CAIRN_OK;
}

static void wasiSleep(void *c, int64_t ns) {
  (void)c;
  if (ns <= 0) return;
  struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
  nanosleep(&ts, NULL);
}

static void *wasiMalloc(void *c, size_t n) { (void)c; return malloc(n); }
static void *wasiRealloc(void *c, void *p, size_t n) { (void)c; return realloc(p, n); }
static void wasiFree(void *c, void *p) { (void)c; free(p); }

int cairn_wasi_install(void) {
  cairn_host h;
  memset(&h, 0, sizeof(h));
  h.iVersion = 2;
  h.xMalloc = wasiMalloc;
  h.xRealloc = wasiRealloc;
  h.xFree = wasiFree;
  h.xClock = wasiClock;
  h.xRandom = wasiRandom;
  h.xOpen = wasiOpen;
  h.xSleep = wasiSleep;
  return cairn_host_set(&h);
}
