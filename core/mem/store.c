/*
** 2026-11-29
**
** core/mem/store.c - the memory store's handle: open (which kind of file, then the checkpoint
** and the log), close (a last checkpoint), stats, and the header of log-only files of format 1.
** The store's other jobs have their own files (mem_int.h lists them): records, the log,
** the HDF5 checkpoint, filters, search.
**
** Persistence (FORMAT.md describes both formats). A store file is an HDF5 file holding the
** checkpoint (group /memory, one row per memory in every dataset), followed after the HDF5 end
** of allocation by a write-ahead log of records [u32 len][u8 type][payload][u32 crc32c]. Adds
** are buffered in memory and appended together with a COMMIT record by cairn_mem_commit, then
** the file is synced; every few thousand memories (and on close) a checkpoint moves the log
** into the HDF5 datasets. Reopening loads the checkpoint, then reads the log twice: the first
** pass checks every checksum and finds the end of the last COMMIT; the second applies the
** records up to there. Anything after it (a torn write, garbage, adds that were never
** committed) is cut off when the file is writable. Every index is rebuilt on open (BM25
** postings, the f16/int8 copies), except the IVF index whose centroids, codebooks and row
** assignments are stored, because retraining would cost seconds where replay costs
** milliseconds. Files of format 1 (before 2026-11-29) are the log alone after a 32-byte header;
** they are read and appended to, never checkpointed.
*/
#include "mem_int.h"
#include "mem_hook.h"
#include "cairn/h5.h"

static void memFree(cairn_mem *m) {
  cairnFree(m->zText), cairnFree(m->aTextOff), cairnFree(m->aTextLen), cairnFree(m->aMetaOff), cairnFree(m->aMetaLen);
  cairnFree(m->aCreated), cairnFree(m->aEvent), cairnFree(m->aSession), cairnFree(m->aRole), cairnFree(m->aTier);
  cairnFree(m->aImp), cairnFree(m->aAccess), cairnFree(m->pPend), cairnFree(m->aScratch), cairnFree(m->aScratchI8);
  cairnFree(m->aOrigId);
  cairnFree(m->aUser), cairnFree(m->aAgent), cairnFree(m->aHead), cairnFree(m->aCur), cairnFree(m->aFrom), cairnFree(m->aTo);
  cairnFree(m->aFlags), cairnFree(m->aLive), cairnFree(m->aDedup);
  cairnMemNamesFree(&m->names);
  cairnVecsFree(&m->vecs);
  cairnBm25Free(&m->bm25);
  cairnIvfFree(&m->ivf);
}

int cairn_mem_close(cairn_mem *m) {
  if (!m) return CAIRN_OK;
  int rc = CAIRN_OK;
  /* Checkpoint what is committed, so that HDF5 readers see it, unless uncommitted work is in
  ** memory (its access counts and IVF rows cannot be told apart from the committed ones);
  ** the log keeps everything anyway. */
  if (m->f && m->bReady && !m->rcFatal && m->fmt == 2 && m->ckEvery != UINT32_MAX && !m->readOnly && m->nPend == 0 && m->nCommitted == m->n && !m->ivfUnlogged)
    rc = cairnMemCheckpointRun(m);
  if (m->pHook) m->pHook->xDetach(m->pHook->pCtx); /* mem_hook.h */
  cairn_h5_close(m->pH5);
  int rc2 = cairn_file_close(m->f);
  if (rc == CAIRN_OK) rc = rc2;
  memFree(m);
  cairnFree(m);
  return rc;
}


int cairnMemLegacyCreate; /* tests: create log-only files of format 1 */

