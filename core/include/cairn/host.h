/*
** 2026-11-29
**
** cairn/host.h - the host interface: the ONLY way cairn's core reaches the outside world.
**
** The core is freestanding. It never opens a file, starts a thread, reads a clock or calls
** malloc by itself. Everything outside comes through the two structures below, the way
** SQLite's VFS works:
**
**   cairn_file  - one open byte store (a file, an ArrayBuffer, a Blob, an OPFS handle, an
**                 HTTP resource...). The core only ever reads and writes at explicit offsets.
**   cairn_host  - process-wide services: allocation, time, random bytes, parallel-for, and
**                 opening a file by name.
**
** Hosts that ship with cairn: hosts/posix.c (pread/pwrite/fsync, mmap reads, a pthread
** pool), hosts/wasi.c (WASI preview1 calls, sequential), the Emscripten binding in
** bindings/em/em_binding.c whose files call back into JS (js/src/hosts.js), and the memory-buffer
** file in the core itself (cairn_memfile_open).
**
** Versioning: both structs start with iVersion. New methods are only ever appended, with a
** version bump; the core checks iVersion before calling a method added after version 1.
** Version 2 (2026-12-02) appends cairn_file_methods.xLock/xUnlock and cairn_host.xSleep
** (locking, below). Version 3 (2026-12-02) appends cairn_file_methods.xWillRead (read plans
** for remote files).
*/
#ifndef CAIRN_HOST_H
#define CAIRN_HOST_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cairn_file cairn_file;
typedef struct cairn_file_methods cairn_file_methods;

/*
** A file handle. Hosts "subclass" it by making it the first member of their own struct:
**
**     struct my_file { cairn_file base; int fd; };
**
** pMethods must stay valid until xClose returns.
*/
struct cairn_file {
  const cairn_file_methods *pMethods;
};

/*
** File methods. Every method returns a cairn status (CAIRN_OK on success) and never throws,
** longjmps or aborts. A host that fails sets a message with cairn_seterr() (optional; the core
** adds its own context either way).
**
** xRead    Read n bytes at offset iOff into p. *pnRead receives the number of bytes read,
**          which is less than n only at end of file. The unread tail of p MUST be zero-filled:
**          the core relies on it when it parses structures that straddle the end of a file,
**          and garbage there would turn a clean "truncated file" error into a misparse.
**          pnRead may be NULL, in which case a short read is reported as CAIRN_IOERR_SHORT_READ.
** xWrite   Write n bytes at offset iOff, extending the file if needed. All or nothing from the
**          core's point of view: a partial write is an error.
** xSize    Current size in bytes.
** xTruncate  Set the size (shrink or grow with zeros).
** xSync    Make every completed write durable. The crash-safe commit protocols of the HDF5
**          writer and the chunk store depend on this meaning what it says: a host that cannot
**          sync (an ArrayBuffer) returns CAIRN_OK, and its files are then only as durable as
**          the memory they live in.
** xClose   Release the handle. Called exactly once; the handle is invalid afterwards, even if
**          xClose returns an error.
** xMap     (optional, may be NULL) Return a read-only pointer to bytes [iOff, iOff+n) that stays
**          valid until xClose, or CAIRN_NOTFOUND if this range cannot be mapped. The core uses
**          it to avoid copies on large reads and always falls back to xRead.
** xLock    (version 2, optional) Raise this handle's lock to eLock (CAIRN_LOCK_READ or
**          CAIRN_LOCK_WRITE) without waiting: CAIRN_OK, or CAIRN_BUSY (message naming the file
**          and, where known, the holder) when another handle holds a lock that excludes it. A
**          handle already at eLock or above returns CAIRN_OK. On BUSY the handle keeps the lock
**          it had. See "Locking" below for what the levels exclude.
** xUnlock  (version 2, optional) Lower this handle's lock to eLock (CAIRN_LOCK_READ or
**          CAIRN_LOCK_NONE); a handle already at eLock or below returns CAIRN_OK. Never BUSY.
**          xClose releases every lock the handle holds (an explicit xUnlock is not needed).
** xWillRead (version 3, optional) A hint: the core is about to read each of nRange ranges
**          (aRange[2k] = offset, aRange[2k+1] = length; offsets ascending, ranges disjoint)
**          once, whole, with xRead, from any of its worker threads, roughly in this order (the
**          HDF5 reader does so for the chunks of a dataset read). A remote host may fetch them
**          ahead, adjacent ones coalesced into few large requests in parallel (hosts/s3.c).
**          It must still answer every xRead correctly, hinted or not, and may ignore the hint;
**          the core ignores what this returns. A later call replaces an earlier plan.
** A host sets xLock and xUnlock both or neither. iVersion 1, or a NULL xLock, means "this host has no locks":
** cairn_file_lock then succeeds at once, and the handle is only as protected as the host.
*/
struct cairn_file_methods {
  int iVersion; /* 1, 2 or 3 */
  int (*xRead)(cairn_file *, void *p, size_t n, uint64_t iOff, size_t *pnRead);
  int (*xWrite)(cairn_file *, const void *p, size_t n, uint64_t iOff);
  int (*xSize)(cairn_file *, uint64_t *pnSize);
  int (*xTruncate)(cairn_file *, uint64_t nSize);
  int (*xSync)(cairn_file *);
  int (*xClose)(cairn_file *);
  int (*xMap)(cairn_file *, uint64_t iOff, size_t n, const void **pp);
  /* version 2 */
  int (*xLock)(cairn_file *, int eLock);
  int (*xUnlock)(cairn_file *, int eLock);
  /* version 3 */
  int (*xWillRead)(cairn_file *, const uint64_t *aRange, size_t nRange);
};

