/*
** 2026-11-29
**
** core/h5/w_file.c - the HDF5 writer's storage: I/O (gathered writes), space allocation (free
** lists, the caller's tail), the in-memory objects and their messages, and object headers:
** encoded as version 2 ("OHDR", lookup3 checksum), decoded from versions 1 and 2 with their
** continuation chunks. Names and attributes are w_path.c's, commit and open w_commit.c's.
*/#include "h5/h5w.h"


#define OH_MAX (64u << 20) /* cap on one header chunk read from a file */

/* ---------------------------------------------------------------- I/O and space */
int cairnH5wFail(cairn_h5w *w, int rc) {
  if (w->rcFatal == CAIRN_OK) w->rcFatal = rc;
  return rc;
}

/* Writes to consecutive addresses are gathered (up to 1 MiB) into one host write: a commit
** that rewrites 64 small headers then costs one write, not 64. The buffer only ever holds
** bytes for space the committed state does not use, and is flushed before any read, sync,
** truncate and before the superblock switch. */
#define WBUF_CAP (1u << 20)
int cairnH5wFlush(cairn_h5w *w) {
  if (!w->nWbuf) return CAIRN_OK;
  size_t n = w->nWbuf;
  w->nWbuf = 0;
  w->st.nWrite++;
  int rc = cairn_file_write(w->f, w->pWbuf, n, w->wbufAddr);
  return rc ? cairnH5wFail(w, rc) : CAIRN_OK;
}

/* Make room for n bytes in the buffer (64 KiB first, doubling up to WBUF_CAP). */
static int wbufReserve(cairn_h5w *w, size_t n) {
  if (n <= w->wbufCap) return 1;
  size_t c = w->wbufCap ? w->wbufCap : 65536;
  while (c < n) c *= 2;
  if (c > WBUF_CAP) return 0;
  /* H5W_SB_SIZE bytes of headroom before the buffer: a first commit writes the superblock and
  ** everything after it in one call (commit, NOSYNC) */
  uint8_t *p = cairnRealloc(w->pWbuf ? w->pWbuf - H5W_SB_SIZE : NULL, c + H5W_SB_SIZE);
  if (!p) return 0;
  w->pWbuf = p + H5W_SB_SIZE;
  w->wbufCap = c;
  return 1;
}

int cairnH5wWrite(cairn_h5w *w, const void *p, size_t n, uint64_t addr) {
  if (w->rcFatal) return w->rcFatal;
  if (addr + n > w->nFileSize) w->nFileSize = addr + n;
  if (w->nWbuf && addr == w->wbufAddr + w->nWbuf && wbufReserve(w, w->nWbuf + n)) {
    cairnAssert(w->nWbuf + n <= w->wbufCap); /* wbufReserve made the room */
    memcpy(w->pWbuf + w->nWbuf, p, n);
    w->nWbuf += n;
    return CAIRN_OK;
  }
  CAIRN_TRY(cairnH5wFlush(w));
  if (n < WBUF_CAP / 64 && wbufReserve(w, n)) { /* larger writes (chunks, data) go straight out */
    memcpy(w->pWbuf, p, n);
    w->nWbuf = n;
    w->wbufAddr = addr;
    return CAIRN_OK;
  }
  w->st.nWrite++;
  int rc = cairn_file_write(w->f, p, n, addr);
  return rc ? cairnH5wFail(w, rc) : CAIRN_OK;
}

int cairnH5wRead(cairn_h5w *w, void *p, size_t n, uint64_t addr) {
  CAIRN_TRY(cairnH5wFlush(w));
  return cairn_file_read_exact(w->f, p, n, addr);
}

static int extPush(H5wExt **pa, int *pn, int *pnAlloc, uint64_t addr, uint64_t n) {
  CAIRN_TRY(CAIRN_GROW(*pa, *pnAlloc, *pn + 1, "free space"));
  (*pa)[(*pn)++] = (H5wExt){addr, n};
  return CAIRN_OK;
}

/* Record an extent the committed state uses (only while collecting, see cairnH5wReclaimFree). */
void cairnH5wUsed(cairn_h5w *w, uint64_t addr, uint64_t n) {
  if (!w->bCollect || addr == H5_UNDEF || n == 0) return;
  if (extPush(&w->aUsed, &w->nUsed, &w->nUsedAlloc, addr, n)) w->bUnsafe = 1;
}

