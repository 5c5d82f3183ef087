/*
** 2026-11-29
**
** cli/cmd_cas.c - the chunk store commands of the cairn CLI (native and WASI):
**   cairn put    --store PATH [--name NAME] [--zstd[=L] | --zlib[=L]] [--chunk MIN,AVG,MAX] FILE...
**   cairn get    --store PATH ID|NAME [--range START:END] -o OUT   (OUT "-": standard output)
**   cairn ls     --store PATH
**   cairn verify --store PATH
**   cairn salvage --store PATH -o NEW [-f] [--zstd[=L] | --zlib[=L]]
** put prints the payload ID (64 hex digits; "ID  FILE" lines for several files, published in
** one transaction). Long operations show a progress bar when stderr is a terminal. Every command
** takes --busy-timeout MS (default 5000): how long it waits for another writer of the store to
** finish (put) before failing with "locked"; so put loops on one store take turns.
** With --store s3://BUCKET/PREFIX (native builds with the S3 host) put, get, ls and verify are
** `cairn store put|get|ls|verify` (cli/cmd_s3.c). cliOptValue and cliStoreArg are shared with it.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#if CAIRN_WITH_CAS
#include "cairn/cas.h"
#if CAIRN_WITH_S3
#include "cairn/objstore.h"
#endif

const char *cliOptValue(int argc, char **argv, int *pi, const char *zOpt) {
  size_t n = strlen(zOpt);
  const char *a = argv[*pi];
  if (strncmp(a, zOpt, n) != 0) return NULL;
  if (a[n] == '=') return a + n + 1;
  if (a[n] == 0 && *pi + 1 < argc) return argv[++*pi];
  return NULL;
}
const char *cliStoreArg(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *v = cliOptValue(argc, argv, &i, "--store");
    if (v) return v;
  }
  return NULL;
}

/* --store s3://...: the command is the S3 chunk store's (cli/cmd_s3.c), which hands a local store back. */
#if CAIRN_WITH_S3
#define S3_ROUTE(xStore)                                                   \
  do {                                                                     \
    const char *zS3_ = cliStoreArg(argc, argv);                            \
    if (zS3_ && cairn_s3_is_url(zS3_)) return xStore(argc, argv);          \
  } while (0)
#else
#define S3_ROUTE(xStore) ((void)0)
#endif

static int parseU64(const char *z, uint64_t *pv) {
  char *e;
  if (!z || !*z) return 0;
  *pv = strtoull(z, &e, 10);
  return *e == 0;
}

#define BUSY_DEFAULT_MS 5000

/* --busy-timeout MS into cfg (also the default); 1 if argv[*pi] was it, -1 on a bad value. */
static int optBusy(int argc, char **argv, int *pi, cairn_cas_config *cfg) {
  cfg->iVersion = 2;
  if (cfg->busyTimeoutMs == 0) cfg->busyTimeoutMs = BUSY_DEFAULT_MS;
  const char *v = cliOptValue(argc, argv, pi, "--busy-timeout");
  if (!v) return 0;
  uint64_t ms;
  if (!parseU64(v, &ms) || ms > 86400000) return -1;
  cfg->busyTimeoutMs = ms ? (int64_t)ms : -2; /* 0: try once (-2 stands for it until openCfg) */
  return 1;
}
/* The config for cairn_cas_open: the busy timeout as cairn_file_lock takes it. */
static cairn_cas_config openCfg(cairn_cas_config cfg) {
  if (cfg.iVersion < 2) cfg.iVersion = 2, cfg.busyTimeoutMs = BUSY_DEFAULT_MS;
  if (cfg.busyTimeoutMs == -2) cfg.busyTimeoutMs = 0;
  return cfg;
}
/* --zstd[=L] or --zlib[=L]: 1 if argv[i] was one, -1 if malformed. */
static int optCodec(const char *a, cairn_cas_config *cfg) {
  if (strncmp(a, "--zstd", 6) != 0 && strncmp(a, "--zlib", 6) != 0) return 0;
  cfg->codec = a[3] == 's' ? CAIRN_ZSTD : CAIRN_DEFLATE;
  if (a[6] == '=') cfg->level = atoi(a + 7);
  else if (a[6]) return -1;
  return 1;
}

/* ID as 64 hex digits, or a name in the catalog. */
static int resolveId(const char *zCmd, cairn_cas *cas, const char *z, uint8_t aId[32]) {
  if (strlen(z) == 64 && cairn_cas_id_parse(z, aId) == CAIRN_OK) return 0;
  int rc = cairn_cas_name_get(cas, z, aId);
  return rc ? cliFail(zCmd, rc) : 0;
}

