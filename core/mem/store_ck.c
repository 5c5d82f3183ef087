/*
** 2026-12-02
**
** core/mem/store_ck.c - the HDF5 checkpoint of the memory store (FORMAT.md part 2): writing
** it with cairn/h5w.h (create, append the committed rows, switch the superblock last) and
** loading it on open with cairn/h5.h.
*/
#include "mem_int.h"
#include "mem_hook.h"
#include "cairn/h5.h"
#include "cairn/h5w.h"
#include "hash/lookup3.h"

/* ------------------------------------------------------------------ HDF5 checkpoint */
/* The layout is in FORMAT.md part 2: one group /memory, one row per memory in every per-row
** dataset, CSR byte arrays for text, metadata and names, the vectors as [N, dim]. */
#define CK_ROW_CHUNK 1024  /* rows per chunk of the per-row datasets (8 KiB at most) */
#define CK_BYTE_CHUNK 16384 /* bytes per chunk of the CSR byte arrays */
#define CK_NONE 0xFFFFFFFFu
static const char *const azMetric[] = {"cosine", "ip", "l2"};
static const char *const azEnc[] = {"f32", "f16", "int8", "none"};

typedef struct CkTypes {
  cairn_h5w_type *u8, *i8, *u16f, *u32, *u64, *i64, *f32, *f16;
} CkTypes;
static void ckTypesFree(CkTypes *t) {
  cairn_h5w_type_free(t->u8), cairn_h5w_type_free(t->i8), cairn_h5w_type_free(t->u32), cairn_h5w_type_free(t->u64);
  cairn_h5w_type_free(t->i64), cairn_h5w_type_free(t->f32), cairn_h5w_type_free(t->f16);
}
static int ckTypesInit(CkTypes *t) {
  memset(t, 0, sizeof *t);
  t->u8 = cairn_h5w_type_int(1, 0), t->i8 = cairn_h5w_type_int(1, 1), t->u32 = cairn_h5w_type_int(4, 0);
  t->u64 = cairn_h5w_type_int(8, 0), t->i64 = cairn_h5w_type_int(8, 1), t->f32 = cairn_h5w_type_float(4);
  t->f16 = cairn_h5w_type_float(2);
  if (!t->u8 || !t->i8 || !t->u32 || !t->u64 || !t->i64 || !t->f32 || !t->f16) {
    ckTypesFree(t);
    return cairnErr(CAIRN_NOMEM, "checkpoint: out of memory");
  }
  return CAIRN_OK;
}

static int ckAttrStr(cairn_h5w *w, const char *zObj, const char *zName, const char *zVal) {
  cairn_h5w_type *t = cairn_h5w_type_string(strlen(zVal), 1, 0);
  if (!t) return CAIRN_NOMEM;
  int rc = cairn_h5w_attr(w, zObj, zName, t, 0, NULL, zVal);
  cairn_h5w_type_free(t);
  return rc;
}
static int ckAttrI64(cairn_h5w *w, const char *zObj, const char *zName, int64_t v) {
  cairn_h5w_type *t = cairn_h5w_type_int(8, 1);
  if (!t) return CAIRN_NOMEM;
  int rc = cairn_h5w_attr(w, zObj, zName, t, 0, NULL, &v);
  cairn_h5w_type_free(t);
  return rc;
}

int cairnMemSmallChunks; /* tests: chunks of 8 rows or bytes (small files for bit-flip sweeps) */
int cairnMemV1Create;    /* tests: new stores are of version 1 (before 2026-12-02) and stay so */

/* A resizable dataset of rank 1 (nCol 0) or 2 (rows of nCol), nInit rows from pInit. */
static int ckDset(cairn_h5w *w, const char *zPath, const cairn_h5w_type *t, uint64_t nCol, uint64_t chunk0, uint64_t nInit,
                  const void *pInit) {
  if (cairnMemSmallChunks) chunk0 = CAIRN_MIN(chunk0, (uint64_t)8);
  uint64_t dims[2] = {nInit, nCol}, maxd[2] = {CAIRN_H5W_UNLIMITED, nCol}, chunk[2] = {chunk0, nCol};
  cairn_h5w_dset_opts o;
  memset(&o, 0, sizeof o);
  o.layout = CAIRN_H5W_CHUNKED;
  o.chunk = chunk;
  o.zFilters = "fletcher32"; /* every chunk checksummed (libhdf5/h5py verify it too) */
  return cairn_h5w_dataset(w, zPath, t, nCol ? 2 : 1, dims, maxd, &o, pInit);
}
/* A fixed-size dataset, chunked for its Fletcher-32 checksum. */
static int ckDsetFixed(cairn_h5w *w, const char *zPath, const cairn_h5w_type *t, int rank, const uint64_t *dims, const void *p) {
  cairn_h5w_dset_opts o;
  memset(&o, 0, sizeof o);
  o.layout = CAIRN_H5W_CHUNKED;
  o.zFilters = "fletcher32";
  return cairn_h5w_dataset(w, zPath, t, rank, dims, NULL, &o, p);
}

/* The row checksum (FORMAT.md "Damage"): CRC-32C of a row's fields as the file holds them
** (the vector in its disk encoding, with the int8 scale first), except the access count,
** which changes (the whole array has its own, /memory@access_crc). */
static uint32_t ckRowCrc(const MemAddArgs *a, uint64_t id, const void *pScale, const void *pVec, size_t nVec) {
  uint8_t h[29];
  cairnPutLE64(h, id);
  cairnPutLE64(h + 8, (uint64_t)a->created);
  cairnPutLE64(h + 16, (uint64_t)a->event);
  h[24] = (uint8_t)a->tier;
  uint32_t u;
  memcpy(&u, &a->imp, 4);
  cairnPutLE32(h + 25, u);
  uint32_t c = cairnCrc32c(0, h, sizeof h);
  const void *ap[4] = {a->zSession, a->zRole, a->zText, a->zMeta};
  size_t an[4] = {a->nSession, a->nRole, a->nText, a->nMeta};
  for (int i = 0; i < 4; i++) {
    uint8_t l[4];
    cairnPutLE32(l, (uint32_t)an[i]);
    c = cairnCrc32c(c, l, 4);
    if (an[i]) c = cairnCrc32c(c, ap[i], an[i]);
  }
  if (pScale) c = cairnCrc32c(c, pScale, 4);
  if (nVec) c = cairnCrc32c(c, pVec, nVec);
  return c;
}
static uint32_t ckU32Crc(const uint32_t *a, size_t n) {
  uint32_t c = 0;
  uint8_t b[4];
  for (size_t i = 0; i < n; i++) cairnPutLE32(b, a[i]), c = cairnCrc32c(c, b, 4);
  return c;
}
/* The CRC of the IVF index: centroids, codebooks, list of each row, PQ codes. */
static uint32_t ckIvfCrc(const MemIvf *ix, size_t nRows) {
  uint32_t c = cairnCrc32c(0, ix->aCent, (size_t)ix->nlist * ix->dim * 4);
  if (ix->m) c = cairnCrc32c(c, ix->aPq, (size_t)ix->m * 256 * ix->dsub * 4);
  c = cairnCrc32c(c, ix->aAssign, nRows * 4);
  if (ix->m) c = cairnCrc32c(c, ix->aCode, nRows * ix->m);
  return c;
}
/* Version 2 rows: the CRC goes on over u64 head, i64 valid_from, u8 flags, then u32 length +
** bytes of the user and the agent names. */
static uint32_t ckRowCrc2(uint32_t c, uint64_t head, int64_t from, uint8_t flags, const char *zU, size_t nU, const char *zA, size_t nA) {
  uint8_t h[17];
  cairnPutLE64(h, head);
  cairnPutLE64(h + 8, (uint64_t)from);
  h[16] = flags;
  c = cairnCrc32c(c, h, sizeof h);
  const char *ap[2] = {zU, zA};
  size_t an[2] = {nU, nA};
  for (int i = 0; i < 2; i++) {
    uint8_t l[4];
    cairnPutLE32(l, (uint32_t)an[i]);
    c = cairnCrc32c(c, l, 4);
    if (an[i]) c = cairnCrc32c(c, ap[i], an[i]);
  }
  return c;
}
static uint32_t ckI64Crc(const int64_t *a, size_t n) {
  uint32_t c = 0;
  uint8_t b[8];
  for (size_t i = 0; i < n; i++) cairnPutLE64(b, (uint64_t)a[i]), c = cairnCrc32c(c, b, 8);
  return c;
}
static uint32_t ckRowCrcMem1(cairn_mem *m, size_t r, uint8_t *scratch);
static uint32_t ckRowCrcMem(cairn_mem *m, size_t r, uint8_t *scratch) {
  uint32_t c = ckRowCrcMem1(m, r, scratch);
  if (!m->ckV2) return c;
  const char *zU = m->aUser[r] ? m->names.z + m->names.aOff[m->aUser[r] - 1] : NULL;
  const char *zA = m->aAgent[r] ? m->names.z + m->names.aOff[m->aAgent[r] - 1] : NULL;
  return ckRowCrc2(c, m->aHead[r], m->aFrom[r], m->aFlags[r], zU, zU ? m->names.aLen[m->aUser[r] - 1] : 0, zA,
                   zA ? m->names.aLen[m->aAgent[r] - 1] : 0);
}
/* Row r of the store in memory as ckRowCrc sees it (scratch: dim * 2 bytes or more). */
static uint32_t ckRowCrcMem1(cairn_mem *m, size_t r, uint8_t *scratch) {
  MemAddArgs a;
  memset(&a, 0, sizeof a);
  a.zText = m->zText + m->aTextOff[r], a.nText = m->aTextLen[r];
  a.zMeta = m->zText + m->aMetaOff[r], a.nMeta = m->aMetaLen[r];
  a.created = m->aCreated[r], a.event = m->aEvent[r], a.tier = m->aTier[r], a.imp = m->aImp[r];
  if (m->aSession[r]) a.zSession = m->names.z + m->names.aOff[m->aSession[r] - 1], a.nSession = m->names.aLen[m->aSession[r] - 1];
  if (m->aRole[r]) a.zRole = m->names.z + m->names.aOff[m->aRole[r] - 1], a.nRole = m->names.aLen[m->aRole[r] - 1];
  if (m->textOnly) return ckRowCrc(&a, r + 1, NULL, NULL, 0);
  const float *v = m->vecs.aF32 + r * m->dim;
  if (m->diskVec == CAIRN_MEM_DISK_F16) {
    for (uint32_t j = 0; j < m->dim; j++) cairnPutLE16(scratch + 2 * j, cairnF32ToF16(v[j]));
    return ckRowCrc(&a, r + 1, NULL, scratch, (size_t)m->dim * 2);
  }
  if (m->diskVec == CAIRN_MEM_DISK_INT8) {
    float sc = cairnQuantI8(v, m->dim, (int8_t *)scratch);
    return ckRowCrc(&a, r + 1, &sc, scratch, m->dim);
  }
  return ckRowCrc(&a, r + 1, NULL, v, (size_t)m->dim * 4);
}
static uint64_t ckVecChunk(const cairn_mem *m) {
  uint64_t sz = m->diskVec == CAIRN_MEM_DISK_F16 ? 2 : m->diskVec == CAIRN_MEM_DISK_INT8 ? 1 : 4;
  uint64_t r = 65536 / ((uint64_t)m->dim * sz);
  return r ? r : 1;
}

