/*
** 2026-12-02
**
** cli/cmd_s3.c - s3:// URLs in the cairn CLI (native builds with libcurl: CAIRN_WITH_S3):
**   every command that opens a file by name reads s3://BUCKET/KEY (cairn ls, dump, info, hash...):
**     cliS3Install wraps the host's xOpen so that such a name opens hosts/s3.c's read-only,
**     block-cached file, and gives the host's pool more threads (chunk reads are range GETs that
**     wait on the network, not on a core: CAIRN_S3_THREADS, default 16);
**   cairn store put|get|ls|verify|push|pull --store S   the chunk store, S a local store file or
**     s3://BUCKET/PREFIX (core/cas/remote.c; layout in core/cas/FORMAT.md);
**   cairn store gc --store s3://... [--grace S] [--dry-run]   delete chunks no manifest names;
**   CAIRN_S3_STATS=1 prints the requests made and bytes fetched on stderr at exit.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifndef CAIRN_WITH_S3
#define CAIRN_WITH_S3 0
#endif

#if CAIRN_WITH_S3
#include "cairn/objstore.h"
#include "cairn/platform.h"

static int (*gPrevOpen)(void *, const char *, int, cairn_file **);

#if CAIRN_WITH_CAS
/* s3://BUCKET/PREFIX#NAME: a payload of the chunk store there (by catalog name or ID), as a
** read-only file that owns the store handles it needs. */
typedef struct PayloadFile {
  cairn_file base;
  cairn_file *in;
  cairn_rcas *r;
  cairn_objstore *os;
} PayloadFile;
static int pfRead(cairn_file *f, void *p, size_t n, uint64_t iOff, size_t *pnRead) {
  return cairn_file_read(((PayloadFile *)f)->in, p, n, iOff, pnRead);
}
static int pfWrite(cairn_file *f, const void *p, size_t n, uint64_t iOff) {
  return cairn_seterr(CAIRN_READONLY, "s3: a payload in a chunk store is read-only");
}
static int pfSize(cairn_file *f, uint64_t *pn) { return cairn_file_size(((PayloadFile *)f)->in, pn); }
static int pfTruncate(cairn_file *f, uint64_t n) { return pfWrite(f, NULL, 0, n); }
static int pfSync(cairn_file *f) { return CAIRN_OK; }
static int pfClose(cairn_file *f) {
  PayloadFile *x = (PayloadFile *)f;
  cairn_file_close(x->in);
  cairn_rcas_close(x->r);
  if (x->os) x->os->pMethods->xClose(x->os);
  free(x);
  return CAIRN_OK;
}
static const cairn_file_methods pfMethods = {1, pfRead, pfWrite, pfSize, pfTruncate, pfSync, pfClose, NULL, NULL, NULL, NULL};

static int payloadOpen(const char *zPath, const char *zHash, cairn_file **pp) {
  char zUrl[2048];
  snprintf(zUrl, sizeof zUrl, "%.*s", (int)(zHash - zPath), zPath);
  PayloadFile *x = calloc(1, sizeof *x);
  if (!x) return cairn_seterr(CAIRN_NOMEM, "out of memory");
  x->base.pMethods = &pfMethods;
  cairn_cas_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.readonly = 1;
  uint8_t aId[32];
  int rc = cairn_s3_open(zUrl, NULL, &x->os);
  if (rc == CAIRN_OK) rc = cairn_rcas_open(x->os, &cfg, &x->r);
  if (rc == CAIRN_OK && !(strlen(zHash + 1) == 64 && cairn_cas_id_parse(zHash + 1, aId) == CAIRN_OK))
    rc = cairn_rcas_name_get(x->r, zHash + 1, aId);
  if (rc == CAIRN_OK) rc = cairn_rcas_payload_file(x->r, aId, &x->in);
  if (rc) {
    pfClose(&x->base);
    return rc;
  }
  *pp = &x->base;
  return CAIRN_OK;
}
#endif

static int s3Open(void *pCtx, const char *zPath, int flags, cairn_file **pp) {
  if (cairn_s3_is_url(zPath)) {
    if (flags & (CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE))
      return cairn_seterr(CAIRN_UNSUPPORTED, "s3: %s: objects are read here, not written in place "
                          "(publish with cairn store put --store s3://...)", zPath);
#if CAIRN_WITH_CAS
    const char *zHash = strchr(zPath, '#');
    if (zHash) return payloadOpen(zPath, zHash, pp);
#endif
    return cairn_s3_file_open(zPath, NULL, pp);
  }
  if (!gPrevOpen) return cairn_seterr(CAIRN_UNSUPPORTED, "no host opens %s", zPath);
  return gPrevOpen(pCtx, zPath, flags, pp);
}

