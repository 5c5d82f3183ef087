/*
** 2026-11-29
**
** core/h5/r_group.c - groups and attributes: symbol-table groups (v1 B-tree of SNOD nodes,
** names in the local heap), link-message groups (compact Link messages, or dense: a fractal
** heap of links indexed by a v2 B-tree of name hashes), and attributes (compact Attribute
** messages, or dense in a fractal heap indexed by a v2 B-tree).
*/
#include <stdlib.h> /* qsort */

#include "h5int.h"

void cairnH5LinksFree(H5Link *a, size_t n) {
  if (!a) return; /* an object whose links were never listed: every dataset's close */
  for (size_t i = 0; i < n; i++) {
    cairnFree(a[i].zName);
    cairnFree(a[i].zTarget);
    cairnFree(a[i].zFile);
  }
  cairnFree(a);
}

static char *dupN(const void *p, size_t n) {
  char *z = cairnMalloc(n + 1);
  if (z) {
    memcpy(z, p, n);
    z[n] = 0;
  }
  return z;
}

/* A growable list of links. */
typedef struct LinkList {
  H5Link *a;
  size_t n, cap;
} LinkList;
static int listAdd(LinkList *l, H5Link *k) {
  if (l->n >= 10000000) return cairnErr(CAIRN_LIMIT, "hdf5: group with more than 10 million links");
  CAIRN_TRY(CAIRN_GROW(l->a, l->cap, l->n + 1, "hdf5: links"));
  l->a[l->n++] = *k;
  memset(k, 0, sizeof(*k));
  return CAIRN_OK;
}
static void linkClear(H5Link *k) {
  cairnFree(k->zName);
  cairnFree(k->zTarget);
  cairnFree(k->zFile);
  memset(k, 0, sizeof(*k));
}

/* ---------------------------------------------------------------- link messages */
/* A link message read in place: its name and value point into the message. */
typedef struct LinkView {
  uint8_t type;
  int64_t corder;
  const char *zName; /* not NUL-terminated */
  size_t nName;
  uint64_t addr;           /* hard */
  const uint8_t *pVal;     /* soft: the path; external: flags, file NUL, path NUL */
  size_t nVal;
} LinkView;

/* Check a link message and find its parts, without copying (a lookup compares the name of
** every link before the one it wants). */
static int linkParse(H5File *f, const uint8_t *p, size_t n, uint64_t addr, LinkView *v) {
  H5Cur c;
  cairnH5Cur(&c, p, n, addr);
  uint8_t ver = cairnH5U8(&c), flags = cairnH5U8(&c);
  if (ver != 1) return cairnErr(CAIRN_UNSUPPORTED, "hdf5: link message version %u at offset %llu", ver, (unsigned long long)addr);
  v->type = CAIRN_H5_LINK_HARD;
  v->corder = -1;
  v->addr = 0;
  v->pVal = NULL;
  v->nVal = 0;
  if (flags & 0x08) v->type = cairnH5U8(&c);
  if (flags & 0x04) v->corder = (int64_t)cairnH5U(&c, 8);
  if (flags & 0x10) cairnH5U8(&c);
  uint64_t nName = cairnH5U(&c, 1u << (flags & 3));
  if (c.bad || nName == 0 || !cairnH5Has(&c, (size_t)nName)) return cairnErr(CAIRN_CORRUPT, "hdf5: bad link name at offset %llu", (unsigned long long)addr);
  v->zName = (const char *)c.p;
  v->nName = (size_t)nName;
  c.p += nName;
  if (v->type == CAIRN_H5_LINK_HARD) {
    v->addr = cairnH5Addr(f, &c);
  } else {
    size_t m = (size_t)cairnH5U(&c, 2);
    if (c.bad || !cairnH5Has(&c, m))
      return cairnErr(CAIRN_CORRUPT, "hdf5: truncated link '%.*s' at offset %llu", (int)v->nName, v->zName, (unsigned long long)addr);
    if (v->type == CAIRN_H5_LINK_EXTERNAL && m < 1)
      return cairnErr(CAIRN_CORRUPT, "hdf5: empty external link '%.*s' at offset %llu", (int)v->nName, v->zName, (unsigned long long)addr);
    v->pVal = c.p;
    v->nVal = m;
    c.p += m;
  }
  if (c.bad) return cairnErr(CAIRN_CORRUPT, "hdf5: truncated link message at offset %llu", (unsigned long long)addr);
  return CAIRN_OK;
}

/* The link a view shows, with its own copies of the strings (the name only with withName). */
static int linkFromView(const LinkView *v, int withName, H5Link *k) {
  memset(k, 0, sizeof(*k));
  k->type = v->type;
  k->corder = v->corder;
  k->addr = v->addr;
  if (withName && !(k->zName = dupN(v->zName, v->nName))) return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
  if (v->type == CAIRN_H5_LINK_SOFT) {
    if (!(k->zTarget = dupN(v->pVal, v->nVal))) goto nomem;
  } else if (v->type == CAIRN_H5_LINK_EXTERNAL) {
    /* version/flags byte, file name NUL, object path NUL */
    const uint8_t *q = v->pVal + 1, *e = v->pVal + v->nVal;
    const uint8_t *z1 = q;
    while (z1 < e && *z1) z1++;
    const uint8_t *q2 = z1 < e ? z1 + 1 : e, *z2 = q2;
    while (z2 < e && *z2) z2++;
    k->zFile = dupN(q, (size_t)(z1 - q));
    k->zTarget = dupN(q2, (size_t)(z2 - q2));
    if (!k->zFile || !k->zTarget) goto nomem;
  }
  return CAIRN_OK;
nomem:
  linkClear(k);
  return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
}

static int linkDecode(H5File *f, const uint8_t *p, size_t n, uint64_t addr, H5Link *k) {
  LinkView v;
  memset(k, 0, sizeof(*k));
  CAIRN_TRY(linkParse(f, p, n, addr, &v));
  return linkFromView(&v, 1, k);
}

