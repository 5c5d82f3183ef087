/*
** 2026-11-29
**
** cairn/platform.h - the hosts that ship with cairn, outside the core.
**
**   native (libcairn):  POSIX files through pread/pwrite/fsync, read-only mmap for xMap,
**                       clock_gettime, getrandom, and a pthread pool for parallel-for.
**   WASI (cairn.wasm):  files through WASI preview1 fd calls, sequential parallel-for.
**
** A program that links libcairn calls cairn_posix_install(0) once at start (0 threads means
** one per online CPU; 1 means no pool at all), or builds its own cairn_host.
*/
#ifndef CAIRN_PLATFORM_H
#define CAIRN_PLATFORM_H

#include "export.h"

#include "host.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Install the POSIX host with a pool of nThreads (0 = online CPUs). Call again to resize. */
CAIRN_API int cairn_posix_install(unsigned nThreads);
/* Stop the pool's threads and go back to the built-in default host. */
CAIRN_API void cairn_posix_shutdown(void);
/* Open a file with the POSIX host directly (CAIRN_OPEN_* flags). */
CAIRN_API int cairn_posix_open(const char *zPath, int flags, cairn_file **ppFile);
/* Like cairn_posix_open for an already-open descriptor; the handle owns and closes fd. */
CAIRN_API int cairn_posix_wrap_fd(int fd, int writable, cairn_file **ppFile);

/* WASI host (hosts/wasi.c): files through preopened directories, no threads. */
CAIRN_API int cairn_wasi_install(void);

#ifdef __cplusplus
}
#endif
#endif
