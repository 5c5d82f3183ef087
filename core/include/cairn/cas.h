/*
** 2026-11-29
**
** cairn/cas.h - the content-addressed payload store: FastCDC 2020 chunking, SHA-256 names,
** deduplication across payloads, optional per-chunk zstd/zlib, and verified range reads.
**
** A payload (any byte string) is cut into content-defined chunks; each chunk is named by its
** SHA-256 and stored once per store. The payload's ID is the SHA-256 of its manifest (the list
** of chunk hashes and lengths), written as 64 lowercase hex digits. Every read checks each
** chunk it touches against its SHA-256 before a byte is returned: a damaged chunk gives
** CAIRN_CHECKSUM with a message naming the chunk, never wrong bytes.
**
** Two backends share one format (core/cas/FORMAT.md): an append-only log in any cairn_file.
** In memory it lives in a memory file (cairn_cas_open_memory); durably it is a single file
** whose commits are atomic: after a crash a payload is either fully published or absent, and
** nothing committed before is lost.
**
** Shapes chosen so a JS binding can call everything: plain functions, opaque handles,
** caller-owned buffers, IDs as 32-byte arrays (cairn_cas_id_hex/cairn_cas_id_parse convert).
** One handle is used by one thread at a time; the store may use the host's parallel-for
** inside a call.
*/
#ifndef CAIRN_CAS_H
#define CAIRN_CAS_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>
#include "cairn.h" /* status codes; cairn.h includes this file at its end */
#include "host.h"
#include "zcodec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ FastCDC 2020 */
/*
** Chunking parameters. nAvg must be a power of two; 64 <= nMin <= nAvg <= nMax <= 64 MiB;
** level is the normalization level (0..3; log2(nAvg) +/- level must stay in 5..25). The seed
** is XORed into every gear table entry (0 = the published table). These reproduce the
** FastCDC 2020 reference vectors (fastcdc-rs v2020, Go fastcdc2020) exactly.
*/
typedef struct cairn_fastcdc_params {
  uint32_t nMin, nAvg, nMax;
  uint32_t level;
  uint64_t seed;
} cairn_fastcdc_params;

/* Defaults: 256 KiB / 1 MiB / 4 MiB, level 2, seed 0. */
CAIRN_API void cairn_fastcdc_default(cairn_fastcdc_params *pParams);
/* CAIRN_OK if the parameters are usable, CAIRN_MISUSE naming the bad field otherwise. */
CAIRN_API int cairn_fastcdc_check(const cairn_fastcdc_params *pParams);

/*
** The length of the first chunk of p[0..n), which starts at a chunk boundary: the plain
** one-cut-at-a-time algorithm of the paper (the reference the fast path is tested against).
** With eof == 0 and no cut found in fewer than nMax bytes, *pnChunk is 0: more data needed.
*/
CAIRN_API int cairn_fastcdc_cut(const cairn_fastcdc_params *pParams, const void *p, size_t n, int eof,
                      size_t *pnChunk, uint64_t *pFingerprint);

/* One chunk of a prepared buffer: offset into the buffer, length, SHA-256. */
typedef struct cairn_chunk {
  uint64_t iOff;
  uint32_t n;
  uint8_t aHash[32];
} cairn_chunk;

/*
** Chunk and hash p[0..n) ("prepare"): the fast path, with gear scanning fused into the SHA-256
** kernel and, when the host has more than one worker, segments chunked in parallel and joined
** where their cuts agree (same cuts as cairn_fastcdc_cut, whatever the thread count). Returns
** an array allocated with cairn_malloc (free with cairn_free) in *paChunk and its length in
** *pnChunk. With eof == 0 the bytes after the last chunk that is certain are left:
** *pnUsed is the end of the last chunk returned.
*/
CAIRN_API int cairn_fastcdc_prepare(const cairn_fastcdc_params *pParams, const void *p, size_t n, int eof,
                          cairn_chunk **paChunk, size_t *pnChunk, size_t *pnUsed);

/* ------------------------------------------------------------------ the store */
typedef struct cairn_cas cairn_cas;
typedef struct cairn_cas_writer cairn_cas_writer;
typedef struct cairn_cas_payload cairn_cas_payload;

#define CAIRN_CAS_ID_BYTES 32

/*
** Options for opening a store. Zero-initialised means: defaults, no compression, the process's
** busy timeout.
**
** Locks (core/cas/FORMAT.md, "Many processes"): a store opened for writing holds
** CAIRN_LOCK_WRITE on its file until cairn_cas_close, so a second writer (another handle, thread
** or process) gets CAIRN_BUSY with a message naming the file, after waiting up to the busy
** timeout; a read-only store holds CAIRN_LOCK_READ, which coexists with the writer. A reader sees
** the whole committed state as of its open (or its last cairn_cas_refresh), never a writer's
** unfinished transaction.
*/
typedef struct cairn_cas_config {
  int iVersion;                 /* 1 or 2 (0 is taken as 1); 2 adds busyTimeoutMs */
  cairn_fastcdc_params chunking; /* used when the store is created; all-zero = defaults */
  int codec;                    /* 0 none, CAIRN_ZSTD or CAIRN_DEFLATE: how new chunks are stored */
  int level;                    /* codec level (0 = zstd 1, zlib 6) */
  int readonly;                 /* open an existing store for reading only */
  int noSync;                   /* skip xSync at commit (for tests/benchmarks; NOT crash-safe) */
  /* version 2: how long the open waits for the lock, in ms (cairn_file_lock): 0 tries once,
  ** CAIRN_LOCK_DEFAULT_TIMEOUT (-1) is the process default (cairn_set_busy_timeout), which is
  ** also what iVersion 1 gets. */
  int64_t busyTimeoutMs;
} cairn_cas_config;

