/* 2026-12-02 - tests of file locks: the core's busy-timeout wrapper (cairn_file_lock) with a fake
** host and a fake clock, on every target; natively also the POSIX host's locks (cairn/host.h,
** "Locking"): two handles in one process, a child process holding the writer lock and killed
** with -9, libhdf5's flock seen from both sides, and HDF5_USE_FILE_LOCKING=FALSE. */
#include "common/internal.h"
#include <stdlib.h>

#include "tf.h"

/* ---- a fake file whose xLock is BUSY nBusy times, and a host whose sleep moves a fake clock */
typedef struct FakeFile {
  cairn_file base;
  int nBusy;  /* BUSY answers left */
  int nCalls; /* xLock calls */
  int eLock;
} FakeFile;
static int64_t gFakeNow, gFakeSlept;
static int gFakeSleeps;

static int fkLock(cairn_file *pF, int e) {
  FakeFile *f = (FakeFile *)pF;
  f->nCalls++;
  if (f->nBusy > 0) {
    f->nBusy--;
    return cairn_seterr(CAIRN_BUSY, "fake.bin is locked by the test");
  }
  if (e > f->eLock) f->eLock = e;
  return CAIRN_OK;
}
static int fkUnlock(cairn_file *pF, int e) {
  FakeFile *f = (FakeFile *)pF;
  if (e < f->eLock) f->eLock = e;
  return CAIRN_OK;
}
static int fkClose(cairn_file *pF) {
  (void)pF;
  return CAIRN_OK;
}
static const cairn_file_methods fkMethods = {2, NULL, NULL, NULL, NULL, NULL, fkClose, NULL, fkLock, fkUnlock, NULL};
static const cairn_file_methods fkMethodsV1 = {1, NULL, NULL, NULL, NULL, NULL, fkClose, NULL, fkLock, fkUnlock, NULL};

static int64_t fkClock(void *c, int monotonic) {
  (void)c, (void)monotonic;
  return gFakeNow;
}
static void fkSleep(void *c, int64_t ns) {
  (void)c;
  gFakeNow += ns;
  gFakeSlept += ns;
  gFakeSleeps++;
}

static cairn_host gSaved;
/* Install the fake host (clock optional); tests restore the real one with fakeEnd(). */
static void fakeBegin(int withClock, int withSleep) {
  gSaved = *cairn_host_get();
  cairn_host h;
  memset(&h, 0, sizeof(h));
  h.iVersion = 2;
  if (withClock) h.xClock = fkClock;
  if (withSleep) h.xSleep = fkSleep;
  cairn_host_set(&h);
  gFakeNow = 1000000000; /* nonzero: a clock that reads 0 counts as none */
  gFakeSlept = 0;
  gFakeSleeps = 0;
}
static void fakeEnd(void) {
  cairn_host_set(&gSaved);
  cairn_set_busy_timeout(0);
}

TEST(lock, retry_until_ok) {
  FakeFile f = {{&fkMethods}, 3, 0, 0};
  fakeBegin(1, 1);
  int rc = cairn_file_lock(&f.base, CAIRN_LOCK_WRITE, 1000);
  fakeEnd();
  CHECK_OK(rc);
  CHECK_EQ(f.nCalls, 4);
  CHECK_EQ(gFakeSleeps, 3);
  CHECK_EQ(gFakeSlept, (1 + 2 + 5) * 1000000ll); /* the ladder starts 1, 2, 5 ms */
  CHECK_EQ(f.eLock, CAIRN_LOCK_WRITE);
  CHECK_OK(cairn_file_unlock(&f.base, CAIRN_LOCK_NONE));
  CHECK_EQ(f.eLock, CAIRN_LOCK_NONE);
}

TEST(lock, timeout_honoured) {
  FakeFile f = {{&fkMethods}, 1 << 30, 0, 0};
  fakeBegin(1, 1);
  int rc = cairn_file_lock(&f.base, CAIRN_LOCK_READ, 300);
  fakeEnd();
  CHECK_RC(rc, CAIRN_BUSY);
  CHECK_EQ(gFakeSlept, 300 * 1000000ll); /* the last sleep is cut to the time left */
  CHECK(strstr(cairn_errmsg(), "fake.bin is locked by the test") != NULL);
  CHECK(strstr(cairn_errmsg(), "gave up after 300 ms") != NULL);
  CHECK_EQ(f.nCalls, gFakeSleeps + 1);
  /* 1+2+5+10+15+20+25+25+25+50+50 = 228, then 72 of a 100 ms step: 12 sleeps */
  CHECK_EQ(gFakeSleeps, 12);
}

