/* 2026-11-30 - dense link storage of the HDF5 writer (core/h5/w_dense.c): a group of 10,000
** links created one link per commit, with the bytes each commit writes counted through the host
** handle (they must stay O(log n): a few KiB, not the O(n) of rewriting every link), read back
** through cairn's reader; a later session loads the dense group and keeps editing it in place;
** links whose target moves, soft links, and a link too large for the heap (back to compact).
** The files stay in tfTmp() for tests/interop (h5dump, the libhdf5 C reader, h5py, h5wasm):
**   h5w_dense_10k.h5: /big holds g00000..g09999 (empty groups), "data" (int64, rows 0..n-1
**   appended over the session, n in its attribute "rows") and the soft link "alias" ->
**   /big/g00042; then 100 more groups h00000..h00099 from a second session. */
#include "common/internal.h"
#include "h5/h5w.h"
#include "tf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A host handle that counts what goes through it. */
typedef struct CountFile {
  cairn_file base;
  cairn_file *pIn;
  uint64_t nByte, nWrite;
} CountFile;
static int cfRead(cairn_file *p, void *b, size_t n, uint64_t o, size_t *pn) { return cairn_file_read(((CountFile *)p)->pIn, b, n, o, pn); }
static int cfWrite(cairn_file *p, const void *b, size_t n, uint64_t o) {
  CountFile *c = (CountFile *)p;
  c->nByte += n;
  c->nWrite++;
  return cairn_file_write(c->pIn, b, n, o);
}
static int cfSize(cairn_file *p, uint64_t *pn) { return cairn_file_size(((CountFile *)p)->pIn, pn); }
static int cfTrunc(cairn_file *p, uint64_t n) { return cairn_file_truncate(((CountFile *)p)->pIn, n); }
static int cfSync(cairn_file *p) { return cairn_file_sync(((CountFile *)p)->pIn); }
static int cfClose(cairn_file *p) {
  (void)p;
  return CAIRN_OK;
}
static const cairn_file_methods cfMethods = {1, cfRead, cfWrite, cfSize, cfTrunc, cfSync, cfClose, NULL, NULL, NULL, NULL};

static int cmpStr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every link of zGroup through cairn's reader: exactly the names azWant (any order), each one
** followed (opened) unless it is the soft link. */
static void checkLinks(cairn_file *f, const char *zGroup, char **azWant, int nWant) {
  cairn_h5 *h;
  cairn_h5_obj *g, *c;
  cairn_h5_info in;
  CHECK_OK(cairn_h5_open(f, 0, &h));
  CHECK_OK(cairn_h5_get(h, zGroup, &g));
  CHECK_OK(cairn_h5_info_get(g, &in));
  CHECK_EQ(in.nLink, nWant);
  qsort(azWant, (size_t)nWant, sizeof(char *), cmpStr);
  for (int i = 0; i < nWant && i < (int)in.nLink; i++) {
    cairn_h5_link l;
    CHECK_OK(cairn_h5_link_get(g, (size_t)i, &l));
    if (strcmp(l.zName, azWant[i]) != 0) {
      tfFail(__FILE__, __LINE__, "link %d is '%s', expected '%s'", i, l.zName, azWant[i]);
      break;
    }
    if (l.type != CAIRN_H5_LINK_HARD) continue;
    char z[64];
    snprintf(z, sizeof z, "%s/%s", zGroup, l.zName);
    CHECK_OK(cairn_h5_get(h, z, &c));
    cairn_h5_obj_close(c);
  }
  cairn_h5_obj_close(g);
  cairn_h5_close(h);
}

