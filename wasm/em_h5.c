/*
** 2026-11-29
**
** wasm/em_h5.c - Emscripten entry points for the HDF5 reader and writer (js/src/h5.js).
**
** The functions of cairn/h5.h and cairn/h5w.h that take only pointers and 32-bit integers are
** exported as they are (wasm/exports_h5.txt). The ones here exist because JS cannot pass or
** read their arguments directly: 64-bit integers by value (Emscripten 3.1.6 legalizes them into
** pairs), structs with 64-bit fields (cairn_h5_info, cairn_h5_sel) whose layout JS would have
** to mirror. Sizes and offsets cross as doubles (exact up to 2^53); object descriptions cross as
** one JSON text, so the JS side does not depend on struct layouts.
*/
#include <emscripten.h>

#include "cairn/cairn.h"
#include "common/internal.h"
#include "h5/h5int.h"

/* ---------------------------------------------------------------- JSON
** The reader's growable string (core/h5/r_conv.c: sticky oom, NUL-terminated) and its JSON
** string quoting serve here too. */
typedef Sb Js;
#define jsPut h5SbPut
#define jsStr h5SbStr
#define jsU64 h5SbU64
static void jsQuote(Js *s, const char *z) {
  z = z ? z : "";
  h5SbJsonStr(s, (const uint8_t *)z, strlen(z));
}
static void jsDims(Js *s, unsigned n, const uint64_t *a, int bMax) {
  jsPut(s, "[", 1);
  for (unsigned i = 0; i < n; i++) {
    if (i) jsPut(s, ",", 1);
    if (bMax && a[i] == UINT64_MAX) jsStr(s, "null");
    else jsU64(s, a[i]);
  }
  jsPut(s, "]", 1);
}

/*
** Describe an object as JSON (allocated with cairn_malloc; free with cairn_free):
**   {"kind":2,"addr":N,"space":1,"shape":[..],"maxshape":[..,null=unlimited],"type":{..},
**    "layout":2,"chunks":[..]|null,"chunkIndex":N,"filters":[{"id","name","flags","cd_values"}],
**    "attrs":["name",..],"links":[{"name","type","target","file"}]}
** "type" only for datasets, attributes and committed datatypes. "attrs" only when flags has
** bit 1 (listing them parses every attribute message), "links" only for groups and when flags
** has bit 0 (a group with many links costs nothing until its names are asked for).
*/
EMSCRIPTEN_KEEPALIVE int cairn_em_h5_describe(cairn_h5_obj *o, int flags, char **pz, double *pn) {
  int bLinks = flags & 1, bAttrs = flags & 2;
  cairn_h5_info in;
  int rc = cairn_h5_info_get(o, &in);
  if (rc) return rc;
  Js s = {0};
  jsStr(&s, "{\"kind\":");
  jsU64(&s, (uint64_t)in.kind);
  jsStr(&s, ",\"addr\":");
  jsU64(&s, in.addr);
  if (in.kind == CAIRN_H5_DATASET || in.kind == CAIRN_H5_ATTRIBUTE) {
    jsStr(&s, ",\"space\":");
    jsU64(&s, (uint64_t)in.space);
    jsStr(&s, ",\"shape\":");
    jsDims(&s, in.rank, in.dims, 0);
    jsStr(&s, ",\"maxshape\":");
    jsDims(&s, in.rank, in.maxdims, 1);
  }
  if (in.kind != CAIRN_H5_GROUP) {
    char *zt;
    size_t nt;
    if ((rc = cairn_h5_type_json(o, &zt, &nt)) != CAIRN_OK) {
      cairn_free(s.z);
      return rc;
    }
    jsStr(&s, ",\"type\":");
    jsPut(&s, zt, nt);
    cairn_free(zt);
  }
  if (in.kind == CAIRN_H5_DATASET) {
    jsStr(&s, ",\"layout\":");
    jsU64(&s, (uint64_t)in.layout);
    jsStr(&s, ",\"chunks\":");
    if (in.layout == CAIRN_H5_CHUNKED) jsDims(&s, in.rank, in.chunk, 0);
    else jsStr(&s, "null");
    jsStr(&s, ",\"chunkIndex\":");
    jsU64(&s, in.layout == CAIRN_H5_CHUNKED ? (uint64_t)in.chunkIndex : 0);
    jsStr(&s, ",\"filters\":[");
    for (unsigned i = 0; i < in.nFilter; i++) {
      const cairn_h5_filter *f = &in.aFilter[i];
      jsStr(&s, i ? ",{\"id\":" : "{\"id\":");
      jsU64(&s, f->id);
      jsStr(&s, ",\"name\":");
      jsQuote(&s, f->zName);
      jsStr(&s, ",\"flags\":");
      jsU64(&s, f->flags);
      jsStr(&s, ",\"cd_values\":[");
      for (unsigned k = 0; k < f->nParam; k++) {
        if (k) jsPut(&s, ",", 1);
        jsU64(&s, f->aParam[k]);
      }
      jsStr(&s, "]}");
    }
    jsStr(&s, "]");
  }
  if (in.kind != CAIRN_H5_ATTRIBUTE && bAttrs) {
    jsStr(&s, ",\"attrs\":[");
    for (size_t i = 0; i < in.nAttr; i++) {
      const char *zName;
      if ((rc = cairn_h5_attr_name(o, i, &zName)) != CAIRN_OK) break;
      if (i) jsPut(&s, ",", 1);
      jsQuote(&s, zName);
    }
    jsStr(&s, "]");
  }
  if (in.kind == CAIRN_H5_GROUP && bLinks && rc == CAIRN_OK) {
    jsStr(&s, ",\"links\":[");
    for (size_t i = 0; i < in.nLink; i++) {
      cairn_h5_link k;
      if ((rc = cairn_h5_link_get(o, i, &k)) != CAIRN_OK) break;
      jsStr(&s, i ? ",{\"name\":" : "{\"name\":");
      jsQuote(&s, k.zName);
      jsStr(&s, ",\"type\":");
      jsU64(&s, (uint64_t)k.type);
      if (k.zTarget) {
        jsStr(&s, ",\"target\":");
        jsQuote(&s, k.zTarget);
      }
      if (k.zFile) {
        jsStr(&s, ",\"file\":");
        jsQuote(&s, k.zFile);
      }
      jsStr(&s, "}");
    }
    jsStr(&s, "]");
  }
  jsStr(&s, "}");
  if (rc == CAIRN_OK && s.oom) rc = cairnErr(CAIRN_NOMEM, "out of memory describing %s", cairn_h5_obj_path(o));
  if (rc) {
    cairn_free(s.z);
    return rc;
  }
  *pz = s.z;
  *pn = (double)s.n;
  return CAIRN_OK;
}

