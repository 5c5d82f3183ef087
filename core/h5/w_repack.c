/*
** 2026-11-29
**
** core/h5/w_repack.c - `cairn repack`: copy every group, dataset and attribute that cairn's
** reader (cairn/h5.h) opens into a new file written by the writer, optionally with another
** filter pipeline. Types are rebuilt from the reader's type JSON; values are read in the
** file's element layout (little-endian: big-endian sources come out little-endian). Chunked
** and large contiguous datasets are copied one block of rows at a time, so memory stays bounded
** by a block (a few MiB), not the file (compact data and strings are copied whole).
**
** A chunked source is copied chunk by chunk when some of its chunks were never written (or its
** row block is large): only the chunks the source allocated are read and written, so a huge
** never-written dataset stays a few KB, as libhdf5 and h5repack leave it; the fill value is kept.
** Soft and external links and committed datatypes are copied; filters the writer cannot write
** (szip, n-bit, scale-offset...) are dropped (the data is read decoded). Not copied: datatypes the
** writer cannot write (object/region references, non-string vlen: CAIRN_UNSUPPORTED naming the
** object), null dataspaces (skipped).
*/
#include "cairn/h5.h"
#include "h5/h5w.h"
#include "h5/h5int.h" /* the source's fill value and its chunk index (cairnH5DsetChunkEach) */

#include <stdlib.h> /* strtod, strtoll */

/* ---------------------------------------------------------------- a small JSON reader */
typedef struct Js { const char *z, *end; int err; } Js;

