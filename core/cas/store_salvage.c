/*
** 2026-12-02
**
** core/cas/store_salvage.c - salvage: copy what still verifies out of a (damaged) chunk store
** into another one. Every payload whose manifest checks against its ID and whose chunks all match
** their SHA-256 is copied with the same ID (same chunking), then every name bound to a copied
** payload; everything left behind is reported, one line each, with the damaged regions of the
** source (FORMAT.md, "Recovery rule").
*/
#include "cas/cas_int.h"

static void salvageSay(cairn_cas_problem_fn x, void *pArg, const char *zFmt, const char *zA, const char *zB) {
  if (!x) return;
  char z[700];
  cairnFormat(z, sizeof z, zFmt, zA, zB);
  x(pArg, z);
}

/* Copy payload iy of s into d if it verifies; 1 if copied, 0 if dropped (reported), < 0 on error. */
static int salvageOne(cairn_cas *s, cairn_cas *d, size_t iy, uint8_t *buf, cairn_cas_problem_fn x, void *pArg, int *pRc) {
  const CasPay *y = &s->aPay[iy];
  char zId[65];
  cairn_hex(y->aId, 32, zId);
  int rc = cairn_cas_check(s, y->aId);
  if (CAIRN_PRIMARY(rc) == CAIRN_NOMEM || CAIRN_PRIMARY(rc) == CAIRN_IOERR) return *pRc = rc, -1;
  if (rc) {
    salvageSay(x, pArg, "dropped: %s%s", cairn_errmsg(), "");
    return 0;
  }
  /* Verified: copy the chunks it needs, then the manifest as it is (same ID, same time). */
  uint8_t *a = cairnMalloc(y->nBody);
  if (!a) return *pRc = cairnErr(CAIRN_NOMEM, "salvage: out of memory"), -1;
  rc = cairn_file_read_exact(s->f, a, y->nBody, y->iOff + REC_HDR);
  for (uint32_t i = 0; rc == CAIRN_OK && i < y->nChunk; i++) {
    const uint8_t *e = a + MANI_FIXED + (size_t)i * MANI_ENTRY;
    if (casTabFindHash(d, &d->tChunk, casChunkKey, e) != SIZE_MAX) continue;
    size_t k = casTabFindHash(s, &s->tChunk, casChunkKey, e);
    if (k == SIZE_MAX) rc = cairnErr(CAIRN_CORRUPT, "salvage: payload %s changed while it was copied", zId);
    if (rc == CAIRN_OK) rc = cairnCasReadChunk(s, &s->aChunk[k], buf, 0, y->aId);
    if (rc == CAIRN_OK) rc = cairnCasAddChunkRaw(d, e, buf, s->aChunk[k].nRaw);
  }
  if (rc == CAIRN_OK) {
    uint8_t id[32];
    cairn_sha256(a + 40, y->nBody - 40, id);
    if (memcmp(id, y->aId, 32) != 0) rc = cairnErr(CAIRN_CHECKSUM, "salvage: the manifest of payload %s changed while it was read", zId);
  }
  if (rc == CAIRN_OK) rc = cairnCasAddManifestBody(d, a, y->nBody);
  cairnFree(a);
  if (rc) return *pRc = rc, -1;
  return 1;
}

int cairn_cas_salvage(cairn_cas *s, cairn_cas *d, cairn_cas_problem_fn x, void *pArg, cairn_cas_salvage_report *pRep) {
  if (!s || !d || s == d) return cairnErr(CAIRN_MISUSE, "cairn_cas_salvage: two different stores needed");
  cairn_cas_salvage_report rep;
  memset(&rep, 0, sizeof rep);
  if (pRep) *pRep = rep;
  const cairn_fastcdc_params *ps = &s->cdc->prm, *pd = &d->cdc->prm;
  if (ps->nMin != pd->nMin || ps->nAvg != pd->nAvg || ps->nMax != pd->nMax || ps->level != pd->level || ps->seed != pd->seed)
    return cairnErr(CAIRN_MISUSE, "cairn_cas_salvage: the new store must have the old one's chunking parameters (payload IDs "
                                  "depend on them): create it with cairn_cas_get_stats(old).chunking");
  CAIRN_TRY(cairnCasTxnCheck(d));
  int bOwnTxn = !d->bExplicit;
  if (bOwnTxn) CAIRN_TRY(cairn_cas_begin(d));
  uint32_t nBig = 1;
  for (size_t i = 0; i < s->nChunk; i++) nBig = CAIRN_MAX(nBig, s->aChunk[i].nRaw);
  uint8_t *buf = cairnMalloc(nBig);
  uint8_t *aKept = cairnMallocZero(s->nPay ? s->nPay : 1);
  int rc = buf && aKept ? CAIRN_OK : cairnErr(CAIRN_NOMEM, "salvage: out of memory");
  for (size_t i = 0; rc == CAIRN_OK && i < s->nDamage; i++) {
    char zA[48];
    cairnFormat(zA, sizeof zA, "%llu..%llu", (unsigned long long)s->aDamage[i].iOff, (unsigned long long)s->aDamage[i].iEnd);
    salvageSay(x, pArg, "skipped damaged bytes %s of the old store: %s", zA, s->aDamage[i].zWhat);
    rep.nDamage++;
  }
  for (size_t i = 0; rc == CAIRN_OK && i < s->nPay; i++) {
    int k = salvageOne(s, d, i, buf, x, pArg, &rc);
    if (k < 0) break;
    aKept[i] = (uint8_t)k;
    if (k) rep.nPayloadKept++;
    else rep.nPayloadDropped++;
  }
  /* Names: the newest binding of each name, if it binds a copied payload. */
  for (size_t i = 0; rc == CAIRN_OK && i < s->nName; i++) {
    const CasName *e = &s->aName[i];
    if (e->bDelete || casTabFindName(s, e->zName) != i) continue;
    size_t iy = casTabFindHash(s, &s->tPay, casPayKey, e->aId);
    if (iy != SIZE_MAX && aKept[iy]) {
      rc = cairnCasAddName(d, e->zName, e->aId, 0);
      rep.nNameKept++;
    } else {
      char zId[65];
      cairn_hex(e->aId, 32, zId);
      salvageSay(x, pArg, "dropped name '%s': its payload %s was not copied", e->zName, zId);
      rep.nNameDropped++;
    }
  }
  cairnFree(buf);
  cairnFree(aKept);
  if (rc == CAIRN_OK && bOwnTxn) rc = cairn_cas_commit(d);
  if (rc && bOwnTxn) {
    char zMsg[512];
    cairnFormat(zMsg, sizeof zMsg, "%s", cairn_errmsg());
    if (d->bExplicit) cairn_cas_rollback(d);
    return cairnErr(rc, "salvage: %s", zMsg);
  }
  if (rc) d->txnErr = rc; /* the caller's transaction: unusable until rolled back */
  if (rc == CAIRN_OK && pRep) *pRep = rep;
  return rc;
}