/* The empty store: group, attributes, every dataset with no rows (offsets hold their 0). */
static int ckCreateObjects(cairn_mem *m, cairn_h5w *w) {
  CkTypes t;
  CAIRN_TRY(ckTypesInit(&t));
  uint64_t zero = 0;
  int rc = cairn_h5w_group(w, "/memory");
  if (!rc) rc = cairn_h5w_group(w, "/memory/index");
  if (!rc) rc = ckAttrStr(w, "/memory", "format", "cairn-memory");
  if (!rc) rc = ckAttrI64(w, "/memory", "version", cairnMemV1Create ? 1 : 2);
  if (!rc) rc = ckAttrI64(w, "/memory", "dim", m->dim);
  if (!rc) rc = ckAttrStr(w, "/memory", "metric", azMetric[m->metric]);
  if (!rc) rc = ckAttrStr(w, "/memory", "encoding", azEnc[m->textOnly ? 3 : m->diskVec]);
  if (!rc) rc = ckAttrI64(w, "/memory", "count", 0);
  if (!rc) rc = ckDset(w, "/memory/id", t.u64, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/created_ms", t.i64, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/event_ms", t.i64, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/tier", t.u8, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/importance", t.f32, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/access_count", t.u32, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/session", t.u32, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/role", t.u32, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/text_offsets", t.u64, 0, CK_ROW_CHUNK, 1, &zero);
  if (!rc) rc = ckDset(w, "/memory/text_bytes", t.u8, 0, CK_BYTE_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/meta_offsets", t.u64, 0, CK_ROW_CHUNK, 1, &zero);
  if (!rc) rc = ckDset(w, "/memory/meta_bytes", t.u8, 0, CK_BYTE_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/names_offsets", t.u64, 0, 1024, 1, &zero);
  if (!rc) rc = ckDset(w, "/memory/names_bytes", t.u8, 0, 16384, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/row_crc", t.u32, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckAttrI64(w, "/memory", "access_crc", 0);
  /* version 2 (2026-12-02): scopes, versions, tombstones */
  if (cairnMemV1Create) goto vectors;
  if (!rc) rc = ckDset(w, "/memory/user", t.u32, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/agent", t.u32, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/head", t.u64, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/valid_from_ms", t.i64, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/valid_to_ms", t.i64, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckDset(w, "/memory/flags", t.u8, 0, CK_ROW_CHUNK, 0, NULL);
  if (!rc) rc = ckAttrI64(w, "/memory", "valid_crc", 0);
  if (!rc) rc = ckAttrI64(w, "/memory", "forgotten", 0);
vectors:
  if (!rc && !m->textOnly) {
    const cairn_h5w_type *tv = m->diskVec == CAIRN_MEM_DISK_F16 ? t.f16 : m->diskVec == CAIRN_MEM_DISK_INT8 ? t.i8 : t.f32;
    rc = ckDset(w, "/memory/embedding", tv, m->dim, ckVecChunk(m), 0, NULL);
    if (!rc) rc = ckAttrStr(w, "/memory/embedding", "encoding", azEnc[m->diskVec]);
    if (!rc && m->diskVec == CAIRN_MEM_DISK_INT8) rc = ckDset(w, "/memory/embedding_scale", t.f32, 0, CK_ROW_CHUNK, 0, NULL);
  }
  ckTypesFree(&t);
  return rc;
}

/* Append the new IVF rows, or write a new generation of the index (a build since the last
** checkpoint): /memory/index/ivf<gen>, named by the /memory@ivf attribute. */
static int ckIvf(cairn_mem *m, cairn_h5w *w, const CkTypes *t) {
  MemIvf *ix = &m->ivf;
  if (!ix->kind) return CAIRN_OK;
  CAIRN_TRY(cairnIvfAddRows(ix, &m->vecs));
  char zG[64], zP[96];
  cairnFormat(zG, sizeof zG, "/memory/index/ivf%u", m->ivfGen);
  int rc = CAIRN_OK;
  size_t r0 = m->ivfCkRows;
  if (m->ivfCkGen != m->ivfGen) {
    r0 = 0;
    uint64_t d3[3] = {ix->m, 256, ix->dsub}, d2[2] = {ix->nlist, ix->dim};
    rc = cairn_h5w_group(w, zG);
    if (!rc) rc = ckAttrStr(w, zG, "kind", ix->kind == CAIRN_VINDEX_IVFPQ ? "ivfpq" : "ivf");
    if (!rc) cairnFormat(zP, sizeof zP, "%s/centroids", zG), rc = ckDsetFixed(w, zP, t->f32, 2, d2, ix->aCent);
    if (!rc && ix->m) cairnFormat(zP, sizeof zP, "%s/pq_codebooks", zG), rc = ckDsetFixed(w, zP, t->f32, 3, d3, ix->aPq);
    if (!rc) cairnFormat(zP, sizeof zP, "%s/assign", zG), rc = ckDset(w, zP, t->u32, 0, CK_ROW_CHUNK, 0, NULL);
    if (!rc && ix->m) cairnFormat(zP, sizeof zP, "%s/pq_codes", zG), rc = ckDset(w, zP, t->u8, ix->m, CK_ROW_CHUNK, 0, NULL);
    if (!rc) rc = ckAttrStr(w, "/memory", "ivf", zG + 8 /* relative to /memory */);
  }
  if (!rc && ix->nAssigned > r0) {
    cairnFormat(zP, sizeof zP, "%s/assign", zG);
    rc = cairn_h5w_append(w, zP, ix->nAssigned - r0, ix->aAssign + r0);
    if (!rc && ix->m) {
      cairnFormat(zP, sizeof zP, "%s/pq_codes", zG);
      rc = cairn_h5w_append(w, zP, ix->nAssigned - r0, ix->aCode + r0 * ix->m);
    }
  }
  if (!rc) rc = ckAttrI64(w, zG, "rows", (int64_t)ix->nAssigned);
  if (!rc) rc = ckAttrI64(w, zG, "crc", (int64_t)ckIvfCrc(ix, ix->nAssigned));
  return rc;
}

/* Rows of the file: memories [0, nCk) not marked MEM_ROW_ABSENT (forgotten ones are left out
** of the datasets; /memory/id says which memory each row is). r -> its row in the file. */
static size_t ckFileRow(const cairn_mem *m, size_t r) {
  size_t k = 0;
  for (size_t i = 0; i < r; i++) k += !(m->aFlags[i] & MEM_ROW_ABSENT);
  return k;
}
/* The CRC of a per-row array over the rows in the file after this checkpoint (forgotten rows
** in [r0, r1) are left out too). */
static uint32_t ckColCrc(const cairn_mem *m, size_t r0, size_t r1, int i64) {
  uint32_t c = 0;
  uint8_t b[8];
  for (size_t i = 0; i < r1; i++) {
    if ((m->aFlags[i] & MEM_ROW_ABSENT) || (i >= r0 && (m->aFlags[i] & MEM_ROW_DEAD))) continue;
    if (i64) cairnPutLE64(b, (uint64_t)m->aTo[i]), c = cairnCrc32c(c, b, 8);
    else cairnPutLE32(b, m->aAccess[i]), c = cairnCrc32c(c, b, 4);
  }
  return c;
}

/* Rows [nCk, nCommitted) (forgotten ones left out), changed access counts and validity, new
** names and the IVF index into the open writer; the caller commits. */
static int ckAppend(cairn_mem *m, cairn_h5w *w, size_t r1) {
  size_t r0 = m->nCk, nr = 0;
  CkTypes t;
  CAIRN_TRY(ckTypesInit(&t));
  int rc = CAIRN_OK;
  size_t lo0 = CAIRN_MIN(CAIRN_MIN(m->touchMin, m->endMin), r0); /* rows rewritten below */
  size_t nBuf = CAIRN_MAX(CAIRN_MAX(r1 - r0, r0 - lo0), (size_t)1) * 8 + 8;
  uint8_t *buf = cairnMalloc(nBuf);
  size_t *aRow = cairnMallocArray(CAIRN_MAX(r1 - r0, (size_t)1), sizeof(size_t));
  uint8_t *bytes = NULL;
  if (!buf || !aRow) rc = cairnErr(CAIRN_NOMEM, "checkpoint: out of memory");
  for (size_t r = r0; !rc && r < r1; r++)
    if (!(m->aFlags[r] & MEM_ROW_DEAD)) aRow[nr++] = r;
  uint64_t *u64 = (uint64_t *)(void *)buf;
  uint32_t *u32 = (uint32_t *)(void *)buf;
  int64_t *i64 = (int64_t *)(void *)buf;
  uint8_t *u8 = buf;
  float *f32 = (float *)(void *)buf;
#define NAMECOL(arr, path)                                                          \
  if (!rc) {                                                                        \
    for (size_t i = 0; i < nr; i++) u32[i] = m->arr[aRow[i]] ? m->arr[aRow[i]] - 1 : CK_NONE; \
    rc = cairn_h5w_append(w, path, nr, u32);                                        \
  }
#define COL(dst, arr, path)                                                         \
  if (!rc) {                                                                        \
    for (size_t i = 0; i < nr; i++) dst[i] = m->arr[aRow[i]];                      \
    rc = cairn_h5w_append(w, path, nr, dst);                                        \
  }
  if (!rc && nr) {
    for (size_t i = 0; i < nr; i++) u64[i] = aRow[i] + 1;
    rc = cairn_h5w_append(w, "/memory/id", nr, u64);
    COL(i64, aCreated, "/memory/created_ms")
    COL(i64, aEvent, "/memory/event_ms")
    COL(u8, aTier, "/memory/tier")
    COL(f32, aImp, "/memory/importance")
    COL(u32, aAccess, "/memory/access_count")
    NAMECOL(aSession, "/memory/session")
    NAMECOL(aRole, "/memory/role")
    if (!rc && m->ckV2) {
      NAMECOL(aUser, "/memory/user")
      NAMECOL(aAgent, "/memory/agent")
      COL(u64, aHead, "/memory/head")
      COL(i64, aFrom, "/memory/valid_from_ms")
      COL(i64, aTo, "/memory/valid_to_ms")
      COL(u8, aFlags, "/memory/flags")
    }
    /* text and metadata: CSR, absolute offsets */
    for (int pass = 0; !rc && pass < 2; pass++) {
      const size_t *aOff = pass ? m->aMetaOff : m->aTextOff;
      const uint32_t *aLen = pass ? m->aMetaLen : m->aTextLen;
      uint64_t o = pass ? m->nCkMeta : m->nCkText, n = 0;
      for (size_t i = 0; i < nr; i++) n += aLen[aRow[i]];
      cairnFree(bytes);
      bytes = cairnMalloc(n ? (size_t)n : 1);
      if (!bytes) {
        rc = cairnErr(CAIRN_NOMEM, "checkpoint: out of memory");
        break;
      }
      n = 0;
      for (size_t i = 0; i < nr; i++) {
        memcpy(bytes + n, m->zText + aOff[aRow[i]], aLen[aRow[i]]);
        n += aLen[aRow[i]];
        u64[i] = o + n;
      }
      rc = cairn_h5w_append(w, pass ? "/memory/meta_offsets" : "/memory/text_offsets", nr, u64);
      if (!rc && n) rc = cairn_h5w_append(w, pass ? "/memory/meta_bytes" : "/memory/text_bytes", n, bytes);
      if (pass) m->nCkMeta = o + n; /* committed below only if the whole checkpoint commits */
    }
    /* vectors, in the disk encoding (the in-memory values were rounded through it on add) */
    if (!rc && !m->textOnly) {
      const size_t nBlk = 1024;
      size_t es = m->diskVec == CAIRN_MEM_DISK_F16 ? 2 : m->diskVec == CAIRN_MEM_DISK_INT8 ? 1 : 4;
      cairnFree(bytes);
      bytes = cairnMallocArray(nBlk, (size_t)m->dim * es);
      if (!bytes) rc = cairnErr(CAIRN_NOMEM, "checkpoint: out of memory");
      for (size_t b = 0; !rc && b < nr; b += nBlk) {
        size_t k = CAIRN_MIN(nBlk, nr - b);
        for (size_t i = 0; i < k; i++) {
          const float *src = m->vecs.aF32 + aRow[b + i] * m->dim;
          if (m->diskVec == CAIRN_MEM_DISK_F32) {
            memcpy(bytes + i * m->dim * 4, src, (size_t)m->dim * 4);
          } else if (m->diskVec == CAIRN_MEM_DISK_F16) {
            uint16_t *h = (uint16_t *)(void *)bytes + i * m->dim;
            for (uint32_t j = 0; j < m->dim; j++) h[j] = cairnF32ToF16(src[j]);
          } else {
            f32[b + i] = cairnQuantI8(src, m->dim, (int8_t *)bytes + i * m->dim);
          }
        }
        rc = cairn_h5w_append(w, "/memory/embedding", k, bytes);
      }
      if (!rc && m->diskVec == CAIRN_MEM_DISK_INT8) rc = cairn_h5w_append(w, "/memory/embedding_scale", nr, f32);
    }
  }
#undef COL
#undef NAMECOL
  /* access counts of checkpointed rows touched since, and ends of validity of checkpointed
  ** versions superseded since: rewritten from the first one changed (rows in the file) */
  for (int pass = 0; pass < 2 && !rc; pass++) {
    size_t lo = pass ? m->endMin : m->touchMin;
    if (lo >= r0 || (pass && !m->ckV2)) continue;
    size_t k = 0;
    for (size_t r = lo; r < r0; r++) {
      if (m->aFlags[r] & MEM_ROW_ABSENT) continue;
      if (pass) i64[k++] = m->aTo[r];
      else u32[k++] = m->aAccess[r];
    }
    if (k) rc = cairn_h5w_write(w, pass ? "/memory/valid_to_ms" : "/memory/access_count", ckFileRow(m, lo), k, buf);
  }
  if (!rc && m->ckV2) rc = ckAttrI64(w, "/memory", "valid_crc", (int64_t)ckColCrc(m, r0, r1, 1));
  /* new names */
  uint64_t nNameBytes = m->nCkNameBytes;
  if (!rc && m->names.n > m->nCkNames) {
    uint32_t k = m->names.n - m->nCkNames;
    uint64_t *aO = cairnMallocArray(k, 8);
    uint64_t n = 0;
    for (uint32_t i = m->nCkNames; i < m->names.n; i++) n += m->names.aLen[i];
    cairnFree(bytes);
    bytes = cairnMalloc(n ? (size_t)n : 1);
    if (!aO || !bytes) rc = cairnErr(CAIRN_NOMEM, "checkpoint: out of memory");
    n = 0;
    for (uint32_t i = 0; !rc && i < k; i++) {
      uint32_t id = m->nCkNames + i;
      memcpy(bytes + n, m->names.z + m->names.aOff[id], m->names.aLen[id]);
      n += m->names.aLen[id];
      aO[i] = nNameBytes + n;
    }
    if (!rc) rc = cairn_h5w_append(w, "/memory/names_offsets", k, aO);
    if (!rc && n) rc = cairn_h5w_append(w, "/memory/names_bytes", n, bytes);
    nNameBytes += n;
    cairnFree(aO);
  }
  /* row checksums of the new rows (of every row, the first time a store of before 2026-12-02
  ** is checkpointed), and the checksum of every access count */
  if (!rc && (nr || !m->ckRowCrc)) {
    size_t nc = 0;
    uint32_t *aC = cairnMallocArray(CAIRN_MAX(r1, (size_t)1), 4);
    uint8_t *scratch = cairnMalloc((size_t)m->dim * 2 + 8);
    if (!aC || !scratch) rc = cairnErr(CAIRN_NOMEM, "checkpoint: out of memory");
    for (size_t r = m->ckRowCrc ? r0 : 0; !rc && r < r1; r++)
      if (!(m->aFlags[r] & (MEM_ROW_ABSENT | MEM_ROW_DEAD))) aC[nc++] = ckRowCrcMem(m, r, scratch);
    if (!rc && !m->ckRowCrc) rc = ckDset(w, "/memory/row_crc", t.u32, 0, CK_ROW_CHUNK, nc, aC);
    else if (!rc) rc = cairn_h5w_append(w, "/memory/row_crc", nc, aC);
    cairnFree(aC), cairnFree(scratch);
  }
  if (!rc) rc = ckAttrI64(w, "/memory", "access_crc", (int64_t)ckColCrc(m, r0, r1, 0));
  if (!rc) rc = ckIvf(m, w, &t);
  if (!rc) rc = ckAttrI64(w, "/memory", "count", (int64_t)r1);
  if (!rc && m->ckV2) rc = ckAttrI64(w, "/memory", "forgotten", (int64_t)(r1 - (ckFileRow(m, r0) + nr)));
  if (!rc && m->ckV2 && m->zModel[0]) rc = ckAttrStr(w, "/memory", "model", m->zModel);
  if (!rc) m->nCkNameBytes = nNameBytes;
  cairnFree(bytes);
  cairnFree(buf);
  cairnFree(aRow);
  ckTypesFree(&t);
  return rc;
}
/* After a checkpoint of rows [r0, r1): the forgotten ones are not in the file. */
static void ckMarkAbsent(cairn_mem *m, size_t r0, size_t r1) {
  for (size_t r = r0; r < r1; r++)
    if (m->aFlags[r] & MEM_ROW_DEAD) m->aFlags[r] |= MEM_ROW_ABSENT;
}

/* Move the committed log into the HDF5 datasets. Needs no uncommitted work (the caller
** commits or checks). Crash-safe: the writer writes after the log (CAIRN_H5W_TAIL) and
** switches the superblock last; before the switch the old checkpoint + log is the store,
** after it the new checkpoint, whose end of allocation covers the old log. */
int cairnMemCheckpointRun(cairn_mem *m) {
  if (m->rcFatal) return cairnErr(m->rcFatal, "checkpoint: an earlier checkpoint failed after its superblock switch; reopen the store");
  if (m->fmt != 2) return cairnErr(CAIRN_UNSUPPORTED, "checkpoint: a log-only store of format 1 (before 2026-11-29) has no HDF5 part");
  int64_t t0 = cairnClock(1);
  size_t r1 = m->nCommitted;
  if (r1 == m->nCk && m->touchMin == SIZE_MAX && m->endMin == SIZE_MAX && !m->forgetPending && m->nFile == m->logStart &&
      (!m->ivf.kind || m->ivfCkGen == m->ivfGen) && !cairnMemHookPending(m))
    return CAIRN_OK;
  /* a forget since the last checkpoint, or a store of version 1 (migrated): rewrite it whole */
  if (m->forgetPending || (!m->ckV2 && !cairnMemV1Create)) {
    int rc = cairnMemRewrite(m);
    if (rc == CAIRN_OK) m->ckNs = cairnClock(1) - t0;
    return rc;
  }
  cairn_h5w *w = NULL;
  uint64_t nCkText0 = m->nCkText, nCkMeta0 = m->nCkMeta, nCkNb0 = m->nCkNameBytes;
  /* RECLAIM: the space of old logs and of chunks rewritten by earlier checkpoints is found
  ** (a walk of the metadata only) and reused */
  int rc = cairn_h5w_open(m->f, CAIRN_H5W_TAIL | CAIRN_H5W_RECLAIM | (m->noSync ? CAIRN_H5W_NOSYNC : 0), &w);
  if (!rc) rc = ckAppend(m, w, r1);
  if (!rc) rc = cairnMemHookSave(m, w, 0); /* the graph's group, same commit (mem_hook.h) */
  if (!rc) rc = cairn_h5w_commit(w);
  cairn_h5w_stats st;
  memset(&st, 0, sizeof st);
  if (!rc) rc = cairn_h5w_stats_get(w, &st);
  cairn_h5w_discard(w);
  cairnMemHookSaved(m, 0, rc == CAIRN_OK);
  if (rc) {
    char zErr[256];
    cairnFormat(zErr, sizeof zErr, "%s", cairn_errmsg());
    m->nCkText = nCkText0, m->nCkMeta = nCkMeta0, m->nCkNameBytes = nCkNb0;
    /* Did the superblock switch reach the file? If not, the old checkpoint and the whole log
    ** are the store: drop what the writer left after the log and go on. If it did (a sync
    ** failed after it), either state may be the durable one: refuse every later write. */
    uint8_t sb[48];
    if (cairn_file_read_exact(m->f, sb, 48, 0) == CAIRN_OK && cairnGetLE64(sb + 28) == m->logStart)
      (void)cairn_file_truncate(m->f, m->nFile);
    else
      m->rcFatal = rc;
    return cairnErr(rc, "checkpoint: %s", zErr);
  }
  /* text bytes are the sum of the rows' lengths */
  for (size_t i = m->nCk; i < r1; i++) m->nCkText += m->aTextLen[i];
  ckMarkAbsent(m, m->nCk, r1);
  m->nCk = r1;
  m->ckRowCrc = 1;
  m->nCkNames = m->names.n;
  m->touchMin = SIZE_MAX;
  m->endMin = SIZE_MAX;
  if (m->ivf.kind) m->ivfCkGen = m->ivfGen, m->ivfCkRows = m->ivf.nAssigned;
  m->logStart = m->nFile = st.nEof;
  uint64_t size = 0;
  if (cairn_file_size(m->f, &size) == CAIRN_OK && size > st.nEof) (void)cairn_file_truncate(m->f, st.nEof);
  m->nCheckpoint++;
  m->ckNs = cairnClock(1) - t0;
  return CAIRN_OK;
}

int cairn_mem_checkpoint(cairn_mem *m) {
  if (!m) return cairnErr(CAIRN_MISUSE, "mem_checkpoint: NULL store");
  if (m->readOnly) return cairnErr(CAIRN_READONLY, "mem_checkpoint: store opened read-only");
  if (!m->f) return CAIRN_OK;
  CAIRN_TRY(cairn_mem_commit(m));
  return cairnMemCheckpointRun(m);
}

/* A new file: an HDF5 file holding the empty store; the log starts at its end. */
int cairnMemCkCreate(cairn_mem *m) {
  cairn_h5w *w = NULL;
  CAIRN_TRY(cairn_h5w_create(m->f, m->noSync ? CAIRN_H5W_NOSYNC : 0, &w));
  int rc = ckCreateObjects(m, w);
  if (!rc) rc = cairn_h5w_commit(w);
  cairn_h5w_stats st;
  if (!rc) rc = cairn_h5w_stats_get(w, &st);
  cairn_h5w_discard(w);
  if (rc) return cairnErr(rc, "mem_open: cannot create the store: %s", cairn_errmsg());
  m->fmt = 2;
  m->ckRowCrc = 1;
  m->ckV2 = !cairnMemV1Create;
  m->logStart = m->nFile = st.nEof;
  return CAIRN_OK;
}

/* ---- reading the checkpoint ---- */
static int h5Attr(cairn_h5_obj *o, const char *zName, int64_t *pv, char *zStr, size_t nStr) {
  cairn_h5_obj *a = NULL;
  CAIRN_TRY(cairn_h5_attr(o, zName, &a));
  cairn_h5_info in;
  int rc = cairn_h5_info_get(a, &in);
  if (!rc && in.nElem != 1) rc = cairnErr(CAIRN_CORRUPT, "store: attribute %s is not a scalar", zName);
  if (!rc && zStr) {
    if (in.typeClass != CAIRN_H5_T_STRING || in.typeVlenString || in.typeSize >= nStr)
      rc = cairnErr(CAIRN_CORRUPT, "store: attribute %s is not a short fixed string", zName);
    else {
      memset(zStr, 0, nStr);
      rc = cairn_h5_read(a, NULL, CAIRN_H5_NATIVE, zStr, in.typeSize);
    }
  } else if (!rc) {
    if (in.typeClass != CAIRN_H5_T_INTEGER) rc = cairnErr(CAIRN_CORRUPT, "store: attribute %s is not an integer", zName);
    else rc = cairn_h5_read(a, NULL, CAIRN_H5_I64, pv, 8);
  }
  cairn_h5_obj_close(a);
  return rc;
}
static int strIndex(const char *z, const char *const *az, int n) {
  for (int i = 0; i < n; i++)
    if (!strcmp(z, az[i])) return i;
  return -1;
}

/* Rows [row0, row0 + nRow) of a rank-1 (nCol 0) or rank-2 dataset into buf as mt; *pnRow (if
** not NULL) gets its row count and then nothing is read. */
static int h5Rows(cairn_h5 *h, const char *zPath, cairn_h5_mtype mt, size_t es, uint64_t nCol, uint64_t row0, uint64_t nRow,
                  void *buf, uint64_t *pnRow) {
  cairn_h5_obj *o = NULL;
  int rc = cairn_h5_get(h, zPath, &o);
  if (rc) return cairnErr(rc, "store: %s", cairn_errmsg());
  cairn_h5_info in;
  rc = cairn_h5_info_get(o, &in);
  if (!rc && (in.kind != CAIRN_H5_DATASET || in.rank != (nCol ? 2u : 1u) || (nCol && in.dims[1] != nCol) ||
              (mt == CAIRN_H5_NATIVE && in.typeSize != es) || (in.typeClass != CAIRN_H5_T_INTEGER && in.typeClass != CAIRN_H5_T_FLOAT)))
    rc = cairnErr(CAIRN_CORRUPT, "store: %s has the wrong shape or type", zPath);
  if (!rc && pnRow) *pnRow = in.dims[0];
  else if (!rc && (row0 > in.dims[0] || nRow > in.dims[0] - row0))
    rc = cairnErr(CAIRN_CORRUPT, "store: %s has %llu rows, %llu needed", zPath, (unsigned long long)in.dims[0],
                  (unsigned long long)(row0 + nRow));
  else if (!rc && nRow) {
    cairn_h5_sel sel;
    memset(&sel, 0, sizeof sel);
    sel.rank = in.rank;
    sel.start[0] = row0, sel.count[0] = nRow;
    if (nCol) sel.count[1] = nCol;
    rc = cairn_h5_read(o, &sel, mt, buf, (size_t)(nRow * (nCol ? nCol : 1) * es));
  }
  cairn_h5_obj_close(o);
  return rc;
}

/* The file offset a reader's message names ("... at offset 123 ..."), 0 if none. */
static uint64_t msgOffset(const char *z) {
  const char *p = strstr(z, "offset ");
  uint64_t v = 0;
  if (p)
    for (p += 7; *p >= '0' && *p <= '9'; p++) v = v * 10 + (uint64_t)(*p - '0');
  return v;
}
static void ckNote(cairn_mem *m, const char *zWhat) {
  char z[256];
  cairnFormat(z, sizeof z, "%s: %s", zWhat, cairn_errmsg());
  cairnMemNoteDamage(m, msgOffset(z), z);
  cairn_clearerr();
}

/* Rows [0, nRow) of a dataset into buf. verify / salvage: when the whole read fails, block by
** block; a block that cannot be read is zeros and marks aBad[row / gran] for its rows. */
static int ckRowsT(cairn_mem *m, const char *zPath, cairn_h5_mtype mt, size_t es, uint64_t nCol, uint64_t nRow, void *buf,
                   uint64_t blk, uint8_t *aBad, uint64_t gran) {
  int rc = h5Rows(m->pH5, zPath, mt, es, nCol, 0, nRow, buf, NULL);
  if (rc == CAIRN_OK || !m->pVer || CAIRN_PRIMARY(rc) == CAIRN_NOMEM) return rc;
  ckNote(m, zPath);
  size_t rowBytes = es * (size_t)(nCol ? nCol : 1);
  for (uint64_t b = 0; b < nRow; b += blk) {
    uint64_t k = CAIRN_MIN(blk, nRow - b);
    if (h5Rows(m->pH5, zPath, mt, es, nCol, b, k, (uint8_t *)buf + b * rowBytes, NULL) == CAIRN_OK) continue;
    cairn_clearerr();
    memset((uint8_t *)buf + b * rowBytes, 0, (size_t)k * rowBytes);
    for (uint64_t i = b / gran; i <= (b + k - 1) / gran; i++) aBad[i] = 1;
  }
  return CAIRN_OK;
}

/* Offsets of a CSR array: n + 1 nondecreasing values starting at 0, the last <= the bytes.
** verify / salvage: entries that are unreadable or out of order, or whose bytes are, mark
** aBad[i] for the entries i they spoil instead of failing. */
static int h5Csr(cairn_mem *m, const char *zOff, const char *zBytes, uint64_t n, uint64_t **paOff, uint8_t **paBytes, uint8_t *aBad) {
  cairn_h5 *h = m->pH5;
  int sal = m->pVer != NULL;
  *paOff = NULL, *paBytes = NULL;
  uint64_t nO = 0, nB = 0;
  int rc = h5Rows(h, zOff, CAIRN_H5_U64, 8, 0, 0, 0, NULL, &nO);
  if (!rc) rc = h5Rows(h, zBytes, CAIRN_H5_U8, 1, 0, 0, 0, NULL, &nB);
  if (!rc && nO < n + 1) rc = cairnErr(CAIRN_CORRUPT, "store: %s has %llu entries for %llu rows", zOff, (unsigned long long)nO, (unsigned long long)n);
  if (!rc && sal && nB > ((uint64_t)1 << 36)) rc = cairnErr(CAIRN_CORRUPT, "store: %s has %llu bytes", zBytes, (unsigned long long)nB);
  if (rc && (!sal || CAIRN_PRIMARY(rc) == CAIRN_NOMEM)) return rc;
  uint64_t *aO = cairnMallocArray((size_t)n + 1, 8);
  if (!aO) return cairnErr(CAIRN_NOMEM, "store: %s", zOff);
  if (rc) { /* salvage: the arrays themselves are unreadable */
    ckNote(m, zOff);
    memset(aO, 0, ((size_t)n + 1) * 8);
    memset(aBad, 1, (size_t)n);
    uint8_t *aB = cairnMalloc(1);
    if (!aB) return cairnFree(aO), cairnErr(CAIRN_NOMEM, "store: %s", zBytes);
    *paOff = aO, *paBytes = aB;
    return CAIRN_OK;
  }
  uint8_t *aBadO = sal ? cairnMallocZero((size_t)n + 1) : NULL;
  uint64_t nBlk = nB / CK_BYTE_CHUNK + 1;
  uint8_t *aBadB = sal ? cairnMallocZero((size_t)nBlk) : NULL;
  if (sal && (!aBadO || !aBadB)) rc = cairnErr(CAIRN_NOMEM, "store: %s", zOff);
  if (!rc) rc = ckRowsT(m, zOff, CAIRN_H5_U64, 8, 0, n + 1, aO, CK_ROW_CHUNK, aBadO, 1);
  for (uint64_t i = 0; !rc && i <= n; i++)
    if ((i == 0 && aO[0] != 0) || (i && aO[i] < aO[i - 1]) || aO[i] > nB) {
      if (!sal) {
        rc = cairnErr(CAIRN_CORRUPT, "store: %s[%llu] = %llu out of order or past %llu bytes", zOff, (unsigned long long)i,
                      (unsigned long long)aO[i], (unsigned long long)nB);
        break;
      }
      aBadO[i] = 1;
      if (aO[i] > nB) aO[i] = nB;
      if (i && aO[i] < aO[i - 1]) aBadO[i - 1] = 1;
    }
  uint64_t nRead = sal ? nB : (rc ? 0 : aO[n]);
  uint8_t *aB = NULL;
  if (!rc) {
    aB = cairnMalloc(nRead ? (size_t)nRead : 1);
    if (!aB) rc = cairnErr(CAIRN_NOMEM, "store: %s of %llu bytes", zBytes, (unsigned long long)nRead);
  }
  if (!rc) rc = ckRowsT(m, zBytes, CAIRN_H5_U8, 1, 0, nRead, aB, CK_BYTE_CHUNK, aBadB, CK_BYTE_CHUNK);
  for (uint64_t i = 0; sal && !rc && i < n; i++) {
    int bad = aBadO[i] || aBadO[i + 1] || aO[i] > aO[i + 1];
    for (uint64_t k = aO[i] / CK_BYTE_CHUNK; !bad && aO[i + 1] > aO[i] && k <= (aO[i + 1] - 1) / CK_BYTE_CHUNK; k++) bad = aBadB[k];
    if (bad) aBad[i] = 1;
  }
  cairnFree(aBadO), cairnFree(aBadB);
  if (rc) {
    cairnFree(aO), cairnFree(aB);
    return rc;
  }
  *paOff = aO, *paBytes = aB;
  return CAIRN_OK;
}

/* Read the store's settings from /memory (the file's superblock was checked by the caller). */
static int ckHeader(cairn_mem *m, const cairn_mem_config *cfg, int64_t *pCount) {
  cairn_h5_obj *g = NULL;
  int rc = cairn_h5_get(m->pH5, "/memory", &g);
  if (CAIRN_PRIMARY(rc) == CAIRN_NOTFOUND) return cairnErr(CAIRN_CORRUPT, "mem_open: an HDF5 file without a /memory group (%s)", cairn_errmsg());
  if (rc) return cairnErr(rc, "mem_open: /memory: %s", cairn_errmsg());
  char zFmt[32], zMetric[16], zEnc[16];
  int64_t ver = 0, dim = 0;
  rc = h5Attr(g, "format", NULL, zFmt, sizeof zFmt);
  if (!rc && strcmp(zFmt, "cairn-memory")) rc = cairnErr(CAIRN_CORRUPT, "mem_open: /memory@format is '%s', not 'cairn-memory'", zFmt);
  if (!rc) rc = h5Attr(g, "version", &ver, NULL, 0);
  if (!rc && ver != 1 && ver != 2) rc = cairnErr(CAIRN_UNSUPPORTED, "mem_open: store version %lld (this build reads 1 and 2)", (long long)ver);
  if (!rc) m->ckV2 = ver == 2;
  if (!rc) rc = h5Attr(g, "dim", &dim, NULL, 0);
  if (!rc) rc = h5Attr(g, "metric", NULL, zMetric, sizeof zMetric);
  if (!rc) rc = h5Attr(g, "encoding", NULL, zEnc, sizeof zEnc);
  if (!rc) rc = h5Attr(g, "count", pCount, NULL, 0);
  int metric = rc ? -1 : strIndex(zMetric, azMetric, 3), enc = rc ? -1 : strIndex(zEnc, azEnc, 4);
  if (!rc && (dim < 1 || dim > CAIRN_MEM_MAX_DIM || metric < 0 || enc < 0 || *pCount < 0 || *pCount > (int64_t)1 << 40))
    rc = cairnErr(CAIRN_CORRUPT, "mem_open: /memory attributes out of range (dim %lld, metric '%s', encoding '%s', count %lld)",
                  (long long)dim, zMetric, zEnc, (long long)*pCount);
  if (!rc && cfg && cfg->dim && cfg->dim != (uint32_t)dim)
    rc = cairnErr(CAIRN_MISUSE, "mem_open: the store has %u dimensions, %u were asked for", (uint32_t)dim, cfg->dim);
  if (!rc && m->ckV2) { /* the embedding model, when one was named */
    int rc2 = h5Attr(g, "model", NULL, m->zModel, sizeof m->zModel);
    if (rc2 == CAIRN_NOTFOUND || CAIRN_PRIMARY(rc2) == CAIRN_NOTFOUND) cairn_clearerr(), m->zModel[0] = 0;
    else rc = rc2;
  }
  if (!rc) {
    m->dim = (uint32_t)dim, m->metric = metric;
    m->textOnly = enc == 3;
    m->diskVec = enc == 3 ? 0 : enc;
  }
  cairn_h5_obj_close(g);
  return rc;
}

static int ckLoadIvf(cairn_mem *m) {
  cairn_h5_obj *g = NULL;
  CAIRN_TRY(cairn_h5_get(m->pH5, "/memory", &g));
  char zRel[48], zG[64], zP[96], zKind[16];
  int rc = h5Attr(g, "ivf", NULL, zRel, sizeof zRel);
  cairn_h5_obj_close(g);
  if (rc == CAIRN_NOTFOUND) {
    cairn_clearerr();
    return CAIRN_OK;
  }
  if (rc) return rc;
  unsigned gen = 0;
  for (const char *z = zRel + 9; *z; z++) gen = gen * 10 + (unsigned)(*z - '0');
  if (strncmp(zRel, "index/ivf", 9) || !zRel[9] || gen == 0 || strlen(zRel) > 18)
    return cairnErr(CAIRN_CORRUPT, "mem_open: /memory@ivf is '%s'", zRel);
  for (const char *z = zRel + 9; *z; z++)
    if (*z < '0' || *z > '9') return cairnErr(CAIRN_CORRUPT, "mem_open: /memory@ivf is '%s'", zRel);
  cairnFormat(zG, sizeof zG, "/memory/%s", zRel);
  int64_t nAs = 0, ivfCrc = -1;
  CAIRN_TRY(cairn_h5_get(m->pH5, zG, &g));
  rc = h5Attr(g, "kind", NULL, zKind, sizeof zKind);
  if (!rc) rc = h5Attr(g, "rows", &nAs, NULL, 0);
  if (!rc && m->ckRowCrc) rc = h5Attr(g, "crc", &ivfCrc, NULL, 0); /* written with the row checksums */
  cairn_h5_obj *c = NULL;
  cairn_h5_info in;
  cairnFormat(zP, sizeof zP, "%s/centroids", zG);
  if (!rc) rc = cairn_h5_get(m->pH5, zP, &c);
  if (!rc) rc = cairn_h5_info_get(c, &in);
  MemIvf nx;
  memset(&nx, 0, sizeof nx);
  nx.kind = !rc && !strcmp(zKind, "ivfpq") ? CAIRN_VINDEX_IVFPQ : CAIRN_VINDEX_IVF;
  nx.dim = m->dim, nx.metric = m->metric;
  if (!rc && (in.rank != 2 || in.dims[1] != m->dim || in.dims[0] == 0 || in.dims[0] > 65536 || nAs < 0 || (uint64_t)nAs > m->n ||
              (strcmp(zKind, "ivf") && strcmp(zKind, "ivfpq"))))
    rc = cairnErr(CAIRN_CORRUPT, "mem_open: bad IVF index in %s", zG);
  cairn_h5_obj_close(c);
  cairn_h5_obj_close(g);
  if (rc) return rc;
  nx.nlist = (uint32_t)in.dims[0];
  uint64_t nM = 0;
  if (nx.kind == CAIRN_VINDEX_IVFPQ) {
    cairnFormat(zP, sizeof zP, "%s/pq_codes", zG);
    uint64_t nR = 0;
    cairn_h5_obj *o = NULL;
    rc = cairn_h5_get(m->pH5, zP, &o);
    if (!rc) rc = cairn_h5_info_get(o, &in);
    if (!rc && (in.rank != 2 || in.dims[1] == 0 || m->dim % in.dims[1])) rc = cairnErr(CAIRN_CORRUPT, "mem_open: bad %s", zP);
    if (!rc) nM = in.dims[1], nR = in.dims[0];
    (void)nR;
    cairn_h5_obj_close(o);
    if (rc) return rc;
    nx.m = (uint32_t)nM, nx.dsub = m->dim / nx.m;
  }
  nx.aCent = cairnMallocArray(nx.nlist, (size_t)nx.dim * 4);
  nx.aCentSq = cairnMallocArray(nx.nlist, 4);
  nx.aPq = nx.m ? cairnMallocArray((size_t)nx.m * 256, (size_t)nx.dsub * 4) : NULL;
  nx.aAssign = cairnMallocArray(CAIRN_MAX((size_t)nAs, 1), 4);
  nx.aCode = nx.m ? cairnMallocArray(CAIRN_MAX((size_t)nAs, 1), nx.m) : NULL;
  nx.nAlloc = CAIRN_MAX((size_t)nAs, 1);
  if (!nx.aCent || !nx.aCentSq || (nx.m && (!nx.aPq || !nx.aCode)) || !nx.aAssign) rc = cairnErr(CAIRN_NOMEM, "mem_open: IVF index");
  cairnFormat(zP, sizeof zP, "%s/centroids", zG);
  if (!rc) rc = h5Rows(m->pH5, zP, CAIRN_H5_F32, 4, nx.dim, 0, nx.nlist, nx.aCent, NULL);
  if (!rc && nx.m) {
    cairn_h5_obj *o = NULL;
    cairnFormat(zP, sizeof zP, "%s/pq_codebooks", zG);
    rc = cairn_h5_get(m->pH5, zP, &o);
    if (!rc) rc = cairn_h5_info_get(o, &in);
    if (!rc && (in.rank != 3 || in.dims[0] != nx.m || in.dims[1] != 256 || in.dims[2] != nx.dsub))
      rc = cairnErr(CAIRN_CORRUPT, "mem_open: bad %s", zP);
    if (!rc) rc = cairn_h5_read(o, NULL, CAIRN_H5_F32, nx.aPq, (size_t)nx.m * 256 * nx.dsub * 4);
    cairn_h5_obj_close(o);
  }
  cairnFormat(zP, sizeof zP, "%s/assign", zG);
  if (!rc) rc = h5Rows(m->pH5, zP, CAIRN_H5_U32, 4, 0, 0, (uint64_t)nAs, nx.aAssign, NULL);
  cairnFormat(zP, sizeof zP, "%s/pq_codes", zG);
  if (!rc && nx.m) rc = h5Rows(m->pH5, zP, CAIRN_H5_U8, 1, nx.m, 0, (uint64_t)nAs, nx.aCode, NULL);
  for (int64_t i = 0; !rc && i < nAs; i++)
    if (nx.aAssign[i] >= nx.nlist) rc = cairnErr(CAIRN_CORRUPT, "mem_open: %s/assign[%lld] = %u >= %u lists", zG, (long long)i, nx.aAssign[i], nx.nlist);
  for (uint32_t cc = 0; !rc && cc < nx.nlist; cc++) {
    float *ct = nx.aCent + (size_t)cc * nx.dim;
    for (uint32_t j = 0; j < nx.dim; j++)
      if (!memIsFinite(ct[j])) {
        rc = cairnErr(CAIRN_CORRUPT, "mem_open: IVF centroid %u is not finite in %s", cc, zG);
        break;
      }
    if (!rc) nx.aCentSq[cc] = cairnMemDot(ct, ct, nx.dim);
  }
  if (!rc && ivfCrc >= 0 && (uint32_t)ivfCrc != ckIvfCrc(&nx, (size_t)nAs))
    rc = cairnErr(CAIRN_CORRUPT, "mem_open: the IVF index in %s fails its checksum (%s@crc)", zG, zG);
  if (rc) {
    cairnIvfFree(&nx);
    return rc;
  }
  nx.nAssigned = (size_t)nAs;
  nx.dirty = 1;
  cairnIvfFree(&m->ivf);
  m->ivf = nx;
  m->ivfGen = m->ivfCkGen = gen;
  m->ivfCkRows = (size_t)nAs;
  return CAIRN_OK;
}

/* Forgotten memories the file leaves out: tombstones in memory up to row n. */
static int ckPadForgotten(cairn_mem *m, size_t n) {
  while (m->n < n) {
    MemAddArgs a;
    memset(&a, 0, sizeof a);
    a.flags = MEM_ROW_DEAD | MEM_ROW_ABSENT;
    CAIRN_TRY(cairnMemApplyAdd(m, &a));
  }
  return CAIRN_OK;
}

/* Load every row of the checkpoint into memory (rebuilding BM25 and the vector copies as the
** adds do), check each against its row checksum, then the access counts and the persisted IVF
** index. verify / salvage: rows that fail are left out (and noted), the rest renumbered. */
int cairnMemCkLoad(cairn_mem *m, uint64_t nRow) {
  cairn_h5 *h = m->pH5;
  int sal = m->pVer != NULL;
  int rc = CAIRN_OK;
  uint64_t *aTo = NULL, *aMo = NULL, *aNo = NULL, *aId = NULL;
  uint8_t *aTb = NULL, *aMb = NULL, *aNb = NULL, *aTier = NULL, *aVec = NULL, *aBad = NULL, *aBadName = NULL;
  int64_t *aCr = NULL, *aEv = NULL;
  float *aImp = NULL, *aSc = NULL;
  uint32_t *aAcc = NULL, *aSes = NULL, *aRole = NULL, *aCrc = NULL;
  uint32_t *aUsr = NULL, *aAgt = NULL;
  uint64_t *aHd = NULL;
  int64_t *aFr = NULL, *aVt = NULL;
  uint8_t *aFl = NULL;
  uint64_t nNames = 0;
  /* version 2: @count is the number of memories (the next id - 1), the datasets hold the rows
  ** of those not forgotten (their ids in /memory/id); version 1: one row per memory */
  uint64_t nMem = nRow;
  if (m->ckV2) {
    rc = h5Rows(h, "/memory/id", CAIRN_H5_U64, 8, 0, 0, 0, NULL, &nRow);
    if (rc && sal && CAIRN_PRIMARY(rc) != CAIRN_NOMEM) ckNote(m, "/memory/id"), nRow = 0, rc = CAIRN_OK;
    if (rc) return rc;
    int64_t nForgot = -1;
    cairn_h5_obj *g = NULL;
    rc = cairn_h5_get(h, "/memory", &g);
    if (!rc) rc = h5Attr(g, "forgotten", &nForgot, NULL, 0);
    cairn_h5_obj_close(g);
    if (rc && sal && CAIRN_PRIMARY(rc) != CAIRN_NOMEM) ckNote(m, "/memory@forgotten"), nForgot = (int64_t)(nMem - nRow), rc = CAIRN_OK;
    if (rc) return rc;
    if (nRow > nMem || nForgot < 0 || nRow + (uint64_t)nForgot != nMem)
      return cairnErr(CAIRN_CORRUPT, "store: /memory/id has %llu rows, but /memory@count is %llu and @forgotten %lld", (unsigned long long)nRow,
                      (unsigned long long)nMem, (long long)nForgot);
  }
  size_t n = (size_t)nRow;
  if ((uint64_t)n != nRow || (uint64_t)(size_t)nMem != nMem) return cairnErr(CAIRN_RANGE, "mem_open: %llu rows", (unsigned long long)nMem);
  if (sal) {
    m->pVer->nCheckpointed = nMem;
    if (m->pVer->nMemory < nMem) m->pVer->nMemory = nMem;
  }
  size_t nA = CAIRN_MAX(n, (size_t)1);
  aId = cairnMallocArray(nA, 8), aCr = cairnMallocArray(nA, 8), aEv = cairnMallocArray(nA, 8), aTier = cairnMalloc(nA);
  aImp = cairnMallocArray(nA, 4), aAcc = cairnMallocArray(nA, 4), aSes = cairnMallocArray(nA, 4), aRole = cairnMallocArray(nA, 4);
  aCrc = cairnMallocArray(nA, 4), aBad = cairnMallocZero(nA);
  if (!aId || !aCr || !aEv || !aTier || !aImp || !aAcc || !aSes || !aRole || !aCrc || !aBad) rc = cairnErr(CAIRN_NOMEM, "mem_open: %zu rows", n);
  /* /memory/row_crc: in every store created or checkpointed from 2026-12-02 on */
  cairn_h5_obj *oc = NULL;
  if (!rc) {
    int rc2 = cairn_h5_get(h, "/memory/row_crc", &oc);
    m->ckRowCrc = rc2 == CAIRN_OK;
    cairn_h5_obj_close(oc);
    if (CAIRN_PRIMARY(rc2) == CAIRN_NOTFOUND) cairn_clearerr();
    else if (rc2 && !(sal && CAIRN_PRIMARY(rc2) != CAIRN_NOMEM)) rc = rc2;
    else if (rc2) ckNote(m, "/memory/row_crc"), m->ckRowCrc = 1; /* salvage: every row then fails its checksum */
  }
#define ROWS(path, mt, es, buf) ckRowsT(m, path, mt, es, 0, nRow, buf, CK_ROW_CHUNK, aBad, 1)
  if (!rc) rc = ROWS("/memory/id", CAIRN_H5_U64, 8, aId);
  if (!rc) rc = ROWS("/memory/created_ms", CAIRN_H5_I64, 8, aCr);
  if (!rc) rc = ROWS("/memory/event_ms", CAIRN_H5_I64, 8, aEv);
  if (!rc) rc = ROWS("/memory/tier", CAIRN_H5_U8, 1, aTier);
  if (!rc) rc = ROWS("/memory/importance", CAIRN_H5_F32, 4, aImp);
  if (!rc) rc = ROWS("/memory/access_count", CAIRN_H5_U32, 4, aAcc);
  if (!rc) rc = ROWS("/memory/session", CAIRN_H5_U32, 4, aSes);
  if (!rc) rc = ROWS("/memory/role", CAIRN_H5_U32, 4, aRole);
  if (!rc && m->ckRowCrc) rc = ROWS("/memory/row_crc", CAIRN_H5_U32, 4, aCrc);
  if (!rc && m->ckV2) {
    aUsr = cairnMallocArray(nA, 4), aAgt = cairnMallocArray(nA, 4), aHd = cairnMallocArray(nA, 8);
    aFr = cairnMallocArray(nA, 8), aVt = cairnMallocArray(nA, 8), aFl = cairnMalloc(nA);
    if (!aUsr || !aAgt || !aHd || !aFr || !aVt || !aFl) rc = cairnErr(CAIRN_NOMEM, "mem_open: %zu rows", n);
    if (!rc) rc = ROWS("/memory/user", CAIRN_H5_U32, 4, aUsr);
    if (!rc) rc = ROWS("/memory/agent", CAIRN_H5_U32, 4, aAgt);
    if (!rc) rc = ROWS("/memory/head", CAIRN_H5_U64, 8, aHd);
    if (!rc) rc = ROWS("/memory/valid_from_ms", CAIRN_H5_I64, 8, aFr);
    if (!rc) rc = ROWS("/memory/valid_to_ms", CAIRN_H5_I64, 8, aVt);
    if (!rc) rc = ROWS("/memory/flags", CAIRN_H5_U8, 1, aFl);
  }
#undef ROWS
  if (!rc) rc = h5Csr(m, "/memory/text_offsets", "/memory/text_bytes", nRow, &aTo, &aTb, aBad);
  if (!rc) rc = h5Csr(m, "/memory/meta_offsets", "/memory/meta_bytes", nRow, &aMo, &aMb, aBad);
  if (!rc) rc = h5Rows(h, "/memory/names_offsets", CAIRN_H5_U64, 8, 0, 0, 0, NULL, &nNames);
  if (!rc && (nNames == 0 || nNames > ((uint64_t)1 << 31))) rc = cairnErr(CAIRN_CORRUPT, "store: /memory/names_offsets is empty");
  if (rc && sal && CAIRN_PRIMARY(rc) != CAIRN_NOMEM) ckNote(m, "/memory/names_offsets"), nNames = 1, rc = CAIRN_OK;
  if (!rc) {
    aBadName = cairnMallocZero((size_t)nNames);
    if (!aBadName) rc = cairnErr(CAIRN_NOMEM, "mem_open: names");
  }
  if (!rc) rc = h5Csr(m, "/memory/names_offsets", "/memory/names_bytes", --nNames, &aNo, &aNb, aBadName);
  /* the names table, in file order (a later checkpoint appends to it) */
  for (uint64_t i = 0; !rc && !sal && i < nNames; i++) {
    uint64_t len = aNo[i + 1] - aNo[i];
    uint32_t id = 0;
    if (len == 0 || len > CAIRN_MEM_MAX_NAME) rc = cairnErr(CAIRN_CORRUPT, "store: name %llu has %llu bytes", (unsigned long long)i, (unsigned long long)len);
    else if (cairnMemNamesFind(&m->names, (const char *)aNb + aNo[i], (size_t)len, &id, 0) == CAIRN_OK)
      rc = cairnErr(CAIRN_CORRUPT, "store: name %llu appears twice", (unsigned long long)i);
    else {
      cairn_clearerr();
      rc = cairnMemNamesFind(&m->names, (const char *)aNb + aNo[i], (size_t)len, &id, 1);
    }
  }
  const size_t nBlk = 1024;
  size_t es = m->diskVec == CAIRN_MEM_DISK_F16 ? 2 : m->diskVec == CAIRN_MEM_DISK_INT8 ? 1 : 4;
  if (!rc && !m->textOnly) {
    aVec = cairnMallocArray(nBlk, (size_t)m->dim * es);
    aSc = m->diskVec == CAIRN_MEM_DISK_INT8 ? cairnMallocArray(nA, 4) : NULL;
    if (!aVec || (m->diskVec == CAIRN_MEM_DISK_INT8 && !aSc)) rc = cairnErr(CAIRN_NOMEM, "mem_open: vectors");
    if (!rc && aSc) rc = ckRowsT(m, "/memory/embedding_scale", CAIRN_H5_F32, 4, 0, nRow, aSc, CK_ROW_CHUNK, aBad, 1);
  }
  cairn_h5_mtype mt = m->diskVec == CAIRN_MEM_DISK_F32 ? CAIRN_H5_F32 : CAIRN_H5_NATIVE;
  for (size_t b = 0; !rc && b < n; b += nBlk) {
    size_t k = CAIRN_MIN(nBlk, n - b);
    if (!m->textOnly) {
      rc = h5Rows(h, "/memory/embedding", mt, es, m->dim, b, k, aVec, NULL);
      if (rc && sal && CAIRN_PRIMARY(rc) != CAIRN_NOMEM) { /* salvage: chunk by chunk */
        ckNote(m, "/memory/embedding");
        rc = CAIRN_OK;
        size_t vc = (size_t)ckVecChunk(m);
        for (size_t c = 0; c < k; c += vc) {
          size_t kc = CAIRN_MIN(vc, k - c);
          if (h5Rows(h, "/memory/embedding", mt, es, m->dim, b + c, kc, aVec + c * m->dim * es, NULL) == CAIRN_OK) continue;
          cairn_clearerr();
          memset(aBad + b + c, 1, kc);
        }
      }
    }
    for (size_t i = 0; !rc && i < k; i++) {
      size_t r = b + i;
      if (aBad[r]) continue; /* salvage only */
      MemAddArgs a;
      memset(&a, 0, sizeof a);
      a.zText = (const char *)aTb + aTo[r], a.nText = (size_t)(aTo[r + 1] - aTo[r]);
      a.zMeta = (const char *)aMb + aMo[r], a.nMeta = (size_t)(aMo[r + 1] - aMo[r]);
      a.created = aCr[r], a.event = aEv[r], a.tier = aTier[r], a.imp = aImp[r], a.access = aAcc[r];
      int badName = (aSes[r] != CK_NONE && (aSes[r] >= nNames || aBadName[aSes[r]])) || (aRole[r] != CK_NONE && (aRole[r] >= nNames || aBadName[aRole[r]]));
      if (!badName && aSes[r] != CK_NONE) a.zSession = (const char *)aNb + aNo[aSes[r]], a.nSession = (size_t)(aNo[aSes[r] + 1] - aNo[aSes[r]]);
      if (!badName && aRole[r] != CK_NONE) a.zRole = (const char *)aNb + aNo[aRole[r]], a.nRole = (size_t)(aNo[aRole[r] + 1] - aNo[aRole[r]]);
      if (m->ckV2) {
        badName |= (aUsr[r] != CK_NONE && (aUsr[r] >= nNames || aBadName[aUsr[r]])) || (aAgt[r] != CK_NONE && (aAgt[r] >= nNames || aBadName[aAgt[r]]));
        if (!badName && aUsr[r] != CK_NONE) a.zUser = (const char *)aNb + aNo[aUsr[r]], a.nUser = (size_t)(aNo[aUsr[r] + 1] - aNo[aUsr[r]]);
        if (!badName && aAgt[r] != CK_NONE) a.zAgent = (const char *)aNb + aNo[aAgt[r]], a.nAgent = (size_t)(aNo[aAgt[r] + 1] - aNo[aAgt[r]]);
        a.head = aHd[r] == r + 1 ? 0 : aHd[r], a.from = aFr[r], a.to = aVt[r], a.flags = aFl[r];
      }
      int dead = (a.flags & MEM_ROW_DEAD) != 0;
      const uint8_t *pv = aVec + i * m->dim * es;
      uint64_t id = m->ckV2 ? aId[r] : r + 1;
      uint32_t crc = !m->ckRowCrc ? 0
                     : m->textOnly ? ckRowCrc(&a, id, NULL, NULL, 0)
                     : ckRowCrc(&a, id, aSc ? (const void *)(aSc + r) : NULL, pv, (size_t)m->dim * es);
      if (m->ckV2) crc = ckRowCrc2(crc, aHd[r], a.from, a.flags, a.zUser, a.nUser, a.zAgent, a.nAgent);
      const char *zWhy = NULL;
      uint64_t idPrev = r ? aId[r - 1] : 0;
      if (m->ckV2 && (a.flags != 0 || aHd[r] == 0 || aHd[r] > id || aId[r] <= idPrev || aId[r] > nMem))
        zWhy = "has a bad id, version link or flags";
      else if ((!m->ckV2 && aId[r] != r + 1) || (a.nText == 0 && !dead) || a.nText > CAIRN_MEM_MAX_TEXT || a.nMeta > CAIRN_MEM_MAX_META || a.tier > 31 ||
          !memIsFinite(a.imp) || badName || a.nSession > CAIRN_MEM_MAX_NAME || a.nRole > CAIRN_MEM_MAX_NAME)
        zWhy = "is out of range";
      else if (m->ckRowCrc && crc != aCrc[r])
        zWhy = "fails its row checksum (/memory/row_crc)";
      if (!zWhy && !m->textOnly) {
        float *v = m->aScratch;
        for (uint32_t j = 0; j < m->dim; j++) {
          if (m->diskVec == CAIRN_MEM_DISK_F32) {
            uint32_t u = cairnGetLE32(pv + 4 * j);
            memcpy(&v[j], &u, 4);
          } else if (m->diskVec == CAIRN_MEM_DISK_F16) v[j] = cairnF16ToF32(cairnGetLE16(pv + 2 * j));
          else v[j] = (float)(int8_t)pv[j] * aSc[r];
          if (!memIsFinite(v[j])) {
            zWhy = "has an embedding that is not finite";
            break;
          }
        }
        a.aVec = v;
      }
      if (zWhy && !sal) {
        rc = cairnErr(CAIRN_CORRUPT, "store: memory %zu (row %zu of /memory) %s", r + 1, r, zWhy);
        break;
      }
      if (zWhy) {
        char z[160];
        cairnFormat(z, sizeof z, "store: memory %zu (row %zu of /memory) %s", r + 1, r, zWhy);
        cairnMemNoteDamage(m, 0, z);
        continue;
      }
      if (sal) {
        rc = cairnMemApplySalvaged(m, &a, id);
        continue;
      }
      rc = ckPadForgotten(m, id - 1);
      if (!rc) rc = cairnMemApplyAdd(m, &a);
    }
  }
  /* the access counts: one checksum for the array (they change in place) */
  if (!rc && m->ckRowCrc) {
    int64_t want = 0;
    cairn_h5_obj *g = NULL;
    rc = cairn_h5_get(h, "/memory", &g);
    if (!rc) rc = h5Attr(g, "access_crc", &want, NULL, 0);
    cairn_h5_obj_close(g);
    if (!rc && (uint32_t)want != ckU32Crc(aAcc, n)) rc = cairnErr(CAIRN_CORRUPT, "store: /memory/access_count fails its checksum (/memory@access_crc)");
    if (rc && sal && CAIRN_PRIMARY(rc) != CAIRN_NOMEM) ckNote(m, "access counts"), rc = CAIRN_OK;
  }
  if (!rc && m->ckV2 && !sal) {
    int64_t want = 0;
    cairn_h5_obj *g = NULL;
    rc = cairn_h5_get(h, "/memory", &g);
    if (!rc) rc = h5Attr(g, "valid_crc", &want, NULL, 0);
    cairn_h5_obj_close(g);
    if (!rc && (uint32_t)want != ckI64Crc(aVt, n)) rc = cairnErr(CAIRN_CORRUPT, "store: /memory/valid_to_ms fails its checksum (/memory@valid_crc)");
  }
  if (!rc && !sal) rc = ckPadForgotten(m, (size_t)nMem);
  if (!rc && sal && m->ckV2) m->pVer->nForgotten += nMem - n;
  if (!rc && !sal) {
    m->nCk = m->n;
    m->nCkNames = (uint32_t)nNames;
    m->nCkText = aTo[n], m->nCkMeta = aMo[n], m->nCkNameBytes = aNo[nNames];
  }
  cairnFree(aTo), cairnFree(aMo), cairnFree(aNo), cairnFree(aId), cairnFree(aTb), cairnFree(aMb), cairnFree(aNb);
  cairnFree(aTier), cairnFree(aVec), cairnFree(aCr), cairnFree(aEv), cairnFree(aImp), cairnFree(aSc);
  cairnFree(aAcc), cairnFree(aSes), cairnFree(aRole), cairnFree(aCrc), cairnFree(aBad), cairnFree(aBadName);
  cairnFree(aUsr), cairnFree(aAgt), cairnFree(aHd), cairnFree(aFr), cairnFree(aVt), cairnFree(aFl);
  if (!rc && !m->textOnly) {
    rc = ckLoadIvf(m);
    if (rc && sal && CAIRN_PRIMARY(rc) != CAIRN_NOMEM) {
      ckNote(m, "IVF index");
      m->pVer->indexDamaged = 1;
      rc = CAIRN_OK;
    }
  }
  return rc;
}

/* Which kind of file is it? Empty: a new store. "CAIRNMEM": a log-only store of format 1. An
** HDF5 superblock v2/v3: the checkpoint, whose end of allocation is where the log starts. A
** first sector of zeros: a creation that crashed before its superblock landed (new store). */
int cairnMemCkOpen(cairn_mem *m, const cairn_mem_config *cfg, uint64_t size, int64_t *pCount) {
  uint8_t sb[48];
  CAIRN_TRY(cairn_file_read_exact(m->f, sb, 48, 0));
  if (memcmp(sb, MEM_H5_SIG, 8) != 0) return cairnErr(CAIRN_CORRUPT, "mem_open: not a cairn memory store (no HDF5 or CAIRNMEM signature at offset 0)");
  if (sb[8] != 2 && sb[8] != 3)
    return cairnErr(CAIRN_UNSUPPORTED, "mem_open: HDF5 superblock version %u (a store has version 2 or 3; was it rewritten by another tool?)", sb[8]);
  if (cairnLookup3(sb, 44, 0) != cairnGetLE32(sb + 44)) return cairnErr(CAIRN_CHECKSUM, "mem_open: HDF5 superblock checksum mismatch at offset 44");
  uint64_t eoa = cairnGetLE64(sb + 28);
  if (eoa < 48 || eoa > size)
    return cairnErr(CAIRN_CORRUPT, "mem_open: HDF5 end of allocation %llu outside the file of %llu bytes", (unsigned long long)eoa, (unsigned long long)size);
  CAIRN_TRY(cairn_h5_open(m->f, 0, &m->pH5));
  CAIRN_TRY(ckHeader(m, cfg, pCount));
  m->fmt = 2;
  m->logStart = m->nFile = eoa;
  return CAIRN_OK;
}


/* ------------------------------------------------------------------ rewrite */
/* Forgetting, compaction and migration rewrite the whole file (FORMAT.md "Forgetting"): the
** store as it is in memory becomes a fresh HDF5 image (no log, no free space, no name or byte
** of a forgotten memory), which is installed over the file in three synced steps:
**   1. the image and a 32-byte trailer ("CAIRNRWR", u64 offset, u64 length, u32 CRC-32C of the
**      image, u32 CRC-32C of the trailer's first 28 bytes) are appended at the end of the file;
**   2. the image is written at offset 0;
**   3. the file is cut to the image's length.
** A crash in 1 leaves the old store (its log ends in a torn tail); from 2 on, every open finds
** the trailer first and redoes 2 and 3 (cairnMemRecoverRewrite). */
#define RW_MAGIC "CAIRNRWR"
#define RW_TRAILER 32

/* A names table holding only the names rows still use, in first-use order; rows remapped. */
static int rwNames(cairn_mem *m) {
  MemNames nn;
  memset(&nn, 0, sizeof nn);
  uint32_t *map = cairnMallocZero(((size_t)m->names.n + 1) * 4);
  if (!map) return cairnErr(CAIRN_NOMEM, "rewrite: names");
  uint32_t *aa[4] = {m->aSession, m->aRole, m->aUser, m->aAgent};
  int rc = CAIRN_OK;
  for (size_t r = 0; rc == CAIRN_OK && r < m->n; r++)
    for (int k = 0; k < 4 && rc == CAIRN_OK; k++) {
      uint32_t v = aa[k][r];
      if (!v || map[v - 1]) continue;
      uint32_t id = 0;
      rc = cairnMemNamesFind(&nn, m->names.z + m->names.aOff[v - 1], m->names.aLen[v - 1], &id, 1);
      map[v - 1] = id + 1;
    }
  if (rc) {
    cairnMemNamesFree(&nn);
    cairnFree(map);
    return rc;
  }
  for (size_t r = 0; r < m->n; r++)
    for (int k = 0; k < 4; k++)
      if (aa[k][r]) aa[k][r] = map[aa[k][r] - 1];
  cairnFree(map);
  /* the old table's bytes (names of forgotten memories among them) are wiped before the free */
  if (m->names.z) memset(m->names.z, 0, m->names.nz);
  cairnMemNamesFree(&m->names);
  m->names = nn;
  /* the dedup keys hold name ids: rebuilt (an empty table on NOMEM: dedup then finds nothing) */
  cairnFree(m->aDedup);
  m->aDedup = NULL, m->nDedupSlot = m->nDedup = 0;
  if (cairnMemDedupAdd(m, SIZE_MAX) != CAIRN_OK) cairn_clearerr();
  return CAIRN_OK;
}

typedef struct RwSaved {
  cairn_file *f;
  size_t nCk, touchMin, endMin, ivfCkRows;
  uint32_t nCkNames, ivfCkGen;
  uint64_t nCkText, nCkMeta, nCkNameBytes;
  int ckRowCrc, ckV2;
} RwSaved;

int cairnMemRewrite(cairn_mem *m) {
  if (m->rcFatal) return cairnErr(m->rcFatal, "rewrite: an earlier checkpoint failed after its superblock switch; reopen the store");
  if (m->fmt != 2) return cairnErr(CAIRN_UNSUPPORTED, "rewrite: a log-only store of format 1 (before 2026-11-29)");
  if (m->nPend || m->nCommitted != m->n) return cairnErr(CAIRN_MISUSE, "rewrite: uncommitted changes (commit first)");
  int64_t t0 = cairnClock(1);
  m->forgetPending = 1; /* until the rewrite is in: names may be renumbered below, so only a
                        ** whole rewrite may write the next checkpoint */
  CAIRN_TRY(rwNames(m));
  RwSaved sv = {m->f, m->nCk, m->touchMin, m->endMin, m->ivfCkRows, m->nCkNames, m->ivfCkGen, m->nCkText, m->nCkMeta, m->nCkNameBytes, m->ckRowCrc, m->ckV2};
  cairn_file *mf = NULL;
  CAIRN_TRY(cairn_memfile_open(NULL, 0, &mf));
  m->f = mf;
  m->nCk = 0, m->touchMin = m->endMin = SIZE_MAX, m->ivfCkRows = 0, m->nCkNames = 0, m->ivfCkGen = 0;
  m->nCkText = m->nCkMeta = m->nCkNameBytes = 0, m->ckRowCrc = 1, m->ckV2 = 1;
  cairn_h5w *w = NULL;
  int rc = cairn_h5w_create(mf, CAIRN_H5W_NOSYNC, &w);
  if (!rc) rc = ckCreateObjects(m, w);
  if (!rc) rc = ckAppend(m, w, m->n);
  if (!rc) rc = cairnMemHookSave(m, w, 1); /* the graph's group, whole (mem_hook.h) */
#if CAIRN_WITH_KG
  if (!rc && !m->pHook) rc = cairnKgRewriteDetached(m, sv.f, w); /* a graph in the file no one opened */
#endif
  if (!rc) rc = cairn_h5w_commit(w);
  cairn_h5w_stats st;
  memset(&st, 0, sizeof st);
  if (!rc) rc = cairn_h5w_stats_get(w, &st);
  cairn_h5w_discard(w);
  m->f = sv.f;
  uint64_t nCkMeta = m->nCkMeta, nCkNameBytes = m->nCkNameBytes;
  const uint8_t *img = NULL;
  size_t nImg = 0;
  if (!rc) rc = cairn_memfile_data(mf, &img, &nImg);
  if (!rc && (st.nEof > nImg || st.nEof < 48)) rc = cairnErr(CAIRN_CORRUPT, "rewrite: image of %zu bytes, end of file %llu", nImg, (unsigned long long)st.nEof);
  uint64_t size = 0, S = st.nEof, J = 0;
  if (!rc) rc = cairn_file_size(m->f, &size);
  if (!rc) {
    J = (CAIRN_MAX(size, S) + 4095) & ~(uint64_t)4095;
    uint8_t t[RW_TRAILER];
    memcpy(t, RW_MAGIC, 8);
    cairnPutLE64(t + 8, J);
    cairnPutLE64(t + 16, S);
    cairnPutLE32(t + 24, cairnCrc32c(0, img, (size_t)S));
    cairnPutLE32(t + 28, cairnCrc32c(0, t, 28));
    rc = cairn_file_write(m->f, img, (size_t)S, J);
    if (!rc) rc = cairn_file_write(m->f, t, RW_TRAILER, J + S);
    if (!rc && !m->noSync) rc = cairn_file_sync(m->f);
    if (rc) (void)cairn_file_truncate(m->f, size); /* step 1 failed: the old store stays */
  }
  if (rc) {
    char zErr[256];
    cairnFormat(zErr, sizeof zErr, "%s", cairn_errmsg());
    cairn_file_close(mf);
    m->nCk = sv.nCk, m->touchMin = sv.touchMin, m->endMin = sv.endMin, m->ivfCkRows = sv.ivfCkRows, m->nCkNames = sv.nCkNames;
    m->ivfCkGen = sv.ivfCkGen, m->nCkText = sv.nCkText, m->nCkMeta = sv.nCkMeta, m->nCkNameBytes = sv.nCkNameBytes;
    m->ckRowCrc = sv.ckRowCrc, m->ckV2 = sv.ckV2;
    cairnMemHookSaved(m, 1, 0);
    return cairnErr(rc, "rewrite: %s", zErr);
  }
  /* steps 2 and 3: from here a failure leaves the image to be installed by the next open */
  rc = cairn_file_write(m->f, img, (size_t)S, 0);
  if (!rc && !m->noSync) rc = cairn_file_sync(m->f);
  if (!rc) rc = cairn_file_truncate(m->f, S);
  if (!rc && !m->noSync) rc = cairn_file_sync(m->f);
  cairn_file_close(mf);
  cairnMemHookSaved(m, 1, rc == CAIRN_OK);
  if (rc) {
    m->rcFatal = rc;
    return cairnErr(rc, "rewrite: installing the new image failed (%s); reopen the store to finish it", cairn_errmsg());
  }
  ckMarkAbsent(m, 0, m->n);
  m->nCk = m->n, m->touchMin = m->endMin = SIZE_MAX, m->nCkNames = m->names.n;
  m->nCkText = 0;
  for (size_t i = 0; i < m->n; i++) m->nCkText += m->aTextLen[i];
  m->nCkMeta = nCkMeta, m->nCkNameBytes = nCkNameBytes;
  m->ckRowCrc = 1, m->ckV2 = 1, m->forgetPending = 0;
  if (m->ivf.kind) m->ivfCkGen = m->ivfGen, m->ivfCkRows = m->ivf.nAssigned;
  m->logStart = m->nFile = S;
  m->nCheckpoint++;
  m->ckNs = cairnClock(1) - t0;
  return CAIRN_OK;
}

int cairnMemRecoverRewrite(cairn_file *f, uint64_t *pSize, int readOnly, int noSync) {
  uint64_t size = *pSize;
  if (size < RW_TRAILER + 48) return CAIRN_OK;
  uint8_t t[RW_TRAILER];
  CAIRN_TRY(cairn_file_read_exact(f, t, RW_TRAILER, size - RW_TRAILER));
  if (memcmp(t, RW_MAGIC, 8) || cairnCrc32c(0, t, 28) != cairnGetLE32(t + 28)) return CAIRN_OK;
  uint64_t J = cairnGetLE64(t + 8), S = cairnGetLE64(t + 16);
  if (S < 48 || J < S || J > size || size - J != S + RW_TRAILER) return CAIRN_OK;
  if ((uint64_t)(size_t)S != S) return cairnErr(CAIRN_RANGE, "mem_open: rewrite image of %llu bytes", (unsigned long long)S);
  uint8_t *img = cairnMalloc((size_t)S);
  if (!img) return cairnErr(CAIRN_NOMEM, "mem_open: rewrite image of %llu bytes", (unsigned long long)S);
  int rc = cairn_file_read_exact(f, img, (size_t)S, J);
  if (rc == CAIRN_OK && cairnCrc32c(0, img, (size_t)S) != cairnGetLE32(t + 24)) {
    /* step 1 never became durable (the trailer landed, part of the image did not): the file
    ** at offset 0 was not touched yet, the old store stands and this is its torn tail */
    cairnFree(img);
    return CAIRN_OK;
  }
  if (rc == CAIRN_OK && readOnly)
    rc = cairnErr(CAIRN_BUSY, "mem_open: a rewrite of the store (forget or compact) was interrupted; an open for writing finishes it");
  if (rc == CAIRN_OK) rc = cairn_file_write(f, img, (size_t)S, 0);
  if (rc == CAIRN_OK && !noSync) rc = cairn_file_sync(f);
  if (rc == CAIRN_OK) rc = cairn_file_truncate(f, S);
  if (rc == CAIRN_OK && !noSync) rc = cairn_file_sync(f);
  cairnFree(img);
  if (rc == CAIRN_OK) *pSize = S;
  return rc;
}
