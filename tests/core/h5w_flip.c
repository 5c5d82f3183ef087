/*
** 2026-12-02
**
** tests/core/h5w_flip.c - suite h5w_flip: a bit-flip sweep over every byte of a small file
** written by h5w (issue 16), in memory. The file uses the checksummed forms cairn writes for
** its own stores: superblock v2 and object headers v2 (lookup3), a chunked dataset with
** Fletcher-32 on its chunks. For each byte, one bit flipped (bit i % 8 at offset i), then:
**   (a) reading the dataset and the attribute gives the original values or fails, never other
**       values with success, in every byte, the unchecksummed v1 chunk B-tree node ("TREE")
**       included: its keys are checked as they are read (core/h5/format.h, "v1 chunk B-tree
**       nodes"), and a child address that moves lands on bytes whose Fletcher-32 fails;
**   (b) when (a) failed, cairn_h5w_verify (the full walk behind `cairn h5w verify`) fails too;
**   (c) open for writing with RECLAIM + append + commit either fails, or afterwards every value
**       that read fine before the write reads the same (no undamaged committed data lost).
** Also (POSIX): a reader beside a committing writer keeps reading the state it opened.
*/
#include <string.h>

#include "h5/h5w.h"
#include "tf.h"

#define FLIP_ROWS 40
static const char *const kFilters = "fletcher32";

static int flipBuild(uint8_t **pa, size_t *pn) {
  cairn_file *m;
  cairn_h5w *w;
  if (cairn_memfile_open(NULL, 0, &m) || cairn_h5w_create(m, CAIRN_H5W_NOSYNC, &w)) return 1;
  cairn_h5w_type *t = cairn_h5w_type_int(4, 1);
  uint64_t dims[1] = {0}, mx[1] = {CAIRN_H5W_UNLIMITED}, ch[1] = {16};
  cairn_h5w_dset_opts o = {CAIRN_H5W_CHUNKED, ch, kFilters, NULL};
  int32_t v[FLIP_ROWS];
  for (int i = 0; i < FLIP_ROWS; i++) v[i] = 1000 + i * 7;
  int rc = cairn_h5w_dataset(w, "/d", t, 1, dims, mx, &o, NULL);
  for (int k = 0; !rc && k < 4; k++) {
    rc = cairn_h5w_append(w, "/d", FLIP_ROWS / 4, v + k * (FLIP_ROWS / 4));
    if (!rc) rc = cairn_h5w_commit(w);
  }
  int32_t a = 42;
  if (!rc) rc = cairn_h5w_attr(w, "/", "a", t, 0, NULL, &a);
  if (!rc) rc = cairn_h5w_close(w);
  else cairn_h5w_discard(w);
  cairn_h5w_type_free(t);
  const uint8_t *p;
  size_t n;
  if (!rc) rc = cairn_memfile_data(m, &p, &n);
  if (!rc && (*pa = cairn_malloc(n)) != NULL) memcpy(*pa, p, n), *pn = n;
  cairn_file_close(m);
  return rc || !*pa;
}

/* Read /d (nRows values into v, *pnRows its length) and the root's attribute: 0 ok. */
static int flipRead(cairn_file *m, int32_t *v, uint64_t *pnRows, int32_t *pAttr) {
  cairn_h5 *h;
  cairn_h5_obj *o;
  if (cairn_h5_open(m, 0, &h)) return 1;
  int rc = cairn_h5_get(h, "/d", &o);
  if (!rc) {
    cairn_h5_info inf;
    rc = cairn_h5_info_get(o, &inf);
    if (!rc && (inf.rank != 1 || inf.dims[0] > 4 * FLIP_ROWS)) rc = 1;
    if (!rc) *pnRows = inf.dims[0];
    if (!rc) rc = cairn_h5_read(o, NULL, CAIRN_H5_I32, v, (size_t)inf.dims[0] * 4);
    cairn_h5_obj_close(o);
  }
  cairn_h5_obj *r, *a;
  if (!rc) rc = cairn_h5_get(h, "/", &r);
  if (!rc) {
    rc = cairn_h5_attr(r, "a", &a);
    if (!rc) {
      rc = cairn_h5_read(a, NULL, CAIRN_H5_I32, pAttr, 4);
      cairn_h5_obj_close(a);
    }
    cairn_h5_obj_close(r);
  }
  cairn_h5_close(h);
  cairn_clearerr();
  return rc != 0;
}

