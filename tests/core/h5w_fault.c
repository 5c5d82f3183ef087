/* 2026-11-29 - crash safety of the HDF5 writer's commits (core/h5/WRITER.md).
**
** A fault-injection cairn_file runs one scripted session (create, groups, a resizable filtered
** dataset, appends, attribute overwrites and deletes, variable-length strings, close, reopen,
** more appends) and "crashes" at host write N, for EVERY N the session issues, in three ways:
**   stop  - write N and everything after it never reach the file;
**   tear  - write N lands partly: a prefix in whole 512-byte sectors (a write inside one sector,
**           such as the superblock switch, is atomic, which is the one assumption of the design);
**   lose  - power loss: besides tearing, every other write since the last sync is dropped.
** Each image must open, pass cairn_h5w_verify (all checksums, every chunk decoded), hold
** exactly the logical content of the last commit that returned OK, and accept new commits.
** The images and the reference states go to tfTmp("h5w_fault/") with a manifest, so that
** tests/interop/run.sh checks every one with h5dump against its reference state too.
*/
#include <stdlib.h>
#include <sys/stat.h>

#include "common/internal.h"
#include "tf.h"

typedef struct Undo { uint64_t off; size_t n; uint8_t *pre; uint64_t oldSize; } Undo;
typedef struct FaultFile {
  cairn_file base;
  uint8_t *a;
  size_t n, nAlloc;
  int nWrite, failAt, mode, bDead;
  Undo *aUndo;
  int nUndo, nUndoAlloc;
} FaultFile;

static int ffGrow(FaultFile *f, size_t n) {
  if (n <= f->nAlloc) return 0;
  size_t m = f->nAlloc ? f->nAlloc : 4096;
  while (m < n) m *= 2;
  uint8_t *a = realloc(f->a, m);
  if (!a) return 1;
  memset(a + f->nAlloc, 0, m - f->nAlloc);
  f->a = a;
  f->nAlloc = m;
  return 0;
}
static void ffApply(FaultFile *f, const void *p, size_t n, uint64_t off) {
  ffGrow(f, (size_t)off + n);
  if (off > f->n) memset(f->a + f->n, 0, (size_t)off - f->n);
  memcpy(f->a + off, p, n);
  if (off + n > f->n) f->n = (size_t)off + n;
}
static int ffRead(cairn_file *pF, void *p, size_t n, uint64_t off, size_t *pnRead) {
  FaultFile *f = (FaultFile *)pF;
  size_t got = off < f->n ? CAIRN_MIN(n, f->n - (size_t)off) : 0;
  if (got) memcpy(p, f->a + off, got);
  memset((uint8_t *)p + got, 0, n - got);
  if (pnRead) *pnRead = got;
  else if (got < n) return cairn_seterr(CAIRN_IOERR_SHORT_READ, "short read");
  return CAIRN_OK;
}
static void ffCrash(FaultFile *f, const void *p, size_t n, uint64_t off) {
  if (f->mode >= 1) { /* tear: whole sectors of the first half */
    uint64_t cut = ((off + n / 2) / 512) * 512;
    if (cut > off) ffApply(f, p, (size_t)(cut - off), off);
  }
  if (f->mode == 2) /* power loss: every other unsynced write never reached the disk */
    for (int i = f->nUndo - 1; i >= 0; i--)
      if (i % 2 == 0) {
        Undo *u = &f->aUndo[i];
        memcpy(f->a + u->off, u->pre, u->n);
        if (u->oldSize < f->n && u->off >= u->oldSize) f->n = (size_t)u->oldSize;
      }
  f->bDead = 1;
}
static int ffWrite(cairn_file *pF, const void *p, size_t n, uint64_t off) {
  FaultFile *f = (FaultFile *)pF;
  if (f->bDead) return cairn_seterr(CAIRN_IOERR_WRITE, "crashed");
  if (++f->nWrite == f->failAt) {
    ffCrash(f, p, n, off);
    return cairn_seterr(CAIRN_IOERR_WRITE, "crash injected at write %d", f->nWrite);
  }
  if (f->mode == 2) { /* keep the pre-image until the next sync */
    if (f->nUndo == f->nUndoAlloc) {
      f->nUndoAlloc = f->nUndoAlloc ? 2 * f->nUndoAlloc : 64;
      f->aUndo = realloc(f->aUndo, sizeof(Undo) * (size_t)f->nUndoAlloc);
    }
    Undo *u = &f->aUndo[f->nUndo++];
    ffGrow(f, (size_t)off + n);
    u->off = off, u->n = n, u->oldSize = f->n;
    u->pre = malloc(n ? n : 1);
    memcpy(u->pre, f->a + off, n);
  }
  ffApply(f, p, n, off);
  return CAIRN_OK;
}
static void ffClearUndo(FaultFile *f) {
  for (int i = 0; i < f->nUndo; i++) free(f->aUndo[i].pre);
  f->nUndo = 0;
}
static int ffSize(cairn_file *pF, uint64_t *pn) {
  *pn = ((FaultFile *)pF)->n;
  return CAIRN_OK;
}
static int ffTruncate(cairn_file *pF, uint64_t n) {
  FaultFile *f = (FaultFile *)pF;
  if (f->bDead) return cairn_seterr(CAIRN_IOERR, "crashed");
  ffGrow(f, (size_t)n);
  if (n > f->n) memset(f->a + f->n, 0, (size_t)n - f->n);
  f->n = (size_t)n;
  return CAIRN_OK;
}
static int ffSync(cairn_file *pF) {
  FaultFile *f = (FaultFile *)pF;
  if (f->bDead) return cairn_seterr(CAIRN_IOERR_SYNC, "crashed");
  ffClearUndo(f);
  return CAIRN_OK;
}
static int ffClose(cairn_file *pF) {
  FaultFile *f = (FaultFile *)pF;
  ffClearUndo(f);
  free(f->aUndo);
  free(f->a);
  free(f);
  return CAIRN_OK;
}
static const cairn_file_methods ffMethods = {1, ffRead, ffWrite, ffSize, ffTruncate, ffSync, ffClose, NULL};