static void s3Stats(void) {
  cairn_s3_counters k;
  cairn_s3_get_counters(&k);
  if (!k.nRequest) return;
  fprintf(stderr, "s3: %llu requests (%llu GET, %llu PUT, %llu HEAD, %llu LIST), %llu bytes fetched, %llu sent, %llu retries\n",
          (unsigned long long)k.nRequest, (unsigned long long)k.nGet, (unsigned long long)k.nPut,
          (unsigned long long)k.nHead, (unsigned long long)k.nList, (unsigned long long)k.nBytesIn,
          (unsigned long long)k.nBytesOut, (unsigned long long)k.nRetry);
}

/* The hook main() calls once the platform host is installed. */
void cliS3Install(int argc, char **argv) {
  int any = 0;
  for (int i = 1; i < argc && !any; i++) any = cairn_s3_is_url(argv[i]);
  if (!any) return;
  const char *z = getenv("CAIRN_S3_THREADS");
  unsigned n = z && atoi(z) > 0 ? (unsigned)atoi(z) : 16;
  cairn_posix_install(n);
  cairn_host h = *cairn_host_get();
  gPrevOpen = h.xOpen;
  h.xOpen = s3Open;
  cairn_host_set(&h);
  if (getenv("CAIRN_S3_STATS") && *getenv("CAIRN_S3_STATS") && strcmp(getenv("CAIRN_S3_STATS"), "0") != 0) atexit(s3Stats);
}

/* ---------------------------------------------------------------- cairn store ... --store s3:// */
#if CAIRN_WITH_CAS /* cliOptValue and cliStoreArg: cli/cmd_cas.c */
typedef struct Remote {
  cairn_objstore *os;
  cairn_rcas *r;
} Remote;
static int remoteOpen(const char *zCmd, const char *zUrl, const cairn_cas_config *pCfg, Remote *p) {
  memset(p, 0, sizeof *p);
  int rc = cairn_s3_open(zUrl, NULL, &p->os);
  if (rc == CAIRN_OK) rc = cairn_rcas_open(p->os, pCfg, &p->r);
  if (rc) {
    if (p->os) p->os->pMethods->xClose(p->os);
    return cliFail(zCmd, rc);
  }
  return 0;
}
static void remoteClose(Remote *p) {
  cairn_rcas_close(p->r);
  if (p->os) p->os->pMethods->xClose(p->os);
}
static int resolve(const char *zCmd, Remote *p, const char *z, uint8_t aId[32]) {
  if (strlen(z) == 64 && cairn_cas_id_parse(z, aId) == CAIRN_OK) return 0;
  int rc = cairn_rcas_name_get(p->r, z, aId);
  return rc ? cliFail(zCmd, rc) : 0;
}
static void report(const char *zCmd, const cairn_rcas_report *q) {
  fprintf(stderr, "%s: %llu payloads, %llu chunks %s (%llu bytes), %llu chunks already there (%llu bytes), %llu names\n", zCmd,
          (unsigned long long)q->nPayload, (unsigned long long)q->nChunk, strcmp(zCmd, "store pull") ? "uploaded" : "fetched",
          (unsigned long long)q->nBytes,
          (unsigned long long)q->nChunkSkipped, (unsigned long long)q->nBytesSkipped, (unsigned long long)q->nName);
}

