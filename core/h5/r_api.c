/*
** 2026-11-29
**
** core/h5/r_api.c - the public reader API of cairn/h5.h: files, objects by path (soft links
** followed, external links reported), info, links, attributes. Reads and JSON are r_read.c's.
*/
#include "h5int.h"


/* ---------------------------------------------------------------- files */
/* The body of cairn_h5_open, inlined into cairn_h5_open_path too: there the first read's
** system call then has one frame fewer above it (see "System calls and the stack" in
** internal.h; a call from a function that took the address of a local is not a tail call). */
static inline __attribute__((always_inline)) int h5Open(cairn_file *pFile, unsigned flags, cairn_h5 **pp) {
  /* one allocation: the handle, then the memory of the first read (not zeroed: it is read into) */
  size_t nHandle = (sizeof(cairn_h5) + 15) & ~(size_t)15;
  cairn_h5 *h = cairnMalloc(nHandle + H5_FIRST_RUN + H5_OBJ_SLOT);
  if (h) { /* the file's fields up to its arrays (each array is read up to a count or after a
            ** check: see H5File), the type memo's slot pointers and the first hash slots */
    memset(h, 0, offsetof(cairn_h5, f) + offsetof(H5File, aVerified));
    for (unsigned k = 0; k < CAIRN_ARRAY_SIZE(h->f.aTypeMemo); k++) h->f.aTypeMemo[k].t = NULL;
    memset(h->f.aSlot0, 0, H5_SLOTS0 * sizeof(H5Page *));
  }
  if (!h) {
    if (flags & CAIRN_H5_OWN_FILE) cairn_file_close(pFile);
    return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
  }
  h->own = (flags & CAIRN_H5_OWN_FILE) != 0;
  H5File *f = &h->f;
  f->noExternal = (flags & CAIRN_H5_NO_EXTERNAL) != 0;
  f->pFile = pFile;
  f->gcolAddr = H5_UNDEF;
  f->pageBits = 12;
  f->cacheBudget = 8u << 20;
  f->nSlot = H5_SLOTS0; /* grows with the cache */
  f->aSlot = f->aSlot0;
  f->pFirstRun = (uint8_t *)h + nHandle;
  h->pSlot = (uint8_t *)h + nHandle + H5_FIRST_RUN;
  h->slotUsed = h->closed = 0;
  /* The first read is made here, not in a helper: under the system call only this frame and
  ** the host's stay on the stack (see "System calls and the stack" in internal.h). */
  size_t nr = 0;
  f->nRead = 1;
  f->nReadBytes = H5_FIRST_BYTES;
  int rc = pFile->pMethods->xRead(pFile, cairnH5FirstData(f), H5_FIRST_BYTES, 0, &nr);
  if (rc) rc = cairnReadFailed(rc, H5_FIRST_BYTES, 0);
  else {
    cairnH5FirstDone(f, nr);
    rc = cairnH5OpenSuperblock(f);
  }
  /* the reader's lock comes with the next host call (r_file.c, cairnH5LockNow); hosts without
  ** locks have nothing to take */
  f->lockLater = pFile->pMethods->iVersion >= 2 && pFile->pMethods->xLock;
  if (rc) {
    cairn_h5_close(h);
    return rc;
  }
  *pp = h;
  return CAIRN_OK;
}

int cairn_h5_open(cairn_file *pFile, unsigned flags, cairn_h5 **pp) {
  if (!pp) return cairnErr(CAIRN_MISUSE, "cairn_h5_open: NULL handle pointer");
  *pp = NULL;
  if (!pFile) return cairnErr(CAIRN_MISUSE, "cairn_h5_open: NULL file");
  return h5Open(pFile, flags, pp);
}

int cairn_h5_open_path(const char *zPath, cairn_h5 **pp) {
  cairn_file *f;
  if (!zPath || !pp) return cairnErr(CAIRN_MISUSE, "cairn_h5_open_path: NULL argument");
  *pp = NULL;
  CAIRN_TRY(cairn_open(zPath, CAIRN_OPEN_READONLY, &f));
  return h5Open(f, CAIRN_H5_OWN_FILE, pp);
}