int cliCasPut(int argc, char **argv) {
  S3_ROUTE(cliStorePut);
  const char *zStore = NULL, *zName = NULL;
  const char *azFile[256];
  int nFile = 0, bNoName = 0;
  cairn_cas_config cfg;
  memset(&cfg, 0, sizeof cfg);
  for (int i = 1; i < argc; i++) {
    const char *v;
    int k;
    if ((v = cliOptValue(argc, argv, &i, "--store"))) zStore = v;
    else if ((v = cliOptValue(argc, argv, &i, "--name"))) zName = v;
    else if (strcmp(argv[i], "--no-name") == 0) bNoName = 1;
    else if ((k = optBusy(argc, argv, &i, &cfg)) != 0) {
      if (k < 0) return cliUsage("put", "--busy-timeout wants milliseconds");
    } else if ((k = optCodec(argv[i], &cfg)) != 0) {
      if (k < 0) return cliUsage("put", "unknown option '%s'", argv[i]);
    } else if ((v = cliOptValue(argc, argv, &i, "--chunk"))) {
      unsigned a, b, c;
      if (sscanf(v, "%u,%u,%u", &a, &b, &c) != 3) return cliUsage("put", "--chunk wants MIN,AVG,MAX in bytes");
      cfg.chunking.nMin = a, cfg.chunking.nAvg = b, cfg.chunking.nMax = c, cfg.chunking.level = 2;
    } else if (strcmp(argv[i], "--no-sync") == 0) cfg.noSync = 1;
    else if (argv[i][0] == '-' && argv[i][1]) return cliUsage("put", "unknown option '%s'", argv[i]);
    else if (nFile < 256) azFile[nFile++] = argv[i];
    else return cliUsage("put", "at most 256 files at once");
  }
  if (!zStore || nFile == 0) return cliUsage("put", "need --store PATH and FILE");
  if (zName && nFile > 1) return cliUsage("put", "--name needs a single FILE");
  cairn_cas *cas;
  cfg = openCfg(cfg);
  int rc = cairn_cas_open(zStore, &cfg, &cas);
  if (rc) return cliFail("put", rc);
  uint8_t aId[256][32];
  if (nFile > 1 && (rc = cairn_cas_begin(cas)) != CAIRN_OK) goto done;
  for (int i = 0; i < nFile && rc == CAIRN_OK; i++) {
    cairn_file *in;
    rc = cliInput(azFile[i], &in); /* "-": standard input, named only with --name */
    if (rc) break;
    rc = cairn_cas_put_file(cas, in, cliProgress, (void *)"put", aId[i]);
    cliProgressEnd();
    cairn_file_close(in);
    if (rc == CAIRN_OK && !bNoName && (zName || strcmp(azFile[i], "-") != 0))
      rc = cairn_cas_name_set(cas, zName ? zName : azFile[i], aId[i]);
  }
  if (rc == CAIRN_OK && nFile > 1) rc = cairn_cas_commit(cas);
done:
  if (rc) {
    int r = cliFail("put", rc);
    cairn_cas_close(cas);
    return r;
  }
  for (int i = 0; i < nFile; i++) {
    char z[65];
    cairn_cas_id_hex(aId[i], z);
    if (nFile == 1) printf("%s\n", z);
    else printf("%s  %s\n", z, azFile[i]);
  }
  rc = cairn_cas_close(cas);
  return rc ? cliFail("put", rc) : 0;
}