/*
** Locking. cairn's formats (HDF5 via the writer, chunk store, memory store) commit so that a
** reader always sees a whole committed state, so readers need not keep writers out; what must
** never happen is two writers on one file. Hence two levels, not SQLite's five:
**
**   CAIRN_LOCK_NONE   0  no lock.
**   CAIRN_LOCK_READ   1  a cairn reader: coexists with other readers AND with one cairn writer.
**                        It keeps programs out that do not commit that way (libhdf5 writers).
**   CAIRN_LOCK_WRITE  2  the one writer of the file, across processes and threads (every handle
**                        counts: two handles of one process exclude each other too); coexists
**                        with cairn readers. Includes what READ keeps out.
**
** Locks are advisory (like SQLite's): they exclude cairn handles and the programs a host
** knows about, nothing else. What each shipped host does:
**
**   POSIX (hosts/posix.c, Linux): open-file-description locks (F_OFD_SETLK) on two lock bytes
**     far past any data (offsets CAIRN_LOCK_BYTE_WRITER and _READER; nothing is written there
**     and the file does not grow): the writer holds the writer byte exclusively, readers hold
**     the reader byte shared. They belong to the handle, so two handles of one process or
**     thread exclude each other, and the kernel drops them when the handle closes or the
**     process dies (kill -9 included).
**     Plus libhdf5's lock, so that h5py/libhdf5 and cairn exclude each other: libhdf5 1.10+
**     takes flock(LOCK_SH|LOCK_NB) for read-only opens and flock(LOCK_EX|LOCK_NB) for writers
**     and takes none when HDF5_USE_FILE_LOCKING is FALSE (or 0). cairn takes the same flock on
**     every file it locks (not only HDF5 files: simplest, and harmless for the others) and
**     honours the same variable (read at each xLock). Then:
**       - a libhdf5 writer holding a file makes a cairn writer and a cairn reader BUSY;
**       - a cairn writer makes libhdf5's open (read or write) fail;
**       - a libhdf5 reader makes a cairn writer BUSY (as it makes a libhdf5 writer fail).
**     cairn readers beside a cairn writer: a reader whose flock(SH) fails asks the kernel
**     (F_OFD_GETLK) whether the writer byte is held; if so the flock(EX) is a cairn writer's
**     and the reader proceeds without flock. A writer whose flock(EX) fails because cairn
**     readers hold flock(SH) (the reader byte is held) takes flock(SH) instead. The gaps this
**     leaves, both needing libhdf5 and cairn on one file at once: (1) a libhdf5 reader that
**     opened beside cairn readers coexists with a cairn writer that comes later (the writer
**     cannot tell its flock(SH) from theirs); (2) a cairn reader that opened beside a cairn
**     writer holds no flock, so once that writer is gone a libhdf5 writer is not kept out by
**     that reader.
**     Plus a lock file for writers, so that Node writers (js/, which has no flock or fcntl)
**     and native writers exclude each other: the writer creates "<file>.cairn-lock"
**     (O_CREAT|O_EXCL, beside the real path, holding "cairn-lock pid=N host=H") and removes it
**     on unlock or close. One left by a process that died on the same host (kill(pid, 0) says
**     ESRCH) is stale and broken by the next writer; one from another host is held until
**     removed by hand. A directory where it cannot be created (read-only) skips it.
**     Plus reader markers, so that a native writer also sees readers that have no OFD or flock
**     locks (Node, WASI): such a reader creates a file in the directory "<file>.cairn-readers/"
**     ("cairn-reader pid=N host=H" from Node, "cairn-reader wasi id=X" from WASI) when it takes
**     READ and removes it (and the directory once empty) when it lets go. A writer's
**     xLock(EXCLUSIVE) is BUSY while a live marker is there; one whose process died on this
**     host is removed (a WASI marker is never known dead: delete it by hand after a killed WASI
**     reader). One stat() when there is none.
**     Files opened by cairn_posix_wrap_fd have no path: OFD and flock only.
**     A writer that opens with CAIRN_OPEN_TRUNCATE truncates before it can lock: open
**     without it, lock, then truncate.
**   WASI preview1 (hosts/wasi.c): no locks in the interface. xLock(READ) succeeds and leaves a
**     reader marker (above); xLock(WRITE) is BUSY while "<file>.cairn-lock" exists (a native or
**     Node writer holds the file, or one died: WASI cannot tell which, so it refuses and names
**     the lock file); xLock(EXCLUSIVE) is CAIRN_OK (it cannot see native readers). Nothing keeps
**     two WASI writers, or a WASI writer and libhdf5, apart.
**   Emscripten (bindings/em/em_binding.c): the JS file object's lock(eLock)/unlock(eLock), if it
**     has them (js/src/hosts.js): NodeFile takes a writer lock when opened writable (one per
**     file per process, plus the same lock file), a reader marker (above) for READ, and
**     answers BUSY to EXCLUSIVE (native readers are invisible to Node: a Node writer never
**     reuses space an older state used); OPFS sync access handles are exclusive by
**     themselves; memory files need none.
**   Memory files (cairn_memfile_open): no locks (one process, one handle).
*/
#define CAIRN_LOCK_NONE  0
#define CAIRN_LOCK_READ  1
#define CAIRN_LOCK_WRITE 2
/*
** CAIRN_LOCK_EXCLUSIVE (4, passed to xLock only by cairn_file_no_readers): a question a writer
** asks, not a level it keeps. From WRITE, xLock(EXCLUSIVE) is CAIRN_OK when no other handle holds READ (or a foreign reader's lock) at
** this moment, else CAIRN_BUSY; the handle stays at WRITE either way (readers may come later:
** they see the state committed by then). The HDF5 writer asks it before it reuses or cuts off
** space an older committed state used (core/h5/WRITER.md, "Readers beside the writer"). A host
** that cannot tell answers CAIRN_OK (as today: no locks means no protection). POSIX: one
** F_OFD_GETLK on the reader byte, plus flock(LOCK_EX|LOCK_NB) while the writer holds only
** flock(LOCK_SH) (it then keeps LOCK_EX).
*/
#define CAIRN_LOCK_EXCLUSIVE 4