/* Compound and array types may hide variable-length members whose heap objects the walk does
** not follow: any byte that could be a vlen class/version byte makes the type suspect. */
int cairnH5wTypeMayHideVlen(const uint8_t *p, size_t n) {
  if (n < 1) return 1;
  int cls = p[0] & 0x0f;
  if (cls != 6 && cls != 10) return 0;
  for (size_t i = 8; i < n; i++)
    if ((p[i] & 0x0f) == 9 && (p[i] >> 4) >= 1 && (p[i] >> 4) <= 4) return 1;
  return 0;
}

/* Insert into the sorted free list, merging neighbours. On NOMEM the space is just leaked
** (the file stays correct; repack reclaims it). */
void cairnH5wFreeInsert(cairn_h5w *w, uint64_t addr, uint64_t n) {
  int lo = 0, hi = w->nFree;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (w->aFree[mid].addr < addr) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && w->aFree[lo - 1].addr + w->aFree[lo - 1].n == addr) {
    w->aFree[lo - 1].n += n;
    if (lo < w->nFree && addr + n == w->aFree[lo].addr) {
      w->aFree[lo - 1].n += w->aFree[lo].n;
      memmove(w->aFree + lo, w->aFree + lo + 1, sizeof(H5wExt) * (size_t)(w->nFree - lo - 1));
      w->nFree--;
    }
    return;
  }
  if (lo < w->nFree && addr + n == w->aFree[lo].addr) {
    w->aFree[lo].addr = addr;
    w->aFree[lo].n += n;
    return;
  }
  if (extPush(&w->aFree, &w->nFree, &w->nFreeAlloc, 0, 0)) {
    w->nFree += 0;
    return;
  }
  memmove(w->aFree + lo + 1, w->aFree + lo, sizeof(H5wExt) * (size_t)(w->nFree - 1 - lo));
  w->aFree[lo] = (H5wExt){addr, n};
}

/* CAIRN_H5W_TAIL: once per transaction, step over the bytes the caller appended after the
** committed end of file; they join the free space only after the commit is durable. */
int cairnH5wTailTake(cairn_h5w *w) {
  if (!w->bTail || w->tailTxn == w->txn) return CAIRN_OK;
  uint64_t size;
  int rc = cairn_file_size(w->f, &size);
  if (rc) return cairnH5wFail(w, rc);
  if (size > w->eoa) {
    if (extPush(&w->aTailPend, &w->nTailPend, &w->nTailPendAlloc, w->eoa, size - w->eoa))
      return cairnErr(CAIRN_NOMEM, "out of memory");
    w->eoa = size;
  }
  if (size > w->nFileSize) w->nFileSize = size;
  w->tailTxn = w->txn;
  return CAIRN_OK;
}

int cairnH5wAlloc(cairn_h5w *w, uint64_t n, uint64_t *pAddr) {
  if (n == 0) n = 1;
  for (int i = 0; i < w->nFree; i++) {
    if (w->aFree[i].n >= n) {
      *pAddr = w->aFree[i].addr;
      w->aFree[i].addr += n;
      w->aFree[i].n -= n;
      if (w->aFree[i].n == 0) {
        memmove(w->aFree + i, w->aFree + i + 1, sizeof(H5wExt) * (size_t)(w->nFree - i - 1));
        w->nFree--;
      }
      return CAIRN_OK;
    }
  }
  CAIRN_TRY(cairnH5wTailTake(w));
  uint64_t e;
  if (cairnAddOverflow64(w->eoa, n, &e)) return cairnErr(CAIRN_RANGE, "file address space exhausted");
  *pAddr = w->eoa;
  w->eoa = e;
  return CAIRN_OK;
}

/* bCommitted: the extent is used by the committed state, so it only becomes free after the next
** commit; otherwise (written in this transaction) it is free at once. */
void cairnH5wFree(cairn_h5w *w, uint64_t addr, uint64_t n, int bCommitted) {
  if (addr == H5_UNDEF || n == 0) return;
  if (bCommitted) extPush(&w->aPend, &w->nPend, &w->nPendAlloc, addr, n);
  else cairnH5wFreeInsert(w, addr, n);
}

