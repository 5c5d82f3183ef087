/* A downstream program: hash a file through the installed library's POSIX host. */
#include <stdio.h>
#include <cairn/cairn.h>
#include <cairn/platform.h>

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  cairn_posix_install(0);
  cairn_file *f;
  uint8_t d[32];
  char z[65];
  int rc = cairn_open(argv[1], CAIRN_OPEN_READONLY, &f);
  if (rc == CAIRN_OK) rc = cairn_sha256_file(f, d);
  cairn_file_close(f);
  if (rc) {
    fprintf(stderr, "%s\n", cairn_errmsg());
    return 1;
  }
  cairn_hex(d, 32, z);
  printf("%s  %s\n", z, argv[1]);
  cairn_posix_shutdown();
  return 0;
}
