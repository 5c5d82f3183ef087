/*
** 2026-11-29
**
** cli/cmd_h5.c - `cairn h5 ...`: list, describe and dump HDF5 files with cairn's reader.
**   cairn h5 ls [-r] FILE [PATH]      links of a group (recursively with -r), like h5ls
**   cairn h5 info [--json] FILE PATH  kind, shape, type, layout, chunks, filters, attributes
**   cairn h5 dump [--json] [--sel S] FILE PATH  values (JSON: {"shape":[..],"type":{..},"data":..})
**   cairn h5 attrs FILE PATH          attribute names and values
**   cairn h5 dumpall FILE [PATH]      every dataset and attribute as JSON lines (for checkers; exit 1
**                                     if any object fails)
** ls, dump and dumpall take --max-memory BYTES (cairn_h5_set_read_budget: a read that would need
** more fails with CAIRN_LIMIT instead of allocating it).
** Hard links may form cycles (a group linking to an ancestor): ls and dumpall keep the objects
** seen (by object header address) while they walk and, as h5ls, list an object reached again as
** "Group, same as /first/path" without descending into it again; soft links are listed, never
** followed.
** `cairn ls` (without --store) and `cairn dump` are h5 ls and h5 dump under h5ls's and h5dump's
** names (the table in cli/cli.c).
*/
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#if CAIRN_WITH_H5
#include "cairn/h5.h"

static int h5Fail(int rc) { return cliFail("h5", rc); }

static const char *kindName(int k) {
  return k == CAIRN_H5_GROUP ? "Group" : k == CAIRN_H5_DATASET ? "Dataset" : k == CAIRN_H5_DATATYPE ? "Type" : "Attribute";
}

static void printShape(const cairn_h5_info *in) {
  if (in->space == CAIRN_H5_NULL) {
    printf("NULL");
    return;
  }
  if (in->space == CAIRN_H5_SCALAR) {
    printf("SCALAR");
    return;
  }
  printf("{");
  for (unsigned i = 0; i < in->rank; i++) {
    printf("%s%llu", i ? ", " : "", (unsigned long long)in->dims[i]);
  }
  int diff = 0;
  for (unsigned i = 0; i < in->rank; i++) diff |= in->maxdims[i] != in->dims[i];
  if (diff) {
    printf("/");
    for (unsigned i = 0; i < in->rank; i++) {
      if (in->maxdims[i] == UINT64_MAX) printf("%sInf", i ? ", " : "");
      else printf("%s%llu", i ? ", " : "", (unsigned long long)in->maxdims[i]);
    }
  }
  printf("}");
}

/* The objects a walk has seen, by object header address, with the path each was first listed
** under: open addressing, grown at half full. Only a recursive walk (or one group's listing) has
** one, so opening and listing normal files pays one small allocation. */
typedef struct Seen {
  uint64_t *aAddr; /* UINT64_MAX: free */
  char **azPath;
  int *aKind;
  size_t nSlot, nUsed;
} Seen;

