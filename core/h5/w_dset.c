/*
** 2026-12-02
**
** core/h5/w_dset.c - the HDF5 writer's dataset calls (cairn/h5w.h): create (layout, fill value
** and filter pipeline messages), version-4 chunk indexes of loaded files, append, write and
** resize along the first dimension, load of a committed dataset's layout and index, and the
** read-back of cairn_h5w_verify. The storage underneath (heap collections, chunk records, the
** v1 B-tree, row blocks) is w_data.c's.
*/
#include <stdlib.h> /* qsort */

#include "h5/h5w.h"

/* ---------------------------------------------------------------- create */
static int parseDims(const char *zPath, int rank, const uint64_t *dims, const uint64_t *maxdims, uint64_t *pnEl) {
  uint64_t n = 1;
  for (int i = 0; i < rank; i++) {
    if (maxdims && maxdims[i] != CAIRN_H5W_UNLIMITED && maxdims[i] < dims[i])
      return cairnErr(CAIRN_RANGE, "dataset '%s': dimension %d is %llu, above its maximum %llu", zPath, i,
                      (unsigned long long)dims[i], (unsigned long long)maxdims[i]);
    if (cairnMulOverflow64(n, dims[i], &n)) return cairnErr(CAIRN_RANGE, "dataset '%s': too many elements", zPath);
  }
  *pnEl = n;
  return CAIRN_OK;
}