/* The POSIX host's lock bytes (OFD locks, never read or written). */
#define CAIRN_LOCK_BYTE_WRITER ((int64_t)0x7ffffffffffff000ll)
#define CAIRN_LOCK_BYTE_READER ((int64_t)0x7ffffffffffff001ll)

/* Flags for cairn_host.xOpen. */
#define CAIRN_OPEN_READONLY  0x01
#define CAIRN_OPEN_READWRITE 0x02
#define CAIRN_OPEN_CREATE    0x04 /* create if missing (with READWRITE) */
#define CAIRN_OPEN_TRUNCATE  0x08 /* truncate to zero length (with READWRITE) */
#define CAIRN_OPEN_EXCLUSIVE 0x10 /* fail with CAIRN_EXISTS if it exists (with CREATE) */

/*
** A task for xParallelFor: called once for each i in [0, nTask), from any thread, in any
** order. iWorker is in [0, nWorker) where nWorker is what xConcurrency returned; tasks
** that run at the same time have different iWorker values, so a task may use per-worker
** scratch space indexed by it.
*/
typedef void (*cairn_task_fn)(void *pArg, size_t i, unsigned iWorker);

/*
** Process-wide host services. Any method may be NULL; the core then degrades:
**   xMalloc/xRealloc/xFree NULL -> the C library's malloc/realloc/free
**   xClock NULL                 -> time reads as 0
**   xRandom NULL                -> features that need entropy fail with CAIRN_UNSUPPORTED
**   xParallelFor NULL           -> tasks run in order on the calling thread (same results)
**   xConcurrency NULL           -> 1
**   xOpen NULL                  -> opening files by name fails with CAIRN_UNSUPPORTED
**   xCpuFeatures NULL           -> only features the core can detect itself (x86 cpuid)
**   xSleep NULL (or iVersion 1) -> busy timeouts cannot wait: cairn_file_lock tries once
**
** The allocator must return memory aligned for any C type (like malloc); xRealloc(p, 0) is
** never called; xFree(NULL) must be a no-op. An embedder caps cairn's memory by returning
** NULL from xMalloc: every core call then fails cleanly with CAIRN_NOMEM.
*/
typedef struct cairn_host {
  int iVersion; /* 1 or 2 */
  void *pCtx;   /* passed back to every method */
  void *(*xMalloc)(void *pCtx, size_t n);
  void *(*xRealloc)(void *pCtx, void *p, size_t n);
  void (*xFree)(void *pCtx, void *p);
  /* Wall-clock time in nanoseconds since 1970-01-01 UTC (monotonic=0), or a monotonic clock
  ** for measuring durations (monotonic=1). */
  int64_t (*xClock)(void *pCtx, int monotonic);
  /* Fill p with n cryptographically random bytes. */
  int (*xRandom)(void *pCtx, void *p, size_t n);
  /* Run xTask(pArg, i, iWorker) for every i in [0, nTask) and return when all are done. */
  int (*xParallelFor)(void *pCtx, size_t nTask, cairn_task_fn xTask, void *pArg);
  /* How many tasks xParallelFor may run at once (>= 1). */
  unsigned (*xConcurrency)(void *pCtx);
  /* Open a file by name (CAIRN_OPEN_* flags). On success set *ppFile; on failure leave it
  ** as it is (cairn_open has set it to NULL before the call). */
  int (*xOpen)(void *pCtx, const char *zPath, int flags, cairn_file **ppFile);
  /* CPU features the host knows and the core cannot detect itself (CAIRN_CPU_* bits), for
  ** example ARM hwcaps that only the OS reports. */
  uint64_t (*xCpuFeatures)(void *pCtx);
  /* version 2: sleep the calling thread for about ns nanoseconds (the busy timeout's wait). */
  void (*xSleep)(void *pCtx, int64_t ns);
} cairn_host;