TEST(h5w_dense, ten_thousand_one_per_commit) {
  enum { N = 10000, M = 100 };
  cairn_file *pIn;
  CHECK_OK(cairn_open(tfTmp("h5w_dense_10k.h5"), CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE | CAIRN_OPEN_TRUNCATE, &pIn));
  CountFile cf = {{&cfMethods}, pIn, 0, 0};
  cairn_h5w *w;
  cairn_h5w_type *ti = cairn_h5w_type_int(8, 1);
  CHECK_OK(cairn_h5w_create(&cf.base, CAIRN_H5W_NOSYNC, &w));
  uint64_t z0 = 0, un = CAIRN_H5W_UNLIMITED, ch = 256;
  CHECK_OK(cairn_h5w_group(w, "/big"));
  CHECK_OK(cairn_h5w_dataset(w, "/big/data", ti, 1, &z0, &un, &(cairn_h5w_dset_opts){CAIRN_H5W_CHUNKED, &ch, NULL, NULL}, NULL));
  CHECK_OK(cairn_h5w_softlink(w, "/big/alias", "/big/g00042"));
  CHECK_OK(cairn_h5w_commit(w));
  char **az = malloc(sizeof(char *) * (N + M + 2));
  CHECK(az);
  int nName = 0;
  az[nName++] = strdup("data");
  az[nName++] = strdup("alias");
  uint64_t maxGroup = 0, maxData = 0, sumDense = 0, nDense = 0, at1000 = 0;
  int64_t rows = 0;
  for (int i = 0; i < N; i++) {
    char z[32];
    snprintf(z, sizeof z, "/big/g%05d", i);
    az[nName++] = strdup(z + 5);
    uint64_t b0 = cf.nByte;
    CHECK_OK(cairn_h5w_group(w, z));
    int bData = i % 100 == 7; /* now and then the dataset in the group grows too: its link moves */
    if (bData) {
      int64_t v[3] = {rows, rows + 1, rows + 2};
      CHECK_OK(cairn_h5w_append(w, "/big/data", 3, v));
      rows += 3;
      CHECK_OK(cairn_h5w_attr(w, "/big/data", "rows", ti, 0, NULL, &rows));
    }
    CHECK_OK(cairn_h5w_commit(w));
    uint64_t nb = cf.nByte - b0;
    if (i >= 8) { /* the group holds more than 8 links: dense */
      if (bData) maxData = CAIRN_MAX(maxData, nb);
      else maxGroup = CAIRN_MAX(maxGroup, nb), sumDense += nb, nDense++;
    }
    if (i == 999) at1000 = maxGroup;
  }
  /* O(log n) per commit: a new link costs its header, one heap message, the B-tree path
  ** (three 512-byte nodes at 10,000 links), the heap header, the parents and the superblock.
  ** Compact storage would rewrite all n link messages (~15 bytes each: 150 KB at the end). */
  CHECK(maxGroup < 4096);
  CHECK(maxData < 16384); /* + a partial chunk of 2 KiB, its B-tree node (2 KiB), the dataset header */
  CHECK(maxGroup < at1000 + 1024); /* no growth with n beyond one more B-tree level */
  printf("    %d links one per commit: max %llu bytes per commit (%llu with an append), mean %llu\n", N,
         (unsigned long long)maxGroup, (unsigned long long)maxData, (unsigned long long)(sumDense / (nDense ? nDense : 1)));
  CHECK_OK(cairn_h5w_close(w));
  uint64_t size1;
  CHECK_OK(cairn_file_size(pIn, &size1));
  checkLinks(pIn, "/big", az, nName);
  /* a second session loads the dense group as it is and keeps adding in place */
  CHECK_OK(cairn_h5w_open(&cf.base, CAIRN_H5W_NOSYNC | CAIRN_H5W_RECLAIM, &w));
  uint64_t maxReopen = 0;
  for (int i = 0; i < M; i++) {
    char z[32];
    snprintf(z, sizeof z, "/big/h%05d", i);
    az[nName++] = strdup(z + 5);
    uint64_t b0 = cf.nByte;
    CHECK_OK(cairn_h5w_group(w, z));
    CHECK_OK(cairn_h5w_commit(w));
    maxReopen = CAIRN_MAX(maxReopen, cf.nByte - b0);
  }
  CHECK(maxReopen < 4096);
  CHECK_OK(cairn_h5w_close(w));
  uint64_t size2;
  CHECK_OK(cairn_file_size(pIn, &size2));
  CHECK(size2 < size1 + M * 1024); /* no rewrite of the group's 10,000 links */
  checkLinks(pIn, "/big", az, nName);
  /* verify walks the dense storage (checksums, every message) */
  uint8_t d[32];
  CHECK_OK(cairn_h5w_open(pIn, CAIRN_H5W_READONLY, &w));
  CHECK_OK(cairn_h5w_verify(w, d));
  cairn_h5w_discard(w);
  /* the data read through the soft link's group and the dataset */
  cairn_h5 *h;
  cairn_h5_obj *o;
  cairn_h5_info in;
  CHECK_OK(cairn_h5_open(pIn, 0, &h));
  CHECK_OK(cairn_h5_get(h, "/big/data", &o));
  CHECK_OK(cairn_h5_info_get(o, &in));
  CHECK_EQ(in.dims[0], rows);
  int64_t *v = malloc(sizeof(int64_t) * (size_t)rows);
  CHECK_OK(cairn_h5_read(o, NULL, CAIRN_H5_I64, v, sizeof(int64_t) * (size_t)rows));
  for (int64_t i = 0; i < rows; i++) CHECK_EQ(v[i], i);
  free(v);
  cairn_h5_obj_close(o);
  CHECK_OK(cairn_h5_get(h, "/big/alias", &o));
  cairn_h5_obj_close(o);
  cairn_h5_close(h);
  for (int i = 0; i < nName; i++) free(az[i]);
  free(az);
  cairn_h5w_type_free(ti);
  cairn_file_close(pIn);
}