int cairn_h5w_dataset(cairn_h5w *w, const char *zPath, const cairn_h5w_type *t, int rank, const uint64_t *dims,
                      const uint64_t *maxdims, const cairn_h5w_dset_opts *pOpt, const void *pData) {
  if (!w) return cairnErr(CAIRN_MISUSE, "cairn_h5w_dataset: NULL writer");
  if (w->rcFatal) return cairnErr(w->rcFatal, "cairn_h5w_dataset: the writer failed earlier");
  if (w->bReadOnly) return cairnErr(CAIRN_READONLY, "cairn_h5w_dataset: file opened read-only");
  if (!zPath || !t || rank < 0 || rank > CAIRN_H5W_MAXRANK || (rank && !dims))
    return cairnErr(CAIRN_MISUSE, "cairn_h5w_dataset: bad arguments for '%s'", zPath ? zPath : "(null)");
  cairn_h5w_dset_opts opt;
  memset(&opt, 0, sizeof opt);
  if (pOpt) opt = *pOpt;
  uint64_t nEl = 0, nByte = 0;
  CAIRN_TRY(parseDims(zPath, rank, dims, maxdims, &nEl));
  if (cairnMulOverflow64(nEl, t->size, &nByte)) return cairnErr(CAIRN_RANGE, "dataset '%s': too large", zPath);
  int bResizable = 0;
  for (int i = 0; maxdims && i < rank; i++)
    if (maxdims[i] != dims[i]) bResizable = 1;
  if (bResizable)
    for (int i = 1; i < rank; i++)
      if (maxdims[i] != dims[i]) return cairnErr(CAIRN_UNSUPPORTED, "dataset '%s': only the first dimension can grow", zPath);
  H5wDset *d = cairnMallocZero(sizeof *d);
  if (!d) return cairnErr(CAIRN_NOMEM, "dataset '%s': out of memory", zPath);
  d->rank = rank;
  d->elSize = t->size;
  d->bVlen = t->bHasVlen;
  d->vlenKind = t->vlenKind;
  d->vlenUnit = t->vlenUnit;
  d->tailRow0 = H5W_NO_BLOCK;
  d->btreeAddr = H5_UNDEF;
  d->bIndexLoaded = 1;
  for (int i = 0; i < rank; i++) d->aDim[i] = dims[i], d->aMax[i] = maxdims ? maxdims[i] : dims[i];
  int rc = CAIRN_OK;
  const char *zErr;
  if (opt.zFilters && opt.zFilters[0]) rc = cairnH5wFilterParse(opt.zFilters, t->size, d->aFilter, &d->nFilter, &zErr);
  d->layout = opt.layout;
  if (!rc && d->layout == CAIRN_H5W_AUTO) d->layout = (bResizable || d->nFilter || opt.chunk) ? CAIRN_H5W_CHUNKED : CAIRN_H5W_CONTIGUOUS;
  if (!rc && d->layout > CAIRN_H5W_CHUNKED) rc = cairnErr(CAIRN_MISUSE, "dataset '%s': layout %d", zPath, d->layout);
  if (!rc && d->layout != CAIRN_H5W_CHUNKED && (bResizable || d->nFilter))
    rc = cairnErr(CAIRN_MISUSE, "dataset '%s': resizable or filtered datasets must be chunked", zPath);
  if (!rc && d->layout == CAIRN_H5W_CHUNKED && rank == 0) rc = cairnErr(CAIRN_MISUSE, "dataset '%s': a scalar cannot be chunked", zPath);
  if (!rc && d->layout == CAIRN_H5W_CHUNKED && w->bBadK) rc = cairnErr(CAIRN_UNSUPPORTED, "dataset '%s': the file sets a chunk B-tree K other than 32", zPath);
  if (!rc && d->layout == CAIRN_H5W_COMPACT && nByte > 60000)
    rc = cairnErr(CAIRN_RANGE, "dataset '%s': %llu bytes is too large for the compact layout (60000 max)", zPath, (unsigned long long)nByte);
  if (!rc && opt.pFill && t->bHasVlen) rc = cairnErr(CAIRN_UNSUPPORTED, "dataset '%s': fill value for variable-length data", zPath);
  if (!rc && d->layout == CAIRN_H5W_CHUNKED) {
    uint64_t cb = t->size;
    for (int i = rank - 1; i >= 0; i--) {
      uint64_t c;
      if (opt.chunk) c = opt.chunk[i];
      else if (i > 0) c = dims[i] ? dims[i] : 1;
      else {
        uint64_t row = cb ? cb : 1;
        c = row >= 65536 ? 1 : 65536 / row;
        if (!bResizable && dims[0] && c > dims[0]) c = dims[0];
      }
      if (c == 0 || c > 0xffffffffu || (d->aMax[i] != CAIRN_H5W_UNLIMITED && c > d->aMax[i] && d->aMax[i] > 0))
        rc = cairnErr(CAIRN_RANGE, "dataset '%s': chunk dimension %d is %llu", zPath, i, (unsigned long long)c);
      d->aChunk[i] = c;
      if (!rc && cairnMulOverflow64(cb, c, &cb)) rc = cairnErr(CAIRN_RANGE, "dataset '%s': chunk too large", zPath);
    }
    if (!rc && cb > (256u << 20)) rc = cairnErr(CAIRN_RANGE, "dataset '%s': %llu-byte chunks (256 MiB max)", zPath, (unsigned long long)cb);
    if (!rc && !w->bChunkWise && cairnH5wRowElems(d) * t->size * d->aChunk[0] > (1ull << 30))
      rc = cairnErr(CAIRN_RANGE, "dataset '%s': a row block of chunks exceeds 1 GiB", zPath);
  }
  if (!rc && opt.pFill) {
    if (!(d->pFill = cairnMalloc(t->size))) rc = cairnErr(CAIRN_NOMEM, "out of memory");
    else memcpy(d->pFill, opt.pFill, t->size);
  }
  H5wObj *g = NULL, *o = NULL;
  const char *zLeaf = NULL;
  if (!rc) rc = cairnH5wCreateChild(w, zPath, &g, &zLeaf);
  if (!rc && !(o = cairnMallocZero(sizeof *o))) rc = cairnErr(CAIRN_NOMEM, "out of memory");
  if (rc) {
    cairnH5wDsetFree(d);
    return rc;
  }
  o->addr = H5_UNDEF;
  o->pDset = d;
  /* file-form data for vlen strings */
  const uint8_t *pFile = pData;
  uint8_t *pConv = NULL;
  if (pData && t->bHasVlen) {
    if (!(pConv = cairnMalloc((size_t)(nByte ? nByte : 1)))) rc = cairnErr(CAIRN_NOMEM, "dataset '%s': out of memory", zPath);
    else rc = cairnH5wVlenToFile(w, t->vlenKind, t->vlenUnit, pData, nEl, pConv);
    pFile = pConv;
  }
  /* messages: dataspace, datatype, fill value, layout, filters */
  uint8_t sp[4 + 16 * CAIRN_H5W_MAXRANK];
  if (!rc) {
    d->iSpaceMsg = o->nMsg;
    rc = cairnH5wObjAddMsg(o, H5_MSG_DATASPACE, 0, sp, (size_t)cairnH5wEncodeSpace(sp, rank, dims, bResizable ? d->aMax : NULL));
  }
  if (!rc) {
    uint8_t *te;
    size_t tn;
    rc = cairnH5wTypeEncode(t, &te, &tn);
    if (!rc) {
      rc = cairnH5wObjAddMsg(o, H5_MSG_DATATYPE, 1, te, tn);
      cairnFree(te);
    }
  }
  if (!rc) {
    uint8_t fv[8 + 64];
    size_t nfv = 2;
    uint8_t alloc = d->layout == CAIRN_H5W_CHUNKED ? 3 : 1;
    fv[0] = 3;
    fv[1] = (uint8_t)(alloc | (2 << 2));
    uint8_t *big = NULL;
    if (d->pFill) {
      fv[1] |= 0x20;
      if (t->size + 6 > sizeof fv) big = cairnMalloc(t->size + 6);
      uint8_t *q = big ? big : fv;
      q[0] = fv[0], q[1] = fv[1];
      cairnPutLE32(q + 2, (uint32_t)t->size);
      memcpy(q + 6, d->pFill, t->size);
      nfv = 6 + t->size;
      rc = (t->size + 6 > sizeof fv && !big) ? cairnErr(CAIRN_NOMEM, "out of memory") : cairnH5wObjAddMsg(o, H5_MSG_FILLVALUE, 1, q, nfv);
      cairnFree(big);
    } else rc = cairnH5wObjAddMsg(o, H5_MSG_FILLVALUE, 1, fv, nfv);
  }
  if (!rc && d->nFilter) {
    uint8_t fp[2 + 8 * (8 + 64 + 32)];
    size_t i = 2;
    fp[0] = 2;
    fp[1] = (uint8_t)d->nFilter;
    for (int k = 0; k < d->nFilter; k++) {
      const H5wFilter *f = &d->aFilter[k];
      const char *zName = f->id == 32015 ? "Zstandard compression: http://www.zstd.net" : f->id == 32004 ? "HDF5 lz4 filter; see http://www.hdfgroup.org/services/contributions.html" : NULL;
      cairnPutLE16(fp + i, f->id), i += 2;
      if (f->id >= 256) cairnPutLE16(fp + i, (uint16_t)(strlen(zName) + 1)), i += 2;
      cairnPutLE16(fp + i, f->flags), i += 2;
      cairnPutLE16(fp + i, (uint16_t)f->nCd), i += 2;
      if (f->id >= 256) memcpy(fp + i, zName, strlen(zName) + 1), i += strlen(zName) + 1;
      for (int c = 0; c < f->nCd; c++) cairnPutLE32(fp + i, f->aCd[c]), i += 4;
    }
    rc = cairnH5wObjAddMsg(o, H5_MSG_FILTER, 0, fp, i);
  }
  if (!rc) rc = cairnH5wEnsureAinfo(o);
  /* layout + data */
  if (!rc) {
    d->iLayoutMsg = o->nMsg;
    if (d->layout == CAIRN_H5W_COMPACT) {
      size_t nb = (size_t)nByte;
      uint8_t *ly = cairnMalloc(4 + nb);
      if (!ly) rc = cairnErr(CAIRN_NOMEM, "out of memory");
      else {
        ly[0] = 3, ly[1] = 0;
        cairnPutLE16(ly + 2, (uint16_t)nb);
        if (pFile) memcpy(ly + 4, pFile, nb);
        else cairnH5wFillPattern(d, ly + 4, nEl);
        rc = cairnH5wObjAddMsg(o, H5_MSG_LAYOUT, 0, ly, 4 + nb);
        cairnFree(ly);
      }
    } else if (d->layout == CAIRN_H5W_CONTIGUOUS) {
      uint64_t addr = H5_UNDEF;
      if (nByte) {
        rc = cairnH5wAlloc(w, nByte, &addr);
        if (!rc && pFile) rc = cairnH5wWrite(w, pFile, (size_t)nByte, addr);
        else if (!rc && !w->bSkipFill) { /* fill in bounded blocks */
          size_t blk = 1 << 20;
          blk -= blk % t->size;
          uint8_t *b = cairnMalloc(blk);
          if (!b) rc = cairnErr(CAIRN_NOMEM, "out of memory");
          else cairnH5wFillPattern(d, b, blk / t->size);
          for (uint64_t off = 0; !rc && off < nByte; off += blk)
            rc = cairnH5wWrite(w, b, (size_t)(nByte - off < blk ? nByte - off : blk), addr + off);
          cairnFree(b);
        }
      }
      uint8_t ly[18];
      ly[0] = 3, ly[1] = 1;
      cairnPutLE64(ly + 2, addr);
      cairnPutLE64(ly + 10, nByte);
      if (!rc) rc = cairnH5wObjAddMsg(o, H5_MSG_LAYOUT, 0, ly, sizeof ly);
      d->contigAddr = addr, d->contigSize = nByte, d->contigGen = w->txn;
    } else {
      uint8_t ly[3 + 8 + 4 * (CAIRN_H5W_MAXRANK + 1)] = {0};
      if (!rc) rc = cairnH5wObjAddMsg(o, H5_MSG_LAYOUT, 0, ly, cairnH5wLayoutSize(d, 0));
      if (!rc) rc = cairnH5wUpdateChunkedMsgs(o);
      if (!rc && pFile && dims[0]) {
        rc = cairnH5wWriteRows(w, d, 0, dims[0], pFile);
      }
    }
  }
  cairnFree(pConv);
  if (!rc) rc = cairnH5wLinkAdd(g, zLeaf, o);
  if (rc) {
    /* Nothing links to o; space it took is leaked until commit/repack but the file is intact. */
    o->pParent = NULL;
    for (int i = 0; i < o->nMsg; i++) cairnFree(o->aMsg[i].p);
    cairnFree(o->aMsg);
    cairnH5wDsetFree(d);
    cairnFree(o);
    return rc;
  }
  w->bChanged = 1;
  return CAIRN_OK;
}