/* ---------------------------------------------------------------- symbol tables */
/* A local heap, read lazily: a lookup in a group of 10,000 links touches only the names on its
** path (through the metadata cache), not the whole data segment. lheapStr returns a name in the
** cache or in a scratch buffer, valid until the next call or cache read, whichever comes first. */
typedef struct LHeap {
  H5File *f;
  uint64_t addr, data;
  size_t n;
  const uint8_t *pData; /* the data segment when it lies in the open's first read, else NULL */
  char *buf;
  size_t cap;
  uint8_t *node; /* a lookup's node or symbol table entries (one level at a time) */
  size_t capNode;
  uint8_t aNode[1024]; /* node's first memory: the usual K (16 and 4) need 520 and 320 bytes */
} LHeap;

/* Read n bytes at addr into h's node buffer, reused level after level (a lookup does not come
** back to a node), unless they lie in the open's first read: used in place there (the readers
** stay inside [addr, addr+n)). */
static int nodeLoad(H5File *f, LHeap *h, uint64_t addr, size_t n, const uint8_t **pp) {
  if ((*pp = cairnH5MetaStable(f, addr, n)) != NULL) return CAIRN_OK;
  if (n > H5_MAX_META) return cairnErr(CAIRN_LIMIT, "hdf5: metadata block of %zu bytes at address %llu is too large", n, (unsigned long long)addr);
  if (!h->node) {
    h->node = h->aNode;
    h->capNode = sizeof(h->aNode);
  }
  if (n + 8 > h->capNode) {
    uint8_t *b = cairnRealloc(h->node == h->aNode ? NULL : h->node, n + 8);
    if (!b) return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
    h->node = b;
    h->capNode = n + 8;
  }
  CAIRN_TRY(cairnH5ReadMeta(f, addr, h->node, n));
  memset(h->node + n, 0, 8);
  *pp = h->node;
  return CAIRN_OK;
}

/* An address field of f->so bytes at p (all ones: H5_UNDEF), as cairnH5Addr reads it. */
static inline uint64_t addrAt(const H5File *f, const uint8_t *p) {
  uint64_t v = cairnGetLEn(p, f->so);
  return f->so < 8 && v == ((uint64_t)1 << (8 * f->so)) - 1 ? H5_UNDEF : v;
}

static inline __attribute__((always_inline)) int lheapLoad(H5File *f, uint64_t addr, LHeap *h) {
  memset(h, 0, offsetof(LHeap, aNode));
  uint8_t aHd[40];
  size_t n = 8 + 2 * (size_t)f->sl + f->so;
  int rc;
  const uint8_t *hd = cairnH5MetaStable(f, addr, n);
  if (!hd && !(hd = cairnH5MetaView(f, addr, n, aHd, &rc))) return rc; /* used before the next cache read */
  if (memcmp(hd, H5_SIG_HEAP, 4)) return cairnErr(CAIRN_CORRUPT, "hdf5: missing HEAP signature at offset %llu", (unsigned long long)addr);
  uint64_t size = cairnGetLEn(hd + 8, f->sl), data = addrAt(f, hd + 8 + 2 * f->sl);
  /* all of it in the open's first read (a small file): names are compared in place, and it lies
  ** within the file (the checks below pass) */
  if (size <= H5_MAX_META && (h->pData = cairnH5MetaStable(f, data, (size_t)size)) != NULL) {
    h->f = f;
    h->addr = addr;
    h->data = data;
    h->n = (size_t)size;
    return CAIRN_OK;
  }
  /* A small heap is reached (its pages are read next anyway). A large one is checked against
  ** the file only if the file's size is known: a lookup reads a few names scattered over it,
  ** and each read checks its own range, so asking the host (or reading its start) would be a
  ** wasted call. */
  int whole = f->sizeKnown || size <= ((uint64_t)4 << f->pageBits);
  uint64_t abs; /* cairnH5Reach and fileSize count from the file's start, data from the base address */
  if (data == H5_UNDEF || cairnAddOverflow64(data, f->base, &abs)) abs = UINT64_MAX;
  if (data != H5_UNDEF && whole) CAIRN_TRY(cairnH5Reach(f, abs, size));
  if (size > H5_MAX_META || data == H5_UNDEF || (whole && (abs > f->fileSize || size > f->fileSize - abs)))
    return cairnErr(CAIRN_CORRUPT, "hdf5: local heap at %llu claims %llu bytes at %llu", (unsigned long long)addr, (unsigned long long)size,
                    (unsigned long long)data);
  h->f = f;
  h->addr = addr;
  h->data = data;
  h->n = (size_t)size;
  return CAIRN_OK;
}
static void lheapFree(LHeap *h) {
  cairnFree(h->buf);
  if (h->node && h->node != h->aNode) cairnFree(h->node);
}

static int lheapStr(LHeap *h, uint64_t off, const char **pz, size_t *pn) {
  *pz = "";
  *pn = 0;
  if (off >= h->n) return cairnErr(CAIRN_CORRUPT, "hdf5: name offset %llu outside local heap at %llu", (unsigned long long)off, (unsigned long long)h->addr);
  if (h->pData) { /* in place: the name ends at the first NUL in the heap */
    const uint8_t *q = h->pData + off, *z = memchr(q, 0, h->n - (size_t)off);
    if (!z) return cairnErr(CAIRN_CORRUPT, "hdf5: unterminated name in local heap at %llu", (unsigned long long)h->addr);
    *pz = (const char *)q;
    *pn = (size_t)(z - q);
    return CAIRN_OK;
  }
  size_t want = 64;
  /* the usual short name, in a cached page: compared or copied in place */
  const uint8_t *q = cairnH5MetaPtr(h->f, h->data + off, CAIRN_MIN(want, h->n - (size_t)off));
  if (q) {
    const uint8_t *z = memchr(q, 0, CAIRN_MIN(want, h->n - (size_t)off));
    if (z) {
      *pz = (const char *)q;
      *pn = (size_t)(z - q);
      return CAIRN_OK;
    }
  }
  for (;;) {
    size_t k = CAIRN_MIN(want, h->n - (size_t)off);
    CAIRN_TRY(CAIRN_GROW(h->buf, h->cap, k + 1, "hdf5: local heap string"));
    CAIRN_TRY(cairnH5ReadMeta(h->f, h->data + off, h->buf, k));
    const char *z = memchr(h->buf, 0, k);
    if (z) {
      *pz = h->buf;
      *pn = (size_t)(z - h->buf);
      return CAIRN_OK;
    }
    if (k == h->n - (size_t)off) return cairnErr(CAIRN_CORRUPT, "hdf5: unterminated name in local heap at %llu", (unsigned long long)h->addr);
    want *= 4;
  }
}

