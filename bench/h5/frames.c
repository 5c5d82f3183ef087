/*
** 2026-11-30
**
** bench/h5/frames.c FILE - what a frame left on the stack under a system call costs once the
** call returns. The floor loop (open, one 8 KiB pread, close) is timed twice: with the pread
** made straight from the loop's function, and made 8 noinline calls deeper, so that 8 more
** returns go into frames that were on the stack when the system call was made. Where the
** kernel (or the hypervisor under it) refills the CPU's return-stack buffer on every kernel
** exit, each of those returns is mispredicted; on the bench VM (2-core AMD EPYC, Firecracker)
** they cost ~70-80 ns, ~9 ns each. This is why the reader keeps few frames under its open, first
** read and close ("System calls and the stack" in core/common/internal.h). Build:
**   cc -O2 -o frames bench/h5/frames.c
*/
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static const char *gzFile;
static char gBuf[8192];

/* Each level adds one frame and one return into it after the pread; the empty asm keeps the
** calls from becoming tail calls. */
#define NI __attribute__((noinline))
NI static long depth0(int fd) {
  long r = pread(fd, gBuf, sizeof gBuf, 0);
  __asm__ volatile("");
  return r;
}
#define LEVEL(n, below)          \
  NI static long n(int fd) {     \
    long r = below(fd);          \
    __asm__ volatile("");        \
    return r;                    \
  }
LEVEL(depth1, depth0)
LEVEL(depth2, depth1)
LEVEL(depth3, depth2)
LEVEL(depth4, depth3)
LEVEL(depth5, depth4)
LEVEL(depth6, depth5)
LEVEL(depth7, depth6)
LEVEL(depth8, depth7)

static void shallow(void) {
  int fd = open(gzFile, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || depth0(fd) < 0) exit(1);
  close(fd);
}
static void deep(void) {
  int fd = open(gzFile, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || depth8(fd) < 0) exit(1);
  close(fd);
}
static double run(void (*fn)(void), int n) {
  double t0 = now();
  for (int i = 0; i < n; i++) fn();
  return (now() - t0) / n;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: frames FILE\n");
    return 1;
  }
  gzFile = argv[1];
  double a = 1e9, b = 1e9;
  for (int r = 0; r < 40; r++) { /* alternating, best of each */
    double t = run(shallow, 300);
    if (t < a) a = t;
    t = run(deep, 300);
    if (t < b) b = t;
  }
  printf("open + pread + close: pread 1 frame down %.3f us, 9 frames down %.3f us: %+.1f ns for 8 returns (%.1f ns each)\n",
         a * 1e6, b * 1e6, (b - a) * 1e9, (b - a) * 1e9 / 8);
  return 0;
}
