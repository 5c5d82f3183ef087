/* 2026-11-29 - the HDF5 writer: a corpus of files (every type, layout and filter; nested and
** wide groups; attributes; appends across sessions) written to tfTmp("h5w/"), reopened by the
** writer itself, and left there for tests/interop/ (h5dump, libhdf5, h5py, h5wasm, jsfive),
** which recompute every value from the same formulas. Keep the formulas in sync with
** tests/interop/check_h5py.py and tests/interop/h5w_read.c. */
#include "common/internal.h"
#include "h5/h5w.h"
#include "codec/lz4.h"
#include "tf.h"
#include "oom.h"

#include <stdlib.h>

static cairn_file *openOut(const char *zName) {
  cairn_file *f = NULL;
  if (cairn_open(tfTmp(zName), CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE | CAIRN_OPEN_TRUNCATE, &f)) return NULL;
  return f;
}

/* ---- types.h5 ---- */
TEST(h5w, types) {
  cairn_file *f = openOut("h5w_types.h5");
  CHECK(f);
  cairn_h5w *w;
  CHECK_OK(cairn_h5w_create(f, CAIRN_H5W_NOSYNC, &w));
  uint64_t n = 1000;
  int8_t a8[1000];
  uint16_t a16[1000];
  int32_t a32[1000];
  uint64_t au64[1000];
  int64_t a64[1000];
  float af[1000];
  double ad[1000];
  for (int i = 0; i < 1000; i++) {
    a8[i] = (int8_t)(i % 200 - 100);
    a16[i] = (uint16_t)(i * 61);
    a32[i] = i * 1000 - 500000;
    au64[i] = (uint64_t)i * 0x100000001ull;
    a64[i] = -(int64_t)i * 123456789;
    af[i] = (float)i * 0.25f - 3.0f;
    ad[i] = (double)i * 1e-3 + 1e10;
  }
  cairn_h5w_type *ti8 = cairn_h5w_type_int(1, 1), *tu16 = cairn_h5w_type_int(2, 0), *ti32 = cairn_h5w_type_int(4, 1),
                 *tu64 = cairn_h5w_type_int(8, 0), *ti64 = cairn_h5w_type_int(8, 1), *tf32 = cairn_h5w_type_float(4),
                 *tf64 = cairn_h5w_type_float(8);
  CHECK_OK(cairn_h5w_dataset(w, "/i8", ti8, 1, &n, NULL, NULL, a8));
  CHECK_OK(cairn_h5w_dataset(w, "/u16", tu16, 1, &n, NULL, NULL, a16));
  CHECK_OK(cairn_h5w_dataset(w, "/i32", ti32, 1, &n, NULL, NULL, a32));
  CHECK_OK(cairn_h5w_dataset(w, "/u64", tu64, 1, &n, NULL, NULL, au64));
  CHECK_OK(cairn_h5w_dataset(w, "/i64", ti64, 1, &n, NULL, NULL, a64));
  CHECK_OK(cairn_h5w_dataset(w, "/f32", tf32, 1, &n, NULL, NULL, af));
  CHECK_OK(cairn_h5w_dataset(w, "/f64", tf64, 1, &n, NULL, NULL, ad));
  /* fixed strings "s<i>" nul-padded to 8 */
  cairn_h5w_type *tfs = cairn_h5w_type_string(8, 1, 0);
  char fs[20][8];
  memset(fs, 0, sizeof fs);
  for (int i = 0; i < 20; i++) cairnFormat(fs[i], 8, "s%d", i);
  uint64_t n20 = 20;
  CHECK_OK(cairn_h5w_dataset(w, "/fstr", tfs, 1, &n20, NULL, NULL, fs));
  /* variable-length strings, one longer than a global heap collection */
  cairn_h5w_type *tvs = cairn_h5w_type_vstring(1);
  char *big = cairnMalloc(6001);
  memset(big, 'x', 6000);
  big[6000] = 0;
  const char *vs[5] = {"alpha", "", "\xce\xb2-unicode", big, "omega"};
  uint64_t n5 = 5;
  CHECK_OK(cairn_h5w_dataset(w, "/vstr", tvs, 1, &n5, NULL, NULL, vs));
  /* compound {a int32 @0, b f64 @4, c char[4] @12} */
  cairn_h5w_type *tc = cairn_h5w_type_compound(16), *tc4 = cairn_h5w_type_string(4, 1, 0);
  CHECK_OK(cairn_h5w_type_insert(tc, "a", 0, ti32));
  CHECK_OK(cairn_h5w_type_insert(tc, "b", 4, tf64));
  CHECK_OK(cairn_h5w_type_insert(tc, "c", 12, tc4));
  CHECK_RC(cairn_h5w_type_insert(tc, "d", 14, ti32), CAIRN_RANGE);
  uint8_t rec[10][16];
  for (int i = 0; i < 10; i++) {
    int32_t a = i * 7;
    double b = i / 4.0;
    memcpy(rec[i], &a, 4);
    memcpy(rec[i] + 4, &b, 8);
    memcpy(rec[i] + 12, "abcd", 4);
    rec[i][15] = (uint8_t)('0' + i);
  }
  uint64_t n10 = 10;
  CHECK_OK(cairn_h5w_dataset(w, "/cmpd", tc, 1, &n10, NULL, NULL, rec));
  /* enum over uint8 */
  cairn_h5w_type *tu8 = cairn_h5w_type_int(1, 0), *te = cairn_h5w_type_enum(tu8);
  uint8_t ev[3] = {0, 1, 2};
  CHECK_OK(cairn_h5w_type_enum_insert(te, "RED", &ev[0]));
  CHECK_OK(cairn_h5w_type_enum_insert(te, "GREEN", &ev[1]));
  CHECK_OK(cairn_h5w_type_enum_insert(te, "BLUE", &ev[2]));
  uint8_t en[30];
  for (int i = 0; i < 30; i++) en[i] = (uint8_t)(i % 3);
  uint64_t n30 = 30;
  CHECK_OK(cairn_h5w_dataset(w, "/enum", te, 1, &n30, NULL, NULL, en));
  /* array of f32[3] */
  uint64_t three = 3;
  cairn_h5w_type *ta = cairn_h5w_type_array(tf32, 1, &three);
  float arr[10][3];
  for (int i = 0; i < 10; i++)
    for (int j = 0; j < 3; j++) arr[i][j] = (float)(i * 3 + j) + 0.5f;
  CHECK_OK(cairn_h5w_dataset(w, "/arr", ta, 1, &n10, NULL, NULL, arr));
  double sc = 3.5;
  CHECK_OK(cairn_h5w_dataset(w, "/scalar", tf64, 0, NULL, NULL, NULL, &sc));
  /* half floats: i * 0.5 for i < 100 (exact in binary16), built bit by bit */
  cairn_h5w_type *tf16 = cairn_h5w_type_float(2);
  uint16_t h16[100];
  for (int i = 0; i < 100; i++) {
    int v = i; /* i * 0.5 = v * 2^-1 */
    if (v == 0) { h16[i] = 0; continue; }
    int e = 0;
    while ((v >> e) > 1) e++;
    int exp = e - 1 + 15, mant = (v << (10 - e)) & 0x3ff;
    h16[i] = (uint16_t)((exp << 10) | mant);
  }
  uint64_t n100 = 100;
  CHECK_OK(cairn_h5w_dataset(w, "/f16", tf16, 1, &n100, NULL, NULL, h16));
  cairn_h5w_type_free(tf16);
  /* variable-length sequences of int32: element k holds 0..k-1 (element 0 is empty) */
  cairn_h5w_type *tvi = cairn_h5w_type_vlen(ti32);
  int32_t seq[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  cairn_h5w_vl vl[6];
  for (int k = 0; k < 6; k++) vl[k].n = (size_t)k, vl[k].p = k ? seq : NULL;
  uint64_t n6 = 6;
  CHECK_OK(cairn_h5w_dataset(w, "/vseq", tvi, 1, &n6, NULL, NULL, vl));
  CHECK_OK(cairn_h5w_attr(w, "/vseq", "one", tvi, 0, NULL, &vl[3]));
  cairn_h5w_type_free(tvi);
  /* compact 2-D int16 */
  cairn_h5w_type *ti16 = cairn_h5w_type_int(2, 1);
  int16_t cm[4][5];
  for (int i = 0; i < 20; i++) cm[i / 5][i % 5] = (int16_t)(i * 11 - 100);
  uint64_t d45[2] = {4, 5};
  cairn_h5w_dset_opts oc = {CAIRN_H5W_COMPACT, NULL, NULL, NULL};
  CHECK_OK(cairn_h5w_dataset(w, "/compact", ti16, 2, d45, NULL, &oc, cm));
  /* no data: reads as the fill value */
  float fill = -1.5f;
  cairn_h5w_dset_opts of = {CAIRN_H5W_CONTIGUOUS, NULL, NULL, &fill};
  CHECK_OK(cairn_h5w_dataset(w, "/filled", tf32, 1, &n20, NULL, &of, NULL));
  /* nested groups and attributes of every kind */
  CHECK_OK(cairn_h5w_group(w, "/g1"));
  CHECK_OK(cairn_h5w_group(w, "/g1/g2"));
  CHECK_OK(cairn_h5w_dataset(w, "/g1/g2/leaf", ti32, 1, &n10, NULL, NULL, a32));
  const char *title = "cairn writer test";
  CHECK_OK(cairn_h5w_attr(w, "/", "title", tvs, 0, NULL, &title));
  int32_t ver = 42;
  CHECK_OK(cairn_h5w_attr(w, "/", "version", ti32, 0, NULL, &ver));
  double vec[3] = {1.0, -2.0, 3.25};
  CHECK_OK(cairn_h5w_attr(w, "/g1", "vec", tf64, 1, &three, vec));
  char units[8] = "m/s";
  CHECK_OK(cairn_h5w_attr(w, "/f32", "units", tfs, 0, NULL, units));
  float scale = 0.125f;
  CHECK_OK(cairn_h5w_attr(w, "/f32", "scale", tf32, 0, NULL, &scale));
  CHECK_OK(cairn_h5w_attr(w, "/g1/g2", "rec", tc, 0, NULL, rec[3]));
  CHECK_OK(cairn_h5w_attr(w, "/g1/g2", "color", te, 0, NULL, &ev[2]));
  CHECK_OK(cairn_h5w_attr(w, "/g1/g2", "names", tvs, 1, &three, vs));
  /* bad requests leave everything as it was */
  CHECK_RC(cairn_h5w_group(w, "/g1"), CAIRN_EXISTS);
  CHECK_RC(cairn_h5w_dataset(w, "/i8", ti8, 1, &n, NULL, NULL, a8), CAIRN_EXISTS);
  CHECK_RC(cairn_h5w_group(w, "/nope/x"), CAIRN_NOTFOUND);
  CHECK_RC(cairn_h5w_group(w, "/f32/x"), CAIRN_TYPE);
  CHECK_RC(cairn_h5w_append(w, "/f32", 1, af), CAIRN_TYPE);
  CHECK_RC(cairn_h5w_attr(w, "/missing", "a", ti32, 0, NULL, &ver), CAIRN_NOTFOUND);
  uint64_t huge = 20000;
  CHECK_RC(cairn_h5w_attr(w, "/", "huge", tf64, 1, &huge, ad), CAIRN_RANGE);
  CHECK_RC(cairn_h5w_dataset(w, "/cbig", ti16, 2, d45, NULL, &(cairn_h5w_dset_opts){CAIRN_H5W_COMPACT, NULL, "zstd", NULL}, cm), CAIRN_MISUSE);
  CHECK_RC(cairn_h5w_dataset(w, "/badf", tf32, 1, &n, NULL, &(cairn_h5w_dset_opts){0, NULL, "snappy", NULL}, af), CAIRN_MISUSE);
  CHECK_OK(cairn_h5w_close(w));
  cairnFree(big);
  /* The writer reopens its own file and sees what it wrote. */
  CHECK_OK(cairn_h5w_open(f, CAIRN_H5W_READONLY, &w));
  int rank;
  uint64_t dims[8];
  CHECK_OK(cairn_h5w_shape(w, "/g1/g2/leaf", &rank, dims));
  CHECK_EQ(rank, 1);
  CHECK_EQ(dims[0], 10);
  CHECK_OK(cairn_h5w_shape(w, "compact", &rank, dims));
  CHECK_EQ(rank, 2);
  CHECK_EQ(dims[1], 5);
  CHECK_RC(cairn_h5w_group(w, "/new"), CAIRN_READONLY);
  cairn_h5w_discard(w);
  cairn_file_close(f);
  cairn_h5w_type *all[] = {ti8, tu16, ti32, tu64, ti64, tf32, tf64, tfs, tvs, tc, tc4, tu8, te, ta, ti16};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) cairn_h5w_type_free(all[i]);
}

