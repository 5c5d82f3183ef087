/*
** 2026-11-29
**
** cairn/cairn.h - the stable public API of cairn: status codes, error messages, version,
** and the umbrella include for every module. If a function is not declared under
** core/include/cairn/, it is not part of the API.
**
** Every call returns a status: CAIRN_OK (0) or an error. The primary codes below are frozen;
** an extended code keeps its primary code in the low 8 bits (CAIRN_IOERR_SHORT_READ & 0xff ==
** CAIRN_IOERR), so callers that only test primary codes keep working as detail is added.
** After an error, cairn_errmsg() returns a one-line message naming what was wrong and where
** (a file offset, an object path, an argument).
*/
#ifndef CAIRN_H
#define CAIRN_H

#include <stddef.h>
#include <stdint.h>
#include "export.h"
#include "host.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CAIRN_VERSION_MAJOR 0
#define CAIRN_VERSION_MINOR 1
#define CAIRN_VERSION_PATCH 0
#define CAIRN_VERSION_STRING "0.1.0"

typedef int cairn_status;

/* Primary status codes (frozen). */
#define CAIRN_OK          0
#define CAIRN_ERROR       1  /* generic failure */
#define CAIRN_NOMEM       2  /* the allocator returned NULL */
#define CAIRN_IOERR       3  /* the host failed a file operation */
#define CAIRN_CORRUPT     4  /* input bytes are malformed (file, frame, stream) */
#define CAIRN_NOTFOUND    5  /* no such object, key, path or file */
#define CAIRN_EXISTS      6  /* already exists */
#define CAIRN_MISUSE      7  /* bad argument or API misuse (NULL, bad range, wrong state) */
#define CAIRN_UNSUPPORTED 8  /* valid input using a feature cairn does not implement */
#define CAIRN_RANGE       9  /* a size or index beyond what is allowed */
#define CAIRN_READONLY    10 /* write to something opened read-only */
#define CAIRN_CHECKSUM    11 /* a checksum or hash did not match */
#define CAIRN_TYPE        12 /* wrong data type */
#define CAIRN_LIMIT       13 /* a configured limit (memory budget, size cap) was reached */
#define CAIRN_BUSY        14 /* another handle or process holds the lock (see cairn_host lock methods) */

/* Extended codes: primary | (detail << 8). */
#define CAIRN_IOERR_SHORT_READ (CAIRN_IOERR | (1 << 8))
#define CAIRN_IOERR_SYNC       (CAIRN_IOERR | (2 << 8))
#define CAIRN_IOERR_OPEN       (CAIRN_IOERR | (3 << 8))
#define CAIRN_IOERR_WRITE      (CAIRN_IOERR | (4 << 8))
/* The HDF5 reader found the file committed to by a writer since its open (its snapshot is
** gone): reopen to read the new state. A BUSY that waiting for a lock will not cure. */
#define CAIRN_BUSY_SNAPSHOT    (CAIRN_BUSY | (1 << 8))

#define CAIRN_PRIMARY(rc) ((rc) & 0xff)

/* Message for the last error on the calling thread ("" if none yet). Valid until the next
** cairn call on this thread. */
CAIRN_API const char *cairn_errmsg(void);
/* Where in the core the last error was raised ("core/h5/r_file.c:212"): debug and sanitizer
** builds only (CAIRN_DEBUG); "" in release builds and when the error came from a host. */
CAIRN_API const char *cairn_errloc(void);
/* Static name of a status code ("CAIRN_CORRUPT", "CAIRN_IOERR_SHORT_READ"...). */
CAIRN_API const char *cairn_errstr(cairn_status rc);
/*
** Record an error for cairn_errmsg() and return rc. For hosts and bindings that want their
** own message to surface. The format understands %s %.*s %d %u %lld %llu %zu %x %llx %c and %%.
*/
CAIRN_API cairn_status cairn_seterr(cairn_status rc, const char *zFmt, ...);
/* Clear the message. */
CAIRN_API void cairn_clearerr(void);

CAIRN_API const char *cairn_version(void);

#ifdef __cplusplus
}
#endif

#include "sha256.h"
#include "zcodec.h"
#include "h5.h"
#include "h5w.h"
#include "zl.h"
#include "mem.h"
#include "cas.h"
#include "json.h"
#include "eph.h"
#include "gate.h"
#include "score.h"
#include "consolidate.h"

#endif /* CAIRN_H */
