/*
** 2026-12-02
**
** tests/interop/lockprobe.c - a tiny program for the lock tests (tests/interop/locks_h5py.sh):
**   cairn_lockprobe read|write PATH [--hold]
**   cairn_lockprobe noreaders PATH      (a writer asks cairn_file_no_readers: OK or BUSY)
**   cairn_lockprobe bench PATH [N]      (the cost of a lock + unlock, N times each level)
** opens PATH through the POSIX host (read-only for read, read-write for write), takes
** cairn_file_lock at that level (no busy timeout) and prints "OK" or "BUSY: <message>" (exit 0 /
** 1; another error: its name, exit 2). With --hold it keeps the lock after "OK" until its stdin
** closes (or it is killed), so a script can try the other side meanwhile.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cairn/cairn.h"
#include "cairn/platform.h"

static double nowNs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* open + close alone, open + READ lock + unlock + close, and lock + unlock on an open handle. */
static int bench(const char *zPath, int n) {
  cairn_file *f = NULL;
  double t0 = nowNs();
  for (int i = 0; i < n; i++) {
    if (cairn_open(zPath, CAIRN_OPEN_READONLY, &f)) return 2;
    cairn_file_close(f);
  }
  double tOpen = (nowNs() - t0) / n;
  t0 = nowNs();
  for (int i = 0; i < n; i++) {
    if (cairn_open(zPath, CAIRN_OPEN_READONLY, &f) || cairn_file_lock(f, CAIRN_LOCK_READ, 0)) return 2;
    cairn_file_unlock(f, CAIRN_LOCK_NONE);
    cairn_file_close(f);
  }
  double tOpenLock = (nowNs() - t0) / n;
  printf("open+close %.0f ns, open+READ lock+unlock+close %.0f ns\n", tOpen, tOpenLock);
  const char *azLevel[] = {"", "READ", "WRITE"};
  for (int e = CAIRN_LOCK_READ; e <= CAIRN_LOCK_WRITE; e++) {
    if (cairn_open(zPath, CAIRN_OPEN_READWRITE, &f)) return 2;
    t0 = nowNs();
    for (int i = 0; i < n; i++) {
      if (cairn_file_lock(f, e, 0)) return 2;
      cairn_file_unlock(f, CAIRN_LOCK_NONE);
    }
    printf("%s lock+unlock %.0f ns\n", azLevel[e], (nowNs() - t0) / n);
    cairn_file_close(f);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "bench") == 0) {
    cairn_posix_install(1);
    int rc = bench(argv[2], argc > 3 ? atoi(argv[3]) : 20000);
    if (rc) printf("error: %s\n", cairn_errmsg());
    cairn_posix_shutdown();
    return rc;
  }
  if (argc >= 3 && strcmp(argv[1], "noreaders") == 0) {
    cairn_posix_install(1);
    cairn_file *f = NULL;
    int rc = cairn_open(argv[2], CAIRN_OPEN_READWRITE, &f);
    if (rc == CAIRN_OK) rc = cairn_file_lock(f, CAIRN_LOCK_WRITE, 0);
    if (rc == CAIRN_OK) rc = cairn_file_no_readers(f);
    if (rc == CAIRN_OK) printf("OK\n");
    else printf("%s: %s\n", rc == CAIRN_BUSY ? "BUSY" : cairn_errstr(rc), cairn_errmsg());
    if (f) cairn_file_close(f);
    cairn_posix_shutdown();
    return rc == CAIRN_OK ? 0 : rc == CAIRN_BUSY ? 1 : 2;
  }
  if (argc < 3 || (strcmp(argv[1], "read") != 0 && strcmp(argv[1], "write") != 0)) {
    fprintf(stderr, "usage: cairn_lockprobe read|write|noreaders PATH [--hold]\n");
    return 2;
  }
  int bWrite = argv[1][0] == 'w', bHold = argc > 3 && strcmp(argv[3], "--hold") == 0;
  cairn_posix_install(1);
  cairn_file *f = NULL;
  int rc = cairn_open(argv[2], bWrite ? CAIRN_OPEN_READWRITE : CAIRN_OPEN_READONLY, &f);
  if (rc == CAIRN_OK) rc = cairn_file_lock(f, bWrite ? CAIRN_LOCK_WRITE : CAIRN_LOCK_READ, 0);
  if (rc == CAIRN_OK) printf("OK\n");
  else printf("%s: %s\n", rc == CAIRN_BUSY ? "BUSY" : cairn_errstr(rc), cairn_errmsg());
  fflush(stdout);
  if (rc == CAIRN_OK && bHold) {
    char c;
    while (read(0, &c, 1) > 0) {
    }
  }
  cairn_file_close(f);
  cairn_posix_shutdown();
  return rc == CAIRN_OK ? 0 : rc == CAIRN_BUSY ? 1 : 2;
}
