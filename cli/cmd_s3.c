/*
** 2026-12-02
**
** cli/cmd_s3.c - s3:// URLs in the cairn CLI (native builds with libcurl: CAIRN_WITH_S3):
**   every command that opens a file by name reads s3://BUCKET/KEY (cairn ls, dump, info, hash...):
**     cliS3Install wraps the host's xOpen so that such a name opens hosts/s3.c's read-only,
**     block-cached file, and gives the host's pool more threads (chunk reads are range GETs that
**     wait on the network, not on a core: CAIRN_S3_THREADS, default 16);
**   cairn store put|get|ls|verify|push|pull --store S   the chunk store, S a local store file or
**     s3://BUCKET/PREFIX (core/cas/remote.c; layout in core/cas/FORMAT.md);
**   CAIRN_S3_STATS=1 prints the requests made and bytes fetched on stderr at exit.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifndef CAIRN_WITH_S3
#define CAIRN_WITH_S3 0
#endif

#if CAIRN_WITH_S3
#include "cairn/objstore.h"
#include "cairn/platform.h"

static int (*gPrevOpen)(void *, const char *, int, cairn_file **);

static int s3Open(void *pCtx, const char *zPath, int flags, cairn_file **pp) {
  if (cairn_s3_is_url(zPath)) {
    if (flags & (CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE))
      return cairn_seterr(CAIRN_UNSUPPORTED, "s3: %s: objects are read here, not written in place "
                          "(publish with cairn store put --store s3://...)", zPath);
    return cairn_s3_file_open(zPath, NULL, pp);
  }
  if (!gPrevOpen) return cairn_seterr(CAIRN_UNSUPPORTED, "no host opens %s", zPath);
  return gPrevOpen(pCtx, zPath, flags, pp);
}

static void s3Stats(void) {
  cairn_s3_counters k;
  cairn_s3_get_counters(&k);
  if (!k.nRequest) return;
  fprintf(stderr, "s3: %llu requests (%llu GET, %llu PUT, %llu HEAD, %llu LIST), %llu bytes fetched, %llu sent, %llu retries\n",
          (unsigned long long)k.nRequest, (unsigned long long)k.nGet, (unsigned long long)k.nPut,
          (unsigned long long)k.nHead, (unsigned long long)k.nList, (unsigned long long)k.nBytesIn,
          (unsigned long long)k.nBytesOut, (unsigned long long)k.nRetry);
}

/* The hook main() calls once the platform host is installed. */
void cliS3Install(int argc, char **argv) {
  int any = 0;
  for (int i = 1; i < argc && !any; i++) any = cairn_s3_is_url(argv[i]);
  if (!any) return;
  const char *z = getenv("CAIRN_S3_THREADS");
  unsigned n = z && atoi(z) > 0 ? (unsigned)atoi(z) : 16;
  cairn_posix_install(n);
  cairn_host h = *cairn_host_get();
  gPrevOpen = h.xOpen;
  h.xOpen = s3Open;
  cairn_host_set(&h);
  if (getenv("CAIRN_S3_STATS") && *getenv("CAIRN_S3_STATS") && strcmp(getenv("CAIRN_S3_STATS"), "0") != 0) atexit(s3Stats);
}
#else
void cliS3Install(int argc, char **argv) { (void)argc, (void)argv; }
#endif