/* Dense groups across sessions with RECLAIM: the verify walk accounts for the heap and the
** B-tree, so space the edits free is reused and the file does not grow from session to session;
** a link message too large for the heap turns the group compact again; the threshold. */
TEST(h5w_dense, sessions_and_limits) {
  cairn_file *f;
  CHECK_OK(cairn_open(tfTmp("h5w_dense_sessions.h5"), CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE | CAIRN_OPEN_TRUNCATE, &f));
  cairn_h5w *w;
  cairn_h5w_type *ti = cairn_h5w_type_int(8, 1);
  CHECK_OK(cairn_h5w_create(f, CAIRN_H5W_NOSYNC, &w));
  char z[64];
  char *az[64];
  int nName = 0;
  for (int i = 0; i < 8; i++) { /* 8 links: still compact */
    snprintf(z, sizeof z, "/s%d", i);
    CHECK_OK(cairn_h5w_group(w, z));
    az[nName++] = strdup(z + 1);
  }
  CHECK_OK(cairn_h5w_close(w));
  checkLinks(f, "/", az, nName);
  uint64_t sizes[12];
  for (int s = 0; s < 12; s++) {
    CHECK_OK(cairn_h5w_open(f, CAIRN_H5W_NOSYNC | CAIRN_H5W_RECLAIM, &w));
    if (s < 4) { /* the 9th link makes the root dense */
      snprintf(z, sizeof z, "/t%d", s);
      CHECK_OK(cairn_h5w_group(w, z));
      az[nName++] = strdup(z + 1);
    }
    int64_t v = s;
    CHECK_OK(cairn_h5w_attr(w, "/s3", "session", ti, 0, NULL, &v)); /* /s3's link moves */
    CHECK_OK(cairn_h5w_close(w));
    CHECK_OK(cairn_file_size(f, &sizes[s]));
  }
  for (int s = 5; s < 12; s++) CHECK(sizes[s] <= sizes[4] + 1024); /* without reuse: +2 KiB per session */ /* later sessions only reuse space */
  checkLinks(f, "/", az, nName);
  /* a soft link whose message exceeds what the heap takes: the group goes back to compact,
  ** and readers still see every link */
  CHECK_OK(cairn_h5w_open(f, CAIRN_H5W_NOSYNC, &w));
  char *zLong = malloc(5000);
  memset(zLong, 'x', 4999);
  zLong[0] = '/';
  zLong[4999] = 0;
  CHECK_OK(cairn_h5w_softlink(w, "/long", zLong));
  az[nName++] = strdup("long");
  CHECK_OK(cairn_h5w_close(w));
  checkLinks(f, "/", az, nName);
  free(zLong);
  uint8_t d[32];
  CHECK_OK(cairn_h5w_open(f, CAIRN_H5W_READONLY, &w));
  CHECK_OK(cairn_h5w_verify(w, d));
  cairn_h5w_discard(w);
  for (int i = 0; i < nName; i++) free(az[i]);
  cairn_h5w_type_free(ti);
  cairn_file_close(f);
}

