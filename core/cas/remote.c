/*
** 2026-12-02
**
** core/cas/remote.c - the chunk store in an object store (cairn/objstore.h, cairn_rcas_*): chunks
** as objects named by their SHA-256, manifests named by payload ID, the catalog as immutable
** entries (one object per binding, newest wins), parallel uploads and downloads, verified reads,
** a cairn_file over a payload, push/pull against a local store. Layout and the argument for two
** writers: core/cas/FORMAT.md, "A store in an object store" (a change here is a change there).
*/
#include "cas/cas_int.h"
#include "cairn/objstore.h"
#include "cairn/sha256.h"

#define RCAS_CONFIG "config"
#define RCAS_MAGIC "cairnRCS"
#define RCAS_CONFIG_BYTES 48  /* magic 8, version 4, min 4, avg 4, max 4, level 4, seed 8, codec 4, reserved 4, crc 4 */
#define RCAS_CHUNK_FIXED 8    /* codec 1, reserved 3, raw length 4 */
#define RCAS_BATCH ((size_t)32 << 20) /* input chunked per prepare call */
#define RCAS_CACHE 8          /* chunks a payload file keeps */
#define RCAS_SEC ((int64_t)1000000000)
#define RCAS_LEASE_RENEW_NS (600 * RCAS_SEC) /* a writer renews its marker after 10 minutes of work */
#define RCAS_LEASE_MAX_NS (1800 * RCAS_SEC)  /* and stops if it could not for 30 (FORMAT.md: the sweep) */

/* A set of 32-byte hashes (open addressing; the all-zero hash marks a free slot, and is kept
** apart in bZero). */
typedef struct HashSet {
  uint8_t (*a)[32];
  size_t nSlot, nUsed;
  int bZero;
} HashSet;

static int hsHas(const HashSet *s, const uint8_t h[32]) {
  static const uint8_t z[32];
  if (memcmp(h, z, 32) == 0) return s->bZero;
  if (!s->nSlot) return 0;
  for (size_t m = s->nSlot - 1, i = (size_t)cairnGetLE64(h) & m;; i = (i + 1) & m) {
    if (memcmp(s->a[i], h, 32) == 0) return 1;
    if (memcmp(s->a[i], z, 32) == 0) return 0;
  }
}
static int hsAdd(HashSet *s, const uint8_t h[32]) {
  static const uint8_t z[32];
  if (memcmp(h, z, 32) == 0) return s->bZero = 1, CAIRN_OK;
  if (hsHas(s, h)) return CAIRN_OK;
  if ((s->nUsed + 1) * 2 > s->nSlot) {
    size_t n = s->nSlot ? s->nSlot * 2 : 1024;
    uint8_t(*a)[32] = cairnMallocArray(n, 32);
    if (!a) return cairnErr(CAIRN_NOMEM, "remote store: out of memory for the chunk set");
    memset(a, 0, n * 32);
    for (size_t i = 0; i < s->nSlot; i++)
      if (memcmp(s->a[i], z, 32) != 0)
        for (size_t j = (size_t)cairnGetLE64(s->a[i]) & (n - 1);; j = (j + 1) & (n - 1))
          if (memcmp(a[j], z, 32) == 0) {
            memcpy(a[j], s->a[i], 32);
            break;
          }
    cairnFree(s->a);
    s->a = a, s->nSlot = n;
  }
  for (size_t m = s->nSlot - 1, i = (size_t)cairnGetLE64(h) & m;; i = (i + 1) & m)
    if (memcmp(s->a[i], z, 32) == 0) {
      memcpy(s->a[i], h, 32);
      s->nUsed++;
      return CAIRN_OK;
    }
}

struct cairn_rcas {
  cairn_objstore *s;
  cairn_fastcdc_params prm;
  CdcCfg *cdc;
  int codec, level;
  HashSet chunks;   /* chunks known to be in the store */
  int bChunksListed;
  char zLease[64];  /* this writer's marker writers/TIME-RANDOM, while tLease != 0 */
  int64_t tLease;
};

/* ---------------------------------------------------------------- object helpers */
static int objGet(cairn_rcas *r, const char *zKey, uint8_t **pp, size_t *pn) {
  void *p = NULL;
  int rc = r->s->pMethods->xGet(r->s, zKey, 0, UINT64_MAX, &p, pn);
  *pp = p;
  return rc;
}
static int objPut(cairn_rcas *r, const char *zKey, const void *p, size_t n, int flags) {
  return r->s->pMethods->xPut(r->s, zKey, p, n, flags);
}
static void keyOf(char *z, size_t nz, const char *zDir, const uint8_t h[32]) {
  char zH[65];
  cairn_hex(h, 32, zH);
  cairnFormat(z, nz, "%s/%s", zDir, zH);
}
/* The hex key part of a listing's "dir/HEX" into h; 0 if it is not one. */
static int keyHash(const char *zKey, size_t nDir, uint8_t h[32]) {
  return strlen(zKey) == nDir + 65 && cairn_cas_id_parse(zKey + nDir + 1, h) == CAIRN_OK;
}

/* The 16 hex digits of a TIME-RANDOM key part as a number. */
static uint64_t hexTime(const char *z) {
  uint64_t v = 0;
  for (size_t i = 0; i < 16; i++) v = v << 4 | (uint64_t)(z[i] >= 'a' ? z[i] - 'a' + 10 : z[i] - '0');
  return v;
}
/* 8 random bytes from the host, or (no random source) bits unique enough: time, p[0..n), handle. */
static void uniqueBits(const cairn_rcas *r, int64_t t, const void *p, size_t n, const uint8_t *aId, uint8_t rnd[8]) {
  const cairn_host *h = cairn_host_get();
  if (h->xRandom && h->xRandom(h->pCtx, rnd, 8) == CAIRN_OK) return;
  uint8_t mix[32];
  cairn_sha256_ctx c;
  cairn_sha256_init(&c);
  cairn_sha256_update(&c, &t, sizeof t);
  cairn_sha256_update(&c, p, n);
  if (aId) cairn_sha256_update(&c, aId, 32);
  cairn_sha256_update(&c, &r, sizeof r);
  cairn_sha256_final(&c, mix);
  memcpy(rnd, mix, 8);
}
/* zKey + TIME-RANDOM (TIME big-endian: keys sort by time), at zKey[n]. */
static void timedName(const cairn_rcas *r, char *zKey, size_t n, int64_t t, const uint8_t *aId) {
  uint8_t tb[8], rnd[8];
  uniqueBits(r, t, zKey, n, aId, rnd);
  for (int i = 0; i < 8; i++) tb[i] = (uint8_t)((uint64_t)t >> (56 - 8 * i));
  cairn_hex(tb, 8, zKey + n);
  zKey[n + 16] = '-';
  cairn_hex(rnd, 8, zKey + n + 17);
}

/* Parallel work whose items fail one by one (uploads, downloads): xOne(pCtx, i) for every i in
** [0, n) through cairnParallelFor, each item's status in aRc[i] and message in azErr[i] (messages
** are per thread, so they are copied where the task ran). aRc/azErr may be NULL (kept here only).
** Returns CAIRN_OK or the first failure by index, with its message. */
typedef struct Par {
  int (*xOne)(void *pCtx, size_t i);
  void *pCtx;
  int *aRc;
  char (*azErr)[256];
} Par;
static void parTask(void *pArg, size_t i, unsigned iWorker) {
  (void)iWorker;
  Par *q = pArg;
  q->aRc[i] = q->xOne(q->pCtx, i);
  if (q->aRc[i]) cairnFormat(q->azErr[i], sizeof q->azErr[i], "%s", cairn_errmsg());
}
static int parRun(size_t n, int (*xOne)(void *, size_t), void *pCtx, int *aRc, char (*azErr)[256]) {
  if (n == 0) return CAIRN_OK;
  Par q = {xOne, pCtx, aRc ? aRc : cairnMallocArray(n, sizeof(int)), azErr ? azErr : cairnMallocArray(n, 256)};
  int rc = CAIRN_OK;
  if (!q.aRc || !q.azErr) rc = cairnErr(CAIRN_NOMEM, "remote store: out of memory for %zu tasks", n);
  else cairnParallelFor(n, parTask, &q);
  for (size_t i = 0; rc == CAIRN_OK && i < n; i++)
    if (q.aRc[i]) rc = cairnErr(q.aRc[i], "%s", q.azErr[i]);
  if (!aRc) cairnFree(q.aRc);
  if (!azErr) cairnFree(q.azErr);
  return rc;
}