static size_t seenSlot(const Seen *s, uint64_t a) {
  size_t i = (size_t)((a * 0x9E3779B97F4A7C15ull) >> 20) & (s->nSlot - 1);
  while (s->aAddr[i] != UINT64_MAX && s->aAddr[i] != a) i = (i + 1) & (s->nSlot - 1);
  return i;
}
/* The entry of address a, or NULL. */
static const char *seenFind(const Seen *s, uint64_t a, int *pKind) {
  if (!s->nSlot) return NULL;
  size_t i = seenSlot(s, a);
  if (s->aAddr[i] == UINT64_MAX) return NULL;
  if (pKind) *pKind = s->aKind[i];
  return s->azPath[i];
}
/* 0, or 1 out of memory (reported). */
static int seenAdd(Seen *s, uint64_t a, const char *zPath, int kind) {
  if (2 * (s->nUsed + 1) > s->nSlot) {
    Seen g = {NULL, NULL, NULL, s->nSlot ? 2 * s->nSlot : 64, s->nUsed};
    g.aAddr = malloc(g.nSlot * sizeof(uint64_t));
    g.azPath = malloc(g.nSlot * sizeof(char *));
    g.aKind = malloc(g.nSlot * sizeof(int));
    if (!g.aAddr || !g.azPath || !g.aKind) {
      free(g.aAddr), free(g.azPath), free(g.aKind);
      fprintf(stderr, "cairn: h5: out of memory\n");
      return 1;
    }
    for (size_t i = 0; i < g.nSlot; i++) g.aAddr[i] = UINT64_MAX;
    for (size_t i = 0; i < s->nSlot; i++)
      if (s->aAddr[i] != UINT64_MAX) {
        size_t k = seenSlot(&g, s->aAddr[i]);
        g.aAddr[k] = s->aAddr[i], g.azPath[k] = s->azPath[i], g.aKind[k] = s->aKind[i];
      }
    free(s->aAddr), free(s->azPath), free(s->aKind);
    *s = g;
  }
  size_t i = seenSlot(s, a);
  if (s->aAddr[i] != UINT64_MAX) return 0;
  char *z = strdup(zPath);
  if (!z) {
    fprintf(stderr, "cairn: h5: out of memory\n");
    return 1;
  }
  s->aAddr[i] = a, s->azPath[i] = z, s->aKind[i] = kind;
  s->nUsed++;
  return 0;
}
static void seenFree(Seen *s) {
  for (size_t i = 0; i < s->nSlot; i++)
    if (s->aAddr[i] != UINT64_MAX) free(s->azPath[i]);
  free(s->aAddr), free(s->azPath), free(s->aKind);
}

static int lsGroup(cairn_h5 *h, const char *zPath, int recursive, int depth, Seen *pSeen) {
  cairn_h5_obj *g;
  int rc = cairn_h5_get(h, zPath, &g);
  if (rc) return h5Fail(rc);
  cairn_h5_info in;
  if ((rc = cairn_h5_info_get(g, &in))) {
    cairn_h5_obj_close(g);
    return h5Fail(rc);
  }
  int status = depth == 0 && seenAdd(pSeen, in.addr, zPath, in.kind) ? 2 : 0;
  for (size_t i = 0; i < in.nLink && depth < 64 && status != 2; i++) {
    cairn_h5_link k;
    if ((rc = cairn_h5_link_get(g, i, &k))) {
      status = h5Fail(rc);
      break;
    }
    char zChild[4096];
    snprintf(zChild, sizeof zChild, "%s/%s", strcmp(zPath, "/") == 0 ? "" : zPath, k.zName);
    const char *zShow = recursive ? zChild : k.zName;
    if (k.type == CAIRN_H5_LINK_SOFT) {
      printf("%-24s Soft Link {%s}\n", zShow, k.zTarget);
      continue;
    }
    if (k.type == CAIRN_H5_LINK_EXTERNAL) {
      printf("%-24s External Link {%s//%s}\n", zShow, k.zFile, k.zTarget);
      continue;
    }
    int seenKind = 0;
    const char *zSame = seenFind(pSeen, k.addr, &seenKind);
    if (zSame) { /* h5ls: an object reached again is named, not entered again */
      printf("%-24s %s, same as %s\n", zShow, kindName(seenKind), zSame);
      continue;
    }
    cairn_h5_obj *c;
    if ((rc = cairn_h5_get(h, zChild, &c))) {
      status = h5Fail(rc);
      continue;
    }
    cairn_h5_info ci;
    if ((rc = cairn_h5_info_get(c, &ci)) == CAIRN_OK) {
      printf("%-24s %s", zShow, kindName(ci.kind));
      if (ci.kind == CAIRN_H5_DATASET) {
        printf(" ");
        printShape(&ci);
      }
      printf("\n");
      if (seenAdd(pSeen, ci.addr, zChild, ci.kind)) status = 2;
    } else status = h5Fail(rc);
    cairn_h5_obj_close(c);
    if (recursive && status != 2 && rc == CAIRN_OK && ci.kind == CAIRN_H5_GROUP) status |= lsGroup(h, zChild, 1, depth + 1, pSeen);
  }
  cairn_h5_obj_close(g);
  return status ? 1 : 0;
}