/* ---- chunked.h5: every filter, edge chunks, resizable datasets ---- */
static const char *kFilters[] = {"", "shuffle,deflate:6", "zstd:3", "lz4", "fletcher32", "shuffle,zstd:1,fletcher32", "deflate:1,fletcher32", "shuffle,lz4"};

TEST(h5w, chunked) {
  cairn_file *f = openOut("h5w_chunked.h5");
  CHECK(f);
  cairn_h5w *w;
  CHECK_OK(cairn_h5w_create(f, CAIRN_H5W_NOSYNC, &w));
  cairn_h5w_type *tf32 = cairn_h5w_type_float(4), *ti32 = cairn_h5w_type_int(4, 1), *tf64 = cairn_h5w_type_float(8);
  uint64_t dims[2] = {100, 70}, chunk[2] = {16, 32};
  float *a = cairnMalloc(sizeof(float) * 7000);
  for (int i = 0; i < 7000; i++) a[i] = (float)i * 0.5f;
  for (size_t k = 0; k < sizeof kFilters / sizeof kFilters[0]; k++) {
    char zName[32];
    cairnFormat(zName, sizeof zName, "/c%d", (int)k);
    cairn_h5w_dset_opts o = {CAIRN_H5W_CHUNKED, chunk, kFilters[k], NULL};
    CHECK_OK(cairn_h5w_dataset(w, zName, tf32, 2, dims, NULL, &o, a));
    CHECK_OK(cairn_h5w_attr(w, zName, "filters", tf32, 0, NULL, &a[k]));
  }
  /* resizable: int32 (N x 3), chunk 8 x 3, appended in uneven pieces across commits */
  uint64_t d0[2] = {0, 3}, mx[2] = {CAIRN_H5W_UNLIMITED, 3}, ch[2] = {8, 3};
  CHECK_OK(cairn_h5w_dataset(w, "/ext", ti32, 2, d0, mx, &(cairn_h5w_dset_opts){CAIRN_H5W_CHUNKED, ch, "shuffle,deflate:4", NULL}, NULL));
  int32_t rows[100 * 3];
  for (int i = 0; i < 300; i++) rows[i] = i;
  uint64_t done = 0, piece[] = {1, 5, 17, 2, 8, 30, 37};
  for (size_t k = 0; k < sizeof piece / sizeof piece[0]; k++) {
    CHECK_OK(cairn_h5w_append(w, "/ext", piece[k], rows + done * 3));
    done += piece[k];
    if (k % 2) CHECK_OK(cairn_h5w_commit(w));
  }
  CHECK_EQ(done, 100);
  /* fixed-size chunked with a fill value and no data; and a 1-D resizable with a partial chunk */
  uint64_t d10[2] = {10, 10}, c5[2] = {5, 5};
  int32_t fillv = -7;
  CHECK_OK(cairn_h5w_dataset(w, "/fillonly", ti32, 2, d10, NULL, &(cairn_h5w_dset_opts){CAIRN_H5W_CHUNKED, c5, NULL, &fillv}, NULL));
  uint64_t z = 0, un = CAIRN_H5W_UNLIMITED, c10 = 10;
  CHECK_OK(cairn_h5w_dataset(w, "/partial", tf64, 1, &z, &un, &(cairn_h5w_dset_opts){CAIRN_H5W_CHUNKED, &c10, "zstd", NULL}, NULL));
  double pv[25];
  for (int i = 0; i < 25; i++) pv[i] = i * 1.5;
  CHECK_OK(cairn_h5w_append(w, "/partial", 25, pv));
  /* a 1-D series long enough for a two-level B-tree (70 chunks of 4) */
  CHECK_OK(cairn_h5w_dataset(w, "/long", ti32, 1, &z, &un, &(cairn_h5w_dset_opts){CAIRN_H5W_CHUNKED, (uint64_t[]){4}, NULL, NULL}, NULL));
  int32_t lv[280];
  for (int i = 0; i < 280; i++) lv[i] = i * 3 + 1;
  for (int i = 0; i < 280; i += 10) CHECK_OK(cairn_h5w_append(w, "/long", 10, lv + i));
  /* shape and limits */
  CHECK_RC(cairn_h5w_append(w, "/fillonly", 1, rows), CAIRN_RANGE);
  int rank;
  uint64_t sh[8];
  CHECK_OK(cairn_h5w_shape(w, "/ext", &rank, sh));
  CHECK_EQ(sh[0], 100);
  CHECK_OK(cairn_h5w_close(w));
  cairnFree(a);
  /* reopen and append more: the partial tail chunk is read back through the filters */
  CHECK_OK(cairn_h5w_open(f, 0, &w));
  CHECK_OK(cairn_h5w_append(w, "/partial", 0, NULL));
  double pv2[10];
  for (int i = 0; i < 10; i++) pv2[i] = (25 + i) * 1.5;
  CHECK_OK(cairn_h5w_append(w, "/partial", 10, pv2));
  CHECK_OK(cairn_h5w_append(w, "/long", 0, NULL));
  int32_t lv2[20];
  for (int i = 0; i < 20; i++) lv2[i] = (280 + i) * 3 + 1;
  CHECK_OK(cairn_h5w_append(w, "/long", 20, lv2));
  CHECK_OK(cairn_h5w_close(w));
  CHECK_OK(cairn_h5w_open(f, CAIRN_H5W_READONLY, &w));
  CHECK_OK(cairn_h5w_shape(w, "/partial", &rank, sh));
  CHECK_EQ(sh[0], 35);
  CHECK_OK(cairn_h5w_shape(w, "/long", &rank, sh));
  CHECK_EQ(sh[0], 300);
  cairn_h5w_discard(w);
  cairn_file_close(f);
  cairn_h5w_type_free(tf32), cairn_h5w_type_free(ti32), cairn_h5w_type_free(tf64);
}

