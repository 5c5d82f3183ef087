/*
** 2026-12-02
**
** cairn/objstore.h - object stores (S3 and anything shaped like it) and the chunk store that
** lives in one.
**
** The core makes no network calls. An object store reaches it the way files do (host.h): a
** struct of methods the host implements. hosts/s3.c implements it over HTTP with libcurl (S3 with
** AWS Signature V4, tested against Ceph's RADOS Gateway) and also offers a read-only cairn_file
** over one S3 object, so every reader of cairn (HDF5 files, chunk stores, memory stores) can read
** from S3. The remote chunk store (core/cas/remote*.c, layout in core/cas/FORMAT.md "A store in
** an object store") keeps chunks, manifests and catalog entries as objects, so that two writers on
** two machines never lose each other's payloads, without a server of its own.
*/
#ifndef CAIRN_OBJSTORE_H
#define CAIRN_OBJSTORE_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>
#include "cairn.h"
#include "host.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cairn_objstore cairn_objstore;
typedef struct cairn_objstore_methods cairn_objstore_methods;

/* An object store; hosts subclass it as cairn_file (first member). Keys are relative to the
** store's root (an S3 store: a bucket and a prefix), at most 1024 bytes of UTF-8. */
struct cairn_objstore {
  const cairn_objstore_methods *pMethods;
};

/* xList's callback: one object (keys in ascending byte order); a non-zero return stops the
** listing, and xList returns it. */
typedef int (*cairn_objstore_each_fn)(void *pArg, const char *zKey, uint64_t nSize);

/* xPut flag: create only; an object that exists already is left alone and xPut returns
** CAIRN_EXISTS (S3: If-None-Match: *, 412). A store that cannot tell writes it anyway. */
#define CAIRN_OBJ_CREATE_ONLY 1

/*
** Methods. Every method may be called from several threads at once (the core uploads and
** downloads in parallel through cairnParallelFor). A failure returns a status with a message
** naming the store, the key and what the store said (S3: the HTTP status and error code); a
** missing key is CAIRN_NOTFOUND. Hosts retry transient failures themselves (S3: 5xx, timeouts).
**
** xGet     Bytes [iOff, iOff+n) of zKey (n == UINT64_MAX: to its end) into a buffer allocated
**          with cairn_malloc, *pp (the caller frees it with cairn_free) and its length *pn
**          (shorter only at the object's end).
** xPut     Store p[0..n) as zKey, replacing it unless flags has CAIRN_OBJ_CREATE_ONLY. An object
**          is whole or absent (S3 PUTs are atomic).
** xHead    CAIRN_OK and the size, or CAIRN_NOTFOUND.
** xList    Every key that starts with zPrefix, in order.
** xDelete  Remove zKey (a missing key is not an error).
** xClose   Release the store (called once).
*/
struct cairn_objstore_methods {
  int iVersion; /* 1 */
  int (*xGet)(cairn_objstore *, const char *zKey, uint64_t iOff, uint64_t n, void **pp, size_t *pn);
  int (*xPut)(cairn_objstore *, const char *zKey, const void *p, size_t n, int flags);
  int (*xHead)(cairn_objstore *, const char *zKey, uint64_t *pnSize);
  int (*xList)(cairn_objstore *, const char *zPrefix, cairn_objstore_each_fn xEach, void *pArg);
  int (*xDelete)(cairn_objstore *, const char *zKey);
  int (*xClose)(cairn_objstore *);
};

