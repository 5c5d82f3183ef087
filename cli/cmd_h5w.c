/*
** 2026-11-29
**
** cli/cmd_h5w.c - `cairn h5w ...`: write and edit HDF5 files from the shell with cairn's
** writer (core/h5/WRITER.md). Every subcommand is one transaction: it commits (with sync) and
** exits, so a killed process leaves the file at its previous commit.
**
**   cairn h5w new FILE
**   cairn h5w group FILE PATH
**   cairn h5w dataset FILE PATH TYPE DIMS [--max DIMS] [--chunk DIMS] [--filter SPEC] [--fill V] [VALUE...]
**   cairn h5w append FILE PATH VALUE...
**   cairn h5w write FILE PATH ROW0 VALUE...   (overwrite whole rows from ROW0)
**   cairn h5w softlink FILE PATH TARGET
**   cairn h5w attr FILE OBJECT NAME TYPE VALUE...
**   cairn h5w verify FILE
**   cairn h5w loop FILE PATH N      (append N rows one at a time, one commit each; for kill tests)
**   cairn repack [--filter SPEC] [--skip] IN OUT   (any file the reader opens, rewritten by the writer)
**
** TYPE: i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 str (variable-length UTF-8). DIMS: 10, 0x4, 3x4x5;
** in --max, 'u' (or 0 in the first place) is unlimited.
*/
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#if CAIRN_WITH_H5

typedef struct CliType { const char *z; int kind; unsigned n; } CliType; /* kind 0 int 1 uint 2 float 3 str */
static const CliType aType[] = {{"i8", 0, 1}, {"i16", 0, 2}, {"i32", 0, 4}, {"i64", 0, 8}, {"u8", 1, 1}, {"u16", 1, 2},
                                {"u32", 1, 4}, {"u64", 1, 8}, {"f32", 2, 4}, {"f64", 2, 8}, {"str", 3, 16}};

static const CliType *typeFind(const char *z) {
  for (size_t i = 0; i < sizeof aType / sizeof aType[0]; i++)
    if (strcmp(aType[i].z, z) == 0) return &aType[i];
  return NULL;
}
static cairn_h5w_type *typeMake(const CliType *t) {
  if (t->kind == 3) return cairn_h5w_type_vstring(1);
  if (t->kind == 2) return cairn_h5w_type_float(t->n);
  return cairn_h5w_type_int(t->n, t->kind == 0);
}
/* Parse text values into p (element size t->n; strings: pointers into argv). */
static int parseValues(const char *zCmd, const CliType *t, char **az, int n, void *p) {
  for (int i = 0; i < n; i++) {
    char *e = NULL;
    uint8_t *o = (uint8_t *)p + (size_t)i * (t->kind == 3 ? sizeof(char *) : t->n);
    if (t->kind == 3) {
      memcpy(o, &az[i], sizeof(char *));
      continue;
    }
    if (t->kind == 2) {
      double v = strtod(az[i], &e);
      if (t->n == 4) {
        float f = (float)v;
        memcpy(o, &f, 4);
      } else memcpy(o, &v, 8);
    } else {
      long long v = t->kind == 0 ? strtoll(az[i], &e, 0) : (long long)strtoull(az[i], &e, 0);
      memcpy(o, &v, t->n); /* little-endian host */
    }
    if (!e || *e || e == az[i]) return cliUsage(zCmd, "'%s' is not a %s value", az[i], t->z);
  }
  return 0;
}
static int parseDims(const char *zCmd, const char *z, uint64_t *a, int *pRank, int bMax) {
  int r = 0;
  while (*z) {
    if (r == CAIRN_H5W_MAXRANK) return cliUsage(zCmd, "more than %d dimensions", CAIRN_H5W_MAXRANK);
    if (bMax && (*z == 'u' || *z == 'U')) {
      a[r++] = CAIRN_H5W_UNLIMITED;
      z++;
    } else {
      char *e;
      unsigned long long v = strtoull(z, &e, 10);
      if (e == z) return cliUsage(zCmd, "bad dimensions '%s'", z);
      a[r++] = v;
      z = e;
    }
    if (*z == 'x' || *z == ',') z++;
    else if (*z) return cliUsage(zCmd, "bad dimensions near '%s'", z);
  }
  *pRank = r;
  return 0;
}

