/*
** 2026-11-29
**
** bindings/em/em_h5.c - Emscripten entry points for the HDF5 reader and writer (js/src/h5.js and js/src/h5/).
**
** The functions of cairn/h5.h and cairn/h5w.h that take only pointers and 32-bit integers are
** exported as they are (bindings/em/exports_h5.txt). The ones here exist because JS cannot pass or
** read their arguments directly: 64-bit integers by value (Emscripten 3.1.6 legalizes them into
** pairs), structs with 64-bit fields (cairn_h5_info, cairn_h5_sel) whose layout JS would have
** to mirror. Sizes and offsets cross as doubles (exact up to 2^53); object descriptions cross as
** one JSON text (cairn_h5_describe_json), attributes in bulk as one block (cairn_h5_attrs_block),
** so the JS side does not depend on struct layouts. Only the public headers are used here.
*/
#include <emscripten.h>

#include <string.h>

#include "cairn/cairn.h"
#include "cairn/h5.h"
#include "cairn/h5w.h"
#include "em_exports.h"

/* The compact description (cairn_h5_describe_json: flags bit 0 links, bit 1 attributes). */
EMSCRIPTEN_KEEPALIVE int cairn_em_h5_describe(cairn_h5_obj *o, int flags, char **pz, double *pn) {
  size_t n = 0;
  int rc = cairn_h5_describe_json(o, (unsigned)flags, pz, &n);
  if (rc == CAIRN_OK) *pn = (double)n;
  return rc;
}

/* A hyperslab from JS: aSel holds rank triples (start, step, count) as doubles; NULL = all. */
static int selFrom(int rank, const double *aSel, cairn_h5_sel *p) {
  if (rank < 0 || rank > CAIRN_H5_MAX_RANK) return cairn_seterr(CAIRN_RANGE, "selection of rank %d", rank);
  memset(p, 0, sizeof(*p));
  p->rank = (unsigned)rank;
  for (int i = 0; i < rank; i++) {
    p->start[i] = (uint64_t)aSel[3 * i];
    p->stride[i] = (uint64_t)aSel[3 * i + 1];
    p->count[i] = (uint64_t)aSel[3 * i + 2];
    p->block[i] = 1;
  }
  return CAIRN_OK;
}

/* cairn_h5_read with the selection as doubles (aSel NULL: everything). */
EMSCRIPTEN_KEEPALIVE int cairn_em_h5_read(cairn_h5_obj *o, int rank, const double *aSel, int mtype, void *buf, double nBuf) {
  cairn_h5_sel sel;
  int rc;
  if (aSel && (rc = selFrom(rank, aSel, &sel)) != CAIRN_OK) return rc;
  return cairn_h5_read(o, aSel ? &sel : NULL, (cairn_h5_mtype)mtype, buf, (size_t)nBuf);
}

/* cairn_h5_read_json with the selection as doubles; the text's length goes to *pn. */
EMSCRIPTEN_KEEPALIVE int cairn_em_h5_read_json(cairn_h5_obj *o, int rank, const double *aSel, char **pz, double *pn) {
  cairn_h5_sel sel;
  size_t n = 0;
  int rc;
  if (aSel && (rc = selFrom(rank, aSel, &sel)) != CAIRN_OK) return rc;
  rc = cairn_h5_read_json(o, aSel ? &sel : NULL, pz, &n);
  *pn = (double)n;
  return rc;
}

/* cairn_h5_raw_extent: 1 with {offset, bytes} in aOut when the values sit verbatim in the file
** (JS then reads them straight into the result array), 0 when not, negative status on error. */
EMSCRIPTEN_KEEPALIVE int cairn_em_h5_raw_extent(cairn_h5_obj *o, int mtype, double *aOut) {
  uint64_t off, n;
  int rc = cairn_h5_raw_extent(o, (cairn_h5_mtype)mtype, &off, &n);
  if (rc == CAIRN_NOTFOUND) return 0;
  if (rc) return -rc;
  aOut[0] = (double)off;
  aOut[1] = (double)n;
  return 1;
}

/* Every attribute of an object as one binary block (cairn_h5_attrs_block), for js/src/h5/attrtable.js. */
EMSCRIPTEN_KEEPALIVE int cairn_em_h5_attrs(cairn_h5_obj *o, char **pz, double *pn) {
  size_t n = 0;
  int rc = cairn_h5_attrs_block(o, (void **)pz, &n);
  if (rc == CAIRN_OK) *pn = (double)n;
  return rc;
}

/* Host reads and bytes read so far, into two doubles. */
EMSCRIPTEN_KEEPALIVE void cairn_em_h5_stats(cairn_h5 *h, double *pOut) {
  uint64_t nRead = 0, nBytes = 0;
  cairn_h5_stats(h, &nRead, &nBytes);
  pOut[0] = (double)nRead;
  pOut[1] = (double)nBytes;
}

EMSCRIPTEN_KEEPALIVE int cairn_em_h5_cache_budget(cairn_h5 *h, double nBytes) { return cairn_h5_cache_budget(h, (uint64_t)nBytes); }

