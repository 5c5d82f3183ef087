/*
** 2026-11-29
**
** tests/fuzz/fuzz_h5_read.c - the whole HDF5 read path on a memory file: open, walk every
** group (links, info and its JSON, attributes as JSON), read every dataset (JSON, a numeric
** conversion and a strided hyperslab). Allocations above 64 MiB fail (as an embedder's cap
** would), so a corrupted size can only produce CAIRN_NOMEM/CAIRN_LIMIT, never a huge
** allocation; the read budget is 4 MiB, and whole-dataset JSON reads are tried at any size. Every external raw data file name opens one small memory file.
** Corpus: tests/fuzz/corpus/h5_read/ (tiny h5py files, see tests/h5gen/mkcorpus.py).
*/
#include <stdlib.h>
#include <string.h>

#include "cairn/cairn.h"
#include "fuzz_cap.h"

static int nVisited;

static void readObj(cairn_h5_obj *o) {
  cairn_h5_info in;
  if (cairn_h5_info_get(o, &in)) return;
  char *zi;
  size_t ni;
  if (cairn_h5_info_json(o, &zi, &ni) == CAIRN_OK) cairn_free(zi);
  if (in.kind == CAIRN_H5_DATASET || in.kind == CAIRN_H5_ATTRIBUTE) {
    char *z;
    size_t n;
    /* any size: the read budget (4 MiB here) refuses what is large before allocating */
    if (cairn_h5_read_json(o, NULL, &z, &n) == CAIRN_OK) cairn_free(z);
    if (in.nElem > 100000 || in.nElem * (uint64_t)in.typeSize > (8u << 20)) return;
    size_t nb = (size_t)in.nElem * 8 + 8;
    double *b = malloc(nb);
    if (b) {
      cairn_h5_read(o, NULL, CAIRN_H5_F64, b, nb);
      if (in.space == CAIRN_H5_SIMPLE && in.rank > 0) {
        cairn_h5_sel s;
        memset(&s, 0, sizeof s);
        s.rank = in.rank;
        for (unsigned i = 0; i < in.rank; i++) {
          s.start[i] = in.dims[i] / 3;
          s.stride[i] = 2;
          s.count[i] = in.dims[i] > s.start[i] ? (in.dims[i] - s.start[i] + 1) / 2 : 0;
          s.block[i] = 1;
        }
        cairn_h5_read(o, &s, CAIRN_H5_NATIVE, b, nb);
      }
      free(b);
    }
    if (cairn_h5_type_json(o, &z, &n) == CAIRN_OK) cairn_free(z);
  }
  for (size_t i = 0; i < in.nAttr && i < 64; i++) {
    cairn_h5_obj *a;
    if (cairn_h5_attr_at(o, i, &a) == CAIRN_OK) {
      readObj(a);
      cairn_h5_obj_close(a);
    }
  }
}

static void walk(cairn_h5 *h, const char *zPath, int depth) {
  cairn_h5_obj *o;
  if (depth > 8 || nVisited++ > 200 || cairn_h5_get(h, zPath, &o)) return;
  readObj(o);
  cairn_h5_info in;
  if (cairn_h5_info_get(o, &in) == CAIRN_OK && in.kind == CAIRN_H5_GROUP) {
    for (size_t i = 0; i < in.nLink && i < 64; i++) {
      cairn_h5_link k;
      if (cairn_h5_link_get(o, i, &k)) break;
      char z[512];
      size_t n1 = strlen(zPath), n2 = strlen(k.zName);
      if (n1 + n2 + 2 > sizeof z) continue;
      memcpy(z, zPath, n1);
      z[n1] = '/';
      memcpy(z + n1 + 1, k.zName, n2 + 1);
      walk(h, z, depth + 1);
    }
  }
  cairn_h5_obj_close(o);
}

/* External raw data files: any name opens (read-only) a 200-byte memory file, so the slot
** arithmetic of a fuzzed External Data Files message is exercised, not just its "cannot open". */
static int anyOpen(void *pCtx, const char *zPath, int flags, cairn_file **pp) {
  static uint8_t a[200];
  (void)pCtx, (void)zPath;
  if (flags != CAIRN_OPEN_READONLY) return CAIRN_UNSUPPORTED;
  for (size_t i = 0; i < sizeof a; i++) a[i] = (uint8_t)(i * 7);
  return cairn_memfile_open(a, sizeof a, pp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int init;
  fuzzCapAllocations();
  if (!init) {
    cairn_host hst = *cairn_host_get();
    hst.xOpen = anyOpen;
    cairn_host_set(&hst);
    init = 1;
  }
  cairn_file *f;
  cairn_h5 *h;
  if (cairn_memfile_open(data, size, &f)) return 0;
  if (cairn_h5_open(f, CAIRN_H5_OWN_FILE, &h) == CAIRN_OK) {
    nVisited = 0;
    cairn_h5_set_read_budget(h, (uint64_t)4 << 20);
    walk(h, "", 0);
    cairn_h5_close(h);
  }
  return 0;
}