/* *pCmp: the wanted name against the heap's name at off, in memcmp's sense (names sort by
** their bytes, a prefix first). */
static inline int lheapCmp(LHeap *h, uint64_t off, const char *zWant, size_t nWant, int *pCmp) {
  if (h->pData && off < h->n) { /* in place, byte by byte (names are short) */
    const uint8_t *q = h->pData + off;
    size_t room = h->n - (size_t)off, i = 0;
    while (i < nWant && i < room && q[i] && q[i] == (uint8_t)zWant[i]) i++;
    if (i < room) {
      if (q[i] == 0) { /* the name ends here: equal, or a prefix of the wanted one */
        *pCmp = i < nWant;
        return CAIRN_OK;
      }
      /* they differ at i: the name must still end inside the heap (else lheapStr says so) */
      if (memchr(q + i, 0, room - i)) {
        *pCmp = i == nWant || (uint8_t)zWant[i] < q[i] ? -1 : 1;
        return CAIRN_OK;
      }
    }
  }
  const char *z;
  size_t nz;
  CAIRN_TRY(lheapStr(h, off, &z, &nz));
  int cmp = memcmp(zWant, z, CAIRN_MIN(nz, nWant));
  *pCmp = cmp ? cmp : nWant < nz ? -1 : nWant > nz ? 1 : 0;
  return CAIRN_OK;
}

/* A symbol node's header at addr: its entry count (*pn), checked against the group's K. Its
** entries follow it, entSize bytes each. */
static inline __attribute__((always_inline)) int snodHeader(H5File *f, uint64_t addr, size_t entSize, uint32_t *pn) {
  uint8_t aHd[8];
  int rc;
  const uint8_t *hd = cairnH5MetaStable(f, addr, 8);
  if (!hd && !(hd = cairnH5MetaView(f, addr, 8, aHd, &rc))) return rc; /* used before the next cache read */
  if (memcmp(hd, H5_SIG_SNOD, 4)) return cairnErr(CAIRN_CORRUPT, "hdf5: missing SNOD signature at offset %llu", (unsigned long long)addr);
  uint32_t n = cairnGetLE16(hd + 6);
  if (8 + (size_t)n * entSize > 8 + 2 * (size_t)f->groupLeafK * entSize && n > 2 * (uint32_t)f->groupLeafK)
    return cairnErr(CAIRN_CORRUPT, "hdf5: symbol node at %llu has %u entries", (unsigned long long)addr, n);
  *pn = n;
  return CAIRN_OK;
}

/* The link a symbol table entry e holds, into *k (zeroed by the caller; its name is the
** caller's business): hard, or soft when the entry caches a link value (cache type 2). */
static inline __attribute__((always_inline)) int snodEntryLink(H5File *f, LHeap *h, const uint8_t *e, H5Link *k) {
  k->corder = -1;
  if (cairnGetLE32(e + 2 * f->so) == 2) { /* cache type 2: the scratch pad has the link value's offset */
    const char *zt;
    size_t nt;
    k->type = CAIRN_H5_LINK_SOFT;
    CAIRN_TRY(lheapStr(h, cairnGetLE32(e + 2 * f->so + 8), &zt, &nt));
    if (!(k->zTarget = dupN(zt, nt))) return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
  } else {
    k->type = CAIRN_H5_LINK_HARD;
    k->addr = addrAt(f, e + f->so);
  }
  return CAIRN_OK;
}

/* Append the entries of a SNOD to l. */
static int snodRead(H5File *f, uint64_t addr, LHeap *h, LinkList *l) {
  size_t entSize = 2 * (size_t)f->so + 24;
  uint32_t n = 0;
  CAIRN_TRY(snodHeader(f, addr, entSize, &n));
  int rc = CAIRN_OK;
  uint8_t *p;
  CAIRN_TRY(cairnH5LoadMeta(f, addr + 8, (size_t)n * entSize, &p));
  for (uint32_t i = 0; i < n && rc == CAIRN_OK; i++) {
    const uint8_t *e = p + (size_t)i * entSize;
    const char *z;
    size_t nz;
    if ((rc = lheapStr(h, cairnGetLEn(e, f->so), &z, &nz))) break;
    H5Link k;
    memset(&k, 0, sizeof(k));
    if (!(k.zName = dupN(z, nz))) {
      rc = cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
      break;
    }
    rc = snodEntryLink(f, h, e, &k);
    if (rc == CAIRN_OK) rc = listAdd(l, &k);
    if (rc) linkClear(&k);
  }
  cairnFree(p);
  return rc;
}

/* A group B-tree node's header hd (at addr): its level and entry count, checked. */
static inline __attribute__((always_inline)) int treeNodeHeader(H5File *f, uint64_t addr, const uint8_t *hd, uint32_t *pLevel, uint32_t *pn) {
  if (memcmp(hd, H5_SIG_TREE, 4)) return cairnErr(CAIRN_CORRUPT, "hdf5: missing TREE signature at offset %llu", (unsigned long long)addr);
  if (hd[4] != 0) return cairnErr(CAIRN_CORRUPT, "hdf5: B-tree at %llu has type %u, not a group node", (unsigned long long)addr, hd[4]);
  uint32_t level = hd[5], n = cairnGetLE16(hd + 6);
  if (n > 2 * (uint32_t)CAIRN_MAX(f->groupInternalK, f->groupLeafK) + 2 && n > 1024)
    return cairnErr(CAIRN_CORRUPT, "hdf5: group B-tree node at %llu has %u entries", (unsigned long long)addr, n);
  *pLevel = level;
  *pn = n;
  return CAIRN_OK;
}

