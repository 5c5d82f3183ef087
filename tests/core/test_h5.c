/* 2026-11-29 - the HDF5 reader on two tiny h5py-written files (libver earliest and latest):
** paths, links, info, whole and hyperslab reads with conversion, JSON, lazy reading (bytes
** counted through a wrapping cairn_file), and clean errors on truncated and corrupted files.
** The broad interop proof against libhdf5 is tests/h5gen (ctest h5.interop). */
#include "common/internal.h"
#include "tf.h"
#include "test_h5_files.h"

static int32_t gridAt(unsigned i, unsigned j) { return (int32_t)(((uint64_t)(i * 32 + j) * 2654435761u) % (1u << 31)); }

/* A file that counts the bytes read through it. */
typedef struct CountFile {
  cairn_file base;
  cairn_file *inner;
  uint64_t nBytes, nRead;
} CountFile;
static int cfRead(cairn_file *f, void *p, size_t n, uint64_t off, size_t *pn) {
  CountFile *c = (CountFile *)f;
  c->nBytes += n;
  c->nRead++;
  return c->inner->pMethods->xRead(c->inner, p, n, off, pn);
}
static int cfSize(cairn_file *f, uint64_t *pn) { return cairn_file_size(((CountFile *)f)->inner, pn); }
static int cfClose(cairn_file *f) { return cairn_file_close(((CountFile *)f)->inner); }
static const cairn_file_methods cfMethods = {1, cfRead, NULL, cfSize, NULL, NULL, cfClose, NULL};

static cairn_h5 *openMem(const unsigned char *p, size_t n) {
  cairn_file *f;
  cairn_h5 *h = NULL;
  if (cairn_memfile_open(p, n, &f)) return NULL;
  if (cairn_h5_open(f, CAIRN_H5_OWN_FILE, &h)) return NULL;
  return h;
}