/* --max-memory BYTES (also 64M, 2G, 1T): 0 ok, else the usage status */
static int parseBudget(const char *zCmd, const char *z, uint64_t *pn) {
  char *e;
  unsigned long long v = strtoull(z, &e, 10);
  int sh = *e == 'K' || *e == 'k' ? 10 : *e == 'M' || *e == 'm' ? 20 : *e == 'G' || *e == 'g' ? 30 : *e == 'T' || *e == 't' ? 40 : 0;
  if (sh) e++;
  if (e == z || *e || v > (UINT64_MAX >> sh)) return cliUsage(zCmd, "bad --max-memory '%s' (bytes, or with K, M, G, T)", z);
  *pn = (uint64_t)v << sh;
  return 0;
}

static int openFile(const char *zFile, cairn_h5 **ph, uint64_t nBudget) {
  int rc = cairn_h5_open_path(zFile, ph);
  if (rc) return h5Fail(rc);
  if (nBudget) cairn_h5_set_read_budget(*ph, nBudget);
  return 0;
}

int cliH5Ls(int argc, char **argv) {
  int rec = 0;
  uint64_t nBudget = 0;
  const char *zFile = NULL, *zPath = "/";
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-r") == 0) rec = 1;
    else if (strcmp(argv[i], "--max-memory") == 0 && i + 1 < argc) {
      if (parseBudget("ls", argv[++i], &nBudget)) return 2;
    } else if (!zFile) zFile = argv[i];
    else zPath = argv[i];
  }
  if (!zFile) return cliUsage("ls", "need an HDF5 FILE (a chunk store: ls --store S)");
  cairn_h5 *h;
  if (openFile(zFile, &h, nBudget)) return 1;
  Seen seen = {0};
  int st = lsGroup(h, zPath, rec, 0, &seen);
  seenFree(&seen);
  cairn_h5_close(h);
  return st;
}

/* --sel "start:stride:count:block,..." (one group per dimension) */
static int parseSel(const char *z, cairn_h5_sel *s) {
  memset(s, 0, sizeof(*s));
  while (*z && s->rank < CAIRN_H5_MAX_RANK) {
    unsigned long long a[4] = {0, 1, 1, 1};
    int n = 0;
    char *e;
    while (n < 4) {
      a[n++] = strtoull(z, &e, 10);
      if (e == z) return 1;
      z = e;
      if (*z != ':') break;
      z++;
    }
    unsigned r = s->rank++;
    s->start[r] = a[0], s->stride[r] = a[1], s->count[r] = a[2], s->block[r] = a[3];
    if (*z == ',') z++;
    else if (*z) return 1;
  }
  return 0;
}

/* Print o's values (as JSON; with json, inside {shape, type, data}). 1 after a failure, reported. */
static int printTypeAndValues(cairn_h5_obj *o, int json, const cairn_h5_sel *sel) {
  char *z;
  size_t n;
  cairn_h5_info in;
  int rc = cairn_h5_info_get(o, &in);
  if (rc) return h5Fail(rc);
  if (json) {
    printf("{\"shape\":[");
    for (unsigned i = 0; i < in.rank; i++) printf("%s%llu", i ? "," : "", (unsigned long long)in.dims[i]);
    printf("],\"type\":");
    if (cairn_h5_type_json(o, &z, &n) == CAIRN_OK) {
      fwrite(z, 1, n, stdout);
      cairn_free(z);
    } else printf("null");
    printf(",\"data\":");
  }
  if ((rc = cairn_h5_read_json(o, sel, &z, &n)) == CAIRN_OK) {
    fwrite(z, 1, n, stdout);
    cairn_free(z);
  } else if (json) printf("null");
  if (rc == CAIRN_OK || json) printf(json ? "}\n" : "\n");
  return rc ? h5Fail(rc) : 0;
}