TEST(lock, timeout_without_clock) {
  FakeFile f = {{&fkMethods}, 1 << 30, 0, 0};
  fakeBegin(0, 1);
  int rc = cairn_file_lock(&f.base, CAIRN_LOCK_WRITE, 40);
  fakeEnd();
  CHECK_RC(rc, CAIRN_BUSY);
  CHECK_EQ(gFakeSlept, 40 * 1000000ll); /* counted by adding up the sleeps */
  CHECK(strstr(cairn_errmsg(), "gave up after 40 ms") != NULL);
}

TEST(lock, try_once) {
  FakeFile f = {{&fkMethods}, 1, 0, 0};
  fakeBegin(1, 1);
  int rc = cairn_file_lock(&f.base, CAIRN_LOCK_WRITE, 0); /* 0: one try */
  int rcDefault = cairn_file_lock(&f.base, CAIRN_LOCK_WRITE, CAIRN_LOCK_DEFAULT_TIMEOUT); /* default 0: one try */
  fakeEnd();
  CHECK_RC(rc, CAIRN_BUSY);
  CHECK_STR(cairn_errmsg(), "fake.bin is locked by the test"); /* the host's message as it is */
  CHECK_OK(rcDefault);
  CHECK_EQ(gFakeSleeps, 0);
  /* no xSleep: a timeout cannot wait, so it is one try */
  FakeFile g = {{&fkMethods}, 1, 0, 0};
  fakeBegin(1, 0);
  rc = cairn_file_lock(&g.base, CAIRN_LOCK_WRITE, 5000);
  fakeEnd();
  CHECK_RC(rc, CAIRN_BUSY);
  CHECK_EQ(g.nCalls, 1);
}

TEST(lock, default_timeout) {
  FakeFile f = {{&fkMethods}, 1 << 30, 0, 0};
  fakeBegin(1, 1);
  cairn_set_busy_timeout(-5);
  int64_t tNeg = cairn_busy_timeout();
  cairn_set_busy_timeout(25);
  int64_t t = cairn_busy_timeout();
  int rc = cairn_file_lock(&f.base, CAIRN_LOCK_WRITE, CAIRN_LOCK_DEFAULT_TIMEOUT);
  fakeEnd();
  CHECK_EQ(tNeg, 0);
  CHECK_EQ(t, 25);
  CHECK_RC(rc, CAIRN_BUSY);
  CHECK_EQ(gFakeSlept, 25 * 1000000ll);
  CHECK_EQ(cairn_busy_timeout(), 0);
}

TEST(lock, no_locks_and_misuse) {
  /* version 1 methods: "no locks", xLock never called even if the slot is filled */
  FakeFile f = {{&fkMethodsV1}, 5, 0, 0};
  CHECK(!cairn_file_can_lock(&f.base));
  CHECK_OK(cairn_file_lock(&f.base, CAIRN_LOCK_WRITE, 0));
  CHECK_OK(cairn_file_unlock(&f.base, CAIRN_LOCK_NONE));
  CHECK_EQ(f.nCalls, 0);
  cairn_file *m;
  CHECK_OK(cairn_memfile_open(NULL, 0, &m));
  CHECK(!cairn_file_can_lock(m));
  CHECK_OK(cairn_file_lock(m, CAIRN_LOCK_WRITE, 100));
  CHECK_OK(cairn_file_close(m));
  FakeFile g = {{&fkMethods}, 0, 0, 0};
  CHECK(cairn_file_can_lock(&g.base));
  CHECK_RC(cairn_file_lock(&g.base, 3, 0), CAIRN_MISUSE);
  CHECK_RC(cairn_file_lock(&g.base, CAIRN_LOCK_NONE, 0), CAIRN_MISUSE);
  CHECK_RC(cairn_file_unlock(&g.base, CAIRN_LOCK_WRITE), CAIRN_MISUSE);
  CHECK_RC(cairn_file_lock(NULL, CAIRN_LOCK_READ, 0), CAIRN_MISUSE);
  CHECK_EQ(g.nCalls, 0);
}

