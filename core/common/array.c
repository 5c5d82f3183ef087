/*
** 2026-12-02
**
** core/common/array.c - the one growable array (cairnArrayReserve, CAIRN_GROW): every module
** that appends to an array of unknown final length grows it here, by doubling, with the size
** arithmetic checked once.
*/
#include "internal.h"

int cairnArrayReserve(void *ppArray, size_t *pCap, size_t nNeed, size_t szElem, size_t nMin,
                      const char *zWhat) {
  if (nNeed <= *pCap) return CAIRN_OK;
  size_t nCap = *pCap > SIZE_MAX / 2 ? SIZE_MAX : *pCap * 2;
  if (nCap < nMin) nCap = nMin;
  if (nCap < nNeed) nCap = nNeed;
  size_t nByte;
  if (cairnMulOverflowSize(nCap, szElem, &nByte)) {
    /* doubling overflows: try exactly what is needed */
    nCap = nNeed;
    if (cairnMulOverflowSize(nCap, szElem, &nByte))
      return cairnErr(CAIRN_NOMEM, "%s: %zu elements of %zu bytes overflow", zWhat, nNeed, szElem);
  }
  void *p;
  memcpy(&p, ppArray, sizeof(p));
  void *pNew = cairnRealloc(p, nByte ? nByte : 1);
  if (!pNew) return cairnErr(CAIRN_NOMEM, "%s: out of memory growing to %zu bytes", zWhat, nByte);
  memcpy(ppArray, &pNew, sizeof(pNew));
  *pCap = nCap;
  return CAIRN_OK;
}

int cairnGrowTyped(void *ppArray, void *pCap, size_t szCap, size_t nNeed, size_t szElem,
                   const char *zWhat) {
  uint64_t cap64 = 0, lim = szCap >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * szCap)) - 1;
  if (szCap == 8) {
    uint64_t v;
    memcpy(&v, pCap, 8);
    cap64 = v;
  } else if (szCap == 4) {
    uint32_t v;
    memcpy(&v, pCap, 4);
    cap64 = v;
  } else if (szCap == 2) {
    uint16_t v;
    memcpy(&v, pCap, 2);
    cap64 = v;
  } else {
    return cairnErr(CAIRN_MISUSE, "%s: capacity of %zu bytes", zWhat, szCap);
  }
  if (nNeed <= cap64) return CAIRN_OK;
  if ((uint64_t)nNeed > lim)
    return cairnErr(CAIRN_RANGE, "%s: %zu elements exceed the capacity type", zWhat, nNeed);
  size_t cap = (size_t)cap64;
  int rc = cairnArrayReserve(ppArray, &cap, nNeed, szElem, 16, zWhat);
  if (rc) return rc;
  if ((uint64_t)cap > lim) cap = (size_t)lim; /* doubling past the type: nNeed still fits */
  cap64 = cap;
  if (szCap == 8) {
    memcpy(pCap, &cap64, 8);
  } else if (szCap == 4) {
    uint32_t v = (uint32_t)cap64;
    memcpy(pCap, &v, 4);
  } else {
    uint16_t v = (uint16_t)cap64;
    memcpy(pCap, &v, 2);
  }
  return CAIRN_OK;
}
