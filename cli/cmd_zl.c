/*
** 2026-11-29
**
** cli/cmd_zl.c - `cairn compress [-p PROFILE] [-l LEVEL] IN -o OUT` and `cairn decompress IN -o OUT`:
** OpenZL-format frames (format 26) through the streaming API, in bounded memory whatever the
** file size. Profiles: serial, u8, le-u16, le-u32, le-u64, le-i64, csv, and records:W1,W2,...
** (fixed-width records, one column per field).
*/
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli.h"
#if CAIRN_WITH_ZL

static uint32_t aField[CAIRN_ZL_MAX_FIELDS];
static int nField;
static int iGraph; /* --graph NAME (2026-12-02), 0 = the profile's own selection */

/* "records:W1,W2,..." -> aField/nField; 0 if it is not such a profile, -1 if malformed. */
static int zlRecords(const char *z) {
  if (strncmp(z, "records:", 8) != 0) return 0;
  nField = 0;
  for (z += 8; *z;) {
    char *e;
    long w = strtol(z, &e, 10);
    if (e == z || w < 1 || w > 4096 || nField == CAIRN_ZL_MAX_FIELDS || (*e && *e != ',')) return -1;
    aField[nField++] = (uint32_t)w;
    z = *e ? e + 1 : e;
  }
  return nField ? 1 : -1;
}

static int zlArgs(const char *zCmd, int argc, char **argv, int withProfile, const char **pzIn, const char **pzOut, int *pProfile,
                  int *pLevel, int *pFlags) {
  *pzIn = *pzOut = NULL;
  *pProfile = CAIRN_ZL_SERIAL;
  *pLevel = 0;
  nField = 0, iGraph = 0;
  for (int i = 1; i < argc; i++) {
    if (withProfile && strcmp(argv[i], "--graph") == 0 && i + 1 < argc) {
      iGraph = cairn_zl_graph_from_name(argv[++i]);
      if (iGraph < 0) return cliUsage(zCmd, "unknown graph '%s' (store, zstd, lz4, huffman, entropy, flatpack, bitpack; fse, field_lz: decode only)", argv[i]);
    } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) *pzOut = argv[++i];
    else if (strcmp(argv[i], "-f") == 0) *pFlags |= CLI_OUT_FORCE;
    else if (withProfile && strcmp(argv[i], "-l") == 0 && i + 1 < argc) {
      *pLevel = atoi(argv[++i]);
      if (*pLevel < 1 || *pLevel > 22) return cliUsage(zCmd, "level must be 1..22");
    }
    else if (withProfile && strcmp(argv[i], "-p") == 0 && i + 1 < argc) {
      int r = zlRecords(argv[++i]);
      if (r < 0) return cliUsage(zCmd, "bad record layout '%s' (records:W1,W2,... field widths 1..4096)", argv[i]);
      *pProfile = r ? CAIRN_ZL_SERIAL : cairn_zl_profile_from_name(argv[i]);
      if (*pProfile < 0)
        return cliUsage(zCmd, "unknown profile '%s' (serial, u8, le-u16, le-u32, le-u64, le-i64, csv, records:W1,W2,...)", argv[i]);
    } else if (!*pzIn && (argv[i][0] != '-' || !argv[i][1])) *pzIn = argv[i];
    else return cliUsage(zCmd, "unexpected argument '%s'", argv[i]);
  }
  if (!*pzIn || !*pzOut) return cliUsage(zCmd, "need IN and -o OUT");
  return 0;
}

/* An existing output of compress/decompress is replaced only with -f. */
static int zlRun(const char *zCmd, int argc, char **argv, int compress) {
  const char *zIn, *zOut;
  int profile, level, flags = 0, rc;
  if ((rc = zlArgs(zCmd, argc, argv, compress, &zIn, &zOut, &profile, &level, &flags))) return rc;
  cairn_file *in;
  CliOut out;
  if (cliOpenRead(zCmd, zIn, &in)) return 1;
  if ((rc = cliOutOpen(zCmd, zOut, &zIn, 1, flags, &out))) return cairn_file_close(in), rc;
  uint64_t nIn = 0, nOut = 0;
  if (compress && iGraph && !nField)
    rc = cairn_zl_compress_graph_file(profile, iGraph, level, in, out.f, cliProgress, (void *)zCmd, &nIn, &nOut);
  else if (compress && nField)
    rc = cairn_zl_compress_records_file(aField, nField, level, in, out.f, cliProgress, (void *)zCmd, &nIn, &nOut);
  else
    rc = compress ? cairn_zl_compress_file(profile, level, in, out.f, cliProgress, (void *)zCmd, &nIn, &nOut)
                  : cairn_zl_decompress_file(in, out.f, cliProgress, (void *)zCmd, &nIn, &nOut);
  cliProgressEnd();
  cairn_file_close(in);
  rc = cliOutClose(&out, rc);
  return rc ? cliFail(zCmd, rc) : 0;
}

int cliCompress(int argc, char **argv) { return zlRun("compress", argc, argv, 1); }
/* Decompression streams one chunk (a 2 MiB segment of `cairn compress`) at a time, and each
** chunk's decode allocates and frees its working streams (a few MiB). glibc's malloc returns
** that memory to the kernel after every chunk (the top of the heap is trimmed beyond 128 KiB;
** blocks beyond the mmap threshold are unmapped), so the next chunk faults the same amount in
** again: a 20 MiB frame took ~11K minor faults (zstd -d: ~1.2K), 40-50 ms of the command on a VM
** where a fresh page costs 4-16 us. Keeping freed memory in the process (no trimming, no mmap
** below 32 MiB) makes every chunk after the first reuse the pages of the one before: ~2K faults.
** The process ends after the command, so nothing is held longer than it lives. (issue 23) */
static void zlKeepHeap(void) {
#ifdef __GLIBC__
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
}
int cliDecompress(int argc, char **argv) {
  zlKeepHeap();
  return zlRun("decompress", argc, argv, 0);
}
#endif

#if CAIRN_WITH_ZL
/* `cairn zl info FRAME [--json]` (2026-12-02): a frame's outputs, chunks, decoder graph and
** streams (cairn_zl_info). The whole frame is read into memory. */
int cliZlInfo(int argc, char **argv) {
  const char *zIn = NULL;
  int json = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) json = 1;
    else if (!zIn) zIn = argv[i];
    else return cliUsage("zl info", "unexpected argument '%s'", argv[i]);
  }
  if (!zIn) return cliUsage("zl info", "need FRAME");
  cairn_file *f;
  if (cliOpenRead("zl info", zIn, &f)) return 1;
  uint64_t n = 0;
  uint8_t *p = NULL;
  int rc = cairn_file_size(f, &n);
  if (!rc && n > (1ull << 31)) rc = CAIRN_LIMIT;
  if (!rc && !(p = cairn_malloc((size_t)n + 1))) rc = CAIRN_NOMEM;
  if (!rc) rc = cairn_file_read_exact(f, p, (size_t)n, 0);
  cairn_file_close(f);
  char *z = NULL;
  size_t nz = 0;
  if (!rc) rc = cairn_zl_info(p, (size_t)n, json, &z, &nz);
  cairn_free(p);
  if (rc) return cliFail("zl info", rc);
  fwrite(z, 1, nz, stdout);
  cairn_free(z);
  return 0;
}
#endif
