/*
** 2026-11-29
**
** core/h5/w_type.c - HDF5 datatype and dataspace messages for the writer (spec IV.A.2.d and
** IV.A.2.b). Floats are encoded exactly as libhdf5/h5py write them: f32 = class/version bytes
** 11 20 1f 00 (mantissa normalization "implied", sign at bit 31), exponent at bit 23 (8 bits),
** mantissa at 0 (23 bits), bias 127; f64 = 11 20 3f 00, 52/11, 0/52, 1023.
*/
#include "h5/h5w.h"

static cairn_h5w_type *typeNew(int cls, size_t size, size_t nEnc) {
  cairn_h5w_type *t = cairnMallocZero(sizeof *t);
  if (!t) return NULL;
  t->aEnc = cairnMallocZero(nEnc ? nEnc : 1);
  if (!t->aEnc) {
    cairnFree(t);
    return NULL;
  }
  t->cls = cls;
  t->size = t->memSize = size;
  t->nEnc = nEnc;
  t->aEnc[0] = (uint8_t)(cls | 0x10); /* version 1 unless changed */
  cairnPutLE32(t->aEnc + 4, (uint32_t)size);
  return t;
}

cairn_h5w_type *cairn_h5w_type_int(unsigned nByte, int bSigned) {
  if (nByte != 1 && nByte != 2 && nByte != 4 && nByte != 8) {
    cairnErr(CAIRN_MISUSE, "cairn_h5w_type_int: %u bytes (want 1, 2, 4 or 8)", nByte);
    return NULL;
  }
  cairn_h5w_type *t = typeNew(H5T_FIXED, nByte, 12);
  if (!t) return NULL;
  t->aEnc[1] = bSigned ? 0x08 : 0x00; /* little-endian, zero padding, signed bit 3 */
  cairnPutLE16(t->aEnc + 8, 0);
  cairnPutLE16(t->aEnc + 10, (uint16_t)(8 * nByte));
  return t;
}

cairn_h5w_type *cairn_h5w_type_float(unsigned nByte) {
  if (nByte != 2 && nByte != 4 && nByte != 8) {
    cairnErr(CAIRN_MISUSE, "cairn_h5w_type_float: %u bytes (want 2, 4 or 8)", nByte);
    return NULL;
  }
  /* IEEE binary16/32/64: exponent bits, mantissa bits, bias */
  unsigned e = nByte == 2 ? 5 : nByte == 4 ? 8 : 11, m = 8 * nByte - 1 - e;
  cairn_h5w_type *t = typeNew(H5T_FLOAT, nByte, 20);
  if (!t) return NULL;
  uint8_t *p = t->aEnc;
  p[1] = 0x20;                           /* mantissa normalization 2 (msb implied) */
  p[2] = (uint8_t)(8 * nByte - 1);       /* sign bit position */
  cairnPutLE16(p + 8, 0);                /* bit offset */
  cairnPutLE16(p + 10, (uint16_t)(8 * nByte)); /* precision */
  p[12] = (uint8_t)m;                    /* exponent location */
  p[13] = (uint8_t)e;                    /* exponent size */
  p[14] = 0;                             /* mantissa location */
  p[15] = (uint8_t)m;                    /* mantissa size */
  cairnPutLE32(p + 16, (1u << (e - 1)) - 1);
  return t;
}

cairn_h5w_type *cairn_h5w_type_bitfield(unsigned nByte) {
  if (nByte != 1 && nByte != 2 && nByte != 4 && nByte != 8) {
    cairnErr(CAIRN_MISUSE, "cairn_h5w_type_bitfield: %u bytes (want 1, 2, 4 or 8)", nByte);
    return NULL;
  }
  cairn_h5w_type *t = typeNew(4, nByte, 12);
  if (!t) return NULL;
  cairnPutLE16(t->aEnc + 8, 0);
  cairnPutLE16(t->aEnc + 10, (uint16_t)(8 * nByte));
  return t;
}

