/*
** 2026-11-29
**
** core/h5/r_msg.c - decoders for the object header messages a reader needs: datatype (v1-v3,
** every class but time), dataspace (v1, v2), data layout (v1-v4), filter pipeline (v1, v2),
** fill value (old and v1-v3), attribute (v1-v3), and shared messages (in another object
** header, i.e. committed datatypes, or in the SOHM fractal heap).
*/
#include "h5int.h"

#define BAD(c, what) cairnErr(CAIRN_CORRUPT, "hdf5: %s at offset %llu", what, (unsigned long long)cairnH5Off(c))

/* ---------------------------------------------------------------- datatypes */
void cairnH5TypeRelease(H5Type *t) {
  if (t->nRef) {
    t->nRef--;
    return;
  }
  if (t->aMember) { /* the parts only some classes have (an atomic type has none) */
    for (uint32_t i = 0; i < t->nMember; i++) {
      cairnFree(t->aMember[i].zName);
      cairnH5TypeFree(t->aMember[i].pType);
    }
    cairnFree(t->aMember);
  }
  cairnFree(t->aEnumVal);
  cairnH5TypeFree(t->pBase);
  cairnFree(t->zTag);
  if (!t->inPlace) cairnFree(t);
}

static char *dupStr(const uint8_t *p, size_t n);

H5Type *cairnH5TypeDup(const H5Type *t) {
  if (!t) return NULL;
  H5Type *r = cairnMalloc(sizeof(H5Type));
  if (!r) return NULL;
  *r = *t;
  r->nRef = 0;
  r->inPlace = 0;
  r->aMember = NULL;
  r->aEnumVal = NULL;
  r->pBase = NULL;
  r->zTag = NULL;
  uint32_t n = t->nMember;
  r->nMember = 0;
  int ok = 1;
  if (t->aMember) {
    r->aMember = cairnMallocZero((n ? n : 1) * sizeof(H5Member));
    ok = r->aMember != NULL;
    for (uint32_t i = 0; ok && i < n; i++) {
      r->nMember = i + 1;
      r->aMember[i].offset = t->aMember[i].offset;
      r->aMember[i].zName = dupStr((const uint8_t *)t->aMember[i].zName, strlen(t->aMember[i].zName));
      ok = r->aMember[i].zName != NULL;
      if (ok && t->aMember[i].pType) ok = (r->aMember[i].pType = cairnH5TypeDup(t->aMember[i].pType)) != NULL;
    }
    r->nMember = n;
  }
  if (ok && t->aEnumVal) {
    size_t nv = (size_t)n * t->size;
    r->aEnumVal = cairnMalloc(nv ? nv : 1);
    if ((ok = r->aEnumVal != NULL)) memcpy(r->aEnumVal, t->aEnumVal, nv);
  }
  if (ok && t->pBase) ok = (r->pBase = cairnH5TypeDup(t->pBase)) != NULL;
  if (ok && t->zTag) ok = (r->zTag = dupStr((const uint8_t *)t->zTag, strlen(t->zTag))) != NULL;
  if (!ok) {
    cairnH5TypeFree(r);
    return NULL;
  }
  return r;
}

static char *dupStr(const uint8_t *p, size_t n) {
  char *z = cairnMalloc(n + 1);
  if (z) {
    memcpy(z, p, n);
    z[n] = 0;
  }
  return z;
}

/* A NUL-terminated name at c; advance past it and its padding to a multiple of 8 if pad8. */
static int readName(H5Cur *c, int pad8, char **pz) {
  const uint8_t *q = c->p;
  while (q < c->end && *q) q++;
  if (q >= c->end) return BAD(c, "unterminated name in datatype");
  size_t n = (size_t)(q - c->p);
  *pz = dupStr(c->p, n);
  if (!*pz) return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
  size_t adv = n + 1;
  if (pad8) adv = (adv + 7) & ~(size_t)7;
  if ((size_t)(c->end - c->p) < adv) adv = (size_t)(c->end - c->p);
  c->p += adv;
  return CAIRN_OK;
}

static int typeDecode(H5File *f, H5Cur *c, int depth, H5Type **pp, H5Type *pInto);

static int typeArrayOf(H5Type *base, uint32_t rank, const uint32_t *aDim, H5Type **pp) {
  H5Type *t = cairnMallocZero(sizeof(H5Type));
  if (!t) {
    cairnH5TypeFree(base);
    return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
  }
  t->cls = H5T_ARRAY;
  t->version = 2;
  t->rank = rank;
  uint64_t n = base->size;
  for (uint32_t i = 0; i < rank; i++) {
    t->aDim[i] = aDim[i];
    n *= aDim[i];
  }
  t->pBase = base;
  if (n > 0xffffffffu) {
    cairnH5TypeFree(t);
    return cairnErr(CAIRN_CORRUPT, "hdf5: array datatype of %llu bytes", (unsigned long long)n);
  }
  t->size = (uint32_t)n;
  *pp = t;
  return CAIRN_OK;
}

