/*
** 2026-12-02
**
** core/h5/w_path.c - the HDF5 writer's names: paths to objects (loaded on demand from the
** committed file), links (hard, soft, external; symbol-table and dense groups turned compact),
** the object-reference scan, named datatypes, and attributes (version 3, inline).
*/
#include "h5/h5w.h"


/* ---------------------------------------------------------------- paths */
int cairnH5wLinkObj(cairn_h5w *w, H5wObj *g, int iLink, H5wObj **pp) {
  H5wLink *l = &g->aLink[iLink];
  if (!l->pObj) {
    if (l->addr == H5_UNDEF) return cairnErr(CAIRN_UNSUPPORTED, "'%s' is a soft or external link", l->zName);
    int rc = cairnH5wOhLoad(w, l->addr, g, &l->pObj);
    if (rc) return rc;
    if (g->zPath) { /* its path in the committed file, should the reader be needed for it */
      size_t n = strlen(g->zPath) + strlen(l->zName) + 2;
      char *z = cairnMalloc(n);
      if (z) cairnFormat(z, n, "%s/%s", strcmp(g->zPath, "/") ? g->zPath : "", l->zName);
      l->pObj->zPath = z;
    }
  }
  *pp = l->pObj;
  return CAIRN_OK;
}

/* Links kept outside the header (symbol-table groups of libver earliest, dense groups of libver
** latest) are read through cairn's reader (cairn/h5.h) into aLink, and the group's messages
** become those of a compact group: Link Info without heap, Group Info, one Link message per
** link once the header is rewritten. Until then the file keeps using the old storage. */
static int linkMsgRaw(const cairn_h5_link *l, H5wMsg *m) {
  /* A user-defined link type (65-255, or a reserved one) carries a value the reader does not
  ** keep: rewriting it would lose it, so the group is left as it is. */
  if (l->type != CAIRN_H5_LINK_SOFT && l->type != CAIRN_H5_LINK_EXTERNAL)
    return cairnErr(CAIRN_UNSUPPORTED, "link '%s' has type %d (user-defined): its group cannot be rewritten", l->zName, l->type);
  size_t nName = strlen(l->zName), nT = strlen(l->zTarget ? l->zTarget : ""), nF = l->zFile ? strlen(l->zFile) : 0;
  size_t nInfo = l->type == CAIRN_H5_LINK_SOFT ? 2 + nT : 2 + 1 + nF + 1 + nT + 1;
  if (nT > 0xffff - 3 || nF > 0xffff - 3 - nT || nName > 0xffffffffu)
    return cairnErr(CAIRN_RANGE, "link '%.*s': name or target too long for a link message", 64, l->zName);
  int lenCode = nName < 256 ? 0 : nName < 65536 ? 1 : 2; /* the name's length in 1, 2 or 4 bytes */
  size_t n = 2 + 1 + ((size_t)1 << lenCode) + nName + nInfo;
  uint8_t *p = cairnMalloc(n);
  if (!p) return cairnErr(CAIRN_NOMEM, "link: out of memory");
  size_t i = 0;
  p[i++] = 1;
  p[i++] = (uint8_t)(0x08 | lenCode);
  p[i++] = (uint8_t)l->type;
  if (lenCode == 0) p[i++] = (uint8_t)nName;
  else if (lenCode == 1) cairnPutLE16(p + i, (uint16_t)nName), i += 2;
  else cairnPutLE32(p + i, (uint32_t)nName), i += 4;
  memcpy(p + i, l->zName, nName), i += nName;
  if (l->type == CAIRN_H5_LINK_SOFT) {
    cairnPutLE16(p + i, (uint16_t)nT), i += 2;
    memcpy(p + i, l->zTarget, nT), i += nT;
  } else {
    cairnPutLE16(p + i, (uint16_t)(nInfo - 2)), i += 2;
    p[i++] = 0;
    memcpy(p + i, l->zFile, nF + 1), i += nF + 1;
    memcpy(p + i, l->zTarget ? l->zTarget : "", nT + 1), i += nT + 1;
  }
  *m = (H5wMsg){H5_MSG_LINK, 0, 0, (uint32_t)n, p};
  return CAIRN_OK;
}