void cairnH5wHold(cairn_h5w *w, uint64_t addr, uint64_t n) {
  if (n == 0) return;
  if (extPush(&w->aHeld, &w->nHeld, &w->nHeldAlloc, addr, n)) return; /* NOMEM: leaked (repack reclaims it) */
  if (addr + n > w->heldEnd) w->heldEnd = addr + n;
}

int cairnH5wReaders(cairn_h5w *w) {
  if (cairn_file_no_readers(w->f) != CAIRN_OK) {
    cairn_clearerr();
    return 1;
  }
  for (int i = 0; i < w->nHeld; i++) cairnH5wFreeInsert(w, w->aHeld[i].addr, w->aHeld[i].n);
  w->nHeld = 0;
  w->heldEnd = 0;
  return 0;
}

/* ---------------------------------------------------------------- objects */
H5wObj *cairnH5wObjNew(H5wObj *pParent) {
  H5wObj *o = cairnMallocZero(sizeof *o);
  if (!o) return NULL;
  o->pParent = pParent;
  o->addr = H5_UNDEF;
  return o;
}

void cairnH5wObjFree(H5wObj *o) {
  if (!o) return;
  for (int i = 0; i < o->nMsg; i++) cairnFree(o->aMsg[i].p);
  cairnFree(o->aMsg);
  for (int i = 0; i < o->nLink; i++) {
    cairnFree(o->aLink[i].zName);
    cairnFree(o->aLink[i].raw.p);
    cairnH5wObjFree(o->aLink[i].pObj);
  }
  cairnH5wDenseFree(NULL, o, 0);
  cairnFree(o->aLink);
  cairnFree(o->aHash);
  cairnFree(o->zPath);
  if (o->pDset) cairnH5wDsetFree(o->pDset);
  cairnFree(o);
}

void cairnH5wObjDirty(H5wObj *o) {
  o->bDirty = 1;
  for (H5wObj *p = o->pParent; p && !p->bSubDirty; p = p->pParent) p->bSubDirty = 1;
}

int cairnH5wObjAddMsg(H5wObj *o, uint8_t type, uint8_t flags, const uint8_t *p, size_t n) {
  if (n > 0xffff) return cairnErr(CAIRN_RANGE, "header message of %zu bytes (max 65535)", n);
  CAIRN_TRY(CAIRN_GROW(o->aMsg, o->nMsgAlloc, o->nMsg + 1, "header"));
  uint8_t *c = cairnMalloc(n ? n : 1);
  if (!c) return cairnErr(CAIRN_NOMEM, "header: out of memory");
  if (n) memcpy(c, p, n);
  o->aMsg[o->nMsg++] = (H5wMsg){type, flags, 0, (uint32_t)n, c};
  return CAIRN_OK;
}

int cairnH5wObjSetMsg(H5wObj *o, int i, const uint8_t *p, size_t n) {
  if (n > 0xffff) return cairnErr(CAIRN_RANGE, "header message of %zu bytes (max 65535)", n);
  uint8_t *c = cairnMalloc(n ? n : 1);
  if (!c) return cairnErr(CAIRN_NOMEM, "header: out of memory");
  if (n) memcpy(c, p, n);
  cairnFree(o->aMsg[i].p);
  o->aMsg[i].p = c;
  o->aMsg[i].n = (uint32_t)n;
  return CAIRN_OK;
}

void cairnH5wObjDelMsg(H5wObj *o, int i) {
  cairnFree(o->aMsg[i].p);
  memmove(o->aMsg + i, o->aMsg + i + 1, sizeof(H5wMsg) * (size_t)(o->nMsg - i - 1));
  o->nMsg--;
  if (o->pDset) {
    if (o->pDset->iSpaceMsg > i) o->pDset->iSpaceMsg--;
    if (o->pDset->iLayoutMsg > i) o->pDset->iLayoutMsg--;
  }
}

