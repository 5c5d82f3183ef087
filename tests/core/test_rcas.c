/* 2026-12-02 - the chunk store in an object store (core/cas/remote.c) over an in-memory object
** store with fault injection (failing the Nth put, damaging objects): round trips, dedup and
** resume, the catalog with two writers, verify, payload files, push/pull against a local store.
** The S3 host itself is tested against a real RGW by tests/s3/run.sh. */
#include <stdlib.h>

#include "cas/cas_int.h"
#include "cairn/objstore.h"
#include "tf.h"

typedef struct MemObj {
  char *zKey;
  uint8_t *p;
  size_t n;
} MemObj;
typedef struct MemStore {
  cairn_objstore base;
  MemObj *a;
  size_t n, cap;
  int failPutAt; /* the Nth put from now fails (0: none) */
  int nPut;
  int lock; /* parallel uploads call in from several threads */
} MemStore;

static void msLock(MemStore *s) {
  while (__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE)) {
  }
}
static void msUnlock(MemStore *s) { __atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE); }
static MemObj *msFind(MemStore *s, const char *z) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->a[i].zKey, z) == 0) return &s->a[i];
  return NULL;
}
static int msGet(cairn_objstore *p, const char *zKey, uint64_t iOff, uint64_t n, void **pp, size_t *pn) {
  MemStore *s = (MemStore *)p;
  msLock(s);
  MemObj *o = msFind(s, zKey);
  int rc = CAIRN_OK;
  if (!o) rc = cairn_seterr(CAIRN_NOTFOUND, "mem: %s: not found", zKey);
  else {
    size_t a = iOff < o->n ? (size_t)iOff : o->n, b = n == UINT64_MAX || a + n > o->n ? o->n : a + (size_t)n;
    *pp = cairn_malloc(b - a + 1);
    memcpy(*pp, o->p + a, b - a);
    *pn = b - a;
  }
  msUnlock(s);
  return rc;
}
static int msPut(cairn_objstore *p, const char *zKey, const void *pData, size_t n, int flags) {
  MemStore *s = (MemStore *)p;
  msLock(s);
  int rc = CAIRN_OK;
  MemObj *o = msFind(s, zKey);
  if (s->failPutAt && ++s->nPut == s->failPutAt) rc = cairn_seterr(CAIRN_IOERR, "mem: PUT %s: injected failure", zKey);
  else if (o && (flags & CAIRN_OBJ_CREATE_ONLY)) rc = cairn_seterr(CAIRN_EXISTS, "mem: %s exists", zKey);
  else {
    if (!o) {
      if (s->n == s->cap) s->cap = s->cap ? 2 * s->cap : 64, s->a = realloc(s->a, s->cap * sizeof *s->a);
      o = &s->a[s->n++];
      o->zKey = strdup(zKey), o->p = NULL;
    }
    free(o->p);
    o->p = malloc(n + 1);
    memcpy(o->p, pData, n);
    o->n = n;
  }
  msUnlock(s);
  return rc;
}
static int msHead(cairn_objstore *p, const char *zKey, uint64_t *pn) {
  MemStore *s = (MemStore *)p;
  msLock(s);
  MemObj *o = msFind(s, zKey);
  if (o && pn) *pn = o->n;
  msUnlock(s);
  return o ? CAIRN_OK : cairn_seterr(CAIRN_NOTFOUND, "mem: %s: not found", zKey);
}
static int keyCmp(const void *a, const void *b) { return strcmp(((const MemObj *)a)->zKey, ((const MemObj *)b)->zKey); }
static int msList(cairn_objstore *p, const char *zPrefix, cairn_objstore_each_fn xEach, void *pArg) {
  MemStore *s = (MemStore *)p;
  msLock(s);
  qsort(s->a, s->n, sizeof *s->a, keyCmp);
  size_t n = s->n, k = strlen(zPrefix);
  char **az = malloc((n + 1) * sizeof *az);
  uint64_t *an = malloc((n + 1) * sizeof *an);
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(s->a[i].zKey, zPrefix, k) == 0) az[m] = strdup(s->a[i].zKey), an[m++] = s->a[i].n;
  msUnlock(s);
  int rc = CAIRN_OK;
  for (size_t i = 0; i < m; i++) {
    if (rc == CAIRN_OK) rc = xEach(pArg, az[i], an[i]);
    free(az[i]);
  }
  free(az), free(an);
  return rc;
}
static int msDelete(cairn_objstore *p, const char *zKey) {
  MemStore *s = (MemStore *)p;
  msLock(s);
  MemObj *o = msFind(s, zKey);
  if (o) {
    free(o->zKey), free(o->p);
    *o = s->a[--s->n];
  }
  msUnlock(s);
  return CAIRN_OK;
}
static int msClose(cairn_objstore *p) {
  MemStore *s = (MemStore *)p;
  for (size_t i = 0; i < s->n; i++) free(s->a[i].zKey), free(s->a[i].p);
  free(s->a);
  free(s);
  return CAIRN_OK;
}
static const cairn_objstore_methods msMethods = {1, msGet, msPut, msHead, msList, msDelete, msClose};
static MemStore *msNew(void) {
  MemStore *s = calloc(1, sizeof *s);
  s->base.pMethods = &msMethods;
  return s;
}
static size_t msCount(MemStore *s, const char *zPrefix) {
  size_t n = 0;
  for (size_t i = 0; i < s->n; i++) n += strncmp(s->a[i].zKey, zPrefix, strlen(zPrefix)) == 0;
  return n;
}

