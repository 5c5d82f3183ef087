/*
** 2026-12-02
**
** bench/s3/h5read.c - read one HDF5 dataset whole (NATIVE, no text) from a local path or from
** s3://BUCKET/KEY through the S3 host, and print "seconds bytes-of-dataset bytes-fetched requests".
** Built by bench/s3/run.sh against build/native/libcairn.a and libcairn_s3.a (libcurl).
**   h5read FILE|s3://B/K DATASET [THREADS]
*/
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cairn/cairn.h"
#include "cairn/h5.h"
#include "cairn/objstore.h"
#include "cairn/platform.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: h5read FILE|s3://B/K DATASET [THREADS]\n"), 2;
  cairn_posix_install(argc > 3 ? (unsigned)atoi(argv[3]) : 16);
  double t0 = now();
  cairn_file *f = NULL;
  int rc = cairn_s3_is_url(argv[1]) ? cairn_s3_file_open(argv[1], NULL, &f) : cairn_posix_open(argv[1], CAIRN_OPEN_READONLY, &f);
  cairn_h5 *h = NULL;
  cairn_h5_obj *o = NULL;
  cairn_h5_info info;
  if (rc == CAIRN_OK) rc = cairn_h5_open(f, CAIRN_H5_OWN_FILE, &h);
  if (rc == CAIRN_OK) rc = cairn_h5_get(h, argv[2], &o);
  if (rc == CAIRN_OK) rc = cairn_h5_info_get(o, &info);
  size_t n = rc ? 0 : (size_t)(info.nElem * info.typeSize);
  void *buf = malloc(n ? n : 1);
  if (rc == CAIRN_OK) rc = cairn_h5_read(o, NULL, CAIRN_H5_NATIVE, buf, n);
  double t = now() - t0;
  if (rc) return fprintf(stderr, "h5read: %s\n", cairn_errmsg()), 1;
  cairn_s3_counters k;
  cairn_s3_get_counters(&k);
  printf("%.3f %zu %llu %llu\n", t, n, (unsigned long long)k.nBytesIn, (unsigned long long)k.nRequest);
  cairn_h5_obj_close(o);
  cairn_h5_close(h);
  free(buf);
  cairn_posix_shutdown();
  return 0;
}
