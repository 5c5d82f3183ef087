/*
** 2026-12-02
**
** bench/faults.h - minor page faults of this process, for the benches' "faults/op" columns
** (issue 23): a fresh 4 KiB page costs 2-16 us on the VMs these benches run on, which a loaded
** machine does not change, so every row prints how many its operation takes beside the peer's.
** benchFaults() is getrusage's ru_minflt (all threads of the process); per operation: the
** difference over a loop divided by its iterations (benchFaultsPer).
*/
#ifndef BENCH_FAULTS_H
#define BENCH_FAULTS_H
#include <sys/resource.h>

static inline long benchFaults(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

/* Minor faults per call of fn(arg) over n calls (after the caller's warm-up). */
static inline double benchFaultsPer(void (*fn)(void *), void *arg, int n) {
  long f0 = benchFaults();
  for (int i = 0; i < n; i++) fn(arg);
  return (double)(benchFaults() - f0) / n;
}
#endif