/* ---- wide.h5: 2000 groups in one group, 128 attributes on one dataset, edits over sessions ---- */
TEST(h5w, wide) {
  /* created over an older, larger HDF5 file opened WITHOUT truncation (as the CLI, the npm
  ** package and the bench replace files): cairn_h5w_create must discard all of it */
  cairn_file *f = openOut("h5w_wide.h5");
  CHECK(f);
  cairn_h5w *w;
  {
    CHECK_OK(cairn_h5w_create(f, CAIRN_H5W_NOSYNC, &w));
    cairn_h5w_type *tu8 = cairn_h5w_type_int(1, 0);
    uint64_t nOld = 300000;
    uint8_t *old = cairnMallocZero(nOld);
    CHECK(old);
    CHECK_OK(cairn_h5w_dataset(w, "/old", tu8, 1, &nOld, NULL, NULL, old));
    CHECK_OK(cairn_h5w_close(w));
    cairnFree(old);
    cairn_h5w_type_free(tu8);
  }
  cairn_file_close(f);
  CHECK_OK(cairn_open(tfTmp("h5w_wide.h5"), CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE, &f));
  CHECK_OK(cairn_h5w_create(f, CAIRN_H5W_NOSYNC, &w));
  /* before the first commit the file must not open as anything (the old superblocks are
  ** invalidated at create) */
  cairn_h5 *h5old = NULL;
  CHECK(cairn_h5_open(f, 0, &h5old) != CAIRN_OK);
  CHECK(h5old == NULL);
  uint64_t size0;
  CHECK_OK(cairn_h5w_group(w, "/many"));
  char z[64];
  for (int i = 0; i < 2000; i++) {
    cairnFormat(z, sizeof z, "/many/g%d", i);
    CHECK_OK(cairn_h5w_group(w, z));
  }
  cairn_h5w_type *ti64 = cairn_h5w_type_int(8, 1), *tf32 = cairn_h5w_type_float(4);
  uint64_t n4 = 4;
  float v4[4] = {1, 2, 3, 4};
  CHECK_OK(cairn_h5w_dataset(w, "/attrs", tf32, 1, &n4, NULL, NULL, v4));
  for (int i = 0; i < 128; i++) {
    int64_t v = (int64_t)i * i - 7;
    cairnFormat(z, sizeof z, "a%d", i);
    CHECK_OK(cairn_h5w_attr(w, "/attrs", z, ti64, 0, NULL, &v));
  }
  CHECK_OK(cairn_h5w_commit(w));
  cairn_h5w_stats st0;
  CHECK_OK(cairn_h5w_stats_get(w, &st0));
  CHECK_OK(cairn_h5w_close(w));
  CHECK_OK(cairn_file_size(f, &size0));
  CHECK_EQ(size0, st0.nEof);
  /* session 2: overwrite attributes, add groups and datasets deep in the tree */
  CHECK_OK(cairn_h5w_open(f, 0, &w));
  for (int i = 0; i < 128; i += 2) {
    int64_t v = -(int64_t)i;
    cairnFormat(z, sizeof z, "a%d", i);
    CHECK_OK(cairn_h5w_attr(w, "/attrs", z, ti64, 0, NULL, &v));
  }
  CHECK_OK(cairn_h5w_attr_delete(w, "/attrs", "a127"));
  CHECK_RC(cairn_h5w_attr_delete(w, "/attrs", "a127"), CAIRN_NOTFOUND);
  CHECK_OK(cairn_h5w_group(w, "/many/g1999/sub"));
  CHECK_OK(cairn_h5w_dataset(w, "/many/g7/data", tf32, 1, &n4, NULL, NULL, v4));
  CHECK_RC(cairn_h5w_group(w, "/many/g5"), CAIRN_EXISTS);
  CHECK_OK(cairn_h5w_close(w));
  cairn_h5w_stats st;
  uint64_t size1, size2;
  CHECK_OK(cairn_file_size(f, &size1));
  /* session 3: an attribute overwritten many times must not grow the file without bound */
  CHECK_OK(cairn_h5w_open(f, 0, &w));
  for (int i = 0; i < 50; i++) {
    int64_t v = i;
    CHECK_OK(cairn_h5w_attr(w, "/many/g7/data", "counter", ti64, 0, NULL, &v));
    CHECK_OK(cairn_h5w_commit(w));
  }
  CHECK_OK(cairn_h5w_stats_get(w, &st));
  CHECK_OK(cairn_h5w_close(w));
  CHECK_OK(cairn_file_size(f, &size2));
  CHECK(size2 < size1 + 3 * 60000); /* root + /many (2000 links) rewritten, old copies reused */
  CHECK_EQ(st.nEof, size2);
  cairn_file_close(f);
  cairn_h5w_type_free(ti64), cairn_h5w_type_free(tf32);
}