static cairn_cas_config smallCfg(int codec) {
  cairn_cas_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.chunking.nMin = 1024, cfg.chunking.nAvg = 4096, cfg.chunking.nMax = 16384, cfg.chunking.level = 2;
  cfg.codec = codec;
  return cfg;
}
static uint8_t *pseudo(size_t n, uint64_t seed) {
  uint8_t *p = malloc(n + 1);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    p[i] = (uint8_t)(i % 3 ? x : 'a' + (x % 4)); /* compressible, not trivially */
  }
  return p;
}
static int putBytes(cairn_rcas *r, const uint8_t *p, size_t n, const char *zName, uint8_t aId[32], cairn_rcas_report *q) {
  cairn_file *f;
  int rc = cairn_memfile_open(p, n, &f);
  if (rc) return rc;
  rc = cairn_rcas_put_file(r, f, zName, aId, q);
  cairn_file_close(f);
  return rc;
}
static int getBytes(cairn_rcas *r, const uint8_t aId[32], uint64_t a, uint64_t b, uint8_t **pp, size_t *pn) {
  cairn_file *f;
  int rc = cairn_memfile_open(NULL, 0, &f);
  if (rc == CAIRN_OK) rc = cairn_rcas_get_file(r, aId, a, b, f);
  const uint8_t *d;
  if (rc == CAIRN_OK) rc = cairn_memfile_data(f, &d, pn);
  if (rc == CAIRN_OK) *pp = malloc(*pn + 1), memcpy(*pp, d, *pn);
  cairn_file_close(f);
  return rc;
}

