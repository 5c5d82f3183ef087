/* 2026-11-29 - crash safety of the HDF5 writer's commits (core/h5/WRITER.md).
**
** A fault-injection cairn_file runs one scripted session (create, groups, a resizable filtered
** dataset, appends, attribute overwrites and deletes, variable-length strings, close, reopen,
** more appends) and "crashes" at host write N, for EVERY N the session issues, in three ways
** (the fault wrapper of tests/core/faultfile.h, with 512-byte sectors):
**   stop  - a process crash: write N and everything after it never reach the file;
**   tear  - write N lands partly: a prefix in whole 512-byte sectors (a write inside one sector,
**           such as the superblock switch, is atomic, which is the one assumption of the design);
**   lose  - power loss: write N torn so, and every write since the last sync lands whole, is
**           lost or lands as a sector-aligned prefix (fates seeded by N).
** Each image must open, pass cairn_h5w_verify (all checksums, every chunk decoded), hold
** exactly the logical content of the last commit that returned OK, and accept new commits.
** The images and the reference states go to tfTmp("h5w_fault/") with a manifest, so that
** tests/interop/run.sh checks every one with h5dump against its reference state too.
** Two more sessions: an h5py libver-earliest file edited, and a group in dense link storage
** growing across commits and sessions (core/h5/w_dense.c).
*/
#include <stdlib.h>
#include <sys/stat.h>

#include "common/internal.h"
#include "faultfile.h"
#include "tf.h"

/* The bytes "on the disk": the core's memory file (cairn_memfile_open) under the fault wrapper
** (tests/core/faultfile.h, shared with the chunk store's and agent memory's crash tests), which
** puts what survives a crash back into it. */
/* One run: the writer works on pF (the wrapper); img holds the bytes. Crash modes at write N:
**   0 stop - a process crash: write N and everything after it never happen, every earlier
**            write is there (the page cache keeps it);
**   1 tear - the same, but write N lands as a prefix ending on a 512-byte sector boundary;
**   2 lose - power loss: write N torn the same way, and every write since the last sync lands
**            whole, is lost, or lands as a sector-aligned prefix (seeded fates);
** failSync: the Nth sync fails instead (no crash). */
typedef struct FaultFile {
  cairn_file *img;
  cairn_file *pF;
} FaultFile;

static FaultFile *ffOpenSpec(int failAt, int mode, int failSync, const uint8_t *pSeed, size_t nSeed) {
  FaultFile *f = calloc(1, sizeof *f);
  if (cairn_memfile_open(pSeed, nSeed, &f->img)) {
    free(f);
    return NULL;
  }
  FaultSpec sp;
  memset(&sp, 0, sizeof sp);
  sp.nSector = 512;
  sp.nFailSync = (uint32_t)failSync;
  sp.seed = (uint64_t)failAt * 7 + (uint64_t)mode;
  if (failAt) {
    if (mode == 0) sp.nCrashWrite = (uint32_t)failAt;
    else sp.nTearWrite = (uint32_t)failAt;
    sp.bKeepUnsynced = mode < 2;
  }
  if (faultfileWrap(f->img, 0, &sp, &f->pF)) {
    cairn_file_close(f->img);
    free(f);
    return NULL;
  }
  return f;
}
static FaultFile *ffOpen(int failAt, int mode) { return ffOpenSpec(failAt, mode, 0, NULL, 0); }
static int ffWrites(FaultFile *f) {
  uint32_t n = 0;
  faultfileCounts(f->pF, &n, NULL);
  return (int)n;
}
static int ffSyncs(FaultFile *f) {
  uint32_t n = 0;
  faultfileCounts(f->pF, NULL, &n);
  return (int)n;
}
static void ffClose(FaultFile *f) {
  cairn_file_close(f->pF);
  cairn_file_close(f->img);
  free(f);
}