static void checkFile(const unsigned char *p, size_t n, int sbWant) {
  cairn_h5 *h = openMem(p, n);
  CHECK(h != NULL);
  CHECK_EQ(cairn_h5_superblock_version(h), sbWant);
  cairn_h5_obj *root, *g, *d, *z, *a;
  cairn_h5_info in;
  CHECK_OK(cairn_h5_get(h, "/", &root));
  CHECK_OK(cairn_h5_info_get(root, &in));
  CHECK_EQ(in.kind, CAIRN_H5_GROUP);
  CHECK_EQ(in.nLink, 3);
  cairn_h5_link k;
  CHECK_OK(cairn_h5_link_get(root, 0, &k));
  CHECK_STR(k.zName, "g");
  CHECK_OK(cairn_h5_link_get(root, 2, &k));
  CHECK_STR(k.zName, "z");
  CHECK_RC(cairn_h5_link_get(root, 3, &k), CAIRN_RANGE);
  cairn_h5_obj_close(root);

  CHECK_OK(cairn_h5_get(h, "/grid", &d));
  CHECK_OK(cairn_h5_info_get(d, &in));
  CHECK_EQ(in.kind, CAIRN_H5_DATASET);
  CHECK_EQ(in.rank, 2);
  CHECK_EQ(in.dims[0], 32);
  CHECK_EQ(in.layout, CAIRN_H5_CHUNKED);
  CHECK_EQ(in.chunk[1], 8);
  CHECK_EQ(in.typeClass, CAIRN_H5_T_INTEGER);
  CHECK_EQ(in.typeSize, 4);
  CHECK_EQ(in.nAttr, 1);
  int32_t all[32 * 32];
  CHECK_OK(cairn_h5_read(d, NULL, CAIRN_H5_I32, all, sizeof all));
  for (unsigned i = 0; i < 32; i++)
    for (unsigned j = 0; j < 32; j++) CHECK_EQ(all[i * 32 + j], gridAt(i, j));
  /* hyperslab: start (3,5) stride (7,3) count (4,5) block (2,2) -> 8 x 10 */
  cairn_h5_sel s = {2, {3, 5}, {7, 3}, {4, 5}, {2, 2}};
  double sub[80];
  CHECK_OK(cairn_h5_read(d, &s, CAIRN_H5_F64, sub, sizeof sub));
  for (unsigned a0 = 0; a0 < 4; a0++)
    for (unsigned b0 = 0; b0 < 2; b0++)
      for (unsigned a1 = 0; a1 < 5; a1++)
        for (unsigned b1 = 0; b1 < 2; b1++) {
          unsigned i = 3 + a0 * 7 + b0, j = 5 + a1 * 3 + b1;
          CHECK(sub[(a0 * 2 + b0) * 10 + a1 * 2 + b1] == (double)gridAt(i, j));
        }
  CHECK_RC(cairn_h5_read(d, &s, CAIRN_H5_F64, sub, sizeof sub - 1), CAIRN_RANGE);
  cairn_h5_sel bad = {2, {30, 0}, {1, 1}, {3, 1}, {1, 1}};
  CHECK_RC(cairn_h5_read(d, &bad, CAIRN_H5_I32, all, sizeof all), CAIRN_RANGE);
  CHECK_OK(cairn_h5_attr(d, "n", &a));
  int64_t nv = 0;
  CHECK_OK(cairn_h5_read(a, NULL, CAIRN_H5_I64, &nv, sizeof nv));
  CHECK_EQ(nv, -3);
  cairn_h5_obj_close(a);
  CHECK_RC(cairn_h5_attr(d, "missing", &a), CAIRN_NOTFOUND);
  cairn_h5_obj_close(d);

  /* big-endian doubles, shuffle + deflate, partial edge chunks, through a soft link */
  CHECK_OK(cairn_h5_get(h, "/g/link", &z));
  CHECK_OK(cairn_h5_info_get(z, &in));
  CHECK_EQ(in.typeBigEndian, 1);
  CHECK_EQ(in.nFilter, 2);
  double zv[600];
  CHECK_OK(cairn_h5_read(z, NULL, CAIRN_H5_F64, zv, sizeof zv));
  for (unsigned i = 0; i < 600; i++) CHECK(zv[i] == (double)i + 0.5);
  float zf[600];
  CHECK_OK(cairn_h5_read(z, NULL, CAIRN_H5_F32, zf, sizeof zf));
  CHECK(zf[599] == 599.5f);
  uint8_t raw[8];
  cairn_h5_sel one = {2, {19, 29}, {1, 1}, {1, 1}, {1, 1}};
  CHECK_OK(cairn_h5_read(z, &one, CAIRN_H5_NATIVE, raw, sizeof raw));
  double dv;
  memcpy(&dv, raw, 8);
  CHECK(dv == 599.5);
  char *zj;
  size_t nj;
  cairn_h5_sel row = {2, {1, 0}, {1, 1}, {1, 3}, {1, 1}};
  CHECK_OK(cairn_h5_read_json(z, &row, &zj, &nj));
  CHECK_STR(zj, "[[30.5,31.5,32.5]]");
  cairn_free(zj);
  cairn_h5_obj_close(z);

  CHECK_OK(cairn_h5_get(h, "/g", &g));
  CHECK_OK(cairn_h5_attr(g, "title", &a));
  CHECK_OK(cairn_h5_read_json(a, NULL, &zj, &nj));
  CHECK_STR(zj, "\"tiny\"");
  cairn_free(zj);
  CHECK_RC(cairn_h5_read(a, NULL, CAIRN_H5_F64, &dv, sizeof dv), CAIRN_TYPE);
  cairn_h5_obj_close(a);
  cairn_h5_obj_close(g);
  CHECK_RC(cairn_h5_get(h, "/nope", &g), CAIRN_NOTFOUND);
  CHECK(strstr(cairn_errmsg(), "nope") != NULL);
  CHECK_OK(cairn_h5_close(h));
}

TEST(h5, earliest) { checkFile(h5_tiny_earliest, sizeof h5_tiny_earliest, 0); }
TEST(h5, latest) { checkFile(h5_tiny_latest, sizeof h5_tiny_latest, 3); }