TEST(lock, host_v1_copy) {
  /* A version 1 host struct ends before xSleep: cairn_host_set must not read past it. */
  gSaved = *cairn_host_get();
  struct {
    char a[offsetof(cairn_host, xSleep)];
  } v1;
  cairn_host h;
  memset(&h, 0, sizeof(h));
  h.iVersion = 1;
  h.xClock = fkClock;
  memcpy(&v1, &h, sizeof(v1));
  int rc = cairn_host_set((const cairn_host *)(const void *)&v1);
  int bSleep = cairn_host_get()->xSleep != NULL;
  int bClock = cairn_host_get()->xClock == fkClock;
  cairn_host_set(&gSaved);
  CHECK_OK(rc);
  CHECK(!bSleep);
  CHECK(bClock);
}

/* ---- the POSIX host (native only: under WASI and NODERAWFS there are no OFD locks) */
#if !defined(__wasi__) && !defined(__EMSCRIPTEN__) && defined(__linux__)
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *lockPath(const char *zName) {
  const char *z = tfTmp(zName);
  static char zBuf[8][1024];
  static int i;
  char *zOut = zBuf[i++ & 7];
  snprintf(zOut, sizeof(zBuf[0]), "%s", z);
  tfWriteFile(zOut, "data", 4);
  char zLock[1100];
  snprintf(zLock, sizeof zLock, "%s.cairn-lock", zOut);
  unlink(zLock); /* left by an earlier run that failed */
  return zOut;
}
static int lockFileExists(const char *zPath) {
  char z[1100];
  struct stat st;
  snprintf(z, sizeof z, "%s.cairn-lock", zPath);
  return stat(z, &st) == 0;
}
static int openLocked(const char *zPath, int eLock, cairn_file **pp) {
  int rc = cairn_open(zPath, eLock == CAIRN_LOCK_WRITE ? CAIRN_OPEN_READWRITE : CAIRN_OPEN_READONLY, pp);
  if (rc) return rc;
  rc = cairn_file_lock(*pp, eLock, 0);
  if (rc) {
    cairn_file_close(*pp);
    *pp = NULL;
  }
  return rc;
}
/* Can a plain descriptor take flock(op)? (what libhdf5 does on open) */
static int flockProbe(const char *zPath, int op) {
  int fd = open(zPath, O_RDONLY);
  if (fd < 0) return -1;
  int ok = flock(fd, op | LOCK_NB) == 0;
  close(fd);
  return ok;
}

TEST(lock, posix_two_handles) {
  const char *zPath = lockPath("lock_two.bin");
  cairn_file *a = NULL, *b = NULL, *c = NULL;
  CHECK(cairn_file_can_lock(NULL) == 0);
  CHECK_OK(openLocked(zPath, CAIRN_LOCK_READ, &a));
  CHECK_RC(cairn_file_lock(a, CAIRN_LOCK_WRITE, 0), CAIRN_READONLY); /* a read-only handle */
  CHECK_OK(cairn_file_close(a));
  CHECK_OK(cairn_open(zPath, CAIRN_OPEN_READWRITE, &a)); /* read-write, locked READ */
  CHECK_OK(cairn_file_lock(a, CAIRN_LOCK_READ, 0));
  CHECK(cairn_file_can_lock(a));
  CHECK_OK(openLocked(zPath, CAIRN_LOCK_READ, &b)); /* READ + READ */
  CHECK(!lockFileExists(zPath));
  CHECK_OK(openLocked(zPath, CAIRN_LOCK_WRITE, &c)); /* READ + WRITE */
  CHECK(lockFileExists(zPath));
  cairn_file *d = NULL;
  CHECK_RC(openLocked(zPath, CAIRN_LOCK_WRITE, &d), CAIRN_BUSY); /* WRITE + WRITE */
  CHECK(strstr(cairn_errmsg(), "lock_two.bin is locked: another cairn writer") != NULL);
  CHECK_RC(cairn_file_lock(a, CAIRN_LOCK_WRITE, 0), CAIRN_BUSY); /* an upgrade is BUSY too */
  CHECK_OK(cairn_file_lock(a, CAIRN_LOCK_READ, 0)); /* and a failed one keeps READ */
  CHECK_OK(cairn_file_unlock(c, CAIRN_LOCK_READ)); /* the writer steps down */
  CHECK(!lockFileExists(zPath));
  CHECK_OK(cairn_file_lock(a, CAIRN_LOCK_WRITE, 0)); /* now a reader may become the writer */
  CHECK_RC(cairn_file_lock(c, CAIRN_LOCK_WRITE, 0), CAIRN_BUSY);
  CHECK_OK(cairn_file_close(a)); /* close releases */
  CHECK(!lockFileExists(zPath));
  CHECK_OK(cairn_file_lock(c, CAIRN_LOCK_WRITE, 0));
  CHECK_OK(cairn_file_lock(c, CAIRN_LOCK_WRITE, 0)); /* held: a no-op */
  CHECK_OK(cairn_file_unlock(c, CAIRN_LOCK_NONE));
  CHECK_OK(cairn_file_unlock(c, CAIRN_LOCK_NONE));
  CHECK_OK(cairn_file_lock(b, CAIRN_LOCK_READ, 0));
  CHECK_OK(cairn_file_close(b));
  CHECK_OK(cairn_file_close(c));
  /* a busy timeout through the real host: still BUSY, after about the time asked */
  CHECK_OK(openLocked(zPath, CAIRN_LOCK_WRITE, &a));
  CHECK_OK(cairn_open(zPath, CAIRN_OPEN_READWRITE, &b));
  int64_t t0 = cairnClock(1);
  int rc = cairn_file_lock(b, CAIRN_LOCK_WRITE, 30);
  int64_t dt = cairnClock(1) - t0;
  CHECK_RC(rc, CAIRN_BUSY);
  CHECK(dt >= 30 * 1000000ll);
  CHECK(strstr(cairn_errmsg(), "gave up after") != NULL);
  CHECK_OK(cairn_file_close(a));
  CHECK_OK(cairn_file_lock(b, CAIRN_LOCK_WRITE, 0));
  CHECK_OK(cairn_file_close(b));
}