TEST(h5w_flip, every_byte) {
  uint8_t *a0 = NULL;
  size_t n = 0;
  CHECK_EQ(flipBuild(&a0, &n), 0);
  int32_t want[FLIP_ROWS], got[4 * FLIP_ROWS], attr = 0;
  for (int i = 0; i < FLIP_ROWS; i++) want[i] = 1000 + i * 7;
  uint64_t nRows = 0;
  {
    cairn_file *m;
    CHECK_OK(cairn_memfile_open(a0, n, &m));
    CHECK_EQ(flipRead(m, got, &nRows, &attr), 0);
    CHECK_EQ(nRows, (uint64_t)FLIP_ROWS);
    CHECK_MEM(got, want, sizeof want);
    CHECK_EQ(attr, 42);
    cairn_file_close(m);
  }
  /* the chunk B-tree nodes: keys and child addresses are unchecksummed in HDF5's format;
  ** counted apart to show the sweep reaches them */
  uint8_t *inTree = cairn_malloc(n);
  memset(inTree, 0, n);
  for (size_t i = 0; i + 4 <= n; i++)
    if (memcmp(a0 + i, "TREE", 4) == 0)
      for (size_t k = i; k < n && k < i + 24 + 65 * 24 + 64 * 8; k++) inTree[k] = 1; /* K 32, rank 1: keys of 24 bytes */
  int nTreeCaught = 0;
  uint8_t *a = cairn_malloc(n);
  int nWrong = 0, nWrongTree = 0, nCaught = 0, nHarmless = 0, nWriteRefused = 0, nLost = 0, nVerifyMissed = 0;
  for (size_t i = 0; i < n; i++) {
    memcpy(a, a0, n);
    a[i] ^= (uint8_t)(1u << (i % 8));
    cairn_file *m;
    CHECK_OK(cairn_memfile_open(a, n, &m));
    uint64_t nr = 0;
    int32_t at = 0;
    memset(got, 0, sizeof got);
    int bad = flipRead(m, got, &nr, &at);
    int bSame = !bad && nr == FLIP_ROWS && memcmp(got, want, sizeof want) == 0 && at == 42;
    if (!bad && !bSame) {
      nWrong++;
      if (inTree[i]) nWrongTree++;
      if (nWrong <= 5) printf("    wrong values with success after a flip at byte %zu%s\n", i, inTree[i] ? " (chunk B-tree)" : "");
    }
    if (bad) {
      nCaught++;
      nTreeCaught += inTree[i];
      /* (b) the full walk fails as well */
      cairn_h5w *w;
      uint8_t d[32];
      int rcV = cairn_h5w_open(m, CAIRN_H5W_READONLY, &w);
      if (!rcV) {
        rcV = cairn_h5w_verify(w, d);
        cairn_h5w_discard(w);
      }
      cairn_clearerr();
      if (rcV == CAIRN_OK) {
        nVerifyMissed++;
        if (nVerifyMissed <= 5) printf("    verify passes a file whose read fails: flip at byte %zu\n", i);
      }
    } else if (bSame) nHarmless++;
    /* (c) a later write loses nothing that read fine */
    cairn_h5w *w;
    int rcW = cairn_h5w_open(m, CAIRN_H5W_RECLAIM | CAIRN_H5W_NOSYNC, &w);
    if (!rcW) {
      int32_t extra[3] = {7, 8, 9};
      rcW = cairn_h5w_append(w, "/d", 3, extra);
      if (rcW) cairn_h5w_discard(w);
      else rcW = cairn_h5w_close(w);
    }
    cairn_clearerr();
    if (rcW) nWriteRefused++;
    else if (bSame) {
      int32_t got2[4 * FLIP_ROWS], at2 = 0;
      uint64_t nr2 = 0;
      int bad2 = flipRead(m, got2, &nr2, &at2);
      if (bad2 || nr2 != FLIP_ROWS + 3 || memcmp(got2, want, sizeof want) != 0 || at2 != 42) {
        nLost++;
        if (nLost <= 5) printf("    a write after a flip at byte %zu lost committed data\n", i);
      }
    }
    cairn_file_close(m);
  }
  printf("    %zu bytes: %d caught (%d in the chunk B-tree), %d harmless, %d wrong (%d in the B-tree), %d writes refused\n", n, nCaught,
         nTreeCaught, nHarmless, nWrong, nWrongTree, nWriteRefused);
  CHECK_EQ(nWrong, 0);
  CHECK(nTreeCaught > 0);
  CHECK_EQ(nVerifyMissed, 0);
  CHECK_EQ(nLost, 0);
  cairn_free(a);
  cairn_free(inTree);
  cairn_free(a0);
}