cairn_h5w_type *cairn_h5w_type_opaque(size_t nSize, const char *zTag) {
  size_t nTag = zTag ? strlen(zTag) : 0, nPad = nTag ? (nTag + 1 + 7) & ~(size_t)7 : 0;
  if (nSize == 0 || nSize > 0xffffffffu || nPad > 255) {
    cairnErr(CAIRN_MISUSE, "cairn_h5w_type_opaque: size %zu, tag of %zu bytes", nSize, nTag);
    return NULL;
  }
  cairn_h5w_type *t = typeNew(5, nSize, 8 + nPad);
  if (!t) return NULL;
  t->aEnc[1] = (uint8_t)nPad; /* tag length, padded to 8 */
  if (nTag) memcpy(t->aEnc + 8, zTag, nTag);
  return t;
}

int cairn_h5w_type_set_bits(cairn_h5w_type *t, unsigned nPrecision, unsigned nOffset) {
  if (!t || (t->cls != H5T_FIXED && t->cls != 4) || nPrecision == 0 || nOffset + nPrecision > 8 * t->size)
    return cairnErr(CAIRN_MISUSE, "cairn_h5w_type_set_bits: %u bits at %u", nPrecision, nOffset);
  cairnPutLE16(t->aEnc + 8, (uint16_t)nOffset);
  cairnPutLE16(t->aEnc + 10, (uint16_t)nPrecision);
  return CAIRN_OK;
}

cairn_h5w_type *cairn_h5w_type_string(size_t n, int pad, int bUtf8) {
  if (n == 0 || n > 0xffffffffu || pad < 0 || pad > 2) {
    cairnErr(CAIRN_MISUSE, "cairn_h5w_type_string: size %zu / pad %d", n, pad);
    return NULL;
  }
  cairn_h5w_type *t = typeNew(H5T_STRING, n, 8);
  if (t) t->aEnc[1] = (uint8_t)(pad | (bUtf8 ? 0x10 : 0));
  return t;
}

cairn_h5w_type *cairn_h5w_type_vstring(int bUtf8) {
  /* Variable-length, type 1 (string), padding 0 (nul-terminated), character set in bits 8-11;
  ** the base type is an unsigned byte, as libhdf5 writes it. */
  cairn_h5w_type *t = typeNew(H5T_VLEN, 16, 8 + 12);
  if (!t) return NULL;
  t->aEnc[1] = 0x01;
  t->aEnc[2] = bUtf8 ? 0x01 : 0x00;
  uint8_t *b = t->aEnc + 8;
  b[0] = 0x10;
  cairnPutLE32(b + 4, 1);
  cairnPutLE16(b + 8, 0);
  cairnPutLE16(b + 10, 8);
  t->memSize = sizeof(char *);
  t->bHasVlen = 1;
  t->vlenKind = 1;
  t->vlenUnit = 1;
  return t;
}

cairn_h5w_type *cairn_h5w_type_vlen(const cairn_h5w_type *base) {
  if (!base || base->bHasVlen || base->nNames) {
    cairnErr(CAIRN_MISUSE, "cairn_h5w_type_vlen: the base must be a fixed-size, non-enum type");
    return NULL;
  }
  cairn_h5w_type *t = typeNew(H5T_VLEN, 16, 8 + base->nEnc);
  if (!t) return NULL;
  t->aEnc[1] = 0x00; /* type 0: sequence */
  memcpy(t->aEnc + 8, base->aEnc, base->nEnc);
  t->memSize = sizeof(cairn_h5w_vl);
  t->bHasVlen = 1;
  t->vlenKind = 0;
  t->vlenUnit = base->size;
  return t;
}

/* Kind (1 string, 0 sequence) and counted unit of an encoded vlen type. */
void cairnH5wVlenInfo(const uint8_t *p, size_t n, int *pKind, size_t *pUnit) {
  *pKind = n >= 2 ? (p[1] & 0x0f) == 1 : 1;
  *pUnit = 1;
  if (!*pKind && n >= 16) *pUnit = cairnGetLE32(p + 12);
}