/* ---- filters on their own ---- */
TEST(h5w, lz4_fletcher) {
  enum { N = 20000 };
  uint8_t *src = cairn_malloc(N), *dst = cairn_malloc(N + N / 255 + 16), *back = cairn_malloc(N);
  CHECK(src && dst && back);
  for (int i = 0; i < 20000; i++) src[i] = (uint8_t)((i / 7) % 13 + (i % 1000 == 0 ? i : 0));
  size_t n = cairnLz4Compress(src, N, dst, (N + N / 255 + 16)), got;
  CHECK(n < 5000);
  CHECK_OK(cairnLz4Decompress(dst, n, back, N, &got));
  CHECK_EQ(got, N);
  CHECK_MEM(src, back, N);
  tfFillRandom(src, N, 5);
  n = cairnLz4Compress(src, N, dst, (N + N / 255 + 16));
  CHECK(n <= cairnLz4Bound(N));
  CHECK_OK(cairnLz4Decompress(dst, n, back, N, &got));
  CHECK_MEM(src, back, N);
  CHECK(cairnLz4Decompress(dst, n - 3, back, N, &got) != CAIRN_OK || got != N);
  cairn_free(src), cairn_free(dst), cairn_free(back);
}

/* ---- cairn's own reader (core/h5/r_*.c) reads the corpus back, value by value ---- */
static int readF64(cairn_h5 *h, const char *zPath, double *a, size_t n) {
  cairn_h5_obj *o;
  int rc = cairn_h5_get(h, zPath, &o);
  if (rc) return rc;
  cairn_h5_info in;
  rc = cairn_h5_info_get(o, &in);
  if (!rc && in.nElem != n) rc = cairn_seterr(CAIRN_RANGE, "%s: %llu elements, want %zu", zPath, (unsigned long long)in.nElem, n);
  if (!rc) rc = cairn_h5_read(o, NULL, CAIRN_H5_F64, a, n * sizeof(double));
  cairn_h5_obj_close(o);
  return rc;
}