int cairn_h5_close(cairn_h5 *h) {
  if (!h) return CAIRN_OK;
  H5File *f = &h->f;
  cairnH5CacheFree(f);
  cairnFree(f->pGcol);
  cairnFree(f->aGcolObj);
  for (size_t i = 0; i < f->nAddrPath; i++) cairnFree(f->aAddrPath[i].zPath);
  cairnFree(f->aAddrPath);
  /* The file is closed last, as a tail call: every frame left on the stack under a system
  ** call costs a mispredicted return ("System calls and the stack" in internal.h). */
  cairn_file *pFile = h->own ? f->pFile : NULL;
  if (h->slotUsed) h->closed = 1; /* freed with the object in its slot */
  else cairnFree(h);
  return cairn_file_close(pFile);
}

int cairn_h5_cache_budget(cairn_h5 *h, uint64_t n) {
  if (!h) return cairnErr(CAIRN_MISUSE, "cairn_h5_cache_budget: NULL handle");
  cairnH5CacheFirst(&h->f); /* the first read's pages count against the budget */
  h->f.cacheBudget = n;
  /* a budget below the first read's two pages: those are not used in place either (every
  ** structure read then goes to the host, which tests rely on) */
  if (n < ((uint64_t)2 << h->f.pageBits)) h->f.nFirstData = 0;
  cairnH5CacheTrim(&h->f);
  return CAIRN_OK;
}

void cairn_h5_stats(cairn_h5 *h, uint64_t *pnRead, uint64_t *pnBytes) {
  if (pnRead) *pnRead = h ? h->f.nRead : 0;
  if (pnBytes) *pnBytes = h ? h->f.nReadBytes : 0;
}

int cairn_h5_superblock_version(cairn_h5 *h) { return h ? h->f.sbVersion : -1; }

/* ---------------------------------------------------------------- objects */
static int loadTypeMsg(H5File *f, const H5Msg *m, H5Type **pp) {
  const uint8_t *q;
  size_t nq;
  uint64_t qa;
  uint8_t *own;
  CAIRN_TRY(cairnH5MsgResolve(f, m, &q, &nq, &qa, &own));
  int rc = cairnH5TypeDecode(f, q, nq, qa, 0, pp, NULL);
  cairnFree(own);
  return rc;
}
static int loadType(H5File *f, const H5Ohdr *o, H5Type **pp, const char *zPath) {
  const H5Msg *m = cairnH5OhdrFind(o, H5_MSG_DATATYPE, 0);
  if (!m) return cairnErr(CAIRN_CORRUPT, "hdf5: %s has no datatype message", zPath);
  return loadTypeMsg(f, m, pp);
}

/* cairnH5MsgResolve without the call for the usual message, which is not shared (in the header). */
static inline int msgBytes(H5File *f, const H5Msg *m, const uint8_t **pp, size_t *pn, uint64_t *pAddr, uint8_t **ppOwn) {
  if (m->flags & H5_MSGF_SHARED) return cairnH5MsgResolve(f, m, pp, pn, pAddr, ppOwn);
  *pp = m->p;
  *pn = m->size;
  *pAddr = m->addr;
  *ppOwn = NULL;
  return CAIRN_OK;
}

