/*
** 2026-11-29
**
** tests/fuzz/replay.c - the driver every fuzz target links by default, so plain CI reruns the
** corpus and a deterministic set of mutations without libFuzzer:
**   fuzz_X [--mutations N] [--seed S] DIR_OR_FILE...
** Each file is fed as is, then N mutated copies (bit flips, byte sets, truncations, inserted
** runs, and 32-bit fields set to extreme values) per file. A crash, a sanitizer report or a hang
** (ctest timeout) is a failure. Build with clang -fsanitize=fuzzer and without this file to fuzz
** for real (scripts/fuzz.sh).
*/
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cairn/platform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static long nRun;

static void mutateAndRun(const uint8_t *p, size_t n, int nMut) {
  LLVMFuzzerTestOneInput(p, n);
  nRun++;
  size_t cap = n + 64;
  uint8_t *q = malloc(cap);
  for (int m = 0; m < nMut; m++) {
    memcpy(q, p, n);
    size_t k = n;
    int nEdit = 1 + (int)(next() % 4);
    for (int e = 0; e < nEdit; e++) {
      switch (next() % 6) {
        case 0: if (k) q[next() % k] ^= (uint8_t)(1u << (next() % 8)); break;
        case 1: if (k) q[next() % k] = (uint8_t)next(); break;
        case 2: if (k) k = next() % k; break; /* truncate */
        case 3: if (k >= 4) { size_t i = next() % (k - 3); uint32_t v = (next() & 1) ? 0xFFFFFFFFu : 0x7FFFFFFFu; memcpy(q + i, &v, 4); } break;
        case 4: if (k) { size_t i = next() % k; q[i] = (uint8_t)(q[i] + 1); } break;
        case 5: if (k + 16 <= cap) { size_t i = k ? next() % k : 0; memmove(q + i + 16, q + i, k - i); memset(q + i, (int)(next() & 0xff), 16); k += 16; } break;
      }
    }
    LLVMFuzzerTestOneInput(q, k);
    nRun++;
  }
  free(q);
}

static void runPath(const char *zPath, int nMut) {
  struct stat st;
  if (stat(zPath, &st) != 0) {
    fprintf(stderr, "fuzz replay: cannot stat %s\n", zPath);
    exit(2);
  }
  if (S_ISDIR(st.st_mode)) {
    DIR *d = opendir(zPath);
    struct dirent *e;
    char **az = NULL;
    size_t nz = 0;
    while (d && (e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.') continue;
      az = realloc(az, (nz + 1) * sizeof(char *));
      size_t l = strlen(zPath) + strlen(e->d_name) + 2;
      az[nz] = malloc(l);
      snprintf(az[nz], l, "%s/%s", zPath, e->d_name);
      nz++;
    }
    if (d) closedir(d);
    for (size_t i = 0; i < nz; i++) {
      runPath(az[i], nMut);
      free(az[i]);
    }
    free(az);
    return;
  }
  FILE *f = fopen(zPath, "rb");
  if (!f) return;
  uint8_t *p = malloc((size_t)st.st_size + 1);
  size_t n = fread(p, 1, (size_t)st.st_size, f);
  fclose(f);
  mutateAndRun(p, n, nMut);
  free(p);
}

int main(int argc, char **argv) {
  int nMut = 200;
  cairn_posix_install(1);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--mutations") == 0 && i + 1 < argc) nMut = atoi(argv[++i]);
    else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) rng ^= strtoull(argv[++i], NULL, 10) * 0x2545F4914F6CDD1Dull;
    else runPath(argv[i], nMut);
  }
  printf("fuzz replay: %ld inputs, no crash\n", nRun);
  cairn_posix_shutdown();
  return 0;
}