TEST(h5w, reader_reads_back) {
  /* the three corpus files are written by the tests above (same suite, run in order) */
  cairn_h5 *h;
  double *a = cairnMalloc(sizeof(double) * 7000);
  CHECK(a);
  cairn_h5_obj *o, *at;
  char *z;
  size_t nz;
  CHECK_OK(cairn_h5_open_path(tfTmp("h5w_types.h5"), &h));
  CHECK_OK(readF64(h, "/f32", a, 1000));
  for (int i = 0; i < 1000; i++) CHECK(a[i] == (double)((float)i * 0.25f - 3.0f));
  CHECK_OK(readF64(h, "/i64", a, 1000));
  for (int i = 0; i < 1000; i++) CHECK(a[i] == (double)(-(int64_t)i * 123456789));
  CHECK_OK(cairn_h5_get(h, "/vseq", &o));
  CHECK_OK(cairn_h5_read_json(o, NULL, &z, &nz));
  CHECK_STR(z, "[[],[0],[0,1],[0,1,2],[0,1,2,3],[0,1,2,3,4]]");
  cairn_free(z);
  cairn_h5_obj_close(o);
  CHECK_OK(readF64(h, "/f16", a, 100));
  for (int i = 0; i < 100; i++) CHECK(a[i] == i * 0.5);
  CHECK_OK(readF64(h, "/compact", a, 20));
  for (int i = 0; i < 20; i++) CHECK(a[i] == i * 11 - 100);
  CHECK_OK(readF64(h, "/filled", a, 20));
  CHECK(a[19] == -1.5);
  CHECK_OK(cairn_h5_get(h, "/vstr", &o));
  CHECK_OK(cairn_h5_read_json(o, NULL, &z, &nz));
  CHECK(strncmp(z, "[\"alpha\",\"\",\"\xce\xb2-unicode\",\"xxxx", 25) == 0 && strstr(z, "\"omega\"]"));
  cairn_free(z);
  cairn_h5_obj_close(o);
  CHECK_OK(cairn_h5_get(h, "/cmpd", &o));
  CHECK_OK(cairn_h5_read_json(o, NULL, &z, &nz));
  CHECK(strstr(z, "{\"a\":21,\"b\":0.75,\"c\":\"abc3\"}") != NULL);
  cairn_free(z);
  cairn_h5_obj_close(o);
  CHECK_OK(cairn_h5_get(h, "/enum", &o));
  CHECK_OK(cairn_h5_read_json(o, NULL, &z, &nz));
  CHECK(strncmp(z, "[\"RED\",\"GREEN\",\"BLUE\",\"RED\"", 26) == 0);
  cairn_free(z);
  cairn_h5_obj_close(o);
  CHECK_OK(cairn_h5_get(h, "/g1/g2", &o));
  CHECK_OK(cairn_h5_attr(o, "names", &at));
  CHECK_OK(cairn_h5_read_json(at, NULL, &z, &nz));
  CHECK_STR(z, "[\"alpha\",\"\",\"\xce\xb2-unicode\"]");
  cairn_free(z);
  cairn_h5_obj_close(at);
  cairn_h5_obj_close(o);
  CHECK_OK(cairn_h5_get(h, "/f32", &o));
  cairn_h5_info in;
  CHECK_OK(cairn_h5_info_get(o, &in));
  CHECK_EQ(in.nAttr, 2);
  CHECK_EQ(in.typeClass, CAIRN_H5_T_FLOAT);
  cairn_h5_obj_close(o);
  cairn_h5_close(h);

  CHECK_OK(cairn_h5_open_path(tfTmp("h5w_chunked.h5"), &h));
  for (int k = 0; k < 8; k++) {
    char zp[8];
    cairnFormat(zp, sizeof zp, "/c%d", k);
    CHECK_OK(readF64(h, zp, a, 7000));
    for (int i = 0; i < 7000; i++) CHECK(a[i] == i * 0.5);
  }
  CHECK_OK(readF64(h, "/ext", a, 300));
  for (int i = 0; i < 300; i++) CHECK(a[i] == i);
  CHECK_OK(readF64(h, "/partial", a, 35));
  for (int i = 0; i < 35; i++) CHECK(a[i] == i * 1.5);
  CHECK_OK(readF64(h, "/long", a, 300));
  for (int i = 0; i < 300; i++) CHECK(a[i] == i * 3 + 1);
  CHECK_OK(readF64(h, "/fillonly", a, 100));
  for (int i = 0; i < 100; i++) CHECK(a[i] == -7);
  cairn_h5_close(h);

  CHECK_OK(cairn_h5_open_path(tfTmp("h5w_wide.h5"), &h));
  CHECK_OK(cairn_h5_get(h, "/many", &o));
  CHECK_OK(cairn_h5_info_get(o, &in));
  CHECK_EQ(in.nLink, 2000);
  cairn_h5_obj_close(o);
  CHECK_OK(cairn_h5_get(h, "/attrs", &o));
  CHECK_OK(cairn_h5_info_get(o, &in));
  CHECK_EQ(in.nAttr, 127);
  CHECK_OK(cairn_h5_attr(o, "a5", &at));
  int64_t v = 0;
  CHECK_OK(cairn_h5_read(at, NULL, CAIRN_H5_I64, &v, sizeof v));
  CHECK_EQ(v, 18);
  cairn_h5_obj_close(at);
  cairn_h5_obj_close(o);
  cairn_h5_close(h);
  cairnFree(a);
}

/* ---- space from earlier sessions is found and reused (CAIRN_H5W_RECLAIM) ---- */
TEST(h5w, reclaim) {
  cairn_file *f = openOut("h5w_reclaim.h5");
  CHECK(f);
  cairn_h5w *w;
  CHECK_OK(cairn_h5w_create(f, CAIRN_H5W_NOSYNC, &w));
  cairn_h5w_type *ti = cairn_h5w_type_int(8, 1), *ts = cairn_h5w_type_vstring(1);
  char z[32];
  for (int i = 0; i < 200; i++) {
    cairnFormat(z, sizeof z, "/g%d", i);
    CHECK_OK(cairn_h5w_group(w, z));
  }
  uint64_t z0 = 0, un = CAIRN_H5W_UNLIMITED, c = 64;
  CHECK_OK(cairn_h5w_dataset(w, "/log", ti, 1, &z0, &un, &(cairn_h5w_dset_opts){CAIRN_H5W_CHUNKED, &c, "zstd:1", NULL}, NULL));
  CHECK_OK(cairn_h5w_close(w));
  uint64_t size0, size1, size2;
  CHECK_OK(cairn_file_size(f, &size0));
  /* 40 sessions, each: append rows, overwrite a counter and a string attribute */
  int64_t rows[10];
  for (int s = 0; s < 40; s++) {
    CHECK_OK(cairn_h5w_open(f, CAIRN_H5W_RECLAIM | CAIRN_H5W_NOSYNC, &w));
    for (int k = 0; k < 10; k++) rows[k] = s * 10 + k;
    CHECK_OK(cairn_h5w_append(w, "/log", 10, rows));
    int64_t v = s;
    CHECK_OK(cairn_h5w_attr(w, "/g7", "counter", ti, 0, NULL, &v));
    cairnFormat(z, sizeof z, "session %d", s);
    const char *pz = z;
    CHECK_OK(cairn_h5w_attr(w, "/", "note", ts, 0, NULL, &pz));
    CHECK_OK(cairn_h5w_close(w));
    if (s == 9) CHECK_OK(cairn_file_size(f, &size1));
  }
  CHECK_OK(cairn_file_size(f, &size2));
  /* Without reuse every session leaves a root group of 200 links (~4.5 KiB), a heap collection
  ** (4 KiB) and more behind: 30 sessions would add over 250 KiB. */
  CHECK(size2 < size1 + 40000);
  CHECK(size2 < size0 + 80000);
  /* one long session overwriting a string attribute at every commit: each value takes a new
  ** 4 KiB heap collection, and the one it replaces is freed once nothing refers to it */
  CHECK_OK(cairn_h5w_open(f, CAIRN_H5W_NOSYNC, &w));
  for (int s = 0; s < 60; s++) {
    cairnFormat(z, sizeof z, "value %d", s);
    const char *pz = z;
    CHECK_OK(cairn_h5w_attr(w, "/g9", "label", ts, 0, NULL, &pz));
    CHECK_OK(cairn_h5w_commit(w));
  }
  CHECK_OK(cairn_h5w_close(w));
  uint64_t size3;
  CHECK_OK(cairn_file_size(f, &size3));
  CHECK(size3 < size2 + 30000); /* 60 collections would be 240 KiB */
  /* content intact, read by cairn's reader */
  cairn_h5 *h;
  cairn_h5_obj *o;
  CHECK_OK(cairn_h5_open(f, 0, &h));
  CHECK_OK(cairn_h5_get(h, "/log", &o));
  int64_t all[400];
  CHECK_OK(cairn_h5_read(o, NULL, CAIRN_H5_I64, all, sizeof all));
  for (int i = 0; i < 400; i++) CHECK_EQ(all[i], i);
  cairn_h5_obj_close(o);
  cairn_h5_close(h);
  cairn_file_close(f);
  cairn_h5w_type_free(ti), cairn_h5w_type_free(ts);
}