/* ------------------------------------------------------------------ the S3 host (hosts/s3.c) */
/*
** Implemented by hosts/s3.c (libcairn_s3.a natively, with Debian's libcurl; not in cairn.wasm).
** Configuration, in this order: the fields of cairn_s3_config that are set, then the environment
** (AWS_ENDPOINT_URL or AWS_ENDPOINT_URL_S3, AWS_REGION or AWS_DEFAULT_REGION, AWS_ACCESS_KEY_ID,
** AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), then the profile (AWS_PROFILE, default "default") in
** the credentials file (AWS_SHARED_CREDENTIALS_FILE, ~/.aws/credentials: aws_access_key_id,
** aws_secret_access_key, aws_session_token) and the config file (AWS_CONFIG_FILE, ~/.aws/config:
** region, endpoint_url). Without an endpoint: https://s3.REGION.amazonaws.com. Addressing: path
** style (http://host/bucket/key) when an endpoint is given, virtual-host style
** (http://bucket.host/key) otherwise; CAIRN_S3_ADDRESSING=path|virtual (or the field) forces one.
** Requests are signed with AWS Signature V4 (by libcurl), payloads carry their SHA-256. Transient
** failures (HTTP 500, 502, 503, 504, 429; connection refused, reset, timed out) are retried with
** exponential backoff and jitter (100 ms doubling to 2 s; CAIRN_S3_RETRIES, default 8 retries).
*/
typedef struct cairn_s3_config {
  const char *zEndpoint;  /* "http://127.0.0.1:8000" */
  const char *zRegion;    /* "us-east-1" */
  const char *zAccessKey, *zSecretKey, *zSessionToken;
  const char *zProfile;   /* the profile in the credentials/config files */
  int eAddressing;        /* 0 default, 1 path style, 2 virtual-host style */
  int nRetry;             /* retries of a transient failure (0: CAIRN_S3_RETRIES or 8) */
  int timeoutMs;          /* one request's limit (0: CAIRN_S3_TIMEOUT_MS or 120000) */
} cairn_s3_config;

/* Is z an s3:// URL? */
CAIRN_API int cairn_s3_is_url(const char *z);
/* An object store over s3://BUCKET[/PREFIX] (pCfg NULL: all from the environment). */
CAIRN_API int cairn_s3_open(const char *zUrl, const cairn_s3_config *pCfg, cairn_objstore **ppStore);
/*
** A read-only file over the object s3://BUCKET/KEY (one HEAD at open). Reads go through two
** caches: small reads (metadata) fetch aligned 64 KiB blocks, larger ones (HDF5 chunks) aligned
** 2 MiB stripes, a run of missing blocks or stripes in one range GET, and a read that looks
** sequential prefetches the next stripes in parallel. A read plan (cairn_file_methods.xWillRead:
** the HDF5 reader names a dataset's chunks before it reads them) is coalesced into runs of up to
** 16 MiB (cairn_s3_plan) fetched ahead, a few at once, each streamed into the chunk reads waiting
** for it (h5coro reads the same way). Safe to read from several threads at once.
*/
CAIRN_API int cairn_s3_file_open(const char *zUrl, const cairn_s3_config *pCfg, cairn_file **ppFile);

/* Process-wide request counters of the S3 host (for "bytes fetched" reports and tests). */
typedef struct cairn_s3_counters {
  uint64_t nRequest, nGet, nPut, nHead, nList, nDelete;
  uint64_t nBytesIn, nBytesOut; /* response and request bodies */
  uint64_t nRetry;
  uint64_t nPlanRun, nPlanHit; /* read plans: runs fetched (GETs, also in nGet), chunk reads served */
} cairn_s3_counters;
CAIRN_API void cairn_s3_get_counters(cairn_s3_counters *p);
/*
** The read planner of cairn_s3_file_open's files (exposed for tests and benches): ranges
** (aRange[2i] offset, aRange[2i+1] length; ascending, disjoint) coalesced into runs, one range GET
** each. A range joins the run before it while the gap between them is at most maxGap bytes and
** the run stays within maxRun bytes (a range larger than maxRun is a run alone). aFirst (room for
** nRange) gets each run's first range; returns the number of runs.
*/
CAIRN_API size_t cairn_s3_plan(const uint64_t *aRange, size_t nRange, uint64_t maxGap, uint64_t maxRun, size_t *aFirst);

/* ------------------------------------------------------------------ a chunk store in an object store */
#if !defined(CAIRN_WITH_CAS) || CAIRN_WITH_CAS
#include "cas.h"
typedef struct cairn_rcas cairn_rcas;

/*
** Open (creating if the store has none yet) the chunk store under an object store's root. The
** store's chunking parameters and codec are fixed by its first writer (object "config", written
** create-only); pCfg's chunking is used only then, its codec for the chunks this handle writes.
** The handle does not own pStore.
*/
CAIRN_API int cairn_rcas_open(cairn_objstore *pStore, const cairn_cas_config *pCfg, cairn_rcas **pp);
CAIRN_API int cairn_rcas_close(cairn_rcas *p);

/* What a put or a sync did. */
typedef struct cairn_rcas_report {
  uint64_t nPayload;                /* payloads published (or copied) */
  uint64_t nChunk, nChunkSkipped;   /* chunks uploaded; chunks the store already had */
  uint64_t nBytes, nBytesSkipped;   /* their raw bytes */
  uint64_t nName;
} cairn_rcas_report;

