/* 2026-11-29 - the HDF5 reader on two tiny h5py-written files (libver earliest and latest):
** paths, links, info, whole and hyperslab reads with conversion, JSON, lazy reading (bytes
** counted through a wrapping cairn_file), and clean errors on truncated and corrupted files.
** The broad interop proof against libhdf5 is tests/h5gen (ctest h5.interop).
** One file (about 1,050 lines) on purpose: every test reads the same two embedded files
** (test_h5_files.h) through the same helpers, and the suite is one ctest entry (core.h5) on
** every target; the writer's tests are test_h5w.c. */
#include <stdlib.h>

#include "common/internal.h"
#include "codec/lz4.h"
#include "hash/lookup3.h"
#include "cairn/h5w.h"
#include "tf.h"
#include "test_h5_files.h"
#include "oom.h"

static int32_t gridAt(unsigned i, unsigned j) { return (int32_t)(((uint64_t)(i * 32 + j) * 2654435761u) % (1u << 31)); }

/* A file that counts the bytes read through it. */
typedef struct CountFile {
  cairn_file base;
  cairn_file *inner;
  uint64_t nBytes, nRead;
  uint64_t nSize; /* size queries */
} CountFile;
static int cfRead(cairn_file *f, void *p, size_t n, uint64_t off, size_t *pn) {
  CountFile *c = (CountFile *)f;
  __atomic_add_fetch(&c->nBytes, n, __ATOMIC_SEQ_CST);
  __atomic_add_fetch(&c->nRead, 1, __ATOMIC_SEQ_CST);
  return c->inner->pMethods->xRead(c->inner, p, n, off, pn);
}
static int cfSize(cairn_file *f, uint64_t *pn) {
  __atomic_add_fetch(&((CountFile *)f)->nSize, 1, __ATOMIC_SEQ_CST);
  return cairn_file_size(((CountFile *)f)->inner, pn);
}
static int cfClose(cairn_file *f) { return cairn_file_close(((CountFile *)f)->inner); }
static const cairn_file_methods cfMethods = {1, cfRead, NULL, cfSize, NULL, NULL, cfClose, NULL, NULL, NULL, NULL};

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
  /* a buffer one element short: refused before anything is read, on the as-stored path (I32)
  ** and the converting one (I64) alike */
  all[32 * 32 - 1] = 12345;
  CHECK_RC(cairn_h5_read(d, NULL, CAIRN_H5_I32, all, sizeof all - 4), CAIRN_RANGE);
  CHECK(strstr(cairn_errmsg(), "too small") != NULL);
  CHECK_RC(cairn_h5_read(d, NULL, CAIRN_H5_I64, all, sizeof all), CAIRN_RANGE);
  CHECK_EQ(all[32 * 32 - 1], 12345);
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
  char *zi;
  size_t ni;
  CHECK_OK(cairn_h5_info_json(d, &zi, &ni));
  CHECK(strstr(zi, "\"shape\":[32,32]") != NULL);
  CHECK(strstr(zi, "\"chunks\":[8,8]") != NULL);
  CHECK(strstr(zi, "\"attrs\":[\"n\"]") != NULL);
  CHECK(strstr(zi, sbWant ? "\"chunkIndex\":\"farray\"" : "\"chunkIndex\":\"btree1\"") != NULL);
  cairn_free(zi);
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
  c->nBytes = c->nRead = c->nSize = 0;
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
  CHECK(used - before < n / 4); /* the open itself reads the first two pages, once */
  cairn_h5_obj_close(d);
  cairn_h5_close(h);
  cairn_file_close(&c->base);
  cairn_free(c);
}
/* Opening asks the host for one read and nothing else (the size is learnt from a short first
** read, or asked once when a structure lies past what was read); the answers stay right. A
** file shorter than the first read is read once in all. */
static void sizeOne(const unsigned char *p, size_t n, size_t nKeep) {
  CountFile *c = cairn_malloc(sizeof(CountFile));
  CHECK(c != NULL);
  c->base.pMethods = &cfMethods;
  c->nBytes = c->nRead = c->nSize = 0;
  CHECK_OK(cairn_memfile_open(p, nKeep, &c->inner));
  cairn_h5 *h;
  CHECK_OK(cairn_h5_open(&c->base, 0, &h));
  CHECK_EQ(c->nRead, 1);
  CHECK_EQ(c->nSize, 0);
  cairn_h5_obj *d;
  int32_t all[32 * 32];
  int rc = cairn_h5_get(h, "/grid", &d);
  if (nKeep == n) {
    CHECK_OK(rc);
    CHECK_OK(cairn_h5_read(d, NULL, CAIRN_H5_I32, all, sizeof all));
    CHECK_EQ(all[32 * 31 + 5], gridAt(31, 5));
    CHECK(c->nSize <= 1);
    uint64_t off, nb;
    CHECK_RC(cairn_h5_raw_extent(d, CAIRN_H5_I32, &off, &nb), CAIRN_NOTFOUND); /* chunked */
    CHECK_RC(cairn_h5_raw_extent(d, CAIRN_H5_NATIVE, &off, &nb), CAIRN_NOTFOUND);
    CHECK_RC(cairn_h5_raw_extent(NULL, CAIRN_H5_I32, &off, &nb), CAIRN_MISUSE);
    cairn_h5_obj_close(d);
  } else if (rc == CAIRN_OK) { /* cut short: right values or a clean error, never short values */
    rc = cairn_h5_read(d, NULL, CAIRN_H5_I32, all, sizeof all);
    if (rc == CAIRN_OK) CHECK_EQ(all[32 * 31 + 5], gridAt(31, 5));
    cairn_h5_obj_close(d);
  }
  if (nKeep != n && rc) CHECK(CAIRN_PRIMARY(rc) == CAIRN_CORRUPT);
  cairn_h5_close(h);
  cairn_file_close(&c->base);
  cairn_free(c);
}
TEST(h5, lazysize) {
  sizeOne(h5_tiny_earliest, sizeof h5_tiny_earliest, sizeof h5_tiny_earliest);
  sizeOne(h5_tiny_latest, sizeof h5_tiny_latest, sizeof h5_tiny_latest);
  for (size_t k = 8000; k < sizeof h5_tiny_latest; k += 500) sizeOne(h5_tiny_latest, sizeof h5_tiny_latest, k); /* cut short */
  for (size_t k = 8000; k < sizeof h5_tiny_earliest; k += 1500) sizeOne(h5_tiny_earliest, sizeof h5_tiny_earliest, k);
}

