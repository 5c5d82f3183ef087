/* 2026-12-02 - valid but hostile HDF5 files stay bounded (issue 16 item 5): hard-link cycles
** (made here: the writer's file, then two link messages re-pointed at an ancestor and at the
** root, their header checksums recomputed), the read budget (a never-written dataset of 80 GB
** in a file of a few KB), and repack of such a dataset (no chunk materialised). No committed
** binaries: every file is written by the test. */
#include "common/internal.h"
#include "h5/h5int.h"
#include "h5/h5w.h"
#include "tf.h"

/* The bytes of a memory file after building it with fn. */
static uint8_t *buildFile(void (*fn)(cairn_h5w *), size_t *pn) {
  cairn_file *f = NULL;
  if (cairn_memfile_open(NULL, 0, &f)) return NULL;
  cairn_h5w *w;
  if (cairn_h5w_create(f, CAIRN_H5W_NOSYNC, &w)) return NULL;
  fn(w);
  if (cairn_h5w_close(w)) return NULL;
  const uint8_t *p;
  size_t n;
  uint8_t *out = NULL;
  if (cairn_memfile_data(f, &p, &n) == CAIRN_OK && (out = cairnMalloc(n))) memcpy(out, p, n);
  cairn_file_close(f);
  *pn = n;
  return out;
}

static void makeTree(cairn_h5w *w) {
  cairn_h5w_group(w, "/a");
  cairn_h5w_group(w, "/a/b");
  cairn_h5w_group(w, "/a/b/up");   /* becomes a hard link to /a */
  cairn_h5w_group(w, "/loop");     /* becomes a hard link to / */
  int32_t v[3] = {1, 2, 3};
  uint64_t n = 3;
  cairn_h5w_type *t = cairn_h5w_type_int(4, 1);
  cairn_h5w_dataset(w, "/a/x", t, 1, &n, NULL, NULL, v);
  cairn_h5w_type_free(t);
}

/* Header address of path in the file p[0..n). */
static uint64_t addrOf(const uint8_t *p, size_t n, const char *zPath) {
  cairn_file *f;
  cairn_h5 *h;
  cairn_h5_obj *o;
  cairn_h5_info in;
  uint64_t a = H5_UNDEF;
  if (cairn_memfile_open(p, n, &f)) return a;
  if (cairn_h5_open(f, CAIRN_H5_OWN_FILE, &h)) return a;
  if (cairn_h5_get(h, zPath, &o) == CAIRN_OK) {
    if (cairn_h5_info_get(o, &in) == CAIRN_OK) a = in.addr;
    cairn_h5_obj_close(o);
  }
  cairn_h5_close(h);
  return a;
}

/* In the v2 header at hdr, the link message's address `from` becomes `to` (checksum redone). */
static int repoint(uint8_t *p, size_t n, uint64_t hdr, uint64_t from, uint64_t to) {
  H5OhdrPrefix px;
  if (hdr >= n || cairnH5OhdrPrefix(p + hdr, n - hdr, &px) != H5_PREFIX_OK || px.version != 2) return 0;
  size_t end = (size_t)(hdr + px.iMsgs + px.nMsgs);
  if (end + 4 > n) return 0;
  int nHit = 0;
  for (size_t i = (size_t)hdr + px.iMsgs; i + 8 <= end; i++)
    if (cairnGetLE64(p + i) == from) {
      cairnPutLE64(p + i, to);
      nHit++;
    }
  cairnH5ChecksumPut(p + hdr, end - (size_t)hdr);
  return nHit;
}

/* The tree with /a/b/up -> /a and /loop -> /. */
static uint8_t *cyclicFile(size_t *pn) {
  uint8_t *p = buildFile(makeTree, pn);
  if (!p) return NULL;
  uint64_t aRoot = addrOf(p, *pn, "/"), aA = addrOf(p, *pn, "/a"), aB = addrOf(p, *pn, "/a/b");
  uint64_t aUp = addrOf(p, *pn, "/a/b/up"), aLoop = addrOf(p, *pn, "/loop");
  if (repoint(p, *pn, aB, aUp, aA) != 1 || repoint(p, *pn, aRoot, aLoop, aRoot) != 1) {
    cairnFree(p);
    return NULL;
  }
  return p;
}