/*
** Publish a whole file: chunk, hash, upload every chunk the store lacks (in parallel), then the
** manifest, then (zName not NULL) a catalog entry. A put that fails leaves no manifest and no
** name: the payload is absent; its chunks stay, so the put run again uploads only the rest.
*/
CAIRN_API int cairn_rcas_put_file(cairn_rcas *p, cairn_file *in, const char *zName, uint8_t aId[32],
                                  cairn_rcas_report *pReport);
/* The catalog: the newest entry for zName (CAIRN_NOTFOUND if none or deleted). */
CAIRN_API int cairn_rcas_name_get(cairn_rcas *p, const char *zName, uint8_t aId[32]);
CAIRN_API int cairn_rcas_name_set(cairn_rcas *p, const char *zName, const uint8_t aId[32]);
CAIRN_API int cairn_rcas_name_delete(cairn_rcas *p, const char *zName);
/* CAIRN_OK and the size of a payload, or CAIRN_NOTFOUND. */
CAIRN_API int cairn_rcas_stat(cairn_rcas *p, const uint8_t aId[32], uint64_t *pnSize);
/* Every payload: ID, size, chunk count, time and newest name (zName NULL if none). */
typedef int (*cairn_rcas_each_fn)(void *pArg, const cairn_cas_entry *pEntry);
CAIRN_API int cairn_rcas_list(cairn_rcas *p, cairn_rcas_each_fn xEach, void *pArg);
/* Bytes [iStart, iEnd) of a payload (iEnd UINT64_MAX: to its end) to out at offset 0, every
** chunk verified against its SHA-256 (chunks fetched in parallel). */
CAIRN_API int cairn_rcas_get_file(cairn_rcas *p, const uint8_t aId[32], uint64_t iStart, uint64_t iEnd,
                                  cairn_file *out);
/* A read-only cairn_file over a payload: reads fetch and verify the chunks they touch (a small
** cache keeps the last ones), so an HDF5 file or memory store in the store opens lazily. */
CAIRN_API int cairn_rcas_payload_file(cairn_rcas *p, const uint8_t aId[32], cairn_file **ppFile);
/* Check every manifest (ID, chunks present) and every chunk (SHA-256) and every name. */
CAIRN_API int cairn_rcas_verify(cairn_rcas *p, cairn_cas_problem_fn xProblem, void *pArg, uint64_t *pnBad);
/* Copy what the other side lacks: every payload of pLocal and its newest names to p (push), or
** every payload of p and its names to pLocal (pull, one transaction of pLocal). Only the chunks
** the other side lacks are sent or fetched (the report counts both). The stores' chunking must be
** the same (payload IDs depend on it): CAIRN_MISUSE otherwise. */
CAIRN_API int cairn_rcas_push(cairn_rcas *p, cairn_cas *pLocal, cairn_rcas_report *pReport);
CAIRN_API int cairn_rcas_pull(cairn_rcas *p, cairn_cas *pLocal, cairn_rcas_report *pReport);

/* What a sweep found and did. */
typedef struct cairn_rcas_gc_report {
  uint64_t nChunk;                   /* chunks in the store */
  uint64_t nUnused, nBytesUnused;    /* of them, named by no manifest (stored bytes) */
  uint64_t nDeleted, nBytesDeleted;  /* deleted (0 in a dry run) */
  uint64_t nMarker;                  /* expired writer and sweep markers removed */
} cairn_rcas_gc_report;
/*
** Delete the chunks no manifest names (left by failed puts), unless a writer may be at work:
** CAIRN_BUSY, nothing deleted, while a writer's marker is younger than nGraceMs (a put in
** progress, or one that died less than nGraceMs ago). Writers refuse to start while a sweep runs.
** The rule, and why nGraceMs must exceed 30 minutes plus the clock skew between the machines that
** write: core/cas/FORMAT.md "Sweeping unused chunks". bDryRun: count only.
*/
CAIRN_API int cairn_rcas_gc(cairn_rcas *p, int64_t nGraceMs, int bDryRun, cairn_rcas_gc_report *pReport);
#endif

#ifdef __cplusplus
}
#endif
#endif /* CAIRN_OBJSTORE_H */