/* Objects may be closed after their file (h5.h): the first object of a handle lives in the
** handle's own memory, which then stays until that object closes. Run under ASan this catches
** a use after free in either order; the objects are read before to make them real. */
static void closeOrder(const unsigned char *p, size_t n, int fileFirst, int slotFirst) {
  cairn_h5 *h = openMem(p, n);
  CHECK(h != NULL);
  if (!h) return;
  cairn_h5_obj *a, *b, *c;
  int32_t all[32 * 32];
  CHECK_OK(cairn_h5_get(h, "/grid", &a)); /* the handle's slot */
  CHECK_OK(cairn_h5_get(h, "/grid", &b)); /* its own allocation */
  CHECK_OK(cairn_h5_read(a, NULL, CAIRN_H5_I32, all, sizeof all));
  CHECK_EQ(all[33], gridAt(1, 1));
  CHECK_OK(cairn_h5_read(b, NULL, CAIRN_H5_I32, all, sizeof all));
  CHECK_EQ(all[32 * 32 - 1], gridAt(31, 31));
  if (!slotFirst) { /* the slot is free again: the next object takes it */
    CHECK_OK(cairn_h5_obj_close(a));
    CHECK_OK(cairn_h5_get(h, "/grid", &a));
  }
  CHECK_OK(cairn_h5_get(h, "/g", &c));
  if (fileFirst) CHECK_OK(cairn_h5_close(h));
  if (slotFirst) {
    CHECK_OK(cairn_h5_obj_close(a));
    CHECK_OK(cairn_h5_obj_close(b));
  } else {
    CHECK_OK(cairn_h5_obj_close(b));
    CHECK_OK(cairn_h5_obj_close(a));
  }
  CHECK_OK(cairn_h5_obj_close(c));
  if (!fileFirst) CHECK_OK(cairn_h5_close(h));
}
TEST(h5, close_order) {
  for (int k = 0; k < 4; k++) {
    closeOrder(h5_tiny_earliest, sizeof h5_tiny_earliest, k & 1, k >> 1);
    closeOrder(h5_tiny_latest, sizeof h5_tiny_latest, k & 1, k >> 1);
  }
}

/* A version 1 object header whose first chunk lies in the open's first read (parsed in place
** there) and whose continuation chunk holds the rest of its messages: group /a of
** h5_cont_earliest, 12 attributes a00..a11 = k * 1.5 over both chunks. Every one reads back
** through the object in the handle's slot and through one of its own, and the latter closes
** after its file (its messages pointed into the handle's memory: under ASan a read at close
** would show). Cut short, the file gives right values or a clean error. */
#define CONT_WRONG (-1) /* read, but not what the file holds */
static int contAttrs(cairn_h5_obj *g) {
  cairn_h5_info in;
  int rc = cairn_h5_info_get(g, &in);
  if (rc) return rc;
  if (in.kind != CAIRN_H5_GROUP || in.nAttr != 12) return CONT_WRONG;
  for (int k = 0; k < 12 && rc == CAIRN_OK; k++) {
    char z[8] = {'a', (char)('0' + k / 10), (char)('0' + k % 10), 0};
    cairn_h5_obj *a;
    double v = -1;
    if ((rc = cairn_h5_attr(g, z, &a)) != CAIRN_OK) break;
    rc = cairn_h5_read(a, NULL, CAIRN_H5_F64, &v, sizeof v);
    if (rc == CAIRN_OK && v != k * 1.5) rc = CONT_WRONG;
    cairn_h5_obj_close(a);
  }
  return rc;
}
TEST(h5, ohdr_continuation) {
  cairn_h5 *h = openMem(h5_cont_earliest, sizeof h5_cont_earliest);
  CHECK(h != NULL);
  if (!h) return;
  cairn_h5_obj *s, *g;
  CHECK_OK(cairn_h5_get(h, "/a", &s)); /* the handle's slot */
  CHECK_OK(cairn_h5_get(h, "/a", &g)); /* its own allocation */
  CHECK_OK(contAttrs(s));
  CHECK_OK(contAttrs(g));
  CHECK_OK(cairn_h5_obj_close(s));
  CHECK_OK(cairn_h5_close(h)); /* the slot is free: the handle's memory goes now */
  CHECK_OK(cairn_h5_obj_close(g));
  for (size_t cut = 800; cut < sizeof h5_cont_earliest; cut += 61) {
    cairn_file *f;
    CHECK_OK(cairn_memfile_open(h5_cont_earliest, cut, &f));
    if (cairn_h5_open(f, CAIRN_H5_OWN_FILE, &h)) continue;
    int rc = cairn_h5_get(h, "/a", &g);
    if (rc == CAIRN_OK) {
      rc = contAttrs(g);
      cairn_h5_obj_close(g);
    }
    CHECK(rc != CONT_WRONG);
    if (rc) CHECK(cairn_errmsg()[0] != 0);
    cairn_h5_close(h);
  }
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

/* cairn_h5_get of zPath in the file p[0..n) (in memory): its status. */
static int getIn(const uint8_t *p, size_t n, const char *zPath) {
  cairn_h5 *h = openMem(p, n);
  if (!h) return CAIRN_MISUSE;
  cairn_h5_obj *o = NULL;
  int rc = cairn_h5_get(h, zPath, &o);
  cairn_h5_obj_close(o);
  cairn_h5_close(h);
  return rc;
}

/* The same in a copy of src (n bytes) with the bytes at[i] = v[i] set (k of them); with ck, the
** version 2 object header whose checksummed part is [ck, ck + nck) gets its checksum recomputed. */
static int getEdited(const unsigned char *src, size_t n, const size_t *at, const uint8_t *v, size_t k, size_t ck, size_t nck, const char *zPath) {
  uint8_t *p = cairn_malloc(n);
  if (!p) return CAIRN_NOMEM;
  memcpy(p, src, n);
  for (size_t i = 0; i < k; i++) p[at[i]] = v[i];
  if (nck) cairnPutLE32(p + ck + nck, cairnLookup3(p + ck, nck, 0));
  int rc = getIn(p, n, zPath);
  cairn_free(p);
  return rc;
}

/* A lookup reads a group's header in place when it lies in the open's first read: bad headers
** seen that way give the errors the general header reader gives, naming what and where. */
TEST(h5, group_header_errors) {
  /* latest: the root header (OHDR at 48, times stored) has its messages at 71..191 and its
  ** checksum at 191: link info, group info, then links "grid" (message at 99, data at 103), "z",
  ** "g" */
  const unsigned char *L = h5_tiny_latest;
  size_t nL = sizeof h5_tiny_latest, ck = 48, nck = 191 - 48;
  CHECK_EQ(L[99], 6);
  CHECK_EQ(L[106], 'g');
  size_t at[2];
  uint8_t v[2];
  at[0] = 106, v[0] = 'G'; /* checksum left stale */
  CHECK_RC(getEdited(L, nL, at, v, 1, 0, 0, "/grid"), CAIRN_CHECKSUM);
  CHECK(strstr(cairn_errmsg(), "object header checksum mismatch at offset 48") != NULL);
  CHECK_OK(getEdited(L, nL, at, v, 1, ck, nck, "/Grid")); /* the same, checksum fixed */
  at[0] = 100, v[0] = 0, at[1] = 101, v[1] = 1; /* "grid" message claims 256 bytes */
  CHECK_RC(getEdited(L, nL, at, v, 2, ck, nck, "/z"), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "message of type 6 at offset 99 (256 bytes) overruns its object header chunk") != NULL);
  at[0] = 103, v[0] = 2; /* "grid" link of version 2: found before "z" */
  CHECK_RC(getEdited(L, nL, at, v, 1, ck, nck, "/z"), CAIRN_UNSUPPORTED);
  CHECK(strstr(cairn_errmsg(), "link message version 2 at offset 103") != NULL);
  at[0] = 105, v[0] = 64; /* "grid" name runs past its message */
  CHECK_RC(getEdited(L, nL, at, v, 1, ck, nck, "/g"), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "bad link name at offset 103") != NULL);
  CHECK_RC(getEdited(L, nL, at, v, 0, 0, 0, "/nope"), CAIRN_NOTFOUND);
  CHECK(strstr(cairn_errmsg(), "no object '/nope' in /") != NULL);

  /* earliest: the root header (version 1 at 96) holds one symbol table message at 112 (data at
  ** 120, 16 bytes) in a chunk of 24 bytes */
  const unsigned char *E = h5_tiny_earliest;
  size_t nE = sizeof h5_tiny_earliest;
  CHECK_EQ(E[112], 0x11);
  CHECK_EQ(E[114], 16);
  at[0] = 114, v[0] = 32;
  CHECK_RC(getEdited(E, nE, at, v, 1, 0, 0, "/grid"), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "message of type 17 at offset 112 (32 bytes) overruns its object header chunk") != NULL);
  at[0] = 114, v[0] = 8;
  CHECK_RC(getEdited(E, nE, at, v, 1, 0, 0, "/grid"), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "short symbol table message at offset 120") != NULL);
  at[0] = 96, v[0] = 3;
  CHECK_RC(getEdited(E, nE, at, v, 1, 0, 0, "/grid"), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "no object header at address 96 (version byte 3)") != NULL);
  CHECK_RC(getEdited(E, nE, at, v, 0, 0, 0, "/g/nope"), CAIRN_NOTFOUND);
  CHECK(strstr(cairn_errmsg(), "no object '/g/nope' in /g") != NULL);
}