/* create: no CAIRN_OPEN_TRUNCATE, cairn_h5w_create discards the old content itself (cheaper on
** ext4 than a truncate to zero, see cairn_h5w_create) */
static int openW(const char *zCmd, const char *zPath, int bCreate, cairn_file **pf, cairn_h5w **pw) {
  int rc = cairn_open(zPath, CAIRN_OPEN_READWRITE | (bCreate ? CAIRN_OPEN_CREATE : 0), pf);
  if (rc) return cliFail(zCmd, rc);
  rc = bCreate ? cairn_h5w_create(*pf, 0, pw) : cairn_h5w_open(*pf, CAIRN_H5W_RECLAIM, pw);
  if (rc) {
    cairn_file_close(*pf);
    return cliFail(zCmd, rc);
  }
  return 0;
}
static int closeW(const char *zCmd, cairn_file *f, cairn_h5w *w, int rc) {
  if (rc) {
    cliFail(zCmd, rc);
    cairn_h5w_discard(w);
    cairn_file_close(f);
    return 1;
  }
  rc = cairn_h5w_close(w);
  int rc2 = cairn_file_close(f);
  if (rc || rc2) return cliFail(zCmd, rc ? rc : rc2);
  return 0;
}

int cliH5wDataset(int argc, char **argv) {
  const char *zCmd = "h5w dataset";
  if (argc < 5) return cliUsage(zCmd, "need FILE PATH TYPE DIMS");
  const CliType *t = typeFind(argv[3]);
  if (!t) return cliUsage(zCmd, "unknown type '%s'", argv[3]);
  uint64_t dims[8], mx[8], ch[8];
  int rank, rMax = -1, rCh = -1, nVal = 0;
  if (parseDims(zCmd, argv[4], dims, &rank, 0)) return 2;
  cairn_h5w_dset_opts o = {0, NULL, NULL, NULL};
  char **azVal = cairn_malloc(sizeof(char *) * (size_t)(argc + 1));
  uint8_t fill[8];
  for (int i = 5; i < argc; i++) {
    if (strcmp(argv[i], "--max") == 0 && i + 1 < argc) {
      if (parseDims(zCmd, argv[++i], mx, &rMax, 1)) return 2;
    } else if (strcmp(argv[i], "--chunk") == 0 && i + 1 < argc) {
      if (parseDims(zCmd, argv[++i], ch, &rCh, 0)) return 2;
      o.chunk = ch;
    } else if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc) o.zFilters = argv[++i];
    else if (strcmp(argv[i], "--fill") == 0 && i + 1 < argc) {
      if (t->kind == 3 || parseValues(zCmd, t, &argv[i + 1], 1, fill)) return cliUsage(zCmd, "bad fill value");
      o.pFill = fill;
      i++;
    } else azVal[nVal++] = argv[i];
  }
  if ((rMax >= 0 && rMax != rank) || (rCh >= 0 && rCh != rank)) return cliUsage(zCmd, "--max/--chunk need %d dimensions", rank);
  for (int i = 0; rMax > 0 && i < 1; i++)
    if (mx[0] == 0) mx[0] = CAIRN_H5W_UNLIMITED;
  uint64_t nEl = 1;
  for (int i = 0; i < rank; i++) nEl *= dims[i];
  if (nVal && (uint64_t)nVal != nEl) return cliUsage(zCmd, "%d values for %llu elements", nVal, (unsigned long long)nEl);
  void *p = NULL;
  if (nVal) {
    p = cairn_malloc((size_t)nVal * 16);
    if (parseValues(zCmd, t, azVal, nVal, p)) return 2;
  }
  cairn_file *f;
  cairn_h5w *w;
  if (openW(zCmd, argv[1], 0, &f, &w)) return 1;
  cairn_h5w_type *ty = typeMake(t);
  int rc = cairn_h5w_dataset(w, argv[2], ty, rank, dims, rMax >= 0 ? mx : NULL, &o, p);
  cairn_h5w_type_free(ty);
  cairn_free(p);
  cairn_free(azVal);
  return closeW(zCmd, f, w, rc);
}

int cliH5wAppend(int argc, char **argv) {
  const char *zCmd = "h5w append";
  if (argc < 4) return cliUsage(zCmd, "need FILE PATH VALUE...");
  cairn_file *f;
  cairn_h5w *w;
  if (openW(zCmd, argv[1], 0, &f, &w)) return 1;
  int rank;
  uint64_t dims[8];
  int rc = cairn_h5w_shape(w, argv[2], &rank, dims);
  const CliType *t = NULL;
  void *p = NULL;
  uint64_t nRow = 0;
  if (!rc) {
    uint64_t row = 1;
    for (int i = 1; i < rank; i++) row *= dims[i];
    int nVal = argc - 3, cls = 0, bSigned = 0;
    size_t size = 0;
    rc = cairn_h5w_dtype(w, argv[2], &cls, &size, &bSigned);
    for (size_t i = 0; !rc && i < sizeof aType / sizeof aType[0]; i++)
      if (aType[i].n == size && ((cls == 0 && aType[i].kind == !bSigned) || (cls == 1 && aType[i].kind == 2) ||
                                 (cls == 9 && aType[i].kind == 3)))
        t = &aType[i];
    if (rc) {
    } else if (!t) rc = cairn_seterr(CAIRN_UNSUPPORTED, "append from the shell: dataset '%s' has class %d", argv[2], cls);
    else if (row == 0 || nVal % row) rc = cairn_seterr(CAIRN_RANGE, "%d values are not whole rows of %llu", nVal, (unsigned long long)row);
    else {
      nRow = (uint64_t)nVal / row;
      p = cairn_malloc((size_t)nVal * 16);
      if (parseValues(zCmd, t, argv + 3, nVal, p)) rc = CAIRN_MISUSE;
    }
  }
  if (!rc) rc = cairn_h5w_append(w, argv[2], nRow, p);
  cairn_free(p);
  return closeW(zCmd, f, w, rc);
}

