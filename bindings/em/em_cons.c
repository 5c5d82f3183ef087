/*
** 2026-12-02
**
** bindings/em/em_cons.c - Emscripten glue for consolidation, the session tick and explain
** (cairn/consolidate.h), used by js/src/consolidate.js. The JSON forms cross as they are; only a
** memory id (64 bits) crosses as a double, as in em_mem.c.
*/
#include <emscripten.h>

#include "cairn/cairn.h"
#include "cairn/consolidate.h"

/* Declared here (not in em_exports.h) so that this module stays one file. */
int cairn_em_mem_explain(cairn_mem *m, double id, const char *zOpts, char **pz);

EMSCRIPTEN_KEEPALIVE int cairn_em_mem_explain(cairn_mem *m, double id, const char *zOpts, char **pz) {
  if (!(id >= 1 && id < 9007199254740992.0)) return cairn_seterr(CAIRN_MISUSE, "explain: id must be a positive integer");
  return cairn_mem_explain_opts_json(m, (uint64_t)id, zOpts, pz);
}