static FaultFile *ffOpen(int failAt, int mode) {
  FaultFile *f = calloc(1, sizeof *f);
  f->base.pMethods = &ffMethods;
  f->failAt = failAt;
  f->mode = mode;
  return f;
}

/* ---- the scripted session; *pnCommit counts commits that returned OK ---- */
typedef void (*CommitHook)(void *pArg, FaultFile *f, int k);

static int sessionCommit(cairn_h5w *w, FaultFile *f, int *pnCommit, CommitHook x, void *pArg) {
  int rc = cairn_h5w_commit(w);
  if (rc == CAIRN_OK) {
    ++*pnCommit;
    if (x) x(pArg, f, *pnCommit);
  }
  return rc;
}

static int session(FaultFile *f, int *pnCommit, CommitHook x, void *pArg) {
  cairn_h5w *w = NULL;
  int rc;
  *pnCommit = 0;
  cairn_h5w_type *tf = cairn_h5w_type_float(4), *ti = cairn_h5w_type_int(8, 1), *ts = cairn_h5w_type_vstring(1);
  float rows[40 * 4];
  for (int i = 0; i < 160; i++) rows[i] = (float)i * 0.5f;
  uint64_t d0[2] = {0, 4}, mx[2] = {CAIRN_H5W_UNLIMITED, 4}, ch[2] = {8, 4};
  int64_t total = 0;
#define T(x) do { rc = (x); if (rc) goto done; } while (0)
  T(cairn_h5w_create(&f->base, 0, &w));
  T(sessionCommit(w, f, pnCommit, x, pArg));
  T(cairn_h5w_group(w, "/data"));
  T(cairn_h5w_dataset(w, "/data/series", tf, 2, d0, mx, &(cairn_h5w_dset_opts){CAIRN_H5W_CHUNKED, ch, "shuffle,deflate:3,fletcher32", NULL}, NULL));
  T(cairn_h5w_attr(w, "/", "rows", ti, 0, NULL, &total));
  T(sessionCommit(w, f, pnCommit, x, pArg));
  for (int k = 0; k < 6; k++) {
    T(cairn_h5w_append(w, "/data/series", 3, rows + total * 4));
    total += 3;
    T(cairn_h5w_attr(w, "/", "rows", ti, 0, NULL, &total));
    if (k % 2) {
      char z[32], g[32];
      cairnFormat(z, sizeof z, "step %d", k);
      const char *pz = z;
      T(cairn_h5w_attr(w, "/data", "note", ts, 0, NULL, &pz));
      cairnFormat(g, sizeof g, "/data/g%d", k);
      T(cairn_h5w_group(w, g));
    }
    T(sessionCommit(w, f, pnCommit, x, pArg));
  }
  uint64_t n8 = 8;
  T(cairn_h5w_dataset(w, "/data/fixed", ti, 1, &n8, NULL, NULL, (int64_t[]){1, 2, 3, 4, 5, 6, 7, 8}));
  T(cairn_h5w_attr_delete(w, "/data", "note"));
  T(sessionCommit(w, f, pnCommit, x, pArg));
  T(cairn_h5w_append(w, "/data/series", 5, rows + total * 4));
  total += 5;
  T(cairn_h5w_attr(w, "/", "rows", ti, 0, NULL, &total));
  rc = cairn_h5w_close(w); /* commits */
  w = NULL;
  if (rc) goto done;
  ++*pnCommit;
  if (x) x(pArg, f, *pnCommit);
  /* second session on the same file */
  T(cairn_h5w_open(&f->base, 0, &w));
  T(cairn_h5w_append(w, "/data/series", 6, rows + total * 4));
  total += 6;
  T(cairn_h5w_attr(w, "/", "rows", ti, 0, NULL, &total));
  T(cairn_h5w_group(w, "/data/late"));
  rc = cairn_h5w_close(w);
  w = NULL;
  if (rc) goto done;
  ++*pnCommit;
  if (x) x(pArg, f, *pnCommit);
#undef T
done:
  if (w) cairn_h5w_discard(w);
  cairn_h5w_type_free(tf), cairn_h5w_type_free(ti), cairn_h5w_type_free(ts);
  return rc;
}

