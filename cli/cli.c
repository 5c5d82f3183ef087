/*
** 2026-11-29
**
** cli/cli.c - the cairn command dispatcher and the commands of the first slice:
** hash, zstd/unzstd, gzip/gunzip, version. Runs natively and as cairn.wasm under any WASI
** preview1 runtime (files through preopened directories).
*/
#include "cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cliFail(const char *zCmd, int rc) {
  const char *z = cairn_errmsg();
  fprintf(stderr, "cairn: %s: %s\n", zCmd, z[0] ? z : cairn_errstr(rc));
  return 1;
}

int cliUsage(const char *zCmd, const char *zFmt, ...) {
  va_list ap;
  va_start(ap, zFmt);
  fprintf(stderr, "cairn: %s: ", zCmd);
  vfprintf(stderr, zFmt, ap);
  fprintf(stderr, " (see 'cairn help')\n");
  va_end(ap);
  return 2;
}

static int gProgressShown;
void cliProgress(void *pArg, uint64_t nDone, uint64_t nTotal) {
  static int64_t lastNs;
  const char *zLabel = pArg ? (const char *)pArg : "";
  if (!isatty(2) || nTotal < (8u << 20)) return; /* only long operations, only on a terminal */
  int64_t now = cairn_host_get()->xClock ? cairn_host_get()->xClock(cairn_host_get()->pCtx, 1) : 0;
  if (nDone < nTotal && now - lastNs < 100000000) return;
  lastNs = now;
  int w = 30, k = nTotal ? (int)(nDone * (uint64_t)w / nTotal) : w;
  fprintf(stderr, "\r%s [", zLabel);
  for (int i = 0; i < w; i++) fputc(i < k ? '#' : '.', stderr);
  fprintf(stderr, "] %3d%% %llu/%llu MiB", nTotal ? (int)(nDone * 100 / nTotal) : 100,
          (unsigned long long)(nDone >> 20), (unsigned long long)(nTotal >> 20));
  gProgressShown = 1;
}
void cliProgressEnd(void) {
  if (gProgressShown) fprintf(stderr, "\r\033[K");
  gProgressShown = 0;
}

int cliOpenRead(const char *zCmd, const char *zPath, cairn_file **pp) {
  int rc = cairn_open(zPath, CAIRN_OPEN_READONLY, pp);
  return rc ? cliFail(zCmd, rc) : 0;
}
int cliOpenWrite(const char *zCmd, const char *zPath, cairn_file **pp) {
  int rc = cairn_open(zPath, CAIRN_OPEN_READWRITE | CAIRN_OPEN_CREATE | CAIRN_OPEN_TRUNCATE, pp);
  return rc ? cliFail(zCmd, rc) : 0;
}

/* cairn hash FILE... : SHA-256 of each file, in sha256sum's format. */
static int cmdHash(int argc, char **argv) {
  if (argc < 2) return cliUsage("hash", "missing FILE");
  int status = 0;
  for (int i = 1; i < argc; i++) {
    cairn_file *f;
    uint8_t d[32];
    char z[65];
    if (cliOpenRead("hash", argv[i], &f)) {
      status = 1;
      continue;
    }
    int rc = cairn_sha256_file(f, d);
    cairn_file_close(f);
    if (rc) {
      status = cliFail("hash", rc);
      continue;
    }
    cairn_hex(d, 32, z);
    printf("%s  %s\n", z, argv[i]);
  }
  return status;
}

/* zstd / unzstd / gzip / gunzip: IN -o OUT [-l LEVEL] */
static int zcmd(int argc, char **argv, cairn_zkind kind, int compress) {
  const char *zCmd = argv[0], *zIn = NULL, *zOut = NULL;
  int level = compress ? (kind == CAIRN_ZSTD ? 3 : 6) : 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) zOut = argv[++i];
    else if (compress && strcmp(argv[i], "-l") == 0 && i + 1 < argc) {
      char *e;
      level = (int)strtol(argv[++i], &e, 10);
      if (*e) return cliUsage(zCmd, "level '%s' is not a number", argv[i]);
    } else if (argv[i][0] == '-' && argv[i][1]) return cliUsage(zCmd, "unknown option '%s'", argv[i]);
    else if (!zIn) zIn = argv[i];
    else return cliUsage(zCmd, "unexpected argument '%s'", argv[i]);
  }
  if (!zIn || !zOut) return cliUsage(zCmd, "need IN and -o OUT");
  cairn_file *in, *out;
  if (cliOpenRead(zCmd, zIn, &in)) return 1;
  if (cliOpenWrite(zCmd, zOut, &out)) {
    cairn_file_close(in);
    return 1;
  }
  uint64_t nIn = 0, nOut = 0;
  int rc = compress ? cairn_zcompress_file(kind, level, in, out, cliProgress, (void *)zCmd, &nIn, &nOut)
                    : cairn_zdecompress_file(kind, in, out, cliProgress, (void *)zCmd, &nIn, &nOut);
  cliProgressEnd();
  if (rc == CAIRN_OK) rc = cairn_file_sync(out);
  cairn_file_close(in);
  int rc2 = cairn_file_close(out);
  if (rc == CAIRN_OK) rc = rc2;
  if (rc) return cliFail(zCmd, rc);
  fprintf(stderr, "%s: %llu -> %llu bytes\n", zIn, (unsigned long long)nIn, (unsigned long long)nOut);
  return 0;
}
static int cmdZstd(int c, char **v) { return zcmd(c, v, CAIRN_ZSTD, 1); }
static int cmdUnzstd(int c, char **v) { return zcmd(c, v, CAIRN_ZSTD, 0); }
static int cmdGzip(int c, char **v) { return zcmd(c, v, CAIRN_GZIP, 1); }
static int cmdGunzip(int c, char **v) { return zcmd(c, v, CAIRN_GZIP, 0); }