/* A lookup in a symbol-table group whose B-tree, symbol node and local heap lie in the open's
** first read compares names in place: the same answers and errors as through the cache. */
TEST(h5, symtab_lookup_in_place) {
  /* earliest: root B-tree at 136 (one child: its key 1 at 176 is the offset of "z"), symbol node
  ** at 1072 (g, grid, z), local heap at 680 with 88 bytes of names at 712: "" 0, grid 8, z 16,
  ** g 24, then a free block */
  const unsigned char *E = h5_tiny_earliest;
  size_t nE = sizeof h5_tiny_earliest;
  CHECK(memcmp(E + 136, "TREE", 4) == 0 && memcmp(E + 1072, "SNOD", 4) == 0 && memcmp(E + 680, "HEAP", 4) == 0);
  CHECK_EQ(E[176], 16);
  CHECK(memcmp(E + 712 + 8, "grid", 5) == 0 && memcmp(E + 712 + 16, "z", 2) == 0);
  size_t at[80];
  uint8_t v[80];
  /* names around the three: prefixes, extensions, before the first, after the last */
  const char *azMiss[] = {"/gr", "/gridz", "/grie", "/a", "/zz", "/G", "/g\xff", "/h"};
  for (size_t i = 0; i < CAIRN_ARRAY_SIZE(azMiss); i++) {
    CHECK_RC(getEdited(E, nE, at, v, 0, 0, 0, azMiss[i]), CAIRN_NOTFOUND);
    CHECK(strstr(cairn_errmsg(), "no object") != NULL);
  }
  CHECK_OK(getEdited(E, nE, at, v, 0, 0, 0, "/g/link"));
  at[0] = 136, v[0] = 'X';
  CHECK_RC(getEdited(E, nE, at, v, 1, 0, 0, "/grid"), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "missing TREE signature at offset 136") != NULL);
  at[0] = 140, v[0] = 1;
  CHECK_RC(getEdited(E, nE, at, v, 1, 0, 0, "/grid"), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "B-tree at 136 has type 1, not a group node") != NULL);
  at[0] = 1072, v[0] = 'X';
  CHECK_RC(getEdited(E, nE, at, v, 1, 0, 0, "/grid"), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "missing SNOD signature at offset 1072") != NULL);
  at[0] = 680, v[0] = 'X';
  CHECK_RC(getEdited(E, nE, at, v, 1, 0, 0, "/grid"), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "missing HEAP signature at offset 680") != NULL);
  at[0] = 176, v[0] = 200; /* the B-tree key: past the heap's 88 bytes */
  CHECK_RC(getEdited(E, nE, at, v, 1, 0, 0, "/grid"), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "name offset 200 outside local heap at 680") != NULL);
  for (size_t i = 0; i < 72; i++) at[i] = 712 + 16 + i, v[i] = 'z'; /* "z" runs to the heap's end */
  const char *azBad[] = {"/grid", "/z", "/zz"};
  for (size_t i = 0; i < CAIRN_ARRAY_SIZE(azBad); i++) {
    CHECK_RC(getEdited(E, nE, at, v, 72, 0, 0, azBad[i]), CAIRN_CORRUPT);
    CHECK(strstr(cairn_errmsg(), "unterminated name in local heap at 680") != NULL);
  }
}

