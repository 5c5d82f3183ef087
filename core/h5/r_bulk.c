/*
** 2026-12-02
**
** core/h5/r_bulk.c - what bindings ask of an object in one crossing (cairn/h5.h): its
** description as one compact JSON text (cairn_h5_describe_json) and every attribute's name,
** shape, type and numeric values as one binary block (cairn_h5_attrs_block). The npm package
** (js/src/h5/state.js and h5/attrtable.js, through bindings/em/em_h5.c) read both; their bytes are what it expects, so
** a change here is a change there.
*/
#include "h5int.h"

/* ---------------------------------------------------------------- describe */
static void jsQuote(CairnSb *s, const char *z) {
  z = z ? z : "";
  cairnSbJsonStr(s, z, strlen(z), 1);
}
static void jsDims(CairnSb *s, unsigned n, const uint64_t *a, int bMax) {
  cairnSbPut(s, "[", 1);
  for (unsigned i = 0; i < n; i++) {
    if (i) cairnSbPut(s, ",", 1);
    if (bMax && a[i] == UINT64_MAX) cairnSbStr(s, "null");
    else cairnSbU64(s, a[i]);
  }
  cairnSbPut(s, "]", 1);
}

/* The layout of this text is documented at cairn_h5_describe_json (cairn/h5.h); js/src/h5/types.js
** reads it. */
int cairn_h5_describe_json(cairn_h5_obj *o, unsigned flags, char **pz, size_t *pn) {
  int bLinks = (flags & CAIRN_H5_DESCRIBE_LINKS) != 0, bAttrs = (flags & CAIRN_H5_DESCRIBE_ATTRS) != 0;
  cairn_h5_info in;
  int rc = cairn_h5_info_get(o, &in);
  if (rc) return rc;
  CairnSb s = {0};
  cairnSbStr(&s, "{\"kind\":");
  cairnSbU64(&s, (uint64_t)in.kind);
  cairnSbStr(&s, ",\"addr\":");
  cairnSbU64(&s, in.addr);
  if (in.kind == CAIRN_H5_DATASET || in.kind == CAIRN_H5_ATTRIBUTE) {
    cairnSbStr(&s, ",\"space\":");
    cairnSbU64(&s, (uint64_t)in.space);
    cairnSbStr(&s, ",\"shape\":");
    jsDims(&s, in.rank, in.dims, 0);
    cairnSbStr(&s, ",\"maxshape\":");
    jsDims(&s, in.rank, in.maxdims, 1);
  }
  if (in.kind != CAIRN_H5_GROUP) {
    char *zt;
    size_t nt;
    if ((rc = cairn_h5_type_json(o, &zt, &nt)) != CAIRN_OK) {
      cairnFree(s.z);
      return rc;
    }
    cairnSbStr(&s, ",\"type\":");
    cairnSbPut(&s, zt, nt);
    cairnFree(zt);
  }
  if (in.kind == CAIRN_H5_DATASET) {
    cairnSbStr(&s, ",\"layout\":");
    cairnSbU64(&s, (uint64_t)in.layout);
    cairnSbStr(&s, ",\"chunks\":");
    if (in.layout == CAIRN_H5_CHUNKED) jsDims(&s, in.rank, in.chunk, 0);
    else cairnSbStr(&s, "null");
    cairnSbStr(&s, ",\"chunkIndex\":");
    cairnSbU64(&s, in.layout == CAIRN_H5_CHUNKED ? (uint64_t)in.chunkIndex : 0);
    cairnSbStr(&s, ",\"filters\":[");
    for (unsigned i = 0; i < in.nFilter; i++) {
      const cairn_h5_filter *f = &in.aFilter[i];
      cairnSbStr(&s, i ? ",{\"id\":" : "{\"id\":");
      cairnSbU64(&s, f->id);
      cairnSbStr(&s, ",\"name\":");
      jsQuote(&s, f->zName);
      cairnSbStr(&s, ",\"flags\":");
      cairnSbU64(&s, f->flags);
      cairnSbStr(&s, ",\"cd_values\":[");
      for (unsigned k = 0; k < f->nParam; k++) {
        if (k) cairnSbPut(&s, ",", 1);
        cairnSbU64(&s, f->aParam[k]);
      }
      cairnSbStr(&s, "]}");
    }
    cairnSbStr(&s, "]");
  }
  if (in.kind != CAIRN_H5_ATTRIBUTE && bAttrs) {
    cairnSbStr(&s, ",\"attrs\":[");
    for (size_t i = 0; i < in.nAttr; i++) {
      const char *zName;
      if ((rc = cairn_h5_attr_name(o, i, &zName)) != CAIRN_OK) break;
      if (i) cairnSbPut(&s, ",", 1);
      jsQuote(&s, zName);
    }
    cairnSbStr(&s, "]");
  }
  if (in.kind == CAIRN_H5_GROUP && bLinks && rc == CAIRN_OK) {
    cairnSbStr(&s, ",\"links\":[");
    for (size_t i = 0; i < in.nLink; i++) {
      cairn_h5_link k;
      if ((rc = cairn_h5_link_get(o, i, &k)) != CAIRN_OK) break;
      cairnSbStr(&s, i ? ",{\"name\":" : "{\"name\":");
      jsQuote(&s, k.zName);
      cairnSbStr(&s, ",\"type\":");
      cairnSbU64(&s, (uint64_t)k.type);
      if (k.zTarget) {
        cairnSbStr(&s, ",\"target\":");
        jsQuote(&s, k.zTarget);
      }
      if (k.zFile) {
        cairnSbStr(&s, ",\"file\":");
        jsQuote(&s, k.zFile);
      }
      cairnSbStr(&s, "}");
    }
    cairnSbStr(&s, "]");
  }
  cairnSbStr(&s, "}");
  if (rc == CAIRN_OK && s.oom) rc = cairnErr(CAIRN_NOMEM, "out of memory describing %s", cairn_h5_obj_path(o));
  if (rc) {
    cairnFree(s.z);
    return rc;
  }
  *pz = s.z;
  *pn = s.n;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- attribute block
** The block's layout is documented at cairn_h5_attrs_block (cairn/h5.h). The memory type a
** numeric attribute's values are converted to: what read() in js/src/h5/state.js would ask for. */
static int attrMtype(const H5Type *t) {
  if (!t) return 255;
  const H5Type *b = t->cls == H5T_ENUM ? t->pBase : t;
  if (!b) return 255;
  if ((b->cls == H5T_FIXED || b->cls == H5T_BITFIELD) && b->size <= 8) {
    int w = b->size <= 1 ? 0 : b->size <= 2 ? 1 : b->size <= 4 ? 2 : 3;
    int sg = b->cls == H5T_FIXED && b->isSigned;
    return CAIRN_H5_I8 + 2 * w + (sg ? 0 : 1);
  }
  if (b->cls == H5T_FLOAT) return b->size == 4 || b->size == 2 ? CAIRN_H5_F32 : CAIRN_H5_F64;
  return 255;
}
static void sbU32(CairnSb *s, uint32_t v) {
  uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  cairnSbPut(s, (const char *)b, 4);
}
static void sbAlign8(CairnSb *s) {
  static const char z[8] = {0};
  if (s->n & 7) cairnSbPut(s, z, 8 - (s->n & 7));
}
#define ATTRS_MAX_VALUE (64u << 10)

/* Two atomic types whose JSON descriptions are the same text (every field it prints). */
static int sameAtomic(const H5Type *a, const H5Type *b) {
  if (a->cls != b->cls || (a->cls != H5T_FIXED && a->cls != H5T_FLOAT && a->cls != H5T_BITFIELD && a->cls != H5T_STRING)) return 0;
  return a->size == b->size && a->bits == b->bits && a->version == b->version && a->bigEndian == b->bigEndian && a->isSigned == b->isSigned &&
         a->bitOffset == b->bitOffset && a->precision == b->precision && a->expLoc == b->expLoc && a->expSize == b->expSize &&
         a->manLoc == b->manLoc && a->manSize == b->manSize && a->signLoc == b->signLoc && a->expBias == b->expBias &&
         a->strPad == b->strPad && a->cset == b->cset;
}

typedef struct AttrsArg {
  CairnSb names, types, recs, data;
  const H5Type *aType[64]; /* distinct atomic types seen (valid during the walk: see below) */
  uint32_t aTypeIdx[64], nAtomic;
  char **azType;           /* distinct JSON texts */
  uint32_t nType, capType;
  uint32_t nAttr; /* attributes listed (counted here, not by a strlen walk of names after) */
  int nomem;
  /* The last type seen (a reference, so the pointer stays unique), its index, memory type and
  ** whether its values copy as they are: attributes of one type usually share one decoded type
  ** (cairnH5TypeDecode's memo), so these are worked out once per run of them. */
  H5Type *pLast;
  uint32_t kLast;
  int mtLast, copyLast;
} AttrsArg;

static uint32_t attrsTypeFind(AttrsArg *g, const H5Type *t);
/* The type index of t: equal atomic types by their fields, others by their JSON text. The
** remembered H5Type pointers are compared only against types of the same walk; they may be
** freed after their attribute, so each entry keeps a private copy instead. */
static uint32_t attrsTypeIdx(AttrsArg *g, const H5Type *t) {
  if (t == g->pLast) return g->kLast;
  uint32_t k = attrsTypeFind(g, t);
  if (!g->nomem) {
    cairnH5TypeFree(g->pLast);
    g->pLast = cairnH5TypeRef((H5Type *)t);
    g->kLast = k;
    g->mtLast = attrMtype(t);
    g->copyLast = g->mtLast != 255 && cairnH5ConvertIsCopy(t, (cairn_h5_mtype)g->mtLast);
  }
  return k;
}
static uint32_t attrsTypeFind(AttrsArg *g, const H5Type *t) {
  for (uint32_t k = 0; k < g->nAtomic; k++)
    if (sameAtomic(g->aType[k], t)) return g->aTypeIdx[k];
  CairnSb js = {0};
  cairnH5TypeJsonSb(&js, t);
  if (js.oom) {
    g->nomem = 1;
    cairnFree(js.z);
    return 0;
  }
  uint32_t k = 0;
  while (k < g->nType && strcmp(g->azType[k], js.z) != 0) k++;
  if (k == g->nType) {
    if (CAIRN_GROW(g->azType, g->capType, g->nType + 1, "hdf5: attribute types")) {
      g->nomem = 1;
      cairnFree(js.z);
      return 0;
    }
    g->azType[g->nType++] = js.z;
    sbU32(&g->types, (uint32_t)js.n);
    cairnSbPut(&g->types, js.z, js.n);
    js.z = NULL;
  }
  cairnFree(js.z);
  if (g->nAtomic < 64 && sameAtomic(t, t)) {
    H5Type *c = cairnMalloc(sizeof(H5Type));
    if (c) {
      memcpy(c, t, sizeof(H5Type));
      c->nRef = 0, c->aMember = NULL, c->aEnumVal = NULL, c->pBase = NULL, c->zTag = NULL, c->nMember = 0;
      g->aType[g->nAtomic] = c;
      g->aTypeIdx[g->nAtomic++] = k;
    }
  }
  return k;
}

static int attrsVisit(void *pArg, size_t i, const H5AttrView *a) {
  AttrsArg *g = pArg;
  (void)i;
  size_t nName = strlen(a->zName) + 1;
  cairnSbReserve(&g->names, nName);
  if (g->names.oom) return cairnErr(CAIRN_NOMEM, "out of memory listing attributes");
  memcpy(g->names.z + g->names.n, a->zName, nName);
  g->names.n += nName;
  /* An attribute that does not decode gets type index ~0: JS reads it alone when asked, and
  ** reports its error then, as before this bulk path existed. */
  uint32_t k = 0xffffffffu, off = 0;
  uint64_t nBytes = 0;
  int mt = 255;
  const H5Space *sp = a->pSpace;
  unsigned rank = a->pType && sp->kind == CAIRN_H5_SIMPLE ? sp->rank : 0;
  if (a->pType) {
    k = attrsTypeIdx(g, a->pType);
    uint64_t nElem = sp->kind == CAIRN_H5_NULL ? 0 : sp->nElem;
    int bCopy = 0;
    if (a->pType == g->pLast) mt = g->mtLast, bCopy = g->copyLast;
    else mt = attrMtype(a->pType);
    if (mt != 255 && (nElem > ATTRS_MAX_VALUE || (nBytes = nElem * cairn_h5_mtype_size((cairn_h5_mtype)mt)) > ATTRS_MAX_VALUE ||
                      nElem * a->pType->size > a->nData || g->data.n + nBytes > (64u << 20)))
      mt = 255, nBytes = 0;
    sbAlign8(&g->data);
    off = (uint32_t)g->data.n;
    if (mt != 255 && nBytes) {
      cairnSbReserve(&g->data, (size_t)nBytes + 8);
      if (g->data.oom) return cairnErr(CAIRN_NOMEM, "out of memory reading attributes");
      if (bCopy) { /* nBytes = nElem * size, checked above to be inside the message */
        memcpy(g->data.z + g->data.n, a->pData, (size_t)nBytes);
        g->data.n += (size_t)nBytes;
      } else if (cairnH5Convert(a->pType, a->pData, nElem, (cairn_h5_mtype)mt, g->data.z + g->data.n) == CAIRN_OK) g->data.n += (size_t)nBytes;
      else mt = 255, nBytes = 0; /* read alone later, which reports the error */
    }
  }
  /* the record (16 bytes + 8 per dimension), written in place */
  cairnSbReserve(&g->recs, 16 + 8 * (size_t)rank);
  if (g->recs.oom) return cairnErr(CAIRN_NOMEM, "out of memory listing attributes");
  uint8_t *rec = (uint8_t *)g->recs.z + g->recs.n;
  cairnPutLE32(rec, k);
  rec[4] = (uint8_t)(a->pType ? sp->kind : 0), rec[5] = (uint8_t)rank, rec[6] = (uint8_t)mt, rec[7] = 0;
  cairnPutLE32(rec + 8, off);
  cairnPutLE32(rec + 12, (uint32_t)nBytes);
  for (unsigned r = 0; r < rank; r++) {
    double v = (double)sp->aDim[r];
    memcpy(rec + 16 + 8 * r, &v, 8);
  }
  g->recs.n += 16 + 8 * (size_t)rank;
  g->nAttr++;
  return g->nomem ? cairnErr(CAIRN_NOMEM, "out of memory listing attributes") : CAIRN_OK;
}

int cairn_h5_attrs_block(cairn_h5_obj *o, void **pp, size_t *pn) {
  AttrsArg g;
  memset(&g, 0, sizeof(g));
  /* room for 128 short-named scalar attributes, so the usual object grows none of them */
  cairnSbReserve(&g.names, 2048);
  cairnSbReserve(&g.recs, 2048);
  cairnSbReserve(&g.data, 1024);
  int rc = cairnH5ObjAttrEach(o, attrsVisit, &g);
  uint32_t nA = g.nAttr;
  for (uint32_t k = 0; k < g.nType; k++) cairnFree(g.azType[k]);
  cairnFree(g.azType);
  for (uint32_t k = 0; k < g.nAtomic; k++) cairnFree((void *)g.aType[k]);
  cairnH5TypeFree(g.pLast);
  CairnSb out = {0};
  if (rc == CAIRN_OK) {
    uint32_t offNames = 32, offTypes = offNames + (uint32_t)g.names.n;
    uint32_t offRecs = (offTypes + (uint32_t)g.types.n + 7) & ~7u, offData = (offRecs + (uint32_t)g.recs.n + 7) & ~7u;
    uint32_t total = offData + (uint32_t)g.data.n;
    uint32_t hd[8] = {nA, g.nType, offNames, offTypes, offRecs, offData, total, 0};
    cairnSbReserve(&out, total);
    for (int k = 0; k < 8; k++) sbU32(&out, hd[k]);
    cairnSbPut(&out, g.names.z, g.names.n);
    cairnSbPut(&out, g.types.z, g.types.n);
    sbAlign8(&out);
    cairnSbPut(&out, g.recs.z, g.recs.n);
    sbAlign8(&out);
    cairnSbPut(&out, g.data.z, g.data.n);
    if (out.oom || g.names.oom || g.types.oom || g.recs.oom || g.data.oom) rc = cairnErr(CAIRN_NOMEM, "out of memory listing attributes of %s", cairn_h5_obj_path(o));
  }
  cairnFree(g.names.z);
  cairnFree(g.types.z);
  cairnFree(g.recs.z);
  cairnFree(g.data.z);
  if (rc) {
    cairnFree(out.z);
    return rc;
  }
  *pp = out.z;
  *pn = out.n;
  return CAIRN_OK;
}