/* A walk as `cairn ls -r` and JS paths() do it: every link listed, a group entered once. */
typedef struct Walk {
  cairn_h5 *h;
  H5wSeen seen;
  int nListed, nSame, nEntered;
} Walk;

static int walkGroup(Walk *x, const char *zPath, int depth) {
  cairn_h5_obj *g;
  cairn_h5_info in;
  CAIRN_TRY(cairn_h5_get(x->h, zPath, &g));
  int rc = cairn_h5_info_get(g, &in);
  x->nEntered++;
  for (size_t i = 0; rc == CAIRN_OK && i < in.nLink && depth < 64; i++) {
    cairn_h5_link k;
    if ((rc = cairn_h5_link_get(g, i, &k))) break;
    char z[512];
    cairnFormat(z, sizeof z, "%s/%s", strcmp(zPath, "/") == 0 ? "" : zPath, k.zName);
    x->nListed++;
    if (k.type != CAIRN_H5_LINK_HARD) continue;
    int isNew = cairnH5wSeenAdd(&x->seen, k.addr);
    if (isNew == 0) {
      x->nSame++;
      continue;
    }
    cairn_h5_obj *c;
    cairn_h5_info ci;
    if ((rc = cairn_h5_get(x->h, z, &c))) break;
    rc = cairn_h5_info_get(c, &ci);
    if (rc == CAIRN_OK && ci.addr != k.addr) rc = cairnErr(CAIRN_CORRUPT, "link address %llu, header %llu", (unsigned long long)k.addr, (unsigned long long)ci.addr);
    cairn_h5_obj_close(c);
    if (rc == CAIRN_OK && ci.kind == CAIRN_H5_GROUP) rc = walkGroup(x, z, depth + 1);
  }
  cairn_h5_obj_close(g);
  return rc;
}

TEST(h5_hostile, hardlink_cycle) {
  size_t n = 0;
  uint8_t *p = cyclicFile(&n);
  CHECK(p);
  cairn_file *f;
  cairn_h5 *h;
  CHECK_OK(cairn_memfile_open(p, n, &f));
  CHECK_OK(cairn_h5_open(f, CAIRN_H5_OWN_FILE, &h));
  /* the same group reached by two names has one address */
  cairn_h5_obj *o;
  cairn_h5_info in;
  CHECK_OK(cairn_h5_get(h, "/a/b/up/b/up/b/up", &o));
  CHECK_OK(cairn_h5_info_get(o, &in));
  CHECK_EQ(in.addr, addrOf(p, n, "/a"));
  CHECK_EQ(in.kind, CAIRN_H5_GROUP);
  cairn_h5_obj_close(o);
  CHECK_OK(cairn_h5_get(h, "/loop/loop/a/x", &o));
  int32_t v[3];
  CHECK_OK(cairn_h5_read(o, NULL, CAIRN_H5_I32, v, sizeof v));
  CHECK_EQ(v[2], 3);
  cairn_h5_obj_close(o);
  /* the walk ends: / a a/b a/b/up(same) a/x loop(same) */
  Walk x = {h, {NULL, 0, 0}, 0, 0, 0};
  CHECK_EQ(cairnH5wSeenAdd(&x.seen, addrOf(p, n, "/")), 1);
  CHECK_OK(walkGroup(&x, "/", 0));
  CHECK_EQ(x.nListed, 5);
  CHECK_EQ(x.nSame, 2);
  CHECK_EQ(x.nEntered, 3);
  cairnFree(x.seen.a);
  cairn_h5_close(h);
  /* repack ends too: the second hard link to a group is refused, or left out with --skip */
  cairn_file *in2, *out;
  CHECK_OK(cairn_memfile_open(p, n, &in2));
  CHECK_OK(cairn_memfile_open(NULL, 0, &out));
  CHECK_RC(cairn_h5w_repack(in2, out, NULL, 0), CAIRN_UNSUPPORTED);
  cairn_file_close(out);
  CHECK_OK(cairn_memfile_open(NULL, 0, &out));
  CHECK_OK(cairn_h5w_repack(in2, out, NULL, CAIRN_H5W_REPACK_SKIP));
  cairn_file_close(out);
  cairn_file_close(in2);
  cairnFree(p);
}