/* Walk a group v1 B-tree (type 0), appending every link to l. */
static int btree1Group(H5File *f, uint64_t addr, LHeap *h, LinkList *l, int depth) {
  if (depth > 64) return cairnErr(CAIRN_CORRUPT, "hdf5: group B-tree at %llu too deep", (unsigned long long)addr);
  size_t hdr = 8 + 2 * (size_t)f->so;
  uint8_t aHd[32];
  int rc;
  const uint8_t *hd = cairnH5MetaView(f, addr, hdr, aHd, &rc); /* used before the next cache read */
  if (!hd) return rc;
  uint32_t level = 0, n = 0;
  CAIRN_TRY(treeNodeHeader(f, addr, hd, &level, &n));
  uint8_t *p;
  CAIRN_TRY(cairnH5LoadMeta(f, addr + hdr, (size_t)n * (f->sl + f->so) + f->sl, &p));
  for (uint32_t i = 0; i < n && rc == CAIRN_OK; i++) {
    uint64_t child = cairnGetLEn(p + (size_t)i * (f->sl + f->so) + f->sl, f->so);
    rc = level ? btree1Group(f, child, h, l, depth + 1) : snodRead(f, child, h, l);
  }
  cairnFree(p);
  return rc;
}

/* Look a name up in a symbol node: a binary search of its entries (sorted by name). */
static int snodFind(H5File *f, uint64_t addr, LHeap *h, const char *zWant, size_t nWant, H5Link *pFound) {
  size_t entSize = 2 * (size_t)f->so + 24;
  uint32_t n = 0;
  CAIRN_TRY(snodHeader(f, addr, entSize, &n));
  const uint8_t *p = cairnH5MetaStable(f, addr + 8, (size_t)n * entSize);
  if (!p) CAIRN_TRY(nodeLoad(f, h, addr + 8, (size_t)n * entSize, &p));
  uint32_t lo = 0, hi = n;
  int cmp = 1;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    CAIRN_TRY(lheapCmp(h, cairnGetLEn(p + (size_t)mid * entSize, f->so), zWant, nWant, &cmp));
    if (cmp == 0) {
      lo = mid;
      break;
    }
    if (cmp < 0) hi = mid;
    else lo = mid + 1;
  }
  if (lo >= n) return CAIRN_NOTFOUND;
  const uint8_t *e = p + (size_t)lo * entSize;
  /* missed: the entry where the name would be is compared once more (its name must be valid) */
  if (cmp != 0) {
    CAIRN_TRY(lheapCmp(h, cairnGetLEn(e, f->so), zWant, nWant, &cmp));
    if (cmp != 0) return CAIRN_NOTFOUND;
  }
  return snodEntryLink(f, h, e, pFound); /* zeroed by the caller; no name: the caller has it */
}

/* Look a name up in a group v1 B-tree (type 0) at addr: down one node a level, toward the
** name, then in the symbol node. */
static int btree1Find(H5File *f, uint64_t addr, LHeap *h, const char *zWant, size_t nWant, H5Link *pFound) {
  size_t kw = (size_t)f->sl + f->so; /* a key and a child pointer */
  size_t hdr = 8 + 2 * (size_t)f->so;
  for (int depth = 0;; depth++) {
    if (depth > 64) return cairnErr(CAIRN_CORRUPT, "hdf5: group B-tree at %llu too deep", (unsigned long long)addr);
    /* a lookup reads this node and goes on elsewhere: read the node alone (its size is fixed by
    ** K), unless it lies in the open's first read (a small file's metadata) */
    uint64_t nNode = hdr + 2 * (uint64_t)f->groupInternalK * kw + f->sl;
    uint8_t aHd[32];
    int rc;
    const uint8_t *hd = cairnH5MetaStable(f, addr, (size_t)nNode);
    if (!hd) {
      cairnH5Prefetch(f, addr, nNode);
      if (!(hd = cairnH5MetaView(f, addr, hdr, aHd, &rc))) return rc; /* used before the next cache read */
    }
    uint32_t level = 0, n = 0;
    CAIRN_TRY(treeNodeHeader(f, addr, hd, &level, &n));
    if (n == 0) return CAIRN_NOTFOUND;
    const uint8_t *p = cairnH5MetaStable(f, addr + hdr, (size_t)n * kw + f->sl);
    if (!p) CAIRN_TRY(nodeLoad(f, h, addr + hdr, (size_t)n * kw + f->sl, &p));
    /* Child i holds names in (key i, key i+1]: binary search for the first child whose right
    ** key is >= the wanted name, reading log2(n) names instead of all of them. */
    uint32_t lo = 0, hi = n - 1;
    int cmp;
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      CAIRN_TRY(lheapCmp(h, cairnGetLEn(p + (size_t)(mid + 1) * kw, f->sl), zWant, nWant, &cmp));
      if (cmp <= 0) hi = mid;
      else lo = mid + 1;
    }
    /* the search compared key lo+1 (<= the name) unless lo is the last child */
    if (lo == n - 1) {
      CAIRN_TRY(lheapCmp(h, cairnGetLEn(p + (size_t)n * kw, f->sl), zWant, nWant, &cmp));
      if (cmp > 0) return CAIRN_NOTFOUND; /* after the last key */
    }
    addr = cairnGetLEn(p + (size_t)lo * kw + f->sl, f->so);
    if (!level) return snodFind(f, addr, h, zWant, nWant, pFound);
  }
}

