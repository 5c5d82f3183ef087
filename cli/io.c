/*
** 2026-12-02
**
** cli/io.c - how the CLI reads inputs and writes outputs so that it never destroys one:
**   inputs   "-" is standard input; a pipe, FIFO or character device (`<(...)`, mkfifo) is read
**            to its end first (natively into an unlinked temporary file, under WASI into
**            memory), since the core's streams ask a file for its size;
**   outputs  "-" is standard output (and an existing FIFO or device is written in place), both
**            written sequentially; a file is written under a temporary name beside it and renamed
**            over it only on success, so a failed command leaves no partial output; an output
**            that is an input (same device and inode, else the same path) is refused with zstd's
**            words; an existing output is replaced only with -f (or by commands that always did).
** Plain POSIX calls (stat, rename, unlink, read, write), which wasi-libc also has: the CLI is a
** front end, not the core, and the host interface has no rename or stat (yet).
*/
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* ---- a cairn_file over a file descriptor: pread natively for spooled input, sequential writes
** for a stream output ---- */
typedef struct FdFile {
  cairn_file base;
  int fd, bOwn;
  uint64_t iPos; /* stream output: bytes written so far */
} FdFile;

static int fdErr(const char *zWhat) { return cairn_seterr(CAIRN_IOERR, "%s: %s", zWhat, strerror(errno)); }

static int fdRead(cairn_file *f, void *p, size_t n, uint64_t iOff, size_t *pnRead) {
  FdFile *x = (FdFile *)f;
  size_t got = 0;
  while (got < n) {
    ssize_t k = pread(x->fd, (char *)p + got, n - got, (off_t)(iOff + got));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return fdErr("read");
    if (k == 0) break;
    got += (size_t)k;
  }
  memset((char *)p + got, 0, n - got);
  if (pnRead) *pnRead = got;
  else if (got < n) return cairn_seterr(CAIRN_IOERR_SHORT_READ, "short read at offset %llu", (unsigned long long)iOff);
  return CAIRN_OK;
}
static int fdWrite(cairn_file *f, const void *p, size_t n, uint64_t iOff) {
  FdFile *x = (FdFile *)f;
  if (iOff != x->iPos) return cairn_seterr(CAIRN_UNSUPPORTED, "this output is a stream: it is written in order only");
  for (size_t done = 0; done < n;) {
    ssize_t k = write(x->fd, (const char *)p + done, n - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return fdErr("write");
    done += (size_t)k;
  }
  x->iPos += n;
  return CAIRN_OK;
}
static int fdSize(cairn_file *f, uint64_t *pn) {
  FdFile *x = (FdFile *)f;
  struct stat st;
  if (fstat(x->fd, &st) != 0) return fdErr("fstat");
  *pn = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : x->iPos;
  return CAIRN_OK;
}
static int fdTruncate(cairn_file *f, uint64_t n) {
  FdFile *x = (FdFile *)f;
  if (n == x->iPos) return CAIRN_OK; /* the end of a stream output */
  return cairn_seterr(CAIRN_UNSUPPORTED, "this output is a stream: it cannot be truncated");
}
static int fdSync(cairn_file *f) { return CAIRN_OK; }
static int fdClose(cairn_file *f) {
  FdFile *x = (FdFile *)f;
  int rc = x->bOwn && close(x->fd) != 0 ? fdErr("close") : CAIRN_OK;
  free(x);
  return rc;
}
/* Version 1: a pipe or terminal has nothing to lock. */
static const cairn_file_methods fdMethods = {1, fdRead, fdWrite, fdSize, fdTruncate, fdSync, fdClose, NULL, NULL, NULL, NULL};

static int fdFile(int fd, int bOwn, cairn_file **pp) {
  FdFile *x = calloc(1, sizeof *x);
  if (!x) {
    if (bOwn) close(fd);
    return cairn_seterr(CAIRN_NOMEM, "out of memory");
  }
  x->base.pMethods = &fdMethods;
  x->fd = fd, x->bOwn = bOwn;
  *pp = &x->base;
  return CAIRN_OK;
}

/* ---- inputs ---- */
/* Read fd to its end into a file that knows its size. */
static int spool(int fd, const char *zName, cairn_file **pp) {
  cairn_file *f = NULL;
  int t = -1, rc = CAIRN_OK;
#ifndef __wasi__
  const char *zDir = getenv("TMPDIR");
  char zPath[4096];
  snprintf(zPath, sizeof zPath, "%s/cairn-in-XXXXXX", zDir && *zDir ? zDir : "/tmp");
  if ((t = mkstemp(zPath)) >= 0) unlink(zPath); /* gone when closed */
#endif
  if (t < 0) rc = cairn_memfile_open(NULL, 0, &f); /* WASI, or no temporary directory: memory */
  size_t nBuf = 1 << 20;
  char *buf = rc ? NULL : malloc(nBuf);
  if (!rc && !buf) rc = cairn_seterr(CAIRN_NOMEM, "out of memory");
  for (uint64_t n = 0; rc == CAIRN_OK;) {
    ssize_t k = read(fd, buf, nBuf);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) { /* a non-blocking pipe (Node's WASI stdin) */
      struct pollfd pf = {fd, POLLIN, 0};
      if (poll(&pf, 1, 100) < 0) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
      }
      continue;
    }
    if (k < 0) rc = cairn_seterr(CAIRN_IOERR, "%s: read: %s", zName, strerror(errno));
    if (k <= 0) break;
    if (t < 0) rc = cairn_file_write(f, buf, (size_t)k, n);
    for (ssize_t done = 0; t >= 0 && done < k && rc == CAIRN_OK;) {
      ssize_t w = write(t, buf + done, (size_t)(k - done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) rc = fdErr("temporary file for the input");
      else done += w;
    }
    n += (uint64_t)k;
  }
  free(buf);
  if (rc == CAIRN_OK && t >= 0) return fdFile(t, 1, pp);
  if (t >= 0) close(t);
  if (rc) {
    cairn_file_close(f);
    return rc;
  }
  *pp = f;
  return CAIRN_OK;
}