/* ---- out of memory at every allocation: a clean error, nothing leaked, the file as committed ---- */
static int oomSession(cairn_file *f) {
  cairn_h5w *w = NULL;
  cairn_h5w_type *tf = cairn_h5w_type_float(4), *ts = cairn_h5w_type_vstring(1);
  int rc = (tf && ts) ? cairn_h5w_create(f, CAIRN_H5W_NOSYNC, &w) : CAIRN_NOMEM;
  float v[64];
  for (int i = 0; i < 64; i++) v[i] = (float)i;
  uint64_t d0[2] = {0, 4}, mx[2] = {CAIRN_H5W_UNLIMITED, 4}, ch[2] = {4, 4}, n3 = 3;
  const char *as[3] = {"a", "bb", "ccc"};
  if (!rc) rc = cairn_h5w_group(w, "/g");
  if (!rc) rc = cairn_h5w_dataset(w, "/g/d", tf, 2, d0, mx, &(cairn_h5w_dset_opts){CAIRN_H5W_CHUNKED, ch, "shuffle,deflate:1,lz4", NULL}, NULL);
  if (!rc) rc = cairn_h5w_append(w, "/g/d", 6, v);
  if (!rc) rc = cairn_h5w_attr(w, "/g", "names", ts, 1, &n3, as);
  if (!rc) rc = cairn_h5w_commit(w);
  if (!rc) rc = cairn_h5w_append(w, "/g/d", 10, v + 24);
  if (w) {
    int rc2 = rc ? (cairn_h5w_discard(w), rc) : cairn_h5w_close(w);
    rc = rc2;
  }
  w = NULL;
  if (!rc) rc = cairn_h5w_open(f, CAIRN_H5W_RECLAIM, &w);
  if (!rc) rc = cairn_h5w_append(w, "/g/d", 2, v);
  if (w) {
    int rc2 = rc ? (cairn_h5w_discard(w), rc) : cairn_h5w_close(w);
    rc = rc2;
  }
  w = NULL;
  uint8_t dg[32];
  if (!rc) rc = cairn_h5w_open(f, CAIRN_H5W_READONLY, &w);
  if (!rc) rc = cairn_h5w_verify(w, dg);
  cairn_h5w_discard(w);
  cairn_h5w_type_free(tf);
  cairn_h5w_type_free(ts);
  return rc;
}

/* Fails allocation n of xSession for n = 0, 1, ... until the session no longer reaches it: each
** must end in a clean NOMEM (or, with bIoerr, the memory file's IOERR), leak nothing and leave a
** file that is either not yet HDF5 or verifies. */
static void oomSweep(int (*xSession)(cairn_file *f), int nMax, int bIoerr) {
  cairn_host saved = *cairn_host_get(), h = saved;
  oomHooks(&h);
  h.xParallelFor = NULL; /* deterministic allocation order */
  int nFail = 0, n;
  for (n = 0; n < nMax; n++) {
    CHECK_OK(cairn_host_set(&h));
    oomArm(OOM_FOREVER, n);
    cairn_file *f = NULL;
    int rc = cairn_memfile_open(NULL, 0, &f);
    if (!rc) rc = xSession(f);
    oomDisarm();
    /* whatever failed, the file is either not yet an HDF5 file or a consistent committed one */
    cairn_h5w *w = NULL;
    uint8_t dg[32];
    int rcOpen = f ? cairn_h5w_open(f, CAIRN_H5W_READONLY, &w) : CAIRN_CORRUPT;
    int rcVerify = w ? cairn_h5w_verify(w, dg) : CAIRN_OK;
    cairn_h5w_discard(w);
    cairn_file_close(f);
    long live = oomLive();
    cairn_host_set(&saved);
    if (rcOpen == CAIRN_OK && rcVerify != CAIRN_OK) {
      tfFail(__FILE__, __LINE__, "allocation %d failing left a file that does not verify: %s", n, cairn_errmsg());
      return;
    }
    if (live != 0) {
      tfFail(__FILE__, __LINE__, "allocation %d failing leaks %ld blocks (rc %s: %s)", n, live, cairn_errstr(rc), cairn_errmsg());
      return;
    }
    if (rc == CAIRN_OK) break; /* the session never reached allocation n */
    if (CAIRN_PRIMARY(rc) != CAIRN_NOMEM && !(bIoerr && CAIRN_PRIMARY(rc) == CAIRN_IOERR)) {
      tfFail(__FILE__, __LINE__, "allocation %d failing gives %s: %s", n, cairn_errstr(rc), cairn_errmsg());
      return;
    }
    nFail++;
  }
  CHECK(n < nMax);
  CHECK(nFail > 100);
  printf("    %d allocation failures, each a clean NOMEM without leaks\n", nFail);
}

TEST(h5w, out_of_memory) { oomSweep(oomSession, 5000, 1); }

/* Out of memory at every allocation of a session that makes a group dense, adds to it in
** place, reopens it (the loader) and adds again: a clean error, nothing leaked, and the file
** as last committed. */
static int oomAdd(cairn_h5w *w, int i0, int i1) {
  int rc = CAIRN_OK;
  for (int i = i0; i < i1 && !rc; i++) {
    char z[16];
    snprintf(z, sizeof z, "/g/k%d", i);
    rc = cairn_h5w_group(w, z);
  }
  return rc ? rc : cairn_h5w_commit(w);
}
static int oomSessionDense(cairn_file *f) {
  cairn_h5w *w = NULL;
  int rc = cairn_h5w_create(f, CAIRN_H5W_NOSYNC, &w);
  if (!rc) rc = cairn_h5w_group(w, "/g");
  if (!rc) rc = oomAdd(w, 0, 12);
  if (!rc) rc = oomAdd(w, 12, 15);
  if (w) rc = rc ? (cairn_h5w_discard(w), rc) : cairn_h5w_close(w);
  w = NULL;
  if (!rc) rc = cairn_h5w_open(f, CAIRN_H5W_RECLAIM | CAIRN_H5W_NOSYNC, &w);
  if (!rc) rc = oomAdd(w, 15, 17);
  if (w) rc = rc ? (cairn_h5w_discard(w), rc) : cairn_h5w_close(w);
  return rc;
}

TEST(h5w, out_of_memory_dense) { oomSweep(oomSessionDense, 20000, 0); }