/* pInto: the top-level struct's memory (zeroed here, marked inPlace), else allocated */
static int typeDecode(H5File *f, H5Cur *c, int depth, H5Type **pp, H5Type *pInto) {
  *pp = NULL;
  if (depth > H5_MAX_TYPE_DEPTH) return BAD(c, "datatype nested too deeply");
  uint64_t at = cairnH5Off(c);
  if ((size_t)(c->end - c->p) < 8) {
    cairnH5Skip(c, 8); /* the error, at the datatype's start */
    return BAD(c, "truncated datatype");
  }
  uint8_t b0 = c->p[0];
  uint32_t bits = (uint32_t)c->p[1] | (uint32_t)c->p[2] << 8 | (uint32_t)c->p[3] << 16;
  uint32_t size = cairnGetLE32(c->p + 4);
  c->p += 8;
  H5Type *t = pInto;
  if (t) { /* all but the array dimensions (set up to the rank, which the array class reads) */
    memset(t, 0, offsetof(H5Type, aDim));
    t->inPlace = 1;
  } else if (!(t = cairnMallocZero(sizeof(H5Type)))) {
    return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
  }
  t->cls = b0 & 15;
  t->version = b0 >> 4;
  t->bits = bits;
  t->size = size;
  int rc = CAIRN_OK;
  if (t->version < 1 || t->version > 4) {
    rc = cairnErr(CAIRN_UNSUPPORTED, "hdf5: datatype version %u at offset %llu", t->version, (unsigned long long)at);
    goto done;
  }
  switch (t->cls) {
    case H5T_FIXED:
    case H5T_BITFIELD:
      t->bigEndian = bits & 1;
      t->isSigned = (bits >> 3) & 1;
      if ((size_t)(c->end - c->p) >= 4) { /* the usual case: one bounds check */
        t->bitOffset = cairnGetLE16(c->p);
        t->precision = cairnGetLE16(c->p + 2);
        c->p += 4;
      } else {
        t->bitOffset = (uint16_t)cairnH5U(c, 2);
        t->precision = (uint16_t)cairnH5U(c, 2);
      }
      if (size == 0 || size > 16) rc = cairnErr(CAIRN_UNSUPPORTED, "hdf5: %u-byte integer at offset %llu", size, (unsigned long long)at);
      break;
    case H5T_FLOAT:
      t->bigEndian = (bits & 1) | ((bits >> 5) & 2); /* 2 or 3 = VAX order */
      t->signLoc = (uint8_t)(bits >> 8);
      t->isSigned = 1;
      if ((size_t)(c->end - c->p) >= 12) { /* the usual case: one bounds check */
        const uint8_t *q = c->p;
        t->bitOffset = cairnGetLE16(q);
        t->precision = cairnGetLE16(q + 2);
        t->expLoc = q[4];
        t->expSize = q[5];
        t->manLoc = q[6];
        t->manSize = q[7];
        t->expBias = cairnGetLE32(q + 8);
        c->p += 12;
      } else { /* truncated: the fields that fit, and the cursor's error at the first that does not */
        t->bitOffset = (uint16_t)cairnH5U(c, 2);
        t->precision = (uint16_t)cairnH5U(c, 2);
        t->expLoc = cairnH5U8(c);
        t->expSize = cairnH5U8(c);
        t->manLoc = cairnH5U8(c);
        t->manSize = cairnH5U8(c);
        t->expBias = (uint32_t)cairnH5U(c, 4);
      }
      if (t->bigEndian > 1) rc = cairnErr(CAIRN_UNSUPPORTED, "hdf5: VAX float byte order at offset %llu", (unsigned long long)at);
      break;
    case H5T_TIME:
      cairnH5U(c, 2);
      break;
    case H5T_STRING:
      t->strPad = bits & 15;
      t->cset = (bits >> 4) & 15;
      break;
    case H5T_OPAQUE: {
      size_t n = bits & 0xff;
      if (!cairnH5Has(c, n)) break;
      const uint8_t *q = c->p;
      size_t k = 0;
      while (k < n && q[k]) k++;
      t->zTag = dupStr(q, k);
      if (!t->zTag) rc = cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
      c->p += n;
      break;
    }
    case H5T_COMPOUND: {
      uint32_t n = bits & 0xffff;
      t->aMember = cairnMallocZero((n ? n : 1) * sizeof(H5Member));
      if (!t->aMember) {
        rc = cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
        break;
      }
      unsigned offBytes = 4;
      if (t->version >= 3) {
        offBytes = 1;
        while (offBytes < 4 && (size >> (8 * offBytes)) != 0) offBytes++;
      }
      for (uint32_t i = 0; i < n && rc == CAIRN_OK; i++) {
        H5Member *m = &t->aMember[i];
        t->nMember = i + 1;
        if ((rc = readName(c, t->version < 3, &m->zName))) break;
        m->offset = (uint32_t)cairnH5U(c, offBytes);
        uint32_t arank = 0, adim[4] = {0, 0, 0, 0};
        if (t->version == 1) {
          arank = cairnH5U8(c);
          cairnH5Skip(c, 3 + 4 + 4);
          for (int k = 0; k < 4; k++) adim[k] = (uint32_t)cairnH5U(c, 4);
          if (arank > 4) {
            rc = BAD(c, "compound member with more than 4 dimensions");
            break;
          }
        }
        if (c->bad) break;
        if ((rc = typeDecode(f, c, depth + 1, &m->pType, NULL))) break;
        if (arank) rc = typeArrayOf(m->pType, arank, adim, &m->pType);
        if (rc == CAIRN_OK && ((uint64_t)m->offset + m->pType->size > size))
          rc = cairnErr(CAIRN_CORRUPT, "hdf5: compound member '%s' (offset %u, %u bytes) outside its %u-byte type at offset %llu",
                        m->zName, m->offset, m->pType->size, size, (unsigned long long)at);
      }
      break;
    }
    case H5T_REFERENCE:
      t->refKind = bits & 15;
      if (t->version >= 4) rc = cairnErr(CAIRN_UNSUPPORTED, "hdf5: version 4 reference datatype at offset %llu", (unsigned long long)at);
      break;
    case H5T_ENUM: {
      uint32_t n = bits & 0xffff;
      if ((rc = typeDecode(f, c, depth + 1, &t->pBase, NULL))) break;
      if (t->pBase->cls != H5T_FIXED || t->pBase->size != size) {
        rc = cairnErr(CAIRN_CORRUPT, "hdf5: enum at offset %llu has a non-integer base type", (unsigned long long)at);
        break;
      }
      t->aMember = cairnMallocZero((n ? n : 1) * sizeof(H5Member));
      if (!t->aMember) {
        rc = cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
        break;
      }
      for (uint32_t i = 0; i < n && rc == CAIRN_OK; i++) {
        t->nMember = i + 1;
        rc = readName(c, t->version < 3, &t->aMember[i].zName);
      }
      if (rc) break;
      size_t nv = (size_t)n * size;
      if (!cairnH5Has(c, nv)) break;
      t->aEnumVal = cairnMalloc(nv ? nv : 1);
      if (!t->aEnumVal) {
        rc = cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
        break;
      }
      memcpy(t->aEnumVal, c->p, nv);
      c->p += nv;
      break;
    }
    case H5T_VLEN:
      t->vlenKind = bits & 15;
      t->strPad = (bits >> 4) & 15;
      t->cset = (bits >> 8) & 15;
      rc = typeDecode(f, c, depth + 1, &t->pBase, NULL);
      break;
    case H5T_ARRAY: {
      t->rank = cairnH5U8(c);
      if (t->rank == 0 || t->rank > H5_MAX_RANK) {
        rc = BAD(c, "array datatype rank");
        break;
      }
      if (t->version < 3) cairnH5Skip(c, 3);
      for (uint32_t i = 0; i < t->rank; i++) t->aDim[i] = (uint32_t)cairnH5U(c, 4);
      if (t->version < 3) cairnH5Skip(c, 4 * (size_t)t->rank);
      if (c->bad) break;
      rc = typeDecode(f, c, depth + 1, &t->pBase, NULL);
      break;
    }
    default:
      rc = cairnErr(CAIRN_UNSUPPORTED, "hdf5: datatype class %u at offset %llu", t->cls, (unsigned long long)at);
  }
  if (rc == CAIRN_OK && c->bad) rc = BAD(c, "truncated datatype");
  /* The declared size must agree with the structure, since values are addressed by it. */
  if (rc == CAIRN_OK) {
    uint64_t want = 0;
    if (t->cls == H5T_ARRAY) {
      want = t->pBase->size;
      for (uint32_t i = 0; i < t->rank; i++) want *= t->aDim[i];
      if (want > 0xffffffffu) want = 0xffffffffu + (uint64_t)1;
    } else if (t->cls == H5T_VLEN) {
      want = 4 + (uint64_t)f->so + 4;
    } else if (t->cls == H5T_REFERENCE && t->refKind == 0) {
      want = size >= f->so ? size : f->so;
    } else {
      want = size;
    }
    if (want != size)
      rc = cairnErr(CAIRN_CORRUPT, "hdf5: datatype of class %u at offset %llu declares %u bytes, its structure needs %llu", t->cls,
                    (unsigned long long)at, size, (unsigned long long)want);
  }
done:
  if (rc) {
    cairnH5TypeFree(t);
    return rc;
  }
  *pp = t;
  return CAIRN_OK;
}