/* A regular file by path through the host, anything else (stdin, pipes, FIFOs, devices) spooled. */
static int inputOpen(const char *zPath, cairn_file **pp) {
  *pp = NULL;
  if (strcmp(zPath, "-") == 0) return spool(0, "standard input", pp);
  struct stat st;
  if (stat(zPath, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    int fd = open(zPath, O_RDONLY);
    if (fd < 0) return cairn_seterr(CAIRN_IOERR, "cannot open %s: %s", zPath, strerror(errno));
    int rc = spool(fd, zPath, pp);
    close(fd);
    return rc;
  }
  return cairn_open(zPath, CAIRN_OPEN_READONLY, pp);
}

int cliOpenRead(const char *zCmd, const char *zPath, cairn_file **pp) {
  int rc = inputOpen(zPath, pp);
  return rc ? cliFail(zCmd, rc) : 0;
}
int cliInput(const char *zPath, cairn_file **pp) { return inputOpen(zPath, pp); }

/* ---- outputs ---- */
static int samePath(const char *zA, const char *zB) {
  struct stat a, b;
  if (stat(zA, &a) == 0 && stat(zB, &b) == 0) return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
  return strcmp(zA, zB) == 0;
}

int cliOutOpen(const char *zCmd, const char *zOut, const char *const *azIn, int nIn, int flags, CliOut *o) {
  memset(o, 0, sizeof *o);
  o->zCmd = zCmd;
  o->zPath = zOut;
  if (strcmp(zOut, "-") == 0) {
    if (flags & CLI_OUT_SEEK) return cliUsage(zCmd, "cannot write this output to standard output (it is not written in order)");
    fflush(stdout);
    int rc = fdFile(1, 0, &o->f);
    return rc ? cliFail(zCmd, rc) : 0;
  }
  for (int i = 0; i < nIn; i++)
    if (azIn[i] && strcmp(azIn[i], "-") != 0 && samePath(azIn[i], zOut)) {
      fprintf(stderr, "cairn: %s: %s: Refusing to open an output file which will overwrite the input file\n", zCmd, zOut);
      return 1;
    }
  struct stat st;
  if (stat(zOut, &st) == 0) {
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) { /* a FIFO or a device: written in place */
      if (flags & CLI_OUT_SEEK) return cliUsage(zCmd, "%s is not a regular file", zOut);
      int fd = open(zOut, O_WRONLY);
      int rc = fd < 0 ? cairn_seterr(CAIRN_IOERR, "cannot open %s: %s", zOut, strerror(errno)) : fdFile(fd, 1, &o->f);
      return rc ? cliFail(zCmd, rc) : 0;
    }
    if (!(flags & (CLI_OUT_FORCE | CLI_OUT_REPLACE))) {
      fprintf(stderr, "cairn: %s: %s already exists; not overwritten (-f replaces it)\n", zCmd, zOut);
      return 1;
    }
  }
  size_t n = strlen(zOut) + 32;
  o->zTmp = malloc(n);
  if (!o->zTmp) return cliFail(zCmd, cairn_seterr(CAIRN_NOMEM, "out of memory"));
  int rc = CAIRN_EXISTS;
  for (int i = 0; i < 100 && rc == CAIRN_EXISTS; i++) {
    snprintf(o->zTmp, n, "%s.cairn-part%d", zOut, i);
    rc = cairn_open(o->zTmp, CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE | CAIRN_OPEN_EXCLUSIVE, &o->f);
  }
  if (rc) {
    free(o->zTmp);
    o->zTmp = NULL;
    return cliFail(zCmd, rc);
  }
  return 0;
}

int cliOutClose(CliOut *o, int rc) {
  if (rc == CAIRN_OK && o->zTmp) rc = cairn_file_sync(o->f);
  int rc2 = cairn_file_close(o->f);
  o->f = NULL;
  if (rc == CAIRN_OK) rc = rc2;
  if (o->zTmp) {
    if (rc == CAIRN_OK && rename(o->zTmp, o->zPath) != 0)
      rc = cairn_seterr(CAIRN_IOERR, "cannot rename %s to %s: %s", o->zTmp, o->zPath, strerror(errno));
    if (rc) unlink(o->zTmp);
    free(o->zTmp);
    o->zTmp = NULL;
  }
  return rc;
}

/* A JSON string on stdout ("..." with \" \\ and \u00XX escapes); NULL is null. */
void cliJsonStr(const char *z) {
  if (!z) {
    fputs("null", stdout);
    return;
  }
  putchar('"');
  for (; *z; z++) {
    if (*z == '"' || *z == '\\') printf("\\%c", *z);
    else if ((unsigned char)*z < 0x20) printf("\\u%04x", (unsigned char)*z);
    else putchar(*z);
  }
  putchar('"');
}

/* --json anywhere in argv: removed, 1 returned. */
int cliTakeJson(int *pArgc, char **argv) {
  int json = 0, n = 1;
  for (int i = 1; i < *pArgc; i++)
    if (strcmp(argv[i], "--json") == 0) json = 1;
    else argv[n++] = argv[i];
  argv[n] = NULL;
  *pArgc = n;
  return json;
}