/* cairn h5w write FILE PATH ROW0 VALUE... : overwrite whole rows starting at ROW0 */
int cliH5wWrite(int argc, char **argv) {
  const char *zCmd = "h5w write";
  if (argc < 5) return cliUsage(zCmd, "need FILE PATH ROW0 VALUE...");
  char *e;
  unsigned long long row0 = strtoull(argv[3], &e, 10);
  if (*e) return cliUsage(zCmd, "ROW0 '%s' is not a number", argv[3]);
  cairn_file *f;
  cairn_h5w *w;
  if (openW(zCmd, argv[1], 0, &f, &w)) return 1;
  int rank, cls = 0, bSigned = 0;
  uint64_t dims[8];
  size_t size = 0;
  const CliType *t = NULL;
  void *p = NULL;
  uint64_t nRow = 0;
  int rc = cairn_h5w_shape(w, argv[2], &rank, dims);
  if (!rc) rc = cairn_h5w_dtype(w, argv[2], &cls, &size, &bSigned);
  for (size_t i = 0; !rc && i < sizeof aType / sizeof aType[0]; i++)
    if (aType[i].n == size && ((cls == 0 && aType[i].kind == !bSigned) || (cls == 1 && aType[i].kind == 2) ||
                               (cls == 9 && aType[i].kind == 3)))
      t = &aType[i];
  if (!rc && !t) rc = cairn_seterr(CAIRN_UNSUPPORTED, "write from the shell: dataset '%s' has class %d", argv[2], cls);
  if (!rc) {
    uint64_t row = 1;
    for (int i = 1; i < rank; i++) row *= dims[i];
    int nVal = argc - 4;
    if (row == 0 || nVal % row) rc = cairn_seterr(CAIRN_RANGE, "%d values are not whole rows of %llu", nVal, (unsigned long long)row);
    else {
      nRow = (uint64_t)nVal / row;
      p = cairn_malloc((size_t)nVal * 16);
      if (parseValues(zCmd, t, argv + 4, nVal, p)) rc = CAIRN_MISUSE;
    }
  }
  if (!rc) rc = cairn_h5w_write(w, argv[2], row0, nRow, p);
  cairn_free(p);
  return closeW(zCmd, f, w, rc);
}

int cliH5wAttr(int argc, char **argv) {
  const char *zCmd = "h5w attr";
  if (argc < 6) return cliUsage(zCmd, "need FILE OBJECT NAME TYPE VALUE...");
  const CliType *t = typeFind(argv[4]);
  if (!t) return cliUsage(zCmd, "unknown type '%s'", argv[4]);
  int n = argc - 5;
  void *p = cairn_malloc((size_t)n * 16);
  if (parseValues(zCmd, t, argv + 5, n, p)) return 2;
  cairn_file *f;
  cairn_h5w *w;
  if (openW(zCmd, argv[1], 0, &f, &w)) return 1;
  cairn_h5w_type *ty = typeMake(t);
  uint64_t d = (uint64_t)n;
  int rc = cairn_h5w_attr(w, argv[2], argv[3], ty, n == 1 ? 0 : 1, &d, p);
  cairn_h5w_type_free(ty);
  cairn_free(p);
  return closeW(zCmd, f, w, rc);
}

