/*
** 2026-11-30
**
** tests/core/oom.h - the failing allocator the out-of-memory sweeps install as the host's
** xMalloc/xRealloc/xFree (oomHooks). It counts every allocation (malloc and realloc alike) from
** 0 since oomArm and fails allocation number n:
**
**   - OOM_ONCE: only that one; later allocations succeed again (does the caller recover?);
**   - OOM_FOREVER: that one and every later one (the heap stays exhausted).
**
** It also counts the blocks allocated through it and not yet freed (oomLive), so a sweep can
** say that a failure leaked nothing. The counters are atomic: the h5 reader decodes on the
** host's worker threads.
*/
#ifndef CAIRN_TEST_OOM_H
#define CAIRN_TEST_OOM_H

#include "cairn/cairn.h"

#define OOM_ONCE 0
#define OOM_FOREVER 1

/* Reset the counters (allocations and live blocks) and fail allocation n (0-based: n
** allocations succeed first) in the given mode; n < 0: fail none. */
void oomArm(int mode, long n);
/* From now on fail none (the counters keep counting). */
void oomDisarm(void);
/* Was the failing allocation reached since oomArm? */
int oomReached(void);
/* Blocks allocated through the hooks and not yet freed. */
long oomLive(void);
/* Install the counting allocator into h (xMalloc, xRealloc, xFree). */
void oomHooks(cairn_host *h);
/* One step of a sweep: install *pBase with the counting allocator and no parallel-for (so the
** allocation order is deterministic), then oomArm(OOM_ONCE, n). Restore *pBase afterwards. */
void oomInstallOnce(const cairn_host *pBase, long n);

#endif