/* A hyperslab from JS: aSel holds rank triples (start, step, count) as doubles; NULL = all. */
static int selFrom(int rank, const double *aSel, cairn_h5_sel *p) {
  if (rank < 0 || rank > CAIRN_H5_MAX_RANK) return cairnErr(CAIRN_RANGE, "selection of rank %d", rank);
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
  if (aSel) CAIRN_TRY(selFrom(rank, aSel, &sel));
  return cairn_h5_read(o, aSel ? &sel : NULL, (cairn_h5_mtype)mtype, buf, (size_t)nBuf);
}

/* cairn_h5_read_json with the selection as doubles; the text's length goes to *pn. */
EMSCRIPTEN_KEEPALIVE int cairn_em_h5_read_json(cairn_h5_obj *o, int rank, const double *aSel, char **pz, double *pn) {
  cairn_h5_sel sel;
  size_t n = 0;
  if (aSel) CAIRN_TRY(selFrom(rank, aSel, &sel));
  int rc = cairn_h5_read_json(o, aSel ? &sel : NULL, pz, &n);
  *pn = (double)n;
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

/* ---------------------------------------------------------------- writer */
/* Dimensions from doubles; a negative entry is unlimited. */
static int dimsFrom(int rank, const double *a, uint64_t *out) {
  if (rank < 0 || rank > CAIRN_H5W_MAXRANK) return cairnErr(CAIRN_RANGE, "rank %d (at most %d)", rank, CAIRN_H5W_MAXRANK);
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
  CAIRN_TRY(dimsFrom(rank, aDim, d));
  if (aMax) CAIRN_TRY(dimsFrom(rank, aMax, m));
  if (aChunk) CAIRN_TRY(dimsFrom(rank, aChunk, c));
  cairn_h5w_dset_opts o = {layout, aChunk ? c : NULL, zFilters, pFill};
  return cairn_h5w_dataset(w, zPath, t, rank, d, aMax ? m : NULL, &o, pData);
}

EMSCRIPTEN_KEEPALIVE int cairn_em_h5w_append(cairn_h5w *w, const char *zPath, double nRows, const void *pData) {
  return cairn_h5w_append(w, zPath, (uint64_t)nRows, pData);
}

/* cairn_h5w_write (rows [row0, row0 + nRows) along the first dimension) and cairn_h5w_resize. */
EMSCRIPTEN_KEEPALIVE int cairn_em_h5w_write(cairn_h5w *w, const char *zPath, double row0, double nRows, const void *pData) {
  if (!(row0 >= 0) || !(nRows >= 0)) return cairnErr(CAIRN_RANGE, "write: negative rows");
  return cairn_h5w_write(w, zPath, (uint64_t)row0, (uint64_t)nRows, pData);
}
EMSCRIPTEN_KEEPALIVE int cairn_em_h5w_resize(cairn_h5w *w, const char *zPath, double nRows) {
  if (!(nRows >= 0)) return cairnErr(CAIRN_RANGE, "resize: negative size");
  return cairn_h5w_resize(w, zPath, (uint64_t)nRows);
}

EMSCRIPTEN_KEEPALIVE int cairn_em_h5w_attr(cairn_h5w *w, const char *zObj, const char *zName, const cairn_h5w_type *t, int rank,
                                           const double *aDim, const void *pData) {
  uint64_t d[CAIRN_H5W_MAXRANK];
  CAIRN_TRY(dimsFrom(rank, aDim, d));
  return cairn_h5w_attr(w, zObj, zName, t, rank, d, pData);
}

/* Shape of a dataset: rank into *pRank, dims into aOut (CAIRN_H5W_MAXRANK doubles). */
EMSCRIPTEN_KEEPALIVE int cairn_em_h5w_shape(cairn_h5w *w, const char *zPath, int *pRank, double *aOut) {
  uint64_t d[CAIRN_H5W_MAXRANK];
  int rank = 0;
  int rc = cairn_h5w_shape(w, zPath, &rank, d);
  if (rc) return rc;
  if (rank > CAIRN_H5W_MAXRANK) return cairnErr(CAIRN_RANGE, "rank %d", rank);
  for (int i = 0; i < rank; i++) aOut[i] = (double)d[i];
  *pRank = rank;
  return CAIRN_OK;
}