/* Open an image (a copy) and return its digest; CAIRN_OK only if it opens and verifies. */
static int imageDigest(const uint8_t *p, size_t n, uint8_t d[32]) {
  cairn_file *m;
  int rc = cairn_memfile_open(p, n, &m);
  if (rc) return rc;
  cairn_h5w *w;
  rc = cairn_h5w_open(m, CAIRN_H5W_READONLY, &w);
  if (!rc) {
    rc = cairn_h5w_verify(w, d);
    cairn_h5w_discard(w);
  }
  cairn_file_close(m);
  return rc;
}

typedef struct Ref { uint8_t d[16][32]; int n; } Ref;
static void refHook(void *pArg, FaultFile *f, int k) {
  Ref *r = pArg;
  if (k < 16 && imageDigest(f->a, f->n, r->d[k]) == CAIRN_OK) r->n = k + 1;
  char z[64];
  cairnFormat(z, sizeof z, "h5w_fault/ref_%d.h5", k);
  tfWriteFile(tfTmp(z), f->a, f->n);
}

TEST(h5w_fault, every_write) {
  Ref ref;
  memset(&ref, 0, sizeof ref);
  mkdir(tfTmp("h5w_fault"), 0755);
  FaultFile *f0 = ffOpen(0, 0);
  int nCommit;
  CHECK_OK(session(f0, &nCommit, refHook, &ref));
  int nWrite = f0->nWrite;
  ffClose(&f0->base);
  CHECK_EQ(ref.n, nCommit + 1);
  CHECK(nCommit >= 10);
  CHECK(nWrite > 2 * nCommit);
  /* all reference states differ, so a match identifies one state */
  for (int i = 1; i <= nCommit; i++)
    for (int j = i + 1; j <= nCommit; j++) CHECK(memcmp(ref.d[i], ref.d[j], 32) != 0);
  FILE *man = fopen(tfTmp("h5w_fault/manifest.txt"), "w");
  CHECK(man);
  static const char *azMode[] = {"stop", "tear", "lose"};
  int nChecked = 0;
  for (int mode = 0; mode < 3; mode++) {
    for (int N = 1; N <= nWrite; N++) {
      FaultFile *f = ffOpen(N, mode);
      int done = 0;
      int rc = session(f, &done, NULL, NULL);
      if (rc == CAIRN_OK) { /* the crash point was never reached: cannot happen for N <= nWrite */
        ffClose(&f->base);
        CHECK(!"session completed despite the injected crash");
      }
      if (done == 0) { /* crashed inside the very first commit: there is no committed state */
        ffClose(&f->base);
        continue;
      }
      uint8_t d[32];
      rc = imageDigest(f->a, f->n, d);
      if (rc != CAIRN_OK || memcmp(d, ref.d[done], 32) != 0) {
        tfFail(__FILE__, __LINE__, "%s at write %d (after %d commits): %s", azMode[mode], N, done,
               rc ? cairn_errmsg() : "content differs from the last commit");
        ffClose(&f->base);
        fclose(man);
        return;
      }
      char z[64];
      cairnFormat(z, sizeof z, "h5w_fault/%s_%d.h5", azMode[mode], N);
      tfWriteFile(tfTmp(z), f->a, f->n);
      fprintf(man, "%s_%d.h5 ref_%d.h5\n", azMode[mode], N, done);
      /* recovery: the crashed file takes new commits */
      cairn_file *m;
      cairn_h5w *w;
      CHECK_OK(cairn_memfile_open(f->a, f->n, &m));
      CHECK_OK(cairn_h5w_open(m, 0, &w));
      CHECK_OK(cairn_h5w_group(w, "/after_crash"));
      CHECK_OK(cairn_h5w_close(w));
      CHECK_OK(cairn_h5w_open(m, CAIRN_H5W_READONLY, &w));
      CHECK_OK(cairn_h5w_verify(w, d));
      cairn_h5w_discard(w);
      cairn_file_close(m);
      ffClose(&f->base);
      nChecked++;
    }
  }
  fclose(man);
  CHECK(nChecked > 2 * nWrite);
  printf("    %d commits, %d writes, %d crash images verified\n", nCommit, nWrite, nChecked);
}