int cliStorePut(int argc, char **argv) {
  const char *zStore = cliStoreArg(argc, argv);
  if (!zStore || !cairn_s3_is_url(zStore)) return cliCasPut(argc, argv);
  const char *zName = NULL, *azFile[256];
  int nFile = 0, bNoName = 0, bQuiet = 0;
  cairn_cas_config cfg;
  memset(&cfg, 0, sizeof cfg);
  for (int i = 1; i < argc; i++) {
    const char *v;
    if ((v = cliOptValue(argc, argv, &i, "--store"))) continue;
    else if ((v = cliOptValue(argc, argv, &i, "--name"))) zName = v;
    else if (strcmp(argv[i], "--no-name") == 0) bNoName = 1;
    else if (strcmp(argv[i], "-q") == 0) bQuiet = 1;
    else if (strncmp(argv[i], "--zstd", 6) == 0 || strncmp(argv[i], "--zlib", 6) == 0) {
      cfg.codec = argv[i][3] == 's' ? CAIRN_ZSTD : CAIRN_DEFLATE;
      if (argv[i][6] == '=') cfg.level = atoi(argv[i] + 7);
      else if (argv[i][6]) return cliUsage("store put", "unknown option '%s'", argv[i]);
    } else if ((v = cliOptValue(argc, argv, &i, "--chunk"))) {
      unsigned a, b, c;
      if (sscanf(v, "%u,%u,%u", &a, &b, &c) != 3) return cliUsage("store put", "--chunk wants MIN,AVG,MAX in bytes");
      cfg.chunking.nMin = a, cfg.chunking.nAvg = b, cfg.chunking.nMax = c, cfg.chunking.level = 2;
    } else if (argv[i][0] == '-' && argv[i][1]) return cliUsage("store put", "unknown option '%s'", argv[i]);
    else if (nFile < 256) azFile[nFile++] = argv[i];
    else return cliUsage("store put", "at most 256 files at once");
  }
  if (nFile == 0) return cliUsage("store put", "need FILE");
  if (zName && nFile > 1) return cliUsage("store put", "--name needs a single FILE");
  Remote rm;
  if (remoteOpen("store put", zStore, &cfg, &rm)) return 1;
  int rc = CAIRN_OK;
  for (int i = 0; i < nFile && rc == CAIRN_OK; i++) {
    cairn_file *in;
    uint8_t aId[32];
    cairn_rcas_report q;
    rc = cliInput(azFile[i], &in);
    if (rc) break;
    const char *zBind = bNoName ? NULL : zName ? zName : strcmp(azFile[i], "-") ? azFile[i] : NULL;
    rc = cairn_rcas_put_file(rm.r, in, zBind, aId, &q);
    cairn_file_close(in);
    if (rc) break;
    char z[65];
    cairn_cas_id_hex(aId, z);
    if (nFile == 1) printf("%s\n", z);
    else printf("%s  %s\n", z, azFile[i]);
    if (!bQuiet && cliVerbosity > 0) report("store put", &q);
  }
  int st = rc ? cliFail("store put", rc) : 0;
  remoteClose(&rm);
  return st;
}

int cliStoreGet(int argc, char **argv) {
  const char *zStore = cliStoreArg(argc, argv);
  if (!zStore || !cairn_s3_is_url(zStore)) return cliCasGet(argc, argv);
  const char *zOut = NULL, *zRange = NULL, *zWhat = NULL;
  int flags = 0;
  for (int i = 1; i < argc; i++) {
    const char *v;
    if ((v = cliOptValue(argc, argv, &i, "--store"))) continue;
    else if ((v = cliOptValue(argc, argv, &i, "--range"))) zRange = v;
    else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) zOut = argv[++i];
    else if (strcmp(argv[i], "-f") == 0) flags |= CLI_OUT_FORCE;
    else if (argv[i][0] == '-' && argv[i][1]) return cliUsage("store get", "unknown option '%s'", argv[i]);
    else if (!zWhat) zWhat = argv[i];
    else return cliUsage("store get", "unexpected argument '%s'", argv[i]);
  }
  if (!zWhat || !zOut) return cliUsage("store get", "need ID and -o OUT");
  uint64_t iStart = 0, iEnd = UINT64_MAX;
  if (zRange) {
    char *e;
    iStart = strtoull(zRange, &e, 10);
    if (*e != ':') return cliUsage("store get", "--range wants START:END");
    if (e[1]) iEnd = strtoull(e + 1, NULL, 10);
  }
  Remote rm;
  if (remoteOpen("store get", zStore, NULL, &rm)) return 1;
  uint8_t aId[32];
  if (resolve("store get", &rm, zWhat, aId)) {
    remoteClose(&rm);
    return 1;
  }
  CliOut out;
  int st = cliOutOpen("store get", zOut, NULL, 0, flags, &out);
  if (st) {
    remoteClose(&rm);
    return st;
  }
  int rc = cairn_rcas_get_file(rm.r, aId, iStart, iEnd, out.f);
  rc = cliOutClose(&out, rc);
  st = rc ? cliFail("store get", rc) : 0;
  remoteClose(&rm);
  return st;
}

static int lsEach(void *pArg, const cairn_cas_entry *e) {
  uint64_t *a = pArg; /* [0] the count, [1] --json */
  cliCasLsLine(e, (int)a[1]);
  a[0]++;
  return 0;
}
int cliStoreLs(int argc, char **argv) {
  const char *zStore = cliStoreArg(argc, argv);
  if (!zStore || !cairn_s3_is_url(zStore)) return cliCasLs(argc, argv);
  Remote rm;
  if (remoteOpen("store ls", zStore, NULL, &rm)) return 1;
  uint64_t a[2] = {0, (uint64_t)cliTakeJson(&argc, argv)};
  int rc = cairn_rcas_list(rm.r, lsEach, a);
  int st = rc ? cliFail("store ls", rc) : 0;
  if (!rc) cliNote("%llu payloads\n", (unsigned long long)a[0]);
  remoteClose(&rm);
  return st;
}