int cliH5Dump(int argc, char **argv) {
  int json = 0;
  const char *zFile = NULL, *zPath = NULL;
  cairn_h5_sel sel, *pSel = NULL;
  uint64_t nBudget = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) json = 1;
    else if (strcmp(argv[i], "--max-memory") == 0 && i + 1 < argc) {
      if (parseBudget("h5 dump", argv[++i], &nBudget)) return 2;
    }
    else if (strcmp(argv[i], "--sel") == 0 && i + 1 < argc) {
      if (parseSel(argv[++i], &sel)) return cliUsage("h5 dump", "bad selection '%s' (start:stride:count:block,...)", argv[i]);
      pSel = &sel;
    }
    else if (!zFile) zFile = argv[i];
    else zPath = argv[i];
  }
  if (!zFile || !zPath) return cliUsage("h5 dump", "need FILE and PATH");
  cairn_h5 *h;
  if (openFile(zFile, &h, nBudget)) return 1;
  cairn_h5_obj *o;
  int rc = cairn_h5_get(h, zPath, &o);
  if (rc) {
    /* PATH@ATTR names an attribute */
    const char *at = strrchr(zPath, '@');
    if (at) {
      char zObj[4096];
      snprintf(zObj, sizeof zObj, "%.*s", (int)(at - zPath), zPath);
      cairn_h5_obj *p;
      if (cairn_h5_get(h, zObj[0] ? zObj : "/", &p) == CAIRN_OK) {
        rc = cairn_h5_attr(p, at + 1, &o);
        cairn_h5_obj_close(p);
      }
    }
  }
  if (rc) {
    cairn_h5_close(h);
    return h5Fail(rc);
  }
  int st = printTypeAndValues(o, json, pSel);
  cairn_h5_obj_close(o);
  cairn_h5_close(h);
  return st;
}

int cliH5Attrs(int argc, char **argv) {
  if (argc < 3) return cliUsage("h5 attrs", "need FILE and PATH");
  cairn_h5 *h;
  if (openFile(argv[1], &h, 0)) return 1;
  cairn_h5_obj *o;
  int rc = cairn_h5_get(h, argv[2], &o);
  cairn_h5_info in;
  if (rc == CAIRN_OK) rc = cairn_h5_info_get(o, &in);
  if (rc) {
    cairn_h5_close(h);
    return h5Fail(rc);
  }
  int st = 0; /* an attribute that fails is reported, the others still printed */
  for (size_t i = 0; i < in.nAttr; i++) {
    cairn_h5_obj *a;
    if ((rc = cairn_h5_attr_at(o, i, &a))) {
      st = h5Fail(rc);
      continue;
    }
    const char *zName = strrchr(cairn_h5_obj_path(a), '@') + 1;
    printf("%s = ", zName);
    st |= printTypeAndValues(a, 0, NULL);
    cairn_h5_obj_close(a);
  }
  cairn_h5_obj_close(o);
  cairn_h5_close(h);
  return st;
}

static const char *layoutName(int l) {
  return l == CAIRN_H5_COMPACT ? "compact" : l == CAIRN_H5_CONTIGUOUS ? "contiguous" : l == CAIRN_H5_CHUNKED ? "chunked" : "virtual";
}