/* ---------------------------------------------------------------- open */
static void configEncode(const cairn_rcas *r, uint8_t a[RCAS_CONFIG_BYTES]) {
  memset(a, 0, RCAS_CONFIG_BYTES);
  memcpy(a, RCAS_MAGIC, 8);
  cairnPutLE32(a + 8, 1);
  cairnPutLE32(a + 12, r->prm.nMin);
  cairnPutLE32(a + 16, r->prm.nAvg);
  cairnPutLE32(a + 20, r->prm.nMax);
  cairnPutLE32(a + 24, r->prm.level);
  cairnPutLE64(a + 28, r->prm.seed);
  cairnPutLE32(a + 36, (uint32_t)r->codec);
  cairnPutLE32(a + 44, cairnCrc32c(0, a, 44));
}
static int configDecode(cairn_rcas *r, const uint8_t *a, size_t n) {
  if (n != RCAS_CONFIG_BYTES || memcmp(a, RCAS_MAGIC, 8) != 0 || cairnGetLE32(a + 44) != cairnCrc32c(0, a, 44))
    return cairnErr(CAIRN_CORRUPT, "remote store: its object 'config' is not a cairn store's (or damaged)");
  if (cairnGetLE32(a + 8) != 1)
    return cairnErr(CAIRN_UNSUPPORTED, "remote store: format version %u (this cairn reads 1)", cairnGetLE32(a + 8));
  r->prm.nMin = cairnGetLE32(a + 12), r->prm.nAvg = cairnGetLE32(a + 16), r->prm.nMax = cairnGetLE32(a + 20);
  r->prm.level = cairnGetLE32(a + 24), r->prm.seed = cairnGetLE64(a + 28);
  return cairn_fastcdc_check(&r->prm);
}

int cairn_rcas_open(cairn_objstore *pStore, const cairn_cas_config *pCfg, cairn_rcas **pp) {
  CAIRN_RETURN_ERROR_IF(!pStore || !pp, CAIRN_MISUSE, "cairn_rcas_open: NULL argument");
  *pp = NULL;
  cairn_rcas *r = cairnMalloc(sizeof *r);
  if (!r) return cairnErr(CAIRN_NOMEM, "remote store: out of memory");
  memset(r, 0, sizeof *r);
  r->s = pStore;
  if (pCfg) r->codec = pCfg->codec, r->level = pCfg->level;
  if (pCfg && pCfg->chunking.nAvg) r->prm = pCfg->chunking;
  else cairn_fastcdc_default(&r->prm);
  uint8_t *a = NULL;
  size_t n = 0;
  int rc = objGet(r, RCAS_CONFIG, &a, &n);
  if (rc == CAIRN_NOTFOUND && !(pCfg && pCfg->readonly)) {
    /* a new store: create-only, so two first writers agree on one configuration */
    uint8_t c[RCAS_CONFIG_BYTES];
    rc = cairn_fastcdc_check(&r->prm);
    if (rc == CAIRN_OK) {
      configEncode(r, c);
      rc = objPut(r, RCAS_CONFIG, c, sizeof c, CAIRN_OBJ_CREATE_ONLY);
    }
    if (rc == CAIRN_EXISTS) rc = objGet(r, RCAS_CONFIG, &a, &n);
  }
  if (rc == CAIRN_OK && a) rc = configDecode(r, a, n);
  cairnFree(a);
  if (rc == CAIRN_OK) {
    r->cdc = cairnMalloc(sizeof *r->cdc);
    rc = r->cdc ? cairnCdcInit(r->cdc, &r->prm) : cairnErr(CAIRN_NOMEM, "remote store: out of memory");
  }
  if (rc) {
    cairn_rcas_close(r);
    return rc;
  }
  *pp = r;
  return CAIRN_OK;
}

static void leaseDrop(cairn_rcas *r);
int cairn_rcas_close(cairn_rcas *r) {
  if (!r) return CAIRN_OK;
  leaseDrop(r);
  cairnFree(r->chunks.a);
  cairnFree(r->cdc);
  cairnFree(r);
  return CAIRN_OK;
}