static void linksDrop(H5wObj *g) {
  for (int i = 0; i < g->nLink; i++) cairnFree(g->aLink[i].zName), cairnFree(g->aLink[i].raw.p);
  g->nLink = 0;
  g->nBigLink = 0;
  if (g->nHash) memset(g->aHash, 0, sizeof(int) * (size_t)g->nHash);
}

int cairnH5wMaterializeLinks(cairn_h5w *w, H5wObj *g) {
  if (!g->bDenseLinks) return CAIRN_OK;
  /* dense storage this writer wrote is loaded as it is and edited in place (w_dense.c) */
  for (int i = 0; i < g->nMsg; i++) {
    const H5wMsg *m = &g->aMsg[i];
    if (m->type != H5_MSG_LINKINFO || m->n < 18 || m->p[0] != 0 || m->p[1] != 0 || g->nLink) continue;
    int rc = cairnH5wDenseLoad(w, g, cairnGetLE64(m->p + 2), cairnGetLE64(m->p + 10));
    if (rc == CAIRN_OK) {
      g->bDenseLinks = 0;
      return CAIRN_OK;
    }
    linksDrop(g);
    if (rc != CAIRN_UNSUPPORTED) return rc;
    cairn_clearerr();
  }
  if (!g->zPath) return cairnErr(CAIRN_UNSUPPORTED, "a group with links outside its header that has no path");
  CAIRN_TRY(cairnH5wFlush(w));
  cairn_h5 *h = NULL;
  cairn_h5_obj *r = NULL;
  cairn_h5_info in;
  int rc = cairn_h5_open(w->f, 0, &h); /* a fresh reader: it sees the committed file */
  if (!rc) rc = cairn_h5_get(h, g->zPath, &r);
  if (!rc) rc = cairn_h5_info_get(r, &in);
  for (size_t i = 0; !rc && i < in.nLink; i++) {
    cairn_h5_link l;
    rc = cairn_h5_link_get(r, i, &l);
    if (rc) break;
    if (l.type == CAIRN_H5_LINK_HARD) rc = cairnH5wLinkPush(g, l.zName, strlen(l.zName), l.addr, NULL, NULL);
    else {
      H5wMsg m;
      rc = linkMsgRaw(&l, &m);
      if (!rc && (rc = cairnH5wLinkPush(g, l.zName, strlen(l.zName), H5_UNDEF, NULL, &m)) != CAIRN_OK) cairnFree(m.p);
    }
  }
  cairn_h5_obj_close(r);
  cairn_h5_close(h);
  if (rc) { /* back to no links: the group stays as it was */
    linksDrop(g);
    return rc;
  }
  int bGi = 0;
  for (int i = g->nMsg - 1; i >= 0; i--) {
    uint8_t t = g->aMsg[i].type;
    if (t == H5_MSG_SYMTAB || t == H5_MSG_LINKINFO) cairnH5wObjDelMsg(g, i);
    else if (t == H5_MSG_GROUPINFO) bGi = 1;
  }
  uint8_t li[18] = {0, 0}, gi[2] = {0, 0};
  cairnPutLE64(li + 2, H5_UNDEF);
  cairnPutLE64(li + 10, H5_UNDEF);
  rc = cairnH5wObjAddMsg(g, H5_MSG_LINKINFO, 0, li, sizeof li);
  if (!rc && !bGi) rc = cairnH5wObjAddMsg(g, H5_MSG_GROUPINFO, 0, gi, sizeof gi);
  if (rc) return rc;
  g->bDenseLinks = 0;
  g->bConverted = 1;
  return CAIRN_OK;
}

/* Walk zPath[0..nPath) from the root. */
static int walk(cairn_h5w *w, const char *zPath, size_t nPath, H5wObj **ppObj) {
  H5wObj *o = w->pRoot;
  size_t i = 0;
  while (i < nPath) {
    while (i < nPath && zPath[i] == '/') i++;
    if (i == nPath) break;
    size_t j = i;
    while (j < nPath && zPath[j] != '/') j++;
    if (!o->bGroup) return cairnErr(CAIRN_TYPE, "'%.*s' is not a group", (int)i, zPath);
    CAIRN_TRY(cairnH5wMaterializeLinks(w, o));
    int k = cairnH5wLinkFind(o, zPath + i, j - i);
    if (k < 0) return cairnErr(CAIRN_NOTFOUND, "no object '%s'", zPath);
    CAIRN_TRY(cairnH5wLinkObj(w, o, k, &o));
    i = j;
  }
  *ppObj = o;
  return CAIRN_OK;
}