/* A type decoded before from the same message bytes (n <= H5_TYPE_MEMO_KEY), or NULL. */
static H5Type *typeMemoFind(H5File *f, const uint8_t *p, size_t n) {
  for (unsigned k = 0; k < CAIRN_ARRAY_SIZE(f->aTypeMemo); k++)
    if (f->aTypeMemo[k].t && f->aTypeMemo[k].n == n && memcmp(f->aTypeMemo[k].key, p, n) == 0) return f->aTypeMemo[k].t;
  return NULL;
}

int cairnH5TypeDecode(H5File *f, const uint8_t *p, size_t n, uint64_t addr, int depth, H5Type **pp, size_t *pn) {
  /* The same bytes decode to the same type (the file's offset size is fixed), so objects with
  ** many attributes or datasets of one type skip the decode and its allocation. pn callers need
  ** the consumed length, which the memo does not keep. */
  int memo = depth == 0 && !pn && n <= H5_TYPE_MEMO_KEY;
  H5Type *t = memo ? typeMemoFind(f, p, n) : NULL;
  if (t) {
    *pp = cairnH5TypeRef(t);
    return CAIRN_OK;
  }
  H5Cur c;
  cairnH5Cur(&c, p, n, addr);
  CAIRN_TRY(typeDecode(f, &c, depth, pp, NULL));
  if (pn) *pn = (size_t)(c.p - c.start);
  if (memo) {
    unsigned k = f->iTypeMemo++ % CAIRN_ARRAY_SIZE(f->aTypeMemo);
    cairnH5TypeFree(f->aTypeMemo[k].t);
    f->aTypeMemo[k].t = cairnH5TypeRef(*pp);
    f->aTypeMemo[k].n = (uint32_t)n;
    memcpy(f->aTypeMemo[k].key, p, n);
  }
  return CAIRN_OK;
}