static int loadDataset(cairn_h5_obj *ob) {
  H5File *f = &ob->h->f;
  /* Not zeroed whole: the filter slots (4 KiB; cairnH5PipelineDecode fills them when there is a
  ** pipeline), the dataspace, layout and type (their decoders set what is read), nor the index
  ** block ring (only its first iIdx entries are ever read: cairnH5DsetFreeCache). */
  H5Dset *d = ob->pD;
  d->f = f;
  d->zPath = ob->zPath;
  d->pType = NULL;
  d->pipeline.n = 0;
  memset(&d->fill, 0, sizeof(d->fill));
  d->pFillOwn = NULL;
  d->pEfl = NULL;
  d->iIdx = 0;
  /* the first message of each type wanted, in one pass over the header */
  const H5Msg *aFirst[12] = {0};
  for (uint32_t i = ob->o.nMsg; i-- > 0;) {
    const H5Msg *q = &ob->o.aMsg[i];
    if (q->type < CAIRN_ARRAY_SIZE(aFirst)) aFirst[q->type] = q;
  }
  const H5Msg *m = aFirst[H5_MSG_DATATYPE];
  if (!m) return cairnErr(CAIRN_CORRUPT, "hdf5: %s has no datatype message", ob->zPath);
  {
    const uint8_t *q;
    size_t nq;
    uint64_t qa;
    uint8_t *own;
    CAIRN_TRY(msgBytes(f, m, &q, &nq, &qa, &own));
    int rc = cairnH5TypeDecodeIn(f, q, nq, qa, &d->typeOwn, &d->pType);
    cairnFree(own);
    if (rc) return rc;
  }
  m = aFirst[H5_MSG_DATASPACE];
  if (!m) return cairnErr(CAIRN_CORRUPT, "hdf5: dataset %s has no dataspace", ob->zPath);
  const uint8_t *q;
  size_t nq;
  uint64_t qa;
  uint8_t *own;
  CAIRN_TRY(msgBytes(f, m, &q, &nq, &qa, &own));
  int rc = cairnH5SpaceDecode(q, nq, qa, f, &d->space);
  cairnFree(own);
  if (rc) return rc;
  d->pEfl = aFirst[H5_MSG_EFL];
  m = aFirst[H5_MSG_LAYOUT];
  if (!m) return cairnErr(CAIRN_CORRUPT, "hdf5: dataset %s has no layout", ob->zPath); /* cairnH5ObjKind saw one */
  CAIRN_TRY(cairnH5LayoutDecode(f, m->p, m->size, m->addr, &d->space, &d->layout));
  if ((m = aFirst[H5_MSG_FILTER]) != NULL) {
    CAIRN_TRY(cairnH5MsgResolve(f, m, &q, &nq, &qa, &own));
    rc = cairnH5PipelineDecode(q, nq, qa, &d->pipeline);
    cairnFree(own);
    if (rc) return rc;
  }
  m = aFirst[H5_MSG_FILLVALUE];
  if (!m) m = aFirst[H5_MSG_FILL_OLD];
  if (m) {
    CAIRN_TRY(msgBytes(f, m, &q, &nq, &qa, &own));
    d->pFillOwn = own;
    CAIRN_TRY(cairnH5FillDecode(m->type, q, nq, qa, &d->fill));
    if (d->fill.defined && d->fill.size != d->pType->size) d->fill.defined = 0; /* unusable: zeros */
  }
  return CAIRN_OK;
}