cairn_h5w_type *cairn_h5w_type_compound(size_t nSize) {
  if (nSize == 0 || nSize > 0xffffffffu) {
    cairnErr(CAIRN_MISUSE, "cairn_h5w_type_compound: size %zu", nSize);
    return NULL;
  }
  cairn_h5w_type *t = typeNew(H5T_COMPOUND, nSize, 8);
  if (t) t->aEnc[0] = 0x36; /* version 3: packed names, offsets in the fewest bytes */
  return t;
}

static int typeAppend(cairn_h5w_type *t, const void *p, size_t n) {
  uint8_t *a = cairnRealloc(t->aEnc, t->nEnc + n);
  if (!a) return cairnErr(CAIRN_NOMEM, "datatype: out of memory");
  memcpy(a + t->nEnc, p, n);
  t->aEnc = a;
  t->nEnc += n;
  return CAIRN_OK;
}

int cairn_h5w_type_insert(cairn_h5w_type *t, const char *zName, size_t iOff, const cairn_h5w_type *m) {
  if (!t || !zName || !m || t->cls != H5T_COMPOUND) return cairnErr(CAIRN_MISUSE, "cairn_h5w_type_insert: not a compound");
  if (!zName[0]) return cairnErr(CAIRN_MISUSE, "cairn_h5w_type_insert: empty member name");
  if (m->bHasVlen) return cairnErr(CAIRN_UNSUPPORTED, "compound member '%s': variable-length members are not supported", zName);
  if (iOff + m->size > t->size || iOff + m->size < iOff)
    return cairnErr(CAIRN_RANGE, "compound member '%s' at %zu (+%zu) outside the %zu-byte compound", zName, iOff, m->size, t->size);
  if (t->nMember >= 0xffff) return cairnErr(CAIRN_RANGE, "compound: too many members");
  uint8_t off[4];
  unsigned nOff = t->size < 256 ? 1 : t->size < 65536 ? 2 : t->size < (1u << 24) ? 3 : 4;
  cairnPutLEn(off, iOff, nOff);
  size_t n0 = t->nEnc;
  int rc = typeAppend(t, zName, strlen(zName) + 1);
  if (!rc) rc = typeAppend(t, off, nOff);
  if (!rc) rc = typeAppend(t, m->aEnc, m->nEnc);
  if (rc) {
    t->nEnc = n0;
    return rc;
  }
  t->nMember++;
  cairnPutLE16(t->aEnc + 1, (uint16_t)t->nMember);
  return CAIRN_OK;
}

cairn_h5w_type *cairn_h5w_type_enum(const cairn_h5w_type *base) {
  if (!base || base->cls != H5T_FIXED) {
    cairnErr(CAIRN_MISUSE, "cairn_h5w_type_enum: the base must be an integer type");
    return NULL;
  }
  cairn_h5w_type *t = typeNew(H5T_ENUM, base->size, 8);
  if (!t) return NULL;
  t->aEnc[0] = 0x38; /* version 3: names not padded */
  t->nBaseSize = base->size;
  if (typeAppend(t, base->aEnc, base->nEnc)) {
    cairn_h5w_type_free(t);
    return NULL;
  }
  return t;
}

int cairn_h5w_type_enum_insert(cairn_h5w_type *t, const char *zName, const void *pValue) {
  if (!t || !zName || !zName[0] || !pValue || t->cls != H5T_ENUM)
    return cairnErr(CAIRN_MISUSE, "cairn_h5w_type_enum_insert: bad arguments");
  size_t nName = strlen(zName) + 1;
  uint8_t *a = cairnRealloc(t->aNames, t->nNames + nName);
  if (!a) return cairnErr(CAIRN_NOMEM, "enum: out of memory");
  t->aNames = a;
  uint8_t *v = cairnRealloc(t->aValues, t->nValues + t->nBaseSize);
  if (!v) return cairnErr(CAIRN_NOMEM, "enum: out of memory");
  t->aValues = v;
  memcpy(a + t->nNames, zName, nName);
  memcpy(v + t->nValues, pValue, t->nBaseSize);
  t->nNames += nName;
  t->nValues += t->nBaseSize;
  t->nMember++;
  cairnPutLE16(t->aEnc + 1, (uint16_t)t->nMember);
  return CAIRN_OK;
}