/* ---------------------------------------------------------------- dense storage */
typedef struct DenseArg {
  H5File *f;
  LinkList *pList;
  /* attribute mode */
  H5Attr *aAttr;
  size_t nAttr, capAttr;
  /* search */
  const char *zWant;
  size_t nWant;
  uint32_t hash;
  H5Link *pFound;
  H5Attr *pFoundAttr;
  int err;
  int found; /* the search found the name (in *pFound) */
  /* last: cairnH5FHeapOpen fills it (it is large: its filter pipeline), so denseInit leaves it */
  H5FHeap heap;
} DenseArg;
static void denseInit(DenseArg *d, H5File *f) {
  memset(d, 0, offsetof(DenseArg, heap));
  d->f = f;
}

static int denseLinkVisit(void *pArg, const uint8_t *rec, uint32_t n) {
  DenseArg *d = pArg;
  if (n < 4u + d->heap.idLen) return cairnErr(CAIRN_CORRUPT, "hdf5: link name record too short in heap %llu", (unsigned long long)d->heap.addr);
  uint8_t *p;
  size_t np;
  CAIRN_TRY(cairnH5FHeapGet(d->f, &d->heap, rec + 4, &p, &np));
  H5Link k;
  int rc = linkDecode(d->f, p, np, d->heap.addr, &k);
  cairnFree(p);
  if (rc) return rc;
  rc = listAdd(d->pList, &k);
  if (rc) linkClear(&k);
  return rc;
}

static int denseLinkCmp(void *pArg, const uint8_t *rec) {
  DenseArg *d = pArg;
  uint32_t h = cairnGetLE32(rec);
  if (d->hash != h) return d->hash < h ? -1 : 1;
  /* Same hash: compare names. */
  uint8_t *p;
  size_t np;
  int rc = cairnH5FHeapGet(d->f, &d->heap, rec + 4, &p, &np);
  if (rc) {
    d->err = rc; /* out of memory stays out of memory */
    return 0;
  }
  LinkView v;
  if ((rc = linkParse(d->f, p, np, d->heap.addr, &v)) != CAIRN_OK) {
    cairnFree(p);
    d->err = rc;
    return 0;
  }
  int cmp = memcmp(d->zWant, v.zName, CAIRN_MIN(v.nName, d->nWant));
  if (cmp == 0) cmp = d->nWant < v.nName ? -1 : d->nWant > v.nName ? 1 : 0;
  if (cmp == 0) { /* copied without its name: a lookup's caller has it */
    if ((rc = linkFromView(&v, 0, d->pFound)) != CAIRN_OK) d->err = rc;
    else d->found = 1;
  }
  cairnFree(p);
  return cmp;
}
static int denseFound(void *pArg, const uint8_t *rec, uint32_t n) {
  DenseArg *d = pArg;
  return d->err;
}

/* ---------------------------------------------------------------- groups */
static int linkCmp(const void *a, const void *b) { return strcmp(((const H5Link *)a)->zName, ((const H5Link *)b)->zName); }

/* A symbol table message's v1 B-tree and local heap addresses. */
static inline __attribute__((always_inline)) int symtabAddrs(H5File *f, const H5Msg *st, uint64_t *pBt, uint64_t *pHp) {
  H5Cur c;
  cairnH5Cur(&c, st->p, st->size, st->addr);
  *pBt = cairnH5Addr(f, &c);
  *pHp = cairnH5Addr(f, &c);
  if (c.bad) return cairnErr(CAIRN_CORRUPT, "hdf5: short symbol table message at offset %llu", (unsigned long long)st->addr);
  return CAIRN_OK;
}

/* A link info message's fractal heap and name-index v2 B-tree addresses (H5_UNDEF: none). */
static int linkInfoAddrs(H5File *f, const H5Msg *li, uint64_t *pHeap, uint64_t *pName) {
  H5Cur c;
  cairnH5Cur(&c, li->p, li->size, li->addr);
  cairnH5U8(&c); /* version */
  uint8_t fl = cairnH5U8(&c);
  if (fl & 1) cairnH5U(&c, 8); /* maximum creation index */
  *pHeap = cairnH5Addr(f, &c);
  *pName = cairnH5Addr(f, &c);
  if (c.bad) return cairnErr(CAIRN_CORRUPT, "hdf5: short link info message at offset %llu", (unsigned long long)li->addr);
  return CAIRN_OK;
}

int cairnH5GroupLinks(H5File *f, const H5Ohdr *o, H5Link **pa, size_t *pn) {
  LinkList l = {NULL, 0, 0};
  int rc = CAIRN_OK;
  const H5Msg *st = cairnH5OhdrFind(o, H5_MSG_SYMTAB, 0), *li = cairnH5OhdrFind(o, H5_MSG_LINKINFO, 0);
  if (st) {
    uint64_t bt, hp;
    CAIRN_TRY(symtabAddrs(f, st, &bt, &hp));
    LHeap h;
    CAIRN_TRY(lheapLoad(f, hp, &h));
    if (bt != H5_UNDEF) rc = btree1Group(f, bt, &h, &l, 0);
    lheapFree(&h);
  } else {
    /* Compact links in the header. */
    const H5Msg *m;
    for (uint32_t i = 0; rc == CAIRN_OK && i < o->nMsg; i++) {
      if ((m = &o->aMsg[i])->type != H5_MSG_LINK) continue;
      H5Link k;
      rc = linkDecode(f, m->p, m->size, m->addr, &k);
      if (rc == CAIRN_OK && (rc = listAdd(&l, &k))) linkClear(&k);
    }
    uint64_t heap, name;
    if (rc == CAIRN_OK && li && (rc = linkInfoAddrs(f, li, &heap, &name)) == CAIRN_OK && heap != H5_UNDEF && name != H5_UNDEF) {
      DenseArg d;
      denseInit(&d, f);
      d.pList = &l;
      if ((rc = cairnH5FHeapOpen(f, heap, &d.heap)) == CAIRN_OK) rc = cairnH5Bt2Iterate(f, name, denseLinkVisit, &d);
    }
  }
  if (rc) {
    cairnH5LinksFree(l.a, l.n);
    return rc;
  }
  size_t k = 1;
  while (k < l.n && strcmp(l.a[k - 1].zName, l.a[k].zName) <= 0) k++;
  if (k < l.n) qsort(l.a, l.n, sizeof(H5Link), linkCmp);
  *pa = l.a;
  *pn = l.n;
  return CAIRN_OK;
}