/* The bytes on the "disk" now (valid until the next write to it). */
static void ffImage(FaultFile *f, const uint8_t **pa, size_t *pn) { cairn_memfile_data(f->img, pa, pn); }

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
  T(cairn_h5w_create(f->pF, 0, &w));
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
  /* overwrites: committed contiguous storage (copied first), chunks rewritten in place of none */
  T(cairn_h5w_write(w, "/data/fixed", 2, 3, (int64_t[]){30, 40, 50}));
  T(cairn_h5w_write(w, "/data/series", 1, 2, rows + 4));
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
  T(cairn_h5w_open(f->pF, CAIRN_H5W_RECLAIM, &w));
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

/* The committed states of a session: digests of the first 16, and each image kept as
** h5w_fault/<zName>_<k>.h5 for h5dump. */
typedef struct Ref { uint8_t d[16][32]; int n; char zName[16]; } Ref;
static void refHook(void *pArg, FaultFile *f, int k) {
  Ref *r = pArg;
  const uint8_t *aImg;
  size_t nImg;
  ffImage(f, &aImg, &nImg);
  if (k < 16 && imageDigest(aImg, nImg, r->d[k]) == CAIRN_OK) r->n = k + 1;
  char z[64];
  cairnFormat(z, sizeof z, "h5w_fault/%s_%d.h5", r->zName, k);
  tfWriteFile(tfTmp(z), aImg, nImg);
}

/* One crash sweep over a scripted session: for every write N and each way of crashing there
** (0: the session stops, 1: the write is torn, 2: writes not yet synced are lost), the image must
** hold exactly the last committed state (its digest is ref->d[done]) and read back through
** cairn's reader (xCheck). Each image is kept as h5w_fault/<prefix><mode>_<N>.h5 with a manifest
** line naming its reference state, for the h5dump comparison in tests/interop; with zRecover, a
** recovery session (free space reclaimed) adds that group and the result must verify. */
typedef struct Sweep {
  const char *zWhat, *zPrefix; /* for messages ("" for the main session); image names */
  int (*xSession)(FaultFile *f, int *pnCommit, CommitHook x, void *pArg);
  FaultFile *(*xOpen)(int failAt, int mode);
  void (*xCheck)(const uint8_t *a, size_t n, int done);
  const char *zRecover; /* a group a recovery session adds, or NULL */
  int bStateZero;       /* state 0 is a committed file (a seeded one): a crash in the first commit leaves it */
} Sweep;

/* The session once without a crash: its committed states into ref (images kept as
** h5w_fault/<prefix>ref_<k>.h5), which must all differ so that a digest names one state; the
** number of commits and of writes (the crash points of the sweep). */
static void refRun(const Sweep *s, Ref *ref, int *pnCommit, int *pnWrite) {
  memset(ref, 0, sizeof *ref);
  cairnFormat(ref->zName, sizeof ref->zName, "%sref", s->zPrefix);
  mkdir(tfTmp("h5w_fault"), 0755);
  FaultFile *f0 = s->xOpen(0, 0);
  if (s->bStateZero) refHook(ref, f0, 0); /* state 0: the file as it was seeded */
  int bZero = !s->bStateZero || ref->n == 1;
  int rc = s->xSession(f0, pnCommit, refHook, ref);
  *pnWrite = ffWrites(f0);
  ffClose(f0);
  CHECK(bZero);
  CHECK_OK(rc);
  CHECK_EQ(ref->n, *pnCommit + 1);
  for (int i = s->bStateZero ? 0 : 1; i <= *pnCommit; i++)
    for (int j = i + 1; j <= *pnCommit; j++) CHECK(memcmp(ref->d[i], ref->d[j], 32) != 0);
}