static int cmdVersion(int argc, char **argv) {
  (void)argc, (void)argv;
  printf("cairn %s (zstd %s, zlib %s, sha256 %s)\n", cairn_version(), cairn_zstd_version(),
         cairn_zlib_version(), cairn_sha256_kernel());
  return 0;
}

static int cmdHelp(int argc, char **argv);
int cliH5(int argc, char **argv);
int cliH5Ls(int argc, char **argv);   /* cli/cmd_h5.c: argv[0] is "ls" */
int cliH5Dump(int argc, char **argv); /* cli/cmd_h5.c: argv[0] is "dump" */
int cliH5w(int argc, char **argv);
int cliRepack(int argc, char **argv);
int cliCompress(int argc, char **argv);   /* cli/cmd_zl.c */
int cliDecompress(int argc, char **argv); /* cli/cmd_zl.c */
int cliMem(int argc, char **argv);  /* cli/cmd_mem.c */
int cliEval(int argc, char **argv); /* cli/cmd_mem.c */

/* `cairn ls [-r] FILE [PATH]` and `cairn dump [--json] FILE PATH`: the HDF5 reader's ls and dump
** under the names h5ls and h5dump users know (the same commands as `cairn h5 ls` and `cairn h5
** dump`). `cairn ls --store S` stays the chunk store's listing, in cmd_cas.c's table. */
static int cmdLsAny(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--store") != 0) continue;
    for (const CliCommand *c = cliCasCommands; c->zName; c++)
      if (strcmp(c->zName, "ls") == 0) return c->xRun(argc, argv);
  }
  return cliH5Ls(argc, argv);
}

static const CliCommand aCommand[] = {
  {"hash", cmdHash, "FILE...", "SHA-256 of files (sha256sum format)"},
  {"zstd", cmdZstd, "IN -o OUT [-l LEVEL]", "compress a file to a zstd frame"},
  {"unzstd", cmdUnzstd, "IN -o OUT", "decompress a zstd file"},
  {"gzip", cmdGzip, "IN -o OUT [-l LEVEL]", "compress a file to gzip"},
  {"gunzip", cmdGunzip, "IN -o OUT", "decompress a gzip file"},
  {"h5", cliH5, "ls|info|dump|attrs|dumpall FILE [PATH]", "read HDF5 files (ls -r, info, dump --json)"},
  {"ls", cmdLsAny, "[-r] FILE [PATH]", "list an HDF5 file's objects, like h5ls (= h5 ls)"},
  {"dump", cliH5Dump, "[--json] [--sel S] FILE PATH", "print a dataset's values, like h5dump -d (= h5 dump)"},
  {"repack", cliRepack, "[--filter SPEC] [--skip] IN OUT", "rewrite an HDF5 file with cairn's writer (SPEC: zstd:3, shuffle,deflate:6...)"},
  {"h5w", cliH5w, "SUB FILE ...", "write/edit HDF5: new, group, dataset, append, write, attr, softlink, verify, loop"},
  {"compress", cliCompress, "[-p PROFILE] [-l LEVEL] IN -o OUT", "compress to an OpenZL frame (profiles: serial u8 le-u16 le-u32 le-u64 le-i64 csv records:W1,W2,...)"},
  {"decompress", cliDecompress, "IN -o OUT", "decompress an OpenZL frame"},
  {"mem", cliMem, "add|search|stats|index|checkpoint|demo FILE ...", "agent memory store (see cli/cmd_mem.c)"},
  {"eval", cliEval, "locomo FILE.json [--mode M] [--json]", "retrieval quality on LoCoMo conversations"},
  {"version", cmdVersion, "", "print versions and the kernels in use"},
  {"help", cmdHelp, "", "this list"},
};

/* The module tables, after this file's own. */
static const CliCommand *const aModule[] = {cliCasCommands};

static void helpLine(const CliCommand *c) {
  char z[96];
  snprintf(z, sizeof z, "%s %s", c->zName, c->zUsage);
  printf("  %-36s %s\n", z, c->zHelp);
}

static int cmdHelp(int argc, char **argv) {
  (void)argc, (void)argv;
  printf("usage: cairn COMMAND [ARGS]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof(aCommand) / sizeof(aCommand[0]); i++) helpLine(&aCommand[i]);
  for (size_t m = 0; m < sizeof(aModule) / sizeof(aModule[0]); m++)
    for (const CliCommand *c = aModule[m]; c->zName; c++) helpLine(c);
  return 0;
}

int cairnCliMain(int argc, char **argv) {
  if (argc < 2) {
    cmdHelp(0, NULL);
    return 2;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) return cmdHelp(0, NULL);
  if (strcmp(argv[1], "--version") == 0) return cmdVersion(0, NULL);
  for (size_t i = 0; i < sizeof(aCommand) / sizeof(aCommand[0]); i++) {
    if (strcmp(argv[1], aCommand[i].zName) == 0) return aCommand[i].xRun(argc - 1, argv + 1);
  }
  for (size_t m = 0; m < sizeof(aModule) / sizeof(aModule[0]); m++)
    for (const CliCommand *c = aModule[m]; c->zName; c++)
      if (strcmp(argv[1], c->zName) == 0) return c->xRun(argc - 1, argv + 1);
  fprintf(stderr, "cairn: unknown command '%s' (see 'cairn help')\n", argv[1]);
  return 2;
}
