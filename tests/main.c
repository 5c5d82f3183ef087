/*
** 2026-11-29
**
** tests/main.c - runner for the core test suites, identical on every target.
**   cairn_tests [--data DIR] [--tmp DIR] [--list] [SUITE[.TEST] ...]
** Installs the platform host (POSIX natively and under Emscripten/NODERAWFS, WASI under WASI),
** runs the chosen tests (all by default) and prints "N passed, N failed".
*/
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "cairn/platform.h"
#include "tf.h"

typedef struct TfTest {
  const char *zSuite, *zName;
  tf_fn x;
} TfTest;

static TfTest aTest[1024];
static int nTest;
static int curFailed;
static const char *zDataDir = "../shared/data";
static const char *zTmpDir = "build/tmp";
static int gHaveData;

void tfRegister(const char *zSuite, const char *zName, tf_fn x) {
  if (nTest < (int)(sizeof(aTest) / sizeof(aTest[0]))) aTest[nTest++] = (TfTest){zSuite, zName, x};
}

void tfFail(const char *zFile, int line, const char *zFmt, ...) {
  va_list ap;
  va_start(ap, zFmt);
  fprintf(stdout, "    %s:%d: ", zFile, line);
  vfprintf(stdout, zFmt, ap);
  fprintf(stdout, "\n");
  va_end(ap);
  curFailed = 1;
}

static char zPathBuf[8][1024];
static int iPathBuf;
static const char *joinPath(const char *zDir, const char *zRel) {
  char *z = zPathBuf[iPathBuf++ & 7];
  snprintf(z, sizeof(zPathBuf[0]), "%s/%s", zDir, zRel);
  return z;
}
const char *tfData(const char *zRel) { return joinPath(zDataDir, zRel); }
const char *tfTmp(const char *zRel) { return joinPath(zTmpDir, zRel); }
int tfHaveData(void) { return gHaveData; }
int tfFailed(void) { return curFailed; }

uint8_t *tfReadFile(const char *zPath, size_t *pn) {
  cairn_file *f;
  uint64_t n;
  *pn = 0;
  if (cairn_open(zPath, CAIRN_OPEN_READONLY, &f) != CAIRN_OK) return NULL;
  if (cairn_file_size(f, &n) != CAIRN_OK) {
    cairn_file_close(f);
    return NULL;
  }
  uint8_t *p = cairn_malloc((size_t)n + 1);
  if (p && cairn_file_read_exact(f, p, (size_t)n, 0) != CAIRN_OK) {
    cairn_free(p);
    p = NULL;
  }
  cairn_file_close(f);
  if (p) *pn = (size_t)n;
  return p;
}

int tfWriteFile(const char *zPath, const void *p, size_t n) {
  cairn_file *f;
  int rc = cairn_open(zPath, CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE | CAIRN_OPEN_TRUNCATE, &f);
  if (rc) return rc;
  rc = cairn_file_write(f, p, n, 0);
  int rc2 = cairn_file_close(f);
  return rc ? rc : rc2;
}

void tfFillRandom(void *p, size_t n, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  uint8_t *a = p;
  for (size_t i = 0; i < n; i++) {
    if ((i & 7) == 0) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
    }
    a[i] = (uint8_t)(x >> (8 * (i & 7)));
  }
}

static int matches(const TfTest *t, int nArg, char **azArg) {
  if (nArg == 0) return 1;
  for (int i = 0; i < nArg; i++) {
    size_t ns = strlen(t->zSuite);
    if (strcmp(azArg[i], t->zSuite) == 0) return 1;
    if (strncmp(azArg[i], t->zSuite, ns) == 0 && azArg[i][ns] == '.' && strcmp(azArg[i] + ns + 1, t->zName) == 0)
      return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  char *azSel[64];
  int nSel = 0, list = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--data") == 0 && i + 1 < argc) zDataDir = argv[++i];
    else if (strcmp(argv[i], "--tmp") == 0 && i + 1 < argc) zTmpDir = argv[++i];
    else if (strcmp(argv[i], "--list") == 0) list = 1;
    else if (nSel < 64) azSel[nSel++] = argv[i];
  }
  if (list) {
    for (int i = 0; i < nTest; i++) printf("%s.%s\n", aTest[i].zSuite, aTest[i].zName);
    return 0;
  }
#ifdef __wasi__
  cairn_wasi_install();
#else
  cairn_posix_install(2);
#endif
  mkdir(zTmpDir, 0755);
  struct stat st;
  gHaveData = stat(zDataDir, &st) == 0;
  int nPass = 0, nFail = 0;
  for (int i = 0; i < nTest; i++) {
    if (!matches(&aTest[i], nSel, azSel)) continue;
    curFailed = 0;
    cairn_clearerr();
    cairn_cpu_disable(0);
    aTest[i].x();
    printf("%s %s.%s\n", curFailed ? "FAIL" : "ok  ", aTest[i].zSuite, aTest[i].zName);
    fflush(stdout);
    if (curFailed) nFail++;
    else nPass++;
  }
  if (nPass + nFail == 0) {
    printf("no test matched\n");
    return 1;
  }
  printf("%d passed, %d failed\n", nPass, nFail);
#ifndef __wasi__
  cairn_posix_shutdown();
#endif
  return nFail ? 1 : 0;
}
