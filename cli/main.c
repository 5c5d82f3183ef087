/* 2026-11-29 - cli/main.c: main() of the cairn CLI, native and WASI. Installs the
** platform host, runs the command, flushes, and returns its status. */
#include "cairn/platform.h"
#include "cli.h"

int main(int argc, char **argv) {
#ifdef __wasi__
  int rc = cairn_wasi_install();
#else
  int rc = cairn_posix_install(0);
#endif
  if (rc) {
    fprintf(stderr, "cairn: cannot start: %s\n", cairn_errmsg());
    return 1;
  }
  cliS3Install(argc, argv); /* s3:// names (cli/cmd_s3.c; a no-op without libcurl) */
  int status = cairnCliMain(argc, argv);
  fflush(stdout);
#ifndef __wasi__
  cairn_posix_shutdown();
#endif
  return status;
}