/* Lookups through groups whose header goes on in a continuation chunk (read in place when it
** lies in the open's first read), and the errors of a bad continuation. */
TEST(h5, group_header_continued) {
  /* latest: the root header's chunk (OHDR at 48, messages 71..191, checksum at 191) has the link
  ** "z" at 118 (16 bytes) and a NIL message at 150 (41 bytes). "z" moves to an OCHK chunk at 1400
  ** (unused space in the first read) that a continuation message at 150 names. */
  size_t n = sizeof h5_tiny_latest;
  uint8_t *p = cairn_malloc(n);
  CHECK(p != NULL);
  memcpy(p, h5_tiny_latest, n);
  CHECK(p[118] == 6 && p[122 + 3] == 'z' && p[150] == 0 && p[151] == 37);
  for (size_t i = 1400; i < 1440; i++) CHECK_EQ(p[i], 0);
  memcpy(p + 1400, "OCHK", 4);
  memcpy(p + 1404, p + 118, 16);
  cairnPutLE32(p + 1420, cairnLookup3(p + 1400, 20, 0));
  memset(p + 118, 0, 16); /* a NIL message of 12 bytes where "z" was */
  p[119] = 12;
  memset(p + 150, 0, 41);
  p[150] = 0x10, p[151] = 16; /* continuation: 24 bytes at 1400 */
  cairnPutLE64(p + 154, 1400);
  cairnPutLE64(p + 162, 24);
  p[171] = 17; /* then a NIL message of 17 bytes */
  cairnPutLE32(p + 191, cairnLookup3(p + 48, 191 - 48, 0));
  CHECK_OK(getIn(p, n, "/z"));
  CHECK_OK(getIn(p, n, "/grid"));
  CHECK_OK(getIn(p, n, "/g/link"));
  CHECK_RC(getIn(p, n, "/y"), CAIRN_NOTFOUND);
  p[1410] ^= 1; /* the chunk's checksum no longer holds */
  CHECK_RC(getIn(p, n, "/z"), CAIRN_CHECKSUM);
  CHECK(strstr(cairn_errmsg(), "object header continuation checksum mismatch at offset 1400") != NULL);
  p[1410] ^= 1;
  p[170] = 0x10, p[171] = 16; /* a second continuation to the same chunk (then a 1-byte gap) */
  cairnPutLE64(p + 174, 1400);
  cairnPutLE64(p + 182, 24);
  cairnPutLE32(p + 191, cairnLookup3(p + 48, 191 - 48, 0));
  CHECK_RC(getIn(p, n, "/grid"), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "continuation chunk at 1400 is referenced twice in object header 48") != NULL);
  cairn_free(p);

  /* earliest: the root header (version 1 at 96) has one 24-byte chunk at 112 holding the symbol
  ** table message; it becomes a continuation to a 24-byte chunk at 2200 holding that message */
  n = sizeof h5_tiny_earliest;
  p = cairn_malloc(n);
  CHECK(p != NULL);
  memcpy(p, h5_tiny_earliest, n);
  for (size_t i = 2200; i < 2232; i++) CHECK_EQ(p[i], 0);
  memcpy(p + 2200, p + 112, 24);
  memset(p + 112, 0, 24);
  p[112] = 0x10, p[114] = 16;
  cairnPutLE64(p + 120, 2200);
  cairnPutLE64(p + 128, 24);
  CHECK_OK(getIn(p, n, "/grid"));
  CHECK_OK(getIn(p, n, "/g/link"));
  CHECK_RC(getIn(p, n, "/y"), CAIRN_NOTFOUND);
  p[2202] = 17; /* the symbol table message claims 17 bytes: past its chunk */
  CHECK_RC(getIn(p, n, "/grid"), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "message of type 17 at offset 2200 (17 bytes) overruns its object header chunk") != NULL);
  cairn_free(p);
}

/* ---- OOM and I/O-error loops: fail allocation (or host read) N for N = 1, 2, ... until a run
** completes without reaching N. Every run must fail with NOMEM (IOERR) or succeed, and leave
** no allocation behind. */
static long gReadN, gReadFailAt;
static int failRead(cairn_file *f, void *p, size_t n, uint64_t off, size_t *pn) {
  CountFile *c = (CountFile *)f;
  if (__atomic_add_fetch(&gReadN, 1, __ATOMIC_SEQ_CST) == gReadFailAt) return cairn_seterr(CAIRN_IOERR, "injected read failure %ld", gReadN);
  return c->inner->pMethods->xRead(c->inner, p, n, off, pn);
}
static const cairn_file_methods failMethods = {1, failRead, NULL, cfSize, NULL, NULL, cfClose, NULL, NULL, NULL, NULL};

/* open, walk, read everything; returns the first failure */
static int scenario(const unsigned char *p, size_t n, int viaFail) {
  cairn_file *f;
  int rc = cairn_memfile_open(p, n, &f);
  if (rc) return rc;
  if (viaFail) {
    CountFile *c = cairn_malloc(sizeof(CountFile));
    if (!c) {
      cairn_file_close(f);
      return CAIRN_NOMEM;
    }
    c->base.pMethods = &failMethods;
    c->inner = f;
    f = &c->base;
  }
  cairn_h5 *h;
  rc = cairn_h5_open(f, 0, &h);
  if (rc == CAIRN_OK && viaFail == 2) cairn_h5_cache_budget(h, 0); /* every structure read is a host read */
  if (rc == CAIRN_OK) {
    const char *az[] = {"/grid", "/g/link", "/g"};
    for (unsigned i = 0; i < 3 && rc == CAIRN_OK; i++) {
      cairn_h5_obj *o, *a;
      cairn_h5_info in;
      rc = cairn_h5_get(h, az[i], &o);
      if (rc) break;
      rc = cairn_h5_info_get(o, &in);
      if (rc == CAIRN_OK && in.kind == CAIRN_H5_DATASET) {
        char *z;
        size_t nz;
        rc = cairn_h5_read_json(o, NULL, &z, &nz);
        if (rc == CAIRN_OK) cairn_free(z);
      }
      for (size_t k = 0; rc == CAIRN_OK && k < in.nAttr; k++) {
        rc = cairn_h5_attr_at(o, k, &a);
        if (rc == CAIRN_OK) {
          char *z;
          size_t nz;
          rc = cairn_h5_read_json(a, NULL, &z, &nz);
          if (rc == CAIRN_OK) cairn_free(z);
          cairn_h5_obj_close(a);
        }
      }
      cairn_h5_obj_close(o);
    }
    cairn_h5_close(h);
  }
  if (viaFail) {
    CountFile *c = (CountFile *)f;
    cairn_file_close(c->inner);
    cairn_free(c);
  } else {
    cairn_file_close(f);
  }
  return rc;
}