static void sweep(const Sweep *s, const Ref *ref, int nWrite, FILE *man, int *pnChecked) {
  static const char *azMode[] = {"stop", "tear", "lose"};
  const char *zSep = s->zWhat[0] ? ", " : "";
  for (int mode = 0; mode < 3; mode++)
    for (int N = 1; N <= nWrite; N++) {
      FaultFile *f = s->xOpen(N, mode);
      int done = 0;
      int rc = s->xSession(f, &done, NULL, NULL);
      if (rc == CAIRN_OK) { /* the crash point was never reached: cannot happen for N <= nWrite */
        ffClose(f);
        CHECK(!"session completed despite the injected crash");
      }
      if (done == 0 && !s->bStateZero) { /* crashed inside the very first commit: nothing committed */
        ffClose(f);
        continue;
      }
      uint8_t d[32];
      const uint8_t *aImg;
      size_t nImg;
      ffImage(f, &aImg, &nImg);
      rc = imageDigest(aImg, nImg, d);
      if (rc != CAIRN_OK || memcmp(d, ref->d[done], 32) != 0) {
        tfFail(__FILE__, __LINE__, "%s%s%s at write %d (after %d commits): %s", s->zWhat, zSep, azMode[mode], N, done,
               rc ? cairn_errmsg() : "content differs from the last commit");
        ffClose(f);
        return;
      }
      s->xCheck(aImg, nImg, done);
      if (tfFailed()) {
        ffClose(f);
        return;
      }
      char z[64];
      cairnFormat(z, sizeof z, "h5w_fault/%s%s_%d.h5", s->zPrefix, azMode[mode], N);
      tfWriteFile(tfTmp(z), aImg, nImg);
      fprintf(man, "%s%s_%d.h5 %s_%d.h5\n", s->zPrefix, azMode[mode], N, ref->zName, done);
      if (s->zRecover) {
        cairn_file *m;
        cairn_h5w *w;
        CHECK_OK(cairn_memfile_open(aImg, nImg, &m));
        CHECK_OK(cairn_h5w_open(m, CAIRN_H5W_RECLAIM, &w));
        CHECK_OK(cairn_h5w_group(w, s->zRecover));
        CHECK_OK(cairn_h5w_close(w));
        CHECK_OK(cairn_h5w_open(m, CAIRN_H5W_READONLY, &w));
        rc = cairn_h5w_verify(w, d);
        cairn_h5w_discard(w);
        cairn_file_close(m);
        if (rc != CAIRN_OK) {
          tfFail(__FILE__, __LINE__, "%s%s%s at write %d (after %d commits), then a recovery commit: %s", s->zWhat, zSep,
                 azMode[mode], N, done, cairn_errmsg());
          ffClose(f);
          return;
        }
      }
      ffClose(f);
      (*pnChecked)++;
    }
}

static void checkEveryWrite(const uint8_t *a, size_t n, int done) {
  /* cairn's reader sees the same commit: rows attribute == rows in the dataset, values */
  if (done < 2) return; /* state 1 has no rows yet */
  cairn_file *m;
  cairn_h5 *h;
  cairn_h5_obj *o, *at;
  cairn_h5_info in;
  int64_t nRows = -1;
  CHECK_OK(cairn_memfile_open(a, n, &m));
  CHECK_OK(cairn_h5_open(m, CAIRN_H5_OWN_FILE, &h));
  CHECK_OK(cairn_h5_get(h, "/", &o));
  CHECK_OK(cairn_h5_attr(o, "rows", &at));
  CHECK_OK(cairn_h5_read(at, NULL, CAIRN_H5_I64, &nRows, sizeof nRows));
  cairn_h5_obj_close(at);
  cairn_h5_obj_close(o);
  CHECK_OK(cairn_h5_get(h, "/data/series", &o));
  CHECK_OK(cairn_h5_info_get(o, &in));
  CHECK_EQ(in.dims[0], nRows);
  float v[40 * 4];
  CHECK_OK(cairn_h5_read(o, NULL, CAIRN_H5_F32, v, sizeof v));
  for (int64_t i = 0; i < nRows * 4; i++) CHECK(v[i] == (float)i * 0.5f);
  cairn_h5_obj_close(o);
  cairn_h5_close(h);
}