/*
** Install a host for the whole process. The struct is copied. Pass NULL to go back to the
** built-in default (malloc/free, nothing else). Not thread-safe: call it before other cairn
** calls, as you would sqlite3_config().
*/
CAIRN_API int cairn_host_set(const cairn_host *pHost);
/* The host in force (never NULL). */
CAIRN_API const cairn_host *cairn_host_get(void);

/* Convenience wrappers that route through the installed host. */
CAIRN_API void *cairn_malloc(size_t n);
CAIRN_API void *cairn_realloc(void *p, size_t n);
CAIRN_API void cairn_free(void *p);
CAIRN_API int cairn_open(const char *zPath, int flags, cairn_file **ppFile);

/* File wrappers: these add the path-free context a message needs ("read of 4096 bytes at
** offset 81920 failed: ..."). cairn_file_read_exact fails on a short read. */
CAIRN_API int cairn_file_read(cairn_file *f, void *p, size_t n, uint64_t iOff, size_t *pnRead);
CAIRN_API int cairn_file_read_exact(cairn_file *f, void *p, size_t n, uint64_t iOff);
CAIRN_API int cairn_file_write(cairn_file *f, const void *p, size_t n, uint64_t iOff);
CAIRN_API int cairn_file_size(cairn_file *f, uint64_t *pnSize);
CAIRN_API int cairn_file_truncate(cairn_file *f, uint64_t nSize);
CAIRN_API int cairn_file_sync(cairn_file *f);
CAIRN_API int cairn_file_close(cairn_file *f); /* NULL is a no-op */

