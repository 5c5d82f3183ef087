/*
** 2026-11-29
**
** tests/fuzz/fuzz_h5w_edit.c - the HDF5 writer on untrusted bytes: open read-only and verify
** (every structure it can reach), then open for editing with CAIRN_H5W_RECLAIM (the free-space
** walk), add a group, an attribute and a dataset, append to /d when it exists, commit, and
** verify the result. Damaged files must give errors, never a crash, a hang or a huge
** allocation (allocations above 64 MiB fail, as an embedder's cap would).
** Corpus: tests/fuzz/corpus/h5w_edit/ (small cairn and h5py files).
*/
#include <stdlib.h>
#include <string.h>

#include "cairn/cairn.h"
#include "fuzz_cap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzzCapAllocations();
  cairn_file *f;
  cairn_h5w *w;
  uint8_t d[32];
  if (cairn_memfile_open(data, size, &f)) return 0;
  if (cairn_h5w_open(f, CAIRN_H5W_READONLY, &w) == CAIRN_OK) {
    cairn_h5w_verify(w, d);
    cairn_h5w_discard(w);
  }
  if (cairn_h5w_open(f, CAIRN_H5W_RECLAIM | CAIRN_H5W_NOSYNC, &w) == CAIRN_OK) {
    cairn_h5w_type *t = cairn_h5w_type_int(4, 1), *ts = cairn_h5w_type_vstring(1);
    int32_t v[64] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint64_t n = 8;
    const char *z = "fuzz";
    cairn_h5w_group(w, "/fuzz_group");
    cairn_h5w_attr(w, "/", "fuzz_attr", ts, 0, NULL, &z);
    cairn_h5w_dataset(w, "/fuzz_data", t, 1, &n, NULL, NULL, v);
    int rank = 0;
    uint64_t dims[8];
    if (cairn_h5w_shape(w, "/d", &rank, dims) == CAIRN_OK && rank == 1) {
      int cls;
      size_t el;
      int sg;
      if (cairn_h5w_dtype(w, "/d", &cls, &el, &sg) == CAIRN_OK && el <= 8) cairn_h5w_append(w, "/d", 2, v);
    }
    int rc = cairn_h5w_close(w);
    cairn_h5w_type_free(t), cairn_h5w_type_free(ts);
    if (rc == CAIRN_OK && cairn_h5w_open(f, CAIRN_H5W_READONLY, &w) == CAIRN_OK) {
      cairn_h5w_verify(w, d);
      cairn_h5w_discard(w);
    }
  }
  cairn_file_close(f);
  return 0;
}