TEST(h5w_fault, every_write) {
  const Sweep s = {"", "", session, ffOpen, checkEveryWrite, "/after_crash", 0};
  Ref ref;
  int nCommit, nWrite;
  refRun(&s, &ref, &nCommit, &nWrite);
  if (tfFailed()) return;
  CHECK(nCommit >= 10);
  CHECK(nWrite > 2 * nCommit);
  FILE *man = fopen(tfTmp("h5w_fault/manifest.txt"), "w");
  CHECK(man);
  int nChecked = 0;
  sweep(&s, &ref, nWrite, man, &nChecked);
  fclose(man);
  CHECK(nChecked > 2 * nWrite);
  /* a failing sync: the commit reports it, the writer refuses everything after, and the file
  ** holds the previous commit or (if the superblock switch got through) the one that failed */
  FaultFile *fs = ffOpen(0, 0);
  CHECK_OK(session(fs, &nCommit, NULL, NULL));
  int nSync = ffSyncs(fs);
  ffClose(fs);
  CHECK(nSync >= 2 * nCommit);
  for (int N = 1; N <= nSync; N++) {
    FaultFile *f = ffOpenSpec(0, 0, N, NULL, 0);
    int done = 0;
    int rc = session(f, &done, NULL, NULL);
    CHECK_EQ(CAIRN_PRIMARY(rc), CAIRN_IOERR);
    uint8_t d[32];
    const uint8_t *aImg;
    size_t nImg;
    ffImage(f, &aImg, &nImg);
    CHECK_OK(done ? imageDigest(aImg, nImg, d) : CAIRN_OK);
    CHECK(done == 0 || memcmp(d, ref.d[done], 32) == 0 || (done + 1 < 16 && memcmp(d, ref.d[done + 1], 32) == 0));
    ffClose(f);
  }
  printf("    %d commits, %d writes, %d crash images verified\n", nCommit, nWrite, nChecked);
}

/* ---- the same on a file h5py wrote with libver earliest (superblock v0, object headers v1,
** symbol-table groups): the first commit converts what it touches to version 2 structures; a
** crash before it leaves the original file, byte for byte in content ---- */
#include "test_h5_files.h"

static int sessionEarliest(FaultFile *f, int *pnCommit, CommitHook x, void *pArg) {
  cairn_h5w *w = NULL;
  int rc;
  *pnCommit = 0;
  cairn_h5w_type *tf = cairn_h5w_type_float(4), *ts = cairn_h5w_type_vstring(1);
  float rows[16];
  for (int i = 0; i < 16; i++) rows[i] = (float)i;
  uint64_t d0[2] = {0, 2}, mx[2] = {CAIRN_H5W_UNLIMITED, 2}, ch[2] = {4, 2};
  const char *zNote = "edited by cairn";
  float scale = 4.0f;
#define T(x) do { rc = (x); if (rc) goto done; } while (0)
  T(cairn_h5w_open(f->pF, CAIRN_H5W_RECLAIM, &w));
  T(cairn_h5w_group(w, "/g/new"));
  T(cairn_h5w_attr(w, "/grid", "note", ts, 0, NULL, &zNote));
  T(sessionCommit(w, f, pnCommit, x, pArg));
  T(cairn_h5w_dataset(w, "/g/new/series", tf, 2, d0, mx, &(cairn_h5w_dset_opts){CAIRN_H5W_CHUNKED, ch, "deflate:1", NULL}, NULL));
  T(cairn_h5w_append(w, "/g/new/series", 3, rows));
  T(cairn_h5w_attr(w, "/g", "scale", tf, 0, NULL, &scale));
  T(sessionCommit(w, f, pnCommit, x, pArg));
  T(cairn_h5w_append(w, "/g/new/series", 5, rows + 6));
  T(cairn_h5w_attr_delete(w, "/g", "title"));
  T(sessionCommit(w, f, pnCommit, x, pArg));
  T(cairn_h5w_group(w, "/g/new/deeper"));
  rc = cairn_h5w_close(w);
  w = NULL;
  if (rc) goto done;
  ++*pnCommit;
  if (x) x(pArg, f, *pnCommit);
#undef T
done:
  if (w) cairn_h5w_discard(w);
  cairn_h5w_type_free(tf), cairn_h5w_type_free(ts);
  return rc;
}

