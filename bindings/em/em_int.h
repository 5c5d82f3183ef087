/*
** 2026-12-02
**
** bindings/em/em_int.h - what the files of the Emscripten binding share (nothing here is
** exported to JS): the host's xOpen, defined with the JS-backed file in em_binding.c and
** installed by cairn_em_host_install in em_services.c.
*/
#ifndef CAIRN_EM_INT_H
#define CAIRN_EM_INT_H

#include "cairn/cairn.h"

/* Open zPath through the JS side (Module.cairnOpenPath, in Node) as a file the package owns. */
int cairnEmOpen(void *pCtx, const char *zPath, int flags, cairn_file **ppFile);

#endif /* CAIRN_EM_INT_H */
