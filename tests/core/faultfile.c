/*
** 2026-11-29
**
** tests/core/faultfile.c - the fault-injecting file of faultfile.h. It keeps the durable image
** (the bytes as of the last successful sync) in memory next to the list of operations since,
** so power loss can be computed as: durable image + each pending operation's fate.
*/
#include <stdlib.h>
#include <string.h>

#include "faultfile.h"

typedef struct FfOp {
  int bTrunc;
  uint64_t iOff;   /* write offset, or the new size of a truncate */
  size_t n;
  uint8_t *a;      /* copy of the written bytes */
  size_t nTorn;    /* for the torn write: how much of it landed (others: n) */
} FfOp;

typedef struct FaultFile {
  cairn_file base;
  cairn_file *pBase;
  int bOwn;
  FaultSpec spec;
  uint32_t nWrite, nSync, nPendingAtLoss;
  int bDead, bImageWritten;
  uint8_t *aDurable;
  size_t nDurable;
  FfOp *aOp;
  size_t nOp, nOpAlloc;
  uint64_t rng;
} FaultFile;

static uint64_t ffRand(FaultFile *f) {
  f->rng ^= f->rng << 13;
  f->rng ^= f->rng >> 7;
  f->rng ^= f->rng << 17;
  return f->rng;
}

static int ffDeadErr(void) { return cairn_seterr(CAIRN_IOERR, "fault file: the power has failed"); }

/* Grow/shrink an image buffer to n bytes (new bytes zero). */
static int imgResize(uint8_t **pa, size_t *pn, size_t n) {
  if (n > *pn) {
    uint8_t *a = realloc(*pa, n ? n : 1);
    if (!a) return CAIRN_NOMEM;
    memset(a + *pn, 0, n - *pn);
    *pa = a;
  }
  *pn = n;
  return CAIRN_OK;
}

static int imgApply(uint8_t **pa, size_t *pn, const FfOp *op, size_t nLand) {
  if (op->bTrunc) return imgResize(pa, pn, (size_t)op->iOff);
  size_t nEnd = (size_t)op->iOff + nLand;
  if (nEnd > *pn && imgResize(pa, pn, nEnd)) return CAIRN_NOMEM;
  memcpy(*pa + op->iOff, op->a, nLand);
  return CAIRN_OK;
}

static int ffOneSector(const FfOp *op) { return !op->bTrunc && op->n && op->iOff / 512 == (op->iOff + op->n - 1) / 512; }

static void ffOpsFree(FaultFile *f) {
  for (size_t i = 0; i < f->nOp; i++) free(f->aOp[i].a);
  f->nOp = 0;
}

static int ffRecord(FaultFile *f, int bTrunc, uint64_t iOff, const void *p, size_t n, size_t nTorn) {
  if (f->nOp == f->nOpAlloc) {
    size_t nNew = f->nOpAlloc ? f->nOpAlloc * 2 : 64;
    FfOp *a = realloc(f->aOp, nNew * sizeof(FfOp));
    if (!a) return cairn_seterr(CAIRN_NOMEM, "fault file: out of memory");
    f->aOp = a;
    f->nOpAlloc = nNew;
  }
  FfOp *op = &f->aOp[f->nOp];
  op->bTrunc = bTrunc, op->iOff = iOff, op->n = n, op->nTorn = nTorn, op->a = NULL;
  if (n) {
    op->a = malloc(n);
    if (!op->a) return cairn_seterr(CAIRN_NOMEM, "fault file: out of memory");
    memcpy(op->a, p, n);
  }
  f->nOp++;
  return CAIRN_OK;
}

/* With spec.nSector: the longest prefix of a write at iOff of at most n bytes that ends on a
** sector boundary (0 when the write starts and ends inside one sector). */
static size_t ffSectorPrefix(const FaultFile *f, uint64_t iOff, size_t n) {
  if (!f->spec.nSector) return n;
  uint64_t end = ((iOff + n) / f->spec.nSector) * f->spec.nSector;
  return end > iOff ? (size_t)(end - iOff) : 0;
}