int cairnH5TypeDecodeIn(H5File *f, const uint8_t *p, size_t n, uint64_t addr, H5Type *pInto, H5Type **pp) {
  H5Type *t = n <= H5_TYPE_MEMO_KEY ? typeMemoFind(f, p, n) : NULL;
  if (t) {
    *pp = cairnH5TypeRef(t);
    return CAIRN_OK;
  }
  H5Cur c;
  cairnH5Cur(&c, p, n, addr);
  return typeDecode(f, &c, 0, pp, pInto);
}

/* ---------------------------------------------------------------- dataspace */
/* Sets kind, rank, nElem and the first rank entries of aDim and aMax (nobody reads past the
** rank: zeroing the ~530-byte struct cost more than the rest of the decode). */
int cairnH5SpaceDecode(const uint8_t *p, size_t n, uint64_t addr, H5File *f, H5Space *s) {
  H5Cur c;
  cairnH5Cur(&c, p, n, addr);
  s->kind = 0, s->rank = 0, s->nElem = 0;
  uint8_t v = cairnH5U8(&c), rank = cairnH5U8(&c), flags = cairnH5U8(&c);
  if (v == 1) {
    cairnH5Skip(&c, 5);
    s->kind = rank ? CAIRN_H5_SIMPLE : CAIRN_H5_SCALAR;
  } else if (v == 2) {
    uint8_t type = cairnH5U8(&c);
    if (type > 2) return cairnErr(CAIRN_CORRUPT, "hdf5: dataspace type %u at offset %llu", type, (unsigned long long)addr);
    s->kind = type == 0 ? CAIRN_H5_SCALAR : type == 1 ? CAIRN_H5_SIMPLE : CAIRN_H5_NULL;
  } else {
    return cairnErr(CAIRN_UNSUPPORTED, "hdf5: dataspace version %u at offset %llu", v, (unsigned long long)addr);
  }
  if (rank > H5_MAX_RANK) return cairnErr(CAIRN_CORRUPT, "hdf5: dataspace rank %u at offset %llu", rank, (unsigned long long)addr);
  if (s->kind != CAIRN_H5_SIMPLE) rank = 0;
  s->rank = rank;
  /* the dimensions, then the maxima if flagged: one bounds check for all of them */
  unsigned sl = f->sl;
  size_t need = (size_t)rank * sl * ((flags & 1) ? 2 : 1);
  if (c.bad || (size_t)(c.end - c.p) < need) return cairnErr(CAIRN_CORRUPT, "hdf5: truncated dataspace at offset %llu", (unsigned long long)addr);
  const uint8_t *q = c.p;
  uint64_t allOnes = sl < 8 ? ((uint64_t)1 << (8 * sl)) - 1 : H5_UNDEF; /* unlimited */
  uint64_t nElem = s->kind == CAIRN_H5_NULL ? 0 : 1;
  int over = 0;
  for (uint32_t i = 0; i < rank; i++) {
    uint64_t d = cairnGetLEn(q + (size_t)i * sl, sl);
    uint64_t mx = (flags & 1) ? cairnGetLEn(q + (size_t)(rank + i) * sl, sl) : d;
    s->aDim[i] = d;
    s->aMax[i] = mx == allOnes ? H5_UNDEF : mx;
    over |= cairnMulOverflow64(nElem, d, &nElem);
  }
  if (over) return cairnErr(CAIRN_CORRUPT, "hdf5: dataspace at offset %llu has too many elements", (unsigned long long)addr);
  s->nElem = nElem;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- layout */
int cairnH5LayoutDecode(H5File *f, const uint8_t *p, size_t n, uint64_t addr, const H5Space *s, H5Layout *l) {
  memset(l, 0, offsetof(H5Layout, aChunk)); /* aChunk: set up to the rank below */
  if (n >= 18 && (p[0] == 3 || p[0] == 4) && p[1] == CAIRN_H5_CONTIGUOUS && f->so == 8 && f->sl == 8) {
    /* the usual small dataset: version 3/4 contiguous with 8-byte address and size, read as
    ** the general path below reads it (an all-ones address is H5_UNDEF as it is) */
    l->version = p[0];
    l->cls = CAIRN_H5_CONTIGUOUS;
    l->addr = cairnGetLE64(p + 2);
    l->size = cairnGetLE64(p + 10);
    return CAIRN_OK;
  }
  H5Cur c;
  cairnH5Cur(&c, p, n, addr);
  l->version = cairnH5U8(&c);
  l->addr = H5_UNDEF;
  if (l->version == 1 || l->version == 2) {
    uint32_t rank = cairnH5U8(&c);
    l->cls = cairnH5U8(&c);
    cairnH5Skip(&c, 5);
    if (l->cls != 0) l->addr = cairnH5Addr(f, &c);
    if (rank == 0 || rank > H5_MAX_RANK + 1) return cairnErr(CAIRN_CORRUPT, "hdf5: layout rank %u at offset %llu", rank, (unsigned long long)addr);
    uint64_t d[H5_MAX_RANK + 1];
    for (uint32_t i = 0; i < rank; i++) d[i] = cairnH5U(&c, 4);
    if (l->cls == CAIRN_H5_CHUNKED) {
      l->rank = rank - 1;
      for (uint32_t i = 0; i + 1 < rank; i++) l->aChunk[i] = d[i];
      l->elemSize = (uint32_t)cairnH5U(&c, 4);
      if (s && l->rank != s->rank)
        return cairnErr(CAIRN_CORRUPT, "hdf5: chunk rank %u differs from dataspace rank %u at offset %llu", l->rank, s->rank, (unsigned long long)addr);
    } else if (l->cls == CAIRN_H5_COMPACT) {
      l->size = cairnH5U(&c, 4);
      if (!cairnH5Has(&c, (size_t)l->size)) return cairnErr(CAIRN_CORRUPT, "hdf5: compact data overruns layout at offset %llu", (unsigned long long)addr);
      l->pCompact = c.p;
    } else {
      l->size = UINT64_MAX; /* computed from the dataspace by the caller */
    }
  } else if (l->version == 3 || l->version == 4) {
    l->cls = cairnH5U8(&c);
    if (l->cls == CAIRN_H5_COMPACT) {
      l->size = cairnH5U(&c, 2);
      if (!cairnH5Has(&c, (size_t)l->size)) return cairnErr(CAIRN_CORRUPT, "hdf5: compact data overruns layout at offset %llu", (unsigned long long)addr);
      l->pCompact = c.p;
    } else if (l->cls == CAIRN_H5_CONTIGUOUS) {
      l->addr = cairnH5Addr(f, &c);
      l->size = cairnH5Len(f, &c);
    } else if (l->cls == CAIRN_H5_CHUNKED) {
      if (l->version == 3) {
        uint32_t rank = cairnH5U8(&c);
        if (rank < 2 || rank > H5_MAX_RANK + 1) return cairnErr(CAIRN_CORRUPT, "hdf5: chunk rank %u at offset %llu", rank, (unsigned long long)addr);
        l->addr = cairnH5Addr(f, &c);
        l->rank = rank - 1;
        for (uint32_t i = 0; i < l->rank; i++) l->aChunk[i] = cairnH5U(&c, 4);
        l->elemSize = (uint32_t)cairnH5U(&c, 4);
        l->idx = H5IDX_BTREE1;
      } else {
        l->flags = cairnH5U8(&c);
        uint32_t rank = cairnH5U8(&c);
        uint32_t enc = cairnH5U8(&c);
        if (rank < 2 || rank > H5_MAX_RANK + 1 || enc < 1 || enc > 8)
          return cairnErr(CAIRN_CORRUPT, "hdf5: chunk rank %u / size %u at offset %llu", rank, enc, (unsigned long long)addr);
        l->rank = rank - 1;
        for (uint32_t i = 0; i < l->rank; i++) l->aChunk[i] = cairnH5U(&c, enc);
        l->elemSize = (uint32_t)cairnH5U(&c, enc);
        l->idx = cairnH5U8(&c);
        switch (l->idx) {
          case H5IDX_SINGLE:
            if (l->flags & 2) {
              l->singleSize = cairnH5Len(f, &c);
              l->singleMask = (uint32_t)cairnH5U(&c, 4);
            }
            break;
          case H5IDX_IMPLICIT: break;
          case H5IDX_FARRAY: l->faPageBits = cairnH5U8(&c); break;
          case H5IDX_EARRAY:
            l->eaMaxBits = cairnH5U8(&c);
            l->eaIdxElem = cairnH5U8(&c);
            l->eaMinPtr = cairnH5U8(&c);
            l->eaMinElem = cairnH5U8(&c);
            l->eaPageBits = cairnH5U8(&c);
            break;
          case H5IDX_BTREE2:
            l->bt2NodeSize = (uint32_t)cairnH5U(&c, 4);
            l->bt2Split = cairnH5U8(&c);
            l->bt2Merge = cairnH5U8(&c);
            break;
          default:
            return cairnErr(CAIRN_UNSUPPORTED, "hdf5: chunk index type %u at offset %llu", l->idx, (unsigned long long)addr);
        }
        l->addr = cairnH5Addr(f, &c);
      }
      if (s && l->rank != s->rank)
        return cairnErr(CAIRN_CORRUPT, "hdf5: chunk rank %u differs from dataspace rank %u at offset %llu", l->rank, s->rank, (unsigned long long)addr);
      for (uint32_t i = 0; i < l->rank; i++)
        if (l->aChunk[i] == 0) return cairnErr(CAIRN_CORRUPT, "hdf5: zero chunk dimension at offset %llu", (unsigned long long)addr);
    } else if (l->cls == CAIRN_H5_VIRTUAL) {
      /* mapping in the global heap: reported as unsupported on read */
    } else {
      return cairnErr(CAIRN_CORRUPT, "hdf5: layout class %u at offset %llu", l->cls, (unsigned long long)addr);
    }
  } else {
    return cairnErr(CAIRN_UNSUPPORTED, "hdf5: layout message version %u at offset %llu", l->version, (unsigned long long)addr);
  }
  if (c.bad) return cairnErr(CAIRN_CORRUPT, "hdf5: truncated layout message at offset %llu", (unsigned long long)addr);
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- filter pipeline */
int cairnH5PipelineDecode(const uint8_t *p, size_t n, uint64_t addr, H5Pipeline *pl) {
  H5Cur c;
  cairnH5Cur(&c, p, n, addr);
  memset(pl, 0, sizeof(*pl));
  uint8_t v = cairnH5U8(&c), nf = cairnH5U8(&c);
  if (v != 1 && v != 2) return cairnErr(CAIRN_UNSUPPORTED, "hdf5: filter pipeline version %u at offset %llu", v, (unsigned long long)addr);
  if (nf > H5_MAX_FILTERS) return cairnErr(CAIRN_CORRUPT, "hdf5: %u filters at offset %llu", nf, (unsigned long long)addr);
  if (v == 1) cairnH5Skip(&c, 6);
  for (uint32_t i = 0; i < nf; i++) {
    H5Filter *fl = &pl->a[i];
    fl->id = (uint16_t)cairnH5U(&c, 2);
    uint32_t nameLen = (v == 1 || fl->id >= 256) ? (uint32_t)cairnH5U(&c, 2) : 0;
    fl->flags = (uint16_t)cairnH5U(&c, 2);
    fl->nParam = (uint32_t)cairnH5U(&c, 2);
    if (nameLen) {
      if (!cairnH5Has(&c, nameLen)) break;
      size_t k = 0;
      while (k < nameLen && k + 1 < sizeof(fl->zName) && c.p[k]) {
        fl->zName[k] = (char)c.p[k];
        k++;
      }
      fl->zName[k] = 0;
      c.p += (v == 1) ? ((nameLen + 7) & ~7u) : nameLen;
    }
    for (uint32_t k = 0; k < fl->nParam; k++) {
      uint32_t x = (uint32_t)cairnH5U(&c, 4);
      if (k < CAIRN_ARRAY_SIZE(fl->aParam)) fl->aParam[k] = x;
    }
    if (v == 1 && (fl->nParam & 1)) cairnH5Skip(&c, 4);
    if (c.bad) break;
    pl->n = i + 1;
  }
  if (c.bad) return cairnErr(CAIRN_CORRUPT, "hdf5: truncated filter pipeline at offset %llu", (unsigned long long)addr);
  if (v == 1 && c.p > c.end) return CAIRN_OK;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- fill value */
int cairnH5FillDecode(uint16_t type, const uint8_t *p, size_t n, uint64_t addr, H5Fill *fv) {
  H5Cur c;
  cairnH5Cur(&c, p, n, addr);
  memset(fv, 0, sizeof(*fv));
  if (type == 4) {
    fv->size = (uint32_t)cairnH5U(&c, 4);
    fv->defined = fv->size > 0;
  } else {
    uint8_t v = cairnH5U8(&c);
    if (v == 1 || v == 2) {
      fv->allocTime = cairnH5U8(&c);
      fv->writeTime = cairnH5U8(&c);
      uint8_t def = cairnH5U8(&c);
      if (v == 1 || def) {
        fv->size = (uint32_t)cairnH5U(&c, 4);
        fv->defined = fv->size > 0;
      }
    } else if (v == 3) {
      uint8_t fl = cairnH5U8(&c);
      fv->allocTime = fl & 3;
      fv->writeTime = (fl >> 2) & 3;
      if (fl & 0x20) {
        fv->size = (uint32_t)cairnH5U(&c, 4);
        fv->defined = fv->size > 0;
      }
    } else {
      return cairnErr(CAIRN_UNSUPPORTED, "hdf5: fill value message version %u at offset %llu", v, (unsigned long long)addr);
    }
  }
  if (c.bad || !cairnH5Has(&c, fv->size)) return cairnErr(CAIRN_CORRUPT, "hdf5: truncated fill value at offset %llu", (unsigned long long)addr);
  fv->p = c.p;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- shared messages */
/* The SOHM index's message type flags have bit N set for message type N. */
static int sohmBit(uint16_t type) { return type < 16 ? (int)type : -1; }

int cairnH5MsgResolve(H5File *f, const H5Msg *m, const uint8_t **pp, size_t *pn, uint64_t *pAddr, uint8_t **ppOwn) {
  *ppOwn = NULL;
  if (!(m->flags & H5_MSGF_SHARED)) {
    *pp = m->p;
    *pn = m->size;
    if (pAddr) *pAddr = m->addr;
    return CAIRN_OK;
  }
  H5Cur c;
  cairnH5Cur(&c, m->p, m->size, m->addr);
  uint8_t v = cairnH5U8(&c), kind = cairnH5U8(&c);
  if (v == 1) cairnH5Skip(&c, 6);
  else if (v != 2 && v != 3) return cairnErr(CAIRN_CORRUPT, "hdf5: shared message version %u at offset %llu", v, (unsigned long long)m->addr);
  if (v == 3 && kind == 1) { /* in the SOHM heap */
    if (!cairnH5Has(&c, 8)) return cairnErr(CAIRN_CORRUPT, "hdf5: truncated shared message at offset %llu", (unsigned long long)m->addr);
    int bit = sohmBit(m->type);
    for (uint32_t i = 0; bit >= 0 && i < f->nSohm; i++) {
      if (!(f->aSohm[i].typeFlags & (1u << bit))) continue;
      H5FHeap h;
      CAIRN_TRY(cairnH5FHeapOpen(f, f->aSohm[i].heapAddr, &h));
      uint8_t *p;
      size_t n;
      CAIRN_TRY(cairnH5FHeapGet(f, &h, c.p, &p, &n));
      *pp = p;
      *pn = n;
      *ppOwn = p;
      if (pAddr) *pAddr = f->aSohm[i].heapAddr;
      return CAIRN_OK;
    }
    return cairnErr(CAIRN_CORRUPT, "hdf5: shared message of type %u at offset %llu has no SOHM index", m->type, (unsigned long long)m->addr);
  }
  /* In another object header (committed datatypes and version 1/2 sharing). */
  uint64_t a = cairnH5Addr(f, &c);
  if (c.bad || a == H5_UNDEF) return cairnErr(CAIRN_CORRUPT, "hdf5: bad shared message at offset %llu", (unsigned long long)m->addr);
  H5Ohdr o;
  CAIRN_TRY(cairnH5OhdrLoad(f, a, &o));
  const H5Msg *t = cairnH5OhdrFind(&o, m->type, 0);
  int rc = CAIRN_OK;
  if (!t || (t->flags & H5_MSGF_SHARED)) {
    rc = cairnErr(CAIRN_CORRUPT, "hdf5: shared message at offset %llu points to object %llu without a message of type %u",
                  (unsigned long long)m->addr, (unsigned long long)a, m->type);
  } else {
    uint8_t *p = cairnMalloc(t->size ? t->size : 1);
    if (!p) rc = cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
    else {
      memcpy(p, t->p, t->size);
      *pp = p;
      *pn = t->size;
      *ppOwn = p;
      if (pAddr) *pAddr = t->addr;
    }
  }
  cairnH5OhdrFree(&o);
  return rc;
}

/* ---------------------------------------------------------------- attributes */
/* Every field but the dataspace, which is large and which its decoder sets (up to its rank):
** the ones that own or point, for a fresh decode and after a free. */
static void attrClear(H5Attr *a) {
  a->zName = NULL;
  a->pType = NULL;
  a->pData = NULL;
  a->nData = 0;
  a->pMsg = NULL;
  a->nMsg = 0;
  a->msgAddr = 0;
}
void cairnH5AttrFree(H5Attr *a) {
  cairnH5TypeFree(a->pType);
  cairnFree(a->pData);
  attrClear(a);
}

/* A datatype or dataspace embedded in an attribute, possibly shared. */
static int attrPart(H5File *f, uint16_t type, int shared, const uint8_t *p, size_t n, uint64_t addr, H5Type **ppT, H5Space *pS) {
  if (!shared) /* the usual case: in the message itself, nothing to resolve */
    return ppT ? cairnH5TypeDecode(f, p, n, addr, 0, ppT, NULL) : cairnH5SpaceDecode(p, n, addr, f, pS);
  H5Msg m = {type, 2, (uint32_t)n, p, addr};
  const uint8_t *q;
  size_t nq;
  uint64_t qa;
  uint8_t *own;
  CAIRN_TRY(cairnH5MsgResolve(f, &m, &q, &nq, &qa, &own));
  int rc = ppT ? cairnH5TypeDecode(f, q, nq, qa, 0, ppT, NULL) : cairnH5SpaceDecode(q, nq, qa, f, pS);
  cairnFree(own);
  return rc;
}

/* The first 63 bytes of a name of n bytes as a C string in z[64], for a message. */
static const char *attrNameZ(char *z, const uint8_t *p, size_t n) {
  size_t q = n < 63 ? n : 63;
  memcpy(z, p, q);
  z[q] = 0;
  return z;
}

/* Decode an attribute message: its type (a reference, *ppT; NULL on error), dataspace (*pS, up
** to its rank: cairnH5SpaceDecode), and where its name
** (nName bytes, no NUL) and raw values (*pnData bytes, checked to fit) sit in p. */
static int attrParse(H5File *f, const uint8_t *p, size_t n, uint64_t addr, H5Type **ppT, H5Space *pS, const uint8_t **ppName,
                     size_t *pnName, const uint8_t **ppData, size_t *pnData) {
  *ppT = NULL;
  H5Cur c;
  cairnH5Cur(&c, p, n, addr);
  uint8_t v = cairnH5U8(&c), flags = cairnH5U8(&c);
  uint32_t nName = (uint32_t)cairnH5U(&c, 2), nType = (uint32_t)cairnH5U(&c, 2), nSpace = (uint32_t)cairnH5U(&c, 2);
  if (v == 3) cairnH5U8(&c); /* charset of the name */
  if (v < 1 || v > 3) return cairnErr(CAIRN_UNSUPPORTED, "hdf5: attribute message version %u at offset %llu", v, (unsigned long long)addr);
  size_t pad = v == 1 ? 7 : 0;
  size_t nN = (nName + pad) & ~pad, nT = (nType + pad) & ~pad, nS = (nSpace + pad) & ~pad;
  if (c.bad || !cairnH5Has(&c, nN) || nName == 0) return cairnErr(CAIRN_CORRUPT, "hdf5: truncated attribute name at offset %llu", (unsigned long long)addr);
  const uint8_t *z = memchr(c.p, 0, nName); /* the name ends at its NUL or its size */
  size_t k = z ? (size_t)(z - c.p) : nName;
  *ppName = c.p;
  *pnName = k;
  char zName[64]; /* for messages, made only when one is */
  c.p += nN;
  int rc = CAIRN_OK;
  if (!cairnH5Has(&c, nT))
    rc = cairnErr(CAIRN_CORRUPT, "hdf5: truncated datatype of attribute '%s' at offset %llu", attrNameZ(zName, *ppName, k), (unsigned long long)addr);
  else rc = attrPart(f, 3, (v >= 2) && (flags & 1), c.p, nType, cairnH5Off(&c), ppT, NULL);
  if (rc) return rc;
  c.p += nT;
  if (!cairnH5Has(&c, nS))
    rc = cairnErr(CAIRN_CORRUPT, "hdf5: truncated dataspace of attribute '%s' at offset %llu", attrNameZ(zName, *ppName, k), (unsigned long long)addr);
  else rc = attrPart(f, 1, (v >= 2) && (flags & 2), c.p, nSpace, cairnH5Off(&c), NULL, pS);
  if (rc == CAIRN_OK) {
    c.p += nS;
    uint64_t nData;
    if (cairnMulOverflow64(pS->nElem, (*ppT)->size, &nData) || nData > (size_t)(c.end - c.p))
      rc = cairnErr(CAIRN_CORRUPT, "hdf5: attribute '%s' at offset %llu: %llu elements of %u bytes do not fit in its message",
                    attrNameZ(zName, *ppName, k), (unsigned long long)addr, (unsigned long long)pS->nElem, (*ppT)->size);
    *ppData = c.p;
    *pnData = (size_t)nData;
  }
  if (rc) {
    cairnH5TypeFree(*ppT);
    *ppT = NULL;
  }
  return rc;
}

int cairnH5AttrPeek(H5File *f, const uint8_t *p, size_t n, uint64_t addr, H5Type **ppT, H5Space *pS, const uint8_t **ppData, size_t *pnData) {
  const uint8_t *pName;
  size_t nName;
  return attrParse(f, p, n, addr, ppT, pS, &pName, &nName, ppData, pnData);
}

int cairnH5AttrDecode(H5File *f, const uint8_t *p, size_t n, uint64_t addr, H5Attr *a) { return cairnH5AttrDecodeIn(f, p, n, addr, a, NULL, 0, NULL); }

int cairnH5AttrDecodeIn(H5File *f, const uint8_t *p, size_t n, uint64_t addr, H5Attr *a, uint8_t *pBuf, size_t nBuf, int *pInBuf) {
  if (pInBuf) *pInBuf = 0;
  attrClear(a);
  const uint8_t *pName, *pData;
  size_t nName, nData;
  int rc = attrParse(f, p, n, addr, &a->pType, &a->space, &pName, &nName, &pData, &nData);
  if (rc) return rc;
  a->nData = nData;
  if (pBuf && pInBuf && nData + nName + 1 <= nBuf) {
    a->pData = pBuf; /* the caller's: cairnH5AttrFree must not free it (the caller clears pData) */
    *pInBuf = 1;
  } else {
    a->pData = cairnMalloc(nData + nName + 1);
  }
  if (!a->pData) {
    cairnH5AttrFree(a);
    return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
  }
  memcpy(a->pData, pData, nData);
  a->zName = (char *)a->pData + nData;
  memcpy(a->zName, pName, nName);
  a->zName[nName] = 0;
  return CAIRN_OK;
}
