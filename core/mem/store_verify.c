/*
** 2026-12-02
**
** core/mem/store_verify.c - damage in a memory store: cairn_mem_verify (load every byte the
** store holds, leaving out what fails its checksum and counting it) and cairn_mem_salvage (copy
** what verifies into a new store). The tolerant load itself is the ordinary one with m->pVer
** set (store_ck.c reads damaged datasets block by block, store_log.c resyncs the log past
** damaged records); FORMAT.md "Damage" says what is checked.
*/
#include "mem_int.h"

void cairnMemNoteDamage(cairn_mem *m, uint64_t off, const char *zMsg) {
  cairn_mem_verify_info *p = m->pVer;
  if (!p) return;
  if (!p->damaged) {
    p->damageOffset = off;
    cairnFormat(p->zDamage, sizeof p->zDamage, "%s", zMsg);
  }
  p->damaged = 1;
}

size_t cairnMemSalvagedRow(const cairn_mem *m, uint64_t origId) {
  size_t lo = 0, hi = m->n; /* aOrigId increases: rows are applied in the file's order */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (m->aOrigId[mid] < origId) lo = mid + 1;
    else hi = mid;
  }
  return lo < m->n && m->aOrigId[lo] == origId ? lo : SIZE_MAX;
}

int cairnMemApplySalvaged(cairn_mem *m, const MemAddArgs *a, uint64_t origId) {
  size_t nA = m->nOrigIdAlloc;
  CAIRN_TRY(CAIRN_GROW(m->aOrigId, nA, m->n + 1, "salvage: ids"));
  m->nOrigIdAlloc = nA;
  MemAddArgs b = *a;
  /* rows are renumbered: a version finds its memory (the row of its first version) by the id
  ** that first version has in the file, and keeps its validity, so the history stays one
  ** memory. A memory whose first version is lost: each surviving version is a memory of its own. */
  b.head = 0;
  if (a->head && a->head != origId) {
    size_t h = cairnMemSalvagedRow(m, a->head);
    if (h != SIZE_MAX && m->aHead[h] == h + 1 && !(m->aFlags[h] & MEM_ROW_DEAD)) b.head = h + 1;
    else b.to = 0;
  }
  CAIRN_TRY(cairnMemApplyAdd(m, &b));
  m->aOrigId[m->n - 1] = origId;
  if (origId > m->pVer->nMemory) m->pVer->nMemory = origId;
  return CAIRN_OK;
}

/* Load f tolerantly under a read lock; *ppMem holds what verifies (its f is NULL: f stays the
** caller's). */
static int verifyLoad(cairn_file *f, cairn_mem_verify_info *p, cairn_mem **ppMem) {
  memset(p, 0, sizeof *p);
  *ppMem = NULL;
  if (!f) return cairnErr(CAIRN_MISUSE, "mem_verify: NULL file");
  CAIRN_TRY(cairn_file_lock(f, CAIRN_LOCK_READ, CAIRN_LOCK_DEFAULT_TIMEOUT));
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.readOnly = 1;
  cairn_mem *m = NULL;
  int rc = cairnMemOpenLocked(f, &cfg, p, &m);
  if (rc) {
    int prim = CAIRN_PRIMARY(rc);
    if (prim == CAIRN_CORRUPT || prim == CAIRN_CHECKSUM || prim == CAIRN_UNSUPPORTED) {
      /* nothing could be read past this (a damaged superblock, /memory unreadable) */
      p->damaged = 1;
      cairnFormat(p->zDamage, sizeof p->zDamage, "%s (nothing after it could be read)", cairn_errmsg());
      p->damageOffset = 0;
    }
    return rc;
  }
  m->f = NULL;
  p->format = m->fmt;
  p->checksums = m->fmt == 1 || m->ckRowCrc;
  p->nIntact = 0;
  for (size_t r = 0; r < m->n; r++) p->nIntact += !(m->aFlags[r] & MEM_ROW_DEAD);
  p->nForgotten += m->n - p->nIntact; /* forgotten in the log, not yet checkpointed */
  if (p->nMemory < p->nIntact + p->nForgotten) p->nMemory = p->nIntact + p->nForgotten;
  p->nLost = p->nMemory - p->nIntact - p->nForgotten;
  if (p->nLost && !p->damaged) {
    p->damaged = 1;
    cairnFormat(p->zDamage, sizeof p->zDamage, "%llu memories are missing", (unsigned long long)p->nLost);
  }
  *ppMem = m;
  return CAIRN_OK;
}