/*
** Locks with a busy timeout (levels and hosts: "Locking" above). cairn_file_lock raises f's lock
** to eLock; while the host says CAIRN_BUSY it sleeps (cairn_host.xSleep: 1, 2, 5, 10, 15, 20,
** 25 ms, then 50 and 100 ms, as SQLite's busy handler) and tries again until timeoutMs has
** passed, then returns CAIRN_BUSY with the host's message and the time waited. timeoutMs 0 tries
** once; CAIRN_LOCK_DEFAULT_TIMEOUT (-1) uses the process-wide default (cairn_set_busy_timeout,
** initially 0). Time is measured with cairn_host.xClock (monotonic) or, without one, by adding
** up the sleeps. A file whose host has no locks succeeds at once. cairn_file_unlock lowers the
** lock to eLock (CAIRN_LOCK_READ or CAIRN_LOCK_NONE) and never waits.
*/
#define CAIRN_LOCK_DEFAULT_TIMEOUT ((int64_t)-1)
CAIRN_API int cairn_file_lock(cairn_file *f, int eLock, int64_t timeoutMs);
CAIRN_API int cairn_file_unlock(cairn_file *f, int eLock);
/* Does f (locked WRITE) have readers beside it right now? CAIRN_OK: none (as far as the host
** can tell: a host without locks says none), CAIRN_BUSY: some. Never waits; never changes f's
** lock. (xLock(CAIRN_LOCK_EXCLUSIVE), "Locking" above.) */
CAIRN_API int cairn_file_no_readers(cairn_file *f);
/* Does f's host implement locks (xLock set)? 0 means cairn_file_lock only pretends. */
CAIRN_API int cairn_file_can_lock(cairn_file *f);
/* The process-wide default busy timeout in ms (negative is taken as 0). Like cairn_host_set, set
** it before other threads use cairn. */
CAIRN_API void cairn_set_busy_timeout(int64_t ms);
CAIRN_API int64_t cairn_busy_timeout(void);

/*
** A file that lives in memory, implemented in the core. With p == NULL it starts empty and
** grows as written (through cairn_malloc); otherwise it starts as a copy of p[0..n).
** cairn_memfile_data() returns its current bytes (valid until the next write or close).
*/
CAIRN_API int cairn_memfile_open(const void *p, size_t n, cairn_file **ppFile);
CAIRN_API int cairn_memfile_data(cairn_file *f, const uint8_t **pp, size_t *pn);

/* CPU feature bits (cairn_cpu_features and cairn_host.xCpuFeatures). */
#define CAIRN_CPU_SSE41   (1ull << 0)
#define CAIRN_CPU_AVX2    (1ull << 1) /* with FMA */
#define CAIRN_CPU_AVX512  (1ull << 2) /* F + BW + VL */
#define CAIRN_CPU_SHANI   (1ull << 3)
#define CAIRN_CPU_F16C    (1ull << 4)
#define CAIRN_CPU_NEON    (1ull << 16)
#define CAIRN_CPU_ARMSHA2 (1ull << 17) /* ARMv8 crypto extension SHA-256 instructions */
#define CAIRN_CPU_WASM128 (1ull << 24) /* compiled with -msimd128 */

/* Features in use: what the CPU has, minus what cairn_cpu_disable() turned off. */
CAIRN_API uint64_t cairn_cpu_features(void);
/* Kill switch for tests and benchmarks: force the portable path for the given bits. Pass 0 to
** re-enable everything. */
CAIRN_API void cairn_cpu_disable(uint64_t mask);

#ifdef __cplusplus
}
#endif
#endif /* CAIRN_HOST_H */
