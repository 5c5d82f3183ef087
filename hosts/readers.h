/*
** 2026-12-02
**
** hosts/readers.h - reader markers for hosts without cross-handle locks (WASI, and the POSIX
** host where it has no OFD locks: Emscripten's): a reader holding CAIRN_LOCK_READ leaves a file
** "<path>.cairn-readers/<kind>.<id>" holding "cairn-reader <kind> id=<id>", removed (with the
** directory, once empty) when it lets go; a writer asked CAIRN_LOCK_EXCLUSIVE ("are readers
** gone?") answers BUSY while any marker is there, its own handles' included, since none can be
** told dead from here (cairn/host.h, "Locking"). The native POSIX host writes and reads the same
** directory with process ids and tells dead readers by them (hosts/posix.c, readerMarkersBusy,
** through readersWalk). Header-only: each host includes it once.
*/
#ifndef CAIRN_HOSTS_READERS_H
#define CAIRN_HOSTS_READERS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cairn/cairn.h"

/* not every includer uses every function (the native POSIX host walks markers only) */
#define READERS_FN static __attribute__((unused))
#ifdef O_CLOEXEC
#define READERS_O_CLOEXEC O_CLOEXEC /* the native host has threads that may fork */
#else
#define READERS_O_CLOEXEC 0
#endif

/* Make this reader's marker for zPath (named by 8 random bytes); *pzMarker gets its path
** (malloc'd), or stays NULL where it cannot be made (best effort: a read-only directory). */
READERS_FN void readersMarkerTake(const char *zPath, const char *zKind, char **pzMarker) {
  uint8_t aId[8];
  if (*pzMarker || !zPath || getentropy(aId, sizeof aId) != 0) return;
  char zId[17];
  for (int i = 0; i < 8; i++) {
    zId[2 * i] = "0123456789abcdef"[aId[i] >> 4];
    zId[2 * i + 1] = "0123456789abcdef"[aId[i] & 15];
  }
  zId[16] = 0;
  size_t n = strlen(zPath) + strlen(zKind) + sizeof(".cairn-readers/.tmp..") + 17;
  char *zDir = malloc(n), *zTmp = malloc(n), *zMarker = malloc(n);
  if (zDir && zTmp && zMarker) {
    snprintf(zDir, n, "%s.cairn-readers", zPath);
    snprintf(zTmp, n, "%s/.tmp.%s.%s", zDir, zKind, zId);
    snprintf(zMarker, n, "%s/%s.%s", zDir, zKind, zId);
    for (int iTry = 0; iTry < 4; iTry++) {
      if (mkdir(zDir, 0755) != 0 && errno != EEXIST) break;
      int fd = open(zTmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0) {
        if (errno == ENOENT) continue; /* the empty directory was removed meanwhile */
        break;
      }
      char z[96];
      int k = snprintf(z, sizeof z, "cairn-reader %s id=%s\n", zKind, zId);
      ssize_t w = write(fd, z, (size_t)k);
      close(fd);
      if (w == k && rename(zTmp, zMarker) == 0) {
        *pzMarker = zMarker;
        zMarker = NULL;
      } else {
        unlink(zTmp);
      }
      break;
    }
  }
  free(zDir);
  free(zTmp);
  free(zMarker);
}

READERS_FN void readersMarkerDrop(char **pzMarker) {
  char *z = *pzMarker;
  if (!z) return;
  unlink(z);
  char *zSlash = strrchr(z, '/');
  if (zSlash) {
    *zSlash = 0;
    rmdir(z); /* fails while other readers are there: fine */
  }
  free(z);
  *pzMarker = NULL;
}

/* Walk the marker directory zDir: CAIRN_OK when it holds no marker of a live reader, else
** CAIRN_BUSY naming the first one and its line (zName: the file's name for the message). xGone
** (may be NULL: no reader can be told dead) is given a marker's first line and answers nonzero
** when its reader is known gone: that marker is removed and does not count. Markers being made
** (".tmp...") are not counted. A marker or directory that is there but cannot be read counts as
** a live reader (BUSY): a writer must not reuse space under a reader it cannot see. */
READERS_FN int readersWalk(const char *zDir, const char *zName, int (*xGone)(const char *zLine)) {
  DIR *d = opendir(zDir);
  if (!d) {
    if (errno == ENOENT || errno == ENOTDIR) return CAIRN_OK;
    return cairn_seterr(CAIRN_BUSY, "%s has readers (cannot list %s: %s)", zName, zDir, strerror(errno));
  }
  int rc = CAIRN_OK;
  struct dirent *e;
  while (rc == CAIRN_OK && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    size_t n = strlen(zDir) + strlen(e->d_name) + 2;
    char *zMarker = malloc(n), zLine[320];
    if (!zMarker) {
      rc = cairn_seterr(CAIRN_NOMEM, "%s: out of memory", zName);
      break;
    }
    snprintf(zMarker, n, "%s/%s", zDir, e->d_name);
    int fd = open(zMarker, O_RDONLY | READERS_O_CLOEXEC);
    ssize_t k = fd < 0 ? -1 : read(fd, zLine, sizeof zLine - 1);
    if (fd >= 0) close(fd);
    if (fd < 0 && errno == ENOENT) { /* removed meanwhile */
      free(zMarker);
      continue;
    }
    zLine[k > 0 ? k : 0] = 0;
    zLine[strcspn(zLine, "\n")] = 0;
    if (xGone && k > 0 && xGone(zLine)) unlink(zMarker);
    else rc = cairn_seterr(CAIRN_BUSY, "%s has readers (%s: \"%s\")", zName, zMarker, zLine);
    free(zMarker);
  }
  closedir(d);
  return rc;
}

/* CAIRN_OK when no marker for zPath exists, else CAIRN_BUSY naming one. */
READERS_FN int readersNone(const char *zPath, const char *zName) {
  if (!zPath) return CAIRN_OK;
  size_t n = strlen(zPath) + sizeof(".cairn-readers");
  char *zDir = malloc(n);
  if (!zDir) return cairn_seterr(CAIRN_NOMEM, "%s: out of memory", zName);
  snprintf(zDir, n, "%s.cairn-readers", zPath);
  int rc = readersWalk(zDir, zName, NULL);
  free(zDir);
  return rc;
}

#endif