/* A store in memory: a memory buffer holding the same format (cairn_cas_memory_data gives its
** bytes; cairn_cas_file, a cairn_file over them). */
CAIRN_API int cairn_cas_open_memory(const cairn_cas_config *pCfg, cairn_cas **ppCas);
/* The bytes of a memory store: a store file image (valid until the next call on the store). */
CAIRN_API int cairn_cas_memory_data(cairn_cas *pCas, const uint8_t **pp, size_t *pn);
/*
** A store in an open file. An empty writable file becomes a new store. The handle takes
** ownership of f: cairn_cas_close closes it (also when this call fails). The lock is taken on f
** before a byte is read (a file opened for writing must not have been truncated before that).
**
** Damage (FORMAT.md, "Recovery rule"): bytes after the last commit that never committed (a torn
** tail) are ignored, and cut when the store is opened for writing. Damage inside committed data
** (a bad record followed by a later valid commit) is never cut: opening for writing fails with
** CAIRN_CORRUPT naming the file offset and the record; a read-only open succeeds, skips the
** damaged bytes (resynchronizing on the next valid record) and cairn_cas_verify reports them.
*/
CAIRN_API int cairn_cas_open_file(cairn_file *f, const cairn_cas_config *pCfg, cairn_cas **ppCas);
/* A store at a path, through the host (created if missing unless readonly). */
CAIRN_API int cairn_cas_open(const char *zPath, const cairn_cas_config *pCfg, cairn_cas **ppCas);
/* Roll back an open transaction, close the file, free everything. NULL is a no-op. */
CAIRN_API int cairn_cas_close(cairn_cas *pCas);
/* The file underneath (for a memory store, cairn_cas_memory_data gives its bytes). */
CAIRN_API cairn_file *cairn_cas_file(cairn_cas *pCas);
/*
** Pick up the commits other handles appended since this one was opened or last refreshed (a
** read-only store beside a writer: a refresh, not a reopen). A writer holds the file's writer
** lock, so nothing can have changed under it: a no-op. Pointers from cairn_cas_entry_at and the
** listing's order of payloads stay as they were, new payloads come after them.
*/
CAIRN_API int cairn_cas_refresh(cairn_cas *pCas);

/*
** Transactions. Without cairn_cas_begin every put/name call commits by itself. Between begin
** and commit, everything published becomes durable at once (one pair of syncs); reads on this
** handle already see it. After any error inside a transaction the transaction is unusable:
** commit fails until cairn_cas_rollback.
*/
CAIRN_API int cairn_cas_begin(cairn_cas *pCas);
CAIRN_API int cairn_cas_commit(cairn_cas *pCas);
CAIRN_API int cairn_cas_rollback(cairn_cas *pCas);

/* Publish p[0..n); aId receives the payload ID. */
CAIRN_API int cairn_cas_put(cairn_cas *pCas, const void *p, size_t n, uint8_t aId[32]);
/* Publish a whole host file, read in bounded memory. xProgress may be NULL. */
CAIRN_API int cairn_cas_put_file(cairn_cas *pCas, cairn_file *in, cairn_progress_fn xProgress, void *pArg,
                       uint8_t aId[32]);
/* Publish a stream of unknown length: write any number of pieces, then finish (or abort). */
CAIRN_API int cairn_cas_writer_open(cairn_cas *pCas, cairn_cas_writer **ppW);
CAIRN_API int cairn_cas_writer_write(cairn_cas_writer *pW, const void *p, size_t n);
CAIRN_API int cairn_cas_writer_finish(cairn_cas_writer *pW, uint8_t aId[32]); /* frees pW */
CAIRN_API void cairn_cas_writer_abort(cairn_cas_writer *pW);                   /* frees pW */

/* The catalog: names bound to payload IDs (a name re-bound points at the new ID). */
CAIRN_API int cairn_cas_name_set(cairn_cas *pCas, const char *zName, const uint8_t aId[32]);
CAIRN_API int cairn_cas_name_get(cairn_cas *pCas, const char *zName, uint8_t aId[32]);
CAIRN_API int cairn_cas_name_delete(cairn_cas *pCas, const char *zName);

