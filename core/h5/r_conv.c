/*
** 2026-11-29
**
** core/h5/r_conv.c - turning raw HDF5 elements into values: byte order to native, numeric
** conversion to a requested memory type (integers of any precision/offset, IEEE half/single/
** double in either byte order, enums, bitfields), and JSON text for every class (strings,
** vlen data from the global heap, compounds, arrays, enums, opaque, object references).
*/
#include <stdlib.h> /* strtod */

#include "h5int.h"

/* ---------------------------------------------------------------- byte order */
static void swapN(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n / 2; i++) {
    uint8_t t = p[i];
    p[i] = p[n - 1 - i];
    p[n - 1 - i] = t;
  }
}

static int hasBigEndian(const H5Type *t) {
  switch (t->cls) {
    case H5T_FIXED: case H5T_FLOAT: case H5T_BITFIELD: case H5T_TIME: return t->bigEndian == 1;
    case H5T_ENUM: case H5T_ARRAY: return hasBigEndian(t->pBase);
    case H5T_COMPOUND:
      for (uint32_t i = 0; i < t->nMember; i++)
        if (hasBigEndian(t->aMember[i].pType)) return 1;
      return 0;
  }
  return 0;
}

static void toNative1(const H5Type *t, uint8_t *p) {
  switch (t->cls) {
    case H5T_FIXED: case H5T_FLOAT: case H5T_BITFIELD: case H5T_TIME:
      if (t->bigEndian == 1) swapN(p, t->size);
      break;
    case H5T_ENUM: toNative1(t->pBase, p); break;
    case H5T_ARRAY: {
      uint64_t n = t->pBase->size ? t->size / t->pBase->size : 0;
      for (uint64_t i = 0; i < n; i++) toNative1(t->pBase, p + i * t->pBase->size);
      break;
    }
    case H5T_COMPOUND:
      for (uint32_t i = 0; i < t->nMember; i++) toNative1(t->aMember[i].pType, p + t->aMember[i].offset);
      break;
  }
}

void cairnH5ToNative(const H5Type *t, uint8_t *p, uint64_t n) {
  if (!hasBigEndian(t)) return;
  if ((t->cls == H5T_FIXED || t->cls == H5T_FLOAT) && t->size == 4) {
    for (uint64_t i = 0; i < n; i++) {
      uint8_t *q = p + 4 * i, a = q[0], b = q[1];
      q[0] = q[3], q[1] = q[2], q[2] = b, q[3] = a;
    }
    return;
  }
  for (uint64_t i = 0; i < n; i++) toNative1(t, p + i * t->size);
}

