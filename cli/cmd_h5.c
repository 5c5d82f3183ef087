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

/* A dataspace as h5ls prints it: {SCALAR}, {NULL}, {3, 4}, or with a max shape that differs
** somewhere {3/Inf, 4} (a dimension whose max differs shows cur/max). */
static void printShape(const cairn_h5_info *in) {
  if (in->space == CAIRN_H5_NULL) {
    printf("{NULL}");
    return;
  }
  if (in->space == CAIRN_H5_SCALAR) {
    printf("{SCALAR}");
    return;
  }
  int diff = 0;
  for (unsigned i = 0; i < in->rank; i++) diff |= in->maxdims[i] != in->dims[i];
  printf("{");
  for (unsigned i = 0; i < in->rank; i++) {
    printf("%s%llu", i ? ", " : "", (unsigned long long)in->dims[i]);
    if (!diff || in->maxdims[i] == in->dims[i]) continue;
    if (in->maxdims[i] == UINT64_MAX) printf("/Inf");
    else printf("/%llu", (unsigned long long)in->maxdims[i]);
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

static int gLsJson; /* ls --json: one JSON object per line instead of h5ls's text */

/* ls --json's line: {"path":..,"name":..,"kind":..} plus "shape"/"maxshape" (null: unlimited) for
** datasets, "target" (and "file") for links, "same_as" for an object reached again. */
static void lsJson(const char *zPath, const char *zShow, const char *zKind, const cairn_h5_info *in, const char *zTarget, const char *zFile, const char *zSame) {
  printf("{\"path\":");
  cliJsonStr(zPath);
  printf(",\"name\":");
  cliJsonStr(zShow);
  printf(",\"kind\":");
  cliJsonStr(zKind);
  if (in && in->kind == CAIRN_H5_DATASET) {
    if (in->space != CAIRN_H5_SIMPLE) printf(",\"shape\":%s", in->space == CAIRN_H5_NULL ? "null" : "[]");
    else {
      printf(",\"shape\":[");
      for (unsigned i = 0; i < in->rank; i++) printf("%s%llu", i ? "," : "", (unsigned long long)in->dims[i]);
      printf("],\"maxshape\":[");
      for (unsigned i = 0; i < in->rank; i++) {
        if (in->maxdims[i] == UINT64_MAX) printf("%snull", i ? "," : "");
        else printf("%s%llu", i ? "," : "", (unsigned long long)in->maxdims[i]);
      }
      printf("]");
    }
  }
  if (zTarget) printf(",\"target\":"), cliJsonStr(zTarget);
  if (zFile) printf(",\"file\":"), cliJsonStr(zFile);
  if (zSame) printf(",\"same_as\":"), cliJsonStr(zSame);
  printf("}\n");
}

/* One listing line: NAME padded as h5ls pads it, then what the link points to. 0, 1 failed
** (reported), 2 out of memory. zChild is the object's full path, zShow the name to print. */
static int lsLine(cairn_h5 *h, const cairn_h5_link *k, const char *zChild, const char *zShow, Seen *pSeen, int *pKind) {
  *pKind = -1;
  if (k->type == CAIRN_H5_LINK_SOFT) {
    if (gLsJson) lsJson(zChild, zShow, "Soft Link", NULL, k->zTarget, NULL, NULL);
    else printf("%-24s Soft Link {%s}\n", zShow, k->zTarget);
    return 0;
  }
  if (k->type == CAIRN_H5_LINK_EXTERNAL) {
    if (gLsJson) lsJson(zChild, zShow, "External Link", NULL, k->zTarget, k->zFile, NULL);
    else printf("%-24s External Link {%s/%s}\n", zShow, k->zFile, k->zTarget); /* h5ls: FILE/PATH */
    return 0;
  }
  int seenKind = 0;
  const char *zSame = seenFind(pSeen, k->addr, &seenKind);
  if (zSame) { /* h5ls: an object reached again is named, not entered again */
    if (gLsJson) lsJson(zChild, zShow, kindName(seenKind), NULL, NULL, NULL, zSame);
    else printf("%-24s %s, same as %s\n", zShow, kindName(seenKind), zSame);
    return 0;
  }
  cairn_h5_obj *c;
  int rc = cairn_h5_get(h, zChild, &c);
  if (rc) return h5Fail(rc);
  cairn_h5_info ci;
  int st = 0;
  if ((rc = cairn_h5_info_get(c, &ci)) == CAIRN_OK) {
    if (gLsJson) lsJson(zChild, zShow, kindName(ci.kind), &ci, NULL, NULL, NULL);
    else {
      printf("%-24s %s", zShow, kindName(ci.kind));
      if (ci.kind == CAIRN_H5_DATASET) {
        printf(" ");
        printShape(&ci);
      }
      printf("\n");
    }
    if (seenAdd(pSeen, ci.addr, zChild, ci.kind)) st = 2;
    *pKind = ci.kind;
  } else st = h5Fail(rc);
  cairn_h5_obj_close(c);
  return st;
}

typedef struct LsLink {
  char *zName;
  size_t iLink;
} LsLink;
static int lsCmp(const void *a, const void *b) { return strcmp(((const LsLink *)a)->zName, ((const LsLink *)b)->zName); }

/* The links of group zPath sorted by name (h5ls lists by the name index), each on a line: the
** bare name, or with recursive the path below zBase ("/a/b" for zBase "/", "/b" for zBase "/a").
** 0, or 1 (some object failed, reported), 2 out of memory (stops the walk). */
static int lsGroup(cairn_h5 *h, const char *zPath, const char *zBase, int recursive, int depth, Seen *pSeen) {
  cairn_h5_obj *g;
  int rc = cairn_h5_get(h, zPath, &g);
  if (rc) return h5Fail(rc);
  cairn_h5_info in;
  if ((rc = cairn_h5_info_get(g, &in))) {
    cairn_h5_obj_close(g);
    return h5Fail(rc);
  }
  int status = depth == 0 && seenAdd(pSeen, in.addr, zPath, in.kind) ? 2 : 0;
  LsLink *a = in.nLink ? calloc(in.nLink, sizeof *a) : NULL;
  if (in.nLink && !a) status = 2;
  size_t n = 0;
  for (size_t i = 0; i < in.nLink && status != 2; i++) {
    cairn_h5_link k;
    if ((rc = cairn_h5_link_get(g, i, &k))) {
      status = h5Fail(rc);
      break;
    }
    if (!(a[n].zName = strdup(k.zName))) status = 2;
    else a[n++].iLink = i;
  }
  if (n > 1) qsort(a, n, sizeof *a, lsCmp);
  size_t nBase = strcmp(zBase, "/") == 0 ? 0 : strlen(zBase);
  for (size_t j = 0; j < n && depth < 64 && status != 2; j++) {
    cairn_h5_link k;
    if ((rc = cairn_h5_link_get(g, a[j].iLink, &k))) {
      status = h5Fail(rc);
      break;
    }
    char zChild[4096];
    snprintf(zChild, sizeof zChild, "%s/%s", strcmp(zPath, "/") == 0 ? "" : zPath, a[j].zName);
    int kind;
    int st = lsLine(h, &k, zChild, recursive ? zChild + nBase : a[j].zName, pSeen, &kind);
    status = st == 2 ? 2 : status | st;
    if (recursive && status != 2 && st == 0 && kind == CAIRN_H5_GROUP) {
      st = lsGroup(h, zChild, zBase, 1, depth + 1, pSeen);
      status = st == 2 ? 2 : status | st;
    }
  }
  for (size_t j = 0; j < n; j++) free(a[j].zName);
  free(a);
  cairn_h5_obj_close(g);
  if (status == 2) fprintf(stderr, "cairn: ls: out of memory\n");
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

/* As h5ls: `ls -r FILE` starts with the "/ Group" line and lists full paths; `ls [-r] FILE PATH`
** lists group PATH's members (with -r as paths below it, "/x"), or the one object PATH names
** (its name; with -r its path without the leading "/"); a PATH that is not there fails. */
int cliH5Ls(int argc, char **argv) {
  int rec = 0;
  uint64_t nBudget = 0;
  const char *zFile = NULL, *zPath = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-r") == 0 || strcmp(argv[i], "--recursive") == 0) rec = 1;
    else if (strcmp(argv[i], "--json") == 0) gLsJson = 1;
    else if (strcmp(argv[i], "--max-memory") == 0) {
      if (i + 1 >= argc) return cliUsage("ls", "--max-memory needs a value");
      if (parseBudget("ls", argv[++i], &nBudget)) return 2;
    } else if (argv[i][0] == '-' && argv[i][1]) return cliUsage("ls", "unknown option '%s'", argv[i]);
    else if (!zFile) zFile = argv[i];
    else if (!zPath) zPath = argv[i];
    else return cliUsage("ls", "one FILE and at most one PATH, not '%s'", argv[i]);
  }
  if (!zFile) return cliUsage("ls", "need an HDF5 FILE (a chunk store: ls --store S)");
  cairn_h5 *h;
  if (openFile(zFile, &h, nBudget)) return 1;
  Seen seen = {0};
  int st = 0;
  char zAbs[4096];
  snprintf(zAbs, sizeof zAbs, "%s%s", zPath && zPath[0] == '/' ? "" : "/", zPath ? zPath : "");
  for (size_t n = strlen(zAbs); n > 1 && zAbs[n - 1] == '/'; n--) zAbs[n - 1] = 0;
  cairn_h5_obj *o;
  cairn_h5_info in;
  int rc = cairn_h5_get(h, zAbs, &o);
  if (rc == CAIRN_OK) {
    rc = cairn_h5_info_get(o, &in);
    cairn_h5_obj_close(o);
  }
  if (rc) st = h5Fail(rc);
  else if (in.kind != CAIRN_H5_GROUP) { /* one object: its line */
    cairn_h5_link k = {0};
    k.type = CAIRN_H5_LINK_HARD, k.addr = in.addr;
    int kind;
    st = lsLine(h, &k, zAbs, rec ? zAbs + 1 : strrchr(zAbs, '/') + 1, &seen, &kind) ? 1 : 0;
  } else {
    if (rec && !zPath && gLsJson) lsJson("/", "/", "Group", NULL, NULL, NULL, NULL);
    else if (rec && !zPath) printf("%-24s Group\n", "/");
    st = lsGroup(h, zAbs, zAbs, rec, 0, &seen);
  }
  seenFree(&seen);
  cairn_h5_close(h);
  return st;
}

/* ---- selections: every form ends as one start/stride/count/block per dimension ----
** --sel S, S one of
**   numpy-like, one item per dimension, comma-separated: I (one index), A:B (A to B-1; either may
**   be empty: 0 and the dimension's size; B past the end stops at it), or cairn's hyperslab
**   START:STRIDE:COUNT[:BLOCK];
**   h5dump's subset START;STRIDE;COUNT;BLOCK (each a comma list, one number per dimension; a part
**   left empty, or missing at the end, is 0 / 1 / 1 / 1 as in h5dump);
** or h5dump's -s/--start, -S/--stride, -c/--count, -k/--block L (comma lists, same defaults), or
** PATH[START;STRIDE;COUNT;BLOCK] as in `h5dump -d`. Anything else is refused with the reason. */
typedef struct SelSpec {
  const char *zSel;    /* --sel, or the [..] of PATH (bracketed: h5dump's form only) */
  const char *azH5[4]; /* -s -S -c -k */
  int bBracket;
} SelSpec;

/* A comma list of exactly rank numbers into a[]; 0 or the usage status. */
static int selList(const char *zWhat, const char *z, size_t n, unsigned rank, uint64_t *a) {
  unsigned i = 0;
  const char *zEnd = z + n;
  while (z < zEnd) {
    char *e;
    if (*z < '0' || *z > '9') return cliUsage("dump", "bad %s '%.*s': want %u comma-separated numbers", zWhat, (int)(zEnd - z), z, rank);
    unsigned long long v = strtoull(z, &e, 10);
    if (i == rank) return cliUsage("dump", "%s has more than the dataset's %u dimensions", zWhat, rank);
    a[i++] = v;
    z = e;
    if (z < zEnd && *z != ',') return cliUsage("dump", "bad %s: '%c' where a ',' or the end belongs", zWhat, *z);
    if (z < zEnd) z++;
  }
  if (i != rank) return cliUsage("dump", "%s gives %u numbers, the dataset has %u dimensions", zWhat, i, rank);
  return 0;
}

static int selResolve(const SelSpec *p, const cairn_h5_info *in, cairn_h5_sel *s) {
  unsigned rank = in->space == CAIRN_H5_SIMPLE ? in->rank : 0;
  memset(s, 0, sizeof(*s));
  if (!rank) return cliUsage("dump", "a selection needs a dataset with dimensions (this one is %s)", in->space == CAIRN_H5_NULL ? "NULL" : "scalar");
  s->rank = rank;
  for (unsigned d = 0; d < rank; d++) s->stride[d] = s->count[d] = s->block[d] = 1;
  uint64_t *aPart[4] = {s->start, s->stride, s->count, s->block};
  static const char *azPart[4] = {"start", "stride", "count", "block"};
  const char *z = p->zSel;
  if (z && (strchr(z, ';') || p->bBracket)) { /* h5dump: START;STRIDE;COUNT;BLOCK */
    for (int k = 0; k < 4 && z; k++) {
      const char *e = strchr(z, ';');
      size_t n = e ? (size_t)(e - z) : strlen(z);
      if (n && selList(azPart[k], z, n, rank, aPart[k])) return 2;
      z = e ? e + 1 : NULL;
    }
    if (z) return cliUsage("dump", "bad selection '%s': at most 4 ';'-separated parts (start;stride;count;block)", p->zSel);
  } else if (z) { /* one item per dimension */
    unsigned d = 0;
    while (*z) {
      if (d == rank) return cliUsage("dump", "selection '%s' has more items than the dataset's %u dimensions", p->zSel, rank);
      const char *e = z + strcspn(z, ",");
      unsigned long long v[4];
      int nv = 0, nColon = 0, empty[4] = {0};
      const char *q = z;
      for (;;) {
        char *f;
        if (nv == 4) return cliUsage("dump", "bad selection item '%.*s': at most 4 ':'-separated numbers", (int)(e - z), z);
        if (q == e || *q == ':') empty[nv] = 1, v[nv] = 0, f = (char *)q;
        else if (*q < '0' || *q > '9') return cliUsage("dump", "bad selection item '%.*s': numbers and ':' only (no negative indices or steps)", (int)(e - z), z);
        else v[nv] = strtoull(q, &f, 10);
        nv++;
        q = f;
        if (q == e) break;
        if (*q != ':') return cliUsage("dump", "bad selection item '%.*s'", (int)(e - z), z);
        nColon++, q++;
      }
      uint64_t n = in->dims[d];
      if (nColon == 0) { /* I */
        if (empty[0]) return cliUsage("dump", "empty selection item for dimension %u", d);
        if (v[0] >= n) return cliUsage("dump", "index %llu is outside dimension %u (size %llu)", v[0], d, (unsigned long long)n);
        s->start[d] = v[0];
      } else if (nColon == 1) { /* A:B, numpy */
        uint64_t a = empty[0] ? 0 : v[0], b = empty[1] ? n : v[1] > n ? n : v[1];
        if (a >= b) return cliUsage("dump", "'%.*s' selects nothing in dimension %u (size %llu)", (int)(e - z), z, d, (unsigned long long)n);
        s->start[d] = a, s->count[d] = b - a;
      } else { /* START:STRIDE:COUNT[:BLOCK] */
        for (int k = 0; k < nv; k++)
          if (empty[k]) return cliUsage("dump", "bad selection item '%.*s': START:STRIDE:COUNT[:BLOCK] needs every number (numpy steps: use -S)", (int)(e - z), z);
        s->start[d] = v[0], s->stride[d] = v[1], s->count[d] = v[2], s->block[d] = nv == 4 ? v[3] : 1;
      }
      d++;
      z = *e ? e + 1 : e;
    }
    if (d != rank) return cliUsage("dump", "selection '%s' has %u items, the dataset has %u dimensions", p->zSel, d, rank);
  } else
    for (int k = 0; k < 4; k++)
      if (p->azH5[k] && selList(azPart[k], p->azH5[k], strlen(p->azH5[k]), rank, aPart[k])) return 2;
  for (unsigned d = 0; d < rank; d++) {
    if (!s->stride[d] || !s->count[d] || !s->block[d])
      return cliUsage("dump", "stride, count and block must be at least 1 (dimension %u)", d);
    if (s->count[d] > 1 && s->block[d] > s->stride[d])
      return cliUsage("dump", "block %llu is larger than stride %llu in dimension %u (blocks would overlap)", (unsigned long long)s->block[d], (unsigned long long)s->stride[d], d);
    uint64_t last;
    if (__builtin_mul_overflow(s->count[d] - 1, s->stride[d], &last) || (last += s->start[d] + s->block[d]) > in->dims[d] || last < s->start[d])
      return cliUsage("dump", "the selection ends past dimension %u (size %llu)", d, (unsigned long long)in->dims[d]);
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
  SelSpec spec = {0};
  uint64_t nBudget = 0;
  static const char *azShort[4] = {"-s", "-S", "-c", "-k"}, *azLong[4] = {"--start", "--stride", "--count", "--block"};
  for (int i = 1; i < argc; i++) {
    const char *z = argv[i], *zVal = NULL;
    int k = -1;
    for (int j = 0; j < 4; j++) {
      size_t n = strlen(azLong[j]);
      if (strcmp(z, azShort[j]) == 0 || strcmp(z, azLong[j]) == 0) k = j;
      else if (strncmp(z, azLong[j], n) == 0 && z[n] == '=') k = j, zVal = z + n + 1;
    }
    if (k >= 0 || strcmp(z, "--sel") == 0 || strcmp(z, "--max-memory") == 0) {
      if (!zVal && i + 1 >= argc) return cliUsage("dump", "%s needs a value", z);
      if (!zVal) zVal = argv[++i];
      if (k >= 0) spec.azH5[k] = zVal;
      else if (z[2] == 's') spec.zSel = zVal;
      else if (parseBudget("dump", zVal, &nBudget)) return 2;
    } else if (strcmp(z, "--json") == 0) json = 1;
    else if (z[0] == '-' && z[1]) return cliUsage("dump", "unknown option '%s'", z);
    else if (!zFile) zFile = z;
    else if (!zPath) zPath = z;
    else return cliUsage("dump", "one FILE and one PATH, not '%s'", z);
  }
  if (!zFile || !zPath) return cliUsage("dump", "need FILE and PATH");
  char zObjPath[4096];
  snprintf(zObjPath, sizeof zObjPath, "%s", zPath);
  size_t nPath = strlen(zObjPath);
  char *zBr = strchr(zObjPath, '[');
  if (zBr && nPath && zObjPath[nPath - 1] == ']') { /* h5dump -d "PATH[START;STRIDE;COUNT;BLOCK]" */
    zObjPath[nPath - 1] = 0, *zBr = 0;
    spec.zSel = zBr + 1, spec.bBracket = 1;
  }
  int nForms = (spec.zSel != NULL) + (spec.azH5[0] || spec.azH5[1] || spec.azH5[2] || spec.azH5[3]);
  if (nForms > 1) return cliUsage("dump", "give the selection one way: --sel, -s/-S/-c/-k, or PATH[...]");
  cairn_h5 *h;
  if (openFile(zFile, &h, nBudget)) return 1;
  cairn_h5_obj *o;
  int rc = cairn_h5_get(h, zObjPath, &o);
  if (rc) {
    /* PATH@ATTR names an attribute */
    const char *at = strrchr(zObjPath, '@');
    if (at) {
      char zObj[4096];
      snprintf(zObj, sizeof zObj, "%.*s", (int)(at - zObjPath), zObjPath);
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
  cairn_h5_sel sel, *pSel = NULL;
  int st = 0;
  if (nForms) {
    cairn_h5_info in;
    if ((rc = cairn_h5_info_get(o, &in))) st = h5Fail(rc);
    else if (!(st = selResolve(&spec, &in, &sel))) pSel = &sel;
  }
  if (!st) st = printTypeAndValues(o, json, pSel);
  cairn_h5_obj_close(o);
  cairn_h5_close(h);
  return st;
}

static int dumpOne(cairn_h5_obj *o, const char *zPath, const char *zAttr); /* below */

/* cairn h5 attrs [--json] FILE PATH: "NAME = VALUE" lines, or with --json one line per attribute
** in dumpall's shape: {"path":PATH,"attr":NAME,"shape":[..],"type":{..},"data":..} ("error"
** instead of "data" for one that cannot be read). */
int cliH5Attrs(int argc, char **argv) {
  int json = cliTakeJson(&argc, argv);
  for (int i = 1; i < argc; i++)
    if (argv[i][0] == '-' && argv[i][1]) return cliUsage("h5 attrs", "unknown option '%s'", argv[i]);
  if (argc != 3) return cliUsage("h5 attrs", argc < 3 ? "need FILE and PATH" : "unexpected argument '%s'", argv[argc - 1]);
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
    if (json) {
      if (dumpOne(a, argv[2], zName)) st = 1;
      cairn_h5_obj_close(a);
      continue;
    }
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
/* 1 if the object failed (its line then carries "error") */
static int dumpOne(cairn_h5_obj *o, const char *zPath, const char *zAttr) {
  printf("{\"path\":");
  cliJsonStr(zPath);
  printf(",\"attr\":");
  if (zAttr) cliJsonStr(zAttr);
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
    cliJsonStr(cairn_errmsg());
  }
  printf("}\n");
  return rc != CAIRN_OK;
}

/* error lines: {"path":..,"attr":..,"error":".."}; returns 1 */
static int dumpError(const char *zPath, const char *zAttr) {
  printf("{\"path\":");
  cliJsonStr(zPath);
  printf(",\"attr\":");
  if (zAttr) cliJsonStr(zAttr);
  else printf("null");
  printf(",\"error\":");
  cliJsonStr(cairn_errmsg());
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