static int openFile(cairn_mem *m, const cairn_mem_config *cfg, int64_t *pCount) {
  uint64_t size;
  CAIRN_TRY(cairn_file_size(m->f, &size));
  /* a rewrite (forgetting, compaction) interrupted while it copied its image over the file */
  CAIRN_TRY(cairnMemRecoverRewrite(m->f, &size, m->readOnly, m->noSync));
  uint8_t h[48];
  memset(h, 0, sizeof h);
  if (size) CAIRN_TRY(cairn_file_read_exact(m->f, h, (size_t)CAIRN_MIN(size, (uint64_t)48), 0));
  memcpy(m->aSb0, h, sizeof h); /* readers: compared again after the load */
  int bZero = 1;
  for (int i = 0; i < 48; i++) bZero &= h[i] == 0;
  /* A first sector of zeros in a small file: the creation of the store crashed before the
  ** HDF5 superblock landed (it is written last); nothing was ever committed to it. */
  if (size == 0 || (bZero && size < (1u << 20) && !m->readOnly)) {
    if (m->readOnly) return cairnErr(CAIRN_CORRUPT, "mem_open: empty file opened read-only");
    if (size) CAIRN_TRY(cairn_file_truncate(m->f, 0));
    if (!cairnMemLegacyCreate) return cairnMemCkCreate(m);
    memset(h, 0, sizeof h);
    memcpy(h, MEM_LOG_MAGIC, 8);
    cairnPutLE32(h + 8, MEM_LOG_VERSION);
    cairnPutLE32(h + 12, m->dim);
    cairnPutLE32(h + 16, (uint32_t)m->metric);
    /* flags: bit 0 text-only, bits 1-2 the disk encoding of vectors */
    cairnPutLE32(h + 20, (m->textOnly ? 1u : 0u) | ((uint32_t)m->diskVec << 1));
    cairnPutLE32(h + 28, cairnCrc32c(0, h, 28));
    CAIRN_TRY(cairn_file_write(m->f, h, MEM_LOG_HDR, 0));
    if (!m->noSync) CAIRN_TRY(cairn_file_sync(m->f));
    m->fmt = 1;
    m->logStart = m->nFile = MEM_LOG_HDR;
    return CAIRN_OK;
  }
  if (size >= 48 && memcmp(h, MEM_H5_SIG, 8) == 0) return cairnMemCkOpen(m, cfg, size, pCount);
  if (size < MEM_LOG_HDR) return cairnErr(CAIRN_CORRUPT, "mem_open: file of %llu bytes is too short for a store header", (unsigned long long)size);
  CAIRN_TRY(cairn_file_read_exact(m->f, h, MEM_LOG_HDR, 0));
  if (memcmp(h, MEM_LOG_MAGIC, 8) != 0) return cairnErr(CAIRN_CORRUPT, "mem_open: not a cairn memory store (bad magic at offset 0)");
  if (cairnCrc32c(0, h, 28) != cairnGetLE32(h + 28)) return cairnErr(CAIRN_CHECKSUM, "mem_open: header checksum mismatch at offset 28");
  if (cairnGetLE32(h + 8) != MEM_LOG_VERSION)
    return cairnErr(CAIRN_UNSUPPORTED, "mem_open: store version %u (this build reads %u)", cairnGetLE32(h + 8), MEM_LOG_VERSION);
  uint32_t dim = cairnGetLE32(h + 12), metric = cairnGetLE32(h + 16), flags = cairnGetLE32(h + 20);
  if (dim == 0 || dim > CAIRN_MEM_MAX_DIM || metric > CAIRN_METRIC_L2 || flags > 5)
    return cairnErr(CAIRN_CORRUPT, "mem_open: header dim %u / metric %u / flags %u out of range", dim, metric, flags);
  m->textOnly = (int)(flags & 1);
  m->diskVec = (int)(flags >> 1);
  if (cfg && cfg->dim && cfg->dim != dim)
    return cairnErr(CAIRN_MISUSE, "mem_open: the store has %u dimensions, %u were asked for", dim, cfg->dim);
  m->dim = dim, m->metric = (int)metric;
  m->fmt = 1;
  m->logStart = m->nFile = MEM_LOG_HDR; /* a header-only store appends right after it (replay moves it on) */
  return CAIRN_OK;
}