/* A chunk B-tree child address changed to another chunk's (the one damage Fletcher-32 cannot
** see: the chunk it names is whole): the read and the full walk both refuse the file. */
TEST(h5w_flip, chunk_address_alias) {
  uint8_t *a = NULL;
  size_t n = 0;
  CHECK_EQ(flipBuild(&a, &n), 0);
  size_t t = 0;
  for (size_t i = 0; i + 4 <= n; i++)
    if (memcmp(a + i, "TREE", 4) == 0) t = i;
  CHECK(t > 0);
  CHECK_EQ(a[t + 6], 3); /* 3 chunks of 16 rows for 40 rows */
  /* body at t+24: key (24 bytes: size, mask, 2 offsets) then an 8-byte address, per child */
  memcpy(a + t + 24 + 24 + 32, a + t + 24 + 24, 8); /* child 1 -> child 0's address */
  cairn_file *m;
  CHECK_OK(cairn_memfile_open(a, n, &m));
  int32_t got[4 * FLIP_ROWS], at = 0;
  uint64_t nr = 0;
  CHECK(flipRead(m, got, &nr, &at) != 0);
  cairn_h5w *w;
  uint8_t d[32];
  int rc = cairn_h5w_open(m, CAIRN_H5W_READONLY, &w);
  if (!rc) {
    rc = cairn_h5w_verify(w, d);
    CHECK(strstr(cairn_errmsg(), "two chunks") != NULL);
    cairn_h5w_discard(w);
  }
  CHECK_EQ(rc, CAIRN_CORRUPT);
  cairn_clearerr();
  cairn_file_close(m);
  cairn_free(a);
}

#if !defined(__wasi__) && !defined(__EMSCRIPTEN__) && defined(__linux__)
/* A reader that opened before a writer's commits keeps reading its own state whole: the space
** those commits free (the partial last chunk rewritten by each append, old headers) is held,
** not reused, while the reader has the file (WRITER.md, "One writer, many readers"). Once the
** reader is gone, a commit frees it and the file stops growing. */
TEST(h5w_flip, reader_beside_writer) {
  const char *zPath = tfTmp("h5w_readers.h5");
  cairn_file *fw, *fr;
  cairn_h5w *w;
  CHECK_OK(cairn_open(zPath, CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE, &fw));
  CHECK_OK(cairn_h5w_create(fw, CAIRN_H5W_NOSYNC, &w));
  cairn_h5w_type *t = cairn_h5w_type_int(4, 1);
  uint64_t dims[1] = {0}, mx[1] = {CAIRN_H5W_UNLIMITED}, ch[1] = {64};
  cairn_h5w_dset_opts o = {CAIRN_H5W_CHUNKED, ch, NULL, NULL}; /* unfiltered: reuse would go unseen */
  CHECK_OK(cairn_h5w_dataset(w, "/d", t, 1, dims, mx, &o, NULL));
  int32_t v[400];
  for (int i = 0; i < 400; i++) v[i] = i * 3 + 1;
  CHECK_OK(cairn_h5w_append(w, "/d", 10, v));
  CHECK_OK(cairn_h5w_commit(w));
  /* the reader opens at 10 rows and reads (its lock comes with the read) */
  CHECK_OK(cairn_open(zPath, CAIRN_OPEN_READONLY, &fr));
  cairn_h5 *h;
  cairn_h5_obj *d;
  int32_t got[400];
  CHECK_OK(cairn_h5_open(fr, 0, &h));
  CHECK_OK(cairn_h5_cache_budget(h, 0)); /* every structure from the file, none from memory */
  CHECK_OK(cairn_h5_get(h, "/d", &d));
  CHECK_OK(cairn_h5_read(d, NULL, CAIRN_H5_I32, got, 40));
  CHECK_MEM(got, v, 40);
  uint64_t size0 = 0, size1 = 0, size2 = 0;
  for (int k = 1; k < 30; k++) { /* the partial chunk of the reader's state is rewritten each time */
    CHECK_OK(cairn_h5w_append(w, "/d", 10, v + 10 * k));
    CHECK_OK(cairn_h5w_commit(w));
    CHECK_OK(cairn_h5_read(d, NULL, CAIRN_H5_I32, got, 40));
    CHECK_MEM(got, v, 40);
    if (k == 1) CHECK_OK(cairn_file_size(fw, &size0));
  }
  CHECK_OK(cairn_file_size(fw, &size1));
  CHECK(size1 > size0); /* held space: the file grew */
  cairn_h5_obj_close(d);
  cairn_h5_close(h);
  cairn_file_close(fr);
  /* no reader: the next commit frees what was held, later ones reuse it */
  for (int k = 30; k < 40; k++) {
    CHECK_OK(cairn_h5w_append(w, "/d", 10, v + 10 * k));
    CHECK_OK(cairn_h5w_commit(w));
  }
  CHECK_OK(cairn_file_size(fw, &size2));
  CHECK(size2 <= size1);
  CHECK_OK(cairn_h5w_close(w));
  cairn_h5w_type_free(t);
  /* a fresh reader reads all 400 rows */
  CHECK_OK(cairn_h5_open(fw, 0, &h));
  CHECK_OK(cairn_h5_get(h, "/d", &d));
  CHECK_OK(cairn_h5_read(d, NULL, CAIRN_H5_I32, got, sizeof got));
  CHECK_MEM(got, v, sizeof v);
  cairn_h5_obj_close(d);
  cairn_h5_close(h);
  cairn_file_close(fw);
}
#endif
