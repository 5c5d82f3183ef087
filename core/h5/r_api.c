/*
** 2026-11-29
**
** core/h5/r_api.c - the public reader API of cairn/h5.h: files, objects by path (soft links
** followed, external links reported), info, links, attributes, reads with conversion, JSON.
*/
#include "h5int.h"

struct cairn_h5 {
  H5File f;
  int own;
  /* memory for one object in the handle's own allocation (H5_OBJ_SLOT bytes at pSlot): the
  ** usual open, get one dataset, read, close costs no allocation for the object. A handle
  ** closed while that object is open is freed when the object closes. */
  void *pSlot;
  uint8_t slotUsed, closed;
};
#define H5_OBJ_SLOT 8192u

struct cairn_h5_obj {
  cairn_h5 *h;
  int kind;
  char *zPath;
  H5Ohdr o;
  H5Dset *pD;        /* datasets (allocated only for them: the pipeline is large) */
  H5Type *pType;     /* committed datatypes (datasets use d.pType) */
  H5Attr attr;       /* attributes (own copy) */
  H5Link *aLink;
  size_t nLink;
  int linksLoaded;
  H5Attr *aAttr;
  size_t nAttr;
  int attrsLoaded;
  cairn_h5_filter *aFilt;
  uint8_t attrOwn;    /* attributes: attr.pType owned; 1: attr.pData too, 2: it is in this block */
  uint8_t pathInline; /* zPath lives in this object's allocation */
  uint8_t dsetInline; /* so does pD */
  uint8_t inSlot;     /* the allocation is the handle's object slot */
};

struct H5AddrPath {
  uint64_t addr;
  char *zPath;
};

static char *dupStr(const char *z) {
  size_t n = strlen(z);
  char *r = cairnMalloc(n + 1);
  if (r) memcpy(r, z, n + 1);
  return r;
}

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
/* From the message types present (o->typeMask): a layout makes a dataset; a symbol table, link
** info, link or group info message a group; a datatype without a dataspace a committed type. */
static int objKind(const H5Ohdr *o) {
  uint32_t m = o->typeMask;
  if (m & (1u << H5_MSG_LAYOUT)) return CAIRN_H5_DATASET;
  if (m & ((1u << H5_MSG_SYMTAB) | (1u << H5_MSG_LINKINFO) | (1u << H5_MSG_LINK) | (1u << H5_MSG_GROUPINFO))) return CAIRN_H5_GROUP;
  if ((m & (1u << H5_MSG_DATATYPE)) && !(m & (1u << H5_MSG_DATASPACE))) return CAIRN_H5_DATATYPE;
  return CAIRN_H5_GROUP;
}

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
  if (!m) return cairnErr(CAIRN_CORRUPT, "hdf5: dataset %s has no layout", ob->zPath); /* objKind saw one */
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
  int kind = objKind(po);
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