/* One load of the store from f (locked by the caller, never closed here). */
static int memLoad(cairn_file *f, const cairn_mem_config *cfg, cairn_mem_verify_info *pVer, cairn_mem **pp) {
  *pp = NULL;
  int64_t t0 = cairnClock(1);
  uint32_t dim = cfg && cfg->dim ? cfg->dim : CAIRN_MEM_DEFAULT_DIM;
  int metric = cfg ? cfg->metric : CAIRN_METRIC_COSINE;
  if (dim > CAIRN_MEM_MAX_DIM) return cairnErr(CAIRN_RANGE, "mem_open: dim %u > %u", dim, CAIRN_MEM_MAX_DIM);
  if (metric < CAIRN_METRIC_COSINE || metric > CAIRN_METRIC_L2) return cairnErr(CAIRN_MISUSE, "mem_open: unknown metric %d", metric);
  int diskVec = cfg ? cfg->diskVectors : 0;
  if (diskVec < CAIRN_MEM_DISK_F32 || diskVec > CAIRN_MEM_DISK_INT8) return cairnErr(CAIRN_MISUSE, "mem_open: unknown diskVectors %d", diskVec);
  cairn_mem *m = cairnMallocZero(sizeof(*m));
  if (!m) return cairnErr(CAIRN_NOMEM, "mem_open: out of memory");
  m->f = f, m->dim = dim, m->metric = metric;
  m->readOnly = (cfg ? cfg->readOnly : 0) || pVer != NULL;
  m->noSync = cfg ? cfg->noSync : 0;
  m->textOnly = cfg ? cfg->textOnly : 0;
  m->diskVec = diskVec;
  m->pVer = pVer;
  m->touchMin = SIZE_MAX;
  m->endMin = SIZE_MAX;
  m->ckEvery = cfg && cfg->checkpointEvery ? cfg->checkpointEvery : MEM_CK_EVERY_DEFAULT;
  int rc = CAIRN_OK;
  uint64_t size = 0;
  int64_t nCk = 0;
  if (f) {
    rc = openFile(m, cfg, &nCk);
    if (rc == CAIRN_OK) rc = cairn_file_size(f, &size);
  }
  if (rc == CAIRN_OK) {
    m->vecs.dim = m->dim, m->vecs.metric = m->metric;
    m->aScratch = cairnMallocArray(m->dim, 4);
    m->aScratchI8 = cairnMalloc(m->dim);
    if (!m->aScratch || !m->aScratchI8) rc = cairnErr(CAIRN_NOMEM, "mem_open: out of memory");
  }
  if (rc == CAIRN_OK && m->pH5) {
    rc = cairnMemCkLoad(m, (uint64_t)nCk);
    cairn_h5_close(m->pH5);
    m->pH5 = NULL;
  }
  if (rc == CAIRN_OK && f && size > m->logStart) rc = cairnMemReplay(m, size);
  if (rc) {
    m->f = NULL; /* the caller's */
    cairn_mem_close(m);
    return rc;
  }
  m->nCommitted = m->n;
  m->bReady = 1;
  m->openNs = cairnClock(1) - t0;
  *pp = m;
  return CAIRN_OK;
}

/* Readers load beside a writer (FORMAT.md "Readers and writers"). The state they read is the
** one of the superblock they started with, whose bytes no writer reuses before a later
** checkpoint has switched the superblock again: so a load that ends on the superblock it
** started on read a whole committed state, and one that does not starts over. A load that
** failed while a writer was busy (a commit half-visible past the committed end, a tail cut
** meanwhile) is tried again too; damage fails every try. */
#define MEM_READ_TRIES 64
int cairnMemOpenLocked(cairn_file *f, const cairn_mem_config *cfg, cairn_mem_verify_info *pVer, cairn_mem **pp) {
  int ro = (cfg && cfg->readOnly) || pVer != NULL;
  for (int iTry = 0;; iTry++) {
    int rc = memLoad(f, cfg, pVer, pp);
    if (!f || !ro) return rc;
    uint8_t sb[48];
    memset(sb, 0, sizeof sb);
    size_t nRead = 0;
    int rc2 = cairn_file_read(f, sb, sizeof sb, 0, &nRead);
    /* the HDF5 reader saw a checkpoint land during the load: the state changed, load again */
    int same = rc2 == CAIRN_OK && rc != CAIRN_BUSY_SNAPSHOT && (rc ? 1 : memcmp(sb, (*pp)->aSb0, sizeof sb) == 0);
    if (rc == CAIRN_OK && same) return CAIRN_OK;
    int prim = CAIRN_PRIMARY(rc);
    int transient = rc == CAIRN_OK || !same || rc == CAIRN_BUSY_SNAPSHOT || prim == CAIRN_CORRUPT || prim == CAIRN_CHECKSUM || prim == CAIRN_IOERR;
    /* a memory file has one handle: no writer beside it, nothing to wait for */
    if (!transient || (rc && same && (iTry >= 2 || !cairn_file_can_lock(f))) || iTry + 1 >= MEM_READ_TRIES) {
      if (rc == CAIRN_OK) {
        (*pp)->f = NULL; /* the caller's */
        cairn_mem_close(*pp), *pp = NULL;
        return cairnErr(CAIRN_BUSY, "mem_open: the store changed under %d loads in a row (a writer checkpointing)", MEM_READ_TRIES);
      }
      return rc;
    }
    if (*pp) {
      (*pp)->f = NULL;
      cairn_mem_close(*pp), *pp = NULL;
    }
    if (pVer) memset(pVer, 0, sizeof *pVer);
    cairn_clearerr();
  }
}