static void jsWs(Js *j) {
  while (j->z < j->end && (*j->z == ' ' || *j->z == '\n' || *j->z == '\t' || *j->z == '\r')) j->z++;
}
static int jsEat(Js *j, char c) {
  jsWs(j);
  if (j->z < j->end && *j->z == c) {
    j->z++;
    return 1;
  }
  return 0;
}
/* A JSON string into a new NUL-terminated UTF-8 buffer (NULL on error). */
static char *jsString(Js *j) {
  jsWs(j);
  if (j->z >= j->end || *j->z != '"') return j->err = 1, (char *)NULL;
  j->z++;
  size_t cap = 16, n = 0;
  char *o = cairnMalloc(cap);
  if (!o) return j->err = 1, (char *)NULL;
  while (j->z < j->end && *j->z != '"') {
    if (CAIRN_GROW(o, cap, n + 8, "repack: JSON string")) break;
    char c = *j->z++;
    if (c != '\\') {
      o[n++] = c;
      continue;
    }
    if (j->z >= j->end) break;
    c = *j->z++;
    if (c == 'n') o[n++] = '\n';
    else if (c == 't') o[n++] = '\t';
    else if (c == 'r') o[n++] = '\r';
    else if (c == 'b') o[n++] = '\b';
    else if (c == 'f') o[n++] = '\f';
    else if (c == 'u') {
      uint32_t u = 0;
      for (int k = 0; k < 4 && j->z < j->end; k++) {
        char h = *j->z++;
        u = u * 16 + (uint32_t)(h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
      }
      if (u >= 0xd800 && u < 0xdc00 && j->end - j->z >= 6 && j->z[0] == '\\' && j->z[1] == 'u') {
        uint32_t l = 0;
        j->z += 2;
        for (int k = 0; k < 4; k++) {
          char h = *j->z++;
          l = l * 16 + (uint32_t)(h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
        }
        u = 0x10000 + ((u - 0xd800) << 10) + (l - 0xdc00);
      }
      if (u < 0x80) o[n++] = (char)u;
      else if (u < 0x800) o[n++] = (char)(0xc0 | (u >> 6)), o[n++] = (char)(0x80 | (u & 63));
      else if (u < 0x10000) o[n++] = (char)(0xe0 | (u >> 12)), o[n++] = (char)(0x80 | ((u >> 6) & 63)), o[n++] = (char)(0x80 | (u & 63));
      else o[n++] = (char)(0xf0 | (u >> 18)), o[n++] = (char)(0x80 | ((u >> 12) & 63)), o[n++] = (char)(0x80 | ((u >> 6) & 63)), o[n++] = (char)(0x80 | (u & 63));
    } else o[n++] = c;
  }
  if (j->z >= j->end) {
    cairnFree(o);
    return j->err = 1, (char *)NULL;
  }
  j->z++;
  o[n] = 0;
  return o;
}
static int64_t jsInt(Js *j) {
  jsWs(j);
  int neg = 0;
  if (j->z < j->end && *j->z == '-') neg = 1, j->z++;
  uint64_t v = 0;
  int nd = 0;
  while (j->z < j->end && *j->z >= '0' && *j->z <= '9') v = v * 10 + (uint64_t)(*j->z++ - '0'), nd++;
  if (!nd) j->err = 1;
  return neg ? -(int64_t)v : (int64_t)v;
}
static void jsSkip(Js *j, int depth) {
  jsWs(j);
  if (j->z >= j->end || depth > 64) {
    j->err = 1;
    return;
  }
  if (*j->z == '"') cairnFree(jsString(j));
  else if (*j->z == '{' || *j->z == '[') {
    char close = *j->z == '{' ? '}' : ']';
    j->z++;
    if (jsEat(j, close)) return;
    do {
      if (close == '}') {
        cairnFree(jsString(j));
        if (!jsEat(j, ':')) j->err = 1;
      }
      jsSkip(j, depth + 1);
    } while (!j->err && jsEat(j, ','));
    if (!jsEat(j, close)) j->err = 1;
  } else
    while (j->z < j->end && *j->z != ',' && *j->z != '}' && *j->z != ']') j->z++;
}

/* Type JSON (r_conv.c typeJson) -> writer type. */
static cairn_h5w_type *jsType(Js *j, const char *zWhere, int depth, int bKeepOrder) {
  if (depth > 16 || !jsEat(j, '{')) return j->err = 1, (cairn_h5w_type *)NULL;
  char *zClass = NULL, *zCset = NULL, *zPad = NULL, *zTag = NULL;
  int64_t size = 0, prec = -1, bitOff = 0;
  int bSigned = 0, bString = 0, bBe = 0;
  uint64_t aDim[4];
  int nDim = 0;
  cairn_h5w_type *base = NULL, *t = NULL;
  const char *zMembers = NULL, *zMembersEnd = NULL;
  do {
    char *k = jsString(j);
    if (!k || !jsEat(j, ':')) {
      cairnFree(k);
      j->err = 1;
      break;
    }
    if (!strcmp(k, "class")) zClass = jsString(j);
    else if (!strcmp(k, "size")) size = jsInt(j);
    else if (!strcmp(k, "signed")) jsWs(j), bSigned = j->z < j->end && *j->z == 't', jsSkip(j, 0);
    else if (!strcmp(k, "order")) {
      char *o = jsString(j);
      bBe = o && !strcmp(o, "be");
      cairnFree(o);
    } else if (!strcmp(k, "precision")) prec = jsInt(j);
    else if (!strcmp(k, "offset")) bitOff = jsInt(j);
    else if (!strcmp(k, "tag")) zTag = jsString(j);
    else if (!strcmp(k, "cset")) zCset = jsString(j);
    else if (!strcmp(k, "pad")) zPad = jsString(j);
    else if (!strcmp(k, "string")) jsWs(j), bString = j->z < j->end && *j->z == 't', jsSkip(j, 0);
    else if (!strcmp(k, "base")) base = jsType(j, zWhere, depth + 1, bKeepOrder);
    else if (!strcmp(k, "dims")) {
      if (jsEat(j, '[') && !jsEat(j, ']')) {
        do {
          int64_t v = jsInt(j);
          if (nDim < 4) aDim[nDim++] = (uint64_t)v;
          else j->err = 1;
        } while (!j->err && jsEat(j, ','));
        if (!jsEat(j, ']')) j->err = 1;
      }
    } else if (!strcmp(k, "members")) {
      jsWs(j);
      zMembers = j->z;
      jsSkip(j, 0);
      zMembersEnd = j->z;
    } else jsSkip(j, 0);
    cairnFree(k);
  } while (!j->err && jsEat(j, ','));
  if (!jsEat(j, '}')) j->err = 1;
  if (!j->err && zClass) {
    int utf8 = zCset && !strcmp(zCset, "utf-8");
    if (!strcmp(zClass, "integer") || !strcmp(zClass, "bitfield")) {
      t = !strcmp(zClass, "integer") ? cairn_h5w_type_int((unsigned)size, bSigned) : cairn_h5w_type_bitfield((unsigned)size);
      if (t && prec >= 0 && prec != 8 * size && cairn_h5w_type_set_bits(t, (unsigned)prec, (unsigned)bitOff)) {
        cairn_h5w_type_free(t);
        t = NULL;
      }
    } else if (!strcmp(zClass, "float") && (prec < 0 || prec == 8 * size)) t = cairn_h5w_type_float((unsigned)size);
    else if (!strcmp(zClass, "opaque")) t = cairn_h5w_type_opaque((size_t)size, zTag);
    else if (!strcmp(zClass, "string")) t = cairn_h5w_type_string((size_t)size, zPad && !strcmp(zPad, "nullpad") ? 1 : zPad && !strcmp(zPad, "spacepad") ? 2 : 0, utf8);
    else if (!strcmp(zClass, "vlen") && bString) t = cairn_h5w_type_vstring(utf8);
    else if (!strcmp(zClass, "vlen") && base && (base->cls == H5T_FIXED || base->cls == H5T_FLOAT)) t = cairn_h5w_type_vlen(base);
    else if (!strcmp(zClass, "array") && base && nDim) t = cairn_h5w_type_array(base, nDim, aDim);
    else if (!strcmp(zClass, "compound") && zMembers) {
      t = cairn_h5w_type_compound((size_t)size);
      Js m = {zMembers, zMembersEnd, 0};
      if (t && jsEat(&m, '[') && !jsEat(&m, ']')) {
        do {
          char *zName = NULL;
          int64_t off = -1;
          cairn_h5w_type *mt = NULL;
          if (!jsEat(&m, '{')) { m.err = 1; break; }
          do {
            char *k = jsString(&m);
            if (!k || !jsEat(&m, ':')) { cairnFree(k); m.err = 1; break; }
            if (!strcmp(k, "name")) zName = jsString(&m);
            else if (!strcmp(k, "offset")) off = jsInt(&m);
            else if (!strcmp(k, "type")) mt = jsType(&m, zWhere, depth + 1, bKeepOrder);
            else jsSkip(&m, 0);
            cairnFree(k);
          } while (!m.err && jsEat(&m, ','));
          if (!jsEat(&m, '}') || !zName || off < 0 || !mt || cairn_h5w_type_insert(t, zName, (size_t)off, mt)) m.err = 1;
          cairnFree(zName);
          cairn_h5w_type_free(mt);
        } while (!m.err && jsEat(&m, ','));
        if (!m.err && !jsEat(&m, ']')) m.err = 1;
      }
      if (m.err) cairn_h5w_type_free(t), t = NULL;
    } else if (!strcmp(zClass, "enum") && base && zMembers) {
      t = cairn_h5w_type_enum(base);
      Js m = {zMembers, zMembersEnd, 0};
      if (t && jsEat(&m, '{') && !jsEat(&m, '}')) {
        do {
          char *zName = jsString(&m);
          int64_t v = 0;
          uint8_t b[8];
          if (!zName || !jsEat(&m, ':')) m.err = 1;
          else v = jsInt(&m);
          cairnPutLE64(b, (uint64_t)v);
          if (!m.err && cairn_h5w_type_enum_insert(t, zName, b)) m.err = 1;
          cairnFree(zName);
        } while (!m.err && jsEat(&m, ','));
        if (!m.err && !jsEat(&m, '}')) m.err = 1;
      }
      if (m.err) cairn_h5w_type_free(t), t = NULL;
    }
  }
  /* Values are read little-endian, so types of data are written little-endian; a committed
  ** datatype has no data and keeps its byte order. */
  if (t && bBe && bKeepOrder && (t->cls == H5T_FIXED || t->cls == H5T_FLOAT || t->cls == 4)) t->aEnc[1] |= 0x01;
  cairnFree(zClass), cairnFree(zCset), cairnFree(zPad), cairnFree(zTag);
  cairn_h5w_type_free(base);
  if (!t) j->err = 1;
  return t;
}

static int typeOf(cairn_h5_obj *o, const char *zWhere, cairn_h5w_type **ppT, int bKeepOrder) {
  char *z = NULL;
  size_t n = 0;
  CAIRN_TRY(cairn_h5_type_json(o, &z, &n));
  Js j = {z, z + n, 0};
  cairn_h5w_type *t = jsType(&j, zWhere, 0, bKeepOrder);
  int rc = CAIRN_OK;
  if (!t) rc = cairnErr(CAIRN_UNSUPPORTED, "repack: '%s' has a datatype the writer cannot write: %s", zWhere, z);
  cairn_free(z);
  *ppT = t;
  return rc;
}

/* Strings of a vlen string dataset/attribute (JSON, nested arrays flattened). */
static int readStrings(cairn_h5_obj *o, uint64_t nElem, char ***paz) {
  char *z = NULL;
  size_t n = 0;
  CAIRN_TRY(cairn_h5_read_json(o, NULL, &z, &n));
  char **az = cairnMallocZero(sizeof(char *) * (size_t)(nElem ? nElem : 1));
  Js j = {z, z + n, 0};
  uint64_t k = 0;
  int rc = az ? CAIRN_OK : cairnErr(CAIRN_NOMEM, "repack: out of memory");
  while (!rc && j.z < j.end) {
    jsWs(&j);
    if (j.z >= j.end) break;
    char c = *j.z;
    if (c == '"') {
      char *s = jsString(&j);
      if (!s || k >= nElem) {
        cairnFree(s);
        rc = cairnErr(CAIRN_CORRUPT, "repack: string values do not match the shape");
        break;
      }
      az[k++] = s;
    } else if (c == 'n' && j.end - j.z >= 4 && !memcmp(j.z, "null", 4)) {
      j.z += 4;
      k++;
    } else j.z++; /* [ ] , */
  }
  cairn_free(z);
  if (!rc && k != nElem) rc = cairnErr(CAIRN_CORRUPT, "repack: %llu strings for %llu elements", (unsigned long long)k, (unsigned long long)nElem);
  if (rc && az) {
    for (uint64_t i = 0; i < nElem; i++) cairnFree(az[i]);
    cairnFree(az);
    az = NULL;
  }
  *paz = az;
  return rc;
}
/* Sequences of a vlen (non-string) dataset/attribute: the JSON nests the dataspace `rank`
** levels deep, then each element is an array of numbers, stored here in the base type. */
typedef struct Seqs { cairn_h5w_vl *aVl; uint8_t *pData; size_t nData, nAlloc; uint64_t *aOff; } Seqs;
static void seqsFree(Seqs *q) {
  cairnFree(q->aVl);
  cairnFree(q->pData);
  cairnFree(q->aOff);
}
static int seqPut(Seqs *q, const cairn_h5w_type *t, const char *z, size_t n) {
  int cls = t->aEnc[8] & 0x0f, bSigned = (t->aEnc[9] & 0x08) != 0;
  size_t sz = t->vlenUnit;
  CAIRN_TRY(CAIRN_GROW(q->pData, q->nAlloc, q->nData + sz, "repack"));
  char buf[64];
  if (n >= sizeof buf) return cairnErr(CAIRN_CORRUPT, "repack: number too long");
  memcpy(buf, z, n);
  buf[n] = 0;
  uint8_t *o = q->pData + q->nData;
  if (cls == H5T_FLOAT) {
    double v = strtod(buf, NULL);
    if (sz == 4) {
      float f = (float)v;
      memcpy(o, &f, 4);
    } else if (sz == 8) memcpy(o, &v, 8);
    else return cairnErr(CAIRN_UNSUPPORTED, "repack: vlen of %zu-byte floats", sz);
  } else {
    uint64_t v = bSigned ? (uint64_t)strtoll(buf, NULL, 10) : strtoull(buf, NULL, 10);
    cairnPutLEn(o, v, (unsigned)sz);
  }
  q->nData += sz;
  return CAIRN_OK;
}
static int readSeqs(cairn_h5_obj *o, const cairn_h5w_type *t, unsigned rank, uint64_t nElem, Seqs *q) {
  char *z = NULL;
  size_t n = 0;
  memset(q, 0, sizeof *q);
  CAIRN_TRY(cairn_h5_read_json(o, NULL, &z, &n));
  q->aVl = cairnMallocZero(sizeof(cairn_h5w_vl) * (size_t)(nElem ? nElem : 1));
  q->aOff = cairnMallocZero(sizeof(uint64_t) * (size_t)(nElem ? nElem : 1));
  int rc = q->aVl && q->aOff ? CAIRN_OK : cairnErr(CAIRN_NOMEM, "repack: out of memory");
  unsigned depth = 0;
  uint64_t k = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    char c = z[i];
    if (c == '[') {
      if (depth == rank) { /* an element starts */
        if (k >= nElem) { rc = cairnErr(CAIRN_CORRUPT, "repack: more sequences than elements"); break; }
        q->aOff[k] = q->nData;
      }
      depth++;
    } else if (c == ']') {
      if (depth == rank + 1) {
        q->aVl[k].n = (size_t)((q->nData - q->aOff[k]) / t->vlenUnit);
        k++;
      }
      depth--;
    } else if (depth == rank + 1 && (c == '-' || (c >= '0' && c <= '9'))) {
      size_t j = i;
      while (j < n && z[j] != ',' && z[j] != ']') j++;
      rc = seqPut(q, t, z + i, j - i);
      i = j - 1;
    } else if (depth == rank + 1 && c == '"') rc = cairnErr(CAIRN_UNSUPPORTED, "repack: non-numeric sequence values (nan/inf)");
  }
  cairn_free(z);
  if (!rc && k != nElem) rc = cairnErr(CAIRN_CORRUPT, "repack: %llu sequences for %llu elements", (unsigned long long)k, (unsigned long long)nElem);
  if (!rc)
    for (uint64_t i = 0; i < nElem; i++) q->aVl[i].p = q->aVl[i].n ? q->pData + q->aOff[i] : NULL;
  if (rc) seqsFree(q);
  return rc;
}

static void freeStrings(char **az, uint64_t n) {
  if (!az) return;
  for (uint64_t i = 0; i < n; i++) cairnFree(az[i]);
  cairnFree(az);
}

/* ---------------------------------------------------------------- copy */
typedef struct Repack {
  cairn_h5 *h;
  cairn_h5w *w;
  const char *zFilter;
  int bSkip;         /* CAIRN_H5W_REPACK_SKIP: leave out what the writer cannot write */
  uint64_t nSkip;
  char zFirst[256];  /* why the first one was left out */
  H5wSeen groups;    /* header addresses of the groups copied: a hard-link cycle ends there */
  cairn_progress_fn xProgress; /* cairn_h5w_repack_progress: bytes of dataset data copied */
  void *pProgressArg;
  uint64_t nDone, nTotal;
} Repack;

/* nBytes more of dataset data copied: report it (capped at the total, so a total that
** under-counts never makes the fraction pass 1). */
static void repackTick(Repack *r, uint64_t nBytes) {
  if (!r || !r->xProgress) return;
  r->nDone += nBytes;
  r->xProgress(r->pProgressArg, r->nDone < r->nTotal ? r->nDone : r->nTotal, r->nTotal);
}

static int skipOr(Repack *r, int rc) {
  if (rc && r->bSkip && CAIRN_PRIMARY(rc) == CAIRN_UNSUPPORTED) {
    if (r->nSkip++ == 0) cairnFormat(r->zFirst, sizeof r->zFirst, "%s", cairn_errmsg());
    return CAIRN_OK;
  }
  return rc;
}

static int copyAttrs(Repack *r, cairn_h5_obj *src, const char *zDst) {
  cairn_h5_info in;
  CAIRN_TRY(cairn_h5_info_get(src, &in));
  for (size_t i = 0; i < in.nAttr; i++) {
    cairn_h5_obj *a = NULL;
    cairn_h5_info ai;
    cairn_h5w_type *t = NULL;
    const char *zName = NULL;
    void *p = NULL;
    char **az = NULL;
    int rc = cairn_h5_attr_name(src, i, &zName);
    if (!rc) rc = cairn_h5_attr_at(src, i, &a);
    if (!rc) rc = cairn_h5_info_get(a, &ai);
    if (!rc && ai.space == CAIRN_H5_NULL) { /* the writer has no null dataspace: skipped */
      cairn_h5_obj_close(a);
      continue;
    }
    if (!rc) rc = typeOf(a, cairn_h5_obj_path(a), &t, 0);
    if (!rc && ai.rank > CAIRN_H5W_MAXRANK) rc = cairnErr(CAIRN_UNSUPPORTED, "repack: attribute '%s' of rank %u", cairn_h5_obj_path(a), ai.rank);
    Seqs q;
    memset(&q, 0, sizeof q);
    if (!rc && t->bHasVlen && t->vlenKind == 0) {
      rc = readSeqs(a, t, ai.rank, ai.nElem, &q);
      p = q.aVl;
    } else if (!rc && t->bHasVlen) {
      rc = readStrings(a, ai.nElem, &az);
      p = az;
    } else if (!rc) {
      size_t nb = (size_t)ai.nElem * ai.typeSize;
      p = cairnMalloc(nb ? nb : 1);
      rc = p ? cairn_h5_read(a, NULL, CAIRN_H5_NATIVE, p, nb) : cairnErr(CAIRN_NOMEM, "repack: out of memory");
    }
    if (!rc) rc = cairn_h5w_attr(r->w, zDst, zName, t, (int)ai.rank, ai.dims, p);
    if (az) freeStrings(az, ai.nElem);
    else if (q.aVl) seqsFree(&q);
    else cairnFree(p);
    cairn_h5w_type_free(t);
    cairn_h5_obj_close(a);
    rc = skipOr(r, rc);
    if (rc) return rc;
  }
  return CAIRN_OK;
}

static void filterSpec(const cairn_h5_info *in, char *z, size_t n, int *pbOk) {
  size_t k = 0;
  *pbOk = 1;
  z[0] = 0;
  for (unsigned i = 0; i < in->nFilter; i++) {
    const cairn_h5_filter *f = &in->aFilter[i];
    unsigned lv = f->nParam ? f->aParam[0] : 0;
    char one[32];
    if (f->id == 1) cairnFormat(one, sizeof one, "deflate:%u", lv);
    else if (f->id == 2) cairnFormat(one, sizeof one, "shuffle");
    else if (f->id == 3) cairnFormat(one, sizeof one, "fletcher32");
    else if (f->id == 32015) cairnFormat(one, sizeof one, "zstd:%u", lv ? lv : 3);
    else if (f->id == 32004) cairnFormat(one, sizeof one, "lz4:%u", lv);
    else continue; /* szip, n-bit, scale-offset, bitshuffle...: the copy is stored unfiltered */
    k += cairnFormat(z + k, n - k, "%s%s", k ? "," : "", one);
  }
}

/* ---------------------------------------------------------------- chunk by chunk */
#define REPACK_MAX_CELLS ((uint64_t)1 << 24) /* chunk positions looked up in one dataset (as cairn_h5_read) */
typedef struct ChunkCopy {
  cairn_h5_obj *src;
  cairn_h5w *w;
  H5wDset *d;     /* the copy being written */
  Repack *r;      /* for progress */
  uint64_t nAlloc; /* counting pass: allocated chunks */
  uint8_t *pBox, *pChunk;
} ChunkCopy;

static int chunkCount(void *pArg, const uint64_t *scaled, uint64_t addr) {
  (void)scaled, (void)addr;
  ((ChunkCopy *)pArg)->nAlloc++;
  return CAIRN_OK;
}

/* Copy one allocated chunk: read its part inside the dataset, pad it to the chunk shape with the
** fill value, write it. */
static int chunkCopy(void *pArg, const uint64_t *scaled, uint64_t addr) {
  (void)addr;
  ChunkCopy *x = pArg;
  H5wDset *d = x->d;
  int r = d->rank;
  size_t es = d->elSize;
  cairn_h5_sel sel;
  memset(&sel, 0, sizeof sel);
  sel.rank = (unsigned)r;
  uint64_t nBox = 1, off[CAIRN_H5W_MAXRANK];
  int bWhole = 1;
  for (int i = 0; i < r; i++) {
    off[i] = sel.start[i] = scaled[i] * d->aChunk[i];
    sel.count[i] = d->aDim[i] - off[i] < d->aChunk[i] ? d->aDim[i] - off[i] : d->aChunk[i];
    bWhole &= sel.count[i] == d->aChunk[i];
    nBox *= sel.count[i];
  }
  CAIRN_TRY(cairn_h5_read(x->src, &sel, CAIRN_H5_NATIVE, bWhole ? x->pChunk : x->pBox, (size_t)(nBox * es)));
  if (!bWhole) { /* an edge chunk: the box's rows into the chunk, the rest the fill value */
    cairnH5wFillPattern(d, x->pChunk, cairnH5wChunkElems(d));
    size_t nLine = (size_t)sel.count[r - 1] * es;
    uint64_t c[CAIRN_H5W_MAXRANK] = {0};
    for (uint64_t k = 0; k < nBox / sel.count[r - 1]; k++) {
      uint64_t co = 0;
      for (int i = 0; i < r; i++) co = co * d->aChunk[i] + (i < r - 1 ? c[i] : 0);
      memcpy(x->pChunk + co * es, x->pBox + k * nLine, nLine);
      for (int i = r - 2; i >= 0 && ++c[i] == sel.count[i]; i--) c[i] = 0;
    }
  }
  repackTick(x->r, nBox * es);
  return cairnH5wChunkPut(x->w, d, off, x->pChunk);
}

/* The source's fill value in file form as the writer takes it (little-endian), or NULL. */
static const void *fillOf(cairn_h5_obj *d, const cairn_h5_info *in, uint8_t *pBuf, size_t nBuf) {
  const H5Fill *f = &d->pD->fill;
  if (!f->defined || !f->p || f->size != in->typeSize || f->size > nBuf || in->typeVlenString) return NULL;
  memcpy(pBuf, f->p, f->size);
  cairnH5ToNative(d->pD->pType, pBuf, 1);
  return pBuf;
}

static int copyDataset(Repack *r, cairn_h5_obj *d, const char *zPath) {
  cairn_h5_info in;
  CAIRN_TRY(cairn_h5_info_get(d, &in));
  if (in.space == CAIRN_H5_NULL) return CAIRN_OK;
  if (in.rank > CAIRN_H5W_MAXRANK) return cairnErr(CAIRN_UNSUPPORTED, "repack: '%s' has rank %u", zPath, in.rank);
  if (in.layout == CAIRN_H5_VIRTUAL) return cairnErr(CAIRN_UNSUPPORTED, "repack: '%s' is a virtual dataset", zPath);
  cairn_h5w_type *t;
  CAIRN_TRY(typeOf(d, zPath, &t, 0));
  char zSpec[160];
  int bOk = 1;
  if (r->zFilter) cairnFormat(zSpec, sizeof zSpec, "%s", r->zFilter);
  else filterSpec(&in, zSpec, sizeof zSpec, &bOk);
  int rc = bOk ? CAIRN_OK : cairnErr(CAIRN_UNSUPPORTED, "repack: '%s' uses a filter the writer cannot write (give --filter)", zPath);
  int bResizable = 0, bChunked = in.layout == CAIRN_H5_CHUNKED;
  uint64_t mx[CAIRN_H5W_MAXRANK], ch[CAIRN_H5W_MAXRANK];
  for (unsigned i = 0; i < in.rank; i++) {
    mx[i] = in.maxdims[i];
    ch[i] = in.chunk[i];
    if (mx[i] != in.dims[i]) bResizable = 1;
  }
  for (unsigned i = 1; bResizable && i < in.rank; i++)
    if (mx[i] != in.dims[i]) mx[i] = in.dims[i]; /* only the first dimension can grow in cairn's files */
  if (r->zFilter && r->zFilter[0] && in.rank > 0 && in.nElem > 0 && in.layout != CAIRN_H5_COMPACT) bChunked = 1;
  if (in.rank == 0) bChunked = 0;
  uint8_t aFill[64];
  cairn_h5w_dset_opts o = {in.layout == CAIRN_H5_COMPACT ? CAIRN_H5W_COMPACT : bChunked ? CAIRN_H5W_CHUNKED : CAIRN_H5W_CONTIGUOUS,
                           in.layout == CAIRN_H5_CHUNKED ? ch : NULL, bChunked && zSpec[0] ? zSpec : NULL,
                           t->bHasVlen ? NULL : fillOf(d, &in, aFill, sizeof aFill)};
  uint64_t rowBytes = in.typeSize;
  for (unsigned i = 1; i < in.rank; i++) rowBytes *= in.dims[i];
  ChunkCopy cc;
  memset(&cc, 0, sizeof cc);
  int bChunkWise = 0;
  if (!rc && bChunked && o.chunk && !t->bHasVlen && in.nElem > 0) {
    /* Chunk by chunk when the source left chunks unwritten (they stay so) or its row block is
    ** large; otherwise row blocks, whose chunks are decoded and encoded in parallel. */
    rc = cairnH5DsetChunkEach(d->pD, REPACK_MAX_CELLS, chunkCount, &cc);
    uint64_t nCell = 1;
    for (unsigned i = 0; i < in.rank; i++) nCell *= (in.dims[i] + ch[i] - 1) / ch[i];
    bChunkWise = !rc && (cc.nAlloc < nCell || rowBytes * ch[0] > (256u << 20));
  }
  if (!rc && bChunkWise) {
    H5wObj *po = NULL;
    uint64_t nChunk = in.typeSize;
    for (unsigned i = 0; i < in.rank; i++) nChunk *= ch[i];
    r->w->bChunkWise = 1;
    rc = cairn_h5w_dataset(r->w, zPath, t, (int)in.rank, in.dims, bResizable ? mx : NULL, &o, NULL);
    r->w->bChunkWise = 0;
    if (!rc) rc = cairnH5wLookup(r->w, zPath, &po);
    if (!rc && (!po || !po->pDset)) rc = cairnErr(CAIRN_CORRUPT, "repack: '%s' not found after creating it", zPath);
    if (!rc) {
      cc.src = d, cc.w = r->w, cc.d = po->pDset, cc.r = r;
      cc.pBox = cairnMalloc((size_t)nChunk);
      cc.pChunk = cairnMalloc((size_t)nChunk);
      rc = cc.pBox && cc.pChunk ? cairnH5DsetChunkEach(d->pD, REPACK_MAX_CELLS, chunkCopy, &cc) : cairnErr(CAIRN_NOMEM, "repack: out of memory for a chunk of '%s'", zPath);
    }
    cairnFree(cc.pBox);
    cairnFree(cc.pChunk);
  } else if (!rc && (!bChunked || t->bHasVlen || rowBytes == 0 || in.dims[0] == 0)) {
    int bBlocks = !t->bHasVlen && o.layout == CAIRN_H5W_CONTIGUOUS && in.rank > 0 && rowBytes && in.nElem * in.typeSize > (4u << 20);
    /* whole dataset at once: compact/contiguous sources, and strings */
    if (t->bHasVlen && t->vlenKind == 0) {
      Seqs q;
      rc = readSeqs(d, t, in.rank, in.nElem, &q);
      if (!rc) {
        rc = cairn_h5w_dataset(r->w, zPath, t, (int)in.rank, in.dims, bResizable ? mx : NULL, &o, q.aVl);
        seqsFree(&q);
      }
    } else if (t->bHasVlen) {
      char **az = NULL;
      rc = readStrings(d, in.nElem, &az);
      if (!rc) rc = cairn_h5w_dataset(r->w, zPath, t, (int)in.rank, in.dims, bResizable ? mx : NULL, &o, az);
      freeStrings(az, in.nElem);
    } else if (bBlocks) {
      /* large contiguous data: created empty, then written one block of rows at a time */
      r->w->bSkipFill = 1;
      rc = cairn_h5w_dataset(r->w, zPath, t, (int)in.rank, in.dims, bResizable ? mx : NULL, &o, NULL);
      r->w->bSkipFill = 0;
      uint64_t step = (4u << 20) / rowBytes ? (4u << 20) / rowBytes : 1;
      uint8_t *p = rc ? NULL : cairnMalloc((size_t)(step * rowBytes));
      if (!rc && !p) rc = cairnErr(CAIRN_NOMEM, "repack: out of memory for '%s'", zPath);
      for (uint64_t r0 = 0; !rc && r0 < in.dims[0]; r0 += step) {
        uint64_t nr = in.dims[0] - r0 < step ? in.dims[0] - r0 : step;
        rc = cairnH5wReadRows(d, in.rank, in.dims, r0, nr, p, (size_t)(nr * rowBytes));
        if (!rc) rc = cairn_h5w_write(r->w, zPath, r0, nr, p);
        if (!rc) repackTick(r, nr * rowBytes);
      }
      cairnFree(p);
    } else {
      size_t nb = (size_t)(in.nElem * in.typeSize);
      void *p = cairnMalloc(nb ? nb : 1);
      rc = p ? cairn_h5_read(d, NULL, CAIRN_H5_NATIVE, p, nb) : cairnErr(CAIRN_NOMEM, "repack: out of memory for '%s'", zPath);
      if (!rc) rc = cairn_h5w_dataset(r->w, zPath, t, (int)in.rank, in.dims, bResizable ? mx : NULL, &o, p);
      cairnFree(p);
    }
    if (!rc && !bBlocks) repackTick(r, in.nElem * in.typeSize);
  } else if (!rc) {
    /* chunked: create empty (first dimension 0, growable to its size), then append row blocks */
    uint64_t d0[CAIRN_H5W_MAXRANK];
    memcpy(d0, in.dims, sizeof(uint64_t) * in.rank);
    d0[0] = 0;
    if (!bResizable) memcpy(mx, in.dims, sizeof(uint64_t) * in.rank);
    if (!o.chunk) { /* a contiguous source made chunked by --filter: rows of about 1 MiB */
      uint64_t row = in.typeSize;
      for (unsigned i = 1; i < in.rank; i++) ch[i] = in.dims[i] ? in.dims[i] : 1, row *= ch[i];
      ch[0] = row >= (1u << 20) ? 1 : (1u << 20) / row;
      if (ch[0] > in.dims[0]) ch[0] = in.dims[0] ? in.dims[0] : 1;
      o.chunk = ch;
    }
    uint64_t step = o.chunk[0];
    while (step * rowBytes < (4u << 20) && step * 2 <= in.dims[0]) step *= 2;
    uint8_t *p = cairnMalloc((size_t)(step * rowBytes));
    if (!p) rc = cairnErr(CAIRN_NOMEM, "repack: out of memory for '%s'", zPath);
    for (uint64_t r0 = 0; !rc && r0 < in.dims[0]; r0 += step) {
      uint64_t nr = in.dims[0] - r0 < step ? in.dims[0] - r0 : step;
      rc = cairnH5wReadRows(d, in.rank, in.dims, r0, nr, p, (size_t)(nr * rowBytes));
      /* created after the first block reads well: a dataset that cannot be read is not left
      ** behind half made (repack --skip) */
      if (!rc && r0 == 0) rc = cairn_h5w_dataset(r->w, zPath, t, (int)in.rank, d0, mx, &o, NULL);
      if (!rc) rc = cairn_h5w_append(r->w, zPath, nr, p);
      if (!rc) repackTick(r, nr * rowBytes);
    }
    cairnFree(p);
  }
  cairn_h5w_type_free(t);
  if (!rc) rc = copyAttrs(r, d, zPath);
  return rc;
}

static int copyGroup(Repack *r, cairn_h5_obj *g, const char *zPath, int depth) {
  if (depth > 64) return cairnErr(CAIRN_UNSUPPORTED, "repack: groups nested deeper than 64 at '%s'", zPath);
  CAIRN_TRY(copyAttrs(r, g, zPath[0] ? zPath : "/"));
  cairn_h5_info in;
  CAIRN_TRY(cairn_h5_info_get(g, &in));
  for (size_t i = 0; i < in.nLink; i++) {
    cairn_h5_link l;
    CAIRN_TRY(cairn_h5_link_get(g, i, &l));
    size_t n = strlen(zPath) + strlen(l.zName) + 2;
    char *zc = cairnMalloc(n);
    if (!zc) return cairnErr(CAIRN_NOMEM, "repack: out of memory");
    cairnFormat(zc, n, "%s/%s", zPath, l.zName);
    if (l.type != CAIRN_H5_LINK_HARD) {
      int rcl = l.type == CAIRN_H5_LINK_SOFT ? cairn_h5w_softlink(r->w, zc, l.zTarget)
                                             : cairn_h5w_extlink(r->w, zc, l.zFile, l.zTarget);
      cairnFree(zc);
      if (rcl) return rcl;
      continue;
    }
    cairn_h5_obj *c = NULL;
    cairn_h5_info ci;
    int rc = cairn_h5_get(r->h, zc, &c);
    if (!rc) rc = cairn_h5_info_get(c, &ci);
    int bNew = !rc && ci.kind == CAIRN_H5_GROUP ? cairnH5wSeenAdd(&r->groups, ci.addr) : 1;
    if (bNew < 0) rc = cairnErr(CAIRN_NOMEM, "repack: out of memory");
    else if (bNew == 0) /* a hard link back to a group copied already (a cycle, or a second name) */
      rc = cairnErr(CAIRN_UNSUPPORTED, "repack: '%s' is a second hard link to a group (the writer copies a group once)", zc);
    else if (!rc && ci.kind == CAIRN_H5_GROUP) {
      rc = cairn_h5w_group(r->w, zc);
      if (!rc) rc = copyGroup(r, c, zc, depth + 1);
    } else if (!rc && ci.kind == CAIRN_H5_DATASET) rc = copyDataset(r, c, zc);
    else if (!rc && ci.kind == CAIRN_H5_DATATYPE) {
      cairn_h5w_type *t = NULL;
      rc = typeOf(c, zc, &t, 1);
      if (!rc) rc = cairn_h5w_named_type(r->w, zc, t);
      if (!rc) rc = copyAttrs(r, c, zc);
      cairn_h5w_type_free(t);
    }
    cairn_h5_obj_close(c);
    cairnFree(zc);
    rc = skipOr(r, rc);
    if (rc) return rc;
  }
  return CAIRN_OK;
}

/* The progress total: the data bytes (elements times type size) of every dataset copyGroup will
** copy, walking the same hard links (a group once). Objects that fail to open count nothing:
** the copy reports them. Maintenance reminder: follows copyGroup's walk. */
static int sizeGroup(cairn_h5 *h, cairn_h5_obj *g, const char *zPath, int depth, H5wSeen *pSeen, uint64_t *pn) {
  if (depth > 64) return CAIRN_OK;
  cairn_h5_info in;
  CAIRN_TRY(cairn_h5_info_get(g, &in));
  for (size_t i = 0; i < in.nLink; i++) {
    cairn_h5_link l;
    if (cairn_h5_link_get(g, i, &l) != CAIRN_OK || l.type != CAIRN_H5_LINK_HARD) continue;
    size_t n = strlen(zPath) + strlen(l.zName) + 2;
    char *zc = cairnMalloc(n);
    if (!zc) return cairnErr(CAIRN_NOMEM, "repack: out of memory");
    cairnFormat(zc, n, "%s/%s", zPath, l.zName);
    cairn_h5_obj *c = NULL;
    cairn_h5_info ci;
    int rc = cairn_h5_get(h, zc, &c);
    if (!rc) rc = cairn_h5_info_get(c, &ci);
    if (!rc && ci.kind == CAIRN_H5_GROUP) {
      int bNew = cairnH5wSeenAdd(pSeen, ci.addr);
      rc = bNew < 0 ? cairnErr(CAIRN_NOMEM, "repack: out of memory") : bNew ? sizeGroup(h, c, zc, depth + 1, pSeen, pn) : CAIRN_OK;
    } else if (!rc && ci.kind == CAIRN_H5_DATASET && ci.space != CAIRN_H5_NULL) *pn += ci.nElem * ci.typeSize;
    cairn_h5_obj_close(c);
    cairnFree(zc);
    if (rc == CAIRN_NOMEM) return rc;
  }
  return CAIRN_OK;
}

int cairn_h5w_repack(cairn_file *in, cairn_file *out, const char *zFilter, unsigned flags) {
  return cairn_h5w_repack_progress(in, out, zFilter, flags, NULL, NULL);
}

int cairn_h5w_repack_progress(cairn_file *in, cairn_file *out, const char *zFilter, unsigned flags, cairn_progress_fn xProgress,
                              void *pArg) {
  if (!in || !out) return cairnErr(CAIRN_MISUSE, "cairn_h5w_repack: NULL file");
  if (zFilter && zFilter[0]) { /* check the spec before touching the output */
    H5wFilter a[8];
    int n;
    const char *zErr;
    CAIRN_TRY(cairnH5wFilterParse(zFilter, 4, a, &n, &zErr));
  }
  Repack r;
  memset(&r, 0, sizeof r);
  r.zFilter = zFilter && zFilter[0] ? zFilter : NULL;
  r.bSkip = (flags & CAIRN_H5W_REPACK_SKIP) != 0;
  int rc = cairn_h5_open(in, 0, &r.h);
  if (!rc) rc = cairn_h5w_create(out, flags & ~(unsigned)CAIRN_H5W_REPACK_SKIP, &r.w);
  cairn_h5_obj *root = NULL;
  if (!rc) rc = cairn_h5_get(r.h, "/", &root);
  cairn_h5_info ri;
  if (!rc) rc = cairn_h5_info_get(root, &ri);
  if (!rc && cairnH5wSeenAdd(&r.groups, ri.addr) < 0) rc = cairnErr(CAIRN_NOMEM, "repack: out of memory");
  if (!rc && xProgress) {
    H5wSeen seen;
    memset(&seen, 0, sizeof seen);
    rc = cairnH5wSeenAdd(&seen, ri.addr) < 0 ? cairnErr(CAIRN_NOMEM, "repack: out of memory") : sizeGroup(r.h, root, "", 0, &seen, &r.nTotal);
    cairnFree(seen.a);
    r.xProgress = xProgress, r.pProgressArg = pArg;
    if (!rc) xProgress(pArg, 0, r.nTotal);
  }
  if (!rc) rc = copyGroup(&r, root, "", 0);
  if (!rc && xProgress) xProgress(pArg, r.nTotal, r.nTotal); /* the end, whatever was skipped */
  cairnFree(r.groups.a);
  cairn_h5_obj_close(root);
  if (r.w) {
    if (rc) cairn_h5w_discard(r.w);
    else rc = cairn_h5w_close(r.w);
  }
  cairn_h5_close(r.h);
  if (rc == CAIRN_OK && r.nSkip) cairn_seterr(CAIRN_OK, "left out %llu object(s) the writer cannot write; the first: %s", (unsigned long long)r.nSkip, r.zFirst);
  return rc;
}

/* Attributes kept in dense storage (fractal heap + v2 B-tree, what libhdf5 uses past 8
** attributes with libver latest) are read through the reader and become inline attribute
** messages of o, so they can be added to, overwritten and deleted. Each must fit in 64 KiB.
** On failure o is left as it was. */
int cairnH5wMaterializeAttrs(cairn_h5w *w, H5wObj *o) {
  if (!o->bDenseAttrs) return CAIRN_OK;
  if (!o->zPath) return cairnErr(CAIRN_UNSUPPORTED, "an object with dense attributes that has no path");
  CAIRN_TRY(cairnH5wFlush(w));
  Repack r;
  memset(&r, 0, sizeof r);
  r.w = w;
  cairn_h5_obj *src = NULL;
  int n0 = o->nMsg, bDirty = o->bDirty;
  int rc = cairn_h5_open(w->f, 0, &r.h); /* a fresh reader sees the committed file */
  if (!rc) rc = cairn_h5_get(r.h, o->zPath, &src);
  o->bDenseAttrs = 0;
  if (!rc) rc = copyAttrs(&r, src, o->zPath);
  cairn_h5_obj_close(src);
  cairn_h5_close(r.h);
  if (!rc) {
    uint8_t ai[18] = {0, 0};
    cairnPutLE64(ai + 2, H5_UNDEF);
    cairnPutLE64(ai + 10, H5_UNDEF);
    for (int i = 0; i < o->nMsg; i++)
      if (o->aMsg[i].type == H5_MSG_AINFO) {
        rc = cairnH5wObjSetMsg(o, i, ai, sizeof ai);
        break;
      }
  }
  if (rc) {
    while (o->nMsg > n0) cairnFree(o->aMsg[--o->nMsg].p);
    o->bDenseAttrs = 1;
    o->bDirty = bDirty;
    return rc;
  }
  o->bConverted = 1;
  return CAIRN_OK;
}