/* A lookup in a symbol-table group: the message holds the B-tree and local heap addresses. */
static int lookupSymtab(H5File *f, const H5Msg *st, const char *zName, size_t nName, H5Link *pOut) {
  uint64_t bt, hp;
  CAIRN_TRY(symtabAddrs(f, st, &bt, &hp));
  if (bt == H5_UNDEF) return CAIRN_NOTFOUND;
  LHeap h;
  CAIRN_TRY(lheapLoad(f, hp, &h));
  int rc = btree1Find(f, bt, &h, zName, nName, pOut);
  lheapFree(&h);
  return rc;
}

/* One link message against the wanted name: CAIRN_NOTFOUND if it is another link. Every
** message is checked whole, as decoding it would (a bad link before the wanted one is an
** error), but only the wanted one is copied, without its name (the caller has it). */
static int lookupLinkMsg(H5File *f, const uint8_t *p, size_t n, uint64_t addr, const char *zName, size_t nName, H5Link *pOut) {
  LinkView v;
  CAIRN_TRY(linkParse(f, p, n, addr, &v));
  if (v.nName != nName || memcmp(v.zName, zName, nName) != 0) return CAIRN_NOTFOUND;
  return linkFromView(&v, 0, pOut);
}

/* A lookup in a dense group (link info message: fractal heap and v2 B-tree of name hashes). */
static int lookupDense(H5File *f, const H5Msg *li, const char *zName, size_t nName, H5Link *pOut) {
  uint64_t heap, name;
  CAIRN_TRY(linkInfoAddrs(f, li, &heap, &name));
  if (heap == H5_UNDEF || name == H5_UNDEF) return CAIRN_NOTFOUND;
  DenseArg d;
  denseInit(&d, f);
  d.zWant = zName;
  d.nWant = nName;
  d.hash = cairnLookup3(zName, nName, 0);
  d.pFound = pOut;
  CAIRN_TRY(cairnH5FHeapOpen(f, heap, &d.heap));
  int rc = cairnH5Bt2Find(f, name, denseLinkCmp, denseFound, &d);
  if (rc == CAIRN_OK && !d.found) rc = CAIRN_NOTFOUND;
  if (rc && rc != CAIRN_NOTFOUND) linkClear(pOut);
  return rc;
}

int cairnH5GroupLookup(H5File *f, const H5Ohdr *o, const char *zName, size_t nName, H5Link *pOut) {
  memset(pOut, 0, sizeof(*pOut));
  const H5Msg *st = cairnH5OhdrFind(o, H5_MSG_SYMTAB, 0), *li = cairnH5OhdrFind(o, H5_MSG_LINKINFO, 0);
  if (st) return lookupSymtab(f, st, zName, nName, pOut);
  const H5Msg *m;
  for (uint32_t i = 0; i < o->nMsg; i++) {
    if ((m = &o->aMsg[i])->type != H5_MSG_LINK) continue;
    int rc = lookupLinkMsg(f, m->p, m->size, m->addr, zName, nName, pOut);
    if (rc != CAIRN_NOTFOUND) return rc;
  }
  if (li) return lookupDense(f, li, zName, nName, pOut);
  return CAIRN_NOTFOUND;
}

/* A group header read in place: all its chunks lie in the open's first read (f->pFirstData,
** stable until close), at most H5_GROUP_CHUNKS of them. Chunk k's messages are [p, p+n) of
** aChunk[k], each with a header of hdr bytes (v1: 8; v2: 4, or 6 with creation orders), read in
** the order cairnH5OhdrLoadIn reads them: the first chunk, then continuations as they are found. */
#define H5_GROUP_CHUNKS 4
typedef struct GroupHdr {
  struct {
    const uint8_t *p;
    size_t n;
    uint64_t addr; /* file address of p */
    uint64_t cont; /* the address a continuation message gave (the first chunk: its header's) */
  } aChunk[H5_GROUP_CHUNKS];
  unsigned nChunk, v1, hdr;
  H5Msg st, li;   /* the first symbol table and link info messages (p NULL: none) */
  uint32_t nLink; /* link messages */
} GroupHdr;

/* The message at *pi of chunk k as ohdrParse reads it: 1 with *m set and *pi past it, 0 at the
** end (or a gap too short for a message), -1 if it overruns the chunk. */
static inline __attribute__((always_inline)) int groupHdrNext(const GroupHdr *g, unsigned k, size_t *pi, H5Msg *m) {
  size_t i = *pi, n = g->aChunk[k].n;
  const uint8_t *p = g->aChunk[k].p;
  if (n - i < g->hdr) return 0; /* v1: 8 bytes; v2: 4 (a gap), 6 with creation orders */
  H5Frame fr;
  cairnH5FrameGet(p + i, g->v1, g->hdr, &fr);
  m->type = (uint16_t)fr.type;
  m->size = fr.size;
  m->flags = fr.flags;
  if (m->size > n - i - g->hdr) return -1;
  m->p = p + i + g->hdr;
  m->addr = g->aChunk[k].addr + i + g->hdr;
  *pi = i + g->hdr + m->size;
  return 1;
}

/* Add the continuation chunk a message m names, when it is in the first read and sound (a v2
** chunk: signature and checksum); 0 otherwise. */
static int groupHdrCont(H5File *f, GroupHdr *g, const H5Msg *m) {
  if (m->size < (size_t)f->so + f->sl || g->nChunk == H5_GROUP_CHUNKS) return 0;
  uint64_t addr = addrAt(f, m->p), len = cairnGetLEn(m->p + f->so, f->sl);
  if (addr == H5_UNDEF || len == 0 || len > H5_MAX_META) return 0;
  for (unsigned k = 1; k < g->nChunk; k++)
    if (g->aChunk[k].cont == addr) return 0; /* referenced twice */
  const uint8_t *q = cairnH5MetaStable(f, addr, (size_t)len);
  if (!q) return 0;
  unsigned k = g->nChunk;
  g->aChunk[k].cont = addr;
  if (g->v1) {
    g->aChunk[k].p = q;
    g->aChunk[k].n = (size_t)len;
    g->aChunk[k].addr = addr;
  } else {
    if (len < 8 || memcmp(q, H5_SIG_OCHK, 4) || !cairnH5ChecksumOk(q, (size_t)len - 4)) return 0;
    g->aChunk[k].p = q + 4;
    g->aChunk[k].n = (size_t)len - 8;
    g->aChunk[k].addr = addr + 4;
  }
  g->nChunk++;
  return 1;
}