TEST(rcas, put_get_dedup_resume) {
  MemStore *s = msNew();
  cairn_cas_config cfg = smallCfg(CAIRN_ZSTD);
  cairn_rcas *r;
  CHECK_OK(cairn_rcas_open(&s->base, &cfg, &r));
  size_t n = 300000;
  uint8_t *p = pseudo(n, 1), *q = NULL, aId[32], aId2[32];
  cairn_rcas_report rep;
  CHECK_OK(putBytes(r, p, n, "a", aId, &rep));
  CHECK(rep.nChunk > 20 && rep.nChunkSkipped == 0 && rep.nPayload == 1);
  size_t nq = 0;
  CHECK_OK(getBytes(r, aId, 0, UINT64_MAX, &q, &nq));
  CHECK(nq == n && memcmp(p, q, n) == 0);
  free(q);
  CHECK_OK(getBytes(r, aId, 12345, 54321, &q, &nq));
  CHECK(nq == 54321 - 12345 && memcmp(p + 12345, q, nq) == 0);
  free(q);
  /* the same bytes again: nothing uploaded, same ID; a one-byte edit: a chunk or two */
  CHECK_OK(putBytes(r, p, n, "a", aId2, &rep));
  CHECK(memcmp(aId, aId2, 32) == 0 && rep.nChunk == 0);
  p[150000] ^= 1;
  CHECK_OK(putBytes(r, p, n, "b", aId2, &rep));
  CHECK(rep.nChunk >= 1 && rep.nChunk <= 2);
  /* a put that fails half way leaves no manifest; run again, it sends only the rest */
  uint8_t *p3 = pseudo(n, 3);
  size_t nMani = msCount(s, "manifests/");
  s->nPut = 0, s->failPutAt = 10;
  CHECK_RC(putBytes(r, p3, n, "c", aId2, &rep), CAIRN_IOERR);
  CHECK(strstr(cairn_errmsg(), "injected") != NULL);
  CHECK_EQ(msCount(s, "manifests/"), nMani);
  CHECK_RC(cairn_rcas_name_get(r, "c", aId2), CAIRN_NOTFOUND);
  CHECK_OK(cairn_rcas_verify(r, NULL, NULL, NULL));
  s->failPutAt = 0;
  cairn_rcas_close(r); /* a new handle (another process): lists what is there */
  CHECK_OK(cairn_rcas_open(&s->base, &cfg, &r));
  CHECK_OK(putBytes(r, p3, n, "c", aId2, &rep));
  CHECK(rep.nChunkSkipped > 0 && rep.nChunk > 0);
  CHECK_OK(cairn_rcas_name_get(r, "c", aId));
  CHECK(memcmp(aId, aId2, 32) == 0);
  CHECK_OK(cairn_rcas_verify(r, NULL, NULL, NULL));
  cairn_rcas_close(r);
  free(p), free(p3);
  msClose(&s->base);
}

static void countProblem(void *pArg, const char *z) { (*(int *)pArg)++; }

TEST(rcas, catalog_verify_damage) {
  MemStore *s = msNew();
  cairn_cas_config cfg = smallCfg(0);
  cairn_rcas *r, *r2;
  CHECK_OK(cairn_rcas_open(&s->base, &cfg, &r));
  cfg.chunking.nAvg = 8192; /* a second writer with other parameters gets the store's */
  CHECK_OK(cairn_rcas_open(&s->base, &cfg, &r2));
  uint8_t *p = pseudo(50000, 7), *p2 = pseudo(50000, 8), a1[32], a2[32], got[32];
  CHECK_OK(putBytes(r, p, 50000, "x", a1, NULL));
  CHECK_OK(putBytes(r2, p2, 50000, "x", a2, NULL)); /* two writers bind one name: the later wins */
  CHECK_OK(cairn_rcas_name_get(r, "x", got));
  CHECK(memcmp(got, a2, 32) == 0);
  uint64_t nSize = 0;
  CHECK_OK(cairn_rcas_stat(r, a1, &nSize)); /* the other payload is kept */
  CHECK_EQ(nSize, 50000);
  CHECK_OK(cairn_rcas_name_delete(r, "x"));
  CHECK_RC(cairn_rcas_name_get(r, "x", got), CAIRN_NOTFOUND);
  CHECK_OK(cairn_rcas_name_set(r, "x", a1));
  CHECK_OK(cairn_rcas_name_get(r2, "x", got));
  CHECK(memcmp(got, a1, 32) == 0);
  /* a payload file reads like the bytes */
  cairn_file *f;
  CHECK_OK(cairn_rcas_payload_file(r, a1, &f));
  uint8_t buf[7000];
  size_t nr = 0;
  CHECK_OK(cairn_file_read(f, buf, sizeof buf, 43000, &nr));
  CHECK(nr == 7000 && memcmp(buf, p + 43000, nr) == 0);
  CHECK_OK(cairn_file_read(f, buf, sizeof buf, 45000, &nr));
  CHECK(nr == 5000 && memcmp(buf, p + 45000, nr) == 0 && buf[5000] == 0);
  cairn_file_close(f);
  /* damage one chunk: reads fail with CHECKSUM, verify reports it */
  MemObj *o = NULL;
  for (size_t i = 0; i < s->n && !o; i++)
    if (strncmp(s->a[i].zKey, "chunks/", 7) == 0) o = &s->a[i];
  o->p[o->n / 2] ^= 0x40;
  int nProb = 0;
  uint64_t nBad = 0;
  CHECK_RC(cairn_rcas_verify(r, countProblem, &nProb, &nBad), CAIRN_CHECKSUM);
  CHECK(nProb == 1 && nBad == 1);
  CHECK(strstr(cairn_errmsg(), "does not match its SHA-256") != NULL);
  o->p[o->n / 2] ^= 0x40;
  CHECK_OK(cairn_rcas_verify(r, NULL, NULL, NULL));
  cairn_rcas_close(r), cairn_rcas_close(r2);
  free(p), free(p2);
  msClose(&s->base);
}