int cairnH5wLookup(cairn_h5w *w, const char *zPath, H5wObj **ppObj) { return walk(w, zPath, strlen(zPath), ppObj); }

/* An object with several hard links cannot move: the links the writer does not rewrite would
** keep its old address (which copy-on-write frees). Changing it, or anything below it (which
** rewrites it), is refused. */
/* Addresses of the headers verified so far: an object reached by several hard links (or a
** cycle in a damaged file) is walked once. */
int cairnH5wSeenAdd(H5wSeen *s, uint64_t addr) { /* 1 if new, 0 if seen, -1 out of memory */
  if (addr == H5_UNDEF) return 1;
  if (2 * (s->n + 1) > s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 64;
    uint64_t *a = cairnMalloc(sizeof(uint64_t) * cap);
    if (!a) return -1;
    memset(a, 0xff, sizeof(uint64_t) * cap);
    for (size_t i = 0; i < s->cap; i++)
      if (s->a[i] != H5_UNDEF) {
        size_t k = (size_t)(s->a[i] * 0x9E3779B97F4A7C15ull) & (cap - 1);
        while (a[k] != H5_UNDEF) k = (k + 1) & (cap - 1);
        a[k] = s->a[i];
      }
    cairnFree(s->a);
    s->a = a;
    s->cap = cap;
  }
  size_t k = (size_t)(addr * 0x9E3779B97F4A7C15ull) & (s->cap - 1);
  while (s->a[k] != H5_UNDEF) {
    if (s->a[k] == addr) return 0;
    k = (k + 1) & (s->cap - 1);
  }
  s->a[k] = addr;
  s->n++;
  return 1;
}

/* Object references (libhdf5 stores header addresses in data) go stale when the writer moves
** a header, so a file that holds any is not edited. Compound, array and vlen types are
** checked conservatively: any byte that could be a reference class/version byte counts. */
int cairnH5wTypeMayHoldRef(const uint8_t *p, size_t n) {
  if (n < 1) return 0;
  int cls = p[0] & 0x0f;
  if (cls == 7) return 1;
  if (cls != 6 && cls != 9 && cls != 10) return 0;
  for (size_t i = 8; i < n; i++)
    if ((p[i] & 0x0f) == 7 && (p[i] >> 4) >= 1 && (p[i] >> 4) <= 4) return 1;
  return 0;
}
/* For messages the writer does not resolve (shared datatypes and attributes): ask the reader
** whether this object's type or any of its attributes' types is a reference. */
static int readerHasRefs(cairn_h5w *w, cairn_h5 **ph, const char *zPath, int *pb) {
  if (!*ph) CAIRN_TRY(cairn_h5_open(w->f, 0, ph));
  cairn_h5_obj *r = NULL;
  cairn_h5_info in;
  int rc = cairn_h5_get(*ph, zPath, &r);
  if (!rc) rc = cairn_h5_info_get(r, &in);
  for (size_t i = 0; !rc && i <= in.nAttr && !*pb; i++) {
    cairn_h5_obj *a = NULL;
    if (i < in.nAttr) rc = cairn_h5_attr_at(r, i, &a);
    else if (in.kind != CAIRN_H5_DATASET && in.kind != CAIRN_H5_DATATYPE) break;
    char *z = NULL;
    size_t n;
    if (!rc) rc = cairn_h5_type_json(a ? a : r, &z, &n);
    if (!rc && strstr(z, "\"class\":\"reference\"")) *pb = 1;
    cairn_free(z);
    cairn_h5_obj_close(a);
  }
  cairn_h5_obj_close(r);
  return rc;
}

