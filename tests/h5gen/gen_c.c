/*
** 2026-11-29
**
** tests/h5gen/gen_c.c OUTDIR - the part of the interop corpus only libhdf5's C API can write
** (h5py does not expose it): shared object header messages (SOHM, list and B-tree indexes),
** superblock versions 1 and 2, bitfields, a committed datatype with dense attributes,
** creation-order-indexed links and attributes, and a sparse file larger than 4 GiB whose
** objects live past the 4 GiB mark. Built and run by tests/h5gen/run.sh against Debian's
** libhdf5 (pkg-config hdf5); gen.py then reads everything back with h5py for the checker.
*/
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x)                                                                                \
  do {                                                                                       \
    if ((x) < 0) {                                                                           \
      fprintf(stderr, "gen_c: %s failed at line %d\n", #x, __LINE__);                        \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

static char gDir[1024];
static const char *path(const char *z) {
  static char buf[2048];
  snprintf(buf, sizeof buf, "%s/%s", gDir, z);
  return buf;
}

static void writeInts(hid_t loc, const char *name, hid_t ftype, int n, int mul, hid_t dcpl) {
  hsize_t d = (hsize_t)n;
  hid_t sp = H5Screate_simple(1, &d, NULL);
  hid_t ds = H5Dcreate2(loc, name, ftype, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  CK(ds);
  int *v = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) v[i] = i * mul - 7;
  CK(H5Dwrite(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
  free(v);
  H5Dclose(ds);
  H5Sclose(sp);
}

static void attrInt(hid_t loc, const char *name, int v) {
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(loc, name, H5T_STD_I32BE, sp, H5P_DEFAULT, H5P_DEFAULT);
  CK(a);
  CK(H5Awrite(a, H5T_NATIVE_INT, &v));
  H5Aclose(a);
  H5Sclose(sp);
}

static void sohm(const char *name, unsigned listMax, unsigned btreeMin) {
  hid_t fcpl = H5Pcreate(H5P_FILE_CREATE), fapl = H5Pcreate(H5P_FILE_ACCESS);
  CK(H5Pset_shared_mesg_nindexes(fcpl, 2));
  CK(H5Pset_shared_mesg_index(fcpl, 0, H5O_SHMESG_DTYPE_FLAG | H5O_SHMESG_SDSPACE_FLAG | H5O_SHMESG_FILL_FLAG, 8));
  CK(H5Pset_shared_mesg_index(fcpl, 1, H5O_SHMESG_ATTR_FLAG | H5O_SHMESG_PLINE_FLAG, 8));
  CK(H5Pset_shared_mesg_phase_change(fcpl, listMax, btreeMin));
  CK(H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST));
  hid_t f = H5Fcreate(path(name), H5F_ACC_TRUNC, fcpl, fapl);
  CK(f);
  hid_t ct = H5Tcreate(H5T_COMPOUND, 16);
  H5Tinsert(ct, "a", 0, H5T_STD_I32LE);
  H5Tinsert(ct, "b", 8, H5T_IEEE_F64BE);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hsize_t ch = 4, d = 10;
  H5Pset_chunk(dcpl, 1, &ch);
  H5Pset_deflate(dcpl, 5);
  int fill[4] = {0};
  (void)fill;
  for (int k = 0; k < 8; k++) {
    char nm[32];
    snprintf(nm, sizeof nm, "d%d", k);
    hid_t sp = H5Screate_simple(1, &d, NULL);
    hid_t ds = H5Dcreate2(f, nm, ct, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CK(ds);
    struct { int a; int pad; double b; } v[10];
    hid_t mt = H5Tcreate(H5T_COMPOUND, sizeof v[0]);
    H5Tinsert(mt, "a", 0, H5T_NATIVE_INT);
    H5Tinsert(mt, "b", 8, H5T_NATIVE_DOUBLE);
    for (int i = 0; i < 10; i++) v[i].a = i + k, v[i].pad = 0, v[i].b = i * 0.5 - k;
    CK(H5Dwrite(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
    attrInt(ds, "same", 42);      /* identical everywhere: shared */
    attrInt(ds, "differs", k);
    H5Tclose(mt);
    H5Dclose(ds);
    H5Sclose(sp);
  }
  H5Pclose(dcpl);
  H5Tclose(ct);
  H5Fclose(f);
  H5Pclose(fcpl);
  H5Pclose(fapl);
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  snprintf(gDir, sizeof gDir, "%s", argv[1]);
  sohm("c_sohm_list.h5", 50, 40);
  sohm("c_sohm_btree.h5", 0, 0);

  /* 4-byte offsets and lengths (H5Pset_sizes), with vlen strings, references and chunks */
  {
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    CK(H5Pset_sizes(fcpl, 4, 4));
    hid_t f = H5Fcreate(path("c_sizes4.h5"), H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    CK(f);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t ch = 7;
    H5Pset_chunk(dcpl, 1, &ch);
    H5Pset_deflate(dcpl, 3);
    writeInts(f, "chunked", H5T_STD_I32BE, 50, 2, dcpl);
    H5Pclose(dcpl);
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, H5T_VARIABLE);
    H5Tset_cset(st, H5T_CSET_UTF8);
    hsize_t d = 3;
    hid_t sp = H5Screate_simple(1, &d, NULL);
    const char *az[3] = {"short", "a somewhat longer string", ""};
    hid_t ds = H5Dcreate2(f, "vlen", st, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CK(H5Dwrite(ds, st, H5S_ALL, H5S_ALL, H5P_DEFAULT, az));
    H5Dclose(ds);
    hobj_ref_t refs[3];
    CK(H5Rcreate(&refs[0], f, "chunked", H5R_OBJECT, -1));
    CK(H5Rcreate(&refs[1], f, "vlen", H5R_OBJECT, -1));
    CK(H5Rcreate(&refs[2], f, "/", H5R_OBJECT, -1));
    ds = H5Dcreate2(f, "refs", H5T_STD_REF_OBJ, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CK(H5Dwrite(ds, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, refs));
    H5Dclose(ds);
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    for (int i = 0; i < 30; i++) {
      char nm[16];
      snprintf(nm, sizeof nm, "m%02d", i);
      writeInts(g, nm, H5T_STD_I8LE, 2, i, H5P_DEFAULT);
    }
    attrInt(g, "k", 7);
    H5Gclose(g);
    H5Sclose(sp);
    H5Tclose(st);
    H5Fclose(f);
    H5Pclose(fcpl);
  }
  /* superblock v1: a non-default chunk B-tree K */
  {
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    CK(H5Pset_istore_k(fcpl, 64));
    hid_t f = H5Fcreate(path("c_sb1.h5"), H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    CK(f);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t ch = 3;
    H5Pset_chunk(dcpl, 1, &ch);
    writeInts(f, "chunked", H5T_STD_I64BE, 400, 3, dcpl);
    hid_t g = H5Gcreate2(f, "grp", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    for (int i = 0; i < 40; i++) {
      char nm[16];
      snprintf(nm, sizeof nm, "n%02d", i);
      writeInts(g, nm, H5T_STD_U8LE, 3, i, H5P_DEFAULT);
    }
    H5Gclose(g);
    H5Pclose(dcpl);
    H5Fclose(f);
    H5Pclose(fcpl);
  }
  /* superblock v2 (the 1.8 format) with creation-order indexed links and attributes */
  {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    CK(H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18));
    hid_t f = H5Fcreate(path("c_sb2.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CK(f);
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    CK(H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED));
    CK(H5Pset_attr_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED));
    hid_t g = H5Gcreate2(f, "ordered", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    CK(g);
    for (int i = 0; i < 30; i++) {
      char nm[16];
      snprintf(nm, sizeof nm, "z%02d", 29 - i);
      writeInts(g, nm, H5T_STD_I16LE, 2, i, H5P_DEFAULT);
      snprintf(nm, sizeof nm, "at%02d", 29 - i);
      attrInt(g, nm, i);
    }
    hid_t small = H5Gcreate2(f, "ordered_small", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    writeInts(small, "only", H5T_STD_I32LE, 3, 1, H5P_DEFAULT);
    attrInt(small, "a", 1);
    H5Gclose(small);
    H5Gclose(g);
    H5Pclose(gcpl);
    /* bitfields */
    hsize_t d = 6;
    hid_t sp = H5Screate_simple(1, &d, NULL);
    unsigned short bf[6] = {0, 1, 0x8000, 0xffff, 0x1234, 0xabcd};
    hid_t ds = H5Dcreate2(f, "bitfield16be", H5T_STD_B16BE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CK(H5Dwrite(ds, H5T_NATIVE_B16, H5S_ALL, H5S_ALL, H5P_DEFAULT, bf));
    H5Dclose(ds);
    unsigned char b8[6] = {0, 1, 2, 128, 255, 77};
    ds = H5Dcreate2(f, "bitfield8", H5T_STD_B8LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CK(H5Dwrite(ds, H5T_NATIVE_B8, H5S_ALL, H5S_ALL, H5P_DEFAULT, b8));
    H5Dclose(ds);
    H5Sclose(sp);
    /* raw data in an external file (names relative to the working directory: run in OUTDIR) */
    hid_t dcx = H5Pcreate(H5P_DATASET_CREATE);
    CK(H5Pset_external(dcx, "c_sb2_external.raw", 0, 40));
    writeInts(f, "external", H5T_STD_I32LE, 10, 1, dcx);
    H5Pclose(dcx);
    /* 6x5 i32 (120 bytes) over three segments of two files: 40 bytes at 16 of a, 48 at 0 of
    ** b, the rest at 100 of a (unlimited size) */
    dcx = H5Pcreate(H5P_DATASET_CREATE);
    CK(H5Pset_external(dcx, "c_ext_a.raw", 16, 40));
    CK(H5Pset_external(dcx, "c_ext_b.raw", 0, 48));
    CK(H5Pset_external(dcx, "c_ext_a.raw", 100, H5F_UNLIMITED));
    {
      hsize_t d2[2] = {6, 5};
      hid_t sp2 = H5Screate_simple(2, d2, NULL);
      hid_t dx = H5Dcreate2(f, "external_multi", H5T_STD_I32BE, sp2, H5P_DEFAULT, dcx, H5P_DEFAULT);
      CK(dx);
      int v[30];
      for (int i = 0; i < 30; i++) v[i] = i * i - 100;
      CK(H5Dwrite(dx, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
      H5Dclose(dx);
      H5Sclose(sp2);
    }
    H5Pclose(dcx);
    H5Fclose(f);
    H5Pclose(fapl);
  }
  /* a committed datatype with dense attributes, used by a dataset (libver latest) */
  {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    CK(H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST));
    hid_t f = H5Fcreate(path("c_committed.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CK(f);
    hid_t t = H5Tcopy(H5T_IEEE_F32BE);
    CK(H5Tcommit2(f, "floatbe", t, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    for (int i = 0; i < 20; i++) {
      char nm[16];
      snprintf(nm, sizeof nm, "t%02d", i);
      attrInt(t, nm, i * i);
    }
    hsize_t d = 5;
    hid_t sp = H5Screate_simple(1, &d, NULL);
    hid_t ds = H5Dcreate2(f, "uses_floatbe", t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    float v[5] = {1.5f, -2.25f, 3e10f, 0.0f, -0.125f};
    CK(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
    hid_t a = H5Acreate2(ds, "typed_attr", t, sp, H5P_DEFAULT, H5P_DEFAULT);
    CK(H5Awrite(a, H5T_NATIVE_FLOAT, v));
    H5Aclose(a);
    H5Dclose(ds);
    H5Sclose(sp);
    H5Tclose(t);
    H5Fclose(f);
    H5Pclose(fapl);
  }
  /* > 4 GiB, sparse: a 4.5 GiB contiguous dataset allocated but never written, then objects
  ** placed after it. */
  {
    hid_t f = H5Fcreate(path("c_big.h5big"), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CK(f);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    hsize_t big = (hsize_t)4608 << 20;
    hid_t sp = H5Screate_simple(1, &big, NULL);
    hid_t ds = H5Dcreate2(f, "pad", H5T_STD_U8LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CK(ds);
    H5Dclose(ds);
    H5Sclose(sp);
    H5Pclose(dcpl);
    writeInts(f, "after", H5T_STD_I32LE, 1000, 11, H5P_DEFAULT);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t ch = 64;
    H5Pset_chunk(dcpl, 1, &ch);
    H5Pset_deflate(dcpl, 1);
    writeInts(f, "after_chunked", H5T_STD_I32LE, 1000, 5, dcpl);
    H5Pclose(dcpl);
    H5Fclose(f);
  }
  printf("gen_c: wrote the libhdf5 C corpus\n");
  return 0;
}