/* A child that opens zPath, locks it at eLock, says so on the pipe and waits to be killed. */
static pid_t lockChild(const char *zPath, int eLock) {
  int p[2];
  if (pipe(p) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
    cairn_file *f = NULL;
    char c = openLocked(zPath, eLock, &f) == CAIRN_OK ? 'y' : 'n';
    if (write(p[1], &c, 1) != 1) _exit(2);
    for (;;) pause();
  }
  close(p[1]);
  char c = 0;
  if (pid < 0 || read(p[0], &c, 1) != 1 || c != 'y') {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, NULL, 0);
    }
    pid = -1;
  }
  close(p[0]);
  return pid;
}
static void lockChildKill(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

TEST(lock, posix_child_process) {
  const char *zPath = lockPath("lock_child.bin");
  pid_t pid = lockChild(zPath, CAIRN_LOCK_WRITE);
  CHECK(pid > 0);
  cairn_file *f = NULL;
  int rcW = openLocked(zPath, CAIRN_LOCK_WRITE, &f);
  char zMsg[512];
  snprintf(zMsg, sizeof zMsg, "%s", cairn_errmsg());
  cairn_file *r = NULL;
  int rcR = openLocked(zPath, CAIRN_LOCK_READ, &r); /* a reader beside another process's writer */
  int bExclusive = flockProbe(zPath, LOCK_SH) == 0; /* libhdf5 cannot open it, even to read */
  lockChildKill(pid); /* kill -9: the kernel drops its locks; its lock file stays, stale */
  int bStale = lockFileExists(zPath);
  int rcW2 = openLocked(zPath, CAIRN_LOCK_WRITE, &f);
  CHECK_RC(rcW, CAIRN_BUSY);
  CHECK(strstr(zMsg, "another cairn writer") != NULL);
  CHECK_OK(rcR);
  CHECK(bExclusive);
  CHECK(bStale);
  CHECK_OK(rcW2);
  /* the lock file is ours now */
  char zLock[1100], zGot[200] = {0}, zWant[64];
  snprintf(zLock, sizeof zLock, "%s.cairn-lock", zPath);
  int fd = open(zLock, O_RDONLY);
  CHECK(fd >= 0);
  CHECK(read(fd, zGot, sizeof zGot - 1) > 0);
  close(fd);
  snprintf(zWant, sizeof zWant, "cairn-lock pid=%ld host=", (long)getpid());
  CHECK(strncmp(zGot, zWant, strlen(zWant)) == 0);
  CHECK_OK(cairn_file_close(f));
  CHECK_OK(cairn_file_close(r));
  CHECK(!lockFileExists(zPath));
  /* a child holding READ: a writer here is fine, and libhdf5 still cannot write */
  pid = lockChild(zPath, CAIRN_LOCK_READ);
  CHECK(pid > 0);
  rcW = openLocked(zPath, CAIRN_LOCK_WRITE, &f);
  int bEx = flockProbe(zPath, LOCK_EX);
  lockChildKill(pid);
  CHECK_OK(rcW);
  CHECK_EQ(bEx, 0);
  CHECK_OK(cairn_file_close(f));
}

TEST(lock, posix_libhdf5_flock) {
  const char *zPath = lockPath("lock_flock.bin");
  /* libhdf5 writing (flock EX on its own descriptor): cairn writers and readers are BUSY */
  int fd = open(zPath, O_RDWR);
  CHECK(fd >= 0);
  CHECK(flock(fd, LOCK_EX | LOCK_NB) == 0);
  cairn_file *f = NULL;
  int rcW = openLocked(zPath, CAIRN_LOCK_WRITE, &f);
  int bNoLockFile = !lockFileExists(zPath); /* a BUSY writer leaves nothing behind */
  int rcR = openLocked(zPath, CAIRN_LOCK_READ, &f);
  char zMsg[512];
  snprintf(zMsg, sizeof zMsg, "%s", cairn_errmsg());
  /* with HDF5_USE_FILE_LOCKING=FALSE cairn takes no flock, as libhdf5 then takes none */
  setenv("HDF5_USE_FILE_LOCKING", "FALSE", 1);
  cairn_file *g = NULL, *h = NULL;
  int rcR2 = openLocked(zPath, CAIRN_LOCK_READ, &g);
  int rcW2 = openLocked(zPath, CAIRN_LOCK_WRITE, &h);
  unsetenv("HDF5_USE_FILE_LOCKING");
  close(fd);
  CHECK_RC(rcW, CAIRN_BUSY);
  CHECK(bNoLockFile);
  CHECK_RC(rcR, CAIRN_BUSY);
  CHECK(strstr(zMsg, "locked by another program") != NULL);
  CHECK_OK(rcR2);
  CHECK_OK(rcW2);
  CHECK_EQ(flockProbe(zPath, LOCK_EX), 1); /* they hold no flock */
  CHECK_OK(cairn_file_close(g));
  CHECK_OK(cairn_file_close(h));
  /* libhdf5 reading (flock SH): a cairn writer is BUSY, a cairn reader is fine */
  fd = open(zPath, O_RDONLY);
  CHECK(fd >= 0);
  CHECK(flock(fd, LOCK_SH | LOCK_NB) == 0);
  rcW = openLocked(zPath, CAIRN_LOCK_WRITE, &f);
  rcR = openLocked(zPath, CAIRN_LOCK_READ, &g);
  close(fd);
  CHECK_RC(rcW, CAIRN_BUSY);
  CHECK_OK(rcR);
  /* cairn reading, then a cairn writer: the writer shares the readers' flock(SH), so libhdf5
  ** cannot write; once all are gone libhdf5 can */
  CHECK_OK(openLocked(zPath, CAIRN_LOCK_WRITE, &h));
  CHECK_EQ(flockProbe(zPath, LOCK_EX), 0);
  CHECK_OK(cairn_file_close(g));
  CHECK_EQ(flockProbe(zPath, LOCK_EX), 0);
  CHECK_OK(cairn_file_close(h));
  CHECK_EQ(flockProbe(zPath, LOCK_EX), 1);
  /* a cairn writer alone holds flock(EX): libhdf5 can open it neither way */
  CHECK_OK(openLocked(zPath, CAIRN_LOCK_WRITE, &h));
  CHECK_EQ(flockProbe(zPath, LOCK_SH), 0);
  CHECK_OK(cairn_file_unlock(h, CAIRN_LOCK_READ)); /* down to READ: libhdf5 may read, not write */
  CHECK_EQ(flockProbe(zPath, LOCK_SH), 1);
  CHECK_EQ(flockProbe(zPath, LOCK_EX), 0);
  CHECK_OK(cairn_file_unlock(h, CAIRN_LOCK_NONE));
  CHECK_EQ(flockProbe(zPath, LOCK_EX), 1);
  CHECK_OK(cairn_file_close(h));
}

TEST(lock, posix_stale_lock_file) {
  const char *zPath = lockPath("lock_stale.bin");
  char zLock[1100];
  snprintf(zLock, sizeof zLock, "%s.cairn-lock", zPath);
  char zHost[256] = {0};
  gethostname(zHost, sizeof zHost - 1);
  /* a live holder (this process's parent, on this host): BUSY, naming it */
  char z[512];
  int n = snprintf(z, sizeof z, "cairn-lock pid=%ld host=%s\n", (long)getppid(), zHost);
  CHECK(tfWriteFile(zLock, z, (size_t)n) == CAIRN_OK);
  cairn_file *f = NULL;
  CHECK_RC(openLocked(zPath, CAIRN_LOCK_WRITE, &f), CAIRN_BUSY);
  CHECK(strstr(cairn_errmsg(), "open for writing by another process") != NULL);
  CHECK(strstr(cairn_errmsg(), "cairn-lock pid=") != NULL);
  /* another host: cannot tell, held */
  n = snprintf(z, sizeof z, "cairn-lock pid=1 host=elsewhere.invalid\n");
  CHECK(tfWriteFile(zLock, z, (size_t)n) == CAIRN_OK);
  CHECK_RC(openLocked(zPath, CAIRN_LOCK_WRITE, &f), CAIRN_BUSY);
  /* a fresh half-written one: held (its creator is writing it) */
  CHECK(tfWriteFile(zLock, "", 0) == CAIRN_OK);
  CHECK_RC(openLocked(zPath, CAIRN_LOCK_WRITE, &f), CAIRN_BUSY);
  /* a dead pid on this host: stale, broken */
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, NULL, 0);
  n = snprintf(z, sizeof z, "cairn-lock pid=%ld host=%s\n", (long)pid, zHost);
  CHECK(tfWriteFile(zLock, z, (size_t)n) == CAIRN_OK);
  CHECK_OK(openLocked(zPath, CAIRN_LOCK_WRITE, &f));
  CHECK_OK(cairn_file_close(f));
  CHECK(!lockFileExists(zPath));
  /* a symbolic link to the file finds the same lock file */
  char zLink[1100];
  snprintf(zLink, sizeof zLink, "%s.link", zPath);
  unlink(zLink);
  char *zAbs = realpath(zPath, NULL);
  CHECK(zAbs != NULL);
  int rcLink = symlink(zAbs, zLink);
  free(zAbs);
  CHECK(rcLink == 0);
  CHECK_OK(openLocked(zLink, CAIRN_LOCK_WRITE, &f));
  CHECK(lockFileExists(zPath));
  CHECK_OK(cairn_file_close(f));
  CHECK(!lockFileExists(zPath));
  unlink(zLink);
}