/* ---- link name hash (FNV-1a) ---- */
static uint32_t nameHash(const char *z, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)z[i]) * 16777619u;
  return h;
}
static int hashRebuild(H5wObj *g, int nWant) {
  int n = 16;
  while (n < nWant * 2) n *= 2;
  int *a = cairnMallocZero(sizeof(int) * (size_t)n);
  if (!a) return CAIRN_NOMEM;
  cairnFree(g->aHash);
  g->aHash = a;
  g->nHash = n;
  for (int i = 0; i < g->nLink; i++) {
    uint32_t h = nameHash(g->aLink[i].zName, strlen(g->aLink[i].zName)) & (uint32_t)(n - 1);
    while (a[h]) h = (h + 1) & (uint32_t)(n - 1);
    a[h] = i + 1;
  }
  return CAIRN_OK;
}
int cairnH5wLinkFind(H5wObj *g, const char *z, size_t n) {
  if (!g->nHash) return -1;
  uint32_t h = nameHash(z, n) & (uint32_t)(g->nHash - 1);
  while (g->aHash[h]) {
    H5wLink *l = &g->aLink[g->aHash[h] - 1];
    if (strlen(l->zName) == n && memcmp(l->zName, z, n) == 0) return g->aHash[h] - 1;
    h = (h + 1) & (uint32_t)(g->nHash - 1);
  }
  return -1;
}
int cairnH5wLinkPush(H5wObj *g, const char *z, size_t n, uint64_t addr, H5wObj *pObj, const H5wMsg *pRaw) {
  CAIRN_TRY(CAIRN_GROW(g->aLink, g->nLinkAlloc, g->nLink + 1, "group"));
  char *zc = cairnMalloc(n + 1);
  if (!zc) return cairnErr(CAIRN_NOMEM, "group: out of memory");
  memcpy(zc, z, n);
  zc[n] = 0;
  H5wLink *l = &g->aLink[g->nLink++];
  memset(l, 0, sizeof *l);
  l->zName = zc;
  l->addr = addr;
  l->pObj = pObj;
  if (pRaw) l->raw = *pRaw;
  if (cairnH5wLinkMsgSize(l) > H5W_DENSE_MAXMAN) g->nBigLink++;
  if (g->nLink * 2 > g->nHash) {
    if (hashRebuild(g, g->nLink)) {
      g->nLink--;
      cairnFree(zc);
      return cairnErr(CAIRN_NOMEM, "group: out of memory");
    }
  } else {
    uint32_t h = nameHash(zc, n) & (uint32_t)(g->nHash - 1);
    while (g->aHash[h]) h = (h + 1) & (uint32_t)(g->nHash - 1);
    g->aHash[h] = g->nLink;
  }
  return CAIRN_OK;
}