int cairn_mem_open_file(cairn_file *f, const cairn_mem_config *cfg, cairn_mem **pp) {
  if (!pp) {
    cairn_file_close(f);
    return cairnErr(CAIRN_MISUSE, "mem_open: ppMem is NULL");
  }
  *pp = NULL;
  int ro = cfg && cfg->readOnly;
  if (f) {
    /* lock first, then read: a writer sees the log's end as the last writer left it */
    int64_t t = cfg && cfg->busyTimeoutMs ? (cfg->busyTimeoutMs < 0 ? 0 : cfg->busyTimeoutMs) : CAIRN_LOCK_DEFAULT_TIMEOUT;
    int rc = cairn_file_lock(f, ro ? CAIRN_LOCK_READ : CAIRN_LOCK_WRITE, t);
    if (rc) {
      rc = cairnErr(rc, "mem_open: %s", cairn_errmsg());
      cairn_file_close(f);
      return rc;
    }
  }
  int rc = cairnMemOpenLocked(f, cfg, NULL, pp);
  if (rc) cairn_file_close(f);
  return rc;
}

int cairn_mem_open(const char *zPath, const cairn_mem_config *cfg, cairn_mem **pp) {
  if (!pp) return cairnErr(CAIRN_MISUSE, "mem_open: ppMem is NULL");
  *pp = NULL;
  cairn_file *f = NULL;
  if (zPath) {
    int ro = cfg && cfg->readOnly;
    int rc = cairn_open(zPath, ro ? CAIRN_OPEN_READONLY : (CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE), &f);
    if (rc) {
      const char *z = cairn_errmsg();
      return cairnErr(rc, "mem_open: cannot open '%s'%s%s", zPath, z[0] ? ": " : "", z);
    }
  }
  return cairn_mem_open_file(f, cfg, pp);
}

int cairn_mem_model(cairn_mem *m, const char *zModel) {
  if (!m || !zModel || !zModel[0]) return cairnErr(CAIRN_MISUSE, "mem_model: NULL store or empty model name");
  size_t n = strlen(zModel);
  if (n >= sizeof m->zModel) return cairnErr(CAIRN_RANGE, "mem_model: model name of %zu bytes (at most %zu)", n, sizeof m->zModel - 1);
  if (m->zModel[0] && strcmp(m->zModel, zModel))
    return cairnErr(CAIRN_MISUSE, "mem_model: the store's embeddings come from model '%s' (%u dimensions), not '%s'", m->zModel, m->dim, zModel);
  if (m->zModel[0]) return CAIRN_OK;
  if (m->textOnly) return cairnErr(CAIRN_MISUSE, "mem_model: a text-only store takes no embedding model ('%s')", zModel);
  if (m->readOnly && m->f) return cairnErr(CAIRN_READONLY, "mem_model: the store has no model yet and is opened read-only");
  memcpy(m->zModel, zModel, n + 1);
  m->modelUnlogged = m->f != NULL;
  return CAIRN_OK;
}

int cairn_mem_stats_get(cairn_mem *m, cairn_mem_stats *s) {
  if (!m || !s) return cairnErr(CAIRN_MISUSE, "mem_stats: NULL argument");
  memset(s, 0, sizeof(*s));
  s->nMemory = m->n;
  s->nUncommitted = m->n - m->nCommitted;
  s->dim = m->dim, s->metric = m->metric;
  /* sessions and roles share one name table; count the distinct ids in use */
  if (m->names.n) {
    uint8_t *used = cairnMallocZero(m->names.n);
    if (!used) return cairnErr(CAIRN_NOMEM, "mem_stats: out of memory");
    for (size_t i = 0; i < m->n; i++)
      if (m->aSession[i]) used[m->aSession[i] - 1] |= 1;
    for (size_t i = 0; i < m->n; i++)
      if (m->aRole[i]) used[m->aRole[i] - 1] |= 2;
    for (uint32_t i = 0; i < m->names.n; i++) s->nSession += used[i] & 1, s->nRole += (used[i] >> 1) & 1;
    cairnFree(used);
  }
  s->nTerm = m->bm25.nTerm;
  s->nPosting = m->bm25.nPosting;
  s->nTextBytes = m->nText;
  s->nFileBytes = m->f ? m->nFile : 0;
  s->ivfKind = m->ivf.kind, s->ivfNlist = m->ivf.nlist, s->ivfPqM = m->ivf.m;
  s->openNs = m->openNs;
  s->zKernel = cairnMemKernels()->zName;
  s->textOnly = m->textOnly, s->diskVectors = m->diskVec;
  s->format = m->f ? m->fmt : 0;
  s->nCheckpointed = m->nCk;
  s->nLogBytes = m->f ? m->nFile - m->logStart : 0;
  s->nCheckpoint = m->nCheckpoint;
  s->checkpointNs = m->ckNs;
  s->zModel = m->zModel;
  return CAIRN_OK;
}