int cliCasGet(int argc, char **argv) {
  S3_ROUTE(cliStoreGet);
  const char *zStore = NULL, *zOut = NULL, *zRange = NULL, *zWhat = NULL;
  int flags = 0; /* an existing output is replaced only with -f */
  cairn_cas_config cfg;
  memset(&cfg, 0, sizeof cfg);
  for (int i = 1; i < argc; i++) {
    const char *v;
    int k;
    if ((v = cliOptValue(argc, argv, &i, "--store"))) zStore = v;
    else if ((k = optBusy(argc, argv, &i, &cfg)) != 0) {
      if (k < 0) return cliUsage("get", "--busy-timeout wants milliseconds");
    } else if ((v = cliOptValue(argc, argv, &i, "--range"))) zRange = v;
    else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) zOut = argv[++i];
    else if (strcmp(argv[i], "-f") == 0) flags |= CLI_OUT_FORCE;
    else if (argv[i][0] == '-' && argv[i][1]) return cliUsage("get", "unknown option '%s'", argv[i]);
    else if (!zWhat) zWhat = argv[i];
    else return cliUsage("get", "unexpected argument '%s'", argv[i]);
  }
  if (!zStore || !zWhat || !zOut) return cliUsage("get", "need --store PATH, ID and -o OUT");
  uint64_t iStart = 0, iEnd = UINT64_MAX;
  if (zRange) {
    const char *zColon = strchr(zRange, ':');
    char zA[32] = "", zB[32] = "";
    if (!zColon || (size_t)(zColon - zRange) >= sizeof zA || strlen(zColon + 1) >= sizeof zB)
      return cliUsage("get", "--range wants START:END (bytes, END exclusive; either may be empty)");
    memcpy(zA, zRange, (size_t)(zColon - zRange));
    strcpy(zB, zColon + 1);
    if ((zA[0] && !parseU64(zA, &iStart)) || (zB[0] && !parseU64(zB, &iEnd)))
      return cliUsage("get", "--range '%s': START and END must be numbers", zRange);
    if (iEnd < iStart) return cliUsage("get", "--range '%s': END is before START", zRange);
  }
  cfg = openCfg(cfg);
  cfg.readonly = 1;
  cairn_cas *cas;
  int rc = cairn_cas_open(zStore, &cfg, &cas);
  if (rc) return cliFail("get", rc);
  uint8_t aId[32];
  if (resolveId("get", cas, zWhat, aId)) {
    cairn_cas_close(cas);
    return 1;
  }
  uint64_t nSize;
  rc = cairn_cas_stat(cas, aId, &nSize);
  if (rc == CAIRN_OK && zRange && iStart > nSize)
    rc = cairn_seterr(CAIRN_RANGE, "range %s starts after the end of the payload (%llu bytes)", zRange, (unsigned long long)nSize);
  CliOut out;
  int bOut = 0;
  if (rc == CAIRN_OK) {
    int st = cliOutOpen("get", zOut, &zStore, 1, flags, &out); /* never over the store itself */
    if (st) {
      cairn_cas_close(cas);
      return st;
    }
    bOut = 1;
  }
  if (rc == CAIRN_OK) rc = cairn_cas_get_file(cas, aId, iStart, iEnd, out.f, cliProgress, (void *)"get");
  cliProgressEnd();
  if (bOut) rc = cliOutClose(&out, rc); /* a failed get leaves no partial output behind */
  if (rc) {
    int r = cliFail("get", rc);
    cairn_cas_close(cas);
    return r;
  }
  cairn_cas_close(cas);
  return 0;
}

/* Open --store read-only; *pzStore (may be NULL) receives its path. */
static int openReadonly(const char *zCmd, int argc, char **argv, cairn_cas **pp, const char **pzStore) {
  const char *zStore = NULL;
  cairn_cas_config cfg;
  memset(&cfg, 0, sizeof cfg);
  for (int i = 1; i < argc; i++) {
    const char *v;
    int k;
    if ((v = cliOptValue(argc, argv, &i, "--store"))) zStore = v;
    else if ((k = optBusy(argc, argv, &i, &cfg)) != 0) {
      if (k < 0) return cliUsage(zCmd, "--busy-timeout wants milliseconds");
    } else return cliUsage(zCmd, "unexpected argument '%s'", argv[i]);
  }
  if (!zStore) return cliUsage(zCmd, "need --store PATH");
  cfg = openCfg(cfg);
  cfg.readonly = 1;
  if (pzStore) *pzStore = zStore;
  int rc = cairn_cas_open(zStore, &cfg, pp);
  return rc ? cliFail(zCmd, rc) : 0;
}

/* One payload of store ls: "ID  SIZE  NAME" ("-": no name), or with --json
** {"id":"64 hex","size":N,"name":"..."|null}. Shared with cmd_s3.c's listing of s3:// stores. */
void cliCasLsLine(const cairn_cas_entry *e, int json) {
  char z[65];
  cairn_cas_id_hex(e->aId, z);
  if (json) {
    printf("{\"id\":\"%s\",\"size\":%llu,\"name\":", z, (unsigned long long)e->nSize);
    cliJsonStr(e->zName);
    printf("}\n");
  } else printf("%s  %12llu  %s\n", z, (unsigned long long)e->nSize, e->zName ? e->zName : "-");
}

int cliCasLs(int argc, char **argv) {
  S3_ROUTE(cliStoreLs);
  int json = cliTakeJson(&argc, argv);
  cairn_cas *cas;
  int r = openReadonly("ls", argc, argv, &cas, NULL);
  if (r) return r;
  for (size_t i = 0; i < cairn_cas_count(cas); i++) {
    cairn_cas_entry e;
    if (cairn_cas_entry_at(cas, i, &e) == CAIRN_OK) cliCasLsLine(&e, json);
  }
  cairn_cas_stats s;
  if (cairn_cas_get_stats(cas, &s) == CAIRN_OK)
    cliNote("%llu payloads, %llu names, %llu chunks: %llu bytes, %llu stored, store file %llu bytes\n",
            (unsigned long long)s.nPayload, (unsigned long long)s.nName, (unsigned long long)s.nChunk,
            (unsigned long long)s.nRawBytes, (unsigned long long)s.nStoredBytes, (unsigned long long)s.nFileBytes);
  cairn_cas_close(cas);
  return 0;
}