static void oomLoop(const unsigned char *p, size_t n) {
  cairn_host saved = *cairn_host_get(), hst = saved;
  oomHooks(&hst); /* chunks are decoded on the host's worker threads: the counters are atomic */
  CHECK_OK(cairn_host_set(&hst));
  long nRuns = 0;
  for (long failAt = 1;; failAt++) {
    oomArm(OOM_ONCE, failAt - 1);
    int rc = scenario(p, n, 0);
    long live = oomLive(), reached = oomReached();
    if (live != 0 || (rc != CAIRN_OK && CAIRN_PRIMARY(rc) != CAIRN_NOMEM) || (!reached && rc != CAIRN_OK)) {
      cairn_host_set(&saved);
      tfFail(__FILE__, __LINE__, "allocation %ld failed: rc %s (%s), %ld allocations left", failAt, cairn_errstr(rc), cairn_errmsg(), live);
      return;
    }
    nRuns++;
    if (!reached) break;
  }
  cairn_host_set(&saved);
  CHECK(nRuns > 20);
}
/*
** Raw data in external files (h5_ext_earliest, from mkembed.py): /x is 30 little-endian i32,
** x[i] = i*i - 100, over three slots: 40 bytes at 16 of ext_a.raw, 48 at 0 of ext_b.raw, 32 at
** 100 of ext_a.raw. The test's host serves the two raw files from memory through xOpen; bytes
** outside the slots are 0xEE, so a wrong offset shows.
*/
static uint8_t gExtA[132], gExtB[48];
static size_t gnExtA, gnExtB; /* served sizes (shorter: a truncated file); 0: the file is missing */
static int gnExtOpen;
static int extOpen(void *pCtx, const char *zPath, int flags, cairn_file **pp) {
  (void)pCtx;
  gnExtOpen++;
  if (flags != CAIRN_OPEN_READONLY) return CAIRN_MISUSE;
  if (strcmp(zPath, "ext_a.raw") == 0 && gnExtA) return cairn_memfile_open(gExtA, gnExtA, pp);
  if (strcmp(zPath, "ext_b.raw") == 0 && gnExtB) return cairn_memfile_open(gExtB, gnExtB, pp);
  return cairnErr(CAIRN_NOTFOUND, "cannot open %s: no such file", zPath);
}
static void extFiles(void) {
  uint8_t x[120];
  for (int i = 0; i < 30; i++) {
    uint32_t v = (uint32_t)(i * i - 100);
    for (int b = 0; b < 4; b++) x[4 * i + b] = (uint8_t)(v >> (8 * b));
  }
  memset(gExtA, 0xEE, sizeof gExtA);
  memcpy(gExtA + 16, x, 40);
  memcpy(gExtB, x + 40, 48);
  memcpy(gExtA + 100, x + 88, 32);
  gnExtA = sizeof gExtA;
  gnExtB = sizeof gExtB;
}
/* Read /x of the file p (whole, as i32) with the host in force: the status, values in out. */
static int extReadAll(const unsigned char *p, size_t n, int32_t *out) {
  cairn_h5 *h = openMem(p, n);
  cairn_h5_obj *d;
  if (!h) return CAIRN_MISUSE; /* the header is intact in every case: no caller expects this */
  int rc = cairn_h5_get(h, "/x", &d);
  if (rc == CAIRN_OK) {
    rc = cairn_h5_read(d, NULL, CAIRN_H5_I32, out, 30 * sizeof(int32_t));
    cairn_h5_obj_close(d);
  }
  cairn_h5_close(h);
  return rc;
}
/* The offset of the external data files message's first slot (name, offset 16, size 40). */
static size_t extSlot0(const unsigned char *p, size_t n) {
  static const uint8_t pat[16] = {16, 0, 0, 0, 0, 0, 0, 0, 40, 0, 0, 0, 0, 0, 0, 0};
  for (size_t i = 8; i + 16 <= n; i++)
    if (memcmp(p + i, pat, 16) == 0) return i - 8;
  return 0;
}
TEST(h5, external_raw_data) {
  cairn_host saved = *cairn_host_get(), hst = saved;
  hst.xOpen = extOpen;
  CHECK_OK(cairn_host_set(&hst));
  extFiles();
  int32_t v[30];
  /* whole, in order */
  CHECK_OK(extReadAll(h5_ext_earliest, sizeof h5_ext_earliest, v));
  for (int i = 0; i < 30; i++) CHECK_EQ(v[i], i * i - 100);
  /* a hyperslab across all three slots, converted to double */
  cairn_h5 *h = openMem(h5_ext_earliest, sizeof h5_ext_earliest);
  cairn_h5_obj *d;
  CHECK_OK(cairn_h5_get(h, "/x", &d));
  cairn_h5_sel sel = {1, {3}, {4}, {7}, {2}}; /* 3,4, 7,8, ..., 27,28 */
  double w[14];
  CHECK_OK(cairn_h5_read(d, &sel, CAIRN_H5_F64, w, sizeof w));
  for (int k = 0; k < 14; k++) {
    int i = 3 + 4 * (k / 2) + k % 2;
    CHECK(w[k] == (double)(i * i - 100));
  }
  /* the info JSON lists the files, as h5py's Dataset.external does */
  char *zj;
  size_t nj;
  CHECK_OK(cairn_h5_info_json(d, &zj, &nj));
  CHECK(strstr(zj, ",\"external\":[{\"name\":\"ext_a.raw\",\"offset\":16,\"size\":40},{\"name\":\"ext_b.raw\",\"offset\":0,"
                   "\"size\":48},{\"name\":\"ext_a.raw\",\"offset\":100,\"size\":32}]") != NULL);
  cairn_free(zj);
  cairn_h5_obj_close(d);
  cairn_h5_close(h);
  /* ext_a.raw cut short inside the last slot: the bytes past its end read as zeros */
  gnExtA = 116;
  CHECK_OK(extReadAll(h5_ext_earliest, sizeof h5_ext_earliest, v));
  for (int i = 0; i < 30; i++) CHECK_EQ(v[i], i < 26 ? i * i - 100 : 0);
  /* ext_b.raw missing: an error naming the dataset and the file */
  extFiles();
  gnExtB = 0;
  CHECK_EQ(CAIRN_PRIMARY(extReadAll(h5_ext_earliest, sizeof h5_ext_earliest, v)), CAIRN_NOTFOUND);
  CHECK(strstr(cairn_errmsg(), "/x keeps its data in external file 'ext_b.raw', which cannot be opened") != NULL);
  /* damaged messages: slots holding less than the data, a bad version, more slots used than
  ** allocated, an unlimited slot before the last */
  extFiles();
  size_t s0 = extSlot0(h5_ext_earliest, sizeof h5_ext_earliest);
  CHECK(s0 >= 16);
  uint8_t *c = cairn_malloc(sizeof h5_ext_earliest);
  memcpy(c, h5_ext_earliest, sizeof h5_ext_earliest);
  c[s0 + 2 * 24 + 16] = 16; /* third slot: 16 bytes instead of 32 */
  CHECK_EQ(extReadAll(c, sizeof h5_ext_earliest, v), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "/x needs bytes 0..120 but its 3 external files hold 104") != NULL);
  memcpy(c, h5_ext_earliest, sizeof h5_ext_earliest);
  c[s0 - 16] = 2;
  CHECK_EQ(extReadAll(c, sizeof h5_ext_earliest, v), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "bad external data files message (version 2") != NULL);
  memcpy(c, h5_ext_earliest, sizeof h5_ext_earliest);
  c[s0 - 16 + 6] = 9, c[s0 - 16 + 7] = 1; /* 265 slots used */
  CHECK_EQ(extReadAll(c, sizeof h5_ext_earliest, v), CAIRN_CORRUPT);
  memcpy(c, h5_ext_earliest, sizeof h5_ext_earliest);
  memset(c + s0 + 16, 0xff, 8); /* the first slot unlimited */
  CHECK_EQ(extReadAll(c, sizeof h5_ext_earliest, v), CAIRN_CORRUPT);
  CHECK(strstr(cairn_errmsg(), "external file 1 of 3 of /x has unlimited size but is not the last") != NULL);
  cairn_free(c);
  /* CAIRN_H5_NO_EXTERNAL: refused before any file is opened */
  int nOpen = gnExtOpen;
  cairn_file *mf;
  CHECK_OK(cairn_memfile_open(h5_ext_earliest, sizeof h5_ext_earliest, &mf));
  CHECK_OK(cairn_h5_open(mf, CAIRN_H5_OWN_FILE | CAIRN_H5_NO_EXTERNAL, &h));
  CHECK_OK(cairn_h5_get(h, "/x", &d));
  CHECK_EQ(cairn_h5_read(d, NULL, CAIRN_H5_I32, v, sizeof v), CAIRN_UNSUPPORTED);
  CHECK(strstr(cairn_errmsg(), "/x keeps its data in external files, which this handle does not open") != NULL);
  CHECK_EQ(gnExtOpen, nOpen);
  cairn_h5_obj_close(d);
  cairn_h5_close(h);
  /* a host that cannot open files by name */
  hst.xOpen = NULL;
  CHECK_OK(cairn_host_set(&hst));
  CHECK(extReadAll(h5_ext_earliest, sizeof h5_ext_earliest, v) != CAIRN_OK);
  CHECK(strstr(cairn_errmsg(), "external file 'ext_a.raw'") != NULL);
  cairn_host_set(&saved);
  CHECK(gnExtOpen >= 6);
}