static int objFromAddr(cairn_h5 *h, uint64_t addr, const char *zPath, cairn_h5_obj **pp) {
  /* The header first: its kind sizes the one block of the object, its dataset state (the
  ** pipeline is large: a dataset only) and its path. With the handle's object slot free, the
  ** header is read straight to its place there, after room for the object and a dataset:
  ** [object][dataset state][header][path]. Else it is read into the file's lent memory and
  ** moved into the object's block. */
  size_t nOb = (sizeof(cairn_h5_obj) + 15) & ~(size_t)15, nDset = (sizeof(H5Dset) + 15) & ~(size_t)15;
  size_t nPath = strlen(zPath) + 1;
  int inSlot = !h->slotUsed && nOb + nDset + nPath + 64 <= H5_OBJ_SLOT;
  uint8_t *pLent = inSlot ? (uint8_t *)h->pSlot + nOb + nDset : (uint8_t *)h->f.aOhdrLent;
  size_t nLent = inSlot ? (H5_OBJ_SLOT - nOb - nDset - nPath) & ~(size_t)15 : sizeof(h->f.aOhdrLent);
  /* in the slot, the header goes to its place in the object at once */
  H5Ohdr oh, *po = inSlot ? &((cairn_h5_obj *)h->pSlot)->o : &oh;
  int rc = cairnH5OhdrLoadIn(&h->f, addr, po, pLent, nLent);
  if (rc) {
    const char *z = cairn_errmsg();
    if (CAIRN_PRIMARY(rc) == CAIRN_CORRUPT && !strstr(z, zPath)) cairnErr(rc, "%s (object %s)", z, zPath);
    return rc;
  }
  int kind = cairnH5ObjKind(po);
  size_t nD = kind == CAIRN_H5_DATASET ? nDset : 0;
  size_t nHdr = po->firstLent ? (po->nFirst + 15) & ~(size_t)15 : 0; /* a multiple of 16 up to nLent */
  cairn_h5_obj *ob;
  char *zPathAt;
  if (inSlot) {
    ob = h->pSlot;
    zPathAt = (char *)pLent + nHdr;
  } else {
    ob = cairnMalloc(nOb + nD + nHdr + nPath);
    if (!ob) {
      cairnH5OhdrFree(&oh);
      return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
    }
    if (nHdr) cairnH5OhdrMove(&oh, (uint8_t *)ob + nOb + nD);
    zPathAt = (char *)ob + nOb + nD + nHdr;
  }
  /* every field but the attribute state (its dataspace is large; only attribute objects use
  ** it): h, kind, zPath and o are set below */
  ob->pD = NULL;
  ob->pType = NULL;
  memset((char *)ob + offsetof(cairn_h5_obj, aLink), 0, sizeof(*ob) - offsetof(cairn_h5_obj, aLink));
  ob->attr.pType = NULL;
  ob->attr.pData = NULL;
  if (inSlot) {
    h->slotUsed = 1;
    ob->inSlot = 1;
  }
  ob->h = h;
  if (!inSlot) ob->o = oh;
  ob->kind = kind;
  if (nD) {
    ob->pD = (H5Dset *)((char *)ob + nOb);
    ob->dsetInline = 1;
  }
  ob->zPath = zPathAt;
  memcpy(ob->zPath, zPath, nPath);
  ob->pathInline = 1;
  if (kind == CAIRN_H5_DATASET) rc = loadDataset(ob);
  else if (kind == CAIRN_H5_DATATYPE) rc = loadType(&h->f, &ob->o, &ob->pType, zPath);
  if (rc) {
    const char *z = cairn_errmsg();
    if (CAIRN_PRIMARY(rc) == CAIRN_CORRUPT && !strstr(z, zPath)) cairnErr(rc, "%s (object %s)", z, zPath);
    cairn_h5_obj_close(ob);
    return rc;
  }
  *pp = ob;
  return CAIRN_OK;
}

/* The components of zPath before pEnd joined as "/a/b" (empty ones and "." left out), whole
** components only as long as they fit in z[0..nz); returns the length. For messages and
** relative soft links: a lookup that succeeds does not build it. */
static size_t pathSoFar(const char *zPath, const char *pEnd, char *z, size_t nz) {
  size_t n = 0;
  z[0] = 0;
  for (const char *p = zPath, *e; p < pEnd; p = e) {
    while (p < pEnd && *p == '/') p++;
    for (e = p; e < pEnd && *e != '/'; e++) {
    }
    size_t k = (size_t)(e - p);
    if (k == 0 || (k == 1 && p[0] == '.') || n + k + 2 >= nz) continue;
    z[n++] = '/';
    memcpy(z + n, p, k);
    n += k;
    z[n] = 0;
  }
  return n;
}

static void linkRelease(H5Link *k) {
  cairnFree(k->zName);
  cairnFree(k->zTarget);
  cairnFree(k->zFile);
}