TEST(rcas, push_pull) {
  MemStore *s = msNew();
  cairn_cas_config cfg = smallCfg(0);
  cairn_cas *local, *back;
  CHECK_OK(cairn_cas_open_memory(&cfg, &local));
  uint8_t *p = pseudo(80000, 11), *p2 = pseudo(60000, 12), a1[32], a2[32], got[32];
  CHECK_OK(cairn_cas_put(local, p, 80000, a1));
  CHECK_OK(cairn_cas_name_set(local, "one", a1));
  cairn_rcas *r;
  CHECK_OK(cairn_rcas_open(&s->base, &cfg, &r));
  CHECK_OK(putBytes(r, p2, 60000, "two", a2, NULL));
  cairn_rcas_report rep;
  CHECK_OK(cairn_rcas_push(r, local, &rep));
  CHECK(rep.nPayload == 1 && rep.nName == 1);
  CHECK_OK(cairn_rcas_push(r, local, &rep));
  CHECK(rep.nPayload == 0 && rep.nName == 0);
  CHECK_OK(cairn_cas_open_memory(&cfg, &back));
  CHECK_OK(cairn_rcas_pull(r, back, &rep));
  CHECK(rep.nPayload == 2 && rep.nName == 2);
  CHECK_OK(cairn_cas_name_get(back, "two", got));
  CHECK(memcmp(got, a2, 32) == 0);
  CHECK_OK(cairn_cas_verify(back, NULL, NULL, NULL, NULL, NULL));
  CHECK_OK(cairn_rcas_pull(r, back, &rep));
  CHECK(rep.nPayload == 0 && rep.nName == 0);
  /* an edited payload: pull fetches only the chunks the local store lacks */
  p2[30000] ^= 1;
  uint8_t a3[32];
  CHECK_OK(putBytes(r, p2, 60000, "two", a3, NULL));
  CHECK_OK(cairn_rcas_pull(r, back, &rep));
  CHECK(rep.nPayload == 1 && rep.nName == 1 && rep.nChunk >= 1 && rep.nChunk <= 2 && rep.nChunkSkipped > 5);
  CHECK_OK(cairn_cas_name_get(back, "two", got));
  CHECK(memcmp(got, a3, 32) == 0);
  CHECK_OK(cairn_cas_verify(back, NULL, NULL, NULL, NULL, NULL));
  /* other chunking: refused, payload IDs would differ */
  cairn_cas *other;
  cairn_cas_config c2 = smallCfg(0);
  c2.chunking.nAvg = 8192;
  CHECK_OK(cairn_cas_open_memory(&c2, &other));
  CHECK_RC(cairn_rcas_push(r, other, &rep), CAIRN_MISUSE);
  cairn_cas_close(other), cairn_cas_close(back), cairn_cas_close(local);
  cairn_rcas_close(r);
  free(p), free(p2);
  msClose(&s->base);
}