/*
** A large contiguous read (>= 2 MiB) is split over the host's workers: the values are the same
** with one worker and with two, and a part whose read fails gives the error of that part.
*/
typedef struct FailFile {
  cairn_file base;
  cairn_file *inner;
  uint64_t failLo, failHi; /* reads that overlap [failLo, failHi) fail */
  int nCalls;
} FailFile;
static int ffRead(cairn_file *f, void *p, size_t n, uint64_t off, size_t *pn) {
  FailFile *x = (FailFile *)f;
  __atomic_add_fetch(&x->nCalls, 1, __ATOMIC_SEQ_CST);
  if (off < x->failHi && off + n > x->failLo) return cairnErr(CAIRN_IOERR, "injected read error at offset %llu", (unsigned long long)off);
  return x->inner->pMethods->xRead(x->inner, p, n, off, pn);
}
static int ffSize(cairn_file *f, uint64_t *pn) { return cairn_file_size(((FailFile *)f)->inner, pn); }
static int ffClose(cairn_file *f) { return cairn_file_close(((FailFile *)f)->inner); }
static const cairn_file_methods ffMethods = {1, ffRead, NULL, ffSize, NULL, NULL, ffClose, NULL, NULL, NULL, NULL};

TEST(h5, large_contiguous_parallel) {
  enum { N = 1500000 }; /* 6 MB of i32 */
  cairn_file *mf;
  cairn_h5w *w;
  int32_t *v = cairn_malloc(N * sizeof(int32_t)), *got = cairn_malloc(N * sizeof(int32_t));
  for (int i = 0; i < N; i++) v[i] = i * 7 - 1000;
  CHECK_OK(cairn_memfile_open(NULL, 0, &mf));
  CHECK_OK(cairn_h5w_create(mf, CAIRN_H5W_NOSYNC, &w));
  cairn_h5w_type *t = cairn_h5w_type_int(4, 1);
  uint64_t dims = N;
  cairn_h5w_dset_opts o = {CAIRN_H5W_CONTIGUOUS, NULL, NULL, NULL};
  CHECK_OK(cairn_h5w_dataset(w, "/big", t, 1, &dims, NULL, &o, v));
  cairn_h5w_type_free(t);
  CHECK_OK(cairn_h5w_close(w));
  size_t nImg;
  const uint8_t *img;
  CHECK_OK(cairn_memfile_data(mf, &img, &nImg));
  cairn_host saved = *cairn_host_get();
  for (unsigned workers = 1; workers <= 2; workers++) {
    cairn_host hst = saved;
    if (workers == 1) hst.xParallelFor = NULL, hst.xConcurrency = NULL; /* one worker: one read */
    CHECK_OK(cairn_host_set(&hst));
    cairn_h5 *h = openMem(img, nImg);
    cairn_h5_obj *d;
    CHECK(h != NULL);
    CHECK_OK(cairn_h5_get(h, "/big", &d));
    memset(got, 0, N * sizeof(int32_t));
    uint64_t nRead0, nRead1, nb;
    cairn_h5_stats(h, &nRead0, &nb);
    CHECK_OK(cairn_h5_read(d, NULL, CAIRN_H5_I32, got, N * sizeof(int32_t)));
    cairn_h5_stats(h, &nRead1, &nb);
    CHECK(memcmp(got, v, N * sizeof(int32_t)) == 0);
    if (workers == 2 && cairnConcurrency() >= 2) CHECK_EQ(nRead1 - nRead0, 2); /* two halves */
    if (workers == 1) CHECK_EQ(nRead1 - nRead0, 1);
    cairn_h5_obj_close(d);
    cairn_h5_close(h);
  }
  /* the second half's read fails: the error names it, no crash, nothing leaks */
  FailFile *ff = cairn_malloc(sizeof *ff);
  memset(ff, 0, sizeof *ff);
  ff->base.pMethods = &ffMethods;
  CHECK_OK(cairn_memfile_open(img, nImg, &ff->inner));
  cairn_h5 *h;
  cairn_h5_obj *d;
  CHECK_OK(cairn_h5_open(&ff->base, 0, &h));
  CHECK_OK(cairn_h5_get(h, "/big", &d));
  uint64_t at, nb;
  CHECK_OK(cairn_h5_raw_extent(d, CAIRN_H5_I32, &at, &nb));
  CHECK_EQ(nb, (uint64_t)N * 4);
  ff->failLo = at + nb - 4096, ff->failHi = at + nb; /* the data's last page */
  CHECK_EQ(CAIRN_PRIMARY(cairn_h5_read(d, NULL, CAIRN_H5_I32, got, N * sizeof(int32_t))), CAIRN_IOERR);
  CHECK(strstr(cairn_errmsg(), "injected read error at offset") != NULL);
  cairn_h5_obj_close(d);
  cairn_h5_close(h);
  cairn_file_close(&ff->base);
  cairn_free(ff);
  cairn_host_set(&saved);
  cairn_file_close(mf);
  cairn_free(v);
  cairn_free(got);
}