/* Resolve a path to an object header address, following soft links (at most 16). */
static int resolve(cairn_h5 *h, const char *zPath, int depth, uint64_t *pAddr) {
  H5File *f = &h->f;
  if (depth > 16) return cairnErr(CAIRN_CORRUPT, "hdf5: too many soft links resolving %s", zPath);
  uint64_t cur = f->rootAddr;
  const char *p = zPath;
  while (*p) {
    while (*p == '/') p++;
    if (!*p) break;
    const char *e = p;
    while (*e && *e != '/') e++;
    size_t n = (size_t)(e - p);
    if (n == 1 && p[0] == '.') {
      p = e;
      continue;
    }
    H5Link k;
    int rc = cairnH5GroupLookupAt(f, cur, p, n, &k);
    if (rc == CAIRN_NOTFOUND) {
      char zIn[1024];
      return cairnErr(CAIRN_NOTFOUND, "hdf5: no object '%s' in %s", zPath, pathSoFar(zPath, p, zIn, sizeof(zIn)) ? zIn : "/");
    }
    if (rc) return rc;
    if (k.type == CAIRN_H5_LINK_HARD) {
      cur = k.addr;
      linkRelease(&k);
      p = e;
      continue;
    }
    char zT[2048];
    if (k.type == CAIRN_H5_LINK_SOFT) {
      size_t nt = strlen(k.zTarget);
      if (k.zTarget[0] == '/') cairnFormat(zT, sizeof(zT), "%s", k.zTarget);
      else {
        /* relative to the group holding the link */
        size_t nParent = pathSoFar(zPath, p, zT, 1024);
        if (nParent + 1 + nt + 1 < sizeof(zT)) {
          zT[nParent] = '/';
          memcpy(zT + nParent + 1, k.zTarget, nt + 1);
        }
      }
      linkRelease(&k);
      rc = resolve(h, zT, depth + 1, &cur);
      if (rc) return rc;
      p = e;
      continue;
    }
    pathSoFar(zPath, e, zT, 1024);
    if (k.type == CAIRN_H5_LINK_EXTERNAL)
      rc = cairnErr(CAIRN_UNSUPPORTED, "hdf5: %s is an external link to %s in file %s (not followed)", zT, k.zTarget ? k.zTarget : "",
                    k.zFile ? k.zFile : "");
    else rc = cairnErr(CAIRN_UNSUPPORTED, "hdf5: %s is a user-defined link of type %u", zT, k.type);
    linkRelease(&k);
    return rc;
  }
  *pAddr = cur;
  return CAIRN_OK;
}

int cairn_h5_get(cairn_h5 *h, const char *zPath, cairn_h5_obj **pp) {
  if (!h || !zPath || !pp) return cairnErr(CAIRN_MISUSE, "cairn_h5_get: NULL argument");
  *pp = NULL;
  uint64_t addr;
  CAIRN_TRY(resolve(h, zPath, 0, &addr));
  return objFromAddr(h, addr, zPath[0] ? zPath : "/", pp);
}

/* Most objects own little besides their block: what is NULL costs no call (cairnFree,
** cairnH5TypeFree), and the header and index cache are freed only when there are any. */
int cairn_h5_obj_close(cairn_h5_obj *o) {
  if (!o) return CAIRN_OK;
  if (o->o.nBuf) cairnH5OhdrFree(&o->o); /* attributes have no header */
  if (o->pD) {
    if (o->pD->iIdx) cairnH5DsetFreeCache(o->pD);
    cairnH5TypeFree(o->pD->pType);
    cairnFree(o->pD->pFillOwn);
    if (!o->dsetInline) cairnFree(o->pD);
  }
  cairnFree(o->aFilt);
  cairnH5TypeFree(o->pType);
  if (o->attrOwn == 2) o->attr.pData = NULL; /* values inside this object's block */
  if (o->attrOwn) cairnH5AttrFree(&o->attr);
  else cairnH5TypeFree(o->attr.pType); /* attr.pData and zName live in the zPath block */
  cairnH5LinksFree(o->aLink, o->nLink); /* returns at once when none were listed */
  if (o->aAttr) {
    for (size_t i = 0; i < o->nAttr; i++)
      if (o->aAttr[i].pType || o->aAttr[i].pData) cairnH5AttrFree(&o->aAttr[i]); /* else only listed */
    cairnFree(o->aAttr);
  }
  if (!o->pathInline) cairnFree(o->zPath);
  if (o->inSlot) {
    cairn_h5 *h = o->h;
    h->slotUsed = 0;
    if (h->closed) cairnFree(h);
  } else {
    cairnFree(o);
  }
  return CAIRN_OK;
}