int cliH5Info(int argc, char **argv) {
  int json = argc > 1 && strcmp(argv[1], "--json") == 0;
  if (json) argc--, argv++;
  if (argc < 3) return cliUsage("h5 info", "need FILE and PATH");
  cairn_h5 *h;
  if (openFile(argv[1], &h, 0)) return 1;
  cairn_h5_obj *o;
  int rc = cairn_h5_get(h, argv[2], &o);
  if (rc == CAIRN_OK && json) {
    char *z;
    size_t n;
    rc = cairn_h5_info_json(o, &z, &n);
    if (rc == CAIRN_OK) {
      printf("%.*s\n", (int)n, z);
      cairn_free(z);
    }
    cairn_h5_obj_close(o);
    cairn_h5_close(h);
    return rc ? h5Fail(rc) : 0;
  }
  cairn_h5_info in;
  if (rc == CAIRN_OK) rc = cairn_h5_info_get(o, &in);
  if (rc) {
    cairn_h5_close(h);
    return h5Fail(rc);
  }
  printf("path: %s\nkind: %s\naddress: %llu\n", argv[2], kindName(in.kind), (unsigned long long)in.addr);
  if (in.kind == CAIRN_H5_DATASET || in.kind == CAIRN_H5_DATATYPE) {
    char *z;
    size_t n;
    if (cairn_h5_type_json(o, &z, &n) == CAIRN_OK) {
      printf("type: %.*s\n", (int)n, z);
      cairn_free(z);
    }
  }
  if (in.kind == CAIRN_H5_DATASET) {
    printf("shape: ");
    printShape(&in);
    printf("\nlayout: %s\n", layoutName(in.layout));
    if (in.layout == CAIRN_H5_CHUNKED) {
      static const char *idx[] = {"v1 B-tree", "single chunk", "implicit", "fixed array", "extensible array", "v2 B-tree"};
      printf("chunk: {");
      for (unsigned i = 0; i < in.rank; i++) printf("%s%llu", i ? ", " : "", (unsigned long long)in.chunk[i]);
      printf("} (%s index)\n", in.chunkIndex >= 0 && in.chunkIndex <= 5 ? idx[in.chunkIndex] : "?");
    }
    for (unsigned i = 0; i < in.nFilter; i++) {
      printf("filter: %u %s", in.aFilter[i].id, in.aFilter[i].zName);
      for (unsigned k = 0; k < in.aFilter[i].nParam; k++) printf("%s%u", k ? "," : " [", in.aFilter[i].aParam[k]);
      printf("%s\n", in.aFilter[i].nParam ? "]" : "");
    }
  }
  if (in.kind == CAIRN_H5_GROUP) printf("links: %zu\n", in.nLink);
  for (size_t i = 0; i < in.nAttr; i++) {
    const char *z;
    if (cairn_h5_attr_name(o, i, &z) == CAIRN_OK) printf("attribute: %s\n", z);
  }
  cairn_h5_obj_close(o);
  cairn_h5_close(h);
  return 0;
}

/* Every dataset and attribute reachable from PATH, one JSON object per line:
** {"path":"/a/b","attr":"name"|null,"shape":[..],"type":{..},"data":..} or "error":"..." */
static void jsonEsc(const char *z) {
  putchar('"');
  for (; *z; z++) {
    if (*z == '"' || *z == '\\') printf("\\%c", *z);
    else if ((unsigned char)*z < 0x20) printf("\\u%04x", *z);
    else putchar(*z);
  }
  putchar('"');
}

/* 1 if the object failed (its line then carries "error") */
static int dumpOne(cairn_h5_obj *o, const char *zPath, const char *zAttr) {
  printf("{\"path\":");
  jsonEsc(zPath);
  printf(",\"attr\":");
  if (zAttr) jsonEsc(zAttr);
  else printf("null");
  cairn_h5_info in;
  char *z;
  size_t n;
  int rc = cairn_h5_info_get(o, &in);
  if (rc == CAIRN_OK) {
    printf(",\"shape\":");
    if (in.space == CAIRN_H5_SIMPLE) {
      printf("[");
      for (unsigned i = 0; i < in.rank; i++) printf("%s%llu", i ? "," : "", (unsigned long long)in.dims[i]);
      printf("]");
    } else printf(in.space == CAIRN_H5_NULL ? "\"null\"" : "\"scalar\"");
    if (cairn_h5_type_json(o, &z, &n) == CAIRN_OK) {
      printf(",\"type\":%.*s", (int)n, z);
      cairn_free(z);
    }
    rc = cairn_h5_read_json(o, NULL, &z, &n);
    if (rc == CAIRN_OK) {
      printf(",\"data\":");
      fwrite(z, 1, n, stdout);
      cairn_free(z);
    }
  }
  if (rc) {
    printf(",\"error\":");
    jsonEsc(cairn_errmsg());
  }
  printf("}\n");
  return rc != CAIRN_OK;
}

