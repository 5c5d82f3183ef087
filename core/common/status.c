/*
** 2026-11-29
**
** core/common/status.c - status names, the per-thread error message, and a small formatter
** (the core may not call printf: it pulls in locale and stdio machinery, and the symbol check
** forbids it).
*/
#include "internal.h"

/* One message buffer per thread. On targets without threads this is a plain global. */
static _Thread_local char zLastErr[512];

/* Debug builds: where the current message was raised (cairnErrAt); a host's cairn_seterr clears it. */
static _Thread_local char zLastLoc[96];

const char *cairn_errmsg(void) { return zLastErr; }
const char *cairn_errloc(void) { return zLastLoc; }
void cairn_clearerr(void) {
  zLastErr[0] = 0;
  zLastLoc[0] = 0;
}

const char *cairn_version(void) { return CAIRN_VERSION_STRING; }

const char *cairn_errstr(cairn_status rc) {
  switch (rc) {
    case CAIRN_OK: return "CAIRN_OK";
    case CAIRN_IOERR_SHORT_READ: return "CAIRN_IOERR_SHORT_READ";
    case CAIRN_IOERR_SYNC: return "CAIRN_IOERR_SYNC";
    case CAIRN_IOERR_OPEN: return "CAIRN_IOERR_OPEN";
    case CAIRN_IOERR_WRITE: return "CAIRN_IOERR_WRITE";
    case CAIRN_BUSY_SNAPSHOT: return "CAIRN_BUSY_SNAPSHOT";
    default: break;
  }
  switch (CAIRN_PRIMARY(rc)) {
    case CAIRN_ERROR: return "CAIRN_ERROR";
    case CAIRN_NOMEM: return "CAIRN_NOMEM";
    case CAIRN_IOERR: return "CAIRN_IOERR";
    case CAIRN_CORRUPT: return "CAIRN_CORRUPT";
    case CAIRN_NOTFOUND: return "CAIRN_NOTFOUND";
    case CAIRN_EXISTS: return "CAIRN_EXISTS";
    case CAIRN_MISUSE: return "CAIRN_MISUSE";
    case CAIRN_UNSUPPORTED: return "CAIRN_UNSUPPORTED";
    case CAIRN_RANGE: return "CAIRN_RANGE";
    case CAIRN_READONLY: return "CAIRN_READONLY";
    case CAIRN_CHECKSUM: return "CAIRN_CHECKSUM";
    case CAIRN_TYPE: return "CAIRN_TYPE";
    case CAIRN_LIMIT: return "CAIRN_LIMIT";
    case CAIRN_BUSY: return "CAIRN_BUSY";
    default: return "CAIRN_UNKNOWN";
  }
}

cairn_status cairn_seterr(cairn_status rc, const char *zFmt, ...) {
  va_list ap;
  va_start(ap, zFmt);
  /* Format into a scratch buffer first: zFmt's arguments may point into zLastErr itself
  ** (a caller adding context to the previous message). */
  char zTmp[sizeof(zLastErr)];
  cairnFormatV(zTmp, sizeof(zTmp), zFmt, ap);
  va_end(ap);
  memcpy(zLastErr, zTmp, sizeof(zTmp));
  zLastLoc[0] = 0;
  return rc;
}

#ifdef CAIRN_DEBUG
/* __FILE__ from the part that starts "core/" (CMake passes absolute paths). */
static const char *errShortPath(const char *zFile) {
  const char *z = zFile;
  for (const char *p = zFile; *p; p++)
    if (strncmp(p, "core/", 5) == 0) z = p; /* not memcmp: it may read past the NUL */
  return z;
}

cairn_status cairnErrAt(const char *zFile, int iLine, cairn_status rc, const char *zFmt, ...) {
  va_list ap;
  va_start(ap, zFmt);
  char zTmp[sizeof(zLastErr)];
  cairnFormatV(zTmp, sizeof(zTmp), zFmt, ap);
  va_end(ap);
  memcpy(zLastErr, zTmp, sizeof(zTmp));
  cairnFormat(zLastLoc, sizeof(zLastLoc), "%s:%d", errShortPath(zFile), iLine);
  return rc;
}

void cairnAssertFail(const char *zFile, int iLine, const char *zExpr) {
  /* The message is left where a debugger or the test runner's crash report can show it. */
  cairnFormat(zLastErr, sizeof(zLastErr), "assertion failed: %s", zExpr);
  cairnFormat(zLastLoc, sizeof(zLastLoc), "%s:%d", errShortPath(zFile), iLine);
  __builtin_trap();
}
#endif

/* Append one unsigned number in base 10 or 16. */
static size_t fmtUnsigned(char *z, size_t i, size_t n, unsigned long long v, int hex) {
  char a[24];
  int k = 0;
  do {
    unsigned d = (unsigned)(hex ? (v & 15) : (v % 10));
    a[k++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
    v = hex ? (v >> 4) : (v / 10);
  } while (v);
  while (k > 0 && i + 1 < n) z[i++] = a[--k];
  return i;
}

size_t cairnFormatV(char *z, size_t n, const char *zFmt, va_list ap) {
  size_t i = 0;
  if (n == 0) return 0;
  for (const char *f = zFmt; *f && i + 1 < n; f++) {
    if (*f != '%') {
      z[i++] = *f;
      continue;
    }
    f++;
    int nLong = 0, isSize = 0, nPrec = -1;
    if (f[0] == '.' && f[1] == '*') { /* "%.*s": at most nPrec bytes of a string */
      nPrec = va_arg(ap, int);
      f += 2;
    }
    while (*f == 'l') nLong++, f++;
    if (*f == 'z') isSize = 1, f++;
    switch (*f) {
      case 's': {
        const char *s = va_arg(ap, const char *);
        if (!s) s = "(null)";
        for (int k = 0; *s && i + 1 < n && (nPrec < 0 || k < nPrec); k++) z[i++] = *s++;
        break;
      }
      case 'c': z[i++] = (char)va_arg(ap, int); break;
      case 'd': {
        long long v = isSize ? (long long)va_arg(ap, size_t)
                    : nLong ? (nLong > 1 ? va_arg(ap, long long) : va_arg(ap, long))
                            : va_arg(ap, int);
        unsigned long long u = (unsigned long long)v;
        if (v < 0) {
          z[i++] = '-';
          u = 0ull - u;
        }
        i = fmtUnsigned(z, i, n, u, 0);
        break;
      }
      case 'u':
      case 'x': {
        unsigned long long v = isSize ? va_arg(ap, size_t)
                             : nLong ? (nLong > 1 ? va_arg(ap, unsigned long long)
                                                  : va_arg(ap, unsigned long))
                                     : va_arg(ap, unsigned);
        i = fmtUnsigned(z, i, n, v, *f == 'x');
        break;
      }
      case '%': z[i++] = '%'; break;
      case 0: f--; break;
      default:
        z[i++] = '%';
        if (i + 1 < n) z[i++] = *f;
        break;
    }
  }
  z[i] = 0;
  return i;
}

size_t cairnFormat(char *z, size_t n, const char *zFmt, ...) {
  va_list ap;
  va_start(ap, zFmt);
  size_t r = cairnFormatV(z, n, zFmt, ap);
  va_end(ap);
  return r;
}