const char *cairn_h5_obj_path(cairn_h5_obj *o) { return o ? o->zPath : ""; }

static int loadAttrs(cairn_h5_obj *o) {
  if (o->attrsLoaded) return CAIRN_OK;
  if (o->kind == CAIRN_H5_ATTRIBUTE) {
    o->attrsLoaded = 1;
    return CAIRN_OK;
  }
  CAIRN_TRY(cairnH5Attrs(&o->h->f, &o->o, &o->aAttr, &o->nAttr));
  o->attrsLoaded = 1;
  return CAIRN_OK;
}

static int loadLinks(cairn_h5_obj *o) {
  if (o->linksLoaded || o->kind != CAIRN_H5_GROUP) return CAIRN_OK;
  CAIRN_TRY(cairnH5GroupLinks(&o->h->f, &o->o, &o->aLink, &o->nLink));
  o->linksLoaded = 1;
  return CAIRN_OK;
}

static int attrObj(cairn_h5_obj *o, const H5Attr *a, cairn_h5_obj **pp) {
  cairn_h5_obj *ob = cairnMallocZero(sizeof(*ob));
  if (!ob) return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
  ob->h = o->h;
  ob->kind = CAIRN_H5_ATTRIBUTE;
  size_t n1 = strlen(o->zPath), n2 = strlen(a->zName);
  /* one block: path "obj@name", then the values, then the name */
  ob->zPath = cairnMalloc(n1 + n2 + 2 + a->nData + n2 + 1);
  int rc = ob->zPath ? CAIRN_OK : cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
  if (rc == CAIRN_OK) {
    memcpy(ob->zPath, o->zPath, n1);
    ob->zPath[n1] = '@';
    memcpy(ob->zPath + n1 + 1, a->zName, n2 + 1);
    ob->attr.pData = (uint8_t *)ob->zPath + n1 + n2 + 2;
    memcpy(ob->attr.pData, a->pData, a->nData);
    ob->attr.zName = (char *)ob->attr.pData + a->nData;
    memcpy(ob->attr.zName, a->zName, n2 + 1);
    ob->attr.nData = a->nData;
    ob->attr.space = a->space;
  }
  if (rc) {
    cairn_h5_obj_close(ob);
    return rc;
  }
  *pp = ob;
  return CAIRN_OK;
}