/* Damaged dense storage: a clear error when the group is touched, no crash, file unchanged. */
TEST(h5w_dense, damaged) {
  static const char *azSig[] = {"BTLF", "FHDB", "FHIB", "BTHD", "FRHP"};
  for (int s = 0; s < 5; s++) {
    cairn_file *f;
    CHECK_OK(cairn_memfile_open(NULL, 0, &f));
    cairn_h5w *w;
    CHECK_OK(cairn_h5w_create(f, CAIRN_H5W_NOSYNC, &w));
    for (int i = 0; i < 20; i++) {
      char z[16];
      snprintf(z, sizeof z, "/g%d", i);
      CHECK_OK(cairn_h5w_group(w, z));
    }
    CHECK_OK(cairn_h5w_close(w));
    uint64_t n;
    CHECK_OK(cairn_file_size(f, &n));
    uint8_t *a = malloc((size_t)n), *b = malloc((size_t)n);
    CHECK_OK(cairn_file_read_exact(f, a, (size_t)n, 0));
    size_t at = 0;
    for (size_t i = 0; i + 4 <= n; i++)
      if (memcmp(a + i, azSig[s], 4) == 0) at = i;
    CHECK(at > 0);
    a[at + 20] ^= 0x5a; /* a record, an object, an entry or a field */
    CHECK_OK(cairn_file_write(f, a, (size_t)n, 0));
    CHECK_OK(cairn_h5w_open(f, CAIRN_H5W_NOSYNC, &w));
    int rc = cairn_h5w_group(w, "/new");
    if (rc == CAIRN_OK) rc = cairn_h5w_commit(w);
    CHECK(rc != CAIRN_OK);
    CHECK(strlen(cairn_errmsg()) > 0);
    cairn_h5w_discard(w);
    CHECK_OK(cairn_file_read_exact(f, b, (size_t)n, 0));
    CHECK(memcmp(a, b, (size_t)n) == 0);
    free(a), free(b);
    cairn_file_close(f);
  }
}

/* CAIRN_H5W_TAIL (a caller's bytes past the committed end, as the memory store's log): a heap
** that needs a new block cannot take the end-of-file switch there, so it is rebuilt; the
** caller's bytes stay intact until the commit covers them and the group stays readable. */
TEST(h5w_dense, caller_tail) {
  cairn_file *f;
  CHECK_OK(cairn_memfile_open(NULL, 0, &f));
  cairn_h5w *w;
  CHECK_OK(cairn_h5w_create(f, CAIRN_H5W_NOSYNC, &w));
  char *az[200];
  int nName = 0;
  for (int i = 0; i < 20; i++) {
    char z[32];
    snprintf(z, sizeof z, "/t%d", i);
    CHECK_OK(cairn_h5w_group(w, z));
    az[nName++] = strdup(z + 1);
  }
  CHECK_OK(cairn_h5w_close(w));
  CHECK_OK(cairn_h5w_open(f, CAIRN_H5W_NOSYNC | CAIRN_H5W_TAIL, &w));
  uint8_t log[100];
  for (int i = 0; i < 100; i++) {
    uint64_t size;
    CHECK_OK(cairn_file_size(f, &size));
    memset(log, (uint8_t)i, sizeof log);
    CHECK_OK(cairn_file_write(f, log, sizeof log, size)); /* the caller's tail */
    char z[64];
    snprintf(z, sizeof z, "/t%d_with_a_name_long_enough_to_fill_heap_blocks", 20 + i);
    CHECK_OK(cairn_h5w_group(w, z));
    az[nName++] = strdup(z + 1);
    CHECK_OK(cairn_h5w_commit(w));
    uint8_t back[100];
    CHECK_OK(cairn_file_read_exact(f, back, sizeof back, size));
    CHECK(memcmp(back, log, sizeof log) == 0); /* never overwritten: now inside the file */
  }
  CHECK_OK(cairn_h5w_close(w));
  checkLinks(f, "/", az, nName);
  uint8_t d[32];
  CHECK_OK(cairn_h5w_open(f, CAIRN_H5W_READONLY, &w));
  CHECK_OK(cairn_h5w_verify(w, d));
  cairn_h5w_discard(w);
  for (int i = 0; i < nName; i++) free(az[i]);
  cairn_file_close(f);
}
