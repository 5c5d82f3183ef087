/*
** 2026-11-29
**
** cli/cli.h - the cairn command line, shared by the native build and the WASI build
** (cairn.wasm). Every command is one row of the table in cli/cli.c (name, family, synopsis,
** options, help text, handler); `cairn help CMD` and `cairn CMD --help` print that row. The
** handlers live in one cli/cmd_<family>.c per family and are declared here. Commands print
** results on stdout and a one-line error on stderr, and return the process exit status (0 ok,
** 1 failure, 2 bad usage).
*/
#ifndef CAIRN_CLI_H
#define CAIRN_CLI_H
#include <stdint.h>
#include <stdio.h>

#include "cairn/cairn.h"

#ifndef CAIRN_WITH_H5 /* CMake defines all four; a bare compile gets the full CLI */
#define CAIRN_WITH_H5 1
#endif
#ifndef CAIRN_WITH_ZL
#define CAIRN_WITH_ZL 1
#endif
#ifndef CAIRN_WITH_CAS
#define CAIRN_WITH_CAS 1
#endif
#ifndef CAIRN_WITH_MEM
#define CAIRN_WITH_MEM 1
#endif
#ifndef CAIRN_WITH_KG
#define CAIRN_WITH_KG CAIRN_WITH_MEM
#endif

/* Where `cairn help` lists a command. */
enum { CLI_HASH, CLI_HDF5, CLI_STORE, CLI_CODEC, CLI_MEMORY, CLI_GENERAL };

typedef struct CliCommand {
  const char *zName;     /* "zstd", or a subcommand's own name ("ls" of "h5 ls") */
  const char *zParent;   /* NULL, or the command whose subcommand this is ("h5") */
  int iFamily;           /* CLI_HASH...: the group `cairn help` lists it in */
  const char *zSynopsis; /* the arguments after the name */
  const char *zOptions;  /* "OPTION\tWHAT\n" lines for `cairn help CMD`, or NULL */
  const char *zHelp;     /* one line */
  int (*xRun)(int argc, char **argv); /* argv[0] is the (sub)command name; NULL: has subcommands */
} CliCommand;

/* 0 with -q (no progress, no notes), 1 by default, 2 with -v (cli.c sets it before a command runs). */
extern int cliVerbosity;
/* Report a cairn failure ("cairn: hash: cannot open x: No such file") and return 1. */
int cliFail(const char *zCmd, int rc);
/* Report bad usage and return 2. */
int cliUsage(const char *zCmd, const char *zFmt, ...);
/* The progress line (cli/progress.c) on stderr: on a terminal, or with -v; never with -q. cliProgress
** is a cairn_progress_fn counting bytes (pArg: the label, "repack"); cliProgressItems counts
** items; cliProgressEnd ends the operation (clears the line). Done never goes back on screen. */
void cliProgress(void *pArg, uint64_t nDone, uint64_t nTotal);
void cliProgressItems(const char *zLabel, uint64_t nDone, uint64_t nTotal);
void cliProgressEnd(void);
/* An informational note on stderr (printf's format), dropped with -q (cli/progress.c). */
void cliNote(const char *zFmt, ...) __attribute__((format(printf, 1, 2)));
/* Open an input (cli/io.c): "-" is stdin; pipes, FIFOs and devices are read to their end.
** cliOpenRead reports a failure itself, cliInput returns the cairn status. */
int cliOpenRead(const char *zCmd, const char *zPath, cairn_file **pp);
int cliInput(const char *zPath, cairn_file **pp);

/* An output file (cli/io.c): "-" is stdout; a file is written as a temporary beside it and
** renamed over it by cliOutClose only on success. cliOutOpen refuses an output that is one of
** azIn[0..nIn) and, without CLI_OUT_FORCE or CLI_OUT_REPLACE, one that exists; it returns 0, or
** the exit status after reporting. cliOutClose(o, rc) commits if rc is CAIRN_OK, else removes the
** temporary; it returns rc or the failure of the commit (unreported). */
typedef struct CliOut {
  const char *zCmd, *zPath;
  char *zTmp; /* NULL: written in place (stdout, a FIFO, a device) */
  cairn_file *f;
} CliOut;
#define CLI_OUT_FORCE 1   /* -f: an existing output is replaced */
#define CLI_OUT_REPLACE 2 /* this command replaces an existing output without -f */
#define CLI_OUT_SEEK 4    /* written out of order: a regular file only, never a stream */
int cliOutOpen(const char *zCmd, const char *zOut, const char *const *azIn, int nIn, int flags, CliOut *o);
int cliOutClose(CliOut *o, int rc);
/* A JSON string on stdout, NULL as null (cli/io.c). */
void cliJsonStr(const char *z);
/* --json anywhere in argv: taken out (argv and *pArgc rewritten), 1 if it was there (cli/io.c). */
int cliTakeJson(int *pArgc, char **argv);
/* Is argument z the --help flag? */
int cliIsHelp(const char *z);

int cairnCliMain(int argc, char **argv);
/* cmd_s3.c: s3:// names for every command that opens a file (called by main once the host is in). */
void cliS3Install(int argc, char **argv);