static int scanRefs(cairn_h5w *w, H5wObj *o, int depth, H5wSeen *seen, cairn_h5 **ph) {
  if (depth > 100) return cairnErr(CAIRN_CORRUPT, "groups nested deeper than 100 (a cycle?)");
  int bAsk = 0;
  for (int i = 0; i < o->nMsg; i++)
    if ((o->aMsg[i].flags & H5_MSGF_SHARED) && (o->aMsg[i].type == H5_MSG_DATATYPE || o->aMsg[i].type == H5_MSG_ATTR)) bAsk = 1;
  if (bAsk) {
    int b = 0;
    if (!o->zPath) return cairnErr(CAIRN_UNSUPPORTED, "shared messages in an object without a path");
    CAIRN_TRY(readerHasRefs(w, ph, o->zPath, &b));
    if (b) w->bHasRefs |= 1;
  }
  for (int i = 0; i < o->nMsg && !w->bHasRefs; i++) {
    const H5wMsg *m = &o->aMsg[i];
    if (m->flags & H5_MSGF_SHARED) continue;
    if (m->type == H5_MSG_DATATYPE && cairnH5wTypeMayHoldRef(m->p, m->n)) w->bHasRefs = 1;
    if (m->type == H5_MSG_ATTR && m->n >= 8 && m->p[0] >= 1 && m->p[0] <= 3) {
      size_t nName = cairnGetLE16(m->p + 2), nType = cairnGetLE16(m->p + 4);
      size_t off = (m->p[0] == 3 ? 9 : 8) + (m->p[0] == 1 ? (nName + 7) & ~(size_t)7 : nName);
      if (off + nType <= m->n && cairnH5wTypeMayHoldRef(m->p + off, nType)) w->bHasRefs = 1;
    }
  }
  if (o->bDenseAttrs) w->bHasRefs |= 2; /* not looked at: treated as possibly holding references */
  if (o->bGroup) CAIRN_TRY(cairnH5wMaterializeLinks(w, o));
  for (int i = 0; i < o->nLink && !w->bHasRefs; i++) {
    H5wLink *l = &o->aLink[i];
    if (l->addr == H5_UNDEF && !l->pObj) continue;
    int isNew = cairnH5wSeenAdd(seen, l->pObj ? l->pObj->addr : l->addr);
    if (isNew < 0) return cairnErr(CAIRN_NOMEM, "out of memory");
    if (!isNew) continue;
    H5wObj *c;
    CAIRN_TRY(cairnH5wLinkObj(w, o, i, &c));
    CAIRN_TRY(scanRefs(w, c, depth + 1, seen, ph));
  }
  return CAIRN_OK;
}

int cairnH5wCheckRefs(cairn_h5w *w, const char *zPath) {
  if (!w->bRefScanned) {
    H5wSeen seen = {NULL, 0, 0};
    cairn_h5 *h = NULL;
    CAIRN_TRY(cairnH5wFlush(w));
    int rc = cairnH5wSeenAdd(&seen, w->pRoot->addr) < 0 ? cairnErr(CAIRN_NOMEM, "out of memory") : scanRefs(w, w->pRoot, 0, &seen, &h);
    cairn_h5_close(h);
    cairnFree(seen.a);
    if (rc) return rc;
    w->bRefScanned = 1;
  }
  if (w->bHasRefs & 1)
    return cairnErr(CAIRN_UNSUPPORTED, "'%s': the file holds object references, which moving any object header would break", zPath);
  return CAIRN_OK;
}

int cairnH5wCheckChain(H5wObj *o, const char *zPath) {
  /* a committed datatype is referred to by address from the datasets that use it */
  if (!o->pDset && !o->bGroup && o->addr != H5_UNDEF)
    for (int i = 0; i < o->nMsg; i++)
      if (o->aMsg[i].type == H5_MSG_DATATYPE)
        return cairnErr(CAIRN_UNSUPPORTED, "'%s' is a committed datatype: datasets refer to it by address, so it cannot move", zPath);
  for (H5wObj *p = o; p; p = p->pParent)
    for (int i = 0; i < p->nMsg; i++)
      if (p->aMsg[i].type == H5_MSG_REFCOUNT && p->aMsg[i].n >= 5 && cairnGetLE32(p->aMsg[i].p + 1) > 1)
        return cairnErr(CAIRN_UNSUPPORTED, "'%s': an object on its path has %u hard links (editing it would leave the others stale)",
                        zPath, cairnGetLE32(p->aMsg[i].p + 1));
  return CAIRN_OK;
}

