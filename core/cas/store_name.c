/*
** 2026-12-02
**
** core/cas/store_name.c - the chunk store's catalog: names bound to payloads (set, get,
** delete), the listing, and the store's statistics.
*/
#include "cas/cas_int.h"

/* ------------------------------------------------------------------ the catalog */
int cairnCasAddName(cairn_cas *c, const char *zName, const uint8_t aId[32], int bDelete) {
  size_t nName = strlen(zName);
  if (nName == 0 || nName > NAME_MAX_LEN) return cairnErr(CAIRN_MISUSE, "store: a name must have 1 to %d bytes", NAME_MAX_LEN);
  CasName *e = casGrowOne(&c->aName, &c->nNameAlloc, c->nName, sizeof(CasName));
  if (!e) return cairnErr(CAIRN_NOMEM, "store: cannot grow the catalog");
  uint8_t fx[NAME_FIXED];
  memset(fx, 0, sizeof fx);
  if (aId) memcpy(fx, aId, 32);
  int64_t t = cairnClock(0);
  cairnPutLE64(fx + 32, (uint64_t)t);
  cairnPutLE32(fx + 40, bDelete ? 1 : 0);
  cairnPutLE32(fx + 44, (uint32_t)nName);
  char *z = cairnMalloc(nName + 1);
  if (!z) return cairnErr(CAIRN_NOMEM, "store: out of memory");
  memcpy(z, zName, nName + 1);
  uint32_t crc = cairnCrc32c(cairnCrc32c(0, fx, sizeof fx), zName, nName);
  int rc = cairnCasRecord(c, REC_NAME, fx, sizeof fx, zName, nName, crc);
  if (rc) {
    cairnFree(z);
    return rc;
  }
  e->zName = z;
  memcpy(e->aId, fx, 32);
  e->iTime = t;
  e->bDelete = bDelete;
  c->nName++;
  c->bNamesDirty = 1;
  return cairnCasTabPut(c, &c->tName, 2, c->nName - 1);
}

int cairn_cas_name_set(cairn_cas *c, const char *zName, const uint8_t aId[32]) {
  if (!c || !zName || !aId) return cairnErr(CAIRN_MISUSE, "cairn_cas_name_set: NULL argument");
  CAIRN_TRY(cairnCasTxnCheck(c));
  if (casTabFindHash(c, &c->tPay, casPayKey, aId) == SIZE_MAX) {
    char z[65];
    cairn_hex(aId, 32, z);
    return cairnErr(CAIRN_NOTFOUND, "no payload %s in the store", z);
  }
  size_t i = casTabFindName(c, zName);
  if (i != SIZE_MAX && !c->aName[i].bDelete && memcmp(c->aName[i].aId, aId, 32) == 0) return CAIRN_OK;
  return cairnCasEndOp(c, cairnCasAddName(c, zName, aId, 0));
}

int cairn_cas_name_get(cairn_cas *c, const char *zName, uint8_t aId[32]) {
  if (!c || !zName || !aId) return cairnErr(CAIRN_MISUSE, "cairn_cas_name_get: NULL argument");
  size_t i = casTabFindName(c, zName);
  if (i == SIZE_MAX || c->aName[i].bDelete) return cairnErr(CAIRN_NOTFOUND, "no payload named '%s'", zName);
  memcpy(aId, c->aName[i].aId, 32);
  return CAIRN_OK;
}

int cairn_cas_name_delete(cairn_cas *c, const char *zName) {
  if (!c || !zName) return cairnErr(CAIRN_MISUSE, "cairn_cas_name_delete: NULL argument");
  CAIRN_TRY(cairnCasTxnCheck(c));
  size_t i = casTabFindName(c, zName);
  if (i == SIZE_MAX || c->aName[i].bDelete) return cairnErr(CAIRN_NOTFOUND, "no payload named '%s'", zName);
  return cairnCasEndOp(c, cairnCasAddName(c, zName, NULL, 1));
}

/* aPay[].iName: for each payload the newest live name bound to it. */
static void casNames(cairn_cas *c) {
  if (!c->bNamesDirty) return;
  for (size_t i = 0; i < c->nPay; i++) c->aPay[i].iName = -1;
  for (size_t i = 0; i < c->nName; i++) {
    if (c->aName[i].bDelete || casTabFindName(c, c->aName[i].zName) != i) continue;
    size_t y = casTabFindHash(c, &c->tPay, casPayKey, c->aName[i].aId);
    if (y != SIZE_MAX) c->aPay[y].iName = (int64_t)i;
  }
  c->bNamesDirty = 0;
}

size_t cairn_cas_count(cairn_cas *c) { return c ? c->nPay : 0; }

int cairn_cas_entry_at(cairn_cas *c, size_t i, cairn_cas_entry *e) {
  if (!c || !e) return cairnErr(CAIRN_MISUSE, "cairn_cas_entry_at: NULL argument");
  if (i >= c->nPay) return cairnErr(CAIRN_RANGE, "payload index %zu is past the last (%zu)", i, c->nPay);
  casNames(c);
  const CasPay *y = &c->aPay[i];
  memcpy(e->aId, y->aId, 32);
  e->nSize = y->nSize;
  e->nChunk = y->nChunk;
  e->iTime = y->iTime;
  e->zName = y->iName >= 0 ? c->aName[y->iName].zName : NULL;
  return CAIRN_OK;
}

int cairn_cas_get_stats(cairn_cas *c, cairn_cas_stats *s) {
  if (!c || !s) return cairnErr(CAIRN_MISUSE, "cairn_cas_get_stats: NULL argument");
  memset(s, 0, sizeof(*s));
  s->nPayload = c->nPay;
  s->nChunk = c->nChunk;
  for (size_t i = 0; i < c->nName; i++)
    if (!c->aName[i].bDelete && casTabFindName(c, c->aName[i].zName) == i) s->nName++;
  for (size_t i = 0; i < c->nChunk; i++) {
    s->nRawBytes += c->aChunk[i].nRaw;
    s->nStoredBytes += c->aChunk[i].nStored;
  }
  s->nFileBytes = c->iCommitted;
  s->chunking = c->cdc->prm;
  return CAIRN_OK;
}