/* cairn_h5_set_read_budget when nBytes > 0 (Infinity: no limit); returns the budget in force. */
EMSCRIPTEN_KEEPALIVE double cairn_em_h5_read_budget(cairn_h5 *h, double nBytes) {
  if (nBytes > 0) cairn_h5_set_read_budget(h, nBytes >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)nBytes);
  uint64_t b = cairn_h5_read_budget(h);
  return b == UINT64_MAX ? 1.0 / 0.0 : (double)b;
}

/* ---------------------------------------------------------------- writer */
/* Dimensions from doubles; a negative entry is unlimited. */
static int dimsFrom(int rank, const double *a, uint64_t *out) {
  if (rank < 0 || rank > CAIRN_H5W_MAXRANK) return cairn_seterr(CAIRN_RANGE, "rank %d (at most %d)", rank, CAIRN_H5W_MAXRANK);
  for (int i = 0; i < rank; i++) out[i] = a[i] < 0 ? CAIRN_H5W_UNLIMITED : (uint64_t)a[i];
  return CAIRN_OK;
}

EMSCRIPTEN_KEEPALIVE cairn_h5w_type *cairn_em_h5w_type_array(const cairn_h5w_type *base, int rank, const double *aDim) {
  uint64_t d[CAIRN_H5W_MAXRANK];
  if (dimsFrom(rank, aDim, d)) return NULL;
  return cairn_h5w_type_array(base, rank, d);
}

/* cairn_h5w_dataset; aMax/aChunk may be NULL; layout is CAIRN_H5W_AUTO..CHUNKED. */
EMSCRIPTEN_KEEPALIVE int cairn_em_h5w_dataset(cairn_h5w *w, const char *zPath, const cairn_h5w_type *t, int rank, const double *aDim,
                                              const double *aMax, int layout, const double *aChunk, const char *zFilters,
                                              const void *pFill, const void *pData) {
  uint64_t d[CAIRN_H5W_MAXRANK], m[CAIRN_H5W_MAXRANK], c[CAIRN_H5W_MAXRANK];
  int rc;
  if ((rc = dimsFrom(rank, aDim, d)) != CAIRN_OK || (aMax && (rc = dimsFrom(rank, aMax, m)) != CAIRN_OK) ||
      (aChunk && (rc = dimsFrom(rank, aChunk, c)) != CAIRN_OK))
    return rc;
  cairn_h5w_dset_opts o = {layout, aChunk ? c : NULL, zFilters, pFill};
  return cairn_h5w_dataset(w, zPath, t, rank, d, aMax ? m : NULL, &o, pData);
}

EMSCRIPTEN_KEEPALIVE int cairn_em_h5w_append(cairn_h5w *w, const char *zPath, double nRows, const void *pData) {
  return cairn_h5w_append(w, zPath, (uint64_t)nRows, pData);
}

/* cairn_h5w_write (rows [row0, row0 + nRows) along the first dimension) and cairn_h5w_resize. */
EMSCRIPTEN_KEEPALIVE int cairn_em_h5w_write(cairn_h5w *w, const char *zPath, double row0, double nRows, const void *pData) {
  if (!(row0 >= 0) || !(nRows >= 0)) return cairn_seterr(CAIRN_RANGE, "write: negative rows");
  return cairn_h5w_write(w, zPath, (uint64_t)row0, (uint64_t)nRows, pData);
}
EMSCRIPTEN_KEEPALIVE int cairn_em_h5w_resize(cairn_h5w *w, const char *zPath, double nRows) {
  if (!(nRows >= 0)) return cairn_seterr(CAIRN_RANGE, "resize: negative size");
  return cairn_h5w_resize(w, zPath, (uint64_t)nRows);
}

EMSCRIPTEN_KEEPALIVE int cairn_em_h5w_attr(cairn_h5w *w, const char *zObj, const char *zName, const cairn_h5w_type *t, int rank,
                                           const double *aDim, const void *pData) {
  uint64_t d[CAIRN_H5W_MAXRANK];
  int rc = dimsFrom(rank, aDim, d);
  if (rc != CAIRN_OK) return rc;
  return cairn_h5w_attr(w, zObj, zName, t, rank, d, pData);
}

/* Shape of a dataset: rank into *pRank, dims into aOut (CAIRN_H5W_MAXRANK doubles). */
EMSCRIPTEN_KEEPALIVE int cairn_em_h5w_shape(cairn_h5w *w, const char *zPath, int *pRank, double *aOut) {
  uint64_t d[CAIRN_H5W_MAXRANK];
  int rank = 0;
  int rc = cairn_h5w_shape(w, zPath, &rank, d);
  if (rc) return rc;
  if (rank > CAIRN_H5W_MAXRANK) return cairn_seterr(CAIRN_RANGE, "rank %d", rank);
  for (int i = 0; i < rank; i++) aOut[i] = (double)d[i];
  *pRank = rank;
  return CAIRN_OK;
}