static FaultFile *ffSeeded(int failAt, int mode) { return ffOpenSpec(failAt, mode, 0, h5_tiny_earliest, sizeof h5_tiny_earliest); }

static void checkEarliest(const uint8_t *a, size_t n, int done) {
  /* cairn's reader: the original data is intact whatever happened */
  cairn_file *m;
  cairn_h5 *h;
  cairn_h5_obj *o;
  double z[20 * 30];
  CHECK_OK(cairn_memfile_open(a, n, &m));
  CHECK_OK(cairn_h5_open(m, CAIRN_H5_OWN_FILE, &h));
  CHECK_OK(cairn_h5_get(h, "/z", &o));
  CHECK_OK(cairn_h5_read(o, NULL, CAIRN_H5_F64, z, sizeof z));
  for (int i = 0; i < 600; i++) CHECK(z[i] == (i / 30) * 30 + i % 30 + 0.5);
  cairn_h5_obj_close(o);
  cairn_h5_close(h);
}

TEST(h5w_fault, earliest_file) {
  /* state 0 is the file as h5py wrote it */
  const Sweep s = {"earliest file", "early_", sessionEarliest, ffSeeded, checkEarliest, NULL, 1};
  Ref ref;
  int nCommit, nWrite;
  refRun(&s, &ref, &nCommit, &nWrite);
  if (tfFailed()) return;
  FILE *man = fopen(tfTmp("h5w_fault/manifest.txt"), "a");
  CHECK(man);
  int nChecked = 0;
  sweep(&s, &ref, nWrite, man, &nChecked);
  fclose(man);
  CHECK(nChecked == 3 * nWrite);
  printf("    earliest file: %d commits, %d writes, %d crash images verified\n", nCommit, nWrite, nChecked);
}

