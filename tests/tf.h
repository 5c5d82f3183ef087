/*
** 2026-11-29
**
** tests/tf.h - the tiny test framework behind tests/core/. The same sources build into one
** program per target (native, WASI, Emscripten), so it uses only stdio and the cairn host.
**
**   TEST(suite, name) { CHECK(x); CHECK_EQ(a, b); CHECK_OK(rc); }
**
** Suites must be listed in tests/suites.txt (ctest makes one entry per suite; the runner fails
** if a registered suite is missing there). The runner prints "N passed, N failed".
*/
#ifndef CAIRN_TF_H
#define CAIRN_TF_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cairn/cairn.h"

typedef void (*tf_fn)(void);
void tfRegister(const char *zSuite, const char *zName, tf_fn x);
void tfFail(const char *zFile, int line, const char *zFmt, ...);
/* Paths: tfData("fastcdc/x") under the shared data dir; tfTmp("x") under a scratch dir. */
const char *tfData(const char *zRel);
const char *tfTmp(const char *zRel);
/* Read a whole file through the host (NULL on failure); caller frees with cairn_free. */
uint8_t *tfReadFile(const char *zPath, size_t *pn);
int tfWriteFile(const char *zPath, const void *p, size_t n);
/* Deterministic bytes (xorshift) for inputs. */
void tfFillRandom(void *p, size_t n, uint64_t seed);
/* Is the shared data directory there? Tests that need it fail (not skip) if it is missing. */
int tfHaveData(void);
int tfFailed(void); /* the current test has failed a check */

#define TEST(suite, name)                                                                    \
  static void tf_##suite##_##name(void);                                                     \
  __attribute__((constructor)) static void tfreg_##suite##_##name(void) {                    \
    tfRegister(#suite, #name, tf_##suite##_##name);                                          \
  }                                                                                          \
  static void tf_##suite##_##name(void)

#define CHECK(x)                                                                             \
  do {                                                                                       \
    if (!(x)) {                                                                              \
      tfFail(__FILE__, __LINE__, "CHECK(%s) failed", #x);                                    \
      return;                                                                                \
    }                                                                                        \
  } while (0)
#define CHECK_EQ(a, b)                                                                       \
  do {                                                                                       \
    long long a_ = (long long)(a), b_ = (long long)(b);                                      \
    if (a_ != b_) {                                                                          \
      tfFail(__FILE__, __LINE__, "CHECK_EQ(%s, %s): %lld != %lld", #a, #b, a_, b_);          \
      return;                                                                                \
    }                                                                                        \
  } while (0)
#define CHECK_OK(x)                                                                          \
  do {                                                                                       \
    int rc_ = (x);                                                                           \
    if (rc_ != CAIRN_OK) {                                                                   \
      tfFail(__FILE__, __LINE__, "%s -> %s: %s", #x, cairn_errstr(rc_), cairn_errmsg());     \
      return;                                                                                \
    }                                                                                        \
  } while (0)
#define CHECK_RC(x, want)                                                                    \
  do {                                                                                       \
    int rc_ = (x);                                                                           \
    if (rc_ != (want)) {                                                                     \
      tfFail(__FILE__, __LINE__, "%s -> %s (want %s): %s", #x, cairn_errstr(rc_),            \
             cairn_errstr(want), cairn_errmsg());                                            \
      return;                                                                                \
    }                                                                                        \
  } while (0)
#define CHECK_MEM(a, b, n)                                                                   \
  do {                                                                                       \
    if (memcmp((a), (b), (n)) != 0) {                                                        \
      tfFail(__FILE__, __LINE__, "CHECK_MEM(%s, %s, %s): bytes differ", #a, #b, #n);         \
      return;                                                                                \
    }                                                                                        \
  } while (0)
#define CHECK_STR(a, b)                                                                      \
  do {                                                                                       \
    const char *a_ = (a), *b_ = (b);                                                         \
    if (strcmp(a_, b_) != 0) {                                                               \
      tfFail(__FILE__, __LINE__, "CHECK_STR(%s, %s): \"%s\" != \"%s\"", #a, #b, a_, b_);     \
      return;                                                                                \
    }                                                                                        \
  } while (0)

#endif