/* Payloads, for listing: i in [0, cairn_cas_count). zName is the newest name bound to the
** payload or NULL; valid until the next call that changes the store. */
typedef struct cairn_cas_entry {
  uint8_t aId[32];
  uint64_t nSize;
  uint32_t nChunk;
  int64_t iTime;      /* publication time, ns since 1970 (0 if the host has no clock) */
  const char *zName;
} cairn_cas_entry;
CAIRN_API size_t cairn_cas_count(cairn_cas *pCas);
CAIRN_API int cairn_cas_entry_at(cairn_cas *pCas, size_t i, cairn_cas_entry *pEntry);

/* Is there a payload with this ID? CAIRN_OK with its size, or CAIRN_NOTFOUND. */
CAIRN_API int cairn_cas_stat(cairn_cas *pCas, const uint8_t aId[32], uint64_t *pnSize);
/*
** Read bytes [iOff, iOff+n) of a payload into p; *pnRead < n only at the payload's end. Every
** chunk that covers the range is verified first.
*/
CAIRN_API int cairn_cas_read(cairn_cas *pCas, const uint8_t aId[32], uint64_t iOff, void *p, size_t n,
                   size_t *pnRead);
/* The same through an open payload: it keeps the manifest between reads, and the last chunk a
** read took only part of (verified when it was read), so reading a payload in pieces of any
** size reads and verifies each chunk once. */
CAIRN_API int cairn_cas_payload_open(cairn_cas *pCas, const uint8_t aId[32], cairn_cas_payload **ppP);
CAIRN_API uint64_t cairn_cas_payload_size(cairn_cas_payload *pP);
CAIRN_API int cairn_cas_payload_read(cairn_cas_payload *pP, uint64_t iOff, void *p, size_t n, size_t *pnRead);
CAIRN_API void cairn_cas_payload_close(cairn_cas_payload *pP);
/* Write bytes [iStart, iEnd) of a payload (iEnd = UINT64_MAX: to its end) to out at offset 0,
** in bounded memory, and truncate out there. */
CAIRN_API int cairn_cas_get_file(cairn_cas *pCas, const uint8_t aId[32], uint64_t iStart, uint64_t iEnd,
                       cairn_file *out, cairn_progress_fn xProgress, void *pArg);

/*
** Verify everything: every damaged region the open's scan skipped (a read-only open of a damaged
** store), every chunk against its SHA-256, every manifest against its ID and its chunks, every
** name against its payload. xProblem (may be NULL) receives one line per problem. CAIRN_OK if
** clean, else CAIRN_CHECKSUM or CAIRN_CORRUPT with the first problem as the message; *pnBad (may
** be NULL) receives the count.
*/
typedef void (*cairn_cas_problem_fn)(void *pArg, const char *zMsg);
CAIRN_API int cairn_cas_verify(cairn_cas *pCas, cairn_progress_fn xProgress, void *pArg,
                     cairn_cas_problem_fn xProblem, void *pProblemArg, uint64_t *pnBad);

/* One payload checked as verify checks it: its manifest against its ID, then every chunk against
** its SHA-256. CAIRN_OK, CAIRN_NOTFOUND, or CAIRN_CHECKSUM/CAIRN_CORRUPT naming the damage. */
CAIRN_API int cairn_cas_check(cairn_cas *pCas, const uint8_t aId[32]);

/*
** Salvage: copy every payload of pSrc that still verifies (manifest and every chunk's SHA-256)
** into pDst, with the names bound to them, in one transaction of pDst (committed here unless the
** caller has one open). pSrc is typically a damaged store opened read-only; pDst a new store
** created with pSrc's chunking parameters (cairn_cas_get_stats(pSrc).chunking; CAIRN_MISUSE
** otherwise, since payload IDs depend on them): IDs stay the same. Chunks are stored with pDst's
** codec. xDropped (may be NULL) receives one line per payload or name left behind and per damaged
** region of pSrc, saying why. CAIRN_OK once pDst is committed, whatever was dropped; *pReport
** (may be NULL) receives the counts.
*/
typedef struct cairn_cas_salvage_report {
  uint64_t nPayloadKept, nPayloadDropped;
  uint64_t nNameKept, nNameDropped;
  uint64_t nDamage;                        /* damaged regions pSrc's scan skipped */
} cairn_cas_salvage_report;
CAIRN_API int cairn_cas_salvage(cairn_cas *pSrc, cairn_cas *pDst, cairn_cas_problem_fn xDropped, void *pArg,
                                cairn_cas_salvage_report *pReport);

typedef struct cairn_cas_stats {
  uint64_t nPayload, nChunk, nName;
  uint64_t nRawBytes;    /* sum of the unique chunks' lengths */
  uint64_t nStoredBytes; /* their stored (possibly compressed) lengths */
  uint64_t nFileBytes;   /* committed size of the store, metadata included */
  cairn_fastcdc_params chunking;
} cairn_cas_stats;
CAIRN_API int cairn_cas_get_stats(cairn_cas *pCas, cairn_cas_stats *pStats);

/* IDs as text: 64 lowercase hex digits + NUL; parse accepts either case. */
CAIRN_API void cairn_cas_id_hex(const uint8_t aId[32], char zHex[65]);
CAIRN_API int cairn_cas_id_parse(const char *zHex, uint8_t aId[32]);

#ifdef __cplusplus
}
#endif
#endif /* CAIRN_CAS_H */