/* For creating zPath: its parent group and the last name, which must not exist. */
int cairnH5wCreateChild(cairn_h5w *w, const char *zPath, H5wObj **ppParent, const char **pzLeaf) {
  size_t n = strlen(zPath);
  while (n > 0 && zPath[n - 1] == '/') n--;
  size_t s = n;
  while (s > 0 && zPath[s - 1] != '/') s--;
  if (s == n) return cairnErr(CAIRN_MISUSE, "path '%s' has no name", zPath);
  if (n - s > 0xffff || n != strlen(zPath)) return cairnErr(CAIRN_MISUSE, "path '%s': bad name", zPath);
  if (zPath[s] == '.' && n - s == 1) return cairnErr(CAIRN_MISUSE, "path '%s': '.' is not a name", zPath);
  H5wObj *g;
  CAIRN_TRY(walk(w, zPath, s, &g));
  if (!g->bGroup) return cairnErr(CAIRN_TYPE, "'%.*s' is not a group", (int)s, zPath);
  CAIRN_TRY(cairnH5wMaterializeLinks(w, g));
  if (cairnH5wLinkFind(g, zPath + s, n - s) >= 0) return cairnErr(CAIRN_EXISTS, "'%s' already exists", zPath);
  CAIRN_TRY(cairnH5wCheckChain(g, zPath));
  CAIRN_TRY(cairnH5wCheckRefs(w, zPath));
  *ppParent = g;
  *pzLeaf = zPath + s;
  return CAIRN_OK;
}

static int checkWritable(cairn_h5w *w, const char *zWhat) {
  if (!w) return cairnErr(CAIRN_MISUSE, "%s: NULL writer", zWhat);
  if (w->rcFatal) return cairnErr(w->rcFatal, "%s: the writer failed earlier and must be closed", zWhat);
  if (w->bReadOnly) return cairnErr(CAIRN_READONLY, "%s: file opened read-only", zWhat);
  return CAIRN_OK;
}

/* Attribute Info (version 0, no creation order, no dense storage). libhdf5 counts the
** attributes of a version-2 header through this message (H5Oget_info reports 0 without it). */
int cairnH5wEnsureAinfo(H5wObj *o) {
  for (int i = 0; i < o->nMsg; i++)
    if (o->aMsg[i].type == H5_MSG_AINFO) return CAIRN_OK;
  uint8_t ai[18] = {0, 0};
  cairnPutLE64(ai + 2, H5_UNDEF);
  cairnPutLE64(ai + 10, H5_UNDEF);
  return cairnH5wObjAddMsg(o, H5_MSG_AINFO, 0, ai, sizeof ai);
}

/* Link Info (no creation order, no dense storage) + Group Info (defaults) + Attribute Info. */
int cairnH5wGroupInitMsgs(H5wObj *g) {
  uint8_t li[18] = {0, 0};
  cairnPutLE64(li + 2, H5_UNDEF);
  cairnPutLE64(li + 10, H5_UNDEF);
  uint8_t gi[2] = {0, 0};
  g->bGroup = 1;
  CAIRN_TRY(cairnH5wObjAddMsg(g, H5_MSG_LINKINFO, 0, li, sizeof li));
  CAIRN_TRY(cairnH5wObjAddMsg(g, H5_MSG_GROUPINFO, 0, gi, sizeof gi));
  return cairnH5wEnsureAinfo(g);
}

