/* 2026-11-29 - tests/interop/h5w_read.c: a C reader linked to libhdf5 that checks, value by
** value, the files tests/core/test_h5w.c wrote (same formulas; keep them in sync). Numbers are
** read through libhdf5's own conversion to double. Usage: h5w_read DIR. Exit 0 if all match. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nBad, nChecked;

static double *readAll(hid_t f, const char *zPath, hsize_t *pn) {
  hid_t d = H5Dopen2(f, zPath, H5P_DEFAULT);
  if (d < 0) return NULL;
  hid_t s = H5Dget_space(d);
  hssize_t n = H5Sget_simple_extent_npoints(s);
  double *a = malloc(sizeof(double) * (size_t)(n ? n : 1));
  herr_t e = H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a);
  H5Sclose(s);
  H5Dclose(d);
  if (e < 0) {
    free(a);
    return NULL;
  }
  *pn = (hsize_t)n;
  return a;
}

typedef double (*Formula)(long i);
static void expect(hid_t f, const char *zFile, const char *zPath, long n, Formula x) {
  hsize_t got = 0;
  double *a = readAll(f, zPath, &got);
  if (!a || (long)got != n) {
    printf("FAIL %s %s: cannot read (%ld values wanted)\n", zFile, zPath, n);
    nBad++;
    free(a);
    return;
  }
  for (long i = 0; i < n; i++)
    if (a[i] != x(i)) {
      printf("FAIL %s %s[%ld] = %.17g, want %.17g\n", zFile, zPath, i, a[i], x(i));
      nBad++;
      break;
    }
  nChecked++;
  free(a);
}

static double fI8(long i) { return (double)(signed char)(i % 200 - 100); }
static double fU16(long i) { return (double)(unsigned short)(i * 61); }
static double fI32(long i) { return (double)(i * 1000 - 500000); }
static double fU64(long i) { return (double)((unsigned long long)i * 0x100000001ull); }
static double fI64(long i) { return (double)(-(long long)i * 123456789); }
static double fF32(long i) { return (double)((float)i * 0.25f - 3.0f); }
static double fF64(long i) { return (double)i * 1e-3 + 1e10; }
static double fCompact(long i) { return (double)(short)(i * 11 - 100); }
static double fFilled(long i) { (void)i; return -1.5; }
static double fArr(long i) { return (double)i + 0.5; }
static double fHalf(long i) { return (double)((float)i * 0.5f); }
static double fExt(long i) { return (double)i; }
static double fFill7(long i) { (void)i; return -7; }
static double fLong(long i) { return (double)(i * 3 + 1); }
static double fPartial(long i) { return i * 1.5; }

/* H5Literate over a dense group: names g00000..g09999, h00000..h00099, data, alias; every hard
** link opened */
typedef struct DenseIt { int n, nBad, bData, bAlias; char seen[10100]; } DenseIt;
static herr_t denseVisit(hid_t g, const char *zName, const H5L_info_t *info, void *pArg) {
  DenseIt *it = pArg;
  int k = -1;
  it->n++;
  if (!strcmp(zName, "data")) it->bData = 1;
  else if (!strcmp(zName, "alias")) it->bAlias = info->type == H5L_TYPE_SOFT;
  else if ((zName[0] == 'g' || zName[0] == 'h') && strlen(zName) == 6) k = atoi(zName + 1) + (zName[0] == 'h' ? 10000 : 0);
  else it->nBad++;
  if (k >= 0 && k < 10100 && !it->seen[k]) it->seen[k] = 1;
  else if (k >= 0) it->nBad++;
  if (info->type == H5L_TYPE_HARD) {
    hid_t o = H5Oopen(g, zName, H5P_DEFAULT);
    if (o < 0) it->nBad++;
    else H5Oclose(o);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  char z[4096];
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  snprintf(z, sizeof z, "%s/h5w_types.h5", argv[1]);
  hid_t f = H5Fopen(z, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) { printf("FAIL cannot open %s\n", z); return 1; }
  expect(f, "types", "/i8", 1000, fI8);
  expect(f, "types", "/u16", 1000, fU16);
  expect(f, "types", "/i32", 1000, fI32);
  expect(f, "types", "/u64", 1000, fU64);
  expect(f, "types", "/i64", 1000, fI64);
  expect(f, "types", "/f32", 1000, fF32);
  expect(f, "types", "/f64", 1000, fF64);
  expect(f, "types", "/compact", 20, fCompact);
  expect(f, "types", "/filled", 20, fFilled);
  expect(f, "types", "/g1/g2/leaf", 10, fI32);
  { /* array members: read with an array-of-double memory type */
    hsize_t three = 3;
    hid_t mt = H5Tarray_create2(H5T_NATIVE_DOUBLE, 1, &three);
    hid_t d = H5Dopen2(f, "/arr", H5P_DEFAULT);
    double a[30];
    if (d < 0 || H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, a) < 0) nBad++, printf("FAIL types /arr\n");
    else for (int i = 0; i < 30; i++) if (a[i] != fArr(i)) { nBad++; printf("FAIL /arr[%d]\n", i); break; }
    nChecked++;
    H5Dclose(d), H5Tclose(mt);
  }
  { /* vlen strings through libhdf5's own memory representation */
    hid_t d = H5Dopen2(f, "/vstr", H5P_DEFAULT), t = H5Dget_type(d);
    char *s[5] = {0};
    if (!H5Tis_variable_str(t) || H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, s) < 0 || strcmp(s[0], "alpha") || strcmp(s[1], "") ||
        strcmp(s[2], "\xce\xb2-unicode") || strlen(s[3]) != 6000 || strcmp(s[4], "omega"))
      nBad++, printf("FAIL types /vstr\n");
    nChecked++;
    for (int i = 0; i < 5; i++) free(s[i]);
    H5Tclose(t), H5Dclose(d);
  }
  { /* attributes counted and read */
    H5O_info_t oi;
    hid_t d = H5Dopen2(f, "/f32", H5P_DEFAULT);
    float sc = 0;
    hid_t a = H5Aopen(d, "scale", H5P_DEFAULT);
    if (H5Oget_info2(d, &oi, H5O_INFO_NUM_ATTRS) < 0 || oi.num_attrs != 2 || a < 0 ||
        H5Aread(a, H5T_NATIVE_FLOAT, &sc) < 0 || sc != 0.125f)
      nBad++, printf("FAIL types /f32 attributes\n");
    nChecked++;
    H5Aclose(a), H5Dclose(d);
  }
  H5Fclose(f);

  snprintf(z, sizeof z, "%s/h5w_chunked.h5", argv[1]);
  f = H5Fopen(z, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) { printf("FAIL cannot open %s\n", z); return 1; }
  int lz4 = H5Zfilter_avail(32004) > 0, zstd = H5Zfilter_avail(32015) > 0;
  const char *azC[] = {"/c0", "/c1", "/c2", "/c3", "/c4", "/c5", "/c6", "/c7"};
  int needs[] = {0, 0, 2, 1, 0, 2, 0, 1}; /* 1 lz4, 2 zstd */
  for (int k = 0; k < 8; k++)
    if (!(needs[k] == 1 && !lz4) && !(needs[k] == 2 && !zstd)) expect(f, "chunked", azC[k], 7000, fHalf);
  expect(f, "chunked", "/ext", 300, fExt);
  expect(f, "chunked", "/fillonly", 100, fFill7);
  expect(f, "chunked", "/long", 300, fLong);
  if (zstd) expect(f, "chunked", "/partial", 35, fPartial);
  H5Fclose(f);

  snprintf(z, sizeof z, "%s/h5w_wide.h5", argv[1]);
  f = H5Fopen(z, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) { printf("FAIL cannot open %s\n", z); return 1; }
  H5G_info_t gi;
  if (H5Gget_info_by_name(f, "/many", &gi, H5P_DEFAULT) < 0 || gi.nlinks != 2000) nBad++, printf("FAIL wide /many links\n");
  hid_t d = H5Dopen2(f, "/attrs", H5P_DEFAULT);
  for (int k = 0; k < 127; k++) {
    char zn[16];
    snprintf(zn, sizeof zn, "a%d", k);
    long long v = 0, want = k % 2 == 0 ? -k : (long long)k * k - 7;
    hid_t a = H5Aopen(d, zn, H5P_DEFAULT);
    if (a < 0 || H5Aread(a, H5T_NATIVE_LLONG, &v) < 0 || v != want) { nBad++; printf("FAIL wide attribute %s\n", zn); break; }
    H5Aclose(a);
  }
  nChecked += 2;
  H5Dclose(d);
  H5Fclose(f);
  /* dense link storage (tests/core/h5w_dense.c): every name by H5Literate, each followed */
  snprintf(z, sizeof z, "%s/h5w_dense_10k.h5", argv[1]);
  f = H5Fopen(z, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) { printf("FAIL cannot open %s\n", z); return 1; }
  {
    DenseIt it = {0};
    hsize_t idx = 0;
    hid_t g = H5Gopen2(f, "/big", H5P_DEFAULT);
    if (g < 0 || H5Gget_info(g, &gi) < 0 || gi.nlinks != 10102 || gi.storage_type != H5G_STORAGE_TYPE_DENSE ||
        H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, denseVisit, &it) < 0 || it.n != 10102 || it.nBad || !it.bData || !it.bAlias)
      nBad++, printf("FAIL dense /big: %d links visited, %d bad\n", it.n, it.nBad);
    nChecked++;
    H5Gclose(g);
  }
  H5Fclose(f);
  printf("%s C reader (libhdf5 %d.%d.%d): %d datasets/attribute sets compared value by value%s\n", nBad ? "FAIL" : "ok  ",
         H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE, nChecked, zstd ? "" : " (zstd left to h5wasm)");
  return nBad ? 1 : 0;
}