TEST(h5, oom_loop) {
  oomLoop(h5_tiny_earliest, sizeof h5_tiny_earliest);
  oomLoop(h5_tiny_latest, sizeof h5_tiny_latest);
}

TEST(h5, ioerr_loop) {
  for (int which = 0; which < 4; which++) {
    const unsigned char *p = which & 1 ? h5_tiny_latest : h5_tiny_earliest;
    size_t n = which & 1 ? sizeof h5_tiny_latest : sizeof h5_tiny_earliest;
    long nRuns = 0;
    for (gReadFailAt = 1;; gReadFailAt++) {
      gReadN = 0;
      int rc = scenario(p, n, which < 2 ? 1 : 2);
      int reached = gReadN >= gReadFailAt;
      if (reached) CHECK_EQ(CAIRN_PRIMARY(rc), CAIRN_IOERR);
      else {
        CHECK_OK(rc);
        break;
      }
      nRuns++;
    }
    CHECK(nRuns >= (which < 2 ? 1 : 10));
  }
}

/* ---- conversions on hand-built datatypes (the internal model of core/h5/h5int.h) ---- */
#include "h5/h5int.h"

static H5Type *mkType(uint8_t cls, uint32_t size, int bigEndian, int isSigned) {
  H5Type *t = cairn_malloc(sizeof(H5Type));
  memset(t, 0, sizeof(*t));
  t->cls = cls;
  t->size = size;
  t->bigEndian = (uint8_t)bigEndian;
  t->isSigned = (uint8_t)isSigned;
  t->precision = (uint16_t)(8 * size);
  if (cls == H5T_FLOAT) {
    if (size == 2) t->expLoc = 10, t->expSize = 5, t->manSize = 10, t->expBias = 15;
    if (size == 4) t->expLoc = 23, t->expSize = 8, t->manSize = 23, t->expBias = 127;
    if (size == 8) t->expLoc = 52, t->expSize = 11, t->manSize = 52, t->expBias = 1023;
  }
  return t;
}

/* cairnH5ObjAttrEach (the npm package's bulk attribute walk) decodes each attribute without copying
** it (cairnH5AttrPeek): it must give what opening the attribute alone gives, and on damaged files
** fail or skip cleanly like the rest of the reader. */
typedef struct EachArg {
  cairn_h5_obj *o;
  size_t n;
} EachArg;
static void eachCheck1(EachArg *g, size_t i, const H5AttrView *v) {
  cairn_h5_obj *a;
  CHECK_EQ(i, g->n);
  g->n++;
  const char *zName;
  CHECK_OK(cairn_h5_attr_name(g->o, i, &zName));
  CHECK_STR(v->zName, zName);
  int rc = cairn_h5_attr(g->o, v->zName, &a);
  if (!v->pType) { /* did not decode: neither does it alone */
    CHECK(rc != CAIRN_OK);
    return;
  }
  CHECK_OK(rc);
  cairn_h5_info in;
  CHECK_OK(cairn_h5_info_get(a, &in));
  CHECK_EQ(in.space, v->pSpace->kind);
  CHECK_EQ(in.rank, v->pSpace->rank);
  for (unsigned r = 0; r < in.rank; r++) CHECK_EQ(in.dims[r], v->pSpace->aDim[r]);
  CHECK_EQ(in.nElem, v->pSpace->nElem);
  CHECK_EQ(in.typeSize, v->pType->size);
  CHECK_EQ(v->nData, (size_t)(in.nElem * in.typeSize));
  uint8_t want[256], got[256];
  if (v->nData <= sizeof want && cairn_h5_read(a, NULL, CAIRN_H5_NATIVE, want, sizeof want) == CAIRN_OK) {
    memcpy(got, v->pData, v->nData);
    cairnH5ToNative(v->pType, got, v->pSpace->nElem);
    CHECK(memcmp(got, want, v->nData) == 0);
  }
  cairn_h5_obj_close(a);
}
static int eachCheck(void *pArg, size_t i, const H5AttrView *v) {
  eachCheck1(pArg, i, v);
  return CAIRN_OK;
}
static void eachWalk(cairn_h5 *h, int bStrict) {
  const char *az[] = {"/grid", "/g", "/g/link", "/"};
  for (unsigned k = 0; k < 4; k++) {
    cairn_h5_obj *o;
    if (cairn_h5_get(h, az[k], &o) != CAIRN_OK) continue;
    EachArg g = {o, 0};
    cairn_h5_info in;
    int rc = cairnH5ObjAttrEach(o, eachCheck, &g);
    if (bStrict) {
      CHECK_OK(rc);
      CHECK_OK(cairn_h5_info_get(o, &in));
      CHECK_EQ(g.n, in.nAttr);
    }
    cairn_h5_obj_close(o);
  }
}
TEST(h5, attr_each) {
  const unsigned char *aSrc[] = {h5_tiny_earliest, h5_tiny_latest};
  size_t aN[] = {sizeof h5_tiny_earliest, sizeof h5_tiny_latest};
  for (int v = 0; v < 2; v++) {
    cairn_file *f;
    cairn_h5 *h;
    CHECK_OK(cairn_memfile_open(aSrc[v], aN[v], &f));
    CHECK_OK(cairn_h5_open(f, CAIRN_H5_OWN_FILE, &h));
    eachWalk(h, 1);
    cairn_h5_close(h);
    /* flipped bytes: whatever opens walks without a crash (ASan) or a wrong value */
    uint8_t *p = cairn_malloc(aN[v]);
    CHECK(p != NULL);
    for (size_t i = 0; i < aN[v]; i += 7) {
      memcpy(p, aSrc[v], aN[v]);
      p[i] ^= 0x24;
      CHECK_OK(cairn_memfile_open(p, aN[v], &f));
      if (cairn_h5_open(f, CAIRN_H5_OWN_FILE, &h) == CAIRN_OK) {
        eachWalk(h, 0);
        cairn_h5_close(h);
      }
    }
    cairn_free(p);
  }
}