/* Read rows [r0, r0 + nr) of dataset d (rank, dims: its shape) in native form into p (nb bytes):
** the row blocks in which append and repack copy a dataset. */
int cairnH5wReadRows(cairn_h5_obj *d, unsigned rank, const uint64_t *dims, uint64_t r0, uint64_t nr, void *p, size_t nb) {
  cairn_h5_sel sel;
  memset(&sel, 0, sizeof sel);
  sel.rank = rank;
  for (unsigned i = 0; i < rank; i++) sel.count[i] = dims[i];
  sel.start[0] = r0;
  sel.count[0] = nr;
  return cairn_h5_read(d, &sel, CAIRN_H5_NATIVE, p, nb);
}

/* ---------------------------------------------------------------- v4 chunk indexes */
/* A dataset whose chunks are indexed by a layout-v4 structure (extensible array, fixed array,
** v2 B-tree: libver latest) is given a version-1 B-tree on its first append: its rows are read
** through cairn's reader one block at a time and written again as new chunks with the same
** shape and filters; the old index and chunks are left unreferenced at the next commit. This
** costs one copy of this dataset, once, and keeps every reader able to open the file. */
static int convertV4(cairn_h5w *w, H5wObj *o, const char *zPath) {
  H5wDset *d = o->pDset;
  if (!o->zPath) return cairnErr(CAIRN_UNSUPPORTED, "append: dataset '%s' has a layout-v4 index and no committed path", zPath);
  if (d->bVlen) return cairnErr(CAIRN_UNSUPPORTED, "append: dataset '%s': variable-length data in a layout-v4 index", zPath);
  for (int i = 0; i < d->nFilter; i++) {
    uint16_t id = d->aFilter[i].id;
    if (id != 1 && id != 2 && id != 3 && id != 32004 && id != 32015)
      return cairnErr(CAIRN_UNSUPPORTED, "append: dataset '%s' uses filter %u", zPath, id);
  }
  if (w->bBadK) return cairnErr(CAIRN_UNSUPPORTED, "append: dataset '%s': the file sets a chunk B-tree K other than 32", zPath);
  CAIRN_TRY(cairnH5wFlush(w));
  cairn_h5 *h = NULL;
  cairn_h5_obj *src = NULL;
  cairn_h5_info in;
  int rc = cairn_h5_open(w->f, 0, &h);
  if (!rc) rc = cairn_h5_get(h, o->zPath, &src);
  if (!rc) rc = cairn_h5_info_get(src, &in);
  if (!rc && (in.typeBigEndian || in.layout != CAIRN_H5_CHUNKED || (int)in.rank != d->rank))
    rc = cairnErr(CAIRN_UNSUPPORTED, "append: dataset '%s': big-endian or unexpected layout", zPath);
  H5wDset save = *d;
  if (!rc) {
    d->layout = CAIRN_H5W_CHUNKED;
    for (int i = 0; i < d->rank; i++) d->aChunk[i] = in.chunk[i];
    d->nRec = 0;
    d->bIndexLoaded = 1;
    d->btreeAddr = H5_UNDEF;
    d->nLevels = 0;
    d->tailRow0 = H5W_NO_BLOCK;
    d->bTailDirty = 0;
  }
  uint64_t rowBytes = d->elSize;
  for (int i = 1; i < d->rank; i++) rowBytes *= d->aDim[i];
  uint64_t step = d->aChunk[0] ? d->aChunk[0] : 1;
  while (!rc && step * rowBytes < (4u << 20) && step * 2 <= d->aDim[0]) step *= 2;
  uint8_t *p = rc || !rowBytes ? NULL : cairnMalloc((size_t)(step * rowBytes));
  if (!rc && rowBytes && !p) rc = cairnErr(CAIRN_NOMEM, "append: out of memory converting '%s'", zPath);
  for (uint64_t r0 = 0; !rc && rowBytes && r0 < d->aDim[0]; r0 += step) {
    uint64_t nr = d->aDim[0] - r0 < step ? d->aDim[0] - r0 : step;
    rc = cairnH5wReadRows(src, in.rank, in.dims, r0, nr, p, (size_t)(nr * rowBytes));
    if (!rc) rc = cairnH5wWriteRows(w, d, r0, nr, p);
  }
  cairnFree(p);
  cairn_h5_obj_close(src);
  cairn_h5_close(h);
  if (rc) {
    /* chunks written so far are in space nothing committed uses: leaked until the next reclaim */
    cairnFree(d->aRec);
    cairnFree(d->pTail);
    for (int l = 0; l < 8; l++) if (d->aLevel[l] != save.aLevel[l]) cairnFree(d->aLevel[l]);
    *d = save;
    d->aRec = NULL, d->nRec = d->nRecAlloc = 0, d->pTail = NULL, d->nTailAlloc = 0;
    return rc;
  }
  /* the layout message becomes version 3 (chunked, v1 B-tree), written at commit */
  uint8_t ly[3 + 8 + 4 * (CAIRN_H5W_MAXRANK + 1)] = {0};
  rc = cairnH5wObjSetMsg(o, d->iLayoutMsg, ly, cairnH5wLayoutSize(d, 0));
  if (!rc) rc = cairnH5wUpdateChunkedMsgs(o);
  if (rc) return cairnH5wFail(w, rc);
  d->bShapeDirty = 1;
  cairnH5wObjDirty(o);
  w->bChanged = 1;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- append */
static int dsetFind(cairn_h5w *w, const char *zPath, H5wObj **ppO, const char *zWhat) {
  H5wObj *o;
  CAIRN_TRY(cairnH5wLookup(w, zPath, &o));
  if (!o->pDset) return cairnErr(CAIRN_TYPE, "%s: '%s' is not a dataset", zWhat, zPath);
  if (o->pDset->bShared) return cairnErr(CAIRN_UNSUPPORTED, "%s: dataset '%s' uses shared (SOHM) messages", zWhat, zPath);
  *ppO = o;
  return CAIRN_OK;
}

int cairn_h5w_append(cairn_h5w *w, const char *zPath, uint64_t nRows, const void *pData) {
  if (!w || !zPath || (nRows && !pData)) return cairnErr(CAIRN_MISUSE, "cairn_h5w_append: bad arguments");
  if (w->rcFatal) return cairnErr(w->rcFatal, "cairn_h5w_append: the writer failed earlier");
  if (w->bReadOnly) return cairnErr(CAIRN_READONLY, "cairn_h5w_append: file opened read-only");
  H5wObj *o = NULL;
  CAIRN_TRY(dsetFind(w, zPath, &o, "append"));
  CAIRN_TRY(cairnH5wCheckChain(o, zPath));
  CAIRN_TRY(cairnH5wCheckRefs(w, zPath));
  H5wDset *d = o->pDset;
  if (d->layout == -1) CAIRN_TRY(convertV4(w, o, zPath));
  if (d->layout != CAIRN_H5W_CHUNKED || d->rank == 0)
    return cairnErr(CAIRN_TYPE, "append: dataset '%s' is not chunked", zPath);
  if (d->aMax[0] != CAIRN_H5W_UNLIMITED && d->aDim[0] + nRows > d->aMax[0])
    return cairnErr(CAIRN_RANGE, "append: dataset '%s' can hold %llu rows, has %llu, asked for %llu more", zPath,
                    (unsigned long long)d->aMax[0], (unsigned long long)d->aDim[0], (unsigned long long)nRows);
  if (d->nFilter && d->nFilter > 0) {
    for (int i = 0; i < d->nFilter; i++) {
      uint16_t id = d->aFilter[i].id;
      if (id != 1 && id != 2 && id != 3 && id != 32004 && id != 32015)
        return cairnErr(CAIRN_UNSUPPORTED, "append: dataset '%s' uses filter %u", zPath, id);
    }
  }
  if (nRows == 0) return CAIRN_OK;
  CAIRN_TRY(cairnH5wIndexLoad(w, d));
  uint64_t nEl = nRows * cairnH5wRowElems(d);
  const uint8_t *p = pData;
  uint8_t *pConv = NULL;
  if (d->bVlen) {
    if (!(pConv = cairnMalloc((size_t)(nEl * 16)))) return cairnErr(CAIRN_NOMEM, "append: out of memory");
    int rc = cairnH5wVlenToFile(w, d->vlenKind, d->vlenUnit, pData, nEl, pConv);
    if (rc) {
      cairnFree(pConv);
      return rc;
    }
    p = pConv;
  }
  uint64_t row0 = d->aDim[0];
  d->aDim[0] += nRows;
  int rc = cairnH5wWriteRows(w, d, row0, nRows, p);
  cairnFree(pConv);
  if (rc) return cairnH5wFail(w, rc);
  d->bShapeDirty = 1; /* dataspace and layout messages are re-encoded once, at commit */
  if (!o->bDirty) cairnH5wObjDirty(o);
  w->bChanged = 1;
  return CAIRN_OK;
}

/* Grow the first dimension to nRows: the new rows are appended as the fill value, one bounded
** block (about 1 MiB) at a time, through the append path (same checks, same tail handling). */
int cairn_h5w_resize(cairn_h5w *w, const char *zPath, uint64_t nRows) {
  if (!w || !zPath) return cairnErr(CAIRN_MISUSE, "cairn_h5w_resize: bad arguments");
  if (w->rcFatal) return cairnErr(w->rcFatal, "cairn_h5w_resize: the writer failed earlier");
  if (w->bReadOnly) return cairnErr(CAIRN_READONLY, "cairn_h5w_resize: file opened read-only");
  H5wObj *o = NULL;
  CAIRN_TRY(dsetFind(w, zPath, &o, "resize"));
  H5wDset *d = o->pDset;
  if (d->rank == 0) return cairnErr(CAIRN_TYPE, "resize: dataset '%s' is a scalar", zPath);
  if (nRows < d->aDim[0])
    return cairnErr(CAIRN_UNSUPPORTED, "resize: dataset '%s' has %llu rows; the writer only grows datasets (to %llu asked)", zPath,
                    (unsigned long long)d->aDim[0], (unsigned long long)nRows);
  if (nRows == d->aDim[0]) return CAIRN_OK;
  if (d->bVlen) return cairnErr(CAIRN_UNSUPPORTED, "resize: dataset '%s' holds variable-length data (append rows instead)", zPath);
  if (d->aMax[0] != CAIRN_H5W_UNLIMITED && nRows > d->aMax[0])
    return cairnErr(CAIRN_RANGE, "resize: dataset '%s' can hold %llu rows, asked for %llu", zPath, (unsigned long long)d->aMax[0],
                    (unsigned long long)nRows);
  uint64_t nAdd = nRows - d->aDim[0], rowBytes = cairnH5wRowElems(d) * d->elSize, per = rowBytes ? (1u << 20) / rowBytes : nAdd;
  if (per == 0) per = 1;
  if (per > nAdd) per = nAdd;
  size_t nb = (size_t)(per * rowBytes);
  uint8_t *b = cairnMalloc(nb ? nb : 1);
  if (!b) return cairnErr(CAIRN_NOMEM, "resize: out of memory");
  cairnH5wFillPattern(d, b, per * cairnH5wRowElems(d));
  int rc = CAIRN_OK;
  while (!rc && d->aDim[0] < nRows) {
    uint64_t n = nRows - d->aDim[0] < per ? nRows - d->aDim[0] : per;
    rc = cairn_h5w_append(w, zPath, n, b);
  }
  cairnFree(b);
  return rc;
}

/* Overwrite rows [row0, row0 + nRows) of a dataset. Committed bytes are never written over:
** chunks are rewritten (copy-on-write, read-modify-write for partial ones), contiguous storage
** of an earlier transaction is first copied to new space (once per transaction), compact data
** lives in the header, which is rewritten at commit anyway. */
int cairn_h5w_write(cairn_h5w *w, const char *zPath, uint64_t row0, uint64_t nRows, const void *pData) {
  if (!w || !zPath || (nRows && !pData)) return cairnErr(CAIRN_MISUSE, "cairn_h5w_write: bad arguments");
  if (w->rcFatal) return cairnErr(w->rcFatal, "cairn_h5w_write: the writer failed earlier");
  if (w->bReadOnly) return cairnErr(CAIRN_READONLY, "cairn_h5w_write: file opened read-only");
  H5wObj *o = NULL;
  CAIRN_TRY(dsetFind(w, zPath, &o, "write"));
  CAIRN_TRY(cairnH5wCheckChain(o, zPath));
  CAIRN_TRY(cairnH5wCheckRefs(w, zPath));
  H5wDset *d = o->pDset;
  uint64_t nRowsAll = d->rank ? d->aDim[0] : 1, rowEl = 1;
  for (int i = 1; i < d->rank; i++) rowEl *= d->aDim[i];
  if (row0 > nRowsAll || nRows > nRowsAll - row0)
    return cairnErr(CAIRN_RANGE, "write: rows %llu..%llu outside the %llu rows of '%s'", (unsigned long long)row0,
                    (unsigned long long)(row0 + nRows), (unsigned long long)nRowsAll, zPath);
  if (nRows == 0) return CAIRN_OK;
  if (d->layout == 0) return cairnErr(CAIRN_UNSUPPORTED, "write: dataset '%s' has a layout the writer cannot edit", zPath);
  uint64_t rowBytes = rowEl * d->elSize, nEl = nRows * rowEl;
  const uint8_t *p = pData;
  uint8_t *pConv = NULL;
  if (d->bVlen) {
    if (!(pConv = cairnMalloc((size_t)(nEl * 16)))) return cairnErr(CAIRN_NOMEM, "write: out of memory");
    int rc = cairnH5wVlenToFile(w, d->vlenKind, d->vlenUnit, pData, nEl, pConv);
    if (rc) {
      cairnFree(pConv);
      return rc;
    }
    p = pConv;
  }
  int rc = CAIRN_OK;
  if (d->layout == -1) rc = convertV4(w, o, zPath);
  if (!rc && d->layout == CAIRN_H5W_COMPACT) {
    H5wMsg *m = &o->aMsg[d->iLayoutMsg];
    if (m->n < 4 + (row0 + nRows) * rowBytes) rc = cairnErr(CAIRN_CORRUPT, "compact layout of '%s' is short", zPath);
    else memcpy(m->p + 4 + row0 * rowBytes, p, (size_t)(nRows * rowBytes));
  } else if (!rc && d->layout == CAIRN_H5W_CONTIGUOUS) {
    if (d->contigAddr == H5_UNDEF || d->contigGen != w->txn) {
      /* copy the committed storage to new space first (or allocate it: late allocation) */
      uint64_t size = nRowsAll * rowBytes, addr;
      rc = cairnH5wAlloc(w, size ? size : 1, &addr);
      uint8_t *b = rc ? NULL : cairnMalloc(1 << 20);
      if (!rc && !b) rc = cairnErr(CAIRN_NOMEM, "write: out of memory");
      for (uint64_t off = 0; !rc && off < size; off += 1 << 20) {
        size_t m = (size_t)(size - off < (1u << 20) ? size - off : (1u << 20));
        if (d->contigAddr != H5_UNDEF) rc = cairnH5wRead(w, b, m, d->contigAddr + off);
        else cairnH5wFillPattern(d, b, m / d->elSize);
        if (!rc) rc = cairnH5wWrite(w, b, m, addr + off);
      }
      cairnFree(b);
      if (!rc) {
        cairnH5wFree(w, d->contigAddr, d->contigSize, d->contigGen != w->txn);
        d->contigAddr = addr, d->contigSize = size, d->contigGen = w->txn;
        uint8_t ly[18];
        ly[0] = 3, ly[1] = 1;
        cairnPutLE64(ly + 2, addr);
        cairnPutLE64(ly + 10, size);
        rc = cairnH5wObjSetMsg(o, d->iLayoutMsg, ly, sizeof ly);
      }
    }
    if (!rc) rc = cairnH5wWrite(w, p, (size_t)(nRows * rowBytes), d->contigAddr + row0 * rowBytes);
  } else if (!rc && d->layout == CAIRN_H5W_CHUNKED) {
    rc = cairnH5wIndexLoad(w, d);
    if (!rc) rc = cairnH5wWriteRows(w, d, row0, nRows, p);
  }
  cairnFree(pConv);
  if (rc) return CAIRN_PRIMARY(rc) == CAIRN_IOERR ? cairnH5wFail(w, rc) : rc;
  cairnH5wObjDirty(o);
  w->bChanged = 1;
  return CAIRN_OK;
}

int cairn_h5w_shape(cairn_h5w *w, const char *zPath, int *pRank, uint64_t *dims) {
  if (!w || !zPath || !pRank) return cairnErr(CAIRN_MISUSE, "cairn_h5w_shape: NULL argument");
  H5wObj *o = NULL;
  CAIRN_TRY(dsetFind(w, zPath, &o, "shape"));
  *pRank = o->pDset->rank;
  if (dims) memcpy(dims, o->pDset->aDim, sizeof(uint64_t) * (size_t)o->pDset->rank);
  return CAIRN_OK;
}

int cairn_h5w_dtype(cairn_h5w *w, const char *zPath, int *pClass, size_t *pSize, int *pSigned) {
  if (!w || !zPath || !pClass || !pSize || !pSigned) return cairnErr(CAIRN_MISUSE, "cairn_h5w_dtype: NULL argument");
  H5wObj *o = NULL;
  CAIRN_TRY(dsetFind(w, zPath, &o, "dtype"));
  for (int i = 0; i < o->nMsg; i++)
    if (o->aMsg[i].type == H5_MSG_DATATYPE && o->aMsg[i].n >= 8) {
      const uint8_t *p = o->aMsg[i].p;
      *pClass = p[0] & 0x0f;
      *pSize = cairnGetLE32(p + 4);
      *pSigned = *pClass == 0 && (p[1] & 0x08) != 0;
      return CAIRN_OK;
    }
  return cairnErr(CAIRN_CORRUPT, "dataset '%s' has no datatype message", zPath);
}

/* ---------------------------------------------------------------- load */
int cairnH5wDsetLoad(cairn_h5w *w, H5wObj *o) {
  (void)w;
  H5wDset *d = cairnMallocZero(sizeof *d);
  if (!d) return cairnErr(CAIRN_NOMEM, "dataset: out of memory");
  d->tailRow0 = H5W_NO_BLOCK;
  d->btreeAddr = H5_UNDEF;
  d->iSpaceMsg = d->iLayoutMsg = -1;
  o->pDset = d;
  int cls = 0;
  for (int i = 0; i < o->nMsg; i++) {
    const H5wMsg *m = &o->aMsg[i];
    const uint8_t *p = m->p;
    size_t n = m->n;
    if ((m->flags & H5_MSGF_SHARED) && (m->type == H5_MSG_DATASPACE || m->type == H5_MSG_DATATYPE || m->type == H5_MSG_FILLVALUE ||
                              m->type == H5_MSG_FILTER || m->type == H5_MSG_LAYOUT)) {
      d->bShared = 1; /* a shared (SOHM or committed) message: this dataset is kept as it is */
      if (m->type == H5_MSG_DATASPACE) d->iSpaceMsg = i;
      if (m->type == H5_MSG_LAYOUT) d->iLayoutMsg = i;
      continue;
    }
    if (m->type == H5_MSG_DATASPACE && n >= 4) {
      d->iSpaceMsg = i;
      int ver = p[0], rank = p[1], fl = p[2];
      size_t off = ver == 1 ? 8 : 4;
      if (rank > CAIRN_H5W_MAXRANK || off + 8 * (size_t)rank * ((fl & 1) ? 2 : 1) > n)
        return cairnErr(CAIRN_UNSUPPORTED, "dataspace of rank %d at %llu", rank, (unsigned long long)o->addr);
      d->rank = rank;
      for (int k = 0; k < rank; k++) {
        d->aDim[k] = cairnGetLE64(p + off + 8 * k);
        d->aMax[k] = (fl & 1) ? cairnGetLE64(p + off + 8 * (rank + k)) : d->aDim[k];
      }
    } else if (m->type == H5_MSG_DATATYPE) {
      CAIRN_TRY(cairnH5wTypeInfo(p, n, &cls, &d->elSize, &d->bVlen));
      if (d->bVlen) cairnH5wVlenInfo(p, n, &d->vlenKind, &d->vlenUnit);
    } else if (m->type == H5_MSG_LAYOUT && n >= 2) {
      d->iLayoutMsg = i;
      if (p[0] == 3 && p[1] == 2 && n >= 3 + 8) {
        d->layout = CAIRN_H5W_CHUNKED;
        int nd = p[2];
        if (nd < 2 || 3 + 8 + 4 * (size_t)nd > n) return cairnErr(CAIRN_CORRUPT, "layout message at %llu", (unsigned long long)o->addr);
        d->btreeAddr = cairnGetLE64(p + 3);
        for (int k = 0; k < nd - 1 && k < CAIRN_H5W_MAXRANK; k++) d->aChunk[k] = cairnGetLE32(p + 11 + 4 * k);
      } else if (p[0] == 3 && p[1] == 1 && n >= 18) {
        d->layout = CAIRN_H5W_CONTIGUOUS;
        d->contigAddr = cairnGetLE64(p + 2);
        d->contigSize = cairnGetLE64(p + 10);
        d->contigGen = 0; /* committed: written again only after a copy (see cairn_h5w_write) */
      }
      else if (p[0] == 3 && p[1] == 0) d->layout = CAIRN_H5W_COMPACT;
      else d->layout = (p[0] == 4 && p[1] == 2) ? -1 : 0; /* v4 chunk indexes and others: not editable (yet) */
    } else if (m->type == H5_MSG_FILTER && n >= 2) {
      int ver = p[0], nf = p[1];
      size_t i2 = ver == 1 ? 8 : 2;
      if (nf > 8) return cairnErr(CAIRN_UNSUPPORTED, "%d filters", nf);
      for (int k = 0; k < nf; k++) {
        H5wFilter *f = &d->aFilter[k];
        if (i2 + 2 > n) return cairnErr(CAIRN_CORRUPT, "filter pipeline message at %llu", (unsigned long long)o->addr);
        f->id = cairnGetLE16(p + i2);
        i2 += 2;
        size_t nName = 0;
        if (ver == 1 || f->id >= 256) {
          if (i2 + 2 > n) return cairnErr(CAIRN_CORRUPT, "filter pipeline message");
          nName = cairnGetLE16(p + i2);
          i2 += 2;
        }
        if (i2 + 4 > n) return cairnErr(CAIRN_CORRUPT, "filter pipeline message");
        f->flags = cairnGetLE16(p + i2);
        int nCd = cairnGetLE16(p + i2 + 2);
        i2 += 4;
        if (ver == 1) nName = (nName + 7) & ~(size_t)7;
        i2 += nName;
        f->nCd = nCd < 8 ? nCd : 8;
        for (int c = 0; c < nCd; c++) {
          if (i2 + 4 > n) return cairnErr(CAIRN_CORRUPT, "filter pipeline message");
          if (c < 8) f->aCd[c] = cairnGetLE32(p + i2);
          i2 += 4;
        }
        if (ver == 1 && (nCd & 1)) i2 += 4;
      }
      d->nFilter = nf;
    } else if (m->type == H5_MSG_FILLVALUE && n >= 2 && p[0] == 3 && (p[1] & 0x20) && n >= 6) {
      size_t fs = cairnGetLE32(p + 2);
      if (fs && fs <= n - 6 && (d->elSize == 0 || fs == d->elSize)) {
        d->pFill = cairnMalloc(fs);
        if (!d->pFill) return cairnErr(CAIRN_NOMEM, "out of memory");
        memcpy(d->pFill, p + 6, fs);
      }
    }
  }
  if (d->bShared) {
    /* Shared dataspace/datatype/filters: the writer does not resolve them, so it edits only
    ** this dataset's attributes (the messages are copied as they are); data operations refuse. */
    if (d->iSpaceMsg < 0 || d->iLayoutMsg < 0) return cairnErr(CAIRN_CORRUPT, "dataset at %llu lacks a dataspace or layout", (unsigned long long)o->addr);
    d->layout = 0;
    if (d->elSize == 0) d->elSize = 1;
    return CAIRN_OK;
  }
  if (d->iSpaceMsg < 0 || d->iLayoutMsg < 0 || d->elSize == 0)
    return cairnErr(CAIRN_CORRUPT, "dataset at %llu lacks a dataspace, datatype or layout", (unsigned long long)o->addr);
  if (d->layout == CAIRN_H5W_CHUNKED && d->rank == 0) d->layout = 0;
  for (int k = 0; k < d->rank && d->layout == CAIRN_H5W_CHUNKED; k++)
    if (d->aChunk[k] == 0) return cairnErr(CAIRN_CORRUPT, "chunk dimension 0 at %llu", (unsigned long long)o->addr);
  if (d->pFill && d->elSize == 0) cairnFree(d->pFill), d->pFill = NULL;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- verify (read back) */
void cairnH5wHeapCacheClear(cairn_h5w *w) {
  cairnFree(w->pGc);
  w->pGc = NULL;
  w->gcAddr = H5_UNDEF;
}

static int heapGet(cairn_h5w *w, uint64_t addr, uint32_t idx, const uint8_t **pp, uint64_t *pn) {
  if (!w->pGc || w->gcAddr != addr) {
    cairnH5wHeapCacheClear(w);
    uint8_t hd[16];
    CAIRN_TRY(cairnH5wRead(w, hd, 16, addr));
    uint64_t size = cairnGetLE64(hd + 8);
    if (memcmp(hd, H5_SIG_GCOL, 4) != 0 || hd[4] != 1 || size < 16 || size > (64u << 20))
      return cairnErr(CAIRN_CORRUPT, "no global heap collection at %llu", (unsigned long long)addr);
    w->pGc = cairnMalloc((size_t)size);
    if (!w->pGc) return cairnErr(CAIRN_NOMEM, "global heap: out of memory");
    int rc = cairnH5wRead(w, w->pGc, (size_t)size, addr);
    if (rc) {
      cairnH5wHeapCacheClear(w);
      return rc;
    }
    w->gcAddr = addr;
    w->nGc = (size_t)size;
    cairnH5wUsed(w, addr, size);
  }
  size_t off = 16;
  while (off + 16 <= w->nGc) {
    const uint8_t *o = w->pGc + off;
    uint32_t k = cairnGetLE16(o);
    uint64_t n = cairnGetLE64(o + 8);
    if (k == 0) break;
    if (n > w->nGc - off - 16) break;
    if (k == idx) {
      *pp = o + 16;
      *pn = n;
      return CAIRN_OK;
    }
    off += 16 + (size_t)((n + 7) & ~(uint64_t)7);
  }
  return cairnErr(CAIRN_CORRUPT, "global heap object %u not in the collection at %llu", idx, (unsigned long long)addr);
}

static int hashVlen(cairn_h5w *w, const uint8_t *p, uint64_t nEl, size_t unit, cairn_sha256_ctx *h) {
  for (uint64_t i = 0; i < nEl; i++) {
    const uint8_t *e = p + 16 * i;
    uint32_t len = cairnGetLE32(e);
    uint64_t addr = cairnGetLE64(e + 4);
    uint8_t b[4];
    cairnPutLE32(b, len);
    if (addr == 0 || addr == H5_UNDEF) {
      cairn_sha256_update(h, "\xff\xff\xff\xff", 4);
      continue;
    }
    const uint8_t *s = NULL;
    uint64_t n = 0;
    CAIRN_TRY(heapGet(w, addr, cairnGetLE32(e + 12), &s, &n));
    uint64_t nb = (uint64_t)len * unit;
    if (nb > n) return cairnErr(CAIRN_CORRUPT, "variable-length element of %llu bytes in a %llu-byte heap object", (unsigned long long)nb, (unsigned long long)n);
    cairn_sha256_update(h, b, 4);
    cairn_sha256_update(h, s, (size_t)nb);
  }
  return CAIRN_OK;
}

static int spaceCount(const uint8_t *p, size_t n, uint64_t *pnEl, size_t *pnUsed) {
  if (n < 4) return cairnErr(CAIRN_CORRUPT, "dataspace of %zu bytes", n);
  int ver = p[0], rank = p[1], fl = p[2];
  size_t off = ver == 1 ? 8 : 4;
  size_t need = off + 8 * (size_t)rank * ((fl & 1) ? 2 : 1);
  if (need > n || rank > 32) return cairnErr(CAIRN_CORRUPT, "dataspace of rank %d", rank);
  uint64_t ne = (ver >= 2 && p[3] == 2) ? 0 : 1;
  for (int i = 0; i < rank; i++)
    if (cairnMulOverflow64(ne, cairnGetLE64(p + off + 8 * i), &ne)) return cairnErr(CAIRN_CORRUPT, "dataspace too large");
  *pnEl = ne;
  *pnUsed = need;
  return CAIRN_OK;
}

int cairnH5wAttrDigest(cairn_h5w *w, const H5wMsg *m, cairn_sha256_ctx *h) {
  const uint8_t *p = m->p;
  size_t n = m->n;
  if (n < 8 || p[0] < 1 || p[0] > 3) return cairnErr(CAIRN_CORRUPT, "attribute message version %d", n ? p[0] : -1);
  int v = p[0];
  size_t nName = cairnGetLE16(p + 2), nType = cairnGetLE16(p + 4), nSpace = cairnGetLE16(p + 6);
  size_t off = v == 3 ? 9 : 8;
#define PAD(x) (v == 1 ? (((x) + 7) & ~(size_t)7) : (x))
  if (off + PAD(nName) + PAD(nType) + PAD(nSpace) > n) return cairnErr(CAIRN_CORRUPT, "attribute message sizes overrun it");
  const uint8_t *t = p + off + PAD(nName), *s = t + PAD(nType), *data = s + PAD(nSpace);
#undef PAD
  cairn_sha256_update(h, p + off, nName);
  cairn_sha256_update(h, t, nType);
  int cls = 0;
  size_t el = 0;
  int bVlen = 0;
  uint64_t nEl = 0, nData = 0;
  size_t used = 0;
  CAIRN_TRY(cairnH5wTypeInfo(t, nType, &cls, &el, &bVlen));
  if (cairnH5wTypeMayHideVlen(t, nType)) w->bUnsafe = 1;
  CAIRN_TRY(spaceCount(s, nSpace, &nEl, &used));
  cairn_sha256_update(h, s, used);
  size_t rest = (size_t)(p + n - data);
  if (cairnMulOverflow64(nEl, el, &nData) || nData > rest) return cairnErr(CAIRN_CORRUPT, "attribute data overruns its message");
  if (bVlen && el == 16) {
    int kind;
    size_t unit;
    cairnH5wVlenInfo(t, nType, &kind, &unit);
    return hashVlen(w, data, nEl, unit, h);
  }
  cairn_sha256_update(h, data, (size_t)nData);
  return CAIRN_OK;
}

static int addrCmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The chunk B-tree's child addresses are unchecksummed: one flipped bit can name another chunk,
** whose Fletcher-32 then passes. Two records at one address is that damage. */
static int chunkAddrsDistinct(const H5wDset *d) {
  if (d->nRec < 2) return CAIRN_OK;
  uint64_t *a = cairnMallocArray((size_t)d->nRec, sizeof(uint64_t));
  if (!a) return cairnErr(CAIRN_NOMEM, "verify: out of memory");
  for (uint64_t i = 0; i < d->nRec; i++) a[i] = d->aRec[i].addr;
  qsort(a, (size_t)d->nRec, sizeof(uint64_t), addrCmp);
  int rc = CAIRN_OK;
  for (uint64_t i = 1; i < d->nRec && !rc; i++)
    if (a[i] == a[i - 1]) rc = cairnErr(CAIRN_CORRUPT, "two chunks are at offset %llu: the chunk B-tree is damaged", (unsigned long long)a[i]);
  cairnFree(a);
  return rc;
}

int cairnH5wDsetDigest(cairn_h5w *w, H5wObj *o, cairn_sha256_ctx *h) {
  H5wDset *d = o->pDset;
  const H5wMsg *ly = &o->aMsg[d->iLayoutMsg];
  int bVlen = d->bVlen && d->elSize == 16;
  if (d->layout == CAIRN_H5W_CONTIGUOUS) {
    if (ly->n < 18) return cairnErr(CAIRN_CORRUPT, "contiguous layout message");
    uint64_t addr = cairnGetLE64(ly->p + 2), size = cairnGetLE64(ly->p + 10);
    if (addr == H5_UNDEF) return CAIRN_OK;
    if (addr + size < addr || addr + size > w->eofCommitted) return cairnErr(CAIRN_CORRUPT, "contiguous data at %llu past end of file", (unsigned long long)addr);
    cairnH5wUsed(w, addr, size);
    if (w->bCollect && !bVlen) return CAIRN_OK; /* accounting only: no need to read the bytes */
    size_t blk = 65536;
    uint8_t *b = cairnMalloc(blk);
    if (!b) return cairnErr(CAIRN_NOMEM, "verify: out of memory");
    int rc = CAIRN_OK;
    for (uint64_t off = 0; off < size && !rc; off += blk) {
      size_t m = (size_t)(size - off < blk ? size - off : blk);
      rc = cairnH5wRead(w, b, m, addr + off);
      if (!rc && bVlen) rc = hashVlen(w, b, m / 16, d->vlenUnit, h);
      else if (!rc) cairn_sha256_update(h, b, m);
    }
    cairnFree(b);
    return rc;
  }
  if (d->layout == CAIRN_H5W_COMPACT) {
    if (bVlen && ly->n >= 4) return hashVlen(w, ly->p + 4, (ly->n - 4) / 16, d->vlenUnit, h);
    return CAIRN_OK; /* the bytes are in the layout message, already hashed */
  }
  if (d->layout != CAIRN_H5W_CHUNKED) return CAIRN_OK; /* v4 chunk indexes: the layout message bytes were hashed, chunks are not decoded */
  CAIRN_TRY(cairnH5wIndexLoad(w, d));
  CAIRN_TRY(chunkAddrsDistinct(d));
  size_t nc = (size_t)(cairnH5wChunkElems(d) * d->elSize);
  uint8_t *c = cairnMalloc(nc ? nc : 1), *raw = NULL;
  int rc = c ? CAIRN_OK : cairnErr(CAIRN_NOMEM, "verify: out of memory");
  for (uint64_t i = 0; i < d->nRec && !rc; i++) {
    const H5wChunk *r = &d->aRec[i];
    cairnH5wUsed(w, r->addr, r->nByte);
    if (w->bCollect && !bVlen) continue; /* accounting only */
    for (int k = 0; k < d->rank; k++) cairnH5wHashU64(h, r->aOff[k]);
    if (r->nByte > nc * 2 + (1u << 20) || r->addr + r->nByte > w->eofCommitted) {
      rc = cairnErr(CAIRN_CORRUPT, "chunk at %llu of %u bytes", (unsigned long long)r->addr, r->nByte);
      break;
    }
    cairnFree(raw);
    if (!(raw = cairnMalloc(r->nByte ? r->nByte : 1))) { rc = cairnErr(CAIRN_NOMEM, "verify: out of memory"); break; }
    rc = cairnH5wRead(w, raw, r->nByte, r->addr);
    if (!rc) {
      if (d->nFilter) rc = cairnH5wFilterUndo(d->aFilter, d->nFilter, r->mask, raw, r->nByte, c, nc);
      else if (r->nByte != nc) rc = cairnErr(CAIRN_CORRUPT, "chunk at %llu of %u bytes, want %zu", (unsigned long long)r->addr, r->nByte, nc);
      else memcpy(c, raw, nc);
    }
    if (!rc && bVlen) rc = hashVlen(w, c, nc / 16, d->vlenUnit, h);
    else if (!rc) cairn_sha256_update(h, c, nc);
  }
  cairnFree(c);
  cairnFree(raw);
  return rc;
}