/* Append rows [k, k, k, k] (f32) one at a time, setting attribute "rows" with each commit. */
int cliH5wLoop(int argc, char **argv) {
  const char *zCmd = "h5w loop";
  if (argc < 4) return cliUsage(zCmd, "need FILE PATH N");
  long n = strtol(argv[3], NULL, 10);
  cairn_file *f;
  cairn_h5w *w;
  if (openW(zCmd, argv[1], 0, &f, &w)) return 1;
  int rank;
  uint64_t dims[8];
  int rc = cairn_h5w_shape(w, argv[2], &rank, dims);
  cairn_h5w_type *ti = cairn_h5w_type_int(8, 1), *ts = cairn_h5w_type_vstring(1);
  for (long i = 0; i < n && !rc; i++) {
    float row[4];
    int64_t total = (int64_t)dims[0] + 1;
    for (int k = 0; k < 4; k++) row[k] = (float)dims[0];
    rc = cairn_h5w_append(w, argv[2], 1, row);
    if (!rc) rc = cairn_h5w_attr(w, argv[2], "rows", ti, 0, NULL, &total);
    char z[48];
    snprintf(z, sizeof z, "row %lld", (long long)total);
    const char *pz = z;
    if (!rc && i % 3 == 0) rc = cairn_h5w_attr(w, "/", "last", ts, 0, NULL, &pz);
    if (!rc) rc = cairn_h5w_commit(w);
    dims[0]++;
  }
  cairn_h5w_type_free(ti);
  cairn_h5w_type_free(ts);
  return closeW(zCmd, f, w, rc);
}

int cliH5wNew(int argc, char **argv) {
  if (argc < 2) return cliUsage("h5w new", "need FILE");
  cairn_file *f;
  cairn_h5w *w;
  if (openW("h5w new", argv[1], 1, &f, &w)) return 1;
  return closeW("h5w new", f, w, 0);
}

int cliH5wGroup(int argc, char **argv) {
  if (argc < 3) return cliUsage("h5w group", "need FILE PATH");
  cairn_file *f;
  cairn_h5w *w;
  if (openW("h5w group", argv[1], 0, &f, &w)) return 1;
  return closeW("h5w group", f, w, cairn_h5w_group(w, argv[2]));
}

int cliH5wSoftlink(int argc, char **argv) {
  if (argc < 4) return cliUsage("h5w softlink", "need FILE PATH TARGET");
  cairn_file *f;
  cairn_h5w *w;
  if (openW("h5w softlink", argv[1], 0, &f, &w)) return 1;
  return closeW("h5w softlink", f, w, cairn_h5w_softlink(w, argv[2], argv[3]));
}

int cliH5wVerify(int argc, char **argv) {
  if (argc < 2) return cliUsage("h5w verify", "need FILE");
  cairn_file *f;
  cairn_h5w *w;
  int rc = cairn_open(argv[1], CAIRN_OPEN_READONLY, &f);
  if (rc) return cliFail("h5w verify", rc);
  rc = cairn_h5w_open(f, CAIRN_H5W_READONLY, &w);
  uint8_t d[32];
  if (!rc) {
    rc = cairn_h5w_verify(w, d);
    cairn_h5w_discard(w);
  }
  cairn_file_close(f);
  if (rc) return cliFail("h5w verify", rc);
  char z[65];
  cairn_hex(d, 32, z);
  printf("%s  %s\n", z, argv[1]);
  return 0;
}

/* cairn repack [--filter SPEC] [--skip] [-f] IN OUT (an existing OUT is replaced only with -f) */
int cliRepack(int argc, char **argv) {
  const char *zCmd = "repack", *zIn = NULL, *zOut = NULL, *zFilter = NULL;
  unsigned flags = 0;
  int outFlags = CLI_OUT_SEEK;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc) zFilter = argv[++i];
    else if (strcmp(argv[i], "--skip") == 0) flags |= CAIRN_H5W_REPACK_SKIP;
    else if (strcmp(argv[i], "-f") == 0) outFlags |= CLI_OUT_FORCE;
    else if (argv[i][0] == '-' && argv[i][1]) return cliUsage(zCmd, "unknown option '%s'", argv[i]);
    else if (!zIn) zIn = argv[i];
    else if (!zOut) zOut = argv[i];
    else return cliUsage(zCmd, "unexpected argument '%s'", argv[i]);
  }
  if (!zIn || !zOut) return cliUsage(zCmd, "need IN OUT");
  cairn_file *in;
  CliOut out;
  if (cliOpenRead(zCmd, zIn, &in)) return 1;
  int st = cliOutOpen(zCmd, zOut, &zIn, 1, outFlags, &out);
  if (st) {
    cairn_file_close(in);
    return st;
  }
  cairn_clearerr();
  int rc = cairn_h5w_repack_progress(in, out.f, zFilter, flags, cliProgress, (void *)"repack");
  cliProgressEnd();
  if (rc == CAIRN_OK && cairn_errmsg()[0]) fprintf(stderr, "cairn: repack: warning: %s\n", cairn_errmsg());
  cairn_file_close(in);
  rc = cliOutClose(&out, rc);
  return rc ? cliFail(zCmd, rc) : 0;
}
#endif