/* 100000 x 100000 doubles (80 GB), chunks of 100 x 100, never written; fill 7.5. */
static void makeHuge(cairn_h5w *w) {
  uint64_t dims[2] = {100000, 100000}, ch[2] = {100, 100};
  double fill = 7.5;
  cairn_h5w_type *t = cairn_h5w_type_float(8);
  cairn_h5w_dset_opts o = {CAIRN_H5W_CHUNKED, ch, NULL, &fill};
  cairn_h5w_dataset(w, "/big", t, 2, dims, NULL, &o, NULL);
  /* and one written chunk in a second one (an edge chunk: 250 = 2.5 chunks) */
  uint64_t d2[2] = {250, 250};
  cairn_h5w_dset_opts o2 = {CAIRN_H5W_CHUNKED, ch, "shuffle,deflate:1", &fill};
  cairn_h5w_dataset(w, "/some", t, 2, d2, NULL, &o2, NULL);
  cairn_h5w_type_free(t);
}

TEST(h5_hostile, read_budget) {
  size_t n = 0;
  uint8_t *p = buildFile(makeHuge, &n);
  CHECK(p);
  CHECK(n < 65536);
  cairn_file *f;
  cairn_h5 *h;
  CHECK_OK(cairn_memfile_open(p, n, &f));
  CHECK_OK(cairn_h5_open(f, CAIRN_H5_OWN_FILE, &h));
  CHECK_EQ(cairn_h5_read_budget(h), CAIRN_H5_READ_BUDGET_DEFAULT);
  cairn_h5_obj *o;
  CHECK_OK(cairn_h5_get(h, "/big", &o));
  char *z = NULL;
  size_t nz;
  CHECK_RC(cairn_h5_read_json(o, NULL, &z, &nz), CAIRN_LIMIT);
  CHECK(strstr(cairn_errmsg(), "/big"));
  CHECK(strstr(cairn_errmsg(), "needs 100000000000 bytes")); /* 80 GB of values + 2 bytes of text each */
  double one;
  CHECK_RC(cairn_h5_read(o, NULL, CAIRN_H5_F64, &one, sizeof one), CAIRN_RANGE); /* the buffer is checked first */
  /* a slice within the budget reads the fill value */
  cairn_h5_sel s;
  memset(&s, 0, sizeof s);
  s.rank = 2;
  s.start[0] = 99990, s.start[1] = 12345, s.count[0] = 3, s.count[1] = 4;
  double v[12];
  CHECK_OK(cairn_h5_read(o, &s, CAIRN_H5_F64, v, sizeof v));
  CHECK(v[0] == 7.5 && v[11] == 7.5);
  /* a budget below the slice refuses it, naming the budget; UINT64_MAX lifts it */
  CHECK_OK(cairn_h5_set_read_budget(h, 64));
  CHECK_RC(cairn_h5_read(o, &s, CAIRN_H5_F64, v, sizeof v), CAIRN_LIMIT);
  CHECK(strstr(cairn_errmsg(), "96 bytes") && strstr(cairn_errmsg(), "budget of 64 bytes"));
  CHECK_OK(cairn_h5_set_read_budget(h, UINT64_MAX));
  CHECK_OK(cairn_h5_read(o, &s, CAIRN_H5_F64, v, sizeof v));
  /* each chunk is decoded whole: a budget below one chunk (80000 bytes) refuses a read of it */
  cairn_h5_obj *o2;
  CHECK_OK(cairn_h5_get(h, "/some", &o2));
  CHECK_OK(cairn_h5_set_read_budget(h, 1000));
  s.start[0] = 0, s.start[1] = 0, s.count[0] = 2, s.count[1] = 2;
  CHECK_RC(cairn_h5_read(o2, &s, CAIRN_H5_F64, v, 4 * sizeof(double)), CAIRN_LIMIT);
  CHECK_OK(cairn_h5_set_read_budget(h, 0)); /* the default again */
  CHECK_EQ(cairn_h5_read_budget(h), CAIRN_H5_READ_BUDGET_DEFAULT);
  CHECK_OK(cairn_h5_read(o2, &s, CAIRN_H5_F64, v, 4 * sizeof(double)));
  CHECK(v[3] == 7.5);
  cairn_h5_obj_close(o2);
  cairn_h5_obj_close(o);
  cairn_h5_close(h);
  cairnFree(p);
}