static const H5Type *objType(cairn_h5_obj *o) {
  return o->kind == CAIRN_H5_DATASET ? o->pD->pType : o->kind == CAIRN_H5_ATTRIBUTE ? o->attr.pType : o->pType;
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
static const H5Space *objSpace(cairn_h5_obj *o) {
  return o->kind == CAIRN_H5_DATASET ? &o->pD->space : o->kind == CAIRN_H5_ATTRIBUTE ? &o->attr.space : NULL;
}

int cairn_h5_info_get(cairn_h5_obj *o, cairn_h5_info *p) {
  if (!o || !p) return cairnErr(CAIRN_MISUSE, "cairn_h5_info_get: NULL argument");
  memset(p, 0, sizeof(*p));
  p->kind = o->kind;
  p->addr = o->o.addr;
  const H5Space *s = objSpace(o);
  if (s) {
    p->space = s->kind;
    p->rank = s->rank;
    for (uint32_t i = 0; i < s->rank; i++) {
      p->dims[i] = s->aDim[i];
      p->maxdims[i] = s->aMax[i];
    }
    p->nElem = s->nElem;
  }
  const H5Type *t = objType(o);
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

/* ---------------------------------------------------------------- reading */
static int toSel(const H5Space *s, const cairn_h5_sel *sel, H5Sel *out, uint64_t *pn, uint64_t *aShape, const char *zPath) {
  uint64_t n = s->kind == CAIRN_H5_NULL ? 0 : 1;
  if (sel && sel->rank != s->rank) return cairnErr(CAIRN_RANGE, "hdf5: selection of rank %u for %s of rank %u", sel->rank, zPath, s->rank);
  for (uint32_t i = 0; i < s->rank; i++) {
    if (sel) {
      out->start[i] = sel->start[i];
      out->stride[i] = sel->stride[i] ? sel->stride[i] : 1;
      out->count[i] = sel->count[i];
      out->block[i] = sel->block[i] ? sel->block[i] : 1;
    } else {
      out->start[i] = 0;
      out->stride[i] = 1;
      out->count[i] = s->aDim[i];
      out->block[i] = 1;
    }
    uint64_t e;
    if (cairnMulOverflow64(out->count[i], out->block[i], &e) || cairnMulOverflow64(n, e, &n))
      return cairnErr(CAIRN_RANGE, "hdf5: selection too large for %s", zPath);
    if (aShape) aShape[i] = e;
  }
  *pn = n;
  return CAIRN_OK;
}

/* Read the selection raw (file layout) into a new buffer. */
static int readRaw(cairn_h5_obj *o, const cairn_h5_sel *sel, uint8_t **pp, uint64_t *pn, uint64_t *aShape, uint32_t *pRank) {
  const H5Space *s = objSpace(o);
  const H5Type *t = objType(o);
  if (!s) return cairnErr(CAIRN_TYPE, "hdf5: %s is not a dataset or attribute", o->zPath);
  H5Sel hs;
  uint64_t n = 0, bytes;
  CAIRN_TRY(toSel(s, sel, &hs, &n, aShape, o->zPath));
  *pRank = s->rank;
  if (cairnMulOverflow64(n, t->size, &bytes) || bytes > ((uint64_t)1 << 40) || bytes > SIZE_MAX)
    return cairnErr(CAIRN_LIMIT, "hdf5: selection of %llu elements of %s is too large", (unsigned long long)n, o->zPath);
  uint8_t *p = cairnMalloc(bytes ? (size_t)bytes : 1);
  if (!p) return cairnErr(CAIRN_NOMEM, "hdf5: out of memory for %llu bytes of %s", (unsigned long long)bytes, o->zPath);
  int rc;
  if (o->kind == CAIRN_H5_DATASET) rc = cairnH5DsetReadRaw(o->pD, sel ? &hs : NULL, p, (size_t)bytes);
  else {
    H5Dset d;
    memset(&d, 0, sizeof(d));
    d.f = &o->h->f;
    d.zPath = o->zPath;
    d.pType = o->attr.pType;
    d.space = o->attr.space;
    d.layout.cls = CAIRN_H5_COMPACT;
    d.layout.pCompact = o->attr.pData;
    d.layout.size = o->attr.nData;
    rc = cairnH5DsetReadRaw(&d, sel ? &hs : NULL, p, (size_t)bytes);
  }
  if (rc) {
    cairnFree(p);
    return rc;
  }
  *pp = p;
  *pn = n;
  return CAIRN_OK;
}

int cairn_h5_read(cairn_h5_obj *o, const cairn_h5_sel *sel, cairn_h5_mtype m, void *buf, size_t nBuf) {
  if (!o || (!buf && nBuf)) return cairnErr(CAIRN_MISUSE, "cairn_h5_read: NULL argument");
  if (!sel && o->kind == CAIRN_H5_DATASET && cairnH5ConvertIsCopy(o->pD->pType, m))
    return cairnH5DsetReadRaw(o->pD, NULL, buf, nBuf); /* all of it, as stored: no conversion (it checks nBuf) */
  const H5Space *s = objSpace(o);
  const H5Type *t = objType(o);
  if (!s) return cairnErr(CAIRN_TYPE, "hdf5: %s is not a dataset or attribute", o->zPath);
  H5Sel hs;
  uint64_t n = 0;
  CAIRN_TRY(toSel(s, sel, &hs, &n, NULL, o->zPath));
  size_t ms = m == CAIRN_H5_NATIVE ? t->size : cairn_h5_mtype_size(m);
  if (ms == 0) return cairnErr(CAIRN_MISUSE, "cairn_h5_read: memory type %d", (int)m);
  uint64_t need;
  if (cairnMulOverflow64(n, ms, &need) || need > nBuf)
    return cairnErr(CAIRN_RANGE, "hdf5: buffer of %zu bytes too small for %llu elements of %s", nBuf, (unsigned long long)n, o->zPath);
  if (m != CAIRN_H5_NATIVE) {
    const H5Type *b = t->cls == H5T_ENUM ? t->pBase : t;
    if (b->cls != H5T_FIXED && b->cls != H5T_FLOAT && b->cls != H5T_BITFIELD)
      return cairnErr(CAIRN_TYPE, "hdf5: %s has a non-numeric datatype (class %u): read it as NATIVE or JSON", o->zPath, t->cls);
  }
  /* Read straight into the caller's buffer when the element fits, convert in place. */
  if (ms >= t->size || m == CAIRN_H5_NATIVE) {
    uint64_t raw = n * t->size;
    int rc;
    if (o->kind == CAIRN_H5_DATASET) rc = cairnH5DsetReadRaw(o->pD, sel ? &hs : NULL, buf, (size_t)raw);
    else if (!sel && raw <= o->attr.nData) {
      memcpy(buf, o->attr.pData, (size_t)raw);
      rc = CAIRN_OK;
    } else {
      uint8_t *p;
      uint64_t nn, shape[H5_MAX_RANK];
      uint32_t r;
      rc = readRaw(o, sel, &p, &nn, shape, &r);
      if (rc == CAIRN_OK) {
        memcpy(buf, p, (size_t)raw);
        cairnFree(p);
      }
    }
    if (rc) return rc;
    if (m == CAIRN_H5_NATIVE) {
      cairnH5ToNative(t, buf, n);
      return CAIRN_OK;
    }
    return cairnH5Convert(t, buf, n, m, buf);
  }
  uint8_t *p;
  uint64_t nn, shape[H5_MAX_RANK];
  uint32_t r;
  CAIRN_TRY(readRaw(o, sel, &p, &nn, shape, &r));
  int rc = cairnH5Convert(t, p, n, m, buf);
  cairnFree(p);
  return rc;
}

int cairn_h5_raw_extent(cairn_h5_obj *o, cairn_h5_mtype m, uint64_t *pOff, uint64_t *pn) {
  if (!o || !pOff || !pn) return cairnErr(CAIRN_MISUSE, "cairn_h5_raw_extent: NULL argument");
  if (o->kind != CAIRN_H5_DATASET || m == CAIRN_H5_NATIVE) return CAIRN_NOTFOUND;
  H5Dset *d = o->pD;
  const H5Layout *l = &d->layout;
  const H5Type *t = d->pType, *b = t->cls == H5T_ENUM ? t->pBase : t;
  size_t ms = cairn_h5_mtype_size(m);
  if (ms == 0 || d->pEfl || d->space.kind != CAIRN_H5_SIMPLE || l->cls != CAIRN_H5_CONTIGUOUS || l->addr == H5_UNDEF) return CAIRN_NOTFOUND;
  if (!b || b->bigEndian || b->bitOffset || b->size != ms || (b->precision && b->precision != 8 * b->size)) return CAIRN_NOTFOUND;
  int isFloatM = m == CAIRN_H5_F32 || m == CAIRN_H5_F64;
  if (b->cls == H5T_FLOAT) {
    /* the IEEE layouts of 4 and 8 bytes (cairnH5Convert's own test decides the same) */
    if (!isFloatM || !(b->size == 4 ? b->expLoc == 23 && b->expSize == 8 && b->manSize == 23 && b->expBias == 127
                                    : b->expLoc == 52 && b->expSize == 11 && b->manSize == 52 && b->expBias == 1023) || b->manLoc)
      return CAIRN_NOTFOUND;
  } else if (b->cls == H5T_FIXED || b->cls == H5T_BITFIELD) {
    if (isFloatM) return CAIRN_NOTFOUND;
  } else {
    return CAIRN_NOTFOUND;
  }
  uint64_t n, abs;
  if (cairnMulOverflow64(d->space.nElem, ms, &n) || (l->size != UINT64_MAX && l->size < n)) return CAIRN_NOTFOUND;
  H5File *f = &o->h->f;
  if (cairnAddOverflow64(l->addr, f->base, &abs)) return CAIRN_NOTFOUND;
  CAIRN_TRY(cairnH5Reach(f, abs, n));
  if (abs > f->fileSize || n > f->fileSize - abs)
    return cairnErr(CAIRN_CORRUPT, "hdf5: data of %s (%llu bytes at address %llu) goes past the end of the file (%llu bytes)", o->zPath,
                    (unsigned long long)n, (unsigned long long)l->addr, (unsigned long long)f->fileSize);
  *pOff = abs;
  *pn = n;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- object reference paths */
static int buildAddrMap(cairn_h5 *h);
static const char *refPath(H5File *f, uint64_t addr) {
  cairn_h5 *h = (cairn_h5 *)((char *)f - offsetof(cairn_h5, f));
  if (!f->aAddrPath && buildAddrMap(h)) return NULL;
  for (size_t i = 0; i < f->nAddrPath; i++)
    if (f->aAddrPath[i].addr == addr) return f->aAddrPath[i].zPath;
  return NULL;
}

static int addPath(H5File *f, uint64_t addr, const char *z, size_t *pCap) {
  for (size_t i = 0; i < f->nAddrPath; i++)
    if (f->aAddrPath[i].addr == addr) return 1; /* seen: do not descend again */
  if (CAIRN_GROW(f->aAddrPath, *pCap, f->nAddrPath + 1, "hdf5: object reference paths")) return -1;
  f->aAddrPath[f->nAddrPath].addr = addr;
  f->aAddrPath[f->nAddrPath].zPath = dupStr(z);
  if (!f->aAddrPath[f->nAddrPath].zPath) return -1;
  f->nAddrPath++;
  return 0;
}

static int walkMap(cairn_h5 *h, uint64_t addr, const char *zPath, size_t *pCap, int depth) {
  H5File *f = &h->f;
  if (depth > 64 || f->nAddrPath > 1000000) return CAIRN_OK;
  H5Ohdr o;
  CAIRN_TRY(cairnH5OhdrLoad(f, addr, &o));
  int kind = objKind(&o);
  H5Link *a = NULL;
  size_t n = 0;
  int rc = kind == CAIRN_H5_GROUP ? cairnH5GroupLinks(f, &o, &a, &n) : CAIRN_OK;
  cairnH5OhdrFree(&o);
  for (size_t i = 0; rc == CAIRN_OK && i < n; i++) {
    if (a[i].type != CAIRN_H5_LINK_HARD) continue;
    size_t nz = strlen(zPath) + strlen(a[i].zName) + 2;
    char *z = cairnMalloc(nz);
    if (!z) {
      rc = cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
      break;
    }
    cairnFormat(z, nz, "%s/%s", strcmp(zPath, "/") == 0 ? "" : zPath, a[i].zName);
    int seen = addPath(f, a[i].addr, z, pCap);
    if (seen < 0) rc = cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
    else if (seen == 0) rc = walkMap(h, a[i].addr, z, pCap, depth + 1);
    cairnFree(z);
  }
  cairnH5LinksFree(a, n);
  return rc;
}

static int buildAddrMap(cairn_h5 *h) {
  size_t cap = 0;
  H5File *f = &h->f;
  if (addPath(f, f->rootAddr, "/", &cap) < 0) return CAIRN_NOMEM;
  return walkMap(h, f->rootAddr, "/", &cap, 0);
}

int cairn_h5_read_json(cairn_h5_obj *o, const cairn_h5_sel *sel, char **pz, size_t *pn) {
  if (!o || !pz) return cairnErr(CAIRN_MISUSE, "cairn_h5_read_json: NULL argument");
  *pz = NULL;
  uint8_t *p;
  uint64_t n, shape[H5_MAX_RANK];
  uint32_t r;
  CAIRN_TRY(readRaw(o, sel, &p, &n, shape, &r));
  const H5Space *s = objSpace(o);
  int rc;
  if (s->kind == CAIRN_H5_NULL) {
    rc = CAIRN_OK;
    *pz = dupStr("null");
    if (!*pz) rc = cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
    else if (pn) *pn = 4;
  } else {
    rc = cairnH5Json(&o->h->f, objType(o), p, r, shape, refPath, pz, pn);
  }
  cairnFree(p);
  return rc;
}

int cairn_h5_type_json(cairn_h5_obj *o, char **pz, size_t *pn) {
  if (!o || !pz) return cairnErr(CAIRN_MISUSE, "cairn_h5_type_json: NULL argument");
  const H5Type *t = objType(o);
  if (!t) return cairnErr(CAIRN_TYPE, "hdf5: %s has no datatype", o->zPath);
  return cairnH5TypeJson(t, pz, pn);
}

/* ---------------------------------------------------------------- info as JSON */
int cairn_h5_info_json(cairn_h5_obj *o, char **pz, size_t *pn) {
  if (!o || !pz) return cairnErr(CAIRN_MISUSE, "cairn_h5_info_json: NULL argument");
  *pz = NULL;
  cairn_h5_info in;
  CAIRN_TRY(cairn_h5_info_get(o, &in));
  static const char *azKind[] = {"", "group", "dataset", "datatype", "attribute"};
  static const char *azLayout[] = {"compact", "contiguous", "chunked", "virtual"};
  static const char *azIdx[] = {"btree1", "single", "implicit", "farray", "earray", "btree2"};
  CairnSb s = {0};
  cairnSbStr(&s, "{\"kind\":\"");
  cairnSbStr(&s, in.kind >= 1 && in.kind <= 4 ? azKind[in.kind] : "");
  cairnSbStr(&s, "\",\"path\":");
  cairnSbJsonStr(&s, o->zPath, strlen(o->zPath), 1);
  if (o->kind != CAIRN_H5_ATTRIBUTE) {
    cairnSbStr(&s, ",\"addr\":");
    cairnSbU64(&s, in.addr);
  }
  const H5Space *sp = objSpace(o);
  if (sp) {
    cairnSbStr(&s, in.space == CAIRN_H5_NULL ? ",\"shape\":null,\"maxshape\":null" : ",\"shape\":[");
    if (in.space != CAIRN_H5_NULL) {
      for (unsigned i = 0; i < in.rank; i++) {
        if (i) cairnSbStr(&s, ",");
        cairnSbU64(&s, in.dims[i]);
      }
      cairnSbStr(&s, "],\"maxshape\":[");
      for (unsigned i = 0; i < in.rank; i++) {
        if (i) cairnSbStr(&s, ",");
        if (in.maxdims[i] == UINT64_MAX) cairnSbStr(&s, "null");
        else cairnSbU64(&s, in.maxdims[i]);
      }
      cairnSbStr(&s, "]");
    }
  }
  const H5Type *t = objType(o);
  if (t) {
    cairnSbStr(&s, ",\"type\":");
    cairnH5TypeJsonSb(&s, t);
  }
  if (o->kind == CAIRN_H5_DATASET) {
    cairnSbStr(&s, ",\"layout\":\"");
    cairnSbStr(&s, in.layout >= 0 && in.layout <= 3 ? azLayout[in.layout] : "");
    cairnSbStr(&s, "\"");
    if (in.layout == CAIRN_H5_CHUNKED) {
      cairnSbStr(&s, ",\"chunks\":[");
      for (unsigned i = 0; i < in.rank; i++) {
        if (i) cairnSbStr(&s, ",");
        cairnSbU64(&s, in.chunk[i]);
      }
      cairnSbStr(&s, "],\"chunkIndex\":\"");
      cairnSbStr(&s, in.chunkIndex >= 0 && in.chunkIndex <= 5 ? azIdx[in.chunkIndex] : "");
      cairnSbStr(&s, "\"");
    }
    cairnSbStr(&s, ",\"filters\":[");
    for (unsigned i = 0; i < in.nFilter; i++) {
      if (i) cairnSbStr(&s, ",");
      cairnSbStr(&s, "{\"id\":");
      cairnSbU64(&s, in.aFilter[i].id);
      cairnSbStr(&s, ",\"name\":");
      cairnSbJsonStr(&s, in.aFilter[i].zName, strlen(in.aFilter[i].zName), 1);
      cairnSbStr(&s, ",\"params\":[");
      for (unsigned k = 0; k < in.aFilter[i].nParam; k++) {
        if (k) cairnSbStr(&s, ",");
        cairnSbU64(&s, in.aFilter[i].aParam[k]);
      }
      cairnSbStr(&s, "]}");
    }
    cairnSbStr(&s, "]");
    if (o->pD->pEfl) {
      int rc = cairnH5DsetExternalJson(o->pD, &s);
      if (rc) return cairnSbDone(&s, rc, "info_json", pz, pn);
    }
  }
  if (o->kind != CAIRN_H5_ATTRIBUTE) {
    cairnSbStr(&s, ",\"attrs\":[");
    for (size_t i = 0; i < o->nAttr; i++) {
      if (i) cairnSbStr(&s, ",");
      cairnSbJsonStr(&s, o->aAttr[i].zName, strlen(o->aAttr[i].zName), 1);
    }
    cairnSbStr(&s, "]");
  }
  if (o->kind == CAIRN_H5_GROUP) {
    cairnSbStr(&s, ",\"links\":[");
    for (size_t i = 0; i < o->nLink; i++) {
      const H5Link *k = &o->aLink[i];
      if (i) cairnSbStr(&s, ",");
      cairnSbStr(&s, "{\"name\":");
      cairnSbJsonStr(&s, k->zName, strlen(k->zName), 1);
      cairnSbStr(&s, k->type == CAIRN_H5_LINK_HARD ? ",\"type\":\"hard\"" : k->type == CAIRN_H5_LINK_SOFT ? ",\"type\":\"soft\"" : ",\"type\":\"external\"");
      if (k->zTarget) {
        cairnSbStr(&s, ",\"target\":");
        cairnSbJsonStr(&s, k->zTarget, strlen(k->zTarget), 1);
      }
      if (k->zFile) {
        cairnSbStr(&s, ",\"file\":");
        cairnSbJsonStr(&s, k->zFile, strlen(k->zFile), 1);
      }
      cairnSbStr(&s, "}");
    }
    cairnSbStr(&s, "]");
  }
  cairnSbStr(&s, "}");
  return cairnSbDone(&s, CAIRN_OK, "hdf5: info JSON", pz, pn);
}