/* A marker key dir/TIME-0000000000000000 for time t (ns). */
static void markerAt(MemStore *s, const char *zDir, int64_t t, char z[80]) {
  snprintf(z, 80, "%s%016llx-0000000000000000", zDir, (unsigned long long)t);
  msPut(&s->base, z, "", 0, 0);
}
TEST(rcas, gc_sweeps_unused_chunks) {
  MemStore *s = msNew();
  cairn_cas_config cfg = smallCfg(0);
  cairn_rcas *r, *g;
  CHECK_OK(cairn_rcas_open(&s->base, &cfg, &r));
  size_t n = 200000;
  uint8_t *p = pseudo(n, 7), *p2 = pseudo(n, 8), *q = NULL, aId[32], aId2[32];
  cairn_rcas_report rep;
  cairn_rcas_gc_report gr;
  CHECK_OK(putBytes(r, p, n, "kept", aId, &rep));
  s->nPut = 0, s->failPutAt = 12; /* a failed put: chunks, no manifest */
  CHECK_RC(putBytes(r, p2, n, "lost", aId2, &rep), CAIRN_IOERR);
  s->failPutAt = 0;
  size_t nChunk = msCount(s, "chunks/");
  CHECK_EQ(msCount(s, "writers/"), 1);
  /* a sweep while the writer's handle is open (its marker is fresh): nothing deleted */
  CHECK_OK(cairn_rcas_open(&s->base, &cfg, &g));
  CHECK_RC(cairn_rcas_gc(g, 3600000, 0, &gr), CAIRN_BUSY);
  CHECK(strstr(cairn_errmsg(), "nothing swept") != NULL);
  CHECK_EQ(msCount(s, "chunks/"), nChunk);
  CHECK_EQ(msCount(s, "gc/"), 0);
  cairn_rcas_close(r); /* the writer is done: its marker goes */
  CHECK_EQ(msCount(s, "writers/"), 0);
  char zM[80];
  markerAt(s, "writers/", 1, zM); /* a writer that died long ago: expired, removed */
  CHECK_OK(cairn_rcas_gc(g, 3600000, 1, &gr)); /* dry run */
  CHECK(gr.nUnused > 0 && gr.nDeleted == 0 && gr.nChunk == nChunk);
  CHECK_EQ(msCount(s, "chunks/"), nChunk);
  uint64_t nUnused = gr.nUnused;
  CHECK_OK(cairn_rcas_gc(g, 3600000, 0, &gr));
  CHECK(gr.nDeleted == nUnused && gr.nMarker == 1);
  CHECK_EQ(msCount(s, "chunks/"), nChunk - nUnused);
  CHECK_EQ(msCount(s, "writers/") + msCount(s, "gc/"), 0);
  CHECK_OK(cairn_rcas_verify(g, NULL, NULL, NULL));
  size_t nq = 0;
  CHECK_OK(getBytes(g, aId, 0, UINT64_MAX, &q, &nq));
  CHECK(nq == n && memcmp(p, q, n) == 0);
  free(q);
  /* a writer does not start while a sweep's marker is fresh; after it, it uploads what was swept */
  markerAt(s, "gc/", cairnClock(0), zM);
  CHECK_OK(cairn_rcas_open(&s->base, &cfg, &r));
  CHECK_RC(putBytes(r, p2, n, "lost", aId2, &rep), CAIRN_BUSY);
  CHECK_EQ(msCount(s, "writers/"), 0);
  CHECK_EQ(msCount(s, "chunks/"), nChunk - nUnused);
  msDelete(&s->base, zM); /* the sweep is done */
  CHECK_OK(putBytes(r, p2, n, "lost", aId2, &rep));
  CHECK(rep.nChunk > 0 && rep.nPayload == 1);
  /* a handle's own marker does not stop its own sweep */
  CHECK_OK(cairn_rcas_gc(r, 3600000, 0, &gr));
  CHECK(gr.nUnused == 0);
  CHECK_OK(cairn_rcas_verify(r, NULL, NULL, NULL));
  cairn_rcas_close(r), cairn_rcas_close(g);
  free(p), free(p2);
  msClose(&s->base);
}