/* error lines: {"path":..,"attr":..,"error":".."}; returns 1 */
static int dumpError(const char *zPath, const char *zAttr) {
  printf("{\"path\":");
  jsonEsc(zPath);
  printf(",\"attr\":");
  if (zAttr) jsonEsc(zAttr);
  else printf("null");
  printf(",\"error\":");
  jsonEsc(cairn_errmsg());
  printf("}\n");
  return 1;
}

static int dumpAttrs(cairn_h5_obj *o, const char *zPath) {
  cairn_h5_info in;
  if (cairn_h5_info_get(o, &in)) return dumpError(zPath, "*");
  int nFail = 0;
  for (size_t i = 0; i < in.nAttr; i++) {
    cairn_h5_obj *a;
    const char *zName = NULL;
    if (cairn_h5_attr_name(o, i, &zName) || cairn_h5_attr_at(o, i, &a)) {
      nFail += dumpError(zPath, zName ? zName : "?");
      continue;
    }
    nFail += dumpOne(a, zPath, strrchr(cairn_h5_obj_path(a), '@') + 1);
    cairn_h5_obj_close(a);
  }
  return nFail;
}

/* The number of objects that failed below zPath. */
static int dumpTree(cairn_h5 *h, const char *zPath, int depth, Seen *pSeen) {
  cairn_h5_obj *o;
  int rc = cairn_h5_get(h, zPath, &o);
  if (rc) return dumpError(zPath, NULL);
  cairn_h5_info in;
  int nFail = 0;
  if (cairn_h5_info_get(o, &in) != CAIRN_OK) nFail += dumpError(zPath, NULL);
  else if (seenFind(pSeen, in.addr, NULL)) {
    /* reached again by another hard link (h5py's visititems: each object once) */
  } else if (seenAdd(pSeen, in.addr, zPath, in.kind)) nFail++;
  else {
    if (in.kind == CAIRN_H5_DATASET) nFail += dumpOne(o, zPath, NULL);
    nFail += dumpAttrs(o, zPath);
    if (in.kind == CAIRN_H5_GROUP && depth < 64) {
      for (size_t i = 0; i < in.nLink; i++) {
        cairn_h5_link k;
        if (cairn_h5_link_get(o, i, &k)) {
          nFail += dumpError(zPath, NULL);
          continue;
        }
        if (k.type != CAIRN_H5_LINK_HARD) continue;
        char zChild[4096];
        snprintf(zChild, sizeof zChild, "%s/%s", strcmp(zPath, "/") == 0 ? "" : zPath, k.zName);
        if (!seenFind(pSeen, k.addr, NULL)) nFail += dumpTree(h, zChild, depth + 1, pSeen);
      }
    }
  }
  cairn_h5_obj_close(o);
  return nFail;
}

int cliH5DumpAll(int argc, char **argv) {
  uint64_t nBudget = 0;
  const char *zFile = NULL, *zPath = "/";
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--max-memory") == 0 && i + 1 < argc) {
      if (parseBudget("h5 dumpall", argv[++i], &nBudget)) return 2;
    } else if (!zFile) zFile = argv[i];
    else zPath = argv[i];
  }
  if (!zFile) return cliUsage("h5 dumpall", "need FILE");
  cairn_h5 *h;
  if (openFile(zFile, &h, nBudget)) return 1;
  Seen seen = {0};
  int nFail = dumpTree(h, zPath, 0, &seen);
  seenFree(&seen);
  cairn_h5_close(h);
  if (nFail) fprintf(stderr, "cairn: h5 dumpall: %d object%s failed (their lines carry \"error\")\n", nFail, nFail == 1 ? "" : "s");
  return nFail ? 1 : 0;
}
#endif
