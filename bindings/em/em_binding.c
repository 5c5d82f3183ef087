/*
** 2026-11-29
**
** bindings/em/em_binding.c - the Emscripten side of the npm package. Two things live here:
**
**  1. A cairn_file whose bytes come from JavaScript. Each JS file object (js/src/hosts.js:
**     memory, Node fs, Blob, OPFS sync access handle, HTTP range reads) is registered in a
**     table on the JS side under an integer id; the methods below call the synchronous JS
**     functions in bindings/em/em_host.js with that id. Offsets cross the boundary as doubles (exact
**     up to 2^53 bytes), which avoids the i64 legalization of Emscripten 3.1.6.
**  2. Small entry points for JS that need a pointer-sized result (the file handle).
**
** The JS side never throws into C: em_host.js catches every exception, records its message
** through cairn_em_set_error, and returns a status code.
*/
#include <emscripten.h>
#include <string.h>

#include "cairn/cairn.h"
#include "em_int.h"
#include "em_exports.h"

extern int cairn_js_read(int id, uint8_t *p, size_t n, double off, size_t *pnRead);
extern int cairn_js_write(int id, const uint8_t *p, size_t n, double off);
extern int cairn_js_size(int id, double *pSize);
extern int cairn_js_truncate(int id, double n);
extern int cairn_js_sync(int id);
extern int cairn_js_close(int id);
extern int cairn_js_open(const char *zPath, int flags, int *pId);
extern int cairn_js_lock(int id, int eLock);
extern int cairn_js_unlock(int id, int eLock);

typedef struct JsFile {
  cairn_file base;
  int id;
} JsFile;

static int jsRead(cairn_file *f, void *p, size_t n, uint64_t off, size_t *pnRead) {
  size_t nGot = 0;
  int rc = cairn_js_read(((JsFile *)f)->id, p, n, (double)off, &nGot);
  if (rc == CAIRN_OK && nGot < n) memset((uint8_t *)p + nGot, 0, n - nGot);
  if (pnRead) *pnRead = nGot;
  else if (rc == CAIRN_OK && nGot < n) rc = cairn_seterr(CAIRN_IOERR_SHORT_READ, "short read");
  return rc;
}
static int jsWrite(cairn_file *f, const void *p, size_t n, uint64_t off) {
  return cairn_js_write(((JsFile *)f)->id, p, n, (double)off);
}
static int jsSize(cairn_file *f, uint64_t *pn) {
  double d = 0;
  int rc = cairn_js_size(((JsFile *)f)->id, &d);
  *pn = (uint64_t)d;
  return rc;
}
static int jsTruncate(cairn_file *f, uint64_t n) { return cairn_js_truncate(((JsFile *)f)->id, (double)n); }
static int jsSync(cairn_file *f) { return cairn_js_sync(((JsFile *)f)->id); }
static int jsClose(cairn_file *f) {
  int rc = cairn_js_close(((JsFile *)f)->id);
  cairn_free(f);
  return rc;
}

/* Locks: the JS file object's lock(eLock)/unlock(eLock) when it has them (NodeFile: one writer
** per file per process plus the lock file of cairn/host.h's "Locking"; OPFS handles are
** exclusive already), else CAIRN_OK. */
static int jsLock(cairn_file *f, int eLock) {
  if (eLock == CAIRN_LOCK_EXCLUSIVE) return CAIRN_OK; /* Node readers take no lock: none known */
  return cairn_js_lock(((JsFile *)f)->id, eLock);
}
static int jsUnlock(cairn_file *f, int eLock) { return cairn_js_unlock(((JsFile *)f)->id, eLock); }

static const cairn_file_methods jsMethods = {2, jsRead, jsWrite, jsSize, jsTruncate, jsSync, jsClose, NULL, jsLock, jsUnlock, NULL};

/* Wrap JS file `id` in a cairn_file. Returns NULL (message set) on failure. */
EMSCRIPTEN_KEEPALIVE cairn_file *cairn_em_file_open(int id) {
  JsFile *f = cairn_malloc(sizeof(*f));
  if (f) memset(f, 0, sizeof(*f));
  if (!f) {
    cairn_seterr(CAIRN_NOMEM, "out of memory wrapping a JS file");
    return NULL;
  }
  f->base.pMethods = &jsMethods;
  f->id = id;
  return &f->base;
}

/* The host's xOpen (installed by cairn_em_host_install): the JS side opens the file by name
** (Module.cairnOpenPath, in Node) and registers it as one the package owns. */
int cairnEmOpen(void *pCtx, const char *zPath, int flags, cairn_file **ppFile) {
  (void)pCtx;
  int id = 0;
  int rc = cairn_js_open(zPath, flags, &id);
  if (rc) return rc;
  cairn_file *f = cairn_em_file_open(id);
  if (!f) {
    cairn_js_close(id);
    return CAIRN_NOMEM;
  }
  *ppFile = f;
  return CAIRN_OK;
}

EMSCRIPTEN_KEEPALIVE void cairn_em_set_error(int rc, const char *zMsg) { cairn_seterr(rc, "%s", zMsg); }

/* cairn_sha256_file needs a 32-byte output; JS passes a buffer it allocated. */
EMSCRIPTEN_KEEPALIVE int cairn_em_sha256_file(cairn_file *f, uint8_t *out) { return cairn_sha256_file(f, out); }

/* Streams between two JS files; sizes reported through a 16-byte out buffer (two doubles). */
EMSCRIPTEN_KEEPALIVE int cairn_em_zfile(int compress, int kind, int level, cairn_file *in, cairn_file *out, double *pSizes) {
  uint64_t nIn = 0, nOut = 0;
  int rc = compress ? cairn_zcompress_file((cairn_zkind)kind, level, in, out, NULL, NULL, &nIn, &nOut)
                    : cairn_zdecompress_file((cairn_zkind)kind, in, out, NULL, NULL, &nIn, &nOut);
  pSizes[0] = (double)nIn;
  pSizes[1] = (double)nOut;
  return rc;
}

/* Decompressed size a zstd frame declares, or -1 when absent/invalid. */
EMSCRIPTEN_KEEPALIVE double cairn_em_zstd_content_size(const void *p, size_t n) {
  uint64_t v;
  return cairn_zstd_content_size(p, n, &v) == CAIRN_OK ? (double)v : -1.0;
}