cairn_h5w_type *cairn_h5w_type_array(const cairn_h5w_type *base, int rank, const uint64_t *dims) {
  if (!base || rank < 1 || rank > 4 || !dims || base->bHasVlen) {
    cairnErr(CAIRN_MISUSE, "cairn_h5w_type_array: bad base or rank %d", rank);
    return NULL;
  }
  uint64_t n = base->size;
  for (int i = 0; i < rank; i++)
    if (dims[i] == 0 || dims[i] > 0xffffffffu || cairnMulOverflow64(n, dims[i], &n) || n > 0xffffffffu) {
      cairnErr(CAIRN_RANGE, "cairn_h5w_type_array: dimension %d is %llu", i, (unsigned long long)dims[i]);
      return NULL;
    }
  cairn_h5w_type *t = typeNew(H5T_ARRAY, (size_t)n, 8 + 1 + 4 * (size_t)rank);
  if (!t) return NULL;
  t->aEnc[0] = 0x3a; /* version 3: no permutation indices */
  t->aEnc[8] = (uint8_t)rank;
  for (int i = 0; i < rank; i++) cairnPutLE32(t->aEnc + 9 + 4 * i, (uint32_t)dims[i]);
  if (typeAppend(t, base->aEnc, base->nEnc)) {
    cairn_h5w_type_free(t);
    return NULL;
  }
  return t;
}

size_t cairn_h5w_type_size(const cairn_h5w_type *t) { return t ? t->memSize : 0; }

void cairn_h5w_type_free(cairn_h5w_type *t) {
  if (!t) return;
  cairnFree(t->aEnc);
  cairnFree(t->aNames);
  cairnFree(t->aValues);
  cairnFree(t);
}

/* The full message body of a type (enums get their names and values appended). The caller
** frees *pp. */
int cairnH5wTypeEncode(const cairn_h5w_type *t, uint8_t **pp, size_t *pn) {
  size_t n = t->nEnc + t->nNames + t->nValues;
  uint8_t *p = cairnMalloc(n);
  if (!p) return cairnErr(CAIRN_NOMEM, "datatype: out of memory");
  memcpy(p, t->aEnc, t->nEnc);
  if (t->nNames) memcpy(p + t->nEnc, t->aNames, t->nNames);
  if (t->nValues) memcpy(p + t->nEnc + t->nNames, t->aValues, t->nValues);
  *pp = p;
  *pn = n;
  return CAIRN_OK;
}

/* Class, element size and vlen-ness of an encoded datatype (enough for editing). */
int cairnH5wTypeInfo(const uint8_t *p, size_t n, int *pCls, size_t *pSize, int *pbVlen) {
  if (n < 8) return cairnErr(CAIRN_CORRUPT, "datatype message of %zu bytes", n);
  *pCls = p[0] & 0x0f;
  *pSize = cairnGetLE32(p + 4);
  *pbVlen = *pCls == H5T_VLEN;
  return CAIRN_OK;
}

size_t cairnH5wSpaceSize(int rank, int bMax) { return 4 + 8 * (size_t)rank * (bMax ? 2 : 1); }

/* Dataspace message version 2 (rank 0 = scalar). Returns the size written. */
int cairnH5wEncodeSpace(uint8_t *p, int rank, const uint64_t *dims, const uint64_t *maxdims) {
  p[0] = 2;
  p[1] = (uint8_t)rank;
  p[2] = maxdims ? 1 : 0;
  p[3] = rank == 0 ? 0 : 1;
  for (int i = 0; i < rank; i++) cairnPutLE64(p + 4 + 8 * i, dims[i]);
  if (maxdims)
    for (int i = 0; i < rank; i++) cairnPutLE64(p + 4 + 8 * (rank + i), maxdims[i]);
  return (int)cairnH5wSpaceSize(rank, maxdims != NULL);
}
