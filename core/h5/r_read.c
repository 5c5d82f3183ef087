/*
** 2026-12-02
**
** core/h5/r_read.c - the reader's data calls of cairn/h5.h: reads with conversion (selection,
** memory type), the raw extent of contiguous data, reads as JSON (object references shown as
** paths, from a map of the file built on demand), and the info JSON. Files and objects by path
** are r_api.c's.
*/
#include "h5int.h"

/* ---------------------------------------------------------------- reading */
static int toSel(const H5Space *s, const cairn_h5_sel *sel, H5Sel *out, uint64_t *pn, uint64_t *aShape, const char *zPath) {
  uint64_t n = s->kind == CAIRN_H5_NULL ? 0 : 1;
  if (sel && sel->rank != s->rank) return cairnErr(CAIRN_RANGE, "hdf5: selection of rank %u for %s of rank %u", sel->rank, zPath, s->rank);
  for (uint32_t i = 0; i < s->rank; i++) {
    if (sel) {
      out->start[i] = sel->start[i];
      out->stride[i] = sel->stride[i] ? sel->stride[i] : 1;
      out->count[i] = sel->count[i];
      out->block[i] = sel->block[i] ? sel->block[i] : 1;
    } else {
      out->start[i] = 0;
      out->stride[i] = 1;
      out->count[i] = s->aDim[i];
      out->block[i] = 1;
    }
    uint64_t e;
    if (cairnMulOverflow64(out->count[i], out->block[i], &e) || cairnMulOverflow64(n, e, &n))
      return cairnErr(CAIRN_RANGE, "hdf5: selection too large for %s", zPath);
    if (aShape) aShape[i] = e;
  }
  *pn = n;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- the read budget */
int cairn_h5_set_read_budget(cairn_h5 *h, uint64_t nBytes) {
  if (!h) return cairnErr(CAIRN_MISUSE, "cairn_h5_set_read_budget: NULL handle");
  h->f.readBudget = nBytes;
  return CAIRN_OK;
}

uint64_t cairn_h5_read_budget(cairn_h5 *h) {
  return h && h->f.readBudget ? h->f.readBudget : CAIRN_H5_READ_BUDGET_DEFAULT;
}

/* Read the selection raw (file layout) into a new buffer. nPerElem: bytes per element the
** caller adds (JSON text), counted against the read budget with the raw bytes. */
static int readRaw(cairn_h5_obj *o, const cairn_h5_sel *sel, uint8_t **pp, uint64_t *pn, uint64_t *aShape, uint32_t *pRank, uint64_t nPerElem) {
  const H5Space *s = cairnH5ObjSpace(o);
  const H5Type *t = cairnH5ObjTypeOf(o);
  if (!s) return cairnErr(CAIRN_TYPE, "hdf5: %s is not a dataset or attribute", o->zPath);
  H5Sel hs;
  uint64_t n = 0, bytes;
  CAIRN_TRY(toSel(s, sel, &hs, &n, aShape, o->zPath));
  *pRank = s->rank;
  uint64_t extra;
  if (cairnMulOverflow64(n, t->size, &bytes) || cairnMulOverflow64(n, nPerElem, &extra) || bytes + extra < bytes)
    return cairnErr(CAIRN_LIMIT, "hdf5: selection of %llu elements of %s is too large", (unsigned long long)n, o->zPath);
  CAIRN_TRY(cairnH5Budget(&o->h->f, o->zPath, bytes + extra)); /* before the address-space check: the same message everywhere */
  if (bytes > SIZE_MAX) return cairnErr(CAIRN_LIMIT, "hdf5: selection of %llu elements of %s is too large", (unsigned long long)n, o->zPath);
  uint8_t *p = cairnMalloc(bytes ? (size_t)bytes : 1);
  if (!p) return cairnErr(CAIRN_NOMEM, "hdf5: out of memory for %llu bytes of %s", (unsigned long long)bytes, o->zPath);
  int rc;
  if (o->kind == CAIRN_H5_DATASET) rc = cairnH5DsetReadRaw(o->pD, sel ? &hs : NULL, p, (size_t)bytes);
  else {
    H5Dset d;
    memset(&d, 0, sizeof(d));
    d.f = &o->h->f;
    d.zPath = o->zPath;
    d.pType = o->attr.pType;
    d.space = o->attr.space;
    d.layout.cls = CAIRN_H5_COMPACT;
    d.layout.pCompact = o->attr.pData;
    d.layout.size = o->attr.nData;
    rc = cairnH5DsetReadRaw(&d, sel ? &hs : NULL, p, (size_t)bytes);
  }
  if (rc) {
    cairnFree(p);
    return rc;
  }
  *pp = p;
  *pn = n;
  return CAIRN_OK;
}

int cairn_h5_read(cairn_h5_obj *o, const cairn_h5_sel *sel, cairn_h5_mtype m, void *buf, size_t nBuf) {
  if (!o || (!buf && nBuf)) return cairnErr(CAIRN_MISUSE, "cairn_h5_read: NULL argument");
  if (!sel && o->kind == CAIRN_H5_DATASET && cairnH5ConvertIsCopy(o->pD->pType, m))
    return cairnH5DsetReadRaw(o->pD, NULL, buf, nBuf); /* all of it, as stored: no conversion (it checks nBuf) */
  const H5Space *s = cairnH5ObjSpace(o);
  const H5Type *t = cairnH5ObjTypeOf(o);
  if (!s) return cairnErr(CAIRN_TYPE, "hdf5: %s is not a dataset or attribute", o->zPath);
  H5Sel hs;
  uint64_t n = 0;
  CAIRN_TRY(toSel(s, sel, &hs, &n, NULL, o->zPath));
  size_t ms = m == CAIRN_H5_NATIVE ? t->size : cairn_h5_mtype_size(m);
  if (ms == 0) return cairnErr(CAIRN_MISUSE, "cairn_h5_read: memory type %d", (int)m);
  uint64_t need;
  if (cairnMulOverflow64(n, ms, &need) || need > nBuf)
    return cairnErr(CAIRN_RANGE, "hdf5: buffer of %zu bytes too small for %llu elements of %s", nBuf, (unsigned long long)n, o->zPath);
  CAIRN_TRY(cairnH5Budget(&o->h->f, o->zPath, need)); /* the caller's buffer (a raw copy, when converting, is counted with it) */
  if (m != CAIRN_H5_NATIVE) {
    const H5Type *b = t->cls == H5T_ENUM ? t->pBase : t;
    if (b->cls != H5T_FIXED && b->cls != H5T_FLOAT && b->cls != H5T_BITFIELD)
      return cairnErr(CAIRN_TYPE, "hdf5: %s has a non-numeric datatype (class %u): read it as NATIVE or JSON", o->zPath, t->cls);
  }
  /* Read straight into the caller's buffer when the element fits, convert in place. */
  if (ms >= t->size || m == CAIRN_H5_NATIVE) {
    uint64_t raw = n * t->size;
    int rc;
    if (o->kind == CAIRN_H5_DATASET) rc = cairnH5DsetReadRaw(o->pD, sel ? &hs : NULL, buf, (size_t)raw);
    else if (!sel && raw <= o->attr.nData) {
      memcpy(buf, o->attr.pData, (size_t)raw);
      rc = CAIRN_OK;
    } else {
      uint8_t *p;
      uint64_t nn, shape[H5_MAX_RANK];
      uint32_t r;
      rc = readRaw(o, sel, &p, &nn, shape, &r, 0);
      if (rc == CAIRN_OK) {
        memcpy(buf, p, (size_t)raw);
        cairnFree(p);
      }
    }
    if (rc) return rc;
    if (m == CAIRN_H5_NATIVE) {
      cairnH5ToNative(t, buf, n);
      return CAIRN_OK;
    }
    return cairnH5Convert(t, buf, n, m, buf);
  }
  uint8_t *p;
  uint64_t nn, shape[H5_MAX_RANK];
  uint32_t r;
  CAIRN_TRY(readRaw(o, sel, &p, &nn, shape, &r, ms));
  int rc = cairnH5Convert(t, p, n, m, buf);
  cairnFree(p);
  return rc;
}

int cairn_h5_raw_extent(cairn_h5_obj *o, cairn_h5_mtype m, uint64_t *pOff, uint64_t *pn) {
  if (!o || !pOff || !pn) return cairnErr(CAIRN_MISUSE, "cairn_h5_raw_extent: NULL argument");
  if (o->kind != CAIRN_H5_DATASET || m == CAIRN_H5_NATIVE) return CAIRN_NOTFOUND;
  H5Dset *d = o->pD;
  const H5Layout *l = &d->layout;
  const H5Type *t = d->pType, *b = t->cls == H5T_ENUM ? t->pBase : t;
  size_t ms = cairn_h5_mtype_size(m);
  if (ms == 0 || d->pEfl || d->space.kind != CAIRN_H5_SIMPLE || l->cls != CAIRN_H5_CONTIGUOUS || l->addr == H5_UNDEF) return CAIRN_NOTFOUND;
  if (!b || b->bigEndian || b->bitOffset || b->size != ms || (b->precision && b->precision != 8 * b->size)) return CAIRN_NOTFOUND;
  int isFloatM = m == CAIRN_H5_F32 || m == CAIRN_H5_F64;
  if (b->cls == H5T_FLOAT) {
    /* the IEEE layouts of 4 and 8 bytes (cairnH5Convert's own test decides the same) */
    if (!isFloatM || !(b->size == 4 ? b->expLoc == 23 && b->expSize == 8 && b->manSize == 23 && b->expBias == 127
                                    : b->expLoc == 52 && b->expSize == 11 && b->manSize == 52 && b->expBias == 1023) || b->manLoc)
      return CAIRN_NOTFOUND;
  } else if (b->cls == H5T_FIXED || b->cls == H5T_BITFIELD) {
    if (isFloatM) return CAIRN_NOTFOUND;
  } else {
    return CAIRN_NOTFOUND;
  }
  uint64_t n, abs;
  if (cairnMulOverflow64(d->space.nElem, ms, &n) || (l->size != UINT64_MAX && l->size < n)) return CAIRN_NOTFOUND;
  H5File *f = &o->h->f;
  if (cairnAddOverflow64(l->addr, f->base, &abs)) return CAIRN_NOTFOUND;
  CAIRN_TRY(cairnH5Reach(f, abs, n));
  if (abs > f->fileSize || n > f->fileSize - abs)
    return cairnErr(CAIRN_CORRUPT, "hdf5: data of %s (%llu bytes at address %llu) goes past the end of the file (%llu bytes)", o->zPath,
                    (unsigned long long)n, (unsigned long long)l->addr, (unsigned long long)f->fileSize);
  *pOff = abs;
  *pn = n;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- object reference paths */
static int buildAddrMap(cairn_h5 *h);
static const char *refPath(H5File *f, uint64_t addr) {
  cairn_h5 *h = (cairn_h5 *)((char *)f - offsetof(cairn_h5, f));
  if (!f->aAddrPath && buildAddrMap(h)) return NULL;
  for (size_t i = 0; i < f->nAddrPath; i++)
    if (f->aAddrPath[i].addr == addr) return f->aAddrPath[i].zPath;
  return NULL;
}

static int addPath(H5File *f, uint64_t addr, const char *z, size_t *pCap) {
  for (size_t i = 0; i < f->nAddrPath; i++)
    if (f->aAddrPath[i].addr == addr) return 1; /* seen: do not descend again */
  if (CAIRN_GROW(f->aAddrPath, *pCap, f->nAddrPath + 1, "hdf5: object reference paths")) return -1;
  f->aAddrPath[f->nAddrPath].addr = addr;
  f->aAddrPath[f->nAddrPath].zPath = cairnH5DupStr(z);
  if (!f->aAddrPath[f->nAddrPath].zPath) return -1;
  f->nAddrPath++;
  return 0;
}

static int walkMap(cairn_h5 *h, uint64_t addr, const char *zPath, size_t *pCap, int depth) {
  H5File *f = &h->f;
  if (depth > 64 || f->nAddrPath > 1000000) return CAIRN_OK;
  H5Ohdr o;
  CAIRN_TRY(cairnH5OhdrLoad(f, addr, &o));
  int kind = cairnH5ObjKind(&o);
  H5Link *a = NULL;
  size_t n = 0;
  int rc = kind == CAIRN_H5_GROUP ? cairnH5GroupLinks(f, &o, &a, &n) : CAIRN_OK;
  cairnH5OhdrFree(&o);
  for (size_t i = 0; rc == CAIRN_OK && i < n; i++) {
    if (a[i].type != CAIRN_H5_LINK_HARD) continue;
    size_t nz = strlen(zPath) + strlen(a[i].zName) + 2;
    char *z = cairnMalloc(nz);
    if (!z) {
      rc = cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
      break;
    }
    cairnFormat(z, nz, "%s/%s", strcmp(zPath, "/") == 0 ? "" : zPath, a[i].zName);
    int seen = addPath(f, a[i].addr, z, pCap);
    if (seen < 0) rc = cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
    else if (seen == 0) rc = walkMap(h, a[i].addr, z, pCap, depth + 1);
    cairnFree(z);
  }
  cairnH5LinksFree(a, n);
  return rc;
}

static int buildAddrMap(cairn_h5 *h) {
  size_t cap = 0;
  H5File *f = &h->f;
  if (addPath(f, f->rootAddr, "/", &cap) < 0) return CAIRN_NOMEM;
  return walkMap(h, f->rootAddr, "/", &cap, 0);
}

int cairn_h5_read_json(cairn_h5_obj *o, const cairn_h5_sel *sel, char **pz, size_t *pn) {
  if (!o || !pz) return cairnErr(CAIRN_MISUSE, "cairn_h5_read_json: NULL argument");
  *pz = NULL;
  uint8_t *p;
  uint64_t n, shape[H5_MAX_RANK];
  uint32_t r;
  CAIRN_TRY(readRaw(o, sel, &p, &n, shape, &r, 2)); /* and at least "0," per value of text */
  const H5Space *s = cairnH5ObjSpace(o);
  int rc;
  if (s->kind == CAIRN_H5_NULL) {
    rc = CAIRN_OK;
    *pz = cairnH5DupStr("null");
    if (!*pz) rc = cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
    else if (pn) *pn = 4;
  } else {
    rc = cairnH5Json(&o->h->f, cairnH5ObjTypeOf(o), p, r, shape, refPath, pz, pn);
  }
  cairnFree(p);
  return rc;
}

int cairn_h5_type_json(cairn_h5_obj *o, char **pz, size_t *pn) {
  if (!o || !pz) return cairnErr(CAIRN_MISUSE, "cairn_h5_type_json: NULL argument");
  const H5Type *t = cairnH5ObjTypeOf(o);
  if (!t) return cairnErr(CAIRN_TYPE, "hdf5: %s has no datatype", o->zPath);
  return cairnH5TypeJson(t, pz, pn);
}

/* ---------------------------------------------------------------- info as JSON */
int cairn_h5_info_json(cairn_h5_obj *o, char **pz, size_t *pn) {
  if (!o || !pz) return cairnErr(CAIRN_MISUSE, "cairn_h5_info_json: NULL argument");
  *pz = NULL;
  cairn_h5_info in;
  CAIRN_TRY(cairn_h5_info_get(o, &in));
  static const char *azKind[] = {"", "group", "dataset", "datatype", "attribute"};
  static const char *azLayout[] = {"compact", "contiguous", "chunked", "virtual"};
  static const char *azIdx[] = {"btree1", "single", "implicit", "farray", "earray", "btree2"};
  CairnSb s = {0};
  cairnSbStr(&s, "{\"kind\":\"");
  cairnSbStr(&s, in.kind >= 1 && in.kind <= 4 ? azKind[in.kind] : "");
  cairnSbStr(&s, "\",\"path\":");
  cairnSbJsonStr(&s, o->zPath, strlen(o->zPath), 1);
  if (o->kind != CAIRN_H5_ATTRIBUTE) {
    cairnSbStr(&s, ",\"addr\":");
    cairnSbU64(&s, in.addr);
  }
  const H5Space *sp = cairnH5ObjSpace(o);
  if (sp) {
    cairnSbStr(&s, in.space == CAIRN_H5_NULL ? ",\"shape\":null,\"maxshape\":null" : ",\"shape\":[");
    if (in.space != CAIRN_H5_NULL) {
      for (unsigned i = 0; i < in.rank; i++) {
        if (i) cairnSbStr(&s, ",");
        cairnSbU64(&s, in.dims[i]);
      }
      cairnSbStr(&s, "],\"maxshape\":[");
      for (unsigned i = 0; i < in.rank; i++) {
        if (i) cairnSbStr(&s, ",");
        if (in.maxdims[i] == UINT64_MAX) cairnSbStr(&s, "null");
        else cairnSbU64(&s, in.maxdims[i]);
      }
      cairnSbStr(&s, "]");
    }
  }
  const H5Type *t = cairnH5ObjTypeOf(o);
  if (t) {
    cairnSbStr(&s, ",\"type\":");
    cairnH5TypeJsonSb(&s, t);
  }
  if (o->kind == CAIRN_H5_DATASET) {
    cairnSbStr(&s, ",\"layout\":\"");
    cairnSbStr(&s, in.layout >= 0 && in.layout <= 3 ? azLayout[in.layout] : "");
    cairnSbStr(&s, "\"");
    if (in.layout == CAIRN_H5_CHUNKED) {
      cairnSbStr(&s, ",\"chunks\":[");
      for (unsigned i = 0; i < in.rank; i++) {
        if (i) cairnSbStr(&s, ",");
        cairnSbU64(&s, in.chunk[i]);
      }
      cairnSbStr(&s, "],\"chunkIndex\":\"");
      cairnSbStr(&s, in.chunkIndex >= 0 && in.chunkIndex <= 5 ? azIdx[in.chunkIndex] : "");
      cairnSbStr(&s, "\"");
    }
    cairnSbStr(&s, ",\"filters\":[");
    for (unsigned i = 0; i < in.nFilter; i++) {
      if (i) cairnSbStr(&s, ",");
      cairnSbStr(&s, "{\"id\":");
      cairnSbU64(&s, in.aFilter[i].id);
      cairnSbStr(&s, ",\"name\":");
      cairnSbJsonStr(&s, in.aFilter[i].zName, strlen(in.aFilter[i].zName), 1);
      cairnSbStr(&s, ",\"params\":[");
      for (unsigned k = 0; k < in.aFilter[i].nParam; k++) {
        if (k) cairnSbStr(&s, ",");
        cairnSbU64(&s, in.aFilter[i].aParam[k]);
      }
      cairnSbStr(&s, "]}");
    }
    cairnSbStr(&s, "]");
    if (o->pD->pEfl) {
      int rc = cairnH5DsetExternalJson(o->pD, &s);
      if (rc) return cairnSbDone(&s, rc, "info_json", pz, pn);
    }
  }
  if (o->kind != CAIRN_H5_ATTRIBUTE) {
    cairnSbStr(&s, ",\"attrs\":[");
    for (size_t i = 0; i < o->nAttr; i++) {
      if (i) cairnSbStr(&s, ",");
      cairnSbJsonStr(&s, o->aAttr[i].zName, strlen(o->aAttr[i].zName), 1);
    }
    cairnSbStr(&s, "]");
  }
  if (o->kind == CAIRN_H5_GROUP) {
    cairnSbStr(&s, ",\"links\":[");
    for (size_t i = 0; i < o->nLink; i++) {
      const H5Link *k = &o->aLink[i];
      if (i) cairnSbStr(&s, ",");
      cairnSbStr(&s, "{\"name\":");
      cairnSbJsonStr(&s, k->zName, strlen(k->zName), 1);
      cairnSbStr(&s, k->type == CAIRN_H5_LINK_HARD ? ",\"type\":\"hard\"" : k->type == CAIRN_H5_LINK_SOFT ? ",\"type\":\"soft\"" : ",\"type\":\"external\"");
      if (k->zTarget) {
        cairnSbStr(&s, ",\"target\":");
        cairnSbJsonStr(&s, k->zTarget, strlen(k->zTarget), 1);
      }
      if (k->zFile) {
        cairnSbStr(&s, ",\"file\":");
        cairnSbJsonStr(&s, k->zFile, strlen(k->zFile), 1);
      }
      cairnSbStr(&s, "}");
    }
    cairnSbStr(&s, "]");
  }
  cairnSbStr(&s, "}");
  return cairnSbDone(&s, CAIRN_OK, "hdf5: info JSON", pz, pn);
}