/* An attribute that was listed but not decoded (the usual, compact case) is decoded for the
** new object alone: one allocation holds the object, its path "obj@name" and the values (the
** type is the only other), and the parent's list stays a list of names. One decoded
** while listing (dense storage) is copied, its type shared. */
static int attrTake(cairn_h5_obj *o, size_t i, cairn_h5_obj **pp) {
  H5Attr *a = &o->aAttr[i];
  if (a->pType) {
    CAIRN_TRY(attrObj(o, a, pp));
    (*pp)->attr.pType = cairnH5TypeRef(a->pType);
    return CAIRN_OK;
  }
  /* one block: the object, its path "obj@name", then room for the values and name (they fit
  ** in the message they come from); decoded in place */
  size_t n1 = strlen(o->zPath), n2 = strlen(a->zName), nPath = n1 + n2 + 2;
  if (a->nMsg > H5_MAX_META) return cairnErr(CAIRN_CORRUPT, "hdf5: attribute '%s' of %s is too large", a->zName, o->zPath);
  cairn_h5_obj *ob = cairnMalloc(sizeof(*ob) + nPath + a->nMsg + 1);
  if (!ob) return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
  memset(ob, 0, offsetof(cairn_h5_obj, attr));
  memset((char *)ob + offsetof(cairn_h5_obj, aLink), 0, sizeof(*ob) - offsetof(cairn_h5_obj, aLink));
  ob->zPath = (char *)(ob + 1);
  memcpy(ob->zPath, o->zPath, n1);
  ob->zPath[n1] = '@';
  memcpy(ob->zPath + n1 + 1, a->zName, n2 + 1);
  int inBuf = 0;
  int rc = cairnH5AttrDecodeIn(&o->h->f, a->pMsg, a->nMsg, a->msgAddr, &ob->attr, (uint8_t *)ob->zPath + nPath, a->nMsg + 1, &inBuf);
  if (rc == CAIRN_OK && strcmp(ob->attr.zName, a->zName) != 0) /* cannot happen: same bytes */
    rc = cairnErr(CAIRN_CORRUPT, "hdf5: attribute name changed while decoding on %s", o->zPath);
  if (rc) {
    const char *z = cairn_errmsg();
    if (!strstr(z, o->zPath)) cairnErr(rc, "%s (attribute '%s' of %s)", z, a->zName, o->zPath);
    if (inBuf) ob->attr.pData = NULL;
    cairnH5AttrFree(&ob->attr);
    cairnFree(ob);
    return rc;
  }
  ob->h = o->h;
  ob->kind = CAIRN_H5_ATTRIBUTE;
  ob->pathInline = 1;
  ob->attrOwn = inBuf ? 2 : 1;
  *pp = ob;
  return CAIRN_OK;
}

int cairn_h5_attr(cairn_h5_obj *o, const char *zName, cairn_h5_obj **pp) {
  if (!o || !zName || !pp) return cairnErr(CAIRN_MISUSE, "cairn_h5_attr: NULL argument");
  *pp = NULL;
  CAIRN_TRY(loadAttrs(o));
  size_t lo = 0, hi = o->nAttr; /* sorted by name */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(o->aAttr[mid].zName, zName);
    if (c == 0) return attrTake(o, mid, pp);
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return cairnErr(CAIRN_NOTFOUND, "hdf5: no attribute '%s' on %s", zName, o->zPath);
}

int cairn_h5_attr_at(cairn_h5_obj *o, size_t i, cairn_h5_obj **pp) {
  if (!o || !pp) return cairnErr(CAIRN_MISUSE, "cairn_h5_attr_at: NULL argument");
  *pp = NULL;
  CAIRN_TRY(loadAttrs(o));
  if (i >= o->nAttr) return cairnErr(CAIRN_RANGE, "hdf5: attribute index %zu of %zu on %s", i, o->nAttr, o->zPath);
  return attrTake(o, i, pp);
}

int cairn_h5_attr_name(cairn_h5_obj *o, size_t i, const char **pz) {
  if (!o || !pz) return cairnErr(CAIRN_MISUSE, "cairn_h5_attr_name: NULL argument");
  CAIRN_TRY(loadAttrs(o));
  if (i >= o->nAttr) return cairnErr(CAIRN_RANGE, "hdf5: attribute index %zu of %zu on %s", i, o->nAttr, o->zPath);
  *pz = o->aAttr[i].zName;
  return CAIRN_OK;
}

int cairn_h5_link_get(cairn_h5_obj *g, size_t i, cairn_h5_link *pOut) {
  if (!g || !pOut) return cairnErr(CAIRN_MISUSE, "cairn_h5_link_get: NULL argument");
  CAIRN_TRY(loadLinks(g));
  if (i >= g->nLink) return cairnErr(CAIRN_RANGE, "hdf5: link index %zu of %zu in %s", i, g->nLink, g->zPath);
  const H5Link *k = &g->aLink[i];
  pOut->zName = k->zName;
  pOut->type = k->type;
  pOut->addr = k->addr;
  pOut->zTarget = k->zTarget;
  pOut->zFile = k->zFile;
  return CAIRN_OK;
}