/* Readers without OFD locks (Node, WASI) leave markers in "<file>.cairn-readers/": a writer's
** cairn_file_no_readers is BUSY while a live one is there (naming it), removes one whose
** process is gone, and the empty directory after it. */
TEST(lock, posix_reader_markers) {
  const char *zPath = lockPath("lock_markers.bin");
  char zDir[1100], zM[1200], z[512], zHost[256] = {0};
  char *zAbs = realpath(zPath, NULL);
  CHECK(zAbs != NULL);
  snprintf(zDir, sizeof zDir, "%s.cairn-readers", zAbs);
  free(zAbs);
  gethostname(zHost, sizeof zHost - 1);
  mkdir(zDir, 0755);
  cairn_file *w = NULL;
  CHECK_OK(openLocked(zPath, CAIRN_LOCK_WRITE, &w));
  CHECK_OK(cairn_file_no_readers(w)); /* an empty directory: no readers, and it goes */
  struct stat st;
  CHECK(stat(zDir, &st) != 0);
  /* a live Node reader (this process's parent) */
  mkdir(zDir, 0755);
  snprintf(zM, sizeof zM, "%s/%ld.1", zDir, (long)getppid());
  int n = snprintf(z, sizeof z, "cairn-reader pid=%ld host=%s\n", (long)getppid(), zHost);
  CHECK_OK(tfWriteFile(zM, z, (size_t)n));
  CHECK_RC(cairn_file_no_readers(w), CAIRN_BUSY);
  CHECK(strstr(cairn_errmsg(), "has readers") != NULL && strstr(cairn_errmsg(), "cairn-reader pid=") != NULL);
  unlink(zM);
  /* a WASI reader: never known dead */
  snprintf(zM, sizeof zM, "%s/wasi.0123", zDir);
  CHECK_OK(tfWriteFile(zM, "cairn-reader wasi id=0123\n", 26));
  CHECK_RC(cairn_file_no_readers(w), CAIRN_BUSY);
  CHECK(strstr(cairn_errmsg(), "wasi id=0123") != NULL);
  unlink(zM);
  /* a reader killed: its marker is stale, removed with the directory */
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, NULL, 0);
  snprintf(zM, sizeof zM, "%s/%ld.1", zDir, (long)pid);
  n = snprintf(z, sizeof z, "cairn-reader pid=%ld host=%s\n", (long)pid, zHost);
  CHECK_OK(tfWriteFile(zM, z, (size_t)n));
  CHECK_OK(cairn_file_no_readers(w));
  CHECK(stat(zM, &st) != 0);
  CHECK(stat(zDir, &st) != 0);
  CHECK_OK(cairn_file_close(w));
}
#endif