/* The power fails: compute what is on the disk afterwards and put it into the base file
** right away (the handle may be closed by its user before the test looks). */
static int ffDie(FaultFile *f) {
  f->bDead = 1;
  if (f->bImageWritten) return CAIRN_OK;
  f->nPendingAtLoss = (uint32_t)f->nOp;
  uint8_t *a = malloc(f->nDurable ? f->nDurable : 1);
  size_t n = f->nDurable;
  if (!a) return CAIRN_NOMEM;
  memcpy(a, f->aDurable, n);
  for (size_t i = 0; i < f->nOp; i++) {
    FfOp *op = &f->aOp[i];
    /* Fates: 0 whole, 1 lost, 2 prefix, 3 prefix + garbage. How often a write survives
    ** depends on the seed (mostly, half, rarely), so both "one write missing among many
    ** that landed" and "almost nothing landed" get tried. */
    unsigned r = (unsigned)(ffRand(f) % 16), nWhole = 12 - 4 * (unsigned)(f->spec.seed % 3);
    unsigned fate = r < nWhole ? 0 : 1 + (r - nWhole) % (f->spec.bGarble ? 3u : 2u);
    if (f->spec.nLoseOnly) fate = i + 1 == f->spec.nLoseOnly ? 1 + (r & 1) : 0;
    if (f->spec.bKeepUnsynced) fate = 0;
    if (op->nTorn < op->n) fate = 2; /* the torn write: exactly its landed prefix */
    if (f->spec.bSectorAtomic && ffOneSector(op) && fate >= 2) fate = op->nTorn < op->n ? 1 : (unsigned)(ffRand(f) & 1); /* whole or nothing */
    size_t nLand = op->n;
    if (fate == 1) { /* lost; an extending write may leave zeros behind */
      if (!op->bTrunc && op->iOff + op->n > n && (ffRand(f) & 1)) imgResize(&a, &n, (size_t)(op->iOff + op->n));
      continue;
    }
    if (fate == 2 && !op->bTrunc) nLand = op->nTorn < op->n ? op->nTorn : ffSectorPrefix(f, op->iOff, (size_t)(ffRand(f) % (op->n + 1)));
    if (imgApply(&a, &n, op, op->bTrunc ? 0 : nLand)) break;
    if (fate == 3 && !op->bTrunc) {
      size_t nKeep = (size_t)(ffRand(f) % (op->n + 1));
      for (size_t j = nKeep; j < op->n; j++) a[op->iOff + j] = (uint8_t)ffRand(f);
    }
  }
  /* Put the post-crash bytes into the wrapped file. */
  const cairn_file_methods *m = f->pBase->pMethods;
  int rc = m->xTruncate(f->pBase, 0);
  if (rc == CAIRN_OK && n) rc = m->xWrite(f->pBase, a, n, 0);
  if (rc == CAIRN_OK) rc = m->xSync(f->pBase);
  free(a);
  f->bImageWritten = 1;
  return rc;
}

int faultfilePowerLoss(cairn_file *pF) { return ffDie((FaultFile *)pF); }

static int ffRead(cairn_file *pF, void *p, size_t n, uint64_t iOff, size_t *pnRead) {
  FaultFile *f = (FaultFile *)pF;
  if (f->bDead) return ffDeadErr();
  return f->pBase->pMethods->xRead(f->pBase, p, n, iOff, pnRead);
}

static int ffWrite(cairn_file *pF, const void *p, size_t n, uint64_t iOff) {
  FaultFile *f = (FaultFile *)pF;
  if (f->bDead) return ffDeadErr();
  f->nWrite++;
  if (f->spec.nCrashWrite && f->nWrite == f->spec.nCrashWrite) {
    ffDie(f);
    return ffDeadErr();
  }
  if (f->spec.nFailWrite && f->nWrite == f->spec.nFailWrite)
    return cairn_seterr(CAIRN_IOERR_WRITE, "fault file: write %u fails (injected)", f->nWrite);
  if (f->spec.nTearWrite && f->nWrite == f->spec.nTearWrite) {
    size_t nTorn = n ? ffSectorPrefix(f, iOff, (size_t)(ffRand(f) % n)) : 0;
    if (f->spec.bSectorAtomic && n && iOff / 512 == (iOff + n - 1) / 512) nTorn = nTorn & 1 ? n : 0; /* whole or nothing */
    if (nTorn) f->pBase->pMethods->xWrite(f->pBase, p, nTorn, iOff);
    ffRecord(f, 0, iOff, p, n, nTorn);
    ffDie(f);
    return cairn_seterr(CAIRN_IOERR_WRITE, "fault file: write %u torn after %zu of %zu bytes, power failed", f->nWrite, nTorn, n);
  }
  int rc = f->pBase->pMethods->xWrite(f->pBase, p, n, iOff);
  if (rc == CAIRN_OK) rc = ffRecord(f, 0, iOff, p, n, n);
  return rc;
}