static void onProblem(void *pArg, const char *zMsg) { fprintf(stderr, "cairn: %s: %s\n", (const char *)pArg, zMsg); }
int cliStoreVerify(int argc, char **argv) {
  const char *zStore = cliStoreArg(argc, argv);
  if (!zStore || !cairn_s3_is_url(zStore)) return cliCasVerify(argc, argv);
  Remote rm;
  if (remoteOpen("store verify", zStore, NULL, &rm)) return 1;
  uint64_t nBad = 0;
  int rc = cairn_rcas_verify(rm.r, onProblem, (void *)"store verify", &nBad);
  remoteClose(&rm);
  if (rc && nBad) {
    fprintf(stderr, "cairn: store verify: %llu problem%s\n", (unsigned long long)nBad, nBad == 1 ? "" : "s");
    return 1;
  }
  if (rc) return cliFail("store verify", rc);
  printf("ok: %s verified\n", zStore);
  return 0;
}

/* push LOCAL S3URL / pull S3URL LOCAL */
static int sync(int argc, char **argv, int bPush) {
  const char *zCmd = bPush ? "store push" : "store pull";
  if (argc != 3) return cliUsage(zCmd, bPush ? "need LOCAL s3://BUCKET/PREFIX" : "need s3://BUCKET/PREFIX LOCAL");
  const char *zLocal = bPush ? argv[1] : argv[2], *zUrl = bPush ? argv[2] : argv[1];
  if (!cairn_s3_is_url(zUrl)) return cliUsage(zCmd, "'%s' is not an s3:// URL", zUrl);
  cairn_cas_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.iVersion = 2, cfg.busyTimeoutMs = 5000, cfg.readonly = bPush;
  cairn_cas *cas;
  int rc = cairn_cas_open(zLocal, &cfg, &cas);
  if (rc) return cliFail(zCmd, rc);
  cairn_cas_stats s;
  cairn_cas_config rcfg;
  memset(&rcfg, 0, sizeof rcfg);
  if (cairn_cas_get_stats(cas, &s) == CAIRN_OK) rcfg.chunking = s.chunking; /* a new remote store: the local one's */
  Remote rm;
  if (remoteOpen(zCmd, zUrl, &rcfg, &rm)) {
    cairn_cas_close(cas);
    return 1;
  }
  cairn_rcas_report q;
  rc = bPush ? cairn_rcas_push(rm.r, cas, &q) : cairn_rcas_pull(rm.r, cas, &q);
  int rc2 = cairn_cas_close(cas);
  if (rc == CAIRN_OK) rc = rc2;
  remoteClose(&rm);
  if (rc) return cliFail(zCmd, rc);
  report(zCmd, &q);
  return 0;
}
/* gc --store s3://... [--grace SECONDS] [--dry-run] */
int cliStoreGc(int argc, char **argv) {
  const char *zStore = NULL;
  long long nGrace = 3600;
  int bDry = 0;
  for (int i = 1; i < argc; i++) {
    const char *v;
    char *e;
    if ((v = cliOptValue(argc, argv, &i, "--store"))) zStore = v;
    else if ((v = cliOptValue(argc, argv, &i, "--grace"))) {
      nGrace = strtoll(v, &e, 10);
      if (*e || nGrace < 0) return cliUsage("store gc", "--grace wants seconds");
    } else if (strcmp(argv[i], "--dry-run") == 0) bDry = 1;
    else return cliUsage("store gc", "unexpected argument '%s'", argv[i]);
  }
  if (!zStore || !cairn_s3_is_url(zStore)) return cliUsage("store gc", "need --store s3://BUCKET/PREFIX (a local store: cairn salvage)");
  Remote rm;
  if (remoteOpen("store gc", zStore, NULL, &rm)) return 1;
  cairn_rcas_gc_report q;
  int rc = cairn_rcas_gc(rm.r, (int64_t)nGrace * 1000, bDry, &q);
  remoteClose(&rm);
  if (rc) return cliFail("store gc", rc);
  printf("store gc: %llu chunks, %llu named by no manifest (%llu bytes): %llu deleted%s; %llu expired markers removed\n",
         (unsigned long long)q.nChunk, (unsigned long long)q.nUnused, (unsigned long long)q.nBytesUnused,
         (unsigned long long)q.nDeleted, bDry ? " (dry run)" : "", (unsigned long long)q.nMarker);
  return 0;
}
int cliStorePush(int argc, char **argv) { return sync(argc, argv, 1); }
int cliStorePull(int argc, char **argv) { return sync(argc, argv, 0); }
#endif
#else
void cliS3Install(int argc, char **argv) { (void)argc, (void)argv; }
#endif