#if defined(__wasi__)
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
/* WASI has no locks: a writer lock is BUSY while a native or Node writer's lock file exists. */
TEST(lock, wasi_lock_file) {
  const char *zPath = tfTmp("lock_wasi.bin");
  char zLock[1100];
  snprintf(zLock, sizeof zLock, "%s.cairn-lock", zPath);
  CHECK_OK(tfWriteFile(zPath, "data", 4));
  CHECK_OK(tfWriteFile(zLock, "cairn-lock pid=1 host=h\n", 24));
  cairn_file *f = NULL;
  CHECK_OK(cairn_open(zPath, CAIRN_OPEN_READWRITE, &f));
  CHECK(cairn_file_can_lock(f));
  CHECK_OK(cairn_file_lock(f, CAIRN_LOCK_READ, 0));
  CHECK_RC(cairn_file_lock(f, CAIRN_LOCK_WRITE, 0), CAIRN_BUSY);
  CHECK(strstr(cairn_errmsg(), "cairn-lock pid=1 host=h") != NULL);
  CHECK(remove(zLock) == 0);
  CHECK_OK(cairn_file_lock(f, CAIRN_LOCK_WRITE, 0));
  CHECK_OK(cairn_file_close(f));
}

/* A WASI reader announces itself to native writers: a marker in "<file>.cairn-readers/" while it
** holds the reader lock, gone (with the directory) when it lets go or closes. */
TEST(lock, wasi_reader_marker) {
  const char *zPath = tfTmp("lock_wasi_reader.bin");
  char zDir[1100];
  snprintf(zDir, sizeof zDir, "%s.cairn-readers", zPath);
  CHECK_OK(tfWriteFile(zPath, "data", 4));
  cairn_file *f = NULL;
  CHECK_OK(cairn_open(zPath, CAIRN_OPEN_READONLY, &f));
  struct stat st;
  CHECK(stat(zDir, &st) != 0); /* opening alone makes none */
  CHECK_OK(cairn_file_lock(f, CAIRN_LOCK_READ, 0));
  DIR *d = opendir(zDir);
  CHECK(d != NULL);
  int nMarker = 0;
  char zContent[64] = {0};
  for (struct dirent *e; d && (e = readdir(d)) != NULL;)
    if (strncmp(e->d_name, "wasi.", 5) == 0) {
      char zM[1300];
      snprintf(zM, sizeof zM, "%s/%s", zDir, e->d_name);
      size_t nGot = 0;
      uint8_t *p = tfReadFile(zM, &nGot);
      if (p) memcpy(zContent, p, nGot < 63 ? nGot : 63), cairn_free(p);
      nMarker++;
    }
  if (d) closedir(d);
  CHECK_EQ(nMarker, 1);
  CHECK(strncmp(zContent, "cairn-reader wasi id=", 21) == 0);
  CHECK_OK(cairn_file_unlock(f, CAIRN_LOCK_NONE));
  CHECK(stat(zDir, &st) != 0);
  CHECK_OK(cairn_file_lock(f, CAIRN_LOCK_READ, 0));
  CHECK(stat(zDir, &st) == 0);
  CHECK_OK(cairn_file_close(f));
  CHECK(stat(zDir, &st) != 0);
}
#endif