int cairnH5ObjAttrEach(cairn_h5_obj *o, int (*x)(void *, size_t, const H5AttrView *), void *pArg) {
  CAIRN_TRY(loadAttrs(o));
  H5Space sp; /* only kind, rank, the first rank dims and nElem are set (not zeroed whole) */
  for (size_t i = 0; i < o->nAttr; i++) {
    H5Attr *a = &o->aAttr[i];
    H5AttrView v = {a->zName, a->pType, &a->space, a->pData, a->nData};
    int rc;
    if (a->pType) rc = x(pArg, i, &v);
    else {
      H5Type *t = NULL;
      rc = cairnH5AttrPeek(&o->h->f, a->pMsg, a->nMsg, a->msgAddr, &t, &sp, &v.pData, &v.nData);
      if (rc == CAIRN_OK) {
        v.pType = t, v.pSpace = &sp;
        rc = x(pArg, i, &v);
        cairnH5TypeFree(t);
      } else if (CAIRN_PRIMARY(rc) == CAIRN_NOMEM) {
        return rc;
      } else { /* not decodable: name only */
        v.pType = NULL, v.pSpace = NULL, v.pData = NULL, v.nData = 0;
        rc = x(pArg, i, &v);
      }
    }
    if (rc) return rc;
  }
  return CAIRN_OK;
}

int cairn_h5_info_get(cairn_h5_obj *o, cairn_h5_info *p) {
  if (!o || !p) return cairnErr(CAIRN_MISUSE, "cairn_h5_info_get: NULL argument");
  memset(p, 0, sizeof(*p));
  p->kind = o->kind;
  p->addr = o->o.addr;
  const H5Space *s = cairnH5ObjSpace(o);
  if (s) {
    p->space = s->kind;
    p->rank = s->rank;
    for (uint32_t i = 0; i < s->rank; i++) {
      p->dims[i] = s->aDim[i];
      p->maxdims[i] = s->aMax[i];
    }
    p->nElem = s->nElem;
  }
  const H5Type *t = cairnH5ObjTypeOf(o);
  if (t) {
    p->typeClass = t->cls;
    p->typeSize = t->size;
    const H5Type *b = t->cls == H5T_ENUM ? t->pBase : t;
    p->typeSigned = b->isSigned;
    p->typeBigEndian = b->bigEndian == 1;
    p->typeVlenString = t->cls == H5T_VLEN && t->vlenKind == 1;
  }
  if (o->kind == CAIRN_H5_DATASET) {
    p->layout = o->pD->layout.cls;
    if (p->layout == CAIRN_H5_CHUNKED) {
      for (uint32_t i = 0; i < o->pD->layout.rank; i++) p->chunk[i] = o->pD->layout.aChunk[i];
      p->chunkIndex = o->pD->layout.idx;
    }
    p->nFilter = o->pD->pipeline.n;
    if (!o->aFilt && !(o->aFilt = cairnMallocZero(H5_MAX_FILTERS * sizeof(cairn_h5_filter))))
      return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
    for (uint32_t i = 0; i < o->pD->pipeline.n; i++) {
      const H5Filter *fl = &o->pD->pipeline.a[i];
      o->aFilt[i].id = fl->id;
      o->aFilt[i].flags = fl->flags;
      o->aFilt[i].zName = cairnH5FilterName(fl);
      o->aFilt[i].nParam = CAIRN_MIN(fl->nParam, (uint32_t)CAIRN_ARRAY_SIZE(fl->aParam));
      o->aFilt[i].aParam = fl->aParam;
    }
    p->aFilter = o->aFilt;
  }
  if (o->kind != CAIRN_H5_ATTRIBUTE) {
    CAIRN_TRY(loadAttrs(o));
    p->nAttr = o->nAttr;
  }
  if (o->kind == CAIRN_H5_GROUP) {
    CAIRN_TRY(loadLinks(o));
    p->nLink = o->nLink;
  }
  return CAIRN_OK;
}