int cairnH5wLinkAdd(H5wObj *g, const char *zName, H5wObj *child) {
  int rc = cairnH5wLinkPush(g, zName, strlen(zName), H5_UNDEF, child, NULL);
  if (rc) return rc;
  child->pParent = g;
  cairnH5wObjDirty(child);
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- header encoding */
size_t cairnH5wLinkMsgSize(const H5wLink *l) {
  if (l->raw.p) return l->raw.n;
  size_t n = strlen(l->zName);
  return 2 + (n < 256 ? 1 : 2) + n + 8;
}
/* A link message pointing at addr (hard links; kept messages of hard links get the address
** patched: it is their last field). */
void cairnH5wLinkMsgEncode(const H5wLink *l, uint64_t addr, uint8_t *p) {
  if (l->raw.p) {
    memcpy(p, l->raw.p, l->raw.n);
    if ((l->addr != H5_UNDEF || l->pObj) && l->raw.n >= 8) cairnPutLE64(p + l->raw.n - 8, addr);
    return;
  }
  size_t n = strlen(l->zName);
  p[0] = 1;                    /* version */
  p[1] = n < 256 ? 0x00 : 0x01; /* size of the name length field; hard link, ASCII/UTF-8 as bytes */
  size_t i = 2;
  if (n < 256) p[i++] = (uint8_t)n;
  else cairnPutLE16(p + i, (uint16_t)n), i += 2;
  memcpy(p + i, l->zName, n);
  cairnPutLE64(p + i + n, addr);
}
#define linkMsgSize cairnH5wLinkMsgSize

static uint64_t linkTarget(const H5wLink *l) { return l->pObj ? l->pObj->addr : l->addr; }

/* Serialize object header o (version 2, one chunk) into a new buffer. */
int cairnH5wOhEncode(H5wObj *o, uint8_t **pp, size_t *pn) {
  int crt = (o->ohFlags & H5_OHDR_CRT_TRACK) != 0;
  size_t mh = crt ? 6 : 4;
  uint64_t body = 0;
  for (int i = 0; i < o->nMsg; i++) body += mh + o->aMsg[i].n;
  int nLinkMsg = o->pDense ? 0 : o->nLink; /* dense: the links live in the group's heap */
  for (int i = 0; i < nLinkMsg; i++) body += mh + linkMsgSize(&o->aLink[i]);
  unsigned wcode = body <= 0xff ? 0 : body <= 0xffff ? 1 : body <= 0xffffffffu ? 2 : 3;
  unsigned wbytes = 1u << wcode;
  size_t pre = 4 + 1 + 1 + (o->ohFlags & H5_OHDR_ATTR_PHASE ? 4 : 0) + wbytes;
  if (body > (1u << 30)) return cairnErr(CAIRN_RANGE, "object header of %llu bytes", (unsigned long long)body);
  size_t n = pre + (size_t)body + 4;
  uint8_t *p = cairnMalloc(n);
  if (!p) return cairnErr(CAIRN_NOMEM, "object header: out of memory for %zu bytes", n);
  memcpy(p, H5_SIG_OHDR, 4);
  p[4] = 2;
  p[5] = (uint8_t)((o->ohFlags & 0x1c) | wcode); /* times are not kept */
  size_t i = 6;
  if (o->ohFlags & H5_OHDR_ATTR_PHASE) {
    /* phase change values are not kept: write the defaults (8 compact, 6 dense) */
    cairnPutLE16(p + i, 8), cairnPutLE16(p + i + 2, 6);
    i += 4;
  }
  cairnPutLEn(p + i, body, wbytes);
  i += wbytes;
  for (int k = 0; k < o->nMsg; k++) {
    const H5wMsg *m = &o->aMsg[k];
    cairnH5FramePut(p + i, mh, m->type, (uint16_t)m->n, m->flags, m->crt);
    i += mh;
    memcpy(p + i, m->p, m->n);
    i += m->n;
  }
  for (int k = 0; k < nLinkMsg; k++) {
    const H5wLink *l = &o->aLink[k];
    size_t ln = linkMsgSize(l);
    cairnH5FramePut(p + i, mh, H5_MSG_LINK, (uint16_t)ln, l->raw.p ? l->raw.flags : 0, l->raw.crt);
    i += mh;
    cairnH5wLinkMsgEncode(l, linkTarget(l), p + i);
    i += ln;
  }
  cairnAssert(i + 4 == n); /* the messages filled exactly the size the prefix states */
  cairnH5ChecksumPut(p, i);
  *pp = p;
  *pn = i + 4;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- header decoding */
static int parseLink(H5wObj *g, const uint8_t *p, size_t n, uint8_t flags, uint16_t crt, uint64_t at) {
  if (n < 2 || p[0] != 1) return cairnErr(CAIRN_CORRUPT, "link message version %d at %llu", n ? p[0] : -1, (unsigned long long)at);
  unsigned fl = p[1];
  size_t i = 2;
  int ltype = 0;
  if (fl & 0x08) { if (i >= n) goto bad; ltype = p[i++]; }
  if (fl & 0x04) i += 8;
  if (fl & 0x10) i += 1;
  unsigned lw = 1u << (fl & 3);
  if (i + lw > n) goto bad;
  uint64_t nl = cairnGetLEn(p + i, lw);
  i += lw;
  if (nl == 0 || nl > n - i) goto bad;
  const char *z = (const char *)p + i;
  i += (size_t)nl;
  uint64_t addr = H5_UNDEF;
  H5wMsg raw = {0};
  if (ltype == 0) {
    if (i + 8 > n) goto bad;
    addr = cairnGetLE64(p + i);
    if (fl & 0x1c) { /* keep creation order/charset as they were */
      raw.p = cairnMalloc(n);
      if (!raw.p) return cairnErr(CAIRN_NOMEM, "link: out of memory");
      memcpy(raw.p, p, n);
      raw.n = (uint32_t)n;
      raw.type = H5_MSG_LINK, raw.flags = flags, raw.crt = crt;
    }
  } else {
    raw.p = cairnMalloc(n);
    if (!raw.p) return cairnErr(CAIRN_NOMEM, "link: out of memory");
    memcpy(raw.p, p, n);
    raw.n = (uint32_t)n;
    raw.type = H5_MSG_LINK, raw.flags = flags, raw.crt = crt;
  }
  int rc = cairnH5wLinkPush(g, z, (size_t)nl, addr, NULL, raw.p ? &raw : NULL);
  if (rc) cairnFree(raw.p);
  return rc;
bad:
  return cairnErr(CAIRN_CORRUPT, "malformed link message at %llu", (unsigned long long)at);
}

/* One more link from a stored message (dense storage): a name seen before is corruption. */
int cairnH5wParseLink(H5wObj *g, const uint8_t *p, size_t n, uint64_t at) {
  CAIRN_TRY(parseLink(g, p, n, 0, 0, at));
  const char *z = g->aLink[g->nLink - 1].zName;
  if (cairnH5wLinkFind(g, z, strlen(z)) != g->nLink - 1) return cairnErr(CAIRN_CORRUPT, "link '%s' stored twice (at %llu)", z, (unsigned long long)at);
  return CAIRN_OK;
}

static int parseMsgs(cairn_h5w *w, H5wObj *o, const uint8_t *p, size_t n, uint64_t base, int crt, int depth);

static int readChunk(cairn_h5w *w, H5wObj *o, uint64_t addr, uint64_t len, int crt, int depth) {
  if (depth > 64) return cairnErr(CAIRN_CORRUPT, "object header continuation chain too long at %llu", (unsigned long long)addr);
  if (len < 8 || len > OH_MAX) return cairnErr(CAIRN_CORRUPT, "continuation block of %llu bytes at %llu", (unsigned long long)len, (unsigned long long)addr);
  uint8_t *p = cairnMalloc((size_t)len);
  if (!p) return cairnErr(CAIRN_NOMEM, "object header: out of memory");
  int rc = cairnH5wRead(w, p, (size_t)len, addr);
  if (!rc && memcmp(p, H5_SIG_OCHK, 4) != 0) rc = cairnErr(CAIRN_CORRUPT, "no OCHK signature at %llu", (unsigned long long)addr);
  if (!rc && !cairnH5ChecksumOk(p, (size_t)len - 4))
    rc = cairnErr(CAIRN_CHECKSUM, "object header continuation checksum mismatch at %llu", (unsigned long long)addr);
  if (!rc && o->nExtra < 16) {
    o->aExtra[2 * o->nExtra] = addr;
    o->aExtra[2 * o->nExtra + 1] = len;
    o->nExtra++;
  } else if (!rc) rc = cairnErr(CAIRN_UNSUPPORTED, "object header with more than 16 continuation blocks");
  if (!rc) rc = parseMsgs(w, o, p + 4, (size_t)len - 8, addr + 4, crt, depth + 1);
  cairnFree(p);
  return rc;
}

static int readChunkV1(cairn_h5w *w, H5wObj *o, uint64_t addr, uint64_t len, int depth);

static int handleMsg(cairn_h5w *w, H5wObj *o, int ver, uint8_t type, uint8_t flags, uint16_t co, const uint8_t *m, size_t len,
                     uint64_t at, int crt, int depth) {
  if (type == H5_MSG_NIL) return CAIRN_OK;
  if (type == H5_MSG_CONT) {
    if (len < 16) return cairnErr(CAIRN_CORRUPT, "continuation message at %llu", (unsigned long long)at);
    return ver == 1 ? readChunkV1(w, o, cairnGetLE64(m), cairnGetLE64(m + 8), depth)
                    : readChunk(w, o, cairnGetLE64(m), cairnGetLE64(m + 8), crt, depth);
  }
  if (type == H5_MSG_LINK) {
    o->bGroup = 1;
    return parseLink(o, m, len, flags, co, at);
  }
  if (type == H5_MSG_LINKINFO) {
    o->bGroup = 1;
    if (len >= 10) {
      size_t k = 2 + ((m[1] & 1) ? 8 : 0);
      if (k + 8 <= len && cairnGetLE64(m + k) != H5_UNDEF) o->bDenseLinks = 1;
    }
  }
  if (type == H5_MSG_SYMTAB) o->bGroup = 1, o->bDenseLinks = 1; /* links in a B-tree + local heap */
  if (type == H5_MSG_AINFO && len >= 2) { /* dense attribute storage if the heap is defined */
    size_t k = 2 + ((m[1] & 1) ? 2 : 0);
    if (k + 8 <= len && cairnGetLE64(m + k) != H5_UNDEF) o->bDenseAttrs = 1;
  }
  int rc = cairnH5wObjAddMsg(o, type, flags, m, len);
  if (!rc) o->aMsg[o->nMsg - 1].crt = co;
  return rc;
}

static int parseMsgs(cairn_h5w *w, H5wObj *o, const uint8_t *p, size_t n, uint64_t base, int crt, int depth) {
  size_t mh = crt ? 6 : 4, i = 0;
  while (n - i >= mh) {
    H5Frame fr;
    cairnH5FrameGet(p + i, 0, mh, &fr);
    uint8_t type = (uint8_t)fr.type, flags = fr.flags;
    size_t len = fr.size;
    uint16_t co = fr.crt;
    i += mh;
    if (len > n - i) return cairnErr(CAIRN_CORRUPT, "header message of %zu bytes overruns its chunk at %llu", len, (unsigned long long)(base + i));
    CAIRN_TRY(handleMsg(w, o, 2, type, flags, co, p + i, len, base + i, crt, depth));
    i += len;
  }
  return CAIRN_OK;
}

/* Version-1 headers (libver earliest): 8-byte message headers, bodies aligned to 8 bytes,
** continuation blocks without a signature or checksum. */
static int parseMsgsV1(cairn_h5w *w, H5wObj *o, const uint8_t *p, size_t n, uint64_t base, int depth) {
  size_t i = 0;
  while (n - i >= 8) {
    H5Frame fr;
    cairnH5FrameGet(p + i, 1, 8, &fr);
    uint32_t type = fr.type;
    size_t len = fr.size;
    uint8_t flags = fr.flags;
    i += 8;
    if (len > n - i) return cairnErr(CAIRN_CORRUPT, "header message of %zu bytes overruns its chunk at %llu", len, (unsigned long long)(base + i));
    if (type > 0xff) return cairnErr(CAIRN_UNSUPPORTED, "header message type %u at %llu", type, (unsigned long long)(base + i));
    CAIRN_TRY(handleMsg(w, o, 1, (uint8_t)type, flags, 0, p + i, len, base + i, 0, depth));
    i += len;
  }
  return CAIRN_OK;
}

static int readChunkV1(cairn_h5w *w, H5wObj *o, uint64_t addr, uint64_t len, int depth) {
  if (depth > 64) return cairnErr(CAIRN_CORRUPT, "object header continuation chain too long at %llu", (unsigned long long)addr);
  if (len > OH_MAX || o->nExtra >= 16) return cairnErr(CAIRN_UNSUPPORTED, "continuation block of %llu bytes at %llu", (unsigned long long)len, (unsigned long long)addr);
  uint8_t *p = cairnMalloc(len ? (size_t)len : 1);
  if (!p) return cairnErr(CAIRN_NOMEM, "object header: out of memory");
  int rc = cairnH5wRead(w, p, (size_t)len, addr);
  if (!rc) {
    o->aExtra[2 * o->nExtra] = addr;
    o->aExtra[2 * o->nExtra + 1] = len;
    o->nExtra++;
    rc = parseMsgsV1(w, o, p, (size_t)len, addr, depth + 1);
  }
  cairnFree(p);
  return rc;
}

/* The end of loading a header: a dataset's layout is loaded too; on success *ppObj = o, on
** failure (rc, or the layout) o is freed. */
static int objLoaded(cairn_h5w *w, H5wObj *o, int rc, H5wObj **ppObj) {
  if (!rc) {
    for (int k = 0; k < o->nMsg; k++)
      if (o->aMsg[k].type == H5_MSG_LAYOUT) {
        rc = cairnH5wDsetLoad(w, o);
        break;
      }
  }
  if (rc) {
    cairnH5wObjFree(o);
    return rc;
  }
  *ppObj = o;
  return CAIRN_OK;
}

/* Load the object header at addr (version 1 or 2). */
int cairnH5wOhLoad(cairn_h5w *w, uint64_t addr, H5wObj *pParent, H5wObj **ppObj) {
  uint8_t hdr[48];
  size_t got = 0;
  int rc = cairnH5wFlush(w);
  if (!rc) rc = cairn_file_read(w->f, hdr, sizeof hdr, addr, &got);
  if (rc) return rc;
  H5OhdrPrefix hp;
  int pk = cairnH5OhdrPrefix(hdr, got, &hp);
  if (pk == H5_PREFIX_OK && hp.version == 1) {
    /* version 1: version, reserved, message count (2), reference count (4), header size (4),
    ** padding to 16; the messages follow */
    uint32_t nRef = hp.nRef;
    uint64_t body = hp.nMsgs;
    if (body > OH_MAX) return cairnErr(CAIRN_CORRUPT, "object header at %llu claims %llu bytes", (unsigned long long)addr, (unsigned long long)body);
    uint8_t *p = cairnMalloc(16 + (size_t)body);
    if (!p) return cairnErr(CAIRN_NOMEM, "object header: out of memory");
    rc = cairnH5wRead(w, p, 16 + (size_t)body, addr);
    H5wObj *o = NULL;
    if (!rc && !(o = cairnH5wObjNew(pParent))) rc = cairnErr(CAIRN_NOMEM, "object header: out of memory");
    if (!rc) {
      o->addr = addr;
      o->nDisk = 16 + body;
      rc = parseMsgsV1(w, o, p + 16, (size_t)body, addr + 16, 0);
    }
    cairnFree(p);
    /* Rewritten as version 2, where more than one hard link is a reference count message */
    if (!rc && nRef > 1) {
      int have = 0;
      for (int k = 0; k < o->nMsg; k++) have |= o->aMsg[k].type == H5_MSG_REFCOUNT;
      uint8_t rcm[5] = {0};
      cairnPutLE32(rcm + 1, nRef);
      if (!have) rc = cairnH5wObjAddMsg(o, H5_MSG_REFCOUNT, 0, rcm, sizeof rcm);
    }
    return objLoaded(w, o, rc, ppObj);
  }
  if (got < 12 || memcmp(hdr, H5_SIG_OHDR, 4) != 0) return cairnErr(CAIRN_CORRUPT, "no object header at %llu", (unsigned long long)addr);
  if (pk == H5_PREFIX_VERSION) return cairnErr(CAIRN_UNSUPPORTED, "object header version %d at %llu", hdr[4], (unsigned long long)addr);
  if (pk != H5_PREFIX_OK) return cairnErr(CAIRN_CORRUPT, "object header at %llu is truncated", (unsigned long long)addr);
  uint8_t fl = hp.flags;
  size_t i = hp.iMsgs;
  uint64_t body = hp.nMsgs;
  if (body > OH_MAX) return cairnErr(CAIRN_CORRUPT, "object header at %llu claims %llu bytes", (unsigned long long)addr, (unsigned long long)body);
  size_t total = i + (size_t)body + 4;
  uint8_t *p = cairnMalloc(total);
  if (!p) return cairnErr(CAIRN_NOMEM, "object header: out of memory");
  rc = cairnH5wRead(w, p, total, addr);
  if (!rc && !cairnH5ChecksumOk(p, total - 4))
    rc = cairnErr(CAIRN_CHECKSUM, "object header checksum mismatch at %llu", (unsigned long long)addr);
  H5wObj *o = NULL;
  if (!rc && !(o = cairnH5wObjNew(pParent))) rc = cairnErr(CAIRN_NOMEM, "object header: out of memory");
  if (!rc) {
    o->addr = addr;
    o->nDisk = total;
    o->ohFlags = fl & 0x1c;
    rc = parseMsgs(w, o, p + i, (size_t)body, addr + i, (fl & H5_OHDR_CRT_TRACK) != 0, 0);
  }
  cairnFree(p);
  return objLoaded(w, o, rc, ppObj);
}
