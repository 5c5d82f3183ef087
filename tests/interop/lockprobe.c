/*
** 2026-12-02
**
** tests/interop/lockprobe.c - a tiny program for the lock tests (tests/interop/locks_h5py.sh):
**   cairn_lockprobe read|write PATH [--hold]
** opens PATH through the POSIX host (read-only for read, read-write for write), takes
** cairn_file_lock at that level (no busy timeout) and prints "OK" or "BUSY: <message>" (exit 0 /
** 1; another error: its name, exit 2). With --hold it keeps the lock after "OK" until its stdin
** closes (or it is killed), so a script can try the other side meanwhile.
*/
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cairn/cairn.h"
#include "cairn/platform.h"

int main(int argc, char **argv) {
  if (argc < 3 || (strcmp(argv[1], "read") != 0 && strcmp(argv[1], "write") != 0)) {
    fprintf(stderr, "usage: cairn_lockprobe read|write PATH [--hold]\n");
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