int cairn_mem_verify(cairn_file *f, cairn_mem_verify_info *pInfo) {
  cairn_mem_verify_info local;
  cairn_mem_verify_info *p = pInfo ? pInfo : &local;
  cairn_mem *m = NULL;
  int rc = verifyLoad(f, p, &m);
  cairn_mem_close(m);
  if (rc) return rc;
  if (p->damaged) return cairnErr(CAIRN_CORRUPT, "mem_verify: %s", p->zDamage);
  return CAIRN_OK;
}

int cairn_mem_salvage(cairn_file *in, cairn_file *out, cairn_mem_verify_info *pInfo) {
  cairn_mem_verify_info local;
  cairn_mem_verify_info *p = pInfo ? pInfo : &local;
  if (!out) return cairnErr(CAIRN_MISUSE, "mem_salvage: NULL output");
  uint64_t size = 0;
  CAIRN_TRY(cairn_file_size(out, &size));
  if (size) return cairnErr(CAIRN_MISUSE, "mem_salvage: the output is not empty (%llu bytes)", (unsigned long long)size);
  cairn_mem *m = NULL, *o = NULL;
  CAIRN_TRY(verifyLoad(in, p, &m));
  int rc = cairn_file_lock(out, CAIRN_LOCK_WRITE, CAIRN_LOCK_DEFAULT_TIMEOUT);
  cairn_mem_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.dim = m->dim, cfg.metric = m->metric, cfg.textOnly = m->textOnly, cfg.diskVectors = m->diskVec;
  cfg.checkpointEvery = UINT32_MAX; /* one checkpoint at the end */
  if (!rc) rc = cairnMemOpenLocked(out, &cfg, NULL, &o);
  /* the new id of each row copied (ids are renumbered: forgotten and lost rows leave no gap) */
  uint64_t *aNew = rc ? NULL : cairnMallocZero((m->n + 1) * 8); /* 0: not copied */
  if (!rc && !aNew) rc = cairnErr(CAIRN_NOMEM, "mem_salvage: ids of %zu rows", m->n);
  for (size_t r = 0; !rc && r < m->n; r++) {
    if (m->aFlags[r] & MEM_ROW_DEAD) continue; /* forgotten: never copied */
    MemAddArgs a;
    memset(&a, 0, sizeof a);
    /* versions stay the history of one memory; the latest version that survived is current */
    size_t h = (size_t)m->aHead[r] - 1;
    if (h != r) a.head = aNew[h]; /* 0 (its first version not copied): a memory of its own */
    a.from = m->aFrom[r], a.to = m->aCur[h] == r ? 0 : m->aTo[r];
    if (m->aUser[r]) a.zUser = m->names.z + m->names.aOff[m->aUser[r] - 1], a.nUser = m->names.aLen[m->aUser[r] - 1];
    if (m->aAgent[r]) a.zAgent = m->names.z + m->names.aOff[m->aAgent[r] - 1], a.nAgent = m->names.aLen[m->aAgent[r] - 1];
    a.zText = m->zText + m->aTextOff[r], a.nText = m->aTextLen[r];
    a.zMeta = m->zText + m->aMetaOff[r], a.nMeta = m->aMetaLen[r];
    if (m->aSession[r]) a.zSession = m->names.z + m->names.aOff[m->aSession[r] - 1], a.nSession = m->names.aLen[m->aSession[r] - 1];
    if (m->aRole[r]) a.zRole = m->names.z + m->names.aOff[m->aRole[r] - 1], a.nRole = m->names.aLen[m->aRole[r] - 1];
    a.created = m->aCreated[r], a.event = m->aEvent[r], a.tier = m->aTier[r], a.imp = m->aImp[r], a.access = m->aAccess[r];
    a.aVec = m->textOnly ? NULL : m->vecs.aF32 + r * m->dim;
    rc = cairnMemAddArgs(o, &a);
    aNew[r] = o->n;
    if (!rc && (r + 1) % 4096 == 0) rc = cairn_mem_commit(o);
  }
  cairnFree(aNew);
  if (!rc) rc = cairn_mem_checkpoint(o);
  if (o) o->f = NULL; /* the caller's */
  int rc2 = cairn_mem_close(o);
  if (!rc) rc = rc2;
  cairn_mem_close(m);
  return rc;
}
