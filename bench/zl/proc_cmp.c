/*
** 2026-12-02
**
** bench/zl/proc_cmp.c - whole-process comparison of commands: RUNS rounds, the commands
** alternating within each round (a burst of load hits all alike), each run fork+exec'd directly
** (no shell, whose own start-up would count) and measured with wait4: wall-clock time, CPU time
** (user + system) and minor page faults of the child. Prints each command's median of the three
** and the ratios against the last command (the peer).
**   proc_cmp RUNS 'prog arg ...' 'peer arg ...'
** Words are split at spaces; a word ">FILE" sends the command's standard output to FILE.
*/
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXC 4
#define MAXR 64

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static int cmpD(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *a, int n) {
  qsort(a, n, sizeof *a, cmpD);
  return n & 1 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
}

/* Run the command once; wall seconds, CPU seconds and minor faults of the child. */
static void runOnce(char *zCmd, double *pWall, double *pCpu, double *pFlt) {
  char *z = strdup(zCmd), *av[64], *zOut = NULL;
  int n = 0;
  for (char *t = strtok(z, " "); t && n < 63; t = strtok(NULL, " ")) {
    if (t[0] == '>') zOut = t + 1;
    else av[n++] = t;
  }
  av[n] = NULL;
  double t0 = now();
  pid_t pid = fork();
  if (pid == 0) {
    if (zOut) {
      int fd = open(zOut, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0 || dup2(fd, 1) < 0) _exit(126);
      close(fd);
    }
    execvp(av[0], av);
    _exit(127);
  }
  int st;
  struct rusage u;
  wait4(pid, &st, 0, &u);
  *pWall = now() - t0;
  if (!WIFEXITED(st) || WEXITSTATUS(st)) fprintf(stderr, "proc_cmp: '%s' failed (status %d)\n", zCmd, st), exit(1);
  *pCpu = u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec * 1e-6;
  *pFlt = (double)u.ru_minflt;
  free(z);
}

int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: proc_cmp RUNS 'cmd ...' ['peer ...']\n"), 2;
  int runs = atoi(argv[1]), nc = argc - 2;
  if (runs < 1 || runs > MAXR || nc > MAXC) return fprintf(stderr, "proc_cmp: 1..%d runs, at most %d commands\n", MAXR, MAXC), 2;
  static double aW[MAXC][MAXR], aC[MAXC][MAXR], aF[MAXC][MAXR];
  for (int k = 0; k < nc; k++) runOnce(argv[2 + k], &aW[k][0], &aC[k][0], &aF[k][0]); /* warm the page cache */
  for (int r = 0; r < runs; r++)
    for (int k = 0; k < nc; k++) {
      int j = (r & 1) ? nc - 1 - k : k; /* ABBA... order */
      runOnce(argv[2 + j], &aW[j][r], &aC[j][r], &aF[j][r]);
    }
  double w[MAXC], c[MAXC], f[MAXC];
  for (int k = 0; k < nc; k++) w[k] = median(aW[k], runs), c[k] = median(aC[k], runs), f[k] = median(aF[k], runs);
  double la[3] = {0};
  FILE *fl = fopen("/proc/loadavg", "r");
  if (fl) fscanf(fl, "%lf %lf %lf", &la[0], &la[1], &la[2]), fclose(fl);
  for (int k = 0; k < nc; k++)
    printf("  %-60s wall %7.1f ms  cpu %7.1f ms  faults %7.0f  | peer/this: wall %5.2fx cpu %5.2fx faults %5.2fx  (median of %d, load %.2f)\n",
           argv[2 + k], w[k] * 1e3, c[k] * 1e3, f[k], w[nc - 1] / w[k], c[nc - 1] / c[k], f[nc - 1] / f[k], runs, la[0]);
  return 0;
}
