/* 2026-11-29 - the HDF5 writer: a corpus of files (every type, layout and filter; nested and
** wide groups; attributes; appends across sessions) written to tfTmp("h5w/"), reopened by the
** writer itself, and left there for tests/interop/ (h5dump, libhdf5, h5py, h5wasm, jsfive),
** which recompute every value from the same formulas. Keep the formulas in sync with
** tests/interop/check_h5py.py and tests/interop/h5w_read.c. */
#include "common/internal.h"
#include "h5/h5w.h"
#include "tf.h"

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
  cairn_file *f = openOut("h5w_wide.h5");
  CHECK(f);
  cairn_h5w *w;
  CHECK_OK(cairn_h5w_create(f, CAIRN_H5W_NOSYNC, &w));
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
  CHECK_OK(cairn_h5w_close(w));
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
  uint8_t src[20000], dst[21000], back[20000];
  for (int i = 0; i < 20000; i++) src[i] = (uint8_t)((i / 7) % 13 + (i % 1000 == 0 ? i : 0));
  size_t n = cairnLz4Compress(src, sizeof src, dst, sizeof dst), got;
  CHECK(n < 5000);
  CHECK_OK(cairnLz4Decompress(dst, n, back, sizeof back, &got));
  CHECK_EQ(got, sizeof src);
  CHECK_MEM(src, back, sizeof src);
  tfFillRandom(src, sizeof src, 5);
  n = cairnLz4Compress(src, sizeof src, dst, sizeof dst);
  CHECK(n <= cairnLz4Bound(sizeof src));
  CHECK_OK(cairnLz4Decompress(dst, n, back, sizeof back, &got));
  CHECK_MEM(src, back, sizeof src);
  CHECK(cairnLz4Decompress(dst, n - 3, back, sizeof back, &got) != CAIRN_OK || got != sizeof src);
}
