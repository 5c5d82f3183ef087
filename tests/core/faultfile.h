/*
** 2026-11-29
**
** tests/core/faultfile.h - a cairn_file that wraps any other and injects the faults a
** crash-safe writer must survive (the chunk store, agent memory and the HDF5 writer use it):
**
**   - fail the Nth write or the Nth sync with an I/O error (nothing changes, the caller goes on);
**   - tear the Nth write: a random prefix of it lands, then the power fails;
**   - cut the power just before the Nth write or the Nth sync.
**
** Power loss follows SQLite's crash model (src/test6.c): what the last successful sync made
** durable stays; every write after it (including truncates) independently lands whole, lands
** as a prefix, is lost, or - with bGarble - leaves a prefix followed by random bytes in the
** rest of its range; a lost write that extended the file may leave zeros. The fates come from
** the seed, so a failing case replays. After the power fails every call but xClose returns
** CAIRN_IOERR, and the post-crash bytes are already in the wrapped file, which the test
** reopens as a restarted program would (also when the handle was closed in between).
**
** Garbage stays inside the range of the write that made it: a write never damages bytes it
** did not cover (SQLite's "powersafe overwrite"); the store's format relies on that and says so.
*/
#ifndef CAIRN_FAULTFILE_H
#define CAIRN_FAULTFILE_H

#include "cairn/cairn.h"

typedef struct FaultSpec {
  uint32_t nFailWrite;    /* the Nth write (1-based) fails and changes nothing; 0 = never */
  uint32_t nFailSync;     /* the Nth sync fails (and makes nothing durable) */
  uint32_t nTearWrite;    /* the Nth write lands as a random prefix, then the power fails */
  uint32_t nCrashWrite;   /* the power fails just before the Nth write */
  uint32_t nCrashSync;    /* the power fails just before the Nth sync */
  int bGarble;            /* lost and torn writes may leave random bytes in their range */
  uint32_t nLoseOnly;     /* if set: at power loss every unsynced write lands whole except
                          ** the Nth of them (1-based), which is lost or torn - the ordering
                          ** bug finder: "everything but this one write reached the disk" */
  uint64_t seed;          /* fates of the unsynced writes */
  uint32_t nSector;       /* if set: torn writes and landed prefixes end on a multiple of nSector
                          ** from offset 0, so a write inside one sector lands whole or not at
                          ** all (the HDF5 writer's one assumption, for its 48-byte superblock) */
  int bKeepUnsynced;      /* a process crash, not a power loss: every write before the crash
                          ** point lands whole (the page cache keeps them) */
  int bSectorAtomic;      /* a write inside one 512-byte sector lands whole or not at all (never
                          ** torn or garbled): the one assumption of the HDF5 writer's superblock
                          ** switch (core/h5/WRITER.md) */
} FaultSpec;

/* Wrap base. The current bytes of base count as durable. bOwn: close base on xClose. */
int faultfileWrap(cairn_file *base, int bOwn, const FaultSpec *pSpec, cairn_file **ppFile);
/* Writes and syncs attempted so far (failed ones included). */
void faultfileCounts(cairn_file *f, uint32_t *pnWrite, uint32_t *pnSync);
/* Unsynced operations when the power failed (what nLoseOnly can pick from). */
uint32_t faultfilePendingAtLoss(cairn_file *f);
/* 1 once the power has failed. */
int faultfileDead(cairn_file *f);
/* Fail the power now if it has not failed yet (the post-crash bytes go into base). */
int faultfilePowerLoss(cairn_file *f);

#endif