/* Note what a lookup needs in chunk k (messages read as groupHdrNext reads them; v1 and hdr
** constants where they can be): 0 if a message overruns it or a continuation cannot be read in
** place. */
static inline __attribute__((always_inline)) int groupChunkScan(H5File *f, GroupHdr *g, unsigned k, int v1, size_t hdr) {
  const uint8_t *p = g->aChunk[k].p;
  size_t n = g->aChunk[k].n;
  for (size_t i = 0; n - i >= hdr;) {
    H5Frame fr;
    cairnH5FrameGet(p + i, v1, hdr, &fr);
    unsigned type = fr.type;
    size_t size = fr.size;
    if (size > n - i - hdr) return 0; /* overruns its chunk */
    if (type == H5_MSG_LINK) g->nLink++;
    else if (type == H5_MSG_CONT || (type == H5_MSG_SYMTAB && !g->st.p) || (type == H5_MSG_LINKINFO && !g->li.p)) {
      H5Msg m = {(uint16_t)type, fr.flags, (uint32_t)size, p + i + hdr, g->aChunk[k].addr + i + hdr};
      if (type == H5_MSG_SYMTAB) g->st = m;
      else if (type == H5_MSG_LINKINFO) g->li = m;
      else if (!groupHdrCont(f, g, &m)) return 0;
    }
    i += hdr + size;
  }
  return 1;
}

/* Scan the header at addr in place for what a lookup needs. 0 when it cannot be done that way
** (not in the first read, too many chunks, or anything wrong with it): then the general path
** reads it and reports what is wrong, as it always has. */
static int groupHdrScan(H5File *f, uint64_t addr, GroupHdr *g) {
  const uint8_t *pre = cairnH5MetaStable(f, addr, 16);
  if (!pre) return 0;
  H5OhdrPrefix hp; /* the prefix lies in the first read: decode it within what that read holds */
  if (cairnH5OhdrPrefix(pre, f->nFirstData - (size_t)(pre - f->pFirstData), &hp) != H5_PREFIX_OK || hp.nMsgs > H5_MAX_META) return 0;
  if (hp.version == 2) {
    if (!cairnH5MetaStable(f, addr, hp.iMsgs + (size_t)hp.nMsgs + 4) || !cairnH5ChecksumOk(pre, hp.iMsgs + (size_t)hp.nMsgs)) return 0;
    g->aChunk[0].p = pre + hp.iMsgs;
  } else if (!(g->aChunk[0].p = cairnH5MetaStable(f, addr + 16, (size_t)hp.nMsgs))) {
    return 0;
  }
  g->aChunk[0].n = (size_t)hp.nMsgs;
  g->aChunk[0].addr = addr + hp.iMsgs;
  g->v1 = hp.version == 1;
  g->hdr = hp.nFrame;
  g->aChunk[0].cont = addr;
  g->nChunk = 1;
  g->st.p = g->li.p = NULL;
  g->nLink = 0;
  /* the first chunk apart: most group headers have no other */
  if (!(g->v1 ? groupChunkScan(f, g, 0, 1, 8) : groupChunkScan(f, g, 0, 0, g->hdr))) return 0;
  for (unsigned k = 1; k < g->nChunk; k++)
    if (!(g->v1 ? groupChunkScan(f, g, k, 1, 8) : groupChunkScan(f, g, k, 0, g->hdr))) return 0;
  return 1;
}

int cairnH5GroupLookupAt(H5File *f, uint64_t addr, const char *zName, size_t nName, H5Link *pOut) {
  GroupHdr g;
  if (!groupHdrScan(f, addr, &g)) {
    H5Ohdr o;
    /* the header is dropped after the lookup, before any nested resolve */
    CAIRN_TRY(cairnH5OhdrLoadIn(f, addr, &o, (uint8_t *)f->aOhdrLent, sizeof(f->aOhdrLent)));
    int rc = cairnH5GroupLookup(f, &o, zName, nName, pOut);
    cairnH5OhdrFree(&o);
    return rc;
  }
  memset(pOut, 0, sizeof(*pOut));
  if (g.st.p) return lookupSymtab(f, &g.st, zName, nName, pOut);
  H5Msg m;
  size_t i;
  uint32_t nSeen = 0;
  for (unsigned k = 0; k < g.nChunk && nSeen < g.nLink; k++) {
    for (i = 0; nSeen < g.nLink && groupHdrNext(&g, k, &i, &m) > 0;) {
      if (m.type != H5_MSG_LINK) continue;
      nSeen++;
      int rc = lookupLinkMsg(f, m.p, m.size, m.addr, zName, nName, pOut);
      if (rc != CAIRN_NOTFOUND) return rc;
    }
  }
  return g.li.p ? lookupDense(f, &g.li, zName, nName, pOut) : CAIRN_NOTFOUND;
}

/* ---------------------------------------------------------------- attributes */
static int attrAdd(DenseArg *d, H5Attr *a) {
  if (d->nAttr >= 1000000) return cairnErr(CAIRN_LIMIT, "hdf5: more than a million attributes");
  CAIRN_TRY(CAIRN_GROW(d->aAttr, d->capAttr, d->nAttr + 1, "hdf5: attributes"));
  d->aAttr[d->nAttr++] = *a;
  return CAIRN_OK;
}

