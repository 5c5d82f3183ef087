/* 2026-11-29 - lookup3 against the reference implementation's published self-test values
** (driver5 in Jenkins' lookup3.c) and HDF5's use of it. */
#include "hash/lookup3.h"
#include "tf.h"

TEST(lookup3, reference_values) {
  CHECK_EQ(cairnLookup3("", 0, 0), 0xdeadbeefu);
  CHECK_EQ(cairnLookup3("", 0, 0xdeadbeef), 0xbd5b7ddeu);
  CHECK_EQ(cairnLookup3("Four score and seven years ago", 30, 0), 0x17770551u);
  CHECK_EQ(cairnLookup3("Four score and seven years ago", 30, 1), 0xcd628161u);
}
