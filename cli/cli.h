/*
** 2026-11-29
**
** cli/cli.h - the cairn command line, shared by the native build and the WASI build
** (cairn.wasm). Each command is a function in a native/cli_*.c file, listed in the table in
** cli/cli.c. Commands print results on stdout and a one-line error on stderr, and return
** the process exit status (0 ok, 1 failure, 2 bad usage).
*/
#ifndef CAIRN_CLI_H
#define CAIRN_CLI_H
#include <stdint.h>
#include <stdio.h>

#include "cairn/cairn.h"

typedef struct CliCommand {
  const char *zName;
  int (*xRun)(int argc, char **argv); /* argv[0] is the command name */
  const char *zUsage;                 /* arguments, after the command name */
  const char *zHelp;                  /* one line */
} CliCommand;

/* Report a cairn failure ("cairn: hash: cannot open x: No such file") and return 1. */
int cliFail(const char *zCmd, int rc);
/* Report bad usage and return 2. */
int cliUsage(const char *zCmd, const char *zFmt, ...);
/* A progress bar on stderr, only when stderr is a terminal; a cairn_progress_fn. */
void cliProgress(void *pArg, uint64_t nDone, uint64_t nTotal);
void cliProgressEnd(void);
/* Open for reading / for writing (create + truncate). Report failure themselves. */
int cliOpenRead(const char *zCmd, const char *zPath, cairn_file **pp);
int cliOpenWrite(const char *zCmd, const char *zPath, cairn_file **pp);

int cairnCliMain(int argc, char **argv);

/* Command tables of the other cli_<module>.c files, NULL-terminated (cli.c lists and runs them). */
extern const CliCommand cliCasCommands[]; /* cmd_cas.c: put, get, ls, verify */
#endif