static int denseAttrVisit(void *pArg, const uint8_t *rec, uint32_t n) {
  DenseArg *d = pArg;
  if (n < 17) return cairnErr(CAIRN_CORRUPT, "hdf5: attribute record too short in heap %llu", (unsigned long long)d->heap.addr);
  uint8_t *p;
  size_t np;
  CAIRN_TRY(cairnH5FHeapGet(d->f, &d->heap, rec, &p, &np));
  H5Attr a;
  int rc;
  if (rec[8] & 0x02) { /* the heap holds a shared-message reference */
    H5Msg m = {H5_MSG_ATTR, H5_MSGF_SHARED, (uint32_t)np, p, d->heap.addr};
    const uint8_t *q;
    size_t nq;
    uint64_t qa;
    uint8_t *own;
    rc = cairnH5MsgResolve(d->f, &m, &q, &nq, &qa, &own);
    if (rc == CAIRN_OK) rc = cairnH5AttrDecode(d->f, q, nq, qa, &a);
    cairnFree(own);
  } else {
    rc = cairnH5AttrDecode(d->f, p, np, d->heap.addr, &a);
  }
  cairnFree(p);
  if (rc) return rc;
  rc = attrAdd(d, &a);
  if (rc) cairnH5AttrFree(&a);
  return rc;
}

static int attrCmp(const void *a, const void *b) { return strcmp(((const H5Attr *)a)->zName, ((const H5Attr *)b)->zName); }

int cairnH5Attrs(H5File *f, const H5Ohdr *o, H5Attr **pa, size_t *pn) {
  DenseArg d;
  denseInit(&d, f);
  int rc = CAIRN_OK;
  const H5Msg *m;
  size_t nCompact = 0;
  for (uint32_t i = 0; i < o->nMsg; i++) nCompact += o->aMsg[i].type == H5_MSG_ATTR;
  if (nCompact) { /* one allocation for the usual case (H5Attr is large: no regrowth copies) */
    d.aAttr = cairnMallocArray(nCompact, sizeof(H5Attr));
    if (!d.aAttr) return cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
    d.capAttr = nCompact;
  }
  for (uint32_t i = 0; rc == CAIRN_OK && i < o->nMsg; i++) {
    if ((m = &o->aMsg[i])->type != H5_MSG_ATTR) continue;
    const uint8_t *q;
    size_t nq;
    uint64_t qa;
    uint8_t *own;
    H5Attr a;
    if (!(m->flags & 0x02) && m->size >= 9) {
      /* Listing only needs the name: decode the rest when the attribute is opened. */
      unsigned v = m->p[0], off = v == 3 ? 9 : 8;
      size_t nName = cairnGetLE16(m->p + 2);
      if ((v >= 1 && v <= 3) && nName >= 1 && off + nName <= m->size && m->p[off + nName - 1] == 0 &&
          strlen((const char *)m->p + off) == nName - 1) {
        /* fill the slot in place: H5Attr is large (its dataspace), and 128 attributes made
        ** zeroing plus copying a visible part of opening an object */
        if (d.nAttr < d.capAttr) {
          H5Attr *s = &d.aAttr[d.nAttr++];
          s->zName = (char *)m->p + off;
          s->pType = NULL;
          s->pData = NULL;
          s->nData = 0;
          s->space.kind = 0;
          s->space.rank = 0;
          s->space.nElem = 0;
          s->pMsg = m->p;
          s->nMsg = m->size;
          s->msgAddr = m->addr;
          continue;
        }
        memset(&a, 0, sizeof(a));
        a.zName = (char *)m->p + off;
        a.pMsg = m->p;
        a.nMsg = m->size;
        a.msgAddr = m->addr;
        rc = attrAdd(&d, &a);
        continue;
      }
    }
    rc = cairnH5MsgResolve(f, m, &q, &nq, &qa, &own);
    if (rc == CAIRN_OK) {
      rc = cairnH5AttrDecode(f, q, nq, qa, &a);
      cairnFree(own);
      if (rc == CAIRN_OK && (rc = attrAdd(&d, &a))) cairnH5AttrFree(&a);
    }
  }
  const H5Msg *ai = cairnH5OhdrFind(o, H5_MSG_AINFO, 0);
  if (rc == CAIRN_OK && ai) {
    H5Cur c;
    cairnH5Cur(&c, ai->p, ai->size, ai->addr);
    cairnH5U8(&c);
    uint8_t fl = cairnH5U8(&c);
    if (fl & 1) cairnH5U(&c, 2);
    uint64_t heap = cairnH5Addr(f, &c), name = cairnH5Addr(f, &c);
    if (c.bad) rc = cairnErr(CAIRN_CORRUPT, "hdf5: short attribute info message at offset %llu", (unsigned long long)ai->addr);
    else if (heap != H5_UNDEF && name != H5_UNDEF) {
      if ((rc = cairnH5FHeapOpen(f, heap, &d.heap)) == CAIRN_OK) rc = cairnH5Bt2Iterate(f, name, denseAttrVisit, &d);
    }
  }
  if (rc) {
    for (size_t i = 0; i < d.nAttr; i++) cairnH5AttrFree(&d.aAttr[i]);
    cairnFree(d.aAttr);
    return rc;
  }
  size_t k = 1;
  while (k < d.nAttr && strcmp(d.aAttr[k - 1].zName, d.aAttr[k].zName) <= 0) k++;
  if (k < d.nAttr) qsort(d.aAttr, d.nAttr, sizeof(H5Attr), attrCmp);
  *pa = d.aAttr;
  *pn = d.nAttr;
  return CAIRN_OK;
}

int cairnH5LocalHeapStr(H5File *f, uint64_t addr, uint64_t off, char **pz) {
  LHeap h;
  const char *z;
  size_t n;
  *pz = NULL;
  CAIRN_TRY(lheapLoad(f, addr, &h));
  int rc = lheapStr(&h, off, &z, &n);
  if (rc == CAIRN_OK && !(*pz = dupN(z, n))) rc = cairnErr(CAIRN_NOMEM, "hdf5: out of memory");
  lheapFree(&h);
  return rc;
}