/* ---- bad requests: clear errors, and the file stays byte for byte as it was ---- */
TEST(h5w, bad_input) {
  cairn_file *f = openOut("h5w_bad.h5");
  CHECK(f);
  cairn_h5w *w;
  CHECK_OK(cairn_h5w_create(f, CAIRN_H5W_NOSYNC, &w));
  cairn_h5w_type *tf = cairn_h5w_type_float(4), *ti = cairn_h5w_type_int(4, 1);
  uint64_t d2[2] = {4, 4}, z2[2] = {0, 4}, mx[2] = {CAIRN_H5W_UNLIMITED, 4}, c2[2] = {2, 2};
  float v[16] = {0};
  CHECK_OK(cairn_h5w_dataset(w, "/d", tf, 2, z2, mx, &(cairn_h5w_dset_opts){CAIRN_H5W_CHUNKED, c2, NULL, NULL}, NULL));
  CHECK_OK(cairn_h5w_close(w));
  size_t n0;
  uint8_t *before = tfReadFile(tfTmp("h5w_bad.h5"), &n0);
  CHECK(before);
  CHECK_OK(cairn_h5w_open(f, 0, &w));
  uint64_t small[2] = {2, 4};
  CHECK_RC(cairn_h5w_dataset(w, "/x", tf, 2, d2, small, NULL, v), CAIRN_RANGE); /* dims above maxdims */
  CHECK(strstr(cairn_errmsg(), "/x") != NULL);
  CHECK_RC(cairn_h5w_dataset(w, "/x", tf, 2, d2, NULL, &(cairn_h5w_dset_opts){CAIRN_H5W_CHUNKED, (uint64_t[]){8, 2}, NULL, NULL}, v), CAIRN_RANGE);
  CHECK_RC(cairn_h5w_dataset(w, "/x", tf, 2, d2, mx, &(cairn_h5w_dset_opts){CAIRN_H5W_CONTIGUOUS, NULL, NULL, NULL}, v), CAIRN_MISUSE);
  uint64_t mx2[2] = {CAIRN_H5W_UNLIMITED, CAIRN_H5W_UNLIMITED};
  CHECK_RC(cairn_h5w_dataset(w, "/x", tf, 2, d2, mx2, NULL, v), CAIRN_UNSUPPORTED);
  CHECK_RC(cairn_h5w_dataset(w, "/d", tf, 2, d2, NULL, NULL, v), CAIRN_EXISTS);
  CHECK_RC(cairn_h5w_dataset(w, "", tf, 1, d2, NULL, NULL, v), CAIRN_MISUSE);
  CHECK_RC(cairn_h5w_dataset(w, "/", tf, 1, d2, NULL, NULL, v), CAIRN_MISUSE);
  CHECK_RC(cairn_h5w_dataset(w, "/d/x", tf, 1, d2, NULL, NULL, v), CAIRN_TYPE);
  CHECK_RC(cairn_h5w_dataset(w, "/s", tf, 0, NULL, NULL, &(cairn_h5w_dset_opts){CAIRN_H5W_CHUNKED, NULL, NULL, NULL}, v), CAIRN_MISUSE);
  CHECK_RC(cairn_h5w_append(w, "/nope", 1, v), CAIRN_NOTFOUND);
  CHECK_RC(cairn_h5w_append(w, "/", 1, v), CAIRN_TYPE);
  CHECK_RC(cairn_h5w_append(w, "/d", 1, NULL), CAIRN_MISUSE);
  CHECK_RC(cairn_h5w_attr(w, "/d", "", tf, 0, NULL, v), CAIRN_MISUSE);
  CHECK_RC(cairn_h5w_attr(w, "/d", "a", tf, 2, NULL, v), CAIRN_MISUSE);
  CHECK_RC(cairn_h5w_attr_delete(w, "/d", "none"), CAIRN_NOTFOUND);
  CHECK(cairn_h5w_type_int(3, 1) == NULL);
  CHECK(cairn_h5w_type_float(3) == NULL);
  CHECK(cairn_h5w_type_enum(tf) == NULL);
  CHECK(cairn_h5w_type_array(tf, 0, d2) == NULL);
  CHECK_OK(cairn_h5w_close(w)); /* nothing changed: nothing written */
  size_t n1;
  uint8_t *after = tfReadFile(tfTmp("h5w_bad.h5"), &n1);
  CHECK(after && n1 == n0);
  CHECK_MEM(before, after, n0);
  cairn_free(after);
  cairn_file_close(f);
  /* a read-only host file: the commit fails with an I/O error naming it, the file unchanged */
  CHECK_OK(cairn_open(tfTmp("h5w_bad.h5"), CAIRN_OPEN_READONLY, &f));
  CHECK_OK(cairn_h5w_open(f, 0, &w));
  CHECK_OK(cairn_h5w_group(w, "/g"));
  int rcRo = CAIRN_PRIMARY(cairn_h5w_commit(w));
  CHECK(rcRo == CAIRN_IOERR || rcRo == CAIRN_READONLY);
  CHECK(cairn_errmsg()[0] != 0);
  CHECK_EQ(CAIRN_PRIMARY(cairn_h5w_group(w, "/h")), rcRo); /* the error sticks */
  CHECK(cairn_h5w_close(w) != CAIRN_OK);
  cairn_file_close(f);
  after = tfReadFile(tfTmp("h5w_bad.h5"), &n1);
  CHECK(after && n1 == n0);
  CHECK_MEM(before, after, n0);
  cairn_free(after);
  cairn_free(before);
  /* opened read-only through the writer: every change is refused */
  CHECK_OK(cairn_open(tfTmp("h5w_bad.h5"), CAIRN_OPEN_READONLY, &f));
  CHECK_OK(cairn_h5w_open(f, CAIRN_H5W_READONLY, &w));
  CHECK_RC(cairn_h5w_append(w, "/d", 1, v), CAIRN_READONLY);
  CHECK_RC(cairn_h5w_attr(w, "/d", "a", tf, 0, NULL, v), CAIRN_READONLY);
  CHECK_OK(cairn_h5w_close(w));
  cairn_file_close(f);
  /* not an HDF5 file, truncated files */
  cairn_file *m;
  CHECK_OK(cairn_memfile_open("not an hdf5 file at all, just some text bytes here....", 52, &m));
  CHECK_RC(cairn_h5w_open(m, 0, &w), CAIRN_CORRUPT);
  cairn_file_close(m);
  CHECK_OK(cairn_memfile_open(NULL, 0, &m));
  CHECK_RC(cairn_h5w_open(m, 0, &w), CAIRN_CORRUPT);
  cairn_file_close(m);
  CHECK_OK(cairn_open(tfTmp("h5w_bad.h5"), CAIRN_OPEN_READONLY, &f));
  uint8_t *all = cairn_malloc(n0);
  CHECK_OK(cairn_file_read_exact(f, all, n0, 0));
  cairn_file_close(f);
  CHECK_OK(cairn_memfile_open(all, n0 - 10, &m)); /* cut short: end of file past the size */
  CHECK_RC(cairn_h5w_open(m, 0, &w), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "truncated") != NULL);
  cairn_file_close(m);
  all[44] ^= 1; /* superblock checksum */
  CHECK_OK(cairn_memfile_open(all, n0, &m));
  CHECK_RC(cairn_h5w_open(m, 0, &w), CAIRN_CHECKSUM);
  cairn_file_close(m);
  cairn_free(all);
  cairn_h5w_type_free(tf), cairn_h5w_type_free(ti);
}

