/*
** 2026-12-02
**
** core/mem/eph_int.h - what the ephemeral tier (eph.c) and the decision gate (gate.c) share;
** nothing here is public API. Kept apart from mem_int.h (the store's internals): these files
** reach the store only through its public calls (cairn/mem.h).
*/
#ifndef CAIRN_EPH_INT_H
#define CAIRN_EPH_INT_H

#include "cairn/mem.h"

/* cairn_mem_add with r's embedding; if the store refuses that as CAIRN_MISUSE (another
** dimension, a text-only store), once more without it (the store then embeds the text). r's
** embedding fields are cleared in that case. Defined in gate.c. */
int cairnMemAddEmbeddingOrText(cairn_mem *m, cairn_mem_record *r, uint64_t *pId);

#endif /* CAIRN_EPH_INT_H */
