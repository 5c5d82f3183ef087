/*
** 2026-11-30
**
** bench/h5/phases.c FILE [N] - where a small file's open + get + read + close spends its cycles
** (x86-64: rdtsc around each call), next to the floor in the same loop: open, one 8 KiB pread
** and close alone. Prints the mean cycles per phase over N iterations (after N to warm up):
**
**   open       cairn_open (the open system call and the host's file struct)
**   h5open     cairn_h5_open: handle, first read (the pread), superblock
**   get        cairn_h5_get "/x": path lookup and dataset load
**   read       cairn_h5_read of all of it as f32
**   oclose     cairn_h5_obj_close
**   h5close    cairn_h5_close (not the file: opened without CAIRN_H5_OWN_FILE)
**   fclose     cairn_file_close (the close system call)
**
** cairn's own cost is h5open - pread + get + read + oclose + h5close + fclose - close. Build:
**   cc -O2 -o phases bench/h5/phases.c -Icore/include build/native/libcairn.a -lzstd -lz -lpthread
** Timings move with the machine's load: compare builds alternately (run A, B, A, B...).
*/
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <x86intrin.h>

#include "cairn/cairn.h"
#include "cairn/platform.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: phases FILE [N]\n");
    return 1;
  }
  const char *zFile = argv[1];
  int n = argc > 2 ? atoi(argv[2]) : 50000;
  cairn_posix_install(1);
  static float out[1024];
  static char b[8192];
  double acc[7] = {0}, fl[3] = {0};
  for (int pass = 0; pass < 2; pass++) /* the first pass warms up */
    for (int i = 0; i < n; i++) {
      cairn_h5 *h;
      cairn_h5_obj *o;
      cairn_file *f;
      unsigned long long t[8];
      t[0] = __rdtsc();
      if (cairn_open(zFile, CAIRN_OPEN_READONLY, &f)) goto fail;
      t[1] = __rdtsc();
      if (cairn_h5_open(f, 0, &h)) goto fail;
      t[2] = __rdtsc();
      if (cairn_h5_get(h, "/x", &o)) goto fail;
      t[3] = __rdtsc();
      if (cairn_h5_read(o, NULL, CAIRN_H5_F32, out, sizeof out)) goto fail;
      t[4] = __rdtsc();
      cairn_h5_obj_close(o);
      t[5] = __rdtsc();
      cairn_h5_close(h);
      t[6] = __rdtsc();
      cairn_file_close(f);
      t[7] = __rdtsc();
      unsigned long long u0 = __rdtsc();
      int fd = open(zFile, O_RDONLY | O_CLOEXEC);
      unsigned long long u1 = __rdtsc();
      if (fd < 0 || pread(fd, b, sizeof b, 0) < 0) goto fail;
      unsigned long long u2 = __rdtsc();
      close(fd);
      unsigned long long u3 = __rdtsc();
      if (pass) {
        for (int k = 0; k < 7; k++) acc[k] += (double)(t[k + 1] - t[k]);
        fl[0] += (double)(u1 - u0), fl[1] += (double)(u2 - u1), fl[2] += (double)(u3 - u2);
      }
    }
  for (int k = 0; k < 7; k++) acc[k] /= n;
  for (int k = 0; k < 3; k++) fl[k] /= n;
  printf("open %5.0f h5open %5.0f get %5.0f read %5.0f oclose %4.0f h5close %4.0f fclose %5.0f | floor open %5.0f pread %5.0f close %5.0f\n",
         acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], fl[0], fl[1], fl[2]);
  printf("cairn's own: %.0f cycles (h5open - pread + get + read + oclose + h5close + fclose - close)\n",
         acc[1] - fl[1] + acc[2] + acc[3] + acc[4] + acc[5] + acc[6] - fl[2]);
  cairn_posix_shutdown();
  return 0;
fail:
  fprintf(stderr, "phases: %s\n", cairn_errmsg());
  return 1;
}