TEST(h5, convert) {
  /* big-endian int32 -> f64, i8 and u16 (wrapping like C) */
  H5Type *ti = mkType(H5T_FIXED, 4, 1, 1);
  uint8_t be[8] = {0xff, 0xff, 0xff, 0xfe, 0x00, 0x01, 0x00, 0x02}; /* -2, 65538 */
  double dv[2];
  CHECK_OK(cairnH5Convert(ti, be, 2, CAIRN_H5_F64, dv));
  CHECK(dv[0] == -2.0 && dv[1] == 65538.0);
  int8_t i8[2];
  CHECK_OK(cairnH5Convert(ti, be, 2, CAIRN_H5_I8, i8));
  CHECK_EQ(i8[0], -2);
  CHECK_EQ(i8[1], 2);
  /* 12-bit signed field at bit offset 3 of a 16-bit little-endian word */
  H5Type *tb = mkType(H5T_FIXED, 2, 0, 1);
  tb->precision = 12;
  tb->bitOffset = 3;
  uint16_t w = (uint16_t)((0xFFF & (uint16_t)-100) << 3) | 5; /* -100, junk in the low bits */
  uint8_t wb[2] = {(uint8_t)w, (uint8_t)(w >> 8)};
  int32_t iv;
  CHECK_OK(cairnH5Convert(tb, wb, 1, CAIRN_H5_I32, &iv));
  CHECK_EQ(iv, -100);
  /* half floats: 1.0, -2.5, 65504, a subnormal */
  H5Type *th = mkType(H5T_FLOAT, 2, 0, 1);
  uint8_t hb[8] = {0x00, 0x3c, 0x00, 0xc1, 0xff, 0x7b, 0x01, 0x00};
  float fv[4];
  CHECK_OK(cairnH5Convert(th, hb, 4, CAIRN_H5_F32, fv));
  CHECK(fv[0] == 1.0f && fv[1] == -2.5f && fv[2] == 65504.0f && fv[3] == 5.9604645e-08f);
  /* NATIVE: a compound {int32 BE at 0, double BE at 8, int16 LE at 16} swapped in place */
  H5Type *tc = mkType(H5T_COMPOUND, 24, 0, 0);
  tc->nMember = 3;
  tc->aMember = cairn_malloc(3 * sizeof(H5Member));
  tc->aMember[0] = (H5Member){NULL, 0, mkType(H5T_FIXED, 4, 1, 1)};
  tc->aMember[1] = (H5Member){NULL, 8, mkType(H5T_FLOAT, 8, 1, 1)};
  tc->aMember[2] = (H5Member){NULL, 16, mkType(H5T_FIXED, 2, 0, 1)};
  uint8_t rec[24] = {0};
  rec[3] = 7;                                  /* 7 as BE int32 */
  rec[8] = 0x40, rec[9] = 0x09, rec[10] = 0x20; /* 3.140625 as BE double: 0x4009200000000000 */
  rec[16] = 0x34, rec[17] = 0x12;               /* 0x1234 LE stays */
  cairnH5ToNative(tc, rec, 1);
  int32_t a;
  double b;
  int16_t c;
  memcpy(&a, rec, 4);
  memcpy(&b, rec + 8, 8);
  memcpy(&c, rec + 16, 2);
  CHECK_EQ(a, 7);
  CHECK(b == 3.140625);
  CHECK_EQ(c, 0x1234);
  /* compounds do not convert to numbers */
  CHECK_RC(cairnH5Convert(tc, rec, 1, CAIRN_H5_F64, dv), CAIRN_TYPE);
  cairnH5TypeFree(ti);
  cairnH5TypeFree(tb);
  cairnH5TypeFree(th);
  cairnH5TypeFree(tc);
}

/* The LZ4 block decoder on hand-made blocks: literals only, an overlapping match (run-length),
** and malformed blocks. */
TEST(h5, lz4_block) {
  uint8_t out[64];
  size_t n;
  const uint8_t lit[] = {0x50, 'h', 'e', 'l', 'l', 'o'};
  CHECK_OK(cairnLz4Decompress(lit, sizeof lit, out, sizeof out, &n));
  CHECK_EQ(n, 5);
  CHECK_MEM(out, "hello", 5);
  /* "ab" then a match of offset 2, length 4+6=10 -> "abababababab", then last literal "!" */
  const uint8_t rep[] = {0x26, 'a', 'b', 0x02, 0x00, 0x10, '!'};
  CHECK_OK(cairnLz4Decompress(rep, sizeof rep, out, sizeof out, &n));
  CHECK_EQ(n, 13);
  CHECK_MEM(out, "abababababab!", 13);
  const uint8_t badOff[] = {0x14, 'a', 0x05, 0x00, 0x10, '!'}; /* offset 5 > 1 byte written */
  CHECK_RC(cairnLz4Decompress(badOff, sizeof badOff, out, sizeof out, &n), CAIRN_CORRUPT);
  CHECK_RC(cairnLz4Decompress(rep, sizeof rep, out, 8, &n), CAIRN_CORRUPT); /* output too small */
  CHECK_RC(cairnLz4Decompress(rep, 4, out, sizeof out, &n), CAIRN_CORRUPT);  /* truncated */
}
