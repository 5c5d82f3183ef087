/*
** 2026-12-02
**
** cli/cmd_z.c - hashing and compression: `cairn hash` (SHA-256, sha256sum's format) and
** `cairn zstd|unzstd|gzip|gunzip IN -o OUT [-f]`, streamed between files in bounded memory ("-":
** standard input or output).
*/
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* cairn hash FILE... : SHA-256 of each file, in sha256sum's format ("-" is standard input). */
int cliHash(int argc, char **argv) {
  int json = cliTakeJson(&argc, argv);
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
    uint64_t nBytes = 0;
    int rc = cairn_sha256_file(f, d);
    if (rc == CAIRN_OK) rc = cairn_file_size(f, &nBytes);
    cairn_file_close(f);
    if (rc) {
      status = cliFail("hash", rc);
      continue;
    }
    cairn_hex(d, 32, z);
    if (json) { /* one object per line: {"path":..,"sha256":..,"bytes":N} */
      printf("{\"path\":");
      cliJsonStr(argv[i]);
      printf(",\"sha256\":\"%s\",\"bytes\":%llu}\n", z, (unsigned long long)nBytes);
    } else printf("%s  %s\n", z, argv[i]);
  }
  return status;
}

/* zstd / unzstd / gzip / gunzip: IN -o OUT [-l LEVEL] [-f] */
static int zcmd(int argc, char **argv, cairn_zkind kind, int compress) {
  const char *zCmd = argv[0], *zIn = NULL, *zOut = NULL;
  int level = compress ? (kind == CAIRN_ZSTD ? 3 : 6) : 0, flags = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) zOut = argv[++i];
    else if (strcmp(argv[i], "-f") == 0) flags |= CLI_OUT_FORCE;
    else if (compress && strcmp(argv[i], "-l") == 0 && i + 1 < argc) {
      char *e;
      level = (int)strtol(argv[++i], &e, 10);
      if (*e) return cliUsage(zCmd, "level '%s' is not a number", argv[i]);
    } else if (argv[i][0] == '-' && argv[i][1]) return cliUsage(zCmd, "unknown option '%s'", argv[i]);
    else if (!zIn) zIn = argv[i];
    else return cliUsage(zCmd, "unexpected argument '%s'", argv[i]);
  }
  if (!zIn || !zOut) return cliUsage(zCmd, "need IN and -o OUT");
  cairn_file *in;
  CliOut out;
  if (cliOpenRead(zCmd, zIn, &in)) return 1;
  int st = cliOutOpen(zCmd, zOut, &zIn, 1, flags, &out);
  if (st) {
    cairn_file_close(in);
    return st;
  }
  uint64_t nIn = 0, nOut = 0;
  int rc = compress ? cairn_zcompress_file(kind, level, in, out.f, cliProgress, (void *)zCmd, &nIn, &nOut)
                    : cairn_zdecompress_file(kind, in, out.f, cliProgress, (void *)zCmd, &nIn, &nOut);
  cliProgressEnd();
  cairn_file_close(in);
  rc = cliOutClose(&out, rc);
  if (rc) return cliFail(zCmd, rc);
  if (cliVerbosity) fprintf(stderr, "%s: %llu -> %llu bytes\n", zIn, (unsigned long long)nIn, (unsigned long long)nOut);
  return 0;
}
int cliZstd(int c, char **v) { return zcmd(c, v, CAIRN_ZSTD, 1); }
int cliUnzstd(int c, char **v) { return zcmd(c, v, CAIRN_ZSTD, 0); }
int cliGzip(int c, char **v) { return zcmd(c, v, CAIRN_GZIP, 1); }
int cliGunzip(int c, char **v) { return zcmd(c, v, CAIRN_GZIP, 0); }