/* Repack writes no chunk for a never-written chunked dataset, and only the written ones of a
** sparse one (edge chunks padded with the fill value). */
static void makeSparse(cairn_h5w *w) {
  makeHuge(w);
  double row[250];
  for (int i = 0; i < 250; i++) row[i] = i;
  cairn_h5w_write(w, "/some", 249, 1, row); /* the last row: three edge chunks */
}

static int countChunk(void *pArg, const uint64_t *scaled, uint64_t addr) {
  (void)scaled, (void)addr;
  ++*(uint64_t *)pArg;
  return CAIRN_OK;
}

TEST(h5_hostile, repack_unwritten) {
  size_t n = 0;
  uint8_t *p = buildFile(makeSparse, &n);
  CHECK(p);
  cairn_file *in, *out;
  CHECK_OK(cairn_memfile_open(p, n, &in));
  CHECK_OK(cairn_memfile_open(NULL, 0, &out));
  CHECK_OK(cairn_h5w_repack(in, out, NULL, 0));
  const uint8_t *q;
  size_t nq;
  CHECK_OK(cairn_memfile_data(out, &q, &nq));
  CHECK(nq < 65536);
  cairn_h5 *h;
  CHECK_OK(cairn_h5_open(out, 0, &h));
  cairn_h5_obj *o;
  cairn_h5_info info;
  CHECK_OK(cairn_h5_get(h, "/big", &o));
  CHECK_OK(cairn_h5_info_get(o, &info));
  CHECK_EQ(info.dims[0], 100000);
  CHECK_EQ(info.dims[1], 100000);
  CHECK_EQ(info.chunk[0], 100);
  CHECK_EQ(o->pD->layout.addr, H5_UNDEF); /* no chunk index: nothing written */
  cairn_h5_sel s;
  memset(&s, 0, sizeof s);
  s.rank = 2;
  s.start[0] = 5, s.start[1] = 99999, s.count[0] = 1, s.count[1] = 1;
  double v[250];
  CHECK_OK(cairn_h5_read(o, &s, CAIRN_H5_F64, v, sizeof(double)));
  CHECK(v[0] == 7.5); /* the fill value came along */
  cairn_h5_obj_close(o);
  CHECK_OK(cairn_h5_get(h, "/some", &o));
  uint64_t nChunk = 0;
  CHECK_OK(cairnH5DsetChunkEach(o->pD, 100, countChunk, &nChunk));
  CHECK_EQ(nChunk, 3); /* the last chunk row, as written; the other six stay unwritten */
  s.start[0] = 249, s.start[1] = 0, s.count[0] = 1, s.count[1] = 250;
  CHECK_OK(cairn_h5_read(o, &s, CAIRN_H5_F64, v, sizeof v));
  CHECK(v[0] == 0 && v[249] == 249);
  s.start[0] = 248;
  CHECK_OK(cairn_h5_read(o, &s, CAIRN_H5_F64, v, sizeof v));
  CHECK(v[0] == 7.5 && v[249] == 7.5);
  s.start[0] = 0;
  CHECK_OK(cairn_h5_read(o, &s, CAIRN_H5_F64, v, sizeof v));
  CHECK(v[100] == 7.5);
  cairn_h5_obj_close(o);
  cairn_h5_close(h);
  cairn_file_close(out);
  cairn_file_close(in);
  cairnFree(p);
}
