/*
** 2026-11-29
**
** core/common/internal.h - what every core module shares and the public API does not show:
** the error-macro family, invariant checks, allocation through the host, the growable array, little/big-endian field readers, checked
** arithmetic, and the ALWAYS/NEVER annotations.
**
** Core code includes only this header, the public headers, and pure libc headers
** (string.h, stdint.h, stddef.h, limits.h, math.h, stdlib.h for qsort). The CI step
** scripts/check-core-symbols.sh fails the build if a core object references anything else.
*/
#ifndef CAIRN_INTERNAL_H
#define CAIRN_INTERNAL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cairn/cairn.h"

/*
** Errors: one family, used by every module (the shape of zstd's error_private.h).
**   return cairnErr(CAIRN_CORRUPT, "what at offset %llu", ...);   raise: message + code
**   CAIRN_RETURN_ERROR_IF(cond, CAIRN_RANGE, "fmt", ...);         raise when cond holds
**   CAIRN_TRY(call);  (= CAIRN_FORWARD_IF_ERROR)                  pass a failure up unchanged
**   CAIRN_TRY_GOTO(rc, call, done);                               keep it in rc, go to cleanup
**   CAIRN_ERROR_GOTO(rc, done, CAIRN_NOMEM, "fmt", ...);          raise into rc, go to cleanup
** A function that owns resources has one cleanup label, `done:` (or `fail:` when the success
** path returns before it), reached with rc set. The message names what was wrong and where; in
** debug builds (CAIRN_DEBUG: Debug and sanitizer builds) cairnErr() also records the source
** file:line that raised it, which cairn_errloc() returns.
*/
#ifdef CAIRN_DEBUG
cairn_status cairnErrAt(const char *zFile, int iLine, cairn_status rc, const char *zFmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((cold, format(printf, 4, 5)))
#endif
    ;
#define cairnErr(...) cairnErrAt(__FILE__, __LINE__, __VA_ARGS__)
#else
#define cairnErr cairn_seterr
#endif
#if defined(__GNUC__) || defined(__clang__)
/* Cold: the compiler moves every error branch out of line (function.cold), so the code a
** successful call runs sits in fewer cache lines. A small file's open + read + close runs
** ~5,000 instructions between three system calls, each of which leaves the caches cold. */
cairn_status cairn_seterr(cairn_status rc, const char *zFmt, ...) __attribute__((cold, format(printf, 2, 3)));
#endif
/* The message of a failed xRead (rc from the host): the host's own, with the size and offset
** put in front. cairn_file_read uses it, and so does a caller that calls xRead itself. */
cairn_status cairnReadFailed(cairn_status rc, size_t n, uint64_t iOff)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((cold))
#endif
    ;
/*
** System calls and the stack. On the machines cairn is measured on (a VM whose kernel refills
** the CPU's return-stack buffer on every kernel exit), each return into a frame that was on the
** stack when a system call was made is mispredicted: about 9 ns each, measured. A small file's
** open + read + close makes three system calls, and the frames under them cost as much as a
** few hundred instructions. So the paths to the host's open, first read and close keep few
** frames: a wrapper whose last act is the host call makes it a tail call (cairn_open,
** cairn_file_close, cairn_h5_close), and cairn_h5_open calls xRead itself.
*/
#define CAIRN_TRY(x)                                                                         \
  do {                                                                                       \
    int rc_ = (x);                                                                           \
    if (rc_ != CAIRN_OK) return rc_;                                                         \
  } while (0)
#define CAIRN_FORWARD_IF_ERROR(x) CAIRN_TRY(x)
#define CAIRN_RETURN_ERROR_IF(cond, ...)                                                     \
  do {                                                                                       \
    if (cond) return cairnErr(__VA_ARGS__);                                                  \
  } while (0)
#define CAIRN_TRY_GOTO(rc, x, label)                                                         \
  do {                                                                                       \
    if (((rc) = (x)) != CAIRN_OK) goto label;                                                \
  } while (0)
#define CAIRN_ERROR_GOTO(rc, label, ...)                                                     \
  do {                                                                                       \
    (rc) = cairnErr(__VA_ARGS__);                                                            \
    goto label;                                                                              \
  } while (0)

/*
** Invariants (SQLite's assert/ALWAYS/NEVER). In debug and sanitizer builds (CAIRN_DEBUG) a
** broken invariant stops the program at once with a trap (the core may not call abort; under
** the sanitizers and debuggers the trap shows the stack); in release builds cairnAssert() is
** nothing and ALWAYS(x)/NEVER(x) are plain x, so the branch they guard still handles the
** can't-happen case sanely:
**   cairnAssert(iKey > iPrev);           B-tree keys ascend: checked only in debug builds
**   if (NEVER(n > cap)) return cairnErr(CAIRN_CORRUPT, ...);   can't happen; handled anyway
**   if (ALWAYS(p != NULL)) use(p);
** Use them at the invariants that matter: orderings, stream bounds, sequence numbers, sizes an
** earlier check established. Never for input checks (input is checked with cairnErr).
*/
#ifdef CAIRN_DEBUG
#define cairnAssert(x) ((x) ? (void)0 : cairnAssertFail(__FILE__, __LINE__, #x))
#define ALWAYS(x) ((x) ? 1 : (cairnAssertFail(__FILE__, __LINE__, #x), 0))
#define NEVER(x) ((x) ? (cairnAssertFail(__FILE__, __LINE__, #x), 1) : 0)
void cairnAssertFail(const char *zFile, int iLine, const char *zExpr) __attribute__((noreturn, cold));
#else
#define cairnAssert(x) ((void)0)
#define ALWAYS(x) (x)
#define NEVER(x) (x)
#endif

#define CAIRN_MIN(a, b) ((a) < (b) ? (a) : (b))
#define CAIRN_MAX(a, b) ((a) > (b) ? (a) : (b))
#define CAIRN_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Allocation (through the host). cairnMallocZero zeroes. cairnMallocArray checks n*size. */
void *cairnMalloc(size_t n);
void *cairnMallocZero(size_t n);
void *cairnMallocArray(size_t n, size_t size);
void *cairnRealloc(void *p, size_t n);
/* cairnFree(NULL) does nothing, and decides so inline: callers free what may be unset
** without a call (an object's close frees a dozen mostly-NULL pointers). */
void cairnFreeBlock(void *p); /* p not NULL */
static inline void cairnFree(void *p) {
  if (p) cairnFreeBlock(p);
}

/* Code lengths of a minimum-redundancy code for freq[0..n) (n <= 288) limited to maxLen <= 15
** bits (core/common/huff.c); unused symbols get 0, the rarest symbols the longest codes. Fewer
** than two used symbols are padded with unused ones so the code is always complete. */
void cairnHuffLengths(const uint32_t *freq, unsigned n, unsigned maxLen, uint8_t *len);

/*
** The one growable array: make room for nNeed elements of szElem bytes in the array at *ppArray
** (ppArray is the address of the caller's typed pointer) whose capacity is *pCap elements. When
** nNeed > *pCap the capacity at least doubles (at least nMin elements), so n appends cost
** O(n). On CAIRN_NOMEM (or a size overflow) the array and capacity are unchanged and the message
** names zWhat. Capacities of other integer types go through a size_t copy (CAIRN_GROW does it).
*/
int cairnArrayReserve(void *ppArray, size_t *pCap, size_t nNeed, size_t szElem, size_t nMin,
                      const char *zWhat);
/* CAIRN_GROW(a, cap, nNeed, "what"): the same for a typed pointer a and an integer cap of any
** unsigned type (checked to fit after growing). */
#define CAIRN_GROW(a, cap, nNeed, zWhat)                                                    \
  cairnGrowTyped((void *)&(a), &(cap), sizeof(cap), (size_t)(nNeed), sizeof(*(a)), (zWhat))
int cairnGrowTyped(void *ppArray, void *pCap, size_t szCap, size_t nNeed, size_t szElem,
                   const char *zWhat);

/* Checked arithmetic: return 1 on overflow. */
static inline int cairnAddOverflow64(uint64_t a, uint64_t b, uint64_t *r) {
  return __builtin_add_overflow(a, b, r);
}
static inline int cairnMulOverflow64(uint64_t a, uint64_t b, uint64_t *r) {
  return __builtin_mul_overflow(a, b, r);
}
static inline int cairnMulOverflowSize(size_t a, size_t b, size_t *r) {
  return __builtin_mul_overflow(a, b, r);
}

/* Unaligned fixed-width reads and writes. Never cast a byte pointer to a wider type. */
static inline uint16_t cairnGetLE16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t cairnGetLE32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t cairnGetLE64(const uint8_t *p) {
  return (uint64_t)cairnGetLE32(p) | ((uint64_t)cairnGetLE32(p + 4) << 32);
}
static inline uint64_t cairnGetLEn(const uint8_t *p, unsigned n) {
  /* the widths HDF5 offsets and lengths use, as one load each (n is rarely a constant here) */
  if (n == 8) return cairnGetLE64(p);
  if (n == 4) return cairnGetLE32(p);
  if (n == 2) return cairnGetLE16(p);
  uint64_t v = 0;
  for (unsigned i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}
/* The fewest bytes (1..8) a little-endian field needs to hold v, as HDF5 sizes its variable-width
** fields (fractal heap offsets and lengths, v2 B-tree record counts). */
static inline unsigned cairnLEnSize(uint64_t v) {
  unsigned n = 1;
  while (n < 8 && (v >> (8 * n)) != 0) n++;
  return n;
}
static inline uint32_t cairnGetBE32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}
static inline uint64_t cairnGetBE64(const uint8_t *p) {
  return ((uint64_t)cairnGetBE32(p) << 32) | cairnGetBE32(p + 4);
}
static inline void cairnPutLE16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}
/* On little-endian hosts one store each (the deflate bit writer and the zl digit writers rely on
** it in their hot loops); elsewhere byte by byte. */
static inline void cairnPutLE32(uint8_t *p, uint32_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(p, &v, 4);
#else
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
#endif
}
static inline void cairnPutLE64(uint8_t *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(p, &v, 8);
#else
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
#endif
}
static inline void cairnPutLEn(uint8_t *p, uint64_t v, unsigned n) {
  for (unsigned i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void cairnPutBE32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (24 - 8 * i));
}
static inline void cairnPutBE64(uint8_t *p, uint64_t v) {
  cairnPutBE32(p, (uint32_t)(v >> 32));
  cairnPutBE32(p + 4, (uint32_t)v);
}