/* A problem verify or salvage reports, as one stderr line; pArg is the command's name. */
static void onProblem(void *pArg, const char *zMsg) {
  cliProgressEnd();
  fprintf(stderr, "cairn: %s: %s\n", (const char *)pArg, zMsg);
}

int cliCasVerify(int argc, char **argv) {
  S3_ROUTE(cliStoreVerify);
  cairn_cas *cas;
  const char *zStore = NULL;
  int r = openReadonly("verify", argc, argv, &cas, &zStore);
  if (r) return r;
  uint64_t nBad = 0;
  int rc = cairn_cas_verify(cas, cliProgress, (void *)"verify", onProblem, (void *)"verify", &nBad);
  cliProgressEnd();
  cairn_cas_stats s;
  cairn_cas_get_stats(cas, &s);
  if (rc) {
    /* What is lost and what is intact, payload by payload. */
    size_t nIntact = 0, n = cairn_cas_count(cas);
    for (size_t i = 0; i < n; i++) {
      cairn_cas_entry e;
      char z[65];
      if (cairn_cas_entry_at(cas, i, &e) != CAIRN_OK) continue;
      cairn_cas_id_hex(e.aId, z);
      if (cairn_cas_check(cas, e.aId) == CAIRN_OK) nIntact++;
      else fprintf(stderr, "cairn: verify: damaged payload %s  %s: %s\n", z, e.zName ? e.zName : "-", cairn_errmsg());
    }
    cairn_cas_close(cas);
    fprintf(stderr, "cairn: verify: %llu problem%s; %zu of %zu listed payloads intact (cairn salvage --store %s -o NEW copies them)\n",
            (unsigned long long)nBad, nBad == 1 ? "" : "s", nIntact, n, zStore);
    return 1;
  }
  cairn_cas_close(cas);
  printf("ok: %llu payloads, %llu chunks, %llu bytes verified\n", (unsigned long long)s.nPayload, (unsigned long long)s.nChunk,
         (unsigned long long)s.nRawBytes);
  return 0;
}

int cliCasSalvage(int argc, char **argv) {
  const char *zStore = NULL, *zOut = NULL;
  int flags = CLI_OUT_SEEK;
  cairn_cas_config cfg, dcfg;
  memset(&cfg, 0, sizeof cfg);
  memset(&dcfg, 0, sizeof dcfg);
  for (int i = 1; i < argc; i++) {
    const char *v;
    int k;
    if ((v = cliOptValue(argc, argv, &i, "--store"))) zStore = v;
    else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) zOut = argv[++i];
    else if (strcmp(argv[i], "-f") == 0) flags |= CLI_OUT_FORCE;
    else if ((k = optBusy(argc, argv, &i, &cfg)) != 0) {
      if (k < 0) return cliUsage("salvage", "--busy-timeout wants milliseconds");
    } else if ((k = optCodec(argv[i], &dcfg)) != 0) {
      if (k < 0) return cliUsage("salvage", "unknown option '%s'", argv[i]);
    } else return cliUsage("salvage", "unexpected argument '%s'", argv[i]);
  }
  if (!zStore || !zOut) return cliUsage("salvage", "need --store PATH and -o NEW");
  cfg = openCfg(cfg);
  cfg.readonly = 1;
  cairn_cas *src, *dst = NULL;
  int rc = cairn_cas_open(zStore, &cfg, &src);
  if (rc) return cliFail("salvage", rc);
  CliOut out; /* written as a temporary beside NEW, renamed over it only on success */
  int st = cliOutOpen("salvage", zOut, &zStore, 1, flags, &out);
  if (st) {
    cairn_cas_close(src);
    return st;
  }
  cairn_cas_stats s;
  rc = cairn_cas_get_stats(src, &s);
  dcfg.chunking = s.chunking; /* the same IDs */
  dcfg.iVersion = 2, dcfg.busyTimeoutMs = 0;
  if (rc == CAIRN_OK) rc = cairn_cas_open(out.zTmp, &dcfg, &dst);
  cairn_cas_salvage_report rep;
  if (rc == CAIRN_OK) rc = cairn_cas_salvage(src, dst, onProblem, (void *)"salvage", &rep);
  int rc2 = cairn_cas_close(dst);
  if (rc == CAIRN_OK) rc = rc2;
  rc = cliOutClose(&out, rc);
  cairn_cas_close(src);
  if (rc) return cliFail("salvage", rc);
  printf("salvaged %llu payloads and %llu names into %s; dropped %llu payloads and %llu names; %llu damaged regions skipped\n",
         (unsigned long long)rep.nPayloadKept, (unsigned long long)rep.nNameKept, zOut, (unsigned long long)rep.nPayloadDropped,
         (unsigned long long)rep.nNameDropped, (unsigned long long)rep.nDamage);
  return 0;
}
#endif