/* ---- overwriting rows of every layout, committed or not ---- */
TEST(h5w, overwrite) {
  cairn_file *f = openOut("h5w_overwrite.h5");
  CHECK(f);
  cairn_h5w *w;
  CHECK_OK(cairn_h5w_create(f, CAIRN_H5W_NOSYNC, &w));
  cairn_h5w_type *ti = cairn_h5w_type_int(4, 1), *ts = cairn_h5w_type_vstring(1);
  int32_t a[100];
  for (int i = 0; i < 100; i++) a[i] = i;
  uint64_t d2[2] = {25, 4}, c2[2] = {8, 4}, n5 = 5;
  CHECK_OK(cairn_h5w_dataset(w, "/contig", ti, 2, d2, NULL, NULL, a));
  CHECK_OK(cairn_h5w_dataset(w, "/chunk", ti, 2, d2, NULL, &(cairn_h5w_dset_opts){CAIRN_H5W_CHUNKED, c2, "shuffle,zstd:1", NULL}, a));
  CHECK_OK(cairn_h5w_dataset(w, "/compact", ti, 2, d2, NULL, &(cairn_h5w_dset_opts){CAIRN_H5W_COMPACT, NULL, NULL, NULL}, a));
  const char *s5[5] = {"a", "b", "c", "d", "e"};
  CHECK_OK(cairn_h5w_dataset(w, "/strs", ts, 1, &n5, NULL, NULL, s5));
  CHECK_OK(cairn_h5w_commit(w));
  int32_t b[12] = {-1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12};
  /* rows 6..8 straddle the chunk boundary at row 8 */
  CHECK_OK(cairn_h5w_write(w, "/contig", 6, 3, b));
  CHECK_OK(cairn_h5w_write(w, "/chunk", 6, 3, b));
  CHECK_OK(cairn_h5w_write(w, "/compact", 6, 3, b));
  const char *s2[2] = {"BB", "CCC"};
  CHECK_OK(cairn_h5w_write(w, "/strs", 1, 2, s2));
  CHECK_RC(cairn_h5w_write(w, "/contig", 24, 2, b), CAIRN_RANGE);
  CHECK_OK(cairn_h5w_write(w, "/contig", 24, 1, b + 8)); /* the last row, twice in one commit */
  CHECK_OK(cairn_h5w_write(w, "/contig", 24, 1, b + 8));
  CHECK_OK(cairn_h5w_close(w));
  int32_t want[100];
  memcpy(want, a, sizeof want);
  memcpy(want + 24, b, 12 * sizeof(int32_t));
  cairn_h5 *h;
  cairn_h5_obj *o;
  int32_t got[100];
  CHECK_OK(cairn_h5_open(f, 0, &h));
  const char *az[3] = {"/contig", "/chunk", "/compact"};
  for (int k = 0; k < 3; k++) {
    CHECK_OK(cairn_h5_get(h, az[k], &o));
    CHECK_OK(cairn_h5_read(o, NULL, CAIRN_H5_I32, got, sizeof got));
    if (k == 0) {
      want[96] = -9, want[97] = -10, want[98] = -11, want[99] = -12;
    } else {
      want[96] = 96, want[97] = 97, want[98] = 98, want[99] = 99;
    }
    CHECK_MEM(got, want, sizeof want);
    cairn_h5_obj_close(o);
  }
  char *z;
  size_t nz;
  CHECK_OK(cairn_h5_get(h, "/strs", &o));
  CHECK_OK(cairn_h5_read_json(o, NULL, &z, &nz));
  CHECK_STR(z, "[\"a\",\"BB\",\"CCC\",\"d\",\"e\"]");
  cairn_free(z);
  cairn_h5_obj_close(o);
  cairn_h5_close(h);
  /* the old contiguous storage is free again: reopened with reclaim, a new commit reuses it */
  CHECK_OK(cairn_h5w_open(f, CAIRN_H5W_RECLAIM | CAIRN_H5W_NOSYNC, &w));
  cairn_h5w_stats st;
  CHECK_OK(cairn_h5w_stats_get(w, &st));
  CHECK(st.nFree >= 400);
  uint8_t dg[32];
  CHECK_OK(cairn_h5w_verify(w, dg));
  cairn_h5w_discard(w);
  cairn_file_close(f);
  cairn_h5w_type_free(ti), cairn_h5w_type_free(ts);
}

/* ---- growing a dataset without data: new rows read as the fill value ---- */
TEST(h5w, resize) {
  cairn_file *f = openOut("h5w_resize.h5");
  CHECK(f);
  cairn_h5w *w;
  CHECK_OK(cairn_h5w_create(f, CAIRN_H5W_NOSYNC, &w));
  cairn_h5w_type *ti = cairn_h5w_type_int(4, 1), *tu8 = cairn_h5w_type_int(1, 0);
  int32_t fill = -7, a[12];
  for (int i = 0; i < 12; i++) a[i] = i;
  uint64_t d[2] = {4, 3}, m[2] = {CAIRN_H5W_UNLIMITED, 3}, c[2] = {8, 3};
  CHECK_OK(cairn_h5w_dataset(w, "/r", ti, 2, d, m, &(cairn_h5w_dset_opts){CAIRN_H5W_CHUNKED, c, "shuffle,deflate:1", &fill}, a));
  CHECK_OK(cairn_h5w_resize(w, "/r", 21));
  CHECK_OK(cairn_h5w_append(w, "/r", 1, a));
  CHECK_RC(cairn_h5w_resize(w, "/r", 3), CAIRN_UNSUPPORTED); /* no shrinking, nothing changed */
  int rank;
  uint64_t got[2];
  CHECK_OK(cairn_h5w_shape(w, "/r", &rank, got));
  CHECK_EQ(got[0], 22);
  /* wide rows: the fill goes out in several bounded blocks; a bounded maximum is enforced */
  uint64_t dw[2] = {0, 300000}, mw[2] = {40, 300000}, cw[2] = {1, 300000};
  CHECK_OK(cairn_h5w_dataset(w, "/wide", tu8, 2, dw, mw, &(cairn_h5w_dset_opts){CAIRN_H5W_CHUNKED, cw, NULL, NULL}, NULL));
  CHECK_RC(cairn_h5w_resize(w, "/wide", 41), CAIRN_RANGE);
  CHECK_OK(cairn_h5w_resize(w, "/wide", 10));
  uint64_t n1 = 1;
  CHECK_OK(cairn_h5w_dataset(w, "/fixed", ti, 1, &n1, NULL, NULL, a));
  CHECK(cairn_h5w_resize(w, "/fixed", 2) != CAIRN_OK);
  CHECK_OK(cairn_h5w_close(w));
  cairn_h5 *h;
  cairn_h5_obj *o;
  int32_t v[66];
  CHECK_OK(cairn_h5_open(f, 0, &h));
  CHECK_OK(cairn_h5_get(h, "/r", &o));
  CHECK_OK(cairn_h5_read(o, NULL, CAIRN_H5_I32, v, sizeof v));
  for (int i = 0; i < 66; i++) CHECK_EQ(v[i], i < 12 ? i : i < 63 ? -7 : i - 63);
  cairn_h5_obj_close(o);
  CHECK_OK(cairn_h5_get(h, "/wide", &o));
  uint8_t *b = cairnMalloc(3000000);
  CHECK(b);
  memset(b, 1, 3000000);
  CHECK_OK(cairn_h5_read(o, NULL, CAIRN_H5_U8, b, 3000000));
  int nz = 0;
  for (int i = 0; i < 3000000; i++) nz += b[i] != 0;
  CHECK_EQ(nz, 0);
  cairnFree(b);
  cairn_h5_obj_close(o);
  cairn_h5_close(h);
  cairn_file_close(f);
  cairn_h5w_type_free(ti), cairn_h5w_type_free(tu8);
}
