/* 2026-11-29 - SHA-256: NIST FIPS 180-4 examples and the long-message vector, on every kernel
** this CPU has and on the portable one; kernels must agree on every length 0..1000. */
#include "common/internal.h"
#include "tf.h"

static void hexOf(const void *p, size_t n, char z[65]) {
  uint8_t d[32];
  cairn_sha256(p, n, d);
  cairn_hex(d, 32, z);
}

static void nistVectors(void) {
  char z[65];
  hexOf("abc", 3, z);
  CHECK_STR(z, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  hexOf("", 0, z);
  CHECK_STR(z, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const char *m2 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  hexOf(m2, strlen(m2), z);
  CHECK_STR(z, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const char *m3 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
  hexOf(m3, strlen(m3), z);
  CHECK_STR(z, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  /* One million 'a', fed in odd-sized pieces through the streaming API. */
  static uint8_t a[1000];
  memset(a, 'a', sizeof a);
  cairn_sha256_ctx s;
  cairn_sha256_init(&s);
  size_t left = 1000000, step = 1;
  while (left) {
    size_t k = CAIRN_MIN(left, step);
    cairn_sha256_update(&s, a, k);
    left -= k;
    step = step % 987 + 13; /* stays <= sizeof a */
  }
  uint8_t d[32];
  cairn_sha256_final(&s, d);
  cairn_hex(d, 32, z);
  CHECK_STR(z, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(sha256, nist_best_kernel) { nistVectors(); }

TEST(sha256, nist_portable) {
  cairn_cpu_disable(CAIRN_CPU_SHANI | CAIRN_CPU_ARMSHA2);
  CHECK_STR(cairn_sha256_kernel(), "portable");
  nistVectors();
  cairn_cpu_disable(0);
}

TEST(sha256, kernels_agree) {
  static uint8_t buf[1000];
  tfFillRandom(buf, sizeof buf, 77);
  for (size_t n = 0; n <= sizeof buf; n++) {
    uint8_t a[32], b[32];
    cairn_sha256(buf, n, a);
    cairn_cpu_disable(CAIRN_CPU_SHANI | CAIRN_CPU_ARMSHA2);
    cairn_sha256(buf, n, b);
    cairn_cpu_disable(0);
    CHECK_MEM(a, b, 32);
  }
}

TEST(sha256, kernel_in_use) {
  const char *z = cairn_sha256_kernel();
#if defined(__x86_64__)
  if (cairn_cpu_features() & CAIRN_CPU_SHANI) CHECK_STR(z, "sha-ni");
#elif defined(__aarch64__)
  if (cairn_cpu_features() & CAIRN_CPU_ARMSHA2) CHECK_STR(z, "armv8-sha2");
#else
  CHECK_STR(z, "portable");
#endif
  printf("    sha256 kernel: %s\n", z);
}

TEST(sha256, file_matches_buffer) {
  size_t n = 3 * 256 * 1024 + 4321; /* crosses the streaming block size */
  uint8_t *p = cairn_malloc(n);
  tfFillRandom(p, n, 5);
  CHECK_OK(tfWriteFile(tfTmp("sha.bin"), p, n));
  cairn_file *f;
  CHECK_OK(cairn_open(tfTmp("sha.bin"), CAIRN_OPEN_READONLY, &f));
  uint8_t a[32], b[32];
  CHECK_OK(cairn_sha256_file(f, a));
  cairn_file_close(f);
  cairn_sha256(p, n, b);
  CHECK_MEM(a, b, 32);
  cairn_free(p);
}