static int eachChunk(void *pArg, const char *zKey, uint64_t nSize) {
  uint8_t h[32];
  if (!keyHash(zKey, 6, h)) return CAIRN_OK; /* not ours: ignored */
  return hsAdd(&((cairn_rcas *)pArg)->chunks, h);
}
/* What chunks the store has: one listing per handle (1000 keys per request). */
static int chunksList(cairn_rcas *r) {
  if (r->bChunksListed) return CAIRN_OK;
  CAIRN_TRY(r->s->pMethods->xList(r->s, "chunks/", eachChunk, r));
  r->bChunksListed = 1;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- chunks */
typedef struct UpJob {
  cairn_rcas *r;
  const uint8_t *base;
  const cairn_chunk *aK;
  size_t *aIdx;   /* which chunks of aK to upload */
} UpJob;

static int chunkPut(cairn_rcas *r, const uint8_t h[32], const uint8_t *p, uint32_t n) {
  size_t cap = RCAS_CHUNK_FIXED + (r->codec ? cairn_zbound((cairn_zkind)r->codec, n) : n);
  uint8_t *o = cairnMalloc(cap ? cap : 1);
  if (!o) return cairnErr(CAIRN_NOMEM, "remote store: out of memory for a chunk of %u bytes", n);
  size_t nz = 0;
  int codec = 0;
  if (r->codec && cairn_zcompress((cairn_zkind)r->codec, r->level, p, n, o + RCAS_CHUNK_FIXED, cap - RCAS_CHUNK_FIXED, &nz) == CAIRN_OK &&
      nz < n)
    codec = r->codec;
  else memcpy(o + RCAS_CHUNK_FIXED, p, n), nz = n;
  memset(o, 0, RCAS_CHUNK_FIXED);
  o[0] = (uint8_t)codec;
  cairnPutLE32(o + 4, n);
  char zKey[80];
  keyOf(zKey, sizeof zKey, "chunks", h);
  int rc = objPut(r, zKey, o, RCAS_CHUNK_FIXED + nz, 0);
  cairnFree(o);
  return rc;
}

static int upOne(void *pArg, size_t i) {
  UpJob *j = pArg;
  const cairn_chunk *k = &j->aK[j->aIdx[i]];
  return chunkPut(j->r, k->aHash, j->base + k->iOff, k->n);
}

/* Fetch one chunk, decode, verify: its raw bytes in *pp (cairnMalloc'd), length *pn. */
static int chunkGet(cairn_rcas *r, const uint8_t h[32], uint32_t nWant, uint8_t **pp) {
  char zKey[80], zH[65];
  keyOf(zKey, sizeof zKey, "chunks", h);
  cairn_hex(h, 32, zH);
  *pp = NULL;
  uint8_t *a = NULL, *out = NULL;
  size_t n = 0;
  int rc = objGet(r, zKey, &a, &n);
  if (rc == CAIRN_NOTFOUND) rc = cairnErr(CAIRN_CORRUPT, "remote store: chunk %s is missing (a manifest names it)", zH);
  if (rc) return rc;
  uint32_t nRaw = n >= RCAS_CHUNK_FIXED ? cairnGetLE32(a + 4) : 0;
  if (n < RCAS_CHUNK_FIXED || nRaw != nWant || nRaw > CDC_MAX_BYTES || a[0] > 2)
    CAIRN_ERROR_GOTO(rc, done, CAIRN_CORRUPT, "remote store: chunk %s: bad header (%zu bytes stored)", zH, n);
  out = cairnMalloc(nRaw ? nRaw : 1);
  if (!out) CAIRN_ERROR_GOTO(rc, done, CAIRN_NOMEM, "remote store: out of memory for chunk %s", zH);
  if (a[0] == 0) {
    if (n - RCAS_CHUNK_FIXED != nRaw) CAIRN_ERROR_GOTO(rc, done, CAIRN_CORRUPT, "remote store: chunk %s: %zu bytes stored, %u expected", zH, n - RCAS_CHUNK_FIXED, nRaw);
    memcpy(out, a + RCAS_CHUNK_FIXED, nRaw);
  } else {
    size_t got = 0;
    if (cairn_zdecompress((cairn_zkind)a[0], a + RCAS_CHUNK_FIXED, n - RCAS_CHUNK_FIXED, out, nRaw, &got) != CAIRN_OK || got != nRaw)
      CAIRN_ERROR_GOTO(rc, done, CAIRN_CHECKSUM, "remote store: chunk %s does not decompress (damaged)", zH);
  }
  uint8_t hh[32];
  cairn_sha256(out, nRaw, hh);
  if (memcmp(hh, h, 32) != 0) CAIRN_ERROR_GOTO(rc, done, CAIRN_CHECKSUM, "remote store: chunk %s does not match its SHA-256 (damaged)", zH);
  *pp = out;
  out = NULL;
done:
  cairnFree(a);
  cairnFree(out);
  return rc;
}

/* ---------------------------------------------------------------- manifests */
typedef struct Mani {
  uint8_t aId[32];
  uint8_t *a; /* the body, as FORMAT.md's manifest record body */
  size_t n;
  uint64_t nSize;
  uint32_t nChunk;
  int64_t iTime;
} Mani;

static int maniCheck(Mani *m, const uint8_t aId[32]) {
  char zId[65];
  cairn_hex(aId, 32, zId);
  if (m->n < MANI_FIXED || memcmp(m->a + 40, MANI_TAG, 8) != 0)
    return cairnErr(CAIRN_CORRUPT, "remote store: manifest %s is malformed", zId);
  m->nSize = cairnGetLE64(m->a + 48);
  m->nChunk = cairnGetLE32(m->a + 56);
  m->iTime = (int64_t)cairnGetLE64(m->a + 32);
  uint8_t h[32];
  cairn_sha256(m->a + 40, m->n - 40, h);
  if ((uint64_t)m->n != MANI_FIXED + (uint64_t)m->nChunk * MANI_ENTRY || memcmp(h, aId, 32) != 0 || memcmp(m->a, aId, 32) != 0)
    return cairnErr(CAIRN_CHECKSUM, "remote store: manifest %s does not match its ID (damaged)", zId);
  uint64_t sum = 0;
  for (uint32_t i = 0; i < m->nChunk; i++) sum += cairnGetLE32(m->a + MANI_FIXED + (size_t)i * MANI_ENTRY + 32);
  if (sum != m->nSize) return cairnErr(CAIRN_CORRUPT, "remote store: manifest %s: chunk lengths add up to %llu, not %llu", zId,
                                       (unsigned long long)sum, (unsigned long long)m->nSize);
  memcpy(m->aId, aId, 32);
  return CAIRN_OK;
}
static int maniGet(cairn_rcas *r, const uint8_t aId[32], Mani *m) {
  char zKey[80];
  memset(m, 0, sizeof *m);
  keyOf(zKey, sizeof zKey, "manifests", aId);
  CAIRN_TRY(objGet(r, zKey, &m->a, &m->n));
  int rc = maniCheck(m, aId);
  if (rc) cairnFree(m->a), m->a = NULL;
  return rc;
}

int cairn_rcas_stat(cairn_rcas *r, const uint8_t aId[32], uint64_t *pnSize) {
  Mani m;
  CAIRN_TRY(maniGet(r, aId, &m));
  if (pnSize) *pnSize = m.nSize;
  cairnFree(m.a);
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- put */
static int64_t nowNs(void) { return cairnClock(0); }

/* ---------------------------------------------------------------- markers: writers and sweeps */
/* FORMAT.md "Sweeping unused chunks": a writer keeps a marker writers/TIME-RANDOM while it works
** and a sweep one gc/TIME-RANDOM; each writes its own, then lists the other's, so that (the listing
** being consistent) a writer and a sweep never both go on. */
struct Keys;
static int eachKey(void *pArg, const char *zKey, uint64_t nSize);
typedef struct Markers {
  int64_t tNow, nGraceNs, tNewest;
  size_t nLive;
  const char *zSelf;   /* a key not counted (this handle's own marker), or NULL */
  struct Keys *pStale; /* receives the expired markers, or NULL */
} Markers;
static int eachMarker(void *pArg, const char *zKey, uint64_t nSize) {
  Markers *m = pArg;
  const char *s = strrchr(zKey, '/');
  if (!s || strlen(s + 1) != 33 || s[17] != '-' || (m->zSelf && strcmp(zKey, m->zSelf) == 0)) return CAIRN_OK;
  int64_t t = (int64_t)hexTime(s + 1);
  if (t > m->tNow - m->nGraceNs) {
    m->nLive++;
    if (t > m->tNewest) m->tNewest = t;
    return CAIRN_OK;
  }
  return m->pStale ? eachKey(m->pStale, zKey, nSize) : CAIRN_OK;
}
/* The markers under zDir younger than nGraceNs (by this clock) into *m. */
static int markersList(cairn_rcas *r, const char *zDir, int64_t nGraceNs, const char *zSelf, struct Keys *pStale, Markers *m) {
  memset(m, 0, sizeof *m);
  m->tNow = nowNs(), m->nGraceNs = nGraceNs, m->zSelf = zSelf, m->pStale = pStale;
  return r->s->pMethods->xList(r->s, zDir, eachMarker, m);
}
static int markerPut(cairn_rcas *r, const char *zDir, int64_t t, char zKey[64]) {
  size_t n = strlen(zDir);
  memcpy(zKey, zDir, n + 1);
  timedName(r, zKey, n, t, NULL);
  int rc = objPut(r, zKey, "", 0, CAIRN_OBJ_CREATE_ONLY);
  return rc == CAIRN_EXISTS ? CAIRN_OK : rc; /* our own key: a retried PUT that had landed */
}
static void leaseDrop(cairn_rcas *r) {
  if (r->tLease) r->s->pMethods->xDelete(r->s, r->zLease); /* a failure: the marker expires by itself */
  r->tLease = 0;
}
/* Before a put (bStart) and at each of its steps: this writer's marker, renewed after
** RCAS_LEASE_RENEW_NS. A new marker after none (or an expired one) is the handshake: then no
** sweep may be live, and the chunks this handle knew of are listed again (a sweep may have run). */
static int leaseTake(cairn_rcas *r, int bStart) {
  int64_t t = nowNs();
  if (r->tLease && t - r->tLease < RCAS_LEASE_RENEW_NS) return CAIRN_OK;
  int bGap = !r->tLease || t - r->tLease >= RCAS_LEASE_MAX_NS;
  if (bGap && !bStart)
    return cairnErr(CAIRN_BUSY, "remote store: this put paused for more than %d minutes (a sweep may have run): run it again",
                    (int)(RCAS_LEASE_MAX_NS / RCAS_SEC / 60));
  char zKey[64];
  CAIRN_TRY(markerPut(r, "writers/", t, zKey));
  leaseDrop(r); /* the new marker covers from here on */
  memcpy(r->zLease, zKey, sizeof zKey);
  r->tLease = t;
  if (!bGap) return CAIRN_OK; /* covered without a gap: every sweep since saw one of ours and stopped */
  Markers m;
  int rc = markersList(r, "gc/", RCAS_LEASE_MAX_NS, NULL, NULL, &m);
  if (rc == CAIRN_OK && m.nLive)
    rc = cairnErr(CAIRN_BUSY, "remote store: a sweep (cairn store gc) has been running for %lld s: put again when it is done",
                  (long long)((t - m.tNewest) / RCAS_SEC));
  if (rc) {
    leaseDrop(r);
    return rc;
  }
  cairnFree(r->chunks.a);
  memset(&r->chunks, 0, sizeof r->chunks);
  r->bChunksListed = 0;
  return CAIRN_OK;
}

int cairn_rcas_put_file(cairn_rcas *r, cairn_file *in, const char *zName, uint8_t aId[32], cairn_rcas_report *pRep) {
  CAIRN_RETURN_ERROR_IF(!r || !in || !aId, CAIRN_MISUSE, "cairn_rcas_put_file: NULL argument");
  cairn_rcas_report rep;
  memset(&rep, 0, sizeof rep);
  uint64_t nIn = 0;
  CAIRN_TRY(cairn_file_size(in, &nIn));
  CAIRN_TRY(leaseTake(r, 1));
  CAIRN_TRY(chunksList(r));
  size_t nBuf = (size_t)CAIRN_MIN((uint64_t)RCAS_BATCH + r->prm.nMax, nIn + 1);
  uint8_t *buf = cairnMalloc(nBuf);
  uint8_t *mani = NULL;
  size_t nMani = 0, capMani = 0;
  cairn_chunk *aK = NULL;
  size_t *aIdx = NULL;
  int rc = CAIRN_OK;
  if (!buf) return cairnErr(CAIRN_NOMEM, "remote store: out of memory for a %zu-byte buffer", nBuf);
  CAIRN_TRY_GOTO(rc, cairnArrayReserve(&mani, &capMani, MANI_FIXED, 1, 4096, "manifest"), done);
  nMani = MANI_FIXED;
  uint64_t iPos = 0; /* input offset of buf[0] */
  size_t nHave = 0;
  uint32_t nChunkAll = 0;
  for (;;) {
    CAIRN_TRY_GOTO(rc, leaseTake(r, 0), done);
    size_t want = (size_t)CAIRN_MIN((uint64_t)(nBuf - nHave), nIn - iPos - nHave);
    if (want) CAIRN_TRY_GOTO(rc, cairn_file_read_exact(in, buf + nHave, want, iPos + nHave), done);
    nHave += want;
    int eof = iPos + nHave == nIn;
    size_t nK = 0, nUsed = 0;
    cairnFree(aK), aK = NULL;
    CAIRN_TRY_GOTO(rc, cairnCdcPrepare(r->cdc, buf, nHave, eof, &aK, &nK, &nUsed), done);
    /* upload what the store lacks, in parallel */
    cairnFree(aIdx);
    aIdx = cairnMallocArray(nK + 1, sizeof *aIdx);
    if (!aIdx) CAIRN_ERROR_GOTO(rc, done, CAIRN_NOMEM, "remote store: out of memory for %zu chunks", nK);
    size_t nUp = 0;
    for (size_t i = 0; i < nK; i++) {
      int dup = hsHas(&r->chunks, aK[i].aHash);
      for (size_t j = 0; j < nUp && !dup; j++) dup = memcmp(aK[aIdx[j]].aHash, aK[i].aHash, 32) == 0;
      if (dup) rep.nChunkSkipped++, rep.nBytesSkipped += aK[i].n;
      else aIdx[nUp++] = i, rep.nChunk++, rep.nBytes += aK[i].n;
    }
    UpJob j = {r, buf, aK, aIdx};
    CAIRN_TRY_GOTO(rc, parRun(nUp, upOne, &j, NULL, NULL), done);
    for (size_t i = 0; i < nUp; i++) CAIRN_TRY_GOTO(rc, hsAdd(&r->chunks, aK[aIdx[i]].aHash), done);
    CAIRN_TRY_GOTO(rc, cairnArrayReserve(&mani, &capMani, nMani + nK * MANI_ENTRY, 1, 4096, "manifest"), done);
    for (size_t i = 0; i < nK; i++) {
      memcpy(mani + nMani, aK[i].aHash, 32);
      cairnPutLE32(mani + nMani + 32, aK[i].n);
      nMani += MANI_ENTRY;
    }
    nChunkAll += (uint32_t)nK;
    if (eof) break;
    memmove(buf, buf + nUsed, nHave - nUsed);
    iPos += nUsed, nHave -= nUsed;
  }
  if (nMani > MANI_MAX_BODY) CAIRN_ERROR_GOTO(rc, done, CAIRN_LIMIT, "remote store: a manifest of %zu bytes (at most %u)", nMani, MANI_MAX_BODY);
  memcpy(mani + 40, MANI_TAG, 8);
  cairnPutLE64(mani + 48, nIn);
  cairnPutLE32(mani + 56, nChunkAll);
  cairnPutLE32(mani + 60, 0);
  cairnPutLE64(mani + 32, (uint64_t)nowNs());
  cairn_sha256(mani + 40, nMani - 40, aId);
  memcpy(mani, aId, 32);
  /* the manifest only after every chunk it names: a reader never finds a payload with a hole */
  CAIRN_TRY_GOTO(rc, leaseTake(r, 0), done);
  char zKey[80];
  keyOf(zKey, sizeof zKey, "manifests", aId);
  rc = objPut(r, zKey, mani, nMani, CAIRN_OBJ_CREATE_ONLY);
  if (rc == CAIRN_EXISTS) rc = CAIRN_OK; /* published before (by us or another writer): same bytes but the time */
  else if (rc == CAIRN_OK) rep.nPayload = 1;
  if (rc == CAIRN_OK && zName) {
    rc = cairn_rcas_name_set(r, zName, aId);
    if (rc == CAIRN_OK) rep.nName = 1;
  }
done:
  cairnFree(buf), cairnFree(mani), cairnFree(aK), cairnFree(aIdx);
  if (pRep) *pRep = rep;
  return rc;
}

/* ---------------------------------------------------------------- the catalog */
/* names/HEX(NAME)/TIME-RANDOM: TIME 16 hex digits of ns since 1970, RANDOM 16 hex digits. */
static int nameDir(char *z, size_t nz, const char *zName) {
  size_t n = strlen(zName);
  if (n == 0 || n > 400) return cairnErr(CAIRN_MISUSE, "remote store: a name of %zu bytes (1..400)", n);
  memcpy(z, "names/", 6);
  cairn_hex((const uint8_t *)zName, n, z + 6);
  z[6 + 2 * n] = '/';
  z[7 + 2 * n] = 0;
  (void)nz;
  return CAIRN_OK;
}

typedef struct Newest {
  char zKey[1000];
} Newest;
static int eachNewest(void *pArg, const char *zKey, uint64_t nSize) {
  Newest *w = pArg;
  cairnFormat(w->zKey, sizeof w->zKey, "%s", zKey); /* ascending: the last one is the newest */
  return CAIRN_OK;
}
/* A binding's time: now, but always after the newest binding of the name this writer can see, so
** a binding made after another was visible wins over it whatever the clocks say (a clock of ms
** resolution, or one behind another machine's). Two bindings made at once: the later key wins. */
static int nameTime(cairn_rcas *r, const char *zDir, int64_t *pt) {
  Newest w;
  w.zKey[0] = 0;
  CAIRN_TRY(r->s->pMethods->xList(r->s, zDir, eachNewest, &w));
  int64_t t = nowNs();
  size_t n = strlen(zDir);
  if (strlen(w.zKey) == n + 33) {
    uint64_t prev = hexTime(w.zKey + n);
    if ((int64_t)prev >= t) t = (int64_t)prev + 1;
  }
  *pt = t;
  return CAIRN_OK;
}

static int nameWrite(cairn_rcas *r, const char *zName, const uint8_t aId[32], int bDelete) {
  char zKey[1000];
  CAIRN_TRY(nameDir(zKey, sizeof zKey, zName));
  int64_t t;
  CAIRN_TRY(nameTime(r, zKey, &t));
  timedName(r, zKey, strlen(zKey), t, aId); /* the key part holds the name (hex): time, name, ID */
  size_t nName = strlen(zName);
  uint8_t body[NAME_FIXED + 400];
  memcpy(body, aId, 32);
  cairnPutLE64(body + 32, (uint64_t)t);
  cairnPutLE32(body + 40, bDelete ? 1 : 0);
  cairnPutLE32(body + 44, (uint32_t)nName);
  memcpy(body + NAME_FIXED, zName, nName);
  int rc = objPut(r, zKey, body, NAME_FIXED + nName, CAIRN_OBJ_CREATE_ONLY);
  /* the key is this write's own (time + 64 random bits): "exists" means a retried PUT whose
  ** first attempt landed although its answer was lost */
  return rc == CAIRN_EXISTS ? CAIRN_OK : rc;
}

int cairn_rcas_name_set(cairn_rcas *r, const char *zName, const uint8_t aId[32]) {
  CAIRN_RETURN_ERROR_IF(!r || !zName || !aId, CAIRN_MISUSE, "cairn_rcas_name_set: NULL argument");
  return nameWrite(r, zName, aId, 0);
}
int cairn_rcas_name_delete(cairn_rcas *r, const char *zName) {
  static const uint8_t z[32];
  CAIRN_RETURN_ERROR_IF(!r || !zName, CAIRN_MISUSE, "cairn_rcas_name_delete: NULL argument");
  return nameWrite(r, zName, z, 1);
}

/* The body of a name entry: ID, flags; CAIRN_CORRUPT if malformed. */
static int nameRead(cairn_rcas *r, const char *zKey, uint8_t aId[32], int *pbDelete, char *zName, size_t nzName) {
  uint8_t *a = NULL;
  size_t n = 0;
  CAIRN_TRY(objGet(r, zKey, &a, &n));
  int rc = CAIRN_OK;
  uint32_t k = n >= NAME_FIXED ? cairnGetLE32(a + 44) : 0;
  if (n < NAME_FIXED || k == 0 || n != NAME_FIXED + k || k >= nzName)
    rc = cairnErr(CAIRN_CORRUPT, "remote store: catalog entry %s is malformed", zKey);
  else {
    memcpy(aId, a, 32);
    *pbDelete = cairnGetLE32(a + 40) & 1;
    memcpy(zName, a + NAME_FIXED, k);
    zName[k] = 0;
  }
  cairnFree(a);
  return rc;
}

int cairn_rcas_name_get(cairn_rcas *r, const char *zName, uint8_t aId[32]) {
  CAIRN_RETURN_ERROR_IF(!r || !zName || !aId, CAIRN_MISUSE, "cairn_rcas_name_get: NULL argument");
  char zDir[1000];
  CAIRN_TRY(nameDir(zDir, sizeof zDir, zName));
  Newest w;
  w.zKey[0] = 0;
  CAIRN_TRY(r->s->pMethods->xList(r->s, zDir, eachNewest, &w));
  if (!w.zKey[0]) return cairnErr(CAIRN_NOTFOUND, "remote store: no payload is named '%s'", zName);
  int bDel = 0;
  char zGot[404];
  CAIRN_TRY(nameRead(r, w.zKey, aId, &bDel, zGot, sizeof zGot));
  if (bDel) return cairnErr(CAIRN_NOTFOUND, "remote store: the name '%s' was deleted", zName);
  if (strcmp(zGot, zName) != 0) return cairnErr(CAIRN_CORRUPT, "remote store: catalog entry %s names '%s'", w.zKey, zGot);
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- listing */
typedef struct Keys {
  char **az;
  uint64_t *an;
  size_t n, cap, capN;
} Keys;
static int eachKey(void *pArg, const char *zKey, uint64_t nSize) {
  Keys *k = pArg;
  CAIRN_TRY(cairnArrayReserve(&k->az, &k->cap, k->n + 1, sizeof(char *), 64, "listing"));
  CAIRN_TRY(cairnArrayReserve(&k->an, &k->capN, k->n + 1, sizeof(uint64_t), 64, "listing"));
  size_t n = strlen(zKey);
  char *z = cairnMalloc(n + 1);
  if (!z) return cairnErr(CAIRN_NOMEM, "remote store: out of memory for a listing");
  memcpy(z, zKey, n + 1);
  k->an[k->n] = nSize;
  k->az[k->n++] = z;
  return CAIRN_OK;
}
static void keysFree(Keys *k) {
  for (size_t i = 0; i < k->n; i++) cairnFree(k->az[i]);
  cairnFree(k->az), cairnFree(k->an);
  memset(k, 0, sizeof *k);
}

/* Newest binding per name: the last key of each names/HEX/ directory. */
typedef struct Binding {
  char zName[404];
  uint8_t aId[32];
  int bDelete;
} Binding;
typedef struct NameJob {
  cairn_rcas *r;
  Keys *k;
  size_t *aLast;
  Binding *aB;
} NameJob;
static int nameOne(void *pArg, size_t i) {
  NameJob *j = pArg;
  Binding *b = &j->aB[i];
  return nameRead(j->r, j->k->az[j->aLast[i]], b->aId, &b->bDelete, b->zName, sizeof b->zName);
}
static int bindingsGet(cairn_rcas *r, Binding **paB, size_t *pnB) {
  Keys k;
  memset(&k, 0, sizeof k);
  *paB = NULL, *pnB = 0;
  int rc = r->s->pMethods->xList(r->s, "names/", eachKey, &k);
  size_t *aLast = NULL, nLast = 0;
  Binding *aB = NULL;
  if (rc == CAIRN_OK && k.n) {
    aLast = cairnMallocArray(k.n, sizeof *aLast);
    if (!aLast) rc = cairnErr(CAIRN_NOMEM, "remote store: out of memory");
    for (size_t i = 0; rc == CAIRN_OK && i < k.n; i++) {
      const char *s = strrchr(k.az[i], '/');
      const char *t = i + 1 < k.n ? strrchr(k.az[i + 1], '/') : NULL;
      int last = !t || (s - k.az[i]) != (t - k.az[i + 1]) || memcmp(k.az[i], k.az[i + 1], (size_t)(s - k.az[i])) != 0;
      if (last) aLast[nLast++] = i;
    }
  }
  if (rc == CAIRN_OK && nLast) {
    aB = cairnMallocArray(nLast, sizeof *aB);
    if (!aB) rc = cairnErr(CAIRN_NOMEM, "remote store: out of memory");
    else {
      memset(aB, 0, nLast * sizeof *aB);
      NameJob j = {r, &k, aLast, aB};
      rc = parRun(nLast, nameOne, &j, NULL, NULL);
    }
  }
  keysFree(&k);
  cairnFree(aLast);
  if (rc) cairnFree(aB);
  else *paB = aB, *pnB = nLast;
  return rc;
}

typedef struct ManiJob {
  cairn_rcas *r;
  uint8_t (*aId)[32];
  Mani *aM;
} ManiJob;
static int maniOne(void *pArg, size_t i) {
  ManiJob *j = pArg;
  return maniGet(j->r, j->aId[i], &j->aM[i]);
}

/* Every manifest of the store, fetched and checked in parallel (bFetch 0: IDs only). */
typedef struct Manis {
  uint8_t (*aId)[32];
  Mani *aM;
  int *aRc;
  char (*azErr)[256];
  size_t n;
} Manis;
static void manisFree(Manis *ms) {
  for (size_t i = 0; ms->aM && i < ms->n; i++) cairnFree(ms->aM[i].a);
  cairnFree(ms->aId), cairnFree(ms->aM), cairnFree(ms->aRc), cairnFree(ms->azErr);
  memset(ms, 0, sizeof *ms);
}
static int manisGet(cairn_rcas *r, int bFetch, Manis *ms) {
  Keys k;
  memset(&k, 0, sizeof k);
  memset(ms, 0, sizeof *ms);
  int rc = r->s->pMethods->xList(r->s, "manifests/", eachKey, &k);
  if (rc == CAIRN_OK) {
    ms->aId = cairnMallocArray(k.n + 1, 32);
    if (!ms->aId) rc = cairnErr(CAIRN_NOMEM, "remote store: out of memory");
    for (size_t i = 0; rc == CAIRN_OK && i < k.n; i++)
      if (keyHash(k.az[i], 9, ms->aId[ms->n])) ms->n++;
  }
  keysFree(&k);
  if (rc == CAIRN_OK && bFetch) {
    size_t n = ms->n;
    ms->aM = cairnMallocArray(n + 1, sizeof *ms->aM);
    ms->aRc = cairnMallocArray(n + 1, sizeof *ms->aRc);
    ms->azErr = cairnMallocArray(n + 1, sizeof *ms->azErr);
    if (!ms->aM || !ms->aRc || !ms->azErr) rc = cairnErr(CAIRN_NOMEM, "remote store: out of memory");
    else {
      memset(ms->aM, 0, (n + 1) * sizeof *ms->aM);
      ManiJob j = {r, ms->aId, ms->aM};
      parRun(n, maniOne, &j, ms->aRc, ms->azErr); /* failures stay per manifest: verify lists each */
    }
  }
  if (rc) manisFree(ms);
  return rc;
}

int cairn_rcas_list(cairn_rcas *r, cairn_rcas_each_fn xEach, void *pArg) {
  CAIRN_RETURN_ERROR_IF(!r || !xEach, CAIRN_MISUSE, "cairn_rcas_list: NULL argument");
  Manis ms;
  size_t nB = 0;
  Binding *aB = NULL;
  CAIRN_TRY(manisGet(r, 1, &ms));
  int rc = bindingsGet(r, &aB, &nB);
  for (size_t i = 0; rc == CAIRN_OK && i < ms.n; i++) {
    if (ms.aRc[i]) {
      rc = cairnErr(ms.aRc[i], "%s", ms.azErr[i]);
      break;
    }
    cairn_cas_entry e;
    memcpy(e.aId, ms.aId[i], 32);
    e.nSize = ms.aM[i].nSize, e.nChunk = ms.aM[i].nChunk, e.iTime = ms.aM[i].iTime, e.zName = NULL;
    for (size_t b = 0; b < nB; b++)
      if (!aB[b].bDelete && memcmp(aB[b].aId, ms.aId[i], 32) == 0) e.zName = aB[b].zName;
    rc = xEach(pArg, &e);
  }
  manisFree(&ms);
  cairnFree(aB);
  return rc;
}

/* ---------------------------------------------------------------- reads */
typedef struct GetJob {
  cairn_rcas *r;
  const uint8_t *aEnt; /* manifest entries */
  size_t i0;           /* first entry of the window */
  uint8_t **ap;
} GetJob;
static int getOne(void *pArg, size_t i) {
  GetJob *j = pArg;
  const uint8_t *e = j->aEnt + (j->i0 + i) * MANI_ENTRY;
  return chunkGet(j->r, e, cairnGetLE32(e + 32), &j->ap[i]);
}

int cairn_rcas_get_file(cairn_rcas *r, const uint8_t aId[32], uint64_t iStart, uint64_t iEnd, cairn_file *out) {
  CAIRN_RETURN_ERROR_IF(!r || !aId || !out, CAIRN_MISUSE, "cairn_rcas_get_file: NULL argument");
  Mani m;
  CAIRN_TRY(maniGet(r, aId, &m));
  if (iEnd > m.nSize) iEnd = m.nSize;
  if (iStart > iEnd) iStart = iEnd;
  size_t nWin = CAIRN_MAX((size_t)4, (size_t)cairnConcurrency() * 2);
  uint8_t **ap = cairnMallocArray(nWin, sizeof *ap);
  int rc = CAIRN_OK;
  if (!ap) CAIRN_ERROR_GOTO(rc, done, CAIRN_NOMEM, "remote store: out of memory");
  memset(ap, 0, nWin * sizeof *ap);
  const uint8_t *aEnt = m.a + MANI_FIXED;
  uint64_t at = 0, wrote = 0;
  size_t i = 0;
  while (i < m.nChunk && at + cairnGetLE32(aEnt + i * MANI_ENTRY + 32) <= iStart) at += cairnGetLE32(aEnt + i * MANI_ENTRY + 32), i++;
  while (i < m.nChunk && at < iEnd) {
    size_t n = CAIRN_MIN(nWin, (size_t)m.nChunk - i);
    GetJob j = {r, aEnt, i, ap};
    rc = parRun(n, getOne, &j, NULL, NULL);
    for (size_t k = 0; k < n; k++) {
      uint32_t len = cairnGetLE32(aEnt + (i + k) * MANI_ENTRY + 32);
      if (rc == CAIRN_OK && at < iEnd) {
        uint64_t a = CAIRN_MAX(at, iStart), b = CAIRN_MIN(at + len, iEnd);
        if (b > a) rc = cairn_file_write(out, ap[k] + (a - at), (size_t)(b - a), wrote);
        wrote += b > a ? b - a : 0;
      }
      at += len;
      cairnFree(ap[k]), ap[k] = NULL;
    }
    i += n;
    if (rc) break;
  }
  if (rc == CAIRN_OK) rc = cairn_file_truncate(out, wrote);
done:
  cairnFree(ap), cairnFree(m.a);
  return rc;
}

/* A cairn_file over a payload: reads verify the chunks they touch; the last RCAS_CACHE chunks
** are kept. Reads may come from several threads (the HDF5 reader's chunk tasks): the cache is
** guarded by a spin lock, never held across a fetch. */
typedef struct PayFile {
  cairn_file base;
  cairn_rcas *r;
  Mani m;
  uint64_t *aStart; /* payload offset of each chunk, nChunk+1 entries */
  int lock;
  struct {
    int64_t i;
    uint8_t *p;
    uint64_t tick;
  } aCache[RCAS_CACHE];
  uint64_t tick;
} PayFile;

static void spinLock(int *p) {
  while (__atomic_exchange_n(p, 1, __ATOMIC_ACQUIRE)) {
  }
}
static void spinUnlock(int *p) { __atomic_store_n(p, 0, __ATOMIC_RELEASE); }

/* Copy bytes of chunk i from the cache into dst; 1 if it was there. */
static int payCached(PayFile *f, size_t i, uint8_t *dst, uint64_t from, size_t n) {
  int hit = 0;
  spinLock(&f->lock);
  for (int k = 0; k < RCAS_CACHE && !hit; k++)
    if (f->aCache[k].p && f->aCache[k].i == (int64_t)i) {
      memcpy(dst, f->aCache[k].p + from, n);
      f->aCache[k].tick = ++f->tick;
      hit = 1;
    }
  spinUnlock(&f->lock);
  return hit;
}
static void payKeep(PayFile *f, size_t i, uint8_t *p) {
  spinLock(&f->lock);
  int v = 0;
  for (int k = 1; k < RCAS_CACHE; k++)
    if (!f->aCache[k].p || (f->aCache[v].p && f->aCache[k].tick < f->aCache[v].tick)) v = k;
  uint8_t *old = f->aCache[v].p;
  f->aCache[v].p = p, f->aCache[v].i = (int64_t)i, f->aCache[v].tick = ++f->tick;
  spinUnlock(&f->lock);
  cairnFree(old);
}

static int payRead(cairn_file *pf, void *p, size_t n, uint64_t iOff, size_t *pnRead) {
  PayFile *f = (PayFile *)pf;
  uint64_t size = f->m.nSize;
  size_t want = iOff >= size ? 0 : (size_t)CAIRN_MIN((uint64_t)n, size - iOff);
  memset((uint8_t *)p + want, 0, n - want);
  if (pnRead) *pnRead = want;
  else if (want < n) return cairnErr(CAIRN_IOERR_SHORT_READ, "remote store: read of %zu bytes at %llu past the payload's end", n, (unsigned long long)iOff);
  /* the first chunk: binary search over the starts */
  size_t lo = 0, hi = f->m.nChunk;
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (f->aStart[mid] <= iOff) lo = mid;
    else hi = mid;
  }
  size_t done = 0;
  for (size_t i = lo; done < want && i < f->m.nChunk; i++) {
    uint64_t a = f->aStart[i], len = f->aStart[i + 1] - a, from = iOff + done - a;
    size_t k = (size_t)CAIRN_MIN(len - from, (uint64_t)(want - done));
    if (!payCached(f, i, (uint8_t *)p + done, from, k)) {
      uint8_t *c = NULL;
      CAIRN_TRY(chunkGet(f->r, f->m.a + MANI_FIXED + i * MANI_ENTRY, (uint32_t)len, &c));
      memcpy((uint8_t *)p + done, c + from, k);
      payKeep(f, i, c);
    }
    done += k;
  }
  return CAIRN_OK;
}
static int payWrite(cairn_file *f, const void *p, size_t n, uint64_t iOff) {
  return cairnErr(CAIRN_READONLY, "remote store: a payload is read-only");
}
static int paySize(cairn_file *f, uint64_t *pn) {
  *pn = ((PayFile *)f)->m.nSize;
  return CAIRN_OK;
}
static int payTruncate(cairn_file *f, uint64_t n) { return payWrite(f, NULL, 0, n); }
static int paySync(cairn_file *f) { return CAIRN_OK; }
static int payClose(cairn_file *pf) {
  PayFile *f = (PayFile *)pf;
  for (int k = 0; k < RCAS_CACHE; k++) cairnFree(f->aCache[k].p);
  cairnFree(f->aStart), cairnFree(f->m.a), cairnFree(f);
  return CAIRN_OK;
}
static const cairn_file_methods payMethods = {1, payRead, payWrite, paySize, payTruncate, paySync, payClose, NULL, NULL, NULL, NULL};

int cairn_rcas_payload_file(cairn_rcas *r, const uint8_t aId[32], cairn_file **pp) {
  CAIRN_RETURN_ERROR_IF(!r || !aId || !pp, CAIRN_MISUSE, "cairn_rcas_payload_file: NULL argument");
  *pp = NULL;
  PayFile *f = cairnMalloc(sizeof *f);
  if (!f) return cairnErr(CAIRN_NOMEM, "remote store: out of memory");
  memset(f, 0, sizeof *f);
  f->base.pMethods = &payMethods;
  f->r = r;
  int rc = maniGet(r, aId, &f->m);
  if (rc == CAIRN_OK) {
    f->aStart = cairnMallocArray((size_t)f->m.nChunk + 1, sizeof *f->aStart);
    if (!f->aStart) rc = cairnErr(CAIRN_NOMEM, "remote store: out of memory");
  }
  if (rc) {
    payClose(&f->base);
    return rc;
  }
  uint64_t at = 0;
  for (uint32_t i = 0; i < f->m.nChunk; i++) f->aStart[i] = at, at += cairnGetLE32(f->m.a + MANI_FIXED + (size_t)i * MANI_ENTRY + 32);
  f->aStart[f->m.nChunk] = at;
  *pp = &f->base;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- verify */
typedef struct VerJob {
  cairn_rcas *r;
  uint8_t (*aH)[32];
  uint32_t *aLen;
} VerJob;
static int verOne(void *pArg, size_t i) {
  VerJob *j = pArg;
  uint8_t *p = NULL;
  int rc = chunkGet(j->r, j->aH[i], j->aLen[i], &p);
  cairnFree(p);
  return rc;
}

int cairn_rcas_verify(cairn_rcas *r, cairn_cas_problem_fn xProblem, void *pArg, uint64_t *pnBad) {
  CAIRN_RETURN_ERROR_IF(!r, CAIRN_MISUSE, "cairn_rcas_verify: NULL argument");
  uint64_t nBad = 0;
  char zFirst[512] = "";
  int rcFirst = CAIRN_OK;
#define PROBLEM(code, ...)                                                      \
  do {                                                                          \
    char z_[512];                                                               \
    cairnFormat(z_, sizeof z_, __VA_ARGS__);                                    \
    if (!nBad++) cairnFormat(zFirst, sizeof zFirst, "%s", z_), rcFirst = code;  \
    if (xProblem) xProblem(pArg, z_);                                           \
  } while (0)
  Manis ms;
  CAIRN_TRY(manisGet(r, 1, &ms));
  /* every distinct chunk any manifest names, checked once */
  HashSet seen;
  memset(&seen, 0, sizeof seen);
  uint8_t(*aH)[32] = NULL;
  uint32_t *aLen = NULL;
  size_t nH = 0, capH = 0, capL = 0;
  int rc = CAIRN_OK;
  for (size_t i = 0; i < ms.n && rc == CAIRN_OK; i++) {
    if (ms.aRc[i]) {
      PROBLEM(ms.aRc[i], "%s", ms.azErr[i]);
      continue;
    }
    for (uint32_t k = 0; k < ms.aM[i].nChunk && rc == CAIRN_OK; k++) {
      const uint8_t *e = ms.aM[i].a + MANI_FIXED + (size_t)k * MANI_ENTRY;
      if (hsHas(&seen, e)) continue;
      rc = hsAdd(&seen, e);
      if (rc == CAIRN_OK) rc = cairnArrayReserve(&aH, &capH, nH + 1, 32, 256, "chunk list");
      if (rc == CAIRN_OK) rc = cairnArrayReserve(&aLen, &capL, nH + 1, sizeof *aLen, 256, "chunk list");
      if (rc == CAIRN_OK) memcpy(aH[nH], e, 32), aLen[nH++] = cairnGetLE32(e + 32);
    }
  }
  int *aVr = NULL;
  char(*azVe)[256] = NULL;
  if (rc == CAIRN_OK && nH) {
    aVr = cairnMallocArray(nH, sizeof *aVr);
    azVe = cairnMallocArray(nH, sizeof *azVe);
    if (!aVr || !azVe) rc = cairnErr(CAIRN_NOMEM, "remote store: out of memory");
    else {
      VerJob j = {r, aH, aLen};
      parRun(nH, verOne, &j, aVr, azVe); /* every failure is listed below */
      for (size_t i = 0; i < nH; i++)
        if (aVr[i]) PROBLEM(aVr[i], "%s", azVe[i]);
    }
  }
  Binding *aB = NULL;
  size_t nB = 0;
  if (rc == CAIRN_OK) rc = bindingsGet(r, &aB, &nB);
  for (size_t b = 0; rc == CAIRN_OK && b < nB; b++) {
    if (aB[b].bDelete) continue;
    int found = 0;
    for (size_t i = 0; i < ms.n && !found; i++) found = ms.aRc[i] == CAIRN_OK && memcmp(ms.aId[i], aB[b].aId, 32) == 0;
    if (!found) {
      char zId[65];
      cairn_hex(aB[b].aId, 32, zId);
      PROBLEM(CAIRN_CORRUPT, "remote store: the name '%s' is bound to payload %s, which is not there", aB[b].zName, zId);
    }
  }
#undef PROBLEM
  cairnFree(aB), cairnFree(aVr), cairnFree(azVe), cairnFree(aH), cairnFree(aLen), cairnFree(seen.a);
  manisFree(&ms);
  if (pnBad) *pnBad = nBad;
  if (rc) return rc;
  return nBad ? cairnErr(rcFirst, "%s", zFirst) : CAIRN_OK;
}

/* ---------------------------------------------------------------- push / pull */
/* A local payload as a cairn_file (push re-chunks it with the same parameters: same chunks). */
typedef struct LocalFile {
  cairn_file base;
  cairn_cas_payload *p;
} LocalFile;
static int localRead(cairn_file *pf, void *p, size_t n, uint64_t iOff, size_t *pnRead) {
  return cairn_cas_payload_read(((LocalFile *)pf)->p, iOff, p, n, pnRead);
}
static int localSize(cairn_file *pf, uint64_t *pn) {
  *pn = cairn_cas_payload_size(((LocalFile *)pf)->p);
  return CAIRN_OK;
}
static int localClose(cairn_file *pf) {
  cairn_cas_payload_close(((LocalFile *)pf)->p);
  cairnFree(pf);
  return CAIRN_OK;
}
static const cairn_file_methods localMethods = {1, localRead, payWrite, localSize, payTruncate, paySync, localClose, NULL, NULL, NULL, NULL};

static int sameChunking(cairn_rcas *r, cairn_cas *pLocal) {
  cairn_cas_stats st;
  CAIRN_TRY(cairn_cas_get_stats(pLocal, &st));
  if (memcmp(&st.chunking, &r->prm, sizeof r->prm) != 0)
    return cairnErr(CAIRN_MISUSE, "remote store: chunking %u/%u/%u differs from the local store's %u/%u/%u (payload IDs would differ)",
                    r->prm.nMin, r->prm.nAvg, r->prm.nMax, st.chunking.nMin, st.chunking.nAvg, st.chunking.nMax);
  return CAIRN_OK;
}

/* What push and pull start from: the remote manifests' IDs and the newest binding of each name. */
typedef struct Side {
  Manis ms;
  Binding *aB;
  size_t nB;
} Side;
static int sideGet(cairn_rcas *r, cairn_cas *pLocal, Side *d) {
  memset(d, 0, sizeof *d);
  CAIRN_TRY(sameChunking(r, pLocal));
  CAIRN_TRY(manisGet(r, 0, &d->ms));
  int rc = bindingsGet(r, &d->aB, &d->nB);
  if (rc) manisFree(&d->ms);
  return rc;
}
static void sideFree(Side *d) {
  manisFree(&d->ms);
  cairnFree(d->aB);
}

int cairn_rcas_push(cairn_rcas *r, cairn_cas *pLocal, cairn_rcas_report *pRep) {
  CAIRN_RETURN_ERROR_IF(!r || !pLocal, CAIRN_MISUSE, "cairn_rcas_push: NULL argument");
  cairn_rcas_report rep;
  memset(&rep, 0, sizeof rep);
  Side d;
  CAIRN_TRY(sideGet(r, pLocal, &d));
  Manis ms = d.ms;
  Binding *aB = d.aB;
  size_t nB = d.nB;
  HashSet have;
  memset(&have, 0, sizeof have);
  int rc = CAIRN_OK;
  for (size_t i = 0; i < ms.n && rc == CAIRN_OK; i++) rc = hsAdd(&have, ms.aId[i]);
  size_t nPay = cairn_cas_count(pLocal);
  for (size_t i = 0; i < nPay && rc == CAIRN_OK; i++) {
    cairn_cas_entry e;
    CAIRN_TRY_GOTO(rc, cairn_cas_entry_at(pLocal, i, &e), done);
    if (!hsHas(&have, e.aId)) {
      LocalFile *lf = cairnMalloc(sizeof *lf);
      if (!lf) CAIRN_ERROR_GOTO(rc, done, CAIRN_NOMEM, "remote store: out of memory");
      lf->base.pMethods = &localMethods;
      rc = cairn_cas_payload_open(pLocal, e.aId, &lf->p);
      if (rc) {
        cairnFree(lf);
        goto done;
      }
      uint8_t got[32];
      cairn_rcas_report one;
      rc = cairn_rcas_put_file(r, &lf->base, NULL, got, &one);
      localClose(&lf->base);
      if (rc) goto done;
      if (memcmp(got, e.aId, 32) != 0) CAIRN_ERROR_GOTO(rc, done, CAIRN_CORRUPT, "remote store: a pushed payload came out with another ID");
      rep.nPayload++, rep.nChunk += one.nChunk, rep.nChunkSkipped += one.nChunkSkipped;
      rep.nBytes += one.nBytes, rep.nBytesSkipped += one.nBytesSkipped;
      CAIRN_TRY_GOTO(rc, hsAdd(&have, e.aId), done);
    }
    if (e.zName) { /* the local newest name, unless the remote catalog says the same already */
      int same = 0;
      for (size_t b = 0; b < nB && !same; b++) same = !aB[b].bDelete && strcmp(aB[b].zName, e.zName) == 0 && memcmp(aB[b].aId, e.aId, 32) == 0;
      if (!same) {
        CAIRN_TRY_GOTO(rc, cairn_rcas_name_set(r, e.zName, e.aId), done);
        rep.nName++;
      }
    }
  }
done:
  cairnFree(have.a);
  sideFree(&d);
  if (pRep) *pRep = rep;
  return rc;
}

/* Pull one payload: its manifest (verified), the chunks the local store lacks (fetched in parallel
** and verified, a window at a time), then the manifest as it is: the same ID and time. */
typedef struct PullJob {
  cairn_rcas *r;
  const uint8_t *aEnt;
  size_t *aIdx; /* entries of this window to fetch */
  uint8_t **ap;
} PullJob;
static int pullGet(void *pArg, size_t i) {
  PullJob *j = pArg;
  const uint8_t *e = j->aEnt + j->aIdx[i] * MANI_ENTRY;
  return chunkGet(j->r, e, cairnGetLE32(e + 32), &j->ap[i]);
}
static int pullOne(cairn_rcas *r, cairn_cas *c, const uint8_t aId[32], cairn_rcas_report *pRep) {
  Mani m;
  CAIRN_TRY(maniGet(r, aId, &m));
  size_t nWin = CAIRN_MAX((size_t)4, (size_t)cairnConcurrency() * 2);
  size_t *aIdx = cairnMallocArray(nWin, sizeof *aIdx);
  uint8_t **ap = cairnMallocArray(nWin, sizeof *ap);
  HashSet asked;
  memset(&asked, 0, sizeof asked);
  int rc = aIdx && ap ? CAIRN_OK : cairnErr(CAIRN_NOMEM, "remote store: out of memory");
  const uint8_t *aEnt = m.a + MANI_FIXED;
  for (size_t i = 0; rc == CAIRN_OK && i < m.nChunk;) {
    size_t n = 0;
    for (; i < m.nChunk && n < nWin && rc == CAIRN_OK; i++) {
      const uint8_t *e = aEnt + i * MANI_ENTRY;
      if (hsHas(&asked, e) || casTabFindHash(c, &c->tChunk, casChunkKey, e) != SIZE_MAX) {
        pRep->nChunkSkipped++, pRep->nBytesSkipped += cairnGetLE32(e + 32);
        continue;
      }
      rc = hsAdd(&asked, e);
      aIdx[n] = i, ap[n++] = NULL;
    }
    PullJob j = {r, aEnt, aIdx, ap};
    if (rc == CAIRN_OK) rc = parRun(n, pullGet, &j, NULL, NULL);
    for (size_t k = 0; k < n; k++) {
      const uint8_t *e = aEnt + aIdx[k] * MANI_ENTRY;
      if (rc == CAIRN_OK) rc = cairnCasAddChunkRaw(c, e, ap[k], cairnGetLE32(e + 32));
      if (rc == CAIRN_OK) pRep->nChunk++, pRep->nBytes += cairnGetLE32(e + 32);
      cairnFree(ap[k]);
    }
  }
  if (rc == CAIRN_OK) rc = cairnCasAddManifestBody(c, m.a, (uint32_t)m.n);
  if (rc == CAIRN_OK) pRep->nPayload++;
  cairnFree(aIdx), cairnFree(ap), cairnFree(asked.a), cairnFree(m.a);
  return rc;
}

int cairn_rcas_pull(cairn_rcas *r, cairn_cas *pLocal, cairn_rcas_report *pRep) {
  CAIRN_RETURN_ERROR_IF(!r || !pLocal, CAIRN_MISUSE, "cairn_rcas_pull: NULL argument");
  cairn_rcas_report rep;
  memset(&rep, 0, sizeof rep);
  Side d;
  CAIRN_TRY(sideGet(r, pLocal, &d));
  Manis ms = d.ms;
  Binding *aB = d.aB;
  size_t nB = d.nB;
  int rc = cairn_cas_begin(pLocal);
  for (size_t i = 0; i < ms.n && rc == CAIRN_OK; i++) {
    if (cairn_cas_stat(pLocal, ms.aId[i], NULL) == CAIRN_OK) continue;
    CAIRN_TRY_GOTO(rc, pullOne(r, pLocal, ms.aId[i], &rep), done);
  }
  for (size_t b = 0; b < nB && rc == CAIRN_OK; b++) {
    uint8_t cur[32];
    int have = cairn_cas_name_get(pLocal, aB[b].zName, cur) == CAIRN_OK;
    if (aB[b].bDelete) {
      if (have) rc = cairn_cas_name_delete(pLocal, aB[b].zName), rep.nName++;
    } else if (!have || memcmp(cur, aB[b].aId, 32) != 0) {
      if (cairn_cas_stat(pLocal, aB[b].aId, NULL) == CAIRN_OK) rc = cairn_cas_name_set(pLocal, aB[b].zName, aB[b].aId), rep.nName++;
    }
  }
  if (rc == CAIRN_OK) rc = cairn_cas_commit(pLocal);
done:
  if (rc) cairn_cas_rollback(pLocal);
  sideFree(&d);
  if (pRep) *pRep = rep;
  return rc;
}

/* ---------------------------------------------------------------- the sweep */
typedef struct DelJob {
  cairn_rcas *r;
  Keys *k;
  size_t *aIdx;
} DelJob;
static int delOne(void *pArg, size_t i) {
  DelJob *j = pArg;
  return j->r->s->pMethods->xDelete(j->r->s, j->k->az[j->aIdx ? j->aIdx[i] : i]);
}

int cairn_rcas_gc(cairn_rcas *r, int64_t nGraceMs, int bDryRun, cairn_rcas_gc_report *pRep) {
  CAIRN_RETURN_ERROR_IF(!r || nGraceMs < 0, CAIRN_MISUSE, "cairn_rcas_gc: NULL handle or a negative grace period");
  cairn_rcas_gc_report rep;
  memset(&rep, 0, sizeof rep);
  int64_t nGrace = nGraceMs * 1000000, t0 = nowNs();
  Keys stale, chunks;
  Manis ms;
  HashSet used;
  memset(&stale, 0, sizeof stale), memset(&chunks, 0, sizeof chunks), memset(&ms, 0, sizeof ms), memset(&used, 0, sizeof used);
  size_t *aDel = NULL, nDel = 0;
  char zSelf[64];
  CAIRN_TRY(markerPut(r, "gc/", t0, zSelf)); /* first ours, then the writers': see markers above */
  Markers m;
  int rc = markersList(r, "writers/", nGrace, r->tLease ? r->zLease : NULL, &stale, &m);
  if (rc == CAIRN_OK && m.nLive)
    CAIRN_ERROR_GOTO(rc, done, CAIRN_BUSY,
                     "remote store: %zu writer marker%s younger than the grace period (the newest %lld s old): nothing swept "
                     "(a put in progress, or one that died: its marker expires after %lld s)",
                     m.nLive, m.nLive == 1 ? "" : "s", (long long)((t0 - m.tNewest) / RCAS_SEC), (long long)(nGraceMs / 1000));
  CAIRN_TRY_GOTO(rc, markersList(r, "gc/", RCAS_LEASE_MAX_NS, zSelf, &stale, &m), done); /* another sweep: harmless */
  CAIRN_TRY_GOTO(rc, manisGet(r, 1, &ms), done);
  for (size_t i = 0; i < ms.n; i++) {
    if (ms.aRc[i]) /* the chunks of a manifest that cannot be read are unknown */
      CAIRN_ERROR_GOTO(rc, done, ms.aRc[i], "%s: nothing swept", ms.azErr[i]);
    for (uint32_t k = 0; k < ms.aM[i].nChunk; k++) CAIRN_TRY_GOTO(rc, hsAdd(&used, ms.aM[i].a + MANI_FIXED + (size_t)k * MANI_ENTRY), done);
  }
  CAIRN_TRY_GOTO(rc, r->s->pMethods->xList(r->s, "chunks/", eachKey, &chunks), done);
  aDel = cairnMallocArray(chunks.n + 1, sizeof *aDel);
  if (!aDel) CAIRN_ERROR_GOTO(rc, done, CAIRN_NOMEM, "remote store: out of memory for %zu chunks", chunks.n);
  for (size_t i = 0; i < chunks.n; i++) {
    uint8_t h[32];
    if (!keyHash(chunks.az[i], 6, h)) continue; /* not ours */
    rep.nChunk++;
    if (hsHas(&used, h)) continue;
    aDel[nDel++] = i;
    rep.nUnused++, rep.nBytesUnused += chunks.an[i];
  }
  if (!bDryRun) {
    if (nowNs() - t0 >= RCAS_LEASE_MAX_NS / 2) /* writers take our marker for live this long only */
      CAIRN_ERROR_GOTO(rc, done, CAIRN_BUSY, "remote store: the sweep's listing took more than %lld minutes: nothing swept",
                       (long long)(RCAS_LEASE_MAX_NS / 2 / RCAS_SEC / 60));
    DelJob j = {r, &chunks, aDel};
    CAIRN_TRY_GOTO(rc, parRun(nDel, delOne, &j, NULL, NULL), done);
    rep.nDeleted = rep.nUnused, rep.nBytesDeleted = rep.nBytesUnused;
    DelJob js = {r, &stale, NULL};
    CAIRN_TRY_GOTO(rc, parRun(stale.n, delOne, &js, NULL, NULL), done);
    rep.nMarker = stale.n;
  }
done:
  r->s->pMethods->xDelete(r->s, zSelf);
  keysFree(&stale), keysFree(&chunks), manisFree(&ms);
  cairnFree(used.a), cairnFree(aDel);
  if (pRep) *pRep = rep;
  return rc;
}