/* ---------------------------------------------------------------- numbers */
static float halfToFloat(uint16_t h) {
  uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
  uint32_t bits;
  if (e == 0) {
    if (m == 0) bits = s;
    else { /* subnormal */
      float v = (float)m / 16777216.0f;
      return s ? -v : v;
    }
  } else if (e == 31) bits = s | 0x7f800000u | (m << 13);
  else bits = s | ((e + 112) << 23) | (m << 13);
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

/* Is t an IEEE float of 2, 4 or 8 bytes with the standard field positions? */
static int ieeeFloat(const H5Type *t) {
  if (t->cls != H5T_FLOAT || t->bitOffset != 0) return 0;
  if (t->size == 2) return t->expLoc == 10 && t->expSize == 5 && t->manLoc == 0 && t->manSize == 10 && t->expBias == 15;
  if (t->size == 4) return t->expLoc == 23 && t->expSize == 8 && t->manLoc == 0 && t->manSize == 23 && t->expBias == 127;
  if (t->size == 8) return t->expLoc == 52 && t->expSize == 11 && t->manLoc == 0 && t->manSize == 52 && t->expBias == 1023;
  return 0;
}

/* Load element p of an integer-like type as uint64 (the raw bits, sign-extended if signed). */
static uint64_t loadInt(const H5Type *t, const uint8_t *p, int *pSigned) {
  uint8_t b[16];
  size_t n = t->size > 16 ? 16 : t->size;
  memcpy(b, p, n);
  if (t->bigEndian == 1) swapN(b, n);
  uint64_t v = cairnGetLEn(b, (unsigned)(n > 8 ? 8 : n));
  unsigned prec = t->precision ? t->precision : (unsigned)(8 * n);
  if (t->bitOffset && t->bitOffset < 64) v >>= t->bitOffset;
  if (prec < 64) {
    v &= ((uint64_t)1 << prec) - 1;
    if (t->isSigned && (v >> (prec - 1)) & 1) v |= ~(((uint64_t)1 << prec) - 1);
  }
  *pSigned = t->isSigned;
  return v;
}

static double loadFloat(const H5Type *t, const uint8_t *p) {
  uint8_t b[8];
  memcpy(b, p, t->size);
  if (t->bigEndian == 1) swapN(b, t->size);
  if (t->size == 2) return halfToFloat(cairnGetLE16(b));
  if (t->size == 4) {
    uint32_t u = cairnGetLE32(b);
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  uint64_t u = cairnGetLE64(b);
  double d;
  memcpy(&d, &u, 8);
  return d;
}

size_t cairn_h5_mtype_size(cairn_h5_mtype m) {
  static const uint8_t a[] = {0, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
  return (unsigned)m < sizeof(a) ? a[m] : 0;
}

static void storeNum(cairn_h5_mtype m, void *out, int isFloat, double d, uint64_t u, int isSigned) {
  switch (m) {
#define ST(T, M)                                                                                 \
  case M: {                                                                                      \
    T v = isFloat ? (T)d : isSigned ? (T)(int64_t)u : (T)u;                                      \
    memcpy(out, &v, sizeof(v));                                                                  \
    break;                                                                                       \
  }
    case CAIRN_H5_I8: { int8_t v = isFloat ? (int8_t)(int64_t)d : (int8_t)u; memcpy(out, &v, 1); break; }
    case CAIRN_H5_U8: { uint8_t v = isFloat ? (uint8_t)(int64_t)d : (uint8_t)u; memcpy(out, &v, 1); break; }
    case CAIRN_H5_I16: { int16_t v = isFloat ? (int16_t)(int64_t)d : (int16_t)u; memcpy(out, &v, 2); break; }
    case CAIRN_H5_U16: { uint16_t v = isFloat ? (uint16_t)(int64_t)d : (uint16_t)u; memcpy(out, &v, 2); break; }
    case CAIRN_H5_I32: { int32_t v = isFloat ? (int32_t)(int64_t)d : (int32_t)u; memcpy(out, &v, 4); break; }
    case CAIRN_H5_U32: { uint32_t v = isFloat ? (uint32_t)(int64_t)d : (uint32_t)u; memcpy(out, &v, 4); break; }
    ST(int64_t, CAIRN_H5_I64)
    ST(uint64_t, CAIRN_H5_U64)
    ST(float, CAIRN_H5_F32)
    ST(double, CAIRN_H5_F64)
#undef ST
    default: break;
  }
}

int cairnH5ConvertIsCopy(const H5Type *t, cairn_h5_mtype m) {
  const H5Type *b = t && t->cls == H5T_ENUM ? t->pBase : t;
  if (!b || b->bigEndian != 0) return 0;
  if (b->cls == H5T_FLOAT) return ieeeFloat(b) && ((b->size == 4 && m == CAIRN_H5_F32) || (b->size == 8 && m == CAIRN_H5_F64));
  if (b->cls == H5T_FIXED || b->cls == H5T_BITFIELD)
    return b->size <= 8 && b->bitOffset == 0 && (b->precision == 0 || b->precision == 8 * b->size) && cairn_h5_mtype_size(m) == b->size &&
           m != CAIRN_H5_F32 && m != CAIRN_H5_F64;
  return 0;
}

int cairnH5Convert(const H5Type *t, const uint8_t *in, uint64_t n, cairn_h5_mtype m, void *pOut) {
  const H5Type *b = t->cls == H5T_ENUM ? t->pBase : t;
  uint8_t *out = pOut;
  /* the same representation (an IEEE float or an integer of the memory type's size and
  ** sign in little-endian order): a copy, decided before anything else */
  if (cairnH5ConvertIsCopy(t, m)) {
    if (out != in) memmove(out, in, (size_t)(n * b->size));
    return CAIRN_OK;
  }
  size_t ms = cairn_h5_mtype_size(m);
  if (ms == 0) return cairnErr(CAIRN_MISUSE, "hdf5: memory type %d", (int)m);
  if (b->cls == H5T_FLOAT) {
    if (!ieeeFloat(b)) return cairnErr(CAIRN_UNSUPPORTED, "hdf5: non-IEEE %u-byte float layout", b->size);
    if (b->size == 4 && m == CAIRN_H5_F64 && b->bigEndian == 0) {
      for (uint64_t i = n; i-- > 0;) { /* backwards: works in place */
        float f;
        memcpy(&f, in + 4 * i, 4);
        double d = f;
        memcpy(out + 8 * i, &d, 8);
      }
      return CAIRN_OK;
    }
    if (ms > b->size) {
      for (uint64_t i = n; i-- > 0;) storeNum(m, out + i * ms, 1, loadFloat(b, in + i * b->size), 0, 0);
    } else {
      for (uint64_t i = 0; i < n; i++) storeNum(m, out + i * ms, 1, loadFloat(b, in + i * b->size), 0, 0);
    }
    return CAIRN_OK;
  }
  if (b->cls == H5T_FIXED || b->cls == H5T_BITFIELD) {
    if (b->size > 8) return cairnErr(CAIRN_UNSUPPORTED, "hdf5: %u-byte integers", b->size);
    int sg;
    if (ms > b->size) {
      for (uint64_t i = n; i-- > 0;) {
        uint64_t v = loadInt(b, in + i * b->size, &sg);
        storeNum(m, out + i * ms, 0, sg ? (double)(int64_t)v : (double)v, v, sg);
        if (m == CAIRN_H5_F32 || m == CAIRN_H5_F64) storeNum(m, out + i * ms, 1, sg ? (double)(int64_t)v : (double)v, 0, 0);
      }
    } else {
      for (uint64_t i = 0; i < n; i++) {
        uint64_t v = loadInt(b, in + i * b->size, &sg);
        if (m == CAIRN_H5_F32 || m == CAIRN_H5_F64) storeNum(m, out + i * ms, 1, sg ? (double)(int64_t)v : (double)v, 0, 0);
        else storeNum(m, out + i * ms, 0, 0, v, sg);
      }
    }
    return CAIRN_OK;
  }
  return cairnErr(CAIRN_TYPE, "hdf5: cannot convert datatype class %u to a number", t->cls);
}

/* ---------------------------------------------------------------- JSON */
/* v * 10^k in steps of exact powers of ten (10^22 is the largest exact double power). */
static double scale10(double v, int k) {
  static const double a[23] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  /* keep intermediates in range: shrink first when scaling down, grow last when up */
  while (k > 22) v *= 1e22, k -= 22;
  while (k < -22) v /= 1e22, k += 22;
  return k >= 0 ? v * a[k] : v / a[-k];
}

/* Write digits dg (exactly p of them, no leading zero) with decimal exponent e as
** "d.ddde±X" into z; returns its length. */
static size_t sciText(char *z, uint64_t dg, int p, int e) {
  char d[24];
  for (int i = p - 1; i >= 0; i--) {
    d[i] = (char)('0' + dg % 10);
    dg /= 10;
  }
  size_t n = 0;
  z[n++] = d[0];
  if (p > 1) {
    z[n++] = '.';
    for (int i = 1; i < p; i++) z[n++] = d[i];
  }
  z[n++] = 'e';
  if (e < 0) {
    z[n++] = '-';
    e = -e;
  }
  char t[8];
  int k = 0;
  do {
    t[k++] = (char)('0' + e % 10);
    e /= 10;
  } while (e);
  while (k) z[n++] = t[--k];
  z[n] = 0;
  return n;
}

/* The shortest decimal that reads back as v (as a float when isFloat), found by trying
** precisions 1..17 and checking each candidate with strtod: no libm, no long double. */
static void sbDouble(CairnSb *s, double v, int isFloat) {
  if (v != v) {
    cairnSbStr(s, "\"nan\"");
    return;
  }
  if (v > 1.7976931348623157e308 || v < -1.7976931348623157e308) {
    cairnSbStr(s, v < 0 ? "\"-inf\"" : "\"inf\"");
    return;
  }
  if (v == 0) {
    uint64_t u;
    memcpy(&u, &v, 8);
    cairnSbStr(s, (u >> 63) ? "-0.0" : "0.0");
    return;
  }
  if (v < 0) {
    cairnSbPut(s, "-", 1);
    v = -v;
  }
  if (v < 9007199254740992.0 && (double)(uint64_t)v == v) {
    cairnSbU64(s, (uint64_t)v);
    cairnSbStr(s, ".0");
    return;
  }
  /* decimal exponent: 10^e <= v < 10^(e+1) */
  int e = 0;
  double x = v;
  while (x >= 1e16) x /= 1e16, e += 16;
  while (x >= 10) x /= 10, e++;
  while (x < 1e-16) x *= 1e16, e -= 16;
  while (x < 1) x *= 10, e--;
  char z[40];
  uint64_t best = 0;
  int bestP = 17, bestE = e;
  for (int p = 1; p <= 17; p++) {
    int sh = p - 1 - e; /* digits = v * 10^sh */
    double m = sh > 0 && v < 1e-290 ? scale10(scale10(v, 40), sh - 40) : scale10(v, sh);
    uint64_t c = (uint64_t)(m + 0.5);
    int found = 0;
    /* the scaled value can be off by a few units in the last digit: look around it, nearest first */
    int wMax = p <= 15 ? 0 : p == 16 ? 6 : 24; /* below 16 digits the scaling error is far below a unit */
    for (int w = 0; w <= wMax && !found; w++) {
      int dlt = (w & 1) ? -((w + 1) / 2) : w / 2;
      if (dlt < 0 && (uint64_t)(-dlt) > c) continue;
      uint64_t cand = c + (uint64_t)(int64_t)dlt;
      uint64_t lo = 1;
      for (int i = 1; i < p; i++) lo *= 10;
      int ee = e;
      if (cand >= lo * 10) { /* rounded up a decade */
        if (cand % 10) continue;
        cand /= 10, ee++;
      }
      if (cand < lo) continue;
      sciText(z, cand, p, ee);
      double back = strtod(z, NULL);
      if (isFloat ? (float)back == (float)v : back == v) {
        best = cand, bestP = p, bestE = ee, found = 1;
      }
    }
    if (found) break;
    if (p == 17) best = c, bestP = 17, bestE = e; /* cannot happen: 17 digits always round-trip */
  }
  /* strip trailing zeros and lay out positionally when short */
  while (bestP > 1 && best % 10 == 0) best /= 10, bestP--;
  char d[24];
  for (int i = bestP - 1; i >= 0; i--) {
    d[i] = (char)('0' + best % 10);
    best /= 10;
  }
  int nd = bestP;
  e = bestE;
  if (e >= 0 && e < 17) {
    if (nd <= e + 1) {
      cairnSbPut(s, d, (size_t)nd);
      for (int i = nd; i <= e; i++) cairnSbPut(s, "0", 1);
      cairnSbStr(s, ".0");
    } else {
      cairnSbPut(s, d, (size_t)e + 1);
      cairnSbPut(s, ".", 1);
      cairnSbPut(s, d + e + 1, (size_t)(nd - e - 1));
    }
    return;
  }
  if (e < 0 && e >= -5) {
    cairnSbStr(s, "0.");
    for (int i = -1; i > e; i--) cairnSbPut(s, "0", 1);
    cairnSbPut(s, d, (size_t)nd);
    return;
  }
  cairnSbPut(s, d, 1);
  cairnSbPut(s, ".", 1);
  if (nd > 1) cairnSbPut(s, d + 1, (size_t)(nd - 1));
  else cairnSbPut(s, "0", 1);
  cairnSbPut(s, "e", 1);
  cairnSbI64(s, e);
}

typedef struct JsonCtx {
  H5File *f;
  CairnSb sb;
  int rc;
  const char *(*xRefPath)(H5File *, uint64_t);
  int depth;
} JsonCtx;

static void jsonValue(JsonCtx *x, const H5Type *t, const uint8_t *p);

static void jsonFixedString(JsonCtx *x, const H5Type *t, const uint8_t *p, size_t n) {
  size_t k = n;
  if (t->strPad == 0) { /* null-terminated */
    k = 0;
    while (k < n && p[k]) k++;
  } else if (t->strPad == 1) {
    while (k > 0 && p[k - 1] == 0) k--;
  } else {
    while (k > 0 && (p[k - 1] == ' ' || p[k - 1] == 0)) k--;
  }
  cairnSbJsonStr(&x->sb, (const char *)p, k, 1);
}

static void jsonVlen(JsonCtx *x, const H5Type *t, const uint8_t *p) {
  H5File *f = x->f;
  uint32_t len = cairnGetLE32(p);
  uint64_t coll = cairnGetLEn(p + 4, f->so);
  uint32_t idx = cairnGetLE32(p + 4 + f->so);
  int all = 1;
  for (unsigned i = 0; i < f->so; i++) all &= p[4 + i] == 0xff;
  if (t->vlenKind == 1) {
    if (len == 0 || coll == 0 || all) {
      cairnSbStr(&x->sb, "\"\"");
      return;
    }
  } else if (len == 0 || coll == 0 || all) {
    cairnSbStr(&x->sb, "[]");
    return;
  }
  uint8_t *q;
  size_t nq;
  int rc = cairnH5GlobalHeapGet(f, coll, idx, &q, &nq);
  if (rc) {
    x->rc = rc;
    return;
  }
  if (t->vlenKind == 1) {
    size_t n = CAIRN_MIN((size_t)len, nq);
    /* vlen strings are NUL-padded by some writers */
    while (n > 0 && q[n - 1] == 0 && t->strPad != 2) n--;
    cairnSbJsonStr(&x->sb, (const char *)q, n, 1);
    return;
  }
  size_t es = t->pBase->size;
  uint64_t need = (uint64_t)len * es;
  if (need > nq) {
    x->rc = cairnErr(CAIRN_CORRUPT, "hdf5: vlen sequence of %u elements larger than its heap object", len);
    return;
  }
  /* The heap buffer may be replaced by a nested vlen lookup: copy first. */
  uint8_t *cp = cairnMalloc(need ? (size_t)need : 1);
  if (!cp) {
    x->rc = cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
    return;
  }
  memcpy(cp, q, (size_t)need);
  cairnSbPut(&x->sb, "[", 1);
  for (uint32_t i = 0; i < len && x->rc == CAIRN_OK; i++) {
    if (i) cairnSbPut(&x->sb, ",", 1);
    jsonValue(x, t->pBase, cp + (size_t)i * es);
  }
  cairnSbPut(&x->sb, "]", 1);
  cairnFree(cp);
}

static void jsonArray(JsonCtx *x, const H5Type *t, const uint8_t *p, uint32_t dim) {
  size_t inner = t->pBase->size;
  for (uint32_t i = dim + 1; i < t->rank; i++) inner *= t->aDim[i];
  cairnSbPut(&x->sb, "[", 1);
  for (uint32_t i = 0; i < t->aDim[dim] && x->rc == CAIRN_OK; i++) {
    if (i) cairnSbPut(&x->sb, ",", 1);
    if (dim + 1 < t->rank) jsonArray(x, t, p + i * inner, dim + 1);
    else jsonValue(x, t->pBase, p + i * inner);
  }
  cairnSbPut(&x->sb, "]", 1);
}

static void jsonValue(JsonCtx *x, const H5Type *t, const uint8_t *p) {
  if (x->depth > H5_MAX_TYPE_DEPTH * 2) {
    x->rc = cairnErr(CAIRN_CORRUPT, "hdf5: value nested too deeply");
    return;
  }
  x->depth++;
  switch (t->cls) {
    case H5T_FIXED:
    case H5T_BITFIELD: {
      if (t->size > 8) {
        cairnSbStr(&x->sb, "null");
        break;
      }
      int sg;
      uint64_t v = loadInt(t, p, &sg);
      if (sg) cairnSbI64(&x->sb, (int64_t)v);
      else cairnSbU64(&x->sb, v);
      break;
    }
    case H5T_FLOAT:
      if (!ieeeFloat(t)) {
        x->rc = cairnErr(CAIRN_UNSUPPORTED, "hdf5: non-IEEE %u-byte float layout", t->size);
        break;
      }
      sbDouble(&x->sb, loadFloat(t, p), t->size < 8);
      break;
    case H5T_STRING: jsonFixedString(x, t, p, t->size); break;
    case H5T_VLEN: jsonVlen(x, t, p); break;
    case H5T_COMPOUND:
      cairnSbPut(&x->sb, "{", 1);
      for (uint32_t i = 0; i < t->nMember && x->rc == CAIRN_OK; i++) {
        if (i) cairnSbPut(&x->sb, ",", 1);
        cairnSbJsonStr(&x->sb, t->aMember[i].zName, strlen(t->aMember[i].zName), 1);
        cairnSbPut(&x->sb, ":", 1);
        jsonValue(x, t->aMember[i].pType, p + t->aMember[i].offset);
      }
      cairnSbPut(&x->sb, "}", 1);
      break;
    case H5T_ARRAY: jsonArray(x, t, p, 0); break;
    case H5T_ENUM: {
      uint32_t i = 0;
      for (; i < t->nMember; i++)
        if (memcmp(t->aEnumVal + (size_t)i * t->size, p, t->size) == 0) break;
      if (i < t->nMember) cairnSbJsonStr(&x->sb, t->aMember[i].zName, strlen(t->aMember[i].zName), 1);
      else {
        int sg;
        uint64_t v = loadInt(t->pBase, p, &sg);
        if (sg) cairnSbI64(&x->sb, (int64_t)v);
        else cairnSbU64(&x->sb, v);
      }
      break;
    }
    case H5T_OPAQUE: {
      static const char hx[] = "0123456789abcdef";
      cairnSbPut(&x->sb, "\"", 1);
      for (uint32_t i = 0; i < t->size; i++) {
        char c[2] = {hx[p[i] >> 4], hx[p[i] & 15]};
        cairnSbPut(&x->sb, c, 2);
      }
      cairnSbPut(&x->sb, "\"", 1);
      break;
    }
    case H5T_REFERENCE:
      if (t->refKind == 0 && t->size >= x->f->so) {
        uint64_t a = cairnGetLEn(p, x->f->so);
        int all = 1;
        for (unsigned i = 0; i < x->f->so; i++) all &= p[i] == 0xff;
        const char *z = (a == 0 || all) ? NULL : x->xRefPath ? x->xRefPath(x->f, a) : NULL;
        if (z) cairnSbJsonStr(&x->sb, z, strlen(z), 1);
        else cairnSbStr(&x->sb, "null");
      } else cairnSbStr(&x->sb, "null");
      break;
    default: cairnSbStr(&x->sb, "null");
  }
  x->depth--;
}

/* Format n elements (raw file layout) shaped by aShape[0..rank) as nested JSON arrays. */
int cairnH5Json(H5File *f, const H5Type *t, const uint8_t *p, uint32_t rank, const uint64_t *aShape, const char *(*xRefPath)(H5File *, uint64_t),
           char **pz, size_t *pn) {
  JsonCtx x;
  memset(&x, 0, sizeof(x));
  x.f = f;
  x.xRefPath = xRefPath;
  if (rank == 0) jsonValue(&x, t, p);
  else {
    uint64_t n = 1;
    for (uint32_t i = 0; i < rank; i++) n *= aShape[i];
    uint64_t idx[H5_MAX_RANK] = {0};
    for (uint32_t i = 0; i < rank; i++) cairnSbPut(&x.sb, "[", 1);
    for (uint64_t e = 0; e < n && x.rc == CAIRN_OK && !x.sb.oom; e++) {
      jsonValue(&x, t, p + e * t->size);
      int i = (int)rank - 1;
      for (; i >= 0; i--) {
        if (++idx[i] < aShape[i]) break;
        idx[i] = 0;
        cairnSbPut(&x.sb, "]", 1);
      }
      if (i < 0) break;
      cairnSbPut(&x.sb, ",", 1);
      for (int k = i + 1; k < (int)rank; k++) cairnSbPut(&x.sb, "[", 1);
    }
    if (n == 0) { /* nested empty arrays: [] for (0,4), [[],[]] for (2,0) */
      x.sb.n = 0;
      uint64_t outer = 1;
      uint32_t k = 0;
      while (k + 1 < rank && aShape[k] > 0 && outer * aShape[k] <= 1000000) outer *= aShape[k++];
      for (uint32_t i = 0; i < k; i++) cairnSbPut(&x.sb, "[", 1);
      for (uint64_t i = 0; i < outer; i++) cairnSbStr(&x.sb, i ? ",[]" : "[]");
      for (uint32_t i = 0; i < k; i++) cairnSbPut(&x.sb, "]", 1);
    }
  }
  return cairnSbDone(&x.sb, x.rc, "hdf5: formatting JSON", pz, pn);
}

/* The datatype as JSON. */
static void typeJson(CairnSb *s, const H5Type *t, int depth) {
  static const char *cls[] = {"integer", "float", "time", "string", "bitfield", "opaque", "compound", "reference", "enum", "vlen", "array"};
  cairnSbStr(s, "{\"class\":\"");
  cairnSbStr(s, t->cls <= 10 ? cls[t->cls] : "unknown");
  cairnSbStr(s, "\",\"size\":");
  cairnSbU64(s, t->size);
  if (depth > H5_MAX_TYPE_DEPTH * 2) {
    cairnSbStr(s, "}");
    return;
  }
  switch (t->cls) {
    case H5T_FIXED: case H5T_BITFIELD: case H5T_FLOAT:
      cairnSbStr(s, t->cls == H5T_FLOAT ? "" : t->isSigned ? ",\"signed\":true" : ",\"signed\":false");
      cairnSbStr(s, t->bigEndian ? ",\"order\":\"be\"" : ",\"order\":\"le\"");
      if (t->precision && t->precision != 8 * t->size) {
        cairnSbStr(s, ",\"precision\":");
        cairnSbU64(s, t->precision);
        cairnSbStr(s, ",\"offset\":");
        cairnSbU64(s, t->bitOffset);
      }
      break;
    case H5T_STRING:
      cairnSbStr(s, t->cset ? ",\"cset\":\"utf-8\"" : ",\"cset\":\"ascii\"");
      cairnSbStr(s, t->strPad == 0 ? ",\"pad\":\"nullterm\"" : t->strPad == 1 ? ",\"pad\":\"nullpad\"" : ",\"pad\":\"spacepad\"");
      break;
    case H5T_VLEN:
      if (t->vlenKind == 1) cairnSbStr(s, t->cset ? ",\"string\":true,\"cset\":\"utf-8\"" : ",\"string\":true,\"cset\":\"ascii\"");
      else {
        cairnSbStr(s, ",\"base\":");
        typeJson(s, t->pBase, depth + 1);
      }
      break;
    case H5T_ARRAY:
      cairnSbStr(s, ",\"dims\":[");
      for (uint32_t i = 0; i < t->rank; i++) {
        if (i) cairnSbStr(s, ",");
        cairnSbU64(s, t->aDim[i]);
      }
      cairnSbStr(s, "],\"base\":");
      typeJson(s, t->pBase, depth + 1);
      break;
    case H5T_COMPOUND:
      cairnSbStr(s, ",\"members\":[");
      for (uint32_t i = 0; i < t->nMember; i++) {
        if (i) cairnSbStr(s, ",");
        cairnSbStr(s, "{\"name\":");
        cairnSbJsonStr(s, t->aMember[i].zName, strlen(t->aMember[i].zName), 1);
        cairnSbStr(s, ",\"offset\":");
        cairnSbU64(s, t->aMember[i].offset);
        cairnSbStr(s, ",\"type\":");
        typeJson(s, t->aMember[i].pType, depth + 1);
        cairnSbStr(s, "}");
      }
      cairnSbStr(s, "]");
      break;
    case H5T_ENUM:
      cairnSbStr(s, ",\"base\":");
      typeJson(s, t->pBase, depth + 1);
      cairnSbStr(s, ",\"members\":{");
      for (uint32_t i = 0; i < t->nMember; i++) {
        int sg;
        if (i) cairnSbStr(s, ",");
        cairnSbJsonStr(s, t->aMember[i].zName, strlen(t->aMember[i].zName), 1);
        cairnSbStr(s, ":");
        uint64_t v = loadInt(t->pBase, t->aEnumVal + (size_t)i * t->size, &sg);
        if (sg) cairnSbI64(s, (int64_t)v);
        else cairnSbU64(s, v);
      }
      cairnSbStr(s, "}");
      break;
    case H5T_OPAQUE:
      cairnSbStr(s, ",\"tag\":");
      cairnSbJsonStr(s, (t->zTag ? t->zTag : ""), t->zTag ? strlen(t->zTag) : 0, 1);
      break;
    case H5T_REFERENCE: cairnSbStr(s, t->refKind ? ",\"ref\":\"region\"" : ",\"ref\":\"object\""); break;
  }
  cairnSbStr(s, "}");
}

void cairnH5TypeJsonSb(CairnSb *s, const H5Type *t) { typeJson(s, t, 0); }

int cairnH5TypeJson(const H5Type *t, char **pz, size_t *pn) {
  CairnSb s = {0};
  typeJson(&s, t, 0);
  return cairnSbDone(&s, CAIRN_OK, "hdf5: type JSON", pz, pn);
}