/* Run xTask over [0, nTask) through the host's parallel-for (sequential if none). */
int cairnParallelFor(size_t nTask, cairn_task_fn xTask, void *pArg);
/* The read-plan hint of a version-3 file (cairn_file_methods.xWillRead; nothing otherwise), and
** whether the file takes one. */
void cairnFileWillRead(cairn_file *f, const uint64_t *aRange, size_t nRange);
int cairnFileCanPlan(cairn_file *f);
unsigned cairnConcurrency(void);
int64_t cairnClock(int monotonic);
void cairnCpuReset(void);

/* Format into z[0..n) (always NUL-terminated); same directives as cairn_seterr. Returns the
** length written. Pure: no locale, no libc printf. */
size_t cairnFormat(char *z, size_t n, const char *zFmt, ...);
#include <stdarg.h>
size_t cairnFormatV(char *z, size_t n, const char *zFmt, va_list ap);

/* Extend a cairn_memfile to nEnd bytes without zero-filling the new ones (the caller writes
** every one before anything reads them); returns its buffer (it may have moved), NULL on error. */
uint8_t *cairnMemfileGrow(cairn_file *f, uint64_t nEnd);

/* A growable string (core/common/sbuf.c): z is NUL-terminated once anything is put; running
** out of memory sets oom, after which every append is a no-op, so a producer appends freely and
** checks once with cairnSbDone. Start from {0}. */
typedef struct CairnSb {
  char *z;
  size_t n, cap;
  int oom;
} CairnSb;
void cairnSbReserve(CairnSb *s, size_t n); /* room for n more bytes (and the NUL) */
/* Inline: the JSON producers append a few bytes at a time. */
static inline void cairnSbPut(CairnSb *s, const char *p, size_t n) {
  if (s->oom) return;
  if (s->n + n + 1 > s->cap) {
    cairnSbReserve(s, n);
    if (s->oom) return;
  }
  memcpy(s->z + s->n, p, n);
  s->n += n;
  s->z[s->n] = 0;
}
void cairnSbStr(CairnSb *s, const char *z);
void cairnSbU64(CairnSb *s, uint64_t v);
void cairnSbI64(CairnSb *s, int64_t v);
/* p[0..n) as a quoted JSON string: '"' and '\\' escaped, other bytes below 0x20 as \u00xx.
** bShort: \n \t \r as two-character escapes and DEL as \u007f too (the HDF5 reader's JSON);
** 0: DEL kept as it is (the memory store's search results). Bytes >= 0x80 pass through. */
void cairnSbJsonStr(CairnSb *s, const char *p, size_t n, int bShort);
/* Finish: if rc is CAIRN_OK and s ran out of memory, rc becomes CAIRN_NOMEM naming zWhat. On
** an error s is freed and rc returned; else *pz gets the text (never NULL) and *pn its length. */
int cairnSbDone(CairnSb *s, int rc, const char *zWhat, char **pz, size_t *pn);

#endif /* CAIRN_INTERNAL_H */
