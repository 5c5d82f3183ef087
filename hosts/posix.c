/*
** 2026-11-29
**
** hosts/posix.c - the POSIX host: files through pread/pwrite/fstat/ftruncate/fsync, a
** read-only mmap path for xMap, locks (OFD locks, libhdf5's flock, a writer's lock file: see
** "Locking" in cairn/host.h), clock_gettime, nanosleep, getrandom, and a pthread pool behind
** xParallelFor. Also compiled into the Emscripten test program (NODERAWFS), where mmap, locks
** and threads are left out.
*/
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cairn/cairn.h"
#include "cairn/platform.h"

#if !defined(__EMSCRIPTEN__) && !defined(__wasi__)
#define POSIX_HAVE_THREADS 1
#define POSIX_HAVE_MMAP 1
#include <pthread.h>
#include <sys/mman.h>
#include <sys/random.h>
#if defined(__linux__) && defined(F_OFD_SETLK)
#define POSIX_HAVE_LOCKS 1
#include <signal.h>
#include <stdio.h>
#include <dirent.h>
#include <sys/file.h>
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif
#endif
#if defined(POSIX_HAVE_LOCKS) || defined(__EMSCRIPTEN__)
#include "readers.h" /* reader markers: the native host walks them, Emscripten's makes them too */
#endif

typedef struct PosixFile {
  cairn_file base;
  int fd;
  int writable;
  char *zPath; /* for messages */
  size_t nPathCap; /* bytes for the path after the struct: POSIX_PATH_CAP, or more */
  int eLock;       /* CAIRN_LOCK_NONE / _READ / _WRITE */
  int nFlock;      /* the flock this handle holds: 0, LOCK_SH or LOCK_EX */
  int bReaderByte; /* holds the OFD read lock on CAIRN_LOCK_BYTE_READER */
  char *zLockFile; /* the writer's lock file, created by this handle (malloc'd), or NULL */
#ifdef POSIX_HAVE_MMAP
  void *pMap;  /* whole-file read-only mapping, made on first xMap of a read-only file */
  size_t nMap;
  pthread_mutex_t mapMutex;
#endif
} PosixFile;

static const char *pfName(PosixFile *f) { return f->zPath ? f->zPath : "(fd)"; }

static int posixRead(cairn_file *pF, void *p, size_t n, uint64_t iOff, size_t *pnRead) {
  PosixFile *f = (PosixFile *)pF;
  size_t nGot = 0;
  while (nGot < n) {
    ssize_t r = pread(f->fd, (char *)p + nGot, n - nGot, (off_t)(iOff + nGot));
    if (r < 0) {
      if (errno == EINTR) continue;
      if (pnRead) *pnRead = nGot;
      if (errno == EISDIR) return cairn_seterr(CAIRN_IOERR, "cannot read %s: is a directory", pfName(f));
      return cairn_seterr(CAIRN_IOERR, "%s: %s", pfName(f), strerror(errno));
    }
    if (r == 0) break;
    nGot += (size_t)r;
    /* A short pread of a regular file is its end (Linux splits only reads near 2 GiB): no
    ** second call to hear it again. */
    if (nGot < n && (size_t)r < ((size_t)1 << 30)) break;
  }
  if (nGot < n) memset((char *)p + nGot, 0, n - nGot);
  if (pnRead) *pnRead = nGot;
  else if (nGot < n) return cairn_seterr(CAIRN_IOERR_SHORT_READ, "%s: short read", pfName(f));
  return CAIRN_OK;
}

static int posixWrite(cairn_file *pF, const void *p, size_t n, uint64_t iOff) {
  PosixFile *f = (PosixFile *)pF;
  if (!f->writable) return cairn_seterr(CAIRN_READONLY, "%s is open read-only", pfName(f));
  size_t nDone = 0;
  while (nDone < n) {
    ssize_t r = pwrite(f->fd, (const char *)p + nDone, n - nDone, (off_t)(iOff + nDone));
    if (r < 0) {
      if (errno == EINTR) continue;
      return cairn_seterr(CAIRN_IOERR_WRITE, "%s: %s", pfName(f), strerror(errno));
    }
    nDone += (size_t)r;
  }
  return CAIRN_OK;
}

static int posixSize(cairn_file *pF, uint64_t *pn) {
  PosixFile *f = (PosixFile *)pF;
  struct stat st;
  if (fstat(f->fd, &st) != 0) return cairn_seterr(CAIRN_IOERR, "%s: fstat: %s", pfName(f), strerror(errno));
  *pn = (uint64_t)st.st_size;
  return CAIRN_OK;
}

static int posixTruncate(cairn_file *pF, uint64_t n) {
  PosixFile *f = (PosixFile *)pF;
  if (!f->writable) return cairn_seterr(CAIRN_READONLY, "%s is open read-only", pfName(f));
  if (ftruncate(f->fd, (off_t)n) != 0) return cairn_seterr(CAIRN_IOERR, "%s: ftruncate: %s", pfName(f), strerror(errno));
  return CAIRN_OK;
}

static int posixSync(cairn_file *pF) {
  PosixFile *f = (PosixFile *)pF;
  if (!f->writable) return CAIRN_OK;
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
  int r = fdatasync(f->fd);
#else
  int r = fsync(f->fd);
#endif
  if (r != 0) return cairn_seterr(CAIRN_IOERR_SYNC, "%s: fsync: %s", pfName(f), strerror(errno));
  return CAIRN_OK;
}

