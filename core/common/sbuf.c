/*
** 2026-11-30
**
** core/common/sbuf.c - the growable string every JSON producer of the core writes into (the
** HDF5 reader's info/type/value JSON, the memory store's search results, the Emscripten
** binding's attribute tables): append bytes and integers, quote a JSON string, and carry
** running out of memory to the end so the caller checks once (cairnSbDone).
*/
#include "internal.h"

void cairnSbReserve(CairnSb *s, size_t n) {
  if (s->oom || s->n + n + 1 <= s->cap) return;
  size_t cap = s->cap ? s->cap : 256;
  while (cap < s->n + n + 1) cap *= 2;
  char *z = cairnRealloc(s->z, cap);
  if (!z) s->oom = 1;
  else s->z = z, s->cap = cap;
}
void cairnSbStr(CairnSb *s, const char *z) { cairnSbPut(s, z, strlen(z)); }
void cairnSbU64(CairnSb *s, uint64_t v) {
  char b[24];
  int i = 23;
  b[i] = 0;
  do {
    b[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  cairnSbStr(s, b + i);
}
void cairnSbI64(CairnSb *s, int64_t v) {
  if (v < 0) {
    cairnSbPut(s, "-", 1);
    cairnSbU64(s, (uint64_t)0 - (uint64_t)v);
  } else cairnSbU64(s, (uint64_t)v);
}

void cairnSbJsonStr(CairnSb *s, const char *p, size_t n, int bShort) {
  cairnSbPut(s, "\"", 1);
  size_t i = 0;
  while (i < n) {
    size_t j = i;
    while (j < n && (uint8_t)p[j] >= 0x20 && p[j] != '"' && p[j] != '\\' && (!bShort || p[j] != 0x7f)) j++;
    if (j > i) cairnSbPut(s, p + i, j - i);
    if (j >= n) break;
    uint8_t c = (uint8_t)p[j];
    if (c == '"') cairnSbStr(s, "\\\"");
    else if (c == '\\') cairnSbStr(s, "\\\\");
    else if (bShort && c == '\n') cairnSbStr(s, "\\n");
    else if (bShort && c == '\t') cairnSbStr(s, "\\t");
    else if (bShort && c == '\r') cairnSbStr(s, "\\r");
    else {
      static const char hx[] = "0123456789abcdef";
      char e[6] = {'\\', 'u', '0', '0', hx[c >> 4], hx[c & 15]};
      cairnSbPut(s, e, 6);
    }
    i = j + 1;
  }
  cairnSbPut(s, "\"", 1);
}

int cairnSbDone(CairnSb *s, int rc, const char *zWhat, char **pz, size_t *pn) {
  if (rc == CAIRN_OK && !s->z) cairnSbPut(s, "", 0);
  if (rc == CAIRN_OK && s->oom) rc = cairnErr(CAIRN_NOMEM, "%s: out of memory (%zu bytes of text)", zWhat, s->n);
  if (rc) {
    cairnFree(s->z);
    memset(s, 0, sizeof(*s));
    return rc;
  }
  *pz = s->z;
  if (pn) *pn = s->n;
  return CAIRN_OK;
}