static int ffSize(cairn_file *pF, uint64_t *pn) {
  FaultFile *f = (FaultFile *)pF;
  if (f->bDead) return ffDeadErr();
  return f->pBase->pMethods->xSize(f->pBase, pn);
}

static int ffTruncate(cairn_file *pF, uint64_t n) {
  FaultFile *f = (FaultFile *)pF;
  if (f->bDead) return ffDeadErr();
  int rc = f->pBase->pMethods->xTruncate(f->pBase, n);
  if (rc == CAIRN_OK) rc = ffRecord(f, 1, n, NULL, 0, 0);
  return rc;
}

static int ffSync(cairn_file *pF) {
  FaultFile *f = (FaultFile *)pF;
  if (f->bDead) return ffDeadErr();
  f->nSync++;
  if (f->spec.nCrashSync && f->nSync == f->spec.nCrashSync) {
    ffDie(f);
    return ffDeadErr();
  }
  if (f->spec.nFailSync && f->nSync == f->spec.nFailSync)
    return cairn_seterr(CAIRN_IOERR_SYNC, "fault file: sync %u fails (injected)", f->nSync);
  int rc = f->pBase->pMethods->xSync(f->pBase);
  if (rc) return rc;
  for (size_t i = 0; i < f->nOp; i++)
    if (imgApply(&f->aDurable, &f->nDurable, &f->aOp[i], f->aOp[i].n)) return cairn_seterr(CAIRN_NOMEM, "fault file: out of memory");
  ffOpsFree(f);
  return CAIRN_OK;
}

static int ffClose(cairn_file *pF) {
  FaultFile *f = (FaultFile *)pF;
  int rc = CAIRN_OK;
  if (f->bOwn) rc = f->pBase->pMethods->xClose(f->pBase);
  ffOpsFree(f);
  free(f->aOp);
  free(f->aDurable);
  free(f);
  return rc;
}

static int ffMap(cairn_file *pF, uint64_t iOff, size_t n, const void **pp) {
  (void)pF, (void)iOff, (void)n, (void)pp;
  return CAIRN_NOTFOUND;
}

static const cairn_file_methods ffMethods = {1, ffRead, ffWrite, ffSize, ffTruncate, ffSync, ffClose, ffMap, NULL, NULL, NULL};

int faultfileWrap(cairn_file *pBase, int bOwn, const FaultSpec *pSpec, cairn_file **ppFile) {
  *ppFile = NULL;
  FaultFile *f = calloc(1, sizeof(*f));
  if (!f) return cairn_seterr(CAIRN_NOMEM, "fault file: out of memory");
  f->base.pMethods = &ffMethods;
  f->pBase = pBase;
  f->bOwn = bOwn;
  if (pSpec) f->spec = *pSpec;
  f->rng = (f->spec.seed + 1) * 0x9E3779B97F4A7C15ull;
  uint64_t n = 0;
  int rc = pBase->pMethods->xSize(pBase, &n);
  if (rc == CAIRN_OK) {
    f->aDurable = malloc(n ? (size_t)n : 1);
    f->nDurable = (size_t)n;
    if (!f->aDurable) rc = cairn_seterr(CAIRN_NOMEM, "fault file: out of memory");
    else if (n) rc = cairn_file_read_exact(pBase, f->aDurable, (size_t)n, 0);
  }
  if (rc) {
    free(f->aDurable);
    free(f);
    return rc;
  }
  *ppFile = &f->base;
  return CAIRN_OK;
}

void faultfileCounts(cairn_file *pF, uint32_t *pnWrite, uint32_t *pnSync) {
  FaultFile *f = (FaultFile *)pF;
  if (pnWrite) *pnWrite = f->nWrite;
  if (pnSync) *pnSync = f->nSync;
}

uint32_t faultfilePendingAtLoss(cairn_file *pF) { return ((FaultFile *)pF)->nPendingAtLoss; }

int faultfileDead(cairn_file *pF) { return ((FaultFile *)pF)->bDead; }