/* Reading one chunk reads that chunk and the metadata on its path, not the file. */
static void lazyOne(const unsigned char *p, size_t n) {
  CountFile *c = cairn_malloc(sizeof(CountFile));
  CHECK(c != NULL);
  c->base.pMethods = &cfMethods;
  c->nBytes = c->nRead = 0;
  CHECK_OK(cairn_memfile_open(p, n, &c->inner));
  cairn_h5 *h;
  CHECK_OK(cairn_h5_open(&c->base, 0, &h));
  CHECK_OK(cairn_h5_cache_budget(h, 0)); /* no page rounding: count exact structure reads */
  uint64_t before = c->nBytes;
  cairn_h5_obj *d;
  CHECK_OK(cairn_h5_get(h, "/grid", &d));
  cairn_h5_sel s = {2, {16, 8}, {1, 1}, {8, 8}, {1, 1}};
  int32_t v[64];
  CHECK_OK(cairn_h5_read(d, &s, CAIRN_H5_I32, v, sizeof v));
  CHECK_EQ(v[63], gridAt(23, 15));
  uint64_t used = c->nBytes;
  uint64_t nr;
  cairn_h5_stats(h, &nr, NULL);
  CHECK(nr >= 3);
  /* one chunk is 256 bytes; the metadata path is a few hundred more */
  CHECK(used - before < 2048);
  CHECK(used < n / 4);
  cairn_h5_obj_close(d);
  cairn_h5_close(h);
  cairn_file_close(&c->base);
  cairn_free(c);
}
TEST(h5, lazy) {
  lazyOne(h5_tiny_earliest, sizeof h5_tiny_earliest);
  lazyOne(h5_tiny_latest, sizeof h5_tiny_latest);
}

/* Every truncation and a sweep of byte flips must give an error or a result, never a crash;
** truncating inside the superblock must say the file is not HDF5 or truncated. */
static int walkAll(cairn_h5 *h) {
  const char *az[] = {"/grid", "/z", "/g", "/g/link"};
  int nOk = 0;
  for (unsigned i = 0; i < 4; i++) {
    cairn_h5_obj *o;
    if (cairn_h5_get(h, az[i], &o)) continue;
    cairn_h5_info in;
    if (cairn_h5_info_get(o, &in) == CAIRN_OK && in.kind == CAIRN_H5_DATASET) {
      char *z;
      size_t n;
      if (cairn_h5_read_json(o, NULL, &z, &n) == CAIRN_OK) {
        cairn_free(z);
        nOk++;
      }
    }
    cairn_h5_obj_close(o);
  }
  return nOk;
}

TEST(h5, corrupt) {
  const unsigned char *src = h5_tiny_latest;
  size_t n = sizeof h5_tiny_latest;
  uint8_t *p = cairn_malloc(n);
  CHECK(p != NULL);
  for (size_t cut = 0; cut < n; cut += 97) {
    cairn_file *f;
    cairn_h5 *h;
    CHECK_OK(cairn_memfile_open(src, cut, &f));
    int rc = cairn_h5_open(f, CAIRN_H5_OWN_FILE, &h);
    if (rc == CAIRN_OK) {
      walkAll(h);
      cairn_h5_close(h);
    } else {
      CHECK(cairn_errmsg()[0] != 0);
    }
  }
  int nChecksum = 0;
  for (size_t i = 0; i < n; i += 13) {
    memcpy(p, src, n);
    p[i] ^= 0x5a;
    cairn_h5 *h;
    cairn_file *f;
    CHECK_OK(cairn_memfile_open(p, n, &f));
    int rc = cairn_h5_open(f, CAIRN_H5_OWN_FILE, &h);
    if (rc == CAIRN_CHECKSUM) nChecksum++;
    if (rc == CAIRN_OK) {
      walkAll(h);
      cairn_h5_obj *o;
      if (cairn_h5_get(h, "/grid", &o) == CAIRN_CHECKSUM) nChecksum++;
      cairn_h5_obj_close(o);
      cairn_h5_close(h);
    }
  }
  CHECK(nChecksum > 0); /* version 2+ metadata is checksummed: flips there are caught */
  /* not an HDF5 file */
  cairn_file *f;
  cairn_h5 *h;
  CHECK_OK(cairn_memfile_open("hello world, this is not hdf5 at all", 36, &f));
  CHECK_RC(cairn_h5_open(f, CAIRN_H5_OWN_FILE, &h), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "signature") != NULL);
  cairn_free(p);
}