int cairn_h5w_group(cairn_h5w *w, const char *zPath) {
  CAIRN_TRY(checkWritable(w, "cairn_h5w_group"));
  if (!zPath) return cairnErr(CAIRN_MISUSE, "cairn_h5w_group: NULL path");
  H5wObj *g, *c;
  const char *zLeaf;
  CAIRN_TRY(cairnH5wCreateChild(w, zPath, &g, &zLeaf));
  if (!(c = cairnH5wObjNew(g))) return cairnErr(CAIRN_NOMEM, "group '%s': out of memory", zPath);
  int rc = cairnH5wGroupInitMsgs(c);
  if (!rc) rc = cairnH5wLinkAdd(g, zLeaf, c);
  if (rc) {
    cairnH5wObjFree(c);
    return rc;
  }
  w->bChanged = 1;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- links, named types */
static int addRawLink(cairn_h5w *w, const char *zPath, int type, const char *zFile, const char *zTarget, const char *zWhat) {
  CAIRN_TRY(checkWritable(w, zWhat));
  if (!zPath || !zTarget || !zTarget[0] || (type == CAIRN_H5_LINK_EXTERNAL && (!zFile || !zFile[0])))
    return cairnErr(CAIRN_MISUSE, "%s: bad arguments", zWhat);
  if (strlen(zTarget) > 60000 || (zFile && strlen(zFile) > 4000)) return cairnErr(CAIRN_RANGE, "%s: target too long", zWhat);
  H5wObj *g;
  const char *zLeaf;
  CAIRN_TRY(cairnH5wCreateChild(w, zPath, &g, &zLeaf));
  cairn_h5_link l = {zLeaf, type, 0, zTarget, zFile};
  H5wMsg m;
  CAIRN_TRY(linkMsgRaw(&l, &m));
  int rc = cairnH5wLinkPush(g, zLeaf, strlen(zLeaf), H5_UNDEF, NULL, &m);
  if (rc) {
    cairnFree(m.p);
    return rc;
  }
  cairnH5wObjDirty(g);
  w->bChanged = 1;
  return CAIRN_OK;
}
int cairn_h5w_softlink(cairn_h5w *w, const char *zPath, const char *zTarget) {
  return addRawLink(w, zPath, CAIRN_H5_LINK_SOFT, NULL, zTarget, "cairn_h5w_softlink");
}
int cairn_h5w_extlink(cairn_h5w *w, const char *zPath, const char *zFile, const char *zTarget) {
  return addRawLink(w, zPath, CAIRN_H5_LINK_EXTERNAL, zFile, zTarget, "cairn_h5w_extlink");
}

int cairn_h5w_named_type(cairn_h5w *w, const char *zPath, const cairn_h5w_type *t) {
  CAIRN_TRY(checkWritable(w, "cairn_h5w_named_type"));
  if (!zPath || !t) return cairnErr(CAIRN_MISUSE, "cairn_h5w_named_type: NULL argument");
  H5wObj *g, *c;
  const char *zLeaf;
  CAIRN_TRY(cairnH5wCreateChild(w, zPath, &g, &zLeaf));
  if (!(c = cairnH5wObjNew(g))) return cairnErr(CAIRN_NOMEM, "named type '%s': out of memory", zPath);
  uint8_t *te;
  size_t tn;
  int rc = cairnH5wTypeEncode(t, &te, &tn);
  if (!rc) {
    rc = cairnH5wObjAddMsg(c, H5_MSG_DATATYPE, 1, te, tn);
    cairnFree(te);
  }
  if (!rc) rc = cairnH5wEnsureAinfo(c);
  if (!rc) rc = cairnH5wLinkAdd(g, zLeaf, c);
  if (rc) {
    cairnH5wObjFree(c);
    return rc;
  }
  w->bChanged = 1;
  return CAIRN_OK;
}

/* ---------------------------------------------------------------- attributes */
static int attrName(const H5wMsg *m, const char **pz, size_t *pn) {
  if (m->n < 8 || (m->p[0] != 1 && m->p[0] != 2 && m->p[0] != 3)) return 0;
  size_t nn = cairnGetLE16(m->p + 2);
  size_t off = m->p[0] == 3 ? 9 : 8;
  if (nn == 0 || off + nn > m->n) return 0;
  *pz = (const char *)m->p + off;
  *pn = strnlen(*pz, nn);
  return 1;
}
static int attrFind(H5wObj *o, const char *zName) {
  size_t n = strlen(zName);
  for (int i = 0; i < o->nMsg; i++) {
    const char *z;
    size_t nz;
    if (o->aMsg[i].type == H5_MSG_ATTR && attrName(&o->aMsg[i], &z, &nz) && nz == n && memcmp(z, zName, n) == 0) return i;
  }
  return -1;
}

int cairn_h5w_attr(cairn_h5w *w, const char *zObj, const char *zName, const cairn_h5w_type *t, int rank,
                   const uint64_t *dims, const void *pData) {
  CAIRN_TRY(checkWritable(w, "cairn_h5w_attr"));
  if (!zObj || !zName || !zName[0] || !t || rank < 0 || rank > CAIRN_H5W_MAXRANK || (rank && !dims) || !pData)
    return cairnErr(CAIRN_MISUSE, "cairn_h5w_attr: bad arguments for '%s'", zName ? zName : "(null)");
  H5wObj *o;
  CAIRN_TRY(cairnH5wLookup(w, zObj, &o));
  CAIRN_TRY(cairnH5wCheckChain(o, zObj));
  CAIRN_TRY(cairnH5wCheckRefs(w, zObj));
  CAIRN_TRY(cairnH5wMaterializeAttrs(w, o));
  uint64_t nEl = 1, nData = 0;
  for (int i = 0; i < rank; i++)
    if (cairnMulOverflow64(nEl, dims[i], &nEl)) return cairnErr(CAIRN_RANGE, "attribute '%s' of '%s': too many elements", zName, zObj);
  if (cairnMulOverflow64(nEl, t->size, &nData) || nData > 65000)
    return cairnErr(CAIRN_RANGE, "attribute '%s' of '%s': %llu bytes of data (inline attributes stay under 64 KiB)", zName, zObj, (unsigned long long)nData);
  size_t nName = strlen(zName) + 1;
  uint8_t *aType;
  size_t nType;
  CAIRN_TRY(cairnH5wTypeEncode(t, &aType, &nType));
  size_t nSpace = cairnH5wSpaceSize(rank, 0);
  size_t n = 9 + nName + nType + nSpace + (size_t)nData;
  if (n > 65535) {
    cairnFree(aType);
    return cairnErr(CAIRN_RANGE, "attribute '%s' of '%s': %zu bytes encoded (max 65535)", zName, zObj, n);
  }
  uint8_t *p = cairnMalloc(n);
  if (!p) {
    cairnFree(aType);
    return cairnErr(CAIRN_NOMEM, "attribute '%s': out of memory", zName);
  }
  p[0] = 3;
  p[1] = 0;
  cairnPutLE16(p + 2, (uint16_t)nName);
  cairnPutLE16(p + 4, (uint16_t)nType);
  cairnPutLE16(p + 6, (uint16_t)nSpace);
  p[8] = 1; /* UTF-8 name */
  size_t i = 9;
  memcpy(p + i, zName, nName), i += nName;
  memcpy(p + i, aType, nType), i += nType;
  cairnFree(aType);
  cairnH5wEncodeSpace(p + i, rank, dims, NULL), i += nSpace;
  int rc = CAIRN_OK;
  if (t->bHasVlen) rc = cairnH5wVlenToFile(w, t->vlenKind, t->vlenUnit, pData, nEl, p + i);
  else memcpy(p + i, pData, (size_t)nData);
  if (!rc) rc = cairnH5wEnsureAinfo(o);
  if (!rc) {
    int k = attrFind(o, zName);
    if (k >= 0) cairnH5wAttrDropRefs(w, &o->aMsg[k]);
    rc = k >= 0 ? cairnH5wObjSetMsg(o, k, p, n) : cairnH5wObjAddMsg(o, H5_MSG_ATTR, 0, p, n);
  }
  cairnFree(p);
  if (rc) return rc;
  cairnH5wObjDirty(o);
  w->bChanged = 1;
  return CAIRN_OK;
}

int cairn_h5w_attr_delete(cairn_h5w *w, const char *zObj, const char *zName) {
  CAIRN_TRY(checkWritable(w, "cairn_h5w_attr_delete"));
  if (!zObj || !zName) return cairnErr(CAIRN_MISUSE, "cairn_h5w_attr_delete: NULL argument");
  H5wObj *o;
  CAIRN_TRY(cairnH5wLookup(w, zObj, &o));
  CAIRN_TRY(cairnH5wCheckChain(o, zObj));
  CAIRN_TRY(cairnH5wCheckRefs(w, zObj));
  CAIRN_TRY(cairnH5wMaterializeAttrs(w, o));
  int k = attrFind(o, zName);
  if (k < 0) return cairnErr(CAIRN_NOTFOUND, "'%s' has no attribute '%s'", zObj, zName);
  cairnH5wAttrDropRefs(w, &o->aMsg[k]);
  cairnH5wObjDelMsg(o, k);
  cairnH5wObjDirty(o);
  w->bChanged = 1;
  return CAIRN_OK;
}