/* ---- dense link storage (core/h5/w_dense.c): a group that crosses 8 links and keeps growing
** a few links per commit, so the crash points fall into its first dense write, messages added
** to unused space of a committed heap block, the in-place heap header rewrite, new heap blocks
** (with the end-of-file switch that precedes them), B-tree leaf and root splits, links whose
** target moves (a dataset appended in the group), then a reopened session that loads the group
** as it is (RECLAIM) and adds more ---- */
static int sessionDense(FaultFile *f, int *pnCommit, CommitHook x, void *pArg) {
  cairn_h5w *w = NULL;
  int rc;
  *pnCommit = 0;
  cairn_h5w_type *ti = cairn_h5w_type_int(8, 1);
  uint64_t z0 = 0, un = CAIRN_H5W_UNLIMITED, ch = 4;
  int64_t rows = 0, v[4];
  char z[96];
  int nLink = 0;
#define T(x) do { rc = (x); if (rc) goto done; } while (0)
  T(cairn_h5w_create(f->pF, 0, &w));
  T(cairn_h5w_group(w, "/d"));
  T(cairn_h5w_dataset(w, "/d/series", ti, 1, &z0, &un, &(cairn_h5w_dset_opts){CAIRN_H5W_CHUNKED, &ch, NULL, NULL}, NULL));
  for (; nLink < 6; nLink++) {
    cairnFormat(z, sizeof z, "/d/k%d_with_a_longer_name_so_the_heap_needs_new_blocks", nLink);
    T(cairn_h5w_group(w, z));
  }
  T(sessionCommit(w, f, pnCommit, x, pArg));
  for (int c = 0; c < 9; c++) {
    for (int k = 0; k < 5; k++, nLink++) {
      cairnFormat(z, sizeof z, "/d/k%d_with_a_longer_name_so_the_heap_needs_new_blocks", nLink);
      T(cairn_h5w_group(w, z));
    }
    if (c % 2) {
      for (int k = 0; k < 3; k++) v[k] = rows + k;
      T(cairn_h5w_append(w, "/d/series", 3, v));
      rows += 3;
      T(cairn_h5w_attr(w, "/d/series", "rows", ti, 0, NULL, &rows));
    }
    T(sessionCommit(w, f, pnCommit, x, pArg));
  }
  rc = cairn_h5w_close(w);
  w = NULL;
  if (rc) goto done;
  T(cairn_h5w_open(f->pF, CAIRN_H5W_RECLAIM, &w));
  for (int c = 0; c < 2; c++) {
    for (int k = 0; k < 4; k++, nLink++) {
      cairnFormat(z, sizeof z, "/d/k%d_with_a_longer_name_so_the_heap_needs_new_blocks", nLink);
      T(cairn_h5w_group(w, z));
    }
    for (int k = 0; k < 2; k++) v[k] = rows + k;
    T(cairn_h5w_append(w, "/d/series", 2, v));
    rows += 2;
    T(cairn_h5w_attr(w, "/d/series", "rows", ti, 0, NULL, &rows));
    T(sessionCommit(w, f, pnCommit, x, pArg));
  }
  T(cairn_h5w_group(w, "/d/last"));
  rc = cairn_h5w_close(w);
  w = NULL;
  if (rc) goto done;
  ++*pnCommit;
  if (x) x(pArg, f, *pnCommit);
#undef T
done:
  if (w) cairn_h5w_discard(w);
  cairn_h5w_type_free(ti);
  return rc;
}

static void checkDense(const uint8_t *a, size_t n, int done) {
  /* cairn's reader lists the group: 6 + 5 per commit (+ 4 after the reopen) + series */
  cairn_file *m;
  cairn_h5 *h;
  cairn_h5_obj *o;
  cairn_h5_info in;
  CHECK_OK(cairn_memfile_open(a, n, &m));
  CHECK_OK(cairn_h5_open(m, CAIRN_H5_OWN_FILE, &h));
  CHECK_OK(cairn_h5_get(h, "/d", &o));
  CHECK_OK(cairn_h5_info_get(o, &in));
  size_t want = done <= 10 ? 7 + 5 * (size_t)(done - 1) : 52 + 4 * (size_t)(done - 10) + (done == 13);
  CHECK_EQ(in.nLink, want);
  for (size_t i = 0; i < in.nLink; i++) {
    cairn_h5_link l;
    cairn_h5_obj *c;
    char zp[128];
    CHECK_OK(cairn_h5_link_get(o, i, &l));
    cairnFormat(zp, sizeof zp, "/d/%s", l.zName);
    CHECK_OK(cairn_h5_get(h, zp, &c));
    cairn_h5_obj_close(c);
  }
  cairn_h5_obj_close(o);
  cairn_h5_close(h);
}

TEST(h5w_fault, dense_group) {
  const Sweep s = {"dense group", "dense_", sessionDense, ffOpen, checkDense, "/d/after_crash", 0};
  Ref ref;
  int nCommit, nWrite;
  refRun(&s, &ref, &nCommit, &nWrite);
  if (tfFailed()) return;
  CHECK(nCommit >= 12 && nCommit < 16);
  FILE *man = fopen(tfTmp("h5w_fault/manifest.txt"), "a");
  CHECK(man);
  int nChecked = 0;
  sweep(&s, &ref, nWrite, man, &nChecked);
  fclose(man);
  CHECK(nChecked > 2 * nWrite);
  printf("    dense group: %d commits, %d writes, %d crash images verified\n", nCommit, nWrite, nChecked);
}