/* ---- handlers (argv[0] is the command's own name) ---- */
int cliVersion(int argc, char **argv); /* cli.c */
int cliHelp(int argc, char **argv);
/* cmd_z.c: hashing and compression */
int cliHash(int argc, char **argv);
int cliZstd(int argc, char **argv);
int cliUnzstd(int argc, char **argv);
int cliGzip(int argc, char **argv);
int cliGunzip(int argc, char **argv);
#if CAIRN_WITH_H5
int cliLsAny(int argc, char **argv); /* cli.c: `ls` (HDF5, or the chunk store with --store) */
/* cmd_h5.c: the reader */
int cliH5Ls(int argc, char **argv);
int cliH5Info(int argc, char **argv);
int cliH5Dump(int argc, char **argv);
int cliH5Attrs(int argc, char **argv);
int cliH5DumpAll(int argc, char **argv);
/* cmd_h5w.c: the writer (its commands wait this long for a locked file unless --busy-timeout) */
#define CLI_BUSY_TIMEOUT_MS 5000
int cliH5wNew(int argc, char **argv);
int cliH5wGroup(int argc, char **argv);
int cliH5wDataset(int argc, char **argv);
int cliH5wAppend(int argc, char **argv);
int cliH5wWrite(int argc, char **argv);
int cliH5wAttr(int argc, char **argv);
int cliH5wSoftlink(int argc, char **argv);
int cliH5wVerify(int argc, char **argv);
int cliH5wLoop(int argc, char **argv);
int cliRepack(int argc, char **argv);
#endif
#if CAIRN_WITH_CAS /* cmd_cas.c */
int cliCasPut(int argc, char **argv);
int cliCasGet(int argc, char **argv);
int cliCasLs(int argc, char **argv);
int cliCasVerify(int argc, char **argv);
int cliCasSalvage(int argc, char **argv);
/* --opt VALUE or --opt=VALUE at argv[*pi]: the value (advancing *pi past a separate one), or NULL. */
const char *cliOptValue(int argc, char **argv, int *pi, const char *zOpt);
/* The value of argv's --store, or NULL. */
const char *cliStoreArg(int argc, char **argv);
/* One line of store ls (--json: {"id","size","name"}). */
void cliCasLsLine(const cairn_cas_entry *e, int json);
#endif
#if CAIRN_WITH_CAS && defined(CAIRN_WITH_S3) && CAIRN_WITH_S3 /* cmd_s3.c: cairn store ... (s3:// or a local store) */
int cliStorePut(int argc, char **argv);
int cliStoreGet(int argc, char **argv);
int cliStoreLs(int argc, char **argv);
int cliStoreVerify(int argc, char **argv);
int cliStorePush(int argc, char **argv);
int cliStorePull(int argc, char **argv);
int cliStoreGc(int argc, char **argv);
#endif
#if CAIRN_WITH_ZL /* cmd_zl.c */
int cliCompress(int argc, char **argv);
int cliDecompress(int argc, char **argv);
int cliZlInfo(int argc, char **argv);
#endif
#if CAIRN_WITH_MEM /* cmd_mem.c */
int cliMemAdd(int argc, char **argv);
int cliMemVerify(int argc, char **argv);
int cliMemSalvage(int argc, char **argv);
int cliMemSearch(int argc, char **argv);
int cliMemStats(int argc, char **argv);
int cliMemIndex(int argc, char **argv);
int cliMemCheckpoint(int argc, char **argv);
int cliMemDemo(int argc, char **argv);
int cliMemGet(int argc, char **argv);
int cliMemList(int argc, char **argv);
int cliMemUpdate(int argc, char **argv);
int cliMemDelete(int argc, char **argv);
int cliMemHistory(int argc, char **argv);
int cliMemExport(int argc, char **argv);
int cliMemImport(int argc, char **argv);
int cliMemCompact(int argc, char **argv);
int cliEvalLocomo(int argc, char **argv);
/* cmd_eph.c: the decision gate and the ephemeral tier */
int cliMemGate(int argc, char **argv);
int cliEphBench(int argc, char **argv);
#endif
#if CAIRN_WITH_KG /* cmd_kg.c: the knowledge graph beside a store (FILE.graph) */
int cliMemEntities(int argc, char **argv);
int cliMemFacts(int argc, char **argv);
int cliMemGraph(int argc, char **argv);
int cliMemExtract(int argc, char **argv);
int cliMemImportFacts(int argc, char **argv);
int cliMemExtractJson(int argc, char **argv);
int cliEvalLongmemeval(int argc, char **argv);
/* `cairn eval locomo --mode full` (cmd_mem.c): a graph filled by the extractor as turns are
** added, searched with cairn_kg_search instead of cairn_mem_search */
void *cliKgEvalBegin(void);
int cliKgEvalAdd(void *pKg, uint64_t id, const cairn_mem_record *r);
int cliKgEvalSearch(void *pKg, cairn_mem *m, const cairn_mem_query *q, cairn_mem_hit *aHit, uint32_t *pnHit);
void cliKgEvalEnd(void *pKg);
#elif CAIRN_WITH_MEM
static inline void *cliKgEvalBegin(void) { return NULL; }
static inline int cliKgEvalAdd(void *p, uint64_t id, const cairn_mem_record *r) { (void)p, (void)id, (void)r; return 0; }
static inline int cliKgEvalSearch(void *p, cairn_mem *m, const cairn_mem_query *q, cairn_mem_hit *a, uint32_t *pn) {
  (void)p;
  return cairn_mem_search(m, q, a, pn);
}
static inline void cliKgEvalEnd(void *p) { (void)p; }
#endif
#endif