/*
** A slot that keeps one freed block for the next allocation that can use it: one pointer,
** swapped atomically, so any thread may give back what another took. The relaxed load first
** skips the locked instruction when there is nothing to take, or something is kept already.
*/
static void *slotTake(void **pp) {
  return __atomic_load_n(pp, __ATOMIC_RELAXED) ? __atomic_exchange_n(pp, NULL, __ATOMIC_ACQUIRE) : NULL;
}
static int slotGive(void **pp, void *p) {
  void *pNull = NULL;
  return !__atomic_load_n(pp, __ATOMIC_RELAXED) &&
         __atomic_compare_exchange_n(pp, &pNull, p, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}
static void slotDrop(void **pp) { free(__atomic_exchange_n(pp, NULL, __ATOMIC_ACQUIRE)); }

/*
** One spare file struct, like the spare block below: a program that opens files one after
** another (small HDF5 files, each opened, read and closed) reuses the struct of the last one
** instead of a malloc after the open system call and a free after the close, where the
** allocator's code and lines are cold (see "System calls and the stack" in the core's
** internal.h: each system call here leaves the caches cold). Structs carry room for a path of
** POSIX_PATH_CAP bytes, so any of them fits a usual path; longer paths get a block of their
** own, never kept. cairn_posix_shutdown frees the one kept.
*/
#define POSIX_PATH_CAP ((size_t)256)
static void *gFileSpare;
static PosixFile *fileTake(size_t nPath) {
  PosixFile *f = nPath <= POSIX_PATH_CAP ? slotTake(&gFileSpare) : NULL;
  if (!f) {
    size_t nCap = nPath > POSIX_PATH_CAP ? nPath : POSIX_PATH_CAP;
    if ((f = malloc(sizeof(*f) + nCap)) != NULL) f->nPathCap = nCap;
  }
  return f;
}
static void fileRelease(PosixFile *f) {
  if (f->nPathCap != POSIX_PATH_CAP || !slotGive(&gFileSpare, f)) free(f);
}

static void lockFileDrop(PosixFile *f);

static int posixClose(cairn_file *pF) {
  PosixFile *f = (PosixFile *)pF;
  int rc = CAIRN_OK;
  lockFileDrop(f); /* the OFD locks and the flock go with the descriptor */
#ifdef POSIX_HAVE_MMAP
  if (f->pMap) munmap(f->pMap, f->nMap);
  pthread_mutex_destroy(&f->mapMutex);
#endif
  if (close(f->fd) != 0) rc = cairn_seterr(CAIRN_IOERR, "%s: close: %s", pfName(f), strerror(errno));
  fileRelease(f); /* zPath is in the same block */
  return rc;
}

static int posixMap(cairn_file *pF, uint64_t iOff, size_t n, const void **pp) {
#ifdef POSIX_HAVE_MMAP
  PosixFile *f = (PosixFile *)pF;
  /* Only read-only files are mapped: a writable file can shrink under the mapping (SIGBUS)
  ** or be extended past it. */
  if (f->writable) return CAIRN_NOTFOUND;
  pthread_mutex_lock(&f->mapMutex);
  if (!f->pMap) {
    uint64_t nSize;
    if (posixSize(pF, &nSize) == CAIRN_OK && nSize > 0 && nSize <= (uint64_t)SIZE_MAX) {
      void *m = mmap(NULL, (size_t)nSize, PROT_READ, MAP_SHARED, f->fd, 0);
      if (m != MAP_FAILED) {
        f->pMap = m;
        f->nMap = (size_t)nSize;
      }
    }
  }
  pthread_mutex_unlock(&f->mapMutex);
  if (!f->pMap || iOff > f->nMap || n > f->nMap - iOff) return CAIRN_NOTFOUND;
  *pp = (const char *)f->pMap + iOff;
  return CAIRN_OK;
#else
  (void)pF, (void)iOff, (void)n, (void)pp;
  return CAIRN_NOTFOUND;
#endif
}

/* ------------------------------------------------------------------ locks */
#ifdef POSIX_HAVE_LOCKS
/*
** The protocol is described in cairn/host.h ("Locking"); js/src/nodefile.js implements the
** lock-file half of it too (maintenance: a change to the lock file's name, content or
** staleness rule is made in both). The order of acquisition matters to readers: a writer takes
** the writer byte before flock(LOCK_EX) and releases it after, so whenever a cairn writer holds
** flock(LOCK_EX) the writer byte is held, and a reader that finds both may read beside it.
*/
static int ofdSet(int fd, short type, int64_t iByte, int64_t n) {
  struct flock fl;
  memset(&fl, 0, sizeof(fl));
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = (off_t)iByte;
  fl.l_len = (off_t)n;
  while (fcntl(fd, F_OFD_SETLK, &fl) != 0)
    if (errno != EINTR) return errno;
  return 0;
}
/* Does another open file description hold a lock on iByte that conflicts with `type`
** (F_RDLCK: a write lock; F_WRLCK: any lock)? Unknown (an error) reads as no. */
static int ofdHeldByOther(int fd, short type, int64_t iByte) {
  struct flock fl;
  memset(&fl, 0, sizeof(fl));
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = (off_t)iByte;
  fl.l_len = 1;
  return fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
}
static int flockTry(int fd, int op) {
  while (flock(fd, op | LOCK_NB) != 0)
    if (errno != EINTR) return errno;
  return 0;
}
/* A file system without flock (some FUSE and network mounts): libhdf5 fails there unless
** HDF5_USE_FILE_LOCKING=BEST_EFFORT; cairn goes on without the flock part (it has its OFD locks). */
static int flockUnsupported(int e) { return e == ENOSYS || e == EOPNOTSUPP || e == ENOLCK || e == EINVAL; }
/* libhdf5's switch: FALSE or 0 turns its flock off, and cairn's with it (read at each xLock: a
** getenv, no system call). */
static int flockEnabled(void) {
  const char *z = getenv("HDF5_USE_FILE_LOCKING");
  return !z || (strcmp(z, "FALSE") != 0 && strcmp(z, "0") != 0);
}
static int lockIoErr(PosixFile *f, const char *zWhat, int e) {
  return cairn_seterr(CAIRN_IOERR, "%s: %s: %s", pfName(f), zWhat, strerror(e));
}

/* ---- the writer's lock file "<real path>.cairn-lock": "cairn-lock pid=N host=H\n" */
#define LOCKFILE_SUFFIX ".cairn-lock"
#define LOCKFILE_GARBLED_STALE_S 10 /* an unreadable lock file this old is a creator that died */

static const char *lockHost(void) {
  static char zHost[256];
  if (!zHost[0] && (gethostname(zHost, sizeof(zHost) - 1) != 0 || !zHost[0])) strcpy(zHost, "?");
  return zHost;
}
/* Holder of a lock file's content: 1 alive (or cannot tell), 0 dead, -1 unparseable. */
static int lockHolderAlive(const char *z, long *pPid) {
  long pid = 0;
  char zHost[256];
  if (sscanf(z, "cairn-lock pid=%ld host=%255s", &pid, zHost) != 2 || pid <= 0) return -1;
  *pPid = pid;
  if (strcmp(zHost, lockHost()) != 0) return 1; /* another machine: cannot tell */
  return kill((pid_t)pid, 0) == 0 || errno != ESRCH;
}
/* Read a lock file (at most n-1 bytes, NUL-terminated); *pAge its age in seconds. */
static int lockFileRead(const char *zPath, char *z, size_t n, long *pAge) {
  int fd = open(zPath, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t k = pread(fd, z, n - 1, 0);
  struct stat st;
  *pAge = fstat(fd, &st) == 0 ? (long)(time(NULL) - st.st_mtime) : 0;
  close(fd);
  z[k > 0 ? k : 0] = 0;
  return 0;
}

/* Create the lock file, breaking a stale one. CAIRN_BUSY names the holder. */
static int lockFileTake(PosixFile *f) {
  if (!f->zPath) return CAIRN_OK;
  /* Beside the real file: a symbolic link to it must find the same lock file (Node resolves
  ** with realpath too), and a relative path is made absolute so that a later chdir does not
  ** lose it. One readlink (and a getcwd for a relative path) when the path is no link. */
  char zLink[8], zCwd[4096];
  char *zReal = readlink(f->zPath, zLink, sizeof(zLink)) >= 0 ? realpath(f->zPath, NULL) : NULL;
  int bRel = !zReal && f->zPath[0] != '/' && getcwd(zCwd, sizeof(zCwd)) != NULL;
  size_t nBase = zReal ? strlen(zReal) : (bRel ? strlen(zCwd) + 1 : 0) + strlen(f->zPath);
  char *zLock = malloc(2 * (nBase + sizeof(LOCKFILE_SUFFIX)) + 32); /* + room for "<it>.stale.<pid>" */
  char *zTmp = NULL;
  if (!zLock) {
    free(zReal);
    return cairn_seterr(CAIRN_NOMEM, "%s: out of memory for the lock file name", pfName(f));
  }
  if (zReal) memcpy(zLock, zReal, nBase);
  else snprintf(zLock, nBase + 1, "%s%s%s", bRel ? zCwd : "", bRel ? "/" : "", f->zPath);
  memcpy(zLock + nBase, LOCKFILE_SUFFIX, sizeof(LOCKFILE_SUFFIX));
  free(zReal);
  char zMine[320];
  int nMine = snprintf(zMine, sizeof(zMine), "cairn-lock pid=%ld host=%s\n", (long)getpid(), lockHost());
  int rc = CAIRN_OK;
  /* The lock file appears whole or not at all: its content goes into a temporary file first,
  ** which link() then gives the lock file's name (failing with EEXIST if one exists). A writer
  ** killed between creating and writing the file would otherwise leave an empty lock file that
  ** blocks every writer for LOCKFILE_GARBLED_STALE_S seconds. */
  static unsigned nSeq;
  size_t nTmp = nBase + sizeof(LOCKFILE_SUFFIX) + 48;
  zTmp = malloc(nTmp);
  if (!zTmp) {
    free(zLock);
    return cairn_seterr(CAIRN_NOMEM, "%s: out of memory for the lock file name", pfName(f));
  }
  snprintf(zTmp, nTmp, "%s.tmp.%ld.%u", zLock, (long)getpid(), __atomic_add_fetch(&nSeq, 1, __ATOMIC_RELAXED));
  for (int iTry = 0;; iTry++) {
    int fd = open(zTmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int e = errno;
    if (fd >= 0) {
      ssize_t w = write(fd, zMine, (size_t)nMine);
      close(fd);
      if (w != nMine) {
        unlink(zTmp);
        rc = cairn_seterr(CAIRN_IOERR, "%s: cannot write the lock file %s", pfName(f), zTmp);
        break;
      }
      int l = link(zTmp, zLock);
      e = errno;
      unlink(zTmp);
      if (l == 0) {
        free(zTmp);
        f->zLockFile = zLock;
        return CAIRN_OK;
      }
      if (e == EPERM || e == ENOTSUP || e == EOPNOTSUPP) { /* a file system without hard links */
        fd = open(zLock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        e = errno;
        if (fd >= 0) {
          w = write(fd, zMine, (size_t)nMine);
          close(fd);
          if (w == nMine) {
            free(zTmp);
            f->zLockFile = zLock;
            return CAIRN_OK;
          }
          unlink(zLock);
          rc = cairn_seterr(CAIRN_IOERR, "%s: cannot write the lock file %s", pfName(f), zLock);
          break;
        }
      }
    }
    if (e == EACCES || e == EROFS || e == EPERM) break; /* a directory we cannot write: skipped */
    if (e != EEXIST) {
      rc = lockIoErr(f, "lock file", e);
      break;
    }
    char zHeld[320];
    long age = 0, pid = 0;
    if (lockFileRead(zLock, zHeld, sizeof(zHeld), &age) != 0) {
      if (iTry < 3) continue; /* removed meanwhile: try again */
      rc = cairn_seterr(CAIRN_BUSY, "%s is locked (lock file %s keeps changing)", pfName(f), zLock);
      break;
    }
    int alive = lockHolderAlive(zHeld, &pid);
    if (alive == -1 && age < LOCKFILE_GARBLED_STALE_S) alive = 1; /* being written right now */
    if (alive == 1 || iTry >= 3) {
      char *zNl = strchr(zHeld, '\n');
      if (zNl) *zNl = 0;
      rc = cairn_seterr(CAIRN_BUSY, "%s is open for writing by another process (%s: \"%s\")", pfName(f), zLock, zHeld);
      break;
    }
    /* Stale. Break it by renaming it away first and checking that what moved is the stale one:
    ** two breakers that both saw it stale cannot then both delete a fresh lock (at worst one
    ** moves a fresh one away and puts it back with link(), which fails if a third made one). */
    char *zMoved = zLock + nBase + sizeof(LOCKFILE_SUFFIX); /* the spare room after the name */
    memcpy(zMoved, zLock, nBase + sizeof(LOCKFILE_SUFFIX) - 1);
    snprintf(zMoved + nBase + sizeof(LOCKFILE_SUFFIX) - 1, 32, ".stale.%ld", (long)getpid());
    if (rename(zLock, zMoved) != 0) continue;
    char zGot[320];
    if (lockFileRead(zMoved, zGot, sizeof(zGot), &age) == 0 && strcmp(zGot, zHeld) != 0) (void)link(zMoved, zLock);
    unlink(zMoved);
  }
  free(zTmp);
  free(zLock);
  return rc;
}
static void lockFileDrop(PosixFile *f) {
  if (!f->zLockFile) return;
  unlink(f->zLockFile);
  free(f->zLockFile);
  f->zLockFile = NULL;
}

static int busyWriter(PosixFile *f) {
  return cairn_seterr(CAIRN_BUSY, "%s is locked: another cairn writer has it open for writing", pfName(f));
}
static int busyForeign(PosixFile *f, const char *zWhat) {
  return cairn_seterr(CAIRN_BUSY, "%s is locked by another program (%s; libhdf5/h5py lock with flock, "
                      "HDF5_USE_FILE_LOCKING=FALSE turns that off)", pfName(f), zWhat);
}

static int lockRead(PosixFile *f) {
  int e = ofdSet(f->fd, F_RDLCK, CAIRN_LOCK_BYTE_READER, 1);
  if (e) return e == EAGAIN || e == EACCES ? busyWriter(f) : lockIoErr(f, "reader lock", e);
  f->bReaderByte = 1;
  if (!flockEnabled() || f->nFlock) return CAIRN_OK;
  e = flockTry(f->fd, LOCK_SH);
  if (e == 0) f->nFlock = LOCK_SH;
  else if (e == EWOULDBLOCK) {
    /* Someone holds flock(LOCK_EX): a cairn writer (then it holds the writer byte too) is fine. */
    if (!ofdHeldByOther(f->fd, F_RDLCK, CAIRN_LOCK_BYTE_WRITER)) {
      ofdSet(f->fd, F_UNLCK, CAIRN_LOCK_BYTE_READER, 1);
      f->bReaderByte = 0;
      return busyForeign(f, "it is open for writing");
    }
  } else if (!flockUnsupported(e)) {
    ofdSet(f->fd, F_UNLCK, CAIRN_LOCK_BYTE_READER, 1);
    f->bReaderByte = 0;
    return lockIoErr(f, "flock", e);
  }
  return CAIRN_OK;
}

static int lockWrite(PosixFile *f) {
  if (!f->writable) return cairn_seterr(CAIRN_READONLY, "%s is open read-only: no writer lock", pfName(f));
  int e = ofdSet(f->fd, F_WRLCK, CAIRN_LOCK_BYTE_WRITER, 1);
  if (e) return e == EAGAIN || e == EACCES ? busyWriter(f) : lockIoErr(f, "writer lock", e);
  int nFlockWas = f->nFlock, rc = CAIRN_OK;
  if (flockEnabled() && f->nFlock != LOCK_EX) {
    e = flockTry(f->fd, LOCK_EX); /* from LOCK_SH a conversion, which drops the SH if it fails */
    if (e == 0) f->nFlock = LOCK_EX;
    else if (e == EWOULDBLOCK) {
      f->nFlock = 0;
      /* Held shared: by cairn readers (they hold the reader byte) we share it with them. */
      if (ofdHeldByOther(f->fd, F_WRLCK, CAIRN_LOCK_BYTE_READER) && flockTry(f->fd, LOCK_SH) == 0) f->nFlock = LOCK_SH;
      else rc = busyForeign(f, "it is open");
    } else if (!flockUnsupported(e)) rc = lockIoErr(f, "flock", e);
  }
  if (rc == CAIRN_OK) rc = lockFileTake(f);
  if (rc != CAIRN_OK) { /* back to the lock held before */
    if (f->nFlock != nFlockWas) {
      if (nFlockWas == LOCK_SH) f->nFlock = flockTry(f->fd, LOCK_SH) == 0 ? LOCK_SH : 0;
      else if (f->nFlock) {
        flock(f->fd, LOCK_UN);
        f->nFlock = 0;
      }
    }
    ofdSet(f->fd, F_UNLCK, CAIRN_LOCK_BYTE_WRITER, 1);
  }
  return rc;
}

/*
** Readers that cannot take OFD or flock locks (Node's NodeFile, WASI) announce themselves with a
** marker file in the directory "<real path>.cairn-readers" (js/src/nodefile.js, hosts/wasi.c;
** cairn/host.h, "Locking"): "cairn-reader pid=N host=H" (Node), "cairn-reader wasi id=X" (WASI:
** no process ids, so never known dead). BUSY while a live one is there; one whose process is gone
** (same host, kill says ESRCH) is removed, and the directory with it once empty. One stat() when
** there is none.
*/
#define READERS_SUFFIX ".cairn-readers"
/* A native reader's marker line "cairn-reader pid=N host=H": gone when H is this host and no
** process N exists. */
static int readerPidGone(const char *zLine) {
  long pid = 0;
  char zHost[256];
  if (sscanf(zLine, "cairn-reader pid=%ld host=%255s", &pid, zHost) != 2 || pid <= 0) return 0;
  return strcmp(zHost, lockHost()) == 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

static int readerMarkersBusy(PosixFile *f) {
  size_t nLock = strlen(f->zLockFile), nSuf = sizeof(LOCKFILE_SUFFIX) - 1;
  if (nLock < nSuf) return CAIRN_OK;
  char zDir[4096];
  if (nLock - nSuf + sizeof(READERS_SUFFIX) > sizeof(zDir)) return CAIRN_OK;
  memcpy(zDir, f->zLockFile, nLock - nSuf);
  memcpy(zDir + nLock - nSuf, READERS_SUFFIX, sizeof(READERS_SUFFIX));
  int rc = readersWalk(zDir, pfName(f), readerPidGone);
  if (rc == CAIRN_OK) rmdir(zDir); /* empty now, or a new reader keeps it (rmdir fails) */
  return rc;
}

/* CAIRN_LOCK_EXCLUSIVE from WRITE: does no other handle read now? (cairn/host.h). A writer that
** shares flock(LOCK_SH) with readers tries LOCK_EX (a failed conversion drops the SH: taken
** again) and keeps it; one that holds LOCK_EX sees cairn readers by their reader bytes (a
** reader whose flock(SH) fails beside a cairn writer holds its byte). */
static int lockNoReaders(PosixFile *f) {
  if (f->eLock != CAIRN_LOCK_WRITE) return cairn_seterr(CAIRN_MISUSE, "%s: no writer lock", pfName(f));
  if (flockEnabled() && f->nFlock != LOCK_EX) {
    int e = flockTry(f->fd, LOCK_EX);
    if (e == 0) f->nFlock = LOCK_EX;
    else if (!flockUnsupported(e)) {
      if (f->nFlock == LOCK_SH && flockTry(f->fd, LOCK_SH) != 0) f->nFlock = 0;
      return cairn_seterr(CAIRN_BUSY, "%s has readers", pfName(f));
    }
  }
  if (ofdHeldByOther(f->fd, F_WRLCK, CAIRN_LOCK_BYTE_READER)) return cairn_seterr(CAIRN_BUSY, "%s has readers", pfName(f));
  if (f->zLockFile) return readerMarkersBusy(f);
  return CAIRN_OK;
}

static int posixLock(cairn_file *pF, int eLock) {
  PosixFile *f = (PosixFile *)pF;
  if (eLock == CAIRN_LOCK_EXCLUSIVE) return lockNoReaders(f);
  if (eLock <= f->eLock) return CAIRN_OK;
  int rc = eLock == CAIRN_LOCK_READ ? lockRead(f) : lockWrite(f);
  if (rc == CAIRN_OK) f->eLock = eLock;
  return rc;
}

static int posixUnlock(cairn_file *pF, int eLock) {
  PosixFile *f = (PosixFile *)pF;
  if (eLock >= f->eLock) return CAIRN_OK;
  if (f->eLock == CAIRN_LOCK_WRITE) lockFileDrop(f);
  if (eLock == CAIRN_LOCK_READ) { /* WRITE -> READ: reader byte, flock(EX) -> flock(SH), then the writer byte */
    if (!f->bReaderByte) f->bReaderByte = ofdSet(f->fd, F_RDLCK, CAIRN_LOCK_BYTE_READER, 1) == 0;
    if (f->nFlock == LOCK_EX) f->nFlock = flockTry(f->fd, LOCK_SH) == 0 ? LOCK_SH : 0;
    ofdSet(f->fd, F_UNLCK, CAIRN_LOCK_BYTE_WRITER, 1);
  } else {
    if (f->nFlock) flock(f->fd, LOCK_UN);
    f->nFlock = 0;
    f->bReaderByte = 0;
    /* both bytes in one call: the writer byte and the reader byte after it */
    ofdSet(f->fd, F_UNLCK, CAIRN_LOCK_BYTE_WRITER, 2);
  }
  f->eLock = eLock;
  return CAIRN_OK;
}
#define POSIX_LOCK posixLock
#define POSIX_UNLOCK posixUnlock
#elif defined(__EMSCRIPTEN__)
/* Emscripten (NODERAWFS: the C tests under Node): no OFD locks or flock, so no writer
** exclusion ("no locks", as before); readers leave markers (hosts/readers.h) so that a writer's
** CAIRN_LOCK_EXCLUSIVE sees them, in this process or another. zLockFile holds the marker. */
static void lockFileDrop(PosixFile *f) { readersMarkerDrop(&f->zLockFile); }
static int posixLock(cairn_file *pF, int eLock) {
  PosixFile *f = (PosixFile *)pF;
  if (eLock == CAIRN_LOCK_EXCLUSIVE) return readersNone(f->zPath, pfName(f));
  if (eLock <= f->eLock) return CAIRN_OK;
  if (eLock == CAIRN_LOCK_READ) readersMarkerTake(f->zPath, "em", &f->zLockFile);
  else lockFileDrop(f); /* READ -> WRITE: a writer now */
  f->eLock = eLock;
  return CAIRN_OK;
}
static int posixUnlock(cairn_file *pF, int eLock) {
  PosixFile *f = (PosixFile *)pF;
  if (eLock >= f->eLock) return CAIRN_OK;
  if (eLock == CAIRN_LOCK_NONE) lockFileDrop(f);
  else readersMarkerTake(f->zPath, "em", &f->zLockFile); /* WRITE -> READ: a reader now */
  f->eLock = eLock;
  return CAIRN_OK;
}
#define POSIX_LOCK posixLock
#define POSIX_UNLOCK posixUnlock
#else
static void lockFileDrop(PosixFile *f) { (void)f; }
#define POSIX_LOCK NULL /* no OFD locks here (non-Linux): "no locks" */
#define POSIX_UNLOCK NULL
#endif

static const cairn_file_methods posixMethods = {2, posixRead, posixWrite, posixSize, posixTruncate,
                                                posixSync, posixClose, posixMap, POSIX_LOCK, POSIX_UNLOCK, NULL};

static int wrapFd(int fd, int writable, const char *zPath, cairn_file **ppFile) {
  /* one allocation: the struct, then the path (for messages) */
  size_t nPath = zPath ? strlen(zPath) + 1 : 0;
  PosixFile *f = fileTake(nPath);
  if (!f) {
    close(fd);
    return cairn_seterr(CAIRN_NOMEM, "out of memory opening %s", zPath ? zPath : "(fd)");
  }
  size_t nCap = f->nPathCap;
  memset(f, 0, sizeof(*f));
  f->nPathCap = nCap;
  f->base.pMethods = &posixMethods;
  f->fd = fd;
  f->writable = writable;
  if (zPath) f->zPath = memcpy((char *)(f + 1), zPath, nPath);
#ifdef POSIX_HAVE_MMAP
  f->mapMutex = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER; /* no call: a small file's open counts */
#endif
  *ppFile = &f->base;
  return CAIRN_OK;
}

int cairn_posix_wrap_fd(int fd, int writable, cairn_file **ppFile) {
  if (!ppFile || fd < 0) return cairn_seterr(CAIRN_MISUSE, "cairn_posix_wrap_fd: bad argument");
  return wrapFd(fd, writable, NULL, ppFile);
}

int cairn_posix_open(const char *zPath, int flags, cairn_file **ppFile) {
  if (!ppFile || !zPath) return cairn_seterr(CAIRN_MISUSE, "cairn_posix_open: NULL argument");
  *ppFile = NULL;
  int writable = (flags & CAIRN_OPEN_READWRITE) != 0;
  int o = writable ? O_RDWR : O_RDONLY;
  if (writable && (flags & CAIRN_OPEN_CREATE)) o |= O_CREAT;
  if (writable && (flags & CAIRN_OPEN_TRUNCATE)) o |= O_TRUNC;
  if (writable && (flags & CAIRN_OPEN_EXCLUSIVE)) o |= O_EXCL;
#ifdef O_CLOEXEC
  o |= O_CLOEXEC;
#endif
  int fd = open(zPath, o, 0644);
  if (fd < 0) {
    int e = errno;
    int rc = e == ENOENT ? CAIRN_NOTFOUND : e == EEXIST ? CAIRN_EXISTS : CAIRN_IOERR_OPEN;
    return cairn_seterr(rc, "cannot open %s: %s", zPath, strerror(e));
  }
  /* A directory opens read-only (writable opens fail with EISDIR); reading it fails with EISDIR,
  ** reported by posixRead. No fstat here: opening a small file is three system calls (open,
  ** pread, close) and each one counts. */
  return wrapFd(fd, writable, zPath, ppFile);
}

/* ------------------------------------------------------------------ services */
/*
** Large blocks ask Linux for transparent huge pages (where THP is in "madvise" mode, the common
** default, nothing else gets them). The core fills big buffers once and at full speed (a memory
** chunk store copies every new chunk into fresh memory): with 4 KiB pages that costs one page
** fault per 4 KiB, about 11 ms of kernel time per 32 MiB on the bench machine, more than a third
** of publishing to memory; with 2 MiB pages it is the zeroing alone. Advice only: on failure, or
** where THP is off, nothing changes. Only the 2 MiB-aligned part inside the block is advised.
*/
#if defined(POSIX_HAVE_MMAP) && defined(__linux__) && defined(MADV_HUGEPAGE)
#define POSIX_HUGE_MIN ((size_t)4 << 20)
static void *posixHuge(void *p, size_t n) {
  if (p && n >= POSIX_HUGE_MIN) {
    const uintptr_t k = (uintptr_t)2 << 20;
    uintptr_t a = ((uintptr_t)p + k - 1) & ~(k - 1), e = ((uintptr_t)p + n) & ~(k - 1);
    if (e > a) (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
  }
  return p;
}
#else
static void *posixHuge(void *p, size_t n) { (void)n; return p; }
#endif
/*
** One spare mid-size block (16-64 KiB usable), kept by posixFree for the next posixMalloc of a
** size it can hold. glibc serves blocks over 1 KiB from its arena, not its per-thread caches:
** it carves them from the top of the heap and merges them back on free, about 400
** instructions a pair. A program that opens small HDF5 files one after another allocates and
** frees the reader's handle (19 KiB) once per file; with the spare, that block is reused. The
** slot (slotTake/slotGive above) holds at most 64 KiB, and cairn_posix_shutdown frees it.
** Blocks are plain malloc memory either way.
*/
#if defined(POSIX_HAVE_THREADS) && defined(__GLIBC__)
#include <malloc.h>
#define POSIX_SPARE_MIN ((size_t)16 << 10)
#define POSIX_SPARE_MAX ((size_t)64 << 10)
static void *gSpare;
static void *spareTake(size_t n) {
  if (n < POSIX_SPARE_MIN || n > POSIX_SPARE_MAX) return NULL;
  void *p = slotTake(&gSpare);
  size_t u = p ? *(size_t *)p : 0; /* its usable size, written there by spareGive */
  if (p && (u < n || u > 2 * n)) { /* not this size: freed */
    free(p);
    p = NULL;
  }
  return p;
}
static int spareGive(void *p) {
  /* a slot already full: no need to ask glibc the block's size */
  if (!p || __atomic_load_n(&gSpare, __ATOMIC_RELAXED)) return 0;
  size_t u = malloc_usable_size(p);
  if (u < POSIX_SPARE_MIN || u > POSIX_SPARE_MAX) return 0;
  *(size_t *)p = u; /* the block is free: its first bytes tell spareTake its size */
  return slotGive(&gSpare, p);
}
#else
static void *spareTake(size_t n) { (void)n; return NULL; }
static int spareGive(void *p) { (void)p; return 0; }
static void *gSpare; /* never filled */
#endif
static void *posixMalloc(void *c, size_t n) {
  (void)c;
  void *p = spareTake(n);
  return p ? p : posixHuge(malloc(n), n);
}
static void *posixRealloc(void *c, void *p, size_t n) { (void)c; return posixHuge(realloc(p, n), n); }
static void posixFree(void *c, void *p) {
  (void)c;
  if (!spareGive(p)) free(p);
}

static int64_t posixClock(void *c, int monotonic) {
  (void)c;
  struct timespec ts;
  clock_gettime(monotonic ? CLOCK_MONOTONIC : CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int posixRandom(void *c, void *p, size_t n) {
  (void)c;
  unsigned char *a = p;
  while (n > 0) {
    size_t k = n > 256 ? 256 : n;
    if (getentropy(a, k) != 0) return cairn_seterr(CAIRN_IOERR, "getentropy: %s", strerror(errno));
    a += k;
    n -= k;
  }
  return CAIRN_OK;
}

static void posixSleep(void *c, int64_t ns) {
  (void)c;
  if (ns <= 0) return;
  struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static int posixOpenHost(void *c, const char *zPath, int flags, cairn_file **pp) {
  (void)c;
  return cairn_posix_open(zPath, flags, pp);
}

static uint64_t posixCpu(void *c) {
  (void)c;
  uint64_t f = 0;
#if defined(__aarch64__) && defined(__linux__) && defined(POSIX_HAVE_THREADS)
  unsigned long hw = getauxval(AT_HWCAP);
#ifndef HWCAP_SHA2
#define HWCAP_SHA2 (1 << 6)
#endif
  if (hw & HWCAP_SHA2) f |= CAIRN_CPU_ARMSHA2;
#endif
  return f;
}

/* ------------------------------------------------------------------ thread pool */
#ifdef POSIX_HAVE_THREADS
/*
** A fixed pool of nWorker-1 threads; the calling thread is worker 0 and takes tasks too. One
** job at a time: a parallel-for that arrives while another runs (another thread, or a task
** calling parallel-for itself) runs sequentially on its own thread, which gives the same
** results. Tasks are handed out one index at a time through an atomic counter, so uneven
** tasks balance themselves.
**
** Built for short jobs (a 10K-row vector scan is ~0.1 ms): a futex wake-up and a sleeping
** caller cost tens of microseconds each, so both sides spin briefly before they sleep.
**   - gen is odd while a job is open, even otherwise; only the job's owner (jobMu) changes it.
**     Open: fields written, then gen = g (release). Close: gen = g + 1 once the caller ran out
**     of tasks, then wait until no helper is inside the job (nActive == 0).
**   - A helper sees an open gen it has not seen, counts itself in (nActive++), and only then
**     checks that gen is still g; if it was closed meanwhile it leaves without touching the
**     fields. The caller waits only for helpers that got in, never for one that slept
**     through a job (it is not needed: every task was claimed by someone).
**   - Sleep/wake without lost wake-ups: a helper increments nSleep, then re-checks gen, then
**     waits on cvWork, all under mu; the caller stores gen, then reads nSleep and broadcasts
**     under mu only if someone sleeps. Both sides use sequentially consistent atomics, so at
**     least one of them sees the other (no syscall at all when the helpers are spinning).
**     The caller's wait for nActive == 0 and the helpers' signal on cvDone use the same
**     pattern with callerWaits.
**   - Shutdown: stop is set under mu with a broadcast; spinning helpers poll it.
*/
#define POOL_SPIN_NS_HELPER 100000 /* a helper spins this long after a job before sleeping */
#define POOL_SPIN_NS_CALLER 200000 /* the caller spins this long for helpers to finish */

typedef struct Pool {
  pthread_mutex_t mu;
  pthread_cond_t cvWork, cvDone;
  pthread_t *aThread;
  unsigned nThread;       /* total workers including the caller */
  unsigned long gen;      /* odd = a job is open (atomic) */
  int stop;               /* atomic */
  cairn_task_fn xTask;
  void *pArg;
  size_t nTask;
  size_t iNext;           /* next task index (atomic) */
  unsigned nActive;       /* helpers inside the current job (atomic) */
  unsigned nSleep;        /* helpers waiting on cvWork (atomic, changed under mu) */
  int callerWaits;        /* the caller waits on cvDone (atomic, changed under mu) */
  pthread_mutex_t jobMu;  /* held by the thread that owns the pool for a job */
} Pool;

static Pool gPool;
static int gPoolUp;

typedef struct WorkerArg { unsigned id; } WorkerArg;
static WorkerArg gWorkerIds[256];

#define SEQ __ATOMIC_SEQ_CST

static inline void cpuRelax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}
static int64_t nowNs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void poolRun(Pool *p, unsigned id) {
  cairn_task_fn xTask = p->xTask;
  void *pArg = p->pArg;
  size_t nTask = p->nTask;
  for (;;) {
    size_t i = __atomic_fetch_add(&p->iNext, 1, __ATOMIC_RELAXED);
    if (i >= nTask) break;
    xTask(pArg, i, id);
  }
}

/* An open job this helper has not taken part in yet? */
static int jobReady(Pool *p, unsigned long seen, unsigned long *pg) {
  unsigned long g = __atomic_load_n(&p->gen, SEQ);
  *pg = g;
  return (g & 1) && g != seen;
}

static void *poolMain(void *a) {
  unsigned id = ((WorkerArg *)a)->id;
  Pool *p = &gPool;
  unsigned long seen = 0, g = 0;
  for (;;) {
    /* spin a little, then sleep */
    int64_t tEnd = 0;
    for (unsigned spin = 0;; spin++) {
      if (__atomic_load_n(&p->stop, SEQ)) return NULL;
      if (jobReady(p, seen, &g)) break;
      if ((spin & 63) == 63) {
        int64_t t = nowNs();
        if (tEnd == 0) tEnd = t + POOL_SPIN_NS_HELPER;
        else if (t > tEnd) {
          pthread_mutex_lock(&p->mu);
          __atomic_fetch_add(&p->nSleep, 1, SEQ);
          while (!__atomic_load_n(&p->stop, SEQ) && !jobReady(p, seen, &g)) pthread_cond_wait(&p->cvWork, &p->mu);
          __atomic_fetch_sub(&p->nSleep, 1, SEQ);
          pthread_mutex_unlock(&p->mu);
          tEnd = 0;
          continue;
        }
      }
      cpuRelax();
    }
    seen = g;
    __atomic_fetch_add(&p->nActive, 1, SEQ);
    if (__atomic_load_n(&p->gen, SEQ) == g) poolRun(p, id);
    if (__atomic_sub_fetch(&p->nActive, 1, SEQ) == 0 && __atomic_load_n(&p->callerWaits, SEQ)) {
      pthread_mutex_lock(&p->mu);
      pthread_cond_signal(&p->cvDone);
      pthread_mutex_unlock(&p->mu);
    }
  }
}

static int posixParallelFor(void *c, size_t nTask, cairn_task_fn xTask, void *pArg) {
  (void)c;
  Pool *p = &gPool;
  if (!gPoolUp || p->nThread < 2 || nTask < 2 || pthread_mutex_trylock(&p->jobMu) != 0) {
    for (size_t i = 0; i < nTask; i++) xTask(pArg, i, 0);
    return CAIRN_OK;
  }
  /* open: the fields, then gen (no helper is inside a job here: the last one waited) */
  p->xTask = xTask;
  p->pArg = pArg;
  p->nTask = nTask;
  __atomic_store_n(&p->iNext, 0, __ATOMIC_RELAXED);
  unsigned long g = p->gen + 1;
  __atomic_store_n(&p->gen, g, SEQ);
  if (__atomic_load_n(&p->nSleep, SEQ) > 0) {
    pthread_mutex_lock(&p->mu);
    pthread_cond_broadcast(&p->cvWork);
    pthread_mutex_unlock(&p->mu);
  }
  poolRun(p, 0);
  /* close: every task is claimed; wait for the helpers that got in */
  __atomic_store_n(&p->gen, g + 1, SEQ);
  int64_t tEnd = 0;
  for (unsigned spin = 0; __atomic_load_n(&p->nActive, SEQ) > 0; spin++) {
    if ((spin & 63) == 63) {
      int64_t t = nowNs();
      if (tEnd == 0) tEnd = t + POOL_SPIN_NS_CALLER;
      else if (t > tEnd) {
        pthread_mutex_lock(&p->mu);
        __atomic_store_n(&p->callerWaits, 1, SEQ);
        while (__atomic_load_n(&p->nActive, SEQ) > 0) pthread_cond_wait(&p->cvDone, &p->mu);
        __atomic_store_n(&p->callerWaits, 0, SEQ);
        pthread_mutex_unlock(&p->mu);
        break;
      }
    }
    cpuRelax();
  }
  pthread_mutex_unlock(&p->jobMu);
  return CAIRN_OK;
}

static unsigned posixConcurrency(void *c) {
  (void)c;
  return gPoolUp ? gPool.nThread : 1;
}

static void poolStop(void) {
  if (!gPoolUp) return;
  pthread_mutex_lock(&gPool.mu);
  __atomic_store_n(&gPool.stop, 1, SEQ);
  pthread_cond_broadcast(&gPool.cvWork);
  pthread_mutex_unlock(&gPool.mu);
  for (unsigned i = 1; i < gPool.nThread; i++) pthread_join(gPool.aThread[i - 1], NULL);
  free(gPool.aThread);
  pthread_mutex_destroy(&gPool.mu);
  pthread_mutex_destroy(&gPool.jobMu);
  pthread_cond_destroy(&gPool.cvWork);
  pthread_cond_destroy(&gPool.cvDone);
  memset(&gPool, 0, sizeof(gPool));
  gPoolUp = 0;
}

static int poolStart(unsigned n) {
  if (n > (unsigned)(sizeof(gWorkerIds) / sizeof(gWorkerIds[0]))) n = (unsigned)(sizeof(gWorkerIds) / sizeof(gWorkerIds[0]));
  memset(&gPool, 0, sizeof(gPool));
  pthread_mutex_init(&gPool.mu, NULL);
  pthread_mutex_init(&gPool.jobMu, NULL);
  pthread_cond_init(&gPool.cvWork, NULL);
  pthread_cond_init(&gPool.cvDone, NULL);
  gPool.nThread = 1;
  gPoolUp = 1;
  if (n < 2) return CAIRN_OK;
  gPool.aThread = calloc(n - 1, sizeof(pthread_t));
  if (!gPool.aThread) return cairn_seterr(CAIRN_NOMEM, "thread pool: out of memory");
  for (unsigned i = 1; i < n; i++) {
    gWorkerIds[i].id = i;
    if (pthread_create(&gPool.aThread[i - 1], NULL, poolMain, &gWorkerIds[i]) != 0) break;
    gPool.nThread = i + 1;
  }
  return CAIRN_OK;
}
#endif

int cairn_posix_install(unsigned nThreads) {
  cairn_host h;
  memset(&h, 0, sizeof(h));
  h.iVersion = 2;
  h.xMalloc = posixMalloc;
  h.xRealloc = posixRealloc;
  h.xFree = posixFree;
  h.xClock = posixClock;
  h.xRandom = posixRandom;
  h.xOpen = posixOpenHost;
  h.xCpuFeatures = posixCpu;
  h.xSleep = posixSleep;
#ifdef POSIX_HAVE_THREADS
  poolStop();
  if (nThreads == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    nThreads = n > 0 ? (unsigned)n : 1;
  }
  int rc = poolStart(nThreads);
  if (rc != CAIRN_OK) return rc;
  h.xParallelFor = posixParallelFor;
  h.xConcurrency = posixConcurrency;
#else
  (void)nThreads;
#endif
  return cairn_host_set(&h);
}

void cairn_posix_shutdown(void) {
#ifdef POSIX_HAVE_THREADS
  poolStop();
#endif
  cairn_host_set(NULL);
  slotDrop(&gSpare);
  slotDrop(&gFileSpare);
}
